# SPDX-License-Identifier: BSD-2-Clause
"""IPv6 forwarding through cellgated (issue 16 phase 2a): h1 - r - h2.

What a reader learns here: ports with port/ipv6 addresses forward IPv6 in
cellgated (net.ipv6.conf.all.forwarding stays 0 in the router's namespace);
the kernel keeps answering neighbour discovery and ping6 for the router's
own addresses; cellgated resolves its next hops itself (neighbour
solicitations from the port's address, answers seen on the way to the
kernel); errors come back as ICMPv6 from the ingress port's address (hop
limit, no route, Packet Too Big with the egress MTU); and every received
frame is accounted as forwarded, handed to the kernel, or dropped under one
reason, IPv6 included.
"""

import json
import signal
import subprocess

import pytest

import lab
import restconf as rc
from conftest import start_router

port = lab.port_of
delta = lab.counter_delta

# Both drivers: afxdp's XDP program redirects transit IPv6 to the XSK too.
LAB_DRIVERS = lab.DRIVERS_ALL


@pytest.fixture(scope="module")
def topo_options():
    # h2's link is IPv6's minimum MTU: Packet Too Big for anything larger.
    return {"hosts": ("h1", "h2"), "ipv6": True, "mtu": {"r-h2": 1280}}


def v6_config():
    cfg = lab.default_config()
    top = cfg["cellgate:cellgate"]
    top["port"] = [p for p in top["port"] if p["name"] in ("eth0", "eth1")]
    top["routing"]["static-route"] = [
        r for r in top["routing"]["static-route"]
        if not any(n["address"].startswith("10.0.3.")
                   for n in r.get("nexthop", []))]
    for p, host in zip(top["port"], ("h1", "h2")):
        p["ipv6"] = {"address": [{"ip": lab.HOSTS6[host][1],
                                  "prefix-length": 64}]}
    top["routing"]["static-route6"] = [
        {"prefix": "2001:db8:20::/48",
         "nexthop": [{"address": lab.HOSTS6["h2"][0]}]},
        {"prefix": "2001:db8:66::/48", "action": "blackhole"},
    ]
    return cfg


@pytest.fixture(scope="module")
def router(request, topo, cellgated_bin):
    # Both ends of h2's link at 1280, or h2's 1448-byte replies would be
    # dropped by the veth before cellgated saw them.
    topo.exec("h2", ["ip", "link", "set", "h2-r", "mtu", "1280"], check=True)
    # With AF_PACKET the kernel sees transit frames too. IPv4 drops them
    # silently with ip_forward=0; IPv6 answers a destination it has no route
    # for with its own ICMPv6 no-route (forwarding=0 or not). A kernel
    # default of last resort keeps it quiet (README, "IPv6").
    topo.exec("r", ["ip", "-6", "route", "add", "blackhole", "default",
                    "metric", "4294967295"], check=True)
    return start_router(request, topo, cellgated_bin, config=v6_config())


def ping6(topo, host, dst, count=3, extra=()):
    cmd = ["ping", "-6", "-n", "-c", str(count), "-i", "0.2", "-W", "1"] + \
        list(extra) + [dst]
    return topo.exec(host, cmd, timeout=count + 15)


def test_kernel_ipv6_forwarding_off(topo, router):
    p = topo.exec("r", ["sysctl", "-n", "net.ipv6.conf.all.forwarding"],
                  check=True)
    assert p.stdout.strip() == "0"


def test_ping6_router_address(topo, router):
    """The kernel answers for the router's address (ND and echo)."""
    before = port(router, "eth0")
    p = ping6(topo, "h1", lab.HOSTS6["h1"][1])
    assert p.returncode == 0, p.stdout + p.stderr
    assert delta(before, port(router, "eth0"), "to-kernel") >= 3


@pytest.mark.parametrize("src,dst,inport,outport", [
    ("h1", "2001:db8:2::2", "eth0", "eth1"),
    ("h2", "2001:db8:1::2", "eth1", "eth0"),
    ("h1", "2001:db8:20::1", "eth0", "eth1"),  # static route via h2
])
def test_ping6_forwarded(topo, router, src, dst, inport, outport):
    # The first packets may wait for neighbour discovery; then none is lost.
    ping6(topo, src, dst, count=1)
    s0 = router.stats()
    p = ping6(topo, src, dst, count=5)
    assert p.returncode == 0, p.stdout + p.stderr
    assert " 0% packet loss" in p.stdout, p.stdout
    s1 = router.stats()
    assert delta(port(router, inport, s0), port(router, inport, s1),
                 "forwarded") >= 5
    assert delta(port(router, outport, s0), port(router, outport, s1),
                 "forwarded") >= 5


