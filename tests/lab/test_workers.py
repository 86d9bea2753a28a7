# SPDX-License-Identifier: BSD-2-Clause
"""Two datapath workers: RX spread over both by PACKET_FANOUT, each with its
own TX rings, counters summed on read, and the accounting rule still exact."""

import pytest

import lab
from conftest import start_router

PY = "/usr/bin/python3"

# Many UDP flows from h1 to h2 (different source ports), so the fanout hash
# has something to spread.
FLOWS = r"""
import socket, time
for i in range(2000):
    s2 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s2.sendto(b"x" * 32, ("10.0.2.2", 9000 + i % 7))
    s2.close()
    if i % 100 == 0:
        time.sleep(0.01)
"""


@pytest.fixture(scope="module")
def router2(request, topo, cellgated_bin):
    cfg = lab.default_config(workers=2, worker_cpu=[0, 1])
    return start_router(request, topo, cellgated_bin, config=cfg)


def test_two_workers_forward(topo, router2):
    p = topo.exec("h1", ["ping", "-n", "-c", "3", "-i", "0.2", "-W", "1",
                         "10.0.2.2"], timeout=15)
    assert p.returncode == 0, p.stdout + p.stderr
    s = router2.stats()
    assert len(s["workers"]) == 2
    assert [w["cpu"] for w in s["workers"]] == [0, 1]
    assert all(w["arp-held"] == 0 for w in s["workers"]), s["workers"]


def test_fanout_spreads_flows(topo, router2):
    before = router2.stats()
    p = topo.exec("h1", [PY, "-c", FLOWS], timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    lab.wait_for(lambda: router2.port(router2.stats(), "eth0")["forwarded"]
                 - router2.port(before, "eth0")["forwarded"] >= 2000, 10)
    after = router2.stats()
    fwd = (router2.port(after, "eth0")["forwarded"] -
           router2.port(before, "eth0")["forwarded"])
    assert fwd >= 2000
    busy = [a["bursts"] - b["bursts"]
            for a, b in zip(after["workers"], before["workers"])]
    # PACKET_FANOUT_HASH on 2000 flows: both workers must have seen traffic.
    assert min(busy) > 0, busy


def test_two_workers_accounting(topo, router2):
    s = router2.stats()
    for p in s["ports"]:
        assert p["rx-packets"] == p["forwarded"] + p["to-kernel"] + \
            p["drops-total"], p
