/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AgentX liveness probe (agentx_probe.h): RFC 2741 PDUs by hand, sent
 * in network byte order (h.flags NETWORK_BYTE_ORDER, section 6.1), over a
 * non-blocking connection watched by libevent.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mgmt/snmp/agentx_probe.h"

static void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p, bool net)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return net ? ntohl(v) : v;
}

static uint16_t get16(const uint8_t *p, bool net)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return net ? ntohs(v) : v;
}

/* Section 6.1: version 1, type, flags, reserved, session, transaction, packet, length. */
static void header(uint8_t *p, uint8_t type, uint32_t session_id, uint32_t packet_id,
                   uint32_t payload)
{
	p[0] = 1;
	p[1] = type;
	p[2] = AGENTX_NETWORK_BYTE_ORDER;
	p[3] = 0;
	put32(p + 4, session_id);
	put32(p + 8, 0);
	put32(p + 12, packet_id);
	put32(p + 16, payload);
}

size_t agentx_open_pdu(uint8_t *buf, size_t len, uint32_t packet_id, uint8_t timeout_s,
                       const char *descr)
{
	size_t dlen = strlen(descr), pad = (4 - dlen % 4) % 4;
	/* o.timeout + 3 reserved, o.id a null OID (4), o.descr length + octets + padding */
	size_t payload = 4 + 4 + 4 + dlen + pad;

	if (len < AGENTX_HDR_LEN + payload)
		return 0;
	header(buf, AGENTX_PDU_OPEN, 0, packet_id, (uint32_t)payload);
	uint8_t *p = buf + AGENTX_HDR_LEN;
	memset(p, 0, payload);
	p[0] = timeout_s;
	/* p[4..7]: n_subid 0, prefix 0, include 0, reserved: the null OID (section 5.1) */
	put32(p + 8, (uint32_t)dlen);
	memcpy(p + 12, descr, dlen);
	return AGENTX_HDR_LEN + payload;
}

size_t agentx_close_pdu(uint8_t *buf, size_t len, uint32_t session_id, uint32_t packet_id)
{
	if (len < AGENTX_HDR_LEN + 4)
		return 0;
	header(buf, AGENTX_PDU_CLOSE, session_id, packet_id, 4);
	memset(buf + AGENTX_HDR_LEN, 0, 4);
	buf[AGENTX_HDR_LEN] = 1; /* reasonOther */
	return AGENTX_HDR_LEN + 4;
}

int agentx_response_parse(const uint8_t *buf, size_t len, uint32_t packet_id, uint32_t *session_id,
                          uint16_t *error)
{
	bool net;
	uint32_t payload;

	if (len < AGENTX_HDR_LEN)
		return 0;
	net = buf[2] & AGENTX_NETWORK_BYTE_ORDER;
	payload = get32(buf + 16, net);
	if (buf[0] != 1 || buf[1] != AGENTX_PDU_RESPONSE || get32(buf + 12, net) != packet_id ||
	    payload < 8 || payload % 4)
		return -2;
	if (len < AGENTX_HDR_LEN + 8)
		return 0;
	*session_id = get32(buf + 4, net);
	*error = get16(buf + AGENTX_HDR_LEN + 4, net); /* after res.sysUpTime */
	return *error ? -1 : 1;
}

struct agentx_probe {
	struct event_base *base;
	int fd;
	struct event *ev, *timer;
	agentx_probe_fn fn;
	void *arg;
	uint32_t packet_id;
	uint8_t rx[64];
	size_t rx_len;
	bool sent;
	int connect_err;
};

static void probe_end(struct agentx_probe *p, bool alive, const char *why)
{
	agentx_probe_fn fn = p->fn;
	void *arg = p->arg;

	agentx_probe_cancel(p);
	fn(arg, alive, why);
}

