#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# Get what the ATM VM lab boots, into a cache directory (never the repo):
# Debian's 6.1 kernel image (linux-image-amd64's dependency) unpacked, not
# installed, and atmtcp.ko rebuilt from Debian's linux-source-6.1 with
# atmtcp-ctrl.patch against the matching linux-headers (Debian's own
# atmtcp.ko rejects atmtcp's control replies: bind() on a PVC never returns).
#
#   tests/vm/prepare.sh          prints KEY=VALUE lines: CACHE KVER VMLINUZ MODROOT ATMTCP_KO
#
# Exit 0 = ready; 77 = cannot run here (the reason on stderr, loud);
# anything else = a real failure. Installs missing Debian packages when root.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${CELLGATE_VM_CACHE:-${XDG_CACHE_HOME:-/var/tmp}/cellgate-vm}
PKGS="qemu-system-x86 busybox-static atm-tools br2684ctl cpio gcc make libc6-dev
linux-libc-dev xz-utils patch"

skip() { echo "VM LAB SKIPPED: $*" >&2; exit 77; }
fail() { echo "vm prepare: $*" >&2; exit 1; }
log() { echo "vm prepare: $*" >&2; }

# install PKG...: the missing ones, from Debian (root only).
install() {
	local need=() p
	for p in "$@"; do
		dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
	done
	[ ${#need[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || skip "missing packages ${need[*]} and not root to install them"
	log "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" \
		>&2 || { apt-get update -q >&2 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"${need[@]}" >&2; } || skip "apt-get install ${need[*]} failed"
}

# shellcheck disable=SC2086
install $PKGS
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64"
mkdir -p "$CACHE" || fail "cannot create cache $CACHE"
# One preparation at a time (two lab runs may share the cache).
exec 9>"$CACHE/.lock"
flock -w 900 9 || fail "cache $CACHE locked for 15 minutes"

# The kernel package: what linux-image-amd64 depends on now, else the newest cached one.
KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null |
	awk '/Depends: linux-image-[0-9]/{print $2; exit}')
if [ -z "$KPKG" ]; then
	KPKG=$(ls -1 "$CACHE" 2>/dev/null | grep '^linux-image-' | sort -V | tail -1)
	[ -n "$KPKG" ] || skip "apt knows no linux-image-amd64 (apt-get update?) and nothing is cached"
fi
K=$CACHE/$KPKG
if [ ! -f "$K/.unpacked" ]; then
	log "downloading and unpacking $KPKG"
	rm -rf "$K" && mkdir -p "$K/dl" "$K/root" || fail "cannot write $K"
	(cd "$K/dl" && apt-get download "$KPKG" >&2) || skip "apt-get download $KPKG failed"
	dpkg-deb -x "$K"/dl/"$KPKG"_*.deb "$K/root" || fail "dpkg-deb -x $KPKG"
	dpkg-deb -f "$K"/dl/"$KPKG"_*.deb Version >"$K/debversion"
	rm -f "$K"/dl/*.deb
	touch "$K/.unpacked"
fi
KVER=$(ls "$K/root/lib/modules" | head -1)
KDEB_VER=$(cat "$K/debversion")
VMLINUZ=$K/root/boot/vmlinuz-$KVER
MODROOT=$K/root/lib/modules/$KVER
[ -f "$VMLINUZ" ] && [ -f "$MODROOT/kernel/net/atm/atm.ko" ] ||
	fail "$KPKG has no vmlinuz or atm.ko"
# The package leaves modules.dep to its postinst: make it for the unpacked tree.
if [ ! -f "$MODROOT/modules.dep" ]; then
	install kmod
	depmod -b "$K/root" "$KVER" || fail "depmod for $KVER"
fi

# atmtcp.ko, patched, built against this kernel's headers.
ATMTCP_KO=$K/atmtcp/atmtcp.ko
PATCH=$HERE/atmtcp-ctrl.patch
if [ ! -f "$ATMTCP_KO" ] || [ "$PATCH" -nt "$ATMTCP_KO" ]; then
	install "linux-headers-$KVER"
	M=$K/atmtcp
	mkdir -p "$M"
	if [ ! -f "$M/atmtcp.c.debian" ]; then
		log "fetching linux-source-6.1=$KDEB_VER for drivers/atm/atmtcp.c"
		mkdir -p "$K/src"
		(cd "$K/src" && apt-get download "linux-source-6.1=$KDEB_VER" >&2) ||
			skip "apt-get download linux-source-6.1=$KDEB_VER failed"
		dpkg-deb --fsys-tarfile "$K"/src/linux-source-6.1_*.deb |
			tar -xO -f - ./usr/src/linux-source-6.1.tar.xz |
			tar -xJO -f - linux-source-6.1/drivers/atm/atmtcp.c >"$M/atmtcp.c.debian" ||
			fail "cannot extract atmtcp.c from linux-source-6.1"
		rm -rf "$K/src"
	fi
	cp "$M/atmtcp.c.debian" "$M/atmtcp.c"
	patch -s "$M/atmtcp.c" "$PATCH" || fail "atmtcp-ctrl.patch does not apply to $KDEB_VER"
	echo 'obj-m := atmtcp.o' >"$M/Kbuild"
	make -s -C "/usr/src/linux-headers-$KVER" M="$M" modules >"$M/build.log" 2>&1 ||
		{ tail -20 "$M/build.log" >&2; fail "atmtcp.ko does not build"; }
	strip --strip-debug "$M/atmtcp.ko"
fi

printf 'CACHE=%s\nKVER=%s\nVMLINUZ=%s\nMODROOT=%s\nATMTCP_KO=%s\n' \
	"$CACHE" "$KVER" "$VMLINUZ" "$MODROOT" "$ATMTCP_KO"
