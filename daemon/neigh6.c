/* SPDX-License-Identifier: BSD-2-Clause */
/* IPv6 neighbour resolution (neigh6.h): RFC 4861 §7.3 NUD (datapath/nd_nud.c) over NS/NA. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/neigh6.h"
#include "datapath/icmp6.h"
#include "lib/addr.h"
#include "lib/json.h"
#include "lib/log.h"

#define NEIGH6_BUCKETS        4096
#define NEIGH6_FAILED_HOLD_MS 10000 /* a failed neighbour is asked again after this */
/* §6.3.4: ReachableTime is re-drawn "at least every few hours". */
#define NEIGH6_RERANDOM_MS (3600 * 1000ull)

struct neigh6_entry {
	uint8_t ip[16];
	uint16_t port;
	struct nud nud;
	bool failed;       /* INCOMPLETE ran out of solicitations: held down, nd-failed */
	uint64_t until_ms; /* end of the hold-down while failed */
	bool host_route;   /* we installed a /128 for it (connected host) */
	bool mapped;       /* from the port's resolver (static map): no NUD, no timers */
	struct neigh6_entry *next;
};

/* RFC 4861 §6.3.2: the variables are per interface (port/ipv6/nd). */
struct neigh6_link {
	struct nud_params params;
	uint32_t base_ms;   /* the BaseReachableTime params.reachable_ms was drawn from */
	uint64_t redraw_ms; /* when ReachableTime is drawn again */
	uint64_t cap_ms;    /* drawn again at this tick: reachable entries end by then */
};

struct neigh6_table {
	struct dataplane *dp;
	const struct cfg *cfg;
	struct rib6 *rib6;
	int fd[PORT_MAX];
	neigh6_resolver_fn resolver[PORT_MAX]; /* NULL: neighbour discovery */
	void *resolver_arg[PORT_MAX];
	neigh6_send_fn send;
	void *send_arg;
	uint64_t now_ms;
	struct neigh6_link link[PORT_MAX];
	uint32_t (*rnd)(void); /* uniform 32-bit numbers (tests fix them) */
	struct neigh6_entry *bucket[NEIGH6_BUCKETS];
	struct neigh_counters ctr;
	struct log_limit fail_log, err_log, nomap_log;
};

#define NEIGH6_FAIL_WHAT  "IPv6 neighbour resolution failures"
#define NEIGH6_NOMAP_WHAT "IPv6 next hops without a map entry"
#define NEIGH6_ERR_WHAT   "neighbour solicitation send errors"

static unsigned neigh6_hash(uint16_t port, const uint8_t ip[16])
{
	uint64_t hi, lo;

	memcpy(&hi, ip, 8);
	memcpy(&lo, ip + 8, 8);
	uint64_t k = (hi ^ (lo * 0x9e3779b97f4a7c15ull) ^ port) * 0xff51afd7ed558ccdull;
	return (unsigned)(k >> 40) % NEIGH6_BUCKETS;
}

static struct neigh6_entry *neigh6_find(const struct neigh6_table *nt, uint16_t port,
                                        const uint8_t ip[16])
{
	for (struct neigh6_entry *e = nt->bucket[neigh6_hash(port, ip)]; e; e = e->next)
		if (e->port == port && !memcmp(e->ip, ip, 16))
			return e;
	return NULL;
}

