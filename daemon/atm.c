#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu-qsbr.h>

#include "daemon/atm.h"
#include "lib/clock.h"
#include "lib/addr.h"
#include "lib/log.h"
#include "datapath/port_atmsock.h"
#include "datapath/port_cellpw.h"
#include "daemon/netdev.h"
#include "daemon/stats_fields.h"
#include "daemon/tun.h"

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

#define ATM_STATE_WHAT    "ATM VC oper state changes"
#define ATM_INATMARP_WHAT "InATMARP peer changes"

struct atm_ctl {
	struct dataplane *dp;
	const struct cfg *cfg;
	struct neigh_table *nt;
	struct cellpw_settings *pw[PORT_MAX];
	int port_tun_fd[PORT_MAX];
	bool atmsock[PORT_MAX]; /* atmsock_port_init done: fini at the end */
	struct atm_subif_rt sub[CFG_SUBIF_MAX];
	uint32_t learned[VC_MAX]; /* InATMARP: the far end's address per VC */
	uint64_t learned_ms[VC_MAX];
	uint32_t last_rtt_us[VC_MAX];
	uint64_t pings_lost[VC_MAX];
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
};

static void atm_capture_close(struct atm_ctl *a, unsigned v);


struct atm_ctl *atm_new(struct dataplane *dp, const struct cfg *cfg)
{
	struct atm_ctl *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->dp = dp;
	a->cfg = cfg;
	for (unsigned i = 0; i < PORT_MAX; i++)
		a->port_tun_fd[i] = -1;
	for (unsigned s = 0; s < CFG_SUBIF_MAX; s++)
		a->sub[s].set.tun_fd = -1;
	for (unsigned v = 0; v < VC_MAX; v++)
		a->vc_of_pvc[v] = a->pvc_of_vc[v] = v < cfg->npvcs ? (int16_t)v : -1;
	/* With subinterfaces, PVCs may be added at runtime: the table is there for them. */
	if (cfg->npvcs || cfg->nsubifs) {
		dp->vcs = calloc(VC_MAX, sizeof(*dp->vcs));
		if (!dp->vcs) {
			free(a);
			return NULL;
		}
		dp->nvcs = cfg->npvcs;
	}
	return a;
}

void atm_free(struct atm_ctl *a)
{
	if (!a)
		return;
	for (unsigned s = 0; s < CFG_SUBIF_MAX; s++) {
		if (a->sub[s].ev)
			event_free(a->sub[s].ev);
		if (a->sub[s].set.tun_fd >= 0)
			close(a->sub[s].set.tun_fd);
	}
	for (unsigned i = 0; i < PORT_MAX; i++) {
		if (a->atmsock[i])
			atmsock_port_fini(&a->dp->ports[i]);
		if (a->port_tun_fd[i] >= 0)
			close(a->port_tun_fd[i]);
		free(a->pw[i]);
	}
	for (unsigned v = 0; a->dp->vcs && v < a->dp->nvcs; v++)
		atm_capture_close(a, v);
	free(a->dp->vcs);
	a->dp->vcs = NULL;
	a->dp->nvcs = 0;
	free(a);
}

static void vc_cfg_fill(struct atm_vc_cfg *v, const struct cfg *cfg, const struct cfg_pvc *pc)
{
	const struct cfg_subif *sub = &cfg->subifs[pc->subif];

	*v = (struct atm_vc_cfg){
	    .atm_port = (uint16_t)sub->port,
	    .subif = (uint16_t)(cfg->nports + pc->subif),
	    .vpi = pc->vpi,
	    .vci = pc->vci,
	    .encap = pc->encap == CFG_ENCAP_VCMUX_IPV4 ? VC_ENCAP_VCMUX_IPV4 : VC_ENCAP_LLC_SNAP,
	    .cbr = pc->service == CFG_SERVICE_CBR,
	    .mtu = pc->mtu,
	    .pcr = pc->pcr,
	    .queue_cells = pc->queue_cells,
	    .reasm_timeout_ms = pc->reasm_timeout_ms,
	    .oam_enabled = pc->oam_enabled,
	    .oam_interval_ms = pc->oam_interval_ms,
	    .oam_retry_ms = pc->oam_retry_ms,
	    .oam_down_count = pc->oam_down_count,
	    .oam_up_count = pc->oam_up_count,
	    .inatmarp = pc->inatmarp,
	    .inatmarp_interval_ms = pc->inatmarp_interval_ms,
	};
}

