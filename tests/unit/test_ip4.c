/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv4 header checks, TTL rewrite, ICMP error construction and ARP frames:
 * the pure functions the worker is built from.
 */
#include <string.h>

#include "tests/unit/check.h"
#include "datapath/arp.h"
#include "datapath/csum.h"
#include "datapath/event_ring.h"
#include "datapath/icmp.h"
#include "datapath/ip4.h"
#include "datapath/ip4_frag.h"

/* A valid 20-byte header + 8 bytes of UDP, checksum filled in. */
static void make_ip(uint8_t *ip, uint8_t ttl, uint32_t src, uint32_t dst, uint8_t proto)
{
	memset(ip, 0, 28);
	ip[0] = 0x45;
	wr16(ip + 2, 28);
	wr16(ip + 4, 0x1234);
	ip[8] = ttl;
	ip[9] = proto;
	wr32(ip + 12, src);
	wr32(ip + 16, dst);
	wr16(ip + 10, csum_compute(ip, 20));
	wr16(ip + 20, 40000);
	wr16(ip + 22, 53);
}

static void test_validate(void)
{
	uint8_t ip[64];

	make_ip(ip, 64, 0x0a000102, 0x0a000202, 17);
	CHECK_EQ(ip4_validate(ip, 28, false), IP4_OK);
	CHECK_EQ(ip4_validate(ip, 46, false), IP4_OK); /* Ethernet padding after the datagram */
	CHECK_EQ(ip4_validate(ip, 19, false), DROP_IP_TRUNCATED);
	CHECK_EQ(ip4_validate(ip, 27, false), DROP_IP_TOTAL_LENGTH);

	ip[0] = 0x65;
	CHECK_EQ(ip4_validate(ip, 28, false), DROP_IP_VERSION);
	ip[0] = 0x44; /* IHL 4 */
	CHECK_EQ(ip4_validate(ip, 28, false), DROP_IP_HEADER_LENGTH);
	ip[0] = 0x4f; /* IHL 15 = 60 bytes, more than the frame */
	CHECK_EQ(ip4_validate(ip, 28, false), DROP_IP_HEADER_LENGTH);

	make_ip(ip, 64, 0x0a000102, 0x0a000202, 17);
	ip[10] ^= 0x01;
	CHECK_EQ(ip4_validate(ip, 28, false), DROP_IP_CHECKSUM);

	make_ip(ip, 64, 0x0a000102, 0x0a000202, 17);
	wr16(ip + 2, 19); /* total length below the header */
	wr16(ip + 10, 0);
	wr16(ip + 10, csum_compute(ip, 20));
	CHECK_EQ(ip4_validate(ip, 28, false), DROP_IP_TOTAL_LENGTH);

	/* Header with 4 bytes of options (NOP x3 + EOL). */
	memset(ip, 0, sizeof(ip));
	ip[0] = 0x46;
	wr16(ip + 2, 32);
	ip[8] = 64;
	ip[9] = 17;
	wr32(ip + 12, 0x0a000102);
	wr32(ip + 16, 0x0a000202);
	ip[20] = 1;
	ip[21] = 1;
	ip[22] = 1;
	ip[23] = 0;
	wr16(ip + 10, csum_compute(ip, 24));
	CHECK_EQ(ip4_validate(ip, 32, false), DROP_IP_OPTIONS);
	CHECK_EQ(ip4_validate(ip, 32, true), IP4_OK);
}

static void test_ttl(void)
{
	uint8_t ip[28];

	for (unsigned ttl = 2; ttl <= 255; ttl++) {
		make_ip(ip, (uint8_t)ttl, 0xc0000201 + ttl, 0x0a000202, 6);
		ip4_ttl_decrement(ip);
		CHECK_EQ(ip[8], ttl - 1);
		if (csum_compute(ip, 20) != 0) {
			CHECK(!"incremental checksum wrong");
			break;
		}
	}
	/* RFC 1624 section 3: the case where eqn. 2 would produce 0xffff instead of 0. */
	make_ip(ip, 2, 0, 0, 0);
	ip4_ttl_decrement(ip);
	CHECK_EQ(csum_compute(ip, 20), 0);
}

