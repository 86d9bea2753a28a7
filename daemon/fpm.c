/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FPM server: listener, session, stream framing and the settle timer (see
 * fpm.h). Decoding and the route state are fpm_nl.c and fpm_table.c.
 */
#include "cellgate-build.h" /* _GNU_SOURCE: accept4 */

#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "daemon/fpm_priv.h"

static void settle_arm(struct fpm_server *s, unsigned ms)
{
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};

	event_add(s->settle_ev, &tv);
}

static void session_close(struct fpm_server *s, bool error, const char *why)
{
	if (s->fd < 0)
		return;
	(error ? log_warnx : log_info)(
	    "fpm: session %u with zebra at %s ended: %s; its routes stay installed%s", s->session,
	    s->peer, why,
	    s->state == FPM_SYNCING ? " and the stale ones are kept until a session settles" : "");
	event_free(s->rev);
	s->rev = NULL;
	event_del(s->resume_ev);
	close(s->fd);
	s->fd = -1;
	s->len = 0;
	s->disconnects++;
	s->change_rt_ms = realtime_ms();
	/* A replay cut short proves nothing: no sweep until a session settles. */
	if (s->state == FPM_SYNCING)
		event_del(s->settle_ev);
	if (s->state != FPM_SWEEPING)
		s->state = FPM_LISTENING;
}

/* Prefetch the next complete frame after *ahead; false when there is none. */
static bool stream_prefetch_next(struct fpm_server *s, size_t *ahead)
{
	long flen = fpm_frame_check(s->buf + *ahead, s->len - *ahead);

	if (flen <= 0)
		return false;
	fpm_table_prefetch(s->table, s->buf + *ahead + FPM_HDR_LEN, (size_t)flen - FPM_HDR_LEN);
	*ahead += (size_t)flen;
	return true;
}

/*
 * Frame and apply what the buffer holds, until the slice's deadline: 1 when
 * every complete frame was applied, 0 when the deadline stopped it with
 * frames left, -1 when the stream is broken (the session is closed).
 */
static int stream_process(struct fpm_server *s, uint64_t deadline_us)
{
	size_t off = 0, ahead = 0;
	unsigned n = 0;
	long flen;
	int more = 1;

	/* The table slots of frame i + FPM_PREFETCH_AHEAD load while frame i is applied. */
	for (unsigned i = 0; i < FPM_PREFETCH_AHEAD && stream_prefetch_next(s, &ahead); i++)
		;
	while ((flen = fpm_frame_check(s->buf + off, s->len - off)) > 0) {
		if (++n % FPM_SLICE_CHECK == 0 && mono_us() >= deadline_us) {
			more = 0;
			break;
		}
		stream_prefetch_next(s, &ahead);
		const uint8_t *payload = s->buf + off + FPM_HDR_LEN;
		size_t plen = (size_t)flen - FPM_HDR_LEN;
		if ((uintptr_t)payload & 3) {
			memcpy(s->scratch, payload, plen);
			payload = s->scratch;
		}
		fpm_table_frame(s->table, payload, plen);
		s->frames++;
		off += (size_t)flen;
	}
	if (off) {
		memmove(s->buf, s->buf + off, s->len - off);
		s->len -= off;
	}
	if (flen < 0) {
		/* The header is all that delimits frames: after a bad one the stream is lost. */
		char why[96];
		s->hdr_errors[-flen]++;
		snprintf(why, sizeof(why), "invalid FPM header (%s, bytes %02x %02x %02x %02x)",
		         fpm_err_name[-flen], s->buf[0], s->buf[1], s->buf[2], s->buf[3]);
		session_close(s, true, why);
		return -1;
	}
	return more;
}

/*
 * Publish the FIB6 batch. It fails only when the FIB6's arrays are full of
 * what the workers may still read: the control loop reclaims after a grace
 * period (control_reclaim), so try again shortly.
 */
static void fpm_batch_close(struct fpm_server *s)
{
	struct timeval tv = {.tv_sec = 0, .tv_usec = 10000};
	int err = fpm_table_batch_end(s->table);

	if (!err)
		return;
	if (log_limit_pass(&s->batch_log, mono_ms() / 1000, "fpm: FIB6 batch retries"))
		log_warnx("fpm: IPv6 routes not published yet: FIB6 batch: %s; retrying after "
		          "a reclaim", strerror(-err));
	event_add(s->batch_ev, &tv);
}

static void fpm_batch_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	fpm_batch_close(arg);
}

/*
 * One slice of the session's work: the frames a slice before left, then
 * reads, each applied as it comes, until FPM_READ_BUDGET bytes or
 * FPM_SLICE_US. Then the loop runs its other events (timers, management,
 * the watchdog): frames left in the buffer resume from a zero timer, bytes
 * left in the socket from the socket's readiness.
 */
