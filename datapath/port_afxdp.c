/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "afxdp" port driver: Ethernet NICs through AF_XDP sockets, with an XDP
 * program (datapath/xdp/cellgate_xdp.bpf.c) that sends transit IPv4 straight
 * to the worker and passes the host's own traffic to the kernel. Unlike
 * AF_PACKET, which taps a copy of every frame after the kernel built an skb
 * for it, the kernel here never sees a transit frame: no skb, no IP input
 * run only to drop it (ip_forward=0), and on NICs whose driver supports
 * zero-copy (i40e, ice, ixgbe, mlx5, igc, ...) no copy either.
 *
 * Per port: one program instance and its maps (port_afxdp_prog.c), attached
 * in native mode. Per (port, queue), owned by the worker of that queue:
 *  - one XSK bound to netdev RX queue `qid` (the XSKMAP is keyed by RX queue,
 *    so the netdev needs at least as many RX queues as there are workers);
 *  - its own UMEM: RX chunks cycling through the fill and RX rings, and TX
 *    chunks the driver copies outgoing frames into (a frame forwarded from
 *    another port lives in that port's UMEM, and the seam hands over RX
 *    memory only until rx_release); completions return TX chunks.
 * Zero-copy is asked for first and copy mode taken where the driver has no
 * zero-copy (veth, most virtual devices): logged either way. XDP_USE_NEED_
 * WAKEUP is set: the kernel tells through the rings' flags when it needs a
 * syscall (TX kick, or RX with an empty fill ring), and otherwise none is
 * made.
 *
 * Frames: single buffer, up to the port MTU (+ Ethernet header and one VLAN
 * tag) in one UMEM chunk of 2 KiB (MTU up to 1774) or 4 KiB. The program is
 * not frags-aware, so the kernel refuses to attach it to a netdev whose MTU
 * would need more than one page per frame (veth: above about 3500; NIC
 * drivers have their own limits): queue_open then fails naming the MTU, and
 * `driver auto` falls back to afpacket. No GSO/checksum offload either way:
 * a veth turns GSO off on its peer while an XDP program is attached, and a
 * NIC's GRO runs after XDP, so the worker sees MTU-sized frames; tx_offload
 * stays false. A veth peer that leaves TX checksums to offload hands over
 * frames with partial checksums the XSK cannot flag (README, afxdp).
 *
 * Frames the worker leaves to the kernel (punt) are injected through the
 * program's pass-only twin with BPF_PROG_RUN in live-frame mode, as if they
 * had arrived on the netdev: the program passes the same classes itself, so
 * this is rare (an address the kernel has but the map not yet).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "datapath/port_afxdp_priv.h"
#include "lib/log.h"

#define AFXDP_BUSY_TRIES   25
#define AFXDP_BUSY_WAIT_US 20000

static unsigned afxdp_pow2(unsigned v, unsigned lo, unsigned hi)
{
	unsigned r = lo;

	while (r < v && r < hi)
		r <<= 1;
	return r;
}

/* An ethtool query on the port's netdev: 0, or -1 if the driver has no answer. */
static int afxdp_ethtool(const struct port *p, void *cmd)
{
	struct ifreq ifr = {.ifr_data = cmd};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->netdev);
	ret = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	return ret;
}

/* One XSK per RX queue: the netdev must have queue `qid`. */
static int afxdp_check_queues(const struct port *p, unsigned qid, unsigned nqueues)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};
	char fix[200];
	unsigned have;

	if (afxdp_ethtool(p, &ch) != 0)
		return 0; /* not reported: bind says so if the queue is missing */
	have = ch.rx_count + ch.combined_count;
	if (qid < have)
		return 0;
	snprintf(fix, sizeof(fix),
	         "%u workers need %u RX queues, the netdev has %u: ethtool -L %s combined %u "
	         "(veth: create it with numrxqueues %u numtxqueues %u)",
	         nqueues, nqueues, have, p->netdev, nqueues, nqueues, nqueues);
	return afxdp_fail(p, "RX queues", EINVAL, fix);
}

