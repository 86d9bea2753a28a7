/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FPM session's route limits (fpm_table_set_limits), bgpd
 * maximum-prefix style: routes past the limit are refused and counted
 * ("limit"), replacing an announced route is still allowed, a withdrawal
 * makes room, IPv6 has its own limit, and an earlier session's stale routes
 * do not count against the new session while it replays.
 */
#include <errno.h>
#include <string.h>

#include "daemon/fpm_table.h"
#include "tests/unit/check.h"
#include "tests/unit/fib_env.h"
#include "tests/unit/fpm_build.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define IFX(port)      (11 + (port))

static struct dataplane dp;
static struct rib *rib;
static struct fpm_table *tab;

static uint64_t seed(void *arg, uint16_t port, uint32_t ip)
{
	return 0;
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

/* 10.100.i.0/24 via 10.0.1.2 on eth0, or its withdrawal. */
static void route4(struct fpm_buf *b, unsigned i, bool del, uint32_t gw)
{
	fb_frame_begin(b);
	struct nlmsghdr *n = fb_route(b, del ? RTM_DELROUTE : RTM_NEWROUTE,
	                              IP(10, 100 + i / 256, i % 256, 0), 24, RTN_UNICAST);
	if (!del)
		fb_gw(n, gw, IFX(0));
	fb_msg_end(b, n);
	fb_frame_end(b);
}

/* 2001:db8:i::/48 on eth0. */
static void route6(struct fpm_buf *b, unsigned i)
{
	uint8_t dst[16] = {0x20, 0x01, 0x0d, 0xb8, (uint8_t)(i >> 8), (uint8_t)i};

	fb_frame_begin(b);
	struct nlmsghdr *n = fb_msg(b, RTM_NEWROUTE, 256);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(n, sizeof(*rtm));
	rtm->rtm_family = AF_INET6, rtm->rtm_dst_len = 48, rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put(n, RTA_DST, 16, dst);
	mnl_attr_put_u32(n, RTA_OIF, IFX(0));
	fb_msg_end(b, n);
	fb_frame_end(b);
}

static bool forwarded(unsigned i)
{
	return fib_lookup(&dp.fib, IP(10, 100 + i / 256, i % 256, 1)) != 0;
}

static void setup(void)
{
	struct rib_path on = {0, 0, 1};

	CHECK_EQ(dp_init(&dp, test_fib_algo(), &(struct fib_params){.tbl8_groups = 256}), 0);
	dp.nports = 1;
	dp.ports[0].ifindex = IFX(0);
	rib = rib_new(&dp, seed, NULL);
	rib_route_set(rib, IP(10, 0, 1, 0), 24, RIB_SRC_CONNECTED, NH_GLEAN, &on, 1);
	tab = fpm_table_new(rib, &dp);
	CHECK(tab != NULL);
	fpm_table_set_limits(tab, 10, 4, 50);
	CHECK_EQ(fpm_table_session_start(tab), 0);
}

static void test_ipv4_limit(void)
{
	struct fpm_buf b = {0};

	for (unsigned i = 0; i < 15; i++)
		route4(&b, i, false, IP(10, 0, 1, 2));
	feed(&b);
	struct fpm_table_counters c = counters();
	CHECK_EQ(c.routes4, 10);
	CHECK_EQ(c.session4, 10);
	CHECK_EQ(c.rejected[FPM_REJ_LIMIT], 5);
	CHECK(forwarded(9) && !forwarded(10) && !forwarded(14));
	/* At the limit, a route the session has may still change. */
	route4(&b, 3, false, IP(10, 0, 1, 3));
	feed(&b);
	CHECK_EQ(counters().rejected[FPM_REJ_LIMIT], 5);
	CHECK_EQ(counters().routes_replaced, 1);
	/* A withdrawal makes room for one more. */
	route4(&b, 0, true, 0);
	route4(&b, 10, false, IP(10, 0, 1, 2));
	route4(&b, 11, false, IP(10, 0, 1, 2));
	feed(&b);
	CHECK(!forwarded(0) && forwarded(10) && !forwarded(11));
	CHECK_EQ(counters().routes4, 10);
	CHECK_EQ(counters().rejected[FPM_REJ_LIMIT], 6);
	free(b.p);
}

static void test_ipv6_limit(void)
{
	struct fpm_buf b = {0};

	for (unsigned i = 0; i < 6; i++)
		route6(&b, i);
	route6(&b, 1); /* a replacement: allowed at the limit */
	feed(&b);
	CHECK_EQ(counters().routes6, 4);
	CHECK_EQ(counters().session6, 4);
	CHECK_EQ(counters().rejected[FPM_REJ_LIMIT], 6 + 2);
	free(b.p);
}

/* A new session replays: the old session's routes are stale and not counted. */
static void test_replay(void)
{
	struct fpm_buf b = {0};

	while (!fpm_table_sweep(tab, 100))
		;
	CHECK_EQ(fpm_table_session_start(tab), 0);
	CHECK_EQ(counters().session4, 0);
	CHECK_EQ(counters().stale, 10 + 4);
	/* Ten other prefixes: all admitted while the ten old ones wait for the sweep. */
	for (unsigned i = 100; i < 110; i++)
		route4(&b, i, false, IP(10, 0, 1, 2));
	/* An old prefix re-announced counts as the session's: the eleventh is refused. */
	route4(&b, 5, false, IP(10, 0, 1, 2));
	feed(&b);
	struct fpm_table_counters c = counters();
	CHECK_EQ(c.session4, 10);
	CHECK_EQ(c.routes4, 20);
	CHECK_EQ(c.rejected[FPM_REJ_LIMIT], 9);
	CHECK(forwarded(5)); /* refused re-announcement: the stale route forwards until the sweep */
	while (!fpm_table_sweep(tab, 100))
		;
	CHECK(!forwarded(5) && forwarded(100) && forwarded(109));
	CHECK_EQ(counters().routes4, 10);
	free(b.p);
}

int main(void)
{
	setup();
	test_ipv4_limit();
	test_ipv6_limit();
	test_replay();
	fpm_table_free(tab);
	rib_free(rib);
	dp_fini(&dp);
	return check_report("test_fpm_limit");
}
