/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ATM cell layer and helpers: the UNI header word and its HEC (I.361, I.432.1), the
 * AAL5 CRC-32 in both implementations against the vectors of notes/atm.md and a
 * bit-at-a-time reference, RFC 2684 encapsulation, and the cell shaper's rate bound.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cellgate-build.h"
#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

#include "datapath/atm/aal5_crc.h"
#include "datapath/atm/cell.h"
#include "datapath/atm/rfc2684.h"
#include "datapath/atm/shaper.h"
#include "tests/unit/check.h"

/* CRC-32/BZIP2 one bit at a time: the definition, to check the tables against. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t len)
{
	uint32_t c = 0xffffffffu;

	while (len--) {
		c ^= (uint32_t)*p++ << 24;
		for (int b = 0; b < 8; b++)
			c = (c & 0x80000000u) ? (c << 1) ^ 0x04c11db7u : c << 1;
	}
	return ~c;
}

static void test_header_word(void)
{
	uint32_t w = atm_hdr_make(8, 35, ATM_PTI_USER1, 1);

	CHECK_EQ(w, 0x00800233);
	CHECK_EQ(atm_hdr_vpi(w), 8);
	CHECK_EQ(atm_hdr_vci(w), 35);
	CHECK_EQ(atm_hdr_pti(w), ATM_PTI_USER1);
	CHECK_EQ(atm_hdr_clp(w), 1);
	CHECK(atm_hdr_is_last_user_cell(w));
	CHECK(!atm_hdr_is_last_user_cell(atm_hdr_make(8, 35, ATM_PTI_USER2, 0)));
	CHECK(atm_hdr_is_last_user_cell(atm_hdr_make(8, 35, ATM_PTI_USER3, 0)));
	CHECK(!atm_hdr_is_last_user_cell(atm_hdr_make(8, 35, ATM_PTI_OAM_E2E, 0)));

	/* Extremes: GFC stays 0, fields do not bleed into each other. */
	w = atm_hdr_make(255, 65535, 7, 1);
	CHECK_EQ(w, 0x0fffffff);
	CHECK_EQ(atm_hdr_vpi(w), 255);
	CHECK_EQ(atm_hdr_vci(w), 65535);
	CHECK_EQ(atm_hdr_pti(w), 7);
	CHECK_EQ(atm_hdr_make(0x1ff, 0, 0, 0), 0x0ff00000); /* UNI VPI is 8 bits */

	uint8_t b[4];
	atm_hdr_store(b, 0x00800230);
	CHECK(b[0] == 0x00 && b[1] == 0x80 && b[2] == 0x02 && b[3] == 0x30);
	CHECK_EQ(atm_hdr_load(b), 0x00800230);
}

