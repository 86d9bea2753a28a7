/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FIB6 updates (one writer). A prefix longer than the direct table lives in
 * the control node of its depth; prefixes up to FIB6_DIR_BITS paint the
 * direct table's slots (dirval). An update marks what it changed and, outside
 * a batch, publishes it at once (fib6_build.c), undoing itself if that fails;
 * inside a batch the marks accumulate until fib6_batch_end().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib6_priv.h"

static unsigned popc(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

/* `n` (1..6) bits of key at bit offset `off` from the top; bits past 127 read as 0. */
static unsigned bits_at(fib6_u128 key, unsigned off, unsigned n)
{
	return (unsigned)((key << off) >> (128 - n));
}

/* ---- control nodes ---- */

static struct fib6_cnode *cnode_new(struct fib6 *fib)
{
	struct fib6_cnode *cn = calloc(1, sizeof(*cn));

	if (!cn)
		return NULL;
	cn->self = FIB6_NONE;
	cn->dirty = FIB6_DIRTY_PFX;
	fib->cnodes++;
	fib->cbytes += sizeof(*cn);
	return cn;
}

void fib6_cnode_free(struct fib6 *fib, struct fib6_cnode *cn)
{
	fib->cnodes--;
	fib->cbytes -= sizeof(*cn) + (size_t)cn->kid_cap * sizeof(*cn->kid) +
	               (size_t)cn->pfx_cap * sizeof(*cn->pfx);
	free(cn->kid);
	free(cn->pfx);
	free(cn);
}

static unsigned kid_rank(const struct fib6_cnode *cn, unsigned slot)
{
	return popc(cn->vec & ((1ull << slot) - 1));
}

static struct fib6_cnode *kid_get(const struct fib6_cnode *cn, unsigned slot)
{
	return (cn->vec >> slot & 1) ? cn->kid[kid_rank(cn, slot)] : NULL;
}

static int kid_add(struct fib6 *fib, struct fib6_cnode *cn, unsigned slot, struct fib6_cnode *c)
{
	unsigned n = popc(cn->vec), at = kid_rank(cn, slot);

	if (n == cn->kid_cap) {
		unsigned cap = cn->kid_cap ? cn->kid_cap * 2u : 2u;
		struct fib6_cnode **k = realloc(cn->kid, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		fib->cbytes += (cap - cn->kid_cap) * sizeof(*k);
		cn->kid = k;
		cn->kid_cap = (uint8_t)cap;
	}
	memmove(&cn->kid[at + 1], &cn->kid[at], (n - at) * sizeof(*cn->kid));
	cn->kid[at] = c;
	cn->vec |= 1ull << slot;
	return 0;
}

void fib6_kid_remove(struct fib6_cnode *cn, unsigned slot)
{
	unsigned n = popc(cn->vec), at = kid_rank(cn, slot);

	memmove(&cn->kid[at], &cn->kid[at + 1], (n - at - 1) * sizeof(*cn->kid));
	cn->vec &= ~(1ull << slot);
}

static int pfx_cmp(unsigned rlen, unsigned bits, const struct fib6_lpfx *p)
{
	if (rlen != p->rlen)
		return rlen < p->rlen ? -1 : 1;
	return bits < p->bits ? -1 : bits > p->bits;
}

/* Where (rlen, bits) is or would go in the sorted list; *found if it is there. */
static unsigned pfx_pos(const struct fib6_cnode *cn, unsigned rlen, unsigned bits, bool *found)
{
	unsigned i = 0;

	while (i < cn->npfx && pfx_cmp(rlen, bits, &cn->pfx[i]) > 0)
		i++;
	*found = i < cn->npfx && pfx_cmp(rlen, bits, &cn->pfx[i]) == 0;
	return i;
}

static int pfx_add(struct fib6 *fib, struct fib6_cnode *cn, unsigned at, unsigned rlen,
                   unsigned bits, uint32_t value)
{
	if (cn->npfx == cn->pfx_cap) {
		unsigned cap = cn->pfx_cap ? cn->pfx_cap * 2u : 1u;
		struct fib6_lpfx *p = realloc(cn->pfx, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		fib->cbytes += (cap - cn->pfx_cap) * sizeof(*p);
		cn->pfx = p;
		cn->pfx_cap = (uint8_t)cap;
	}
	memmove(&cn->pfx[at + 1], &cn->pfx[at], (cn->npfx - at) * sizeof(*cn->pfx));
	cn->pfx[at] = (struct fib6_lpfx){value, (uint8_t)rlen, (uint8_t)bits};
	cn->npfx++;
	return 0;
}

static void pfx_remove(struct fib6_cnode *cn, unsigned at)
{
	memmove(&cn->pfx[at], &cn->pfx[at + 1], (cn->npfx - at - 1) * sizeof(*cn->pfx));
	cn->npfx--;
}

/* ---- prefixes up to FIB6_DIR_BITS: the direct table ---- */

static uint32_t short_idx(fib6_u128 key, unsigned len)
{
	return (1u << len) + (uint32_t)(key >> (128 - len));
}

/* dirval/dirdepth of each slot from the installed short prefixes (the slow, certain way). */
static void recompute_range(struct fib6 *fib, uint32_t first, uint32_t count)
{
	for (uint32_t slot = first; slot < first + count; slot++) {
		fib->dirval[slot] = 0;
		fib->dirdepth[slot] = 0;
		for (unsigned l = FIB6_DIR_BITS; l >= 1; l--) {
			uint32_t v = fib->short_val[(1u << l) + (slot >> (FIB6_DIR_BITS - l))];

			if (v) {
				fib->dirval[slot] = v;
				fib->dirdepth[slot] = (uint8_t)l;
				break;
			}
		}
	}
}

/*
 * Give the slots of [first, first + count) that hold depth in [lo, hi] the
 * value `v` of depth `d`, and publish them (or mark them, in a batch).
 */
static int short_paint(struct fib6 *fib, uint32_t first, uint32_t count, unsigned lo, unsigned hi,
                       uint32_t v, unsigned d)
{
	int rc = 0;

	for (uint32_t s = first; s < first + count; s++) {
		if (fib->dirdepth[s] < lo || fib->dirdepth[s] > hi)
			continue;
		fib->dirval[s] = v;
		fib->dirdepth[s] = (uint8_t)d;
		if (fib->batch && rc == 0)
			rc = fib6_mark_dirty(fib, s);
	}
	if (!fib->batch && rc == 0)
		rc = fib6_commit_range(fib, first, count);
	return rc;
}

static int short_set(struct fib6 *fib, fib6_u128 key, unsigned len, uint32_t value)
{
	uint32_t idx = short_idx(key, len), old = fib->short_val[idx], cover = 0;
	uint32_t first = fib6_slot_of(key), count = 1u << (FIB6_DIR_BITS - len);
	unsigned cover_len = 0;
	int rc;

	if (!value && !old)
		return -ENOENT;
	fib->short_val[idx] = value;
	if (value) {
		rc = short_paint(fib, first, count, 0, len, value, len);
	} else {
		for (unsigned l = len - 1; l >= 1 && !cover; l--) {
			cover = fib->short_val[short_idx(key, l)];
			cover_len = cover ? l : 0;
		}
		rc = short_paint(fib, first, count, len, len, cover, cover_len);
	}
	if (rc < 0) {
		fib->short_val[idx] = old;
		recompute_range(fib, first, count);
		return rc;
	}
	if (!old != !value)
		fib->routes_by_len[len] += value ? 1 : (uint64_t)-1;
	return 0;
}

/* ---- longer prefixes: the nodes ---- */

/* Unlink and free path[from..depth], nodes this update made and never built. */
static void path_drop_new(struct fib6 *fib, struct fib6_cnode **path, int from, int depth,
                          fib6_u128 key)
{
	for (int i = depth; i >= from; i--) {
		if (i > 0)
			fib6_kid_remove(path[i - 1],
			                bits_at(key,
			                        FIB6_DIR_BITS + FIB6_STRIDE * (unsigned)(i - 1),
			                        FIB6_STRIDE));
		else
			fib->root[fib6_slot_of(key)] = NULL;
		fib6_cnode_free(fib, path[i]);
	}
}

/*
 * The nodes from the root of key's slot down to where a /len lives, made on
 * the way when `create` (*created: the first one made, FIB6_LEVELS if none).
 * Returns the depth of the last, or -ENOENT / -ENOMEM.
 */
static int path_walk(struct fib6 *fib, fib6_u128 key, unsigned len, bool create,
                     struct fib6_cnode **path, int *created)
{
	struct fib6_cnode **root = &fib->root[fib6_slot_of(key)];
	unsigned off = FIB6_DIR_BITS;
	int depth = 0;

	*created = FIB6_LEVELS;
	if (!*root) {
		if (!create)
			return -ENOENT;
		if (!(*root = cnode_new(fib)))
			return -ENOMEM;
		*created = 0;
	}
	path[0] = *root;
	for (; len > off + FIB6_STRIDE; off += FIB6_STRIDE) {
		unsigned v = bits_at(key, off, FIB6_STRIDE);
		struct fib6_cnode *c = kid_get(path[depth], v);

		if (!c) {
			if (!create)
				return -ENOENT;
			if (!(c = cnode_new(fib)) || kid_add(fib, path[depth], v, c) < 0) {
				if (c)
					fib6_cnode_free(fib, c);
				if (*created <= depth)
					path_drop_new(fib, path, *created, depth, key);
				return -ENOMEM;
			}
			if (*created == FIB6_LEVELS)
				*created = depth + 1;
		}
		path[++depth] = c;
	}
	return depth;
}

/* The slot of path[i + 1] in path[i]. */
static unsigned path_slot(fib6_u128 key, int i)
{
	return bits_at(key, FIB6_DIR_BITS + FIB6_STRIDE * (unsigned)i, FIB6_STRIDE);
}

static void path_mark(struct fib6_cnode **path, int depth, fib6_u128 key)
{
	for (int i = 0; i < depth; i++)
		path[i]->dirty_kids |= 1ull << path_slot(key, i);
	path[depth]->dirty |= FIB6_DIRTY_PFX;
}

/* A failed update outside a batch: every node was clean before it. */
static void path_unmark(struct fib6_cnode **path, int depth)
{
	for (int i = 0; i <= depth; i++) {
		path[i]->dirty = path[i]->built ? 0 : FIB6_DIRTY_PFX;
		path[i]->dirty_kids = 0;
	}
}

/* Publish (or, in a batch, mark) the change under key's slot. */
static int long_publish(struct fib6 *fib, fib6_u128 key)
{
	uint32_t slot = fib6_slot_of(key);

	return fib->batch ? fib6_mark_dirty(fib, slot) : fib6_commit_range(fib, slot, 1);
}

/* Install (value != 0) or remove (value 0) a prefix longer than the direct table. */
static int long_set(struct fib6 *fib, fib6_u128 key, unsigned len, uint32_t value)
{
	struct fib6_cnode *path[FIB6_LEVELS], *cn;
	int created, depth = path_walk(fib, key, len, value != 0, path, &created), rc;
	unsigned off, rlen, bits, at;
	struct fib6_lpfx old = {0};
	bool found;

	if (depth < 0)
		return depth;
	cn = path[depth];
	off = FIB6_DIR_BITS + FIB6_STRIDE * (unsigned)depth;
	rlen = len - off;
	bits = bits_at(key, off, rlen);
	at = pfx_pos(cn, rlen, bits, &found);
	if (!value && !found)
		return -ENOENT;
	if (found) {
		old = cn->pfx[at];
		if (value)
			cn->pfx[at].value = value;
		else
			pfx_remove(cn, at);
	} else if ((rc = pfx_add(fib, cn, at, rlen, bits, value)) < 0) {
		goto undo;
	}
	path_mark(path, depth, key);
	rc = long_publish(fib, key); /* on success, emptied nodes may be gone: path is stale */
	if (rc == 0) {
		if (!found || !value)
			fib->routes_by_len[len] += value ? 1 : (uint64_t)-1;
		return 0;
	}
	if (!fib->batch)
		path_unmark(path, depth);
	if (found && value)
		cn->pfx[at].value = old.value;
	else if (found)
		pfx_add(fib, cn, at, rlen, bits, old.value); /* cannot fail: remove kept the room */
	else
		pfx_remove(cn, at);
undo:
	if (created <= depth)
		path_drop_new(fib, path, created, depth, key);
	return rc;
}

/* ---- the API ---- */

static bool args_ok(fib6_u128 key, unsigned len)
{
	return len <= 128 && !(key & ~fib6_mask(len));
}

static int fib6_set(struct fib6 *fib, fib6_u128 key, unsigned len, uint32_t value)
{
	if (len == 0) {
		if (!value && !fib->dflt_ctl)
			return -ENOENT;
		if (!value != !fib->dflt_ctl)
			fib->routes_by_len[0] += value ? 1 : (uint64_t)-1;
		fib->dflt_ctl = value;
		if (!fib->batch)
			__atomic_store_n(&fib->dflt, value, __ATOMIC_RELEASE);
		return 0;
	}
	if (len <= FIB6_DIR_BITS)
		return short_set(fib, key, len, value);
	return long_set(fib, key, len, value);
}

int fib6_insert(struct fib6 *fib, const uint8_t prefix[16], uint8_t len, uint32_t value)
{
	fib6_u128 key = fib6_key(prefix);

	if (!args_ok(key, len) || !value || value > FIB6_VALUE_MAX)
		return -EINVAL;
	return fib6_set(fib, key, len, value);
}

int fib6_delete(struct fib6 *fib, const uint8_t prefix[16], uint8_t len)
{
	fib6_u128 key = fib6_key(prefix);

	if (!args_ok(key, len))
		return -EINVAL;
	return fib6_set(fib, key, len, 0);
}

void fib6_batch_begin(struct fib6 *fib)
{
	fib->batch = true;
}

int fib6_batch_end(struct fib6 *fib)
{
	int rc = fib6_commit_dirty(fib);

	if (rc == 0)
		fib->batch = false;
	return rc;
}

uint32_t fib6_get(const struct fib6 *fib, const uint8_t prefix[16], uint8_t len)
{
	fib6_u128 key = fib6_key(prefix);
	const struct fib6_cnode *cn;
	unsigned off = FIB6_DIR_BITS, at;
	bool found;

	if (!args_ok(key, len))
		return 0;
	if (len == 0)
		return fib->dflt_ctl;
	if (len <= FIB6_DIR_BITS)
		return fib->short_val[short_idx(key, len)];
	cn = fib->root[fib6_slot_of(key)];
	for (; cn && len > off + FIB6_STRIDE; off += FIB6_STRIDE)
		cn = kid_get(cn, bits_at(key, off, FIB6_STRIDE));
	if (!cn)
		return 0;
	at = pfx_pos(cn, len - off, bits_at(key, off, len - off), &found);
	return found ? cn->pfx[at].value : 0;
}
