/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CELLGATE-MIB (mibs/CELLGATE-MIB.txt): what the standard MIBs lack. The
 * column numbers and descriptors here must match the MIB text;
 * tests/unit/test_snmp.c reads the MIB and checks every one of them, and
 * the drop reason enumerations against stats.h and atm/vc.h.
 *
 * Counters are Counter64 (RFC 2578 section 7.1.10), with discontinuity
 * times: all counters start at zero with cellgated.
 */
#include <arpa/inet.h>
#include <string.h>

#include "mgmt/snmp/snmp_model.h"

/*
 * The module's arc: RFC 5612's enterprise number for documentation, until
 * cellgate has a Private Enterprise Number of its own (see the MIB).
 */
#define CG_MIB_ROOT 1, 3, 6, 1, 4, 1, 32473
#define CG_OBJECTS  CG_MIB_ROOT, 1

const mib_subid cg_mib_root[] = {CG_MIB_ROOT};
const unsigned cg_mib_root_len = sizeof(cg_mib_root) / sizeof(cg_mib_root[0]);

static void set(struct mib_val *v, enum mib_type type, uint64_t num)
{
	v->type = type;
	v->num = num;
}

static uint32_t gauge(uint64_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n; /* RFC 2578 7.1.7: Gauge32 latches */
}

static uint32_t discontinuity(const struct snmp_model *m)
{
	return snmp_timestamp(m, m->src->start_ms);
}

static unsigned one_row(const void *ctx)
{
	return 1;
}

static void scalar_index(const void *ctx, unsigned row, mib_subid *idx)
{
	idx[0] = 0;
}

/*
 * cgSystem: 1 cgCounterDiscontinuityTime, 2..6 the FIB, 7..9 the control
 * loop's lag, 10..11 routes per source. All from running counts.
 */
static bool system_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	const uint64_t g[] = {0,
	                      0,
	                      m->fib.routes,
	                      m->fib.nexthops,
	                      m->fib.nhgroups,
	                      m->fib.errors,
	                      m->fib.memory_bytes / 1024,
	                      m->loop.lag_recent_us,
	                      m->loop.lag_max_us,
	                      m->loop.busy_recent_us,
	                      m->fib.routes_frr,
	                      m->fib.routes_static};

	if (col == 1)
		set(v, MIB_TIMETICKS, discontinuity(m));
	else if (col >= 2 && col <= 11)
		set(v, MIB_GAUGE32, gauge(g[col]));
	else
		return false;
	return true;
}

/* cgFpm: 1 state, 2 last change, 3..8 counters. */
static bool fpm_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	const struct snmp_fpm_view *f = &m->fpm;
	const uint64_t ctr[] = {f->connects,         f->disconnects,      f->msgs_in,
	                        f->routes_installed, f->routes_withdrawn, f->errors};

	if (col == 1)
		set(v, MIB_INTEGER, (uint32_t)f->state);
	else if (col == 2)
		set(v, MIB_TIMETICKS, snmp_timestamp(m, f->last_change_ms));
	else if (col >= 3 && col <= 8)
		set(v, MIB_COUNTER64, ctr[col - 3]);
	else if (col == 9)
		set(v, MIB_GAUGE32, gauge(f->stale));
	else if (col == 10)
		set(v, MIB_INTEGER, f->settled ? 1 : 2); /* TruthValue */
	else
		return false;
	return true;
}

static unsigned port_nrows(const void *ctx)
{
	return ((const struct snmp_model *)ctx)->nport_rows;
}

static void port_index(const void *ctx, unsigned row, mib_subid *idx)
{
	const struct snmp_model *m = ctx;

	idx[0] = (mib_subid)m->src->port[m->port_rows[row]].ifindex;
}

