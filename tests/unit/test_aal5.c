/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AAL5 SAR (I.363.5): segmentation against the one-cell vectors of notes/atm.md, round
 * trips at every small size and the sizes routers use, with and without an RFC 2684
 * prefix, both cell formats; then every way reassembly fails, the oversize discard
 * rule, the lost-last-cell merge, the reassembly timer, and random cells.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/atm/aal5.h"
#include "datapath/atm/aal5_crc.h"
#include "datapath/atm/cell.h"
#include "datapath/atm/rfc2684.h"
#include "tests/unit/check.h"

#define MAX_SDU   9180
#define MAX_CELLS 1400 /* aal5_cells_for(65535) = 1366 */

static uint8_t cells[MAX_CELLS * ATM_CELL_SIZE];
static uint8_t rbuf[MAX_CELLS * ATM_CELL_PAYLOAD];
static uint8_t sdu[65536];
static const uint32_t vc_word = 0x00800230; /* VPI 8, VCI 35, PTI 0, CLP 0 */

/* Feed `n` cells of size `cs` to `r`; returns the status of the last one. */
static enum aal5_status feed(struct aal5_reasm *r, const uint8_t *c, unsigned n, size_t cs,
                             uint64_t now, uint32_t *len)
{
	enum aal5_status st = AAL5_MORE;
	size_t hl = cs - ATM_CELL_PAYLOAD;

	for (unsigned i = 0; i < n; i++, c += cs)
		st = aal5_reasm_cell(r, c + hl, atm_hdr_is_last_user_cell(atm_hdr_load(c)), now,
		                     len);
	return st;
}

static void test_cells_for(void)
{
	CHECK_EQ(aal5_cells_for(0), 1);
	CHECK_EQ(aal5_cells_for(40), 1);
	CHECK_EQ(aal5_cells_for(41), 2);
	CHECK_EQ(aal5_cells_for(88), 2);
	CHECK_EQ(aal5_cells_for(89), 3);
	CHECK_EQ(aal5_cells_for(1500), 32);
	CHECK_EQ(aal5_cells_for(9180), 192);
	CHECK_EQ(aal5_cells_for(65535), 1366);
}

/* The three 40-octet vectors: one cell whose trailer is 00 00 00 28 + the CRC. */
static void test_segment_vectors(void)
{
	static const struct {
		int fill;
		uint32_t crc;
	} v[] = {{0x00, 0x864d7f99u}, {0xff, 0xc55e457au}, {-1, 0xbf671ed0u}};

	for (unsigned i = 0; i < 3; i++) {
		for (int j = 0; j < 40; j++)
			sdu[j] = (uint8_t)(v[i].fill < 0 ? j + 1 : v[i].fill);
		CHECK_EQ(aal5_segment(NULL, 0, sdu, 40, vc_word, cells, ATM_PW_CELL_SIZE), 1);
		CHECK_EQ(atm_hdr_load(cells), vc_word | 2); /* AUU set on the only cell */
		CHECK(!memcmp(cells + 4, sdu, 40));
		CHECK_EQ(atm_hdr_load(cells + 44), 0x00000028);
		CHECK_EQ(atm_hdr_load(cells + 48), v[i].crc);

		/* 53-byte cells: same payload after header + HEC. */
		CHECK_EQ(aal5_segment(NULL, 0, sdu, 40, vc_word, cells, ATM_CELL_SIZE), 1);
		CHECK(atm_hec_ok(cells));
		CHECK_EQ(cells[4], 0xea); /* HEC of 00 80 02 32 */
		CHECK_EQ(atm_hdr_load(cells + 49), v[i].crc);
	}
	/* The same SDU split as prefix + rest gives the same cell. */
	CHECK_EQ(aal5_segment(sdu, 8, sdu + 8, 32, vc_word, cells, ATM_PW_CELL_SIZE), 1);
	CHECK_EQ(atm_hdr_load(cells + 48), 0xbf671ed0u);
}

