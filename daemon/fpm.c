/*
 * FPM server: listener, session, stream framing and the settle timer (see
 * fpm.h). Decoding and the route state are fpm_nl.c and fpm_table.c.
 */
#include "cellgate-build.h" /* _GNU_SOURCE: accept4 */

#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "daemon/fpm.h"
#include "daemon/fpm_table.h"

#define FPM_BUF_SIZE       (1u << 20) /* stream buffer; always room for one whole frame */
#define FPM_READ_BUDGET    (256u << 10) /* bytes read and applied per callback: ~4k routes */
#define FPM_RCVBUF         (4 << 20)  /* let zebra's replay run ahead of us without stalling it */
#define FPM_SWEEP_CHUNK    8192u      /* stale routes removed per loop turn: <= ~16 ms measured */
#define FPM_SETTLE_TICK    100        /* ms between settle checks */
#define FPM_PREFETCH_AHEAD 8          /* frames; a route costs ~1 us, a cache miss ~0.1-0.3 us */

enum fpm_state { FPM_DISABLED, FPM_LISTENING, FPM_SYNCING, FPM_SWEEPING, FPM_ESTABLISHED };

static const char *const fpm_state_name[] = {
    [FPM_DISABLED] = "disabled", [FPM_LISTENING] = "listening",     [FPM_SYNCING] = "syncing",
    [FPM_SWEEPING] = "sweeping", [FPM_ESTABLISHED] = "established",
};

struct fpm_server {
	struct event_base *base;
	struct cfg_fpm cfg;
	char listen_str[INET6_ADDRSTRLEN + 8];
	enum fpm_state state;
	int lfd, fd;
	struct event *lev, *rev, *settle_ev;
	struct fpm_table *table;

	uint8_t *buf; /* stream bytes not yet framed; malloc'd, so 4-byte aligned */
	size_t len;
	uint8_t *scratch; /* a misaligned frame's copy (netlink needs 4-byte alignment) */

	char peer[INET6_ADDRSTRLEN + 8];
	uint32_t session;
	uint64_t connects, disconnects, bytes, frames;
	uint64_t change_rt_ms; /* CLOCK_REALTIME of the last connect or disconnect */
	uint64_t hdr_errors[FPM_E__MAX];
	uint64_t connect_ms, quiet_since_ms, last_reconfirmed;
	int64_t last_settle_ms; /* connect to settled, last session; -1 = none yet */
	/* accept() failing for want of descriptors (EMFILE) fails again on every
	 * loop while the connection waits: a few lines, then a count. */
	struct log_limit accept_log;
};

static void addr_str(const struct sockaddr_storage *ss, char *buf, size_t sz)
{
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		port = ntohs(s4->sin_port);
		snprintf(buf, sz, "%s:%u", a, port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		port = ntohs(s6->sin6_port);
		snprintf(buf, sz, "[%s]:%u", a, port);
	}
}

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

/* Frame and apply what the buffer holds; false when the stream is broken. */
static bool stream_process(struct fpm_server *s)
{
	size_t off = 0, ahead = 0;
	long flen;

	/* The table slots of frame i + FPM_PREFETCH_AHEAD load while frame i is applied. */
	for (unsigned i = 0; i < FPM_PREFETCH_AHEAD && stream_prefetch_next(s, &ahead); i++)
		;
	while ((flen = fpm_frame_check(s->buf + off, s->len - off)) > 0) {
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
		return false;
	}
	return true;
}

static void fpm_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fpm_server *s = arg;
	size_t budget = FPM_READ_BUDGET;

	while (budget > 0) {
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
		if (!stream_process(s))
			return;
	}
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
	if (!fpm_table_sweep(s->table, FPM_SWEEP_CHUNK)) {
		settle_arm(s, 0);
		return;
	}
	struct fpm_table_counters c;
	fpm_table_get_counters(s->table, &c);
	s->last_settle_ms = (int64_t)(now - s->connect_ms);
	log_info("fpm: session %u settled %.1f s after connect: %lu IPv4 routes (%lu in the RIB), "
	         "%lu IPv6; %lu IPv4 and %lu IPv6 stale routes swept so far",
	         s->session, (double)s->last_settle_ms / 1000, c.routes4, c.routes4_rib, c.routes6,
	         c.routes_swept, c.ipv6_swept);
	s->state = s->fd >= 0 ? FPM_ESTABLISHED : FPM_LISTENING;
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
	addr_str(&ss, peer, sizeof(peer));
	/* zebra runs one FPM client: a new connection means the old one is dead (restart). */
	if (s->fd >= 0)
		session_close(s, false, "zebra connected again (restarted?)");
	if (s->state == FPM_SWEEPING)
		while (!fpm_table_sweep(s->table, ~0u)) /* settled before: finish that first */
			;
	if (fpm_table_session_start(s->table) != 0) {
		log_warnx("fpm: connection from %s refused: out of memory for the resync", peer);
		close(fd);
		return;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)); /* best effort */
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
	addr_str(&ss, s->listen_str, sizeof(s->listen_str));
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
                                  struct rib *rib, const struct dataplane *dp)
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
	if (!s->buf || !s->scratch || !s->table || !s->settle_ev) {
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
	s->state = FPM_LISTENING;
	log_info("fpm: listening on %s for zebra (dplane_fpm_nl)", s->listen_str);
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
	fpm_table_free(s->table);
	free(s->buf);
	free(s->scratch);
	free(s);
}

