#ifndef CELLGATE_RIB_PRIV_H
#define CELLGATE_RIB_PRIV_H

#include "config.h"
#include "rib.h"

#define NH_BUCKETS    16384
#define NHG_BUCKETS   16384
#define NHG_PATHS_MAX 16

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

/*
 * One slot of the route table: open addressing with linear probing, so a
 * lookup is one cache miss and a route costs no allocation of its own (the
 * FPM feed sets a million routes a second through here).
 */
struct rib_route {
	uint64_t key; /* ROUTE_USED | prefix << 8 | len; 0 = empty slot */
	uint32_t nhg[RIB_SRC__MAX];
	uint32_t installed; /* nhg id in the FIB, 0 = none */
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

	struct rib_route *routes; /* nslots entries, a power of two */
	uint32_t nslots;
	uint32_t nused;
	uint64_t nroutes[RIB_SRC__MAX];
	uint64_t errors;
};

int ids_init(struct id_pool *p, uint32_t n);
void ids_fini(struct id_pool *p);
void ids_reclaim(struct id_pool *p);

uint32_t rib_nh_find(const struct rib *rib, enum nh_type type, uint16_t port, uint32_t gw);
uint32_t rib_nh_ref(struct rib *rib, enum nh_type type, uint16_t port, uint32_t gw);
void rib_nh_unref(struct rib *rib, uint32_t id);
uint32_t rib_nhg_ref(struct rib *rib, const uint32_t *nh, const uint8_t *w, unsigned n,
                     bool *created);
void rib_nhg_unref(struct rib *rib, uint32_t id);

#endif