static void test_segment_errors(void)
{
	CHECK_EQ(aal5_segment(NULL, 0, sdu, 0, vc_word, cells, ATM_PW_CELL_SIZE), 0);
	CHECK_EQ(aal5_segment(NULL, 0, sdu, 65536, vc_word, cells, ATM_PW_CELL_SIZE), 0);
	CHECK_EQ(aal5_segment(sdu, 8, sdu, 65528, vc_word, cells, ATM_PW_CELL_SIZE), 0);
	CHECK_EQ(aal5_segment(NULL, 0, sdu, 65535, vc_word, cells, ATM_PW_CELL_SIZE), 1366);
	CHECK_EQ(aal5_segment(NULL, 0, sdu, 100, vc_word, cells, 48), 0);
	CHECK_EQ(aal5_segment(NULL, 0, sdu, 100, vc_word | (4 << 1), cells, 52), 0); /* OAM PTI */
	CHECK_EQ(aal5_segment(NULL, 8, sdu, 100, vc_word, cells, 52), 0);
}

/* Segment, check headers and payload layout, reassemble, compare. */
static void round_trip(const uint8_t *prefix, size_t plen, size_t len, size_t cs, uint32_t word)
{
	struct aal5_reasm r;
	uint32_t got = 0;
	size_t total = plen + len;
	unsigned n = aal5_segment(prefix, plen, sdu, len, word, cells, cs);

	if (total == 0) {
		CHECK_EQ(n, 0);
		return;
	}
	CHECK_EQ(n, aal5_cells_for(total));
	for (unsigned i = 0; i < n; i++) {
		uint32_t w = atm_hdr_load(cells + i * cs);
		uint32_t want = i + 1 == n ? word | 2 : word & ~2u;

		if (w != want) {
			CHECK_EQ(w, want);
			break;
		}
		if (cs == ATM_CELL_SIZE && !atm_hec_ok(cells + i * cs)) {
			CHECK(atm_hec_ok(cells + i * cs));
			break;
		}
	}
	aal5_reasm_init(&r, rbuf, sizeof(rbuf), 65535);
	CHECK_EQ(feed(&r, cells, n, cs, 0, &got), AAL5_DONE);
	CHECK_EQ(got, total);
	CHECK(plen == 0 || !memcmp(rbuf, prefix, plen));
	CHECK(!memcmp(rbuf + plen, sdu, len));
	/* Pad is zero, UU and CPI are zero. */
	size_t pad_end = (size_t)n * ATM_CELL_PAYLOAD - 8;
	bool zero = true;
	for (size_t i = total; i < pad_end + 2; i++)
		zero &= rbuf[i] == 0;
	CHECK(zero);
	CHECK(!aal5_reasm_busy(&r));
}

static void test_round_trips(void)
{
	const uint8_t *llc = rfc2684_llc_header(0x0800);
	static const size_t big[] = {576, 1500, 4470, 9180, 65535 - 8};

	for (size_t i = 0; i < sizeof(sdu); i++)
		sdu[i] = (uint8_t)(i * 7 + (i >> 8));
	for (size_t len = 0; len <= 200; len++) {
		round_trip(NULL, 0, len, ATM_PW_CELL_SIZE, vc_word);
		round_trip(llc, 8, len, ATM_PW_CELL_SIZE, vc_word);
		round_trip(llc, 8, len, ATM_CELL_SIZE, vc_word | 1);            /* CLP kept */
		round_trip(sdu + 60000, 3, len, ATM_PW_CELL_SIZE, vc_word | 4); /* EFCI kept */
	}
	for (unsigned i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		round_trip(NULL, 0, big[i], ATM_PW_CELL_SIZE, vc_word);
		round_trip(llc, 8, big[i], ATM_PW_CELL_SIZE, vc_word);
		round_trip(llc, 8, big[i], ATM_CELL_SIZE, vc_word);
	}
}

/* A one-cell PDU with a chosen Length field and a correct CRC. */
static void make_pdu(uint8_t *payload, unsigned ncells, uint16_t length)
{
	size_t tot = (size_t)ncells * 48;

	memset(payload, 0x5a, tot);
	payload[tot - 8] = 0;
	payload[tot - 7] = 0;
	payload[tot - 6] = (uint8_t)(length >> 8);
	payload[tot - 5] = (uint8_t)length;
	uint32_t crc = aal5_crc32(payload, tot - 4);
	for (int i = 0; i < 4; i++)
		payload[tot - 4 + i] = (uint8_t)(crc >> (24 - 8 * i));
}

