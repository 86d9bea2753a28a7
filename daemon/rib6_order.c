/* SPDX-License-Identifier: BSD-2-Clause */
/* The RIB6's prefix order (rib6_order.h): sorted chunks of keys under a sorted array of first keys.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/rib6_order.h"

#define CHUNK RIB6_ORDER_CHUNK

struct rib6_key rib6_key_of(const uint8_t prefix[16], uint8_t len)
{
	struct rib6_key k = {.len = len};

	for (unsigned i = 0; i < 8; i++) {
		k.hi = k.hi << 8 | prefix[i];
		k.lo = k.lo << 8 | prefix[8 + i];
	}
	return k;
}

void rib6_key_prefix(const struct rib6_key *k, uint8_t prefix[16])
{
	for (unsigned i = 0; i < 8; i++) {
		prefix[i] = (uint8_t)(k->hi >> (56 - 8 * i));
		prefix[8 + i] = (uint8_t)(k->lo >> (56 - 8 * i));
	}
}

void rib6_key_next(struct rib6_key *k)
{
	if (k->len < 128 || (k->hi == UINT64_MAX && k->lo == UINT64_MAX)) {
		if (k->len < 129)
			k->len++;
		return;
	}
	k->len = 0;
	if (++k->lo == 0)
		k->hi++;
}

void rib6_order_init(struct rib6_order *o)
{
	memset(o, 0, sizeof(*o));
}

void rib6_order_fini(struct rib6_order *o)
{
	for (uint32_t i = 0; i < o->n; i++)
		free(o->c[i]);
	free(o->c);
	free(o->first);
	rib6_order_init(o);
}

/* Key j of chunk c against k: <0, 0, >0 as rib6_key_cmp. */
static int at_cmp(const struct rib6_order_chunk *c, uint32_t j, const struct rib6_key *k)
{
	if (c->hi[j] != k->hi)
		return c->hi[j] < k->hi ? -1 : 1;
	if (c->lo[j] != k->lo)
		return c->lo[j] < k->lo ? -1 : 1;
	return (c->len[j] > k->len) - (c->len[j] < k->len);
}

