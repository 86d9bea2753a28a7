/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Building FPM frames the way zebra's dplane_fpm_nl does, for the unit
 * tests, the fuzz seeds and the ingest benchmark: a growing buffer of
 * frames (4-byte header, then netlink messages written with libmnl).
 *
 *   struct fpm_buf b = {0};
 *   fb_frame_begin(&b);
 *   struct nlmsghdr *n = fb_route(&b, RTM_NEWROUTE, 0x0a090000, 16, RTN_UNICAST);
 *   fb_gw(&b, n, 0x0a000202, 5);
 *   fb_frame_end(&b);
 */
#ifndef CELLGATE_TEST_FPM_BUILD_H
#define CELLGATE_TEST_FPM_BUILD_H

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct fpm_buf {
	uint8_t *p;
	size_t len, cap;
	size_t frame; /* offset of the open frame's header */
};

static inline void fb_reserve(struct fpm_buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 1 << 16;
	while (cap < b->len + more)
		cap *= 2;
	b->p = realloc(b->p, cap);
	if (!b->p)
		abort();
	memset(b->p + b->cap, 0, cap - b->cap);
	b->cap = cap;
}

static inline void fb_frame_begin(struct fpm_buf *b)
{
	fb_reserve(b, 4);
	b->frame = b->len;
	b->len += 4;
}

/* Write the header of the open frame: version 1, type 1 (netlink), length. */
static inline void fb_frame_end(struct fpm_buf *b)
{
	size_t flen = b->len - b->frame;

	b->p[b->frame] = 1;
	b->p[b->frame + 1] = 1;
	b->p[b->frame + 2] = (uint8_t)(flen >> 8);
	b->p[b->frame + 3] = (uint8_t)flen;
}

