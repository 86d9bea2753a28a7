/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afxdp driver's XDP program, attached to each afxdp port's netdev.
 *
 * Transit IPv4 for the router's MAC goes to the AF_XDP socket of the RX
 * queue it arrived on (XSKMAP keyed by rx_queue_index); the kernel never
 * builds an skb for it. Everything that is the host's business is passed
 * to the kernel, which keeps answering ARP and ping and running FRR: ARP,
 * Ethernet broadcast/multicast, anything neither IPv4 nor IPv6, IPv4 to multicast,
 * 0/8 and 127/8 (what the worker itself would leave to the kernel), and
 * IPv4 to the router's own addresses (cg_local, kept current by the
 * daemon). Malformed IPv4 (short, wrong version or IHL) still goes to the
 * worker, which drops it under its named reason.
 *
 * Transit IPv6 likewise, on ports that forward it (cg_conf.ipv6, set by the
 * daemon once cg_local6 holds the router's IPv6 addresses): unicast to the
 * port's MAC, destination neither multicast (ff00::/8) nor one of the
 * router's addresses, neither address link-local (fe80::/10: never
 * forwarded off-link, RFC 4291 2.5.6, RFC 4007 9). Everything else is the
 * host's: neighbour discovery (solicitations go to Ethernet multicast,
 * unicast ones to a link-local or own address, RFC 4861 7.2), MLD, router
 * advertisements, and a frame too short to hold an IPv6 header, which the
 * program cannot judge.
 *
 * Single buffer: the program is not frags-aware (no "xdp.frags" section),
 * so the kernel refuses to attach it where a frame could span pages (MTU
 * above what fits one page), and a veth turns GSO off on its peer.
 *
 * Every decision is counted per CPU (cg_stats) so the daemon can fold the
 * passed frames into the port's counters (xdp_abi.h).
 */
/* libbpf's helper headers use the kernel's types, so they come after them. */
/* clang-format off */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
/* clang-format on */

#include "datapath/xdp/xdp_abi.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, CG_XDP_QUEUES_MAX);
	__type(key, __u32);
	__type(value, __u32);
} cg_xsks SEC(".maps");

/* Key: IPv4 address in network byte order. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CG_XDP_LOCAL_MAX);
	__type(key, __u32);
	__type(value, __u8);
} cg_local SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CG_XDP_LOCAL6_MAX);
	__type(key, struct cg_xdp_in6);
	__type(value, __u8);
} cg_local6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cg_xdp_conf);
} cg_conf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CG_XDP__MAX);
	__type(key, __u32);
	__type(value, struct cg_xdp_ctr);
} cg_stats SEC(".maps");

static __always_inline int cg_count(struct xdp_md *ctx, __u32 decision, int action)
{
	struct cg_xdp_ctr *c = bpf_map_lookup_elem(&cg_stats, &decision);

	/*
	 * The length from the helper: subtracting packet pointers needs
	 * CAP_PERFMON at load, which the daemon does not keep.
	 */
	if (c) {
		c->packets++;
		c->bytes += bpf_xdp_get_buff_len(ctx);
	}
	return action;
}

/* What classify() in datapath/worker.c leaves to the kernel: ip4_dst_is_local_only(). */
static __always_inline int cg_dst_local_only(__u32 dst_be)
{
	__u8 top = bpf_ntohl(dst_be) >> 24;

	return top >= 224 || top == 0 || top == 127;
}

static __always_inline int cg_mac_eq(const __u8 *a, const __u8 *b)
{
	return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) | (a[4] ^ b[4]) |
	        (a[5] ^ b[5])) == 0;
}

/* fe80::/10 (RFC 4291 2.5.6). */
static __always_inline int cg_ip6_linklocal(const struct in6_addr *a)
{
	return a->s6_addr[0] == 0xfe && (a->s6_addr[1] & 0xc0) == 0x80;
}

