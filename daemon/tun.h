/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TUN netdevs for ATM ports and subinterfaces: the kernel (and FRR, snmpd's
 * IF-MIB) see each as an interface with an ifindex and addresses; the daemon
 * reads what the kernel sends into a subinterface and writes what is punted.
 */
#ifndef CELLGATE_TUN_H
#define CELLGATE_TUN_H

#include <stdint.h>

/*
 * Create (or attach to) TUN `name` (IFF_TUN, no packet info, non-blocking),
 * set its MTU and bring it up. The device lives as long as the descriptor.
 * 0 with *fd and *ifindex set, or a negative errno (logged with the name).
 */
int tun_create(const char *name, uint32_t mtu, int *fd, int *ifindex);

#endif
