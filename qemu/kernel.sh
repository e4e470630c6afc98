# SPDX-License-Identifier: GPL-2.0
# Sourced by the harness scripts: resolve KVER (6.1, 6.12, debug) to the
# cached kernel, fetching or building it first.  Sets KIMAGE, KDIR, KREL
# and KMODS (the folder of the modules init loads for /host; the debug
# kernel has none: 9p is built in).
CACHE=${SKAS_CACHE:-$HOME/.cache/skas}
kernel_resolve() {
	case $1 in
	6.1|6.12) "$QEMU_DIR/fetch-kernels.sh" "$1" ;;
	debug) "$QEMU_DIR/debug-kernel.sh" ;;
	*) echo "unknown KVER '$1' (6.1, 6.12 or debug)" >&2; return 2 ;;
	esac || return 1
	KIMAGE=$CACHE/kernels/$1/vmlinuz
	KDIR=$CACHE/kernels/$1/build
	KREL=$(cat "$CACHE/kernels/$1/version")
	KMODS=$CACHE/kernels/$1/modules
}
