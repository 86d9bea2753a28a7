/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ATM virtual channels as the datapath sees them: one table for the whole
 * dataplane, indexed by a small VC number that also travels inside the
 * synthetic MAC address of a next hop (see vc_mac_*), so the generic IPv4
 * forwarding path reaches a VC without knowing about ATM.
 *
 * Ownership: the configuration part is written by the control thread before
 * the workers start and is read-only afterwards. The runtime part belongs to
 * the one worker that serves the VC's ATM port (every queue of an ATM port is
 * served by worker 0, see port_cellpw.c). Counters follow the stats.h rule:
 * one writer, plain stores, readers load them relaxed. `oper`,
 * `oper_change_ms` and `ping_req` are the only fields another thread writes
 * or reads while the worker runs, and they are accessed atomically; so is
 * `cap`, which the control thread publishes (cap_buf and the open file set
 * up first) to start a capture at runtime, and clears to stop one, freeing
 * it only after an RCU grace period: the worker loads `cap` once per use.
 */
#ifndef CELLGATE_ATM_VC_H
#define CELLGATE_ATM_VC_H

#include <stdbool.h>
#include <stdint.h>

#include "datapath/atm/aal5.h"
#include "datapath/atm/pcap_sunatm.h"
#include "datapath/atm/shaper.h"

#define VC_MAX 256

/* Discards per VC, one reason each (the per-VC accounting rule). */
#define VC_DROP_REASONS(X)                                                                         \
	X(CRC, "crc", "AAL5 CRC-32 does not verify (I.363.5 10.3)")                                \
	X(LENGTH, "length", "AAL5 length field does not match the cells received")                 \
	X(ABORT, "abort", "AAL5 abort: length field 0")                                            \
	X(OVERSIZE, "oversize", "PDU longer than the VC's maximum SDU")                            \
	X(TIMEOUT, "reassembly-timeout", "PDU not completed within the reassembly timeout")        \
	X(OUT_OF_BUFFER, "out-of-buffer", "SDU complete but no receive buffer free in the burst")  \
	X(UNKNOWN_LLC, "unknown-encapsulation",                                                    \
	  "RFC 2684 header with an LLC/SNAP we do not route, or a VC-mux VC's packet of another "  \
	  "protocol than the VC carries")                                                          \
	X(OAM_CRC, "oam-crc", "OAM cell whose CRC-10 does not verify (I.610)")                     \
	X(OAM_OTHER, "oam-unsupported", "OAM or RM cell other than loopback, ignored")             \
	X(INATMARP_MALFORMED, "inatmarp-malformed", "InATMARP packet that does not parse")         \
	X(VC_DOWN, "vc-down", "transmit while the VC is operationally down (OAM)")                 \
	X(QUEUE_FULL, "shaping-queue-full", "shaping queue full")                                  \
	X(TX_FULL, "tx-full", "carrier TX ring or the adapter's send queue full")                  \
	X(TOO_BIG, "too-big", "SDU above the VC MTU or the AAL5 limit on transmit")                \
	X(SHORT, "short", "SDU too short for its RFC 2684 header and a packet")                    \
	X(NOT_FOR_US, "bridged-not-for-us",                                                        \
	  "bridged frame for another unicast MAC (RFC 2684 5.2)")                                  \
	X(OAM_LOCATION, "oam-location", "OAM loopback naming another loopback point (I.610 10.2.4)")

enum vc_drop_reason {
#define X(id, name, desc) VC_DROP_##id,
	VC_DROP_REASONS(X)
#undef X
	    VC_DROP__MAX
};

extern const char *const vc_drop_name[VC_DROP__MAX];
extern const char *const vc_drop_desc[VC_DROP__MAX];

/* Per-VC counters (ATM-MIB/ATM2-MIB names in the comments). */
struct vc_counters {
	uint64_t cells_in;       /* atmVclStatTotalCellIns */
	uint64_t clp0_cells_in;  /* atmVclStatClp0CellIns */
	uint64_t cells_out;      /* atmVclStatTotalCellOuts */
	uint64_t clp0_cells_out; /* atmVclStatClp0CellOuts */
	uint64_t pdus_in;        /* atmAal5VclInPkts: good SDUs received */
	uint64_t pdus_out;       /* atmAal5VclOutPkts */
	uint64_t octets_in;      /* atmAal5VclInOctets: SDU octets */
	uint64_t octets_out;     /* atmAal5VclOutOctets */
	uint64_t oam_in;         /* OAM F5 cells received */
	uint64_t oam_out;        /* OAM F5 cells sent */
	uint64_t lb_sent;        /* loopback requests we originated */
	uint64_t lb_replies;     /* replies to them that came back */
	uint64_t lb_lost;        /* requests that timed out */
	uint64_t lb_answered;    /* the far end's requests we looped back */
	uint64_t inatmarp_in;    /* InATMARP requests + replies received */
	uint64_t inatmarp_out;   /* sent */
	uint64_t oper_changes;   /* up<->down transitions */
	uint64_t discards[VC_DROP__MAX];
} __attribute__((aligned(64)));

