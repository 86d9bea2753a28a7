/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Building and publishing FIB6 reader nodes. A changed control node gets a
 * fresh record, children array and (if its values changed) leaves, and so do
 * its ancestors up to the root of its direct-table slot (path copy); one
 * release store of the dir entry then switches readers over. Every rebuilt
 * node is staged first: if the arrays cannot all be had, what was taken is
 * given back and readers and the control side stay as they were.
 */
#include <errno.h>
#include <string.h>

#include "datapath/fib/fib6_priv.h"

static void dir_store(struct fib6 *fib, uint32_t slot, uint32_t e)
{
	__atomic_store_n(&fib->dir[slot], e, __ATOMIC_RELEASE);
}

/* Leaf-pushed values of the 64 slots: inherited `def`, then this node's prefixes, short first. */
static void paint(const struct fib6_cnode *cn, uint32_t def, uint32_t val[FIB6_FANOUT])
{
	for (unsigned s = 0; s < FIB6_FANOUT; s++)
		val[s] = def;
	for (unsigned i = 0; i < cn->npfx; i++) {
		unsigned span = FIB6_STRIDE - cn->pfx[i].rlen;
		unsigned first = (unsigned)cn->pfx[i].bits << span;

		for (unsigned s = first; s < first + (1u << span); s++)
			val[s] = cn->pfx[i].value;
	}
}

/* The value of one slot (what paint() would give it). */
static uint32_t slot_value(const struct fib6_cnode *cn, uint32_t def, unsigned slot)
{
	for (unsigned i = cn->npfx; i-- > 0;) /* longest first */
		if ((slot >> (FIB6_STRIDE - cn->pfx[i].rlen)) == cn->pfx[i].bits)
			return cn->pfx[i].value;
	return def;
}

static int gone_push(struct fib6 *fib, struct fib6_cnode *cn, struct fib6_cnode *parent,
                     uint32_t slot)
{
	if (FIB6_VEC_RESERVE(fib->gone, 1) < 0)
		return -ENOMEM;
	fib->gone.v[fib->gone.n++] = (struct fib6_gone){cn, parent, slot};
	return 0;
}

static int build(struct fib6 *fib, struct fib6_cnode *cn, uint32_t def, struct fib6_node *out,
                 bool *empty);

/*
 * A childless record whose leaves are one prefix (rlen bits, `bits`) of
 * value *v among `def`, or one value throughout (rlen 0): what a terminal
 * skip can stand for. Only inline leaves (at most three runs) qualify.
 */
static bool leaf_single(const struct fib6_node *k, uint32_t def, unsigned *rlen, unsigned *bits,
                        uint32_t *v)
{
	unsigned nl = (unsigned)__builtin_popcountll(k->leafvec), lo = 0, hi = FIB6_FANOUT, span;
	uint64_t starts = k->leafvec & ~1ull; /* slot 0 always starts the first run */

	if (k->vec || nl == 0 || nl > FIB6_INLINE_MAX)
		return false;
	*v = k->leaf[0];
	if (nl >= 2) {
		unsigned s1 = (unsigned)__builtin_ctzll(starts);

		if (nl == 3) {
			if (k->leaf[0] != def || k->leaf[2] != def)
				return false;
			lo = s1, hi = (unsigned)__builtin_ctzll(starts & (starts - 1));
			*v = k->leaf[1];
		} else if (k->leaf[0] == def) {
			lo = s1, *v = k->leaf[1];
		} else if (k->leaf[1] == def) {
			hi = s1;
		} else {
			return false;
		}
	}
	span = hi - lo;
	if ((span & (span - 1)) || lo % span)
		return false; /* not one aligned block: not a prefix */
	*rlen = FIB6_STRIDE - (unsigned)__builtin_ctz(span);
	*bits = lo / span;
	return true;
}

static struct fib6_node skip_rec(uint32_t def, uint32_t key, unsigned nbits, uint32_t next)
{
	return (struct fib6_node){.base1 = next, .leaf = {def, key, nbits}};
}

