/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RIB6's prefix order (daemon/rib6_order.h) against a plain sorted
 * array: random inserts and removes of keys that share addresses (one
 * prefix at several lengths, as a /32 and its /48s and /64s do), keys
 * that differ only in the low half or in the length, inserts in order (a
 * replay: chunks filled, not halved), removes down to nothing (chunks
 * merged and dropped). After each phase: every key once, in order; seek,
 * next, count and skip as the array says. And the key arithmetic:
 * rib6_key_next across a /128 and past the last key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/rib6_order.h"
#include "tests/unit/check.h"

#define NKEYS 20000u

static struct rib6_key ref[NKEYS];
static unsigned nref;

static uint64_t rnd(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* Few distinct addresses, so lengths and low halves decide many comparisons. */
static struct rib6_key key_random(void)
{
	uint64_t r = rnd();
	struct rib6_key k = {.hi = 0x20010db800000000ull | (r & 0x3ff) << 16,
	                     .lo = (r >> 10) & 1 ? (r >> 11 & 0xf) << 60 : 0,
	                     .len = (uint8_t)(32 + (r >> 15) % 97)};
	return k;
}

static unsigned ref_find(const struct rib6_key *k)
{
	unsigned lo = 0, hi = nref;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (rib6_key_cmp(&ref[mid], k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void ref_insert(const struct rib6_key *k)
{
	unsigned i = ref_find(k);

	memmove(ref + i + 1, ref + i, (nref - i) * sizeof(ref[0]));
	ref[i] = *k;
	nref++;
}

static void ref_remove(unsigned i)
{
	memmove(ref + i, ref + i + 1, (nref - i - 1) * sizeof(ref[0]));
	nref--;
}

/* The set holds exactly ref, in order; seek, count and skip agree with it. */
static void check_same(const struct rib6_order *o)
{
	struct rib6_order_pos p;
	struct rib6_key k, max = RIB6_KEY_MAX;
	unsigned i = 0, bad = 0;

	CHECK_EQ(o->count, nref);
	for (bool more = rib6_order_seek(o, &(struct rib6_key){0}, &p); more;
	     more = rib6_order_next(o, &p), i++) {
		rib6_order_at(o, &p, &k);
		bad += i >= nref || rib6_key_cmp(&k, &ref[i]) != 0;
	}
	CHECK_EQ(i, nref);
	CHECK_EQ(bad, 0);
	CHECK_EQ(rib6_order_count(o, &(struct rib6_key){0}, &max), nref);
	for (unsigned t = 0; t < 200 && nref; t++) {
		struct rib6_key a = key_random(), b = key_random(), *lo, *hi;
		unsigned ia, n = (unsigned)(rnd() % (nref + 2));

		lo = rib6_key_cmp(&a, &b) <= 0 ? &a : &b;
		hi = lo == &a ? &b : &a;
		ia = ref_find(lo);
		unsigned past = ref_find(hi);
		past += past < nref && rib6_key_cmp(&ref[past], hi) == 0;
		CHECK_EQ(rib6_order_count(o, lo, hi), past - ia);
		CHECK_EQ(rib6_order_count(o, hi, lo), rib6_key_cmp(lo, hi) == 0 ? past - ia : 0);
		bool found = rib6_order_seek(o, lo, &p);
		CHECK(found == (ia < nref));
		if (found && rib6_order_skip(o, &p, n)) {
			rib6_order_at(o, &p, &k);
			CHECK(ia + n < nref && rib6_key_cmp(&k, &ref[ia + n]) == 0);
		} else if (found) {
			CHECK(ia + n >= nref);
		}
	}
}

static void test_random(struct rib6_order *o)
{
	for (unsigned t = 0; t < 3 * NKEYS; t++) {
		struct rib6_key k = key_random();
		unsigned i = ref_find(&k);
		bool there = i < nref && rib6_key_cmp(&ref[i], &k) == 0;

		if (rnd() % 3 == 0 && nref) { /* remove one that is there, or a missing one */
			int e = rib6_order_remove(o, &k);
			CHECK_EQ(e, there ? 0 : -ENOENT);
			if (there)
				ref_remove(i);
		} else if (nref < NKEYS) {
			int e = rib6_order_insert(o, &k);
			CHECK_EQ(e, there ? -EEXIST : 0);
			if (!there)
				ref_insert(&k);
		}
	}
	CHECK(nref > 1000);
	check_same(o);
}

/* Keys in order (a replay), into an empty set: each chunk filled before the next starts. */
static void test_in_order(void)
{
	struct rib6_key k = {.hi = 0x2a00000000000000ull};
	struct rib6_order o;

	rib6_order_init(&o);
	for (unsigned i = 0; i < 4 * RIB6_ORDER_CHUNK; i++) {
		k.len = (uint8_t)(48 + i % 3 * 8);
		k.hi += (uint64_t)(i % 3 == 0) << 16;
		CHECK_EQ(rib6_order_insert(&o, &k), 0);
		ref_insert(&k);
	}
	CHECK_EQ(o.n, 4);
	check_same(&o);
	rib6_order_fini(&o);
	nref = 0;
}

static void test_remove_all(struct rib6_order *o)
{
	while (nref) {
		unsigned i = (unsigned)(rnd() % nref);
		CHECK_EQ(rib6_order_remove(o, &ref[i]), 0);
		ref_remove(i);
		if (nref % 2000 == 0)
			check_same(o);
	}
	CHECK_EQ(o->n, 0);
	CHECK_EQ(rib6_order_remove(o, &(struct rib6_key){0}), -ENOENT);
}

static void test_keys(void)
{
	uint8_t p[16] = {0x20, 0x01, 0x0d, 0xb8, [8] = 0x80, [15] = 0x01}, q[16];
	struct rib6_key k = rib6_key_of(p, 128), m = RIB6_KEY_MAX, past = RIB6_KEY_PAST;

	CHECK(k.hi == 0x20010db800000000ull && k.lo == 0x8000000000000001ull && k.len == 128);
	rib6_key_prefix(&k, q);
	CHECK(!memcmp(p, q, 16));
	rib6_key_next(&k); /* after a /128: the next address, at length 0 */
	CHECK(k.hi == 0x20010db800000000ull && k.lo == 0x8000000000000002ull && k.len == 0);
	k = (struct rib6_key){.hi = 1, .lo = UINT64_MAX, .len = 128};
	rib6_key_next(&k); /* the carry into the high half */
	CHECK(k.hi == 2 && k.lo == 0 && k.len == 0);
	k.len = 64;
	rib6_key_next(&k);
	CHECK(k.hi == 2 && k.lo == 0 && k.len == 65);
	rib6_key_next(&m);
	CHECK(rib6_key_cmp(&m, &past) == 0);
	rib6_key_next(&m); /* stays past the end */
	CHECK(rib6_key_cmp(&m, &past) == 0 && rib6_key_cmp(&m, &(struct rib6_key)RIB6_KEY_MAX) > 0);
}

int main(void)
{
	struct rib6_order o;

	rib6_order_init(&o);
	test_keys();
	test_in_order();
	test_random(&o);
	CHECK(rib6_order_memory(&o) > 0);
	test_remove_all(&o);
	rib6_order_fini(&o);
	return check_report("test_rib6_order");
}
