// SPDX-License-Identifier: GPL-2.0
/*
 * libuml address spaces: create/destroy, the hollow stub, map/unmap/protect
 * batches and their bad input, guest memory access, reset.
 */
#include "libuml_test.h"

#include <pthread.h>
#include <sys/prctl.h>

FIXTURE(aspace) {
	struct uml_host *host;
	struct uml_aspace *as;
	struct uml_thread *t;
	struct uml_aspace_info info;
};
UML_VARIANTS(aspace);

FIXTURE_SETUP(aspace)
{
	UML_OPEN_OR_SKIP(&self->host, variant->backend);
	ASSERT_EQ(0, uml_aspace_create(self->host, &self->as, &self->t));
	ASSERT_EQ(0, uml_aspace_info(self->as, &self->info));
}

FIXTURE_TEARDOWN(aspace)
{
	uml_host_close(self->host);
}

TEST_F(aspace, create_destroy_leaves_no_process)
{
	struct uml_aspace *as2;
	struct uml_thread *t2;
	int pid, pid2;

	EXPECT_EQ(variant->backend, uml_host_backend(self->host));
	pid = uml_thread_host_tid(self->t);
	ASSERT_GT(pid, 0);
	ASSERT_TRUE(pid_exists(pid));
	EXPECT_EQ(self->as, uml_thread_aspace(self->t));
	EXPECT_GT(self->info.guest_top, UML_GUEST_MIN);
	EXPECT_LE(self->info.guest_top, 0x7ffffffff000ULL);

	ASSERT_EQ(0, uml_aspace_create(self->host, &as2, &t2));
	pid2 = uml_thread_host_tid(t2);
	ASSERT_NE(pid, pid2);
	uml_aspace_destroy(as2);
	EXPECT_FALSE(pid_exists(pid2));		/* killed and reaped */
	EXPECT_TRUE(pid_exists(pid));
	uml_aspace_destroy(self->as);
	EXPECT_FALSE(pid_exists(pid));
	EXPECT_EQ(0, count_children());
}

TEST_F(aspace, host_close_destroys_everything)
{
	struct uml_aspace *as;
	struct uml_thread *t;
	int pids[4], i;

	pids[0] = uml_thread_host_tid(self->t);
	for (i = 1; i < 4; i++) {
		ASSERT_EQ(0, uml_aspace_create(self->host, &as, &t));
		pids[i] = uml_thread_host_tid(t);
	}
	EXPECT_EQ(4, count_children());
	uml_host_close(self->host);
	self->host = NULL;
	for (i = 0; i < 4; i++)
		EXPECT_FALSE(pid_exists(pids[i]));
	EXPECT_EQ(0, count_children());
}

/* Nothing of the stub is left below guest_top; no fds but its own. */
TEST_F(aspace, stub_is_hollow)
{
	unsigned long long s, e;
	char path[64], line[512];
	int pid = uml_thread_host_tid(self->t), n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		ASSERT_EQ(2, sscanf(line, "%llx-%llx", &s, &e));
		n++;
		if (s >= self->info.guest_top)
			continue;
		/* Below guest_top only the vDSO may stay. */
		EXPECT_TRUE((s >= self->info.vdso_base &&
			     e <= self->info.vdso_base + self->info.vdso_len) ||
			    (s >= self->info.vvar_base &&
			     e <= self->info.vvar_base + self->info.vvar_len))
			TH_LOG("stub mapping below guest_top: %s", line);
	}
	fclose(f);
	EXPECT_LE(n, 8);
	EXPECT_LE(count_fds(pid), 1);
}

TEST_F(aspace, vdso_is_reported_and_readable)
{
	unsigned char elf[4];

	if (!self->info.vdso_base)
		SKIP(return, "no vDSO on this host");
	EXPECT_EQ(0, self->info.vdso_base & (PAGE - 1));
	EXPECT_GT(self->info.vdso_len, 0);
	ASSERT_EQ(4, uml_mem_read(self->as, elf, self->info.vdso_base, 4));
	EXPECT_EQ(0, memcmp(elf, "\177ELF", 4));
	/* The guest may not unmap it. */
	EXPECT_EQ(-EINVAL, uml_aspace_unmap(self->as, self->info.vdso_base,
					    self->info.vdso_len));
}

