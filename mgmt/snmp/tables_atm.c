/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The standard ATM tables, all indexed {ifIndex, VPI, VCI} with the ifIndex
 * of the ATM port's netdev:
 *   ATM-MIB (RFC 2515)   atmVclTable, aal5VccTable
 *   ATM2-MIB (RFC 3606)  atmVclStatTable, atmAal5VclStatTable
 * Their counters are Counter32 (RFC 2578 section 7.1.6: they wrap at 2^32);
 * CELLGATE-MIB's cgVcTable has the same counts as Counter64.
 * No MIB text is needed to serve them: the OIDs are below.
 */
#include "mgmt/snmp/snmp_model.h"

#define ATM_MIB 1, 3, 6, 1, 2, 1, 37, 1 /* atmMIBObjects (RFC 2515) */

/* ATM-MIB AtmVccAal5EncapsType (RFC 2515) */
/* ATM-MIB AtmVcEncapsType (RFC 2515). */
enum { ENCAPS_VCMUX_ROUTED = 1, ENCAPS_VCMUX_BRIDGED_8023 = 2, ENCAPS_LLC = 7 };
enum { AAL_TYPE_AAL5 = 3 }; /* atmVccAalType */
enum { ADMIN_UP = 1 };      /* atmVclAdminStatus */

static const struct snmp_vc_info *vc_info(const struct snmp_model *m, unsigned row)
{
	return &m->src->vc[m->vc_rows[row]];
}

static const struct stats_vc *vc_stats(const struct snmp_model *m, unsigned row)
{
	return &m->snap->vc[m->vc_rows[row]];
}

static unsigned vc_nrows(const void *ctx)
{
	return ((const struct snmp_model *)ctx)->nvc_rows;
}

static void vc_index(const void *ctx, unsigned row, mib_subid *idx)
{
	const struct snmp_model *m = ctx;
	const struct snmp_vc_info *vi = vc_info(m, row);

	idx[0] = (mib_subid)m->src->port[vi->atm_port].ifindex;
	idx[1] = vi->vpi;
	idx[2] = vi->vci;
}

static void set(struct mib_val *v, enum mib_type type, uint64_t num)
{
	v->type = type;
	v->num = type == MIB_COUNTER32 ? (uint32_t)num : num;
}

/* atmVclEntry (RFC 2515): 3 AdminStatus, 4 OperStatus, 5 LastChange, 8 AalType, 9/10 SDU sizes,
 * 11 EncapsType. */
static bool vcl_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct snmp_model *m = ctx;
	const struct snmp_vc_info *vi = vc_info(m, row);
	const struct stats_vc *sv = vc_stats(m, row);

	switch (col) {
	case 3:
		set(v, MIB_INTEGER, ADMIN_UP);
		return true;
	case 4: /* enum vc_oper has the atmVclOperStatus values */
		set(v, MIB_INTEGER, sv->oper == VC_OPER_DOWN ? VC_OPER_DOWN : VC_OPER_UP);
		return true;
	case 5:
		set(v, MIB_TIMETICKS, snmp_timestamp(m, sv->oper_change_ms));
		return true;
	case 8:
		set(v, MIB_INTEGER, AAL_TYPE_AAL5);
		return true;
	case 9:
	case 10:
		set(v, MIB_INTEGER, vi->sdu_size);
		return true;
	case 11:
		set(v, MIB_INTEGER,
		    vi->llc ? ENCAPS_LLC
		            : (vi->bridged ? ENCAPS_VCMUX_BRIDGED_8023 : ENCAPS_VCMUX_ROUTED));
		return true;
	default:
		return false;
	}
}

/* aal5VccEntry (RFC 2515): 3 CrcErrors, 4 SarTimeOuts, 5 OverSizedSDUs. */
static bool aal5_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct stats_vc *sv = vc_stats(ctx, row);
	static const uint8_t reason[] = {
	    [3] = VC_DROP_CRC, [4] = VC_DROP_TIMEOUT, [5] = VC_DROP_OVERSIZE};

	if (col < 3 || col > 5)
		return false;
	set(v, MIB_COUNTER32, sv->c.discards[reason[col]]);
	return true;
}

