/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The values behind tests/unit/config/good-atm.{json,ok}: what the datapath
 * will read from struct cfg for ATM ports, subinterfaces and PVCs (defaults,
 * type-dependent InATMARP, sort order, byte order), and the printer on a
 * struct that did not come from cfg_parse.
 *
 * Usage: test_config_atm   (srcdir from $srcdir, as automake sets it, or ".")
 */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tests/unit/check.h"

#ifndef SRC_YANG_DIR
#error "build with -DSRC_YANG_DIR=\"<srcdir>/mgmt/yang\""
#endif

static void check_ports(const struct cfg *c)
{
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x02};

	CHECK_EQ(c->nports, 3);
	CHECK_EQ(c->ports[0].kind, CFG_PORT_ETHERNET);
	CHECK_EQ(c->ports[1].kind, CFG_PORT_CELLPW);
	CHECK(!memcmp(c->ports[1].cellpw.peer_mac, mac, 6));
	CHECK_EQ(c->ports[1].cellpw.pw_label, 1000);
	CHECK(c->ports[1].cellpw.control_word);
	CHECK_EQ(c->ports[1].cellpw.max_cells, 28);
	CHECK_EQ(c->ports[1].cellpw.concat_us, 50);
	CHECK(!strcmp(c->ports[1].netdev, "r-pw"));
	CHECK_EQ(c->ports[1].naddrs, 0);
	CHECK_EQ(c->ports[2].kind, CFG_PORT_ATMSOCK);
	CHECK_EQ(c->ports[2].atmsock.itf, 0);
	CHECK(!strcmp(c->ports[2].netdev, ""));
	CHECK_EQ(c->ports[2].settings.rx_ring_frames, 0);
}

static void check_subifs(const struct cfg *c)
{
	CHECK_EQ(c->nsubifs, 4);
	CHECK(!strcmp(c->subifs[0].name, "atm0.100"));
	CHECK_EQ(c->subifs[0].port, 1);
	CHECK_EQ(c->subifs[0].type, CFG_SUBIF_P2P);
	CHECK_EQ(c->subifs[0].naddrs, 1);
	CHECK_EQ(c->subifs[0].addrs[0].addr, 0x0a010001); /* 10.1.0.1, host order */
	CHECK_EQ(c->subifs[0].addrs[0].plen, 30);
	CHECK_EQ(c->subifs[1].type, CFG_SUBIF_MULTIPOINT);
	CHECK_EQ(c->subifs[1].naddrs, 2);
	CHECK_EQ(c->subifs[1].addrs[1].addr, 0x0a020101);
	CHECK_EQ(c->subifs[2].naddrs, 0); /* unnumbered point-to-point */
	CHECK_EQ(c->subifs[3].port, 2);
	CHECK_EQ(cfg_subif_index(c, "atm1.42"), 3);
	CHECK_EQ(cfg_subif_index(c, "atm0"), -1);
	CHECK_EQ(cfg_port_index(c, "atm0.100"), -1);
}

/* Sorted by port, VPI, VCI; the subinterface index survives the sort. */
static void check_pvc_order(const struct cfg *c)
{
	static const unsigned want[5][4] = {
	    /* port, vpi, vci, subif */
	    {1, 0, 100, 0}, {1, 1, 201, 1}, {1, 1, 300, 1}, {1, 2, 32, 2}, {2, 0, 100, 3},
	};

	CHECK_EQ(c->npvcs, 5);
	for (unsigned i = 0; i < 5 && i < c->npvcs; i++) {
		CHECK_EQ(c->pvcs[i].port, want[i][0]);
		CHECK_EQ(c->pvcs[i].vpi, want[i][1]);
		CHECK_EQ(c->pvcs[i].vci, want[i][2]);
		CHECK_EQ(c->pvcs[i].subif, want[i][3]);
	}
}

