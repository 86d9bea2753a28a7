#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# cellgate quick-start demo (Debian 12, as root, from the repo root):
#
#   sudo tests/lab/demo.sh
#
# Installs the build/test packages (skip with NO_DEPS=1), builds build/,
# creates h1 - r - h2 (+ h3) in throw-away network namespaces, runs cellgated
# in r, sends ping, traceroute, iperf3 and a few malformed packets through it,
# and prints the per-port counters; then adds an ATM segment (a second
# cellgated over a cell pseudowire, tests/lab/demo_atm.py) and shows its PVCs.
# Everything is removed on exit.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
PY=/usr/bin/python3
LAB=$ROOT/tests/lab/lab.py
[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (sudo $0)" >&2; exit 1; }

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if [ "${NO_DEPS:-0}" != 1 ]; then
	say "installing packages (tests/deps.sh)"
	tests/deps.sh >/tmp/cellgate-demo-deps.log 2>&1 ||
		{ tail -20 /tmp/cellgate-demo-deps.log; exit 1; }
fi

say "building build/daemon/cellgated"
if [ ! -x configure ]; then autoreconf -fi >/dev/null; fi
mkdir -p build
if [ ! -f build/Makefile ]; then (cd build && ../configure -q); fi
make -C build -j2 -s
BIN=${CELLGATED:-$ROOT/build/daemon/cellgated}

WORK=$(mktemp -d /tmp/cellgate-demo.XXXXXX)
LAB_TAG=""
DPID=""
IPERF=""
cleanup() {
	set +e
	[ -n "$IPERF" ] && kill "$IPERF" 2>/dev/null && wait "$IPERF" 2>/dev/null
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID" 2>/dev/null && wait "$DPID"
		echo "cellgated stopped (exit status $?)"
	fi
	[ -n "$LAB_TAG" ] && "$PY" "$LAB" down "$LAB_TAG"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "topology: h1 10.0.1.2 -- r-h1 [r: cellgated] r-h2 -- h2 10.0.2.2 (lo 10.20.0.1)"
eval "$("$PY" "$LAB" up $$)"
nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }
echo "namespaces: $NS_R $NS_H1 $NS_H2 $NS_H3"
echo "kernel forwarding in r: net.ipv4.ip_forward=$(nsx "$NS_R" sysctl -n net.ipv4.ip_forward)"

say "starting cellgated in $NS_R"
"$PY" "$LAB" config >"$WORK/cellgated.json"
mkdir "$WORK/run"
ip netns exec "$NS_R" "$BIN" -f "$WORK/cellgated.json" -d -r "$WORK/run" 2>"$WORK/cellgated.log" &
DPID=$!
for _ in $(seq 100); do
	[ -s "$WORK/run/cellgated.pid" ] && break
	kill -0 "$DPID" 2>/dev/null || break
	sleep 0.1
done
if [ ! -s "$WORK/run/cellgated.pid" ]; then
	echo "cellgated did not become ready:"; cat "$WORK/cellgated.log"; exit 1
fi
echo "ready (pid $DPID); config: $WORK/cellgated.json"

# Continue past failures so the counters still get printed.
set +e
say "ping h1 -> h2"
nsx "$NS_H1" ping -c 3 -i 0.2 -W 1 10.0.2.2
say "traceroute h1 -> 10.20.0.1"
nsx "$NS_H1" traceroute -n -q 1 -w 1 -m 5 10.20.0.1
say "TTL 1 and an unrouted destination: ICMP errors from the router"
nsx "$NS_H1" ping -c 1 -t 1 -W 1 10.0.2.2 | grep -E '^From' || true
nsx "$NS_H1" ping -c 1 -W 1 10.123.0.1 | grep -E '^From' || true
say "iperf3 TCP h1 -> h2, 3 s"
nsx "$NS_H2" iperf3 -s -1 >/dev/null 2>&1 &
IPERF=$!
sleep 0.5
nsx "$NS_H1" timeout 20 iperf3 -c 10.0.2.2 -t 3 | grep -E 'sender|receiver'
wait "$IPERF" 2>/dev/null
IPERF=""
say "malformed IPv4: 3 of each kind (tests/lab/malformed.py)"
RMAC=$(ip -n "$NS_R" -j link show r-h1 | "$PY" -c 'import json,sys;print(json.load(sys.stdin)[0]["address"])')
nsx "$NS_H1" "$PY" tests/lab/malformed.py --iface h1-r --dmac "$RMAC" --count 3 all
sleep 0.5

say "counters (SIGUSR1 -> $WORK/run/stats.json)"
rm -f "$WORK/run/stats.json"
kill -USR1 "$DPID"
for _ in $(seq 50); do [ -f "$WORK/run/stats.json" ] && break; sleep 0.1; done
"$PY" - "$WORK/run/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
cols = ("rx-packets", "tx-packets", "forwarded", "to-kernel", "drops-total",
        "icmp-out")
print("%-5s %-6s" % ("port", "netdev") + "".join("%12s" % c for c in cols)
      + "  rx == fwd+kernel+drops")
for p in s["ports"]:
    ok = p["rx-packets"] == p["forwarded"] + p["to-kernel"] + p["drops-total"]
    print("%-5s %-6s" % (p["name"], p["netdev"]) +
          "".join("%12d" % p[c] for c in cols) + "  " + ("yes" if ok else "NO"))
print("\ndrop reasons (nonzero):")
for p in s["ports"]:
    for k, v in sorted(p["drops"].items()):
        if v:
            print("  %-5s %-18s %d" % (p["name"], k, v))
print("\nFIB routes: %d; neighbours: %s" % (s["fib"]["routes"], ", ".join(
    "%s %s %s" % (n["address"], n["mac"], n["state"]) for n in s["neighbors"])))
EOF

# The ATM half: a second router reached over a cell pseudowire (tests/lab/demo_atm.py).
kill -TERM "$DPID" 2>/dev/null && wait "$DPID"
echo "cellgated stopped (exit status $?)"
DPID=""
"$PY" "$LAB" down "$LAB_TAG" 2>/dev/null
LAB_TAG=""
"$PY" tests/lab/demo_atm.py "$BIN" "${CELLGATECTL:-$ROOT/build/mgmt/cli/cellgatectl}" \
	"$ROOT/mgmt/yang"
