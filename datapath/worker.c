/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The datapath worker: a poll loop over the RX queues it owns. Per burst:
 * classify and validate, one bulk FIB lookup, forward, one TX flush per
 * egress port, release the RX frames, report an RCU quiescent state.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <urcu-qsbr.h>

#include "datapath/arp.h"
#include "datapath/ip4.h"
#include "datapath/worker_priv.h"
#include "lib/clock.h"
#include "lib/log.h"

/*
 * Sleep policy (measurements in BENCHMARKS.md, "Latency"). While frames
 * arrive the worker polls its rings without a syscall and forwards them in
 * bursts, so under load it never sleeps and a frame is forwarded within a
 * microsecond or two of the kernel writing it. The first pass that finds
 * nothing to do sleeps in ppoll(2) on the RX sockets (the kernel wakes it
 * for the next frame) until the earliest deadline a port driver or the ARP
 * hold queue reported, never longer than SLEEP_MAX_NS: that bounds what
 * nothing wakes the worker for (an on-demand OAM ping asked by the control
 * thread, a reassembly timer started after the last timer pass) and keeps
 * the watchdog's loop counter moving. Idle cost: ~100 wakeups a second.
 * Spinning on after the last frame (20 us to forever were measured) bought
 * nothing here: what it saves is the wakeup of a worker on an idle CPU,
 * but the next frame of a request/response exchange comes back only after
 * the far host's own wakeup, and a real-time worker that spins keeps the
 * CPU from the hosts sharing it (ping-pong through a worker on the hosts'
 * CPU: 31k transactions/s without spinning, 14k with 20 us, 4k with 200 us);
 * one that never sleeps is throttled by the kernel (50 ms a second).
 *
 * Priority: workers run SCHED_FIFO at the lowest real-time priority where
 * the daemon may (root, or RLIMIT_RTPRIO), as the kernel's own forwarding
 * runs in softirq ahead of every task. In the fair class a woken worker
 * waits for the task on its CPU to finish its slice (EEVDF run-to-parity),
 * which measured as milliseconds of ping p99 on a loaded machine.
 */
#define SLEEP_MAX_NS          10000000ull
#define HOLD_TICK_NS          1000000ull /* held packets are looked up again every millisecond */
#define NO_DEADLINE           UINT64_MAX
#define ETH_FRAME_MIN         60u /* without the FCS */
#define WORKER_TIMER_SLACK_NS 1000
#define WORKER_RT_PRIO        1

static void arp_snoop(struct worker *w, const struct pkt *p)
{
	struct arp_info a;
	struct dp_event ev = {.type = DP_EV_ARP_SEEN, .port = p->in_port};

	if (!arp_parse(p->data, p->len, &a) || a.spa == 0)
		return;
	ev.ip = a.spa;
	memcpy(ev.mac, a.sha, 6);
	if (!event_ring_push(&w->events, &ev))
		CTR_ADD(w->ctr->events_lost, 1);
}

/*
 * Octets after the datagram (a trailer, or padding) are no part of it: sent
 * on they could take the frame past the egress MTU. Trimmed, but not below
 * the 60-octet Ethernet minimum the frame already had.
 */
static void frame_trim(struct pkt *p, uint32_t frame)
{
	if (frame < ETH_FRAME_MIN)
		frame = ETH_FRAME_MIN;
	if (frame < p->len)
		p->len = frame;
}

/*
 * The IPv6 part of classify (RFC 8200 §3, §4): validated, left to the
 * kernel when it is for the host (link-local and multicast destinations,
 * link-layer broadcast and multicast; the router's own addresses are local
 * routes in the FIB6), or a candidate for the FIB6 lookup (true).
 */
static bool classify6(struct worker *w, struct pkt *p, struct ip6_info *info)
{
	struct port_counters *c = &w->ctr->port[p->in_port];
	enum drop_reason r;

	CTR_ADD(c->ip6_in_packets, 1);
	CTR_ADD(c->ip6_in_octets, p->len - 14);
	if (!port_ip6_on(&w->dp->ports[p->in_port])) {
		worker_to_kernel6(w, p);
		return false;
	}
	r = ip6_validate(p->data + 14, p->len - 14, info);
	if (r != IP6_OK && r != IP6_LOCAL) {
		worker_drop6(w, p, r);
		worker_icmp6_reply(w, p, &info->err);
		return false;
	}
	frame_trim(p, 14u + info->len);
	if (r == IP6_LOCAL || p->l2_class != PKT_L2_HOST) {
		worker_nd_snoop(w, p);
		worker_to_kernel6(w, p);
		return false;
	}
	return true;
}

