/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SNMP tables without net-snmp: the GETNEXT walk against a naive
 * reference, the values the ATM-MIB (RFC 2515), ATM2-MIB (RFC 3606) and
 * CELLGATE-MIB rows take from a hand-made stats snapshot. test_snmp_mib.c
 * checks the MIB text against the same tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/snmp/snmp_model.h"
#include "tests/unit/check.h"

/* --- the walk: a toy table against a sorted list of its instances ------ */

static const mib_subid toy_oid[] = {1, 3, 6, 1, 4, 1, 99, 5};
static const uint8_t toy_cols[] = {2, 3, 7};
static const mib_subid toy_idx[][2] = {{1, 0}, {1, 5}, {4, 2}, {300, 1}};

static unsigned toy_nrows(const void *ctx)
{
	return 4;
}

static void toy_index(const void *ctx, unsigned row, mib_subid *idx)
{
	idx[0] = toy_idx[row][0];
	idx[1] = toy_idx[row][1];
}

/* Column 3 has no value in row 2: a sparse column. */
static bool toy_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	if (col == 3 && row == 2)
		return false;
	v->type = MIB_GAUGE32;
	v->num = col * 1000 + row;
	return true;
}

static const struct mib_table toy = {
    .name = "toy",
    .oid = toy_oid,
    .oid_len = 8,
    .cols = toy_cols,
    .ncols = 3,
    .index_len = 2,
    .nrows = toy_nrows,
    .index = toy_index,
    .value = toy_value,
};

struct inst {
	mib_subid o[16];
	unsigned len;
	uint64_t val;
};

static unsigned toy_instances(struct inst *out)
{
	unsigned n = 0;

	for (unsigned c = 0; c < 3; c++)
		for (unsigned r = 0; r < 4; r++) {
			struct mib_val v;
			if (!toy_value(NULL, r, toy_cols[c], &v))
				continue;
			memcpy(out[n].o, toy_oid, sizeof(toy_oid));
			out[n].o[8] = 1;
			out[n].o[9] = toy_cols[c];
			out[n].o[10] = toy_idx[r][0];
			out[n].o[11] = toy_idx[r][1];
			out[n].len = 12;
			out[n].val = v.num;
			n++;
		}
	return n;
}

/* GETNEXT of `probe` must give the smallest instance after it. */
static void check_next(const struct inst *all, unsigned n, const mib_subid *probe, unsigned plen)
{
	mib_subid out[MIB_OID_MAX];
	unsigned out_len = 0, want = n;
	struct mib_val v;
	int rc = mib_table_next(&toy, NULL, probe, plen, out, &out_len, &v);

	for (unsigned i = 0; i < n; i++)
		if (mib_oid_cmp(all[i].o, all[i].len, probe, plen) > 0) {
			want = i;
			break;
		}
	if (want == n) {
		CHECK_EQ(rc, MIB_END);
		return;
	}
	CHECK_EQ(rc, MIB_OK);
	CHECK(mib_oid_cmp(out, out_len, all[want].o, all[want].len) == 0);
	CHECK_EQ(v.num, all[want].val);
}

