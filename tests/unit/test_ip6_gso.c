/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 software GSO (datapath/ip6_gso.c): segments carry the right lengths,
 * sequence numbers and flags, complete checksums, and together exactly the
 * super-packet's payload; headers that do not match the GSO type are refused.
 */
#include <errno.h>
#include <string.h>

#include "datapath/csum.h"
#include "datapath/ip6_gso.h"
#include "datapath/pkt.h"
#include "tests/unit/check_ip6.h"

#define PAYLOAD_MAX 8000
#define SEG_MAX     (IP6_HLEN + 8 + 60 + PAYLOAD_MAX)

static uint8_t pkt[SEG_MAX], seg[SEG_MAX], joined[PAYLOAD_MAX];

/*
 * A super-packet: IPv6, optionally an 8-byte Destination Options header, then
 * TCP (with `opt` bytes of options) or UDP, then `payload` bytes 0, 1, 2, ...
 * The L4 checksum is left as the sender's offload leaves it (garbage here).
 */
static uint32_t build(uint8_t proto, bool dstopts, unsigned opt, uint32_t payload,
                      struct ip6_info *info)
{
	uint32_t off = IP6_HLEN + (dstopts ? 8 : 0);
	uint32_t l4h = proto == IP6_NH_TCP ? 20 + opt : 8;
	uint32_t len = off + l4h + payload;

	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x60 | 0x0b; /* traffic class and flow label survive segmentation */
	pkt[1] = 0xc1;
	pkt[3] = 0x77;
	wr16(pkt + 4, (uint16_t)(len - IP6_HLEN));
	pkt[6] = dstopts ? 60 : proto;
	pkt[7] = 63;
	memcpy(pkt + 8, a6("2001:db8:1::2"), 16);
	memcpy(pkt + 24, a6("2001:db8:4::2"), 16);
	if (dstopts) {
		pkt[IP6_HLEN] = proto;
		pkt[IP6_HLEN + 1] = 0;
		pkt[IP6_HLEN + 2] = 1; /* PadN over the rest */
		pkt[IP6_HLEN + 3] = 4;
	}
	uint8_t *l4 = pkt + off;
	if (proto == IP6_NH_TCP) {
		wr16(l4, 40000);
		wr16(l4 + 2, 5201);
		wr32(l4 + 4, 0xfffffc00); /* wraps within the packet */
		l4[12] = (uint8_t)((l4h / 4) << 4);
		l4[13] = 0x80 | 0x10 | 0x08 | 0x01; /* CWR ACK PSH FIN */
		wr16(l4 + 16, 0xdead);
		for (unsigned i = 20; i < l4h; i++)
			l4[i] = 1; /* NOP options */
	} else {
		wr16(l4, 4000);
		wr16(l4 + 2, 9);
		wr16(l4 + 4, (uint16_t)(8 + payload));
		wr16(l4 + 6, 0xbeef);
	}
	for (uint32_t i = 0; i < payload; i++)
		l4[l4h + i] = (uint8_t)(i * 7 + 3);
	CHECK_EQ(ip6_validate(pkt, len, info), IP6_OK);
	return len;
}

/* The L4 checksum over the pseudo-header checks out (sums to 0xffff, RFC 8200 8.1). */
static bool l4_csum_ok(const uint8_t *ip, uint32_t l4_off, uint32_t len, uint8_t proto)
{
	uint32_t l4len = len - l4_off;
	uint32_t sum = csum_partial_sum(ip + 8, 32, 0) + (l4len >> 16) + (l4len & 0xffff) + proto;

	return csum_fold(csum_partial_sum(ip + l4_off, l4len, sum)) == 0;
}

