#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run LTP's syscalls suite (runtest/syscalls): each test natively and/or
# under umlrun's backends, and print a table.  POSIX sh: it runs inside the
# VM's busybox as well as on the host.
#
#   selftests/ltp/run.sh
#
# Environment:
#   LTP_DIR      the built suite: testcases/bin and runtest/syscalls (default:
#                what selftests/ltp/build.sh built, building it if needed)
#   LTP_MODES    what to run each test under, in order: native, ptrace, skas
#                (default "ptrace skas" when /dev/skas exists, else "ptrace";
#                native changes the machine: only in a VM, see exclude)
#   LTP_TESTS    which tests: names or extended regexes matched against the
#                whole test name, separated by spaces or commas, or @FILE (one
#                a line, # comments); default every test
#   LTP_SAMPLE   N: of the selected tests only the 1st, N+1st, 2N+1st...
#                (a deterministic sample; default 1, all)
#   LTP_TIMEOUT  seconds per test and mode (default 60)
#   LTP_USER     UID:GID to run the tests as (default: as we are)
#   LTP_OUT      output directory (default build/ltp)
#   LTP_TMP      where each test runs, in a directory of its own (default
#                LTP_OUT/tmp; the VM keeps it in RAM when LTP_OUT is on 9p)
#   LTP_PLAN=1   print the plan ("NAME run PROG ARGS" or "NAME excluded WHY"
#                per selected test) and stop
#   LTP_KNOWN    the known failures (default selftests/ltp/known, the format
#                of exclude): the summary counts them apart from the others
#   LTP_NAMES=1  the summary names the known failures too (make ltp)
#   LTP_SUMMARY  FILE: print only the table of FILE, a results.txt, and stop
#
# Writes LTP_OUT/results.txt, one line per test and mode:
#   NAME MODE VERDICT DETAIL MS
# VERDICT pass (exit 0), conf (32, TCONF), fail (anything else, DETAIL says
# what: exit N, signal N), timeout, excluded (selftests/ltp/exclude, DETAIL
# its reason) or missing (no binary); the test's output in
# LTP_OUT/logs/MODE/NAME.log.  Then the table on stdout, and
# LTP_OUT/summary.txt with the same: per mode the counts, then per backend
# the tests that pass natively but not under it, those of LTP_KNOWN counted
# and the unexpected ones by name, and the known ones that pass now.  Exit
# 0 unless the runner itself failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
known=${LTP_KNOWN:-$here/known}

