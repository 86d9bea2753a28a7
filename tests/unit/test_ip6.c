/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 header checks (RFC 8200), address scopes and martians (RFC 4291, RFC
 * 4007, RFC 6890), the extension-header walk and its bounds, egress checks,
 * the ECMP hash, and ICMPv6 errors (RFC 4443): the pure functions a worker
 * will be built from, each verdict with the packet that earns it.
 */
#include <arpa/inet.h>
#include <string.h>

#include "datapath/csum.h"
#include "datapath/icmp6.h"
#include "datapath/ip6.h"
#include "datapath/stats.h"
#include "tests/unit/check.h"

static void addr(uint8_t *out, const char *s)
{
	if (inet_pton(AF_INET6, s, out) != 1) {
		fprintf(stderr, "bad test address %s\n", s);
		check_failed++;
	}
}

/* A header from src to dst, next header nh, payload of plen zero octets; returns 40 + plen. */
static uint32_t mk(uint8_t *ip, const char *src, const char *dst, uint8_t nh, uint8_t hlim,
                   uint32_t plen)
{
	memset(ip, 0, IP6_HLEN + plen);
	wr32(ip, 6u << 28 | 0x12345); /* flow label 0x12345 */
	wr16(ip + 4, (uint16_t)plen);
	ip[6] = nh;
	ip[7] = hlim;
	addr(ip + 8, src);
	addr(ip + 24, dst);
	return IP6_HLEN + plen;
}

static uint32_t mk_udp(uint8_t *ip, const char *src, const char *dst)
{
	uint32_t len = mk(ip, src, dst, IP6_NH_UDP, 64, 8);

	wr16(ip + 40, 40000);
	wr16(ip + 42, 53);
	wr16(ip + 44, 8);
	return len;
}

static enum drop_reason v(const uint8_t *ip, uint32_t avail)
{
	struct ip6_info info;

	return ip6_validate(ip, avail, &info);
}

static void test_header(void)
{
	uint8_t ip[128];
	struct ip6_info info;
	uint32_t len = mk_udp(ip, "2001:db8:1::1", "2001:db8:2::2");

	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
	CHECK_EQ(info.len, 48);
	CHECK_EQ(info.l4_proto, IP6_NH_UDP);
	CHECK_EQ(info.l4_off, 40);
	CHECK_EQ(info.n_ext, 0);
	CHECK_EQ(info.err.type, 0);
	CHECK_EQ(v(ip, 60), IP6_OK); /* Ethernet padding after the packet */
	CHECK_EQ(v(ip, 39), DROP_IP6_TRUNCATED);
	CHECK_EQ(v(ip, 47), DROP_IP6_PAYLOAD_LENGTH);
	ip[0] = 0x45;
	CHECK_EQ(v(ip, len), DROP_IP6_VERSION);
	/* The upper layers decided without a walk: where they start, what they are. */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_ICMPV6, 64, 8);
	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
	CHECK_EQ(info.l4_proto, IP6_NH_ICMPV6);
	CHECK_EQ(info.l4_off, 40);
	CHECK_EQ(info.flags, 0);
	len = mk(ip, "2001:db8::1", "fd00::2", IP6_NH_TCP, 64, 20);
	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
	CHECK_EQ(info.l4_proto, IP6_NH_TCP);
	CHECK_EQ(info.len, 60);
	/* RFC 8200 §4.7: No Next Header with no payload is a whole packet. */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_NONE, 64, 0);
	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
	CHECK_EQ(info.l4_proto, IP6_NH_NONE);
	/* RFC 2675 jumbogram: Payload Length 0 with a Hop-by-Hop header: not supported. */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_HOPOPTS, 64, 0);
	CHECK_EQ(v(ip, 60), DROP_IP6_EXT_TRUNCATED);
}

struct addr_case {
	const char *src, *dst;
	enum drop_reason want;
};

