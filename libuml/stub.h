/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Layout of the ptrace backend's stub, shared by the stub's assembly, its
 * linker script and the library.  The stub is linked at STUB_BASE, well
 * above where guests map; uml_aspace_info.guest_top is at or below it.
 */
#ifndef UML_STUB_H
#define UML_STUB_H

#define STUB_BASE		0x7f0000000000
#define STUB_CODE_SIZE		0x1000
/* "syscall; int3": the only instruction the backend injects syscalls at. */
#define STUB_SYSCALL		(STUB_BASE + 0x0)
#define STUB_SYSCALL_RET	(STUB_SYSCALL + 2)	/* rip after the syscall */
#define STUB_SYSCALL_END	(STUB_SYSCALL + 3)	/* rip after the int3 */
/* Fault-info handler: "int3" (the tracer reads the signal frame). */
#define STUB_HANDLER		(STUB_BASE + 0x10)
#define STUB_HANDLER_END	(STUB_HANDLER + 1)
/* Stub data: scratch for injected syscalls' arguments, then an altstack. */
#define STUB_DATA		(STUB_BASE + STUB_CODE_SIZE)
#define STUB_SCRATCH		STUB_DATA
#define STUB_SCRATCH_SIZE	0x1000
#define STUB_ALTSTACK		(STUB_DATA + STUB_SCRATCH_SIZE)
#define STUB_ALTSTACK_SIZE	0x20000
#define STUB_DATA_SIZE		(STUB_SCRATCH_SIZE + STUB_ALTSTACK_SIZE)
#define STUB_END		(STUB_DATA + STUB_DATA_SIZE)

/* The stub's end of the runtime's socketpair (file mappings). */
#define STUB_SOCK_FD		3

/* skas backend: the thread fd the stub attaches with, and the command. */
#define STUB_SKAS_FD		3
#define STUB_SKAS_ATTACH	0x4020b920	/* SKAS_ATTACH, checked in skas.c */
/*
 * skas backend: libuml's helper pages, mapped into every address space at
 * STUB_BASE (at guest_top, where the ptrace stub lives): code that saves or
 * loads the FPU state and traps back, and a data area for the image.
 */
#define SKAS_HELPER_CODE	STUB_BASE
#define SKAS_HELPER_DATA	(STUB_BASE + 0x1000)
#define SKAS_HELPER_DATA_SIZE	0x4000
#define SKAS_HELPER_END		(SKAS_HELPER_DATA + SKAS_HELPER_DATA_SIZE)

#endif
