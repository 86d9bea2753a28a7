/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PVCs added and deleted at runtime (RESTCONF, SIGHUP): prepare (refuse what
 * cannot change now, take VC ids and buffers, build the next VC sets, all
 * unpublished), then commit (publish, one RCU grace period, free) or abort.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <urcu-qsbr.h>

#include "daemon/atm_priv.h"
#include "lib/clock.h"

struct atm_pvc_change {
	unsigned nadd, ndel;
	uint16_t add_vc[VC_MAX];
	unsigned add_pvc[VC_MAX]; /* its index in next->pvcs */
	uint16_t del_vc[VC_MAX];
	uint8_t adds[VC_MAX], dels[VC_MAX];
	int16_t map[VC_MAX];             /* next->pvcs index -> VC id */
	struct atm_vcset *set[PORT_MAX]; /* next set of each port that changes */
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
	if ((!a->pw[sub->port] && !a->as[sub->port]) || !atm_portq_of(&a->dp->ports[sub->port])) {
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

/* VC v's buffers (cellpw) or socket (atmsock), before any published set names it. */
static int pvc_vc_open(struct atm_ctl *a, unsigned v, char *msg, size_t msg_len)
{
	struct port *p = &a->dp->ports[a->dp->vcs[v].cfg.atm_port];
	int err;

	if (a->as[p->id] && (err = atmsock_vc_open(p, (uint16_t)v)) != 0)
		snprintf(msg, msg_len, "the adapter refused the PVC (the log says why)");
	else if (!a->as[p->id] && (err = cellpw_vc_open(cellpw_queue_of(p), (uint16_t)v)) != 0) {
		if (err == -EINVAL)
			snprintf(msg, msg_len, "MTU %u outside 68..%u, what the SDU buffers hold",
			         a->dp->vcs[v].cfg.mtu, CELLPW_MTU_MAX);
		else
			snprintf(msg, msg_len, "out of memory for the PVC's buffers");
	} else
		err = 0;
	return err;
}

/* ... and gone again, once none does and no worker can still touch it. */
static void pvc_vc_free(struct atm_ctl *a, unsigned v)
{
	struct port *p = &a->dp->ports[a->dp->vcs[v].cfg.atm_port];

	if (a->as[p->id])
		atmsock_vc_close(p, (uint16_t)v);
	atm_vc_release(&a->dp->vcs[v]);
}

void atm_pvc_abort(struct atm_ctl *a, struct atm_pvc_change *ch)
{
	if (!ch)
		return;
	/* Nothing was published: no worker has seen these. */
	for (unsigned i = 0; i < ch->nadd; i++)
		pvc_vc_free(a, ch->add_vc[i]);
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
		struct atm_portq *q = atm_portq_of(&a->dp->ports[p]);
		const struct atm_vcset *cur = atm_vcset_current(q);
		uint16_t ids[ATM_PORT_VCS];
		unsigned n = 0;

		for (unsigned i = 0; i < cur->nvcs; i++)
			if (!ch->dels[cur->ids[i]])
				ids[n++] = cur->ids[i];
		for (unsigned i = 0; i < ch->nadd; i++)
			if (a->dp->vcs[ch->add_vc[i]].cfg.atm_port == p && n < ATM_PORT_VCS)
				ids[n++] = ch->add_vc[i];
		if (!(ch->set[p] = atm_vcset_build(q, ids, n)))
			return -ENOMEM;
	}
	return 0;
}

static bool pvcs_same(const struct cfg *cur, const struct cfg *next)
{
	if (cur->npvcs != next->npvcs)
		return false;
	for (unsigned i = 0; i < cur->npvcs; i++)
		if (!cfg_pvc_same(&cur->pvcs[i], &next->pvcs[i]))
			return false;
	return true;
}

int atm_pvc_prepare(struct atm_ctl *a, const struct cfg *next, struct atm_pvc_change **out,
                    char *msg, size_t msg_len, char *path, size_t path_len)
{
	const struct cfg *cur = a->cfg;
	struct atm_pvc_change *ch;
	bool kept[VC_MAX] = {false};
	int err;

	*out = NULL;
	if (pvcs_same(cur, next))
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
			if (!kept[i] && cfg_pvc_same(&cur->pvcs[i], &next->pvcs[j])) {
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
		atm_vc_cfg_fill(&a->dp->vcs[slot].cfg, next, &next->pvcs[j]);
		if ((err = pvc_vc_open(a, slot, msg, msg_len)) != 0)
			goto fail;
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
	struct atm_vcset *old[PORT_MAX] = {NULL};
	char name[96];
	uint8_t mac[6];

	if (!ch)
		return;
	for (unsigned i = 0; i < ch->nadd; i++) {
		unsigned v = ch->add_vc[i];
		a->learned[v] = 0;
		a->learned_ms[v] = 0;
		a->last_rtt_us[v] = 0;
		/* Before it is published, like the rest of the VC (vc.h). */
		atm_capture_open(a, v, next->pvcs[ch->add_pvc[i]].pcap);
	}
	for (unsigned p = 0; p < PORT_MAX; p++)
		if (ch->set[p])
			old[p] = atm_vcset_swap(atm_portq_of(&a->dp->ports[p]), ch->set[p]);
	/* Next hops naming a deleted VC go back to unresolved before its id can be reused. */
	for (unsigned i = 0; i < ch->ndel; i++) {
		vc_mac_make(ch->del_vc[i], mac);
		neigh_forget_mac(a->nt, a->dp->vcs[ch->del_vc[i]].cfg.subif, mac);
		atm_map6_changed(a, a->dp->vcs[ch->del_vc[i]].cfg.subif);
	}
	/* An added PVC may map IPv6 next hops that failed or were mapped elsewhere. */
	for (unsigned i = 0; i < ch->nadd; i++)
		atm_map6_changed(a, a->dp->vcs[ch->add_vc[i]].cfg.subif);
	/* After this no worker holds the old sets or touches a deleted VC. */
	synchronize_rcu();
	for (unsigned p = 0; p < PORT_MAX; p++)
		free(old[p]);
	for (unsigned i = 0; i < ch->ndel; i++) {
		unsigned v = ch->del_vc[i];
		atm_vc_name(a, v, name, sizeof(name));
		log_info("%s: deleted (VC id %u)", name, v);
		atm_capture_close(a, v);
		pvc_vc_free(a, v);
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
