/*
 * A hash table with open addressing and linear probing, for fixed-size
 * entries that start with a nonzero uint64_t key (0 marks an empty slot).
 * A lookup is one cache miss and an entry costs no allocation of its own:
 * the RIB and the FPM table hold a million routes each and change them at
 * millions per second. Deletion shifts later entries of the probe run back
 * (no tombstones), so entries move: refer to them by key, not by address,
 * across inserts and deletes.
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
	uint32_t nused;
	uint32_t esz; /* entry size, key first */
};

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

#define OA_HUGE_PAGE (2u << 20)
#ifdef MADV_POPULATE_WRITE
#define OA_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#else
#define OA_MADV_POPULATE_WRITE 23 /* linux/mman.h, 5.14 */
#endif

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
	/*
	 * Every slot is read right away (rehash), which maps the shared zero
	 * page, and written soon after, which faults again: fault it in
	 * writable once instead (Linux 5.14; older kernels fault lazily).
	 */
	(void)madvise(p, bytes, OA_MADV_POPULATE_WRITE);
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
	t->slots = oa_alloc((size_t)nslots * esz);
	t->nslots = nslots;
	t->nused = 0;
	t->esz = esz;
	return t->slots ? 0 : -ENOMEM;
}

static inline void oa_fini(struct oa_table *t)
{
	oa_free(t->slots, (size_t)t->nslots * t->esz);
	t->slots = NULL;
}

/* The entry holding key, or the empty slot where it would go. */
static inline void *oa_slot(const struct oa_table *t, uint64_t key)
{
	uint32_t mask = t->nslots - 1, i = oa_home(key, t->nslots);
	uint64_t k;

	while ((k = oa_key(oa_at(t, i))) != 0 && k != key)
		i = (i + 1) & mask;
	return oa_at(t, i);
}

static inline void *oa_find(const struct oa_table *t, uint64_t key)
{
	void *e = oa_slot(t, key);

	return oa_key(e) ? e : NULL;
}

/* Make room for one more entry: doubles the table once it is 3/4 full. 0 or -ENOMEM. */
static inline int oa_reserve(struct oa_table *t)
{
	struct oa_table n;

	if ((uint64_t)(t->nused + 1) * 4 <= (uint64_t)t->nslots * 3)
		return 0;
	if (oa_init(&n, t->esz, t->nslots * 2) != 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->nslots; i++) {
		const uint8_t *e = oa_at(t, i);
		if (oa_key(e))
			memcpy(oa_slot(&n, oa_key(e)), e, t->esz);
	}
	n.nused = t->nused;
	oa_fini(t);
	*t = n;
	return 0;
}

/* Claim the empty slot e (from oa_slot, after oa_reserve) for key. */
static inline void oa_claim(struct oa_table *t, void *e, uint64_t key)
{
	memset(e, 0, t->esz);
	memcpy(e, &key, sizeof(key));
	t->nused++;
}

/* Empty entry e, moving later entries of its probe run back into the hole. */
static inline void oa_remove(struct oa_table *t, void *e)
{
	uint32_t mask = t->nslots - 1;
	uint32_t hole = (uint32_t)(((uint8_t *)e - t->slots) / t->esz), j = hole;

	for (;;) {
		j = (j + 1) & mask;
		uint64_t k = oa_key(oa_at(t, j));
		if (!k)
			break;
		uint32_t home = oa_home(k, t->nslots);
		/* j may fill the hole unless its home lies cyclically in (hole, j]. */
		bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!stays) {
			memcpy(oa_at(t, hole), oa_at(t, j), t->esz);
			hole = j;
		}
	}
	memset(oa_at(t, hole), 0, t->esz);
	t->nused--;
}

#endif
