#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build User-Mode Linux: Debian's linux-source-7.3 (trixie-backports, via
# qemu/fetch-kernels.sh's private apt state), uml/patches/*.patch applied
# in name order with `patch -p1`, ARCH=um defconfig merged with uml/config,
# the `linux` binary only.  Cached in $SKAS_CACHE/uml/KEY/, KEY a hash of
# the source version, the patches (names and contents), uml/config and
# this script; prints the binary's path on stdout, everything else goes
# to stderr and to $SKAS_CACHE/uml/KEY/build.log.
#
# Usage: uml/build.sh            build unless cached; print the path
#        uml/build.sh --cached   print the path if the current key is
#                                built, else exit 1 (never builds, never
#                                touches the network: the key uses the
#                                source version already fetched)
#
# The patched tree is a hard-linked copy of the cached source
# ($SKAS_CACHE/uml/work/src, the files the patches touch copied for real
# first) built with O=$SKAS_CACHE/uml/work/obj, which the next key reuses:
# a change to the patches rebuilds only what they touch (every file a
# patch of the old or new series names gets a fresh copy and mtime).
set -euo pipefail
shopt -s nullglob

SERIES=7.3
SUITE=trixie-backports
# Bump when the layout of $SKAS_CACHE/uml/KEY changes.
LAYOUT=1
# How many built keys to keep (the newest).
KEEP=3

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${SKAS_CACHE:-$HOME/.cache/skas}
src=$CACHE/source/$SERIES
base=$CACHE/uml

usage() { echo "usage: uml/build.sh [--cached]" >&2; exit 2; }
cached=
case $# in
0) ;;
1) [ "$1" = --cached ] || usage; cached=1 ;;
*) usage ;;
esac

# The series, in name order (the C locale's, whatever the caller's).
patches=()
while IFS= read -r p; do patches+=("$p"); done < <(
	for p in "$here"/patches/*.patch; do echo "$p"; done | LC_ALL=C sort)

key() {
	{
		echo "layout $LAYOUT"
		cat "$src/version"
		for p in "${patches[@]}"; do
			echo "== patch ${p##*/}"
			cat "$p"
		done
		echo "== config"; cat "$here/config"
		echo "== uapi"; cat "$here/../uapi/linux/skas.h"
		echo "== build.sh"; cat "$here/build.sh"
	} | sha256sum | cut -c1-16
}

built() {	# built KEY: that key's binary is complete
	[ -f "$base/$1/key" ] && [ "$(cat "$base/$1/key")" = "$1" ] && [ -x "$base/$1/linux" ]
}

if [ -n "$cached" ]; then
	[ -f "$src/version" ] && [ -f "$src/linux/Makefile" ] || exit 1
	k=$(key)
	built "$k" || exit 1
	echo "$base/$k/linux"
	exit 0
fi

"$here/../qemu/fetch-kernels.sh" "source-$SERIES@$SUITE"
k=$(key)
mkdir -p "$base"
exec 9>"$CACHE/.uml-build.lock"
flock 9
if built "$k"; then
	echo "$base/$k/linux"
	exit 0
fi

# The files a patch names (git's diff headers, renames and copies too).
patched_files() {
	sed -n -e 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|\1\n\2|p' \
		-e 's|^--- a/\([^[:space:]]*\).*|\1|p' -e 's|^+++ b/\([^[:space:]]*\).*|\1|p' \
		-e 's/^\(rename\|copy\) \(from\|to\) //p' "$@" | LC_ALL=C sort -u
}

