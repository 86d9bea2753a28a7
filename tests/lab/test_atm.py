# SPDX-License-Identifier: BSD-2-Clause
"""Ethernet <-> ATM routing through cell pseudowires (atmlab.py topology).

Two cellgated: r (Ethernet hosts h1, h2 and an ATM port) and a1 (a remote
ATM router with host h4 behind it). Proves ping, traceroute and TCP across
the ATM segment, ICMP errors coming back over ATM, InATMARP learning, OAM
taking a VC down and up, CBR shaping, per-VC counters, pcap capture, and
that bad cells and frames are counted and never crash either daemon.
"""

import errno
import os
import re
import signal
import socket
import subprocess
import time

import pytest

import atmlab
import lab
import restconf as rc
from conftest import start_router


@pytest.fixture(scope="module")
def topo_options():
    return {}


@pytest.fixture(scope="module")
def topo(request, topo_options):
    if os.geteuid() != 0:
        pytest.fail("the lab needs root", pytrace=False)
    t = atmlab.AtmTopology(**topo_options)
    request.addfinalizer(t.destroy)
    t.create()
    return t


@pytest.fixture(scope="module")
def capture_name(topo):
    """VC 0/200's capture-file: a name in r's capture directory (RUNDIR/capture)."""
    return "vc200.pcap"


@pytest.fixture(scope="module")
def routers(request, topo, cellgated_bin, capture_name):
    oam = {"enabled": True, "interval": 500, "retry-interval": 250,
           "down-count": 3, "up-count": 2}
    # a1 first: r's OAM loopbacks then find it answering from the start.
    a1 = start_router(request, topo, cellgated_bin,
                      config=atmlab.remote_config(topo), ns="a1")
    r = start_router(request, topo, cellgated_bin,
                     config=atmlab.router_config(topo, oam=oam,
                                                 capture=capture_name))
    return r, a1


def ping(topo, host, dst, count=3, timeout=10, size=56, interval="0.2"):
    p = topo.exec(host, ["ping", "-n", "-q", "-c", str(count), "-i", interval,
                         "-s", str(size), "-W", "2", dst], timeout=timeout)
    m = re.search(r"(\d+) received", p.stdout)
    return int(m.group(1)) if m else 0, p