static void check_pvc_values(const struct cfg *c)
{
	const struct cfg_pvc *d = &c->pvcs[0], *m = &c->pvcs[1], *s = &c->pvcs[2];

	/* 0/100 on atm0.100: every default. */
	CHECK_EQ(d->encap, CFG_ENCAP_LLC_SNAP);
	CHECK_EQ(d->mtu, 9180);
	CHECK_EQ(d->service, CFG_SERVICE_UBR);
	CHECK_EQ(d->pcr, 0);
	CHECK_EQ(d->queue_cells, 8192);
	CHECK_EQ(d->reasm_timeout_ms, 2000);
	CHECK(!d->oam_enabled);
	CHECK_EQ(d->oam_interval_ms, 10000);
	CHECK_EQ(d->oam_retry_ms, 1000);
	CHECK_EQ(d->oam_down_count, 5);
	CHECK_EQ(d->oam_up_count, 3);
	CHECK(!d->inatmarp); /* point-to-point */
	CHECK_EQ(d->inatmarp_interval_ms, 900000);
	CHECK_EQ(d->peer_addr, 0);
	CHECK(!strcmp(d->pcap, ""));
	/* 1/201 on multipoint atm0.200: everything set but InATMARP's switch. */
	CHECK_EQ(m->service, CFG_SERVICE_CBR);
	CHECK_EQ(m->pcr, 4716);
	CHECK_EQ(m->queue_cells, 1024);
	CHECK_EQ(m->mtu, 1500);
	CHECK_EQ(m->reasm_timeout_ms, 500);
	CHECK(m->oam_enabled);
	CHECK_EQ(m->oam_interval_ms, 5000);
	CHECK_EQ(m->oam_retry_ms, 500);
	CHECK_EQ(m->oam_down_count, 3);
	CHECK_EQ(m->oam_up_count, 2);
	CHECK(m->inatmarp); /* the multipoint default */
	CHECK_EQ(m->inatmarp_interval_ms, 60000);
	/* 1/300: a static map instead of InATMARP, and a capture file. */
	CHECK(!s->inatmarp);
	CHECK_EQ(s->peer_addr, 0x0a020003);
	CHECK(!strcmp(s->pcap, "atm0-1-300.pcap"));
	/* 2/32: VC-mux, shaped UBR; 0/100 on atm1.42: InATMARP switched on. */
	CHECK_EQ(c->pvcs[3].encap, CFG_ENCAP_VCMUX_IPV4);
	CHECK_EQ(c->pvcs[3].service, CFG_SERVICE_UBR);
	CHECK_EQ(c->pvcs[3].pcr, 10000);
	CHECK(c->pvcs[4].inatmarp);
}

static void test_good_atm(const char *srcdir)
{
	char path[4096], err[1024];
	struct cfg c;

	snprintf(path, sizeof(path), "%s/tests/unit/config/good-atm.json", srcdir);
	if (cfg_load(path, SRC_YANG_DIR, &c, err, sizeof(err)) < 0) {
		CHECK(!"good-atm.json loads");
		fprintf(stderr, "%s\n", err);
		return;
	}
	check_ports(&c);
	check_subifs(&c);
	check_pvc_order(&c);
	if (c.npvcs == 5)
		check_pvc_values(&c);
	/* An on-link route out of a subinterface is one gateway-less next hop. */
	CHECK_EQ(c.nroutes, 4);
	CHECK(c.nroutes == 4 && !strcmp(c.routes[1].nexthops[0].port, "atm0.100") &&
	      c.routes[1].nexthops[0].gateway == 0);
	cfg_free(&c);
	CHECK(c.pvcs == NULL && c.npvcs == 0);
}

/*
 * good-atm-ipv6-multipoint.json: the static IPv6 map (ipv6-peer-address) of
 * multipoint subinterfaces, in configuration order, link-local entries kept,
 * on llc-snap and vc-mux-ipv6 PVCs; IPv6 addresses on a multipoint
 * subinterface (no longer point-to-point only).
 */
