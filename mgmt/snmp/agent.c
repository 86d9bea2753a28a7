/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AgentX subagent (RFC 2741) on net-snmp, inside the control thread's
 * libevent loop: after every callback, snmp_select_info2() says which
 * sockets net-snmp wants to read and when its next timeout or alarm is due
 * (alarms without SIGALRM, NETSNMP_DS_LIB_ALARM_DONT_USE_SIG); libevent
 * watches those and calls snmp_read2() / snmp_timeout() + run_alarms().
 * The session itself (open, register, find a lost or hung master) is
 * agent_session.c's, which never lets net-snmp block the loop on a master
 * that does not answer.
 *
 * Each table is one handler registration on its table OID; GETBULK reaches
 * it as GETNEXT (net-snmp's bulk_to_next helper). The handler walks the
 * pure tables of tables_*.c over one snapshot per request PDU.
 */
/* net-snmp's headers need their config header first, then this order. */
#include <net-snmp/net-snmp-config.h>

#include <net-snmp/net-snmp-includes.h>

#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "mgmt/snmp/agent_session.h"
#include "mgmt/snmp/snmp.h"

#define AGENT_NAME     "cellgated"
#define AGENT_FDS_MAX  16
#define AGENT_REGS_MAX 16   /* handler registrations: one per table, snmp_ntables of them */
#define REFRESH_MAX_MS 1000 /* a request never sees a snapshot older than this */

struct snmp_agent {
	struct event_base *base;
	const struct snmp_source *src;
	struct snmp_model model;
	struct stats_snapshot snap;
	struct event *timer;
	struct event *fd_ev[AGENT_FDS_MAX];
	int fds[AGENT_FDS_MAX];
	unsigned nfds;
	netsnmp_handler_registration *reg[AGENT_REGS_MAX];
	unsigned nreg;
	/* The request the model was refreshed for. */
	const void *last_asp;
	long last_reqid;
	uint64_t last_refresh_ms;
	struct agent_session *session; /* opening, probing, dropping (agent_session.c) */
};

static struct snmp_agent *the_agent; /* net-snmp is process-wide state: one agent */

/*
 * net-snmp's AgentX subagent keeps its session with the master here
 * (agentx/subagent.c), NULL while there is none. libnetsnmpagent exports it
 * but no installed header declares it.
 */
extern netsnmp_session *main_session;

bool snmp_agent_connected(const struct snmp_agent *ag)
{
	return ag && main_session != NULL;
}

/* net-snmp's messages into our log, one line each. */
static int agent_log(int major, int minor, void *serverarg, void *clientarg)
{
	const struct snmp_log_message *slm = serverarg;
	size_t n;

	if (!slm || !slm->msg)
		return 0;
	n = strlen(slm->msg);
	while (n && (slm->msg[n - 1] == '\n' || slm->msg[n - 1] == '\r'))
		n--;
	if (slm->priority <= LOG_WARNING)
		log_warnx("snmp: %.*s", (int)n, slm->msg);
	else if (slm->priority <= LOG_INFO)
		log_info("snmp: %.*s", (int)n, slm->msg);
	else
		log_debug("snmp: %.*s", (int)n, slm->msg);
	return 0;
}

static void agent_refresh(struct snmp_agent *ag)
{
	ag->last_refresh_ms = mono_ms();
	snmp_model_refresh(&ag->model, (uint32_t)netsnmp_get_agent_uptime(), realtime_ms());
}

/* One snapshot per request PDU: every varbind of it sees the same counters. */
static void agent_refresh_for(struct snmp_agent *ag, netsnmp_agent_request_info *reqinfo)
{
	const void *asp = reqinfo->asp;
	long reqid = reqinfo->asp && reqinfo->asp->pdu ? reqinfo->asp->pdu->reqid : -1;

	if (asp == ag->last_asp && reqid == ag->last_reqid &&
	    mono_ms() - ag->last_refresh_ms < REFRESH_MAX_MS)
		return;
	ag->last_asp = asp;
	ag->last_reqid = reqid;
	agent_refresh(ag);
}

static void agent_set_value(netsnmp_variable_list *vb, const struct mib_val *v)
{
	long l;
	u_long ul;
	struct counter64 c64;

	switch (v->type) {
	case MIB_INTEGER:
		l = (int32_t)v->num;
		snmp_set_var_typed_value(vb, ASN_INTEGER, &l, sizeof(l));
		break;
	case MIB_OCTETS:
		snmp_set_var_typed_value(vb, ASN_OCTET_STR, v->str, v->len ? v->len : strlen(v->str));
		break;
	case MIB_IPADDR:
		snmp_set_var_typed_value(vb, ASN_IPADDRESS, v->ip, 4);
		break;
	case MIB_COUNTER32:
	case MIB_GAUGE32:
	case MIB_TIMETICKS:
		ul = (uint32_t)v->num;
		snmp_set_var_typed_value(vb,
		                         v->type == MIB_COUNTER32 ? ASN_COUNTER
		                         : v->type == MIB_GAUGE32 ? ASN_GAUGE
		                                                  : ASN_TIMETICKS,
		                         &ul, sizeof(ul));
		break;
	case MIB_COUNTER64:
		c64.high = (u_long)(v->num >> 32);
		c64.low = (u_long)(v->num & 0xffffffffu);
		snmp_set_var_typed_value(vb, ASN_COUNTER64, &c64, sizeof(c64));
		break;
	}
}

static void agent_request(struct snmp_agent *ag, const struct mib_table *t, int mode,
                          netsnmp_agent_request_info *reqinfo, netsnmp_request_info *r)
{
	netsnmp_variable_list *vb = r->requestvb;
	mib_subid name[MIB_OID_MAX], next[MIB_OID_MAX];
	unsigned len = vb->name_length < MIB_OID_MAX ? (unsigned)vb->name_length : MIB_OID_MAX;
	unsigned next_len = 0;
	struct mib_val v;
	oid out[MIB_OID_MAX];
	int rc;

	for (unsigned i = 0; i < len; i++)
		name[i] = vb->name[i];
	if (mode == MODE_GET) {
		rc = mib_table_get(t, &ag->model, name, len, &v);
		if (rc == MIB_OK)
			agent_set_value(vb, &v);
		else
			netsnmp_set_request_error(reqinfo, r,
			                          rc == MIB_NO_OBJECT ? SNMP_NOSUCHOBJECT
			                                              : SNMP_NOSUCHINSTANCE);
		return;
	}
	/* GETNEXT: past the table's end, leave the varbind alone and the agent moves on. */
	if (mib_table_next(t, &ag->model, name, len, next, &next_len, &v) != MIB_OK)
		return;
	for (unsigned i = 0; i < next_len; i++)
		out[i] = next[i];
	snmp_set_var_objid(vb, out, next_len);
	agent_set_value(vb, &v);
}

static int agent_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reg,
                         netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	struct snmp_agent *ag = the_agent;
	const struct mib_table *t = handler->myvoid;

	if (!ag || !t)
		return SNMP_ERR_GENERR;
	if (reqinfo->mode != MODE_GET && reqinfo->mode != MODE_GETNEXT) {
		/* Read-only (HANDLER_CAN_RONLY): the agent refuses writes before this. */
		for (netsnmp_request_info *r = requests; r; r = r->next)
			netsnmp_set_request_error(reqinfo, r, SNMP_ERR_NOTWRITABLE);
		return SNMP_ERR_NOERROR;
	}
	agent_refresh_for(ag, reqinfo);
	for (netsnmp_request_info *r = requests; r; r = r->next)
		if (!r->processed)
			agent_request(ag, t, reqinfo->mode, reqinfo, r);
	return SNMP_ERR_NOERROR;
}

