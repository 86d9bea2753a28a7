/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FPM table: routes zebra announced, by prefix, with the session that
 * last announced them, applied to the RIB as RIB_SRC_FRR (see fpm_table.h).
 * Next-hop objects live in fpm_nh.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "daemon/fpm_table_priv.h"
#include "lib/addr.h"
#include "lib/clock.h"
#include "lib/log.h"

const char *const fpm_reject_name[FPM_REJ__MAX] = {
#define X(id, name, desc, detail) [FPM_REJ_##id] = name,
    FPM_REJECTS(X)
#undef X
};

static const char *const fpm_reject_desc[FPM_REJ__MAX] = {
#define X(id, name, desc, detail) [FPM_REJ_##id] = desc,
    FPM_REJECTS(X)
#undef X
};

static const char *const fpm_reject_detail[FPM_REJ__MAX] = {
#define X(id, name, desc, detail) [FPM_REJ_##id] = detail,
    FPM_REJECTS(X)
#undef X
};

static const char *const fpm_err_desc[FPM_E__MAX] = {[FPM_OK] = "no error",
#define X(id, name, desc) [FPM_E_##id] = desc,
                                                     FPM_ERRORS(X)
#undef X
};

/* A build may start the IPv4 table smaller: the fuzzer does (tests/fuzz/fuzz_fpm.c). */
#ifndef FPM_R4_SLOTS_INIT
#define FPM_R4_SLOTS_INIT (1u << 16)
#endif
#define R4_SLOTS_INIT   FPM_R4_SLOTS_INIT
#define R6_SLOTS_INIT   4096u
#define NHIX_SLOTS_INIT 1024u

struct fpm_table *fpm_table_new(struct rib *rib, const struct dataplane *dp)
{
	struct fpm_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->rib = rib;
	t->dp = dp;
	t->gen = 1;
	t->settled = true;
	if (oa_init(&t->r6, sizeof(struct fpm_r6), R6_SLOTS_INIT) != 0 ||
	    oa_init(&t->r4, sizeof(struct fpm_r4), R4_SLOTS_INIT) != 0 ||
	    oa_init(&t->nhix, sizeof(struct fpm_nh_ix), NHIX_SLOTS_INIT) != 0) {
		fpm_table_free(t);
		return NULL;
	}
	return t;
}

void fpm_table_free(struct fpm_table *t)
{
	if (!t)
		return;
	if (t->nhix.slots)
		fpm_nh_reset(t);
	free(t->nh);
	free(t->nh_free);
	oa_fini(&t->nhix);
	oa_fini(&t->r6);
	oa_fini(&t->r4);
	free(t->stale);
	free(t->stale6);
	free(t);
}

#define FPM_LOG_WHAT "fpm: messages about bad routes (see the fpm counters)"

/* A broken peer can send millions of bad messages: log a few, count all (log_limit). */
void fpm_log_limited(struct fpm_table *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!log_limit_pass(&t->log_lim, mono_coarse_ms() / 1000, FPM_LOG_WHAT))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_warnx("%s", buf);
}

static const char *route_str(uint8_t family, const uint8_t *dst, uint8_t len, char *buf, size_t sz)
{
	char a[INET6_ADDRSTRLEN];

	inet_str(family, dst, a, sizeof(a));
	snprintf(buf, sz, "%s/%u", a, len);
	return buf;
}

void fpm_table_set_rib6(struct fpm_table *t, struct rib6 *rib6)
{
	t->rib6 = rib6;
}

/* Port id of the cellgated port on ifindex (ATM subinterfaces included: they are ports), or -1. */
int fpm_port_of_ifindex(struct fpm_table *t, int ifindex)
{
	const struct dataplane *dp = t->dp;

	if (ifindex == t->cached_ifindex && ifindex > 0)
		return t->cached_port;
	for (unsigned i = 0; i < dp->nports; i++)
		if (dp->ports[i].ifindex == ifindex && ifindex > 0) {
			t->cached_ifindex = ifindex;
			t->cached_port = (int)i;
			return (int)i;
		}
	return -1;
}

static void target_reject(struct fpm_target *tg, enum fpm_reject r, int32_t detail)
{
	tg->reject = (int8_t)r;
	tg->detail = detail;
}

/*
 * Paths as zebra gave them to what the RIB takes: a gateway group, or one
 * on-link port (NH_GLEAN) when a path has no gateway. The RIB holds one
 * on-link port per route and NHG_PATHS_MAX paths; the rest is dropped and
 * counted.
 */
