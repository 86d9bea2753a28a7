/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fib_bench: lookups while the table changes. A lookup thread (a worker
 * stand-in: bursts of 64 random addresses through fib_lookup_bulk, an RCU
 * quiescent state after each, as datapath/worker.c does) runs pinned to one
 * CPU; this thread, pinned to the other, alternates quiet phases (no
 * updates) with churn phases, ROUNDS of PHASE_S each (short, so that load
 * from other processes drifting over seconds hits both alike): BGP-like
 * updates at CHURN_RATE per second, paced every millisecond, and every
 * 10 ms a grace period (synchronize_rcu)
 * and fib_reclaim, as the daemon's control tick does. The reader takes one
 * timestamp per burst; the gap between two is its burst time, so the worst
 * gap is the longest a lookup waited (preemption by other tenants included,
 * in both phases alike). Rates are per second of the reader's CPU time (the
 * machine is shared), with the wall-clock rate beside them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <urcu-qsbr.h>

#include "lib/clock.h"
#include "tests/bench/fib_bench.h"

#define CHURN_RATE 10000 /* updates per second */
#define PHASE_S    0.5
#define ROUNDS     8
#define RKEYS      (1u << 20)
#define BURST      64
#define HIST       48

enum { PH_WARM, PH_QUIET, PH_CHURN, PH_STOP };

struct reader {
	const struct fib *f;
	const uint32_t *keys;
	int cpu;
	int phase;
	uint64_t lookups[3], sum;
	double cpu_s[3];        /* the reader's CPU time in each phase */
	uint64_t hist[3][HIST]; /* burst gaps, log2 of ns */
	uint64_t worst_ns[3];
};

static void *reader_run(void *arg)
{
	struct reader *rd = arg;
	uint32_t vals[BURST];
	uint64_t last;
	size_t i = 0;
	int last_ph = PH_WARM;
	double mark;

	pin(rd->cpu);
	rcu_register_thread();
	last = mono_ns();
	mark = cpu_now();
	for (;;) {
		int ph = __atomic_load_n(&rd->phase, __ATOMIC_ACQUIRE);
		uint64_t t, gap;

		if (ph != last_ph) {
			double c = cpu_now();

			rd->cpu_s[last_ph] += c - mark;
			mark = c;
			last_ph = ph;
		}
		if (ph == PH_STOP)
			break;
		fib_lookup_bulk(rd->f, rd->keys + i, vals, BURST);
		rd->sum += vals[0] + vals[BURST - 1];
		i = (i + BURST) & (RKEYS - 1);
		rcu_quiescent_state();
		t = mono_ns();
		gap = t - last;
		last = t;
		rd->lookups[ph] += BURST;
		rd->hist[ph][63 - __builtin_clzll(gap | 1)]++;
		if (gap > rd->worst_ns[ph])
			rd->worst_ns[ph] = gap;
	}
	rcu_unregister_thread();
	return NULL;
}

struct churn {
	struct fib *f;
	const struct route *r;
	size_t n;
	uint8_t *absent;
	uint32_t nexthops;
	uint64_t rng;
	uint64_t applied, errors, reclaims;
	double worst_update, worst_grace;
};

static uint32_t churn_rnd(struct churn *c)
{
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return (uint32_t)((c->rng * 0x2545f4914f6cdd1dull) >> 32);
}

/* One BGP-like update: mostly best-path changes, some withdrawals and re-announcements. */
static void churn_one(struct churn *c)
{
	size_t i = ((uint64_t)churn_rnd(c) << 32 | churn_rnd(c)) % c->n;
	const struct route *r = &c->r[i];
	uint32_t v = c->nexthops ? 1 + churn_rnd(c) % c->nexthops : 1 + churn_rnd(c) % 0x7fffffff;
	double t0 = now(), dt;
	int rc;

	if (!c->absent[i] && churn_rnd(c) % 5 == 0) {
		rc = fib_delete(c->f, r->prefix, r->len);
		c->absent[i] = 1;
	} else {
		rc = fib_insert(c->f, r->prefix, r->len, v);
		c->absent[i] = 0;
	}
	dt = now() - t0;
	if (dt > c->worst_update)
		c->worst_update = dt;
	c->errors += rc != 0;
	c->applied++;
}

static void sleep_until(double t)
{
	double d = t - now();

	if (d > 0) {
		struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};

		nanosleep(&ts, NULL);
	}
}

