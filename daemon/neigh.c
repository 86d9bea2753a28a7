/* SPDX-License-Identifier: BSD-2-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/neigh.h"
#include "datapath/arp.h"
#include "lib/addr.h"
#include "lib/json.h"
#include "lib/log.h"

#define NEIGH_BUCKETS        4096
#define NEIGH_RETRY_MS       1000
#define NEIGH_FAILED_HOLD_MS 10000 /* a failed host is retried after this */

struct neigh_entry {
	uint32_t ip;
	uint16_t port;
	uint8_t mac[6];
	enum neigh_state state;
	unsigned tries;
	uint64_t next_ms; /* when the timer next acts on this entry */
	bool host_route;  /* we installed a /32 for it (connected host) */
	struct neigh_entry *next;
};

struct neigh_table {
	struct dataplane *dp;
	const struct cfg *cfg;
	struct rib *rib;
	int fd[PORT_MAX];
	/* Ports whose neighbours are not found by ARP (ATM subinterfaces). */
	neigh_resolver_fn resolver[PORT_MAX];
	void *resolver_arg[PORT_MAX];
	uint64_t now_ms; /* of the call being served */
	struct neigh_entry *bucket[NEIGH_BUCKETS];
	struct neigh_counters ctr;
	/* One line per neighbour that fails is fine, a scan through the router
	 * of thousands of unused addresses is not: resolve-failed counts them all. */
	struct log_limit fail_log, full_log;
};

#define NEIGH_FAIL_WHAT "neighbour resolution failures"
#define NEIGH_FULL_WHAT "neighbour table full"

static uint32_t neigh_hash(uint16_t port, uint32_t ip)
{
	uint64_t k = ((uint64_t)port << 32 | ip) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 40) % NEIGH_BUCKETS;
}

static struct neigh_entry *neigh_find(const struct neigh_table *nt, uint16_t port, uint32_t ip)
{
	for (struct neigh_entry *e = nt->bucket[neigh_hash(port, ip)]; e; e = e->next)
		if (e->ip == ip && e->port == port)
			return e;
	return NULL;
}


struct neigh_table *neigh_new(struct dataplane *dp, const struct cfg *cfg)
{
	struct neigh_table *nt = calloc(1, sizeof(*nt));

	if (!nt)
		return NULL;
	nt->dp = dp;
	nt->cfg = cfg;
	for (unsigned i = 0; i < PORT_MAX; i++)
		nt->fd[i] = -1;
	return nt;
}

void neigh_set_rib(struct neigh_table *nt, struct rib *rib)
{
	nt->rib = rib;
}

void neigh_set_resolver(struct neigh_table *nt, uint16_t port, neigh_resolver_fn fn, void *arg)
{
	nt->resolver[port] = fn;
	nt->resolver_arg[port] = arg;
}

void neigh_free(struct neigh_table *nt)
{
	if (!nt)
		return;
	for (unsigned i = 0; i < PORT_MAX; i++)
		if (nt->fd[i] >= 0)
			close(nt->fd[i]);
	for (unsigned b = 0; b < NEIGH_BUCKETS; b++) {
		struct neigh_entry *e = nt->bucket[b];
		while (e) {
			struct neigh_entry *next = e->next;
			free(e);
			e = next;
		}
	}
	free(nt);
}

int neigh_open(struct neigh_table *nt)
{
	for (unsigned i = 0; i < nt->dp->nports; i++) {
		if (nt->resolver[i])
			continue;
		/* Protocol 0: this socket only sends; workers see the replies on their rings. */
		int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			log_warn("port %s: ARP socket", nt->dp->ports[i].name);
			return -errno;
		}
		nt->fd[i] = fd;
	}
	return 0;
}

