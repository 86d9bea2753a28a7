/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * show commands: tables an operator reads at a glance, in the order the
 * daemon lists things (ports in configuration order, VCs by port and
 * VPI/VCI), routes and neighbours sorted by address.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/cli/cli.h"

#define STATE "/cellgate:cellgate/state"

unsigned cli_children(const struct lyd_node *tree, const char *xpath, const char *name,
                      const struct lyd_node ***out)
{
	struct lyd_node *parent = NULL, *n;
	unsigned cnt = 0, cap = 0;

	*out = NULL;
	if (!tree || lyd_find_path(tree, xpath, 0, &parent) != LY_SUCCESS)
		return 0;
	LY_LIST_FOR(lyd_child(parent), n)
	{
		if (strcmp(n->schema->name, name))
			continue;
		if (cnt == cap) {
			const struct lyd_node **g =
			    realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof(*g));
			if (!g)
				break;
			*out = g;
		}
		(*out)[cnt++] = n;
	}
	return cnt;
}

static uint64_t prefix_key(const char *p)
{
	char ip[INET_ADDRSTRLEN];
	struct in_addr a = {0};
	size_t n = strcspn(p, "/");

	snprintf(ip, sizeof(ip), "%.*s", (int)(n < sizeof(ip) ? n : 0), p);
	inet_pton(AF_INET, ip, &a);
	return (uint64_t)ntohl(a.s_addr) << 8 | strtoul(p + n + (p[n] ? 1 : 0), NULL, 10);
}

static int neigh_cmp(const void *a, const void *b)
{
	const struct lyd_node *x = *(const struct lyd_node **)a, *y = *(const struct lyd_node **)b;
	int c = strcmp(cli_val(x, "interface"), cli_val(y, "interface"));
	uint64_t p = prefix_key(cli_val(x, "address")), q = prefix_key(cli_val(y, "address"));

	return c ? c : (p < q ? -1 : p > q);
}

static int show_ports(struct cli *c)
{
	struct lyd_node *t;
	const struct lyd_node **p;
	unsigned n;

	if (cli_get_list(c, STATE "/port", STATE, &t, true))
		return 1;
	if (c->json)
		return 0;
	n = cli_children(t, STATE, "port", &p);
	printf("%-12s %-12s %-12s %5s %12s %12s %12s %12s %10s\n", "Port", "Kind", "Netdev", "MTU",
	       "Rx-packets", "Tx-packets", "Forwarded", "To-kernel", "Drops");
	for (unsigned i = 0; i < n; i++)
		printf("%-12s %-12s %-12s %5s %12llu %12llu %12llu %12llu %10llu\n",
		       cli_val(p[i], "name"), cli_val(p[i], "kind"), cli_val(p[i], "netdev"),
		       cli_val(p[i], "mtu"), cli_u64(p[i], "rx-packets"),
		       cli_u64(p[i], "tx-packets"), cli_u64(p[i], "forwarded"),
		       cli_u64(p[i], "to-kernel"), cli_u64(p[i], "drops-total"));
	free(p);
	lyd_free_all(t);
	return 0;
}

/* Addresses of a port or subinterface config node as "a/l, b/l" or "unnumbered". */
static void addresses(const struct lyd_node *n, char *buf, size_t len)
{
	const struct lyd_node **a;
	unsigned cnt;
	size_t o = 0;
	char xp[128];

	lyd_path(n, LYD_PATH_STD, xp, sizeof(xp) - 8);
	strcat(xp, "/ipv4");
	cnt = cli_children(n, xp, "address", &a);
	buf[0] = '\0';
	for (unsigned i = 0; i < cnt && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s/%s", i ? ", " : "",
		                      cli_val(a[i], "ip"), cli_val(a[i], "prefix-length"));
	if (!cnt)
		snprintf(buf, len, "-");
	free(a);
}

static void interface_row(const struct lyd_node *cfg, const struct lyd_node *st, const char *on)
{
	char addrs[512];

	addresses(cfg, addrs, sizeof(addrs));
	printf("%-12s %-12s %-10s %8s %5s  %s\n", cli_val(cfg, "name"), on,
	       st ? cli_val(st, "netdev") : "-", st ? cli_val(st, "ifindex") : "-",
	       st ? cli_val(st, "mtu") : "-", addrs);
}