/* The packet socket of a port (protocol 0: it only sends; replies reach the workers). */
static int socket_send(void *arg, uint16_t port, const uint8_t *frame, uint32_t len)
{
	struct neigh6_table *nt = arg;
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET,
	    .sll_ifindex = nt->dp->ports[port].ifindex,
	    .sll_protocol = htons(ETH_P_IPV6),
	    .sll_halen = 6,
	};

	if (nt->fd[port] < 0)
		return -EBADF;
	memcpy(sll.sll_addr, frame, 6);
	if (sendto(nt->fd[port], frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return -errno;
	return 0;
}

static uint32_t system_rnd(void)
{
	return arc4random();
}

/*
 * RFC 4861 §6.3.2/§10, per port: ReachableTime drawn uniformly in [0.5, 1.5]
 * times BaseReachableTime (port/ipv6/nd/base-reachable-time), drawn again
 * when the base changes (a runtime change) and every hour (§6.3.4), with
 * that tick's end of reachable entries in cap_ms; RetransTimer as
 * configured; MAX_MULTICAST_SOLICIT from system/arp-retries.
 */
static void neigh6_params_update(struct neigh6_table *nt, uint64_t now_ms)
{
	for (unsigned p = 0; p < PORT_MAX; p++) {
		struct neigh6_link *l = &nt->link[p];
		uint32_t base = cfg_nd_reachable_ms(nt->cfg, p);

		l->params.mcast_solicit =
		    (uint8_t)(nt->cfg->arp_retries ? nt->cfg->arp_retries : 1);
		l->params.retrans_ms = cfg_nd_retrans_ms(nt->cfg, p);
		l->cap_ms = 0;
		if (base == l->base_ms && now_ms < l->redraw_ms)
			continue;
		l->base_ms = base;
		l->params.reachable_ms = nd_reachable_time(base, nt->rnd());
		l->redraw_ms = now_ms + NEIGH6_RERANDOM_MS;
		l->cap_ms = now_ms + l->params.reachable_ms;
	}
}

struct neigh6_table *neigh6_new(struct dataplane *dp, const struct cfg *cfg, struct rib6 *rib6)
{
	struct neigh6_table *nt = calloc(1, sizeof(*nt));

	if (!nt)
		return NULL;
	nt->dp = dp;
	nt->cfg = cfg;
	nt->rib6 = rib6;
	nt->send = socket_send;
	nt->send_arg = nt;
	for (unsigned p = 0; p < PORT_MAX; p++)
		nt->link[p].params = (struct nud_params)NUD_PARAMS_DEFAULT;
	nt->rnd = system_rnd;
	neigh6_params_update(nt, 0);
	for (unsigned i = 0; i < PORT_MAX; i++)
		nt->fd[i] = -1;
	return nt;
}

void neigh6_set_sender(struct neigh6_table *nt, neigh6_send_fn fn, void *arg)
{
	nt->send = fn;
	nt->send_arg = arg;
}

void neigh6_set_resolver(struct neigh6_table *nt, uint16_t port, neigh6_resolver_fn fn, void *arg)
{
	if (port >= PORT_MAX)
		return;
	nt->resolver[port] = fn;
	nt->resolver_arg[port] = arg;
}

void neigh6_set_random(struct neigh6_table *nt, uint32_t (*rnd)(void))
{
	nt->rnd = rnd;
	for (unsigned p = 0; p < PORT_MAX; p++)
		nt->link[p].base_ms = 0; /* draw again now */
	neigh6_params_update(nt, nt->now_ms);
}

uint32_t neigh6_reachable_ms(const struct neigh6_table *nt, uint16_t port)
{
	return port < PORT_MAX ? nt->link[port].params.reachable_ms : 0;
}

void neigh6_free(struct neigh6_table *nt)
{
	if (!nt)
		return;
	for (unsigned i = 0; i < PORT_MAX; i++)
		if (nt->fd[i] >= 0)
			close(nt->fd[i]);
	for (unsigned b = 0; b < NEIGH6_BUCKETS; b++)
		for (struct neigh6_entry *e = nt->bucket[b], *next; e; e = next) {
			next = e->next;
			free(e);
		}
	free(nt);
}

int neigh6_open(struct neigh6_table *nt)
{
	for (unsigned i = 0; i < nt->dp->nports; i++) {
		/*
		 * A point-to-point port's next hop is its VC, a mapped port's comes
		 * from its resolver: nothing to solicit there. A configured port
		 * without IPv6 gets one too: it may get an address at runtime.
		 */
		bool later = i < nt->cfg->nports;

		if ((!port_ip6_on(&nt->dp->ports[i]) && !later) || nt->dp->ports[i].p2p ||
		    nt->resolver[i])
			continue;
		int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			log_warn("port %s: neighbour discovery socket", nt->dp->ports[i].name);
			return -errno;
		}
		nt->fd[i] = fd;
	}
	return 0;
}

