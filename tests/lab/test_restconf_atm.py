"""RESTCONF and /metrics on the ATM lab (atmlab.py: r and a1 joined by a
cell pseudowire): per-VC state and counters agree with the stats dump, the
vc-ping operation reports OAM loopback round trips, VC metrics match."""

import json
import os

import pytest

import atmlab
import lab
import restconf as rc
from test_atm import capture_path, routers, topo, topo_options, wait_ping  # noqa: F401


def vc_state(d, vpi, vci):
    r = rc.get(d, "/cellgate:cellgate/state/vc=atm0,%d,%d" % (vpi, vci))
    assert r.status == 200, r
    return r.json()["cellgate:vc"][0]


def test_vc_state_matches_dump(topo, routers):
    r, a1 = routers
    assert wait_ping(topo, "h1", "10.0.4.2", timeout=15)
    v = vc_state(r, 0, 100)
    assert v["interface"] == "atm0.100" and v["oper-status"] == "up"
    dump = atmlab.vc_of(r.stats(), "atm0", 0, 100)
    v2 = vc_state(r, 0, 100)
    for leaf in ("cells-in", "cells-out", "pdus-in", "pdus-out", "octets-in"):
        assert int(v[leaf]) <= dump[leaf] <= int(v2[leaf]), leaf
    assert int(v["pdus-in"]) > 0
    assert {d["reason"] for d in v["discard"]} >= {"crc", "reassembly-timeout"}
    ports = {p["name"]: p for p in rc.state(r)["port"]}
    assert ports["atm0"]["kind"] == "atm" and ports["atm0"]["atm"]["carrier"] == "r-a1"
    assert ports["atm0.100"]["kind"] == "subinterface"


def test_inatmarp_peer_in_state(topo, routers):
    r, _ = routers
    assert lab.wait_for(lambda: vc_state(r, 0, 200).get("peer-source") == "inatmarp", 15)
    assert vc_state(r, 0, 200)["peer-address"] == "10.2.0.2"


def test_vc_ping_operation(routers):
    r, _ = routers
    out = rc.request(r, "POST", "/restconf/operations/cellgate:vc-ping",
                     {"cellgate:input": {"port": "atm0", "vpi": 0, "vci": 300,
                                         "count": 3}}, timeout=20)
    assert out.status == 200, out
    o = out.json()["cellgate:output"]
    assert o["sent"] == 3 and o["received"] == 3
    assert [x["sequence"] for x in o["reply"]] == [1, 2, 3]
    assert all(0 < x["rtt"] < 2000000 for x in o["reply"])
    assert vc_state(r, 0, 300)["last-loopback-rtt"] > 0
    # No such VC, and a VC the far end does not have: unanswered loopbacks.
    bad = rc.request(r, "POST", "/restconf/operations/cellgate:vc-ping",
                     {"cellgate:input": {"port": "atm0", "vpi": 0, "vci": 999}})
    assert bad.status == 400


def test_vc_metrics_match(topo, routers):
    r, _ = routers
    s1 = rc.state(r)
    m = rc.parse_metrics(rc.request(r, "GET", "/metrics").body)
    s2 = rc.state(r)
    for v1, v2 in zip(s1["vc"], s2["vc"]):
        labels = {"port": v1["port"], "vpi": v1["vpi"], "vci": v1["vci"]}
        for leaf in ("cells-in", "cells-out", "pdus-in", "loopbacks-sent"):
            val = rc.metric(m, "cellgate_vc_%s_total" % leaf.replace("-", "_"), **labels)
            assert int(v1[leaf]) <= val <= int(v2[leaf]), (labels, leaf)
        assert rc.metric(m, "cellgate_vc_oper_status", oper_status=v1["oper-status"],
                         **labels) == 1
    assert rc.metric(m, "cellgate_port_atm_cells_in_total", port="atm0") >= 0


def test_cellgatectl_vc_ping_and_show_vc(routers):
    from test_cellgatectl import run
    r, _ = routers
    code, out, err = run(rc.sock(r), "vc", "ping", "atm0", "0/300", "2")
    assert code == 0, err
    assert out.splitlines()[-1] == "2 sent, 2 received"
    assert "reply in" in out
    code, out, err = run(rc.sock(r), "show", "vc")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:4] == ["Port", "Interface", "VPI", "VCI"]
    rows = {(ln.split()[2], ln.split()[3]): ln.split() for ln in lines[1:]}
    assert set(rows) == {("0", "100"), ("0", "200"), ("0", "300")}
    assert rows[("0", "300")][5] == "cbr" and rows[("0", "200")][8] == "10.2.0.2"
    code, out, err = run(rc.sock(r), "show", "vc", "atm0", "0/300")
    assert code == 0 and "Last loopback round trip" in out


def test_capture_start_stop_at_runtime(topo, routers, tmp_path):
    r, _ = routers
    op = "/restconf/operations/cellgate:capture-%s"
    vc = {"port": "atm0", "vpi": 0, "vci": 300}
    path = str(tmp_path / "vc300.pcap")
    res = rc.request(r, "POST", op % "start", {"cellgate:input": dict(vc, file=path)})
    assert res.status == 204, res
    again = rc.request(r, "POST", op % "start", {"cellgate:input": dict(vc, file=path)})
    assert again.status == 409 and again.error()["error-tag"] == "in-use"
    # VC 0/200 captures from its configured capture-file already (atmlab.py).
    busy = rc.request(r, "POST", op % "start",
                      {"cellgate:input": {"port": "atm0", "vpi": 0, "vci": 200,
                                          "file": str(tmp_path / "x.pcap")}})
    assert busy.status == 409
    topo.exec("h1", ["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.3.0.2"])
    res = rc.request(r, "POST", op % "stop", {"cellgate:input": vc})
    assert res.status == 204, res
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"\x4d\x3c\xb2\xa1"  # pcap, nanosecond timestamps, little-endian
    assert len(data) > 24 + 16, "no records captured"
    size = len(data)
    topo.exec("h1", ["ping", "-c", "2", "-i", "0.2", "-W", "2", "10.3.0.2"])
    assert os.path.getsize(path) == size, "written after capture-stop"
    res = rc.request(r, "POST", op % "stop", {"cellgate:input": vc})
    assert res.status == 409 and res.error()["error-tag"] == "data-missing"
