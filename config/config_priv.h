/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the files that make up the configuration loader and printer
 * (config.c, config_print.c, config_atm*.c); not for the rest of the daemon.
 */
#ifndef CELLGATE_CONFIG_PRIV_H
#define CELLGATE_CONFIG_PRIV_H

#include <libyang/libyang.h>

#include "config/config.h"

#define CFG_MODULE "cellgate" /* the YANG module, and the top node's prefix */

/* Where errors go and which name they carry (file path or "config"). */
struct cfg_pstate {
	const char *src;
	char *errbuf;
	size_t errlen;
};

/* "src: message" into the error buffer; returns err. */
int cfg_errf(const struct cfg_pstate *ps, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "src: /data/path: message", for checks done on the validated tree; returns -EINVAL. */
int cfg_node_errf(const struct cfg_pstate *ps, const struct lyd_node *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* config_yang.c: libyang's last error in ctx as "src: [path: ]message" (what = the step). */
int cfg_ly_err(const struct cfg_pstate *ps, const struct ly_ctx *ctx, const char *what);

/* config_yang.c: cfg_yang_ctx_new with libyang's messages kept for cfg_ly_err, not printed. */
struct ly_ctx *cfg_ctx_new_stored(const char *yang_dir, char *errbuf, size_t errlen);

/* Reading the validated tree: child by name, canonical value ("" when absent). */
const struct lyd_node *cfg_child(const struct lyd_node *parent, const char *name);
const char *cfg_str(const struct lyd_node *parent, const char *name);
uint32_t cfg_u32(const struct lyd_node *parent, const char *name);
bool cfg_bool(const struct lyd_node *parent, const char *name);

/* Copy a string into a fixed buffer; false when it does not fit. */
bool cfg_copy(char *dst, size_t len, const char *src);

/* IPv4 text to host byte order; the tree holds validated, canonical values. */
uint32_t ip4_from_str(const char *s);
/* Not "this network" (0/8), loopback (127/8), multicast or class E/broadcast. */
bool ip4_is_unicast(uint32_t a);

/* The addresses of an `ipv4` container (absent: none) into addrs/naddrs, checked. */
int cfg_fill_ipv4(const struct cfg_pstate *ps, const struct lyd_node *ipv4, struct cfg_addr4 *addrs,
                  unsigned *naddrs);

/* config_atm.c: port kinds, the cellpw/atmsock containers, subinterfaces and PVCs. */
int cfg_atm_fill(const struct cfg_pstate *ps, struct cfg *cfg, const struct lyd_node *top);

/* config_snmp.c: the snmp container (absent: subagent off), and its printout. */
int cfg_snmp_fill(const struct cfg_pstate *ps, struct cfg *cfg, const struct lyd_node *top);
void cfg_snmp_print(FILE *out, const struct cfg *cfg);
/* config_capture.c: /cellgate/system/capture (sys may be NULL), and its printout. */
void cfg_capture_fill(struct cfg_capture *c, const struct lyd_node *sys);
void cfg_capture_print(FILE *out, const struct cfg_capture *c);
/* config_mgmt.c: the management containers (restconf). */
void cfg_mgmt_fill(struct cfg *cfg, const struct lyd_node *top);
void cfg_mgmt_print(FILE *out, const struct cfg *cfg);

/* config_print.c, for config_atm_print.c */
void json_str(FILE *out, const char *s);
/* An "ipv4" member with the addresses, `indent` spaces deep; nothing when there are none. */
/* config6.c: port/ipv6 addresses and routing/static-route6. */
/* port/ipv6/nd into p (the schema's defaults when the node is absent). */
void cfg_fill_nd(const struct lyd_node *ipv6, struct cfg_port *p);
/* port/ipv6 of an Ethernet port: its addresses and, when not the defaults, nd. */
void cfg_print_ipv6_port(FILE *out, const struct cfg_port *p, int indent);
int cfg_fill_ipv6(const struct cfg_pstate *ps, const struct lyd_node *ipv6, struct cfg_addr6 *addrs,
                  unsigned *naddrs);
int cfg_fill_routes6(const struct cfg_pstate *ps, struct cfg *cfg, const struct lyd_node *routing);
int cfg_check_raw_prefix6(const struct cfg_pstate *ps, const char *raw);
void cfg_print_ipv6(FILE *out, const struct cfg_addr6 *addrs, unsigned naddrs, int indent);
void cfg_print_routes6(FILE *out, const struct cfg *cfg);
void cfg_print_ipv4(FILE *out, const struct cfg_addr4 *addrs, unsigned naddrs, int indent);

/* config_atm_print.c: the ATM members of port `i` ("cellpw", "atmsock", "subinterface"). */
void cfg_atm_print_port(FILE *out, const struct cfg *cfg, unsigned i);

#endif
