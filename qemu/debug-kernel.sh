#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel (Debian's linux-source-6.12 + tinyconfig +
# selftests/config and qemu/debug.config) into the cache, keyed by source
# version and both configs.
# Results in $SKAS_CACHE/kernels/debug/: vmlinuz, build (KDIR), version.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${SKAS_CACHE:-$HOME/.cache/skas}
"$here/fetch-kernels.sh" source-6.12
src=$CACHE/source/6.12/linux
key=$( (cat "$CACHE/source/6.12/version" "$here/../selftests/config" "$here/debug.config") |
	sha256sum | cut -c1-16)
out=$CACHE/kernels/debug
exec 9>"$CACHE/.debug-kernel.lock"
flock 9
if [ -f "$out/key" ] && [ "$(cat "$out/key")" = "$key" ] && [ -f "$out/vmlinuz" ]; then
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/build"
obj=$out/build
start=$(date +%s)
echo "debug-kernel: building $(cat "$CACHE/source/6.12/version") (key $key), log in $out/build.log" >&2
{
	make -C "$src" O="$obj" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$here/../selftests/config" "$here/debug.config"
	make -C "$src" O="$obj" olddefconfig
	# Fail loudly if an option asked for did not survive Kconfig (one
	# whose dependencies tinyconfig lacks is dropped without a word).
	for opt in KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_KMEMLEAK DEBUG_LIST \
		   SERIAL_8250_CONSOLE BLK_DEV_INITRD DEVTMPFS X86_MPPARSE \
		   PCI VIRTIO_PCI NET_9P_VIRTIO 9P_FS \
		   $(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=y$/\1/p' \
			"$here/../selftests/config" "$here/debug.config"); do
		grep -q "^CONFIG_$opt=y" "$obj/.config" || { echo "debug-kernel: CONFIG_$opt did not stick" >&2; exit 1; }
	done
	make -C "$src" O="$obj" -j"$(nproc)" bzImage modules
} > "$out/build.log" 2>&1 || { tail -n 40 "$out/build.log" >&2; exit 1; }
cp "$obj/arch/x86/boot/bzImage" "$out/vmlinuz"
make -s -C "$src" O="$obj" kernelrelease > "$out/version"
echo "$(( $(date +%s) - start ))" > "$out/build-seconds"
echo "$key" > "$out/key"
echo "debug-kernel: built in $(cat "$out/build-seconds") s" >&2
