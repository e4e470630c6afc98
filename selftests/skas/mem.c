// SPDX-License-Identifier: GPL-2.0
/*
 * Guest memory: SKAS_MEM map/unmap batches, SKAS_MEM_READ/WRITE, guest
 * code running from mapped memory, and SKAS_RUN_MEM's batch and run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <stdio.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "skas_test.h"

#define CODE	0x100000UL
#define DATA	0x200000UL

/* mov $39, %eax; syscall; ud2 */
static const unsigned char getpid_ud2[] = {
	0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x0f, 0x0b,
};

/* mov DATA, %rbx; syscall (rax as set); ud2 */
static const unsigned char load_data[] = {
	0x48, 0x8b, 0x1c, 0x25, 0x00, 0x00, 0x20, 0x00, 0x0f, 0x05, 0x0f, 0x0b,
};

FIXTURE(guest) {
	struct skas_guest g;
};

FIXTURE_SETUP(guest)
{
	int ret = skas_guest_start(&self->g);

	ASSERT_EQ(0, ret) TH_LOG("guest start: %d", ret);
}

FIXTURE_TEARDOWN(guest)
{
	skas_guest_stop(&self->g);
}

/* The whole loop: map, write code, run, syscall, result, fault. */
TEST_F(guest, code_runs_from_mapped_memory)
{
	struct skas_run *run = self->g.run;
	int as = self->g.as;

	ASSERT_EQ(1, skas_map_anon(as, CODE, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ((long)sizeof(getpid_ud2),
		  skas_rw(as, true, CODE, (void *)getpid_ud2,
			  sizeof(getpid_ud2)));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(39U, run->exit.syscall.nr);
	EXPECT_EQ(CODE + 7, run->regs.rip);
	run->regs.rax = 4242;
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGILL, run->exit.fault.signo);
	EXPECT_EQ(CODE + 7, run->regs.rip);
	EXPECT_EQ(4242U, run->regs.rax);
}

TEST_F(guest, write_read_round_trip_and_short_reads)
{
	char buf[8192], back[8192];
	int as = self->g.as;
	unsigned int i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	ASSERT_EQ(1, skas_map_anon(as, DATA, 8192, PROT_READ));
	EXPECT_EQ(8192, skas_rw(as, true, DATA, buf, 8192));
	EXPECT_EQ(8192, skas_rw(as, false, DATA, back, 8192));
	EXPECT_EQ(0, memcmp(buf, back, 8192));
	/* Across the end of the mapping: short.  Beyond it: EFAULT. */
	EXPECT_EQ(100, skas_rw(as, false, DATA + 8192 - 100, back, 200));
	EXPECT_EQ(-EFAULT, skas_rw(as, false, DATA + 8192, back, 10));
	EXPECT_EQ(-EFAULT, skas_rw(as, true, DATA + 8192, back, 10));
	/* A bad runtime buffer. */
	EXPECT_EQ(-EFAULT, skas_rw(as, false, DATA, SKAS_BAD_PTR, 10));
	EXPECT_EQ(-EFAULT, skas_rw(as, true, DATA, SKAS_BAD_PTR, 10));
	EXPECT_EQ(0, skas_rw(as, false, DATA, back, 0));
}

TEST_F(guest, file_mapping_private_and_shared)
{
	struct skas_run *run = self->g.run;
	uint64_t v = 0x1122334455667788ULL, got = 0;
	int as = self->g.as, fd;

	fd = memfd_create("skas-test", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 8192));
	ASSERT_EQ(8, pwrite(fd, &v, 8, 4096));
	ASSERT_EQ(1, skas_mem1(as, SKAS_MEM_MAP, DATA, 4096, PROT_READ,
			       SKAS_MAP_SHARED, fd, 4096));
	close(fd);	/* the mapping holds the file */
	ASSERT_EQ(1, skas_map_anon(as, CODE, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ((long)sizeof(load_data),
		  skas_rw(as, true, CODE, (void *)load_data,
			  sizeof(load_data)));
	skas_regs_at(&self->g, CODE);
	run->regs.rax = 39;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(v, run->regs.rbx);
	EXPECT_EQ(8, skas_rw(as, false, DATA, &got, 8));
	EXPECT_EQ(v, got);
}

TEST_F(guest, unmap_then_fault)
{
	struct skas_run *run = self->g.run;
	int as = self->g.as;

	ASSERT_EQ(1, skas_map_anon(as, CODE, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ(1, skas_mem1(as, SKAS_MEM_UNMAP, CODE, 4096, 0, 0, -1, 0));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGSEGV, run->exit.fault.signo);
	EXPECT_EQ(CODE, run->exit.fault.addr);
	/* Unmapping nothing is fine, as munmap. */
	EXPECT_EQ(1, skas_mem1(as, SKAS_MEM_UNMAP, CODE, 4096, 0, 0, -1, 0));
}

/* The guest sees none of the runtime's (the stub's former) memory. */
TEST_F(guest, guest_cannot_read_runtime_memory)
{
	static const unsigned char load_rdi[] = {
		0x48, 0x8b, 0x07, 0x0f, 0x05,	/* mov (%rdi), %rax; syscall */
	};
	static volatile uint64_t secret = 42;
	struct skas_run *run = self->g.run;
	int as = self->g.as;

	ASSERT_EQ(1, skas_map_anon(as, CODE, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ((long)sizeof(load_rdi),
		  skas_rw(as, true, CODE, (void *)load_rdi, sizeof(load_rdi)));
	skas_regs_at(&self->g, CODE);
	run->regs.rdi = (unsigned long)&secret;
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGSEGV, run->exit.fault.signo);
	EXPECT_EQ((unsigned long)&secret, run->exit.fault.addr);
}

TEST_F(guest, batch_stops_at_first_failure)
{
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR);
	struct skas_mem_op ops[3];
	struct skas_mem_batch b;
	int i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 3; i++) {
		ops[i].op = SKAS_MEM_MAP;
		ops[i].addr = CODE + i * 0x10000;
		ops[i].len = 4096;
		ops[i].prot = PROT_READ;
		ops[i].flags = SKAS_MAP_PRIVATE | SKAS_MAP_ANONYMOUS;
		ops[i].fd = -1;
	}
	ops[1].addr = vdso;	/* over the vDSO: refused when run */
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = 3;
	b.ops = (unsigned long)ops;
	EXPECT_EQ(1, ioctl(self->g.as, SKAS_MEM, &b));
	EXPECT_EQ(-EINVAL, b.error);
	/* The first op failing: -1 with its errno. */
	b.ops = (unsigned long)&ops[1];
	b.count = 2;
	b.error = 0;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	/* The vDSO is intact: it still has its ELF header. */
	char elf[4];
	EXPECT_EQ(4, skas_rw(self->g.as, false, vdso, elf, 4));
	EXPECT_EQ(0, memcmp(elf, "\177ELF", 4));
	/* So is writing it: the module runs an instruction of it. */
	EXPECT_EQ(-EINVAL, skas_rw(self->g.as, true, vdso, elf, 4));
	/* Unmapping it is refused too. */
	EXPECT_EQ(-EINVAL, skas_mem1(self->g.as, SKAS_MEM_UNMAP, vdso, 4096,
				     0, 0, -1, 0));
}

TEST_F(guest, bad_ops_rejected_before_any_runs)
{
	struct { unsigned int op, prot, flags; int fd;
		 unsigned long addr, len, off; int err; } bad[] = {
		{ 0, 0, 0, -1, CODE, 4096, 0, EINVAL },		/* no op */
		{ 9, 0, 0, -1, CODE, 4096, 0, EINVAL },		/* unknown */
		{ 1, 1, 0x22, -1, CODE + 1, 4096, 0, EINVAL },	/* unaligned */
		{ 1, 1, 0x22, -1, CODE, 100, 0, EINVAL },	/* short */
		{ 1, 1, 0x22, -1, CODE, 0, 0, EINVAL },		/* empty */
		{ 1, 1, 0x22, -1, -4096UL, 8192, 0, EINVAL },	/* wraps */
		{ 1, 1, 0x22, -1, 0xffff888000000000UL, 4096, 0, EINVAL },
		{ 1, 1, 0x22, -1, 0x0100000000000000UL, 4096, 0, EINVAL },
		{ 1, 8, 0x22, -1, CODE, 4096, 0, EINVAL },	/* prot */
		{ 1, 1, 0x23, -1, CODE, 4096, 0, EINVAL },	/* both */
		{ 1, 1, 0x20, -1, CODE, 4096, 0, EINVAL },	/* neither */
		{ 1, 1, 0x4022, -1, CODE, 4096, 0, EINVAL },	/* unknown */
		{ 1, 1, 0x22, 0, CODE, 4096, 0, EINVAL },	/* anon+fd */
		{ 1, 1, 0x22, -1, CODE, 4096, 4096, EINVAL },	/* anon+off */
		{ 1, 1, 0x02, -1, CODE, 4096, 0, EBADF },	/* file, bad fd */
		{ 1, 1, 0x02, 999, CODE, 4096, 0, EBADF },
		{ 2, 1, 0, -1, CODE, 4096, 0, EINVAL },		/* unmap+prot */
		{ 2, 0, 0, 3, CODE, 4096, 0, EINVAL },		/* unmap+fd */
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = skas_mem1(self->g.as, bad[i].op, bad[i].addr,
				    bad[i].len, bad[i].prot, bad[i].flags,
				    bad[i].fd, bad[i].off);
		int want = -bad[i].err;

		EXPECT_EQ(want, ret) TH_LOG("case %u", i);
	}
}

TEST_F(guest, bad_batch_rejected)
{
	struct skas_mem_op op;
	struct skas_mem_batch b;

	memset(&op, 0, sizeof(op));
	op.op = SKAS_MEM_UNMAP;
	op.addr = CODE;
	op.len = 4096;
	op.fd = -1;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = 1;
	b.ops = (unsigned long)&op;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MEM, SKAS_BAD_PTR));
	EXPECT_EQ(EFAULT, errno);
	b.ops = (unsigned long)SKAS_BAD_PTR;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MEM, &b));
	EXPECT_EQ(EFAULT, errno);
	b.ops = (unsigned long)&op;
	b.count = SKAS_MEM_MAX_OPS + 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	b.count = 1;
	b.reserved[1] = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	b.reserved[1] = 0;
	b.size = 8;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	b.size = sizeof(b);
	op.reserved = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	op.reserved = 0;
	b.count = 0;
	EXPECT_EQ(0, ioctl(self->g.as, SKAS_MEM, &b));
	b.count = 1;
	EXPECT_EQ(1, ioctl(self->g.as, SKAS_MEM, &b));
}

