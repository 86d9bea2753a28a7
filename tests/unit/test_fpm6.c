/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FRR's IPv6 routes over FPM into the RIB6 and the FIB6, on frames built as
 * zebra's dplane_fpm_nl builds them: a gateway with its interface, a
 * link-local gateway (usable only with its interface, RFC 4007), ECMP,
 * blackhole/unreachable, next-hop objects with IPv6 gateways (announced
 * before or after the routes using them), FRR over static, withdrawal, a
 * reconnect's replay and sweep, and the session's IPv6 route limit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "daemon/fpm_table.h"
#include "daemon/rib6.h"
#include "tests/unit/check.h"
#include "tests/unit/check_ip6.h"
#include "tests/unit/fpm_build.h"

/* Ports eth0..eth2 on ifindex 11..13; ifindex 99 is some netdev cellgated does not own. */
#define IFX(port) (11 + (port))
#define FOREIGN   99

static struct dataplane dp;
static struct rib *rib;
static struct rib6 *r6;
static struct fpm_table *tab;

static uint64_t seed4(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

static uint64_t seed6(void *arg, uint16_t port, const uint8_t ip[16])
{
	return 0;
}

/* eth0..eth2 with 2001:db8:1::/64 .. 2001:db8:3::/64 connected. */
static void setup(void)
{
	static const char *const net[3] = {"2001:db8:1::", "2001:db8:2::", "2001:db8:3::"};

	CHECK_EQ(dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64}), 0);
	dp.nports = 3;
	for (unsigned i = 0; i < 3; i++) {
		dp.ports[i].id = (uint16_t)i;
		dp.ports[i].ifindex = IFX(i);
	}
	rib = rib_new(&dp, seed4, NULL);
	r6 = rib6_new(rib, seed6, NULL);
	CHECK(rib && r6);
	for (unsigned i = 0; i < 3; i++) {
		struct rib6_path on = {.port = (int)i, .weight = 1};
		CHECK_EQ(rib6_route_set(r6, a6(net[i]), 64, RIB_SRC_CONNECTED, NH_GLEAN, &on, 1),
		         0);
	}
	tab = fpm_table_new(rib, &dp);
	CHECK(tab != NULL);
	fpm_table_set_rib6(tab, r6);
	CHECK_EQ(fpm_table_session_start(tab), 0);
}

static void feed(struct fpm_buf *b)
{
	size_t off = 0;

	while (off < b->len) {
		long flen = fpm_frame_check(b->p + off, b->len - off);
		CHECK(flen >= FPM_HDR_LEN);
		if (flen < FPM_HDR_LEN)
			break;
		fpm_table_frame(tab, b->p + off + FPM_HDR_LEN, (size_t)flen - FPM_HDR_LEN);
		off += (size_t)flen;
	}
	b->len = 0;
}

static struct fpm_table_counters counters(void)
{
	struct fpm_table_counters c;

	fpm_table_get_counters(tab, &c);
	return c;
}

/* The next-hop group the FIB6 gives for addr: 0 = no route. */
static uint32_t group_of(const char *addr)
{
	return fib6_lookup(dp.fib6, a6(addr));
}

/* Next hop `slot` of the group for addr, or NULL; *id its id. */
static const struct nexthop *nh_at(const char *addr, unsigned slot, uint32_t *id)
{
	uint32_t g = group_of(addr);

	if (!g)
		return NULL;
	*id = dp.nht->nhg[g].slot[slot];
	return &dp.nht->nh[*id];
}

/* One frame with one IPv6 route: gateway (NULL = none) and port (-1 = foreign, -2 = no oif). */
static void route6(struct fpm_buf *b, const char *prefix, uint8_t len, const char *gw, int port)
{
	fb_frame_begin(b);
	struct nlmsghdr *n = fb_route6(b, RTM_NEWROUTE, a6(prefix), len, RTN_UNICAST);
	fb_gw6(n, gw ? a6(gw) : NULL, port == -2 ? 0 : port < 0 ? FOREIGN : IFX(port));
	fb_msg_end(b, n);
	fb_frame_end(b);
}

