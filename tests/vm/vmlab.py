# SPDX-License-Identifier: BSD-2-Clause
"""The ATM VM lab's host side: a guest initramfs built from host binaries, one
qemu boot per scenario (TCG, serial console, hard timeouts), results back.

A scenario is a busybox sh script in tests/vm/scenarios/. Its header says what
the guest needs:
    # needs: br2684ctl ip ping          host programs (each with its ldd libraries)
    # modules: br2684 clip              kernel modules beyond atm and atmtcp
    # timeout: 60                       seconds the scenario may run in the guest
It reports with the helpers of guest/lib.sh: "VMTEST: PASS name" / "VMTEST: FAIL
name: why" lines and "VMFACT: key=value" facts on the serial console; files it
writes under /share come back through virtio-9p into the scenario's output
directory, where scenarios/NAME.py, if there is one, judges them on the host
(its check(share, facts) returns more (name, ok, detail) checks). A scenario
that needs cellgated also gets mgmt/yang at /yang. Nothing here is committed as a binary: the kernel, atmtcp.ko and
the initramfs are built into the cache (tests/vm/prepare.sh) and the work dir.
"""
import os
import re
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Always in the guest: busybox applets, our probe tool, these modules.
BASE_MODULES = ["atm", "9p", "9pnet_virtio", "virtio_pci"]
BUSYBOX = "/bin/busybox"
BOOT_SLACK = 60  # seconds over the scenario's own timeout before qemu is killed


class SkipLab(Exception):
    """The lab cannot run here (no qemu and no way to install it)."""


def prepare():
    """Run prepare.sh: the kernel, its modules and the patched atmtcp.ko."""
    p = subprocess.run([os.path.join(HERE, "prepare.sh")], capture_output=True, text=True)
    if p.returncode == 77:
        raise SkipLab(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "prepare")
    if p.returncode != 0:
        raise RuntimeError("tests/vm/prepare.sh failed:\n" + p.stderr[-3000:])
    env = dict(line.split("=", 1) for line in p.stdout.splitlines() if "=" in line)
    return env


def ldd_libs(path):
    """The shared objects `path` loads, as absolute host paths."""
    p = subprocess.run(["ldd", path], capture_output=True, text=True)
    if "not a dynamic executable" in p.stdout + p.stderr:
        return []
    if p.returncode != 0:
        raise RuntimeError(f"ldd {path}: {p.stderr.strip()}")
    return re.findall(r"(/\S+)", p.stdout)


def which(prog, build=None):
    """A program by name: from the build dir (cellgated, cellgatectl), else PATH."""
    if build:
        for sub in ("daemon", "mgmt/cli", "mgmt", ""):
            cand = os.path.join(build, sub, prog)
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return cand
    path = shutil.which(prog, path="/usr/sbin:/usr/bin:/sbin:/bin")
    if not path:
        raise RuntimeError(f"guest program {prog}: not found on the host")
    return path


class Modules:
    """Kernel modules of the unpacked kernel, with their dependencies in load order."""

    def __init__(self, modroot, overrides):
        self.modroot = modroot
        self.overrides = overrides  # name -> path (the patched atmtcp.ko)
        self.dep = {}
        with open(os.path.join(modroot, "modules.dep")) as f:
            for line in f:
                mod, _, deps = line.partition(":")
                self.dep[self.name(mod)] = (mod, [self.name(d) for d in deps.split()])

    @staticmethod
    def name(path):
        return os.path.basename(path).split(".ko")[0].replace("-", "_")

    def order(self, wanted):
        out = []

        def visit(n):
            if n in out:
                return
            if n not in self.dep:
                raise RuntimeError(f"kernel module {n}: not in modules.dep")
            for d in self.dep[n][1]:
                visit(d)
            out.append(n)

        for n in wanted:
            visit(n)
        return out

    def path(self, n):
        return self.overrides.get(n) or os.path.join(self.modroot, self.dep[n][0])


class Initramfs:
    """A staging tree turned into a newc cpio archive."""

    def __init__(self, root):
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        self.root = root

    def _dst(self, dst):
        d = os.path.join(self.root, dst.lstrip("/"))
        os.makedirs(os.path.dirname(d), exist_ok=True)
        return d

    def file(self, src, dst, mode=None):
        d = self._dst(dst)
        if os.path.lexists(d):
            os.unlink(d)  # a busybox applet link: replace it, never write through it
        shutil.copy2(src, d, follow_symlinks=True)
        if mode is not None:
            os.chmod(d, mode)

    def text(self, dst, body, mode=0o644):
        d = self._dst(dst)
        with open(d, "w") as f:
            f.write(body)
        os.chmod(d, mode)

    def binary(self, src, dst):
        self.file(src, dst)
        for lib in ldd_libs(src):
            if not os.path.exists(self._dst(lib)):
                self.file(lib, lib)

    def busybox(self):
        self.file(BUSYBOX, "/bin/busybox", 0o755)
        applets = subprocess.run([BUSYBOX, "--list"], capture_output=True, text=True).stdout
        for a in applets.split():
            link = self._dst("/bin/" + a)
            if not os.path.lexists(link):
                os.symlink("busybox", link)

    def pack(self, out):
        files = subprocess.run(["find", "."], cwd=self.root, capture_output=True,
                               text=True, check=True).stdout
        with open(out, "wb") as f:
            subprocess.run(["cpio", "-o", "-H", "newc", "--quiet", "-R", "0:0"],
                           cwd=self.root, input=files.encode(), stdout=f, check=True)
        return out


