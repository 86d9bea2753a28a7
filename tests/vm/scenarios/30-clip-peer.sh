#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Linux CLIP (RFC 2225) with atmarpd on itf 1 against cellgate's LLC/SNAP and
# InATMARP code on itf 0 (atmvm_tool respond/inarp): a PVC with a static
# address carries IP; on another, InATMARP both ways.
# needs: atmarpd atmarp ip ping
# modules: clip
# timeout: 60
. /lib/vm.sh

mkdir -p /var/run
atmarpd -b -l /tmp/atmarpd.log || vm_fail atmarpd-start "atmarpd -b failed"
vm_wait 3 test -e /var/run/atmarpd.table
atmarp -c 0 >atmarp.log 2>&1
if vm_wait 3 ip link show atm0; then vm_pass clip-netdev; else vm_fail clip-netdev "no atm0"; fi
vm_fact atm0.link "$(ip -o link show atm0 | sed -E 's/.*link\/(\S+).*/\1/')"
ip addr add 10.0.9.2/24 dev atm0
ip link set atm0 up
atmvm_tool respond 0 0 109 llc 10.0.9.1 02:41:54:4d:00:01 12 >resp.log 2>&1 &
vm_check atmarp-static-pvc atmarp -s 10.0.9.1 1.0.109
vm_check ping-clip ping -c 3 -W 2 10.0.9.1
# InATMARP: a PVC whose far address CLIP has to learn, and we ask it for its own.
atmvm_tool inarp 0 0 110 10.0.9.3 10 >inarp.log 2>&1 &
sleep 1
atmarp -s 10.0.9.3 1.0.110 >>atmarp.log 2>&1 || true
wait
cat resp.log inarp.log atmarp.log /tmp/atmarpd.log
atmarp -a >table.log 2>&1
cat table.log
vm_fact inarp.replies "$(sed -n 's/^inarp replies=//p' inarp.log)"
vm_fact inarp.requests_from_clip "$(grep -c '^inarp op=8' inarp.log)"
vm_fact inarp.answer_spa "$(sed -n 's/^inarp op=9 spa=//p' inarp.log | head -1)"
vm_expect our-llc-decap-clip resp.log '^respond rx=[0-9]+ echo=3 .*bad=0'
vm_keep resp.log inarp.log atmarp.log table.log /tmp/atmarpd.log