/* The frame to the XSK of its RX queue, counted as `ok` or `none` (no socket there). */
static __always_inline int cg_redirect(struct xdp_md *ctx, __u32 ok, __u32 none)
{
	/* The low bits of flags are the action when the queue has no socket. */
	long act = bpf_redirect_map(&cg_xsks, ctx->rx_queue_index, XDP_PASS);

	if (act != XDP_REDIRECT)
		return cg_count(ctx, none, (int)act);
	return cg_count(ctx, ok, XDP_REDIRECT);
}

/* An IPv6 frame unicast to the port's MAC. */
static __always_inline int cg_xdp6(struct xdp_md *ctx, const struct cg_xdp_conf *conf)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct ipv6hdr *ip6 = (void *)(long)ctx->data + sizeof(struct ethhdr);
	struct cg_xdp_in6 key;

	if (!conf->ipv6)
		return cg_count(ctx, CG_XDP_PASS6_OFF, XDP_PASS);
	if ((void *)(ip6 + 1) > data_end)
		return cg_count(ctx, CG_XDP_PASS6_UNDECIDED, XDP_PASS);
	if (ip6->daddr.s6_addr[0] == 0xff)
		return cg_count(ctx, CG_XDP_PASS6_MULTICAST, XDP_PASS);
	if (cg_ip6_linklocal(&ip6->daddr) || cg_ip6_linklocal(&ip6->saddr))
		return cg_count(ctx, CG_XDP_PASS6_LINK_LOCAL, XDP_PASS);
	__builtin_memcpy(key.a, ip6->daddr.s6_addr, sizeof(key.a));
	if (bpf_map_lookup_elem(&cg_local6, &key))
		return cg_count(ctx, CG_XDP_PASS6_OWN_ADDR, XDP_PASS);
	/* Bad version, martian addresses: the worker drops them under their reasons. */
	return cg_redirect(ctx, CG_XDP_REDIRECT6, CG_XDP_PASS6_NO_XSK);
}

SEC("xdp")
int cg_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	struct cg_xdp_conf *conf;
	__u32 zero = 0;

	if ((void *)(eth + 1) > data_end)
		return cg_count(ctx, CG_XDP_RUNT, XDP_PASS);
	conf = bpf_map_lookup_elem(&cg_conf, &zero);
	if (!conf || !conf->ready)
		return cg_count(ctx, CG_XDP_PASS_NOT_READY, XDP_PASS);
	if (eth->h_dest[0] & 1)
		return cg_count(ctx,
		                eth->h_proto == bpf_htons(ETH_P_IPV6) ? CG_XDP_PASS6_GROUP
		                                                      : CG_XDP_PASS_GROUP,
		                XDP_PASS);
	if (!cg_mac_eq(eth->h_dest, conf->mac))
		return cg_count(ctx, CG_XDP_OTHER_HOST, XDP_PASS);
	if (eth->h_proto == bpf_htons(ETH_P_ARP))
		return cg_count(ctx, CG_XDP_PASS_ARP, XDP_PASS);
	if (eth->h_proto == bpf_htons(ETH_P_IPV6))
		return cg_xdp6(ctx, conf);
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return cg_count(ctx, CG_XDP_PASS_NOT_IP, XDP_PASS);
	/* Short or not version 4: the worker drops it under its reason. */
	if ((void *)(ip + 1) <= data_end && ip->version == 4) {
		if (cg_dst_local_only(ip->daddr))
			return cg_count(ctx, CG_XDP_PASS_LOCAL_ONLY, XDP_PASS);
		if (bpf_map_lookup_elem(&cg_local, &ip->daddr))
			return cg_count(ctx, CG_XDP_PASS_OWN_ADDR, XDP_PASS);
	}
	return cg_redirect(ctx, CG_XDP_REDIRECT, CG_XDP_PASS_NO_XSK);
}

/*
 * Run by the driver through BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES on
 * a frame the worker leaves to the kernel: XDP_PASS there injects it into
 * the stack as if it had arrived on the port's netdev.
 */
SEC("xdp")
int cg_xdp_punt(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "BSD-2-Clause"; /* no GPL-only helper is used */
