#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The Linux ATM socket API on atmtcp, as the atmsock driver uses it: AAL5 PDUs
# both ways, the SO_ATMQOS contracts it asks for, raw cells (ATM_AAL0, for OAM
# F5), and what a socket sees when the far end closes the VC.
# timeout: 60
. /lib/vm.sh

atmvm_tool xfer 0 1 0 100 >xfer.log 2>&1
vm_expect aal5-1-to-9188-both-ways xfer.log '^xfer failures=0$'
vm_expect aal5-oversize-emsgsize xfer.log 'oversize=-1 errno=Message too long'

# The three contracts of atmsock_qos(), plus the ones it refuses itself.
: >qos.log
for q in "ubr 0" "ubr 1000" "cbr 1000" "cbr 353207" "cbr 400000" "cbr 0"; do
	# shellcheck disable=SC2086
	atmvm_tool qos 0 0 110 $q >>qos.log 2>&1
done
cat qos.log
vm_expect qos-ubr qos.log '^qos ubr pcr=0: ok'
vm_expect qos-ubr-pcr qos.log '^qos ubr pcr=1000: ok'
vm_expect qos-cbr qos.log '^qos cbr pcr=1000: ok'
while read -r line; do
	k=$(echo "$line" | sed -E 's/^qos (\w+) pcr=([0-9]+):.*/qos.\1.\2/')
	vm_fact "$k" "$(echo "$line" | sed -E 's/^[^:]*: //')"
done <qos.log

atmvm_tool aal0 0 1 0 120 >aal0.log 2>&1
cat aal0.log
vm_fact aal0.open "$(sed -n 's/^aal0 open //p' aal0.log)"
vm_fact aal0.write52 "$(sed -n 's/^aal0 write52=//p' aal0.log)"
vm_fact aal0.write48 "$(sed -n 's/^aal0 write48=//p' aal0.log)"
vm_fact aal0.read_sizes "$(sed -n 's/^aal0 size=//p' aal0.log | tr '\n' ' ')"
vm_fact aal0.first_cell "$(sed -n 's/^aal0 cell=//p' aal0.log | head -1)"
vm_fact aal0.beside_aal5 "$(sed -n 's/^aal0 beside-aal5=//p' aal0.log)"
vm_expect aal0-cell-crosses aal0.log '^aal0 read=52$'

atmvm_tool farclose 0 1 0 130 >farclose.log 2>&1
cat farclose.log
vm_fact farclose.poll "$(sed -n 's/^farclose poll //p' farclose.log)"
vm_fact farclose.send "$(sed -n 's/^farclose send=//p' farclose.log)"
vm_fact farclose.recv "$(sed -n 's/^farclose recv=//p' farclose.log)"
vm_fact farclose.reopen "$(sed -n 's/^farclose reopen=//p' farclose.log)"
vm_expect farclose-ran farclose.log '^farclose reopen='
# The adapter itself goes away: itf 1's atmtcp process ends (itf 0's follows).
atmvm_tool itfgone 1 0 140 5 >itfgone.log 2>&1 &
vm_wait 3 grep -q ready itfgone.log
kill "$(ps | awk '/atmtcp virtual 1/ && !/awk/ {print $1}')"
wait
cat itfgone.log
for k in poll recv recv2 send; do
	vm_fact "itfgone.$k" "$(sed -n "s/^itfgone $k[= ]//p" itfgone.log)"
done
vm_expect itfgone-seen itfgone.log '^itfgone poll revents=0x[1-9a-f]'
cat /proc/net/atm/devices
vm_keep itfgone.log xfer.log qos.log aal0.log farclose.log