/* mprotect runs as a real syscall of the guest task; its state survives. */
TEST_F(guest, protect_changes_access_and_keeps_registers)
{
	/* mov $39,%eax; syscall; ud2 */
	struct skas_run *run = self->g.run;
	struct skas_mem_op ops[3];
	struct skas_mem_batch b;
	int as = self->g.as, i;

	ASSERT_EQ(1, skas_map_anon(as, CODE, 4096, PROT_READ | PROT_WRITE));
	ASSERT_EQ((long)sizeof(getpid_ud2),
		  skas_rw(as, true, CODE, (void *)getpid_ud2,
			  sizeof(getpid_ud2)));
	/* Not executable yet. */
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGSEGV, run->exit.fault.signo);
	EXPECT_EQ(SEGV_ACCERR, run->exit.fault.code);
	/* A batch: protect, map, protect; all run, in order. */
	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 3; i++)
		ops[i].fd = -1;
	ops[0].op = SKAS_MEM_PROTECT;
	ops[0].addr = CODE;
	ops[0].len = 4096;
	ops[0].prot = PROT_READ | PROT_EXEC;
	ops[1].op = SKAS_MEM_MAP;
	ops[1].addr = DATA;
	ops[1].len = 4096;
	ops[1].prot = PROT_READ | PROT_WRITE;
	ops[1].flags = SKAS_MAP_PRIVATE | SKAS_MAP_ANONYMOUS;
	ops[2] = ops[0];
	ops[2].addr = DATA;
	ops[2].prot = PROT_READ;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = 3;
	b.ops = (unsigned long)ops;
	ASSERT_EQ(3, ioctl(as, SKAS_MEM, &b));
	EXPECT_EQ(0, b.error);
	skas_regs_at(&self->g, CODE);
	run->regs.r12 = 0x1212;
	run->regs.rcx = 0xc0c0;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(39U, run->exit.syscall.nr);
	/* Stopped at a syscall: a protect now must not disturb the guest. */
	EXPECT_EQ(1, skas_mem1(as, SKAS_MEM_PROTECT, DATA, 4096, PROT_NONE,
			       0, -1, 0));
	run->regs.rax = 77;
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGILL, run->exit.fault.signo);
	EXPECT_EQ(CODE + 7, run->regs.rip);
	EXPECT_EQ(77U, run->regs.rax);
	EXPECT_EQ(0x1212U, run->regs.r12);
	/* Errors come from mprotect itself. */
	EXPECT_EQ(-ENOMEM, skas_mem1(as, SKAS_MEM_PROTECT, 0x300000, 4096,
				     PROT_READ, 0, -1, 0));
	EXPECT_EQ(-EINVAL, skas_mem1(as, SKAS_MEM_PROTECT,
				     getauxval(AT_SYSINFO_EHDR), 4096,
				     PROT_READ | PROT_WRITE, 0, -1, 0));
	EXPECT_EQ(-EINVAL, skas_mem1(as, SKAS_MEM_PROTECT, CODE, 4096,
				     PROT_READ, SKAS_MAP_PRIVATE, -1, 0));
	EXPECT_EQ(-EINVAL, skas_mem1(as, SKAS_MEM_PROTECT, CODE, 4096,
				     0x10, 0, -1, 0));
}

