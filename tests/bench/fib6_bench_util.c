/* SPDX-License-Identifier: BSD-2-Clause */
/* The table, the reference, timing and the anchors of fib6_bench (fib6_bench.h). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib4.h"
#include "lib/clock.h"
#include "tests/bench/fib6_bench.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

u128 mask(unsigned len)
{
	return len ? ~(u128)0 << (128 - len) : 0;
}

void store(u128 k, uint8_t a[16])
{
	for (int i = 15; i >= 0; i--, k >>= 8)
		a[i] = (uint8_t)k;
}

void die(const char *what)
{
	fprintf(stderr, "fib6_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

struct route *routes_read(const char *path, size_t *n)
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

void print_mix(const struct route *r, size_t n)
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

long proc_kb(const char *file, const char *key)
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

static int route_cmp(const void *a, const void *b)
{
	const struct route *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

void ref_build(struct ref *ref, const struct route *r, size_t n)
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

uint32_t ref_lookup(const struct ref *ref, u128 addr)
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

size_t ref_flatten(const struct ref *ref, struct route *r)
{
	size_t n = 0;

	for (int l = 0; l <= 128; l++) {
		memcpy(r + n, ref->by_len[l], ref->n[l] * sizeof(*r));
		n += ref->n[l];
	}
	return n;
}

double cpu_s(void)
{
	return (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
}

struct timing timing_start(void)
{
	return (struct timing){mono_s(), cpu_s()};
}

struct timing timing_end(struct timing t0)
{
	return (struct timing){mono_s() - t0.wall, cpu_s() - t0.cpu};
}

/* "W M/s (C M/s per CPU-second, S% CPU)" */
const char *rates(struct timing t, uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%7.1f M/s (%7.1f M/s per CPU-second, %3.0f%% CPU)",
	         (double)n / t.wall / 1e6, (double)n / t.cpu / 1e6, 100.0 * t.cpu / t.wall);
	return buf;
}

void shuffle(struct route *r, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = rnd() % (i + 1);
		struct route t = r[i];

		r[i] = r[j];
		r[j] = t;
	}
}

void pin(int cpu)
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
void anchor_latency(size_t bytes)
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
void anchor_fib4(const char *path)
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
