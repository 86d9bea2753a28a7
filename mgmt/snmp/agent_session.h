/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AgentX session's life without blocking the control loop (see
 * agent_session.c): probe the master, open and register only when it
 * answers, drop the session when it stops answering.
 */
#ifndef CELLGATE_SNMP_AGENT_SESSION_H
#define CELLGATE_SNMP_AGENT_SESSION_H

struct event_base;
struct agent_session;

/* Before init_agent()/init_snmp(): net-snmp's own connecting and pinging off. */
void agent_session_prepare(const char *socket);

/*
 * After init_snmp(): probe the master at `socket` now and every ping_s
 * seconds; `changed` is called whenever the session may have opened or
 * ended (the sockets to watch change). 0 or -ENOMEM.
 */
int agent_session_start(struct agent_session **out, struct event_base *base, const char *socket,
                        unsigned ping_s, void (*changed)(void *arg), void *arg);
void agent_session_stop(struct agent_session *s);

#endif
