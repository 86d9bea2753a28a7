#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""End-to-end FIB convergence through FRR: a BGP feed of N routes from a
standalone bgpd in h2 (AS 65001, -Z) to FRR in the router namespace (bgpd
AS 65000 + zebra -M dplane_fpm_nl), where zebra installs each route twice:
into the kernel (netlink) and into cellgated (FPM).  Reports, from the BGP
session coming up, the time until the kernel's table and cellgated's FIB
hold all N routes; then kills the feed and times the withdrawal.  Not part
of the pass/fail suite.  Needs root, frr and libloc (tests/deps.sh).

    tests/bench/fpm-e2e-bench.py [-n ROUTES] [--plain] [-b CELLGATED]

Prefixes: the first N IPv4 nets of the libloc database (real length mix).
Kernel: an rtnetlink listener in the router namespace counting zebra's
RTM_NEWROUTE/RTM_DELROUTE of BGP routes.  cellgated: stats.json polled every 20 ms.
Times run from the first BGP route zebra installs in the kernel.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lab"))
import frr  # noqa: E402
import lab  # noqa: E402


def prefixes(n):
    out = subprocess.run(["location", "dump"], capture_output=True, text=True,
                         check=True).stdout
    nets = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "net:" and ":" not in f[1] and \
                not f[1].startswith("10."):
            nets.append(f[1])
            if len(nets) == n:
                break
    return nets


def feed_config(nets):
    return ("router bgp 65001\n bgp router-id 10.0.2.2\n"
            " no bgp ebgp-requires-policy\n no bgp network import-check\n"
            " neighbor 10.0.2.1 remote-as 65000\n"
            " address-family ipv4 unicast\n" +
            "".join("  network %s\n" % p for p in nets) +
            " exit-address-family\n")


ROUTER_BGP = ("router bgp 65000\n bgp router-id 10.0.2.1\n"
              " no bgp ebgp-requires-policy\n"
              " neighbor 10.0.2.2 remote-as 65001\n")


# Counts the kernel's BGP route adds, then deletes, on an rtnetlink socket in
# the router namespace with a 64 MiB buffer (root may exceed rmem_max, and
# `ip monitor` overruns at this rate). Prints when the first and the n-th
# arrived, as wall-clock seconds: one JSON line for the adds, one for the deletes.
_KWATCH = r"""
import json, socket, struct, sys, time
n = int(sys.argv[1])
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)  # SO_RCVBUFFORCE
s.bind((0, 0x40))  # RTMGRP_IPV4_ROUTE
print("ready", flush=True)
for want in (24, 25):  # RTM_NEWROUTE, then RTM_DELROUTE
    count, first = 0, None
    while count < n:
        buf = s.recv(1 << 20)
        t = time.time()
        off = 0
        while off + 16 <= len(buf):
            ln, typ = struct.unpack_from("=IH", buf, off)
            if ln < 16:
                break
            if typ == want and len(buf) >= off + 22 and buf[off + 21] == 186:
                count += 1
                first = first or t
            off += (ln + 3) & ~3
    print(json.dumps({"type": want, "first": first, "last": t}), flush=True)
"""


def frr_routes(d):
    return d.stats()["fib"]["by-source"]["frr"]


def wait_count(d, target, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if frr_routes(d) == target:
            return time.time()
        time.sleep(0.02)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=100000)
    ap.add_argument("--plain", action="store_true",
                    help="zebra without `fpm use-next-hop-groups`")
    ap.add_argument("-b", default=os.path.join(ROOT, "build", "daemon",
                                               "cellgated"))
    a = ap.parse_args()
    why = frr.missing()
    if why:
        sys.exit("fpm-e2e-bench: " + why)
    nets = prefixes(a.n)
    topo = lab.Topology().create()
    feed = router = d = mon = None
    try:
        cfg = lab.default_config(worker_cpu=[1], extra_port={
            p: {"rx-ring-frames": 1024, "tx-ring-frames": 64}
            for p in ("eth0", "eth1", "eth2")})
        d = lab.Daemon(topo, cfg, binary=a.b).start()
        router = frr.Frr(topo, nexthop_groups=not a.plain).start()
        lab.wait_for(lambda: d.stats()["fpm"]["connected"], 15)
        base = lab.wait_for(lambda: frr_routes(d) >= 3 and frr_routes(d), 10)

        t = time.time()
        feed = frr.Frr(topo, ns="h2")
        feed.start_bgpd(feed_config(nets), no_zebra=True)
        summary = lambda: json.loads(feed.vtysh("show bgp ipv4 unicast summary json"))
        lab.wait_for(lambda: summary().get("ribCount", 0) >= len(nets), 600, 1)
        print("feed: %d prefixes loaded in h2's bgpd in %.1f s" %
              (len(nets), time.time() - t))

        mon = topo.popen("r", [lab.PYTHON, "-c", _KWATCH, str(len(nets))],
                         stdout=subprocess.PIPE, text=True)
        assert mon.stdout.readline().strip() == "ready"
        router.start_bgpd(ROUTER_BGP)
        t_cg = wait_count(d, base + len(nets), 600)
        if t_cg is None:
            sys.exit("fpm-e2e-bench: cellgated never got all routes:\n" +
                     router.log("bgpd"))
        # From the first BGP route zebra put in the kernel: the feed is flowing.
        k = json.loads(mon.stdout.readline())
        t_first, t_k = k["first"], k["last"]
        mode = "plain" if a.plain else "next-hop groups"
        print("add %d routes (%s): from zebra's first kernel install, kernel has "
              "all after %.2f s (%.0f routes/s), cellgated after %.2f s "
              "(%.0f routes/s)" %
              (len(nets), mode, t_k - t_first, len(nets) / (t_k - t_first),
               t_cg - t_first, len(nets) / (t_cg - t_first)))

        feed.kill("bgpd", signal.SIGKILL)
        t0 = time.time()
        t_cg = wait_count(d, base, 600)
        t_k = json.loads(mon.stdout.readline())["last"]
        print("withdraw %d routes (feed killed): kernel empty after %.2f s, "
              "cellgated after %.2f s" % (len(nets), (t_k or 0) - t0,
                                          t_cg - t0))
        s = d.stats()["fpm"]
        print("cellgated fpm: %s" % json.dumps({k: s[k] for k in (
            "messages", "errors")}))
    finally:
        if mon:
            mon.kill()
        for f in (feed, router):
            if f:
                f.stop()
        if d:
            d.stop()
        topo.destroy()


if __name__ == "__main__":
    main()
