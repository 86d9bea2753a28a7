/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Neighbour discovery (RFC 4861): solicited-node groups and their MACs, the
 * NS and NA a router sends (the R/S/O flags of §7.2.4 and §7.2.6, options,
 * checksums), every receive check of §7.1, and the NUD state machine of §7.3
 * and Appendix C with the §10 constants.
 */
#include <arpa/inet.h>
#include <string.h>

#include "datapath/csum.h"
#include "datapath/icmp6.h"
#include "datapath/ip6.h"
#include "datapath/nd.h"
#include "tests/unit/check.h"

static const uint8_t our_mac[6] = {0x02, 0xcc, 0, 0, 0, 0x01};
static const uint8_t host_mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
static const uint8_t other_mac[6] = {0x02, 0x99, 0x99, 0x99, 0x99, 0x99};

static void addr(uint8_t *out, const char *s)
{
	if (inet_pton(AF_INET6, s, out) != 1) {
		fprintf(stderr, "bad test address %s\n", s);
		check_failed++;
	}
}

/* The ICMPv6 checksum the long way (RFC 8200 §8.1), apart from icmp6_csum(). */
static uint16_t naive_csum(const uint8_t *ip)
{
	uint32_t len = rd16(ip + 4);
	uint8_t ph[40 + 256];

	memcpy(ph, ip + 8, 32);
	wr32(ph + 32, len);
	memset(ph + 36, 0, 3);
	ph[39] = IP6_NH_ICMPV6;
	memcpy(ph + 40, ip + 40, len);
	return csum_compute(ph, 40 + len);
}

static void refresh_csum(uint8_t *ip)
{
	wr16(ip + 42, 0);
	wr16(ip + 42, icmp6_csum(ip, ip + 40, rd16(ip + 4)));
}

static void test_multicast(void)
{
	uint8_t a[16], g[16], want[16], mac[6];
	static const uint8_t sn_mac[6] = {0x33, 0x33, 0xff, 0x0e, 0x8c, 0x6c};
	static const uint8_t all_mac[6] = {0x33, 0x33, 0, 0, 0, 1};

	/* RFC 4291 §2.7.1's example: 4037::01:800:200E:8C6C -> FF02::1:FF0E:8C6C. */
	addr(a, "4037::1:800:200e:8c6c");
	addr(want, "ff02::1:ff0e:8c6c");
	nd_solicited_node(a, g);
	CHECK(memcmp(g, want, 16) == 0);
	nd_mcast_mac(g, mac);
	CHECK(memcmp(mac, sn_mac, 6) == 0);
	nd_mcast_mac(nd_all_nodes, mac); /* RFC 2464 §7 */
	CHECK(memcmp(mac, all_mac, 6) == 0);
	addr(want, "ff02::1");
	CHECK(memcmp(nd_all_nodes, want, 16) == 0);
}

/* Fields every NS/NA we send has (RFC 4861 §4.3, §4.4, §7.1). */
static void check_frame(const uint8_t *f, uint32_t flen, const uint8_t *eth_dst, uint8_t type,
                        bool has_opt)
{
	const uint8_t *ip = f + 14;

	CHECK_EQ(flen, 14 + 40 + 24 + (has_opt ? 8 : 0));
	CHECK(memcmp(f, eth_dst, 6) == 0);
	CHECK_EQ(rd16(f + 12), ETHERTYPE_IPV6);
	CHECK_EQ(rd32(ip), 6u << 28);
	CHECK_EQ(rd16(ip + 4), 24 + (has_opt ? 8 : 0));
	CHECK_EQ(ip[6], IP6_NH_ICMPV6);
	CHECK_EQ(ip[7], 255);
	CHECK_EQ(ip[40], type);
	CHECK_EQ(ip[41], 0);
	CHECK_EQ(naive_csum(ip), 0);
	CHECK_EQ(ip[44] & 0x1f, 0); /* reserved bits after R/S/O, and all of an NS's */
	CHECK_EQ(ip[45] | ip[46] | ip[47], 0);
}