/*
 * What readers see of a node in its parent's array (see fib6_priv.h, path
 * compression): its record `rec`, or for a node with one child and no
 * prefix a skip record, merged with the child's skip or ended on a child
 * holding one prefix. The child's record is read from its published (or just
 * staged) array, which is never written while readers can reach it.
 */
static struct fib6_node reader_form(const struct fib6 *fib, const struct fib6_node *rec,
                                    unsigned npfx, uint32_t def)
{
	unsigned s, rlen, bits;
	const struct fib6_node *k;
	uint32_t v;

	if (npfx || __builtin_popcountll(rec->vec) != 1)
		return *rec;
	s = (unsigned)__builtin_ctzll(rec->vec);
	k = &fib->nodes[rec->base1];
	if (fib6_node_is_skip(k) && k->leaf[0] == def) {
		unsigned nb = FIB6_STRIDE + k->leaf[2];
		bool term = k->base1 & FIB6_SKIP_TERM;

		if (nb <= (term ? FIB6_SKIP_BITS : FIB6_SKIP_BITS - 2))
			return skip_rec(def, s << k->leaf[2] | k->leaf[1], nb, k->base1);
	} else if (leaf_single(k, def, &rlen, &bits, &v)) {
		return skip_rec(def, s << rlen | bits, FIB6_STRIDE + rlen, FIB6_SKIP_TERM | v);
	}
	return skip_rec(def, s, FIB6_STRIDE, rec->base1);
}

/*
 * Children first, into `kids`; the empty ones are dropped. A child that did
 * not change and inherits what it did is copied from the published array,
 * without touching its control node: a path copy stays O(depth) misses.
 * Their count, or -errno.
 */
static int build_kids(struct fib6 *fib, struct fib6_cnode *cn, uint32_t def, bool repaint,
                      const uint32_t *val, struct fib6_node *kids, uint64_t *vec)
{
	uint64_t m = cn->vec;
	int nk = 0, rc;

	*vec = 0;
	for (unsigned k = 0; m; k++, m &= m - 1) {
		unsigned slot = (unsigned)__builtin_ctzll(m);
		struct fib6_cnode *c;
		uint32_t kdef;
		bool kempty;

		if (!repaint && !(cn->dirty_kids >> slot & 1)) {
			kids[nk++] = fib->nodes[cn->pub.base1 +
			                        (unsigned)__builtin_popcountll(
			                            cn->pub.vec & ((2ull << slot) - 1)) -
			                        1];
			*vec |= 1ull << slot;
			continue;
		}
		c = cn->kid[k];
		/* Own values unchanged: each child inherits what it did. */
		kdef = repaint ? val[slot] : c->built ? c->pub_def : slot_value(cn, def, slot);
		rc = build(fib, c, kdef, &kids[nk], &kempty);
		if (rc == 0 && kempty) {
			rc = gone_push(fib, c, cn, slot);
		} else if (rc == 0) {
			*vec |= 1ull << slot;
			nk++;
		}
		if (rc < 0)
			return rc;
	}
	return nk;
}

/* The leaves of a node whose values or child slots changed: runs of the non-child slots. */
static int build_leaves(struct fib6 *fib, const uint32_t *val, uint64_t vec, struct fib6_stage *st)
{
	uint32_t runs[FIB6_FANOUT], b0;
	unsigned nl = 0;

	/* Child slots are "don't care" for the leaves: runs continue across them. */
	for (unsigned slot = 0; slot < FIB6_FANOUT; slot++) {
		if (vec >> slot & 1)
			continue;
		if (nl == 0 || val[slot] != runs[nl - 1]) {
			st->rec.leafvec |= 1ull << slot;
			runs[nl++] = val[slot];
		}
	}
	if (nl <= FIB6_INLINE_MAX) {
		memcpy(st->rec.leaf, runs, nl * sizeof(*runs));
	} else {
		if ((b0 = fib6_pool_alloc(&fib->lp, nl)) == FIB6_NONE)
			return -ENOSPC;
		memcpy(&fib->leaves[b0], runs, nl * sizeof(*runs));
		st->rec.leaf[0] = b0;
	}
	st->nleaves = (uint8_t)nl;
	st->new_leaves = true; /* only now has it anything to give back */
	return 0;
}

