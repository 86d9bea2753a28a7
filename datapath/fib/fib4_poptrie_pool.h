/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Block pools of the compressed FIB (fib4_poptrie): one array of fixed-size
 * elements (nodes or leaves) from which runs of 1..64 contiguous elements are
 * handed out, so a node can address its children and leaves as base + rank.
 *
 * The array never moves: its whole span is reserved as address space at
 * creation (PROT_NONE, no memory committed) and made readable and writable in
 * 2 MiB steps as the allocator needs it, so lock-free readers can hold element
 * indexes across any number of updates.
 *
 * Freed blocks are parked (pt_pool_free) until pt_pool_reclaim, which the
 * owner calls after an RCU grace period; only then may a block be handed out
 * again. Free blocks are kept in one list per exact size, linked through
 * their first 4 bytes (nothing reads a reclaimed block any more).
 *
 * pt_pool_reserve() is how an update is made all-or-nothing: it commits
 * memory and grows the parked list first, so the allocations and frees that
 * follow (up to what was reserved) cannot fail.
 *
 * Control thread only.
 */
#ifndef CELLGATE_FIB4_POPTRIE_POOL_H
#define CELLGATE_FIB4_POPTRIE_POOL_H

#include <stddef.h>
#include <stdint.h>

#define PT_BLOCK_MAX 64u

struct pt_pool {
	uint8_t *base;      /* element 0; the reserved span starts here */
	size_t elem;        /* bytes per element, >= 4 */
	uint32_t cap;       /* elements reserved */
	uint32_t committed; /* elements readable and writable */
	size_t committed_bytes;
	uint32_t top; /* elements [0, top) have been handed out at some time */
	uint32_t free_head[PT_BLOCK_MAX + 1]; /* per exact size; PT_POOL_NONE = empty */
	uint64_t live;                        /* elements in blocks handed out */
	uint64_t parked_elems;                /* in parked blocks */
	uint64_t *parked;                     /* index << 8 | size */
	uint32_t nparked, parked_cap;
};

#define PT_POOL_NONE 0xffffffffu

/* 0, -EINVAL (elem < 4 or cap 0) or -ENOMEM (no address space). */
int pt_pool_init(struct pt_pool *p, size_t elem, uint32_t cap);
void pt_pool_fini(struct pt_pool *p);

/*
 * Make the next allocations of up to `elems` elements in total, and the next
 * `frees` pt_pool_free calls, unable to fail. 0, -ENOSPC (the reserved span is
 * too small) or -ENOMEM.
 */
int pt_pool_reserve(struct pt_pool *p, uint64_t elems, uint64_t frees);

/* A block of n (1..PT_BLOCK_MAX) elements; within a prior reservation. */
uint32_t pt_pool_alloc(struct pt_pool *p, unsigned n);

/* Park the block [at, at + n); within a prior reservation. */
void pt_pool_free(struct pt_pool *p, uint32_t at, unsigned n);

/* Make the parked blocks reusable: call only after a grace period. */
void pt_pool_reclaim(struct pt_pool *p);

static inline void *pt_pool_at(const struct pt_pool *p, uint32_t i)
{
	return p->base + (size_t)i * p->elem;
}

/* Bytes ever handed out (what the process touched), and the parked list's own array. */
size_t pt_pool_touched_bytes(const struct pt_pool *p);
size_t pt_pool_meta_bytes(const struct pt_pool *p);

#endif