static void route6_del(struct fpm_buf *b, const char *prefix, uint8_t len)
{
	fb_frame_begin(b);
	fb_msg_end(b, fb_route6(b, RTM_DELROUTE, a6(prefix), len, 0));
	fb_frame_end(b);
}

static void route6_type(struct fpm_buf *b, const char *prefix, uint8_t len, uint8_t type)
{
	fb_frame_begin(b);
	fb_msg_end(b, fb_route6(b, RTM_NEWROUTE, a6(prefix), len, type));
	fb_frame_end(b);
}

/* `ipv6 route 2001:db8:77::/48 2001:db8:2::2`: zebra resolves the interface. */
static void test_gateway_route_and_withdraw(void)
{
	struct fpm_buf b = {0};
	const struct nexthop *nh;
	uint32_t id;

	route6(&b, "2001:db8:77::", 48, "2001:db8:2::2", 1);
	feed(&b);
	nh = nh_at("2001:db8:77::1", 0, &id);
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 1);
	CHECK(nh && !memcmp(dp.nht->gw6[id], a6("2001:db8:2::2"), 16));
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:77::"), 48), RIB_SRC_FRR);
	CHECK_EQ(counters().routes6, 1);
	CHECK_EQ(counters().routes6_rib, 1);
	CHECK_EQ(counters().ipv6_added, 1);

	/* Gateway without RTA_OIF (global): the port comes from the connected prefix. */
	route6(&b, "2001:db8:78::", 48, "2001:db8:3::2", -2);
	feed(&b);
	nh = nh_at("2001:db8:78::1", 0, &id);
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 2);

	/* An interface route: the destination is on the link (glean on eth0). */
	route6(&b, "2001:db8:79::", 64, NULL, 0);
	feed(&b);
	nh = nh_at("2001:db8:79::5", 0, &id);
	CHECK(nh && nh->type == NH_GLEAN && nh->port == 0);

	/* Replaced in place (DEL + NEW in one frame, as zebra sends a change). */
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_route6(&b, RTM_DELROUTE, a6("2001:db8:77::"), 48, 0));
	struct nlmsghdr *n = fb_route6(&b, RTM_NEWROUTE, a6("2001:db8:77::"), 48, RTN_UNICAST);
	fb_gw6(n, a6("2001:db8:1::2"), IFX(0));
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	nh = nh_at("2001:db8:77::1", 0, &id);
	CHECK(nh && nh->port == 0 && !memcmp(dp.nht->gw6[id], a6("2001:db8:1::2"), 16));
	CHECK_EQ(counters().ipv6_replaced, 1);
	CHECK_EQ(counters().ipv6_deleted, 0);

	uint64_t del0 = counters().ipv6_deleted;
	route6_del(&b, "2001:db8:77::", 48);
	route6_del(&b, "2001:db8:78::", 48);
	route6_del(&b, "2001:db8:79::", 64);
	route6_del(&b, "2001:db8:7a::", 48); /* never announced */
	feed(&b);
	CHECK_EQ(group_of("2001:db8:77::1"), 0);
	CHECK_EQ(group_of("2001:db8:78::1"), 0);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:77::"), 48), -1);
	CHECK_EQ(counters().ipv6_deleted, del0 + 3);
	CHECK_EQ(counters().routes_del_unknown, 1);
	CHECK_EQ(counters().routes6, 0);
	CHECK_EQ(counters().routes6_rib, 0);
	free(b.p);
}

/*
 * fe80::/10 is link-scoped (RFC 4291 §2.5.6): the same address may be a
 * different router on every link, so a link-local gateway means something
 * only with its interface (RFC 4007 §6). zebra sends the interface (BGP
 * unnumbered, `ipv6 route ... fe80::1 eth1`); without one it is refused.
 */
