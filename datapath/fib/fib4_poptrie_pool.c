/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fib/fib4_poptrie_pool.h"

#define COMMIT_STEP (2u << 20) /* one transparent huge page */

static size_t round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

int pt_pool_init(struct pt_pool *p, size_t elem, uint32_t cap)
{
	size_t bytes, head;
	uint8_t *raw;

	memset(p, 0, sizeof(*p));
	if (elem < sizeof(uint32_t) || cap == 0)
		return -EINVAL;
	/* Address space only: PROT_NONE is never charged, even with strict overcommit. */
	bytes = round_up((size_t)cap * elem, COMMIT_STEP);
	raw = mmap(NULL, bytes + COMMIT_STEP, PROT_NONE,
	           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		return -ENOMEM;
	/* Align to a huge page so each committed step can be one THP. */
	p->base = (uint8_t *)round_up((uintptr_t)raw, COMMIT_STEP);
	head = (size_t)(p->base - raw);
	if (head)
		munmap(raw, head);
	munmap(p->base + bytes, COMMIT_STEP - head);
	p->elem = elem;
	p->cap = cap;
	for (unsigned i = 0; i <= PT_BLOCK_MAX; i++)
		p->free_head[i] = PT_POOL_NONE;
	return 0;
}

void pt_pool_fini(struct pt_pool *p)
{
	if (p->base)
		munmap(p->base, round_up((size_t)p->cap * p->elem, COMMIT_STEP));
	free(p->parked);
	memset(p, 0, sizeof(*p));
}

static int pool_commit(struct pt_pool *p, uint64_t need)
{
	size_t have = p->committed_bytes;
	size_t want = round_up((size_t)need * p->elem, COMMIT_STEP);
	size_t limit = round_up((size_t)p->cap * p->elem, COMMIT_STEP);

	if (want > limit)
		want = limit;
	if (mprotect(p->base + have, want - have, PROT_READ | PROT_WRITE) < 0)
		return -ENOMEM;
	/* Advisory: the lookups' working set on 2 MiB pages needs a few TLB entries. */
	(void)madvise(p->base + have, want - have, MADV_HUGEPAGE);
	p->committed_bytes = want;
	p->committed = (uint32_t)(want / p->elem < p->cap ? want / p->elem : p->cap);
	return 0;
}

int pt_pool_reserve(struct pt_pool *p, uint64_t elems, uint64_t frees)
{
	uint64_t need = (uint64_t)p->top + elems;

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

uint32_t pt_pool_alloc(struct pt_pool *p, unsigned n)
{
	uint32_t at = p->free_head[n];

	if (at != PT_POOL_NONE) {
		memcpy(&p->free_head[n], pt_pool_at(p, at), sizeof(uint32_t));
	} else {
		at = p->top;
		p->top += n;
	}
	p->live += n;
	return at;
}

void pt_pool_free(struct pt_pool *p, uint32_t at, unsigned n)
{
	p->parked[p->nparked++] = (uint64_t)at << 8 | n;
	p->parked_elems += n;
	p->live -= n;
}

void pt_pool_reclaim(struct pt_pool *p)
{
	for (uint32_t i = 0; i < p->nparked; i++) {
		uint32_t at = (uint32_t)(p->parked[i] >> 8);
		unsigned n = (unsigned)(p->parked[i] & 0xff);

		memcpy(pt_pool_at(p, at), &p->free_head[n], sizeof(uint32_t));
		p->free_head[n] = at;
	}
	p->nparked = 0;
	p->parked_elems = 0;
}

size_t pt_pool_touched_bytes(const struct pt_pool *p)
{
	return (size_t)p->top * p->elem;
}

size_t pt_pool_meta_bytes(const struct pt_pool *p)
{
	return (size_t)p->parked_cap * sizeof(*p->parked);
}
