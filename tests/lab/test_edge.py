# SPDX-License-Identifier: BSD-2-Clause
"""Edge cases of the datapath, each against a daemon with its own config.

The topology of this module has r-h2 at MTU 1280 (h2's side stays at 1500),
so h1 -> h2 packets above 1280 bytes hit cellgated's egress MTU check.
What a reader learns here: oversize packets are dropped (DF: with ICMP
"fragmentation needed" carrying the MTU, which is enough for TCP PMTUD), ICMP
errors obey the per-worker token bucket, IP options follow the ip-options
policy, promiscuous ports see foreign unicast but never forward it, routes can
discard with or without ICMP, directed broadcast and martian sources never
cross the router.
"""

import json
import subprocess
import time

import pytest
from scapy.all import (IP, UDP, Ether, IPOption_NOP, IPOption_Router_Alert,
                       Raw)

import lab

# Run on both Ethernet drivers (conftest.py: test ids [afpacket], [afxdp]).
LAB_DRIVERS = lab.DRIVERS_ALL

MTU = 1280
SINK = 9999          # UDP port h2 listens on (no port unreachables)
FOREIGN_MAC = "02:00:00:00:00:99"


@pytest.fixture(scope="module")
def topo_options():
    return {"mtu": {"r-h2": MTU}}


def config(**system):
    kw = {k: v for k, v in system.items()
          if k in ("extra_port", "extra_routes")}
    sysleaves = {k.replace("_", "-"): v for k, v in system.items()
                 if k not in kw}
    return lab.default_config(extra_system=sysleaves, **kw)


port = lab.port_of


delta = lab.counter_delta


def warm(topo, dst="10.0.2.2"):
    """Resolve h1 -> router and router -> dst, so nothing waits on ARP."""
    p = topo.exec("h1", ["ping", "-n", "-c", "1", "-W", "2", dst],
                  timeout=10)
    assert p.returncode == 0, p.stdout + p.stderr


def h1_frame(topo, ip_pkt, dmac=None):
    """An Ethernet frame from h1 to the router (or dmac) carrying ip_pkt."""
    return bytes(Ether(src=topo.mac("h1", "h1-r"),
                       dst=dmac or topo.mac("r", "r-h1")) / ip_pkt)


def udp_packet(dst, size, df, src="10.0.1.2", sport=40001):
    """IPv4/UDP to h2's sink port with IP total length `size`."""
    return (IP(src=src, dst=dst, ttl=64, flags="DF" if df else 0) /
            UDP(sport=sport, dport=SINK) / Raw(b"m" * (size - 28)))


def settle():
    """Let in-flight frames (ICMP errors, forwarded copies) land."""
    time.sleep(0.3)


def icmp_errors(sniffer, **match):
    """ICMP errors that reached h1 from the router's h1-side address."""
    return [f for f in sniffer.incoming(proto=1, src="10.0.1.1", **match)
            if f.get("icmp_type") in (3, 11)]


def test_router_netdev_mtu(topo, start_daemon):
    """The topology option took effect before the daemon started."""
    start_daemon()
    assert topo.link("r", "r-h2")["mtu"] == MTU
    assert topo.link("h2", "h2-r")["mtu"] == 1500


def test_mtu_exceeded_with_df_frag_needed(topo, start_daemon):
    """1280 bytes pass; 1281 bytes with DF are dropped with ICMP type 3
    code 4 naming MTU 1280 and quoting the dropped header."""
    d = start_daemon()
    warm(topo)
    fits = h1_frame(topo, udp_packet("10.0.2.2", MTU, df=True))
    big = h1_frame(topo, udp_packet("10.0.2.2", MTU + 1, df=True,
                                    sport=40002))
    before = port(d, "eth0")
    with lab.Sniffer(topo, "h1", "h1-r") as s1, \
            lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as s2:
        lab.send_frames(topo, "h1", "h1-r", [fits, big], count=3,
                        interval=0.05)
        lab.wait_for(lambda: delta(before, port(d, "eth0"),
                                   "mtu-exceeded") >= 3, timeout=3)
        settle()
    after = port(d, "eth0")
    assert delta(before, after, "mtu-exceeded") == 3
    assert delta(before, after, "forwarded") == 3
    assert delta(before, after, "icmp-out") == 3
    arrived = s2.incoming(dst="10.0.2.2", dport=SINK)
    assert [f["tot"] for f in arrived] == [MTU] * 3, arrived
    assert s2.sink == 3
    errs = icmp_errors(s1)
    assert len(errs) == 3, s1.frames
    for e in errs:
        assert (e["icmp_type"], e["icmp_code"], e["icmp_mtu"]) == \
            (3, 4, MTU), e
        assert e["dst"] == "10.0.1.2"
        assert e["inner"]["dst"] == "10.0.2.2" and \
            e["inner"]["tot"] == MTU + 1 and e["inner"]["dport"] == SINK, e


