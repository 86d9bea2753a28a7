/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Both IPv4 LPM algorithms (DIR-24-8 and Poptrie), through the fib_algo seam,
 * against the naive longest-match reference (tests/unit/fib_ref.h): the
 * same checks for each, after every step of nested, random and mass
 * insert/delete sequences, with in-table keys (every route's first and last
 * address and their outside neighbours) and random keys. Edges: /0 and /32
 * alone, a chain of every length on one address, the /18 and /24 borders
 * (where Poptrie's direct table and DIR-24-8's tbl24 end), deleting to empty,
 * bulk lookups of every burst size, and a reader racing the writer while
 * freed memory is reused after a grace period.
 * Exit 0 when every check passes; one line per failed check otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib.h"
#include "tests/unit/fib_ref.h"

static int failures;
static const struct fib_algo *algo;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			printf("FAIL [%s] %s:%d: ", algo->name, __func__, __LINE__);               \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

#define REF_MAX 4096
static struct ref_route ref_routes[REF_MAX];
static struct fib_ref ref = {ref_routes, 0, REF_MAX};

static void fib_new(struct fib *f)
{
	int rc = fib_create(f, algo, NULL);

	CHECK(rc == 0, "create: %d", rc);
	if (rc)
		exit(1);
	ref.n = 0;
}

/* Both the table and the reference, checking each return code. */
static void both_insert(struct fib *f, uint32_t prefix, uint8_t len, uint32_t value)
{
	int rc = fib_insert(f, prefix, len, value);

	CHECK(rc == 0, "insert %08x/%u -> %d", prefix, len, rc);
	if (rc == 0)
		ref_set(&ref, prefix, len, value);
}

static void both_delete(struct fib *f, uint32_t prefix, uint8_t len)
{
	int expect = ref_find(&ref, prefix, len) >= 0 ? 0 : -ENOENT;
	int rc = fib_delete(f, prefix, len);

	CHECK(rc == expect, "delete %08x/%u -> %d, want %d", prefix, len, rc, expect);
	ref_del(&ref, prefix, len);
}

/* ---- verification ---- */

static void check_addr(const struct fib *f, uint32_t addr)
{
	uint32_t got = fib_lookup(f, addr), want = ref_lookup(&ref, addr), bulk;

	fib_lookup_bulk(f, &addr, &bulk, 1);
	CHECK(got == want && bulk == want, "lookup %08x = %u (bulk %u), want %u", addr, got, bulk,
	      want);
}

struct walk_ctx {
	unsigned seen, bad;
};

static int walk_cb(uint32_t prefix, uint8_t len, uint32_t value, void *arg)
{
	struct walk_ctx *w = arg;
	int i = ref_find(&ref, prefix, len);

	w->seen++;
	if (i < 0 || ref.r[i].value != value)
		w->bad++;
	return 0;
}

static void check_control(const struct fib *f)
{
	struct fib_stats st;
	struct walk_ctx w = {0};
	uint64_t by_len[33] = {0};

	for (unsigned i = 0; i < ref.n; i++) {
		uint32_t v = fib_get(f, ref.r[i].prefix, ref.r[i].len);

		CHECK(v == ref.r[i].value, "get %08x/%u = %u, want %u", ref.r[i].prefix,
		      ref.r[i].len, v, ref.r[i].value);
		by_len[ref.r[i].len]++;
	}
	fib_get_stats(f, &st);
	CHECK(st.routes == ref.n, "stats routes %lu, want %u", (unsigned long)st.routes, ref.n);
	for (int l = 0; l <= 32; l++)
		CHECK(st.routes_by_len[l] == by_len[l], "stats /%d: %lu, want %lu", l,
		      (unsigned long)st.routes_by_len[l], (unsigned long)by_len[l]);
	fib_walk(f, walk_cb, &w);
	CHECK(w.seen == ref.n && w.bad == 0, "walk saw %u (%u wrong), want %u", w.seen, w.bad,
	      ref.n);
}

