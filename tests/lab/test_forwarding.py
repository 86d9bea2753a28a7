# SPDX-License-Identifier: BSD-2-Clause
"""End-to-end IPv4 forwarding through cellgated: h1 - r - h2 (+ h3).

What a reader learns here: the router answers for itself through the kernel
(ip_forward=0 in its namespace, so every transit packet is cellgated's work),
errors come back as ICMP from the ingress address, and every received frame
is accounted as forwarded, handed to the kernel, or dropped under one reason.
"""

import json
import os
import re
import subprocess
import time

import pytest

import lab
import restconf as rc

# Run on both Ethernet drivers (conftest.py: test ids [afpacket], [afxdp]).
LAB_DRIVERS = lab.DRIVERS_ALL

MALFORMED = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "malformed.py")
PY = "/usr/bin/python3"

# malformed.py kind -> drop counter it must raise.
MALFORMED_KINDS = {
    "bad-checksum": "ip-checksum",
    "truncated": "ip-truncated",
    "ihl-short": "ip-header-length",
    "total-length": "ip-total-length",
    "options": "ip-options",
    "version6": "ip-version",
}


def ping(topo, host, dst, count=3, extra=(), timeout=None):
    cmd = ["ping", "-n", "-c", str(count), "-i", "0.2", "-W", "1"] + \
        list(extra) + [dst]
    return topo.exec(host, cmd, timeout=timeout or count + 10)


port = lab.port_of


delta = lab.counter_delta


