/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared pieces of fib_bench (both IPv4 LPM algorithms side by side). */
#ifndef CELLGATE_FIB_BENCH_H
#define CELLGATE_FIB_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "datapath/fib/fib.h"

struct route {
	uint32_t prefix;
	uint8_t len;
	uint32_t value;
	uint32_t asn;  /* origin AS from the table, 0 if none */
	uint32_t line; /* position in the file: the later duplicate wins */
};

/* Reference: per length, the routes sorted by prefix, binary searched. */
struct ref {
	struct route *by_len[33];
	size_t n[33];
};

#define NALGOS 2 /* fib_algos[0..1]: dir-24-8, poptrie */

uint32_t rnd(void);
double now(void);
/* CPU time of the calling thread: what a shared machine's other tenants took is not in it. */
double cpu_now(void);
void pin(int cpu);
long proc_status_kb(const char *file, const char *key);
uint32_t mask_of(uint8_t len);
void *xmalloc(size_t n);

struct route *routes_read(const char *path, size_t *n);
/* Values: 0 = one per route (line number), else 1 + hash(origin AS) % nexthops. */
void routes_set_values(struct route *r, size_t n, uint32_t nexthops);
void routes_print_mix(const struct route *r, size_t n);
void routes_shuffle(struct route *r, size_t n);

void ref_build(struct ref *ref, const struct route *r, size_t n);
void ref_free(struct ref *ref);
uint32_t ref_lookup(const struct ref *ref, uint32_t addr);
size_t ref_flatten(const struct ref *ref, struct route *r);

/* Lookup rates of every algorithm, interleaved (fib_bench_lookup.c); kinds: 1 = random keys
 * only, 2 = random and in-table, 3 = random, in-table, sequential. */
void bench_lookups(struct fib *const *fibs, const struct route *r, size_t n, int kinds);

/* A lookup thread on reader_cpu while this thread churns on writer_cpu (fib_bench_churn.c). */
void bench_churn(struct fib *const *fibs, const struct route *r, size_t n, uint32_t nexthops,
                 int reader_cpu, int writer_cpu);

#endif