/* RFC 4861 §7.2.2: to the solicited-node group, or (probe) unicast to the cached MAC. */
static void neigh6_send(struct neigh6_table *nt, struct neigh6_entry *e, bool unicast)
{
	const struct port *pt = &nt->dp->ports[e->port];
	const uint8_t *src = port_ip6_src(pt);
	uint8_t frame[ND_FRAME_MAX];
	int err;

	if (!src) /* the port lost its last address: its neighbours go too (addrs6.c) */
		return;
	err = nt->send(nt->send_arg, e->port, frame,
	               nd_ns_build(frame, pt->mac, unicast ? e->nud.lla : NULL, src, e->ip));
	if (err) {
		char b[INET6_ADDRSTRLEN];
		nt->ctr.send_errors++;
		errno = -err;
		if (log_limit_pass(&nt->err_log, nt->now_ms / 1000, NEIGH6_ERR_WHAT))
			log_warn("port %s: neighbour solicitation for %s", pt->name,
			         inet_str(AF_INET6, e->ip, b, sizeof(b)));
		return;
	}
	nt->ctr.requests_sent++;
}

/*
 * What the workers see (nexthop.l2): §7.3.3 sends in STALE, DELAY and PROBE
 * as in REACHABLE. STALE is published as NEIGH_STALE so that the first
 * worker to send through it says so (NEIGH_STALE_USED, nexthop.h).
 */
static enum neigh_state neigh6_l2_state(const struct neigh6_entry *e)
{
	if (e->failed)
		return NEIGH_FAILED;
	switch (e->nud.state) {
	case NUD_INCOMPLETE:
		return NEIGH_INCOMPLETE;
	case NUD_STALE:
		return NEIGH_STALE;
	case NUD_REACHABLE:
	case NUD_DELAY:
	case NUD_PROBE:
		return NEIGH_REACHABLE;
	default:
		return NEIGH_NONE;
	}
}

static uint64_t neigh6_l2(const struct neigh6_entry *e)
{
	return nh_l2_pack(e->nud.lla, neigh6_l2_state(e));
}

static const char *neigh6_name(const struct neigh6_entry *e)
{
	static const char *const st[] = {"none",  "incomplete", "reachable",
	                                 "stale", "delay",      "probe"};

	if (e->failed)
		return "failed";
	return e->nud.state <= NUD_PROBE ? st[e->nud.state] : "none";
}

uint64_t neigh6_l2_seed(void *arg, uint16_t port, const uint8_t ip[16])
{
	const struct neigh6_entry *e = neigh6_find(arg, port, ip);

	return e ? neigh6_l2(e) : 0;
}

const char *neigh6_state(const struct neigh6_table *nt, uint16_t port, const uint8_t ip[16],
                         uint8_t mac[6])
{
	const struct neigh6_entry *e = neigh6_find(nt, port, ip);

	if (!e)
		return "none";
	memcpy(mac, e->nud.lla, 6);
	return neigh6_name(e);
}

/* Whether ip is a host on a connected prefix of its port (the FIB6 says glean there). */
static bool neigh6_is_glean_host(const struct neigh6_table *nt, const struct neigh6_entry *e)
{
	uint32_t g = fib6_lookup(nt->dp->fib6, e->ip);
	const struct nexthop *nh;

	if (!g)
		return false;
	nh = &nt->dp->nht->nh[nt->dp->nht->nhg[g].slot[0]];
	return e->host_route || (nh->type == NH_GLEAN && nh->port == e->port);
}

/* Glean: a resolved (or failed) host on a connected prefix gets its own /128. */
static void neigh6_host_route(struct neigh6_table *nt, struct neigh6_entry *e)
{
	struct rib6_path path = {.port = e->port, .weight = 1};
	int best = rib6_route_best(nt->rib6, e->ip, 128);

	if (best >= 0 && best != RIB_SRC_NEIGH)
		return; /* a configured /128 decides */
	memcpy(path.gw, e->ip, 16);
	if (rib6_route_set(nt->rib6, e->ip, 128, RIB_SRC_NEIGH,
	                   e->failed ? NH_NEIGH_FAILED : NH_GATEWAY, &path, 1) == 0)
		e->host_route = true;
}

