/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Next-hop objects of the current FPM session (zebra with `fpm
 * use-next-hop-groups`, the default): RTM_NEWNEXTHOP announces a gateway,
 * an interface, a blackhole, or a group of other objects with weights, and
 * routes name one by RTA_NH_ID. On a replay a group may come before its
 * members, and a route before its object: such references create an
 * "unknown" placeholder, and whatever uses it waits (fpm_table.c keeps its
 * older forwarding) until the object is announced. When an object changes,
 * the routes using it, and the groups listing it, are resolved again.
 *
 * An object resolves twice, once for the IPv4 routes using it and once for
 * the IPv6 ones (target, target6): zebra sends IPv6 gateways for IPv6
 * routes, and an interface-only object or a group may serve both.
 *
 * Ids are zebra's and change when zebra restarts, so nothing here outlives
 * a session: routes keep what they resolved to in the RIB, not the id.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "daemon/fpm_table_priv.h"

static void nh_free_obj(struct fpm_table *t, struct fpm_nh *n)
{
	struct fpm_nh_ix *x = oa_find(&t->nhix, n->id);

	if (x)
		oa_remove(&t->nhix, x);
	t->nh[n->slot] = NULL;
	t->nh_free[t->nh_nfree++] = n->slot;
	free(n->members);
	free(n->parents);
	free(n->deps);
	free(n->deps6);
	free(n);
}

void fpm_nh_reset(struct fpm_table *t)
{
	for (uint32_t s = 0; s < t->nh_n; s++) {
		struct fpm_nh *n = t->nh[s];
		if (!n)
			continue;
		free(n->members);
		free(n->parents);
		free(n->deps);
		free(n->deps6);
		free(n);
		t->nh[s] = NULL;
	}
	t->nh_n = t->nh_nfree = 0;
	oa_clear(&t->nhix);
}

static struct fpm_nh *nh_find(const struct fpm_table *t, uint32_t id)
{
	const struct fpm_nh_ix *x = oa_find(&t->nhix, id);

	return x ? t->nh[x->slot] : NULL;
}

/* A free slot number, growing the slot array (and the free stack with it). */
static int nh_slot_alloc(struct fpm_table *t, uint32_t *slot)
{
	if (t->nh_nfree) {
		*slot = t->nh_free[--t->nh_nfree];
		return 0;
	}
	if (t->nh_n == t->nh_cap) {
		uint32_t cap = t->nh_cap ? t->nh_cap * 2 : 256;
		struct fpm_nh **nh = realloc(t->nh, cap * sizeof(*nh));
		if (!nh)
			return -1;
		t->nh = nh;
		uint32_t *fr = realloc(t->nh_free, cap * sizeof(*fr));
		if (!fr)
			return -1;
		t->nh_free = fr;
		t->nh_cap = cap;
	}
	*slot = t->nh_n++;
	return 0;
}

struct fpm_nh *fpm_nh_get(struct fpm_table *t, uint32_t id)
{
	struct fpm_nh *n = nh_find(t, id);
	uint32_t slot;

	if (n)
		return n;
	if (oa_reserve(&t->nhix) != 0 || !(n = calloc(1, sizeof(*n))))
		return NULL;
	if (nh_slot_alloc(t, &slot) != 0) {
		free(n);
		return NULL;
	}
	n->id = id;
	n->slot = slot;
	n->state = NHS_UNKNOWN;
	n->target = (struct fpm_target){.reject = -1, .pending = true};
	n->target6 = (struct fpm_target6){.reject = -1, .pending = true};
	t->nh[slot] = n;
	struct fpm_nh_ix *x = oa_slot(&t->nhix, id);
	oa_claim(&t->nhix, x, id);
	x->slot = slot;
	return n;
}

/* Grow *arr (of esz-byte items) so that one more fits. 0 or -1. */
static int arr_reserve(void **arr, uint32_t n, uint32_t *cap, size_t esz)
{
	if (n < *cap)
		return 0;
	uint32_t c = *cap ? *cap * 2 : 4;
	void *a = realloc(*arr, c * esz);
	if (!a)
		return -1;
	*arr = a;
	*cap = c;
	return 0;
}

/* A placeholder nothing refers to any more is forgotten. */
static void nh_gc(struct fpm_table *t, struct fpm_nh *n)
{
	if (n->state == NHS_UNKNOWN && !n->ndeps && !n->ndeps6 && !n->nparents)
		nh_free_obj(t, n);
}