static void test_walk(void)
{
	struct inst all[16];
	unsigned n = toy_instances(all);
	mib_subid p[16];
	struct mib_val v;

	CHECK_EQ(n, 11);
	CHECK_EQ(mib_oid_cmp((mib_subid[]){1, 2}, 2, (mib_subid[]){1, 2, 0}, 3), -1);
	CHECK_EQ(mib_oid_cmp((mib_subid[]){1, 3}, 2, (mib_subid[]){1, 2, 9}, 3), 1);
	/* Before, at and inside the table, and every instance and its neighbours. */
	check_next(all, n, (mib_subid[]){1}, 1);
	check_next(all, n, toy_oid, 7);
	check_next(all, n, toy_oid, 8);
	memcpy(p, toy_oid, sizeof(toy_oid));
	p[8] = 1;
	check_next(all, n, p, 9);
	for (mib_subid col = 0; col <= 8; col++) {
		p[9] = col;
		check_next(all, n, p, 10);
		for (mib_subid a = 0; a <= 301; a += (a < 5 ? 1 : 99)) {
			p[10] = a;
			check_next(all, n, p, 11);
			for (mib_subid b = 0; b <= 6; b++) {
				p[11] = b;
				check_next(all, n, p, 12);
				p[12] = 0; /* longer than an instance: just after it */
				check_next(all, n, p, 13);
			}
		}
	}
	/* Sub-identifiers beyond 32 bits (a manager may send anything). */
	p[9] = 3;
	p[10] = (mib_subid)1 << 40;
	check_next(all, n, p, 11);
	p[8] = 2; /* after the entry: past the table */
	check_next(all, n, p, 9);

	/* GET: instances, a missing row, a sparse cell, a wrong column, a short OID. */
	for (unsigned i = 0; i < n; i++) {
		CHECK_EQ(mib_table_get(&toy, NULL, all[i].o, all[i].len, &v), MIB_OK);
		CHECK_EQ(v.num, all[i].val);
	}
	memcpy(p, all[0].o, sizeof(all[0].o));
	p[10] = 2;
	CHECK_EQ(mib_table_get(&toy, NULL, p, 12, &v), MIB_NO_INSTANCE);
	p[9] = 3, p[10] = 4, p[11] = 2;
	CHECK_EQ(mib_table_get(&toy, NULL, p, 12, &v), MIB_NO_INSTANCE);
	p[9] = 4;
	CHECK_EQ(mib_table_get(&toy, NULL, p, 12, &v), MIB_NO_OBJECT);
	p[9] = 2;
	CHECK_EQ(mib_table_get(&toy, NULL, p, 11, &v), MIB_NO_INSTANCE);
	CHECK_EQ(mib_table_get(&toy, NULL, p, 9, &v), MIB_NO_OBJECT);
}

/* --- the model: a daemon with two ATM ports --------------------------------- */

#define NOW_MS    1800000000000ull /* CLOCK_REALTIME of the request */
#define NOW_TICKS 10000u           /* sysUpTime: snmpd up for 100 s */

/*
 * Ports: 0 eth0 (ifindex 2), 1 atm1 (ifindex 9), 2 atm0 (ifindex 5), then
 * subinterfaces 3 atm1.1 (11), 4 atm0.100 (7), 5 atm0.200 (8). VCs in
 * configuration order: 0 = atm1 0/32 (vc-mux, MTU 1500), 1 = atm0 1/40,
 * 2 = atm0 0/200 (peer-address 10.2.0.9), 3 = atm0 0/100.
 */
static struct snmp_source src = {
    .start_ms = NOW_MS - 60000, /* counters started 60 s ago: sysUpTime 4000 */
    .nports = 6,
    .port = {{2, "eth0", SNMP_PORT_ETHERNET},
             {9, "atm1", SNMP_PORT_ATM},
             {5, "atm0", SNMP_PORT_ATM},
             {11, "atm1.1", SNMP_PORT_ATM_SUBIF},
             {7, "atm0.100", SNMP_PORT_ATM_SUBIF},
             {8, "atm0.200", SNMP_PORT_ATM_SUBIF}},
    .nvcs = 4,
    .vc = {{.atm_port = 1, .subif = 3, .vpi = 0, .vci = 32, .llc = false, .sdu_size = 1500},
           {.atm_port = 2,
            .subif = 4,
            .vpi = 1,
            .vci = 40,
            .llc = true,
            .sdu_size = 9188,
            .npeers6 = 1,
            .peers6 = {{0xfe, 0x80, [15] = 0x41}}},
           {.atm_port = 2,
            .subif = 5,
            .vpi = 0,
            .vci = 200,
            .llc = true,
            .sdu_size = 9188,
            .peer_addr = 0x0a020009,
            .npeers6 = 2,
            .peers6 = {{0x20, 0x01, 0x0d, 0xb8, [15] = 2}, {0x20, 0x01, 0x0d, 0xb8, [15] = 3}}},
           {.atm_port = 2, .subif = 4, .vpi = 0, .vci = 100, .llc = true, .sdu_size = 9188}},
};

