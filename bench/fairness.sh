#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fairness: guest interference and shares (issue 7), one bench-mode
# boot per kernel and clock (bench/vm-bench.sh with bench_only=fairness,
# which runs bench/fairness-in-vm.sh), then a table on stdout and under
# results/.  See "Fairness and interference" in Documentation/benchmarks.rst.
# Prints, never asserts: the targets (B's latency at most 2x idle, shares
# within 10%) are reported against, not enforced.
#
# Environment: KVER (default "6.12"), CLOCK ("icount", "wall" or both;
# default icount), REPS (default 3).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kvers=${KVER:-6.12}
clocks=${CLOCK:-icount}
export BENCH_REPS=${REPS:-3} BENCH_ONLY=fairness
make -C bench -j2 >/dev/null || exit 1

stamp=$(date -u +%Y%m%d-%H%M%S)
mkdir -p results
base=results/fairness-$stamp
report=$base.md
rev=$(git describe --always --dirty 2>/dev/null || echo unknown)
{
	echo "# skas fairness and interference, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "- git: $rev"
	echo "- host: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs"
	echo "- QEMU $(qemu-system-x86_64 --version | sed -n '1s/^QEMU emulator version //p'), TCG, -smp 2 -m 2048"
	echo
} > "$report"

# table RAW: the two tables of one boot, from its raw lines.
table() {
	awk '
	function med(list,   n, a, i, j, t) {
		n = split(list, a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : -1
	}
	/^BENCH-ENV (kernel|cpus|clock|fairness) / { $1 = ""; env = env "-" $0 "\n" }
	/^FAIR-LAT / {
		k = $2 " " $3
		p50[k] = p50[k] " " $5
		if ($6 + 0 > p90[k]) p90[k] = $6 + 0
		if ($7 + 0 > mx[k]) mx[k] = $7 + 0
	}
	/^FAIR-SHARE / {
		k = $2 " " $3 " " $4	# N path rep
		if (!(k in lo) || $6 + 0 < lo[k]) lo[k] = $6 + 0
		if ($6 + 0 > hi[k]) hi[k] = $6 + 0
		sum[k] += $6; cnt[k]++
		if ($8 + 0 > late[k]) late[k] = $8 + 0
		keys[$2 " " $3] = 1
	}
	/^FAIR-NA / { na = na "- n/a: " substr($0, 9) "\n" }
	END {
		printf "%s\n", env
		printf "| round trip | load | p50, us (median of reps) | p90, us (worst rep) | max, us (worst rep) | p50 / idle p50 |\n"
		printf "| --- | --- | ---: | ---: | ---: | ---: |\n"
		split("guest native", who, " ")
		split("idle busy busy-nofast", load, " ")
		name["guest"] = "guest B (umlrun, skas): pipe echo between two guest processes"
		name["native"] = "native process: the same pipe echo"
		lname["idle"] = "idle"
		lname["busy"] = "guest A, fast tiers"
		lname["busy-nofast"] = "guest A, --no-fast"
		for (w = 1; w <= 2; w++) {
			idle = med(p50[who[w] " idle"])
			for (l = 1; l <= 3; l++) {
				k = who[w] " " load[l]
				if (!(k in p50)) continue
				v = med(p50[k])
				printf "| %s | %s | %.1f | %.1f | %.1f | %.2fx |\n",
					name[who[w]], lname[load[l]], v / 1000,
					p90[k] / 1000, mx[k] / 1000,
					(idle > 0 ? v / idle : 0)
			}
		}
		printf "\n| N loops of getpid | path | per-loop calls/s, min | max | max/min (worst rep) | max/min (median of reps) | latest start (s) |\n"
		printf "| ---: | --- | ---: | ---: | ---: | ---: | ---: |\n"
		for (k in keys) order[++no] = k
		for (i = 2; i <= no; i++)
			for (j = i; j > 1 && (order[j - 1] + 0 > order[j] + 0 || \
			     (order[j - 1] + 0 == order[j] + 0 && order[j - 1] > order[j])); j--) {
				t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
			}
		for (i = 1; i <= no; i++) {
			split(order[i], f, " ")
			worst = 0; rl = ""; mn = -1; mxx = 0; lt = 0
			for (k in cnt) {
				split(k, g, " ")
				if (g[1] != f[1] || g[2] != f[2]) continue
				r = lo[k] > 0 ? hi[k] / lo[k] : 0
				if (r > worst) worst = r
				rl = rl " " r
				if (mn < 0 || lo[k] < mn) mn = lo[k]
				if (hi[k] > mxx) mxx = hi[k]
				if (late[k] > lt) lt = late[k]
			}
			printf "| %d | %s | %.0f | %.0f | %.3f | %.3f | %.3f |\n", f[1], f[2],
				mn / SECS, mxx / SECS, worst, med(rl), lt
		}
		if (na != "") printf "\n%s", na
	}' SECS=2 "$1"
}

failed=0
for kver in $kvers; do
	for clock in $clocks; do
		raw=$base-$kver-$clock.raw
		echo "fairness: $kver, $clock ..." >&2
		t0=$(date +%s)
		if ! BENCH_VM_TIMEOUT=3000 bench/vm-bench.sh "$kver" "$clock" "$raw"; then
			failed=1
			printf '## %s, %s\n\nThe VM did not finish: see %s.vm.\n\n' \
				"$kver" "$clock" "$raw" >> "$report"
			continue
		fi
		echo "fairness: $kver, $clock: $(( $(date +%s) - t0 ))s" >&2
		{
			printf '## %s, %s\n\n' "$kver" "$clock"
			table "$raw"
			echo
		} >> "$report"
	done
done
cat "$report"
echo "fairness: report saved as $report (raw logs beside it)" >&2
exit $failed
