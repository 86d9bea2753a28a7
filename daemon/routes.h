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

/*
 * Make the static routes of `next` those in the RIB, where `cur` are
 * installed now: routes gone are deleted, new or changed ones set. All or
 * nothing: on the first failure what was done is undone and the error
 * (negative errno) returned, with the route's prefix in `failed` (a
 * "a.b.c.d/len" string). 0 on success.
 */
int routes_static_update(struct rib *rib, const struct cfg *cur, const struct cfg *next,
                         char *failed, size_t failedlen);

#endif
