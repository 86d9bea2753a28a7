/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Restart-only detection compares fields, not bytes: a copy of a parsed
 * configuration with noise in what carries no meaning (struct padding, the
 * bytes after a string's terminator, array slots past a count) is the same
 * configuration, while a change to any field that cannot change at runtime
 * is found and named with its data path. The same for PVCs.
 */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tests/unit/check.h"

#ifndef SRC_YANG_DIR
#error "build with -DSRC_YANG_DIR=\"<srcdir>/mgmt/yang\""
#endif

static const char *json =
    "{\"cellgate:cellgate\": {\"system\": {\"workers\": 1},"
    " \"port\": [{\"name\": \"eth0\", \"driver\": \"afpacket\", \"netdev\": \"r-h1\","
    "   \"ipv4\": {\"address\": [{\"ip\": \"10.0.1.1\", \"prefix-length\": 24}]},"
    "   \"ipv6\": {\"address\": [{\"ip\": \"2001:db8:1::1\", \"prefix-length\": 64}]}},"
    "  {\"name\": \"atm0\", \"driver\": \"cellpw\", \"netdev\": \"r-pw\","
    "   \"cellpw\": {\"peer-mac\": \"02:00:00:00:00:02\", \"pw-label\": 100},"
    "   \"subinterface\": [{\"name\": \"atm0.100\", \"type\": \"point-to-point\","
    "     \"ipv4\": {\"address\": [{\"ip\": \"10.1.0.1\", \"prefix-length\": 30}]},"
    "     \"pvc\": [{\"vpi\": 0, \"vci\": 100, \"capture-file\": \"a.pcap\"}]}]}],"
    " \"routing\": {\"fpm\": {\"allowed-peer\": [\"127.0.0.1\"]},"
    "   \"static-route6\": [{\"prefix\": \"::/0\", \"nexthop\": [{\"address\": "
    "\"2001:db8:1::2\"}]}]},"
    " \"restconf\": {\"user\": [{\"name\": \"noc\", \"password-hash\": \"$6$x$y\"}]}}}";

/* What means nothing: padding and slack bytes, set to noise in a copy. */
static void add_noise(struct cfg *c)
{
	for (unsigned i = 0; i < c->nports; i++) {
		struct cfg_port *p = &c->ports[i];
		size_t n = strlen(p->netdev);
		memset(p->netdev + n + 1, 'x', sizeof(p->netdev) - n - 1);
		/* struct cfg_addr4 is 8 bytes for 5 of data; slots past naddrs unused */
		for (unsigned a = 0; a < CFG_ADDR_MAX; a++)
			memset((uint8_t *)&p->addrs[a] + 5, 0xa5, 3);
		p->addrs[CFG_ADDR_MAX - 1].addr = 0xdeadbeef;
	}
	memset(&c->ports[c->nports], 0x5a, sizeof(c->ports[0]));
	memset(&c->subifs[c->nsubifs], 0x5a, sizeof(c->subifs[0]));
	c->worker_cpus[WORKER_MAX - 1] = 99;
	memset(&c->restconf.users[c->restconf.nusers], 0x33, sizeof(c->restconf.users[0]));
	size_t n = strlen(c->restconf.users[0].name);
	c->restconf.users[0].name[n + 1] = '!';
	snprintf(c->fpm.peers[c->fpm.npeers], sizeof(c->fpm.peers[0]), "192.0.2.1");
	n = strlen(c->pvcs[0].pcap);
	memset(c->pvcs[0].pcap + n + 1, 'y', sizeof(c->pvcs[0].pcap) - n - 1);
}

/*
 * IPv6 addresses change at runtime (daemon/addrs6.c), a port's first one
 * and whether it has any too (published for the workers, datapath/port.h);
 * only whether a subinterface has any still needs a restart, named as such.
 */
static void ipv6_changes(const struct cfg *a, struct cfg *b)
{
	const char *path, *what;

	CHECK_EQ(a->ports[0].naddrs6, 1);
	b->ports[0].addrs6[0].plen = 56; /* the first one's prefix length */
	CHECK(cfg_restart_only_diff(a, b, &path) == NULL);
	b->ports[0].addrs6[1] =
	    (struct cfg_addr6){.addr = {0x20, 0x01, 0x0d, 0xb8, 0, 7, [15] = 1}, .plen = 64};
	b->ports[0].naddrs6 = 2; /* a second address */
	CHECK(cfg_restart_only_diff(a, b, &path) == NULL);
	b->ports[0].addrs6[0] = b->ports[0].addrs6[1]; /* a new first one */
	CHECK(cfg_restart_only_diff(a, b, &path) == NULL);
	b->ports[0].addrs6[0] = a->ports[0].addrs6[0];
	b->ports[0].naddrs6 = 0; /* none left: the port stops forwarding IPv6 */
	CHECK(cfg_restart_only_diff(a, b, &path) == NULL);
	b->ports[0].naddrs6 = 1;
	b->subifs[0].naddrs6 = a->subifs[0].naddrs6 + 1; /* IPv6 on a subinterface that had none */
	what = cfg_restart_only_diff(a, b, &path);
	CHECK(what && strstr(what, "IPv6") && !strcmp(path, "/cellgate:cellgate/port"));
	b->subifs[0].naddrs6 = a->subifs[0].naddrs6;
	b->ports[0].settings.promiscuous = !b->ports[0].settings.promiscuous;
	what = cfg_restart_only_diff(a, b, &path);
	CHECK(what && !strstr(what, "IPv6")); /* not blamed on IPv6 */
	b->ports[0].settings.promiscuous = a->ports[0].settings.promiscuous;
	b->ports[0].addrs6[0].plen = a->ports[0].addrs6[0].plen;
	CHECK(cfg_restart_only_diff(a, b, &path) == NULL);
	/* The ND timers are read by neigh6 every tick: runtime. */
	CHECK_EQ(a->ports[0].nd_reachable_ms, CFG_ND_REACHABLE_MS_DEFAULT);
	CHECK_EQ(a->ports[0].nd_retrans_ms, CFG_ND_RETRANS_MS_DEFAULT);
	b->ports[0].nd_reachable_ms = 5000;
	b->ports[0].nd_retrans_ms = 250;
	CHECK(cfg_restart_only_diff(a, b, &path) == NULL);
	b->ports[0].nd_reachable_ms = a->ports[0].nd_reachable_ms;
	b->ports[0].nd_retrans_ms = a->ports[0].nd_retrans_ms;
}

/* The helpers addrs6.c and neigh6_flush_prefix decide with. */
static void addr6_helpers(void)
{
	/* 2001:db8:1::1/64 and 2001:db8:7:12ff::1/57 */
	struct cfg_addr6 l[2] = {
	    {.addr = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1}, .plen = 64},
	    {.addr = {0x20, 0x01, 0x0d, 0xb8, 0, 7, 0x12, 0xff, [15] = 1}, .plen = 57}};
	struct cfg_addr6 x = l[0];
	uint8_t net[16], in[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 7, 0x12, 0x81, [15] = 9};

	CHECK(cfg_addr6_in(l, 2, &x));
	x.plen = 56;
	CHECK(!cfg_addr6_in(l, 2, &x)); /* the prefix length is part of it */
	CHECK(!cfg_addr6_in(l, 0, &l[0]));
	cfg_addr6_prefix(&l[1], net);
	/* Bit 56 (byte 7's first) is the prefix's last; the rest is cleared. */
	CHECK(net[6] == 0x12 && net[7] == 0x80 && net[15] == 0);
	CHECK(cfg_addr6_on_link(l, 2, in));
	CHECK(!cfg_addr6_on_link(l, 1, in));
	in[7] = 0x7f; /* bit 56 differs */
	CHECK(!cfg_addr6_on_link(l, 2, in));
	in[5] = 1;
	in[6] = in[7] = 0;
	CHECK(cfg_addr6_on_link(l, 2, in)); /* 2001:db8:1::/64 */
}

