/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel netdev helpers (control thread only). One short-lived rtnetlink
 * socket per request: these run at startup and on configuration changes, and
 * a private socket per call means no stray replies or shared sequence state.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/log.h"
#include "daemon/netdev.h"
#include "daemon/netdev_priv.h"
#include "config/config.h"

/* Large enough for any single rtnetlink reply and for the kernel's dump chunks. */
#define NETDEV_NL_BUF     (32u << 10)
#define NETDEV_ADDR_BATCH 64u

struct netdev_link {
	int ifindex;
	unsigned flags;
	unsigned short type;
	uint32_t mtu;
	uint8_t mac[6];
	int maclen;
};

struct netdev_addr {
	uint8_t plen;
	bool has_local;
	uint32_t local;   /* network order */
	uint32_t address; /* network order; the peer on point-to-point links */
};

struct netdev_addr_list {
	int ifindex;
	const uint32_t *keep;
	const uint8_t *plens;
	unsigned nkeep;
	unsigned n;
	bool overflow;
	struct netdev_addr a[NETDEV_ADDR_BATCH];
};

const char *netdev_label(int ifindex, char buf[IF_NAMESIZE + 16])
{
	if (!if_indextoname(ifindex, buf))
		snprintf(buf, IF_NAMESIZE + 16, "ifindex %d", ifindex);
	return buf;
}

/* ext: the kernel's extended-ACK text, or NULL/"" when it gave none. */
int netdev_fail(const char *dev, const char *action, int err, const char *ext)
{
	bool has_ext = ext && ext[0];
	/* Changing links, addresses and offloads is CAP_NET_ADMIN's business. */
	const char *hint = err == EPERM || err == EACCES ? " (need CAP_NET_ADMIN)" : "";

	log_warnx("netdev %s: %s: %s%s%s%s%s", dev, action, strerror(err),
	          has_ext ? " (kernel: " : "", has_ext ? ext : "", has_ext ? ")" : "", hint);
	return -err;
}

/* A failure found on our side, with its reason. */
static int netdev_failx(const char *dev, const char *action, int err, const char *why)
{
	log_warnx("netdev %s: %s: %s (%s)", dev, action, why, strerror(err));
	return -err;
}

static int netdev_ext_attr_cb(const struct nlattr *attr, void *arg)
{
	struct netdev_nl *ctx = arg;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		snprintf(ctx->ext_msg, sizeof(ctx->ext_msg), "%s", mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

/* Like libmnl's own error handling, but keeps the extended-ACK message. */
static int netdev_nl_error_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (e->error == 0)
		return MNL_CB_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && mnl_nlmsg_size(off) <= nlh->nlmsg_len)
		mnl_attr_parse(nlh, off, netdev_ext_attr_cb, arg);
	errno = -e->error;
	return MNL_CB_ERROR;
}

static int netdev_nl_done_cb(const struct nlmsghdr *nlh, void *arg)
{
	return MNL_CB_STOP;
}

static int netdev_nl_overrun_cb(const struct nlmsghdr *nlh, void *arg)
{
	errno = ENOSPC;
	return MNL_CB_ERROR;
}

static int netdev_nl_run(struct mnl_socket *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
                         struct netdev_nl *ctx, char *buf)
{
	/* libmnl wants a non-const table; with it we see every control message. */
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
	    [NLMSG_ERROR] = netdev_nl_error_cb,
	    [NLMSG_DONE] = netdev_nl_done_cb,
	    [NLMSG_OVERRUN] = netdev_nl_overrun_cb,
	};
	unsigned portid = mnl_socket_get_portid(nl);
	unsigned seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		len = mnl_socket_recvfrom(nl, buf, NETDEV_NL_BUF);
		if (len < 0)
			return -errno;
		ret = mnl_cb_run2(buf, len, seq, portid, cb, ctx, ctl, NLMSG_MIN_TYPE);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

/*
 * Send one request and read until its ACK or, for dumps, NLMSG_DONE. Returns 0
 * or a negative errno (the kernel's, for a NACK, with ctx->ext_msg filled).
 */