def send_malformed(topo, kinds, count, interval=0.0):
    rmac = topo.mac("r", "r-h1")
    p = topo.exec("h1", [PY, MALFORMED, "--iface", "h1-r", "--dmac", rmac,
                         "--src", "10.0.1.2", "--dst", "10.0.2.2",
                         "--count", str(count), "--interval", str(interval)] +
                  list(kinds), timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def test_kernel_forwarding_off(topo, router):
    p = topo.exec("r", ["sysctl", "-n", "net.ipv4.ip_forward"], check=True)
    assert p.stdout.strip() == "0"


def test_daemon_configured_ports(topo, router):
    """cellgated put the addresses on its netdevs and turned GRO off."""
    for host in ("h1", "h2", "h3"):
        rdev, raddr = lab.HOSTS[host][1], lab.HOSTS[host][4]
        p = topo.exec("r", ["ip", "-j", "addr", "show", "dev", rdev],
                      check=True)
        info = json.loads(p.stdout)[0]
        addrs = {(a["local"], a["prefixlen"]) for a in info["addr_info"]
                 if a["family"] == "inet"}
        assert (raddr, 24) in addrs, (rdev, addrs)
        assert "UP" in info["flags"], (rdev, info["flags"])
        k = topo.exec("r", ["ethtool", "-k", rdev], check=True).stdout
        assert re.search(r"^generic-receive-offload: off", k, re.M), k


def test_ping_router_address(topo, router):
    """Traffic for the router itself goes to the kernel, which answers."""
    before = port(router, "eth0")
    p = ping(topo, "h1", "10.0.1.1")
    assert p.returncode == 0, p.stdout + p.stderr
    after = port(router, "eth0")
    assert delta(before, after, "to-kernel") >= 3


@pytest.mark.parametrize("src,dst,inport,outport", [
    ("h1", "10.0.2.2", "eth0", "eth1"),
    ("h2", "10.0.1.2", "eth1", "eth0"),
    ("h1", "10.0.3.2", "eth0", "eth2"),
])
def test_ping_forwarded(topo, router, src, dst, inport, outport):
    s0 = router.stats()
    p = ping(topo, src, dst)
    assert p.returncode == 0, p.stdout + p.stderr
    assert " 0% packet loss" in p.stdout, p.stdout
    s1 = router.stats()
    # 3 echo requests in one way, 3 replies the other way: all cellgated's.
    assert delta(port(router, inport, s0), port(router, inport, s1),
                 "forwarded") >= 3
    assert delta(port(router, outport, s0), port(router, outport, s1),
                 "forwarded") >= 3
    assert delta(port(router, outport, s0), port(router, outport, s1),
                 "tx-packets") >= 3


def test_neighbors_and_fib(topo, router):
    assert ping(topo, "h1", "10.0.2.2", count=1).returncode == 0
    s = router.stats()
    assert s["fib"]["routes"] >= 4, s["fib"]
    h2mac = topo.mac("h2", "h2-r")
    found = [n for n in s["neighbors"] if n["address"] == "10.0.2.2"]
    assert found, s["neighbors"]
    assert found[0]["port"] == "eth1"
    assert found[0]["mac"].lower() == h2mac.lower()
    assert found[0]["state"] == "reachable"


def test_fib_algorithm_state(topo, router):
    """RESTCONF names the FIB algorithm in use (system/fib-algorithm, set per
    lab run by CELLGATE_FIB_ALGORITHM) and its memory: all of it, and the
    part lookups read (64 MiB of tbl24 for DIR-24-8, about 1 MiB here for
    Poptrie, whose direct table is most of a small one)."""
    r = rc.get(router, "/cellgate:cellgate/state/fib")
    assert r.status == 200, r
    fib = r.json()["cellgate:fib"]
    want = lab.fib_algorithm() or "poptrie"
    assert fib["algorithm"] == want, fib
    lookup, total = int(fib["lookup-memory"]), int(fib["memory"])
    assert 0 < lookup <= total, fib
    if want == "dir-24-8":
        assert lookup >= 64 << 20, fib
    else:
        assert lookup < 8 << 20, fib


@pytest.mark.parametrize("mode", ["udp", "icmp"])
def test_traceroute(topo, router, mode):
    cmd = ["traceroute", "-n", "-q", "1", "-w", "1", "-m", "5"]
    if mode == "icmp":
        cmd.append("-I")
    p = topo.exec("h1", cmd + ["10.20.0.1"], timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    hops = {}
    for ln in p.stdout.splitlines()[1:]:
        f = ln.split()
        if len(f) >= 2 and f[0].isdigit():
            hops[int(f[0])] = f[1]
    assert hops.get(1) == "10.0.1.1", p.stdout
    assert hops.get(2) == "10.20.0.1", p.stdout
    assert max(hops) == 2, p.stdout


def test_ttl_expired(topo, router):
    before = port(router, "eth0")
    p = topo.exec("h1", ["ping", "-n", "-c", "1", "-t", "1", "-W", "2",
                         "10.0.2.2"], timeout=10)
    assert "From 10.0.1.1" in p.stdout and "Time to live exceeded" in \
        p.stdout, p.stdout + p.stderr
    after = port(router, "eth0")
    assert delta(before, after, "ttl-expired") == 1
    assert delta(before, after, "icmp-out") >= 1


def test_no_route(topo, router):
    before = port(router, "eth0")
    p = topo.exec("h1", ["ping", "-n", "-c", "1", "-W", "2", "10.123.0.1"],
                  timeout=10)
    assert "From 10.0.1.1" in p.stdout and \
        "Destination Net Unreachable" in p.stdout, p.stdout + p.stderr
    after = port(router, "eth0")
    assert delta(before, after, "no-route") == 1
    assert delta(before, after, "icmp-out") >= 1


def test_arp_failure(topo, router):
    """10.77.0.0/24 points at 10.0.2.99, which never answers ARP."""
    before = port(router, "eth0")
    p = topo.exec("h1", ["ping", "-n", "-c", "1", "-W", "8", "10.77.0.1"],
                  timeout=15)
    assert p.returncode != 0
    assert "From 10.0.1.1" in p.stdout and \
        "Destination Host Unreachable" in p.stdout, p.stdout + p.stderr
    after = lab.wait_for(
        lambda: (lambda a: a if delta(before, a, "arp-failed") >= 1 else
                 None)(port(router, "eth0")), timeout=5)
    assert after, "arp-failed did not rise"


def test_blackhole(topo, router):
    before = port(router, "eth0")
    p = topo.exec("h1", ["ping", "-n", "-c", "2", "-i", "0.2", "-W", "1",
                         "10.66.0.1"], timeout=10)
    assert p.returncode != 0
    assert "From " not in p.stdout, p.stdout  # silently discarded
    assert "bytes from" not in p.stdout, p.stdout
    time.sleep(0.2)
    after = port(router, "eth0")
    assert delta(before, after, "blackhole") == 2


def test_iperf3_tcp(topo, router):
    srv = topo.popen("h2", ["iperf3", "-s", "-1", "-p", "5201"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Wait for the listener instead of sleeping blindly.
        ok = lab.wait_for(lambda: ":5201" in topo.exec(
            "h2", ["ss", "-ltnH"]).stdout, timeout=5)
        assert ok, "iperf3 server did not listen"
        s0 = router.stats()
        p = topo.exec("h1", ["iperf3", "-c", "10.0.2.2", "-p", "5201", "-t",
                             "3", "-J", "--connect-timeout", "3000"],
                      timeout=30)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr
        res = json.loads(p.stdout)
        bps = res["end"]["sum_received"]["bits_per_second"]
        assert bps > 0, res["end"]
        s1 = router.stats()
        fwd = delta(port(router, "eth0", s0), port(router, "eth0", s1),
                    "forwarded")
        # Every TCP segment crossed cellgated (MSS <= 1460 bytes).
        assert fwd * 1460 >= res["end"]["sum_received"]["bytes"], fwd
        print("iperf3 h1->h2: %.1f Mbit/s, %d segments forwarded on eth0" %
              (bps / 1e6, fwd))
    finally:
        srv.kill()
        srv.wait(timeout=5)


def test_malformed_dropped_by_reason(topo, router):
    """K frames of each defect raise exactly their counter by K, while a
    concurrent ping keeps 0% loss."""
    k = 20
    assert ping(topo, "h1", "10.0.2.2", count=1).returncode == 0  # warm ARP
    before = port(router, "eth0")
    pinger = topo.popen("h1", ["ping", "-n", "-c", "15", "-i", "0.2", "-W",
                               "1", "10.0.2.2"], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    try:
        send_malformed(topo, MALFORMED_KINDS, k, interval=0.005)
        out, _ = pinger.communicate(timeout=20)
    finally:
        if pinger.poll() is None:
            pinger.kill()
            pinger.wait()
    assert pinger.returncode == 0 and " 0% packet loss" in out, out
    time.sleep(0.3)
    after = port(router, "eth0")
    got = {c: delta(before, after, c) for c in MALFORMED_KINDS.values()}
    assert got == {c: k for c in MALFORMED_KINDS.values()}, got
    assert delta(before, after, "drops-total") == k * len(MALFORMED_KINDS), \
        (before, after)
    assert delta(before, after, "forwarded") >= 15


def test_ecmp_spreads_flows(topo, router):
    flows = 200
    # Resolve both nexthops first so no flow waits on ARP.
    assert ping(topo, "h1", "10.0.2.2", count=1).returncode == 0
    assert ping(topo, "h1", "10.0.3.2", count=1).returncode == 0
    rx0 = {h: topo.counters(h, h + "-r")[0] for h in ("h2", "h3")}
    send = ("import socket, time\n"
            "for i in range(%d):\n"
            "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "    s.bind(('10.0.1.2', 20000 + i))\n"
            "    s.sendto(b'ecmp-flow', ('10.99.0.1', 9999))\n"
            "    s.close()\n"
            "    time.sleep(0.002)\n" % flows)
    p = topo.exec("h1", [PY, "-c", send], timeout=30)
    assert p.returncode == 0, p.stderr
    time.sleep(0.5)
    got = {h: topo.counters(h, h + "-r")[0] - rx0[h] for h in ("h2", "h3")}
    # Counts may include the odd ARP frame, never fewer than the flows.
    assert got["h2"] + got["h3"] >= flows, got
    for h in ("h2", "h3"):
        assert got[h] >= flows * 0.2, got
    print("ECMP split of %d flows: %s" % (flows, got))


def test_accounting_invariant(topo, router):
    """rx-packets == forwarded + to-kernel + drops-total on every port."""
    assert ping(topo, "h1", "10.0.2.2", count=5).returncode == 0
    assert ping(topo, "h2", "10.0.1.2", count=3).returncode == 0
    assert ping(topo, "h1", "10.0.1.1", count=2).returncode == 0
    assert ping(topo, "h1", "10.0.3.2", count=2).returncode == 0
    send_malformed(topo, MALFORMED_KINDS, 5)
    topo.exec("h1", ["ping", "-n", "-c", "2", "-i", "0.2", "-t", "1", "-W",
                     "1", "10.0.2.2"], timeout=10)
    topo.exec("h1", ["ping", "-n", "-c", "2", "-i", "0.2", "-W", "1",
                     "10.123.0.1"], timeout=10)
    topo.exec("h1", ["ping", "-n", "-c", "1", "-W", "1", "10.66.0.1"],
              timeout=10)
    time.sleep(1.0)
    s = router.stats()
    bad = lab.accounting_errors(s)
    assert not bad, "\n".join(bad)
    eth0 = port(router, "eth0", s)
    assert eth0["rx-packets"] > 0 and eth0["drops-total"] > 0, eth0


def test_sigusr1_stats_repeatable(topo, router):
    """stats.json is rewritten on each SIGUSR1 and counters never go back."""
    a = port(router, "eth0")
    assert ping(topo, "h1", "10.0.1.1", count=1).returncode == 0
    b = port(router, "eth0")
    for key in ("rx-packets", "forwarded", "to-kernel", "drops-total"):
        assert b[key] >= a[key], key
    assert b["rx-packets"] > a["rx-packets"]
