/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Neighbour discovery on afxdp ports. On afpacket ports the workers see
 * every NS and NA on its way to the kernel and report the link-layer
 * addresses to the IPv6 neighbour table (DP_EV_ND_SEEN). The afxdp XDP
 * program passes ND to the kernel instead (it goes to multicast, a
 * link-local or one of the router's addresses), so the worker never sees
 * the advertisement answering its own solicitation: a packet socket bound to
 * ETH_P_IPV6 on the port takes the workers' place, as daemon/xdp_arp.c does
 * for ARP. A classic BPF filter in the kernel keeps everything but NS/NA
 * (hop limit 255, ICMPv6 straight after the header, RFC 4861 7.1) off the
 * socket; nd_parse checks the rest, checksum included.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/xdp_nd.h"
#include "datapath/icmp6.h"
#include "datapath/ip6.h"
#include "datapath/nd.h"
#include "datapath/port_afxdp.h"
#include "lib/clock.h"
#include "lib/log.h"

#define XDP_ND_PER_CALLBACK 64  /* frames read per wakeup, so a flood cannot hold the loop */
#define XDP_ND_FRAME_MAX    256 /* NS/NA with a few options; longer ones are truncated */

struct xdp_nd_port {
	struct xdp_nd *xn;
	uint16_t port;
	int fd;
	struct event *ev;
};

struct xdp_nd {
	struct neigh6_table *nt;
	const struct dataplane *nt_dp; /* the ports, whether each forwards IPv6 now */
	unsigned n;
	struct xdp_nd_port p[PORT_MAX];
};

/* Offsets from the Ethernet header: next header, hop limit, ICMPv6 type. */
static struct sock_filter xdp_nd_code[] = {
    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 6),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IP6_NH_ICMPV6, 0, 6),
    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 7),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ND_HOP_LIMIT, 0, 4),
    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + IP6_HLEN),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ICMP6_NEIGH_SOL, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ICMP6_NEIGH_ADV, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, XDP_ND_FRAME_MAX),
    BPF_STMT(BPF_RET | BPF_K, 0),
};

static void xdp_nd_readable(evutil_socket_t fd, short what, void *arg)
{
	struct xdp_nd_port *np = arg;
	uint8_t frame[XDP_ND_FRAME_MAX];
	struct nd_msg m;
	ssize_t len;

	for (unsigned i = 0; i < XDP_ND_PER_CALLBACK; i++) {
		len = recv(fd, frame, sizeof(frame), MSG_DONTWAIT | MSG_TRUNC);
		if (len < 0)
			return;
		if (len > (ssize_t)sizeof(frame))
			continue; /* truncated: its checksum cannot be verified */
		/* A port without IPv6 has no neighbours to learn (the kernel's only). */
		if (!port_ip6_on(&np->xn->nt_dp->ports[np->port]))
			continue;
		/* As worker_nd_snoop: an NA may omit its target link-layer option
		 * (Linux does, answering a unicast NS); a solicitation without a
		 * source link-layer option has nothing to learn (RFC 4861 7.2.3). */
		if (len < 14 || nd_parse(frame + 14, (uint32_t)len - 14, &m) != ND_OK ||
		    (m.type == ICMP6_NEIGH_SOL && !m.has_lla))
			continue;
		neigh6_seen(np->xn->nt, np->port, m.type == ICMP6_NEIGH_ADV ? m.target : m.src,
		            m.has_lla ? m.lla : NULL, m.type, m.flags, mono_ms());
	}
}

static int xdp_nd_open(struct xdp_nd_port *np, const struct port *pt)
{
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET,
	    .sll_protocol = htons(ETH_P_IPV6),
	    .sll_ifindex = pt->ifindex,
	};
	struct sock_fprog prog = {.len = sizeof(xdp_nd_code) / sizeof(xdp_nd_code[0]),
	                          .filter = xdp_nd_code};
	int one = 1;

	/* Protocol 0 until the filter is on, so no other IPv6 queues up before it. */
	np->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (np->fd < 0 ||
	    setsockopt(np->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
	    setsockopt(np->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0 ||
	    bind(np->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		log_warn("port %s (netdev %s): neighbour discovery socket for the IPv6 neighbour "
		         "table",
		         pt->name, pt->netdev);
		return -errno;
	}
	return 0;
}

int xdp_nd_start(struct event_base *base, struct dataplane *dp, struct neigh6_table *nt,
                 struct xdp_nd **out)
{
	struct xdp_nd *xn = NULL;
	int err = 0;

	*out = NULL;
	for (unsigned p = 0; !err && p < dp->nports; p++) {
		struct xdp_nd_port *np;

		/* With IPv6 or not: a port may get its first address at runtime (addrs6.c). */
		if (dp->ports[p].ops != &port_afxdp_ops)
			continue;
		if (!xn && !(xn = calloc(1, sizeof(*xn))))
			return -ENOMEM;
		xn->nt = nt;
		xn->nt_dp = dp;
		np = &xn->p[xn->n++];
		*np = (struct xdp_nd_port){.xn = xn, .port = (uint16_t)p, .fd = -1};
		err = xdp_nd_open(np, &dp->ports[p]);
		if (!err && (!(np->ev = event_new(base, np->fd, EV_READ | EV_PERSIST,
		                                  xdp_nd_readable, np)) ||
		             event_add(np->ev, NULL) != 0))
			err = -ENOMEM;
	}
	if (err) {
		xdp_nd_stop(xn);
		return err;
	}
	*out = xn;
	return 0;
}

void xdp_nd_stop(struct xdp_nd *xn)
{
	if (!xn)
		return;
	for (unsigned i = 0; i < xn->n; i++) {
		if (xn->p[i].ev)
			event_free(xn->p[i].ev);
		if (xn->p[i].fd >= 0)
			close(xn->p[i].fd);
	}
	free(xn);
}
