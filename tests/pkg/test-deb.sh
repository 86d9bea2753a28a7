#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The Debian package, end to end, as an operator gets it (issue 18):
#   1. build it from a copy of the tracked sources with dpkg-buildpackage -b
#      (cellgate and cellgate-dbgsym), check the hardening flags (blhc on the
#      build log, hardening-check on the binaries) and lintian (no error, no
#      warning) on the binary and the source package;
#   2. check its files: the set the issue asks for, the same set as
#      make install DESTDIR=..., the same bytes as the sources;
#   3. apt-get install ./cellgate_*.deb, then: the user, /etc/cellgate, the
#      conffile, the unit enabled and not started, systemd-analyze verify,
#      cellgated -n on the shipped config, the unit's own command lines run
#      (privilege drop, RESTCONF socket for the group cellgate, a change
#      persisted in /etc/cellgate), the SNMP subagent through the example
#      snippet's socket permissions, bash completion, and the lab modules
#      against /usr/sbin/cellgated and /usr/bin/cellgatectl;
#   4. apt-get remove (the changed conffile stays), apt-get purge, then every
#      path dpkg listed is gone (but those that existed before the install,
#      like /usr/share/doc) and nothing of ours is left elsewhere; the system
#      user stays (Debian practice: its ids must not go to another user).
# The build tree is deleted before the install, so the installed programs
# must find the YANG module where the package put it.
#
#   sudo tests/pkg/test-deb.sh        needs root, Debian 12, tests/deps.sh run
#
# It installs and purges the package cellgate on this machine (an installed
# one is purged first). Logs go to $LOGDIR/pkg (default test-logs/pkg). Exit
# status 0 when every check passed; the last line says how many did and how
# long it took (about 4 minutes on 2 cores, half of it the package build with
# its make check; DEB_BUILD_OPTIONS=nocheck leaves that out).
# The checks pass sh -c scripts their arguments as "$1"...: single quotes on purpose.
# shellcheck disable=SC2016
set -u
set -o pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOGDIR=${LOGDIR:-$ROOT/test-logs}/pkg
JOBS=${JOBS:-2}
PY=/usr/bin/python3
NS=cgpkg$$
APT=(apt-get -y -q -o DPkg::Lock::Timeout=300) # waits for another apt-get's lock
START=$(date +%s)
export PYTHONDONTWRITEBYTECODE=1 DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

passed=0
failed=0
WORK=
DAEMON_PID=
SNMPD_PID=
INSTALLED=0

mkdir -p "$LOGDIR"
rm -f "$LOGDIR"/*.log

note() { printf 'test-deb: %s\n' "$*"; }

# ok NAME / bad NAME WHY: one line per check.
ok() {
	passed=$((passed + 1))
	printf 'test-deb: ok     %s\n' "$1"
}
bad() {
	failed=$((failed + 1))
	printf 'test-deb: FAILED %s: %s\n' "$1" "$2"
}

# check NAME CMD...: ok when CMD exits 0, else FAILED with its last output lines.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		bad "$name" "$(printf '%s' "$out" | tail -n 8 | sed 's/^/    | /')"
	fi
}

elapsed() { echo $(($(date +%s) - START)); }

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local p
	for p in $DAEMON_PID $SNMPD_PID; do
		kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	ip netns del "$NS" 2>/dev/null
	if [ "$INSTALLED" = 1 ] && dpkg-query -W -f='${Status}' cellgate 2>/dev/null |
		grep -q 'ok installed'; then
		"${APT[@]}" purge cellgate >>"$LOGDIR/cleanup.log" 2>&1
	fi
	rm -rf /run/cellgate
	[ -n "$WORK" ] && rm -rf "$WORK"
}
trap cleanup EXIT

preflight() {
	local missing="" c
	if [ "$(id -u)" -ne 0 ]; then
		note "needs root (apt-get install, network namespaces)"
		exit 1
	fi
	for c in dpkg-buildpackage dpkg-source lintian blhc hardening-check apt-get \
		systemd-analyze setpriv curl ip snmpd snmpget; do
		command -v "$c" >/dev/null || missing="$missing $c"
	done
	if [ -n "$missing" ]; then
		bad "tools" "not installed:$missing (tests/deps.sh installs them)"
		finish
	fi
	if dpkg-query -W -f='${Status}' cellgate 2>/dev/null | grep -q 'installed'; then
		note "cellgate is installed already: purging it first"
		"${APT[@]}" purge cellgate >"$LOGDIR/purge-before.log" 2>&1
	fi
}

finish() {
	echo "test-deb: $passed passed, $failed failed ($(elapsed) s)"
	[ "$failed" -eq 0 ]
	exit
}

# The tracked files (and new ones not ignored) of the work tree, or the whole
# tree without build outputs when it is not a git checkout.
copy_sources() {
	local dst=$1
	mkdir -p "$dst"
	if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf -) | tar -xf - -C "$dst"
	else
		(cd "$ROOT" && tar --exclude='./build*' --exclude=./test-logs --exclude=./b-san \
			-cf - .) | tar -xf - -C "$dst"
	fi
}

VERSION=$(sed -n 's/^AC_INIT(\[cellgate\], \[\([^]]*\)\].*/\1/p' "$ROOT/configure.ac")
ARCH=$(dpkg --print-architecture)
DEB=cellgate_${VERSION}_${ARCH}.deb
DBG=cellgate-dbgsym_${VERSION}_${ARCH}.deb