/* Close VC v's capture file, saying so if records were lost. */
static void atm_capture_close(struct atm_ctl *a, unsigned v)
{
	struct atm_vc *vc = &a->dp->vcs[v];
	int err;

	if (!vc->cap)
		return;
	err = pcap_sunatm_close(vc->cap);
	if (err)
		log_warnx("capture of VC %u/%u: %s: records lost", vc->cfg.vpi, vc->cfg.vci,
		          strerror(-err));
	free(vc->cap);
	free(vc->cap_buf);
	vc->cap = NULL;
	vc->cap_buf = NULL;
}

/* VC v with a capture-file: open it. Failing to is logged, and the VC runs uncaptured. */
static void atm_capture_open(struct atm_ctl *a, unsigned v, const char *path)
{
	struct atm_vc *vc = &a->dp->vcs[v];
	int err;

	if (!path[0])
		return;
	vc->cap = calloc(1, sizeof(*vc->cap));
	vc->cap_buf = malloc(CELLPW_SDU_MAX);
	if (!vc->cap || !vc->cap_buf) {
		log_warnx("capture %s: out of memory", path);
	} else if ((err = pcap_sunatm_open(vc->cap, path)) != 0) {
		log_warnx("capture %s: %s; VC %u/%u runs without it", path, strerror(-err),
		          vc->cfg.vpi, vc->cfg.vci);
	} else {
		log_info("VC %u/%u: capturing AAL5 SDUs to %s", vc->cfg.vpi, vc->cfg.vci, path);
		return;
	}
	free(vc->cap);
	free(vc->cap_buf);
	vc->cap = NULL;
	vc->cap_buf = NULL;
}

/*
 * A Linux ATM socket port: the adapter does SAR, one AAL5 socket per PVC.
 * On a kernel without ATM its queue_open fails with a message naming
 * CONFIG_ATM; forwarding over it is not wired up yet (see README, Status).
 */
static int atmsock_setup(struct atm_ctl *a, unsigned i)
{
	const struct cfg *cfg = a->cfg;
	struct port *pt = &a->dp->ports[i];
	int err = atmsock_port_init(pt, cfg->ports[i].atmsock.itf);

	if (err) {
		log_warnx("port %s: driver atmsock: interface %d: %s", pt->name,
		          cfg->ports[i].atmsock.itf, strerror(-err));
		return err;
	}
	a->atmsock[i] = true;
	for (unsigned v = 0; v < cfg->npvcs; v++) {
		const struct cfg_pvc *pc = &cfg->pvcs[v];
		if (cfg->subifs[pc->subif].port != i)
			continue;
		err = atmsock_pvc_add(pt, pc->vpi, pc->vci, pc->service == CFG_SERVICE_CBR, pc->pcr,
		                      atmsock_max_sdu(pc->mtu, pc->encap == CFG_ENCAP_LLC_SNAP));
		if (err < 0) {
			log_warnx("port %s: PVC %u/%u: %s", pt->name, pc->vpi, pc->vci,
			          strerror(-err));
			return err;
		}
	}
	pt->mtu = ATM_PORT_MTU;
	return 0;
}

int atm_port_setup(struct atm_ctl *a, unsigned i)
{
	const struct cfg *cfg = a->cfg;
	const struct cfg_port *cp = &cfg->ports[i];
	struct port *pt = &a->dp->ports[i];
	struct cellpw_settings *set;
	int err;

	snprintf(pt->name, sizeof(pt->name), "%s", cp->name);
	snprintf(pt->netdev, sizeof(pt->netdev), "%s", cp->name);
	pt->id = (uint16_t)i;
	pt->settings = cp->settings;
	pt->ops = port_ops_find(cp->driver);
	if (!pt->ops) {
		log_warnx("port %s: unknown driver '%s'", cp->name, cp->driver);
		return -EINVAL;
	}
	if (cp->kind == CFG_PORT_ATMSOCK)
		return atmsock_setup(a, i);
	if (cfg->workers != 1) {
		log_warnx("port %s: ATM ports are served by one worker for now; set system/workers "
		          "to 1 (configured: %u)",
		          cp->name, cfg->workers);
		return -EINVAL;
	}
	set = a->pw[i] = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	snprintf(set->carrier, sizeof(set->carrier), "%s", cp->netdev);
	if ((err = netdev_lookup(cp->netdev, &set->carrier_ifindex, set->carrier_mac,
	                         &set->carrier_mtu)) != 0)
		return err;
	if ((err = netdev_set_up(set->carrier_ifindex)) != 0)
		return err;
	netdev_gro_off(cp->netdev);
	memcpy(set->encap.dst, cp->cellpw.peer_mac, 6);
	memcpy(set->encap.src, set->carrier_mac, 6);
	set->encap.label = cp->cellpw.pw_label;
	set->encap.control_word = cp->cellpw.control_word;
	set->max_cells = cp->cellpw.max_cells;
	set->concat_us = cp->cellpw.concat_us;
	set->vcs = a->dp->vcs;
	for (unsigned v = 0; v < cfg->npvcs; v++) {
		const struct cfg_pvc *pc = &cfg->pvcs[v];
		if (cfg->subifs[pc->subif].port != i)
			continue;
		vc_cfg_fill(&a->dp->vcs[v].cfg, cfg, pc);
		set->vc_ids[set->nvcs++] = (uint16_t)v;
		atm_capture_open(a, v, pc->pcap);
	}
	for (unsigned s = 0; s < cfg->nsubifs; s++)
		if (cfg->subifs[s].port == i && cfg->subifs[s].naddrs)
			set->ip4_of_subif[cfg->nports + s] = cfg->subifs[s].addrs[0].addr;
	memcpy(pt->mac, set->carrier_mac, 6);
	pt->mtu = ATM_PORT_MTU;
	pt->drv = set;
	/* The ATM port's own netdev: its ifindex is the port's identity (IF-MIB, ATM-MIB). */
	return tun_create(cp->name, ATM_PORT_MTU, &a->port_tun_fd[i], &pt->ifindex);
}

