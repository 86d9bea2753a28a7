/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Is the AgentX master answering? net-snmp's subagent opens, registers and
 * pings synchronously: a master that accepts connections and then never
 * answers (snmpd stopped, or wedged) holds the caller for its timeouts and
 * retries. So the subagent asks first, without blocking: a connection of
 * its own to the master's socket, an Open-PDU (RFC 2741 section 6.2.1), and
 * the Response-PDU (6.2.16) awaited in the event loop with a timeout; then
 * a Close-PDU (6.2.2). Only a master that just answered is given to
 * net-snmp's synchronous calls.
 *
 * The PDU encoder and decoder are pure (unit tests); the probe runs on
 * libevent.
 */
#ifndef CELLGATE_SNMP_AGENTX_PROBE_H
#define CELLGATE_SNMP_AGENTX_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGENTX_HDR_LEN            20
#define AGENTX_PDU_OPEN           1
#define AGENTX_PDU_CLOSE          2
#define AGENTX_PDU_RESPONSE       18
#define AGENTX_NETWORK_BYTE_ORDER 0x10 /* h.flags */

/* An Open-PDU (null subagent OID, description `descr`) into buf; its length, 0 if too small. */
size_t agentx_open_pdu(uint8_t *buf, size_t len, uint32_t packet_id, uint8_t timeout_s,
                       const char *descr);

/* A Close-PDU (reason "other") of session_id into buf; its length, 0 if too small. */
size_t agentx_close_pdu(uint8_t *buf, size_t len, uint32_t session_id, uint32_t packet_id);

/*
 * The answer to packet_id in buf (len bytes received so far): 0 = not
 * complete yet, 1 = a Response with no error (*session_id set), -1 = a
 * Response with an error (*error set), -2 = not a Response to it, or not
 * AgentX at all.
 */
int agentx_response_parse(const uint8_t *buf, size_t len, uint32_t packet_id, uint32_t *session_id,
                          uint16_t *error);

struct event_base;
struct agentx_probe;

/* The outcome: alive, or why not. Called once, from the event loop. */
typedef void (*agentx_probe_fn)(void *arg, bool alive, const char *why);

/*
 * Probe the master at `socket_spec` (net-snmp's agentXSocket syntax:
 * "/path", "unix:/path", "tcp:HOST:PORT" with a numeric or "localhost"
 * HOST). -ENOTSUP for a form it cannot probe (the caller may then let
 * net-snmp try), -ENOMEM; else 0 and fn is called within timeout_ms.
 */
int agentx_probe_start(struct agentx_probe **out, struct event_base *base, const char *socket_spec,
                       unsigned timeout_ms, agentx_probe_fn fn, void *arg);

/* Abandon a probe whose callback has not run yet (fn is not called). */
void agentx_probe_cancel(struct agentx_probe *p);

#endif