static void test_ns_build(void)
{
	uint8_t f[ND_FRAME_MAX], src[16], target[16], group[16], gmac[6];
	struct nd_msg m;
	uint32_t len;

	addr(src, "fe80::cc:1");
	addr(target, "2001:db8:1::42");
	nd_solicited_node(target, group);
	nd_mcast_mac(group, gmac);

	/* Address resolution: to the solicited-node group, with our SLLA. */
	len = nd_ns_build(f, our_mac, NULL, src, target);
	check_frame(f, len, gmac, ICMP6_NEIGH_SOL, true);
	CHECK(memcmp(f + 6, our_mac, 6) == 0);
	CHECK(memcmp(f + 14 + 8, src, 16) == 0);
	CHECK(memcmp(f + 14 + 24, group, 16) == 0);
	CHECK(memcmp(f + 14 + 48, target, 16) == 0);
	CHECK_EQ(f[14 + 64], ND_OPT_SLLA);
	CHECK_EQ(f[14 + 65], 1);
	CHECK(memcmp(f + 14 + 66, our_mac, 6) == 0);
	CHECK_EQ(nd_parse(f + 14, len - 14, &m), ND_OK);
	CHECK_EQ(m.type, ICMP6_NEIGH_SOL);
	CHECK(m.has_lla && memcmp(m.lla, our_mac, 6) == 0);
	CHECK(memcmp(m.target, target, 16) == 0);

	/* Unreachability probe: unicast to the target's cached MAC. */
	len = nd_ns_build(f, our_mac, host_mac, src, target);
	check_frame(f, len, host_mac, ICMP6_NEIGH_SOL, true);
	CHECK(memcmp(f + 14 + 24, target, 16) == 0);
	CHECK_EQ(nd_parse(f + 14, len - 14, &m), ND_OK);

	/* Duplicate address detection: from ::, and then without SLLA (§4.3). */
	memset(src, 0, 16);
	len = nd_ns_build(f, our_mac, NULL, src, target);
	check_frame(f, len, gmac, ICMP6_NEIGH_SOL, false);
	CHECK_EQ(nd_parse(f + 14, len - 14, &m), ND_OK);
	CHECK(!m.has_lla);
}

/* An NS from a host, as parsed: src (NULL = ::), to dst, SLLA when given. */
static void host_ns(struct nd_msg *ns, const char *src, const char *dst, const uint8_t *slla)
{
	*ns = (struct nd_msg){.type = ICMP6_NEIGH_SOL, .has_lla = slla != NULL};
	if (src)
		addr(ns->src, src);
	addr(ns->dst, dst);
	addr(ns->target, "2001:db8:1::1");
	if (slla)
		memcpy(ns->lla, slla, 6);
}

static void check_na(const uint8_t *f, uint32_t len, const uint8_t *eth_dst, const char *ip_dst,
                     uint8_t flags)
{
	uint8_t want[16], target[16];
	struct nd_msg m;

	addr(want, ip_dst);
	addr(target, "2001:db8:1::1");
	check_frame(f, len, eth_dst, ICMP6_NEIGH_ADV, true);
	CHECK_EQ(f[14 + 44], flags);
	CHECK(memcmp(f + 14 + 8, target, 16) == 0); /* from the target address itself */
	CHECK(memcmp(f + 14 + 24, want, 16) == 0);
	CHECK_EQ(f[14 + 64], ND_OPT_TLLA); /* MUST for a multicast NS, SHOULD otherwise */
	CHECK(memcmp(f + 14 + 66, our_mac, 6) == 0);
	CHECK_EQ(nd_parse(f + 14, len - 14, &m), ND_OK);
	CHECK_EQ(m.flags, flags);
	CHECK(m.has_lla && memcmp(m.lla, our_mac, 6) == 0);
}

