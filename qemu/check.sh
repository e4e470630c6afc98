#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: everything, on a fresh Debian 12 machine as root.
#
#  1. install the Debian packages the harness needs (qemu/deps.sh);
#  2. fetch Debian's 6.1 and 6.12 kernels; build the debug kernel in the
#     background at nice 19, beside steps 3 to 6;
#  3. build user space (gcc, a clang build of the same tree, and the
#     ASan+UBSan umlrun for the runtime fuzzer);
#     and stage make check's LTP subset (selftests/ltp/stage.sh, which
#     builds LTP into the cache the first time);
#  4. checkpatch --strict and sparse on the module;
#  5. run the native tests (selftests/native.list: ptrace backend, runtime);
#  6. boot each kernel (KVERS, default "6.1 6.12 debug") with the module and
#     run selftests/vm.list in it (qemu/vm-test.sh), VM_JOBS (default: one
#     per host CPU) VMs at a time, the debug kernel's once it is built.
#
# Prints TAP, then one line "check: P passed, F failed, S skipped".  The
# logs of each step are in build/check/.
set -uo pipefail
QEMU_DIR=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$QEMU_DIR")
cd "$top" || exit 2
KVERS=${KVERS:-6.1 6.12 debug}
logs=$top/build/check
rm -rf "$logs"; mkdir -p "$logs"
pass=0 fail=0 skip=0 n=0
t0=$(date +%s)

# ok|not ok line for one step; its log goes to build/check/NAME.log.
step() {
	local name=$1; shift
	local s=$(date +%s)
	n=$((n + 1))
	if "$@" > "$logs/$name.log" 2>&1; then
		echo "ok $n - $name ($(( $(date +%s) - s ))s)"
		pass=$((pass + 1))
		return 0
	fi
	echo "not ok $n - $name ($(( $(date +%s) - s ))s)"
	tail -n 40 "$logs/$name.log" | sed 's/^/# /'
	fail=$((fail + 1))
	return 1
}

