/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 addresses changed at runtime (daemon/addrs6.c), against the state
 * startup builds (routes6.c) and with the netdev replaced by a recorder: an
 * address added gets the netdev address, a local /128 (the workers punt to
 * the kernel) and a glean route for its prefix; removed, all three go, and
 * so do the neighbours on its prefix with their host routes
 * (neigh6_flush_prefix), while neighbours on the port's other prefixes and
 * a prefix another address still holds stay. A netdev that refuses an
 * address leaves nothing behind; an abort after prepare neither. A new
 * prefix length of a kept address is one replaced netdev address. What the
 * workers read follows (port_ip6_src, port_ip6_on): the first address gone,
 * the next one is the ICMPv6 and solicitation source; a port without IPv6
 * that gets an address forwards IPv6, solicits and has its routes, and
 * losing the last stops all that and forgets every neighbour of the port.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/addrs6.h"
#include "daemon/neigh6.h"
#include "daemon/routes6.h"
#include "datapath/icmp6.h"
#include "datapath/nd.h"
#include "lib/addr.h"
#include "tests/unit/check.h"
#include "tests/unit/check_ip6.h"

static struct dataplane dp;
static struct cfg cur, next;
static struct rib *rib;
static struct rib6 *r6;
static struct neigh6_table *nt;
static const uint8_t peer_mac[6] = {0x02, 0xbb, 0, 0, 0, 0x05};

/* The netdev calls, as "add 11 2001:db8:7::1/64" lines; fail_on: an address to refuse. */
static char calls[1024];
static const char *fail_on;

static int fake_kernel(int ifindex, const uint8_t addr[16], uint8_t plen, bool add)
{
	char ip[INET6_ADDRSTRLEN], line[96];

	inet_str(AF_INET6, addr, ip, sizeof(ip));
	if (add && fail_on && !strcmp(ip, fail_on))
		return -EADDRNOTAVAIL;
	snprintf(line, sizeof(line), "%s %d %s/%u;", add ? "add" : "del", ifindex, ip, plen);
	strncat(calls, line, sizeof(calls) - strlen(calls) - 1);
	return 0;
}

static const struct addrs6_env env = {.dp = &dp, .kernel = fake_kernel};
static struct addrs6_env envn;

static int sent_ns;
static uint16_t ns_port;
static uint8_t ns_src[16]; /* the IPv6 source of the last solicitation */

static int capture(void *arg, uint16_t port, const uint8_t *frame, uint32_t len)
{
	(void)arg;
	sent_ns++;
	ns_port = port;
	if (len >= 14 + 40)
		memcpy(ns_src, frame + 14 + 8, 16);
	return 0;
}

static uint64_t no_seed(void *arg, uint16_t port, uint32_t ip)
{
	(void)arg, (void)port, (void)ip;
	return 0;
}

static const struct nexthop *route_nh(const char *addr)
{
	uint32_t g = fib6_lookup(dp.fib6, a6(addr));

	return g ? &dp.nht->nh[dp.nht->nhg[g].slot[0]] : NULL;
}

static void set_addr(struct cfg_addr6 *a, const char *ip, uint8_t plen)
{
	memcpy(a->addr, a6(ip), 16);
	a->plen = plen;
}

static void learn(uint16_t port, const char *ip, uint64_t now)
{
	neigh6_resolve(nt, port, a6(ip), now);
	neigh6_seen(nt, port, a6(ip), peer_mac, ICMP6_NEIGH_ADV, ND_NA_SOLICITED | ND_NA_OVERRIDE,
	            now + 10);
}

static const char *state(uint16_t port, const char *ip)
{
	uint8_t m[6];

	return neigh6_state(nt, port, a6(ip), m);
}

/* A whole change: prepare, then commit; next becomes cur. */
static int change(void)
{
	char msg[256] = "", path[256] = "";
	int e;

	calls[0] = 0;
	e = addrs6_prepare(&envn, &cur, &next, msg, sizeof(msg), path, sizeof(path));
	if (e == 0) {
		addrs6_commit(&envn, &cur, &next);
		cur = next;
	}
	return e;
}

