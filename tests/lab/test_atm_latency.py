# SPDX-License-Identifier: BSD-2-Clause
"""Timing of the ATM path (issue 13), two cellgated over a cell pseudowire
(atmlab.py): a CBR VC delivers its peak cell rate while nothing is received
(the worker sleeps towards the shaper's next token, not a fixed poll), a
lone packet crosses Ethernet -> ATM -> Ethernet in well under a millisecond
(no partly filled carrier frame waits for the concatenation timer, no ring
timer), and idle workers with OAM and InATMARP timers running stay idle.
"""

import os
import shutil
import signal
import struct
import subprocess
import tempfile
import time

import pytest

import atmlab
import lab
import restconf as rc
from conftest import start_router
from test_latency import IDLE_CPU_MAX, check_p99

PCR = 20000
QUEUE_CELLS = 65536
CBR = {(0, 300): {"shaping": {"service-category": "cbr", "pcr": PCR,
                              "queue-limit": QUEUE_CELLS}}}
SINK_NET = "10.33.0.0/24"  # routed into the CBR VC by r, dropped silently by a1


@pytest.fixture(scope="module")
def topo(request):
    if os.geteuid() != 0:
        pytest.fail("the lab needs root", pytrace=False)
    t = atmlab.AtmTopology()
    request.addfinalizer(t.destroy)
    t.create()
    return t


@pytest.fixture(scope="module")
def routers(request, topo, cellgated_bin):
    oam = {"enabled": True, "interval": 500, "retry-interval": 250,
           "down-count": 3, "up-count": 2}
    cfg_a1 = atmlab.remote_config(topo, extra_pvc=CBR)
    # A blackhole: no ICMP error comes back to wake r while its shaper drains.
    cfg_a1["cellgate:cellgate"]["routing"]["static-route"].append(
        {"prefix": SINK_NET, "action": "blackhole"})
    a1 = start_router(request, topo, cellgated_bin, config=cfg_a1, ns="a1")
    cfg_r = atmlab.router_config(topo, oam=oam, extra_pvc=CBR)
    cfg_r["cellgate:cellgate"]["routing"]["static-route"].append(
        {"prefix": SINK_NET, "nexthop": [{"address": "10.3.0.2"}]})
    r = start_router(request, topo, cellgated_bin, config=cfg_r)
    assert lab.wait_for(lambda: len(lab.ping_rtts(topo, "h1", "10.0.4.2", 1, 0.2)) == 1,
                        15, 0.5), "h1 cannot reach h4 across the ATM segment"
    return r, a1


def test_idle_workers_cpu(topo, routers):
    time.sleep(1)
    meas = []
    for d in routers:
        workers = lab.worker_threads(d)
        assert workers, "no cg-worker thread in /proc/%d/task" % d.proc.pid
        for n, tid in workers.items():
            meas.append((d, n, tid, lab.thread_cpu_seconds(d.proc.pid, tid)))
    t0 = time.monotonic()
    time.sleep(10)
    dt = time.monotonic() - t0
    for d, n, tid, c0 in meas:
        share = (lab.thread_cpu_seconds(d.proc.pid, tid) - c0) / dt
        print("%s %s: %.2f %% of a core over %.1f s idle (OAM, InATMARP)" %
              (d.ns, n, 100 * share, dt))
        assert share <= IDLE_CPU_MAX, "%s %s used %.1f %% of a core idle" % (
            d.ns, n, 100 * share)


def vc_cell_times(path, vpi, vci):
    """Kernel timestamps (s) of the cells of vpi/vci in a pcap of carrier frames."""
    out = []
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    scale = 1e-9 if magic == 0xa1b23c4d else 1e-6
    pos = 24
    while pos + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack("<IIII", data[pos:pos + 16])
        frame = data[pos + 16:pos + 16 + incl]
        pos += 16 + incl
        # Ethernet, MPLS (4), control word (4), then 52-octet cells.
        if len(frame) < 22 or frame[12:14] != b"\x88\x47":
            continue
        t = sec + frac * scale
        for c in range(22, len(frame) - 51, 52):
            h = struct.unpack(">I", frame[c:c + 4])[0]
            if (h >> 20) & 0xff == vpi and (h >> 4) & 0xffff == vci:
                out.append(t)
    return out


# The shaper's bucket: one carrier frame of cells (28) at the PCR, 1.4 ms. A
# gap between cells up to that long loses nothing (the credit waits); past
# it, every cell of the excess is lost.
FRAME_S = 28 / PCR


