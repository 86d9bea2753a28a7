/* SPDX-License-Identifier: BSD-2-Clause */
/* FIB6 life cycle, lookups (scalar and bulk), statistics and the walk. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib6_priv.h"

#define NODES_DEFAULT  (1u << 22) /* 96 MiB of address space, touched as used */
#define LEAVES_DEFAULT (1u << 24) /* 64 MiB likewise */
#define DIR_BYTES      ((size_t)FIB6_DIR_SLOTS * sizeof(uint32_t))

static void cnode_tree_free(struct fib6 *fib, struct fib6_cnode *cn)
{
	for (unsigned k = 0; k < (unsigned)__builtin_popcountll(cn->vec); k++)
		cnode_tree_free(fib, cn->kid[k]);
	fib6_cnode_free(fib, cn);
}

void fib6_destroy(struct fib6 *fib)
{
	if (!fib)
		return;
	if (fib->root) {
		for (uint32_t s = 0; s < FIB6_DIR_SLOTS; s++)
			if (fib->root[s])
				cnode_tree_free(fib, fib->root[s]);
	}
	fib6_unmap(fib->dir, DIR_BYTES);
	fib6_pool_fini(&fib->np);
	fib6_pool_fini(&fib->lp);
	free(fib->root);
	free(fib->dirval);
	free(fib->dirdepth);
	free(fib->short_val);
	free(fib->dirty_map);
	free(fib->dirty.v);
	free(fib->ret.v);
	free(fib->stage.v);
	free(fib->gone.v);
	free(fib->pubs.v);
	free(fib);
}

struct fib6 *fib6_create(uint32_t max_nodes, uint32_t max_leaves)
{
	struct fib6 *fib;
	uint32_t nn = max_nodes ? max_nodes : NODES_DEFAULT;
	uint32_t nl = max_leaves ? max_leaves : LEAVES_DEFAULT;

	/* Indices must stay clear of FIB6_NODE and FIB6_NONE. */
	if (nn >= FIB6_NODE || nl >= FIB6_NODE) {
		errno = EINVAL;
		return NULL;
	}
	fib = calloc(1, sizeof(*fib));
	if (!fib)
		return NULL;
	fib->dir = fib6_map(DIR_BYTES);
	fib->root = calloc(FIB6_DIR_SLOTS, sizeof(*fib->root));
	fib->dirval = calloc(FIB6_DIR_SLOTS, sizeof(*fib->dirval));
	fib->dirdepth = calloc(FIB6_DIR_SLOTS, 1);
	fib->short_val = calloc(2 * (size_t)FIB6_DIR_SLOTS, sizeof(*fib->short_val));
	fib->dirty_map = calloc(FIB6_DIR_SLOTS / 64, sizeof(*fib->dirty_map));
	if (!fib->dir || !fib->root || !fib->dirval || !fib->dirdepth || !fib->short_val ||
	    !fib->dirty_map || fib6_pool_init(&fib->np, sizeof(struct fib6_node), nn) < 0 ||
	    fib6_pool_init(&fib->lp, sizeof(uint32_t), nl) < 0) {
		fib6_destroy(fib);
		errno = ENOMEM;
		return NULL;
	}
	fib->nodes = (struct fib6_node *)fib->np.base;
	fib->leaves = (uint32_t *)fib->lp.base;
	return fib;
}

/* ---- lookups ---- */