/* RFC 4291 §2.5-2.7 and the RFC 6890 registry, as ip6.h documents the choices. */
static void test_addresses(void)
{
	static const struct addr_case cases[] = {
	    {"2001:db8::1", "2001:db8::2", IP6_OK}, /* documentation: forwarded */
	    {"3fff::1", "2a00::1", IP6_OK},         /* RFC 9637 documentation too */
	    {"fd00::1", "fd00:1::1", IP6_OK},       /* ULA (RFC 4193) */
	    {"fe80::1", "2001:db8::2", IP6_OK},     /* scope judged at egress */
	    {"ff02::1", "2001:db8::2", DROP_IP6_BAD_SOURCE},
	    {"ff0e::1", "2001:db8::2", DROP_IP6_BAD_SOURCE},
	    {"::1", "2001:db8::2", DROP_IP6_BAD_SOURCE},
	    {"::ffff:192.0.2.1", "2001:db8::2", DROP_IP6_BAD_SOURCE},
	    {"::", "2001:db8::2", DROP_IP6_BAD_SOURCE}, /* §2.5.2: never forwarded */
	    {"::", "ff02::1:ff00:1", IP6_LOCAL},        /* DAD probe reaches the kernel */
	    {"2001:db8::1", "::", DROP_IP6_BAD_DEST},
	    {"2001:db8::1", "::1", DROP_IP6_BAD_DEST},
	    {"2001:db8::1", "::ffff:192.0.2.1", DROP_IP6_BAD_DEST},
	    {"2001:db8::1", "ff00::1", DROP_IP6_MCAST_SCOPE}, /* reserved scope 0 */
	    {"2001:db8::1", "ff01::1", DROP_IP6_MCAST_SCOPE}, /* interface-local */
	    {"2001:db8::1", "ff02::1", IP6_LOCAL},
	    {"fe80::1", "ff02::16", IP6_LOCAL},         /* MLDv2 reports */
	    {"2001:db8::1", "ff05::1:3", IP6_LOCAL},    /* site scope: no multicast routing */
	    {"2001:db8::1", "ff3e::8000:1", IP6_LOCAL}, /* SSM, global */
	    {"2001:db8::1", "fe80::2", IP6_LOCAL},
	    {"2001:db8::1", "febf:ffff::1", IP6_LOCAL}, /* still fe80::/10 */
	    {"2001:db8::1", "fec0::1", IP6_OK},         /* deprecated site-local: unicast */
	    {"::2", "2001:db8::2", IP6_OK},             /* IPv4-compatible: nothing special */
	    /* The edges of 2000::/3, which ip6_validate decides without the rules above. */
	    {"1fff:ffff::1", "3fff:ffff::1", IP6_OK},
	    {"4000::1", "2000::", IP6_OK},
	    {"2000::1", "1fff:ffff::1", IP6_OK},
	    {"3fff::1", "4000::", IP6_OK},
	};
	uint8_t ip[128];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t len = mk_udp(ip, cases[i].src, cases[i].dst);
		enum drop_reason got = v(ip, len);

		if (got != cases[i].want)
			fprintf(stderr, "address case %s -> %s\n", cases[i].src, cases[i].dst);
		CHECK_EQ(got, cases[i].want);
	}
	/* Multicast source wins over anything about the destination. */
	mk_udp(ip, "ff02::2", "ff02::1");
	CHECK_EQ(v(ip, 48), DROP_IP6_BAD_SOURCE);
	addr(ip, "fe80::");
	CHECK(ip6_addr_is_linklocal(ip));
	CHECK(!ip6_addr_is_multicast(ip));
	addr(ip, "ff12::1");
	CHECK_EQ(ip6_mcast_scope(ip), 2);
}

/* An 8-octet extension header at off: next header nh, the rest zero (Pad1s for options). */
static uint32_t ext8(uint8_t *ip, uint32_t off, uint8_t nh)
{
	memset(ip + off, 0, 8);
	ip[off] = nh;
	return off + 8;
}

/* A Hop-by-Hop header of 8 octets whose 6 option octets are `opts`. */
static uint32_t hbh(uint8_t *ip, uint8_t nh, const uint8_t opts[6])
{
	ip[40] = nh;
	ip[41] = 0;
	memcpy(ip + 42, opts, 6);
	return 48;
}

