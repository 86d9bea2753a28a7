# SPDX-License-Identifier: BSD-2-Clause
"""IPv6 across the ATM segment (issue 16 item 6), atmlab.py's topology:

    h1 --eth0-- [ r ] ==cellpw on r-a1== [ a1 ] --eth0-- h4

Three point-to-point subinterfaces on each side, one PVC each:
    atm0.100  VC 0/100  LLC/SNAP (RFC 2684 5.1, PID 0x86DD)  2001:db8:100::/64
    atm0.106  VC 0/106  VC-mux IPv6 (RFC 2684 6.1)           2001:db8:106::/64
    atm0.107  VC 0/107  LLC bridged Ethernet (RFC 2684 5.2)  2001:db8:107::/64

And one multipoint subinterface on each side, IPv6 next hops mapped to
its VCs by pvc/ipv6-peer-address (RFC 2492 section 3, configured mapping):
    atm0.200  VC 0/201  LLC/SNAP     r 2001:db8:200::1  <->  a1 2001:db8:200::2
              VC 0/202  VC-mux IPv6  r 2001:db8:200::11 <->  a1 2001:db8:200::3
h1's 2001:db8:1::61 reaches h4's 2001:db8:61::1 over 0/201 and
2001:db8:1::62 h4's 2001:db8:62::1 over 0/202; r's route to 2001:db8:63::/64
has the gateway 2001:db8:200::9, on the prefix but mapped by no PVC: dropped
as nd-failed with ICMPv6 address unreachable, nothing sent on any VC.

h1 2001:db8:1::2 reaches h4 2001:db8:4::2 over the LLC VC both ways,
h1's second address 2001:db8:1::16 reaches h4's loopback 2001:db8:44::1
over the VC-mux VC both ways, and its third, 2001:db8:1::17, h4's
2001:db8:47::1 over the bridged VC. What a reader learns: the next hop on a PVC
is the VC (no neighbour discovery on it, RFC 2492 section 3), both
cellgated forward the IPv6 (kernel forwarding stays off), per-VC counters
count the IPv6 PDUs to the octet, the hop limit expires on the far router
with an ICMPv6 error from its subinterface address back over the VC,
IPv6 for a router's own subinterface address goes to the kernel through the
TUN, tshark decodes a captured LLC/SNAP SDU down to IPv6, and the
accounting rule holds on both routers.
"""

import os
import re
import subprocess
import time

import pytest

import atmlab
import lab
import restconf as rc
from conftest import start_router

H1, H1_MUX = "2001:db8:1::2", "2001:db8:1::16"
H1_BR, H4_BR = "2001:db8:1::17", "2001:db8:47::1"
H4, H4_LO = "2001:db8:4::2", "2001:db8:44::1"
# The multipoint subinterface: h1 source -> h4 destination, per VC.
H1_MP = {201: "2001:db8:1::61", 202: "2001:db8:1::62"}
H4_MP = {201: "2001:db8:61::1", 202: "2001:db8:62::1"}
H4_NOMAP = "2001:db8:63::1"
H4_FPM = "2001:db8:64::1"  # r's route to it comes from "zebra" over FPM
CAPTURE = "vc100-v6.pcap"


@pytest.fixture(scope="module")
def topo_options():
    """Extra AtmTopology options; test_atm_ipv6_offload.py turns host offloads on."""
    return {}


