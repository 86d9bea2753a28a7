/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FIB4 unit test: the DIR-24-8 table against a naive longest-match reference
 * (a flat list scanned in full), plus the edges a router hits in practice:
 * default route, host routes, /24 vs /25 (the tbl24/tbl8 border), nested
 * prefixes, withdrawals falling back to the covering route, tbl8 exhaustion
 * and group reuse after a grace period, and a reader racing the writer.
 * Exit 0 when every check passes; one line per failed check otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib4.h"

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

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static uint32_t mask_of(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

/* ---- naive reference ---- */

struct ref_route {
	uint32_t prefix;
	uint8_t len;
	uint32_t value;
};

#define REF_MAX 4096
static struct ref_route ref[REF_MAX];
static unsigned nref;

static int ref_find(uint32_t prefix, uint8_t len)
{
	for (unsigned i = 0; i < nref; i++) {
		if (ref[i].prefix == prefix && ref[i].len == len)
			return (int)i;
	}
	return -1;
}

static uint32_t ref_lookup(uint32_t addr)
{
	int best = -1;

	for (unsigned i = 0; i < nref; i++) {
		if ((addr & mask_of(ref[i].len)) != ref[i].prefix)
			continue;
		if (best < 0 || ref[i].len > ref[best].len)
			best = (int)i;
	}
	return best < 0 ? 0 : ref[best].value;
}

static void ref_set(uint32_t prefix, uint8_t len, uint32_t value)
{
	int i = ref_find(prefix, len);

	if (i >= 0)
		ref[i].value = value;
	else if (nref < REF_MAX)
		ref[nref++] = (struct ref_route){prefix, len, value};
}

static void ref_del(uint32_t prefix, uint8_t len)
{
	int i = ref_find(prefix, len);

	if (i >= 0)
		ref[i] = ref[--nref];
}

/* Both the table and the reference, checking each return code. */
static void both_insert(struct fib4 *fib, uint32_t prefix, uint8_t len, uint32_t value)
{
	int rc = fib4_insert(fib, prefix, len, value);

	CHECK(rc == 0, "insert %08x/%u -> %d", prefix, len, rc);
	if (rc == 0)
		ref_set(prefix, len, value);
}

static void both_delete(struct fib4 *fib, uint32_t prefix, uint8_t len)
{
	int expect = ref_find(prefix, len) >= 0 ? 0 : -ENOENT;
	int rc = fib4_delete(fib, prefix, len);

	CHECK(rc == expect, "delete %08x/%u -> %d, want %d", prefix, len, rc, expect);
	ref_del(prefix, len);
}

/* ---- verification ---- */

static void check_addr(const struct fib4 *fib, uint32_t addr)
{
	uint32_t got = fib4_lookup(fib, addr), want = ref_lookup(addr);

	CHECK(got == want, "lookup %08x = %u, want %u", addr, got, want);
}

struct walk_ctx {
	unsigned seen;
	unsigned bad;
};

static int walk_cb(uint32_t prefix, uint8_t len, uint32_t value, void *arg)
{
	struct walk_ctx *w = arg;
	int i = ref_find(prefix, len);

	w->seen++;
	if (i < 0 || ref[i].value != value)
		w->bad++;
	return 0;
}

static void check_control(const struct fib4 *fib)
{
	struct fib4_stats st;
	struct walk_ctx w = {0};
	uint64_t by_len[33] = {0};

	for (unsigned i = 0; i < nref; i++) {
		uint32_t v = fib4_get(fib, ref[i].prefix, ref[i].len);

		CHECK(v == ref[i].value, "get %08x/%u = %u, want %u", ref[i].prefix, ref[i].len, v,
		      ref[i].value);
		by_len[ref[i].len]++;
	}
	fib4_get_stats(fib, &st);
	CHECK(st.routes == nref, "stats routes %lu, want %u", (unsigned long)st.routes, nref);
	for (int l = 0; l <= 32; l++)
		CHECK(st.routes_by_len[l] == by_len[l], "stats /%d: %lu, want %lu", l,
		      (unsigned long)st.routes_by_len[l], (unsigned long)by_len[l]);
	fib4_walk(fib, walk_cb, &w);
	CHECK(w.seen == nref && w.bad == 0, "walk saw %u (%u wrong), want %u", w.seen, w.bad, nref);
}

/* Every route's first and last address and their outside neighbours, plus random ones. */
static void check_all(const struct fib4 *fib, unsigned nrandom)
{
	int before = failures;

	for (unsigned i = 0; i < nref && failures - before < 10; i++) {
		uint32_t first = ref[i].prefix, last = first | ~mask_of(ref[i].len);

		check_addr(fib, first);
		check_addr(fib, last);
		check_addr(fib, first - 1);
		check_addr(fib, last + 1);
	}
	for (unsigned i = 0; i < nrandom && failures - before < 10; i++)
		check_addr(fib, rnd());
	check_control(fib);
}

/* ---- tests ---- */

static void test_bad_args(void)
{
	struct fib4 *fib = fib4_create(0);

	CHECK(fib4_insert(fib, IP(10, 0, 0, 0), 33, 1) == -EINVAL, "len 33");
	CHECK(fib4_insert(fib, IP(10, 0, 0, 0), 8, 0) == -EINVAL, "value 0");
	CHECK(fib4_insert(fib, IP(10, 0, 0, 0), 8, FIB4_VALUE_MAX + 1) == -EINVAL, "value max+1");
	CHECK(fib4_insert(fib, IP(10, 0, 0, 1), 24, 1) == -EINVAL, "host bits /24");
	CHECK(fib4_insert(fib, IP(0, 0, 0, 1), 0, 1) == -EINVAL, "host bits /0");
	CHECK(fib4_delete(fib, IP(10, 0, 0, 0), 33) == -EINVAL, "delete len 33");
	CHECK(fib4_delete(fib, IP(10, 0, 0, 1), 24) == -EINVAL, "delete host bits");
	CHECK(fib4_delete(fib, IP(10, 0, 0, 0), 8) == -ENOENT, "delete absent");
	CHECK(fib4_get(fib, IP(10, 0, 0, 0), 8) == 0, "get absent");
	/* The largest value must not be mistaken for a tbl8 link. */
	CHECK(fib4_insert(fib, IP(10, 0, 0, 0), 8, FIB4_VALUE_MAX) == 0, "value max");
	CHECK(fib4_lookup(fib, IP(10, 1, 2, 3)) == FIB4_VALUE_MAX, "lookup value max");
	CHECK(fib4_delete(fib, IP(10, 0, 0, 0), 16) == -ENOENT, "delete absent longer");
	CHECK(fib4_delete(fib, IP(10, 0, 0, 0), 8) == 0, "delete present");
	CHECK(fib4_delete(fib, IP(10, 0, 0, 0), 8) == -ENOENT, "delete twice");
	CHECK(fib4_lookup(fib, IP(10, 1, 2, 3)) == 0, "lookup after delete");
	fib4_destroy(fib);
}

/* Nested routes around the /24 border, inserted short-to-long and long-to-short. */
static void test_nested(void)
{
	static const struct ref_route set[] = {
	    {0, 0, 1},
	    {IP(128, 0, 0, 0), 1, 2},
	    {IP(10, 0, 0, 0), 8, 3},
	    {IP(10, 1, 0, 0), 16, 4},
	    {IP(10, 1, 2, 0), 24, 5},
	    {IP(10, 1, 2, 128), 25, 6},
	    {IP(10, 1, 2, 192), 26, 7},
	    {IP(10, 1, 2, 200), 32, 8},
	    {IP(10, 1, 2, 0), 23, 9},
	    {IP(10, 1, 3, 7), 32, 10},
	    {IP(255, 255, 255, 255), 32, 11},
	};
	const unsigned n = sizeof(set) / sizeof(set[0]);

	for (int order = 0; order < 2; order++) {
		struct fib4 *fib = fib4_create(0);

		nref = 0;
		for (unsigned k = 0; k < n; k++) {
			const struct ref_route *r = &set[order ? n - 1 - k : k];

			both_insert(fib, r->prefix, r->len, r->value);
			check_all(fib, 200);
		}
		both_insert(fib, IP(10, 1, 2, 0), 24, 50); /* replace under longer routes */
		check_all(fib, 200);
		/* Withdraw middle layers first: the covering route must show through. */
		static const unsigned del[] = {4, 3, 8, 5, 7, 2, 0, 1, 6, 9, 10};
		for (unsigned k = 0; k < n; k++) {
			both_delete(fib, set[del[k]].prefix, set[del[k]].len);
			check_all(fib, 200);
		}
		fib4_destroy(fib);
	}
}

static uint8_t random_len(void)
{
	static const uint8_t common[] = {0, 1, 8, 16, 23, 24, 24, 25, 25, 28, 31, 32, 32};
	uint32_t r = rnd() % 64;

	/* /0 and /1 repaint half the table or more: keep them rare. */
	if (r < 2)
		return (uint8_t)r;
	if (r < 30)
		return common[2 + rnd() % (sizeof(common) - 2)];
	return (uint8_t)(2 + rnd() % 31);
}

static void random_prefix(uint32_t *prefix, uint8_t *len)
{
	*len = random_len();
	if (nref && rnd() % 2) {
		/* Nest inside (or around) a route we already have. */
		*prefix = ref[rnd() % nref].prefix | (rnd() & 0xffffu);
	} else {
		/* A few /8s only, so routes overlap often. */
		static const uint8_t top[] = {0, 10, 127, 128, 192, 255};

		*prefix = (uint32_t)top[rnd() % sizeof(top)] << 24 | (rnd() & 0x00ffffffu);
	}
	*prefix &= mask_of(*len);
}

static void test_random(unsigned ops)
{
	struct fib4 *fib = fib4_create(0);

	nref = 0;
	for (unsigned i = 1; i <= ops; i++) {
		uint32_t prefix;
		uint8_t len;

		random_prefix(&prefix, &len);
		if (rnd() % 3 == 0 && nref) {
			/* Mostly existing routes, sometimes absent ones (-ENOENT). */
			if (rnd() % 4) {
				struct ref_route r = ref[rnd() % nref];

				prefix = r.prefix;
				len = r.len;
			}
			both_delete(fib, prefix, len);
		} else if (nref < REF_MAX) {
			both_insert(fib, prefix, len, 1 + rnd() % FIB4_VALUE_MAX);
		}
		if (i % 100 == 0)
			check_all(fib, 2000);
	}
	while (nref)
		both_delete(fib, ref[0].prefix, ref[0].len);
	check_all(fib, 5000);
	fib4_destroy(fib);
}

/* Snapshot of lookups over a range, to show a failed insert changed nothing. */
static void snapshot(const struct fib4 *fib, uint32_t first, uint32_t n, uint32_t *out)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = fib4_lookup(fib, first + i);
}