void fpm_target_from_paths(struct fpm_table *t, const struct fpm_path *p, unsigned n,
                           struct fpm_target *tg)
{
	tg->type = NH_GATEWAY;
	for (unsigned i = 0; i < n; i++) {
		int port = -1;
		if (p[i].gw_family && p[i].gw_family != AF_INET)
			return target_reject(tg, FPM_REJ_GW_FAMILY, p[i].gw_family);
		if (p[i].oif && (port = fpm_port_of_ifindex(t, p[i].oif)) < 0)
			return target_reject(tg, FPM_REJ_IFINDEX, p[i].oif);
		if (!p[i].gw_family && port < 0)
			continue; /* neither gateway nor interface: nothing to use */
		uint32_t gw;
		memcpy(&gw, p[i].gw, sizeof(gw));
		struct rib_path rp = {.gw = p[i].gw_family ? ntohl(gw) : 0,
		                      .port = port,
		                      .weight = p[i].weight ? p[i].weight : 1};
		if (!rp.gw) {
			/* On-link: the destination itself is the neighbour on that port. */
			t->c.paths_truncated += n > 1;
			tg->type = NH_GLEAN;
			tg->paths[0] = rp;
			tg->n = 1;
			return;
		}
		if (tg->n == NHG_PATHS_MAX) {
			t->c.paths_truncated++;
			continue;
		}
		tg->paths[tg->n++] = rp;
	}
	if (!tg->n)
		target_reject(tg, FPM_REJ_NO_PATH, 0);
}

int fpm_route_kind(const struct fpm_route *r, uint8_t *type, int32_t *detail)
{
	*detail = 0;
	if (r->encap)
		return FPM_REJ_ENCAP;
	switch (r->type) {
	case RTN_UNICAST:
		*type = NH_GATEWAY;
		return -1;
	case RTN_BLACKHOLE:
		*type = NH_BLACKHOLE;
		return -1;
	case RTN_UNREACHABLE:
	case RTN_PROHIBIT:
		/*
		 * The datapath answers both with ICMP destination unreachable
		 * (no administratively-prohibited code yet: RFC 792 code 13,
		 * RFC 4443 code 1).
		 */
		*type = NH_UNREACHABLE;
		return -1;
	default:
		*detail = r->type;
		return FPM_REJ_TYPE;
	}
}

/* Type, table and encap checks, then the paths or the next-hop object. */
static void route_target(struct fpm_table *t, const struct fpm_route *r, struct fpm_target *tg)
{
	int32_t detail;
	int rej;

	memset(tg, 0, sizeof(*tg));
	tg->reject = -1;
	if ((rej = fpm_route_kind(r, &tg->type, &detail)) >= 0)
		return target_reject(tg, rej, detail);
	if (r->type == RTN_UNICAST && !r->nh_id)
		fpm_target_from_paths(t, r->paths, r->npaths, tg);
}

static void r4_flags_set(struct fpm_table *t, struct fpm_r4 *e, uint8_t flags)
{
	fpm_flags_count(&t->c.routes4_rib, &t->c.routes4_pending, &t->c.routes4_rejected, e->flags,
	                flags);
	e->flags = flags;
}

static uint32_t r4_prefix(const struct fpm_r4 *e)
{
	return (uint32_t)(e->key >> 8);
}

static uint8_t r4_len(const struct fpm_r4 *e)
{
	return (uint8_t)e->key;
}

static void r4_withdraw(struct fpm_table *t, struct fpm_r4 *e)
{
	if (e->flags & R4_IN_RIB)
		rib_route_del(t->rib, r4_prefix(e), r4_len(e), RIB_SRC_FRR);
	r4_flags_set(t, e, e->flags & ~R4_IN_RIB);
}

/* Count a rejected route and say which, why, and the offending value. */
void fpm_log_reject(struct fpm_table *t, uint8_t family, const uint8_t *dst, uint8_t len,
                    enum fpm_reject r, long detail)
{
	char what[INET6_ADDRSTRLEN + 8], d[48] = "";

	t->c.rejected[r]++;
	if (fpm_reject_detail[r])
		snprintf(d, sizeof(d), " (%s %ld)", fpm_reject_detail[r], detail);
	fpm_log_limited(t, "fpm: route %s not installed: %s%s [%s]",
	                route_str(family, dst, len, what, sizeof(what)), fpm_reject_desc[r], d,
	                fpm_reject_name[r]);
}