@pytest.fixture(scope="module")
def topo(request, topo_options):
    if os.geteuid() != 0:
        pytest.fail("the lab needs root", pytrace=False)
    t = atmlab.AtmTopology(hosts=("h1",), ipv6=True, **topo_options)
    request.addfinalizer(t.destroy)
    t.create()
    for a in (H1_MUX, H1_BR) + tuple(H1_MP.values()):
        t.exec("h1", ["ip", "-6", "addr", "add", a + "/64", "dev", "h1-r", "nodad"],
               check=True)
    t.exec("h4", ["ip", "-6", "addr", "add", H4 + "/64", "dev", "h4-a1", "nodad"],
           check=True)
    for a in (H4_LO, H4_BR, H4_NOMAP, H4_FPM) + tuple(H4_MP.values()):
        t.exec("h4", ["ip", "-6", "addr", "add", a + "/128", "dev", "lo"], check=True)
    t.exec("h4", ["ip", "-6", "route", "add", "default", "via", "2001:db8:4::1"],
           check=True)
    # With AF_PACKET the routers' kernels see transit frames too; a default
    # of last resort keeps them from answering with their own ICMPv6 no-route
    # (README, "IPv6"), as in test_ipv6.py.
    for ns in ("r", "a1"):
        t.exec(ns, ["ip", "-6", "route", "add", "blackhole", "default", "metric",
                    "4294967295"], check=True)
    return t


def _subif(name, side, vci, encap, v4=None, capture=None):
    """Subinterface atm0.VCI, prefix 2001:db8:VCI::/64 (VCI in decimal digits)."""
    pvc = {"vpi": 0, "vci": vci, "encapsulation": encap}
    if capture:
        pvc["capture-file"] = capture
    s = {"name": name, "type": "point-to-point",
         "ipv6": {"address": [{"ip": "2001:db8:%d::%d" % (vci, side),
                               "prefix-length": 64}]},
         "pvc": [pvc]}
    if v4:
        s["ipv4"] = {"address": [{"ip": v4, "prefix-length": 30}]}
    return s


def _multipoint(side):
    """atm0.200: r holds ::1 and ::11, a1 ::2 and ::3; each side maps the
    other's address of a VC to it. InATMARP off, so that the VCs carry
    nothing but the test's IPv6 (the per-VC counts are exact)."""
    mine, theirs = ((("::1", "::11"), ("::2", "::3")) if side == 1
                    else (("::2", "::3"), ("::1", "::11")))
    pre = "2001:db8:200"
    return {"name": "atm0.200", "type": "multipoint",
            "ipv6": {"address": [{"ip": pre + a, "prefix-length": 64} for a in mine]},
            "pvc": [{"vpi": 0, "vci": 201, "inatmarp": {"enabled": False},
                     "ipv6-peer-address": [pre + theirs[0]]},
                    {"vpi": 0, "vci": 202, "encapsulation": "vc-mux-ipv6",
                     "ipv6-peer-address": [pre + theirs[1]]}]}


def _atm(carrier, peer_mac, side, capture=None):
    return {"name": "atm0", "driver": "cellpw", "netdev": carrier,
            "cellpw": {"peer-mac": peer_mac, "pw-label": atmlab.PW_LABEL},
            "subinterface": [
                _subif("atm0.100", side, 100, "llc-snap", "10.1.0.%d" % side, capture),
                _subif("atm0.106", side, 106, "vc-mux-ipv6"),
                _subif("atm0.107", side, 107, "llc-bridged"),
                _multipoint(side),
            ]}


def _eth(name, netdev, v4, v6):
    return {"name": name, "driver": "afpacket", "netdev": netdev,
            "ipv4": {"address": [{"ip": v4, "prefix-length": 24}]},
            "ipv6": {"address": [{"ip": v6, "prefix-length": 64}]}}


def r_config(topo):
    return {"cellgate:cellgate": {
        "system": {"workers": 1},
        "port": [_eth("eth0", "r-h1", "10.0.1.1", "2001:db8:1::1"),
                 _atm("r-a1", topo.mac("a1", "a1-r"), 1, capture=CAPTURE)],
        "routing": {"static-route6": [
            # A gateway on the subinterface's prefix: resolved to the VC.
            {"prefix": "2001:db8:4::/64", "nexthop": [{"address": "2001:db8:100::2"}]},
            # On-link out of a subinterface: the far end of its PVC.
            {"prefix": "2001:db8:44::/64", "interface": "atm0.106"},
            {"prefix": "2001:db8:47::/64", "nexthop": [{"address": "2001:db8:107::2"}]},
            # Multipoint: each gateway's VC from the map; ::9 is mapped by no PVC.
            {"prefix": "2001:db8:61::/64", "nexthop": [{"address": "2001:db8:200::2"}]},
            {"prefix": "2001:db8:62::/64", "nexthop": [{"address": "2001:db8:200::3"}]},
            {"prefix": "2001:db8:63::/64", "nexthop": [{"address": "2001:db8:200::9"}]},
        ]}}}


