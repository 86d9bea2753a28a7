/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What only Poptrie has (the longest-match behaviour both algorithms share is
 * tested in test_fib.c): the read side is walked from direct[] and checked
 * for shape (at most three node levels, no node that should have been one
 * leaf, no two neighbouring runs of the same value) and for accounting (every
 * live pool element reachable, nothing leaked after churn and reclaim); a
 * subtree of one value is published as one leaf; a value change that keeps
 * the node's shape is written in place, without new blocks; freed blocks wait
 * for fib4_poptrie_reclaim; and a full pool fails an insert without
 * changing anything.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib4_poptrie.h"
#include "tests/unit/fib_ref.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			printf("FAIL %s:%d: ", __func__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

struct shape {
	uint64_t nodes, leaves;
	unsigned bad;
};

static void shape_node(const struct fib4_poptrie_dir *d, const struct fib4_poptrie_node *n,
                       unsigned level, struct shape *s)
{
	unsigned nl = (unsigned)__builtin_popcountll(n->leafvec);

	s->nodes++;
	s->leaves += nl;
	/* Levels below direct[]: /24, /30, /32; the last one has no children. */
	if (level > 3 || (level == 3 && n->vector))
		s->bad++;
	/* One run and no child: should have been published as a leaf. */
	if (!n->vector && nl == 1)
		s->bad++;
	for (unsigned k = 1; k < nl; k++) {
		if (d->words[n->base0 + k] == d->words[n->base0 + k - 1])
			s->bad++;
	}
	for (unsigned k = 0; k < (unsigned)__builtin_popcountll(n->vector); k++)
		shape_node(d,
		           fib4_poptrie_node_at(d->words, n->base1 + FIB4_POPTRIE_NODE_WORDS * k),
		           level + 1, s);
}

static void check_shape(const struct fib4_poptrie *fib)
{
	const struct fib4_poptrie_dir *d = (const struct fib4_poptrie_dir *)fib;
	struct fib4_poptrie_stats st;
	struct shape s = {0};

	for (uint32_t i = 0; i < (1u << FIB4_POPTRIE_DIRECT); i++) {
		uint32_t at = d->direct[i] & ~FIB4_POPTRIE_EXT;

		if (!(d->direct[i] & FIB4_POPTRIE_EXT))
			continue;
		/* A /18 slot's node has its leaves right behind it (one cache line, or two). */
		if (fib4_poptrie_node_at(d->words, at)->base0 != at + FIB4_POPTRIE_NODE_WORDS)
			s.bad++;
		shape_node(d, fib4_poptrie_node_at(d->words, at), 1, &s);
	}
	fib4_poptrie_get_stats(fib, &st);
	CHECK(s.bad == 0, "%u shape faults", s.bad);
	CHECK(s.nodes == st.nodes && s.leaves == st.leaves,
	      "reachable %lu nodes %lu leaves, pools hold %lu and %lu", (unsigned long)s.nodes,
	      (unsigned long)s.leaves, (unsigned long)st.nodes, (unsigned long)st.leaves);
}

static void test_collapse_and_in_place(void)
{
	struct fib4_poptrie *fib = fib4_poptrie_create(0);
	struct fib4_poptrie_stats st;

	CHECK(fib4_poptrie_insert(fib, IP(10, 0, 0, 0), 16, 5) == 0, "/16");
	CHECK(fib4_poptrie_insert(fib, IP(10, 0, 1, 0), 24, 5) == 0, "/24 same value");
	fib4_poptrie_get_stats(fib, &st);
	CHECK(st.nodes == 0 && st.shadow_nodes == 1, "same value: %lu nodes, %lu shadow",
	      (unsigned long)st.nodes, (unsigned long)st.shadow_nodes);
	CHECK(fib4_poptrie_lookup(fib, IP(10, 0, 1, 9)) == 5, "collapsed lookup");
	CHECK(fib4_poptrie_insert(fib, IP(10, 0, 2, 0), 24, 6) == 0, "/24 other value");
	fib4_poptrie_get_stats(fib, &st);
	CHECK(st.nodes == 1 && st.leaves == 3, "%lu nodes %lu leaves, want 1 and 3",
	      (unsigned long)st.nodes, (unsigned long)st.leaves);
	check_shape(fib);

	/* Next hop change of the /24: same runs, so rewritten in place. */
	fib4_poptrie_reclaim(fib);
	CHECK(fib4_poptrie_insert(fib, IP(10, 0, 2, 0), 24, 7) == 0, "replace");
	fib4_poptrie_get_stats(fib, &st);
	CHECK(st.pending == 0, "in-place replace parked %lu blocks", (unsigned long)st.pending);
	CHECK(fib4_poptrie_lookup(fib, IP(10, 0, 2, 1)) == 7, "replaced value");
	CHECK(fib4_poptrie_lookup(fib, IP(10, 0, 3, 1)) == 5, "neighbour");

	/* Back to one value: the node goes, its blocks wait for the grace period. */
	CHECK(fib4_poptrie_delete(fib, IP(10, 0, 2, 0), 24) == 0, "delete");
	fib4_poptrie_get_stats(fib, &st);
	CHECK(st.nodes == 0 && st.pending > 0, "after delete %lu nodes, %lu pending",
	      (unsigned long)st.nodes, (unsigned long)st.pending);
	fib4_poptrie_reclaim(fib);
	fib4_poptrie_get_stats(fib, &st);
	CHECK(st.pending == 0, "reclaim left %lu", (unsigned long)st.pending);
	check_shape(fib);
	fib4_poptrie_destroy(fib);
}

