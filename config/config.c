/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Startup configuration: RFC 7951 JSON validated by libyang against
 * mgmt/yang/cellgate.yang, then copied into struct cfg. Everything the schema
 * can say (types, ranges, defaults, uniqueness, leafrefs, must) is left to
 * libyang; this file only adds the checks YANG cannot express.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libyang/libyang.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config_priv.h"
#include "lib/addr.h"

#define CFG_FILE_MAX (16 << 20) /* a startup file this big is a mistake, not a config */


static uint32_t ip4_mask(unsigned plen)
{
	return plen ? 0xffffffffu << (32 - plen) : 0;
}

uint32_t ip4_from_str(const char *s)
{
	struct in_addr a = {0};

	inet_pton(AF_INET, s, &a);
	return ntohl(a.s_addr);
}

bool ip4_is_unicast(uint32_t a)
{
	return (a >> 24) != 0 && (a >> 24) != 127 && a < 0xe0000000u;
}

/* The next opaque sibling named `name`, from n on. */
static const struct lyd_node *opaq_next(const struct lyd_node *n, const char *name)
{
	for (; n; n = n->next)
		if (!n->schema && !strcmp(((const struct lyd_node_opaq *)n)->name.name, name))
			return n;
	return NULL;
}

static int cfg_check_raw_prefix(const struct cfg_pstate *ps, const char *raw)
{
	const char *slash = strchr(raw, '/');
	char ip[INET_ADDRSTRLEN];
	uint32_t addr, mask;

	/* The typed parse accepted it already, so this is only a guard. */
	if (!slash || slash - raw >= INET_ADDRSTRLEN)
		return 0;
	snprintf(ip, sizeof(ip), "%.*s", (int)(slash - raw), raw);
	addr = ip4_from_str(ip);
	mask = ip4_mask(strtoul(slash + 1, NULL, 10));
	if (!(addr & ~mask))
		return 0;
	ip4_str(addr & mask, ip);
	return cfg_errf(ps, -EINVAL,
	                "/cellgate:cellgate/routing/static-route[prefix='%s']/prefix: "
	                "host bits set in %s (the network is %s%s)",
	                raw, raw, ip, slash);
}

/*
 * libyang stores inet:ipv4-prefix with the host bits cleared, so the
 * validated tree cannot tell "10.0.0.1/24" from "10.0.0.0/24". Re-read the
 * text as opaque nodes in a schema-less context to see what was written:
 * a prefix with host bits is nearly always a typo for a different route.
 */
/* The schema-less context the raw re-read needs. */
static struct ly_ctx *cfg_raw_ctx_new(void)
{
	struct ly_ctx *raw = NULL;

	if (ly_ctx_new(NULL, LY_CTX_NO_YANGLIBRARY | LY_CTX_DISABLE_SEARCHDIRS, &raw) != LY_SUCCESS)
		return NULL;
	return raw;
}

static int cfg_check_raw_prefixes(const struct cfg_pstate *ps, struct ly_ctx *raw, const char *json)
{
	const struct lyd_node *top, *rt, *route, *pfx;
	struct lyd_node *tree = NULL;
	int rc = 0;

	if (lyd_parse_data_mem(raw, json, LYD_JSON, LYD_PARSE_ONLY | LYD_PARSE_OPAQ, 0, &tree)) {
		rc = cfg_ly_err(ps, raw, "re-reading the configuration");
		goto out;
	}
	for (top = opaq_next(tree, CFG_MODULE); top; top = opaq_next(top->next, CFG_MODULE))
		for (rt = opaq_next(lyd_child(top), "routing"); rt;
		     rt = opaq_next(rt->next, "routing"))
			for (route = opaq_next(lyd_child(rt), "static-route"); route && !rc;
			     route = opaq_next(route->next, "static-route")) {
				pfx = opaq_next(lyd_child(route), "prefix");
				if (pfx)
					rc = cfg_check_raw_prefix(
					    ps, ((const struct lyd_node_opaq *)pfx)->value);
			}
	/* The same for IPv6 routes (config6.c). */
	for (top = opaq_next(tree, CFG_MODULE); top && !rc; top = opaq_next(top->next, CFG_MODULE))
		for (rt = opaq_next(lyd_child(top), "routing"); rt && !rc;
		     rt = opaq_next(rt->next, "routing"))
			for (route = opaq_next(lyd_child(rt), "static-route6"); route && !rc;
			     route = opaq_next(route->next, "static-route6")) {
				pfx = opaq_next(lyd_child(route), "prefix");
				if (pfx)
					rc = cfg_check_raw_prefix6(
					    ps, ((const struct lyd_node_opaq *)pfx)->value);
			}
out:
	lyd_free_all(tree);
	ly_err_clean(raw, NULL);
	return rc;
}