static void fpm_read_some(struct fpm_server *s)
{
	static const struct timeval now = {0, 0};
	uint64_t deadline = mono_us() + FPM_SLICE_US;
	size_t budget = FPM_READ_BUDGET;
	int r = s->len ? stream_process(s, deadline) : 1;

	while (r > 0 && budget > 0 && mono_us() < deadline) {
		size_t room = FPM_BUF_SIZE - s->len;
		ssize_t n = read(s->fd, s->buf + s->len, room < budget ? room : budget);
		if (n == 0) {
			session_close(s, false, "zebra closed the connection");
			return;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				session_close(s, true, strerror(errno));
			return;
		}
		s->len += (size_t)n;
		s->bytes += (uint64_t)n;
		budget = (size_t)n >= budget ? 0 : budget - (size_t)n;
		r = stream_process(s, deadline);
	}
	if (r == 0)
		evtimer_add(s->resume_ev, &now);
}

static void fpm_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fpm_server *s = arg;

	if (s->fd < 0)
		return; /* the resume timer of a session that has ended */
	fpm_table_batch_begin(s->table);
	fpm_read_some(s);
	fpm_batch_close(s);
}

/*
 * While syncing: settled once no route of an earlier session has been
 * re-announced for settle-time. Then sweep in chunks, one per loop turn.
 */
static void fpm_settle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fpm_server *s = arg;
	uint64_t now = mono_ms();

	if (s->state == FPM_SYNCING) {
		uint64_t rc = fpm_table_reconfirmed(s->table);
		if (rc != s->last_reconfirmed) {
			s->last_reconfirmed = rc;
			s->quiet_since_ms = now;
		}
		if (now - s->quiet_since_ms < (uint64_t)s->cfg.settle_s * 1000) {
			settle_arm(s, FPM_SETTLE_TICK);
			return;
		}
		s->state = FPM_SWEEPING;
	}
	fpm_table_batch_begin(s->table);
	bool done = fpm_table_sweep(s->table, FPM_SWEEP_CHUNK);
	fpm_batch_close(s);
	if (!done) {
		settle_arm(s, 0);
		return;
	}
	struct fpm_table_counters c;
	fpm_table_get_counters(s->table, &c);
	s->last_settle_ms = (int64_t)(now - s->connect_ms);
	s->settled_rt_ms = realtime_ms();
	log_info("fpm: session %u settled %.1f s after connect: %lu IPv4 routes (%lu in the RIB), "
	         "%lu IPv6 (%lu in the RIB6); %lu IPv4 and %lu IPv6 stale routes swept so far",
	         s->session, (double)s->last_settle_ms / 1000, c.routes4, c.routes4_rib, c.routes6,
	         c.routes6_rib, c.routes_swept, c.ipv6_swept);
	s->state = s->fd >= 0 ? FPM_ESTABLISHED : FPM_LISTENING;
}

/*
 * A connection that may not become the session is closed at once. The
 * session is one TCP connection with no authentication of its own, and a
 * new connection used to replace it: any process that reached the port
 * could push zebra off and own the FIB. Now the live session stays, and
 * zebra (which retries every few seconds) gets in again once its old
 * connection is closed or found dead by keepalive (fpm_peer.c).
 */
static bool accept_refused(struct fpm_server *s, int fd, const struct sockaddr_storage *ss,
                           const char *peer)
{
	const char *why = NULL;

	if (!fpm_peer_allowed(&s->cfg, ss)) {
		s->refused_peer++;
		why = "not an allowed-peer";
	} else if (s->fd >= 0) {
		s->refused_busy++;
		why = "a session is alive";
	}
	if (!why)
		return false;
	if (log_limit_pass(&s->refuse_log, mono_ms() / 1000, "fpm: refused connections"))
		log_warnx("fpm: connection from %s refused: %s (session %u with %s)", peer, why,
		          s->session, s->fd >= 0 ? s->peer : "none");
	close(fd);
	return true;
}