static void test_martians(void)
{
	CHECK(ip4_src_is_martian(0x00000000));
	CHECK(ip4_src_is_martian(0x7f000001));
	CHECK(ip4_src_is_martian(0xe0000001));
	CHECK(ip4_src_is_martian(0xffffffff));
	CHECK(!ip4_src_is_martian(0x0a000001));
	CHECK(ip4_dst_is_local_only(0xe00000fb));
	CHECK(ip4_dst_is_local_only(0xffffffff));
	CHECK(!ip4_dst_is_local_only(0x08080808));
}

static void test_flow_hash(void)
{
	uint8_t a[28], b[28];
	unsigned buckets[2] = {0, 0};

	make_ip(a, 64, 0x0a000102, 0x0a630001, 17);
	memcpy(b, a, sizeof(a));
	CHECK_EQ(ip4_flow_hash(a), ip4_flow_hash(b));
	/* Spread: 1000 source ports over 2 paths should be far from all-on-one. */
	for (unsigned port = 0; port < 1000; port++) {
		wr16(a + 20, (uint16_t)(20000 + port));
		buckets[((uint64_t)ip4_flow_hash(a) * 2) >> 32]++;
	}
	CHECK(buckets[0] > 400 && buckets[1] > 400);
	/* Non-initial fragments ignore ports and protocol, so all fragments of a datagram agree. */
	wr16(a + 6, 0x0010);
	wr16(b + 6, 0x0010);
	wr16(b + 20, 1);
	b[9] = 6;
	CHECK_EQ(ip4_flow_hash(a), ip4_flow_hash(b));
}

static void test_icmp(void)
{
	uint8_t ip[28], frame[ICMP_ERR_FRAME_MAX];
	const uint8_t dmac[6] = {2, 0, 0, 0, 0, 1}, smac[6] = {2, 0, 0, 0, 0, 2};

	make_ip(ip, 1, 0x0a000102, 0x0a000202, 17);
	CHECK(icmp4_error_allowed(ip, false));
	CHECK(!icmp4_error_allowed(ip, true));
	uint32_t len =
	    icmp4_error_build(frame, ip, 28, dmac, smac, 0x0a000101, ICMP_TIME_EXCEEDED, 0, 0);
	CHECK_EQ(len, 14 + 20 + 8 + 28);
	CHECK(!memcmp(frame, dmac, 6) && !memcmp(frame + 6, smac, 6));
	CHECK_EQ(rd16(frame + 12), ETHERTYPE_IPV4);
	const uint8_t *oip = frame + 14;
	CHECK_EQ(ip4_validate(oip, len - 14, false), IP4_OK);
	CHECK_EQ(rd32(oip + 12), 0x0a000101);
	CHECK_EQ(rd32(oip + 16), 0x0a000102);
	CHECK_EQ(oip[9], 1);
	CHECK_EQ(oip[20], ICMP_TIME_EXCEEDED);
	CHECK_EQ(csum_compute(oip + 20, len - 34), 0);
	CHECK(!memcmp(oip + 28, ip, 28));

	/* Frag needed carries the next-hop MTU (RFC 1191). */
	len = icmp4_error_build(frame, ip, 28, dmac, smac, 0x0a000101, ICMP_DEST_UNREACH,
	                        ICMP_CODE_FRAG_NEEDED, 1400);
	CHECK_EQ(rd16(frame + 14 + 20 + 6), 1400);

	/* Quote at most 548 bytes so the error stays within 576 (RFC 1812 4.3.2.3). */
	static uint8_t big[1500];
	make_ip(big, 9, 0x0a000102, 0x0a000202, 17);
	wr16(big + 2, 1500);
	len = icmp4_error_build(frame, big, 1500, dmac, smac, 1, ICMP_TIME_EXCEEDED, 0, 0);
	CHECK_EQ(len, 14 + 576);

	/* Never an error about an ICMP error, a non-first fragment or a multicast destination. */
	uint8_t err[28];
	make_ip(err, 9, 0x0a000102, 0x0a000202, 1);
	wr16(err + 2, 28);
	err[20] = 3;
	CHECK(!icmp4_error_allowed(err, false));
	err[20] = 8; /* echo request may get an error */
	CHECK(icmp4_error_allowed(err, false));
	make_ip(ip, 9, 0x0a000102, 0x0a000202, 17);
	wr16(ip + 6, 0x0004);
	CHECK(!icmp4_error_allowed(ip, false));
	make_ip(ip, 9, 0x0a000102, 0xe0000001, 17);
	CHECK(!icmp4_error_allowed(ip, false));
}

