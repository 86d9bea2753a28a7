/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cellgated: parse the configuration, open the ports, program the FIB, start
 * the workers, run the control loop, and undo it all on SIGTERM.
 */
#include "cellgate-build.h"

#include <errno.h>
#include <event2/event.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "daemon/atm.h"
#include "daemon/control.h"
#include "daemon/fpm.h"
#include "daemon/mgmt.h"
#include "daemon/netdev.h"
#include "daemon/privdrop.h"
#include "daemon/routes.h"
#include "daemon/routes6.h"
#include "daemon/service.h"
#include "daemon/xdp_addrs.h"
#include "daemon/xdp_arp.h"
#include "daemon/xdp_nd.h"
#include "datapath/port_afxdp.h"
#include "lib/clock.h"
#include "lib/log.h"

#ifndef CONF_DIR
#define CONF_DIR "/etc/cellgate" /* the build passes $(sysconfdir)/cellgate */
#endif
#define DEFAULT_CONFIG CONF_DIR "/cellgated.json"
#define DEFAULT_RUNDIR "/run/cellgate"

struct options {
	const char *config;
	const char *rundir;
	const char *yang_dir;
	const char *user; /* -u: drop to this user after opening everything */
	bool check_only;
	bool foreground;
	int verbose;
};

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: cellgated [-dnv] [-f config] [-r rundir] [-u user] [-y yangdir]\n"
	        "  -f FILE   startup configuration, RFC 7951 JSON (default %s)\n"
	        "  -n        check the configuration, print it normalised, exit 0/1\n"
	        "  -d        stay in the foreground and log to stderr\n"
	        "  -r DIR    runtime directory: pid file, stats.json (default %s)\n"
	        "  -u USER   after opening ports, run as USER with only CAP_NET_ADMIN and\n"
	        "            CAP_NET_RAW\n"
	        "  -y DIR    directory holding cellgate.yang (default %s)\n"
	        "  -v        more verbose logging\n"
	        "  --version print the version and exit\n",
	        DEFAULT_CONFIG, DEFAULT_RUNDIR, YANG_DIR);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int ch;

	*o = (struct options){
	    .config = DEFAULT_CONFIG, .rundir = DEFAULT_RUNDIR, .yang_dir = YANG_DIR};
	while ((ch = getopt_long(argc, argv, "df:hnr:u:vy:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			o->foreground = true;
			break;
		case 'f':
			o->config = optarg;
			break;
		case 'n':
			o->check_only = true;
			break;
		case 'r':
			o->rundir = optarg;
			break;
		case 'u':
			o->user = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'y':
			o->yang_dir = optarg;
			break;
		case 'V':
			printf("cellgated %s\n", PACKAGE_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(1);
		}
	}
	if (optind != argc) {
		usage(stderr);
		exit(1);
	}
}

/* The installed yang dir, or the source tree's when running from a build directory. */
static const char *yang_dir_pick(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/cellgate.yang", dir);
	if (access(path, R_OK) == 0 || strcmp(dir, YANG_DIR) != 0)
		return dir;
	return SRC_YANG_DIR;
}

static int port_setup(struct dataplane *dp, const struct cfg *cfg, unsigned i)
{
	const struct cfg_port *cp = &cfg->ports[i];
	struct port *pt = &dp->ports[i];
	int err;

	snprintf(pt->name, sizeof(pt->name), "%s", cp->name);
	snprintf(pt->netdev, sizeof(pt->netdev), "%s", cp->netdev);
	pt->id = (uint16_t)i;
	pt->settings = cp->settings;
	pt->ip4_addr = cp->naddrs ? cp->addrs[0].addr : 0;
	/* auto: afxdp first, afpacket if it does not open (port_queues_open_auto). */
	pt->ops = strcmp(cp->driver, "auto") == 0 ? &port_afxdp_ops : port_ops_find(cp->driver);
	if (!pt->ops) {
		log_warnx("port %s: unknown driver '%s'", cp->name, cp->driver);
		return -EINVAL;
	}
	err = netdev_lookup(cp->netdev, &pt->ifindex, pt->mac, &pt->mtu);
	if (err)
		return err;
	if ((err = netdev_set_up(pt->ifindex)) != 0)
		return err;
	netdev_gro_off(cp->netdev); /* best effort: logged inside */
	err = netdev_addr4_set(pt->ifindex, cp->addrs, cp->naddrs);
	return err ? err : netdev_addr6_set(pt->ifindex, cp->addrs6, cp->naddrs6);
}

/* Open queues 0..n-1 of dataplane port i. */
static int port_queues_open(struct port *pt, unsigned n)
{
	int err = 0;

	for (unsigned q = 0; !err && q < n; q++) {
		err = pt->ops->queue_open(pt, q, n, &pt->queues[q]);
		if (!err)
			pt->nqueues = q + 1;
	}
	return err;
}

static void port_queues_close(struct port *pt)
{
	for (unsigned q = 0; q < pt->nqueues; q++)
		pt->ops->queue_close(pt->queues[q]);
	pt->nqueues = 0;
}

/*
 * driver auto: afxdp where every queue opens (its reasons for not opening
 * are logged as it fails), else afpacket; says which.
 */
static int port_queues_open_auto(struct port *pt, unsigned n)
{
	int err = port_queues_open(pt, n);

	if (!err) {
		log_info("port %s: driver auto: afxdp", pt->name);
		return 0;
	}
	port_queues_close(pt);
	pt->ops = &port_afpacket_ops;
	log_info("port %s: driver auto: afpacket (afxdp does not open on %s, see above)", pt->name,
	         pt->netdev);
	return port_queues_open(pt, n);
}

/*
 * Ethernet and ATM ports take the dataplane ids of their configuration index;
 * ATM subinterfaces follow, once the ATM ports below them are open.
 */
static int ports_open(struct dataplane *dp, const struct cfg *cfg, struct atm_ctl *atm)
{
	dp->nports = cfg->nports + cfg->nsubifs;
	for (unsigned i = 0; i < cfg->nports; i++) {
		struct port *pt = &dp->ports[i];
		int err = cfg->ports[i].kind == CFG_PORT_ETHERNET ? port_setup(dp, cfg, i)
		                                                  : atm_port_setup(atm, i);
		unsigned nq = cfg->ports[i].kind == CFG_PORT_ETHERNET ? cfg->workers : 1;
		if (!err)
			err = strcmp(cfg->ports[i].driver, "auto") == 0
			          ? port_queues_open_auto(pt, nq)
			          : port_queues_open(pt, nq);
		if (err) {
			if (cfg->ports[i].netdev[0])
				log_warnx("port %s (netdev %s): cannot be opened, see above",
				          cfg->ports[i].name, cfg->ports[i].netdev);
			else
				log_warnx("port %s: cannot be opened, see above",
				          cfg->ports[i].name);
			return err;
		}
		const char *carrier = atm_port_carrier(atm, i);
		if (carrier[0]) /* an ATM port's netdev is its own TUN: the cells travel on this */
			log_info(
			    "port %s: %s on carrier %s (port netdev %s, ifindex %d, mtu %u), %u "
			    "queue(s)",
			    pt->name, pt->ops->driver, carrier, pt->netdev, pt->ifindex, pt->mtu,
			    pt->nqueues);
		else
			log_info("port %s: %s on %s (ifindex %d, mtu %u), %u queue(s)", pt->name,
			         pt->ops->driver, pt->netdev, pt->ifindex, pt->mtu, pt->nqueues);
	}
	for (unsigned s = 0; s < cfg->nsubifs; s++) {
		struct port *pt = &dp->ports[cfg->nports + s];
		int err = atm_subif_setup(atm, s);
		if (!err)
			err = port_queues_open(pt, 1);
		if (err) {
			log_warnx("interface %s: cannot be opened, see above", cfg->subifs[s].name);
			return err;
		}
		log_info("interface %s: on %s, ifindex %d, mtu %u", pt->name,
		         dp->ports[cfg->subifs[s].port].name, pt->ifindex, pt->mtu);
	}
	return 0;
}

static void ports_close(struct dataplane *dp)
{
	/* Last first: subinterfaces point into the ATM ports below them. */
	for (unsigned i = dp->nports; i-- > 0;)
		port_queues_close(&dp->ports[i]);
}

/* Worker i goes to the configured CPU, else spread over the CPUs after the first. */
static void worker_cpus_pick(const struct cfg *cfg, int *cpus)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	for (unsigned i = 0; i < cfg->workers; i++) {
		if (i < cfg->nworker_cpus)
			cpus[i] = cfg->worker_cpus[i];
		else if (ncpu > 1)
			cpus[i] = (int)(1 + i % (unsigned long)(ncpu - 1));
		else
			cpus[i] = -1;
	}
}

