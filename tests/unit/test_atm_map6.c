/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The static IPv6 map of a multipoint ATM subinterface (daemon/atm_map6.c)
 * behind the IPv6 neighbour code (daemon/neigh6.c), as cellgated wires them
 * (RFC 2492 §3: a configured mapping instead of ND over the VC). A mapped
 * next hop, gateway or on-link host, is published at once with its VC's
 * synthetic MAC and stays (no NUD timers, advertisements change nothing);
 * link-local entries map too; an unmapped one fails at once (the workers
 * drop as nd-failed with ICMPv6 address unreachable) and is asked again
 * after the hold-down; no solicitation is ever sent and no socket opened;
 * the kernel's packets from the TUN find their VC by destination or by the
 * FIB6 gateway; a runtime map change makes every next hop ask again.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/atm_priv.h"
#include "daemon/neigh6.h"
#include "datapath/icmp6.h"
#include "tests/unit/check.h"
#include "tests/unit/check_ip6.h"

#define SUBIF_PORT 1 /* dataplane port of subinterface 0, after ATM port 0 */
#define VC_A       5 /* VC ids of the two PVCs: not their cfg indexes */
#define VC_B       7

static struct dataplane dp;
static struct cfg cfg;
static struct cfg_pvc pvcs[2];
static struct rib *rib;
static struct rib6 *r6;
static struct neigh6_table *nt;
static struct atm_ctl *a;
static unsigned sent;

static int count_send(void *arg, uint16_t port, const uint8_t *frame, uint32_t len)
{
	(void)arg;
	(void)port;
	(void)frame;
	(void)len;
	sent++;
	return 0;
}

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	(void)arg;
	(void)port;
	(void)ip;
	return 0;
}

static const struct nexthop *route_nh(const char *addr)
{
	uint32_t g = fib6_lookup(dp.fib6, a6(addr));

	return g ? &dp.nht->nh[dp.nht->nhg[g].slot[0]] : NULL;
}

static uint64_t vc_word(uint16_t vc)
{
	uint8_t mac[6];

	vc_mac_make(vc, mac);
	return nh_l2_pack(mac, NEIGH_REACHABLE);
}

static const char *state(const char *addr, uint8_t mac[6])
{
	uint8_t m[6];

	return neigh6_state(nt, SUBIF_PORT, a6(addr), mac ? mac : m);
}

static void peer6(struct cfg_pvc *pc, const char *addr)
{
	memcpy(pc->peers6[pc->npeers6++], a6(addr), 16);
}

/* An IPv6 header to dst, as the kernel writes it into the TUN. */
static int host_vc(const char *dst)
{
	uint8_t ip[40] = {0x60};

	memcpy(ip + 24, a6(dst), 16);
	return atm_host_vc6(a, 0, ip, sizeof(ip));
}

static void setup(void)
{
	struct rib6_path on = {.port = SUBIF_PORT, .weight = 1};
	struct rib6_path gw = {.port = SUBIF_PORT, .weight = 1};

	CHECK_EQ(dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64}), 0);
	dp.nports = 2;
	dp.ports[SUBIF_PORT].ip6 = true;
	port_ip6_src_set(&dp.ports[SUBIF_PORT], a6("2001:db8:200::1"));
	snprintf(dp.ports[SUBIF_PORT].name, sizeof(dp.ports[SUBIF_PORT].name), "atm0.200");
	cfg.arp_timeout_s = 300;
	cfg.arp_retries = 3;
	cfg.nports = 1;
	cfg.nsubifs = 1;
	cfg.subifs[0].type = CFG_SUBIF_MULTIPOINT;
	cfg.subifs[0].naddrs6 = 1;
	memcpy(cfg.subifs[0].addrs6[0].addr, a6("2001:db8:200::1"), 16);
	cfg.subifs[0].addrs6[0].plen = 64;
	cfg.npvcs = 2;
	cfg.pvcs = pvcs;
	peer6(&pvcs[0], "2001:db8:200::2");
	peer6(&pvcs[0], "fe80::2");
	peer6(&pvcs[1], "2001:db8:200::3");
	a = calloc(1, sizeof(*a));
	rib = rib_new(&dp, no_seed, NULL);
	r6 = rib6_new(rib, NULL, NULL);
	nt = neigh6_new(&dp, &cfg, r6);
	CHECK(a && rib && r6 && nt);
	a->dp = &dp;
	a->cfg = &cfg;
	a->vc_of_pvc[0] = VC_A;
	a->vc_of_pvc[1] = VC_B;
	a->sub[0].port = SUBIF_PORT;
	rib6_set_seed(r6, neigh6_l2_seed, nt);
	neigh6_set_sender(nt, count_send, NULL);
	atm_start6(a, nt);
	/* The subinterface has IPv6 but its neighbours come from the map: no socket needed. */
	CHECK_EQ(neigh6_open(nt), 0);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:200::"), 64, RIB_SRC_CONNECTED, NH_GLEAN, &on, 1),
	         0);
	memcpy(gw.gw, a6("2001:db8:200::2"), 16);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:50::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &gw, 1),
	         0);
	memcpy(gw.gw, a6("2001:db8:200::9"), 16); /* on the prefix, mapped by no PVC */
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:60::"), 48, RIB_SRC_FRR, NH_GATEWAY, &gw, 1), 0);
	memcpy(gw.gw, a6("fe80::2"), 16); /* BGP unnumbered, OSPFv3: a link-local gateway */
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:70::"), 48, RIB_SRC_FRR, NH_GATEWAY, &gw, 1), 0);
}