static void test_arp(void)
{
	uint8_t f[ARP_FRAME_LEN];
	const uint8_t mac[6] = {2, 1, 2, 3, 4, 5};
	struct arp_info a;

	CHECK_EQ(arp_request_build(f, mac, 0x0a000101, 0x0a000102, NULL), 60);
	CHECK(f[0] == 0xff && f[5] == 0xff);
	CHECK(arp_parse(f, sizeof(f), &a));
	CHECK_EQ(a.op, ARP_OP_REQUEST);
	CHECK_EQ(a.spa, 0x0a000101);
	CHECK_EQ(a.tpa, 0x0a000102);
	CHECK(!memcmp(a.sha, mac, 6));
	CHECK(!arp_parse(f, 41, &a)); /* truncated */
	f[14 + 4] = 8;                /* hardware length not 6 */
	CHECK(!arp_parse(f, sizeof(f), &a));
	arp_request_build(f, mac, 1, 2, mac);
	CHECK(!memcmp(f, mac, 6)); /* unicast probe */
	wr16(f + 14 + 6, 7);       /* unknown op */
	CHECK(!arp_parse(f, sizeof(f), &a));
}

/* Verify an L4 checksum the independent way: the sum over pseudo-header and segment is 0. */
static bool l4_csum_ok(const uint8_t *ip)
{
	uint32_t l4len = rd16(ip + 2) - 20u;
	uint8_t pseudo[12];

	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = ip[9];
	wr16(pseudo + 10, (uint16_t)l4len);
	return csum_fold(csum_partial_sum(ip + 20, l4len, csum_partial_sum(pseudo, 12, 0))) == 0;
}

static void test_l4_csum(void)
{
	uint8_t ip[20 + 40];

	for (int proto = 6; proto <= 17; proto += 11) {
		memset(ip, 0, sizeof(ip));
		ip[0] = 0x45;
		wr16(ip + 2, sizeof(ip));
		ip[8] = 64;
		ip[9] = (uint8_t)proto;
		wr32(ip + 12, 0x0a000102);
		wr32(ip + 16, 0x0a000202);
		for (unsigned i = 20; i < sizeof(ip); i++)
			ip[i] = (uint8_t)(i * 7);
		ip[20 + 12] = 0x50; /* TCP data offset 5 */
		/* What a sender with TX offload leaves: only the pseudo-header sum, or garbage. */
		wr16(ip + 20 + (proto == 6 ? 16 : 6), 0x1234);
		wr16(ip + 20 + 4, proto == 17 ? 40 : 0x1111);
		CHECK(!l4_csum_ok(ip));
		ip4_l4_csum_complete(ip);
		CHECK(l4_csum_ok(ip));
	}
	/* Fragments are left alone. */
	wr16(ip + 6, 0x2000);
	wr16(ip + 20 + 6, 0x4242);
	ip4_l4_csum_complete(ip);
	CHECK_EQ(rd16(ip + 20 + 6), 0x4242);
}

