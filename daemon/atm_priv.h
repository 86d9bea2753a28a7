/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the files that make up the daemon's ATM code (atm_setup.c,
 * atm_host.c, atm_events.c, atm_capture.c, atm_pvc.c); not for the rest of
 * the daemon, which uses atm.h.
 */
#ifndef CELLGATE_ATM_PRIV_H
#define CELLGATE_ATM_PRIV_H

#include "daemon/atm.h"
#include "datapath/port_atm.h"
#include "datapath/port_atmsock.h"
#include "datapath/port_cellpw.h"
#include "lib/log.h"

#define ATM_PORT_MTU    9180 /* the ATM port's own netdev carries nothing; RFC 2225 default */
#define TUN_READS_MAX   64   /* packets per readable callback, so one TUN cannot hog the loop */
#define LEARNED_TTL_MIN 60000

struct atm_subif_rt {
	struct atm_ctl *a;
	unsigned s; /* cfg subif index */
	uint16_t port;
	struct atmsub_settings set;
	struct event *ev;
	uint64_t host_tx_drops;
};

#define CAPTURE_NAME_MAX 128 /* YANG capture-file-name */
#define CAPTURE_POLL_MS  100 /* how often running captures are checked against their limits */

/* A running capture, as the control thread keeps it (the writer is vcs[v].cap). */
struct atm_capture_rt {
	char name[CAPTURE_NAME_MAX + 1]; /* in the capture directory */
	uint64_t max_bytes;
	uint32_t max_s;
	uint64_t deadline_ms; /* mono_ms */
};

#define ATM_STATE_WHAT    "ATM VC oper state changes"
#define ATM_INATMARP_WHAT "InATMARP peer changes"

struct atm_ctl {
	struct dataplane *dp;
	const struct cfg *cfg;
	struct neigh_table *nt;
	struct neigh6_table *nt6; /* atm_start6: multipoint subinterfaces' IPv6 map */
	struct cellpw_settings *pw[PORT_MAX];
	struct atmsock_settings *as[PORT_MAX];
	int port_tun_fd[PORT_MAX];
	struct atm_subif_rt sub[CFG_SUBIF_MAX];
	uint32_t learned[VC_MAX]; /* InATMARP: the far end's address per VC */
	uint64_t learned_ms[VC_MAX];
	uint32_t last_rtt_us[VC_MAX];
	/*
	 * VC ids are slots of the dataplane's VC table and never move while the
	 * VC exists; configuration PVC indexes do (the loader sorts them), so
	 * each side maps to the other. Equal at start. A slot freed by a runtime
	 * delete is free only after the grace period (atm_pvc_commit).
	 */
	int16_t vc_of_pvc[VC_MAX]; /* cfg->pvcs index -> VC id */
	int16_t pvc_of_vc[VC_MAX]; /* VC id -> cfg->pvcs index, -1 = free slot */
	uint64_t now_ms;
	atm_vc_state_fn vc_state_fn; /* SNMP notifications */
	void *vc_state_arg;
	atm_ping_fn ping_cb;
	void *ping_arg;
	struct log_limit state_log, inatmarp_log; /* what the far ends make happen */

	/* atm_capture.c */
	int cap_dirfd;       /* the capture directory, -1 until atm_capture_dir_open */
	bool cap_started_up; /* the startup capture-files are open: others never replace */
	char cap_dir[256];
	struct atm_capture_rt cap[VC_MAX];
	uint64_t cap_poll_ms;
	uint64_t cap_started, cap_limit_stops, cap_not_written, cap_refused;
};

/* atm_setup.c: the datapath's view of PVC pc (struct atm_vc_cfg), and of its encapsulation. */
uint8_t atm_vc_encap(enum cfg_atm_encap e);
void atm_vc_cfg_fill(struct atm_vc_cfg *v, const struct cfg *cfg, const struct cfg_pvc *pc);

/*
 * atm_capture.c: VC v's capture-file ("" = none; failures logged, the VC
 * runs uncaptured), opened now if the capture directory is open, else by
 * atm_capture_dir_open; closing the capture of a VC already unpublished;
 * and everything at the end.
 */
void atm_capture_open(struct atm_ctl *a, unsigned v, const char *name);
void atm_capture_close(struct atm_ctl *a, unsigned v);
void atm_capture_fini(struct atm_ctl *a);

/*
 * atm_map6.c: the VC that subinterface s's ipv6-peer-address map gives ip
 * (-1: none); the VC an IPv6 packet the kernel sent into s leaves on (the
 * map's for its destination or for its FIB6 gateway; -1: none); and the
 * map of the subinterface port subif_port changed at runtime (neigh6
 * forgets its entries, so next hops are mapped afresh).
 */
int atm_vc_for6(const struct atm_ctl *a, unsigned s, const uint8_t ip[16]);
int atm_host_vc6(const struct atm_ctl *a, unsigned s, const uint8_t *ip6, size_t len);
void atm_map6_changed(struct atm_ctl *a, unsigned subif_port);

/* atm_events.c: "PORT VC vpi/vci (SUBIF)" of VC id vc, for log lines. */
void atm_vc_name(const struct atm_ctl *a, unsigned vc, char *buf, size_t len);

#endif