TEST_F(aspace, map_protect_unmap_batch)
{
	struct uml_mem_op ops[] = {
		{ .op = UML_MEM_MAP, .prot = PROT_READ | PROT_WRITE,
		  .flags = UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, .fd = -1,
		  .addr = GUEST_DATA, .len = 4 * PAGE },
		{ .op = UML_MEM_PROTECT, .prot = PROT_READ, .fd = -1,
		  .addr = GUEST_DATA + PAGE, .len = PAGE },
		{ .op = UML_MEM_UNMAP, .fd = -1,
		  .addr = GUEST_DATA + 3 * PAGE, .len = PAGE },
	};
	uint64_t v = 0x1122334455667788ULL, w = 0;
	int err = 1;

	ASSERT_EQ(3, uml_aspace_mem(self->as, ops, 3, &err));
	EXPECT_EQ(0, err);
	EXPECT_EQ(8, uml_mem_write(self->as, GUEST_DATA, &v, 8));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA, 8));
	EXPECT_EQ(v, w);
	/* Fresh anonymous memory reads as zero. */
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA + 2 * PAGE, 8));
	EXPECT_EQ(0, w);
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, &w, GUEST_DATA + 3 * PAGE, 8));
	/* An empty batch is fine. */
	EXPECT_EQ(0, uml_aspace_mem(self->as, ops, 0, &err));
	EXPECT_EQ(0, uml_aspace_unmap(self->as, GUEST_DATA, 4 * PAGE));
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, &w, GUEST_DATA, 8));
}

TEST_F(aspace, batch_stops_at_first_failure)
{
	struct uml_mem_op ops[3] = {
		{ .op = UML_MEM_MAP, .prot = PROT_READ,
		  .flags = UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, .fd = -1,
		  .addr = GUEST_DATA, .len = PAGE },
		{ .op = UML_MEM_MAP, .prot = PROT_READ,
		  .flags = UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, .fd = -1,
		  .addr = GUEST_DATA + 1, .len = PAGE },	/* unaligned */
		{ .op = UML_MEM_MAP, .prot = PROT_READ,
		  .flags = UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, .fd = -1,
		  .addr = GUEST_DATA + PAGE, .len = PAGE },
	};
	uint64_t w;
	int err = 0;

	EXPECT_EQ(1, uml_aspace_mem(self->as, ops, 3, &err));
	EXPECT_EQ(-EINVAL, err);
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA, 8));
	/* The third op did not run. */
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, &w, GUEST_DATA + PAGE, 8));
	/* Failing first: the -errno itself. */
	EXPECT_EQ(-EINVAL, uml_aspace_mem(self->as, ops + 1, 2, &err));
	EXPECT_EQ(-EINVAL, err);
	/* A file map of a closed fd stops it likewise, after the first. */
	ops[0].addr = GUEST_DATA + 2 * PAGE;
	ops[1] = ops[0];
	ops[1].flags = UML_MAP_PRIVATE;
	ops[1].fd = 9999;
	ops[1].addr = GUEST_DATA + 3 * PAGE;
	ops[2].addr = GUEST_DATA + 4 * PAGE;
	EXPECT_EQ(1, uml_aspace_mem(self->as, ops, 3, &err));
	EXPECT_EQ(-EBADF, err);
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA + 2 * PAGE, 8));
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, &w, GUEST_DATA + 3 * PAGE, 8));
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, &w, GUEST_DATA + 4 * PAGE, 8));
}