out=$base/$k
work=$base/work
ver=$(cat "$src/version")
rm -rf "$out"
mkdir -p "$out"
log=$out/build.log
start=$(date +%s)
echo "uml: building linux-source-$SERIES $ver, ${#patches[@]} patch(es) (key $k), log in $log" >&2
{
	set -x
	# A new source version: nothing of the old tree is reused.
	if [ "$(cat "$work/version" 2>/dev/null)" != "$ver" ] || [ ! -f "$work/src/Makefile" ]; then
		rm -rf "$work"
		mkdir -p "$work/obj"
		cp -al "$src/linux" "$work/src"
		: > "$work/patched-files"
		echo "$ver" > "$work/version"
	fi
	# Back to the pristine source for every file the last series or this
	# one touches: a real copy (the patches must not write through a hard
	# link into the cached source), with a new mtime so that make
	# rebuilds what depends on it.  Recorded first, so that a failed
	# patch is undone next time too.
	new=$(patched_files /dev/null "${patches[@]}")
	printf '%s\n' "$new" | cat - "$work/patched-files" | sed '/^$/d' | LC_ALL=C sort -u > "$work/patched-files.new"
	mv "$work/patched-files.new" "$work/patched-files"
	while IFS= read -r f; do
		case $f in /*|*..*) echo "uml: bad path in a patch: $f"; exit 1 ;; esac
		rm -f "$work/src/$f"
		if [ -e "$src/linux/$f" ]; then cp "$src/linux/$f" "$work/src/$f"; fi
	done < "$work/patched-files"
	for p in "${patches[@]}"; do
		echo "uml: applying ${p##*/}"
		patch -p1 -d "$work/src" --batch --forward --no-backup-if-mismatch < "$p"
	done
	printf '%s\n' "$new" | sed '/^$/d' > "$work/patched-files"
	# The series carries a copy of the module's ABI header: it must be
	# this tree's uapi/linux/skas.h (but for the include guard).
	abi=$work/src/arch/um/include/shared/skas/skas-uapi.h
	if [ -f "$abi" ] && ! diff -u "$here/../uapi/linux/skas.h" \
		<(sed 's/__UM_SKAS_UAPI_H/_UAPI_LINUX_SKAS_H/' "$abi"); then
		echo "uml: the series' skas-uapi.h is not uapi/linux/skas.h"; exit 1
	fi

	make -C "$work/src" ARCH=um O="$work/obj" defconfig
	"$work/src/scripts/kconfig/merge_config.sh" -m -O "$work/obj" \
		"$work/obj/.config" "$here/config"
	make -C "$work/src" ARCH=um O="$work/obj" olddefconfig
	# Fail loudly if an option asked for did not survive Kconfig.
	for opt in $(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=y$/\1/p' "$here/config"); do
		grep -q "^CONFIG_$opt=y" "$work/obj/.config" ||
			{ echo "uml: CONFIG_$opt did not stick"; exit 1; }
	done
	for opt in $(sed -n 's/^# CONFIG_\([A-Z0-9_]*\) is not set$/\1/p' "$here/config"); do
		! grep -q "^CONFIG_$opt=[ym]" "$work/obj/.config" ||
			{ echo "uml: CONFIG_$opt is still set"; exit 1; }
	done
	make -C "$work/src" ARCH=um O="$work/obj" -j"$(nproc)" linux
	set +x
} > "$log" 2>&1 || { tail -n 40 "$log" >&2; echo "uml: build failed, log in $log" >&2; exit 1; }
cp "$work/obj/linux" "$out/linux.tmp"
cp "$work/obj/.config" "$out/config"
make -s -C "$work/src" ARCH=um O="$work/obj" kernelrelease > "$out/version"
echo "$ver" > "$out/source-version"
for p in "${patches[@]}"; do echo "${p##*/}"; done > "$out/patches"
echo "$(( $(date +%s) - start ))" > "$out/build-seconds"
mv "$out/linux.tmp" "$out/linux"
echo "$k" > "$out/key"
echo "uml: built in $(cat "$out/build-seconds") s" >&2
# Keep the newest $KEEP builds.
for old in $(ls -dt "$base"/*/key 2>/dev/null | tail -n +$((KEEP + 1))); do
	rm -rf "$(dirname "$old")"
done
echo "$out/linux"