int fpm_nh_dep_add(struct fpm_table *t, struct fpm_nh *n, uint64_t key, uint32_t *pos)
{
	if (arr_reserve((void **)&n->deps, n->ndeps, &n->cdeps, sizeof(*n->deps)) != 0)
		return -1;
	*pos = n->ndeps;
	n->deps[n->ndeps++] = key;
	return 0;
}

void fpm_nh_dep_del(struct fpm_table *t, struct fpm_nh *n, uint32_t pos)
{
	uint32_t last = --n->ndeps;

	/* Swap-remove, and tell the route that moved where it now is. */
	if (pos != last) {
		n->deps[pos] = n->deps[last];
		struct fpm_r4 *moved = oa_find(&t->r4, n->deps[pos]);
		if (moved)
			moved->pos = pos;
	}
	nh_gc(t, n);
}

int fpm_nh_dep6_add(struct fpm_table *t, struct fpm_nh *n, struct fpm_r6 *e)
{
	if (arr_reserve((void **)&n->deps6, n->ndeps6, &n->cdeps6, sizeof(*n->deps6)) != 0)
		return -1;
	e->pos = n->ndeps6;
	struct fpm_r6_id *id = &n->deps6[n->ndeps6++];
	memcpy(id->prefix, e->prefix, sizeof(id->prefix));
	id->len = e->len;
	return 0;
}

void fpm_nh_dep6_del(struct fpm_table *t, struct fpm_nh *n, uint32_t pos)
{
	uint32_t last = --n->ndeps6;

	/* Swap-remove, and tell the route that moved where it now is. */
	if (pos != last) {
		n->deps6[pos] = n->deps6[last];
		struct fpm_r6 *moved = fpm_r6_find(t, &n->deps6[pos]);
		if (moved)
			moved->pos = pos;
	}
	nh_gc(t, n);
}

static void parent_del(struct fpm_nh *c, uint32_t slot)
{
	for (uint32_t i = 0; i < c->nparents; i++)
		if (c->parents[i] == slot) {
			c->parents[i] = c->parents[--c->nparents];
			return;
		}
}

/* Forget n's member list, and n in its members' parent lists. */
static void nh_detach_members(struct fpm_table *t, struct fpm_nh *n)
{
	for (uint32_t i = 0; i < n->nmembers; i++) {
		struct fpm_nh *c = nh_find(t, n->members[i].id);
		if (!c || c == n)
			continue;
		parent_del(c, n->slot);
		nh_gc(t, c);
	}
	free(n->members);
	n->members = NULL;
	n->nmembers = 0;
}

/*
 * A group forwards over the gateways of its members, each with the member's
 * weight. It waits while a member is unknown. Linux does not nest groups and
 * zebra never sends one as a member: such members, and blackholes, add no path.
 */
static struct fpm_path group_paths[FPM_GROUP_MAX];

/* The members' paths into group_paths; -1 while a member is unknown. */
static int nh_group_paths(struct fpm_table *t, const struct fpm_nh *n)
{
	unsigned k = 0;

	for (uint32_t i = 0; i < n->nmembers; i++) {
		const struct fpm_nh *c = nh_find(t, n->members[i].id);
		if (!c || c->state != NHS_KNOWN)
			return -1;
		if (c->nmembers || c->blackhole || c->encap)
			continue;
		group_paths[k] = c->path;
		group_paths[k].weight =
		    n->members[i].weight > 255 ? 255 : (uint8_t)n->members[i].weight;
		k++;
	}
	return (int)k;
}

/*
 * What n forwards over, for IPv4 routes (tg) and IPv6 routes (tg6). Both
 * start zeroed: they are compared with memcmp.
 */
static void nh_resolve(struct fpm_table *t, const struct fpm_nh *n, struct fpm_target *tg,
                       struct fpm_target6 *tg6)
{
	memset(tg, 0, sizeof(*tg));
	memset(tg6, 0, sizeof(*tg6));
	tg->reject = tg6->reject = -1;
	int k = n->nmembers && n->state == NHS_KNOWN ? nh_group_paths(t, n) : 0;
	if (n->state != NHS_KNOWN || k < 0) {
		tg->pending = tg6->pending = true;
	} else if (n->encap) {
		tg->reject = tg6->reject = FPM_REJ_ENCAP;
	} else if (n->blackhole) {
		tg->type = tg6->type = NH_BLACKHOLE;
	} else if (n->nmembers) {
		fpm_target_from_paths(t, group_paths, (unsigned)k, tg);
		fpm_target6_from_paths(t, group_paths, (unsigned)k, tg6);
	} else {
		fpm_target_from_paths(t, &n->path, 1, tg);
		fpm_target6_from_paths(t, &n->path, 1, tg6);
	}
}