/* In-table keys (each route's first and last address and their neighbours) and random ones. */
static void check_all(const struct fib *f, unsigned nrandom)
{
	int before = failures;

	for (unsigned i = 0; i < ref.n && failures - before < 10; i++) {
		uint32_t first = ref.r[i].prefix, last = first | ~ref_mask(ref.r[i].len);

		check_addr(f, first);
		check_addr(f, last);
		check_addr(f, first - 1);
		check_addr(f, last + 1);
		check_addr(f, first | (rnd() & ~ref_mask(ref.r[i].len)));
	}
	for (unsigned i = 0; i < nrandom && failures - before < 10; i++)
		check_addr(f, rnd());
	check_control(f);
}

/* ---- tests ---- */

static void test_bad_args(void)
{
	struct fib f;

	fib_new(&f);
	CHECK(fib_insert(&f, IP(10, 0, 0, 0), 33, 1) == -EINVAL, "len 33");
	CHECK(fib_insert(&f, IP(10, 0, 0, 0), 8, 0) == -EINVAL, "value 0");
	CHECK(fib_insert(&f, IP(10, 0, 0, 0), 8, FIB4_VALUE_MAX + 1) == -EINVAL, "value max+1");
	CHECK(fib_insert(&f, IP(10, 0, 0, 1), 24, 1) == -EINVAL, "host bits /24");
	CHECK(fib_insert(&f, IP(0, 0, 0, 1), 0, 1) == -EINVAL, "host bits /0");
	CHECK(fib_delete(&f, IP(10, 0, 0, 0), 33) == -EINVAL, "delete len 33");
	CHECK(fib_delete(&f, IP(10, 0, 0, 1), 24) == -EINVAL, "delete host bits");
	CHECK(fib_delete(&f, IP(10, 0, 0, 0), 8) == -ENOENT, "delete absent");
	CHECK(fib_get(&f, IP(10, 0, 0, 0), 8) == 0, "get absent");
	/* The largest value must not be mistaken for a link to a group or node. */
	CHECK(fib_insert(&f, IP(10, 0, 0, 0), 8, FIB4_VALUE_MAX) == 0, "value max");
	CHECK(fib_insert(&f, IP(10, 1, 2, 0), 26, FIB4_VALUE_MAX - 1) == 0, "value max-1 /26");
	CHECK(fib_lookup(&f, IP(10, 1, 3, 3)) == FIB4_VALUE_MAX, "lookup value max");
	CHECK(fib_lookup(&f, IP(10, 1, 2, 3)) == FIB4_VALUE_MAX - 1, "lookup value max-1");
	CHECK(fib_delete(&f, IP(10, 0, 0, 0), 16) == -ENOENT, "delete absent longer");
	CHECK(fib_delete(&f, IP(10, 1, 2, 0), 26) == 0, "delete /26");
	CHECK(fib_delete(&f, IP(10, 0, 0, 0), 8) == 0, "delete present");
	CHECK(fib_delete(&f, IP(10, 0, 0, 0), 8) == -ENOENT, "delete twice");
	CHECK(fib_lookup(&f, IP(10, 1, 2, 3)) == 0, "lookup after delete");
	fib_destroy(&f);
}

/* Nested routes across the /18 and /24 borders, inserted short-to-long and long-to-short. */
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
	    {IP(10, 1, 0, 0), 18, 12},
	    {IP(10, 1, 0, 0), 19, 13},
	    {IP(10, 1, 2, 200), 31, 14},
	    {IP(10, 1, 2, 200), 30, 15},
	};
	const unsigned n = sizeof(set) / sizeof(set[0]);
	static const unsigned del[] = {4, 3, 8, 5, 13, 7, 11, 2, 0, 14, 1, 6, 12, 9, 10};

	for (int order = 0; order < 2; order++) {
		struct fib f;

		fib_new(&f);
		for (unsigned k = 0; k < n; k++) {
			const struct ref_route *r = &set[order ? n - 1 - k : k];

			both_insert(&f, r->prefix, r->len, r->value);
			check_all(&f, 200);
		}
		both_insert(&f, IP(10, 1, 2, 0), 24, 50); /* replace under longer routes */
		check_all(&f, 200);
		/* Withdraw middle layers first: the covering route must show through. */
		for (unsigned k = 0; k < n; k++) {
			both_delete(&f, set[del[k]].prefix, set[del[k]].len);
			check_all(&f, 200);
		}
		fib_destroy(&f);
	}
}