static void fake_stats(void *arg, struct stats_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->nports = 6;
	s->nvcs = 4;
	for (unsigned p = 0; p < 6; p++) {
		s->port[p].c.rx_packets = 100 + p;
		s->port[p].c.drops[DROP_NO_ROUTE] = 10 + p;
		s->port[p].c.ip6_in_packets = 60 + p;
		s->port[p].c.ip6_out_octets = 7000 + p;
		s->port[p].c.ip6_icmp_out = 30 + p;
		s->port[p].drops_total = 10 + p;
		s->port[p].rx_ring_drops = 3;
	}
	s->is_atm[1] = s->is_atm[2] = true;
	s->atm[2].cells_in = 777;
	s->atm[2].punt_errors = 4;
	for (unsigned v = 0; v < 4; v++) {
		struct vc_counters *c = &s->vc[v].c;
		s->vc[v].oper = VC_OPER_UP;
		c->cells_in = (1ull << 32) + 5 + v; /* Counter32 wraps, Counter64 does not */
		c->clp0_cells_in = 40 + v;
		c->cells_out = 50 + v;
		c->clp0_cells_out = 60 + v;
		c->pdus_in = 70 + v;
		c->pdus_out = 80 + v;
		c->octets_in = 90 + v;
		c->octets_out = 100 + v;
		c->lb_sent = 7;
		c->discards[VC_DROP_CRC] = 11 + v;
		c->discards[VC_DROP_TIMEOUT] = 21 + v;
		c->discards[VC_DROP_OVERSIZE] = 31 + v;
		c->discards[VC_DROP_TOO_BIG] = 41 + v;
		s->vc[v].discards_total = 104 + 4 * v;
	}
	s->vc[3].oper = VC_OPER_DOWN;
	s->vc[3].oper_change_ms = NOW_MS - 30000;  /* 30 s ago: sysUpTime 7000 */
	s->vc[1].oper_change_ms = NOW_MS - 500000; /* before snmpd started: 0 */
}

/* VC 1 (atm0 1/40) learned 10.1.0.2 90.5 s ago. */
static bool fake_learned(void *arg, unsigned vc, uint32_t *ip, uint64_t *age_ms)
{
	if (vc != 1)
		return false;
	*ip = 0x0a010002;
	*age_ms = 90500;
	return true;
}

static void fake_fib(void *arg, struct snmp_fib_view *f)
{
	f->routes = 12;
	f->nexthops = 5000000000ull; /* Gauge32 latches at its maximum */
	f->memory_bytes = 3 * 1024 + 1000;
	f->routes_frr = 10;
	f->routes_static = 2;
}

static void fake_loop(void *arg, struct snmp_loop_view *l)
{
	*l = (struct snmp_loop_view){
	    .lag_recent_us = 4200, .lag_max_us = 99000, .busy_recent_us = 700};
}

/* GET of table t, column col, index idx[0..n-1]; the value, or ~0 if none. */
static uint64_t get(const struct snmp_model *m, const struct mib_table *t, unsigned col,
                    const mib_subid *idx, unsigned n, enum mib_type *type)
{
	mib_subid o[MIB_OID_MAX];
	unsigned len = 0;
	struct mib_val v;

	for (unsigned i = 0; i < t->oid_len; i++)
		o[len++] = t->oid[i];
	if (!t->scalar)
		o[len++] = 1;
	o[len++] = col;
	for (unsigned i = 0; i < n; i++)
		o[len++] = idx[i];
	if (mib_table_get(t, m, o, len, &v) != MIB_OK)
		return ~0ull;
	if (type)
		*type = v.type;
	return v.type == MIB_OCTETS ? (uint64_t)(uintptr_t)v.str : v.num;
}

