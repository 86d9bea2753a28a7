/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cellgatectl: show and change a running cellgated through its RESTCONF
 * API (the UNIX socket, default /run/cellgate/restconf.sock). Exit status:
 * 0 done, 1 the daemon refused or could not be reached (message on
 * stderr), 2 bad usage.
 */
#include "cellgate-build.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mgmt/cli/cli.h"

#define DEFAULT_SOCK "/run/cellgate/restconf.sock"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: cellgatectl [-j] [-s socket] [-y yangdir] COMMAND\n"
	    "  show ports | interfaces | vc [PORT [VPI/VCI]] | neighbors | fpm | counters\n"
	    "  show routes [PREFIX [longer]] [--limit N] [--cursor PREFIX]\n"
	    "  show ipv6 routes | ipv6 neighbors\n"
	    "  route add PREFIX via GATEWAY... | dev INTERFACE | blackhole | unreachable\n"
	    "  route del PREFIX\n"
	    "  vc add PORT SUBINTERFACE VPI/VCI [llc-snap|vc-mux-ipv4|llc-bridged|vc-mux-bridged]\n"
	    "         [peer ADDRESS]\n"
	    "  vc del PORT SUBINTERFACE VPI/VCI\n"
	    "  vc ping PORT VPI/VCI [COUNT]\n"
	    "  address add PORT [SUBINTERFACE] IPV6-ADDRESS/LENGTH\n"
	    "  address del PORT [SUBINTERFACE] IPV6-ADDRESS\n"
	    "  clear counters [PORT]\n"
	    "options:\n"
	    "  -j, --json      print the API's JSON (RFC 7951) instead of tables\n"
	    "  -s, --socket    the RESTCONF socket (default $CELLGATE_SOCKET or %s)\n"
	    "  -y, --yang-dir  directory holding cellgate.yang (default %s)\n",
	    DEFAULT_SOCK, YANG_DIR);
}

/* The installed schema, or the source tree's when run from a build directory. */
static const char *yang_dir_pick(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/cellgate.yang", dir);
	if (access(path, R_OK) == 0 || strcmp(dir, YANG_DIR) != 0)
		return dir;
	return SRC_YANG_DIR;
}

/* cellgate.yang, to read the API's replies against. NULL with a message printed. */
static struct ly_ctx *schema_load(const char *dir)
{
	char file[4096];
	struct ly_ctx *ctx = NULL;

	snprintf(file, sizeof(file), "%s/cellgate.yang", dir);
	ly_log_options(LY_LOSTORE_LAST);
	if (ly_ctx_new(dir, LY_CTX_DISABLE_SEARCHDIR_CWD, &ctx) != LY_SUCCESS ||
	    lys_parse_path(ctx, file, LYS_IN_YANG, NULL) != LY_SUCCESS) {
		const struct ly_err_item *e = ctx ? ly_err_last(ctx) : NULL;
		fprintf(stderr, "cellgatectl: %s: %s\n", file,
		        e && e->msg ? e->msg : "cannot load");
		ly_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'j'},           {"socket", required_argument, NULL, 's'},
	    {"yang-dir", required_argument, NULL, 'y'}, {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},        {NULL, 0, NULL, 0}};
	struct cli c = {.sock = getenv("CELLGATE_SOCKET"), .yang_dir = YANG_DIR};
	int ch, rc;

	if (!c.sock || !c.sock[0])
		c.sock = DEFAULT_SOCK;
	while ((ch = getopt_long(argc, argv, "+hjs:y:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			c.json = true;
			break;
		case 's':
			c.sock = optarg;
			break;
		case 'y':
			c.yang_dir = optarg;
			break;
		case 'V':
			printf("cellgatectl %s\n", PACKAGE_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return 2;
	}
	c.ly = schema_load(yang_dir_pick(c.yang_dir));
	if (!c.ly)
		return 1;
	if (!strcmp(argv[0], "show"))
		rc = cli_show(&c, argc - 1, argv + 1);
	else if (!strcmp(argv[0], "route"))
		rc = cli_route(&c, argc - 1, argv + 1);
	else if (!strcmp(argv[0], "vc"))
		rc = cli_vc(&c, argc - 1, argv + 1);
	else if (!strcmp(argv[0], "address"))
		rc = cli_address(&c, argc - 1, argv + 1);
	else if (!strcmp(argv[0], "clear"))
		rc = cli_clear(&c, argc - 1, argv + 1);
	else {
		fprintf(stderr, "cellgatectl: unknown command '%s'\n", argv[0]);
		usage(stderr);
		rc = 2;
	}
	ly_ctx_destroy(c.ly);
	return rc;
}
