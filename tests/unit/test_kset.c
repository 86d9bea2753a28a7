/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ordered key set against a plain sorted array: random inserts and
 * removes, seek/next/count/skip at every edge, sorted input filling its
 * chunks, and memory given back as keys go.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kset.h"
#include "tests/unit/check.h"

#define NREF 20000

static uint64_t ref[NREF];
static unsigned nref;

static unsigned ref_lower(uint64_t key)
{
	unsigned lo = 0, hi = nref;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (ref[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int ref_insert(uint64_t key)
{
	unsigned i = ref_lower(key);

	if (i < nref && ref[i] == key)
		return -EEXIST;
	memmove(ref + i + 1, ref + i, (nref - i) * sizeof(ref[0]));
	ref[i] = key;
	nref++;
	return 0;
}

static int ref_remove(uint64_t key)
{
	unsigned i = ref_lower(key);

	if (i >= nref || ref[i] != key)
		return -ENOENT;
	memmove(ref + i, ref + i + 1, (nref - i - 1) * sizeof(ref[0]));
	nref--;
	return 0;
}

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* The whole set, in order, equals the reference; every chunk is sorted and non-empty. */
static void check_same(const struct kset *s)
{
	struct kset_pos p;
	unsigned i = 0;
	bool ok = true, more = kset_seek(s, 0, &p);

	for (; more && i < nref; more = kset_next(s, &p), i++)
		ok &= kset_at(s, &p) == ref[i];
	CHECK(ok);
	CHECK(!more);
	CHECK_EQ(i, nref);
	CHECK_EQ(s->count, nref);
	for (uint32_t c = 0; c < s->n; c++) {
		ok &= s->c[c]->n > 0 && s->first[c] == s->c[c]->k[0];
		ok &= c == 0 || s->first[c - 1] < s->first[c];
	}
	CHECK(ok);
}

static void test_random(void)
{
	struct kset s;
	bool ok = true;

	kset_init(&s);
	nref = 0;
	for (int round = 0; round < 60000; round++) {
		uint64_t key = rnd() % 30000; /* collisions on purpose */
		if (rnd() % 3 && nref < NREF)
			ok &= kset_insert(&s, key) == ref_insert(key);
		else
			ok &= kset_remove(&s, key) == ref_remove(key);
	}
	CHECK(ok);
	check_same(&s);
	/* seek, count and skip against the reference, at random and at the edges */
	for (int t = 0; t < 2000; t++) {
		uint64_t lo = rnd() % 31000, hi = lo + rnd() % 3000;
		struct kset_pos p;
		unsigned i = ref_lower(lo), j = ref_lower(hi + 1);
		bool found = kset_seek(&s, lo, &p);

		ok &= found == (i < nref) && (!found || kset_at(&s, &p) == ref[i]);
		ok &= kset_count(&s, lo, hi) == j - i;
		if (found) {
			uint64_t n = rnd() % 700;
			bool in = kset_skip(&s, &p, n);
			ok &= in == (i + n < nref) && (!in || kset_at(&s, &p) == ref[i + n]);
		}
	}
	CHECK(ok);
	CHECK_EQ(kset_count(&s, 0, UINT64_MAX), nref);
	CHECK_EQ(kset_count(&s, 5, 4), 0);
	CHECK(nref == 0 || kset_contains(&s, ref[nref / 2]));
	kset_fini(&s);
}

/* A table arriving sorted (a replay) fills its chunks instead of halving them. */
static void test_sorted_fill(void)
{
	struct kset s;
	struct kset_pos p;

	kset_init(&s);
	for (uint64_t k = 1; k <= 100000; k++)
		CHECK_EQ(kset_insert(&s, k << 8 | 24), 0);
	CHECK_EQ(s.count, 100000);
	CHECK(s.n <= 100000 / KSET_CHUNK + 1);
	CHECK_EQ(kset_insert(&s, 7 << 8 | 24), -EEXIST);
	/* Descending input too. */
	for (uint64_t k = 100000; k >= 1; k--)
		CHECK_EQ(kset_insert(&s, k << 8 | 16), 0);
	CHECK(s.n <= 2 * 200000 / KSET_CHUNK + 2);
	CHECK(kset_seek(&s, 0, &p) && kset_at(&s, &p) == (1u << 8 | 16));
	CHECK(kset_next(&s, &p) && kset_at(&s, &p) == (1u << 8 | 24));
	CHECK(kset_seek(&s, 100000ull << 8 | 20, &p) && kset_at(&s, &p) == (100000ull << 8 | 24));
	CHECK(!kset_next(&s, &p));
	CHECK(!kset_seek(&s, 100000ull << 8 | 25, &p));
	kset_fini(&s);
}

/* Removing most keys gives the memory back: chunks merge, empty ones go. */
static void test_shrink(void)
{
	struct kset s;
	size_t full;

	kset_init(&s);
	nref = 0;
	for (uint64_t k = 0; k < NREF; k++) {
		uint64_t key = rnd();
		if (ref_insert(key) == 0)
			CHECK_EQ(kset_insert(&s, key), 0);
	}
	full = kset_memory(&s);
	for (unsigned i = nref; i-- > 0;)
		if (i % 16) {
			CHECK_EQ(kset_remove(&s, ref[i]), 0);
			ref_remove(ref[i]);
		}
	check_same(&s);
	/* 1/16 of the keys left: chunks at least a quarter full on average. */
	CHECK(s.n * KSET_CHUNK / 4 <= nref * 2 + KSET_CHUNK);
	CHECK(kset_memory(&s) < full / 2);
	while (nref)
		CHECK_EQ(kset_remove(&s, ref[--nref]), 0);
	CHECK_EQ(s.n, 0);
	CHECK(!kset_seek(&s, 0, &(struct kset_pos){0}));
	CHECK_EQ(kset_remove(&s, 1), -ENOENT);
	kset_fini(&s);
}

int main(void)
{
	test_random();
	test_sorted_fill();
	test_shrink();
	return check_report("test_kset");
}