# Add a test log's totals, its last "# counts:" line, to ours (a VM's log
# also shows the count lines of the steps inside it).
add_counts() {
	local p f s
	read -r _ _ p f s < <(grep '^# counts: ' "$1" | tail -n 1)
	[ -n "${p:-}" ] || { fail=$((fail + 1)); return; }
	pass=$((pass + ${p#pass=})); fail=$((fail + ${f#fail=})); skip=$((skip + ${s#skip=}))
}

# Every failed subtest of the test logs, with the diagnostics it printed
# (a run's middle may be cut where only its start and end are kept): the
# lines since the last subtest began (kselftest's "# RUN", run-tests.sh's
# "# run:", the last ok), at most 30, then the "not ok", then the "#"
# lines after it (busybox.sh's script and diff), at most 45.
failures() {
	local f
	for f in "$logs"/native.log "$logs"/vm-*.log; do
		[ -f "$f" ] || continue
		awk -v name="${f##*/}" '
			function flush(i) {
				for (i = (n > 30 ? n - 30 : 0); i < n; i++)
					print "#   " buf[i % 30]
				n = 0
			}
			/^ *not ok / {
				flush(); print "# " name ": " $0; k = 45; next
			}
			/^ *ok / || /^ *# +RUN / || /^ *# run: / { n = 0; k = 0; next }
			k > 0 && /^ *#/ { print "#   " $0; k--; next }
			{ k = 0; buf[n % 30] = $0; n++ }' "$f"
	done | head -n 600
}

finish() {
	[ "$fail" -eq 0 ] || { echo "# failures, with what they printed:"; failures; }
	echo "# check: $(( $(date +%s) - t0 ))s in all"
	echo "check: $pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ] && exit 0
	exit 1
}

echo "TAP version 13"
step deps "$QEMU_DIR/deps.sh" || finish
step fetch-kernels "$QEMU_DIR/fetch-kernels.sh" 6.1 6.12 source-6.12 || finish
# The debug kernel builds in the background, at the lowest priority: it
# takes what the builds and tests below leave of the CPUs, and the debug
# VM boots once it is done (the other VMs need not wait for it).
# VM_JOBS is checked before it starts; an interrupted check takes its
# jobs along.
vm_jobs=${VM_JOBS:-$(nproc)}
case $vm_jobs in ''|*[!0-9]*|0) echo "check: bad VM_JOBS '$vm_jobs'" >&2; exit 2 ;; esac
trap 'kill $(jobs -p) 2>/dev/null' EXIT
# User-Mode Linux (issue 17, uml/build.sh) is not built here: its line of
# vm.list runs in the 6.12 VM only when the build is already cached
# (make uml or make uml-check), else it is one skip.  Were it built here,
# it would go in this background job after the debug kernel, at nice 19,
# and the 6.12 VM would wait for it; a cold build is about 10 minutes of
# CPU (326 s on two idle cores), and beside two VMs it would get little
# CPU until one ends, delaying the 6.12 VM by several minutes.
build_pid=
case " $KVERS " in *" debug "*)
	(s=$(date +%s)
	 nice -n 19 "$QEMU_DIR/debug-kernel.sh" > "$logs/debug-kernel.log" 2>&1
	 st=$?
	 echo $(( $(date +%s) - s )) > "$logs/debug-kernel.secs"
	 exit $st) &
	build_pid=$!
esac
step build-user make -j2 user || finish
step build-user-clang make -j2 clang
step build-asan make -j2 asan
step build-tsan make -j2 tsan
step ltp-stage selftests/ltp/stage.sh
step checkpatch make style
step sparse make sparse KVER=6.12
step htmldocs make htmldocs

# Native tests: their own TAP, counted per subtest.
n=$((n + 1))
selftests/run-tests.sh -n native selftests/native.list > "$logs/native.log" 2>&1
sed -n '/^\(not \)\?ok \|^[a-z-]*: [0-9]* passed/p' "$logs/native.log"
add_counts "$logs/native.log"

# The step line of the debug kernel's build, which ended with status $1,
# with the time it took.
built() {
	local secs
	secs=$(cat "$logs/debug-kernel.secs" 2>/dev/null)
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - debug-kernel (${secs:-?}s)"
		pass=$((pass + 1))
	else
		echo "not ok $n - debug-kernel (${secs:-?}s)"
		tail -n 40 "$logs/debug-kernel.log" | sed 's/^/# /'
		fail=$((fail + 1))
	fi
}

# The VMs, VM_JOBS at a time (default: one per host CPU, as a test VM
# runs both its vCPUs on one host thread); while the debug kernel builds,
# one fewer, and its VM, the longest, goes first once it is built.  Their
# results are printed in KVERS' order once all are done.  The tests' time
# limits leave room for a VM that shares the host.
KVERS=$(printf '%s\n' $KVERS | awk '!seen[$0]++' | tr '\n' ' ')
pending=" $(printf '%s\n' $KVERS | grep -x debug) $(printf '%s\n' $KVERS | grep -vx debug | tr '\n' ' ')"
running=0
while [ -n "${pending// /}" ] || [ -n "$build_pid" ]; do
	# While the debug kernel builds, it keeps one VM's CPU.
	slots=$vm_jobs
	[ -n "$build_pid" ] && [ "$slots" -gt 1 ] && slots=$((slots - 1))
	next=
	if [ "$running" -lt "$slots" ]; then
		for k in $pending; do
			[ "$k" = debug ] && [ -n "$build_pid" ] && continue
			next=$k
			break
		done
	fi
	if [ -n "$next" ]; then
		"$QEMU_DIR/vm-test.sh" "$next" > "$logs/vm-$next.log" 2>&1 &
		running=$((running + 1))
		pending=${pending/ $next / }
		continue
	fi
	wait -n -p done_pid
	st=$?
	if [ "$done_pid" = "$build_pid" ]; then
		build_pid=
		built "$st"
		# Without its kernel the debug VM does not boot: its log says so.
		[ "$st" -eq 0 ] || { pending=${pending/ debug / }
			echo "no debug kernel: debug-kernel.sh failed" > "$logs/vm-debug.log"; }
	else
		running=$((running - 1))
	fi
done
wait
for k in $KVERS; do
	grep -E '^(not )?ok |^# vm-|^vm-|^    not ok ' "$logs/vm-$k.log"
	if grep -q "^vm-$k: " "$logs/vm-$k.log"; then
		add_counts "$logs/vm-$k.log"
	else
		echo "not ok - vm-$k: harness error"; tail -n 20 "$logs/vm-$k.log" | sed 's/^/# /'
		fail=$((fail + 1))
	fi
done
finish