/* Ring and UMEM geometry from the settings and the MTU. */
static int afxdp_geometry(struct port_queue *q, const struct port *p)
{
	struct ethtool_ringparam rp = {.cmd = ETHTOOL_GRINGPARAM};
	unsigned frame = ETH_HLEN + AFXDP_VLAN_HLEN + p->mtu;
	unsigned nic = AFXDP_NIC_RING_DEF;

	q->chunk = frame <= AFXDP_CHUNK_SMALL - AFXDP_KERN_HEADROOM ? AFXDP_CHUNK_SMALL
	                                                            : AFXDP_CHUNK_LARGE;
	if (frame > q->chunk - AFXDP_KERN_HEADROOM)
		return afxdp_fail(p, "frame size", EMSGSIZE,
		                  "single-buffer AF_XDP takes frames up to 3840 bytes: lower the "
		                  "MTU or use driver afpacket");
	q->tx_max_len = frame;
	if (afxdp_ethtool(p, &rp) == 0 && rp.rx_pending)
		nic = rp.rx_pending;
	q->rx_size = afxdp_pow2(p->settings.rx_ring_frames ? p->settings.rx_ring_frames : 2048,
	                        AFXDP_RX_RING_MIN, AFXDP_RX_RING_MAX);
	q->fill_size = afxdp_pow2(q->rx_size + (nic > q->rx_size ? nic : q->rx_size),
	                          AFXDP_RX_RING_MIN, 2 * AFXDP_RX_RING_MAX);
	q->tx_size = afxdp_pow2(p->settings.tx_ring_frames, AFXDP_TX_RING_MIN, AFXDP_TX_RING_MAX);
	q->tx_chunks = q->tx_size;
	q->area_len = (size_t)(q->fill_size + q->tx_chunks) * q->chunk;
	return 0;
}

