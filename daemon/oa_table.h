/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A hash table with open addressing and linear probing, for fixed-size
 * entries that start with a nonzero uint64_t key (0 marks an empty slot).
 * A lookup is one cache miss and an entry costs no allocation of its own:
 * the RIB and the FPM table hold a million routes each and change them at
 * millions per second. Deletion shifts later entries of the probe run back
 * (no tombstones), so entries move: refer to them by key, not by address,
 * across inserts and deletes.
 *
 * Growth is incremental: when the table is 3/4 full a table twice the size
 * takes the new entries, and every oa_reserve moves a few slots' worth of
 * the old one over (OA_MIGRATE_SLOTS, whole probe runs at a time), so no
 * single insert rehashes a million entries (that held the control loop for
 * ~0.2 s at a full table).
 * Meanwhile a key is in exactly one of the two, and lookups try both.
 *
 * The bigger table is mapped earlier, at 5/8 full, and faulted in one huge
 * page per step while the table fills to 3/4 (oa_prep_step). Left to the
 * inserts, the first ones after a growth fault in every page of the new
 * table at once (their homes are random): 2 x 48 MiB when the RIB and the
 * FPM table grew together at ~786k routes, 0.16 - 0.23 s of page zeroing
 * in one read callback, measured with the control loop's gauge. Faulted
 * ahead, no page of it is first mapped as the zero page by a probe and
 * faulted again by the write either.
 */
#ifndef CELLGATE_OA_TABLE_H
#define CELLGATE_OA_TABLE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct oa_table {
	uint8_t *slots;
	uint32_t nslots; /* a power of two */
	uint32_t nused;  /* entries in both tables */
	uint32_t esz;    /* entry size, key first */
	/*
	 * While growing: the previous table, its entry count, how many of its
	 * slots have been moved over, counted from the empty slot mig_from.
	 */
	uint8_t *old;
	uint32_t old_nslots, old_nused, mig, mig_from;
	/*
	 * Before growing: the next table (2 * nslots), mapped once the table is
	 * 5/8 full (at nused next_from), of which next_done bytes are faulted in.
	 */
	uint8_t *next;
	size_t next_done;
	uint32_t next_from;
};

/* Old slots moved per oa_reserve: at least 4/3 are needed to finish before the new one fills. */
#define OA_MIGRATE_SLOTS 16

static inline uint64_t oa_key(const void *e)
{
	uint64_t k;

	memcpy(&k, e, sizeof(k));
	return k;
}

static inline uint8_t *oa_at(const struct oa_table *t, uint32_t i)
{
	return t->slots + (size_t)i * t->esz;
}

static inline uint32_t oa_home(uint64_t key, uint32_t nslots)
{
	key *= 0x9e3779b97f4a7c15ull; /* Fibonacci hashing: the high bits are well mixed */
	return (uint32_t)(key >> 32) & (nslots - 1);
}

/*
 * The key of an IPv6 prefix (RIB6, FPM table): 136 bits into 64, both
 * halves and the length multiplied in, then mixed as murmur3's finaliser
 * does (one round short), so every bit of the prefix reaches the bits
 * oa_home takes. Equal keys for two routes are allowed (oa_find_eq), just
 * rare; never 0, the empty slot.
 */
static inline uint64_t oa_key_prefix6(const uint8_t prefix[16], uint8_t len)
{
	uint64_t hi, lo, h;

	memcpy(&hi, prefix, 8);
	memcpy(&lo, prefix + 8, 8);
	h = hi * 0xff51afd7ed558ccdull ^ (lo + len) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h ? h : 1;
}

#define OA_HUGE_PAGE (2u << 20)

/*
 * Zeroed memory for the slots. Big tables are probed at random: on 4 KiB
 * pages nearly every probe also misses the TLB, so from 2 MiB on they get
 * an aligned mapping the kernel can back with transparent huge pages.
 */
static inline void *oa_alloc(size_t bytes)
{
	if (bytes < OA_HUGE_PAGE)
		return calloc(1, bytes);
	size_t span = bytes + OA_HUGE_PAGE;
	uint8_t *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uint8_t *p =
	    (uint8_t *)(((uintptr_t)raw + OA_HUGE_PAGE - 1) & ~(uintptr_t)(OA_HUGE_PAGE - 1));
	size_t head = (size_t)(p - raw);
	if (head)
		munmap(raw, head);
	munmap(p + bytes, span - head - bytes);
	(void)madvise(p, bytes, MADV_HUGEPAGE); /* advisory: fine if THP is off */
	/* Not populated here: a grown table's pages fault in as entries move over. */
	return p;
}