/*
 * The record of `cn` inheriting `def`, into *out: the published one when
 * nothing changed, else a staged rebuild. *empty: no prefix and no child
 * left (the caller drops it).
 */
static int build(struct fib6 *fib, struct fib6_cnode *cn, uint32_t def, struct fib6_node *out,
                 bool *empty)
{
	struct fib6_node kids[FIB6_FANOUT];
	uint32_t val[FIB6_FANOUT];
	bool repaint = !cn->built || (cn->dirty & FIB6_DIRTY_PFX) || cn->pub_def != def;
	struct fib6_stage *st;
	uint64_t vec;
	int nk, rc;

	*empty = false;
	if (!repaint && !cn->dirty_kids) {
		*out = reader_form(fib, &cn->pub, cn->npfx, def);
		return 0;
	}
	if (repaint)
		paint(cn, def, val);
	nk = build_kids(fib, cn, def, repaint, val, kids, &vec);
	if (nk < 0)
		return nk;
	if (nk == 0 && cn->npfx == 0) {
		*empty = true;
		return 0;
	}
	if (FIB6_VEC_RESERVE(fib->stage, 1) < 0)
		return -ENOMEM;
	st = &fib->stage.v[fib->stage.n++];
	*st = (struct fib6_stage){.cn = cn, .rec = {.vec = vec, .base1 = FIB6_NONE}, .def = def};
	st->nkids = (uint8_t)nk;
	if (nk) {
		if ((st->rec.base1 = fib6_pool_alloc(&fib->np, (unsigned)nk)) == FIB6_NONE)
			return -ENOSPC;
		memcpy(&fib->nodes[st->rec.base1], kids, (size_t)nk * sizeof(*kids));
	}
	/* Same values and no child slot turned back into a leaf: keep the published leaves. */
	if (!repaint && !(cn->pub.vec & ~vec)) {
		st->rec.leafvec = cn->pub.leafvec;
		memcpy(st->rec.leaf, cn->pub.leaf, sizeof(st->rec.leaf));
		st->nleaves = cn->pub_nleaves;
	} else {
		if (!repaint)
			paint(cn, def, val);
		if ((rc = build_leaves(fib, val, vec, st)) < 0)
			return rc;
	}
	*out = reader_form(fib, &st->rec, cn->npfx, def);
	return 0;
}

/* Give back what a failed update took: nothing of it was published. */
static void stage_abort(struct fib6 *fib)
{
	for (uint32_t i = 0; i < fib->stage.n; i++) {
		const struct fib6_stage *st = &fib->stage.v[i];

		if (st->rec.base1 != FIB6_NONE)
			fib6_pool_free(&fib->np, st->rec.base1, st->nkids);
		if (st->new_leaves && st->nleaves > FIB6_INLINE_MAX)
			fib6_pool_free(&fib->lp, st->rec.leaf[0], st->nleaves);
	}
	for (uint32_t i = 0; i < fib->pubs.n; i++)
		fib6_pool_free(&fib->np, fib->pubs.v[i].self, 1);
	fib->stage.n = fib->pubs.n = fib->gone.n = 0;
}

static void retire_arrays(struct fib6 *fib, const struct fib6_cnode *cn, bool leaves)
{
	if (!cn->built)
		return;
	fib6_retire(fib, cn->pub.base1, cn->pub_nkids, false);
	if (leaves && cn->pub_nleaves > FIB6_INLINE_MAX)
		fib6_retire(fib, cn->pub.leaf[0], cn->pub_nleaves, true);
}

static void stage_apply(struct fib6 *fib)
{
	for (uint32_t i = 0; i < fib->stage.n; i++) {
		const struct fib6_stage *st = &fib->stage.v[i];
		struct fib6_cnode *cn = st->cn;

		retire_arrays(fib, cn, st->new_leaves);
		cn->pub = st->rec;
		cn->pub_def = st->def;
		cn->pub_nkids = st->nkids;
		cn->pub_nleaves = st->nleaves;
		cn->built = true;
		cn->dirty = 0;
		cn->dirty_kids = 0;
	}
	fib->stage.n = 0;
}

