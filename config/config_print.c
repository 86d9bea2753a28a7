/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * struct cfg back to RFC 7951 JSON, normalised: every default explicit,
 * ports in configuration order, routes by prefix. `cellgated -n` and the
 * golden tests print this; cfg_parse reads it back to the same struct.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

#include "config/config_priv.h"
#include "lib/addr.h"

/* RFC 8259 §7: escape the quote, the backslash and control characters. */
void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}


static void print_system(FILE *out, const struct cfg *cfg)
{
	fprintf(out, "    \"system\": {\n");
	fprintf(out, "      \"workers\": %u,\n", cfg->workers);
	if (cfg->nworker_cpus) {
		fprintf(out, "      \"worker-cpu\": [");
		for (unsigned i = 0; i < cfg->nworker_cpus; i++)
			fprintf(out, "%s%d", i ? ", " : "", cfg->worker_cpus[i]);
		fprintf(out, "],\n");
	}
	fprintf(out, "      \"icmp-rate-limit\": %u,\n", cfg->icmp_rate);
	fprintf(out, "      \"icmp-burst\": %u,\n", cfg->icmp_burst);
	fprintf(out, "      \"arp-timeout\": %u,\n", cfg->arp_timeout_s);
	fprintf(out, "      \"arp-retries\": %u,\n", cfg->arp_retries);
	/* Added later: printed only when not the default, so older printouts stay. */
	if (cfg->arp_max_entries && cfg->arp_max_entries != CFG_ARP_MAX_DEFAULT)
		fprintf(out, "      \"arp-max-entries\": %u,\n", cfg->arp_max_entries);
	fprintf(out, "      \"ip-options\": \"%s\",\n", cfg->ip_options_forward ? "forward" : "drop");
	fprintf(out, "      \"fib-algorithm\": \"%s\"", cfg_fib_algorithm_name(cfg->fib_algorithm));
	cfg_capture_print(out, &cfg->capture);
	fprintf(out, "\n    }");
}

void cfg_print_ipv4(FILE *out, const struct cfg_addr4 *addrs, unsigned naddrs, int indent)
{
	char ip[INET_ADDRSTRLEN];

	/* No addresses: omit the container, as libyang does for an empty one. */
	if (!naddrs)
		return;
	fprintf(out, ",\n%*s\"ipv4\": {\n%*s\"address\": [\n", indent, "", indent + 2, "");
	for (unsigned i = 0; i < naddrs; i++)
		fprintf(out, "%*s{\"ip\": \"%s\", \"prefix-length\": %u}%s\n", indent + 4, "",
		        ip4_str(addrs[i].addr, ip), addrs[i].plen, i + 1 < naddrs ? "," : "");
	fprintf(out, "%*s]\n%*s}", indent + 2, "", indent, "");
}

static void print_port(FILE *out, const struct cfg *cfg, unsigned i)
{
	const struct cfg_port *p = &cfg->ports[i];
	const struct port_settings *s = &p->settings;

	fprintf(out, "      {\n        \"name\": ");
	json_str(out, p->name);
	fprintf(out, ",\n        \"driver\": ");
	json_str(out, p->driver);
	/* An atmsock adapter is not a netdev: the schema forbids these for it. */
	if (p->kind != CFG_PORT_ATMSOCK) {
		fprintf(out, ",\n        \"netdev\": ");
		json_str(out, p->netdev);
		fprintf(out, ",\n        \"promiscuous\": %s,\n",
		        s->promiscuous ? "true" : "false");
		fprintf(out, "        \"qdisc-bypass\": %s,\n", s->qdisc_bypass ? "true" : "false");
		fprintf(out, "        \"rx-ring-frames\": %u,\n", s->rx_ring_frames);
		fprintf(out, "        \"tx-ring-frames\": %u", s->tx_ring_frames);
	}
	cfg_print_ipv4(out, p->addrs, p->naddrs, 8);
	cfg_print_ipv6_port(out, p, 8);
	cfg_atm_print_port(out, cfg, i);
	fprintf(out, "\n      }");
}