static inline void oa_free(void *p, size_t bytes)
{
	if (bytes < OA_HUGE_PAGE)
		free(p);
	else if (p)
		munmap(p, bytes);
}

/* 0 or -ENOMEM. nslots: a power of two. */
static inline int oa_init(struct oa_table *t, uint32_t esz, uint32_t nslots)
{
	*t = (struct oa_table){
	    .slots = oa_alloc((size_t)nslots * esz), .nslots = nslots, .esz = esz};
	return t->slots ? 0 : -ENOMEM;
}

static inline void oa_fini(struct oa_table *t)
{
	oa_free(t->slots, (size_t)t->nslots * t->esz);
	if (t->old)
		oa_free(t->old, (size_t)t->old_nslots * t->esz);
	if (t->next)
		oa_free(t->next, (size_t)t->nslots * 2 * t->esz);
	t->slots = t->old = t->next = NULL;
}

/* In slots[0..nslots): the entry holding key, or the empty slot where it would go. */
static inline uint8_t *oa_probe(uint8_t *slots, uint32_t nslots, uint32_t esz, uint64_t key)
{
	uint32_t mask = nslots - 1, i = oa_home(key, nslots);
	uint64_t k;

	while ((k = oa_key(slots + (size_t)i * esz)) != 0 && k != key)
		i = (i + 1) & mask;
	return slots + (size_t)i * esz;
}

/*
 * The first empty slot of key's probe run in slots[0..nslots). Migration
 * uses it: a key is in one table only, so this is where oa_probe would stop
 * too, and keys shared by several entries (oa_slot_eq) move over whole.
 */
static inline uint8_t *oa_probe_empty(uint8_t *slots, uint32_t nslots, uint32_t esz, uint64_t key)
{
	uint32_t mask = nslots - 1, i = oa_home(key, nslots);

	while (oa_key(slots + (size_t)i * esz) != 0)
		i = (i + 1) & mask;
	return slots + (size_t)i * esz;
}

/*
 * Whether key may still be in the old table. Not when its home slot there
 * has been passed: that slot's run went over whole, and the key's probe
 * path from its home was part of it (see oa_migrate).
 */
static inline bool oa_in_old(const struct oa_table *t, uint64_t key)
{
	if (!t->old)
		return false;
	uint32_t h = oa_home(key, t->old_nslots);
	return ((h - t->mig_from) & (t->old_nslots - 1)) >= t->mig;
}

/* The entry holding key (in either table while growing), or the empty slot where it would go. */
static inline void *oa_slot(const struct oa_table *t, uint64_t key)
{
	if (oa_in_old(t, key)) {
		uint8_t *e = oa_probe(t->old, t->old_nslots, t->esz, key);
		if (oa_key(e))
			return e;
	}
	return oa_probe(t->slots, t->nslots, t->esz, key);
}

/*
 * The slots a lookup of key reads first, for the caller to prefetch a few
 * entries ahead: in the table (the new one while growing), and in the old
 * one while it may still hold key (else NULL). The callers hold the
 * __builtin_prefetch themselves: GCC takes a function that only prefetches
 * for one without effects and drops the calls to it.
 */
static inline const void *oa_home_slot(const struct oa_table *t, uint64_t key)
{
	return oa_at(t, oa_home(key, t->nslots));
}

static inline const void *oa_old_home_slot(const struct oa_table *t, uint64_t key)
{
	return oa_in_old(t, key) ? t->old + (size_t)oa_home(key, t->old_nslots) * t->esz : NULL;
}

static inline void *oa_find(const struct oa_table *t, uint64_t key)
{
	void *e = oa_slot(t, key);

	return oa_key(e) ? e : NULL;
}

/*
 * Empty slot `hole` of slots[0..nslots), moving later entries of its probe
 * run back into it. The slot the last entry left is zeroed.
 */