/* The port address to speak from: the one whose subnet holds ip, else the primary. */
static uint32_t neigh_source_ip(const struct neigh_table *nt, uint16_t port, uint32_t ip)
{
	const struct cfg_port *cp = &nt->cfg->ports[port];

	for (unsigned i = 0; i < cp->naddrs; i++) {
		uint32_t mask = cp->addrs[i].plen ? 0xffffffffu << (32 - cp->addrs[i].plen) : 0;
		if ((cp->addrs[i].addr & mask) == (ip & mask))
			return cp->addrs[i].addr;
	}
	return nt->dp->ports[port].ip4_addr;
}

static void neigh_send(struct neigh_table *nt, struct neigh_entry *e, bool unicast)
{
	struct port *pt = &nt->dp->ports[e->port];

	if (nt->resolver[e->port]) {
		/* Asked and answered at once, or not at all: retries and failure as for ARP. */
		uint8_t mac[6];
		nt->ctr.requests_sent++;
		if (nt->resolver[e->port](nt->resolver_arg[e->port], e->port, e->ip, mac))
			neigh_seen(nt, e->port, e->ip, mac, nt->now_ms);
		return;
	}
	uint8_t frame[ARP_FRAME_LEN];
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET,
	    .sll_ifindex = pt->ifindex,
	    .sll_protocol = htons(ETH_P_ARP),
	    .sll_halen = 6,
	};
	uint32_t len = arp_request_build(frame, pt->mac, neigh_source_ip(nt, e->port, e->ip), e->ip,
	                                 unicast ? e->mac : NULL);

	memcpy(sll.sll_addr, frame, 6);
	if (sendto(nt->fd[e->port], frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		nt->ctr.send_errors++;
		if (nt->ctr.send_errors < 10 || nt->ctr.send_errors % 1000 == 0) {
			char b[INET_ADDRSTRLEN];
			log_warn("port %s: ARP request for %s", pt->name, ip4_str(e->ip, b));
		}
		return;
	}
	nt->ctr.requests_sent++;
}

uint64_t neigh_l2_seed(void *arg, uint16_t port, uint32_t ip)
{
	struct neigh_entry *e = neigh_find(arg, port, ip);

	if (!e)
		return 0;
	if (e->state == NEIGH_REACHABLE)
		return nh_l2_pack(e->mac, NEIGH_REACHABLE);
	return nh_l2_pack(e->mac, e->state);
}

static void neigh_host_route(struct neigh_table *nt, struct neigh_entry *e);
static bool neigh_is_glean_host(const struct neigh_table *nt, struct neigh_entry *e);

static void neigh_publish(struct neigh_table *nt, struct neigh_entry *e)
{
	rib_nh_l2_update(nt->rib, e->port, e->ip, nh_l2_pack(e->mac, e->state));
}

/*
 * A new entry, unless the table holds arp-max-entries already (as Linux's
 * gc_thresh3 bounds its neighbour table): a scan through a large connected
 * subnet must not take the control thread's memory. Refusals are counted;
 * the failed entries that such a scan leaves expire on their own.
 */
static struct neigh_entry *neigh_add(struct neigh_table *nt, uint16_t port, uint32_t ip)
{
	struct neigh_entry *e;

