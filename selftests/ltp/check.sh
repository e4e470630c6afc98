#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check's LTP regression subset (check.list: tests that pass natively
# and under both backends), from selftests/ltp/suite (stage.sh puts them
# there before the VMs boot): each test under umlrun --backend=ptrace and,
# where /dev/skas works, --backend=skas.  One TAP line per test and
# backend; exits 0 when all pass, 4 (skip) when the suite is not staged.
here=$(cd "$(dirname "$0")" && pwd)
suite=$here/suite
echo "TAP version 13"
if [ ! -f "$suite/runtest/syscalls" ]; then
	echo "ok 1 - ltp check.list # SKIP not staged (selftests/ltp/stage.sh)"
	exit 4
fi
modes=ptrace
[ -c /dev/skas ] && modes="ptrace skas"
out=${TMPDIR:-/tmp}/ltp-check.$$
LTP_DIR=$suite LTP_OUT=$out LTP_MODES=$modes LTP_TESTS=@"$here/check.list" \
	LTP_TIMEOUT=${LTP_TIMEOUT:-60} "$here/run.sh" > "$out.summary" 2> "$out.progress"
rc=$?
sed 's/^/# /' "$out.summary"
n=0 pass=0 fail=0
if [ "$rc" -ne 0 ] || [ ! -s "$out/results.txt" ]; then
	echo "not ok 1 - ltp: the runner failed (exit $rc)"
	sed 's/^/# /' "$out.progress" | tail -n 20
	exit 1
fi
while read -r name mode verdict detail ms; do
	n=$((n + 1))
	if [ "$verdict" = pass ]; then
		echo "ok $n - ltp $name $mode (${ms} ms)"
		pass=$((pass + 1))
	else
		echo "not ok $n - ltp $name $mode: $verdict $detail"
		sed 's/^/#   /' "$out/logs/$mode/$name.log" | tail -n 15
		fail=$((fail + 1))
	fi
done < "$out/results.txt"
echo "1..$n"
rm -rf "$out" "$out.summary" "$out.progress"
[ "$fail" -eq 0 ]
