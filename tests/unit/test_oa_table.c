/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The open-addressing table (daemon/oa_table.h) against a plain reference
 * array, over random inserts, updates and deletes that cross several
 * incremental growths: every key is found exactly when the reference has
 * it, with its value, whether it still sits in the old table or moved; the
 * iteration visits each entry once; no growth step moves more than
 * OA_MIGRATE_SLOTS slots (so no insert rehashes the table); a big table's
 * next one is mapped at 5/8 full and resident, a huge page per step at
 * most, before the growth takes it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemon/oa_table.h"
#include "tests/unit/check.h"

#define KEYS 200000u /* key space; keys are 1..KEYS */

struct entry {
	uint64_t key;
	uint64_t value;
};

static uint64_t ref[KEYS + 1]; /* value + 1 per key, 0 = absent */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void put(struct oa_table *t, uint64_t key, uint64_t value)
{
	CHECK_EQ(oa_reserve(t), 0);
	struct entry *e = oa_slot(t, key);
	if (!e->key)
		oa_claim(t, e, key);
	e->value = value;
	ref[key] = value + 1;
}

static void del(struct oa_table *t, uint64_t key)
{
	struct entry *e = oa_find(t, key);

	CHECK((e != NULL) == (ref[key] != 0));
	if (e)
		oa_remove(t, e);
	ref[key] = 0;
}

