/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What test_afpacket's files share: the names of the veth pair, the port under
 * test (cgt0) and the peer's packet socket on cgt1, test frames and their
 * sequence numbers, the receive loop, and CHECK with its failure counter.
 */
#ifndef CELLGATE_TEST_AFPACKET_HARNESS_H
#define CELLGATE_TEST_AFPACKET_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "datapath/port.h"

#define DEV0           "cgt0"
#define DEV1           "cgt1"
#define ETHERTYPE_TEST 0x88b5 /* IEEE 802 local experimental */
#define MAGIC          "CGT1"

extern int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

extern struct port tport;
extern bool qdisc_bypass;
extern uint8_t mac1[6];
extern int peer_fd;

void write_file(const char *path, const char *val);
bool cmd_has(const char *cmd, const char *needle);
size_t frame_make(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint32_t seq, size_t len);
long frame_seq(const uint8_t *f, size_t len);
void peer_send(const uint8_t *f, size_t len);
typedef bool frame_pred(const uint8_t *f, size_t len);
ssize_t peer_recv_if(uint8_t *buf, size_t cap, int timeout_ms, frame_pred *want);
ssize_t peer_recv(uint8_t *buf, size_t cap, int timeout_ms);
typedef void rx_fn(const struct pkt *pk, void *arg);
unsigned rx_drain(struct port_queue *q, unsigned burst, unsigned want, int idle_ms, rx_fn *fn,
                  void *arg);
struct port_queue *queue_open(unsigned rx_frames, unsigned tx_frames, bool promisc, unsigned qid,
                              unsigned nq);
bool wait_running(void);
int ethtool_value(const char *dev, int cmd, uint32_t *val);
void send_seq(unsigned from, unsigned n, const uint8_t *dst, bool pause);
void peer_open(void);
int setup(void);

/* The cases in afpacket_rings.c: opening, RX and TX rings, fanout, promiscuity, link flap. */
void test_open_errors(void);
void test_rx_frames(void);
void test_rx_release(void);
void test_ring_drops(void);
void test_tx(bool bypass);
void test_fanout(void);
void test_promisc(void);
void test_link_flap(void);

/* The cases in afpacket_offload.c: GSO/TSO both ways, partial checksums. */
void test_tx_gso(void);
void test_csum_partial(void);
void test_rx_gso(void);

#endif
