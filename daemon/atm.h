/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ATM in the daemon: turns the configuration's ATM ports, subinterfaces and
 * PVCs into dataplane ports (cellpw below, atmsub above) and the VC table;
 * creates their TUN netdevs; in the control thread, carries what the kernel
 * sends into a subinterface down the right VC, answers the neighbour code's
 * "which VC is this address on" (static map, InATMARP), and reports VC
 * events (oper state, learned peers, loopback round trips).
 */
#ifndef CELLGATE_ATM_H
#define CELLGATE_ATM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "config/config.h"
#include "datapath/dataplane.h"
#include "daemon/neigh.h"

struct event_base;
struct atm_ctl;
struct neigh6_table;

/* Allocate; NULL on out of memory. */
struct atm_ctl *atm_new(struct dataplane *dp, const struct cfg *cfg);
void atm_free(struct atm_ctl *a);

/*
 * Set up dataplane port `i` for ATM port cfg->ports[i] (driver cellpw or
 * atmsock): carrier lookup, TUN netdev, driver settings, VCs. Queues are
 * opened by the caller afterwards. 0 or a negative errno (logged).
 */
int atm_port_setup(struct atm_ctl *a, unsigned i);

/* Set up dataplane port cfg->nports + s for subinterface s (after its ATM port is open). */
int atm_subif_setup(struct atm_ctl *a, unsigned s);

/* Control thread: TUN readers, neighbour resolvers. Before neigh_open. */
int atm_start(struct atm_ctl *a, struct event_base *base, struct neigh_table *nt);

/*
 * IPv6 next hops of multipoint subinterfaces with IPv6 addresses come from
 * their PVCs' ipv6-peer-address map (atm_map6.c), not from neighbour
 * discovery. After routes6_ports_setup, before neigh6_open.
 */
void atm_start6(struct atm_ctl *a, struct neigh6_table *nt6);

/* Drain the ATM ports' event rings (call every tick). */
void atm_poll_events(struct atm_ctl *a, uint64_t now_ms);

/* Ask for one OAM loopback on VC `vc`; the result is logged and kept (atm_vc_json). */
int atm_vc_ping(struct atm_ctl *a, unsigned vc);

/*
 * Add what the control thread counts itself (TUN reads with no VC) to the
 * ATM ports of a fresh snapshot, so every reader sees the same totals.
 */
void atm_stats_fixup(const struct atm_ctl *a, struct stats_snapshot *s);

/* InATMARP: the far end learned on VC vc and how long ago (ms); false if none. */
bool atm_vc_learned(const struct atm_ctl *a, unsigned vc, uint32_t *ip, uint64_t *age_ms);

/* Called in the control thread when OAM changes VC vc's oper state (enum vc_oper). */
typedef void (*atm_vc_state_fn)(void *arg, unsigned vc, uint8_t oper);
void atm_set_vc_state_hook(struct atm_ctl *a, atm_vc_state_fn fn, void *arg);

/*
 * The capture directory (cfg capture/directory, else RUNDIR/capture, made
 * 0750 and given to uid/gid unless they are -1), then the startup
 * capture-files. After the runtime directory exists, before the privilege
 * drop. 0 or a negative errno (logged; captures are then refused).
 */
int atm_capture_dir_open(struct atm_ctl *a, const char *rundir, uid_t uid, gid_t gid);

/*
 * Start capturing VC v's AAL5 SDUs (pcap, LINKTYPE_SUNATM) to a new file
 * `name` of the capture directory while the workers run, for at most
 * max_bytes and max_s; or stop. cellpw VCs only. 0, -ENOENT (no such VC,
 * or nothing to stop), -EBUSY (already capturing), -EEXIST (the file
 * exists), -EINVAL (not a plain file name), -ENOTDIR (no capture
 * directory) or the file's errno.
 */
int atm_capture_start(struct atm_ctl *a, unsigned v, const char *name, uint64_t max_bytes,
                      uint32_t max_s);
int atm_capture_stop(struct atm_ctl *a, unsigned v);

/* Every tick: stop the captures that reached their size or duration limit (logged). */
void atm_capture_poll(struct atm_ctl *a, uint64_t now_ms);

/*
 * State JSON: VC v's ,"capture-file":..,"capture-octets":.. while it is
 * captured (nothing otherwise), and the ,"capture":{...} container.
 */
void atm_capture_vc_json(const struct atm_ctl *a, unsigned v, FILE *out);
void atm_capture_json(const struct atm_ctl *a, FILE *out);

/* What the control thread knows of VC `vc` beyond the stats snapshot. */
struct atm_vc_info {
	uint32_t peer;        /* far end's IPv4 (host order), 0 = unknown */
	bool peer_learned;    /* from InATMARP, else the static peer-address */
	uint32_t last_rtt_us; /* last answered on-demand loopback, 0 = none */
};
void atm_vc_info(const struct atm_ctl *a, unsigned vc, struct atm_vc_info *out);

/* ATM port `port`: its carrier netdev ("" if none). */
const char *atm_port_carrier(const struct atm_ctl *a, unsigned port);

/* Told the result of every on-demand loopback (rtt_us 0 = not answered). */
typedef void (*atm_ping_fn)(void *arg, unsigned vc, uint32_t rtt_us);
void atm_set_ping_cb(struct atm_ctl *a, atm_ping_fn fn, void *arg);

/*
 * The VC id (slot of the dataplane's VC table: what events, the stats
 * snapshot, next hops' synthetic MACs and every atm_* call here use) of the
 * PVC at index `pvc` in the running configuration; -1 when there is none.
 */
int atm_vc_of_pvc(const struct atm_ctl *a, unsigned pvc);

/*
 * Runtime PVC changes (RESTCONF, SIGHUP), in two steps so that a change that
 * fails changes nothing. atm_pvc_prepare compares the running PVCs with
 * next's (ports and subinterfaces identical: the caller checked), refuses
 * what it cannot do at runtime (-EOPNOTSUPP: atmsock ports, point-to-point
 * subinterfaces, an MTU below the subinterface's) or lacks room or memory
 * for (-ENOSPC, -ENOMEM), with `msg` and `path` saying why; else it gives
 * every added PVC a free VC id with its buffers and builds each changed
 * port's next VC set, all unpublished. A PVC whose parameters changed is
 * deleted and added (a new VC id, counters from zero). Then exactly one of
 * atm_pvc_commit (publish, wait one RCU grace period, forget the deleted
 * VCs' neighbours, free them; `next` becomes the running configuration right
 * after) or atm_pvc_abort. *out is NULL when no PVC changes.
 */
struct atm_pvc_change;
int atm_pvc_prepare(struct atm_ctl *a, const struct cfg *next, struct atm_pvc_change **out,
                    char *msg, size_t msg_len, char *path, size_t path_len);
void atm_pvc_commit(struct atm_ctl *a, struct atm_pvc_change *ch, const struct cfg *next);
void atm_pvc_abort(struct atm_ctl *a, struct atm_pvc_change *ch);
/* Of a prepared change: VC ids it adds (counters start at zero) and deletes. */
bool atm_pvc_change_adds(const struct atm_pvc_change *ch, unsigned vc);
bool atm_pvc_change_deletes(const struct atm_pvc_change *ch, unsigned vc);

#endif
