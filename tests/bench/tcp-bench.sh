#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# TCP throughput through the router: iperf3 h1 -> h2, first through the
# kernel forwarding, then through cellgated, on the same topology, with the
# hosts' offloads off (MTU-sized segments) and on (TSO/GSO super-packets).
# Not part of the pass/fail suite.  Needs root and iperf3 (tests/deps.sh).
#
#   tests/bench/tcp-bench.sh [-t SECONDS] [-r REPEATS] [-b CELLGATED]
#
# CPUs: iperf3 client and server unpinned; cellgated's worker on RTR_CPU (1).
set -u

T=5
REPS=1
BIN=${CELLGATED:-}
RTR_CPU=${RTR_CPU:-1}
while [ $# -gt 0 ]; do
	case $1 in
	-t) T=$2; shift 2 ;;
	-r) REPS=$2; shift 2 ;;
	-b) BIN=$2; shift 2 ;;
	*) sed -n '3,11p' "$0"; exit 2 ;;
	esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
BIN=${BIN:-$ROOT/build/daemon/cellgated}
[ "$(id -u)" -eq 0 ] || { echo "tcp-bench: needs root" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "tcp-bench: iperf3 missing (tests/deps.sh)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "tcp-bench: $BIN not built" >&2; exit 1; }

WORK=$(mktemp -d /tmp/cg-tcp.XXXXXX)
LAB_TAG=""
PIDS=""
CG=""
cleanup() {
	[ -n "$CG" ] && kill "$CG" 2>/dev/null && wait "$CG" 2>/dev/null
	for p in $PIDS; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	[ -n "$LAB_TAG" ] && "$PY" "$ROOT/tests/lab/lab.py" down "$LAB_TAG"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# gbps: one iperf3 run h1 -> h2, Gbit/s received (0, and iperf3's error on stderr, if it failed).
gbps() {
	ip netns exec "$NS_H1" iperf3 -c 10.0.2.2 -t "$T" -J 2>/dev/null |
		"$PY" -c 'import json,sys
j = json.load(sys.stdin)
try: print("%.2f" % (j["end"]["sum_received"]["bits_per_second"] / 1e9))
except Exception:
    print("0"); print("tcp-bench: iperf3: %s" % j.get("error", "no result"), file=sys.stderr)'
}

offloads() { # on|off: TSO/GSO/GRO/TX checksumming on the host veths
	ip netns exec "$NS_H1" ethtool -K h1-r tso "$1" gso "$1" gro "$1" tx "$1" >/dev/null 2>&1
	ip netns exec "$NS_H2" ethtool -K h2-r tso "$1" gso "$1" gro "$1" tx "$1" >/dev/null 2>&1
}

echo "cellgate TCP benchmark: iperf3 h1 -> h2, $T s per run, $REPS repeat(s); $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "CPUs: iperf3 unpinned; cellgated worker on $RTR_CPU; kernel forwarding in softirq on the sending CPU"
echo "cellgated: $BIN"
eval "$("$PY" "$ROOT/tests/lab/lab.py" up $$)" || exit 1
"$PY" "$ROOT/tests/lab/lab.py" config "$RTR_CPU" >"$WORK/cg.json"
ip netns exec "$NS_H2" iperf3 -s >/dev/null 2>&1 &
PIDS="$PIDS $!"
sleep 0.5
printf '%-14s %-8s %10s %10s %7s\n' offloads repeat kernel cellgated ratio
for off in off on; do
	offloads "$off"
	for i in $(seq "$REPS"); do
		for h in 1 2; do ip -n "$NS_R" addr replace 10.0.$h.1/24 dev r-h$h; done
		ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
		k=$(gbps)
		ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=0
		mkdir -p "$WORK/run"
		ip netns exec "$NS_R" "$BIN" -f "$WORK/cg.json" -d -r "$WORK/run" 2>"$WORK/cg.log" &
		CG=$!
		for _ in $(seq 100); do [ -s "$WORK/run/cellgated.pid" ] && break; sleep 0.1; done
		ip netns exec "$NS_H1" ping -c 2 -i 0.2 -W 1 10.0.2.2 >/dev/null
		c=$(gbps)
		kill "$CG" && wait "$CG"
		CG=""
		rm -f "$WORK/run/cellgated.pid"
		awk -v o="$off" -v i="$i" -v k="$k" -v c="$c" \
			'BEGIN { printf "%-14s %-8s %10.2f %10.2f %7.2f\n", o, i, k, c, (k > 0 ? c / k : 0) }'
	done
done