def wait_ping(topo, host, dst, timeout=10):
    """Wait until dst answers (neighbours and InATMARP may still be settling)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ping(topo, host, dst, count=1)[0] == 1:
            return True
    return False


def test_ping_ethernet_to_atm_host(topo, routers):
    assert wait_ping(topo, "h1", "10.0.4.2"), "h4 behind the ATM router never answered"
    r, a1 = routers
    before = atmlab.vc_of(r.stats(), "atm0", 0, 100)
    got, p = ping(topo, "h1", "10.0.4.2", count=10, size=100)
    assert got == 10, p.stdout
    after = atmlab.vc_of(r.stats(), "atm0", 0, 100)
    # 100 bytes of ICMP data + 8 ICMP + 20 IP + 8 LLC/SNAP = 136-byte SDU:
    # with the 8-byte trailer, 144 bytes = exactly 3 cells each way.
    assert after["pdus-out"] - before["pdus-out"] >= 10
    assert after["pdus-in"] - before["pdus-in"] >= 10
    dout = after["cells-out"] - before["cells-out"]
    din = after["cells-in"] - before["cells-in"]
    dpdu = after["pdus-out"] - before["pdus-out"]
    # OAM cells (one per loopback) ride on the same VC: count them out.
    doam_out = after["oam-out"] - before["oam-out"]
    doam_in = after["oam-in"] - before["oam-in"]
    assert dout - doam_out == 3 * dpdu
    assert din - doam_in == 3 * (after["pdus-in"] - before["pdus-in"])
    assert after["octets-out"] - before["octets-out"] == 136 * dpdu


def test_ping_router_address_over_atm(topo, routers):
    """a1's own subinterface address: punted to its TUN, the kernel answers,
    the reply goes back down the VC from the TUN."""
    # The kernel's own traffic follows the kernel's table (FRR fills it in a
    # real deployment): the route back to h1 over the subinterface's TUN.
    topo.exec("a1", ["ip", "route", "replace", "10.0.1.0/24", "via", "10.1.0.1", "dev",
                     "atm0.100"], check=True)
    got, p = ping(topo, "h1", "10.1.0.2", count=5)
    assert got == 5, p.stdout
    r, a1 = routers
    ap = atmlab.atm_port_of(a1.stats(), "atm0")
    assert ap["punted"] >= 5 and ap["host-tx"] >= 5


def test_traceroute_across_atm(topo, routers):
    p = topo.exec("h1", ["traceroute", "-n", "-q", "1", "-w", "2", "-m", "5",
                         "10.0.4.2"], timeout=30)
    hops = re.findall(r"^\s*\d+\s+(\S+)", p.stdout, re.M)
    assert hops[:3] == ["10.0.1.1", "10.1.0.2", "10.0.4.2"], p.stdout


def test_icmp_unreachable_from_far_side(topo, routers):
    """a1 has no route for 10.88/16: its net unreachable comes back over ATM."""
    p = topo.exec("h1", ["ping", "-n", "-c", "1", "-W", "2", "10.88.0.1"])
    assert "Destination Net Unreachable" in p.stdout and "10.1.0.2" in p.stdout, p.stdout


def test_iperf3_tcp_across_atm(topo, routers):
    srv = topo.popen("h4", ["iperf3", "-s", "-1", "-p", "5201"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        p = topo.exec("h1", ["iperf3", "-c", "10.0.4.2", "-p", "5201", "-t", "3",
                             "-J"], timeout=30)
        assert p.returncode == 0, p.stdout + p.stderr
        import json
        res = json.loads(p.stdout)
        bps = res["end"]["sum_received"]["bits_per_second"]
        print("iperf3 across ATM: %.1f Mbit/s" % (bps / 1e6))
        assert bps > 10e6, "only %.1f Mbit/s over ATM" % (bps / 1e6)
    finally:
        srv.kill()
        srv.wait()


def test_inatmarp_learns_multipoint_peer(topo, routers):
    r, a1 = routers

    def learned():
        v = atmlab.vc_of(r.stats(), "atm0", 0, 200)
        return v if v["peer"] == "10.2.0.2" else None
    v = lab.wait_for(learned, timeout=10, interval=0.3)
    assert v, "r never learned 10.2.0.2 on VC 0/200"
    assert v["inatmarp-in"] >= 1 and v["inatmarp-out"] >= 1
    # 10.44.0.0/24 goes via 10.2.0.2 on the multipoint subinterface.
    assert wait_ping(topo, "h1", "10.44.0.1"), "nothing through the multipoint VC"
    w = atmlab.vc_of(a1.stats(), "atm0", 0, 200)
    assert w["peer"] == "10.2.0.1"


def test_oam_takes_vc_down_and_up(topo, routers):
    r, a1 = routers
    v = atmlab.vc_of(r.stats(), "atm0", 0, 100)
    assert v["oper"] == "up" and v["loopback-replies"] >= 1, v
    a1.proc.send_signal(signal.SIGSTOP)  # the far end stops answering
    try:
        down = lab.wait_for(lambda: atmlab.vc_of(r.stats(), "atm0", 0, 100)["oper"] == "down",
                            timeout=8, interval=0.2)
    finally:
        a1.proc.send_signal(signal.SIGCONT)
    assert down, "VC 0/100 stayed up with the far end silent"
    got, _ = ping(topo, "h1", "10.0.4.2", count=1)
    up = lab.wait_for(lambda: atmlab.vc_of(r.stats(), "atm0", 0, 100)["oper"] == "up",
                      timeout=8, interval=0.2)
    assert up, "VC 0/100 did not come back up"
    v = atmlab.vc_of(r.stats(), "atm0", 0, 100)
    assert v["oper-changes"] >= 2 and v["loopbacks-lost"] >= 3
    assert "oper down" in r.log() and "oper up" in r.log()
    assert wait_ping(topo, "h1", "10.0.4.2")


def test_cbr_vc_stays_under_pcr(topo, routers):
    """Flood the CBR VC (PCR 2000 cells/s): cells out per second <= PCR."""
    r, a1 = routers
    gen = topo.popen("h1", ["/usr/bin/python3", "-c", """
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + 3.0
while time.time() < end:
    s.sendto(b'x' * 200, ('10.3.0.2', 9))
    time.sleep(0.0005)
