/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv4 FIB benchmark, both algorithms of the fib_algo seam side by side in
 * one run, on a real-shaped table (fib-bench.sh feeds it the IPv4 nets of
 * the libloc database, ~1.07 M prefixes, "a.b.c.d/len [origin-AS]" per line).
 *
 *   fib_bench PREFIX_FILE [CPU [NEXTHOPS [short]]]
 *
 * CPU: the one the lookups run on; the update-under-lookup run puts the
 * control thread on CPU ^ 1. NEXTHOPS: how many next-hop groups the routes
 * map to (by origin AS; default 64); 0 gives every route its own value.
 * short: only load, memory, correctness, random-key and in-table lookups.
 *
 * Reported per algorithm: whole-table build (create + every insert, file
 * order), insert and delete rates in random order, memory (the lookups'
 * working set, everything counted, and RSS), lookup rates (random, in-table
 * and sequential keys; scalar and bulk), next-hop changes of short
 * prefixes, and lookups during churn. Every
 * load is checked against an independent reference (binary search per
 * prefix length) on random and in-table addresses.
 *
 * Times are the measuring thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the
 * machine is shared, and time the scheduler gave to other processes is not
 * the table's. Cache contention from them remains in the figures.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/fib/fib4_poptrie.h"
#include "tests/bench/fib_bench.h"

#define RECLAIM_EVERY 10000 /* the daemon reclaims every 10 ms: 10k routes at 1 M/s */

static int check_correct(const struct fib *f, const struct ref *ref, const struct route *r,
                         size_t n, unsigned count)
{
	unsigned bad = 0, matched = 0;

	for (unsigned i = 0; i < count; i++) {
		uint32_t addr = rnd();
		const struct route *in = &r[rnd() % n];

		if (i % 2)
			addr = in->prefix | (addr & ~mask_of(in->len));
		uint32_t got = fib_lookup(f, addr), want = ref_lookup(ref, addr);

		matched += want != 0;
		if (got != want && bad++ < 10)
			printf("MISMATCH %s %u.%u.%u.%u: fib %u, reference %u\n", f->algo->name,
			       addr >> 24, addr >> 16 & 0xff, addr >> 8 & 0xff, addr & 0xff, got,
			       want);
	}
	printf("correctness %-9s %u addresses (%u routed), %u mismatches\n", f->algo->name, count,
	       matched, bad);
	return bad ? -1 : 0;
}

/* Insert r[0..n) into f, reclaiming as the daemon would; seconds taken. */
static double insert_all(struct fib *f, const struct route *r, size_t n)
{
	double t0 = cpu_now();

	for (size_t i = 0; i < n; i++) {
		int rc = fib_insert(f, r[i].prefix, r[i].len, r[i].value);

		if (rc < 0) {
			fprintf(stderr, "fib_bench: %s insert #%zu: %s\n", f->algo->name, i,
			        strerror(-rc));
			exit(1);
		}
		if (i % RECLAIM_EVERY == RECLAIM_EVERY - 1)
			fib_reclaim(f);
	}
	fib_reclaim(f);
	return cpu_now() - t0;
}

static void report_memory(const struct fib *f, long rss_delta_kb)
{
	struct fib_stats st;

	fib_get_stats(f, &st);
	printf("memory %-9s lookups' working set %8.2f MiB, all counted %7.1f MiB, RSS +%.1f MiB\n",
	       f->algo->name, (double)st.lookup_bytes / 1048576.0,
	       (double)st.memory_bytes / 1048576.0, (double)rss_delta_kb / 1024.0);
	if (f->algo == &fib_algo_poptrie) {
		struct fib4_poptrie_stats ps;

		fib4_poptrie_get_stats(f->t, &ps);
		printf(
		    "memory %-9s %llu nodes (%.2f MiB), %llu leaves (%.2f MiB), 1.00 MiB direct; "
		    "pools touched %.2f MiB; %llu shadow nodes\n",
		    f->algo->name, (unsigned long long)ps.nodes,
		    (double)ps.nodes * sizeof(struct fib4_poptrie_node) / 1048576.0,
		    (unsigned long long)ps.leaves, (double)ps.leaves * 4 / 1048576.0,
		    (double)ps.touched_bytes / 1048576.0, (unsigned long long)ps.shadow_nodes);
	}
}

static void build_all(struct fib **fibs, const struct route *r, size_t n)
{
	for (unsigned a = 0; a < NALGOS; a++) {
		long rss0 = proc_status_kb("/proc/self/status", "VmRSS:");
		double t0 = cpu_now(), dt;
		int rc = fib_create(fibs[a], fib_algos[a], NULL);

		if (rc < 0) {
			fprintf(stderr, "fib_bench: %s create: %s\n", fib_algos[a]->name,
			        strerror(-rc));
			exit(1);
		}
		insert_all(fibs[a], r, n);
		dt = cpu_now() - t0;
		printf("build  %-9s %zu routes, file order, create + insert: %.3f s = %.2f M "
		       "routes/s\n",
		       fibs[a]->algo->name, n, dt, (double)n / dt / 1e6);
		report_memory(fibs[a], proc_status_kb("/proc/self/status", "VmRSS:") - rss0);
	}
}

