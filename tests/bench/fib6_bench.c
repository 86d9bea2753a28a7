/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FIB6 benchmark on a real-shaped table (fib6-bench.sh feeds it the IPv6
 * nets of the libloc database, ~220k prefixes, one "addr/len" per line).
 * Single core: pinned to the CPU given on the command line.
 *
 *   fib6_bench PREFIX6_FILE [CPU [PREFIX4_FILE]]
 *
 * First checks lookups (scalar and bulk) against an independent reference
 * (binary search per prefix length). Then reports the length mix, the
 * whole-table build, insert/delete/replace rates, memory, and lookup rates
 * (random keys, random keys in 2000::/3, keys inside table prefixes; scalar
 * and bulk). Anchors measured in the same run: the reference's own lookup
 * rate and, given the IPv4 nets, fib4's random-key rate on the same core.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib6.h"
#include "tests/bench/fib6_bench.h"

#define RECLAIM_EVERY 1024 /* a grace period per batch of updates, as the daemon would */

/* ---- keys ---- */

enum keys { KEYS_RANDOM, KEYS_GLOBAL, KEYS_IN_TABLE };
static const char *const keys_name[] = {"random", "2000::/3", "in-table"};

static u128 key_make(enum keys kind, const struct route *r, size_t n)
{
	u128 a = (u128)rnd() << 64 | rnd();
	const struct route *in;

	switch (kind) {
	case KEYS_GLOBAL:
		return (a >> 3) | (u128)1 << 125;
	case KEYS_IN_TABLE:
		in = &r[rnd() % n];
		return in->key | (a & ~mask(in->len));
	default:
		return a;
	}
}

static void keys_fill(uint8_t (*keys)[16], const uint8_t **ptr, enum keys kind,
                      const struct route *r, size_t n)
{
	for (uint32_t i = 0; i < NKEYS; i++) {
		store(key_make(kind, r, n), keys[i]);
		ptr[i] = keys[i];
	}
}

/* Scalar and bulk lookups against the reference, over every kind of key. */
static int check_correct(const struct fib6 *fib, const struct ref *ref, const struct route *r,
                         size_t n, unsigned count)
{
	unsigned bad = 0, routed = 0;
	uint8_t a[64][16];
	const uint8_t *p[64];
	uint32_t want[64], got[64];

	for (unsigned done = 0; done < count; done += 64) {
		for (unsigned i = 0; i < 64; i++) {
			u128 k = key_make((enum keys)(i % 3), r, n);

			store(k, a[i]);
			p[i] = a[i];
			want[i] = ref_lookup(ref, k);
			routed += want[i] != 0;
			bad += fib6_lookup(fib, a[i]) != want[i];
		}
		fib6_lookup_bulk(fib, p, got, 64);
		for (unsigned i = 0; i < 64; i++)
			bad += got[i] != want[i];
	}
	printf("correctness: %u addresses (%u routed), scalar and bulk: %u mismatches\n", count,
	       routed, bad);
	return bad ? -1 : 0;
}

static void bench_lookups(const struct fib6 *fib, const uint8_t (*keys)[16], const uint8_t **ptr,
                          const char *what)
{
	static uint32_t vals[64];
	const unsigned modes[] = {1, 16, 32, 64};

	for (unsigned m = 0; m < 4; m++) {
		unsigned burst = modes[m];
		uint64_t sum = 0;
		struct timing t0 = timing_start();
		char buf[96];

		for (uint32_t done = 0; done < LOOKUPS; done += NKEYS) {
			if (burst == 1) {
				for (uint32_t i = 0; i < NKEYS; i++)
					sum += fib6_lookup(fib, keys[i]);
				continue;
			}
			for (uint32_t i = 0; i < NKEYS; i += burst) {
				fib6_lookup_bulk(fib, ptr + i, vals, burst);
				for (unsigned k = 0; k < burst; k++)
					sum += vals[k];
			}
		}
		struct timing t = timing_end(t0);

		printf("lookup %-9s %-7s: %s %.2f ns (%llx)\n", what,
		       burst == 1    ? "scalar"
		       : burst == 16 ? "bulk16"
		       : burst == 32 ? "bulk32"
		                     : "bulk64",
		       rates(t, LOOKUPS, buf, sizeof(buf)), t.cpu * 1e9 / LOOKUPS,
		       (unsigned long long)sum);
	}
}