def a1_config(topo):
    return {"cellgate:cellgate": {
        "system": {"workers": 1},
        "port": [_eth("eth0", "a1-h4", "10.0.4.1", "2001:db8:4::1"),
                 _atm("a1-r", topo.mac("r", "r-a1"), 2)],
        "routing": {"static-route6": [
            {"prefix": H1_MUX + "/128", "nexthop": [{"address": "2001:db8:106::1",
                                                     "interface": "atm0.106"}]},
            {"prefix": "2001:db8:1::/64", "nexthop": [{"address": "2001:db8:100::1"}]},
            {"prefix": H1_BR + "/128", "nexthop": [{"address": "2001:db8:107::1"}]},
            {"prefix": "2001:db8:44::/64", "nexthop": [{"address": H4}]},
            {"prefix": "2001:db8:47::/64", "nexthop": [{"address": H4}]},
            {"prefix": H1_MP[201] + "/128", "nexthop": [{"address": "2001:db8:200::1"}]},
            {"prefix": H1_MP[202] + "/128", "nexthop": [{"address": "2001:db8:200::11"}]},
            {"prefix": "2001:db8:61::/64", "nexthop": [{"address": H4}]},
            {"prefix": "2001:db8:62::/64", "nexthop": [{"address": H4}]},
            {"prefix": "2001:db8:63::/64", "nexthop": [{"address": H4}]},
            {"prefix": "2001:db8:64::/64", "nexthop": [{"address": H4}]},
        ]}}}


@pytest.fixture(scope="module")
def routers(request, topo, cellgated_bin):
    a1 = start_router(request, topo, cellgated_bin, config=a1_config(topo), ns="a1")
    r = start_router(request, topo, cellgated_bin, config=r_config(topo))
    return r, a1


def ping6(topo, src_host, dst, count=3, src=None, size=56, hlim=None):
    """From h1's first address unless src says (its two /64 addresses tie in
    source address selection, RFC 6724, and the replies' path depends on it)."""
    cmd = ["ping", "-6", "-n", "-c", str(count), "-i", "0.2", "-W", "2",
           "-s", str(size), "-I", src or H1]
    if hlim:
        cmd += ["-t", str(hlim)]
    p = topo.exec(src_host, cmd + [dst], timeout=count + 20)
    m = re.search(r"(\d+) received", p.stdout)
    return (int(m.group(1)) if m else 0), p


