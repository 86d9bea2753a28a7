# SPDX-License-Identifier: BSD-2-Clause
"""FRR programs cellgated: Debian's zebra (FRR 8.4, -M dplane_fpm_nl) and
staticd run in the router namespace, and routes typed in vtysh reach
cellgated's FIB over FPM.

Every test runs twice: zebra with `fpm use-next-hop-groups` (its default:
next-hop objects, and routes naming them by id) and without (each route
carries its gateways).  What a reader learns here: what an operator sees
for `ip route` / `no ip route`, that FRR's route wins over cellgated's own
static route and hands back to it, and that neither a zebra restart (kill
-9) nor a reset FPM connection drops a packet on a route that did not
change, while routes zebra no longer has are swept once its replay has
settled (20 s, the default settle-time, without re-announcements).
IPv6 likewise: `ipv6 route` lands in cellgated's FIB6 and forwards, `no
ipv6 route` removes it, FRR's route wins over cellgated's static-route6,
and a link-local gateway comes with its interface.
"""

import json
import os
import re
import select
import signal
import subprocess
import time

import pytest

import frr
import lab

# Run on both Ethernet drivers (conftest.py: test ids [afpacket], [afxdp]).
LAB_DRIVERS = lab.DRIVERS_ALL
import restconf as rc
from conftest import start_router

SETTLE = 20  # the default settle-time; see cellgate.yang
SINK = 9999
PY = lab.PYTHON


# cellgated's own IPv6 static route (FRR's wins over it, test_ipv6_frr_wins_over_static6).
STATIC6 = "2001:db8:78::/48"


@pytest.fixture(scope="module")
def topo_options():
    # IPv6 on, the hosts addressed as lab.HOSTS6 says; cellgated's ports get
    # the router's addresses (cg below), which zebra then sees as connected.
    return {"ipv6": True}


@pytest.fixture(scope="module", params=["nexthop-groups", "plain"])
def mode(request):
    return request.param


@pytest.fixture(scope="module")
def cg(request, topo, cellgated_bin, mode):
    """cellgated with the lab config (its own static routes included)."""
    why = frr.missing()
    if why:
        pytest.fail(why, pytrace=False)
    cfg = lab.default_config()
    top = cfg["cellgate:cellgate"]
    top["routing"]["fpm"] = {"settle-time": SETTLE}
    for p in top["port"]:
        host = next(h for h, v in lab.HOSTS.items() if v[0] == p["name"])
        p["ipv6"] = {"address": [{"ip": lab.HOSTS6[host][1], "prefix-length": 64}]}
    top["routing"]["static-route6"] = [
        {"prefix": STATIC6, "nexthop": [{"address": lab.HOSTS6["h2"][0]}]}]
    return start_router(request, topo, cellgated_bin, config=cfg)


@pytest.fixture(scope="module")
def zebra(request, topo, cg, mode):
    f = frr.Frr(topo, nexthop_groups=mode == "nexthop-groups")

    def fin():
        f.stop()
        # zebra leaves its routes and next-hop objects in the kernel; the
        # next mode's zebra would replay them as its own.
        topo.exec("r", ["ip", "route", "flush", "proto", "196"])
        topo.exec("r", ["ip", "nexthop", "flush"])

    request.addfinalizer(fin)
    f.start()
    assert wait_fpm(cg, lambda s: s["connected"], 15), \
        "zebra did not connect:\n" + f.log()
    # Connected routes come first; wait until they are in.
    assert wait_fpm(cg, lambda s: s["routes"]["ipv4"] >= 3, 10), fpm(cg)
    return f


def fpm(d):
    return d.stats()["fpm"]


def wait_fpm(d, pred, timeout, interval=0.1):
    """Poll stats.json until pred(fpm object) holds; return that object or None."""
    return lab.wait_for(lambda: (lambda s: s if pred(s) else None)(fpm(d)),
                        timeout, interval)


def installed(d):
    return fpm(d)["routes"]["ipv4-installed"]


def in_sync(cg, zebra, timeout=15):
    """Wait until cellgated holds as many IPv4 routes as zebra's FIB (earlier
    changes have arrived); return that count."""
    def check():
        want = zebra.route_summary()["routesTotalFib"]
        return want if fpm(cg)["routes"]["ipv4"] == want else None
    n = lab.wait_for(check, timeout, interval=0.2)
    assert n is not None, (fpm(cg)["routes"], zebra.route_summary())
    return n


def installed6(d):
    return fpm(d)["routes"]["ipv6-installed"]