static void test_hop_by_hop(void)
{
	static const uint8_t padn[6] = {1, 4, 0, 0, 0, 0};
	static const uint8_t ra[6] = {5, 2, 0, 0, 1, 0};         /* Router Alert MLD + Pad1 */
	static const uint8_t skip[6] = {0x1e, 4, 9, 9, 9, 9};    /* unknown, action 00 */
	static const uint8_t silent[6] = {0x5e, 4, 9, 9, 9, 9};  /* unknown, action 01 */
	static const uint8_t icmp[6] = {0x9e, 4, 9, 9, 9, 9};    /* unknown, action 10 */
	static const uint8_t icmp_uc[6] = {0xde, 4, 9, 9, 9, 9}; /* unknown, action 11 */
	static const uint8_t jumbo[6] = {0xc2, 4, 0, 1, 0, 0};
	static const uint8_t dirty_pad[6] = {1, 4, 0, 7, 0, 0}; /* PadN with content */
	static const uint8_t past[6] = {1, 5, 0, 0, 0, 0};      /* runs past the header */
	uint8_t ip[256];
	struct ip6_info info;

	mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_HOPOPTS, 64, 16);
	hbh(ip, IP6_NH_UDP, padn);
	CHECK_EQ(ip6_validate(ip, 56, &info), IP6_OK);
	CHECK_EQ(info.flags, IP6_F_HOPOPTS);
	CHECK_EQ(info.l4_off, 48);
	CHECK_EQ(info.l4_proto, IP6_NH_UDP);
	hbh(ip, IP6_NH_UDP, ra);
	CHECK_EQ(ip6_validate(ip, 56, &info), IP6_OK);
	CHECK_EQ(info.flags, IP6_F_HOPOPTS | IP6_F_ROUTER_ALERT);
	hbh(ip, IP6_NH_UDP, skip);
	CHECK_EQ(ip6_validate(ip, 56, &info), IP6_OK);
	hbh(ip, IP6_NH_UDP, silent);
	CHECK_EQ(ip6_validate(ip, 56, &info), DROP_IP6_HBH_OPTION);
	CHECK_EQ(info.err.type, 0);
	hbh(ip, IP6_NH_UDP, icmp);
	CHECK_EQ(ip6_validate(ip, 56, &info), DROP_IP6_HBH_OPTION);
	CHECK_EQ(info.err.type, ICMP6_PARAM_PROB);
	CHECK_EQ(info.err.code, ICMP6_PP_OPTION);
	CHECK_EQ(info.err.param, 42); /* RFC 4443 §3.4: the octet of the option type */
	hbh(ip, IP6_NH_UDP, icmp_uc);
	CHECK_EQ(ip6_validate(ip, 56, &info), DROP_IP6_HBH_OPTION);
	CHECK_EQ(info.err.code, ICMP6_PP_OPTION);
	/* Action 11 stays silent towards a multicast destination (the walk alone sees one). */
	addr(ip + 24, "ff0e::1");
	CHECK_EQ(ip6_chain_walk(ip, 56, &info), DROP_IP6_HBH_OPTION);
	CHECK_EQ(info.err.type, 0);
	addr(ip + 24, "2001:db8::2");
	hbh(ip, IP6_NH_UDP, jumbo);
	CHECK_EQ(ip6_validate(ip, 56, &info), DROP_IP6_HBH_OPTION);
	CHECK_EQ(info.err.code, ICMP6_PP_HEADER);
	CHECK_EQ(info.err.param, 44);
	hbh(ip, IP6_NH_UDP, dirty_pad);
	CHECK_EQ(v(ip, 56), DROP_IP6_HBH_OPTION);
	hbh(ip, IP6_NH_UDP, past);
	CHECK_EQ(v(ip, 56), DROP_IP6_HBH_OPTION);
}

/* How much Hop-by-Hop a router looks at: bounded padding and option counts. */
static void test_hop_by_hop_limits(void)
{
	uint8_t ip[256];
	struct ip6_info info;

	/* 16 octets: eight Pad1 in a row is one more than Linux allows. */
	mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_HOPOPTS, 64, 24);
	ip[40] = IP6_NH_UDP;
	ip[41] = 1;
	CHECK_EQ(v(ip, 64), DROP_IP6_HBH_OPTION);
	/* Nine options of a skippable type: one more than IP6_HBH_OPTS_MAX. */
	mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_HOPOPTS, 64, 8 + 24);
	ip[40] = IP6_NH_UDP;
	ip[41] = 2; /* 24 octets: 22 of options */
	for (unsigned i = 0; i < 9; i++) {
		ip[42 + 2 * i] = 0x1e;
		ip[43 + 2 * i] = 0;
	}
	ip[60] = 1; /* PadN over the last 4 octets */
	ip[61] = 2;
	CHECK_EQ(ip6_validate(ip, 72, &info), DROP_IP6_HBH_OPTION);
	CHECK_EQ(info.err.code, ICMP6_PP_TOO_MANY_OPTS);
	CHECK_EQ(info.err.param, 58);
	ip[58] = 1; /* the ninth becomes padding: eight options pass */
	CHECK_EQ(ip6_validate(ip, 72, &info), IP6_OK);
}

