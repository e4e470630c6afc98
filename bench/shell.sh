# SPDX-License-Identifier: GPL-2.0
# The shell workload of `make bench`, a stand-in for a build: 50 rounds of
# a three-stage pipeline plus one more command, 200 short processes in all
# (the echo stage is a forked subshell, the others are exec'd busybox
# applets).  Run by bench/shell with busybox sh; its output is discarded.
i=0
while [ $i -lt 50 ]; do
	echo "round $i of the shell workload" | /bin/busybox tr a-z A-Z | /bin/busybox wc -c
	/bin/busybox true
	i=$((i + 1))
done
