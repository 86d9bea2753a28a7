# SPDX-License-Identifier: BSD-2-Clause
"""A port's link going down and up: forwarding stops and resumes by itself,
and the idle worker does not spin on the socket error a downed port leaves."""

import time

import lab


def ping_ok(topo, dst="10.0.2.2", count=2):
    p = topo.exec("h1", ["ping", "-n", "-c", str(count), "-i", "0.2", "-W",
                         "1", dst], timeout=count + 10)
    return p.returncode == 0


def loops_per_second(router, seconds=1.0):
    a = router.stats()["workers"][0]["loops"]
    time.sleep(seconds)
    b = router.stats()["workers"][0]["loops"]
    return (b - a) / seconds


def test_link_down_up(topo, router):
    assert ping_ok(topo)
    idle = loops_per_second(router)
    topo.exec("r", ["ip", "link", "set", "r-h2", "down"], check=True)
    try:
        assert not ping_ok(topo, count=1)
        down = loops_per_second(router)
        # Idle polls sleep 5 ms per 256 spins (~50k loops/s); a worker woken
        # by an unread POLLERR would run millions of loops per second.
        assert down < max(4 * idle, 200000), (idle, down)
    finally:
        topo.exec("r", ["ip", "link", "set", "r-h2", "up"], check=True)
    assert lab.wait_for(lambda: ping_ok(topo, count=1), 15)
    s = router.stats()
    for p in s["ports"]:
        assert p["rx-packets"] == p["forwarded"] + p["to-kernel"] + \
            p["drops-total"], p
