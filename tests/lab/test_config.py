"""cellgated -n: check a configuration, print it normalised, exit 0/1.

Needs no namespaces: check mode must not touch any netdev.
"""

import copy
import json
import os
import re
import subprocess

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