def wait_ping6(topo, dst, src=None, timeout=15):
    """Until dst answers (the Ethernet neighbours resolve on both sides first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ping6(topo, "h1", dst, count=1, src=src)[0] == 1:
            return True
    return False


def test_kernel_ipv6_forwarding_off(topo, routers):
    for ns in ("r", "a1"):
        p = topo.exec(ns, ["sysctl", "-n", "net.ipv6.conf.all.forwarding"], check=True)
        assert p.stdout.strip() == "0", ns


def test_subinterface_tun_has_its_ipv6_address(topo, routers):
    p = topo.exec("r", ["ip", "-6", "-o", "addr", "show", "dev", "atm0.106"], check=True)
    assert "2001:db8:106::1/64" in p.stdout, p.stdout


@pytest.mark.parametrize("encap,vci,dst,src,sdu", [
    # 56 data + 8 ICMPv6 + 40 IPv6 = 104 octets; LLC/SNAP adds 8. Either way
    # one PDU of 3 cells with the 8-octet AAL5 trailer and its pad.
    ("llc-snap", 100, H4, None, 112),
    ("vc-mux-ipv6", 106, H4_LO, H1_MUX, 104),
    # Bridged: the 10-octet LLC/OUI/PID/pad header and the Ethernet header.
    ("llc-bridged", 107, H4_BR, H1_BR, 128),
])
def test_ping6_across_vc(topo, routers, encap, vci, dst, src, sdu):
    r, a1 = routers
    assert wait_ping6(topo, dst, src=src), "%s never answered over %s" % (dst, encap)
    rb, ab = (atmlab.vc_of(d.stats(), "atm0", 0, vci) for d in (r, a1))
    got, p = ping6(topo, "h1", dst, count=10, src=src)
    assert got == 10, p.stdout + p.stderr
    ra, aa = (atmlab.vc_of(d.stats(), "atm0", 0, vci) for d in (r, a1))

    def d(after, before, k):
        return after[k] - before[k]

    # Requests out of r into a1, replies out of a1 into r: all on this VC.
    for after, before in ((ra, rb), (aa, ab)):
        n = d(after, before, "pdus-out")
        assert n >= 10 and d(after, before, "pdus-in") >= 10, (after, before)
        assert d(after, before, "octets-out") == sdu * n, (after, before)
        assert d(after, before, "cells-out") == 3 * n, (after, before)
        assert d(after, before, "octets-in") == sdu * d(after, before, "pdus-in")
        assert not after.get("discards-total", 0) - before.get("discards-total", 0)


def test_vc_counters_match_across_the_pseudowire(topo, routers):
    """What one side sent on a VC is what the other received, PDU for PDU."""
    r, a1 = routers
    assert wait_ping6(topo, H4)
    time.sleep(0.3)
    rs, as_ = r.stats(), a1.stats()
    for vci in (100, 106, 107):
        rv, av = atmlab.vc_of(rs, "atm0", 0, vci), atmlab.vc_of(as_, "atm0", 0, vci)
        assert rv["pdus-out"] == av["pdus-in"] and av["pdus-out"] == rv["pdus-in"], (rv, av)
        assert rv["octets-out"] == av["octets-in"] and av["octets-out"] == rv["octets-in"]


def test_hop_limit_expires_on_far_router(topo, routers):
    """Hop limit 2: r forwards (2 -> 1), a1 may not: ICMPv6 time exceeded from
    a1's subinterface address, back over the VC."""
    r, a1 = routers
    assert wait_ping6(topo, H4)
    got, p = ping6(topo, "h1", H4, count=1, hlim=2)
    assert "From 2001:db8:100::2" in p.stdout and "Time exceeded" in p.stdout, p.stdout


def test_ping6_far_router_subinterface_address(topo, routers):
    """a1's own address on atm0.100: punted to its TUN, the kernel answers,
    the reply goes back down the VC from the TUN."""
    r, a1 = routers
    # The kernel's own traffic follows the kernel's table (FRR fills it in a
    # real deployment): the route back to h1 over the subinterface's TUN.
    topo.exec("a1", ["ip", "-6", "route", "replace", "2001:db8:1::/64", "dev", "atm0.100"],
              check=True)
    before = atmlab.atm_port_of(a1.stats(), "atm0")
    got, p = ping6(topo, "h1", "2001:db8:100::2", count=5)
    assert got == 5, p.stdout + p.stderr
    after = atmlab.atm_port_of(a1.stats(), "atm0")
    assert after["punted"] - before["punted"] >= 5
    assert after["host-tx"] - before["host-tx"] >= 5


def test_capture_decodes_ipv6(topo, routers):
    """r captures VC 0/100's SDUs (LINKTYPE_SUNATM): tshark decodes the
    LLC/SNAP header with PID 0x86DD down to the ICMPv6 echo requests."""
    r, _ = routers
    assert wait_ping6(topo, H4)
    got, p = ping6(topo, "h1", H4, count=3)
    assert got == 3, p.stdout
    time.sleep(0.5)  # the worker flushes its capture buffer every 100 ms
    path = os.path.join(r.rundir, "capture", CAPTURE)
    p = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "atm.vci",
                        "-e", "llc.type", "-e", "ipv6.src", "-e", "ipv6.dst",
                        "-e", "icmpv6.type"],
                       capture_output=True, text=True, timeout=60)
    lines = [ln.split("\t") for ln in p.stdout.splitlines()]
    reqs = [ln for ln in lines if ln[0] == "100" and ln[2:] == [H1, H4, "128"]]
    assert len(reqs) >= 3, p.stdout[-2000:] + p.stderr
    assert all(ln[1] == "0x86dd" for ln in reqs), reqs[:3]


