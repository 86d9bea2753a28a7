# SPDX-License-Identifier: BSD-2-Clause
"""ARP neighbour resolution in cellgated, watched from both sides.

Each test starts its own daemon (fresh neighbour table) with the timers it
needs, and watches the wire with AF_PACKET sniffers in h1 and h2.

What a reader learns here: the first packets to an unresolved next hop are
held (4 per destination, 256 per worker, the excess counted as
arp-hold-full) while ARP asks once a second; after arp-retries unanswered
requests the neighbour is failed, and held and new packets are dropped as
arp-failed with ICMP host unreachable; 10 s later the failed entry is
forgotten.  A reachable entry older than arp-timeout is re-probed (unicast,
then broadcast) while forwarding continues, and fails if nobody answers.
10.77.0.0/24 is routed via 10.0.2.99, an address nobody on h2's link owns.
"""

import json
import subprocess
import time

import pytest

import lab

# Run on both Ethernet drivers (conftest.py: test ids [afpacket], [afxdp]).
LAB_DRIVERS = lab.DRIVERS_ALL

SINK = 9999
BCAST = "ff:ff:ff:ff:ff:ff"
DEAD_GW = "10.0.2.99"      # gateway of 10.77.0.0/24 in the lab config


def config(**system):
    return lab.default_config(
        extra_system={k.replace("_", "-"): v for k, v in system.items()})


port = lab.port_of


delta = lab.counter_delta


def neighbor(stats, address):
    found = [n for n in stats["neighbors"] if n["address"] == address]
    assert len(found) <= 1, found
    return found[0] if found else None


def state(d, address):
    n = neighbor(d.stats(), address)
    return n["state"] if n else None


