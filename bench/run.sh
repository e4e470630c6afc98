#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: every workload on every execution path, for each kernel, once
# with instruction-count time (QEMU -icount shift=0) and once with
# wall-clock time, then one markdown report on stdout and under results/.
# See Documentation/benchmarks.rst.  Benchmarks print, never assert.
#
# Environment (the Makefile passes its variables of the same names):
#   KVER    kernels, space-separated (default "6.12 6.1")
#   CLOCK   "icount wall" (default), or one of them
#   REPS    repetitions per cell (default 5)
#   SCALE   multiply every iteration count (default 1)
#   ONLY    comma-separated workloads, e.g. getpid,host-tax (default all)
#   PATHS   comma-separated paths (default native,ptrace,skas,skas+fast;
#           also skas+spin, skas+fast+spin, skas+yield, skas+fast+yield)
#   PLOT=1  also an SVG bar chart of the ratios per kernel and clock
#           (gnuplot; installed from Debian's packages when missing, as root)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kvers=${KVER:-6.12 6.1}
clocks=${CLOCK:-icount wall}
export BENCH_REPS=${REPS:-5} BENCH_SCALE=${SCALE:-1}
export BENCH_ONLY=${ONLY:-} BENCH_PATHS=${PATHS:-}
plot=${PLOT:-}

# The user-space parts (make user) are built by the Makefile's target; the
# workload programs here.  A workload that does not build is reported n/a
# in the VM, not fatal.
make -C bench -k -j2 >/dev/null || echo "bench: some workload programs did not build (they show as n/a)" >&2

stamp=$(date -u +%Y%m%d-%H%M%S)
mkdir -p results
base=results/bench-$stamp
report=$base.md
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
ncpu=$(nproc)
qver=$(qemu-system-x86_64 --version | sed -n '1s/^QEMU emulator version //p')
rev=${BENCH_REV:-$(git describe --always --dirty 2>/dev/null || echo unknown)}
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | wc -l)

{
	echo "# skas benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "- git: $rev$([ "$dirty" -gt 0 ] && echo " ($dirty tracked files modified)")"
	echo "- host: $cpu, $ncpu CPUs, $(uname -r)"
	echo "- QEMU $qver, TCG (no KVM), -cpu max -smp 2 -m 2048;" \
	     "icount: -icount shift=0 (1 ns = 1 guest instruction; TLB and cache" \
	     "costs are invisible); wall: multi-threaded TCG on a shared host, noisy"
	echo "- $BENCH_REPS repetitions per cell, paths of a workload interleaved in one boot"
	echo
} > "$report"

failed=0
for kver in $kvers; do
	for clock in $clocks; do
		raw=$base-$kver-$clock.raw
		echo "bench: $kver, $clock ..." >&2
		t0=$(date +%s)
		if ! bench/vm-bench.sh "$kver" "$clock" "$raw"; then
			failed=1
			printf '### %s, %s\n\nThe VM did not finish: see %s.vm and build/vm/%s-bench/.\n\n' \
				"$kver" "$clock" "$raw" "$kver" >> "$report"
			continue
		fi
		echo "bench: $kver, $clock: $(( $(date +%s) - t0 ))s" >&2
		case $clock in
		icount) what="instruction-count time (-icount shift=0)" ;;
		wall) what="wall-clock time (not repeatable: shared host)" ;;
		esac
		bench/report.sh -t "$kver, $what" -d "$base-$kver-$clock.dat" "$raw" >> "$report"
		echo >> "$report"
	done
done

if [ -n "$plot" ] && ls "$base"-*.dat >/dev/null 2>&1; then
	if ! command -v gnuplot >/dev/null; then
		if [ "$(id -u)" -eq 0 ]; then
			echo "bench: installing gnuplot-nox" >&2
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends gnuplot-nox >/dev/null ||
				{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
				  apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null; }
		else
			echo "bench: PLOT=1 needs gnuplot (apt-get install gnuplot-nox)" >&2
		fi
	fi
	if command -v gnuplot >/dev/null; then
		for dat in "$base"-*.dat; do
			svg=${dat%.dat}.svg
			name=${dat#"$base"-}; name=${name%.dat}
			ncol=$(head -n 1 "$dat" | wc -w)
			gnuplot <<-EOF
			set terminal svg size 1000,520 dynamic font "sans,11"
			set output "$svg"
			set title "skas bench ($name): time per operation, ratio to native (log scale)"
			set style data histograms
			set style histogram clustered gap 1
			set style fill solid 0.8 border -1
			set logscale y
			set yrange [0.1:*]
			set grid ytics
			set ylabel "x native"
			set xtics rotate by -35 scale 0
			set key top right
			set bmargin 7
			plot for [c=2:$ncol] "$dat" using c:xtic(1) title columnheader(c), \
			     1 with lines lc rgb "black" dt 2 notitle
			EOF
			[ -s "$svg" ] && echo "bench: plot $svg" >&2 && echo "Plot: $svg" >> "$report"
		done
	fi
fi

cat "$report"
echo "bench: report saved as $report (raw logs beside it)" >&2
exit $failed
