#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime's deterministic regression programs for hostile arguments
# under the ASan+UBSan umlrun (make asan): each must print "NAME ok" and
# exit 0, with no sanitizer report.  Several of the bugs they cover were
# undefined behaviour that a plain build survives silently.  Then programs
# that cannot start: umlrun's exit status (127, 126) and no report, leaks
# included.  Then programs compared with their native output: execve's
# limits and faults (execargs.c), and with "skas" (in the VM, where the
# ASan build is the host's, over /host) the native file I/O programs
# (fileio.c): the mirror of fdpass.c runs on skas.ko only.  UMLRUN:
# another umlrun.
#
# Usage: sanitized.sh [ptrace|skas]
cd "$(dirname "$0")/../.." || exit 1
B=${1:-ptrace}
UMLRUN=${UMLRUN:-build/asan/guest-runtime/umlrun}
[ -x "$UMLRUN" ] || [ -z "${skas_host_tree:-}" ] ||
	UMLRUN=/host$skas_host_tree/build/asan/guest-runtime/umlrun
case $UMLRUN in /*) ;; *) UMLRUN=$PWD/$UMLRUN ;; esac	# the runs cd
PROGS="edges timeouts hostile futex"
# PROGRAM:ARGUMENT, run natively and under umlrun, outputs compared.
COMPARED=execargs:
[ "$B" = skas ] && for part in coherence fork exec vfork fsize reuse many \
		threads race devices; do COMPARED="$COMPARED fileio:$part"; done

# NAME STATUS PROGRAM: programs umlrun must refuse with STATUS.
REFUSED="missing:127:/nonexistent/prog not-executable:126:selftests/runtime/cases.sh
nointerp:127:selftests/runtime/dynamic-nointerp"

echo "TAP version 13"
set -- $PROGS $REFUSED $COMPARED
echo "1..$#"
out=$(mktemp "${TMPDIR:-/tmp}/sanitized.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
n=0 fail=0
for p in $PROGS; do
	n=$((n + 1))
	if [ ! -x "$UMLRUN" ] || [ ! -x "selftests/runtime/$p" ]; then
		echo "# $UMLRUN or selftests/runtime/$p missing: make user asan"
		echo "not ok $n - $p under $UMLRUN"
		fail=$((fail + 1))
		continue
	fi
	ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		timeout -s USR1 -k 10 60 "$UMLRUN" --backend="$B" \
		"selftests/runtime/$p" > "$out" 2>&1 < /dev/null
	st=$?
	if [ $st -eq 0 ] && [ "$(tail -n 1 "$out")" = "$p ok" ] &&
	   ! grep -q 'Sanitizer\|runtime error:' "$out"; then
		echo "ok $n - $p under $UMLRUN"
	else
		echo "# exit status $st"
		head -n 40 "$out" | sed 's/^/# /'
		echo "not ok $n - $p under $UMLRUN"
		fail=$((fail + 1))
	fi
done
for r in $REFUSED; do
	n=$((n + 1))
	name=${r%%:*} r=${r#*:}
	want=${r%%:*} prog=${r#*:}
	ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		timeout -k 10 60 "$UMLRUN" --backend="$B" "$prog" \
		> "$out" 2>&1 < /dev/null
	st=$?
	if [ $st -eq "$want" ] && ! grep -q 'Sanitizer\|runtime error:' "$out"; then
		echo "ok $n - $name: exit $want, no report"
	else
		echo "# exit status $st, wanted $want"
		head -n 40 "$out" | sed 's/^/# /'
		echo "not ok $n - $name: exit $want, no report"
		fail=$((fail + 1))
	fi
done
for c in $COMPARED; do
	n=$((n + 1))
	prog=$PWD/selftests/runtime/${c%%:*} part=${c#*:}
	name="${c%%:*}, as natively"
	[ "${c%%:*}" = fileio ] && name="native file I/O: $part"
	d=$(mktemp -d "${TMPDIR:-/tmp}/sanitized.XXXXXX") || exit 1
	mkdir "$d/n" "$d/g"
	(cd "$d/n" && timeout -k 10 60 "$prog" $part > "$d/native" 2>&1)
	nst=$?
	(cd "$d/g" && ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		timeout -s USR1 -k 10 120 "$UMLRUN" --backend="$B" --rw \
		"$prog" $part > "$out" 2>&1 < /dev/null)
	st=$?
	if [ $st -eq $nst ] && cmp -s "$d/native" "$out"; then
		echo "ok $n - $name under $UMLRUN"
	else
		echo "# exit status $st (native $nst)"
		diff "$d/native" "$out" | head -n 40 | sed 's/^/# /'
		echo "not ok $n - $name under $UMLRUN"
		fail=$((fail + 1))
	fi
	rm -rf "$d"
done
[ $fail -eq 0 ]
