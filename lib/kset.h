/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An ordered set of 64-bit keys: sorted chunks of up to KSET_CHUNK keys,
 * found by a binary search over the chunks' first keys. It is the RIB's
 * prefix order (the routes' hash table has none): a million keys take
 * ~11 MiB, an insert or a delete moves at most one chunk's keys, a range
 * is counted or skipped chunk by chunk, and iteration resumes from a key,
 * not from a pointer, so it survives any change made in between.
 */
#ifndef CELLGATE_KSET_H
#define CELLGATE_KSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KSET_CHUNK 256

struct kset_chunk {
	uint32_t n;
	uint64_t k[KSET_CHUNK];
};

struct kset {
	struct kset_chunk **c; /* in key order, none empty */
	uint64_t *first;       /* c[i]->k[0]: the search reads this array only */
	uint32_t n, cap;       /* chunks used, allocated */
	uint64_t count;        /* keys */
};

/* A place in the set: chunk and index; valid until the set changes. */
struct kset_pos {
	uint32_t chunk, idx;
};

void kset_init(struct kset *s);
void kset_fini(struct kset *s);

/* 0, -EEXIST (already there, nothing changed) or -ENOMEM. */
int kset_insert(struct kset *s, uint64_t key);
/* 0 or -ENOENT. */
int kset_remove(struct kset *s, uint64_t key);
bool kset_contains(const struct kset *s, uint64_t key);

/* The first key >= key: true and *p set, or false when there is none. */
bool kset_seek(const struct kset *s, uint64_t key, struct kset_pos *p);
static inline uint64_t kset_at(const struct kset *s, const struct kset_pos *p)
{
	return s->c[p->chunk]->k[p->idx];
}
/* Move to the next key; false at the end. */
bool kset_next(const struct kset *s, struct kset_pos *p);

/* Keys in [lo, hi]. Cost: two searches and one step per chunk in between. */
uint64_t kset_count(const struct kset *s, uint64_t lo, uint64_t hi);
/* Move n keys on from *p (whole chunks at a time); false when that is past the end. */
bool kset_skip(const struct kset *s, struct kset_pos *p, uint64_t n);

/* Bytes held (chunks and the arrays over them). */
size_t kset_memory(const struct kset *s);

#endif