/* Every key agrees with the reference; the iteration sees nused distinct entries. */
static void check_all(const struct oa_table *t)
{
	uint32_t n = 0, bad = 0, seen = 0;
	uint64_t pos = 0;
	static uint8_t visited[KEYS + 1];

	for (uint64_t k = 1; k <= KEYS; k++) {
		const struct entry *e = oa_find(t, k);
		n += ref[k] != 0;
		bad += (e != NULL) != (ref[k] != 0) || (e && e->value + 1 != ref[k]);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(t->nused, n);
	memset(visited, 0, sizeof(visited));
	for (const struct entry *e; (e = oa_next(t, &pos)) != NULL; seen++) {
		CHECK(e->key >= 1 && e->key <= KEYS && !visited[e->key]);
		if (e->key >= 1 && e->key <= KEYS)
			visited[e->key] = 1;
	}
	CHECK_EQ(seen, n);
}

static void test_random_ops_across_growths(void)
{
	struct oa_table t;
	unsigned growths = 0, checked_mid = 0;

	CHECK_EQ(oa_init(&t, sizeof(struct entry), 64), 0);
	for (unsigned round = 0; round < 600000; round++) {
		uint64_t key = next_rand() % KEYS + 1, r = next_rand() % 10;
		bool growing = t.old != NULL;

		if (r < 6)
			put(&t, key, next_rand());
		else if (r < 9)
			del(&t, key);
		else
			CHECK((oa_find(&t, key) != NULL) == (ref[key] != 0));
		if (!growing && t.old)
			growths++;
		/* Look at everything while a growth is half done, a few times. */
		if (t.old && t.mig > t.old_nslots / 2 && checked_mid < 6 && round % 97 == 0) {
			check_all(&t);
			checked_mid++;
		}
	}
	check_all(&t);
	CHECK(growths >= 8);
	CHECK(checked_mid >= 3);
	oa_fini(&t);
}

/* The longest run of occupied slots in the old table (a run may wrap round its end). */
static uint32_t old_longest_run(const struct oa_table *t)
{
	uint32_t best = 0, run = 0, mask = t->old_nslots - 1;

	for (uint32_t i = 0; i < 2 * t->old_nslots && run < t->old_nslots; i++) {
		run = oa_key(t->old + (size_t)(i & mask) * t->esz) ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

/* Every old slot still holds what it held when the growth began, or nothing. */
static bool old_entries_stayed(const struct oa_table *t, const uint8_t *before)
{
	for (uint32_t i = 0; i < t->old_nslots; i++) {
		uint64_t k = oa_key(t->old + (size_t)i * t->esz);
		if (k && k != oa_key(before + (size_t)i * t->esz))
			return false;
	}
	return true;
}

/*
 * One reserve moves about OA_MIGRATE_SLOTS old slots, whole runs at a time
 * (so at most the budget plus the longest run), and growth finishes before
 * the next. No entry moves inside the old table meanwhile: moving one entry
 * at a time and shifting its run back after it cost the square of the run
 * length, which doubled the cost of a first FPM load.
 */
static void test_growth_is_incremental(void)
{
	struct oa_table t;
	uint64_t k = 1;

	memset(ref, 0, sizeof(ref));
	CHECK_EQ(oa_init(&t, sizeof(struct entry), 1024), 0);
	while (!t.old)
		put(&t, k, k), k++;
	uint32_t old_slots = t.old_nslots, steps = 0, max_step = 0, run = old_longest_run(&t);
	CHECK_EQ(t.nslots, 2 * old_slots);
	CHECK(run > 1); /* linear probing at 3/4 load: the run bound below is not vacuous */
	uint8_t *snap = malloc((size_t)old_slots * t.esz);
	bool stayed = true;
	CHECK(snap != NULL);
	memcpy(snap, t.old, (size_t)old_slots * t.esz);
	while (t.old) {
		uint32_t before = t.mig;
		put(&t, k, k), k++;
		if (t.old && t.mig - before > max_step)
			max_step = t.mig - before;
		if (t.old)
			stayed &= old_entries_stayed(&t, snap);
		steps++;
	}
	free(snap);
	CHECK(stayed);
	CHECK(max_step <= OA_MIGRATE_SLOTS + run);
	/* Done in time: the new table is not yet 3/4 full when the old one empties. */
	CHECK((uint64_t)t.nused * 4 <= (uint64_t)t.nslots * 3);
	CHECK(steps <= old_slots / (OA_MIGRATE_SLOTS / 2));
	check_all(&t);
	oa_clear(&t);
	CHECK_EQ(t.nused, 0);
	memset(ref, 0, sizeof(ref));
	check_all(&t);
	oa_fini(&t);
}

/* Pages of [p, p + len) the kernel has mapped in (mincore). */
static size_t resident_pages(const uint8_t *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (len + pg - 1) / pg, in = 0;
	unsigned char *v = malloc(n);

	CHECK(v != NULL);
	if (!v || mincore((void *)p, len, v) != 0)
		n = 0;
	for (size_t i = 0; i < n; i++)
		in += v[i] & 1;
	free(v);
	return in;
}

static void test_next_table_faulted_ahead(void)
{
	struct oa_table t;
	uint64_t k = 1;
	const uint32_t slots = 1u << 18; /* 4 MiB of entries: the next table is 4 huge pages */
	size_t total = (size_t)slots * 2 * sizeof(struct entry), max_step = 0;

	memset(ref, 0, sizeof(ref));
	CHECK_EQ(oa_init(&t, sizeof(struct entry), slots), 0);
	while ((uint64_t)(t.nused + 1) * 8 <= (uint64_t)slots * 5) {
		put(&t, k, k), k++;
		CHECK(t.next == NULL);
	}
	uint8_t *next = NULL;
	while (!t.old) {
		size_t before = t.next ? t.next_done : 0;
		put(&t, k, k), k++;
		if (!t.old) {
			CHECK(t.next != NULL);
			next = t.next;
			if (t.next_done - before > max_step)
				max_step = t.next_done - before;
			if (!t.old && (uint64_t)(t.nused + 2) * 4 > (uint64_t)slots * 3) {
				/* The last insert before the growth: all of it faulted in already. */
				CHECK_EQ(t.next_done, total);
				CHECK_EQ(resident_pages(t.next, total), total / (size_t)sysconf(_SC_PAGESIZE));
			}
		}
	}
	CHECK(max_step <= OA_HUGE_PAGE);
	CHECK(t.slots == next); /* the growth took the faulted-in table */
	CHECK(t.next == NULL);
	check_all(&t);
	oa_fini(&t);
}

int main(void)
{
	test_random_ops_across_growths();
	test_growth_is_incremental();
	test_next_table_faulted_ahead();
	return check_report("test_oa_table");
}