def test_fragmented_without_df(topo, start_daemon):
    """No DF: the router fragments (RFC 1812 4.2.2.7) into pieces that fit
    the 1280-byte link; h2's stack reassembles every datagram, no ICMP."""
    d = start_daemon()
    warm(topo)
    big = h1_frame(topo, udp_packet("10.0.2.2", 1400, df=False))
    before = port(d, "eth0")
    with lab.Sniffer(topo, "h1", "h1-r") as s1, \
            lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as s2:
        lab.send_frames(topo, "h1", "h1-r", [big], count=5, interval=0.02)
        lab.wait_for(lambda: delta(before, port(d, "eth0"),
                                   "forwarded") >= 5, timeout=3)
        settle()
    after = port(d, "eth0")
    assert delta(before, after, "mtu-exceeded") == 0
    assert delta(before, after, "forwarded") == 5
    assert delta(before, after, "fragmented") == 5
    assert delta(before, after, "fragments-out") == 10
    assert delta(before, after, "icmp-out") == 0
    assert icmp_errors(s1) == [], s1.frames
    pieces = s2.incoming(dst="10.0.2.2")
    assert len(pieces) == 10, pieces
    assert all(f["tot"] <= MTU for f in pieces), pieces
    assert s2.sink == 5  # reassembled by h2's kernel, UDP checksum intact


