/* SPDX-License-Identifier: BSD-2-Clause */
/* FIB6 life cycle, statistics and the walk. */
#include <errno.h>
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
	fib6_lookup_select(fib);
	return fib;
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