static void r4_log_reject(struct fpm_table *t, const struct fpm_r4 *e, const struct fpm_target *tg)
{
	uint32_t dst = htonl(r4_prefix(e));

	fpm_log_reject(t, AF_INET, (const uint8_t *)&dst, r4_len(e), tg->reject, tg->detail);
}

/*
 * Program the route as tg says. A route waiting for a next-hop object keeps
 * the forwarding it had (from the previous session, during the replay) until
 * the session is settled; then it is withdrawn until the object arrives.
 */
static void r4_program(struct fpm_table *t, struct fpm_r4 *e, const struct fpm_target *tg)
{
	if (tg->pending) {
		if (t->settled)
			r4_withdraw(t, e);
		r4_flags_set(t, e, (e->flags & R4_IN_RIB) | R4_PENDING);
		return;
	}
	if (tg->reject >= 0) {
		r4_withdraw(t, e);
		r4_flags_set(t, e, R4_REJECTED);
		r4_log_reject(t, e, tg);
		return;
	}
	int err =
	    rib_route_set(t->rib, r4_prefix(e), r4_len(e), RIB_SRC_FRR, tg->type, tg->paths, tg->n);
	if (err) {
		struct fpm_target rt = {.reject = FPM_REJ_RIB, .detail = err};
		r4_withdraw(t, e);
		r4_flags_set(t, e, R4_REJECTED);
		r4_log_reject(t, e, &rt);
		return;
	}
	r4_flags_set(t, e, R4_IN_RIB);
}

static const struct fpm_target target_pending = {.reject = -1, .pending = true};

void fpm_r4_reprogram(struct fpm_table *t, uint64_t key, const struct fpm_target *tg)
{
	struct fpm_r4 *e = oa_find(&t->r4, key);

	if (e)
		r4_program(t, e, tg);
}

static void r4_unlink(struct fpm_table *t, struct fpm_r4 *e)
{
	if (e->nh && e->gen == t->gen)
		fpm_nh_dep_del(t, t->nh[e->nh - 1], e->pos);
	e->nh = 0;
}

static void r4_new(struct fpm_table *t, const struct fpm_route *r)
{
	uint32_t dst;
	struct fpm_target tg;

	memcpy(&dst, r->dst, sizeof(dst));
	uint64_t key = r4_key(ntohl(dst), r->dst_len);
	route_target(t, r, &tg);
	if (oa_reserve(&t->r4) != 0) {
		fpm_log_limited(t, "fpm: route table: out of memory: route not recorded");
		t->c.rejected[FPM_REJ_RIB]++;
		return;
	}
	struct fpm_r4 *e = oa_slot(&t->r4, key);
	if ((!e->key || e->gen != t->gen) && !fpm_limit_admit(t, 0)) {
		/* New to this session: a stale entry stays as it is, and is swept. */
		fpm_log_reject(t, AF_INET, r->dst, r->dst_len, FPM_REJ_LIMIT, t->limit[0]);
		return;
	}
	if (!e->key) {
		oa_claim(&t->r4, e, key);
		e->gen = t->gen;
		t->c.routes_added++;
		t->c.routes4++;
	} else if (e->gen != t->gen) {
		/* Re-announced in the replay: no longer stale; the old object link is void. */
		e->gen = t->gen;
		e->nh = 0;
		t->c.routes_reconfirmed++;
		t->nstale_left--;
	} else {
		r4_unlink(t, e);
		t->c.routes_replaced++;
	}
	const struct fpm_target *use = &tg;
	if (r->nh_id && r->type == RTN_UNICAST && tg.reject < 0) {
		struct fpm_nh *n = fpm_nh_get(t, r->nh_id);
		if (!n || fpm_nh_dep_add(t, n, key, &e->pos) != 0) {
			tg = (struct fpm_target){.reject = FPM_REJ_RIB, .detail = -ENOMEM};
		} else {
			e->nh = n->slot + 1;
			use = n->state == NHS_KNOWN ? &n->target : &target_pending;
		}
	}
	r4_program(t, e, use);
}

static void r4_drop(struct fpm_table *t, struct fpm_r4 *e)
{
	r4_withdraw(t, e);
	r4_flags_set(t, e, 0);
	oa_remove(&t->r4, e);
	t->c.routes4--;
}