def in_sync6(cg, zebra, timeout=15):
    """As in_sync, for IPv6: cellgated holds as many IPv6 routes as zebra's FIB
    has prefixes (the summary counts fe80::/64 once per interface; FPM
    carries the prefix once)."""
    def check():
        routes = json.loads(zebra.vtysh("show ipv6 route json"))
        want = sum(1 for e in routes.values() if any(r.get("installed") for r in e))
        return want if fpm(cg)["routes"]["ipv6"] == want else None
    n = lab.wait_for(check, timeout, interval=0.2)
    assert n is not None, "%s\n%s\n%s" % (
        json.dumps(fpm(cg)["routes"]), json.dumps(fpm(cg)["rejected"]),
        zebra.vtysh("show ipv6 route summary"))
    return n


def ping6(topo, host, dst, count=1, wait=1):
    return topo.exec(host, ["ping", "-6", "-n", "-c", str(count), "-i", "0.2",
                            "-W", str(wait), dst], timeout=count + wait + 10)


def echo_replies(p):
    """Replies of a ping6 that got one for every request it sent, else 0.
    With AF_PACKET the kernel sees transit frames too and answers a
    destination it has no route for with its own ICMPv6 no-route (README,
    "IPv6"), which ping counts as errors and stops early for: the replies,
    not the count asked for, say what came back."""
    m = re.search(r"(\d+) packets transmitted, (\d+) received", p.stdout)
    return int(m.group(2)) if m and m.group(1) == m.group(2) else 0


class Host128:
    """An extra IPv6 /128 on a host's loopback (a destination in a routed prefix)."""

    def __init__(self, topo, host, addr):
        self.topo, self.host, self.addr = topo, host, addr

    def __enter__(self):
        self.topo.exec(self.host, ["ip", "-6", "addr", "add", self.addr + "/128",
                                   "dev", "lo"], check=True)
        return self

    def __exit__(self, *exc):
        self.topo.exec(self.host, ["ip", "-6", "addr", "del", self.addr + "/128",
                                   "dev", "lo"])
        return False


def ping(topo, host, dst, count=1, wait=1):
    return topo.exec(host, ["ping", "-n", "-c", str(count), "-i", "0.2",
                            "-W", str(wait), dst], timeout=count + wait + 10)


def resolve_gateways(topo):
    """Let cellgated learn h2's and h3's MACs first, so no test packet waits on ARP."""
    for gw in ("10.0.2.2", "10.0.3.2"):
        assert ping(topo, "h1", gw).returncode == 0


class Host32:
    """An extra /32 on a host's loopback, so its UDP sink takes the flow."""

    def __init__(self, topo, host, addr):
        self.topo, self.host, self.addr = topo, host, addr

    def __enter__(self):
        self.topo.exec(self.host, ["ip", "addr", "add", self.addr + "/32",
                                   "dev", "lo"], check=True)
        return self

    def __exit__(self, *exc):
        self.topo.exec(self.host, ["ip", "addr", "del", self.addr + "/32",
                                   "dev", "lo"])
        return False


_FLOW = r"""
import json, select, socket, sys, time
dst, port, interval = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
n, t0 = 0, time.monotonic()
print("ready", flush=True)
while not select.select([sys.stdin], [], [], 0)[0]:
    s.sendto(n.to_bytes(4, "big"), (dst, port))
    n += 1
    time.sleep(max(0.0, t0 + n * interval - time.monotonic()))
print(json.dumps({"sent": n}), flush=True)
"""


class Flow:
    """UDP datagrams from h1 to dst every `interval` s until stop(); with
    a sniffer+sink on the receiving host, counts what arrived."""

    def __init__(self, topo, dst, rx_host, rx_iface, interval=0.01,
                 duration=120):
        self.topo, self.dst, self.interval = topo, dst, interval
        self.sniffer = lab.Sniffer(topo, rx_host, rx_iface, duration=duration,
                                   sink_port=SINK)
        self.proc = None
        self.sent = 0

    def __enter__(self):
        self.sniffer.start()
        self.proc = self.topo.popen("h1", [PY, "-c", _FLOW, self.dst, str(SINK),
                                           str(self.interval)],
                                    stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True)
        if not select.select([self.proc.stdout], [], [], 10)[0] or \
                self.proc.stdout.readline().strip() != "ready":
            self.close()
            raise RuntimeError("flow sender did not start")
        return self

    def stop(self):
        out, _ = self.proc.communicate(input="", timeout=20)
        self.sent = json.loads(out)["sent"]
        time.sleep(0.3)  # the last datagrams in flight
        self.sniffer.stop()
        return self

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.sniffer.kill()

    def __exit__(self, exc_type, *exc):
        if exc_type is not None:
            self.close()
        return False

    @property
    def received(self):
        return self.sniffer.sink

    def max_gap(self):
        """Longest silence between datagrams of the flow seen arriving."""
        t = [f["t"] for f in self.sniffer.incoming(dst=self.dst)]
        return max((b - a for a, b in zip(t, t[1:])), default=0.0)


