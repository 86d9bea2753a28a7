#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Build the libFuzzer targets with clang (ASan + UBSan + libFuzzer) and run
# each for a number of executions (not seconds, so a slow machine tests as
# much as a fast one): MIN_RUNS below times SCALE. A target that crashes,
# aborts, or cannot reach its executions within FUZZ_MAX_SECONDS (default
# 600) fails, and the script exits non-zero.
#   tests/fuzz/run.sh [SCALE]      (default 1; 50 for a long run)
# Corpora live in tests/fuzz/corpus/TARGET (seeds); new inputs go to a temp dir.
set -u
SCALE=${1:-1}
MAXSECS=${FUZZ_MAX_SECONDS:-600}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${FUZZ_OUT:-$ROOT/build-fuzz}
CC=${FUZZ_CC:-clang}
mkdir -p "$OUT"
command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (apt-get install clang)" >&2; exit 1; }

# The datapath sources, all of them, as the daemon links them; the build
# header configure would write, reduced to what they ask (ISA-L's CRC).
BUILD_H="$OUT/cellgate-build.h"
echo "#define _GNU_SOURCE 1" >"$BUILD_H" # as configure's AC_USE_SYSTEM_EXTENSIONS: memmem
ISAL_LIB=
CRYPT_LIB=
# auth.c checks passwords with crypt(3) when built for TLS listeners.
if [ -e /usr/include/crypt.h ]; then
	echo "#define HAVE_TLS 1" >>"$BUILD_H"
	CRYPT_LIB=-lcrypt
fi
if [ -e /usr/include/isa-l/crc.h ]; then
	echo "#define HAVE_ISAL 1" >>"$BUILD_H"
	ISAL_LIB=-lisal
fi
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I$OUT -I$ROOT $(pkg-config --cflags liburcu-qsbr libmnl libyang libevent) \
	-DSRC_DIR=\"$ROOT\" -DSRC_YANG_DIR=\"$ROOT/mgmt/yang\""