static void test_add_remove(void)
{
	const struct nexthop *nh;

	/* A second address on eth1, on a new prefix. */
	next = cur;
	set_addr(&next.ports[1].addrs6[1], "2001:db8:7::1", 64);
	next.ports[1].naddrs6 = 2;
	CHECK_EQ(change(), 0);
	CHECK(!strcmp(calls, "add 11 2001:db8:7::1/64;"));
	nh = route_nh("2001:db8:7::1");
	CHECK(nh && nh->type == NH_LOCAL);
	nh = route_nh("2001:db8:7::5");
	CHECK(nh && nh->type == NH_GLEAN && nh->port == 1);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:7::"), 64), RIB_SRC_CONNECTED);

	/* Neighbours on both of eth1's prefixes, and one on eth0's. */
	learn(1, "2001:db8:7::5", 1000);
	learn(1, "2001:db8:2::9", 1000);
	learn(0, "2001:db8:1::9", 1000);
	CHECK(!strcmp(state(1, "2001:db8:7::5"), "reachable"));
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:7::5"), 128), RIB_SRC_NEIGH);

	/* Unchanged addresses: nothing to do. */
	next = cur;
	CHECK_EQ(change(), 0);
	CHECK(!strcmp(calls, ""));

	/* Removed again: netdev, routes and that prefix's neighbours go; the rest stays. */
	next.ports[1].naddrs6 = 1;
	CHECK_EQ(change(), 0);
	CHECK(!strcmp(calls, "del 11 2001:db8:7::1/64;"));
	CHECK(route_nh("2001:db8:7::1") == NULL);
	CHECK(route_nh("2001:db8:7::5") == NULL);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:7::1"), 128), -1);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:7::5"), 128), -1);
	CHECK(!strcmp(state(1, "2001:db8:7::5"), "none"));
	CHECK(!strcmp(state(1, "2001:db8:2::9"), "reachable"));
	CHECK(!strcmp(state(0, "2001:db8:1::9"), "reachable"));
	nh = route_nh("2001:db8:2::9");
	CHECK(nh && nh->type == NH_GATEWAY && nh->port == 1); /* its host route */
}

/* Two addresses on one prefix: removing one keeps the prefix and its neighbours. */
static void test_shared_prefix(void)
{
	next = cur;
	set_addr(&next.ports[1].addrs6[1], "2001:db8:2::100", 64);
	next.ports[1].naddrs6 = 2;
	CHECK_EQ(change(), 0);
	CHECK(!strcmp(calls, "add 11 2001:db8:2::100/64;"));
	CHECK(route_nh("2001:db8:2::100") && route_nh("2001:db8:2::100")->type == NH_LOCAL);
	next.ports[1].naddrs6 = 1;
	CHECK_EQ(change(), 0);
	CHECK(!strcmp(calls, "del 11 2001:db8:2::100/64;"));
	CHECK(route_nh("2001:db8:2::100") && route_nh("2001:db8:2::100")->type == NH_GLEAN);
	CHECK(!strcmp(state(1, "2001:db8:2::9"), "reachable"));
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:2::"), 64), RIB_SRC_CONNECTED);
}

/* The netdev refuses the second of two new addresses: the first is taken back, nothing routed. */
static void test_prepare_fails(void)
{
	char msg[256] = "", path[256] = "";

	next = cur;
	set_addr(&next.ports[0].addrs6[1], "2001:db8:8::1", 64);
	set_addr(&next.ports[1].addrs6[1], "2001:db8:9::1", 64);
	next.ports[0].naddrs6 = next.ports[1].naddrs6 = 2;
	fail_on = "2001:db8:9::1";
	calls[0] = 0;
	CHECK(addrs6_prepare(&envn, &cur, &next, msg, sizeof(msg), path, sizeof(path)) ==
	      -EADDRNOTAVAIL);
	fail_on = NULL;
	CHECK(!strcmp(calls, "add 10 2001:db8:8::1/64;del 10 2001:db8:8::1/64;"));
	CHECK(strstr(msg, "port eth1") && strstr(msg, "2001:db8:9::1/64"));
	CHECK(
	    !strcmp(path, "/cellgate:cellgate/port[name='eth1']/ipv6/address[ip='2001:db8:9::1']"));
	CHECK(route_nh("2001:db8:8::1") == NULL);

	/* Prepared, then a later part failed: abort takes the netdev addresses back. */
	calls[0] = 0;
	CHECK_EQ(addrs6_prepare(&envn, &cur, &next, msg, sizeof(msg), path, sizeof(path)), 0);
	addrs6_abort(&envn, &cur, &next);
	CHECK(!strcmp(calls, "add 10 2001:db8:8::1/64;add 11 2001:db8:9::1/64;"
	                     "del 10 2001:db8:8::1/64;del 11 2001:db8:9::1/64;"));
	CHECK(route_nh("2001:db8:9::1") == NULL);
}