/*
 * Keep the control thread (and anything it starts) off the workers' CPUs when
 * another CPU is left, so a burst of control work never preempts forwarding.
 */
static void control_cpus_pick(const int *worker_cpus, unsigned n)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	cpu_set_t mine = set;
	for (unsigned i = 0; i < n; i++)
		if (worker_cpus[i] >= 0)
			CPU_CLR(worker_cpus[i], &mine);
	if (CPU_COUNT(&mine) > 0 && sched_setaffinity(0, sizeof(mine), &mine) != 0)
		log_warn("control thread: CPU affinity");
}

/* The runtime directory, owned by the user the daemon will run as. */
static int rundir_make(const char *rundir, uid_t uid, gid_t gid)
{
	if (mkdir(rundir, 0755) != 0 && errno != EEXIST) {
		log_warn("rundir %s", rundir);
		return -errno;
	}
	if (uid != (uid_t)-1 && chown(rundir, uid, gid) != 0) {
		log_warn("rundir %s: chown to uid %u", rundir, (unsigned)uid);
		return -errno;
	}
	return 0;
}

static int pidfile_write(const char *rundir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cellgated.pid", rundir);
	f = fopen(path, "w");
	if (!f) {
		log_warn("pid file %s", path);
		return -errno;
	}
	fprintf(f, "%ld\n", (long)getpid());
	fclose(f);
	return 0;
}