MP_SDU = {201: 112, 202: 104}  # 56 + 8 + 40 octets, LLC/SNAP adds 8; 3 cells


@pytest.mark.parametrize("vci", [201, 202])
def test_ping6_multipoint_each_vc(topo, routers, vci):
    """Each gateway on the multipoint subinterface goes out its mapped VC,
    and only that VC, on both routers: exact per-VC PDU, octet and cell
    counts, nothing on the other VC, no discards."""
    r, a1 = routers
    other = 403 - vci
    assert wait_ping6(topo, H4_MP[vci], src=H1_MP[vci]), "no answer over 0/%d" % vci

    def vcs(d):
        s = d.stats()
        return (atmlab.vc_of(s, "atm0", 0, vci), atmlab.vc_of(s, "atm0", 0, other))

    (rb, rob), (ab, aob) = vcs(r), vcs(a1)
    got, p = ping6(topo, "h1", H4_MP[vci], count=10, src=H1_MP[vci])
    assert got == 10, p.stdout + p.stderr
    time.sleep(0.3)
    (ra, roa), (aa, aoa) = vcs(r), vcs(a1)
    for after, before in ((ra, rb), (aa, ab)):
        for k in ("pdus-out", "pdus-in"):
            assert after[k] - before[k] == 10, (k, after, before)
        for k in ("octets-out", "octets-in"):
            assert after[k] - before[k] == 10 * MP_SDU[vci], (k, after, before)
        assert after["cells-out"] - before["cells-out"] == 30
        assert after["discards-total"] == before["discards-total"]
    for after, before in ((roa, rob), (aoa, aob)):
        assert after["pdus-out"] == before["pdus-out"], (after, before)
        assert after["pdus-in"] == before["pdus-in"], (after, before)


def test_multipoint_unmapped_next_hop_dropped(topo, routers):
    """A gateway on atm0.200's prefix that no PVC maps: r drops each packet
    as nd-failed on its ingress port (counted exactly), answers ICMPv6
    destination unreachable code 3 (address unreachable) from eth0's
    address, and sends nothing on the multipoint VCs; r stays up."""
    r, _ = routers
    s = r.stats()
    e0 = r.port(s, "eth0")
    vb = [atmlab.vc_of(s, "atm0", 0, v) for v in (201, 202)]
    got, p = ping6(topo, "h1", H4_NOMAP, count=4)
    assert got == 0
    assert "Address unreachable" in p.stdout, p.stdout
    assert "From 2001:db8:1::1" in p.stdout, p.stdout
    s = r.stats()
    assert lab.counter_delta(e0, r.port(s, "eth0"), "nd-failed") == 4, r.port(s, "eth0")
    for before, v in zip(vb, (201, 202)):
        assert atmlab.vc_of(s, "atm0", 0, v)["pdus-out"] == before["pdus-out"]
    nb = [n for n in s.get("neighbors6", []) if n["address"] == "2001:db8:200::9"]
    assert nb and nb[0]["state"] == "failed", s.get("neighbors6")
    assert r.alive()


def test_multipoint_map_in_restconf_state(topo, routers):
    """The map per VC in RESTCONF state, beside its oper status; the mapped
    neighbours in state/neighbor6 with their VC's synthetic MAC."""
    r, a1 = routers
    assert wait_ping6(topo, H4_MP[201], src=H1_MP[201])
    for vci, peer in ((201, "2001:db8:200::2"), (202, "2001:db8:200::3")):
        resp = rc.get(r, "/cellgate:cellgate/state/vc=atm0,0,%d" % vci)
        assert resp.status == 200, resp
        v = resp.json()["cellgate:vc"][0]
        assert v["interface"] == "atm0.200" and v["oper-status"] == "up", v
        assert v["ipv6-peer-address"] == [peer], v
    resp = rc.get(r, "/cellgate:cellgate/state/neighbor6")
    assert resp.status == 200, resp
    nb = {n["address"]: n for n in resp.json()["cellgate:neighbor6"]}
    n = nb["2001:db8:200::2"]
    assert n["interface"] == "atm0.200" and n["state"] == "reachable", n
    assert n["mac"].startswith("02:41:54:4d:"), n  # the VC's synthetic address (vc.h)


