# SPDX-License-Identifier: BSD-2-Clause
"""Lab topology helpers for cellgate: network namespaces, veths, the daemon.

    h1 (10.0.1.2) --- r-h1 [ r: cellgated ] r-h2 --- h2 (10.0.2.2, lo 10.20.0.1, 10.99.0.1)
                                          r-h3 --- h3 (10.0.3.2, lo 10.99.0.1)

Namespace names carry a per-run prefix ("cglab<pid>x<rand>-") so concurrent
runs never collide.  Everything here shells out to iproute2 with timeouts.
"""

import json
import os
import pathlib
import random
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# CGLAB_NS_PREFIX: another prefix, for runs that must keep apart from the
# shared default (benchmarks started by hand).
NS_PREFIX = os.environ.get("CGLAB_NS_PREFIX", "cglab")

# Address plan: host name -> (router port, router netdev, host veth, host /24
# address, router address, loopback /32 addresses).
HOSTS = {
    "h1": ("eth0", "r-h1", "h1-r", "10.0.1.2", "10.0.1.1", []),
    "h2": ("eth1", "r-h2", "h2-r", "10.0.2.2", "10.0.2.1",
           ["10.20.0.1", "10.99.0.1"]),
    "h3": ("eth2", "r-h3", "h3-r", "10.0.3.2", "10.0.3.1", ["10.99.0.1"]),
}

# IPv6 plan (Topology(ipv6=True)): host name -> (host /64 address, router
# address, loopback /128 addresses).
HOSTS6 = {
    "h1": ("2001:db8:1::2", "2001:db8:1::1", []),
    "h2": ("2001:db8:2::2", "2001:db8:2::1", ["2001:db8:20::1"]),
    "h3": ("2001:db8:3::2", "2001:db8:3::1", []),
}


# The driver of the lab's Ethernet ports (default_config): "afpacket" unless
# a module runs on several (LAB_DRIVERS, conftest.py) or CGLAB_DRIVER says.
DRIVER = os.environ.get("CGLAB_DRIVER", "afpacket")
DRIVERS_ALL = ("afpacket", "afxdp")


def afxdp_object(binary=None):
    """The XDP object the afxdp driver of `binary` loads, or None if there is
    none (a build without libxdp has no afxdp driver)."""
    build = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
        binary or cellgated_path()))), "datapath", "xdp", "cellgate_xdp.bpf.o")
    for path in [build] + [os.path.join(d, "cellgate", "cellgate_xdp.bpf.o")
                           for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib",
                                     "/usr/local/lib")]:
        if os.path.exists(path):
            return path
    return None


def cellgated_path():
    return os.environ.get("CELLGATED",
                          os.path.join(REPO, "build", "daemon", "cellgated"))


def cellgated_sanitized(binary=None):
    """True when the daemon under test is the ASan/UBSan build (it links
    libasan or libubsan): timing bounds in the lab allow for its -O1 code and
    its shadow-memory checks, which stretch every delay the machine adds."""
    binary = binary or cellgated_path()
    try:
        out = subprocess.run(["ldd", binary], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "libasan" in out or "libubsan" in out


def run(cmd, ns=None, timeout=30, check=True, input=None):
    """Run cmd (a list), optionally inside namespace ns; return CompletedProcess."""
    if ns is not None:
        cmd = ["ip", "netns", "exec", ns] + list(cmd)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       input=input)
    if check and p.returncode != 0:
        raise RuntimeError("command failed (%d): %s\nstdout: %s\nstderr: %s" %
                           (p.returncode, " ".join(cmd), p.stdout, p.stderr))
    return p


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale():
    """Delete lab namespaces left behind by runs whose process is gone."""
    p = run(["ip", "-j", "netns", "list"], check=False)
    try:
        entries = json.loads(p.stdout or "[]")
    except ValueError:
        return
    for e in entries:
        name = e.get("name", "")
        if not name.startswith(NS_PREFIX):
            continue
        pidpart = name[len(NS_PREFIX):].split("x", 1)[0]
        if pidpart.isdigit() and not _pid_alive(int(pidpart)):
            run(["ip", "netns", "del", name], check=False)