/* cgPortEntry: 2 name, 3 type, 4..15 counters, 16 discontinuity. */
static bool port_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	unsigned p = m->port_rows[row];
	const struct stats_port *sp = &m->snap->port[p];
	const struct port_counters *c = &sp->c;
	const uint64_t ctr[] = {c->rx_packets,    c->rx_octets,        c->tx_packets,
	                        c->tx_octets,     c->forwarded,        c->to_kernel,
	                        c->icmp_out,      c->icmp_ratelimited, c->fragmented,
	                        c->fragments_out, sp->rx_ring_drops,   sp->drops_total};

	if (col == 2) {
		v->type = MIB_OCTETS;
		v->str = m->src->port[p].name;
	} else if (col == 3) {
		set(v, MIB_INTEGER, m->src->port[p].type);
	} else if (col >= 4 && col <= 15) {
		set(v, MIB_COUNTER64, ctr[col - 4]);
	} else if (col == 16) {
		set(v, MIB_TIMETICKS, discontinuity(m));
	} else {
		return false;
	}
	return true;
}

/* cgPortIpv6Entry (AUGMENTS cgPortEntry): 1..8 the IPv6 share of the port's counters. */
static bool port6_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	const struct port_counters *c = &m->snap->port[m->port_rows[row]].c;
	const uint64_t ctr[] = {c->ip6_in_packets, c->ip6_in_octets, c->ip6_forwarded,
	                        c->ip6_to_kernel,  c->ip6_discards,  c->ip6_out_packets,
	                        c->ip6_out_octets, c->ip6_icmp_out};

	if (col < 1 || col > sizeof(ctr) / sizeof(ctr[0]))
		return false;
	set(v, MIB_COUNTER64, ctr[col - 1]);
	return true;
}

/* cgPortDropEntry {cgPortIfIndex, cgPortDropReason}: reason r is enumeration value r + 1. */
static unsigned port_drop_nrows(const void *ctx)
{
	return port_nrows(ctx) * DROP__MAX;
}

static void port_drop_index(const void *ctx, unsigned row, mib_subid *idx)
{
	port_index(ctx, row / DROP__MAX, idx);
	idx[1] = row % DROP__MAX + 1;
}

static bool port_drop_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	unsigned p = m->port_rows[row / DROP__MAX], r = row % DROP__MAX;

	if (col == 2) {
		v->type = MIB_OCTETS;
		v->str = drop_reason_name[r];
	} else if (col == 3) {
		set(v, MIB_COUNTER64, m->snap->port[p].c.drops[r]);
	} else {
		return false;
	}
	return true;
}

static unsigned atm_nrows(const void *ctx)
{
	return ((const struct snmp_model *)ctx)->natm_rows;
}

static void atm_index(const void *ctx, unsigned row, mib_subid *idx)
{
	const struct snmp_model *m = ctx;

	idx[0] = (mib_subid)m->src->port[m->atm_rows[row]].ifindex;
}

/* cgAtmPortEntry: 1..17, in struct atm_port_counters order but for tx_full. */
static bool atm_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	const struct atm_port_counters *c = &m->snap->atm[m->atm_rows[row]];
	const uint64_t ctr[] = {
	    c->frames_in,        c->octets_in,     c->frames_out,   c->octets_out,    c->cells_in,
	    c->cells_out,        c->non_pw_frames, c->pw_bad_label, c->pw_malformed,  c->seq_errors,
	    c->unknown_vc_cells, c->tx_full,       c->host_tx,      c->host_tx_drops, c->no_vc,
	    c->punted,           c->punt_errors};

	if (col < 1 || col > 17)
		return false;
	set(v, MIB_COUNTER64, ctr[col - 1]);
	return true;
}

static unsigned vc_nrows(const void *ctx)
{
	return ((const struct snmp_model *)ctx)->nvc_rows;
}

static void vc_index(const void *ctx, unsigned row, mib_subid *idx)
{
	const struct snmp_model *m = ctx;
	const struct snmp_vc_info *vi = &m->src->vc[m->vc_rows[row]];

	idx[0] = (mib_subid)m->src->port[vi->atm_port].ifindex;
	idx[1] = vi->vpi;
	idx[2] = vi->vci;
}

