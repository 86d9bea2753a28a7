/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FIB6 lookups, scalar and bulk. Lock-free: the direct-table entry is read
 * with acquire (it pairs with the release that published what it points to);
 * nodes and leaves are never written while readers can reach them.
 */
#include <stdbool.h>
#include <string.h>

#include "datapath/fib/fib6_priv.h"

/* The bodies are instantiated twice below; they must be inlined into each. */
#define ALWAYS_INLINE __attribute__((always_inline))

static inline ALWAYS_INLINE fib6_u128 key_load(const uint8_t *a)
{
	uint64_t hi, lo;

	memcpy(&hi, a, 8);
	memcpy(&lo, a + 8, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	hi = __builtin_bswap64(hi);
	lo = __builtin_bswap64(lo);
#endif
	return (fib6_u128)hi << 64 | lo;
}

/* Ranks in a 64-slot bitmap: how many of bits 0..v are set. */
static inline ALWAYS_INLINE unsigned rank(uint64_t map, unsigned v)
{
	return (unsigned)__builtin_popcountll(map & (~0ull >> (63 - v)));
}

/* Where the leaf values of n are: in the record itself up to FIB6_INLINE_MAX runs. */
static inline ALWAYS_INLINE const uint32_t *leaf_values(const uint32_t *leaves,
                                                        const struct fib6_node *n)
{
	return __builtin_popcountll(n->leafvec) <= FIB6_INLINE_MAX ? n->leaf : &leaves[n->leaf[0]];
}

/*
 * A skip record (fib6_priv.h, path compression) met with the walk's bits
 * `*w` (the skipped ones at the top): true if the walk ends, with its value
 * in *e; else *next is where it goes on and *w has lost the skipped bits.
 */
static inline ALWAYS_INLINE bool skip_step(const struct fib6_node *nodes,
                                           const struct fib6_node *n, fib6_u128 *w, uint32_t *e,
                                           const struct fib6_node **next)
{
	unsigned nb = n->leaf[2]; /* 6..FIB6_SKIP_BITS: all in the top half, a 64-bit shift */

	if ((uint64_t)(*w >> 64) >> (64 - nb) != n->leaf[1]) {
		*e = n->leaf[0];
		return true;
	}
	if (n->base1 & FIB6_SKIP_TERM) {
		*e = n->base1 & ~FIB6_SKIP_TERM;
		return true;
	}
	*w <<= nb;
	*next = &nodes[n->base1];
	return false;
}

static inline ALWAYS_INLINE uint32_t lookup_one(const struct fib6 *fib, const uint8_t addr[16])
{
	fib6_u128 key = key_load(addr), w = key << FIB6_DIR_BITS;
	uint32_t e = __atomic_load_n(&fib->dir[fib6_slot_of(key)], __ATOMIC_ACQUIRE);

	if (e & FIB6_NODE) {
		const struct fib6_node *nodes = fib->nodes, *n = &nodes[e & ~FIB6_NODE];

		for (;;) {
			unsigned v = (unsigned)(w >> (128 - FIB6_STRIDE));

			if (n->vec >> v & 1) {
				w <<= FIB6_STRIDE;
				n = &nodes[n->base1 + rank(n->vec, v) - 1];
				continue;
			}
			/* Only a skip record has no leaf here (a real node has one). */
			if (__builtin_expect(n->leafvec != 0, 1)) {
				e = leaf_values(fib->leaves, n)[rank(n->leafvec, v) - 1];
				break;
			}
			if (skip_step(nodes, n, &w, &e, &n))
				break;
		}
	}
	return e ? e : __atomic_load_n(&fib->dflt, __ATOMIC_ACQUIRE);
}

/*
 * Bulk lookups keep BULK_LANES walks in flight (asynchronous memory access
 * chaining): each lane takes one step per round, on the node it prefetched
 * the round before, and a lane whose walk ends starts the next address at
 * once. A walk waits on memory once per level; sixteen of them wait together.
 * The direct table is prefetched BULK_AHEAD addresses ahead, so an address
 * it answers (most of the address space) never takes a lane.
 */
#define BULK_LANES 16
#define BULK_AHEAD 16

struct lane {
	const struct fib6_node *p; /* the node this lane reads next */
	fib6_u128 w;               /* the address bits still to walk, at the top */
	unsigned idx;              /* which address; ~0u: idle */
};

struct bulk {
	const struct fib6_node *nodes;
	const uint32_t *dir, *leaves;
	const uint8_t *const *addrs;
	uint32_t *values, dflt;
	unsigned next, n;
};

static inline ALWAYS_INLINE void bulk_prefetch_dir(const struct bulk *b, unsigned i)
{
	if (i < b->n) {
		const uint8_t *a = b->addrs[i];
		uint32_t top =
		    (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];

		__builtin_prefetch(&b->dir[top >> (32 - FIB6_DIR_BITS)]);
	}
}

/* Give lane l the next address the direct table does not answer; false when none is left. */
static inline ALWAYS_INLINE bool lane_start(struct bulk *b, struct lane *l)
{
	while (b->next < b->n) {
		unsigned i = b->next++;
		fib6_u128 key = key_load(b->addrs[i]);
		uint32_t e = __atomic_load_n(&b->dir[fib6_slot_of(key)], __ATOMIC_ACQUIRE);

		bulk_prefetch_dir(b, i + BULK_AHEAD);
		if (!(e & FIB6_NODE)) {
			b->values[i] = e ? e : b->dflt;
			continue;
		}
		*l = (struct lane){&b->nodes[e & ~FIB6_NODE], key << FIB6_DIR_BITS, i};
		__builtin_prefetch(l->p);
		return true;
	}
	l->idx = ~0u;
	return false;
}

/*
 * One level of lane l's walk; true when it ended (its value is stored). The
 * leaf is read at once, not in a round of its own: one branch less per step
 * costs less than the miss on the few nodes whose leaves are not inline.
 */
static inline ALWAYS_INLINE bool lane_step(struct bulk *b, struct lane *l)
{
	const struct fib6_node *n = l->p;
	unsigned v = (unsigned)(l->w >> (128 - FIB6_STRIDE));
	uint32_t e;

	if (n->vec >> v & 1) {
		l->w <<= FIB6_STRIDE;
		l->p = &b->nodes[n->base1 + rank(n->vec, v) - 1];
		__builtin_prefetch(l->p);
		return false;
	}
	if (__builtin_expect(n->leafvec != 0, 1)) {
		e = leaf_values(b->leaves, n)[rank(n->leafvec, v) - 1];
	} else if (!skip_step(b->nodes, n, &l->w, &e, &l->p)) {
		__builtin_prefetch(l->p);
		return false;
	}
	b->values[l->idx] = e ? e : b->dflt;
	return true;
}

static inline ALWAYS_INLINE void lookup_bulk(const struct fib6 *fib, const uint8_t *const addrs[],
                                             uint32_t *values, unsigned n)
{
	struct bulk b = {fib->nodes, fib->dir, fib->leaves,
	                 addrs,      values,   __atomic_load_n(&fib->dflt, __ATOMIC_ACQUIRE),
	                 0,          n};
	struct lane lane[BULK_LANES];
	unsigned busy = 0;

	for (unsigned i = 0; i < BULK_AHEAD; i++)
		bulk_prefetch_dir(&b, i);
	for (unsigned g = 0; g < BULK_LANES; g++)
		busy += lane_start(&b, &lane[g]);
	while (busy) {
		for (unsigned g = 0; g < BULK_LANES; g++) {
			if (lane[g].idx == ~0u || !lane_step(&b, &lane[g]))
				continue;
			if (!lane_start(&b, &lane[g]))
				busy--;
		}
	}
}

/*
 * Hardware POPCNT (two per level) is not in the x86-64 baseline Debian
 * builds for, and the libgcc fallback costs more than the rest of a level:
 * the same code is built twice and fib6_create() picks by CPUID. A call
 * through a pointer costs what a call into a shared library does.
 */
static uint32_t lookup_plain(const struct fib6 *fib, const uint8_t addr[16])
{
	return lookup_one(fib, addr);
}

static void bulk_plain(const struct fib6 *fib, const uint8_t *const addrs[], uint32_t *values,
                       unsigned n)
{
	lookup_bulk(fib, addrs, values, n);
}

#if defined(__x86_64__)
__attribute__((target("popcnt"))) static uint32_t lookup_popcnt(const struct fib6 *fib,
                                                                const uint8_t addr[16])
{
	return lookup_one(fib, addr);
}

__attribute__((target("popcnt"))) static void
bulk_popcnt(const struct fib6 *fib, const uint8_t *const addrs[], uint32_t *values, unsigned n)
{
	lookup_bulk(fib, addrs, values, n);
}
#endif

void fib6_lookup_select(struct fib6 *fib)
{
	fib->lookup = lookup_plain;
	fib->bulk = bulk_plain;
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("popcnt")) {
		fib->lookup = lookup_popcnt;
		fib->bulk = bulk_popcnt;
	}
#endif
}

uint32_t fib6_lookup(const struct fib6 *fib, const uint8_t addr[16])
{
	return fib->lookup(fib, addr);
}

void fib6_lookup_bulk(const struct fib6 *fib, const uint8_t *const addrs[], uint32_t *values,
                      unsigned n)
{
	fib->bulk(fib, addrs, values, n);
}
