/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FPM decoding and the FPM table, on frames built as zebra's dplane_fpm_nl
 * builds them. What a reader learns here: the framing, how each route and
 * next-hop form lands in the FIB, what is rejected and why, and how a
 * reconnect replays without a gap (mark-and-sweep).
 */
#include <errno.h>
#include <string.h>

#include "tests/unit/check.h"
#include "daemon/fpm_table.h"
#include "tests/unit/fib_env.h"
#include "tests/unit/fpm_build.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

/* Ports eth0..eth2 on ifindex 11..13; ifindex 99 is some netdev cellgated does not own. */
#define IFX(port) (11 + (port))
#define FOREIGN   99

static struct dataplane dp;
static struct rib *rib;
static struct fpm_table *tab;

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
}

static void setup(void)
{
	struct rib_path on[3] = {{0, 0, 1}, {0, 1, 1}, {0, 2, 1}};

	CHECK_EQ(dp_init(&dp, test_fib_algo(), &(struct fib_params){.tbl8_groups = 256}), 0);
	dp.nports = 3;
	for (unsigned i = 0; i < 3; i++) {
		dp.ports[i].id = (uint16_t)i;
		dp.ports[i].ifindex = IFX(i);
	}
	rib = rib_new(&dp, seed, NULL);
	for (unsigned i = 0; i < 3; i++)
		rib_route_set(rib, IP(10, 0, i + 1, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &on[i], 1);
	tab = fpm_table_new(rib, &dp);
	CHECK(tab != NULL);
	CHECK_EQ(fpm_table_session_start(tab), 0);
}

/* Apply every frame in b to the table, as the server would. */
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

static const struct nexthop *nh_at(uint32_t addr, unsigned slot)
{
	uint32_t g = fib_lookup(&dp.fib, addr);
	return g ? &dp.nht->nh[dp.nht->nhg[g].slot[slot]] : NULL;
}

static struct fpm_table_counters counters(void)
{
	struct fpm_table_counters c;
	fpm_table_get_counters(tab, &c);
	return c;
}

static void route_gw(struct fpm_buf *b, uint32_t prefix, uint8_t len, uint32_t gw, int port)
{
	fb_frame_begin(b);
	struct nlmsghdr *n = fb_route(b, RTM_NEWROUTE, prefix, len, RTN_UNICAST);
	fb_gw(n, gw, port < 0 ? FOREIGN : IFX(port));
	fb_msg_end(b, n);
	fb_frame_end(b);
}

static void route_del(struct fpm_buf *b, uint32_t prefix, uint8_t len)
{
	fb_frame_begin(b);
	struct nlmsghdr *n = fb_route(b, RTM_DELROUTE, prefix, len, 0);
	fb_msg_end(b, n);
	fb_frame_end(b);
}

static void test_framing(void)
{
	uint8_t h[8] = {1, 1, 0, 8, 0, 0, 0, 0};

	CHECK_EQ(fpm_frame_check(h, 3), 0); /* header incomplete */
	CHECK_EQ(fpm_frame_check(h, 7), 0); /* frame incomplete */
	CHECK_EQ(fpm_frame_check(h, 8), 8);
	h[0] = 2;
	CHECK_EQ(fpm_frame_check(h, 8), -FPM_E_HDR_VERSION);
	h[0] = 1, h[1] = 2; /* type 2 is protobuf in the FPM spec: not what dplane_fpm_nl sends */
	CHECK_EQ(fpm_frame_check(h, 8), -FPM_E_HDR_TYPE);
	h[1] = 1, h[3] = 3;
	CHECK_EQ(fpm_frame_check(h, 8), -FPM_E_HDR_LENGTH);
	h[2] = 0xff, h[3] = 0xff; /* 65535: longer than 4096 is fine */
	CHECK_EQ(fpm_frame_check(h, 8), 0);
}

static enum fpm_err decode_one(struct fpm_buf *b, struct fpm_msg *m)
{
	return fpm_nl_decode(b->p + 4, b->len - 4, m);
}

static void test_decode(void)
{
	static struct fpm_msg m;
	struct fpm_buf b = {0};
	uint32_t gws[2] = {IP(10, 0, 2, 2), IP(10, 0, 3, 2)}, oifs[2] = {IFX(1), IFX(2)};
	unsigned w[2] = {1, 3};

	/* A multipath route: weights arrive as rtnh_hops = weight - 1. */
	fb_frame_begin(&b);
	struct nlmsghdr *n = fb_route(&b, RTM_NEWROUTE, IP(10, 9, 0, 0), 16, RTN_UNICAST);
	fb_multipath(n, 2, gws, oifs, w);
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	CHECK_EQ(decode_one(&b, &m), FPM_OK);
	CHECK_EQ(m.type, FPM_MSG_NEWROUTE);
	CHECK_EQ(m.route.dst_len, 16);
	CHECK_EQ(m.route.table, RT_TABLE_MAIN);
	CHECK_EQ(m.route.priority, 20);
	CHECK_EQ(m.route.npaths, 2);
	CHECK_EQ(m.route.paths[1].weight, 3);
	CHECK_EQ(m.route.paths[1].oif, IFX(2));
	CHECK_EQ(m.route.paths[0].gw[3], 2);

	/* Attributes after the rtmsg: RTA_DST, RTA_PRIORITY, then RTA_MULTIPATH. */
	struct nlattr *prio = (struct nlattr *)((uint8_t *)n + 16 + 12 + 8);
	struct nlattr *mp = (struct nlattr *)((uint8_t *)prio + 8);
	/* Shorten the multipath by 4 bytes: its second rtnexthop now overruns it. */
	mp->nla_len -= 4;
	CHECK_EQ(decode_one(&b, &m), FPM_E_MULTIPATH);
	mp->nla_len += 4;
	/* An attribute claiming more than the message holds. */
	prio->nla_len = 200;
	CHECK_EQ(decode_one(&b, &m), FPM_E_ATTR);
	b.len = 0;

	/* RTA_OIF of 2 bytes, prefix length 33, host bits, missing RTA_DST. */
	fb_frame_begin(&b);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 9, 0, 0), 16, RTN_UNICAST);
	uint16_t shortoif = 3;
	mnl_attr_put(n, RTA_OIF, 2, &shortoif);
	fb_msg_end(&b, n);
	CHECK_EQ(decode_one(&b, &m), FPM_E_ATTR_SIZE);
	b.len = 0;
	fb_frame_begin(&b);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 9, 0, 0), 33, RTN_UNICAST);
	fb_msg_end(&b, n);
	CHECK_EQ(decode_one(&b, &m), FPM_E_PREFIX);
	b.len = 0;
	fb_frame_begin(&b);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 9, 0, 1), 16, RTN_UNICAST);
	fb_msg_end(&b, n);
	CHECK_EQ(decode_one(&b, &m), FPM_E_PREFIX);
	b.len = 0;

	/* A group: entries are {u32 id, u8 weight - 1, pad}; the payload must be whole entries. */
	uint32_t ids[2] = {7, 8};
	fb_frame_begin(&b);
	n = fb_group(&b, 9, 2, ids, w);
	fb_msg_end(&b, n);
	CHECK_EQ(decode_one(&b, &m), FPM_OK);
	CHECK_EQ(m.type, FPM_MSG_NEWNEXTHOP);
	CHECK_EQ(m.nhobj.id, 9);
	CHECK_EQ(m.nhobj.ngroup, 2);
	CHECK_EQ(m.nhobj.group[1].id, 8);
	CHECK_EQ(m.nhobj.group[1].weight, 3);
	b.len = 0;
	fb_frame_begin(&b);
	n = fb_msg(&b, RTM_NEWNEXTHOP, 64);
	mnl_nlmsg_put_extra_header(n, sizeof(struct nhmsg));
	mnl_attr_put_u32(n, NHA_ID, 5);
	mnl_attr_put(n, NHA_GROUP, 6, ids);
	fb_msg_end(&b, n);
	CHECK_EQ(decode_one(&b, &m), FPM_E_GROUP);
	b.len = 0;
	fb_frame_begin(&b);
	n = fb_msg(&b, RTM_NEWNEXTHOP, 64);
	mnl_nlmsg_put_extra_header(n, sizeof(struct nhmsg));
	mnl_attr_put(n, NHA_BLACKHOLE, 0, NULL);
	fb_msg_end(&b, n);
	CHECK_EQ(decode_one(&b, &m), FPM_E_NH_ID);
	b.len = 0;

	/* A body shorter than struct rtmsg, and a message type we do not decode. */
	fb_frame_begin(&b);
	n = fb_msg(&b, RTM_NEWROUTE, 64);
	n->nlmsg_len += 4;
	fb_msg_end(&b, n);
	CHECK_EQ(decode_one(&b, &m), FPM_E_SHORT);
	n->nlmsg_type = RTM_NEWNEIGH;
	CHECK_EQ(decode_one(&b, &m), FPM_OK);
	CHECK_EQ(m.type, FPM_MSG_OTHER);

	/* A length of 2^31 + 16 (found by the fuzzer: libmnl compares it as an int). */
	n->nlmsg_len = 0x80000010u;
	struct fpm_frame_iter it = {.p = b.p + 4, .rem = (int)(b.len - 4)};
	const void *msg;
	size_t mlen;
	CHECK_EQ(fpm_frame_next(&it, &msg, &mlen), -FPM_E_NLMSG);
	CHECK_EQ(decode_one(&b, &m), FPM_E_NLMSG);
	free(b.p);
}

