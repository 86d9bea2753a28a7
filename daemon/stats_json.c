/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The stats snapshot every reader takes (the JSON dump here, SNMP), and the
 * dump (RUNDIR/stats.json, SIGUSR1): one JSON document built from it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/control.h"
#include "daemon/fpm.h"
#include "daemon/stats_fields.h"
#include "lib/addr.h"
#include "lib/json.h"
#include "lib/log.h"

static void port_json(FILE *out, const struct port *pt, const struct stats_port *sp)
{
	/* A netdev name may hold any character but '/', ':' and white space: escaped. */
	fputs("{\"name\":", out);
	json_str_put(out, pt->name);
	json_member_str(out, "netdev", pt->netdev);
	stats_fields_json(out, port_counter_fields, &sp->c, false);
	fprintf(out, ",\"rx-ring-drops\":%lu,\"drops-total\":%lu,\"drops\":{", sp->rx_ring_drops,
	        sp->drops_total);
	for (unsigned r = 0; r < DROP__MAX; r++)
		fprintf(out, "%s\"%s\":%lu", r ? "," : "", drop_reason_name[r], sp->c.drops[r]);
	fputs("},\"drops6\":{", out);
	for (unsigned r = 0; r < DROP__MAX; r++)
		fprintf(out, "%s\"%s\":%lu", r ? "," : "", drop_reason_name[r], sp->c.drops6[r]);
	fputs("}}", out);
}

/* "vcs": [...] in configuration order (port, VPI, VCI), whatever VC ids runtime changes gave. */
static void vcs_json(struct control *ctl, const struct stats_snapshot *s, FILE *out)
{
	const struct cfg *cfg = ctl->cfg;
	char b[IP4_STRLEN];

	fputs(",\"vcs\":[", out);
	for (unsigned i = 0, first = 1; i < cfg->npvcs; i++) {
		int v = atm_vc_of_pvc(ctl->atm, i);
		if (v < 0 || (unsigned)v >= s->nvcs)
			continue;
		const struct stats_vc *sv = &s->vc[v];
		const struct vc_counters *c = &sv->c;
		struct atm_vc_info info;

		atm_vc_info(ctl->atm, (unsigned)v, &info);
		fprintf(out, "%s{\"port\":", first ? "" : ",");
		json_str_put(out, ctl->dp->ports[sv->atm_port].name);
		json_member_str(out, "interface", ctl->dp->ports[sv->subif].name);
		fprintf(out,
		        ",\"vpi\":%u,\"vci\":%u,\"oper\":\"%s\",\"oper-change-ms\":%lu,"
		        "\"peer\":\"%s\"",
		        sv->vpi, sv->vci, sv->oper == VC_OPER_UP ? "up" : "down",
		        sv->oper_change_ms, ip4_str(info.peer, b));
		stats_fields_json(out, vc_counter_fields, c, false);
		fprintf(out, ",\"last-ping-rtt-us\":%u,\"discards-total\":%lu,\"discards\":{",
		        info.last_rtt_us, sv->discards_total);
		for (unsigned r = 0; r < VC_DROP__MAX; r++)
			fprintf(out, "%s\"%s\":%lu", r ? "," : "", vc_drop_name[r], c->discards[r]);
		fputs("}}", out);
		first = 0;
	}
	fputc(']', out);
}

/* "atm-ports": [...]; the TUN readers' drops are in the snapshot already (atm_stats_fixup). */
static void atm_ports_json(struct control *ctl, const struct stats_snapshot *s, FILE *out)
{
	bool first = true;

	fputs(",\"atm-ports\":[", out);
	for (unsigned p = 0; p < ctl->dp->nports; p++) {
		if (!s->is_atm[p])
			continue;
		fprintf(out, "%s{\"name\":", first ? "" : ",");
		json_str_put(out, ctl->dp->ports[p].name);
		json_member_str(out, "carrier", atm_port_carrier(ctl->atm, p));
		stats_fields_json(out, atm_port_counter_fields, &s->atm[p], false);
		fputc('}', out);
		first = false;
	}
	fputc(']', out);
}

