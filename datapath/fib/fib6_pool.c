/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reader-side arrays of FIB6: node records and leaf values, each in one
 * mapping addressed by 32-bit index (a node holds indices, so arrays never
 * move). Arrays have 1..64 elements; freed ones go to an exact-size free
 * list, but only through fib6_reclaim() once readers can no longer hold them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "datapath/fib/fib6_priv.h"

#define HUGE_PAGE (2u << 20)

/*
 * 2 MiB aligned so the kernel can back it with transparent huge pages: a
 * lookup walks several nodes, each a TLB miss on 4 KiB pages. MAP_NORESERVE:
 * the pools are mapped for their capacity, but only what is used is touched.
 */
void *fib6_map(size_t bytes)
{
	size_t span = bytes + HUGE_PAGE;
	uint8_t *raw = mmap(NULL, span, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint8_t *p;
	size_t head;

	if (raw == MAP_FAILED)
		return NULL;
	p = (uint8_t *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	head = (size_t)(p - raw);
	if (head)
		munmap(raw, head);
	munmap(p + bytes, span - head - bytes);
	(void)madvise(p, bytes, MADV_HUGEPAGE); /* advisory: fine if THP is off */
	return p;
}

void fib6_unmap(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}

static size_t pool_map_bytes(const struct fib6_pool *p)
{
	return ((size_t)p->cap * p->elem + 4095) & ~(size_t)4095;
}

int fib6_pool_init(struct fib6_pool *p, size_t elem, uint32_t cap)
{
	*p = (struct fib6_pool){.elem = elem, .cap = cap};
	for (unsigned i = 0; i <= FIB6_FANOUT; i++)
		p->head[i] = FIB6_NONE;
	p->base = fib6_map(pool_map_bytes(p));
	return p->base ? 0 : -ENOMEM;
}

void fib6_pool_fini(struct fib6_pool *p)
{
	fib6_unmap(p->base, pool_map_bytes(p));
	p->base = NULL;
}

/* A free array's first element holds the index of the next free array of its size. */
static uint32_t *link_of(struct fib6_pool *p, uint32_t idx)
{
	return (uint32_t *)(p->base + (size_t)idx * p->elem);
}

uint32_t fib6_pool_alloc(struct fib6_pool *p, unsigned n)
{
	uint32_t idx = p->head[n];

	if (idx != FIB6_NONE) {
		p->head[n] = *link_of(p, idx);
	} else {
		if (n > p->cap - p->top)
			return FIB6_NONE;
		idx = p->top;
		p->top += n;
	}
	p->used += n;
	return idx;
}

void fib6_pool_free(struct fib6_pool *p, uint32_t idx, unsigned n)
{
	*link_of(p, idx) = p->head[n];
	p->head[n] = idx;
	p->used -= n;
}

size_t fib6_pool_bytes(const struct fib6_pool *p)
{
	return (size_t)p->top * p->elem;
}

int fib6_vec_grow(void **v, uint32_t *cap, size_t elem, uint32_t need)
{
	uint32_t c = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*v, (size_t)c * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

void fib6_retire(struct fib6 *fib, uint32_t idx, unsigned n, bool leaves)
{
	struct fib6_pool *p = leaves ? &fib->lp : &fib->np;

	if (n == 0)
		return;
	fib->ret.v[fib->ret.n++] = (struct fib6_retired){idx, (uint8_t)n, leaves};
	p->used -= n;
	p->pending += n;
}

void fib6_reclaim(struct fib6 *fib)
{
	for (uint32_t i = 0; i < fib->ret.n; i++) {
		const struct fib6_retired *r = &fib->ret.v[i];
		struct fib6_pool *p = r->leaves ? &fib->lp : &fib->np;

		/* fib6_pool_free counts it out of `used`: it was moved to `pending`. */
		p->pending -= r->n;
		p->used += r->n;
		fib6_pool_free(p, r->idx, r->n);
	}
	fib->ret.n = 0;
}