def test_cellgatectl_show_vc_lists_the_map(routers):
    from test_cellgatectl import run
    r, _ = routers
    code, out, err = run(rc.sock(r), "show", "vc", "atm0", "0/202")
    assert code == 0, err
    assert "IPv6 peers (static map) 2001:db8:200::3" in out, out


# zebra's part (dplane_fpm_nl), played by fpmfeed.py's encoder inside r's
# namespace: one IPv6 route with a gateway, the session held open.
FPM_ROUTE6 = """
import socket, sys
sys.path.insert(0, %r)
import fpmfeed
s = socket.create_connection(("127.0.0.1", 2620), timeout=5)
gw = socket.inet_pton(socket.AF_INET6, "2001:db8:200::3")
dst = socket.inet_pton(socket.AF_INET6, "2001:db8:64::")
s.sendall(fpmfeed.frame([fpmfeed.route(fpmfeed.AF_INET6, dst, 64, gw)]))
print("sent", flush=True)
sys.stdin.read()
""" % os.path.dirname(os.path.abspath(__file__))


def test_fpm_route6_via_mapped_gateway(topo, routers):
    """An FRR route (over FPM) whose gateway is in the map goes out that
    VC, as a static one does: exact per-VC counts over 0/202 both ways."""
    r, a1 = routers
    feed = topo.popen("r", [lab.PYTHON, "-c", FPM_ROUTE6], stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, text=True)
    try:
        assert feed.stdout.readline().strip() == "sent"
        assert lab.wait_for(lambda: int(rc.state(r)["fpm"]["routes-ipv6"]) >= 1, 10)
        assert wait_ping6(topo, H4_FPM, src=H1_MP[202]), "no answer via the FPM route"
        rb, ab = (atmlab.vc_of(d.stats(), "atm0", 0, 202) for d in (r, a1))
        got, p = ping6(topo, "h1", H4_FPM, count=10, src=H1_MP[202])
        assert got == 10, p.stdout + p.stderr
        time.sleep(0.3)
        ra, aa = (atmlab.vc_of(d.stats(), "atm0", 0, 202) for d in (r, a1))
        for after, before in ((ra, rb), (aa, ab)):
            for k in ("pdus-out", "pdus-in"):
                assert after[k] - before[k] == 10, (k, after, before)
            assert after["octets-out"] - before["octets-out"] == 10 * MP_SDU[202]
    finally:
        feed.stdin.close()
        feed.wait(timeout=10)


MP_PVC201 = "/restconf/data/cellgate:cellgate/port=atm0/subinterface=atm0.200/pvc=0,201"
MP_PVC202 = "/restconf/data/cellgate:cellgate/port=atm0/subinterface=atm0.200/pvc=0,202"


def _pvc201(peers):
    return {"cellgate:pvc": [{"vpi": 0, "vci": 201, "inatmarp": {"enabled": False},
                              "ipv6-peer-address": peers}]}


