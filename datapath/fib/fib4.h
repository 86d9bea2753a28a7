/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv4 longest-prefix-match FIB, DIR-24-8 class: one 2^24-entry table indexed
 * by the top 24 bits, plus 256-entry tbl8 groups for prefixes longer than /24.
 *
 * Concurrency: one writer (the control thread) and any number of lock-free
 * readers (workers). Every table entry is a 32-bit word written with release
 * semantics, so a reader sees either the old or the new value. A tbl8 group
 * that is no longer referenced is not reused until fib4_reclaim() is called
 * after an RCU grace period (readers may still be walking it until then).
 *
 * Values: a "next-hop group id", any value in 1..FIB4_VALUE_MAX. 0 means no
 * route. Addresses and prefixes are in host byte order.
 */
#ifndef CELLGATE_FIB4_H
#define CELLGATE_FIB4_H

#include <stddef.h>
#include <stdint.h>

#define FIB4_VALUE_MAX 0x7fffffffu

struct fib4;

struct fib4_stats {
	uint64_t routes; /* prefixes installed */
	uint64_t tbl8_groups_used;
	uint64_t tbl8_groups_max;
	uint64_t tbl8_pending; /* freed, waiting for fib4_reclaim */
	size_t lookup_bytes;   /* what lookups read: tbl24 and the groups in use */
	size_t memory_bytes;   /* all memory held, control-side index included */
	uint64_t routes_by_len[33];
};

/* tbl8_groups: how many /25../32 groups to preallocate (0 = 65536). NULL on ENOMEM. */
struct fib4 *fib4_create(uint32_t tbl8_groups);
void fib4_destroy(struct fib4 *fib);

/*
 * Add or replace prefix/len -> value. 0 on success; -EINVAL (len > 32, value 0
 * or > FIB4_VALUE_MAX, host bits set in prefix), -ENOSPC (no tbl8 group).
 * A failed insert leaves the table unchanged.
 */
int fib4_insert(struct fib4 *fib, uint32_t prefix, uint8_t len, uint32_t value);

/* Remove prefix/len; addresses it covered fall back to the next shorter prefix.
 * 0, or -ENOENT if not present, -EINVAL if len > 32 or host bits are set. */
int fib4_delete(struct fib4 *fib, uint32_t prefix, uint8_t len);

/* Exact-match read of an installed prefix: its value, or 0. Control side. */
uint32_t fib4_get(const struct fib4 *fib, uint32_t prefix, uint8_t len);

/* Make tbl8 groups freed before the last grace period reusable again. */
void fib4_reclaim(struct fib4 *fib);

void fib4_get_stats(const struct fib4 *fib, struct fib4_stats *st);

/*
 * Visit every installed prefix (control side, e.g. for dumps), in no particular
 * order; the callback must not modify the FIB. Stops early and returns the
 * callback's value if it is non-zero.
 */
int fib4_walk(const struct fib4 *fib,
              int (*cb)(uint32_t prefix, uint8_t len, uint32_t value, void *arg), void *arg);

/*
 * The lookup tables, exposed only so fib4_lookup can be inlined into the
 * workers' loops; struct fib4 starts with this. Nothing else may use it.
 * tbl24 entry: a value (0 = no route), or FIB4_EXT | tbl8 group number; a
 * group is 256 values indexed by the address's low byte.
 */
struct fib4_dir {
	const uint32_t *tbl24;
	const uint32_t *tbl8;
};

#define FIB4_EXT 0x80000000u

/* Longest-prefix match: the value, or 0 if no prefix covers addr. Lock-free. */
static inline uint32_t fib4_lookup(const struct fib4 *fib, uint32_t addr)
{
	const struct fib4_dir *dir = (const struct fib4_dir *)fib;
	/* Acquire pairs with the release that linked a filled tbl8 group, and the
	 * tbl8 load with the release that rewrote an entry in place: the caller reads
	 * the next hop the value names, written before it (free on x86, needed on
	 * ARM64). */
	uint32_t e = __atomic_load_n(&dir->tbl24[addr >> 8], __ATOMIC_ACQUIRE);

	if (__builtin_expect(e & FIB4_EXT, 0))
		e = __atomic_load_n(&dir->tbl8[(size_t)(e & ~FIB4_EXT) << 8 | (addr & 0xff)],
		                    __ATOMIC_ACQUIRE);
	return e;
}

/* The same for n addresses at once (prefetches; what workers call per burst). */
void fib4_lookup_bulk(const struct fib4 *fib, const uint32_t *addrs, uint32_t *values, unsigned n);

#endif
