/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stub ELF, embedded in the library (executed from a memfd). */
	.section .rodata.uml_stub, "a"
	.balign 16
	.globl __uml_stub_elf
	.globl __uml_stub_elf_end
	.hidden __uml_stub_elf
	.hidden __uml_stub_elf_end
__uml_stub_elf:
	.incbin STUB_ELF
__uml_stub_elf_end:
	.section .note.GNU-stack, "", @progbits
