/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A read-only MIB table as the SNMP agent serves it: conceptual rows in
 * ascending index order, readable columns in ascending order, and the
 * lexicographic GET/GETNEXT walk over them (RFC 3416 section 4.2.2: the
 * next instance is the smallest OID greater than the one asked for).
 * Pure code over OID arrays, with no net-snmp in it, so the walk is unit
 * tested directly; mgmt/snmp/agent.c hands it the requests.
 *
 * A group of scalars is a table with one row whose index is the single
 * sub-identifier 0 and no entry arc (RFC 2578 section 7.10: scalar
 * instances are OBJECT.0).
 */
#ifndef CELLGATE_MIB_TABLE_H
#define CELLGATE_MIB_TABLE_H

#include <stdbool.h>
#include <stdint.h>

typedef unsigned long mib_subid; /* net-snmp's `oid` on Linux */

#define MIB_OID_MAX   128 /* RFC 2578 section 3.5: at most 128 sub-identifiers */
#define MIB_INDEX_MAX 8

/* SMIv2 base types (RFC 2578 section 7.1) the tables use. */
enum mib_type {
	MIB_INTEGER = 1, /* INTEGER, Integer32 and enumerations */
	MIB_OCTETS,      /* OCTET STRING (DisplayString) */
	MIB_IPADDR,      /* IpAddress */
	MIB_COUNTER32,
	MIB_GAUGE32, /* Gauge32, Unsigned32 */
	MIB_TIMETICKS,
	MIB_COUNTER64,
};

struct mib_val {
	enum mib_type type;
	uint64_t num;    /* every numeric type; INTEGER as int32 in the low bits */
	const char *str; /* MIB_OCTETS: lives as long as the table's context */
	unsigned len;    /* MIB_OCTETS: its length; 0: str is NUL-terminated text */
	uint8_t ip[4];   /* MIB_IPADDR, network order */
};

struct mib_table {
	const char *name;
	const mib_subid *oid; /* the table (or scalar group) */
	unsigned oid_len;
	bool scalar;                  /* a scalar group: OID.col.0, no entry (.1) arc */
	const uint8_t *cols;          /* readable columns, ascending */
	const char *const *col_names; /* MIB descriptors of cols, for tests and logs */
	unsigned ncols;
	unsigned index_len; /* sub-identifiers per row index */
	unsigned (*nrows)(const void *ctx);
	/* Row `row`'s index; rows are in ascending index order. */
	void (*index)(const void *ctx, unsigned row, mib_subid *idx);
	/* The value of column `col` in row `row`; false: no such instance. */
	bool (*value)(const void *ctx, unsigned row, unsigned col, struct mib_val *v);
};

enum mib_result {
	MIB_OK = 0,
	MIB_NO_OBJECT = -1,   /* not a column of this table: noSuchObject */
	MIB_NO_INSTANCE = -2, /* a column, but no such row: noSuchInstance */
	MIB_END = -3,         /* GETNEXT: nothing after this in the table */
};

/* -1, 0, 1 as a is before, equal to, after b in lexicographic OID order. */
int mib_oid_cmp(const mib_subid *a, unsigned alen, const mib_subid *b, unsigned blen);

/* GET of instance `name`: MIB_OK with *v set, or MIB_NO_OBJECT / MIB_NO_INSTANCE. */
int mib_table_get(const struct mib_table *t, const void *ctx, const mib_subid *name, unsigned len,
                  struct mib_val *v);

/*
 * GETNEXT: the first instance of the table after `name` (which need not
 * exist, nor lie in the table) into out/out_len (room for MIB_OID_MAX)
 * and *v; MIB_OK or MIB_END.
 */
int mib_table_next(const struct mib_table *t, const void *ctx, const mib_subid *name, unsigned len,
                   mib_subid *out, unsigned *out_len, struct mib_val *v);

#endif
