/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "datapath/fib/fib4_poptrie_pool.h"

#define COMMIT_STEP (2u << 20) /* one transparent huge page */
#define WORD        sizeof(uint32_t)

static size_t round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

static int pool_commit(struct pt_pool *p, uint64_t need);

int pt_pool_init(struct pt_pool *p, uint32_t cap, uint32_t head_words)
{
	size_t bytes, head;
	uint8_t *raw, *base;

	memset(p, 0, sizeof(*p));
	if (cap == 0 || cap > (1u << 31) || head_words > cap)
		return -EINVAL;
	/* Address space only: PROT_NONE is never charged, even with strict overcommit. */
	bytes = round_up((size_t)cap * WORD, COMMIT_STEP);
	raw = mmap(NULL, bytes + COMMIT_STEP, PROT_NONE,
	           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		return -ENOMEM;
	/* Align to a huge page so each committed step can be one THP. */
	base = (uint8_t *)round_up((uintptr_t)raw, COMMIT_STEP);
	head = (size_t)(base - raw);
	if (head)
		munmap(raw, head);
	munmap(base + bytes, COMMIT_STEP - head);
	p->base = (uint32_t *)base;
	p->cap = cap;
	for (unsigned i = 0; i <= PT_BLOCK_MAX / 2; i++)
		p->free_head[i] = PT_POOL_NONE;
	/* The owner's head: fresh anonymous memory reads as zero. */
	p->top = pt_pool_size(head_words);
	p->live = p->top;
	if (p->top && pool_commit(p, p->top) < 0) {
		pt_pool_fini(p);
		return -ENOMEM;
	}
	return 0;
}

void pt_pool_fini(struct pt_pool *p)
{
	if (p->base)
		munmap(p->base, round_up((size_t)p->cap * WORD, COMMIT_STEP));
	free(p->parked);
	memset(p, 0, sizeof(*p));
}

static int pool_commit(struct pt_pool *p, uint64_t need)
{
	size_t have = p->committed_bytes;
	size_t want = round_up((size_t)need * WORD, COMMIT_STEP);
	size_t limit = round_up((size_t)p->cap * WORD, COMMIT_STEP);
	uint8_t *base = (uint8_t *)p->base;

	if (want > limit)
		want = limit;
	if (mprotect(base + have, want - have, PROT_READ | PROT_WRITE) < 0)
		return -ENOMEM;
	/* Advisory: the lookups' working set on 2 MiB pages needs a few TLB entries. */
	(void)madvise(base + have, want - have, MADV_HUGEPAGE);
	p->committed_bytes = want;
	p->committed = (uint32_t)(want / WORD < p->cap ? want / WORD : p->cap);
	return 0;
}

int pt_pool_reserve(struct pt_pool *p, uint64_t words, uint64_t frees)
{
	uint64_t need = (uint64_t)p->top + words;

	if (need > p->cap)
		return -ENOSPC;
	if (need > p->committed && pool_commit(p, need) < 0)
		return -ENOMEM;
	if (p->nparked + frees > p->parked_cap) {
		uint64_t cap = p->parked_cap ? p->parked_cap : 64;
		uint64_t *np;

		while (cap < p->nparked + frees)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -ENOMEM;
		np = realloc(p->parked, cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		p->parked = np;
		p->parked_cap = (uint32_t)cap;
	}
	return 0;
}

/* Exact sizes only: blocks come and go in the same sizes as a table churns. */
uint32_t pt_pool_alloc(struct pt_pool *p, unsigned n)
{
	unsigned size = pt_pool_size(n);
	uint32_t at = p->free_head[size / 2];

	if (at != PT_POOL_NONE) {
		p->free_head[size / 2] = p->base[at];
		/* The next block of this size is read when it is handed out: start now. */
		if (p->base[at] != PT_POOL_NONE)
			__builtin_prefetch(&p->base[p->base[at]], 1);
	} else {
		at = p->top;
		p->top += size;
	}
	p->live += size;
	return at;
}

void pt_pool_free(struct pt_pool *p, uint32_t at, unsigned n)
{
	unsigned size = pt_pool_size(n);

	p->parked[p->nparked++] = (uint64_t)at << 16 | size;
	p->live -= size;
}

void pt_pool_reclaim(struct pt_pool *p)
{
	for (uint32_t i = 0; i < p->nparked; i++) {
		uint32_t at = (uint32_t)(p->parked[i] >> 16);
		unsigned size = (unsigned)(p->parked[i] & 0xffff);

		/* No reader is left in the block: its first word can link the free list. */
		p->base[at] = p->free_head[size / 2];
		p->free_head[size / 2] = at;
	}
	p->nparked = 0;
}

size_t pt_pool_touched_bytes(const struct pt_pool *p)
{
	return (size_t)p->top * WORD;
}

size_t pt_pool_meta_bytes(const struct pt_pool *p)
{
	return (size_t)p->parked_cap * sizeof(*p->parked);
}