static void test_mapped(void)
{
	const struct nexthop *nh = route_nh("2001:db8:50::1");
	uint8_t mac[6];

	/* Before the first packet asks: nothing known yet (the worker holds and asks). */
	CHECK(nh && nh->l2 == 0);
	neigh6_resolve(nt, SUBIF_PORT, a6("2001:db8:200::2"), 1000);
	CHECK_EQ(nh->l2, vc_word(VC_A));
	CHECK(!strcmp(state("2001:db8:200::2", mac), "reachable"));
	CHECK_EQ(vc_mac_vc(mac), VC_A);
	neigh6_resolve(nt, SUBIF_PORT, a6("fe80::2"), 1000);
	CHECK_EQ(route_nh("2001:db8:70::1")->l2, vc_word(VC_A));

	/* An on-link destination (glean) gets its /128 through its VC. */
	neigh6_resolve(nt, SUBIF_PORT, a6("2001:db8:200::3"), 1000);
	nh = route_nh("2001:db8:200::3");
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == SUBIF_PORT);
	CHECK_EQ(nh->l2, vc_word(VC_B));
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:200::3"), 128), RIB_SRC_NEIGH);

	/* Static: no ReachableTime, and what the far end advertises changes nothing. */
	neigh6_seen(nt, SUBIF_PORT, a6("2001:db8:200::2"), (uint8_t[6]){2, 0xcc, 0, 0, 0, 1},
	            ICMP6_NEIGH_ADV, ND_NA_SOLICITED | ND_NA_OVERRIDE, 2000);
	neigh6_timer(nt, 1000 + 3600 * 1000ull);
	CHECK(!strcmp(state("2001:db8:200::2", NULL), "reachable"));
	CHECK_EQ(route_nh("2001:db8:50::1")->l2, vc_word(VC_A));
	CHECK(!strcmp(state("2001:db8:200::3", NULL), "reachable"));
	CHECK_EQ(sent, 0);
}

static void test_unmapped(void)
{
	struct neigh_counters c;
	uint64_t t = 10000000;
	const struct nexthop *nh = route_nh("2001:db8:60::1");

	/* A gateway nothing maps: failed at once, what waits dropped as nd-failed. */
	neigh6_resolve(nt, SUBIF_PORT, a6("2001:db8:200::9"), t);
	CHECK(!strcmp(state("2001:db8:200::9", NULL), "failed"));
	CHECK_EQ(nh_l2_state(nh->l2), NEIGH_FAILED);
	/* An on-link host nothing maps: a failed /128 (address unreachable), no solicitation. */
	neigh6_resolve(nt, SUBIF_PORT, a6("2001:db8:200::77"), t);
	CHECK_EQ(route_nh("2001:db8:200::77")->type, NH_NEIGH_FAILED);
	neigh6_get_counters(nt, &c);
	CHECK_EQ(c.resolve_failed, 2);
	CHECK_EQ(c.requests_sent, 0);
	CHECK_EQ(sent, 0);
	/* Held down like a silent neighbour, then forgotten: the next packet asks again. */
	neigh6_timer(nt, t + 9900);
	CHECK(!strcmp(state("2001:db8:200::9", NULL), "failed"));
	neigh6_timer(nt, t + 10000);
	CHECK(!strcmp(state("2001:db8:200::9", NULL), "none"));
	CHECK_EQ(nh->l2, 0);
	CHECK(route_nh("2001:db8:200::77")->type == NH_GLEAN);
}

static void test_host_path(void)
{
	CHECK_EQ(host_vc("2001:db8:200::3"), VC_B); /* a map entry itself */
	CHECK_EQ(host_vc("fe80::2"), VC_A);         /* link-local: OSPFv3 hellos, BGP */
	CHECK_EQ(host_vc("2001:db8:50::1"), VC_A);  /* through the FIB6's mapped gateway */
	CHECK_EQ(host_vc("2001:db8:60::1"), -1);    /* its gateway is mapped by no PVC */
	CHECK_EQ(host_vc("ff02::2"), -1);           /* router solicitations, MLD */
	CHECK_EQ(host_vc("2001:db8:999::1"), -1);   /* no route */
	CHECK_EQ(atm_host_vc6(a, 0, (const uint8_t *)"\x45", 1), -1); /* too short */
}

static void test_runtime_change(void)
{
	uint64_t t = 20000000;

	/* PVC 0/202 now also maps ::9 (a runtime PVC change: atm_pvc_commit says so). */
	peer6(&pvcs[1], "2001:db8:200::9");
	neigh6_resolve(nt, SUBIF_PORT, a6("2001:db8:200::9"), t);
	CHECK(!strcmp(state("2001:db8:200::9", NULL), "reachable"));
	/* Moving ::2 from 0/201 to 0/202: its next hops ask again and find the new VC. */
	memcpy(pvcs[0].peers6[0], a6("2001:db8:200::20"), 16);
	peer6(&pvcs[1], "2001:db8:200::2");
	atm_map6_changed(a, SUBIF_PORT);
	CHECK(!strcmp(state("2001:db8:200::2", NULL), "none"));
	CHECK_EQ(route_nh("2001:db8:50::1")->l2, 0);
	neigh6_resolve(nt, SUBIF_PORT, a6("2001:db8:200::2"), t + 1);
	CHECK_EQ(route_nh("2001:db8:50::1")->l2, vc_word(VC_B));
	atm_map6_changed(a, 0); /* the ATM port itself has no map: nothing happens */
	CHECK_EQ(route_nh("2001:db8:50::1")->l2, vc_word(VC_B));
	CHECK_EQ(sent, 0);
}

int main(void)
{
	setup();
	test_mapped();
	test_unmapped();
	test_host_path();
	test_runtime_change();
	neigh6_free(nt);
	rib6_free(r6);
	rib_free(rib);
	free(a);
	dp_fini(&dp);
	return check_report("test_atm_map6");
}