static void test_plain_routes(void)
{
	struct fpm_buf b = {0};
	struct fpm_table_counters c;

	/* zebra without `fpm use-next-hop-groups`: gateway and oif in the route. */
	route_gw(&b, IP(10, 9, 0, 0), 16, IP(10, 0, 2, 2), 1);
	feed(&b);
	const struct nexthop *nh = nh_at(IP(10, 9, 1, 1), 0);
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 1 && nh->gw == IP(10, 0, 2, 2));
	CHECK_EQ(rib_route_best(rib, IP(10, 9, 0, 0), 16), RIB_SRC_FRR);

	/* ECMP with weights 1 and 3: a quarter of the hash slots on port 1. */
	uint32_t gws[2] = {IP(10, 0, 2, 2), IP(10, 0, 3, 2)}, oifs[2] = {IFX(1), IFX(2)};
	unsigned w[2] = {1, 3};
	fb_frame_begin(&b);
	struct nlmsghdr *n = fb_route(&b, RTM_NEWROUTE, IP(10, 10, 0, 0), 16, RTN_UNICAST);
	fb_multipath(n, 2, gws, oifs, w);
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	uint32_t g = fib_lookup(&dp.fib, IP(10, 10, 0, 1));
	CHECK(g != 0);
	CHECK_EQ(dp.nht->nhg[g].nslots, 4);
	unsigned on2 = 0;
	for (unsigned s = 0; s < dp.nht->nhg[g].nslots; s++)
		on2 += dp.nht->nh[dp.nht->nhg[g].slot[s]].port == 2;
	CHECK_EQ(on2, 3);

	/* An interface route (connected, or `ip route X/Y eth0`): on-link on that port. */
	fb_frame_begin(&b);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 13, 0, 0), 16, RTN_UNICAST);
	fb_gw(n, 0, IFX(0));
	fb_msg_end(&b, n);
	/* Blackhole, `reject` (unreachable) and prohibit: no paths, the type says it all. */
	fb_msg_end(&b, fb_route(&b, RTM_NEWROUTE, IP(10, 11, 0, 0), 16, RTN_BLACKHOLE));
	fb_msg_end(&b, fb_route(&b, RTM_NEWROUTE, IP(10, 12, 0, 0), 16, RTN_UNREACHABLE));
	fb_msg_end(&b, fb_route(&b, RTM_NEWROUTE, IP(10, 14, 0, 0), 16, RTN_PROHIBIT));
	fb_frame_end(&b); /* four messages in one frame: every one is applied */
	feed(&b);
	CHECK(nh_at(IP(10, 13, 0, 9), 0) && nh_at(IP(10, 13, 0, 9), 0)->type == NH_GLEAN);
	CHECK(nh_at(IP(10, 13, 0, 9), 0) && nh_at(IP(10, 13, 0, 9), 0)->port == 0);
	CHECK(nh_at(IP(10, 11, 0, 1), 0) && nh_at(IP(10, 11, 0, 1), 0)->type == NH_BLACKHOLE);
	CHECK(nh_at(IP(10, 12, 0, 1), 0) && nh_at(IP(10, 12, 0, 1), 0)->type == NH_UNREACHABLE);
	CHECK(nh_at(IP(10, 14, 0, 1), 0) && nh_at(IP(10, 14, 0, 1), 0)->type == NH_UNREACHABLE);

	/* Rejected: an interface cellgated does not own, another table, a local route. */
	c = counters();
	route_gw(&b, IP(10, 15, 0, 0), 16, IP(10, 0, 2, 2), -1);
	fb_frame_begin(&b);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 16, 0, 0), 16, RTN_UNICAST);
	mnl_attr_put_u32(n, RTA_TABLE, 1000);
	fb_gw(n, IP(10, 0, 2, 2), IFX(1));
	fb_msg_end(&b, n);
	fb_msg_end(&b, fb_route(&b, RTM_NEWROUTE, IP(10, 17, 0, 0), 16, RTN_LOCAL));
	fb_frame_end(&b);
	feed(&b);
	struct fpm_table_counters c2 = counters();
	CHECK_EQ(c2.rejected[FPM_REJ_IFINDEX] - c.rejected[FPM_REJ_IFINDEX], 1);
	CHECK_EQ(c2.rejected[FPM_REJ_TABLE] - c.rejected[FPM_REJ_TABLE], 1);
	CHECK_EQ(c2.rejected[FPM_REJ_TYPE] - c.rejected[FPM_REJ_TYPE], 1);
	/* Other tables are not recorded at all; the other two are, as rejected. */
	CHECK_EQ(c2.routes4_rejected, c.routes4_rejected + 2);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 15, 0, 1)), 0);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 16, 0, 1)), 0);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 17, 0, 1)), 0);

	/* A route that moves to a foreign interface is withdrawn, not left stale. */
	route_gw(&b, IP(10, 9, 0, 0), 16, IP(10, 0, 2, 2), -1);
	feed(&b);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 9, 1, 1)), 0);
	route_gw(&b, IP(10, 9, 0, 0), 16, IP(10, 0, 2, 2), 1);
	feed(&b);
	CHECK(fib_lookup(&dp.fib, IP(10, 9, 1, 1)) != 0);

	/* IPv6: this table has no RIB6 (fpm_table_set_rib6): recorded, not installed. */
	fb_frame_begin(&b);
	n = fb_msg(&b, RTM_NEWROUTE, 256);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(n, sizeof(*rtm));
	rtm->rtm_family = AF_INET6, rtm->rtm_dst_len = 32, rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_type = RTN_UNICAST;
	uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8};
	mnl_attr_put(n, RTA_DST, 16, v6);
	mnl_attr_put_u32(n, RTA_OIF, IFX(1));
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	CHECK_EQ(counters().routes6, 1);
	free(b.p);
}