/* The first address's prefix length: one replaced netdev address, the routes follow. */
static void test_prefix_length(void)
{
	char msg[256], path[256];
	const struct nexthop *nh;

	next = cur;
	next.ports[0].addrs6[0].plen = 56;
	calls[0] = 0;
	CHECK_EQ(addrs6_prepare(&envn, &cur, &next, msg, sizeof(msg), path, sizeof(path)), 0);
	addrs6_abort(&envn, &cur, &next);
	CHECK(!strcmp(calls, "add 10 2001:db8:1::1/56;add 10 2001:db8:1::1/64;"));
	CHECK_EQ(change(), 0);
	CHECK(!strcmp(calls, "add 10 2001:db8:1::1/56;"));
	nh = route_nh("2001:db8:1::1");
	CHECK(nh && nh->type == NH_LOCAL);
	nh = route_nh("2001:db8:1:ff::5");
	CHECK(nh && nh->type == NH_GLEAN && nh->port == 0);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:1::"), 64), -1);
	/* The neighbour is still on the (wider) prefix. */
	CHECK(!strcmp(state(0, "2001:db8:1::9"), "reachable"));
}

static bool src_is(unsigned port, const char *ip)
{
	const uint8_t *src = port_ip6_src(&dp.ports[port]);

	return src && !memcmp(src, a6(ip), 16);
}

/* The first address removed, the second stays: the second is the source from now on. */
static void test_first_address(void)
{
	next = cur;
	set_addr(&next.ports[0].addrs6[1], "2001:db8:11::1", 64);
	next.ports[0].naddrs6 = 2;
	CHECK_EQ(change(), 0);
	CHECK(src_is(0, "2001:db8:1::1")); /* a second address changes nothing */
	next.ports[0].addrs6[0] = next.ports[0].addrs6[1];
	next.ports[0].naddrs6 = 1;
	CHECK_EQ(change(), 0);
	CHECK(!strcmp(calls, "del 10 2001:db8:1::1/56;"));
	CHECK(src_is(0, "2001:db8:11::1") && port_ip6_on(&dp.ports[0]));
	CHECK(route_nh("2001:db8:1::1") == NULL);
	CHECK(route_nh("2001:db8:11::1") && route_nh("2001:db8:11::1")->type == NH_LOCAL);
	/* Solicitations leave from it too. */
	sent_ns = 0;
	neigh6_resolve(nt, 0, a6("2001:db8:11::20"), 5000);
	CHECK(sent_ns == 1 && ns_port == 0 && !memcmp(ns_src, a6("2001:db8:11::1"), 16));
}

