# SPDX-License-Identifier: BSD-2-Clause
"""cellgated on driver afxdp (and auto) as the kernel sees it: h1 - r - h2 (+ h3).

What a reader learns here: on afxdp the XDP program on the router's veths
sends transit IPv4 to cellgated and passes the host's own traffic to the
kernel, which still answers ping and ARP for every address the namespace
has, including one added while cellgated runs; ARP still feeds cellgated's
neighbour table; hosts that leave checksums to offload are forwarded with
complete ones; `driver auto` takes afpacket where afxdp cannot open (here:
someone else's XDP program on the netdev) and says so; a killed cellgated
leaves no program behind; after `-u` the port keeps working.
"""

import os
import signal
import subprocess
import tempfile

import pytest

import lab
import restconf

PASS_PROG = r"""
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp") int other(struct xdp_md *ctx) { return XDP_PASS; }
char LICENSE[] SEC("license") = "BSD";
"""


def afxdp_config(driver="afxdp", drivers=None, **kw):
    """The lab configuration with every port on `driver` (or drivers[name])."""
    cfg = lab.default_config(**kw)
    for p in cfg["cellgate:cellgate"]["port"]:
        p["driver"] = (drivers or {}).get(p["name"], driver)
    return cfg


def ping(topo, host, dst, count=3):
    return topo.exec(host, ["ping", "-n", "-c", str(count), "-i", "0.2",
                            "-W", "1", dst], timeout=count + 10)


def decisions(daemon, port):
    st = restconf.port_state(daemon, port)
    return {d["name"]: int(d["packets"]) for d in st["afxdp"]["decision"]}


def xdp_attached(topo, dev):
    return "prog/xdp" in topo.exec("r", ["ip", "-d", "link", "show", "dev",
                                         dev]).stdout


def test_forwarding_and_own_traffic(topo, start_daemon):
    d = start_daemon(afxdp_config())
    st = restconf.port_state(d, "eth0")
    assert st["driver"] == "afxdp" and st["afxdp"]["mode"] == "copy", st
    assert xdp_attached(topo, "r-h1")
    p = ping(topo, "h1", "10.0.2.2", count=5)
    assert p.returncode == 0, p.stdout + p.stderr  # ARP learned, forwarded
    assert ping(topo, "h1", "10.0.1.1").returncode == 0   # the kernel's
    assert ping(topo, "h1", "10.0.2.1").returncode == 0   # another port's
    dec = decisions(d, "eth0")
    assert dec["redirect"] >= 5 and dec["pass-own-address"] >= 6, dec
    e0 = lab.port_of(d, "eth0")
    assert e0["forwarded"] >= 5 and e0["to-kernel"] >= 6, e0


def test_address_added_while_running(topo, start_daemon):
    """The XDP map follows the namespace's addresses (rtnetlink)."""
    d = start_daemon(afxdp_config())
    topo.exec("r", ["ip", "addr", "add", "10.0.1.50/24", "dev", "r-h1"],
              check=True)
    try:
        before = decisions(d, "eth0")["pass-own-address"]
        assert lab.wait_for(lambda: ping(topo, "h1", "10.0.1.50", 1)
                            .returncode == 0, timeout=5)
        assert decisions(d, "eth0")["pass-own-address"] > before
    finally:
        topo.exec("r", ["ip", "addr", "del", "10.0.1.50/24", "dev", "r-h1"])


def test_host_checksum_offload(topo, start_daemon):
    """h1 leaves UDP/TCP checksums to offload: the XSK cannot say so, the
    driver recognises them and cellgated completes them."""
    d = start_daemon(afxdp_config())
    topo.exec("h1", ["ethtool", "-K", "h1-r", "tx", "on"], check=True)
    try:
        assert ping(topo, "h1", "10.0.2.2", 1).returncode == 0
        srv = topo.popen("h2", ["iperf3", "-s", "-1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert lab.wait_for(lambda: topo.exec(
                "h2", ["ss", "-ltn", "sport = :5201"]).stdout.count("LISTEN"),
                timeout=5)
            c = topo.exec("h1", ["iperf3", "-c", "10.0.2.2", "-t", "1", "-J"],
                          timeout=30)
            assert c.returncode == 0, c.stdout[-2000:] + c.stderr
        finally:
            srv.kill()
            srv.wait()
        e0 = lab.port_of(d, "eth0")
        assert e0["forwarded"] > 100, e0
    finally:
        topo.exec("h1", ["ethtool", "-K", "h1-r", "tx", "off"])