static void test_na_build(void)
{
	static const uint8_t all_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
	uint8_t f[ND_FRAME_MAX], target[16];
	struct nd_msg ns;
	uint32_t len;

	/* A host resolving us (multicast NS with SLLA): R S O, unicast back to its SLLA. */
	host_ns(&ns, "2001:db8:1::99", "ff02::1:ff00:1", host_mac);
	len = nd_na_reply_build(f, &ns, other_mac, our_mac, true, true);
	check_na(f, len, host_mac, "2001:db8:1::99",
	         ND_NA_ROUTER | ND_NA_SOLICITED | ND_NA_OVERRIDE);
	/* A host probing us (unicast NS, no SLLA): S still set, to the frame's source MAC. */
	host_ns(&ns, "fe80::99", "2001:db8:1::1", NULL);
	len = nd_na_reply_build(f, &ns, other_mac, our_mac, true, true);
	check_na(f, len, other_mac, "fe80::99", ND_NA_ROUTER | ND_NA_SOLICITED | ND_NA_OVERRIDE);
	/* DAD of our address: to all nodes, S clear (§7.2.4). */
	host_ns(&ns, NULL, "ff02::1:ff00:1", NULL);
	len = nd_na_reply_build(f, &ns, other_mac, our_mac, true, true);
	check_na(f, len, all_mac, "ff02::1", ND_NA_ROUTER | ND_NA_OVERRIDE);
	/* An anycast or proxied target: O clear; a host (not us) would clear R. */
	host_ns(&ns, "2001:db8:1::99", "ff02::1:ff00:1", host_mac);
	len = nd_na_reply_build(f, &ns, other_mac, our_mac, true, false);
	check_na(f, len, host_mac, "2001:db8:1::99", ND_NA_ROUTER | ND_NA_SOLICITED);
	len = nd_na_reply_build(f, &ns, other_mac, our_mac, false, true);
	check_na(f, len, host_mac, "2001:db8:1::99", ND_NA_SOLICITED | ND_NA_OVERRIDE);
	/* Unsolicited (§7.2.6): to all nodes, S clear. */
	addr(target, "2001:db8:1::1");
	len = nd_na_unsolicited_build(f, our_mac, target, true, true);
	check_na(f, len, all_mac, "ff02::1", ND_NA_ROUTER | ND_NA_OVERRIDE);
}

/* A host's NA to us (unicast, S O) with TLLA, as the IPv6 packet; returns its length. */
static uint32_t host_na(uint8_t *ip)
{
	uint8_t f[ND_FRAME_MAX], target[16];
	struct nd_msg ns;
	uint32_t len;

	addr(target, "2001:db8:1::1");
	host_ns(&ns, "2001:db8:1::99", "ff02::1:ff00:1", host_mac);
	len = nd_na_reply_build(f, &ns, other_mac, our_mac, false, true);
	memcpy(ip, f + 14, len - 14);
	return len - 14;
}

static void test_parse_errors(void)
{
	uint8_t ip[256];
	struct nd_msg m;
	uint32_t len;

	len = host_na(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_OK);
	CHECK_EQ(nd_parse(ip, len + 18, &m), ND_OK); /* Ethernet padding */
	CHECK_EQ(nd_parse(ip, len - 1, &m), ND_ERR_MALFORMED);
	ip[7] = 254; /* routed from elsewhere: §7.1.2 */
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_HOP_LIMIT);
	ip[7] = 255;
	ip[60] ^= 0x40; /* a flipped bit in the target */
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_CHECKSUM);
	ip[60] ^= 0x40;
	ip[41] = 1;
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_CODE);
	ip[41] = 0;
	ip[48] = 0xff; /* multicast target */
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_TARGET);

	len = host_na(ip);
	addr(ip + 8, "ff06::3d00"); /* multicast source (RFC 4291 §2.7) */
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_SOURCE);

	len = host_na(ip);
	ip[65] = 0; /* option length 0 */
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_OPTION);
	ip[65] = 2; /* 16 octets, past the message */
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_OPTION);
	ip[64] = 14; /* an option we do not know (Nonce, RFC 3971): skipped */
	ip[65] = 1;
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_OK);
	CHECK(!m.has_lla);

	len = host_na(ip);
	wr16(ip + 4, 20); /* ICMPv6 of 20 octets */
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_LENGTH);
}