static void json_counts(FILE *out, const char *const *names, const uint64_t *v, unsigned n,
                        unsigned from)
{
	fputc('{', out);
	for (unsigned i = from; i < n; i++)
		fprintf(out, "%s\"%s\":%lu", i > from ? "," : "", names[i], v[i]);
	fputc('}', out);
}

void fpm_server_stats_json(const struct fpm_server *s, FILE *out)
{
	struct fpm_table_counters c = {0};
	uint64_t errors[FPM_E__MAX];

	if (s->table)
		fpm_table_get_counters(s->table, &c);
	for (unsigned i = 0; i < FPM_E__MAX; i++)
		errors[i] = c.errors[i] + s->hdr_errors[i];
	fprintf(out,
	        "{\"state\":\"%s\",\"listen\":\"%s\",\"connected\":%s,\"peer\":\"%s\","
	        "\"session\":%u,\"connects\":%lu,\"disconnects\":%lu,\"bytes\":%lu,\"frames\":%lu,"
	        "\"settle-time\":%u,\"last-settle-ms\":%ld,\"stale\":%lu,\"messages\":",
	        fpm_state_name[s->state], s->listen_str, s->fd >= 0 ? "true" : "false",
	        s->fd >= 0 ? s->peer : "", s->session, s->connects, s->disconnects, s->bytes,
	        s->frames, s->cfg.settle_s, s->last_settle_ms, c.stale);
	json_counts(out, fpm_msg_name, c.msgs, FPM_MSG__MAX, 0);
	fprintf(out,
	        ",\"routes\":{\"ipv4\":%lu,\"ipv4-installed\":%lu,\"ipv4-pending\":%lu,"
	        "\"ipv4-rejected\":%lu,"
	        "\"ipv6\":%lu,\"added\":%lu,\"replaced\":%lu,\"reconfirmed\":%lu,\"deleted\":%lu,"
	        "\"delete-unknown\":%lu,\"swept\":%lu,\"ipv6-added\":%lu,\"ipv6-deleted\":%lu,"
	        "\"ipv6-reconfirmed\":%lu,\"ipv6-swept\":%lu,\"other-family\":%lu,"
	        "\"paths-truncated\":%lu},\"rejected\":",
	        c.routes4, c.routes4_rib, c.routes4_pending, c.routes4_rejected, c.routes6,
	        c.routes_added, c.routes_replaced, c.routes_reconfirmed, c.routes_deleted,
	        c.routes_del_unknown, c.routes_swept, c.ipv6_added, c.ipv6_deleted,
	        c.ipv6_reconfirmed, c.ipv6_swept, c.ignored_family, c.paths_truncated);
	json_counts(out, fpm_reject_name, c.rejected, FPM_REJ__MAX, 0);
	fprintf(out,
	        ",\"nexthop-objects\":{\"current\":%lu,\"added\":%lu,\"replaced\":%lu,"
	        "\"deleted\":%lu,\"delete-unknown\":%lu,\"deleted-in-use\":%lu},\"errors\":",
	        c.nhobjs, c.nh_added, c.nh_replaced, c.nh_deleted, c.nh_del_unknown,
	        c.nh_deleted_in_use);
	json_counts(out, fpm_err_name, errors, FPM_E__MAX, 1);
	fputc('}', out);
}

void fpm_server_view(const struct fpm_server *s, struct fpm_server_view *out)
{
	struct fpm_table_counters c = {0};

	*out = (struct fpm_server_view){0};
	if (!s)
		return;
	if (s->table)
		fpm_table_get_counters(s->table, &c);
	out->enabled = s->state != FPM_DISABLED;
	out->connected = s->fd >= 0;
	if (out->connected)
		snprintf(out->peer, sizeof(out->peer), "%s", s->peer);
	out->last_change_ms = s->change_rt_ms;
	out->connects = s->connects;
	out->disconnects = s->disconnects;
	out->frames = s->frames;
	out->routes_installed = c.routes_added + c.routes_replaced;
	out->routes_withdrawn = c.routes_deleted + c.routes_swept;
	for (unsigned i = 0; i < FPM_E__MAX; i++)
		out->errors += c.errors[i] + s->hdr_errors[i];
}