def fib_algorithm():
    """The FIB algorithm the lab's daemons use: CELLGATE_FIB_ALGORITHM
    (dir-24-8, poptrie; the unit tests read the same variable), or None for
    the daemon's default (poptrie)."""
    return os.environ.get("CELLGATE_FIB_ALGORITHM") or None


def with_fib_algorithm(config):
    """config with system/fib-algorithm set from CELLGATE_FIB_ALGORITHM,
    unless the config names one itself (a copy; config is left alone)."""
    algo = fib_algorithm()
    top = config.get("cellgate:cellgate") if isinstance(config, dict) else None
    if not algo or not isinstance(top, dict):
        return config
    config = json.loads(json.dumps(config))
    system = config["cellgate:cellgate"].setdefault("system", {})
    if isinstance(system, dict):
        system.setdefault("fib-algorithm", algo)
    return config


def default_config(workers=1, worker_cpu=None, extra_system=None,
                   extra_port=None, extra_routes=None):
    """The lab's cellgated configuration (RFC 7951 JSON as a dict).

    extra_system: leaves merged into "system" (e.g. {"arp-retries": 1});
    extra_port: port name -> leaves merged into that port
    (e.g. {"eth0": {"promiscuous": True}}); extra_routes: static routes
    appended to the lab's own. The ports' driver is DRIVER.
    """
    system = {"workers": workers}
    if worker_cpu is not None:
        system["worker-cpu"] = worker_cpu
    if extra_system:
        system.update(extra_system)
    ports = []
    for host in ("h1", "h2", "h3"):
        pname, rdev, _, _, raddr, _ = HOSTS[host]
        ports.append({"name": pname, "driver": DRIVER, "netdev": rdev,
                      "ipv4": {"address": [{"ip": raddr,
                                            "prefix-length": 24}]}})
        ports[-1].update((extra_port or {}).get(pname, {}))
    routes = [
        {"prefix": "10.20.0.0/24", "nexthop": [{"address": "10.0.2.2"}]},
        {"prefix": "10.99.0.0/24", "nexthop": [{"address": "10.0.2.2"},
                                               {"address": "10.0.3.2"}]},
        {"prefix": "10.66.0.0/16", "action": "blackhole"},
        {"prefix": "10.77.0.0/24", "nexthop": [{"address": "10.0.2.99"}]},
    ] + list(extra_routes or [])
    return {"cellgate:cellgate": {"system": system, "port": ports,
                                  "routing": {"static-route": routes}}}


