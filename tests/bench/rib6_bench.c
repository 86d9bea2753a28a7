/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RIB6 insert benchmark (rib6-bench.sh): the libloc IPv6 networks (~220k)
 * into the RIB6 one rib6_route_set at a time, as FPM feeds them, and the
 * same count of libloc IPv4 networks into the IPv4 RIB as the anchor, in
 * the same process, alternating rounds. Reports routes/s and the longest
 * single insert: a table that grows in one go shows up there (a one-shot
 * rehash of every route), one that grows in steps does not. Both are
 * measured in the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), page faults
 * included: on a shared machine the wall clock of one insert mostly says
 * how long the scheduler kept the thread off the CPU. IPv6 goes into the
 * FIB6 in batches of 4096 routes as the FPM server does (the batch ends
 * are not inserts, and not counted in either figure).
 *
 *   rib6_bench CPU NETS6 NETS4 [ROUNDS]
 *
 * NETS6/NETS4: one prefix a line ("2001:db8::/32", "10.0.0.0/8").
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/rib.h"
#include "daemon/rib6.h"

struct net {
	uint8_t a[16];
	uint8_t len;
};

struct result {
	double secs;    /* CPU time of all rib*_route_set calls */
	double longest; /* of one */
	size_t at;      /* the route count before the longest one */
	unsigned over1ms;
	uint64_t memory, order; /* RIB6 bytes with the whole table in, of which its prefix order */
};

#define BATCH 4096

static uint64_t seed4(void *arg, uint16_t port, uint32_t ip)
{
	(void)arg, (void)port, (void)ip;
	return 0;
}

