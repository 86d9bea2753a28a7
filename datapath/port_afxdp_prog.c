/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afxdp driver's XDP program, one instance per port: loaded from the
 * installed object when the port's first queue opens, attached in native
 * (driver) mode, detached when the last queue closes. Its maps: the XSKs
 * by RX queue, the router's own addresses, the port's MAC, the decision
 * counters. Control thread only.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include "datapath/port_afxdp_priv.h"
#include "lib/log.h"

#ifndef CG_XDP_OBJ
#define CG_XDP_OBJ "/usr/lib/cellgate/cellgate_xdp.bpf.o" /* the build passes $(pkglibdir) */
#endif

static int afxdp_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char text[2048], *line, *save = NULL;

	/* Debug level included: the verifier's log, when it refuses the program, is there. */
	vsnprintf(text, sizeof(text), fmt, ap);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		log_debug("libbpf: %s", line);
	return 0;
}

static int afxdp_libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if (level != LIBXDP_DEBUG)
		log_debug("libxdp: %s", line);
	return 0;
}

int afxdp_fail(const struct port *p, const char *what, int err, const char *fix)
{
	log_warnx("port %s (netdev %s): afxdp: %s: %s%s%s%s", p->name, p->netdev, what,
	          strerror(err), fix ? " (" : "", fix ? fix : "", fix ? ")" : "");
	return -err;
}

/* The installed object, else the build tree's (running cellgated from its build directory). */
const char *afxdp_obj_path(void)
{
#ifdef CG_XDP_OBJ_BUILD
	if (access(CG_XDP_OBJ, R_OK) != 0 && access(CG_XDP_OBJ_BUILD, R_OK) == 0)
		return CG_XDP_OBJ_BUILD;
#endif
	return CG_XDP_OBJ;
}

static int afxdp_map_fd(struct afxdp_port *ap, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(ap->obj, name);

	return m ? bpf_map__fd(m) : -1;
}

static int afxdp_prog_fd(struct afxdp_port *ap, const char *name)
{
	struct bpf_program *pg = bpf_object__find_program_by_name(ap->obj, name);

	return pg ? bpf_program__fd(pg) : -1;
}

static int afxdp_load(struct afxdp_port *ap)
{
	const char *path = afxdp_obj_path();
	struct port *p = ap->port;
	int err;

	ap->obj = bpf_object__open_file(path, NULL);
	if (!ap->obj) {
		err = errno;
		log_warnx("port %s (netdev %s): afxdp: XDP object %s: %s (install cellgate, or "
		          "build it with clang -target bpf)",
		          p->name, p->netdev, path, strerror(err));
		return -err;
	}
	err = bpf_object__load(ap->obj);
	if (err) {
		err = -err;
		return afxdp_fail(
		    p, "loading the XDP program", err,
		    err == EPERM || err == EACCES
		        ? "needs CAP_BPF and CAP_NET_ADMIN (or root); before Linux 5.11 "
		          "also locked memory: raise RLIMIT_MEMLOCK / LimitMEMLOCK=; with -v the "
		          "verifier's log is among libbpf's lines"
		        : NULL);
	}
	ap->prog_fd = afxdp_prog_fd(ap, CG_XDP_PROG_MAIN);
	ap->punt_fd = afxdp_prog_fd(ap, CG_XDP_PROG_PUNT);
	ap->xsks_fd = afxdp_map_fd(ap, CG_XDP_MAP_XSKS);
	ap->local_fd = afxdp_map_fd(ap, CG_XDP_MAP_LOCAL);
	ap->local6_fd = afxdp_map_fd(ap, CG_XDP_MAP_LOCAL6);
	ap->conf_fd = afxdp_map_fd(ap, CG_XDP_MAP_CONF);
	ap->stats_fd = afxdp_map_fd(ap, CG_XDP_MAP_STATS);
	if (ap->prog_fd < 0 || ap->punt_fd < 0 || ap->xsks_fd < 0 || ap->local_fd < 0 ||
	    ap->local6_fd < 0 || ap->conf_fd < 0 || ap->stats_fd < 0)
		return afxdp_fail(p, path, ENOENT,
		                  "not cellgate's XDP object: a program or map is "
		                  "missing");
	return 0;
}

int afxdp_conf_write(struct afxdp_port *ap)
{
	struct cg_xdp_conf conf = {.ready = 1, .ipv6 = ap->ipv6};
	uint32_t zero = 0;

	memcpy(conf.mac, ap->port->mac, 6);
	if (bpf_map_update_elem(ap->conf_fd, &zero, &conf, BPF_ANY) != 0)
		return afxdp_fail(ap->port, "writing the program's configuration", errno, NULL);
	return 0;
}

/* The netdev's driver name, for messages ("veth", "i40e"), or "?". */
static void afxdp_dev_driver(const struct port *p, char *out, size_t len)
{
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	struct ifreq ifr = {.ifr_data = (void *)&di};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(out, len, "?");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->netdev);
	if (fd >= 0 && ioctl(fd, SIOCETHTOOL, &ifr) == 0)
		snprintf(out, len, "%s", di.driver);
	if (fd >= 0)
		close(fd);
}

/* Name of the XDP program now attached (id): needs CAP_SYS_ADMIN, so "" after the drop. */
static void afxdp_attached_name(uint32_t id, char *out, size_t len)
{
	struct bpf_prog_info info = {0};
	uint32_t ilen = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	snprintf(out, len, "%s", "");
	if (fd < 0)
		return;
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen) == 0)
		snprintf(out, len, "%s", info.name);
	close(fd);
}

