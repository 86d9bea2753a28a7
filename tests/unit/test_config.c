/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Golden tests for the startup-config loader, in the manner of OpenBSD's
 * regress/usr.sbin/bgpd/config: every tests/unit/config/good-X.json must load
 * and print exactly good-X.ok, and load again from that printout to the same
 * struct; every bad-X.json must be refused with a message that names the file
 * and contains the text of bad-X.err.
 *
 * Usage: test_config [srcdir]   (default: $srcdir, as automake sets it, or ".")
 */
#include <dirent.h>
#include <errno.h>
#include <libyang/libyang.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

#ifndef SRC_YANG_DIR
#error "build with -DSRC_YANG_DIR=\"<srcdir>/mgmt/yang\""
#endif

static unsigned passed, failed;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed++;
}

/* A whole file as a string, or NULL. */
static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	FILE *mem;
	int c;

	if (!f)
		return NULL;
	mem = open_memstream(&buf, &len);
	if (mem) {
		while ((c = fgetc(f)) != EOF)
			fputc(c, mem);
		fclose(mem);
	}
	fclose(f);
	return buf;
}

/* dir/base + suffix, where base is name without its ".json". */
static void case_path(char *buf, size_t len, const char *dir, const char *name, const char *suffix)
{
	int base = (int)strlen(name) - 5;

	if ((size_t)snprintf(buf, len, "%s/%.*s%s", dir, base, name, suffix) >= len)
		buf[0] = '\0'; /* then the open fails and says so */
}

