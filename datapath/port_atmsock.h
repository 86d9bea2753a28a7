/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "atmsock" port driver: ATM adapters driven by the Linux ATM stack.
 *
 * One PF_ATMPVC socket per PVC, with AAL5 (ATM_AAL5): the adapter does
 * segmentation and reassembly (ITU-T I.363.5), shaping to the SO_ATMQOS
 * contract, and drops PDUs whose CRC-32 fails, so the socket carries whole
 * AAL5 SDUs: RFC 2684 PDUs. Everything above that is port_atm.h's, shared
 * with the cellpw driver: RFC 2684 routed (LLC/SNAP, VC-mux) and bridged
 * decapsulation into synthetic Ethernet frames on the VC's subinterface,
 * InATMARP and bridged ARP, per-VC counters and discards, captures, the VC
 * sets published for runtime PVC changes, and the host ring.
 *
 * What the kernel API does not give (checked against Linux 6.1, atm.ko with
 * atmtcp; tests/vm/README.md):
 *  - OAM F5: an ATM_AAL0 socket carries raw cells, but the kernel binds a
 *    VPI/VCI to one socket per direction, so no AAL0 socket can sit beside
 *    the VC's AAL5 one (EADDRINUSE). The ops have no oam_send: loopbacks are
 *    never sent, on-demand pings answer "not done" at once, and the daemon
 *    reports the VC's OAM as unsupported.
 *  - the far end closing its VC: nothing reaches our socket. Only the adapter
 *    going away is seen (the kernel shuts every socket of the interface:
 *    POLLHUP, EOF): the VC goes oper down, counted (vc-lost, oper-changes)
 *    and reported as an event.
 *  - AAL5 CRC and length errors: dropped by the adapter and counted per
 *    interface (/proc/net/atm), not per VC. The discards counted here are
 *    RFC 2684's (unknown-encapsulation, short, bridged-not-for-us) and
 *    oversize.
 *
 * Setup, from the control thread, before the first queue_open: the daemon
 * fills a struct atmsock_settings (port.drv) as it does cellpw's. A port set
 * up with atmsock_port_init/atmsock_pvc_add instead owns a VC table of its
 * own whose VCs terminate on the port itself (VC-mux IPv4, no subinterface).
 *
 * Linux must have ATM support (CONFIG_ATM, module atm) and the adapter's
 * driver: otherwise queue_open fails and says so. Linux 7.1 keeps the ATM
 * core and the USB DSL modem drivers but removed atmtcp and the PCI cards;
 * the cellpw driver carries ATM without any of it.
 */
#ifndef CELLGATE_PORT_ATMSOCK_H
#define CELLGATE_PORT_ATMSOCK_H

#include <linux/atm.h>
#include <stdbool.h>
#include <stdint.h>

#include "datapath/atm/vc.h"
#include "datapath/port.h"

#define ATMSOCK_VC_MAX VC_MAX /* PVCs per port */
/* Writable bytes in front of every received SDU, for turning it into a frame in place. */
#define ATMSOCK_RX_HEADROOM 128u

/* Driver settings, filled in by the daemon before queue_open (port.drv). */
struct atmsock_settings {
	int itf;                         /* ATM interface number (/proc/net/atm/devices) */
	struct atm_vc *vcs;              /* the dataplane's VC table */
	uint16_t vc_ids[ATMSOCK_VC_MAX]; /* VCs on this port at queue_open (the first vcset) */
	unsigned nvcs;
	uint32_t ip4_of_subif[PORT_MAX];    /* our address per subinterface, for (In)ATMARP */
	uint8_t ip6_of_subif[PORT_MAX][16]; /* first IPv6 address, for ND on bridged VCs */
	struct atm_vc *own_vcs;             /* atmsock_port_init's table, else NULL */
};

/* The AAL5 SDU size of a VC: the IP MTU, plus the LLC/SNAP header (RFC 2684 5.1) if any. */
static inline uint32_t atmsock_max_sdu(uint32_t mtu, bool llc)
{
	return mtu + (llc ? 8 : 0);
}

/* The PVC address of VPI/VCI on ATM interface itf. */
void atmsock_addr(struct sockaddr_atmpvc *sa, int itf, uint16_t vpi, uint16_t vci);

/*
 * Traffic parameters for SO_ATMQOS, the same in both directions, AAL5:
 *  - cbr: constant bit rate at pcr cells/s. pcr, min_pcr and max_pcr are all
 *    pcr, so the kernel's rate goal (atm_pcr_goal) rounds down: the adapter
 *    never exceeds the contract.
 *  - ubr with pcr: best effort, shaped to at most pcr (max_pcr).
 *  - ubr, pcr 0: best effort at up to the link rate (max_pcr ATM_MAX_PCR).
 * max_sdu bounds the SDUs in both directions. -EINVAL for a CBR without a
 * rate, a rate beyond the API's int, or an SDU outside 1..65535. The kernel
 * refuses CBR at PCR 0 itself; atmtcp takes any rate, a real adapter may
 * refuse one above its link rate (connect: EINVAL).
 */
int atmsock_qos(struct atm_qos *qos, bool cbr, uint32_t pcr, uint32_t max_sdu);

/*
 * Runtime PVC changes, control thread, with the port open (see atm_vcset in
 * port_atm.h): atmsock_vc_open gives VC `id` (its cfg filled, in no
 * published set) a fresh runtime state and its socket, ready before the set
 * naming it is published; atmsock_vc_close closes it, once no published set
 * names it and a grace period has passed (or on an aborted add).
 */
int atmsock_vc_open(struct port *p, uint16_t id);
void atmsock_vc_close(struct port *p, uint16_t id);

/*
 * A port without subinterfaces: attach settings with a VC table of its own
 * for ATM interface itf (0..32767). 0 or -EINVAL/-EBUSY/-ENOMEM.
 */
int atmsock_port_init(struct port *p, int itf);

/*
 * Add a PVC of such a port before the first queue_open, VC-mux IPv4 with an
 * MTU of max_sdu, received on the port itself. Returns its VC index (the
 * pkt->vc of its frames) or -EINVAL (VPI/VCI outside the UNI's 0..255 /
 * 32..65535, bad traffic parameters, no atmsock_port_init), -EEXIST (already
 * added), -ENOSPC (ATMSOCK_VC_MAX reached) or -EBUSY (queues already open).
 */
int atmsock_pvc_add(struct port *p, uint16_t vpi, uint16_t vci, bool cbr, uint32_t pcr,
                    uint32_t max_sdu);

/* Free what atmsock_port_init attached, once every queue is closed. */
void atmsock_port_fini(struct port *p);

#endif
