/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel netdev helpers for the control thread: what the daemon asks the
 * kernel about its ports and sets on them (rtnetlink through libmnl, ethtool
 * ioctls, /proc/sys). Every function returns 0 (or a value, where stated) or a
 * negative errno, and logs the netdev, the action and the reason on failure,
 * including the kernel's extended-ACK message when it gives one.
 */
#ifndef CELLGATE_NETDEV_H
#define CELLGATE_NETDEV_H

#include <stdbool.h>
#include <stdint.h>

/* ifindex, MAC and MTU of an Ethernet netdev; -ENODEV if there is none. */
int netdev_lookup(const char *name, int *ifindex, uint8_t mac[6], uint32_t *mtu);

/* Administratively up (IFF_UP). */
int netdev_set_up(int ifindex);

/* Operationally up: IFF_UP and IFF_RUNNING (carrier, oper state UP or UNKNOWN). */
int netdev_link_is_up(int ifindex, bool *up);

/*
 * Add (or refresh) addr/plen with its broadcast address; already present is
 * success. The address is in host byte order.
 */
int netdev_addr4_add(int ifindex, uint32_t addr_host_order, uint8_t plen);

/* Delete every IPv4 address on ifindex that is not one of keep[i]/plens[i] (each logged). */
int netdev_addr4_flush_others(int ifindex, const uint32_t *keep, const uint8_t *plens, unsigned n);

/*
 * Make the netdev's IPv4 addresses exactly addrs[0..n-1]: add the missing
 * ones, delete the rest (left by an earlier configuration, or added by hand).
 */
struct cfg_addr4;
int netdev_addr4_set(int ifindex, const struct cfg_addr4 *addrs, unsigned n);

/*
 * Add the IPv6 addresses addrs[0..n-1] (already present is success), usable
 * at once (no duplicate address detection). Addresses the netdev has besides
 * are left alone: its link-local one is the kernel's.
 */
struct cfg_addr6;
int netdev_addr6_set(int ifindex, const struct cfg_addr6 *addrs, unsigned n);

/*
 * One IPv6 address, for a runtime change (daemon/addrs6.c): add as above;
 * delete, where already gone is success. 0 or negative errno (logged).
 */
int netdev_addr6_add(int ifindex, const uint8_t addr[16], uint8_t plen);
int netdev_addr6_del(int ifindex, const uint8_t addr[16], uint8_t plen);

/*
 * Turn off GRO (and LRO where the device has it): the datapath forwards frame
 * by frame and must never see aggregated super-packets. A device that cannot
 * change them is not an error.
 */
int netdev_gro_off(const char *name);

/* net.ipv4.ip_forward of the current namespace: 0, 1, or a negative errno. */
int netdev_ip_forward_get(void);

#endif
