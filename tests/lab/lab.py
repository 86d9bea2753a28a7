"""Lab topology helpers for cellgate: network namespaces, veths, the daemon.

    h1 (10.0.1.2) --- r-h1 [ r: cellgated ] r-h2 --- h2 (10.0.2.2, lo 10.20.0.1, 10.99.0.1)
                                          r-h3 --- h3 (10.0.3.2, lo 10.99.0.1)

Namespace names carry a per-run prefix ("cglab<pid>x<rand>-") so concurrent
runs never collide.  Everything here shells out to iproute2 with timeouts.
"""

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NS_PREFIX = "cglab"

# Address plan: host name -> (router port, router netdev, host veth, host /24
# address, router address, loopback /32 addresses).
HOSTS = {
    "h1": ("eth0", "r-h1", "h1-r", "10.0.1.2", "10.0.1.1", []),
    "h2": ("eth1", "r-h2", "h2-r", "10.0.2.2", "10.0.2.1",
           ["10.20.0.1", "10.99.0.1"]),
    "h3": ("eth2", "r-h3", "h3-r", "10.0.3.2", "10.0.3.1", ["10.99.0.1"]),
}


def cellgated_path():
    return os.environ.get("CELLGATED",
                          os.path.join(REPO, "build", "daemon", "cellgated"))


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


def default_config(workers=1, worker_cpu=None, extra_system=None):
    """The lab's cellgated configuration (RFC 7951 JSON as a dict)."""
    system = {"workers": workers}
    if worker_cpu is not None:
        system["worker-cpu"] = worker_cpu
    if extra_system:
        system.update(extra_system)
    ports = []
    for host in ("h1", "h2", "h3"):
        pname, rdev, _, _, raddr, _ = HOSTS[host]
        ports.append({"name": pname, "driver": "afpacket", "netdev": rdev,
                      "ipv4": {"address": [{"ip": raddr,
                                            "prefix-length": 24}]}})
    routes = [
        {"prefix": "10.20.0.0/24", "nexthop": [{"address": "10.0.2.2"}]},
        {"prefix": "10.99.0.0/24", "nexthop": [{"address": "10.0.2.2"},
                                               {"address": "10.0.3.2"}]},
        {"prefix": "10.66.0.0/16", "action": "blackhole"},
        {"prefix": "10.77.0.0/24", "nexthop": [{"address": "10.0.2.99"}]},
    ]
    return {"cellgate:cellgate": {"system": system, "port": ports,
                                  "routing": {"static-route": routes}}}


class Topology:
    """h1 - r - h2 (+ h3) in fresh namespaces.  Use create()/destroy()."""

    def __init__(self, hosts=("h1", "h2", "h3"), owner_pid=None):
        # The owner pid is part of the name so sweep_stale() can tell live
        # runs from leftovers of killed ones.
        tag = "%s%dx%04x" % (NS_PREFIX, owner_pid or os.getpid(),
                             random.getrandbits(16))
        self.tag = tag
        self.hosts = list(hosts)
        self.ns = {n: "%s-%s" % (tag, n) for n in ["r"] + self.hosts}
        self.created = []

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
            run(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                 "net.ipv6.conf.default.disable_ipv6=1"], ns=ns)
        run(["sysctl", "-qw", "net.ipv4.ip_forward=0"], ns=self.r)
        for host in self.hosts:
            _, rdev, hdev, haddr, raddr, loaddrs = HOSTS[host]
            hns = self.ns[host]
            run(["ip", "-n", self.r, "link", "add", rdev, "type", "veth",
                 "peer", "name", hdev, "netns", hns])
            run(["ip", "-n", hns, "addr", "add", haddr + "/24", "dev", hdev])
            for a in loaddrs:
                run(["ip", "-n", hns, "addr", "add", a + "/32", "dev", "lo"])
            # Frames must stay <= MTU with complete checksums (no TSO/GSO,
            # no partial checksums) because the router sees raw frames.
            run(["ethtool", "-K", hdev, "tso", "off", "gso", "off", "gro",
                 "off", "tx", "off"], ns=hns)
            run(["ip", "-n", hns, "link", "set", hdev, "up"])
            run(["ip", "-n", hns, "route", "add", "default", "via", raddr])
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
    """cellgated running in the router namespace of a Topology."""

    def __init__(self, topo, config, binary=None, args=()):
        self.topo = topo
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
            json.dump(self.config, f, indent=2)
        self._err = open(self.stderr_path, "w")
        self.proc = self.topo.popen(
            "r", [self.binary, "-f", self.cfg, "-d", "-r", self.rundir] +
            self.args, stdout=self._err, stderr=subprocess.STDOUT)
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

    def stats(self, timeout=5.0):
        """Ask for stats.json with SIGUSR1 and return it parsed."""
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


def wait_for(pred, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(interval)


def _main(argv):
    """Shell interface for demo.sh and fwd-bench.sh.

    lab.py config [WORKER_CPU]   print the lab config JSON
    lab.py up OWNER_PID          build the topology; print shell variables
    lab.py down TAG              delete the namespaces of TAG
    """
    if len(argv) >= 1 and argv[0] == "config":
        cpu = [int(argv[1])] if len(argv) > 1 else None
        print(json.dumps(default_config(worker_cpu=cpu), indent=2))
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
