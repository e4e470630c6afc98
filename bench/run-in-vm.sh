#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM side of `make bench`: run by qemu/init (skas_mode=bench) with
# skas.ko loaded, the tree in /skas and stdout on the results port.  Runs
# every workload on every execution path, the paths of one workload
# interleaved (the order rotates each repetition), and prints raw lines
# that bench/report.sh turns into the table:
#
#	BENCH-ENV key value...
#	BENCH workload path rep ns_per_op
#	BENCH-NA workload path reason...	(the cell cannot be measured)
#	# anything else: comments, kept in the raw log
#
# Knobs, from the kernel command line (init's environment):
#	bench_scale=F	multiply every iteration count by F (default 1)
#	bench_reps=N	repetitions (default 5)
#	bench_only=W,W	only these workloads (names as in the table)
#	bench_paths=P,P	only these paths (native ptrace skas skas+fast, and
#			skas+spin skas+fast+spin skas+yield skas+fast+yield,
#			which no default run has)
#	bench_pin=1	run everything on CPU 0 (taskset): the wall-clock
#			runs do, because a cross-vCPU wake-up under
#			multi-threaded TCG costs milliseconds of real time
#
# Benchmarks print, never assert: nothing here fails on a slow number.
tree=${bench_tree:-/skas}
cd "$tree/bench" || exit 1
# make fairness (bench/fairness.sh) is a run of its own.
[ "${bench_only:-}" = fairness ] && exec ./fairness-in-vm.sh
UMLRUN=$tree/guest-runtime/umlrun
scale=${bench_scale:-1}
reps=${bench_reps:-5}
only=${bench_only:-}
paths=${bench_paths:-native ptrace skas skas+fast}
paths=$(echo "$paths" | tr , ' ')
uopts=		# umlrun options of the workload at hand
pin=
[ "${bench_pin:-0}" = 1 ] && pin="taskset 1"
# A run that takes longer than this (virtual) time is killed and reported.
tmo=${bench_timeout:-600}

# ---- execution paths ---------------------------------------------------
# A path is a command prefix (Documentation/benchmarks.rst, "Execution
# paths"): skas is every syscall a round trip (no fast tier, no vDSO),
# skas+fast is umlrun's default, with the fast tiers the module has; the
# +spin paths add --spin (adaptive spinning at the module's maximum), the
# +yield paths --yield (yield before sleep: its gain is in the @cpu0 rows).
prefix() {
	case $1 in
	native) echo "" ;;
	ptrace) echo "$UMLRUN --backend=ptrace $uopts" ;;
	skas) echo "$UMLRUN --backend=skas --no-fast $uopts" ;;
	skas+fast) echo "$UMLRUN --backend=skas $uopts" ;;
	skas+spin) echo "$UMLRUN --backend=skas --no-fast --spin $uopts" ;;
	skas+fast+spin) echo "$UMLRUN --backend=skas --spin $uopts" ;;
	skas+yield) echo "$UMLRUN --backend=skas --no-fast --yield $uopts" ;;
	skas+fast+yield) echo "$UMLRUN --backend=skas --yield $uopts" ;;
	*) echo "false" ;;
	esac
}

# Iteration counts are chosen for QEMU TCG with -icount (about 1e8 guest
# instructions per second of real time): a whole boot stays near 3 minutes.
# Every workload has one count for native and one for guest paths (whose
# iterations cost 10-100x more where they make syscalls); the per-op figure
# does not depend on the count once the warm-up is done, and under -icount
# it is repeatable to well under 1% even for short runs.
count() {	# count N -> N * scale, at least 1
	awk -v n="$1" -v s="$scale" 'BEGIN {
		n = int(n * s); if (n < 1) n = 1; print n }'
}

wanted() {
	[ -z "$only" ] && return 0
	case ",$only," in *",$1,"*) return 0 ;; esac
	return 1
}

