# SPDX-License-Identifier: BSD-2-Clause
"""cellgated on driver afxdp (and auto) as the kernel sees it: h1 - r - h2 (+ h3).

What a reader learns here: on afxdp the XDP program on the router's veths
sends transit IPv4 and IPv6 to cellgated and passes the host's own traffic
to the kernel, which still answers ping and ARP, neighbour discovery and
ping6 for every address the namespace has, including one added while
cellgated runs, and keeps a port without IPv6 addresses' IPv6 to itself;
every IPv6 frame it passed counts as IPv6 in and to-kernel; ARP and
neighbour advertisements still feed cellgated's neighbour tables; hosts
that leave checksums to offload are forwarded with complete ones; `driver auto` takes afpacket where afxdp cannot open (here:
someone else's XDP program on the netdev) and says so; a killed cellgated
leaves no program behind; after `-u` the port keeps working.
"""

import json
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


@pytest.fixture(scope="module")
def topo_options():
    # IPv6 on the hosts (lab.HOSTS6); the router's ports get theirs from
    # afxdp6_config only.
    return {"ipv6": True}


def afxdp_config(driver="afxdp", drivers=None, **kw):
    """The lab configuration with every port on `driver` (or drivers[name])."""
    cfg = lab.default_config(**kw)
    for p in cfg["cellgate:cellgate"]["port"]:
        p["driver"] = (drivers or {}).get(p["name"], driver)
    return cfg


def afxdp6_config():
    """afxdp everywhere, IPv6 addresses on eth0 and eth1 (not on eth2)."""
    cfg = afxdp_config()
    for p in cfg["cellgate:cellgate"]["port"]:
        host = {"eth0": "h1", "eth1": "h2"}.get(p["name"])
        if host:
            p["ipv6"] = {"address": [{"ip": lab.HOSTS6[host][1],
                                      "prefix-length": 64}]}
    return cfg


def ping6(topo, host, dst, count=3):
    return topo.exec(host, ["ping", "-6", "-n", "-c", str(count), "-i", "0.2",
                            "-W", "1", dst], timeout=count + 10)


def router_link_local(topo, dev):
    """The router's fe80:: address on `dev` once DAD is done, or None."""
    def find():
        p = topo.exec("r", ["ip", "-6", "-j", "addr", "show", "dev", dev],
                      check=True)
        for link in json.loads(p.stdout):
            for a in link.get("addr_info", []):
                if a.get("scope") == "link" and "tentative" not in a:
                    return a["local"]
        return None
    return lab.wait_for(find, timeout=5) and find()


def accounting6_errors(stats):
    """Ports breaking ipv6-in == ipv6-forwarded + ipv6-to-kernel + ipv6-discards."""
    return ["%s: %s" % (p["name"], {k: v for k, v in p.items()
                                    if k.startswith("ipv6-")})
            for p in stats["ports"]
            if p["ipv6-in-packets"] != p["ipv6-forwarded"] +
            p["ipv6-to-kernel"] + p["ipv6-discards"]]


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


def test_ipv6_transit_through_xsk(topo, start_daemon):
    """Transit IPv6 goes through the XSK and is forwarded by cellgated; the
    router's own addresses (the ingress port's and another port's), its
    link-local one and neighbour discovery are the kernel's."""
    d = start_daemon(afxdp6_config())
    assert "passes received IPv6" not in d.log()
    ping6(topo, "h1", "2001:db8:2::2", count=1)  # may wait for ND: not counted
    dec0, e00 = decisions(d, "eth0"), lab.port_of(d, "eth0")
    p = ping6(topo, "h1", "2001:db8:2::2", count=5)
    assert p.returncode == 0 and " 0% packet loss" in p.stdout, \
        (p.stdout, decisions(d, "eth0"), d.stats()["neighbors6"])
    dec1, e01 = decisions(d, "eth0"), lab.port_of(d, "eth0")
    assert dec1["redirect-ipv6"] - dec0["redirect-ipv6"] >= 5, dec1
    assert lab.counter_delta(e00, e01, "ipv6-forwarded") >= 5, e01
    # h2's advertisement went to the kernel; the ND tap (xdp_nd.c) saw it.
    n6 = [n for n in d.stats()["neighbors6"] if n["address"] == "2001:db8:2::2"]
    assert n6 and n6[0]["mac"].lower() == topo.mac("h2", "h2-r").lower(), n6
    for dst in ("2001:db8:1::1", "2001:db8:2::1"):
        assert ping6(topo, "h1", dst).returncode == 0, dst  # the kernel's
    ll = router_link_local(topo, "r-h1")
    assert ll, "no link-local address on r-h1"
    assert ping6(topo, "h1", ll + "%h1-r").returncode == 0
    dec2, e02 = decisions(d, "eth0"), lab.port_of(d, "eth0")
    assert dec2["pass-ipv6-own-address"] - dec1["pass-ipv6-own-address"] >= 6, dec2
    assert dec2["pass-ipv6-link-local"] - dec1["pass-ipv6-link-local"] >= 3, dec2
    # h1's solicitations for the router's addresses, to Ethernet multicast.
    assert dec2["pass-ipv6-l2-group"] >= 1, dec2
    assert dec2["redirect-ipv6"] == dec1["redirect-ipv6"], dec2
    assert lab.counter_delta(e01, e02, "ipv6-to-kernel") >= 9, e02
    assert lab.counter_delta(e01, e02, "ipv6-forwarded") == 0, e02
    assert lab.wait_for(lambda: not accounting6_errors(d.stats()), timeout=6,
                        interval=0.25), accounting6_errors(d.stats())


def test_ipv6_address_added_while_running(topo, start_daemon):
    """cg_local6 follows the namespace's IPv6 addresses (rtnetlink)."""
    d = start_daemon(afxdp6_config())
    topo.exec("r", ["ip", "-6", "addr", "add", "2001:db8:1::50/64", "dev",
                    "r-h1", "nodad"], check=True)
    try:
        before = decisions(d, "eth0")["pass-ipv6-own-address"]
        assert lab.wait_for(lambda: ping6(topo, "h1", "2001:db8:1::50", 1)
                            .returncode == 0, timeout=5)
        assert decisions(d, "eth0")["pass-ipv6-own-address"] > before
    finally:
        topo.exec("r", ["ip", "-6", "addr", "del", "2001:db8:1::50/64", "dev",
                        "r-h1"])


def test_ipv6_port_without_addresses(topo, start_daemon):
    """eth2 has no `ipv6`: its IPv6 is the kernel's, as with afpacket."""
    d = start_daemon(afxdp6_config())
    ll = router_link_local(topo, "r-h3")
    assert ll, "no link-local address on r-h3"
    before = decisions(d, "eth2")
    assert ping6(topo, "h3", ll + "%h3-r").returncode == 0
    after = decisions(d, "eth2")
    assert after["pass-ipv6-off"] - before["pass-ipv6-off"] >= 3, after
    assert after["redirect-ipv6"] == 0 and after["pass-ipv6-link-local"] == 0, after
    e2 = lab.port_of(d, "eth2")
    assert e2["ipv6-forwarded"] == 0 and e2["ipv6-to-kernel"] >= 3, e2
    assert not accounting6_errors(d.stats())