static char *print_cfg(const struct cfg *cfg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int rc;

	if (!mem)
		return NULL;
	rc = cfg_print(cfg, mem);
	fclose(mem);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Field by field, so a field the printer forgets shows up by name. */
static const char *port_diff(const struct cfg_port *a, const struct cfg_port *b)
{
	if (strcmp(a->name, b->name) || strcmp(a->driver, b->driver) ||
	    strcmp(a->netdev, b->netdev))
		return "port name/driver/netdev";
	if (a->settings.rx_ring_frames != b->settings.rx_ring_frames ||
	    a->settings.tx_ring_frames != b->settings.tx_ring_frames ||
	    a->settings.promiscuous != b->settings.promiscuous ||
	    a->settings.qdisc_bypass != b->settings.qdisc_bypass)
		return "port settings";
	if (a->naddrs != b->naddrs)
		return "port address count";
	for (unsigned i = 0; i < a->naddrs; i++)
		if (a->addrs[i].addr != b->addrs[i].addr || a->addrs[i].plen != b->addrs[i].plen)
			return "port address";
	if (a->kind != b->kind)
		return "port kind";
	if (memcmp(a->cellpw.peer_mac, b->cellpw.peer_mac, 6) ||
	    a->cellpw.pw_label != b->cellpw.pw_label ||
	    a->cellpw.control_word != b->cellpw.control_word ||
	    a->cellpw.max_cells != b->cellpw.max_cells ||
	    a->cellpw.concat_us != b->cellpw.concat_us)
		return "port cellpw";
	if (a->atmsock.itf != b->atmsock.itf)
		return "port atmsock";
	return NULL;
}

static const char *subif_diff(const struct cfg_subif *a, const struct cfg_subif *b)
{
	if (strcmp(a->name, b->name) || a->port != b->port || a->type != b->type)
		return "subinterface name/port/type";
	if (a->naddrs != b->naddrs)
		return "subinterface address count";
	for (unsigned i = 0; i < a->naddrs; i++)
		if (a->addrs[i].addr != b->addrs[i].addr || a->addrs[i].plen != b->addrs[i].plen)
			return "subinterface address";
	return NULL;
}

static const char *pvc_diff(const struct cfg_pvc *a, const struct cfg_pvc *b)
{
	if (a->subif != b->subif || a->port != b->port || a->vpi != b->vpi || a->vci != b->vci)
		return "pvc subinterface/port/vpi/vci";
	if (a->encap != b->encap || a->mtu != b->mtu)
		return "pvc encapsulation/mtu";
	if (a->service != b->service || a->pcr != b->pcr || a->queue_cells != b->queue_cells)
		return "pvc shaping";
	if (a->reasm_timeout_ms != b->reasm_timeout_ms)
		return "pvc reassembly-timeout";
	if (a->oam_enabled != b->oam_enabled || a->oam_interval_ms != b->oam_interval_ms ||
	    a->oam_retry_ms != b->oam_retry_ms || a->oam_down_count != b->oam_down_count ||
	    a->oam_up_count != b->oam_up_count)
		return "pvc oam";
	if (a->inatmarp != b->inatmarp || a->inatmarp_interval_ms != b->inatmarp_interval_ms)
		return "pvc inatmarp";
	if (a->peer_addr != b->peer_addr || strcmp(a->pcap, b->pcap))
		return "pvc peer-address/capture-file";
	return NULL;
}

static const char *route_diff(const struct cfg_route *a, const struct cfg_route *b)
{
	if (a->prefix != b->prefix || a->plen != b->plen || a->action != b->action)
		return "route prefix/action";
	if (a->nnexthops != b->nnexthops)
		return "route nexthop count";
	for (unsigned i = 0; i < a->nnexthops; i++)
		if (a->nexthops[i].gateway != b->nexthops[i].gateway ||
		    strcmp(a->nexthops[i].port, b->nexthops[i].port) ||
		    a->nexthops[i].weight != b->nexthops[i].weight)
			return "route nexthop";
	return NULL;
}

static const char *cfg_diff(const struct cfg *a, const struct cfg *b)
{
	const char *d;

	if (a->workers != b->workers || a->nworker_cpus != b->nworker_cpus ||
	    memcmp(a->worker_cpus, b->worker_cpus, a->nworker_cpus * sizeof(int)))
		return "workers";
	if (a->icmp_rate != b->icmp_rate || a->icmp_burst != b->icmp_burst)
		return "icmp";
	if (a->arp_timeout_s != b->arp_timeout_s || a->arp_retries != b->arp_retries)
		return "arp";
	if (a->ip_options_forward != b->ip_options_forward)
		return "ip-options";
	if (a->fib_algorithm != b->fib_algorithm)
		return "fib-algorithm";
	if (a->nports != b->nports)
		return "port count";
	for (unsigned i = 0; i < a->nports; i++)
		if ((d = port_diff(&a->ports[i], &b->ports[i])))
			return d;
	if (a->nroutes != b->nroutes)
		return "route count";
	for (unsigned i = 0; i < a->nroutes; i++)
		if ((d = route_diff(&a->routes[i], &b->routes[i])))
			return d;
	if (a->nsubifs != b->nsubifs)
		return "subinterface count";
	for (unsigned i = 0; i < a->nsubifs; i++)
		if ((d = subif_diff(&a->subifs[i], &b->subifs[i])))
			return d;
	if (a->npvcs != b->npvcs)
		return "pvc count";
	for (unsigned i = 0; i < a->npvcs; i++)
		if ((d = pvc_diff(&a->pvcs[i], &b->pvcs[i])))
			return d;
	return NULL;
}

/* Report the first line where the printout and the golden file part. */
static void golden_diff(const char *name, const char *got, const char *want)
{
	size_t i, start = 0;
	unsigned line = 1;

	for (i = 0; got[i] && got[i] == want[i]; i++)
		if (got[i] == '\n') {
			line++;
			start = i + 1;
		}
	fail("%s: output differs from .ok at line %u: got \"%.*s\", want \"%.*s\"", name, line,
	     (int)strcspn(got + start, "\n"), got + start, (int)strcspn(want + start, "\n"),
	     want + start);
}

static void check_round_trip(const char *name, const struct cfg *cfg, const char *printed)
{
	char err[1024], *again;
	struct cfg cfg2;
	const char *d;

	if (cfg_parse(printed, SRC_YANG_DIR, &cfg2, err, sizeof(err)) < 0) {
		fail("%s: printout does not parse again: %s", name, err);
		return;
	}
	if ((d = cfg_diff(cfg, &cfg2)))
		fail("%s: round trip changed %s", name, d);
	again = print_cfg(&cfg2);
	if (!again || strcmp(again, printed))
		fail("%s: second printout differs from the first", name);
	free(again);
	cfg_free(&cfg2);
}

static void test_good(const char *dir, const char *name)
{
	char path[4096], okpath[4096], err[1024], *got, *want;
	struct cfg cfg;
	unsigned before = failed;

	case_path(path, sizeof(path), dir, name, ".json");
	case_path(okpath, sizeof(okpath), dir, name, ".ok");
	if (cfg_load(path, SRC_YANG_DIR, &cfg, err, sizeof(err)) < 0) {
		fail("%s: rejected: %s", name, err);
		return;
	}
	got = print_cfg(&cfg);
	want = slurp(okpath);
	if (!got)
		fail("%s: cfg_print failed", name);
	else if (!want)
		fail("%s: cannot read %s: %s", name, okpath, strerror(errno));
	else if (strcmp(got, want))
		golden_diff(name, got, want);
	else
		check_round_trip(name, &cfg, got);
	free(got);
	free(want);
	cfg_free(&cfg);
	passed += failed == before;
}

/* Runs one refused load and checks what the operator would read. */
static void expect_error(const char *what, int rc, const struct cfg *cfg, const char *err,
                         const char *src, const char *want)
{
	size_t srclen = strlen(src);

	if (rc >= 0)
		fail("%s: accepted, expected an error containing \"%s\"", what, want);
	else if (strncmp(err, src, srclen) || strncmp(err + srclen, ": ", 2))
		fail("%s: message does not start with \"%s: \": %s", what, src, err);
	else if (!strstr(err, want))
		fail("%s: message lacks \"%s\": %s", what, want, err);
	else if (cfg->routes || cfg->nports || cfg->nroutes || cfg->pvcs || cfg->npvcs ||
	         cfg->nsubifs)
		fail("%s: failed load left data in struct cfg", what);
	else
		passed++;
}

static void test_bad(const char *dir, const char *name)
{
	char path[4096], errpath[4096], err[1024], *want;
	struct cfg cfg;
	int rc;

	case_path(path, sizeof(path), dir, name, ".json");
	case_path(errpath, sizeof(errpath), dir, name, ".err");
	want = slurp(errpath);
	if (!want || !want[strspn(want, " \n")]) {
		fail("%s: missing or empty %s", name, errpath);
		free(want);
		return;
	}
	want[strcspn(want, "\n")] = '\0';
	rc = cfg_load(path, SRC_YANG_DIR, &cfg, err, sizeof(err));
	expect_error(name, rc, &cfg, err, path, want);
	cfg_free(&cfg);
	free(want);
}

/* Values behind the golden text: byte order, sorting, the on-link form. */
static void test_full_values(const char *dir)
{
	char path[4096], err[1024];
	const struct cfg_route *r;
	struct cfg cfg;
	unsigned before = failed;

	case_path(path, sizeof(path), dir, "good-full.json", ".json");
	if (cfg_load(path, SRC_YANG_DIR, &cfg, err, sizeof(err)) < 0) {
		fail("good-full values: %s", err);
		return;
	}
	if (cfg.nports != 3 || cfg.ports[0].addrs[0].addr != 0x0a000101 ||
	    cfg.ports[0].addrs[0].plen != 24)
		fail("good-full values: eth0 address not 10.0.1.1/24 in host order");
	if (cfg.ports[1].settings.rx_ring_frames != 32768 || !cfg.ports[1].settings.qdisc_bypass)
		fail("good-full values: eth1 defaults missing");
	if (cfg_port_index(&cfg, "eth2") != 2 || cfg_port_index(&cfg, "eth9") != -1)
		fail("good-full values: cfg_port_index");
	if (cfg.nroutes != 5 || cfg.routes[0].prefix != 0x0a140000 ||
	    cfg.routes[4].prefix != 0x0a630000)
		fail("good-full values: routes not sorted by prefix");
	r = &cfg.routes[1]; /* 10.30.0.0/24, on-link out of eth1 */
	if (cfg.nroutes == 5 &&
	    (r->nnexthops != 1 || r->nexthops[0].gateway || strcmp(r->nexthops[0].port, "eth1")))
		fail("good-full values: on-link route is not one gateway-less nexthop");
	r = &cfg.routes[4]; /* 10.99.0.0/24, two gateways */
	if (cfg.nroutes == 5 && (r->nnexthops != 2 || r->nexthops[1].gateway != 0x0a000302 ||
	                         strcmp(r->nexthops[1].port, "eth2") || r->nexthops[1].weight != 1))
		fail("good-full values: ECMP route");
	cfg_free(&cfg);
	passed += failed == before;
}

/* cfg_print sorts even a struct that did not come from cfg_parse. */
static void test_print_unsorted(void)
{
	struct cfg_route routes[2] = {
	    {.prefix = 0x0a000000, .plen = 16, .action = CFG_ROUTE_BLACKHOLE},
	    {.prefix = 0x0a000000, .plen = 8, .action = CFG_ROUTE_UNREACHABLE},
	};
	struct cfg cfg = {.workers = 1, .nroutes = 2, .routes = routes};
	char *out = print_cfg(&cfg), *a, *b;

	a = out ? strstr(out, "10.0.0.0/8") : NULL;
	b = out ? strstr(out, "10.0.0.0/16") : NULL;
	if (!a || !b || a > b)
		fail("cfg_print: routes not sorted by prefix length");
	else
		passed++;
	free(out);
}

static void test_errors_outside_dir(const char *dir)
{
	char path[4096], err[1024];
	struct cfg cfg;
	int rc;

	case_path(path, sizeof(path), dir, "no-such-file.json", ".json");
	rc = cfg_load(path, SRC_YANG_DIR, &cfg, err, sizeof(err));
	expect_error("missing file", rc, &cfg, err, path, "No such file or directory");
	if (rc != -ENOENT)
		fail("missing file: returned %d, want -ENOENT", rc);
	rc = cfg_load(dir, SRC_YANG_DIR, &cfg, err, sizeof(err));
	expect_error("directory as file", rc, &cfg, err, dir, "Is a directory");
	rc = cfg_parse("{\"cellgate:cellgate\": {\"system\": {\"workers\": 0}}}", SRC_YANG_DIR,
	               &cfg, err, sizeof(err));
	expect_error("string", rc, &cfg, err, "config", "/cellgate:cellgate/system/workers");
	rc = cfg_parse("{}", "/nonexistent/yang", &cfg, err, sizeof(err));
	expect_error("yang dir", rc, &cfg, err, "/nonexistent/yang/cellgate.yang",
	             "No such file or directory");
}

/* The shipped examples are configurations an operator copies: they must load. */
static void test_examples(const char *srcdir)
{
	static const char *const names[] = {"cellgated.example.json", "cellgated-atm.example.json"};
	char path[4096], err[1024];
	struct cfg cfg;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/etc/%s", srcdir, names[i]);
		if (cfg_load(path, SRC_YANG_DIR, &cfg, err, sizeof(err)) < 0) {
			fail("%s: rejected: %s", names[i], err);
			continue;
		}
		passed++;
		cfg_free(&cfg);
	}
}