def test_neighbors6_and_fib6(topo, router):
    """cellgated resolved h2 itself (a /128 host route of source neighbor),
    with h2's MAC, and the static route's gateway is that same neighbour."""
    assert ping6(topo, "h1", "2001:db8:2::2", count=1).returncode == 0
    s = router.stats()
    h2mac = topo.mac("h2", "h2-r")
    found = [n for n in s["neighbors6"] if n["address"] == "2001:db8:2::2"]
    assert found, s["neighbors6"]
    assert found[0]["port"] == "eth1"
    assert found[0]["mac"].lower() == h2mac.lower()
    assert found[0]["state"] == "reachable"
    assert s["nd"]["requests-sent"] >= 2 and s["nd"]["replies-learned"] >= 2, s["nd"]
    by = s["fib6"]["by-source"]
    # 2 local /128s, 2 connected /64s, 2 static, a /128 per resolved host
    assert by["local"] == 2 and by["connected"] == 2 and by["static"] == 2, by
    assert by["neighbor"] >= 2, by
    assert s["fib6"]["routes"] >= 8 and s["fib6"]["errors"] == 0, s["fib6"]


@pytest.mark.parametrize("mode", ["udp", "icmp"])
def test_traceroute6(topo, router, mode):
    """Hop 1 answers from the ingress address (Time Exceeded, hop limit 1),
    hop 2 is h2 behind the static route."""
    cmd = ["traceroute", "-6", "-n", "-q", "1", "-w", "1", "-m", "5"]
    if mode == "icmp":
        cmd.append("-I")
    p = topo.exec("h1", cmd + ["2001:db8:20::1"], timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    hops = {}
    for ln in p.stdout.splitlines()[1:]:
        f = ln.split()
        if len(f) >= 2 and f[0].isdigit():
            hops[int(f[0])] = f[1]
    assert hops.get(1) == "2001:db8:1::1", p.stdout
    assert hops.get(2) == "2001:db8:20::1", p.stdout
    assert max(hops) == 2, p.stdout


def test_iperf3_tcp6(topo, router):
    """TCP over IPv6 through cellgated, its MSS within h2's 1280-byte link."""
    srv = topo.popen("h2", ["iperf3", "-s", "-1"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    try:
        assert lab.wait_for(lambda: topo.exec(
            "h2", ["ss", "-ltn", "sport = :5201"]).stdout.count("LISTEN"),
            timeout=5)
        s0 = router.stats()
        c = topo.exec("h1", ["iperf3", "-6", "-c", "2001:db8:2::2", "-t", "1",
                             "-J"], timeout=30)
        assert c.returncode == 0, c.stdout[-2000:] + c.stderr
        sent = json.loads(c.stdout)["end"]["sum_received"]["bytes"]
        assert sent > 1 << 20, sent
    finally:
        srv.kill()
        srv.wait()
    s1 = router.stats()
    e0, e1 = port(router, "eth0", s0), port(router, "eth0", s1)
    assert delta(e0, e1, "forwarded") > 500
    assert delta(e0, e1, "drops-total") == 0, e1["drops"]


def test_hop_limit_expiry(topo, router):
    s0 = router.stats()
    p = ping6(topo, "h1", "2001:db8:2::2", count=2, extra=["-t", "1"])
    assert p.returncode != 0
    assert "From 2001:db8:1::1" in p.stdout, p.stdout
    assert "Time exceeded" in p.stdout, p.stdout
    s1 = router.stats()
    assert delta(port(router, "eth0", s0), port(router, "eth0", s1),
                 "ip6-hop-limit") == 2


def test_no_route_and_blackhole(topo, router):
    s0 = router.stats()
    p = ping6(topo, "h1", "2001:db9::1", count=2)
    assert p.returncode != 0
    assert "From 2001:db8:1::1" in p.stdout, p.stdout
    assert "No route" in p.stdout, p.stdout
    assert p.stdout.count("No route") == 2, p.stdout  # ours only, once each
    p = ping6(topo, "h1", "2001:db8:66::1", count=2)
    assert p.returncode != 0
    s1 = router.stats()
    e0, e1 = port(router, "eth0", s0), port(router, "eth0", s1)
    assert delta(e0, e1, "no-route") == 2
    assert delta(e0, e1, "blackhole") == 2


def test_packet_too_big(topo, router):
    """1400-byte packets for h2's 1280-byte link: never fragmented by a
    router (RFC 8200 5), Packet Too Big with the MTU back to the sender, which
    then sends fragments of its own that fit."""
    s0 = router.stats()
    p = ping6(topo, "h1", "2001:db8:2::2", count=1,
              extra=["-s", "1400", "-M", "do"])
    assert "mtu=1280" in p.stdout + p.stderr, p.stdout + p.stderr
    s1 = router.stats()
    assert delta(port(router, "eth0", s0), port(router, "eth0", s1),
                 "ip6-too-big") >= 1
    # h1 learnt the path MTU: the same size now goes as fragments, and through.
    p = ping6(topo, "h1", "2001:db8:2::2", count=2, extra=["-s", "1400"])
    assert p.returncode == 0, p.stdout + p.stderr


def reload(router, cfg):
    with open(router.cfg, "w") as f:
        json.dump(lab.with_fib_algorithm(cfg), f)
    n0 = router.log().count("SIGHUP: configuration reloaded")
    router.proc.send_signal(signal.SIGHUP)
    assert lab.wait_for(lambda: router.log().count(
        "SIGHUP: configuration reloaded") > n0, timeout=5), router.log()[-1500:]


def reload_refused(router, cfg, needle):
    """SIGHUP with cfg, which the router must refuse, logging `needle`."""
    with open(router.cfg, "w") as f:
        json.dump(lab.with_fib_algorithm(cfg), f)
    router.proc.send_signal(signal.SIGHUP)
    assert lab.wait_for(lambda: needle in router.log(), timeout=5), router.log()[-1500:]


def neighbour6(router, address):
    for n in router.stats()["neighbors6"]:
        if n["address"] == address:
            return n
    return None


def nud_state(router, address):
    n = neighbour6(router, address)
    return n["state"] if n else "none"


def test_nud_reachable_stale_reachable(topo, router):
    """RFC 4861 NUD against the Linux kernel's ND on h2: with a short
    base-reachable-time on eth1 (3 s: ReachableTime 1.5 to 4.5 s, RFC 4861
    6.3.2; changed at runtime by the reload) h2's
    entry goes stale without traffic; a packet towards it is forwarded at
    once (7.3.3: stale is usable) and moves it to delay; after
    DELAY_FIRST_PROBE_TIME (5 s) a unicast solicitation is answered by h2's
    kernel (a solicited advertisement, without a target link-layer option
    since the solicitation was unicast) and the entry is reachable again,
    with the same MAC. h2's kernel meanwhile holds a usable entry for the
    router (ip -6 neigh)."""
    h2 = "2001:db8:2::2"
    cfg = v6_config()
    eth1 = [p for p in cfg["cellgate:cellgate"]["port"] if p["name"] == "eth1"][0]
    eth1["ipv6"]["nd"] = {"base-reachable-time": 3000}
    reload(router, cfg)
    try:
        assert ping6(topo, "h1", h2, count=1).returncode == 0
        assert lab.wait_for(lambda: nud_state(router, h2) == "reachable",
                            timeout=10), neighbour6(router, h2)
        assert lab.wait_for(lambda: nud_state(router, h2) == "stale",
                            timeout=10, interval=0.2), neighbour6(router, h2)
        nd0 = router.stats()["nd"]
        # Forwarded in stale, no solicitation first: the ping answers.
        assert ping6(topo, "h1", h2, count=1).returncode == 0
        assert lab.wait_for(lambda: nud_state(router, h2) == "delay",
                            timeout=3, interval=0.1), neighbour6(router, h2)
        assert lab.wait_for(lambda: nud_state(router, h2) == "reachable",
                            timeout=10, interval=0.2), neighbour6(router, h2)
        s = router.stats()
        assert s["nd"]["requests-sent"] > nd0["requests-sent"], (nd0, s["nd"])
        assert s["nd"]["replies-learned"] > nd0["replies-learned"], (nd0, s["nd"])
        n = neighbour6(router, h2)
        assert n["mac"].lower() == topo.mac("h2", "h2-r").lower(), n
        # RESTCONF names the same states (the YANG enum has stale and delay).
        r = rc.get(router, "/cellgate:cellgate/state/neighbor6")
        assert r.status == 200, r
        assert any(e["address"] == h2 and e["state"] in
                   ("reachable", "stale", "delay", "probe")
                   for e in r.json()["cellgate:neighbor6"]), r.json()
        # The kernel's own view of the router on h2's side.
        k = topo.exec("h2", ["ip", "-6", "neigh", "show", "2001:db8:2::1",
                             "dev", "h2-r"])
        assert k.returncode == 0 and k.stdout.strip(), k.stdout + k.stderr
        assert "FAILED" not in k.stdout and "INCOMPLETE" not in k.stdout, k.stdout
    finally:
        reload(router, v6_config())


def route6_prefixes(router):
    r = rc.get(router, "/cellgate:cellgate/state/fib/route6")
    assert r.status == 200, r.body
    return {x["prefix"] for x in r.json()["cellgate:route6"]}


def test_reload_changes_static_routes6(topo, router):
    """SIGHUP reloads an IPv4 change with the IPv6 settings unchanged, and a
    changed static-route6 too: the removed route leaves the FIB6, an added
    one arrives, traffic on the others keeps flowing; a route whose gateway
    no IPv6 prefix reaches is refused and nothing changes."""
    cfg = v6_config()
    cfg["cellgate:cellgate"]["system"]["icmp-burst"] = 40
    reload(router, cfg)
    routes6 = cfg["cellgate:cellgate"]["routing"]["static-route6"]
    try:
        routes6.pop()  # the 2001:db8:66::/48 blackhole
        routes6.append({"prefix": "2001:db8:67::/48", "action": "unreachable"})
        reload(router, cfg)
        have = route6_prefixes(router)
        assert "2001:db8:66::/48" not in have and "2001:db8:67::/48" in have, have
        assert ping6(topo, "h1", "2001:db8:20::1", count=2).returncode == 0
        bad = json.loads(json.dumps(cfg))
        bad["cellgate:cellgate"]["routing"]["static-route6"].append(
            {"prefix": "2001:db8:68::/48", "nexthop": [{"address": "2001:db8:99::1"}]})
        reload_refused(router, bad, "2001:db8:68::/48")
        have = route6_prefixes(router)
        assert "2001:db8:68::/48" not in have and "2001:db8:67::/48" in have, have
        assert router.alive()
    finally:
        reload(router, v6_config())
    assert "2001:db8:66::/48" in route6_prefixes(router)


def test_accounting(topo, router):
    """rx == forwarded + to-kernel + drops (+ held) on every port after mixed
    IPv4 and IPv6 traffic (ND, MLD, ARP, echo, errors)."""
    p = topo.exec("h1", ["ping", "-n", "-c", "3", "-i", "0.2", "-W", "1",
                         "10.0.2.2"], timeout=15)
    assert p.returncode == 0, p.stdout + p.stderr
    assert ping6(topo, "h2", "2001:db8:1::2", count=3).returncode == 0
    assert lab.wait_for(lambda: not lab.accounting_errors(router.stats()),
                        timeout=6, interval=0.25), \
        lab.accounting_errors(router.stats())


def test_ipv6_drops_by_reason(topo, router):
    """The IPv6 share of each drop reason (stats.json drops6, RESTCONF
    drop/ipv6-packets) sums to ipv6-discards; IPv4 drops stay out of it."""
    p0 = port(router, "eth0")
    # One of each: an IPv6 packet to the blackhole route, an IPv4 one with no route.
    ping6(topo, "h1", "2001:db8:66::1", count=1)
    topo.exec("h1", ["ping", "-n", "-c", "1", "-W", "1", "10.99.0.1"], timeout=10)
    p1 = port(router, "eth0")
    assert p1["drops6"]["blackhole"] - p0["drops6"]["blackhole"] == 1, p1["drops6"]
    assert p1["drops"]["no-route"] - p0["drops"]["no-route"] == 1, p1["drops"]
    assert p1["drops6"]["no-route"] == p0["drops6"]["no-route"], p1["drops6"]
    assert sum(p1["drops6"].values()) == p1["ipv6-discards"], p1
    assert all(p1["drops6"][k] <= p1["drops"][k] for k in p1["drops"]), p1
    st = rc.get(router, "/cellgate:cellgate/state/port=eth0").json()["cellgate:port"][0]
    share = {d["reason"]: int(d["ipv6-packets"]) for d in st["drop"]}
    assert share["blackhole"] >= 1 and sum(share.values()) == int(st["ipv6-discards"]), share
