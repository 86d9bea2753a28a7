/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SNMP subagent's view of the daemon (mgmt/snmp/snmp.h): ports and VCs
 * described once from the configuration and the open ports, and callbacks
 * for what moves. Counters come from control_stats_take(), the snapshot the
 * stats dump takes too.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/control.h"
#include "lib/log.h"
#include "lib/clock.h"
#include "daemon/fpm.h"
#include "daemon/loopmon.h"
#include "mgmt/snmp/snmp.h"

static void snmp_stats_take(void *arg, struct stats_snapshot *snap)
{
	control_stats_take(arg, snap);
}

static bool snmp_vc_learned(void *arg, unsigned vc, uint32_t *ip, uint64_t *age_ms)
{
	struct control *ctl = arg;

	return atm_vc_learned(ctl->atm, vc, ip, age_ms);
}

static void snmp_fib(void *arg, struct snmp_fib_view *out)
{
	struct control *ctl = arg;
	struct rib_counts rc;

	rib_get_counts(ctl->rib, &rc);
	*out = (struct snmp_fib_view){.routes = rc.fib_routes,
	                              .nexthops = rc.nexthops,
	                              .nhgroups = rc.nhgroups,
	                              .errors = rc.errors,
	                              .memory_bytes = rc.fib_memory,
	                              .routes_frr = rc.routes[RIB_SRC_FRR],
	                              .routes_static = rc.routes[RIB_SRC_STATIC]};
}

static void snmp_loop(void *arg, struct snmp_loop_view *out)
{
	const struct control *ctl = arg;
	const struct loopmon_stats *ls = loopmon_stats(ctl->loop);
	uint64_t now = mono_ms();

	*out = (struct snmp_loop_view){.lag_recent_us = loopmon_recent_us(ls, now, false),
	                               .lag_max_us = ls->lag_max_us,
	                               .busy_recent_us = loopmon_recent_us(ls, now, true)};
}

_Static_assert((int)FPM_STATE_DISABLED == (int)SNMP_FPM_DISABLED &&
                   (int)FPM_STATE_LISTENING == (int)SNMP_FPM_LISTENING &&
                   (int)FPM_STATE_SYNCING == (int)SNMP_FPM_SYNCING &&
                   (int)FPM_STATE_ESTABLISHED == (int)SNMP_FPM_ESTABLISHED,
               "one FPM state vocabulary: fpm.h and CELLGATE-MIB cgFpmState agree");

/* CELLGATE-MIB cgFpm: the FPM session as the FPM server sees it (disabled when not set up). */
static void snmp_fpm(void *arg, struct snmp_fpm_view *out)
{
	const struct control *ctl = arg;
	struct fpm_server_view v;

	fpm_server_view(ctl->fpm, &v);
	/* The same numbers: fpm.h's vocabulary is CELLGATE-MIB's cgFpmState. */
	*out = (struct snmp_fpm_view){.state = (int32_t)v.state,
	                              .stale = v.stale,
	                              .settled = v.settled,
	                              .last_change_ms = v.last_change_ms,
	                              .connects = v.connects,
	                              .disconnects = v.disconnects,
	                              .msgs_in = v.frames,
	                              .routes_installed = v.routes_installed,
	                              .routes_withdrawn = v.routes_withdrawn,
	                              .errors = v.errors};
}

static void snmp_vc_state(void *arg, unsigned vc, uint8_t oper)
{
	struct control *ctl = arg;

	snmp_agent_notify_vc_state(ctl->snmp, vc, oper);
}

static void snmp_source_vcs(struct control *ctl, struct snmp_source *src);