static void test_hec(void)
{
	uint8_t zero[5] = {0, 0, 0, 0, 0};
	uint8_t idle[5] = {0, 0, 0, 1, 0};
	uint8_t vc[5] = {0x00, 0x80, 0x02, 0x30, 0};

	CHECK_EQ(atm_hec(zero), 0x55);
	CHECK_EQ(atm_hec(idle), 0x52); /* I.432.1 idle cell */
	CHECK_EQ(atm_hec(vc), 0xe4);   /* VPI 8 / VCI 35 */

	vc[4] = 0xe4;
	CHECK(atm_hec_ok(vc));
	for (int bit = 0; bit < 40; bit++) { /* every single-bit error is detected */
		vc[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
		CHECK(!atm_hec_ok(vc));
		vc[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
	}
}

static void test_crc32_vectors(void)
{
	const uint8_t *check = (const uint8_t *)"123456789";
	uint8_t pdu[44];

	CHECK_EQ(aal5_crc32(check, 9), 0xfc891918u);
	CHECK_EQ(aal5_crc32_sw(check, 9), 0xfc891918u);
	CHECK_EQ(crc32_bitwise(check, 9), 0xfc891918u);
#ifdef HAVE_ISAL
	/* aal5_crc32 hands buffers this short to the table code: check ISA-L itself too. */
	CHECK_EQ(crc32_ieee(0, check, 9), 0xfc891918u);
	CHECK_EQ(crc32_ieee(crc32_ieee(0, check, 4), check + 4, 5), 0xfc891918u);
#endif
	CHECK_EQ(aal5_crc32(check, 0), 0);
	CHECK_EQ(aal5_crc32_sw(check, 0), 0);

	/* One-cell CPCS-PDUs: 40 octets, UU 0, CPI 0, Length 40; the CRC covers these 44. */
	static const struct {
		int fill; /* -1: 0x01, 0x02, ... 0x28 */
		uint32_t crc;
	} v[] = {{0x00, 0x864d7f99u}, {0xff, 0xc55e457au}, {-1, 0xbf671ed0u}};
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		for (int j = 0; j < 40; j++)
			pdu[j] = (uint8_t)(v[i].fill < 0 ? j + 1 : v[i].fill);
		memcpy(pdu + 40, "\x00\x00\x00\x28", 4);
		CHECK_EQ(aal5_crc32(pdu, 44), v[i].crc);
		CHECK_EQ(aal5_crc32_sw(pdu, 44), v[i].crc);
	}
	CHECK(!strcmp(aal5_crc32_impl(), "isa-l") || !strcmp(aal5_crc32_impl(), "sw"));
}

/* Both implementations equal the bit-at-a-time CRC at every length and alignment, and chain. */
static void test_crc32_random(void)
{
	static uint8_t buf[9300];

	srand(1);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
	for (size_t len = 0; len < 300; len++)
		for (size_t off = 0; off < 8; off++) {
			uint32_t want = crc32_bitwise(buf + off, len);

			CHECK_EQ(aal5_crc32(buf + off, len), want);
			CHECK_EQ(aal5_crc32_sw(buf + off, len), want);
		}
	size_t big[] = {1500, 4096, 9180, 9288};
	for (unsigned i = 0; i < 4; i++) {
		uint32_t want = crc32_bitwise(buf + 3, big[i]);

		CHECK_EQ(aal5_crc32(buf + 3, big[i]), want);
		CHECK_EQ(aal5_crc32_sw(buf + 3, big[i]), want);
		for (size_t cut = 0; cut <= big[i]; cut += 997) {
			uint32_t s = aal5_crc32_update(AAL5_CRC32_INIT, buf + 3, cut);
			uint32_t t = aal5_crc32_sw_update(AAL5_CRC32_INIT, buf + 3, cut);

			s = aal5_crc32_update(s, buf + 3 + cut, big[i] - cut);
			t = aal5_crc32_sw_update(t, buf + 3 + cut, big[i] - cut);
			CHECK_EQ(aal5_crc32_final(s), want);
			CHECK_EQ(aal5_crc32_final(t), want);
		}
	}
}

/*
 * Bridged Ethernet without FCS, RFC 2684 5.2 (LLC 00-80-C2 PID 00-07, PAD) and
 * 6.2 (PAD only), as br2684ctl -p 1 sends it (checked in tests/vm): the
 * payload of the frame inside, its header just before.
 */
static void test_rfc2684_bridged(void)
{
	static const uint8_t llc[10] = {0xaa, 0xaa, 0x03, 0x00, 0x80, 0xc2, 0x00, 0x07, 0x00, 0x00};
	uint8_t sdu[80] = {0}, h[10];
	uint16_t et = 0;
	size_t hl = 0;

	CHECK_EQ(rfc2684_bridged_hdr(RFC2684_LLC_BRIDGED, h), 10);
	CHECK(!memcmp(h, llc, 10));
	CHECK_EQ(rfc2684_bridged_hdr(RFC2684_VCMUX_BRIDGED, h), 2);
	CHECK(h[0] == 0 && h[1] == 0);
	CHECK_EQ(rfc2684_bridged_hdr_len(RFC2684_LLC_ROUTED), 0);

	memcpy(sdu, llc, 10);
	sdu[10 + 12] = 0x08; /* EtherType 0x0806 at 10 + 12 */
	sdu[10 + 13] = 0x06;
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_BRIDGED, sdu, 52, &et, &hl), 0);
	CHECK(et == 0x0806 && hl == 24);
	/* VC-mux: the PAD, then the frame. */
	CHECK_EQ(rfc2684_decap(RFC2684_VCMUX_BRIDGED, sdu + 8, 44, &et, &hl), 0);
	CHECK(et == 0x0806 && hl == 16);
	/* A header and a frame header, nothing after: short. */
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_BRIDGED, sdu, 24, &et, &hl), RFC2684_ERR_SHORT);
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_BRIDGED, sdu, 5, &et, &hl), RFC2684_ERR_SHORT);
	/* PID 00-01 (with the LAN FCS), a routed PDU, a PAD that is not zero: refused. */
	sdu[7] = 0x01;
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_BRIDGED, sdu, 52, &et, &hl), RFC2684_ERR_UNKNOWN_LLC);
	memcpy(sdu, rfc2684_llc_header(0x0800), 8);
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_BRIDGED, sdu, 52, &et, &hl), RFC2684_ERR_UNKNOWN_LLC);
	sdu[8] = 1;
	CHECK_EQ(rfc2684_decap(RFC2684_VCMUX_BRIDGED, sdu + 8, 44, &et, &hl),
	         RFC2684_ERR_UNKNOWN_LLC);
	/* ... and a bridged PDU is no routed one. */
	memcpy(sdu, llc, 10);
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_ROUTED, sdu, 52, &et, &hl), RFC2684_ERR_UNKNOWN_LLC);
}

