# SPDX-License-Identifier: BSD-2-Clause
"""Latency and idle cost of the Ethernet path (issue 13): a lone packet is
forwarded within microseconds, not held for a ring timer or a poll timeout,
and a worker with nothing to do leaves its CPU alone.

The bounds are far from what cellgated does (tens of microseconds, a fraction
of a percent of a core; BENCHMARKS.md has the figures, tests/bench/rr-bench.sh
measures them against the kernel) so that a loaded machine does not make the
tests flaky, while a regression to millisecond latency (a ring handing frames
over on a 1 ms timer, a worker sleeping in 5 ms polls) or to a spinning idle
worker fails them.
"""

import time

import lab

# The ASan/UBSan build's bound is twice the optimised build's: its -O1 code
# and shadow checks stretch each delay the shared machine adds (a p99 of
# 3.7-4.9 ms in three tries once, medians 0.11-0.16 ms). A worker back in 5 ms
# polls (p99 ~5 ms) still fails it; a 1 ms ring timer is the optimised build's
# to catch.
P99_MAX_MS = 4.0 if lab.cellgated_sanitized() else 2.0
IDLE_CPU_MAX = 0.05
P99_TRIES = 5
P99_PAUSE_S = 1.0


def check_p99(measure, count, what, tries=P99_TRIES):
    """p99 under the bound in one of `tries` runs of measure(), a pause
    apart: a regression (a ring timer, a poll timeout) fails every run, while
    a burst of load on the shared machine delaying a few pings of one run
    does not."""
    seen = []
    for i in range(tries):
        if i:
            time.sleep(P99_PAUSE_S)
        rtts = measure()
        assert len(rtts) >= 0.99 * count, "%s: %d of %d replies" % (what, len(rtts), count)
        p50, p99 = lab.percentile(rtts, 0.5), lab.percentile(rtts, 0.99)
        print("%s: %d pings, median %.3f ms, p99 %.3f ms, max %.3f ms" %
              (what, len(rtts), p50, p99, max(rtts)))
        if p99 < P99_MAX_MS:
            return
        seen.append("p99 %.3f ms (median %.3f)" % (p99, p50))
    raise AssertionError("%s: ping RTT over %.1f ms in every run: %s" %
                         (what, P99_MAX_MS, "; ".join(seen)))


def test_ping_p99_through_router(topo, router):
    # Warm: ARP resolved both ways before measuring.
    assert len(lab.ping_rtts(topo, "h1", "10.0.2.2", 3, 0.2)) == 3
    # Every 5 ms: the worker has gone to sleep before each one arrives.
    check_p99(lambda: lab.ping_rtts(topo, "h1", "10.0.2.2", 500, 0.005), 500,
              "h1 -> h2, 5 ms apart")
    # Every millisecond, and back to back.
    check_p99(lambda: lab.ping_rtts(topo, "h1", "10.0.2.2", 1000, 0.001), 1000,
              "h1 -> h2, 1 ms apart")


def test_idle_worker_cpu(topo, router):
    workers = lab.worker_threads(router)
    assert workers, "no cg-worker thread in /proc/%d/task" % router.proc.pid
    time.sleep(1)  # whatever traffic came before has settled
    pid = router.proc.pid
    t0 = time.monotonic()
    c0 = {n: lab.thread_cpu_seconds(pid, t) for n, t in workers.items()}
    time.sleep(10)
    dt = time.monotonic() - t0
    for n, t in workers.items():
        share = (lab.thread_cpu_seconds(pid, t) - c0[n]) / dt
        print("%s: %.2f %% of a core over %.1f s idle" % (n, 100 * share, dt))
        assert share <= IDLE_CPU_MAX, "%s used %.1f %% of a core idle" % (n, 100 * share)
