/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How the compressed FIB's structure was chosen (doc/FIB.md): static builds
 * of the two candidates named in issue 19, from the same table, measured
 * side by side with DIR-24-8 (the library's) in one run:
 *   - Poptrie (Asai, Ohara, SIGCOMM 2015): direct table of 2^S entries, then
 *     64-ary nodes with popcount-indexed children and run-compressed leaves;
 *     S = 16 and 18.
 *   - DXR (Zec, Rizzo, Mikuc, CCR 2012): direct table of 2^K entries, each a
 *     value or a chunk of address ranges searched by bisection; K = 16, 18
 *     and 20 (D16R, D18R, D20R), 32-bit ranges (16-bit start, 16-bit value),
 *     and, as the FIB's values are 31 bits, with starts and 32-bit values in
 *     two arrays (bisection over 2-byte starts, then one value load).
 * Both are built from the table's elementary intervals (a sweep over the
 * sorted prefixes), so they hold the same minimal content; only the lookup
 * structure differs. Static builds only: this measures lookup speed and
 * size, not updates. Values must fit 16 bits here (DXR's range format).
 *
 *   fib_bench_choice PREFIX_FILE [CPU [NEXTHOPS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/bench/fib_bench.h"

#define NKEYS  (1u << 22)
#define TRIALS 7
#define EXT    0x80000000u

/* ---- elementary intervals: iv_start[i] .. iv_start[i+1]-1 -> iv_val[i] ---- */

static uint32_t *iv_start, *iv_val;
static size_t niv;

static void iv_emit(uint64_t start, uint32_t value)
{
	if (start > 0xffffffffu)
		return;
	if (niv && iv_start[niv - 1] == start)
		niv--; /* a longer prefix starting here overrides */
	if (niv && iv_val[niv - 1] == value)
		return;
	iv_start[niv] = (uint32_t)start;
	iv_val[niv++] = value;
}

static int by_prefix_len(const void *a, const void *b)
{
	const struct route *x = a, *y = b;

	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	if (x->len != y->len)
		return x->len - y->len;
	return x->line < y->line ? -1 : 1; /* a duplicate: the later line wins, as in a FIB */
}

static void intervals_build(struct route *r, size_t n)
{
	struct route *stack[33];
	int top = 0;

	qsort(r, n, sizeof(*r), by_prefix_len);
	iv_start = xmalloc((2 * n + 2) * sizeof(uint32_t));
	iv_val = xmalloc((2 * n + 2) * sizeof(uint32_t));
	iv_emit(0, 0);
	for (size_t i = 0; i <= n; i++) {
		/* Close the prefixes that end before this one starts. */
		while (top) {
			const struct route *t = stack[top - 1];
			uint64_t end = (uint64_t)t->prefix + (1ull << (32 - t->len));

			if (i < n && r[i].prefix < end)
				break;
			top--;
			iv_emit(end, top ? stack[top - 1]->value : 0);
		}
		if (i < n) {
			iv_emit(r[i].prefix, r[i].value);
			stack[top++] = &r[i];
		}
	}
}

static size_t iv_find(uint32_t a)
{
	size_t lo = 0, hi = niv;

	while (hi - lo > 1) {
		size_t m = lo + (hi - lo) / 2;

		if (iv_start[m] <= a)
			lo = m;
		else
			hi = m;
	}
	return lo;
}

/* One value over [a, a + size)? */
static int iv_uniform(uint32_t a, uint64_t size, uint32_t *v)
{
	size_t i = iv_find(a);

	*v = iv_val[i];
	return i + 1 == niv || (uint64_t)iv_start[i + 1] >= (uint64_t)a + size;
}

/* ---- Poptrie, static ---- */

struct pnode {
	uint64_t vector, leafvec;
	uint32_t base0, base1;
};

static struct pnode *pn;
static uint32_t *pleaf, *pdir;
static size_t npn, npleaf;
static int S;

static void pt_child(uint32_t base, int off, int i, uint32_t *a, uint64_t *size)
{
	if (off <= 26) {
		*a = base + ((uint32_t)i << (26 - off));
		*size = 1ull << (26 - off);
	} else {
		*a = base + ((uint32_t)i >> (off - 26));
		*size = 1;
	}
}

static void pt_build(struct pnode *nd, uint32_t base, int off)
{
	uint32_t v[64], a;
	uint64_t size, kids = 0;
	size_t first;

	nd->vector = nd->leafvec = 0;
	nd->base0 = (uint32_t)npleaf;
	for (int i = 0; i < 64; i++) {
		pt_child(base, off, i, &a, &size);
		if (!iv_uniform(a, size, &v[i])) {
			nd->vector |= 1ull << i;
			kids++;
		} else if (npleaf == nd->base0 || pleaf[npleaf - 1] != v[i]) {
			nd->leafvec |= 1ull << i;
			pleaf[npleaf++] = v[i];
		}
	}
	first = npn;
	nd->base1 = (uint32_t)first;
	npn += kids;
	for (int i = 0, k = 0; i < 64; i++) {
		if (!(nd->vector >> i & 1))
			continue;
		pt_child(base, off, i, &a, &size);
		pt_build(&pn[first + k++], a, off + 6);
	}
}

static double pt_make(int s)
{
	S = s;
	/* Nodes of one level are disjoint and each holds a boundary: <= niv per level. */
	pn = xmalloc(4 * niv * sizeof(*pn));
	pleaf = xmalloc(8 * niv * sizeof(*pleaf));
	pdir = xmalloc(sizeof(uint32_t) << s);
	npn = npleaf = 0;
	for (uint32_t i = 0; i < (1u << s); i++) {
		uint32_t v, a = i << (32 - s);

		if (iv_uniform(a, 1ull << (32 - s), &v)) {
			pdir[i] = v;
			continue;
		}
		pdir[i] = EXT | (uint32_t)npn++;
		pt_build(&pn[pdir[i] & ~EXT], a, s);
	}
	return ((4u << s) + npn * sizeof(*pn) + npleaf * 4.0) / 1048576.0;
}

static inline uint32_t pt_lookup(uint32_t addr)
{
	uint32_t e = pdir[addr >> (32 - S)];
	const struct pnode *nd;
	unsigned off = (unsigned)S;

	if (!(e & EXT))
		return e;
	for (nd = &pn[e & ~EXT];; off += 6) {
		unsigned v = (addr << off) >> 26;
		uint64_t bit = 1ull << v;

		if (!(nd->vector & bit))
			return pleaf[nd->base0 +
			             __builtin_popcountll(nd->leafvec & ((bit << 1) - 1)) - 1];
		nd = &pn[nd->base1 + __builtin_popcountll(nd->vector & (bit - 1))];
	}
}

/* ---- DXR, static: chunk = 10-bit count - 1, 21-bit base ---- */

struct range {
	uint16_t start, value;
};

static struct range *dx;
static uint32_t *ddir;
static size_t ndx;
static int K;

static uint16_t *dstart;
static uint32_t *dval;

/* The same chunks, split: 16-bit starts to bisect, 32-bit values beside them. */
static void dxr_split(void)
{
	dstart = xmalloc(ndx * sizeof(*dstart));
	dval = xmalloc(ndx * sizeof(*dval));
	for (size_t i = 0; i < ndx; i++) {
		dstart[i] = dx[i].start;
		dval[i] = dx[i].value;
	}
}

static inline uint32_t dxr32_lookup(uint32_t addr)
{
	uint32_t e = ddir[addr >> (32 - K)], lo;
	unsigned n;
	uint16_t low;

	if (!(e & EXT))
		return e;
	lo = e & 0x1fffff;
	n = ((e >> 21) & 0x3ff) + 1;
	low = (uint16_t)(addr & ((1u << (32 - K)) - 1));
	while (n > 1) {
		unsigned h = n / 2;

		lo = dstart[lo + h] <= low ? lo + h : lo;
		n -= h;
	}
	return dval[lo];
}

static double dxr_make(int k)
{
	uint64_t csize = 1ull << (32 - k);

	K = k;
	ddir = xmalloc(sizeof(uint32_t) << k);
	dx = xmalloc((niv + (1u << k)) * sizeof(*dx));
	ndx = 0;
	for (uint32_t c = 0; c < (1u << k); c++) {
		uint32_t a = c << (32 - k), v;
		size_t i, first = ndx;

		if (iv_uniform(a, csize, &v)) {
			ddir[c] = v;
			continue;
		}
		i = iv_find(a);
		dx[ndx++] = (struct range){0, (uint16_t)iv_val[i]};
		for (i++; i < niv && iv_start[i] < (uint64_t)a + csize; i++)
			dx[ndx++] =
			    (struct range){(uint16_t)(iv_start[i] - a), (uint16_t)iv_val[i]};
		if (ndx - first > 1024 || first >= (1u << 21))
			return -1;
		ddir[c] = EXT | (uint32_t)(ndx - first - 1) << 21 | (uint32_t)first;
	}
	return ((4u << k) + ndx * sizeof(*dx)) / 1048576.0;
}

static inline uint32_t dxr_lookup(uint32_t addr)
{
	uint32_t e = ddir[addr >> (32 - K)];
	const struct range *r;
	unsigned n;
	uint16_t low;

	if (!(e & EXT))
		return e;
	r = &dx[e & 0x1fffff];
	n = ((e >> 21) & 0x3ff) + 1;
	low = (uint16_t)(addr & ((1u << (32 - K)) - 1));
	while (n > 1) { /* branch-free bisection */
		unsigned h = n / 2;

		r = r[h].start <= low ? r + h : r;
		n -= h;
	}
	return r->value;
}

/* ---- measurement ---- */

static uint32_t *keys;
static const struct fib *anchor;

static uint32_t d24_lookup(uint32_t a)
{
	return fib4_lookup(anchor->t, a);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define FAST __attribute__((target("popcnt")))
#else
#define FAST
#endif

FAST static uint64_t run_pt(void)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < NKEYS; i++)
		sum += pt_lookup(keys[i]);
	return sum;
}

static uint64_t run_dxr(void)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < NKEYS; i++)
		sum += dxr_lookup(keys[i]);
	return sum;
}

