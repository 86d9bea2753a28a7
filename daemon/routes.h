/* SPDX-License-Identifier: BSD-2-Clause */
/* Routes the configuration implies (addresses, connected subnets, static routes) into the RIB. */
#ifndef CELLGATE_ROUTES_H
#define CELLGATE_ROUTES_H

#include "config/config.h"
#include "daemon/rib.h"

/*
 * Install local (/32 per address, subnet broadcast) and connected routes for
 * every port, then the static routes. Routes that cannot be installed are
 * logged and counted in the RIB; returns how many failed.
 */
int routes_apply_config(struct rib *rib, const struct cfg *cfg);

/* Why routes_static_update failed. */
struct routes_update_err {
	char failed[20];      /* "a.b.c.d/len" of the route that could not be installed */
	int undo_err;         /* 0: everything was put back; else the first undo's error */
	char undo_failed[20]; /* ... and that route */
	unsigned undo_failures;
};

/*
 * Make the static routes of `next` those in the RIB, where `cur` are
 * installed now: routes gone are deleted, new or changed ones set. All or
 * nothing: on the first failure what was done is undone and the error
 * (negative errno) returned, with e->failed naming the route. Undoing can
 * fail too (the FIB out of room for a route it had a moment ago): then
 * e->undo_err and e->undo_failed say so, and the RIB differs from both
 * configurations until the routes can be installed. 0 on success.
 */
int routes_static_update(struct rib *rib, const struct cfg *cur, const struct cfg *next,
                         struct routes_update_err *e);

#endif