static void fpm_accept_cb(evutil_socket_t lfd, short what, void *arg)
{
	struct fpm_server *s = arg;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char peer[sizeof(s->peer)];
	int rcvbuf = FPM_RCVBUF;

	int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e != EAGAIN && e != EWOULDBLOCK && e != EINTR &&
		    log_limit_pass(&s->accept_log, mono_ms() / 1000, "fpm: accept errors")) {
			errno = e; /* the count line before it may have changed it */
			log_warn("fpm: accept on %s", s->listen_str);
		}
		return;
	}
	fpm_addr_str(&ss, peer, sizeof(peer));
	if (accept_refused(s, fd, &ss, peer))
		return;
	if (s->state == FPM_SWEEPING)
		while (!fpm_table_sweep(s->table, ~0u)) /* settled before: finish that first */
			;
	if (fpm_table_session_start(s->table) != 0) {
		log_warnx("fpm: connection from %s refused: out of memory for the resync", peer);
		close(fd);
		return;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)); /* best effort */
	fpm_peer_keepalive(fd, s->cfg.dead_s);
	s->rev = event_new(s->base, fd, EV_READ | EV_PERSIST, fpm_read_cb, s);
	if (!s->rev || event_add(s->rev, NULL) != 0) {
		log_warnx("fpm: connection from %s refused: cannot watch the socket", peer);
		if (s->rev)
			event_free(s->rev);
		s->rev = NULL;
		close(fd);
		return;
	}
	s->fd = fd;
	snprintf(s->peer, sizeof(s->peer), "%s", peer);
	s->session++;
	s->connects++;
	s->change_rt_ms = realtime_ms();
	s->state = FPM_SYNCING;
	s->connect_ms = s->quiet_since_ms = mono_ms();
	s->last_reconfirmed = fpm_table_reconfirmed(s->table);
	settle_arm(s, FPM_SETTLE_TICK);
	log_info("fpm: session %u: zebra connected from %s; earlier routes stay until its replay "
	         "settles (%u s without a re-announcement)",
	         s->session, s->peer, s->cfg.settle_s);
}

static int listen_socket(struct fpm_server *s)
{
	struct sockaddr_storage ss = {0};
	socklen_t sl;
	int one = 1;

	if (inet_pton(AF_INET, s->cfg.address, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(s->cfg.port);
		sl = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, s->cfg.address, &((struct sockaddr_in6 *)&ss)->sin6_addr) ==
	           1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(s->cfg.port);
		sl = sizeof(struct sockaddr_in6);
	} else {
		log_warnx("fpm: listen address '%s' is not a numeric IPv4 or IPv6 address",
		          s->cfg.address);
		return -EINVAL;
	}
	fpm_addr_str(&ss, s->listen_str, sizeof(s->listen_str));
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 4) != 0) {
		int err = errno;
		log_warnx("fpm: cannot listen on %s for zebra: %s%s", s->listen_str, strerror(err),
		          err == EADDRINUSE ? " (another cellgated, or zebra_fpm's own server?)"
		          : err == EADDRNOTAVAIL ? " (no such address in this network namespace)"
		                                 : "");
		if (fd >= 0)
			close(fd);
		return -err;
	}
	s->lfd = fd;
	return 0;
}

struct fpm_server *fpm_server_new(struct event_base *base, const struct cfg_fpm *cfg,
                                  struct rib *rib, struct rib6 *rib6, const struct dataplane *dp)
{
	struct fpm_server *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->base = base;
	s->cfg = *cfg;
	s->lfd = s->fd = -1;
	s->last_settle_ms = -1;
	s->state = FPM_DISABLED;
	if (!cfg->enabled)
		return s;
	s->buf = malloc(FPM_BUF_SIZE);
	s->scratch = malloc(FPM_FRAME_MAX);
	s->table = fpm_table_new(rib, dp);
	s->settle_ev = evtimer_new(base, fpm_settle_cb, s);
	s->batch_ev = evtimer_new(base, fpm_batch_retry_cb, s);
	s->resume_ev = evtimer_new(base, fpm_read_cb, s);
	if (!s->buf || !s->scratch || !s->table || !s->settle_ev || !s->batch_ev ||
	    !s->resume_ev) {
		log_warnx("fpm: out of memory starting the server");
		goto fail;
	}
	if (listen_socket(s) != 0)
		goto fail;
	s->lev = event_new(base, s->lfd, EV_READ | EV_PERSIST, fpm_accept_cb, s);
	if (!s->lev || event_add(s->lev, NULL) != 0) {
		log_warnx("fpm: cannot watch the listener on %s", s->listen_str);
		goto fail;
	}
	fpm_table_set_limits(s->table, cfg->limit4, cfg->limit6, cfg->warn_pct);
	fpm_table_set_rib6(s->table, rib6);
	s->state = FPM_LISTENING;
	log_info("fpm: listening on %s for zebra (dplane_fpm_nl)", s->listen_str);
	fpm_peer_log_policy(s);
	return s;
fail:
	fpm_server_free(s);
	return NULL;
}

void fpm_server_free(struct fpm_server *s)
{
	if (!s)
		return;
	if (s->rev)
		event_free(s->rev);
	if (s->fd >= 0)
		close(s->fd);
	if (s->lev)
		event_free(s->lev);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->settle_ev)
		event_free(s->settle_ev);
	if (s->batch_ev)
		event_free(s->batch_ev);
	if (s->resume_ev)
		event_free(s->resume_ev);
	fpm_table_free(s->table);
	free(s->buf);
	free(s->scratch);
	free(s);
}

