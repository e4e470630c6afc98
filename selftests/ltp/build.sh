#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build LTP's syscalls suite, statically, once into the cache:
#   $SKAS_CACHE (or ~/.cache/skas)/ltp/<version>-<sha256 prefix of the tarball>/
# with install/testcases/bin (the binaries, stripped), install/runtest/syscalls,
# install/programs.txt (each program's source folder) and a .done stamp.  A new tarball (another name or content) gets a new directory.
# Prints DIR/install (what run.sh takes as LTP_DIR) on stdout; the build log is build.log next to it.
#
#   selftests/ltp/build.sh [--only LIST] [TARBALL]
#                       (default TARBALL: ../shared/ltp/ltp-*.tar.xz)
# --only LIST: only the source folders of the tests named in file LIST
# (check.list's format), into DIR-only-<sha256 prefix of LIST>, about 2
# minutes instead of 8 on 2 cores; where the whole suite is built already,
# that is what it prints.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
only=
if [ "${1-}" = --only ]; then
	only=$(realpath "${2:?--only needs a list}")
	shift 2
fi
tarball=${1:-${LTP_TARBALL:-}}
if [ -z "$tarball" ]; then
	for t in "$top"/../shared/ltp/ltp-*.tar.xz /work/shared/ltp/ltp-*.tar.xz; do
		[ -f "$t" ] && { tarball=$t; break; }
	done
fi
[ -n "$tarball" ] && [ -f "$tarball" ] || { echo "ltp: no LTP tarball (give one, or LTP_TARBALL=)" >&2; exit 1; }
cache=${SKAS_CACHE:-$HOME/.cache/skas}
name=$(basename "$tarball" .tar.xz)
sum=$(sha256sum "$tarball" | cut -c1-12)
dir=$cache/ltp/$name-$sum
if [ -f "$dir/.done" ]; then
	echo "$dir/install"
	exit 0
fi
[ -z "$only" ] || dir=$dir-only-$(sha256sum "$only" | cut -c1-12)
if [ -f "$dir/.done" ]; then
	echo "$dir/install"
	exit 0
fi

# The build packages (as qemu/deps.sh does for the harness's).
pkgs=(make gcc libc6-dev autoconf automake libtool m4 pkg-config bison flex xz-utils)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "ltp: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
		exit 1
	fi
	echo "ltp: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$cache/ltp"
exec 9>"$cache/ltp/.lock"
flock 9
if [ -f "$dir/.done" ]; then	# built while we waited for the lock
	echo "$dir/install"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
jobs=${JOBS:-2}
log=$dir/build.log
echo "ltp: building $name into $dir (about 5 minutes on 2 cores; log: $log)" >&2
start=$(date +%s)
(
	set -e
	cd "$dir"
	tar -xJf "$tarball"
	src=$(find . -mindepth 1 -maxdepth 1 -type d | head -n1)
	mv "$src" src
	cd src
	make autotools
	./configure --prefix="$dir/install" LDFLAGS=-static --without-tirpc
	make -C lib -j"$jobs"
	# The folders to build: all, or those of LIST's tests' programs
	# (a test's program is its runtest line's second word; PROG_64 is
	# PROG.c built with 64-bit offsets).
	cd testcases/kernel/syscalls
	if [ -z "$only" ]; then
		folders=.
	else
		folders=$(awk 'FILENAME != "-" { if ($0 !~ /^[ \t]*#/) prog[$1] = $2; next }
			     { sub(/#.*/, "") } NF { print ($1 in prog) ? prog[$1] : $1 }' \
			../../../runtest/syscalls - < "$only" |
			while read -r prog; do
				f=$(find . -mindepth 2 -maxdepth 2 \( -name "$prog.c" -o -name "${prog%_64}.c" \) | head -n 1)
				[ -n "$f" ] && dirname "$f" || echo "ltp: no source for $prog" >&2
			done | sort -u)
	fi
	# -k: a handful of tests do not build statically (or against these
	# headers); they are simply missing and the runner reports them so.
	for f in $folders; do
		make -C "$f" -j"$jobs" -k || true
		make -C "$f" -k install || true
	done
	mkdir -p "$dir/install/runtest"
	cp ../../../runtest/syscalls "$dir/install/runtest/"
	# Which programs share a source folder (a test and the helpers it
	# runs): "FOLDER PROGRAM" lines, for ltp.sh to stage a subset.
	find . -mindepth 2 -maxdepth 2 -type f -perm -u+x -printf '%h %f\n' |
		sed 's|^\./||' | sort > "$dir/install/programs.txt"
	# Stripped, the suite is 1.8 GB instead of 2.8, and the sources
	# and objects (3 GB) are not needed any more.
	find "$dir/install/testcases/bin" -type f -perm -u+x -exec sh -c \
		'for f; do head -c4 "$f" | grep -q ELF && strip "$f"; done; true' sh {} +
	cd "$dir"
	rm -rf src
) >"$log" 2>&1 || { echo "ltp: build failed, see $log" >&2; exit 1; }
n=$(find "$dir/install/testcases/bin" -type f -perm -u+x 2>/dev/null | wc -l)
[ "$n" -gt "$([ -n "$only" ] && echo 20 || echo 1000)" ] ||
	{ echo "ltp: only $n binaries built, see $log" >&2; exit 1; }
echo "$name $sum: $n binaries in $(($(date +%s) - start)) s" >"$dir/.done"
echo "ltp: $n binaries in $(($(date +%s) - start)) s" >&2
echo "$dir/install"
