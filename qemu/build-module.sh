#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build skas.ko for one kernel: KVER (6.1, 6.12, debug) or a KDIR path.
# The sources are copied to build/kmod/<name>/ so that builds for several
# kernels never share object files.  Extra arguments go to kbuild (C=2...).
# Prints the path of the built module.
set -euo pipefail
QEMU_DIR=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$QEMU_DIR")
. "$QEMU_DIR/kernel.sh"

what=${1:?usage: build-module.sh KVER|KDIR [kbuild args]}
shift
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
echo "$out/skas.ko"
