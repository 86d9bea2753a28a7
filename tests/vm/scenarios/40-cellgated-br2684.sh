#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# cellgated (driver atmsock) on itf 0 against the kernel's own RFC 2684 stack
# (br2684ctl) on itf 1: one PVC per encapsulation, each nas netdev in a
# namespace of its own. Pings to cellgated's addresses and from them (the
# host path), transit between encapsulations (the worker), TCP and UDP
# (iperf3), exact per-VC counters, a PVC added and deleted at runtime
# (cellgatectl), bad SDUs from the far side counted by reason, and the far
# side going away. Counters are judged on the host
# (40-cellgated-br2684.py) from the stats.json files left in /share.
# needs: cellgated cellgatectl br2684ctl ip ping iperf3
# modules: br2684 tun
# timeout: 150
. /lib/vm.sh

CG=/tmp/cg
mkdir -p $CG /var/run/netns
for k in all default; do sysctl -qw net.ipv6.conf.$k.disable_ipv6=1; done

# PVC N: 0/10N on both sides, subnet 10.0.N.0/24, cellgated .1, the kernel .2.
pvc() { # name vci encap
	echo "{\"name\": \"atm0.$2\", \"type\": \"point-to-point\",
	  \"ipv4\": {\"address\": [{\"ip\": \"10.0.$(($2 - 100)).1\", \"prefix-length\": 24}]},
	  \"pvc\": [{\"vpi\": 0, \"vci\": $2, \"encapsulation\": \"$3\", \"mtu\": 1500}]}"
}
cat >$CG/cellgated.json <<JSON
{"cellgate:cellgate": {"system": {"workers": 1}, "port": [
  {"name": "atm0", "driver": "atmsock", "atmsock": {"interface-number": 0},
   "subinterface": [
     $(pvc 0 100 llc-snap), $(pvc 0 101 vc-mux-ipv4), $(pvc 0 102 llc-bridged),
     $(pvc 0 103 vc-mux-bridged), $(pvc 0 110 llc-snap), $(pvc 0 111 llc-bridged),
     {"name": "atm0.120", "type": "multipoint",
      "ipv4": {"address": [{"ip": "10.0.20.1", "prefix-length": 24}]},
      "pvc": [{"vpi": 0, "vci": 120, "mtu": 1500, "peer-address": "10.0.20.2"}]}
   ]}]}}
JSON
cellgated -d -f $CG/cellgated.json -r $CG -y /yang >$CG/cellgated.log 2>&1 &
CGPID=$!
if vm_wait 20 /bin/ip link show atm0.111; then vm_pass cellgated-up; else
	vm_fail cellgated-up "no TUN atm0.111: $(tail -n 3 $CG/cellgated.log | tr '\n' ' ')"
	vm_keep $CG/cellgated.log
	exit 0
fi

# The kernel's side: nasN for PVC 10N, in namespace pN.
n=0
for row in "0 0" "1 0" "0 1" "1 1"; do
	set -- $row
	br2684ctl -b -c $n -e "$1" -p "$2" -a 1.0.$((100 + n)) >/tmp/br$n.log 2>&1
	vm_wait 5 /bin/ip link show nas$n || vm_fail "nas$n" "br2684ctl: $(tail -n 1 /tmp/br$n.log)"
	/bin/ip netns add p$n
	/bin/ip link set nas$n netns p$n
	/bin/ip -n p$n link set lo up
	/bin/ip -n p$n addr add 10.0.$n.2/24 dev nas$n
	/bin/ip -n p$n link set nas$n up
	/bin/ip -n p$n route add default via 10.0.$n.1
	n=$((n + 1))
done
sleep 1

stats() { # file: stats.json now, into /share
	rm -f $CG/stats.json
	kill -USR1 $CGPID
	vm_wait 5 test -s $CG/stats.json && cp $CG/stats.json "/share/$1"
}

enc() { case $1 in 0) echo llc ;; 1) echo vcmux ;; 2) echo llc-br ;; 3) echo vcmux-br ;; esac; }
for n in 0 1 2 3; do
	vm_check "ping-to-cellgated-$(enc $n)" /bin/ip netns exec p$n /bin/ping -c 3 -W 2 10.0.$n.1
	vm_check "ping-from-cellgated-$(enc $n)" /bin/ping -c 3 -W 2 10.0.$n.2