static void test_chain(void)
{
	uint8_t ip[1024];
	struct ip6_info info;
	uint32_t off, len;

	/* HBH, Destination Options, Routing, first Fragment, AH, TCP: all walked. */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_HOPOPTS, 64, 5 * 8 + 8 + 20);
	off = ext8(ip, 40, IP6_NH_DSTOPTS);
	off = ext8(ip, off, IP6_NH_ROUTING);
	off = ext8(ip, off, IP6_NH_FRAGMENT);
	off = ext8(ip, off, IP6_NH_AH);
	wr16(ip + off - 8 + 2, 0x0001); /* offset 0, M=1 */
	ip[off] = IP6_NH_TCP;
	ip[off + 1] = 2; /* AH: (2 + 2) * 4 = 16 octets */
	off += 16;
	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
	CHECK_EQ(info.n_ext, 5);
	CHECK_EQ(info.l4_proto, IP6_NH_TCP);
	CHECK_EQ(info.l4_off, off);
	CHECK_EQ(info.flags, IP6_F_HOPOPTS | IP6_F_ROUTING | IP6_F_FRAGMENT);

	/* A later fragment: what follows its header is data (RFC 8200 §4.5). */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_FRAGMENT, 64, 8 + 100);
	ext8(ip, 40, IP6_NH_TCP);
	wr16(ip + 42, 185 << 3);
	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
	CHECK_EQ(info.flags, IP6_F_FRAGMENT | IP6_F_LATER_FRAG);
	CHECK_EQ(info.l4_proto, IP6_NH_TCP);
}

static void test_chain_errors(void)
{
	uint8_t ip[256];
	struct ip6_info info;
	uint32_t len;

	/* RFC 7112: a first fragment that ends with its chain, before the upper layer. */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_FRAGMENT, 64, 8);
	ext8(ip, 40, IP6_NH_TCP);
	wr16(ip + 42, 1); /* offset 0, M=1 */
	CHECK_EQ(ip6_validate(ip, len, &info), DROP_IP6_EXT_TRUNCATED);
	CHECK_EQ(info.err.code, ICMP6_PP_INCOMPLETE_CHAIN);
	CHECK_EQ(info.err.param, 0);

	/* A Destination Options header longer than the payload. */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_DSTOPTS, 64, 8);
	ext8(ip, 40, IP6_NH_UDP);
	ip[41] = 1; /* says 16 octets */
	CHECK_EQ(ip6_validate(ip, len, &info), DROP_IP6_EXT_TRUNCATED);
	CHECK_EQ(info.err.type, 0);
	mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_DSTOPTS, 64, 1);
	CHECK_EQ(v(ip, 41), DROP_IP6_EXT_TRUNCATED); /* not even its length octet */

	/* Hop-by-Hop after another header (RFC 8200 §4.1). */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_DSTOPTS, 64, 16 + 8);
	ext8(ip, 40, IP6_NH_HOPOPTS);
	ext8(ip, 48, IP6_NH_UDP);
	CHECK_EQ(ip6_validate(ip, len, &info), DROP_IP6_EXT_ORDER);
	CHECK_EQ(info.err.code, ICMP6_PP_NEXT_HEADER);
	CHECK_EQ(info.err.param, 40); /* the Next Header field that names it */

	/* ESP ends the walk: nothing after it is readable. */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_ESP, 64, 32);
	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
	CHECK_EQ(info.l4_proto, IP6_NH_ESP);
}