/* Another program holds the netdev: it stays, and the port fails saying whose. */
static int afxdp_attach_busy(struct afxdp_port *ap)
{
	struct port *p = ap->port;
	char name[BPF_OBJ_NAME_LEN + 1], fix[256];
	uint32_t id = 0;

	bpf_xdp_query_id(p->ifindex, 0, &id);
	afxdp_attached_name(id, name, sizeof(name));
	snprintf(fix, sizeof(fix),
	         "XDP program id %u%s%s%s is attached: detach it (ip link set dev %s xdp off) "
	         "or use driver afpacket",
	         id, name[0] ? " '" : "", name, name[0] ? "'" : "", p->netdev);
	return afxdp_fail(p, "attaching the XDP program", EBUSY, fix);
}

static int afxdp_attach_error(struct afxdp_port *ap, int err)
{
	struct port *p = ap->port;
	char drv[32], fix[640];

	afxdp_dev_driver(p, drv, sizeof(drv));
	if (err == EBUSY || err == EEXIST)
		return afxdp_attach_busy(ap);
	if (err == EOPNOTSUPP) {
		snprintf(fix, sizeof(fix), "driver %s has no native XDP: use driver afpacket", drv);
		return afxdp_fail(p, "attaching the XDP program", err, fix);
	}
	if (err == EPERM || err == EACCES)
		return afxdp_fail(p, "attaching the XDP program", err, "needs CAP_NET_ADMIN");
	if (err == ERANGE || err == EINVAL) {
		snprintf(fix, sizeof(fix),
		         "the program is single-buffer: every frame must fit one page, so MTU %u "
		         "may be too large for driver %s (veth: about 3500, and the peer's MTU "
		         "counts too); lower it or use driver afpacket",
		         p->mtu, drv);
		return afxdp_fail(p, "attaching the XDP program", err, fix);
	}
	return afxdp_fail(p, "attaching the XDP program", err, NULL);
}

/*
 * Attached through a BPF link (Linux 5.9), in native mode only:
 *  - the link belongs to this process, so a cellgated that dies, however,
 *    takes its program off the netdev with it: nothing is left behind to
 *    black-hole transit traffic, or to refuse the next start;
 *  - native, because generic XDP would run after the kernel built the skb
 *    (no gain) and would see our own punts again.
 * A program someone attached through netlink, or another link, makes the
 * kernel refuse (EBUSY) and is left alone.
 */
int afxdp_port_attach(struct afxdp_port *ap)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_DRV_MODE);
	int err;

	if (ap->link_fd >= 0)
		return 0;
	err = afxdp_conf_write(ap);
	if (err)
		return err;
	ap->link_fd = bpf_link_create(ap->prog_fd, ap->port->ifindex, BPF_XDP, &lo);
	if (ap->link_fd < 0) {
		err = errno;
		ap->link_fd = -1;
	ap->promisc_fd = -1;
		return afxdp_attach_error(ap, err);
	}
	log_debug("port %s (netdev %s): afxdp: XDP program attached (native mode, BPF link)",
	          ap->port->name, ap->port->netdev);
	return 0;
}

/*
 * promiscuous: a packet socket that receives nothing (protocol 0) holds the
 * netdev's promiscuity for us (PACKET_MR_PROMISC is counted per socket and
 * undone when it closes, crash included), as afpacket's RX socket does.
 * Frames for other MACs then reach the program, which counts them as
 * l2-other-host.
 */
static int afxdp_promisc(struct afxdp_port *ap)
{
	struct packet_mreq mr = {.mr_ifindex = ap->port->ifindex, .mr_type = PACKET_MR_PROMISC};

	ap->promisc_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (ap->promisc_fd < 0 || setsockopt(ap->promisc_fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP,
	                                     &mr, sizeof(mr)) != 0)
		return afxdp_fail(ap->port, "promiscuous mode", errno,
		                  errno == EPERM ? "needs CAP_NET_RAW" : NULL);
	return 0;
}

static void afxdp_port_free(struct afxdp_port *ap)
{
	if (ap->promisc_fd >= 0)
		close(ap->promisc_fd);
	/* Closing the link's last reference detaches the program. */
	if (ap->link_fd >= 0)
		close(ap->link_fd);
	if (ap->obj)
		bpf_object__close(ap->obj);
	ap->port->drv = NULL;
	free(ap->percpu);
	free(ap);
}

int afxdp_port_get(struct port *p, struct afxdp_port **out)
{
	static bool print_set;
	struct afxdp_port *ap = p->drv;
	int err;

	if (ap) {
		ap->nopen++;
		*out = ap;
		return 0;
	}
	if (!print_set) {
		libbpf_set_print(afxdp_libbpf_print);
		libxdp_set_print(afxdp_libxdp_print);
		print_set = true;
	}
	ap = calloc(1, sizeof(*ap));
	if (!ap)
		return afxdp_fail(p, "open", ENOMEM, NULL);
	ap->port = p;
	ap->link_fd = -1;
	ap->promisc_fd = -1;
	ap->ncpus = libbpf_num_possible_cpus();
	ap->percpu = ap->ncpus > 0 ? calloc((size_t)ap->ncpus, sizeof(*ap->percpu)) : NULL;
	p->drv = ap;
	err = ap->percpu ? afxdp_load(ap) : afxdp_fail(p, "counting CPUs", ENOMEM, NULL);
	if (!err && p->settings.promiscuous)
		err = afxdp_promisc(ap);
	if (err) {
		afxdp_port_free(ap);
		return err;
	}
	ap->nopen = 1;
	*out = ap;
	return 0;
}

void afxdp_port_put(struct afxdp_port *ap)
{
	if (ap && --ap->nopen == 0)
		afxdp_port_free(ap);
}
