/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FIB6 internals shared by fib6.c (lookups, life cycle), fib6_update.c
 * (prefixes and the API), fib6_build.c (reader nodes built and published)
 * and fib6_pool.c (the reader-side arrays). See fib6.h for the structure.
 */
#ifndef CELLGATE_FIB6_PRIV_H
#define CELLGATE_FIB6_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datapath/fib/fib6.h"

/* Direct-pointing bits at the top; a build with -DFIB6_DIR_BITS=N measures others. */
#ifndef FIB6_DIR_BITS
#define FIB6_DIR_BITS 18
#endif
#define FIB6_DIR_SLOTS (1u << FIB6_DIR_BITS)
#define FIB6_STRIDE    6
#define FIB6_FANOUT    64
#define FIB6_NODE      0x80000000u /* dir entry: a node index, not a value */
#define FIB6_NONE      0xffffffffu /* no array / end of a free list */
/* Levels below the direct table: offsets FIB6_DIR_BITS, +6, ... up to bit 127. */
#define FIB6_LEVELS ((128 - FIB6_DIR_BITS + FIB6_STRIDE - 1) / FIB6_STRIDE)

__extension__ typedef unsigned __int128 fib6_u128;

/*
 * A reader node (poptrie, Asai & Ohara, SIGCOMM 2015): 64 slots indexed by
 * the next 6 bits. Slot s is a child if bit s of vec is set: the
 * popcount(vec & bits 0..s)-th record from nodes[base1]. Otherwise its value
 * is the r-th, r = popcount(leafvec & bits 0..s), of the node's leaf values:
 * leafvec marks where a run of equal values starts among the non-child
 * slots, so a node stores one value per run, not per slot. Up to
 * FIB6_INLINE_MAX runs are stored in the record itself (most nodes: no extra
 * load); more live in leaves[leaf[0]...]. Values are leaf-pushed: a slot no
 * prefix of this node covers holds the value inherited from above.
 * 32 bytes: two records per cache line, none across two.
 */
#define FIB6_INLINE 3   /* room for leaf values in the record */
#ifndef FIB6_INLINE_MAX /* -DFIB6_INLINE_MAX=0 measures the record without them */
#define FIB6_INLINE_MAX FIB6_INLINE
#endif

struct fib6_node {
	uint64_t vec;
	uint64_t leafvec;
	uint32_t base1;
	uint32_t leaf[FIB6_INLINE];
};

_Static_assert(sizeof(struct fib6_node) == 32, "fib6_node: 32 bytes");

/*
 * Path compression. A node with one child and no prefix of its own holds
 * nothing but the way down, and the Internet's table is full of them: a /48
 * alone under its /32 (or its /18 slot) is a chain of single-child nodes.
 * Readers see such a node as a skip record instead: vec = leafvec = 0 (a
 * real node always has a leaf run unless all 64 slots are children, so
 * readers only test for it where they would read a leaf), leaf[2] = how
 * many key bits it stands for (1..FIB6_SKIP_BITS), leaf[1] = those bits,
 * leaf[0] = the value when the key differs (what the node inherits, which
 * all its leaves hold). base1 is where the walk goes on (a node index; the
 * skipped bits are then a multiple of the stride), or FIB6_SKIP_TERM | the
 * value where the chain ends in a node holding one prefix (or one value)
 * and nothing else: the walk stops there. A skip whose child is a skip
 * merges with it up to FIB6_SKIP_BITS bits, so a chain costs one load.
 * The control side keeps the uncompressed record (fib6_cnode.pub); only
 * what goes into the parent's array (or a root's own record) is the skip.
 */
#define FIB6_SKIP_TERM 0x80000000u
#define FIB6_SKIP_BITS 32 /* leaf[1] holds them; a skip that goes on: 30 (5 strides) */

static inline int fib6_node_is_skip(const struct fib6_node *n)
{
	return (n->vec | n->leafvec) == 0;
}

/* Arrays of 1..64 elements, exact-size free lists, index-addressed (readers hold indices). */
struct fib6_pool {
	uint8_t *base;
	size_t elem;   /* bytes per element */
	uint32_t cap;  /* elements mapped (virtual; pages fault in as the top grows) */
	uint32_t top;  /* high-water mark */
	uint32_t used; /* in live arrays */
	uint32_t pending;
	uint32_t head[FIB6_FANOUT + 1]; /* free list per array size */
};

struct fib6_retired {
	uint32_t idx;
	uint8_t n;
	uint8_t leaves; /* 0: node pool, 1: leaf pool */
};

/* A prefix living in a node: its rlen (1..6) bits below the node's offset. */
struct fib6_lpfx {
	uint32_t value;
	uint8_t rlen;
	uint8_t bits;
};

#define FIB6_DIRTY_PFX 0x01 /* its own prefixes changed: leaves to repaint */

/*
 * Control-side twin of a reader node: the children and the prefixes that live
 * here (what the node was built from), and what readers see of it now.
 */
