/* SPDX-License-Identifier: BSD-2-Clause */
/* The ordered key set (kset.h): sorted chunks under a sorted array of first keys. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kset.h"

void kset_init(struct kset *s)
{
	memset(s, 0, sizeof(*s));
}

void kset_fini(struct kset *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		free(s->c[i]);
	free(s->c);
	free(s->first);
	kset_init(s);
}

/* The chunk that holds key or would: the last whose first key is <= key (0 if none). */
static uint32_t chunk_of(const struct kset *s, uint64_t key)
{
	uint32_t lo = 0, hi = s->n; /* answer in [lo, hi) */

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->first[mid] <= key)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first key >= key in chunk c (c->n if none). */
static uint32_t index_in(const struct kset_chunk *c, uint64_t key)
{
	uint32_t lo = 0, hi = c->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (c->k[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for one more chunk in the arrays over them. */
static int arrays_reserve(struct kset *s)
{
	uint32_t cap = s->cap ? s->cap * 2 : 16;
	struct kset_chunk **c;
	uint64_t *first;

	if (s->n < s->cap)
		return 0;
	if (!(c = realloc(s->c, cap * sizeof(*c))))
		return -ENOMEM;
	s->c = c;
	if (!(first = realloc(s->first, cap * sizeof(*first))))
		return -ENOMEM;
	s->first = first;
	s->cap = cap;
	return 0;
}

/* A new empty chunk at position i (the caller fills it at once). */
static struct kset_chunk *chunk_add(struct kset *s, uint32_t i)
{
	struct kset_chunk *c;

	if (arrays_reserve(s) != 0 || !(c = malloc(sizeof(*c))))
		return NULL;
	memmove(s->c + i + 1, s->c + i, (s->n - i) * sizeof(*s->c));
	memmove(s->first + i + 1, s->first + i, (s->n - i) * sizeof(*s->first));
	c->n = 0;
	s->c[i] = c;
	s->n++;
	return c;
}

static void chunk_drop(struct kset *s, uint32_t i)
{
	free(s->c[i]);
	memmove(s->c + i, s->c + i + 1, (s->n - i - 1) * sizeof(*s->c));
	memmove(s->first + i, s->first + i + 1, (s->n - i - 1) * sizeof(*s->first));
	s->n--;
}

static void chunk_put(struct kset *s, uint32_t i, uint32_t j, uint64_t key)
{
	struct kset_chunk *c = s->c[i];

	memmove(c->k + j + 1, c->k + j, (c->n - j) * sizeof(c->k[0]));
	c->k[j] = key;
	c->n++;
	s->first[i] = c->k[0];
	s->count++;
}

/*
 * chunk i is full and key goes at index j. Keys arriving in order (a
 * table replayed sorted) start a fresh chunk instead of halving this one,
 * so such a table fills its chunks; anything else splits in the middle.
 */
static int insert_full(struct kset *s, uint32_t i, uint32_t j, uint64_t key)
{
	struct kset_chunk *c = s->c[i], *d;

	if (j == KSET_CHUNK) {
		if (i + 1 < s->n && s->c[i + 1]->n < KSET_CHUNK) {
			chunk_put(s, i + 1, 0, key);
			return 0;
		}
		if (!chunk_add(s, i + 1))
			return -ENOMEM;
		chunk_put(s, i + 1, 0, key);
		return 0;
	}
	if (j == 0) { /* below every key (i == 0) */
		if (!chunk_add(s, 0))
			return -ENOMEM;
		chunk_put(s, 0, 0, key);
		return 0;
	}
	if (!(d = chunk_add(s, i + 1)))
		return -ENOMEM;
	d->n = KSET_CHUNK / 2;
	memcpy(d->k, c->k + KSET_CHUNK / 2, d->n * sizeof(d->k[0]));
	c->n = KSET_CHUNK / 2;
	s->first[i + 1] = d->k[0];
	if (j <= KSET_CHUNK / 2)
		chunk_put(s, i, j, key);
	else
		chunk_put(s, i + 1, j - KSET_CHUNK / 2, key);
	return 0;
}

int kset_insert(struct kset *s, uint64_t key)
{
	uint32_t i, j;

	if (s->n == 0) {
		if (!chunk_add(s, 0))
			return -ENOMEM;
		chunk_put(s, 0, 0, key);
		return 0;
	}
	i = chunk_of(s, key);
	j = index_in(s->c[i], key);
	if (j < s->c[i]->n && s->c[i]->k[j] == key)
		return -EEXIST;
	if (s->c[i]->n == KSET_CHUNK)
		return insert_full(s, i, j, key);
	chunk_put(s, i, j, key);
	return 0;
}

/* Chunk i got small: fold it into a neighbour when both fit in 3/4 of one, so chunks stay >= 1/4
 * full on average. */
static void merge_small(struct kset *s, uint32_t i)
{
	const uint32_t fit = KSET_CHUNK * 3 / 4;
	uint32_t a = i, b = i + 1;

	if (s->c[i]->n >= KSET_CHUNK / 4)
		return;
	if (b >= s->n || s->c[a]->n + s->c[b]->n > fit) {
		if (i == 0 || s->c[i - 1]->n + s->c[i]->n > fit)
			return;
		a = i - 1;
		b = i;
	}
	memcpy(s->c[a]->k + s->c[a]->n, s->c[b]->k, s->c[b]->n * sizeof(s->c[b]->k[0]));
	s->c[a]->n += s->c[b]->n;
	chunk_drop(s, b);
}

int kset_remove(struct kset *s, uint64_t key)
{
	uint32_t i, j;
	struct kset_chunk *c;

	if (s->n == 0)
		return -ENOENT;
	i = chunk_of(s, key);
	c = s->c[i];
	j = index_in(c, key);
	if (j >= c->n || c->k[j] != key)
		return -ENOENT;
	memmove(c->k + j, c->k + j + 1, (c->n - j - 1) * sizeof(c->k[0]));
	c->n--;
	s->count--;
	if (c->n == 0) {
		chunk_drop(s, i);
		return 0;
	}
	s->first[i] = c->k[0];
	merge_small(s, i);
	return 0;
}

bool kset_contains(const struct kset *s, uint64_t key)
{
	struct kset_pos p;

	return kset_seek(s, key, &p) && kset_at(s, &p) == key;
}

bool kset_seek(const struct kset *s, uint64_t key, struct kset_pos *p)
{
	if (s->n == 0)
		return false;
	p->chunk = chunk_of(s, key);
	p->idx = index_in(s->c[p->chunk], key);
	if (p->idx < s->c[p->chunk]->n)
		return true;
	/* Past the last key of that chunk: the next chunk's first is > key. */
	p->chunk++;
	p->idx = 0;
	return p->chunk < s->n;
}

bool kset_next(const struct kset *s, struct kset_pos *p)
{
	if (++p->idx < s->c[p->chunk]->n)
		return true;
	p->chunk++;
	p->idx = 0;
	return p->chunk < s->n;
}

/* Keys from position a (included) to position b (excluded), a <= b. */
static uint64_t keys_between(const struct kset *s, const struct kset_pos *a,
                             const struct kset_pos *b)
{
	uint64_t n = 0;

	if (a->chunk == b->chunk)
		return b->idx - a->idx;
	n = s->c[a->chunk]->n - a->idx;
	for (uint32_t i = a->chunk + 1; i < b->chunk && i < s->n; i++)
		n += s->c[i]->n;
	return n + b->idx;
}

uint64_t kset_count(const struct kset *s, uint64_t lo, uint64_t hi)
{
	struct kset_pos a, b;

	if (lo > hi || !kset_seek(s, lo, &a))
		return 0;
	if (hi == UINT64_MAX || !kset_seek(s, hi + 1, &b))
		b = (struct kset_pos){.chunk = s->n, .idx = 0};
	return keys_between(s, &a, &b);
}

bool kset_skip(const struct kset *s, struct kset_pos *p, uint64_t n)
{
	while (p->chunk < s->n) {
		uint64_t left = s->c[p->chunk]->n - p->idx;
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

size_t kset_memory(const struct kset *s)
{
	return (size_t)s->n * sizeof(struct kset_chunk) +
	       (size_t)s->cap * (sizeof(*s->c) + sizeof(*s->first));
}