def test_zebra_connects(cg, zebra, mode):
    s = wait_fpm(cg, lambda s: s["state"] in ("syncing", "established"), 5)
    assert s and s["connected"] and s["peer"].startswith("127.0.0.1:"), s
    # zebra replays its FIB on connect: here the three connected subnets.
    assert s["routes"]["ipv4"] >= 3, s
    if mode == "nexthop-groups":
        assert s["messages"]["newnexthop"] > 0, s
    else:
        assert s["messages"]["newnexthop"] == 0, s
    assert not any(s["errors"].values()), s["errors"]
    # RESTCONF and /metrics report the same session, in the same words.
    s = fpm(cg)
    st = rc.state(cg)["fpm"]
    m = rc.parse_metrics(rc.request(cg, "GET", "/metrics").body)
    if st["state"] != s["state"]:  # the replay settled in between: once more
        s, st = fpm(cg), rc.state(cg)["fpm"]
        m = rc.parse_metrics(rc.request(cg, "GET", "/metrics").body)
    assert st["state"] == s["state"] and st["peer"] == s["peer"], (st, s["state"])
    assert int(st["messages-in"]) > 0 and int(st["errors"]) == 0, st
    assert "last-change" in st
    assert rc.metric(m, "cellgate_fpm_state", state=st["state"]) == 1
    assert st["settled"] == (st["state"] == "established")


def test_ip_route_forwards_no_ip_route_unreachable(topo, cg, zebra):
    """`ip route` in vtysh: traffic flows; `no ip route`: the router answers
    ICMP net unreachable."""
    resolve_gateways(topo)
    in_sync(cg, zebra)
    n0 = installed(cg)
    with Host32(topo, "h2", "10.30.0.1"):
        zebra.configure("ip route 10.30.0.0/16 10.0.2.2")
        assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0 + 1,
                        10), fpm(cg)
        before = lab.port_of(cg, "eth0")
        with lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as sn:
            r = lab.send_udp(topo, "h1", "10.30.0.1", count=20, interval=0.01)
            time.sleep(0.3)
        assert r["sent"] == 20 and sn.sink == 20, (r, sn.sink)
        after = lab.port_of(cg, "eth0")
        assert lab.counter_delta(before, after, "forwarded") >= 20

        zebra.configure("no ip route 10.30.0.0/16 10.0.2.2")
        assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0,
                        10), fpm(cg)
        before = lab.port_of(cg, "eth0")
        p = ping(topo, "h1", "10.30.0.1", wait=2)
        assert "From 10.0.1.1" in p.stdout and \
            "Destination Net Unreachable" in p.stdout, p.stdout
        after = lab.port_of(cg, "eth0")
        assert lab.counter_delta(before, after, "no-route") == 1


def test_frr_wins_over_static_route(topo, cg, zebra):
    """cellgated's config sends 10.20.0.0/24 to h2; FRR's route to h3 wins,
    and withdrawing it brings the static route back."""
    resolve_gateways(topo)
    in_sync(cg, zebra)
    n0 = installed(cg)
    zebra.configure("ip route 10.20.0.0/24 10.0.3.2")
    try:
        assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0 + 1,
                        10)
        with lab.Sniffer(topo, "h3", "h3-r") as sn:
            lab.send_udp(topo, "h1", "10.20.0.1", count=10, interval=0.01)
            time.sleep(0.3)
        assert len(sn.incoming(dst="10.20.0.1")) == 10
    finally:
        zebra.configure("no ip route 10.20.0.0/24 10.0.3.2")
    assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0, 10)
    with lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as sn:
        lab.send_udp(topo, "h1", "10.20.0.1", count=10, interval=0.01)
        time.sleep(0.3)
    assert sn.sink == 10


