# SPDX-License-Identifier: GPL-2.0
# TAP for the shell tests, sourced: ok NAME, not_ok NAME, skip NAME WHY,
# check NAME EXPR (ok if EXPR, evaluated, is true; else not_ok and
# returns 1, so that "check ... || show the log" works).  $fail counts.
n=0 fail=0 skip=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; skip=$((skip + 1)); }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; return 1; fi; }
