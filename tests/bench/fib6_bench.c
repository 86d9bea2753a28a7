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
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib4.h"
#include "datapath/fib/fib6.h"
#include "lib/clock.h"

__extension__ typedef unsigned __int128 u128;

struct route {
	u128 key;
	uint8_t len;
	uint32_t value;
};

#define RECLAIM_EVERY 1024 /* a grace period per batch of updates, as the daemon would */
#define NKEYS         (1u << 20)
#define LOOKUPS       (32u << 20)

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static u128 mask(unsigned len)
{
	return len ? ~(u128)0 << (128 - len) : 0;
}

static void store(u128 k, uint8_t a[16])
{
	for (int i = 15; i >= 0; i--, k >>= 8)
		a[i] = (uint8_t)k;
}

__attribute__((noreturn)) static void die(const char *what)
{
	fprintf(stderr, "fib6_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Value = line number + 1: unique, so a wrong match cannot pass by luck. */
static struct route *routes_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1u << 18, cnt = 0, bad = 0;
	struct route *r = malloc(cap * sizeof(*r));
	char line[128], *slash;
	uint8_t a[16];

	if (!f || !r)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		unsigned len;

		slash = strchr(line, '/');
		if (!slash || (*slash = 0, inet_pton(AF_INET6, line, a) != 1) ||
		    sscanf(slash + 1, "%u", &len) != 1 || len > 128) {
			bad++;
			continue;
		}
		if (cnt == cap && !(r = realloc(r, (cap *= 2) * sizeof(*r))))
			die("realloc");
		u128 k = 0;
		for (int i = 0; i < 16; i++)
			k = k << 8 | a[i];
		r[cnt] = (struct route){k & mask(len), (uint8_t)len, (uint32_t)cnt + 1};
		cnt++;
	}
	fclose(f);
	if (bad)
		printf("skipped %zu unparsable lines\n", bad);
	*n = cnt;
	return r;
}

static void print_mix(const struct route *r, size_t n)
{
	size_t by_len[129] = {0}, in3 = 0;
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		by_len[r[i].len]++;
		sum += r[i].len;
		in3 += r[i].len >= 3 && (r[i].key >> 125) == 1;
	}
	printf("prefixes: %zu, mean length %.2f, in 2000::/3: %.1f%%\n", n, sum / (double)n,
	       100.0 * (double)in3 / (double)n);
	printf("length mix:");
	for (int l = 0; l <= 128; l++)
		if (by_len[l] * 100 >= n)
			printf(" /%d:%.1f%%", l, 100.0 * (double)by_len[l] / (double)n);
	printf(" (lengths under 1%% left out)\n");
}