static void test_parse_forms(void)
{
	uint8_t ip[256], f[ND_FRAME_MAX], src[16], target[16];
	struct nd_msg m;
	uint32_t len;

	/* A solicited advertisement to a multicast group is wrong (§7.1.2). */
	len = host_na(ip);
	addr(ip + 24, "ff02::1");
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_SOLICITED);
	ip[44] &= ~ND_NA_SOLICITED;
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_OK);

	/* A multicast source (RFC 4291 2.7): an answer would go to a group with S set. */
	addr(src, "ff02::1");
	addr(target, "2001:db8:1::42");
	len = nd_ns_build(f, our_mac, NULL, src, target) - 14;
	memcpy(ip, f + 14, len);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_SOURCE);
	len = host_na(ip);
	addr(ip + 8, "ff05::2");
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_SOURCE);

	/* DAD probes: to a solicited-node group only, never with an SLLA (§7.1.1). */
	memset(src, 0, 16);
	addr(target, "2001:db8:1::42");
	len = nd_ns_build(f, our_mac, NULL, src, target) - 14;
	memcpy(ip, f + 14, len);
	addr(ip + 24, "ff02::1");
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_DAD);
	addr(src, "fe80::1");
	len = nd_ns_build(f, our_mac, NULL, src, target) - 14;
	memcpy(ip, f + 14, len);
	memset(ip + 8, 0, 16);
	refresh_csum(ip);
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_DAD);

	/* Neither NS nor NA, a fragment (RFC 6980), not IPv6. */
	len = host_na(ip);
	ip[40] = ICMP6_ECHO_REQUEST;
	CHECK_EQ(nd_parse(ip, len, &m), ND_ERR_TYPE);
	len = host_na(ip);
	memmove(ip + 48, ip + 40, len - 40);
	memset(ip + 40, 0, 8);
	ip[40] = IP6_NH_ICMPV6;
	ip[6] = IP6_NH_FRAGMENT;
	wr16(ip + 4, (uint16_t)(rd16(ip + 4) + 8));
	CHECK_EQ(nd_parse(ip, len + 8, &m), ND_ERR_FRAGMENT);
	ip[0] = 0x45;
	CHECK_EQ(nd_parse(ip, len + 8, &m), ND_ERR_MALFORMED);
	CHECK(strcmp(nd_error_name[ND_ERR_HOP_LIMIT], "nd-hop-limit") == 0);
}

/* ---- NUD ---- */

static const struct nud_params P = NUD_PARAMS_DEFAULT;

static void test_nud_resolution(void)
{
	struct nud n = {0};
	uint64_t t = 1000;
	unsigned sent = 1;

	CHECK_EQ(P.reachable_ms, 30000);
	CHECK_EQ(P.retrans_ms, 1000);
	CHECK_EQ(P.delay_ms, 5000);
	/* §7.2.2: MAX_MULTICAST_SOLICIT solicitations RetransTimer apart, then failure. */
	CHECK_EQ(nud_resolve(&n, &P, t), NUD_ACT_SEND_MCAST_NS);
	CHECK_EQ(n.state, NUD_INCOMPLETE);
	CHECK_EQ(n.deadline_ms, t + 1000);
	CHECK_EQ(nud_resolve(&n, &P, t + 10), 0); /* more packets just wait */
	CHECK_EQ(nud_timer(&n, &P, t + 999), 0);
	for (;;) {
		unsigned act = nud_timer(&n, &P, n.deadline_ms);

		if (act == NUD_ACT_FAILED)
			break;
		CHECK_EQ(act, NUD_ACT_SEND_MCAST_NS);
		sent++;
		if (sent > 10)
			break;
	}
	CHECK_EQ(sent, ND_MAX_MULTICAST_SOLICIT);
	CHECK_EQ(n.state, NUD_NONE);
	CHECK_EQ(n.deadline_ms, 0);

	/* Answered: solicited -> REACHABLE, unsolicited -> STALE, no TLLA -> nothing. */
	n = (struct nud){0};
	nud_resolve(&n, &P, t);
	CHECK_EQ(nud_on_na(&n, &P, t + 5, ND_NA_SOLICITED | ND_NA_OVERRIDE, NULL), 0);
	CHECK_EQ(n.state, NUD_INCOMPLETE);
	CHECK_EQ(nud_on_na(&n, &P, t + 5, ND_NA_SOLICITED | ND_NA_ROUTER, host_mac),
	         NUD_ACT_RELEASE | NUD_ACT_LLA_CHANGED);
	CHECK_EQ(n.state, NUD_REACHABLE);
	CHECK_EQ(n.deadline_ms, t + 5 + 30000);
	CHECK(n.is_router);
	CHECK(memcmp(n.lla, host_mac, 6) == 0);
	n = (struct nud){0};
	nud_resolve(&n, &P, t);
	CHECK_EQ(nud_on_na(&n, &P, t, ND_NA_OVERRIDE, host_mac),
	         NUD_ACT_RELEASE | NUD_ACT_LLA_CHANGED);
	CHECK_EQ(n.state, NUD_STALE);
	CHECK(!n.is_router);
	/* §7.2.5: an advertisement for a neighbour we have no entry for is dropped. */
	n = (struct nud){0};
	CHECK_EQ(nud_on_na(&n, &P, t, ND_NA_SOLICITED, host_mac), 0);
	CHECK_EQ(n.state, NUD_NONE);
}

