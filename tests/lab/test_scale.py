# SPDX-License-Identifier: BSD-2-Clause
"""Management at scale: 200,000 routes over FPM (tests/bench/fpm_bench, a
zebra-like stream), with snmpd and a stand-in for systemd's watchdog.

While full route-list GETs stream, snmpbulkwalk reads every CELLGATE-MIB
and ATM-MIB table and zebra replays the whole table (a reconnect):
- small GETs and /metrics answer within 100 ms (99 % of them; none slower
  than 500 ms; both over 3x what the same probes saw with nothing running,
  the anchor, since the machine's scheduling is not the daemon's doing; without
  slicing they took 8 to 50 s with a full table);
- the daemon's own loop-lag gauge stays under 50 ms: its busy part (the
  daemon's own work) at every tick, the wall-clock lag for 99 % of the
  ticks (over 3x the anchor's 99th percentile);
- every watchdog ping arrives on time (WATCHDOG_USEC, a datagram socket as
  NOTIFY_SOCKET, arrival times stamped by the kernel).
After 20 full route-list GETs the daemon's RSS is back within 10 % of what
it was. The route list is checked too: order and count, paging by limit,
cursor and offset, the prefix filter, one route; and `promtool check
metrics` on a scrape. The thresholds are the same for the ASan build (a
stream slice is bounded in time, not in routes); only ASan's quarantine is
made smaller, so that RSS measures the daemon.
"""

import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time

import pytest

import httpunix as hc
import lab
from conftest import start_router
from test_cellgatectl import cellgatectl_path
from test_snmp import COMMUNITY, SNMPD_PORT, Snmp

ROUTES = 200000
WATCHDOG_USEC = 2000000
SO_TIMESTAMPNS = 35  # asm-generic/socket.h (Python's socket module lacks the name)
SMALL_MS = 100   # small GETs and /metrics under load, 99th percentile
SMALL_MAX_MS = 500  # ... and the worst one
PHASE_S = 12        # how long the load runs
ANCHOR_S = 4        # how long the same probes run alone before
# The load adds its own processes (curl, fpm_bench, snmpd, snmpbulkwalk, this
# one) to the CPUs' run queues: the machine's scheduling delay, as the anchor
# saw it, grows by up to this factor meanwhile. On a quiet machine the anchor
# is a few ms and the thresholds are nearly the bare ones.
NOISE = 3
LAG_MS = 50      # the daemon's loop lag, under load
DATA = "/restconf/data/cellgate:cellgate"
STATE = DATA + "/state"
ROUTE = STATE + "/fib/route"


def _nets(path, n):
    """n distinct IPv4 prefixes of mixed lengths, none in 10/8 (the lab's)."""
    with open(path, "w") as f:
        k = 0
        for a in range(1, 224):
            if a in (10, 127):
                continue
            for b in range(256):
                for c in range(0, 256, 64):
                    f.write("%d.%d.%d.0/%d\n" % (a, b, c, (18, 20, 22, 24)[(a + b + c) % 4]))
                    k += 1
                    if k == n:
                        return


