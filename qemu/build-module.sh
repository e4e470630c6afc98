#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build skas.ko for one kernel: KVER (6.1, 6.12, debug) or a KDIR path.
# The sources are copied to build/kmod/<name>/ so that builds for several
# kernels never share object files.  Extra arguments go to kbuild (C=2...);
# --install DESTDIR also installs it (modules_install) under DESTDIR.
# Prints the path of the built module.
set -euo pipefail
QEMU_DIR=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$QEMU_DIR")
. "$QEMU_DIR/kernel.sh"

what=${1:?usage: build-module.sh KVER|KDIR [--install DESTDIR | kbuild args]}
shift
install=no destdir=/
if [ "${1-}" = --install ]; then
	install=yes destdir=${2:-/}
	shift $(( $# >= 2 ? 2 : 1 ))
fi
if [ -d "$what" ]; then
	KDIR=$(cd "$what" && pwd -P)
	name=kdir-$(echo "$KDIR" | sha256sum | cut -c1-12)
else
	kernel_resolve "$what"
	name=$what
fi
out=$top/build/kmod/$name
mkdir -p "$out"
exec 7>"$out.lock"
flock 7
# Mirror the sources (rsync -c would do; plain cp keeps the dependency list short).
rm -rf "$out/module" "$out/uapi"
cp -a "$top/Kbuild" "$top/VERSION" "$top/module" "$top/uapi" "$out/"
make -s -C "$KDIR" M="$out" "$@" modules >&2
if [ $install = yes ]; then
	# kbuild's modules_install: DESTDIR/lib/modules/<release>/updates/,
	# unsigned (Debian's kernels sign with a key only their build has).
	make -s -C "$KDIR" M="$out" INSTALL_MOD_PATH="$(realpath -m "$destdir")" \
		INSTALL_MOD_DIR=updates CONFIG_MODULE_SIG_ALL= modules_install >&2
fi
echo "$out/skas.ko"
