/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 longest-prefix-match FIB, /0 to /128.
 *
 * Structure: a direct table indexed by the top 16 bits (65536 32-bit entries,
 * 256 KiB), then a poptrie (Asai & Ohara, "Poptrie: A Compressed Trie with
 * Population Count for Fast and Scalable Software IP Routing Table Lookup",
 * SIGCOMM 2015) of 6-bit strides: a 24-byte node per 64 slots, its children
 * and its leaf values in two contiguous arrays found by popcount of two
 * bitmaps, leaves compressed to one value per run. A lookup is one load in the
 * direct table and, for an address under a longer prefix, one node per 6 bits
 * (/48: 6 nodes) and one leaf. The /0 route is kept apart and read when the
 * walk finds no value, so installing or removing a default route costs one
 * store instead of rewriting every leaf it would otherwise be pushed into.
 *
 * Why (figures in BENCHMARKS.md, "FIB6", measured on the libloc table):
 *  - The real table is 220k prefixes of mean length /41.4, nearly all in
 *    2000::/3 and ending at /48 or shorter; the address is 128 bits. Tables
 *    indexed directly cannot span that: DIR-24-8 style stride-8 groups under
 *    a 16-bit top would take ~45k groups of 1 KiB (46 MB, and 64 MiB with its
 *    control depth arrays) and a 24-bit top alone is 64 MiB. The poptrie
 *    holds this table in a few MB (132k nodes), so lookups run from cache.
 *  - Direct-table size: measured with -DFIB6_DIR_BITS (fib6_priv.h) 16, 18
 *    and 20; larger tops save a level for /48s but cost cache for the table
 *    itself and a slower insert of short prefixes; see BENCHMARKS.md.
 *
 * Concurrency (the contract of fib4.h): one writer (the control thread) and
 * any number of lock-free readers. Nodes are never modified once readers can
 * see them: an update builds new arrays for the nodes that change and their
 * ancestors (path copy) and publishes them with one release store of a
 * direct-table entry (or of the default route). Replaced arrays are reused
 * only after fib6_reclaim(), which the writer calls once an RCU grace period
 * has passed since they were replaced; until then they count as pending.
 * Each update replaces at least its path, so reclaim after every batch.
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
 * at fib6_batch_end(), each direct-table slot (a /16) switching in one store,
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
