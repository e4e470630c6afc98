#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's newest 6.1 and 6.12 amd64 kernel images and headers into the
# cache, unpacked with dpkg -x (no postinst: no initramfs-tools, no dkms).
# Package names are resolved at run time because security updates change the
# ABI suffix (6.1.0-NN, 6.12.NNN+deb12).
#
# Usage: fetch-kernels.sh [6.1|6.12|source-6.12|source-6.1|source-SERIES@SUITE]...
#   source-SERIES@SUITE fetches linux-source-SERIES from the Debian suite
#   SUITE (source-7.3@trixie-backports for User-Mode Linux, uml/build.sh)
#   through a private apt state in $SKAS_CACHE/apt/SUITE: the system's
#   sources and lists are neither read for it nor changed.
# Prints nothing on success; the results live in $SKAS_CACHE/kernels/<series>/:
#   vmlinuz      the boot image
#   build/       the headers tree, usable as KDIR
#   version      the exact uname -r
#   modules/     the few modules the VM loads to mount the host's / over
#                virtio-9p, uncompressed, and modules/order: their file
#                names in load order (dependencies first)
#   layout       LAYOUT below: a cache entry written by an older script
#                (another layout) is fetched again
set -euo pipefail

# Bump when the files above change, so that existing caches refetch.
LAYOUT=2
# The modules the VM needs for /host and /scratch (qemu/init.c), with
# their dependencies from modules.dep; those built into a kernel are
# simply not found (6.12 builds virtio_pci in, 6.1 has it as a module).
VM_MODULES="9p 9pnet_virtio virtio_pci"

CACHE=${SKAS_CACHE:-$HOME/.cache/skas}
mkdir -p "$CACHE"
exec 9>"$CACHE/.fetch.lock"
flock 9

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return
	# apt-cache finds nothing (or an old list) before an update.
	if [ ! -d /var/lib/apt/lists ] || [ -z "$(find /var/lib/apt/lists -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
		apt-get update -qq >&2
	fi
	apt_updated=1
}

# newest NAME matching an extended regex among the known packages
newest() {
	apt-cache pkgnames | grep -E "^$1\$" | sort -V | tail -n 1
}

download() {	# download [-o OPT]... PKG... into $1
	local dir=$1 opts=(); shift
	while [ "${1:-}" = -o ]; do opts+=("$1" "$2"); shift 2; done
	mkdir -p "$dir"
	(cd "$dir" && apt-get "${opts[@]}" download -qq "$@" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
	for p in "$@"; do
		ls "$dir/${p}_"*.deb >/dev/null 2>&1 || { echo "fetch-kernels: could not download $p" >&2; exit 1; }
	done
}

# keep_modules TMP VER: copy VM_MODULES and what they depend on (modinfo's
# depends=: the packages ship no modules.dep, depmod makes it at install)
# from the unpacked image to TMP/modules, uncompressed, and list them in
# load order.
keep_modules() {
	local tmp=$1 ver=$2 mdir m
	mdir=$tmp/root/lib/modules/$ver
	[ -f "$mdir/modules.order" ] || mdir=$tmp/root/usr/lib/modules/$ver
	[ -f "$mdir/modules.order" ] || { echo "fetch-kernels: no modules.order in the $ver image" >&2; exit 1; }
	mkdir -p "$tmp/modules"
	: > "$tmp/modules/order"
	declare -A seen=()
	# add NAME: its dependencies first (depth first), then itself; a
	# name not among the image's modules is built in (or absent: the
	# check below catches a missing 9p).
	add() {
		local name=${1//-/_} path file d
		[ -n "${seen[$name]:-}" ] && return
		seen[$name]=1
		path=$(awk -v n="$name" '{ b = $0; sub(/.*\//, "", b); sub(/\.ko$/, "", b);
			gsub(/-/, "_", b); if (b == n) { print; exit } }' "$mdir/modules.order")
		[ -n "$path" ] || return 0
		file=$(ls "$mdir/$path"* 2>/dev/null | head -n 1)
		[ -n "$file" ] || { echo "fetch-kernels: $path listed but not shipped" >&2; exit 1; }
		case $file in
		*.ko.xz) xz -dc "$file" ;;
		*.ko.zst) zstd -qdc "$file" ;;
		*.ko.gz) gzip -dc "$file" ;;
		*.ko) cat "$file" ;;
		*) echo "fetch-kernels: unknown module file $file" >&2; exit 1 ;;
		esac > "$tmp/modules/$name.ko"
		for d in $(PATH=$PATH:/sbin:/usr/sbin modinfo -F depends "$tmp/modules/$name.ko" | tr , ' '); do
			add "$d"
		done
		echo "$name.ko" >> "$tmp/modules/order"
	}
	for m in $VM_MODULES; do
		add "$m"
	done
	grep -q '^9p\.ko$' "$tmp/modules/order" ||
		{ echo "fetch-kernels: 9p.ko not found in the $ver image" >&2; exit 1; }
}