static int show_interfaces(struct cli *c)
{
	struct lyd_node *cfg = NULL, *st = NULL;
	const struct lyd_node **p, **s;
	unsigned n;
	char xp[256];

	if (cli_get_list(c, "/cellgate:cellgate/port", "/cellgate:cellgate", &cfg, true) ||
	    cli_get_list(c, STATE "/port", STATE, &st, true) || c->json) {
		int failed = !c->json || (!cfg && !st) ? 1 : 0;
		lyd_free_all(cfg);
		lyd_free_all(st);
		return c->json ? 0 : failed;
	}
	printf("%-12s %-12s %-10s %8s %5s  %s\n", "Interface", "On", "Netdev", "Ifindex", "MTU",
	       "IPv4");
	n = cli_children(cfg, "/cellgate:cellgate", "port", &p);
	for (unsigned i = 0; i < n; i++) {
		struct lyd_node *sp = NULL;
		snprintf(xp, sizeof(xp), STATE "/port[name='%s']", cli_val(p[i], "name"));
		lyd_find_path(st, xp, 0, &sp);
		interface_row(p[i], sp, cli_val(p[i], "driver"));
		char sx[256];
		snprintf(sx, sizeof(sx), "/cellgate:cellgate/port[name='%s']",
		         cli_val(p[i], "name"));
		unsigned ns = cli_children(cfg, sx, "subinterface", &s);
		for (unsigned j = 0; j < ns; j++) {
			struct lyd_node *ss = NULL;
			snprintf(xp, sizeof(xp), STATE "/port[name='%s']", cli_val(s[j], "name"));
			lyd_find_path(st, xp, 0, &ss);
			interface_row(s[j], ss, cli_val(p[i], "name"));
		}
		free(s);
	}
	free(p);
	lyd_free_all(cfg);
	lyd_free_all(st);
	return 0;
}

/* The VC's static IPv6 map (ipv6-peer-address), on one line. */
static void vc_peers6(const struct lyd_node *v)
{
	const struct lyd_node *n;
	bool any = false;

	LY_LIST_FOR(lyd_child(v), n)
	{
		if (strcmp(n->schema->name, "ipv6-peer-address"))
			continue;
		printf("%s%s", any ? ", " : "  IPv6 peers (static map) ", lyd_get_value(n));
		any = true;
	}
	if (any)
		putchar('\n');
}

