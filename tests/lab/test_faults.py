# SPDX-License-Identifier: BSD-2-Clause
"""Faults a running router must survive (issue "run it like a service", 7):

  overload     trafgen from h1 unpaced, on the worker's own CPU, offers far
               more than the worker forwards: the surplus is lost in the
               kernel's RX ring and counted (rx-ring-drops), what the worker
               did take is accounted exactly, and RESTCONF keeps answering;
  kill -9      under a ping flow, after a change made over RESTCONF: the
               restart from the same startup file has the change and
               forwards again;
  link         a router port down and up: traffic stops and resumes, the
               counters RESTCONF shows follow (the state model has no port
               oper-status leaf: see README, Troubleshooting);
  disk full    the startup file on a 64 KiB tmpfs filled up: a RESTCONF write
               gets an error document naming the cause, the old file is
               intact byte for byte, the running configuration unchanged,
               and the next write after space is freed succeeds.

zebra and snmpd restarts are test_frr.py's and test_snmp.py's.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest

import lab

# Run on both Ethernet drivers (conftest.py: test ids [afpacket], [afxdp]).
LAB_DRIVERS = lab.DRIVERS_ALL
import restconf as rc

R = "/cellgate:cellgate"
ROUTES = "/restconf/data" + R + "/routing"


def ping_ok(topo, dst="10.0.2.2", count=2):
    p = topo.exec("h1", ["ping", "-n", "-c", str(count), "-i", "0.2", "-W", "1", dst],
                  timeout=count + 10)
    return p.returncode == 0


def warm(topo, d):
    """Resolve h2 (a packet waiting for ARP is held, not yet accounted)."""
    assert lab.wait_for(lambda: ping_ok(topo, count=1), 10)


def udp_sink(topo, host="h2", addr="10.0.2.2", port=9):
    """A UDP socket that never reads: h2 sends no port unreachable back."""
    code = ("import socket,time\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n"
            "s.bind((%r,%d))\ntime.sleep(3600)" % (addr, port))
    return topo.popen(host, [lab.PYTHON, "-c", code])


def stop(proc):
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=5)


# --- overload ----------------------------------------------------------------

def trafgen_udp(topo, path):
    """trafgen config: 64-byte UDP frames h1 -> 10.0.2.2:9 through the router."""
    def hexmac(m):
        return ", ".join("0x" + b for b in m.split(":"))
    rmac, h1mac = topo.mac("r", "r-h1"), topo.mac("h1", "h1-r")
    with open(path, "w") as f:
        f.write("{\n  %s,\n  %s,\n  c16(0x0800),\n"
                "  0x45, 0x00, c16(46), c16(0), c16(0), 64, 17, csumip(14, 33),\n"
                "  10, 0, 1, 2,\n  10, 0, 2, 2,\n"
                "  c16(4000), c16(9), c16(26), c16(0),\n  fill(0x00, 18),\n}\n"
                % (hexmac(rmac), hexmac(h1mac)))


def clear_counters(d):
    r = rc.request(d, "POST", "/restconf/operations/cellgate:clear-counters", None)
    assert r.status == 204, r


def test_clear_counters_with_packets_in_flight(topo, start_daemon):
    """Packets held for ARP when the counters are cleared are counted as
    received after the clear: when they end (here as arp-failed, the next
    hop 10.0.2.99 never answers) the rule rx = forwarded + to-kernel + drops
    holds on the cleared counters too."""
    d = start_daemon(config=lab.default_config(extra_system={"arp-retries": 1}),
                     check_accounting=False)
    warm(topo, d)
    lab.send_udp(topo, "h1", "10.77.0.1", count=4)
    assert lab.wait_for(lambda: d.stats()["workers"][0]["arp-held"] == 4, 2, 0.05)
    clear_counters(d)
    assert lab.wait_for(lambda: d.stats()["workers"][0]["arp-held"] == 0, 6, 0.1)
    e = lab.port_of(d, "eth0")
    assert e["drops"]["arp-failed"] == 4, e
    assert not lab.accounting_errors(d.stats()), lab.accounting_errors(d.stats())
    # The four held ones are received after the clear; the host's own ARP to the
    # router meanwhile (an entry going stale) is received too, and goes to the kernel.
    assert e["rx-packets"] - e["to-kernel"] == 4, e
    assert e["forwarded"] == 0, e


@pytest.mark.skipif(not shutil.which("trafgen"), reason="trafgen (netsniff-ng) not installed")
def test_clear_counters_under_load_keeps_accounting(topo, start_daemon):
    """clear-counters again and again while the worker (CPU 1) is kept busy
    by trafgen (CPU 0): afterwards the accounting rule holds exactly on the
    counters measured from the last clear, because the baseline is taken by
    the worker between bursts, not read while a burst is half counted."""
    d = start_daemon(config=lab.default_config(worker_cpu=[1]), check_accounting=False)
    warm(topo, d)
    sink = udp_sink(topo)
    work = tempfile.mkdtemp(prefix="cglab-faults-")
    try:
        cfg = os.path.join(work, "udp64.trafgen")
        trafgen_udp(topo, cfg)
        tx0 = topo.link("h1", "h1-r")["stats64"]["tx"]["packets"]
        gen = topo.popen("h1", ["timeout", "-s", "INT", "5", "taskset", "-c", "0", "trafgen",
                                "-o", "h1-r", "-i", cfg, "-P", "1", "--no-sock-mem", "-Q",
                                "-C"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(0.5)
        t0, clears = time.monotonic(), 0
        while time.monotonic() - t0 < 3.5:
            clear_counters(d)
            clears += 1
        out, _ = gen.communicate(timeout=30)
        tx = topo.link("h1", "h1-r")["stats64"]["tx"]["packets"] - tx0
        print("%d clears in 3.5 s during a 5 s load of %d frames" % (clears, tx))
        # The worker may still be working through the ring: wait until it is done.
        last = [None]

        def settled():
            rx = lab.port_of(d, "eth0")["rx-packets"]
            done, last[0] = rx == last[0], rx
            return done
        assert lab.wait_for(settled, 20, 0.5), "eth0 still receiving"
        errs = lab.wait_for(lambda: not lab.accounting_errors(d.stats()), 6, 0.25)
        e0 = lab.port_of(d, "eth0")
        assert errs, lab.accounting_errors(d.stats())
        # And RESTCONF, which the clear affects the same way.
        p = rc.port_state(d, "eth0")
        assert int(p["rx-packets"]) == int(p["forwarded"]) + int(p["to-kernel"]) + \
            int(p["drops-total"]), p
        assert clears >= 20 and e0["rx-packets"] > 1000, (clears, e0, out)
    finally:
        stop(sink)
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.skipif(not shutil.which("trafgen"), reason="trafgen (netsniff-ng) not installed")
def test_overload_accounting_exact_and_restconf_answers(topo, start_daemon):
    # One trafgen alone does not outrun a worker with a CPU of its own (both
    # ~370k 64-byte frames/s here). So they share CPU 0, and trafgen runs
    # at a real-time priority above the worker's (SCHED_FIFO 1, worker.c):
    # it (and the veth receive work it drives) takes the CPU whenever it
    # can send, the worker the rest, and the offered load is several times
    # what the worker can forward.
    d = start_daemon(config=lab.default_config(worker_cpu=[0]))
    warm(topo, d)
    sink = udp_sink(topo)
    work = tempfile.mkdtemp(prefix="cglab-faults-")
    latencies, failures, done = [], [], threading.Event()

    def poll_restconf():
        while not done.is_set():
            t0 = time.monotonic()
            try:
                r = rc.get(d, R + "/state/port=eth0", timeout=10)
                if r.status != 200:
                    failures.append(repr(r))
            except Exception as e:  # noqa: BLE001 - any failure is reported
                failures.append(str(e))
            latencies.append(time.monotonic() - t0)
            time.sleep(0.2)

    try:
        cfg = os.path.join(work, "udp64.trafgen")
        trafgen_udp(topo, cfg)
        before = lab.port_of(d, "eth0")
        tx0 = topo.link("h1", "h1-r")["stats64"]["tx"]["packets"]
        poller = threading.Thread(target=poll_restconf, daemon=True)
        poller.start()
        secs = 4
        t0 = time.monotonic()
        # timeout -s INT: trafgen's own way to stop (exit 124 from timeout).
        p = topo.exec("h1", ["timeout", "-s", "INT", str(secs), "chrt", "-f", "2",
                             "taskset", "-c", "0",
                             "trafgen", "-o", "h1-r", "-i", cfg, "-P", "1", "--no-sock-mem",
                             "-Q", "-C"], timeout=secs + 20)
        elapsed = time.monotonic() - t0
        done.set()
        poller.join(timeout=15)
        assert p.returncode in (0, 124), p.stderr
        tx = topo.link("h1", "h1-r")["stats64"]["tx"]["packets"] - tx0
        # Accounting is exact once every frame the worker took is settled.
        assert lab.wait_for(lambda: not lab.accounting_errors(d.stats()), 6, 0.25), \
            lab.accounting_errors(d.stats())
        after = lab.port_of(d, "eth0")
    finally:
        done.set()
        stop(sink)
        shutil.rmtree(work, ignore_errors=True)
    rx = after["rx-packets"] - before["rx-packets"]
    fwd = after["forwarded"] - before["forwarded"]
    ring = after["rx-ring-drops"] - before["rx-ring-drops"]
    print("overload: offered %d frames in %.1f s (%.0f/s), worker rx %d, forwarded %d "
          "(%.0f/s), rx-ring-drops %d; RESTCONF %d GETs, slowest %.2f s" %
          (tx, elapsed, tx / elapsed, rx, fwd, fwd / elapsed, ring, len(latencies),
           max(latencies or [0])))
    # Overloaded: at least twice what was forwarded was offered...
    assert tx >= 2 * fwd, (tx, fwd)
    # ...and the surplus the worker never saw is counted where it was lost.
    assert ring > 0
    assert rx + ring <= tx
    # The control thread kept serving: a GET at least every second or so,
    # none slower than 3 s, none failed.
    assert not failures, failures[:3]
    assert len(latencies) >= secs, latencies
    assert max(latencies) < 3.0, latencies


# --- kill -9 and restart ---------------------------------------------------------

def test_kill9_under_traffic_restart_keeps_config_and_forwards(topo, start_daemon):
    d = start_daemon()
    warm(topo, d)
    r = rc.request(d, "POST", ROUTES, {"cellgate:static-route": [
        {"prefix": "10.123.0.0/24", "action": "blackhole"}]})
    assert r.status == 201, r
    r = rc.request(d, "PATCH", "/restconf/data" + R + "/system",
                   {"cellgate:system": {"icmp-burst": 23}})
    assert r.status == 204, r
    with open(d.cfg, "rb") as f:
        startup = f.read()

    # A ping every 50 ms from h1 to h2 for the whole test.
    flow = topo.popen("h1", ["ping", "-n", "-i", "0.05", "-W", "1", "10.0.2.2"],
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1)
        pid = d.proc.pid
        os.kill(pid, signal.SIGKILL)
        d.proc.wait(timeout=5)
        killed_at = time.monotonic()
        # What the killed daemon leaves: its pidfile and RESTCONF socket; the
        # netdevs are the host's veths, still up.
        os.unlink(os.path.join(d.rundir, "cellgated.pid"))
        with open(d.cfg, "rb") as f:
            assert f.read() == startup
        # Restart from that very file (Daemon.start writes d.config back).
        d.config = json.loads(startup)
        d.start()
        restarted_at = time.monotonic()
        assert lab.wait_for(lambda: ping_ok(topo, count=1), 10)
        resumed_at = time.monotonic()
    finally:
        flow.send_signal(signal.SIGINT)
        try:
            out, _ = flow.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            stop(flow)
            out = ""
    print("kill -9: restart took %.2f s, forwarding again %.2f s after the kill; ping: %s" %
          (restarted_at - killed_at, resumed_at - killed_at,
           [ln for ln in out.splitlines() if "transmitted" in ln]))
    route = rc.get(d, R + "/state/fib/route=10.123.0.0%2F24")
    assert route.status == 200 and route.json()["cellgate:route"][0]["type"] == "blackhole"
    assert rc.get(d, R + "/system/icmp-burst").json() == {"cellgate:icmp-burst": 23}
    # The flow itself goes through the new daemon.
    before = lab.port_of(d, "eth0")["forwarded"]
    assert ping_ok(topo, count=5)
    assert lab.port_of(d, "eth0")["forwarded"] >= before + 5


# --- link down / up --------------------------------------------------------------

def test_link_down_up_counters_follow(topo, start_daemon):
    d = start_daemon()
    warm(topo, d)
    sink = udp_sink(topo)
    try:
        eth0 = rc.port_state(d, "eth0")
        eth1 = rc.port_state(d, "eth1")
        assert eth1["oper-status"] == "up", eth1
        h2rx = topo.counters("h2", "h2-r")[0]
        topo.exec("r", ["ip", "link", "set", "r-h2", "down"], check=True)
        try:
            # The port's state follows its link.
            assert rc.port_state(d, "eth1")["oper-status"] == "down"
            assert rc.port_state(d, "eth0")["oper-status"] == "up"
            # cellgated notices within its 100 ms link poll.
            assert lab.wait_for(lambda: "port eth1 (r-h2): link down" in d.log(), 3), d.log()
            lab.send_udp(topo, "h1", "10.0.2.2", count=50, interval=0.01, dport=9)
            assert not ping_ok(topo, count=1)
            # RESTCONF answers while a port is down; every one of the 50
            # entered eth0 and is accounted there; none reached h2.
            down0 = rc.port_state(d, "eth0")
            down1 = rc.port_state(d, "eth1")
            assert int(down0["rx-packets"]) >= int(eth0["rx-packets"]) + 50
            assert topo.counters("h2", "h2-r")[0] == h2rx
            # Nothing is handed to the downed port's ring: all 50 (and the
            # ping) are dropped as link-down on eth0, none sent on eth1.
            drops = {x["reason"]: int(x["packets"]) for x in down0["drop"]}
            drops0 = {x["reason"]: int(x["packets"]) for x in eth0["drop"]}
            assert drops["link-down"] - drops0["link-down"] >= 50, drops
            assert int(down1["tx-packets"]) == int(eth1["tx-packets"]), (eth1, down1)
        finally:
            topo.exec("r", ["ip", "link", "set", "r-h2", "up"], check=True)
        assert lab.wait_for(lambda: ping_ok(topo, count=1), 15)
        mid = rc.port_state(d, "eth1")
        assert mid["oper-status"] == "up", mid
        lab.send_udp(topo, "h1", "10.0.2.2", count=50, interval=0.01, dport=9)
        assert lab.wait_for(lambda: int(rc.port_state(d, "eth1")["tx-packets"]) >=
                            int(mid["tx-packets"]) + 50, 5)
    finally:
        stop(sink)
    assert lab.wait_for(lambda: not lab.accounting_errors(d.stats()), 6, 0.25)


# --- disk full while persisting --------------------------------------------------

def test_disk_full_keeps_old_startup_file(topo, request, cellgated_bin):
    mnt = tempfile.mkdtemp(prefix="cglab-tmpfs-")
    lab.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", mnt])

    def unmount():
        subprocess.run(["umount", "-l", mnt], check=False)
        os.rmdir(mnt)
    request.addfinalizer(unmount)

    d = lab.Daemon(topo, lab.default_config(), binary=cellgated_bin)
    d.cfg = os.path.join(mnt, "cellgated.json")

    def fin():
        code, log = d.stop()
        assert code == 0, log[-3000:]
        assert not lab.sanitizer_errors(log), lab.sanitizer_errors(log)
        shutil.rmtree(d.dir, ignore_errors=True)
    request.addfinalizer(fin)
    d.start()

    with open(d.cfg, "rb") as f:
        old = f.read()
    system = rc.get(d, R + "/system").json()
    fib = rc.get(d, R + "/state/fib/route").json()
    # Fill the tmpfs to the last byte.
    filler = os.path.join(mnt, "filler")
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
        except OSError:
            pass
    r = rc.request(d, "POST", ROUTES, {"cellgate:static-route": [
        {"prefix": "10.125.0.0/24", "action": "blackhole"}]})
    assert r.status == 500, r
    err = r.error()
    assert err["error-tag"] == "operation-failed"
    assert "No space left on device" in err["error-message"], err
    assert d.cfg in err["error-message"]
    with open(d.cfg, "rb") as f:
        assert f.read() == old
    assert sorted(os.listdir(mnt)) == ["cellgated.json", "filler"], "temporary file left"
    assert rc.get(d, R + "/system").json() == system
    assert rc.get(d, R + "/state/fib/route").json() == fib
    assert rc.get(d, R + "/state/fib/route=10.125.0.0%2F24").status != 200
    # Space again: the same write goes through and lands in the file.
    os.unlink(filler)
    r = rc.request(d, "POST", ROUTES, {"cellgate:static-route": [
        {"prefix": "10.125.0.0/24", "action": "blackhole"}]})
    assert r.status == 201, r
    with open(d.cfg) as f:
        saved = json.load(f)["cellgate:cellgate"]["routing"]["static-route"]
    assert "10.125.0.0/24" in {x["prefix"] for x in saved}
