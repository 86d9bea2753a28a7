/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the FPM server reports: the "fpm" object of stats.json, the view
 * SNMP and RESTCONF read, and /cellgate/state/fpm.
 */
#include <stdio.h>

#include "daemon/fpm_priv.h"
#include "lib/json.h"

const char *fpm_session_state_name(enum fpm_session_state st)
{
	switch (st) {
	case FPM_STATE_LISTENING:
		return "listening";
	case FPM_STATE_SYNCING:
		return "syncing";
	case FPM_STATE_ESTABLISHED:
		return "established";
	default:
		return "disabled";
	}
}

/*
 * The server's own phases, in the shared vocabulary: sweeping the stale
 * routes is the end of the replay, not settled yet; a sweep after zebra
 * left is no session.
 */
static enum fpm_session_state session_state(const struct fpm_server *s)
{
	if (!s || s->state == FPM_DISABLED)
		return FPM_STATE_DISABLED;
	if (s->fd < 0)
		return FPM_STATE_LISTENING;
	return s->state == FPM_ESTABLISHED ? FPM_STATE_ESTABLISHED : FPM_STATE_SYNCING;
}

static void json_counts(FILE *out, const char *const *names, const uint64_t *v, unsigned n,
                        unsigned from)
{
	fputc('{', out);
	for (unsigned i = from; i < n; i++)
		fprintf(out, "%s\"%s\":%lu", i > from ? "," : "", names[i], v[i]);
	fputc('}', out);
}

void fpm_server_stats_json(const struct fpm_server *s, FILE *out)
{
	struct fpm_table_counters c = {0};
	uint64_t errors[FPM_E__MAX];

	if (s->table)
		fpm_table_get_counters(s->table, &c);
	for (unsigned i = 0; i < FPM_E__MAX; i++)
		errors[i] = c.errors[i] + s->hdr_errors[i];
	fprintf(out,
	        "{\"state\":\"%s\",\"listen\":\"%s\",\"connected\":%s,\"peer\":\"%s\","
	        "\"session\":%u,\"connects\":%lu,\"disconnects\":%lu,\"refused-busy\":%lu,"
	        "\"refused-peer\":%lu,\"bytes\":%lu,\"frames\":%lu,"
	        "\"settle-time\":%u,\"last-settle-ms\":%ld,\"stale\":%lu,\"messages\":",
	        fpm_session_state_name(session_state(s)), s->listen_str,
	        s->fd >= 0 ? "true" : "false", s->fd >= 0 ? s->peer : "", s->session, s->connects,
	        s->disconnects, s->refused_busy, s->refused_peer, s->bytes, s->frames,
	        s->cfg.settle_s, s->last_settle_ms, c.stale);
	json_counts(out, fpm_msg_name, c.msgs, FPM_MSG__MAX, 0);
	fprintf(out,
	        ",\"routes\":{\"ipv4\":%lu,\"ipv4-installed\":%lu,\"ipv4-pending\":%lu,"
	        "\"ipv4-rejected\":%lu,"
	        "\"ipv6\":%lu,\"ipv6-installed\":%lu,\"ipv6-pending\":%lu,\"ipv6-rejected\":%lu,"
	        "\"ipv4-session\":%lu,\"ipv6-session\":%lu,\"added\":%lu,\"replaced\":"
	        "%lu,\"reconfirmed\":%lu,\"deleted\":%lu,"
	        "\"delete-unknown\":%lu,\"swept\":%lu,\"ipv6-added\":%lu,\"ipv6-replaced\":%lu,"
	        "\"ipv6-deleted\":%lu,"
	        "\"ipv6-reconfirmed\":%lu,\"ipv6-swept\":%lu,\"other-family\":%lu,"
	        "\"paths-truncated\":%lu},\"rejected\":",
	        c.routes4, c.routes4_rib, c.routes4_pending, c.routes4_rejected, c.routes6,
	        c.routes6_rib, c.routes6_pending, c.routes6_rejected, c.session4, c.session6,
	        c.routes_added, c.routes_replaced, c.routes_reconfirmed, c.routes_deleted,
	        c.routes_del_unknown, c.routes_swept, c.ipv6_added, c.ipv6_replaced,
	        c.ipv6_deleted, c.ipv6_reconfirmed, c.ipv6_swept, c.ignored_family,
	        c.paths_truncated);
	json_counts(out, fpm_reject_name, c.rejected, FPM_REJ__MAX, 0);
	fprintf(out,
	        ",\"nexthop-objects\":{\"current\":%lu,\"added\":%lu,\"replaced\":%lu,"
	        "\"deleted\":%lu,\"delete-unknown\":%lu,\"deleted-in-use\":%lu},\"errors\":",
	        c.nhobjs, c.nh_added, c.nh_replaced, c.nh_deleted, c.nh_del_unknown,
	        c.nh_deleted_in_use);
	json_counts(out, fpm_err_name, errors, FPM_E__MAX, 1);
	fputc('}', out);
}

