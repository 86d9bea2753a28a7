/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Decoding of FPM frames and of the rtnetlink messages inside them (see
 * fpm_nl.h). Attribute walks use libmnl's bounds checks (mnl_attr_ok), and
 * every attribute this decoder reads has its payload size checked against
 * its type before use: the input comes from a TCP socket.
 */
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/fpm_nl.h"

const char *const fpm_err_name[FPM_E__MAX] = {[FPM_OK] = "ok",
#define X(id, name, desc) [FPM_E_##id] = name,
                                              FPM_ERRORS(X)
#undef X
};

const char *const fpm_msg_name[FPM_MSG__MAX] = {
    [FPM_MSG_NEWROUTE] = "newroute",     [FPM_MSG_DELROUTE] = "delroute",
    [FPM_MSG_NEWNEXTHOP] = "newnexthop", [FPM_MSG_DELNEXTHOP] = "delnexthop",
    [FPM_MSG_OTHER] = "other",
};

long fpm_frame_check(const uint8_t *buf, size_t len)
{
	if (len < FPM_HDR_LEN)
		return 0;
	/* dplane_fpm_nl: version 1, message type 1 (netlink), length in network order. */
	if (buf[0] != FPM_PROTO_VERSION)
		return -FPM_E_HDR_VERSION;
	if (buf[1] != FPM_MSG_NETLINK)
		return -FPM_E_HDR_TYPE;
	size_t flen = (size_t)buf[2] << 8 | buf[3];
	if (flen < FPM_HDR_LEN)
		return -FPM_E_HDR_LENGTH;
	return len >= flen ? (long)flen : 0;
}

int fpm_frame_next(struct fpm_frame_iter *it, const void **msg, size_t *len)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)it->p;

	if (it->rem <= 0)
		return 0;
	/* mnl_nlmsg_ok compares nlmsg_len as an int: a length of 2^31 or more passes it. */
	if (it->rem < (int)sizeof(*nlh) || nlh->nlmsg_len > (uint32_t)it->rem ||
	    !mnl_nlmsg_ok(nlh, it->rem))
		return -FPM_E_NLMSG;
	*msg = nlh;
	*len = nlh->nlmsg_len;
	/* The last message may end without its alignment padding. */
	int step = (int)MNL_ALIGN(nlh->nlmsg_len);
	it->rem = step >= it->rem ? 0 : it->rem - step;
	it->p += step;
	return 1;
}

static size_t family_addr_len(uint8_t family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
}

/* RTA_VIA (RFC 5549 style: a gateway of another family): struct rtvia + address. */
static enum fpm_err via_decode(const struct nlattr *a, struct fpm_path *p)
{
	const struct rtvia *via = mnl_attr_get_payload(a);
	size_t len = mnl_attr_get_payload_len(a);

	if (len < sizeof(*via))
		return FPM_E_ATTR_SIZE;
	size_t alen = family_addr_len((uint8_t)via->rtvia_family);
	if (!alen || len - sizeof(*via) != alen)
		return FPM_E_ATTR_SIZE;
	p->gw_family = (uint8_t)via->rtvia_family;
	memcpy(p->gw, via->rtvia_addr, alen);
	return FPM_OK;
}

/* RTA_GATEWAY: an address of the route's own family. */
static enum fpm_err gw_decode(const struct nlattr *a, uint8_t family, struct fpm_path *p)
{
	size_t alen = family_addr_len(family);

	if (mnl_attr_get_payload_len(a) != alen)
		return FPM_E_ATTR_SIZE;
	p->gw_family = family;
	memcpy(p->gw, mnl_attr_get_payload(a), alen);
	return FPM_OK;
}

static bool u32_ok(const struct nlattr *a)
{
	return mnl_attr_get_payload_len(a) == sizeof(uint32_t);
}

/* A walk over the attributes in one buffer (a message body or a nest). */
struct attr_iter {
	const struct nlattr *a;
	int rem;
};

static struct attr_iter attr_iter(const void *start, size_t len)
{
	return (struct attr_iter){.a = start, .rem = (int)len};
}

/*
 * 1 and *out = the next attribute, 0 at the end, -1 when an attribute lies
 * partly outside the buffer or stray bytes follow the last one. A final
 * attribute may end without its alignment padding.
 */
static int attr_next(struct attr_iter *it, const struct nlattr **out)
{
	if (it->rem <= 0)
		return 0;
	if (!mnl_attr_ok(it->a, it->rem))
		return -1;
	*out = it->a;
	int step = (int)MNL_ALIGN(it->a->nla_len);
	it->rem = step >= it->rem ? 0 : it->rem - step;
	it->a = mnl_attr_next(it->a);
	return 1;
}

