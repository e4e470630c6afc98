#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# libuml as a user gets it: `make -C libuml install` into a scratch root
# installs libuml.so.0 (soname, symbol versions), libuml.a, uml.h,
# linux/skas.h and libuml.pc; pkg-config finds the library at the
# project's version; a program built with pkg-config's flags against the
# shared library runs a guest on the ptrace backend; and the library
# exports exactly the symbols of libuml/libuml.abi (a new function must be
# added there and to libuml.map on purpose).  TAP.
cd "$(dirname "$0")/../.." || exit 1
ver=$(cat VERSION)
root=$(mktemp -d "${TMPDIR:-/tmp}/libuml-install.XXXXXX") || exit 1
trap 'rm -rf "$root"' EXIT
. selftests/tap.sh

echo "TAP version 13"
echo "1..7"
make -s -C libuml install DESTDIR="$root" PREFIX=/usr LIBDIR=/usr/lib \
	> "$root/make.log" 2>&1
st=$?
check "make install DESTDIR= PREFIX=" '[ $st -eq 0 ]' || sed 's/^/# /' "$root/make.log"
lib=$root/usr/lib
check "the files: libuml.so.$ver, its soname and dev links, libuml.a, headers, libuml.pc" \
	'[ -f "$lib/libuml.so.$ver" ] && [ "$(readlink "$lib/libuml.so.0")" = "libuml.so.$ver" ] &&
	 [ "$(readlink "$lib/libuml.so")" = libuml.so.0 ] && [ -f "$lib/libuml.a" ] &&
	 [ -f "$root/usr/include/uml.h" ] && [ -f "$root/usr/include/linux/skas.h" ] &&
	 [ -f "$lib/pkgconfig/libuml.pc" ]'
check "its soname is libuml.so.0" \
	'readelf -d "$lib/libuml.so.$ver" | grep -q "SONAME.*\[libuml.so.0\]"'
export PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_LIBDIR="$lib/pkgconfig"
check "pkg-config finds libuml $ver" '[ "$(pkg-config --modversion libuml)" = "$ver" ]'

# A guest whose one instruction sequence is exit(7), run through the .so.
cat > "$root/prog.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <uml.h>

int main(void)
{
	static const unsigned char code[] = {
		0xb8, 60, 0, 0, 0,	/* mov $60, %eax */
		0xbf, 7, 0, 0, 0,	/* mov $7, %edi */
		0x0f, 0x05,		/* syscall */
	};
	struct uml_host *host;
	struct uml_aspace *as;
	struct uml_thread *t;
	struct uml_exit ex;
	uint64_t at = 0x400000;

	if (uml_host_open(&host, UML_BACKEND_PTRACE) ||
	    uml_aspace_create(host, &as, &t) ||
	    uml_aspace_map(as, at, 4096, PROT_READ | PROT_EXEC,
			   UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, -1, 0) ||
	    uml_mem_write(as, at, code, sizeof(code)) != (long)sizeof(code))
		return 1;
	memset(uml_thread_regs(t), 0, sizeof(struct uml_regs));
	uml_thread_regs(t)->rip = at;
	if (uml_thread_run(t, &ex) || ex.reason != UML_EXIT_SYSCALL)
		return 2;
	printf("libuml %s: syscall %llu(%llu)\n", uml_version(),
	       (unsigned long long)ex.syscall.nr,
	       (unsigned long long)ex.syscall.args[0]);
	uml_aspace_destroy(as);
	uml_host_close(host);
	return 0;
}
PROG
# shellcheck disable=SC2046
${CC:-gcc} -Wall -Wextra -Werror -o "$root/prog" "$root/prog.c" \
	$(pkg-config --cflags --libs libuml) > "$root/cc.log" 2>&1
st=$?
check "a program builds with pkg-config's flags, dynamically linked" \
	'[ $st -eq 0 ] && readelf -d "$root/prog" | grep -q "NEEDED.*\[libuml.so.0\]"' ||
	sed 's/^/# /' "$root/cc.log"
out=$(LD_LIBRARY_PATH=$lib "$root/prog" 2>&1)
check "it runs a guest through the shared library" \
	'[ "$out" = "libuml $ver: syscall 60(7)" ]' || echo "# output: $out"
nm -D --defined-only "$lib/libuml.so.$ver" | awk '{print $3}' | sort > "$root/abi"
check "the exported symbols are libuml/libuml.abi's" 'cmp -s libuml/libuml.abi "$root/abi"' ||
	diff libuml/libuml.abi "$root/abi" | sed 's/^/# /'
[ $fail -eq 0 ]