int atm_subif_setup(struct atm_ctl *a, unsigned s)
{
	const struct cfg *cfg = a->cfg;
	const struct cfg_subif *cs = &cfg->subifs[s];
	unsigned id = cfg->nports + s;
	struct port *pt = &a->dp->ports[id];
	struct atm_subif_rt *rt = &a->sub[s];
	uint32_t mtu = 0;
	int err;

	rt->a = a;
	rt->s = s;
	rt->port = (uint16_t)id;
	snprintf(pt->name, sizeof(pt->name), "%s", cs->name);
	snprintf(pt->netdev, sizeof(pt->netdev), "%s", cs->name);
	pt->id = (uint16_t)id;
	pt->ops = &port_atmsub_ops;
	pt->ip4_addr = cs->naddrs ? cs->addrs[0].addr : 0;
	rt->set.atm_port = &a->dp->ports[cs->port];
	rt->set.p2p = cs->type == CFG_SUBIF_P2P;
	/* The subinterface's MTU: the smallest of its VCs', so any VC can carry what fits. */
	for (unsigned v = 0; v < cfg->npvcs; v++) {
		if (cfg->pvcs[v].subif != s)
			continue;
		if (mtu == 0 || cfg->pvcs[v].mtu < mtu)
			mtu = cfg->pvcs[v].mtu;
		rt->set.p2p_vc = (uint16_t)v;
	}
	pt->mtu = mtu ? mtu : ATM_PORT_MTU;
	pt->drv = &rt->set;
	if (cfg->ports[cs->port].kind != CFG_PORT_CELLPW) {
		log_warnx("interface %s: port %s: only cellpw ports carry subinterfaces for now",
		          cs->name, cfg->ports[cs->port].name);
		return -EOPNOTSUPP;
	}
	if ((err = tun_create(cs->name, pt->mtu, &rt->set.tun_fd, &pt->ifindex)) != 0)
		return err;
	for (unsigned i = 0; i < cs->naddrs; i++)
		if ((err = netdev_addr4_add(pt->ifindex, cs->addrs[i].addr, cs->addrs[i].plen)) !=
		    0)
			return err;
	return 0;
}

/* The VC of subinterface rt a packet for `ip` leaves on, or -1. */
static int subif_vc_for(const struct atm_subif_rt *rt, uint32_t ip)
{
	const struct atm_ctl *a = rt->a;
	const struct cfg *cfg = a->cfg;

	if (rt->set.p2p)
		return rt->set.p2p_vc;
	for (unsigned v = 0; v < cfg->npvcs; v++) {
		if (cfg->pvcs[v].subif != rt->s)
			continue;
		int id = a->vc_of_pvc[v];
		if (cfg->pvcs[v].peer_addr == ip ||
		    (a->learned[id] == ip &&
		     a->now_ms - a->learned_ms[id] <=
		         (cfg->pvcs[v].inatmarp_interval_ms * 3 > LEARNED_TTL_MIN
		              ? (uint64_t)cfg->pvcs[v].inatmarp_interval_ms * 3
		              : LEARNED_TTL_MIN)))
			return id;
	}
	return -1;
}

/* neigh_resolver_fn: the next hop's "MAC" is the VC's synthetic address. */
static bool atm_resolve(void *arg, uint16_t port, uint32_t ip, uint8_t mac[6])
{
	struct atm_ctl *a = arg;
	int vc;

	if (port < a->cfg->nports)
		return false;
	a->now_ms = mono_ms();
	vc = subif_vc_for(&a->sub[port - a->cfg->nports], ip);
	if (vc < 0)
		return false;
	vc_mac_make((uint16_t)vc, mac);
	return true;
}