static void test_link_local_gateway(void)
{
	struct fpm_buf b = {0};
	const struct nexthop *nh;
	uint32_t id;

	route6(&b, "2001:db8:80::", 48, "fe80::2", 1);
	feed(&b);
	nh = nh_at("2001:db8:80::1", 0, &id);
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 1);
	CHECK(nh && !memcmp(dp.nht->gw6[id], a6("fe80::2"), 16));
	/* The same link-local address on another link is another next hop. */
	route6(&b, "2001:db8:81::", 48, "fe80::2", 2);
	feed(&b);
	uint32_t id2;
	nh = nh_at("2001:db8:81::1", 0, &id2);
	CHECK(nh && nh->port == 2 && id2 != id);

	struct fpm_table_counters c = counters();
	route6(&b, "2001:db8:82::", 48, "fe80::2", -2);
	route6(&b, "2001:db8:83::", 48, "febf::1", -2); /* still fe80::/10 */
	feed(&b);
	struct fpm_table_counters c2 = counters();
	CHECK_EQ(c2.rejected[FPM_REJ_LINK_LOCAL] - c.rejected[FPM_REJ_LINK_LOCAL], 2);
	CHECK_EQ(group_of("2001:db8:82::1"), 0);
	CHECK_EQ(c2.routes6_rejected, c.routes6_rejected + 2);
	CHECK_EQ(c2.routes6, c.routes6 + 2); /* held, as IPv4 rejected routes are */

	/* A foreign interface and an IPv4 gateway are refused as for IPv4 routes. */
	route6(&b, "2001:db8:84::", 48, "fe80::2", -1);
	fb_frame_begin(&b);
	struct nlmsghdr *n = fb_route6(&b, RTM_NEWROUTE, a6("2001:db8:85::"), 48, RTN_UNICAST);
	uint32_t v4 = htonl(0x0a000202);
	struct {
		uint16_t family;
		uint32_t addr;
	} __attribute__((packed)) via = {AF_INET, v4};
	mnl_attr_put(n, RTA_VIA, sizeof(via), &via);
	mnl_attr_put_u32(n, RTA_OIF, IFX(1));
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	CHECK_EQ(counters().rejected[FPM_REJ_IFINDEX], c2.rejected[FPM_REJ_IFINDEX] + 1);
	CHECK_EQ(counters().rejected[FPM_REJ_GW_FAMILY], c2.rejected[FPM_REJ_GW_FAMILY] + 1);
	CHECK_EQ(group_of("2001:db8:85::1"), 0);

	/* Fixed by zebra (the interface now given): installed, no longer rejected. */
	route6(&b, "2001:db8:82::", 48, "fe80::2", 0);
	feed(&b);
	nh = nh_at("2001:db8:82::1", 0, &id);
	CHECK(nh && nh->port == 0);
	CHECK_EQ(counters().routes6_rejected, c2.routes6_rejected - 1 + 2);
	free(b.p);
}

/* RTA_MULTIPATH as the IPv4 side takes it: weights kept, one group. */
static void test_ecmp_and_types(void)
{
	struct fpm_buf b = {0};
	uint8_t gws[2][16];
	uint32_t oifs[2] = {IFX(1), IFX(2)};
	unsigned w[2] = {1, 3};

	memcpy(gws[0], a6("fe80::2"), 16);
	memcpy(gws[1], a6("2001:db8:3::2"), 16);
	fb_frame_begin(&b);
	struct nlmsghdr *n = fb_route6(&b, RTM_NEWROUTE, a6("2001:db8:90::"), 48, RTN_UNICAST);
	fb_multipath6(n, 2, gws, oifs, w);
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	uint32_t g = group_of("2001:db8:90::1");
	CHECK(g != 0);
	CHECK_EQ(dp.nht->nhg[g].npaths, 2);
	CHECK_EQ(dp.nht->nhg[g].nslots, 4); /* slots by weight: 1 + 3 */
	bool port1 = false, port2 = false;
	for (unsigned i = 0; g && i < dp.nht->nhg[g].nslots; i++) {
		const struct nexthop *nh = &dp.nht->nh[dp.nht->nhg[g].slot[i]];
		port1 |= nh->port == 1;
		port2 |= nh->port == 2;
	}
	CHECK(port1 && port2);

	route6_type(&b, "2001:db8:66::", 48, RTN_BLACKHOLE);
	route6_type(&b, "2001:db8:67::", 48, RTN_UNREACHABLE);
	route6_type(&b, "2001:db8:68::", 48, RTN_PROHIBIT);
	route6_type(&b, "2001:db8:69::", 48, RTN_MULTICAST); /* refused: type */
	feed(&b);
	uint32_t id;
	const struct nexthop *nh = nh_at("2001:db8:66::1", 0, &id);
	CHECK(nh && nh->type == NH_BLACKHOLE);
	nh = nh_at("2001:db8:67::1", 0, &id);
	CHECK(nh && nh->type == NH_UNREACHABLE);
	nh = nh_at("2001:db8:68::1", 0, &id);
	CHECK(nh && nh->type == NH_UNREACHABLE);
	CHECK_EQ(group_of("2001:db8:69::1"), 0);
	CHECK(counters().rejected[FPM_REJ_TYPE] >= 1);
	free(b.p);
}