#define VC(i, p, c) ((mib_subid[]){i, p, c})

static void test_atm_tables(struct snmp_model *m)
{
	enum mib_type t;

	/* Rows by ifIndex, VPI, VCI: atm0 (5) 0/100, 0/200, 1/40, then atm1 (9) 0/32. */
	CHECK_EQ(m->nvc_rows, 4);
	CHECK_EQ(m->vc_rows[0], 3);
	CHECK_EQ(m->vc_rows[1], 2);
	CHECK_EQ(m->vc_rows[2], 1);
	CHECK_EQ(m->vc_rows[3], 0);

	/* atmVclTable */
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 3, VC(5, 0, 100), 3, &t), 1); /* admin up */
	CHECK_EQ(t, MIB_INTEGER);
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 4, VC(5, 0, 100), 3, NULL), 2); /* oper down */
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 4, VC(5, 1, 40), 3, NULL), 1);
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 5, VC(5, 0, 100), 3, &t), 7000);
	CHECK_EQ(t, MIB_TIMETICKS);
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 5, VC(5, 1, 40), 3, NULL), 0);
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 5, VC(5, 0, 200), 3, NULL), 0);
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 8, VC(9, 0, 32), 3, NULL), 3); /* aal5 */
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 9, VC(9, 0, 32), 3, NULL), 1500);
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 10, VC(5, 0, 100), 3, NULL), 9188);
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 11, VC(9, 0, 32), 3, NULL), 1);     /* VC-mux routed */
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 11, VC(5, 0, 100), 3, NULL), 7);    /* LLC */
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 6, VC(5, 0, 100), 3, NULL), ~0ull); /* not served */
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 4, VC(7, 0, 100), 3, NULL), ~0ull); /* subif ifIndex */
	CHECK_EQ(get(m, &snmp_atm_vcl_table, 4, VC(5, 0, 101), 3, NULL), ~0ull);

	/* aal5VccTable: VC 3 is atm0 0/100 */
	CHECK_EQ(get(m, &snmp_aal5_vcc_table, 3, VC(5, 0, 100), 3, &t), 14);
	CHECK_EQ(t, MIB_COUNTER32);
	CHECK_EQ(get(m, &snmp_aal5_vcc_table, 4, VC(5, 0, 100), 3, NULL), 24);
	CHECK_EQ(get(m, &snmp_aal5_vcc_table, 5, VC(5, 0, 100), 3, NULL), 34);

	/* atmVclStatTable: Counter32 wraps; no policing, so no discards or tagging */
	CHECK_EQ(get(m, &snmp_atm_vcl_stat_table, 1, VC(9, 0, 32), 3, &t), 5);
	CHECK_EQ(t, MIB_COUNTER32);
	CHECK_EQ(get(m, &snmp_atm_vcl_stat_table, 2, VC(9, 0, 32), 3, NULL), 40);
	CHECK_EQ(get(m, &snmp_atm_vcl_stat_table, 3, VC(9, 0, 32), 3, NULL), 0);
	CHECK_EQ(get(m, &snmp_atm_vcl_stat_table, 4, VC(9, 0, 32), 3, NULL), 0);
	CHECK_EQ(get(m, &snmp_atm_vcl_stat_table, 5, VC(5, 1, 40), 3, NULL), 51);
	CHECK_EQ(get(m, &snmp_atm_vcl_stat_table, 6, VC(5, 1, 40), 3, NULL), 61);
	CHECK_EQ(get(m, &snmp_atm_vcl_stat_table, 7, VC(5, 1, 40), 3, NULL), 0);

	/* atmAal5VclStatTable */
	CHECK_EQ(get(m, &snmp_atm_aal5_vcl_stat_table, 1, VC(5, 0, 200), 3, NULL), 72);
	CHECK_EQ(get(m, &snmp_atm_aal5_vcl_stat_table, 2, VC(5, 0, 200), 3, NULL), 82);
	CHECK_EQ(get(m, &snmp_atm_aal5_vcl_stat_table, 3, VC(5, 0, 200), 3, NULL), 92);
	CHECK_EQ(get(m, &snmp_atm_aal5_vcl_stat_table, 4, VC(5, 0, 200), 3, NULL), 102);
}