TEST_F(aspace, bad_mem_ops_are_rejected)
{
	const uint32_t anon = UML_MAP_PRIVATE | UML_MAP_ANONYMOUS;
	const uint64_t top = self->info.guest_top;
	struct uml_mem_op op = { .op = 99, .fd = -1, .addr = GUEST_DATA, .len = PAGE };
	int p = PROT_READ, err;
	uint64_t w;

	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA + 8, PAGE, p, anon, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA, PAGE + 8, p, anon, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA, 0, p, anon, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, 0, PAGE, p, anon, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, UML_GUEST_MIN - PAGE, PAGE, p, anon, -1, 0));
	/* The reserved area at and above guest_top. */
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, top, PAGE, p, anon, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, top - PAGE, 2 * PAGE, p, anon, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_unmap(self->as, top - PAGE, 2 * PAGE));
	EXPECT_EQ(-EINVAL, uml_aspace_protect(self->as, top, PAGE, p));
	/* Wrapping around. */
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA, -GUEST_DATA, p, anon, -1, 0));
	/* Flags: none or both of SHARED/PRIVATE, unknown bits. */
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA, PAGE, p, UML_MAP_ANONYMOUS, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA, PAGE, p,
					  anon | UML_MAP_SHARED, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA, PAGE, p, anon | 0x1000, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA, PAGE, 0x80, anon, -1, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_protect(self->as, GUEST_DATA, PAGE, 0x80));
	/* fds: anonymous with an fd, file maps with bad fds, bad offsets. */
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA, PAGE, p, anon, 0, 0));
	EXPECT_EQ(-EBADF, uml_aspace_map(self->as, GUEST_DATA, PAGE, p, UML_MAP_PRIVATE, -1, 0));
	EXPECT_EQ(-EBADF, uml_aspace_map(self->as, GUEST_DATA, PAGE, p, UML_MAP_PRIVATE, 9999, 0));
	EXPECT_EQ(-EINVAL, uml_aspace_map(self->as, GUEST_DATA, PAGE, p, UML_MAP_PRIVATE, 0, 12));
	/* Unknown op; NULL ops. */
	EXPECT_EQ(-EINVAL, uml_aspace_mem(self->as, &op, 1, &err));
	op.op = 0;
	EXPECT_EQ(-EINVAL, uml_aspace_mem(self->as, &op, 1, &err));
	op.op = UML_MEM_UNMAP;
	op.flags = UML_MAP_PRIVATE;
	EXPECT_EQ(-EINVAL, uml_aspace_mem(self->as, &op, 1, &err));
	EXPECT_EQ(-EINVAL, uml_aspace_mem(self->as, NULL, 1, &err));
	/* Nothing got mapped by any of this. */
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, &w, GUEST_DATA, 8));
}

/* A file mapping: the fd reaches the stub, and does not stay there. */
TEST_F(aspace, map_file_private_and_shared)
{
	char buf[2 * 4096], got[16];
	int sv[2];
	int fd, pid = uml_thread_host_tid(self->t), fds = count_fds(pid);

	fd = memfd_create("libuml-test", MFD_CLOEXEC);
	ASSERT_GE(fd, 0);
	memset(buf, 'a', 4096);
	memset(buf + 4096, 'b', 4096);
	ASSERT_EQ(sizeof(buf), write(fd, buf, sizeof(buf)));

	ASSERT_EQ(0, uml_aspace_map(self->as, GUEST_DATA, PAGE, PROT_READ,
				    UML_MAP_PRIVATE, fd, PAGE));
	ASSERT_EQ(16, uml_mem_read(self->as, got, GUEST_DATA, 16));
	EXPECT_EQ(0, memcmp(got, buf + 4096, 16));

	ASSERT_EQ(0, uml_aspace_map(self->as, GUEST_DATA + PAGE, PAGE,
				    PROT_READ | PROT_WRITE, UML_MAP_SHARED, fd, 0));
	ASSERT_EQ(5, uml_mem_write(self->as, GUEST_DATA + PAGE, "hello", 5));
	ASSERT_EQ(5, pread(fd, got, 5, 0));
	EXPECT_EQ(0, memcmp(got, "hello", 5));
	/* Private stays private. */
	ASSERT_EQ(5, uml_mem_write(self->as, GUEST_DATA, "world", 5));
	ASSERT_EQ(5, pread(fd, got, 5, 4096));
	EXPECT_EQ(0, memcmp(got, "bbbbb", 5));
	EXPECT_EQ(fds, count_fds(pid));
	/* A file mapping of an fd that cannot be mapped. */
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	EXPECT_EQ(-ENODEV, uml_aspace_map(self->as, GUEST_DATA, PAGE,
					  PROT_READ, UML_MAP_PRIVATE, sv[0], 0));
	close(sv[0]);
	close(sv[1]);
	EXPECT_EQ(fds, count_fds(pid));
	close(fd);
}

