/*
 * The daemon's configuration as plain data, produced from the RFC 7951 JSON
 * startup file after libyang has validated it against mgmt/yang/cellgate.yang.
 * Addresses are IPv4 in host byte order.
 */
#ifndef CELLGATE_CONFIG_H
#define CELLGATE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/config_fpm.h"
#include "datapath/port.h"

#define CFG_ADDR_MAX 16 /* IPv4 addresses per port */
#define CFG_ECMP_MAX 16 /* next hops per static route */

struct cfg_addr4 {
	uint32_t addr;
	uint8_t plen;
};

struct cfg_port {
	char name[PORT_NAME_MAX];
	char driver[16]; /* "afpacket" */
	char netdev[IF_NAMESIZE];
	struct port_settings settings;
	unsigned naddrs;
	struct cfg_addr4 addrs[CFG_ADDR_MAX]; /* first one is the primary */
};

enum cfg_route_action {
	CFG_ROUTE_FORWARD = 0,
	CFG_ROUTE_BLACKHOLE,  /* drop silently (counted) */
	CFG_ROUTE_UNREACHABLE /* drop, answer ICMP net unreachable */
};

struct cfg_nexthop {
	uint32_t gateway;         /* 0 = on-link (interface route) */
	char port[PORT_NAME_MAX]; /* "" = resolve through the connected routes */
	uint8_t weight;           /* 1..255, default 1 */
};

struct cfg_route {
	uint32_t prefix;
	uint8_t plen;
	enum cfg_route_action action;
	char interface[PORT_NAME_MAX]; /* on-link route: the port name, "" = none */
	unsigned nnexthops;
	struct cfg_nexthop nexthops[CFG_ECMP_MAX];
};

struct cfg {
	unsigned workers; /* datapath threads, default 1 */
	unsigned nworker_cpus;
	int worker_cpus[WORKER_MAX]; /* CPU per worker; none given = automatic */
	uint32_t icmp_rate;          /* ICMP errors per second per worker, default 100 */
	uint32_t icmp_burst;         /* bucket depth, default 50 */
	uint32_t arp_timeout_s;      /* reachable time of a learned entry, default 300 */
	uint32_t arp_retries;        /* requests before a neighbour is failed, default 3 */
	bool ip_options_forward;     /* forward IPv4 with options (default: drop, counted) */

	unsigned nports;
	struct cfg_port ports[PORT_MAX];

	unsigned nroutes;
	struct cfg_route *routes; /* heap array of nroutes */

	struct cfg_fpm fpm; /* FPM server for zebra (config_fpm.h) */
};

/*
 * Load and validate `path` (RFC 7951 JSON). On failure returns a negative
 * errno and writes a message naming the file, the data path and the reason
 * into errbuf. The yang search dir is where cellgate.yang lives.
 */
int cfg_load(const char *path, const char *yang_dir, struct cfg *out, char *errbuf, size_t errlen);

/* The same from a JSON string (tests, later RESTCONF bodies). */
int cfg_parse(const char *json, const char *yang_dir, struct cfg *out, char *errbuf, size_t errlen);

/* Print the configuration back, normalised (defaults filled, sorted), as RFC 7951 JSON. */
int cfg_print(const struct cfg *cfg, FILE *out);

void cfg_free(struct cfg *cfg);

/* Index of the port named `name`, or -1. */
int cfg_port_index(const struct cfg *cfg, const char *name);

/*
 * qsort comparator for struct cfg_route: by prefix address, then length.
 * cfg_parse leaves routes in this order.
 */
int cfg_route_cmp(const void *a, const void *b);

struct ly_ctx;

/*
 * A libyang context with yang_dir/cellgate.yang loaded and implemented,
 * shared by the config loader and the RESTCONF server. NULL on failure, with
 * errno set and a message naming the .yang file in errbuf. Free with
 * ly_ctx_destroy().
 */
struct ly_ctx *cfg_yang_ctx_new(const char *yang_dir, char *errbuf, size_t errlen);

#endif
