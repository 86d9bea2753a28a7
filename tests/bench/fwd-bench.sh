#!/bin/bash
# End-to-end 64-byte IPv4 forwarding benchmark, h1 -> r -> h2 over veths:
# cellgated versus the Linux kernel forwarding the same traffic in the same
# namespace.  Not part of the pass/fail suite.  Needs root.
#
#   tests/bench/fwd-bench.sh [-t SECONDS] [-b CELLGATED] [--sweep] [--kernel-only]
#
# Generator: trafgen in h1, one process pinned to CPU $GEN_CPU (0).  Router:
# cellgated with its worker pinned to CPU $RTR_CPU (1).  Frames: 60 bytes
# (64 with FCS), UDP 10.0.1.2:4000 -> 10.0.2.2:9, Ethernet destination = the
# router's r-h1 MAC.  Offered = h1 veth tx_packets delta / T; delivered = h2
# veth rx_packets delta / T.  --sweep also searches the highest trafgen rate
# with zero loss for each router.
set -u

T=10
BIN=${CELLGATED:-}
SWEEP=0
KERNEL_ONLY=0
GEN_CPU=${GEN_CPU:-0}
RTR_CPU=${RTR_CPU:-1}
while [ $# -gt 0 ]; do
	case $1 in
	-t) T=$2; shift 2 ;;
	-b) BIN=$2; shift 2 ;;
	--sweep) SWEEP=1; shift ;;
	--kernel-only) KERNEL_ONLY=1; shift ;;
	*) sed -n '2,15p' "$0"; exit 2 ;;
	esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LAB=$ROOT/tests/lab/lab.py
PY=/usr/bin/python3
BIN=${BIN:-$ROOT/build/daemon/cellgated}
[ "$(id -u)" -eq 0 ] || { echo "fwd-bench: needs root" >&2; exit 1; }
for t in trafgen taskset ethtool; do
	command -v $t >/dev/null || { echo "fwd-bench: $t missing (tests/deps.sh)" >&2; exit 1; }
done
if [ "$KERNEL_ONLY" -eq 0 ] && [ ! -x "$BIN" ]; then
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
in2 "$PY" -c 'import socket,time
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(("10.0.2.2",9))
time.sleep(100000)' &
SINK=$!

H1MAC=$(ip -n "$NS_H1" -j link show h1-r | "$PY" -c 'import json,sys;print(json.load(sys.stdin)[0]["address"])')
H2MAC=$(ip -n "$NS_H2" -j link show h2-r | "$PY" -c 'import json,sys;print(json.load(sys.stdin)[0]["address"])')
RMAC=$(ip -n "$NS_R" -j link show r-h1 | "$PY" -c 'import json,sys;print(json.load(sys.stdin)[0]["address"])')
hexmac() { echo "0x${1//:/, 0x}"; }
cat >"$WORK/udp64.trafgen" <<EOF
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

# gen SECONDS [RATE]: run trafgen; print "offered_pps delivered_pps loss%".
gen() {
	local secs=$1 rate=${2:-} tx0 tx1 rx0 rx1 d
	read -r tx0 d < <(stat "$NS_H1" h1-r tx)
	read -r rx0 d < <(stat "$NS_H2" h2-r rx)
	# -P 1: one process; --no-sock-mem/-Q: leave socket memory sysctls and IRQ
	# affinity alone (-Q matters: IRQ affinity is global, not per netns).
	in1 timeout -s INT "$secs" taskset -c "$GEN_CPU" trafgen -o h1-r \
		-i "$WORK/udp64.trafgen" -P 1 --no-sock-mem -Q -C ${rate:+-b "${rate}pps"} \
		>"$WORK/trafgen.log" 2>&1
	d=$?
	if [ "$d" -ne 0 ] && [ "$d" -ne 124 ]; then
		echo "trafgen failed ($d):" >&2
		sed 's/^/  /' "$WORK/trafgen.log" >&2
	fi
	sleep 1
	read -r tx1 d < <(stat "$NS_H1" h1-r tx)
	read -r rx1 d < <(stat "$NS_H2" h2-r rx)
	awk -v t=$((tx1 - tx0)) -v r=$((rx1 - rx0)) -v s="$secs" 'BEGIN {
		l = t > 0 ? 100 * (t - r) / t : 0; if (l < 0) l = 0
		printf "%.0f %.0f %.3f\n", t / s, r / s, l }'
}

