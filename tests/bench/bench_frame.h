/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The benchmarks' test traffic: a minimum-size (60-byte) Ethernet frame
 * carrying a UDP datagram from 10.0.1.2 to `dst`, headers complete, the
 * source port varied so flows differ. Shared by fwd_core_bench and
 * fwd_atm_bench so both measure exactly the same frames.
 */
#ifndef CELLGATE_BENCH_FRAME_H
#define CELLGATE_BENCH_FRAME_H

#include <stdint.h>
#include <string.h>

#include "datapath/csum.h"
#include "datapath/ip4.h"

#define BENCH_FRAME_LEN 60

static inline void bench_udp_frame(uint8_t f[BENCH_FRAME_LEN], const uint8_t dmac[6], uint32_t dst,
                                   uint16_t sport)
{
	uint8_t *ip = f + 14;

	memset(f, 0, BENCH_FRAME_LEN);
	memcpy(f, dmac, 6);
	f[6] = 2;
	wr16(f + 12, ETHERTYPE_IPV4);
	ip[0] = 0x45;
	wr16(ip + 2, 46);
	ip[8] = 64;
	ip[9] = 17;
	wr32(ip + 12, (uint32_t)10 << 24 | 1 << 8 | 2); /* 10.0.1.2 */
	wr32(ip + 16, dst);
	wr16(ip + 10, csum_compute(ip, 20));
	wr16(ip + 20, sport);
	wr16(ip + 22, 9);
	wr16(ip + 24, 26); /* UDP length: 8 + 18 bytes of payload */
}

#endif