static enum aal5_status feed_payloads(struct aal5_reasm *r, const uint8_t *p, unsigned n,
                                      uint32_t *len)
{
	enum aal5_status st = AAL5_MORE;

	for (unsigned i = 0; i < n; i++)
		st = aal5_reasm_cell(r, p + i * 48, i + 1 == n, 0, len);
	return st;
}

static void test_trailer_errors(void)
{
	struct aal5_reasm r;
	uint8_t p[4 * 48];
	uint32_t len = 77;

	aal5_reasm_init(&r, rbuf, sizeof(rbuf), MAX_SDU);

	/*
	 * Every single-bit flip anywhere in a PDU is a CRC error -- except one that turns
	 * the Length field into 0, which makes the PDU an abort.
	 */
	for (size_t l = 1; l <= 150; l += 37) {
		unsigned n = aal5_segment(NULL, 0, sdu, l, vc_word, cells, ATM_PW_CELL_SIZE);
		uint8_t *last = cells + (n - 1) * ATM_PW_CELL_SIZE + 4;
		int wrong = 0;

		for (unsigned bit = 0; bit < n * 48 * 8; bit++) {
			uint8_t *byte = cells + (bit / 384) * 52 + 4 + (bit % 384) / 8;

			*byte ^= (uint8_t)(1 << (bit % 8));
			bool abort = last[42] == 0 && last[43] == 0;
			enum aal5_status st = feed(&r, cells, n, ATM_PW_CELL_SIZE, 0, &len);
			*byte ^= (uint8_t)(1 << (bit % 8));
			wrong += st != (abort ? AAL5_ERR_ABORT : AAL5_ERR_CRC) || len != 0;
		}
		CHECK_EQ(wrong, 0);
		CHECK_EQ(feed(&r, cells, n, ATM_PW_CELL_SIZE, 0, &len), AAL5_DONE);
		CHECK_EQ(len, l);
	}

	/* Length inconsistent with the cell count, CRC correct: pad would be 48, or negative. */
	make_pdu(p, 2, 40); /* fits one cell: pad 48 */
	CHECK_EQ(feed_payloads(&r, p, 2, &len), AAL5_ERR_LENGTH);
	CHECK_EQ(len, 0);
	make_pdu(p, 2, 89); /* needs three cells */
	CHECK_EQ(feed_payloads(&r, p, 2, &len), AAL5_ERR_LENGTH);
	make_pdu(p, 1, 65535);
	CHECK_EQ(feed_payloads(&r, p, 1, &len), AAL5_ERR_LENGTH);
	make_pdu(p, 2, 41); /* boundaries are good */
	CHECK_EQ(feed_payloads(&r, p, 2, &len), AAL5_DONE);
	CHECK_EQ(len, 41);
	make_pdu(p, 2, 88);
	CHECK_EQ(feed_payloads(&r, p, 2, &len), AAL5_DONE);
	CHECK_EQ(len, 88);

	/* Length 0 = abort, whether or not the CRC is right. */
	make_pdu(p, 1, 0);
	CHECK_EQ(feed_payloads(&r, p, 1, &len), AAL5_ERR_ABORT);
	p[47] ^= 1;
	CHECK_EQ(feed_payloads(&r, p, 1, &len), AAL5_ERR_ABORT);
	make_pdu(p, 3, 0);
	CHECK_EQ(feed_payloads(&r, p, 3, &len), AAL5_ERR_ABORT);

	/* Within max_sdu's cells but a Length above max_sdu. */
	aal5_reasm_init(&r, rbuf, sizeof(rbuf), 100); /* 3 cells */
	make_pdu(p, 3, 120);
	CHECK_EQ(feed_payloads(&r, p, 3, &len), AAL5_ERR_OVERSIZE);
	make_pdu(p, 3, 100);
	CHECK_EQ(feed_payloads(&r, p, 3, &len), AAL5_DONE);
	CHECK_EQ(len, 100);
	CHECK(!aal5_reasm_busy(&r));
}