# Paths that cannot run at all are found once, with the reason.
na_reason() { eval "echo \"\${na_$(echo "$1" | tr -c 'a-z0-9\n' _)}\""; }
for p in $paths; do
	[ "$p" = native ] && continue
	out=$(timeout 60 $(prefix "$p") ./true 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		reason=$(printf '%s\n' "$out" | tail -n 1)
		[ -n "$reason" ] || reason="exit status $rc"
		eval "na_$(echo "$p" | tr -c 'a-z0-9\n' _)=\"\$reason\""
		echo "# path $p is not available: $reason"
	fi
done

# run1 WORKLOAD PATH REP CMD...: one measurement, one output line.
run1() {
	w=$1 p=$2 r=$3
	shift 3
	reason=$(na_reason "$p")
	if [ -n "$reason" ]; then
		[ "$r" = 1 ] && echo "BENCH-NA $w $p $reason"
		return
	fi
	if grep -q "^$w $p\$" /tmp/bench-failed 2>/dev/null; then
		return
	fi
	out=$(timeout "$tmo" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep '^# ' | sed "s/^# /# $w $p: /"
	ns=$(printf '%s\n' "$out" | sed -n 's/^ns\/op \([0-9.]*\)$/\1/p' | tail -n 1)
	if [ $rc -eq 0 ] && [ -n "$ns" ]; then
		echo "BENCH $w $p $r $ns"
		return
	fi
	reason=$(printf '%s\n' "$out" | sed -n 's/^n\/a //p' | tail -n 1)
	if [ -z "$reason" ]; then
		reason=$(printf '%s\n' "$out" | grep -v '^# ' | tail -n 1)
		[ $rc -eq 124 ] || [ $rc -eq 143 ] && reason="timed out after ${tmo}s"
		reason="failed (exit $rc): ${reason:-no output}"
	fi
	echo "BENCH-NA $w $p $reason"
	echo "$w $p" >> /tmp/bench-failed
}

# rotate N WORDS...: the words, starting at the N-th (interleaving order).
rotate() {
	k=$1
	shift
	n=$#
	i=0
	out=
	for x in "$@"; do
		out="$out $x"
	done
	set -- $out $out
	while [ $i -lt $(( (k - 1) % n )) ]; do
		shift
		i=$((i + 1))
	done
	i=0
	while [ $i -lt $n ]; do
		printf '%s ' "$1"
		shift
		i=$((i + 1))
	done
}

# skas.ko registers its tracepoint probes while any address space exists,
# and counts them here.
probes() {
	cat /sys/module/skas/parameters/probes_registered 2>/dev/null || echo none
}

# Waits up to 10 s for the module to drop its probes (the last address
# space may outlive the runtime that held it for a moment); says if not.
probes_settle() {
	t=0
	while [ "$(probes)" != 0 ] && [ "$(probes)" != none ] && [ $t -lt 100 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	echo "# $1: probes_registered=$(probes), zombies=$(ps -o stat 2>/dev/null | grep -c '^Z')"
}

# workload NAME N_NATIVE N_GUEST ARGS...: all paths, interleaved, $reps
# times.  The program is ARGS' first word; "@N" in ARGS becomes the count.
workload() {
	name=$1 nn=$2 ng=$3
	shift 3
	wanted "$name" || return 0
	echo "# workload $name: $* (N=$(count "$nn") native, $(count "$ng") guest)"
	r=1
	while [ $r -le "$reps" ]; do
		for p in $(rotate "$r" $paths); do
			if [ "$p" = native ]; then
				# Right after a skas run the module may
				# still have its probes registered for a
				# moment: native is measured without them.
				[ "$(probes)" = 0 ] || [ "$(probes)" = none ] ||
					probes_settle "$name native rep $r"
				c=$(count "$nn")
			else
				c=$(count "$ng")
			fi
			args=$(echo "$*" | sed "s/@N/$c/g")
			run1 "$name" "$p" "$r" $pin $(prefix "$p") ./$args
		done
		r=$((r + 1))
	done
}

# ---- environment -------------------------------------------------------
. ./vm-env.sh
echo "BENCH-ENV scale $scale"
echo "BENCH-ENV reps $reps"
echo "BENCH-ENV paths $paths"
echo "BENCH-ENV pinned $([ -n "$pin" ] && echo "all on CPU 0" || echo no)"
rm -f /tmp/bench-failed

# ---- workloads -------------------------------------------------------------
#        name               native guest  program and arguments
workload getpid             100000 5000   getpid @N
workload gettimeofday-vdso  100000 20000  gettimeofday vdso @N
workload gettimeofday-raw   100000 5000   gettimeofday raw @N
workload memLoopPure-64     20000  20000  memloop 64 pure @N
workload memLoop-64         20000  2000   memloop 64 getpid @N
workload memLoopPure-512    2000   2000   memloop 512 pure @N
workload memLoop-512        2000   1000   memloop 512 getpid @N
workload fork-exec-wait     200    50     forkexec @N
workload pipe-pingpong      10000  1000   pipe @N
workload signal             100000 1000   signal @N
# One run of the script is 200 processes; not scaled.
workload shell-200          1      1      shell 1
# Two threads waking each other: natively, and as a guest of every path.
workload futex-pingpong     20000  1000   futex_pingpong threads @N
# CPU-bound workers in parallel (meaningful in wall time only: icount runs
# the vCPUs in turn, natively too), never pinned: they are about using
# both CPUs, and wake nobody.  One operation: one worker's round.  About
# 0.4 s of work per worker, so that starting and reaping the workers (a
# fork and a wait, under umlrun a few hundred microseconds) is not what
# the row measures.
pinned=$pin
pin=
workload spin-1             500000 500000 spin procs 1 @N
workload spin-2procs        500000 500000 spin procs 2 @N
workload spin-2threads      500000 500000 spin threads 2 @N
# The ping-pongs again, unpinned: the two sides on two CPUs if the
# scheduler puts them there, as umlrun's runtime threads then are.
workload pipe-pingpong-2cpus  10000 1000 pipe @N
workload futex-pingpong-2cpus 20000 1000 futex_pingpong threads @N
# A build: make -j2 of libuml, a copy of the host's tree (vm-test.sh names
# it in skas_host_tree) built with the host's make and gcc, natively and as
# a guest; wall time only, like the spins.  One operation is one build.
if wanted make-j2; then
	bsrc=/tmp/bench-build
	rm -rf "$bsrc"
	mkdir -p "$bsrc"
	(cd "/host${skas_host_tree:-/nonexistent}" 2>/dev/null &&
		tar cf - VERSION $(find libuml uapi -type f \( -name '*.[chS]' \
			-o -name Makefile -o -name '*.map' \))) | tar xf - -C "$bsrc"
fi
uopts=--rw	# the guest writes the build's objects
workload make-j2            1      1      build /tmp/bench-build/libuml @N 2
uopts=
pin=$pinned

# ---- file I/O (bench/fileio.c) ----------------------------------------------
# Reads and writes of regular files: on skas+fast they run natively in the
# guest (Documentation/runtime.rst, "Native file I/O"); the same with
# --no-passthrough ("skas+fast-nopass", a table of its own, with make-j2's
# build beside them) shows what that saves.
uopts=--rw	# the guest writes its scratch files
workload file-pread         100000 5000   fileio pread @N
workload file-tree          5000   500    fileio tree @N
workload file-copy          2000   200    fileio copy @N
nopass() {	# nopass NAME COUNT ARGS...: skas+fast --no-passthrough
	name=$1 c=$(count "$2")
	shift 2
	wanted "$name" || return 0
	case " $paths " in *" skas+fast "*) ;; *) return 0 ;; esac
	args=$(echo "$*" | sed "s/@N/$c/g")
	r=1
	while [ $r -le "$reps" ]; do
		run1 "$name" skas+fast-nopass "$r" $pin \
			$(prefix skas+fast) --no-passthrough ./$args
		r=$((r + 1))
	done
}
nopass file-pread 5000 fileio pread @N
nopass file-tree 500 fileio tree @N
nopass file-copy 200 fileio copy @N
pinned=$pin
pin=
nopass make-j2 1 build /tmp/bench-build/libuml @N 2
pin=$pinned
uopts=

# ---- futex ping-pong in a libuml runtime -----------------------------------
# The same two threads as guest threads of a minimal libuml runtime that
# drives each from its own pthread (umlrun drives all from one): futex
# trapped and emulated by the runtime, or UML_POLICY_NATIVE.
if wanted futex-pingpong; then
	c=$(count 5000)
	for x in libuml-trap libuml-native; do
		r=1
		while [ $r -le "$reps" ]; do
			run1 futex-pingpong "$x" "$r" $pin ./futex_pingpong "$x" "$c"
			r=$((r + 1))
		done
	done
fi

# ---- a page fault answered with a mapping, on the raw skas ABI -------------
# UML's commonest round trip: the runtime maps the faulting page and resumes
# the guest, with SKAS_MEM then SKAS_RUN or with one SKAS_RUN_MEM; and the
# host's own fault on a fresh anonymous page, for reference.
if wanted fault-map; then
	echo "# workload fault-map: faultmap MODE @N (a fault, a map, a resume)"
	c=$(count 5000)
	r=1
	while [ $r -le "$reps" ]; do
		for x in native mem+run run-mem; do
			run1 fault-map "$x" "$r" $pin ./faultmap "$x" "$c"
		done
		r=$((r + 1))
	done
fi

# ---- getpid reference mechanisms ------------------------------------------
# The getpid round trip by other means, same boot: the raw mainline
# mechanisms and libuml's own floor; then every getpid path again with all
# its tasks pinned to CPU 0 ("@cpu0"), where each handoff is a same-CPU
# switch (the setting of the reference figures in ../shared/DESIGN.md and
# of the module's one-CPU target) instead of a cross-CPU wake-up.
reference() {	# reference NAME N CMD...
	name=$1 n=$2
	shift 2
	c=$(count "$n")
	args=$(echo "$*" | sed "s/@N/$c/g")
	r=1
	while [ $r -le "$reps" ]; do
		case $name in native*)
			[ "$(probes)" = 0 ] || [ "$(probes)" = none ] ||
				probes_settle "$name rep $r" ;;
		esac
		run1 getpid "$name" "$r" $pin $args
		r=$((r + 1))
	done
}
if wanted getpid; then
	echo "# getpid reference mechanisms"
	refs="seccomp-unotify sysemu-tracer"
	for p in $paths; do
		case $p in ptrace|skas|skas+spin|skas+yield) refs="$refs libuml-$p" ;; esac
	done
	for x in $refs; do
		case $x in
		seccomp-unotify) cmd="./seccomp_notify @N" ;;
		sysemu-tracer) cmd="./sysemu @N" ;;
		libuml-*) cmd="./libuml_getpid ${x#libuml-} @N" ;;
		esac
		reference "$x" 5000 $cmd
	done
	if [ -n "$pin" ]; then
		echo "# everything runs on CPU 0: no separate pinned figures"
	elif taskset 1 true 2>/dev/null; then
		reference native@cpu0 100000 taskset 1 ./getpid @N
		for p in $paths; do
			[ "$p" = native ] && continue
			reason=$(na_reason "$p")
			if [ -n "$reason" ]; then
				echo "BENCH-NA getpid $p@cpu0 $reason"
				continue
			fi
			reference "$p@cpu0" 5000 taskset 1 $(prefix "$p") ./getpid @N
		done
		for x in $refs; do
			case $x in
			seccomp-unotify) cmd="./seccomp_notify @N" ;;
			sysemu-tracer) cmd="./sysemu @N" ;;
			libuml-*) cmd="./libuml_getpid ${x#libuml-} @N" ;;
			esac
			reference "$x@cpu0" 5000 taskset 1 $cmd
		done
	else
		echo "# no taskset: no pinned getpid figures"
	fi
