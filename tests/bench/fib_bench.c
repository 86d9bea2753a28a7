/*
 * FIB4 benchmark on a real-shaped table (fib-bench.sh feeds it the IPv4 nets
 * of the libloc database, ~1.07M prefixes, one "a.b.c.d/len" per line).
 * Single core: pinned to the CPU given on the command line.
 *
 *   fib_bench PREFIX_FILE [CPU]
 *
 * Reports the length mix, insert/delete rates, memory, lookup rates (random
 * and sequential keys; scalar and bulk 32/64), and checks lookups against an
 * independent reference (binary search per prefix length).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datapath/fib/fib4.h"
#include "lib/clock.h"

struct route {
	uint32_t prefix;
	uint8_t len;
	uint32_t value;
};

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static uint32_t mask_of(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

/* Value = line number + 1: unique, so a wrong match cannot pass by luck. */
static struct route *routes_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1u << 20, cnt = 0, bad = 0;
	struct route *r = malloc(cap * sizeof(*r));
	unsigned a, b, c, d, len;

	if (!f || !r) {
		fprintf(stderr, "fib_bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	char line[128];
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u.%u.%u.%u/%u", &a, &b, &c, &d, &len) != 5 || a > 255 ||
		    b > 255 || c > 255 || d > 255 || len > 32) {
			bad++;
			continue;
		}
		if (cnt == cap && !(r = realloc(r, (cap *= 2) * sizeof(*r)))) {
			fprintf(stderr, "fib_bench: out of memory\n");
			exit(1);
		}
		uint32_t p = a << 24 | b << 16 | c << 8 | d;
		r[cnt] = (struct route){p & mask_of((uint8_t)len), (uint8_t)len, (uint32_t)cnt + 1};
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
	size_t by_len[33] = {0}, longer = 0;
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		by_len[r[i].len]++;
		sum += r[i].len;
		longer += r[i].len > 24;
	}
	printf("prefixes: %zu, mean length %.2f, /24: %.1f%%, longer than /24: %zu\n", n,
	       sum / (double)n, 100.0 * (double)by_len[24] / (double)n, longer);
	printf("length mix:");
	for (int l = 0; l <= 32; l++) {
		if (by_len[l])
			printf(" /%d:%zu", l, by_len[l]);
	}
	printf("\n");
}