/* Resolve n again; if that changed anything, re-program the routes using it. */
static void nh_update_target(struct fpm_table *t, struct fpm_nh *n)
{
	static struct fpm_target tg;
	static struct fpm_target6 tg6;

	nh_resolve(t, n, &tg, &tg6);
	if (memcmp(&tg, &n->target, sizeof(tg))) {
		n->target = tg;
		for (uint32_t i = 0; i < n->ndeps; i++)
			fpm_r4_reprogram(t, n->deps[i], &n->target);
	}
	if (memcmp(&tg6, &n->target6, sizeof(tg6))) {
		n->target6 = tg6;
		for (uint32_t i = 0; i < n->ndeps6; i++)
			fpm_r6_reprogram(t, &n->deps6[i], &n->target6);
	}
}

/*
 * n was announced, changed or deleted. Groups listing it resolve again too;
 * one level is enough, since a group never takes a path from a member that
 * is itself a group.
 */
static void nh_changed(struct fpm_table *t, struct fpm_nh *n)
{
	nh_update_target(t, n);
	for (uint32_t i = 0; i < n->nparents; i++) {
		struct fpm_nh *p = t->nh[n->parents[i]];
		if (p && p != n)
			nh_update_target(t, p);
	}
}

static int nh_set_members(struct fpm_table *t, struct fpm_nh *n, const struct fpm_nhobj *o)
{
	if (!o->ngroup)
		return 0;
	n->members = malloc(o->ngroup * sizeof(*n->members));
	if (!n->members)
		return -1;
	for (unsigned i = 0; i < o->ngroup; i++) {
		struct fpm_nh *c = fpm_nh_get(t, o->group[i].id);
		if (!c)
			return -1;
		n->members[n->nmembers++] = o->group[i];
		if (c != n && arr_reserve((void **)&c->parents, c->nparents, &c->cparents,
		                          sizeof(*c->parents)) != 0)
			return -1;
		if (c != n)
			c->parents[c->nparents++] = n->slot;
	}
	return 0;
}

static void nh_delete(struct fpm_table *t, uint32_t id)
{
	struct fpm_nh *n = nh_find(t, id);

	if (!n || n->state != NHS_KNOWN) {
		t->c.nh_del_unknown++;
		return;
	}
	t->c.nh_deleted++;
	nh_detach_members(t, n);
	if (!n->ndeps && !n->ndeps6 && !n->nparents) {
		nh_free_obj(t, n);
		return;
	}
	/*
	 * zebra deletes an object only once nothing uses it. If routes still
	 * do, follow the kernel (its routes go with it): they wait, unknown.
	 */
	t->c.nh_deleted_in_use += n->ndeps + n->ndeps6 != 0;
	n->state = NHS_UNKNOWN;
	nh_changed(t, n);
}

void fpm_nh_apply(struct fpm_table *t, const struct fpm_nhobj *o, bool del)
{
	if (del)
		return nh_delete(t, o->id);
	struct fpm_nh *n = fpm_nh_get(t, o->id);
	if (!n) {
		fpm_log_limited(t, "fpm: next-hop object %u: out of memory: not recorded", o->id);
		return;
	}
	if (n->state == NHS_KNOWN)
		t->c.nh_replaced++;
	else
		t->c.nh_added++;
	nh_detach_members(t, n);
	n->state = NHS_KNOWN;
	n->family = o->family;
	n->blackhole = o->blackhole;
	n->encap = o->encap;
	n->path = o->path;
	if (nh_set_members(t, n, o) != 0) {
		fpm_log_limited(t, "fpm: next-hop object %u: out of memory: group incomplete",
		                o->id);
		n->encap = true; /* unusable rather than wrong */
	}
	nh_changed(t, n);
}

void fpm_nh_settle(struct fpm_table *t)
{
	for (uint32_t s = 0; s < t->nh_n; s++) {
		struct fpm_nh *n = t->nh[s];
		if (!n || !(n->ndeps + n->ndeps6) || !n->target.pending)
			continue;
		t->c.rejected[FPM_REJ_NEXTHOP] += n->ndeps + n->ndeps6;
		fpm_log_limited(t,
		                "fpm: next-hop object %u: %s at the end of the replay: "
		                "%u route(s) using it withdrawn until it is announced",
		                n->id, n->state == NHS_KNOWN ? "a member is unknown" : "unknown",
		                n->ndeps + n->ndeps6);
		for (uint32_t i = 0; i < n->ndeps; i++)
			fpm_r4_reprogram(t, n->deps[i], &n->target);
		for (uint32_t i = 0; i < n->ndeps6; i++)
			fpm_r6_reprogram(t, &n->deps6[i], &n->target6);
	}
}