static int agent_register(struct snmp_agent *ag, const struct mib_table *t)
{
	netsnmp_handler_registration *reg;
	oid o[MIB_OID_MAX];

	if (ag->nreg == AGENT_REGS_MAX) {
		log_warnx("snmp: %s: more than %d tables to register", t->name, AGENT_REGS_MAX);
		return -ENOSPC;
	}
	for (unsigned i = 0; i < t->oid_len; i++)
		o[i] = t->oid[i];
	reg = netsnmp_create_handler_registration(t->name, agent_handler, o, t->oid_len,
	                                          HANDLER_CAN_RONLY);
	if (!reg)
		return -ENOMEM;
	reg->handler->myvoid = (void *)t;
	if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK) {
		log_warnx("snmp: %s: cannot register its OID with the agent", t->name);
		return -EINVAL; /* net-snmp freed reg */
	}
	ag->reg[ag->nreg++] = reg;
	return 0;
}

static void agent_sync(struct snmp_agent *ag);

static void agent_readable(evutil_socket_t fd, short what, void *arg)
{
	struct snmp_agent *ag = arg;
	netsnmp_large_fd_set fds;

	netsnmp_large_fd_set_init(&fds, fd + 1);
	NETSNMP_LARGE_FD_SET(fd, &fds);
	snmp_read2(&fds);
	netsnmp_large_fd_set_cleanup(&fds);
	netsnmp_check_outstanding_agent_requests();
	run_alarms();
	agent_sync(ag);
}

