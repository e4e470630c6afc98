#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM side of `make uml-bench`: the workloads of `make bench` (its
# static programs, bench/) natively and inside User-Mode Linux in each of
# its modes, plus UML's boot to a shell.  Run in the 6.12 VM (skas.ko
# loaded) by uml/vm-bench.sh; prints the raw lines of bench/run-in-vm.sh,
# which bench/report.sh turns into the table:
#
#	BENCH-ENV key value...
#	BENCH workload path rep ns_per_op
#	BENCH-NA workload path reason
#
# The paths: native, and uml-MODE for UML in each mode (uml/run.sh), with
# skas mode also without its yield (skas_yield=0) and with a spin.
# Environment: UML (the binary, as for uml/run.sh), BENCH_REPS (3),
# BENCH_PATHS (the uml-* paths to run; all by default),
# BENCH_PIN=1: everything on CPU 0 (the wall-clock runs: a wake-up across
# vCPUs under multi-threaded TCG costs milliseconds of real time, as in
# bench/run-in-vm.sh).
# Benchmarks print, never assert: nothing here fails on a slow number.
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
reps=${BENCH_REPS:-3}
pin=
[ "${BENCH_PIN:-0}" = 1 ] && pin="taskset 1"
# path, uml/run.sh's mode, more UML parameters
modes='uml-ptrace ptrace
uml-seccomp seccomp
uml-skas skas
uml-skas-noyield skas skas_yield=0
uml-skas-spin skas skas_spin=100000'
# BENCH_PATHS: only these (uml-skas uml-ptrace...), for an A/B run
if [ -n "${BENCH_PATHS:-}" ]; then
	modes=$(echo "$modes" | while read -r p rest; do
		case " $BENCH_PATHS " in *" $p "*) echo "$p $rest" ;; esac
	done)
fi
raw=${TMPDIR:-/tmp}/uml-bench.raw
# shellcheck source=bench/vm-env.sh
(cd bench && . ./vm-env.sh) > "$raw"
{
	echo "BENCH-ENV scale 1"
	echo "BENCH-ENV reps $reps"
	echo "BENCH-ENV paths native $(echo "$modes" | cut -d " " -f 1 | tr '\n' ' ')"
	echo "BENCH-ENV pinned $([ -n "$pin" ] && echo "all on CPU 0" || echo no)"
	echo "BENCH-ENV note1 boot-to-shell: UML's uptime when its init's shell starts, in each mode (no native)."
} >> "$raw"

# name native-count guest-count program arguments ("@N": the count)
workloads='getpid 100000 2000 getpid @N
memLoop-64 20000 1000 memloop 64 getpid @N
fork-exec-wait 200 100 forkexec @N
pipe-pingpong 10000 500 pipe @N
signal 100000 500 signal @N
shell-200 1 1 shell 1 /extra/shell.sh /bin/busybox'

extra=$(mktemp -d "${TMPDIR:-/tmp}/uml-bench.XXXXXX") || exit 2
[ -n "${UML_BENCH_KEEP:-}" ] || trap 'rm -rf "$extra"' EXIT
for p in getpid memloop forkexec pipe signal shell true; do
	cp "$top/bench/$p" "$extra/" || { echo "uml-bench: build bench/ first (make user)" >&2; exit 2; }
done
cp "$top/bench/shell.sh" "$extra/"

# native: the same programs, in this VM
r=1
while [ "$r" -le "$reps" ]; do
	echo "$workloads" | while read -r name nn ng prog args; do
		a=$(echo "$args" | sed "s/@N/$nn/g; s|/extra/|$extra/|g")
		# shellcheck disable=SC2086	# $a: the arguments, split
		ns=$($pin "$extra/$prog" $a 2>&1 | sed -n 's/^ns\/op \([0-9.]*\)$/\1/p')
		echo "BENCH $name native $r ${ns:-NA}"
	done >> "$raw"
	r=$((r + 1))
done

# The guest's script: every workload $reps times, then nothing else.
script=$extra/guest.sh
{
	echo 'cd /extra'
	echo "r=1; while [ \$r -le $reps ]; do"
	echo "$workloads" | while read -r name nn ng prog args; do
		a=$(echo "$args" | sed "s/@N/$ng/g")
		printf '%s\n' "  ns=\$(./$prog $a 2>&1 | sed -n 's/^ns\\/op \\([0-9.]*\\)\$/\\1/p')"
		echo "  echo \"BENCH $name MODE \$r \${ns:-NA}\""
	done
	# shellcheck disable=SC2016	# the guest's script expands it
	echo '  r=$((r + 1))'
	echo 'done'
} > "$script"
# Boot to a shell: UML's own uptime when its init's shell runs the
# script (UML's clock starts with its kernel; the host-side set-up of the
# root, and run.sh's polling, are not in it).
echo 'cut -d " " -f 1 /proc/uptime' > "$extra/boot.sh"

echo "$modes" | while read -r path mode append; do
	r=1
	while [ "$r" -le "$reps" ]; do
		if up=$(UML_EXTRA=$extra UML_APPEND=$append $pin uml/run.sh "$mode" "$extra/boot.sh" 2> "$extra/err" < /dev/null); then
			echo "BENCH boot-to-shell $path $r $(awk -v s="$up" 'BEGIN { printf "%.0f", s * 1e9 }')"
		else
			echo "BENCH-NA boot-to-shell $path UML did not boot: $(tail -n 1 "$extra/err")"
		fi
		r=$((r + 1))
	done
	sed "s/ MODE / $path /" "$script" > "$extra/guest-$path.sh"
	UML_EXTRA=$extra UML_APPEND=$append UML_TIMEOUT=1200 $pin uml/run.sh "$mode" "$extra/guest-$path.sh" > "$extra/out-$path" 2>&1 < /dev/null ||
		echo "BENCH-NA all $path uml/run.sh failed: $(tail -n 1 "$extra/out-$path")"
	grep '^BENCH ' "$extra/out-$path"
done >> "$raw"
cat "$raw"