static inline void oa_shift_out(uint8_t *slots, uint32_t nslots, uint32_t esz, uint32_t hole)
{
	uint32_t mask = nslots - 1, j = hole;

	for (;;) {
		j = (j + 1) & mask;
		uint64_t k = oa_key(slots + (size_t)j * esz);
		if (!k)
			break;
		uint32_t home = oa_home(k, nslots);
		/* j may fill the hole unless its home lies cyclically in (hole, j]. */
		bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!stays) {
			memcpy(slots + (size_t)hole * esz, slots + (size_t)j * esz, esz);
			hole = j;
		}
	}
	memset(slots + (size_t)hole * esz, 0, esz);
}

/* The first empty slot of slots[0..nslots) (a table at most 3/4 full has one). */
static inline uint32_t oa_first_empty(const uint8_t *slots, uint32_t nslots, uint32_t esz)
{
	uint32_t i = 0;

	while (i < nslots - 1 && oa_key(slots + (size_t)i * esz))
		i++;
	return i;
}

/*
 * Move about `budget` slots of the old table into the new one, a whole run
 * (a maximal block of occupied slots) at a time. The walk starts after an
 * empty slot (mig_from) and goes round once, so an occupied slot it meets
 * starts a run: taking the run whole leaves every other run intact and
 * lookups in the old table right, with no entry moved inside it. (Moving
 * one entry at a time and shifting the rest of its run back, as before,
 * cost the square of the run's length: at 3/4 load runs are tens to
 * hundreds of slots long, and that made the first load of a full table
 * twice as expensive.) It stops only between runs, so one call may go past
 * the budget by the longest run.
 */
static inline void oa_migrate(struct oa_table *t, uint32_t budget)
{
	while (t->old) {
		uint8_t *e =
		    t->old + (size_t)((t->mig_from + t->mig) & (t->old_nslots - 1)) * t->esz;
		uint64_t k = oa_key(e);

		if (!k && !budget)
			return; /* between two runs */
		if (k) {
			memcpy(oa_probe_empty(t->slots, t->nslots, t->esz, k), e, t->esz);
			memset(e, 0, t->esz);
			t->old_nused--;
		}
		budget -= budget > 0;
		if (++t->mig == t->old_nslots || !t->old_nused) {
			oa_free(t->old, (size_t)t->old_nslots * t->esz);
			t->old = NULL;
			t->old_nslots = t->old_nused = t->mig = t->mig_from = 0;
		}
	}
}

