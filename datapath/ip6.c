/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 header checks, the extension-header walk, egress checks and the ECMP
 * flow hash. Every verdict and its reason are documented in ip6.h.
 */
#include <string.h>

#include "datapath/icmp6.h"
#include "datapath/ip6.h"

static inline uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}

static enum drop_reason param_problem(struct ip6_info *info, enum drop_reason r, uint8_t code,
                                      uint32_t ptr)
{
	info->err = (struct ip6_err){ICMP6_PARAM_PROB, code, ptr};
	return r;
}

/*
 * Options of the Hop-by-Hop header at `off`, `hlen` octets (RFC 8200 §4.2).
 * Padding is limited as Linux limits it (7 octets in a row, PadN all zero), so
 * no packet can make us scan options we would not have scanned anyway.
 */
static enum drop_reason hbh_options(const uint8_t *ip, uint32_t off, uint32_t hlen,
                                    struct ip6_info *info)
{
	uint32_t i = off + 2, end = off + hlen;
	unsigned opts = 0, pad = 0;

	while (i < end) {
		uint8_t type = ip[i];
		uint32_t olen;

		if (type == 0) { /* Pad1 */
			if (++pad > 7)
				return DROP_IP6_HBH_OPTION;
			i++;
			continue;
		}
		if (i + 2 > end || i + 2 + ip[i + 1] > end)
			return DROP_IP6_HBH_OPTION; /* option runs past its header */
		olen = ip[i + 1];
		if (type == 1) { /* PadN */
			pad += 2 + olen;
			if (pad > 7)
				return DROP_IP6_HBH_OPTION;
			for (uint32_t k = 0; k < olen; k++)
				if (ip[i + 2 + k])
					return DROP_IP6_HBH_OPTION;
			i += 2 + olen;
			continue;
		}
		pad = 0;
		if (++opts > IP6_HBH_OPTS_MAX)
			return param_problem(info, DROP_IP6_HBH_OPTION, ICMP6_PP_TOO_MANY_OPTS, i);
		if (type == 5) { /* Router Alert, RFC 2711: two octets of value */
			if (olen != 2)
				return DROP_IP6_HBH_OPTION;
			info->flags |= IP6_F_ROUTER_ALERT;
		} else if (type == 0xc2) { /* Jumbo Payload: no jumbograms here (RFC 2675) */
			return param_problem(info, DROP_IP6_HBH_OPTION, ICMP6_PP_HEADER, i + 2);
		} else {
			/* RFC 8200 §4.2: the two high-order bits say what to do with an unknown
			 * option. */
			switch (type >> 6) {
			case 0:
				break;
			case 1:
				return DROP_IP6_HBH_OPTION;
			case 2:
				return param_problem(info, DROP_IP6_HBH_OPTION, ICMP6_PP_OPTION, i);
			default:
				if (ip6_addr_is_multicast(ip + 24))
					return DROP_IP6_HBH_OPTION;
				return param_problem(info, DROP_IP6_HBH_OPTION, ICMP6_PP_OPTION, i);
			}
		}
		i += 2 + olen;
	}
	return IP6_OK;
}

/*
 * Octets of the extension header `nh` whose Hdr Ext Len octet is `hlen`, or
 * 0 if `nh` is not an extension header (the upper layer, ESP, No Next Header).
 */
static uint32_t ext_len(uint8_t nh, uint8_t hlen)
{
	switch (nh) {
	case IP6_NH_HOPOPTS:
	case IP6_NH_ROUTING:
	case IP6_NH_DSTOPTS:
	case 135: /* Mobility, RFC 6275 */
	case 139: /* HIP, RFC 7401 */
	case 140: /* Shim6, RFC 5533 */
	case 253: /* experimentation, RFC 3692 */
	case 254:
		return ((uint32_t)hlen + 1) * 8;
	case IP6_NH_AH: /* RFC 4302 §2.2: in 4-octet units, minus 2 */
		return ((uint32_t)hlen + 2) * 4;
	case IP6_NH_FRAGMENT:
		return 8;
	default:
		return 0;
	}
}

/* The chain ends before the upper layer: a first fragment without it breaks RFC 7112. */
static enum drop_reason chain_truncated(struct ip6_info *info)
{
	if (info->flags & IP6_F_FRAGMENT)
		return param_problem(info, DROP_IP6_EXT_TRUNCATED, ICMP6_PP_INCOMPLETE_CHAIN, 0);
	return DROP_IP6_EXT_TRUNCATED;
}

enum drop_reason ip6_chain_walk(const uint8_t *ip, uint32_t len, struct ip6_info *info)
{
	uint8_t nh = ip[6];
	uint32_t off = IP6_HLEN, nh_at = 6; /* where the Next Header naming `nh` sits */