int main(void)
{
	static struct cfg a, b;
	struct cfg_pvc pvc;
	const char *path;
	char err[1024];

	if (cfg_parse(json, SRC_YANG_DIR, &a, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	b = a; /* the PVC array is shared: its slack bytes get noise for both */
	add_noise(&b);
	CHECK(cfg_restart_only_diff(&a, &b, &path) == NULL);
	CHECK(path == NULL);
	pvc = a.pvcs[0];
	size_t n = strlen(pvc.pcap);
	memset(pvc.pcap + n + 1, 'z', sizeof(pvc.pcap) - n - 1);
	CHECK(cfg_pvc_same(&a.pvcs[0], &pvc));

	/* Real changes are found, each with its data path. */
	b.ports[0].settings.promiscuous = !b.ports[0].settings.promiscuous;
	CHECK(cfg_restart_only_diff(&a, &b, &path) != NULL);
	CHECK(path && !strcmp(path, "/cellgate:cellgate/port"));
	b.ports[0].settings.promiscuous = a.ports[0].settings.promiscuous;
	b.subifs[0].addrs[0].plen = 29;
	CHECK(cfg_restart_only_diff(&a, &b, &path) && !strcmp(path, "/cellgate:cellgate/port"));
	b.subifs[0].addrs[0].plen = a.subifs[0].addrs[0].plen;
	ipv6_changes(&a, &b);
	CHECK_EQ(a.nroutes6, 1);
	b.nroutes6 = 0; /* IPv6 static routes change at runtime (routes6_static_update) */
	CHECK(!cfg_restart_only_diff(&a, &b, &path));
	b.nroutes6 = a.nroutes6;
	b.fpm.npeers++;
	CHECK(cfg_restart_only_diff(&a, &b, &path) &&
	      !strcmp(path, "/cellgate:cellgate/routing/fpm"));
	b.fpm.npeers--;
	b.restconf.users[0].password_hash[1] = '5';
	CHECK(cfg_restart_only_diff(&a, &b, &path) && !strcmp(path, "/cellgate:cellgate/restconf"));
	b.restconf.users[0].password_hash[1] = '6';
	b.capture.max_s = 5;
	CHECK(cfg_restart_only_diff(&a, &b, &path) &&
	      !strcmp(path, "/cellgate:cellgate/system/capture"));
	b.capture.max_s = a.capture.max_s;
	CHECK(cfg_restart_only_diff(&a, &b, &path) == NULL);
	pvc.mtu = 1500;
	CHECK(!cfg_pvc_same(&a.pvcs[0], &pvc));
	addr6_helpers();
	cfg_free(&a);
	return check_report("test_config_cmp");
}