fetch_series() {
	local series=$1 img hdr ver dir tmp
	apt_update
	case $series in
	6.1)  img=$(newest 'linux-image-6\.1\.0-[0-9]+-amd64-unsigned') ;;
	6.12) img=$(newest 'linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned') ;;
	*) echo "fetch-kernels: unknown series $series" >&2; exit 2 ;;
	esac
	[ -n "$img" ] || { echo "fetch-kernels: no Debian $series kernel image found (apt-get update?)" >&2; exit 1; }
	ver=${img#linux-image-}; ver=${ver%-unsigned}
	dir=$CACHE/kernels/$series
	if [ -f "$dir/version" ] && [ "$(cat "$dir/version")" = "$ver" ] && [ -f "$dir/vmlinuz" ] &&
	   [ -f "$dir/build/Makefile" ] && [ "$(cat "$dir/layout" 2>/dev/null)" = "$LAYOUT" ]; then
		return
	fi
	hdr=linux-headers-$ver
	local common kbuild
	common=$(apt-cache depends "$hdr" | sed -n 's/^ *Depends: \(linux-headers-.*-common\)$/\1/p' | head -n 1)
	kbuild=$(apt-cache depends "$hdr" "$common" | sed -n 's/^ *Depends: \(linux-kbuild-[^ ]*\)$/\1/p' | head -n 1)
	[ -n "$common" ] && [ -n "$kbuild" ] || { echo "fetch-kernels: cannot resolve dependencies of $hdr" >&2; exit 1; }
	echo "fetch-kernels: $img $hdr $common $kbuild" >&2
	tmp=$CACHE/kernels/.$series.tmp
	rm -rf "$tmp"; mkdir -p "$tmp/debs" "$tmp/root"
	download "$tmp/debs" "$img" "$hdr" "$common" "$kbuild"
	for deb in "$tmp"/debs/*.deb; do dpkg -x "$deb" "$tmp/root"; done
	cp "$tmp/root/boot/vmlinuz-$ver" "$tmp/vmlinuz"
	cp "$tmp/root/boot/config-$ver" "$tmp/config"
	cp "$tmp/root/boot/System.map-$ver" "$tmp/System.map" 2>/dev/null || true
	# The arch headers' Makefile includes the common tree by absolute path.
	sed -i "s|/usr/src/|$tmp/root/usr/src/|" "$tmp/root/usr/src/linux-headers-$ver/Makefile"
	ln -s "root/usr/src/linux-headers-$ver" "$tmp/build"
	keep_modules "$tmp" "$ver"
	# Keep the rest of the kernel's modules out of the cache.
	rm -rf "$tmp/root/lib/modules" "$tmp/root/usr/lib/modules" "$tmp/root/boot" "$tmp/debs"
	echo "$ver" > "$tmp/version"
	echo "$LAYOUT" > "$tmp/layout"
	rm -rf "$dir"; mv "$tmp" "$dir"
	# The moved tree's Makefile still names the tmp path.
	sed -i "s|$tmp/|$dir/|" "$dir/root/usr/src/linux-headers-$ver/Makefile"
}

# apt options for a private apt state that knows only the Debian suite
# $1 (sources, lists, package cache in $CACHE/apt/SUITE), its lists
# updated when older than a day; the system's apt state is not touched.
suite_opts=()
suite_apt() {
	local suite=$1 priv=$CACHE/apt/$1
	case $suite in *[!a-z0-9-]*|'') echo "fetch-kernels: bad suite '$suite'" >&2; exit 2 ;; esac
	mkdir -p "$priv/lists/partial" "$priv/cache/archives/partial"
	echo "deb http://deb.debian.org/debian $suite main" > "$priv/sources.list"
	suite_opts=(-o "Dir::Etc::SourceList=$priv/sources.list" -o Dir::Etc::SourceParts=/dev/null
		    -o "Dir::State::Lists=$priv/lists" -o "Dir::Cache=$priv/cache"
		    -o APT::Sandbox::User=root)
	if [ -z "$(find "$priv/lists" -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
		apt-get "${suite_opts[@]}" update -qq >&2 ||
			{ echo "fetch-kernels: apt-get update of $suite failed" >&2; exit 1; }
	fi
}

# fetch_source SERIES [SUITE]: linux-source-SERIES unpacked in
# $CACHE/source/SERIES/linux, from the system's sources or from SUITE.
fetch_source() {
	local series=$1 suite=${2:-} pkg dir ver tmp
	suite_opts=()
	if [ -n "$suite" ]; then suite_apt "$suite"; else apt_update; fi
	pkg=linux-source-$series
	ver=$(apt-cache "${suite_opts[@]}" policy "$pkg" | sed -n 's/^ *Candidate: //p')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || { echo "fetch-kernels: $pkg not available" >&2; exit 1; }
	dir=$CACHE/source/$series
	if [ -f "$dir/version" ] && [ "$(cat "$dir/version")" = "$ver" ] && [ -f "$dir/linux/Makefile" ]; then
		return
	fi
	echo "fetch-kernels: $pkg $ver" >&2
	tmp=$CACHE/source/.$series.tmp
	rm -rf "$tmp"; mkdir -p "$tmp/debs" "$tmp/root" "$tmp/linux"
	download "$tmp/debs" "${suite_opts[@]}" "$pkg"
	dpkg -x "$tmp"/debs/*.deb "$tmp/root"
	tar -xaf "$tmp"/root/usr/src/linux-source-*.tar.* -C "$tmp/linux" --strip-components=1
	rm -rf "$tmp/root" "$tmp/debs"
	echo "$ver" > "$tmp/version"
	rm -rf "$dir"; mv "$tmp" "$dir"
}

[ $# -gt 0 ] || set -- 6.1 6.12
for what; do
	case $what in
	source-*@*) what=${what#source-}; fetch_source "${what%@*}" "${what#*@}" ;;
	source-*) fetch_source "${what#source-}" ;;
	*) fetch_series "$what" ;;
	esac
done
