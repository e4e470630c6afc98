// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest static program: exit(0) with no libc start-up, so that
 * forkexec measures fork + execve + exit + wait and not glibc's
 * initialisation.
 */
void _start(void) __attribute__((noreturn));

void _start(void)
{
	__asm__ volatile("syscall" : : "a"(60), "D"(0) : "rcx", "r11", "memory");
	__builtin_unreachable();
}