class Watchdog(threading.Thread):
    """NOTIFY_SOCKET stand-in: when each WATCHDOG=1 datagram arrived, as the
    kernel stamped it (SO_TIMESTAMPNS), not when this busy process got to it."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.pings, self.stop_ev = [], threading.Event()

    def run(self):
        while not self.stop_ev.is_set():
            try:
                msg, anc, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(16))
            except socket.timeout:
                continue
            t = time.time()
            for level, typ, data in anc:
                if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", data[:16])
                    t = sec + nsec / 1e9
            if b"WATCHDOG=1" in msg:
                self.pings.append(t)

    def stop(self):
        self.stop_ev.set()
        self.join()
        self.sock.close()


@pytest.fixture(scope="module")
def scale(request, topo, cellgated_bin):
    d = tempfile.mkdtemp(prefix="cglab-scale-")
    os.chmod(d, 0o755)
    request.addfinalizer(lambda: shutil.rmtree(d, ignore_errors=True))
    fpm_bench = os.path.join(os.path.dirname(cellgated_bin), "..", "tests", "bench",
                             "fpm_bench")
    assert os.access(fpm_bench, os.X_OK), "fpm_bench not built next to cellgated: " + fpm_bench
    nets = os.path.join(d, "nets")
    _nets(nets, ROUTES)
    snmp = Snmp(topo)
    request.addfinalizer(lambda: (snmp.stop(), shutil.rmtree(snmp.dir, ignore_errors=True)))
    snmp.start_snmpd()
    wd = Watchdog(os.path.join(d, "notify.sock"))
    wd.start()
    request.addfinalizer(wd.stop)
    cfg = lab.default_config(worker_cpu=[1], extra_port={
        p: {"rx-ring-frames": 1024, "tx-ring-frames": 64} for p in ("eth0", "eth1", "eth2")})
    cfg["cellgate:cellgate"]["snmp"] = {"agentx-socket": snmp.socket, "ping-interval": 2}
    env = dict(os.environ, NOTIFY_SOCKET=os.path.join(d, "notify.sock"),
               WATCHDOG_USEC=str(WATCHDOG_USEC))
    # ASan keeps freed memory in quarantine (256 MiB by default): a smaller one, so
    # the RSS check measures the daemon, not the sanitizer (a no-op without ASan).
    env["ASAN_OPTIONS"] = ":".join(x for x in (os.environ.get("ASAN_OPTIONS", ""),
                                               "quarantine_size_mb=16") if x)
    router = start_router(request, topo, cellgated_bin, config=cfg, env=env)
    sock = os.path.join(router.rundir, "restconf.sock")
    ifx = lambda dev: topo.link("r", dev)["ifindex"]
    feed = [fpm_bench, "-f", nets, "-p", str(router.proc.pid), "-s",
            os.path.join(router.rundir, "stats.json"), "-o",
            "%d,%d" % (ifx("r-h2"), ifx("r-h3")), "-i", "100"]
    topo.exec("r", feed + ["-m", "load"], timeout=300, check=True)
    assert lab.wait_for(snmp.answers, 15), "the subagent never registered"
    # Steady state: the load's table growth (a hash table doubling holds the loop
    # for tens of ms, once) out of the loop gauge's 10 s window.
    time.sleep(10.5)
    return {"d": router, "sock": sock, "snmp": snmp, "wd": wd, "feed": feed, "topo": topo}


def _state(sock, sub):
    r = hc.get(sock, STATE + "/" + sub, timeout=60)
    assert r.status == 200, r
    return r.json()["cellgate:" + sub.split("?")[0].split("/")[-1]]


def test_route_list_order_count_paging(scale):
    sock = scale["sock"]
    n = int(_state(sock, "fib/routes"))
    assert n >= ROUTES
    r = hc.get(sock, ROUTE, timeout=300)
    assert r.status == 200 and r.headers.get("transfer-encoding") == "chunked", r
    routes = r.json()["cellgate:route"]
    assert len(routes) == n
    key = lambda p: (tuple(int(x) for x in p.split("/")[0].split(".")), int(p.split("/")[1]))
    keys = [key(x["prefix"]) for x in routes]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    # Pages of 1000 chained by the cursor give the same list; the last page says 0 remain.
    got, cursor = [], None
    for _ in range(3):
        q = "?limit=1000" + ("&cursor=" + cursor.replace("/", "%2F") if cursor else "")
        page = hc.get(sock, ROUTE + q)
        assert page.status == 200
        got += [x["prefix"] for x in page.json()["cellgate:route"]]
        cursor = page.headers["cellgate-next-cursor"]
        assert int(page.headers["cellgate-remaining"]) == n - len(got)
    assert got == [x["prefix"] for x in routes[:3000]]
    off = hc.get(sock, ROUTE + "?limit=5&offset=2500").json()["cellgate:route"]
    assert [x["prefix"] for x in off] == [x["prefix"] for x in routes[2500:2505]]
    # prefix P with longer: P and everything inside it, nothing else.
    inside = [x for x in routes if x["prefix"].startswith("20.")]
    r = hc.get(sock, ROUTE + "?prefix=20.0.0.0%2F8&longer")
    assert [x["prefix"] for x in r.json()["cellgate:route"]] == [x["prefix"] for x in inside]
    one = hc.get(sock, ROUTE + "=" + inside[0]["prefix"].replace("/", "%2F"))
    assert one.status == 200 and one.json()["cellgate:route"] == [inside[0]]
    assert hc.get(sock, ROUTE + "=20.0.0.0%2F31").status == 404
    assert hc.get(sock, ROUTE + "?where=x").status == 400
    assert hc.get(sock, STATE + "/port?limit=3").status == 400


def test_cellgatectl_pages_a_big_table(scale):
    """show routes P longer --limit N answers at once (one page, not the table);
    without --limit it pages through all of P in order."""
    ctl = [cellgatectl_path(), "-s", scale["sock"], "show", "routes"]
    t = time.monotonic()
    p = subprocess.run(ctl + ["--limit", "5"], capture_output=True, text=True, timeout=60)
    took = time.monotonic() - t
    assert p.returncode == 0, p.stderr
    lines, total = p.stdout.splitlines(), int(_state(scale["sock"], "fib/routes"))
    assert len(lines) == 7, lines  # a header, 5 routes, where to go on
    assert lines[-1].startswith("(%d more; continue with --cursor " % (total - 5)), lines
    assert took < 2, took  # a process start and one page, whatever the table
    p = subprocess.run(ctl + ["20.0.0.0/8", "longer"], capture_output=True, text=True,
                       timeout=60)
    rows = [ln.split()[0] for ln in p.stdout.splitlines()[1:]]
    want = [x["prefix"] for x in hc.get(scale["sock"], ROUTE + "?prefix=20.0.0.0%2F8&longer")
            .json()["cellgate:route"]]
    assert p.returncode == 0 and rows == want and len(rows) > 1000, (len(rows), len(want))


def test_small_gets_while_big_work_runs(scale):
    sock, snmp, topo = scale["sock"], scale["snmp"], scale["topo"]
    small = [STATE + "/port", STATE + "/fpm", STATE + "/fib?fields=routes;source",
             ROUTE + "=10.20.0.0%2F24", "/metrics"]
    probes = [hc.Prober(sock, p, interval=0.05) for p in small]
    lags, lists, stop = [], [], threading.Event()

    def loop():
        return hc.get(sock, STATE + "/loop", timeout=60).json()["cellgate:loop"]

    def lag_reader():  # the daemon's own gauge, worst of the last 10 s
        while not stop.is_set():
            lags.append(loop())
            stop.wait(0.5)

    def route_lists():  # curl, not this process: its threads would wait on each other
        while not stop.is_set():
            p = subprocess.run(["curl", "-s", "-f", "-o", "/dev/null", "--max-time", "300",
                                "--unix-socket", sock, "http://localhost" + ROUTE],
                               timeout=310)
            lists.append(p.returncode)

    def walks():
        for oid in (".1.3.6.1.4.1.32473", ".1.3.6.1.2.1.37"):
            p = topo.exec("r", ["snmpbulkwalk", "-v2c", "-c", COMMUNITY, "-On", "-t", "5",
                                "-Cr25", "127.0.0.1:%d" % SNMPD_PORT, oid], timeout=120)
            assert p.returncode == 0, p.stderr

    # Anchor: the same probes and the loop with nothing else running, for as long:
    # what the machine's scheduling costs today, with no work of ours in it.
    a0 = loop()
    anchors = [hc.Prober(sock, p, interval=0.05) for p in small]
    for p in anchors:
        p.start()
    time.sleep(ANCHOR_S)
    for p in anchors:
        p.stop()
    before = loop()
    noise_p99 = _p99_lag(a0, before)
    ths = [threading.Thread(target=f, daemon=True) for f in (lag_reader, route_lists)]
    for t in probes + ths:
        t.start()
    t0 = time.monotonic()
    # Walks and replays over and over for PHASE_S, route lists throughout: enough
    # requests that a percentile means something.
    while time.monotonic() - t0 < PHASE_S:
        w = threading.Thread(target=walks)
        w.start()
        replay = topo.exec("r", scale["feed"] + ["-m", "replay"], timeout=300)
        w.join()
        assert replay.returncode == 0, replay.stdout + replay.stderr
    stop.set()
    for t in ths:
        t.join(timeout=300)
    for p in probes:
        p.stop()
    took = time.monotonic() - t0
    assert lists and not any(lists), lists  # full route lists, all complete
    after = loop()
    # The daemon's own work never held the loop for LAG_MS (the busy part of every
    # lag, CPU time). 99 % of the timer runs were less than LAG_MS late, over what
    # the anchor's 99th percentile (the machine's scheduling alone) already was.
    busy = max(x["busy-recent"] for x in lags + [after]) / 1000.0
    assert busy < LAG_MS, ("loop busy %.1f ms" % busy, lags)
    ticks = int(after["ticks"]) - int(before["ticks"])
    assert ticks >= took * 15, (ticks, took)  # the 10 ms timer kept running (<= ~60 ms apart)
    p99 = _p99_lag(before, after)
    assert p99 <= LAG_MS * 1000 + NOISE * noise_p99, ("loop lag p99 <= %d us, anchor %d us" %
                                                      (p99, noise_p99), after["lag-bucket"])
    # Every small request was answered; 99 % within SMALL_MS, none above SMALL_MAX_MS,
    # over the anchor's own (without slicing they took 8 to 50 s with a full table).
    for path, p, a in zip(small, probes, anchors):
        assert not p.bad and not a.bad, (path, p.bad[:5], a.bad[:5])
        assert len(p.lat) >= took / 0.2, (path, len(p.lat), took)
        assert hc.pct(p.lat, 99) <= SMALL_MS / 1000 + NOISE * hc.pct(a.lat, 99), \
            (path, sorted(p.lat)[-5:], sorted(a.lat)[-5:])
        assert max(p.lat) <= SMALL_MAX_MS / 1000 + NOISE * max(a.lat), \
            (path, sorted(p.lat)[-5:], sorted(a.lat)[-5:])


def _p99_lag(a, b):
    """Upper bound (us) of the 99th percentile of the loop lag between two readings."""
    n = int(b["ticks"]) - int(a["ticks"])
    for x, y in zip(a["lag-bucket"], b["lag-bucket"]):
        if int(y["ticks"]) - int(x["ticks"]) >= 0.99 * n:
            return y["upper-bound"]
    return 10 ** 9


def test_watchdog_every_ping_on_time(scale):
    pings = list(scale["wd"].pings)
    assert len(pings) >= 10, pings
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    # None missed: one every WATCHDOG_USEC/2 from the first to the last.
    assert len(pings) >= (pings[-1] - pings[0]) / (WATCHDOG_USEC / 2e6) * 0.9, gaps
    # sd_notify every WATCHDOG_USEC/2; systemd kills after WATCHDOG_USEC without one.
    assert max(gaps) < WATCHDOG_USEC / 1e6, sorted(gaps)[-5:]


def test_rss_returns_after_route_lists(scale):
    sock, pid = scale["sock"], scale["d"].proc.pid
    hc.get(sock, ROUTE, sink=lambda b: None, timeout=300)  # warm: buffers sized once
    steady = hc.rss_kb(pid)
    sampler = hc.RssSampler(pid)
    sampler.start()
    for _ in range(20):
        assert hc.get(sock, ROUTE, sink=lambda b: None, timeout=300).status == 200
    sampler.stop()
    after = hc.rss_kb(pid)
    assert after <= steady * 1.10, (steady, after)
    # The stream's own memory: a slice, not the list.
    assert sampler.peak_kb - steady < 64 * 1024, (steady, sampler.peak_kb)


def test_promtool_checks_a_scrape(scale):
    if not shutil.which("promtool"):
        pytest.fail("promtool missing: tests/deps.sh installs Debian's prometheus")
    r = hc.get(scale["sock"], "/metrics")
    assert r.status == 200
    p = subprocess.run(["promtool", "check", "metrics"], input=r.body, capture_output=True,
                       timeout=60)
    assert p.returncode == 0, (p.stdout + p.stderr).decode()
    text = r.body.decode()
    assert "cellgate_fib_routes %d" % int(_state(scale["sock"], "fib/routes")) in text
    assert "cellgate_loop_lag_seconds_bucket{le=\"+Inf\"}" in text
    assert "{}" not in text and "_total_total" not in text
    assert json.loads(hc.get(scale["sock"], STATE + "/loop").body)["cellgate:loop"]["ticks"]