static void pidfile_remove(const char *rundir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/cellgated.pid", rundir);
	unlink(path);
}

/* The configured FIB algorithm; the YANG enumeration names exactly the datapath's algorithms. */
static const struct fib_algo *fib_algo_of(const struct cfg *cfg)
{
	const struct fib_algo *a = fib_algo_find(cfg_fib_algorithm_name(cfg->fib_algorithm));

	if (!a)
		fatalx("system/fib-algorithm %s: no such FIB algorithm in this build",
		       cfg_fib_algorithm_name(cfg->fib_algorithm));
	return a;
}

static int run(struct options *o, struct cfg *cfg)
{
	static struct dataplane dp;
	struct control ctl = {.cfg = cfg,
	                      .dp = &dp,
	                      .rundir = o->rundir,
	                      .config_path = o->config,
	                      .yang_dir = o->yang_dir,
	                      .start_ms = realtime_ms()};
	struct xdp_addrs *xdp = NULL;
	struct xdp_arp *xdp_arp = NULL;
	struct xdp_nd *xdp_nd = NULL;
	int rc = 1;

	if (netdev_ip_forward_get() == 1)
		log_warnx("net.ipv4.ip_forward is 1: the kernel will forward transit packets too; "
		          "set it to 0 in the router's namespace");
	if (dp_init(&dp, fib_algo_of(cfg), NULL) != 0)
		fatalx("out of memory allocating the FIB");
	log_info("FIB: %s", dp.fib.algo->name);
	control_params_apply(&ctl, cfg);
	ctl.atm = atm_new(&dp, cfg);
	ctl.neigh = neigh_new(&dp, cfg);
	ctl.rib = ctl.neigh ? rib_new(&dp, neigh_l2_seed, ctl.neigh) : NULL;
	ctl.base = event_base_new();
	if (!ctl.atm || !ctl.neigh || !ctl.rib || !ctl.base)
		fatalx("out of memory starting the control thread");
	neigh_set_rib(ctl.neigh, ctl.rib);
	ctl.rib6 = rib6_new(ctl.rib, NULL, NULL);
	ctl.neigh6 = ctl.rib6 ? neigh6_new(&dp, cfg, ctl.rib6) : NULL;
	if (!ctl.neigh6)
		fatalx("out of memory starting the control thread");
	rib6_set_seed(ctl.rib6, neigh6_l2_seed, ctl.neigh6);

	if (ports_open(&dp, cfg, ctl.atm) != 0 || atm_start(ctl.atm, ctl.base, ctl.neigh) != 0 ||
	    neigh_open(ctl.neigh) != 0)
		goto out;
	routes6_ports_setup(&dp, cfg);
	atm_start6(ctl.atm, ctl.neigh6);
	if (neigh6_open(ctl.neigh6) != 0)
		goto out;
	/* Before any worker runs: frames to our addresses go to the kernel from the first. */
	xdp = xdp_addrs_start(ctl.base, &dp);
	if (xdp_arp_start(ctl.base, &dp, ctl.neigh, &xdp_arp) != 0 ||
	    xdp_nd_start(ctl.base, &dp, ctl.neigh6, &xdp_nd) != 0)
		goto out;
	int failed = routes_apply_config(ctl.rib, cfg);
	failed += routes6_apply_config(ctl.rib6, &dp, cfg);
	if (failed)
		log_warnx("%d route(s) from the configuration could not be installed", failed);
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	if (o->user && privdrop_lookup(o->user, &uid, &gid) != 0)
		goto out;
	if (rundir_make(o->rundir, uid, gid) != 0)
		goto out;
	/* VC captures go there only; failing leaves them refused, the router runs on. */
	if (dp.vcs)
		atm_capture_dir_open(ctl.atm, o->rundir, uid, gid);
	control_snmp_start(&ctl);
	/* The API socket before the drop (its group; a TCP listener may want a low port),
	 * and before the pid file: once that exists, the API answers. */
	if (mgmt_start(&ctl) != 0)
		goto out;
	/* Everything privileged is open: drop before any thread starts, so all inherit it. */
	if (o->user && privdrop_apply(o->user, uid, gid) != 0)
		goto out;
	worker_cpus_pick(cfg, ctl.worker_cpu);
	if (dp_workers_start(&dp, ctl.worker_cpu, cfg->workers) != 0)
		goto out;
	control_cpus_pick(ctl.worker_cpu, cfg->workers);
	ctl.fpm = fpm_server_new(ctl.base, &cfg->fpm, ctl.rib, ctl.rib6, &dp);
	if (!ctl.fpm || pidfile_write(o->rundir) != 0)
		goto stop;
	log_info("cellgated %s running: %u port(s), %u worker(s)", PACKAGE_VERSION, dp.nports,
	         dp.nworkers);
	char status[128];
	snprintf(status, sizeof(status), "forwarding: %u port(s), %u worker(s)", dp.nports,
	         dp.nworkers);
	service_ready(status);
	rc = control_run(&ctl) == 0 ? 0 : 1;
	service_stopping();
	pidfile_remove(o->rundir);
stop:
	fpm_server_free(ctl.fpm);
	dp_workers_stop(&dp);
out:
	if (rc != 0)
		log_warnx("cellgated: startup failed, exiting");
	mgmt_stop(&ctl);
	xdp_addrs_stop(xdp);
	xdp_arp_stop(xdp_arp);
	xdp_nd_stop(xdp_nd);
	if (ctl.atm)
		control_snmp_stop(&ctl);
	ports_close(&dp);
	neigh_free(ctl.neigh);
	neigh6_free(ctl.neigh6);
	atm_free(ctl.atm);
	rib6_free(ctl.rib6);
	rib_free(ctl.rib);
	free(ctl.stats_base);
	if (ctl.base)
		event_base_free(ctl.base);
	dp_fini(&dp);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	struct cfg cfg;
	char err[1024];
	int rc;

	parse_options(argc, argv, &o);
	log_init("cellgated", o.foreground || o.check_only, o.verbose);
	o.yang_dir = yang_dir_pick(o.yang_dir);

	if (cfg_load(o.config, o.yang_dir, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "cellgated: %s\n", err);
		return 1;
	}
	if (o.check_only) {
		rc = cfg_print(&cfg, stdout) == 0 ? 0 : 1;
		cfg_free(&cfg);
		return rc;
	}
	/* RESTCONF rewrites the startup file later, after daemon() moved to "/". */
	static char config_abs[PATH_MAX];
	if (o.config[0] != '/' && realpath(o.config, config_abs))
		o.config = config_abs;
	if (!o.foreground && daemon(0, 0) != 0)
		fatal("daemon");
	rc = run(&o, &cfg);
	cfg_free(&cfg);
	return rc;
}