# --- 1. build ---------------------------------------------------------------
build_package() {
	local t0 src
	WORK=$(mktemp -d /tmp/cgpkg.XXXXXX)
	chmod 755 "$WORK" # apt's sandbox user reads the .deb from here
	src=$WORK/cellgate-$VERSION
	SRC=$src
	copy_sources "$src"
	check "debian/changelog version is configure.ac's ($VERSION)" \
		test "$(cd "$src" && dpkg-parsechangelog -S Version)" = "$VERSION"
	# The source package too, for lintian (native: a tarball of the tree).
	check "dpkg-source -b" sh -c 'cd "$1" && dpkg-source -b "cellgate-$2" >"$3" 2>&1' \
		sh "$WORK" "$VERSION" "$LOGDIR/source.log"
	t0=$(date +%s)
	if (cd "$src" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }parallel=$JOBS" \
		dpkg-buildpackage -us -uc -b) \
		>"$LOGDIR/build.log" 2>&1; then
		ok "dpkg-buildpackage -us -uc -b ($(($(date +%s) - t0)) s)"
	else
		bad "dpkg-buildpackage -us -uc -b" "log $LOGDIR/build.log:
$(tail -n 20 "$LOGDIR/build.log" | sed 's/^/    | /')"
		finish
	fi
	check "built $DEB and $DBG" test -f "$WORK/$DEB" -a -f "$WORK/$DBG"
}

check_hardening() {
	local x=$WORK/extract
	dpkg-deb -x "$WORK/$DEB" "$x"
	# blhc: every compile and link line carries dpkg-buildflags' flags.
	check "blhc --all on the build log" blhc --all --debian "$LOGDIR/build.log"
	# hardening-check also asks for control-flow protection (x86 IBT/SHSTK
	# notes): no Debian 12 binary can have them, glibc's crt1.o/crti.o carry
	# none, and dpkg-buildflags of Debian 12 does not ask for it.
	check "hardening-check (PIE, stack protector, fortify, relro, bindnow)" \
		hardening-check --nocfprotection "$x/usr/sbin/cellgated" "$x/usr/bin/cellgatectl"
	hardening-check --nocfprotection "$x/usr/sbin/cellgated" "$x/usr/bin/cellgatectl" \
		>"$LOGDIR/hardening-check.log" 2>&1
	# The dbgsym package holds the debug info of exactly these two binaries.
	local want have
	want=$(for b in usr/sbin/cellgated usr/bin/cellgatectl; do
		readelf -n "$x/$b" | awk '/Build ID/ {print $3}'
	done | sort)
	have=$(dpkg-deb -c "$WORK/$DBG" | grep -o '[0-9a-f][0-9a-f]/[0-9a-f]*\.debug$' |
		tr -d '/' | sed 's/\.debug$//' | sort)
	check "dbgsym carries both binaries' build ids" test -n "$want" -a "$want" = "$have"
}

