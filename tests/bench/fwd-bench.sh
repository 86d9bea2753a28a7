#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# End-to-end 64-byte IPv4 (or, with -6, 84-byte IPv6) forwarding benchmark,
# h1 -> r -> h2 over veths: cellgated on each driver asked for, and the Linux
# kernel forwarding the same traffic in the same namespace, in one run.  Not
# part of the pass/fail suite.  Needs root.
#
#   tests/bench/fwd-bench.sh [-t SECONDS] [-b CELLGATED] [-d DRIVERS] [-r REPEATS]
#                            [--sweep] [--cpu RATE] [--kernel-only] [-6]
#
#   -d DRIVERS  comma-separated cellgated drivers, e.g. afxdp or afpacket,afxdp
#               (default afpacket)
#   -r REPEATS  rounds; each round measures every router once, in turn, and
#               the summary gives each figure's median over the rounds
#   --sweep     also the highest trafgen rate with zero loss, per router
#   --cpu RATE  also CPU per delivered packet at RATE pps (a rate every router
#               sustains): busy time of both CPUs from /proc/stat over the run
#               (the generator's share included, the same for all routers),
#               divided by the frames h2 received. The generator is then
#               pace_udp (tests/bench/pace_udp.c), which sleeps between 1 ms
#               bursts: trafgen's pacing spins and would keep its CPU at 100 %
#               (IPv4 only)
#   -6          IPv6 instead (issue 16): 80-byte frames (84 with FCS: the
#               IPv4 frame's 18 bytes of UDP payload behind a 40-byte IPv6
#               header), UDP [2001:db8:1::2]:4000 -> [2001:db8:2::2]:9; the
#               kernel forwards with net.ipv6.conf.all.forwarding=1, cellgated
#               with IPv6 addresses on its ports (lab.py's HOSTS6 plan)
#
# Generator: trafgen in h1, one process pinned to CPU $GEN_CPU (0).  Router:
# cellgated with its worker pinned to CPU $RTR_CPU (1).  Frames: 60 bytes
# (64 with FCS), UDP 10.0.1.2:4000 -> 10.0.2.2:9 (-6: see above), Ethernet
# destination = the router's r-h1 MAC.  Offered = h1 veth tx_packets delta / T; delivered = h2
# veth rx_packets delta / T.  Namespaces are lab.py's (CGLAB_NS_PREFIX names
# their prefix).
set -u

T=10
BIN=${CELLGATED:-}
DRIVERS=afpacket
REPEATS=1
SWEEP=0
CPU_RATE=""
KERNEL_ONLY=0
V6=0
GEN_CPU=${GEN_CPU:-0}
RTR_CPU=${RTR_CPU:-1}
while [ $# -gt 0 ]; do
	case $1 in
	-t) T=$2; shift 2 ;;
	-b) BIN=$2; shift 2 ;;
	-d) DRIVERS=$2; shift 2 ;;
	-r) REPEATS=$2; shift 2 ;;
	--sweep) SWEEP=1; shift ;;
	--cpu) CPU_RATE=$2; shift 2 ;;
	--kernel-only) KERNEL_ONLY=1; shift ;;
	-6) V6=1; shift ;;
	*) sed -n '2,32p' "$0"; exit 2 ;;
	esac
done
[ "$KERNEL_ONLY" -eq 1 ] && DRIVERS=""

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LAB=$ROOT/tests/lab/lab.py
PY=/usr/bin/python3
BIN=${BIN:-$ROOT/build/daemon/cellgated}
PACE=${PACE:-$(dirname "$BIN")/../tests/bench/pace_udp}
[ "$(id -u)" -eq 0 ] || { echo "fwd-bench: needs root" >&2; exit 1; }
for t in trafgen taskset ethtool; do
	command -v $t >/dev/null || { echo "fwd-bench: $t missing (tests/deps.sh)" >&2; exit 1; }
done
if [ -n "$CPU_RATE" ] && [ "$V6" -eq 1 ]; then
	echo "fwd-bench: --cpu sends IPv4 only (pace_udp); not with -6" >&2
	exit 2
fi
if [ -n "$CPU_RATE" ] && [ ! -x "$PACE" ]; then
	echo "fwd-bench: --cpu needs $PACE (make) or PACE=..." >&2
	exit 1
