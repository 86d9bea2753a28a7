/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Least privilege: once rings, sockets and TUNs are open, cellgated started
 * as root with -u USER becomes USER, keeping only CAP_NET_ADMIN (addresses,
 * links, TUNs at runtime) and CAP_NET_RAW (ARP and packet sockets), in every
 * thread it starts afterwards. Everything else, the bounding set included,
 * is dropped.
 */
#ifndef CELLGATE_PRIVDROP_H
#define CELLGATE_PRIVDROP_H

#include <sys/types.h>

/* Look up `user` (name or numeric uid). 0, or -ENOENT (logged). */
int privdrop_lookup(const char *user, uid_t *uid, gid_t *gid);

/*
 * Become uid/gid with only CAP_NET_ADMIN and CAP_NET_RAW, permitted and
 * effective (also across the setuid), supplementary groups dropped. Call
 * before starting any thread. 0, or a negative errno (logged).
 */
int privdrop_apply(const char *user, uid_t uid, gid_t gid);

#endif