/* /0 alone, /32 alone, both, then a chain of every length 0..32 on one address. */
static void test_edges(void)
{
	const uint32_t a = IP(172, 16, 77, 201);
	uint8_t order[33];
	struct fib f;

	fib_new(&f);
	both_insert(&f, 0, 0, 7);
	check_all(&f, 500);
	both_delete(&f, 0, 0);
	check_all(&f, 500);
	both_insert(&f, a, 32, 8);
	check_all(&f, 500);
	both_insert(&f, 0, 0, 9);
	check_all(&f, 500);
	both_delete(&f, a, 32);
	both_delete(&f, 0, 0);
	check_all(&f, 500);
	for (unsigned l = 0; l <= 32; l++) {
		both_insert(&f, a & ref_mask((uint8_t)l), (uint8_t)l, 100 + l);
		order[l] = (uint8_t)l;
	}
	check_all(&f, 500);
	for (unsigned l = 32; l > 0; l--) {
		unsigned j = rnd() % (l + 1);
		uint8_t t = order[l];

		order[l] = order[j];
		order[j] = t;
	}
	for (unsigned k = 0; k <= 32; k++) {
		both_delete(&f, a & ref_mask(order[k]), order[k]);
		check_all(&f, 100);
	}
	fib_destroy(&f);
}

static uint8_t random_len(void)
{
	static const uint8_t common[] = {0,  1,  8,  16, 17, 18, 19, 23,
	                                 24, 24, 25, 25, 28, 30, 31, 32};
	uint32_t r = rnd() % 64;

	/* /0 and /1 repaint half of DIR-24-8's 16 M entries or more: keep them rare. */
	if (r < 2 && rnd() % 8 == 0)
		return (uint8_t)r;
	if (r < 30)
		return common[2 + rnd() % (sizeof(common) - 2)];
	return (uint8_t)(2 + rnd() % 31);
}

static void random_prefix(uint32_t *prefix, uint8_t *len)
{
	*len = random_len();
	if (ref.n && rnd() % 2) {
		/* Nest inside (or around) a route we already have. */
		*prefix = ref.r[rnd() % ref.n].prefix | (rnd() & 0xffffu);
	} else {
		/* A few /8s only, so routes overlap often. */
		static const uint8_t top[] = {0, 10, 127, 128, 192, 255};

		*prefix = (uint32_t)top[rnd() % sizeof(top)] << 24 | (rnd() & 0x00ffffffu);
	}
	*prefix &= ref_mask(*len);
}

/* values: how many distinct values (few: neighbours often equal, runs merge). */
static void test_random(unsigned ops, uint32_t values)
{
	struct fib f;

	fib_new(&f);
	for (unsigned i = 1; i <= ops; i++) {
		uint32_t prefix;
		uint8_t len;

		random_prefix(&prefix, &len);
		if (rnd() % 3 == 0 && ref.n) {
			/* Mostly existing routes, sometimes absent ones (-ENOENT). */
			if (rnd() % 4) {
				struct ref_route r = ref.r[rnd() % ref.n];

				prefix = r.prefix;
				len = r.len;
			}
			both_delete(&f, prefix, len);
		} else if (ref.n < REF_MAX) {
			both_insert(&f, prefix, len, 1 + rnd() % values);
		}
		if (i % 64 == 0)
			fib_reclaim(&f);
		if (i % 250 == 0)
			check_all(&f, 1000);
	}
	/* Delete to empty: everything must read "no route" again. */
	while (ref.n) {
		struct ref_route r = ref.r[rnd() % ref.n];

		both_delete(&f, r.prefix, r.len);
	}
	check_all(&f, 5000);
	fib_destroy(&f);
}

