/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FIB6 against a naive longest match (every installed prefix compared with
 * the address), over random and in-table keys after random insert/delete
 * sequences; argument checks, every prefix length, exhaustion of the reader
 * arrays (a failed update changes nothing), reclaim, the walk, path
 * compression (lone prefixes, chains split and joined again), and a reader
 * thread that must never see a torn or reclaimed-too-early node.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib6.h"
#include "datapath/fib/fib6_priv.h" /* the skip records readers see */
#include "tests/unit/check.h"
#include "tests/unit/fib6_ref.h"

/* ---- cases ---- */

static void test_args(void)
{
	struct fib6 *f = fib6_create(0, 0);
	uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8};

	CHECK(f != NULL);
	CHECK_EQ(fib6_insert(f, a, 129, 1), -EINVAL);
	CHECK_EQ(fib6_insert(f, a, 16, 1), -EINVAL); /* host bits set past /16 */
	CHECK_EQ(fib6_insert(f, a, 32, 0), -EINVAL);
	CHECK_EQ(fib6_insert(f, a, 32, FIB6_VALUE_MAX + 1), -EINVAL);
	CHECK_EQ(fib6_insert(f, a, 32, FIB6_VALUE_MAX), 0);
	CHECK_EQ(fib6_lookup(f, a), FIB6_VALUE_MAX);
	CHECK_EQ(fib6_delete(f, a, 33), -ENOENT);
	CHECK_EQ(fib6_delete(f, a, 28), -EINVAL); /* 0x0db8: bit 28 is set */
	CHECK_EQ(fib6_delete(f, a, 129), -EINVAL);
	CHECK_EQ(fib6_get(f, a, 32), FIB6_VALUE_MAX);
	CHECK_EQ(fib6_get(f, a, 48), 0);
	CHECK_EQ(fib6_delete(f, a, 32), 0);
	CHECK_EQ(fib6_delete(f, a, 32), -ENOENT);
	memset(a, 0, sizeof(a));
	CHECK_EQ(fib6_delete(f, a, 0), -ENOENT);
	CHECK_EQ(fib6_lookup(f, a), 0);
	fib6_destroy(f);
	CHECK(fib6_create(0x80000000u, 0) == NULL);
}

/* 2001:db8::/32 and friends: the fall-back chain of RFC 4632-style nesting. */
static void test_nested(void)
{
	struct fib6 *f = fib6_create(0, 0);
	u128 doc = (u128)0x20010db8u << 96;
	u128 site = doc | (u128)0x0001u << 80; /* 2001:db8:1::/48 */
	u128 host = site | 0x42;               /* 2001:db8:1::42/128 */

	CHECK_EQ(ins(f, 0, 0, 1), 0);
	CHECK_EQ(ins(f, doc, 32, 2), 0);
	CHECK_EQ(ins(f, site, 48, 3), 0);
	CHECK_EQ(ins(f, host, 128, 4), 0);
	CHECK_EQ(look(f, host), 4);
	CHECK_EQ(look(f, host + 1), 3);
	CHECK_EQ(look(f, site | (u128)0xffff << 64), 3);
	CHECK_EQ(look(f, doc | (u128)2 << 80), 2);
	CHECK_EQ(look(f, (u128)0x20010db9u << 96), 1);
	CHECK_EQ(ins(f, site, 48, 30), 0); /* replace */
	CHECK_EQ(look(f, host + 1), 30);
	CHECK_EQ(del(f, site, 48), 0);
	CHECK_EQ(look(f, host + 1), 2);
	CHECK_EQ(look(f, host), 4);
	CHECK_EQ(del(f, 0, 0), 0);
	CHECK_EQ(look(f, (u128)0x20010db9u << 96), 0);
	CHECK_EQ(del(f, doc, 32), 0);
	CHECK_EQ(look(f, host + 1), 0);
	CHECK_EQ(look(f, host), 4);
	CHECK_EQ(del(f, host, 128), 0);
	CHECK_EQ(look(f, host), 0);

	struct fib6_stats st;
	fib6_reclaim(f);
	fib6_get_stats(f, &st);
	CHECK_EQ(st.routes, 0);
	CHECK_EQ(st.nodes_used, 0);
	CHECK_EQ(st.leaves_used, 0);
	CHECK_EQ(st.cnodes, 0);
	fib6_destroy(f);
}