enum pkt_verdict { PKT_DONE, PKT_LOOKUP4, PKT_LOOKUP6 };

/*
 * First pass over one frame: everything but the FIB decision. Returns which
 * lookup the frame is a transit candidate for, or PKT_DONE.
 */
static enum pkt_verdict classify(struct worker *w, struct pkt *p, struct ip6_info *info6)
{
	struct port_counters *c = &w->ctr->port[p->in_port];

	CTR_ADD(c->rx_packets, 1);
	CTR_ADD(c->rx_octets, p->len);
	if (p->gso_type != PKT_GSO_NONE)
		CTR_ADD(c->rx_gso_packets, 1);
	if (p->len < 14) {
		worker_drop(w, p, DROP_L2_RUNT);
		return PKT_DONE;
	}
	if (p->l2_class == PKT_L2_OTHERHOST) {
		worker_drop(w, p, DROP_L2_OTHER_HOST);
		return PKT_DONE;
	}
	uint16_t type = rd16(p->data + 12);
	if (type == ETHERTYPE_IPV6)
		return classify6(w, p, info6) ? PKT_LOOKUP6 : PKT_DONE;
	if (type != ETHERTYPE_IPV4) {
		if (type == ETHERTYPE_ARP)
			arp_snoop(w, p);
		worker_to_kernel(w, p);
		return PKT_DONE;
	}
	const uint8_t *ip = p->data + 14;
	enum drop_reason r = ip4_validate(ip, p->len - 14, dp_param(w->dp, ip_options_forward));
	if (r != IP4_OK) {
		worker_drop(w, p, r);
		return PKT_DONE;
	}
	frame_trim(p, 14u + rd16(ip + 2));
	/* Link-layer broadcast/multicast and multicast/limited-broadcast IP are the host's
	 * business. */
	if (p->l2_class != PKT_L2_HOST || ip4_dst_is_local_only(rd32(ip + 16))) {
		worker_to_kernel(w, p);
		return PKT_DONE;
	}
	if (ip4_src_is_martian(rd32(ip + 12))) {
		worker_drop(w, p, DROP_IP_BAD_SOURCE);
		return PKT_DONE;
	}
	return PKT_LOOKUP4;
}

/* The IPv6 candidates of a burst: one bulk FIB6 lookup, then each decided. */
static void forward6_burst(struct worker *w, struct pkt *pkts, const uint8_t *idx,
                           const struct ip6_info *info, unsigned k)
{
	const uint8_t *dst[BURST_MAX];
	uint32_t val[BURST_MAX];

	for (unsigned j = 0; j < k; j++)
		dst[j] = pkts[idx[j]].data + 14 + 24;
	fib6_lookup_bulk(w->dp->fib6, dst, val, k);
	for (unsigned j = 0; j < k; j++) {
		struct pkt *p = &pkts[idx[j]];
		uint8_t ip6[16];
		uint16_t port;

		if (worker_forward6(w, p, val[j], &info[idx[j]], ip6, &port) == FWD_WAIT_ARP)
			worker_hold_add6(w, p, ip6, port);
	}
}

static unsigned worker_poll_queue(struct worker *w, struct port *pt)
{
	struct port_queue *q = pt->queues[w->id];
	struct pkt pkts[BURST_MAX];
	uint32_t dst[BURST_MAX], val[BURST_MAX];
	uint8_t idx[BURST_MAX], idx6[BURST_MAX];
	struct ip6_info info6[BURST_MAX];
	unsigned n, k = 0, k6 = 0;

	n = pt->ops->rx_burst(q, pkts, BURST_MAX);
	if (n == 0) {
		/* Frames it skipped (outgoing copies) go back too, or poll() stays readable. */
		pt->ops->rx_release(q);
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		enum pkt_verdict v = classify(w, &pkts[i], &info6[i]);

		if (v == PKT_LOOKUP4) {
			dst[k] = rd32(pkts[i].data + 14 + 16);
			idx[k++] = (uint8_t)i;
		} else if (v == PKT_LOOKUP6) {
			idx6[k6++] = (uint8_t)i;
		}
	}
	fib_lookup_bulk(&w->dp->fib, dst, val, k);
	for (unsigned j = 0; j < k; j++) {
		struct pkt *p = &pkts[idx[j]];
		uint32_t ip;
		uint16_t port;

		if (worker_forward(w, p, val[j], &ip, &port) == FWD_WAIT_ARP)
			worker_hold_add(w, p, ip, port);
	}
	if (k6)
		forward6_burst(w, pkts, idx6, info6, k6);
	worker_tx_flush(w);
	pt->ops->rx_release(q);
	return n;
}