static void test_cellgate_tables(struct snmp_model *m)
{
	enum mib_type t;
	mib_subid zero[] = {0};

	CHECK_EQ(get(m, &cg_system_group, 1, zero, 1, &t), 4000);
	CHECK_EQ(t, MIB_TIMETICKS);
	CHECK_EQ(get(m, &cg_system_group, 2, zero, 1, &t), 12);
	CHECK_EQ(t, MIB_GAUGE32);
	CHECK_EQ(get(m, &cg_system_group, 3, zero, 1, NULL), UINT32_MAX);
	CHECK_EQ(get(m, &cg_system_group, 2, (mib_subid[]){1}, 1, NULL), ~0ull);
	/* FIB memory in KiB, the loop's lag, routes per source: running counts. */
	CHECK_EQ(get(m, &cg_system_group, 6, zero, 1, &t), 3);
	CHECK_EQ(t, MIB_GAUGE32);
	CHECK_EQ(get(m, &cg_system_group, 7, zero, 1, NULL), 4200);
	CHECK_EQ(get(m, &cg_system_group, 8, zero, 1, NULL), 99000);
	CHECK_EQ(get(m, &cg_system_group, 9, zero, 1, NULL), 700);
	CHECK_EQ(get(m, &cg_system_group, 10, zero, 1, NULL), 10);
	CHECK_EQ(get(m, &cg_system_group, 11, zero, 1, NULL), 2);
	CHECK_EQ(get(m, &cg_system_group, 12, zero, 1, NULL), ~0ull);
	/* FPM not configured: disabled(1), counters zero */
	CHECK_EQ(get(m, &cg_fpm_group, 1, zero, 1, NULL), SNMP_FPM_DISABLED);
	CHECK_EQ(get(m, &cg_fpm_group, 3, zero, 1, &t), 0);
	CHECK_EQ(t, MIB_COUNTER64);

	/* Ports by ifIndex: eth0 2, atm0 5, atm0.100 7, atm0.200 8, atm1 9, atm1.1 11 */
	CHECK_EQ(m->nport_rows, 6);
	CHECK(!strcmp((const char *)(uintptr_t)get(m, &cg_port_table, 2, (mib_subid[]){5}, 1, NULL),
	              "atm0"));
	CHECK_EQ(get(m, &cg_port_table, 3, (mib_subid[]){5}, 1, NULL), SNMP_PORT_ATM);
	CHECK_EQ(get(m, &cg_port_table, 3, (mib_subid[]){8}, 1, NULL), SNMP_PORT_ATM_SUBIF);
	CHECK_EQ(get(m, &cg_port_table, 4, (mib_subid[]){11}, 1, NULL), 103);
	CHECK_EQ(get(m, &cg_port_table, 14, (mib_subid[]){2}, 1, NULL), 3);
	CHECK_EQ(get(m, &cg_port_table, 15, (mib_subid[]){2}, 1, NULL), 10);
	CHECK_EQ(get(m, &cg_port_table, 16, (mib_subid[]){2}, 1, NULL), 4000);
	CHECK_EQ(get(m, &cg_port_table, 4, (mib_subid[]){3}, 1, NULL), ~0ull);
	/* cgPortIpv6Table: the same rows (AUGMENTS cgPortEntry), the IPv6 counters. */
	CHECK_EQ(get(m, &cg_port_ipv6_table, 1, (mib_subid[]){11}, 1, &t), 63);
	CHECK_EQ(t, MIB_COUNTER64);
	CHECK_EQ(get(m, &cg_port_ipv6_table, 7, (mib_subid[]){2}, 1, NULL), 7000);
	CHECK_EQ(get(m, &cg_port_ipv6_table, 8, (mib_subid[]){9}, 1, NULL), 31);
	CHECK_EQ(get(m, &cg_port_ipv6_table, 2, (mib_subid[]){2}, 1, NULL), 0);
	CHECK_EQ(get(m, &cg_port_ipv6_table, 9, (mib_subid[]){2}, 1, NULL), ~0ull);
	CHECK_EQ(get(m, &cg_port_ipv6_table, 1, (mib_subid[]){3}, 1, NULL), ~0ull);
	/* Drop reasons: enumeration value = reason + 1 */
	CHECK_EQ(get(m, &cg_port_drop_table, 3, (mib_subid[]){9, DROP_NO_ROUTE + 1}, 2, NULL), 11);
	CHECK_EQ(get(m, &cg_port_drop_table, 3, (mib_subid[]){9, DROP_TX_FULL + 1}, 2, NULL), 0);
	CHECK(!strcmp(
	    (const char *)(uintptr_t)get(m, &cg_port_drop_table, 2, (mib_subid[]){9, 1}, 2, NULL),
	    "l2-runt"));
	CHECK_EQ(get(m, &cg_port_drop_table, 3, (mib_subid[]){9, 0}, 2, NULL), ~0ull);
	CHECK_EQ(get(m, &cg_port_drop_table, 3, (mib_subid[]){9, DROP__MAX + 1}, 2, NULL), ~0ull);
	/* ATM ports only */
	CHECK_EQ(m->natm_rows, 2);
	CHECK_EQ(get(m, &cg_atm_port_table, 5, (mib_subid[]){5}, 1, NULL), 777);
	CHECK_EQ(get(m, &cg_atm_port_table, 17, (mib_subid[]){5}, 1, NULL), 4);
	CHECK_EQ(get(m, &cg_atm_port_table, 5, (mib_subid[]){2}, 1, NULL), ~0ull);

	/* VCs, 64-bit */
	CHECK_EQ(get(m, &cg_vc_table, 3, VC(5, 0, 200), 3, NULL), 8);
	CHECK_EQ(get(m, &cg_vc_table, 4, VC(5, 0, 100), 3, NULL), 2);
	CHECK_EQ(get(m, &cg_vc_table, 5, VC(5, 0, 100), 3, NULL), 7000);
	CHECK_EQ(get(m, &cg_vc_table, 7, VC(9, 0, 32), 3, &t), (1ull << 32) + 5);
	CHECK_EQ(t, MIB_COUNTER64);
	CHECK_EQ(get(m, &cg_vc_table, 14, VC(9, 0, 32), 3, NULL), 100);
	CHECK_EQ(get(m, &cg_vc_table, 15, VC(5, 1, 40), 3, NULL), 108);
	CHECK_EQ(get(m, &cg_vc_table, 18, VC(5, 1, 40), 3, NULL), 7);
	CHECK_EQ(get(m, &cg_vc_table, 24, VC(5, 1, 40), 3, NULL), 4000);
	CHECK_EQ(
	    get(m, &cg_vc_drop_table, 3, (mib_subid[]){5, 0, 100, VC_DROP_TOO_BIG + 1}, 4, NULL),
	    44);
	CHECK_EQ(get(m, &cg_vc_drop_table, 3, (mib_subid[]){5, 0, 100, VC_DROP__MAX + 1}, 4, NULL),
	         ~0ull);

	/* InATMARP: 0/200 static, 1/40 learned; 0/100 and atm1 0/32 have no far end */
	CHECK_EQ(m->npeer_rows, 2);
	CHECK_EQ(get(m, &cg_inatmarp_table, 2, VC(5, 0, 200), 3, NULL), SNMP_PEER_STATIC);
	CHECK_EQ(get(m, &cg_inatmarp_table, 3, VC(5, 0, 200), 3, NULL), 0);
	CHECK_EQ(get(m, &cg_inatmarp_table, 2, VC(5, 1, 40), 3, NULL), SNMP_PEER_LEARNED);
	CHECK_EQ(get(m, &cg_inatmarp_table, 3, VC(5, 1, 40), 3, NULL), 90);
	CHECK_EQ(get(m, &cg_inatmarp_table, 1, VC(5, 0, 100), 3, NULL), ~0ull);
	{
		mib_subid o[MIB_OID_MAX];
		unsigned len = snmp_vc_instance(m, &cg_inatmarp_table, 1, 1, o);
		struct mib_val v;
		CHECK_EQ(mib_table_get(&cg_inatmarp_table, m, o, len, &v), MIB_OK);
		CHECK_EQ(v.type, MIB_IPADDR);
		CHECK(v.ip[0] == 10 && v.ip[1] == 1 && v.ip[2] == 0 && v.ip[3] == 2);
	}
	/* The notification's instance: cgVcOperStatus.5.0.100 */
	{
		mib_subid o[MIB_OID_MAX];
		static const mib_subid want[] = {1, 3, 6, 1, 4, 1, 32473, 1, 6, 1, 4, 5, 0, 100};
		unsigned len = snmp_vc_instance(m, &cg_vc_table, CG_VC_OPER_STATUS,
		                                (unsigned)snmp_vc_row(m, 3), o);
		CHECK(mib_oid_cmp(o, len, want, 14) == 0);
		CHECK_EQ(snmp_vc_row(m, 7), -1);
	}
}

