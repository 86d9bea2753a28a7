/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * /cellgate/state of cellgate.yang as RFC 7951 JSON, only the parts a
 * request asks for (enum restconf_state_part): a GET of the ports takes a
 * stats snapshot and reads the ports, and nothing walks the RIB; FIB
 * figures are the RIB's own running counts. The route list is not printed
 * here but read in slices (mgmt_routes.c). The RESTCONF server parses this
 * with libyang, and /metrics is printed from that tree, so both show the
 * same numbers. RFC 7951 section 6.1: 64-bit integers are JSON strings.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <time.h>

#include "daemon/fpm.h"
#include "daemon/loopmon.h"
#include "daemon/mgmt.h"
#include "daemon/neigh6.h"
#include "daemon/netdev.h"
#include "daemon/rib6.h"
#include "daemon/stats_fields.h"
#include "datapath/port_afxdp.h"
#include "lib/addr.h"
#include "lib/clock.h"
#include "lib/json.h"
#include "mgmt/restconf/restconf.h"
#include "mgmt/snmp/snmp.h"

/* yang:date-and-time (RFC 6991), UTC, as a JSON string. */
static void json_time_value(FILE *out, uint64_t realtime_ms)
{
	time_t t = (time_t)(realtime_ms / 1000);
	struct tm tm;
	char buf[40];

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(out, "\"%s.%03uZ\"", buf, (unsigned)(realtime_ms % 1000));
}

static void json_time(FILE *out, const char *name, uint64_t realtime_ms)
{
	fprintf(out, ",\"%s\":", name);
	json_time_value(out, realtime_ms);
}

static const char *port_kind(const struct control *ctl, unsigned p)
{
	if (p >= ctl->cfg->nports)
		return "subinterface";
	return ctl->cfg->ports[p].kind == CFG_PORT_ETHERNET ? "ethernet" : "atm";
}

/* A port's oper-status: its netdev's link (a cellpw port: the carrier's), a subinterface's VCs. */
static bool port_oper_up(const struct control *ctl, const struct stats_snapshot *s, unsigned p)
{
	const struct port *pt = &ctl->dp->ports[p];
	const char *carrier = atm_port_carrier(ctl->atm, p);
	bool up = false;
	int ifindex = pt->ifindex;

	if (p >= ctl->cfg->nports) {
		for (unsigned v = 0; v < s->nvcs; v++)
			if (s->vc[v].subif == p && s->vc[v].oper == VC_OPER_UP)
				return true;
		return false;
	}
	if (carrier[0])
		ifindex = (int)if_nametoindex(carrier);
	if (ifindex <= 0 || netdev_link_is_up(ifindex, &up) != 0)
		return false;
	return up;
}

static const char *const xdp_decision_name[CG_XDP__MAX] = {
#define X(id, name, desc) [CG_XDP_##id] = name,
    CG_XDP_DECISIONS(X)
#undef X
};

/* What the XDP program decided, since it was loaded (clear-counters does not reach it). */
static void state_port_afxdp(FILE *out, const struct port *pt)
{
	struct cg_xdp_ctr d[CG_XDP__MAX];
	const char *mode = afxdp_queue_mode(pt, 0);
	uint64_t punted, errors;

	fputs(",\"afxdp\":{", out);
	if (mode)
		fprintf(out, "\"mode\":\"%s\",", mode);
	afxdp_punt_counts(pt, &punted, &errors);
	fprintf(out, "\"punted\":\"%lu\",\"punt-errors\":\"%lu\"", punted, errors);
	if (afxdp_decisions(pt, d) == 0) {
		fputs(",\"decision\":[", out);
		for (unsigned i = 0; i < CG_XDP__MAX; i++)
			fprintf(out, "%s{\"name\":\"%s\",\"packets\":\"%lu\"}", i ? "," : "",
			        xdp_decision_name[i], (unsigned long)d[i].packets);
		fputc(']', out);
	}
	fputc('}', out);
}