/* eth2 starts without IPv6, gets an address, then loses it again. */
static void test_enable_disable(void)
{
	const struct nexthop *nh;

	CHECK(!port_ip6_on(&dp.ports[2]) && port_ip6_src(&dp.ports[2]) == NULL);
	sent_ns = 0;
	neigh6_resolve(nt, 2, a6("2001:db8:30::9"), 6000);
	CHECK_EQ(sent_ns, 0); /* no IPv6 there: nothing solicited */

	next = cur;
	set_addr(&next.ports[2].addrs6[0], "2001:db8:30::1", 64);
	next.ports[2].naddrs6 = 1;
	CHECK_EQ(change(), 0);
	CHECK(!strcmp(calls, "add 12 2001:db8:30::1/64;"));
	CHECK(port_ip6_on(&dp.ports[2]) && src_is(2, "2001:db8:30::1"));
	nh = route_nh("2001:db8:30::1");
	CHECK(nh && nh->type == NH_LOCAL);
	nh = route_nh("2001:db8:30::9");
	CHECK(nh && nh->type == NH_GLEAN && nh->port == 2);
	sent_ns = 0;
	learn(2, "2001:db8:30::9", 6000);
	learn(2, "fe80::9", 6000); /* a link-local next hop (FRR's), on no prefix of ours */
	CHECK(sent_ns == 2 && ns_port == 2 && !memcmp(ns_src, a6("2001:db8:30::1"), 16));
	CHECK(!strcmp(state(2, "2001:db8:30::9"), "reachable"));
	CHECK(!strcmp(state(2, "fe80::9"), "reachable"));
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:30::9"), 128), RIB_SRC_NEIGH);

	next.ports[2].naddrs6 = 0;
	CHECK_EQ(change(), 0);
	CHECK(!strcmp(calls, "del 12 2001:db8:30::1/64;"));
	CHECK(!port_ip6_on(&dp.ports[2]) && port_ip6_src(&dp.ports[2]) == NULL);
	CHECK(route_nh("2001:db8:30::1") == NULL && route_nh("2001:db8:30::9") == NULL);
	CHECK_EQ(rib6_route_best(r6, a6("2001:db8:30::9"), 128), -1);
	CHECK(!strcmp(state(2, "2001:db8:30::9"), "none"));
	CHECK(!strcmp(state(2, "fe80::9"), "none"));
	/* The other ports are untouched. */
	CHECK(port_ip6_on(&dp.ports[1]) && src_is(1, "2001:db8:2::1"));
	CHECK(!strcmp(state(1, "2001:db8:2::9"), "reachable"));
	sent_ns = 0;
	neigh6_resolve(nt, 2, a6("2001:db8:30::9"), 7000);
	CHECK_EQ(sent_ns, 0);

	/* And back: the port forwards IPv6 again from its new first address. */
	set_addr(&next.ports[2].addrs6[0], "2001:db8:31::1", 64);
	next.ports[2].naddrs6 = 1;
	CHECK_EQ(change(), 0);
	CHECK(port_ip6_on(&dp.ports[2]) && src_is(2, "2001:db8:31::1"));
}

int main(void)
{
	CHECK_EQ(dp_init(&dp, NULL, &(struct fib_params){.tbl8_groups = 64}), 0);
	dp.nports = 3;
	cur.nports = 3; /* eth2 without IPv6 */
	for (unsigned i = 0; i < 3; i++) {
		snprintf(dp.ports[i].name, sizeof(dp.ports[i].name), "eth%u", i);
		snprintf(dp.ports[i].netdev, sizeof(dp.ports[i].netdev), "r-h%u", i + 1);
		snprintf(cur.ports[i].name, sizeof(cur.ports[i].name), "eth%u", i);
		dp.ports[i].ifindex = 10 + (int)i;
		dp.ports[i].mac[5] = (uint8_t)(i + 1);
		cur.ports[i].naddrs6 = i < 2;
	}
	set_addr(&cur.ports[0].addrs6[0], "2001:db8:1::1", 64);
	set_addr(&cur.ports[1].addrs6[0], "2001:db8:2::1", 64);
	cur.arp_timeout_s = 300;
	cur.arp_retries = 3;
	rib = rib_new(&dp, no_seed, NULL);
	r6 = rib6_new(rib, NULL, NULL);
	nt = neigh6_new(&dp, &cur, r6);
	CHECK(rib && r6 && nt);
	rib6_set_seed(r6, neigh6_l2_seed, nt);
	neigh6_set_sender(nt, capture, NULL);
	/* What startup does (main.c). */
	routes6_ports_setup(&dp, &cur);
	CHECK_EQ(routes6_apply_config(r6, &dp, &cur), 0);
	envn = env;
	envn.rib6 = r6;
	envn.neigh6 = nt;

	test_add_remove();
	test_shared_prefix();
	test_prepare_fails();
	test_prefix_length();
	CHECK(sent_ns > 0);
	test_first_address();
	test_enable_disable();
	neigh6_free(nt);
	rib6_free(r6);
	rib_free(rib);
	dp_fini(&dp);
	return check_report("test_neigh6_addrs");
}