/* Room for a message of up to `room` bytes; the caller adds attributes, then fb_msg_end. */
static inline struct nlmsghdr *fb_msg(struct fpm_buf *b, uint16_t type, size_t room)
{
	fb_reserve(b, room + 4096);
	struct nlmsghdr *n = mnl_nlmsg_put_header(b->p + b->len);
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_REQUEST | (type == RTM_NEWROUTE ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	return n;
}

static inline void fb_msg_end(struct fpm_buf *b, struct nlmsghdr *n)
{
	b->len += MNL_ALIGN(n->nlmsg_len);
}

/* An IPv4 route message; prefix in host order. Finish with fb_msg_end. */
static inline struct nlmsghdr *fb_route(struct fpm_buf *b, uint16_t type, uint32_t prefix,
                                        uint8_t len, uint8_t rtm_type)
{
	struct nlmsghdr *n = fb_msg(b, type, 4096);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(n, sizeof(*rtm));

	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = len;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = 196; /* zebra's RTPROT_ZSTATIC */
	rtm->rtm_type = type == RTM_DELROUTE ? RTN_UNSPEC : rtm_type;
	uint32_t dst = htonl(prefix);
	mnl_attr_put(n, RTA_DST, 4, &dst);
	mnl_attr_put_u32(n, RTA_PRIORITY, 20);
	return n;
}

/* RTA_GATEWAY (0 = none) + RTA_OIF (0 = none) of a single-path route; gw in host order. */
static inline void fb_gw(struct nlmsghdr *n, uint32_t gw, uint32_t oif)
{
	uint32_t g = htonl(gw);

	if (gw)
		mnl_attr_put(n, RTA_GATEWAY, 4, &g);
	if (oif)
		mnl_attr_put_u32(n, RTA_OIF, oif);
}

/* RTA_MULTIPATH with n paths: gateways (host order), ifindexes, weights (1..256). */
static inline void fb_multipath(struct nlmsghdr *n, unsigned np, const uint32_t *gw,
                                const uint32_t *oif, const unsigned *weight)
{
	struct nlattr *mp = mnl_attr_nest_start(n, RTA_MULTIPATH);

	for (unsigned i = 0; i < np; i++) {
		struct rtnexthop *rtnh = mnl_nlmsg_get_payload_tail(n);
		n->nlmsg_len += MNL_ALIGN(sizeof(*rtnh));
		memset(rtnh, 0, sizeof(*rtnh));
		rtnh->rtnh_ifindex = (int)oif[i];
		rtnh->rtnh_hops = (uint8_t)((weight ? weight[i] : 1) - 1);
		uint32_t g = htonl(gw[i]);
		if (gw[i])
			mnl_attr_put(n, RTA_GATEWAY, 4, &g);
		rtnh->rtnh_len =
		    (uint16_t)((uint8_t *)mnl_nlmsg_get_payload_tail(n) - (uint8_t *)rtnh);
	}
	mnl_attr_nest_end(n, mp);
}

/* A next-hop object: gateway (host order, 0 = none) and oif, or blackhole. */
static inline struct nlmsghdr *fb_nexthop(struct fpm_buf *b, uint16_t type, uint32_t id,
                                          uint32_t gw, uint32_t oif, int blackhole)
{
	struct nlmsghdr *n = fb_msg(b, type, 256);
	struct nhmsg *nhm = mnl_nlmsg_put_extra_header(n, sizeof(*nhm));

	nhm->nh_family = type == RTM_DELNEXTHOP ? AF_UNSPEC : AF_INET;
	nhm->nh_protocol = 11; /* zebra */
	mnl_attr_put_u32(n, NHA_ID, id);
	if (blackhole)
		mnl_attr_put(n, NHA_BLACKHOLE, 0, NULL);
	uint32_t g = htonl(gw);
	if (gw)
		mnl_attr_put(n, NHA_GATEWAY, 4, &g);
	if (oif)
		mnl_attr_put_u32(n, NHA_OIF, oif);
	return n;
}

/* A group object over member ids with weights (1..256). */
static inline struct nlmsghdr *fb_group(struct fpm_buf *b, uint32_t id, unsigned nm,
                                        const uint32_t *ids, const unsigned *weight)
{
	struct nlmsghdr *n = fb_msg(b, RTM_NEWNEXTHOP, 256 + nm * sizeof(struct nexthop_grp));
	struct nhmsg *nhm = mnl_nlmsg_put_extra_header(n, sizeof(*nhm));
	struct nexthop_grp g[nm ? nm : 1];

	nhm->nh_family = AF_UNSPEC;
	nhm->nh_protocol = 11;
	mnl_attr_put_u32(n, NHA_ID, id);
	memset(g, 0, sizeof(g));
	for (unsigned i = 0; i < nm; i++) {
		g[i].id = ids[i];
		g[i].weight = (uint8_t)((weight ? weight[i] : 1) - 1);
	}
	mnl_attr_put(n, NHA_GROUP, nm * sizeof(g[0]), g);
	return n;
}

/* An IPv6 route message (prefix: 16 bytes, network order). Finish with fb_msg_end. */
static inline struct nlmsghdr *fb_route6(struct fpm_buf *b, uint16_t type, const uint8_t *prefix,
                                         uint8_t len, uint8_t rtm_type)
{
	struct nlmsghdr *n = fb_msg(b, type, 4096);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(n, sizeof(*rtm));

	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = len;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = 196;
	rtm->rtm_type = type == RTM_DELROUTE ? RTN_UNSPEC : rtm_type;
	mnl_attr_put(n, RTA_DST, 16, prefix);
	mnl_attr_put_u32(n, RTA_PRIORITY, 20);
	return n;
}

/* RTA_GATEWAY (NULL = none) + RTA_OIF (0 = none) of a single-path IPv6 route. */
static inline void fb_gw6(struct nlmsghdr *n, const uint8_t *gw, uint32_t oif)
{
	if (gw)
		mnl_attr_put(n, RTA_GATEWAY, 16, gw);
	if (oif)
		mnl_attr_put_u32(n, RTA_OIF, oif);
}

/* RTA_MULTIPATH over np IPv6 gateways (16 bytes each), ifindexes, weights (1..256). */
static inline void fb_multipath6(struct nlmsghdr *n, unsigned np, const uint8_t (*gw)[16],
                                 const uint32_t *oif, const unsigned *weight)
{
	struct nlattr *mp = mnl_attr_nest_start(n, RTA_MULTIPATH);

	for (unsigned i = 0; i < np; i++) {
		struct rtnexthop *rtnh = mnl_nlmsg_get_payload_tail(n);
		n->nlmsg_len += MNL_ALIGN(sizeof(*rtnh));
		memset(rtnh, 0, sizeof(*rtnh));
		rtnh->rtnh_ifindex = (int)oif[i];
		rtnh->rtnh_hops = (uint8_t)((weight ? weight[i] : 1) - 1);
		mnl_attr_put(n, RTA_GATEWAY, 16, gw[i]);
		rtnh->rtnh_len =
		    (uint16_t)((uint8_t *)mnl_nlmsg_get_payload_tail(n) - (uint8_t *)rtnh);
	}
	mnl_attr_nest_end(n, mp);
}

/* A next-hop object of family AF_INET6: gateway (NULL = none) and oif. */
static inline struct nlmsghdr *fb_nexthop6(struct fpm_buf *b, uint32_t id, const uint8_t *gw,
                                           uint32_t oif)
{
	struct nlmsghdr *n = fb_msg(b, RTM_NEWNEXTHOP, 256);
	struct nhmsg *nhm = mnl_nlmsg_put_extra_header(n, sizeof(*nhm));

	nhm->nh_family = AF_INET6;
	nhm->nh_protocol = 11;
	mnl_attr_put_u32(n, NHA_ID, id);
	if (gw)
		mnl_attr_put(n, NHA_GATEWAY, 16, gw);
	if (oif)
		mnl_attr_put_u32(n, NHA_OIF, oif);
	return n;
}

#endif
