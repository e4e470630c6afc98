#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress: the long form of the stress suite on each kernel, then one
# summary (load held, faults injected, what was lost: must be nothing).
#
# Usage: selftests/stress/run.sh            (KVERS="6.1 6.12 debug" default)
# Environment: KVERS, SEED (a seed to reproduce; default: one per run,
# printed), FILTER (the vm.list lines to run, default selftests/stress;
# make fuzz: selftests/stress/seqfuzz), DURATION (seconds of the sequence
# fuzzer, default 120), VM_APPEND and VM_TIMEOUT as for qemu/vm-test.sh.
#
# The tests are the stress lines of selftests/vm.list; the kernel command
# line hands skas_stress=full and skas_stress_seed=N to init, whose
# environment the tests inherit.  The user-space tree must be built (make
# user; the make stress target does it).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
KVERS=${KVERS:-6.1 6.12 debug}
SEED=${SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}
export VM_TIMEOUT=${VM_TIMEOUT:-3600}
FILTER=${FILTER:-selftests/stress}
append="skas_stress=full skas_stress_seed=$SEED"
[ -n "${DURATION:-}" ] && append+=" skas_fuzz_secs=$DURATION"
append+=" ${VM_APPEND:-}"

echo "stress: seed $SEED (SEED=$SEED make stress reproduces), kernels: $KVERS"
failed=0
declare -A sum
for k in $KVERS; do
	VM_APPEND="$append" "$top/qemu/vm-test.sh" "$k" "$FILTER"
	rc=$?
	[ $rc -eq 0 ] || failed=$((failed + 1))
	res=$top/build/vm/$k/results.log
	while read -r key val; do
		sum[$k.$key]=$(( ${sum[$k.$key]:-0} + val ))
		sum[all.$key]=$(( ${sum[all.$key]:-0} + val ))
	done < <(sed -n 's/^ *# stress: \([a-z_]*\) \(-\{0,1\}[0-9]*\)$/\1 \2/p' "$res" 2>/dev/null)
	sum[$k.rc]=$rc
	bad=0
	[ -s "$top/build/vm/$k/kernel-bad.log" ] && bad=$(wc -l < "$top/build/vm/$k/kernel-bad.log")
	sum[$k.kernel_reports]=$bad
	sum[all.kernel_reports]=$(( ${sum[all.kernel_reports]:-0} + bad ))
done

g() { echo "${sum[$1]:-0}"; }
echo
echo "================ stress summary (seed $SEED) ================"
printf '%-34s' ''; for k in $KVERS; do printf '%12s' "$k"; done; printf '%12s\n' total
row() {
	local label=$1 key=$2 k
	printf '%-34s' "$label"
	for k in $KVERS; do printf '%12s' "$(g "$k.$key")"; done
	printf '%12s\n' "$(g "all.$key")"
}
echo "load held"
row '  guests at once (x parts)' guests_concurrent
row '    of which umlrun instances' guests_umlrun
row '    of which libuml API guests' guests_libuml
row '  guest-seconds of getpid loops' guest_seconds
row '  round trips' round_trips
row '  getpids on the fast tiers' fast_tier_getpids
row '  address spaces created' aspaces_created
row '  MiB touched by a 1 GiB guest' guest_mib_touched
row '  guest forks up to --max-procs' guest_forks_to_limit
echo "faults injected"
row '  runtime SIGKILL: in setup' runtime_kills_in_setup
row '  runtime SIGKILL: in SKAS_RUN' runtime_kills_in_run
row '  runtime SIGKILL: in SKAS_MEM' runtime_kills_in_mem
row '  runtime SIGKILL: in SKAS_CLONE' runtime_kills_in_clone
row '  runtime SIGKILL: in READ/WRITE' runtime_kills_in_rw
row '  runtime SIGKILL in a fork bomb' forkbomb_runtime_kills
row '  guest SIGKILL from outside' guest_kills
row '  rmmod refused under load' rmmod_refused
row '  insmod/rmmod cycles' module_cycles
row '  sequence fuzzer calls' fuzz_calls
echo "lost (must be 0)"
row '  leftover tasks' leftover_tasks
row '  leftover fds' leftover_fds
row '  leftover module objects' leftover_objects
row '  leftover module probes' leftover_probes
row '  slab kB over the tolerance' leftover_kmem_kb
row '  mm/task_struct objects left' leftover_kmem_objects
row '  kmemleak reports after a part' kmemleak_reports
row '  kernel log reports' kernel_reports
lost=0
for key in leftover_tasks leftover_fds leftover_objects leftover_probes \
	   leftover_kmem_kb leftover_kmem_objects kmemleak_reports kernel_reports; do
	lost=$(( lost + $(g "all.$key") ))
done
printf '%-34s' 'VM verdict (0 = pass)'; for k in $KVERS; do printf '%12s' "$(g "$k.rc")"; done; echo
if [ "$failed" -eq 0 ] && [ "$lost" -eq 0 ]; then
	echo "stress: passed on $KVERS, nothing lost"
	exit 0
fi
echo "stress: FAILED ($failed kernel(s) failed, $lost things lost); logs in build/vm/<kver>/"
exit 1