/*
 * atmVclStatEntry (RFC 3606): 1 TotalCellIns, 2 Clp0CellIns, 3 TotalDiscards,
 * 4 Clp0Discards, 5 TotalCellOuts, 6 Clp0CellOuts, 7 Clp0Tagged. Discards and
 * tagging there are those of usage parameter control (policing received
 * cells), which cellgated does not do: zero. Its own discards, per reason,
 * are in cgVcDropTable.
 */
static bool vcl_stat_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct vc_counters *c = &vc_stats(ctx, row)->c;
	const uint64_t val[] = {0, c->cells_in,  c->clp0_cells_in,  0,
	                        0, c->cells_out, c->clp0_cells_out, 0};

	if (col < 1 || col > 7)
		return false;
	set(v, MIB_COUNTER32, val[col]);
	return true;
}

/* atmAal5VclStatEntry (RFC 3606): 1 InPkts, 2 OutPkts, 3 InOctets, 4 OutOctets (SDUs). */
static bool aal5_stat_value(const void *ctx, unsigned row, unsigned col, struct mib_val *v)
{
	const struct vc_counters *c = &vc_stats(ctx, row)->c;
	const uint64_t val[] = {0, c->pdus_in, c->pdus_out, c->octets_in, c->octets_out};

	if (col < 1 || col > 4)
		return false;
	set(v, MIB_COUNTER32, val[col]);
	return true;
}

static const mib_subid vcl_oid[] = {ATM_MIB, 7};
static const mib_subid aal5_oid[] = {ATM_MIB, 12};
static const mib_subid vcl_stat_oid[] = {ATM_MIB, 14, 1, 11}; /* atm2MIBObjects.11 */
static const mib_subid aal5_stat_oid[] = {ATM_MIB, 14, 1, 12};

static const uint8_t vcl_cols[] = {3, 4, 5, 8, 9, 10, 11};
static const char *const vcl_names[] = {"atmVclAdminStatus",
                                        "atmVclOperStatus",
                                        "atmVclLastChange",
                                        "atmVccAalType",
                                        "atmVccAal5CpcsTransmitSduSize",
                                        "atmVccAal5CpcsReceiveSduSize",
                                        "atmVccAal5EncapsType"};
static const uint8_t aal5_cols[] = {3, 4, 5};
static const char *const aal5_names[] = {"aal5VccCrcErrors", "aal5VccSarTimeOuts",
                                         "aal5VccOverSizedSDUs"};
static const uint8_t vcl_stat_cols[] = {1, 2, 3, 4, 5, 6, 7};
static const char *const vcl_stat_names[] = {"atmVclStatTotalCellIns",  "atmVclStatClp0CellIns",
                                             "atmVclStatTotalDiscards", "atmVclStatClp0Discards",
                                             "atmVclStatTotalCellOuts", "atmVclStatClp0CellOuts",
                                             "atmVclStatClp0Tagged"};
static const uint8_t aal5_stat_cols[] = {1, 2, 3, 4};
static const char *const aal5_stat_names[] = {"atmAal5VclInPkts", "atmAal5VclOutPkts",
                                              "atmAal5VclInOctets", "atmAal5VclOutOctets"};

#define VC_TABLE(var, nm, o, c, n, fn)                                                             \
	const struct mib_table var = {                                                             \
	    .name = nm,                                                                            \
	    .oid = o,                                                                              \
	    .oid_len = sizeof(o) / sizeof(o[0]),                                                   \
	    .cols = c,                                                                             \
	    .col_names = n,                                                                        \
	    .ncols = sizeof(c),                                                                    \
	    .index_len = 3,                                                                        \
	    .nrows = vc_nrows,                                                                     \
	    .index = vc_index,                                                                     \
	    .value = fn,                                                                           \
	}

VC_TABLE(snmp_atm_vcl_table, "atmVclTable", vcl_oid, vcl_cols, vcl_names, vcl_value);
VC_TABLE(snmp_aal5_vcc_table, "aal5VccTable", aal5_oid, aal5_cols, aal5_names, aal5_value);
VC_TABLE(snmp_atm_vcl_stat_table, "atmVclStatTable", vcl_stat_oid, vcl_stat_cols, vcl_stat_names,
         vcl_stat_value);
VC_TABLE(snmp_atm_aal5_vcl_stat_table, "atmAal5VclStatTable", aal5_stat_oid, aal5_stat_cols,
         aal5_stat_names, aal5_stat_value);
