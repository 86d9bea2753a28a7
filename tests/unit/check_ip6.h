/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * IPv6 addresses in unit tests: a6("2001:db8::1") is the address in
 * network order, in one of 16 rotating buffers (so a call may take
 * several), checked to parse.
 */
#ifndef CELLGATE_TESTS_UNIT_CHECK_IP6_H
#define CELLGATE_TESTS_UNIT_CHECK_IP6_H

#include <arpa/inet.h>
#include <stdint.h>

#include "tests/unit/check.h"

static inline const uint8_t *a6(const char *s)
{
	static uint8_t buf[16][16];
	static unsigned next;
	uint8_t *a = buf[next++ % 16];

	CHECK(inet_pton(AF_INET6, s, a) == 1);
	return a;
}

#endif