int netdev_nl_talk(struct nlmsghdr *nlh, bool dump, mnl_cb_t cb, struct netdev_nl *ctx)
{
	/* The kernel answers at once; a stuck control thread would be worse than an error. */
	struct timeval tmo = {.tv_sec = 5};
	static unsigned seq;
	struct mnl_socket *nl;
	char *buf;
	int one = 1, err;

	ctx->ext_msg[0] = '\0';
	buf = malloc(NETDEV_NL_BUF);
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!buf || !nl) {
		err = buf ? -errno : -ENOMEM;
		goto out;
	}
	/* Best effort: older kernels just give no text / full echoes. */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo)) < 0 ||
	    mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto out;
	}
	nlh->nlmsg_seq = ++seq;
	/* NLM_F_DUMP shares bits with NLM_F_REPLACE/EXCL, so the caller says which. */
	if (dump)
		nlh->nlmsg_flags |= NLM_F_DUMP;
	else
		nlh->nlmsg_flags |= NLM_F_ACK;
	err = netdev_nl_run(nl, nlh, cb, ctx, buf);
out:
	if (nl)
		mnl_socket_close(nl);
	free(buf);
	return err;
}

static int netdev_link_attr_cb(const struct nlattr *attr, void *arg)
{
	struct netdev_link *l = arg;

	switch (mnl_attr_get_type(attr)) {
	case IFLA_MTU:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		l->mtu = mnl_attr_get_u32(attr);
		break;
	case IFLA_ADDRESS:
		l->maclen = mnl_attr_get_payload_len(attr);
		if (l->maclen == 6)
			memcpy(l->mac, mnl_attr_get_payload(attr), 6);
		break;
	}
	return MNL_CB_OK;
}

static int netdev_link_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct netdev_link *l = ((struct netdev_nl *)arg)->data;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	l->ifindex = ifi->ifi_index;
	l->flags = ifi->ifi_flags;
	l->type = ifi->ifi_type;
	return mnl_attr_parse(nlh, sizeof(*ifi), netdev_link_attr_cb, l);
}

/* RTM_GETLINK by name (ifindex 0) or by ifindex. */
static int netdev_link_get(int ifindex, const char *name, struct netdev_link *l,
                           struct netdev_nl *ctx)
{
	char req[512];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	/* Statistics would only make the reply bigger. */
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	memset(l, 0, sizeof(*l));
	l->maclen = -1;
	ctx->data = l;
	return netdev_nl_talk(nlh, false, netdev_link_cb, ctx);
}

int netdev_lookup(const char *name, int *ifindex, uint8_t mac[6], uint32_t *mtu)
{
	struct netdev_link l;
	struct netdev_nl ctx;
	int err;

	if (strlen(name) >= IF_NAMESIZE)
		return netdev_failx(name, "look up", EINVAL, "name too long");
	err = netdev_link_get(0, name, &l, &ctx);
	if (err)
		return netdev_fail(name, "look up", -err, ctx.ext_msg);
	if (l.type != ARPHRD_ETHER || l.maclen != 6)
		return netdev_failx(name, "look up", EINVAL, "not an Ethernet device");
	if (l.ifindex <= 0 || l.mtu == 0)
		return netdev_failx(name, "look up", EBADMSG, "reply without ifindex or MTU");
	*ifindex = l.ifindex;
	memcpy(mac, l.mac, 6);
	*mtu = l.mtu;
	return 0;
}

int netdev_link_is_up(int ifindex, bool *up)
{
	char label[IF_NAMESIZE + 16];
	struct netdev_link l;
	struct netdev_nl ctx;
	int err;

	err = netdev_link_get(ifindex, NULL, &l, &ctx);
	if (err)
		return netdev_fail(netdev_label(ifindex, label), "get link state", -err,
		                   ctx.ext_msg);
	/* The kernel sets IFF_RUNNING exactly when the oper state is UP or UNKNOWN. */
	*up = (l.flags & IFF_UP) && (l.flags & IFF_RUNNING);
	return 0;
}

int netdev_ack_cb(const struct nlmsghdr *nlh, void *arg)
{
	return MNL_CB_OK;
}

int netdev_set_up(int ifindex)
{
	char req[256], label[IF_NAMESIZE + 16];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct ifinfomsg *ifi;
	struct netdev_nl ctx;
	int err;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_change = IFF_UP;
	ifi->ifi_flags = IFF_UP;
	err = netdev_nl_talk(nlh, false, netdev_ack_cb, &ctx);
	if (err)
		return netdev_fail(netdev_label(ifindex, label), "set up", -err, ctx.ext_msg);
	return 0;
}

