/* SPDX-License-Identifier: BSD-2-Clause */
/* Neighbor Solicitation and Advertisement frames (RFC 4861 §4.3, §4.4, §7). */
#include <string.h>

#include "datapath/icmp6.h"
#include "datapath/ip6.h"
#include "datapath/nd.h"

const uint8_t nd_all_nodes[16] = {0xff, 0x02, [15] = 0x01};

const char *const nd_error_name[ND_ERR__MAX] = {[ND_OK] = "ok",
#define X(id, name, desc) [ND_ERR_##id] = name,
                                                ND_ERRORS(X)
#undef X
};

void nd_solicited_node(const uint8_t addr[16], uint8_t out[16])
{
	static const uint8_t pfx[13] = {0xff, 0x02, [11] = 0x01, [12] = 0xff};

	memcpy(out, pfx, 13);
	memcpy(out + 13, addr + 13, 3);
}

void nd_mcast_mac(const uint8_t maddr[16], uint8_t mac[6])
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, maddr + 12, 4);
}

struct nd_frame {
	const uint8_t *eth_dst, *eth_src;
	const uint8_t *ip_src, *ip_dst;
	uint8_t type, flags;
	const uint8_t *target;
	uint8_t opt; /* ND_OPT_SLLA / ND_OPT_TLLA, 0 = no option */
	const uint8_t *opt_mac;
};

static uint32_t nd_build(uint8_t *out, const struct nd_frame *f)
{
	uint8_t *ip = out + 14, *msg = ip + IP6_HLEN;
	uint32_t mlen = 24 + (f->opt ? 8 : 0);

	memcpy(out, f->eth_dst, 6);
	memcpy(out + 6, f->eth_src, 6);
	wr16(out + 12, ETHERTYPE_IPV6);
	wr32(ip, 6u << 28);
	wr16(ip + 4, (uint16_t)mlen);
	ip[6] = IP6_NH_ICMPV6;
	ip[7] = ND_HOP_LIMIT;
	memcpy(ip + 8, f->ip_src, 16);
	memcpy(ip + 24, f->ip_dst, 16);
	memset(msg, 0, 8);
	msg[0] = f->type;
	msg[4] = f->flags; /* NS: reserved, zero */
	memcpy(msg + 8, f->target, 16);
	if (f->opt) {
		msg[24] = f->opt;
		msg[25] = 1; /* 8 octets: Ethernet, RFC 2464 §6 */
		memcpy(msg + 26, f->opt_mac, 6);
	}
	wr16(msg + 2, icmp6_csum(ip, msg, mlen));
	return 14 + IP6_HLEN + mlen;
}

uint32_t nd_ns_build(uint8_t *out, const uint8_t src_mac[6], const uint8_t *dst_mac,
                     const uint8_t src_ip[16], const uint8_t target[16])
{
	uint8_t group[16], group_mac[6];
	struct nd_frame f = {.eth_src = src_mac,
	                     .ip_src = src_ip,
	                     .type = ICMP6_NEIGH_SOL,
	                     .target = target,
	                     .opt = ip6_addr_is_unspecified(src_ip) ? 0 : ND_OPT_SLLA,
	                     .opt_mac = src_mac};

	if (dst_mac) {
		f.eth_dst = dst_mac;
		f.ip_dst = target;
	} else {
		nd_solicited_node(target, group);
		nd_mcast_mac(group, group_mac);
		f.eth_dst = group_mac;
		f.ip_dst = group;
	}
	return nd_build(out, &f);
}

uint32_t nd_na_reply_build(uint8_t *out, const struct nd_msg *ns, const uint8_t ns_eth_src[6],
                           const uint8_t our_mac[6], bool router, bool override)
{
	bool dad = ip6_addr_is_unspecified(ns->src);
	uint8_t all_mac[6];
	struct nd_frame f = {.eth_src = our_mac,
	                     .ip_src = ns->target,
	                     .type = ICMP6_NEIGH_ADV,
	                     .target = ns->target,
	                     .opt = ND_OPT_TLLA,
	                     .opt_mac = our_mac};

	/* §7.2.4: a DAD probe gets a multicast answer with S clear, any other one S set. */
	f.flags = (router ? ND_NA_ROUTER : 0) | (dad ? 0 : ND_NA_SOLICITED) |
	          (override ? ND_NA_OVERRIDE : 0);
	if (dad) {
		nd_mcast_mac(nd_all_nodes, all_mac);
		f.eth_dst = all_mac;
		f.ip_dst = nd_all_nodes;
	} else {
		f.eth_dst = ns->has_lla ? ns->lla : ns_eth_src;
		f.ip_dst = ns->src;
	}
	return nd_build(out, &f);
}