/* Random churn in 10.0.0.0/14 (16 direct[] slots), drained at the end. */
static void churn(struct fib4_poptrie *fib, uint64_t seed)
{
	static struct ref_route routes[3000];
	struct fib_ref ref = {routes, 0, 3000};

	rng_state = seed;
	for (unsigned i = 1; i <= 20000; i++) {
		uint8_t len = (uint8_t)(16 + rnd() % 17);
		uint32_t prefix = (IP(10, 0, 0, 0) | (rnd() & 0x3ffff)) & ref_mask(len);
		uint32_t value = 1 + rnd() % 4;

		if (ref.n && rnd() % 3 == 0) {
			struct ref_route r = ref.r[rnd() % ref.n];

			CHECK(fib4_poptrie_delete(fib, r.prefix, r.len) == 0, "delete");
			ref_del(&ref, r.prefix, r.len);
		} else if (ref_set(&ref, prefix, len, value) == 0) {
			CHECK(fib4_poptrie_insert(fib, prefix, len, value) == 0, "insert");
		}
		if (i % 97 == 0)
			fib4_poptrie_reclaim(fib);
		if (i % 2000 == 0) {
			check_shape(fib);
			for (unsigned k = 0; k < 2000; k++) {
				uint32_t a = IP(10, 0, 0, 0) | (rnd() & 0x3ffff);

				CHECK(fib4_poptrie_lookup(fib, a) == ref_lookup(&ref, a),
				      "lookup %08x", a);
			}
		}
	}
	while (ref.n) {
		CHECK(fib4_poptrie_delete(fib, ref.r[0].prefix, ref.r[0].len) == 0, "drain");
		ref_del(&ref, ref.r[0].prefix, ref.r[0].len);
	}
	fib4_poptrie_reclaim(fib);
}

/*
 * The shape and the books along the way and when empty; then the same churn again:
 * every block it needs must come back from the free lists, the pools must not grow.
 */
static void test_churn_accounting(void)
{
	struct fib4_poptrie *fib = fib4_poptrie_create(0);
	struct fib4_poptrie_stats st, st1;

	churn(fib, 0x243f6a8885a308d3ull);
	fib4_poptrie_get_stats(fib, &st);
	CHECK(st.nodes == 0 && st.leaves == 0 && st.shadow_nodes == 0 && st.pending == 0 &&
	          st.routes == 0 && st.lookup_bytes == (4u << FIB4_POPTRIE_DIRECT),
	      "empty table holds %lu nodes %lu leaves %lu shadow %lu pending, %zu bytes",
	      (unsigned long)st.nodes, (unsigned long)st.leaves, (unsigned long)st.shadow_nodes,
	      (unsigned long)st.pending, st.lookup_bytes);
	check_shape(fib);
	churn(fib, 0x243f6a8885a308d3ull);
	fib4_poptrie_get_stats(fib, &st1);
	CHECK(st1.touched_bytes == st.touched_bytes, "second churn grew the pools: %zu -> %zu",
	      st.touched_bytes, st1.touched_bytes);
	fib4_poptrie_destroy(fib);
}

static void snapshot(const struct fib4_poptrie *fib, uint32_t *out, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = fib4_poptrie_lookup(fib, IP(10, 0, 0, 0) + i * 64);
}

/* A tiny pool (4 KiB): inserts that need nodes fail with -ENOSPC and change nothing. */
static void test_pool_full(void)
{
	enum { SPAN = 1u << 16 };
	static uint32_t before[SPAN], after[SPAN];
	struct fib4_poptrie *fib = fib4_poptrie_create(4);
	struct fib4_poptrie_stats st0, st;
	unsigned ok = 0;
	int rc = 0;

	CHECK(fib != NULL, "create(4)");
	CHECK(fib4_poptrie_insert(fib, IP(10, 0, 0, 0), 8, 1) == 0, "/8");
	/* Each /24 in its own /18: one node each. */
	for (uint32_t i = 0; i < 1024 && rc == 0; i++) {
		rc = fib4_poptrie_insert(fib, IP(10, 0, 0, 0) | i << 14, 24, 2 + i);
		ok += rc == 0;
	}
	CHECK(rc == -ENOSPC && ok > 0, "4 KiB pool took %u /24s, last rc %d", ok, rc);
	fib4_poptrie_get_stats(fib, &st0);
	snapshot(fib, before, SPAN);
	CHECK(fib4_poptrie_insert(fib, IP(10, 0, 0, 0) | ok << 14, 24, 99) == -ENOSPC, "again");
	CHECK(fib4_poptrie_insert(fib, IP(10, 0, 0, 0) | ok << 14 | 7, 32, 99) == -ENOSPC, "/32");
	snapshot(fib, after, SPAN);
	fib4_poptrie_get_stats(fib, &st);
	CHECK(memcmp(before, after, sizeof(before)) == 0, "failed insert changed lookups");
	CHECK(fib4_poptrie_get(fib, IP(10, 0, 0, 0) | ok << 14, 24) == 0, "failed insert indexed");
	CHECK(st.routes == st0.routes && st.nodes == st0.nodes && st.leaves == st0.leaves,
	      "failed insert changed stats");
	/* Routes that need no node still fit: /8../18 live in direct[]. */
	CHECK(fib4_poptrie_insert(fib, IP(11, 0, 0, 0), 8, 3) == 0, "/8 needs no node");
	CHECK(fib4_poptrie_lookup(fib, IP(11, 2, 3, 4)) == 3, "/8 lookup");
	CHECK(fib4_poptrie_lookup(fib, IP(10, 0, 0, 1)) == 2, "first /24 still there");
	check_shape(fib);
	fib4_poptrie_destroy(fib);
}

int main(void)
{
	test_collapse_and_in_place();
	test_churn_accounting();
	test_pool_full();
	if (failures) {
		printf("test_fib_poptrie: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_fib_poptrie: ok\n");
	return 0;
}