def cbr_rate_with_rx_idle(topo, r):
    """One run: 60000 cells queued on the CBR VC, then nothing received;
    the rate the cells reach a1 at while the queue drains (cells/s)."""
    work = tempfile.mkdtemp(prefix="cglab-cbr-")
    pcap = os.path.join(work, "carrier.pcap")
    cap = topo.popen("a1", ["dumpcap", "-q", "-P", "-B", "64", "-i", "a1-r", "-w", pcap],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(1.5)  # dumpcap up
        before = lab.port_of(r, "eth0")
        # 2000 datagrams of 1400 octets: 30 cells each (RFC 2684 LLC/SNAP + AAL5).
        sent = lab.send_udp(topo, "h1", "10.33.0.1", count=2000, size=1400, dport=9)
        fill_end = time.time()
        assert sent["sent"] == 2000, sent
        time.sleep(60000 / PCR + 0.7)  # the queue drains
    finally:
        cap.send_signal(signal.SIGINT)
        try:
            cap.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            cap.kill()
    try:
        after = lab.port_of(r, "eth0")
        fwd = lab.counter_delta(before, after, "forwarded")
        assert fwd == 2000, "forwarded %d of 2000 (drops %s)" % (fwd, {
            k: v - before["drops"][k] for k, v in after["drops"].items()
            if v != before["drops"][k]})
        times = vc_cell_times(pcap, 0, 300)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert len(times) >= 55000, "only %d cells of VC 0/300 captured" % len(times)
    # From 0.1 s after the last datagram went in to 0.1 s before the queue ran dry.
    t1, t2 = fill_end + 0.1, times[-1] - 0.1
    win = [t for t in times if t1 <= t < t2]
    rate = len(win) / (t2 - t1)
    all_gaps = [b - a for a, b in zip(win, win[1:])]
    gaps = sorted(all_gaps, reverse=True)[:5]
    # Time the worker was not served: what each gap holds beyond the bucket's
    # 1.4 ms. The credit stops there, so cells it could not send then are not
    # sent later: the rate while served is cells / (window - stalled).
    stalled = sum(g - FRAME_S for g in all_gaps if g > FRAME_S)
    served = len(win) / (t2 - t1 - stalled)
    print("CBR VC 0/300, PCR %d: %d cells in %.3f s with RX idle: %.0f cells/s (%.2f %%); "
          "longest gaps %s ms; %.1f ms of gaps past the bucket: %.0f cells/s (%.2f %%) while served" %
          (PCR, len(win), t2 - t1, rate, 100 * (rate - PCR) / PCR,
           ["%.2f" % (1000 * g) for g in gaps], 1000 * stalled, served,
           100 * (served - PCR) / PCR))
    assert t2 - t1 > 2.0, (t1, t2)
    return rate, served, stalled / (t2 - t1)


def test_cbr_rate_with_rx_idle(topo, routers):
    """60000 cells queued on a CBR VC at 20000 cells/s, then nothing more
    received for ~3 s: the cells reaching a1 arrive at the PCR within 1 %
    while the worker is served. This shared VM's host sometimes takes the
    vCPU for ~10 ms at a time, a few times a second (CI runs have shown
    -3 to -15 % with dozens of 9-12 ms gaps, in both this and earlier
    trees); the shaper's bucket is one carrier frame (28 cells, 1.4 ms), so
    cells are lost with the time. A run counts when under 10 % of it went in
    gaps past the bucket and the rate outside them is within 1 % of the PCR;
    best of three. A worker that sleeps past its shaper deadline (the
    5 ms polls before issue 13 gave ~5,000 cells/s) fails either way: its
    gaps are every frame's."""
    r, _ = routers
    # The next hop on the CBR VC resolved first, so nothing waits for it.
    def resolved():
        b = lab.port_of(r, "eth0")
        lab.send_udp(topo, "h1", "10.33.0.1", count=1, size=100, dport=9)
        return lab.wait_for(lambda: lab.counter_delta(b, lab.port_of(r, "eth0"),
                                                      "forwarded") == 1, 1, 0.1)
    assert lab.wait_for(resolved, 10, 0.2), "next hop 10.3.0.2 never resolved"
    runs = []
    for _ in range(3):
        rate, served, stalled = cbr_rate_with_rx_idle(topo, r)
        runs.append("%.0f cells/s (%.0f while served, %.1f %% of the run in gaps)" %
                    (rate, served, 100 * stalled))
        if stalled < 0.10 and abs(served - PCR) <= 0.01 * PCR:
            return
    assert False, "PCR %d, three runs: %s" % (PCR, "; ".join(runs))


def test_ping_p99_across_atm(topo, routers):
    """h1 -> r ==PW== a1 -> h4 and back: four forwarding passes, two of them
    into cells and out of a carrier frame."""
    assert len(lab.ping_rtts(topo, "h1", "10.0.4.2", 3, 0.2)) == 3
    check_p99(lambda: lab.ping_rtts(topo, "h1", "10.0.4.2", 500, 0.005), 500,
              "h1 -> h4 across ATM, 5 ms apart")
    check_p99(lambda: lab.ping_rtts(topo, "h1", "10.0.4.2", 1000, 0.001), 1000,
              "h1 -> h4 across ATM, 1 ms apart")


def test_oam_loopback_rtt(routers):
    """On-demand F5 loopbacks r -> a1 -> r: the cell leaves at once and each
    end handles the other's cell as it arrives (no ring or concatenation
    timer on the way), so a round trip takes well under a millisecond."""
    r, _ = routers
    out = rc.request(r, "POST", "/restconf/operations/cellgate:vc-ping",
                     {"cellgate:input": {"port": "atm0", "vpi": 0, "vci": 100,
                                         "count": 10}}, timeout=30)
    assert out.status == 200, out
    o = out.json()["cellgate:output"]
    rtts = [x["rtt"] for x in o["reply"]]
    print("OAM loopback 0/100: %d of %d answered, RTT us %s" % (o["received"], o["sent"], rtts))
    assert o["received"] == o["sent"] == 10
    assert lab.percentile(rtts, 0.5) < 500, rtts
