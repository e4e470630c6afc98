#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Boot User-Mode Linux on a busybox root and run one script in it.
#
# Usage: uml/run.sh MODE SCRIPT
#   MODE    ptrace (seccomp=off), seccomp (seccomp=on) or skas (skas=on,
#           which needs /dev/skas: the skas.ko module loaded)
#   SCRIPT  a host file, run as /script by the guest's init, with
#           PATH=/bin:/tests; its stdout and stderr are printed here
#           once UML has ended
#
# The root is a fresh host folder (hostfs: root=/dev/root rootfstype=hostfs
# rootflags=DIR rw) holding the static busybox with its applet links, the
# programs of uml/tests in /tests, SCRIPT and an init that mounts /proc,
# /sys and a tmpfs on /tmp, runs SCRIPT with its output in /output (a host
# file: no kernel message mixes with it), prints "UML-RUN-END STATUS" on
# the console and powers off (busybox poweroff -f: UML exits).
#
# Environment:
#   UML          the binary (default: uml/build.sh --cached's)
#   UML_TIMEOUT  seconds before UML counts as hung and is killed (300)
#   UML_MEM      the guest's memory (128M)
#   UML_APPEND   more kernel parameters
#   UML_CONSOLE  a file to copy UML's console log (the kernel log) to
#   UML_EXTRA    a host folder whose contents are copied to /extra
#   UML_KILL_ON  TEXT: once the guest's output holds TEXT, SIGKILL UML's
#                main process (not its children) and pass if every
#                process of UML is gone within 10 s; nothing else is
#                judged then
#
# Exit status: SCRIPT's; 124 if UML hung (killed after UML_TIMEOUT);
# 125 if UML failed: a panic, an oops, BUG or WARNING on the console, no
# end marker, a non-zero exit of UML itself, or a process of UML still
# there after it ended (UML runs in a session of its own; each is listed
# and killed).  Reasons go to stderr with the end of the console log.
BB=/bin/busybox
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)

usage() { echo "usage: uml/run.sh ptrace|seccomp|skas SCRIPT" >&2; exit 2; }
[ $# -eq 2 ] || usage
case $1 in
ptrace) mode_param=seccomp=off ;;
seccomp) mode_param=seccomp=on ;;
skas) mode_param=skas=on ;;
*) usage ;;
esac
mode=$1
script=$2
[ -r "$script" ] || { echo "uml/run.sh: cannot read $script" >&2; exit 2; }
[ -x "$BB" ] || { echo "uml/run.sh: no static busybox at $BB" >&2; exit 2; }
if [ -z "${UML:-}" ]; then
	UML=$("$top/uml/build.sh" --cached) ||
		{ echo "uml/run.sh: no UML binary: set UML= or build it (make uml)" >&2; exit 2; }
fi
[ -x "$UML" ] || { echo "uml/run.sh: $UML is not executable" >&2; exit 2; }
tmo=${UML_TIMEOUT:-300}
mem=${UML_MEM:-128M}

work=$(mktemp -d "${TMPDIR:-/tmp}/uml-run.XXXXXX") || exit 2
work=$(cd "$work" && pwd)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/etc" \
	"$root/root" "$root/tests" "$work/tmp"