/*
 * cgVcIpv6PeerTable: VCs in atmVclTable order, then each VC's entries in
 * configuration order, from 1; 16 octets each, network order.
 */
static void test_ipv6_peers(struct snmp_model *m)
{
	static const uint8_t want[3][16] = {
	    {0x20, 0x01, 0x0d, 0xb8, [15] = 2}, {0x20, 0x01, 0x0d, 0xb8, [15] = 3}, {0xfe, 0x80, [15] = 0x41}};
	static const mib_subid idx[3][4] = {{5, 0, 200, 1}, {5, 0, 200, 2}, {5, 1, 40, 1}};
	mib_subid o[MIB_OID_MAX], next[MIB_OID_MAX];
	unsigned len = cg_vc_ipv6_peer_table.oid_len, next_len;
	struct mib_val v;
	enum mib_type t;

	CHECK_EQ(m->npeer6_rows, 3);
	for (unsigned i = 0; i < 3; i++) {
		const uint8_t *a = (const uint8_t *)(uintptr_t)get(m, &cg_vc_ipv6_peer_table, 2, idx[i], 4, &t);

		CHECK_EQ(t, MIB_OCTETS);
		CHECK(a != (const uint8_t *)(uintptr_t)~0ull && !memcmp(a, want[i], 16));
		CHECK_EQ(get(m, &cg_vc_ipv6_peer_table, 3, idx[i], 4, NULL), SNMP_PEER_STATIC);
	}
	CHECK_EQ(get(m, &cg_vc_ipv6_peer_table, 2, (mib_subid[]){5, 0, 200, 3}, 4, NULL), ~0ull);
	CHECK_EQ(get(m, &cg_vc_ipv6_peer_table, 2, (mib_subid[]){5, 0, 200, 0}, 4, NULL), ~0ull);
	CHECK_EQ(get(m, &cg_vc_ipv6_peer_table, 2, (mib_subid[]){5, 0, 100, 1}, 4, NULL), ~0ull);
	/* GETNEXT from the table: the first column of 0/200's first entry, length 16 */
	memcpy(o, cg_vc_ipv6_peer_table.oid, len * sizeof(mib_subid));
	CHECK_EQ(mib_table_next(&cg_vc_ipv6_peer_table, m, o, len, next, &next_len, &v), MIB_OK);
	CHECK_EQ(next_len, len + 2 + 4);
	CHECK(next_len == len + 6 && next[len + 1] == 2 && next[len + 3] == 0 && next[len + 4] == 200 &&
	      next[len + 5] == 1);
	CHECK(v.type == MIB_OCTETS && v.len == 16 && !memcmp(v.str, want[0], 16));
	/* Text columns leave len 0 (NUL-terminated) whatever the caller's buffer held. */
	{
		mib_subid po[MIB_OID_MAX];
		unsigned n = 0;

		for (unsigned i = 0; i < cg_port_table.oid_len; i++)
			po[n++] = cg_port_table.oid[i];
		po[n++] = 1;
		po[n++] = 2; /* cgPortName */
		po[n++] = 5;
		memset(&v, 0x5a, sizeof(v));
		CHECK_EQ(mib_table_get(&cg_port_table, m, po, n, &v), MIB_OK);
		CHECK(v.type == MIB_OCTETS && v.len == 0 && !strcmp(v.str, "atm0"));
		memset(&v, 0x5a, sizeof(v));
		CHECK_EQ(mib_table_next(&cg_port_table, m, po, n - 1, next, &next_len, &v), MIB_OK);
		CHECK(v.type == MIB_OCTETS && v.len == 0 && !strcmp(v.str, "eth0"));
	}
	/* The rows follow the VCs: none once the source has no map. */
	src.vc[1].npeers6 = src.vc[2].npeers6 = 0;
	snmp_model_vcs_changed(m);
	CHECK_EQ(m->npeer6_rows, 0);
	CHECK_EQ(get(m, &cg_vc_ipv6_peer_table, 3, idx[0], 4, NULL), ~0ull);
	src.vc[1].npeers6 = 1;
	src.vc[2].npeers6 = 2;
	snmp_model_vcs_changed(m);
	CHECK_EQ(m->npeer6_rows, 3);
}

