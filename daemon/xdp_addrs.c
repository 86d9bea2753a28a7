/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Keeps the XDP programs of the afxdp ports told which IPv4 addresses are
 * the router's own, so frames to them go to the kernel and never through a
 * worker: every local and broadcast address of the namespace (the kernel
 * accepts its addresses on any interface, RFC 1122 3.3.4.2 weak host, and
 * takes directed broadcasts, RFC 2644), whoever added them: cellgated from
 * its configuration, an operator, keepalived, FRR. And the same for IPv6
 * (the weak host model holds there too, RFC 8200 leaves it to the host):
 * every non-link-local address, tentative ones included; link-local
 * destinations the program passes by themselves.
 *
 * A netlink socket in RTNLGRP_IPV4_IFADDR and RTNLGRP_IPV6_IFADDR wakes the
 * control loop on any address change, and every afxdp port's map is then set again from one
 * fresh dump (simple, and right after a missed notification too). Opened
 * before the privilege drop; dumps and map updates need no capability.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/xdp_addrs.h"
#include "datapath/port_afxdp.h"
#include "lib/log.h"

#define XDP_ADDRS_MAX CG_XDP_LOCAL_MAX

struct xdp_addrs {
	struct dataplane *dp;
	struct mnl_socket *mon; /* RTNLGRP_IPV{4,6}_IFADDR notifications */
	struct event *ev;
	uint32_t addr[XDP_ADDRS_MAX]; /* host order */
	unsigned n;
	bool overflow;
	uint8_t addr6[CG_XDP_LOCAL6_MAX][16]; /* as on the wire */
	unsigned n6;
	bool overflow6;
	/* Netlink messages are read in place: aligned as struct nlmsghdr needs. A dump part is at
	 * most what we read with (netlink_dump). */
	char buf[32768] __attribute__((aligned(8)));
};

static void xdp_addrs_add(struct xdp_addrs *xa, uint32_t a_be)
{
	uint32_t a = ntohl(a_be);

	if (a == 0)
		return;
	for (unsigned i = 0; i < xa->n; i++)
		if (xa->addr[i] == a)
			return;
	if (xa->n == XDP_ADDRS_MAX) {
		xa->overflow = true;
		return;
	}
	xa->addr[xa->n++] = a;
}

static void xdp_addrs_add6(struct xdp_addrs *xa, const uint8_t *a)
{
	static const uint8_t zero[16];

	/* Link-local: the program passes them whoever owns them; :: is nobody's. */
	if ((a[0] == 0xfe && (a[1] & 0xc0) == 0x80) || memcmp(a, zero, 16) == 0)
		return;
	for (unsigned i = 0; i < xa->n6; i++)
		if (memcmp(xa->addr6[i], a, 16) == 0)
			return;
	if (xa->n6 == CG_XDP_LOCAL6_MAX) {
		xa->overflow6 = true;
		return;
	}
	memcpy(xa->addr6[xa->n6++], a, 16);
}

static int xdp_addrs_attr_cb(const struct nlattr *attr, void *arg)
{
	int type = mnl_attr_get_type(attr);

	if (type != IFA_LOCAL && type != IFA_ADDRESS && type != IFA_BROADCAST)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
		xdp_addrs_add(arg, mnl_attr_get_u32(attr));
	return MNL_CB_OK;
}

static int xdp_addrs_attr6_cb(const struct nlattr *attr, void *arg)
{
	int type = mnl_attr_get_type(attr);

	if ((type == IFA_LOCAL || type == IFA_ADDRESS) && mnl_attr_get_payload_len(attr) == 16)
		xdp_addrs_add6(arg, mnl_attr_get_payload(attr));
	return MNL_CB_OK;
}

/*
 * IFA_ADDRESS is the peer on a point-to-point link, not ours; there the
 * local address is IFA_LOCAL. Taking both errs towards passing a frame to
 * the kernel, which routes it back out itself if it is not for it (with
 * forwarding off: drops it). Only on peer links, which afxdp ports are not.
 */