static void test_tbl8_exhaustion(void)
{
	struct fib4 *fib = fib4_create(4);
	static uint32_t before[2048], after[2048];
	struct fib4_stats st0, st;

	CHECK(fib != NULL, "create(4)");
	nref = 0;
	both_insert(fib, IP(10, 0, 0, 0), 21, 1);
	for (int i = 0; i < 4; i++)
		both_insert(fib, IP(10, 0, i, 128), 25, 10 + i);
	fib4_get_stats(fib, &st0);
	CHECK(st0.tbl8_groups_used == 4 && st0.tbl8_groups_max == 4, "groups used %lu",
	      (unsigned long)st0.tbl8_groups_used);
	snapshot(fib, IP(10, 0, 0, 0), 2048, before);
	CHECK(fib4_insert(fib, IP(10, 0, 4, 128), 25, 99) == -ENOSPC, "5th group");
	CHECK(fib4_insert(fib, IP(10, 0, 5, 1), 32, 99) == -ENOSPC, "5th group /32");
	snapshot(fib, IP(10, 0, 0, 0), 2048, after);
	CHECK(memcmp(before, after, sizeof(before)) == 0, "failed insert changed lookups");
	CHECK(fib4_get(fib, IP(10, 0, 4, 128), 25) == 0, "failed insert is in the index");
	fib4_get_stats(fib, &st);
	CHECK(st.routes == st0.routes && st.tbl8_groups_used == 4, "failed insert changed stats");
	/* Existing groups still take more routes, and replace needs no group. */
	both_insert(fib, IP(10, 0, 0, 64), 26, 20);
	both_insert(fib, IP(10, 0, 1, 128), 25, 21);
	both_insert(fib, IP(10, 0, 4, 0), 24, 22); /* /24 itself lives in tbl24 */
	check_all(fib, 100);

	/* Emptying a group parks it until the grace period is over. */
	both_delete(fib, IP(10, 0, 2, 128), 25);
	fib4_get_stats(fib, &st);
	CHECK(st.tbl8_groups_used == 3 && st.tbl8_pending == 1, "used %lu pending %lu",
	      (unsigned long)st.tbl8_groups_used, (unsigned long)st.tbl8_pending);
	CHECK(!(((const struct fib4_dir *)fib)->tbl24[IP(10, 0, 2, 0) >> 8] & FIB4_EXT),
	      "empty group still linked");
	CHECK(fib4_insert(fib, IP(10, 0, 4, 128), 25, 99) == -ENOSPC, "pending group reused");
	fib4_reclaim(fib);
	fib4_get_stats(fib, &st);
	CHECK(st.tbl8_pending == 0 && st.tbl8_groups_used == 3, "after reclaim pending %lu",
	      (unsigned long)st.tbl8_pending);
	both_insert(fib, IP(10, 0, 4, 128), 25, 99);
	check_all(fib, 100);
	while (nref)
		both_delete(fib, ref[0].prefix, ref[0].len);
	fib4_reclaim(fib);
	fib4_get_stats(fib, &st);
	CHECK(st.tbl8_groups_used == 0 && st.routes == 0, "not empty at the end");
	check_all(fib, 100);
	fib4_destroy(fib);
}

