/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What fib6_bench.c takes from fib6_bench_util.c: the table file, the
 * independent reference (binary search per prefix length), timing that tells
 * wall clock from CPU time on a shared machine, and the anchors measured in
 * the same run (fib4 on the IPv4 table, the memory's latency).
 */
#ifndef CELLGATE_FIB6_BENCH_H
#define CELLGATE_FIB6_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

__extension__ typedef unsigned __int128 u128;

#define NKEYS   (1u << 20)  /* keys per set */
#define LOOKUPS (32u << 20) /* lookups per measurement */

struct route {
	u128 key;
	uint8_t len;
	uint32_t value; /* line number + 1: unique, so a wrong match cannot pass by luck */
};

/* Per length, routes sorted by key; duplicates: the last line wins, as inserted. */
struct ref {
	struct route *by_len[129];
	size_t n[129];
	uint8_t lens[129]; /* lengths present, longest first */
	unsigned nlens;
};

/*
 * A timed phase: wall clock and this thread's CPU time. The machine is
 * shared: "per CPU-second" is the rate while we held the core, the figure to
 * compare with per-core targets; the CPU share says how much we held it.
 */
struct timing {
	double wall, cpu;
};

uint64_t rnd(void);
u128 mask(unsigned len);
void store(u128 k, uint8_t a[16]);
__attribute__((noreturn)) void die(const char *what);
void pin(int cpu);
long proc_kb(const char *file, const char *key);

struct route *routes_read(const char *path, size_t *n);
void print_mix(const struct route *r, size_t n);
void shuffle(struct route *r, size_t n);

void ref_build(struct ref *ref, const struct route *r, size_t n);
uint32_t ref_lookup(const struct ref *ref, u128 addr);
size_t ref_flatten(const struct ref *ref, struct route *r); /* the distinct routes */

double cpu_s(void);
struct timing timing_start(void);
struct timing timing_end(struct timing t0);
/* "W M/s (C M/s per CPU-second, S% CPU)" */
const char *rates(struct timing t, uint64_t n, char *buf, size_t len);

void anchor_latency(size_t bytes);
void anchor_fib4(const char *path);

#endif