/* A static route of the same prefix: FRR's wins, and its withdrawal hands back. */
static void test_frr_over_static(void)
{
	struct fpm_buf b = {0};
	struct rib6_path st = {.port = 0, .weight = 1};
	uint32_t id;

	memcpy(st.gw, a6("2001:db8:1::2"), 16);
	CHECK_EQ(rib6_route_set(r6, a6("2001:db8:a0::"), 48, RIB_SRC_STATIC, NH_GATEWAY, &st, 1),
	         0);
	const struct nexthop *nh = nh_at("2001:db8:a0::1", 0, &id);
	CHECK(nh && nh->port == 0);
	route6(&b, "2001:db8:a0::", 48, "2001:db8:2::2", 1);
	feed(&b);
	nh = nh_at("2001:db8:a0::1", 0, &id);
	CHECK(nh && nh->port == 1);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:a0::"), 48), RIB_SRC_FRR);
	route6_del(&b, "2001:db8:a0::", 48);
	feed(&b);
	nh = nh_at("2001:db8:a0::1", 0, &id);
	CHECK(nh && nh->port == 0);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:a0::"), 48), RIB_SRC_STATIC);
	CHECK_EQ(rib6_route_del(r6, a6("2001:db8:a0::"), 48, RIB_SRC_STATIC), 0);
	free(b.p);
}

/*
 * zebra's default mode: objects with IPv6 gateways, a group over two, and
 * routes naming them by RTA_NH_ID; a route may come before its object
 * (replay order), and waits for it.
 */
static void test_nexthop_objects(void)
{
	struct fpm_buf b = {0};
	uint32_t ids[2] = {601, 602}, id;

	fb_frame_begin(&b);
	struct nlmsghdr *n = fb_route6(&b, RTM_NEWROUTE, a6("2001:db8:b0::"), 48, RTN_UNICAST);
	mnl_attr_put_u32(n, RTA_NH_ID, 600);
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	CHECK_EQ(group_of("2001:db8:b0::1"), 0);
	CHECK_EQ(counters().routes6_pending, 1);

	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop6(&b, 601, a6("fe80::2"), IFX(1)));
	fb_msg_end(&b, fb_nexthop6(&b, 602, a6("2001:db8:3::2"), IFX(2)));
	fb_msg_end(&b, fb_group(&b, 600, 2, ids, NULL));
	n = fb_route6(&b, RTM_NEWROUTE, a6("2001:db8:b1::"), 48, RTN_UNICAST);
	mnl_attr_put_u32(n, RTA_NH_ID, 601);
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	uint32_t g = group_of("2001:db8:b0::1");
	CHECK(g && dp.nht->nhg[g].npaths == 2);
	CHECK_EQ(counters().routes6_pending, 0);
	const struct nexthop *nh = nh_at("2001:db8:b1::1", 0, &id);
	CHECK(nh && nh->port == 1 && !memcmp(dp.nht->gw6[id], a6("fe80::2"), 16));

	/* An object changes: the routes using it follow. */
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop6(&b, 601, a6("2001:db8:1::2"), IFX(0)));
	fb_frame_end(&b);
	feed(&b);
	nh = nh_at("2001:db8:b1::1", 0, &id);
	CHECK(nh && nh->port == 0);
	CHECK_EQ(counters().nh_replaced, 1);

	/* A link-local object without interface: its routes are refused, with the reason. */
	uint64_t ll = counters().rejected[FPM_REJ_LINK_LOCAL];
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop6(&b, 601, a6("fe80::9"), 0));
	fb_frame_end(&b);
	feed(&b);
	CHECK_EQ(group_of("2001:db8:b1::1"), 0);
	CHECK(counters().rejected[FPM_REJ_LINK_LOCAL] > ll);

	route6_del(&b, "2001:db8:b0::", 48);
	route6_del(&b, "2001:db8:b1::", 48);
	feed(&b);
	CHECK_EQ(group_of("2001:db8:b0::1"), 0);
	free(b.p);
}