/* The walk's bounds (ip6-ext-limit). */
static void test_chain_limits(void)
{
	uint8_t ip[1024];
	struct ip6_info info;
	uint32_t off, len;

	/* IP6_EXT_MAX headers pass, one more does not (RFC 8883 code 8). */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_DSTOPTS, 64, 9 * 8 + 8);
	off = 40;
	for (unsigned i = 0; i < 9; i++)
		off = ext8(ip, off, i < 8 ? IP6_NH_DSTOPTS : IP6_NH_UDP);
	CHECK_EQ(ip6_validate(ip, len, &info), DROP_IP6_EXT_LIMIT);
	CHECK_EQ(info.err.code, ICMP6_PP_TOO_MANY_EXT);
	CHECK_EQ(info.err.param, 40 + 8 * 8);
	ip[40 + 7 * 8] = IP6_NH_UDP;
	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
	CHECK_EQ(info.n_ext, 8);

	/* More than IP6_EXT_SPAN octets of headers (RFC 8883 code 7). */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_DSTOPTS, 64, 3 * 256 + 8);
	for (unsigned i = 0; i < 3; i++) {
		ip[40 + 256 * i] = i < 2 ? IP6_NH_DSTOPTS : IP6_NH_UDP;
		ip[41 + 256 * i] = 31;
	}
	CHECK_EQ(ip6_validate(ip, len, &info), DROP_IP6_EXT_LIMIT);
	CHECK_EQ(info.err.code, ICMP6_PP_CHAIN_TOO_LONG);
	CHECK_EQ(info.err.param, 40 + 512);
	ip[40 + 256] = IP6_NH_UDP; /* 512 octets exactly */
	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
}

static void test_egress(void)
{
	uint8_t ip[128];
	struct ip6_err err;
	uint32_t len = mk_udp(ip, "2001:db8::1", "2001:db8::2");

	CHECK_EQ(ip6_egress_check(ip, len, 1500, false, &err), IP6_OK);
	CHECK_EQ(err.type, 0);
	ip[7] = 1;
	CHECK_EQ(ip6_egress_check(ip, len, 1500, false, &err), DROP_IP6_HOP_LIMIT);
	CHECK_EQ(err.type, ICMP6_TIME_EXCEEDED);
	CHECK_EQ(err.code, ICMP6_CODE_HOP_LIMIT);
	ip[7] = 0;
	CHECK_EQ(ip6_egress_check(ip, len, 1500, false, &err), DROP_IP6_HOP_LIMIT);
	ip[7] = 2;
	CHECK_EQ(ip6_egress_check(ip, len, 1500, false, &err), IP6_OK);
	ip6_hop_limit_decrement(ip);
	CHECK_EQ(ip[7], 1);
	ip[7] = 64;

	/* RFC 4007 §9: a link-local source may go back out its own link only. */
	addr(ip + 8, "fe80::1");
	CHECK_EQ(ip6_egress_check(ip, len, 1500, false, &err), DROP_IP6_SRC_SCOPE);
	CHECK_EQ(err.type, ICMP6_DST_UNREACH);
	CHECK_EQ(err.code, ICMP6_CODE_BEYOND_SCOPE);
	CHECK_EQ(ip6_egress_check(ip, len, 1500, true, &err), IP6_OK);
	addr(ip + 8, "2001:db8::1");
	addr(ip + 24, "fe80::2");
	CHECK_EQ(ip6_egress_check(ip, len, 1500, false, &err), DROP_IP6_DST_SCOPE);
	CHECK_EQ(err.code, ICMP6_CODE_ADDR_UNREACH);
	addr(ip + 24, "2001:db8::2");

	/* RFC 8200 §5: no fragmentation on the way; Packet Too Big carries the MTU. */
	CHECK_EQ(ip6_egress_check(ip, 1501, 1500, false, &err), DROP_IP6_TOO_BIG);
	CHECK_EQ(err.type, ICMP6_PACKET_TOO_BIG);
	CHECK_EQ(err.param, 1500);
	CHECK_EQ(ip6_egress_check(ip, 1500, 1500, false, &err), IP6_OK);
	CHECK_EQ(ip6_egress_check(ip, 1281, 1000, false, &err), DROP_IP6_TOO_BIG);
	CHECK_EQ(err.param, IP6_MIN_MTU);
	/* Hop limit is judged before scope and size, as Linux's ip6_forward does. */
	ip[7] = 1;
	addr(ip + 8, "fe80::1");
	CHECK_EQ(ip6_egress_check(ip, 9000, 1500, false, &err), DROP_IP6_HOP_LIMIT);
}

