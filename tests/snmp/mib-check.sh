#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# CELLGATE-MIB through two MIB compilers:
#  - smilint -l 6 (libsmi) must report nothing at error severity (0-3) nor
#    any warning (4-5) that the MIB's header does not explain; today there
#    are none, so any diagnostic but an info line fails;
#  - snmptranslate (net-snmp) must resolve every object, notification, group
#    and compliance of the module to an OID under the module's arc.
# Debian ships no SMIv2 base modules (SNMPv2-SMI, -TC, -CONF): system copies
# are used when installed, else the stand-ins in tests/snmp/base-mibs.
#
#   tests/snmp/mib-check.sh        prints what it checked; exit 0 = pass
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MIB=$ROOT/mibs/CELLGATE-MIB.txt
ARC=.1.3.6.1.4.1.32473
SYS=/usr/share/snmp/mibs:/usr/share/snmp/mibs/ietf:/usr/share/snmp/mibs/iana:/usr/share/mibs/ietf:/usr/share/mibs/iana
BASE=$ROOT/tests/snmp/base-mibs
fail=0

for tool in smilint snmptranslate; do
	command -v $tool >/dev/null || { echo "mib-check: $tool not installed (tests/deps.sh)"; exit 1; }
done

# smilint: -s prints each diagnostic's severity as [n].
lint=$(SMIPATH="$SYS:$BASE" smilint -s -l 6 "$MIB" 2>&1)
bad=$(printf '%s\n' "$lint" | grep -E '\[[0-5]\]' || true)
if [ -n "$bad" ]; then
	echo "mib-check: smilint -l 6 reports:"
	printf '%s\n' "$bad" | sed 's/^/   /'
	fail=1
else
	echo "mib-check: smilint -l 6: no errors, no warnings"
fi

# snmptranslate: every descriptor the module defines, in one run.
names=$(grep -oE '^[a-z][A-Za-z0-9]* +(OBJECT-TYPE|NOTIFICATION-TYPE|OBJECT-GROUP|NOTIFICATION-GROUP|MODULE-COMPLIANCE|MODULE-IDENTITY|OBJECT IDENTIFIER)' "$MIB" |
	awk '{print "CELLGATE-MIB::" $1}')
count=$(printf '%s\n' "$names" | wc -l)
# shellcheck disable=SC2086
out=$(snmptranslate -M "$SYS:$BASE:$ROOT/mibs" -m CELLGATE-MIB -On $names 2>&1 | grep -v "^$")
resolved=$(printf '%s\n' "$out" | grep -c "^$ARC\(\.\|$\)")
if [ "$resolved" -ne "$count" ] || printf '%s\n' "$out" | grep -vq "^$ARC"; then
	echo "mib-check: snmptranslate resolved $resolved of $count names under $ARC:"
	printf '%s\n' "$out" | grep -v "^$ARC" | head -20 | sed 's/^/   /'
	fail=1
else
	echo "mib-check: snmptranslate: all $count names resolve under $ARC"
fi
# Spot checks against the agent's tables (mgmt/snmp/tables_cellgate.c).
for pair in cgVcHCCellsIn=$ARC.1.6.1.7 cgVcOperDown=$ARC.0.1 cgPortDrops=$ARC.1.4.1.3 \
	cgFpmState=$ARC.1.2.1 cgInAtmArpAddress=$ARC.1.8.1.1; do
	got=$(snmptranslate -M "$SYS:$BASE:$ROOT/mibs" -m CELLGATE-MIB -On "CELLGATE-MIB::${pair%%=*}" 2>&1)
	if [ "$got" != "${pair#*=}" ]; then
		echo "mib-check: ${pair%%=*} is $got, the agent serves ${pair#*=}"
		fail=1
	fi
done
exit $fail