/* Fault in [from, to) of a fresh mapping, writable (zeroed pages, as mmap gives them). */
static inline void oa_populate(uint8_t *p, size_t from, size_t to)
{
#ifdef MADV_POPULATE_WRITE
	if (madvise(p + from, to - from, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	/* Kernels before 5.14: a store per page (a huge page faults in whole at its first). */
	for (size_t o = from; o < to; o += 4096)
		((volatile uint8_t *)p)[o] = 0;
}

/*
 * Map the next table at 5/8 full, then fault in one huge page of it at a
 * time, as many as keep up with the inserts: all of it by 3/4 (nslots / 8
 * inserts later), so no single insert waits for more than one page. Only
 * for tables big enough to be mapped (oa_alloc); a step that has nothing
 * to do costs a comparison.
 */
static inline void oa_prep_step(struct oa_table *t)
{
	size_t total = (size_t)t->nslots * 2 * t->esz;

	if (!t->next) {
		if (t->old || total < OA_HUGE_PAGE ||
		    (uint64_t)(t->nused + 1) * 8 <= (uint64_t)t->nslots * 5)
			return;
		if (!(t->next = oa_alloc(total)))
			return; /* oa_reserve tries again when it must grow */
		t->next_done = 0;
		t->next_from = t->nused;
	}
	if (t->next_done >= total)
		return;
	uint64_t window = t->nslots / 8, done = t->nused > t->next_from ? t->nused - t->next_from : 0;
	size_t pages = (total + OA_HUGE_PAGE - 1) / OA_HUGE_PAGE;
	/*
	 * Tables that fill together (the RIB's and the FPM table's) would each
	 * fault a page on the same insert: a phase from the mapping's address
	 * moves this one's steps up to one page early, so they rarely coincide.
	 */
	uint64_t phase = ((uintptr_t)t->next / OA_HUGE_PAGE) % (window / pages + 1);
	if ((uint64_t)(t->next_done / OA_HUGE_PAGE) * window > (done + 1 + phase) * pages)
		return; /* ahead of the inserts */
	size_t end = t->next_done + OA_HUGE_PAGE < total ? t->next_done + OA_HUGE_PAGE : total;
	oa_populate(t->next, t->next_done, end);
	t->next_done = end;
}

/*
 * Make room for one more entry: moves a few old slots over while growing;
 * once the table is 3/4 full, starts growing into one twice its size (and
 * first finishes a growth still under way). 0 or -ENOMEM.
 */
static inline int oa_reserve(struct oa_table *t)
{
	uint8_t *n;

	oa_migrate(t, OA_MIGRATE_SLOTS);
	oa_prep_step(t);
	if ((uint64_t)(t->nused + 1) * 4 <= (uint64_t)t->nslots * 3)
		return 0;
	oa_migrate(t, UINT32_MAX); /* not expected: the steps finish first */
	if (t->next) {
		n = t->next; /* faulted in by now, but for what deletes held back */
		t->next = NULL;
	} else if (!(n = oa_alloc((size_t)t->nslots * 2 * t->esz))) {
		return -ENOMEM;
	}
	t->old = t->slots;
	t->old_nslots = t->nslots;
	t->old_nused = t->nused;
	t->mig = 0;
	t->mig_from = oa_first_empty(t->old, t->old_nslots, t->esz);
	t->slots = n;
	t->nslots *= 2;
	oa_migrate(t, OA_MIGRATE_SLOTS);
	return 0;
}

/* Bytes of slots held (both tables while growing). */
static inline size_t oa_bytes(const struct oa_table *t)
{
	return ((size_t)t->nslots + t->old_nslots) * t->esz + (t->next ? t->next_done : 0);
}

/* Empty the table (keeping its current size). */
static inline void oa_clear(struct oa_table *t)
{
	if (t->old)
		oa_free(t->old, (size_t)t->old_nslots * t->esz);
	if (t->next)
		oa_free(t->next, (size_t)t->nslots * 2 * t->esz);
	t->old = t->next = NULL;
	t->old_nslots = t->old_nused = t->mig = t->mig_from = 0;
	memset(t->slots, 0, (size_t)t->nslots * t->esz);
	t->nused = 0;
}

/* Iteration over every entry: *pos starts at 0; NULL at the end. No change in between. */
static inline void *oa_next(const struct oa_table *t, uint64_t *pos)
{
	for (; *pos < (uint64_t)t->nslots + t->old_nslots; (*pos)++) {
		uint8_t *e = *pos < t->nslots ? oa_at(t, (uint32_t)*pos)
		                              : t->old + (size_t)(*pos - t->nslots) * t->esz;
		if (oa_key(e)) {
			(*pos)++;
			return e;
		}
	}
	return NULL;
}

/* Claim the empty slot e (from oa_slot, after oa_reserve) for key. */
static inline void oa_claim(struct oa_table *t, void *e, uint64_t key)
{
	memset(e, 0, t->esz);
	memcpy(e, &key, sizeof(key));
	t->nused++;
}

/* Empty entry e (of either table), moving later entries of its probe run back into the hole. */
static inline void oa_remove(struct oa_table *t, void *e)
{
	uint8_t *p = e;

	if (t->old && p >= t->old && p < t->old + (size_t)t->old_nslots * t->esz) {
		oa_shift_out(t->old, t->old_nslots, t->esz, (uint32_t)((p - t->old) / t->esz));
		t->old_nused--;
	} else {
		oa_shift_out(t->slots, t->nslots, t->esz, (uint32_t)((p - t->slots) / t->esz));
	}
	t->nused--;
}

/*
 * Entries whose identity is longer than the key (an IPv6 prefix and its
 * length are 136 bits): the key is a hash of the identity, so two entries
 * may share one, and eq(entry, arg) says which is which. Entries with the
 * same key have the same home, so one probe run holds them all: a probe
 * that passes over the ones eq refuses finds the right one, or the empty
 * slot where it would go. Insert, remove and growth work unchanged.
 */
typedef bool (*oa_eq_fn)(const void *e, const void *arg);

static inline uint8_t *oa_probe_eq(uint8_t *slots, uint32_t nslots, uint32_t esz, uint64_t key,
                                   oa_eq_fn eq, const void *arg)
{
	uint32_t mask = nslots - 1, i = oa_home(key, nslots);
	uint64_t k;

	while ((k = oa_key(slots + (size_t)i * esz)) != 0 &&
	       (k != key || !eq(slots + (size_t)i * esz, arg)))
		i = (i + 1) & mask;
	return slots + (size_t)i * esz;
}

/* As oa_slot, for keys that are hashes (see oa_probe_eq). */
static inline void *oa_slot_eq(const struct oa_table *t, uint64_t key, oa_eq_fn eq, const void *arg)
{
	if (oa_in_old(t, key)) {
		uint8_t *e = oa_probe_eq(t->old, t->old_nslots, t->esz, key, eq, arg);
		if (oa_key(e))
			return e;
	}
	return oa_probe_eq(t->slots, t->nslots, t->esz, key, eq, arg);
}

static inline void *oa_find_eq(const struct oa_table *t, uint64_t key, oa_eq_fn eq, const void *arg)
{
	void *e = oa_slot_eq(t, key, eq, arg);

	return oa_key(e) ? e : NULL;
}

/*
 * A walk in slices that stays exact while the table changes between them
 * (oa_next does not: growth and deletes move entries). The cursor is a
 * home, not a slot, counted with its bits reversed (the scan of Redis'
 * dictScan): growth turns home h of n slots into h and h + n of 2n, and
 * counting the high home bits first puts both halves of a home already
 * walked before the cursor in the bigger table too. A slice takes whole
 * homes, and an entry is found from its home wherever it sits (the probe
 * run from there, in either table while growing), so one present
 * throughout a walk is visited exactly once, none twice, however the
 * table grows or entries move in between (the table never shrinks).
 */
#define OA_WALK_END (1ull << 32)

static inline uint32_t oa_bitrev32(uint32_t v)
{
	v = (v >> 1 & 0x55555555u) | (v & 0x55555555u) << 1;
	v = (v >> 2 & 0x33333333u) | (v & 0x33333333u) << 2;
	v = (v >> 4 & 0x0f0f0f0fu) | (v & 0x0f0f0f0fu) << 4;
	return __builtin_bswap32(v);
}

/* Called per entry: whether it counts towards the slice's max. Must not change the table. */
typedef bool (*oa_visit_fn)(void *arg, const void *e);

/*
 * The entries of slots[0..nslots) (the table's, or the old one's while
 * growing) whose home in the current table is h: all sit in the probe run
 * from h's slot there, as a home in the old table is h's low bits.
 */
static inline unsigned oa_walk_run(const struct oa_table *t, const uint8_t *slots, uint32_t nslots,
                                   uint32_t h, oa_visit_fn fn, void *arg)
{
	unsigned n = 0;
	uint64_t k;

	for (uint32_t i = h & (nslots - 1); (k = oa_key(slots + (size_t)i * t->esz)) != 0;
	     i = (i + 1) & (nslots - 1))
		if (oa_home(k, t->nslots) == h)
			n += fn(arg, slots + (size_t)i * t->esz);
	return n;
}

/*
 * Visit the entries of whole homes from *cursor (0 to begin) until at least
 * max counted, OA_WALK_HOMES(max) homes looked at, or the table is done;
 * *cursor is left at the next home (OA_WALK_END: done). The home bound
 * keeps a slice short in a table left sparse by deletes (it never
 * shrinks): such a slice counts fewer than max without being the last.
 * Returns how many counted.
 */
#define OA_WALK_HOMES(max) ((uint64_t)(max) * 64 + 1024)

static inline unsigned oa_walk(const struct oa_table *t, uint64_t *cursor, unsigned max,
                               oa_visit_fn fn, void *arg)
{
	uint32_t mask = t->nslots - 1, v;
	uint64_t homes = 0;
	unsigned n = 0;

	if (*cursor >= OA_WALK_END)
		return 0;
	v = (uint32_t)*cursor;
	do {
		n += oa_walk_run(t, t->slots, t->nslots, v & mask, fn, arg);
		if (t->old)
			n += oa_walk_run(t, t->old, t->old_nslots, v & mask, fn, arg);
		/* The next home in bit-reversed order: 0 again once all were walked. */
		v = oa_bitrev32(oa_bitrev32(v | ~mask) + 1);
	} while (v != 0 && n < max && ++homes < OA_WALK_HOMES(max));
	*cursor = v ? v : OA_WALK_END;
	return n;
}

#endif
