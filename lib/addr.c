/* SPDX-License-Identifier: BSD-2-Clause */
#include <arpa/inet.h>
#include <stdio.h>

#include "lib/addr.h"

const char *ip4_str(uint32_t host, char buf[IP4_STRLEN])
{
	snprintf(buf, IP4_STRLEN, "%u.%u.%u.%u", host >> 24, host >> 16 & 0xff, host >> 8 & 0xff,
	         host & 0xff);
	return buf;
}

const char *pfx4_str(uint32_t prefix, uint8_t len, char buf[PFX4_STRLEN])
{
	snprintf(buf, PFX4_STRLEN, "%u.%u.%u.%u/%u", prefix >> 24, prefix >> 16 & 0xff,
	         prefix >> 8 & 0xff, prefix & 0xff, len);
	return buf;
}

const char *mac_str(const uint8_t mac[6], char buf[MAC_STRLEN])
{
	snprintf(buf, MAC_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
	         mac[4], mac[5]);
	return buf;
}

const char *inet_str(int family, const void *addr, char *buf, size_t len)
{
	if (!inet_ntop(family, addr, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}
