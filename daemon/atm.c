#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu-qsbr.h>

#include "atm.h"
#include "datapath/log.h"
#include "datapath/port_atmsock.h"
#include "datapath/port_cellpw.h"
#include "netdev.h"
#include "stats_fields.h"
#include "tun.h"
#include "clock.h"

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
	uint64_t now_ms;
	atm_vc_state_fn vc_state_fn; /* SNMP notifications */
	void *vc_state_arg;
	atm_ping_fn ping_cb;
	void *ping_arg;
};

static void atm_capture_close(struct atm_ctl *a, unsigned v);

static const char *ip_str(uint32_t ip, char *buf)
{
	struct in_addr in = {.s_addr = htonl(ip)};
	return inet_ntop(AF_INET, &in, buf, INET_ADDRSTRLEN);
}

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
	if (cfg->npvcs) {
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
		log_warnx("capture %s: %s: records lost", a->cfg->pvcs[v].pcap, strerror(-err));
	free(vc->cap);
	free(vc->cap_buf);
	vc->cap = NULL;
	vc->cap_buf = NULL;
}

/* A VC with a capture-file: open it. Failing to is logged, and the VC runs uncaptured. */
static void atm_capture_open(struct atm_ctl *a, unsigned v)
{
	struct atm_vc *vc = &a->dp->vcs[v];
	const char *path = a->cfg->pvcs[v].pcap;
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
		atm_capture_open(a, v);
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
		if ((err = netdev_addr4_add(pt->ifindex, cs->addrs[i].addr, cs->addrs[i].plen)) != 0)
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
		if (cfg->pvcs[v].peer_addr == ip ||
		    (a->learned[v] == ip &&
		     a->now_ms - a->learned_ms[v] <=
		         (cfg->pvcs[v].inatmarp_interval_ms * 3 > LEARNED_TTL_MIN
		              ? (uint64_t)cfg->pvcs[v].inatmarp_interval_ms * 3
		              : LEARNED_TTL_MIN)))
			return (int)v;
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
		uint32_t dst = n >= 20 && (buf[0] >> 4) == 4
		                   ? (uint32_t)buf[16] << 24 | buf[17] << 16 | buf[18] << 8 | buf[19]
		                   : 0;
		int vc = subif_vc_for(rt, dst);
		if (vc < 0 && dst) {
			/* Not a direct peer: the gateway our FIB uses for it on this subinterface. */
			uint32_t g = fib4_lookup(a->dp->fib, dst);
			if (g) {
				const struct nexthop *nh = &a->dp->nht->nh[a->dp->nht->nhg[g].slot[0]];
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
	const struct cfg_pvc *pc = &a->cfg->pvcs[vc];
	const struct cfg_subif *sub = &a->cfg->subifs[pc->subif];

	snprintf(buf, len, "%s VC %u/%u (%s)", a->cfg->ports[sub->port].name, pc->vpi, pc->vci,
	         sub->name);
}

static void atm_event(struct atm_ctl *a, const struct dp_event *ev, uint64_t now)
{
	char name[96], b[INET_ADDRSTRLEN];
	uint8_t mac[6];

	if (ev->vc >= a->cfg->npvcs)
		return;
	vc_name(a, ev->vc, name, sizeof(name));
	switch (ev->type) {
	case DP_EV_VC_STATE:
		if (ev->val == VC_OPER_DOWN)
			log_warnx("%s: oper down: %u OAM loopbacks lost in a row", name,
			          a->cfg->pvcs[ev->vc].oam_down_count);
		else
			log_info("%s: oper up: %u OAM loopbacks answered", name,
			         a->cfg->pvcs[ev->vc].oam_up_count);
		if (a->vc_state_fn)
			a->vc_state_fn(a->vc_state_arg, ev->vc, (uint8_t)ev->val);
		break;
	case DP_EV_INATMARP:
		if (a->learned[ev->vc] != ev->ip)
			log_info("%s: InATMARP: far end is %s", name, ip_str(ev->ip, b));
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
	if (!a->dp->vcs || vc >= a->dp->nvcs)
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
	if (vc >= a->cfg->npvcs || !a->learned[vc])
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

	if (!a->dp->vcs || v >= a->dp->nvcs || !a->pw[a->cfg->pvcs[v].port])
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

	if (!a->dp->vcs || v >= a->dp->nvcs)
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
	if (vc >= a->cfg->npvcs)
		return;
	out->peer_learned = a->learned[vc] != 0;
	out->peer = a->learned[vc] ? a->learned[vc] : a->cfg->pvcs[vc].peer_addr;
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
	for (unsigned v = 0; v < s->nvcs; v++) {
		const struct stats_vc *sv = &s->vc[v];
		const struct vc_counters *c = &sv->c;
		const struct cfg_pvc *pc = &a->cfg->pvcs[v];

		fprintf(out,
		        "%s{\"port\":\"%s\",\"interface\":\"%s\",\"vpi\":%u,\"vci\":%u,"
		        "\"oper\":\"%s\",\"oper-change-ms\":%lu,\"peer\":\"%s\"",
		        v ? "," : "", a->dp->ports[sv->atm_port].name, a->dp->ports[sv->subif].name,
		        sv->vpi, sv->vci, sv->oper == VC_OPER_UP ? "up" : "down",
		        sv->oper_change_ms,
		        ip_str(a->learned[v] ? a->learned[v] : pc->peer_addr, b));
		stats_fields_json(out, vc_counter_fields, c, false);
		fprintf(out, ",\"last-ping-rtt-us\":%u,\"discards-total\":%lu,\"discards\":{",
		        a->last_rtt_us[v], sv->discards_total);
		for (unsigned r = 0; r < VC_DROP__MAX; r++)
			fprintf(out, "%s\"%s\":%lu", r ? "," : "", vc_drop_name[r], c->discards[r]);
		fputs("}}", out);
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
