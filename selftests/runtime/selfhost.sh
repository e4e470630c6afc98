#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# umlrun builds this project's own user space (libuml and umlrun) with the
# host's make and gcc inside the guest, and every object, archive and
# binary is bit-identical to the native build of the same tree in the same
# folder (debug info names the folder).  TAP; skips where the host has no
# gcc or make (the VM's root is busybox).
#
# Usage: selfhost.sh BACKEND [UMLRUN OPTIONS...]
B=${1:-ptrace}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
UMLRUN=${UMLRUN:-$TOP/guest-runtime/umlrun}
echo "TAP version 13"
echo "1..1"
name="self-hosting: libuml and umlrun built in the guest ($B) are bit-identical"
for p in /usr/bin/make /usr/bin/gcc /usr/bin/ar; do
	if [ ! -x "$p" ]; then
		echo "ok 1 - $name # SKIP no $p here"
		exit 4
	fi
done
W=$(mktemp -d "${TMPDIR:-/tmp}/selfhost.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
{ echo VERSION; find libuml guest-runtime uapi -type f \( -name '*.[chS]' \
	-o -name Makefile -o -name '*.def' -o -name '*.sh' -o -name '*.map' \); } |
	cpio -pdm --quiet "$W/src"
build() {
	$1 make -s -j2 -C "$W/src/libuml" > "$W/log" 2>&1 &&
		$1 make -s -j2 -C "$W/src/guest-runtime" >> "$W/log" 2>&1
}
products() {
	(cd "$W/src" && find . \( -name '*.o' -o -name '*.a' -o -name '*.elf' \
		-o -name 'libuml.so.*' -o -name umlrun \) -type f | sort)
}
clean() {
	make -s -C "$W/src/libuml" clean && make -s -C "$W/src/guest-runtime" clean
}
if ! build ""; then
	echo "not ok 1 - $name # the native build failed"
	sed 's/^/# /' "$W/log" | tail -20
	exit 1
fi
mkdir "$W/native"
(cd "$W/src" && products | cpio -pdm --quiet "$W/native")
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
if [ "$n" -gt 20 ] && [ "$bad" -eq 0 ] && [ "$(products | wc -l)" -eq "$n" ]; then
	echo "ok 1 - $name ($n files)"
	exit 0
fi
echo "not ok 1 - $name ($bad of $n files differ)"
exit 1
