/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FPM ingest benchmark: plays zebra to a running cellgated. Builds an FPM
 * stream of real-shaped IPv4 routes (one prefix per line, as fib-bench.sh
 * extracts them from the libloc database), sends it over TCP as fast as the
 * socket takes it, and times until cellgated's stats.json shows every route
 * installed. Then reconnects and sends the same stream again: the replay a
 * zebra reconnect causes, where every route is re-announced unchanged.
 * With -6, the IPv6 table too, side by side: after the IPv4 load, on the
 * same session, every IPv6 net, timed the same way; the replay re-announces
 * both.
 *
 *   fpm_bench -f PREFIXES -p CELLGATED_PID -s STATS_JSON -o OIF,OIF [-g] [-n MAX]
 *             [-6 PREFIXES6] [-a ADDRESS] [-P PORT] [-m load|replay] [-i POLL_MS]
 *             [-k SECONDS]
 *
 *   -g   next-hop-group mode: 2 gateway objects and an ECMP group, routes name
 *        one of the three by RTA_NH_ID (zebra's default); without -g every
 *        route carries RTA_GATEWAY + RTA_OIF, one in 16 an RTA_MULTIPATH of both
 *   -o   ifindexes of the two ports the gateways 10.0.2.2 and 10.0.3.2 are on
 *        (and 2001:db8:2::2 and 2001:db8:3::2 for IPv6)
 *   -6   IPv6 nets, one a line ("2001:db8::/32"), sent after the IPv4 ones
 *   -m   only the load (a first session: wait until every route is installed)
 *        or only the replay (a new session re-announcing a table cellgated
 *        has already: wait until every route is reconfirmed); default both
 *   -i   how often to ask for stats.json while waiting (default 5 ms; each is
 *        a SIGUSR1 and an fsync'd file in cellgated's control loop)
 *   -k   keep the last session open this long before closing it (a session
 *        that ends before it settles sweeps nothing)
 *
 * Run it inside cellgated's network namespace (fpm-bench.sh does all this).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/fpm_build.h"
#include "lib/clock.h"

#define GW_A 0x0a000202u /* 10.0.2.2 */
#define GW_B 0x0a000302u /* 10.0.3.2 */
static const uint8_t gw6[2][16] = {{0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 2},
                                   {0x20, 0x01, 0x0d, 0xb8, 0, 3, [15] = 2}};

struct opts {
	const char *prefixes, *prefixes6, *stats, *addr;
	pid_t pid;
	unsigned port, max;
	uint32_t oif[2];
	int groups;
	const char *mode; /* NULL = load then replay */
	unsigned poll_ms, keep_s;
};

static void die(const char *what)
{
	fprintf(stderr, "fpm_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Frames for every prefix of the file; returns the number of routes. */
static size_t stream_build(const struct opts *o, struct fpm_buf *b)
{
	FILE *f = fopen(o->prefixes, "r");
	unsigned a, bb, c, d, len;
	size_t n = 0;
	char line[128];

	if (!f)
		die(o->prefixes);
	if (o->groups) {
		uint32_t ids[2] = {1, 2};
		fb_frame_begin(b);
		fb_msg_end(b, fb_nexthop(b, RTM_NEWNEXTHOP, 1, GW_A, o->oif[0], 0));
		fb_frame_end(b);
		fb_frame_begin(b);
		fb_msg_end(b, fb_nexthop(b, RTM_NEWNEXTHOP, 2, GW_B, o->oif[1], 0));
		fb_frame_end(b);
		fb_frame_begin(b);
		fb_msg_end(b, fb_group(b, 3, 2, ids, NULL));
		fb_frame_end(b);
	}
	while (fgets(line, sizeof(line), f) && (!o->max || n < o->max)) {
		if (sscanf(line, "%u.%u.%u.%u/%u", &a, &bb, &c, &d, &len) != 5 || len > 32)
			continue;
		uint32_t mask = len ? ~0u << (32 - len) : 0;
		uint32_t p = (a << 24 | bb << 16 | c << 8 | d) & mask;
		/* One frame per route, as dplane_fpm_nl sends them. */
		fb_frame_begin(b);
		struct nlmsghdr *m = fb_route(b, RTM_NEWROUTE, p, (uint8_t)len, RTN_UNICAST);
		if (o->groups) {
			mnl_attr_put_u32(m, RTA_NH_ID, 1 + n % 3);
		} else if (n % 16 == 15) {
			uint32_t gws[2] = {GW_A, GW_B};
			fb_multipath(m, 2, gws, o->oif, NULL);
		} else {
			fb_gw(m, n & 1 ? GW_B : GW_A, o->oif[n & 1]);
		}
		fb_msg_end(b, m);
		fb_frame_end(b);
		n++;
	}
	fclose(f);
	return n;
}

/* One IPv6 route as zebra sends it in either mode (objects 11, 12, group 13). */
static void route6_frame(const struct opts *o, struct fpm_buf *b, const uint8_t *p, uint8_t len,
                         size_t n)
{
	fb_frame_begin(b);
	struct nlmsghdr *m = fb_route6(b, RTM_NEWROUTE, p, len, RTN_UNICAST);
	if (o->groups) {
		mnl_attr_put_u32(m, RTA_NH_ID, 11 + n % 3);
	} else if (n % 16 == 15) {
		fb_multipath6(m, 2, gw6, o->oif, NULL);
	} else {
		fb_gw6(m, gw6[n & 1], o->oif[n & 1]);
	}
	fb_msg_end(b, m);
	fb_frame_end(b);
}

/* Frames for every IPv6 net of the file; returns the number of routes. */
static size_t stream_build6(const struct opts *o, struct fpm_buf *b)
{
	FILE *f = fopen(o->prefixes6, "r");
	char line[128], *slash;
	uint8_t p[16];
	size_t n = 0;

	if (!f)
		die(o->prefixes6);
	if (o->groups) {
		uint32_t ids[2] = {11, 12};
		fb_frame_begin(b);
		fb_msg_end(b, fb_nexthop6(b, 11, gw6[0], o->oif[0]));
		fb_msg_end(b, fb_nexthop6(b, 12, gw6[1], o->oif[1]));
		fb_msg_end(b, fb_group(b, 13, 2, ids, NULL));
		fb_frame_end(b);
	}
	while (fgets(line, sizeof(line), f) && (!o->max || n < o->max)) {
		unsigned len;
		if (!(slash = strchr(line, '/')) || sscanf(slash + 1, "%u", &len) != 1 || len > 128)
			continue;
		*slash = '\0';
		if (inet_pton(AF_INET6, line, p) != 1)
			continue;
		for (unsigned bit = len; bit < 128; bit++)
			p[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
		route6_frame(o, b, p, (uint8_t)len, n);
		n++;
	}
	fclose(f);
	return n;
}

/* A number from stats.json: the first "key": value after the "fpm" object starts. */
static long stats_get(const struct opts *o, const char *key)
{
	char buf[1 << 16], pat[64];
	FILE *f;

	unlink(o->stats);
	if (kill(o->pid, SIGUSR1) != 0)
		die("cellgated pid");
	for (int i = 0; i < 20000; i++) { /* up to 10 s: a busy machine */
		if ((f = fopen(o->stats, "r")) != NULL)
			break;
		usleep(500);
	}
	if (!f)
		die("stats.json");
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *fpm = strstr(buf, "\"fpm\":");
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	const char *v = fpm ? strstr(fpm, pat) : NULL;
	return v ? strtol(v + strlen(pat), NULL, 10) : -1;
}

static int connect_to(const struct opts *o)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(o->port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || inet_pton(AF_INET, o->addr, &sa.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		die("connect to cellgated");
	return fd;
}

static void send_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("write");
		p += w;
		len -= (size_t)w;
	}
}

/* Send the stream on fd; poll until `key` reaches target. Returns seconds from the first byte. */
static double send_wait(const struct opts *o, int fd, const struct fpm_buf *b, const char *key,
                        long target, double *sent_s)
{
	double t0 = mono_s();

	send_all(fd, b->p, b->len);
	*sent_s = mono_s() - t0;
	while (stats_get(o, key) < target)
		usleep(o->poll_ms * 1000);
	return mono_s() - t0;
}

/* Send the stream; poll until `key` reaches target. Returns seconds from connect. */
static double run(const struct opts *o, const struct fpm_buf *b, const char *key, long target,
                  double *sent_s, int *fd)
{
	double t0 = mono_s();

	*fd = connect_to(o);
	send_all(*fd, b->p, b->len);
	*sent_s = mono_s() - t0;
	while (stats_get(o, key) < target)
		usleep(o->poll_ms * 1000);
	return mono_s() - t0;
}

/*
 * Where the control thread's time went: CPU seconds it ran (the main thread:
 * the FPM server runs in its event loop) and seconds it was runnable but
 * waiting for a CPU, from /proc/PID/task/PID/schedstat (nanoseconds; the
 * tick-based utime + stime of stat round to 10 ms). The rest of a phase's
 * wall clock the thread slept: waiting for bytes, or its timers. On a
 * loaded machine routes per CPU-second say what the code costs; the
 * stats.json polls are counted in it too (a dump every poll).
 */
struct ctl_times {
	double run_s, wait_s, self_s; /* self: this process's CPU (sending, polling) */
};

static void ctl_times(pid_t pid, struct ctl_times *ct)
{
	char path[64];
	unsigned long long run = 0, wait = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)pid);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%llu %llu", &run, &wait) != 2)
			run = wait = 0;
		fclose(f);
	}
	ct->run_s = (double)run / 1e9;
	ct->wait_s = (double)wait / 1e9;
	ct->self_s = (double)clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9;
}

