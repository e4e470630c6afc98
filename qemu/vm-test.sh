#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one kernel under QEMU with the module and the tests, and judge it.
#
# Usage: vm-test.sh [-d|-b] KVER [FILTER]
#   KVER    6.1, 6.12 or debug
#   FILTER  run only the lines of selftests/vm.list that contain it
#   -d      demo mode instead (see qemu/demo.sh)
#   -b      bench mode instead: bench/run-in-vm.sh, logs in build/vm/KVER-bench
#           (see bench/vm-bench.sh)
#
# Environment, off by default: VM_ICOUNT=1 boots with -icount shift=0
# (instruction-count time, for benchmarks); VM_MTTCG=1 gives each vCPU a
# host thread in test and demo boots too; VM_APPEND adds kernel parameters.
#
# Builds the module for KVER (the user-space parts must be built: make user),
# packs an initramfs (busybox, qemu/init, skas.ko, the 9p modules, the test
# tree), shares the host's / read-only and build/vm/KVER/scratch read-write
# over virtio-9p (init mounts them at /host and /scratch), boots with
# panic_on_warn=1, reads the results from the second serial port, and fails
# if a test failed, init did not finish (panic, hang, timeout), or the kernel
# log holds a warning, BUG, oops, KASAN, lockdep or kmemleak report.
# The logs stay in build/vm/KVER/.
set -uo pipefail
QEMU_DIR=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$QEMU_DIR")
. "$QEMU_DIR/kernel.sh"

mode=check
[ "${1:-}" = -d ] && { mode=demo; shift; }
[ "${1:-}" = -b ] && { mode=bench; shift; }
kver=${1:?usage: vm-test.sh [-d|-b] KVER [FILTER]}
filter=${2:-}
# The debug kernel (KASAN, lockdep) runs the list about three times slower.
if [ "$kver" = debug ]; then VM_TIMEOUT=${VM_TIMEOUT:-3000}; else VM_TIMEOUT=${VM_TIMEOUT:-1500}; fi
VM_MEM=${VM_MEM:-2048}

kernel_resolve "$kver" || exit 1
out=$top/build/vm/$kver
[ "$mode" = bench ] && out=$top/build/vm/$kver-bench
# One VM per kernel at a time: runs share build/vm/KVER and build/kmod/KVER.
mkdir -p "$top/build/vm"
exec 8>"$top/build/vm/.$kver.lock"
flock 8
rm -rf "$out"; mkdir -p "$out"
ko=$("$QEMU_DIR/build-module.sh" "$kver") || { echo "vm-$kver: module build failed" >&2; exit 1; }