# summary RESULTS MODES SECS NTESTS: the table of a results.txt.  MODES
# empty: those of RESULTS, in order; SECS below 0: no time; NTESTS empty:
# RESULTS's count.  Per backend B: the tests that pass natively but not
# under B (or without a native run: that fail under B), split into those
# of the known list (a count; LTP_NAMES=1 adds their names) and the
# unexpected ones, by name; and the known ones that pass under B now.
summary() {
	awk -v modes="$2" -v secs="$3" -v ntests="$4" -v known="$known" \
	    -v names="${LTP_NAMES:-0}" '
function isknown(k,	i) {
	for (i = 1; i <= nk; i++)
		if (k ~ ("^(" kn[i] ")$"))
			return 1
	return 0
}
# print " NAME (VERDICT)" of lst[1..c], sorted (by insertion)
function plist(lst, c,	a, b, x) {
	for (a = 2; a <= c; a++)
		for (b = a; b > 1 && lst[b - 1] > lst[b]; b--) {
			x = lst[b]; lst[b] = lst[b - 1]; lst[b - 1] = x
		}
	for (a = 1; a <= c; a++)
		printf " %s", lst[a]
	printf "\n"
}
BEGIN {
	while ((getline l < known) > 0) {
		if (l ~ /^[ \t]*(#|$)/)
			continue
		split(l, f, /[ \t]+/)
		kn[++nk] = f[1]
	}
}
{
	if (!($1 in t))
		nt++
	t[$1] = 1; v[$1, $2] = $3
	if (!($2 in seen)) {
		seen[$2] = 1
		order = order " " $2
	}
	n[$2, $3]++
	if ($3 == "excluded")
		ex[$1] = 1
	else if ($3 == "missing")
		miss[$1] = 1
}
END {
	if (modes == "")
		modes = order
	if (ntests == "")
		ntests = nt
	nm = split(modes, m, " ")
	nex = 0; for (k in ex) nex++
	nmiss = 0; for (k in miss) nmiss++
	printf "ltp: %d tests, %d excluded, %d not built, %d run", \
		ntests, nex, nmiss, ntests - nex - nmiss
	if (secs >= 0)
		printf "; %d s", secs
	printf "\n"
	printf "%-8s %6s %6s %6s %8s\n", "mode", "pass", "conf", "fail", "(timeout)"
	for (i = 1; i <= nm; i++)
		printf "%-8s %6d %6d %6d %8d\n", m[i], n[m[i], "pass"], n[m[i], "conf"], \
			n[m[i], "fail"] + n[m[i], "timeout"], n[m[i], "timeout"]
	native = 0
	for (i = 1; i <= nm; i++) if (m[i] == "native") native = 1
	for (i = 1; i <= nm; i++) {
		b = m[i]
		if (b == "native")
			continue
		c = 0; ck = 0; cu = 0; cs = 0
		for (k in t) {
			kk = isknown(k)
			if (native ? (v[k, "native"] == "pass" && v[k, b] != "pass") \
				   : (v[k, b] == "fail" || v[k, b] == "timeout")) {
				c++
				if (kk)
					kl[++ck] = k " (" v[k, b] ")"
				else
					ul[++cu] = k " (" v[k, b] ")"
			} else if (kk && v[k, b] == "pass")
				sl[++cs] = k
		}
		if (native)
			printf "passes natively, not under %s (%d):", b, c
		else
			printf "fails under %s (%d, no native baseline):", b, c
		printf " %d known, %d unexpected", ck, cu
		if (cu)
			printf ":"
		plist(ul, cu)
		if (names && ck) {
			printf "known under %s (%d):", b, ck
			plist(kl, ck)
		}
		if (cs) {
			printf "known, but passes under %s (%d):", b, cs
			plist(sl, cs)
		}
	}
}' "$1"
}

# LTP_SUMMARY=FILE: only the table of FILE, a results.txt.
if [ -n "${LTP_SUMMARY:-}" ]; then
	[ -r "$LTP_SUMMARY" ] || { echo "ltp: cannot read $LTP_SUMMARY" >&2; exit 2; }
	summary "$LTP_SUMMARY" "${LTP_MODES:-}" -1 ""
	exit
fi
run1=$here/run1
umlrun=$top/guest-runtime/umlrun
out=${LTP_OUT:-$top/build/ltp}
tmo=${LTP_TIMEOUT:-60}
tests=${LTP_TESTS:-}
user=${LTP_USER:-}

if [ -z "${LTP_DIR:-}" ]; then
	LTP_DIR=$("$here/build.sh") || exit 2
fi
list=$LTP_DIR/runtest/syscalls
bin=$LTP_DIR/testcases/bin
[ -f "$list" ] && [ -d "$bin" ] || { echo "ltp: no suite in $LTP_DIR" >&2; exit 2; }
[ -x "$run1" ] || { echo "ltp: $run1 is not built (make user)" >&2; exit 2; }
if [ -n "${LTP_MODES:-}" ]; then
	modes=$(echo "$LTP_MODES" | tr ',' ' ')
elif [ -c /dev/skas ]; then
	modes="ptrace skas"
else
	modes=ptrace
fi
for m in $modes; do
	case $m in
	native|ptrace|skas) ;;
	*) echo "ltp: unknown mode '$m' (native, ptrace, skas)" >&2; exit 2 ;;
	esac
done

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
tmpd=${LTP_TMP:-$out/tmp}
rm -rf "$out/logs" "$tmpd"
for m in $modes; do mkdir -p "$out/logs/$m"; done
mkdir -p "$tmpd" || exit 2
[ -n "$user" ] && chmod 1777 "$tmpd"

# The selection: LTP_TESTS as one pattern per line.
sel=$out/select.txt
case $tests in
@*)	grep -v '^[[:space:]]*#' "${tests#@}" | tr -s ' \t' '\n\n' | grep . > "$sel" || exit 2 ;;
*)	echo "$tests" | tr -s ' ,\t' '\n\n\n' | grep . > "$sel" ;;
esac

