/* SPDX-License-Identifier: BSD-2-Clause */
/* The FPM server's state, shared by fpm.c (listener, session, framing) and fpm_view.c (reports). */
#ifndef CELLGATE_FPM_PRIV_H
#define CELLGATE_FPM_PRIV_H

#include <arpa/inet.h>
#include <sys/socket.h>

#include "daemon/fpm.h"
#include "daemon/fpm_table.h"
#include "lib/log.h"

#define FPM_BUF_SIZE       (1u << 20)   /* stream buffer; always room for one whole frame */
#define FPM_READ_BUDGET    (256u << 10) /* bytes read and applied per slice at most: ~4k routes */
#define FPM_SLICE_US       2000         /* then back to the loop: its gauge ticks every 10 ms */
#define FPM_SLICE_CHECK    32           /* frames between looks at the clock (~30 us of work) */
#define FPM_RCVBUF         (4 << 20)    /* let zebra's replay run ahead of us without stalling it */
#define FPM_SWEEP_CHUNK    8192u        /* stale routes removed per loop turn: <= ~16 ms measured */
#define FPM_SETTLE_TICK    100          /* ms between settle checks */
#define FPM_PREFETCH_AHEAD 8            /* frames; a route costs ~1 us, a cache miss ~0.1-0.3 us */

enum fpm_state { FPM_DISABLED, FPM_LISTENING, FPM_SYNCING, FPM_SWEEPING, FPM_ESTABLISHED };

struct fpm_server {
	struct event_base *base;
	struct cfg_fpm cfg;
	char listen_str[INET6_ADDRSTRLEN + 8];
	enum fpm_state state;
	int lfd, fd;
	struct event *lev, *rev, *settle_ev;
	struct event *batch_ev;  /* retries closing a FIB6 batch that needed a reclaim */
	struct event *resume_ev; /* zero timer: frames a slice left in buf (fpm_read_some) */
	struct fpm_table *table;

	uint8_t *buf; /* stream bytes not yet framed; malloc'd, so 4-byte aligned */
	size_t len;
	uint8_t *scratch; /* a misaligned frame's copy (netlink needs 4-byte alignment) */

	char peer[INET6_ADDRSTRLEN + 8];
	uint32_t session;
	uint64_t connects, disconnects, bytes, frames;
	uint64_t refused_busy; /* connections closed because a session was alive */
	uint64_t refused_peer; /* connections from an address not in allowed-peer */
	uint64_t change_rt_ms; /* CLOCK_REALTIME of the last connect or disconnect */
	uint64_t hdr_errors[FPM_E__MAX];
	uint64_t connect_ms, quiet_since_ms, last_reconfirmed;
	int64_t last_settle_ms; /* connect to settled, last session; -1 = none yet */
	uint64_t settled_rt_ms; /* CLOCK_REALTIME of that, 0 = none yet */
	/* accept() failing for want of descriptors (EMFILE) fails again on every
	 * loop while the connection waits: a few lines, then a count. Refused
	 * connections, which a process may make in a loop, likewise. */
	struct log_limit accept_log, refuse_log, batch_log;
};

/* fpm_peer.c: "address:port" / "[address]:port" of a socket address. */
void fpm_addr_str(const struct sockaddr_storage *ss, char *buf, size_t sz);

/* fpm_peer.c: may a connection from ss be a session (allowed-peer, or none listed)? */
bool fpm_peer_allowed(const struct cfg_fpm *cfg, const struct sockaddr_storage *ss);

/* fpm_peer.c: TCP keepalive so a dead peer ends its session after about dead_s. */
void fpm_peer_keepalive(int fd, unsigned dead_s);

/* fpm_peer.c: log the allowed peers, or warn that any address may connect. */
void fpm_peer_log_policy(const struct fpm_server *s);

#endif
