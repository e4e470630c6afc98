#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages: dpkg-buildpackage -b -us -uc of a copy of the tree
# gives skas-dkms, libuml0, libuml-dev and umlrun; lintian finds nothing
# (debian/*.lintian-overrides say why for what it would); unpacked into a
# scratch root, the module source registers with DKMS and DKMS builds it
# for the fetched 6.12 kernel (skipped, saying so, without one), pkg-config
# finds the library, the man pages and the udev rule are there.  TAP.
cd "$(dirname "$0")/../.." || exit 1
ver=$(cat VERSION)
cache=${SKAS_CACHE:-$HOME/.cache/skas}
w=$(mktemp -d "${TMPDIR:-/tmp}/skas-deb.XXXXXX") || exit 1
trap 'rm -rf "$w"' EXIT
. selftests/tap.sh
echo "TAP version 13"
echo "1..7"
for tool in dpkg-buildpackage dh lintian dkms pkg-config; do
	command -v $tool > /dev/null || { echo "not ok 1 - no $tool: qemu/deps.sh installs it"; exit 1; }
done

# The tree as git has it (a build must not depend on files it lacks).
mkdir "$w/src"
git ls-files -z | cpio -0 -pdm --quiet "$w/src"
(cd "$w/src" && dpkg-buildpackage -b -us -uc) > "$w/build.log" 2>&1
st=$?
debs="skas-dkms_${ver}_all.deb libuml0_${ver}_amd64.deb libuml-dev_${ver}_amd64.deb umlrun_${ver}_amd64.deb"
check "dpkg-buildpackage -b -us -uc builds skas-dkms, libuml0, libuml-dev and umlrun" \
	'[ $st -eq 0 ] && (cd "$w" && ls $debs > /dev/null)' || sed 's/^/# /' "$w/build.log" | tail -20
(cd "$w" && lintian --pedantic $debs) > "$w/lintian.log" 2>&1
st=$?
check "lintian --pedantic: nothing (every override explained)" \
	'[ $st -eq 0 ] && ! grep -q "^[EWIPX]: " "$w/lintian.log"' ||
	grep -v "root privileges" "$w/lintian.log" | head -20 | sed 's/^/# /'

root=$w/root
for d in $debs; do dpkg -x "$w/$d" "$root"; done
tree=$w/dkms
mkdir "$tree"
dk() { dkms "$@" -m skas -v "$ver" --dkmstree "$tree" --sourcetree "$root/usr/src"; }
dk add > "$w/dkms.log" 2>&1
check "the module source registers with DKMS (dkms add: skas/$ver added)" \
	'dkms status --dkmstree "$tree" --sourcetree "$root/usr/src" | grep -q "^skas/$ver: added"' ||
	sed 's/^/# /' "$w/dkms.log"
if [ -f "$cache/kernels/6.12/build/Makefile" ]; then
	krel=$(cat "$cache/kernels/6.12/version")
	dk build -k "$krel" --kernelsourcedir "$cache/kernels/6.12/build" > "$w/dkms-build.log" 2>&1
	ko=$(find "$tree/skas/$ver/$krel" -name 'skas.ko*' 2>/dev/null | head -n 1)
	check "DKMS builds skas.ko $ver for $krel" \
		'[ -n "$ko" ] && modinfo -F version "$ko" | grep -qx "$ver"' ||
		sed 's/^/# /' "$w/dkms-build.log" | tail -20
else
	skip "DKMS builds skas.ko" "no fetched 6.12 kernel (qemu/fetch-kernels.sh 6.12)"
fi
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
check "pkg-config finds libuml $ver in the unpacked packages" \
	'[ "$(PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/$ma/pkgconfig \
	      pkg-config --modversion libuml)" = "$ver" ] && [ -f "$root/usr/lib/$ma/libuml.so.$ver" ]'
check "the man pages and the udev rule are in their packages" \
	'[ -f "$root/usr/share/man/man1/umlrun.1.gz" ] && [ -f "$root/usr/share/man/man3/uml_thread_run.3.gz" ] &&
	 [ -f "$root/usr/lib/udev/rules.d/60-skas.rules" ]'
check "the packaged umlrun runs a program (ptrace backend)" \
	'[ "$("$root/usr/bin/umlrun" --backend=ptrace /bin/busybox echo packaged 2>&1)" = packaged ]'
[ $fail -eq 0 ]