run_lintian() {
	local out
	out=$(cd "$WORK" && lintian --display-info --show-overrides --fail-on error,warning \
		"cellgate_${VERSION}_${ARCH}.changes" "cellgate_${VERSION}.dsc" 2>&1 |
		grep -v '^running with root privileges')
	local rc=$?
	printf '%s\n' "$out" >"$LOGDIR/lintian.log"
	note "lintian says:"
	printf '%s\n' "${out:-(nothing)}" | sed 's/^/    | /'
	if grep -qE '^[EW]: ' <<<"$out"; then
		bad "lintian: 0 errors, 0 warnings" "$(grep -cE '^[EW]: ' <<<"$out") tags"
	elif [ "$rc" -ne 0 ] && [ -z "$out" ]; then
		bad "lintian: 0 errors, 0 warnings" "lintian failed to run"
	else
		ok "lintian: 0 errors, 0 warnings"
	fi
}

# --- 2. what the package holds ----------------------------------------------
# Files the issue asks for (no directories; man pages compressed by dh).
EXPECTED="
./etc/cellgate/cellgated.json
./lib/systemd/system/cellgated.service
./usr/bin/cellgatectl
./usr/lib/sysusers.d/cellgate.conf
./usr/lib/tmpfiles.d/cellgate.conf
./usr/sbin/cellgated
./usr/share/bash-completion/completions/cellgatectl
./usr/share/doc/cellgate/README.md.gz
./usr/share/doc/cellgate/changelog.gz
./usr/share/doc/cellgate/copyright
./usr/share/doc/cellgate/examples/cellgate-snmpd.conf
./usr/share/doc/cellgate/examples/cellgated-atm.example.json
./usr/share/doc/cellgate/examples/cellgated.example.json
./usr/share/doc/cellgate/examples/frr/daemons.cellgate
./usr/share/doc/cellgate/examples/frr/zebra.conf
./usr/share/lintian/overrides/cellgate
./usr/share/man/man8/cellgatectl.8.gz
./usr/share/man/man8/cellgated.8.gz
./usr/share/snmp/mibs/CELLGATE-MIB.txt
./usr/share/yang/modules/cellgate/cellgate.yang
./usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)/cellgate/cellgate_xdp.bpf.o
"
# What debhelper adds to make install's set (and how dh_compress renames).
deb_only='^\./usr/share/doc/cellgate/(changelog\.gz|copyright)$|^\./usr/share/lintian/overrides/cellgate$'

