/*
 * The datapath worker: a poll loop over the RX queues it owns. Per burst:
 * classify and validate, one bulk FIB lookup, forward, one TX flush per
 * egress port, release the RX block, report an RCU quiescent state.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <urcu-qsbr.h>

#include "datapath/arp.h"
#include "datapath/ip4.h"
#include "lib/log.h"
#include "lib/clock.h"
#include "datapath/worker_priv.h"

#define IDLE_SPINS    256 /* empty polls before sleeping in poll(2) */
#define IDLE_SLEEP_MS 5

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
 * First pass over one frame: everything but the FIB decision. Returns true if
 * the frame is a transit IPv4 candidate for the lookup.
 */
static bool classify(struct worker *w, struct pkt *p)
{
	struct port_counters *c = &w->ctr->port[p->in_port];

	CTR_ADD(c->rx_packets, 1);
	CTR_ADD(c->rx_octets, p->len);
	if (p->gso_type != PKT_GSO_NONE)
		CTR_ADD(c->rx_gso_packets, 1);
	if (p->len < 14) {
		worker_drop(w, p, DROP_L2_RUNT);
		return false;
	}
	if (p->l2_class == PKT_L2_OTHERHOST) {
		worker_drop(w, p, DROP_L2_OTHER_HOST);
		return false;
	}
	uint16_t type = rd16(p->data + 12);
	if (type != ETHERTYPE_IPV4) {
		if (type == ETHERTYPE_ARP)
			arp_snoop(w, p);
		worker_to_kernel(w, p);
		return false;
	}
	const uint8_t *ip = p->data + 14;
	enum drop_reason r = ip4_validate(ip, p->len - 14, dp_param(w->dp, ip_options_forward));
	if (r != IP4_OK) {
		worker_drop(w, p, r);
		return false;
	}
	/* Link-layer broadcast/multicast and multicast/limited-broadcast IP are the host's
	 * business. */
	if (p->l2_class != PKT_L2_HOST || ip4_dst_is_local_only(rd32(ip + 16))) {
		worker_to_kernel(w, p);
		return false;
	}
	if (ip4_src_is_martian(rd32(ip + 12))) {
		worker_drop(w, p, DROP_IP_BAD_SOURCE);
		return false;
	}
	return true;
}

static unsigned worker_poll_queue(struct worker *w, struct port *pt)
{
	struct port_queue *q = pt->queues[w->id];
	struct pkt pkts[BURST_MAX];
	uint32_t dst[BURST_MAX], val[BURST_MAX];
	uint8_t idx[BURST_MAX];
	unsigned n, k = 0;

	n = pt->ops->rx_burst(q, pkts, BURST_MAX);
	if (n == 0)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		if (classify(w, &pkts[i])) {
			dst[k] = rd32(pkts[i].data + 14 + 16);
			idx[k++] = (uint8_t)i;
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
	worker_tx_flush(w);
	pt->ops->rx_release(q);
	return n;
}

static void worker_idle(struct worker *w)
{
	struct pollfd fds[PORT_MAX];
	struct dataplane *dp = w->dp;

	for (unsigned i = 0; i < dp->nports; i++) {
		fds[i].fd = dp->ports[i].ops->rx_fd(dp->ports[i].queues[w->id]);
		fds[i].events = POLLIN;
	}
	/* Offline while asleep, so grace periods never wait on an idle worker. */
	rcu_thread_offline();
	int n = poll(fds, dp->nports, w->nhold ? 1 : IDLE_SLEEP_MS);
	rcu_thread_online();
	/*
	 * A port that went down leaves an error on its socket (ENETDOWN), and
	 * poll reports POLLERR until someone reads it; reading it here keeps an
	 * idle worker from spinning, and RX resumes by itself once the link is up.
	 */
	for (unsigned i = 0; n > 0 && i < dp->nports; i++) {
		if (fds[i].revents & POLLERR) {
			int err;
			socklen_t len = sizeof(err);
			getsockopt(fds[i].fd, SOL_SOCKET, SO_ERROR, &err, &len);
		}
	}
}

/* One pass over every queue this worker owns, then the held packets. Returns frames received. */
static unsigned worker_iterate(struct worker *w)
{
	struct dataplane *dp = w->dp;
	unsigned got = 0;

	w->now_ms = mono_coarse_ms();
	for (unsigned i = 0; i < dp->nports; i++)
		got += worker_poll_queue(w, &dp->ports[i]);
	worker_hold_run(w);
	CTR_ADD(w->ctr->loops, 1);
	if (got)
		CTR_ADD(w->ctr->bursts, 1);
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
	unsigned idle = 0;

	rcu_register_thread();
	while (!__atomic_load_n(&dp->stop, __ATOMIC_ACQUIRE)) {
		unsigned got = worker_iterate(w);

		rcu_quiescent_state();
		if (got) {
			idle = 0;
		} else if (++idle >= IDLE_SPINS) {
			worker_idle(w);
			idle = 0;
		}
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
	w->icmp_buf = malloc((size_t)BURST_MAX * ICMP_ERR_FRAME_MAX);
	w->hold_mem = malloc((size_t)HOLD_MAX * HOLD_BUF);
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
	for (unsigned i = 0; i < HOLD_MAX; i++)
		w->hold[i].buf = w->hold_mem + (size_t)i * HOLD_BUF;
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
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	if (w->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	err = pthread_create(&w->thread, &attr, worker_main, w);
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