static void test_bulk(void)
{
	static const unsigned sizes[] = {0, 1, 7, 32, 63, 64, 65, 200, 1000};
	static uint32_t addrs[1001], vals[1001];
	struct fib4 *fib = fib4_create(0);

	nref = 0;
	for (unsigned i = 0; i < 1500; i++) {
		uint32_t prefix;
		uint8_t len;

		random_prefix(&prefix, &len);
		both_insert(fib, prefix, len, 1 + rnd() % 1000);
	}
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned n = sizes[s];

		for (unsigned i = 0; i <= n; i++) {
			/* Half near routes (often inside tbl8 groups), half anywhere. */
			addrs[i] = i % 2 ? rnd() : ref[rnd() % nref].prefix ^ (rnd() & 0x1ff);
			vals[i] = 0xdeadbeef;
		}
		fib4_lookup_bulk(fib, addrs, vals, n);
		for (unsigned i = 0; i < n; i++)
			CHECK(vals[i] == fib4_lookup(fib, addrs[i]) &&
			          vals[i] == ref_lookup(addrs[i]),
			      "bulk n=%u [%u] %08x: %u", n, i, addrs[i], vals[i]);
		CHECK(vals[n] == 0xdeadbeef, "bulk n=%u wrote past the end", n);
	}
	fib4_destroy(fib);
}