static uint64_t seed6(void *arg, uint16_t port, const uint8_t ip[16])
{
	(void)arg, (void)port, (void)ip;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct net *nets_read(const char *path, int af, size_t max, size_t *n)
{
	FILE *f = fopen(path, "r");
	struct net *v = calloc(max, sizeof(*v));
	char line[128];

	*n = 0;
	if (!f || !v) {
		perror(path);
		exit(2);
	}
	while (*n < max && fgets(line, sizeof(line), f)) {
		char *slash = strchr(line, '/');
		if (!slash)
			continue;
		*slash = 0;
		v[*n].len = (uint8_t)atoi(slash + 1);
		if (inet_pton(af, line, v[*n].a) == 1)
			(*n)++;
	}
	fclose(f);
	return v;
}

static void account(struct result *r, size_t i, double t0, double t1)
{
	double d = t1 - t0;

	r->secs += d;
	if (d > r->longest) {
		r->longest = d;
		r->at = i;
	}
	r->over1ms += d > 1e-3;
}

/* Publish the batch (no reader runs: reclaim at once) and open the next. */
static void batch_next(struct fib6 *f, bool again)
{
	for (int tries = 0; fib6_batch_end(f) != 0 && tries < 64; tries++)
		fib6_reclaim(f);
	fib6_reclaim(f);
	if (again)
		fib6_batch_begin(f);
}

static struct result load6(struct dataplane *dp, struct rib *rib, const struct net *v, size_t n)
{
	struct rib6 *r6 = rib6_new(rib, seed6, NULL);
	struct rib6_path on = {.port = 1, .weight = 1}, gw = {.port = 1, .weight = 1};
	struct result r = {0};
	uint8_t link[16];

	inet_pton(AF_INET6, "2001:db8:1::", link);
	rib6_route_set(r6, link, 64, RIB_SRC_CONNECTED, NH_GLEAN, &on, 1);
	inet_pton(AF_INET6, "2001:db8:1::2", gw.gw);
	fib6_batch_begin(dp->fib6);
	for (size_t i = 0; i < n; i++) {
		double t0 = now();
		rib6_route_set(r6, v[i].a, v[i].len, RIB_SRC_FRR, NH_GATEWAY, &gw, 1);
		account(&r, i, t0, now());
		if (i % BATCH == BATCH - 1)
			batch_next(dp->fib6, true);
	}
	r.memory = rib6_memory(r6);
	r.order = rib6_order_bytes(r6);
	for (size_t i = 0; i < n; i++) {
		rib6_route_del(r6, v[i].a, v[i].len, RIB_SRC_FRR);
		if (i % BATCH == BATCH - 1)
			batch_next(dp->fib6, true);
	}
	rib6_route_del(r6, link, 64, RIB_SRC_CONNECTED);
	batch_next(dp->fib6, false);
	rib6_free(r6);
	fib6_reclaim(dp->fib6);
	rib_reclaim(rib);
	return r;
}

static struct result load4(struct dataplane *dp, struct rib *rib, const struct net *v, size_t n)
{
	struct rib_path on = {.port = 1, .weight = 1};
	struct rib_path gw = {.gw = 0x0a010002u, .port = 1, .weight = 1}; /* host order */
	struct result r = {0};
	uint32_t p;

	rib_route_set(rib, 0x0a010000u, 24, RIB_SRC_CONNECTED, NH_GLEAN, &on, 1);
	for (size_t i = 0; i < n; i++) {
		double t0 = now();
		memcpy(&p, v[i].a, 4);
		rib_route_set(rib, ntohl(p), v[i].len, RIB_SRC_FRR, NH_GATEWAY, &gw, 1);
		account(&r, i, t0, now());
		if (i % 1024 == 1023)
			fib_reclaim(&dp->fib);
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(&p, v[i].a, 4);
		rib_route_del(rib, ntohl(p), v[i].len, RIB_SRC_FRR);
		if (i % 1024 == 1023)
			fib_reclaim(&dp->fib);
	}
	rib_route_del(rib, 0x0a010000u, 24, RIB_SRC_CONNECTED);
	fib_reclaim(&dp->fib);
	rib_reclaim(rib);
	return r;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median, min and max of v[0..n), as "median (min-max)" with a scale. */
static void spread(const char *what, double *v, int n, double scale, const char *unit)
{
	qsort(v, (size_t)n, sizeof(*v), dbl_cmp);
	printf("  %-28s %8.2f %s (%.2f-%.2f)\n", what, v[n / 2] * scale, unit, v[0] * scale,
	       v[n - 1] * scale);
}

int main(int argc, char **argv)
{
	static struct dataplane dp;
	enum { ROUNDS_MAX = 15 };
	double rate6[ROUNDS_MAX], rate4[ROUNDS_MAX], long6[ROUNDS_MAX], long4[ROUNDS_MAX];
	unsigned over6 = 0, over4 = 0;
	size_t at6[ROUNDS_MAX];
	struct result last6 = {0};
	size_t n6, n4;
	cpu_set_t set;

	if (argc < 4) {
		fprintf(stderr, "usage: rib6_bench CPU NETS6 NETS4 [ROUNDS]\n");
		return 2;
	}
	int rounds = argc > 4 ? atoi(argv[4]) : 5;
	rounds = rounds < 1 ? 1 : rounds > ROUNDS_MAX ? ROUNDS_MAX : rounds;
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("sched_setaffinity");
	struct net *v6 = nets_read(argv[2], AF_INET6, 1u << 20, &n6);
	struct net *v4 = nets_read(argv[3], AF_INET, n6, &n4);
	if (dp_init(&dp, NULL, NULL) != 0) {
		fprintf(stderr, "rib6_bench: dataplane: no memory\n");
		return 2;
	}
	dp.nports = 2;
	struct rib *rib = rib_new(&dp, seed4, NULL);
	for (int r = 0; r < rounds; r++) {
		struct result a = load4(&dp, rib, v4, n4), b = load6(&dp, rib, v6, n6);
		rate4[r] = (double)n4 / a.secs;
		long4[r] = a.longest;
		over4 += a.over1ms;
		rate6[r] = (double)n6 / b.secs;
		long6[r] = b.longest;
		at6[r] = b.at;
		last6 = b;
		over6 += b.over1ms;
	}
	printf("rib6_bench: cpu %s, %zu IPv6 and %zu IPv4 libloc networks, %d alternating "
	       "rounds, thread CPU time, median (min-max)\n",
	       argv[1], n6, n4, rounds);
	spread("IPv4 RIB (anchor) inserts", rate4, rounds, 1e-6, "M/CPU-s");
	spread("IPv6 RIB6 inserts", rate6, rounds, 1e-6, "M/CPU-s");
	spread("IPv4 longest single insert", long4, rounds, 1e3, "ms");
	spread("IPv6 longest single insert", long6, rounds, 1e3, "ms");
	printf("  inserts over 1 ms, all rounds: IPv4 %u, IPv6 %u\n", over4, over6);
	printf("  RIB6 route table with the whole table in: %.2f MiB, of which the prefix order "
	       "%.2f MiB (%.1f bytes a route)\n",
	       last6.memory / 1048576.0, last6.order / 1048576.0, (double)last6.order / (double)n6);
	printf("  IPv6 longest insert per round, at route #:");
	for (int r = 0; r < rounds; r++)
		printf(" %zu", at6[r]);
	printf("\n");
	rib_free(rib);
	dp_fini(&dp);
	free(v4);
	free(v6);
	return 0;
}
