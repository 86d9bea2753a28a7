#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# RIB6 insert benchmark: the libloc IPv6 networks into the RIB6 and as many
# IPv4 ones into the IPv4 RIB (the anchor), alternating rounds in one
# process, pinned to one CPU. Prints inserts/s and the longest single
# insert (what a one-shot rehash of the route table costs the control loop).
# Several binaries (e.g. one built from an older rib6.c) run in turn, each
# -r times, so their figures come from the same stretch of machine load.
#
#   tests/bench/rib6-bench.sh [-c CPU] [-r RUNS] [BIN...]
set -u
CPU=0 RUNS=3
while getopts c:r: o; do
	case $o in
	c) CPU=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	*) sed -n '2,10p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] || set -- "$ROOT/build/tests/bench/rib6_bench"
command -v location >/dev/null || { echo "rib6-bench: 'location' missing (tests/deps.sh)" >&2; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
location dump | awk -v d="$WORK" '$1 == "net:" { print $2 > (d "/" ($2 ~ /:/ ? "nets6" : "nets")) }'
for i in $(seq "$RUNS"); do
	for b in "$@"; do
		echo "== run $i: $b"
		"$b" "$CPU" "$WORK/nets6" "$WORK/nets" 3 || exit 1
	done
done
