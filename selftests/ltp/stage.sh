#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage the LTP tests of check.list (make check's regression subset) with
# their helper programs into selftests/ltp/suite/ (testcases/bin and
# runtest/syscalls, not in git), where the VM's test tree picks them up:
# check.sh runs them there.  Builds the source folders of those tests first
# if the cache has neither them nor the whole suite (build.sh --only, about
# 2 minutes once).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$("$here/build.sh" --only "$here/check.list")
suite=$here/suite
rm -rf "$suite"
mkdir -p "$suite/testcases/bin" "$suite/runtest"
cp "$dir/runtest/syscalls" "$suite/runtest/"
LTP_DIR=$dir LTP_OUT=$(mktemp -d) LTP_PLAN=1 LTP_TESTS=@"$here/check.list" \
	"$here/run.sh" > "$suite/plan.txt"
# Each test's program and the helpers of its source folder (programs that
# are no test of their own), as ltp.sh stages them.
awk '$2 == "run" { print $3 }' "$suite/plan.txt" | sort -u |
	awk 'FILENAME == "-" { want[$1] = 1; next }
	     FILENAME ~ /syscalls$/ { if ($0 !~ /^[ \t]*(#|$)/) test[$2] = 1; next }
	     { dir[$2] = $1; if (!($2 in test)) helpers[$1] = helpers[$1] " " $2 }
	     END { for (p in want) print p helpers[dir[p]] }' \
	    - "$dir/runtest/syscalls" "$dir/programs.txt" |
	tr ' ' '\n' | sort -u | while read -r b; do
	if [ -f "$dir/testcases/bin/$b" ]; then cp "$dir/testcases/bin/$b" "$suite/testcases/bin/"; fi
done
rm -f "$suite/plan.txt"
echo "ltp: staged $(ls "$suite/testcases/bin" | wc -l) programs, $(du -sh "$suite" | cut -f1), in ${suite#"$(cd "$here/../.." && pwd)"/}" >&2
