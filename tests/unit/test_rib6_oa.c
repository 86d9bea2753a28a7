/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the RIB6 needs of the open-addressing table (daemon/oa_table.h) on
 * top of what the IPv4 tables use: keys that are hashes of a longer
 * identity, so several entries share one (oa_find_eq), and the walk in
 * slices that stays exact while the table grows and entries move between
 * slices (oa_walk). Keys here collide on purpose, in groups of 8, through
 * several growths: the RIB6's real keys collide about once in 2^64 pairs,
 * too rarely for a test to meet otherwise.
 */
#include <stdint.h>
#include <string.h>

#include "daemon/oa_table.h"
#include "tests/unit/check.h"

#define IDS   40000u /* identities 1..IDS */
#define SHARE 8u     /* identities per key */

struct entry {
	uint64_t key; /* id / SHARE + 1 */
	uint32_t id;
	uint32_t value;
};

static uint8_t present[IDS + 1];
static uint8_t seen[IDS + 1];

static uint64_t key_of(uint32_t id)
{
	return id / SHARE + 1;
}

static bool same_id(const void *e, const void *arg)
{
	return ((const struct entry *)e)->id == *(const uint32_t *)arg;
}

static void put(struct oa_table *t, uint32_t id)
{
	CHECK_EQ(oa_reserve(t), 0);
	struct entry *e = oa_slot_eq(t, key_of(id), same_id, &id);
	if (!e->key) {
		oa_claim(t, e, key_of(id));
		e->id = id;
	}
	e->value = id * 3;
	present[id] = 1;
}

static void del(struct oa_table *t, uint32_t id)
{
	struct entry *e = oa_find_eq(t, key_of(id), same_id, &id);

	CHECK(e != NULL);
	if (e)
		oa_remove(t, e);
	present[id] = 0;
}

/* Every identity is found exactly when it is present, with its own value, shared key or not. */
static void check_all(const struct oa_table *t)
{
	unsigned n = 0;

	for (uint32_t id = 1; id <= IDS; id++) {
		const struct entry *e = oa_find_eq(t, key_of(id), same_id, &id);
		if (present[id]) {
			CHECK(e && e->id == id && e->value == id * 3);
			n++;
		} else {
			CHECK(e == NULL);
		}
	}
	CHECK_EQ(t->nused, n);
}

static bool visit(void *arg, const void *p)
{
	const struct entry *e = p;

	(void)arg;
	CHECK(e->id >= 1 && e->id <= IDS);
	if (e->id <= IDS && seen[e->id] < 255)
		seen[e->id]++;
	return true;
}

/* Lookups with shared keys, in either table while growing, and after deletes in shared runs. */
static void test_shared_keys(void)
{
	struct oa_table t;
	bool saw_growing = false;

	CHECK_EQ(oa_init(&t, sizeof(struct entry), 64), 0);
	for (uint32_t id = 1; id <= IDS / 2; id++) {
		put(&t, id);
		if (t.old && !saw_growing) {
			saw_growing = true;
			check_all(&t); /* some entries still in the old table, some moved */
		}
	}
	CHECK(saw_growing);
	check_all(&t);
	/* Every third one goes: deletes inside runs of equal keys shift the rest back. */
	for (uint32_t id = 1; id <= IDS / 2; id += 3)
		del(&t, id);
	check_all(&t);
	for (uint32_t id = IDS / 2 + 1; id <= IDS; id++)
		put(&t, id); /* more growth, with the holes */
	check_all(&t);
	oa_fini(&t);
}

/*
 * A walk in slices of ~100 with the table changing between them: deletes,
 * then enough inserts for two growths. Present throughout: seen once;
 * none seen twice.
 */
static void test_walk_changing(void)
{
	struct oa_table t;
	uint64_t cur = 0;
	uint32_t next = IDS / 4 + 1;
	unsigned slices = 0, slices_growing = 0;
	uint8_t throughout[IDS + 1];

	memset(present, 0, sizeof(present));
	memset(seen, 0, sizeof(seen));
	CHECK_EQ(oa_init(&t, sizeof(struct entry), 1024), 0);
	for (uint32_t id = 1; id <= IDS / 4; id++)
		put(&t, id);
	memcpy(throughout, present, sizeof(present));
	while (cur < OA_WALK_END) {
		unsigned n = oa_walk(&t, &cur, 100, visit, NULL);
		CHECK(n >= 100 || cur == OA_WALK_END);
		slices++;
		slices_growing += t.old != NULL;
		if (slices == 5)
			for (uint32_t id = 2; id <= IDS / 4; id += 4) {
				del(&t, id);
				throughout[id] = 0;
			}
		for (unsigned k = 0; k < 600 && next <= IDS; k++)
			put(&t, next++);
	}
	CHECK(next > IDS && slices_growing >= 4);
	for (uint32_t id = 1; id <= IDS; id++) {
		CHECK(seen[id] <= 1);
		if (throughout[id])
			CHECK(seen[id] == 1);
	}
	check_all(&t);
	oa_fini(&t);
}

int main(void)
{
	test_shared_keys();
	test_walk_changing();
	return check_report("test_rib6_oa");
}