/* Every length 0..128 along one address, each checked where its bit differs. */
static void test_every_length(void)
{
	struct fib6 *f = fib6_create(0, 0);
	struct ref *r = calloc(1, sizeof(*r));
	u128 a = rnd128();
	unsigned order[129];

	for (unsigned l = 0; l <= 128; l++) {
		CHECK_EQ(ins(f, a & mask(l), l, l + 1), 0);
		ref_set(r, a & mask(l), l, l + 1);
	}
	CHECK_EQ(look(f, a), 129);
	for (unsigned l = 0; l < 128; l++) /* flipping bit l leaves prefixes up to /l */
		CHECK_EQ(look(f, a ^ (u128)1 << (127 - l)), l + 1);
	for (unsigned i = 0; i <= 128; i++)
		order[i] = i;
	for (unsigned i = 128; i > 0; i--) {
		unsigned j = (unsigned)(rnd64() % (i + 1)), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned i = 0; i <= 128; i++) {
		unsigned l = order[i];

		CHECK_EQ(del(f, a & mask(l), l), 0);
		ref_del(r, ref_find(r, a & mask(l), l));
		CHECK_EQ(look(f, a), ref_lookup(r, a));
		for (unsigned k = 0; k < 128; k += 7)
			CHECK_EQ(look(f, a ^ (u128)1 << (127 - k)),
			         ref_lookup(r, a ^ (u128)1 << (127 - k)));
	}
	free(r);
	fib6_destroy(f);
}

static void random_rounds(struct fib6 *f, struct ref *r, unsigned rounds, unsigned ops)
{
	uint32_t next = 1;

	for (unsigned round = 0; round < rounds; round++) {
		for (unsigned k = 0; k < ops; k++) {
			bool add = r->n < 64 || rnd64() % 100 < 55;

			if (add && r->n < REF_MAX) {
				unsigned len = pick_len();
				u128 key = pick_key(len);

				CHECK_EQ(ins(f, key, len, next), 0);
				ref_set(r, key, len, next);
				next = next % FIB6_VALUE_MAX + 1;
			} else if (r->n) {
				int i = (int)(rnd64() % r->n);

				CHECK_EQ(del(f, r->key[i], r->len[i]), 0);
				ref_del(r, i);
			}
		}
		CHECK_EQ(compare(f, r, 2000), 0);
		if (round % 4 == 0)
			fib6_reclaim(f);
	}
	check_walk(f, r);
}

static void test_random(void)
{
	struct fib6 *f = fib6_create(0, 0);
	struct ref *r = calloc(1, sizeof(*r));
	struct fib6_stats st;

	random_rounds(f, r, 60, 200);
	/* Empty it again: nothing may be left behind. */
	while (r->n) {
		CHECK_EQ(del(f, r->key[r->n - 1], r->len[r->n - 1]), 0);
		r->n--;
	}
	CHECK_EQ(compare(f, r, 500), 0);
	fib6_reclaim(f);
	fib6_get_stats(f, &st);
	CHECK_EQ(st.routes, 0);
	CHECK_EQ(st.nodes_used + st.leaves_used + st.cnodes, 0);
	CHECK_EQ(st.nodes_pending + st.leaves_pending, 0);
	free(r);
	fib6_destroy(f);
}

/* Scalar and bulk lookup of `a`, both against the reference. */
static void check_both(const struct fib6 *f, const struct ref *r, u128 a)
{
	uint8_t b[16];
	const uint8_t *p[1] = {b};
	uint32_t v = 0;

	store(a, b);
	fib6_lookup_bulk(f, p, &v, 1);
	CHECK_EQ(fib6_lookup(f, b), ref_lookup(r, a));
	CHECK_EQ(v, ref_lookup(r, a));
}