static void test_nud_probe(void)
{
	struct nud n = {.state = NUD_REACHABLE, .deadline_ms = 31000};
	uint64_t t;
	unsigned probes = 0, act;

	memcpy(n.lla, host_mac, 6);
	CHECK_EQ(nud_timer(&n, &P, 31000), 0);
	CHECK_EQ(n.state, NUD_STALE);
	CHECK_EQ(n.deadline_ms, 0); /* STALE waits for traffic, with no timer */
	CHECK(nud_usable(NUD_STALE));
	/* §7.3.3: traffic to a STALE entry uses it and gives upper layers 5 s to confirm. */
	CHECK_EQ(nud_resolve(&n, &P, 40000), 0);
	CHECK_EQ(n.state, NUD_DELAY);
	CHECK_EQ(n.deadline_ms, 45000);
	CHECK_EQ(nud_confirm(&n, &P, 41000), 0);
	CHECK_EQ(n.state, NUD_REACHABLE);
	CHECK_EQ(n.deadline_ms, 71000);
	nud_timer(&n, &P, 71000);
	nud_resolve(&n, &P, 80000);
	/* No confirmation: PROBE, MAX_UNICAST_SOLICIT unicast NS, then the entry goes. */
	t = n.deadline_ms;
	CHECK_EQ(nud_timer(&n, &P, t), NUD_ACT_SEND_UCAST_NS);
	CHECK_EQ(n.state, NUD_PROBE);
	probes = 1;
	while ((act = nud_timer(&n, &P, n.deadline_ms)) == NUD_ACT_SEND_UCAST_NS && probes < 10)
		probes++;
	CHECK_EQ(act, NUD_ACT_FAILED);
	CHECK_EQ(probes, ND_MAX_UNICAST_SOLICIT);
	CHECK_EQ(n.state, NUD_NONE);
	CHECK(!nud_usable(NUD_NONE) && !nud_usable(NUD_INCOMPLETE));

	/* PROBE answered (same MAC, solicited): REACHABLE again, nothing to publish. */
	n = (struct nud){.state = NUD_PROBE, .probes = 2, .deadline_ms = 5};
	memcpy(n.lla, host_mac, 6);
	CHECK_EQ(nud_on_na(&n, &P, 100, ND_NA_SOLICITED, host_mac), 0);
	CHECK_EQ(n.state, NUD_REACHABLE);
	CHECK_EQ(n.probes, 0);
}

struct na_case {
	uint8_t state;
	uint8_t flags;
	const uint8_t *tlla;
	uint8_t want_state;
	bool want_new_mac;
	unsigned want_act;
};