static void agent_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct snmp_agent *ag = arg;

	snmp_timeout();
	run_alarms();
	netsnmp_check_outstanding_agent_requests();
	agent_sync(ag);
}

static bool agent_watching(const struct snmp_agent *ag, int fd)
{
	for (unsigned i = 0; i < ag->nfds; i++)
		if (ag->fds[i] == fd)
			return true;
	return false;
}

/*
 * Watch exactly the sockets net-snmp asks for, and arm the timer for its
 * next timeout or alarm. A socket it closed is dropped here before any new
 * one can take its number, so a stale event never stands for a new socket.
 */
static void agent_sync(struct snmp_agent *ag)
{
	netsnmp_large_fd_set fds;
	struct timeval tv = {0, 0};
	int numfds = 0, block = 0;

	netsnmp_large_fd_set_init(&fds, FD_SETSIZE);
	snmp_select_info2(&numfds, &fds, &tv, &block);
	for (unsigned i = 0; i < ag->nfds;) {
		if (ag->fds[i] < numfds && NETSNMP_LARGE_FD_ISSET(ag->fds[i], &fds)) {
			i++;
			continue;
		}
		event_free(ag->fd_ev[i]);
		ag->nfds--;
		ag->fds[i] = ag->fds[ag->nfds];
		ag->fd_ev[i] = ag->fd_ev[ag->nfds];
	}
	for (int fd = 0; fd < numfds; fd++) {
		struct event *ev;

		if (!NETSNMP_LARGE_FD_ISSET(fd, &fds) || agent_watching(ag, fd))
			continue;
		if (ag->nfds == AGENT_FDS_MAX) {
			log_warnx("snmp: net-snmp wants more than %d sockets watched",
			          AGENT_FDS_MAX);
			break;
		}
		ev = event_new(ag->base, fd, EV_READ | EV_PERSIST, agent_readable, ag);
		if (!ev || event_add(ev, NULL) != 0) {
			log_warnx("snmp: cannot watch socket %d", fd);
			if (ev)
				event_free(ev);
			continue;
		}
		ag->fds[ag->nfds] = fd;
		ag->fd_ev[ag->nfds++] = ev;
	}
	netsnmp_large_fd_set_cleanup(&fds);
	if (block)
		evtimer_del(ag->timer);
	else
		evtimer_add(ag->timer, &tv);
}

/* agent_session: the session opened or ended, so net-snmp's sockets changed. */
static void agent_changed(void *arg)
{
	agent_sync(arg);
}

/* Subagent role, where the master is, and no files of net-snmp's own read or written. */
static void agent_settings(const struct snmp_config *cfg)
{
	/*
	 * The subagent serves numeric OIDs and needs no MIB text: an empty
	 * MIBS keeps net-snmp from parsing the system's MIB files at start
	 * (time, memory, and a warning per import it cannot resolve).
	 */
	setenv("MIBS", "", 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	agent_session_prepare(cfg->agentx_socket);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_ALARM_DONT_USE_SIG, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING, agent_log, NULL);
	snmp_enable_calllog();
}

