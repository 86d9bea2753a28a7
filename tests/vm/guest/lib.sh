# SPDX-License-Identifier: BSD-2-Clause
# Helpers for the ATM VM lab's scenario scripts (sourced; busybox sh).
# Debian's busybox sh runs its own applet for a bare command name even when a
# host program of that name is in /bin (FEATURE_SH_STANDALONE): call the host
# programs that share a name with an applet (ip, ping) by path, /bin/ip.

# vm_pass NAME / vm_fail NAME WHY: one check's verdict on the console.
vm_pass() { echo "VMTEST: PASS $1"; }
vm_fail() { echo "VMTEST: FAIL $1: $2"; VM_FAILED=1; }
# vm_fact KEY VALUE: an observation the README's findings quote.
vm_fact() { echo "VMFACT: $1=$2"; }

# vm_check NAME CMD...: PASS if CMD succeeds, else FAIL with its last output line.
vm_check() {
	_n=$1
	shift
	if _out=$("$@" 2>&1); then
		vm_pass "$_n"
	else
		vm_fail "$_n" "$(echo "$_out" | tail -n 1)"
	fi
	echo "$_out" | sed "s/^/  [$_n] /"
}

# vm_expect NAME FILE REGEX: PASS if FILE has a line matching REGEX (grep -E).
vm_expect() {
	if grep -qE "$3" "$2"; then
		vm_pass "$1"
	else
		vm_fail "$1" "no line matching '$3' in $(basename "$2")"
	fi
}

# vm_wait SECS CMD...: retry CMD every 0.1 s for up to SECS; its status.
vm_wait() {
	_t=$(($1 * 10))
	shift
	while [ $_t -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		_t=$((_t - 1))
	done
	return 1
}

# vm_keep FILE...: copy files to the host (the 9p share), if there is one.
vm_keep() { grep -q ' /share ' /proc/mounts && cp "$@" /share/ 2>/dev/null; true; }
