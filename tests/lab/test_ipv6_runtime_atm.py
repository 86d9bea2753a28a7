# SPDX-License-Identifier: BSD-2-Clause
"""An IPv6 address of a point-to-point ATM subinterface changed at runtime,
on test_atm_ipv6.py's two routers (r and a1 over a cell pseudowire).

What a reader learns here: a second address added to r's atm0.100 over
RESTCONF is on its TUN at once, and a ping to it from a1's side of the VC
is handed by r's worker to r's kernel through that TUN (the local /128);
deleted, it is gone from the TUN and the FIB6, and the ping fails. The VC's
other traffic (h1 to h4 over the same VC) goes on meanwhile. The first
address may go too: r's ICMPv6 errors about what it receives on the VC
(h4's hop limit expiring at r) then come from the next one.
"""

import re
import urllib.parse

import atmlab
import lab
import restconf as rc
from test_atm_ipv6 import H1, H4, ping6, routers, topo, wait_ping6  # noqa: F401 (fixtures)

SUBIF = "/restconf/data/cellgate:cellgate/port=atm0/subinterface=atm0.100/ipv6"
NEW = "2001:db8:100::11"


def tun_addrs(topo):
    p = topo.exec("r", ["ip", "-6", "-o", "addr", "show", "dev", "atm0.100"], check=True)
    return p.stdout


def ping_from_a1(topo, dst, count=3):
    return topo.exec("a1", ["ping", "-6", "-n", "-c", str(count), "-i", "0.2", "-W", "1",
                            "-I", "2001:db8:100::2", dst], timeout=count + 15)


def test_subinterface_address_add_remove(topo, routers):
    r, _ = routers
    assert wait_ping6(topo, H4)
    local0 = r.stats()["fib6"]["by-source"]["local"]
    r_ = rc.request(r, "POST", SUBIF,
                    {"cellgate:address": [{"ip": NEW, "prefix-length": 64}]})
    assert r_.status == 201, r_
    assert NEW + "/64" in tun_addrs(topo)
    assert r.stats()["fib6"]["by-source"]["local"] == local0 + 1
    assert "port atm0.100: IPv6 address %s/64 added" % NEW in r.log()
    v0 = atmlab.vc_of(r.stats(), "atm0", 0, 100)
    p = ping_from_a1(topo, NEW)
    assert p.returncode == 0, p.stdout + p.stderr
    v1 = atmlab.vc_of(r.stats(), "atm0", 0, 100)
    assert v1["pdus-in"] - v0["pdus-in"] >= 3 and v1["pdus-out"] - v0["pdus-out"] >= 3
    # Other traffic over the same VC is not disturbed.
    got, p = ping6(topo, "h1", H4, count=5)
    assert got == 5, p.stdout

    r_ = rc.request(r, "DELETE", SUBIF + "/address=" + urllib.parse.quote(NEW, safe=""))
    assert r_.status == 204, r_
    assert NEW not in tun_addrs(topo)
    assert r.stats()["fib6"]["by-source"]["local"] == local0
    p = ping_from_a1(topo, NEW, count=2)
    assert p.returncode != 0, p.stdout
    got, p = ping6(topo, "h1", H4, count=5)
    assert got == 5, p.stdout
    assert lab.wait_for(lambda: not lab.accounting_errors(r.stats()), timeout=6,
                        interval=0.25), lab.accounting_errors(r.stats())


FIRST = "2001:db8:100::1"


def expiry_source(topo):
    """Who answers h4's ping to h1 with hop limit 2 (a1 forwards, r may not)."""
    _, p = ping6(topo, "h4", H1, count=1, src=H4, hlim=2)
    m = re.search(r"From (\S+) icmp_seq=\d+ Time exceeded", p.stdout)
    return m.group(1) if m else None


def address(r, method, ip):
    if method == "POST":
        return rc.request(r, "POST", SUBIF,
                          {"cellgate:address": [{"ip": ip, "prefix-length": 64}]})
    return rc.request(r, "DELETE", SUBIF + "/address=" + urllib.parse.quote(ip, safe=""))


def test_subinterface_first_address(topo, routers):
    r, _ = routers
    assert wait_ping6(topo, H4)
    assert expiry_source(topo) == FIRST
    assert address(r, "POST", NEW).status == 201
    assert address(r, "DELETE", FIRST).status == 204
    try:
        assert FIRST + "/64" not in tun_addrs(topo)
        assert "port atm0.100: ICMPv6 errors and neighbour solicitations now from %s" % NEW \
            in r.log()
        assert expiry_source(topo) == NEW
        got, p = ping6(topo, "h1", H4, count=5)  # the VC's traffic goes on
        assert got == 5, p.stdout
    finally:
        assert address(r, "POST", FIRST).status == 201
        assert address(r, "DELETE", NEW).status == 204
    assert expiry_source(topo) == FIRST