	if (nt->cfg->arp_max_entries && nt->ctr.entries >= nt->cfg->arp_max_entries) {
		char b[INET_ADDRSTRLEN];
		nt->ctr.table_full++;
		if (log_limit_pass(&nt->full_log, nt->now_ms / 1000, NEIGH_FULL_WHAT))
			log_warnx("port %s: neighbour %s not resolved: the neighbour table is full "
			          "(%u entries, system/arp-max-entries)",
			          nt->dp->ports[port].name, ip4_str(ip, b),
			          nt->cfg->arp_max_entries);
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	uint32_t b = neigh_hash(port, ip);
	e->ip = ip;
	e->port = port;
	e->next = nt->bucket[b];
	nt->bucket[b] = e;
	nt->ctr.entries++;
	return e;
}

static void neigh_remove(struct neigh_table *nt, struct neigh_entry *e)
{
	struct neigh_entry **pp = &nt->bucket[neigh_hash(e->port, e->ip)];

	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	if (e->host_route)
		rib_route_del(nt->rib, e->ip, 32, RIB_SRC_NEIGH);
	/* Back to unknown: the next packet towards a gateway asks again. */
	rib_nh_l2_update(nt->rib, e->port, e->ip, 0);
	free(e);
	nt->ctr.entries--;
}

static void neigh_start(struct neigh_table *nt, struct neigh_entry *e, uint64_t now_ms)
{
	e->state = NEIGH_INCOMPLETE;
	e->tries = 1;
	e->next_ms = now_ms + NEIGH_RETRY_MS;
	neigh_send(nt, e, false);
}

void neigh_resolve(struct neigh_table *nt, uint16_t port, uint32_t ip, uint64_t now_ms)
{
	struct neigh_entry *e;

	nt->now_ms = now_ms;
	if (port >= nt->dp->nports)
		return;
	e = neigh_find(nt, port, ip);
	if (!e) {
		e = neigh_add(nt, port, ip);
		if (!e)
			return;
		neigh_start(nt, e, now_ms);
		neigh_publish(nt, e);
	} else if (e->state == NEIGH_REACHABLE && !e->host_route && neigh_is_glean_host(nt, e)) {
		neigh_host_route(nt, e);
	}
}

/* Glean: a resolved host on a connected subnet gets its own /32 so lookups find its MAC. */
static void neigh_host_route(struct neigh_table *nt, struct neigh_entry *e)
{
	struct rib_path path = {.gw = e->ip, .port = e->port, .weight = 1};
	int best = rib_route_best(nt->rib, e->ip, 32);

	if (best >= 0 && best != RIB_SRC_NEIGH)
		return; /* a configured /32 exists: it decides */
	if (e->state == NEIGH_REACHABLE)
		rib_route_set(nt->rib, e->ip, 32, RIB_SRC_NEIGH, NH_GATEWAY, &path, 1);
	else
		rib_route_set(nt->rib, e->ip, 32, RIB_SRC_NEIGH, NH_NEIGH_FAILED, &path, 1);
	e->host_route = true;
}

static bool neigh_is_glean_host(const struct neigh_table *nt, struct neigh_entry *e)
{
	uint32_t g = fib_lookup(&nt->dp->fib, e->ip);
	const struct nexthop *nh;

	if (!g)
		return false;
	nh = &nt->dp->nht->nh[nt->dp->nht->nhg[g].slot[0]];
	return e->host_route || (nh->type == NH_GLEAN && nh->port == e->port);
}

void neigh_seen(struct neigh_table *nt, uint16_t port, uint32_t ip, const uint8_t mac[6],
                uint64_t now_ms)
{
	struct neigh_entry *e;

	nt->now_ms = now_ms;
	if (port >= nt->dp->nports)
		return;
	e = neigh_find(nt, port, ip);
	/* Learn only what we asked for or route through (RFC 826 merge), not every sender. */
	if (!e) {
		if (!rib_nh_gateway_exists(nt->rib, port, ip))
			return;
		e = neigh_add(nt, port, ip);
		if (!e)
			return;
	}
	memcpy(e->mac, mac, 6);
	e->state = NEIGH_REACHABLE;
	e->tries = 0;
	e->next_ms = now_ms + (uint64_t)nt->cfg->arp_timeout_s * 1000;
	nt->ctr.replies_learned++;
	neigh_publish(nt, e);
	if (neigh_is_glean_host(nt, e))
		neigh_host_route(nt, e);
}

static void neigh_fail(struct neigh_table *nt, struct neigh_entry *e, uint64_t now_ms)
{
	char b[INET_ADDRSTRLEN];

	nt->ctr.resolve_failed++;
	if (log_limit_pass(&nt->fail_log, now_ms / 1000, NEIGH_FAIL_WHAT))
		log_info("port %s: neighbour %s did not answer %u ARP requests",
		         nt->dp->ports[e->port].name, ip4_str(e->ip, b), e->tries);
	e->state = NEIGH_FAILED;
	e->next_ms = now_ms + NEIGH_FAILED_HOLD_MS;
	neigh_publish(nt, e);
	if (neigh_is_glean_host(nt, e))
		neigh_host_route(nt, e);
}

static void neigh_tick_one(struct neigh_table *nt, struct neigh_entry *e, uint64_t now_ms)
{
	switch (e->state) {
	case NEIGH_INCOMPLETE:
		if (e->tries >= nt->cfg->arp_retries) {
			neigh_fail(nt, e, now_ms);
			return;
		}
		e->tries++;
		e->next_ms = now_ms + NEIGH_RETRY_MS;
		neigh_send(nt, e, false);
		return;
	case NEIGH_REACHABLE:
		/* Expired: probe unicast, then broadcast; fail after the retries. */
		if (e->tries >= nt->cfg->arp_retries) {
			neigh_fail(nt, e, now_ms);
			return;
		}
		neigh_send(nt, e, e->tries == 0);
		e->tries++;
		e->next_ms = now_ms + NEIGH_RETRY_MS;
		return;
	default:
		/* Failed and held down long enough: forget it, so the next packet asks again. */
		neigh_remove(nt, e);
		return;
	}
}

void neigh_forget_mac(struct neigh_table *nt, uint16_t port, const uint8_t mac[6])
{
	for (unsigned b = 0; b < NEIGH_BUCKETS; b++)
		for (struct neigh_entry *e = nt->bucket[b], *next; e; e = next) {
			next = e->next;
			if (e->port == port && !memcmp(e->mac, mac, 6))
				neigh_remove(nt, e);
		}
}

void neigh_timer(struct neigh_table *nt, uint64_t now_ms)
{
	nt->now_ms = now_ms;
	for (unsigned b = 0; b < NEIGH_BUCKETS; b++) {
		struct neigh_entry *e = nt->bucket[b];
		while (e) {
			struct neigh_entry *next = e->next;
			if (now_ms >= e->next_ms)
				neigh_tick_one(nt, e, now_ms);
			e = next;
		}
	}
	log_limit_tick(&nt->fail_log, now_ms / 1000, NEIGH_FAIL_WHAT);
	log_limit_tick(&nt->full_log, now_ms / 1000, NEIGH_FULL_WHAT);
}

void neigh_get_counters(const struct neigh_table *nt, struct neigh_counters *out)
{
	*out = nt->ctr;
}

void neigh_dump_json(const struct neigh_table *nt, FILE *out)
{
	static const char *const st[] = {"none", "incomplete", "reachable", "failed"};
	bool first = true;

	fputc('[', out);
	for (unsigned b = 0; b < NEIGH_BUCKETS; b++) {
		for (const struct neigh_entry *e = nt->bucket[b]; e; e = e->next) {
			char ip[INET_ADDRSTRLEN];
			fprintf(out, "%s{\"port\":", first ? "" : ",");
			json_str_put(out, nt->dp->ports[e->port].name);
			fprintf(out,
			        ",\"address\":\"%s\",\"mac\":\"%02x:%02x:%02x:%"
			        "02x:%02x:%02x\",\"state\":\"%s\"}",
			        ip4_str(e->ip, ip), e->mac[0], e->mac[1], e->mac[2], e->mac[3],
			        e->mac[4], e->mac[5], st[e->state]);
			first = false;
		}
	}
	fputc(']', out);
}

void neigh_walk(const struct neigh_table *nt, neigh_walk_fn fn, void *arg)
{
	for (unsigned b = 0; b < NEIGH_BUCKETS; b++)
		for (const struct neigh_entry *e = nt->bucket[b]; e; e = e->next)
			fn(arg, e->port, e->ip, e->mac, e->state);
}