/* The pollfd set of a sleep: every RX descriptor, then the drivers' wake descriptors. */
static unsigned worker_fds(const struct worker *w, struct pollfd *fds, bool *wake)
{
	const struct dataplane *dp = w->dp;
	unsigned n = 0;

	for (unsigned i = 0; i < dp->nports; i++) {
		const struct port *pt = &dp->ports[i];
		const struct port_queue *q = pt->queues[w->id];
		int fd = pt->ops->rx_fd(q);

		if (fd >= 0) {
			wake[n] = false;
			fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
		}
		if (pt->ops->wake_fd && (fd = pt->ops->wake_fd(q)) >= 0) {
			wake[n] = true;
			fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
		}
	}
	return n;
}

/* Sleep until a frame arrives, a wake descriptor fires, or the pass deadline w->next_ns. */
static void worker_sleep(struct worker *w)
{
	struct pollfd fds[2 * PORT_MAX];
	bool wake[2 * PORT_MAX];
	uint64_t wait = w->next_ns - w->now_ns;

	if (w->next_ns <= w->now_ns)
		return;
	unsigned nfds = worker_fds(w, fds, wake);
	if (wait > SLEEP_MAX_NS)
		wait = SLEEP_MAX_NS;
	struct timespec ts = {.tv_sec = (time_t)(wait / 1000000000u),
	                      .tv_nsec = (long)(wait % 1000000000u)};
	/* Offline while asleep, so grace periods never wait on an idle worker. */
	rcu_thread_offline();
	int n = ppoll(fds, nfds, &ts, NULL);
	rcu_thread_online();
	for (unsigned i = 0; n > 0 && i < nfds; i++) {
		uint64_t v;

		/* An eventfd: reading it re-arms it. */
		if (wake[i] && (fds[i].revents & POLLIN) && read(fds[i].fd, &v, sizeof(v)) < 0)
			continue;
		/*
		 * A port that went down leaves an error on its socket (ENETDOWN),
		 * and poll reports POLLERR until someone reads it; reading it here
		 * keeps an idle worker from spinning, and RX resumes by itself once
		 * the link is up.
		 */
		if (!wake[i] && (fds[i].revents & POLLERR)) {
			int err;
			socklen_t len = sizeof(err);
			getsockopt(fds[i].fd, SOL_SOCKET, SO_ERROR, &err, &len);
		}
	}
}

/*
 * The drivers' per-pass work (timers, shaping, partly filled frames), and
 * from it and the hold queue the time by which the next pass is due.
 */
static void worker_service(struct worker *w, bool busy)
{
	struct dataplane *dp = w->dp;
	uint64_t next = NO_DEADLINE;

	for (unsigned i = 0; i < dp->nports; i++) {
		struct port *pt = &dp->ports[i];

		if (pt->ops->service) {
			uint64_t t = pt->ops->service(pt->queues[w->id], w->now_ns, busy);
			if (t < next)
				next = t;
		}
	}
	if (w->nhold && w->now_ns + HOLD_TICK_NS < next)
		next = w->now_ns + HOLD_TICK_NS;
	w->next_ns = next;
}

/*
 * One pass over every queue this worker owns, then the held packets and the
 * drivers' service. Returns frames received.
 */
static unsigned worker_iterate(struct worker *w)
{
	struct dataplane *dp = w->dp;
	unsigned got = 0;
	bool busy = false;

	w->now_ns = mono_ns();
	w->now_ms = w->now_ns / 1000000u;
	for (unsigned i = 0; i < dp->nports; i++) {
		unsigned n = worker_poll_queue(w, &dp->ports[i]);

		got += n;
		busy |= n == BURST_MAX;
	}
	worker_hold_run(w);
	worker_service(w, busy);
	CTR_ADD(w->ctr->loops, 1);
	if (got)
		CTR_ADD(w->ctr->bursts, 1);
	worker_snap_serve(w);
	return got;
}

unsigned dp_worker_poll(struct dataplane *dp, unsigned w)
{
	return worker_iterate(dp->workers[w]);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct dataplane *dp = w->dp;

	/* Deadlines are microseconds apart (shaping at 20k cells/s: 50 us a cell). */
	prctl(PR_SET_TIMERSLACK, WORKER_TIMER_SLACK_NS, 0, 0, 0);
	rcu_register_thread();
	while (!__atomic_load_n(&dp->stop, __ATOMIC_ACQUIRE)) {
		unsigned got = worker_iterate(w);

		rcu_quiescent_state();
		if (!got)
			worker_sleep(w);
	}
	rcu_unregister_thread();
	return NULL;
}

