#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the test programs named in a list file and report TAP.
#
# Usage: run-tests.sh [-t FILTER] [-T SECONDS] [-n NAME] LIST
#
# LIST has one test per line: a path relative to the repository root, then
# its arguments; '#' starts a comment.  A line may start with "timeout=N "
# to give that test N seconds instead of the default, and with
# "kernel=GLOB " to run it only where `uname -r` matches GLOB (elsewhere it
# counts as one skip, saying so).  -t runs only the lines that contain
# FILTER.  Runs from the repository root (or its copy in the VM).
#
# Each program prints TAP (kselftest style) and exits 0 (pass), 4 (skip) or
# anything else (fail).  Its output is shown indented, then its time
# ("# time: N s"), then one TAP line per program.  Counting is per
# subtest: "ok" lines are passes ("# SKIP" ones are skips), "not ok" lines
# are failures.  A program that fails (non-zero, not 4: crash, timeout,
# failed assertion) without printing a "not ok" adds one failure; one that
# prints no TAP at all counts once by its exit status.
#
# The last lines are "# counts: pass=P fail=F skip=S" (added up by the
# harness) and "NAME: P passed, F failed, S skipped".  Exit status 0 only if
# nothing failed.

filter=
tmo=600
name=tests
while [ $# -gt 1 ]; do
	case $1 in
	-t) filter=$2; shift 2 ;;
	-T) tmo=$2; shift 2 ;;
	-n) name=$2; shift 2 ;;
	*) break ;;
	esac
done
list=$1
if [ -z "$list" ] || [ ! -r "$list" ]; then
	echo "usage: run-tests.sh [-t FILTER] [-T SECONDS] [-n NAME] LIST" >&2
	exit 2
fi
cd "$(dirname "$0")/.." || exit 2

pass=0 fail=0 skip=0 n=0
out=$(mktemp "${TMPDIR:-/tmp}/run-tests.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT

echo "TAP version 13"
while read -r line || [ -n "$line" ]; do
	line=${line%%#*}
	set -- $line
	[ $# -gt 0 ] || continue
	t=$tmo
	kern=
	while :; do
		case ${1:-} in
		timeout=*) t=${1#timeout=}; shift ;;
		kernel=*) kern=${1#kernel=}; shift ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || continue
	case "$*" in *"$filter"*) ;; *) continue ;; esac
	n=$((n + 1))
	prog=$1; shift
	if [ -n "$kern" ]; then
		# shellcheck disable=SC2254
		case $(uname -r) in
		$kern) ;;
		*)
			echo "ok $n $prog $* # SKIP only on kernel $kern"
			skip=$((skip + 1))
			continue ;;
		esac
	fi
	echo "# run: $prog $*"
	t0=$(date +%s)
	if [ -x "$prog" ]; then
		timeout -s KILL "$t" "./$prog" "$@" > "$out" 2>&1 < /dev/null
		rc=$?
	else
		echo "not executable: $prog" > "$out"
		rc=127
	fi
	sed 's/^/    /' "$out"
	p=$(grep -c '^ok ' "$out" | head -n 1)
	s=$(grep -c '^ok .*# [Ss][Kk][Ii][Pp]' "$out" | head -n 1)
	f=$(grep -c '^not ok ' "$out" | head -n 1)
	p=$((p - s))
	if [ $((p + s + f)) -eq 0 ]; then
		case $rc in 0) p=1 ;; 4) s=1 ;; *) f=1 ;; esac
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	[ "$rc" -eq 137 ] && echo "# $prog: killed after ${t}s"
	echo "# time: $(($(date +%s) - t0)) s"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		echo "not ok $n $prog $* # exit $rc"
	elif [ "$p" -eq 0 ] && [ "$s" -gt 0 ]; then
		echo "ok $n $prog $* # SKIP"
	else
		echo "ok $n $prog $*"
	fi
done < "$list"
echo "1..$n"
echo "# counts: pass=$pass fail=$fail skip=$skip"
echo "$name: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