/* The IPv6 addresses the port forwards with: the configured ones (port/ipv6). */
static void state_port_ipv6(FILE *out, const struct control *ctl, unsigned p)
{
	const struct cfg_port *cp = p < ctl->cfg->nports ? &ctl->cfg->ports[p] : NULL;
	char a[INET6_ADDRSTRLEN];

	if (!cp || !cp->naddrs6)
		return;
	fputs(",\"ipv6-address\":[", out);
	for (unsigned i = 0; i < cp->naddrs6; i++)
		fprintf(out, "%s{\"ip\":\"%s\",\"prefix-length\":%u}", i ? "," : "",
		        inet_str(AF_INET6, cp->addrs6[i].addr, a, sizeof(a)), cp->addrs6[i].plen);
	fputc(']', out);
}

static void state_port(FILE *out, const struct control *ctl, const struct stats_snapshot *s,
                       unsigned p)
{
	const struct port *pt = &ctl->dp->ports[p];
	const struct stats_port *sp = &s->port[p];
	uint64_t t = ctl->port_clear_ms[p] ? ctl->port_clear_ms[p] : ctl->start_ms;

	/* A netdev name may hold any character but '/', ':' and white space: escaped. */
	fprintf(out, "%s{\"name\":", p ? "," : "");
	json_str_put(out, pt->name);
	fprintf(out, ",\"kind\":\"%s\"", port_kind(ctl, p));
	json_member_str(out, "netdev", pt->netdev);
	fprintf(out, ",\"ifindex\":%d,\"mtu\":%u", pt->ifindex, pt->mtu);
	fprintf(out, ",\"oper-status\":\"%s\"", port_oper_up(ctl, s, p) ? "up" : "down");
	json_time(out, "discontinuity-time", t);
	stats_fields_json(out, port_counter_fields, &sp->c, true);
	fprintf(out, ",\"rx-ring-drops\":\"%lu\",\"drops-total\":\"%lu\",\"drop\":[",
	        sp->rx_ring_drops, sp->drops_total);
	for (unsigned r = 0; r < DROP__MAX; r++)
		fprintf(out, "%s{\"reason\":\"%s\",\"packets\":\"%lu\",\"ipv6-packets\":\"%lu\"}",
		        r ? "," : "", drop_reason_name[r], sp->c.drops[r], sp->c.drops6[r]);
	fputc(']', out);
	state_port_ipv6(out, ctl, p);
	if (s->is_atm[p]) {
		/* TUN drops are in the snapshot already (control_stats_take). */
		struct atm_port_counters ac = s->atm[p];

		fputs(",\"atm\":{\"carrier\":", out);
		json_str_put(out, atm_port_carrier(ctl->atm, p));
		stats_fields_json(out, atm_port_counter_fields, &ac, true);
		fputc('}', out);
	}
	fprintf(out, ",\"driver\":\"%s\"", pt->ops->driver);
	if (pt->ops == &port_afxdp_ops)
		state_port_afxdp(out, pt);
	fputc('}', out);
}

/* OAM F5 on VC v: as configured, or not possible at all (Linux ATM sockets). */
static const char *vc_oam_status(const struct control *ctl, unsigned v)
{
	const struct cfg *cfg = ctl->cfg;

	for (unsigned i = 0; i < cfg->npvcs; i++) {
		if (atm_vc_of_pvc(ctl->atm, i) != (int)v)
			continue;
		if (cfg->ports[cfg->pvcs[i].port].kind == CFG_PORT_ATMSOCK)
			return "unsupported";
		return cfg->pvcs[i].oam_enabled ? "enabled" : "disabled";
	}
	return "disabled";
}

/* VC v's ipv6-peer-address map, as configured (RFC 7951: a leaf-list is an array). */
static void state_vc_peers6(FILE *out, const struct control *ctl, unsigned v)
{
	const struct cfg *cfg = ctl->cfg;
	char b[INET6_ADDRSTRLEN];

	for (unsigned i = 0; i < cfg->npvcs; i++) {
		if (atm_vc_of_pvc(ctl->atm, i) != (int)v || !cfg->pvcs[i].npeers6)
			continue;
		fputs(",\"ipv6-peer-address\":[", out);
		for (unsigned k = 0; k < cfg->pvcs[i].npeers6; k++)
			fprintf(out, "%s\"%s\"", k ? "," : "",
			        inet_str(AF_INET6, cfg->pvcs[i].peers6[k], b, sizeof(b)));
		fputc(']', out);
		return;
	}
}