done
vm_check transit-llc-to-vcmux /bin/ip netns exec p0 /bin/ping -c 3 -W 2 10.0.1.2
vm_check transit-llc-to-llc-br /bin/ip netns exec p0 /bin/ping -c 3 -W 2 10.0.2.2
vm_check transit-llc-br-to-vcmux-br /bin/ip netns exec p2 /bin/ping -c 3 -W 2 10.0.3.2

/bin/ip netns exec p2 iperf3 -s -1 -D -p 5201
/bin/ip netns exec p3 iperf3 -s -1 -D -p 5202
sleep 0.5
vm_check iperf3-tcp-llc-to-llc-br /bin/ip netns exec p0 iperf3 -c 10.0.2.2 -p 5201 -t 2 -M 1400
vm_check iperf3-udp-vcmux-to-vcmux-br \
	/bin/ip netns exec p1 iperf3 -c 10.0.3.2 -p 5202 -u -b 2M -l 1200 -t 2

# Exact: 10 pings p1 -> p3 cross VC 101 in and 103 out, and back.
sleep 1
stats stats-before.json
/bin/ip netns exec p1 /bin/ping -c 10 -i 0.2 -W 2 10.0.3.2 >/tmp/exact.log 2>&1
sleep 0.5
stats stats-after.json
vm_expect exact-pings-answered /tmp/exact.log ' 10 received'

# A PVC added at runtime on the multipoint subinterface, then deleted.
br2684ctl -b -c 5 -e 1 -p 0 -a 1.0.121 >/tmp/br5.log 2>&1
vm_wait 5 /bin/ip link show nas5
/bin/ip netns add p5
/bin/ip link set nas5 netns p5
/bin/ip -n p5 addr add 10.0.20.3/24 dev nas5
/bin/ip -n p5 link set nas5 up
/bin/ip -n p5 route add default via 10.0.20.1
CTL="cellgatectl -s $CG/restconf.sock -y /yang"
vm_check runtime-pvc-add $CTL vc add atm0 atm0.120 0/121 vc-mux-ipv4 peer 10.0.20.3
vm_check runtime-pvc-carries /bin/ip netns exec p5 /bin/ping -c 3 -W 2 10.0.20.1
vm_check runtime-pvc-transit /bin/ip netns exec p5 /bin/ping -c 3 -W 2 10.0.0.2
stats stats-added.json
vm_check runtime-pvc-del $CTL vc del atm0 atm0.120 0/121
if /bin/ip netns exec p5 /bin/ping -c 2 -W 1 10.0.20.1 >/dev/null 2>&1; then
	vm_fail runtime-pvc-gone "still answered after the delete"
else
	vm_pass runtime-pvc-gone
fi
stats stats-deleted.json

# Bad SDUs from the far side: on 0/110 (llc-snap) and 0/111 (llc-bridged).
LLC=aaaa0300000008
atmvm_tool send 1 0 110 aaaa030000008847deadbeef ${LLC}00 "" \
	"${LLC}00$(printf '%04000d' 0)" >/tmp/bad110.log 2>&1
BR=aaaa030080c200070000
atmvm_tool send 1 0 111 "${BR}02999999999900000100000008004500" \
	aaaa030080c200010000000000000000 ${LLC}0045000014 "$BR" >/tmp/bad111.log 2>&1
sleep 0.5
stats stats-bad.json

# The far side goes away: both atmtcp ends stop, the kernel shuts every VC socket.
for p in $(ps | awk '/atmtcp virtual/ && !/awk/ {print $1}'); do kill "$p"; done
sleep 1
stats stats-gone.json
vm_expect vc-gone-logged $CG/cellgated.log "oper down: the kernel shut the VC's socket"
kill $CGPID
wait $CGPID 2>/dev/null
cat $CG/cellgated.log
vm_keep $CG/cellgated.log /tmp/exact.log /tmp/bad110.log /tmp/bad111.log