/* Several files in one batch: each mapping gets its own file. */
TEST_F(aspace, batch_of_file_maps)
{
	int pid = uml_thread_host_tid(self->t), fds = count_fds(pid);
	int fd[2], i, err;
	char c;
	struct uml_mem_op ops[4];

	for (i = 0; i < 2; i++) {
		fd[i] = memfd_create("libuml-test", MFD_CLOEXEC);
		ASSERT_GE(fd[i], 0);
		ASSERT_EQ(0, ftruncate(fd[i], 2 * PAGE));
		ASSERT_EQ(1, pwrite(fd[i], i ? "B" : "A", 1, 0));
		ASSERT_EQ(1, pwrite(fd[i], i ? "b" : "a", 1, PAGE));
	}
	for (i = 0; i < 4; i++) {
		ops[i] = (struct uml_mem_op){
			.op = UML_MEM_MAP, .prot = PROT_READ,
			.flags = UML_MAP_PRIVATE, .fd = fd[i == 2],
			.addr = GUEST_DATA + i * PAGE, .len = PAGE,
			.offset = (i & 1) * PAGE,
		};
	}
	ASSERT_EQ(4, uml_aspace_mem(self->as, ops, 4, &err));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(1, uml_mem_read(self->as, &c, GUEST_DATA + i * PAGE, 1));
		EXPECT_EQ("AaBa"[i], c);
	}
	EXPECT_EQ(fds, count_fds(pid));
	close(fd[0]);
	close(fd[1]);
}

TEST_F(aspace, mem_write_ignores_guest_protection)
{
	uint64_t v = 0xfeedfacecafebeefULL, w = 0;

	ASSERT_EQ(0, uml_aspace_map(self->as, GUEST_DATA, 2 * PAGE, PROT_READ,
				    UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, -1, 0));
	EXPECT_EQ(8, uml_mem_write(self->as, GUEST_DATA, &v, 8));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA, 8));
	EXPECT_EQ(v, w);
	/* Across a page boundary, read-only. */
	EXPECT_EQ(8, uml_mem_write(self->as, GUEST_DATA + PAGE - 4, &v, 8));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA + PAGE - 4, 8));
	EXPECT_EQ(v, w);
	/* PROT_NONE: readable and writable from the runtime. */
	ASSERT_EQ(0, uml_aspace_protect(self->as, GUEST_DATA, PAGE, PROT_NONE));
	w = 0;
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA, 8));
	EXPECT_EQ(v, w);
	v = 42;
	EXPECT_EQ(8, uml_mem_write(self->as, GUEST_DATA, &v, 8));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA, 8));
	EXPECT_EQ(42, w);
}

/* The backend's pages and the vDSO are never writable from the runtime. */
TEST_F(aspace, reserved_pages_are_not_writable)
{
	const uint64_t top = self->info.guest_top;
	unsigned char before[64], after[64], junk[64];
	uint64_t v = 0;

	memset(junk, 0xcc, sizeof(junk));
	/* Whatever lies at guest_top (reserved or nothing) stays as it was. */
	EXPECT_EQ(-EFAULT, uml_mem_write(self->as, top, junk, 64));
	EXPECT_EQ(-EFAULT, uml_mem_write(self->as, -64ULL, junk, 64));
	ASSERT_EQ(0, map_data(self->as, top - PAGE));
	EXPECT_EQ(8, uml_mem_write(self->as, top - 8, junk, 64));
	EXPECT_EQ(8, uml_mem_read(self->as, &v, top - 8, 8));
	EXPECT_EQ(0xccccccccccccccccULL, v);
	if (self->info.vdso_base) {
		ASSERT_EQ(64, uml_mem_read(self->as, before,
					   self->info.vdso_base, 64));
		EXPECT_EQ(-EFAULT, uml_mem_write(self->as, self->info.vdso_base,
						 junk, 64));
		EXPECT_EQ(-EFAULT, uml_mem_write(self->as, self->info.vvar_base,
						 junk, 64));
		ASSERT_EQ(64, uml_mem_read(self->as, after,
					   self->info.vdso_base, 64));
		EXPECT_EQ(0, memcmp(before, after, 64));
	}
}