/* Many routes: the index grows and, after the withdrawal, shrinks. */
static void test_mass(void)
{
	enum { N = 100000 };
	struct fib4 *fib = fib4_create(N);
	uint32_t *nets = malloc(N * sizeof(*nets));
	struct fib4_stats st;
	unsigned n = 0;

	/* Distinct /24s, each with a /32 on .1: expected lookups are known. */
	for (uint32_t i = 0; n < N; i++) {
		uint32_t net = (i * 2654435761u) & 0xffffff00u;

		if (fib4_get(fib, net, 24) == 0 && fib4_insert(fib, net, 24, (net >> 8) + 1) == 0 &&
		    fib4_insert(fib, net | 1, 32, 7) == 0)
			nets[n++] = net;
	}
	for (unsigned i = 0; i < N; i += 7) {
		CHECK(fib4_lookup(fib, nets[i] | 1) == 7, "host route %08x", nets[i] | 1);
		CHECK(fib4_lookup(fib, nets[i] | 2) == (nets[i] >> 8) + 1, "net %08x", nets[i]);
	}
	fib4_get_stats(fib, &st);
	CHECK(st.routes == 2 * N && st.tbl8_groups_used == N, "routes %lu groups %lu",
	      (unsigned long)st.routes, (unsigned long)st.tbl8_groups_used);
	CHECK(st.memory_bytes > (80u << 20), "memory %zu too low to be honest", st.memory_bytes);
	for (unsigned i = 0; i < N; i++) {
		CHECK(fib4_delete(fib, nets[i] | 1, 32) == 0, "del /32");
		CHECK(fib4_delete(fib, nets[i], 24) == 0, "del /24");
	}
	fib4_reclaim(fib);
	fib4_get_stats(fib, &st);
	CHECK(st.routes == 0 && st.tbl8_groups_used == 0, "not empty after mass delete");
	for (unsigned i = 0; i < N; i += 7)
		CHECK(fib4_lookup(fib, nets[i] | 1) == 0, "stale %08x", nets[i] | 1);
	free(nets);
	fib4_destroy(fib);
}

