/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv4 FIB, DIR-24-8 (Gupta, Lin, McKeown, "Routing lookups in hardware at
 * memory access speeds", INFOCOM 1998): a lookup is one load from tbl24, plus
 * one from a tbl8 group for the few /24s that hold longer prefixes.
 *
 * Depth: every tbl24 slot and tbl8 entry has a parallel uint8 depth (the
 * length of the prefix that owns it; 0 = /0 or no route, which behave the
 * same). The values use all 31 bits, so depth cannot be packed into the entry,
 * and the depth arrays are control-side only, so readers never pull them into
 * cache. For a slot pointing at a tbl8 group, depth24 holds the depth of the
 * /0../24 prefix covering the whole /24 (the group's "base"); invariant: every
 * entry of a group has depth > 24 or depth == the slot's depth24.
 *
 * An insert of prefix/len writes the entries whose depth <= len (so longer
 * prefixes keep theirs); a delete rewrites the entries whose depth == len with
 * the next shorter covering prefix found in the control-side index.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "datapath/fib/fib4.h"
#include "datapath/fib/fib4_index.h"

#define TBL24_SLOTS  (1u << 24)
#define TBL8_GROUP   256u
#define TBL8_DEFAULT 65536u
/* 4 GiB of tbl8, far beyond any real table; keeps group << 8 within 32 bits. */
#define TBL8_MAX  (1u << 24)
#define HUGE_PAGE (2u << 20)

struct fib4 {
	struct fib4_dir dir; /* first: fib4_lookup casts the fib to it */
	uint32_t *tbl24;     /* writable aliases of dir's tables */
	uint32_t *tbl8;
	size_t tbl24_bytes, tbl8_bytes;
	uint8_t *depth24;
	uint8_t *depth8;
	uint16_t *grp_refs; /* /25../32 prefixes in each group, at most 510 */
	uint32_t *grp_free; /* stack of reusable groups */
	uint32_t nfree;
	uint32_t *grp_pending; /* unlinked, readers may still be in them */
	uint32_t npending;
	uint32_t ngroups;
	struct fib4_index ix;
};

static inline void entry_store(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline uint32_t prefix_mask(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

/*
 * Readers take a TLB miss on almost every random lookup into 64 MiB with 4 KiB
 * pages; on 2 MiB pages tbl24 needs 32 TLB entries. Align the mapping so the
 * kernel can back it with transparent huge pages.
 */
static void *fib4_map(size_t bytes)
{
	size_t span = bytes + HUGE_PAGE;
	uint8_t *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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

static void fib4_unmap(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}

void fib4_destroy(struct fib4 *fib)
{
	if (!fib)
		return;
	fib4_unmap(fib->tbl24, fib->tbl24_bytes);
	fib4_unmap(fib->tbl8, fib->tbl8_bytes);
	free(fib->depth24);
	free(fib->depth8);
	free(fib->grp_refs);
	free(fib->grp_free);
	free(fib->grp_pending);
	fib4_index_fini(&fib->ix);
	free(fib);
}

struct fib4 *fib4_create(uint32_t tbl8_groups)
{
	struct fib4 *fib;
	uint32_t n = tbl8_groups ? tbl8_groups : TBL8_DEFAULT;

	if (n > TBL8_MAX) {
		errno = EINVAL;
		return NULL;
	}
	fib = calloc(1, sizeof(*fib));
	if (!fib)
		return NULL;
	fib->ngroups = n;
	fib->tbl24_bytes = (size_t)TBL24_SLOTS * sizeof(uint32_t);
	/* munmap works in whole pages, and a tiny table still takes one. */
	fib->tbl8_bytes = ((size_t)n * TBL8_GROUP * sizeof(uint32_t) + 4095) & ~(size_t)4095;
	fib->tbl24 = fib4_map(fib->tbl24_bytes);
	fib->tbl8 = fib4_map(fib->tbl8_bytes);
	fib->depth24 = calloc(TBL24_SLOTS, 1);
	fib->depth8 = calloc((size_t)n, TBL8_GROUP);
	fib->grp_refs = calloc(n, sizeof(*fib->grp_refs));
	fib->grp_free = malloc((size_t)n * sizeof(*fib->grp_free));
	fib->grp_pending = malloc((size_t)n * sizeof(*fib->grp_pending));
	if (!fib->tbl24 || !fib->tbl8 || !fib->depth24 || !fib->depth8 || !fib->grp_refs ||
	    !fib->grp_free || !fib->grp_pending) {
		fib4_destroy(fib);
		errno = ENOMEM;
		return NULL;
	}
	/* Hand out low-numbered groups first: keeps the touched part of tbl8 small. */
	for (uint32_t i = 0; i < n; i++)
		fib->grp_free[i] = n - 1 - i;
	fib->nfree = n;
	fib->dir.tbl24 = fib->tbl24;
	fib->dir.tbl8 = fib->tbl8;
	fib4_index_init(&fib->ix);
	return fib;
}

/* Rewrite the tbl8 entries [first, first + count) of group g whose depth is in [lo, hi]. */
static void fib4_paint8(struct fib4 *fib, uint32_t g, uint32_t first, uint32_t count, uint8_t lo,
                        uint8_t hi, uint32_t value, uint8_t depth)
{
	size_t base = (size_t)g * TBL8_GROUP;

	for (size_t i = base + first; i < base + first + count; i++) {
		if (fib->depth8[i] < lo || fib->depth8[i] > hi)
			continue;
		fib->depth8[i] = depth;
		entry_store(&fib->tbl8[i], value);
	}
}

/* The same for tbl24 slots [first, first + count); groups get their base entries rewritten. */
static void fib4_paint24(struct fib4 *fib, uint32_t first, uint32_t count, uint8_t lo, uint8_t hi,
                         uint32_t value, uint8_t depth)
{
	for (uint32_t i = first; i < first + count; i++) {
		uint32_t e = fib->tbl24[i];

		if (fib->depth24[i] < lo || fib->depth24[i] > hi)
			continue;
		fib->depth24[i] = depth;
		/* By the group invariant only base entries have depth <= 24. */
		if (e & FIB4_EXT)
			fib4_paint8(fib, e & ~FIB4_EXT, 0, TBL8_GROUP, lo, hi, value, depth);
		else
			entry_store(&fib->tbl24[i], value);
	}
}

/* Take a free group, fill it with the /24's current route, link it. */
static uint32_t fib4_group_attach(struct fib4 *fib, uint32_t slot)
{
	uint32_t g = fib->grp_free[--fib->nfree];
	size_t base = (size_t)g * TBL8_GROUP;
	uint32_t value = fib->tbl24[slot];

	for (uint32_t i = 0; i < TBL8_GROUP; i++)
		entry_store(&fib->tbl8[base + i], value);
	memset(&fib->depth8[base], fib->depth24[slot], TBL8_GROUP);
	fib->grp_refs[g] = 0;
	/* Readers must never see a link to a partly filled group. */
	entry_store(&fib->tbl24[slot], FIB4_EXT | g);
	return g;
}

/* The group holds only its base again: point the slot back at the value. */
static void fib4_group_detach(struct fib4 *fib, uint32_t slot, uint32_t g)
{
	entry_store(&fib->tbl24[slot], fib->tbl8[(size_t)g * TBL8_GROUP]);
	fib->grp_pending[fib->npending++] = g;
}

static bool fib4_args_ok(uint32_t prefix, uint8_t len)
{
	return len <= 32 && !(prefix & ~prefix_mask(len));
}

int fib4_insert(struct fib4 *fib, uint32_t prefix, uint8_t len, uint32_t value)
{
	bool exists;
	int rc;

	if (!fib4_args_ok(prefix, len) || !value || value > FIB4_VALUE_MAX)
		return -EINVAL;
	exists = fib4_index_get(&fib->ix, prefix, len) != 0;
	if (!exists) {
		/* Check every failure before touching the tables. */
		if (len > 24 && !(fib->tbl24[prefix >> 8] & FIB4_EXT) && !fib->nfree)
			return -ENOSPC;
		rc = fib4_index_reserve(&fib->ix, len);
		if (rc < 0)
			return rc;
	}
	fib4_index_set(&fib->ix, prefix, len, value);
	if (len <= 24) {
		fib4_paint24(fib, prefix >> 8, 1u << (24 - len), 0, len, value, len);
	} else {
		uint32_t slot = prefix >> 8, e = fib->tbl24[slot];
		uint32_t g = (e & FIB4_EXT) ? e & ~FIB4_EXT : fib4_group_attach(fib, slot);

		if (!exists)
			fib->grp_refs[g]++;
		fib4_paint8(fib, g, prefix & 0xff, 1u << (32 - len), 0, len, value, len);
	}
	return 0;
}

int fib4_delete(struct fib4 *fib, uint32_t prefix, uint8_t len)
{
	uint32_t cover;
	uint8_t cover_len;

	if (!fib4_args_ok(prefix, len))
		return -EINVAL;
	if (!fib4_index_remove(&fib->ix, prefix, len))
		return -ENOENT;
	cover = fib4_index_cover(&fib->ix, prefix, len, &cover_len);
	if (len <= 24) {
		fib4_paint24(fib, prefix >> 8, 1u << (24 - len), len, len, cover, cover_len);
	} else {
		uint32_t slot = prefix >> 8;
		uint32_t g = fib->tbl24[slot] & ~FIB4_EXT;

		fib4_paint8(fib, g, prefix & 0xff, 1u << (32 - len), len, len, cover, cover_len);
		if (--fib->grp_refs[g] == 0)
			fib4_group_detach(fib, slot, g);
	}
	return 0;
}

uint32_t fib4_get(const struct fib4 *fib, uint32_t prefix, uint8_t len)
{
	if (!fib4_args_ok(prefix, len))
		return 0;
	return fib4_index_get(&fib->ix, prefix, len);
}

void fib4_reclaim(struct fib4 *fib)
{
	memcpy(&fib->grp_free[fib->nfree], fib->grp_pending,
	       (size_t)fib->npending * sizeof(*fib->grp_pending));
	fib->nfree += fib->npending;
	fib->npending = 0;
}

void fib4_get_stats(const struct fib4 *fib, struct fib4_stats *st)
{
	*st = (struct fib4_stats){0};
	for (int l = 0; l <= 32; l++) {
		st->routes_by_len[l] = fib->ix.len[l].used;
		st->routes += fib->ix.len[l].used;
	}
	st->tbl8_groups_max = fib->ngroups;
	st->tbl8_pending = fib->npending;
	st->tbl8_groups_used = fib->ngroups - fib->nfree - fib->npending;
	st->lookup_bytes =
	    fib->tbl24_bytes + (size_t)st->tbl8_groups_used * TBL8_GROUP * sizeof(*fib->tbl8);
	st->memory_bytes =
	    sizeof(*fib) + fib->tbl24_bytes + fib->tbl8_bytes + TBL24_SLOTS +
	    (size_t)fib->ngroups * (TBL8_GROUP + sizeof(*fib->grp_refs) + sizeof(*fib->grp_free) +
	                            sizeof(*fib->grp_pending)) +
	    fib4_index_memory(&fib->ix);
}

int fib4_walk(const struct fib4 *fib,
              int (*cb)(uint32_t prefix, uint8_t len, uint32_t value, void *arg), void *arg)
{
	return fib4_index_walk(&fib->ix, cb, arg);
}

/* Addresses resolved per pass: enough loads in flight to cover DRAM latency. */
#define BULK_BATCH 64

void fib4_lookup_bulk(const struct fib4 *fib, const uint32_t *addrs, uint32_t *values, unsigned n)
{
	const uint32_t *tbl24 = fib->dir.tbl24, *tbl8 = fib->dir.tbl8;

	for (unsigned done = 0; done < n; done += BULK_BATCH) {
		unsigned m = n - done < BULK_BATCH ? n - done : BULK_BATCH;
		const uint32_t *a = addrs + done;
		uint32_t *v = values + done;
		uint8_t ext[BULK_BATCH];
		unsigned next = 0;

		for (unsigned i = 0; i < m; i++)
			__builtin_prefetch(&tbl24[a[i] >> 8]);
		/* Second pass: tbl24 loads; prefetch the tbl8 entry of the rare extended ones. */
		for (unsigned i = 0; i < m; i++) {
			uint32_t e = __atomic_load_n(&tbl24[a[i] >> 8], __ATOMIC_ACQUIRE);

			if (e & FIB4_EXT) {
				e = (e & ~FIB4_EXT) << 8 | (a[i] & 0xff);
				__builtin_prefetch(&tbl8[e]);
				ext[next++] = (uint8_t)i;
			}
			v[i] = e;
		}
		for (unsigned k = 0; k < next; k++)
			v[ext[k]] = __atomic_load_n(&tbl8[v[ext[k]]], __ATOMIC_ACQUIRE); /* see fib4_lookup */
	}
}
