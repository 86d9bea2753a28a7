/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 longest-prefix-match FIB, /0 to /128.
 *
 * Structure: a direct table indexed by the top 18 bits (262144 32-bit
 * entries, 1 MiB), then a poptrie (Asai & Ohara, "Poptrie: A Compressed
 * Trie with Population Count for Fast and Scalable Software IP Routing Table
 * Lookup", SIGCOMM 2015) of 6-bit strides: a 32-byte node per 64 slots, its
 * children in one contiguous array found by popcount of a bitmap, its values
 * compressed to one per run of equal slots and found by popcount of a second
 * bitmap; up to three runs sit in the node itself. Path compression: a node
 * with one child and no prefix of its own is seen by readers as a skip
 * record (the key bits it stands for, checked at once, up to 30 of them),
 * and a chain that ends on a node holding one prefix ends in the skip
 * itself (fib6_priv.h). A lookup is one load in the direct table and, under
 * a longer prefix, one node per 6 bits where the trie branches, one per
 * chain where it does not, and at most one leaf: a /48 alone under its /18
 * slot is found with one node (five without the compression).
 * The /0 route is kept apart and read when the walk finds no value, so a
 * default route costs one store, not a rewrite of every leaf.
 *
 * Why (measured on Debian's libloc table, 220,103 IPv6 nets, mean /41.4, 43%
 * /48, nothing longer than /48; BENCHMARKS.md "FIB6" has the figures):
 *  - 128-bit keys rule out tables indexed directly beyond the top: a 24-bit
 *    top alone is 64 MiB, and stride-8 groups of 256 entries under a 16-bit
 *    top would need 45k groups for this table (46 MB of groups plus their
 *    control-side depth arrays: the whole 64 MiB budget; counted, not built).
 *    The poptrie holds it in 95k nodes: 4.8 MiB for readers, 20 MiB in all.
 *  - The top is 18 bits so that a /48, the longest prefix routed globally and
 *    the commonest here, ends on a stride boundary (18 + 5 x 6): it fills
 *    one slot of a node instead of needing a node of its own below. Measured
 *    against 16 bits (132k nodes; in-table lookups 94-117 ns against 52-80 ns
 *    on one CPU here) and 20 bits (its 4 MiB table no longer stays in L2:
 *    random-key lookups 7-10 ns against 3-5 ns), 3 runs each.
 *  - Leaf values in the node (up to 3 runs): 214k leaves instead of 350k and
 *    no leaf load for most nodes; no lookup difference measurable here.
 *  - On this machine a load that misses the 2 MiB L2 costs ~140 ns (the 260
 *    MB L3 is shared with a busy host), which bounds lookups of addresses
 *    inside routes: they walk ~4 nodes. Random addresses mostly end in the
 *    direct table. The bulk lookup keeps 16 walks in flight to hide misses.
 *
 * Concurrency (the contract of fib4.h): one writer (the control thread) and
 * any number of lock-free readers. Nodes are never modified once readers can
 * see them: an update builds new arrays for the nodes that change and their
 * ancestors (path copy) and publishes them with one release store of a
 * direct-table entry (or of the default route). Replaced arrays are reused
 * only after fib6_reclaim(), which the writer calls once an RCU grace period
 * has passed since they were replaced; until then they count as pending.
 * Every update replaces at least its path, so reclaim after each batch of
 * updates (the benchmark reclaims every 1024); batches (fib6_batch_begin)
 * rebuild a node many updates touch once.
 *
 * Values: next-hop group ids, 1..FIB6_VALUE_MAX; 0 means no route. Prefixes
 * and addresses are 16 bytes in network byte order.
 */
#ifndef CELLGATE_FIB6_H
#define CELLGATE_FIB6_H

#include <stddef.h>
#include <stdint.h>

#define FIB6_VALUE_MAX 0x7fffffffu

struct fib6;

struct fib6_stats {
	uint64_t routes;
	uint64_t routes_by_len[129];
	uint64_t nodes_used, nodes_pending, nodes_max;    /* 24-byte reader nodes */
	uint64_t leaves_used, leaves_pending, leaves_max; /* 4-byte leaf values */
	uint64_t cnodes;     /* control-side nodes (one per reader node) */
	size_t reader_bytes; /* what lookups read: direct table, nodes, leaves (high water) */
	size_t memory_bytes; /* everything held, control side included */
};

/*
 * max_nodes / max_leaves: capacity of the reader arrays (0 = 4M nodes, 16M
 * leaves: address space only, touched as the table grows). NULL on ENOMEM.
 */
struct fib6 *fib6_create(uint32_t max_nodes, uint32_t max_leaves);
void fib6_destroy(struct fib6 *fib);

/*
 * Add or replace prefix/len -> value. 0; -EINVAL (len > 128, value 0 or above
 * FIB6_VALUE_MAX, host bits set), -ENOSPC (reader arrays full: reclaim, or a
 * bigger FIB), -ENOMEM. A failed insert leaves the table unchanged.
 */
int fib6_insert(struct fib6 *fib, const uint8_t prefix[16], uint8_t len, uint32_t value);

/*
 * Remove prefix/len; what it covered falls back to the next shorter prefix.
 * 0, -ENOENT (not installed), -EINVAL, or -ENOSPC/-ENOMEM (the path copy
 * found no room: the table is unchanged).
 */
int fib6_delete(struct fib6 *fib, const uint8_t prefix[16], uint8_t len);

/*
 * Batches: the updates between fib6_batch_begin() and fib6_batch_end() change
 * the control side at once (fib6_get, fib6_walk see them) and reach readers
 * at fib6_batch_end(), each direct-table slot (a /18) switching in one store,
 * so a node many updates touch is rebuilt once (FPM replays, bulk loads).
 * Inside a batch, updates fail only for -EINVAL, -ENOENT or -ENOMEM (then
 * unchanged); fib6_batch_end() returns 0, or -ENOSPC/-ENOMEM with the slots
 * not yet published left pending and the batch still open: reclaim, then
 * call it again.
 */
void fib6_batch_begin(struct fib6 *fib);
int fib6_batch_end(struct fib6 *fib);

/* Exact-match read of an installed prefix: its value, or 0. Control side. */
uint32_t fib6_get(const struct fib6 *fib, const uint8_t prefix[16], uint8_t len);

/* Make arrays replaced before the last grace period reusable again. */
void fib6_reclaim(struct fib6 *fib);

void fib6_get_stats(const struct fib6 *fib, struct fib6_stats *st);

/*
 * Visit every installed prefix (control side), shorter ones first within a
 * subtree; the callback must not modify the FIB. Stops early and returns the
 * callback's value if it is non-zero.
 */
int fib6_walk(const struct fib6 *fib,
              int (*cb)(const uint8_t prefix[16], uint8_t len, uint32_t value, void *arg),
              void *arg);

/* Longest-prefix match: the value, or 0 if no prefix covers addr. Lock-free. */
uint32_t fib6_lookup(const struct fib6 *fib, const uint8_t addr[16]);

/* The same for n addresses at once (interleaved walks; what workers call per burst). */
void fib6_lookup_bulk(const struct fib6 *fib, const uint8_t *const addrs[], uint32_t *values,
                      unsigned n);

#endif
