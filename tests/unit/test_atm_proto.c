/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ATM control and transport formats: F5 OAM loopback cells and their CRC-10
 * (I.610), InATMARP packets (RFC 2225 §8.7), cell pseudowire frames (RFC 4717 §5.1)
 * and PW sequence numbers (RFC 4385 §4); then random input to every parser.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/atm/cell.h"
#include "datapath/atm/inatmarp.h"
#include "datapath/atm/oam.h"
#include "datapath/atm/pw.h"
#include "tests/unit/check.h"

/* CRC-10 one bit at a time, over whole octets: the definition. */
static uint16_t crc10_bitwise(const uint8_t *p, size_t len)
{
	uint16_t c = 0;

	while (len--) {
		c ^= (uint16_t)(*p++ << 2);
		for (int b = 0; b < 8; b++)
			c = (uint16_t)(((c & 0x200) ? (c << 1) ^ 0x233 : c << 1) & 0x3ff);
	}
	return c;
}

static void fill_rand(uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)rand();
}

static void test_crc10(void)
{
	uint8_t cell[48];

	CHECK_EQ(oam_crc10((const uint8_t *)"123456789", 9), 0x199);
	CHECK_EQ(crc10_bitwise((const uint8_t *)"123456789", 9), 0x199);
	srand(3);
	for (int i = 0; i < 2000; i++) {
		size_t len = (size_t)rand() % 49;

		fill_rand(cell, sizeof(cell));
		CHECK_EQ(oam_crc10(cell, len), crc10_bitwise(cell, len));
		oam_crc10_set(cell);
		if (!oam_crc10_ok(cell) || (cell[46] & 0xfc)) {
			CHECK(oam_crc10_ok(cell));
			CHECK_EQ(cell[46] & 0xfc, 0);
			break;
		}
	}
	/* Every single-bit error in a good cell is detected. */
	int missed = 0;
	for (int bit = 0; bit < 384; bit++) {
		cell[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
		missed += oam_crc10_ok(cell);
		cell[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
	}
	CHECK_EQ(missed, 0);
	CHECK(oam_crc10_ok(cell));
}

static void test_oam_loopback(void)
{
	struct oam_loopback lb = {.indication = 1, .tag = 0xdeadbeef}, got;
	uint8_t cell[48], tf = 0;

	memset(lb.location_id, 0xff, 16); /* all ones: the end point */
	for (int i = 0; i < 16; i++)
		lb.source_id[i] = (uint8_t)(0xa0 + i);
	oam_loopback_build(cell, &lb);

	CHECK_EQ(cell[0], 0x18);
	CHECK_EQ(cell[1], 0x01);
	CHECK(!memcmp(cell + 2, "\xde\xad\xbe\xef", 4));
	CHECK_EQ(cell[6], 0xff);
	CHECK_EQ(cell[21], 0xff);
	CHECK_EQ(cell[22], 0xa0);
	CHECK_EQ(cell[37], 0xaf);
	CHECK(!memcmp(cell + 38, "\x6a\x6a\x6a\x6a\x6a\x6a\x6a\x6a", 8));
	CHECK_EQ(cell[46] & 0xfc, 0);
	CHECK_EQ(oam_crc10(cell, 48), 0);

	memset(&got, 0, sizeof(got));
	CHECK_EQ(oam_parse(cell, &tf, &got), 0);
	CHECK_EQ(tf, OAM_TF_LOOPBACK);
	CHECK_EQ(got.indication, 1);
	CHECK_EQ(got.tag, 0xdeadbeef);
	CHECK(!memcmp(got.location_id, lb.location_id, 16));
	CHECK(!memcmp(got.source_id, lb.source_id, 16));
	CHECK_EQ(oam_parse(cell, &tf, NULL), 0);

	/* The reply: indication 0, same tag. Reserved bits of the indication octet are ignored. */
	lb.indication = 0;
	oam_loopback_build(cell, &lb);
	CHECK_EQ(cell[1], 0);
	cell[1] = 0xfe;
	oam_crc10_set(cell);
	CHECK_EQ(oam_parse(cell, &tf, &got), 0);
	CHECK_EQ(got.indication, 0);
	CHECK_EQ(got.tag, 0xdeadbeef);

	cell[10] ^= 0x04;
	CHECK_EQ(oam_parse(cell, &tf, &got), OAM_ERR_CRC);

	/* AIS, RDI, CC: good CRC, reported by type, not parsed. */
	static const uint8_t tfs[] = {OAM_TF_AIS, OAM_TF_RDI, OAM_TF_CC, 0x20, 0x81};
	for (unsigned i = 0; i < sizeof(tfs); i++) {
		memset(cell, 0x6a, 48);
		cell[0] = tfs[i];
		oam_crc10_set(cell);
		tf = 0;
		CHECK_EQ(oam_parse(cell, &tf, &got), OAM_ERR_UNSUPPORTED);
		CHECK_EQ(tf, tfs[i]);
	}

	CHECK_EQ(oam_hdr_word(8, 35, false), 0x00800238);
	CHECK_EQ(oam_hdr_word(8, 35, true), 0x0080023a);
	CHECK_EQ(atm_hdr_pti(oam_hdr_word(0, 5, true)), ATM_PTI_OAM_E2E);
	CHECK_EQ(atm_hdr_pti(oam_hdr_word(0, 5, false)), ATM_PTI_OAM_SEG);
}

static void test_inatmarp(void)
{
	struct inatmarp m = {INATMARP_OP_REQUEST, 0x0a000001, 0}, got;
	uint8_t p[64];

	CHECK_EQ(inatmarp_build(p, sizeof(p), &m), INATMARP_LEN);
	CHECK(!memcmp(p,
	              "\x00\x13\x08\x00\x00\x00\x00\x08\x04\x00\x00\x04"
	              "\x0a\x00\x00\x01\x00\x00\x00\x00",
	              20));
	CHECK_EQ(inatmarp_parse(p, 20, &got), 0);
	CHECK_EQ(got.op, INATMARP_OP_REQUEST);
	CHECK_EQ(got.spa, 0x0a000001);
	CHECK_EQ(got.tpa, 0);

	m = (struct inatmarp){INATMARP_OP_REPLY, 0xc0a80102, 0x0a000001};
	CHECK_EQ(inatmarp_build(p, sizeof(p), &m), 20);
	CHECK_EQ(inatmarp_parse(p, 20, &got), 0);
	CHECK(got.op == 9 && got.spa == 0xc0a80102 && got.tpa == 0x0a000001);
	CHECK_EQ(inatmarp_parse(p, 30, &got), 0); /* trailing octets ignored */

	CHECK_EQ(inatmarp_build(p, 19, &m), 0);
	m.op = 1;
	CHECK_EQ(inatmarp_build(p, sizeof(p), &m), 0);
	m.op = INATMARP_OP_NAK;
	CHECK_EQ(inatmarp_build(p, sizeof(p), &m), 20);
	CHECK_EQ(inatmarp_parse(p, 20, &got), 0);
	CHECK_EQ(got.op, 10);

	/* A request without a target address (ar$tpln 0, as Linux CLIP sends it). */
	static const uint8_t clip_req[16] = {0x00, 0x13, 0x08, 0x00, 0,  0, 0x00, 0x08,
	                                     0x04, 0,    0,    0x00, 10, 1, 2,    3};
	CHECK_EQ(inatmarp_parse(clip_req, 16, &got), 0);
	CHECK(got.op == 8 && got.spa == 0x0a010203 && got.tpa == 0);

	/*
	 * ATM addresses present (SVC-style): a 20-octet NSAP source number, an 8-octet E.164
	 * target number (type bit 0x40) and a 2-octet target subaddress, all skipped.
	 */
	uint8_t svc[12 + 20 + 4 + 8 + 2 + 4] = {0x00, 0x13, 0x08, 0x00, 20, 0,
	                                        0x00, 0x09, 4,    0x48, 2,  4};
	memset(svc + 12, 0x47, 20);
	memcpy(svc + 32, "\xc0\x00\x02\x01", 4);
	memset(svc + 36, 0x31, 10);
	memcpy(svc + 46, "\xc0\x00\x02\x02", 4);
	CHECK_EQ(inatmarp_parse(svc, sizeof(svc), &got), 0);
	CHECK(got.op == 9 && got.spa == 0xc0000201 && got.tpa == 0xc0000202);
	CHECK_EQ(inatmarp_parse(svc, sizeof(svc) - 1, &got), INATMARP_ERR_SHORT);
	svc[5] = 3; /* a source subaddress of 3 octets moves everything after it */
	CHECK_EQ(inatmarp_parse(svc, sizeof(svc), &got), INATMARP_ERR_SHORT);

	/* Malformed: one reason each. */
	m = (struct inatmarp){INATMARP_OP_REPLY, 1, 2};
	inatmarp_build(p, sizeof(p), &m);
	CHECK_EQ(inatmarp_parse(p, 11, &got), INATMARP_ERR_SHORT);
	CHECK_EQ(inatmarp_parse(p, 19, &got), INATMARP_ERR_SHORT);
	p[1] = 0x01; /* Ethernet hardware type */
	CHECK_EQ(inatmarp_parse(p, 20, &got), INATMARP_ERR_HRD);
	p[1] = 0x13;
	p[2] = 0x86;
	p[3] = 0xdd;
	CHECK_EQ(inatmarp_parse(p, 20, &got), INATMARP_ERR_PRO);
	p[2] = 0x08;
	p[3] = 0x00;
	p[7] = 1; /* plain ARP request */
	CHECK_EQ(inatmarp_parse(p, 20, &got), INATMARP_ERR_OP);
	p[7] = 9;
	p[8] = 16; /* IPv6-length sender */
	CHECK_EQ(inatmarp_parse(p, 20, &got), INATMARP_ERR_PLEN);
	p[8] = 4;
	p[11] = 0; /* reply without target */
	CHECK_EQ(inatmarp_parse(p, 20, &got), INATMARP_ERR_PLEN);
	p[11] = 4;
	p[9] = 0x80; /* reserved type/length bit */
	CHECK_EQ(inatmarp_parse(p, 20, &got), INATMARP_ERR_TL);
	p[9] = 0x3f; /* a 63-octet target number that is not there */
	CHECK_EQ(inatmarp_parse(p, 20, &got), INATMARP_ERR_SHORT);
	p[9] = 0;
	CHECK_EQ(inatmarp_parse(p, 20, &got), 0);
}

static const struct pw_encap pw_cw = {
    {0x02, 0, 0, 0, 0, 0x02}, {0x02, 0, 0, 0, 0, 0x01}, 0x12345, true};

static void test_pw(void)
{
	uint8_t f[PW_HDR_MAX + 3 * ATM_PW_CELL_SIZE + 1];
	struct pw_frame pf;
	struct pw_encap e = pw_cw;

	CHECK_EQ(pw_frame_header(f, &e, 0x1234), 22);
	CHECK(!memcmp(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x88\x47", 14));
	CHECK(!memcmp(f + 14, "\x12\x34\x51\x40", 4)); /* label 0x12345, TC 0, S 1, TTL 64 */
	CHECK(!memcmp(f + 18, "\x00\x00\x12\x34", 4));
	memset(f + 22, 0x11, 3 * 52);
	CHECK_EQ(pw_frame_parse(f, 22 + 3 * 52, 0x12345, true, &pf), 0);
	CHECK(pf.cells == f + 22);
	CHECK_EQ(pf.ncells, 3);
	CHECK_EQ(pf.seq, 0x1234);
	CHECK(pf.has_seq);

	CHECK_EQ(pw_frame_header(f, &e, 0), 22);
	CHECK_EQ(pw_frame_parse(f, 22 + 52, 0x12345, true, &pf), 0);
	CHECK(!pf.has_seq);

	e.control_word = false;
	CHECK_EQ(pw_frame_header(f, &e, 99), 18);
	memset(f + 18, 0x22, 52);
	CHECK_EQ(pw_frame_parse(f, 18 + 52, 0x12345, false, &pf), 0);
	CHECK(pf.cells == f + 18 && pf.ncells == 1 && !pf.has_seq && pf.seq == 0);

	e.label = 0x100000;
	CHECK_EQ(pw_frame_header(f, &e, 1), 0);

	/* Every error kind. */
	e = pw_cw;
	pw_frame_header(f, &e, 7);
	CHECK_EQ(pw_frame_parse(f, 13, 0x12345, true, &pf), PW_ERR_TRUNCATED);
	CHECK_EQ(pw_frame_parse(f, 17, 0x12345, true, &pf), PW_ERR_TRUNCATED);
	CHECK_EQ(pw_frame_parse(f, 21, 0x12345, true, &pf), PW_ERR_TRUNCATED);
	CHECK_EQ(pw_frame_parse(f, 22, 0x12345, true, &pf), PW_ERR_PAYLOAD);
	CHECK_EQ(pw_frame_parse(f, 22 + 51, 0x12345, true, &pf), PW_ERR_PAYLOAD);
	CHECK_EQ(pw_frame_parse(f, 22 + 53, 0x12345, true, &pf), PW_ERR_PAYLOAD);
	CHECK_EQ(pw_frame_parse(f, 22 + 104, 0x12345, true, &pf), 0);
	CHECK_EQ(pw_frame_parse(f, 22 + 104, 0x12346, true, &pf), PW_ERR_LABEL);
	/* Without a CW the same frame is 4 octets off a multiple of 52. */
	CHECK_EQ(pw_frame_parse(f, 22 + 104, 0x12345, false, &pf), PW_ERR_PAYLOAD);
	f[18] = 0x10; /* an associated channel header (first nibble 1) */
	CHECK_EQ(pw_frame_parse(f, 22 + 52, 0x12345, true, &pf), PW_ERR_CONTROL_WORD);
	f[18] = 0;
	f[16] &= (uint8_t)~0x01; /* S = 0: a second label follows */
	CHECK_EQ(pw_frame_parse(f, 22 + 52, 0x12345, true, &pf), PW_ERR_LABEL_STACK);
	f[16] |= 0x01;
	f[13] = 0x48; /* MPLS multicast */
	CHECK_EQ(pw_frame_parse(f, 22 + 52, 0x12345, true, &pf), PW_ERR_ETHERTYPE);
	f[12] = 0x81; /* a VLAN tag */
	f[13] = 0x00;
	CHECK_EQ(pw_frame_parse(f, 22 + 52, 0x12345, true, &pf), PW_ERR_ETHERTYPE);
}

static void test_pw_seq(void)
{
	CHECK_EQ(pw_seq_next(0), 1);
	CHECK_EQ(pw_seq_next(1), 2);
	CHECK_EQ(pw_seq_next(65534), 65535);
	CHECK_EQ(pw_seq_next(65535), 1); /* 0 is skipped */
}

/* Random bytes into every parser: no crash (ASan/UBSan builds), results in their sets. */
static void test_random_input(void)
{
	static uint8_t buf[600];
	int bad = 0;

	srand(11);
	for (int i = 0; i < 100000; i++) {
		size_t len = (size_t)rand() % sizeof(buf);
		struct inatmarp m;
		struct pw_frame pf;
		struct oam_loopback lb;
		uint8_t tf;

		fill_rand(buf, len);
		if (i & 1) { /* make the early checks pass, so the deep ones run */
			memcpy(buf, "\x00\x13\x08\x00", len < 4 ? len : 4);
			if (len > 7)
				buf[7] = (uint8_t)(8 + i % 3);
			if (len > 8)
				buf[8] = 4;
		}
		int r = inatmarp_parse(buf, len, &m);
		bad += r > 0 || r < INATMARP_ERR_TL || (r == 0 && len < 16);

		fill_rand(buf, len);
		if (i & 1) {
			memcpy(buf + 12, "\x88\x47\x12\x34\x51\x40\x00\x00", len < 20 ? 0 : 8);
		}
		r = pw_frame_parse(buf, len, 0x12345, i & 2, &pf);
		bad += r > 0 || r < PW_ERR_PAYLOAD;
		if (r == 0)
			bad += pf.ncells == 0 || pf.cells + pf.ncells * 52 > buf + len;

		fill_rand(buf, 48);
		if (i & 1)
			oam_crc10_set(buf);
		r = oam_parse(buf, &tf, &lb);
		bad += r > 0 || r < OAM_ERR_UNSUPPORTED || ((i & 1) && r == OAM_ERR_CRC);
	}
	CHECK_EQ(bad, 0);
}

int main(void)
{
	test_crc10();
	test_oam_loopback();
	test_inatmarp();
	test_pw();
	test_pw_seq();
	test_random_input();
	return check_report("test_atm_proto");
}
