/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The update algorithm of fib4_poptrie: paint the shadow trie, then re-encode
 * the touched shadow nodes bottom up (children before parents), so that a
 * parent is only ever written pointing at complete children, and finally
 * publish each changed /18 subtree with one release store into direct[].
 *
 * Re-encoding a node writes new blocks for what changed shape; a reader that
 * is still in the old blocks sees the old subtree, whole. The one exception
 * is a node whose children keep their kinds and whose runs of equal leaves
 * keep their boundaries: its changed leaves are stored in place, each a
 * single 32-bit word, so a reader sees the old or the new value of any one
 * address (as DIR-24-8 readers do), and every position still maps to the
 * same leaf.
 */
#include <string.h>

#include "datapath/fib/fib4_poptrie_priv.h"

enum {
	PT_CHANGED = 1, /* the node's published form changed: its parent must be rewritten */
	PT_EMPTY = 2,   /* no prefixes and no children left: the parent drops it */
};

static unsigned pt_popcount(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

static uint32_t sn_create(struct fib4_poptrie *pt, uint32_t parent, uint32_t pos, uint8_t off,
                          uint32_t value, uint8_t depth)
{
	uint32_t id = pt->sn_free;
	struct pt_snode *n;

	if (id != PT_NONE)
		pt->sn_free = pt->sn[id].e[0];
	else
		id = pt->nsn++;
	n = &pt->sn[id];
	for (unsigned i = 0; i < PT_FANOUT; i++)
		n->e[i] = value;
	memset(n->d, depth, sizeof(n->d));
	n->rn = (struct fib4_poptrie_node){0};
	n->leaf = 0;
	n->parent = parent;
	n->pos = pos;
	n->subtree = 1;
	n->base = value;
	n->own[0] = n->own[1] = 0;
	n->refs = 0;
	n->off = off;
	n->state = PT_UNPUBLISHED;
	for (uint32_t a = parent; a != PT_NONE; a = pt->sn[a].parent)
		pt->sn[a].subtree++;
	if (parent != PT_NONE)
		pt->sn[parent].refs++;
	pt->sn_live++;
	return id;
}

static struct fib4_poptrie_node *node_at(struct fib4_poptrie *pt, uint32_t i)
{
	return (struct fib4_poptrie_node *)(void *)(pt->pool.base + i);
}

/* Park the blocks of a node published as a node (readers may still be in them). */
static void sn_drop_blocks(struct fib4_poptrie *pt, struct pt_snode *n)
{
	unsigned nl;

	if (n->state != PT_AS_NODE)
		return;
	nl = pt_popcount(n->rn.leafvec);
	if (n->rn.vector)
		pt_pool_free(&pt->pool, n->rn.base1, PT_NODE_WORDS * pt_popcount(n->rn.vector));
	if (n->parent == PT_NONE) /* its block: the node, then its leaves */
		pt_pool_free(&pt->pool, n->rn.base0 - PT_NODE_WORDS, PT_NODE_WORDS + nl);
	else if (nl)
		pt_pool_free(&pt->pool, n->rn.base0, nl);
	pt->nnodes--;
	pt->nleaves -= nl;
}

/* A node with no prefixes and no children left; its parent has stopped pointing at it. */
static void sn_destroy(struct fib4_poptrie *pt, uint32_t id)
{
	struct pt_snode *n = &pt->sn[id];

	sn_drop_blocks(pt, n);
	for (uint32_t a = n->parent; a != PT_NONE; a = pt->sn[a].parent)
		pt->sn[a].subtree--;
	if (n->parent != PT_NONE)
		pt->sn[n->parent].refs--;
	n->state = PT_UNPUBLISHED;
	n->e[0] = pt->sn_free;
	pt->sn_free = id;
	pt->sn_live--;
}

/* The compressed form of a shadow node, as the read side must hold it. */
struct pt_enc {
	uint64_t vector, leafvec;
	unsigned nleaves, nkids;
	uint32_t leaf[PT_FANOUT];
	uint32_t kid[PT_FANOUT];
};

/* No child nodes (most nodes): runs of equal neighbours, found without a branch per entry. */
static bool sn_scan_flat(const struct pt_snode *n, struct pt_enc *x)
{
	uint32_t ext = 0, k = 1;

	for (unsigned i = 0; i < PT_FANOUT; i++)
		ext |= n->e[i];
	if (ext & PT_EXT)
		return false;
	x->vector = 0;
	x->leafvec = 1;
	x->leaf[0] = n->e[0];
	for (unsigned i = 1; i < PT_FANOUT; i++) {
		uint32_t starts = n->e[i] != n->e[i - 1];

		x->leafvec |= (uint64_t)starts << i;
		x->leaf[k] = n->e[i];
		k += starts;
	}
	x->nleaves = k;
	x->nkids = 0;
	return true;
}

static void sn_scan(const struct fib4_poptrie *pt, const struct pt_snode *n, struct pt_enc *x)
{
	if (sn_scan_flat(n, x))
		return;
	x->vector = x->leafvec = 0;
	x->nleaves = x->nkids = 0;
	for (unsigned i = 0; i < PT_FANOUT; i++) {
		uint32_t e = n->e[i];

		if (e & PT_EXT) {
			const struct pt_snode *c = &pt->sn[e & ~PT_EXT];

			if (c->state == PT_AS_NODE) {
				x->vector |= 1ull << i;
				x->kid[x->nkids++] = e & ~PT_EXT;
				continue;
			}
			e = c->leaf;
		}
		/* A run goes on across child nodes: the lookup ranks leafvec bits only. */
		if (!x->nleaves || x->leaf[x->nleaves - 1] != e) {
			x->leafvec |= 1ull << i;
			x->leaf[x->nleaves++] = e;
		}
	}
}

static void leaves_rewrite(struct fib4_poptrie *pt, uint32_t at, const uint32_t *v, unsigned n)
{
	uint32_t *l = pt_pool_at(&pt->pool, at);

	for (unsigned k = 0; k < n; k++) {
		if (l[k] != v[k])
			__atomic_store_n(&l[k], v[k], __ATOMIC_RELEASE);
	}
}

static uint32_t kids_write(struct fib4_poptrie *pt, const uint32_t *kid, unsigned n)
{
	uint32_t at = pt_pool_alloc(&pt->pool, PT_NODE_WORDS * n);

	/* Fresh block: no reader can reach it before the release that publishes it. */
	for (unsigned k = 0; k < n; k++)
		*node_at(pt, at + PT_NODE_WORDS * k) = pt->sn[kid[k]].rn;
	return at;
}

/* A /18 slot's node: one block, the node then its leaves, switched to with one store. */
static void root_write(struct fib4_poptrie *pt, struct pt_snode *n, struct fib4_poptrie_node *rn,
                       const struct pt_enc *x)
{
	uint32_t at = pt_pool_alloc(&pt->pool, PT_NODE_WORDS + x->nleaves);

	rn->base0 = at + PT_NODE_WORDS;
	rn->leafvec = x->leafvec;
	memcpy(pt_pool_at(&pt->pool, rn->base0), x->leaf, x->nleaves * sizeof(uint32_t));
	*node_at(pt, at) = *rn;
	__atomic_store_n(&pt->direct[n->pos], PT_EXT | at, __ATOMIC_RELEASE);
	if (n->state == PT_AS_NODE)
		pt_pool_free(&pt->pool, n->rn.base0 - PT_NODE_WORDS,
		             PT_NODE_WORDS + pt_popcount(n->rn.leafvec));
}

/* Published as one leaf: in the parent, or (a /18 slot's node) straight into direct[]. */
static int sn_encode_leaf(struct fib4_poptrie *pt, struct pt_snode *n, uint32_t value)
{
	bool changed = n->state != PT_AS_LEAF || n->leaf != value;

	sn_drop_blocks(pt, n);
	n->state = PT_AS_LEAF;
	n->leaf = value;
	if (changed && n->parent == PT_NONE)
		__atomic_store_n(&pt->direct[n->pos], value, __ATOMIC_RELEASE);
	return changed ? PT_CHANGED : 0;
}

/* Bring the read side of node id up to date. kids: a child node's own form changed. */
static int sn_encode(struct fib4_poptrie *pt, uint32_t id, bool kids)
{
	struct pt_snode *n = &pt->sn[id];
	bool was_node = n->state == PT_AS_NODE, in_place, changed;
	unsigned old_nl = was_node ? pt_popcount(n->rn.leafvec) : 0;
	struct fib4_poptrie_node rn;
	struct pt_enc x;

	sn_scan(pt, n, &x);
	if (x.vector == 0 && x.nleaves == 1)
		return sn_encode_leaf(pt, n, x.leaf[0]);
	rn = was_node ? n->rn : (struct fib4_poptrie_node){0};
	/* Same kinds at the same places and same run starts: every position keeps its leaf. */
	in_place = was_node && x.vector == rn.vector && x.leafvec == rn.leafvec;
	if (in_place)
		leaves_rewrite(pt, rn.base0, x.leaf, x.nleaves);
	if (!was_node || x.vector != rn.vector || kids) {
		if (rn.vector)
			pt_pool_free(&pt->pool, rn.base1, PT_NODE_WORDS * pt_popcount(rn.vector));
		rn.base1 = x.nkids ? kids_write(pt, x.kid, x.nkids) : 0;
		rn.vector = x.vector;
	}
	changed = !was_node || !in_place || memcmp(&rn, &n->rn, sizeof(rn)) != 0;
	if (changed && n->parent == PT_NONE) {
		root_write(pt, n, &rn, &x);
	} else if (!in_place) {
		if (old_nl)
			pt_pool_free(&pt->pool, rn.base0, old_nl);
		rn.base0 = x.nleaves ? pt_pool_alloc(&pt->pool, x.nleaves) : 0;
		rn.leafvec = x.leafvec;
		memcpy(pt_pool_at(&pt->pool, rn.base0), x.leaf, x.nleaves * sizeof(uint32_t));
	}
	pt->nnodes += !was_node;
	pt->nleaves = pt->nleaves + x.nleaves - old_nl;
	n->rn = rn;
	n->state = PT_AS_NODE;
	return changed ? PT_CHANGED : 0;
}

/* Where prefix/len (len in the node's stride) is in the node's own[] bitmap. */
static unsigned own_bit(const struct pt_snode *n, uint32_t prefix, uint8_t len)
{
	unsigned j = len - n->off;

	return (1u << j) - 2 + ((prefix << n->off) >> (32 - j));
}

static int sn_fill(struct fib4_poptrie *pt, uint32_t id, const struct pt_op *op);

/* Paint entries [first, first + count) of node id; true if any was touched. */
static bool sn_paint(struct fib4_poptrie *pt, uint32_t id, unsigned first, unsigned count,
                     const struct pt_op *op, bool *kids)
{
	struct pt_snode *n = &pt->sn[id];
	bool touched = false;

	for (unsigned i = first; i < first + count; i++) {
		if (n->d[i] < op->lo || n->d[i] > op->hi)
			continue;
		n->d[i] = op->depth;
		touched = true;
		if (n->e[i] & PT_EXT) {
			uint32_t c = n->e[i] & ~PT_EXT;

			/* By the invariant only the child's base entries can match. */
			pt->sn[c].base = op->value;
			if ((sn_fill(pt, c, op) & PT_CHANGED) && pt->sn[c].state == PT_AS_NODE)
				*kids = true;
		} else {
			n->e[i] = op->value;
		}
	}
	return touched;
}

static int sn_fill(struct fib4_poptrie *pt, uint32_t id, const struct pt_op *op)
{
	bool kids = false;

	return sn_paint(pt, id, 0, PT_FANOUT, op, &kids) ? sn_encode(pt, id, kids) : 0;
}

/* op reaches below node id: go down (creating the node on the way for an insert). */
static int sn_apply(struct fib4_poptrie *pt, uint32_t id, const struct pt_op *op)
{
	struct pt_snode *n = &pt->sn[id];
	unsigned pos = (op->prefix << n->off) >> 26;
	bool kids = false, touched;

	if (op->len <= n->off + 6) {
		unsigned b = own_bit(n, op->prefix, op->len);

		n->refs = (uint8_t)(n->refs + op->refs);
		if (op->refs > 0)
			n->own[b / 64] |= 1ull << (b % 64);
		else if (op->refs < 0)
			n->own[b / 64] &= ~(1ull << (b % 64));
		touched = sn_paint(pt, id, pos, 1u << (n->off + 6 - op->len), op, &kids);
	} else {
		uint32_t c;
		int cf;

		if (!(n->e[pos] & PT_EXT))
			n->e[pos] = PT_EXT | sn_create(pt, id, pos, (uint8_t)(n->off + 6),
			                               n->e[pos], n->d[pos]);
		c = n->e[pos] & ~PT_EXT;
		cf = sn_apply(pt, c, op);
		if (cf & PT_EMPTY) {
			/* All its entries hold the base again: that is our entry. */
			n->e[pos] = pt->sn[c].e[0];
			sn_destroy(pt, c);
			touched = true;
		} else {
			touched = cf & PT_CHANGED;
			kids = touched && pt->sn[c].state == PT_AS_NODE;
		}
	}
	if (n->refs == 0)
		return PT_EMPTY;
	return touched ? sn_encode(pt, id, kids) : 0;
}

static void root_detach(struct fib4_poptrie *pt, uint32_t slot, uint32_t id)
{
	uint32_t value = pt->sn[id].e[0];

	pt->sdir[slot] = value;
	__atomic_store_n(&pt->direct[slot], value, __ATOMIC_RELEASE);
	sn_destroy(pt, id);
}

static void direct_paint(struct fib4_poptrie *pt, uint32_t slot, const struct pt_op *op)
{
	if (pt->sdepth[slot] < op->lo || pt->sdepth[slot] > op->hi)
		return;
	pt->sdepth[slot] = op->depth;
	if (pt->sdir[slot] & PT_EXT) {
		uint32_t id = pt->sdir[slot] & ~PT_EXT;

		/* The slot's node republishes itself if it changed. */
		pt->sn[id].base = op->value;
		sn_fill(pt, id, op);
	} else {
		pt->sdir[slot] = op->value;
		__atomic_store_n(&pt->direct[slot], op->value, __ATOMIC_RELEASE);
	}
}

void pt_update_apply(struct fib4_poptrie *pt, const struct pt_op *op)
{
	uint32_t slot = op->prefix >> (32 - FIB4_POPTRIE_DIRECT), id;
	int flags;

	if (op->len <= FIB4_POPTRIE_DIRECT) {
		uint32_t end = slot + (1u << (FIB4_POPTRIE_DIRECT - op->len));

		for (uint32_t s = slot; s < end; s++)
			direct_paint(pt, s, op);
		return;
	}
	if (!(pt->sdir[slot] & PT_EXT))
		pt->sdir[slot] = PT_EXT | sn_create(pt, PT_NONE, slot, FIB4_POPTRIE_DIRECT,
		                                    pt->sdir[slot], pt->sdepth[slot]);
	id = pt->sdir[slot] & ~PT_EXT;
	flags = sn_apply(pt, id, op);
	if (flags & PT_EMPTY)
		root_detach(pt, slot, id);
}

uint64_t pt_update_worst_nodes(const struct fib4_poptrie *pt, const struct pt_op *op)
{
	uint32_t slot = op->prefix >> (32 - FIB4_POPTRIE_DIRECT);
	uint64_t sum = 0;

	if (op->len > FIB4_POPTRIE_DIRECT) {
		/* The slot's subtree, and the nodes the path may create. */
		if (pt->sdir[slot] & PT_EXT)
			sum = pt->sn[pt->sdir[slot] & ~PT_EXT].subtree;
		return sum + PT_LEVELS;
	}
	for (uint32_t s = slot; s < slot + (1u << (FIB4_POPTRIE_DIRECT - op->len)); s++) {
		if ((pt->sdir[s] & PT_EXT) && pt->sdepth[s] >= op->lo && pt->sdepth[s] <= op->hi)
			sum += pt->sn[pt->sdir[s] & ~PT_EXT].subtree;
	}
	return sum;
}

uint32_t pt_update_cover(const struct fib4_poptrie *pt, uint32_t prefix, uint8_t len,
                         uint8_t *cover_len)
{
	uint32_t slot = prefix >> (32 - FIB4_POPTRIE_DIRECT);
	const struct pt_snode *n = &pt->sn[pt->sdir[slot] & ~PT_EXT];

	while (len > n->off + 6)
		n = &pt->sn[n->e[(prefix << n->off) >> 26] & ~PT_EXT];
	for (uint8_t c = (uint8_t)(len - 1); c > n->off; c--) {
		uint32_t p = prefix & (~0u << (32 - c));
		unsigned b = own_bit(n, p, c);

		if (n->own[b / 64] >> (b % 64) & 1) {
			*cover_len = c;
			return fib4_index_get(&pt->ix, p, c);
		}
	}
	/* The prefix covering the node's range: its length is the parent's entry depth. */
	*cover_len = n->parent == PT_NONE ? pt->sdepth[n->pos] : pt->sn[n->parent].d[n->pos];
	return n->base;
}

void pt_update_prefetch(const struct fib4_poptrie *pt, uint32_t prefix)
{
	uint32_t e = pt->sdir[prefix >> (32 - FIB4_POPTRIE_DIRECT)];

	if (e & PT_EXT) {
		const char *n = (const char *)&pt->sn[e & ~PT_EXT];

		for (size_t o = 0; o < sizeof(struct pt_snode); o += 64)
			__builtin_prefetch(n + o, 1);
	}
}