static void test_rfc2684(void)
{
	uint8_t sdu[64] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00, 0x45};
	uint16_t et = 0;
	size_t hl = 99;

	CHECK(!memcmp(rfc2684_llc_header(0x0800), "\xaa\xaa\x03\x00\x00\x00\x08\x00", 8));
	CHECK(!memcmp(rfc2684_llc_header(0x86dd), "\xaa\xaa\x03\x00\x00\x00\x86\xdd", 8));
	CHECK(!memcmp(rfc2684_llc_header(0x0806), "\xaa\xaa\x03\x00\x00\x00\x08\x06", 8));
	CHECK(rfc2684_llc_header(0x8847) == NULL);

	CHECK_EQ(rfc2684_decap(RFC2684_LLC_ROUTED, sdu, 28, &et, &hl), 0);
	CHECK_EQ(et, 0x0800);
	CHECK_EQ(hl, 8);
	memcpy(sdu, rfc2684_llc_header(0x86dd), 8);
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_ROUTED, sdu, 48, &et, &hl), 0);
	CHECK_EQ(et, 0x86dd);
	memcpy(sdu, rfc2684_llc_header(0x0806), 8);
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_ROUTED, sdu, 28, &et, &hl), 0);
	CHECK_EQ(et, 0x0806);

	/* A header with nothing after it, or not even a header. */
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_ROUTED, sdu, 8, &et, &hl), RFC2684_ERR_SHORT);
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_ROUTED, sdu, 3, &et, &hl), RFC2684_ERR_SHORT);
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_ROUTED, sdu, 0, &et, &hl), RFC2684_ERR_SHORT);

	/* Bridged Ethernet (RFC 2684 §5.2), ISO NLPID, other EtherType, bad LLC control. */
	static const uint8_t unknown[][10] = {
	    {0xaa, 0xaa, 0x03, 0x00, 0x80, 0xc2, 0x00, 0x07, 0x00, 0x00},
	    {0xfe, 0xfe, 0x03, 0xcc, 0x45, 0x00, 0x00, 0x00, 0x00, 0x00},
	    {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x88, 0x47, 0x00, 0x00},
	    {0xaa, 0xaa, 0x13, 0x00, 0x00, 0x00, 0x08, 0x00, 0x45, 0x00},
	    {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45, 0x00},
	};
	for (unsigned i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		CHECK_EQ(rfc2684_decap(RFC2684_LLC_ROUTED, unknown[i], 10, &et, &hl),
		         RFC2684_ERR_UNKNOWN_LLC);

	/* VC multiplexing (§6.1): no header, the VC says what it carries... */
	uint8_t v4[20] = {0x45}, v6[40] = {0x60};
	CHECK_EQ(rfc2684_decap(RFC2684_VCMUX_IPV4, v4, 20, &et, &hl), 0);
	CHECK_EQ(et, 0x0800);
	CHECK_EQ(hl, 0);
	et = 0;
	hl = 99;
	CHECK_EQ(rfc2684_decap(RFC2684_VCMUX_IPV6, v6, 40, &et, &hl), 0);
	CHECK_EQ(et, 0x86dd);
	CHECK_EQ(hl, 0);
	CHECK_EQ(rfc2684_decap(RFC2684_VCMUX_IPV6, v6, 0, &et, &hl), RFC2684_ERR_SHORT);
	/* ... and carries that protocol only: IPv4 on an IPv6 VC and the reverse, an LLC
	 * header on either, are no PDU of the VC. */
	CHECK_EQ(rfc2684_decap(RFC2684_VCMUX_IPV6, v4, 20, &et, &hl), RFC2684_ERR_UNKNOWN_LLC);
	CHECK_EQ(rfc2684_decap(RFC2684_VCMUX_IPV4, v6, 40, &et, &hl), RFC2684_ERR_UNKNOWN_LLC);
	memcpy(sdu, rfc2684_llc_header(0x86dd), 8);
	CHECK_EQ(rfc2684_decap(RFC2684_VCMUX_IPV6, sdu, 48, &et, &hl), RFC2684_ERR_UNKNOWN_LLC);
	CHECK_EQ(rfc2684_decap(RFC2684_VCMUX_IPV4, sdu, 48, &et, &hl), RFC2684_ERR_UNKNOWN_LLC);
	/* LLC/SNAP IPv6 (§5.1: OUI 00-00-00, PID 0x86DD): the packet follows the 8 octets. */
	sdu[8] = 0x60;
	CHECK_EQ(rfc2684_decap(RFC2684_LLC_ROUTED, sdu, 48, &et, &hl), 0);
	CHECK(et == 0x86dd && hl == 8 && sdu[hl] >> 4 == 6);
	CHECK_EQ(rfc2684_decap((enum rfc2684_encap)7, sdu, 40, &et, &hl), RFC2684_ERR_ENCAP);
}