/* §7.2.5 on an entry with host_mac cached, as Appendix C tabulates it. */
static void test_nud_na_rules(void)
{
	const uint8_t S = ND_NA_SOLICITED, O = ND_NA_OVERRIDE;
	const struct na_case cases[] = {
	    {NUD_REACHABLE, 0, other_mac, NUD_STALE, false, 0}, /* O=0, new MAC: suspect */
	    {NUD_STALE, 0, other_mac, NUD_STALE, false, 0},     /* ... and not believed */
	    {NUD_DELAY, S, other_mac, NUD_DELAY, false, 0},
	    {NUD_REACHABLE, O, other_mac, NUD_STALE, true, NUD_ACT_LLA_CHANGED},
	    {NUD_PROBE, S | O, other_mac, NUD_REACHABLE, true, NUD_ACT_LLA_CHANGED},
	    {NUD_STALE, S, host_mac, NUD_REACHABLE, false, 0},     /* same MAC, solicited */
	    {NUD_STALE, S, NULL, NUD_REACHABLE, false, 0},         /* no TLLA, solicited */
	    {NUD_REACHABLE, O, host_mac, NUD_REACHABLE, false, 0}, /* same MAC, unsolicited */
	    {NUD_DELAY, 0, NULL, NUD_DELAY, false, 0},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct na_case *c = &cases[i];
		struct nud n = {.state = c->state, .deadline_ms = 77};
		unsigned act;

		memcpy(n.lla, host_mac, 6);
		act = nud_on_na(&n, &P, 1000, c->flags, c->tlla);
		if (n.state != c->want_state || act != c->want_act)
			fprintf(stderr, "NA case %u\n", i);
		CHECK_EQ(n.state, c->want_state);
		CHECK_EQ(act, c->want_act);
		CHECK(memcmp(n.lla, c->want_new_mac ? other_mac : host_mac, 6) == 0);
		/* Only a solicited answer confirms reachability and restarts the clock. */
		if (c->flags & S && c->want_state == NUD_REACHABLE)
			CHECK_EQ(n.deadline_ms, 1000 + 30000);
		else if (c->want_state == NUD_REACHABLE)
			CHECK_EQ(n.deadline_ms, 77);
	}
}

/* §7.2.3: a solicitation's SLLA creates or refreshes the entry as STALE. */
static void test_nud_ns(void)
{
	struct nud n = {0};

	CHECK_EQ(nud_on_ns(&n, host_mac), NUD_ACT_LLA_CHANGED);
	CHECK_EQ(n.state, NUD_STALE);
	CHECK(!n.is_router);
	n.state = NUD_REACHABLE;
	CHECK_EQ(nud_on_ns(&n, host_mac), 0);
	CHECK_EQ(n.state, NUD_REACHABLE);
	CHECK_EQ(nud_on_ns(&n, other_mac), NUD_ACT_LLA_CHANGED);
	CHECK_EQ(n.state, NUD_STALE);
	CHECK(memcmp(n.lla, other_mac, 6) == 0);
	n = (struct nud){0};
	nud_resolve(&n, &P, 0);
	CHECK_EQ(nud_on_ns(&n, host_mac), NUD_ACT_RELEASE | NUD_ACT_LLA_CHANGED);
	CHECK_EQ(n.state, NUD_STALE);
}

static void test_reachable_time(void)
{
	CHECK_EQ(nd_reachable_time(30000, 0), 15000);
	CHECK_EQ(nd_reachable_time(30000, 0x80000000u), 30000);
	CHECK(nd_reachable_time(30000, 0xffffffffu) < 45000);
	CHECK(nd_reachable_time(30000, 0xffffffffu) >= 44999);
	CHECK_EQ(nd_reachable_time(0, 12345), 0);
	/* RFC 4861 §6.2.1: BaseReachableTime is at most an hour; no overflow there. */
	CHECK(nd_reachable_time(3600000, 0xffffffffu) >= 5399999);
	CHECK(nd_reachable_time(3600000, 0xffffffffu) < 5400000);
}

int main(void)
{
	test_multicast();
	test_ns_build();
	test_na_build();
	test_parse_errors();
	test_parse_forms();
	test_nud_resolution();
	test_nud_probe();
	test_nud_na_rules();
	test_nud_ns();
	test_reachable_time();
	return check_report("test_nd");
}
