# SPDX-License-Identifier: BSD-2-Clause
"""FRR for the lab: Debian's zebra (with dplane_fpm_nl) and staticd in a
namespace, without systemd, and vtysh to configure them.

    f = frr.Frr(topo, nexthop_groups=True).start()
    f.configure("ip route 10.30.0.0/16 10.0.2.2")
    f.kill_zebra(); f.start_zebra()
    f.stop()

Each instance keeps its files (configs, pid files, vty sockets, logs) in its
own temporary directory; processes are stopped by the pids they wrote.
"""

import grp
import json
import os
import shutil
import signal
import tempfile
import time

import lab

FRR_BIN = "/usr/lib/frr"
FPM_MODULE = "/usr/lib/x86_64-linux-gnu/frr/modules/dplane_fpm_nl.so"


def missing():
    """Why FRR cannot run here, or None."""
    for path in (FRR_BIN + "/zebra", FRR_BIN + "/staticd", "/usr/bin/vtysh",
                 FPM_MODULE):
        if not os.path.exists(path):
            return "%s not found: apt-get install frr (tests/deps.sh)" % path
    # FRR's daemons refuse to start ("user(root) is not part of vty group
    # specified(frrvty)") unless the user they run as is in frrvty.
    try:
        if "root" not in grp.getgrnam("frrvty").gr_mem:
            return ("root is not in group frrvty, so zebra refuses to run: "
                    "usermod -a -G frrvty,frr root (tests/deps.sh does it)")
    except KeyError:
        return "group frrvty missing: the frr package is not installed properly"
    return None


class Frr:
    def __init__(self, topo, ns="r", nexthop_groups=True, fpm_port=2620,
                 static_routes=()):
        self.topo, self.ns = topo, ns
        self.dir = tempfile.mkdtemp(prefix="cglab-frr-")
        self.nexthop_groups = nexthop_groups
        self.fpm_port = fpm_port
        self.static_routes = list(static_routes)

    def path(self, name):
        return os.path.join(self.dir, name)

    def _write_configs(self):
        lines = ["hostname r", "fpm address 127.0.0.1 port %d" % self.fpm_port]
        if not self.nexthop_groups:
            lines.append("no fpm use-next-hop-groups")
        with open(self.path("zebra.conf"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(self.path("staticd.conf"), "w") as f:
            f.write("".join("ip route %s\n" % r for r in self.static_routes))

    def _daemon(self, name, extra=()):
        cmd = [FRR_BIN + "/" + name, "-d", "-f", self.path(name + ".conf"),
               "-i", self.path(name + ".pid"), "-z", self.path("zserv.api"),
               "--vty_socket", self.dir, "-u", "root", "-g", "root",
               "--log", "file:" + self.path(name + ".log")] + list(extra)
        try:
            os.unlink(self.path(name + ".vty"))
        except FileNotFoundError:
            pass
        self.topo.exec(self.ns, cmd, check=True, timeout=30)
        sock = self.path(name + ".vty")
        if not lab.wait_for(lambda: os.path.exists(sock), timeout=120):
            raise RuntimeError("%s did not open %s:\n%s" %
                               (name, sock, self.log(name)))

    def start_zebra(self):
        self._daemon("zebra", ["-M", "dplane_fpm_nl"])
        return self

    def start_staticd(self):
        self._daemon("staticd")
        return self

    def start_bgpd(self, config, no_zebra=False):
        """bgpd with this configuration text; no_zebra: a standalone speaker
        (-Z) that only originates, e.g. a BGP feed in a neighbour namespace."""
        with open(self.path("bgpd.conf"), "w") as f:
            f.write(config)
        self._daemon("bgpd", ["-Z"] if no_zebra else [])
        return self

    def start(self):
        self._write_configs()
        try:
            self.start_zebra()
            self.start_staticd()
        except BaseException:
            self.stop()
            raise
        return self

    def pid(self, name):
        try:
            with open(self.path(name + ".pid")) as f:
                return int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kill(self, name, sig=signal.SIGKILL, timeout=10):
        """Signal the daemon `name` by the pid it wrote; wait until it is gone."""
        pid = self.pid(name)
        if pid is None:
            return
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        if not lab.wait_for(lambda: not _alive(pid), timeout=timeout,
                            interval=0.05):
            os.kill(pid, signal.SIGKILL)
            lab.wait_for(lambda: not _alive(pid), timeout=5, interval=0.05)

    def kill_zebra(self, sig=signal.SIGKILL):
        self.kill("zebra", sig)

    def vtysh(self, *cmds, check=True, timeout=60):
        args = ["vtysh", "--vty_socket", self.dir]
        for c in cmds:
            args += ["-c", c]
        p = self.topo.exec(self.ns, args, timeout=timeout)
        # vtysh exits 0 even for some rejected commands; they print "% ...".
        if check and (p.returncode != 0 or p.stdout.lstrip().startswith("%")):
            raise RuntimeError("vtysh %s failed (%d): %s%s" %
                               (cmds, p.returncode, p.stdout, p.stderr))
        return p.stdout

    def configure(self, *lines):
        return self.vtysh("configure terminal", *lines)

    def configure_file(self, path, timeout=600):
        """Apply a file of configuration commands (vtysh -f)."""
        p = self.topo.exec(self.ns, ["vtysh", "--vty_socket", self.dir, "-f",
                                     path], timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError("vtysh -f %s failed (%d): %s%s" %
                               (path, p.returncode, p.stdout[-2000:],
                                p.stderr[-2000:]))

    def route_summary(self):
        """`show ip route summary json`: routesTotal, routesTotalFib, per type."""
        return json.loads(self.vtysh("show ip route summary json"))

    def log(self, name="zebra"):
        try:
            with open(self.path(name + ".log"), errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def stop(self, keep=False):
        for name in ("bgpd", "staticd", "zebra"):
            self.kill(name, signal.SIGTERM)
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (daemonised child reaped late) counts as gone.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False
