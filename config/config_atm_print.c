/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ATM members of a port entry, normalised like the rest of cfg_print:
 * every default explicit (the InATMARP setting as its effective value),
 * subinterfaces in configuration order, PVCs by VPI then VCI.
 */
#include <arpa/inet.h>

#include "config/config_priv.h"
#include "lib/addr.h"

static const char *tf(bool b)
{
	return b ? "true" : "false";
}

static void print_cellpw(FILE *out, const struct cfg_cellpw *pw)
{
	const uint8_t *m = pw->peer_mac;

	fprintf(out, ",\n        \"cellpw\": {\n");
	fprintf(out, "          \"peer-mac\": \"%02x:%02x:%02x:%02x:%02x:%02x\",\n", m[0], m[1],
	        m[2], m[3], m[4], m[5]);
	fprintf(out, "          \"pw-label\": %u,\n", pw->pw_label);
	fprintf(out, "          \"control-word\": %s,\n", tf(pw->control_word));
	fprintf(out, "          \"max-cells-per-frame\": %u,\n", pw->max_cells);
	fprintf(out, "          \"concatenation-timer\": %u\n", pw->concat_us);
	fprintf(out, "        }");
}

/* 16 spaces: the members of a PVC object. */
#define PVC_IND "                "

static void print_pvc(FILE *out, const struct cfg_pvc *v)
{
	static const char *const encaps[] = CFG_ENCAP_NAMES;
	char ip[INET_ADDRSTRLEN];

	fprintf(out, "              {\n");
	fprintf(out, PVC_IND "\"vpi\": %u,\n" PVC_IND "\"vci\": %u,\n", v->vpi, v->vci);
	fprintf(out, PVC_IND "\"encapsulation\": \"%s\",\n", encaps[v->encap]);
	fprintf(out, PVC_IND "\"mtu\": %u,\n", v->mtu);
	fprintf(out, PVC_IND "\"shaping\": {\"service-category\": \"%s\", ",
	        v->service == CFG_SERVICE_CBR ? "cbr" : "ubr");
	if (v->pcr)
		fprintf(out, "\"pcr\": %u, ", v->pcr);
	fprintf(out, "\"queue-limit\": %u},\n", v->queue_cells);
	fprintf(out, PVC_IND "\"reassembly-timeout\": %u,\n", v->reasm_timeout_ms);
	fprintf(out,
	        PVC_IND "\"oam\": {\"enabled\": %s, \"interval\": %u, \"retry-interval\": %u, "
	                "\"down-count\": %u, \"up-count\": %u},\n",
	        tf(v->oam_enabled), v->oam_interval_ms, v->oam_retry_ms, v->oam_down_count,
	        v->oam_up_count);
	fprintf(out, PVC_IND "\"inatmarp\": {\"enabled\": %s, \"interval\": %u}", tf(v->inatmarp),
	        v->inatmarp_interval_ms);
	if (v->peer_addr)
		fprintf(out, ",\n" PVC_IND "\"peer-address\": \"%s\"", ip4_str(v->peer_addr, ip));
	for (unsigned i = 0; i < v->npeers6; i++) {
		char b[INET6_ADDRSTRLEN];

		fprintf(out, "%s\"%s\"", i ? ", " : ",\n" PVC_IND "\"ipv6-peer-address\": [",
		        inet_str(AF_INET6, v->peers6[i], b, sizeof(b)));
	}
	if (v->npeers6)
		fputc(']', out);
	if (v->pcap[0]) {
		fprintf(out, ",\n" PVC_IND "\"capture-file\": ");
		json_str(out, v->pcap);
	}
	fprintf(out, "\n              }");
}

static bool pvc_before(const struct cfg_pvc *a, const struct cfg_pvc *b)
{
	return a->vpi != b->vpi ? a->vpi < b->vpi : a->vci < b->vci;
}

/*
 * The PVC of subinterface `subif` that follows `prev` (NULL: the first) in
 * VPI/VCI order. A search rather than a sort, so a struct cfg that did not
 * come from cfg_parse prints the same without allocating.
 */
static const struct cfg_pvc *next_pvc(const struct cfg *cfg, unsigned subif,
                                      const struct cfg_pvc *prev)
{
	const struct cfg_pvc *best = NULL, *v;

	for (unsigned i = 0; i < cfg->npvcs; i++) {
		v = &cfg->pvcs[i];
		if (v->subif == subif && (!prev || pvc_before(prev, v)) &&
		    (!best || pvc_before(v, best)))
			best = v;
	}
	return best;
}

static void print_subif(FILE *out, const struct cfg *cfg, unsigned subif)
{
	const struct cfg_subif *s = &cfg->subifs[subif];
	const struct cfg_pvc *v = next_pvc(cfg, subif, NULL);

	fprintf(out, "          {\n            \"name\": ");
	json_str(out, s->name);
	fprintf(out, ",\n            \"type\": \"%s\"",
	        s->type == CFG_SUBIF_MULTIPOINT ? "multipoint" : "point-to-point");
	cfg_print_ipv4(out, s->addrs, s->naddrs, 12);
	cfg_print_ipv6(out, s->addrs6, s->naddrs6, 12);
	if (v) {
		fprintf(out, ",\n            \"pvc\": [\n");
		for (; v; v = next_pvc(cfg, subif, v)) {
			print_pvc(out, v);
			fprintf(out, "%s\n", next_pvc(cfg, subif, v) ? "," : "");
		}
		fprintf(out, "            ]");
	}
	fprintf(out, "\n          }");
}

void cfg_atm_print_port(FILE *out, const struct cfg *cfg, unsigned i)
{
	const struct cfg_port *p = &cfg->ports[i];
	bool first = true;

	if (p->kind == CFG_PORT_CELLPW)
		print_cellpw(out, &p->cellpw);
	else if (p->kind == CFG_PORT_ATMSOCK)
		fprintf(out,
		        ",\n        \"atmsock\": {\n          \"interface-number\": %d\n        }",
		        p->atmsock.itf);
	for (unsigned s = 0; s < cfg->nsubifs; s++) {
		if (cfg->subifs[s].port != i)
			continue;
		fprintf(out, "%s\n", first ? ",\n        \"subinterface\": [" : ",");
		first = false;
		print_subif(out, cfg, s);
	}
	if (!first)
		fprintf(out, "\n        ]");
}