/* Attributes nested in one rtnexthop: the path's gateway and encap. */
static enum fpm_err rtnh_attrs(const void *start, size_t len, uint8_t family, struct fpm_path *p,
                               bool *encap)
{
	struct attr_iter it = attr_iter(start, len);
	const struct nlattr *a;
	enum fpm_err err = FPM_OK;
	int more;

	while (!err && (more = attr_next(&it, &a)) > 0) {
		switch (mnl_attr_get_type(a)) {
		case RTA_GATEWAY:
			err = gw_decode(a, family, p);
			break;
		case RTA_VIA:
			err = via_decode(a, p);
			break;
		case RTA_ENCAP:
		case RTA_ENCAP_TYPE:
			*encap = true;
			break;
		default:
			break;
		}
	}
	return err ? err : more < 0 ? FPM_E_ATTR : FPM_OK;
}

/*
 * RTA_MULTIPATH: a list of struct rtnexthop, each followed by its own
 * attributes within rtnh_len (rtnetlink(7)); rtnh_hops is the weight - 1.
 */
static enum fpm_err multipath_decode(const struct nlattr *a, struct fpm_route *r)
{
	const uint8_t *p = mnl_attr_get_payload(a);
	size_t rem = mnl_attr_get_payload_len(a);

	r->npaths = 0;
	while (rem > 0) {
		const struct rtnexthop *nh = (const struct rtnexthop *)p;
		if (rem < sizeof(*nh) || nh->rtnh_len < sizeof(*nh) || nh->rtnh_len > rem)
			return FPM_E_MULTIPATH;
		if (r->npaths == FPM_PATHS_MAX)
			return FPM_E_PATHS;
		struct fpm_path *path = &r->paths[r->npaths++];
		*path = (struct fpm_path){.oif = nh->rtnh_ifindex,
		                          .weight = nh->rtnh_hops == 255 ? 255 : nh->rtnh_hops + 1};
		enum fpm_err err =
		    rtnh_attrs(p + RTNH_ALIGN(sizeof(*nh)), nh->rtnh_len - sizeof(*nh), r->family,
		               path, &r->encap);
		if (err)
			return err;
		size_t step = RTNH_ALIGN(nh->rtnh_len);
		if (step >= rem)
			break;
		rem -= step;
		p += step;
	}
	return r->npaths ? FPM_OK : FPM_E_MULTIPATH;
}

static enum fpm_err route_attr(const struct nlattr *a, struct fpm_route *r, struct fpm_path *single,
                               bool *has_dst)
{
	size_t alen = family_addr_len(r->family);

	switch (mnl_attr_get_type(a)) {
	case RTA_DST:
		if (mnl_attr_get_payload_len(a) != alen)
			return FPM_E_ATTR_SIZE;
		memcpy(r->dst, mnl_attr_get_payload(a), alen);
		*has_dst = true;
		return FPM_OK;
	case RTA_GATEWAY:
		return gw_decode(a, r->family, single);
	case RTA_VIA:
		return via_decode(a, single);
	case RTA_OIF:
		if (!u32_ok(a))
			return FPM_E_ATTR_SIZE;
		single->oif = (int32_t)mnl_attr_get_u32(a);
		return FPM_OK;
	case RTA_PRIORITY:
	case RTA_TABLE:
	case RTA_NH_ID:
		if (!u32_ok(a))
			return FPM_E_ATTR_SIZE;
		if (mnl_attr_get_type(a) == RTA_PRIORITY)
			r->priority = mnl_attr_get_u32(a);
		else if (mnl_attr_get_type(a) == RTA_TABLE)
			r->table = mnl_attr_get_u32(a);
		else
			r->nh_id = mnl_attr_get_u32(a);
		return FPM_OK;
	case RTA_MULTIPATH:
		return multipath_decode(a, r);
	case RTA_ENCAP:
	case RTA_ENCAP_TYPE:
		r->encap = true;
		return FPM_OK;
	default: /* RTA_PREFSRC, RTA_METRICS, ...: nothing cellgated uses */
		return FPM_OK;
	}
}

/* Host bits of an address beyond plen must be zero. */
static bool prefix_clean(const uint8_t *addr, size_t alen, unsigned plen)
{
	for (size_t i = 0; i < alen; i++) {
		unsigned bits = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * i : 0;
		uint8_t host = (uint8_t)(0xffu >> bits);
		if (addr[i] & host)
			return false;
	}
	return true;
}

