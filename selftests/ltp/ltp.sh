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
# The selected tests' binaries, with the helper programs next to them in
# LTP's source tree, go into the VM as /extra ; the VM prints its
# results on the results port and they land in build/ltp/KVER/: results.txt
# (run.sh's format), summary.txt (the table) and logs/MODE/NAME.log for each
# test that passes natively but not under a backend.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kver=${KVER:-6.12}
modes=${LTP_MODES:-native ptrace skas}
out=$top/build/ltp/$kver

dir=$("$here/build.sh")
rm -rf "$out"
mkdir -p "$out/logs"

# The plan: which binaries the selection needs.
stage=$out/extra
mkdir -p "$stage/testcases/bin" "$stage/runtest"
cp "$dir/runtest/syscalls" "$stage/runtest/"
LTP_DIR=$dir LTP_OUT=$out/plan LTP_PLAN=1 "$here/run.sh" > "$out/plan.txt"
ntests=$(grep -c ' run ' "$out/plan.txt" || true)
[ "$ntests" -gt 0 ] || { echo "ltp: nothing to run (LTP_TESTS='${LTP_TESTS:-}')" >&2; exit 1; }
awk '$2 == "run" { print $3 }' "$out/plan.txt" | sort -u |
	# The program and its helpers: the programs of its source folder
	# that are no test of their own (creat07_child, execve_child...).
	awk 'FILENAME == "-" { want[$1] = 1; next }
	     FILENAME ~ /syscalls$/ { if ($0 !~ /^[ \t]*(#|$)/) test[$2] = 1; next }
	     { dir[$2] = $1; if (!($2 in test)) helpers[$1] = helpers[$1] " " $2 }
	     END { for (p in want) print p helpers[dir[p]] }' \
	    - "$dir/runtest/syscalls" "$dir/programs.txt" |
	tr ' ' '\n' | sort -u | while read -r b; do
	if [ -f "$dir/testcases/bin/$b" ]; then cp "$dir/testcases/bin/$b" "$stage/testcases/bin/"; fi
done
echo "ltp: $ntests tests, $(du -sh "$stage" | cut -f1) of binaries into the VM ($kver)" >&2

# In the VM: the suite from /extra, results and the interesting logs on the
# results port (/dev/ttyS1), each line tagged.
cmd="cd /skas && LTP_DIR=/extra LTP_OUT=/tmp/ltp LTP_MODES='$modes'"
cmd+=" LTP_TESTS='${LTP_TESTS:-}' LTP_TIMEOUT='${LTP_TIMEOUT:-}' LTP_SAMPLE='${LTP_SAMPLE:-}' LTP_NAMES=1"
cmd+=" selftests/ltp/run.sh; rc=\$?"
cmd+="; sed 's/^/LTP-RESULT /' /tmp/ltp/results.txt > /dev/ttyS1"
cmd+="; sed 's/^/LTP-SUMMARY /' /tmp/ltp/summary.txt > /dev/ttyS1"
cmd+="; for f in \$(awk '\$2 == \"native\" && \$3 == \"pass\" { p[\$1] = 1 }"
cmd+=" \$2 != \"native\" && \$3 != \"pass\" && p[\$1] { print \$2 \"/\" \$1 }' /tmp/ltp/results.txt)"
cmd+="; do sed \"s|^|LTP-LOG \$f |\" /tmp/ltp/logs/\$f.log > /dev/ttyS1; done; exit \$rc"
# Time: a VM minute per 8 tests is generous under TCG; at least 10 minutes.
: "${VM_TIMEOUT:=$((600 + ntests * 60))}"
export VM_TIMEOUT
# The staged binaries are unpacked into the VM's RAM.
: "${VM_MEM:=3072}"
export VM_MEM
# An LTP test that makes the kernel warn must not end the whole run: the
# warning is still reported below.
export VM_APPEND="panic_on_warn=0 ${VM_APPEND:-}"
start=$(date +%s)
rc=0
DEMO_CMD=$cmd EXTRA=$stage "$top/qemu/vm-test.sh" -d "$kver" > "$out/console.txt" 2>&1 || rc=$?
res=$top/build/vm/$kver/results.log
sed -n 's/^LTP-RESULT //p' "$res" > "$out/results.txt"
sed -n 's/^LTP-SUMMARY //p' "$res" > "$out/summary.txt"
sed -n 's/^LTP-LOG //p' "$res" | while read -r f line; do
	mkdir -p "$out/logs/$(dirname "$f")"
	printf '%s\n' "$line" >> "$out/logs/$f.log"
done
cat "$out/summary.txt"
echo "ltp: $kver, $(($(date +%s) - start)) s in the VM; results in ${out#$top/}/"
bad='WARNING:|BUG:|Oops|KASAN:|Kernel panic|soft lockup|hard LOCKUP|blocked for more than|UBSAN:'
if grep -aE "$bad" "$top/build/vm/$kver/console.log" > "$out/kernel-bad.log"; then
	echo "ltp: the kernel log has warnings (build/ltp/$kver/kernel-bad.log):"
	head -n 10 "$out/kernel-bad.log"
fi
[ -s "$out/summary.txt" ] || { echo "ltp: the VM gave no results (exit $rc, see build/vm/$kver/)" >&2; exit 1; }
