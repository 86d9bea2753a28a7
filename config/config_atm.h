/* SPDX-License-Identifier: BSD-2-Clause */
/* Private to config_atm.c and config_atm_check.c: checks that span ports, subinterfaces and PVCs.
 */
#ifndef CELLGATE_CONFIG_ATM_H
#define CELLGATE_CONFIG_ATM_H

#include "config/config_priv.h"

/*
 * A subinterface name becomes a TUN netdev and names an interface in routes,
 * so it must differ from every port name, every port's netdev and every
 * subinterface filled so far (sn is the subinterface, for the error path).
 */
int cfg_atm_check_name(const struct cfg_pstate *ps, const struct cfg *cfg,
                       const struct lyd_node *sn, const char *name);

/*
 * PVC v, not yet counted in cfg->npvcs, against those before it: VPI/VCI
 * unique per ATM port (across its subinterfaces), capture files unique;
 * its ipv6-peer-address entries unicast, on the subinterface's prefixes or
 * link-local, none the subinterface's own, none mapped by an earlier PVC of
 * the subinterface.
 */
int cfg_atm_check_pvc(const struct cfg_pstate *ps, const struct cfg *cfg, const struct cfg_pvc *v,
                      const struct lyd_node *vn);

/* Routes name Ethernet ports or subinterfaces, never an ATM port itself. */
int cfg_atm_check_routes(const struct cfg_pstate *ps, const struct cfg *cfg);

#endif