const struct lyd_node *cfg_child(const struct lyd_node *parent, const char *name)
{
	const struct lyd_node *n;

	LY_LIST_FOR(lyd_child(parent), n)
	{
		if (n->schema && !strcmp(n->schema->name, name))
			return n;
	}
	return NULL;
}

/* Canonical value of a leaf, or "" when absent (no default in the schema). */
const char *cfg_str(const struct lyd_node *parent, const char *name)
{
	const struct lyd_node *n = cfg_child(parent, name);

	return n ? lyd_get_value(n) : "";
}

uint32_t cfg_u32(const struct lyd_node *parent, const char *name)
{
	return strtoul(cfg_str(parent, name), NULL, 10);
}

bool cfg_bool(const struct lyd_node *parent, const char *name)
{
	return !strcmp(cfg_str(parent, name), "true");
}

bool cfg_copy(char *dst, size_t len, const char *src)
{
	return (size_t)snprintf(dst, len, "%s", src) < len;
}

static void cfg_fill_system(struct cfg *cfg, const struct lyd_node *sys)
{
	const struct lyd_node *n;

	cfg->workers = cfg_u32(sys, "workers");
	LY_LIST_FOR(lyd_child(sys), n)
	{
		/* The schema's must ties the count to workers (<= WORKER_MAX). */
		if (!strcmp(n->schema->name, "worker-cpu") && cfg->nworker_cpus < WORKER_MAX)
			cfg->worker_cpus[cfg->nworker_cpus++] = strtol(lyd_get_value(n), NULL, 10);
	}
	cfg->icmp_rate = cfg_u32(sys, "icmp-rate-limit");
	cfg->icmp_burst = cfg_u32(sys, "icmp-burst");
	cfg->arp_timeout_s = cfg_u32(sys, "arp-timeout");
	cfg->arp_retries = cfg_u32(sys, "arp-retries");
	cfg->arp_max_entries = cfg_u32(sys, "arp-max-entries");
	cfg->ip_options_forward = !strcmp(cfg_str(sys, "ip-options"), "forward");
	cfg_capture_fill(&cfg->capture, sys);
	/* The schema's enumeration admits only these two. */
	cfg->fib_algorithm =
	    !strcmp(cfg_str(sys, "fib-algorithm"), "dir-24-8") ? CFG_FIB_DIR_24_8 : CFG_FIB_POPTRIE;
}

const char *cfg_fib_algorithm_name(enum cfg_fib_algorithm a)
{
	return a == CFG_FIB_DIR_24_8 ? "dir-24-8" : "poptrie";
}

static int cfg_fill_addr(const struct cfg_pstate *ps, struct cfg_addr4 *addrs, unsigned *naddrs,
                         const struct lyd_node *an)
{
	struct cfg_addr4 *a;
	uint32_t host;

	if (*naddrs == CFG_ADDR_MAX)
		return cfg_node_errf(ps, an, "more than %d IPv4 addresses on one interface",
		                     CFG_ADDR_MAX);
	a = &addrs[*naddrs];
	a->addr = ip4_from_str(cfg_str(an, "ip"));
	a->plen = cfg_u32(an, "prefix-length");
	if (!ip4_is_unicast(a->addr))
		return cfg_node_errf(ps, an, "%s is not a unicast host address", cfg_str(an, "ip"));
	/* /31 (RFC 3021) and /32 have no network or broadcast address. */
	host = a->addr & ~ip4_mask(a->plen);
	if (a->plen <= 30 && (host == 0 || host == ~ip4_mask(a->plen)))
		return cfg_node_errf(ps, an, "%s is the %s address of its /%u subnet",
		                     cfg_str(an, "ip"), host ? "broadcast" : "network", a->plen);
	(*naddrs)++;
	return 0;
}

int cfg_fill_ipv4(const struct cfg_pstate *ps, const struct lyd_node *ipv4, struct cfg_addr4 *addrs,
                  unsigned *naddrs)
{
	const struct lyd_node *n;
	int rc;

	LY_LIST_FOR(ipv4 ? lyd_child(ipv4) : NULL, n)
	{
		if (strcmp(n->schema->name, "address"))
			continue;
		rc = cfg_fill_addr(ps, addrs, naddrs, n);
		if (rc)
			return rc;
	}
	return 0;
}

