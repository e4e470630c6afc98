#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project as a user installs it, into a scratch root: `make install`
# (umlrun, libuml, the man pages, the udev rule), `make dkms-install` (the module's
# sources and a dkms.conf whose version and supported kernels are right,
# built here exactly as its MAKE line says) and `make modules_install`
# (skas.ko under lib/modules/<release>/updates with its aliases).  The
# module parts need a kernel the harness fetched (qemu/fetch-kernels.sh
# 6.12) and skip, saying so, without one.  TAP.
cd "$(dirname "$0")/../.." || exit 1
KDIR=${SKAS_CACHE:-$HOME/.cache/skas}/kernels/6.12/build
ver=$(cat VERSION)
root=$(mktemp -d "${TMPDIR:-/tmp}/skas-install.XXXXXX") || exit 1
trap 'rm -rf "$root"' EXIT
. selftests/tap.sh

echo "TAP version 13"
echo "1..9"
make -s install DESTDIR="$root" PREFIX=/usr > "$root/install.log" 2>&1
st=$?
check "make install DESTDIR= PREFIX=/usr" '[ $st -eq 0 ]' || sed 's/^/# /' "$root/install.log" | tail -20
check "umlrun, libuml and the udev rule are installed" \
	'[ -x "$root/usr/bin/umlrun" ] && [ -f "$root/usr/lib/libuml.so.$ver" ] &&
	 [ -f "$root/usr/lib/udev/rules.d/60-skas.rules" ]'
check "the installed umlrun says the project's version" \
	'"$root/usr/bin/umlrun" --version | head -n 1 | grep -qx "umlrun $ver"'
# Every exported function has a page (its own, or a .so to its group's),
# and every page renders without a warning from man or groff.
man=$root/usr/share/man
missing=$(for f in $(sed -n 's/@@.*//p' libuml/libuml.abi) libuml; do
	[ -f "$man/man3/$f.3" ] || echo "$f"; done; [ -f "$man/man1/umlrun.1" ] || echo umlrun)
warn=$(cd "$man" && for p in man1/*.1 man3/*.3; do
	MANWIDTH=80 man --warnings -E UTF-8 -l "$p" 2>&1 > /dev/null; done)
check "man pages: umlrun(1), libuml(3) and every exported function, warning-free" \
	'[ -z "$missing$warn" ] && grep -q "skas $ver" "$man/man1/umlrun.1"' ||
	echo "$missing $warn" | head -n 10 | sed 's/^/# /'

d=$root/usr/src/skas-$ver
make -s dkms-install DESTDIR="$root" > "$root/dkms.log" 2>&1
st=$?
check "make dkms-install: sources and dkms.conf in /usr/src/skas-$ver" \
	'[ $st -eq 0 ] && [ -f "$d/dkms.conf" ] && [ -f "$d/Kbuild" ] && [ -f "$d/VERSION" ] &&
	 [ -f "$d/module/main.c" ] && [ -f "$d/uapi/linux/skas.h" ]' ||
	sed 's/^/# /' "$root/dkms.log" | tail -20
# dkms.conf is shell: read its values as DKMS does.
conf=$(unset PACKAGE_VERSION BUILD_EXCLUSIVE_KERNEL; . "$d/dkms.conf" &&
       echo "$PACKAGE_NAME $PACKAGE_VERSION $BUILD_EXCLUSIVE_KERNEL")
read -r name pver excl <<< "$conf"
supported=yes
for k in 6.1.0-28-amd64 6.12.117+deb12-amd64 6.1.0-40-cloud-amd64; do
	[[ $k =~ $excl ]] || supported=no
done
for k in 6.6.13-amd64 5.10.0-30-amd64 6.10.1 6.120.0 7.3.0-1-amd64; do
	[[ $k =~ $excl ]] && supported=no
done
check "dkms.conf: skas $ver, built for Debian's 6.1 and 6.12 kernels only" \
	'[ "$name" = skas ] && [ "$pver" = "$ver" ] && [ $supported = yes ]' ||
	echo "# $conf"

if [ -f "$KDIR/Makefile" ]; then
	# dkms.conf's MAKE[0] with DKMS's variables, in DKMS's build folder.
	b=$root/skas/$ver/build
	mkdir -p "$(dirname "$b")" && cp -a "$d" "$b"
	mk=$(kernel_source_dir=$KDIR dkms_tree=$root; . "$d/dkms.conf"; eval echo "${MAKE[0]}")
	$mk -s > "$root/dkms-build.log" 2>&1
	st=$?
	check "the DKMS tree builds skas.ko $ver with dkms.conf's MAKE line (6.12)" \
		'[ $st -eq 0 ] && modinfo -F version "$b/skas.ko" | grep -qx "$ver"' ||
		sed 's/^/# /' "$root/dkms-build.log" | tail -20
	make -s modules_install KVER=6.12 DESTDIR="$root/mods" > "$root/mi.log" 2>&1
	st=$?
	mod=$(find "$root/mods/lib/modules" -path '*/updates/skas.ko*' 2>/dev/null | head -n 1)
	check "make modules_install puts skas.ko in lib/modules/<release>/updates" \
		'[ $st -eq 0 ] && [ -n "$mod" ]' || sed 's/^/# /' "$root/mi.log" | tail -20
	check "its aliases load it when /dev/skas (10:249) is opened" \
		'[ -n "$mod" ] && modinfo -F alias "$mod" | sort | tr "\n" " " |
		 grep -qx "char-major-10-249 devname:skas "'
else
	for t in "the DKMS tree builds skas.ko" "make modules_install" "the module's aliases"; do
		skip "$t" "no fetched 6.12 kernel (qemu/fetch-kernels.sh 6.12)"
	done
fi
[ $fail -eq 0 ]