class Topology:
    """h1 - r - h2 (+ h3) in fresh namespaces.  Use create()/destroy()."""

    def __init__(self, hosts=("h1", "h2", "h3"), owner_pid=None, mtu=None,
                 offloads=False, ipv6=False):
        # The owner pid is part of the name so sweep_stale() can tell live
        # runs from leftovers of killed ones.
        tag = "%s%dx%04x" % (NS_PREFIX, owner_pid or os.getpid(),
                             random.getrandbits(16))
        self.tag = tag
        self.hosts = list(hosts)
        self.ns = {n: "%s-%s" % (tag, n) for n in ["r"] + self.hosts}
        self.created = []
        # Router-side netdev -> MTU, set before cellgated starts (it reads
        # the MTU once, at start), e.g. {"r-h2": 1280}.
        self.mtu = dict(mtu or {})
        # True: leave TSO/GSO/GRO/TX checksumming on the host veths as veth
        # creates them, so hosts send GSO super-packets with partial
        # checksums (cellgated takes them through PACKET_VNET_HDR).
        self.offloads = offloads
        # True: IPv6 on, the hosts addressed and routed as HOSTS6 says (the
        # router's addresses are cellgated's, from its port/ipv6).
        self.ipv6 = ipv6

    @property
    def r(self):
        return self.ns["r"]

    def __getitem__(self, name):
        return self.ns[name]

    def create(self):
        sweep_stale()
        try:
            self._create()
        except BaseException:
            self.destroy()
            raise
        return self

    def _create(self):
        for ns in self.ns.values():
            run(["ip", "netns", "add", ns])
            self.created.append(ns)
            run(["ip", "-n", ns, "link", "set", "lo", "up"])
            # No IPv6 chatter (RS/MLD/ND): counters stay deterministic.
            # With ipv6: on, without router advertisements or autoconf.
            v6 = "0" if self.ipv6 else "1"
            run(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=" + v6,
                 "net.ipv6.conf.default.disable_ipv6=" + v6,
                 "net.ipv6.conf.default.accept_ra=0",
                 "net.ipv6.conf.default.autoconf=0"], ns=ns)
        run(["sysctl", "-qw", "net.ipv6.conf.all.forwarding=0"], ns=self.r)
        run(["sysctl", "-qw", "net.ipv4.ip_forward=0"], ns=self.r)
        for host in self.hosts:
            _, rdev, hdev, haddr, raddr, loaddrs = HOSTS[host]
            hns = self.ns[host]
            run(["ip", "-n", self.r, "link", "add", rdev, "type", "veth",
                 "peer", "name", hdev, "netns", hns])
            run(["ip", "-n", hns, "addr", "add", haddr + "/24", "dev", hdev])
            for a in loaddrs:
                run(["ip", "-n", hns, "addr", "add", a + "/32", "dev", "lo"])
            # By default frames stay <= MTU with complete checksums (no
            # TSO/GSO, no partial checksums): packet counts and captures in
            # the tests are then per wire frame.
            if not self.offloads:
                run(["ethtool", "-K", hdev, "tso", "off", "gso", "off", "gro",
                     "off", "tx", "off"], ns=hns)
            run(["ip", "-n", hns, "link", "set", hdev, "up"])
            run(["ip", "-n", hns, "route", "add", "default", "via", raddr])
            if self.ipv6:
                haddr6, raddr6, lo6 = HOSTS6[host]
                run(["ip", "-n", hns, "-6", "addr", "add", haddr6 + "/64",
                     "dev", hdev, "nodad"])
                for a in lo6:
                    run(["ip", "-n", hns, "-6", "addr", "add", a + "/128",
                         "dev", "lo"])
                run(["ip", "-n", hns, "-6", "route", "add", "default", "via",
                     raddr6])
            if rdev in self.mtu:
                run(["ip", "-n", self.r, "link", "set", rdev, "mtu",
                     str(self.mtu[rdev])])
            # The router side stays down and unaddressed: cellgated owns it.
            run(["ip", "-n", self.r, "link", "set", rdev, "up"])

    def destroy(self):
        for ns in reversed(self.created):
            # Kill anything still running inside before deleting the netns.
            p = run(["ip", "netns", "pids", ns], check=False)
            for pid in p.stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            run(["ip", "netns", "del", ns], check=False)
        self.created = []

    # --- inspection helpers -------------------------------------------
    def link(self, ns_name, dev):
        p = run(["ip", "-n", self.ns[ns_name], "-j", "-s", "link", "show",
                 "dev", dev])
        return json.loads(p.stdout)[0]

    def mac(self, ns_name, dev):
        return self.link(ns_name, dev)["address"]

    def counters(self, ns_name, dev):
        """(rx_packets, tx_packets, rx_dropped, tx_dropped) of a netdev."""
        s = self.link(ns_name, dev)["stats64"]
        return (s["rx"]["packets"], s["tx"]["packets"], s["rx"]["dropped"],
                s["tx"]["dropped"])

    def exec(self, ns_name, cmd, timeout=30, check=False, input=None):
        return run(cmd, ns=self.ns[ns_name], timeout=timeout, check=check,
                   input=input)

    def popen(self, ns_name, cmd, **kw):
        return subprocess.Popen(["ip", "netns", "exec", self.ns[ns_name]] +
                                list(cmd), **kw)


