/* SPDX-License-Identifier: BSD-2-Clause */
/* What netdev.c and netdev6.c share: the rtnetlink exchange and failure logging. */
#ifndef CELLGATE_NETDEV_PRIV_H
#define CELLGATE_NETDEV_PRIV_H

#include <libmnl/libmnl.h>
#include <net/if.h>
#include <stdbool.h>

struct netdev_nl {
	void *data;        /* for the message callback */
	char ext_msg[160]; /* the kernel's extended-ACK text, if any */
};

/* The netdev's name for messages, or "ifindex N". */
const char *netdev_label(int ifindex, char buf[IF_NAMESIZE + 16]);

/* Log "netdev DEV: ACTION: strerror(err) (kernel: ext)" and return -err. */
int netdev_fail(const char *dev, const char *action, int err, const char *ext);

/* One request on a private rtnetlink socket, its replies through cb. 0 or negative errno. */
int netdev_nl_talk(struct nlmsghdr *nlh, bool dump, mnl_cb_t cb, struct netdev_nl *ctx);
int netdev_ack_cb(const struct nlmsghdr *nlh, void *arg);

#endif
