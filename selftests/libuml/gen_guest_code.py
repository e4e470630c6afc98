#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Regenerates guest_code.h: hand-written guest snippets, assembled once so
# the tests need no assembler at run time.  Usage: ./gen_guest_code.py > guest_code.h
import os, subprocess, sys, tempfile

os.chdir(tempfile.mkdtemp())	# scratch files stay out of the tree
snips = {
'write_exit': """
	mov $1, %edi
	lea msg(%rip), %rsi
	mov $3, %edx
	mov $1, %eax
	syscall
	mov %rax, %rdi
	mov $60, %eax
	syscall
	ud2
msg:	.ascii "hi\\n"
""",
'int80': "mov $20, %eax\n mov $11, %ebx\n mov $22, %ecx\n int $0x80\n ud2\n",
'x32': "mov $0x40000027, %eax\n mov $5, %edi\n syscall\n ud2\n",
'segv_read': "mov $0x1234567, %r12d\n movq %r12, %xmm0\n mov 0x1230, %rax\n ud2\n",
'segv_write': "movl $1, 0x400000\n ud2\n",
'ud2': "ud2\n",
'divzero': "xor %ecx, %ecx\n div %ecx\n ud2\n",
'spin': "1: jmp 1b\n",
'sanitize': "pushfq\n pop %rdi\n mov %cs, %esi\n mov %ss, %edx\n mov $60, %eax\n syscall\n ud2\n",
'xmm1': "movq %xmm1, %rdi\n mov $60, %eax\n syscall\n ud2\n",
'ymm0hi': "vextractf128 $1, %ymm0, %xmm1\n movq %xmm1, %rdi\n mov $60, %eax\n syscall\n ud2\n",
'fsread': "mov %fs:0, %rdi\n mov $60, %eax\n syscall\n ud2\n",
'fork': "mov $57, %eax\n syscall\n mov %rax, 0x500000\n mov 0x500000, %rdi\n mov $60, %eax\n syscall\n ud2\n",
'thread': "mov $56, %eax\n syscall\n test %rax, %rax\n jnz 1f\n movq $0x77, 0x500008\n ud2\n1: mov 0x500008, %rdi\n mov $60, %eax\n syscall\n ud2\n",
'exit_via': "mov $60, %eax\n mov $42, %edi\n jmp *%rbx\n",
'vsyscall': """
	call *%rbx		# a legacy vsyscall: rbx = its entry address
ret_here:
	mov %rax, %rdi		# exit(the result)
	mov $60, %eax
	syscall
	ud2
""",
# getpid() forever, the word at GUEST_DATA as its first argument
'getpid_loop': "1: mov 0x500000, %rdi\n mov $39, %eax\n syscall\n jmp 1b\n",
# the same, but first a load from (r12), or a store to it if r13 is set
'touch_loop': "1: test %r13, %r13\n jz 2f\n mov %rax, (%r12)\n jmp 3f\n2: mov (%r12), %rax\n3: mov 0x500000, %rdi\n mov $39, %eax\n syscall\n jmp 1b\n",
}
for name, src in snips.items():
    open('s.S','w').write("\t.text\n.globl _s\n_s:\n" + src)
    subprocess.check_call(['gcc','-c','s.S','-o','s.o'])
    subprocess.check_call(['objcopy','-O','binary','-j','.text','s.o','s.bin'])
    b = open('s.bin','rb').read()
    dis = subprocess.check_output(['objdump','-d','s.o']).decode()
    lines = [l for l in dis.splitlines() if ':\t' in l]
    print("/*")
    for l in lines:
        parts = l.split('\t')
        print(" * " + '\t'.join(p.strip() for p in parts[2:]).rstrip())
    print(" */")
    print("static const unsigned char code_%s[] = {" % name)
    for i in range(0, len(b), 12):
        print("\t" + ", ".join("0x%02x" % c for c in b[i:i+12]) + ",")
    print("};\n")