class DaemonError(Exception):
    pass


class Daemon:
    """cellgated running in a namespace of a Topology (the router's by default)."""

    def __init__(self, topo, config, binary=None, args=(), ns="r", env=None):
        self.topo = topo
        self.env = env  # the environment to run it with (None: ours)
        self.ns = ns
        self.config = config
        self.binary = binary or cellgated_path()
        self.args = list(args)
        self.dir = tempfile.mkdtemp(prefix="cglab-run-")
        self.rundir = os.path.join(self.dir, "run")
        os.mkdir(self.rundir)
        self.cfg = os.path.join(self.dir, "cellgated.json")
        self.stderr_path = os.path.join(self.dir, "stderr.log")
        self.proc = None

    def start(self, timeout=10.0):
        if not os.access(self.binary, os.X_OK):
            raise DaemonError("cellgated not found or not executable: %s "
                              "(set CELLGATED)" % self.binary)
        with open(self.cfg, "w") as f:
            json.dump(with_fib_algorithm(self.config), f, indent=2)
        self._err = open(self.stderr_path, "w")
        self.proc = self.topo.popen(
            self.ns, [self.binary, "-f", self.cfg, "-d", "-r", self.rundir] +
            self.args, stdout=self._err, stderr=subprocess.STDOUT, env=self.env)
        pidfile = os.path.join(self.rundir, "cellgated.pid")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(pidfile) and os.path.getsize(pidfile) > 0:
                return self
            if self.proc.poll() is not None:
                raise DaemonError("cellgated exited with %d before ready:\n%s"
                                  % (self.proc.returncode, self.log()))
            time.sleep(0.05)
        self.kill()
        raise DaemonError("cellgated wrote no pidfile within %.0f s:\n%s" %
                          (timeout, self.log()))

    def log(self):
        try:
            with open(self.stderr_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stats(self, timeout=15.0):
        """Ask for stats.json with SIGUSR1 and return it parsed (the timeout is a
        liveness bound for a loaded machine, not a performance check)."""
        path = os.path.join(self.rundir, "stats.json")
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        if not self.alive():
            raise DaemonError("cellgated is not running:\n" + self.log())
        os.kill(self.proc.pid, signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(path):
                with open(path) as f:
                    return json.load(f)
            time.sleep(0.02)
        raise DaemonError("no stats.json within %.0f s after SIGUSR1:\n%s" %
                          (timeout, self.log()))

    def port(self, stats, name):
        for p in stats["ports"]:
            if p["name"] == name:
                return p
        raise KeyError("port %s not in stats.json" % name)

    def stop(self, timeout=10.0):
        """SIGTERM; return (exit code, log).  Kills on timeout (code None)."""
        if self.proc is None:
            return 0, ""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                return None, self.log()
        self._err.close()
        return self.proc.returncode, self.log()

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)


def sanitizer_errors(log):
    """Lines from a daemon log that report ASan/UBSan/LSan problems."""
    bad = ("AddressSanitizer", "runtime error", "LeakSanitizer")
    return [ln for ln in log.splitlines() if any(b in ln for b in bad)]


class LineReader:
    """Lines from a child's stdout pipe, each waited for with a timeout.

    select() on a text pipe followed by readline() loses lines: readline()
    may pull two lines ("connected\nsent\n") into Python's buffer, and the
    next select() then waits for bytes that already arrived. This reads
    the raw descriptor and keeps its own buffer."""

    def __init__(self, pipe):
        self.fd = pipe.fileno()
        self.buf = b""
        self.eof = False

    def line(self, timeout=10):
        """The next line without its newline, or None at a timeout or EOF."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf and not self.eof:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            chunk = os.read(self.fd, 4096)
            self.eof = not chunk
            self.buf += chunk
        if b"\n" not in self.buf:
            return None
        ln, self.buf = self.buf.split(b"\n", 1)
        return ln.decode(errors="replace").strip()

    def expect(self, word, timeout=10):
        """True once a line equal to word arrives (other lines are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            ln = self.line(max(0.0, deadline - time.monotonic()))
            if ln is None:
                return False
            if ln == word:
                return True


def wait_for(pred, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(interval)


def port_of(daemon, name, stats=None):
    """The counters of port `name` (a fresh stats dump unless one is given)."""
    return daemon.port(stats or daemon.stats(), name)


def counter_delta(before, after, key):
    """Change of a port counter, or of a drop reason, between two port dicts."""
    if key in after.get("drops", {}):
        return after["drops"][key] - before["drops"][key]
    return after[key] - before[key]


def accounting_errors(stats):
    """Ports of a stats.json breaking rx == forwarded + to-kernel + drops."""
    bad = []
    for p in stats["ports"]:
        drops_sum = sum(p["drops"].values())
        total = p["forwarded"] + p["to-kernel"] + p["drops-total"]
        if p["rx-packets"] != total or p["drops-total"] != drops_sum:
            bad.append("%s: rx %d != fwd %d + kernel %d + drops %d "
                       "(sum of reasons %d)" %
                       (p["name"], p["rx-packets"], p["forwarded"],
                        p["to-kernel"], p["drops-total"], drops_sum))
    return bad


# --- traffic tools run inside a namespace (python3 -c, stdlib only) -------

PYTHON = "/usr/bin/python3"

# Capture on one netdev with an AF_PACKET socket, optionally also receiving
# on a UDP port (so the host sends no port unreachable).  Prints "ready" once
# bound, then a JSON summary when stdin closes or the duration ends.
_SNIFF = r"""
import json, os, select, socket, struct, sys, time
iface, duration, sink_port = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind((iface, 0x0003))
sink = None
if sink_port:
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("0.0.0.0", sink_port))
def mac(b): return ":".join("%02x" % x for x in b)
def ip(b): return socket.inet_ntoa(bytes(b))
def csum(b):
    if len(b) % 2: b += b"\0"
    v = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while v >> 16: v = (v & 0xffff) + (v >> 16)
    return (~v) & 0xffff
def ipv4(f, d):
    ihl = (f[0] & 15) * 4
    tot, frag, ttl, proto = struct.unpack("!2xH2xHBB", f[:10])
    d.update(ihl=ihl, tot=tot, df=bool(frag & 0x4000), ttl=ttl, proto=proto,
             src=ip(f[12:16]), dst=ip(f[16:20]), opts=bytes(f[20:ihl]).hex(),
             csum_ok=csum(bytes(f[:ihl])) == 0)
    l4 = f[ihl:]
    if proto == 17 and len(l4) >= 8:
        d.update(sport=struct.unpack("!H", l4[:2])[0],
                 dport=struct.unpack("!H", l4[2:4])[0])
    elif proto == 1 and len(l4) >= 8:
        d.update(icmp_type=l4[0], icmp_code=l4[1],
                 icmp_mtu=struct.unpack("!H", l4[6:8])[0])
        if l4[0] in (3, 11) and len(l4) >= 28:
            inner = {}
            ipv4(l4[8:], inner)
            d["inner"] = inner
frames, got = [], 0
deadline = time.monotonic() + duration
print("ready", flush=True)
while True:
    left = deadline - time.monotonic()
    if left <= 0:
        break
    rl = [s, sys.stdin] + ([sink] if sink else [])
    r, _, _ = select.select(rl, [], [], left)
    if sys.stdin in r and not os.read(sys.stdin.fileno(), 1):
        break
    if sink in r:
        sink.recv(65536)
        got += 1
    if s in r:
        f, addr = s.recvfrom(65536)
        t = time.monotonic()
        d = {"t": t, "out": addr[2] == 4, "dmac": mac(f[:6]),
             "smac": mac(f[6:12]), "type": struct.unpack("!H", f[12:14])[0],
             "len": len(f)}
        if d["type"] == 0x0806 and len(f) >= 42:
            op, spa, tpa = struct.unpack("!6xH6x4s6x4s", f[14:42])
            d.update(op=op, spa=ip(spa), tpa=ip(tpa))
        elif d["type"] == 0x0800 and len(f) >= 34:
            try:
                ipv4(f[14:], d)
            except (struct.error, IndexError, OSError):
                d["bad"] = True
        frames.append(d)
print(json.dumps({"frames": frames, "sink": got}), flush=True)
"""


class Sniffer:
    """Capture frames on a host's netdev while a test runs.

        with lab.Sniffer(topo, "h2", "h2-r", sink_port=9999) as sn:
            ...traffic...
        sn.frames   # dicts: t (monotonic), out, dmac, smac, type, ARP op/
                    # spa/tpa, IPv4 src/dst/ttl/ihl/opts/df/proto/..., ICMP
                    # icmp_type/icmp_code/icmp_mtu/inner (quoted header)
        sn.sink     # datagrams received on sink_port

    Stops at the end of the with block or after `duration` seconds.
    """

    def __init__(self, topo, host, iface, duration=30.0, sink_port=0):
        self.topo, self.host, self.iface = topo, host, iface
        self.duration, self.sink_port = duration, sink_port
        self.proc = None
        self.frames, self.sink = [], 0

    def start(self):
        self.proc = self.topo.popen(
            self.host, [PYTHON, "-c", _SNIFF, self.iface, str(self.duration),
                        str(self.sink_port)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        line = ""
        if select.select([self.proc.stdout], [], [], 10)[0]:
            line = self.proc.stdout.readline()
        if line.strip() != "ready":
            self.kill()
            raise RuntimeError("sniffer on %s/%s did not start: %r %s" %
                               (self.host, self.iface, line,
                                self.proc.stderr.read()))
        return self

    def stop(self):
        try:
            out, err = self.proc.communicate(input="", timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        if self.proc.returncode != 0:
            raise RuntimeError("sniffer failed (%d): %s" %
                               (self.proc.returncode, err))
        res = json.loads(out)
        self.frames, self.sink = res["frames"], res["sink"]
        return self

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.stop()
        else:
            self.kill()
        return False

    def incoming(self, **match):
        """Received frames whose fields equal all of match."""
        return [f for f in self.frames if not f["out"] and
                all(f.get(k) == v for k, v in match.items())]

    def outgoing(self, **match):
        return [f for f in self.frames if f["out"] and
                all(f.get(k) == v for k, v in match.items())]


_SEND_UDP = r"""
import json, socket, sys, time
a = json.loads(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if a.get("sport"):
    s.bind(("0.0.0.0", a["sport"]))
if a.get("ttl"):
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, a["ttl"])
if a.get("df") is not None:
    # IP_PMTUDISC_PROBE: DF set, any cached path MTU ignored; DONT: no DF.
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MTU_DISCOVER,
                 3 if a["df"] else 0)
if a.get("broadcast"):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
payload = b"c" * max(0, a["size"] - 28)
sent, errors, t0 = 0, [], time.monotonic()
for i in range(a["count"]):
    delay = t0 + i * a["interval"] - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    try:
        s.sendto(payload, (a["dst"], a["dport"]))
        sent += 1
    except OSError as e:
        errors.append(str(e))
print(json.dumps({"sent": sent, "errors": errors[:5],
                  "elapsed": time.monotonic() - t0}))
"""


def send_udp(topo, host, dst, count=1, interval=0.0, size=100, dport=9999,
             sport=0, ttl=None, df=None, broadcast=False):
    """Send count UDP datagrams of IP total length size from host; paced
    every interval seconds.  Returns {"sent", "errors", "elapsed"}."""
    args = {"dst": dst, "count": count, "interval": interval, "size": size,
            "dport": dport, "sport": sport, "ttl": ttl, "df": df,
            "broadcast": broadcast}
    p = topo.exec(host, [PYTHON, "-c", _SEND_UDP, json.dumps(args)],
                  timeout=count * interval + 20, check=True)
    return json.loads(p.stdout)


_SEND_FRAMES = r"""
import json, socket, sys, time
a = json.loads(sys.argv[1])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
s.bind((a["iface"], 0))
frames = [bytes.fromhex(h) for h in a["frames"]]
n = 0
for i in range(a["count"]):
    for f in frames:
        s.send(f)
        n += 1
    if a["interval"]:
        time.sleep(a["interval"])
print(n)
"""


def send_frames(topo, host, iface, frames, count=1, interval=0.0):
    """Send raw Ethernet frames (bytes) count times each out of host's iface,
    exactly as given (no checksum fixing).  Returns the number sent."""
    args = {"iface": iface, "frames": [bytes(f).hex() for f in frames],
            "count": count, "interval": interval}
    p = topo.exec(host, [PYTHON, "-c", _SEND_FRAMES, json.dumps(args)],
                  timeout=count * interval + 20, check=True)
    return int(p.stdout)


def worker_threads(daemon):
    """{thread name: tid} of the daemon's datapath workers (cg-workerN)."""
    out = {}
    task = "/proc/%d/task" % daemon.proc.pid
    for tid in os.listdir(task):
        try:
            with open(os.path.join(task, tid, "comm")) as f:
                name = f.read().strip()
        except OSError:
            continue
        if name.startswith("cg-worker"):
            out[name] = int(tid)
    return out


def thread_cpu_seconds(pid, tid):
    """User + system CPU time of one thread so far, from /proc (clock ticks)."""
    with open("/proc/%d/task/%d/stat" % (pid, tid)) as f:
        # The name field may hold spaces; the fields after it start past ')'.
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ping_rtts(topo, host, dst, count, interval, timeout=None):
    """Round-trip times (ms) of count pings from host to dst, in order sent;
    lost ones are missing."""
    p = topo.exec(host, ["ping", "-n", "-c", str(count), "-i", str(interval),
                         "-W", "1", dst],
                  timeout=timeout or count * float(interval) + 30)
    return [float(t) for t in re.findall(r"time=([0-9.]+) ms", p.stdout)]


def percentile(values, q):
    """The q-quantile (0..1) of values, nearest rank."""
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(q * len(v) + 0.999999) - 1))]


def _main(argv):
    """Shell interface for demo.sh and fwd-bench.sh.

    lab.py config [WORKER_CPU [DRIVER]]   print the lab config JSON (ports on
                                 DRIVER, default afpacket)
    lab.py up OWNER_PID          build the topology; print shell variables
    lab.py down TAG              delete the namespaces of TAG
    """
    if len(argv) >= 1 and argv[0] == "config":
        cpu = [int(argv[1])] if len(argv) > 1 else None
        cfg = default_config(worker_cpu=cpu)
        for p in cfg["cellgate:cellgate"]["port"]:
            p["driver"] = argv[2] if len(argv) > 2 else p["driver"]
        print(json.dumps(cfg, indent=2))
    elif len(argv) == 2 and argv[0] == "up":
        t = Topology(owner_pid=int(argv[1])).create()
        print("LAB_TAG=%s" % t.tag)
        for name, ns in t.ns.items():
            print("NS_%s=%s" % (name.upper(), ns))
    elif len(argv) == 2 and argv[0] == "down":
        t = Topology()
        t.ns = {}
        p = run(["ip", "-j", "netns", "list"], check=False)
        t.created = [e["name"] for e in json.loads(p.stdout or "[]")
                     if e["name"].startswith(argv[1] + "-")]
        t.destroy()
    else:
        print(_main.__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