# The plan: "NAME run CMD ARGS..." or "NAME excluded REASON" per selected
# test, in runtest order.
plan=$out/plan.txt
awk -v sel="$sel" -v excl="$here/exclude" -v sample="${LTP_SAMPLE:-1}" '
BEGIN {
	while ((getline l < sel) > 0)
		pat[++np] = l
	while ((getline l < excl) > 0) {
		if (l ~ /^[ \t]*(#|$)/)
			continue
		n = split(l, f, /[ \t]+/)
		ex[++ne] = f[1]
		r = l
		sub(/^[^ \t]+[ \t]+/, "", r)
		why[ne] = r
	}
}
/^[ \t]*(#|$)/ { next }
{
	name = $1
	if (np) {
		ok = 0
		for (i = 1; i <= np; i++)
			if (name ~ ("^(" pat[i] ")$")) { ok = 1; break }
		if (!ok)
			next
	}
	if (sample > 1 && nsel++ % sample)
		next
	for (i = 1; i <= ne; i++)
		if (name ~ ("^(" ex[i] ")$")) {
			print name, "excluded", why[i]
			next
		}
	$1 = ""
	print name, "run" $0
}' "$list" > "$plan" || exit 2
ntests=$(wc -l < "$plan")
[ "$ntests" -gt 0 ] || { echo "ltp: no test matches LTP_TESTS='$tests'" >&2; exit 2; }
# LTP_PLAN=1: only print the plan (ltp.sh stages the binaries it names).
[ "${LTP_PLAN:-0}" = 1 ] && { cat "$plan"; exit 0; }

res=$out/results.txt
: > "$res"
echo "ltp: $ntests tests from $list, modes: $modes, timeout ${tmo}s" >&2
start=$(date +%s)
i=0
# The LTP library finds its helpers and data through these.
PATH=$bin:$PATH
LTPROOT=$LTP_DIR
LTP_COLORIZE_OUTPUT=0
export PATH LTPROOT LTP_COLORIZE_OUTPUT
while read -r name kind rest; do
	i=$((i + 1))
	if [ "$kind" = excluded ]; then
		for m in $modes; do
			echo "$name $m excluded - 0 # $rest" >> "$res"
		done
		continue
	fi
	set -- $rest
	prog=$1
	shift
	args=$*
	line="$i/$ntests $name:"
	for m in $modes; do
		if [ ! -x "$bin/$prog" ]; then
			echo "$name $m missing - 0" >> "$res"
			line="$line $m=missing"
			continue
		fi
		dir=$tmpd/$m-$name
		rm -rf "$dir"
		mkdir -p "$dir"
		[ -n "$user" ] && chown "$user" "$dir"
		case $m in
		native) cmd="$bin/$prog" ;;
		*) cmd="$umlrun --backend=$m --rw -- $run1 -i -- $bin/$prog" ;;
		esac
		# run1 prints "exit N MS", "signal N MS" or "timeout MS".
		set -- $(cd "$dir" && TMPDIR=$dir "$run1" -t "$tmo" ${user:+-u "$user"} \
			-o "$out/logs/$m/$name.log" -- $cmd $args) - - -
		case "$1 $2" in
		"exit 0") v=pass d=- ms=$3 ;;
		"exit 32") v=conf d=- ms=$3 ;;
		timeout*) v=timeout d=- ms=$2 ;;
		*) v=fail d="$1-$2" ms=$3 ;;
		esac
		echo "$name $m $v $d $ms" >> "$res"
		line="$line $m=$v"
		rm -rf "$dir"
		# The LTP library's IPC file, left behind by a killed test:
		# under umlrun the test's pid is the same every run, so the
		# next run would find it (EEXIST).
		rm -f /dev/shm/ltp_"$name"_*
	done
	echo "$line" >&2
done < "$plan"
secs=$(($(date +%s) - start))

summary "$res" "$modes" "$secs" "$ntests" | tee "$out/summary.txt"
rmdir "$tmpd" 2>/dev/null
exit 0