/* "fib6" (routes installed, by source), "nd" (as "arp") and "neighbors6". */
static void ipv6_json(const struct control *ctl, FILE *out)
{
	struct fib6_stats fs;
	struct neigh_counters nc;
	uint64_t routes[RIB_SRC__MAX], errors;

	fib6_get_stats(ctl->dp->fib6, &fs);
	rib6_get_counts(ctl->rib6, routes, &errors);
	neigh6_get_counters(ctl->neigh6, &nc);
	fprintf(out, ",\"fib6\":{\"routes\":%lu,\"errors\":%lu,\"by-source\":{", fs.routes, errors);
	for (int s = 0; s < RIB_SRC__MAX; s++)
		fprintf(out, "%s\"%s\":%lu", s ? "," : "", rib_source_name(s), routes[s]);
	fprintf(out,
	        "}},\"nd\":{\"requests-sent\":%lu,\"replies-learned\":%lu,"
	        "\"resolve-failed\":%lu,\"send-errors\":%lu,\"entries\":%lu,\"table-full\":%lu},"
	        "\"neighbors6\":",
	        nc.requests_sent, nc.replies_learned, nc.resolve_failed, nc.send_errors, nc.entries,
	        nc.table_full);
	neigh6_dump_json(ctl->neigh6, out);
}

void control_stats_json(struct control *ctl, FILE *out)
{
	static struct stats_snapshot snap; /* large; the control thread is the only caller */
	struct rib_counts rc;
	struct neigh_counters nc;

	control_stats_take(ctl, &snap);
	rib_get_counts(ctl->rib, &rc);
	neigh_get_counters(ctl->neigh, &nc);

	fputs("{\"ports\":[", out);
	for (unsigned p = 0; p < snap.nports; p++) {
		if (p)
			fputc(',', out);
		port_json(out, &ctl->dp->ports[p], &snap.port[p]);
	}
	fprintf(out,
	        "],\"fib\":{\"routes\":%lu,\"nexthops\":%lu,\"nexthop-groups\":%lu,"
	        "\"errors\":%lu,\"by-source\":{",
	        rc.fib_routes, rc.nexthops, rc.nhgroups, rc.errors);
	for (int s = 0; s < RIB_SRC__MAX; s++)
		fprintf(out, "%s\"%s\":%lu", s ? "," : "", rib_source_name(s), rc.routes[s]);
	fprintf(out,
	        "}},\"arp\":{\"requests-sent\":%lu,\"replies-learned\":%lu,"
	        "\"resolve-failed\":%lu,\"send-errors\":%lu,\"entries\":%lu,\"table-full\":%lu},"
	        "\"neighbors\":",
	        nc.requests_sent, nc.replies_learned, nc.resolve_failed, nc.send_errors, nc.entries,
	        nc.table_full);
	neigh_dump_json(ctl->neigh, out);
	ipv6_json(ctl, out);
	fprintf(out, ",\"events-lost\":%lu,\"workers\":[", snap.events_lost);
	for (unsigned w = 0; w < snap.nworkers; w++)
		fprintf(out,
		        "%s{\"id\":%u,\"cpu\":%d,\"loops\":%lu,\"bursts\":%lu,\"arp-held\":%lu}",
		        w ? "," : "", w, ctl->worker_cpu[w], snap.worker_loops[w],
		        snap.worker_bursts[w], snap.worker_held[w]);
	fputs("],\"fpm\":", out);
	fpm_server_stats_json(ctl->fpm, out);
	vcs_json(ctl, &snap, out);
	atm_ports_json(ctl, &snap, out);
	fputs("}\n", out);
}

int control_stats_write(struct control *ctl)
{
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats.json", ctl->rundir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		log_warn("stats: open %s", tmp);
		return -errno;
	}
	control_stats_json(ctl, f);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		int err = errno;
		log_warn("stats: write %s", tmp);
		fclose(f);
		unlink(tmp);
		return -err;
	}
	fclose(f);
	if (rename(tmp, path) != 0) {
		log_warn("stats: rename %s to %s", tmp, path);
		unlink(tmp);
		return -errno;
	}
	return 0;
}