def test_ecmp_route_spreads_flows(topo, cg, zebra, mode):
    resolve_gateways(topo)
    in_sync(cg, zebra)
    n0 = installed(cg)
    zebra.configure("ip route 10.40.0.0/16 10.0.2.2",
                    "ip route 10.40.0.0/16 10.0.3.2")
    try:
        assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0 + 1,
                        10)
        time.sleep(0.5)  # zebra sends the second path as a change
        flows = 200
        rx0 = {h: topo.counters(h, h + "-r")[0] for h in ("h2", "h3")}
        send = ("import socket, time\n"
                "for i in range(%d):\n"
                "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                "    s.bind(('10.0.1.2', 30000 + i))\n"
                "    s.sendto(b'ecmp', ('10.40.0.1', 9999))\n"
                "    s.close()\n"
                "    time.sleep(0.002)\n" % flows)
        assert topo.exec("h1", [PY, "-c", send], timeout=30).returncode == 0
        time.sleep(0.5)
        got = {h: topo.counters(h, h + "-r")[0] - rx0[h] for h in ("h2", "h3")}
        assert got["h2"] + got["h3"] >= flows, got
        for h in ("h2", "h3"):
            assert got[h] >= flows * 0.2, got
        print("%s: ECMP split of %d flows: %s" % (mode, flows, got))
    finally:
        zebra.configure("no ip route 10.40.0.0/16 10.0.2.2",
                        "no ip route 10.40.0.0/16 10.0.3.2")


def test_blackhole_and_reject_routes(topo, cg, zebra):
    in_sync(cg, zebra)
    n0 = installed(cg)
    zebra.configure("ip route 10.41.0.0/16 blackhole",
                    "ip route 10.42.0.0/16 reject")
    try:
        assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0 + 2,
                        10)
        before = lab.port_of(cg, "eth0")
        p = ping(topo, "h1", "10.41.0.1")
        assert "From " not in p.stdout and "bytes from" not in p.stdout
        p = ping(topo, "h1", "10.42.0.1", wait=2)
        assert "From 10.0.1.1" in p.stdout and "Unreachable" in p.stdout, \
            p.stdout
        after = lab.port_of(cg, "eth0")
        assert lab.counter_delta(before, after, "blackhole") == 1
        assert lab.counter_delta(before, after, "unreachable") == 1
    finally:
        zebra.configure("no ip route 10.41.0.0/16 blackhole",
                        "no ip route 10.42.0.0/16 reject")


def test_route_over_foreign_interface_rejected(topo, cg, zebra):
    """zebra knows every netdev of the namespace; a route out of one that is
    not a cellgated port is counted and not installed."""
    topo.exec("r", ["ip", "link", "add", "cgx0", "type", "veth", "peer",
                    "name", "cgx1"], check=True)
    try:
        r0 = fpm(cg)["rejected"]["ifindex"]
        topo.exec("r", ["ip", "addr", "add", "10.50.0.1/24", "dev", "cgx0"],
                  check=True)
        topo.exec("r", ["ip", "link", "set", "cgx1", "up"], check=True)
        topo.exec("r", ["ip", "link", "set", "cgx0", "up"], check=True)
        zebra.configure("ip route 10.51.0.0/16 10.50.0.2")
        # The connected 10.50.0.0/24 and the static route over it.
        s = wait_fpm(cg, lambda s: s["rejected"]["ifindex"] >= r0 + 2 and
                     s["routes"]["ipv4-rejected"] >= 2, 10)
        assert s, fpm(cg)
        p = ping(topo, "h1", "10.51.0.1", wait=2)
        assert "Destination Net Unreachable" in p.stdout, p.stdout
    finally:
        zebra.configure("no ip route 10.51.0.0/16 10.50.0.2")
        topo.exec("r", ["ip", "link", "del", "cgx0"])


def settled_session(d, session):
    return wait_fpm(d, lambda s: s["session"] >= session and
                    s["state"] == "established", SETTLE + 30, interval=0.5)


def test_zebra_kill9_restart_zero_loss(topo, cg, zebra):
    """kill -9 zebra and start it again while a flow runs: zebra's replay
    (and staticd re-sending its routes 10 s later) changes nothing the
    flow uses, and nothing is lost."""
    resolve_gateways(topo)
    in_sync(cg, zebra)
    n0 = installed(cg)
    zebra.configure("ip route 10.60.0.0/16 10.0.2.2")
    assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0 + 1, 10)
    s0 = fpm(cg)
    try:
        with Host32(topo, "h2", "10.60.0.1"), \
                Flow(topo, "10.60.0.1", "h2", "h2-r") as flow:
            time.sleep(1)
            zebra.kill_zebra(signal.SIGKILL)
            time.sleep(0.5)
            zebra.start_zebra()
            s = settled_session(cg, s0["session"] + 1)
            assert s, "no new session settled:\n%s\n%s" % (fpm(cg),
                                                           zebra.log())
            time.sleep(1)
            flow.stop()
        print("zebra restart: %d sent, %d received, longest gap %.3f s, "
              "settled after %d ms, %d routes re-announced" %
              (flow.sent, flow.received, flow.max_gap(), s["last-settle-ms"],
               s["routes"]["reconfirmed"] - s0["routes"]["reconfirmed"]))
        assert flow.sent > 1000 and flow.received == flow.sent, \
            (flow.sent, flow.received)
        assert s["routes"]["reconfirmed"] > s0["routes"]["reconfirmed"]
        assert installed(cg) == n0 + 1
    finally:
        zebra.configure("no ip route 10.60.0.0/16 10.0.2.2")


