/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A program linked at 0x7f0000000000, where libuml keeps its own pages in
 * every guest: natively it prints "high" and exits 0; umlrun must refuse
 * to load it (the segment lies past the guest's top).
 */
#include <sys/syscall.h>

	.text
	.globl	_start
_start:
	mov	$SYS_write, %eax
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$5, %edx
	syscall
	mov	$SYS_exit_group, %eax
	xor	%edi, %edi
	syscall

	.section .rodata
msg:	.ascii	"high\n"
	.section .note.GNU-stack, "", @progbits