static int cfg_fill_port(const struct cfg_pstate *ps, struct cfg_port *p, const struct lyd_node *pn)
{
	/* The schema bounds these lengths to fit; truncation would be a schema bug. */
	if (!cfg_copy(p->name, sizeof(p->name), cfg_str(pn, "name")) ||
	    !cfg_copy(p->driver, sizeof(p->driver), cfg_str(pn, "driver")) ||
	    !cfg_copy(p->netdev, sizeof(p->netdev), cfg_str(pn, "netdev")))
		return cfg_node_errf(ps, pn, "name, driver or netdev too long");
	p->settings.promiscuous = cfg_bool(pn, "promiscuous");
	p->settings.qdisc_bypass = cfg_bool(pn, "qdisc-bypass");
	p->settings.rx_ring_frames = cfg_u32(pn, "rx-ring-frames");
	p->settings.tx_ring_frames = cfg_u32(pn, "tx-ring-frames");
	int rc = cfg_fill_ipv4(ps, cfg_child(pn, "ipv4"), p->addrs, &p->naddrs);
	if (!rc)
		rc = cfg_fill_ipv6(ps, cfg_child(pn, "ipv6"), p->addrs6, &p->naddrs6);
	cfg_fill_nd(cfg_child(pn, "ipv6"), p);
	return rc;
}

static int cfg_fill_nexthop(const struct cfg_pstate *ps, struct cfg_route *r,
                            const struct lyd_node *nn)
{
	struct cfg_nexthop *nh;

	if (r->nnexthops == CFG_ECMP_MAX)
		return cfg_node_errf(ps, nn, "more than %d next hops", CFG_ECMP_MAX);
	nh = &r->nexthops[r->nnexthops];
	nh->gateway = ip4_from_str(cfg_str(nn, "address"));
	/* gateway 0 means on-link in struct cfg_nexthop, so 0.0.0.0 must not get in. */
	if (!ip4_is_unicast(nh->gateway))
		return cfg_node_errf(ps, nn, "%s is not a unicast gateway address",
		                     cfg_str(nn, "address"));
	cfg_copy(nh->port, sizeof(nh->port), cfg_str(nn, "interface"));
	nh->weight = cfg_u32(nn, "weight");
	r->nnexthops++;
	return 0;
}

static int cfg_fill_route(const struct cfg_pstate *ps, struct cfg_route *r,
                          const struct lyd_node *rn)
{
	const char *prefix = cfg_str(rn, "prefix"), *action = cfg_str(rn, "action");
	const struct lyd_node *n;
	char ip[INET_ADDRSTRLEN];
	int rc;

	snprintf(ip, sizeof(ip), "%.*s", (int)strcspn(prefix, "/"), prefix);
	r->prefix = ip4_from_str(ip);
	r->plen = strtoul(prefix + strcspn(prefix, "/") + 1, NULL, 10);
	if (!strcmp(action, "blackhole"))
		r->action = CFG_ROUTE_BLACKHOLE;
	else if (!strcmp(action, "unreachable"))
		r->action = CFG_ROUTE_UNREACHABLE;
	else
		r->action = CFG_ROUTE_FORWARD;
	/* An on-link route is one next hop without a gateway (see config.h). */
	n = cfg_child(rn, "interface");
	if (n) {
		cfg_copy(r->nexthops[0].port, sizeof(r->nexthops[0].port), lyd_get_value(n));
		r->nexthops[0].weight = 1;
		r->nnexthops = 1;
	}
	LY_LIST_FOR(lyd_child(rn), n)
	{
		if (strcmp(n->schema->name, "nexthop"))
			continue;
		rc = cfg_fill_nexthop(ps, r, n);
		if (rc)
			return rc;
	}
	return 0;
}

int cfg_route_cmp(const void *a, const void *b)
{
	const struct cfg_route *ra = a, *rb = b;

	if (ra->prefix != rb->prefix)
		return ra->prefix < rb->prefix ? -1 : 1;
	return (int)ra->plen - (int)rb->plen;
}

