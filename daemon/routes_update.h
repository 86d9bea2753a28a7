/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Static routes changed at runtime, for either family: the routes of the new
 * configuration replace those of the running one in the RIB, all or nothing.
 * routes.c (IPv4) and routes6.c (IPv6) supply the per-family steps.
 */
#ifndef CELLGATE_ROUTES_UPDATE_H
#define CELLGATE_ROUTES_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

/* Why a static route update failed. */
struct routes_update_err {
	char failed[64];      /* "prefix/len" of the route that could not be installed */
	int undo_err;         /* 0: everything was put back; else the first undo's error */
	char undo_failed[64]; /* ... and that route */
	unsigned undo_failures;
};

/* One family's static routes: a sorted array of `size`-byte config routes. */
struct routes_family_ops {
	size_t size;
	int (*cmp)(const void *a, const void *b); /* the order cfg_parse sorts them in */
	bool (*same)(const void *a, const void *b);
	/* Install `r` (of configuration `cfg`) as the static route for its prefix. */
	int (*set)(void *rib, const struct cfg *cfg, const void *r);
	/* Remove the static route for r's prefix; -ENOENT if there is none. */
	int (*del)(void *rib, const void *r);
	void (*name)(const void *r, char *buf, size_t len);
};

/* The routes of one family in one configuration. */
struct routes_list {
	const struct cfg *cfg;
	const void *routes;
	unsigned n;
};

/*
 * Make `next`'s routes those in the RIB, where `cur`'s are installed now:
 * routes gone are deleted, new or changed ones set. On the first failure
 * what was done is undone and the error (negative errno) returned, with
 * e->failed naming the route. Undoing can fail too (the FIB out of room for
 * a route it had a moment ago): then e->undo_err and e->undo_failed say so,
 * and the RIB differs from both configurations. 0 on success.
 */
int routes_update(const struct routes_family_ops *ops, void *rib, const struct routes_list *cur,
                  const struct routes_list *next, struct routes_update_err *e);

#endif
