/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cellgatectl: the operator's CLI, a RESTCONF client over cellgated's UNIX
 * socket. It links libyang (to read replies against cellgate.yang) and no
 * datapath code: everything it shows or changes goes through the API.
 */
#ifndef CELLGATECTL_CLI_H
#define CELLGATECTL_CLI_H

#include <libyang/libyang.h>
#include <stdbool.h>

#define CLI_URI_MAX 1024

struct cli {
	const char *sock;
	const char *yang_dir;
	bool json; /* print the API's JSON instead of tables */
	struct ly_ctx *ly;
};

/*
 * GET /restconf/data + uri and parse the reply below the nodes of
 * parent_xpath ("" = top level). 0, or -1 with the error printed. In JSON
 * mode the reply is printed and *tree left NULL.
 */
int cli_get(struct cli *c, const char *uri, const char *parent_xpath, struct lyd_node **tree);

/* The same, where a 404 (no entries in a list) is an empty result. */
int cli_get_list(struct cli *c, const char *uri, const char *parent_xpath, struct lyd_node **tree,
                 bool missing_ok);

/* A page of the route list: where the next one starts, and how many routes follow this one. */
struct cli_page {
	char next_cursor[48]; /* "" = this was the last page; an IPv6 prefix fits */
	long long remaining;  /* -1 = unknown */
};
/* cli_get_list that also reads the paging headers into *pg. */
int cli_get_page(struct cli *c, const char *uri, const char *parent_xpath, struct lyd_node **tree,
                 bool missing_ok, struct cli_page *pg);

/* A write (PUT, POST, PATCH, DELETE) or an operation; reply JSON printed when present. */
int cli_send(struct cli *c, const char *method, const char *uri, const char *body, char **reply);

/* Value of the node at `path` below n, or "" (or `dflt`). */
const char *cli_val(const struct lyd_node *n, const char *path);
unsigned long long cli_u64(const struct lyd_node *n, const char *path);

/* "VPI/VCI" -> numbers; false (message printed) when malformed. */
bool cli_vpi_vci(const char *s, unsigned *vpi, unsigned *vci);

/* A key value percent-encoded for a URI (RFC 3986). */
void cli_pct(const char *s, char *out, size_t len);

int cli_show(struct cli *c, int argc, char **argv);
/* show.c: the children of the node at `xpath` named `name`, in order, into a malloc'd array. */
unsigned cli_children(const struct lyd_node *tree, const char *xpath, const char *name,
                      const struct lyd_node ***out);
/* show.c: a route's next hops ("ADDR via IF, ..."), for route and route6 entries alike. */
void cli_nexthops(const struct lyd_node *r, char *buf, size_t len);
/* show6.c: show ipv6 routes | neighbors. */
int cli_show_ipv6(struct cli *c, int argc, char **argv);
/* show routes, or (v6) show ipv6 routes: [PREFIX [longer]] [--limit N] [--cursor PREFIX]. */
int cli_show_routes(struct cli *c, int argc, char **argv, bool v6);
int cli_route(struct cli *c, int argc, char **argv);
int cli_vc(struct cli *c, int argc, char **argv);
int cli_clear(struct cli *c, int argc, char **argv);
/* address.c: address add|del (IPv6, at runtime). */
int cli_address(struct cli *c, int argc, char **argv);

#endif
