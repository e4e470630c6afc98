#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Regenerate the syscall table of Documentation/runtime.rst from the code
# (umlrun --list-syscalls), between the BEGIN/END marker comments.
#   gen-syscall-doc.sh          rewrite the document
#   gen-syscall-doc.sh --check  fail if the document is out of date
set -e
cd "$(dirname "$0")"
doc=../Documentation/runtime.rst
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.new"' EXIT

./umlrun --list-syscalls | awk '
BEGIN {
	print ".. list-table::"
	print "   :header-rows: 1"
	print "   :widths: 8 25 67"
	print ""
	print "   * - nr"
	print "     - syscall"
	print "     - notes"
}
{
	print "   * - " $1
	print "     - ``" $2 "``"
	note = ""
	if ($3 == "restart")
		note = "restarted after an ``SA_RESTART`` handler"
	tier = NF > 2 ? $NF : ""
	if (tier == "const" && $2 == "rseq")
		note = "fast tier CONST: the host answers -ENOSYS"
	else if (tier == "const")
		note = "fast tier CONST: the host answers with the process'"'"'s value"
	else if (tier == "thread")
		note = "fast tier THREAD: the host answers with the thread'"'"'s tid"
	else if (tier == "native")
		note = "fast tier NATIVE: the host runs it in the guest'"'"'s task"
	else if (tier == "native-fd")
		note = (note == "" ? "" : note "; ") \
		       "native on a regular file (\"Native file I/O\")"
	print "     -" (note == "" ? "" : " " note)
}' > "$tmp"

awk -v table="$tmp" '
/^\.\. BEGIN SYSCALL TABLE/ { print; print ""; while ((getline l < table) > 0) print l; print ""; skip = 1; next }
/^\.\. END SYSCALL TABLE/ { skip = 0 }
!skip { print }' "$doc" > "$tmp.new"

if [ "$1" = "--check" ]; then
	if ! cmp -s "$doc" "$tmp.new"; then
		echo "$doc: syscall table out of date: run guest-runtime/gen-syscall-doc.sh" >&2
		exit 1
	fi
	exit 0
fi
cp "$tmp.new" "$doc"