def _load_foreign(topo, dev):
    """Attach someone else's program (XDP_PASS) to the router's `dev`."""
    with tempfile.TemporaryDirectory() as t:
        src, obj = os.path.join(t, "p.c"), os.path.join(t, "p.o")
        with open(src, "w") as f:
            f.write(PASS_PROG)
        multiarch = subprocess.run(["gcc", "-print-multiarch"],
                                   capture_output=True, text=True).stdout.strip()
        subprocess.run(["clang", "-O2", "-g", "-target", "bpf",
                        "-I/usr/include/" + multiarch, "-c", src, "-o", obj],
                       check=True, capture_output=True)
        topo.exec("r", ["ip", "link", "set", "dev", dev, "xdpdrv", "obj", obj,
                        "sec", "xdp"], check=True)


def test_auto_falls_back(topo, start_daemon):
    _load_foreign(topo, "r-h3")
    try:
        d = start_daemon(afxdp_config("auto"))
        drv = {p["name"]: p["driver"] for p in restconf.state(d)["port"]}
        assert drv == {"eth0": "afxdp", "eth1": "afxdp", "eth2": "afpacket"}
        log = d.log()
        assert "port eth0: driver auto: afxdp" in log
        assert "port eth2: driver auto: afpacket" in log
        assert "XDP program id" in log and "r-h3" in log
        assert ping(topo, "h1", "10.0.3.2").returncode == 0
    finally:
        topo.exec("r", ["ip", "link", "set", "dev", "r-h3", "xdpdrv", "off"])


def test_afxdp_refuses_netdev_with_program(topo, cellgated_bin):
    _load_foreign(topo, "r-h3")
    try:
        d = lab.Daemon(topo, afxdp_config(), binary=cellgated_bin)
        with pytest.raises(lab.DaemonError) as e:
            d.start()
        msg = str(e.value)
        assert "port eth2 (netdev r-h3): afxdp: attaching the XDP program" \
            in msg and "ip link set dev r-h3 xdp off" in msg, msg
        assert not xdp_attached(topo, "r-h1"), "eth0's program left behind"
    finally:
        topo.exec("r", ["ip", "link", "set", "dev", "r-h3", "xdpdrv", "off"])


def test_killed_daemon_leaves_no_program(topo, cellgated_bin):
    d = lab.Daemon(topo, afxdp_config(), binary=cellgated_bin)
    d.start()
    assert xdp_attached(topo, "r-h1")
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait(timeout=5)
    assert lab.wait_for(lambda: not any(xdp_attached(topo, dev) for dev in
                                        ("r-h1", "r-h2", "r-h3")), timeout=5)


def test_after_privilege_drop(topo, cellgated_bin):
    """As the unit runs it: -u, CAP_NET_ADMIN and CAP_NET_RAW kept only."""
    d = lab.Daemon(topo, afxdp_config(), binary=cellgated_bin,
                   args=["-u", "nobody"])
    os.chmod(d.dir, 0o755)  # mkdtemp's 0700 would keep nobody out of the rundir
    d.start()
    try:
        assert "running as nobody" in d.log()
        assert ping(topo, "h1", "10.0.2.2").returncode == 0
        assert ping(topo, "h1", "10.0.1.1").returncode == 0
        topo.exec("r", ["ip", "addr", "add", "10.0.1.51/24", "dev", "r-h1"],
                  check=True)
        try:
            assert lab.wait_for(lambda: ping(topo, "h1", "10.0.1.51", 1)
                                .returncode == 0, timeout=5)
        finally:
            topo.exec("r", ["ip", "addr", "del", "10.0.1.51/24", "dev",
                            "r-h1"])
        assert not lab.accounting_errors(d.stats())
    finally:
        code, log = d.stop()
    assert code == 0, log[-3000:]
    assert not any(xdp_attached(topo, dev) for dev in ("r-h1", "r-h2", "r-h3"))
