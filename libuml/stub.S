/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ptrace backend's stub: a static ELF without libc (so no rseq
 * registration, no TLS, nothing to unmap behind glibc's back), linked at
 * STUB_BASE.  Its own code never runs after the exec stop: the tracer
 * hollows it and only ever points it at stub_syscall (to inject a syscall)
 * or at guest code.  _start exits at once, in case the tracer vanished
 * between the fork and the exec stop.
 *
 * The skas backend execs the same ELF with two arguments: then _start calls
 * SKAS_ATTACH on the thread fd it inherited (STUB_SKAS_FD) and, as the
 * module never lets it return, only exits (status: the errno) on failure.
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
	cmpq $2, (%rsp)		/* argc */
	jne 1f
	movl $16, %eax		/* ioctl(STUB_SKAS_FD, SKAS_ATTACH, &attach) */
	movl $STUB_SKAS_FD, %edi
	movl $STUB_SKAS_ATTACH, %esi
	leaq skas_attach(%rip), %rdx
	syscall
	movl %eax, %edi
	negl %edi		/* exit status: the errno */
	jmp 2f
1:	xorl %edi, %edi
2:	movl $231, %eax		/* exit_group */
	syscall
	ud2
	.balign 8
skas_attach:			/* struct skas_attach: size 32, all else 0 */
	.long 32, 0
	.quad 0, 0, 0

	.section .data.stub, "aw"
	.quad 0			/* keeps the data segment file-backed */

	.section .bss.stub, "aw", @nobits
	.skip STUB_DATA_SIZE - 8

	.section .note.GNU-stack, "", @progbits