/* The guest itself jumping to the vDSO's syscall: trapped as always. */
TEST_F(guest, guest_syscall_in_vdso_after_protect_is_trapped)
{
	const unsigned char *v = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct skas_run *run = self->g.run;
	unsigned long insn = 0;
	unsigned int i;

	for (i = 0; i < 8191 && !insn; i++)
		if (v[i] == 0x0f && v[i + 1] == 0x05)
			insn = (unsigned long)v + i;
	ASSERT_NE(0UL, insn);
	ASSERT_EQ(1, skas_map_anon(self->g.as, CODE, 4096, PROT_READ));
	ASSERT_EQ(1, skas_mem1(self->g.as, SKAS_MEM_PROTECT, CODE, 4096,
			       PROT_READ | PROT_WRITE | PROT_EXEC, 0, -1, 0));
	skas_regs_at(&self->g, insn);
	run->regs.rax = 10;		/* mprotect */
	run->regs.rdi = CODE;
	run->regs.rsi = 4096;
	run->regs.rdx = PROT_NONE;
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(10U, run->exit.syscall.nr);
	/* Not executed: CODE still runs (ud2 there: SIGILL, not SIGSEGV). */
	ASSERT_EQ(2, skas_rw(self->g.as, true, CODE, "\x0f\x0b", 2));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGILL, run->exit.fault.signo);
}