static int afxdp_umem_open(struct port_queue *q, const struct port *p)
{
	struct xsk_umem_config cfg = {
	    .fill_size = q->fill_size,
	    .comp_size = q->tx_size,
	    .frame_size = q->chunk,
	    .frame_headroom = 0,
	};
	void *area = mmap(NULL, q->area_len, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	int err;

	if (area == MAP_FAILED)
		return afxdp_fail(p, "UMEM memory", errno, NULL);
	q->area = area;
	err = xsk_umem__create(&q->umem, q->area, q->area_len, &q->fq, &q->cq, &cfg);
	if (err) {
		err = -err;
		return afxdp_fail(
		    p, "registering the UMEM", err,
		    err == ENOBUFS || err == ENOMEM || err == EPERM
		        ? "locked memory: raise RLIMIT_MEMLOCK (LimitMEMLOCK=) or keep "
		          "CAP_IPC_LOCK, or lower rx-ring-frames/tx-ring-frames"
		        : NULL);
	}
	return 0;
}

/* 0, or a negative errno: from the socket's creation (not logged), or *logged and logged. */
static int afxdp_socket_try(struct port_queue *q, const struct port *p, uint16_t mode, bool *logged)
{
	struct xsk_socket_config cfg = {
	    .rx_size = q->rx_size,
	    .tx_size = q->tx_size,
	    .libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
	    .bind_flags = XDP_USE_NEED_WAKEUP | mode,
	};
	int err = afxdp_umem_open(q, p);

	*logged = err != 0;
	if (err)
		return err;
	err = xsk_socket__create(&q->xsk, p->netdev, q->qid, q->umem, &q->rx, &q->tx, &cfg);
	if (err)
		return err; /* the caller decides whether that is the end */
	q->fd = xsk_socket__fd(q->xsk);
	q->zerocopy = mode == XDP_ZEROCOPY;
	return 0;
}

static void afxdp_socket_close(struct port_queue *q)
{
	if (q->xsk)
		xsk_socket__delete(q->xsk);
	if (q->umem)
		xsk_umem__delete(q->umem);
	if (q->area)
		munmap(q->area, q->area_len);
	q->xsk = NULL;
	q->umem = NULL;
	q->area = NULL;
	q->fd = -1;
}

/* Zero-copy if the driver has it, else copy mode; both with need_wakeup. */
static int afxdp_socket_open(struct port_queue *q, const struct port *p)
{
	bool logged;
	int err = afxdp_socket_try(q, p, XDP_ZEROCOPY, &logged);

	if (err == 0 || logged)
		return err;
	/*
	 * The failed bind left the UMEM's rings with the socket: start again
	 * from scratch. EBUSY: the queue still has a socket; one just closed
	 * lets go of it only once the kernel's deferred pool release ran.
	 */
	for (unsigned tries = 0;; tries++) {
		afxdp_socket_close(q);
		err = afxdp_socket_try(q, p, XDP_COPY, &logged);
		if (err != -EBUSY || tries >= AFXDP_BUSY_TRIES)
			break;
		usleep(AFXDP_BUSY_WAIT_US);
	}
	if (err && !logged)
		err = afxdp_fail(p, "AF_XDP socket", -err,
		                 -err == EPERM || -err == EACCES ? "needs CAP_NET_RAW"
		                 : -err == EBUSY ? "another AF_XDP socket holds this RX queue"
		                                 : NULL);
	return err;
}

/* Every RX chunk to the fill ring, every TX chunk to the free list. */
static int afxdp_chunks_init(struct port_queue *q, const struct port *p)
{
	uint32_t idx;

	if (xsk_ring_prod__reserve(&q->fq, q->fill_size, &idx) != q->fill_size)
		return afxdp_fail(p, "filling the fill ring", ENOSPC, NULL);
	for (unsigned i = 0; i < q->fill_size; i++)
		*xsk_ring_prod__fill_addr(&q->fq, idx + i) = (uint64_t)i * q->chunk;
	xsk_ring_prod__submit(&q->fq, q->fill_size);
	q->tx_free = calloc(q->tx_chunks, sizeof(*q->tx_free));
	if (!q->tx_free)
		return afxdp_fail(p, "TX chunk list", ENOMEM, NULL);
	for (unsigned i = 0; i < q->tx_chunks; i++)
		q->tx_free[i] = (uint64_t)(q->fill_size + i) * q->chunk;
	q->tx_nfree = q->tx_chunks;
	return 0;
}

static void afxdp_queue_close(struct port_queue *q)
{
	if (!q)
		return;
	if (q->ap && q->fd >= 0)
		bpf_map_delete_elem(q->ap->xsks_fd, &q->qid);
	afxdp_socket_close(q);
	afxdp_port_put(q->ap);
	free(q->tx_free);
	free(q);
}

/* The XSK takes the queue's frames from now on; copy mode sends up to a ring per sendto. */
static int afxdp_queue_start(struct port_queue *q, const struct port *p)
{
	unsigned budget = q->tx_size;

	if (!q->zerocopy &&
	    setsockopt(q->fd, SOL_XDP, XDP_MAX_TX_SKB_BUDGET, &budget, sizeof(budget)) != 0)
		log_debug("port %s: queue %u: TX budget per sendto stays the kernel's default: %s",
		          p->name, q->qid, strerror(errno));
	if (bpf_map_update_elem(q->ap->xsks_fd, &q->qid, &q->fd, BPF_ANY) != 0)
		return afxdp_fail(p, "adding the socket to the XSKMAP", errno, NULL);
	return 0;
}

static int afxdp_queue_open(struct port *p, unsigned qid, unsigned nqueues, struct port_queue **out)
{
	struct port_queue *q;
	int err;

	if (p->ifindex <= 0 || p->mtu == 0)
		return afxdp_fail(p, "open", EINVAL, "netdev not looked up (no ifindex/MTU)");
	q = aligned_alloc(64, (sizeof(*q) + 63) & ~(size_t)63);
	if (!q)
		return afxdp_fail(p, "open", ENOMEM, NULL);
	memset(q, 0, sizeof(*q));
	q->fd = -1;
	q->qid = qid;
	q->port_id = p->id;
	snprintf(q->name, sizeof(q->name), "%s", p->name);
	snprintf(q->netdev, sizeof(q->netdev), "%s", p->netdev);
	err = afxdp_check_queues(p, qid, nqueues);
	if (!err)
		err = afxdp_geometry(q, p);
	if (!err)
		err = afxdp_port_get(p, &q->ap);
	if (!err)
		err = afxdp_port_attach(q->ap);
	if (!err)
		err = afxdp_socket_open(q, p);
	if (!err)
		err = afxdp_chunks_init(q, p);
	if (!err)
		err = afxdp_queue_start(q, p);
	if (err) {
		afxdp_queue_close(q);
		return err;
	}
	p->tx_offload = false;
	log_info("port %s: queue %u/%u: AF_XDP %s mode, native XDP, RX ring %u, fill %u, TX %u, "
	         "%u B chunks (%zu KiB UMEM)",
	         p->name, qid, nqueues, q->zerocopy ? "zero-copy" : "copy", q->rx_size,
	         q->fill_size, q->tx_size, q->chunk, q->area_len >> 10);
	*out = q;
	return 0;
}

const struct port_ops port_afxdp_ops = {
    .driver = "afxdp",
    .queue_open = afxdp_queue_open,
    .queue_close = afxdp_queue_close,
    .rx_burst = afxdp_rx_burst,
    .rx_release = afxdp_rx_release,
    .tx_burst = afxdp_tx_burst,
    .tx_flush = afxdp_tx_flush,
    .rx_fd = afxdp_rx_fd,
    .queue_ring_drops = afxdp_queue_ring_drops,
    .punt = afxdp_punt,
};
