#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM side of `make uml-bench`: the workloads of `make bench` (its
# static programs, bench/) natively and inside User-Mode Linux in each of
# its modes (ptrace, seccomp, skas), plus UML's boot to a shell, and the
# table of ratios to native.  Run in the 6.12 VM (skas.ko loaded) by
# uml/vm-bench.sh; prints raw lines, then the table:
#
#	BENCH workload path rep ns_per_op
#	BENCH-NA workload path reason
#
# Environment: UML (the binary, as for uml/run.sh), BENCH_REPS (3),
# BENCH_PIN=1: everything on CPU 0 (the wall-clock runs: a wake-up across
# vCPUs under multi-threaded TCG costs milliseconds of real time, as in
# bench/run-in-vm.sh).
# Benchmarks print, never assert: nothing here fails on a slow number.
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
reps=${BENCH_REPS:-3}
pin=
[ "${BENCH_PIN:-0}" = 1 ] && pin="taskset 1"
modes="ptrace seccomp skas"
raw=${TMPDIR:-/tmp}/uml-bench.raw
: > "$raw"

# name native-count guest-count program arguments ("@N": the count)
workloads='getpid 100000 2000 getpid @N
memLoop-64 20000 1000 memloop 64 getpid @N
fork-exec-wait 200 20 forkexec @N
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

for mode in $modes; do
	r=1
	while [ "$r" -le "$reps" ]; do
		if up=$(UML_EXTRA=$extra $pin uml/run.sh "$mode" "$extra/boot.sh" 2> /dev/null); then
			echo "BENCH boot-to-shell $mode $r $(awk -v s="$up" 'BEGIN { printf "%.0f", s * 1e9 }')" >> "$raw"
		else
			echo "BENCH-NA boot-to-shell $mode UML did not boot" >> "$raw"
		fi
		r=$((r + 1))
	done
	sed "s/ MODE / $mode /" "$script" > "$extra/guest-$mode.sh"
	UML_EXTRA=$extra UML_TIMEOUT=1200 $pin uml/run.sh "$mode" "$extra/guest-$mode.sh" > "$extra/out-$mode" 2>&1 ||
		echo "BENCH-NA all $mode uml/run.sh failed: $(tail -n 1 "$extra/out-$mode")" >> "$raw"
	grep '^BENCH ' "$extra/out-$mode" >> "$raw"
done
# boot-to-shell's native: 1 (the table shows seconds for that row)
cat "$raw"

# The table: per workload, native's median ns/op and each mode's median
# as a multiple of it (boot-to-shell: seconds).
awk -v modes="$modes" '
	$1 == "BENCH" && $5 != "NA" { v[$2 " " $3] = v[$2 " " $3] " " $5; if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 } }
	function median(s,   a, k, i, j, t) {
		k = split(s, a, " ")
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		if (k == 0) return ""
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	END {
		m = split(modes, md, " ")
		printf "%-16s %12s", "workload", "native ns/op"
		for (i = 1; i <= m; i++) printf " %10s", md[i]
		printf "\n"
		for (w = 0; w < n; w++) {
			name = order[w]
			nat = median(v[name " native"])
			if (name == "boot-to-shell") printf "%-16s %12s", name, "(seconds)"
			else printf "%-16s %12.1f", name, nat
			for (i = 1; i <= m; i++) {
				x = median(v[name " " md[i]])
				if (x == "") printf " %10s", "n/a"
				else if (name == "boot-to-shell") printf " %9.2fs", x / 1e9
				else printf " %9.2fx", x / nat
			}
			printf "\n"
		}
	}' "$raw"
