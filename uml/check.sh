#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# User-Mode Linux in each of its modes: boot to a shell (uml/run.sh), run a
# guest workload, compare.  The workload's sections: busybox applets and
# shell work, then the programs of uml/tests (forkexec, signals, faults,
# threads, fpu: each prints one "NAME: ok" line per case).  ptrace mode is
# the reference: its busybox section must equal the same commands run on
# this host, its programs must pass; every other mode's output must be
# identical to ptrace mode's, section by section.  Then, per mode, UML
# killed with SIGKILL while its guest runs must leave no process; for skas
# mode the module's object and probe counters (/sys/module/skas/
# parameters/) must be back to 0 after each run, and must have been above 0
# while UML ran (its processes did run on skas.ko).
#
# Usage: uml/check.sh [MODE...]   (default: ptrace seccomp skas skas-spin)
# skas-spin is skas mode with the module's spin (skas_spin=) instead of
# its yield (skas_yield=0).  With skas.ko, UML's skas_yield= and
# skas_spin= must also reject bad values with a clear error.
# The UML binary: $UML, else the host's cached build named by the
# skas_uml kernel parameter in the test VM (a host path, seen under
# /host), else uml/build.sh --cached.  No binary: one skip.  A mode that
# cannot run here is skipped with the reason (skas: no /dev/skas, or a
# UML without the skas= parameter; seccomp: UML finds it not functional).
cd "$(dirname "$0")/.." || exit 2
TOP=$(pwd)
# shellcheck source=selftests/tap.sh
. "$TOP/selftests/tap.sh"
BB=/bin/busybox
MODES=${*:-ptrace seccomp skas skas-spin}
PARAMS=/sys/module/skas/parameters
echo "TAP version 13"

if [ -z "${UML:-}" ] && [ -n "${skas_uml:-}" ]; then
	if [ -x "/host$skas_uml" ]; then UML=/host$skas_uml; else UML=$skas_uml; fi
fi
if [ -z "${UML:-}" ] && command -v bash > /dev/null; then
	UML=$("$TOP/uml/build.sh" --cached 2>/dev/null)
fi
if [ -z "${UML:-}" ] || [ ! -x "$UML" ]; then
	echo "1..0 # SKIP no UML build cached for the current uml/ (make uml builds it)"
	exit 4
