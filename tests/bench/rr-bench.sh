#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Request/response benchmark: the Linux kernel forwarding, then cellgated, on
# the same namespace topology in one run, side by side.  Not part of the
# pass/fail suite.  Needs root, sockperf and ping (tests/deps.sh).
#
#   tests/bench/rr-bench.sh [-t SECONDS] [-n PINGS] [-i INTERVAL] [-s SPARSE]
#                           [-r REPEATS] [-b CELLGATED] [-d DRIVERS] [--eth-only | --atm-only]
#
# -d DRIVERS: comma-separated Ethernet drivers of r for Eth->Eth (afpacket,
# afxdp; default afpacket): each measured after the kernel in every repeat,
# one table per driver against the same kernel figures. Eth->ATM->Eth runs
# on the first.
# Eth->Eth:      h1 -- r -- h2            (one router: r)
# Eth->ATM->Eth: h1 -- r ==PW== a1 -- h4  (two routers: r and a1, joined by a
#                cell pseudowire on a veth for cellgated; by a plain routed
#                veth for the kernel, so both cross the same two hops)
# Per topology and repeat: the kernel (ip_forward=1), then cellgated: sockperf
# ping-pong over TCP and over UDP (14-byte messages, SECONDS each) in
# transactions/s, then PINGS pings every INTERVAL s (default 1 ms) and SPARSE
# pings 10 ms apart (CPUs go idle in between, as for a lone packet): RTT
# median, p99, max.
# CPUs (environment): sockperf's client and ping on CLIENT_CPU, its server on
# SERVER_CPU (both default HOST_CPU, 0); r's worker on RTR_CPU, a1's on
# A1_CPU (default 0 too); the control threads on the CPUs the workers leave.
# Kernel forwarding has no thread: it runs in softirq on the CPU that sends,
# so the default puts cellgated's workers there as well, the same CPU
# budget for both. RTR_CPU=1 A1_CPU=1 gives the workers a CPU of their own
# (BENCHMARKS.md compares the arrangements: on this VM every hop between
# CPUs costs an inter-processor wakeup of tens of microseconds).
set -u

T=5
NPING=2000
PINT=0.001
NSPARSE=300
REPS=1
BIN=${CELLGATED:-}
DRIVERS=afpacket
DO_ETH=1
DO_ATM=1
HOST_CPU=${HOST_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-$HOST_CPU}
SERVER_CPU=${SERVER_CPU:-$HOST_CPU}
RTR_CPU=${RTR_CPU:-0}
A1_CPU=${A1_CPU:-0}
while [ $# -gt 0 ]; do
	case $1 in
	-t) T=$2; shift 2 ;;
	-n) NPING=$2; shift 2 ;;
	-i) PINT=$2; shift 2 ;;
	-s) NSPARSE=$2; shift 2 ;;
	-r) REPS=$2; shift 2 ;;
	-b) BIN=$2; shift 2 ;;
	-d) DRIVERS=$2; shift 2 ;;
	--eth-only) DO_ATM=0; shift ;;
	--atm-only) DO_ETH=0; shift ;;
	*) sed -n '3,32p' "$0"; exit 2 ;;
	esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
BIN=${BIN:-$ROOT/build/daemon/cellgated}
[ "$(id -u)" -eq 0 ] || { echo "rr-bench: needs root" >&2; exit 1; }
for t in sockperf ping taskset; do
	command -v $t >/dev/null || { echo "rr-bench: $t missing (tests/deps.sh)" >&2; exit 1; }
done
[ -x "$BIN" ] || { echo "rr-bench: $BIN not built" >&2; exit 1; }

