/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Comparing configurations field by field: what a runtime change may not
 * touch (cfg_restart_only_diff), and whether a PVC is unchanged
 * (cfg_pvc_same). Not memcmp of the structs: padding, the bytes after a
 * string's terminator and array slots past a count carry no meaning, and a
 * struct filled another way (assigned member by member, copied with
 * padding left as it was) would differ in them while meaning the same.
 */
#include <string.h>

#include "config/config.h"

static bool addrs_same(const struct cfg_addr4 *a, unsigned na, const struct cfg_addr4 *b,
                       unsigned nb)
{
	if (na != nb)
		return false;
	for (unsigned i = 0; i < na; i++)
		if (a[i].addr != b[i].addr || a[i].plen != b[i].plen)
			return false;
	return true;
}

/*
 * What of the IPv6 addresses needs a restart: only whether an ATM
 * subinterface has any (a multipoint one's next hops come from its PVCs'
 * ipv6-peer-address map, whose resolver daemon/atm_map6.c sets up at start
 * for the subinterfaces with IPv6). A port's IPv6 addresses, its first one
 * (the ICMPv6 error and NS source) and whether it has any at all change at
 * runtime (daemon/addrs6.c publishes them for the workers), and so do a
 * subinterface's addresses once it has one.
 */
static bool subifs6_fixed_same(const struct cfg *a, const struct cfg *b)
{
	if (a->nports != b->nports || a->nsubifs != b->nsubifs)
		return true; /* ports_same says so */
	for (unsigned i = 0; i < a->nsubifs; i++)
		if ((a->subifs[i].naddrs6 > 0) != (b->subifs[i].naddrs6 > 0))
			return false;
	return true;
}

static bool settings_same(const struct port_settings *a, const struct port_settings *b)
{
	return a->rx_ring_frames == b->rx_ring_frames && a->tx_ring_frames == b->tx_ring_frames &&
	       a->promiscuous == b->promiscuous && a->qdisc_bypass == b->qdisc_bypass;
}

/* nd_reachable_ms and nd_retrans_ms change at runtime: neigh6 reads them every tick. */
static bool port_same(const struct cfg_port *a, const struct cfg_port *b)
{
	const struct cfg_cellpw *x = &a->cellpw, *y = &b->cellpw;

	return !strcmp(a->name, b->name) && !strcmp(a->driver, b->driver) &&
	       !strcmp(a->netdev, b->netdev) && settings_same(&a->settings, &b->settings) &&
	       addrs_same(a->addrs, a->naddrs, b->addrs, b->naddrs) && a->kind == b->kind &&
	       !memcmp(x->peer_mac, y->peer_mac, sizeof(x->peer_mac)) &&
	       x->pw_label == y->pw_label && x->control_word == y->control_word &&
	       x->max_cells == y->max_cells && x->concat_us == y->concat_us &&
	       a->atmsock.itf == b->atmsock.itf;
}

static bool subif_same(const struct cfg_subif *a, const struct cfg_subif *b)
{
	return !strcmp(a->name, b->name) && a->port == b->port && a->type == b->type &&
	       addrs_same(a->addrs, a->naddrs, b->addrs, b->naddrs);
}

static bool ports_same(const struct cfg *a, const struct cfg *b)
{
	if (a->nports != b->nports || a->nsubifs != b->nsubifs)
		return false;
	for (unsigned i = 0; i < a->nports; i++)
		if (!port_same(&a->ports[i], &b->ports[i]))
			return false;
	for (unsigned i = 0; i < a->nsubifs; i++)
		if (!subif_same(&a->subifs[i], &b->subifs[i]))
			return false;
	return true;
}

static bool workers_same(const struct cfg *a, const struct cfg *b)
{
	if (a->workers != b->workers || a->nworker_cpus != b->nworker_cpus)
		return false;
	for (unsigned i = 0; i < a->nworker_cpus; i++)
		if (a->worker_cpus[i] != b->worker_cpus[i])
			return false;
	return true;
}

/* The FIB is built once per algorithm at startup (datapath/fib/fib.h). */
static bool fib_algorithm_same(const struct cfg *a, const struct cfg *b)
{
	return a->fib_algorithm == b->fib_algorithm;
}

static bool listener_same(const struct cfg_rc_listener *a, const struct cfg_rc_listener *b)
{
	return !strcmp(a->address, b->address) && a->port == b->port &&
	       !strcmp(a->certificate, b->certificate) && !strcmp(a->private_key, b->private_key) &&
	       !strcmp(a->client_ca, b->client_ca);
}