static double phase_churn(struct churn *c)
{
	double t0 = now(), end = t0 + PHASE_S, next_reclaim = t0 + 0.01;
	uint64_t base = c->applied;

	for (double t = t0; t < end; t = now()) {
		uint64_t target = base + (uint64_t)((t - t0) * CHURN_RATE);

		while (c->applied < target)
			churn_one(c);
		if (t >= next_reclaim) {
			double g0 = now();

			synchronize_rcu();
			fib_reclaim(c->f);
			if (now() - g0 > c->worst_grace)
				c->worst_grace = now() - g0;
			c->reclaims++;
			next_reclaim += 0.01;
		}
		sleep_until(t + 0.001);
	}
	return now() - t0;
}

/* Rate per second of the reader's CPU time (and per wall second), burst gaps in wall time. */
static void hist_print(const struct reader *rd, int ph, double secs)
{
	uint64_t total = 0, acc = 0;
	int b999 = 0;

	for (int b = 0; b < HIST; b++)
		total += rd->hist[ph][b];
	for (int b = 0; b < HIST && acc * 1000 < total * 999; b++) {
		acc += rd->hist[ph][b];
		b999 = b;
	}
	printf("%7.1f M/s (%.1f per wall second), burst of %d: 99.9%% under %.1f us, worst %.1f us",
	       rd->lookups[ph] / rd->cpu_s[ph] / 1e6, rd->lookups[ph] / secs / 1e6, BURST,
	       (double)(2ull << b999) / 1e3, (double)rd->worst_ns[ph] / 1e3);
}

static void churn_one_algo(struct fib *f, const uint32_t *keys, const struct route *r, size_t n,
                           uint32_t nexthops, int reader_cpu)
{
	struct reader rd = {.f = f, .keys = keys, .cpu = reader_cpu};
	struct churn c = {
	    .f = f, .r = r, .n = n, .nexthops = nexthops, .rng = 0x853c49e6748fea9bull};
	double secs[3] = {0};
	struct fib_stats st0, st;
	pthread_t th;

	c.absent = calloc(n, 1);
	fib_get_stats(f, &st0);
	pthread_create(&th, NULL, reader_run, &rd);
	sleep_until(now() + 0.3);
	for (int round = 0; round < ROUNDS; round++) {
		double t0 = now();

		__atomic_store_n(&rd.phase, PH_QUIET, __ATOMIC_RELEASE);
		sleep_until(t0 + PHASE_S);
		secs[PH_QUIET] += now() - t0;
		__atomic_store_n(&rd.phase, PH_CHURN, __ATOMIC_RELEASE);
		secs[PH_CHURN] += phase_churn(&c);
	}
	__atomic_store_n(&rd.phase, PH_STOP, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	synchronize_rcu();
	fib_reclaim(f);
	fib_get_stats(f, &st);
	printf("churn %-9s quiet: ", f->algo->name);
	hist_print(&rd, PH_QUIET, secs[PH_QUIET]);
	printf("\nchurn %-9s churn: ", f->algo->name);
	hist_print(&rd, PH_CHURN, secs[PH_CHURN]);
	printf(
	    "\nchurn %-9s churn/quiet %.1f%%; %llu updates (%.0f/s, %llu failed), worst update "
	    "%.1f us, %llu reclaims, worst grace period %.2f ms; lookup bytes %.2f -> %.2f MiB\n",
	    f->algo->name,
	    100.0 * ((double)rd.lookups[PH_CHURN] / rd.cpu_s[PH_CHURN]) /
	        ((double)rd.lookups[PH_QUIET] / rd.cpu_s[PH_QUIET]),
	    (unsigned long long)c.applied, (double)c.applied / secs[PH_CHURN],
	    (unsigned long long)c.errors, c.worst_update * 1e6, (unsigned long long)c.reclaims,
	    c.worst_grace * 1e3, (double)st0.lookup_bytes / 1048576.0,
	    (double)st.lookup_bytes / 1048576.0);
	free(c.absent);
}

void bench_churn(struct fib *const *fibs, const struct route *r, size_t n, uint32_t nexthops,
                 int reader_cpu, int writer_cpu)
{
	uint32_t *keys = xmalloc(RKEYS * sizeof(*keys));

	pin(writer_cpu);
	printf("update under lookup: lookup thread on CPU %d (random keys), control thread on CPU "
	       "%d: %d x (%.1f s quiet, %.1f s at %d updates/s)\n",
	       reader_cpu, writer_cpu, ROUNDS, PHASE_S, PHASE_S, CHURN_RATE);
	for (uint32_t i = 0; i < RKEYS; i++)
		keys[i] = rnd();
	for (unsigned a = 0; a < NALGOS; a++)
		churn_one_algo(fibs[a], keys, r, n, nexthops, reader_cpu);
	pin(reader_cpu);
	free(keys);
}