static void test_replace_and_static(void)
{
	struct fpm_buf b = {0};
	struct rib_path st = {.gw = IP(10, 0, 3, 2), .port = -1, .weight = 1};

	/* FRR wins over a static route of the same prefix; its withdrawal brings static back. */
	CHECK_EQ(rib_route_set(rib, IP(10, 20, 0, 0), 24, RIB_SRC_STATIC, NH_GATEWAY, &st, 1), 0);
	route_gw(&b, IP(10, 20, 0, 0), 24, IP(10, 0, 2, 2), 1);
	feed(&b);
	CHECK_EQ(nh_at(IP(10, 20, 0, 1), 0)->port, 1);
	route_del(&b, IP(10, 20, 0, 0), 24);
	feed(&b);
	CHECK_EQ(nh_at(IP(10, 20, 0, 1), 0)->port, 2);
	CHECK_EQ(rib_route_best(rib, IP(10, 20, 0, 0), 24), RIB_SRC_STATIC);

	/*
	 * A change: DEL + NEW in one frame is one replace. The static route
	 * must never show through in between (it would if the DEL were applied
	 * on its own): the delete counter does not move.
	 */
	route_gw(&b, IP(10, 20, 0, 0), 24, IP(10, 0, 2, 2), 1);
	feed(&b);
	struct fpm_table_counters c = counters();
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_route(&b, RTM_DELROUTE, IP(10, 20, 0, 0), 24, 0));
	struct nlmsghdr *n = fb_route(&b, RTM_NEWROUTE, IP(10, 20, 0, 0), 24, RTN_UNICAST);
	fb_gw(n, IP(10, 0, 1, 2), IFX(0));
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	struct fpm_table_counters c2 = counters();
	CHECK_EQ(c2.routes_deleted, c.routes_deleted);
	CHECK_EQ(c2.routes_replaced, c.routes_replaced + 1);
	CHECK_EQ(c2.msgs[FPM_MSG_DELROUTE], c.msgs[FPM_MSG_DELROUTE] + 1);
	CHECK_EQ(nh_at(IP(10, 20, 0, 1), 0)->port, 0);

	/* A malformed message between good ones is skipped alone. */
	fb_frame_begin(&b);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 21, 0, 0), 24, RTN_UNICAST);
	fb_gw(n, IP(10, 0, 2, 2), IFX(1));
	fb_msg_end(&b, n);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 22, 0, 0), 24, RTN_UNICAST);
	uint8_t bad_gw[3] = {10, 0, 2};
	mnl_attr_put(n, RTA_GATEWAY, 3, bad_gw);
	fb_msg_end(&b, n);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 23, 0, 0), 24, RTN_UNICAST);
	fb_gw(n, IP(10, 0, 2, 2), IFX(1));
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	CHECK(fib_lookup(&dp.fib, IP(10, 21, 0, 1)) != 0);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 22, 0, 1)), 0);
	CHECK(fib_lookup(&dp.fib, IP(10, 23, 0, 1)) != 0);
	CHECK_EQ(counters().errors[FPM_E_ATTR_SIZE], c2.errors[FPM_E_ATTR_SIZE] + 1);

	/* A message whose length runs past its frame ends the frame, not the session. */
	fb_frame_begin(&b);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 24, 0, 0), 24, RTN_BLACKHOLE);
	fb_msg_end(&b, n);
	n->nlmsg_len += 64;
	fb_frame_end(&b);
	CHECK_EQ(fpm_table_frame(tab, b.p + 4, b.len - 4), FPM_E_NLMSG);
	b.len = 0;
	free(b.p);
}