static void test_bulk(void)
{
	static const unsigned sizes[] = {0, 1, 7, 32, 63, 64, 65, 200, 1000};
	static uint32_t addrs[1001], vals[1001];
	struct fib f;

	fib_new(&f);
	for (unsigned i = 0; i < 1500; i++) {
		uint32_t prefix;
		uint8_t len;

		random_prefix(&prefix, &len);
		both_insert(&f, prefix, len, 1 + rnd() % 1000);
	}
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned n = sizes[s];

		for (unsigned i = 0; i <= n; i++) {
			/* Half near routes (often below /24), half anywhere. */
			addrs[i] = i % 2 ? rnd() : ref.r[rnd() % ref.n].prefix ^ (rnd() & 0x1ff);
			vals[i] = 0xdeadbeef;
		}
		fib_lookup_bulk(&f, addrs, vals, n);
		for (unsigned i = 0; i < n; i++)
			CHECK(vals[i] == fib_lookup(&f, addrs[i]) &&
			          vals[i] == ref_lookup(&ref, addrs[i]),
			      "bulk n=%u [%u] %08x: %u", n, i, addrs[i], vals[i]);
		CHECK(vals[n] == 0xdeadbeef, "bulk n=%u wrote past the end", n);
		/* In place: the values over the addresses they came from. */
		memcpy(vals, addrs, n * sizeof(*vals));
		fib_lookup_bulk(&f, vals, vals, n);
		for (unsigned i = 0; i < n; i++)
			CHECK(vals[i] == ref_lookup(&ref, addrs[i]),
			      "bulk in place n=%u [%u] %08x: %u", n, i, addrs[i], vals[i]);
	}
	fib_destroy(&f);
}

/* Many routes: the structures grow and, after the withdrawal, are empty again. */
static void test_mass(void)
{
	enum { N = 100000 };
	struct fib f;
	uint32_t *nets = malloc(N * sizeof(*nets));
	struct fib_stats st, st0;
	unsigned n = 0;

	/* DIR-24-8 needs a tbl8 group per /24 holding a /32; Poptrie's default pool is enough. */
	CHECK(fib_create(&f, algo, &(struct fib_params){.tbl8_groups = N}) == 0, "create");
	ref.n = 0;
	fib_get_stats(&f, &st0);
	/* Distinct /24s, each with a /32 on .1: expected lookups are known. */
	for (uint32_t i = 0; n < N; i++) {
		uint32_t net = (i * 2654435761u) & 0xffffff00u;

		if (fib_get(&f, net, 24) == 0 && fib_insert(&f, net, 24, (net >> 8) + 1) == 0 &&
		    fib_insert(&f, net | 1, 32, 7) == 0)
			nets[n++] = net;
	}
	for (unsigned i = 0; i < N; i += 7) {
		CHECK(fib_lookup(&f, nets[i] | 1) == 7, "host route %08x", nets[i] | 1);
		CHECK(fib_lookup(&f, nets[i] | 2) == (nets[i] >> 8) + 1, "net %08x", nets[i]);
	}
	fib_get_stats(&f, &st);
	CHECK(st.routes == 2 * N, "routes %lu", (unsigned long)st.routes);
	CHECK(st.lookup_bytes > st0.lookup_bytes && st.memory_bytes >= st.lookup_bytes,
	      "memory not counted: lookup %zu memory %zu", st.lookup_bytes, st.memory_bytes);
	for (unsigned i = 0; i < N; i++) {
		CHECK(fib_delete(&f, nets[i] | 1, 32) == 0, "del /32");
		CHECK(fib_delete(&f, nets[i], 24) == 0, "del /24");
	}
	fib_reclaim(&f);
	fib_get_stats(&f, &st);
	CHECK(st.routes == 0 && st.pending == 0 && st.lookup_bytes == st0.lookup_bytes,
	      "not empty after mass delete: routes %lu pending %lu lookup bytes %zu (empty %zu)",
	      (unsigned long)st.routes, (unsigned long)st.pending, st.lookup_bytes,
	      st0.lookup_bytes);
	for (unsigned i = 0; i < N; i += 7)
		CHECK(fib_lookup(&f, nets[i] | 1) == 0, "stale %08x", nets[i] | 1);
	free(nets);
	fib_destroy(&f);
}

/* ---- a reader racing the writer, with freed memory reused after each grace period ---- */

