/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: an arbitrary byte string as a sequence of FIB updates
 * (insert, replace, delete, reclaim), applied to both IPv4 LPM algorithms
 * (DIR-24-8 and Poptrie, through the fib_algo seam) and to the naive
 * longest-match reference of the unit tests (tests/unit/fib_ref.h). After
 * every update, lookups of the updated prefix's edges and neighbours and of
 * addresses taken from the input must agree across all three; every 16
 * updates, so must the edges of every route, exact-match reads and the
 * route count. Any difference aborts.
 *
 * One update is 7 bytes: op, length, address (4, big endian), value.
 *   op & 3: 0/1 insert, 2 delete, 3 reclaim (a grace period has passed);
 *   op & 0x80: take the address from a route already installed (nesting);
 *   length: 14..15 for bytes 0xe0..0xe7, else 16..32 with byte 0 a /24
 *     (one store; the bytes mutations favour, 0 and 0xff, make a /24 and a
 *     /17, not a 256-store /16 and a /23). A prefix costs
 *     DIR-24-8 2^(24-len) stores, 64 K for a /8, and with coverage tracing
 *     a /0 (16 M) takes a second: lengths below 14 are left to the unit
 *     tests (test_fib covers /0, /1 and /8 for both); the paint is the same
 *     code at every length, only longer. Only the first prefix below /16 of
 *     an input keeps its length, later ones are raised to /16: one 1 K paint
 *     (and its withdrawal) at most per input, where a /16 is 256.
 * At most OPS_MAX updates per input (the rest is ignored; run.sh caps the
 * length to match), so no input costs more than a few hundred microseconds:
 * the bugs a FIB has show up within a few dozen updates, and the rate is
 * what gets the run to its executions (issue 17: 10 M).
 * Each input starts from empty tables and ends by withdrawing everything.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "datapath/fib/fib.h"
#include "tests/unit/fib_ref.h"

#define ROUTES_MAX 1200
#define OP_BYTES   7
#define OPS_MAX    16

/*
 * The reference and the comparisons are the harness, not the code under
 * test: no coverage feedback from them, and none of the comparison tracing
 * that made up most of the run's time (noinline, or they would be
 * instrumented where they are inlined).
 */
#define NOCOV __attribute__((no_sanitize("coverage"), noinline))

static struct ref_route routes[ROUTES_MAX];
static struct fib_ref ref = {routes, 0, ROUTES_MAX};
static struct fib fibs[2];
static bool short_seen; /* a prefix below /16 in this input already */

static NOCOV void expect(const struct fib *f, uint32_t addr)
{
	uint32_t want = ref_lookup(&ref, addr), bulk;

	fib_lookup_bulk(f, &addr, &bulk, 1);
	if (fib_lookup(f, addr) != want || bulk != want)
		__builtin_trap();
}

static void expect_around(uint32_t prefix, uint8_t len, uint32_t extra)
{
	uint32_t last = prefix | ~ref_mask(len);

	for (int a = 0; a < 2; a++) {
		expect(&fibs[a], prefix);
		expect(&fibs[a], last);
		expect(&fibs[a], prefix - 1);
		expect(&fibs[a], last + 1);
		expect(&fibs[a], extra);
		expect(&fibs[a], prefix | (extra & ~ref_mask(len)));
	}
}

static NOCOV void expect_all(void)
{
	for (int a = 0; a < 2; a++) {
		struct fib_stats st;

		fib_get_stats(&fibs[a], &st);
		if (st.routes != ref.n)
			__builtin_trap();
		for (unsigned i = 0; i < ref.n; i++) {
			const struct ref_route *r = &ref.r[i];

			if (fib_get(&fibs[a], r->prefix, r->len) != r->value)
				__builtin_trap();
			expect(&fibs[a], r->prefix);
			expect(&fibs[a], r->prefix | ~ref_mask(r->len));
		}
	}
}

static void apply(const uint8_t *p)
{
	uint8_t op = p[0],
	        len = (p[1] & 0xf8) == 0xe0 ? (uint8_t)(14 + (p[1] & 1)) : (uint8_t)(16 + (p[1] + 8u) % 17);
	uint32_t addr = (uint32_t)p[2] << 24 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 8 | p[5];
	uint32_t value = p[6] >= 0xf0 ? FIB4_VALUE_MAX - (p[6] & 0xf) : 1u + p[6] % 8;
	uint32_t prefix;

	if (len < 16 && short_seen)
		len = 16;
	short_seen |= len < 16;
	if ((op & 0x80) && ref.n)
		addr = ref.r[addr % ref.n].prefix ^ (addr & 0xffff);
	prefix = addr & ref_mask(len);
	switch (op & 3) {
	case 0:
	case 1:
		if (ref.n == ROUTES_MAX && ref_find(&ref, prefix, len) < 0)
			return;
		for (int a = 0; a < 2; a++) {
			if (fib_insert(&fibs[a], prefix, len, value) != 0)
				__builtin_trap();
		}
		ref_set(&ref, prefix, len, value);
		break;
	case 2: {
		int want = ref_del(&ref, prefix, len) ? 0 : -ENOENT;

		for (int a = 0; a < 2; a++) {
			if (fib_delete(&fibs[a], prefix, len) != want)
				__builtin_trap();
		}
		break;
	}
	default:
		for (int a = 0; a < 2; a++)
			fib_reclaim(&fibs[a]);
		break;
	}
	expect_around(prefix, len, addr ^ 0x5a5a5a5au);
}

/* Withdraw everything: both tables must be back to their empty size, nothing leaked. */
static void drain(void)
{
	static size_t empty_bytes[2];

	while (ref.n) {
		for (int a = 0; a < 2; a++) {
			if (fib_delete(&fibs[a], ref.r[0].prefix, ref.r[0].len) != 0)
				__builtin_trap();
		}
		ref_del(&ref, ref.r[0].prefix, ref.r[0].len);
	}
	for (int a = 0; a < 2; a++) {
		struct fib_stats st;

		fib_reclaim(&fibs[a]);
		fib_get_stats(&fibs[a], &st);
		if (!empty_bytes[a])
			empty_bytes[a] = st.lookup_bytes;
		if (st.routes || st.pending || st.lookup_bytes != empty_bytes[a])
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/*
	 * Created once: a DIR-24-8 table is 64 MiB of tbl24, too slow to map and fault in
	 * per input. Each input starts from the empty tables the previous one left (drain).
	 * DIR-24-8 needs one tbl8 group per update at most.
	 */
	if (!fibs[0].t && (fib_create(&fibs[0], &fib_algo_dir24_8,
	                              &(struct fib_params){.tbl8_groups = ROUTES_MAX}) ||
	                   fib_create(&fibs[1], &fib_algo_poptrie, NULL)))
		abort();
	short_seen = false;
	if (size > OPS_MAX * OP_BYTES)
		size = OPS_MAX * OP_BYTES;
	for (size_t i = 0; i + OP_BYTES <= size; i += OP_BYTES) {
		apply(data + i);
		if ((i / OP_BYTES) % 16 == 15)
			expect_all();
	}
	expect_all();
	drain();
	return 0;
}
