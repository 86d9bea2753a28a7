/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FPM server's configuration (/cellgate/routing/fpm in cellgate.yang):
 * where cellgated listens for zebra's dplane_fpm_nl, who may connect, how
 * a dead peer is noticed, how many routes one session may announce, and
 * how long a reconnect's replay may take before stale routes are swept.
 */
#ifndef CELLGATE_CONFIG_FPM_H
#define CELLGATE_CONFIG_FPM_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CFG_FPM_PEERS_MAX      8 /* allowed-peer */
#define CFG_FPM_DEAD_DEFAULT   30
#define CFG_FPM_LIMIT4_DEFAULT 2000000u
#define CFG_FPM_LIMIT6_DEFAULT 1000000u
#define CFG_FPM_WARN_DEFAULT   75

struct cfg_fpm {
	bool enabled;
	char address[INET6_ADDRSTRLEN]; /* numeric, IPv4 or IPv6 */
	uint16_t port;
	uint32_t settle_s;
	unsigned npeers;                                 /* 0 = any peer */
	char peers[CFG_FPM_PEERS_MAX][INET6_ADDRSTRLEN]; /* canonical (libyang) */
	uint32_t dead_s;         /* a silent peer is dead after about this long (keepalive) */
	uint32_t limit4, limit6; /* routes per session, 0 = no limit */
	uint8_t warn_pct;        /* log when a family reaches this much of its limit */
};

struct lyd_node;

/* Copy the validated /cellgate/routing/fpm container (defaults filled by libyang). */
void cfg_fpm_fill(struct cfg_fpm *f, const struct lyd_node *fpm);

/*
 * Print it as the "fpm" member of "routing", normalised (every leaf
 * explicit; the leaves added after the first revision only when they
 * differ from their defaults, so older printouts stay as they were).
 */
void cfg_fpm_print(FILE *out, const struct cfg_fpm *f);

#endif
