#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# FPM ingest benchmark: how fast cellgated takes a zebra-sized FIB over FPM,
# and what it costs in memory.  Not part of the pass/fail suite.  Needs root.
#
#   tests/bench/fpm-bench.sh [-g] [-4] [-n ROUTES] [-b CELLGATED] [-P PERF_DATA]
#                              [-m load|replay] [-k SECONDS]
#
# Builds the lab topology (tests/lab/lab.py), starts cellgated in the router
# namespace (worker on CPU 1, control thread and zebra stand-in on CPU 0,
# small rings so RSS shows the tables), then runs tests/bench/fpm_bench,
# which sends every IPv4 net of the libloc database (~1.07 M, the real
# length mix) as one FPM frame per route, times until stats.json shows them
# all installed, then on the same session every IPv6 net (~220k, timed the
# same way, side by side), then reconnects and replays both.  Meanwhile a
# UDP flow on an unrelated prefix (10.20.0.0/24, a static route) runs at
# 1000 pps from h1 to h2: its loss and longest gap show whether forwarding
# stalls during the load.  -g: next-hop-group mode (RTA_NH_ID).  -4: the
# IPv4 table only.  -P: record the control thread with perf (call graphs)
# while fpm_bench runs, into PERF_DATA.  -m: fpm_bench's mode (default both).
# -k: keep the last session open that long (fpm_bench -k).
set -u

GROUPS_FLAG=""
MAX=0
BIN=${CELLGATED:-}
V6=1 PERF_OUT="" MODE="" KEEP=""
while [ $# -gt 0 ]; do
	case $1 in
	-g) GROUPS_FLAG=-g; shift ;;
	-n) MAX=$2; shift 2 ;;
	-b) BIN=$2; shift 2 ;;
	-4) V6=0; shift ;;
	-P) PERF_OUT=$2; shift 2 ;;
	-m) MODE=$2; shift 2 ;;
	-k) KEEP=$2; shift 2 ;;
	*) sed -n '2,22p' "$0"; exit 2 ;;
	esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LAB=$ROOT/tests/lab/lab.py
PY=/usr/bin/python3
BIN=${BIN:-$ROOT/build/daemon/cellgated}
BENCH=${FPM_BENCH:-$(dirname "$BIN")/../tests/bench/fpm_bench}
[ "$(id -u)" -eq 0 ] || { echo "fpm-bench: needs root" >&2; exit 1; }
[ -x "$BIN" ] || { echo "fpm-bench: $BIN not built" >&2; exit 1; }
[ -x "$BENCH" ] || { echo "fpm-bench: $BENCH not built (make tests/bench/fpm_bench)" >&2; exit 1; }
command -v location >/dev/null || { echo "fpm-bench: 'location' missing (tests/deps.sh)" >&2; exit 77; }

# Runtime files on tmpfs: cellgated fsyncs stats.json, polled every 5 ms.
WORK=$(mktemp -d /dev/shm/cg-fpm-bench.XXXXXX)
LAB_TAG="" DPID="" RX="" TX="" PERF=""
cleanup() {
	[ -n "$PERF" ] && kill -INT "$PERF" 2>/dev/null && wait "$PERF" 2>/dev/null
	[ -n "$TX" ] && kill "$TX" 2>/dev/null
	[ -n "$RX" ] && kill "$RX" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	[ -n "$LAB_TAG" ] && "$PY" "$LAB" down "$LAB_TAG"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

location dump | awk -v d="$WORK" '$1 == "net:" { print $2 > (d "/" ($2 ~ /:/ ? "nets6" : "nets")) }'
[ -s "$WORK/nets" ] || { echo "fpm-bench: no IPv4 nets from 'location dump'" >&2; exit 1; }
[ -s "$WORK/nets6" ] || { echo "fpm-bench: no IPv6 nets from 'location dump'" >&2; exit 1; }

eval "$("$PY" "$LAB" up $$)" || exit 1
ROOT=$ROOT "$PY" -c '
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["ROOT"], "tests", "lab"))
import lab
cfg = lab.default_config(worker_cpu=[1], extra_port={
    p: {"rx-ring-frames": 1024, "tx-ring-frames": 64} for p in ("eth0", "eth1", "eth2")})
json.dump(cfg, open(sys.argv[1], "w"))' "$WORK/cg.json" || exit 1
mkdir -p "$WORK/run"
ip netns exec "$NS_R" taskset -c 0,1 "$BIN" -d -f "$WORK/cg.json" -r "$WORK/run" \
	>"$WORK/cellgated.log" 2>&1 &
