# SPDX-License-Identifier: BSD-2-Clause
"""RESTCONF over TCP: HTTPS (OpenSSL) with HTTP Basic against a crypt(3)
hash or a client certificate, plain HTTP only on loopback, and never a TCP
listener unless configured."""

import json
import os
import subprocess

import pytest

import lab
import restconf as rc

PASSWORD = "corr3ct-h0rse"


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True,
                   timeout=60)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("pki"))
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=test CA", cwd=d)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
            "server.pem", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1", cwd=d)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out",
            "client.csr", "-subj", "/CN=operator", cwd=d)
    openssl("x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "client.pem", "-days", "2", cwd=d)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "rogue.key", "-out",
            "rogue.pem", "-days", "2", "-subj", "/CN=rogue", cwd=d)
    h = subprocess.run(["openssl", "passwd", "-6", PASSWORD], capture_output=True, text=True,
                       check=True).stdout.strip()
    return d, h


def config(pki):
    d, h = pki
    cfg = lab.default_config()
    cfg["cellgate:cellgate"]["restconf"] = {
        "tcp-listener": [
            {"address": "127.0.0.1", "port": 8443,
             "tls": {"certificate": d + "/server.pem", "private-key": d + "/server.key",
                     "client-ca": d + "/ca.pem"}},
            {"address": "127.0.0.1", "port": 8080}],
        "user": [{"name": "admin", "password-hash": h}]}
    return cfg


def curl(topo, url, *args):
    p = topo.exec("r", ["curl", "-s", "-o", "/dev/stderr", "-w", "%{http_code}",
                        "--max-time", "10"] + list(args) + [url])
    return int(p.stdout or 0), p.stderr


def test_https_basic_and_client_certs(topo, start_daemon, pki):
    d, _ = pki
    topo.exec("r", ["ip", "link", "set", "lo", "up"])
    start_daemon(config(pki), check_accounting=False)
    url = "https://127.0.0.1:8443/restconf/data/cellgate:cellgate/system/workers"
    ca = ["--cacert", d + "/server.pem"]
    code, body = curl(topo, url, *ca)
    assert code == 401 and "access-denied" in body
    assert curl(topo, url, *ca, "-u", "admin:wrong")[0] == 401
    assert curl(topo, url, *ca, "-u", "nobody:" + PASSWORD)[0] == 401
    code, body = curl(topo, url, *ca, "-u", "admin:" + PASSWORD)
    assert code == 200 and json.loads(body) == {"cellgate:workers": 1}
    # A write over HTTPS.
    code, _ = curl(topo, "https://127.0.0.1:8443/restconf/data/cellgate:cellgate/routing",
                   *ca, "-u", "admin:" + PASSWORD, "-X", "POST", "-H",
                   "Content-Type: application/yang-data+json", "-d",
                   '{"cellgate:static-route":[{"prefix":"10.150.0.0/16","action":"blackhole"}]}')
    assert code == 201
    # A client certificate from the configured CA needs no password; another does.
    assert curl(topo, url, *ca, "--cert", d + "/client.pem", "--key", d + "/client.key")[0] == 200
    assert curl(topo, url, *ca, "--cert", d + "/rogue.pem", "--key", d + "/rogue.key")[0] in (0, 401)
    # Plain HTTP on loopback, authenticated as well.
    plain = "http://127.0.0.1:8080/metrics"
    assert curl(topo, plain)[0] == 401
    code, body = curl(topo, plain, "-u", "admin:" + PASSWORD)
    assert code == 200 and "cellgate_port_rx_packets_total" in body
    # Not HTTPS on the plain port, not plain HTTP on the TLS one.
    assert curl(topo, "http://127.0.0.1:8443/metrics", "-u", "admin:" + PASSWORD)[0] != 200


def test_no_tcp_listener_by_default(topo, start_daemon):
    topo.exec("r", ["ip", "link", "set", "lo", "up"])
    start_daemon(check_accounting=False)
    p = topo.exec("r", ["ss", "-Hltnp"])
    # The only TCP socket is the FPM server zebra connects to (routing/fpm,
    # loopback, on by default): no RESTCONF/HTTP listener.
    mine = [ln.split() for ln in p.stdout.splitlines() if "cellgated" in ln]
    assert [ln[3] for ln in mine] == ["127.0.0.1:2620"], p.stdout


@pytest.mark.parametrize("listener,msg", [
    ({"address": "10.0.1.1", "port": 8080}, "only allowed on a loopback address"),
    ({"address": "127.0.0.1", "port": 8443, "tls": {"certificate": "/x.pem"}},
     "needs tls/private-key"),
])
def test_bad_listener_config_is_refused(cellgated_bin, tmp_path, listener, msg):
    cfg = lab.default_config()
    cfg["cellgate:cellgate"]["restconf"] = {
        "tcp-listener": [listener], "user": [{"name": "a", "password-hash": "$6$x$y"}]}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg))
    p = subprocess.run([cellgated_bin, "-n", "-f", str(path)], capture_output=True, text=True)
    assert p.returncode == 1 and msg in p.stderr, p.stderr


def test_listener_without_users_is_refused(cellgated_bin, tmp_path):
    cfg = lab.default_config()
    cfg["cellgate:cellgate"]["restconf"] = {"tcp-listener": [{"address": "127.0.0.1",
                                                              "port": 8080}]}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg))
    p = subprocess.run([cellgated_bin, "-n", "-f", str(path)], capture_output=True, text=True)
    assert p.returncode == 1 and "needs a restconf/user" in p.stderr, p.stderr
