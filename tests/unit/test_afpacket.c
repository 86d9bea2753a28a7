/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The afpacket port driver and the netdev helpers against the real kernel,
 * inside a private network namespace with one veth pair:
 *
 *   cgt0: the port under test (afpacket queues)  <->  cgt1: the "wire", a
 *   plain AF_PACKET socket that sends what the port should receive and
 *   receives what the port transmits.
 *
 * Needs root (CAP_NET_ADMIN + CAP_NET_RAW) and unshare(CLONE_NEWNET); exits 77
 * (automake's "skipped") when it cannot have them. The namespace, and the veth
 * pair with it, disappear when the process exits.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/netdev.h"
#include "lib/log.h"
#include "tests/unit/afpacket_harness.h"

static void test_netdev_lookup(void)
{
	struct ifreq ifr = {0};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ifindex;
	uint8_t mac[6];
	uint32_t mtu;

	CHECK(netdev_lookup(DEV0, &tport.ifindex, tport.mac, &tport.mtu) == 0, "lookup " DEV0);
	/* Cross-check with the older ioctl interface. */
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), DEV0);
	CHECK(ioctl(fd, SIOCGIFINDEX, &ifr) == 0 && ifr.ifr_ifindex == tport.ifindex, "ifindex");
	CHECK(ioctl(fd, SIOCGIFHWADDR, &ifr) == 0 && !memcmp(ifr.ifr_hwaddr.sa_data, tport.mac, 6),
	      "mac");
	CHECK(ioctl(fd, SIOCGIFMTU, &ifr) == 0 && (uint32_t)ifr.ifr_mtu == tport.mtu, "mtu");
	close(fd);
	CHECK(tport.mtu == 1500, "veth default MTU, got %u", tport.mtu);
	CHECK(netdev_lookup(DEV1, &ifindex, mac1, &mtu) == 0, "lookup " DEV1);
	CHECK(netdev_lookup("cgt-missing", &ifindex, mac, &mtu) == -ENODEV, "missing name");
	CHECK(netdev_lookup("lo", &ifindex, mac, &mtu) == -EINVAL, "loopback is not Ethernet");
	CHECK(netdev_lookup("a-name-far-too-long-for-linux", &ifindex, mac, &mtu) == -EINVAL,
	      "long name");
}

static void test_link_state(void)
{
	int ifindex1 = if_nametoindex(DEV1);
	bool up = true;

	CHECK(netdev_set_up(tport.ifindex) == 0, "set " DEV0 " up");
	CHECK(netdev_link_is_up(tport.ifindex, &up) == 0 && !up, "no carrier while peer down");
	CHECK(netdev_set_up(ifindex1) == 0, "set " DEV1 " up");
	CHECK(wait_running(), DEV0 " and " DEV1 " running once both ends are up");
	CHECK(netdev_set_up(99999) == -ENODEV, "set up a missing ifindex");
	CHECK(netdev_link_is_up(99999, &up) == -ENODEV, "state of a missing ifindex");
}

static void test_gro_and_forwarding(void)
{
	uint32_t v = 1;

	CHECK(ethtool_value(DEV0, ETHTOOL_SGRO, &v) == 0, "turn GRO on for the test");
	CHECK(ethtool_value(DEV0, ETHTOOL_GGRO, &v) == 0 && v == 1, "GRO on");
	CHECK(netdev_gro_off(DEV0) == 0, "gro off");
	CHECK(ethtool_value(DEV0, ETHTOOL_GGRO, &v) == 0 && v == 0, "GRO now off");
	CHECK(netdev_gro_off("cgt-missing") == -ENODEV, "gro off on a missing netdev");

	write_file("/proc/sys/net/ipv4/ip_forward", "1");
	CHECK(netdev_ip_forward_get() == 1, "ip_forward 1");
	write_file("/proc/sys/net/ipv4/ip_forward", "0");
	CHECK(netdev_ip_forward_get() == 0, "ip_forward 0");
}

static void test_addr4(void)
{
	static const char show[] = "ip -4 -o addr show dev " DEV0;
	uint32_t keep[] = {0xc0000201};
	uint8_t plens[] = {24};

	CHECK(netdev_addr4_add(tport.ifindex, 0xc0000201, 24) == 0, "add 192.0.2.1/24");
	CHECK(cmd_has(show, "inet 192.0.2.1/24 brd 192.0.2.255 "), "192.0.2.1/24 present");
	CHECK(netdev_addr4_add(tport.ifindex, 0xc0000201, 24) == 0, "adding it again is fine");
	CHECK(netdev_addr4_add(tport.ifindex, 0xc6336407, 30) == 0, "add 198.51.100.7/30");
	CHECK(cmd_has(show, "inet 198.51.100.7/30 brd 198.51.100.7 "), "/30 broadcast");
	CHECK(netdev_addr4_add(tport.ifindex, 0xcb007109, 32) == 0, "add 203.0.113.9/32");
	CHECK(cmd_has(show, "inet 203.0.113.9/32 scope"), "/32 has no broadcast");
	CHECK(netdev_addr4_add(tport.ifindex, 0xcb007109, 33) == -EINVAL, "prefix length 33");
	CHECK(netdev_addr4_add(99999, 0xcb007109, 24) == -ENODEV, "missing ifindex");

	CHECK(netdev_addr4_flush_others(tport.ifindex, keep, plens, 1) == 0, "flush others");
	CHECK(cmd_has(show, "inet 192.0.2.1/24"), "kept address stays");
	CHECK(!cmd_has(show, "198.51.100.7"), "other address gone");
	CHECK(!cmd_has(show, "203.0.113.9"), "host address gone");
}

int main(void)
{
	int ret;

	log_init("test_afpacket", true, 0);
	ret = setup();
	if (ret)
		return ret;
	test_netdev_lookup();
	test_link_state();
	peer_open();
	test_gro_and_forwarding();
	test_addr4();
	test_open_errors();
	test_rx_frames();
	test_rx_release();
	test_ring_drops();
	test_tx(true);
	test_tx(false);
	test_tx_gso();
	test_fanout();
	test_promisc();
	test_csum_partial();
	test_link_flap();
	close(peer_fd);
	test_rx_gso();
	if (failures) {
		fprintf(stderr, "test_afpacket: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_afpacket: all checks passed\n");
	return 0;
}