static void vc_detail(const struct lyd_node *v, const struct lyd_node *pc)
{
	static const char *const counters[] = {"cells-in",       "cells-out",
	                                       "clp0-cells-in",  "clp0-cells-out",
	                                       "pdus-in",        "pdus-out",
	                                       "octets-in",      "octets-out",
	                                       "oam-in",         "oam-out",
	                                       "loopbacks-sent", "loopback-replies",
	                                       "loopbacks-lost", "loopbacks-answered",
	                                       "inatmarp-in",    "inatmarp-out",
	                                       "oper-changes",   "discards-total"};
	const struct lyd_node **d;
	char xp[256];
	unsigned n;

	printf("%s %s/%s on %s: %s\n", cli_val(v, "port"), cli_val(v, "vpi"), cli_val(v, "vci"),
	       cli_val(v, "interface"), cli_val(v, "oper-status"));
	printf("  Encapsulation %s, MTU %s, %s", cli_val(pc, "encapsulation"), cli_val(pc, "mtu"),
	       cli_val(pc, "shaping/service-category"));
	if (cli_val(pc, "shaping/pcr")[0])
		printf(" PCR %s cells/s", cli_val(pc, "shaping/pcr"));
	printf(", OAM loopback %s\n",
	       !strcmp(cli_val(pc, "oam/enabled"), "true") ? "enabled" : "disabled");
	if (cli_val(v, "peer-address")[0])
		printf("  Peer %s (%s)\n", cli_val(v, "peer-address"), cli_val(v, "peer-source"));
	vc_peers6(v);
	if (cli_val(v, "last-change")[0])
		printf("  Last change %s\n", cli_val(v, "last-change"));
	if (cli_val(v, "last-loopback-rtt")[0])
		printf("  Last loopback round trip %s us\n", cli_val(v, "last-loopback-rtt"));
	printf("  Counters since %s\n", cli_val(v, "discontinuity-time"));
	for (unsigned i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		printf("    %-20s %llu\n", counters[i], cli_u64(v, counters[i]));
	lyd_path(v, LYD_PATH_STD, xp, sizeof(xp));
	n = cli_children(v, xp, "discard", &d);
	for (unsigned i = 0; i < n; i++)
		if (cli_u64(d[i], "count"))
			printf("    discards %-11s %llu\n", cli_val(d[i], "reason"),
			       cli_u64(d[i], "count"));
	free(d);
}

static int show_vc(struct cli *c, int argc, char **argv)
{
	struct lyd_node *st = NULL, *cfg = NULL;
	const struct lyd_node **v;
	unsigned n, vpi = 0, vci = 0, shown = 0;
	char xp[256];

	if (argc > 1 && !cli_vpi_vci(argv[1], &vpi, &vci))
		return 1;
	if (cli_get_list(c, STATE "/vc", STATE, &st, true) ||
	    cli_get_list(c, "/cellgate:cellgate/port", "/cellgate:cellgate", &cfg, true) ||
	    c->json) {
		lyd_free_all(st);
		lyd_free_all(cfg);
		return c->json ? 0 : 1;
	}
	n = cli_children(st, STATE, "vc", &v);
	if (argc <= 1)
		printf("%-10s %-12s %4s %5s  %-11s %-7s %9s  %-5s %-15s %12s %12s %9s\n", "Port",
		       "Interface", "VPI", "VCI", "Encap", "Service", "PCR", "State", "Peer",
		       "Cells-in", "Cells-out", "Discards");
	for (unsigned i = 0; i < n; i++) {
		struct lyd_node *pc = NULL;
		if (argc > 0 && strcmp(argv[0], cli_val(v[i], "port")))
			continue;
		if (argc > 1 && (cli_u64(v[i], "vpi") != vpi || cli_u64(v[i], "vci") != vci))
			continue;
		snprintf(xp, sizeof(xp),
		         "/cellgate:cellgate/port[name='%s']/subinterface[name='%s']/"
		         "pvc[vpi='%s'][vci='%s']",
		         cli_val(v[i], "port"), cli_val(v[i], "interface"), cli_val(v[i], "vpi"),
		         cli_val(v[i], "vci"));
		lyd_find_path(cfg, xp, 0, &pc);
		shown++;
		if (argc > 1) {
			vc_detail(v[i], pc);
			continue;
		}
		printf("%-10s %-12s %4s %5s  %-11s %-7s %9s  %-5s %-15s %12llu %12llu %9llu\n",
		       cli_val(v[i], "port"), cli_val(v[i], "interface"), cli_val(v[i], "vpi"),
		       cli_val(v[i], "vci"), cli_val(pc, "encapsulation"),
		       cli_val(pc, "shaping/service-category"),
		       cli_val(pc, "shaping/pcr")[0] ? cli_val(pc, "shaping/pcr") : "-",
		       cli_val(v[i], "oper-status"),
		       cli_val(v[i], "peer-address")[0] ? cli_val(v[i], "peer-address") : "-",
		       cli_u64(v[i], "cells-in"), cli_u64(v[i], "cells-out"),
		       cli_u64(v[i], "discards-total"));
	}
	free(v);
	lyd_free_all(st);
	lyd_free_all(cfg);
	if (argc > 0 && !shown) {
		fprintf(stderr, "cellgatectl: no VC %s%s%s\n", argc > 1 ? argv[1] : "",
		        argc > 1 ? " on " : "on ", argv[0]);
		return 1;
	}
	return 0;
}

void cli_nexthops(const struct lyd_node *r, char *buf, size_t len)
{
	const struct lyd_node **h;
	char xp[256];
	unsigned n;
	size_t o = 0;

	lyd_path(r, LYD_PATH_STD, xp, sizeof(xp));
	n = cli_children(r, xp, "nexthop", &h);
	buf[0] = '\0';
	for (unsigned i = 0; i < n && o < len; i++) {
		const char *a = cli_val(h[i], "address");
		o += (size_t)snprintf(buf + o, len - o, "%s%s%s%s", i ? ", " : "", a,
		                      a[0] ? " via " : "", cli_val(h[i], "interface"));
		if (n > 1 && o < len)
			o += (size_t)snprintf(buf + o, len - o, " (weight %s)",
			                      cli_val(h[i], "weight"));
	}
	free(h);
}

#define ROUTE_PAGE 1000 /* routes asked for at a time: each page answers in milliseconds */

struct route_args {
	const char *prefix, *cursor;
	bool longer;
	unsigned long long limit; /* 0 = all */
};

static int route_args(int argc, char **argv, struct route_args *a)
{
	*a = (struct route_args){0};
	for (int i = 0; i < argc; i++) {
		char *end;
		if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
			a->limit = strtoull(argv[++i], &end, 10);
			if (*end || !a->limit)
				return -1;
		} else if (!strcmp(argv[i], "--cursor") && i + 1 < argc) {
			a->cursor = argv[++i];
		} else if (!strcmp(argv[i], "longer") && a->prefix && !a->longer) {
			a->longer = true;
		} else if (!a->prefix && argv[i][0] != '-' && strchr(argv[i], '/')) {
			a->prefix = argv[i];
		} else {
			return -1;
		}
	}
	return 0;
}

