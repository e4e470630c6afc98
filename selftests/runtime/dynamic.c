// SPDX-License-Identifier: GPL-2.0-only
/*
 * A dynamically linked program: the dynamic loader (PT_INTERP) starts it,
 * with the auxv the kernel gives (AT_BASE is where the loader is, AT_ENTRY
 * and AT_PHDR the program's own), and it loads a library at run time.
 * Prints "dynamic 1.000000", or exits with the number of the check that
 * failed.  Runs natively too.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <sys/auxv.h>

extern char _start[];

int main(void)
{
	const ElfW(Phdr) *ph = (const void *)getauxval(AT_PHDR);
	double (*cosine)(double);
	void *m;

	if (!getauxval(AT_BASE) || getauxval(AT_ENTRY) != (unsigned long)_start)
		return 2;
	if (!ph || getauxval(AT_PHENT) != sizeof(*ph) || !getauxval(AT_PHNUM))
		return 3;
	m = dlopen("libm.so.6", RTLD_NOW);
	if (!m)
		return 4;
	*(void **)&cosine = dlsym(m, "cos");
	if (!cosine)
		return 5;
	printf("dynamic %f\n", cosine(0.0));
	return dlclose(m) ? 6 : 0;
}
