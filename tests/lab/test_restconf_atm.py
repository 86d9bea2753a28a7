# SPDX-License-Identifier: BSD-2-Clause
"""RESTCONF and /metrics on the ATM lab (atmlab.py: r and a1 joined by a
cell pseudowire): per-VC state and counters agree with the stats dump, the
vc-ping operation reports OAM loopback round trips, VC metrics match."""

import json
import os
import re
import stat
import time

import pytest

import atmlab
import lab
import restconf as rc
from test_atm import capture_name, routers, topo, topo_options, wait_ping  # noqa: F401


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
    # An ATM port is up with its carrier; a subinterface with its VCs (OAM).
    assert ports["atm0"]["oper-status"] == "up" and ports["atm0.100"]["oper-status"] == "up"


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


CAPTURE_OP = "/restconf/operations/cellgate:capture-%s"
VC300 = {"port": "atm0", "vpi": 0, "vci": 300}


def capture_dir(d):
    return os.path.join(d.rundir, "capture")


def test_capture_start_stop_at_runtime(topo, routers):
    r, _ = routers
    op = CAPTURE_OP
    vc = VC300
    res = rc.request(r, "POST", op % "start", {"cellgate:input": dict(vc, file="vc300.pcap")})
    assert res.status == 204, res
    path = os.path.join(capture_dir(r), "vc300.pcap")
    st = os.lstat(path)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o640
    assert vc_state(r, 0, 300)["capture-file"] == "vc300.pcap"
    again = rc.request(r, "POST", op % "start", {"cellgate:input": dict(vc, file="vc300.pcap")})
    assert again.status == 409 and again.error()["error-tag"] == "in-use"
    # VC 0/200 captures from its configured capture-file already (atmlab.py).
    busy = rc.request(r, "POST", op % "start",
                      {"cellgate:input": {"port": "atm0", "vpi": 0, "vci": 200,
                                          "file": "x.pcap"}})
    assert busy.status == 409
    topo.exec("h1", ["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.3.0.2"])
    res = rc.request(r, "POST", op % "stop", {"cellgate:input": vc})
    assert res.status == 204, res
    assert "capture-file" not in vc_state(r, 0, 300)
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"\x4d\x3c\xb2\xa1"  # pcap, nanosecond timestamps, little-endian
    assert len(data) > 24 + 16, "no records captured"
    size = len(data)
    topo.exec("h1", ["ping", "-c", "2", "-i", "0.2", "-W", "2", "10.3.0.2"])
    assert os.path.getsize(path) == size, "written after capture-stop"
    res = rc.request(r, "POST", op % "stop", {"cellgate:input": vc})
    assert res.status == 409 and res.error()["error-tag"] == "data-missing"
    # A name used before is not reused: O_EXCL, the old capture stays as it was.
    res = rc.request(r, "POST", op % "start", {"cellgate:input": dict(vc, file="vc300.pcap")})
    assert res.status == 409 and res.error()["error-tag"] == "data-exists", res
    assert os.path.getsize(path) == size


def test_capture_cannot_write_outside_its_directory(topo, routers, tmp_path):
    """An API user cannot make the daemon create or truncate any other file."""
    r, _ = routers
    victim = tmp_path / "cellgated.json"
    victim.write_text("precious\n")
    for name in (str(victim), "../" + victim.name, "sub/x.pcap", ".hidden", "-r"):
        res = rc.request(r, "POST", CAPTURE_OP % "start",
                         {"cellgate:input": dict(VC300, file=name)})
        assert res.status == 400 and res.error()["error-tag"] == "invalid-value", (name, res)
        assert "capture-file" not in vc_state(r, 0, 300)
    # A symbolic link planted in the capture directory is not followed.
    os.symlink(str(victim), os.path.join(capture_dir(r), "link.pcap"))
    res = rc.request(r, "POST", CAPTURE_OP % "start",
                     {"cellgate:input": dict(VC300, file="link.pcap")})
    assert res.status == 409 and res.error()["error-tag"] == "data-exists", res
    assert victim.read_text() == "precious\n"
    assert int(rc.state(r)["capture"]["refused"]) >= 1
    # A PVC added at runtime with an existing capture-file: the PVC comes, its
    # capture does not, and the file stays as it was (only startup replaces).
    kept = os.path.join(capture_dir(r), "kept.pcap")
    with open(kept, "w") as f:
        f.write("an earlier capture\n")
    pvc = {"cellgate:pvc": [{"vpi": 0, "vci": 209, "capture-file": "kept.pcap"}]}
    res = rc.request(r, "POST", "/restconf/data" + SUB200, pvc)
    assert res.status == 201, res
    try:
        assert "capture-file" not in vc_state(r, 0, 209)
        with open(kept) as f:
            assert f.read() == "an earlier capture\n"
        assert "kept.pcap: File exists; the VC runs without it" in r.log()
    finally:
        res = rc.request(r, "DELETE", "/restconf/data" + SUB200 + "/pvc=0,209")
        assert res.status == 204, res