/* Print the routes (route6 list: v6) of t (with a header line first); how many. */
static unsigned route_rows(const struct lyd_node *t, bool header, bool v6)
{
	const struct lyd_node **r;
	char nh[1024];
	unsigned n = cli_children(t, STATE "/fib", v6 ? "route6" : "route", &r);
	int w = v6 ? 43 : 18;

	if (header)
		printf("%-*s %-9s %-15s %s\n", w, "Prefix", "Source", "Type", "Next hops");
	for (unsigned i = 0; i < n; i++) {
		cli_nexthops(r[i], nh, sizeof(nh));
		printf("%-*s %-9s %-15s %s\n", w, cli_val(r[i], "prefix"), cli_val(r[i], "source"),
		       cli_val(r[i], "type"), nh[0] ? nh : "-");
	}
	free(r);
	return n;
}

/*
 * The route list in pages of ROUTE_PAGE, each GET resuming at the cursor the
 * previous one returned, printed as it comes: a full table never sits in
 * memory here, and the daemon answers each page in milliseconds.
 */
static int show_route_pages(struct cli *c, const struct route_args *a, bool v6)
{
	char uri[CLI_URI_MAX], pfx[128], cur[128];
	struct cli_page pg = {.remaining = -1};
	unsigned long long shown = 0;
	bool first = true;

	snprintf(pg.next_cursor, sizeof(pg.next_cursor), "%s", a->cursor ? a->cursor : "");
	cli_pct(a->prefix ? a->prefix : "", pfx, sizeof(pfx));
	do {
		unsigned long long want =
		    a->limit && a->limit - shown < ROUTE_PAGE ? a->limit - shown : ROUTE_PAGE;
		struct lyd_node *t;

		cli_pct(pg.next_cursor, cur, sizeof(cur));
		snprintf(uri, sizeof(uri), STATE "/fib/%s?limit=%llu%s%s%s%s%s",
		         v6 ? "route6" : "route", want, a->prefix ? "&prefix=" : "",
		         a->prefix ? pfx : "", a->longer ? "&longer" : "", cur[0] ? "&cursor=" : "",
		         cur);
		if (cli_get_page(c, uri, STATE "/fib", &t, true, &pg))
			return 1;
		shown += c->json ? want : route_rows(t, first, v6);
		lyd_free_all(t);
		first = false;
	} while (pg.next_cursor[0] && (!a->limit || shown < a->limit));
	if (!c->json && pg.next_cursor[0])
		printf("(%lld more; continue with --cursor %s)\n", pg.remaining, pg.next_cursor);
	return 0;
}

