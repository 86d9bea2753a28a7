/* SPDX-License-Identifier: BSD-2-Clause */
/* IPv6 neighbour resolution (neigh6.h): the ARP state machine of neigh.c, over NS/NA. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/neigh6.h"
#include "datapath/nd.h"
#include "lib/addr.h"
#include "lib/json.h"
#include "lib/log.h"

#define NEIGH6_BUCKETS        4096
#define NEIGH6_RETRY_MS       ND_RETRANS_TIMER_MS
#define NEIGH6_FAILED_HOLD_MS 10000 /* a failed neighbour is asked again after this */

struct neigh6_entry {
	uint8_t ip[16];
	uint16_t port;
	uint8_t mac[6];
	enum neigh_state state;
	unsigned tries;
	uint64_t next_ms;
	bool host_route; /* we installed a /128 for it (connected host) */
	struct neigh6_entry *next;
};

struct neigh6_table {
	struct dataplane *dp;
	const struct cfg *cfg;
	struct rib6 *rib6;
	int fd[PORT_MAX];
	neigh6_send_fn send;
	void *send_arg;
	uint64_t now_ms;
	struct neigh6_entry *bucket[NEIGH6_BUCKETS];
	struct neigh_counters ctr;
	struct log_limit fail_log, err_log;
};

#define NEIGH6_FAIL_WHAT "IPv6 neighbour resolution failures"
#define NEIGH6_ERR_WHAT  "neighbour solicitation send errors"

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
	for (unsigned i = 0; i < PORT_MAX; i++)
		nt->fd[i] = -1;
	return nt;
}

void neigh6_set_sender(struct neigh6_table *nt, neigh6_send_fn fn, void *arg)
{
	nt->send = fn;
	nt->send_arg = arg;
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
		/* A point-to-point port's next hop is its VC: nothing to solicit there. */
		if (!nt->dp->ports[i].ip6 || nt->dp->ports[i].p2p)
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
	uint8_t frame[ND_FRAME_MAX];
	uint32_t len = nd_ns_build(frame, pt->mac, unicast ? e->mac : NULL, pt->ip6_addr, e->ip);
	int err = nt->send(nt->send_arg, e->port, frame, len);

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

uint64_t neigh6_l2_seed(void *arg, uint16_t port, const uint8_t ip[16])
{
	const struct neigh6_entry *e = neigh6_find(arg, port, ip);

	return e ? nh_l2_pack(e->mac, e->state) : 0;
}

enum neigh_state neigh6_state(const struct neigh6_table *nt, uint16_t port, const uint8_t ip[16],
                              uint8_t mac[6])
{
	const struct neigh6_entry *e = neigh6_find(nt, port, ip);

	if (!e)
		return NEIGH_NONE;
	memcpy(mac, e->mac, 6);
	return e->state;
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
	                   e->state == NEIGH_REACHABLE ? NH_GATEWAY : NH_NEIGH_FAILED, &path,
	                   1) == 0)
		e->host_route = true;
}