/* cgVcEntry: 3 SubIfIndex, 4 OperStatus, 5 LastChange, 6..23 counters, 24 discontinuity. */
static bool vc_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	unsigned vc = m->vc_rows[row];
	const struct stats_vc *sv = &m->snap->vc[vc];
	const struct vc_counters *c = &sv->c;
	const uint64_t ctr[] = {
	    c->oper_changes, c->cells_in,    c->clp0_cells_in, c->cells_out,  c->clp0_cells_out,
	    c->pdus_in,      c->pdus_out,    c->octets_in,     c->octets_out, sv->discards_total,
	    c->oam_in,       c->oam_out,     c->lb_sent,       c->lb_replies, c->lb_lost,
	    c->lb_answered,  c->inatmarp_in, c->inatmarp_out};

	if (col == CG_VC_SUBIFINDEX)
		set(v, MIB_INTEGER, (uint32_t)m->src->port[m->src->vc[vc].subif].ifindex);
	else if (col == CG_VC_OPER_STATUS)
		set(v, MIB_INTEGER, sv->oper == VC_OPER_DOWN ? VC_OPER_DOWN : VC_OPER_UP);
	else if (col == CG_VC_LAST_CHANGE)
		set(v, MIB_TIMETICKS, snmp_timestamp(m, sv->oper_change_ms));
	else if (col >= 6 && col <= 23)
		set(v, MIB_COUNTER64, ctr[col - 6]);
	else if (col == 24)
		set(v, MIB_TIMETICKS, discontinuity(m));
	else
		return false;
	return true;
}

/* cgVcDropEntry {ifIndex, VPI, VCI, cgVcDropReason}: reason r is value r + 1. */
static unsigned vc_drop_nrows(const void *ctx)
{
	return vc_nrows(ctx) * VC_DROP__MAX;
}

static void vc_drop_index(const void *ctx, unsigned row, mib_subid *idx)
{
	vc_index(ctx, row / VC_DROP__MAX, idx);
	idx[3] = row % VC_DROP__MAX + 1;
}

static bool vc_drop_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	unsigned vc = m->vc_rows[row / VC_DROP__MAX], r = row % VC_DROP__MAX;

	if (col == 2) {
		v->type = MIB_OCTETS;
		v->str = vc_drop_name[r];
	} else if (col == 3) {
		set(v, MIB_COUNTER64, m->snap->vc[vc].c.discards[r]);
	} else {
		return false;
	}
	return true;
}

static unsigned peer_nrows(const void *ctx)
{
	return ((const struct snmp_model *)ctx)->npeer_rows;
}

static void peer_index(const void *ctx, unsigned row, mib_subid *idx)
{
	const struct snmp_model *m = ctx;

	vc_index(ctx, m->peer_rows[row], idx);
}

/* cgInAtmArpEntry: 1 address, 2 type, 3 age. */
static bool peer_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	uint32_t be = htonl(m->peer_ip[row]);

	if (col == 1) {
		v->type = MIB_IPADDR;
		memcpy(v->ip, &be, 4);
	} else if (col == 2) {
		set(v, MIB_INTEGER, m->peer_type[row]);
	} else if (col == 3) {
		set(v, MIB_GAUGE32, m->peer_age_s[row]);
	} else {
		return false;
	}
	return true;
}

static unsigned peer6_nrows(const void *ctx)
{
	return ((const struct snmp_model *)ctx)->npeer6_rows;
}

/* cgVcIpv6PeerEntry INDEX: the VC's (ifIndex, VPI, VCI), then the entry's place, from 1. */
static void peer6_index(const void *ctx, unsigned row, mib_subid *idx)
{
	const struct snmp_model *m = ctx;

	vc_index(ctx, m->peer6_vc_row[row], idx);
	idx[3] = (mib_subid)m->peer6_entry[row] + 1;
}

/* cgVcIpv6PeerEntry: 2 address (16 octets, network order), 3 type. */
static bool peer6_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	const struct snmp_vc_info *vi = &m->src->vc[m->vc_rows[m->peer6_vc_row[row]]];

	if (col == 2) {
		v->type = MIB_OCTETS;
		v->str = (const char *)vi->peers6[m->peer6_entry[row]];
		v->len = 16;
	} else if (col == 3) {
		set(v, MIB_INTEGER, SNMP_PEER_STATIC);
	} else {
		return false;
	}
	return true;
}