fi
export UML
# Each boot's limit: the VM runs UML under TCG, many times slower.
UML_TIMEOUT=${UML_TIMEOUT:-600}
export UML_TIMEOUT
echo "# UML: $UML"
for p in forkexec signals faults threads fpu; do
	[ -x "$TOP/uml/tests/$p" ] || {
		# shellcheck disable=SC2154	# tap.sh's counters
		not_ok "uml/tests/$p is built (make uml-tests)"
		echo "1..$n"; echo "# counts: pass=0 fail=$fail skip=$skip"; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/uml-check.XXXXXX") || exit 2
# UML_CHECK_KEEP=1 keeps the outputs and console logs (the path is printed).
if [ -n "${UML_CHECK_KEEP:-}" ]; then echo "# outputs in $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi

# The busybox section: run in the guest and, for the reference, on this
# host with the same busybox; $T is a scratch folder, nothing printed
# depends on where it is.
cat > "$WORK/busybox.sh" <<'EOF'
cd "$T" || exit 1
echo "arith $((3 * 7)) $(expr 6 \* 7)"
seq 1 1000 | awk '{ s += $1 } END { print "awk sum", s }'
printf 'pear\napple\nfig\napple\n' | sort | uniq -c | sed 's/^ *//'
echo hello world | tr a-z A-Z | sed 's/WORLD/uml/'
mkdir -p d/e
for i in 1 2 3; do echo "file $i" > "d/f$i"; done
echo deep > d/e/g
ls d | tr '\n' ' '; echo
cat d/f* | wc -l
find d | sort
tar -cf d.tar d && mkdir x && tar -C x -xf d.tar && diff -r d x/d && echo "tar round trip ok"
seq 1 20000 | gzip -c | gunzip -c | md5sum
dd if=/dev/zero bs=4096 count=512 2>/dev/null | md5sum
seq 1 3000 | sort -rn | head -n 3 | tr '\n' ' '; echo
yes uml | head -n 2000 | uniq -c | sed 's/^ *//'
head -c 100000 /dev/zero | od -A d | tail -n 2
printf 'root:x:0:0\numl:x:1000:1000\n' | cut -d: -f1,3
date -u -d @0 +%Y-%m-%d
(exit 3); echo "subshell status $?"
sh -c 'kill -TERM $$'; echo "killed shell status $?"
trap 'echo "trapped USR1"' USR1; kill -USR1 $$; trap - USR1
i=0; while [ $i -lt 100 ]; do i=$((i + 1)); /bin/true || break; done; echo "$i execs of true"
i=0; while [ $i -lt 50 ]; do sh -c "exit $((i % 7))"; s=$?; [ $s -eq $((i % 7)) ] || echo "bad status $s"; i=$((i + 1)); done; echo "50 shells"
sleep 0.1 & sleep 0.1 & wait; echo "background jobs waited"
echo a > p1; echo b >> p1; sort -r p1 | tr '\n' ,; echo
ln -s p1 l1 && readlink l1 && cat l1 | wc -c
mv p1 p2 && [ ! -e p1 ] && echo "rename ok"
rm -r d x d.tar p2 l1 && ls | wc -l
EOF

# The guest's workload: the busybox section's script written to /tmp,
# then the sections, each ending with its status.
{
	echo '#!/bin/sh'
	echo "cat > /tmp/busybox.sh <<'BUSYBOX_EOF'"
	cat "$WORK/busybox.sh"
	echo 'BUSYBOX_EOF'
	cat <<'EOF'
mkdir -p /tmp/bb
echo "== busybox"
T=/tmp/bb sh /tmp/busybox.sh
echo "status $?"
for p in forkexec signals faults threads fpu; do
	echo "== $p"
	"/tests/$p"
	echo "status $?"
done
# UML's clock is the host's: the host samples the module's objects in
# this quiet time, when the ended processes must be gone.
echo "== settled"
date +%s
sleep 4
echo "== end"
EOF
} > "$WORK/workload.sh"

# Killed while it works: processes in the background, a busy one, then
# READY; uml/run.sh kills UML's main process when it sees READY.
cat > "$WORK/kill.sh" <<'EOF'
#!/bin/sh
sleep 1000 &
sh -c 'while :; do :; done' &
/tests/threads > /dev/null &
/tests/faults > /dev/null &
sleep 1
echo READY
sleep 1000
EOF

# The reference busybox section, on this host, with busybox's applets
# first on PATH, as in the guest.
mkdir -p "$WORK/native" "$WORK/bin"
for a in $($BB --list); do ln -s "$BB" "$WORK/bin/$a"; done
(cd "$WORK/native" && PATH=$WORK/bin:$PATH T=$WORK/native $BB sh "$WORK/busybox.sh" \
	> "$WORK/native.out" 2>&1; echo "status $?" >> "$WORK/native.out")

# section FILE NAME: the lines of section NAME (without its header).
section() {
	awk -v s="== $2" '$0 == s { on = 1; next } /^== / { on = 0 } on' "$1"
}

# skas_counter NAME: a counter of the module, or -1 without it.
skas_counter() {
	cat "$PARAMS/$1" 2>/dev/null || echo -1
}

# counters_zero: wait up to 10 s for the objects and probes to go.
# shellcheck disable=SC2317	# called through check's eval
counters_zero() {
	for _ in $(seq 50); do
		[ "$(skas_counter objects)" = 0 ] && [ "$(skas_counter probes_registered)" = 0 ] &&
			return 0
		sleep 0.2
	done
	echo "# objects $(skas_counter objects), probes_registered $(skas_counter probes_registered)"
	return 1
}

# The live (not zombie) processes named uml-userspace, UML's stubs:
# "pid state" (busybox has no pgrep).
stubs() {
	for st in /proc/[0-9]*/stat; do
		{ read -r line < "$st"; } 2>/dev/null || continue
		case $line in *"(uml-userspace) "[!Z]*) echo "${line%% *} ${line##*) }" | cut -d' ' -f1,2 ;; esac
	done
}