/* The kernel sent packets into a subinterface: send them down the VC towards their next hop. */
static void tun_readable(evutil_socket_t fd, short what, void *arg)
{
	struct atm_subif_rt *rt = arg;
	struct atm_ctl *a = rt->a;
	uint8_t buf[HOST_RING_BUF];

	(void)what;
	a->now_ms = mono_ms();
	for (unsigned i = 0; i < TUN_READS_MAX; i++) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		uint32_t dst =
		    n >= 20 && (buf[0] >> 4) == 4
		        ? (uint32_t)buf[16] << 24 | buf[17] << 16 | buf[18] << 8 | buf[19]
		        : 0;
		int vc = subif_vc_for(rt, dst);
		if (vc < 0 && dst) {
			/* Not a direct peer: the gateway our FIB uses for it on this subinterface.
			 */
			uint32_t g = fib4_lookup(a->dp->fib, dst);
			if (g) {
				const struct nexthop *nh =
				    &a->dp->nht->nh[a->dp->nht->nhg[g].slot[0]];
				if (nh->port == rt->port && nh->gw)
					vc = subif_vc_for(rt, nh->gw);
			}
		}
		if (vc < 0 || !cellpw_host_tx(rt->set.atm_port, (uint16_t)vc, buf, (size_t)n))
			rt->host_tx_drops++;
	}
}

int atm_start(struct atm_ctl *a, struct event_base *base, struct neigh_table *nt)
{
	a->nt = nt;
	for (unsigned s = 0; s < a->cfg->nsubifs; s++) {
		struct atm_subif_rt *rt = &a->sub[s];
		neigh_set_resolver(nt, rt->port, atm_resolve, a);
		rt->ev = event_new(base, rt->set.tun_fd, EV_READ | EV_PERSIST, tun_readable, rt);
		if (!rt->ev || event_add(rt->ev, NULL) != 0) {
			log_warnx("interface %s: cannot watch its TUN", a->cfg->subifs[s].name);
			return -ENOMEM;
		}
	}
	return 0;
}

static void vc_name(const struct atm_ctl *a, unsigned vc, char *buf, size_t len)
{
	const struct cfg_pvc *pc = &a->cfg->pvcs[a->pvc_of_vc[vc]];
	const struct cfg_subif *sub = &a->cfg->subifs[pc->subif];

	snprintf(buf, len, "%s VC %u/%u (%s)", a->cfg->ports[sub->port].name, pc->vpi, pc->vci,
	         sub->name);
}

static void atm_event(struct atm_ctl *a, const struct dp_event *ev, uint64_t now)
{
	char name[96], b[INET_ADDRSTRLEN];
	uint8_t mac[6];

	/* A VC deleted at runtime may have left events behind (atm_pvc_commit drains them). */
	if (ev->vc >= VC_MAX || a->pvc_of_vc[ev->vc] < 0)
		return;
	int pvc = a->pvc_of_vc[ev->vc];
	vc_name(a, ev->vc, name, sizeof(name));
	switch (ev->type) {
	case DP_EV_VC_STATE:
		/* Counted per VC in any case (oper-changes); the log is limited, as many
		 * flapping VCs could otherwise write hundreds of lines a second. */
		if (!log_limit_pass(&a->state_log, now / 1000, ATM_STATE_WHAT)) {
			/* suppressed: counted by the limiter */
		} else if (ev->val == VC_OPER_DOWN)
			log_warnx("%s: oper down: %u OAM loopbacks lost in a row", name,
			          a->cfg->pvcs[pvc].oam_down_count);
		else
			log_info("%s: oper up: %u OAM loopbacks answered", name,
			         a->cfg->pvcs[pvc].oam_up_count);
		if (a->vc_state_fn)
			a->vc_state_fn(a->vc_state_arg, ev->vc, (uint8_t)ev->val);
		break;
	case DP_EV_INATMARP:
		if (a->learned[ev->vc] != ev->ip &&
		    log_limit_pass(&a->inatmarp_log, now / 1000, ATM_INATMARP_WHAT))
			log_info("%s: InATMARP: far end is %s", name, ip4_str(ev->ip, b));
		a->learned[ev->vc] = ev->ip;
		a->learned_ms[ev->vc] = now;
		vc_mac_make(ev->vc, mac);
		neigh_seen(a->nt, ev->port, ev->ip, mac, now);
		break;
	case DP_EV_VC_PING:
		a->last_rtt_us[ev->vc] = ev->val;
		if (ev->val)
			log_info("%s: OAM loopback answered in %u us", name, ev->val);
		else {
			a->pings_lost[ev->vc]++;
			log_info("%s: OAM loopback not answered", name);
		}
		if (a->ping_cb)
			a->ping_cb(a->ping_arg, ev->vc, ev->val);
		break;
	default:
		break;
	}
}