def test_connection_reset_zero_loss_and_stale_sweep(topo, cg, zebra):
    """A reset FPM connection loses nothing. A route withdrawn while zebra
    was disconnected (zebra does not queue updates for FPM) keeps
    forwarding until the next session's replay settles, then is swept."""
    resolve_gateways(topo)
    in_sync(cg, zebra)
    n0 = installed(cg)
    zebra.configure("ip route 10.70.0.0/16 10.0.2.2",
                    "ip route 10.71.0.0/16 10.0.2.2")
    assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0 + 2, 10)
    s0 = fpm(cg)
    try:
        with Host32(topo, "h2", "10.70.0.1"), Host32(topo, "h2", "10.71.0.1"), \
                Flow(topo, "10.70.0.1", "h2", "h2-r") as flow:
            time.sleep(0.5)
            # RST from the kernel's side: ss -K destroys zebra's socket.
            topo.exec("r", ["ss", "-K", "dst", "127.0.0.1", "dport", "=",
                            ":2620"], check=True)
            assert wait_fpm(cg, lambda s: s["session"] > s0["session"], 15), \
                fpm(cg)
            # Now away from zebra for good, and 10.71/16 goes meanwhile.
            zebra.configure("no fpm address")
            assert wait_fpm(cg, lambda s: not s["connected"], 10)
            zebra.configure("no ip route 10.71.0.0/16 10.0.2.2",
                            "fpm address 127.0.0.1 port 2620")
            s1 = wait_fpm(cg, lambda s: s["connected"] and
                          s["session"] >= s0["session"] + 2, 15)
            assert s1, fpm(cg)
            # Not re-announced, but still forwarding while the replay settles.
            assert fpm(cg)["stale"] >= 1
            # RESTCONF says so too: the replay is not settled, with the stale count.
            st = rc.state(cg)["fpm"]
            assert st["state"] == "syncing" and not st["settled"], st
            assert int(st["stale-routes"]) >= 1, st
            # (another port than the flow's sink: h2 answers port unreachable)
            r = lab.send_udp(topo, "h1", "10.71.0.1", count=5, interval=0.01,
                             dport=SINK - 1)
            assert r["sent"] == 5
            s2 = settled_session(cg, s1["session"])
            assert s2, fpm(cg)
            time.sleep(0.5)
            flow.stop()
        print("reset + resync: %d sent, %d received, longest gap %.3f s, "
              "swept %d" % (flow.sent, flow.received, flow.max_gap(),
                            s2["routes"]["swept"] - s0["routes"]["swept"]))
        assert flow.received == flow.sent and flow.sent > 1000, \
            (flow.sent, flow.received)
        # The 5 datagrams to 10.71.0.1 (stale but forwarding) arrived too.
        assert len(flow.sniffer.incoming(dst="10.71.0.1")) == 5
        assert s2["routes"]["swept"] == s0["routes"]["swept"] + 1
        assert s2["stale"] == 0
        st = rc.state(cg)["fpm"]
        assert st["state"] == "established" and st["settled"], st
        assert int(st["stale-routes"]) == 0 and "last-settle" in st
        assert st["last-settle-duration"] == s2["last-settle-ms"], (st, s2["last-settle-ms"])
        assert installed(cg) == n0 + 1
        p = ping(topo, "h1", "10.71.0.1", wait=2)
        assert "Destination Net Unreachable" in p.stdout, p.stdout
    finally:
        zebra.configure("no ip route 10.70.0.0/16 10.0.2.2")


def route_file(zebra, name, lines):
    path = zebra.path(name)
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    return path