check_contents() {
	local files inst
	files=$(dpkg-deb -c "$WORK/$DEB" | awk '$1 !~ /^d/ {print $6}' | sort)
	printf '%s\n' "$files" >"$LOGDIR/deb-files.txt"
	check "the package holds exactly the expected files" \
		diff -u <(printf '%s' "$EXPECTED" | grep . | sort) <(printf '%s\n' "$files")
	# make install DESTDIR in the tree dpkg-buildpackage configured and built.
	rm -rf "$WORK/destdir"
	if make -C "$SRC" install DESTDIR="$WORK/destdir" >"$LOGDIR/make-install.log" 2>&1; then
		inst=$(cd "$WORK/destdir" && find . ! -type d | sort)
		check "make install DESTDIR installs the package's set" \
			diff -u <(printf '%s\n' "$inst") \
			<(printf '%s\n' "$files" | grep -Ev "$deb_only" |
				sed -E 's,^(\./usr/share/(man|doc)/.*)\.gz$,\1,' | sort)
	else
		bad "make install DESTDIR=..." "log $LOGDIR/make-install.log"
	fi
	check "conffile /etc/cellgate/cellgated.json" \
		sh -c 'dpkg-deb --ctrl-tarfile "$1" | tar -xOf - ./conffiles |
			grep -qx /etc/cellgate/cellgated.json' sh "$WORK/$DEB"
	check "Suggests: frr, snmpd" \
		test "$(dpkg-deb -f "$WORK/$DEB" Suggests)" = "frr, snmpd"
	# Maintainer scripts: enabled on install, never started by it; an upgrade
	# try-restarts a running daemon; removal stops it.
	local ctl=$WORK/control
	dpkg-deb -e "$WORK/$DEB" "$ctl"
	check "postinst enables the unit and does not start it" \
		sh -c 'grep -q "deb-systemd-helper enable .cellgated.service." "$1/postinst" &&
			! grep -Eq "deb-systemd-invoke (start|restart) " "$1/postinst" &&
			grep -q "deb-systemd-invoke try-restart .cellgated.service." "$1/postinst" &&
			! grep -q "deb-systemd-invoke stop" "$1/preinst" 2>/dev/null' sh "$ctl"
	check "prerm stops the unit on remove" \
		grep -q 'deb-systemd-invoke stop cellgated.service' "$ctl/prerm"
}

# --- 3. installed -------------------------------------------------------------
install_package() {
	# The package's paths that exist already (/, /usr, /lib...): after the
	# purge, every other one must be gone.
	dpkg-deb -c "$WORK/$DEB" | awk '{print $6}' | sed -e 's,^\.,,' -e 's,/$,,' |
		while IFS= read -r p; do
			if [ -n "$p" ] && { [ -e "$p" ] || [ -L "$p" ]; }; then echo "$p"; fi
		done >"$LOGDIR/pre-existing.txt"
	if (cd "$WORK" && "${APT[@]}" install "./$DEB") >"$LOGDIR/apt-install.log" 2>&1; then
		INSTALLED=1
		ok "apt-get install -y ./$DEB"
	else
		INSTALLED=1
		bad "apt-get install -y ./$DEB" "log $LOGDIR/apt-install.log:
$(tail -n 15 "$LOGDIR/apt-install.log" | sed 's/^/    | /')"
		finish
	fi
	dpkg-query -L cellgate | sort >"$LOGDIR/dpkg-L.txt"
	check "dpkg lists the programs and the conffile" \
		sh -c 'grep -qx /usr/sbin/cellgated "$1" && grep -qx /etc/cellgate/cellgated.json "$1"' \
		sh "$LOGDIR/dpkg-L.txt"
}

