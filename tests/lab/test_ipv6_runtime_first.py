# SPDX-License-Identifier: BSD-2-Clause
"""IPv6 turned on and off on a port at runtime (h1 - r - h2, as test_ipv6,
but eth1, h2's port, starts without IPv6), on both drivers.

What a reader learns here: before, IPv6 towards h2 has no route (ICMPv6
from eth0's address, counted no-route) and IPv6 received on eth1 is left to
the kernel (ipv6-to-kernel; with afxdp the XDP program passes it,
pass-ipv6-off). The first address put on eth1 over RESTCONF starts IPv6
forwarding there: its connected prefix and local /128 are in the FIB6,
cellgated resolves h2 itself, ping6 goes through both ways. The port's
first address is the source of its ICMPv6 errors (a hop-limit-1 ping from
h2): replaced by a second address on the same prefix, the errors come from
that one. Its last address deleted, eth1 stops forwarding IPv6: h1's ping6
is no-route again, h2's IPv6 goes to the kernel (counted), h2 is forgotten.
An IPv4 ping from h1 to h2 loses nothing throughout; no restart.
"""

import re
import signal
import subprocess
import time

import pytest

import lab
import restconf as rc
from conftest import start_router
from test_ipv6 import ping6, reload, v6_config
from test_ipv6_runtime import (ETH1_V6, addr_uri, kernel_addrs, neighbour6,  # noqa: F401
                               topo_options)  # (a fixture)

port = lab.port_of
delta = lab.counter_delta

LAB_DRIVERS = lab.DRIVERS_ALL

H1, H2 = lab.HOSTS6["h1"][0], lab.HOSTS6["h2"][0]
FIRST, SECOND = lab.HOSTS6["h2"][1], "2001:db8:2::100"  # both on h2's /64


def eth1_without_ipv6():
    cfg = v6_config()
    top = cfg["cellgate:cellgate"]
    eth1 = [p for p in top["port"] if p["name"] == "eth1"][0]
    del eth1["ipv6"]
    # The routes through h2 need eth1's prefix: only the blackhole stays.
    top["routing"]["static-route6"] = [
        r for r in top["routing"]["static-route6"] if r.get("action") == "blackhole"]
    return cfg


@pytest.fixture(scope="module")
def router(request, topo, cellgated_bin):
    # As in test_ipv6: with AF_PACKET the kernel must not answer transit IPv6.
    topo.exec("r", ["ip", "-6", "route", "add", "blackhole", "default",
                    "metric", "4294967295"], check=True)
    return start_router(request, topo, cellgated_bin, config=eth1_without_ipv6())


def h2_gateway(topo, gw):
    """h2 routes through gw, whose MAC it knows for good: it keeps sending to
    r even while r's kernel no longer answers for gw."""
    topo.exec("h2", ["ip", "-6", "neigh", "replace", gw, "lladdr", topo.mac("r", "r-h2"),
                     "dev", "h2-r", "nud", "permanent"], check=True)
    topo.exec("h2", ["ip", "-6", "route", "replace", "default", "via", gw], check=True)


def hop_limit_source(topo):
    """Who answers h2's hop-limit-1 ping to h1 (Time Exceeded), or None."""
    p = ping6(topo, "h2", H1, count=1, extra=("-t", "1"))
    m = re.search(r"From (\S+) icmp_seq=\d+ Time exceeded", p.stdout)
    return m.group(1) if m else None