static uint32_t hash_of(const uint8_t *ip, uint32_t len)
{
	struct ip6_info info;

	CHECK_EQ(ip6_validate(ip, len, &info), IP6_OK);
	return ip6_flow_hash(ip, &info);
}

static void test_flow_hash(void)
{
	uint8_t ip[128], frag[128];
	uint32_t len = mk_udp(ip, "2001:db8::1", "2001:db8::2"), h = hash_of(ip, len);
	unsigned bucket[8] = {0}, changed = 0;

	CHECK_EQ(hash_of(ip, len), h); /* a pure function */
	wr16(ip + 40, 40001);
	changed += hash_of(ip, len) != h;
	wr16(ip + 40, 40000);
	wr32(ip, 6u << 28 | 0x12346); /* the flow label alone (RFC 6438) */
	changed += hash_of(ip, len) != h;
	wr32(ip, 6u << 28 | 0x12345);
	ip[23] ^= 1; /* the source's last bit */
	changed += hash_of(ip, len) != h;
	CHECK_EQ(changed, 3);

	/* First and later fragments of one datagram hash alike (no ports in either). */
	mk(frag, "2001:db8::1", "2001:db8::2", IP6_NH_FRAGMENT, 64, 8 + 16);
	ext8(frag, 40, IP6_NH_UDP);
	wr16(frag + 42, 1);
	wr16(frag + 48, 1234);
	uint32_t first = hash_of(frag, 64);
	wr16(frag + 42, 2 << 3);
	wr16(frag + 48, 9999);
	CHECK_EQ(hash_of(frag, 64), first);

	/* Spread: 64k flows over 8 paths as the worker picks them ((h * n) >> 32). */
	for (uint32_t i = 0; i < 65536; i++) {
		wr16(ip + 40, (uint16_t)(1024 + i % 60000));
		wr32(ip + 36, i * 2654435761u); /* varying destination interface ids */
		bucket[((uint64_t)hash_of(ip, len) * 8) >> 32]++;
	}
	for (unsigned b = 0; b < 8; b++)
		CHECK(bucket[b] > 8192 * 95 / 100 && bucket[b] < 8192 * 105 / 100);
}

/* The IPv6 reasons in stats.h's list: one block, named ip6-*, each name once. */
static void test_names(void)
{
	unsigned n = 0;

	for (unsigned r = 0; r < DROP__MAX; r++) {
		bool v6 = r >= DROP_IP6_TRUNCATED && r <= DROP_IP6_TOO_BIG;

		CHECK(drop_reason_desc[r] && drop_reason_desc[r][0]);
		CHECK_EQ(strncmp(drop_reason_name[r], "ip6-", 4) == 0, v6);
		n += v6;
		for (unsigned j = 0; j < r; j++)
			CHECK(strcmp(drop_reason_name[r], drop_reason_name[j]) != 0);
	}
	CHECK_EQ(n, 14);
	CHECK(strcmp(drop_reason_name[DROP_IP6_HOP_LIMIT], "ip6-hop-limit") == 0);
	CHECK(IP6_OK >= DROP__MAX && IP6_LOCAL > IP6_OK);
}

/* RFC 8200 §8.1 pseudo-header, summed here the long way, apart from icmp6_csum(). */
static uint16_t naive_csum(const uint8_t *ip, const uint8_t *msg, uint32_t len)
{
	uint8_t ph[40 + 1500];

	memcpy(ph, ip + 8, 32);
	wr32(ph + 32, len);
	memset(ph + 36, 0, 3);
	ph[39] = IP6_NH_ICMPV6;
	memcpy(ph + 40, msg, len);
	return csum_compute(ph, 40 + len);
}

static const uint8_t dmac[6] = {2, 0, 0, 0, 0, 1}, smac[6] = {2, 0, 0, 0, 0, 2};