void atm_poll_events(struct atm_ctl *a, uint64_t now_ms)
{
	a->now_ms = now_ms;
	log_limit_tick(&a->state_log, now_ms / 1000, ATM_STATE_WHAT);
	log_limit_tick(&a->inatmarp_log, now_ms / 1000, ATM_INATMARP_WHAT);
	for (unsigned p = 0; p < a->cfg->nports; p++) {
		struct event_ring *r;
		struct dp_event ev;

		if (!a->pw[p] || !(r = cellpw_events(&a->dp->ports[p])))
			continue;
		while (event_ring_pop(r, &ev))
			atm_event(a, &ev, now_ms);
	}
}

int atm_vc_ping(struct atm_ctl *a, unsigned vc)
{
	if (!a->dp->vcs || vc >= VC_MAX || a->pvc_of_vc[vc] < 0)
		return -ENOENT;
	__atomic_add_fetch(&a->dp->vcs[vc].ping_req, 1, __ATOMIC_RELEASE);
	return 0;
}

/* The TUN readers' drops, counted here, join the datapath's on the ATM port. */
void atm_stats_fixup(const struct atm_ctl *a, struct stats_snapshot *s)
{
	for (unsigned i = 0; i < a->cfg->nsubifs; i++)
		if (s->is_atm[a->cfg->subifs[i].port])
			s->atm[a->cfg->subifs[i].port].host_tx_drops += a->sub[i].host_tx_drops;
}

bool atm_vc_learned(const struct atm_ctl *a, unsigned vc, uint32_t *ip, uint64_t *age_ms)
{
	if (vc >= VC_MAX || a->pvc_of_vc[vc] < 0 || !a->learned[vc])
		return false;
	*ip = a->learned[vc];
	*age_ms = mono_ms() - a->learned_ms[vc];
	return true;
}

void atm_set_vc_state_hook(struct atm_ctl *a, atm_vc_state_fn fn, void *arg)
{
	a->vc_state_fn = fn;
	a->vc_state_arg = arg;
}

int atm_capture_start(struct atm_ctl *a, unsigned v, const char *path)
{
	struct atm_vc *vc;
	struct pcap_sunatm *cap;
	uint8_t *buf;
	int err;

	if (!a->dp->vcs || v >= VC_MAX || a->pvc_of_vc[v] < 0 ||
	    !a->pw[a->cfg->pvcs[a->pvc_of_vc[v]].port])
		return -ENOENT;
	vc = &a->dp->vcs[v];
	if (__atomic_load_n(&vc->cap, __ATOMIC_ACQUIRE))
		return -EBUSY;
	cap = calloc(1, sizeof(*cap));
	buf = malloc(CELLPW_SDU_MAX);
	if (!cap || !buf) {
		free(cap);
		free(buf);
		return -ENOMEM;
	}
	if ((err = pcap_sunatm_open(cap, path)) != 0) {
		free(cap);
		free(buf);
		return err;
	}
	/* The buffer and the open file first, then the pointer the worker tests (vc.h). */
	vc->cap_buf = buf;
	__atomic_store_n(&vc->cap, cap, __ATOMIC_RELEASE);
	log_info("VC %u/%u: capturing AAL5 SDUs to %s", vc->cfg.vpi, vc->cfg.vci, path);
	return 0;
}

int atm_capture_stop(struct atm_ctl *a, unsigned v)
{
	struct atm_vc *vc;
	struct pcap_sunatm *cap;
	int err;

	if (!a->dp->vcs || v >= VC_MAX || a->pvc_of_vc[v] < 0)
		return -ENOENT;
	vc = &a->dp->vcs[v];
	cap = __atomic_load_n(&vc->cap, __ATOMIC_ACQUIRE);
	if (!cap)
		return -ENOENT;
	__atomic_store_n(&vc->cap, NULL, __ATOMIC_RELEASE);
	/* The worker may be inside a write: free only after it passed a quiescent state. */
	synchronize_rcu();
	err = pcap_sunatm_close(cap);
	free(cap);
	free(vc->cap_buf);
	vc->cap_buf = NULL;
	log_info("VC %u/%u: capture stopped%s", vc->cfg.vpi, vc->cfg.vci,
	         err ? ": records were lost" : "");
	return err;
}

void atm_vc_info(const struct atm_ctl *a, unsigned vc, struct atm_vc_info *out)
{
	*out = (struct atm_vc_info){0};
	if (vc >= VC_MAX || a->pvc_of_vc[vc] < 0)
		return;
	out->peer_learned = a->learned[vc] != 0;
	out->peer = a->learned[vc] ? a->learned[vc] : a->cfg->pvcs[a->pvc_of_vc[vc]].peer_addr;
	out->last_rtt_us = a->last_rtt_us[vc];
}

