# SPDX-License-Identifier: BSD-2-Clause
"""cellgated -n: check a configuration, print it normalised, exit 0/1.

Needs no namespaces: check mode must not touch any netdev.
"""

import copy
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

import lab


def check(binary, tmp_path, cfg):
    path = tmp_path / "cfg.json"
    path.write_text(cfg if isinstance(cfg, str) else json.dumps(cfg))
    return subprocess.run([binary, "-n", "-f", str(path)],
                          capture_output=True, text=True, timeout=20)


def test_good_config_prints_json(cellgated_bin, tmp_path):
    p = check(cellgated_bin, tmp_path, lab.default_config())
    assert p.returncode == 0, p.stdout + p.stderr
    out = json.loads(p.stdout)
    top = out["cellgate:cellgate"]
    assert {x["name"] for x in top["port"]} == {"eth0", "eth1", "eth2"}
    prefixes = {r["prefix"] for r in top["routing"]["static-route"]}
    assert "10.99.0.0/24" in prefixes and "10.66.0.0/16" in prefixes


def test_normalised_output_is_a_fixed_point(cellgated_bin, tmp_path):
    """Feeding the printed config back in gives the same text."""
    p1 = check(cellgated_bin, tmp_path, lab.default_config())
    assert p1.returncode == 0, p1.stderr
    p2 = check(cellgated_bin, tmp_path, p1.stdout)
    assert p2.returncode == 0, p2.stderr
    assert p1.stdout == p2.stdout


def _bad_prefix_length(cfg):
    port = cfg["cellgate:cellgate"]["port"][0]
    port["ipv4"]["address"][0]["prefix-length"] = 40
    return "prefix-length"


def _unknown_leaf(cfg):
    cfg["cellgate:cellgate"]["system"]["no-such-leaf"] = 1
    return "no-such-leaf"


def _bad_workers_type(cfg):
    cfg["cellgate:cellgate"]["system"]["workers"] = "many"
    return "workers"


def _bad_route_prefix(cfg):
    cfg["cellgate:cellgate"]["routing"]["static-route"][0]["prefix"] = \
        "10.20.0.0/99"
    return "prefix"


@pytest.mark.parametrize("breaker", [_bad_prefix_length, _unknown_leaf,
                                     _bad_workers_type, _bad_route_prefix])
def test_bad_config_names_the_path(cellgated_bin, tmp_path, breaker):
    cfg = copy.deepcopy(lab.default_config())
    leaf = breaker(cfg)
    p = check(cellgated_bin, tmp_path, cfg)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    msg = p.stdout + p.stderr
    assert leaf in msg, msg


def test_not_json(cellgated_bin, tmp_path):
    p = check(cellgated_bin, tmp_path, "{ this is not json")
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert p.stderr.strip(), "no error message"


def test_version(cellgated_bin):
    with open(os.path.join(lab.REPO, "configure.ac")) as f:
        m = re.search(r"AC_INIT\(\[cellgate\],\s*\[([^\]]+)\]", f.read())
    p = subprocess.run([cellgated_bin, "--version"], capture_output=True,
                       text=True, timeout=10)
    assert p.returncode == 0, p.stderr
    assert m and m.group(1) in p.stdout + p.stderr


def _start_fails(binary, tmp_path, cfg, ns, user=None):
    """Run the daemon in the foreground in netns `ns`; it must exit 1."""
    # pytest's tmp_path is private to root; the unprivileged run must read it.
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="cgcfg", dir="/tmp"))
    os.chmod(tmp_path, 0o755)
    path = tmp_path / "start.json"
    path.write_text(json.dumps(cfg))
    os.chmod(path, 0o644)
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    os.chmod(run, 0o777)
    # The checkout may sit where an unprivileged user cannot reach it: run a
    # copy of the binary and the YANG module from the readable temp dir.
    shutil.copy(binary, tmp_path / "cellgated")
    shutil.copy(os.path.join(lab.REPO, "mgmt", "yang", "cellgate.yang"),
                tmp_path / "cellgate.yang")
    cmd = ["ip", "netns", "exec", ns]
    if user:
        cmd += ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "--inh-caps=-all"]
    cmd += [str(tmp_path / "cellgated"), "-d", "-f", str(path), "-r", str(run),
            "-y", str(tmp_path)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    try:
        assert p.returncode == 1, p.stdout + p.stderr
        assert not (run / "cellgated.pid").exists()
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)
    return p.stderr


@pytest.fixture
def scratch_ns():
    name = "cgcfg%d" % os.getpid()
    subprocess.run(["ip", "netns", "add", name], check=True, timeout=10)
    try:
        subprocess.run(["ip", "-n", name, "link", "add", "a0", "type", "veth",
                        "peer", "name", "a1"], check=True, timeout=10)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], timeout=10)


def test_missing_netdev_names_port_and_device(cellgated_bin, tmp_path,
                                              scratch_ns):
    cfg = {"cellgate:cellgate": {"port": [
        {"name": "uplink", "driver": "afpacket", "netdev": "nosuchdev0"}]}}
    err = _start_fails(cellgated_bin, tmp_path, cfg, scratch_ns)
    assert "nosuchdev0" in err and "No such device" in err, err
    assert "port uplink" in err and "startup failed" in err, err


def test_without_privileges_says_which_capability(cellgated_bin, tmp_path,
                                                  scratch_ns):
    cfg = {"cellgate:cellgate": {"port": [
        {"name": "uplink", "driver": "afpacket", "netdev": "a0"}]}}
    err = _start_fails(cellgated_bin, tmp_path, cfg, scratch_ns, user=True)
    assert "Operation not permitted" in err and "need CAP_NET_" in err, err
