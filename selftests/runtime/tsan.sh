#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime's tests (busybox.sh, ptrace backend) under the ThreadSanitizer
# umlrun (make tsan), with two runtime threads whatever the host has: every
# case must pass as with the plain umlrun, and no run may report a data
# race.  TSan writes its reports to files here (log_path), so a report in
# a case that only greps its output still fails the test.
cd "$(dirname "$0")/../.." || exit 1
UMLRUN=${UMLRUN:-build/tsan/guest-runtime/umlrun}
if [ ! -x "$UMLRUN" ]; then
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 - $UMLRUN missing: make tsan"
	exit 1
fi
logs=$(mktemp -d "${TMPDIR:-/tmp}/tsan.XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT
TSAN_OPTIONS="halt_on_error=1:exitcode=66:log_path=$logs/report" \
	UMLRUN=$(pwd)/$UMLRUN selftests/runtime/busybox.sh ptrace --cpus=2
st=$?
n=$(ls "$logs" | wc -l)
if [ "$n" -ne 0 ]; then
	for f in "$logs"/*; do
		head -n 60 "$f" | sed 's/^/# /'
	done
	echo "# $n ThreadSanitizer reports"
	exit 1
fi
exit $st
