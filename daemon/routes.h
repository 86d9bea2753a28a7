/* SPDX-License-Identifier: BSD-2-Clause */
/* Routes the configuration implies (addresses, connected subnets, static routes) into the RIB. */
#ifndef CELLGATE_ROUTES_H
#define CELLGATE_ROUTES_H

#include "config/config.h"
#include "daemon/rib.h"
#include "daemon/routes_update.h"

/*
 * Install local (/32 per address, subnet broadcast) and connected routes for
 * every port, then the static routes. Routes that cannot be installed are
 * logged and counted in the RIB; returns how many failed.
 */
int routes_apply_config(struct rib *rib, const struct cfg *cfg);

/*
 * Make the static IPv4 routes of `next` those in the RIB, where `cur`'s are
 * installed now, all or nothing (routes_update).
 */
int routes_static_update(struct rib *rib, const struct cfg *cur, const struct cfg *next,
                         struct routes_update_err *e);

#endif
