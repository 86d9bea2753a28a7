/* Routes the configuration implies (addresses, connected subnets, static routes) into the RIB. */
#ifndef CELLGATE_ROUTES_H
#define CELLGATE_ROUTES_H

#include "config.h"
#include "rib.h"

/*
 * Install local (/32 per address, subnet broadcast) and connected routes for
 * every port, then the static routes. Routes that cannot be installed are
 * logged and counted in the RIB; returns how many failed.
 */
int routes_apply_config(struct rib *rib, const struct cfg *cfg);

#endif
