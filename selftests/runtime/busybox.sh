#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# umlrun runs busybox: each case is a `busybox sh -c` script run natively and
# under `umlrun --backend=B`; stdout (with stderr folded in where the script
# says so) and the exit status must be identical.  Then the runtime's own
# cases: a segfault, a recovered SIGSEGV, a bounded fork bomb, bad input.
#
# Usage: selftests/runtime/busybox.sh [ptrace|skas] [--no-fast] [--cpus=N]
#        (backend default: $UML_BACKEND, else ptrace; --no-fast: every
#        umlrun run without the fast tiers and without a vDSO; --cpus=N:
#        every run with N runtime threads, where the default is one per
#        host CPU)
# Runs from the repository root (or its copy in the VM); needs only busybox.

B=${1:-${UML_BACKEND:-ptrace}}
[ $# -gt 0 ] && shift
NOFAST=
CPUS=
for a in "$@"; do
	case "$a" in
	--no-fast) NOFAST=--no-fast ;;
	--cpus=[1-9]|--cpus=[1-9][0-9]) CPUS=${a#--cpus=} ;;
	*) echo "usage: $0 [ptrace|skas] [--no-fast] [--cpus=N]" >&2; exit 2 ;;
	esac
done
# What every umlrun run below takes.
UOPTS="$NOFAST${CPUS:+ --cpus=$CPUS}"
BB=/bin/busybox
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
UMLRUN=${UMLRUN:-$TOP/guest-runtime/umlrun}	# override: e.g. a sanitizer build
TESTBIN=$TOP/selftests/runtime

n=0
fail=0
echo "TAP version 13"

if [ ! -x "$UMLRUN" ] || [ ! -x "$BB" ]; then
	echo "1..0 # SKIP umlrun or $BB missing"
	exit 4
fi

# Without the module there is nothing to test on skas (a loaded module
# whose backend fails is a failure, not a skip).
if [ "$B" = skas ] && [ ! -e /dev/skas ]; then
	echo "1..0 # SKIP no /dev/skas (skas.ko not loaded)"
	exit 4
fi

# A guest run that outlives GUEST_SECS gets SIGUSR1 first: umlrun prints
# its task dump (what each guest task waits for) into the output, then
# SIGKILL.
GUEST_SECS=60
guest_timeout() {
	$BB timeout -s USR1 -k 5 "$GUEST_SECS" "$@"
}

WORK=$($BB mktemp -d "${TMPDIR:-/tmp}/umlrun-test.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT

# Each case's time, from the end of the one before (/proc/uptime, no
# fork): the slowest are listed at the end, to show where the time goes.
read -r t_last _ < /proc/uptime
case_time() {
	read -r t_now _ < /proc/uptime
	t_cs=$(( ${t_now%.*}${t_now#*.} - ${t_last%.*}${t_last#*.} ))
	t_last=$t_now
	echo "$t_cs $n $1" >> "$WORK/times"
}

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
	case_time "$1"
}

not_ok() {
	n=$((n + 1))
	fail=$((fail + 1))
	echo "not ok $n - $1"
	case_time "$1"
}

skip_case() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
	case_time "$1"
}

# have PROGRAM...: all of them are executable here (the VM's root has
# busybox and the tree's own programs, not the host's Debian user space).
have() {
	for p in "$@"; do
		[ -x "$p" ] || return 1
	done
}

# A fresh work folder with the same files for each run.
setup_work() {
	rm -rf "$WORK/w"
	mkdir -p "$WORK/w/sub/deep"
	printf 'banana\napple\ncherry\napple\ndate\n' > "$WORK/w/fruit"
	printf 'one two three\nfour five\n' > "$WORK/w/words"
	printf 'x\n' > "$WORK/w/sub/a.txt"
	printf 'y\n' > "$WORK/w/sub/deep/b.txt"
	$BB seq 1 2000 > "$WORK/w/nums"
}

# run_case NAME SCRIPT: compare native busybox with busybox under umlrun.
run_case() {
	setup_work
	(cd "$WORK/w" && $BB timeout 60 $BB sh -c "$2" > "$WORK/native" 2>&1)
	nst=$?
	setup_work
	(cd "$WORK/w" && guest_timeout "$UMLRUN" --backend="$B" $UOPTS --rw \
		$BB sh -c "$2" > "$WORK/guest" 2>&1)
	gst=$?
	if [ $nst -eq $gst ] && $BB cmp -s "$WORK/native" "$WORK/guest"; then
		ok "$1"
	else
		not_ok "$1"
		echo "# script: $2"
		echo "# native status $nst, guest status $gst"
		$BB diff "$WORK/native" "$WORK/guest" | $BB head -40 | \
			$BB sed 's/^/# /'
	fi
}

# same_output NAME WANT: the native run printed WANT ($native) and the
# guest ($guest, exit status $gst) the same, exiting 0.
same_output() {
	if [ "$gst" -eq 0 ] && [ "$native" = "$2" ] && [ "$guest" = "$native" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "# native: $native"
		echo "# guest status $gst:"
		echo "$guest" | $BB head -20 | $BB sed 's/^/# /'
	fi
}

# expect_status NAME STATUS CMD...: umlrun's exit status must be STATUS.
expect_status() {
	name=$1
	want=$2
	shift 2
	guest_timeout "$UMLRUN" --backend="$B" $UOPTS "$@" > "$WORK/out" 2>&1
	st=$?
	if [ "$st" = "$want" ]; then
		ok "$name"
	else
		not_ok "$name"
		echo "# wanted status $want, got $st"
		$BB head -5 "$WORK/out" | $BB sed 's/^/# /'
	fi
}

# expect_output NAME TEXT CMD...: umlrun exits 0 and prints exactly TEXT.
expect_output() {
	name=$1
	want=$2
	shift 2
	got=$(guest_timeout "$UMLRUN" --backend="$B" $UOPTS "$@" 2>&1)
	st=$?
	if [ $st -eq 0 ] && [ "$got" = "$want" ]; then
		ok "$name"
	else
		not_ok "$name"
		# Every line with "#", so that the harness keeps it (a task dump).
		echo "# status $st, output:"
		printf '%s\n' "$got" | $BB head -n 40 | $BB sed 's/^/#   /'
	fi
}

# expect_grep NAME PATTERN CMD...: umlrun's combined output matches PATTERN.
expect_grep() {
	name=$1
	pat=$2
	shift 2
	guest_timeout "$UMLRUN" --backend="$B" $UOPTS "$@" > "$WORK/out" 2>&1
	if $BB grep -q -- "$pat" "$WORK/out"; then
		ok "$name"
	else
		not_ok "$name"
		$BB head -5 "$WORK/out" | $BB sed 's/^/# /'
	fi
}

. "$TESTBIN/cases.sh"

$BB sort -rn "$WORK/times" | $BB head -n 8 | while read -r cs i name; do
	printf '# slowest: %d.%02d s, %d - %s\n' $((cs / 100)) $((cs % 100)) "$i" "$name"
done
echo "1..$n"
[ $fail -eq 0 ]