static void r4_del(struct fpm_table *t, const struct fpm_route *r)
{
	uint32_t dst;

	memcpy(&dst, r->dst, sizeof(dst));
	struct fpm_r4 *e = oa_find(&t->r4, r4_key(ntohl(dst), r->dst_len));
	if (!e) {
		t->c.routes_del_unknown++;
		return;
	}
	if (e->gen != t->gen)
		t->nstale_left--;
	else
		fpm_limit_release(t, 0);
	r4_unlink(t, e);
	r4_drop(t, e);
	t->c.routes_deleted++;
}

/* --- Messages and frames -------------------------------------------------- */

static uint32_t route_table_id(const struct fpm_route *r)
{
	/* RT_TABLE_UNSPEC means main, as for the kernel's RTM_NEWROUTE. */
	return r->table ? r->table : RT_TABLE_MAIN;
}

static void route_apply(struct fpm_table *t, const struct fpm_msg *m)
{
	const struct fpm_route *r = &m->route;
	bool del = m->type == FPM_MSG_DELROUTE;

	if (r->family != AF_INET && r->family != AF_INET6) {
		/* MPLS label routes (AF_MPLS) when zebra has MPLS on. */
		t->c.ignored_family++;
		fpm_log_limited(t, "fpm: route of address family %u not handled: skipped",
		                r->family);
		return;
	}
	if (route_table_id(r) != RT_TABLE_MAIN) {
		if (!del)
			fpm_log_reject(t, r->family, r->dst, r->dst_len, FPM_REJ_TABLE,
			               route_table_id(r));
		return;
	}
	if (r->family == AF_INET6)
		del ? fpm_r6_del(t, r) : fpm_r6_new(t, r);
	else
		del ? r4_del(t, r) : r4_new(t, r);
}

static void msg_apply(struct fpm_table *t, const struct fpm_msg *m)
{
	switch (m->type) {
	case FPM_MSG_NEWROUTE:
	case FPM_MSG_DELROUTE:
		route_apply(t, m);
		break;
	case FPM_MSG_NEWNEXTHOP:
	case FPM_MSG_DELNEXTHOP:
		fpm_nh_apply(t, &m->nhobj, m->type == FPM_MSG_DELNEXTHOP);
		break;
	default: /* EVPN neighbours (RTM_NEWNEIGH) and the like: not ours */
		fpm_log_limited(t, "fpm: netlink message type %u not handled: skipped [other]",
		                m->nl_type);
		break;
	}
}

static bool same_prefix(const struct fpm_route *a, const struct fpm_route *b)
{
	return a->family == b->family && a->dst_len == b->dst_len &&
	       route_table_id(a) == route_table_id(b) && !memcmp(a->dst, b->dst, sizeof(a->dst));
}

static void msg_malformed(struct fpm_table *t, const void *nlh, enum fpm_err err)
{
	uint16_t type;

	memcpy(&type, (const uint8_t *)nlh + 4, sizeof(type)); /* nlmsg_type */
	t->c.errors[err]++;
	fpm_log_limited(t, "fpm: netlink message type %u skipped: %s [%s]", type, fpm_err_desc[err],
	                fpm_err_name[err]);
}

enum fpm_err fpm_table_frame(struct fpm_table *t, const uint8_t *payload, size_t len)
{
	struct fpm_frame_iter it = {.p = payload, .rem = (int)len};
	struct fpm_msg *held = NULL;
	const void *nlh;
	size_t nlen;
	int cur = 0, more;

	while ((more = fpm_frame_next(&it, &nlh, &nlen)) > 0) {
		struct fpm_msg *m = &t->msg[cur];
		enum fpm_err err = fpm_nl_decode(nlh, nlen, m);
		if (err) {
			msg_malformed(t, nlh, err);
			continue;
		}
		t->c.msgs[m->type]++;
		/*
		 * zebra sends a route change as RTM_DELROUTE + RTM_NEWROUTE in one
		 * frame. Applied one by one, the FIB would lack the prefix in
		 * between (packets dropped, or sent the shorter way): the NEW alone
		 * replaces in place.
		 */
		if (held && !(m->type == FPM_MSG_NEWROUTE && same_prefix(&held->route, &m->route)))
			msg_apply(t, held);
		held = NULL;
		if (m->type == FPM_MSG_DELROUTE) {
			held = m;
			cur ^= 1;
			continue;
		}
		msg_apply(t, m);
	}
	if (held)
		msg_apply(t, held);
	if (more < 0) {
		t->c.errors[FPM_E_NLMSG]++;
		fpm_log_limited(t, "fpm: frame of %zu bytes: rest of it skipped: %s [%s]", len,
		                fpm_err_desc[FPM_E_NLMSG], fpm_err_name[FPM_E_NLMSG]);
		return FPM_E_NLMSG;
	}
	return FPM_OK;
}