static int xdp_addrs_dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);

	mnl_attr_cb_t cb;

	if (nlh->nlmsg_type != RTM_NEWADDR || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)))
		return MNL_CB_OK;
	if (ifa->ifa_family == AF_INET)
		cb = xdp_addrs_attr_cb;
	else if (ifa->ifa_family == AF_INET6)
		cb = xdp_addrs_attr6_cb;
	else
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(*ifa), cb, arg) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

/* Every IPv4 and IPv6 address of the namespace (one AF_UNSPEC dump), into xa. 0 or -errno. */
static int xdp_addrs_dump(struct xdp_addrs *xa)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	char req[64];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct ifaddrmsg *ifa;
	unsigned portid;
	int ret = -1;
	ssize_t len;

	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto out;
	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = 1;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_UNSPEC;
	portid = mnl_socket_get_portid(nl);
	xa->n = xa->n6 = 0;
	xa->overflow = xa->overflow6 = false;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		goto out;
	do {
		len = mnl_socket_recvfrom(nl, xa->buf, sizeof(xa->buf));
		ret = len < 0 ? -1 : mnl_cb_run(xa->buf, len, 1, portid, xdp_addrs_dump_cb, xa);
	} while (ret > 0);
out:
	ret = ret < 0 ? -errno : 0;
	if (nl)
		mnl_socket_close(nl);
	return ret;
}

static void xdp_addrs_sync(struct xdp_addrs *xa)
{
	int err = xdp_addrs_dump(xa);

	if (err) {
		log_warnx("afxdp: listing the router's addresses: %s (XDP maps unchanged)",
		          strerror(-err));
		return;
	}
	if (xa->overflow)
		log_warnx("afxdp: more than %u IPv4 addresses: frames to the others reach the "
		          "kernel through the workers (punted)",
		          XDP_ADDRS_MAX);
	if (xa->overflow6)
		log_warnx("afxdp: more than %u IPv6 addresses: frames to the others reach the "
		          "kernel through the workers (punted)",
		          CG_XDP_LOCAL6_MAX);
	for (unsigned p = 0; p < xa->dp->nports; p++) {
		struct port *pt = &xa->dp->ports[p];

		if (pt->ops != &port_afxdp_ops)
			continue;
		afxdp_local_set(pt, xa->addr, xa->n);
		afxdp_local6_set(pt, (const uint8_t(*)[16])xa->addr6, xa->n6);
	}
	log_debug("afxdp: %u own IPv4 and %u IPv6 address(es) in the XDP maps", xa->n, xa->n6);
}

static void xdp_addrs_readable(evutil_socket_t fd, short what, void *arg)
{
	struct xdp_addrs *xa = arg;
	bool changed = false;

	/* Drain: what changed does not matter, the dump says what is. ENOBUFS: we missed some. */
	while (recv(fd, xa->buf, sizeof(xa->buf), MSG_DONTWAIT) > 0 || errno == ENOBUFS)
		changed = true;
	if (changed)
		xdp_addrs_sync(xa);
}

static bool xdp_addrs_needed(const struct dataplane *dp)
{
	for (unsigned p = 0; p < dp->nports; p++)
		if (dp->ports[p].ops == &port_afxdp_ops)
			return true;
	return false;
}

struct xdp_addrs *xdp_addrs_start(struct event_base *base, struct dataplane *dp)
{
	struct xdp_addrs *xa;

	if (!xdp_addrs_needed(dp))
		return NULL;
	xa = calloc(1, sizeof(*xa));
	if (!xa) {
		log_warnx("afxdp: address monitor: out of memory");
		return NULL;
	}
	xa->dp = dp;
	xa->mon = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!xa->mon ||
	    mnl_socket_bind(xa->mon, RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR, MNL_SOCKET_AUTOPID) <
	        0 ||
	    !(xa->ev = event_new(base, mnl_socket_get_fd(xa->mon), EV_READ | EV_PERSIST,
	                         xdp_addrs_readable, xa)) ||
	    event_add(xa->ev, NULL) != 0)
		log_warn("afxdp: address monitor (the XDP maps get the addresses of now only)");
	xdp_addrs_sync(xa);
	return xa;
}

void xdp_addrs_stop(struct xdp_addrs *xa)
{
	if (!xa)
		return;
	if (xa->ev)
		event_free(xa->ev);
	if (xa->mon)
		mnl_socket_close(xa->mon);
	free(xa);
}