/* SKAS_RESET: all guest mappings go, the vDSO stays, registers zeroed. */
TEST_F(guest, reset_empties_the_address_space)
{
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR);
	struct skas_run *run = self->g.run;
	char c, elf[4];

	ASSERT_EQ(1, skas_map_anon(self->g.as, CODE, 4096, PROT_READ));
	ASSERT_EQ(1, skas_map_anon(self->g.as, DATA, 8192, PROT_READ));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));	/* not exec */
	ASSERT_EQ(0, ioctl(self->g.as, SKAS_RESET, 0));
	EXPECT_EQ(-EFAULT, skas_rw(self->g.as, false, CODE, &c, 1));
	EXPECT_EQ(-EFAULT, skas_rw(self->g.as, false, DATA, &c, 1));
	EXPECT_EQ(4, skas_rw(self->g.as, false, vdso, elf, 4));
	EXPECT_EQ(0, memcmp(elf, "\177ELF", 4));
	EXPECT_EQ(0U, run->regs.rip);
	/* The address space works as new. */
	ASSERT_EQ(1, skas_map_anon(self->g.as, CODE, 4096,
				   PROT_READ | PROT_EXEC));
	ASSERT_EQ((long)sizeof(getpid_ud2),
		  skas_rw(self->g.as, true, CODE, (void *)getpid_ud2,
			  sizeof(getpid_ud2)));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	EXPECT_EQ(39U, run->exit.syscall.nr);
}

