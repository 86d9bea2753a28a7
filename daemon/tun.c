/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/log.h"
#include "daemon/netdev.h"
#include "daemon/tun.h"

static int tun_fail(const char *name, const char *what, int err)
{
	const char *hint = "";

	if (err == EPERM || err == EACCES)
		hint = " (need CAP_NET_ADMIN)";
	else if (err == ENOENT || err == ENODEV)
		hint = " (no /dev/net/tun: load the tun module)";
	log_warnx("interface %s: TUN %s: %s%s", name, what, strerror(err), hint);
	return -err;
}

static int tun_set_mtu(const char *name, uint32_t mtu)
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int err = 0;

	if (s < 0)
		return tun_fail(name, "socket for the MTU", errno);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_mtu = (int)mtu;
	if (ioctl(s, SIOCSIFMTU, &ifr) < 0)
		err = tun_fail(name, "set MTU", errno);
	close(s);
	return err;
}

int tun_create(const char *name, uint32_t mtu, int *fd_out, int *ifindex)
{
	struct ifreq ifr = {0};
	int fd, err;

	if (strlen(name) >= IFNAMSIZ)
		return tun_fail(name, "name", ENAMETOOLONG);
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return tun_fail(name, "open /dev/net/tun", errno);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = tun_fail(name, "TUNSETIFF", errno);
		close(fd);
		return err;
	}
	*ifindex = (int)if_nametoindex(name);
	if (*ifindex == 0) {
		err = tun_fail(name, "ifindex", errno);
		close(fd);
		return err;
	}
	if ((err = tun_set_mtu(name, mtu)) != 0 || (err = netdev_set_up(*ifindex)) != 0) {
		close(fd);
		return err;
	}
	*fd_out = fd;
	return 0;
}
