/*
 * The FPM server's configuration (/cellgate/routing/fpm in cellgate.yang):
 * where cellgated listens for zebra's dplane_fpm_nl, and how long a
 * reconnect's replay may take before stale routes are swept.
 */
#ifndef CELLGATE_CONFIG_FPM_H
#define CELLGATE_CONFIG_FPM_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cfg_fpm {
	bool enabled;
	char address[INET6_ADDRSTRLEN]; /* numeric, IPv4 or IPv6 */
	uint16_t port;
	uint32_t settle_s;
};

struct lyd_node;

/* Copy the validated /cellgate/routing/fpm container (defaults filled by libyang). */
void cfg_fpm_fill(struct cfg_fpm *f, const struct lyd_node *fpm);

/* Print it as the "fpm" member of "routing", normalised (every leaf explicit). */
void cfg_fpm_print(FILE *out, const struct cfg_fpm *f);

#endif