static void snmp_source_fill(struct control *ctl, struct snmp_source *src)
{
	const struct cfg *cfg = ctl->cfg;
	src->arg = ctl;
	src->stats_take = snmp_stats_take;
	src->vc_learned = snmp_vc_learned;
	src->fib = snmp_fib;
	src->fpm = snmp_fpm;
	src->loop = snmp_loop;
	src->start_ms = realtime_ms();
	src->nports = ctl->dp->nports;
	for (unsigned p = 0; p < ctl->dp->nports; p++) {
		struct snmp_port_info *pi = &src->port[p];

		pi->ifindex = ctl->dp->ports[p].ifindex;
		snprintf(pi->name, sizeof(pi->name), "%s", ctl->dp->ports[p].name);
		if (p >= cfg->nports)
			pi->type = SNMP_PORT_ATM_SUBIF;
		else
			pi->type = cfg->ports[p].kind == CFG_PORT_ETHERNET ? SNMP_PORT_ETHERNET
			                                                   : SNMP_PORT_ATM;
	}
	snmp_source_vcs(ctl, src);
}

/* The VC rows, by VC id (the stats snapshot's index); ids no PVC holds name no port. */
static void snmp_source_vcs(struct control *ctl, struct snmp_source *src)
{
	const struct cfg *cfg = ctl->cfg;

	src->nvcs = ctl->dp->nvcs < VC_MAX ? ctl->dp->nvcs : VC_MAX;
	for (unsigned v = 0; v < src->nvcs; v++)
		src->vc[v] = (struct snmp_vc_info){.atm_port = UINT16_MAX};
	for (unsigned i = 0; i < cfg->npvcs; i++) {
		const struct cfg_pvc *pc = &cfg->pvcs[i];
		bool llc = pc->encap == CFG_ENCAP_LLC_SNAP || pc->encap == CFG_ENCAP_LLC_BRIDGED;
		int v = atm_vc_of_pvc(ctl->atm, i);

		if (v < 0 || (unsigned)v >= src->nvcs)
			continue;
		src->vc[v] = (struct snmp_vc_info){
		    .atm_port = (uint16_t)pc->port,
		    .subif = (uint16_t)(cfg->nports + pc->subif),
		    .vpi = pc->vpi,
		    .vci = pc->vci,
		    .llc = llc,
		    .bridged = pc->encap == CFG_ENCAP_LLC_BRIDGED ||
		               pc->encap == CFG_ENCAP_VCMUX_BRIDGED,
		    /* RFC 2225: the SDU is the IP MTU plus the RFC 2684 header. */
		    .sdu_size = pc->mtu + cfg_encap_hdr_len(pc->encap),
		    .peer_addr = pc->peer_addr,
		    .npeers6 = (uint8_t)pc->npeers6,
		};
		_Static_assert(SNMP_PEER6_MAX == CFG_PEER6_MAX, "one map size in config and SNMP");
		memcpy(src->vc[v].peers6, pc->peers6, sizeof(pc->peers6[0]) * pc->npeers6);
	}
}

void control_snmp_start(struct control *ctl)
{
	const struct cfg_snmp *cs = &ctl->cfg->snmp;
	struct snmp_config sc = {.agentx_socket = cs->agentx_socket,
	                         .ping_interval_s = cs->ping_interval_s};
	int err;

	if (!cs->enabled)
		return;
	ctl->snmp_src = calloc(1, sizeof(*ctl->snmp_src));
	if (!ctl->snmp_src) {
		log_warnx("snmp: out of memory: no AgentX subagent");
		return;
	}
	snmp_source_fill(ctl, ctl->snmp_src);
	err = snmp_agent_start(ctl->base, ctl->snmp_src, &sc, &ctl->snmp);
	if (err) {
		log_warnx("snmp: AgentX subagent not started: %s; forwarding goes on without it",
		          strerror(-err));
		free(ctl->snmp_src);
		ctl->snmp_src = NULL;
		return;
	}
	atm_set_vc_state_hook(ctl->atm, snmp_vc_state, ctl);
}

void control_snmp_vcs_changed(struct control *ctl)
{
	if (!ctl->snmp || !ctl->snmp_src)
		return;
	snmp_source_vcs(ctl, ctl->snmp_src);
	snmp_agent_vcs_changed(ctl->snmp);
}

void control_snmp_stop(struct control *ctl)
{
	atm_set_vc_state_hook(ctl->atm, NULL, NULL);
	snmp_agent_stop(ctl->snmp);
	ctl->snmp = NULL;
	free(ctl->snmp_src);
	ctl->snmp_src = NULL;
}
