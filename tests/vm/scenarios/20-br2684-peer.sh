#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Linux's br2684 (br2684ctl) on itf 1 against cellgate's RFC 2684 code on itf 0
# (atmvm_tool respond, linked with datapath/atm/rfc2684*.c): routed LLC/SNAP,
# routed VC-mux, bridged LLC and bridged VC-mux, one PVC and subnet each; the
# kernel pings across, our code answers (and answers ARP when bridged).
# needs: br2684ctl ip ping
# modules: br2684
# timeout: 90
. /lib/vm.sh

MAC=02:41:54:4d:00:01
n=0
for row in "llc 0 0" "vcmux 1 0" "llc-br 0 1" "vcmux-br 1 1"; do
	set -- $row
	enc=$1 e=$2 p=$3 vci=$((200 + n))
	atmvm_tool respond 0 0 $vci "$enc" "10.0.$n.1" $MAC 25 >"resp-$enc.log" 2>&1 &
	br2684ctl -b -c $n -e "$e" -p "$p" -a 1.0.$vci >"br-$enc.log" 2>&1
	if ! vm_wait 5 ip link show nas$n; then
		vm_fail "br2684-$enc-netdev" "no nas$n: $(tail -n 1 "br-$enc.log")"
		n=$((n + 1))
		continue
	fi
	vm_pass "br2684-$enc-netdev"
	vm_fact "nas$n.link" "$(ip -o link show nas$n | sed -E 's/.*link\/(\S+).*/\1/')"
	ip addr add "10.0.$n.2/24" dev nas$n
	ip link set nas$n up
	n=$((n + 1))
done
sleep 1
n=0
for enc in llc vcmux llc-br vcmux-br; do
	vm_check "ping-$enc" ping -c 3 -W 2 "10.0.$n.1"
	n=$((n + 1))
done
# The responders run 25 s; read their totals when they are done.
wait
n=0
for enc in llc vcmux llc-br vcmux-br; do
	cat "resp-$enc.log"
	vm_fact "rx.$enc" "$(sed -n 's/^respond rx=//p' "resp-$enc.log")"
	vm_fact "first.$enc" "$(sed -n 's/^respond rx len=//p' "resp-$enc.log" | head -1)"
	vm_expect "our-decap-$enc-no-bad" "resp-$enc.log" '^respond rx=[0-9]+ echo=3 .*bad=0'
	n=$((n + 1))
done
ip -s link show nas0
vm_keep resp-*.log br-*.log