/* `a` and every address one bit away: each skipped bit is compared once. */
static void check_around(const struct fib6 *f, const struct ref *r, u128 a)
{
	check_both(f, r, a);
	for (unsigned k = 0; k < 128; k++)
		check_both(f, r, a ^ (u128)1 << k);
}

static void set(struct fib6 *f, struct ref *r, u128 key, unsigned len, uint32_t v)
{
	CHECK_EQ(ins(f, key & mask(len), len, v), 0);
	ref_set(r, key & mask(len), len, v);
}

static void unset(struct fib6 *f, struct ref *r, u128 key, unsigned len)
{
	CHECK_EQ(del(f, key & mask(len), len), 0);
	ref_del(r, ref_find(r, key & mask(len), len));
}

/* What readers find in the dir slot of `a`: the root's record, or NULL. */
static const struct fib6_node *root_rec(const struct fib6 *f, u128 a)
{
	uint32_t e = f->dir[(uint32_t)(a >> (128 - FIB6_DIR_BITS))];

	return e & FIB6_NODE ? &f->nodes[e & ~FIB6_NODE] : NULL;
}

/*
 * Path compression: a prefix alone in its /18 at every length (chains of
 * single-child nodes, ending on a stride boundary or inside a node, longer
 * than one skip record holds), under a covering /16 whose value a key that
 * leaves the chain must get; then a chain split by a sibling, joined again,
 * given a prefix of its own on the way and a child under its end.
 */
static void test_skip(void)
{
	static const unsigned lens[] = {19, 23, 24, 30, 36, 41, 42, 43, 45, 47,
	                                48, 54, 64, 80, 100, 126, 127, 128};
	struct fib6 *f = fib6_create(0, 0);
	struct ref *r = calloc(1, sizeof(*r));
	u128 a = (rnd128() & ~mask(3)) | (u128)1 << 125; /* in 2000::/3 */
	u128 b = a ^ (u128)1 << (127 - 40);              /* splits below bit 36 */
	const struct fib6_node *n;

	set(f, r, a, 16, 7);
	for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		set(f, r, a, lens[i], 100 + lens[i]);
		check_around(f, r, a);
		unset(f, r, a, lens[i]);
		check_around(f, r, a);
		fib6_reclaim(f);
	}
	/* A lone /48: the root is one terminal skip, the walk one node. */
	set(f, r, a, 48, 1);
	n = root_rec(f, a);
	CHECK(n && fib6_node_is_skip(n) && (n->base1 & FIB6_SKIP_TERM));
	CHECK_EQ(n ? n->leaf[2] : 0, 48 - FIB6_DIR_BITS);
	set(f, r, b, 48, 2);
	check_around(f, r, a);
	check_around(f, r, b);
	/* Split below bit 36: the root is a skip of 18 bits to the node with two children. */
	n = root_rec(f, a);
	CHECK(n && fib6_node_is_skip(n) && !(n->base1 & FIB6_SKIP_TERM));
	CHECK_EQ(n ? n->leaf[2] : 0, 36 - FIB6_DIR_BITS);
	CHECK(n && !fib6_node_is_skip(&f->nodes[n->base1]));
	unset(f, r, b, 48);
	check_around(f, r, a);
	set(f, r, a, 40, 3); /* a prefix on the chain: that node is no skip any more */
	check_around(f, r, a);
	check_around(f, r, b);
	unset(f, r, a, 40);
	set(f, r, a, 64, 4); /* the end of the chain gets a child */
	check_around(f, r, a);
	set(f, r, a, 20, 5); /* the root gets a prefix: its child chain inherits it */
	check_around(f, r, a);
	check_around(f, r, b);
	CHECK_EQ(compare(f, r, 2000), 0);
	while (r->n) {
		CHECK_EQ(del(f, r->key[r->n - 1], r->len[r->n - 1]), 0);
		r->n--;
	}
	check_around(f, r, a);
	fib6_reclaim(f);
	struct fib6_stats st;
	fib6_get_stats(f, &st);
	CHECK_EQ(st.nodes_used + st.leaves_used + st.cnodes, 0);
	free(r);
	fib6_destroy(f);
}

