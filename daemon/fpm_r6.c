/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 routes from zebra: kept as announced (prefix, type, next-hop object
 * or paths), with the session generation like IPv4 routes, for the IPv6
 * datapath to come. Nothing here reaches the RIB yet.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/fpm_table_priv.h"

void fpm_r6_free_all(struct fpm_table *t)
{
	for (uint32_t b = 0; b < t->r6_buckets; b++)
		while (t->r6[b]) {
			struct fpm_r6 *n = t->r6[b]->next;
			free(t->r6[b]);
			t->r6[b] = n;
		}
}

static uint32_t r6_hash(const uint8_t *prefix, uint8_t len, uint32_t nbuckets)
{
	uint64_t a, b;

	memcpy(&a, prefix, 8);
	memcpy(&b, prefix + 8, 8);
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + len) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32) & (nbuckets - 1);
}

static struct fpm_r6 **r6_link(struct fpm_table *t, const uint8_t *prefix, uint8_t len)
{
	struct fpm_r6 **pp = &t->r6[r6_hash(prefix, len, t->r6_buckets)];

	while (*pp && ((*pp)->len != len || memcmp((*pp)->prefix, prefix, 16)))
		pp = &(*pp)->next;
	return pp;
}

static void r6_grow(struct fpm_table *t)
{
	uint32_t nb = t->r6_buckets * 2;
	struct fpm_r6 **n = calloc(nb, sizeof(*n));

	if (!n)
		return; /* longer chains, still correct */
	for (uint32_t b = 0; b < t->r6_buckets; b++)
		for (struct fpm_r6 *e = t->r6[b], *next; e; e = next) {
			next = e->next;
			uint32_t h = r6_hash(e->prefix, e->len, nb);
			e->next = n[h];
			n[h] = e;
		}
	free(t->r6);
	t->r6 = n;
	t->r6_buckets = nb;
}

void fpm_r6_new(struct fpm_table *t, const struct fpm_route *r)
{
	struct fpm_r6 **pp = r6_link(t, r->dst, r->dst_len), *old = *pp;
	struct fpm_r6 *e;

	if ((!old || old->gen != t->gen) && !fpm_limit_admit(t, 1)) {
		/* New to this session: a stale entry stays as it is, and is swept. */
		fpm_log_reject(t, AF_INET6, r->dst, r->dst_len, FPM_REJ_LIMIT, t->limit[1]);
		return;
	}
	e = malloc(sizeof(*e) + r->npaths * sizeof(e->paths[0]));
	if (!e) {
		if (!old || old->gen != t->gen)
			fpm_limit_release(t, 1);
		fpm_log_limited(t, "fpm: IPv6 route table: out of memory: route not recorded");
		return;
	}
	*e = (struct fpm_r6){.next = old ? old->next : NULL,
	                     .len = r->dst_len,
	                     .type = r->type,
	                     .npaths = (uint16_t)r->npaths,
	                     .gen = t->gen,
	                     .nh_id = r->nh_id};
	memcpy(e->prefix, r->dst, 16);
	memcpy(e->paths, r->paths, r->npaths * sizeof(e->paths[0]));
	*pp = e;
	if (!old) {
		t->c.ipv6_added++;
		if (++t->r6_used > t->r6_buckets * 2)
			r6_grow(t);
		return;
	}
	if (old->gen != t->gen) {
		t->c.ipv6_reconfirmed++;
		t->nstale_left--;
	}
	free(old);
}

static void r6_unlink(struct fpm_table *t, struct fpm_r6 **pp)
{
	struct fpm_r6 *e = *pp;

	if (e->gen != t->gen)
		t->nstale_left--;
	else
		fpm_limit_release(t, 1);
	*pp = e->next;
	free(e);
	t->r6_used--;
}

void fpm_r6_del(struct fpm_table *t, const struct fpm_route *r)
{
	struct fpm_r6 **pp = r6_link(t, r->dst, r->dst_len);

	if (!*pp) {
		t->c.routes_del_unknown++;
		return;
	}
	r6_unlink(t, pp);
	t->c.ipv6_deleted++;
}

void fpm_r6_sweep(struct fpm_table *t)
{
	for (uint32_t b = 0; b < t->r6_buckets; b++)
		for (struct fpm_r6 **pp = &t->r6[b]; *pp;) {
			if ((*pp)->gen == t->gen) {
				pp = &(*pp)->next;
				continue;
			}
			r6_unlink(t, pp);
			t->c.ipv6_swept++;
		}
}
