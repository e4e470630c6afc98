#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The VM side of `make fairness` (bench/fairness.sh): run by
# bench/run-in-vm.sh when bench_only=fairness, skas.ko loaded.  Prints raw
# lines that bench/fairness.sh turns into the table:
#
#	BENCH-ENV key value...
#	FAIR-LAT who load rep p50 p90 max mean	(ns; who: guest|native,
#					 load: idle|busy|busy-nofast)
#	FAIR-SHARE N path rep guest ops N late S	(getpid calls in the
#		window, S seconds late; path: skas|skas-nofast|native)
#	FAIR-NA what reason...
#
# Interference: guest B is umlrun (skas backend) running "fairness echo",
# a pipe echo between two guest processes, one round trip every
# $gap microseconds; the native process is the same program run natively.
# Each is measured idle, then while guest A (umlrun, skas backend, a
# getpid loop for ever) runs, once with umlrun's default fast tiers and
# once with --no-fast; the order of B and native alternates per rep.
#
# Shares: N guests (umlrun, skas; with its default fast tiers, and with
# --no-fast) start a getpid loop at the same CLOCK_MONOTONIC instant and
# stop at the same instant; each reports how many getpid calls it made.
# The same with N native processes.
#
# Knobs (kernel command line): bench_reps (default 3), bench_pin=1 (the
# wall-clock boots: everything on CPU 0, as for make bench), fair_n (round
# trips per measurement, default 200), fair_gap (us, default 2000),
# fair_secs (share window, default 2; bench/fairness.sh assumes 2),
# fair_ns (default "4 16").
tree=${bench_tree:-/skas}
cd "$tree/bench" || exit 1
pin=
[ "${bench_pin:-0}" = 1 ] && pin="taskset 1"
UMLRUN="$pin $tree/guest-runtime/umlrun --backend=skas"
NATIVE="$pin ./fairness"
reps=${bench_reps:-3}
n=${fair_n:-200}
gap=${fair_gap:-2000}
secs=${fair_secs:-2}
ns=${fair_ns:-4 16}

. ./vm-env.sh
echo "BENCH-ENV reps $reps"
echo "BENCH-ENV pinned $([ -n "$pin" ] && echo "all on CPU 0" || echo no)"
echo "BENCH-ENV fairness echo $n round trips, one every ${gap} us; share window ${secs} s; N = $ns"

# lat WHO LOAD REP CMD...: one interference measurement.
lat() {
	who=$1 load=$2 r=$3
	shift 3
	out=$(timeout 600 "$@" echo "$n" "$gap" 2>&1)
	l=$(printf '%s\n' "$out" | sed -n 's/^lat //p' | tail -n 1)
	if [ -n "$l" ]; then
		echo "FAIR-LAT $who $load $r $l"
	else
		echo "FAIR-NA lat-$who-$load $(printf '%s\n' "$out" | tail -n 1)"
	fi
}

both() {	# both LOAD REP: guest B and the native process, order by rep
	if [ $(($2 % 2)) = 1 ]; then
		lat guest "$1" "$2" $UMLRUN ./fairness
		lat native "$1" "$2" $NATIVE
	else
		lat native "$1" "$2" $NATIVE
		lat guest "$1" "$2" $UMLRUN ./fairness
	fi
}

# busy LOAD REP OPTS: guest A (umlrun OPTS, a getpid loop) runs meanwhile.
busy() {
	$UMLRUN $3 ./fairness spin > /tmp/fair-a.log 2>&1 &
	a=$!
	sleep 1
	if kill -0 $a 2>/dev/null; then
		both "$1" "$2"
	else
		echo "FAIR-NA $1 guest A died: $(tail -n 1 /tmp/fair-a.log)"
	fi
	kill -9 $a 2>/dev/null
	wait $a 2>/dev/null
}

# Loads: idle; A on umlrun's default fast tiers (its getpid answered in
# the kernel); A with --no-fast (every getpid a round trip to its umlrun).
r=1
while [ $r -le "$reps" ]; do
	both idle $r
	busy busy $r ""
	busy busy-nofast $r --no-fast
	r=$((r + 1))
done

# shares N PATH REP: N loops from T0 to T1.
shares() {
	k=$1 p=$2 r=$3
	rm -f /tmp/fair-share.*
	t=$(./fairness now)
	# Start-up of N umlrun instances under TCG: a generous margin.
	m=1
	[ "$p" != native ] && m=$(awk -v k="$k" 'BEGIN { print 1 + k * 0.25 }')
	t0=$(awk -v t="$t" -v m="$m" 'BEGIN { printf "%.3f", t + m }')
	t1=$(awk -v t="$t0" -v s="$secs" 'BEGIN { printf "%.3f", t + s }')
	i=0
	pids=
	while [ $i -lt "$k" ]; do
		if [ "$p" = skas ]; then
			$UMLRUN ./fairness share "$t0" "$t1" > /tmp/fair-share.$i 2>&1 &
		elif [ "$p" = skas-nofast ]; then
			$UMLRUN --no-fast ./fairness share "$t0" "$t1" > /tmp/fair-share.$i 2>&1 &
		else
			$NATIVE share "$t0" "$t1" > /tmp/fair-share.$i 2>&1 &
		fi
		pids="$pids $!"
		i=$((i + 1))
	done
	for pid in $pids; do
		wait "$pid"
	done
	i=0
	while [ $i -lt "$k" ]; do
		s=$(sed -n 's/^ops //p' /tmp/fair-share.$i)
		if [ -n "$s" ]; then
			echo "FAIR-SHARE $k $p $r $i $s"
		else
			echo "FAIR-NA share-$k-$p guest $i: $(tail -n 1 /tmp/fair-share.$i)"
		fi
		i=$((i + 1))
	done
}

r=1
while [ $r -le "$reps" ]; do
	for k in $ns; do
		shares "$k" skas $r
		shares "$k" skas-nofast $r
		shares "$k" native $r
	done
	r=$((r + 1))
done
echo "# probes_registered=$(cat /sys/module/skas/parameters/probes_registered 2>/dev/null)"
echo "# bench done"