static struct worker *worker_new(struct dataplane *dp, unsigned id, int cpu)
{
	struct worker *w = aligned_alloc(64, (sizeof(*w) + 63) & ~(size_t)63);

	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->cpu = cpu;
	w->dp = dp;
	w->ctr = aligned_alloc(64, sizeof(*w->ctr));
	w->icmp_buf = malloc((size_t)BURST_MAX * ICMP_SLOT);
	w->hold_mem = malloc(HOLD_MEM);
	w->frag_buf = malloc((size_t)FRAG_BUFS * FRAG_BUF_SZ);
	if (!w->ctr || !w->icmp_buf || !w->hold_mem || !w->frag_buf) {
		free(w->ctr);
		free(w->icmp_buf);
		free(w->hold_mem);
		free(w->frag_buf);
		free(w);
		return NULL;
	}
	memset(w->ctr, 0, sizeof(*w->ctr));
	uint8_t *buf = w->hold_mem;
	for (unsigned i = 0; i < HOLD_MAX; i++) {
		w->hold[i].cap = i < HOLD_MAX - HOLD_BIG ? HOLD_BUF : HOLD_BIG_BUF;
		w->hold[i].buf = buf;
		buf += w->hold[i].cap;
	}
	w->icmp_tokens_milli = (uint64_t)dp_param(dp, icmp_burst) * 1000;
	w->icmp_refill_ms = mono_coarse_ms();
	return w;
}

static void worker_free(struct worker *w)
{
	free(w->frag_buf);
	free(w->ctr);
	free(w->icmp_buf);
	free(w->hold_mem);
	free(w);
}

static int worker_spawn(struct worker *w)
{
	struct sched_param rt = {.sched_priority = WORKER_RT_PRIO};
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	if (w->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &rt);
	err = pthread_create(&w->thread, &attr, worker_main, w);
	if (err == EPERM) {
		pthread_attr_setinheritsched(&attr, PTHREAD_INHERIT_SCHED);
		err = pthread_create(&w->thread, &attr, worker_main, w);
		if (!err)
			log_info("worker %u: no real-time priority (needs CAP_SYS_NICE or "
			         "RLIMIT_RTPRIO >= %d): tasks sharing cpu %d can delay forwarding",
			         w->id, WORKER_RT_PRIO, w->cpu);
	}
	pthread_attr_destroy(&attr);
	if (err) {
		errno = err;
		log_warn("worker %u: start on cpu %d", w->id, w->cpu);
		return -err;
	}
	char name[16];
	snprintf(name, sizeof(name), "cg-worker%u", w->id);
	pthread_setname_np(w->thread, name);
	return 0;
}

int dp_workers_create(struct dataplane *dp, const int *cpus, unsigned n)
{
	if (n == 0 || n > WORKER_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		struct worker *w = worker_new(dp, i, cpus ? cpus[i] : -1);
		if (!w) {
			log_warnx("worker %u: out of memory", i);
			dp_workers_stop(dp);
			return -ENOMEM;
		}
		dp->workers[dp->nworkers++] = w;
	}
	return 0;
}

int dp_workers_start(struct dataplane *dp, const int *cpus, unsigned n)
{
	int err = dp_workers_create(dp, cpus, n);

	for (unsigned i = 0; !err && i < n; i++)
		err = worker_spawn(dp->workers[i]);
	if (err)
		dp_workers_stop(dp);
	return err;
}

void dp_workers_stop(struct dataplane *dp)
{
	dp_stats_snap_free(dp);
	__atomic_store_n(&dp->stop, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < dp->nworkers; i++) {
		struct worker *w = dp->workers[i];
		if (w->thread)
			pthread_join(w->thread, NULL);
		worker_free(w);
		dp->workers[i] = NULL;
	}
	dp->nworkers = 0;
}

uint64_t dp_worker_deadline(const struct dataplane *dp, unsigned w)
{
	return dp->workers[w]->next_ns;
}

unsigned dp_worker_held(const struct dataplane *dp, unsigned w)
{
	return __atomic_load_n(&dp->workers[w]->nhold, __ATOMIC_RELAXED);
}

uint64_t dp_worker_loops(const struct dataplane *dp, unsigned w)
{
	return CTR_READ(dp->workers[w]->ctr->loops);
}

struct event_ring *dp_worker_events(struct dataplane *dp, unsigned w)
{
	return &dp->workers[w]->events;
}