	info->len = len;
	info->flags = 0;
	info->n_ext = 0;
	info->err = (struct ip6_err){0};
	while (ext_len(nh, 0) != 0) {
		uint32_t hlen;

		if (nh == IP6_NH_HOPOPTS && off != IP6_HLEN)
			return param_problem(info, DROP_IP6_EXT_ORDER, ICMP6_PP_NEXT_HEADER, nh_at);
		if (info->n_ext == IP6_EXT_MAX)
			return param_problem(info, DROP_IP6_EXT_LIMIT, ICMP6_PP_TOO_MANY_EXT, off);
		if (off + 2 > len)
			return chain_truncated(info);
		hlen = ext_len(nh, ip[off + 1]);
		if (off + hlen > len)
			return chain_truncated(info);
		if (off + hlen - IP6_HLEN > IP6_EXT_SPAN)
			return param_problem(info, DROP_IP6_EXT_LIMIT, ICMP6_PP_CHAIN_TOO_LONG,
			                     off);
		info->n_ext++;
		if (nh == IP6_NH_HOPOPTS) {
			enum drop_reason r;

			info->flags |= IP6_F_HOPOPTS;
			r = hbh_options(ip, off, hlen, info);
			if (r != IP6_OK)
				return r;
		} else if (nh == IP6_NH_ROUTING) {
			info->flags |= IP6_F_ROUTING;
		} else if (nh == IP6_NH_FRAGMENT) {
			info->flags |= IP6_F_FRAGMENT;
			/* RFC 8200 §4.5: past the header of a later fragment is only fragment data.
			 */
			if (rd16(ip + off + 2) & 0xfff8) {
				info->flags |= IP6_F_LATER_FRAG;
				info->l4_proto = ip[off];
				info->l4_off = (uint16_t)(off + hlen);
				return IP6_OK;
			}
		}
		nh_at = off;
		nh = ip[off];
		off += hlen;
	}
	info->l4_proto = nh;
	info->l4_off = (uint16_t)off;
	if ((info->flags & IP6_F_FRAGMENT) && nh != IP6_NH_NONE && off >= len)
		return chain_truncated(info);
	return IP6_OK;
}

enum drop_reason ip6_validate(const uint8_t *ip, uint32_t avail, struct ip6_info *info)
{
	const uint8_t *src = ip + 8, *dst = ip + 24;

	*info = (struct ip6_info){0};
	if (avail < IP6_HLEN)
		return DROP_IP6_TRUNCATED;
	if ((ip[0] >> 4) != 6)
		return DROP_IP6_VERSION;
	info->len = IP6_HLEN + rd16(ip + 4);
	if (info->len > avail)
		return DROP_IP6_PAYLOAD_LENGTH;
	/*
	 * The common case, decided at once: global unicast both ways passes every
	 * address rule below, and an upper layer straight after the header (the
	 * Next Header values of nearly all traffic) leaves no chain to walk.
	 */
	if (ip6_addr_is_global_unicast(src) && ip6_addr_is_global_unicast(dst)) {
		uint8_t nh = ip[6];

		if (nh == IP6_NH_UDP || nh == IP6_NH_TCP || nh == IP6_NH_ICMPV6) {
			info->l4_proto = nh;
			info->l4_off = IP6_HLEN;
			return IP6_OK;
		}
		return ip6_chain_walk(ip, info->len, info);
	}
	if (ip6_src_is_martian(src))
		return DROP_IP6_BAD_SOURCE;
	if (ip6_addr_is_multicast(dst))
		return ip6_mcast_scope(dst) <= 1 ? DROP_IP6_MCAST_SCOPE : IP6_LOCAL;
	if (ip6_addr_is_unspecified(dst) || ip6_addr_is_loopback(dst) || ip6_addr_is_v4mapped(dst))
		return DROP_IP6_BAD_DEST;
	if (ip6_addr_is_linklocal(dst))
		return IP6_LOCAL;
	/* After the local cases: DAD probes come from :: (RFC 4862 §5.4.2), to multicast. */
	if (ip6_addr_is_unspecified(src))
		return DROP_IP6_BAD_SOURCE;
	return ip6_chain_walk(ip, info->len, info);
}

enum drop_reason ip6_egress_check(const uint8_t *ip, uint32_t len, uint32_t mtu, bool same_link,
                                  struct ip6_err *err)
{
	*err = (struct ip6_err){0};
	if (ip6_egress_passes(ip, len, mtu, same_link))
		return IP6_OK;
	if (ip[7] <= 1) {
		*err = (struct ip6_err){ICMP6_TIME_EXCEEDED, ICMP6_CODE_HOP_LIMIT, 0};
		return DROP_IP6_HOP_LIMIT;
	}
	if (!same_link && ip6_addr_is_linklocal(ip + 8)) {
		*err = (struct ip6_err){ICMP6_DST_UNREACH, ICMP6_CODE_BEYOND_SCOPE, 0};
		return DROP_IP6_SRC_SCOPE;
	}
	if (!same_link && ip6_addr_is_linklocal(ip + 24)) {
		*err = (struct ip6_err){ICMP6_DST_UNREACH, ICMP6_CODE_ADDR_UNREACH, 0};
		return DROP_IP6_DST_SCOPE;
	}
	if (len > mtu) {
		/* RFC 8200 §5: no link is below 1280; RFC 8021: hosts ignore smaller values. */
		*err = (struct ip6_err){ICMP6_PACKET_TOO_BIG, 0,
		                        mtu < IP6_MIN_MTU ? IP6_MIN_MTU : mtu};
		return DROP_IP6_TOO_BIG;
	}
	return IP6_OK;
}

uint32_t ip6_flow_hash(const uint8_t *ip, const struct ip6_info *info)
{
	uint64_t flow = rd32(ip) & 0xfffff, l4 = 0;

	/* A fragment hashes on addresses and flow label only, like its siblings. */
	if (!(info->flags & IP6_F_FRAGMENT)) {
		uint8_t proto = info->l4_proto;

		l4 = (uint64_t)proto << 32;
		if ((proto == IP6_NH_TCP || proto == IP6_NH_UDP || proto == IP6_NH_SCTP) &&
		    (uint32_t)info->l4_off + 4 <= info->len)
			l4 |= rd32(ip + info->l4_off);
	}
	/* Independent products, so the multiplies overlap; odd constants of the ip4 hash family. */
	uint64_t h = rd64(ip + 8) * 0x9e3779b97f4a7c15ull;
	h ^= rd64(ip + 16) * 0xc2b2ae3d27d4eb4full;
	h ^= rd64(ip + 24) * 0x165667b19e3779f9ull;
	h ^= rd64(ip + 32) * 0xd6e8feb86659fd93ull;
	h ^= (flow << 40 | l4) * 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h >> 32);
}