fi

# ---- host tax ---------------------------------------------------------------
# A native getpid loop while K idle guests are alive (K = 1, 16), again
# with the 16 and skas.ko's untrace_hosts opt-in on (host-tax-16-untraced),
# and once they are gone, against the same loop before any guest existed.
# Columns: "native" is the loop with no guest; a path's column is the loop
# with that path's guests alive.
untrace_param=/sys/module/skas/parameters/untrace_hosts
untraced_count=/sys/module/skas/parameters/hosts_untraced

# untraced_wait: up to 5 s for the module to have untraced the host's tasks.
untraced_wait() {
	t=0
	while [ "$(cat $untraced_count)" = 0 ] && [ $t -lt 50 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	[ "$(cat $untraced_count)" != 0 ]
}

host_tax_rows="host-tax-1 host-tax-16 host-tax-16-untraced host-tax-0-after"
idle_up() {	# idle_up PATH K: start K more idle guests (pids in $idle_pids)
	k=0
	while [ $k -lt "$2" ]; do
		$pin $(prefix "$1") ./idle > /tmp/idle.$idle_n 2>&1 &
		idle_pids="$idle_pids $!"
		idle_n=$((idle_n + 1))
		k=$((k + 1))
	done
	t=0
	while [ $t -lt 600 ]; do
		up=$(cat /tmp/idle.* 2>/dev/null | grep -c '^up$')
		[ "$up" -ge "$idle_n" ] && return 0
		for pid in $idle_pids; do
			if ! kill -0 "$pid" 2>/dev/null; then
				idle_fail=$(cat /tmp/idle.* | grep -v '^up$' | tail -n 1)
				idle_fail="idle guest died: ${idle_fail:-no output}"
				return 1
			fi
		done
		sleep 0.1
		t=$((t + 1))
	done
	idle_fail="idle guests did not come up in 60 s"
	return 1
}

idle_down() {
	for pid in $idle_pids; do
		kill -9 "$pid" 2>/dev/null
	done
	for pid in $idle_pids; do
		wait "$pid" 2>/dev/null
	done
	idle_pids=
	idle_n=0
	rm -f /tmp/idle.*
}

if wanted host-tax; then
	echo "# workload host-tax: getpid loop beside 0, 1, 16 idle guests"
	n=$(count 100000)
	r=1
	while [ $r -le "$reps" ]; do
		for p in $(rotate "$r" $paths); do
			if [ "$p" = native ]; then
				probes_settle "host-tax native rep $r"
				for w in $host_tax_rows; do
					run1 "$w" native "$r" $pin ./getpid "$n"
				done
				continue
			fi
			reason=$(na_reason "$p")
			if [ -n "$reason" ]; then
				for w in $host_tax_rows; do
					run1 "$w" "$p" "$r" true
				done
				continue
			fi
			idle_pids= idle_fail= idle_n=0
			probes_settle "host-tax $p rep $r, before"
			if idle_up "$p" 1; then
				echo "# host-tax-1 $p rep $r: probes_registered=$(probes)"
				run1 host-tax-1 "$p" "$r" $pin ./getpid "$n"
				if idle_up "$p" 15; then
					echo "# host-tax-16 $p rep $r: probes_registered=$(probes)"
					run1 host-tax-16 "$p" "$r" $pin ./getpid "$n"
					case $p in
					skas*)
						echo 1 > $untrace_param
						if untraced_wait; then
							echo "# host-tax-16-untraced $p rep $r: hosts_untraced=$(cat $untraced_count)"
							run1 host-tax-16-untraced "$p" "$r" $pin ./getpid "$n"
						else
							echo "BENCH-NA host-tax-16-untraced $p the module did not untrace the host's tasks in 5 s"
						fi
						echo 0 > $untrace_param
						;;
					*)
						echo "BENCH-NA host-tax-16-untraced $p untrace_hosts is skas.ko's"
						;;
					esac
				else
					echo "BENCH-NA host-tax-16 $p $idle_fail"
					echo "BENCH-NA host-tax-16-untraced $p $idle_fail"
				fi
			else
				echo "BENCH-NA host-tax-1 $p $idle_fail"
				echo "BENCH-NA host-tax-16 $p $idle_fail"
				echo "BENCH-NA host-tax-16-untraced $p $idle_fail"
			fi
			idle_down
			probes_settle "host-tax-0-after $p rep $r"
			run1 host-tax-0-after "$p" "$r" $pin ./getpid "$n"
		done
		r=$((r + 1))
	done
fi
echo "# bench done"