TEST_F(aspace, mem_access_to_unmapped_memory)
{
	char buf[64];

	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, buf, GUEST_DATA, 8));
	EXPECT_EQ(-EFAULT, uml_mem_write(self->as, GUEST_DATA, buf, 8));
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, buf, 0xffff800000000000ULL, 8));
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, buf, -8ULL, 64));
	ASSERT_EQ(0, map_data(self->as, GUEST_DATA));
	/* Short counts at the end of a mapping. */
	EXPECT_EQ(16, uml_mem_read(self->as, buf, GUEST_DATA + PAGE - 16, 64));
	EXPECT_EQ(16, uml_mem_write(self->as, GUEST_DATA + PAGE - 16, buf, 64));
	EXPECT_EQ(0, uml_mem_read(self->as, buf, GUEST_DATA, 0));
}

TEST_F(aspace, reset_empties_the_guest)
{
	struct uml_regs *r = uml_thread_regs(self->t);
	uint64_t w;

	ASSERT_EQ(0, map_data(self->as, GUEST_DATA));
	ASSERT_EQ(0, map_data(self->as, self->info.guest_top - PAGE));
	r->rip = GUEST_CODE;
	r->rbx = 7;
	ASSERT_EQ(0, uml_aspace_reset(self->as));
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, &w, GUEST_DATA, 8));
	EXPECT_EQ(-EFAULT, uml_mem_read(self->as, &w, self->info.guest_top - PAGE, 8));
	EXPECT_EQ(0, r->rip);
	EXPECT_EQ(0, r->rbx);
	if (self->info.vdso_base)
		EXPECT_EQ(8, uml_mem_read(self->as, &w, self->info.vdso_base, 8));
	/* Usable afterwards. */
	ASSERT_EQ(0, map_data(self->as, GUEST_DATA));
	EXPECT_EQ(8, uml_mem_read(self->as, &w, GUEST_DATA, 8));
}

TEST_F(aspace, reset_needs_a_single_thread)
{
	struct uml_thread *t2;

	UML_NEED_THREADS(variant->backend);
	ASSERT_EQ(0, uml_thread_clone(self->t, UML_CLONE_THREAD, &t2, NULL));
	EXPECT_EQ(-EBUSY, uml_aspace_reset(self->as));
	uml_thread_destroy(t2);
	EXPECT_EQ(0, uml_aspace_reset(self->as));
}

/* 64 address spaces at once, each running; then nothing is left over. */
TEST_F(aspace, many_address_spaces)
{
	/* mov $39, %eax; syscall; ud2 */
	static const unsigned char code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x0f, 0x0b,
	};
	struct uml_aspace *as[64];
	struct uml_thread *t[64];
	struct uml_exit ex;
	int i, fds = count_fds(getpid());

	for (i = 0; i < 64; i++) {
		ASSERT_EQ(0, uml_aspace_create(self->host, &as[i], &t[i]));
		ASSERT_EQ(0, load_code(as[i], GUEST_CODE, code, sizeof(code)));
		uml_thread_regs(t[i])->rip = GUEST_CODE;
	}
	EXPECT_EQ(65, count_children());
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(0, uml_thread_run(t[i], &ex));
		EXPECT_EQ(UML_EXIT_SYSCALL, ex.reason);
		EXPECT_EQ(39, ex.syscall.nr);
	}
	for (i = 0; i < 64; i++)
		uml_aspace_destroy(as[i]);
	EXPECT_EQ(1, count_children());
	EXPECT_LE(count_fds(getpid()), fds);
}