const char *atm_port_carrier(const struct atm_ctl *a, unsigned port)
{
	return port < PORT_MAX && a->pw[port] ? a->pw[port]->carrier : "";
}

void atm_set_ping_cb(struct atm_ctl *a, atm_ping_fn fn, void *arg)
{
	a->ping_cb = fn;
	a->ping_arg = arg;
}

void atm_stats_json(const struct atm_ctl *a, const struct stats_snapshot *s, FILE *out)
{
	char b[INET_ADDRSTRLEN];

	fputs(",\"vcs\":[", out);
	/* In configuration order (port, VPI, VCI), whatever slots runtime changes gave them. */
	for (unsigned i = 0, first = 1; i < a->cfg->npvcs; i++) {
		unsigned v = (unsigned)a->vc_of_pvc[i];
		if (v >= s->nvcs)
			continue;
		const struct stats_vc *sv = &s->vc[v];
		const struct vc_counters *c = &sv->c;
		const struct cfg_pvc *pc = &a->cfg->pvcs[i];

		fprintf(out,
		        "%s{\"port\":\"%s\",\"interface\":\"%s\",\"vpi\":%u,\"vci\":%u,"
		        "\"oper\":\"%s\",\"oper-change-ms\":%lu,\"peer\":\"%s\"",
		        first ? "" : ",", a->dp->ports[sv->atm_port].name,
		        a->dp->ports[sv->subif].name, sv->vpi, sv->vci,
		        sv->oper == VC_OPER_UP ? "up" : "down", sv->oper_change_ms,
		        ip4_str(a->learned[v] ? a->learned[v] : pc->peer_addr, b));
		stats_fields_json(out, vc_counter_fields, c, false);
		fprintf(out, ",\"last-ping-rtt-us\":%u,\"discards-total\":%lu,\"discards\":{",
		        a->last_rtt_us[v], sv->discards_total);
		for (unsigned r = 0; r < VC_DROP__MAX; r++)
			fprintf(out, "%s\"%s\":%lu", r ? "," : "", vc_drop_name[r], c->discards[r]);
		fputs("}}", out);
		first = 0;
	}
	fputs("],\"atm-ports\":[", out);
	bool first = true;
	for (unsigned p = 0; p < a->dp->nports; p++) {
		const struct atm_port_counters *c = &s->atm[p];

		if (!s->is_atm[p])
			continue;
		/* The TUN readers' drops are in the snapshot already (atm_stats_fixup). */
		struct atm_port_counters ac = *c;

		fprintf(out, "%s{\"name\":\"%s\",\"carrier\":\"%s\"", first ? "" : ",",
		        a->dp->ports[p].name, a->pw[p] ? a->pw[p]->carrier : "");
		stats_fields_json(out, atm_port_counter_fields, &ac, false);
		fputc('}', out);
		first = false;
	}
	fputc(']', out);
}

int atm_vc_of_pvc(const struct atm_ctl *a, unsigned pvc)
{
	return pvc < a->cfg->npvcs ? a->vc_of_pvc[pvc] : -1;
}

int atm_pvc_of_vc(const struct atm_ctl *a, unsigned vc)
{
	return vc < VC_MAX ? a->pvc_of_vc[vc] : -1;
}

struct atm_pvc_change {
	unsigned nadd, ndel;
	uint16_t add_vc[VC_MAX];
	unsigned add_pvc[VC_MAX]; /* its index in next->pvcs */
	uint16_t del_vc[VC_MAX];
	uint8_t adds[VC_MAX], dels[VC_MAX];
	int16_t map[VC_MAX];                /* next->pvcs index -> VC id */
	struct cellpw_vcset *set[PORT_MAX]; /* next set of each port that changes */
};

bool atm_pvc_change_adds(const struct atm_pvc_change *ch, unsigned vc)
{
	return ch && vc < VC_MAX && ch->adds[vc];
}

bool atm_pvc_change_deletes(const struct atm_pvc_change *ch, unsigned vc)
{
	return ch && vc < VC_MAX && ch->dels[vc];
}

