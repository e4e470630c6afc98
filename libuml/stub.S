/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ptrace backend's stub: a static ELF without libc (so no rseq
 * registration, no TLS, nothing to unmap behind glibc's back), linked at
 * STUB_BASE.  Its own code never runs after the exec stop: the tracer
 * hollows it and only ever points it at stub_syscall (to inject a syscall)
 * or at guest code.  _start exits at once, in case the tracer vanished
 * between the fork and the exec stop.
 */
#include "stub.h"

	.section .text.stub, "ax"
	.globl stub_syscall
stub_syscall:			/* STUB_SYSCALL */
	syscall
	int3
	.balign 16, 0xcc
stub_handler:			/* STUB_HANDLER: fault-info signal handler */
	int3
	ud2
	.balign 16, 0xcc
	.globl _start
_start:
	xorl %edi, %edi
	movl $231, %eax		/* exit_group(0) */
	syscall
	ud2

	.section .data.stub, "aw"
	.quad 0			/* keeps the data segment file-backed */

	.section .bss.stub, "aw", @nobits
	.skip STUB_DATA_SIZE - 8

	.section .note.GNU-stack, "", @progbits