def test_multipoint_map_changed_at_runtime(topo, routers):
    """RESTCONF replaces r's PVC 0/201 with a map that also names ::9 (a
    runtime PVC change: a new VC id, counters from zero): the next hop that
    was failed now goes out 0/201 (a1 routes 2001:db8:63::/64 to h4); the
    old map back, it fails again. A duplicate across the subinterface's PVCs
    is refused with the reason, and nothing changes."""
    r, _ = routers
    ping6(topo, "h1", H4_NOMAP, count=1)  # the failed entry, if it had aged out
    res = rc.request(r, "PUT", MP_PVC201, _pvc201(["2001:db8:200::2", "2001:db8:200::9"]))
    assert res.status in (201, 204), res
    try:
        assert wait_ping6(topo, H4_NOMAP, timeout=10), "::9 never mapped"
        got, p = ping6(topo, "h1", H4_NOMAP, count=5)
        assert got == 5, p.stdout + p.stderr
        # The new VC's counters start at zero; the replies come back over
        # 0/100 (a1's route to h1's 2001:db8:1::2).
        v = atmlab.vc_of(r.stats(), "atm0", 0, 201)
        assert v["pdus-out"] >= 6 and v["octets-out"] == 112 * v["pdus-out"], v
        resp = rc.get(r, "/cellgate:cellgate/state/vc=atm0,0,201")
        assert resp.json()["cellgate:vc"][0]["ipv6-peer-address"] == [
            "2001:db8:200::2", "2001:db8:200::9"]
        dup = rc.request(r, "PUT", MP_PVC202,
                         {"cellgate:pvc": [{"vpi": 0, "vci": 202,
                                            "encapsulation": "vc-mux-ipv6",
                                            "ipv6-peer-address": ["2001:db8:200::9"]}]})
        assert dup.status == 400, dup
        assert "is already mapped to PVC 0/201 of subinterface atm0.200" in dup.body, dup.body
        assert wait_ping6(topo, H4_MP[202], src=H1_MP[202], timeout=5)
    finally:
        res = rc.request(r, "PUT", MP_PVC201, _pvc201(["2001:db8:200::2"]))
        assert res.status in (201, 204), res
    got, p = ping6(topo, "h1", H4_NOMAP, count=2)
    assert got == 0 and "Address unreachable" in p.stdout, p.stdout
    assert wait_ping6(topo, H4_MP[201], src=H1_MP[201], timeout=10)


def test_cellgatectl_vc_add_with_ipv6_peer(topo, routers):
    """cellgatectl vc add ... ipv6-peer ADDR (issue 16 item 7): a new PVC
    0/203 on r's multipoint atm0.200 mapping ::9, which no PVC mapped; the
    route via ::9 now goes out 0/203 (a1 has no such VC, so nothing comes
    back: r's count of PDUs sent on it is what shows it). A duplicate entry
    is refused with the reason; deleted, ::9 fails again."""
    from test_cellgatectl import run
    r, _ = routers
    code, out, err = run(rc.sock(r), "vc", "add", "atm0", "atm0.200", "0/203", "vc-mux-ipv6",
                         "ipv6-peer", "2001:db8:200::9")
    assert code == 0, err
    try:
        resp = rc.get(r, "/cellgate:cellgate/state/vc=atm0,0,203")
        assert resp.status == 200, resp
        assert resp.json()["cellgate:vc"][0]["ipv6-peer-address"] == ["2001:db8:200::9"]

        def sent():
            ping6(topo, "h1", H4_NOMAP, count=1)
            return atmlab.vc_of(r.stats(), "atm0", 0, 203)["pdus-out"] >= 1
        assert lab.wait_for(sent, 10), atmlab.vc_of(r.stats(), "atm0", 0, 203)
        code, out, err = run(rc.sock(r), "vc", "add", "atm0", "atm0.200", "0/204",
                             "vc-mux-ipv6", "ipv6-peer", "2001:db8:200::2")
        assert code == 1 and "is already mapped to PVC 0/201 of subinterface atm0.200" in err, \
            (code, out, err)
    finally:
        code, out, err = run(rc.sock(r), "vc", "del", "atm0", "atm0.200", "0/203")
        assert code == 0, err
    got, p = ping6(topo, "h1", H4_NOMAP, count=2)
    assert got == 0 and "Address unreachable" in p.stdout, p.stdout


def test_accounting_holds(routers):
    for d in routers:
        ok = lab.wait_for(lambda: not lab.accounting_errors(d.stats()), timeout=6,
                          interval=0.25)
        assert ok, lab.accounting_errors(d.stats())