/*
 * Thousands of IPv6 routes on one object: the FPM table grows under them
 * (entries move), a third are deleted (the object's dependents swap-removed,
 * the table's runs shifted back), then the object changes: every route left
 * follows it, none of the deleted ones comes back.
 */
static void test_many_routes_on_one_object(void)
{
	struct fpm_buf b = {0};
	const unsigned n = 10000; /* the table starts at 4096 slots: two growths */
	char p[48];
	uint64_t before = counters().routes6;
	unsigned bad = 0;
	uint32_t id;

	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop6(&b, 701, a6("2001:db8:1::2"), IFX(0)));
	fb_frame_end(&b);
	for (unsigned i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "2001:dc8:%x::", i);
		fb_frame_begin(&b);
		struct nlmsghdr *m = fb_route6(&b, RTM_NEWROUTE, a6(p), 48, RTN_UNICAST);
		mnl_attr_put_u32(m, RTA_NH_ID, 701);
		fb_msg_end(&b, m);
		fb_frame_end(&b);
	}
	feed(&b);
	CHECK_EQ(counters().routes6, before + n);
	for (unsigned i = 0; i < n; i += 3) {
		snprintf(p, sizeof(p), "2001:dc8:%x::", i);
		route6_del(&b, p, 48);
	}
	feed(&b);
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop6(&b, 701, a6("2001:db8:3::2"), IFX(2)));
	fb_frame_end(&b);
	feed(&b);
	for (unsigned i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "2001:dc8:%x::1", i);
		const struct nexthop *nh = nh_at(p, 0, &id);
		bad += i % 3 == 0 ? nh != NULL : !nh || nh->port != 2;
	}
	CHECK_EQ(bad, 0);
	for (unsigned i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "2001:dc8:%x::", i);
		if (i % 3)
			route6_del(&b, p, 48);
	}
	feed(&b);
	CHECK_EQ(counters().routes6, before);
	CHECK_EQ(group_of("2001:dc8:1::1"), 0);
	free(b.p);
}

/*
 * A reconnect: the old session's IPv6 routes keep forwarding (the same FIB6
 * value) while zebra replays; the ones not replayed go at the sweep.
 */
static void test_replay_and_sweep(void)
{
	struct fpm_buf b = {0};

	while (!fpm_table_sweep(tab, 1000)) /* the first session: nothing stale */
		;
	route6(&b, "2001:db8:c0::", 48, "2001:db8:2::2", 1);
	route6(&b, "2001:db8:c1::", 48, "2001:db8:2::2", 1);
	feed(&b);
	uint32_t g0 = group_of("2001:db8:c0::1");
	uint64_t held = counters().routes6;

	CHECK_EQ(fpm_table_session_start(tab), 0);
	CHECK_EQ(counters().stale, held);
	uint64_t rc = fpm_table_reconfirmed(tab);
	route6(&b, "2001:db8:c0::", 48, "2001:db8:2::2", 1);
	feed(&b);
	CHECK_EQ(fpm_table_reconfirmed(tab), rc + 1);
	CHECK_EQ(group_of("2001:db8:c0::1"), g0);
	CHECK(group_of("2001:db8:c1::1") != 0); /* stale, still forwarding */
	CHECK_EQ(counters().stale, held - 1);
	/* Small budgets: the sweep resumes where it stopped. */
	while (!fpm_table_sweep(tab, 3))
		;
	CHECK_EQ(counters().stale, 0);
	CHECK_EQ(group_of("2001:db8:c1::1"), 0);
	CHECK_EQ(group_of("2001:db8:c0::1"), g0);
	CHECK(counters().ipv6_swept >= 1);
	CHECK_EQ(counters().routes6, 1);
	CHECK_EQ(counters().session6, 1);
	route6_del(&b, "2001:db8:c0::", 48);
	feed(&b);
	free(b.p);
}