/* The session the master opened for us is closed again; a failed write changes nothing. */
static void probe_close_session(struct agentx_probe *p, uint32_t session_id)
{
	uint8_t pdu[32];
	size_t n = agentx_close_pdu(pdu, sizeof(pdu), session_id, p->packet_id + 1);

	if (send(p->fd, pdu, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return;
}

static void probe_io(evutil_socket_t fd, short what, void *arg)
{
	struct agentx_probe *p = arg;
	char why[96];
	uint8_t pdu[64];
	uint32_t session_id = 0;
	uint16_t error = 0;
	int err = 0;
	socklen_t el = sizeof(err);

	if (!p->sent) {
		/* Connected (or not): send the Open-PDU, then wait for the answer. */
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err) {
			snprintf(why, sizeof(why), "connect: %s", strerror(err ? err : errno));
			return probe_end(p, false, why);
		}
		size_t n = agentx_open_pdu(pdu, sizeof(pdu), p->packet_id, 1, "cellgated probe");
		if (send(fd, pdu, n, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)n)
			return probe_end(p, false, "cannot send the Open-PDU");
		p->sent = true;
		event_del(p->ev);
		event_assign(p->ev, p->base, fd, EV_READ | EV_PERSIST, probe_io, p);
		event_add(p->ev, NULL);
		return;
	}
	ssize_t got = recv(fd, p->rx + p->rx_len, sizeof(p->rx) - p->rx_len, MSG_DONTWAIT);
	if (got <= 0) {
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		return probe_end(p, false,
		                 got ? strerror(errno) : "the master closed the connection");
	}
	p->rx_len += (size_t)got;
	switch (agentx_response_parse(p->rx, p->rx_len, p->packet_id, &session_id, &error)) {
	case 0:
		if (p->rx_len == sizeof(p->rx))
			probe_end(p, false, "an oversized answer");
		return;
	case 1:
		probe_close_session(p, session_id);
		return probe_end(p, true, "answered");
	case -1:
		snprintf(why, sizeof(why), "it refused the session (AgentX error %u)", error);
		return probe_end(p, false, why);
	default:
		return probe_end(p, false, "an answer that is not AgentX");
	}
}

static void probe_timeout(evutil_socket_t fd, short what, void *arg)
{
	probe_end(arg, false, "no answer in time");
}

static void probe_refused(evutil_socket_t fd, short what, void *arg)
{
	struct agentx_probe *p = arg;
	char why[96];

	snprintf(why, sizeof(why), "connect: %s", strerror(p->connect_err));
	probe_end(p, false, why);
}

/* The master's address from net-snmp's agentXSocket syntax; sizes in *sl. */
static int probe_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *sl)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	char host[64];
	unsigned port;

	memset(ss, 0, sizeof(*ss));
	if (!strncmp(spec, "unix:", 5))
		spec += 5;
	if (spec[0] == '/') {
		if (strlen(spec) >= sizeof(sun->sun_path))
			return -ENAMETOOLONG;
		sun->sun_family = AF_UNIX;
		memcpy(sun->sun_path, spec, strlen(spec) + 1);
		*sl = sizeof(*sun);
		return 0;
	}
	if (strncmp(spec, "tcp:", 4) || sscanf(spec + 4, "%63[^:]:%u", host, &port) != 2 ||
	    port == 0 || port > 65535)
		return -ENOTSUP;
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
		return -ENOTSUP; /* a name would need a blocking lookup */
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)port);
	*sl = sizeof(*s4);
	return 0;
}

int agentx_probe_start(struct agentx_probe **out, struct event_base *base, const char *socket_spec,
                       unsigned timeout_ms, agentx_probe_fn fn, void *arg)
{
	static uint32_t packet_ids = 0x63670000; /* "cg": ours, not net-snmp's */
	struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	struct agentx_probe *p;
	int err = probe_addr(socket_spec, &ss, &sl);

	if (err)
		return err;
	if (!(p = calloc(1, sizeof(*p))))
		return -ENOMEM;
	*p = (struct agentx_probe){.base = base, .fn = fn, .arg = arg, .packet_id = ++packet_ids};
	p->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	p->ev = event_new(base, p->fd, EV_WRITE, probe_io, p);
	p->timer = evtimer_new(base, probe_timeout, p);
	if (p->fd < 0 || !p->ev || !p->timer) {
		agentx_probe_cancel(p);
		return -ENOMEM;
	}
	if (connect(p->fd, (struct sockaddr *)&ss, sl) != 0 && errno != EINPROGRESS) {
		/* Refused, absent, backlog full: reported from the loop, like any outcome. */
		struct timeval now = {0, 0};
		p->connect_err = errno;
		event_assign(p->ev, base, -1, 0, probe_refused, p);
		event_add(p->ev, &now);
	} else {
		event_add(p->ev, NULL);
	}
	evtimer_add(p->timer, &tv);
	*out = p;
	return 0;
}

void agentx_probe_cancel(struct agentx_probe *p)
{
	if (!p)
		return;
	if (p->ev)
		event_free(p->ev);
	if (p->timer)
		event_free(p->timer);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}