/* ---- a reader racing the writer ---- */

struct race {
	struct fib4 *fib;
	int stop;
	unsigned long bad, reads;
};

static void *race_reader(void *arg)
{
	struct race *r = arg;
	uint32_t last[2] = {0, 0};

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		for (int h = 0; h < 2; h++) {
			uint32_t v = fib4_lookup(r->fib, IP(192, 0, 2, h ? 200 : 10));

			/* Values only grow, and the /24 is always there. */
			if (v == 0 || v < last[h])
				r->bad++;
			last[h] = v;
			r->reads++;
		}
	}
	return NULL;
}

/*
 * Each round attaches a fresh (zeroed: 60000 rounds < 65536 groups, never
 * reclaimed) tbl8 group, replaces the /24 under it and detaches it again. A
 * group linked before it is filled would show 0.
 */
static void test_race(void)
{
	struct race r = {.fib = fib4_create(0)};
	pthread_t th;
	const uint32_t net = IP(192, 0, 2, 0);

	CHECK(fib4_insert(r.fib, net, 24, 2) == 0, "race setup");
	pthread_create(&th, NULL, race_reader, &r);
	for (uint32_t k = 1; k < 60000; k++) {
		/* Route values in time order: a(k-1) = 2k < c(k) = 2k+1 < a(k) = 2k+2. */
		CHECK(fib4_insert(r.fib, net | 128, 25, 2 * k + 1) == 0, "race /25");
		CHECK(fib4_insert(r.fib, net, 24, 2 * k + 2) == 0, "race /24");
		CHECK(fib4_delete(r.fib, net | 128, 25) == 0, "race del");
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	CHECK(r.bad == 0, "reader saw %lu bad values in %lu reads", r.bad, r.reads);
	fib4_destroy(r.fib);
}

int main(void)
{
	test_bad_args();
	test_nested();
	test_random(3000);
	test_tbl8_exhaustion();
	test_bulk();
	test_mass();
	test_race();
	if (failures) {
		printf("test_fib4: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_fib4: ok\n");
	return 0;
}