static void neigh6_publish(struct neigh6_table *nt, struct neigh6_entry *e)
{
	rib6_nh_l2_update(nt->rib6, e->port, e->ip, nh_l2_pack(e->mac, e->state));
	if (e->state != NEIGH_INCOMPLETE && neigh6_is_glean_host(nt, e))
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

void neigh6_resolve(struct neigh6_table *nt, uint16_t port, const uint8_t ip[16], uint64_t now_ms)
{
	struct neigh6_entry *e;

	nt->now_ms = now_ms;
	if (port >= nt->dp->nports || !nt->dp->ports[port].ip6 || nt->dp->ports[port].p2p)
		return;
	e = neigh6_find(nt, port, ip);
	if (e) {
		/* Resolved since the packet was held: the host route may be missing still. */
		if (e->state == NEIGH_REACHABLE && !e->host_route && neigh6_is_glean_host(nt, e))
			neigh6_host_route(nt, e);
		return;
	}
	e = neigh6_add(nt, port, ip);
	if (!e)
		return;
	e->state = NEIGH_INCOMPLETE;
	e->tries = 1;
	e->next_ms = now_ms + NEIGH6_RETRY_MS;
	neigh6_send(nt, e, false);
	neigh6_publish(nt, e);
}

void neigh6_seen(struct neigh6_table *nt, uint16_t port, const uint8_t ip[16], const uint8_t mac[6],
                 uint64_t now_ms)
{
	struct neigh6_entry *e;

	nt->now_ms = now_ms;
	if (port >= nt->dp->nports)
		return;
	e = neigh6_find(nt, port, ip);
	/* Learn what we asked for or route through, not every node that speaks ND. */
	if (!e) {
		if (!rib6_nh_gateway_exists(nt->rib6, port, ip))
			return;
		e = neigh6_add(nt, port, ip);
		if (!e)
			return;
	}
	memcpy(e->mac, mac, 6);
	e->state = NEIGH_REACHABLE;
	e->tries = 0;
	e->next_ms = now_ms + (uint64_t)nt->cfg->arp_timeout_s * 1000;
	nt->ctr.replies_learned++;
	neigh6_publish(nt, e);
}

static void neigh6_fail(struct neigh6_table *nt, struct neigh6_entry *e, uint64_t now_ms)
{
	char b[INET6_ADDRSTRLEN];

	nt->ctr.resolve_failed++;
	if (log_limit_pass(&nt->fail_log, now_ms / 1000, NEIGH6_FAIL_WHAT))
		log_info("port %s: neighbour %s did not answer %u solicitations",
		         nt->dp->ports[e->port].name, inet_str(AF_INET6, e->ip, b, sizeof(b)),
		         e->tries);
	e->state = NEIGH_FAILED;
	e->next_ms = now_ms + NEIGH6_FAILED_HOLD_MS;
	neigh6_publish(nt, e);
}

static void neigh6_tick_one(struct neigh6_table *nt, struct neigh6_entry *e, uint64_t now_ms)
{
	if (e->state == NEIGH_FAILED) {
		neigh6_remove(nt, e);
		return;
	}
	if (e->tries >= nt->cfg->arp_retries) {
		neigh6_fail(nt, e, now_ms);
		return;
	}
	/* Incomplete: multicast again. Reachable and aged out: unicast first (§7.3.3 PROBE). */
	neigh6_send(nt, e, e->state == NEIGH_REACHABLE && e->tries == 0);
	e->tries++;
	e->next_ms = now_ms + NEIGH6_RETRY_MS;
}

void neigh6_timer(struct neigh6_table *nt, uint64_t now_ms)
{
	nt->now_ms = now_ms;
	for (unsigned b = 0; b < NEIGH6_BUCKETS; b++)
		for (struct neigh6_entry *e = nt->bucket[b], *next; e; e = next) {
			next = e->next;
			if (now_ms >= e->next_ms)
				neigh6_tick_one(nt, e, now_ms);
		}
	log_limit_tick(&nt->fail_log, now_ms / 1000, NEIGH6_FAIL_WHAT);
	log_limit_tick(&nt->err_log, now_ms / 1000, NEIGH6_ERR_WHAT);
}

void neigh6_get_counters(const struct neigh6_table *nt, struct neigh_counters *out)
{
	*out = nt->ctr;
}

void neigh6_dump_json(const struct neigh6_table *nt, FILE *out)
{
	static const char *const st[] = {"none", "incomplete", "reachable", "failed"};
	bool first = true;

	fputc('[', out);
	for (unsigned b = 0; b < NEIGH6_BUCKETS; b++)
		for (const struct neigh6_entry *e = nt->bucket[b]; e; e = e->next) {
			char ip[INET6_ADDRSTRLEN];

			fprintf(out, "%s{\"port\":", first ? "" : ",");
			json_str_put(out, nt->dp->ports[e->port].name);
			fprintf(out,
			        ",\"address\":\"%s\",\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\","
			        "\"state\":\"%s\"}",
			        inet_str(AF_INET6, e->ip, ip, sizeof(ip)), e->mac[0], e->mac[1],
			        e->mac[2], e->mac[3], e->mac[4], e->mac[5], st[e->state]);
			first = false;
		}
	fputc(']', out);
}

void neigh6_walk(const struct neigh6_table *nt, neigh6_walk_fn fn, void *arg)
{
	for (unsigned b = 0; b < NEIGH6_BUCKETS; b++)
		for (const struct neigh6_entry *e = nt->bucket[b]; e; e = e->next)
			fn(arg, e->port, e->ip, e->mac, e->state,
			   e->state == NEIGH_REACHABLE && e->tries > 0);
}