static void test_oversize(void)
{
	struct aal5_reasm r;
	uint32_t len;
	unsigned n = aal5_segment(NULL, 0, sdu, 1500, vc_word, cells, ATM_PW_CELL_SIZE); /* 32 */
	size_t cs = ATM_PW_CELL_SIZE;

	/* max_sdu 576 -> 13 cells allowed: cell 14 reports, 15..31 silent, 32 ends it. */
	aal5_reasm_init(&r, rbuf, sizeof(rbuf), 576);
	CHECK_EQ(feed(&r, cells, 13, cs, 0, &len), AAL5_MORE);
	CHECK_EQ(feed(&r, cells + 13 * cs, 1, cs, 0, &len), AAL5_ERR_OVERSIZE);
	CHECK(aal5_reasm_busy(&r));
	int more = 0;
	for (unsigned i = 14; i < n; i++)
		more += feed(&r, cells + i * cs, 1, cs, 0, &len) == AAL5_MORE;
	CHECK_EQ(more, n - 14);
	CHECK(!aal5_reasm_busy(&r));
	/* The next PDU is whole again. */
	unsigned m = aal5_segment(NULL, 0, sdu, 500, vc_word, cells, cs);
	CHECK_EQ(feed(&r, cells, m, cs, 0, &len), AAL5_DONE);
	CHECK_EQ(len, 500);

	/* The crossing cell is the last one: reported once, and the state is clean. */
	m = aal5_segment(NULL, 0, sdu, 620, vc_word, cells, cs); /* 13 + 1 cells */
	CHECK_EQ(m, 14);
	CHECK_EQ(feed(&r, cells, m, cs, 0, &len), AAL5_ERR_OVERSIZE);
	CHECK(!aal5_reasm_busy(&r));
	m = aal5_segment(NULL, 0, sdu, 576, vc_word, cells, cs);
	CHECK_EQ(feed(&r, cells, m, cs, 0, &len), AAL5_DONE);

	/* A buffer smaller than max_sdu needs: the buffer wins, nothing is written past it. */
	static uint8_t small[5 * 48 + 1];
	small[5 * 48] = 0xee;
	aal5_reasm_init(&r, small, 5 * 48, 9180);
	m = aal5_segment(NULL, 0, sdu, 300, vc_word, cells, cs); /* 7 cells */
	CHECK_EQ(feed(&r, cells, 5, cs, 0, &len), AAL5_MORE);
	CHECK_EQ(feed(&r, cells + 5 * cs, 1, cs, 0, &len), AAL5_ERR_OVERSIZE);
	CHECK_EQ(feed(&r, cells + 6 * cs, 1, cs, 0, &len), AAL5_MORE);
	CHECK_EQ(small[5 * 48], 0xee);
	m = aal5_segment(NULL, 0, sdu, 200, vc_word, cells, cs);
	CHECK_EQ(feed(&r, cells, m, cs, 0, &len), AAL5_DONE);

	/* max_sdu above 65535 is clamped. */
	aal5_reasm_init(&r, rbuf, sizeof(rbuf), 1000000);
	CHECK_EQ(r.max_sdu, 65535);
}

static void test_lost_cells(void)
{
	struct aal5_reasm r;
	uint32_t len;
	size_t cs = ATM_PW_CELL_SIZE;
	static uint8_t second[40 * ATM_PW_CELL_SIZE];

	aal5_reasm_init(&r, rbuf, sizeof(rbuf), MAX_SDU);
	unsigned a = aal5_segment(NULL, 0, sdu, 1000, vc_word, cells, cs);
	unsigned b = aal5_segment(NULL, 0, sdu + 5, 700, vc_word, second, cs);

	/* Last cell of A lost: A's head and B merge into one PDU that fails its CRC. */
	CHECK_EQ(feed(&r, cells, a - 1, cs, 0, &len), AAL5_MORE);
	CHECK_EQ(feed(&r, second, b, cs, 0, &len), AAL5_ERR_CRC);
	/* ... and the PDU after that is received. */
	CHECK_EQ(feed(&r, cells, a, cs, 0, &len), AAL5_DONE);
	CHECK_EQ(len, 1000);

	/* A middle cell lost: the count no longer matches Length. */
	CHECK_EQ(feed(&r, cells, 10, cs, 0, &len), AAL5_MORE);
	CHECK_EQ(feed(&r, cells + 11 * cs, a - 11, cs, 0, &len), AAL5_ERR_CRC);
	CHECK_EQ(feed(&r, second, b, cs, 0, &len), AAL5_DONE);
	CHECK_EQ(len, 700);
	CHECK(!memcmp(rbuf, sdu + 5, 700));
}

