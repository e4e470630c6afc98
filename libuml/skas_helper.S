/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The skas backend's helper code, copied into every guest address space at
 * SKAS_HELPER_CODE (stub.h).  The module has no ioctl for a thread's FPU
 * state yet, so libuml runs one of these entries in the guest thread
 * itself, %rdi pointing into the helper's data page and %edx:%eax the
 * feature mask, and catches the trapped syscall that follows: the state
 * is saved or loaded by the CPU, in the guest's own task.  Each entry is
 * 16 bytes apart; the syscall ends 6 bytes in.
 */
	.section .rodata.uml_skas_helper, "a"
	.balign 16
	.globl __uml_skas_helper
	.globl __uml_skas_helper_end
	.hidden __uml_skas_helper
	.hidden __uml_skas_helper_end
__uml_skas_helper:
	xsave64 (%rdi)		/* 0x00 */
	syscall
	ud2
	.balign 16, 0xcc
	xrstor64 (%rdi)		/* 0x10 */
	syscall
	ud2
	.balign 16, 0xcc
	fxsave64 (%rdi)		/* 0x20 */
	syscall
	ud2
	.balign 16, 0xcc
	fxrstor64 (%rdi)	/* 0x30 */
	syscall
	ud2
	.balign 16, 0xcc
__uml_skas_helper_end:
	.section .note.GNU-stack, "", @progbits
