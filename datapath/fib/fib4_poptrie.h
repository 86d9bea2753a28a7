/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv4 longest-prefix-match FIB, compressed so that it stays in cache: a
 * multiway trie with population-count indexing and direct pointing, after
 * Asai and Ohara, "Poptrie: A Compressed Trie with Population Count for Fast
 * and Scalable Software IP Routing Table Lookup", SIGCOMM 2015. Why this and
 * not DXR range tables, and the measurements behind the parameters, are in
 * doc/FIB.md.
 *
 * Read side (what fib4_poptrie_lookup touches):
 *   direct[addr >> 14]: 2^18 entries. A value (0 = no route), or
 *     FIB4_POPTRIE_EXT | where the node for that /18 starts in words[].
 *   node: 64 children, indexed by the next 6 address bits (bits beyond /32
 *     read as 0). `vector` marks the children that are nodes: child i is the
 *     node at words[base1 + 6 * popcount(vector & (2^i - 1))]. The others are
 *     leaves, and runs of equal neighbouring leaves are stored once: `leafvec`
 *     marks where a run starts, and child i's value is
 *     words[base0 + popcount(leafvec & (2^(i+1) - 1)) - 1].
 *   Nodes and leaves share one array of words, so the node of a /18 (what
 *     most lookups below direct[] reach) is stored with its leaves right
 *     after it: usually one cache line, or two adjacent ones, for both.
 * So a lookup is one load for most addresses, and one node and one leaf per
 * 6 bits past /18 for the rest (three levels at most: /24, /30, /32).
 *
 * Same contract as fib4 (datapath/fib/fib4.h): values 1..FIB4_VALUE_MAX,
 * 0 = no route; one writer (the control thread), lock-free readers. Every
 * update is applied at once, rewriting only the nodes under the prefix:
 * changed nodes are written to fresh blocks, bottom up, and the new subtree is
 * published with one release store into direct[]; leaves whose node keeps its
 * shape are rewritten in place, one 32-bit release store each. Blocks a
 * reader may still see are reused only after fib4_poptrie_reclaim(), which
 * the caller runs after an RCU grace period.
 *
 * Addresses and prefixes are in host byte order.
 */
#ifndef CELLGATE_FIB4_POPTRIE_H
#define CELLGATE_FIB4_POPTRIE_H

#include <stddef.h>
#include <stdint.h>

#include "datapath/fib/fib4.h"

struct fib4_poptrie;

struct fib4_poptrie_stats {
	uint64_t routes;
	uint64_t routes_by_len[33];
	uint64_t nodes;        /* internal nodes the lookups can reach */
	uint64_t leaves;       /* leaves (after run compression) */
	uint64_t shadow_nodes; /* control-side nodes (some are published as one leaf) */
	uint64_t pending;      /* blocks freed, waiting for fib4_poptrie_reclaim */
	size_t lookup_bytes;   /* direct table + live nodes and leaves: the lookups' working set */
	size_t touched_bytes; /* direct table + every pool element ever used (includes free ones) */
	size_t memory_bytes;  /* all memory held, control side included */
};

/*
 * pool_kib: address space for nodes and leaves (0 = 1 GiB), beyond the 1 MiB
 * of direct[]; memory is used as the table needs it. NULL on failure (errno).
 */
struct fib4_poptrie *fib4_poptrie_create(uint32_t pool_kib);
void fib4_poptrie_destroy(struct fib4_poptrie *fib);

/*
 * Add or replace prefix/len -> value. 0; -EINVAL (len > 32, value 0 or >
 * FIB4_VALUE_MAX, host bits set), -ENOSPC (node or leaf pool full), -ENOMEM.
 * A failed insert leaves the table unchanged.
 */
int fib4_poptrie_insert(struct fib4_poptrie *fib, uint32_t prefix, uint8_t len, uint32_t value);

/* Remove prefix/len: 0, -ENOENT (absent), -EINVAL, -ENOSPC/-ENOMEM (table unchanged). */
int fib4_poptrie_delete(struct fib4_poptrie *fib, uint32_t prefix, uint8_t len);

/* Exact-match read of an installed prefix: its value, or 0. Control side. */
uint32_t fib4_poptrie_get(const struct fib4_poptrie *fib, uint32_t prefix, uint8_t len);

/* Make the blocks freed before the last grace period reusable. */
void fib4_poptrie_reclaim(struct fib4_poptrie *fib);

void fib4_poptrie_get_stats(const struct fib4_poptrie *fib, struct fib4_poptrie_stats *st);

