/* SPDX-License-Identifier: BSD-2-Clause */
/* The GET/GETNEXT walk over a mib_table (RFC 3416 section 4.2.1, 4.2.2). */
#include "mgmt/snmp/mib_table.h"

int mib_oid_cmp(const mib_subid *a, unsigned alen, const mib_subid *b, unsigned blen)
{
	unsigned n = alen < blen ? alen : blen;

	for (unsigned i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return alen < blen ? -1 : alen > blen;
}

/* The OID every instance starts with: the entry, or the scalar group itself. */
static unsigned mib_prefix(const struct mib_table *t, mib_subid *p)
{
	for (unsigned i = 0; i < t->oid_len; i++)
		p[i] = t->oid[i];
	if (t->scalar)
		return t->oid_len;
	p[t->oid_len] = 1;
	return t->oid_len + 1;
}

static bool mib_has_col(const struct mib_table *t, mib_subid col)
{
	for (unsigned i = 0; i < t->ncols; i++)
		if (t->cols[i] == col)
			return true;
	return false;
}

int mib_table_get(const struct mib_table *t, const void *ctx, const mib_subid *name, unsigned len,
                  struct mib_val *v)
{
	mib_subid p[MIB_OID_MAX], idx[MIB_INDEX_MAX];
	unsigned plen = mib_prefix(t, p), rows;

	if (len <= plen || mib_oid_cmp(name, plen, p, plen) != 0 || !mib_has_col(t, name[plen]))
		return MIB_NO_OBJECT;
	if (len - plen - 1 != t->index_len)
		return MIB_NO_INSTANCE;
	rows = t->nrows(ctx);
	for (unsigned r = 0; r < rows; r++) {
		int c;

		t->index(ctx, r, idx);
		c = mib_oid_cmp(idx, t->index_len, name + plen + 1, t->index_len);
		if (c > 0)
			break; /* rows ascend: it is not there */
		if (c == 0) {
			*v = (struct mib_val){0}; /* a value sets only its own fields */
			return t->value(ctx, r, (unsigned)name[plen], v) ? MIB_OK : MIB_NO_INSTANCE;
		}
	}
	return MIB_NO_INSTANCE;
}

/* The first row from `row` on with a value in column col: its number, or -1. */
static int mib_first_value(const struct mib_table *t, const void *ctx, unsigned col, unsigned row,
                           struct mib_val *v)
{
	unsigned rows = t->nrows(ctx);

	for (; row < rows; row++) {
		*v = (struct mib_val){0}; /* a value sets only its own fields */
		if (t->value(ctx, row, col, v))
			return (int)row;
	}
	return -1;
}

/* The first row whose index is after `after` (alen sub-identifiers). */
static unsigned mib_row_after(const struct mib_table *t, const void *ctx, const mib_subid *after,
                              unsigned alen)
{
	mib_subid idx[MIB_INDEX_MAX];
	unsigned rows = t->nrows(ctx), r;

	for (r = 0; r < rows; r++) {
		t->index(ctx, r, idx);
		if (mib_oid_cmp(idx, t->index_len, after, alen) > 0)
			break;
	}
	return r;
}

static void mib_instance(const struct mib_table *t, const void *ctx, const mib_subid *p,
                         unsigned plen, unsigned col, unsigned row, mib_subid *out,
                         unsigned *out_len)
{
	for (unsigned i = 0; i < plen; i++)
		out[i] = p[i];
	out[plen] = col;
	t->index(ctx, row, out + plen + 1);
	*out_len = plen + 1 + t->index_len;
}

int mib_table_next(const struct mib_table *t, const void *ctx, const mib_subid *name, unsigned len,
                   mib_subid *out, unsigned *out_len, struct mib_val *v)
{
	mib_subid p[MIB_OID_MAX];
	unsigned plen = mib_prefix(t, p);
	int c = mib_oid_cmp(name, len < plen ? len : plen, p, len < plen ? len : plen);
	mib_subid c0 = 0;
	bool inside = false;

	if (c > 0)
		return MIB_END; /* past the whole table */
	if (c == 0 && len > plen) {
		inside = true; /* name is prefix.col[.index...] */
		c0 = name[plen];
	}
	for (unsigned i = 0; i < t->ncols; i++) {
		unsigned col = t->cols[i], from = 0;
		int row;

		if (inside && col < c0)
			continue;
		if (inside && col == c0)
			from = mib_row_after(t, ctx, name + plen + 1, len - plen - 1);
		row = mib_first_value(t, ctx, col, from, v);
		if (row >= 0) {
			mib_instance(t, ctx, p, plen, col, (unsigned)row, out, out_len);
			return MIB_OK;
		}
	}
	return MIB_END;
}