# ---- initramfs ---------------------------------------------------------
root=$out/root
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,lib/modules,skas}
cp "$top/build/qemu/init" "$root/init"
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
cp "$ko" "$root/lib/modules/skas.ko"
if [ -f "$KMODS/order" ]; then
	mkdir -p "$root/lib/modules/host"
	cp "$KMODS"/*.ko "$KMODS/order" "$root/lib/modules/host/"
fi
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
# The tree the tests run in: every executable and script under the
# directories that hold tests and the runtime, without sources or objects.
tree_dirs="selftests guest-runtime libuml uml"
[ "$mode" = bench ] && tree_dirs+=" bench"
(cd "$top" && find $tree_dirs -type f \
	! -name '*.[choa]' ! -name '*.cc' ! -name 'Makefile' ! -name '*.rst' ! -name '*.md' \
	! -name '.*' ! -name '*.patch' 2>/dev/null | cpio -pdm --quiet "$root/skas")
cp "$top/VERSION" "$root/skas/"	# the one version the tests compare with
# The host's dynamic loader and libraries, through /host (init mounts it,
# and the host's /usr on /usr): the rest of the root is busybox.
mkdir -p "$root/usr"
ln -s /host/lib64 "$root/lib64"
ln -s /host/lib/x86_64-linux-gnu "$root/lib/x86_64-linux-gnu"
ln -s /host/etc/ld.so.cache "$root/etc/ld.so.cache"
if [ "$mode" = demo ]; then
	[ -n "${DEMO_CMD:-}" ] && printf '%s\n' "$DEMO_CMD" > "$root/demo-cmd"
	if [ -n "${EXTRA:-}" ]; then
		[ -d "$EXTRA" ] || { echo "EXTRA=$EXTRA is not a directory" >&2; exit 2; }
		mkdir -p "$root/extra" && cp -a "$EXTRA"/. "$root/extra/"
	fi
fi
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.gz"

# ---- boot ----------------------------------------------------------------
append="console=ttyS0 panic_on_warn=1 oops=panic panic=-1 softlockup_panic=1"
append+=" cryptomgr.notests skas_mode=$mode"
# A kernel parameter ends at a space: the filter's spaces go as '+'.
[ -n "$filter" ] && append+=" skas_tests=${filter// /+}"
# Where this tree is on the host, so that /host$skas_host_tree has its
# sources (selftests/runtime/selfhost.sh); init passes it on in its
# environment.  A path with a space cannot be a kernel parameter.
case $top in *[[:space:]]*) ;; *) append+=" skas_host_tree=$top" ;; esac
# The User-Mode Linux build for this tree's uml/, if cached: a host path,
# which uml/check.sh finds under /host (it skips without one).
uml_bin=$("$top/uml/build.sh" --cached 2>/dev/null) || uml_bin=
case $uml_bin in ''|*[[:space:]]*) ;; *) append+=" skas_uml=$uml_bin" ;; esac
[ "$mode" = demo ] && append+=" quiet"
# The debug kernel boots with 4-level paging: under -cpu max TCG offers
# LA57, and 6.12's identify_cpu() clears the CPU's feature bits for a
# moment at boot; pgtable_l5_enabled() reads X86_FEATURE_LA57 there, so
# an interrupt in that window has KASAN take the 5-level direct map
# (0xff11...) for a wild address and panic before init (seen twice).
[ "$kver" = debug ] && append+=" no5lvl"
[ -n "${VM_APPEND:-}" ] && append+=" $VM_APPEND"
qemu=(qemu-system-x86_64 -machine pc -cpu max -smp 2 -m "$VM_MEM" -no-reboot
      -no-user-config -nodefaults -display none -nic none
      -kernel "$KIMAGE" -initrd "$out/initramfs.gz" -append "$append")
# The host's / read-only (init mounts it at /host, and its /usr on /usr),
# and a fresh host folder read-write at /scratch: what the VM writes
# there stays in build/vm/KVER/scratch after the run.  remap: the host's
# / spans several file systems, whose inode numbers must not collide.
mkdir -p "$out/scratch"
qemu+=(-fsdev local,id=host,path=/,security_model=none,readonly=on,multidevs=remap
       -device virtio-9p-pci,fsdev=host,mount_tag=host
       -fsdev local,id=scratch,path="$out/scratch",security_model=none
       -device virtio-9p-pci,fsdev=scratch,mount_tag=scratch)
[ "${VM_ICOUNT:-0}" = 1 ] && qemu+=(-icount shift=0)
# Tests and demos: one host thread runs both vCPUs in turn.  With a thread
# per vCPU (MTTCG, QEMU's default), a vCPU sometimes still ran the int3 of
# a static key the other vCPU had finished patching (the module's probes
# come and go with guests), and the kernel oopsed ("Oops: int3", NOTES-module.md
# section 4; Documentation/testing.rst).  Bench boots keep MTTCG (VM_MTTCG=1
# forces it anywhere).
[ "$mode" != bench ] && [ "${VM_MTTCG:-0}" != 1 ] &&
	qemu+=(-accel tcg,thread=single)
if [ "$mode" = demo ] && [ -z "${DEMO_CMD:-}" ]; then
	exec "${qemu[@]}" -serial mon:stdio -serial "file:$out/results.log"
fi
echo "vm-$kver: booting $KREL (logs in ${out#$top/})" >&2
start=$(date +%s)
timeout --foreground "$VM_TIMEOUT" "${qemu[@]}" -monitor none \
	-serial "file:$out/console.log" -serial "file:$out/results.log" < /dev/null
qrc=$?
secs=$(( $(date +%s) - start ))

# ---- verdict -------------------------------------------------------------
res=$out/results.log
[ -f "$res" ] || : > "$res"
[ -f "$out/console.log" ] || : > "$out/console.log"
# The serial ports write CRLF.
sed -i 's/\r$//' "$res" "$out/console.log"
if [ "$mode" = demo ]; then
	grep -av "^\[ *[0-9.]*\] reboot: " "$out/console.log"
	status=$(sed -n 's/^SKAS-STATUS \([0-9]*\).*/\1/p' "$res" | tail -n 1)
	[ -n "$status" ] || { echo "demo: the VM ended without a status (qemu exit $qrc)" >&2; exit 1; }
	exit "$status"
fi
sed -n '/^---- dmesg ----$/,/^---- end dmesg ----$/!p' "$res" | grep -v '^SKAS-DONE$' || true
pass=0 fail=0 skip=0
while read -r _ _ p f s; do
	pass=$((pass + ${p#pass=})); fail=$((fail + ${f#fail=})); skip=$((skip + ${s#skip=}))
done < <(grep '^# counts: ' "$res")
if ! grep -q '^SKAS-DONE$' "$res"; then
	echo "not ok - vm-$kver: init did not finish (qemu exit $qrc after ${secs}s)"
	tail -n 60 "$out/console.log" | sed 's/^/# console: /'
	fail=$((fail + 1))
fi
# Kernel log: console (printed live, survives a panic) and init's dmesg dump.
bad='WARNING:|BUG:|Oops|general protection fault.*\[#|KASAN:|possible circular locking|inconsistent lock state|possible recursive locking|unreferenced object|sleeping function called from invalid context|Kernel panic|soft lockup|hard LOCKUP|blocked for more than|UBSAN:|list_add corruption|list_del corruption|refcount_t:'
if grep -aEn "$bad" "$out/console.log" "$res" > "$out/kernel-bad.log"; then
	echo "not ok - vm-$kver: kernel log is clean"
	sed 's/^/# /' "$out/kernel-bad.log" | head -n 40
	fail=$((fail + 1))
else
	echo "ok - vm-$kver: kernel log is clean"
	pass=$((pass + 1))
fi
echo "# vm-$kver: $KREL, ${secs}s"
echo "# counts: pass=$pass fail=$fail skip=$skip"
echo "vm-$kver: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