uint32_t nd_na_unsolicited_build(uint8_t *out, const uint8_t our_mac[6], const uint8_t target[16],
                                 bool router, bool override)
{
	uint8_t all_mac[6];
	struct nd_frame f = {.eth_dst = all_mac,
	                     .eth_src = our_mac,
	                     .ip_src = target,
	                     .ip_dst = nd_all_nodes,
	                     .type = ICMP6_NEIGH_ADV,
	                     .flags = (router ? ND_NA_ROUTER : 0) | (override ? ND_NA_OVERRIDE : 0),
	                     .target = target,
	                     .opt = ND_OPT_TLLA,
	                     .opt_mac = our_mac};

	nd_mcast_mac(nd_all_nodes, all_mac);
	return nd_build(out, &f);
}

static bool is_solicited_node(const uint8_t *a)
{
	static const uint8_t pfx[13] = {0xff, 0x02, [11] = 0x01, [12] = 0xff};

	return memcmp(a, pfx, 13) == 0;
}

/* §4.6: every option has a non-zero length and lies within the message; unknown ones skipped. */
static enum nd_error nd_options(const uint8_t *msg, uint32_t mlen, uint8_t want, struct nd_msg *out)
{
	for (uint32_t o = 24; o < mlen;) {
		uint32_t olen;

		if (o + 2 > mlen)
			return ND_ERR_OPTION;
		olen = (uint32_t)msg[o + 1] * 8;
		if (olen == 0 || o + olen > mlen)
			return ND_ERR_OPTION;
		/* Only the Ethernet form (length 1, RFC 2464 §6) carries a MAC we can use. */
		if (msg[o] == want && olen == 8 && !out->has_lla) {
			out->has_lla = true;
			memcpy(out->lla, msg + o + 2, 6);
		}
		o += olen;
	}
	return ND_OK;
}

/* The IPv6 header and the ICMPv6 message of an NS/NA: 0 and msg/mlen, or the error. */
static enum nd_error nd_locate(const uint8_t *ip, uint32_t avail, const uint8_t **msg,
                               uint32_t *mlen)
{
	struct ip6_info info;
	uint32_t len;

	if (avail < IP6_HLEN || (ip[0] >> 4) != 6)
		return ND_ERR_MALFORMED;
	len = IP6_HLEN + rd16(ip + 4);
	if (len > avail || ip6_chain_walk(ip, len, &info) != IP6_OK ||
	    info.l4_proto != IP6_NH_ICMPV6)
		return ND_ERR_MALFORMED;
	/* RFC 6980: ND is never fragmented; a Routing header would change the checksum. */
	if (info.flags & (IP6_F_FRAGMENT | IP6_F_ROUTING))
		return ND_ERR_FRAGMENT;
	*msg = ip + info.l4_off;
	*mlen = len - info.l4_off;
	return ND_OK;
}

enum nd_error nd_parse(const uint8_t *ip, uint32_t avail, struct nd_msg *out)
{
	const uint8_t *msg;
	uint32_t mlen;
	enum nd_error e = nd_locate(ip, avail, &msg, &mlen);

	if (e != ND_OK)
		return e;
	if (mlen < 1 || (msg[0] != ICMP6_NEIGH_SOL && msg[0] != ICMP6_NEIGH_ADV))
		return ND_ERR_TYPE;
	if (ip[7] != ND_HOP_LIMIT)
		return ND_ERR_HOP_LIMIT;
	if (mlen < 24)
		return ND_ERR_LENGTH;
	if (icmp6_csum(ip, msg, mlen) != 0)
		return ND_ERR_CHECKSUM;
	if (msg[1] != 0)
		return ND_ERR_CODE;
	if (ip6_addr_is_multicast(msg + 8))
		return ND_ERR_TARGET;
	/*
	 * RFC 4291 §2.7: a multicast address is never a source. Taken as one, a
	 * solicitation's answer (nd_na_reply_build) would be a solicited NA to a
	 * group, itself invalid (§7.1.2), and the worker's snoop would report
	 * the group as a neighbour seen (found by fuzz_ip6).
	 */
	if (ip6_addr_is_multicast(ip + 8))
		return ND_ERR_SOURCE;
	*out = (struct nd_msg){.type = msg[0]};
	memcpy(out->target, msg + 8, 16);
	memcpy(out->src, ip + 8, 16);
	memcpy(out->dst, ip + 24, 16);
	e = nd_options(msg, mlen, out->type == ICMP6_NEIGH_SOL ? ND_OPT_SLLA : ND_OPT_TLLA, out);
	if (e != ND_OK)
		return e;
	if (out->type == ICMP6_NEIGH_SOL) {
		/* §7.1.1: DAD probes go to a solicited-node group and carry no SLLA. */
		if (ip6_addr_is_unspecified(out->src) &&
		    (!is_solicited_node(out->dst) || out->has_lla))
			return ND_ERR_DAD;
		return ND_OK;
	}
	out->flags = msg[4] & (ND_NA_ROUTER | ND_NA_SOLICITED | ND_NA_OVERRIDE);
	if (ip6_addr_is_multicast(out->dst) && (out->flags & ND_NA_SOLICITED))
		return ND_ERR_SOLICITED;
	return ND_OK;
}