fi
if [ -n "$DRIVERS" ] && [ ! -x "$BIN" ]; then
	echo "fwd-bench: $BIN not built (or pass --kernel-only)" >&2
	exit 1
fi

WORK=$(mktemp -d /tmp/cg-bench.XXXXXX)
LAB_TAG=""
DPID=""
SINK=""
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	[ -n "$SINK" ] && kill "$SINK" 2>/dev/null && wait "$SINK" 2>/dev/null
	[ -n "$LAB_TAG" ] && "$PY" "$LAB" down "$LAB_TAG"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

eval "$("$PY" "$LAB" up $$)" || exit 1
inr() { ip netns exec "$NS_R" "$@"; }
in1() { ip netns exec "$NS_H1" "$@"; }
in2() { ip netns exec "$NS_H2" "$@"; }
stat() { ip -n "$1" -j -s link show dev "$2" |
	"$PY" -c "import json,sys; s=json.load(sys.stdin)[0]['stats64']; print(s['$3']['packets'], s['$3']['dropped'])"; }

# A UDP socket on h2 that never reads: frames count in rx_packets, and h2
# sends no ICMP port unreachable back through the router.
# lab.py builds the namespaces without IPv6 (no chatter in its counters);
# -6 turns it on, without router advertisements or autoconf (already off
# there), and gives h1 and h2 lab.py's HOSTS6 addresses and routes.
if [ "$V6" -eq 1 ]; then
	for ns in "$NS_R" "$NS_H1" "$NS_H2" "$NS_H3"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
			net.ipv6.conf.default.disable_ipv6=0 net.ipv6.conf.all.forwarding=0
	done
	for h in 1 2; do
		eval "ns=\$NS_H$h"
		ip -n "$ns" -6 addr add "2001:db8:$h::2/64" dev "h$h-r" nodad
		ip -n "$ns" -6 route add default via "2001:db8:$h::1"
	done
	# With AF_PACKET the kernel sees the transit frames too: a default of last
	# resort keeps it from answering them (README, "IPv6"; test_ipv6.py).
	ip -n "$NS_R" -6 route add blackhole default metric 4294967295
	FAMILY=AF_INET6 DST=2001:db8:2::2 PING="ping -6"
else
	FAMILY=AF_INET DST=10.0.2.2 PING=ping
fi
in2 "$PY" -c 'import socket,sys,time
s=socket.socket(getattr(socket,sys.argv[1]),socket.SOCK_DGRAM); s.bind((sys.argv[2],9))
time.sleep(100000)' "$FAMILY" "$DST" &
SINK=$!

H1MAC=$(ip -n "$NS_H1" -j link show h1-r | "$PY" -c 'import json,sys;print(json.load(sys.stdin)[0]["address"])')
H2MAC=$(ip -n "$NS_H2" -j link show h2-r | "$PY" -c 'import json,sys;print(json.load(sys.stdin)[0]["address"])')
RMAC=$(ip -n "$NS_R" -j link show r-h1 | "$PY" -c 'import json,sys;print(json.load(sys.stdin)[0]["address"])')
hexmac() { echo "0x${1//:/, 0x}"; }
# 2001:db8:N::2 as trafgen bytes
addr6() { echo "0x20, 0x01, 0x0d, 0xb8, 0x00, $1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02"; }
if [ "$V6" -eq 1 ]; then
	# Payload Length 26 (UDP 8 + 18), Next Header 17, Hop Limit 64; the UDP
	# checksum is mandatory over IPv6 (RFC 8200 §8.1).
	FRAME="84-byte IPv6 (80 + FCS)"
	cat >"$WORK/udp.trafgen" <<EOF
{
  $(hexmac "$RMAC"),
  $(hexmac "$H1MAC"),
  c16(0x86dd),
  0x60, 0x00, 0x00, 0x00, c16(26), 17, 64,
  $(addr6 0x01),
  $(addr6 0x02),
  c16(4000), c16(9), c16(26), csumudp6(14, 54),
  fill(0x00, 18),
}
EOF
else
	FRAME="64-byte IPv4 (60 + FCS)"
	cat >"$WORK/udp.trafgen" <<EOF
{
  $(hexmac "$RMAC"),
  $(hexmac "$H1MAC"),
  c16(0x0800),
  0x45, 0x00, c16(46), c16(0), c16(0), 64, 17, csumip(14, 33),
  10, 0, 1, 2,
  10, 0, 2, 2,
  c16(4000), c16(9), c16(26), c16(0),
  fill(0x00, 18),
}
EOF
fi