/* The empty nodes go (children were listed before their parents). */
static void gone_apply(struct fib6 *fib)
{
	for (uint32_t i = 0; i < fib->gone.n; i++) {
		const struct fib6_gone *g = &fib->gone.v[i];

		retire_arrays(fib, g->cn, true);
		if (g->cn->self != FIB6_NONE)
			fib6_retire(fib, g->cn->self, 1, false);
		if (g->parent)
			fib6_kid_remove(g->parent, g->slot);
		else
			fib->root[g->slot] = NULL;
		fib6_cnode_free(fib, g->cn);
	}
	fib->gone.n = 0;
}

/* Stage the root of one slot; a changed one gets a new 1-record array in pubs. */
static int stage_slot(struct fib6 *fib, uint32_t slot)
{
	struct fib6_cnode *r = fib->root[slot];
	uint32_t before = fib->stage.n, self;
	struct fib6_node rec;
	bool empty;
	int rc;

	if (!r)
		return 0;
	rc = build(fib, r, fib->dirval[slot], &rec, &empty);
	if (rc < 0 || empty)
		return rc < 0 ? rc : gone_push(fib, r, NULL, slot);
	if (fib->stage.n == before)
		return 0; /* unchanged */
	if (FIB6_VEC_RESERVE(fib->pubs, 1) < 0)
		return -ENOMEM;
	if ((self = fib6_pool_alloc(&fib->np, 1)) == FIB6_NONE)
		return -ENOSPC;
	fib->nodes[self] = rec;
	fib->pubs.v[fib->pubs.n++] = (struct fib6_publish){slot, self};
	return 0;
}

int fib6_commit_range(struct fib6 *fib, uint32_t first, uint32_t count)
{
	int rc = 0;

	fib->stage.n = fib->pubs.n = fib->gone.n = 0;
	for (uint32_t slot = first; slot < first + count && rc == 0; slot++)
		rc = stage_slot(fib, slot);
	/* Room to retire everything replaced, so nothing fails once publishing starts. */
	if (rc == 0)
		rc = FIB6_VEC_RESERVE(fib->ret, 2 * fib->stage.n + fib->pubs.n + 3 * fib->gone.n);
	if (rc < 0) {
		stage_abort(fib);
		return rc;
	}
	stage_apply(fib);
	for (uint32_t i = 0; i < fib->pubs.n; i++) {
		struct fib6_cnode *r = fib->root[fib->pubs.v[i].slot];

		dir_store(fib, fib->pubs.v[i].slot, FIB6_NODE | fib->pubs.v[i].self);
		if (r->self != FIB6_NONE)
			fib6_retire(fib, r->self, 1, false);
		r->self = fib->pubs.v[i].self;
	}
	fib->pubs.n = 0;
	gone_apply(fib);
	for (uint32_t slot = first; slot < first + count; slot++)
		if (!fib->root[slot])
			dir_store(fib, slot, fib->dirval[slot]);
	return 0;
}

int fib6_mark_dirty(struct fib6 *fib, uint32_t slot)
{
	uint64_t bit = 1ull << (slot & 63);

	if (fib->dirty_map[slot >> 6] & bit)
		return 0;
	if (FIB6_VEC_RESERVE(fib->dirty, 1) < 0)
		return -ENOMEM;
	fib->dirty_map[slot >> 6] |= bit;
	fib->dirty.v[fib->dirty.n++] = slot;
	return 0;
}

int fib6_commit_dirty(struct fib6 *fib)
{
	while (fib->dirty.n) {
		uint32_t slot = fib->dirty.v[fib->dirty.n - 1];
		int rc = fib6_commit_range(fib, slot, 1);

		if (rc < 0)
			return rc;
		fib->dirty_map[slot >> 6] &= ~(1ull << (slot & 63));
		fib->dirty.n--;
	}
	__atomic_store_n(&fib->dflt, fib->dflt_ctl, __ATOMIC_RELEASE);
	return 0;
}
