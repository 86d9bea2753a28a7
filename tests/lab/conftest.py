# SPDX-License-Identifier: BSD-2-Clause
"""pytest fixtures for the cellgate lab: a namespace topology and cellgated.

Each test module gets its own topology and daemon (module scope), torn down
by finalizers even when a test or the setup fails.  The daemon binary comes
from $CELLGATED (default <repo>/build/daemon/cellgated).
"""

import os
import shutil
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lab  # noqa: E402

_daemons = []


def pytest_report_header(config):
    return "cellgated: %s; FIB algorithm: %s" % (
        lab.cellgated_path(), lab.fib_algorithm() or "the default")


@pytest.fixture(scope="session")
def cellgated_bin():
    path = lab.cellgated_path()
    if not os.access(path, os.X_OK):
        pytest.fail("cellgated binary not found: %s (build it or set "
                    "CELLGATED)" % path, pytrace=False)
    return path


def pytest_generate_tests(metafunc):
    """A module that sets LAB_DRIVERS = lab.DRIVERS_ALL runs once per driver
    of its Ethernet ports (test ids [afpacket], [afxdp]); CGLAB_DRIVERS
    (comma-separated) narrows that for a run."""
    if "lab_driver" not in metafunc.fixturenames or \
            not hasattr(metafunc.module, "LAB_DRIVERS"):
        return  # the other modules keep their test ids, on lab.DRIVER
    drivers = metafunc.module.LAB_DRIVERS
    only = os.environ.get("CGLAB_DRIVERS")
    if only:
        drivers = [d for d in drivers if d in only.split(",")] or [lab.DRIVER]
    metafunc.parametrize("lab_driver", list(drivers), indirect=True,
                         scope="module")


@pytest.fixture(scope="module")
def lab_driver(request):
    """The Ethernet driver this module's daemons run on: lab.default_config
    reads lab.DRIVER, set here for the module's tests (pytest runs a
    module-scoped parameter's tests together)."""
    drv = getattr(request, "param", lab.DRIVER)
    if drv == "afxdp" and not lab.afxdp_object():
        pytest.fail("driver afxdp: %s was built without libxdp (configure: "
                    "afxdp port driver: no); CGLAB_DRIVERS=afpacket runs "
                    "afpacket only" % lab.cellgated_path(), pytrace=False)
    saved = lab.DRIVER
    lab.DRIVER = drv
    yield drv
    lab.DRIVER = saved


@pytest.fixture(scope="module")
def topo_options():
    """Keyword arguments for lab.Topology; a test module overrides this
    fixture to change its topology, e.g. {"mtu": {"r-h2": 1280}}."""
    return {}


@pytest.fixture(scope="module")
def topo(request, topo_options, lab_driver):
    if os.geteuid() != 0:
        pytest.fail("the lab needs root (network namespaces, AF_PACKET)",
                    pytrace=False)
    t = lab.Topology(**topo_options)
    request.addfinalizer(t.destroy)
    t.create()
    return t


def start_router(request, topo, binary, config=None, args=(), ns="r", env=None):
    """Start cellgated (in namespace `ns` of topo, with environment `env`
    or ours) and register a finalizer that stops and checks it."""
    d = lab.Daemon(topo, config or lab.default_config(), binary=binary,
                   args=args, ns=ns, env=env)
    _daemons.append(d)

    def fin():
        _daemons.remove(d)
        if failed_start:
            d.kill()
            return  # already reported by the setup failure
        code, log = d.stop()
        san = lab.sanitizer_errors(log)
        # Keep the run directory only when something went wrong.
        if code == 0 and not san:
            shutil.rmtree(d.dir, ignore_errors=True)
        assert code == 0, ("cellgated did not exit 0 on SIGTERM (code %r); "
                           "log in %s:\n%s" % (code, d.dir, log[-4000:]))
        assert not san, "sanitizer reports:\n" + "\n".join(san[:40])

    failed_start = None
    request.addfinalizer(fin)
    try:
        d.start()
    except lab.DaemonError as e:
        failed_start = str(e)
    if failed_start:
        pytest.fail(failed_start, pytrace=False)
    return d


@pytest.fixture(scope="module")
def router(request, topo, cellgated_bin):
    return start_router(request, topo, cellgated_bin)


@pytest.fixture
def start_daemon(request, topo, cellgated_bin):
    """Factory: start_daemon(config=None, check_accounting=True) starts
    cellgated with that configuration (default: the lab's) for one test.

    Call it once per test, and not in a module that also uses `router`
    (two daemons cannot share the netdevs).  At the end of the test the
    accounting rule (rx == forwarded + to-kernel + drops on every port) must
    hold within a few seconds, then the daemon must stop cleanly.
    """
    def start(config=None, check_accounting=True, args=()):
        d = start_router(request, topo, cellgated_bin, config=config,
                         args=args)
        if check_accounting:
            # Registered after start_router's finalizer, so it runs first,
            # while the daemon is still up.
            request.addfinalizer(lambda: _assert_accounting(d))
        return d
    return start


def _assert_accounting(d):
    if not d.alive():
        return  # the stop check reports this
    # Packets held for ARP are in rx but not yet forwarded or dropped.
    ok = lab.wait_for(lambda: not lab.accounting_errors(d.stats()),
                      timeout=6, interval=0.25)
    assert ok, "accounting broken after the test:\n" + \
        "\n".join(lab.accounting_errors(d.stats()))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Attach the tail of the daemon's log to failing test reports."""
    outcome = yield
    rep = outcome.get_result()
    if rep.failed:
        for d in _daemons:
            rep.sections.append(("cellgated log (%s)" % d.stderr_path,
                                 "\n".join(d.log().splitlines()[-60:])))
