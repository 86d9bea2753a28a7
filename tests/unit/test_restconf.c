/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RESTCONF pieces that read untrusted text as pure functions: RFC 8040
 * 3.5.3 URIs to libyang paths (keys, percent-encoding, quoting, bad input)
 * and back; and the YANG state model agreeing with the datapath's names of
 * drop and discard reasons, which the state tree and /metrics are built from.
 */
#include <libyang/libyang.h>
#include <string.h>

#include "tests/unit/check.h"
#include "datapath/stats.h"
#include "mgmt/restconf/rc_priv.h"

static struct ly_ctx *ctx;

static int target(const char *uri, struct rc_target *t, struct restconf_err *err)
{
	memset(err, 0, sizeof(*err));
	return rc_target_parse(ctx, uri, t, err);
}

static void test_paths(void)
{
	struct rc_target t;
	struct restconf_err err;

	CHECK_EQ(target("", &t, &err), 0);
	CHECK(!strcmp(t.xpath, "") && !t.snode);
	CHECK_EQ(target("/cellgate:cellgate/routing/static-route=10.0.0.0%2F24", &t, &err), 0);
	CHECK(!strcmp(t.xpath, "/cellgate:cellgate/routing/static-route[prefix='10.0.0.0/24']"));
	CHECK(!strcmp(t.parent, "/cellgate:cellgate/routing"));
	CHECK(!t.all_instances);
	/* Several keys, in the order of the key statement. */
	CHECK_EQ(target("/cellgate:cellgate/state/vc=atm0,0,100", &t, &err), 0);
	CHECK(!strcmp(t.xpath, "/cellgate:cellgate/state/vc[port='atm0'][vpi='0'][vci='100']"));
	/* A list without keys names every instance; nothing may follow it. */
	CHECK_EQ(target("/cellgate:cellgate/port", &t, &err), 0);
	CHECK(t.all_instances);
	CHECK(target("/cellgate:cellgate/port/name", &t, &err) != 0);
	/* Key counts. */
	CHECK(target("/cellgate:cellgate/state/vc=atm0,0", &t, &err) != 0);
	CHECK(target("/cellgate:cellgate/port=eth0,eth1", &t, &err) != 0);
	CHECK_EQ(err.status, 400);
	/* A key with a quote is quoted with the other kind; with both it cannot be. */
	CHECK_EQ(target("/cellgate:cellgate/port=a%27b", &t, &err), 0);
	CHECK(!strcmp(t.xpath, "/cellgate:cellgate/port[name=\"a'b\"]"));
	CHECK(target("/cellgate:cellgate/port=a%27%22b", &t, &err) != 0);
	/* Bad escapes and NUL. */
	CHECK(target("/cellgate:cellgate/port=%zz", &t, &err) != 0);
	CHECK(target("/cellgate:cellgate/port=%2", &t, &err) != 0);
	CHECK(target("/cellgate:cellgate/port=a%00b", &t, &err) != 0);
	/* Unknown names, modules, and the module rule of RFC 8040 3.5.3. */
	CHECK(target("/cellgate:cellgate/nope", &t, &err) != 0);
	CHECK(!strcmp(err.tag, "unknown-element"));
	CHECK(target("/nomodule:x", &t, &err) != 0);
	CHECK(!strcmp(err.tag, "unknown-namespace"));
	CHECK(target("/cellgate", &t, &err) != 0);
	CHECK(target("/cellgate:cellgate//system", &t, &err) != 0);
	/* '=' on a container; leaves have no children; operations are not data. */
	CHECK(target("/cellgate:cellgate/system=1", &t, &err) != 0);
	CHECK(target("/cellgate:cellgate/system/workers/x", &t, &err) != 0);
	CHECK(target("/cellgate:vc-ping", &t, &err) != 0);
	/* Leaf-list instances. */
	CHECK_EQ(target("/cellgate:cellgate/system/worker-cpu=3", &t, &err), 0);
	CHECK(!strcmp(t.xpath, "/cellgate:cellgate/system/worker-cpu[.='3']"));
	/* Overlong input is refused, not truncated. */
	char big[8192] = "/cellgate:cellgate/port=";
	memset(big + strlen(big), 'a', sizeof(big) - strlen(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(target(big, &t, &err) != 0);
	char deep[RC_PATH_MAX * 2] = "";
	while (strlen(deep) + 40 < sizeof(deep))
		strcat(deep, "/cellgate:cellgate/system");
	CHECK(target(deep, &t, &err) != 0);
}

static void test_node_uri(void)
{
	struct lyd_node *tree = NULL, *n = NULL;
	char uri[512];

	CHECK(lyd_new_path(NULL, ctx,
	                   "/cellgate:cellgate/routing/static-route[prefix='10.1.0.0/16']/action",
	                   "blackhole", 0, &tree) == LY_SUCCESS);
	CHECK(lyd_find_path(tree, "/cellgate:cellgate/routing/static-route[prefix='10.1.0.0/16']",
	                    0, &n) == LY_SUCCESS);
	CHECK_EQ(rc_node_uri(n, uri, sizeof(uri)), 0);
	CHECK(!strcmp(uri, "/cellgate:cellgate/routing/static-route=10.1.0.0%2F16"));
	/* And back. */
	struct rc_target t;
	struct restconf_err err;
	CHECK_EQ(target(uri, &t, &err), 0);
	CHECK(!strcmp(t.xpath, "/cellgate:cellgate/routing/static-route[prefix='10.1.0.0/16']"));
	CHECK(rc_node_uri(n, uri, 10) != 0);
	lyd_free_all(tree);
}

/* Every name of an enumeration leaf, and only those, are in `names`. */
static void check_enum(const char *path, const char *const *names, unsigned n)
{
	const struct lysc_node *sn = lys_find_path(ctx, NULL, path, 0);
	const struct lysc_type_enum *e;
	unsigned found = 0;

	CHECK(sn != NULL);
	if (!sn)
		return;
	e = (const struct lysc_type_enum *)((const struct lysc_node_leaf *)sn)->type;
	CHECK_EQ(LY_ARRAY_COUNT(e->enums), n);
	for (unsigned i = 0; i < n; i++) {
		LY_ARRAY_COUNT_TYPE j;
		LY_ARRAY_FOR(e->enums, j)
		if (!strcmp(e->enums[j].name, names[i]))
			found++;
	}
	CHECK_EQ(found, n);
}

/* A GET's query: RFC 8040's parameters and the route list's paging, bad input refused. */
static void test_query(void)
{
	struct rc_get_params p;
	struct restconf_err err;

	CHECK_EQ(rc_get_params_parse(NULL, &p, &err), 0);
	CHECK(!p.page.any && p.depth == 0 && p.content == RC_CONTENT_ALL);
	CHECK_EQ(rc_get_params_parse("limit=1000&cursor=10.1.0.0%2F16", &p, &err), 0);
	CHECK(p.page.any && p.page.limit == 1000 && p.page.has_cursor);
	CHECK_EQ(p.page.cursor, restconf_route_key(0x0a010000, 16));
	/* A bare name (longer) is a parameter too; host bits of the prefix are cleared. */
	CHECK_EQ(rc_get_params_parse("prefix=10.0.0.1/8&longer&offset=5", &p, &err), 0);
	CHECK(p.page.has_prefix && p.page.longer && p.page.prefix == 0x0a000000);
	CHECK_EQ(p.page.plen, 8);
	CHECK_EQ(p.page.offset, 5);
	/* IPv6 prefixes (the route6 list's): cursor a key, prefix host bits cleared. */
	static const uint8_t db8[16] = {0x20, 0x01, 0x0d, 0xb8};
	CHECK_EQ(rc_get_params_parse("limit=10&cursor=2001:db8::%2F32", &p, &err), 0);
	CHECK(p.page.has_cursor && p.page.cursor_v6 && !p.page.prefix_v6);
	CHECK(!memcmp(p.page.cursor6.prefix, db8, 16) && p.page.cursor6.len == 32);
	CHECK_EQ(rc_get_params_parse("prefix=2001:db8:ff::1/32&longer", &p, &err), 0);
	CHECK(p.page.has_prefix && p.page.prefix_v6 && p.page.longer);
	CHECK(!memcmp(p.page.prefix6.prefix, db8, 16) && p.page.prefix6.len == 32);
	CHECK_EQ(rc_get_params_parse("prefix=2001:db8:1:ff80::/57", &p, &err), 0);
	CHECK(p.page.prefix6.prefix[6] == 0xff && p.page.prefix6.prefix[7] == 0x80);
	CHECK_EQ(rc_get_params_parse("prefix=2001:db8:1:ffff::/57", &p, &err), 0);
	CHECK(p.page.prefix6.prefix[7] == 0x80 && p.page.prefix6.len == 57);
	CHECK_EQ(rc_get_params_parse("cursor=::/0", &p, &err), 0);
	CHECK(p.page.cursor_v6 && p.page.cursor6.len == 0);
	CHECK_EQ(rc_get_params_parse("limit=unbounded&depth=2&content=nonconfig", &p, &err), 0);
	CHECK(p.page.limit == 0 && p.depth == 2 && p.content == RC_CONTENT_NONCONFIG);
	static const char *const bad[] = {"limit=0",
	                                  "limit=-1",
	                                  "limit=x",
	                                  "offset=1e3",
	                                  "cursor=10.0.0.0",
	                                  "prefix=10.0.0.0/33",
	                                  "prefix=300.0.0.0/8",
	                                  "longer",
	                                  "longer=no",
	                                  "where=route",
	                                  "sort-by=prefix",
	                                  "bogus=1",
	                                  "depth=0",
	                                  "content=some",
	                                  "limit=4294967296",
	                                  "cursor=2001:db8::",
	                                  "prefix=2001:db8::/129",
	                                  "prefix=2001:db8::/+3",
	                                  "prefix=::/",
	                                  "prefix=2001:db8:::/32"};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		CHECK_EQ(rc_get_params_parse(bad[i], &p, &err), -1);
		CHECK_EQ(err.status, 400);
	}
	memset(&err, 0, sizeof(err));
	rc_get_params_parse("where=1", &p, &err);
	CHECK(strstr(err.msg, "prefix=") != NULL); /* says what to use instead */
}

int main(void)
{
	char err[512];

	ctx = cfg_yang_ctx_new(SRC_YANG_DIR, err, sizeof(err));
	if (!ctx) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	ly_log_options(LY_LOSTORE);
	test_paths();
	test_node_uri();
	test_query();
	check_enum("/cellgate:cellgate/state/port/drop/reason", drop_reason_name, DROP__MAX);
	check_enum("/cellgate:cellgate/state/vc/discard/reason", vc_drop_name, VC_DROP__MAX);
	ly_ctx_destroy(ctx);
	return check_report("test_restconf");
}