# The afxdp driver as a build without libxdp has it (port_afxdp_none.c): the
# fuzzers feed the worker through a fake port, and need no XDP program.
DATAPATH=$(ls "$ROOT"/datapath/*.c "$ROOT"/datapath/fib/*.c "$ROOT"/datapath/atm/*.c "$ROOT"/lib/*.c |
	grep -v '/datapath/port_afxdp[a-z_]*\.c$')
DATAPATH="$DATAPATH $ROOT/datapath/port_afxdp_none.c"
# The startup-config parser and printer, as cellgated links them.
CONFIG=$(ls "$ROOT"/config/*.c)
LIBS="$(pkg-config --libs liburcu-qsbr libmnl libyang libevent) $ISAL_LIB $CRYPT_LIB -lpthread"

declare -A SOURCES=(
	[fuzz_cellpw]="$ROOT/tests/fuzz/fuzz_cellpw.c $ROOT/tests/unit/port_fake.c \
		$ROOT/daemon/rib.c $ROOT/daemon/rib_nh.c $ROOT/daemon/rib6.c $ROOT/daemon/rib6_order.c $DATAPATH"
	[fuzz_worker]="$ROOT/tests/fuzz/fuzz_worker.c $ROOT/tests/unit/port_fake.c \
		$ROOT/daemon/rib.c $ROOT/daemon/rib_nh.c $ROOT/daemon/rib6.c $ROOT/daemon/rib6_order.c $DATAPATH"
	[fuzz_fpm]="$ROOT/tests/fuzz/fuzz_fpm.c $ROOT/daemon/fpm_nl.c $ROOT/daemon/fpm_table.c \
		$ROOT/daemon/fpm_nh.c $ROOT/daemon/fpm_r6.c $ROOT/daemon/fpm_limit.c $ROOT/daemon/rib.c $ROOT/daemon/rib_nh.c $ROOT/daemon/rib6.c $ROOT/daemon/rib6_order.c $DATAPATH"
	[fuzz_config]="$ROOT/tests/fuzz/fuzz_config.c $CONFIG $DATAPATH"
	[fuzz_fib]="$ROOT/tests/fuzz/fuzz_fib.c $DATAPATH"
	[fuzz_restconf]="$ROOT/tests/fuzz/fuzz_restconf.c $ROOT/mgmt/restconf/edit.c \
		$ROOT/mgmt/restconf/path.c $ROOT/mgmt/restconf/error.c $ROOT/mgmt/restconf/persist.c \
		$CONFIG $DATAPATH"
	[fuzz_ip6]="$ROOT/tests/fuzz/fuzz_ip6.c $DATAPATH"
	[fuzz_rc_read]="$ROOT/tests/fuzz/fuzz_rc_read.c $ROOT/mgmt/restconf/get.c \
		$ROOT/mgmt/restconf/query.c $ROOT/mgmt/restconf/path.c $ROOT/mgmt/restconf/error.c \
		$ROOT/mgmt/restconf/stream.c $ROOT/mgmt/restconf/head.c $ROOT/mgmt/restconf/auth.c \
		$CONFIG $DATAPATH"
)
# Executions per target at SCALE 1: what CI runs (about 10-20 s each here).
# SCALE 100 is issue 17's long run for fuzz_fib (10 M), 200 for fuzz_ip6
# (10 M), 20 for fuzz_fpm (1 M), 10 for fuzz_restconf (1 M).
declare -A MIN_RUNS=(
	[fuzz_cellpw]=400000
	[fuzz_worker]=400000
	[fuzz_fpm]=50000
	[fuzz_config]=20000
	[fuzz_restconf]=100000
	[fuzz_ip6]=50000
	[fuzz_fib]=100000
	[fuzz_rc_read]=200000
)
# Extra compiler flags per target: fuzz_fpm's IPv4 table starts at 1 K slots
# (the daemon's 64 K made every session start walk 64 K slots).
declare -A TARGET_FLAGS=(
	[fuzz_fpm]="-DFPM_R4_SLOTS_INIT=1024"
)
# Longest input per target (-max_len; default 8192): fuzz_fib reads at most
# 16 updates of 7 bytes, longer inputs would only carry bytes it ignores.
declare -A MAX_LEN=(
	[fuzz_fib]=112
)
# Seeds kept elsewhere in the tree, copied into the run's corpus: every
# startup file the unit tests and the examples hold, good and bad.
declare -A MORE_SEEDS=(
	[fuzz_config]="$ROOT/tests/unit/config/*.json $ROOT/etc/*.json"
)

# The FIB code (datapath/fib/) is built without comparison tracing: its
# comparisons are of table contents with the prefixes the input gave, which
# tells libFuzzer nothing an input byte does not, and tracing them took two
# thirds of fuzz_fib's time (fuzz_fib: 4,800 -> 15,000 executions per CPU
# second). Edge coverage stays on. Everything else keeps trace-cmp: the
# parsers' comparisons with protocol constants are what it is for.
NOCMP="$OUT/nocmp"
mkdir -p "$NOCMP"

# Build target t: the FIB sources to objects without trace-cmp, then the rest.
fuzz_build() {
	local t=$1 src objs="" rest="" flags="$FLAGS ${TARGET_FLAGS[$1]:-}"
	for src in ${SOURCES[$t]}; do
		case $src in
		"$ROOT"/datapath/fib/*.c)
			# shellcheck disable=SC2086
			$CC $flags -fno-sanitize-coverage=trace-cmp -c "$src" \
				-o "$NOCMP/$(basename "$src" .c).o" || return 1
			objs="$objs $NOCMP/$(basename "$src" .c).o"
			;;
		*) rest="$rest $src" ;;
		esac
	done
	# shellcheck disable=SC2086
	$CC $flags -o "$OUT/$t" $rest $objs $LIBS
}

rc=0
# FUZZ_TARGETS="fuzz_config fuzz_fpm" runs only those.
for t in ${FUZZ_TARGETS:-"${!SOURCES[@]}"}; do
	if ! fuzz_build "$t"; then
		echo "fuzz: $t: build failed" >&2
		rc=1
		continue
	fi
	corpus=$(mktemp -d)
	# shellcheck disable=SC2086
	[ -n "${MORE_SEEDS[$t]:-}" ] && cp ${MORE_SEEDS[$t]} "$corpus"/
	seeds=$ROOT/tests/fuzz/corpus/$t
	log=$OUT/$t.log
	want=$((${MIN_RUNS[$t]:-100000} * SCALE))
	t0=$(date +%s)
	if "$OUT/$t" -runs="$want" -max_total_time="$MAXSECS" -max_len="${MAX_LEN[$t]:-8192}" -print_final_stats=1 \
		-artifact_prefix="$OUT/$t-" \
		"$corpus" ${seeds:+$( [ -d "$seeds" ] && echo "$seeds")} >"$log" 2>&1; then
		got=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$')
		secs=$(($(date +%s) - t0))
		if [ "${got:-0}" -lt "$want" ]; then
			echo "fuzz: $t: FAILED: only ${got:-0} of $want executions in $secs s (FUZZ_MAX_SECONDS=$MAXSECS)" >&2
			rc=1
		else
			echo "fuzz: $t: $got executions in $secs s, no crash"
		fi
	else
		echo "fuzz: $t: FAILED (log $log)" >&2
		tail -n 30 "$log" >&2
		rc=1
	fi
	rm -rf "$corpus"
done
exit $rc