# busy and total jiffies of CPUs $GEN_CPU and $RTR_CPU: "g_busy g_all r_busy r_all"
cpustat() {
	awk -v g="cpu$GEN_CPU" -v r="cpu$RTR_CPU" '$1 == g || $1 == r {
		all = 0; for (i = 2; i <= 9; i++) all += $i
		busy = all - $5 - $6
		if ($1 == g) { gb = busy; ga = all } else { rb = busy; ra = all } }
		END { print gb, ga, rb, ra }' /proc/stat
}

# gen SECONDS [RATE [paced]]: run trafgen (or, paced, pace_udp); print
# "offered_pps delivered_pps loss% gen_cpu% rtr_cpu% ns_per_pkt".
gen() {
	local secs=$1 rate=${2:-} tx0 tx1 rx0 rx1 d c0 c1
	read -r tx0 d < <(stat "$NS_H1" h1-r tx)
	read -r rx0 d < <(stat "$NS_H2" h2-r rx)
	c0=$(cpustat)
	if [ "${3:-}" = paced ]; then
		in1 taskset -c "$GEN_CPU" "$PACE" h1-r "$RMAC" "$H1MAC" "$rate" "$secs" \
			>"$WORK/trafgen.log" 2>&1
	else
		# -P 1: one process; --no-sock-mem/-Q: leave socket memory sysctls and IRQ
		# affinity alone (-Q matters: IRQ affinity is global, not per netns).
		in1 timeout -s INT "$secs" taskset -c "$GEN_CPU" trafgen -o h1-r \
			-i "$WORK/udp.trafgen" -P 1 --no-sock-mem -Q -C ${rate:+-b "${rate}pps"} \
			>"$WORK/trafgen.log" 2>&1
	fi
	d=$?
	c1=$(cpustat)
	if [ "$d" -ne 0 ] && [ "$d" -ne 124 ]; then
		echo "generator failed ($d):" >&2
		sed 's/^/  /' "$WORK/trafgen.log" >&2
	fi
	sleep 1
	read -r tx1 d < <(stat "$NS_H1" h1-r tx)
	read -r rx1 d < <(stat "$NS_H2" h2-r rx)
	awk -v t=$((tx1 - tx0)) -v r=$((rx1 - rx0)) -v s="$secs" -v c0="$c0" -v c1="$c1" \
		-v hz="$(getconf CLK_TCK)" 'BEGIN {
		split(c0, a); split(c1, b)
		gb = b[1] - a[1]; ga = b[2] - a[2]; rb = b[3] - a[3]; ra = b[4] - a[4]
		l = t > 0 ? 100 * (t - r) / t : 0; if (l < 0) l = 0
		ns = r > 0 ? (gb + rb) / hz * 1e9 / r : 0
		printf "%.0f %.0f %.3f %.0f %.0f %.0f\n", t / s, r / s, l,
			ga ? 100 * gb / ga : 0, ra ? 100 * rb / ra : 0, ns }'
}

# sweep SECONDS: highest rate (pps) with zero loss, by bisection.
sweep() {
	local lo=0 hi o d l mid i rest
	read -r o d l rest < <(gen "$1")
	hi=$o
	[ "$(awk -v l="$l" 'BEGIN{print (l == 0)}')" = 1 ] && { echo "$o"; return; }
	for i in 1 2 3 4 5 6; do
		mid=$(((lo + hi) / 2))
		read -r o d l rest < <(gen "$1" "$mid")
		if [ "$(awk -v l="$l" 'BEGIN{print (l == 0)}')" = 1 ]; then
			lo=$mid
		else
			hi=$mid
		fi
	done
	echo "$lo"
}

