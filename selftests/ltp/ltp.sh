#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make ltp: build LTP's syscalls suite once (build.sh), boot a VM (KVER,
# default 6.12) and run the suite there natively and under umlrun's ptrace
# and skas backends (run.sh), then print the table.
#
#   LTP_TESTS=  which tests (run.sh; default all), KVER=  the kernel,
#   LTP_MODES=  default "native ptrace skas", LTP_TIMEOUT=  seconds per run,
#   LTP_SAMPLE=N  every Nth selected test.
#
# The VM reads the suite from the host's / (read-only over virtio-9p, at
# /host) and writes results.txt, summary.txt and every log of run.sh's
# LTP_OUT into its /scratch, which is build/vm/KVER/scratch here, while
# the run goes: an interrupted run keeps what it did.  They are copied to
# build/ltp/KVER/.  The tests themselves run in the VM's RAM (LTP_TMP),
# not on 9p.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kver=${KVER:-6.12}
modes=${LTP_MODES:-native ptrace skas}
out=$top/build/ltp/$kver

dir=$("$here/build.sh")
rm -rf "$out"
mkdir -p "$out/logs"

case $dir in
/*[[:space:]]*) echo "ltp: the suite's path has a blank: $dir" >&2; exit 1 ;;
esac
# The plan, for the count (and to check LTP_TESTS before booting).
LTP_DIR=$dir LTP_OUT=$out/plan LTP_PLAN=1 "$here/run.sh" > "$out/plan.txt"
ntests=$(grep -c ' run ' "$out/plan.txt" || true)
[ "$ntests" -gt 0 ] || { echo "ltp: nothing to run (LTP_TESTS='${LTP_TESTS:-}')" >&2; exit 1; }
echo "ltp: $ntests tests to run from /host$dir ($kver)" >&2

# LTP_TESTS=@FILE: the VM reads the host's file through /host.
tests=${LTP_TESTS:-}
case $tests in
@*) f=${tests#@}; tests=@/host$(cd "$(dirname "$f")" && pwd)/$(basename "$f") ;;
esac
cmd="cd /skas && LTP_DIR=/host$dir LTP_OUT=/scratch/ltp LTP_TMP=/tmp/ltp"
cmd+=" LTP_MODES='$modes' LTP_TESTS='$tests' LTP_TIMEOUT='${LTP_TIMEOUT:-}'"
cmd+=" LTP_SAMPLE='${LTP_SAMPLE:-}' LTP_NAMES=1 selftests/ltp/run.sh"
# Time: a VM minute per 8 tests is generous under TCG; at least 10 minutes.
: "${VM_TIMEOUT:=$((600 + ntests * 60))}"
export VM_TIMEOUT
# Room for the tests that allocate much.
: "${VM_MEM:=3072}"
export VM_MEM
# An LTP test that makes the kernel warn must not end the whole run: the
# warning is still reported below.
export VM_APPEND="panic_on_warn=0 ${VM_APPEND:-}"
start=$(date +%s)
rc=0
DEMO_CMD=$cmd "$top/qemu/vm-test.sh" -d "$kver" > "$out/console.txt" 2>&1 || rc=$?
scratch=$top/build/vm/$kver/scratch/ltp
for f in results.txt summary.txt; do
	if [ -f "$scratch/$f" ]; then cp "$scratch/$f" "$out/"; fi
done
# The logs of the tests that pass natively but not under a backend.
if [ -f "$out/results.txt" ]; then
	awk '$2 == "native" && $3 == "pass" { p[$1] = 1 }
	     $2 != "native" && $3 != "pass" && p[$1] { print $2 "/" $1 }' "$out/results.txt" |
	while read -r f; do
		mkdir -p "$out/logs/${f%/*}"
		cp "$scratch/logs/$f.log" "$out/logs/$f.log" 2>/dev/null || true
	done
fi
# An interrupted run: the table of what it did.
if [ ! -s "$out/summary.txt" ] && [ -s "$out/results.txt" ]; then
	LTP_SUMMARY=$out/results.txt LTP_MODES=$modes LTP_NAMES=1 "$here/run.sh" > "$out/summary.txt"
	echo "ltp: the run did not finish (exit $rc): the table of its $(cut -d' ' -f1 "$out/results.txt" | sort -u | wc -l) tests"
fi
cat "$out/summary.txt"
echo "ltp: $kver, $(($(date +%s) - start)) s in the VM; results in ${out#$top/}/"
bad='WARNING:|BUG:|Oops|KASAN:|Kernel panic|soft lockup|hard LOCKUP|blocked for more than|UBSAN:'
if grep -aE "$bad" "$top/build/vm/$kver/console.log" > "$out/kernel-bad.log"; then
	echo "ltp: the kernel log has warnings (build/ltp/$kver/kernel-bad.log):"
	head -n 10 "$out/kernel-bad.log"
fi
[ -s "$out/summary.txt" ] || { echo "ltp: the VM gave no results (exit $rc, see build/vm/$kver/)" >&2; exit 1; }