/*
 * Fragment a datagram with options, then reassemble the pieces the way a host
 * would (RFC 791 3.2) and compare with the original.
 */
static void test_fragment(void)
{
	static uint8_t ip[3000], frag[1500], joined[3000];
	struct ip4_frag_iter it;
	uint32_t hlen = 28, tot = 2801, covered = 0;
	unsigned n = 0;

	memset(ip, 0, sizeof(ip));
	ip[0] = 0x40 | (uint8_t)(hlen / 4);
	wr16(ip + 2, (uint16_t)tot);
	ip[8] = 30;
	ip[9] = 17;
	wr32(ip + 12, 0x0a000102);
	wr32(ip + 16, 0x0a000202);
	/* Options: Router Alert (0x94, copied) + Record Route-ish (0x07, not copied) */
	const uint8_t opts[8] = {0x94, 4, 0, 0, 0x07, 3, 4, 0};
	memcpy(ip + 20, opts, 8);
	for (uint32_t i = hlen; i < tot; i++)
		ip[i] = (uint8_t)(i * 13);
	wr16(ip + 10, csum_compute(ip, hlen));

	CHECK_EQ(ip4_frag_init(&it, ip, 1500), 0);
	memcpy(joined, ip, hlen);
	uint32_t len;
	while ((len = ip4_frag_next(&it, frag)) != 0) {
		uint32_t fh = (uint32_t)(frag[0] & 0x0f) * 4;
		uint16_t fo = rd16(frag + 6);
		CHECK(len <= 1500);
		CHECK_EQ(rd16(frag + 2), len);
		CHECK_EQ(csum_compute(frag, fh), 0);
		CHECK_EQ((fo & 0x1fff) * 8u, covered);
		if (n == 0) {
			CHECK_EQ(fh, hlen);
		} else {
			CHECK_EQ(fh, 24); /* only the copied option, padded */
			CHECK(frag[20] == 0x94 && frag[21] == 4);
		}
		bool more = fo & 0x2000;
		CHECK(more == (covered + (len - fh) < tot - hlen));
		if (more)
			CHECK_EQ((len - fh) % 8, 0);
		memcpy(joined + hlen + covered, frag + fh, len - fh);
		covered += len - fh;
		n++;
	}
	CHECK_EQ(n, 2);
	CHECK_EQ(covered, tot - hlen);
	CHECK(!memcmp(joined + hlen, ip + hlen, tot - hlen));

	/* A fragment of a fragment keeps its offset base and the original MF. */
	wr16(ip + 6, 0x2000 | 100);
	CHECK_EQ(ip4_frag_init(&it, ip, 600), 0);
	len = ip4_frag_next(&it, frag);
	CHECK_EQ(rd16(frag + 6), 0x2000 | 100);
	uint16_t last = 0;
	while ((len = ip4_frag_next(&it, frag)) != 0)
		last = rd16(frag + 6);
	CHECK_EQ(last & 0x2000, 0x2000);
	CHECK(ip4_frag_init(&it, ip, 30) !=
	      0); /* no room for 8 data bytes after a 28-byte header */
}

static void test_event_ring(void)
{
	static struct event_ring r;
	struct dp_event e = {.type = DP_EV_RESOLVE}, out;
	unsigned pushed = 0;

	while (event_ring_push(&r, &e)) {
		e.ip++;
		pushed++;
	}
	CHECK_EQ(pushed, EVENT_RING_SIZE);
	for (unsigned i = 0; i < pushed; i++) {
		if (!event_ring_pop(&r, &out) || out.ip != i) {
			CHECK(!"ring order");
			return;
		}
	}
	CHECK(!event_ring_pop(&r, &out));
}

int main(void)
{
	test_validate();
	test_ttl();
	test_martians();
	test_flow_hash();
	test_icmp();
	test_arp();
	test_l4_csum();
	test_fragment();
	test_event_ring();
	return check_report("test_ip4");
}