WORK=$(mktemp -d /tmp/cg-rr.XXXXXX)
LAB_TAG=""
PIDS=""
CG_PIDS=""
cleanup() {
	stop_all
	[ -n "$LAB_TAG" ] && "$PY" "$ROOT/tests/lab/lab.py" down "$LAB_TAG"
	[ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_cg NS CONFIG NAME: cellgated in NS; waits for its pidfile.
start_cg() {
	local ns=$1 cfg=$2 name=$3 pid
	mkdir -p "$WORK/$name"
	ip netns exec "$ns" "$BIN" -f "$cfg" -d -r "$WORK/$name" 2>"$WORK/$name.log" &
	pid=$!
	CG_PIDS="$CG_PIDS $pid"
	for _ in $(seq 100); do
		[ -s "$WORK/$name/cellgated.pid" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "rr-bench: cellgated ($name) did not start:" >&2
	cat "$WORK/$name.log" >&2
	exit 1
}

# stop_cg: SIGTERM every cellgated started, wait for each.
stop_cg() {
	for p in $CG_PIDS; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	CG_PIDS=""
}

stop_all() {
	stop_cg
	for p in $PIDS; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	PIDS=""
}

# servers NS IP: sockperf servers (UDP on 11111, TCP on 11112) on HOST_CPU.
servers() {
	ip netns exec "$1" taskset -c "$SERVER_CPU" sockperf server -i "$2" -p 11111 \
		>"$WORK/srv-udp.log" 2>&1 &
	PIDS="$PIDS $!"
	ip netns exec "$1" taskset -c "$SERVER_CPU" sockperf server --tcp -i "$2" -p 11112 \
		>"$WORK/srv-tcp.log" 2>&1 &
	PIDS="$PIDS $!"
	sleep 0.5
}

# rr NS IP udp|tcp: transactions/s (ReceivedMessages / RunTime of the valid part).
rr() {
	local port=11111 opt=""
	[ "$3" = tcp ] && { port=11112; opt=--tcp; }
	ip netns exec "$1" taskset -c "$CLIENT_CPU" sockperf ping-pong $opt -i "$2" -p $port \
		-t "$T" -m 14 2>&1 | tee "$WORK/rr-$3.log" |
		sed -n 's/.*Valid Duration\] RunTime=\([0-9.]*\) sec.*ReceivedMessages=\([0-9]*\).*/\1 \2/p' |
		awk '{ if ($1 > 0) printf "%.0f\n", $2 / $1; else print 0 }'
}

# pings NS IP COUNT INTERVAL: "median p99 max" RTT in microseconds.
pings() {
	ip netns exec "$1" taskset -c "$CLIENT_CPU" ping -n -c "$3" -i "$4" -W 1 "$2" 2>&1 |
		sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' | sort -g |
		awk '{ v[NR] = $1 * 1000 } END {
			if (NR == 0) { print "0 0 0"; exit }
			m = v[int((NR + 1) / 2)]; i = int(NR * 0.99 + 0.999); if (i > NR) i = NR
			printf "%.0f %.0f %.0f\n", m, v[i], v[NR] }'
}

# measure NS IP: one line "tcp udp median p99 max median p99 max" (dense, sparse pings).
measure() {
	local tcp udp pd ps
	ip netns exec "$1" ping -c 3 -i 0.2 -W 1 "$2" >/dev/null ||
		echo "rr-bench: warning: no ping reply from $2" >&2
	tcp=$(rr "$1" "$2" tcp)
	udp=$(rr "$1" "$2" udp)
	pd=$(pings "$1" "$2" "$NPING" "$PINT")
	ps=$(pings "$1" "$2" "$NSPARSE" 0.01)
	echo "${tcp:-0} ${udp:-0} $pd $ps"
}

# table TITLE FILE: FILE has the kernel's 8 figures then cellgated's 8 per repeat.
table() {
	echo
	echo "$1 (medians of $REPS; ratio = cellgated / kernel)"
	awk -v pint="$PINT" '
	function med(col,   n, i, j, t, a) {
		n = 0
		for (i = 1; i <= NR; i++) a[++n] = row[i, col]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ for (c = 1; c <= 16; c++) row[NR, c] = $c }
	END {
		name[1] = "TCP transactions/s"; name[2] = "UDP transactions/s"
		name[3] = "ping " pint " s: median us"; name[4] = "ping " pint " s: p99 us"
		name[5] = "ping " pint " s: max us"
		name[6] = "ping 0.01 s: median us"; name[7] = "ping 0.01 s: p99 us"
		name[8] = "ping 0.01 s: max us"
		printf "  %-26s %11s %11s %7s\n", "", "kernel", "cellgated", "ratio"
		for (c = 1; c <= 8; c++) {
			k = med(c); g = med(c + 8)
			printf "  %-26s %11.0f %11.0f %7.2f\n", name[c], k, g, (k > 0 ? g / k : 0)
		}
		if (NR > 1) {
			print "  per repeat, kernel | cellgated (tcp udp dense-ping med p99 max sparse med p99 max):"
			for (i = 1; i <= NR; i++) {
				line = "   "
				for (c = 1; c <= 16; c++) line = line " " row[i, c] (c == 8 ? " |" : "")
				print line
			}
		}
	}' "$2"
}

kernel_eth() {
	for h in 1 2; do ip -n "$NS_R" addr replace 10.0.$h.1/24 dev r-h$h; done
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
}

kernel_off_eth() {
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=0
}

bench_eth() {
	eval "$("$PY" "$ROOT/tests/lab/lab.py" up $$)" || exit 1
	for d in ${DRIVERS//,/ }; do
		"$PY" "$ROOT/tests/lab/lab.py" config "$RTR_CPU" "$d" >"$WORK/eth-$d.json"
		: >"$WORK/eth-$d.res"
	done
	servers "$NS_H2" 10.0.2.2
	for _ in $(seq "$REPS"); do
		kernel_eth
		k=$(measure "$NS_H1" 10.0.2.2)
		kernel_off_eth
		for d in ${DRIVERS//,/ }; do
			start_cg "$NS_R" "$WORK/eth-$d.json" "eth-r-$d"
			c=$(measure "$NS_H1" 10.0.2.2)
			stop_cg
			echo "$k $c" >>"$WORK/eth-$d.res"
		done
	done
	stop_all
	"$PY" "$ROOT/tests/lab/lab.py" down "$LAB_TAG"
	LAB_TAG=""
	for d in ${DRIVERS//,/ }; do
		table "Eth->Eth: h1 -- r -- h2, r's ports on $d" "$WORK/eth-$d.res"
	done
}

# The kernel over the same two hops: r-a1/a1-r as a routed /30 instead of the pseudowire.
kernel_atm() {
	ip -n "$NS_R" addr replace 10.0.1.1/24 dev r-h1
	ip -n "$NS_R" addr replace 10.1.0.1/30 dev r-a1
	ip -n "$NS_A1" addr replace 10.1.0.2/30 dev a1-r
	ip -n "$NS_A1" addr replace 10.0.4.1/24 dev a1-h4
	ip -n "$NS_R" route replace 10.0.4.0/24 via 10.1.0.2
	ip -n "$NS_A1" route replace 10.0.1.0/24 via 10.1.0.1
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$NS_A1" sysctl -qw net.ipv4.ip_forward=1
}

kernel_off_atm() {
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=0
	ip netns exec "$NS_A1" sysctl -qw net.ipv4.ip_forward=0
	ip -n "$NS_R" addr flush dev r-a1
	ip -n "$NS_A1" addr flush dev a1-r
}

bench_atm() {
	eval "$("$PY" "$ROOT/tests/lab/atmlab.py" up $$)" || exit 1
	"$PY" "$ROOT/tests/lab/atmlab.py" config r "$LAB_TAG" "$RTR_CPU" >"$WORK/atm-r.json"
	"$PY" "$ROOT/tests/lab/atmlab.py" config a1 "$LAB_TAG" "$A1_CPU" >"$WORK/atm-a1.json"
	servers "$NS_H4" 10.0.4.2
	: >"$WORK/atm.res"
	for _ in $(seq "$REPS"); do
		kernel_atm
		k=$(measure "$NS_H1" 10.0.4.2)
		kernel_off_atm
		start_cg "$NS_R" "$WORK/atm-r.json" atm-r
		start_cg "$NS_A1" "$WORK/atm-a1.json" atm-a1
		sleep 1 # OAM and InATMARP settle
		c=$(measure "$NS_H1" 10.0.4.2)
		stop_cg
		echo "$k $c" >>"$WORK/atm.res"
	done
	stop_all
	"$PY" "$ROOT/tests/lab/lab.py" down "$LAB_TAG"
	LAB_TAG=""
	table "Eth->ATM->Eth: h1 -- r ==PW== a1 -- h4 (kernel: h1 -- r -- a1 -- h4)" "$WORK/atm.res"
}

echo "cellgate request/response benchmark: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sockperf ping-pong 14 B, $T s per protocol; $NPING pings every $PINT s, $NSPARSE every 0.01 s; $REPS repeat(s)"
echo "CPUs: sockperf client and ping on $CLIENT_CPU, sockperf server on $SERVER_CPU; cellgated worker on $RTR_CPU (r), $A1_CPU (a1);"
echo "      kernel forwarding in softirq on the sending CPU"
echo "cellgated: $BIN (Ethernet drivers: $DRIVERS)"
[ "$DO_ETH" -eq 1 ] && bench_eth
[ "$DO_ATM" -eq 1 ] && bench_atm
exit 0