int snmp_agent_start(struct event_base *base, const struct snmp_source *src,
                     const struct snmp_config *cfg, struct snmp_agent **out)
{
	struct snmp_agent *ag;

	if (the_agent)
		return -EBUSY;
	ag = calloc(1, sizeof(*ag));
	if (!ag)
		return -ENOMEM;
	ag->base = base;
	ag->src = src;
	ag->timer = evtimer_new(base, agent_timeout, ag);
	if (!ag->timer) {
		free(ag);
		return -ENOMEM;
	}
	snmp_model_init(&ag->model, src, &ag->snap);
	the_agent = ag;
	agent_settings(cfg);
	if (init_agent(AGENT_NAME) != 0) {
		log_warnx("snmp: net-snmp agent library failed to initialise");
		snmp_agent_stop(ag);
		return -EIO;
	}
	/* init_agent() put its defaults in: ours win. */
	agent_session_prepare(cfg->agentx_socket);
	for (unsigned i = 0; i < snmp_ntables; i++)
		if (agent_register(ag, snmp_tables[i]) != 0) {
			snmp_agent_stop(ag);
			return -EINVAL;
		}
	/* No connection yet (agent_session_prepare): the session comes once the master answers. */
	init_snmp(AGENT_NAME);
	if (agent_session_start(&ag->session, base, cfg->agentx_socket, cfg->ping_interval_s,
	                        agent_changed, ag) != 0) {
		snmp_agent_stop(ag);
		return -ENOMEM;
	}
	agent_sync(ag);
	log_info("snmp: AgentX subagent for %s, ping every %u s: %u ports, %u VCs",
	         cfg->agentx_socket, cfg->ping_interval_s, ag->model.nport_rows,
	         ag->model.nvc_rows);
	*out = ag;
	return 0;
}

void snmp_agent_stop(struct snmp_agent *ag)
{
	if (!ag)
		return;
	agent_session_stop(ag->session);
	for (unsigned i = 0; i < ag->nreg; i++)
		netsnmp_unregister_handler(ag->reg[i]);
	snmp_shutdown(AGENT_NAME);
	for (unsigned i = 0; i < ag->nfds; i++)
		event_free(ag->fd_ev[i]);
	if (ag->timer)
		event_free(ag->timer);
	the_agent = NULL;
	free(ag);
}

static void agent_add_column(struct snmp_agent *ag, netsnmp_variable_list **vars, unsigned col,
                             unsigned row)
{
	mib_subid name[MIB_OID_MAX];
	oid o[MIB_OID_MAX];
	unsigned len = snmp_vc_instance(&ag->model, &cg_vc_table, col, row, name);
	netsnmp_variable_list *vb;
	struct mib_val v;

	if (mib_table_get(&cg_vc_table, &ag->model, name, len, &v) != MIB_OK)
		return;
	for (unsigned i = 0; i < len; i++)
		o[i] = name[i];
	vb = snmp_varlist_add_variable(vars, o, len, ASN_NULL, NULL, 0);
	if (vb)
		agent_set_value(vb, &v);
}

void snmp_agent_vcs_changed(struct snmp_agent *ag)
{
	if (ag)
		snmp_model_vcs_changed(&ag->model);
}

void snmp_agent_notify_vc_state(struct snmp_agent *ag, unsigned vc, uint8_t oper)
{
	static const oid trap_oid[] = {1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0}; /* snmpTrapOID.0 */
	const struct snmp_vc_info *vi;
	netsnmp_variable_list *vars = NULL;
	oid notif[MIB_OID_MAX];
	unsigned n = 0;
	int row;

	if (!ag || (row = snmp_vc_row(&ag->model, vc)) < 0)
		return;
	vi = &ag->src->vc[vc];
	agent_refresh(ag);
	/* The state the notification announces, even if the VC has flapped since. */
	ag->snap.vc[vc].oper = oper;
	for (unsigned i = 0; i < cg_mib_root_len; i++)
		notif[n++] = cg_mib_root[i];
	notif[n++] = 0; /* cgNotifications */
	notif[n++] = oper == VC_OPER_DOWN ? CG_NOTIFY_VC_OPER_DOWN : CG_NOTIFY_VC_OPER_UP;
	snmp_varlist_add_variable(&vars, trap_oid, OID_LENGTH(trap_oid), ASN_OBJECT_ID, notif,
	                          n * sizeof(oid));
	agent_add_column(ag, &vars, CG_VC_SUBIFINDEX, (unsigned)row);
	agent_add_column(ag, &vars, CG_VC_OPER_STATUS, (unsigned)row);
	agent_add_column(ag, &vars, CG_VC_LAST_CHANGE, (unsigned)row);
	send_v2trap(vars);
	snmp_free_varbind(vars);
	ag->last_asp = NULL; /* the next request takes a fresh snapshot */
	log_info("snmp: VC %u/%u: %s sent", vi->vpi, vi->vci,
	         oper == VC_OPER_DOWN ? "cgVcOperDown" : "cgVcOperUp");
	agent_sync(ag);
}