static void state_vc(FILE *out, const struct control *ctl, const struct stats_snapshot *s,
                     unsigned v, bool first)
{
	const struct stats_vc *sv = &s->vc[v];
	struct atm_vc_info info;
	char b[INET_ADDRSTRLEN];

	atm_vc_info(ctl->atm, v, &info);
	fprintf(out, "%s{\"port\":", first ? "" : ",");
	json_str_put(out, ctl->dp->ports[sv->atm_port].name);
	fprintf(out, ",\"vpi\":%u,\"vci\":%u", sv->vpi, sv->vci);
	json_member_str(out, "interface", ctl->dp->ports[sv->subif].name);
	fprintf(out, ",\"oper-status\":\"%s\"", sv->oper == VC_OPER_DOWN ? "down" : "up");
	if (sv->oper_change_ms)
		json_time(out, "last-change", sv->oper_change_ms);
	if (info.peer)
		fprintf(out, ",\"peer-address\":\"%s\",\"peer-source\":\"%s\"",
		        ip4_str(info.peer, b), info.peer_learned ? "inatmarp" : "static");
	state_vc_peers6(out, ctl, v);
	if (info.last_rtt_us)
		fprintf(out, ",\"last-loopback-rtt\":%u", info.last_rtt_us);
	fprintf(out, ",\"oam-status\":\"%s\"", vc_oam_status(ctl, v));
	json_time(out, "discontinuity-time",
	          ctl->vc_clear_ms[v] ? ctl->vc_clear_ms[v] : ctl->start_ms);
	stats_fields_json(out, vc_counter_fields, &sv->c, true);
	fprintf(out, ",\"discards-total\":\"%lu\",\"discard\":[", sv->discards_total);
	for (unsigned r = 0; r < VC_DROP__MAX; r++)
		fprintf(out, "%s{\"reason\":\"%s\",\"count\":\"%lu\"}", r ? "," : "",
		        vc_drop_name[r], sv->c.discards[r]);
	fputc(']', out);
	atm_capture_vc_json(ctl->atm, v, out);
	fputc('}', out);
}

struct walk_ctx {
	FILE *out;
	const struct control *ctl;
	bool first;
};

static void state_neighbor(void *arg, uint16_t port, uint32_t ip, const uint8_t mac[6],
                           enum neigh_state st)
{
	static const char *const names[] = {"incomplete", "incomplete", "reachable", "failed"};
	struct walk_ctx *w = arg;
	char b[INET_ADDRSTRLEN];
	int vc = st == NEIGH_REACHABLE ? vc_mac_vc(mac) : -1;

	fprintf(w->out, "%s{\"interface\":", w->first ? "" : ",");
	json_str_put(w->out, w->ctl->dp->ports[port].name);
	fprintf(w->out, ",\"address\":\"%s\",\"state\":\"%s\"", ip4_str(ip, b),
	        names[st <= NEIGH_FAILED ? st : 0]);
	w->first = false;
	if (vc >= 0 && w->ctl->dp->vcs && (unsigned)vc < w->ctl->dp->nvcs)
		fprintf(w->out, ",\"vpi\":%u,\"vci\":%u", w->ctl->dp->vcs[vc].cfg.vpi,
		        w->ctl->dp->vcs[vc].cfg.vci);
	else if (st == NEIGH_REACHABLE)
		fprintf(w->out, ",\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\"", mac[0], mac[1],
		        mac[2], mac[3], mac[4], mac[5]);
	fputc('}', w->out);
}

/* The RIB6's running counts, like the IPv4 ones below. */
static void state_fib6(FILE *out, const struct control *ctl)
{
	uint64_t routes[RIB_SRC__MAX], errors;

	rib6_get_counts(ctl->rib6, routes, &errors);
	fprintf(out, ",\"ipv6\":{\"routes\":\"%lu\",\"errors\":\"%lu\",\"source\":[",
	        rib6_installed(ctl->rib6), errors);
	for (int s = 0; s < RIB_SRC__MAX; s++)
		fprintf(out, "%s{\"name\":\"%s\",\"routes\":\"%lu\"}", s ? "," : "",
		        rib_source_name(s), routes[s]);
	fputs("]}", out);
}