/* Walking every table from its OID visits rows in strictly ascending order, all inside it. */
static void test_tables_ascend(struct snmp_model *m)
{
	for (unsigned i = 0; i < snmp_ntables; i++) {
		const struct mib_table *t = snmp_tables[i];
		mib_subid cur[MIB_OID_MAX], next[MIB_OID_MAX];
		unsigned len = t->oid_len, next_len, count = 0, want = 0;
		struct mib_val v;

		memcpy(cur, t->oid, t->oid_len * sizeof(mib_subid));
		while (mib_table_next(t, m, cur, len, next, &next_len, &v) == MIB_OK) {
			CHECK(mib_oid_cmp(next, next_len, cur, len) > 0);
			CHECK(mib_oid_cmp(next, t->oid_len, t->oid, t->oid_len) == 0);
			CHECK_EQ(mib_table_get(t, m, next, next_len, &v), MIB_OK);
			memcpy(cur, next, next_len * sizeof(mib_subid));
			len = next_len;
			if (++count > 100000)
				break;
		}
		for (unsigned r = 0; r < t->nrows(m); r++)
			for (unsigned c = 0; c < t->ncols; c++)
				want += t->value(m, r, t->cols[c], &v);
		CHECK_EQ(count, want);
	}
}

int main(void)
{
	static struct stats_snapshot snap;
	static struct snmp_model m;

	src.stats_take = fake_stats;
	src.vc_learned = fake_learned;
	src.fib = fake_fib;
	src.loop = fake_loop;
	snmp_model_init(&m, &src, &snap);
	snmp_model_refresh(&m, NOW_TICKS, NOW_MS);

	test_walk();
	test_atm_tables(&m);
	test_cellgate_tables(&m);
	test_ipv6_peers(&m);
	test_tables_ascend(&m);
	return check_report("test_snmp");
}
