/* SPDX-License-Identifier: BSD-2-Clause */
/* Built without net-snmp: the subagent cannot run, and says so (see configure --with-snmp). */
#include <errno.h>

#include "lib/log.h"
#include "mgmt/snmp/snmp.h"

int snmp_agent_start(struct event_base *base, const struct snmp_source *src,
                     const struct snmp_config *cfg, struct snmp_agent **out)
{
	log_warnx("snmp: cellgated was built without net-snmp (libsnmp-dev): no AgentX "
	          "subagent, /cellgate/snmp is ignored");
	*out = NULL;
	return -ENOTSUP;
}

void snmp_agent_stop(struct snmp_agent *ag)
{
}

void snmp_agent_vcs_changed(struct snmp_agent *ag)
{
	(void)ag;
}

void snmp_agent_notify_vc_state(struct snmp_agent *ag, unsigned vc, uint8_t oper)
{
}

bool snmp_agent_connected(const struct snmp_agent *ag)
{
	return false;
}