/* The runtime's own fds: everything libuml opens is closed again. */
TEST_F(aspace, no_fd_leaks_in_the_runtime)
{
	struct uml_aspace *cas;
	struct uml_thread *c, *th;
	int fork_ok = uml_can_fork(variant->backend);
	int thread_ok = uml_can_thread(variant->backend);
	int fds, fd, i;

	uml_host_close(self->host);
	self->host = NULL;
	fds = count_fds(getpid());
	fd = memfd_create("libuml-test", MFD_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ftruncate(fd, PAGE));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, uml_host_open(&self->host, variant->backend));
		ASSERT_EQ(0, uml_aspace_create(self->host, &self->as, &self->t));
		ASSERT_EQ(0, uml_aspace_map(self->as, GUEST_DATA, PAGE, PROT_READ,
					    UML_MAP_SHARED, fd, 0));
		/* Clones where the backend has them (skas: see libuml_test.h). */
		if (fork_ok) {
			ASSERT_EQ(0, uml_thread_clone(self->t, 0, &c, &cas));
			uml_aspace_destroy(cas);
		}
		if (thread_ok) {
			ASSERT_EQ(0, uml_thread_clone(self->t, UML_CLONE_THREAD,
						      &th, NULL));
			uml_thread_destroy(th);
		}
		if (i)		/* once through uml_host_close() alone */
			uml_aspace_destroy(self->as);
		uml_host_close(self->host);
		self->host = NULL;
	}
	close(fd);
	EXPECT_EQ(fds, count_fds(getpid()));
	EXPECT_EQ(0, count_children());
}

/* Reap @pid (our child or orphan); 1 if it died of SIGKILL within 5 s. */
static int reaped_by_sigkill(int pid)
{
	int i, status;

	for (i = 0; i < 500; i++) {
		if (waitpid(pid, &status, WNOHANG | __WALL) == pid)
			return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
		usleep(10000);
	}
	return 0;
}

/* A guest task cannot outlive its runtime, even one killed by SIGKILL. */
TEST(runtime_death_kills_guests)
{
	struct uml_host *h;
	struct uml_aspace *as, *cas;
	struct uml_thread *t, *c, *th;
	int p[2], pids[3], i;
	pid_t rt;

	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(p));
	rt = fork();
	ASSERT_GE(rt, 0);
	if (!rt) {
		if (uml_host_open(&h, UML_BACKEND_PTRACE) ||
		    uml_aspace_create(h, &as, &t) ||
		    uml_thread_clone(t, 0, &c, &cas) ||
		    uml_thread_clone(t, UML_CLONE_THREAD, &th, NULL))
			_exit(1);
		pids[0] = uml_thread_host_tid(t);
		pids[1] = uml_thread_host_tid(c);
		pids[2] = uml_thread_host_tid(th);
		if (write(p[1], pids, sizeof(pids)) != sizeof(pids))
			_exit(1);
		pause();
		_exit(1);
	}
	close(p[1]);
	ASSERT_EQ(sizeof(pids), read(p[0], pids, sizeof(pids)));
	for (i = 0; i < 3; i++)
		ASSERT_TRUE(pid_exists(pids[i]));
	ASSERT_EQ(0, kill(rt, SIGKILL));
	ASSERT_TRUE(reaped_by_sigkill(rt));
	/* Orphans come to us, the subreaper: each died of SIGKILL. */
	for (i = 0; i < 3; i++)
		EXPECT_TRUE(reaped_by_sigkill(pids[i]));
}

/*
 * The same on skas: the module kills the guest tasks when the runtime's
 * fds go, whatever killed the runtime.
 */
