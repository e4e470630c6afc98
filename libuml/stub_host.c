// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What both backends do to start a stub: its ELF in a sealed memfd, the
 * child's fds before the exec, and the legacy vsyscall page (the filter a
 * stub gets where the host emulates vsyscalls, and the fault its SIGSYS
 * becomes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/*
 * The stub ELF (embedded by stub_blob.S) in a sealed memfd, which both
 * backends execute to get a fresh host task.  Returns the fd or -errno.
 */
int __uml_stub_memfd(void)
{
	size_t len = __uml_stub_elf_end - __uml_stub_elf;
	int fd;

	/* MFD_EXEC (6.3+) matters under vm.memfd_noexec; 6.1 lacks it. */
	fd = memfd_create("uml-stub", MFD_CLOEXEC | MFD_ALLOW_SEALING | 0x10);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("uml-stub", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (write(fd, __uml_stub_elf, len) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW |
	      F_SEAL_WRITE);
	return fd;
}

/*
 * In a forked child about to exec the stub: leave it @keep as fd @keep_at
 * (inherited across exec) and the stub memfd (returned, close-on-exec);
 * close fds below @keep_at now and mark every other close-on-exec, or close
 * it where close_range(CLOSE_RANGE_CLOEXEC) is missing (before 5.11).
 * Async-signal-safe.  Returns the fd to exec, or -1.
 */
int __uml_stub_child_fds(int stub_fd, int keep, int keep_at)
{
	int fd, i;

	fd = fcntl(stub_fd, F_DUPFD_CLOEXEC, keep_at + 1);
	if (fd < 0 || dup2(keep, keep_at) < 0 || fcntl(keep_at, F_SETFD, 0))
		return -1;
	for (i = 0; i < keep_at; i++)
		close(i);
	if (syscall(SYS_close_range, keep_at + 1, ~0U, 4 /* CLOEXEC */)) {
		for (i = keep_at + 1; i < 65536; i++)
			if (i != fd)
				close(i);
	}
	return fd;
}

/* ---- the legacy vsyscall page ------------------------------------------ */

/*
 * A host that emulates vsyscalls (vsyscall=xonly or emulate) runs a call
 * to 0xffffffffff600000, ...400 or ...800 as gettimeofday, time or getcpu
 * in the page-fault handler (emulate_vsyscall()), with no ptrace stop and
 * no sys_enter tracepoint: neither backend would see it, and the guest
 * would read the host's time.  That path does run seccomp, with the
 * syscall's number and the entry as the instruction pointer, and only
 * that path can have an instruction pointer in the vsyscall page.  So
 * every stub runs under this filter (inherited by its forks and threads):
 * SECCOMP_RET_TRAP there, SECCOMP_RET_ALLOW for everything else, which
 * PTRACE_SYSEMU syscalls never even reach and skas.ko's probe sees after
 * it.  The number is tested first: for every other number the result is
 * a constant ALLOW, which the kernel's seccomp cache (5.11+) answers from
 * a bitmap without running the filter.  That still costs every syscall of
 * a skas guest seccomp's entry (about 120 ns of a CONST getpid's 530 under
 * icount on 6.12), so the filter is only installed where it is needed: on
 * a host with vsyscall=none (Debian's kernels) a vsyscall is a page fault
 * that both backends already report, and 64-bit processes there have no
 * [vsyscall] mapping.
 */
#ifndef SYS_SECCOMP
#define SYS_SECCOMP	1	/* SIGSYS si_code; not in glibc 2.36 */
#endif
#define SD_NR		offsetof(struct seccomp_data, nr)

static const struct sock_filter vsyscall_insns[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_NR),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettimeofday, 3, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_time, 2, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getcpu, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	/* one of the three: is the instruction pointer in the page? */
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_IP_HI),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, VSYSCALL_PAGE >> 32, 0, 3),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SD_IP_LO),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfffff000),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)VSYSCALL_PAGE, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
};

/*
 * Whether this host emulates vsyscalls: a [vsyscall] line in our own maps
 * (the mode is fixed at boot).  When the maps cannot be read, assume so.
 */
int __uml_host_emulates_vsyscall(void)
{
	char line[256];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return 1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[vsyscall]") != NULL;
	fclose(f);
	return found;
}

/*
 * In a forked child about to exec the stub: install the filter (with
 * no_new_privs, which an unprivileged seccomp filter needs and which the
 * stub never notices).  Async-signal-safe.  0, or -1 if the host refused.
 */
int __uml_stub_vsyscall_filter(void)
{
	struct sock_fprog prog = {
		.len = sizeof(vsyscall_insns) / sizeof(vsyscall_insns[0]),
		.filter = (struct sock_filter *)vsyscall_insns,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) ? -1 : 0;
}

/*
 * A SIGSYS from the filter, seen at a stop: turn it into the fault a host
 * with vsyscall=none gives, a SIGSEGV at the entry (si_addr and rip there,
 * #PF with user, fetch and protection bits, the return address still on
 * the stack), so the guest sees the same on every host.  The host's
 * emulation already did the ret (rip = the return address, rsp + 8) and
 * left the syscall number in rax; rip and rsp go back, rax cannot.
 * Returns 1 if @call_addr was a vsyscall entry and @ex is filled in.
 */
int __uml_vsyscall_fault(struct uml_regs *r, int code, uint64_t call_addr,
			 struct uml_exit *ex)
{
	if (code != SYS_SECCOMP || (call_addr & ~PAGE_MASK_) != VSYSCALL_PAGE)
		return 0;
	ex->reason = UML_EXIT_FAULT;
	ex->fault.signo = SIGSEGV;
	ex->fault.code = SEGV_MAPERR;
	ex->fault.addr = call_addr;
	ex->fault.trapno = 14;		/* #PF */
	ex->fault.error_code = 0x15;	/* PF_USER | PF_INSTR | PF_PROT */
	r->rip = call_addr;
	r->rsp -= 8;
	return 1;
}