/*
 * Drive a shaper with unlimited demand at random times and check, at every step, the
 * exact bound granted <= pcr * t / 1e9 + burst. When every poll comes before the bucket
 * could overflow (pcr * step <= burst - 1 cells), no credit is lost either, and
 * granted >= pcr * t / 1e9 - 1.
 */
static void shaper_run(uint32_t pcr, uint32_t burst, uint64_t step_max_ns, uint64_t horizon_ns)
{
	typedef unsigned __int128 u128;
	struct atm_shaper s;
	uint64_t t = 0, granted = 0;
	int over = 0, under = 0, next_bad = 0;
	bool check_under = (u128)pcr * step_max_ns <= (u128)(burst - 1) * ATM_SHAPER_CELL;

	atm_shaper_init(&s, pcr, burst);
	while (t < horizon_ns) {
		t += 1 + (uint64_t)rand() % step_max_ns;
		granted += atm_shaper_take(&s, t, UINT32_MAX);
		if ((u128)granted * ATM_SHAPER_CELL > (u128)pcr * t + (u128)burst * ATM_SHAPER_CELL)
			over++;
		if (check_under && (u128)(granted + 1) * ATM_SHAPER_CELL < (u128)pcr * t)
			under++;
		/* Nothing left now, so the next cell is due strictly later, within 1/pcr. */
		uint64_t next = atm_shaper_next_ns(&s, t);
		if (next <= t || next > t + ATM_SHAPER_CELL / pcr + 1)
			next_bad++;
	}
	CHECK_EQ(over, 0);
	CHECK_EQ(under, 0);
	CHECK_EQ(next_bad, 0);
}

static void test_shaper(void)
{
	struct atm_shaper s;

	/* pcr 0 = unshaped. */
	atm_shaper_init(&s, 0, 0);
	CHECK_EQ(atm_shaper_take(&s, 5, 1000000), 1000000);
	CHECK_EQ(atm_shaper_next_ns(&s, 5), 5);

	/* 1000 cells/s, burst 4: 4 at once, then one per millisecond. */
	atm_shaper_init(&s, 1000, 4);
	CHECK_EQ(atm_shaper_take(&s, 1000, 10), 4);
	CHECK_EQ(atm_shaper_take(&s, 1000, 10), 0);
	CHECK_EQ(atm_shaper_next_ns(&s, 1000), 1001000);
	CHECK_EQ(atm_shaper_take(&s, 1000999, 10), 0);
	CHECK_EQ(atm_shaper_take(&s, 1001000, 10), 1);
	CHECK_EQ(atm_shaper_take(&s, 3501000, 10), 2); /* 2.5 cells accrued: half kept */
	CHECK_EQ(atm_shaper_next_ns(&s, 3501000), 4001000);
	CHECK_EQ(atm_shaper_take(&s, 3501000 - 10, 10), 0); /* time going back grants nothing */
	/* A long idle refills to the burst, not beyond; no overflow after hours. */
	CHECK_EQ(atm_shaper_take(&s, 7200ull * 1000000000ull, 100), 4);

	/* Credit is exact to the nanocell: 2 cells at 3 cells/s take 666666667 ns, not 666666666.
	 */
	atm_shaper_init(&s, 3, 2);
	CHECK_EQ(atm_shaper_take(&s, 1, 10), 2);
	CHECK_EQ(atm_shaper_take(&s, 1 + 666666666, 10), 1);
	CHECK_EQ(s.tokens_nano, 999999998);
	CHECK_EQ(atm_shaper_next_ns(&s, 1 + 666666666), 1 + 666666667);

	/* Burst 0 is taken as 1. */
	atm_shaper_init(&s, 10, 0);
	CHECK_EQ(atm_shaper_take(&s, 1, 5), 1);

	/* No drift: OC-3 line rate, odd rates, 1 cell/s, the 32-bit maximum. */
	srand(7);
	shaper_run(353207, 1, 20000, 2000000000ull); /* polls slower than cells: bound only */
	shaper_run(353207, 32, 80000, 10000000000ull);
	shaper_run(7, 3, 250000000, 100000000000ull);
	shaper_run(1, 2, 900000000, 100000000000ull);
	shaper_run(0xffffffffu, 0xffffffffu, 900000000, 1000000000000ull);
	shaper_run(96000, 1, 1000, 100000000ull);
}

int main(void)
{
	test_header_word();
	test_hec();
	test_crc32_vectors();
	test_crc32_random();
	test_rfc2684();
	test_rfc2684_bridged();
	test_shaper();
	return check_report("test_atm");
}