/* A /24 (or /16) and a longer prefix inside it, at each level of both tables. */
static const struct race_site {
	uint32_t net;
	uint8_t net_len;
	uint32_t inner;
	uint8_t inner_len;
} race_sites[] = {
    {IP(192, 0, 2, 0), 24, IP(192, 0, 2, 128), 25},
    {IP(198, 51, 100, 0), 24, IP(198, 51, 100, 4), 30},
    {IP(203, 0, 113, 0), 24, IP(203, 0, 113, 77), 32},
    {IP(100, 64, 0, 0), 16, IP(100, 64, 32, 0), 20},
};
#define NSITES (sizeof(race_sites) / sizeof(race_sites[0]))

struct race {
	struct fib *f;
	int stop;
	uint64_t qs; /* the reader's quiescent states, as QSBR counts them */
	unsigned long bad, reads;
};

static void *race_reader(void *arg)
{
	struct race *r = arg;
	uint32_t last[2 * NSITES] = {0}, addrs[2 * NSITES], vals[2 * NSITES];
	unsigned long round = 0;

	for (unsigned h = 0; h < 2 * NSITES; h++)
		addrs[h] = h % 2 ? race_sites[h / 2].inner : race_sites[h / 2].net | 1;
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		/* Every other round through the bulk lookup (its passes are separate loads). */
		int bulk = round++ % 2;

		if (bulk)
			fib_lookup_bulk(r->f, addrs, vals, 2 * NSITES);
		for (unsigned h = 0; h < 2 * NSITES; h++) {
			uint32_t v = bulk ? vals[h] : fib_lookup(r->f, addrs[h]);

			/* Values only grow, and the outer prefix is always there. */
			if (v == 0 || v < last[h])
				r->bad++;
			last[h] = v;
			r->reads++;
		}
		/* Out of every lookup: the writer may now reuse what it unlinked before. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		__atomic_add_fetch(&r->qs, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void race_grace_period(struct race *r)
{
	uint64_t snap;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	snap = __atomic_load_n(&r->qs, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&r->qs, __ATOMIC_ACQUIRE) == snap)
		;
}

/*
 * Round k, per site: the inner prefix gets 2k+1, the outer one 2k+2, the inner one is
 * withdrawn: a reader inside sees 2k, 2k+1, 2k+2; outside 2k, 2k+2. Every round builds
 * and tears down the nodes (groups) below the outer prefix, and the blocks they used are
 * reclaimed and reused while the reader runs. A reader that saw a half-built node, or a
 * block reused too early, would read a smaller value or 0.
 */
static void test_race(void)
{
	struct fib f;
	struct race r = {.f = &f};
	pthread_t th;

	fib_new(&f);
	for (unsigned s = 0; s < NSITES; s++)
		CHECK(fib_insert(&f, race_sites[s].net, race_sites[s].net_len, 2) == 0, "setup");
	pthread_create(&th, NULL, race_reader, &r);
	for (uint32_t k = 1; k < 3000; k++) {
		for (unsigned s = 0; s < NSITES; s++) {
			const struct race_site *x = &race_sites[s];

			CHECK(fib_insert(&f, x->inner, x->inner_len, 2 * k + 1) == 0, "inner");
			CHECK(fib_insert(&f, x->net, x->net_len, 2 * k + 2) == 0, "outer");
			CHECK(fib_delete(&f, x->inner, x->inner_len) == 0, "withdraw");
		}
		race_grace_period(&r);
		fib_reclaim(&f);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	CHECK(r.bad == 0, "reader saw %lu bad values in %lu reads", r.bad, r.reads);
	fib_destroy(&f);
}

int main(void)
{
	for (unsigned a = 0; fib_algos[a]; a++) {
		algo = fib_algos[a];
		rng_state = 0x9e3779b97f4a7c15ull;
		test_bad_args();
		test_nested();
		test_edges();
		test_random(3000, 0x7fffffff);
		test_random(2000, 3);
		test_bulk();
		test_mass();
		test_race();
		CHECK(fib_algo_find(algo->name) == algo, "find %s", algo->name);
	}
	CHECK(fib_algo_find("no-such") == NULL, "unknown name found");
	if (failures) {
		printf("test_fib: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_fib: ok\n");
	return 0;
}
