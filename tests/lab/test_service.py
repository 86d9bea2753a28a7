# SPDX-License-Identifier: BSD-2-Clause
"""Running cellgated as a service: the systemd unit verifies, sd_notify
READY/STATUS/WATCHDOG reach the service manager (a stand-in socket here: no
systemd as PID 1), -u USER drops to that user with only CAP_NET_ADMIN and
CAP_NET_RAW while forwarding goes on, and SIGHUP never kills the daemon.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import time

import pytest

import lab

UNIT = os.path.join(lab.REPO, "etc", "cellgated.service")
CAP_NET_ADMIN, CAP_NET_RAW = 12, 13


def test_unit_file_verifies(tmp_path, cellgated_bin):
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze not installed")
    # verify checks that ExecStart's binary exists: point it at the build.
    text = open(UNIT).read().replace("/usr/sbin/cellgated", cellgated_bin)
    unit = tmp_path / "cellgated.service"
    unit.write_text(text)
    p = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)],
                       capture_output=True, text=True, timeout=60)
    out = (p.stdout + p.stderr).strip()
    assert p.returncode == 0, out
    # Complaints about our unit (not about the host's other units) fail the test.
    mine = [ln for ln in out.splitlines() if "cellgated.service" in ln]
    assert not mine, "\n".join(mine)
    assert "Type=notify" in text and "WatchdogSec=" in text
    assert "CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW" in text


def _notify_socket(tmp_path):
    path = str(tmp_path / "notify.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    os.chmod(path, 0o777)
    s.settimeout(0.2)
    return s, path


def _messages(sock, until, timeout):
    """Datagrams until one contains `until` (or the timeout)."""
    got = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got.append(sock.recv(4096).decode())
        except socket.timeout:
            continue
        if until in got[-1]:
            break
    return got


def _caps(pid):
    with open("/proc/%d/status" % pid) as f:
        st = f.read()
    eff = int(re.search(r"CapEff:\s*([0-9a-f]+)", st).group(1), 16)
    bnd = int(re.search(r"CapBnd:\s*([0-9a-f]+)", st).group(1), 16)
    uid = int(re.search(r"Uid:\s*(\d+)", st).group(1))
    return eff, bnd, uid


@pytest.fixture
def open_dir():
    """A directory the dropped-to user can reach (pytest's tmp_path is 0700 root)."""
    d = lab.tempfile.mkdtemp(prefix="cglab-svc-")
    os.chmod(d, 0o755)
    yield lab.pathlib.Path(d)
    shutil.rmtree(d, ignore_errors=True)


def test_notify_ready_status_watchdog_and_privilege_drop(topo, cellgated_bin, open_dir):
    tmp_path = open_dir
    sock, path = _notify_socket(tmp_path)
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="400000")
    cfg = tmp_path / "cellgated.json"
    cfg.write_text(lab.json.dumps(lab.default_config()))
    rundir = tmp_path / "run"
    proc = topo.popen("r", [cellgated_bin, "-d", "-f", str(cfg), "-r", str(rundir),
                            "-u", "nobody"],
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    try:
        msgs = _messages(sock, "READY=1", 10)
        if not any("READY=1" in m for m in msgs):
            proc.kill()
            pytest.fail("no READY=1 (got %s); log:\n%s" % (msgs, proc.communicate()[0].decode()))
        ready = [m for m in msgs if "READY=1" in m][0]
        assert re.search(r"STATUS=forwarding: 3 port\(s\), 1 worker\(s\)", ready), ready
        # The pid file is there by then: ready means ready.
        assert (rundir / "cellgated.pid").exists()
        # Watchdog pings every WATCHDOG_USEC/2 while the worker loops.
        pings = [m for m in _messages(sock, "never", 1.5) if "WATCHDOG=1" in m]
        assert len(pings) >= 2, pings

        eff, bnd, uid = _caps(proc.pid)
        assert uid == 65534, "still uid %d" % uid
        assert eff == (1 << CAP_NET_ADMIN) | (1 << CAP_NET_RAW), hex(eff)
        assert bnd & ~eff == 0, "bounding set not cleared: %x" % bnd
        for tid in os.listdir("/proc/%d/task" % proc.pid):  # every thread, workers too
            with open("/proc/%d/task/%s/status" % (proc.pid, tid)) as f:
                t = f.read()
            assert int(re.search(r"CapEff:\s*([0-9a-f]+)", t).group(1), 16) == eff
        # Still forwarding, stats still written (rundir owned by the user).
        p = topo.exec("h1", ["ping", "-n", "-c", "2", "-i", "0.2", "-W", "2", "10.0.2.2"])
        assert " 0% packet loss" in p.stdout, p.stdout

        # SIGHUP: logged, nothing changes, the daemon lives on.
        proc.send_signal(signal.SIGHUP)
        time.sleep(0.3)
        assert proc.poll() is None, "SIGHUP killed cellgated"
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=10)
        assert proc.returncode == 0, out
        assert "running as nobody" in out.decode() and "SIGHUP" in out.decode()
        assert any("STOPPING=1" in m for m in _messages(sock, "STOPPING=1", 2))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()


def test_unknown_user_is_refused(topo, cellgated_bin, tmp_path):
    cfg = tmp_path / "cellgated.json"
    cfg.write_text(lab.json.dumps(lab.default_config()))
    p = topo.exec("r", [cellgated_bin, "-d", "-f", str(cfg), "-r", str(tmp_path / "run"),
                        "-u", "no-such-user-here"], timeout=20)
    assert p.returncode == 1
    assert "-u no-such-user-here: no such user" in p.stdout + p.stderr
