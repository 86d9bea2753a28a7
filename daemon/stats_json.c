/*
 * The stats snapshot every reader takes (the JSON dump here, SNMP), and the
 * dump: one JSON document built from it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/control.h"
#include "lib/log.h"
#include "daemon/stats_fields.h"
#include "daemon/fpm.h"

static void port_json(FILE *out, const struct port *pt, const struct stats_port *sp)
{
	/* Names are the schema's [A-Za-z0-9._-] and netdev names: nothing to escape. */
	fprintf(out, "{\"name\":\"%s\",\"netdev\":\"%s\"", pt->name, pt->netdev);
	stats_fields_json(out, port_counter_fields, &sp->c, false);
	fprintf(out, ",\"rx-ring-drops\":%lu,\"drops-total\":%lu,\"drops\":{", sp->rx_ring_drops,
	        sp->drops_total);
	for (unsigned r = 0; r < DROP__MAX; r++)
		fprintf(out, "%s\"%s\":%lu", r ? "," : "", drop_reason_name[r], sp->c.drops[r]);
	fputs("}}", out);
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
	        "\"resolve-failed\":%lu,\"send-errors\":%lu,\"entries\":%lu},\"neighbors\":",
	        nc.requests_sent, nc.replies_learned, nc.resolve_failed, nc.send_errors,
	        nc.entries);
	neigh_dump_json(ctl->neigh, out);
	fprintf(out, ",\"events-lost\":%lu,\"workers\":[", snap.events_lost);
	for (unsigned w = 0; w < snap.nworkers; w++)
		fprintf(out,
		        "%s{\"id\":%u,\"cpu\":%d,\"loops\":%lu,\"bursts\":%lu,\"arp-held\":%lu}",
		        w ? "," : "", w, ctl->worker_cpu[w], snap.worker_loops[w],
		        snap.worker_bursts[w], snap.worker_held[w]);
	fputs("],\"fpm\":", out);
	fpm_server_stats_json(ctl->fpm, out);
	atm_stats_json(ctl->atm, &snap, out);
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
