#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the man pages into DIR/man1 and DIR/man3 (with the project's
# version in their title lines), and for every other
# name a page's NAME section lists, a ".so" page pointing at it (as
# liburing's man/ does with links).  Usage: man/install.sh DIR
set -e
dir=$(realpath -m "${1:?usage: man/install.sh MANDIR}")
cd "$(dirname "$0")"
ver=$(cat ../VERSION)
for page in *.1 *.3; do
	sec=${page##*.}
	mkdir -p "$dir/man$sec"
	sed "s/@VERSION@/$ver/" "$page" > "$dir/man$sec/$page"
	chmod 644 "$dir/man$sec/$page"
	# The names: the NAME section's lines up to the "\-".
	names=$(sed -n '/^\.SH NAME/,/\\-/p' "$page" | sed '1d; s/\\-.*//' | tr ',' ' ')
	for n in $names; do
		[ "$n.$sec" = "$page" ] && continue
		printf '.so man%s/%s\n' "$sec" "$page" > "$dir/man$sec/$n.$sec"
	done
done
