#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make uml-bench: one boot of the 6.12 VM (skas.ko loaded) that runs
# uml/bench.sh, UML's three modes against native, with instruction-count
# time (CLOCK=icount, the default: repeatable) or wall-clock time
# (CLOCK=wall).  The report goes to results/uml-bench-CLOCK-DATE.md, made
# by bench/report.sh from the raw lines beside it (.raw).
#
# Environment: CLOCK, BENCH_REPS (3), BENCH_PATHS (uml/bench.sh's paths
# to run, all by default), VM_TIMEOUT (seconds, 2400).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
clock=${CLOCK:-icount}
case $clock in
icount) icount=1 pin=0 ;;
wall) icount=0 pin=1 ;;
*) echo "uml-bench: CLOCK must be icount or wall" >&2; exit 2 ;;
esac
case $top in *[[:space:]]*) echo "uml-bench: the tree's path has a space" >&2; exit 2 ;; esac
uml=$("$top/uml/build.sh" --cached) || { echo "uml-bench: no UML build: make uml" >&2; exit 1; }
scratch=$top/build/vm/6.12/scratch
cmd="cd /host$top && UML=/host$uml BENCH_REPS=${BENCH_REPS:-3} BENCH_PIN=$pin TMPDIR=/tmp"
cmd+=" BENCH_PATHS='${BENCH_PATHS:-}'"
cmd+=" sh uml/bench.sh > /scratch/uml-bench.txt 2>&1"
# tsc=reliable as bench/vm-bench.sh: both kernels time with the TSC.
# no5lvl: one icount boot of 6.12 took a double fault in its first 3 s at
# a 5-level direct-map address, the LA57 window qemu/vm-test.sh describes
# for the debug kernel.
VM_ICOUNT=$icount VM_APPEND="tsc=reliable no5lvl" VM_TIMEOUT=${VM_TIMEOUT:-2400} DEMO_CMD=$cmd \
	"$top/qemu/vm-test.sh" -d 6.12 > "$top/build/uml-bench-vm.log" 2>&1
grep -q '^BENCH ' "$scratch/uml-bench.txt" 2>/dev/null || {
	echo "uml-bench: the VM measured nothing (build/uml-bench-vm.log):" >&2
	tail -n 5 "$scratch/uml-bench.txt" >&2; exit 1; }
mkdir -p "$top/results"
base=$top/results/uml-bench-$clock-$(date +%Y%m%d-%H%M%S)
rep=$base.md
cp "$scratch/uml-bench.txt" "$base.raw"
{
	echo "# make uml-bench, CLOCK=$clock, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "Host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs; $(qemu-system-x86_64 --version | head -n 1)."
	echo "VM: Debian $(cat "${SKAS_CACHE:-$HOME/.cache/skas}/kernels/6.12/version"), UML $(cat "$(dirname "$uml")/version")."
	echo
	"$top/bench/report.sh" -t "UML in each mode, 6.12, $clock" "$base.raw"
} > "$rep"
cat "$rep"
echo "uml-bench: report in ${rep#"$top"/} (raw lines beside it)"