static int cfg_fill_routes(const struct cfg_pstate *ps, struct cfg *cfg,
                           const struct lyd_node *routing)
{
	const struct lyd_node *n;
	unsigned count = 0;
	int rc;

	LY_LIST_FOR(routing ? lyd_child(routing) : NULL, n)
	{
		count += !strcmp(n->schema->name, "static-route");
	}
	if (!count)
		return 0;
	cfg->routes = calloc(count, sizeof(*cfg->routes));
	if (!cfg->routes)
		return cfg_errf(ps, -ENOMEM, "%s", strerror(ENOMEM));
	LY_LIST_FOR(lyd_child(routing), n)
	{
		if (strcmp(n->schema->name, "static-route"))
			continue;
		rc = cfg_fill_route(ps, &cfg->routes[cfg->nroutes++], n);
		if (rc)
			return rc;
	}
	/* Sorted once here, so equal configs give equal structs and printouts. */
	qsort(cfg->routes, cfg->nroutes, sizeof(*cfg->routes), cfg_route_cmp);
	return 0;
}

static int cfg_fill(const struct cfg_pstate *ps, struct cfg *cfg, const struct lyd_node *top)
{
	const struct lyd_node *n;
	int rc;

	cfg_fill_system(cfg, cfg_child(top, "system"));
	LY_LIST_FOR(lyd_child(top), n)
	{
		if (strcmp(n->schema->name, "port"))
			continue;
		if (cfg->nports == PORT_MAX)
			return cfg_node_errf(ps, n, "more than %d ports", PORT_MAX);
		rc = cfg_fill_port(ps, &cfg->ports[cfg->nports++], n);
		if (rc)
			return rc;
	}
	n = cfg_child(top, "routing");
	cfg_fpm_fill(&cfg->fpm, n ? cfg_child(n, "fpm") : NULL);
	rc = cfg_fill_routes(ps, cfg, n);
	rc = rc ? rc : cfg_fill_routes6(ps, cfg, n);
	cfg_mgmt_fill(cfg, top);
	rc = rc ? rc : cfg_atm_fill(ps, cfg, top);
	return rc ? rc : cfg_snmp_fill(ps, cfg, top);
}

/* Parse, then validate the cellgate module alone, which also adds its defaults. */
static int cfg_parse_tree(const struct cfg_pstate *ps, struct ly_ctx *ctx, const char *json,
                          struct lyd_node **tree)
{
	const struct lys_module *mod = ly_ctx_get_module_implemented(ctx, CFG_MODULE);

	/* NO_STATE: a startup file holds configuration only, never counters. */
	if (lyd_parse_data_mem(ctx, json, LYD_JSON,
	                       LYD_PARSE_ONLY | LYD_PARSE_STRICT | LYD_PARSE_NO_STATE, 0, tree))
		return cfg_ly_err(ps, ctx, "parsing");
	if (lyd_validate_module(tree, mod, 0, NULL))
		return cfg_ly_err(ps, ctx, "validation");
	return 0;
}

/* Parse and check json with the two contexts (the schema's, and a schema-less one). */
static int cfg_parse_ctx(const struct cfg_pstate *ps, struct ly_ctx *ctx, struct ly_ctx *raw,
                         const char *json, struct cfg *out)
{
	struct lyd_node *tree = NULL;
	const struct lyd_node *top;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!json[strspn(json, " \t\r\n")])
		return cfg_errf(ps, -EINVAL,
		                "empty configuration (expected an RFC 7951 JSON "
		                "object with \"cellgate:cellgate\")");
	rc = cfg_parse_tree(ps, ctx, json, &tree);
	if (!rc)
		rc = cfg_check_raw_prefixes(ps, raw, json);
	if (!rc) {
		LY_LIST_FOR(tree, top)
		{
			if (!strcmp(top->schema->name, "cellgate"))
				break;
		}
		rc = top ? cfg_fill(ps, out, top) : cfg_errf(ps, -EINVAL, "no cellgate:cellgate");
	}
	lyd_free_all(tree);
	ly_err_clean(ctx, NULL);
	if (rc) {
		cfg_free(out);
		memset(out, 0, sizeof(*out));
	}
	return rc;
}

struct cfg_parser {
	struct ly_ctx *ctx, *raw;
};

static struct cfg_parser *cfg_parser_new_stored(const char *yang_dir, char *errbuf, size_t errlen)
{
	struct cfg_parser *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	/* Schema problems name the .yang file, not the config file. */
	if (!(p->ctx = cfg_ctx_new_stored(yang_dir, errbuf, errlen))) {
		free(p);
		return NULL;
	}
	if (!(p->raw = cfg_raw_ctx_new())) {
		snprintf(errbuf, errlen, "cannot create a libyang context");
		cfg_parser_free(p);
		return NULL;
	}
	return p;
}