TEST_F(guest, reset_needs_one_live_stopped_thread)
{
	struct skas_clone c;

	/* A fork's parent and child are in different address spaces. */
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	ASSERT_EQ(0, ioctl(self->g.thread, SKAS_CLONE, &c));
	EXPECT_EQ(0, ioctl(c.aspace_fd, SKAS_RESET, 0));
	close(c.thread_fd);
	close(c.aspace_fd);
	waitpid(c.host_tid, NULL, 0);
	ASSERT_EQ(0, kill(self->g.pid, SIGKILL));
	ASSERT_EQ(self->g.pid, waitpid(self->g.pid, NULL, 0));
	self->g.pid = 0;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_RESET, 0));
	EXPECT_EQ(ESRCH, errno);
}

/* What the guest task's fd table holds, as "n:target n:target ...". */
static void guest_fds(pid_t pid, char *out, size_t len)
{
	char path[64], link[64];
	size_t used = 0;
	int fd;

	out[0] = 0;
	for (fd = 0; fd < 64; fd++) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = 0;
		used += snprintf(out + used, len - used, "%d:%.5s ", fd, link);
	}
}

/* The stub keeps no fds; the runtime installs them where it wants. */
TEST_F(guest, install_fd_at_a_number)
{
	char fds[256];
	int p[2];

	guest_fds(self->g.pid, fds, sizeof(fds));
	EXPECT_STREQ("", fds);
	ASSERT_EQ(0, pipe(p));
	EXPECT_EQ(0, skas_install_fd(self->g.as, p[1], 5, 0));
	EXPECT_EQ(0, skas_install_fd(self->g.as, p[0], 0, SKAS_FD_CLOEXEC));
	guest_fds(self->g.pid, fds, sizeof(fds));
	EXPECT_STREQ("0:pipe: 5:pipe: ", fds);
	/* Replacing: 5 becomes the read end (as dup3). */
	EXPECT_EQ(0, skas_install_fd(self->g.as, p[0], 5, 0));
	guest_fds(self->g.pid, fds, sizeof(fds));
	EXPECT_STREQ("0:pipe: 5:pipe: ", fds);
	/* The guest's pipe ends are the runtime's: they keep it open. */
	close(p[0]);
	close(p[1]);
	/* Bad input. */
	EXPECT_EQ(-EBADF, skas_install_fd(self->g.as, 999, 3, 0));
	EXPECT_EQ(-EBADF, skas_install_fd(self->g.as, -1, 3, 0));
	EXPECT_EQ(-EINVAL, skas_install_fd(self->g.as, 0, -1, 0));
	EXPECT_EQ(-EINVAL, skas_install_fd(self->g.as, 0, 3, 2));
	EXPECT_EQ(-EBADF, skas_install_fd(self->g.as, 0, 1 << 30, 0));
	guest_fds(self->g.pid, fds, sizeof(fds));
	EXPECT_STREQ("0:pipe: 5:pipe: ", fds);
	/* The guest still runs: its registers were kept. */
	skas_regs_at(&self->g, 0x10000);
	EXPECT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(0x10000U, self->g.run->exit.fault.addr);
}

