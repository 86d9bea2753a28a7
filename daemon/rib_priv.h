/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef CELLGATE_RIB_PRIV_H
#define CELLGATE_RIB_PRIV_H

#include "config/config.h"
#include "daemon/oa_table.h"
#include "daemon/rib.h"
#include "lib/kset.h"

#define NH_BUCKETS    16384
#define NHG_BUCKETS   16384
#define NHG_PATHS_MAX 16

_Static_assert(NHG_MAX <= 65536, "struct rib_route keeps next-hop group ids in 16 bits");

struct id_pool {
	uint32_t *free, nfree;
	uint32_t *pending, npending;
};

struct nh_meta {
	uint64_t key;
	uint32_t refcnt;
	uint32_t next;
};

struct nhg_meta {
	uint32_t hash;
	uint32_t refcnt;
	uint32_t next;
	uint8_t n;
	uint8_t w[NHG_PATHS_MAX];
	uint32_t nh[NHG_PATHS_MAX];
};

/* One entry of the route table (an oa_table: see oa_table.h for why). */
struct rib_route {
	uint64_t key; /* ROUTE_USED | prefix << 8 | len; 0 = empty slot */
	/* Group ids fit 16 bits (NHG_MAX): 24 bytes a route, not 32, at a million routes. */
	uint16_t nhg[RIB_SRC__MAX];
	uint16_t installed; /* nhg id in the FIB, 0 = none */
};

struct rib {
	struct dataplane *dp;
	rib_l2_seed_fn seed;
	void *seed_arg;

	struct id_pool nh_ids, nhg_ids;
	struct nh_meta *nh_meta;   /* NH_MAX */
	struct nhg_meta *nhg_meta; /* NHG_MAX */
	uint32_t nh_bucket[NH_BUCKETS];
	uint32_t nhg_bucket[NHG_BUCKETS];
	uint64_t nnh, nnhg;

	struct oa_table routes; /* of struct rib_route */
	/* Installed routes' keys (rib_key) in prefix order: the route list's cursor (rib.h). */
	struct kset order;
	uint64_t order_errors; /* installed routes the order could not take (ENOMEM) */
	uint64_t nroutes[RIB_SRC__MAX];
	uint64_t errors;
};

static inline uint32_t rib_hash32(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k;
}

int ids_init(struct id_pool *p, uint32_t n);
uint32_t ids_get(struct id_pool *p); /* 0 when none is free */
void ids_fini(struct id_pool *p);
void ids_reclaim(struct id_pool *p);

uint32_t rib_nh_find(const struct rib *rib, enum nh_type type, uint16_t port, uint32_t gw);
uint32_t rib_nh_ref(struct rib *rib, enum nh_type type, uint16_t port, uint32_t gw);
void rib_nh_unref(struct rib *rib, uint32_t id);
uint32_t rib_nhg_ref(struct rib *rib, const uint32_t *nh, const uint8_t *w, unsigned n,
                     bool *created);
void rib_nhg_unref(struct rib *rib, uint32_t id);

#endif
