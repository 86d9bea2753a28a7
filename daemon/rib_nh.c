/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Next-hop and next-hop-group allocation for the RIB: deduplicated by content,
 * reference counted, and freed ids held back until an RCU grace period has
 * passed (workers may still be reading them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/rib_priv.h"
#include "lib/log.h"

static uint64_t nh_key(enum nh_type type, uint16_t port, uint32_t gw)
{
	return (uint64_t)type << 48 | (uint64_t)port << 32 | gw;
}

int ids_init(struct id_pool *p, uint32_t n)
{
	p->free = malloc(n * sizeof(uint32_t));
	p->pending = malloc(n * sizeof(uint32_t));
	if (!p->free || !p->pending)
		return -ENOMEM;
	/* id 0 is never handed out: 0 means "none" in the FIB. */
	p->nfree = 0;
	for (uint32_t id = n - 1; id >= 1; id--)
		p->free[p->nfree++] = id;
	p->npending = 0;
	return 0;
}

void ids_fini(struct id_pool *p)
{
	free(p->free);
	free(p->pending);
}

uint32_t ids_get(struct id_pool *p)
{
	return p->nfree ? p->free[--p->nfree] : 0;
}

static void ids_put(struct id_pool *p, uint32_t id)
{
	p->pending[p->npending++] = id;
}

void ids_reclaim(struct id_pool *p)
{
	while (p->npending)
		p->free[p->nfree++] = p->pending[--p->npending];
}

uint32_t rib_nh_find(const struct rib *rib, enum nh_type type, uint16_t port, uint32_t gw)
{
	uint64_t key = nh_key(type, port, gw);

	for (uint32_t id = rib->nh_bucket[rib_hash32(key) % NH_BUCKETS]; id;
	     id = rib->nh_meta[id].next)
		if (rib->nh_meta[id].key == key)
			return id;
	return 0;
}

/* A reference to the next hop (type, port, gw), created if needed; 0 when full. */
uint32_t rib_nh_ref(struct rib *rib, enum nh_type type, uint16_t port, uint32_t gw)
{
	uint32_t id = rib_nh_find(rib, type, port, gw);

	if (id) {
		rib->nh_meta[id].refcnt++;
		return id;
	}
	id = ids_get(&rib->nh_ids);
	if (!id)
		return 0;
	struct nexthop *nh = &rib->dp->nht->nh[id];
	nh->type = (uint8_t)type;
	nh->port = port;
	nh->gw = gw;
	nh->l2 = type == NH_GATEWAY ? rib->seed(rib->seed_arg, port, gw) : 0;

	uint64_t key = nh_key(type, port, gw);
	uint32_t b = rib_hash32(key) % NH_BUCKETS;
	rib->nh_meta[id] = (struct nh_meta){.key = key, .refcnt = 1, .next = rib->nh_bucket[b]};
	rib->nh_bucket[b] = id;
	rib->nnh++;
	return id;
}

void rib_nh_unref(struct rib *rib, uint32_t id)
{
	struct nh_meta *m = &rib->nh_meta[id];

	if (--m->refcnt)
		return;
	uint32_t *pp = &rib->nh_bucket[rib_hash32(m->key) % NH_BUCKETS];
	while (*pp != id)
		pp = &rib->nh_meta[*pp].next;
	*pp = m->next;
	ids_put(&rib->nh_ids, id);
	rib->nnh--;
}

static uint32_t nhg_hash(const uint32_t *nh, const uint8_t *w, unsigned n)
{
	uint64_t h = n;

	for (unsigned i = 0; i < n; i++)
		h = rib_hash32(h ^ ((uint64_t)nh[i] << 8 | w[i])) + h * 31;
	return (uint32_t)h;
}

/* Spread paths over hash slots in proportion to their weights (at most NHG_SLOTS). */
static void nhg_fill_slots(struct nhg *g, const uint32_t *nh, const uint8_t *w, unsigned n)
{
	unsigned total = 0, s = 0;

	for (unsigned i = 0; i < n; i++)
		total += w[i];
	for (unsigned i = 0; i < n; i++) {
		unsigned k = total <= NHG_SLOTS ? w[i] : (w[i] * NHG_SLOTS) / total;
		if (k == 0)
			k = 1;
		for (unsigned j = 0; j < k && s < NHG_SLOTS; j++)
			g->slot[s++] = nh[i];
	}
	g->nslots = (uint16_t)s;
	g->npaths = (uint16_t)n;
}

/*
 * A reference to the group of next hops nh[0..n) with weights w, sorted by the
 * caller; created if needed (taking over the caller's nh references only when
 * created). 0 when full.
 */
uint32_t rib_nhg_ref(struct rib *rib, const uint32_t *nh, const uint8_t *w, unsigned n,
                     bool *created)
{
	uint32_t h = nhg_hash(nh, w, n);
	uint32_t b = h % NHG_BUCKETS;

	*created = false;
	for (uint32_t id = rib->nhg_bucket[b]; id; id = rib->nhg_meta[id].next) {
		struct nhg_meta *m = &rib->nhg_meta[id];
		if (m->hash == h && m->n == n && !memcmp(m->nh, nh, n * sizeof(*nh)) &&
		    !memcmp(m->w, w, n)) {
			m->refcnt++;
			return id;
		}
	}
	uint32_t id = ids_get(&rib->nhg_ids);
	if (!id)
		return 0;
	struct nhg_meta *m = &rib->nhg_meta[id];
	*m = (struct nhg_meta){.hash = h, .refcnt = 1, .n = (uint8_t)n, .next = rib->nhg_bucket[b]};
	memcpy(m->nh, nh, n * sizeof(*nh));
	memcpy(m->w, w, n);
	nhg_fill_slots(&rib->dp->nht->nhg[id], nh, w, n);
	rib->nhg_bucket[b] = id;
	rib->nnhg++;
	*created = true;
	return id;
}

void rib_nhg_unref(struct rib *rib, uint32_t id)
{
	struct nhg_meta *m = &rib->nhg_meta[id];

	if (--m->refcnt)
		return;
	uint32_t *pp = &rib->nhg_bucket[m->hash % NHG_BUCKETS];
	while (*pp != id)
		pp = &rib->nhg_meta[*pp].next;
	*pp = m->next;
	for (unsigned i = 0; i < m->n; i++)
		rib_nh_unref(rib, m->nh[i]);
	ids_put(&rib->nhg_ids, id);
	rib->nnhg--;
}