/* PVC pc of cfg: can it be added (or deleted) while the workers run? 0 or -EOPNOTSUPP. */
static int pvc_runtime_ok(const struct atm_ctl *a, const struct cfg *cfg, const struct cfg_pvc *pc,
                          bool add, char *msg, size_t mlen, char *path, size_t plen)
{
	const struct cfg_subif *sub = &cfg->subifs[pc->subif];
	const struct port *sp = &a->dp->ports[cfg->nports + pc->subif];

	snprintf(
	    path, plen,
	    "/cellgate:cellgate/port[name='%s']/subinterface[name='%s']/pvc[vpi='%u'][vci='%u']",
	    cfg->ports[sub->port].name, sub->name, pc->vpi, pc->vci);
	if (cfg->ports[sub->port].kind != CFG_PORT_CELLPW || !a->pw[sub->port] ||
	    !cellpw_queue_of(&a->dp->ports[sub->port])) {
		snprintf(msg, mlen,
		         "PVCs of port %s (driver %s) cannot be changed at runtime yet: edit the "
		         "startup file and restart",
		         cfg->ports[sub->port].name, cfg->ports[sub->port].driver);
		return -EOPNOTSUPP;
	}
	if (sub->type == CFG_SUBIF_P2P) {
		snprintf(msg, mlen,
		         "interface %s is point-to-point: its one PVC cannot be changed at runtime "
		         "yet: edit the startup file and restart",
		         sub->name);
		return -EOPNOTSUPP;
	}
	/* The subinterface's MTU is its smallest PVC's, fixed when its TUN was made. */
	if (add && pc->mtu < sp->mtu) {
		snprintf(msg, mlen,
		         "MTU %u is below interface %s's MTU %u; a PVC that lowers it needs a "
		         "restart",
		         pc->mtu, sub->name, sp->mtu);
		return -EOPNOTSUPP;
	}
	return 0;
}

void atm_pvc_abort(struct atm_ctl *a, struct atm_pvc_change *ch)
{
	if (!ch)
		return;
	/* Nothing was published: no worker has seen these. */
	for (unsigned i = 0; i < ch->nadd; i++)
		cellpw_vc_release(&a->dp->vcs[ch->add_vc[i]]);
	for (unsigned p = 0; p < PORT_MAX; p++)
		free(ch->set[p]);
	free(ch);
}

/* Each changed port's next VC set: the current one less deletions, plus additions. */
static int pvc_build_sets(struct atm_ctl *a, struct atm_pvc_change *ch)
{
	bool changed[PORT_MAX] = {false};

	for (unsigned i = 0; i < ch->ndel; i++)
		changed[a->dp->vcs[ch->del_vc[i]].cfg.atm_port] = true;
	for (unsigned i = 0; i < ch->nadd; i++)
		changed[a->dp->vcs[ch->add_vc[i]].cfg.atm_port] = true;
	for (unsigned p = 0; p < PORT_MAX; p++) {
		if (!changed[p])
			continue;
		struct cellpw_queue *c = cellpw_queue_of(&a->dp->ports[p]);
		const struct cellpw_vcset *cur = cellpw_vcset_current(c);
		uint16_t ids[CELLPW_PORT_VCS];
		unsigned n = 0;

		for (unsigned i = 0; i < cur->nvcs; i++)
			if (!ch->dels[cur->ids[i]])
				ids[n++] = cur->ids[i];
		for (unsigned i = 0; i < ch->nadd; i++)
			if (a->dp->vcs[ch->add_vc[i]].cfg.atm_port == p && n < CELLPW_PORT_VCS)
				ids[n++] = ch->add_vc[i];
		if (!(ch->set[p] = cellpw_vcset_build(c, ids, n)))
			return -ENOMEM;
	}
	return 0;
}