"""])
    try:
        time.sleep(0.8)  # past the initial burst
        a = atmlab.vc_of(r.stats(), "atm0", 0, 300)
        t0 = time.monotonic()
        time.sleep(1.5)
        b = atmlab.vc_of(r.stats(), "atm0", 0, 300)
        t1 = time.monotonic()
    finally:
        gen.wait(timeout=10)
    rate = (b["cells-out"] - a["cells-out"]) / (t1 - t0)
    # The stats dumps themselves take time: allow one frame's worth of burst.
    assert rate <= atmlab.CBR_PCR * 1.02 + 28 / (t1 - t0), "%.0f cells/s > PCR" % rate
    assert rate >= atmlab.CBR_PCR * 0.8, "%.0f cells/s: shaping far below PCR" % rate
    assert b["discards"]["shaping-queue-full"] > 0, "the flood never filled the queue"


def test_startup_log_names_the_carrier(routers):
    """The ATM port's own netdev is a TUN named after it; the log says which
    Ethernet netdev carries its cells. A stats dump (SIGUSR1) logs nothing
    at the default level."""
    r, a1 = routers
    assert "port atm0: cellpw on carrier r-a1 (port netdev atm0," in r.log(), r.log()
    assert "port atm0: cellpw on carrier a1-r (port netdev atm0," in a1.log()
    r.stats()
    assert "stats written" not in r.log()


def test_capture_file_decodes_to_ip(topo, routers, capture_name):
    """VC 0/200 captures its SDUs: tshark decodes them down to IP (and ARP)."""
    capture_path = os.path.join(routers[0].rundir, "capture", capture_name)
    assert wait_ping(topo, "h1", "10.44.0.1")
    got, p = ping(topo, "h1", "10.44.0.1", count=3)
    assert got == 3, p.stdout
    time.sleep(0.5)  # the worker flushes its capture buffer every 100 ms
    p = subprocess.run(["tshark", "-r", capture_path, "-T", "fields", "-e", "atm.vpi",
                        "-e", "atm.vci", "-e", "ip.src", "-e", "ip.dst"],
                       capture_output=True, text=True, timeout=60)
    lines = [ln.split("\t") for ln in p.stdout.splitlines()]
    # The replies come back over 0/100 (a1 routes 10.0.1.0/24 there): here we
    # see the requests r sent, each decoded from LLC/SNAP down to IP.
    reqs = [ln for ln in lines if ln == ["0", "200", "10.0.1.2", "10.44.0.1"]]
    assert len(reqs) >= 3, p.stdout[-2000:] + p.stderr


def _oam_crc_lines(pcap, src_mac):
    """CRC-10 verdicts tshark gives the OAM cells in frames sent by src_mac."""
    p = subprocess.run(["tshark", "-r", str(pcap), "-V", "-d",
                        "mpls.label==%d,mplspwatmn1cw" % atmlab.PW_LABEL,
                        "-Y", "eth.src == %s && atm.aal_oamcell.crc" % src_mac],
                       capture_output=True, text=True, timeout=60)
    return [ln for ln in p.stdout.splitlines() if "CRC-10" in ln], p.stdout[-2000:] + p.stderr


def test_tshark_checks_oam_crc10(topo, routers, tmp_path):
    """Both routers' own OAM cells, each captured where it arrives: with qdisc
    bypass a capture on the sender's carrier does not see what it sends."""
    caps = {}
    for ns, dev in (("r", "r-a1"), ("a1", "a1-r")):
        out = tmp_path / ("%s.pcap" % dev)
        caps[ns] = (out, topo.popen(ns, ["tshark", "-q", "-i", dev, "-a", "duration:3", "-w",
                                         str(out), "-f", "mpls"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL))
    for _, proc in caps.values():
        proc.wait(timeout=30)
    # r's cells arrive on a1's side of the carrier, and a1's on r's.
    for sender, (ns, dev) in (("r", ("a1", "r-a1")), ("a1", ("r", "a1-r"))):
        crc_lines, dump = _oam_crc_lines(caps[ns][0], topo.mac(sender, dev))
        assert crc_lines, "no OAM cells from %s decoded:\n%s" % (sender, dump)
        assert not [ln for ln in crc_lines if "incorrect" in ln.lower()], crc_lines[:5]


def _inject(topo, frames):
    """Send raw frames out of r's carrier veth: they arrive at a1's cellpw port."""
    lab.send_frames(topo, "r", "r-a1", frames)


def test_bad_cells_and_frames_are_counted(topo, routers):
    r, a1 = routers
    dst = topo.mac("a1", "a1-r")
    src = topo.mac("r", "r-a1")
    before = a1.stats()
    ip = bytes(20)
    good = atmlab.llc_ipv4(ip)
    frames = []
    # Corrupt CRC on VC 0/100.
    frames.append(atmlab.pw_frame(dst, src, atmlab.cells_of(
        atmlab.aal5_pdu(good, bad_crc=True), 0, 100), seq=0))
    # Length field inconsistent with the cell count.
    frames.append(atmlab.pw_frame(dst, src, atmlab.cells_of(
        atmlab.aal5_pdu(good, length=200), 0, 100), seq=0))
    # Oversize: 9300 bytes > MTU 9180 + 8.
    big = atmlab.cells_of(atmlab.aal5_pdu(bytes(9300)), 0, 100)
    for i in range(0, len(big), 28):
        frames.append(atmlab.pw_frame(dst, src, big[i:i + 28], seq=0))
    # Unknown VPI/VCI.
    frames.append(atmlab.pw_frame(dst, src, atmlab.cells_of(
        atmlab.aal5_pdu(good), 7, 777), seq=0))
    # Cut mid-PDU: first cells of a 3-cell PDU, then a whole other PDU
    # (the merged PDU fails its CRC or length check).
    cut = atmlab.cells_of(atmlab.aal5_pdu(bytes(100)), 0, 100)
    frames.append(atmlab.pw_frame(dst, src, cut[:2], seq=0))
    # Truncated frame: payload not a multiple of 52.
    frames.append(atmlab.pw_frame(dst, src, [bytes(30)], seq=0))
    # Garbage MPLS: wrong label; and a bare MPLS header.
    frames.append(atmlab.pw_frame(dst, src, atmlab.cells_of(
        atmlab.aal5_pdu(good), 0, 100), label=999, seq=0))
    frames.append(bytes.fromhex(dst.replace(":", "")) + bytes.fromhex(src.replace(":", "")) +
                  b"\x88\x47\x00")
    _inject(topo, frames)
    # A good PDU after the cut one: the merged PDU is an error.
    _inject(topo, [atmlab.pw_frame(dst, src, atmlab.cells_of(atmlab.aal5_pdu(good), 0, 100))])
    time.sleep(0.5)
    after = a1.stats()
    vb = atmlab.vc_of(before, "atm0", 0, 100)["discards"]
    va = atmlab.vc_of(after, "atm0", 0, 100)["discards"]
    pb = atmlab.atm_port_of(before, "atm0")
    pa = atmlab.atm_port_of(after, "atm0")
    assert va["crc"] - vb["crc"] >= 1
    assert va["length"] - vb["length"] >= 1
    assert va["oversize"] - vb["oversize"] == 1
    assert (va["crc"] + va["length"]) - (vb["crc"] + vb["length"]) >= 3  # incl. the cut PDU
    assert pa["unknown-vc-cells"] - pb["unknown-vc-cells"] == 1
    assert pa["pw-malformed"] - pb["pw-malformed"] >= 2
    assert pa["pw-bad-label"] - pb["pw-bad-label"] == 1
    assert a1.alive() and r.alive()
    assert wait_ping(topo, "h1", "10.0.4.2"), "forwarding broke after bad input"


def test_accounting_holds(routers):
    for d in routers:
        errs = lab.wait_for(lambda: not lab.accounting_errors(d.stats()), timeout=6,
                            interval=0.25)
        assert errs, lab.accounting_errors(d.stats())


def test_on_demand_loopback_reports_rtt(topo, routers):
    """vc-ping (cellgatectl vc ping): the round trip is logged and in stats."""
    r, a1 = routers
    out = rc.request(r, "POST", "/restconf/operations/cellgate:vc-ping",
                     {"cellgate:input": {"port": "atm0", "vpi": 0, "vci": 300, "count": 1}},
                     timeout=20)
    assert out.status == 200, out
    v = lab.wait_for(lambda: atmlab.vc_of(r.stats(), "atm0", 0, 300)["last-ping-rtt-us"],
                     timeout=5, interval=0.2)
    assert v and v > 0, "no round trip reported for VC 0/300"
    assert lab.wait_for(lambda: "VC 0/300 (atm0.300): OAM loopback answered in" in r.log(),
                        timeout=3)


def test_sigusr2_no_longer_pings_but_is_harmless(routers):
    """SIGUSR2 used to ping every VC; now it says what replaced it and the daemon stays up."""
    r, _ = routers
    r.proc.send_signal(signal.SIGUSR2)
    assert lab.wait_for(lambda: "SIGUSR2: ignored" in r.log(), timeout=3), r.log()[-500:]
    assert r.alive()


def kernel_has_atm_sockets():
    """Asked of the kernel directly, not inferred from what the daemon printed."""
    try:
        socket.socket(8, socket.SOCK_DGRAM, 0).close()  # PF_ATMPVC
    except OSError as e:
        assert e.errno == errno.EAFNOSUPPORT, e
        return False
    return True


def test_atmsock_without_kernel_atm_fails_clearly(topo, cellgated_bin, tmp_path):
    """This kernel has no ATM (CONFIG_ATM off): an atmsock port must refuse to
    start and say why, naming the port and CONFIG_ATM."""
    cfg = {"cellgate:cellgate": {"system": {"workers": 1}, "port": [
        {"name": "atm9", "driver": "atmsock", "atmsock": {"interface-number": 0},
         "subinterface": [{"name": "atm9.100", "type": "point-to-point",
                           "ipv4": {"address": [{"ip": "10.9.0.1", "prefix-length": 30}]},
                           "pvc": [{"vpi": 0, "vci": 100}]}]}]}}
    path = tmp_path / "atmsock.json"
    path.write_text(lab.json.dumps(cfg))
    if kernel_has_atm_sockets():
        pytest.skip("this kernel has ATM sockets (PF_ATMPVC): atmsock is tested in tests/vm")
    p = topo.exec("r", [cellgated_bin, "-d", "-f", str(path), "-r", str(tmp_path / "run")],
                  timeout=20)
    assert p.returncode == 1
    out = p.stdout + p.stderr
    assert "atm9" in out and "CONFIG_ATM" in out, out