static void print_nexthops(FILE *out, const struct cfg_route *r)
{
	const struct cfg_nexthop *nh;
	char ip[INET_ADDRSTRLEN];

	/* A single gateway-less next hop is the on-link form (see config.h). */
	if (r->nnexthops == 1 && !r->nexthops[0].gateway) {
		fprintf(out, ",\n          \"interface\": ");
		json_str(out, r->nexthops[0].port);
		return;
	}
	if (!r->nnexthops)
		return;
	fprintf(out, ",\n          \"nexthop\": [\n");
	for (unsigned i = 0; i < r->nnexthops; i++) {
		nh = &r->nexthops[i];
		fprintf(out, "            {\"address\": \"%s\"", ip4_str(nh->gateway, ip));
		if (nh->port[0]) {
			fprintf(out, ", \"interface\": ");
			json_str(out, nh->port);
		}
		fprintf(out, ", \"weight\": %u}%s\n", nh->weight, i + 1 < r->nnexthops ? "," : "");
	}
	fprintf(out, "          ]");
}

static void print_route(FILE *out, const struct cfg_route *r)
{
	static const char *const action[] = {
	    [CFG_ROUTE_FORWARD] = "forward",
	    [CFG_ROUTE_BLACKHOLE] = "blackhole",
	    [CFG_ROUTE_UNREACHABLE] = "unreachable",
	};
	char ip[INET_ADDRSTRLEN];

	fprintf(out, "        {\n          \"prefix\": \"%s/%u\",\n", ip4_str(r->prefix, ip),
	        r->plen);
	fprintf(out, "          \"action\": \"%s\"", action[r->action]);
	print_nexthops(out, r);
	fprintf(out, "\n        }");
}

static int route_ptr_cmp(const void *a, const void *b)
{
	return cfg_route_cmp(*(const struct cfg_route *const *)a,
	                     *(const struct cfg_route *const *)b);
}

/* Sorted through an index: the caller's struct is const and may be unsorted. */
static int print_routing(FILE *out, const struct cfg *cfg)
{
	const struct cfg_route **order;

	order = calloc(cfg->nroutes, sizeof(*order));
	if (!order && cfg->nroutes)
		return -ENOMEM;
	for (unsigned i = 0; i < cfg->nroutes; i++)
		order[i] = &cfg->routes[i];
	qsort(order, cfg->nroutes, sizeof(*order), route_ptr_cmp);
	fprintf(out, ",\n    \"routing\": {\n");
	if (cfg->nroutes) {
		fprintf(out, "      \"static-route\": [\n");
		for (unsigned i = 0; i < cfg->nroutes; i++) {
			print_route(out, order[i]);
			fprintf(out, "%s\n", i + 1 < cfg->nroutes ? "," : "");
		}
		fprintf(out, "      ],\n");
	}
	cfg_print_routes6(out, cfg);
	cfg_fpm_print(out, &cfg->fpm);
	fprintf(out, "\n    }");
	free(order);
	return 0;
}

int cfg_print(const struct cfg *cfg, FILE *out)
{
	int rc = 0;

	fprintf(out, "{\n  \"cellgate:cellgate\": {\n");
	print_system(out, cfg);
	if (cfg->nports) {
		fprintf(out, ",\n    \"port\": [\n");
		for (unsigned i = 0; i < cfg->nports; i++) {
			print_port(out, cfg, i);
			fprintf(out, "%s\n", i + 1 < cfg->nports ? "," : "");
		}
		fprintf(out, "    ]");
	}
	rc = print_routing(out, cfg);
	cfg_snmp_print(out, cfg);
	cfg_mgmt_print(out, cfg);
	fprintf(out, "\n  }\n}\n");
	if (!rc && ferror(out))
		rc = -EIO;
	return rc;
}
