#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""Management at full-table scale: how cellgated's RESTCONF, /metrics and
writes behave with the libloc table (~1.07 M IPv4 routes) fed over FPM,
and what the control loop and the memory do meanwhile.  Not part of the
pass/fail suite; prints figures.  Needs root, libloc (tests/deps.sh) and a
build (fpm_bench next to cellgated's build tree).

    tests/bench/mgmt-scale-bench.py [-n ROUTES] [-f NETS] [-b CELLGATED]
                                    [--gets N] [--writes N] [--lists N]
                                    [-6 [--f6 NETS6]]

-6: the libloc IPv6 table (~220k nets) too, after the IPv4 one on the same
FPM session, and the route6 list measured beside the route list (its
anchor, same run): whole-list GETs, a walk of the whole list in pages of
1000 by cursor (each page timed), a deep page by offset, a prefix with
its more specific routes, with the loop probe running throughout.

Anchor: every GET is also timed before the routes arrive (same daemon,
same run), so each figure stands beside its empty-table cost.  Loop lag
comes from the daemon's own gauge (cellgate_loop_lag_*) when it has one,
and from a probe that GETs /restconf (no state at all) every 20 ms, whose
worst latency is how long the control loop was unavailable.  CPUs: the
worker on CPU 1, the control thread and this script unpinned on both (the
machine is shared: the figures are medians of --gets runs).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lab"))
import lab  # noqa: E402
import httpunix as mc  # noqa: E402

DATA = "/restconf/data/cellgate:cellgate"
STATE = DATA + "/state"
SMALL = [("metrics", "/metrics"),
         ("state/port", STATE + "/port"),
         ("state/fpm", STATE + "/fpm"),
         ("state/neighbor", STATE + "/neighbor"),
         ("state/fib (counts)", STATE + "/fib?fields=routes;nexthops;source"),
         ("state/fib/source", STATE + "/fib/source"),
         ("one route", STATE + "/fib/route=10.20.0.0%2F24")]


def nets_file(path, v6=False):
    if path:
        return path
    fd, tmp = tempfile.mkstemp(prefix="sc12-nets-")
    with os.fdopen(fd, "w") as f:
        out = subprocess.run(["location", "dump"], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 2 and p[0] == "net:" and (":" in p[1]) == v6:
                f.write(p[1] + "\n")
    return tmp


TIMEOUT = 300  # seconds a GET may take before it is reported as timed out


def time_gets(sock, path, n, timeout=TIMEOUT):
    """[(seconds, status, bytes)]; a GET that times out counts as `timeout` s, status 0."""
    res = []
    for _ in range(n):
        t = time.monotonic()
        try:
            r = mc.get(sock, path, sink=lambda b: None, timeout=timeout)
            res.append((r.elapsed, r.status, r.nbytes))
        except OSError:
            res.append((time.monotonic() - t, 0, 0))
    return res


def fmt_ms(s):
    return "%.1f" % (s * 1000)


class RouteCounter:
    """Counts route entries in a streamed JSON reply (a '"prefix":' each)."""
    def __init__(self):
        self.n, self.tail = 0, b""

    def __call__(self, piece):
        buf = self.tail + piece
        self.n += buf.count(b'"prefix":')
        # Keep enough for a match cut across two pieces, never a whole one.
        self.tail = buf[-8:]


def loop_state(sock):
    try:
        return mc.get(sock, STATE + "/loop", timeout=60).json()["cellgate:loop"]
    except (OSError, ValueError, KeyError):
        return None


def lag_pct(a, b, p):
    """Upper bound (us) of the p-th percentile of the loop lag between two readings."""
    n = int(b["ticks"]) - int(a["ticks"])
    for x, y in zip(a["lag-bucket"], b["lag-bucket"]):
        if int(y["ticks"]) - int(x["ticks"]) >= p / 100.0 * n:
            return y["upper-bound"]
    return None


class LoopSampler(threading.Thread):
    """The daemon's loop gauge every second: worst lag and busy part seen."""

    def __init__(self, sock):
        super().__init__(daemon=True)
        self.sock, self.lag, self.busy = sock, 0, 0
        self.halt = threading.Event()

    def run(self):
        while not self.halt.is_set():
            st = loop_state(self.sock)
            if st:
                self.lag = max(self.lag, st["lag-recent"])
                self.busy = max(self.busy, st["busy-recent"])
            self.halt.wait(1)

    def stop(self):
        self.halt.set()
        self.join()
        return self


def page_walk(sock, lst, limit=1000, max_pages=0):
    """Walk list `lst` (route, route6) by cursor in pages: (pages' seconds, routes, errors)."""
    times, n, bad, cursor = [], 0, [], None
    while True:
        q = "?limit=%d" % limit + ("&cursor=" + cursor.replace("/", "%2F") if cursor else "")
        rcnt = RouteCounter()
        r = mc.get(sock, STATE + "/fib/" + lst + q, sink=rcnt, timeout=600)
        times.append(r.elapsed)
        n += rcnt.n
        if r.status != 200:
            bad.append(r.status)
            break
        cursor = r.headers.get("cellgate-next-cursor")
        if not cursor or (max_pages and len(times) >= max_pages):
            break
    return times, n, bad


def list_gets(sock, lst, runs):
    """Whole-list GETs of `lst`: [(seconds, routes, bytes, status)]."""
    res = []
    for _ in range(runs):
        rcnt = RouteCounter()
        r = mc.get(sock, STATE + "/fib/" + lst, sink=rcnt, timeout=1800)
        res.append((r.elapsed, rcnt.n, r.nbytes, r.status))
    return res


def ipv6_measures(sock, runs):
    """The route6 list beside the route list (the anchor), as -6 says."""
    probe = mc.Prober(sock, "/restconf", 0.02)
    probe.start()
    print("IPv6 route list beside the IPv4 one (same daemon, same table, same run); "
          "loop probe GET /restconf every 20 ms", flush=True)
    for lst in ("route", "route6"):
        for t, n, nb, st in list_gets(sock, lst, runs):
            print("  %-6s whole list: %d routes, %.1f MB in %.2f s = %.0f routes/s (status %d)" %
                  (lst, n, nb / 1e6, t, n / t if t else 0, st), flush=True)
    for lst in ("route", "route6"):
        # The IPv4 walk stops at as many pages as the IPv6 one has (~220).
        times, n, bad = page_walk(sock, lst, max_pages=0 if lst == "route6" else 230)
        print("  %-6s walk by cursor, pages of 1000: %d pages, %d routes, page median %s ms, "
              "p99 %s ms, max %s ms%s" % (lst, len(times), n, fmt_ms(mc.median(times)),
                                          fmt_ms(mc.pct(times, 99)), fmt_ms(max(times)),
                                          ", errors %s" % bad if bad else ""), flush=True)
    for lst, q in (("route", "?offset=200000&limit=1000"),
                   ("route6", "?offset=200000&limit=1000"),
                   ("route", "?prefix=16.0.0.0%2F4&longer&limit=1000"),
                   ("route6", "?prefix=2a00::%2F8&longer&limit=1000")):
        g = time_gets(sock, STATE + "/fib/" + lst + q, 5)
        ts = [t for t, _, _ in g]
        print("  %-6s %-40s median %s ms, max %s ms (status %d, %d bytes)" %
              (lst, q, fmt_ms(mc.median(ts)), fmt_ms(max(ts)), g[-1][1], g[-1][2]), flush=True)
    probe.stop()
    pl = probe.lat
    print("  loop probe over the IPv6 measures: %d requests, p99 %s ms, max %s ms" %
          (len(pl), fmt_ms(mc.pct(pl, 99)), fmt_ms(max(pl) if pl else 0)), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=0, help="routes (0 = all)")
    ap.add_argument("-f", help="file of IPv4 prefixes (default: location dump)")
    ap.add_argument("-b", default=os.path.join(ROOT, "build", "daemon", "cellgated"))
    ap.add_argument("--gets", type=int, default=5, help="repeats of each small GET")
    ap.add_argument("--writes", type=int, default=50, help="static route adds timed")
    ap.add_argument("--lists", type=int, default=3, help="full route-list GETs")
    ap.add_argument("--skip-small", action="store_true", help="no small GETs")
    ap.add_argument("--full-state", action="store_true",
                    help="also GET all of /state (minutes and GBs on an old build)")
    ap.add_argument("-6", dest="six", action="store_true",
                    help="the IPv6 table too, and the route6 list measured")
    ap.add_argument("--f6", help="file of IPv6 prefixes (default: location dump)")
    a = ap.parse_args()
    fpm_bench = os.path.join(os.path.dirname(a.b), "..", "tests", "bench", "fpm_bench")
    if not os.access(fpm_bench, os.X_OK):
        sys.exit("mgmt-scale-bench: %s not built" % fpm_bench)
    nets = nets_file(a.f)
    nets6 = nets_file(a.f6, v6=True) if a.six else None
    topo = lab.Topology().create()
    d = None
    try:
        cfg = lab.default_config(worker_cpu=[1], extra_port={
            p: {"rx-ring-frames": 1024, "tx-ring-frames": 64}
            for p in ("eth0", "eth1", "eth2")})
        d = lab.Daemon(topo, cfg, binary=a.b).start()
        sock = os.path.join(d.rundir, "restconf.sock")
        pid = d.proc.pid
        print("cellgated %s, pid %d; load average %s" %
              (a.b, pid, open("/proc/loadavg").read().split()[:3]))
        anchor = {name: mc.median([t for t, _, _ in time_gets(sock, path, a.gets)])
                  for name, path in SMALL}
        api = mc.median([t for t, _, _ in time_gets(sock, "/restconf", a.gets)])
        rss_empty = mc.rss_kb(pid)

        ifx = lambda dev: topo.link("r", dev)["ifindex"]
        cmd = [fpm_bench, "-f", nets, "-p", str(pid), "-s",
               os.path.join(d.rundir, "stats.json"), "-o",
               "%d,%d" % (ifx("r-h2"), ifx("r-h3")), "-m", "load"]
        if a.n:
            cmd += ["-n", str(a.n)]
        if nets6:
            cmd += ["-6", nets6]
        out = topo.exec("r", cmd, timeout=900, check=True).stdout
        print("".join("  fpm_bench: " + ln + "\n" for ln in out.splitlines()))
        nroutes = d.stats()["fib"]["routes"]
        # Steady state: the load (and its table growth) out of the loop gauge's 10 s window.
        time.sleep(10.5)
        rss_steady = mc.rss_kb(pid)

        probe = mc.Prober(sock, "/restconf", 0.02)
        probe.start()
        loop0, lsamp = loop_state(sock), LoopSampler(sock)
        lsamp.start()
        print("with %d routes in the FIB (anchor: the same GET before the load, "
              "0 FPM routes); medians of %d, ms; RSS steady %d MiB" %
              (nroutes, a.gets, rss_steady // 1024), flush=True)
        print("  %-20s %10s %10s %10s %8s %10s" % ("GET", "anchor", "median", "max",
                                                 "status", "bytes"))
        print("  %-20s %10s" % ("/restconf (api root)", fmt_ms(api)), flush=True)
        rows = []
        for name, path in ([] if a.skip_small else SMALL):
            g = time_gets(sock, path, a.gets)
            rows.append((name, anchor[name], [t for t, _, _ in g], g[-1][1], g[-1][2]))
            ts = rows[-1][2]
            print("  %-20s %10s %10s %10s %8d %10d" % (name, fmt_ms(anchor[name]),
                                                      fmt_ms(mc.median(ts)), fmt_ms(max(ts)),
                                                      g[-1][1], g[-1][2]), flush=True)

        # Route list, with a small GET probing alongside and the RSS sampled.
        lists, small_during = [], mc.Prober(sock, STATE + "/fpm", 0.02)
        sampler = mc.RssSampler(pid)
        sampler.start()
        small_during.start()
        for _ in range(a.lists):
            rcnt = RouteCounter()
            t = time.monotonic()
            try:
                r = mc.get(sock, STATE + "/fib/route", sink=rcnt, timeout=1800)
                lists.append((r.elapsed, rcnt.n, r.nbytes, r.status,
                              r.headers.get("transfer-encoding", "")))
            except OSError as e:
                lists.append((time.monotonic() - t, rcnt.n, 0, 0, str(e)))
            t, n, nb, st, te = lists[-1]
            print("  route list: %d routes, %.1f MB in %.2f s = %.0f routes/s "
                  "(status %d%s)" % (n, nb / 1e6, t, n / t if t else 0, st,
                                     ", " + te if te else ""), flush=True)
        small_during.stop()
        sampler.stop()
        rss_after_lists = mc.rss_kb(pid)

        full = None
        if a.full_state:
            s2 = mc.RssSampler(pid)
            s2.start()
            g = time_gets(sock, STATE, 1, timeout=3600)[0]
            s2.stop()
            full = (g[0], g[2], g[1], s2.peak_kb)
            print("  full GET /state: %.2f s, %.1f MB, status %d, RSS peak %d MiB" %
                  (full[0], full[1] / 1e6, full[2], full[3] // 1024), flush=True)

        # Writes: add static routes one by one (each rewrites the startup file).
        wl = []
        for i in range(a.writes):
            body = {"cellgate:static-route": [{"prefix": "10.201.%d.0/24" % i,
                                               "nexthop": [{"address": "10.0.2.2"}]}]}
            r = mc.request(sock, "POST", DATA + "/routing", body=body)
            if r.status not in (200, 201, 204):
                print("write %d: %d %r" % (i, r.status, r.body[:200]))
            wl.append(r.elapsed)
        for i in range(a.writes):
            mc.request(sock, "DELETE", DATA + "/routing/static-route=10.201.%d.0%%2F24" % i)
        probe.stop()
        lsamp.stop()
        loop1 = loop_state(sock)

        sl = small_during.lat
        print("  small GET (state/fpm) during the route-list GETs: %d requests, "
              "median %s ms, p99 %s ms, max %s ms%s" %
              (len(sl), fmt_ms(mc.median(sl)), fmt_ms(mc.pct(sl, 99)),
               fmt_ms(max(sl) if sl else 0),
               ", failures %s" % small_during.bad[:5] if small_during.bad else ""))
        print("  write (POST one static route + startup file rewrite), %d: median %s ms,"
              " p99 %s ms, max %s ms" % (len(wl), fmt_ms(mc.median(wl)),
                                         fmt_ms(mc.pct(wl, 99)), fmt_ms(max(wl))))
        pl = probe.lat
        print("  loop probe (GET /restconf every 20 ms, whole run): %d requests, "
              "p99 %s ms, max %s ms" % (len(pl), fmt_ms(mc.pct(pl, 99)),
                                        fmt_ms(max(pl) if pl else 0)))
        if loop0 and loop1:
            print("  daemon's loop lag over the measurements: p50 <= %.1f ms, p99 <= %.1f ms, "
                  "worst seen %.1f ms (its busy part, the daemon's own work: worst %.1f ms); "
                  "since start (the FPM load included): max %.1f ms, busy max %.1f ms" %
                  (lag_pct(loop0, loop1, 50) / 1000, lag_pct(loop0, loop1, 99) / 1000,
                   lsamp.lag / 1000, lsamp.busy / 1000, loop1["lag-max"] / 1000,
                   loop1["busy-max"] / 1000))
        else:
            print("  daemon's loop lag: no gauge in this build")
        print("  RSS: empty table %d MiB, steady with the table %d MiB, peak during "
              "route-list GETs %d MiB, after them %d MiB" %
              (rss_empty // 1024, rss_steady // 1024, sampler.peak_kb // 1024,
               rss_after_lists // 1024))
        if a.six:
            print("  IPv6 routes in the FIB6: %d" % d.stats()["fib6"]["routes"])
            ipv6_measures(sock, a.lists)
        print("  load average at the end: %s" % open("/proc/loadavg").read().split()[:3])
    finally:
        if d:
            d.stop(timeout=60)
        topo.destroy()
        if not a.f:
            os.unlink(nets)
        if nets6 and not a.f6:
            os.unlink(nets6)


if __name__ == "__main__":
    main()
