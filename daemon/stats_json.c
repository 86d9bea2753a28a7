/* The stats dump: one JSON document built from the stats snapshot API. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "datapath/log.h"
#include "fpm.h"

static void port_json(FILE *out, const struct port *pt, const struct stats_port *sp)
{
	const struct port_counters *c = &sp->c;

	fprintf(out,
	        "{\"name\":\"%s\",\"netdev\":\"%s\",\"rx-packets\":%lu,\"rx-octets\":%lu,"
	        "\"tx-packets\":%lu,\"tx-octets\":%lu,\"forwarded\":%lu,\"to-kernel\":%lu,"
	        "\"icmp-out\":%lu,\"icmp-ratelimited\":%lu,\"fragmented\":%lu,"
	        "\"fragments-out\":%lu,\"rx-gso-packets\":%lu,\"rx-ring-drops\":%lu,"
	        "\"drops-total\":%lu,\"drops\":{",
	        pt->name, pt->netdev, c->rx_packets, c->rx_octets, c->tx_packets, c->tx_octets,
	        c->forwarded, c->to_kernel, c->icmp_out, c->icmp_ratelimited, c->fragmented,
	        c->fragments_out, c->rx_gso_packets, sp->rx_ring_drops, sp->drops_total);
	for (unsigned r = 0; r < DROP__MAX; r++)
		fprintf(out, "%s\"%s\":%lu", r ? "," : "", drop_reason_name[r], c->drops[r]);
	fputs("}}", out);
}

void control_stats_json(struct control *ctl, FILE *out)
{
	struct stats_snapshot snap;
	struct rib_counts rc;
	struct neigh_counters nc;

	dp_stats_take(ctl->dp, &snap);
	for (unsigned p = 0; p < snap.nports; p++)
		snap.port[p].rx_ring_drops = ctl->rx_ring_drops[p];
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