static void check_error(const uint8_t *f, uint32_t flen, const uint8_t *orig, uint32_t olen,
                        const uint8_t *router, uint8_t type, uint8_t code, uint32_t param)
{
	const uint8_t *ip = f + 14, *msg = ip + 40;
	uint32_t quote = olen < 1232 ? olen : 1232;

	CHECK_EQ(flen, 14 + 40 + 8 + quote);
	CHECK(flen - 14 <= IP6_MIN_MTU); /* RFC 4443 §2.4 (c) */
	CHECK(memcmp(f, dmac, 6) == 0 && memcmp(f + 6, smac, 6) == 0);
	CHECK_EQ(rd16(f + 12), ETHERTYPE_IPV6);
	CHECK_EQ(rd32(ip), 6u << 28 | 0xc0u << 20);
	CHECK_EQ(rd16(ip + 4), 8 + quote);
	CHECK_EQ(ip[6], IP6_NH_ICMPV6);
	CHECK_EQ(ip[7], 64);
	CHECK(memcmp(ip + 8, router, 16) == 0);
	CHECK(memcmp(ip + 24, orig + 8, 16) == 0);
	CHECK_EQ(msg[0], type);
	CHECK_EQ(msg[1], code);
	CHECK_EQ(rd32(msg + 4), param);
	CHECK_EQ(icmp6_csum(ip, msg, 8 + quote), 0);
	CHECK_EQ(naive_csum(ip, msg, 8 + quote), 0);
	CHECK(memcmp(msg + 8, orig, quote) == 0);
}

static void test_icmp6_build(void)
{
	uint8_t orig[1600], f[ICMP6_ERR_FRAME_MAX], router[16];
	uint32_t olen, flen;

	addr(router, "2001:db8:ffff::1");
	olen = mk(orig, "2001:db8:1::10", "2001:db8:2::20", IP6_NH_UDP, 1, 1452);
	for (uint32_t i = 40; i < olen; i++)
		orig[i] = (uint8_t)(i * 7);
	flen = icmp6_error_build(f, orig, olen, dmac, smac, router, ICMP6_TIME_EXCEEDED,
	                         ICMP6_CODE_HOP_LIMIT, 99);
	check_error(f, flen, orig, olen, router, ICMP6_TIME_EXCEEDED, 0, 0); /* unused: zero */
	flen = icmp6_error_build(f, orig, olen, dmac, smac, router, ICMP6_PACKET_TOO_BIG, 0, 1400);
	check_error(f, flen, orig, olen, router, ICMP6_PACKET_TOO_BIG, 0, 1400);
	flen = icmp6_error_build(f, orig, olen, dmac, smac, router, ICMP6_PACKET_TOO_BIG, 0, 576);
	check_error(f, flen, orig, olen, router, ICMP6_PACKET_TOO_BIG, 0, 1280);
	flen = icmp6_error_build(f, orig, olen, dmac, smac, router, ICMP6_PARAM_PROB,
	                         ICMP6_PP_OPTION, 42);
	check_error(f, flen, orig, olen, router, ICMP6_PARAM_PROB, ICMP6_PP_OPTION, 42);
	/* RFC 4443 §3.1 codes, each written as given; a short packet is quoted whole. */
	olen = mk_udp(orig, "2001:db8:1::10", "2001:db8:2::20");
	for (uint8_t code = ICMP6_CODE_NO_ROUTE; code <= ICMP6_CODE_REJECT_ROUTE; code++) {
		flen = icmp6_error_build(f, orig, olen, dmac, smac, router, ICMP6_DST_UNREACH, code,
		                         0);
		check_error(f, flen, orig, olen, router, ICMP6_DST_UNREACH, code, 0);
	}
	/* An odd length quoted: the checksum pads it (RFC 4443 §2.3, RFC 1071). */
	olen = mk(orig, "2001:db8:1::10", "2001:db8:2::20", IP6_NH_UDP, 1, 9);
	flen = icmp6_error_build(f, orig, olen, dmac, smac, router, ICMP6_TIME_EXCEEDED, 0, 0);
	check_error(f, flen, orig, olen, router, ICMP6_TIME_EXCEEDED, 0, 0);
}

/* An ICMPv6 message of `type` after `ext` 8-octet Destination Options headers. */
static uint32_t mk_icmp(uint8_t *ip, const char *src, const char *dst, unsigned ext, uint8_t type)
{
	uint32_t len = mk(ip, src, dst, ext ? IP6_NH_DSTOPTS : IP6_NH_ICMPV6, 64, 8 * ext + 8);
	uint32_t off = 40;

	for (unsigned i = 0; i < ext; i++)
		off = ext8(ip, off, i + 1 < ext ? IP6_NH_DSTOPTS : IP6_NH_ICMPV6);
	ip[off] = type;
	return len;
}