/*
 * Reader arrays far too small: inserts and deletes fail with -ENOSPC at some
 * point, and each failure must leave lookups exactly as before.
 */
static void test_exhaustion(void)
{
	struct fib6 *f = fib6_create(300, 1500);
	struct ref *r = calloc(1, sizeof(*r));
	unsigned full = 0, del_full = 0;

	for (unsigned k = 0; k < 3000; k++) {
		bool add = rnd64() % 100 < 60;
		int rc;

		if (add || !r->n) {
			unsigned len = pick_len();
			u128 key = pick_key(len);
			int was = ref_find(r, key, len);
			uint32_t old = was >= 0 ? r->val[was] : 0;

			rc = ins(f, key, len, k + 1);
			CHECK(rc == 0 || rc == -ENOSPC);
			if (rc == 0)
				ref_set(r, key, len, k + 1);
			else
				full++;
			if (rc != 0 && was >= 0)
				CHECK_EQ(r->val[was], old);
		} else {
			int i = (int)(rnd64() % r->n);

			rc = del(f, r->key[i], r->len[i]);
			CHECK(rc == 0 || rc == -ENOSPC);
			if (rc == 0)
				ref_del(r, i);
			else
				del_full++;
		}
		if (rc != 0)
			CHECK_EQ(compare(f, r, 111), 0);
		if (k % 50 == 0)
			fib6_reclaim(f);
	}
	CHECK(full > 0);
	CHECK_EQ(compare(f, r, 1000), 0);
	check_walk(f, r);
	printf("exhaustion: %u inserts and %u deletes refused, %u routes held\n", full, del_full,
	       r->n);
	free(r);
	fib6_destroy(f);
}

/* Random updates in batches: until fib6_batch_end readers see the state before it. */
static void test_batch(void)
{
	struct fib6 *f = fib6_create(0, 0);
	struct ref *r = calloc(1, sizeof(*r));
	uint32_t next = 1;

	for (unsigned round = 0; round < 40; round++) {
		struct ref *before = ref_dup(r);

		fib6_batch_begin(f);
		for (unsigned k = 0; k < 150; k++) {
			if (r->n < 64 || rnd64() % 100 < 55) {
				unsigned len = pick_len();
				u128 key = pick_key(len);

				CHECK_EQ(ins(f, key, len, next), 0);
				ref_set(r, key, len, next++);
			} else {
				int i = (int)(rnd64() % r->n);

				CHECK_EQ(del(f, r->key[i], r->len[i]), 0);
				ref_del(r, i);
			}
		}
		CHECK_EQ(compare(f, before, 300), 0); /* not yet published */
		if (round % 8 == 0)
			check_walk(f, r); /* the control side is already there */
		CHECK_EQ(fib6_batch_end(f), 0);
		CHECK_EQ(compare(f, r, 600), 0);
		fib6_reclaim(f);
		free(before);
	}
	check_walk(f, r);
	free(r);
	fib6_destroy(f);
}

/*
 * Batches into arrays too small: fib6_batch_end fails with -ENOSPC leaving
 * each slot either old or new, and succeeds once routes leave the batch.
 */