TEST(skas_runtime_death_kills_guests)
{
	struct uml_host *h;
	struct uml_aspace *as[2], *cas;
	struct uml_thread *t[2], *c;
	int p[2], pids[3] = { 0, 0, 0 }, i, n = 2, r;
	pid_t rt;

	r = uml_host_open(&h, UML_BACKEND_SKAS);
	if (r)
		SKIP(return, "skas backend unavailable: %s", uml_strerror(r));
	uml_host_close(h);
	if (uml_can_fork(UML_BACKEND_SKAS))
		n = 3;
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(p));
	rt = fork();
	ASSERT_GE(rt, 0);
	if (!rt) {
		if (uml_host_open(&h, UML_BACKEND_SKAS) ||
		    uml_aspace_create(h, &as[0], &t[0]) ||
		    uml_aspace_create(h, &as[1], &t[1]) ||
		    (n == 3 && uml_thread_clone(t[0], 0, &c, &cas)))
			_exit(1);
		pids[0] = uml_thread_host_tid(t[0]);
		pids[1] = uml_thread_host_tid(t[1]);
		if (n == 3)
			pids[2] = uml_thread_host_tid(c);
		if (write(p[1], pids, sizeof(pids)) != sizeof(pids))
			_exit(1);
		pause();
		_exit(1);
	}
	close(p[1]);
	ASSERT_EQ(sizeof(pids), read(p[0], pids, sizeof(pids)));
	for (i = 0; i < n; i++)
		ASSERT_TRUE(pid_exists(pids[i]));
	ASSERT_EQ(0, kill(rt, SIGKILL));
	ASSERT_TRUE(reaped_by_sigkill(rt));
	for (i = 0; i < n; i++)
		EXPECT_TRUE(reaped_by_sigkill(pids[i]));
}

/* The ptrace backend is driven by the thread that opened the host. */
static void *run_elsewhere(void *arg)
{
	struct uml_exit ex;

	return (void *)(long)uml_thread_run(arg, &ex);
}

TEST(ptrace_other_thread_cannot_drive)
{
	struct uml_host *h;
	struct uml_aspace *as;
	struct uml_thread *t;
	pthread_t th;
	void *ret;

	ASSERT_EQ(0, uml_host_open(&h, UML_BACKEND_PTRACE));
	ASSERT_EQ(0, uml_aspace_create(h, &as, &t));
	ASSERT_EQ(0, pthread_create(&th, NULL, run_elsewhere, t));
	ASSERT_EQ(0, pthread_join(th, &ret));
	EXPECT_EQ(-EPERM, (long)ret);
	uml_host_close(h);
}

TEST(backend_selection)
{
	struct uml_host *h;
	enum uml_backend b;
	int skas_ok;

	EXPECT_EQ(0, uml_backend_parse("ptrace", &b));
	EXPECT_EQ(UML_BACKEND_PTRACE, b);
	EXPECT_EQ(0, uml_backend_parse("skas", &b));
	EXPECT_EQ(UML_BACKEND_SKAS, b);
	EXPECT_EQ(0, uml_backend_parse("auto", &b));
	EXPECT_EQ(UML_BACKEND_AUTO, b);
	EXPECT_EQ(-EINVAL, uml_backend_parse("kvm", &b));
	EXPECT_STREQ("ptrace", uml_backend_name(UML_BACKEND_PTRACE));

	EXPECT_EQ(-EINVAL, uml_host_open(&h, (enum uml_backend)7));
	setenv("UML_BACKEND", "bogus", 1);
	EXPECT_EQ(-EINVAL, uml_host_open(&h, UML_BACKEND_AUTO));
	setenv("UML_BACKEND", "ptrace", 1);
	ASSERT_EQ(0, uml_host_open(&h, UML_BACKEND_AUTO));
	EXPECT_EQ(UML_BACKEND_PTRACE, uml_host_backend(h));
	uml_host_close(h);
	/* An explicit skas request never falls back to ptrace. */
	setenv("UML_BACKEND", "skas", 1);
	if (uml_host_open(&h, UML_BACKEND_AUTO) == 0) {
		EXPECT_EQ(UML_BACKEND_SKAS, uml_host_backend(h));
		uml_host_close(h);
	}
	if (access("/dev/skas", F_OK))
		EXPECT_EQ(-ENOENT, uml_host_open(&h, UML_BACKEND_SKAS));
	unsetenv("UML_BACKEND");
	/* AUTO always ends up with a working backend: skas if it opens. */
	skas_ok = uml_host_open(&h, UML_BACKEND_SKAS) == 0;
	if (skas_ok)
		uml_host_close(h);
	ASSERT_EQ(0, uml_host_open(&h, UML_BACKEND_AUTO));
	EXPECT_EQ(skas_ok ? UML_BACKEND_SKAS : UML_BACKEND_PTRACE,
		  uml_host_backend(h));
	uml_host_close(h);
}

TEST_HARNESS_MAIN
