/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mibs/CELLGATE-MIB.txt against the agent's C tables (mgmt/snmp): every
 * table and scalar group at the OID the agent serves, every column's number
 * and descriptor, every readable column served, the notifications, and the
 * drop reason enumerations against stats.h and atm/vc.h, so the MIB and the
 * agent cannot drift apart. A small reader of SMIv2 text, enough for this
 * module's own layout; smilint checks the rest (tests/snmp/mib-check.sh).
 *
 * Usage: test_snmp_mib [srcdir]   (default: $srcdir, as automake sets it, or ".")
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "mgmt/snmp/snmp_model.h"

#define MIB_NODES 512

struct mib_node {
	char name[64], parent[64];
	unsigned num;
	bool not_accessible;
};

static struct mib_node nodes[MIB_NODES];
static unsigned nnodes;

/* The MIB as words: comments and quoted strings dropped, braces and parentheses apart. */
static char **mib_words(const char *text, unsigned *n)
{
	char **w = calloc(strlen(text) + 1, sizeof(*w));
	const char *p = text;

	*n = 0;
	while (w && *p) {
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
		} else if (*p == '"') {
			const char *end = strchr(p + 1, '"');
			p = end ? end + 1 : p + strlen(p);
		} else if (strchr("{}(),", *p)) {
			w[(*n)++] = strndup(p++, 1);
		} else if (isspace((unsigned char)*p)) {
			p++;
		} else {
			size_t len = strcspn(p, " \t\r\n{}(),\"");
			w[(*n)++] = strndup(p, len);
			p += len;
		}
	}
	return w;
}

static const struct mib_node *mib_node(const char *name)
{
	for (unsigned i = 0; i < nnodes; i++)
		if (!strcmp(nodes[i].name, name))
			return &nodes[i];
	return NULL;
}

/* Every `name KIND ... ::= { parent n }` of the MIB. */
static void mib_parse(char **w, unsigned n)
{
	static const char *const kinds[] = {
	    "OBJECT-TYPE",  "MODULE-IDENTITY",    "NOTIFICATION-TYPE",
	    "OBJECT-GROUP", "NOTIFICATION-GROUP", "MODULE-COMPLIANCE",
	    "OBJECT"};

	for (unsigned i = 0; i + 1 < n && nnodes < MIB_NODES; i++) {
		struct mib_node *nd = &nodes[nnodes];
		bool kind = false;
		unsigned j;

		if (!islower((unsigned char)w[i][0]))
			continue;
		for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			kind |= !strcmp(w[i + 1], kinds[k]);
		if (!kind || (!strcmp(w[i + 1], "OBJECT") && strcmp(w[i + 2], "IDENTIFIER")))
			continue;
		memset(nd, 0, sizeof(*nd));
		snprintf(nd->name, sizeof(nd->name), "%s", w[i]);
		for (j = i + 2; j + 4 < n && strcmp(w[j], "::="); j++)
			if (!strcmp(w[j], "MAX-ACCESS") && !strcmp(w[j + 1], "not-accessible"))
				nd->not_accessible = true;
		if (j + 4 >= n || strcmp(w[j + 1], "{") || strcmp(w[j + 4], "}"))
			continue;
		snprintf(nd->parent, sizeof(nd->parent), "%s", w[j + 2]);
		nd->num = (unsigned)strtoul(w[j + 3], NULL, 10);
		nnodes++;
	}
}

/* The OID of `name` from the module's arc (enterprises = 1.3.6.1.4.1), or 0. */
static unsigned mib_resolve(const char *name, mib_subid *o)
{
	const struct mib_node *nd = mib_node(name);
	unsigned len;

	if (!strcmp(name, "enterprises")) {
		static const mib_subid ent[] = {1, 3, 6, 1, 4, 1};
		memcpy(o, ent, sizeof(ent));
		return 6;
	}
	if (!nd || !(len = mib_resolve(nd->parent, o)))
		return 0;
	o[len] = nd->num;
	return len + 1;
}

/* "l2-other-host" -> "l2OtherHost" (RFC 2578 7.1.1: no hyphens in labels). */
static void camel(const char *in, char *out)
{
	for (; *in; in++)
		if (*in == '-' && in[1])
			*out++ = (char)toupper((unsigned char)*++in);
		else
			*out++ = *in;
	*out = '\0';
}