static void test_icmp6_allowed(void)
{
	const uint8_t te = ICMP6_TIME_EXCEEDED, ptb = ICMP6_PACKET_TOO_BIG, pp = ICMP6_PARAM_PROB;
	uint8_t ip[256];
	uint32_t len = mk_udp(ip, "2001:db8::1", "2001:db8::2");

	CHECK(icmp6_error_allowed(ip, len, false, te, 0));
	CHECK(!icmp6_error_allowed(ip, len, true, te, 0)); /* e.4: link-layer multicast */
	CHECK(icmp6_error_allowed(ip, len, true, ptb, 0));
	CHECK(icmp6_error_allowed(ip, len, true, pp, ICMP6_PP_OPTION));
	CHECK(!icmp6_error_allowed(ip, len, true, pp, ICMP6_PP_HEADER));
	CHECK(!icmp6_error_allowed(ip, 39, false, te, 0));
	/* e.3: multicast destination, same two exceptions. */
	len = mk_udp(ip, "2001:db8::1", "ff0e::1");
	CHECK(!icmp6_error_allowed(ip, len, false, te, 0));
	CHECK(!icmp6_error_allowed(ip, len, false, ICMP6_DST_UNREACH, 0));
	CHECK(icmp6_error_allowed(ip, len, false, ptb, 0));
	CHECK(icmp6_error_allowed(ip, len, false, pp, ICMP6_PP_OPTION));
	/* e.6: sources that are not one node. */
	len = mk_udp(ip, "::", "2001:db8::2");
	CHECK(!icmp6_error_allowed(ip, len, false, ptb, 0));
	len = mk_udp(ip, "ff02::1", "2001:db8::2");
	CHECK(!icmp6_error_allowed(ip, len, false, ptb, 0));
	len = mk_udp(ip, "::1", "2001:db8::2");
	CHECK(!icmp6_error_allowed(ip, len, false, te, 0));
	/* e.1, e.2: never about an error or a Redirect, even behind extension headers. */
	for (unsigned ext = 0; ext <= 2; ext++) {
		len = mk_icmp(ip, "2001:db8::1", "2001:db8::2", ext, ICMP6_DST_UNREACH);
		CHECK(!icmp6_error_allowed(ip, len, false, te, 0));
		len = mk_icmp(ip, "2001:db8::1", "2001:db8::2", ext, 127);
		CHECK(!icmp6_error_allowed(ip, len, false, te, 0));
		len = mk_icmp(ip, "2001:db8::1", "2001:db8::2", ext, ICMP6_REDIRECT);
		CHECK(!icmp6_error_allowed(ip, len, false, te, 0));
		len = mk_icmp(ip, "2001:db8::1", "2001:db8::2", ext, ICMP6_ECHO_REQUEST);
		CHECK(icmp6_error_allowed(ip, len, false, te, 0));
		len = mk_icmp(ip, "2001:db8::1", "2001:db8::2", ext, ICMP6_NEIGH_SOL);
		CHECK(icmp6_error_allowed(ip, len, false, te, 0));
	}
	/* ICMPv6 whose type is cut off may be an error: silence. */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_ICMPV6, 64, 0);
	CHECK(!icmp6_error_allowed(ip, len, false, te, 0));
	/* A later fragment of ICMPv6 hides its type: answered (as Linux does). */
	len = mk(ip, "2001:db8::1", "2001:db8::2", IP6_NH_FRAGMENT, 64, 8 + 8);
	ext8(ip, 40, IP6_NH_ICMPV6);
	wr16(ip + 42, 8 << 3);
	CHECK(icmp6_error_allowed(ip, len, false, te, 0));
}

int main(void)
{
	test_header();
	test_addresses();
	test_hop_by_hop();
	test_hop_by_hop_limits();
	test_chain();
	test_chain_errors();
	test_chain_limits();
	test_egress();
	test_flow_hash();
	test_names();
	test_icmp6_build();
	test_icmp6_allowed();
	return check_report("test_ip6");
}
