/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AAL5 SAR and CRC-32 throughput on one core (sar-bench.sh runs it pinned).
 *
 *   sar_bench [CPU]
 *
 * CRC-32: GB/s of aal5_crc32 (ISA-L when built with it) and aal5_crc32_sw on 64,
 * 1500 and 9180-byte buffers. SAR: 52-byte cells (RFC 4717), RFC 2684 LLC prefix,
 * CRC computed on both sides: Gbit/s of SDU and Mcells/s for segment only,
 * reassemble only, and both, at 64, 576, 1500 and 9180-byte SDUs. Buffers stay in
 * cache: this is the cost of the code, not of memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datapath/atm/aal5.h"
#include "datapath/atm/aal5_crc.h"
#include "datapath/atm/cell.h"
#include "datapath/atm/rfc2684.h"
#include "lib/clock.h"

#define RUN_SECONDS 0.4
#define MAX_SDU     9180

static uint8_t sdu[MAX_SDU];
static uint8_t cells[200 * ATM_PW_CELL_SIZE];
static uint8_t rbuf[200 * ATM_CELL_PAYLOAD];
static volatile uint32_t sink;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "sar_bench: pin to CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
	printf("pinned to CPU %d\n", cpu);
}

typedef uint32_t (*crc_fn)(const uint8_t *, size_t);

/* Runs of 1024 calls until RUN_SECONDS have passed; returns calls per second. */
static double crc_rate(crc_fn f, size_t len)
{
	uint32_t acc = 0;
	uint64_t calls = 0;
	double t0 = mono_s(), t;

	do {
		for (int i = 0; i < 1024; i++)
			acc += f(sdu, len); /* independent calls, like a burst of PDUs */
		calls += 1024;
	} while ((t = mono_s() - t0) < RUN_SECONDS);
	sink = acc;
	return (double)calls / t;
}

static const uint32_t vc_word = 0x00800230;
static const uint8_t *llc;

static unsigned segment(size_t len)
{
	return aal5_segment(llc, RFC2684_LLC_LEN, sdu, len, vc_word, cells, ATM_PW_CELL_SIZE);
}

static int reassemble(struct aal5_reasm *r, unsigned n)
{
	uint32_t got = 0;
	enum aal5_status st = AAL5_MORE;
	const uint8_t *c = cells;

	for (unsigned i = 0; i < n; i++, c += ATM_PW_CELL_SIZE)
		st = aal5_reasm_cell(r, c + ATM_HDR_SIZE,
		                     atm_hdr_is_last_user_cell(atm_hdr_load(c)), 0, &got);
	return st == AAL5_DONE ? (int)got : -1;
}

enum sar_mode { SAR_SEGMENT, SAR_REASSEMBLE, SAR_BOTH };

/* PDUs per second. */
static double sar_rate(enum sar_mode mode, size_t len)
{
	struct aal5_reasm r;
	unsigned n = segment(len);
	uint64_t pdus = 0;
	int bad = 0;
	double t0 = mono_s(), t;

	aal5_reasm_init(&r, rbuf, sizeof(rbuf), MAX_SDU + RFC2684_LLC_LEN);
	do {
		for (int i = 0; i < 256; i++) {
			if (mode != SAR_REASSEMBLE)
				n = segment(len);
			if (mode != SAR_SEGMENT)
				bad |= reassemble(&r, n) != (int)(len + RFC2684_LLC_LEN);
		}
		pdus += 256;
	} while ((t = mono_s() - t0) < RUN_SECONDS);
	sink = cells[n * ATM_PW_CELL_SIZE - 1];
	if (bad) {
		fprintf(stderr, "sar_bench: reassembly failed at %zu bytes\n", len);
		exit(1);
	}
	return (double)pdus / t;
}

int main(int argc, char **argv)
{
	static const size_t crc_sizes[] = {64, 1500, 9180};
	static const size_t sar_sizes[] = {64, 576, 1500, 9180};
	static const char *const mode_names[] = {"segment", "reassemble", "both"};

	if (argc > 1)
		pin(atoi(argv[1]));
	for (size_t i = 0; i < sizeof(sdu); i++)
		sdu[i] = (uint8_t)(i * 131 + 7);
	llc = rfc2684_llc_header(0x0800);

	printf("\nCRC-32 (AAL5), GB/s per core; aal5_crc32 = %s\n", aal5_crc32_impl());
	printf("%8s %12s %12s\n", "bytes", "aal5_crc32", "sw");
	for (unsigned i = 0; i < 3; i++) {
		size_t len = crc_sizes[i];
		double hw = crc_rate(aal5_crc32, len) * (double)len / 1e9;
		double sw = crc_rate(aal5_crc32_sw, len) * (double)len / 1e9;

		printf("%8zu %12.2f %12.2f\n", len, hw, sw);
	}

	printf("\nAAL5 SAR, 52-byte cells, LLC prefix, CRC both ways (Gbit/s of SDU, Mcells/s)\n");
	printf("%8s %6s", "SDU", "cells");
	for (int m = 0; m < 3; m++)
		printf(" %11s Gb/s %6s", mode_names[m], "Mc/s");
	printf("\n");
	for (unsigned i = 0; i < 4; i++) {
		size_t len = sar_sizes[i];
		unsigned n = aal5_cells_for(len + RFC2684_LLC_LEN);

		printf("%8zu %6u", len, n);
		for (int m = 0; m < 3; m++) {
			double pps = sar_rate((enum sar_mode)m, len);

			printf(" %16.2f %6.1f", pps * (double)len * 8 / 1e9, pps * n / 1e6);
		}
		printf("\n");
	}
	return 0;
}