cg_start() { # DRIVER
	inr sysctl -qw net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
	ip -n "$NS_R" neigh flush all 2>/dev/null
	"$PY" "$LAB" config "$RTR_CPU" "$1" >"$WORK/cellgated.json"
	[ "$V6" -eq 1 ] && "$PY" - "$WORK/cellgated.json" <<'EOF'
import json, sys
# IPv6 addresses on eth0 and eth1, as tests/lab/test_ipv6.py's v6_config.
cfg = json.load(open(sys.argv[1]))
for p in cfg["cellgate:cellgate"]["port"]:
    n = {"eth0": 1, "eth1": 2}.get(p["name"])
    if n:
        p["ipv6"] = {"address": [{"ip": "2001:db8:%d::1" % n, "prefix-length": 64}]}
json.dump(cfg, open(sys.argv[1], "w"), indent=2)
EOF
	rm -rf "$WORK/run" && mkdir -p "$WORK/run"
	# Not through inr: $! must be cellgated itself (ip netns exec execs it), for the signals.
	ip netns exec "$NS_R" "$BIN" -f "$WORK/cellgated.json" -d -r "$WORK/run" 2>"$WORK/cellgated-$1.log" &
	DPID=$!
	for _ in $(seq 100); do
		[ -s "$WORK/run/cellgated.pid" ] && break
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -s "$WORK/run/cellgated.pid" ]; then
		echo "cellgated ($1) did not start:" >&2
		cat "$WORK/cellgated-$1.log" >&2
		exit 1
	fi
	in1 $PING -c 2 -i 0.2 -W 1 "$DST" >/dev/null ||
		echo "warning: h1 cannot ping h2 through cellgated ($1)" >&2
}

cg_stop() {
	kill -USR1 "$DPID"
	sleep 0.5
	[ -f "$WORK/run/stats.json" ] && "$PY" - "$WORK/run/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for p in s["ports"][:2]:
    d = {k: v for k, v in p["drops"].items() if v}
    print("    %s rx %d fwd %d kernel %d drops %s rx-ring-drops %d" % (
        p["name"], p["rx-packets"], p["forwarded"], p["to-kernel"], d or 0,
        p["rx-ring-drops"]))
EOF
	kill "$DPID"
	wait "$DPID"
	local rc=$?
	[ "$rc" -ne 0 ] && echo "    cellgated exit status $rc" >&2
	DPID=""
}

# The kernel forwards: the same addresses (cellgated may have left them),
# forwarding on, h2's MAC known so no ARP is involved.
kernel_start() {
	[ "$V6" -eq 1 ] && { kernel_start6; return; }
	for h in 1 2 3; do
		ip -n "$NS_R" addr replace 10.0.$h.1/24 dev r-h$h
		ip -n "$NS_R" link set r-h$h up
	done
	inr sysctl -qw net.ipv4.ip_forward=1
	ip -n "$NS_R" neigh replace 10.0.2.2 lladdr "$H2MAC" dev r-h2 nud permanent
	in1 ping -c 2 -i 0.2 -W 1 10.0.2.2 >/dev/null ||
		echo "warning: h1 cannot ping h2 through the kernel" >&2
}

kernel_stop() {
	inr sysctl -qw net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
	ip -n "$NS_R" neigh del 10.0.2.2 dev r-h2 2>/dev/null
	if [ "$V6" -eq 1 ]; then
		ip -n "$NS_R" -6 neigh del 2001:db8:2::2 dev r-h2 2>/dev/null
		# cellgated puts its port addresses on the netdevs itself when it starts.
		for h in 1 2; do
			ip -n "$NS_R" -6 addr del "2001:db8:$h::1/64" dev "r-h$h" 2>/dev/null
		done
	fi
}

# The same for IPv6: lab.py's router addresses, forwarding on, h2 known.
kernel_start6() {
	for h in 1 2; do
		ip -n "$NS_R" link set "r-h$h" up
		ip -n "$NS_R" -6 addr replace "2001:db8:$h::1/64" dev "r-h$h" nodad
	done
	inr sysctl -qw net.ipv6.conf.all.forwarding=1
	ip -n "$NS_R" -6 neigh replace 2001:db8:2::2 lladdr "$H2MAC" dev r-h2 nud permanent
	in1 ping -6 -c 2 -i 0.2 -W 1 2001:db8:2::2 >/dev/null ||
		echo "warning: h1 cannot ping h2 through the kernel" >&2
}

