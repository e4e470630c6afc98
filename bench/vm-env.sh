# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the VM sides of make bench (run-in-vm.sh) and make fairness
# (fairness-in-vm.sh), in bench/: the set-up of the boot and the lines
# about it that both print first.
#
# The harness boots with panic_on_warn and oops=panic, which would end the
# whole boot at the first module bug a path runs into.  Here a bug should
# cost only its own cell: the harness still finds the report in the kernel
# log and says so beside the table.
echo 0 > /proc/sys/kernel/panic_on_warn 2>/dev/null
echo 0 > /proc/sys/kernel/panic_on_oops 2>/dev/null
# CPUs the kernel left offline at boot (maxcpus=1: Debian's 6.1 does not
# bring up a second CPU under -icount) are brought up now.
for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ -f "$c" ] && [ "$(cat "$c")" = 0 ] && echo 1 > "$c"
done
echo "BENCH-ENV kernel $(uname -r)"
echo "BENCH-ENV cpus $(nproc)"
echo "BENCH-ENV clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
echo "BENCH-ENV module $( [ -e /dev/skas ] && echo loaded || echo absent)"
