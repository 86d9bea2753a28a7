/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "datapath/fib/fib4_index.h"

#define IHASH_MIN_CAP 16u

static inline uint32_t ihash_mix(uint32_t x)
{
	/* Prefixes have their low bits zero: mix so all bits reach the top. */
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

static inline uint32_t ihash_cap(const struct fib4_ihash *h)
{
	return h->slots ? h->mask + 1 : 0;
}

/* Slot holding prefix, or the empty slot where it would go. */
static uint32_t ihash_find(const struct fib4_ihash *h, uint32_t prefix)
{
	uint32_t i = ihash_mix(prefix) & h->mask;

	while (h->slots[i].value && h->slots[i].prefix != prefix)
		i = (i + 1) & h->mask;
	return i;
}

static int ihash_resize(struct fib4_ihash *h, uint32_t cap)
{
	struct fib4_islot *old = h->slots;
	uint32_t oldcap = ihash_cap(h);
	struct fib4_islot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	h->slots = slots;
	h->mask = cap - 1;
	for (uint32_t i = 0; i < oldcap; i++) {
		if (old[i].value)
			slots[ihash_find(h, old[i].prefix)] = old[i];
	}
	free(old);
	return 0;
}

void fib4_index_init(struct fib4_index *ix)
{
	*ix = (struct fib4_index){0};
}

void fib4_index_fini(struct fib4_index *ix)
{
	for (int l = 0; l <= 32; l++)
		free(ix->len[l].slots);
	fib4_index_init(ix);
}

void fib4_index_prefetch(const struct fib4_index *ix, uint32_t prefix, uint8_t len)
{
	const struct fib4_ihash *h = &ix->len[len];

	if (h->slots)
		__builtin_prefetch(&h->slots[ihash_mix(prefix) & h->mask]);
}

uint32_t fib4_index_get(const struct fib4_index *ix, uint32_t prefix, uint8_t len)
{
	const struct fib4_ihash *h = &ix->len[len];

	if (!h->used)
		return 0;
	return h->slots[ihash_find(h, prefix)].value;
}

int fib4_index_reserve(struct fib4_index *ix, uint8_t len)
{
	struct fib4_ihash *h = &ix->len[len];
	uint64_t cap = ihash_cap(h);

	/* Keep the load factor at most 3/4 so probe chains stay short. */
	if ((uint64_t)(h->used + 1) * 4 <= cap * 3)
		return 0;
	cap = cap ? cap * 2 : IHASH_MIN_CAP;
	if (cap > (1ull << 31))
		return -ENOMEM;
	return ihash_resize(h, (uint32_t)cap);
}

void fib4_index_set(struct fib4_index *ix, uint32_t prefix, uint8_t len, uint32_t value)
{
	struct fib4_ihash *h = &ix->len[len];
	uint32_t i = ihash_find(h, prefix);

	if (!h->slots[i].value)
		h->used++;
	h->slots[i] = (struct fib4_islot){.prefix = prefix, .value = value};
	ix->nonempty |= 1ull << len;
}

/* Backward-shift deletion: linear probing then needs no tombstones. */
static void ihash_erase(struct fib4_ihash *h, uint32_t i)
{
	uint32_t j = i;

	for (;;) {
		j = (j + 1) & h->mask;
		if (!h->slots[j].value)
			break;
		uint32_t home = ihash_mix(h->slots[j].prefix) & h->mask;
		/* Move j into the hole unless its home lies after the hole. */
		if (((j - home) & h->mask) >= ((j - i) & h->mask)) {
			h->slots[i] = h->slots[j];
			i = j;
		}
	}
	h->slots[i].value = 0;
	h->used--;
}

uint32_t fib4_index_remove(struct fib4_index *ix, uint32_t prefix, uint8_t len)
{
	struct fib4_ihash *h = &ix->len[len];
	uint32_t i, value;

	if (!h->used)
		return 0;
	i = ihash_find(h, prefix);
	value = h->slots[i].value;
	if (!value)
		return 0;
	ihash_erase(h, i);
	if (!h->used)
		ix->nonempty &= ~(1ull << len);
	/* Give memory back after a mass withdrawal (e.g. a BGP session drop). */
	if (h->used * 16 < ihash_cap(h) && ihash_cap(h) > IHASH_MIN_CAP)
		(void)ihash_resize(h, ihash_cap(h) / 4);
	return value;
}

uint32_t fib4_index_cover(const struct fib4_index *ix, uint32_t prefix, uint8_t len,
                          uint8_t *cover_len)
{
	/* Only lengths below len that hold something; highest bit first. */
	uint64_t cand = ix->nonempty & ((1ull << len) - 1);

	while (cand) {
		int l = 63 - __builtin_clzll(cand);
		uint32_t mask = l ? ~0u << (32 - l) : 0;
		uint32_t value = fib4_index_get(ix, prefix & mask, (uint8_t)l);

		if (value) {
			*cover_len = (uint8_t)l;
			return value;
		}
		cand &= ~(1ull << l);
	}
	*cover_len = 0;
	return 0;
}

int fib4_index_walk(const struct fib4_index *ix,
                    int (*cb)(uint32_t prefix, uint8_t len, uint32_t value, void *arg), void *arg)
{
	for (int l = 0; l <= 32; l++) {
		const struct fib4_ihash *h = &ix->len[l];

		for (uint32_t i = 0; i < ihash_cap(h); i++) {
			int rc;

			if (!h->slots[i].value)
				continue;
			rc = cb(h->slots[i].prefix, (uint8_t)l, h->slots[i].value, arg);
			if (rc)
				return rc;
		}
	}
	return 0;
}

size_t fib4_index_memory(const struct fib4_index *ix)
{
	size_t bytes = 0;

	for (int l = 0; l <= 32; l++)
		bytes += (size_t)ihash_cap(&ix->len[l]) * sizeof(struct fib4_islot);
	return bytes;
}