/* Counters of the ATM port itself (cells and frames not yet tied to a VC). */
struct atm_port_counters {
	uint64_t frames_in, octets_in; /* carrier frames that parsed as our pseudowire */
	uint64_t frames_out, octets_out;
	uint64_t cells_in, cells_out;
	uint64_t non_pw_frames;    /* other traffic on the carrier, left to the kernel */
	uint64_t pw_bad_label;     /* MPLS frames for another label */
	uint64_t pw_malformed;     /* truncated, or payload not a multiple of 52 */
	uint64_t seq_errors;       /* control word sequence gaps or reordering */
	uint64_t unknown_vc_cells; /* VPI/VCI not configured on this port */
	uint64_t tx_full;          /* carrier TX ring full: frames lost */
	uint64_t host_tx;          /* packets the kernel sent into a subinterface */
	uint64_t host_tx_drops;    /* ... that found the host ring full or had no VC */
	uint64_t no_vc;            /* frames for a multipoint subinterface naming none of its VCs */
	uint64_t punted;           /* SDUs given to a subinterface's TUN */
	uint64_t punt_errors;      /* TUN write failures */
	uint64_t events_lost;
	uint64_t vc_lost; /* atmsock: VC sockets the kernel shut (the adapter went away) */
} __attribute__((aligned(64)));

enum vc_oper { VC_OPER_UP = 1, VC_OPER_DOWN = 2 }; /* ATM-MIB atmVclOperStatus values */

/* A VC's RFC 2684 encapsulation (atm_vc_rfc2684() gives the enum rfc2684_encap). */
enum vc_encap {
	VC_ENCAP_LLC_SNAP = 0,  /* RFC 2684 5.1 routed */
	VC_ENCAP_VCMUX_IPV4,    /* 6.1 routed, IPv4 only */
	VC_ENCAP_LLC_BRIDGED,   /* 5.2 bridged Ethernet, no FCS: ARP over the VC */
	VC_ENCAP_VCMUX_BRIDGED, /* 6.2 bridged Ethernet, no FCS */
	VC_ENCAP_VCMUX_IPV6     /* 6.1 routed, IPv6 only (appended: the values are stable) */
};

static inline bool vc_encap_bridged(uint8_t e)
{
	return e == VC_ENCAP_LLC_BRIDGED || e == VC_ENCAP_VCMUX_BRIDGED;
}

struct atm_vc_cfg {
	uint16_t atm_port; /* dataplane port id of the ATM port */
	uint16_t subif;    /* dataplane port id of the subinterface */
	uint16_t vpi, vci;
	uint8_t encap;  /* enum vc_encap */
	bool cbr;       /* service category CBR (else UBR) */
	uint32_t mtu;   /* IP MTU */
	uint32_t pcr;   /* cells/s, 0 = unshaped */
	uint32_t queue_cells;
	uint32_t reasm_timeout_ms;
	bool oam_enabled;
	uint32_t oam_interval_ms, oam_retry_ms, oam_down_count, oam_up_count;
	bool inatmarp; /* routed LLC: InATMARP; bridged: ARP for peer_ip4 (address resolution) */
	uint32_t inatmarp_interval_ms;
	uint32_t peer_ip4; /* the static peer address, host order (0 = none): bridged ARP asks it */
};

struct atm_vc {
	struct atm_vc_cfg cfg;

	/* Runtime, owned by the serving worker. */
	struct aal5_reasm rx;
	uint8_t *rx_buf;
	struct atm_shaper shaper;
	uint8_t *shape_q;                 /* cfg.queue_cells cells of 52 bytes, shaped VCs only */
	uint32_t shape_head, shape_count; /* ring of cells waiting for tokens */
	uint64_t oam_next_ms;
	uint32_t oam_tag;
	bool oam_outstanding;
	uint32_t oam_misses, oam_successes;
	uint64_t inatmarp_next_ms;
	uint8_t peer_mac[6];   /* bridged: the far end's MAC, from its frames (else broadcast) */
	bool peer_mac_known;
	uint32_t ping_seen;    /* last ping_req served */
	uint32_t ping_tag;     /* tag of the on-demand loopback in flight */
	uint64_t ping_sent_us; /* when it left */
	struct pcap_sunatm *cap; /* capture of the VC's SDUs (config capture-file), or NULL */
	uint8_t *cap_buf;        /* an outbound SDU made contiguous for the capture */
	uint64_t cap_flush_ms;

	/* Shared with the control thread (atomic). */
	uint8_t oper;            /* enum vc_oper */
	uint64_t oper_change_ms; /* CLOCK_REALTIME ms of the last change (0 = since start) */
	uint32_t ping_req;       /* control increments it to ask for one on-demand loopback */

	struct vc_counters ctr;
};

/*
 * The synthetic MAC address a next hop carries to name a VC: 02:41:54:4d
 * ("ATM", locally administered) followed by the VC number. Subinterface
 * ports read it back on transmit; the same address is the source of the
 * Ethernet header the ATM port puts in front of a received SDU, so ICMP
 * errors and replies find their way back to the VC the packet came in on.
 */
static inline void vc_mac_make(uint16_t vc, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x41;
	mac[2] = 0x54;
	mac[3] = 0x4d;
	mac[4] = (uint8_t)(vc >> 8);
	mac[5] = (uint8_t)vc;
}

/* The VC number in `mac`, or -1 if it is not a VC address. */
static inline int vc_mac_vc(const uint8_t mac[6])
{
	if (mac[0] != 0x02 || mac[1] != 0x41 || mac[2] != 0x54 || mac[3] != 0x4d)
		return -1;
	return (mac[4] << 8) | mac[5];
}

#endif