class Ping4:
    """An IPv4 ping h1 -> h2, 20 a second, across every change."""

    def __init__(self, topo):
        self.p = topo.popen("h1", ["ping", "-n", "-D", "-i", "0.05", "-W", "1",
                                   lab.HOSTS["h2"][3]],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        out, _ = self.p.communicate(timeout=10)
        m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
        assert m, out
        got = {int(x) for x in re.findall(r"icmp_seq=(\d+) ", out)}
        missing = sorted(set(range(1, int(m.group(1)) + 1)) - got)
        return int(m.group(1)), int(m.group(2)), "missing %s; %s" % (missing, out[-600:])


def pass6_off(router):
    """afxdp: what eth1's XDP program passed to the kernel as IPv6 on a port
    without IPv6 (pass-ipv6-off); None on afpacket."""
    st = rc.port_state(router, "eth1")
    if st.get("driver") != "afxdp":
        return None
    return {d["name"]: int(d["packets"]) for d in st["afxdp"]["decision"]}["pass-ipv6-off"]


def assert_no_ipv6(topo, router, count=3):
    """h1's IPv6 to h2 is no route (from eth0's address, counted); h2's IPv6
    received on eth1 goes to the kernel, counted as such, none forwarded
    (afxdp: the XDP program passes it, pass-ipv6-off)."""
    off0 = pass6_off(router)
    assert (off0 is not None) == (lab.DRIVER == "afxdp")
    s0 = router.stats()
    p = ping6(topo, "h1", H2, count=count)
    assert p.returncode != 0 and "No route" in p.stdout, p.stdout
    assert "From %s" % lab.HOSTS6["h1"][1] in p.stdout, p.stdout
    p = ping6(topo, "h2", H1, count=count)
    assert p.returncode != 0, p.stdout
    s1 = router.stats()
    e0 = (port(router, "eth0", s0), port(router, "eth0", s1))
    e1 = (port(router, "eth1", s0), port(router, "eth1", s1))
    assert delta(*e0, "no-route") == count, e0
    assert delta(*e1, "ipv6-to-kernel") >= count, e1
    assert delta(*e1, "ipv6-forwarded") == 0, e1
    if off0 is not None:
        assert pass6_off(router) - off0 >= count


def test_ipv6_on_and_off(topo, router):
    pid = router.proc.pid
    assert ping6(topo, "h1", H2, count=1).returncode != 0
    h2_gateway(topo, FIRST)
    steps = []  # (time, what): to place a lost IPv4 ping among the changes
    bg = Ping4(topo)
    try:
        assert_no_ipv6(topo, router)

        # The first address: IPv6 forwarding starts on eth1.
        steps.append((time.time(), "change"))
        r = rc.request(router, "POST", ETH1_V6,
                       {"cellgate:address": [{"ip": FIRST, "prefix-length": 64}]})
        assert r.status == 201, r
        assert FIRST + "/64" in kernel_addrs(topo, "r-h2")
        assert "port eth1: IPv6 forwarding started" in router.log()
        ping6(topo, "h1", H2, count=1)  # may wait for neighbour discovery
        s0 = router.stats()
        p = ping6(topo, "h1", H2, count=5)
        assert p.returncode == 0 and " 0% packet loss" in p.stdout, p.stdout + p.stderr
        p = ping6(topo, "h2", H1, count=5)
        assert p.returncode == 0 and " 0% packet loss" in p.stdout, p.stdout + p.stderr
        s1 = router.stats()
        e1 = (port(router, "eth1", s0), port(router, "eth1", s1))
        assert delta(*e1, "ipv6-forwarded") >= 10, e1
        n = neighbour6(router, H2)
        assert n and n[0]["port"] == "eth1" and n[0]["state"] == "reachable", n
        assert hop_limit_source(topo) == FIRST

        # A second address, then the first deleted: the second is the source.
        steps.append((time.time(), "change"))
        r = rc.request(router, "POST", ETH1_V6,
                       {"cellgate:address": [{"ip": SECOND, "prefix-length": 64}]})
        assert r.status == 201, r
        h2_gateway(topo, SECOND)
        assert hop_limit_source(topo) == FIRST  # a second address changes nothing
        steps.append((time.time(), "change"))
        r = rc.request(router, "DELETE", addr_uri(FIRST))
        assert r.status == 204, r
        assert FIRST + "/64" not in kernel_addrs(topo, "r-h2")
        assert "port eth1: ICMPv6 errors and neighbour solicitations now from %s" % SECOND \
            in router.log()
        assert hop_limit_source(topo) == SECOND
        p = ping6(topo, "h1", H2, count=3)
        assert p.returncode == 0 and " 0% packet loss" in p.stdout, p.stdout

        # The last address deleted: no IPv6 on eth1 any more, h2 forgotten.
        steps.append((time.time(), "change"))
        r = rc.request(router, "DELETE", addr_uri(SECOND))
        assert r.status == 204, r
        assert "port eth1: IPv6 forwarding stopped" in router.log()
        assert not neighbour6(router, H2)
        assert_no_ipv6(topo, router)
        assert hop_limit_source(topo) is None  # the kernel's, which forwards nothing
    finally:
        sent, got, out = bg.stop()
        h2_gateway(topo, FIRST)
    assert sent >= 20 and got == sent, (out, steps)
    assert router.alive() and router.proc.pid == pid  # no restart


def test_ipv6_back_on(topo, router):
    """Once more: the port that lost IPv6 forwards it again."""
    r = rc.request(router, "POST", ETH1_V6,
                   {"cellgate:address": [{"ip": FIRST, "prefix-length": 64}]})
    assert r.status == 201, r
    ping6(topo, "h1", H2, count=1)
    p = ping6(topo, "h1", H2, count=3)
    assert p.returncode == 0 and " 0% packet loss" in p.stdout, p.stdout
    assert hop_limit_source(topo) == FIRST


def test_reload_off_and_on(topo, router):
    """SIGHUP applies the same: eth1's addresses gone from the startup file,
    eth1 stops forwarding IPv6; back, it forwards again."""
    reload(router, eth1_without_ipv6())
    assert FIRST + "/64" not in kernel_addrs(topo, "r-h2")
    assert_no_ipv6(topo, router)
    cfg = eth1_without_ipv6()
    eth1 = [p for p in cfg["cellgate:cellgate"]["port"] if p["name"] == "eth1"][0]
    eth1["ipv6"] = {"address": [{"ip": FIRST, "prefix-length": 64}]}
    reload(router, cfg)
    ping6(topo, "h1", H2, count=1)
    p = ping6(topo, "h1", H2, count=3)
    assert p.returncode == 0 and " 0% packet loss" in p.stdout, p.stdout
    assert router.alive()


def test_accounting(topo, router):
    assert ping6(topo, "h2", H1, count=3).returncode == 0
    assert lab.wait_for(lambda: not lab.accounting_errors(router.stats()),
                        timeout=6, interval=0.25), \
        lab.accounting_errors(router.stats())
