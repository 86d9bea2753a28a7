# SPDX-License-Identifier: BSD-2-Clause
"""Who may program cellgated's FIB over FPM, without FRR: a process playing
zebra (fpmfeed.py) connects from h1 or from the router's own namespace.

- a second connection while a session is alive is closed at once, and the
  live session keeps going (before, the newcomer took the session over);
- only the configured allowed-peer addresses get a session;
- a peer that goes silent without closing (here: h1's link goes down, so
  nothing it sends or is sent arrives, and no FIN or RST either) is found
  dead by TCP keepalive after dead-interval, and the next connection gets
  in;
- one session may announce only route-limit routes per family: a warning
  at the threshold, then refusal, counted.
"""

import os
import subprocess
import time

import pytest

import lab
import restconf as rc
from conftest import start_router

FEED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fpmfeed.py")
DEAD = 3  # dead-interval, s


@pytest.fixture(scope="module")
def cg(request, topo, cellgated_bin):
    cfg = lab.default_config()
    cfg["cellgate:cellgate"]["routing"]["fpm"] = {
        "address": "0.0.0.0", "allowed-peer": ["10.0.1.2"], "dead-interval": DEAD,
        "route-limit": {"ipv4": 100, "ipv6": 20, "warning-threshold": 50}}
    return start_router(request, topo, cellgated_bin, config=cfg)


class Feeder:
    """fpmfeed.py running in a namespace; lines it prints are read with expect()."""

    def __init__(self, topo, ns, host, *action):
        self.p = topo.popen(ns, [lab.PYTHON, FEED, host, "2620"] + list(action),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
        self.lines = lab.LineReader(self.p.stdout)

    def expect(self, word, timeout=10):
        return self.lines.expect(word, timeout)

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            try:
                self.p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def fpm(d):
    return d.stats()["fpm"]


def wait_fpm(d, pred, timeout):
    return lab.wait_for(lambda: (lambda s: s if pred(s) else None)(fpm(d)), timeout)


def test_second_connection_refused_session_kept(topo, cg):
    first = Feeder(topo, "h1", "10.0.1.1", "hold")
    try:
        assert first.expect("connected")
        s0 = wait_fpm(cg, lambda s: s["connected"], 5)
        assert s0 and s0["peer"].startswith("10.0.1.2:"), fpm(cg)
        second = Feeder(topo, "h1", "10.0.1.1", "hold")
        try:
            assert second.expect("connected") and second.expect("closed"), \
                "the second connection was not closed"
        finally:
            second.close()
        s1 = fpm(cg)
        assert s1["connected"] and s1["session"] == s0["session"], s1
        assert s1["peer"] == s0["peer"]
        assert s1["refused-busy"] == s0["refused-busy"] + 1
        assert "refused: a session is alive" in cg.log()
        st = rc.state(cg)["fpm"]
        assert int(st["connections-refused-busy"]) == s1["refused-busy"]
    finally:
        first.close()
    assert wait_fpm(cg, lambda s: not s["connected"], 5)


def test_only_allowed_peers(topo, cg):
    s0 = fpm(cg)
    local = Feeder(topo, "r", "127.0.0.1", "hold")  # not 10.0.1.2
    try:
        assert local.expect("connected") and local.expect("closed")
    finally:
        local.close()
    s1 = fpm(cg)
    assert not s1["connected"] and s1["session"] == s0["session"]
    assert s1["refused-peer"] == s0["refused-peer"] + 1
    assert "refused: not an allowed-peer" in cg.log()
    assert int(rc.state(cg)["fpm"]["connections-refused-peer"]) == s1["refused-peer"]


def test_dead_peer_found_by_keepalive(topo, cg):
    """The live session's peer vanishes without a FIN: after about
    dead-interval the session ends and a new connection gets in."""
    first = Feeder(topo, "h1", "10.0.1.1", "hold")
    down = False
    try:
        assert first.expect("connected")
        s0 = wait_fpm(cg, lambda s: s["connected"], 5)
        assert s0, fpm(cg)
        topo.exec("h1", ["ip", "link", "set", "h1-r", "down"], check=True)
        down = True
        t0 = time.monotonic()
        s1 = wait_fpm(cg, lambda s: not s["connected"], DEAD + 10)
        took = time.monotonic() - t0
        assert s1, "the dead peer's session did not end: %s" % fpm(cg)
        assert took <= DEAD + 5, took
        print("dead peer found after %.1f s (dead-interval %d s)" % (took, DEAD))
    finally:
        if down:
            topo.exec("h1", ["ip", "link", "set", "h1-r", "up"])
            topo.exec("h1", ["ip", "route", "replace", "default", "via", "10.0.1.1"])
        first.close()
    nxt = Feeder(topo, "h1", "10.0.1.1", "hold")
    try:
        assert nxt.expect("connected")
        assert wait_fpm(cg, lambda s: s["connected"] and
                        s["session"] == s0["session"] + 1, 5), fpm(cg)
    finally:
        nxt.close()


@pytest.mark.parametrize("family,n,limit", [("routes4", 150, 100), ("routes6", 30, 20)])
def test_route_limit(topo, cg, family, n, limit):
    # The previous test's session has ended as the daemon sees it: a second
    # connection while one lives is refused (which the first test checks).
    s0 = wait_fpm(cg, lambda s: s["state"] == "listening", 10)
    assert s0, fpm(cg)
    f = Feeder(topo, "h1", "10.0.1.1", family, str(n))
    try:
        assert f.expect("connected") and f.expect("sent")
        key = "ipv4-session" if family == "routes4" else "ipv6-session"
        s = wait_fpm(cg, lambda s: s["rejected"]["limit"] >=
                     s0["rejected"]["limit"] + n - limit, 10)
        assert s, fpm(cg)
        assert s["routes"][key] == limit, s["routes"]
        assert s["rejected"]["limit"] == s0["rejected"]["limit"] + n - limit
        fam = "IPv4" if family == "routes4" else "IPv6"
        log = cg.log()
        assert "fpm: %s routes at 50%% of the limit: %d of %d" % (fam, limit // 2, limit) in log
        assert "fpm: %s route limit of %d reached" % (fam, limit) in log
        st = rc.state(cg)["fpm"]
        assert int(st["routes-refused-limit"]) == s["rejected"]["limit"]
        assert cg.alive()
    finally:
        f.close()
