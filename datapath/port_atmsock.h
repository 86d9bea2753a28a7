/*
 * The "atmsock" port driver: ATM adapters driven by the Linux ATM stack.
 *
 * One PF_ATMPVC socket per PVC, with AAL5 (ATM_AAL5): the adapter does
 * segmentation and reassembly (ITU-T I.363.5) and the socket carries whole
 * AAL5 SDUs, i.e. RFC 2684 PDUs with or without the LLC/SNAP header. So
 * rx_burst returns SDUs, not Ethernet frames, each with pkt->vc naming the VC
 * it came on, and tx_burst sends each pkt as one SDU on VC pkt->vc.
 *
 * Setup, from the control thread, before the first queue_open:
 *
 *   atmsock_port_init(p, itf);                   // the adapter, atm<itf>
 *   vc = atmsock_pvc_add(p, vpi, vci, cbr, pcr, atmsock_max_sdu(mtu, llc));
 *   ...                                          // vc = 0, 1, ... in call order
 *   p->ops->queue_open(p, qid, nqueues, &q);     // for each queue
 *   ...
 *   p->ops->queue_close(q);                      // for each queue
 *   atmsock_port_fini(p);
 *
 * Queue qid of nqueues receives on the VCs whose index is qid modulo nqueues
 * (a VC can be bound by one socket only); any queue may send on any VC.
 *
 * Linux must have ATM support (CONFIG_ATM, module atm) and the adapter's
 * driver: otherwise queue_open fails and says so. Upstream Linux is removing
 * its ATM stack; the cellpw driver carries ATM without it.
 */
#ifndef CELLGATE_PORT_ATMSOCK_H
#define CELLGATE_PORT_ATMSOCK_H

#include <linux/atm.h>
#include <stdbool.h>
#include <stdint.h>

#include "datapath/port.h"

#define ATMSOCK_VC_MAX 256 /* PVCs per port */
/* Writable bytes in front of every received SDU, for turning it into a frame in place. */
#define ATMSOCK_RX_HEADROOM 128u

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
 * rate, a rate beyond the API's int, or an SDU outside 1..65535.
 */
int atmsock_qos(struct atm_qos *qos, bool cbr, uint32_t pcr, uint32_t max_sdu);

/* Attach the driver state to p for ATM interface itf (0..32767). 0 or -EINVAL/-EBUSY/-ENOMEM. */
int atmsock_port_init(struct port *p, int itf);

/*
 * Add a PVC before the first queue_open. Returns its VC index (the pkt->vc
 * of its SDUs) or -EINVAL (VPI/VCI outside the UNI's 0..255 / 32..65535, bad
 * traffic parameters, no atmsock_port_init), -EEXIST (already added),
 * -ENOSPC (ATMSOCK_VC_MAX reached) or -EBUSY (queues already open).
 */
int atmsock_pvc_add(struct port *p, uint16_t vpi, uint16_t vci, bool cbr, uint32_t pcr,
                    uint32_t max_sdu);

/* Free what atmsock_port_init attached, once every queue is closed. */
void atmsock_port_fini(struct port *p);

#endif
