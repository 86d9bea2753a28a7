/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What test_afxdp's files share beyond the afpacket harness (namespace,
 * veth pair cgt0/cgt1, peer socket, CHECK): IPv4 test frames and the
 * program's decision counters.
 */
#ifndef CELLGATE_TEST_AFXDP_H
#define CELLGATE_TEST_AFXDP_H

#include <stddef.h>
#include <stdint.h>

#include "datapath/port_afxdp.h"
#include "tests/unit/afpacket_harness.h"

#define OWN_ADDR     0xc0000201u /* 192.0.2.1, on cgt0 */
#define PEER_ADDR    0xc0000202u /* 192.0.2.2, "on" cgt1 */
#define TRANSIT_ADDR 0xc6336409u /* 198.51.100.9, somewhere beyond the router */

/* IPv4/UDP frame of `len` bytes to `dst_mac`/`dst_ip` carrying MAGIC and `seq` (frame_seq). */
size_t ip_frame(uint8_t *f, const uint8_t *dst_mac, uint32_t dst_ip, uint32_t seq, size_t len);
/* ICMP echo request from PEER_ADDR to `dst_ip` with identifier `id`. */
size_t echo_frame(uint8_t *f, const uint8_t *dst_mac, uint32_t dst_ip, uint16_t id);
/* Whether f is an ICMP echo reply with identifier `id`. */
bool is_echo_reply(const uint8_t *f, size_t len, uint16_t id);
/* Decision d's packet count on tport now. */
uint64_t decision(unsigned d);
/* Wait up to 1 s for decision d to reach `want`; returns its value. */
uint64_t decision_wait(unsigned d, uint64_t want);

/* afxdp_ip6.c */
void test_classify6(void);

/* afxdp_errors.c */
void test_no_native_xdp(void);
void test_mtu_limits(void);
void test_queue_limits(void);
void test_other_program(void);
void test_killed_owner(void);
void test_after_privdrop(void);

#endif