/* Delete everything in random order, then insert it again in that order. */
static int delete_reinsert(struct fib *f, const struct ref *ref, struct route *r, size_t n)
{
	struct fib_stats st;
	size_t deleted = 0;
	double t0 = cpu_now(), dt;

	for (size_t i = 0; i < n; i++) {
		deleted += fib_delete(f, r[i].prefix, r[i].len) == 0;
		if (i % RECLAIM_EVERY == RECLAIM_EVERY - 1)
			fib_reclaim(f);
	}
	fib_reclaim(f);
	dt = cpu_now() - t0;
	fib_get_stats(f, &st);
	printf("delete %-9s random order: %zu routes in %.3f s = %.2f M routes/s%s\n",
	       f->algo->name, deleted, dt, (double)deleted / dt / 1e6,
	       deleted == n && st.routes == 0 ? "" : "  DELETE FAILED");
	dt = insert_all(f, r, n);
	printf("insert %-9s random order: %zu routes in %.3f s = %.2f M routes/s\n", f->algo->name,
	       n, dt, (double)n / dt / 1e6);
	return (deleted == n && st.routes == 0 ? 0 : -1) | check_correct(f, ref, r, n, 100000);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Change the value of every route of length len (and put it back); times in t[algo][k]. */
static size_t time_changes(struct fib *const *fibs, const struct route *r, size_t n, uint8_t len,
                           double *const *t)
{
	size_t cnt = 0;

	for (size_t i = 0; i < n; i++) {
		if (r[i].len != len)
			continue;
		for (unsigned a = 0; a < NALGOS; a++) {
			double t0 = now();

			fib_insert(fibs[a], r[i].prefix, len, r[i].value + 1);
			t[a][cnt] = now() - t0;
			fib_insert(fibs[a], r[i].prefix, len, r[i].value);
			fib_reclaim(fibs[a]);
		}
		cnt++;
	}
	return cnt;
}

/*
 * What a next-hop change of a short prefix costs: every route of /7../16
 * gets another value, one at a time, timed alone (wall clock, so the max
 * includes any preemption; the median does not). DIR-24-8 rewrites
 * 2^(24-len) entries; Poptrie repaints every node below the prefix.
 */
static void bench_short_updates(struct fib *const *fibs, const struct route *r, size_t n)
{
	double *t[NALGOS];

	for (unsigned a = 0; a < NALGOS; a++)
		t[a] = xmalloc(n * sizeof(double));
	printf("value change, median / max us  ");
	for (unsigned a = 0; a < NALGOS; a++)
		printf(" %-22s", fibs[a]->algo->name);
	printf("\n");
	for (uint8_t len = 7; len <= 16; len++) {
		size_t cnt = time_changes(fibs, r, n, len, t);

		if (!cnt)
			continue;
		printf("value change /%-2u (%6zu routes)", len, cnt);
		for (unsigned a = 0; a < NALGOS; a++) {
			qsort(t[a], cnt, sizeof(double), dbl_cmp);
			printf(" %8.1f / %8.1f    ", t[a][cnt / 2] * 1e6, t[a][cnt - 1] * 1e6);
		}
		printf("\n");
	}
	for (unsigned a = 0; a < NALGOS; a++)
		free(t[a]);
}

static void print_machine(int cpu)
{
	char path[128], l3[64] = "unknown";
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index3/size", cpu);
	fp = fopen(path, "r");
	if (fp) {
		if (fgets(l3, sizeof(l3), fp))
			l3[strcspn(l3, "\n")] = 0;
		fclose(fp);
	}
	printf("lookups pinned to CPU %d; L3 cache (sysfs) %s; times are thread CPU time\n", cpu,
	       l3);
}

int main(int argc, char **argv)
{
	struct fib store[NALGOS], *fibs[NALGOS] = {&store[0], &store[1]};
	int cpu = argc > 2 ? atoi(argv[2]) : 0, rc = 0;
	uint32_t nexthops = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 64;
	int quick = argc > 4 && !strcmp(argv[4], "short");
	struct route *r;
	struct ref ref;
	size_t n;

	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: fib_bench PREFIX_FILE [CPU [NEXTHOPS [short]]]\n");
		return 2;
	}
	pin(cpu);
	print_machine(cpu);
	r = routes_read(argv[1], &n);
	if (!n) {
		fprintf(stderr, "fib_bench: no prefixes in %s\n", argv[1]);
		return 1;
	}
	routes_print_mix(r, n);
	routes_set_values(r, n, nexthops);
	if (nexthops)
		printf("values: %u next-hop groups, by origin AS\n", nexthops);
	else
		printf("values: one per route (%zu)\n", n);
	build_all(fibs, r, n);
	ref_build(&ref, r, n);
	for (unsigned a = 0; a < NALGOS; a++)
		rc |= check_correct(fibs[a], &ref, r, n, 100000);
	bench_lookups(fibs, r, n, quick ? 2 : 3);
	if (!quick) {
		size_t distinct = ref_flatten(&ref, r);

		if (distinct != n)
			printf("%zu duplicate prefixes (the last one wins)\n", n - distinct);
		n = distinct;
		routes_shuffle(r, n);
		for (unsigned a = 0; a < NALGOS; a++)
			rc |= delete_reinsert(fibs[a], &ref, r, n);
		bench_short_updates(fibs, r, n);
		bench_churn(fibs, r, n, nexthops, cpu, cpu ^ 1);
	}
	for (unsigned a = 0; a < NALGOS; a++)
		fib_destroy(fibs[a]);
	ref_free(&ref);
	free(r);
	printf("%s\n", rc ? "FAILED" : "ok");
	return rc ? 1 : 0;
}