/* Every installed prefix, in no particular order; as fib4_walk. */
int fib4_poptrie_walk(const struct fib4_poptrie *fib,
                      int (*cb)(uint32_t prefix, uint8_t len, uint32_t value, void *arg),
                      void *arg);

/*
 * The lookup tables, exposed only so the lookup can be inlined; struct
 * fib4_poptrie starts with this. Nothing else may use it.
 */
struct fib4_poptrie_node {
	uint64_t vector;  /* children that are nodes */
	uint64_t leafvec; /* children that start a run of leaves */
	uint32_t base0;   /* first leaf */
	uint32_t base1;   /* first child node */
};

struct fib4_poptrie_dir {
	const uint32_t *direct;
	const uint32_t *words; /* nodes (FIB4_POPTRIE_NODE_WORDS each) and leaves */
};

#define FIB4_POPTRIE_EXT        0x80000000u
#define FIB4_POPTRIE_DIRECT     18 /* address bits resolved by direct[] */
#define FIB4_POPTRIE_NODE_WORDS 6

static inline const struct fib4_poptrie_node *fib4_poptrie_node_at(const uint32_t *words,
                                                                   uint32_t i)
{
	return (const struct fib4_poptrie_node *)(const void *)(words + i);
}

/*
 * From a /18 slot's node n down, 6 bits per level: the loop the lookups under
 * prefixes longer than /24 need (3 of them in a full table).
 */
static inline uint32_t fib4_poptrie_lookup_deep(const struct fib4_poptrie_dir *d,
                                                const struct fib4_poptrie_node *n, uint32_t addr)
{
	unsigned off = FIB4_POPTRIE_DIRECT;

	for (;;) {
		unsigned v = (addr << off) >> 26;
		uint64_t bit = 1ull << v;
		uint32_t rank;

		if (!(n->vector & bit)) {
			rank = (uint32_t)__builtin_popcountll(n->leafvec & ((bit << 1) - 1));
			/* Acquire: see fib4_poptrie_lookup_ext. */
			return __atomic_load_n(&d->words[n->base0 + rank - 1], __ATOMIC_ACQUIRE);
		}
		rank = (uint32_t)__builtin_popcountll(n->vector & (bit - 1));
		n = fib4_poptrie_node_at(d->words, n->base1 + FIB4_POPTRIE_NODE_WORDS * rank);
		off += 6;
	}
}

/* The rest of a lookup whose direct[] entry e names a node. */
static inline uint32_t fib4_poptrie_lookup_ext(const struct fib4_poptrie_dir *d, uint32_t e,
                                               uint32_t addr)
{
	const struct fib4_poptrie_node *n = fib4_poptrie_node_at(d->words, e & ~FIB4_POPTRIE_EXT);
	uint64_t bit = 1ull << ((addr << FIB4_POPTRIE_DIRECT) >> 26);
	uint32_t rank;

	if (__builtin_expect((n->vector & bit) != 0, 0))
		return fib4_poptrie_lookup_deep(d, n, addr);
	rank = (uint32_t)__builtin_popcountll(n->leafvec & ((bit << 1) - 1));
	/* Leaves of a node that keeps its shape are rewritten in place with a
	 * release store; acquire, as the caller reads the next hop it names. */
	return __atomic_load_n(&d->words[n->base0 + rank - 1], __ATOMIC_ACQUIRE);
}

/*
 * The lookup over the tables themselves (what the bulk lookup keeps in
 * registers). Whether direct[] holds a value is a branch: a branch-free
 * version (a value reading a constant node, masks picking the answer) was
 * x0.59-0.70 on random keys, as every lookup then waits for its whole chain
 * of loads (doc/FIB.md).
 */
static inline uint32_t fib4_poptrie_lookup_dir(const struct fib4_poptrie_dir *d, uint32_t addr)
{
	/* Acquire pairs with the release that published the subtree. */
	uint32_t e =
	    __atomic_load_n(&d->direct[addr >> (32 - FIB4_POPTRIE_DIRECT)], __ATOMIC_ACQUIRE);

	if (__builtin_expect(!(e & FIB4_POPTRIE_EXT), 1))
		return e;
	return fib4_poptrie_lookup_ext(d, e, addr);
}

/* Longest-prefix match: the value, or 0 if no prefix covers addr. Lock-free. */
static inline uint32_t fib4_poptrie_lookup(const struct fib4_poptrie *fib, uint32_t addr)
{
	return fib4_poptrie_lookup_dir((const struct fib4_poptrie_dir *)fib, addr);
}

/* The same for n addresses (what workers call once per burst); values may be addrs. */
void fib4_poptrie_lookup_bulk(const struct fib4_poptrie *fib, const uint32_t *addrs,
                              uint32_t *values, unsigned n);

#endif