static void test_nexthop_groups(void)
{
	struct fpm_buf b = {0};
	uint32_t ids[2] = {101, 102};

	/*
	 * A replay may send a group before its members, and the route before
	 * either. The route waits; it is installed when the last member comes.
	 */
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_group(&b, 100, 2, ids, NULL));
	fb_frame_end(&b);
	fb_frame_begin(&b);
	struct nlmsghdr *n = fb_route(&b, RTM_NEWROUTE, IP(10, 30, 0, 0), 16, RTN_UNICAST);
	mnl_attr_put_u32(n, RTA_NH_ID, 100);
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop(&b, RTM_NEWNEXTHOP, 101, IP(10, 0, 2, 2), IFX(1), 0));
	fb_frame_end(&b);
	feed(&b);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 30, 0, 1)), 0);
	CHECK_EQ(counters().routes4_pending, 1);
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop(&b, RTM_NEWNEXTHOP, 102, IP(10, 0, 3, 2), IFX(2), 0));
	fb_frame_end(&b);
	feed(&b);
	uint32_t g = fib_lookup(&dp.fib, IP(10, 30, 0, 1));
	CHECK(g != 0);
	CHECK_EQ(dp.nht->nhg[g].npaths, 2);
	CHECK_EQ(counters().routes4_pending, 0);

	/* A member changes its gateway: the route follows without being re-sent. */
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop(&b, RTM_NEWNEXTHOP, 102, IP(10, 0, 1, 2), IFX(0), 0));
	fb_frame_end(&b);
	feed(&b);
	g = fib_lookup(&dp.fib, IP(10, 30, 0, 1));
	unsigned on0 = 0;
	for (unsigned s = 0; g && s < dp.nht->nhg[g].nslots; s++)
		on0 += dp.nht->nh[dp.nht->nhg[g].slot[s]].port == 0;
	CHECK_EQ(on0, 1);

	/* A single-object route, and a route over a member on a foreign interface. */
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop(&b, RTM_NEWNEXTHOP, 103, 0, FOREIGN, 0));
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 31, 0, 0), 16, RTN_UNICAST);
	mnl_attr_put_u32(n, RTA_NH_ID, 101);
	fb_msg_end(&b, n);
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 32, 0, 0), 16, RTN_UNICAST);
	mnl_attr_put_u32(n, RTA_NH_ID, 103);
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	struct fpm_table_counters c = counters();
	feed(&b);
	CHECK(nh_at(IP(10, 31, 0, 1), 0) && nh_at(IP(10, 31, 0, 1), 0)->gw == IP(10, 0, 2, 2));
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 32, 0, 1)), 0);
	CHECK_EQ(counters().rejected[FPM_REJ_IFINDEX], c.rejected[FPM_REJ_IFINDEX] + 1);

	/* zebra deletes an object once its routes are gone; then it is simply forgotten. */
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_route(&b, RTM_DELROUTE, IP(10, 32, 0, 0), 16, 0));
	fb_msg_end(&b, fb_nexthop(&b, RTM_DELNEXTHOP, 103, 0, 0, 0));
	fb_frame_end(&b);
	feed(&b);
	CHECK_EQ(counters().nh_deleted, c.nh_deleted + 1);
	CHECK_EQ(counters().nh_deleted_in_use, c.nh_deleted_in_use);
	free(b.p);
}