static void test_good_atm_ipv6_multipoint(const char *srcdir)
{
	static const uint8_t p201a[16] = {0x20, 0x01, 0x0d, 0xb8, 0x02, [15] = 0x02};
	static const uint8_t p201b[16] = {0xfe, 0x80, [15] = 0x02};
	static const uint8_t p203[16] = {0x20, 0x01, 0x0d, 0xb8, 0x02, [15] = 0x04};
	char path[4096], err[1024];
	struct cfg c;

	snprintf(path, sizeof(path), "%s/tests/unit/config/good-atm-ipv6-multipoint.json", srcdir);
	if (cfg_load(path, SRC_YANG_DIR, &c, err, sizeof(err)) < 0) {
		CHECK(!"good-atm-ipv6-multipoint.json loads");
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_EQ(c.nsubifs, 2);
	CHECK_EQ(c.subifs[0].type, CFG_SUBIF_MULTIPOINT);
	CHECK_EQ(c.subifs[0].naddrs6, 2);
	CHECK_EQ(c.npvcs, 4);
	if (c.npvcs == 4) {
		CHECK_EQ(c.pvcs[0].vci, 201);
		CHECK_EQ(c.pvcs[0].npeers6, 2);
		CHECK(!memcmp(c.pvcs[0].peers6[0], p201a, 16));
		CHECK(!memcmp(c.pvcs[0].peers6[1], p201b, 16));
		CHECK_EQ(c.pvcs[0].peer_addr, 0x0a020002); /* IPv4 and IPv6 maps side by side */
		CHECK_EQ(c.pvcs[1].npeers6, 1);
		CHECK_EQ(c.pvcs[2].encap, CFG_ENCAP_VCMUX_IPV6);
		CHECK(!c.pvcs[2].inatmarp);
		CHECK(c.pvcs[2].npeers6 == 1 && !memcmp(c.pvcs[2].peers6[0], p203, 16));
		/* The same link-local address on another subinterface is another link's. */
		CHECK(c.pvcs[3].subif == 1 && c.pvcs[3].npeers6 == 2 &&
		      !memcmp(c.pvcs[3].peers6[1], p201b, 16));
		/* A map change is a PVC change (deleted and added at runtime). */
		struct cfg_pvc v = c.pvcs[0];
		CHECK(cfg_pvc_same(&c.pvcs[0], &v));
		v.peers6[1][15] = 3;
		CHECK(!cfg_pvc_same(&c.pvcs[0], &v));
		v = c.pvcs[0];
		v.npeers6 = 1;
		CHECK(!cfg_pvc_same(&c.pvcs[0], &v));
	}
	cfg_free(&c);
}

/* A struct built by hand, PVCs out of order: printed by VPI/VCI, and parsed back sorted. */
static void test_print_unsorted(void)
{
	static struct cfg c;
	struct cfg_pvc pvcs[3] = {
	    {.vpi = 1, .vci = 40}, {.vpi = 0, .vci = 50}, {.vpi = 1, .vci = 33}};
	char *buf = NULL, err[1024], *v50, *v33, *v40;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct cfg back;

	/* Values the schema accepts wherever it has a range. */
	memset(&c, 0, sizeof(c));
	/* What the loader fills in for an absent routing/fpm container (its YANG defaults). */
	c.fpm = (struct cfg_fpm){.enabled = true, .address = "127.0.0.1", .port = 2620,
	                         .settle_s = 20};
	c.workers = c.arp_retries = 1;
	c.icmp_burst = c.arp_timeout_s = 1;
	c.nports = 1;
	c.ports[0] = (struct cfg_port){
	    .name = "atm0",
	    .driver = "cellpw",
	    .netdev = "eth9",
	    .settings = {.rx_ring_frames = 64, .tx_ring_frames = 64},
	    .kind = CFG_PORT_CELLPW,
	    .cellpw = {.peer_mac = {2, 0, 0, 0, 0, 1}, .pw_label = 16, .max_cells = 1}};
	c.nsubifs = 1;
	c.subifs[0] = (struct cfg_subif){.name = "atm0.1", .type = CFG_SUBIF_MULTIPOINT};
	for (int i = 0; i < 3; i++) {
		pvcs[i].mtu = 9180;
		pvcs[i].queue_cells = 192;
		pvcs[i].reasm_timeout_ms = pvcs[i].oam_interval_ms = pvcs[i].oam_retry_ms = 1000;
		pvcs[i].oam_down_count = pvcs[i].oam_up_count = 1;
		pvcs[i].inatmarp = true;
		pvcs[i].inatmarp_interval_ms = 1000;
	}
	c.npvcs = 3;
	c.pvcs = pvcs;
	CHECK(mem && cfg_print(&c, mem) == 0);
	if (mem)
		fclose(mem);
	v50 = buf ? strstr(buf, "\"vci\": 50") : NULL;
	v33 = buf ? strstr(buf, "\"vci\": 33") : NULL;
	v40 = buf ? strstr(buf, "\"vci\": 40") : NULL;
	CHECK(v50 && v33 && v40 && v50 < v33 && v33 < v40);
	if (buf && cfg_parse(buf, SRC_YANG_DIR, &back, err, sizeof(err)) == 0) {
		CHECK_EQ(back.npvcs, 3);
		CHECK(back.npvcs == 3 && back.pvcs[0].vci == 50 && back.pvcs[2].vci == 40);
		cfg_free(&back);
	} else {
		CHECK(!"the printout parses");
		fprintf(stderr, "%s\n", buf ? err : "no printout");
	}
	free(buf);
}

int main(void)
{
	const char *srcdir = getenv("srcdir");

	test_good_atm(srcdir ? srcdir : ".");
	test_good_atm_ipv6_multipoint(srcdir ? srcdir : ".");
	test_print_unsorted();
	return check_report("test_config_atm");
}