static enum fpm_err route_decode(const struct nlmsghdr *nlh, struct fpm_route *r)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct fpm_path single = {.weight = 1};
	const struct nlattr *a;
	bool has_dst = false;
	int more;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm))
		return FPM_E_SHORT;
	/* Everything but the path array (1.5 KiB, used up to npaths): once per route. */
	memset(r, 0, offsetof(struct fpm_route, paths));
	r->family = rtm->rtm_family;
	r->dst_len = rtm->rtm_dst_len;
	r->type = rtm->rtm_type;
	r->protocol = rtm->rtm_protocol;
	r->table = rtm->rtm_table;
	size_t alen = family_addr_len(r->family);
	if (!alen) /* MPLS (AF_MPLS) and others: decoded no further, counted by the caller */
		return FPM_OK;
	if (r->dst_len > 8 * alen)
		return FPM_E_PREFIX;
	struct attr_iter it = attr_iter((const uint8_t *)rtm + NLMSG_ALIGN(sizeof(*rtm)),
	                                mnl_nlmsg_get_payload_len(nlh) - NLMSG_ALIGN(sizeof(*rtm)));
	while ((more = attr_next(&it, &a)) > 0) {
		enum fpm_err err = route_attr(a, r, &single, &has_dst);
		if (err)
			return err;
	}
	if (more < 0)
		return FPM_E_ATTR;
	/* The default route may come without RTA_DST; any other must carry it. */
	if ((!has_dst && r->dst_len) || !prefix_clean(r->dst, alen, r->dst_len))
		return FPM_E_PREFIX;
	/* RTA_MULTIPATH, when present, is the route's path list; else the single path. */
	if (!r->npaths && (single.gw_family || single.oif))
		r->paths[r->npaths++] = single;
	return FPM_OK;
}

static enum fpm_err group_decode(const struct nlattr *a, struct fpm_nhobj *o)
{
	size_t len = mnl_attr_get_payload_len(a);
	const struct nexthop_grp *g = mnl_attr_get_payload(a);

	if (len == 0 || len % sizeof(*g) || len / sizeof(*g) > FPM_GROUP_MAX)
		return FPM_E_GROUP;
	o->ngroup = (unsigned)(len / sizeof(*g));
	for (unsigned i = 0; i < o->ngroup; i++) {
		if (g[i].id == 0)
			return FPM_E_GROUP;
		/* linux/nexthop.h: the weight is carried as weight - 1. */
		o->group[i] = (struct fpm_nh_member){.id = g[i].id, .weight = g[i].weight + 1u};
	}
	return FPM_OK;
}

static enum fpm_err nhobj_attr(const struct nlattr *a, struct fpm_nhobj *o)
{
	switch (mnl_attr_get_type(a)) {
	case NHA_ID:
		if (!u32_ok(a))
			return FPM_E_ATTR_SIZE;
		o->id = mnl_attr_get_u32(a);
		return FPM_OK;
	case NHA_GROUP:
		return group_decode(a, o);
	case NHA_BLACKHOLE:
		if (mnl_attr_get_payload_len(a) != 0)
			return FPM_E_ATTR_SIZE;
		o->blackhole = true;
		return FPM_OK;
	case NHA_OIF:
		if (!u32_ok(a))
			return FPM_E_ATTR_SIZE;
		o->path.oif = (int32_t)mnl_attr_get_u32(a);
		return FPM_OK;
	case NHA_GATEWAY:
		/* The gateway's family is the nhmsg's (an IPv6 gateway may serve IPv4). */
		return gw_decode(a, o->family, &o->path);
	case NHA_ENCAP:
	case NHA_ENCAP_TYPE:
	case NHA_FDB:
		o->encap = true;
		return FPM_OK;
	default: /* NHA_GROUP_TYPE, resilient-group details: not used */
		return FPM_OK;
	}
}

static enum fpm_err nhobj_decode(const struct nlmsghdr *nlh, struct fpm_nhobj *o)
{
	const struct nhmsg *nhm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	int more;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*nhm))
		return FPM_E_SHORT;
	o->id = 0;
	o->family = nhm->nh_family;
	o->blackhole = o->encap = false;
	o->path = (struct fpm_path){.weight = 1};
	o->ngroup = 0;
	struct attr_iter it = attr_iter((const uint8_t *)nhm + NLMSG_ALIGN(sizeof(*nhm)),
	                                mnl_nlmsg_get_payload_len(nlh) - NLMSG_ALIGN(sizeof(*nhm)));
	while ((more = attr_next(&it, &a)) > 0) {
		enum fpm_err err = nhobj_attr(a, o);
		if (err)
			return err;
	}
	if (more < 0)
		return FPM_E_ATTR;
	return o->id ? FPM_OK : FPM_E_NH_ID;
}

enum fpm_err fpm_nl_decode(const void *buf, size_t len, struct fpm_msg *out)
{
	const struct nlmsghdr *nlh = buf;

	if (len > FPM_FRAME_MAX || len < sizeof(*nlh) || nlh->nlmsg_len > len ||
	    !mnl_nlmsg_ok(nlh, (int)len))
		return FPM_E_NLMSG;
	out->nl_type = nlh->nlmsg_type;
	switch (nlh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		out->type = nlh->nlmsg_type == RTM_NEWROUTE ? FPM_MSG_NEWROUTE : FPM_MSG_DELROUTE;
		return route_decode(nlh, &out->route);
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		out->type =
		    nlh->nlmsg_type == RTM_NEWNEXTHOP ? FPM_MSG_NEWNEXTHOP : FPM_MSG_DELNEXTHOP;
		return nhobj_decode(nlh, &out->nhobj);
	default:
		out->type = FPM_MSG_OTHER;
		return FPM_OK;
	}
}
