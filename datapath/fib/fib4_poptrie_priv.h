/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals shared by fib4_poptrie.c (API, argument checks, reservations)
 * and fib4_poptrie_update.c (the update algorithm). Control side only.
 *
 * Shadow trie: for every /18 slot that holds prefixes longer than /18, a
 * control-side node per 6-bit stride holds its 64 children uncompressed, as
 * DIR-24-8 holds its entries: e[i] is a value, or PT_EXT | child shadow node;
 * d[i] is the length of the prefix that owns the entry (for a child node: of
 * the prefix covering the child's whole range, its "base"). Invariant, as in
 * fib4.c: every entry below a child has a depth > the child's offset, or the
 * child's base depth. An update paints entries whose depth allows it, then
 * re-encodes the touched shadow nodes into the compressed read side.
 *
 * A shadow node whose 64 children are all leaves of one value is published
 * as that single leaf in its parent (or in direct[]), so the read side never
 * holds a node it does not need.
 */
#ifndef CELLGATE_FIB4_POPTRIE_PRIV_H
#define CELLGATE_FIB4_POPTRIE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/fib/fib4_index.h"
#include "datapath/fib/fib4_poptrie.h"
#include "datapath/fib/fib4_poptrie_pool.h"

#define PT_DIRECT_SLOTS (1u << FIB4_POPTRIE_DIRECT)
#define PT_EXT          FIB4_POPTRIE_EXT
#define PT_NONE         0xffffffffu
#define PT_FANOUT       64u
#define PT_NODE_WORDS   FIB4_POPTRIE_NODE_WORDS
/* Nodes one update may create: one per level below direct[] (/24, /30, /32). */
#define PT_LEVELS 3u

/* 384 bytes, six cache lines: the header every update reads first, then d[], then e[]. */
struct pt_snode {
	struct fib4_poptrie_node rn; /* what the read side holds, when published as a node */
	uint64_t own[2];             /* prefixes of its stride: bit 2^j - 2 + position, /off+j */
	uint32_t leaf;               /* what it holds instead, when published as a leaf */
	uint32_t parent;             /* shadow node, or PT_NONE for a /18 slot's node */
	uint32_t pos;                /* index in the parent, or the direct[] slot */
	uint32_t subtree;            /* shadow nodes below and including this one */
	uint32_t base;               /* value of the prefix covering the whole node (0: none) */
	uint8_t refs;                /* prefixes of its stride (<= 126) + child nodes (<= 64) */
	uint8_t off;                 /* first address bit it indexes: 18, 24 or 30 */
	uint8_t state;               /* enum pt_state */
	uint8_t pad;
	uint8_t d[PT_FANOUT];
	uint32_t e[PT_FANOUT];
} __attribute__((aligned(64)));

enum pt_state {
	PT_UNPUBLISHED = 0, /* just created, nothing on the read side yet */
	PT_AS_NODE,
	PT_AS_LEAF,
};

struct fib4_poptrie {
	struct fib4_poptrie_dir dir; /* first: the lookup casts the fib to it */
	uint32_t *direct;            /* writable alias of dir.direct */
	uint32_t *sdir;              /* shadow of direct[]: value or PT_EXT | shadow node */
	uint8_t *sdepth;             /* depth of each direct[] slot (base depth for nodes) */
	struct pt_snode *sn;
	uint32_t nsn, sn_cap, sn_free, sn_live;
	struct pt_pool pool;      /* words[]: nodes and leaves */
	uint64_t nnodes, nleaves; /* published */
	struct fib4_index ix;
	bool popcnt; /* x86-64: the CPU has POPCNT, use the bulk lookup built for it */
};

#if defined(__x86_64__) && defined(__GNUC__)
#define PT_X86_POPCNT 1
#else
#define PT_X86_POPCNT 0
#endif

/* One update, as the painter sees it: entries with lo <= depth <= hi get value/depth. */
struct pt_op {
	uint32_t prefix;
	uint8_t len;
	uint8_t lo, hi;
	uint8_t depth;
	uint32_t value;
	int8_t refs; /* +1: new prefix, -1: prefix removed, 0: value replaced */
};

/* Start loading what an update of prefix will read (its /18 slot's shadow node). */
void pt_update_prefetch(const struct fib4_poptrie *pt, uint32_t prefix);

/* Shadow nodes and pool space that applying op may need at most. */
uint64_t pt_update_worst_nodes(const struct fib4_poptrie *pt, const struct pt_op *op);

/*
 * For an installed prefix longer than /18: the next shorter installed prefix
 * covering it (value, 0 if none, and length), from the shadow trie: a shorter
 * prefix in the same stride, else the node's base. One index read at most.
 */
uint32_t pt_update_cover(const struct fib4_poptrie *pt, uint32_t prefix, uint8_t len,
                         uint8_t *cover_len);

/* Apply op; every allocation it makes must have been reserved. */
void pt_update_apply(struct fib4_poptrie *pt, const struct pt_op *op);

#endif