/* The workers' view changed (from `old`): write it, and the host route if its type changed. */
static void neigh6_publish(struct neigh6_table *nt, struct neigh6_entry *e, uint64_t old)
{
	uint64_t l2 = neigh6_l2(e);

	if (l2 == old)
		return;
	rib6_nh_l2_update(nt->rib6, e->port, e->ip, l2);
	if (nh_l2_state(l2) == NEIGH_INCOMPLETE || !neigh6_is_glean_host(nt, e))
		return;
	if (!e->host_route ||
	    (nh_l2_state(l2) == NEIGH_FAILED) != (nh_l2_state(old) == NEIGH_FAILED))
		neigh6_host_route(nt, e);
}

static struct neigh6_entry *neigh6_add(struct neigh6_table *nt, uint16_t port, const uint8_t ip[16])
{
	struct neigh6_entry *e;

	if (nt->cfg->arp_max_entries && nt->ctr.entries >= nt->cfg->arp_max_entries) {
		nt->ctr.table_full++;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	unsigned b = neigh6_hash(port, ip);
	memcpy(e->ip, ip, 16);
	e->port = port;
	e->next = nt->bucket[b];
	nt->bucket[b] = e;
	nt->ctr.entries++;
	return e;
}

static void neigh6_remove(struct neigh6_table *nt, struct neigh6_entry *e)
{
	struct neigh6_entry **pp = &nt->bucket[neigh6_hash(e->port, e->ip)];

	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	if (e->host_route)
		rib6_route_del(nt->rib6, e->ip, 128, RIB_SRC_NEIGH);
	/* Back to unknown: the next packet towards a gateway asks again. */
	rib6_nh_l2_update(nt->rib6, e->port, e->ip, 0);
	free(e);
	nt->ctr.entries--;
}

/* Carry out what nd_nud asked for (NUD_ACT_*), then show the workers the result. */
static void neigh6_act(struct neigh6_table *nt, struct neigh6_entry *e, unsigned act, uint64_t old)
{
	if (act & NUD_ACT_SEND_MCAST_NS)
		neigh6_send(nt, e, false);
	if (act & NUD_ACT_SEND_UCAST_NS)
		neigh6_send(nt, e, true);
	/* RELEASE and LLA_CHANGED are the new word itself: held packets are looked up again. */
	neigh6_publish(nt, e, old);
}

/*
 * A new entry on a port with a resolver (RFC 2492 §3: a configured mapping
 * instead of ND over the VC): static when mapped; failed at once when not,
 * so what waits and what follows is dropped as nd-failed with ICMPv6 address
 * unreachable, and asked again (the map may have changed) after the
 * hold-down, as a neighbour that never answered.
 */
static void neigh6_map(struct neigh6_table *nt, struct neigh6_entry *e, uint64_t now_ms)
{
	char b[INET6_ADDRSTRLEN];

	if (nt->resolver[e->port](nt->resolver_arg[e->port], e->port, e->ip, e->nud.lla)) {
		e->mapped = true;
		e->nud.state = NUD_REACHABLE;
		neigh6_publish(nt, e, 0);
		return;
	}
	nt->ctr.resolve_failed++;
	if (log_limit_pass(&nt->nomap_log, now_ms / 1000, NEIGH6_NOMAP_WHAT))
		log_info("interface %s: next hop %s: no PVC's ipv6-peer-address maps it to a VC; "
		         "dropped (nd-failed)",
		         nt->dp->ports[e->port].name, inet_str(AF_INET6, e->ip, b, sizeof(b)));
	e->failed = true;
	e->until_ms = now_ms + NEIGH6_FAILED_HOLD_MS;
	neigh6_publish(nt, e, 0);
}

void neigh6_resolve(struct neigh6_table *nt, uint16_t port, const uint8_t ip[16], uint64_t now_ms)
{
	struct neigh6_entry *e;

	nt->now_ms = now_ms;
	if (port >= nt->dp->nports || !port_ip6_on(&nt->dp->ports[port]) || nt->dp->ports[port].p2p)
		return;
	e = neigh6_find(nt, port, ip);
	if (e) {
		/* Resolved since the packet was held: the host route may be missing still. */
		if (nud_usable(e->nud.state) && !e->host_route && neigh6_is_glean_host(nt, e))
			neigh6_host_route(nt, e);
		return; /* INCOMPLETE asks on its own timer; a failed one is held down */
	}
	e = neigh6_add(nt, port, ip);
	if (!e)
		return;
	if (nt->resolver[port])
		neigh6_map(nt, e, now_ms);
	else
		neigh6_act(nt, e, nud_resolve(&e->nud, &nt->link[e->port].params, now_ms), 0);
}

/*
 * §7.2.5 (advertisement) and §7.2.3 (solicitation from the neighbour). An
 * advertisement for an address without an entry is discarded; a
 * solicitation creates a STALE entry, but only for a gateway some route
 * uses: the table holds what we resolve or route through, not every node
 * that speaks ND on the link.
 */
void neigh6_seen(struct neigh6_table *nt, uint16_t port, const uint8_t ip[16], const uint8_t *lla,
                 uint8_t type, uint8_t flags, uint64_t now_ms)
{
	struct neigh6_entry *e;
	unsigned act;
	uint64_t old;

	nt->now_ms = now_ms;
	/* A mapped port's neighbours are its map's: what the far ends advertise changes nothing. */
	if (port >= nt->dp->nports || nt->resolver[port])
		return;
	e = neigh6_find(nt, port, ip);
	if (type == ICMP6_NEIGH_ADV) {
		if (!e || e->failed)
			return;
		old = neigh6_l2(e);
		act = nud_on_na(&e->nud, &nt->link[e->port].params, now_ms, flags, lla);
		/* Resolved or refreshed: a new word, or a confirmation (S). */
		if (neigh6_l2(e) != old ||
		    (flags & ND_NA_SOLICITED && e->nud.state == NUD_REACHABLE))
			nt->ctr.replies_learned++;
	} else {
		if (!lla)
			return; /* §7.2.3: no source link-layer option, nothing to learn */
		if (!e && !rib6_nh_gateway_exists(nt->rib6, port, ip))
			return;
		if (!e && !(e = neigh6_add(nt, port, ip)))
			return;
		old = neigh6_l2(e);
		if (e->failed) {
			/* It speaks: the hold-down is over (a new entry, §7.2.3). */
			e->failed = false;
			e->nud = (struct nud){0};
		}
		act = nud_on_ns(&e->nud, lla);
		if (neigh6_l2(e) != old)
			nt->ctr.replies_learned++;
	}
	neigh6_act(nt, e, act, old);
}

static void neigh6_fail(struct neigh6_table *nt, struct neigh6_entry *e, uint8_t was,
                        uint64_t now_ms)
{
	char b[INET6_ADDRSTRLEN];

	nt->ctr.resolve_failed++;
	if (log_limit_pass(&nt->fail_log, now_ms / 1000, NEIGH6_FAIL_WHAT))
		log_info("port %s: neighbour %s did not answer %u %s solicitations",
		         nt->dp->ports[e->port].name, inet_str(AF_INET6, e->ip, b, sizeof(b)),
		         was == NUD_PROBE ? nt->link[e->port].params.ucast_solicit
		                          : nt->link[e->port].params.mcast_solicit,
		         was == NUD_PROBE ? "unicast" : "multicast");
	if (was == NUD_PROBE) {
		/* §7.3.3: the entry SHOULD be deleted; the next packet resolves afresh. */
		neigh6_remove(nt, e);
		return;
	}
	/* §7.2.2: what waited gets address unreachable; so does what follows, a while. */
	uint64_t old = nh_l2_pack(e->nud.lla, NEIGH_INCOMPLETE);
	e->failed = true;
	e->until_ms = now_ms + NEIGH6_FAILED_HOLD_MS;
	neigh6_publish(nt, e, old);
}

/*
 * One entry at a timer tick. STALE has no timer of its own (§7.3.3: it
 * waits for traffic); a worker that sent through it turned the next hop's
 * word into NEIGH_STALE_USED, which starts DELAY here (up to one tick, 100
 * ms, late: DELAY_FIRST_PROBE_TIME is 5 s).
 */
static void neigh6_tick_one(struct neigh6_table *nt, struct neigh6_entry *e, uint64_t now_ms)
{
	uint64_t old = neigh6_l2(e);
	uint8_t was = e->nud.state;
	unsigned act;

	if (e->failed) {
		if (now_ms >= e->until_ms)
			neigh6_remove(nt, e);
		return;
	}
	if (e->mapped)
		return; /* static until the map changes (neigh6_forget_port) */
	if (was == NUD_STALE) {
		if (nh_l2_state(rib6_nh_l2_get(nt->rib6, e->port, e->ip)) == NEIGH_STALE_USED)
			neigh6_act(nt, e, nud_resolve(&e->nud, &nt->link[e->port].params, now_ms),
			           nh_l2_pack(e->nud.lla, NEIGH_STALE_USED));
		return;
	}
	act = nud_timer(&e->nud, &nt->link[e->port].params, now_ms);
	if (act & NUD_ACT_FAILED)
		neigh6_fail(nt, e, was, now_ms);
	else
		neigh6_act(nt, e, act, old);
}

void neigh6_timer(struct neigh6_table *nt, uint64_t now_ms)
{
	/* A shorter ReachableTime (a base-reachable-time lowered at runtime) holds at once. */
	neigh6_params_update(nt, now_ms);
	nt->now_ms = now_ms;
	for (unsigned b = 0; b < NEIGH6_BUCKETS; b++)
		for (struct neigh6_entry *e = nt->bucket[b], *next; e; e = next) {
			uint64_t cap = nt->link[e->port].cap_ms;

			next = e->next;
			if (cap && e->nud.state == NUD_REACHABLE && e->nud.deadline_ms > cap)
				e->nud.deadline_ms = cap;
			neigh6_tick_one(nt, e, now_ms);
		}
	log_limit_tick(&nt->fail_log, now_ms / 1000, NEIGH6_FAIL_WHAT);
	log_limit_tick(&nt->err_log, now_ms / 1000, NEIGH6_ERR_WHAT);
	log_limit_tick(&nt->nomap_log, now_ms / 1000, NEIGH6_NOMAP_WHAT);
}

void neigh6_forget_port(struct neigh6_table *nt, uint16_t port)
{
	for (unsigned b = 0; b < NEIGH6_BUCKETS; b++)
		for (struct neigh6_entry *e = nt->bucket[b], *next; e; e = next) {
			next = e->next;
			if (e->port == port)
				neigh6_remove(nt, e);
		}
}

unsigned neigh6_flush_prefix(struct neigh6_table *nt, uint16_t port, const struct cfg_addr6 *gone,
                             const struct cfg_addr6 *keep, unsigned nkeep)
{
	unsigned n = 0;

	for (unsigned b = 0; b < NEIGH6_BUCKETS; b++)
		for (struct neigh6_entry *e = nt->bucket[b], *next; e; e = next) {
			next = e->next;
			if (e->port != port || !cfg_addr6_on_link(gone, 1, e->ip) ||
			    cfg_addr6_on_link(keep, nkeep, e->ip))
				continue;
			neigh6_remove(nt, e);
			n++;
		}
	return n;
}

void neigh6_get_counters(const struct neigh6_table *nt, struct neigh_counters *out)
{
	*out = nt->ctr;
}

void neigh6_dump_json(const struct neigh6_table *nt, FILE *out)
{
	bool first = true;

	fputc('[', out);
	for (unsigned b = 0; b < NEIGH6_BUCKETS; b++)
		for (const struct neigh6_entry *e = nt->bucket[b]; e; e = e->next) {
			const uint8_t *m = e->nud.lla;
			char ip[INET6_ADDRSTRLEN];

			fprintf(out, "%s{\"port\":", first ? "" : ",");
			json_str_put(out, nt->dp->ports[e->port].name);
			fprintf(out,
			        ",\"address\":\"%s\",\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\","
			        "\"state\":\"%s\",\"router\":%s}",
			        inet_str(AF_INET6, e->ip, ip, sizeof(ip)), m[0], m[1], m[2], m[3],
			        m[4], m[5], neigh6_name(e), e->nud.is_router ? "true" : "false");
			first = false;
		}
	fputc(']', out);
}

void neigh6_walk(const struct neigh6_table *nt, neigh6_walk_fn fn, void *arg)
{
	for (unsigned b = 0; b < NEIGH6_BUCKETS; b++)
		for (const struct neigh6_entry *e = nt->bucket[b]; e; e = e->next)
			fn(arg, e->port, e->ip, e->nud.lla, neigh6_name(e),
			   !e->failed && nud_usable(e->nud.state));
}
