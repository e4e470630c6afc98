#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The VM sees the host's Debian: the host's / read-only at /host, a
# writable /scratch, the host's /usr on /usr (qemu/init.c), and umlrun runs
# the host's python3 on them: as `umlrun --root=/host` (the whole Debian
# root, as `make demo CMD=...` does) and at /usr's paths with the VM's root.
# VM only (selftests/vm.list): outside a VM of the harness it skips.
#
# Usage: selftests/runtime/hostroot.sh [ptrace|skas]...  (default: both)
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
UMLRUN=${UMLRUN:-$TOP/guest-runtime/umlrun}
[ $# -gt 0 ] || set -- ptrace skas
echo "TAP version 13"
# The VM's copy of the tree is /skas (vm-test.sh); there, a missing /host
# is a failure.
if [ "$TOP" != /skas ]; then
	echo "1..0 # SKIP not in the harness's VM"
	exit 4
fi
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
check() {	# check NAME COMMAND...: COMMAND succeeds
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

check "/host is the host's / over 9p, read-only" \
	sh -c 'grep -q "^host /host 9p ro[,]" /proc/mounts && [ -x /host/usr/bin/env ] &&
	       ! touch /host/.skas-ro-check 2>/dev/null'
f=/scratch/hostroot.$$
check "/scratch is writable: a file written, read back, removed" \
	sh -c "grep -q '^scratch /scratch 9p rw[,]' /proc/mounts && echo hello > $f &&
	       [ \"\$(cat $f)\" = hello ] && rm $f && [ ! -e $f ]"
check "/usr is the host's /usr" sh -c 'i=$(stat -c %i /usr/bin/env) && [ -n "$i" ] &&
	[ "$i" = "$(stat -c %i /host/usr/bin/env)" ]'

# The line of issue 13's "Done when", natively and under umlrun.
py='import json, socket, subprocess; print(subprocess.run(["ls", "/"], capture_output=True).returncode)'
if [ ! -x /host/usr/bin/python3 ]; then
	echo "ok $((n + 1)) - python3 # SKIP no /host/usr/bin/python3"
	n=$((n + 1))
else
	got=$(/usr/bin/python3 -c "$py" 2>&1)
	check "python3 runs natively in the VM: $got" [ "$got" = 0 ]
	for b; do
		for root in /host /; do
			got=$(timeout 120 "$UMLRUN" --backend="$b" --root="$root" \
				/usr/bin/python3 -c "$py" 2>&1)
			check "umlrun --backend=$b --root=$root python3 -c '$py': $got" [ "$got" = 0 ]
		done
	done
fi
echo "1..$n"
[ $fail -eq 0 ]