check_installed() {
	local unit=/lib/systemd/system/cellgated.service
	check "user cellgate (sysusers.d), no login" \
		sh -c 'getent passwd cellgate | grep -q ":/nonexistent:/usr/sbin/nologin$"'
	check "/etc/cellgate is cellgate:cellgate 0750 (tmpfiles.d)" \
		test "$(stat -c '%U:%G %a' /etc/cellgate)" = "cellgate:cellgate 750"
	check "unit enabled (multi-user.target.wants)" \
		test "$(readlink /etc/systemd/system/multi-user.target.wants/cellgated.service)" = "$unit"
	check "systemctl is-enabled cellgated" \
		sh -c 'test "$(systemctl is-enabled cellgated.service)" = enabled'
	# (Other cellgated processes may run here: only the installed binary counts.)
	check "unit not started by the install" \
		bash -c '! for p in $(pgrep -x cellgated); do readlink "/proc/$p/exe"; done |
			grep -qx /usr/sbin/cellgated'
	check "systemd-analyze verify $unit" verify_unit "$unit"
	check "cellgated --version" \
		test "$(/usr/sbin/cellgated --version)" = "cellgated $VERSION"
	check "cellgated -n (default -f) on the shipped config" \
		sh -c '/usr/sbin/cellgated -n >"$1"' sh "$LOGDIR/cellgated-n.json"
	check "the unit's ExecStartPre passes" \
		sh -c "$(sed -n 's/^ExecStartPre=//p' "$unit")"
	check "shipped config: no port, no FPM, no TCP listener" \
		"$PY" -c 'import json, sys
c = json.load(open(sys.argv[1]))["cellgate:cellgate"]
assert not c.get("port"), c
assert c["routing"]["fpm"]["enabled"] is False, c
assert not c["restconf"].get("tcp-listener"), c
assert c["restconf"]["unix-socket"]["enabled"] is True, c' "$LOGDIR/cellgated-n.json"
	local f
	for f in mgmt/yang/cellgate.yang:/usr/share/yang/modules/cellgate/cellgate.yang \
		mibs/CELLGATE-MIB.txt:/usr/share/snmp/mibs/CELLGATE-MIB.txt \
		etc/cellgate-snmpd.conf:/usr/share/doc/cellgate/examples/cellgate-snmpd.conf \
		etc/frr/zebra.conf:/usr/share/doc/cellgate/examples/frr/zebra.conf \
		etc/cellgated.json:/etc/cellgate/cellgated.json; do
		check "${f#*:} is the sources' ${f%%:*}" cmp "$ROOT/${f%%:*}" "${f#*:}"
	done
	if [ -f /usr/share/bash-completion/bash_completion ]; then
		check "bash completion loads for cellgatectl" bash -c \
			'. /usr/share/bash-completion/bash_completion; __load_completion cellgatectl &&
			 complete -p cellgatectl | grep -q -- "-F _cellgatectl"'
	else
		bad "bash completion loads for cellgatectl" "bash-completion not installed"
	fi
}

# shellcheck disable=SC2317 # called through check
# systemd-analyze verify on the installed unit: its complaints fail, the
# host's other units' do not (no systemd as PID 1 here; see test_service.py).
verify_unit() {
	local out rc=0
	out=$(systemd-analyze verify --man=no "$1" 2>&1) || rc=$?
	printf '%s\n' "$out" >"$LOGDIR/systemd-analyze.log"
	grep 'cellgated.service' <<<"$out" && return 1
	return "$rc"
}

# The unit's ExecStart as systemd would run it (without the sandbox, which
# needs systemd as PID 1): in a namespace of ours, as root, dropping to the
# user cellgate; RuntimeDirectory= is made by hand.
run_service() {
	local unit=/lib/systemd/system/cellgated.service cmd uid gid
	cmd=$(sed -n 's/^ExecStart=//p' "$unit")
	ip netns add "$NS" && ip -n "$NS" link set lo up
	install -d -m 0755 /run/cellgate
	# shellcheck disable=SC2086 # the unit's command line, split as systemd does here
	ip netns exec "$NS" $cmd >"$LOGDIR/service.log" 2>&1 &
	DAEMON_PID=$!
	for _ in $(seq 100); do
		[ -s /run/cellgate/cellgated.pid ] && break
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.1
	done
	if ! [ -s /run/cellgate/cellgated.pid ]; then
		bad "the unit's ExecStart starts cellgated" "log:
$(tail -n 10 "$LOGDIR/service.log" | sed 's/^/    | /')"
		return
	fi
	ok "the unit's ExecStart starts cellgated (0 ports)"
	uid=$(id -u cellgate)
	gid=$(getent group cellgate | cut -d: -f3)
	check "it runs as cellgate" \
		sh -c 'grep -Eq "^Uid:[[:space:]]+$2[[:space:]]" "/proc/$1/status"' sh "$DAEMON_PID" "$uid"
	check "restconf.sock is root:cellgate 0660" \
		test "$(stat -c '%U:%G %a' /run/cellgate/restconf.sock)" = "root:cellgate 660"
	check "a member of group cellgate may use cellgatectl" \
		setpriv --reuid=65534 --regid=65534 --groups="$gid" /usr/bin/cellgatectl show fpm
	check "a user outside it may not" \
		sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/cellgatectl show fpm 2>&1 |
			grep "Permission denied"'
	check "cellgatectl route add persists in /etc/cellgate (as user cellgate)" \
		sh -c '/usr/bin/cellgatectl route add 192.0.2.0/24 blackhole &&
			grep -q "192.0.2.0/24" /etc/cellgate/cellgated.json &&
			test "$(stat -c %U /etc/cellgate/cellgated.json)" = cellgate &&
			/usr/sbin/cellgated -n >/dev/null'
	kill -TERM "$DAEMON_PID"
	local rc=0
	for _ in $(seq 100); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
	wait "$DAEMON_PID" || rc=$?
	DAEMON_PID=
	check "SIGTERM stops it with status 0" test "$rc" -eq 0
	ip netns del "$NS"
	rm -rf /run/cellgate # RuntimeDirectory= goes with the service
}

