/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fib4_poptrie: the API. Checks arguments, reserves everything an update may
 * allocate (so a failed update changes nothing), keeps the control-side
 * prefix index (datapath/fib/fib4_index.h, shared with DIR-24-8), and hands
 * the painting to fib4_poptrie_update.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "datapath/fib/fib4_poptrie_priv.h"

#define POOL_KIB_DEFAULT (1u << 20) /* 1 GiB of address space; used as needed */

static inline uint32_t prefix_mask(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

static bool args_ok(uint32_t prefix, uint8_t len)
{
	return len <= 32 && !(prefix & ~prefix_mask(len));
}

void fib4_poptrie_destroy(struct fib4_poptrie *pt)
{
	if (!pt)
		return;
	free(pt->sdir);
	free(pt->sdepth);
	free(pt->sn);
	pt_pool_fini(&pt->pool);
	fib4_index_fini(&pt->ix);
	free(pt);
}

struct fib4_poptrie *fib4_poptrie_create(uint32_t pool_kib)
{
	uint64_t words =
	    (uint64_t)(pool_kib ? pool_kib : POOL_KIB_DEFAULT) * 1024 / sizeof(uint32_t) +
	    PT_DIRECT_SLOTS;
	struct fib4_poptrie *pt = calloc(1, sizeof(*pt));
	int rc;

	if (!pt)
		return NULL;
	fib4_index_init(&pt->ix);
	pt->sn_free = PT_NONE;
	pt->sdir = calloc(PT_DIRECT_SLOTS, sizeof(*pt->sdir));
	pt->sdepth = calloc(PT_DIRECT_SLOTS, sizeof(*pt->sdepth));
	/*
	 * direct[] is the pool's first 2^18 words: it shares the first huge page with
	 * the nodes, and the lookup needs one base pointer. Indexes into words[] must
	 * stay clear of FIB4_POPTRIE_EXT.
	 */
	rc = pt_pool_init(&pt->pool, (uint32_t)(words < PT_EXT ? words : PT_EXT - 1),
	                  PT_DIRECT_SLOTS);
	if (rc < 0 || !pt->sdir || !pt->sdepth) {
		fib4_poptrie_destroy(pt);
		errno = rc < 0 ? -rc : ENOMEM;
		return NULL;
	}
	pt->direct = pt->pool.base;
	pt->dir.direct = pt->direct;
	pt->dir.words = pt->pool.base;
#if PT_X86_POPCNT
	pt->popcnt = __builtin_cpu_supports("popcnt");
#endif
	return pt;
}

static int sn_reserve(struct fib4_poptrie *pt)
{
	uint32_t cap = pt->sn_cap ? pt->sn_cap : 64;
	struct pt_snode *sn;

	/* Creations take free ids first; only the rest extends the array. */
	if (pt->nsn + PT_LEVELS <= pt->sn_cap)
		return 0;
	while (cap < pt->nsn + PT_LEVELS)
		cap *= 2;
	if (cap >= PT_EXT)
		return -ENOSPC;
	/* Cache-line aligned: an update then reads six lines per node, not seven. */
	if (posix_memalign((void **)&sn, 64, (size_t)cap * sizeof(*sn)))
		return -ENOMEM;
	if (pt->nsn)
		memcpy(sn, pt->sn, (size_t)pt->nsn * sizeof(*sn));
	free(pt->sn);
	pt->sn = sn;
	pt->sn_cap = cap;
	return 0;
}

/*
 * Worst case of one update over T touched nodes: each writes at most one
 * block of its child nodes (all of them together <= 6T words, a node being
 * the child of one parent) and one of its leaves (<= 64 words, or 70 with the
 * node itself for a /18 slot's node), and parks at most three blocks.
 */
static int reserve(struct fib4_poptrie *pt, const struct pt_op *op)
{
	uint64_t t = pt_update_worst_nodes(pt, op);
	int rc = sn_reserve(pt);

	if (rc == 0)
		rc = pt_pool_reserve(&pt->pool, t * (PT_NODE_WORDS + PT_NODE_WORDS + PT_FANOUT),
		                     3 * t);
	return rc;
}

int fib4_poptrie_insert(struct fib4_poptrie *pt, uint32_t prefix, uint8_t len, uint32_t value)
{
	uint32_t old;
	struct pt_op op;
	int rc;

	if (!args_ok(prefix, len) || !value || value > FIB4_VALUE_MAX)
		return -EINVAL;
	/* The index and the shadow node are two cache misses: start both. */
	fib4_index_prefetch(&pt->ix, prefix, len);
	pt_update_prefetch(pt, prefix);
	old = fib4_index_get(&pt->ix, prefix, len);
	if (old == value)
		return 0;
	/* Entries of shorter prefixes, and this one's own when it is replaced. */
	op = (struct pt_op){.prefix = prefix,
	                    .len = len,
	                    .lo = 0,
	                    .hi = len,
	                    .depth = len,
	                    .value = value,
	                    .refs = old ? 0 : 1};
	rc = reserve(pt, &op);
	if (rc == 0 && !old)
		rc = fib4_index_reserve(&pt->ix, len);
	if (rc < 0)
		return rc;
	fib4_index_set(&pt->ix, prefix, len, value);
	pt_update_apply(pt, &op);
	return 0;
}

int fib4_poptrie_delete(struct fib4_poptrie *pt, uint32_t prefix, uint8_t len)
{
	struct pt_op op;
	uint8_t cover_len;
	uint32_t cover;
	int rc;

	if (!args_ok(prefix, len))
		return -EINVAL;
	fib4_index_prefetch(&pt->ix, prefix, len);
	pt_update_prefetch(pt, prefix);
	if (!fib4_index_get(&pt->ix, prefix, len))
		return -ENOENT;
	/* Its entries fall back to the next shorter prefix that covers it (or to no route). */
	if (len > FIB4_POPTRIE_DIRECT)
		cover = pt_update_cover(pt, prefix, len, &cover_len);
	else
		cover = fib4_index_cover(&pt->ix, prefix, len, &cover_len);
	op = (struct pt_op){.prefix = prefix,
	                    .len = len,
	                    .lo = len,
	                    .hi = len,
	                    .depth = cover_len,
	                    .value = cover,
	                    .refs = -1};
	rc = reserve(pt, &op);
	if (rc < 0)
		return rc;
	fib4_index_remove(&pt->ix, prefix, len);
	pt_update_apply(pt, &op);
	return 0;
}

uint32_t fib4_poptrie_get(const struct fib4_poptrie *pt, uint32_t prefix, uint8_t len)
{
	if (!args_ok(prefix, len))
		return 0;
	return fib4_index_get(&pt->ix, prefix, len);
}

void fib4_poptrie_reclaim(struct fib4_poptrie *pt)
{
	pt_pool_reclaim(&pt->pool);
}

void fib4_poptrie_get_stats(const struct fib4_poptrie *pt, struct fib4_poptrie_stats *st)
{
	*st = (struct fib4_poptrie_stats){0};
	for (int l = 0; l <= 32; l++) {
		st->routes_by_len[l] = pt->ix.len[l].used;
		st->routes += pt->ix.len[l].used;
	}
	st->nodes = pt->nnodes;
	st->leaves = pt->nleaves;
	st->shadow_nodes = pt->sn_live;
	st->pending = pt->pool.nparked;
	st->lookup_bytes = pt->pool.live * sizeof(uint32_t); /* direct[] included */
	st->touched_bytes = pt_pool_touched_bytes(&pt->pool);
	st->memory_bytes = sizeof(*pt) + st->touched_bytes +
	                   (size_t)PT_DIRECT_SLOTS * (sizeof(*pt->sdir) + sizeof(*pt->sdepth)) +
	                   (size_t)pt->sn_cap * sizeof(*pt->sn) + pt_pool_meta_bytes(&pt->pool) +
	                   fib4_index_memory(&pt->ix);
}

int fib4_poptrie_walk(const struct fib4_poptrie *pt,
                      int (*cb)(uint32_t prefix, uint8_t len, uint32_t value, void *arg), void *arg)
{
	return fib4_index_walk(&pt->ix, cb, arg);
}

/* Lookups per chunk of a burst: chunk indexes are kept in bytes. */
#define PT_BULK_CHUNK 64u

/*
 * Three passes over each chunk of a burst, and no branch that depends on the
 * table in the first. It reads every direct[] entry into values[] and
 * appends the position of each that names a node (16 % of random addresses)
 * to a list, by adding the entry's top bit to the list's length. The second
 * reads those nodes and computes where each leaf is; the third reads the
 * leaves. In one loop the "node or value" branch is mispredicted about every
 * sixth random key, and each misprediction throws away the work the core
 * had started on the keys after it; and a node's miss and its leaf's are
 * dependent, where here a chunk's node misses overlap, then its leaf misses.
 * A node with child nodes (a prefix longer than /24) is finished in the
 * second pass, by the scalar loop. Figures, and what was measured slower
 * (one loop without the branch, prefetching passes, passes with branches):
 * doc/FIB.md.
 */
static inline __attribute__((always_inline)) void
lookup_chunk(const struct fib4_poptrie_dir *d, const uint32_t *addrs, uint32_t *values, unsigned n)
{
	uint8_t ext[PT_BULK_CHUNK], pos[PT_BULK_CHUNK];
	uint32_t leaf[PT_BULK_CHUNK];
	unsigned next = 0, nleaf = 0;

	for (unsigned i = 0; i < n; i++) {
		/* Acquire pairs with the release that published the subtree. */
		uint32_t e = __atomic_load_n(&d->direct[addrs[i] >> (32 - FIB4_POPTRIE_DIRECT)],
		                             __ATOMIC_ACQUIRE);

		values[i] = e;
		ext[next] = (uint8_t)i;
		next += e >> 31;
	}
	for (unsigned j = 0; j < next; j++) {
		unsigned i = ext[j];
		const struct fib4_poptrie_node *nd =
		    fib4_poptrie_node_at(d->words, values[i] & ~FIB4_POPTRIE_EXT);
		uint64_t bit = 1ull << ((addrs[i] << FIB4_POPTRIE_DIRECT) >> 26);

		if (__builtin_expect((nd->vector & bit) != 0, 0)) {
			values[i] = fib4_poptrie_lookup_deep(d, nd, addrs[i]);
			continue;
		}
		leaf[nleaf] =
		    nd->base0 + (uint32_t)__builtin_popcountll(nd->leafvec & ((bit << 1) - 1)) - 1;
		pos[nleaf++] = (uint8_t)i;
	}
	/* Acquire: leaves are rewritten in place, and the caller reads the next hop named. */
	for (unsigned j = 0; j < nleaf; j++)
		values[pos[j]] = __atomic_load_n(&d->words[leaf[j]], __ATOMIC_ACQUIRE);
}

/*
 * A local copy of the tables: stores to values[] cannot change it, it stays
 * in registers. The x86-64 baseline has no population count instruction, so
 * a second copy is built for CPUs with POPCNT and chosen when the table is
 * created.
 */
static inline __attribute__((always_inline)) void
lookup_bulk_body(const struct fib4_poptrie *pt, const uint32_t *addrs, uint32_t *values, unsigned n)
{
	const struct fib4_poptrie_dir d = pt->dir;
	uintptr_t a0 = (uintptr_t)addrs, v0 = (uintptr_t)values, len = (uintptr_t)n * 4;

	/* The passes read addrs[] after writing values[]: values in place take one loop. */
	if (__builtin_expect(a0 < v0 + len && v0 < a0 + len, 0)) {
		for (unsigned i = 0; i < n; i++)
			values[i] = fib4_poptrie_lookup_dir(&d, addrs[i]);
		return;
	}
	for (unsigned c = 0; c < n; c += PT_BULK_CHUNK)
		lookup_chunk(&d, addrs + c, values + c,
		             n - c < PT_BULK_CHUNK ? n - c : PT_BULK_CHUNK);
}

static void lookup_bulk_generic(const struct fib4_poptrie *pt, const uint32_t *addrs,
                                uint32_t *values, unsigned n)
{
	lookup_bulk_body(pt, addrs, values, n);
}

#if PT_X86_POPCNT
__attribute__((target("popcnt"))) static void lookup_bulk_popcnt(const struct fib4_poptrie *pt,
                                                                 const uint32_t *addrs,
                                                                 uint32_t *values, unsigned n)
{
	lookup_bulk_body(pt, addrs, values, n);
}
#endif

void fib4_poptrie_lookup_bulk(const struct fib4_poptrie *pt, const uint32_t *addrs,
                              uint32_t *values, unsigned n)
{
#if PT_X86_POPCNT
	if (pt->popcnt) {
		lookup_bulk_popcnt(pt, addrs, values, n);
		return;
	}
#endif
	lookup_bulk_generic(pt, addrs, values, n);
}