static bool restconf_same(const struct cfg_restconf *a, const struct cfg_restconf *b)
{
	if (a->unix_disabled != b->unix_disabled || strcmp(a->unix_path, b->unix_path) ||
	    strcmp(a->unix_group, b->unix_group) || a->max_body_size != b->max_body_size ||
	    a->max_conns != b->max_conns || a->login_attempts != b->login_attempts ||
	    a->login_interval_s != b->login_interval_s || a->nlisteners != b->nlisteners ||
	    a->nusers != b->nusers)
		return false;
	for (unsigned i = 0; i < a->nlisteners; i++)
		if (!listener_same(&a->listeners[i], &b->listeners[i]))
			return false;
	for (unsigned i = 0; i < a->nusers; i++)
		if (strcmp(a->users[i].name, b->users[i].name) ||
		    strcmp(a->users[i].password_hash, b->users[i].password_hash))
			return false;
	return true;
}

static bool fpm_same(const struct cfg_fpm *a, const struct cfg_fpm *b)
{
	if (a->enabled != b->enabled || strcmp(a->address, b->address) || a->port != b->port ||
	    a->settle_s != b->settle_s || a->npeers != b->npeers || a->dead_s != b->dead_s ||
	    a->limit4 != b->limit4 || a->limit6 != b->limit6 || a->warn_pct != b->warn_pct)
		return false;
	for (unsigned i = 0; i < a->npeers; i++)
		if (strcmp(a->peers[i], b->peers[i]))
			return false;
	return true;
}

static bool snmp_same(const struct cfg_snmp *a, const struct cfg_snmp *b)
{
	return a->enabled == b->enabled && !strcmp(a->agentx_socket, b->agentx_socket) &&
	       a->ping_interval_s == b->ping_interval_s;
}

static bool capture_same(const struct cfg_capture *a, const struct cfg_capture *b)
{
	return !strcmp(a->directory, b->directory) && a->max_bytes == b->max_bytes &&
	       a->max_s == b->max_s;
}

const char *cfg_restart_only_diff(const struct cfg *a, const struct cfg *b, const char **path)
{
	static const struct {
		bool (*same)(const struct cfg *, const struct cfg *);
		const char *what, *path;
	} parts[] = {
	    {subifs6_fixed_same, "whether a subinterface has IPv6 addresses",
	     "/cellgate:cellgate/port"},
	    {ports_same, "ports, subinterfaces and their IPv4 addresses",
	     "/cellgate:cellgate/port"},
	    {workers_same, "workers and worker-cpu", "/cellgate:cellgate/system/workers"},
	    {fib_algorithm_same, "the FIB algorithm", "/cellgate:cellgate/system/fib-algorithm"},
	};

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!parts[i].same(a, b)) {
			*path = parts[i].path;
			return parts[i].what;
		}
	/* Opened at startup, before the privilege drop; the limits go with it. */
	if (!capture_same(&a->capture, &b->capture)) {
		*path = "/cellgate:cellgate/system/capture";
		return "the capture directory and limits";
	}
	if (!restconf_same(&a->restconf, &b->restconf)) {
		*path = "/cellgate:cellgate/restconf";
		return "the RESTCONF server settings";
	}
	if (!fpm_same(&a->fpm, &b->fpm)) {
		*path = "/cellgate:cellgate/routing/fpm";
		return "the FPM server settings";
	}
	if (!snmp_same(&a->snmp, &b->snmp)) {
		*path = "/cellgate:cellgate/snmp";
		return "the SNMP subagent settings";
	}
	*path = NULL;
	return NULL;
}

bool cfg_pvc_same(const struct cfg_pvc *a, const struct cfg_pvc *b)
{
	return a->subif == b->subif && a->port == b->port && a->vpi == b->vpi && a->vci == b->vci &&
	       a->encap == b->encap && a->mtu == b->mtu && a->service == b->service &&
	       a->pcr == b->pcr && a->queue_cells == b->queue_cells &&
	       a->reasm_timeout_ms == b->reasm_timeout_ms && a->oam_enabled == b->oam_enabled &&
	       a->oam_interval_ms == b->oam_interval_ms && a->oam_retry_ms == b->oam_retry_ms &&
	       a->oam_down_count == b->oam_down_count && a->oam_up_count == b->oam_up_count &&
	       a->inatmarp == b->inatmarp && a->inatmarp_interval_ms == b->inatmarp_interval_ms &&
	       a->peer_addr == b->peer_addr && a->npeers6 == b->npeers6 &&
	       !memcmp(a->peers6, b->peers6, sizeof(a->peers6[0]) * a->npeers6) &&
	       !strcmp(a->pcap, b->pcap);
}
