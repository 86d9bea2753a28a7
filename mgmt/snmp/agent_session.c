/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The subagent's session with the AgentX master, kept without ever blocking
 * the control loop on it. net-snmp opens, registers and pings
 * synchronously (snmp_synch_response): a master that accepts and never
 * answers, like a SIGSTOPped snmpd, would hold the loop for its timeouts
 * and retries at every ping. So net-snmp's own ping and reconnect alarms are
 * off, and this file does both with a probe of its own (agentx_probe.h)
 * every ping interval:
 *  - not connected, and the master just answered: net-snmp opens the
 *    session and registers the tables (quick, since the master answers);
 *  - connected, and the master does not answer: the session's socket is
 *    shut down, and net-snmp's reading of it ends the session as if the
 *    master had gone (its disconnect handling, which sends nothing).
 * Should the master stop between the probe and net-snmp's calls, those
 * are bounded by short session timeouts and no retries.
 */
/* net-snmp's headers need their config header first, then this order. */
#include <net-snmp/net-snmp-config.h>

#include <net-snmp/net-snmp-includes.h>

#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "lib/log.h"
#include "mgmt/snmp/agent_session.h"
#include "mgmt/snmp/agentx_probe.h"

#define SESSION_TIMEOUT_US 500000 /* each synchronous AgentX exchange once open */
#define PROBE_TIMEOUT_MS   1000
#define NO_MASTER          "/dev/null/cellgated-no-agentx" /* fails at once, ENOTDIR */
#define SESSION_LOG_WHAT   "snmp: AgentX master probes"

/* net-snmp keeps these (agentx/subagent.c); libnetsnmpagent exports them, no header declares them.
 */
extern netsnmp_session *main_session;
int subagent_open_master_session(void);

struct agent_session {
	struct event_base *base;
	char socket[256];
	unsigned ping_s;
	struct event *tick, *kick;
	struct agentx_probe *probe;
	void (*changed)(void *arg);
	void *arg;
	struct log_limit log;
};

void agent_session_prepare(const char *socket)
{
	/*
	 * init_snmp() would open the session synchronously: point it at a path
	 * that fails at once, with no warning; the real one is set afterwards
	 * and used once a probe found the master answering.
	 */
	(void)socket;
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, NO_MASTER);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_NO_CONNECTION_WARNINGS,
	                       1);
	/* No ping or reconnect alarms of net-snmp's: agent_session does both. */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, 0);
	/* The open itself: 1 s (the library's unit is seconds), no retries. */
	netsnmp_ds_set_int(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_TIMEOUT, 1);
	netsnmp_ds_set_int(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_RETRIES, 0);
}

static int session_fd(void)
{
	void *sp = main_session ? snmp_sess_pointer(main_session) : NULL;
	netsnmp_transport *t = sp ? snmp_sess_transport(sp) : NULL;

	return t ? t->sock : -1;
}

/* The master answered: open and register (the synchronous part, quick now). */
static void session_open(struct agent_session *s)
{
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, s->socket);
	if (subagent_open_master_session() != 0) {
		if (log_limit_pass(&s->log, (uint64_t)time(NULL), SESSION_LOG_WHAT))
			log_warnx("snmp: AgentX master %s answered a probe but not the session; "
			          "trying again in %u s",
			          s->socket, s->ping_s);
		return;
	}
	main_session->timeout = SESSION_TIMEOUT_US;
	main_session->retries = 0;
	register_mib_reattach();
}

static void probe_done(void *arg, bool alive, const char *why)
{
	struct agent_session *s = arg;
	int fd;

	s->probe = NULL;
	if (!main_session && alive) {
		session_open(s);
	} else if (main_session && !alive && (fd = session_fd()) >= 0) {
		log_warnx("snmp: AgentX master %s does not answer (%s): session dropped, "
		          "reconnecting when it answers again",
		          s->socket, why);
		/* net-snmp reads EOF next and ends the session itself, sending nothing. */
		shutdown(fd, SHUT_RDWR);
	} else if (!main_session && !alive &&
	           log_limit_pass(&s->log, (uint64_t)time(NULL), SESSION_LOG_WHAT)) {
		log_info("snmp: no AgentX master at %s (%s); trying every %u s", s->socket, why,
		         s->ping_s);
	}
	if (s->changed)
		s->changed(s->arg);
}

static void session_tick(evutil_socket_t fd, short what, void *arg)
{
	struct agent_session *s = arg;
	int err;

	if (s->probe)
		return; /* the last one has not ended yet */
	err = agentx_probe_start(&s->probe, s->base, s->socket, PROBE_TIMEOUT_MS, probe_done, s);
	if (err == -ENOTSUP && !main_session) {
		/* An address form the probe does not speak: let net-snmp try, bounded. */
		s->probe = NULL;
		session_open(s);
		if (s->changed)
			s->changed(s->arg);
	} else if (err) {
		s->probe = NULL;
	}
}

int agent_session_start(struct agent_session **out, struct event_base *base, const char *socket,
                        unsigned ping_s, void (*changed)(void *arg), void *arg)
{
	struct agent_session *s = calloc(1, sizeof(*s));
	struct timeval tv = {ping_s ? ping_s : 1, 0}, now = {0, 0};

	if (!s)
		return -ENOMEM;
	*s = (struct agent_session){
	    .base = base, .ping_s = ping_s ? ping_s : 1, .changed = changed, .arg = arg};
	snprintf(s->socket, sizeof(s->socket), "%s", socket);
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, s->socket);
	s->tick = event_new(base, -1, EV_PERSIST, session_tick, s);
	s->kick = evtimer_new(base, session_tick, s);
	/* The first attempt right away (kick), then every ping interval. */
	if (!s->tick || !s->kick || event_add(s->tick, &tv) != 0 || evtimer_add(s->kick, &now)) {
		agent_session_stop(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void agent_session_stop(struct agent_session *s)
{
	if (!s)
		return;
	agentx_probe_cancel(s->probe);
	if (s->tick)
		event_free(s->tick);
	if (s->kick)
		event_free(s->kick);
	free(s);
}