static uint32_t netdev_hostmask(uint8_t plen)
{
	return plen == 0 ? ~0u : ~0u >> plen;
}

/* RTM_NEWADDR / RTM_DELADDR for one IPv4 address; local and address in network order. */
static int netdev_addr4_msg(int type, int ifindex, uint32_t local, uint32_t address, uint8_t plen,
                            struct netdev_nl *ctx)
{
	char req[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct ifaddrmsg *ifa;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	if (type == RTM_NEWADDR)
		nlh->nlmsg_flags |= NLM_F_CREATE | NLM_F_REPLACE;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = plen;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;
	mnl_attr_put_u32(nlh, IFA_LOCAL, local);
	mnl_attr_put_u32(nlh, IFA_ADDRESS, address);
	/* /31 and /32 have no broadcast address (RFC 3021). */
	if (type == RTM_NEWADDR && plen < 31)
		mnl_attr_put_u32(nlh, IFA_BROADCAST, local | htonl(netdev_hostmask(plen)));
	return netdev_nl_talk(nlh, false, netdev_ack_cb, ctx);
}

int netdev_addr4_add(int ifindex, uint32_t addr_host_order, uint8_t plen)
{
	char label[IF_NAMESIZE + 16], what[48];
	uint32_t a = htonl(addr_host_order);
	struct netdev_nl ctx = {.ext_msg = ""};
	int err;

	snprintf(what, sizeof(what), "add address %s/%u", inet_ntoa((struct in_addr){a}), plen);
	if (plen > 32)
		return netdev_failx(netdev_label(ifindex, label), what, EINVAL,
		                    "prefix length over 32");
	err = netdev_addr4_msg(RTM_NEWADDR, ifindex, a, a, plen, &ctx);
	if (err && err != -EEXIST)
		return netdev_fail(netdev_label(ifindex, label), what, -err, ctx.ext_msg);
	return 0;
}

static int netdev_addr_attr_cb(const struct nlattr *attr, void *arg)
{
	struct netdev_addr *a = arg;
	int type = mnl_attr_get_type(attr);

	if (type != IFA_LOCAL && type != IFA_ADDRESS)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return MNL_CB_ERROR;
	if (type == IFA_LOCAL) {
		a->local = mnl_attr_get_u32(attr);
		a->has_local = true;
	} else {
		a->address = mnl_attr_get_u32(attr);
	}
	return MNL_CB_OK;
}

static bool netdev_addr_kept(const struct netdev_addr_list *l, const struct netdev_addr *a)
{
	for (unsigned i = 0; i < l->nkeep; i++)
		if (htonl(l->keep[i]) == a->local && l->plens[i] == a->plen)
			return true;
	return false;
}

static int netdev_addr_dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct netdev_addr_list *l = ((struct netdev_nl *)arg)->data;
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct netdev_addr a = {0};

	if (nlh->nlmsg_type != RTM_NEWADDR || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)))
		return MNL_CB_OK;
	if (ifa->ifa_family != AF_INET || (int)ifa->ifa_index != l->ifindex)
		return MNL_CB_OK;
	a.plen = ifa->ifa_prefixlen;
	if (mnl_attr_parse(nlh, sizeof(*ifa), netdev_addr_attr_cb, &a) < 0)
		return MNL_CB_ERROR;
	if (!a.has_local)
		a.local = a.address;
	if (netdev_addr_kept(l, &a))
		return MNL_CB_OK;
	if (l->n == NETDEV_ADDR_BATCH)
		l->overflow = true;
	else
		l->a[l->n++] = a;
	return MNL_CB_OK;
}

static int netdev_addr4_dump(struct netdev_addr_list *l, struct netdev_nl *ctx)
{
	char req[128];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct ifaddrmsg *ifa;

	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	l->n = 0;
	l->overflow = false;
	ctx->data = l;
	return netdev_nl_talk(nlh, true, netdev_addr_dump_cb, ctx);
}

/* Only netdev_addr4_flush_others deletes addresses, and says why. */
static int netdev_addr4_del(int ifindex, const struct netdev_addr *a)
{
	char label[IF_NAMESIZE + 16], what[48];
	struct netdev_nl ctx;
	int err;

	snprintf(what, sizeof(what), "delete address %s/%u", inet_ntoa((struct in_addr){a->local}),
	         a->plen);
	err = netdev_addr4_msg(RTM_DELADDR, ifindex, a->local, a->address, a->plen, &ctx);
	/* Deleting a primary also removes its secondaries. */
	if (err == -EADDRNOTAVAIL)
		return 0;
	if (err)
		return netdev_fail(netdev_label(ifindex, label), what, -err, ctx.ext_msg);
	log_info("netdev %s: %s: not in the configuration", netdev_label(ifindex, label), what);
	return 0;
}

