# SPDX-License-Identifier: BSD-2-Clause
"""SNMP for IPv6 (issue 16, item 7): CELLGATE-MIB's cgVcIpv6PeerTable (the
IPv6 next hops mapped to each VC of a multipoint subinterface) and
cgPortIpv6Table (each port's IPv6 counters), read through a real snmpd from
cellgated's AgentX subagent, on test_atm_ipv6.py's topology (IPv6 on, r and
a1 joined by a cell pseudowire):

    h1 -- r (eth0, atm0.100 / .106 / .107 / .200) ==PW== a1 -- h4

The map rows follow the configuration, also when a PVC changes at runtime;
the IPv6 counters move exactly by the pings sent, and SNMP and stats.json
agree. test_snmp.py covers the rest of the MIB on an IPv4-only lab, whose
counters stay exact because its namespaces run without IPv6.
"""

import socket

import pytest

import lab
import restconf as rc
from conftest import start_router
from test_atm_ipv6 import (H4, MP_PVC202, a1_config, ping6, r_config,  # noqa: F401
                           topo, topo_options, wait_ping6)
from test_snmp import (COMMUNITY, PING_INTERVAL, SNMPD_PORT, snmp,  # noqa: F401 (fixture)
                       snmp_session)

CG_PORT_IPV6 = ".1.3.6.1.4.1.32473.1.9.1"      # cgPortIpv6Entry
CG_VC_IPV6_PEER = ".1.3.6.1.4.1.32473.1.10.1"  # cgVcIpv6PeerEntry
# cgPortIpv6Entry columns
IN_PKTS, IN_OCTETS, FORWARDED, TO_KERNEL, DISCARDS, OUT_PKTS, OUT_OCTETS = 1, 2, 3, 4, 5, 6, 7
MP_PVC201 = MP_PVC202.replace("pvc=0,202", "pvc=0,201")
# r's map (test_atm_ipv6.py's _multipoint): one next hop per VC of atm0.200.
R_MAP = {201: ["2001:db8:200::2"], 202: ["2001:db8:200::3"]}


@pytest.fixture(scope="module")
def routers(request, topo, cellgated_bin, snmp):  # noqa: F811
    a1 = start_router(request, topo, cellgated_bin, config=a1_config(topo), ns="a1")
    cfg = r_config(topo)
    cfg["cellgate:cellgate"]["snmp"] = {"agentx-socket": snmp.socket,
                                        "ping-interval": PING_INTERVAL}
    r = start_router(request, topo, cellgated_bin, config=cfg)
    snmp.start_snmpd()
    assert lab.wait_for(snmp.answers, timeout=PING_INTERVAL + 10, interval=0.2), \
        "subagent never answered through snmpd:\n" + r.log()[-2000:]
    assert snmp_session(r) == "connected"
    return r, a1


@pytest.fixture(scope="module")
def ifindex(topo):  # noqa: F811
    return lambda dev: topo.link("r", dev)["ifindex"]


def peer_rows(snmp):  # noqa: F811
    """{(vpi, vci): [addresses in entry order]} from a walk of cgVcIpv6PeerTable,
    checking each row's index, type static(1) and 16-octet address."""
    walk = snmp.walk(CG_VC_IPV6_PEER)
    rows = {}
    for oid, (typ, val) in sorted(walk.items(), key=lambda kv: [int(x) for x in
                                                                 kv[0][1:].split(".")]):
        col, _, vpi, vci, entry = oid[len(CG_VC_IPV6_PEER) + 1:].split(".")
        if col == "2":
            assert typ == "Hex-STRING", (oid, typ, val)
            raw = bytes.fromhex(val.replace(" ", ""))
            assert len(raw) == 16, (oid, val)
            got = rows.setdefault((int(vpi), int(vci)), [])
            assert int(entry) == len(got) + 1, "entries of a VC number from 1: %s" % oid
            got.append(socket.inet_ntop(socket.AF_INET6, raw))
        else:
            assert col == "3" and (typ, val) == ("INTEGER", 1), (oid, typ, val)
    assert len(walk) == 2 * sum(len(v) for v in rows.values()), walk
    return rows


def test_ipv6_peer_table_is_the_map(routers, snmp, ifindex):  # noqa: F811
    """One row per mapped next hop, under the VC's atmVclTable index, as
    RESTCONF's state/vc says; VCs without a map have none."""
    r, _ = routers
    assert peer_rows(snmp) == {(0, v): a for v, a in R_MAP.items()}
    for vci, addrs in R_MAP.items():
        v = rc.get(r, "/cellgate:cellgate/state/vc=atm0,0,%d" % vci).json()["cellgate:vc"][0]
        assert v["ipv6-peer-address"] == addrs, v
    # The instance OID carries the ATM port's ifIndex.
    walk = snmp.walk(CG_VC_IPV6_PEER)
    assert CG_VC_IPV6_PEER + ".2.%d.0.201.1" % ifindex("atm0") in walk, walk