static inline fib6_u128 key_load(const uint8_t *a)
{
	uint64_t hi, lo;

	memcpy(&hi, a, 8);
	memcpy(&lo, a + 8, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	hi = __builtin_bswap64(hi);
	lo = __builtin_bswap64(lo);
#endif
	return (fib6_u128)hi << 64 | lo;
}

/* Ranks in a 64-slot bitmap: how many of bits 0..v are set. */
static inline unsigned rank(uint64_t map, unsigned v)
{
	return (unsigned)__builtin_popcountll(map & (~0ull >> (63 - v)));
}

/* Where the leaf values of n are: in the record itself up to FIB6_INLINE runs. */
static inline const uint32_t *leaf_values(const uint32_t *leaves, const struct fib6_node *n)
{
	return __builtin_popcountll(n->leafvec) <= FIB6_INLINE ? n->leaf : &leaves[n->leaf[0]];
}

/*
 * Hardware POPCNT is not in the x86-64 baseline Debian builds for, and the
 * libgcc fallback would cost more than the rest of a lookup: build both and
 * let the loader pick (GNU ifunc).
 */
#if defined(__x86_64__) && !defined(FIB6_NO_CLONES)
#define LOOKUP_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define LOOKUP_CLONES
#endif

LOOKUP_CLONES uint32_t fib6_lookup(const struct fib6 *fib, const uint8_t addr[16])
{
	fib6_u128 key = key_load(addr), w = key << FIB6_DIR_BITS;
	uint32_t e = __atomic_load_n(&fib->dir[fib6_slot_of(key)], __ATOMIC_ACQUIRE);

	if (e & FIB6_NODE) {
		const struct fib6_node *nodes = fib->nodes, *n = &nodes[e & ~FIB6_NODE];

		for (;;) {
			unsigned v = (unsigned)(w >> (128 - FIB6_STRIDE));

			w <<= FIB6_STRIDE;
			if (n->vec >> v & 1) {
				n = &nodes[n->base1 + rank(n->vec, v) - 1];
				continue;
			}
			e = leaf_values(fib->leaves, n)[rank(n->leafvec, v) - 1];
			break;
		}
	}
	return e ? e : __atomic_load_n(&fib->dflt, __ATOMIC_RELAXED);
}

/*
 * Bulk lookups keep BULK_LANES walks in flight (asynchronous memory access
 * chaining): each lane takes one step per round, on the node it prefetched
 * the round before, and a lane whose walk ends starts the next address at
 * once. A walk waits on memory once per level; sixteen of them wait together.
 * The direct table is prefetched BULK_AHEAD addresses ahead, so an address
 * it answers (most of the address space) never takes a lane.
 */
#define BULK_LANES 16
#define BULK_AHEAD 16

struct lane {
	const void *p; /* the node (or, leaf set, the leaf value) this lane reads next */
	fib6_u128 w;   /* the address bits still to walk, at the top */
	unsigned idx;  /* which address; ~0u: idle */
	bool leaf;
};

struct bulk {
	const struct fib6_node *nodes;
	const uint32_t *dir, *leaves;
	const uint8_t *const *addrs;
	uint32_t *values, dflt;
	unsigned next, n;
};

static inline void bulk_prefetch_dir(const struct bulk *b, unsigned i)
{
	if (i < b->n) {
		const uint8_t *a = b->addrs[i];
		uint32_t top =
		    (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];

		__builtin_prefetch(&b->dir[top >> (32 - FIB6_DIR_BITS)]);
	}
}

/* Give lane l the next address the direct table does not answer; false when none is left. */
static inline bool lane_start(struct bulk *b, struct lane *l)
{
	while (b->next < b->n) {
		unsigned i = b->next++;
		fib6_u128 key = key_load(b->addrs[i]);
		uint32_t e = __atomic_load_n(&b->dir[fib6_slot_of(key)], __ATOMIC_ACQUIRE);

		bulk_prefetch_dir(b, i + BULK_AHEAD);
		if (!(e & FIB6_NODE)) {
			b->values[i] = e ? e : b->dflt;
			continue;
		}
		*l = (struct lane){&b->nodes[e & ~FIB6_NODE], key << FIB6_DIR_BITS, i, false};
		__builtin_prefetch(l->p);
		return true;
	}
	l->idx = ~0u;
	return false;
}

/* One level of lane l's walk; true when it ended (its value is stored). */
static inline bool lane_step(struct bulk *b, struct lane *l)
{
	const struct fib6_node *n = l->p;
	unsigned v;
	uint32_t e;

	if (l->leaf) {
		e = *(const uint32_t *)l->p;
	} else {
		v = (unsigned)(l->w >> (128 - FIB6_STRIDE));
		l->w <<= FIB6_STRIDE;
		if (n->vec >> v & 1) {
			l->p = &b->nodes[n->base1 + rank(n->vec, v) - 1];
			__builtin_prefetch(l->p);
			return false;
		}
		if (__builtin_popcountll(n->leafvec) > FIB6_INLINE) {
			l->p = &b->leaves[n->leaf[0] + rank(n->leafvec, v) - 1];
			l->leaf = true;
			__builtin_prefetch(l->p);
			return false;
		}
		e = n->leaf[rank(n->leafvec, v) - 1];
	}
	b->values[l->idx] = e ? e : b->dflt;
	return true;
}

LOOKUP_CLONES void fib6_lookup_bulk(const struct fib6 *fib, const uint8_t *const addrs[],
                                    uint32_t *values, unsigned n)
{
	struct bulk b = {fib->nodes, fib->dir, fib->leaves,
	                 addrs,      values,   __atomic_load_n(&fib->dflt, __ATOMIC_RELAXED),
	                 0,          n};
	struct lane lane[BULK_LANES];
	unsigned busy = 0;

	for (unsigned i = 0; i < BULK_AHEAD; i++)
		bulk_prefetch_dir(&b, i);
	for (unsigned g = 0; g < BULK_LANES; g++)
		busy += lane_start(&b, &lane[g]);
	while (busy) {
		for (unsigned g = 0; g < BULK_LANES; g++) {
			if (lane[g].idx == ~0u || !lane_step(&b, &lane[g]))
				continue;
			if (!lane_start(&b, &lane[g]))
				busy--;
		}
	}
}

/* ---- statistics and the walk ---- */

void fib6_get_stats(const struct fib6 *fib, struct fib6_stats *st)
{
	*st = (struct fib6_stats){0};
	for (int l = 0; l <= 128; l++) {
		st->routes_by_len[l] = fib->routes_by_len[l];
		st->routes += fib->routes_by_len[l];
	}
	st->cnodes = fib->cnodes;
	st->nodes_used = fib->np.used;
	st->nodes_pending = fib->np.pending;
	st->nodes_max = fib->np.cap;
	st->leaves_used = fib->lp.used;
	st->leaves_pending = fib->lp.pending;
	st->leaves_max = fib->lp.cap;
	st->reader_bytes = DIR_BYTES + fib6_pool_bytes(&fib->np) + fib6_pool_bytes(&fib->lp);
	st->memory_bytes = sizeof(*fib) + st->reader_bytes + fib->cbytes +
	                   (size_t)FIB6_DIR_SLOTS * (sizeof(*fib->root) + sizeof(*fib->dirval) + 1 +
	                                             2 * sizeof(*fib->short_val)) +
	                   FIB6_DIR_SLOTS / 8 + /* dirty_map */
	                   (size_t)fib->dirty.cap * sizeof(*fib->dirty.v) +
	                   (size_t)fib->ret.cap * sizeof(*fib->ret.v) +
	                   (size_t)fib->stage.cap * sizeof(*fib->stage.v) +
	                   (size_t)fib->gone.cap * sizeof(*fib->gone.v) +
	                   (size_t)fib->pubs.cap * sizeof(*fib->pubs.v);
}

typedef int (*fib6_walk_cb)(const uint8_t prefix[16], uint8_t len, uint32_t value, void *arg);

static int walk_node(const struct fib6_cnode *cn, fib6_u128 base, unsigned off, fib6_walk_cb cb,
                     void *arg)
{
	uint8_t a[16];
	uint64_t m = cn->vec;
	int rc;

	for (unsigned i = 0; i < cn->npfx; i++) {
		const struct fib6_lpfx *p = &cn->pfx[i];

		fib6_key_store(base | (fib6_u128)p->bits << (128 - off - p->rlen), a);
		if ((rc = cb(a, (uint8_t)(off + p->rlen), p->value, arg)) != 0)
			return rc;
	}
	for (unsigned k = 0; m; k++, m &= m - 1) {
		fib6_u128 slot = (fib6_u128)__builtin_ctzll(m);

		/* The last level is only 4 bits deep: nothing below it has children. */
		rc = walk_node(cn->kid[k], base | slot << (128 - off - FIB6_STRIDE),
		               off + FIB6_STRIDE, cb, arg);
		if (rc)
			return rc;
	}
	return 0;
}

int fib6_walk(const struct fib6 *fib, fib6_walk_cb cb, void *arg)
{
	uint8_t a[16] = {0};
	int rc;

	if (fib->dflt_ctl && (rc = cb(a, 0, fib->dflt_ctl, arg)) != 0)
		return rc;
	for (unsigned len = 1; len <= FIB6_DIR_BITS; len++) {
		for (uint32_t b = 0; b < (1u << len); b++) {
			uint32_t v = fib->short_val[(1u << len) + b];

			if (!v)
				continue;
			fib6_key_store((fib6_u128)b << (128 - len), a);
			if ((rc = cb(a, (uint8_t)len, v, arg)) != 0)
				return rc;
		}
	}
	for (uint32_t s = 0; s < FIB6_DIR_SLOTS; s++) {
		if (fib->root[s] &&
		    (rc = walk_node(fib->root[s], (fib6_u128)s << (128 - FIB6_DIR_BITS),
		                    FIB6_DIR_BITS, cb, arg)) != 0)
			return rc;
	}
	return 0;
}