static void test_timeout(void)
{
	struct aal5_reasm r;
	uint32_t len;
	size_t cs = ATM_PW_CELL_SIZE;
	unsigned n = aal5_segment(NULL, 0, sdu, 1000, vc_word, cells, cs);

	aal5_reasm_init(&r, rbuf, sizeof(rbuf), MAX_SDU);
	CHECK(!aal5_reasm_timed_out(&r, 1000000, 10)); /* idle: nothing to time out */
	CHECK_EQ(feed(&r, cells, 5, cs, 1000, &len), AAL5_MORE);
	CHECK_EQ(feed(&r, cells + 5 * cs, 5, cs, 1500, &len), AAL5_MORE);
	CHECK(!aal5_reasm_timed_out(&r, 1500, 500)); /* timed from the first cell */
	CHECK(!aal5_reasm_timed_out(&r, 999, 500));  /* clock behind: not expired */
	CHECK(aal5_reasm_timed_out(&r, 1501, 500));
	CHECK(!aal5_reasm_busy(&r));
	CHECK(!aal5_reasm_timed_out(&r, 5000, 500)); /* counted once */
	/* The tail of the timed-out PDU arrives: a short PDU with a bad CRC. */
	CHECK_EQ(feed(&r, cells + 10 * cs, n - 10, cs, 1600, &len), AAL5_ERR_CRC);
	CHECK_EQ(feed(&r, cells, n, cs, 1700, &len), AAL5_DONE);

	/* A stale discard is cleared without counting a timeout. */
	aal5_reasm_init(&r, rbuf, sizeof(rbuf), 100);
	CHECK_EQ(feed(&r, cells, 4, cs, 2000, &len), AAL5_ERR_OVERSIZE);
	CHECK(aal5_reasm_busy(&r));
	CHECK(!aal5_reasm_timed_out(&r, 9000, 500));
	CHECK(!aal5_reasm_busy(&r));
}

/* Random cells, random AUU: no crash, no write past the buffer, statuses in the enum. */
static void test_random_cells(void)
{
	struct aal5_reasm r;
	static uint8_t buf[20 * 48 + 16];
	uint8_t payload[48];
	uint32_t len;
	int bad = 0, done = 0;

	memset(buf + 20 * 48, 0xcc, 16);
	srand(42);
	aal5_reasm_init(&r, buf, 20 * 48, 900);
	for (int i = 0; i < 500000; i++) {
		for (int j = 0; j < 48; j++)
			payload[j] = (uint8_t)rand();
		if (i % 3 == 0) /* sometimes a plausible trailer */
			payload[44] = payload[45] = 0;
		enum aal5_status st =
		    aal5_reasm_cell(&r, payload, rand() % 8 == 0, (uint64_t)i, &len);
		if ((unsigned)st >= AAL5_STATUS__MAX || (st != AAL5_DONE && len != 0) ||
		    (st == AAL5_DONE && len > 900) || r.len > r.cap)
			bad++;
		done += st == AAL5_DONE;
		if (i % 1000 == 0)
			aal5_reasm_timed_out(&r, (uint64_t)i, 500);
	}
	for (int j = 0; j < 16; j++)
		bad += buf[20 * 48 + j] != 0xcc;
	CHECK_EQ(bad, 0);
	CHECK_EQ(done, 0); /* a random CRC-32 never matched */
	CHECK(!strcmp(aal5_status_name(AAL5_ERR_OVERSIZE), "oversize"));
	CHECK(!strcmp(aal5_status_name(AAL5_DONE), "done"));
	CHECK(!strcmp(aal5_status_name((enum aal5_status)99), "?"));
}

int main(void)
{
	test_cells_for();
	test_segment_vectors();
	test_segment_errors();
	test_round_trips();
	test_trailer_errors();
	test_oversize();
	test_lost_cells();
	test_timeout();
	test_random_cells();
	return check_report("test_aal5");
}