# snmpd with the example snippet's agentXPerms, and cellgated dropped to the
# user cellgate: its subagent must register again after snmpd restarts (the
# lab's SNMP module runs cellgated as root, which any socket lets in).
run_snmp_subagent() {
	local d=$WORK/snmp oid=.1.3.6.1.4.1.32473.1.2.1.0 # cgFpmState
	local perms cfg
	mkdir -p "$d/run" && chmod 755 "$d"
	perms=$(grep '^agentXPerms ' /usr/share/doc/cellgate/examples/cellgate-snmpd.conf)
	printf 'master agentx\nagentXSocket %s\n%s\nagentaddress udp:127.0.0.1:10161\n%s\n' \
		"$d/agentx/master" "$perms" "rocommunity public 127.0.0.1" >"$d/snmpd.conf"
	cfg='{"cellgate:cellgate": {"routing": {"fpm": {"enabled": false}},
	  "snmp": {"agentx-socket": "'$d/agentx/master'", "ping-interval": 1}}}'
	printf '%s\n' "$cfg" >"$d/cellgated.json"
	ip netns add "$NS" && ip -n "$NS" link set lo up
	snmpd_start "$d"
	ip netns exec "$NS" /usr/sbin/cellgated -d -f "$d/cellgated.json" -r "$d/run" -u cellgate \
		>"$LOGDIR/snmp-cellgated.log" 2>&1 &
	DAEMON_PID=$!
	check "subagent (user cellgate) registers with snmpd" snmp_wait "$oid"
	kill -TERM "$SNMPD_PID" && wait "$SNMPD_PID"
	snmpd_start "$d"
	check "subagent (user cellgate) registers again after an snmpd restart" snmp_wait "$oid"
	kill -TERM "$SNMPD_PID" "$DAEMON_PID"
	wait "$SNMPD_PID" "$DAEMON_PID"
	SNMPD_PID='' DAEMON_PID=''
	ip netns del "$NS"
}

snmpd_start() {
	ip netns exec "$NS" snmpd -f -Lo -C -c "$1/snmpd.conf" -p "$1/snmpd.pid" \
		>>"$LOGDIR/snmpd.log" 2>&1 &
	SNMPD_PID=$!
}

# shellcheck disable=SC2317 # called through check
snmp_wait() {
	local _ out
	for _ in $(seq 40); do
		out=$(ip netns exec "$NS" snmpget -v2c -c public -On -t 1 -r 0 127.0.0.1:10161 "$1" 2>&1)
		grep -q "$1 = INTEGER: 1" <<<"$out" && return 0
		sleep 0.25
	done
	printf '%s\n' "$out"
	tail -n 5 "$LOGDIR/snmp-cellgated.log"
	return 1
}