static long proc_kb(const char *file, const char *key)
{
	FILE *f = fopen(file, "r");
	char line[256];
	long kb = -1;
	size_t klen = strlen(key);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen)) {
			kb = strtol(line + klen, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

/* ---- reference: per length, keys sorted, binary searched ---- */

struct ref {
	struct route *by_len[129];
	size_t n[129];
	uint8_t lens[129]; /* lengths present, longest first */
	unsigned nlens;
};

static int route_cmp(const void *a, const void *b)
{
	const struct route *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* Duplicate prefixes: the last line wins, as it does when inserted in file order. */
static void ref_build(struct ref *ref, const struct route *r, size_t n)
{
	size_t count[129] = {0};

	ref->nlens = 0;
	for (size_t i = 0; i < n; i++)
		count[r[i].len]++;
	for (int l = 128; l >= 0; l--) {
		size_t k = 0, out = 0;

		ref->by_len[l] = malloc((count[l] ? count[l] : 1) * sizeof(struct route));
		if (!ref->by_len[l])
			die("malloc");
		for (size_t i = 0; i < n; i++)
			if (r[i].len == l)
				ref->by_len[l][k++] = r[i];
		qsort(ref->by_len[l], k, sizeof(struct route), route_cmp);
		for (size_t i = 0; i < k; i++) {
			if (out && ref->by_len[l][out - 1].key == ref->by_len[l][i].key)
				out--;
			ref->by_len[l][out++] = ref->by_len[l][i];
		}
		ref->n[l] = out;
		if (out)
			ref->lens[ref->nlens++] = (uint8_t)l;
	}
}

static uint32_t ref_lookup(const struct ref *ref, u128 addr)
{
	for (unsigned i = 0; i < ref->nlens; i++) {
		unsigned l = ref->lens[i];
		const struct route *v = ref->by_len[l];
		u128 key = addr & mask(l);
		size_t lo = 0, hi = ref->n[l];

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (v[mid].key < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < ref->n[l] && v[lo].key == key)
			return v[lo].value;
	}
	return 0;
}

static size_t ref_flatten(const struct ref *ref, struct route *r)
{
	size_t n = 0;

	for (int l = 0; l <= 128; l++) {
		memcpy(r + n, ref->by_len[l], ref->n[l] * sizeof(*r));
		n += ref->n[l];
	}
	return n;
}

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

/* ---- timing ---- */

/*
 * A timed phase: wall clock and this thread's CPU time. The machine is
 * shared: "per CPU-second" is the rate while we held the core, the figure to
 * compare with per-core targets; the CPU share says how much we held it.
 */
struct timing {
	double wall, cpu;
};

static double cpu_s(void)
{
	return (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
}

static struct timing timing_start(void)
{
	return (struct timing){mono_s(), cpu_s()};
}

static struct timing timing_end(struct timing t0)
{
	return (struct timing){mono_s() - t0.wall, cpu_s() - t0.cpu};
}

/* "W M/s (C M/s per CPU-second, S% CPU)" */
static const char *rates(struct timing t, uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%7.1f M/s (%7.1f M/s per CPU-second, %3.0f%% CPU)",
	         (double)n / t.wall / 1e6, (double)n / t.cpu / 1e6, 100.0 * t.cpu / t.wall);
	return buf;
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

static void shuffle(struct route *r, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rnd() % (i + 1);
		struct route t = r[i];

		r[i] = r[j];
		r[j] = t;
	}
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

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity");
	printf("pinned to CPU %d\n", cpu);
}

/*
 * Anchor: what one dependent load costs here in a buffer of `bytes` (a
 * pointer chase over cache lines in random order), the price of each level
 * of a walk that misses the caches.
 */
static void anchor_latency(size_t bytes)
{
	size_t lines = bytes / 64, steps = 1u << 22, p = 0;
	uint64_t *a = malloc(lines * 64);
	size_t *perm = malloc(lines * sizeof(*perm));
	char buf[96];

	if (!a || !perm)
		die("malloc");
	for (size_t i = 0; i < lines; i++)
		perm[i] = i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = rnd() % (i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		a[perm[i] * 8] = perm[(i + 1) % lines] * 8;
	struct timing t0 = timing_start();
	for (size_t i = 0; i < steps; i++)
		p = a[p];
	struct timing t = timing_end(t0);
	printf("anchor: dependent load in %5.1f MiB: %6.1f ns (%s) (%zx)\n",
	       (double)bytes / 1048576.0, t.cpu * 1e9 / (double)steps,
	       rates(t, steps, buf, sizeof(buf)), p);
	free(a);
	free(perm);
}

/* Anchor: fib4 (DIR-24-8) on the IPv4 table, random keys, scalar, on this core now. */
static void anchor_fib4(const char *path)
{
	FILE *f = fopen(path, "r");
	struct fib4 *fib = fib4_create(0);
	unsigned a, b, c, d, len, n = 0;
	uint64_t sum = 0;
	char line[64];

	if (!f || !fib)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u.%u.%u.%u/%u", &a, &b, &c, &d, &len) == 5 && len <= 32) {
			uint32_t p =
			    (a << 24 | b << 16 | c << 8 | d) & (len ? ~0u << (32 - len) : 0);

			n += fib4_insert(fib, p, (uint8_t)len, n + 1) == 0;
		}
	fclose(f);
	uint32_t *k = malloc(NKEYS * sizeof(*k));
	if (!k)
		die("malloc");
	for (uint32_t i = 0; i < NKEYS; i++)
		k[i] = (uint32_t)rnd();
	struct timing t0 = timing_start();
	char buf[96];

	for (uint32_t done = 0; done < LOOKUPS; done += NKEYS)
		for (uint32_t i = 0; i < NKEYS; i++)
			sum += fib4_lookup(fib, k[i]);
	printf("anchor: fib4 %u IPv4 routes, random keys, scalar: %s (%llx)\n", n,
	       rates(timing_end(t0), LOOKUPS, buf, sizeof(buf)), (unsigned long long)sum);
	free(k);
	fib4_destroy(fib);
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