void fpm_server_view(const struct fpm_server *s, struct fpm_server_view *out)
{
	struct fpm_table_counters c = {0};

	*out = (struct fpm_server_view){.state = FPM_STATE_DISABLED, .settle_ms = -1};
	if (!s)
		return;
	if (s->table)
		fpm_table_get_counters(s->table, &c);
	out->state = session_state(s);
	out->enabled = s->state != FPM_DISABLED;
	out->stale = c.stale;
	out->settled = c.settled;
	out->settled_rt_ms = s->settled_rt_ms;
	out->settle_ms = s->last_settle_ms;
	out->connected = s->fd >= 0;
	if (out->connected)
		snprintf(out->peer, sizeof(out->peer), "%s", s->peer);
	out->last_change_ms = s->change_rt_ms;
	out->connects = s->connects;
	out->disconnects = s->disconnects;
	out->frames = s->frames;
	out->routes_installed = c.routes_added + c.routes_replaced;
	out->routes_withdrawn = c.routes_deleted + c.routes_swept;
	for (unsigned i = 0; i < FPM_E__MAX; i++)
		out->errors += c.errors[i] + s->hdr_errors[i];
	out->refused_busy = s->refused_busy;
	out->refused_peer = s->refused_peer;
	out->routes4 = c.routes4;
	out->routes6 = c.routes6;
	out->limit_refused = c.rejected[FPM_REJ_LIMIT];
}

void fpm_server_state_json(const struct fpm_server *s, FILE *out)
{
	struct fpm_server_view v;

	fpm_server_view(s, &v);
	fprintf(out, ",\"fpm\":{\"state\":\"%s\"", fpm_session_state_name(v.state));
	if (v.peer[0])
		json_member_str(out, "peer", v.peer);
	if (v.last_change_ms)
		json_member_time(out, "last-change", v.last_change_ms);
	fprintf(out,
	        ",\"messages-in\":\"%lu\",\"errors\":\"%lu\",\"connections-refused-busy\":\"%lu\","
	        "\"connections-refused-peer\":\"%lu\",\"routes-ipv4\":\"%lu\","
	        "\"routes-ipv6\":\"%lu\",\"routes-refused-limit\":\"%lu\"",
	        v.frames, v.errors, v.refused_busy, v.refused_peer, v.routes4, v.routes6,
	        v.limit_refused);
	/* The replay: what an earlier session left that is not re-announced yet. */
	fprintf(out, ",\"stale-routes\":\"%lu\",\"settled\":%s", v.stale,
	        v.settled ? "true" : "false");
	if (v.settled_rt_ms)
		json_member_time(out, "last-settle", v.settled_rt_ms);
	if (v.settle_ms >= 0)
		fprintf(out, ",\"last-settle-duration\":%ld", v.settle_ms);
	fputc('}', out);
}
