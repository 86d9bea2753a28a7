/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/stats.h"
#include "tests/unit/port_fake.h"

static int fake_queue_open(struct port *p, unsigned qid, unsigned nqueues, struct port_queue **out)
{
	struct port_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->port = p;
	q->tx_room = ~0u;
	*out = q;
	return 0;
}

static void fake_queue_close(struct port_queue *q)
{
	free(q);
}

static unsigned fake_rx_burst(struct port_queue *q, struct pkt *pkts, unsigned max)
{
	unsigned n = 0;

	while (n < max && (q->replay ? q->rx_n > 0 : q->rx_pos < q->rx_n)) {
		unsigned i = q->rx_pos % FAKE_FRAMES;
		if (q->replay) {
			/* As a NIC writing a fresh frame: the worker rewrote MACs and TTL last
			 * time. */
			memcpy(q->rx_frame[i], q->rx_pristine[i], 64);
			/* A compare, not `% rx_n`: no division per frame. */
			q->rx_pos = q->rx_pos + 1 >= q->rx_n ? 0 : q->rx_pos + 1;
		} else {
			q->rx_pos++;
		}
		pkts[n] = (struct pkt){.data = q->rx_frame[i],
		                       .len = q->rx_len[i],
		                       .in_port = q->port->id,
		                       .l2_class = q->rx_class[i],
		                       .csum_partial = q->rx_partial[i],
		                       .gso_type = q->rx_off[i].gso_type,
		                       .gso_size = q->rx_off[i].gso_size,
		                       .csum_start = q->rx_off[i].csum_start,
		                       .csum_offset = q->rx_off[i].csum_offset};
		n++;
	}
	return n;
}

static void fake_rx_release(struct port_queue *q)
{
	q->rx_releases++;
}

static bool fake_too_long(const struct port_queue *q, const struct pkt *p)
{
	return q->tx_max_len && p->gso_type == PKT_GSO_NONE && p->len > q->tx_max_len;
}

static int fake_tx_refused(struct port_queue *q, const struct pkt *p)
{
	return fake_too_long(q, p) ? DROP_MTU_EXCEEDED : -1;
}

/*
 * The frame into its slot as a driver copies into its TX ring: with libc's
 * memcpy. A frame larger than a slot is captured cut short (tx_len keeps its
 * length). The empty asm hides the bound from GCC, which otherwise expands a
 * copy of known maximum size inline as `rep movsq`: a start-up cost of tens
 * of cycles per frame that no driver pays, two thirds of this fake's time in
 * the worker benchmarks.
 */
static void fake_tx_copy(uint8_t *slot, const uint8_t *data, uint32_t len)
{
	size_t n = len < FAKE_FRAME_SZ ? len : FAKE_FRAME_SZ;

	__asm__("" : "+r"(n));
	memcpy(slot, data, n);
}

static unsigned fake_tx_burst(struct port_queue *q, struct pkt *const *pkts, unsigned n)
{
	unsigned sent = 0;

	for (; sent < n && q->tx_room > 0; sent++) {
		unsigned slot = q->tx_n % FAKE_FRAMES;
		uint32_t len = pkts[sent]->len;

		if (fake_too_long(q, pkts[sent]))
			break;

		q->tx_octets += len;
		if (q->tx_discard) {
			q->tx_n++;
			q->tx_total++;
			continue;
		}
		fake_tx_copy(q->tx_frame[slot], pkts[sent]->data, len);
		q->tx_len[slot] = pkts[sent]->len;
		if (!q->tx_frames_only) {
			q->tx_meta[slot] = *pkts[sent];
			q->tx_meta[slot].data = NULL;
		}
		q->tx_n++;
		q->tx_total++;
		if (q->tx_room != ~0u)
			q->tx_room--;
	}
	return sent;
}

static int fake_tx_flush(struct port_queue *q)
{
	q->tx_flushes++;
	return 0;
}

static int fake_rx_fd(const struct port_queue *q)
{
	return -1;
}

static int fake_ring_drops(struct port_queue *q, uint64_t *drops)
{
	*drops = 0;
	return 0;
}

const struct port_ops port_fake_ops = {
    .driver = "fake",
    .queue_open = fake_queue_open,
    .queue_close = fake_queue_close,
    .rx_burst = fake_rx_burst,
    .rx_release = fake_rx_release,
    .tx_burst = fake_tx_burst,
    .tx_refused = fake_tx_refused,
    .tx_flush = fake_tx_flush,
    .rx_fd = fake_rx_fd,
    .queue_ring_drops = fake_ring_drops,
};

int port_fake_init(struct port *p, uint16_t id, const char *name, unsigned nqueues)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->netdev, sizeof(p->netdev), "fake%u", id);
	p->id = id;
	p->ifindex = 100 + id;
	p->mac[0] = 0x02;
	p->mac[5] = (uint8_t)(id + 1);
	p->mtu = 1500;
	p->ops = &port_fake_ops;
	for (unsigned q = 0; q < nqueues; q++) {
		int err = fake_queue_open(p, q, nqueues, &p->queues[q]);
		if (err)
			return err;
		p->nqueues = q + 1;
	}
	return 0;
}

void port_fake_fini(struct port *p)
{
	for (unsigned q = 0; q < p->nqueues; q++)
		fake_queue_close(p->queues[q]);
	p->nqueues = 0;
}

void port_fake_rx_add(struct port *p, const uint8_t *frame, uint32_t len, uint8_t l2_class)
{
	port_fake_queue_rx_add(p->queues[0], frame, len, l2_class);
}

void port_fake_queue_rx_add(struct port_queue *q, const uint8_t *frame, uint32_t len,
                            uint8_t l2_class)
{
	unsigned i = q->rx_n % FAKE_FRAMES;

	memcpy(q->rx_frame[i], frame, len);
	memcpy(q->rx_pristine[i], frame, len < 64 ? len : 64);
	q->rx_len[i] = len;
	q->rx_class[i] = l2_class;
	q->rx_partial[i] = 0;
	memset(&q->rx_off[i], 0, sizeof(q->rx_off[i]));
	q->rx_n++;
}

const uint8_t *port_fake_tx_frame(const struct port_queue *q, unsigned i, uint32_t *len)
{
	if (i >= q->tx_n || q->tx_n - i > FAKE_FRAMES || q->tx_discard)
		return NULL;
	*len = q->tx_len[i % FAKE_FRAMES];
	return q->tx_frame[i % FAKE_FRAMES];
}