static const mib_subid system_oid[] = {CG_OBJECTS, 1};
static const mib_subid fpm_oid[] = {CG_OBJECTS, 2};
static const mib_subid port_oid[] = {CG_OBJECTS, 3};
static const mib_subid port_drop_oid[] = {CG_OBJECTS, 4};
static const mib_subid atm_oid[] = {CG_OBJECTS, 5};
static const mib_subid vc_oid[] = {CG_OBJECTS, 6};
static const mib_subid vc_drop_oid[] = {CG_OBJECTS, 7};
static const mib_subid peer_oid[] = {CG_OBJECTS, 8};
static const mib_subid port6_oid[] = {CG_OBJECTS, 9};
static const mib_subid peer6_oid[] = {CG_OBJECTS, 10};

static const uint8_t system_cols[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const char *const system_names[] = {"cgCounterDiscontinuityTime",
                                           "cgFibRoutes",
                                           "cgFibNexthops",
                                           "cgFibNexthopGroups",
                                           "cgFibErrors",
                                           "cgFibMemory",
                                           "cgLoopLagRecent",
                                           "cgLoopLagMax",
                                           "cgLoopBusyRecent",
                                           "cgFibRoutesFrr",
                                           "cgFibRoutesStatic"};
static const uint8_t fpm_cols[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
static const char *const fpm_names[] = {
    "cgFpmState",       "cgFpmLastChange",      "cgFpmConnects",        "cgFpmDisconnects",
    "cgFpmMessagesIn",  "cgFpmRoutesInstalled", "cgFpmRoutesWithdrawn", "cgFpmErrors",
    "cgFpmStaleRoutes", "cgFpmSettled"};
static const uint8_t port_cols[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const char *const port_names[] = {"cgPortName",
                                         "cgPortType",
                                         "cgPortRxPackets",
                                         "cgPortRxOctets",
                                         "cgPortTxPackets",
                                         "cgPortTxOctets",
                                         "cgPortForwarded",
                                         "cgPortToKernel",
                                         "cgPortIcmpOut",
                                         "cgPortIcmpRateLimited",
                                         "cgPortFragmented",
                                         "cgPortFragmentsOut",
                                         "cgPortRxRingDrops",
                                         "cgPortDropsTotal",
                                         "cgPortDiscontinuityTime"};
static const uint8_t port6_cols[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const char *const port6_names[] = {
    "cgPortIpv6InPackets", "cgPortIpv6InOctets",   "cgPortIpv6Forwarded", "cgPortIpv6ToKernel",
    "cgPortIpv6Discards",  "cgPortIpv6OutPackets", "cgPortIpv6OutOctets", "cgPortIpv6IcmpOut"};
static const uint8_t drop_cols[] = {2, 3};
static const char *const port_drop_names[] = {"cgPortDropReasonName", "cgPortDrops"};
static const uint8_t atm_cols[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
static const char *const atm_names[] = {
    "cgAtmPortFramesIn",    "cgAtmPortOctetsIn",       "cgAtmPortFramesOut",
    "cgAtmPortOctetsOut",   "cgAtmPortCellsIn",        "cgAtmPortCellsOut",
    "cgAtmPortNonPwFrames", "cgAtmPortPwBadLabel",     "cgAtmPortPwMalformed",
    "cgAtmPortSeqErrors",   "cgAtmPortUnknownVcCells", "cgAtmPortTxFull",
    "cgAtmPortHostTx",      "cgAtmPortHostTxDrops",    "cgAtmPortNoVc",
    "cgAtmPortPunted",      "cgAtmPortPuntErrors"};
static const uint8_t vc_cols[] = {3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                  14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24};
static const char *const vc_names[] = {
    "cgVcSubIfIndex",      "cgVcOperStatus",       "cgVcLastChange",        "cgVcOperChanges",
    "cgVcHCCellsIn",       "cgVcHCClp0CellsIn",    "cgVcHCCellsOut",        "cgVcHCClp0CellsOut",
    "cgVcHCPdusIn",        "cgVcHCPdusOut",        "cgVcHCOctetsIn",        "cgVcHCOctetsOut",
    "cgVcDiscardsTotal",   "cgVcOamCellsIn",       "cgVcOamCellsOut",       "cgVcLoopbacksSent",
    "cgVcLoopbackReplies", "cgVcLoopbacksLost",    "cgVcLoopbacksAnswered", "cgVcInAtmArpIn",
    "cgVcInAtmArpOut",     "cgVcDiscontinuityTime"};
static const char *const vc_drop_names[] = {"cgVcDropReasonName", "cgVcDrops"};
static const uint8_t peer_cols[] = {1, 2, 3};
static const char *const peer_names[] = {"cgInAtmArpAddress", "cgInAtmArpType", "cgInAtmArpAge"};
static const uint8_t peer6_cols[] = {2, 3};
static const char *const peer6_names[] = {"cgVcIpv6PeerAddress", "cgVcIpv6PeerType"};

#define CG_TABLE(var, nm, sc, o, c, n, ilen, rows, idx, fn)                                        \
	const struct mib_table var = {                                                             \
	    .name = nm,                                                                            \
	    .oid = o,                                                                              \
	    .oid_len = sizeof(o) / sizeof(o[0]),                                                   \
	    .scalar = sc,                                                                          \
	    .cols = c,                                                                             \
	    .col_names = n,                                                                        \
	    .ncols = sizeof(c),                                                                    \
	    .index_len = ilen,                                                                     \
	    .nrows = rows,                                                                         \
	    .index = idx,                                                                          \
	    .value = fn,                                                                           \
	}

CG_TABLE(cg_system_group, "cgSystem", true, system_oid, system_cols, system_names, 1, one_row,
         scalar_index, system_value);
CG_TABLE(cg_fpm_group, "cgFpm", true, fpm_oid, fpm_cols, fpm_names, 1, one_row, scalar_index,
         fpm_value);
CG_TABLE(cg_port_table, "cgPortTable", false, port_oid, port_cols, port_names, 1, port_nrows,
         port_index, port_value);
CG_TABLE(cg_port_ipv6_table, "cgPortIpv6Table", false, port6_oid, port6_cols, port6_names, 1,
         port_nrows, port_index, port6_value);
CG_TABLE(cg_port_drop_table, "cgPortDropTable", false, port_drop_oid, drop_cols, port_drop_names, 2,
         port_drop_nrows, port_drop_index, port_drop_value);
CG_TABLE(cg_atm_port_table, "cgAtmPortTable", false, atm_oid, atm_cols, atm_names, 1, atm_nrows,
         atm_index, atm_value);
CG_TABLE(cg_vc_table, "cgVcTable", false, vc_oid, vc_cols, vc_names, 3, vc_nrows, vc_index,
         vc_value);
CG_TABLE(cg_vc_drop_table, "cgVcDropTable", false, vc_drop_oid, drop_cols, vc_drop_names, 4,
         vc_drop_nrows, vc_drop_index, vc_drop_value);
CG_TABLE(cg_inatmarp_table, "cgInAtmArpTable", false, peer_oid, peer_cols, peer_names, 3,
         peer_nrows, peer_index, peer_value);
CG_TABLE(cg_vc_ipv6_peer_table, "cgVcIpv6PeerTable", false, peer6_oid, peer6_cols, peer6_names, 4,
         peer6_nrows, peer6_index, peer6_value);

const struct mib_table *const snmp_tables[] = {
    &snmp_atm_vcl_table,      &snmp_aal5_vcc_table,
    &snmp_atm_vcl_stat_table, &snmp_atm_aal5_vcl_stat_table,
    &cg_system_group,         &cg_fpm_group,
    &cg_port_table,           &cg_port_drop_table,
    &cg_atm_port_table,       &cg_vc_table,
    &cg_vc_drop_table,        &cg_inatmarp_table,
    &cg_port_ipv6_table,      &cg_vc_ipv6_peer_table,
};
const unsigned snmp_ntables = sizeof(snmp_tables) / sizeof(snmp_tables[0]);