# Why MODE cannot run here, if it cannot (before booting).
why_not() {
	case $1 in
	skas*)
		if [ ! -e /dev/skas ]; then
			echo "no /dev/skas (skas.ko not loaded)"
		elif ! "$UML" --help 2>/dev/null | grep -q 'skas='; then
			echo "this UML has no skas= parameter (uml/patches not applied)"
		fi ;;
	esac
}

SECTIONS="busybox forkexec signals faults threads fpu"
ref=
for mode in $MODES; do
	case $mode in
	ptrace|seccomp|skas) run=$mode append= ;;
	skas-spin) run=skas append="skas_yield=0 skas_spin=100000" ;;
	*) echo "usage: uml/check.sh [ptrace|seccomp|skas|skas-spin]..." >&2; exit 2 ;;
	esac
	why=$(why_not "$mode")
	if [ -n "$why" ]; then
		skip "$mode: UML boots and runs the workload" "$why"
		continue
	fi
	out=$WORK/$mode.out
	con=$WORK/$mode.console
	# skas: sample the module's counters while UML runs.
	if [ "$run" = skas ]; then
		: > "$WORK/samples"
		(while [ ! -e "$WORK/stop" ]; do echo "$(date +%s) $(skas_counter objects)" >> "$WORK/samples"; sleep 0.2; done) &
		sampler=$!
	fi
	UML_CONSOLE=$con UML_APPEND=$append "$TOP/uml/run.sh" "$run" "$WORK/workload.sh" > "$out" 2> "$WORK/$mode.err"
	rc=$?
	if [ "$run" = skas ]; then
		touch "$WORK/stop"; wait "$sampler"; rm -f "$WORK/stop"
	fi
	if [ "$mode" = seccomp ] && grep -q "SECCOMP userspace requested but not functional" "$con" 2>/dev/null; then
		skip "$mode: UML boots and runs the workload" "UML says seccomp mode is not functional on this host"
		continue
	fi
	if [ $rc -ge 124 ] || ! grep -qx '== end' "$out"; then
		not_ok "$mode: UML boots and runs the workload"
		echo "# uml/run.sh exit $rc"
		sed 's/^/# /' "$WORK/$mode.err" | tail -n 40
		tail -n 20 "$out" | sed 's/^/# guest: /'
		continue
	fi
	ok "$mode: UML boots and runs the workload"
	# The mode UML says it runs in.
	case $mode in
	ptrace)
		check "ptrace: UML runs in ptrace mode" \
			"grep -q 'Checking that ptrace can change system call numbers...OK' '$con' &&
			 ! grep -q 'Checking that seccomp filters can be installed...OK' '$con'" ;;
	seccomp)
		check "seccomp: UML runs in seccomp mode" \
			"grep -q 'Checking that seccomp filters can be installed...OK' '$con'" ;;
	skas*)
		max=$(cut -d " " -f 2 "$WORK/samples" | sort -n | tail -n 1)
		check "$mode: UML's processes ran on skas.ko (objects up to ${max:-none})" \
			"[ '${max:-0}' -gt 0 ]"
		# A few processes live then (init's shell, sleep, the
		# template: 2 objects each); the hundreds that ended in the
		# workload must have left the module with UML still running.
		t0=$(section "$out" settled)
		case $t0 in '' | *[!0-9]*) t0=0 ;; esac
		quiet=$(awk -v a="$((t0 + 1))" -v b="$((t0 + 3))" '$1 >= a && $1 <= b { print $2 }' "$WORK/samples" |
			sort -n | tail -n 1)
		check "$mode: ended processes leave the module while UML runs (objects ${quiet:-not sampled} once quiet)" \
			"[ -n '$quiet' ] && [ '$quiet' -le 40 ]" ;;
	esac
	# Each section: the reference's checks, or the same as the reference.
	for s in $SECTIONS; do
		section "$out" "$s" > "$WORK/$mode.$s"
		if [ -z "$ref" ]; then
			if [ "$s" = busybox ]; then
				if cmp -s "$WORK/native.out" "$WORK/$mode.$s"; then
					ok "$mode: $s, the same as on the host"
				else
					not_ok "$mode: $s, the same as on the host"
					diff "$WORK/native.out" "$WORK/$mode.$s" | head -n 30 | sed 's/^/# /'
				fi
			elif grep -qx 'status 0' "$WORK/$mode.$s" && ! grep -q ': FAIL' "$WORK/$mode.$s"; then
				ok "$mode: $s"
			else
				not_ok "$mode: $s"
				sed 's/^/# /' "$WORK/$mode.$s"
			fi
		elif cmp -s "$WORK/$ref.$s" "$WORK/$mode.$s" && grep -qx 'status 0' "$WORK/$mode.$s" &&
		     ! grep -q ': FAIL' "$WORK/$mode.$s"; then
			ok "$mode: $s, the same as in $ref mode"
		else
			not_ok "$mode: $s, the same as in $ref mode"
			diff "$WORK/$ref.$s" "$WORK/$mode.$s" | head -n 30 | sed 's/^/# /'
		fi
	done
	[ -z "$ref" ] && ref=$mode
	# Nothing of UML is left (uml/run.sh looks at UML's session; in the
	# VM, nothing else runs UML: no stub at all may be left).
	if [ $rc -ne 125 ]; then
		ok "$mode: no process of UML left after it powered off"
	else
		not_ok "$mode: no process of UML left after it powered off"
	fi
	if [ -e /dev/skas ] && [ -d /host ]; then
		check "$mode: no uml-userspace stub left" "[ -z \"\$(stubs)\" ]" ||
			stubs | sed 's/^/# stub left: /'
	fi
	[ "$run" = skas ] && check "$mode: the module's objects and probes back to 0" counters_zero
	# SIGKILL while the guest works.
	if UML_KILL_ON=READY UML_APPEND=$append \
		"$TOP/uml/run.sh" "$run" "$WORK/kill.sh" > "$WORK/$mode.kill" 2>&1; then
		ok "$mode: SIGKILL of UML leaves no process"
	else
		not_ok "$mode: SIGKILL of UML leaves no process"
		tail -n 30 "$WORK/$mode.kill" | sed 's/^/# /'
	fi
	[ "$run" = skas ] && check "$mode: objects and probes back to 0 after SIGKILL" counters_zero
