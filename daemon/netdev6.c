/* SPDX-License-Identifier: BSD-2-Clause */
/* IPv6 addresses of a port's netdev (port/ipv6 in the configuration). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <sys/socket.h>

#include "config/config.h"
#include "daemon/netdev.h"
#include "daemon/netdev_priv.h"
#include "lib/addr.h"

/*
 * RTM_NEWADDR for one IPv6 address. IFA_F_NODAD: the address is configured
 * for this router, so it is usable at once instead of tentative for a
 * second of duplicate address detection (RFC 4862 §5.4), during which the
 * kernel would neither answer neighbour solicitations for it nor send from
 * it. The kernel keeps its prefix route: its own answers (echo replies,
 * routing protocols) need it, as with IPv4 addresses.
 */
static int netdev_addr6_msg(uint16_t type, int ifindex, const uint8_t addr[16], uint8_t plen)
{
	char req[256], label[IF_NAMESIZE + 16], what[INET6_ADDRSTRLEN + 24], ip[INET6_ADDRSTRLEN];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct netdev_nl ctx = {.ext_msg = ""};
	struct ifaddrmsg *ifa;
	int err;

	snprintf(what, sizeof(what), "%s address %s/%u", type == RTM_NEWADDR ? "add" : "delete",
	         inet_str(AF_INET6, addr, ip, sizeof(ip)), plen);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	if (type == RTM_NEWADDR)
		nlh->nlmsg_flags |= NLM_F_CREATE | NLM_F_REPLACE;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = plen;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, 16, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, 16, addr);
	if (type == RTM_NEWADDR)
		mnl_attr_put_u32(nlh, IFA_FLAGS, IFA_F_NODAD);
	err = netdev_nl_talk(nlh, false, netdev_ack_cb, &ctx);
	/* Present already (add), or gone already (delete: an operator was first). */
	if (err == -EEXIST || err == -EADDRNOTAVAIL)
		return 0;
	if (err)
		return netdev_fail(netdev_label(ifindex, label), what, -err, ctx.ext_msg);
	return 0;
}

int netdev_addr6_add(int ifindex, const uint8_t addr[16], uint8_t plen)
{
	return netdev_addr6_msg(RTM_NEWADDR, ifindex, addr, plen);
}

int netdev_addr6_del(int ifindex, const uint8_t addr[16], uint8_t plen)
{
	return netdev_addr6_msg(RTM_DELADDR, ifindex, addr, plen);
}

int netdev_addr6_set(int ifindex, const struct cfg_addr6 *addrs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int err = netdev_addr6_add(ifindex, addrs[i].addr, addrs[i].plen);

		if (err)
			return err;
	}
	return 0;
}