/*
 * A reconnect: the old routes keep forwarding (same FIB value, not a
 * re-insert) while zebra replays; what it did not replay goes at the sweep.
 * Object ids are new after a zebra restart: 500 now means what 101 meant.
 */
static void test_resync(void)
{
	struct fpm_buf b = {0};

	route_gw(&b, IP(10, 40, 0, 0), 16, IP(10, 0, 2, 2), 1);
	route_gw(&b, IP(10, 41, 0, 0), 16, IP(10, 0, 2, 2), 1);
	feed(&b);
	uint32_t g40 = fib_lookup(&dp.fib, IP(10, 40, 0, 1));
	uint32_t g30 = fib_lookup(&dp.fib, IP(10, 30, 0, 1));
	CHECK(fpm_table_sweep(tab, 1000)); /* the first session has nothing stale */

	CHECK_EQ(fpm_table_session_start(tab), 0);
	CHECK(counters().stale > 0); /* the first session's routes wait for the sweep */
	uint64_t before = fpm_table_reconfirmed(tab);
	route_gw(&b, IP(10, 40, 0, 0), 16, IP(10, 0, 2, 2), 1);
	route_gw(&b, IP(10, 42, 0, 0), 16, IP(10, 0, 2, 2), 1);
	uint32_t ids[2] = {501, 502};
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop(&b, RTM_NEWNEXTHOP, 501, IP(10, 0, 2, 2), IFX(1), 0));
	fb_msg_end(&b, fb_nexthop(&b, RTM_NEWNEXTHOP, 502, IP(10, 0, 1, 2), IFX(0), 0));
	fb_msg_end(&b, fb_group(&b, 500, 2, ids, NULL));
	struct nlmsghdr *n = fb_route(&b, RTM_NEWROUTE, IP(10, 30, 0, 0), 16, RTN_UNICAST);
	mnl_attr_put_u32(n, RTA_NH_ID, 500);
	fb_msg_end(&b, n);
	/* A route over an object never announced in this session. */
	n = fb_route(&b, RTM_NEWROUTE, IP(10, 31, 0, 0), 16, RTN_UNICAST);
	mnl_attr_put_u32(n, RTA_NH_ID, 777);
	fb_msg_end(&b, n);
	fb_frame_end(&b);
	feed(&b);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 40, 0, 1)), g40);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 30, 0, 1)), g30);
	CHECK(fib_lookup(&dp.fib, IP(10, 41, 0, 1)) != 0); /* stale, still forwarding */
	CHECK(fib_lookup(&dp.fib, IP(10, 31, 0, 1)) != 0); /* waits with its old forwarding */
	CHECK(fib_lookup(&dp.fib, IP(10, 42, 0, 1)) != 0);
	CHECK_EQ(fpm_table_reconfirmed(tab) - before, 3);

	struct fpm_table_counters c = counters();
	while (!fpm_table_sweep(tab, 2))
		;
	struct fpm_table_counters c2 = counters();
	CHECK_EQ(c2.stale, 0);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 41, 0, 1)), 0);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 31, 0, 1)), 0);
	CHECK_EQ(fib_lookup(&dp.fib, IP(10, 40, 0, 1)), g40);
	CHECK_EQ(c2.rejected[FPM_REJ_NEXTHOP], c.rejected[FPM_REJ_NEXTHOP] + 1);
	CHECK(c2.routes_swept > c.routes_swept);
	CHECK_EQ(c2.stale, 0);
	/* The IPv6 route of the first session was not replayed either. */
	CHECK_EQ(c2.routes6, 0);

	/* Once settled, a late object still brings its routes in. */
	fb_frame_begin(&b);
	fb_msg_end(&b, fb_nexthop(&b, RTM_NEWNEXTHOP, 777, IP(10, 0, 3, 2), IFX(2), 0));
	fb_frame_end(&b);
	feed(&b);
	CHECK(nh_at(IP(10, 31, 0, 1), 0) && nh_at(IP(10, 31, 0, 1), 0)->port == 2);
	free(b.p);
}

/* Gauges agree with the RIB; freeing everything leaks nothing (ASan build). */
static void test_counts(void)
{
	struct rib_counts rc;
	struct fpm_table_counters c = counters();

	rib_get_counts(rib, &rc);
	CHECK_EQ(c.routes4_rib, rc.routes[RIB_SRC_FRR]);
	CHECK(c.msgs[FPM_MSG_NEWROUTE] > 0 && c.msgs[FPM_MSG_NEWNEXTHOP] > 0);
	fpm_table_free(tab);
	rib_free(rib);
	dp_fini(&dp);
}

int main(void)
{
	setup();
	test_framing();
	test_decode();
	test_plain_routes();
	test_replace_and_static();
	test_nexthop_groups();
	test_resync();
	test_counts();
	return check_report("test_fpm");
}