/* The reference's own rate on the same keys: the naive way, for scale. */
static void bench_reference(const struct ref *ref, const uint8_t (*keys)[16], const char *what)
{
	uint64_t sum = 0;
	struct timing t0 = timing_start();
	char buf[96];

	for (uint32_t i = 0; i < NKEYS; i++) {
		u128 k = 0;

		for (int b = 0; b < 16; b++)
			k = k << 8 | keys[i][b];
		sum += ref_lookup(ref, k);
	}
	printf("anchor: reference (binary search per length), %s keys: %s (%llx)\n", what,
	       rates(timing_end(t0), NKEYS, buf, sizeof(buf)), (unsigned long long)sum);
}

static int apply(struct fib6 *fib, const struct route *r, bool insert)
{
	uint8_t a[16];

	store(r->key, a);
	return insert ? fib6_insert(fib, a, r->len, r->value) : fib6_delete(fib, a, r->len);
}

static void must(int rc, const char *what, size_t i)
{
	if (rc < 0) {
		fprintf(stderr, "fib6_bench: %s #%zu: %s\n", what, i, strerror(-rc));
		exit(1);
	}
}

/*
 * Insert or delete r[0..n), RECLAIM_EVERY at a time: one at a time (batch
 * false) or as one fib6 batch each (batch true); a reclaim after each, as
 * after a grace period. Returns the seconds taken.
 */
static double run_updates(struct fib6 *fib, const struct route *r, size_t n, bool insert,
                          bool batch, const char *what)
{
	struct timing t0 = timing_start();
	size_t ok = 0;
	char buf[96];

	for (size_t i = 0; i < n; i++) {
		if (batch && i % RECLAIM_EVERY == 0)
			fib6_batch_begin(fib);
		must(apply(fib, &r[i], insert), what, i);
		ok++;
		if (i % RECLAIM_EVERY == RECLAIM_EVERY - 1 || i == n - 1) {
			if (batch)
				must(fib6_batch_end(fib), what, i);
			fib6_reclaim(fib);
		}
	}
	struct timing t = timing_end(t0);
	printf("%s: %zu routes in %.3f s (%.3f s CPU): %s\n", what, ok, t.wall, t.cpu,
	       rates(t, ok, buf, sizeof(buf)));
	return t.wall;
}

static void report_memory(const struct fib6 *fib, long rss0_kb)
{
	struct fib6_stats st;
	long rss = proc_kb("/proc/self/status", "VmRSS:");
	long huge = proc_kb("/proc/self/smaps_rollup", "AnonHugePages:");

	fib6_get_stats(fib, &st);
	printf("fib6: %llu routes, %llu nodes (%.1f MiB), %llu leaves (%.1f MiB), %llu pending\n",
	       (unsigned long long)st.routes, (unsigned long long)st.nodes_used,
	       (double)st.nodes_used * 24 / 1048576.0, (unsigned long long)st.leaves_used,
	       (double)st.leaves_used * 4 / 1048576.0,
	       (unsigned long long)(st.nodes_pending + st.leaves_pending));
	printf("memory: reader %.1f MiB (direct table, nodes, leaves: high water), "
	       "all (memory_bytes) %.1f MiB\n",
	       (double)st.reader_bytes / 1048576.0, (double)st.memory_bytes / 1048576.0);
	printf("process RSS %.1f MiB (FIB share %.1f MiB; %.0f MiB on huge pages)\n",
	       (double)rss / 1024.0, (double)(rss - rss0_kb) / 1024.0, (double)huge / 1024.0);
}

/* Steady state: replace then delete and re-add random routes of the full table. */
static void bench_churn(struct fib6 *fib, struct route *r, size_t n)
{
	size_t m = n < 100000 ? n : 100000;
	struct route *c = calloc(m, sizeof(*c));

	if (!c)
		die("malloc");
	for (size_t i = 0; i < m; i++) {
		c[i] = r[rnd() % n];
		c[i].value = (uint32_t)(n + 1 + i);
	}
	run_updates(fib, c, m, true, false, "replace (random routes, new value)");
	for (size_t i = 0; i < m; i++)
		c[i] = r[i];
	run_updates(fib, r, n, true, true, "replace (every route, its own value back, batches)");
	run_updates(fib, c, m, false, false, "delete (random order, full table)");
	run_updates(fib, c, m, true, false, "re-insert (the same, random order)");
	free(c);
}