/* The IPv6 list has no route6=KEY instance GET of its own: an exact prefix is a page of one. */
int cli_show_routes(struct cli *c, int argc, char **argv, bool v6)
{
	struct lyd_node *t;
	struct route_args a;
	char uri[CLI_URI_MAX], key[256];

	if (route_args(argc, argv, &a) != 0) {
		fprintf(stderr,
		        "usage: cellgatectl show %sroutes [PREFIX [longer]] [--limit N] "
		        "[--cursor PREFIX]\n",
		        v6 ? "ipv6 " : "");
		return 2;
	}
	if (v6 || !a.prefix || a.longer || a.limit || a.cursor)
		return show_route_pages(c, &a, v6);
	/* One prefix, exactly. */
	cli_pct(a.prefix, key, sizeof(key));
	snprintf(uri, sizeof(uri), STATE "/fib/route=%s", key);
	if (cli_get_list(c, uri, STATE "/fib", &t, false))
		return 1;
	if (!c->json)
		(void)route_rows(t, true, false);
	lyd_free_all(t);
	return 0;
}

static int show_neighbors(struct cli *c)
{
	struct lyd_node *t;
	const struct lyd_node **e;
	unsigned n;
	char l2[64];

	if (cli_get_list(c, STATE "/neighbor", STATE, &t, true))
		return 1;
	if (c->json)
		return 0;
	n = cli_children(t, STATE, "neighbor", &e);
	if (n)
		qsort(e, n, sizeof(*e), neigh_cmp); /* e is NULL when there are none */
	printf("%-12s %-15s %-10s %s\n", "Interface", "Address", "State", "MAC or VC");
	for (unsigned i = 0; i < n; i++) {
		if (cli_val(e[i], "vpi")[0])
			snprintf(l2, sizeof(l2), "VC %s/%s", cli_val(e[i], "vpi"),
			         cli_val(e[i], "vci"));
		else
			snprintf(l2, sizeof(l2), "%s",
			         cli_val(e[i], "mac")[0] ? cli_val(e[i], "mac") : "-");
		printf("%-12s %-15s %-10s %s\n", cli_val(e[i], "interface"),
		       cli_val(e[i], "address"), cli_val(e[i], "state"), l2);
	}
	free(e);
	lyd_free_all(t);
	return 0;
}

static int show_fpm(struct cli *c)
{
	struct lyd_node *t, *f = NULL;

	if (cli_get(c, STATE "/fpm", STATE, &t))
		return 1;
	if (c->json)
		return 0;
	lyd_find_path(t, STATE "/fpm", 0, &f);
	printf("FPM session: %s\n", cli_val(f, "state"));
	if (cli_val(f, "peer")[0])
		printf("  Peer:         %s\n", cli_val(f, "peer"));
	if (cli_val(f, "last-change")[0])
		printf("  Last change:  %s\n", cli_val(f, "last-change"));
	printf("  Messages in:  %llu\n  Errors:       %llu\n", cli_u64(f, "messages-in"),
	       cli_u64(f, "errors"));
	/* The replay after a (re)connect: stale routes forward until it settles. */
	if (!strcmp(cli_val(f, "settled"), "true")) {
		printf("  Replay:       settled");
		if (cli_val(f, "last-settle")[0])
			printf(" %s, %.1f s after connect", cli_val(f, "last-settle"),
			       (double)cli_u64(f, "last-settle-duration") / 1000);
		printf("\n");
	} else if (cli_val(f, "settled")[0]) {
		printf("  Replay:       not settled: %llu stale routes still forward\n",
		       cli_u64(f, "stale-routes"));
	}
	if (cli_val(f, "routes-ipv4")[0])
		printf("  Routes:       %llu IPv4, %llu IPv6 (%llu refused by the route limit)\n",
		       cli_u64(f, "routes-ipv4"), cli_u64(f, "routes-ipv6"),
		       cli_u64(f, "routes-refused-limit"));
	if (cli_u64(f, "connections-refused-busy") || cli_u64(f, "connections-refused-peer"))
		printf("  Refused:      %llu while a session was alive, %llu not allowed peers\n",
		       cli_u64(f, "connections-refused-busy"),
		       cli_u64(f, "connections-refused-peer"));
	lyd_free_all(t);
	return 0;
}