TEST(mem_without_attached_thread_ENOENT)
{
	char c;
	int dev = skas_open_dev(), as, t;

	ASSERT_LE(0, dev);
	as = skas_create_aspace(dev);
	ASSERT_LE(0, as);
	EXPECT_EQ(-ENOENT, skas_map_anon(as, CODE, 4096, PROT_READ));
	EXPECT_EQ(-ENOENT, skas_rw(as, false, CODE, &c, 1));
	errno = 0;
	EXPECT_EQ(-1, ioctl(as, SKAS_RESET, 0));
	EXPECT_EQ(ENOENT, errno);
	t = skas_create_thread(as);
	ASSERT_LE(0, t);
	EXPECT_EQ(-ENOENT, skas_map_anon(as, CODE, 4096, PROT_READ));
	close(t);
	close(as);
	close(dev);
}

TEST_F(guest, mem_on_dead_guest)
{
	char c = 0;

	ASSERT_EQ(0, kill(self->g.pid, SIGKILL));
	ASSERT_EQ(self->g.pid, waitpid(self->g.pid, NULL, 0));
	self->g.pid = 0;
	EXPECT_EQ(-ESRCH, skas_map_anon(self->g.as, CODE, 4096, PROT_READ));
	EXPECT_EQ(-ENOENT, skas_rw(self->g.as, true, CODE, &c, 1));
}

static void anon_op(struct skas_mem_op *op, unsigned long addr,
		    unsigned int prot)
{
	memset(op, 0, sizeof(*op));
	op->op = SKAS_MEM_MAP;
	op->addr = addr;
	op->len = 4096;
	op->prot = prot;
	op->flags = SKAS_MAP_PRIVATE | SKAS_MAP_ANONYMOUS;
	op->fd = -1;
}

/* The page-fault case: map the missing page, resume, in one call. */
TEST_F(guest, run_mem_maps_then_runs)
{
	struct skas_run *run = self->g.run;
	struct skas_mem_op ops[2];
	uint64_t v = 0x5a5a5a5a12345678ULL;
	int as = self->g.as, error = -1, fd;

	ASSERT_EQ(1, skas_map_anon(as, CODE, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ((long)sizeof(load_data),
		  skas_rw(as, true, CODE, (void *)load_data,
			  sizeof(load_data)));
	skas_regs_at(&self->g, CODE);
	run->regs.rax = 39;
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGSEGV, run->exit.fault.signo);
	EXPECT_EQ(DATA, run->exit.fault.addr);
	EXPECT_EQ(CODE, run->regs.rip);
	/* A file page at DATA, and a page more; then the load is redone. */
	fd = memfd_create("data", MFD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 4096));
	ASSERT_EQ((ssize_t)sizeof(v), pwrite(fd, &v, sizeof(v), 0));
	anon_op(&ops[0], DATA, PROT_READ);
	ops[0].flags = SKAS_MAP_PRIVATE;
	ops[0].fd = fd;
	anon_op(&ops[1], DATA + 0x10000, PROT_READ | PROT_WRITE);
	run->regs.rax = 39;
	ASSERT_EQ(0, skas_run_mem(&self->g, ops, 2, &error));
	EXPECT_EQ(0, error);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, (int)run->exit_reason);
	EXPECT_EQ(39U, run->exit.syscall.nr);
	EXPECT_EQ(v, run->regs.rbx);
	EXPECT_EQ(1, (int)skas_rw(as, false, DATA + 0x10000, &v, 1));
	close(fd);
	/* No operations: a plain run. */
	ASSERT_EQ(0, skas_run_mem(&self->g, ops, 0, NULL));
	EXPECT_EQ(SKAS_EXIT_FAULT, (int)run->exit_reason);
	EXPECT_EQ(SIGILL, run->exit.fault.signo);
}

