/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Address formatting for logs, JSON and the configuration printer. IPv4
 * addresses are host byte order everywhere in cellgate. Each returns buf.
 */
#ifndef CELLGATE_LIB_ADDR_H
#define CELLGATE_LIB_ADDR_H

#include <stddef.h>
#include <stdint.h>

#define IP4_STRLEN  16 /* "255.255.255.255" */
#define PFX4_STRLEN 20 /* "255.255.255.255/32", room for any uint8_t length */
#define MAC_STRLEN  18 /* "00:11:22:33:44:55" */

/* "a.b.c.d" */
const char *ip4_str(uint32_t host, char buf[IP4_STRLEN]);

/* "a.b.c.d/len" */
const char *pfx4_str(uint32_t prefix, uint8_t len, char buf[PFX4_STRLEN]);

/* "xx:xx:xx:xx:xx:xx", lower case */
const char *mac_str(const uint8_t mac[6], char buf[MAC_STRLEN]);

/* An IPv4 or IPv6 address in network byte order (family AF_INET or AF_INET6); "?" if bad. */
const char *inet_str(int family, const void *addr, char *buf, size_t len);

#endif