/* The enumeration of textual convention `tc`: labels[v] for value v. */
static unsigned mib_enum(char **w, unsigned n, const char *tc, char labels[][64], unsigned max)
{
	unsigned i, count = 0;

	for (i = 0; i + 2 < n; i++)
		if (!strcmp(w[i], tc) && !strcmp(w[i + 1], "::=") &&
		    !strcmp(w[i + 2], "TEXTUAL-CONVENTION"))
			break;
	for (; i + 1 < n && strcmp(w[i], "INTEGER"); i++)
		;
	/* INTEGER { label ( value ) , ... } */
	for (i += 2; i + 4 < n && strcmp(w[i], "}"); i += 5) {
		unsigned v = (unsigned)strtoul(w[i + 2], NULL, 10);
		if (v < max) {
			snprintf(labels[v], 64, "%s", w[i]);
			count++;
		}
		if (strcmp(w[i + 4], ","))
			break;
	}
	return count;
}

static void check_mib_table(const struct mib_table *t)
{
	mib_subid o[MIB_OID_MAX];
	const struct mib_node *entry = NULL;
	unsigned len = mib_resolve(t->name, o), readable = 0;
	char ename[64];

	CHECK(len == t->oid_len && mib_oid_cmp(o, len, t->oid, t->oid_len) == 0);
	if (len != t->oid_len)
		fprintf(stderr, "  %s: not in the MIB or at another OID\n", t->name);
	/* cgPortTable -> cgPortEntry; scalar groups hold their objects directly. */
	snprintf(ename, sizeof(ename), "%s", t->name);
	if (!t->scalar) {
		size_t l = strlen(ename);
		snprintf(ename + l - 5, sizeof(ename) - l + 5, "Entry");
		entry = mib_node(ename);
		CHECK(entry && entry->num == 1 && !strcmp(entry->parent, t->name));
	}
	for (unsigned c = 0; c < t->ncols; c++) {
		const struct mib_node *col = mib_node(t->col_names[c]);
		CHECK(col && col->num == t->cols[c] && !strcmp(col->parent, ename) &&
		      !col->not_accessible);
		if (!col || col->num != t->cols[c])
			fprintf(stderr, "  %s: column %u is not %s in the MIB\n", t->name,
			        t->cols[c], t->col_names[c]);
	}
	for (unsigned i = 0; i < nnodes; i++)
		readable += !strcmp(nodes[i].parent, ename) && !nodes[i].not_accessible;
	CHECK_EQ(readable, t->ncols); /* the agent serves every readable column of the MIB */
}

static void test_mib_text(const char *srcdir)
{
	char path[4096], labels[64][64], want[64];
	const struct mib_node *nd;
	mib_subid o[MIB_OID_MAX];
	unsigned n, len;
	char *text = NULL;
	size_t cap = 0;
	FILE *f;
	char **w;

	snprintf(path, sizeof(path), "%s/mibs/CELLGATE-MIB.txt", srcdir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f) {
		perror(path);
		return;
	}
	CHECK(getdelim(&text, &cap, '\0', f) > 0);
	fclose(f);
	w = mib_words(text, &n);
	mib_parse(w, n);
	CHECK(nnodes > 100);

	len = mib_resolve("cellgateMIB", o);
	CHECK(len == cg_mib_root_len && mib_oid_cmp(o, len, cg_mib_root, len) == 0);
	for (unsigned i = 4; i < snmp_ntables; i++) /* the CELLGATE-MIB ones */
		check_mib_table(snmp_tables[i]);
	nd = mib_node("cgVcOperDown");
	CHECK(nd && nd->num == CG_NOTIFY_VC_OPER_DOWN && !strcmp(nd->parent, "cgNotifications"));
	nd = mib_node("cgVcOperUp");
	CHECK(nd && nd->num == CG_NOTIFY_VC_OPER_UP);
	nd = mib_node("cgNotifications");
	CHECK(nd && nd->num == 0 && !strcmp(nd->parent, "cellgateMIB"));

	memset(labels, 0, sizeof(labels));
	CHECK_EQ(mib_enum(w, n, "CgPortDropCause", labels, 64), DROP__MAX);
	for (unsigned r = 0; r < DROP__MAX; r++) {
		camel(drop_reason_name[r], want);
		CHECK(!strcmp(labels[r + 1], want));
	}
	memset(labels, 0, sizeof(labels));
	CHECK_EQ(mib_enum(w, n, "CgVcDropCause", labels, 64), VC_DROP__MAX);
	for (unsigned r = 0; r < VC_DROP__MAX; r++) {
		camel(vc_drop_name[r], want);
		CHECK(!strcmp(labels[r + 1], want));
		if (strcmp(labels[r + 1], want))
			fprintf(stderr, "  CgVcDropCause(%u) is %s, stats.h says %s\n", r + 1,
			        labels[r + 1], want);
	}
	for (unsigned i = 0; i < n; i++)
		free(w[i]);
	free(w);
	free(text);
}

int main(int argc, char **argv)
{
	const char *srcdir = argc > 1 ? argv[1] : getenv("srcdir") ? getenv("srcdir") : ".";

	test_mib_text(srcdir);
	return check_report("test_snmp_mib");
}