static void segment_and_check(uint8_t proto, bool dstopts, unsigned opt, uint32_t payload,
                              uint16_t gso_size, uint8_t gso_type)
{
	struct ip6_info info;
	struct ip6_gso_iter it;
	uint32_t len = build(proto, dstopts, opt, payload, &info), l, got = 0;
	uint32_t l4h = proto == IP6_NH_TCP ? 20 + opt : 8, hdrs = info.l4_off + l4h;
	unsigned n = 0, want = payload ? (payload + gso_size - 1) / gso_size : 1;

	CHECK_EQ(ip6_gso_init(&it, pkt, &info, gso_type, gso_size), 0);
	CHECK_EQ(ip6_gso_seg_len(&it), hdrs + gso_size);
	CHECK_EQ(len, hdrs + payload);
	while ((l = ip6_gso_next(&it, seg)) != 0) {
		uint32_t chunk = l - hdrs;
		bool last = ip6_gso_done(&it);

		CHECK(l <= ip6_gso_seg_len(&it));
		CHECK_EQ(last, n + 1 == want);
		CHECK_EQ(rd16(seg + 4), l - IP6_HLEN);
		CHECK(memcmp(seg, pkt, 4) == 0 && memcmp(seg + 6, pkt + 6, 34) == 0);
		CHECK(memcmp(seg + IP6_HLEN, pkt + IP6_HLEN, info.l4_off - IP6_HLEN) == 0);
		CHECK(l4_csum_ok(seg, info.l4_off, l, proto));
		const uint8_t *l4 = seg + info.l4_off;
		if (proto == IP6_NH_TCP) {
			CHECK_EQ(rd32(l4 + 4), (uint32_t)(0xfffffc00u + got));
			CHECK_EQ(l4[13] & 0x09, last ? 0x09 : 0);       /* FIN, PSH: last only */
			CHECK_EQ(l4[13] & 0x80, n == 0 ? 0x80 : 0);     /* CWR: first only */
			CHECK(l4[13] & 0x10);                           /* ACK: all */
		} else {
			CHECK_EQ(rd16(l4 + 4), 8 + chunk);
		}
		CHECK(got + chunk <= payload);
		if (got + chunk <= payload)
			memcpy(joined + got, seg + hdrs, chunk);
		got += chunk;
		n++;
	}
	CHECK_EQ(n, want);
	CHECK_EQ(got, payload);
	CHECK(memcmp(joined, pkt + hdrs, payload) == 0);
	CHECK_EQ(ip6_gso_next(&it, seg), 0);
}

static void test_refused(void)
{
	struct ip6_info info;
	struct ip6_gso_iter it;

	build(IP6_NH_TCP, false, 0, 3000, &info);
	CHECK_EQ(ip6_gso_init(&it, pkt, &info, PKT_GSO_TCP6, 0), -EINVAL);
	CHECK_EQ(ip6_gso_init(&it, pkt, &info, PKT_GSO_UDP_L4, 1000), -EINVAL);
	CHECK_EQ(ip6_gso_init(&it, pkt, &info, PKT_GSO_TCP4, 1000), -EINVAL);
	CHECK_EQ(ip6_gso_init(&it, pkt, &info, PKT_GSO_TCP6 | PKT_GSO_ECN, 1000), 0);
	struct ip6_info frag = info;
	frag.flags |= IP6_F_FRAGMENT;
	CHECK_EQ(ip6_gso_init(&it, pkt, &frag, PKT_GSO_TCP6, 1000), -EINVAL);
	/* A TCP data offset reaching past the packet. */
	build(IP6_NH_TCP, false, 0, 10, &info);
	pkt[IP6_HLEN + 12] = 0xf0;
	CHECK_EQ(ip6_gso_init(&it, pkt, &info, PKT_GSO_TCP6, 1000), -EINVAL);
	build(IP6_NH_UDP, false, 0, 3000, &info);
	CHECK_EQ(ip6_gso_init(&it, pkt, &info, PKT_GSO_TCP6, 1000), -EINVAL);
}

int main(void)
{
	segment_and_check(IP6_NH_TCP, false, 0, 3000, 1000, PKT_GSO_TCP6);    /* even */
	segment_and_check(IP6_NH_TCP, false, 12, 2500, 1000, PKT_GSO_TCP6);   /* short last, options */
	segment_and_check(IP6_NH_TCP, true, 0, 7777, 1428, PKT_GSO_TCP6 | PKT_GSO_ECN);
	segment_and_check(IP6_NH_TCP, false, 0, 999, 1000, PKT_GSO_TCP6);     /* one segment */
	segment_and_check(IP6_NH_TCP, false, 0, 0, 1000, PKT_GSO_TCP6);       /* headers only */
	segment_and_check(IP6_NH_UDP, false, 0, 4000, 1452, PKT_GSO_UDP_L4);
	segment_and_check(IP6_NH_UDP, true, 0, 1, 1452, PKT_GSO_UDP_L4);
	test_refused();
	return check_report("test_ip6_gso");
}