def scenario_header(path):
    """The needs/modules/timeout lines of a scenario script."""
    hdr = {"needs": [], "modules": [], "timeout": 60}
    with open(path) as f:
        for line in f:
            m = re.match(r"#\s*(needs|modules|timeout):\s*(.*)", line)
            if m and m.group(1) == "timeout":
                hdr["timeout"] = int(m.group(2))
            elif m:
                hdr[m.group(1)] += m.group(2).split()
    return hdr


def build_tool(out):
    """guest/atmvm_tool, static, with cellgate's own RFC 2684 code."""
    cmd = ["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-static", "-I" + ROOT,
           "-I" + os.path.join(ROOT, "datapath"), "-o", out,
           os.path.join(HERE, "guest", "atmvm_tool.c"),
           os.path.join(ROOT, "datapath", "atm", "rfc2684.c"),
           os.path.join(ROOT, "datapath", "atm", "rfc2684_bridged.c"),
           os.path.join(ROOT, "datapath", "atm", "inatmarp.c")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("atmvm_tool does not build:\n" + p.stderr)
    return out


class Lab:
    def __init__(self, work, build=None):
        self.env = prepare()
        self.work = work
        self.build = build
        os.makedirs(work, exist_ok=True)
        self.mods = Modules(self.env["MODROOT"], {"atmtcp": self.env["ATMTCP_KO"]})
        self.tool = build_tool(os.path.join(work, "atmvm_tool"))

    def initramfs(self, scenario, hdr):
        name = os.path.splitext(os.path.basename(scenario))[0]
        fs = Initramfs(os.path.join(self.work, name, "root"))
        fs.busybox()
        fs.file(self.tool, "/bin/atmvm_tool", 0o755)
        for prog in ["atmtcp"] + hdr["needs"]:
            fs.binary(which(prog, self.build), "/bin/" + prog)
        order = self.mods.order(BASE_MODULES + ["atmtcp"] + hdr["modules"])
        for n in order:
            fs.file(self.mods.path(n), f"/lib/modules/{n}.ko")
        fs.text("/lib/modules/order", "\n".join(order) + "\n")
        fs.file(os.path.join(HERE, "guest", "init.sh"), "/init", 0o755)
        fs.file(os.path.join(HERE, "guest", "lib.sh"), "/lib/vm.sh", 0o644)
        fs.file(scenario, "/scenario.sh", 0o755)
        if "cellgated" in hdr["needs"]:
            for y in os.listdir(os.path.join(ROOT, "mgmt", "yang")):
                if y.endswith(".yang"):
                    fs.file(os.path.join(ROOT, "mgmt", "yang", y), "/yang/" + y)
        fs.text("/etc/vm.conf", f"VM_SCENARIO={name}\nVM_TIMEOUT={hdr['timeout']}\n")
        for d in ("proc", "sys", "dev", "tmp", "run", "share", "var/run", "etc"):
            os.makedirs(os.path.join(fs.root, d), exist_ok=True)
        return fs.pack(os.path.join(self.work, name, "initramfs.cpio"))

    def boot(self, scenario):
        """Boot one scenario; returns (checks, facts, log path, seconds)."""
        hdr = scenario_header(scenario)
        name = os.path.splitext(os.path.basename(scenario))[0]
        initrd = self.initramfs(scenario, hdr)
        share = os.path.join(self.work, name, "share")
        shutil.rmtree(share, ignore_errors=True)
        os.makedirs(share)
        log = os.path.join(self.work, name, "console.log")
        cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "512", "-smp", "1",
               "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
               "-chardev", f"file,id=con,path={log}", "-serial", "chardev:con",
               "-virtfs", f"local,path={share},mount_tag=share,security_model=none,id=share",
               "-kernel", self.env["VMLINUZ"], "-initrd", initrd,
               "-append", "console=ttyS0 quiet panic=-1 oops=panic rdinit=/init"]
        t0 = time.monotonic()
        try:
            subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=hdr["timeout"] + BOOT_SLACK)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True  # subprocess.run killed qemu
        secs = time.monotonic() - t0
        checks, facts = parse_console(log, timed_out)
        checks += host_checks(scenario, share, facts)
        return (checks, facts), share, log, secs


def host_checks(scenario, share, facts):
    """scenarios/NAME.py's check(share, facts): what the guest left in /share, judged here."""
    path = os.path.splitext(scenario)[0] + ".py"
    if not os.path.exists(path):
        return []
    ns = {"__file__": path}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)  # our own file, next to the scenario
    try:
        return list(ns["check"](share, facts))
    except Exception as e:  # a missing file or key is a failed check, not a crash
        return [("host-check", False, f"{type(e).__name__}: {e}")]


def parse_console(log, timed_out):
    """(checks [(name, ok, detail)], facts {key: value}) from the guest's console."""
    try:
        with open(log, errors="replace") as f:
            text = f.read().replace("\r", "")
    except FileNotFoundError:
        text = ""
    checks, facts, done = [], {}, None
    for line in text.splitlines():
        m = re.search(r"VMTEST: (PASS|FAIL) (\S+)(?:: (.*))?$", line)
        if m:
            checks.append((m.group(2), m.group(1) == "PASS", m.group(3) or ""))
        m = re.search(r"VMFACT: ([\w.-]+)=(.*)$", line)
        if m:
            facts[m.group(1)] = m.group(2)
        m = re.search(r"VMDONE rc=(\d+)", line)
        if m:
            done = int(m.group(1))
    if done is None:
        why = "killed after the timeout" if timed_out else "no VMDONE (guest crashed?)"
        checks.append(("guest-finished", False, why))
    elif not checks:
        checks.append(("scenario-checks", False, "the scenario reported no check"))
    elif done != 0:
        checks.append(("scenario-exit", False, f"scenario script exited {done}"))
    return checks, facts