/* The FIB's running counts (rib_counts): the same cost with ten routes or a million. */
static void state_fib(FILE *out, const struct control *ctl)
{
	struct rib_counts rc;

	rib_get_counts(ctl->rib, &rc);
	fprintf(out,
	        ",\"fib\":{\"algorithm\":\"%s\",\"routes\":\"%lu\",\"nexthops\":\"%lu\","
	        "\"nexthop-groups\":\"%lu\",\"errors\":\"%lu\",\"memory\":\"%lu\","
	        "\"lookup-memory\":\"%lu\",\"rib-memory\":\"%lu\",\"source\":[",
	        rc.fib_algorithm, rc.fib_routes, rc.nexthops, rc.nhgroups, rc.errors, rc.fib_memory,
	        rc.fib_lookup_memory, rc.rib_memory);
	for (int s = 0; s < RIB_SRC__MAX; s++)
		fprintf(out, "%s{\"name\":\"%s\",\"routes\":\"%lu\"}", s ? "," : "",
		        rib_source_name(s), rc.routes[s]);
	fputc(']', out);
	state_fib6(out, ctl);
	fputc('}', out);
}

static void state_loop(FILE *out, const struct control *ctl)
{
	const struct loopmon_stats *ls = loopmon_stats(ctl->loop);

	uint64_t now = mono_ms();

	fprintf(out, ",\"loop\":{\"interval\":%u,\"lag-recent\":%u,\"lag-max\":%u",
	        LOOPMON_INTERVAL_MS * 1000, loopmon_recent_us(ls, now, false), ls->lag_max_us);
	if (ls->lag_max_rt_ms)
		json_time(out, "lag-max-time", ls->lag_max_rt_ms);
	fprintf(out, ",\"ticks\":\"%lu\",\"lag-total\":\"%lu\",\"lag-bucket\":[", ls->ticks,
	        ls->lag_total_us);
	for (unsigned i = 0; i < LOOPMON_BUCKETS; i++)
		fprintf(out, "%s{\"upper-bound\":%u,\"ticks\":\"%lu\"}", i ? "," : "",
		        loopmon_bounds_us[i], ls->le[i]);
	fprintf(out, "],\"busy-recent\":%u,\"busy-max\":%u}", loopmon_recent_us(ls, now, true),
	        ls->busy_max_us);
}

static void state_neighbors(FILE *out, const struct control *ctl)
{
	struct walk_ctx w = {.out = out, .ctl = ctl, .first = true};

	fputs(",\"neighbor\":[", out);
	neigh_walk(ctl->neigh, state_neighbor, &w);
	fputc(']', out);
}

static void state_arp(FILE *out, const struct control *ctl)
{
	struct neigh_counters nc;

	neigh_get_counters(ctl->neigh, &nc);
	fprintf(out,
	        ",\"arp\":{\"requests-sent\":\"%lu\",\"replies-learned\":\"%lu\","
	        "\"resolve-failed\":\"%lu\",\"send-errors\":\"%lu\",\"entries\":\"%lu\","
	        "\"table-full\":\"%lu\"}",
	        nc.requests_sent, nc.replies_learned, nc.resolve_failed, nc.send_errors, nc.entries,
	        nc.table_full);
}

static void state_neighbor6(void *arg, uint16_t port, const uint8_t ip[16], const uint8_t mac[6],
                            const char *state, bool has_mac)
{
	struct walk_ctx *w = arg;
	char b[INET6_ADDRSTRLEN];

	fprintf(w->out, "%s{\"interface\":", w->first ? "" : ",");
	json_str_put(w->out, w->ctl->dp->ports[port].name);
	fprintf(w->out, ",\"address\":\"%s\",\"state\":\"%s\"",
	        inet_str(AF_INET6, ip, b, sizeof(b)), state);
	if (has_mac)
		fprintf(w->out, ",\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\"", mac[0], mac[1],
		        mac[2], mac[3], mac[4], mac[5]);
	fputc('}', w->out);
	w->first = false;
}