def test_10k_static_routes_match_frr(topo, cg, zebra):
    """10,000 routes configured in staticd: cellgated's count matches FRR's
    `show ip route summary`, and traffic on an unrelated prefix never
    stalls while they load and unload."""
    resolve_gateways(topo)
    routes = ["ip route 172.%d.%d.0/24 10.0.%d.2" % (16 + i // 256, i % 256,
                                                     2 + i % 2)
              for i in range(10000)]
    add = route_file(zebra, "add10k.conf", routes)
    remove = route_file(zebra, "del10k.conf", ["no " + r for r in routes])
    in_sync(cg, zebra)
    n0 = installed(cg)
    with Flow(topo, "10.20.0.1", "h2", "h2-r", interval=0.005) as flow:
        t0 = time.monotonic()
        try:
            zebra.configure_file(add)
            summ = lab.wait_for(lambda: (lambda x: x if x["routesTotalFib"] >=
                                         n0 + 10000 else None)(
                zebra.route_summary()), 60)
            assert summ, zebra.route_summary()
            s = wait_fpm(cg, lambda s: s["routes"]["ipv4"] ==
                         summ["routesTotalFib"], 30, interval=0.25)
            t_loaded = time.monotonic() - t0
            assert s, (fpm(cg)["routes"], summ)
            assert s["routes"]["ipv4-installed"] == summ["routesTotalFib"]
            assert cg.stats()["fib"]["by-source"]["frr"] == \
                summ["routesTotalFib"]
        finally:
            zebra.configure_file(remove)
        assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0, 60)
        flow.stop()
    print("10k routes: FRR FIB %d, cellgated %d, loaded in %.1f s; unrelated "
          "flow %d/%d, longest gap %.3f s" %
          (summ["routesTotalFib"], s["routes"]["ipv4"], t_loaded,
           flow.received, flow.sent, flow.max_gap()))
    assert flow.received == flow.sent, (flow.sent, flow.received)
    # Generous: the sender itself shares 2 CPUs with zebra, staticd and vtysh.
    assert flow.max_gap() < 1.0


_BAD_FEED = r"""
import socket, struct, sys, time
s = socket.create_connection(("127.0.0.1", 2620), timeout=5)
# A route with a 3-byte RTA_GATEWAY: this message is skipped, the session stays.
rtm = struct.pack("=BBBBBBBBI", 2, 16, 0, 0, 254, 196, 0, 1, 0)
attrs = struct.pack("=HH4s", 8, 1, bytes([10, 88, 0, 0])) + \
    struct.pack("=HH3sx", 7, 5, bytes([10, 0, 2]))
nl = struct.pack("=IHHII", 16 + len(rtm) + len(attrs), 24, 0x501, 0, 0) + rtm + attrs
s.sendall(struct.pack("!BBH", 1, 1, 4 + len(nl)) + nl)
time.sleep(0.5)
# A frame header of version 9: the stream cannot be trusted any more.
s.sendall(struct.pack("!BBH", 9, 1, 8) + b"\0" * 4)
s.settimeout(5)
print("closed" if s.recv(1) == b"" else "open")
"""


def test_malformed_feed_counted_session_ends(topo, cg, zebra):
    """Something that is not zebra gets the session (zebra is away: while
    it is connected nobody else can) and sends garbage: counted, logged,
    the session ends; cellgated keeps forwarding and zebra comes back (it
    reconnects every few seconds)."""
    s0 = fpm(cg)
    assert not any(s0["errors"].values()), s0["errors"]  # zebra's feed was clean
    zebra.configure("no fpm address")
    assert wait_fpm(cg, lambda s: not s["connected"], 10)
    try:
        p = topo.exec("r", [PY, "-c", _BAD_FEED], timeout=20)
    finally:
        zebra.configure("fpm address 127.0.0.1 port 2620")
    assert p.returncode == 0 and p.stdout.strip() == "closed", \
        p.stdout + p.stderr
    s = fpm(cg)
    assert s["errors"]["attribute-size"] == 1, s["errors"]
    assert s["errors"]["header-version"] == 1, s["errors"]
    assert s["disconnects"] >= s0["disconnects"] + 2  # zebra's, then ours
    assert cg.alive()
    assert ping(topo, "h1", "10.20.0.1").returncode == 0
    assert wait_fpm(cg, lambda s: s["connected"] and
                    s["session"] >= s0["session"] + 2, 20), fpm(cg)


FEED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fpmfeed.py")