def wait_state(d, address, want, timeout):
    """Poll until the neighbour is in state want (None: gone); return the
    monotonic time it was first seen so, or None on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if state(d, address) == want:
            return time.monotonic()
        time.sleep(0.05)
    return None


def warm_h1(topo):
    """h1 knows the router's MAC, so h1's own ARP never delays a test."""
    p = topo.exec("h1", ["ping", "-n", "-c", "1", "-W", "2", "10.0.1.1"],
                  timeout=10)
    assert p.returncode == 0, p.stdout + p.stderr


def arp_requests(sniffer, target, router_mac):
    """ARP requests from the router for target, as seen arriving in h2."""
    return [f for f in sniffer.incoming(type=0x0806, op=1, tpa=target)
            if f["smac"] == router_mac]


def host_unreachables(sniffer, inner_dst):
    return [f for f in sniffer.incoming(proto=1, src="10.0.1.1")
            if (f.get("icmp_type"), f.get("icmp_code")) == (3, 1) and
            f["inner"]["dst"] == inner_dst]


@pytest.mark.parametrize("leaf,value", [
    ("arp-timeout", 0), ("arp-timeout", 86401), ("arp-retries", 0),
    ("arp-retries", 11), ("icmp-burst", 0), ("ip-options", "sometimes"),
])
def test_timer_leaves_range_checked(cellgated_bin, tmp_path, leaf, value):
    """The YANG ranges (arp-timeout 1..86400, arp-retries 1..10, icmp-burst
    >= 1) and enums are enforced; the smallest legal values load."""
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(config(**{leaf: value})))
    p = subprocess.run([cellgated_bin, "-n", "-f", str(path)],
                       capture_output=True, text=True, timeout=20)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert leaf in p.stdout + p.stderr
    path.write_text(json.dumps(config(arp_timeout=1, arp_retries=1,
                                      icmp_burst=1, icmp_rate_limit=0)))
    p = subprocess.run([cellgated_bin, "-n", "-f", str(path)],
                       capture_output=True, text=True, timeout=20)
    assert p.returncode == 0, p.stderr
    sysleaves = json.loads(p.stdout)["cellgate:cellgate"]["system"]
    assert (sysleaves["arp-timeout"], sysleaves["arp-retries"]) == (1, 1)


def test_first_packets_held_until_resolved(topo, start_daemon):
    """Three datagrams to an unresolved host: one broadcast request, all
    three delivered once the reply is in, none dropped."""
    d = start_daemon()
    warm_h1(topo)
    rmac = topo.mac("r", "r-h2")
    h2mac = topo.mac("h2", "h2-r")
    s0 = d.stats()
    assert neighbor(s0, "10.0.2.2") is None
    with lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as sn:
        lab.send_udp(topo, "h1", "10.0.2.2", count=3)
        lab.wait_for(lambda: delta(port(d, "eth0", s0), port(d, "eth0"),
                                   "forwarded") >= 3, timeout=3)
        time.sleep(0.2)
    s1 = d.stats()
    reqs = arp_requests(sn, "10.0.2.2", rmac)
    assert len(reqs) == 1 and reqs[0]["dmac"] == BCAST, reqs
    assert reqs[0]["spa"] == "10.0.2.1"
    assert sn.sink == 3
    assert delta(port(d, "eth0", s0), port(d, "eth0", s1), "forwarded") == 3
    assert delta(port(d, "eth0", s0), port(d, "eth0", s1),
                 "drops-total") == 0
    assert s1["arp"]["requests-sent"] - s0["arp"]["requests-sent"] == 1
    assert s1["arp"]["replies-learned"] > s0["arp"]["replies-learned"]
    n = neighbor(s1, "10.0.2.2")
    assert n == {"port": "eth1", "address": "10.0.2.2", "mac": h2mac,
                 "state": "reachable"}, n


@pytest.mark.parametrize("retries", [1, 3])
def test_arp_retries_then_failed(topo, start_daemon, retries):
    """arp-retries requests one second apart, then failed: the held packet
    is dropped as arp-failed with ICMP host unreachable."""
    d = start_daemon(config(arp_retries=retries))
    warm_h1(topo)
    rmac = topo.mac("r", "r-h2")
    s0 = d.stats()
    with lab.Sniffer(topo, "h2", "h2-r") as s2, \
            lab.Sniffer(topo, "h1", "h1-r") as s1:
        lab.send_udp(topo, "h1", "10.77.0.1", count=1)
        assert lab.wait_for(lambda: state(d, DEAD_GW) == "incomplete",
                            timeout=2)
        assert port(d, "eth0")["drops-total"] == 0  # held, not dropped
        t_failed = wait_state(d, DEAD_GW, "failed", timeout=retries + 3)
        assert t_failed, d.stats()["neighbors"]
        time.sleep(0.3)
    s_end = d.stats()
    reqs = arp_requests(s2, DEAD_GW, rmac)
    assert len(reqs) == retries, reqs
    assert all(r["dmac"] == BCAST and r["spa"] == "10.0.2.1" for r in reqs)
    gaps = [b["t"] - a["t"] for a, b in zip(reqs, reqs[1:])]
    assert all(0.8 <= g <= 1.4 for g in gaps), gaps
    # Failed one retry interval after the last request.
    assert 0.7 <= t_failed - reqs[-1]["t"] <= 1.6, t_failed - reqs[-1]["t"]
    e0, e1 = port(d, "eth0", s0), port(d, "eth0", s_end)
    assert delta(e0, e1, "arp-failed") == 1
    assert delta(e0, e1, "drops-total") == 1
    assert s_end["arp"]["requests-sent"] - s0["arp"]["requests-sent"] == \
        retries
    assert s_end["arp"]["resolve-failed"] - s0["arp"]["resolve-failed"] == 1
    icmp = host_unreachables(s1, "10.77.0.1")
    assert len(icmp) == 1, s1.frames
    assert icmp[0]["t"] >= reqs[-1]["t"]


def test_hold_limit_per_destination(topo, start_daemon):
    """10 packets to a silent gateway: 4 held, 6 arp-hold-full; the 4 end
    as arp-failed with ICMP.  Other destinations resolve meanwhile, and
    packets to the failed neighbour are dropped at once."""
    d = start_daemon(config(arp_retries=1))
    warm_h1(topo)
    s0 = d.stats()
    with lab.Sniffer(topo, "h1", "h1-r") as s1, \
            lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as s2:
        lab.send_udp(topo, "h1", "10.77.0.1", count=10)
        time.sleep(0.2)
        mid = port(d, "eth0")
        lab.send_udp(topo, "h1", "10.0.2.2", count=3)
        assert lab.wait_for(lambda: delta(port(d, "eth0", s0),
                                          port(d, "eth0"), "forwarded") >= 3,
                            timeout=2)
        assert wait_state(d, DEAD_GW, "failed", timeout=4)
        time.sleep(0.3)
        failed = port(d, "eth0")
        lab.send_udp(topo, "h1", "10.77.0.1", count=10)
        time.sleep(0.3)
    s_end = d.stats()
    e0 = port(d, "eth0", s0)
    assert delta(e0, mid, "arp-hold-full") == 6
    assert delta(e0, mid, "arp-failed") == 0
    assert delta(e0, failed, "arp-failed") == 4
    assert delta(e0, failed, "forwarded") == 3
    assert s2.sink == 3
    # While failed: no hold, no new request, immediate drop with ICMP.
    e_end = port(d, "eth0", s_end)
    assert delta(failed, e_end, "arp-failed") == 10
    assert delta(failed, e_end, "arp-hold-full") == 0
    assert s_end["arp"]["requests-sent"] - s0["arp"]["requests-sent"] == 2
    assert len(host_unreachables(s1, "10.77.0.1")) == 14


def test_hold_limit_per_worker(topo, start_daemon):
    """4 packets to each of 70 silent on-link hosts: 256 held (one worker),
    24 counted as arp-hold-full; every host still gets its ARP request."""
    hosts = ["10.0.2.%d" % i for i in range(100, 170)]
    d = start_daemon(config(arp_retries=1))
    warm_h1(topo)
    s0 = d.stats()
    send = ("import socket\n"
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "for h in %r:\n"
            "    for i in range(4):\n"
            "        s.sendto(b'hold', (h, %d))\n" % (hosts, SINK))
    p = topo.exec("h1", [lab.PYTHON, "-c", send], timeout=20)
    assert p.returncode == 0, p.stderr
    time.sleep(0.3)
    mid = d.stats()
    e0 = port(d, "eth0", s0)
    em = port(d, "eth0", mid)
    assert delta(e0, em, "arp-hold-full") == 70 * 4 - 256
    assert delta(e0, em, "arp-failed") == 0
    assert mid["arp"]["requests-sent"] - s0["arp"]["requests-sent"] == 70
    states = {h: (neighbor(mid, h) or {}).get("state") for h in hosts}
    assert set(states.values()) == {"incomplete"}, states
    assert lab.wait_for(lambda: delta(e0, port(d, "eth0"), "arp-failed")
                        >= 256, timeout=4)
    e_end = port(d, "eth0")
    assert delta(e0, e_end, "arp-failed") == 256
    assert delta(e0, e_end, "icmp-out") + \
        delta(e0, e_end, "icmp-ratelimited") == 256


def test_failed_neighbor_forgotten(topo, start_daemon):
    """A failed entry drops traffic without asking again; 10 s after the
    failure it is forgotten and the next packet asks again."""
    d = start_daemon(config(arp_retries=1))
    warm_h1(topo)
    rmac = topo.mac("r", "r-h2")
    with lab.Sniffer(topo, "h2", "h2-r") as s2:
        lab.send_udp(topo, "h1", "10.77.0.1", count=1)
        t_failed = wait_state(d, DEAD_GW, "failed", timeout=4)
        assert t_failed
        s_failed = d.stats()
        lab.send_udp(topo, "h1", "10.77.0.1", count=3, interval=0.5)
        lab.wait_for(lambda: delta(port(d, "eth0", s_failed),
                                   port(d, "eth0"), "arp-failed") >= 3,
                     timeout=2)
        s_during = d.stats()
        assert s_during["arp"]["requests-sent"] == \
            s_failed["arp"]["requests-sent"]
        assert delta(port(d, "eth0", s_failed), port(d, "eth0", s_during),
                     "arp-failed") == 3
        t_gone = wait_state(d, DEAD_GW, None, timeout=13)
        assert t_gone, d.stats()["neighbors"]
        s_gone = d.stats()
        assert s_gone["arp"]["entries"] == s_failed["arp"]["entries"] - 1
        t_ask = time.monotonic()
        lab.send_udp(topo, "h1", "10.77.0.1", count=1)
        assert lab.wait_for(lambda: state(d, DEAD_GW) == "incomplete",
                            timeout=2)
        time.sleep(0.2)
    # 10 s; the upper bound leaves room for stats polling on a loaded machine.
    assert 9.0 <= t_gone - t_failed <= 12.0, t_gone - t_failed
    s_end = d.stats()
    assert s_end["arp"]["requests-sent"] == s_gone["arp"]["requests-sent"] + 1
    reqs = arp_requests(s2, DEAD_GW, rmac)
    assert len(reqs) == 2, reqs
    assert reqs[1]["t"] >= t_ask


def stream(topo, dst, seconds, interval=0.1):
    """A paced UDP stream h1 -> dst for `seconds`; returns when it has ended."""
    code = ("import socket, time\n"
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "t0 = time.monotonic()\n"
            "for i in range(%d):\n"
            "    time.sleep(max(0, t0 + i * %r - time.monotonic()))\n"
            "    s.sendto(b'stream', (%r, %d))\n" %
            (int(seconds / interval), interval, dst, SINK))
    sender = topo.popen("h1", [lab.PYTHON, "-c", code],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert sender.wait(timeout=seconds + 10) == 0, sender.stderr.read()
    finally:
        if sender.poll() is None:
            sender.kill()
            sender.wait(timeout=5)


def test_reachable_entry_reprobed(topo, start_daemon):
    """arp-timeout 2: while traffic flows the entry is re-probed every ~2 s
    by unicast, h2 answers, nothing is lost and nothing is broadcast."""
    d = start_daemon(config(arp_timeout=2))
    warm_h1(topo)
    rmac = topo.mac("r", "r-h2")
    h2mac = topo.mac("h2", "h2-r")
    with lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as s2:
        lab.send_udp(topo, "h1", "10.0.2.2", count=1)
        assert wait_state(d, "10.0.2.2", "reachable", timeout=2)
        stream(topo, "10.0.2.2", 5.0)
        time.sleep(0.2)
        n = neighbor(d.stats(), "10.0.2.2")
    assert n["state"] == "reachable" and n["mac"] == h2mac, n
    reqs = arp_requests(s2, "10.0.2.2", rmac)
    assert reqs and reqs[0]["dmac"] == BCAST, reqs   # the first resolution
    probes = reqs[1:]
    assert len(probes) >= 2, reqs
    assert all(p["dmac"] == h2mac for p in probes), probes
    replies = s2.outgoing(type=0x0806, op=2, spa="10.0.2.2")
    # Probe i+1 is arp-timeout after the reply to probe i.
    for prev, nxt in zip(reqs, probes):
        after = [r["t"] for r in replies if r["t"] >= prev["t"]]
        assert after, replies
        assert 1.9 <= nxt["t"] - after[0] <= 2.4, (prev, nxt, after[0])
    assert s2.sink == 1 + 50, s2.sink
    assert port(d, "eth0")["drops-total"] == 0


def test_reprobe_unanswered_fails(topo, start_daemon):
    """arp-timeout 2, arp-retries 2, and h2 stops answering ARP: forwarding
    goes on through the unicast then the broadcast probe, then the entry
    fails and packets are dropped as arp-failed with ICMP."""
    d = start_daemon(config(arp_timeout=2, arp_retries=2))
    warm_h1(topo)
    rmac = topo.mac("r", "r-h2")
    h2mac = topo.mac("h2", "h2-r")
    try:
        with lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as s2, \
                lab.Sniffer(topo, "h1", "h1-r") as s1:
            lab.send_udp(topo, "h1", "10.0.2.2", count=1)
            assert wait_state(d, "10.0.2.2", "reachable", timeout=2)
            topo.exec("h2", ["ip", "link", "set", "h2-r", "arp", "off"],
                      check=True)
            s0 = d.stats()
            stream(topo, "10.0.2.2", 6.0)
            time.sleep(0.2)
            s_end = d.stats()
    finally:
        topo.exec("h2", ["ip", "link", "set", "h2-r", "arp", "on"],
                  check=True)
    n = neighbor(s_end, "10.0.2.2")
    assert n["state"] == "failed", n
    reqs = arp_requests(s2, "10.0.2.2", rmac)
    assert [r["dmac"] for r in reqs] == [BCAST, h2mac, BCAST], reqs
    resolved = s2.outgoing(type=0x0806, op=2, spa="10.0.2.2")[0]["t"]
    assert 1.9 <= reqs[1]["t"] - resolved <= 2.4, reqs
    assert 0.8 <= reqs[2]["t"] - reqs[1]["t"] <= 1.4, reqs
    e0, e1 = port(d, "eth0", s0), port(d, "eth0", s_end)
    # Failed one interval after the broadcast probe, ~4 s after resolving:
    # of 60 packets sent from ~0 s to 6 s, about 40 forwarded, 20 dropped.
    fwd, failed = delta(e0, e1, "forwarded"), delta(e0, e1, "arp-failed")
    assert fwd + failed == 60, (fwd, failed)
    assert 30 <= fwd <= 45 and failed >= 15, (fwd, failed)
    assert s2.sink == 1 + fwd
    assert s_end["arp"]["resolve-failed"] - s0["arp"]["resolve-failed"] == 1
    assert len(host_unreachables(s1, "10.0.2.2")) == failed


def test_table_size_bounded(topo, start_daemon):
    """A scan of 60 silent on-link hosts with arp-max-entries 16: 16 entries,
    the other 44 not resolved and counted as table-full (their packets end
    as arp-failed); once the failed entries are forgotten (10 s), new
    neighbours fit again."""
    hosts = ["10.0.2.%d" % i for i in range(100, 160)]
    d = start_daemon(config(arp_retries=1, arp_max_entries=16))
    warm_h1(topo)
    s0 = d.stats()
    send = ("import socket\n"
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "for h in %r:\n"
            "    s.sendto(b'scan', (h, %d))\n" % (hosts, SINK))
    p = topo.exec("h1", [lab.PYTHON, "-c", send], timeout=20)
    assert p.returncode == 0, p.stderr
    time.sleep(0.5)
    mid = d.stats()
    assert mid["arp"]["entries"] <= 16, mid["arp"]
    held = [h for h in hosts if neighbor(mid, h)]
    assert len(held) <= 16 and len(held) >= 15, held  # h1's own entry may take one
    assert mid["arp"]["table-full"] - s0["arp"]["table-full"] >= 60 - 16
    assert "the neighbour table is full (16 entries" in d.log()
    import restconf as rc
    assert int(rc.state(d)["arp"]["table-full"]) == mid["arp"]["table-full"]
    # The failed entries go after 10 s; then a new neighbour is resolved again.
    assert lab.wait_for(lambda: d.stats()["arp"]["entries"] <= 2, timeout=16)
    assert topo.exec("h1", ["ping", "-c", "1", "-W", "2", "10.0.2.2"]).returncode == 0