/* The session's IPv6 limit counts the IPv6 routes it announced; at the limit, refused. */
static void test_limit(void)
{
	struct fpm_buf b = {0};
	char p[32];

	CHECK_EQ(fpm_table_session_start(tab), 0);
	while (!fpm_table_sweep(tab, 1000))
		;
	fpm_table_set_limits(tab, 0, 3, 100);
	uint64_t lim0 = counters().rejected[FPM_REJ_LIMIT];
	for (unsigned i = 0; i < 5; i++) {
		snprintf(p, sizeof(p), "2001:db8:d%u::", i);
		route6(&b, p, 48, "2001:db8:2::2", 1);
	}
	feed(&b);
	CHECK_EQ(counters().session6, 3);
	CHECK_EQ(counters().rejected[FPM_REJ_LIMIT], lim0 + 2);
	CHECK(group_of("2001:db8:d2::1") != 0);
	CHECK_EQ(group_of("2001:db8:d3::1"), 0);
	/* A withdrawal makes room. */
	route6_del(&b, "2001:db8:d0::", 48);
	route6(&b, "2001:db8:d4::", 48, "2001:db8:2::2", 1);
	feed(&b);
	CHECK(group_of("2001:db8:d4::1") != 0);
	CHECK_EQ(counters().session6, 3);
	fpm_table_set_limits(tab, 0, 0, 100);
	free(b.p);
}

/*
 * The server applies a read's worth of frames as one FIB6 batch: the
 * workers see the routes together when it ends, not one by one.
 */
static void test_batch(void)
{
	struct fpm_buf b = {0};
	uint64_t in_rib = counters().routes6_rib;

	fpm_table_batch_begin(tab);
	route6(&b, "2001:db8:e0::", 48, "2001:db8:2::2", 1);
	route6(&b, "2001:db8:e1::", 48, "2001:db8:3::2", 2);
	feed(&b);
	CHECK_EQ(counters().routes6_rib, in_rib + 2);
	CHECK_EQ(group_of("2001:db8:e0::1"), 0); /* not published yet */
	CHECK_EQ(fpm_table_batch_end(tab), 0);
	CHECK(group_of("2001:db8:e0::1") != 0 && group_of("2001:db8:e1::1") != 0);
	CHECK_EQ(fpm_table_batch_end(tab), 0); /* none open: nothing to do */
	fpm_table_batch_begin(tab);
	route6_del(&b, "2001:db8:e0::", 48);
	feed(&b);
	CHECK(group_of("2001:db8:e0::1") != 0);
	CHECK_EQ(fpm_table_batch_end(tab), 0);
	CHECK_EQ(group_of("2001:db8:e0::1"), 0);
	route6_del(&b, "2001:db8:e1::", 48);
	feed(&b);
	free(b.p);
}

/* Gauges agree with the RIB6; freeing everything leaks nothing (ASan build). */
static void test_counts(void)
{
	uint64_t routes[RIB_SRC__MAX], errors;
	struct fpm_table_counters c = counters();

	rib6_get_counts(r6, routes, &errors);
	CHECK_EQ(c.routes6_rib, routes[RIB_SRC_FRR]);
	CHECK_EQ(c.routes6, c.routes6_rib + c.routes6_pending + c.routes6_rejected);
	fpm_table_free(tab);
	rib6_free(r6);
	rib_free(rib);
	dp_fini(&dp);
}

int main(void)
{
	setup();
	test_gateway_route_and_withdraw();
	test_link_local_gateway();
	test_ecmp_and_types();
	test_frr_over_static();
	test_nexthop_objects();
	test_many_routes_on_one_object();
	test_replay_and_sweep();
	test_limit();
	test_batch();
	test_counts();
	return check_report("test_fpm6");
}