struct cfg_parser *cfg_parser_new(const char *yang_dir, char *errbuf, size_t errlen)
{
	uint32_t logopts = ly_log_options(LY_LOSTORE);
	struct cfg_parser *p = cfg_parser_new_stored(yang_dir, errbuf, errlen);

	ly_log_options(logopts);
	return p;
}

void cfg_parser_free(struct cfg_parser *p)
{
	if (!p)
		return;
	if (p->ctx)
		ly_ctx_destroy(p->ctx);
	if (p->raw)
		ly_ctx_destroy(p->raw);
	free(p);
}

struct ly_ctx *cfg_parser_ctx(const struct cfg_parser *p)
{
	return p->ctx;
}

int cfg_parser_parse(struct cfg_parser *p, const char *json, struct cfg *out, char *errbuf,
                     size_t errlen)
{
	struct cfg_pstate ps = {.src = "config", .errbuf = errbuf, .errlen = errlen};
	uint32_t logopts = ly_log_options(LY_LOSTORE);
	int rc = cfg_parse_ctx(&ps, p->ctx, p->raw, json, out);

	ly_log_options(logopts);
	return rc;
}

static int cfg_parse_named(const char *json, const char *src, const char *yang_dir, struct cfg *out,
                           char *errbuf, size_t errlen)
{
	struct cfg_pstate ps = {.src = src, .errbuf = errbuf, .errlen = errlen};
	uint32_t logopts = ly_log_options(LY_LOSTORE);
	struct cfg_parser *p;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!json[strspn(json, " \t\r\n")])
		rc = cfg_parse_ctx(&ps, NULL, NULL, json, out); /* the message, without a schema */
	else if (!(p = cfg_parser_new_stored(yang_dir, errbuf, errlen)))
		rc = errno ? -errno : -ENOMEM;
	else {
		rc = cfg_parse_ctx(&ps, p->ctx, p->raw, json, out);
		cfg_parser_free(p);
	}
	ly_log_options(logopts);
	return rc;
}

int cfg_parse(const char *json, const char *yang_dir, struct cfg *out, char *errbuf, size_t errlen)
{
	return cfg_parse_named(json, "config", yang_dir, out, errbuf, errlen);
}

static int cfg_grow(char **buf, size_t *cap)
{
	size_t ncap = *cap ? *cap * 2 : 4096;
	char *nbuf;

	if (ncap > CFG_FILE_MAX)
		return -EFBIG;
	nbuf = realloc(*buf, ncap);
	if (!nbuf)
		return -ENOMEM;
	*buf = nbuf;
	*cap = ncap;
	return 0;
}

/* The whole file as a NUL-terminated string. */
static int cfg_read_file(const struct cfg_pstate *ps, const char *path, char **out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	ssize_t n = -1;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cfg_errf(ps, -errno, "%s", strerror(errno));
	do {
		if (cap - len < 2 && (rc = cfg_grow(&buf, &cap)) < 0) {
			cfg_errf(ps, rc, "%s", strerror(-rc));
			break;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno != EINTR)
			rc = cfg_errf(ps, -errno, "%s", strerror(errno));
		else if (n > 0)
			len += n;
	} while (!rc && n != 0);
	close(fd);
	if (!rc && memchr(buf, '\0', len))
		rc = cfg_errf(ps, -EINVAL, "contains a NUL byte: not a JSON text file");
	if (rc) {
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int cfg_load(const char *path, const char *yang_dir, struct cfg *out, char *errbuf, size_t errlen)
{
	struct cfg_pstate ps = {.src = path, .errbuf = errbuf, .errlen = errlen};
	char *json = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cfg_read_file(&ps, path, &json);
	if (rc)
		return rc;
	rc = cfg_parse_named(json, path, yang_dir, out, errbuf, errlen);
	free(json);
	return rc;
}

void cfg_free(struct cfg *cfg)
{
	free(cfg->routes);
	cfg->routes = NULL;
	cfg->nroutes = 0;
	free(cfg->routes6);
	cfg->routes6 = NULL;
	cfg->nroutes6 = 0;
	free(cfg->pvcs);
	cfg->pvcs = NULL;
	cfg->npvcs = 0;
}

int cfg_port_index(const struct cfg *cfg, const char *name)
{
	for (unsigned i = 0; i < cfg->nports; i++)
		if (!strcmp(cfg->ports[i].name, name))
			return i;
	return -1;
}