static void test_batch_exhaustion(void)
{
	struct fib6 *f = fib6_create(400, 2000);
	struct ref *r = calloc(1, sizeof(*r)), *st[24];
	unsigned failed = 0;

	for (unsigned round = 0; round < 30; round++) {
		unsigned nst = 0;
		int rc;

		st[nst++] = ref_dup(r);
		fib6_batch_begin(f);
		for (unsigned k = 0; k < 60; k++) {
			unsigned len = pick_len();
			u128 key = pick_key(len);

			CHECK_EQ(ins(f, key, len, round * 100 + k + 1), 0);
			ref_set(r, key, len, round * 100 + k + 1);
		}
		while ((rc = fib6_batch_end(f)) != 0 && nst < 24) {
			CHECK_EQ(rc, -ENOSPC);
			st[nst++] = ref_dup(r);
			CHECK_EQ(compare_any(f, st, nst, 400), 0);
			failed++;
			fib6_reclaim(f);
			/* Make room: drop a tenth of the routes, inside the still open batch. */
			for (unsigned k = 0; k < r->n / 10 + 1 && r->n; k++) {
				int i = (int)(rnd64() % r->n);

				CHECK_EQ(del(f, r->key[i], r->len[i]), 0);
				ref_del(r, i);
			}
		}
		CHECK_EQ(rc, 0);
		CHECK_EQ(compare(f, r, 400), 0);
		fib6_reclaim(f);
		while (nst)
			free(st[--nst]);
	}
	CHECK(failed > 0);
	check_walk(f, r);
	free(r);
	fib6_destroy(f);
}

/* ---- a reader beside the writer ---- */

struct race {
	struct fib6 *fib;
	u128 addr;
	unsigned long epoch; /* reader's quiescent-state counter */
	unsigned long bad, reads;
	int stop;
};

static void *race_reader(void *arg)
{
	struct race *r = arg;
	uint8_t a[16];
	uint32_t last = 0;

	store(r->addr, a);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		uint32_t v = fib6_lookup(r->fib, a);

		/* Values only grow over time, and every state of the table routes the address. */
		if (v == 0 || v < last)
			r->bad++;
		last = v;
		r->reads++;
		__atomic_store_n(&r->epoch, r->epoch + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* A grace period: the reader has finished at least one lookup since now. */
static void grace_period(struct race *r)
{
	unsigned long e = __atomic_load_n(&r->epoch, __ATOMIC_ACQUIRE);

	while (__atomic_load_n(&r->epoch, __ATOMIC_ACQUIRE) < e + 2)
		sched_yield(); /* two shared CPUs: let the reader run */
}

static void test_race(void)
{
	struct race r = {.fib = fib6_create(4096, 16384)};
	u128 net = (u128)0x2a020000u << 96 | (u128)0x1234u << 80; /* 2a02:0:1234::/48 */
	pthread_t th;

	r.addr = net | 0x99;
	CHECK_EQ(ins(r.fib, net & mask(32), 32, 1), 0);
	pthread_create(&th, NULL, race_reader, &r);
	/*
	 * What the address sees, in time order: /32 4k+1, /48 4k+2, /64 4k+3
	 * (the /48 goes and the /32 becomes 4k+4 underneath), then the /32.
	 */
	for (uint32_t k = 0; k < 4000; k++) {
		/* Every other round as one batch: readers jump from 4k+1 to 4k+5 at its end. */
		if (k % 2)
			fib6_batch_begin(r.fib);
		CHECK_EQ(ins(r.fib, net, 48, 4 * k + 2), 0);
		CHECK_EQ(ins(r.fib, net, 64, 4 * k + 3), 0);
		CHECK_EQ(del(r.fib, net, 48), 0);
		CHECK_EQ(ins(r.fib, net & mask(32), 32, 4 * k + 5), 0);
		CHECK_EQ(del(r.fib, net, 64), 0);
		if (k % 2)
			CHECK_EQ(fib6_batch_end(r.fib), 0);
		/* Small arrays: without reclaim they would run out within ~50 rounds. */
		if (k % 8 == 7) {
			grace_period(&r);
			fib6_reclaim(r.fib);
		}
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CHECK_EQ(r.bad, 0);
	CHECK(r.reads > 0);
	fib6_destroy(r.fib);
}

int main(void)
{
	test_args();
	test_nested();
	test_every_length();
	test_random();
	test_skip();
	test_exhaustion();
	test_batch();
	test_batch_exhaustion();
	test_race();
	return check_report("test_fib6");
}
