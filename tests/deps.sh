#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Install the Debian 12 packages cellgate needs to build, test, demo and
# benchmark.  Shared by .ci/run and tests/lab/demo.sh.  Needs root.
# The ATM VM lab (tests/vm/) also needs Debian's 6.1 kernel image and
# linux-source-6.1: tests/vm/prepare.sh downloads them (apt-get download, not
# installed) into its cache at test time, and installs linux-headers-<that
# kernel> if linux-headers-amd64 here does not match it.
#   tests/deps.sh            install (apt-get update + install)
#   tests/deps.sh --list     print the package list
set -eu

PACKAGES="
build-essential autoconf automake libtool pkg-config clang libclang-rt-14-dev
libevent-dev libyang2-dev libyang2-tools libmnl-dev liburcu-dev
libsystemd-dev libcap-ng-dev libsnmp-dev libisal-dev libssl-dev libcrypt-dev
libxdp-dev libbpf-dev llvm
systemd iproute2 iputils-ping traceroute iperf3 netsniff-ng ethtool tshark curl sockperf
snmpd snmp snmptrapd smitools
python3 python3-scapy python3-pytest python3-pyroute2
libloc-database location
frr
qemu-system-x86 busybox-static atm-tools br2684ctl cpio kmod linux-headers-amd64
debhelper dh-autoreconf dpkg-dev fakeroot devscripts lintian blhc bash-completion
prometheus
"

if [ "${1:-}" = "--list" ]; then
	echo $PACKAGES
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: run as root (apt-get install)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no, unattended.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	debconf-set-selections 2>/dev/null || true
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $PACKAGES

# FRR's daemons refuse to run as a user outside group frrvty (tests/lab/test_frr.py
# runs zebra and staticd as root in a namespace).
usermod -a -G frrvty,frr root

# The tests run on Debian's interpreter, whatever python3 is first in PATH.
/usr/bin/python3 -m pytest --version >/dev/null
/usr/bin/python3 -c 'import scapy.all, pyroute2' >/dev/null
