# SPDX-License-Identifier: BSD-2-Clause
"""TCP over IPv6 across ATM from hosts that use TSO/GSO (issue 16).

As test_atm_offload.py for IPv4: the hosts hand the router 64 KiB IPv6
super-packets (GSO type TCPv6); an ATM subinterface cannot take them whole,
so cellgated cuts them into the sender's segments (datapath/ip6_gso.c).
Before that, every one was dropped as ip6-too-big and the connection
never moved a byte.
"""

import json
import subprocess
import time

import pytest

import lab
from test_atm_ipv6 import H4, a1_config, r_config, routers, topo  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def topo_options():
    return {"offloads": True}


def test_iperf3_ipv6_tcp_with_host_offloads(topo, routers):  # noqa: F811
    r, _ = routers
    before = lab.port_of(r, "eth0")
    srv = topo.popen("h4", ["iperf3", "-s", "-1", "-p", "5202"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        p = topo.exec("h1", ["iperf3", "-6", "-c", H4, "-p", "5202", "-t", "3", "-J"],
                      timeout=30)
        assert p.returncode == 0, p.stdout + p.stderr
        bps = json.loads(p.stdout)["end"]["sum_received"]["bits_per_second"]
        print("iperf3 -6 across ATM with host offloads: %.1f Mbit/s" % (bps / 1e6))
        assert bps > 10e6, "only %.1f Mbit/s of IPv6 over ATM" % (bps / 1e6)
    finally:
        srv.kill()
        srv.wait()
    after = lab.port_of(r, "eth0")

    def d(k):
        return lab.counter_delta(before, after, k)
    assert d("rx-gso-packets") > 0, "h1 sent no super-packets: offloads off?"
    assert d("gso-segmented") == d("rx-gso-packets")
    assert d("gso-segments-out") > d("gso-segmented")
    assert d("ip6-too-big") == 0
