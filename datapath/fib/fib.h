/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The IPv4 FIB seam: one longest-prefix-match algorithm per daemon, chosen
 * when the FIB is created, behind a small ops table. Both algorithms keep
 * the same contract:
 *   - values are next-hop group ids 1..FIB4_VALUE_MAX, 0 = no route; what a
 *     group does (forward, ECMP, blackhole, unreachable) lives in the
 *     next-hop tables, never in the FIB;
 *   - one writer (the control thread) and lock-free readers (workers); every
 *     insert/delete is visible to lookups when it returns;
 *   - memory a reader may still use is reused only after fib_reclaim(),
 *     which the caller runs after an RCU grace period;
 *   - a failed insert or delete leaves the table unchanged.
 *
 * Workers call fib_lookup_bulk() once per burst, so the indirect call costs
 * one call per burst, not per packet.
 */
#ifndef CELLGATE_FIB_H
#define CELLGATE_FIB_H

#include <stddef.h>
#include <stdint.h>

#include "datapath/fib/fib4.h"

struct fib_stats {
	uint64_t routes;
	uint64_t routes_by_len[33];
	uint64_t pending;    /* freed blocks waiting for fib_reclaim() */
	size_t lookup_bytes; /* the lookups' working set */
	size_t memory_bytes; /* all memory held, control-side structures included */
};

typedef int (*fib_walk_cb)(uint32_t prefix, uint8_t len, uint32_t value, void *arg);

/* Sizes, each for the algorithm it names; 0 = that algorithm's default. */
struct fib_params {
	uint32_t tbl8_groups; /* DIR-24-8: /25../32 groups (default 65536) */
	uint32_t pool_kib;    /* Poptrie: address space for nodes and leaves (default 1 GiB) */
};

struct fib_algo {
	const char *name; /* as configured: "dir-24-8", "poptrie" */
	void *(*create)(const struct fib_params *params);
	void (*destroy)(void *t);
	int (*insert)(void *t, uint32_t prefix, uint8_t len, uint32_t value);
	int (*remove)(void *t, uint32_t prefix, uint8_t len);
	uint32_t (*get)(const void *t, uint32_t prefix, uint8_t len);
	uint32_t (*lookup)(const void *t, uint32_t addr);
	void (*lookup_bulk)(const void *t, const uint32_t *addrs, uint32_t *values, unsigned n);
	void (*reclaim)(void *t);
	void (*get_stats)(const void *t, struct fib_stats *st);
	int (*walk)(const void *t, fib_walk_cb cb, void *arg);
};

extern const struct fib_algo fib_algo_dir24_8;
extern const struct fib_algo fib_algo_poptrie;

/* Every algorithm, NULL-terminated, in the order names are listed to users. */
extern const struct fib_algo *const fib_algos[];

/*
 * The default: Poptrie, 1.6-1.7x DIR-24-8's random lookups on the machines we
 * run on, in 4 MiB instead of 64+ (doc/FIB.md, BENCHMARKS.md).
 */
#define FIB_ALGO_DEFAULT (&fib_algo_poptrie)

/* The algorithm called name, or NULL. */
const struct fib_algo *fib_algo_find(const char *name);

struct fib {
	const struct fib_algo *algo;
	void *t;
};

/* params NULL: every default. 0, or -ENOMEM / -EINVAL (errno from the algorithm's create). */
int fib_create(struct fib *fib, const struct fib_algo *algo, const struct fib_params *params);
void fib_destroy(struct fib *fib);

static inline int fib_insert(struct fib *fib, uint32_t prefix, uint8_t len, uint32_t value)
{
	return fib->algo->insert(fib->t, prefix, len, value);
}

static inline int fib_delete(struct fib *fib, uint32_t prefix, uint8_t len)
{
	return fib->algo->remove(fib->t, prefix, len);
}

static inline uint32_t fib_get(const struct fib *fib, uint32_t prefix, uint8_t len)
{
	return fib->algo->get(fib->t, prefix, len);
}

/* One address (control side: gateway resolution and the like). */
static inline uint32_t fib_lookup(const struct fib *fib, uint32_t addr)
{
	return fib->algo->lookup(fib->t, addr);
}

static inline void fib_lookup_bulk(const struct fib *fib, const uint32_t *addrs, uint32_t *values,
                                   unsigned n)
{
	fib->algo->lookup_bulk(fib->t, addrs, values, n);
}

static inline void fib_reclaim(struct fib *fib)
{
	fib->algo->reclaim(fib->t);
}

static inline void fib_get_stats(const struct fib *fib, struct fib_stats *st)
{
	fib->algo->get_stats(fib->t, st);
}

static inline int fib_walk(const struct fib *fib, fib_walk_cb cb, void *arg)
{
	return fib->algo->walk(fib->t, cb, arg);
}

#endif