# Lab modules against the installed programs. CELLGATECTL: the lab would
# otherwise look for it next to the daemon's build directory.
LAB_MODULES="test_forwarding test_restconf test_restconf_persist test_snmp test_cellgatectl
test_service test_config test_reload"
run_labs() {
	local files=() m rc=0 t0
	for m in $LAB_MODULES; do files+=("tests/lab/$m.py"); done
	t0=$(date +%s)
	(cd "$ROOT" && CELLGATED=/usr/sbin/cellgated CELLGATECTL=/usr/bin/cellgatectl \
		timeout 900 "$PY" -m pytest -q -p no:cacheprovider \
		--junitxml="$LOGDIR/lab.xml" "${files[@]}") >"$LOGDIR/lab.log" 2>&1 || rc=$?
	local last
	last=$(tail -n 1 "$LOGDIR/lab.log")
	if [ "$rc" -eq 0 ] && grep -q ' passed' <<<"$last" && ! grep -q 'skipped' <<<"$last"; then
		ok "lab on the installed binaries: $last ($(($(date +%s) - t0)) s)"
	else
		bad "lab on the installed binaries" "exit $rc, log $LOGDIR/lab.log:
$(grep -E '^(FAILED|ERROR) ' "$LOGDIR/lab.log" | sed 's/^/    | /')
    | $last"
	fi
}

# --- 4. purge -----------------------------------------------------------------
purge_package() {
	local p left=()
	# Remove first: the programs go, the (changed) configuration stays.
	if "${APT[@]}" remove cellgate >"$LOGDIR/apt-remove.log" 2>&1; then
		ok "apt-get remove -y cellgate"
	else
		bad "apt-get remove -y cellgate" "log $LOGDIR/apt-remove.log"
	fi
	check "after remove: programs gone, the changed conffile kept" \
		sh -c '! [ -e /usr/sbin/cellgated ] && grep -q 192.0.2.0/24 /etc/cellgate/cellgated.json &&
			dpkg-query -W -f="\${Status}" cellgate | grep -q config-files'
	if "${APT[@]}" purge cellgate >"$LOGDIR/apt-purge.log" 2>&1; then
		INSTALLED=0
		ok "apt-get purge -y cellgate"
	else
		bad "apt-get purge -y cellgate" "log $LOGDIR/apt-purge.log"
		return
	fi
	check "dpkg knows no cellgate any more" \
		sh -c '! dpkg-query -W -f="\${Status}" cellgate 2>/dev/null | grep -Eq "installed|config-files"'
	# Every path dpkg listed is gone, but those that existed before the
	# install (directories such as /usr/share/doc).
	while IFS= read -r p; do
		[ "$p" = /. ] && continue
		[ -e "$p" ] || [ -L "$p" ] || continue
		grep -qxF -- "$p" "$LOGDIR/pre-existing.txt" && continue
		left+=("$p")
	done <"$LOGDIR/dpkg-L.txt"
	if [ "${#left[@]}" -eq 0 ]; then
		ok "every path dpkg listed is gone ($(wc -l <"$LOGDIR/dpkg-L.txt") paths)"
	else
		bad "every path dpkg listed is gone" "left: ${left[*]}"
	fi
	# What dpkg did not list: the config directory with what cellgated wrote,
	# the enable symlink and deb-systemd-helper's state, the runtime dir.
	for p in /etc/cellgate /etc/systemd/system/multi-user.target.wants/cellgated.service \
		/var/lib/systemd/deb-systemd-helper-enabled/cellgated.service.dsh-also \
		/var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/cellgated.service \
		/var/lib/systemd/deb-systemd-helper-masked/cellgated.service /run/cellgate; do
		check "gone: $p" sh -c '! [ -e "$1" ] && ! [ -L "$1" ]' sh "$p"
	done
	check "no maintainer script left in /var/lib/dpkg/info" \
		sh -c '! ls /var/lib/dpkg/info/cellgate.* >/dev/null 2>&1'
	if getent passwd cellgate >/dev/null; then
		note "the system user cellgate stays (allowed: Debian keeps system users)"
	fi
}

preflight
note "cellgate $VERSION ($ARCH); logs in $LOGDIR"
build_package
check_hardening
run_lintian
check_contents
# Without the build tree, the programs must find cellgate.yang where the
# package installed it (they fall back to the source tree they were built in).
rm -rf "$SRC"
install_package
check_installed
run_service
run_snmp_subagent
run_labs
purge_package
finish
