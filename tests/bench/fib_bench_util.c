/* SPDX-License-Identifier: BSD-2-Clause */
/* fib_bench: input, reference, and small helpers. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "tests/bench/fib_bench.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

double now(void)
{
	return mono_s();
}

double cpu_now(void)
{
	return (double)clock_ns(CLOCK_THREAD_CPUTIME_ID) * 1e-9;
}

uint32_t mask_of(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "fib_bench: out of memory\n");
		exit(1);
	}
	return p;
}

void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "fib_bench: pin to CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
}

long proc_status_kb(const char *file, const char *key)
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

/* "a.b.c.d/len [asn]" per line. */
struct route *routes_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1u << 20, cnt = 0, bad = 0;
	struct route *r = xmalloc(cap * sizeof(*r));
	unsigned a, b, c, d, len, asn;
	char line[128];

	if (!f) {
		fprintf(stderr, "fib_bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		int got = sscanf(line, "%u.%u.%u.%u/%u %u", &a, &b, &c, &d, &len, &asn);

		if (got < 5 || a > 255 || b > 255 || c > 255 || d > 255 || len > 32) {
			bad++;
			continue;
		}
		if (cnt == cap && !(r = realloc(r, (cap *= 2) * sizeof(*r)))) {
			fprintf(stderr, "fib_bench: out of memory\n");
			exit(1);
		}
		uint32_t p = a << 24 | b << 16 | c << 8 | d;
		r[cnt] = (struct route){p & mask_of((uint8_t)len), (uint8_t)len, 0,
		                        got == 6 ? asn : 0, (uint32_t)cnt};
		cnt++;
	}
	fclose(f);
	if (bad)
		printf("skipped %zu unparsable lines\n", bad);
	*n = cnt;
	return r;
}

static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

/*
 * A router's FIB values are its next-hop groups, far fewer than its routes
 * (cellgated has at most 65535). Routes of one origin AS share a group, as
 * they would behind one best path; routes without an AS get one by prefix.
 */
void routes_set_values(struct route *r, size_t n, uint32_t nexthops)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t key = r[i].asn ? r[i].asn : r[i].prefix ^ r[i].len * 0x9e3779b9u;

		r[i].value = nexthops ? 1 + mix(key) % nexthops : (uint32_t)i + 1;
	}
}

void routes_print_mix(const struct route *r, size_t n)
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

void routes_shuffle(struct route *r, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = ((uint64_t)rnd() << 32 | rnd()) % (i + 1);
		struct route t = r[i];

		r[i] = r[j];
		r[j] = t;
	}
}

static int route_cmp(const void *a, const void *b)
{
	const struct route *x = a, *y = b;

	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Duplicate prefixes: the last line wins, as it does when inserted in file order. */
void ref_build(struct ref *ref, const struct route *r, size_t n)
{
	size_t count[33] = {0};

	for (size_t i = 0; i < n; i++)
		count[r[i].len]++;
	for (int l = 0; l <= 32; l++) {
		size_t k = 0, out = 0;

		ref->by_len[l] = xmalloc(count[l] * sizeof(struct route));
		for (size_t i = 0; i < n; i++) {
			if (r[i].len == l)
				ref->by_len[l][k++] = r[i];
		}
		qsort(ref->by_len[l], k, sizeof(struct route), route_cmp);
		for (size_t i = 0; i < k; i++) {
			if (out && ref->by_len[l][out - 1].prefix == ref->by_len[l][i].prefix)
				out--;
			ref->by_len[l][out++] = ref->by_len[l][i];
		}
		ref->n[l] = out;
	}
}

void ref_free(struct ref *ref)
{
	for (int l = 0; l <= 32; l++)
		free(ref->by_len[l]);
}

uint32_t ref_lookup(const struct ref *ref, uint32_t addr)
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

size_t ref_flatten(const struct ref *ref, struct route *r)
{
	size_t n = 0;

	for (int l = 0; l <= 32; l++) {
		memcpy(r + n, ref->by_len[l], ref->n[l] * sizeof(*r));
		n += ref->n[l];
	}
	return n;
}
