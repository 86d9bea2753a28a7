/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fib_bench: lookup rates of both algorithms on the same keys, trials of the
 * two interleaved so that a noisy neighbour on this shared machine hits both
 * alike; each figure is the median of the trials, with the best in brackets.
 *
 * "scalar" is a plain loop over the inline lookup, as the worker would write
 * it; "bulk32/64" goes through the fib_algo seam (one indirect call per
 * burst), as the worker calls it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "datapath/fib/fib4_poptrie.h"
#include "tests/bench/fib_bench.h"

#define NKEYS  (1u << 22)
#define TRIALS 7

#define SCALAR_LOOP                                                                                \
	uint64_t sum = 0;                                                                          \
	for (uint32_t i = 0; i < n; i++)                                                           \
		sum += fib4_poptrie_lookup(t, keys[i]);                                            \
	return sum

/* Built with POPCNT where the CPU has it, as the library's bulk lookup is. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static uint64_t
scalar_poptrie_popcnt(const struct fib4_poptrie *t, const uint32_t *keys, uint32_t n)
{
	SCALAR_LOOP;
}
#endif

static uint64_t scalar_poptrie(const struct fib4_poptrie *t, const uint32_t *keys, uint32_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("popcnt"))
		return scalar_poptrie_popcnt(t, keys, n);
#endif
	SCALAR_LOOP;
}

static uint64_t scalar_dir24_8(const struct fib4 *t, const uint32_t *keys, uint32_t n)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += fib4_lookup(t, keys[i]);
	return sum;
}

static uint64_t run_bulk(const struct fib *f, const uint32_t *keys, uint32_t n, unsigned burst)
{
	uint32_t vals[64];
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i += burst) {
		fib_lookup_bulk(f, keys + i, vals, burst);
		for (unsigned k = 0; k < burst; k++)
			sum += vals[k];
	}
	return sum;
}

/* Lookups per second of one trial; *sum keeps the work from being optimised away. */
static double trial(const struct fib *f, const uint32_t *keys, unsigned burst, uint64_t *sum)
{
	double t0 = cpu_now();

	if (burst > 1)
		*sum = run_bulk(f, keys, NKEYS, burst);
	else if (f->algo == &fib_algo_dir24_8)
		*sum = scalar_dir24_8(f->t, keys, NKEYS);
	else
		*sum = scalar_poptrie(f->t, keys, NKEYS);
	return NKEYS / (cpu_now() - t0);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void measure(struct fib *const *fibs, const uint32_t *keys, const char *what, unsigned burst)
{
	double rate[NALGOS][TRIALS], med[NALGOS];
	uint64_t sum[NALGOS] = {0};

	for (unsigned t = 0; t < TRIALS; t++) {
		for (unsigned a = 0; a < NALGOS; a++)
			rate[a][t] = trial(fibs[a], keys, burst, &sum[a]);
	}
	printf("lookup %-10s %-6s", what,
	       burst == 1    ? "scalar"
	       : burst == 32 ? "bulk32"
	                     : "bulk64");
	for (unsigned a = 0; a < NALGOS; a++) {
		qsort(rate[a], TRIALS, sizeof(double), dbl_cmp);
		med[a] = rate[a][TRIALS / 2];
		printf("  %8.1f [%6.1f] M/s", med[a] / 1e6, rate[a][TRIALS - 1] / 1e6);
	}
	printf("  x%.2f%s\n", med[1] / med[0], sum[0] == sum[1] ? "" : "  CHECKSUMS DIFFER");
}

static void keys_fill(uint32_t *keys, const struct route *r, size_t n, int kind)
{
	for (uint32_t i = 0; i < NKEYS; i++) {
		const struct route *in = &r[rnd() % n];

		switch (kind) {
		case 0: /* uniformly random addresses */
			keys[i] = rnd();
			break;
		case 1: /* inside a random route: weighted per route, so mostly /24s */
			keys[i] = in->prefix | (rnd() & ~mask_of(in->len));
			break;
		default: /* consecutive addresses in well-populated space */
			keys[i] = 0x50000000u + i;
			break;
		}
	}
}

void bench_lookups(struct fib *const *fibs, const struct route *r, size_t n, int kinds)
{
	static const char *const names[] = {"random", "in-table", "sequential"};
	static const unsigned bursts[] = {1, 32, 64};
	uint32_t *keys = xmalloc(NKEYS * sizeof(*keys));

	printf("lookup (median of %d trials [best], M lookups/s)   %-22s %-22s %s/%s\n", TRIALS,
	       fibs[0]->algo->name, fibs[1]->algo->name, fibs[1]->algo->name, fibs[0]->algo->name);
	for (int k = 0; k < kinds; k++) {
		keys_fill(keys, r, n, k);
		for (int b = 0; b < 3; b++)
			measure(fibs, keys, names[k], bursts[b]);
	}
	free(keys);
}