static uint64_t run_dxr32(void)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < NKEYS; i++)
		sum += dxr32_lookup(keys[i]);
	return sum;
}

static uint64_t run_d24(void)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < NKEYS; i++)
		sum += fib4_lookup(anchor->t, keys[i]);
	return sum;
}

static uint64_t sink;

static double rate(int which)
{
	static uint64_t (*const run[])(void) = {run_d24, run_pt, run_dxr, run_dxr32};
	double t0 = cpu_now(); /* the machine is shared: CPU time, not wall time */

	sink += run[which]();
	return NKEYS / (cpu_now() - t0) / 1e6;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of TRIALS for `which`, each trial run right after one of DIR-24-8. */
static void compare(const char *name, double mib, int which)
{
	double d[TRIALS], c[TRIALS];
	size_t bad = 0;

	for (uint32_t i = 0; i < 1000000; i++)
		bad += (which == 1   ? pt_lookup(keys[i])
		        : which == 2 ? dxr_lookup(keys[i])
		                     : dxr32_lookup(keys[i])) != d24_lookup(keys[i]);
	for (int t = 0; t < TRIALS; t++) {
		d[t] = rate(0);
		c[t] = rate(which);
	}
	qsort(d, TRIALS, sizeof(double), dbl_cmp);
	qsort(c, TRIALS, sizeof(double), dbl_cmp);
	printf(
	    "%-12s %7.2f MiB  random lookups %6.1f M/s  (DIR-24-8 alongside %6.1f M/s)  x%.2f%s\n",
	    name, mib, c[TRIALS / 2], d[TRIALS / 2], c[TRIALS / 2] / d[TRIALS / 2],
	    bad ? "  WRONG RESULTS" : "");
}

int main(int argc, char **argv)
{
	int cpu = argc > 2 ? atoi(argv[2]) : 0;
	uint32_t nexthops = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 64;
	struct fib f;
	struct route *r;
	size_t n;

	if (argc < 2 || nexthops == 0 || nexthops > 0xffff) {
		fprintf(stderr, "usage: fib_bench_choice PREFIX_FILE [CPU [NEXTHOPS 1..65535]]\n");
		return 2;
	}
	pin(cpu);
	r = routes_read(argv[1], &n);
	routes_set_values(r, n, nexthops);
	if (fib_create(&f, &fib_algo_dir24_8, NULL) < 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		fib_insert(&f, r[i].prefix, r[i].len, r[i].value);
	anchor = &f;
	intervals_build(r, n);
	printf("CPU %d; %zu prefixes, %u next-hop groups: %zu elementary intervals\n", cpu, n,
	       nexthops, niv);
	keys = xmalloc(NKEYS * sizeof(*keys));
	for (uint32_t i = 0; i < NKEYS; i++)
		keys[i] = rnd();
	for (int s = 16; s <= 18; s += 2) {
		char name[32];
		double mib = pt_make(s);

		snprintf(name, sizeof(name), "poptrie S=%d", s);
		compare(name, mib, 1);
		free(pn);
		free(pleaf);
		free(pdir);
	}
	for (int k = 16; k <= 20; k += 2) {
		char name[32];
		double mib = dxr_make(k);

		snprintf(name, sizeof(name), "DXR D%dR", k);
		if (mib < 0) {
			printf("%-12s does not fit the range format\n", name);
		} else {
			compare(name, mib, 2);
			dxr_split();
			snprintf(name, sizeof(name), "DXR D%dR/32", k);
			compare(name, ((4u << k) + ndx * 6.0) / 1048576.0, 3);
			free(dstart);
			free(dval);
		}
		free(dx);
		free(ddir);
	}
	fib_destroy(&f);
	free(keys);
	free(r);
	return 0;
}