def squatter(topo):
    """A process on the router that connects to the FPM port and holds it."""
    p = topo.popen("r", [PY, FEED, "127.0.0.1", "2620", "hold"], stdin=subprocess.PIPE,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    p.lines = lab.LineReader(p.stdout)
    ready = p.lines.line(10)
    assert ready == "connected", ready
    return p


def squatter_closed(p, timeout=5):
    """True when cellgated closed the squatter's connection."""
    return p.lines.expect("closed", timeout)


def squatter_stop(p):
    if p.poll() is None:
        p.stdin.close()
        p.wait(timeout=10)


def test_connection_while_zebra_connected_refused(topo, cg, zebra):
    """A local process connecting to the FPM port cannot push zebra off:
    its connection is closed at once, zebra's session and routes stay."""
    in_sync(cg, zebra)
    s0 = fpm(cg)
    assert s0["connected"]
    p = squatter(topo)
    try:
        assert squatter_closed(p), "the second connection was kept"
    finally:
        squatter_stop(p)
    s1 = fpm(cg)
    assert s1["connected"] and s1["session"] == s0["session"] and s1["peer"] == s0["peer"]
    assert s1["refused-busy"] == s0["refused-busy"] + 1
    assert s1["routes"]["ipv4"] == s0["routes"]["ipv4"]
    # zebra still programs cellgated.
    n0 = installed(cg)
    zebra.configure("ip route 10.61.0.0/16 10.0.2.2")
    try:
        assert wait_fpm(cg, lambda s: s["routes"]["ipv4-installed"] == n0 + 1, 10)
    finally:
        zebra.configure("no ip route 10.61.0.0/16 10.0.2.2")


def test_zebra_gets_in_once_the_holder_closes(topo, cg, zebra):
    """Something else held the port first: zebra's connections are refused
    (counted) until it closes; then zebra gets in by itself and replays."""
    zebra.configure("no fpm address")
    assert wait_fpm(cg, lambda s: not s["connected"], 10)
    s0 = fpm(cg)
    p = squatter(topo)
    try:
        assert wait_fpm(cg, lambda s: s["connected"] and s["session"] == s0["session"] + 1, 5)
        zebra.configure("fpm address 127.0.0.1 port 2620")
        # zebra retries every few seconds and is turned away each time.
        assert wait_fpm(cg, lambda s: s["refused-busy"] > s0["refused-busy"], 15), fpm(cg)
        assert fpm(cg)["session"] == s0["session"] + 1
    finally:
        squatter_stop(p)
    s = wait_fpm(cg, lambda s: s["connected"] and s["session"] == s0["session"] + 2, 15)
    assert s, fpm(cg)
    in_sync(cg, zebra)


def fib6_frr(d):
    return d.stats()["fib6"]["by-source"]["frr"]


def test_ipv6_route_lands_in_fib6_and_withdraws(topo, cg, zebra):
    """`ipv6 route 2001:db8:77::/48 <h2>` in vtysh: in cellgated's RIB6/FIB6
    as an FRR route (stats.json and RESTCONF agree); `no ipv6 route`: gone."""
    in_sync6(cg, zebra)
    n0, f0 = installed6(cg), fib6_frr(cg)
    gw = lab.HOSTS6["h2"][0]
    zebra.configure("ipv6 route 2001:db8:77::/48 " + gw)
    try:
        s = wait_fpm(cg, lambda s: s["routes"]["ipv6-installed"] == n0 + 1, 10)
        assert s, fpm(cg)
        assert s["routes"]["ipv6-rejected"] == 0, s["rejected"]
        assert fib6_frr(cg) == f0 + 1
        st = rc.state(cg)["fpm"]
        assert int(st["routes-ipv6"]) == fpm(cg)["routes"]["ipv6"], st
    finally:
        zebra.configure("no ipv6 route 2001:db8:77::/48 " + gw)
    assert wait_fpm(cg, lambda s: s["routes"]["ipv6-installed"] == n0, 10), fpm(cg)
    assert fib6_frr(cg) == f0


def test_ipv6_route_forwards_then_no_route(topo, cg, zebra):
    """h1 reaches h2's address in FRR's 2001:db8:77::/48 through cellgated;
    after `no ipv6 route` cellgated answers no-route."""
    in_sync6(cg, zebra)
    n0 = installed6(cg)
    gw = lab.HOSTS6["h2"][0]
    with Host128(topo, "h2", "2001:db8:77::1"):
        zebra.configure("ipv6 route 2001:db8:77::/48 " + gw)
        try:
            assert wait_fpm(cg, lambda s: s["routes"]["ipv6-installed"] == n0 + 1, 10)
            ping6(topo, "h1", "2001:db8:77::1", wait=2)  # neighbour discovery first
            before = lab.port_of(cg, "eth1")
            p = ping6(topo, "h1", "2001:db8:77::1", count=5)
            assert p.returncode == 0 and " 0% packet loss" in p.stdout, p.stdout
            after = lab.port_of(cg, "eth1")
            assert lab.counter_delta(before, after, "forwarded") >= 5
        finally:
            zebra.configure("no ipv6 route 2001:db8:77::/48 " + gw)
        assert wait_fpm(cg, lambda s: s["routes"]["ipv6-installed"] == n0, 10)
        before = lab.port_of(cg, "eth0")
        p = ping6(topo, "h1", "2001:db8:77::1", wait=2)
        assert "bytes from" not in p.stdout, p.stdout
        after = lab.port_of(cg, "eth0")
        assert lab.counter_delta(before, after, "no-route") == 1


def rx(topo, host):
    return topo.counters(host, host + "-r")[0]


def test_ipv6_frr_wins_over_static6(topo, cg, zebra):
    """cellgated's static-route6 sends 2001:db8:78::/48 to h2; FRR's route
    to h3 wins, and withdrawing it brings the static route back."""
    in_sync6(cg, zebra)
    n0 = installed6(cg)
    dst = "2001:db8:78::1"
    with Host128(topo, "h2", dst), Host128(topo, "h3", dst):
        ping6(topo, "h1", dst, wait=2)
        zebra.configure("ipv6 route %s %s" % (STATIC6, lab.HOSTS6["h3"][0]))
        try:
            assert wait_fpm(cg, lambda s: s["routes"]["ipv6-installed"] == n0 + 1, 10)
            ping6(topo, "h1", dst, wait=2)
            r2, r3 = rx(topo, "h2"), rx(topo, "h3")
            p = ping6(topo, "h1", dst, count=5)
            n = echo_replies(p)
            got = (rx(topo, "h2") - r2, rx(topo, "h3") - r3)
            assert n >= 3 and got[1] >= n and got[0] < n, (got, p.stdout)
        finally:
            zebra.configure("no ipv6 route %s %s" % (STATIC6, lab.HOSTS6["h3"][0]))
        assert wait_fpm(cg, lambda s: s["routes"]["ipv6-installed"] == n0, 10)
        r2, r3 = rx(topo, "h2"), rx(topo, "h3")
        p = ping6(topo, "h1", dst, count=10)
        n = echo_replies(p)
        got = (rx(topo, "h2") - r2, rx(topo, "h3") - r3)
        assert n >= 3 and got[0] >= n and got[1] < n, (got, p.stdout)


def link_local(topo, host):
    """The host's fe80:: address on its link to the router (waits for it:
    the kernel adds it once the link is up, after DAD)."""
    def find():
        p = topo.exec(host, ["ip", "-6", "-j", "addr", "show", "dev", host + "-r"],
                      check=True)
        for link in json.loads(p.stdout):
            for a in link.get("addr_info", []):
                if a.get("scope") == "link" and "tentative" not in a:
                    return a["local"]
        return None
    ll = lab.wait_for(find, 10, interval=0.2)
    assert ll, topo.exec(host, ["ip", "-6", "addr", "show"]).stdout
    return ll


def test_ipv6_link_local_gateway(topo, cg, zebra):
    """`ipv6 route ... fe80::... r-h2`: zebra sends the gateway with its
    interface; cellgated installs it, resolves h2's link-local address by
    neighbour discovery on eth1 and forwards."""
    in_sync6(cg, zebra)
    n0 = installed6(cg)
    ll = link_local(topo, "h2")
    with Host128(topo, "h2", "2001:db8:79::1"):
        zebra.configure("ipv6 route 2001:db8:79::/48 %s r-h2" % ll)
        try:
            s = wait_fpm(cg, lambda s: s["routes"]["ipv6-installed"] == n0 + 1, 10)
            assert s, fpm(cg)
            assert s["rejected"]["link-local-no-oif"] == 0, s["rejected"]
            ping6(topo, "h1", "2001:db8:79::1", wait=2)
            p = ping6(topo, "h1", "2001:db8:79::1", count=5)
            assert " 0% packet loss" in p.stdout, p.stdout
            found = [n for n in cg.stats()["neighbors6"] if n["address"] == ll]
            assert found and found[0]["port"] == "eth1", cg.stats()["neighbors6"]
        finally:
            zebra.configure("no ipv6 route 2001:db8:79::/48 %s r-h2" % ll)
        assert wait_fpm(cg, lambda s: s["routes"]["ipv6-installed"] == n0, 10)
