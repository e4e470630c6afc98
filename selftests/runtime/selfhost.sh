#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# umlrun builds this project's own user space (libuml and umlrun) with the
# host's make and gcc inside the guest, and every object, archive and
# binary is bit-identical to the native build of the same tree in the same
# folder (debug info names the folder).  TAP; skips where the host has no
# gcc or make.  In the VM, make and gcc are the host's (its /usr), and the
# sources come from the host's tree through /host (the VM's copy of the
# tree has no sources): vm-test.sh names it in skas_host_tree.
#
# Usage: selfhost.sh BACKEND [--only=libuml] [UMLRUN OPTIONS...]
#   --only=libuml  build libuml only (10 products, not 32: make check's
#                  VM run, Documentation/testing.rst), unless the
#                  environment has skas_selfhost=full (make selfhost-vm
#                  puts it on the VM's kernel command line)
B=${1:-ptrace}
[ $# -gt 0 ] && shift
parts="libuml guest-runtime" least=21
case ${1:-} in
--only=libuml)
	[ "${skas_selfhost:-}" = full ] || { parts=libuml least=10; }
	shift ;;
--only=*) echo "selfhost.sh: --only=libuml is the only part" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
UMLRUN=${UMLRUN:-$TOP/guest-runtime/umlrun}
SRC=$TOP
if [ -n "${skas_host_tree:-}" ]; then
	SRC=/host$skas_host_tree
	# The host's tools, not busybox's applets (ar...) that come first
	# on the VM's PATH.
	PATH=/usr/bin:$PATH
fi
echo "TAP version 13"
echo "1..1"
if [ "$parts" = libuml ]; then
	name="self-hosting: libuml built in the guest ($B) is bit-identical"
else
	name="self-hosting: libuml and umlrun built in the guest ($B) are bit-identical"
fi
if [ ! -f "$SRC/libuml/Makefile" ]; then
	echo "not ok 1 - $name # no sources in $SRC"
	exit 1
fi
for p in /usr/bin/make /usr/bin/gcc /usr/bin/ar; do
	if [ ! -x "$p" ]; then
		echo "ok 1 - $name # SKIP no $p here"
		exit 4
	fi
done
W=$(mktemp -d "${TMPDIR:-/tmp}/selfhost.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
# (tar, not cpio -p: busybox's cpio, the VM's, has no -p)
mkdir "$W/src" "$W/native"
(cd "$SRC" && tar cf - VERSION $(find libuml guest-runtime uapi -type f \( -name '*.[chS]' \
	-o -name Makefile -o -name '*.def' -o -name '*.sh' -o -name '*.map' \))) |
	tar xf - -C "$W/src"
build() {
	: > "$W/log"
	for part in $parts; do
		$1 make -s -j2 -C "$W/src/$part" >> "$W/log" 2>&1 || return 1
	done
}
products() {
	(cd "$W/src" && find . \( -name '*.o' -o -name '*.a' -o -name '*.elf' \
		-o -name 'libuml.so.*' -o -name umlrun \) -type f | sort)
}
clean() {
	for part in $parts; do
		make -s -C "$W/src/$part" clean || return 1
	done
}
if ! build ""; then
	echo "not ok 1 - $name # the native build failed"
	sed 's/^/# /' "$W/log" | tail -20
	exit 1
fi
(cd "$W/src" && tar cf - $(products)) | tar xf - -C "$W/native"
clean > /dev/null
if ! build "timeout 900 $UMLRUN --backend=$B --rw $*"; then
	echo "not ok 1 - $name # the guest's build failed"
	sed 's/^/# /' "$W/log" | tail -20
	exit 1
fi
n=0 bad=0
for f in $(cd "$W/native" && find . -type f | sort); do
	n=$((n + 1))
	cmp -s "$W/native/$f" "$W/src/$f" || { bad=$((bad + 1)); echo "# differs: $f"; }
done
if [ "$n" -ge "$least" ] && [ "$bad" -eq 0 ] && [ "$(products | wc -l)" -eq "$n" ]; then
	echo "ok 1 - $name ($n files)"
	exit 0
fi
echo "not ok 1 - $name ($bad of $n files differ)"
exit 1