struct fib6_cnode {
	uint64_t vec;            /* slots with a child */
	uint64_t dirty_kids;     /* slots whose child changed below: the others are copied */
	struct fib6_cnode **kid; /* popcount(vec), in slot order */
	struct fib6_lpfx *pfx;   /* npfx, sorted by (rlen, bits) */
	uint8_t npfx, pfx_cap, kid_cap;
	uint8_t dirty; /* FIB6_DIRTY_PFX since it was built */
	bool built;    /* pub below is live */
	uint8_t pub_nkids, pub_nleaves;
	uint32_t pub_def;     /* the inherited value its leaves were built with */
	uint32_t self;        /* a root's own 1-record array (dir -> self), else unused */
	struct fib6_node pub; /* the record readers see */
};

/* One node rebuilt by an update, applied only when the whole update fits. */
struct fib6_stage {
	struct fib6_cnode *cn;
	struct fib6_node rec;
	uint32_t def;
	uint8_t nkids, nleaves;
	bool new_leaves; /* leaves rebuilt (else the published ones are kept) */
};

/* A node found empty by a build: unlinked from `parent` (NULL: a root) once applied. */
struct fib6_gone {
	struct fib6_cnode *cn, *parent;
	uint32_t slot; /* in the parent, or the dir slot of a root */
};

struct fib6_publish {
	uint32_t slot;
	uint32_t self;
};

/* A growable array of T (the writer's scratch lists). */
#define FIB6_VEC(T)                                                                                \
	struct {                                                                                   \
		T *v;                                                                              \
		uint32_t n, cap;                                                                   \
	}

struct fib6 {
	/* Reader side. */
	uint32_t (*lookup)(const struct fib6 *fib, const uint8_t addr[16]);
	void (*bulk)(const struct fib6 *fib, const uint8_t *const addrs[], uint32_t *values,
	             unsigned n);
	uint32_t *dir;
	struct fib6_node *nodes;
	uint32_t *leaves;
	uint32_t dflt; /* the ::/0 route, read when a lookup finds 0 */

	/* Writer side. */
	struct fib6_pool np, lp;
	struct fib6_cnode **root; /* per dir slot */
	uint32_t *dirval;         /* longest /1../FIB6_DIR_BITS prefix covering the slot */
	uint8_t *dirdepth;        /* its length, 0 = none */
	uint32_t *short_val;      /* installed /1../FIB6_DIR_BITS: [(1 << len) + bits] */
	uint32_t dflt_ctl;        /* the ::/0 value, published with its batch */
	bool batch;               /* between fib6_batch_begin and a successful fib6_batch_end */
	uint64_t *dirty_map;      /* dir slots with changes not yet published */
	FIB6_VEC(uint32_t) dirty;
	FIB6_VEC(struct fib6_retired) ret; /* unlinked arrays waiting for fib6_reclaim */
	FIB6_VEC(struct fib6_stage) stage;
	FIB6_VEC(struct fib6_gone) gone;
	FIB6_VEC(struct fib6_publish) pubs;
	uint64_t routes_by_len[129];
	uint64_t cnodes;
	size_t cbytes; /* control-side heap: cnodes, their arrays */
};

/* Room for `need` elements in a FIB6_VEC: 0 or -ENOMEM. */
int fib6_vec_grow(void **v, uint32_t *cap, size_t elem, uint32_t need);
#define FIB6_VEC_RESERVE(vec, more)                                                                \
	fib6_vec_grow((void **)&(vec).v, &(vec).cap, sizeof(*(vec).v), (vec).n + (more))

static inline fib6_u128 fib6_key(const uint8_t a[16])
{
	fib6_u128 k = 0;

	for (int i = 0; i < 16; i++)
		k = k << 8 | a[i];
	return k;
}

static inline void fib6_key_store(fib6_u128 k, uint8_t a[16])
{
	for (int i = 15; i >= 0; i--) {
		a[i] = (uint8_t)k;
		k >>= 8;
	}
}

static inline fib6_u128 fib6_mask(unsigned len)
{
	return len ? ~(fib6_u128)0 << (128 - len) : 0;
}

static inline uint32_t fib6_slot_of(fib6_u128 key)
{
	return (uint32_t)(key >> (128 - FIB6_DIR_BITS));
}

/* fib6_pool.c */
int fib6_pool_init(struct fib6_pool *p, size_t elem, uint32_t cap);
void fib6_pool_fini(struct fib6_pool *p);
uint32_t fib6_pool_alloc(struct fib6_pool *p, unsigned n);                 /* FIB6_NONE when full */
void fib6_pool_free(struct fib6_pool *p, uint32_t idx, unsigned n);        /* never published */
void fib6_retire(struct fib6 *fib, uint32_t idx, unsigned n, bool leaves); /* room reserved */
size_t fib6_pool_bytes(const struct fib6_pool *p);
void *fib6_map(size_t bytes);
void fib6_unmap(void *p, size_t bytes);

/* fib6_build.c: publish the changes under dir slots (a range, or the dirty ones). */
int fib6_commit_range(struct fib6 *fib, uint32_t first, uint32_t count);
int fib6_commit_dirty(struct fib6 *fib);
int fib6_mark_dirty(struct fib6 *fib, uint32_t slot);

/* fib6_lookup.c: point lookup/bulk at the code this CPU runs best. */
void fib6_lookup_select(struct fib6 *fib);

/* fib6_update.c */
void fib6_cnode_free(struct fib6 *fib, struct fib6_cnode *cn);
void fib6_kid_remove(struct fib6_cnode *cn, unsigned slot);

#endif
