/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ARP on afxdp ports. On afpacket ports the workers see every frame, ARP
 * included, and report senders to the neighbour table (DP_EV_ARP_SEEN).
 * The afxdp XDP program passes ARP to the kernel instead, which keeps
 * answering for the router's addresses, so the worker never sees it: a
 * packet socket bound to ETH_P_ARP on the port, read by the control loop,
 * takes the workers' place. It sees the frames after XDP_PASS, as an skb,
 * which ARP is cheap enough for (RFC 826 traffic is a few frames a second
 * per neighbour, and bounded per callback here).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/xdp_arp.h"
#include "datapath/arp.h"
#include "datapath/port_afxdp.h"
#include "lib/clock.h"
#include "lib/log.h"

#define XDP_ARP_PER_CALLBACK 64 /* frames read per wakeup, so a flood cannot hold the loop */

struct xdp_arp_port {
	struct xdp_arp *xa;
	uint16_t port;
	int fd;
	struct event *ev;
};

struct xdp_arp {
	struct neigh_table *nt;
	unsigned n;
	struct xdp_arp_port p[PORT_MAX];
};

static void xdp_arp_readable(evutil_socket_t fd, short what, void *arg)
{
	struct xdp_arp_port *ap = arg;
	uint8_t frame[128];
	struct arp_info a;
	ssize_t len;

	for (unsigned i = 0; i < XDP_ARP_PER_CALLBACK; i++) {
		len = recv(fd, frame, sizeof(frame), MSG_DONTWAIT | MSG_TRUNC);
		if (len < 0)
			return;
		if (len > (ssize_t)sizeof(frame))
			len = sizeof(frame);
		if (arp_parse(frame, (uint32_t)len, &a) && a.spa != 0)
			neigh_seen(ap->xa->nt, ap->port, a.spa, a.sha, mono_ms());
	}
}

static int xdp_arp_open(struct xdp_arp_port *ap, const struct port *pt)
{
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET,
	    .sll_protocol = htons(ETH_P_ARP),
	    .sll_ifindex = pt->ifindex,
	};
	int one = 1;

	ap->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ARP));
	if (ap->fd < 0 || bind(ap->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
	    setsockopt(ap->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0) {
		log_warn("port %s (netdev %s): ARP socket for the neighbour table", pt->name,
		         pt->netdev);
		return -errno;
	}
	return 0;
}

int xdp_arp_start(struct event_base *base, struct dataplane *dp, struct neigh_table *nt,
                  struct xdp_arp **out)
{
	struct xdp_arp *xa = NULL;
	int err = 0;

	*out = NULL;
	for (unsigned p = 0; !err && p < dp->nports; p++) {
		struct xdp_arp_port *ap;

		if (dp->ports[p].ops != &port_afxdp_ops)
			continue;
		if (!xa && !(xa = calloc(1, sizeof(*xa))))
			return -ENOMEM;
		xa->nt = nt;
		ap = &xa->p[xa->n++];
		*ap = (struct xdp_arp_port){.xa = xa, .port = (uint16_t)p, .fd = -1};
		err = xdp_arp_open(ap, &dp->ports[p]);
		if (!err && (!(ap->ev = event_new(base, ap->fd, EV_READ | EV_PERSIST,
		                                  xdp_arp_readable, ap)) ||
		             event_add(ap->ev, NULL) != 0))
			err = -ENOMEM;
	}
	if (err) {
		xdp_arp_stop(xa);
		return err;
	}
	*out = xa;
	return 0;
}

void xdp_arp_stop(struct xdp_arp *xa)
{
	if (!xa)
		return;
	for (unsigned i = 0; i < xa->n; i++) {
		if (xa->p[i].ev)
			event_free(xa->p[i].ev);
		if (xa->p[i].fd >= 0)
			close(xa->p[i].fd);
	}
	free(xa);
}
