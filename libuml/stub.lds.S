/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "stub.h"
ENTRY(_start)
PHDRS
{
	text PT_LOAD FLAGS(5);
	data PT_LOAD FLAGS(6);
	stack PT_GNU_STACK FLAGS(6);	/* no executable stack */
}
SECTIONS
{
	. = STUB_BASE;
	.text : { *(.text.stub) *(.text*) } :text
	. = STUB_DATA;
	.data : { *(.data.stub) *(.data*) } :data
	.bss : { *(.bss.stub) *(.bss*) } :data
	/DISCARD/ : { *(.note*) *(.comment) *(.eh_frame*) *(.debug*) }
}
