/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * show ipv6 neighbors: the IPv6 side of show neighbors, sorted here by
 * interface, then address. show ipv6 routes is show routes on the route6
 * list (show.c), which the daemon pages in prefix order.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/cli/cli.h"

#define STATE "/cellgate:cellgate/state"

/* An address ("a::b") or prefix ("a::/len") as 16 bytes and a length, for sorting. */
static void key6(const char *s, uint8_t a[16], unsigned *len)
{
	char ip[INET6_ADDRSTRLEN];
	size_t n = strcspn(s, "/");

	snprintf(ip, sizeof(ip), "%.*s", (int)(n < sizeof(ip) ? n : 0), s);
	memset(a, 0, 16);
	inet_pton(AF_INET6, ip, a);
	*len = s[n] ? (unsigned)strtoul(s + n + 1, NULL, 10) : 128;
}

static int addr6_cmp(const char *x, const char *y)
{
	uint8_t a[16], b[16];
	unsigned la, lb;
	int c;

	key6(x, a, &la);
	key6(y, b, &lb);
	c = memcmp(a, b, 16);
	return c ? c : (la < lb ? -1 : la > lb);
}

static int neigh6_cmp(const void *a, const void *b)
{
	const struct lyd_node *x = *(const struct lyd_node **)a, *y = *(const struct lyd_node **)b;
	int c = strcmp(cli_val(x, "interface"), cli_val(y, "interface"));

	return c ? c : addr6_cmp(cli_val(x, "address"), cli_val(y, "address"));
}

static int show_ipv6_neighbors(struct cli *c)
{
	struct lyd_node *t;
	const struct lyd_node **e;
	unsigned n;

	if (cli_get_list(c, STATE "/neighbor6", STATE, &t, true))
		return 1;
	if (c->json)
		return 0;
	n = cli_children(t, STATE, "neighbor6", &e);
	if (n)
		qsort(e, n, sizeof(*e), neigh6_cmp);
	printf("%-12s %-39s %-10s %s\n", "Interface", "Address", "State", "MAC");
	for (unsigned i = 0; i < n; i++)
		printf("%-12s %-39s %-10s %s\n", cli_val(e[i], "interface"),
		       cli_val(e[i], "address"), cli_val(e[i], "state"),
		       cli_val(e[i], "mac")[0] ? cli_val(e[i], "mac") : "-");
	free(e);
	lyd_free_all(t);
	return 0;
}

int cli_show_ipv6(struct cli *c, int argc, char **argv)
{
	const char *what = argc > 0 ? argv[0] : "";

	if (!strcmp(what, "routes") || !strcmp(what, "route"))
		return cli_show_routes(c, argc - 1, argv + 1, true);
	if ((!strcmp(what, "neighbors") || !strcmp(what, "neighbours")) && argc == 1)
		return show_ipv6_neighbors(c);
	fprintf(stderr, "cellgatectl: show ipv6 what? routes | neighbors\n");
	return 2;
}
