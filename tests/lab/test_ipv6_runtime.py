# SPDX-License-Identifier: BSD-2-Clause
"""IPv6 addresses of a port changed at runtime (h1 - r - h2, as test_ipv6).

What a reader learns here: an IPv6 address added to a port over RESTCONF
(or by a SIGHUP reload) is on the NIC, answers ping (the kernel's, through
the punt of the local /128; with afxdp the XDP program's cg_local6 map
follows the kernel's addresses) and its prefix is forwarded to at once,
cellgated resolving the hosts there itself; deleted, the address leaves the
NIC, its prefix is no route (ICMPv6 from the ingress address, counted), and
the neighbours on it are forgotten. Meanwhile a ping over an unrelated
prefix loses nothing, and no restart happens. A port's first address (the
source of its ICMPv6 errors and solicitations) may go too: the next one
takes its place; a port gaining or losing IPv6 altogether is
test_ipv6_runtime_first.py.
"""

import os
import re
import signal
import subprocess
import urllib.parse

import pytest

import lab
import restconf as rc
from conftest import start_router
from test_ipv6 import ping6, reload, reload_refused, route6_prefixes, v6_config

port = lab.port_of
delta = lab.counter_delta

LAB_DRIVERS = lab.DRIVERS_ALL

R = "/cellgate:cellgate"
ETH1_V6 = "/restconf/data" + R + "/port=eth1/ipv6"
NEW, NEW_HOST, NEW_PLEN = "2001:db8:7::1", "2001:db8:7::2", 64


def addr_uri(ip):
    return ETH1_V6 + "/address=" + urllib.parse.quote(ip, safe="")


@pytest.fixture(scope="module")
def topo_options():
    return {"hosts": ("h1", "h2"), "ipv6": True}


@pytest.fixture(scope="module")
def router(request, topo, cellgated_bin):
    # As in test_ipv6: with AF_PACKET the kernel must not answer transit IPv6.
    topo.exec("r", ["ip", "-6", "route", "add", "blackhole", "default",
                    "metric", "4294967295"], check=True)
    # A host on the prefix added later (h2's kernel, same link).
    topo.exec("h2", ["ip", "-6", "addr", "add", NEW_HOST + "/64", "dev", "h2-r",
                     "nodad"], check=True)
    return start_router(request, topo, cellgated_bin, config=v6_config())


def kernel_addrs(topo, dev):
    p = topo.exec("r", ["ip", "-6", "-o", "addr", "show", "dev", dev], check=True)
    return set(re.findall(r"inet6 (\S+)", p.stdout))


def fib6(router):
    return router.stats()["fib6"]["by-source"]


def neighbour6(router, address):
    return [n for n in router.stats()["neighbors6"] if n["address"] == address]