static void bench_all_lookups(const struct fib6 *fib, const struct ref *ref, const struct route *r,
                              size_t n, bool in_table_only)
{
	uint8_t(*keys)[16] = malloc((size_t)NKEYS * 16);
	const uint8_t **ptr = malloc((size_t)NKEYS * sizeof(*ptr));

	if (!keys || !ptr)
		die("malloc");
	for (int kind = in_table_only ? KEYS_IN_TABLE : KEYS_RANDOM; kind <= KEYS_IN_TABLE;
	     kind++) {
		keys_fill(keys, ptr, (enum keys)kind, r, n);
		bench_lookups(fib, (const uint8_t(*)[16])keys, ptr, keys_name[kind]);
		if (kind == KEYS_IN_TABLE && !in_table_only)
			bench_reference(ref, (const uint8_t(*)[16])keys, keys_name[kind]);
	}
	free(keys);
	free(ptr);
}

/* A fresh FIB loaded with r[0..n), its memory reported and its lookups checked. */
static struct fib6 *load(const struct route *r, size_t n, const struct ref *ref, bool batch,
                         const char *what, int *rc)
{
	long rss0 = proc_kb("/proc/self/status", "VmRSS:");
	struct fib6 *fib = fib6_create(0, 0);

	if (!fib)
		die("fib6_create");
	run_updates(fib, r, n, true, batch, what);
	report_memory(fib, rss0);
	*rc |= check_correct(fib, ref, r, n, 1u << 18);
	return fib;
}

static int empty_check(struct fib6 *fib)
{
	struct fib6_stats st;

	fib6_get_stats(fib, &st);
	if (st.routes || st.nodes_used || st.leaves_used || st.cnodes) {
		printf("DELETE FAILED: %llu routes, %llu nodes left\n",
		       (unsigned long long)st.routes, (unsigned long long)st.nodes_used);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct route *r;
	struct ref ref;
	struct fib6 *fib;
	size_t n;
	int rc = 0;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: fib6_bench PREFIX6_FILE [CPU [PREFIX4_FILE]]\n");
		return 2;
	}
	pin(argc >= 3 ? atoi(argv[2]) : 0);
	r = routes_read(argv[1], &n);
	if (!n) {
		fprintf(stderr, "fib6_bench: no prefixes in %s\n", argv[1]);
		return 1;
	}
	print_mix(r, n);
	ref_build(&ref, r, n);

	/* One route at a time, as fib4 is programmed; then in batches, as an FPM burst would be. */
	fib = load(r, n, &ref, false, "whole-table insert (file order, one at a time)", &rc);
	bench_all_lookups(fib, &ref, r, n, true);
	fib6_destroy(fib);
	fib = load(r, n, &ref, true, "whole-table insert (file order, batches)", &rc);
	bench_all_lookups(fib, &ref, r, n, false);
	if (argc == 4)
		anchor_fib4(argv[3]);
	struct fib6_stats st;
	fib6_get_stats(fib, &st);
	anchor_latency(1u << 20);
	anchor_latency(st.reader_bytes);

	size_t distinct = ref_flatten(&ref, r);
	if (distinct != n)
		printf("%zu duplicate prefixes (the last one wins)\n", n - distinct);
	n = distinct;
	shuffle(r, n);
	bench_churn(fib, r, n);
	rc |= check_correct(fib, &ref, r, n, 1u << 18);
	run_updates(fib, r, n, false, false, "delete all (random order, one at a time)");
	rc |= empty_check(fib);
	fib6_destroy(fib);
	/* Shuffled order: short prefixes now often land on top of longer ones. */
	fib = load(r, n, &ref, false, "whole-table insert (random order, one at a time)", &rc);
	fib6_destroy(fib);
	fib = load(r, n, &ref, true, "whole-table insert (random order, batches)", &rc);
	run_updates(fib, r, n, false, true, "delete all (random order, batches)");
	rc |= empty_check(fib);
	fib6_destroy(fib);
	for (int l = 0; l <= 128; l++)
		free(ref.by_len[l]);
	free(r);
	printf("%s\n", rc ? "FAILED" : "ok");
	return rc ? 1 : 0;
}
