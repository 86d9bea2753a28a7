/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What test_cellpw's cases share (the harness itself, with no CHECKs, is
 * cellpw_harness.h): the checks of a sent PDU and of a delivered frame, the
 * way a worker sends an IP packet into a subinterface, the scratch buffers,
 * and the list of cases by file.
 */
#ifndef CELLGATE_TEST_CELLPW_CHECK_H
#define CELLGATE_TEST_CELLPW_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "tests/unit/cellpw_harness.h"

extern struct h_tx tx;
extern struct h_pdu pdu;
extern struct pkt pkts[BURST_MAX];
extern const uint8_t llc_ip4[8], llc_ip6[8];

const uint8_t *vc_mac(uint16_t vc);
void check_pdu(const struct h_pdu *p, unsigned vc, unsigned ncells, const uint8_t *prefix,
               size_t plen, const uint8_t *ip, size_t iplen);
void check_rx(const struct pkt *p, unsigned vc, uint16_t type, const uint8_t *l3, uint32_t len);
void send_ip(unsigned port, const uint8_t *dst_mac, const uint8_t *ip, uint32_t iplen);

/* cellpw_rx_errors.c: every receive error by its counter. */
void test_rx_aal5_errors(void);
void test_rx_frame_errors(void);

/* cellpw_service.c: the service pass (concatenation timer, host ring), a full carrier, the worker.
 */
void test_concat_timer(void);
void test_host_ring(void);
void test_carrier_full(void);
void test_worker(void);

/* cellpw_egress.c: the worker into subinterfaces: partial frames, deadlines, refusals. */
void test_egress(void);

/* cellpw_ip6.c: IPv6 over the point-to-point VC, LLC/SNAP and VC-mux, both ways. */
void test_ip6(void);

/* cellpw_config.c: runtime PVC add and delete, settings queue_open refuses, SDU bounds. */
void test_vc_runtime(void);
void test_open_checks(void);
void test_sdu_bounds(void);

#endif