def capture_stopped(d, vpi, vci, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "capture-file" not in vc_state(d, vpi, vci):
            return True
        time.sleep(0.1)
    return False


def test_capture_stops_at_its_limits(topo, routers):
    """A capture stops at max-size (the file never passes it) and at max-duration."""
    r, _ = routers
    before = rc.state(r)["capture"]
    res = rc.request(r, "POST", CAPTURE_OP % "start",
                     {"cellgate:input": dict(VC300, file="small.pcap", **{"max-size": "4096"})})
    assert res.status == 204, res
    topo.exec("h1", ["ping", "-c", "20", "-i", "0.05", "-s", "400", "-W", "1", "10.3.0.2"])
    assert capture_stopped(r, 0, 300), "no stop at the size limit"
    path = os.path.join(capture_dir(r), "small.pcap")
    size = os.path.getsize(path)
    assert 24 < size <= 4096
    assert "small.pcap stopped (size limit of 4096 bytes reached)" in r.log()
    res = rc.request(r, "POST", CAPTURE_OP % "start",
                     {"cellgate:input": dict(VC300, file="short.pcap",
                                             **{"max-duration": 1})})
    assert res.status == 204, res
    t0 = time.monotonic()
    assert capture_stopped(r, 0, 300, timeout=5), "no stop at the duration limit"
    assert 0.9 <= time.monotonic() - t0 <= 3
    assert "short.pcap stopped (duration limit of 1 s reached)" in r.log()
    after = rc.state(r)["capture"]
    assert int(after["stopped-at-limit"]) == int(before["stopped-at-limit"]) + 2
    assert int(after["started"]) == int(before["started"]) + 2
    assert int(after["records-not-written"]) > int(before["records-not-written"])
    assert after["directory"] == capture_dir(r)
    # Above the configured limits (system/capture, 100 MiB and 3600 s by default): refused.
    for extra, leaf in (({"max-size": str(200 << 20)}, "max-size"),
                        ({"max-duration": 7200}, "max-duration")):
        res = rc.request(r, "POST", CAPTURE_OP % "start",
                         {"cellgate:input": dict(VC300, file="big.pcap", **extra)})
        assert res.status == 400 and res.error()["error-path"].endswith(leaf), res
    assert not os.path.exists(os.path.join(capture_dir(r), "big.pcap"))
    # Where captures go and their limits are fixed at startup.
    res = rc.request(r, "PATCH", "/restconf/data/cellgate:cellgate/system",
                     {"cellgate:system": {"capture": {"directory": "/etc"}}})
    assert res.status == 501 and res.error()["error-path"].endswith("system/capture"), res
    assert rc.state(r)["capture"]["directory"] == capture_dir(r)


SUB200 = "/cellgate:cellgate/port=atm0/subinterface=atm0.200"
PVC201 = SUB200 + "/pvc=0,201"
NEW_PVC = {"cellgate:pvc": [{"vpi": 0, "vci": 201,
                             "inatmarp": {"enabled": True, "interval": 1000}}]}


def startup_pvcs(d, subif="atm0.200"):
    with open(d.cfg) as f:
        c = json.load(f)["cellgate:cellgate"]
    atm0 = [p for p in c["port"] if p["name"] == "atm0"][0]
    s = [s for s in atm0["subinterface"] if s["name"] == subif][0]
    return {(v["vpi"], v["vci"]) for v in s["pvc"]}


def vcs(d):
    return [(v["vpi"], v["vci"]) for v in rc.state(d)["vc"]]


def test_pvc_add_and_delete_at_runtime(topo, routers):
    import signal
    import subprocess
    r, a1 = routers
    assert wait_ping(topo, "h1", "10.0.4.2", timeout=15)
    before = {d: (vcs(d), startup_pvcs(d)) for d in (r, a1)}
    # h1 -> h4 crosses VC 0/100: it must not lose a packet while 0/201 comes and goes.
    bg = topo.popen("h1", ["ping", "-n", "-i", "0.05", "-W", "1", "10.0.4.2"],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(0.5)  # some before the change, some after (finally)
        for d in (a1, r):
            res = rc.request(d, "POST", "/restconf/data" + SUB200, NEW_PVC)
            assert res.status == 201, res
            assert res.headers["location"] == "/restconf/data" + PVC201
            assert (0, 201) in startup_pvcs(d)
            assert (0, 201) in vcs(d)
        # InATMARP both ways over the new VC: r learns a1's address on it.
        assert lab.wait_for(lambda: vc_state(r, 0, 201).get("peer-source") == "inatmarp", 15)
        assert vc_state(r, 0, 201)["peer-address"] == "10.2.0.2"
        assert int(vc_state(a1, 0, 201)["pdus-in"]) > 0
        # OAM loopbacks over it, answered by a1.
        out = rc.request(r, "POST", "/restconf/operations/cellgate:vc-ping",
                         {"cellgate:input": {"port": "atm0", "vpi": 0, "vci": 201,
                                             "count": 2}}, timeout=20)
        assert out.status == 200 and out.json()["cellgate:output"]["received"] == 2, out
        dump = atmlab.vc_of(r.stats(), "atm0", 0, 201)
        assert dump["interface"] == "atm0.200" and dump["pdus-in"] > 0
        assert vc_state(r, 0, 200)["oper-status"] == "up"
        # 10.44.0.0/24 goes via 10.2.0.2, now learned on 0/200 and 0/201 alike.
        assert wait_ping(topo, "h1", "10.44.0.1", timeout=10)

        for d in (r, a1):
            res = rc.request(d, "DELETE", "/restconf/data" + PVC201)
            assert res.status == 204, res
            assert (vcs(d), startup_pvcs(d)) == before[d]
            assert rc.get(d, "/cellgate:cellgate/state/vc=atm0,0,201").status == 404
        # A neighbour resolved to 0/201 went with it; 0/200 still reaches 10.2.0.2.
        neigh = rc.state(r)["neighbor"]
        assert all(n.get("vci") != 201 for n in neigh)
        assert wait_ping(topo, "h1", "10.44.0.1", timeout=10)
    finally:
        time.sleep(1)
        bg.send_signal(signal.SIGINT)
        summary = bg.communicate(timeout=10)[0]
    # By sequence number: the echo still in flight when ping was stopped is
    # counted as transmitted but was not lost, and must not fail the test.
    seqs = sorted(int(x) for x in re.findall(r"icmp_seq=(\d+)", summary))
    assert len(seqs) > 20, summary
    missing = sorted(set(range(1, seqs[-1] + 1)) - set(seqs))
    assert not missing, "VC 0/100 lost echo(es) %s during add/delete:\n%s" % (
        missing, summary[-1500:])


def test_invalid_pvc_add_changes_nothing(routers):
    r, _ = routers
    bad = [
        # The VPI/VCI of another subinterface's PVC on the same port.
        (SUB200, {"cellgate:pvc": [{"vpi": 0, "vci": 100}]}, 400, "already used"),
        # VCI 0..31 are reserved (I.361).
        (SUB200, {"cellgate:pvc": [{"vpi": 0, "vci": 20}]}, 400, None),
        # Already there.
        (SUB200, {"cellgate:pvc": [{"vpi": 0, "vci": 200}]}, 409, None),
        # A point-to-point subinterface has exactly one.
        ("/cellgate:cellgate/port=atm0/subinterface=atm0.300",
         {"cellgate:pvc": [{"vpi": 0, "vci": 301}]}, 400, None),
    ]
    for uri, body, status, text in bad:
        file_before, vcs_before = open(r.cfg, "rb").read(), vcs(r)
        res = rc.request(r, "POST", "/restconf/data" + uri, body)
        assert res.status == status, (body, res)
        err = res.error()
        assert err["error-tag"] and err["error-message"], err
        if text:
            assert text in err["error-message"], err
        assert open(r.cfg, "rb").read() == file_before, "startup file changed"
        assert vcs(r) == vcs_before


def test_pvc_runtime_refusals_are_501(routers):
    r, _ = routers
    file_before, vcs_before = open(r.cfg, "rb").read(), vcs(r)
    # A new subinterface stays a restart-only change.
    res = rc.request(r, "POST", "/restconf/data/cellgate:cellgate/port=atm0", {
        "cellgate:subinterface": [{"name": "atm0.400", "type": "multipoint",
                                   "pvc": [{"vpi": 0, "vci": 400}]}]})
    assert res.status == 501 and "restart" in res.error()["error-message"], res
    # A PVC whose MTU would lower the subinterface's.
    res = rc.request(r, "POST", "/restconf/data" + SUB200,
                     {"cellgate:pvc": [{"vpi": 0, "vci": 202, "mtu": 1500}]})
    assert res.status == 501 and "MTU" in res.error()["error-message"], res
    assert res.error()["error-path"].endswith("pvc[vpi='0'][vci='202']")
    assert open(r.cfg, "rb").read() == file_before and vcs(r) == vcs_before


def test_cellgatectl_vc_add_del_at_runtime(routers):
    from test_cellgatectl import run
    r, _ = routers
    code, out, err = run(rc.sock(r), "vc", "add", "atm0", "atm0.200", "0/202")
    assert code == 0, err
    assert (0, 202) in vcs(r) and (0, 202) in startup_pvcs(r)
    code, out, err = run(rc.sock(r), "vc", "del", "atm0", "atm0.200", "0/202")
    assert code == 0, err
    assert (0, 202) not in vcs(r) and (0, 202) not in startup_pvcs(r)
    # A point-to-point subinterface keeps its one PVC: refused, with the reason.
    code, out, err = run(rc.sock(r), "vc", "add", "atm0", "atm0.300", "0/302")
    assert code != 0 and "point-to-point" in err + out, (out, err)