void fpm_table_prefetch(const struct fpm_table *t, const uint8_t *payload, size_t len)
{
	struct nlmsghdr nlh;
	struct rtmsg rtm;
	struct nlattr a;
	uint32_t dst;
	uint8_t dst6[16];
	const size_t at = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(rtm));

	if (len < at + sizeof(a) + sizeof(dst))
		return;
	memcpy(&nlh, payload, sizeof(nlh));
	memcpy(&rtm, payload + NLMSG_HDRLEN, sizeof(rtm));
	memcpy(&a, payload + at, sizeof(a));
	if ((nlh.nlmsg_type != RTM_NEWROUTE && nlh.nlmsg_type != RTM_DELROUTE) ||
	    a.nla_type != RTA_DST)
		return;
	if (rtm.rtm_family == AF_INET6 && rtm.rtm_dst_len <= 128 &&
	    a.nla_len == sizeof(a) + sizeof(dst6) && len >= at + sizeof(a) + sizeof(dst6)) {
		memcpy(dst6, payload + at + sizeof(a), sizeof(dst6));
		fpm_r6_prefetch(t, dst6, rtm.rtm_dst_len);
		return;
	}
	if (rtm.rtm_family != AF_INET || rtm.rtm_dst_len > 32 ||
	    a.nla_len != sizeof(a) + sizeof(dst))
		return;
	memcpy(&dst, payload + at + sizeof(a), sizeof(dst));
	uint32_t prefix = ntohl(dst);
	uint64_t key = r4_key(prefix, rtm.rtm_dst_len);
	const void *old = oa_old_home_slot(&t->r4, key);
	__builtin_prefetch(oa_home_slot(&t->r4, key), 1);
	if (old)
		__builtin_prefetch(old, 0);
	rib_route_prefetch(t->rib, prefix, rtm.rtm_dst_len);
}

/* --- Sessions and the sweep ------------------------------------------------ */

int fpm_table_session_start(struct fpm_table *t)
{
	uint64_t *stale = NULL;
	uint32_t n = 0;

	if ((t->r4.nused && !(stale = malloc((size_t)t->r4.nused * sizeof(*stale)))) ||
	    fpm_r6_session_start(t) != 0) {
		free(stale);
		return -ENOMEM;
	}
	uint64_t pos = 0;
	for (const void *e; (e = oa_next(&t->r4, &pos)) != NULL;)
		stale[n++] = oa_key(e);
	/* Object ids are the old zebra's: forget them; routes keep their RIB entries. */
	fpm_nh_reset(t);
	free(t->stale);
	t->stale = stale;
	t->nstale = n;
	t->stale_pos = 0;
	t->nstale_left = (uint64_t)n + t->nstale6;
	t->gen++;
	t->settled = false;
	fpm_limit_session_start(t);
	return 0;
}

uint64_t fpm_table_reconfirmed(const struct fpm_table *t)
{
	return t->c.routes_reconfirmed + t->c.ipv6_reconfirmed;
}

bool fpm_table_sweep(struct fpm_table *t, unsigned budget)
{
	if (t->settled)
		return true;
	while (budget && t->stale_pos < t->nstale) {
		struct fpm_r4 *e = oa_find(&t->r4, t->stale[t->stale_pos++]);
		budget--;
		if (!e || e->gen == t->gen)
			continue;
		r4_drop(t, e);
		t->c.routes_swept++;
		t->nstale_left--;
	}
	if (t->stale_pos < t->nstale || !fpm_r6_sweep(t, &budget))
		return false;
	free(t->stale);
	t->stale = NULL;
	t->nstale = t->stale_pos = 0;
	t->settled = true;
	fpm_nh_settle(t);
	return true;
}

void fpm_table_get_counters(const struct fpm_table *t, struct fpm_table_counters *out)
{
	*out = t->c;
	out->routes6 = t->r6.nused;
	out->routes6_rib = t->c.routes6_rib;
	out->routes6_pending = t->c.routes6_pending;
	out->routes6_rejected = t->c.routes6_rejected;
	out->nhobjs = t->nh_n - t->nh_nfree;
	out->stale = t->nstale_left;
	out->settled = t->settled;
}
