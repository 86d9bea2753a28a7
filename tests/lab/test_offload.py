# SPDX-License-Identifier: BSD-2-Clause
"""Hosts with TSO/GSO and TX checksum offload left on (veth defaults).

What a reader learns here: a host's TCP stack hands its veth super-packets of
up to 64 KiB with partial checksums, and cellgated receives them as such.
Through PACKET_VNET_HDR it forwards each one whole, TTL decremented once, and
the kernel segments it on the way out; so "forwarded" counts super-packets,
far fewer than the segments the receiver gets.  The MTU still applies per
segment: a smaller egress MTU sends frag-needed back (RFC 1191), the sender
shrinks its segments, and the flow goes on as super-packets.

On driver afxdp the same hosts send no super-packets at all: while an XDP
program without multi-buffer support is attached to the router's veth, the
kernel takes TSO off its peer (the host's veth: "tcp-segmentation-offload:
off", "tx-tcp-segmentation: off [fixed]"), so segments arrive one by one,
still with the TCP checksum left to offload; cellgated recognises and
completes it (the XSK carries no offload state), and TCP runs at full size
and through the smaller MTU alike.
"""

import json
import subprocess

import pytest

import lab

# Run on both Ethernet drivers (conftest.py: test ids [afpacket], [afxdp]).
LAB_DRIVERS = lab.DRIVERS_ALL

MSS = 1448  # 1500 - 20 - 20 - 12 bytes of TCP timestamps
SMALL_MTU = 1280


@pytest.fixture(scope="module")
def topo_options():
    # h1 - r - h3 goes through an egress MTU of 1280; h1 - r - h2 does not.
    return {"offloads": True, "mtu": {"r-h3": SMALL_MTU}}


port = lab.port_of


delta = lab.counter_delta


def iperf3(topo, dst, port_no, seconds=3):
    """TCP h1 -> dst for `seconds`; the parsed iperf3 JSON result."""
    host = "h2" if dst.startswith("10.0.2.") else "h3"
    srv = topo.popen(host, ["iperf3", "-s", "-1", "-p", str(port_no)],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert lab.wait_for(lambda: ":%d" % port_no in topo.exec(
            host, ["ss", "-ltnH"]).stdout, timeout=5), "no iperf3 server"
        p = topo.exec("h1", ["iperf3", "-c", dst, "-p", str(port_no), "-t",
                             str(seconds), "-J", "--connect-timeout", "3000"],
                      timeout=30)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr
        return json.loads(p.stdout)
    finally:
        srv.kill()
        srv.wait(timeout=5)


def assert_accounting(router):
    ok = lab.wait_for(lambda: not lab.accounting_errors(router.stats()),
                      timeout=6, interval=0.25)
    assert ok, "\n".join(lab.accounting_errors(router.stats()))


def test_host_offloads_on(topo, router, lab_driver):
    k = topo.exec("h1", ["ethtool", "-k", "h1-r"], check=True).stdout
    if lab_driver == "afxdp":
        assert "tcp-segmentation-offload: off" in k, k
    else:
        assert "tcp-segmentation-offload: on" in k, k
    assert "tx-checksumming: on" in k, k


def test_iperf3_super_packets(topo, router, lab_driver):
    """Far fewer packets forwarded than segments delivered, none dropped
    (afxdp: one forwarded per segment, no super-packet)."""
    before = port(router, "eth0")
    res = iperf3(topo, "10.0.2.2", 5301)
    after = port(router, "eth0")
    got = res["end"]["sum_received"]["bytes"]
    bps = res["end"]["sum_received"]["bits_per_second"]
    segments = got // MSS  # at least this many MSS-sized segments reached h2
    fwd = delta(before, after, "forwarded")
    gso = delta(before, after, "rx-gso-packets")
    assert got > 10_000_000, res["end"]
    if lab_driver == "afxdp":
        assert gso == 0 and fwd >= segments, (gso, fwd, segments)
    else:
        assert gso > 0, after
        assert fwd * 4 < segments, (fwd, segments)
    assert delta(before, after, "mtu-exceeded") == 0
    assert delta(before, after, "fragmented") == 0
    assert_accounting(router)
    print("iperf3 h1->h2 with offloads: %.1f Mbit/s, %d forwarded on eth0 "
          "(%d GSO) for >= %d segments" % (bps / 1e6, fwd, gso, segments))


def test_iperf3_pmtud_per_segment(topo, router, lab_driver):
    """Segments of 1448 bytes do not fit r-h3's 1280: frag-needed, then the
    sender's smaller segments cross as super-packets again (afxdp: as
    segments)."""
    dst = "10.0.3.2"
    before = port(router, "eth0")
    res = iperf3(topo, dst, 5302)
    after = port(router, "eth0")
    got = res["end"]["sum_received"]["bytes"]
    assert got > 1_000_000, res["end"]
    assert delta(before, after, "mtu-exceeded") >= 1
    assert delta(before, after, "icmp-out") >= 1
    assert delta(before, after, "fragmented") == 0
    assert (delta(before, after, "rx-gso-packets") > 0) == (lab_driver != "afxdp")
    route = topo.exec("h1", ["ip", "route", "get", dst], check=True).stdout
    assert " mtu %d" % SMALL_MTU in route, route
    assert_accounting(router)
    print("iperf3 h1->h3 over MTU %d with offloads: %.1f Mbit/s, %d mtu drops" % (
        SMALL_MTU, res["end"]["sum_received"]["bits_per_second"] / 1e6,
        delta(before, after, "mtu-exceeded")))