static void test_yang_ctx(void)
{
	char err[1024];
	struct ly_ctx *ctx = cfg_yang_ctx_new(SRC_YANG_DIR, err, sizeof(err));

	if (!ctx) {
		fail("cfg_yang_ctx_new: %s", err);
		return;
	}
	if (!ly_ctx_get_module_implemented(ctx, "cellgate"))
		fail("cfg_yang_ctx_new: cellgate not implemented");
	else
		passed++;
	ly_ctx_destroy(ctx);
}

static int is_json(const struct dirent *d)
{
	size_t len = strlen(d->d_name);

	return len > 5 && !strcmp(d->d_name + len - 5, ".json");
}

int main(int argc, char **argv)
{
	const char *srcdir = argc > 1 ? argv[1] : getenv("srcdir");
	unsigned ngood = 0, nbad = 0;
	struct dirent **ents;
	char dir[4096];
	int n;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/tests/unit/config", srcdir ? srcdir : ".") >=
	    sizeof(dir)) {
		printf("FAIL: srcdir too long\n");
		return 1;
	}
	n = scandir(dir, &ents, is_json, alphasort);
	if (n < 0) {
		printf("FAIL: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (!strncmp(name, "good-", 5) && ++ngood)
			test_good(dir, name);
		else if (!strncmp(name, "bad-", 4) && ++nbad)
			test_bad(dir, name);
		else
			fail("%s: neither good-*.json nor bad-*.json", name);
		free(ents[i]);
	}
	free(ents);
	/* An empty or misplaced directory must not pass quietly. */
	if (!ngood || !nbad)
		fail("%s: found %u good and %u bad cases", dir, ngood, nbad);
	test_full_values(dir);
	test_print_unsorted();
	test_errors_outside_dir(dir);
	test_examples(srcdir ? srcdir : ".");
	test_yang_ctx();
	printf("%u passed\n", passed);
	if (failed)
		printf("%u failed\n", failed);
	return failed ? 1 : 0;
}
