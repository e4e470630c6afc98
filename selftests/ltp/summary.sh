#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh's summary (LTP_SUMMARY=FILE) of a made-up results.txt and known
# list: the tests that pass natively but not under a backend split into
# known (a count, names with LTP_NAMES=1) and unexpected (by name), the
# known ones that pass now, and the same without a native run.  TAP.
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/ltp-summary.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cat > "$dir/results.txt" <<'EOF'
a01 native pass - 5
a01 ptrace pass - 7
b01 native pass - 5
b01 ptrace fail exit-1 7
b02 native pass - 5
b02 ptrace fail signal-9 7
c01 native pass - 5
c01 ptrace conf - 7
d01 native pass - 5
d01 ptrace timeout - 20000
d02 native pass - 5
d02 ptrace fail exit-1 7
e01 native fail exit-1 5
e01 ptrace fail exit-1 7
f01 native pass - 5
f01 ptrace pass - 7
g01 native excluded - 0 # acts on the host
g01 ptrace excluded - 0 # acts on the host
h01 native missing - 0
h01 ptrace missing - 0
EOF
printf '# a cause\nb0[0-9]\tENOSYS\n  # another\nc01\tno semantic\n\n' > "$dir/known"
printf 'f01\tfixed since\ne01\tfails natively too\nb0\tno partial match\n' >> "$dir/known"

n=0 fail=0
check() {	# NAME EXPECTED-FILE, then the environment for run.sh
	name=$1 exp=$2
	shift 2
	n=$((n + 1))
	: > "$dir/diff"
	if env LTP_DIR=/nonexistent LTP_KNOWN="$dir/known" LTP_SUMMARY="$dir/results.txt" "$@" \
	    sh "$here/run.sh" > "$dir/out" 2>&1 && diff -u "$exp" "$dir/out" > "$dir/diff"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' "$dir/out" "$dir/diff"
		fail=$((fail + 1))
	fi
}

echo "TAP version 13"
cat > "$dir/exp1" <<'EOF'
ltp: 10 tests, 1 excluded, 1 not built, 8 run
mode       pass   conf   fail (timeout)
native        7      0      1        0
ptrace        2      1      5        1
passes natively, not under ptrace (5): 3 known, 2 unexpected: d01 (timeout) d02 (fail)
known, but passes under ptrace (1): f01
EOF
check "native baseline: known counted, unexpected named" "$dir/exp1"
{
	sed -n 1,5p "$dir/exp1"
	echo "known under ptrace (3): b01 (fail) b02 (fail) c01 (conf)"
	echo "known, but passes under ptrace (1): f01"
} > "$dir/exp2"
check "LTP_NAMES=1 names the known ones" "$dir/exp2" LTP_NAMES=1
cat > "$dir/exp3" <<'EOF'
ltp: 10 tests, 1 excluded, 1 not built, 8 run
mode       pass   conf   fail (timeout)
ptrace        2      1      5        1
fails under ptrace (5, no native baseline): 3 known, 2 unexpected: d01 (timeout) d02 (fail)
known, but passes under ptrace (1): f01
EOF
check "no native baseline" "$dir/exp3" LTP_MODES=ptrace
{
	sed -n 1,4p "$dir/exp1"
	echo "passes natively, not under ptrace (5): 0 known, 5 unexpected: b01 (fail) b02 (fail) c01 (conf) d01 (timeout) d02 (fail)"
} > "$dir/exp4"
: > "$dir/known"
check "an empty known list" "$dir/exp4"
echo "1..$n"
[ "$fail" -eq 0 ]
