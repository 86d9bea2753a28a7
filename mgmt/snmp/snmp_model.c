/* SPDX-License-Identifier: BSD-2-Clause */
/* The model behind the SNMP tables: rows in index order, one snapshot per request. */
#include <stdlib.h>
#include <string.h>

#include "mgmt/snmp/snmp_model.h"

static const struct snmp_source *sort_src; /* qsort has no context argument */

static int port_cmp(const void *a, const void *b)
{
	int32_t x = sort_src->port[*(const uint16_t *)a].ifindex;
	int32_t y = sort_src->port[*(const uint16_t *)b].ifindex;

	return (x > y) - (x < y);
}

/* RFC 2515 atmVclEntry order: ifIndex, atmVclVpi, atmVclVci. */
static int vc_cmp(const void *a, const void *b)
{
	const struct snmp_vc_info *x = &sort_src->vc[*(const uint16_t *)a];
	const struct snmp_vc_info *y = &sort_src->vc[*(const uint16_t *)b];
	int32_t xi = sort_src->port[x->atm_port].ifindex, yi = sort_src->port[y->atm_port].ifindex;

	if (xi != yi)
		return (xi > yi) - (xi < yi);
	if (x->vpi != y->vpi)
		return (x->vpi > y->vpi) - (x->vpi < y->vpi);
	return (x->vci > y->vci) - (x->vci < y->vci);
}

void snmp_model_init(struct snmp_model *m, const struct snmp_source *src,
                     struct stats_snapshot *snap)
{
	memset(m, 0, sizeof(*m));
	m->src = src;
	m->snap = snap;
	memset(snap, 0, sizeof(*snap));
	for (unsigned p = 0; p < src->nports && p < PORT_MAX; p++) {
		/* No netdev, no ifIndex: nothing to index the row by (atmsock ports). */
		if (src->port[p].ifindex <= 0)
			continue;
		m->port_rows[m->nport_rows++] = (uint16_t)p;
		if (src->port[p].type == SNMP_PORT_ATM)
			m->atm_rows[m->natm_rows++] = (uint16_t)p;
	}
	sort_src = src;
	qsort(m->port_rows, m->nport_rows, sizeof(m->port_rows[0]), port_cmp);
	qsort(m->atm_rows, m->natm_rows, sizeof(m->atm_rows[0]), port_cmp);
	sort_src = NULL;
	snmp_model_vcs_changed(m);
}

void snmp_model_vcs_changed(struct snmp_model *m)
{
	const struct snmp_source *src = m->src;

	m->nvc_rows = 0;
	for (unsigned v = 0; v < src->nvcs && v < VC_MAX; v++)
		if (src->vc[v].atm_port < src->nports && src->port[src->vc[v].atm_port].ifindex > 0)
			m->vc_rows[m->nvc_rows++] = (uint16_t)v;
	sort_src = src;
	qsort(m->vc_rows, m->nvc_rows, sizeof(m->vc_rows[0]), vc_cmp);
	sort_src = NULL;
	/* The IPv6 map is configuration: it changes only with the VCs. */
	m->npeer6_rows = 0;
	for (unsigned r = 0; r < m->nvc_rows; r++) {
		const struct snmp_vc_info *vi = &src->vc[m->vc_rows[r]];

		for (unsigned k = 0; k < vi->npeers6 && k < SNMP_PEER6_MAX; k++) {
			m->peer6_vc_row[m->npeer6_rows] = (uint16_t)r;
			m->peer6_entry[m->npeer6_rows++] = (uint8_t)k;
		}
	}
}

static void snmp_model_peers(struct snmp_model *m)
{
	const struct snmp_source *src = m->src;

	m->npeer_rows = 0;
	for (unsigned r = 0; r < m->nvc_rows; r++) {
		unsigned v = m->vc_rows[r], n = m->npeer_rows;
		uint64_t age_ms = 0;
		uint32_t ip = 0;

		/* A learned address wins over the configured one, as in forwarding. */
		if (src->vc_learned && src->vc_learned(src->arg, v, &ip, &age_ms) && ip) {
			m->peer_type[n] = SNMP_PEER_LEARNED;
		} else if (src->vc[v].peer_addr) {
			ip = src->vc[v].peer_addr;
			age_ms = 0;
			m->peer_type[n] = SNMP_PEER_STATIC;
		} else {
			continue;
		}
		m->peer_rows[n] = (uint16_t)r;
		m->peer_ip[n] = ip;
		m->peer_age_s[n] =
		    age_ms / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(age_ms / 1000);
		m->npeer_rows++;
	}
}

void snmp_model_refresh(struct snmp_model *m, uint32_t now_ticks, uint64_t now_ms)
{
	const struct snmp_source *src = m->src;

	m->now_ticks = now_ticks;
	m->now_ms = now_ms;
	src->stats_take(src->arg, m->snap);
	memset(&m->fib, 0, sizeof(m->fib));
	if (src->fib)
		src->fib(src->arg, &m->fib);
	memset(&m->fpm, 0, sizeof(m->fpm));
	m->fpm.state = SNMP_FPM_DISABLED;
	if (src->fpm)
		src->fpm(src->arg, &m->fpm);
	memset(&m->loop, 0, sizeof(m->loop));
	if (src->loop)
		src->loop(src->arg, &m->loop);
	snmp_model_peers(m);
}

uint32_t snmp_timestamp(const struct snmp_model *m, uint64_t event_ms)
{
	uint64_t ago;

	if (!event_ms)
		return 0;
	if (event_ms >= m->now_ms)
		return m->now_ticks; /* now, or a clock step backwards since */
	ago = (m->now_ms - event_ms) / 10;
	return ago >= m->now_ticks ? 0 : m->now_ticks - (uint32_t)ago;
}

int snmp_vc_row(const struct snmp_model *m, unsigned vc)
{
	for (unsigned r = 0; r < m->nvc_rows; r++)
		if (m->vc_rows[r] == vc)
			return (int)r;
	return -1;
}

unsigned snmp_vc_instance(const struct snmp_model *m, const struct mib_table *t, unsigned col,
                          unsigned row, mib_subid *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->oid_len; i++)
		out[n++] = t->oid[i];
	out[n++] = 1;
	out[n++] = col;
	t->index(m, row, out + n);
	return n + t->index_len;
}