int atm_pvc_prepare(struct atm_ctl *a, const struct cfg *next, struct atm_pvc_change **out,
                    char *msg, size_t msg_len, char *path, size_t path_len)
{
	const struct cfg *cur = a->cfg;
	struct atm_pvc_change *ch;
	bool kept[VC_MAX] = {false};
	int err;

	*out = NULL;
	if (cur->npvcs == next->npvcs &&
	    (!cur->npvcs || !memcmp(cur->pvcs, next->pvcs, sizeof(*cur->pvcs) * cur->npvcs)))
		return 0;
	if (!a->dp->vcs || !(ch = calloc(1, sizeof(*ch)))) {
		snprintf(msg, msg_len, "out of memory");
		path[0] = '\0';
		return -ENOMEM;
	}
	/*
	 * Events still queued may name VC ids this change frees or reuses: take
	 * them now, while the configuration and the maps still agree.
	 */
	atm_poll_events(a, mono_ms());
	/* An unchanged PVC keeps its VC; any difference is a delete and an add. */
	for (unsigned j = 0; j < next->npvcs; j++) {
		ch->map[j] = -1;
		for (unsigned i = 0; i < cur->npvcs; i++)
			if (!kept[i] &&
			    !memcmp(&cur->pvcs[i], &next->pvcs[j], sizeof(cur->pvcs[i]))) {
				kept[i] = true;
				ch->map[j] = a->vc_of_pvc[i];
				break;
			}
	}
	for (unsigned i = 0; i < cur->npvcs; i++) {
		if (kept[i])
			continue;
		if ((err = pvc_runtime_ok(a, cur, &cur->pvcs[i], false, msg, msg_len, path,
		                          path_len)) != 0)
			goto fail;
		ch->del_vc[ch->ndel++] = (uint16_t)a->vc_of_pvc[i];
		ch->dels[a->vc_of_pvc[i]] = 1;
	}
	for (unsigned j = 0, slot = 0; j < next->npvcs; j++) {
		if (ch->map[j] >= 0)
			continue;
		if ((err = pvc_runtime_ok(a, next, &next->pvcs[j], true, msg, msg_len, path,
		                          path_len)) != 0)
			goto fail;
		/* Only ids free now: those this change deletes wait for its grace period. */
		while (slot < VC_MAX && a->pvc_of_vc[slot] >= 0)
			slot++;
		if (slot == VC_MAX) {
			snprintf(msg, msg_len, "no free VC: at most %u PVCs", VC_MAX);
			err = -ENOSPC;
			goto fail;
		}
		vc_cfg_fill(&a->dp->vcs[slot].cfg, next, &next->pvcs[j]);
		if ((err = cellpw_vc_open(cellpw_queue_of(&a->dp->ports[next->pvcs[j].port]),
		                          (uint16_t)slot)) != 0) {
			snprintf(msg, msg_len, "out of memory for the PVC's buffers");
			goto fail;
		}
		ch->map[j] = (int16_t)slot;
		ch->adds[slot] = 1;
		ch->add_pvc[ch->nadd] = j;
		ch->add_vc[ch->nadd++] = (uint16_t)slot++;
	}
	if ((err = pvc_build_sets(a, ch)) != 0) {
		snprintf(msg, msg_len, "out of memory");
		path[0] = '\0';
		goto fail;
	}
	*out = ch;
	return 0;
fail:
	atm_pvc_abort(a, ch);
	return err;
}

void atm_pvc_commit(struct atm_ctl *a, struct atm_pvc_change *ch, const struct cfg *next)
{
	struct cellpw_vcset *old[PORT_MAX] = {NULL};
	char name[96];
	uint8_t mac[6];

	if (!ch)
		return;
	for (unsigned i = 0; i < ch->nadd; i++) {
		unsigned v = ch->add_vc[i];
		a->learned[v] = 0;
		a->learned_ms[v] = 0;
		a->last_rtt_us[v] = 0;
		a->pings_lost[v] = 0;
		/* Before it is published, like the rest of the VC (vc.h). */
		atm_capture_open(a, v, next->pvcs[ch->add_pvc[i]].pcap);
	}
	for (unsigned p = 0; p < PORT_MAX; p++)
		if (ch->set[p])
			old[p] = cellpw_vcset_swap(cellpw_queue_of(&a->dp->ports[p]), ch->set[p]);
	/* Next hops naming a deleted VC go back to unresolved before its id can be reused. */
	for (unsigned i = 0; i < ch->ndel; i++) {
		vc_mac_make(ch->del_vc[i], mac);
		neigh_forget_mac(a->nt, a->dp->vcs[ch->del_vc[i]].cfg.subif, mac);
	}
	/* After this no worker holds the old sets or touches a deleted VC. */
	synchronize_rcu();
	for (unsigned p = 0; p < PORT_MAX; p++)
		free(old[p]);
	for (unsigned i = 0; i < ch->ndel; i++) {
		unsigned v = ch->del_vc[i];
		vc_name(a, v, name, sizeof(name));
		log_info("%s: deleted (VC id %u)", name, v);
		atm_capture_close(a, v);
		cellpw_vc_release(&a->dp->vcs[v]);
		a->learned[v] = 0;
		a->last_rtt_us[v] = 0;
	}
	for (unsigned v = 0; v < VC_MAX; v++)
		a->vc_of_pvc[v] = a->pvc_of_vc[v] = -1;
	for (unsigned j = 0; j < next->npvcs; j++) {
		a->vc_of_pvc[j] = ch->map[j];
		a->pvc_of_vc[ch->map[j]] = (int16_t)j;
		if ((unsigned)ch->map[j] >= a->dp->nvcs)
			a->dp->nvcs =
			    (unsigned)ch->map[j] + 1; /* readers skip ids no PVC maps to */
	}
	for (unsigned i = 0; i < ch->nadd; i++) {
		const struct cfg_pvc *pc = &next->pvcs[ch->add_pvc[i]];
		log_info("%s VC %u/%u (%s): added (VC id %u)", next->ports[pc->port].name, pc->vpi,
		         pc->vci, next->subifs[pc->subif].name, ch->add_vc[i]);
	}
	free(ch);
}