def test_pmtud_tcp_iperf3(topo, start_daemon):
    """TCP h1 -> h2 (MSS 1460 both ways) learns the 1280 path MTU from the
    router's frag-needed and completes."""
    d = start_daemon()
    dst = "10.20.0.1"  # nothing in this module sent to it: no cached PMTU
    route = topo.exec("h1", ["ip", "route", "get", dst], check=True).stdout
    assert " mtu " not in route, route
    srv = topo.popen("h2", ["iperf3", "-s", "-1", "-p", "5202"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert lab.wait_for(lambda: ":5202" in topo.exec(
            "h2", ["ss", "-ltnH"]).stdout, timeout=5), "no iperf3 server"
        before = port(d, "eth0")
        p = topo.exec("h1", ["iperf3", "-c", dst, "-p", "5202", "-t", "2",
                             "-J", "--connect-timeout", "3000"], timeout=30)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr
        res = json.loads(p.stdout)
        got = res["end"]["sum_received"]["bytes"]
        assert got > 1000000, res["end"]
    finally:
        srv.kill()
        srv.wait(timeout=5)
    after = port(d, "eth0")
    assert delta(before, after, "mtu-exceeded") >= 1
    assert delta(before, after, "icmp-out") >= 1
    route = topo.exec("h1", ["ip", "route", "get", dst], check=True).stdout
    assert " mtu %d" % MTU in route, route
    print("iperf3 over PMTU %d: %.1f Mbit/s, %d mtu drops" % (
        MTU, res["end"]["sum_received"]["bits_per_second"] / 1e6,
        delta(before, after, "mtu-exceeded")))


def test_icmp_rate_limit(topo, start_daemon):
    """100 TTL=1 packets in ~1 s against 10/s with a burst of 5: every one
    counts as ttl-expired, only burst + rate * time get an ICMP."""
    d = start_daemon(config(icmp_rate_limit=10, icmp_burst=5))
    warm(topo)
    before = port(d, "eth0")
    with lab.Sniffer(topo, "h1", "h1-r") as s1:
        r = lab.send_udp(topo, "h1", "10.0.2.2", count=100, interval=0.01,
                         ttl=1)
        assert r["sent"] == 100, r
        lab.wait_for(lambda: delta(before, port(d, "eth0"),
                                   "ttl-expired") >= 100, timeout=3)
        settle()
    after = port(d, "eth0")
    sent_icmp = delta(before, after, "icmp-out")
    limited = delta(before, after, "icmp-ratelimited")
    assert delta(before, after, "ttl-expired") == 100
    assert sent_icmp + limited == 100, (sent_icmp, limited)
    # Burst, then one token per 100 ms of the sending window.
    expect = 5 + 10 * r["elapsed"]
    assert expect - 4 <= sent_icmp <= expect + 2, (sent_icmp, r)
    seen = icmp_errors(s1, icmp_type=11)
    assert len(seen) == sent_icmp, (len(seen), sent_icmp)
    print("icmp rate limit: %d sent, %d suppressed in %.2f s" %
          (sent_icmp, limited, r["elapsed"]))


def test_icmp_rate_limit_zero_disables(topo, start_daemon):
    d = start_daemon(config(icmp_rate_limit=0))
    warm(topo)
    before = port(d, "eth0")
    with lab.Sniffer(topo, "h1", "h1-r") as s1:
        lab.send_udp(topo, "h1", "10.0.2.2", count=5, interval=0.02, ttl=1)
        lab.send_udp(topo, "h1", "10.123.0.1", count=5, interval=0.02)
        lab.wait_for(lambda: delta(before, port(d, "eth0"),
                                   "no-route") >= 5, timeout=3)
        settle()
    after = port(d, "eth0")
    assert delta(before, after, "ttl-expired") == 5
    assert delta(before, after, "no-route") == 5
    assert delta(before, after, "icmp-out") == 0
    assert icmp_errors(s1) == [], s1.frames


@pytest.mark.parametrize("policy", ["drop", "forward"])
def test_ip_options_policy(topo, start_daemon, policy):
    """Router Alert and NOP options: counted as ip-options under "drop";
    under "forward" delivered to h2 with the options untouched."""
    d = start_daemon(config(ip_options=policy))
    warm(topo)
    pkts = [IP(src="10.0.1.2", dst="10.0.2.2", ttl=64,
               options=[IPOption_Router_Alert()]) /
            UDP(sport=40003, dport=SINK) / Raw(b"router-alert"),
            IP(src="10.0.1.2", dst="10.0.2.2", ttl=64,
               options=[IPOption_NOP()] * 8) /
            UDP(sport=40004, dport=SINK) / Raw(b"nops")]
    frames = [h1_frame(topo, p) for p in pkts]
    opts = [bytes(p)[20:(bytes(p)[0] & 15) * 4].hex() for p in pkts]
    assert opts == ["94040000", "01" * 8], opts
    before = port(d, "eth0")
    with lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as s2:
        lab.send_frames(topo, "h1", "h1-r", frames, count=5, interval=0.02)
        key = "forwarded" if policy == "forward" else "ip-options"
        lab.wait_for(lambda: delta(before, port(d, "eth0"), key) >= 10,
                     timeout=3)
        settle()
    after = port(d, "eth0")
    arrived = s2.incoming(dst="10.0.2.2", dport=SINK)
    if policy == "drop":
        assert delta(before, after, "ip-options") == 10
        assert delta(before, after, "forwarded") == 0
        assert arrived == []
        return
    assert delta(before, after, "ip-options") == 0
    assert delta(before, after, "forwarded") == 10
    assert len(arrived) == 10, s2.frames
    for o in opts:
        got = [f for f in arrived if f["opts"] == o]
        assert len(got) == 5, (o, arrived)
    for f in arrived:
        assert f["ttl"] == 63 and f["csum_ok"], f
        assert f["ihl"] == 20 + len(f["opts"]) // 2, f
    assert s2.sink == 10


def test_promiscuous_port_counts_other_host(topo, start_daemon):
    """promiscuous on eth0: unicast for a foreign MAC reaches cellgated,
    is counted as l2-other-host and never forwarded."""
    d = start_daemon(config(extra_port={"eth0": {"promiscuous": True}}))
    info = json.loads(topo.exec("r", ["ip", "-d", "-j", "link", "show",
                                      "r-h1"], check=True).stdout)[0]
    assert info["promiscuity"] >= 1, info
    warm(topo)
    frame = h1_frame(topo, udp_packet("10.0.2.2", 100, df=False),
                     dmac=FOREIGN_MAC)
    before = port(d, "eth0")
    with lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as s2:
        lab.send_frames(topo, "h1", "h1-r", [frame], count=20)
        lab.wait_for(lambda: delta(before, port(d, "eth0"),
                                   "l2-other-host") >= 20, timeout=3)
        settle()
    after = port(d, "eth0")
    assert delta(before, after, "l2-other-host") == 20
    assert delta(before, after, "rx-packets") == 20
    assert delta(before, after, "forwarded") == 0
    assert s2.incoming(dport=SINK) == [] and s2.sink == 0


def test_non_promiscuous_port_counts_other_host(topo, start_daemon):
    """promiscuous false (default): the port is not put in promiscuous mode.
    A real NIC's MAC filter then hides frames for other hosts, but a veth has
    no filter and hands them to every ETH_P_ALL socket (sll_pkttype
    PACKET_OTHERHOST), so they reach the worker anyway: each one is counted
    as l2-other-host and none is forwarded."""
    d = start_daemon()
    info = json.loads(topo.exec("r", ["ip", "-d", "-j", "link", "show",
                                      "r-h1"], check=True).stdout)[0]
    assert info["promiscuity"] == 0, info
    warm(topo)
    frame = h1_frame(topo, udp_packet("10.0.2.2", 100, df=False),
                     dmac=FOREIGN_MAC)
    before = port(d, "eth0")
    lab.send_frames(topo, "h1", "h1-r", [frame], count=20)
    # Positive control in the same window: a frame for the router counts.
    good = h1_frame(topo, udp_packet("10.0.2.2", 100, df=False))
    lab.send_frames(topo, "h1", "h1-r", [good], count=1)
    lab.wait_for(lambda: delta(before, port(d, "eth0"), "forwarded") >= 1,
                 timeout=3)
    settle()
    after = port(d, "eth0")
    assert delta(before, after, "forwarded") == 1
    assert delta(before, after, "l2-other-host") == 20, after["drops"]
    assert delta(before, after, "rx-packets") == 21


def test_unreachable_and_blackhole_routes(topo, start_daemon):
    """action unreachable: dropped with ICMP net unreachable; blackhole:
    dropped silently; a more specific forward route inside the unreachable
    prefix still forwards."""
    d = start_daemon(config(extra_routes=[
        {"prefix": "10.55.0.0/16", "action": "unreachable"},
        {"prefix": "10.55.1.0/24", "nexthop": [{"address": "10.0.2.2"}]}]))
    warm(topo)
    before = port(d, "eth0")
    with lab.Sniffer(topo, "h1", "h1-r") as s1, \
            lab.Sniffer(topo, "h2", "h2-r") as s2:
        for dst in ("10.55.0.1", "10.66.0.1", "10.55.1.1"):
            lab.send_udp(topo, "h1", dst, count=3, interval=0.02)
        lab.wait_for(lambda: delta(before, port(d, "eth0"),
                                   "forwarded") >= 3, timeout=3)
        settle()
    after = port(d, "eth0")
    assert delta(before, after, "unreachable") == 3
    assert delta(before, after, "blackhole") == 3
    assert delta(before, after, "forwarded") == 3
    assert delta(before, after, "icmp-out") == 3
    errs = icmp_errors(s1)
    assert len(errs) == 3, s1.frames
    for e in errs:
        assert (e["icmp_type"], e["icmp_code"]) == (3, 0), e
        assert e["inner"]["dst"] == "10.55.0.1", e
    assert len(s2.incoming(dst="10.55.1.1", dport=SINK)) == 3
    assert s2.incoming(dst="10.55.0.1") == [] and \
        s2.incoming(dst="10.66.0.1") == []


def test_directed_broadcast_to_kernel(topo, start_daemon):
    """10.0.2.255 from h1 is the router's own business: to-kernel, never
    forwarded onto h2's subnet."""
    d = start_daemon()
    warm(topo)
    before = port(d, "eth0")
    with lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as s2:
        lab.send_udp(topo, "h1", "10.0.2.255", count=5, interval=0.02,
                     broadcast=True)
        lab.wait_for(lambda: delta(before, port(d, "eth0"),
                                   "to-kernel") >= 5, timeout=3)
        settle()
    after = port(d, "eth0")
    assert delta(before, after, "to-kernel") == 5
    assert delta(before, after, "forwarded") == 0
    assert delta(before, after, "drops-total") == 0
    assert s2.incoming(dst="10.0.2.255") == [] and s2.sink == 0


@pytest.mark.parametrize("src", ["127.0.0.1", "0.0.0.0", "224.0.0.5",
                                 "240.0.0.1"])
def test_martian_source_dropped(topo, start_daemon, src):
    d = start_daemon()
    warm(topo)
    frame = h1_frame(topo, udp_packet("10.0.2.2", 100, df=False, src=src))
    before = port(d, "eth0")
    with lab.Sniffer(topo, "h1", "h1-r") as s1, \
            lab.Sniffer(topo, "h2", "h2-r", sink_port=SINK) as s2:
        lab.send_frames(topo, "h1", "h1-r", [frame], count=5)
        lab.wait_for(lambda: delta(before, port(d, "eth0"),
                                   "ip-bad-source") >= 5, timeout=3)
        settle()
    after = port(d, "eth0")
    assert delta(before, after, "ip-bad-source") == 5
    assert delta(before, after, "forwarded") == 0
    assert delta(before, after, "icmp-out") == 0
    assert icmp_errors(s1) == []
    assert s2.incoming(dport=SINK) == [] and s2.sink == 0
