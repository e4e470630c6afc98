#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One benchmark boot: qemu/vm-test.sh in bench mode (skas.ko loaded,
# bench/run-in-vm.sh as the workload), with instruction-count time or
# wall-clock time, and the raw result lines copied out.
#
# Usage: vm-bench.sh KVER icount|wall RAWLOG
#
# Environment: BENCH_REPS, BENCH_SCALE, BENCH_ONLY, BENCH_PATHS (see
# bench/run-in-vm.sh), BENCH_VM_TIMEOUT (seconds, default 1500).
# The VM's own logs stay in build/vm/KVER-bench/.  Exit status: 0 when the
# benchmarks ran to their end, whatever the numbers; 1 when the VM did not
# get there (the log says why).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:?usage: vm-bench.sh KVER icount|wall RAWLOG}
clock=${2:?usage: vm-bench.sh KVER icount|wall RAWLOG}
raw=${3:?usage: vm-bench.sh KVER icount|wall RAWLOG}

# tsc=reliable: Debian's 6.1 otherwise finds QEMU's TSCs "unsynchronized"
# and falls back to the HPET, where clock_gettime cannot use the vDSO;
# with it both kernels time with the TSC.  Under -icount, Debian's 6.1
# hangs bringing up its second CPU at boot (6.12 does not): boot with
# maxcpus=1 and let bench/run-in-vm.sh bring it online.  Wall-clock runs
# keep everything on CPU 0 (see bench_pin in bench/run-in-vm.sh).
append="tsc=reliable bench_reps=${BENCH_REPS:-5} bench_scale=${BENCH_SCALE:-1}"
case $clock in
icount) icount=1 append+=" maxcpus=1" ;;
wall) icount=0 append+=" bench_pin=1" ;;
*) echo "vm-bench: clock must be icount or wall" >&2; exit 2 ;;
esac
[ -n "${BENCH_ONLY:-}" ] && append+=" bench_only=$BENCH_ONLY"
[ -n "${BENCH_PATHS:-}" ] && append+=" bench_paths=$BENCH_PATHS"

log=$top/build/vm/$kver-bench
start=$(date +%s)
VM_ICOUNT=$icount VM_APPEND=$append VM_TIMEOUT=${BENCH_VM_TIMEOUT:-1500} \
	"$top/qemu/vm-test.sh" -b "$kver" > "$raw.vm" 2>&1
vrc=$?
secs=$(( $(date +%s) - start ))
res=$log/results.log
mkdir -p "$(dirname "$raw")"
{
	echo "BENCH-ENV clock $clock"
	echo "BENCH-ENV boot-seconds $secs"
	[ -f "$res" ] && sed -n '/^---- dmesg ----$/,/^---- end dmesg ----$/!p' "$res" | tr -d '\r'
} > "$raw"
# The harness's verdict (kernel log clean, init finished) goes beside it.
grep -E '^(not )?ok |^vm-' "$raw.vm" >&2 || true
if grep -q '^not ok - vm-.*kernel log is clean' "$raw.vm"; then
	bad=$(sed -n 's/^# //p' "$raw.vm" | grep -m 1 -aE 'WARNING:|BUG:|Oops|general protection|KASAN|lockdep|refcount|panic|lockup|blocked for' || true)
	echo "BENCH-ENV note-kernel-log **The kernel log of this boot is not clean** (first report: \`${bad:-see kernel-bad.log}\`); numbers of the path that ran into it may be missing." >> "$raw"
fi
if ! grep -q '^# bench done' "$raw"; then
	echo "vm-bench: $kver/$clock did not run to its end (vm-test.sh exit $vrc, ${secs}s); see ${log#$top/}/" >&2
	exit 1
fi
[ $vrc -eq 0 ] || echo "vm-bench: $kver/$clock: the harness reported a problem (exit $vrc), see ${log#$top/}/" >&2
exit 0
