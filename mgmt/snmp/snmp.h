/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SNMP AgentX subagent (RFC 2741) as the daemon sees it: start it in
 * the control thread's libevent loop, tell it about VC state changes, stop
 * it. It reads everything through a struct snmp_source the daemon fills in
 * (snmp_model.h): the same counter snapshot as the stats dump, and a few
 * callbacks; never datapath internals.
 *
 * net-snmp is driven from the loop (snmp_select_info2, snmp_read2, its
 * alarms on a libevent timer), with no thread of its own. Without net-snmp
 * at configure time, snmp_agent_start() says so and fails.
 */
#ifndef CELLGATE_SNMP_H
#define CELLGATE_SNMP_H

#include <stdbool.h>
#include <stdint.h>

#include "mgmt/snmp/snmp_model.h"

struct event_base;
struct snmp_agent;

struct snmp_config {
	const char *agentx_socket; /* UNIX path or net-snmp transport (tcp:host:port) */
	unsigned ping_interval_s;  /* AgentX ping; reconnect attempts while unconnected */
};

/*
 * Start the subagent: register the tables and connect to the master. snmpd
 * not running yet is not an error: the subagent connects when it appears.
 * `src` must outlive the agent. 0 or a negative errno (logged).
 */
int snmp_agent_start(struct event_base *base, const struct snmp_source *src,
                     const struct snmp_config *cfg, struct snmp_agent **out);

/* Whether the subagent has a session with the master agent now. */
bool snmp_agent_connected(const struct snmp_agent *ag);

/* Unregister, close the session, free. NULL is fine. */
void snmp_agent_stop(struct snmp_agent *ag);

/* VC `vc` (index into src->vc) went to `oper` (enum vc_oper): send cgVcOperUp/Down. */
void snmp_agent_notify_vc_state(struct snmp_agent *ag, unsigned vc, uint8_t oper);
/* The source's VC rows changed (runtime PVC add/delete): the tables follow from the next request.
 */
void snmp_agent_vcs_changed(struct snmp_agent *ag);

#endif
