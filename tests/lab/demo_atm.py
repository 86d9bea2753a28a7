# SPDX-License-Identifier: BSD-2-Clause
"""The ATM half of the quick-start demo (run by tests/lab/demo.sh).

    h1 --eth-- [ r: cellgated ] ==cell pseudowire (RFC 4717)== [ a1: cellgated ] --eth-- h4

Builds the topology of tests/lab/atmlab.py, starts both routers, sends ping,
traceroute and iperf3 from the Ethernet host h1 across the ATM PVCs to h4,
takes one VC down with OAM by freezing the far router, and prints the PVC
table the way an operator reads it (cellgatectl show vc), then cleans up.

    /usr/bin/python3 tests/lab/demo_atm.py CELLGATED CELLGATECTL YANGDIR
"""

import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atmlab  # noqa: E402
import lab  # noqa: E402


def say(msg):
    print("\n\033[1m== %s\033[0m" % msg, flush=True)


def sh(topo, ns, cmd, timeout=30):
    p = topo.exec(ns, cmd, timeout=timeout)
    sys.stdout.write(p.stdout + p.stderr)
    sys.stdout.flush()
    return p


def main(binary, ctl, yang_dir):
    topo = atmlab.AtmTopology()
    daemons = []
    try:
        say("ATM topology: h1 -- [r] ==cells over veth r-a1== [a1] -- h4 (10.0.4.2)")
        topo.create()
        oam = {"enabled": True, "interval": 500, "retry-interval": 250,
               "down-count": 3, "up-count": 2}
        a1 = lab.Daemon(topo, atmlab.remote_config(topo), binary=binary, ns="a1")
        r = lab.Daemon(topo, atmlab.router_config(topo, oam=oam), binary=binary)
        for d in (a1, r):
            daemons.append(d)
            d.start()
        print("r: atm0 (cellpw on r-a1, PW label %d) with atm0.100 p2p VC 0/100, "
              "atm0.200 multipoint VC 0/200 (InATMARP), atm0.300 p2p VC 0/300 (CBR %d "
              "cells/s)" % (atmlab.PW_LABEL, atmlab.CBR_PCR))
        lab.wait_for(lambda: lab.run(["ip", "netns", "exec", topo["h1"], "ping", "-c", "1",
                                      "-W", "1", "10.0.4.2"], check=False).returncode == 0,
                     timeout=10)
        say("ping h1 -> h4 across ATM")
        sh(topo, "h1", ["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.0.4.2"])
        say("traceroute h1 -> h4: r, then a1's ATM subinterface, then h4")
        sh(topo, "h1", ["traceroute", "-n", "-q", "1", "-w", "2", "-m", "5", "10.0.4.2"])
        say("ping h1 -> 10.44.0.1 over the multipoint VC (peer learned by InATMARP)")
        sh(topo, "h1", ["ping", "-c", "2", "-i", "0.2", "-W", "2", "10.44.0.1"])
        say("iperf3 TCP h1 -> h4, 2 s, over VC 0/100")
        srv = topo.popen("h4", ["iperf3", "-s", "-1"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        p = topo.exec("h1", ["iperf3", "-c", "10.0.4.2", "-t", "2"], timeout=30)
        print("\n".join(ln for ln in p.stdout.splitlines() if "sender" in ln or "receiver" in ln))
        srv.wait(timeout=10)
        say("OAM: a1 frozen (SIGSTOP) -> VC 0/100 goes down; thawed -> up")
        a1.proc.send_signal(signal.SIGSTOP)
        time.sleep(3)
        a1.proc.send_signal(signal.SIGCONT)
        time.sleep(2.5)
        print("\n".join(ln for ln in r.log().splitlines() if "oper " in ln))
        say("cellgatectl show vc (on r): the PVCs, their state and counters")
        sock = os.path.join(r.rundir, "restconf.sock")
        sh(topo, "r", [ctl, "-s", sock, "-y", yang_dir, "show", "vc"])
        say("cellgatectl vc ping atm0 0/100 (OAM F5 loopback)")
        sh(topo, "r", [ctl, "-s", sock, "-y", yang_dir, "vc", "ping", "atm0", "0/100", "3"])
    finally:
        for d in reversed(daemons):
            code, _ = d.stop()
            print("cellgated in %s stopped (exit status %s)" % (d.ns, code))
            shutil.rmtree(d.dir, ignore_errors=True)
        topo.destroy()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