static double ctl_cpu_s(pid_t pid)
{
	struct ctl_times ct;

	ctl_times(pid, &ct);
	return ct.run_s;
}

/* One phase's split: control thread ran / waited for a CPU / slept; this process's CPU. */
static void ctl_print(pid_t pid, const struct ctl_times *t0, double wall)
{
	struct ctl_times t1;

	ctl_times(pid, &t1);
	double run = t1.run_s - t0->run_s, wait = t1.wait_s - t0->wait_s;
	printf("  control thread: ran %.3f s, runnable waiting for a CPU %.3f s, slept %.3f s; "
	       "fpm_bench's own CPU %.3f s\n",
	       run, wait, wall - run - wait > 0 ? wall - run - wait : 0, t1.self_s - t0->self_s);
}

static void rss(pid_t pid, long *rss_kb, long *hwm_kb)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");

	*rss_kb = *hwm_kb = -1;
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", rss_kb);
		sscanf(line, "VmHWM: %ld", hwm_kb);
	}
	if (f)
		fclose(f);
}

static int opts_parse(int argc, char **argv, struct opts *o)
{
	int ch;

	while ((ch = getopt(argc, argv, "f:6:p:s:o:gn:a:P:m:i:k:")) != -1) {
		switch (ch) {
		case 'f':
			o->prefixes = optarg;
			break;
		case '6':
			o->prefixes6 = optarg;
			break;
		case 'p':
			o->pid = (pid_t)atoi(optarg);
			break;
		case 's':
			o->stats = optarg;
			break;
		case 'o':
			sscanf(optarg, "%u,%u", &o->oif[0], &o->oif[1]);
			break;
		case 'g':
			o->groups = 1;
			break;
		case 'n':
			o->max = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'a':
			o->addr = optarg;
			break;
		case 'P':
			o->port = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'm':
			o->mode = optarg;
			break;
		case 'i':
			o->poll_ms = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'k':
			o->keep_s = (unsigned)strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: see the comment at the top of fpm_bench.c\n");
			return -1;
		}
	}
	if (!o->prefixes || !o->pid || !o->stats || !o->oif[0] || !o->oif[1]) {
		fprintf(stderr, "fpm_bench: -f, -p, -s and -o are required\n");
		return -1;
	}
	return 0;
}