static void state_nd(FILE *out, const struct control *ctl, unsigned parts)
{
	struct walk_ctx w = {.out = out, .ctl = ctl, .first = true};
	struct neigh_counters nc;

	if (parts & RC_PART_NEIGHBOR6) {
		fputs(",\"neighbor6\":[", out);
		neigh6_walk(ctl->neigh6, state_neighbor6, &w);
		fputc(']', out);
	}
	if (!(parts & RC_PART_ND))
		return;
	neigh6_get_counters(ctl->neigh6, &nc);
	fprintf(out,
	        ",\"nd\":{\"solicitations-sent\":\"%lu\",\"advertisements-learned\":\"%lu\","
	        "\"resolve-failed\":\"%lu\",\"send-errors\":\"%lu\",\"entries\":\"%lu\","
	        "\"table-full\":\"%lu\"}",
	        nc.requests_sent, nc.replies_learned, nc.resolve_failed, nc.send_errors, nc.entries,
	        nc.table_full);
}

static void state_fpm(FILE *out, const struct control *ctl)
{
	fpm_server_state_json(ctl->fpm, out);
}

static void state_snmp(FILE *out, const struct control *ctl)
{
	fprintf(out, ",\"snmp\":{\"state\":\"%s\"}",
	        !ctl->snmp                        ? "not-configured"
	        : snmp_agent_connected(ctl->snmp) ? "connected"
	                                          : "connecting");
}

static void state_ports_vcs(FILE *out, struct control *ctl, const struct stats_snapshot *s,
                            unsigned parts)
{
	if (parts & RC_PART_PORT) {
		fputs(",\"port\":[", out);
		for (unsigned p = 0; p < s->nports; p++)
			state_port(out, ctl, s, p);
		fputc(']', out);
	}
	if (parts & RC_PART_VC) {
		fputs(",\"vc\":[", out);
		/* In configuration order; VC ids are slots that runtime changes hand out. */
		for (unsigned i = 0, n = 0; i < ctl->cfg->npvcs; i++) {
			int v = atm_vc_of_pvc(ctl->atm, i);
			if (v >= 0 && (unsigned)v < s->nvcs)
				state_vc(out, ctl, s, (unsigned)v, n++ == 0);
		}
		fputc(']', out);
	}
	if (parts & RC_PART_WORKER) {
		fputs(",\"worker\":[", out);
		for (unsigned w = 0; w < s->nworkers; w++)
			fprintf(out,
			        "%s{\"id\":%u,\"cpu\":%d,\"loops\":\"%lu\",\"bursts\":\"%lu\","
			        "\"arp-held\":\"%lu\"}",
			        w ? "," : "", w, ctl->worker_cpu[w], s->worker_loops[w],
			        s->worker_bursts[w], s->worker_held[w]);
		fputc(']', out);
	}
}

int mgmt_state_json(struct control *ctl, unsigned parts, FILE *out)
{
	/* The counter snapshot only for the parts that show counters. */
	const unsigned counted = RC_PART_SCALARS | RC_PART_PORT | RC_PART_VC | RC_PART_WORKER;
	struct stats_snapshot *s = NULL;

	if ((parts & counted) && !(s = malloc(sizeof(*s))))
		return -ENOMEM;
	if (s)
		control_stats_take(ctl, s);
	/* start-time is printed always: every part is optional, so the state container is never
	 * empty. */
	fputs("{\"cellgate:cellgate\":{\"state\":{", out);
	fputs("\"start-time\":", out);
	json_time_value(out, ctl->start_ms);
	if (parts & RC_PART_SCALARS)
		fprintf(out, ",\"events-lost\":\"%lu\"", s->events_lost);
	if (s)
		state_ports_vcs(out, ctl, s, parts);
	if (parts & RC_PART_FIB)
		state_fib(out, ctl);
	if (parts & RC_PART_NEIGHBOR)
		state_neighbors(out, ctl);
	if (parts & RC_PART_ARP)
		state_arp(out, ctl);
	if (parts & (RC_PART_NEIGHBOR6 | RC_PART_ND))
		state_nd(out, ctl, parts);
	if (parts & RC_PART_FPM)
		state_fpm(out, ctl);
	if (parts & RC_PART_SNMP)
		state_snmp(out, ctl);
	if (parts & RC_PART_LOOP)
		state_loop(out, ctl);
	if ((parts & RC_PART_CAPTURE) && ctl->dp->vcs)
		atm_capture_json(ctl->atm, out);
	if (parts & RC_PART_RESTCONF)
		restconf_state_json(ctl->mgmt ? ctl->mgmt->rc : NULL, out);
	fputs("}}}\n", out);
	free(s);
	return ferror(out) ? -EIO : 0;
}
