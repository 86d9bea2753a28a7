/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AgentX liveness probe: the Open/Close/Response PDUs against RFC 2741
 * section 6 byte for byte, and the probe's three outcomes against fake
 * masters on UNIX sockets in a private directory: one that answers, one
 * that accepts and never answers (a stopped snmpd), and none at all. The
 * probe never blocks: the hung master's outcome comes from the event loop.
 */
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mgmt/snmp/agentx_probe.h"
#include "tests/unit/check.h"

static void test_pdus(void)
{
	uint8_t b[64];
	uint32_t sid = 0;
	uint16_t err = 0;
	size_t n = agentx_open_pdu(b, sizeof(b), 0x01020304, 1, "ab");

	/* 20 header + timeout/reserved 4 + null OID 4 + length 4 + "ab" padded to 4 */
	CHECK_EQ(n, 36);
	static const uint8_t hdr[20] = {1, 1, 0x10, 0, 0, 0, 0, 0, 0, 0,
	                                0, 0, 1,    2, 3, 4, 0, 0, 0, 16};
	CHECK(!memcmp(b, hdr, 20));
	CHECK(b[20] == 1 && !b[21] && !b[22] && !b[23]);
	CHECK(!b[24] && !b[25] && !b[26] && !b[27]);
	CHECK(!memcmp(b + 28, "\0\0\0\2ab\0\0", 8));
	CHECK_EQ(agentx_open_pdu(b, 35, 1, 1, "ab"), 0);
	CHECK_EQ(agentx_close_pdu(b, sizeof(b), 7, 9), 24);
	CHECK(b[1] == AGENTX_PDU_CLOSE && b[7] == 7 && b[15] == 9 && b[19] == 4 && b[20] == 1);

	/* A Response in network byte order: session 5, packet 0x01020304, no error. */
	uint8_t r[28] = {1, 18, 0x10, 0, 0, 0, 0, 5, 0, 0, 0, 0, 1, 2,
	                 3, 4,  0,    0, 0, 8, 0, 0, 0, 9, 0, 0, 0, 0};
	CHECK_EQ(agentx_response_parse(r, 19, 0x01020304, &sid, &err), 0); /* incomplete */
	CHECK_EQ(agentx_response_parse(r, 27, 0x01020304, &sid, &err), 0);
	CHECK_EQ(agentx_response_parse(r, 28, 0x01020304, &sid, &err), 1);
	CHECK_EQ(sid, 5);
	CHECK_EQ(agentx_response_parse(r, 28, 0x01020305, &sid, &err), -2); /* not ours */
	r[25] = 0x0d;                                                       /* parseError */
	CHECK_EQ(agentx_response_parse(r, 28, 0x01020304, &sid, &err), -1);
	CHECK_EQ(err, 13);
	/* Host byte order (flags 0) as a little-endian master may answer. */
	uint8_t l[28] = {1, 18, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 4, 3,
	                 2, 1,  8, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0};
	CHECK_EQ(agentx_response_parse(l, 28, 0x01020304, &sid, &err), 1);
	CHECK_EQ(sid, 5);
	r[1] = 1; /* an Open-PDU is no answer */
	CHECK_EQ(agentx_response_parse(r, 28, 0x01020304, &sid, &err), -2);
}

struct outcome {
	int done;
	bool alive;
	char why[96];
	struct event_base *base;
};

static void probe_cb(void *arg, bool alive, const char *why)
{
	struct outcome *o = arg;

	o->done++;
	o->alive = alive;
	snprintf(o->why, sizeof(o->why), "%s", why);
	event_base_loopbreak(o->base);
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) || listen(fd, 4))
		return -1;
	return fd;
}

/* The fake master's side of one connection: answer the Open-PDU with a Response. */
static void conn_cb(evutil_socket_t fd, short what, void *arg)
{
	uint8_t in[64], resp[28] = {1, 18, 0x10, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
	                            0, 0,  0,    0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0};
	ssize_t n = recv(fd, in, sizeof(in), 0);

	if (n >= 20) {
		memcpy(resp + 12, in + 12, 4); /* the packet id asked */
		if (send(fd, resp, sizeof(resp), 0) != (ssize_t)sizeof(resp))
			CHECK(!"send");
	}
	event_free(arg);
	close(fd);
}

struct master {
	struct event_base *base;
	bool answer;
	int hung[8], nhung;
};

/* The fake master: accepts; answers only when `answer` (else a hung master). */
static void master_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct master *m = arg;
	int fd = accept(lfd, NULL, NULL);

	if (fd < 0)
		return;
	if (!m->answer) {
		/* The connection stays open, nothing ever comes back. */
		if (m->nhung < 8)
			m->hung[m->nhung++] = fd;
		else
			close(fd);
		return;
	}
	struct event *ev = event_new(m->base, fd, EV_READ, conn_cb, NULL);
	event_assign(ev, m->base, fd, EV_READ, conn_cb, ev);
	event_add(ev, NULL);
}

static struct outcome run_probe(struct event_base *base, const char *spec)
{
	struct outcome o = {.base = base};
	struct agentx_probe *p;

	CHECK_EQ(agentx_probe_start(&p, base, spec, 300, probe_cb, &o), 0);
	event_base_dispatch(base);
	CHECK_EQ(o.done, 1);
	return o;
}

static void test_probe(void)
{
	char dir[] = "/tmp/test_agentx_probe.XXXXXX", path[256];
	struct event_base *base = event_base_new();
	struct agentx_probe *p;
	struct master m = {.base = base};
	struct outcome o;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/master", dir);
	int lfd = listen_unix(path);
	CHECK(lfd >= 0);
	struct event *lev = event_new(base, lfd, EV_READ | EV_PERSIST, master_cb, &m);
	event_add(lev, NULL);

	m.answer = true;
	o = run_probe(base, path);
	CHECK(o.alive);
	m.answer = false;
	o = run_probe(base, path);
	CHECK(!o.alive && !strcmp(o.why, "no answer in time"));
	char unixspec[300];
	snprintf(unixspec, sizeof(unixspec), "unix:%s/none", dir);
	o = run_probe(base, unixspec);
	CHECK(!o.alive && strstr(o.why, "connect: No such file"));
	CHECK_EQ(agentx_probe_start(&p, base, "udp:127.0.0.1:705", 300, probe_cb, &o), -ENOTSUP);
	CHECK_EQ(agentx_probe_start(&p, base, "tcp:example.com:705", 300, probe_cb, &o), -ENOTSUP);
	event_free(lev);
	close(lfd);
	for (int i = 0; i < m.nhung; i++)
		close(m.hung[i]);
	unlink(path);
	rmdir(dir);
	event_base_free(base);
}

int main(void)
{
	test_pdus();
	test_probe();
	return check_report("test_agentx_probe");
}
