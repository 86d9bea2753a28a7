# SPDX-License-Identifier: BSD-2-Clause
"""TCP across ATM from hosts that use TSO/GSO (containers, VMs on veth do).

The hosts hand the router 64 KiB super-packets; an ATM subinterface cannot
take them whole, so cellgated cuts them into the sender's segments in
software (gso-segmented). Forwarding them whole, even under the ATM MTU,
would black-hole the connection at the next 1500-byte link (DF set, and
the sender already at its smallest segment size).
"""

import pytest

from test_atm import capture_name, routers, topo  # noqa: F401 (fixtures)
import lab
import test_atm


@pytest.fixture(scope="module")
def topo_options():
    return {"offloads": True}


def test_iperf3_tcp_with_host_offloads(topo, routers):  # noqa: F811
    test_atm.test_iperf3_tcp_across_atm(topo, routers)
    r, _ = routers
    eth0 = lab.port_of(r, "eth0")
    assert eth0["rx-gso-packets"] > 0, "the host sent no super-packets: offloads off?"
    assert eth0["gso-segmented"] == eth0["rx-gso-packets"]
    assert eth0["gso-segments-out"] > eth0["gso-segmented"]