/* A native operation (mprotect) in the batch, then the run. */
TEST_F(guest, run_mem_protect_then_run)
{
	/* mov %rbx, DATA; ud2 */
	static const unsigned char store[] = {
		0x48, 0x89, 0x1c, 0x25, 0x00, 0x00, 0x20, 0x00, 0x0f, 0x0b,
	};
	struct skas_run *run = self->g.run;
	struct skas_mem_op op;
	int as = self->g.as, error = -1;

	ASSERT_EQ(1, skas_map_anon(as, CODE, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ(1, skas_map_anon(as, DATA, 4096, PROT_READ | PROT_WRITE));
	ASSERT_EQ((long)sizeof(store),
		  skas_rw(as, true, CODE, (void *)store, sizeof(store)));
	memset(&op, 0, sizeof(op));
	op.op = SKAS_MEM_PROTECT;
	op.addr = DATA;
	op.len = 4096;
	op.prot = PROT_READ;
	op.fd = -1;
	skas_regs_at(&self->g, CODE);
	run->regs.rbx = 0x77;
	run->regs.r12 = 0x1212;
	ASSERT_EQ(0, skas_run_mem(&self->g, &op, 1, &error));
	EXPECT_EQ(0, error);
	ASSERT_EQ(SKAS_EXIT_FAULT, (int)run->exit_reason);
	EXPECT_EQ(SIGSEGV, run->exit.fault.signo);
	EXPECT_EQ(SEGV_ACCERR, run->exit.fault.code);
	EXPECT_EQ(CODE, run->regs.rip);
	EXPECT_EQ(0x1212U, run->regs.r12);
}

/* A failed operation: nothing runs, the run page is as it was. */
TEST_F(guest, run_mem_failure_runs_nothing)
{
	struct skas_run *run = self->g.run;
	struct skas_mem_op ops[2];
	struct skas_run before;
	int as = self->g.as, error = 0;

	ASSERT_EQ(1, skas_map_anon(as, CODE, 4096, PROT_READ | PROT_EXEC));
	ASSERT_EQ((long)sizeof(getpid_ud2),
		  skas_rw(as, true, CODE, (void *)getpid_ud2,
			  sizeof(getpid_ud2)));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(SKAS_EXIT_SYSCALL, skas_run(&self->g));
	run->regs.rax = 5;
	before = *run;
	/* The second one, over the vDSO, fails when it is run. */
	anon_op(&ops[0], DATA, PROT_READ);
	anon_op(&ops[1], getauxval(AT_SYSINFO_EHDR), PROT_READ);
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, ops, 2, &error));
	EXPECT_EQ(-EINVAL, error);
	EXPECT_EQ(0, memcmp(&before, run, sizeof(before)));
	/* The first stays done, as in SKAS_MEM. */
	EXPECT_EQ(1, (int)skas_rw(as, false, DATA, &error, 1));
	/* Bad registers: refused before the batch. */
	anon_op(&ops[0], DATA + 0x10000, PROT_READ);
	run->regs.rip = 0xffff800000000000ULL;
	EXPECT_EQ(-EINVAL, skas_run_mem(&self->g, ops, 1, NULL));
	EXPECT_EQ(-EFAULT, (int)skas_rw(as, false, DATA + 0x10000, &error, 1));
	run->regs = before.regs;
	/* The guest goes on as if nothing had been tried. */
	ASSERT_EQ(SKAS_EXIT_FAULT, skas_run(&self->g));
	EXPECT_EQ(SIGILL, run->exit.fault.signo);
	EXPECT_EQ(5U, run->regs.rax);
}

TEST_F(guest, run_mem_bad_arguments)
{
	struct skas_run *run = self->g.run;
	struct skas_mem_op op;
	struct skas_mem_batch b;
	int t = self->g.thread;

	ASSERT_EQ(1, skas_map_anon(self->g.as, CODE, 4096,
				   PROT_READ | PROT_EXEC));
	skas_regs_at(&self->g, CODE);
	anon_op(&op, DATA, PROT_READ);
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = 1;
	b.ops = (unsigned long)&op;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN_MEM, SKAS_BAD_PTR));
	EXPECT_EQ(EFAULT, errno);
	b.ops = (unsigned long)SKAS_BAD_PTR;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN_MEM, &b));
	EXPECT_EQ(EFAULT, errno);
	b.ops = (unsigned long)&op;
	b.count = SKAS_MEM_MAX_OPS + 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	b.count = 1;
	b.size = 8;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	b.size = sizeof(b);
	b.error = -1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	b.error = 0;
	b.reserved[0] = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	b.reserved[0] = 0;
	op.prot = 0x10;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	/* A kernel-internal operation number is not one of the ABI's. */
	op.prot = PROT_READ;
	op.op = 0x100;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN_MEM, &b));
	EXPECT_EQ(EINVAL, errno);
	op.op = SKAS_MEM_MAP;
	op.fd = 999;
	op.flags = SKAS_MAP_PRIVATE;
	errno = 0;
	EXPECT_EQ(-1, ioctl(t, SKAS_RUN_MEM, &b));
	EXPECT_EQ(EBADF, errno);
	/* None of these ran the guest or mapped anything. */
	EXPECT_EQ(SKAS_EXIT_NONE, (int)run->exit_reason);
	EXPECT_EQ(-EFAULT, (int)skas_rw(self->g.as, false, DATA, &op, 1));
	/* Not on the address space's fd. */
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->g.as, SKAS_RUN_MEM, &b));
	EXPECT_EQ(ENOTTY, errno);
}