# measure NAME: every figure of one router, appended to $WORK/NAME.txt as
# "delivered offered loss zero_loss_rate ns_per_pkt gen_cpu rtr_cpu".
measure() {
	local name=$1 o d l g r ns z="-" co cd cl
	read -r o d l g r ns < <(gen "$T")
	printf '  %-10s offered %9.0f pps  delivered %9.0f pps  loss %6.2f %%  CPU %s %3.0f %%, %s %3.0f %%\n' \
		"$name" "$o" "$d" "$l" "$GEN_CPU" "$g" "$RTR_CPU" "$r"
	[ "$SWEEP" -eq 1 ] && z=$(sweep 3) && echo "    zero-loss rate (sweep): $z pps"
	ns="-"
	if [ -n "$CPU_RATE" ]; then
		read -r co cd cl g r ns < <(gen "$T" "$CPU_RATE" paced)
		printf '    at %s pps: delivered %.0f pps, loss %.2f %%, CPU %s %.0f %% + %s %.0f %%: %s ns per packet\n' \
			"$CPU_RATE" "$cd" "$cl" "$GEN_CPU" "$g" "$RTR_CPU" "$r" "$ns"
	fi
	echo "$d $o $l $z $ns" >>"$WORK/$name.txt"
}

ROUTERS=""
for drv in ${DRIVERS//,/ }; do ROUTERS="$ROUTERS $drv"; done
ROUTERS="$ROUTERS kernel"

echo "cellgate forwarding benchmark: $FRAME frames, $T s per run, $REPEATS round(s)"
echo "generator: trafgen, 1 process on CPU $GEN_CPU (ns h1); router CPU $RTR_CPU; $(nproc) CPUs"
echo "kernel $(uname -r); router namespace $NS_R; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cellgated: worker on CPU $RTR_CPU; kernel forwarding and veth receive run in softirq"
echo "  on the sending CPU ($GEN_CPU for h1's frames)"
for round in $(seq "$REPEATS"); do
	echo "round $round:"
	for rt in $ROUTERS; do
		if [ "$rt" = kernel ]; then
			kernel_start
			measure kernel
			kernel_stop
		else
			cg_start "$rt"
			measure "$rt"
			cg_stop
		fi
	done
done

# Medians over the rounds, and each cellgated driver against the kernel.
echo "medians over $REPEATS round(s), load average now $(cut -d' ' -f1-3 /proc/loadavg):"
for rt in $ROUTERS; do
	"$PY" - "$rt" "$WORK/$rt.txt" "$WORK/kernel.txt" <<'EOF'
import statistics, sys
def cols(path):
    rows = [ln.split() for ln in open(path)]
    return [[float(v) if v != "-" else None for v in c] for c in zip(*rows)]
def med(c):
    v = [x for x in c if x is not None]
    return statistics.median(v) if v else None
name, mine, kern = sys.argv[1], cols(sys.argv[2]), cols(sys.argv[3])
d, z, ns = med(mine[0]), med(mine[3]), med(mine[4])
kd, kz, kns = med(kern[0]), med(kern[3]), med(kern[4])
line = "  %-10s delivered %9.0f pps" % (name, d)
if z is not None:
    line += "  zero-loss %9.0f pps" % z
if ns is not None:
    line += "  %6.0f ns/packet" % ns
if name != "kernel":
    line += "  | vs kernel: delivered %.2fx" % (d / kd if kd else 0)
    if z is not None and kz:
        line += ", zero-loss %.2fx" % (z / kz)
    if ns is not None and kns:
        line += ", CPU/packet %.2fx" % (ns / kns)
print(line)
EOF
done
if [ -s "$WORK/afxdp.txt" ] && [ -s "$WORK/afpacket.txt" ]; then
	"$PY" - "$WORK/afxdp.txt" "$WORK/afpacket.txt" <<'EOF'
import statistics, sys
def med(path, i):
    v = [float(ln.split()[i]) for ln in open(path) if ln.split()[i] != "-"]
    return statistics.median(v) if v else None
x, a = sys.argv[1], sys.argv[2]
line = "  afxdp vs afpacket: delivered %.2fx" % (med(x, 0) / med(a, 0))
if med(x, 3) and med(a, 3):
    line += ", zero-loss %.2fx" % (med(x, 3) / med(a, 3))
if med(x, 4) and med(a, 4):
    line += ", CPU/packet %.2fx" % (med(x, 4) / med(a, 4))
print(line)
EOF
fi