static long proc_status_kb(const char *file, const char *key)
{
	FILE *f = fopen(file, "r");
	char line[256];
	long kb = -1;
	size_t klen = strlen(key);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen)) {
			kb = strtol(line + klen, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

/* ---- reference: per length, routes sorted by prefix, binary searched ---- */

struct ref {
	struct route *by_len[33];
	size_t n[33];
};

static int route_cmp(const void *a, const void *b)
{
	const struct route *x = a, *y = b;

	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* Duplicate prefixes: the last line wins, as it does when inserted in file order. */
static void ref_build(struct ref *ref, const struct route *r, size_t n)
{
	size_t count[33] = {0};

	for (size_t i = 0; i < n; i++)
		count[r[i].len]++;
	for (int l = 0; l <= 32; l++) {
		size_t k = 0;

		ref->by_len[l] = malloc((count[l] ? count[l] : 1) * sizeof(struct route));
		if (!ref->by_len[l]) {
			fprintf(stderr, "fib_bench: out of memory\n");
			exit(1);
		}
		for (size_t i = 0; i < n; i++) {
			if (r[i].len == l)
				ref->by_len[l][k++] = r[i];
		}
		qsort(ref->by_len[l], k, sizeof(struct route), route_cmp);
		size_t out = 0;
		for (size_t i = 0; i < k; i++) {
			if (out && ref->by_len[l][out - 1].prefix == ref->by_len[l][i].prefix)
				out--;
			ref->by_len[l][out++] = ref->by_len[l][i];
		}
		ref->n[l] = out;
	}
}

static uint32_t ref_lookup(const struct ref *ref, uint32_t addr)
{
	for (int l = 32; l >= 0; l--) {
		uint32_t key = addr & mask_of((uint8_t)l);
		size_t lo = 0, hi = ref->n[l];

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (ref->by_len[l][mid].prefix < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < ref->n[l] && ref->by_len[l][lo].prefix == key)
			return ref->by_len[l][lo].value;
	}
	return 0;
}

/* The distinct routes (what the FIB holds) back into r; returns their number. */
static size_t ref_flatten(const struct ref *ref, struct route *r)
{
	size_t n = 0;

	for (int l = 0; l <= 32; l++) {
		memcpy(r + n, ref->by_len[l], ref->n[l] * sizeof(*r));
		n += ref->n[l];
	}
	return n;
}

/* Random addresses, and addresses inside random routes (reaches the longer ones). */
static int check_correct(const struct fib4 *fib, const struct ref *ref, const struct route *r,
                         size_t n, unsigned count)
{
	unsigned bad = 0, matched = 0;

	for (unsigned i = 0; i < count; i++) {
		uint32_t addr = rnd();
		const struct route *in = &r[rnd() % n];

		if (i % 2)
			addr = in->prefix | (addr & ~mask_of(in->len));
		uint32_t got = fib4_lookup(fib, addr), want = ref_lookup(ref, addr);

		matched += want != 0;
		if (got != want && bad++ < 10)
			printf("MISMATCH %u.%u.%u.%u: fib %u, reference %u\n", addr >> 24,
			       addr >> 16 & 0xff, addr >> 8 & 0xff, addr & 0xff, got, want);
	}
	printf("correctness: %u addresses (%u routed), %u mismatches\n", count, matched, bad);
	return bad ? -1 : 0;
}

/* ---- lookup timing ---- */

#define NKEYS           (1u << 22)
#define LOOKUPS_PER_RUN (200u << 20)

static void bench_lookups(const struct fib4 *fib, const uint32_t *keys, const char *what)
{
	static uint32_t vals[64];
	const unsigned modes[] = {1, 32, 64};

	for (unsigned m = 0; m < 3; m++) {
		unsigned burst = modes[m];
		uint64_t sum = 0;
		double t0 = mono_s();

		for (uint32_t done = 0; done < LOOKUPS_PER_RUN; done += NKEYS) {
			if (burst == 1) {
				for (uint32_t i = 0; i < NKEYS; i++)
					sum += fib4_lookup(fib, keys[i]);
				continue;
			}
			for (uint32_t i = 0; i < NKEYS; i += burst) {
				fib4_lookup_bulk(fib, keys + i, vals, burst);
				for (unsigned k = 0; k < burst; k++)
					sum += vals[k];
			}
		}
		double dt = mono_s() - t0;
		printf("lookup %-10s %-7s: %7.1f M/s  (%.2f ns each, checksum %llx)\n", what,
		       burst == 1    ? "scalar"
		       : burst == 32 ? "bulk32"
		                     : "bulk64",
		       LOOKUPS_PER_RUN / dt / 1e6, dt * 1e9 / LOOKUPS_PER_RUN,
		       (unsigned long long)sum);
	}
}

static void shuffle(struct route *r, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = ((uint64_t)rnd() << 32 | rnd()) % (i + 1);
		struct route t = r[i];

		r[i] = r[j];
		r[j] = t;
	}
}

static struct fib4 *load(const struct route *r, size_t n, const char *order)
{
	struct fib4 *fib = fib4_create(0);
	double t0;

	if (!fib) {
		fprintf(stderr, "fib_bench: fib4_create: %s\n", strerror(errno));
		exit(1);
	}
	t0 = mono_s();
	for (size_t i = 0; i < n; i++) {
		int rc = fib4_insert(fib, r[i].prefix, r[i].len, r[i].value);

		if (rc < 0) {
			fprintf(stderr, "fib_bench: insert #%zu: %s\n", i, strerror(-rc));
			exit(1);
		}
	}
	double dt = mono_s() - t0;
	printf("insert (%s): %zu routes in %.3f s = %.2f M routes/s\n", order, n, dt,
	       (double)n / dt / 1e6);
	return fib;
}

static void report_memory(const struct fib4 *fib, long rss0_kb)
{
	struct fib4_stats st;
	long rss = proc_status_kb("/proc/self/status", "VmRSS:");
	long huge = proc_status_kb("/proc/self/smaps_rollup", "AnonHugePages:");

	fib4_get_stats(fib, &st);
	printf("fib: %llu routes, tbl8 groups %llu/%llu, memory_bytes %.1f MiB\n",
	       (unsigned long long)st.routes, (unsigned long long)st.tbl8_groups_used,
	       (unsigned long long)st.tbl8_groups_max, (double)st.memory_bytes / 1048576.0);
	printf("process RSS %.1f MiB (FIB share %.1f MiB; %.0f MiB on huge pages)\n",
	       (double)rss / 1024.0, (double)(rss - rss0_kb) / 1024.0, (double)huge / 1024.0);
}

static int delete_all(struct fib4 *fib, struct route *r, size_t n, size_t distinct)
{
	size_t deleted = 0;
	struct fib4_stats st;
	double t0 = mono_s();

	for (size_t i = 0; i < n; i++)
		deleted += fib4_delete(fib, r[i].prefix, r[i].len) == 0;
	double dt = mono_s() - t0;
	printf("delete (random order): %zu routes in %.3f s = %.2f M routes/s\n", deleted, dt,
	       (double)deleted / dt / 1e6);
	fib4_reclaim(fib);
	fib4_get_stats(fib, &st);
	if (deleted != distinct || st.routes || st.tbl8_groups_used) {
		printf("DELETE FAILED: deleted %zu of %zu, %llu routes left\n", deleted, distinct,
		       (unsigned long long)st.routes);
		return -1;
	}
	return 0;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "fib_bench: pin to CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
	printf("pinned to CPU %d\n", cpu);
}

static void keys_fill(uint32_t *keys, int sequential)
{
	uint32_t base = 0x50000000u; /* inside well-populated space */

	for (uint32_t i = 0; i < NKEYS; i++)
		keys[i] = sequential ? base + i : rnd();
}

int main(int argc, char **argv)
{
	struct route *r;
	struct ref ref;
	struct fib4 *fib;
	size_t n;
	int rc = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: fib_bench PREFIX_FILE [CPU]\n");
		return 2;
	}
	pin(argc == 3 ? atoi(argv[2]) : 0);
	r = routes_read(argv[1], &n);
	if (!n) {
		fprintf(stderr, "fib_bench: no prefixes in %s\n", argv[1]);
		return 1;
	}
	print_mix(r, n);
	long rss0 = proc_status_kb("/proc/self/status", "VmRSS:");
	fib = load(r, n, "file order");
	report_memory(fib, rss0);

	ref_build(&ref, r, n);
	rc |= check_correct(fib, &ref, r, n, 100000);

	uint32_t *keys = malloc(NKEYS * sizeof(*keys));
	if (!keys) {
		fprintf(stderr, "fib_bench: out of memory\n");
		return 1;
	}
	keys_fill(keys, 0);
	bench_lookups(fib, keys, "random");
	keys_fill(keys, 1);
	bench_lookups(fib, keys, "sequential");
	free(keys);

	size_t distinct = ref_flatten(&ref, r);
	if (distinct != n)
		printf("%zu duplicate prefixes (the last one wins)\n", n - distinct);
	n = distinct;
	shuffle(r, n);
	rc |= delete_all(fib, r, n, n);
	fib4_destroy(fib);
	/* Shuffled order: short prefixes now often land on top of longer ones. */
	fib = load(r, n, "random order");
	rc |= check_correct(fib, &ref, r, n, 100000);
	fib4_destroy(fib);
	for (int l = 0; l <= 32; l++)
		free(ref.by_len[l]);
	free(r);
	printf("%s\n", rc ? "FAILED" : "ok");
	return rc ? 1 : 0;
}