# sweep SECONDS: highest rate (pps) with zero loss, by bisection.
sweep() {
	local lo=0 hi hi_ok o d l mid i
	read -r o d l < <(gen "$1")
	hi=$o
	[ "$(awk -v l="$l" 'BEGIN{print (l == 0)}')" = 1 ] && { echo "$o"; return; }
	for i in 1 2 3 4 5 6; do
		mid=$(((lo + hi) / 2))
		read -r o d l < <(gen "$1" "$mid")
		if [ "$(awk -v l="$l" 'BEGIN{print (l == 0)}')" = 1 ]; then
			lo=$mid
		else
			hi=$mid
		fi
	done
	echo "$lo"
}

report() { # NAME offered delivered loss
	printf '%-28s offered %9.0f pps  delivered %9.0f pps  loss %6.2f %%\n' "$@"
}

nproc_all=$(nproc)
echo "cellgate forwarding benchmark: 64-byte frames, $T s per run"
echo "generator: trafgen, 1 process on CPU $GEN_CPU (ns h1); router CPU $RTR_CPU; $nproc_all CPUs"
echo "kernel $(uname -r); router namespace $NS_R"

CG=""
if [ "$KERNEL_ONLY" -eq 0 ]; then
	"$PY" "$LAB" config "$RTR_CPU" >"$WORK/cellgated.json"
	mkdir -p "$WORK/run"
	ip netns exec "$NS_R" "$BIN" -f "$WORK/cellgated.json" -d -r "$WORK/run" 2>"$WORK/cellgated.log" &
	DPID=$!
	for _ in $(seq 100); do
		[ -s "$WORK/run/cellgated.pid" ] && break
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -s "$WORK/run/cellgated.pid" ]; then
		echo "cellgated did not start:" >&2
		cat "$WORK/cellgated.log" >&2
		exit 1
	fi
	in1 ping -c 2 -i 0.2 -W 1 10.0.2.2 >/dev/null ||
		echo "warning: h1 cannot ping h2 through cellgated" >&2
	echo "cellgated: worker on CPU $RTR_CPU (worker-cpu [$RTR_CPU]); the kernel's own"
	echo "  RX processing of each frame (AF_PACKET tap) runs in veth softirq on CPU $GEN_CPU"
	read -r o d l < <(gen "$T")
	CG="$o $d $l"
	report "cellgated" $o $d $l
	kill -USR1 "$DPID"
	sleep 0.5
	[ -f "$WORK/run/stats.json" ] && "$PY" - "$WORK/run/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for p in s["ports"]:
    d = {k: v for k, v in p["drops"].items() if v}
    print("  %s rx %d fwd %d kernel %d drops %s rx-ring-drops %d" % (
        p["name"], p["rx-packets"], p["forwarded"], p["to-kernel"], d or 0,
        p["rx-ring-drops"]))
EOF
	[ "$SWEEP" -eq 1 ] && echo "  zero-loss rate (sweep): $(sweep 3) pps"
	kill "$DPID"
	wait "$DPID"
	echo "  cellgated exit status $?"
	DPID=""
fi

# The kernel takes over: the same addresses (cellgated may have left them),
# forwarding on, h2's MAC known so no ARP is involved.
for h in 1 2 3; do
	ip -n "$NS_R" addr replace 10.0.$h.1/24 dev r-h$h
	ip -n "$NS_R" link set r-h$h up
done
inr sysctl -qw net.ipv4.ip_forward=1
ip -n "$NS_R" neigh replace 10.0.2.2 lladdr "$H2MAC" dev r-h2 nud permanent
in1 ping -c 2 -i 0.2 -W 1 10.0.2.2 >/dev/null ||
	echo "warning: h1 cannot ping h2 through the kernel" >&2

echo "kernel: forwarding in veth softirq on the generator's CPU $GEN_CPU"
read -r ko kd kl < <(gen "$T")
report "kernel" $ko $kd $kl
[ "$SWEEP" -eq 1 ] && echo "  zero-loss rate (sweep): $(sweep 3) pps"

# No RPS variant: steering r-h1's receive work to another CPU makes veth drop
# at that CPU's backlog, and trafgen 0.6.8 then exits ("Flushing TX_RING
# failed: Resource temporarily unavailable").

if [ -n "$CG" ]; then
	set -- $CG
	awk -v c="$2" -v k="$kd" 'BEGIN {
		printf "ratio delivered cellgated/kernel: %.2f\n", (k > 0 ? c / k : 0) }'
fi