def test_ipv6_peer_table_follows_a_runtime_change(routers, snmp):  # noqa: F811
    """A PVC replaced over RESTCONF with a longer map: its rows follow at once
    (the subagent rebuilds them with the VCs); put back, they go back."""
    r, _ = routers
    two = R_MAP[201] + ["fe80::9"]
    body = {"cellgate:pvc": [{"vpi": 0, "vci": 201, "inatmarp": {"enabled": False},
                              "ipv6-peer-address": two}]}
    resp = rc.request(r, "PUT", MP_PVC201, body)
    assert resp.status in (200, 201, 204), resp
    try:
        assert peer_rows(snmp) == {(0, 201): two, (0, 202): R_MAP[202]}
    finally:
        body["cellgate:pvc"][0]["ipv6-peer-address"] = R_MAP[201]
        resp = rc.request(r, "PUT", MP_PVC201, body)
        assert resp.status in (200, 201, 204), resp
    assert peer_rows(snmp) == {(0, v): a for v, a in R_MAP.items()}


def test_ipv6_peer_address_by_name(routers, snmp, ifindex):  # noqa: F811
    """snmpget by name with CELLGATE-MIB loaded: the address shown through
    CgIpv6Address's DISPLAY-HINT (eight groups of hex)."""
    mibdirs = ":".join(["/usr/share/snmp/mibs", lab.REPO + "/tests/snmp/base-mibs",
                        lab.REPO + "/mibs"])
    p = snmp.topo.exec("r", ["snmpget", "-v2c", "-c", COMMUNITY, "-M", mibdirs, "-m",
                             "CELLGATE-MIB", "127.0.0.1:%d" % SNMPD_PORT,
                             "CELLGATE-MIB::cgVcIpv6PeerAddress.%d.0.202.1" %
                             ifindex("atm0")], timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "cgVcIpv6PeerAddress" in p.stdout, p.stdout
    groups = p.stdout.rsplit("=", 1)[1].split(":", 1)[1].strip().split(":")
    assert [int(g, 16) for g in groups] == [0x2001, 0xdb8, 0x200, 0, 0, 0, 0, 3], p.stdout


def test_port_ipv6_counters_move_exactly(topo, routers, snmp, ifindex):  # noqa: F811
    """N ping6 h1 -> h4 across the VC: r's eth0 takes N IPv6 packets in and
    forwards them, sends N replies out; SNMP and stats.json agree."""
    r, _ = routers
    n = 10
    assert wait_ping6(topo, H4), "h1 cannot reach h4 over IPv6"
    inst = ".%d" % ifindex("r-h1")
    cols = (IN_PKTS, IN_OCTETS, FORWARDED, TO_KERNEL, DISCARDS, OUT_PKTS, OUT_OCTETS)

    def read():
        vals = snmp.get(*[CG_PORT_IPV6 + ".%d" % c + inst for c in cols])
        assert all(t == "Counter64" for t, _ in vals), vals
        return dict(zip(cols, (v for _, v in vals)))

    before = read()
    got, p = ping6(topo, "h1", H4, count=n)
    assert got == n, p.stdout
    after = read()
    d = {c: after[c] - before[c] for c in cols}
    # 56 data + 8 ICMPv6 + 40 IPv6 = 104 octets each way (the IPv6 packet, as
    # ipIfStatsHCInOctets counts it: no link-layer header). h1's kernel may
    # also send r neighbour discovery meanwhile (its NUD probes): that goes to
    # r's kernel, counted as to-kernel; the accounting rule holds either way.
    assert d[FORWARDED] == n and d[DISCARDS] == 0, d
    assert d[IN_PKTS] == n + d[TO_KERNEL] and d[TO_KERNEL] <= 3, d
    assert d[IN_OCTETS] >= n * 104 and (d[TO_KERNEL] or d[IN_OCTETS] == n * 104), d
    assert d[OUT_PKTS] == n and d[OUT_OCTETS] == n * 104, d
    st = lab.port_of(r, "eth0")
    snap = read()
    assert snap[IN_PKTS] == st["ipv6-in-packets"] and snap[FORWARDED] == st["ipv6-forwarded"], \
        (snap, st)