static int show_counters(struct cli *c)
{
	struct lyd_node *t;
	const struct lyd_node **p, **d;
	unsigned n;
	char xp[256];

	if (cli_get_list(c, STATE "/port", STATE, &t, true))
		return 1;
	if (c->json)
		return 0;
	n = cli_children(t, STATE, "port", &p);
	for (unsigned i = 0; i < n; i++) {
		printf("%s (since %s)\n", cli_val(p[i], "name"),
		       cli_val(p[i], "discontinuity-time"));
		printf("  rx %llu packets %llu octets, tx %llu packets %llu octets\n",
		       cli_u64(p[i], "rx-packets"), cli_u64(p[i], "rx-octets"),
		       cli_u64(p[i], "tx-packets"), cli_u64(p[i], "tx-octets"));
		printf("  forwarded %llu, to kernel %llu, ICMP sent %llu (rate-limited %llu), "
		       "ring drops %llu\n",
		       cli_u64(p[i], "forwarded"), cli_u64(p[i], "to-kernel"),
		       cli_u64(p[i], "icmp-out"), cli_u64(p[i], "icmp-ratelimited"),
		       cli_u64(p[i], "rx-ring-drops"));
		if (cli_u64(p[i], "ipv6-in-packets") || cli_u64(p[i], "ipv6-out-packets"))
			printf(
			    "  IPv6: in %llu packets %llu octets, forwarded %llu, to kernel %llu, "
			    "dropped %llu, out %llu packets %llu octets\n",
			    cli_u64(p[i], "ipv6-in-packets"), cli_u64(p[i], "ipv6-in-octets"),
			    cli_u64(p[i], "ipv6-forwarded"), cli_u64(p[i], "ipv6-to-kernel"),
			    cli_u64(p[i], "ipv6-discards"), cli_u64(p[i], "ipv6-out-packets"),
			    cli_u64(p[i], "ipv6-out-octets"));
		printf("  drops %llu", cli_u64(p[i], "drops-total"));
		snprintf(xp, sizeof(xp), STATE "/port[name='%s']", cli_val(p[i], "name"));
		unsigned nd = cli_children(t, xp, "drop", &d);
		for (unsigned j = 0; j < nd; j++)
			if (cli_u64(d[j], "packets"))
				printf(", %s %llu", cli_val(d[j], "reason"),
				       cli_u64(d[j], "packets"));
		printf("\n");
		free(d);
	}
	free(p);
	lyd_free_all(t);
	return 0;
}

int cli_show(struct cli *c, int argc, char **argv)
{
	const char *what = argc > 0 ? argv[0] : "";

	if (!strcmp(what, "ports") && argc == 1)
		return show_ports(c);
	if (!strcmp(what, "interfaces") && argc == 1)
		return show_interfaces(c);
	if (!strcmp(what, "vc") && argc <= 3)
		return show_vc(c, argc - 1, argv + 1);
	if (!strcmp(what, "routes"))
		return cli_show_routes(c, argc - 1, argv + 1, false);
	if ((!strcmp(what, "neighbors") || !strcmp(what, "neighbours")) && argc == 1)
		return show_neighbors(c);
	if (!strcmp(what, "fpm") && argc == 1)
		return show_fpm(c);
	if (!strcmp(what, "counters") && argc == 1)
		return show_counters(c);
	if (!strcmp(what, "ipv6"))
		return cli_show_ipv6(c, argc - 1, argv + 1);
	fprintf(stderr, "cellgatectl: show what? ports | interfaces | vc [PORT [VPI/VCI]] | "
	                "routes [PREFIX [longer]] [--limit N] | neighbors | fpm | counters |\n"
	                "  ipv6 routes [PREFIX [longer]] [--limit N] | ipv6 neighbors\n");
	return 2;
}