class Background:
    """A ping over the unrelated prefix (h1 -> h2's own address), 20 a second."""

    def __init__(self, topo):
        self.p = topo.popen("h1", ["ping", "-6", "-n", "-i", "0.05", "-W", "1",
                                   lab.HOSTS6["h2"][0]],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        out, _ = self.p.communicate(timeout=10)
        m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
        assert m, out
        return int(m.group(1)), int(m.group(2)), out


def test_add_forward_remove(topo, router):
    pid = router.proc.pid
    # Warm: h2 resolved, so the background ping starts with nothing to wait for.
    assert ping6(topo, "h1", lab.HOSTS6["h2"][0], count=1).returncode == 0
    by0 = fib6(router)
    bg = Background(topo)
    try:
        r = rc.request(router, "POST", "/restconf/data" + R + "/port=eth1/ipv6",
                       {"cellgate:address": [{"ip": NEW, "prefix-length": NEW_PLEN}]})
        assert r.status == 201, r
        assert "%s/%d" % (NEW, NEW_PLEN) in kernel_addrs(topo, "r-h2")
        assert "IPv6 address %s/%d added" % (NEW, NEW_PLEN) in router.log()
        by = fib6(router)
        assert by["local"] == by0["local"] + 1, (by0, by)
        assert by["connected"] == by0["connected"] + 1, (by0, by)
        st = rc.port_state(router, "eth1")
        assert {"ip": NEW, "prefix-length": NEW_PLEN} in st["ipv6-address"], st

        # The new address answers (the kernel's), the new prefix is forwarded to.
        s0 = router.stats()
        p = ping6(topo, "h1", NEW)
        assert p.returncode == 0, p.stdout + p.stderr
        s1 = router.stats()
        assert delta(port(router, "eth0", s0), port(router, "eth0", s1),
                     "to-kernel") >= 3
        ping6(topo, "h1", NEW_HOST, count=1)  # may wait for neighbour discovery
        s0 = router.stats()
        p = ping6(topo, "h1", NEW_HOST, count=5)
        assert p.returncode == 0 and " 0% packet loss" in p.stdout, p.stdout + p.stderr
        s1 = router.stats()
        assert delta(port(router, "eth0", s0), port(router, "eth0", s1), "forwarded") >= 5
        assert delta(port(router, "eth1", s0), port(router, "eth1", s1), "forwarded") >= 5
        n = neighbour6(router, NEW_HOST)
        assert n and n[0]["port"] == "eth1" and n[0]["state"] == "reachable", n
        assert n[0]["mac"].lower() == topo.mac("h2", "h2-r").lower(), n

        # Deleted: off the NIC, out of the FIB, its neighbours forgotten.
        r = rc.request(router, "DELETE", addr_uri(NEW))
        assert r.status == 204, r
        assert "%s/%d" % (NEW, NEW_PLEN) not in kernel_addrs(topo, "r-h2")
        assert "IPv6 address %s/%d removed (1 neighbours" % (NEW, NEW_PLEN) in router.log()
        assert fib6(router)["local"] == by0["local"]
        assert fib6(router)["connected"] == by0["connected"]
        assert not neighbour6(router, NEW_HOST)
        s0 = router.stats()
        for dst in (NEW_HOST, NEW):
            p = ping6(topo, "h1", dst, count=2)
            assert p.returncode != 0, p.stdout
            assert "From %s" % lab.HOSTS6["h1"][1] in p.stdout, p.stdout
            assert "No route" in p.stdout, p.stdout
        s1 = router.stats()
        assert delta(port(router, "eth0", s0), port(router, "eth0", s1), "no-route") == 4
    finally:
        sent, got, out = bg.stop()
    # The unrelated ping went on through both changes: nothing lost.
    assert sent >= 20 and got == sent, out[-800:]
    assert router.alive() and router.proc.pid == pid  # no restart


def test_reload_adds_and_removes(topo, router):
    """SIGHUP applies the same change from the startup file."""
    cfg = v6_config()
    eth1 = [p for p in cfg["cellgate:cellgate"]["port"] if p["name"] == "eth1"][0]
    eth1["ipv6"]["address"].append({"ip": NEW, "prefix-length": NEW_PLEN})
    reload(router, cfg)
    assert "%s/%d" % (NEW, NEW_PLEN) in kernel_addrs(topo, "r-h2")
    ping6(topo, "h1", NEW_HOST, count=1)  # may wait for neighbour discovery
    p = ping6(topo, "h1", NEW_HOST)
    assert p.returncode == 0, p.stdout + p.stderr
    reload(router, v6_config())
    assert "%s/%d" % (NEW, NEW_PLEN) not in kernel_addrs(topo, "r-h2")
    p = ping6(topo, "h1", NEW_HOST, count=1)
    assert p.returncode != 0 and "No route" in p.stdout, p.stdout


def test_reload_address_with_a_route_through_it(topo, router):
    """One change adds an address and a static route whose gateway is on its
    prefix: the connected prefix goes in first, so the route resolves. The
    same with a second route no prefix reaches is refused whole: the new
    address leaves the netdev again and neither route stays."""
    cfg = v6_config()
    top = cfg["cellgate:cellgate"]
    eth1 = [p for p in top["port"] if p["name"] == "eth1"][0]
    eth1["ipv6"]["address"].append({"ip": NEW, "prefix-length": NEW_PLEN})
    via_new = {"prefix": "2001:db8:77::/48", "nexthop": [{"address": NEW_HOST}]}
    top["routing"]["static-route6"].append(via_new)
    try:
        reload(router, cfg)
        assert "2001:db8:77::/48" in route6_prefixes(router)
        reload(router, v6_config())
        assert "2001:db8:77::/48" not in route6_prefixes(router)
        top["routing"]["static-route6"].append(
            {"prefix": "2001:db8:78::/48", "nexthop": [{"address": "2001:db8:99::1"}]})
        reload_refused(router, cfg, "2001:db8:78::/48")
        have = route6_prefixes(router)
        assert "2001:db8:77::/48" not in have and "2001:db8:78::/48" not in have, have
        assert "%s/%d" % (NEW, NEW_PLEN) not in kernel_addrs(topo, "r-h2")
        assert router.alive()
    finally:
        reload(router, v6_config())


def cellgatectl(router, *args):
    binary = os.environ.get("CELLGATECTL") or os.path.join(
        os.path.dirname(os.path.dirname(lab.cellgated_path())), "mgmt", "cli", "cellgatectl")
    return subprocess.run([binary, "-s", rc.sock(router)] + list(args),
                          capture_output=True, text=True, timeout=30)


def test_cellgatectl_address(topo, router):
    """cellgatectl address add/del: the same RESTCONF change; IPv4 refused."""
    p = cellgatectl(router, "address", "add", "eth1", "%s/%d" % (NEW, NEW_PLEN))
    assert p.returncode == 0, p.stderr
    assert "%s/%d" % (NEW, NEW_PLEN) in kernel_addrs(topo, "r-h2")
    ping6(topo, "h1", NEW_HOST, count=1)  # may wait for neighbour discovery
    assert ping6(topo, "h1", NEW_HOST).returncode == 0
    p = cellgatectl(router, "address", "del", "eth1", NEW)
    assert p.returncode == 0, p.stderr
    assert "%s/%d" % (NEW, NEW_PLEN) not in kernel_addrs(topo, "r-h2")
    p = cellgatectl(router, "address", "add", "eth1", "10.9.9.1/24")
    assert p.returncode == 1 and "restart" in p.stderr, p.stderr


def test_first_address_at_runtime(topo, router):
    """The first address deleted while another remains: the other is the
    ICMPv6 and NS source; put back, the prefix was forwarded throughout."""
    first = lab.HOSTS6["h2"][1]
    other = "2001:db8:2::100"
    r = rc.request(router, "POST", ETH1_V6,
                   {"cellgate:address": [{"ip": other, "prefix-length": 64}]})
    assert r.status == 201, r
    r = rc.request(router, "DELETE", addr_uri(first))
    assert r.status == 204, r
    assert first + "/64" not in kernel_addrs(topo, "r-h2")
    assert "port eth1: ICMPv6 errors and neighbour solicitations now from %s" % other \
        in router.log()
    assert ping6(topo, "h1", lab.HOSTS6["h2"][0]).returncode == 0
    r = rc.request(router, "POST", ETH1_V6,
                   {"cellgate:address": [{"ip": first, "prefix-length": 64}]})
    assert r.status == 201, r
    r = rc.request(router, "DELETE", addr_uri(other))
    assert r.status == 204, r
    assert "now from %s" % first in router.log()
    assert first + "/64" in kernel_addrs(topo, "r-h2")
    assert ping6(topo, "h1", lab.HOSTS6["h2"][0]).returncode == 0


def test_accounting(topo, router):
    assert ping6(topo, "h2", lab.HOSTS6["h1"][0], count=3).returncode == 0
    assert lab.wait_for(lambda: not lab.accounting_errors(router.stats()),
                        timeout=6, interval=0.25), \
        lab.accounting_errors(router.stats())
