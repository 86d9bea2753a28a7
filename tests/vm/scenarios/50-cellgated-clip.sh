#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# cellgated (driver atmsock, a multipoint subinterface, InATMARP) on itf 0
# against Linux CLIP (RFC 2225: atmarpd, atmarp -c, a PVC by atmarp -s) on
# itf 1, both in the initial namespace (policy routing keeps their traffic
# on the VC). cellgated learns the
# kernel's address by InATMARP and sends to it; the kernel reaches cellgated
# through its PVC entry. Judged on the host (50-cellgated-clip.py).
# needs: cellgated atmarpd atmarp ip ping
# modules: clip tun
# timeout: 90
. /lib/vm.sh

CG=/tmp/cg
mkdir -p $CG /var/run/netns
for k in all default; do sysctl -qw net.ipv6.conf.$k.disable_ipv6=1; done
cat >$CG/cellgated.json <<JSON
{"cellgate:cellgate": {"system": {"workers": 1}, "port": [
  {"name": "cg0", "driver": "atmsock", "atmsock": {"interface-number": 0},
   "subinterface": [
     {"name": "cg0.9", "type": "multipoint",
      "ipv4": {"address": [{"ip": "10.0.9.1", "prefix-length": 24}]},
      "pvc": [{"vpi": 0, "vci": 109, "inatmarp": {"interval": 2000}}]}]}]}}
JSON
cellgated -d -f $CG/cellgated.json -r $CG -y /yang >$CG/cellgated.log 2>&1 &
CGPID=$!
if vm_wait 20 /bin/ip link show cg0.9; then vm_pass cellgated-up; else
	vm_fail cellgated-up "no TUN cg0.9: $(tail -n 3 $CG/cellgated.log | tr '\n' ' ')"
	exit 0
fi

atmarpd -b -l /tmp/atmarpd.log || vm_fail atmarpd "atmarpd -b failed"
vm_wait 3 test -e /var/run/atmarpd.table
atmarp -c 0 >/tmp/atmarp.log 2>&1
if vm_wait 3 /bin/ip link show atm0; then vm_pass clip-netdev; else vm_fail clip-netdev "no atm0"; fi
# ATM sockets live in the initial namespace only, and so do atmarpd's PVC
# entries (moved to another netns, atm0's "atmarp -s" fails: No route to host).
# So both ends stay here, and policy routing makes each one's traffic to the
# other leave by its own netdev instead of being delivered locally.
/bin/ip addr add 10.0.9.2/24 dev atm0
/bin/ip link set atm0 up
# atmarp -s for an address that is local here oopses the 6.1 kernel (NULL
# dereference in clip_ioctl; tests/vm/README.md): cellgated's TUN lends it
# back only once the PVC entry is made.
/bin/ip addr del 10.0.9.1/24 dev cg0.9
vm_check clip-pvc atmarp -s 10.0.9.1 1.0.109
/bin/ip addr add 10.0.9.1/24 dev cg0.9
# (by path: sysctl's dotted names cannot say cg0.9)
for k in all default atm0 cg0.9; do
	echo 1 >/proc/sys/net/ipv4/conf/$k/accept_local
	echo 0 >/proc/sys/net/ipv4/conf/$k/rp_filter
done
/bin/ip rule add pref 100 lookup local
/bin/ip rule del pref 0
/bin/ip route add 10.0.9.1 dev atm0 table 10
/bin/ip route add 10.0.9.2 dev cg0.9 table 11
/bin/ip rule add pref 10 oif atm0 lookup 10
/bin/ip rule add pref 11 oif cg0.9 lookup 11
/bin/ip rule add pref 12 from 10.0.9.2 to 10.0.9.1 iif lo lookup 10
/bin/ip rule add pref 13 from 10.0.9.1 to 10.0.9.2 iif lo lookup 11

# cellgated asks every 2 s until it knows who is on the VC.
if vm_wait 15 grep -q 'InATMARP: far end is 10.0.9.2' $CG/cellgated.log; then
	vm_pass inatmarp-cellgated-learns-kernel
else
	vm_fail inatmarp-cellgated-learns-kernel "no 'far end is 10.0.9.2' in the log"
fi
vm_check ping-kernel-to-cellgated /bin/ping -c 3 -W 2 -I 10.0.9.2 10.0.9.1
vm_check ping-cellgated-to-kernel /bin/ping -c 3 -W 2 -I 10.0.9.1 10.0.9.2
atmarp -a >/tmp/table.log 2>&1
cat /tmp/table.log
vm_fact clip.table "$(grep -A1 '^IP 10.0.9.1' /tmp/table.log | tr '\n' ' ')"
rm -f $CG/stats.json
kill -USR1 $CGPID
vm_wait 5 test -s $CG/stats.json && cp $CG/stats.json /share/stats.json
kill $CGPID
wait $CGPID 2>/dev/null
cat $CG/cellgated.log
vm_keep $CG/cellgated.log /tmp/atmarpd.log /tmp/table.log