cp "$BB" "$root/bin/busybox"
for applet in $("$BB" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
for f in "$top"/uml/tests/*; do
	case $f in *.c|*.h|*/Makefile) continue ;; esac
	[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$root/tests/"
done
if [ -n "${UML_EXTRA:-}" ]; then
	mkdir -p "$root/extra" && cp -a "$UML_EXTRA"/. "$root/extra/" || exit 2
fi
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
cp "$script" "$root/script"
chmod +x "$root/script"
cat > "$root/init" <<'EOF'
#!/bin/sh
PATH=/bin:/tests
HOME=/root
export PATH HOME
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /tmp
cd /
/script > /output 2>&1 < /dev/null
st=$?
sync
echo "UML-RUN-END $st"
poweroff -f
EOF
chmod +x "$root/init"
: > "$root/output"

console=$work/console.log
# A session of its own (setsid execs UML itself: this shell has no job
# control, so the background child is no group leader): every process
# UML makes is found by its session afterwards.
# shellcheck disable=SC2086
TMPDIR=$work/tmp setsid "$UML" mem="$mem" root=/dev/root rootfstype=hostfs \
	rootflags="$root" rw init=/init con=null con0=null,fd:1 \
	uml_dir="$work/tmp" "$mode_param" ${UML_APPEND:-} > "$console" 2>&1 < /dev/null &
pid=$!

# The processes of session $1 that are not zombies: "pid comm state".
session_procs() {
	for st in /proc/[0-9]*/stat; do
		{ read -r line < "$st"; } 2>/dev/null || continue
		p=${line%% *}
		comm=${line#*(}; comm=${comm%)*}
		# shellcheck disable=SC2086	# the fields after "(comm) "
		set -- ${line##*) }
		[ "$4" = "$sid" ] && [ "$1" != Z ] && echo "$p $comm $1"
	done
}

sid=$pid
start=$(date +%s)
hung=
killed=
while kill -0 "$pid" 2>/dev/null; do
	if [ -n "${UML_KILL_ON:-}" ] && [ -z "$killed" ] &&
	   grep -qF -- "$UML_KILL_ON" "$root/output"; then
		kill -KILL "$pid"
		killed=1
	fi
	if [ $(( $(date +%s) - start )) -ge "$tmo" ]; then
		hung=1
		kill -KILL -- "-$sid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
		break
	fi
	sleep 0.2
done
wait "$pid"
rc=$?
secs=$(( $(date +%s) - start ))

# Whatever UML left: its stubs die with it (PR_SET_PDEATHSIG), so wait up
# to 10 s for them to go, then list and kill them.
left=
for _ in $(seq 50); do
	left=$(session_procs)
	[ -z "$left" ] && break
	sleep 0.2
done
if [ -n "$left" ]; then
	for p in $(echo "$left" | cut -d' ' -f1); do kill -KILL "$p" 2>/dev/null; done
fi

# The console is a tty: CRLF line ends.
tr -d '\r' < "$console" > "$console.txt" && mv "$console.txt" "$console"
[ -n "${UML_CONSOLE:-}" ] && cp "$console" "$UML_CONSOLE"
cat "$root/output"

fail() {
	echo "uml/run.sh: $mode: $*" >&2
	tail -n 30 "$console" | sed 's/^/uml console: /' >&2
}
leftovers() {
	[ -z "$left" ] && return 1
	echo "uml/run.sh: $mode: processes of UML left after it ended (killed now):" >&2
	echo "$left" | sed 's/^/uml left: /' >&2
	return 0
}
if [ -n "$killed" ]; then
	leftovers && exit 125
	exit 0
fi
if [ -n "$hung" ]; then
	fail "UML did not finish in ${tmo}s: killed (hang)"
	leftovers
	exit 124
fi
status=$(sed -n 's/^UML-RUN-END \([0-9]*\)$/\1/p' "$console" | tail -n 1)
bad='Kernel panic|BUG:|WARNING:|Oops|general protection|Segmentation fault'
if grep -Eq "$bad" "$console"; then
	fail "the kernel log has a panic, oops, BUG or WARNING (UML exit $rc after ${secs}s):"
	grep -En "$bad" "$console" | head -n 10 | sed 's/^/uml bad: /' >&2
	leftovers
	exit 125
fi
if [ -z "$status" ]; then
	fail "no end marker: the guest's init did not finish (UML exit $rc after ${secs}s)"
	leftovers
	exit 125
fi
if [ "$rc" -ne 0 ]; then
	fail "UML exited with status $rc after powering off"
	leftovers
	exit 125
fi
leftovers && exit 125
exit "$status"
