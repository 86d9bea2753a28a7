/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The block pool of the compressed FIB (fib4_poptrie): one array of 32-bit
 * words from which blocks of 2..PT_BLOCK_MAX contiguous words are handed out
 * (sizes rounded up to even, blocks 8-byte aligned, so that a block can hold
 * nodes), so a node can address its children and leaves as base + rank.
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

/* The largest block: 64 child nodes of 6 words. */
#define PT_BLOCK_MAX 384u

struct pt_pool {
	uint32_t *base;     /* word 0; the reserved span starts here */
	uint32_t cap;       /* words reserved */
	uint32_t committed; /* words readable and writable */
	size_t committed_bytes;
	uint32_t top;                             /* words [0, top) were handed out at some time */
	uint32_t free_head[PT_BLOCK_MAX / 2 + 1]; /* per exact size / 2; PT_POOL_NONE = empty */
	uint64_t live;                            /* words in blocks handed out */
	uint64_t *parked;                         /* index << 16 | size */
	uint32_t nparked, parked_cap;
};

#define PT_POOL_NONE 0xffffffffu

/*
 * cap: words (at most 2^31); head: words at the start that are the owner's,
 * zeroed and in use from the start. 0, -EINVAL or -ENOMEM.
 */
int pt_pool_init(struct pt_pool *p, uint32_t cap, uint32_t head);
void pt_pool_fini(struct pt_pool *p);

/*
 * Make the next allocations of up to `words` words in total (sizes as
 * rounded), and the next `frees` pt_pool_free calls, unable to fail. 0,
 * -ENOSPC (the reserved span is too small) or -ENOMEM.
 */
int pt_pool_reserve(struct pt_pool *p, uint64_t words, uint64_t frees);

/* A block of n (1..PT_BLOCK_MAX) words, at an even index; within a prior reservation. */
uint32_t pt_pool_alloc(struct pt_pool *p, unsigned n);

/* Park the block of n words at `at` (n as given to pt_pool_alloc); within a reservation. */
void pt_pool_free(struct pt_pool *p, uint32_t at, unsigned n);

/* Make the parked blocks reusable: call only after a grace period. */
void pt_pool_reclaim(struct pt_pool *p);

static inline void *pt_pool_at(const struct pt_pool *p, uint32_t i)
{
	return p->base + i;
}

/* Words a block of n takes. */
static inline unsigned pt_pool_size(unsigned n)
{
	return (n + 1) & ~1u;
}

/* Bytes ever handed out (what the process touched), and the parked list's own array. */
size_t pt_pool_touched_bytes(const struct pt_pool *p);
size_t pt_pool_meta_bytes(const struct pt_pool *p);

#endif
