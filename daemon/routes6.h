/* SPDX-License-Identifier: BSD-2-Clause */
/* The IPv6 routes the configuration implies (port/ipv6 addresses, static-route6) into rib6. */
#ifndef CELLGATE_ROUTES6_H
#define CELLGATE_ROUTES6_H

#include "config/config.h"
#include "daemon/rib6.h"
#include "daemon/routes_update.h"

/*
 * Mark the dataplane ports with IPv6 addresses as IPv6 ports (port.ip6, the
 * first address as port.ip6_src). At startup; addrs6.c changes both later.
 */
void routes6_ports_setup(struct dataplane *dp, const struct cfg *cfg);

/*
 * A local /128 per address (the kernel answers for it), a connected route
 * per on-link prefix, then the static IPv6 routes. Routes that cannot be
 * installed are logged; returns how many failed.
 */
int routes6_apply_config(struct rib6 *r6, const struct dataplane *dp, const struct cfg *cfg);

/*
 * Make the static IPv6 routes of `next` those in the RIB6, where `cur`'s are
 * installed now, all or nothing (routes_update). The ports are unchanged.
 */
int routes6_static_update(struct rib6 *r6, const struct dataplane *dp, const struct cfg *cur,
                          const struct cfg *next, struct routes_update_err *e);

#endif
