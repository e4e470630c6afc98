#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime fuzzer (fuzz.c) for SECONDS under the ASan+UBSan umlrun
# (make asan: build/asan/guest-runtime/umlrun), ptrace backend.  Fails on a
# sanitizer report, a runtime crash or exit, and a hang: umlrun must be
# done SECONDS + 60 s after it started, or it gets SIGUSR1 (its task dump)
# and then SIGKILL, and the test says so.
#
# Usage: selftests/runtime/fuzz.sh SECONDS [SEED]
#        SEED: else $SEED, else today's date (YYYYMMDD); always printed.
#        UMLRUN: another umlrun (default: the ASan one).
cd "$(dirname "$0")/../.." || exit 1
secs=${1:?usage: fuzz.sh SECONDS [SEED]}
seed=${2:-${SEED:-$(date -u +%Y%m%d)}}
UMLRUN=${UMLRUN:-build/asan/guest-runtime/umlrun}
FUZZ=selftests/runtime/fuzz
name="runtime fuzzer, seed $seed, $secs s, $UMLRUN"

echo "TAP version 13"
echo "1..1"
for f in "$UMLRUN" "$FUZZ"; do
	if [ ! -x "$f" ]; then
		echo "# $f missing: make user asan"
		echo "not ok 1 - $name"
		exit 1
	fi
done
out=$(mktemp "${TMPDIR:-/tmp}/fuzz.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT

# abort_on_error=0: a report ends umlrun with exit status 99 and its
# guests with it (PR_SET_PDEATHSIG), not with a core dump.
t0=$(date +%s)
ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	timeout -s USR1 -k 10 $((secs + 60)) \
	"$UMLRUN" --backend=ptrace "$FUZZ" -v -s "$seed" -t "$secs" \
	> "$out" 2>&1 < /dev/null
st=$?
t1=$(date +%s)
round=$(grep '^fuzz: seed [0-9]* round [0-9]*$' "$out" | tail -n 1 | \
	sed 's/.* round //')
why=
if grep -q 'Sanitizer\|runtime error:' "$out"; then
	why="sanitizer report"
elif [ $((t1 - t0)) -ge $((secs + 60)) ]; then
	why="umlrun hung: not done after $((secs + 60)) s (its task dump below)"
elif [ $st -gt 128 ] && [ $st -lt 160 ]; then
	why="the fuzzer's pid 1 died of signal $((st - 128)) (umlrun exit $st)"
elif [ $st -ne 0 ] || [ "$(tail -n 1 "$out")" != "fuzz done" ]; then
	why="umlrun or the fuzzer failed (exit status $st)"
fi
if [ -z "$why" ]; then
	grep -v '^fuzz: seed [0-9]* round [0-9]*$' "$out" | tail -n 2 | sed 's/^/# /'
	echo "ok 1 - $name ($((t1 - t0)) s)"
	exit 0
fi
echo "# $why after $((t1 - t0)) s, in round ${round:-?} of seed $seed:"
grep -v '^fuzz: seed [0-9]* round [0-9]*$' "$out" | head -n 60 | sed 's/^/# /'
echo "# reproduce: $UMLRUN --strace $FUZZ -v -s $seed -r ${round:-0}"
echo "not ok 1 - $name"
exit 1
