/* SPDX-License-Identifier: BSD-2-Clause */
/* The two IPv4 LPM algorithms behind the fib_algo seam (datapath/fib/fib.h). */
#include <errno.h>
#include <string.h>

#include "datapath/fib/fib.h"
#include "datapath/fib/fib4_poptrie.h"

/* ---- DIR-24-8 (datapath/fib/fib4.c) ---- */

static void *d24_create(const struct fib_params *params)
{
	return fib4_create(params->tbl8_groups);
}

static void d24_destroy(void *t)
{
	fib4_destroy(t);
}

static int d24_insert(void *t, uint32_t prefix, uint8_t len, uint32_t value)
{
	return fib4_insert(t, prefix, len, value);
}

static int d24_remove(void *t, uint32_t prefix, uint8_t len)
{
	return fib4_delete(t, prefix, len);
}

static uint32_t d24_get(const void *t, uint32_t prefix, uint8_t len)
{
	return fib4_get(t, prefix, len);
}

static uint32_t d24_lookup(const void *t, uint32_t addr)
{
	return fib4_lookup(t, addr);
}

static void d24_lookup_bulk(const void *t, const uint32_t *addrs, uint32_t *values, unsigned n)
{
	fib4_lookup_bulk(t, addrs, values, n);
}

static void d24_reclaim(void *t)
{
	fib4_reclaim(t);
}

static void d24_get_stats(const void *t, struct fib_stats *st)
{
	struct fib4_stats s;

	fib4_get_stats(t, &s);
	*st = (struct fib_stats){.routes = s.routes,
	                         .pending = s.tbl8_pending,
	                         .lookup_bytes = s.lookup_bytes,
	                         .memory_bytes = s.memory_bytes};
	memcpy(st->routes_by_len, s.routes_by_len, sizeof(st->routes_by_len));
}

static int d24_walk(const void *t, fib_walk_cb cb, void *arg)
{
	return fib4_walk(t, cb, arg);
}

const struct fib_algo fib_algo_dir24_8 = {
    .name = "dir-24-8",
    .create = d24_create,
    .destroy = d24_destroy,
    .insert = d24_insert,
    .remove = d24_remove,
    .get = d24_get,
    .lookup = d24_lookup,
    .lookup_bulk = d24_lookup_bulk,
    .reclaim = d24_reclaim,
    .get_stats = d24_get_stats,
    .walk = d24_walk,
};

/* ---- Poptrie (datapath/fib/fib4_poptrie.c) ---- */

static void *pt_create(const struct fib_params *params)
{
	return fib4_poptrie_create(params->pool_kib);
}

static void pt_destroy(void *t)
{
	fib4_poptrie_destroy(t);
}

static int pt_insert(void *t, uint32_t prefix, uint8_t len, uint32_t value)
{
	return fib4_poptrie_insert(t, prefix, len, value);
}

static int pt_remove(void *t, uint32_t prefix, uint8_t len)
{
	return fib4_poptrie_delete(t, prefix, len);
}

static uint32_t pt_get(const void *t, uint32_t prefix, uint8_t len)
{
	return fib4_poptrie_get(t, prefix, len);
}

static uint32_t pt_lookup(const void *t, uint32_t addr)
{
	return fib4_poptrie_lookup(t, addr);
}

static void pt_lookup_bulk(const void *t, const uint32_t *addrs, uint32_t *values, unsigned n)
{
	fib4_poptrie_lookup_bulk(t, addrs, values, n);
}

static void pt_reclaim(void *t)
{
	fib4_poptrie_reclaim(t);
}

static void pt_get_stats(const void *t, struct fib_stats *st)
{
	struct fib4_poptrie_stats s;

	fib4_poptrie_get_stats(t, &s);
	*st = (struct fib_stats){.routes = s.routes,
	                         .pending = s.pending,
	                         .lookup_bytes = s.lookup_bytes,
	                         .memory_bytes = s.memory_bytes};
	memcpy(st->routes_by_len, s.routes_by_len, sizeof(st->routes_by_len));
}

static int pt_walk(const void *t, fib_walk_cb cb, void *arg)
{
	return fib4_poptrie_walk(t, cb, arg);
}

const struct fib_algo fib_algo_poptrie = {
    .name = "poptrie",
    .create = pt_create,
    .destroy = pt_destroy,
    .insert = pt_insert,
    .remove = pt_remove,
    .get = pt_get,
    .lookup = pt_lookup,
    .lookup_bulk = pt_lookup_bulk,
    .reclaim = pt_reclaim,
    .get_stats = pt_get_stats,
    .walk = pt_walk,
};

const struct fib_algo *const fib_algos[] = {&fib_algo_dir24_8, &fib_algo_poptrie, NULL};

const struct fib_algo *fib_algo_find(const char *name)
{
	for (unsigned i = 0; fib_algos[i]; i++) {
		if (!strcmp(fib_algos[i]->name, name))
			return fib_algos[i];
	}
	return NULL;
}

int fib_create(struct fib *fib, const struct fib_algo *algo, const struct fib_params *params)
{
	static const struct fib_params defaults;

	fib->algo = algo;
	errno = 0;
	fib->t = algo->create(params ? params : &defaults);
	if (!fib->t)
		return errno ? -errno : -ENOMEM;
	return 0;
}

void fib_destroy(struct fib *fib)
{
	if (fib->t)
		fib->algo->destroy(fib->t);
	fib->t = NULL;
}
