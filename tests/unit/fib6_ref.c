/* SPDX-License-Identifier: BSD-2-Clause */
/* The naive reference test_fib6 compares FIB6 with, and its random tables (fib6_ref.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/unit/fib6_ref.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

uint64_t rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

u128 rnd128(void)
{
	return (u128)rnd64() << 64 | rnd64();
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

u128 load(const uint8_t a[16])
{
	u128 k = 0;

	for (int i = 0; i < 16; i++)
		k = k << 8 | a[i];
	return k;
}

int ref_find(const struct ref *r, u128 key, unsigned len)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->len[i] == len && r->key[i] == key)
			return (int)i;
	return -1;
}

uint32_t ref_lookup(const struct ref *r, u128 addr)
{
	int best = -1;

	for (unsigned i = 0; i < r->n; i++)
		if ((addr & mask(r->len[i])) == r->key[i] && (best < 0 || r->len[i] > r->len[best]))
			best = (int)i;
	return best < 0 ? 0 : r->val[best];
}

void ref_set(struct ref *r, u128 key, unsigned len, uint32_t val)
{
	int i = ref_find(r, key, len);

	if (i < 0) {
		i = (int)r->n++;
		r->key[i] = key;
		r->len[i] = (uint8_t)len;
	}
	r->val[i] = val;
}

void ref_del(struct ref *r, int i)
{
	r->n--;
	r->key[i] = r->key[r->n];
	r->len[i] = r->len[r->n];
	r->val[i] = r->val[r->n];
}

int ins(struct fib6 *f, u128 key, unsigned len, uint32_t val)
{
	uint8_t a[16];

	store(key, a);
	return fib6_insert(f, a, (uint8_t)len, val);
}

int del(struct fib6 *f, u128 key, unsigned len)
{
	uint8_t a[16];

	store(key, a);
	return fib6_delete(f, a, (uint8_t)len);
}

uint32_t look(const struct fib6 *f, u128 addr)
{
	uint8_t a[16];

	store(addr, a);
	return fib6_lookup(f, a);
}

/* Scalar and bulk lookups of random, in-table and edge keys against the reference. */
unsigned compare(const struct fib6 *f, const struct ref *r, unsigned count)
{
	enum { B = 37 }; /* not a multiple of the bulk batch */
	uint8_t buf[B][16];
	const uint8_t *ptr[B];
	uint32_t want[B], got[B];
	unsigned bad = 0;

	for (unsigned done = 0; done < count; done += B) {
		for (unsigned i = 0; i < B; i++) {
			u128 a = rnd128();

			if (r->n && i % 4 != 0) {
				unsigned j = (unsigned)(rnd64() % r->n);
				u128 host = i % 4 == 1 ? 0 : i % 4 == 2 ? ~(u128)0 : a;

				a = r->key[j] | (host & ~mask(r->len[j]));
			}
			store(a, buf[i]);
			ptr[i] = buf[i];
			want[i] = ref_lookup(r, a);
			if (fib6_lookup(f, buf[i]) != want[i])
				bad++;
		}
		fib6_lookup_bulk(f, ptr, got, B);
		for (unsigned i = 0; i < B; i++)
			bad += got[i] != want[i];
	}
	return bad;
}

/* Lengths a real table has, plus the structure's edges (direct table /18, strides of 6, /128). */
unsigned pick_len(void)
{
	static const uint8_t edges[] = {1,  8,  15, 16, 17, 18, 19, 23, 24, 25, 29,  30,  32, 36,
	                                40, 42, 43, 47, 48, 49, 60, 63, 64, 65, 126, 127, 128};
	unsigned r = (unsigned)(rnd64() % 100);

	if (r < 60)
		return edges[rnd64() % sizeof(edges)];
	if (r < 90)
		return 24 + (unsigned)(rnd64() % 25); /* /24../48, as libloc's */
	return (unsigned)(rnd64() % 129);
}

/* Prefixes crowd under a few /16s, so subtrees are deep and shared. */
u128 pick_key(unsigned len)
{
	static const uint16_t tops[] = {0x2001, 0x2a00, 0x2a02, 0x2400, 0x2600, 0xfd00};
	u128 a = rnd128();

	if (rnd64() % 8)
		a = (a & ~mask(16)) | (u128)tops[rnd64() % 6] << 112;
	if (rnd64() % 2) /* share the first 32 bits with others */
		a = (a & ~mask(32)) | (a & mask(16)) | (u128)(rnd64() % 4) << 96;
	return a & mask(len);
}

struct walk_ctx {
	const struct ref *r;
	unsigned seen, wrong;
};

static int walk_cb(const uint8_t prefix[16], uint8_t len, uint32_t value, void *arg)
{
	struct walk_ctx *w = arg;
	int i = ref_find(w->r, load(prefix), len);

	w->seen++;
	w->wrong += i < 0 || w->r->val[i] != value;
	return 0;
}

void check_walk(const struct fib6 *f, const struct ref *r)
{
	struct walk_ctx w = {.r = r};
	struct fib6_stats st;

	CHECK_EQ(fib6_walk(f, walk_cb, &w), 0);
	CHECK_EQ(w.seen, r->n);
	CHECK_EQ(w.wrong, 0);
	fib6_get_stats(f, &st);
	CHECK_EQ(st.routes, r->n);
	for (unsigned i = 0; i < r->n; i += 1 + r->n / 200) {
		uint8_t a[16];

		store(r->key[i], a);
		CHECK_EQ(fib6_get(f, a, r->len[i]), r->val[i]);
	}
}

/* A copy of the reference, for what readers must still see during a batch. */
struct ref *ref_dup(const struct ref *r)
{
	struct ref *d = malloc(sizeof(*d));

	memcpy(d, r, sizeof(*d));
	return d;
}

/*
 * Each address answers what one of the states says: slots switch one at a
 * time, each to the state of the batch_end that published it.
 */
unsigned compare_any(const struct fib6 *f, struct ref *const *st, unsigned nst, unsigned count)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < count; i++) {
		const struct ref *r = st[i % nst];
		u128 addr = rnd128();
		uint32_t got;
		bool ok = false;

		if (r->n) {
			unsigned j = (unsigned)(rnd64() % r->n);
			addr = r->key[j] | (addr & ~mask(r->len[j]));
		}
		got = look(f, addr);
		for (unsigned k = 0; k < nst && !ok; k++)
			ok = got == ref_lookup(st[k], addr);
		bad += !ok;
	}
	return bad;
}