int netdev_addr4_flush_others(int ifindex, const uint32_t *keep, const uint8_t *plens, unsigned n)
{
	char label[IF_NAMESIZE + 16];
	struct netdev_addr_list *l;
	struct netdev_nl ctx;
	int err;

	l = calloc(1, sizeof(*l));
	if (!l)
		return netdev_fail(netdev_label(ifindex, label), "flush addresses", ENOMEM, NULL);
	*l =
	    (struct netdev_addr_list){.ifindex = ifindex, .keep = keep, .plens = plens, .nkeep = n};
	/* Each round deletes at least one address, so this ends. */
	do {
		err = netdev_addr4_dump(l, &ctx);
		if (err) {
			netdev_fail(netdev_label(ifindex, label), "list addresses", -err,
			            ctx.ext_msg);
			break;
		}
		for (unsigned i = 0; i < l->n && !err; i++)
			err = netdev_addr4_del(ifindex, &l->a[i]);
	} while (!err && l->overflow);
	free(l);
	return err;
}

int netdev_addr4_set(int ifindex, const struct cfg_addr4 *addrs, unsigned n)
{
	uint32_t keep[CFG_ADDR_MAX];
	uint8_t plens[CFG_ADDR_MAX];
	int err;

	if (n > CFG_ADDR_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if ((err = netdev_addr4_add(ifindex, addrs[i].addr, addrs[i].plen)) != 0)
			return err;
		keep[i] = addrs[i].addr;
		plens[i] = addrs[i].plen;
	}
	return netdev_addr4_flush_others(ifindex, keep, plens, n);
}

static int netdev_ethtool(int fd, const char *name, struct ethtool_value *ev)
{
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = (void *)ev;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* LRO merges in the NIC; the kernel only turns it off itself when forwarding. */
static int netdev_lro_off(int fd, const char *name)
{
	struct ethtool_value ev = {.cmd = ETHTOOL_GFLAGS};
	int err;

	err = netdev_ethtool(fd, name, &ev);
	if (!err && !(ev.data & ETH_FLAG_LRO))
		return 0;
	if (!err) {
		ev.cmd = ETHTOOL_SFLAGS;
		ev.data &= ~ETH_FLAG_LRO;
		err = netdev_ethtool(fd, name, &ev);
	}
	if (err == -EOPNOTSUPP) {
		log_debug("netdev %s: LRO off: not supported by the driver", name);
		return 0;
	}
	return err ? netdev_fail(name, "turn LRO off", -err, NULL) : 0;
}

int netdev_gro_off(const char *name)
{
	struct ethtool_value ev = {.cmd = ETHTOOL_SGRO, .data = 0};
	int fd, err;

	if (strlen(name) >= IF_NAMESIZE)
		return netdev_failx(name, "turn GRO off", EINVAL, "name too long");
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return netdev_failx(name, "turn GRO off", errno, "ethtool socket");
	err = netdev_ethtool(fd, name, &ev);
	if (err == -EOPNOTSUPP) {
		log_debug("netdev %s: GRO off: not supported by the driver", name);
		err = 0;
	}
	if (err)
		netdev_fail(name, "turn GRO off", -err, NULL);
	else
		err = netdev_lro_off(fd, name);
	close(fd);
	return err;
}

int netdev_ip_forward_get(void)
{
	static const char path[] = "/proc/sys/net/ipv4/ip_forward";
	char buf[16];
	ssize_t len;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		log_warnx("%s: open: %s", path, strerror(err));
		return -err;
	}
	len = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (len <= 0) {
		err = len < 0 ? err : EIO;
		log_warnx("%s: read: %s", path, strerror(err));
		return -err;
	}
	buf[len] = '\0';
	if (buf[0] != '0' && buf[0] != '1') {
		log_warnx("%s: unexpected content \"%.*s\"", path, (int)strcspn(buf, "\n"), buf);
		return -EINVAL;
	}
	return buf[0] - '0';
}