/* The chunk that holds k or would: the last whose first key is <= k (0 if none). */
static uint32_t chunk_of(const struct rib6_order *o, const struct rib6_key *k)
{
	uint32_t lo = 0, hi = o->n; /* answer in [lo, hi) */

	/* Keys arriving in order land in the last chunk: one comparison, no search. */
	if (o->n && rib6_key_cmp(&o->first[o->n - 1], k) <= 0)
		return o->n - 1;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (rib6_key_cmp(&o->first[mid], k) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first key >= k in chunk c (c->n if none). */
static uint32_t index_in(const struct rib6_order_chunk *c, const struct rib6_key *k)
{
	uint32_t lo = 0, hi = c->n;

	/*
	 * A chunk of a table arriving out of order is rarely in the cache: ask
	 * for all of its high halves at once, so the search below waits for
	 * one miss, not for one per step (7 dependent ones at 128 keys).
	 */
	for (uint32_t j = 0; j < c->n; j += 64 / sizeof(c->hi[0]))
		__builtin_prefetch(&c->hi[j]);
	if (c->n && at_cmp(c, c->n - 1, k) < 0)
		return c->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (at_cmp(c, mid, k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void first_set(struct rib6_order *o, uint32_t i)
{
	const struct rib6_order_chunk *c = o->c[i];

	o->first[i] = (struct rib6_key){.hi = c->hi[0], .lo = c->lo[0], .len = c->len[0]};
}

/* Room for one more chunk in the arrays over them. */
static int arrays_reserve(struct rib6_order *o)
{
	uint32_t cap = o->cap ? o->cap * 2 : 16;
	struct rib6_order_chunk **c;
	struct rib6_key *first;

	if (o->n < o->cap)
		return 0;
	if (!(c = realloc(o->c, cap * sizeof(*c))))
		return -ENOMEM;
	o->c = c;
	if (!(first = realloc(o->first, cap * sizeof(*first))))
		return -ENOMEM;
	o->first = first;
	o->cap = cap;
	return 0;
}

/* A new empty chunk at position i (the caller fills it at once). */
static struct rib6_order_chunk *chunk_add(struct rib6_order *o, uint32_t i)
{
	struct rib6_order_chunk *c;

	if (arrays_reserve(o) != 0 || !(c = malloc(sizeof(*c))))
		return NULL;
	memmove(o->c + i + 1, o->c + i, (o->n - i) * sizeof(*o->c));
	memmove(o->first + i + 1, o->first + i, (o->n - i) * sizeof(*o->first));
	c->n = 0;
	o->c[i] = c;
	o->n++;
	return c;
}

static void chunk_drop(struct rib6_order *o, uint32_t i)
{
	free(o->c[i]);
	memmove(o->c + i, o->c + i + 1, (o->n - i - 1) * sizeof(*o->c));
	memmove(o->first + i, o->first + i + 1, (o->n - i - 1) * sizeof(*o->first));
	o->n--;
}

/* Keys [from, from + n) of chunk s to index to of chunk d (the same chunk or not; may overlap). */
static void keys_move(struct rib6_order_chunk *d, uint32_t to, const struct rib6_order_chunk *s,
                      uint32_t from, uint32_t n)
{
	memmove(d->hi + to, s->hi + from, n * sizeof(d->hi[0]));
	memmove(d->lo + to, s->lo + from, n * sizeof(d->lo[0]));
	memmove(d->len + to, s->len + from, n * sizeof(d->len[0]));
}

static void chunk_put(struct rib6_order *o, uint32_t i, uint32_t j, const struct rib6_key *k)
{
	struct rib6_order_chunk *c = o->c[i];

	keys_move(c, j + 1, c, j, c->n - j);
	c->hi[j] = k->hi;
	c->lo[j] = k->lo;
	c->len[j] = k->len;
	c->n++;
	first_set(o, i);
	o->count++;
}

/*
 * Chunk i is full and k goes at index j. Keys arriving in order (a table
 * replayed sorted) start a fresh chunk instead of halving this one, so such
 * a table fills its chunks; anything else splits in the middle (kset.c).
 */
static int insert_full(struct rib6_order *o, uint32_t i, uint32_t j, const struct rib6_key *k)
{
	struct rib6_order_chunk *c = o->c[i], *d;

	if (j == CHUNK) {
		if (i + 1 < o->n && o->c[i + 1]->n < CHUNK) {
			chunk_put(o, i + 1, 0, k);
			return 0;
		}
		if (!chunk_add(o, i + 1))
			return -ENOMEM;
		chunk_put(o, i + 1, 0, k);
		return 0;
	}
	if (j == 0) { /* below every key (i == 0) */
		if (!chunk_add(o, 0))
			return -ENOMEM;
		chunk_put(o, 0, 0, k);
		return 0;
	}
	if (!(d = chunk_add(o, i + 1)))
		return -ENOMEM;
	keys_move(d, 0, c, CHUNK / 2, CHUNK / 2);
	d->n = CHUNK / 2;
	c->n = CHUNK / 2;
	first_set(o, i + 1);
	if (j <= CHUNK / 2)
		chunk_put(o, i, j, k);
	else
		chunk_put(o, i + 1, j - CHUNK / 2, k);
	return 0;
}

int rib6_order_insert(struct rib6_order *o, const struct rib6_key *k)
{
	uint32_t i, j;

	if (o->n == 0) {
		if (!chunk_add(o, 0))
			return -ENOMEM;
		chunk_put(o, 0, 0, k);
		return 0;
	}
	i = chunk_of(o, k);
	j = index_in(o->c[i], k);
	if (j < o->c[i]->n && at_cmp(o->c[i], j, k) == 0)
		return -EEXIST;
	if (o->c[i]->n == CHUNK)
		return insert_full(o, i, j, k);
	chunk_put(o, i, j, k);
	return 0;
}

/* Chunk i got small: fold it into a neighbour when both fit in 3/4 of one (kset.c). */
static void merge_small(struct rib6_order *o, uint32_t i)
{
	const uint32_t fit = CHUNK * 3 / 4;
	uint32_t a = i, b = i + 1;

	if (o->c[i]->n >= CHUNK / 4)
		return;
	if (b >= o->n || o->c[a]->n + o->c[b]->n > fit) {
		if (i == 0 || o->c[i - 1]->n + o->c[i]->n > fit)
			return;
		a = i - 1;
		b = i;
	}
	keys_move(o->c[a], o->c[a]->n, o->c[b], 0, o->c[b]->n);
	o->c[a]->n += o->c[b]->n;
	chunk_drop(o, b);
}

int rib6_order_remove(struct rib6_order *o, const struct rib6_key *k)
{
	struct rib6_order_chunk *c;
	uint32_t i, j;

	if (o->n == 0)
		return -ENOENT;
	i = chunk_of(o, k);
	c = o->c[i];
	j = index_in(c, k);
	if (j >= c->n || at_cmp(c, j, k) != 0)
		return -ENOENT;
	keys_move(c, j, c, j + 1, c->n - j - 1);
	c->n--;
	o->count--;
	if (c->n == 0) {
		chunk_drop(o, i);
		return 0;
	}
	first_set(o, i);
	merge_small(o, i);
	return 0;
}

bool rib6_order_seek(const struct rib6_order *o, const struct rib6_key *k, struct rib6_order_pos *p)
{
	if (o->n == 0)
		return false;
	p->chunk = chunk_of(o, k);
	p->idx = index_in(o->c[p->chunk], k);
	if (p->idx < o->c[p->chunk]->n)
		return true;
	/* Past the last key of that chunk: the next chunk's first is > k. */
	p->chunk++;
	p->idx = 0;
	return p->chunk < o->n;
}

void rib6_order_at(const struct rib6_order *o, const struct rib6_order_pos *p, struct rib6_key *k)
{
	const struct rib6_order_chunk *c = o->c[p->chunk];

	*k = (struct rib6_key){.hi = c->hi[p->idx], .lo = c->lo[p->idx], .len = c->len[p->idx]};
}

bool rib6_order_next(const struct rib6_order *o, struct rib6_order_pos *p)
{
	if (++p->idx < o->c[p->chunk]->n)
		return true;
	p->chunk++;
	p->idx = 0;
	return p->chunk < o->n;
}

uint64_t rib6_order_count(const struct rib6_order *o, const struct rib6_key *lo,
                          const struct rib6_key *hi)
{
	struct rib6_order_pos a, b;
	struct rib6_key past = *hi;
	uint64_t n;

	if (rib6_key_cmp(lo, hi) > 0 || !rib6_order_seek(o, lo, &a))
		return 0;
	rib6_key_next(&past);
	if (!rib6_order_seek(o, &past, &b))
		b = (struct rib6_order_pos){.chunk = o->n, .idx = 0};
	if (a.chunk == b.chunk)
		return b.idx - a.idx;
	n = o->c[a.chunk]->n - a.idx;
	for (uint32_t i = a.chunk + 1; i < b.chunk && i < o->n; i++)
		n += o->c[i]->n;
	return n + b.idx;
}

bool rib6_order_skip(const struct rib6_order *o, struct rib6_order_pos *p, uint64_t n)
{
	while (p->chunk < o->n) {
		uint64_t left = o->c[p->chunk]->n - p->idx;
		if (n < left) {
			p->idx += (uint32_t)n;
			return true;
		}
		n -= left;
		p->chunk++;
		p->idx = 0;
	}
	return false;
}

size_t rib6_order_memory(const struct rib6_order *o)
{
	return (size_t)o->n * sizeof(struct rib6_order_chunk) +
	       (size_t)o->cap * (sizeof(*o->c) + sizeof(*o->first));
}
