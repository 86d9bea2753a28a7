/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A port driver that lives in memory, for unit tests and benchmarks of the
 * worker: RX hands out frames queued by the test (or, in replay mode, the same
 * frames forever, restored each time as a NIC would write fresh ones); TX
 * copies frames into slots the test inspects, and can be made to run full.
 */
#ifndef CELLGATE_PORT_FAKE_H
#define CELLGATE_PORT_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/port.h"

#define FAKE_FRAMES   512
#define FAKE_FRAME_SZ 4096 /* room for a small GSO super-packet */

/* Offload fields a received frame is delivered with (see struct pkt). */
struct fake_offload {
	uint8_t gso_type;
	uint16_t gso_size, csum_start, csum_offset;
};

struct port_queue {
	struct port *port;
	/* RX */
	unsigned rx_n, rx_pos;
	bool replay; /* deliver rx frames round-robin forever */
	uint32_t rx_len[FAKE_FRAMES];
	uint8_t rx_class[FAKE_FRAMES];
	uint8_t rx_partial[FAKE_FRAMES]; /* deliver with csum_partial set */
	struct fake_offload rx_off[FAKE_FRAMES];
	uint8_t rx_frame[FAKE_FRAMES][FAKE_FRAME_SZ];
	uint8_t rx_pristine[FAKE_FRAMES][64]; /* replay: headers restored before each delivery */
	/* TX */
	unsigned tx_room; /* slots left before the ring is "full" */
	/*
	 * Longest ordinary frame TX takes (0: any), as a driver with a frame
	 * size limit: tx_burst stops at a longer one, tx_refused says why.
	 */
	uint32_t tx_max_len;
	/*
	 * Benchmarks: accept and count frames without copying them, as a driver
	 * that builds frames in place in its TX ring would, so a benchmark
	 * measures the code under test rather than this fake.
	 */
	bool tx_discard;
	/*
	 * Benchmarks of the worker: copy each frame's bytes and length into its
	 * TX slot, as a driver writing its TX ring and descriptor does, but not
	 * the metadata (tx_meta), which only the unit tests inspect and no real
	 * port copies. (Most of what the fake cost the benchmarks was the frame
	 * copy itself, inlined as `rep movsq`: see fake_tx_copy.)
	 */
	bool tx_frames_only;
	uint64_t tx_octets; /* octets of every frame accepted */
	unsigned tx_n;      /* frames captured (wraps in replay mode) */
	uint64_t tx_total, tx_flushes, rx_releases;
	uint32_t tx_len[FAKE_FRAMES];
	struct pkt tx_meta[FAKE_FRAMES]; /* each pkt as tx_burst got it; data points nowhere */
	uint8_t tx_frame[FAKE_FRAMES][FAKE_FRAME_SZ];
};

extern const struct port_ops port_fake_ops;

/*
 * Make `p` a fake port with `nqueues` queues, MAC 02:00:00:00:00:<id+1>, MTU
 * 1500, without tx_offload (a test may set it: TX then records the fields).
 */
int port_fake_init(struct port *p, uint16_t id, const char *name, unsigned nqueues);
void port_fake_fini(struct port *p);

/* Queue a frame for RX on queue 0. */
void port_fake_rx_add(struct port *p, const uint8_t *frame, uint32_t len, uint8_t l2_class);

/*
 * The same on a queue a driver opened itself through port_fake_ops (the cellpw
 * port's carrier): tests reach it through the struct port_queue pointer.
 */
void port_fake_queue_rx_add(struct port_queue *q, const uint8_t *frame, uint32_t len,
                            uint8_t l2_class);

/* Frame `i` (counting every frame TX accepted, from 0) of a queue, if still captured. */
const uint8_t *port_fake_tx_frame(const struct port_queue *q, unsigned i, uint32_t *len);

#endif