/* The IPv6 table on the session fd, after the IPv4 one: key reaches base + n. */
static void run6(const struct opts *o, int fd, const struct fpm_buf *b6, size_t n6,
                 const char *what, const char *key, long base)
{
	double sent, t;
	long r, h;

	if (!n6)
		return;
	struct ctl_times ct;
	ctl_times(o->pid, &ct);
	double c0 = ct.run_s;
	t = send_wait(o, fd, b6, key, base + (long)n6, &sent);
	double cpu = ctl_cpu_s(o->pid) - c0;
	rss(o->pid, &r, &h);
	printf("%s IPv6: %zu routes sent in %.3f s, all %s after %.3f s: %.2f M routes/s; "
	       "control thread %.2f CPU-s: %.2f M routes per CPU-second (RSS %ld MiB)\n",
	       what, n6, sent, strcmp(key, "ipv6-installed") ? "re-announced" : "installed", t,
	       n6 / t / 1e6, cpu, cpu > 0 ? n6 / cpu / 1e6 : 0, r / 1024);
	ctl_print(o->pid, &ct, t);
}

int main(int argc, char **argv)
{
	struct opts o = {.addr = "127.0.0.1", .port = 2620, .poll_ms = 5};
	struct fpm_buf b = {0}, b6 = {0};
	int fd, fd2;
	double sent, sent2;
	long r0, h0, r1, h1;

	if (opts_parse(argc, argv, &o) != 0)
		return 2;
	size_t n = stream_build(&o, &b), n6 = o.prefixes6 ? stream_build6(&o, &b6) : 0;
	long base = stats_get(&o, "ipv4-installed"), base6 = stats_get(&o, "ipv6-installed");
	long reconf = stats_get(&o, "reconfirmed"), reconf6 = stats_get(&o, "ipv6-reconfirmed");
	rss(o.pid, &r0, &h0);
	printf("mode %s: %zu IPv4 routes, %.1f MB of FPM frames (%.1f bytes a route)\n",
	       o.groups ? "next-hop groups" : "plain", n, b.len / 1e6, (double)b.len / n);
	if (n6)
		printf("mode %s: %zu IPv6 routes, %.1f MB of FPM frames (%.1f bytes a route)\n",
		       o.groups ? "next-hop groups" : "plain", n6, b6.len / 1e6,
		       (double)b6.len / n6);
	printf("cellgated RSS before: %ld MiB\n", r0 / 1024);
	if (o.mode && !strcmp(o.mode, "replay"))
		goto replay;

	struct ctl_times ct;
	ctl_times(o.pid, &ct);
	double c0 = ct.run_s;
	double t = run(&o, &b, "ipv4-installed", base + (long)n, &sent, &fd);
	double cpu = ctl_cpu_s(o.pid) - c0;
	rss(o.pid, &r1, &h1);
	printf("load IPv4: sent in %.3f s, all installed after %.3f s: %.2f M routes/s; "
	       "control thread %.2f CPU-s: %.2f M routes per CPU-second\n",
	       sent, t, n / t / 1e6, cpu, cpu > 0 ? n / cpu / 1e6 : 0);
	ctl_print(o.pid, &ct, t);
	printf("cellgated RSS after load: %ld MiB (peak %ld MiB), +%ld MiB for the routes\n",
	       r1 / 1024, h1 / 1024, (r1 - r0) / 1024);
	run6(&o, fd, &b6, n6, "load", "ipv6-installed", base6);
	if (o.mode && !strcmp(o.mode, "load")) {
		close(fd);
		free(b.p);
		free(b6.p);
		return 0;
	}
replay:;
	/*
	 * Reconnect (as zebra does after a restart) and replay the same tables.
	 * The first session is closed first: cellgated refuses a second
	 * connection while one is alive (fpm.c, accept_refused).
	 */
	if (!o.mode)
		close(fd);
	ctl_times(o.pid, &ct);
	double c2 = ct.run_s;
	double t2 = run(&o, &b, "reconfirmed", reconf + (long)n, &sent2, &fd2);
	double cpu2 = ctl_cpu_s(o.pid) - c2;
	printf("replay IPv4: sent in %.3f s, all re-announced after %.3f s: %.2f M routes/s; "
	       "control thread %.2f CPU-s: %.2f M routes per CPU-second\n",
	       sent2, t2, n / t2 / 1e6, cpu2, cpu2 > 0 ? n / cpu2 / 1e6 : 0);
	ctl_print(o.pid, &ct, t2);
	run6(&o, fd2, &b6, n6, "replay", "ipv6-reconfirmed", reconf6);
	sleep(o.keep_s);
	close(fd2);
	free(b.p);
	free(b6.p);
	return 0;
}
