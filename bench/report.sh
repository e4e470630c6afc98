#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn the raw lines of bench/run-in-vm.sh (from the VM's results log) into
# markdown tables: workload x path, the median ns/op with the minimum in
# parentheses, and each path's median as a ratio to native on the same row.
#
# Usage: report.sh [-t TITLE] [-d DATFILE] RAWLOG
#   -t  heading of this section (e.g. "6.12, icount")
#   -d  also write the ratios as a whitespace table for gnuplot
#
# Cells that could not be measured read "n/a [k]", with reason k listed
# under the table: never a number that was not measured.
set -euo pipefail
title= dat=
while getopts t:d: o; do
	case $o in
	t) title=$OPTARG ;;
	d) dat=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
raw=${1:?usage: report.sh [-t TITLE] [-d DATFILE] RAWLOG}

tr -d '\r' < "$raw" | awk -v title="$title" -v dat="$dat" '
function fmt_unit(v) {
	if (v < 1e3) return "ns"
	if (v < 1e6) return "µs"
	if (v < 1e9) return "ms"
	return "s"
}
function fmt_num(v, u,    d) {
	d = u == "ns" ? 1 : u == "µs" ? 1e3 : u == "ms" ? 1e6 : 1e9
	v = v / d
	if (v >= 100) return sprintf("%.0f", v)
	if (v >= 10) return sprintf("%.1f", v)
	return sprintf("%.2f", v)
}
function cell(w, p,    u) {
	if ((w, p) in na) return "n/a [" na[w, p] "]"
	if (!((w, p) in cnt)) return "–"
	u = fmt_unit(med[w, p])
	return fmt_num(med[w, p], u) " " u " (" fmt_num(mn[w, p], u) ")"
}
function ratio(w, p,    r) {
	if (!((w, p) in cnt) || !((w, "native") in cnt) || med[w, "native"] <= 0)
		return "–"
	r = med[w, p] / med[w, "native"]
	return sprintf(r >= 10 ? "%.1fx" : "%.2fx", r)
}
function median(w, p,    n, i, j, t, a) {
	n = split(vals[w, p], a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	mn[w, p] = a[1]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# A table of workload @w by the mechanisms @list (names: @names, "|"-separated).
function subtable(title, w, list, names,    i, n, ps, nm) {
	n = split(list, ps, " ")
	split(names, nm, "|")
	printf "\n%s:\n\n", title
	print "| mechanism | ns/op | x native |"
	print "| --- | ---: | ---: |"
	for (i = 1; i <= n; i++)
		print "| " nm[i] " | " cell(w, ps[i]) " | " \
			(ps[i] == "native" ? "1.00x" : ratio(w, ps[i])) " |"
}
function note(w, p, why,    k) {
	if (!(why in reason_k)) {
		reason_k[why] = ++nreasons
		reasons[nreasons] = why
	}
	na[w, p] = reason_k[why]
}
/^# getpid seccomp-unotify: SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: / {
	sub(/^# getpid seccomp-unotify: /, ""); syncwake = $0; next
}
$1 == "BENCH-ENV" {
	k = $2; $1 = $2 = ""; sub(/^ +/, ""); env[k] = $0
	if (k == "paths") npaths = split($0, paths, " ")
	next
}
$1 == "BENCH" {
	w = $2; p = $3
	if (!(w in seen)) { seen[w] = 1; order[++nw] = w }
	if (!((w, p) in cnt)) cnt[w, p] = 0
	cnt[w, p]++
	vals[w, p] = vals[w, p] " " $5
	next
}
$1 == "BENCH-NA" {
	w = $2; p = $3; $1 = $2 = $3 = ""; sub(/^ +/, "")
	if (!(w in seen)) { seen[w] = 1; order[++nw] = w }
	note(w, p, $0)
	next
}
END {
	for (k in cnt) { split(k, kk, SUBSEP); med[kk[1], kk[2]] = median(kk[1], kk[2]) }
	if (title != "") printf "### %s\n\n", title
	printf "Kernel %s, %s vCPUs, clocksource %s, %s repetitions, counts x%s, pinned: %s.\n",
		env["kernel"], env["cpus"], env["clocksource"], env["reps"], env["scale"], env["pinned"]
	printf "Median ns/op (minimum), and the median as a ratio to native on the same row.\n\n"
	hdr = "| workload |"; sep = "| --- |"
	for (i = 1; i <= npaths; i++) {
		hdr = hdr " " paths[i] " |"; sep = sep " ---: |"
		if (paths[i] != "native") { hdr = hdr " x |"; sep = sep " ---: |" }
	}
	print hdr; print sep
	for (j = 1; j <= nw; j++) {
		w = order[j]; line = "| " w " |"
		if (w == "fault-map") continue	# its own table, below
		for (i = 1; i <= npaths; i++) {
			line = line " " cell(w, paths[i]) " |"
			if (paths[i] != "native") line = line " " ratio(w, paths[i]) " |"
		}
		print line
	}
	# The getpid round trip by every mechanism measured.
	nref = 0
	for (k in cnt) { split(k, kk, SUBSEP); if (kk[1] == "getpid") isref[kk[2]] = 1 }
	for (k in na) { split(k, kk, SUBSEP); if (kk[1] == "getpid") isref[kk[2]] = 1 }
	nb = 0
	for (i = 1; i <= npaths; i++) base[++nb] = paths[i]
	split("libuml-ptrace libuml-skas sysemu-tracer seccomp-unotify", extra, " ")
	for (i = 1; i <= 4; i++) base[++nb] = extra[i]
	for (i = 1; i <= nb; i++) {
		p = base[i]
		if (p in isref || p == "native" || p == "ptrace" || p == "skas") {
			if (!(p in done_)) { ref[++nref] = p; done_[p] = 1 }
		}
		if ((p "@cpu0") in isref) { ref[++nref] = p "@cpu0"; done_[p "@cpu0"] = 1 }
	}
	for (p in isref) if (!(p in done_)) ref[++nref] = p
	# Only if it holds more than the main table (uml/bench.sh: no).
	for (i = 1; i <= npaths; i++) inmain[paths[i]] = 1
	moreref = 0
	for (i = 1; i <= nref; i++) if (!(ref[i] in inmain)) moreref = 1
	if (moreref) {
		printf "\ngetpid round trip, every mechanism (same boot):\n\n"
		print "| mechanism | ns/op | x native getpid |"
		print "| --- | ---: | ---: |"
		for (i = 1; i <= nref; i++) {
			p = ref[i]; q = p; sub(/@cpu0$/, "", q)
			name = q == "native" ? "native getpid" : \
			       q == "skas" ? "umlrun --backend=skas --no-fast" : \
			       q == "skas+fast" ? "umlrun --backend=skas (fast tiers)" : \
			       q == "skas+spin" ? "umlrun --backend=skas --no-fast --spin" : \
			       q == "skas+fast+spin" ? "umlrun --backend=skas --spin (fast tiers)" : \
			       q == "skas+yield" ? "umlrun --backend=skas --no-fast --yield" : \
			       q == "skas+fast+yield" ? "umlrun --backend=skas --yield (fast tiers)" : \
			       q == "ptrace" ? "umlrun --backend=ptrace" : q
			if (p != q) name = name ", all on CPU 0"
			print "| " name " | " cell("getpid", p) " | " \
				(p == "native" ? "1.00x" : ratio("getpid", p)) " |"
		}
	}
	if (syncwake != "") printf "\nseccomp-unotify: %s.\n", syncwake
	# futex ping-pong in a libuml runtime with a pthread per guest thread.
	hasfx = 0
	if ((("futex-pingpong", "libuml-trap") in cnt) || (("futex-pingpong", "libuml-trap") in na) ||
	    (("futex-pingpong", "libuml-native") in cnt) || (("futex-pingpong", "libuml-native") in na))
		hasfx = 1
	if (hasfx)
		subtable("futex ping-pong, two guest threads of a libuml runtime (skas), one runtime pthread each",
			 "futex-pingpong", "native libuml-trap libuml-native",
			 "native threads|futex trapped (TRAP), emulated by the runtime|futex NATIVE")
	# A page fault answered with a mapping, on the raw ABI.
	if (("fault-map", "native") in cnt)
		subtable("A page fault answered with a mapping (bench/faultmap, raw skas ABI)",
			 "fault-map", "native mem+run run-mem",
			 "native: a fault on a fresh anonymous page|SKAS_MEM, then SKAS_RUN|SKAS_RUN_MEM")
	# Native file I/O on and off, skas with the fast tiers.
	nf = split("file-pread file-tree file-copy make-j2", fw, " ")
	hasf = 0
	for (i = 1; i <= nf; i++)
		if ((fw[i], "skas+fast-nopass") in cnt) hasf = 1
	if (hasf) {
		printf "\nNative file I/O (skas, fast tiers), off (--no-passthrough) and on:\n\n"
		print "| workload | native | off | x | on | x |"
		print "| --- | ---: | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= nf; i++)
			if (((fw[i], "skas+fast-nopass") in cnt) ||
			    ((fw[i], "skas+fast-nopass") in na))
				print "| " fw[i] " | " cell(fw[i], "native") " | " \
					cell(fw[i], "skas+fast-nopass") " | " \
					ratio(fw[i], "skas+fast-nopass") " | " \
					cell(fw[i], "skas+fast") " | " \
					ratio(fw[i], "skas+fast") " |"
	}
	if (nreasons) {
		printf "\nNot measured:\n\n"
		for (i = 1; i <= nreasons; i++) printf "- [%d] %s\n", i, reasons[i]
	}
	for (k in env) if (k ~ /^note/) printf "\n%s\n", env[k]
	if (dat != "") {
		# Only paths and workloads with numbers: gnuplot draws nothing
		# from an all-NaN column.
		np = 0
		for (i = 1; i <= npaths; i++) {
			p = paths[i]
			if (p == "native") continue
			for (j = 1; j <= nw; j++)
				if (((order[j], p) in cnt) && ((order[j], "native") in cnt)) {
					plotp[++np] = p
					break
				}
		}
		if (np) {
			printf "workload" > dat
			for (i = 1; i <= np; i++) printf " %s", plotp[i] > dat
			printf "\n" > dat
			for (j = 1; j <= nw; j++) {
				w = order[j]
				if (!((w, "native") in cnt) || w == "fault-map")
					continue
				printf "%s", w > dat
				for (i = 1; i <= np; i++) {
					p = plotp[i]
					if ((w, p) in cnt)
						printf " %.4g", med[w, p] / med[w, "native"] > dat
					else
						printf " NaN" > dat
				}
				printf "\n" > dat
			}
			close(dat)
		}
	}
}'