/* A kick while stopped: the batch is applied, the run returns at once. */
TEST_F(guest, run_mem_after_a_kick)
{
	struct skas_run *run = self->g.run;
	struct skas_mem_op op;
	char c;

	ASSERT_EQ(1, skas_map_anon(self->g.as, CODE, 4096,
				   PROT_READ | PROT_EXEC));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(0, ioctl(self->g.thread, SKAS_KICK, 0));
	anon_op(&op, DATA, PROT_READ);
	ASSERT_EQ(0, skas_run_mem(&self->g, &op, 1, NULL));
	EXPECT_EQ(SKAS_EXIT_INTERRUPTED, (int)run->exit_reason);
	EXPECT_EQ(CODE, run->regs.rip);
	EXPECT_EQ(1, (int)skas_rw(self->g.as, false, DATA, &c, 1));
}

static void *run_in_thread(void *arg)
{
	return (void *)(intptr_t)skas_run(arg);
}

/* The thread must be stopped; a dead one reports its exit once. */
TEST_F(guest, run_mem_needs_a_stopped_thread)
{
	static const unsigned char spin[] = { 0xeb, 0xfe };	/* jmp . */
	struct skas_run *run = self->g.run;
	struct skas_mem_op op;
	siginfo_t si;
	pthread_t th;
	void *ret;
	int other;

	other = skas_create_thread(self->g.as);
	ASSERT_LE(0, other);
	anon_op(&op, DATA, PROT_READ);
	{
		struct skas_mem_batch b = { .size = sizeof(b), .count = 1,
					    .ops = (unsigned long)&op };

		errno = 0;
		EXPECT_EQ(-1, ioctl(other, SKAS_RUN_MEM, &b));
		EXPECT_EQ(ENOENT, errno);
	}
	close(other);
	ASSERT_EQ(1, skas_map_anon(self->g.as, CODE, 4096,
				   PROT_READ | PROT_EXEC));
	ASSERT_EQ((long)sizeof(spin),
		  skas_rw(self->g.as, true, CODE, (void *)spin, sizeof(spin)));
	skas_regs_at(&self->g, CODE);
	ASSERT_EQ(0, pthread_create(&th, NULL, run_in_thread, &self->g));
	usleep(200000);
	EXPECT_EQ(-EBUSY, skas_run_mem(&self->g, &op, 1, NULL));
	ASSERT_EQ(0, ioctl(self->g.thread, SKAS_KICK, 0));
	pthread_join(th, &ret);
	EXPECT_EQ(SKAS_EXIT_INTERRUPTED, (int)(intptr_t)ret);
	/* Dead (not reaped) before the call: it reports the exit, once. */
	ASSERT_EQ(0, kill(self->g.pid, SIGKILL));
	ASSERT_EQ(0, waitid(P_PID, self->g.pid, &si, WEXITED | WNOWAIT));
	EXPECT_EQ(0, skas_run_mem(&self->g, &op, 1, NULL));
	EXPECT_EQ(SKAS_EXIT_EXITED, (int)run->exit_reason);
	EXPECT_EQ(-ESRCH, skas_run_mem(&self->g, &op, 1, NULL));
}

TEST_HARNESS_MAIN