DPID=$!
for _ in $(seq 100); do [ -s "$WORK/run/cellgated.pid" ] && break; sleep 0.1; done
[ -s "$WORK/run/cellgated.pid" ] || { cat "$WORK/cellgated.log" >&2; exit 1; }
ifx() { ip -n "$NS_R" -j link show "$1" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["ifindex"])'; }
OIFS="$(ifx r-h2),$(ifx r-h3)"

# The unrelated flow: h2 owns 10.20.0.1; report count and longest gap on exit.
ip netns exec "$NS_H2" "$PY" -c '
import signal, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("10.20.0.1", 9999)); s.settimeout(0.2)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)  # this receiver shares 2 busy CPUs
n, last, gap = 0, None, 0.0
signal.signal(signal.SIGTERM, lambda *a: (print("flow: received %d, longest gap %.3f s" % (n, gap), flush=True), sys.exit(0)))
while True:
    try:
        s.recv(64)
    except socket.timeout:
        continue
    t = time.monotonic(); n += 1
    if last is not None: gap = max(gap, t - last)
    last = t' &
RX=$!
sleep 0.5
ip netns exec "$NS_H1" ping -c 1 -W 1 10.20.0.1 >/dev/null  # resolve ARP first
# What cellgated itself did with the flow: eth0 (h1 side) drops and ring
# drops, eth1 (h2 side) transmissions, whatever the receiving process saw.
ports() {
	rm -f "$WORK/run/stats.json"
	kill -USR1 "$(cat "$WORK/run/cellgated.pid")"
	for _ in $(seq 200); do [ -s "$WORK/run/stats.json" ] && break; sleep 0.01; done
	"$PY" -c 'import json,sys; p={x["name"]: x for x in json.load(open(sys.argv[1]))["ports"]}
print(p["eth0"]["drops-total"] + p["eth0"]["rx-ring-drops"], p["eth1"]["tx-packets"])' "$WORK/run/stats.json"
}
read -r DROPS0 TX0 < <(ports)
ip netns exec "$NS_H1" "$PY" -c '
import signal, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); n, t0 = 0, time.monotonic()
signal.signal(signal.SIGTERM, lambda *a: (print("flow: sent %d" % n, flush=True), sys.exit(0)))
while True:
    s.sendto(b"x", ("10.20.0.1", 9999)); n += 1
    time.sleep(max(0, t0 + n / 1000 - time.monotonic()))' &
TX=$!
sleep 0.5

if [ -n "$PERF_OUT" ]; then
	perf record -q -g -t "$(cat "$WORK/run/cellgated.pid")" -o "$PERF_OUT" 2>"$WORK/perf.log" &
	PERF=$!
	sleep 0.5
fi
# The control loop's own gauge (a 10 ms timer): its worst lag since start, and
# the largest part of a lag the thread itself was running (work that did not
# yield). Read before fpm_bench too, so what start-up cost is told apart.
loop_gauge() {
	curl -s --max-time 10 --unix-socket "$WORK/run/restconf.sock" \
		http://localhost/restconf/data/cellgate:cellgate/state/loop | "$PY" -c '
import json, sys
try:
    l = json.load(sys.stdin)["cellgate:loop"]
    print("loop %s: lag-max %.1f ms at %s, busy-max %.1f ms, %d ticks" % (sys.argv[1],
          l["lag-max"] / 1e3, l.get("lag-max-time", "-"), l["busy-max"] / 1e3, int(l["ticks"])))
except (ValueError, KeyError):
    print("loop: no reading from the RESTCONF socket")' "$1"
}
loop_gauge before
SIX=()
[ "$V6" = 1 ] && SIX=(-6 "$WORK/nets6")
ip netns exec "$NS_R" taskset -c 0 "$BENCH" -f "$WORK/nets" -p "$(cat "$WORK/run/cellgated.pid")" \
	-s "$WORK/run/stats.json" -o "$OIFS" "${SIX[@]}" ${MAX:+-n "$MAX"} ${MODE:+-m "$MODE"} ${KEEP:+-k "$KEEP"} $GROUPS_FLAG
rc=$?
if [ -n "$PERF" ]; then
	kill -INT "$PERF"; wait "$PERF" 2>/dev/null; PERF=""
fi
sleep 0.5
kill "$TX"; wait "$TX" 2>/dev/null; TX=""
sleep 0.3
kill "$RX"; wait "$RX" 2>/dev/null; RX=""
read -r DROPS1 TX1 < <(ports)
echo "flow: cellgated dropped $((DROPS1 - DROPS0)) on eth0, sent $((TX1 - TX0)) out of eth1"
loop_gauge after
grep -E "fpm: (session|.*settled)" "$WORK/cellgated.log" | sed 's/^/cellgated: /'
exit $rc