done

# Bad values of the skas parameters: UML must refuse them before it boots,
# with the reason, and leave nothing behind.
# bad_param WHAT EXPECTED PARAMETERS...
bad_param() {
	what=$1 expect=$2
	shift 2
	out=$(cd "$WORK" && timeout 60 "$UML" mem=64M "$@" 2>&1 < /dev/null)
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 124 ] && printf '%s\n' "$out" | grep -qF -- "$expect"; then
		ok "skas parameters: $what"
	else
		not_ok "skas parameters: $what"
		echo "# exit $rc, expected '$expect':"
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/# /'
	fi
}
why=$(why_not skas)
case " $MODES " in *" skas"*) ;; *) why="skas mode not asked for" ;; esac
if [ -n "$why" ]; then
	skip "skas parameters: bad values are refused" "$why"
else
	bad_param "skas_yield=2 is refused" "Invalid skas_yield option '2'" skas=on skas_yield=2
	bad_param "skas_spin=fast is refused" "Invalid skas_spin option 'fast'" skas=on skas_spin=fast
	bad_param "skas_spin=-1 is refused" "Invalid skas_spin option '-1'" skas=on skas_spin=-1
	bad_param "skas_spin beyond the module's limit is refused" \
		"skas_spin is longer than the module allows ($(cat "$PARAMS/spin_max_ns" 2>/dev/null))" \
		skas=on skas_spin=$(( $(cat "$PARAMS/spin_max_ns" 2>/dev/null || echo 0) + 1 ))
	check "skas parameters: no stub left after the refusals" "[ -z \"\$(stubs)\" ]"
	check "skas parameters: the module's objects and probes back to 0" counters_zero
fi
echo "1..$n"
echo "# counts: pass=$((n - fail - skip)) fail=$fail skip=$skip"
[ "$fail" -eq 0 ] || exit 1
[ $((n - skip)) -gt 0 ] || exit 4
exit 0
