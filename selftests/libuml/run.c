// SPDX-License-Identifier: GPL-2.0
/*
 * libuml guest threads: syscall events and their ABI, results, faults with
 * their siginfo, kicks and runtime signals, register sanitizing, FPU state,
 * and the stub's syscall page (which must trap like any other syscall),
 * adaptive spinning and yield before sleep.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/user.h>

#include "libuml_test.h"

FIXTURE(run) {
	struct uml_host *host;
	struct uml_aspace *as;
	struct uml_thread *t;
	struct uml_regs *r;
	struct uml_exit ex;
};
UML_VARIANTS(run);

FIXTURE_SETUP(run)
{
	UML_OPEN_OR_SKIP(&self->host, variant->backend);
	ASSERT_EQ(0, uml_aspace_create(self->host, &self->as, &self->t));
	self->r = uml_thread_regs(self->t);
}

FIXTURE_TEARDOWN(run)
{
	uml_host_close(self->host);
}

/* Load @code at GUEST_CODE, a stack page, and point the thread there. */
static int start(struct uml_aspace *as, struct uml_regs *r,
		 const void *code, size_t len)
{
	int ret = load_code(as, GUEST_CODE, code, len);

	if (!ret)
		ret = map_data(as, GUEST_DATA);
	r->rip = GUEST_CODE;
	r->rsp = GUEST_DATA + PAGE;
	return ret;
}

TEST_F(run, write_and_exit_are_syscall_events)
{
	char msg[4] = { 0 };

	ASSERT_EQ(0, start(self->as, self->r, code_write_exit,
			   sizeof(code_write_exit)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(UML_ABI_64, self->ex.syscall.abi);
	EXPECT_EQ(1, self->ex.syscall.nr);
	EXPECT_EQ(1, self->ex.syscall.args[0]);
	EXPECT_EQ(GUEST_CODE + 0x24, self->ex.syscall.args[1]);
	EXPECT_EQ(3, self->ex.syscall.args[2]);
	EXPECT_EQ(1, self->r->orig_rax);
	EXPECT_EQ(GUEST_CODE + 0x18, self->r->rip);	/* after the syscall */
	ASSERT_EQ(3, uml_mem_read(self->as, msg, self->ex.syscall.args[1], 3));
	EXPECT_STREQ("hi\n", msg);

	/* The result reaches the guest, which passes it on to exit(). */
	self->r->rax = 0x1234;
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(60, self->ex.syscall.nr);
	EXPECT_EQ(0x1234, self->ex.syscall.args[0]);
	/* exit was not executed: the guest goes on to its ud2. */
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGILL, self->ex.fault.signo);
}

TEST_F(run, int80_is_reported_as_ia32)
{
	ASSERT_EQ(0, start(self->as, self->r, code_int80, sizeof(code_int80)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	if (self->ex.reason == UML_EXIT_FAULT && self->ex.fault.signo == SIGSEGV)
		SKIP(return, "host has no IA32 emulation");
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(UML_ABI_IA32, self->ex.syscall.abi);
	EXPECT_EQ(20, self->ex.syscall.nr);	/* getpid on ia32, not 64-bit */
	EXPECT_EQ(11, self->ex.syscall.args[0]);	/* ebx */
	EXPECT_EQ(22, self->ex.syscall.args[1]);	/* ecx */
	/* Not executed: the result is what we say. */
	self->r->rax = 77;
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(77, self->r->rax);
}

TEST_F(run, x32_numbers_are_reported_as_x32)
{
	ASSERT_EQ(0, start(self->as, self->r, code_x32, sizeof(code_x32)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(UML_ABI_X32, self->ex.syscall.abi);
	EXPECT_EQ(0x40000027, self->ex.syscall.nr);
	EXPECT_EQ(5, self->ex.syscall.args[0]);
}

TEST_F(run, read_fault_is_sigsegv_with_details)
{
	struct uml_fpregs fp;
	uint64_t xmm0;

	ASSERT_EQ(0, start(self->as, self->r, code_segv_read,
			   sizeof(code_segv_read)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGSEGV, self->ex.fault.signo);
	EXPECT_EQ(SEGV_MAPERR, self->ex.fault.code);
	EXPECT_EQ(0x1230, self->ex.fault.addr);
	EXPECT_EQ(14, self->ex.fault.trapno);		/* #PF */
	EXPECT_EQ(4, self->ex.fault.error_code);	/* user, read, not present */
	/* The guest's registers and FPU state are as at the fault. */
	EXPECT_EQ(GUEST_CODE + 0xb, self->r->rip);
	EXPECT_EQ(0x1234567, self->r->r12);
	ASSERT_EQ(0, uml_thread_get_fpregs(self->t, &fp));
	memcpy(&xmm0, fp.fxsave + 160, 8);
	EXPECT_EQ(0x1234567, xmm0);
	/* Resumed unchanged, it faults again in the same place. */
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(0x1230, self->ex.fault.addr);
	/* Skipping the instruction (8 bytes) reaches the ud2. */
	self->r->rip += 8;
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGILL, self->ex.fault.signo);
}

TEST_F(run, write_to_readonly_page_is_accerr)
{
	ASSERT_EQ(0, start(self->as, self->r, code_segv_write,
			   sizeof(code_segv_write)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGSEGV, self->ex.fault.signo);
	EXPECT_EQ(SEGV_ACCERR, self->ex.fault.code);
	EXPECT_EQ(GUEST_CODE, self->ex.fault.addr);
	EXPECT_EQ(14, self->ex.fault.trapno);
	EXPECT_EQ(7, self->ex.fault.error_code & 7);	/* user, write, present */
}

TEST_F(run, ud2_is_sigill)
{
	ASSERT_EQ(0, start(self->as, self->r, code_ud2, sizeof(code_ud2)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGILL, self->ex.fault.signo);
	EXPECT_EQ(ILL_ILLOPN, self->ex.fault.code);
	EXPECT_EQ(GUEST_CODE, self->ex.fault.addr);
	EXPECT_EQ(6, self->ex.fault.trapno);		/* #UD */
	EXPECT_EQ(GUEST_CODE, self->r->rip);
}

TEST_F(run, divide_by_zero_is_sigfpe)
{
	ASSERT_EQ(0, start(self->as, self->r, code_divzero,
			   sizeof(code_divzero)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGFPE, self->ex.fault.signo);
	EXPECT_EQ(FPE_INTDIV, self->ex.fault.code);
	EXPECT_EQ(GUEST_CODE + 2, self->ex.fault.addr);
	EXPECT_EQ(0, self->ex.fault.trapno);		/* #DE */
}

/* A guest int3 is a SIGTRAP fault, not confused with the stub's own. */
TEST_F(run, int3_is_sigtrap)
{
	static const unsigned char code[] = { 0xcc, 0x0f, 0x0b };

	ASSERT_EQ(0, start(self->as, self->r, code, sizeof(code)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGTRAP, self->ex.fault.signo);
	EXPECT_EQ(3, self->ex.fault.trapno);		/* #BP */
	EXPECT_EQ(GUEST_CODE + 1, self->r->rip);
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGILL, self->ex.fault.signo);
}

TEST_F(run, jump_to_unmapped_code_faults)
{
	ASSERT_EQ(0, map_data(self->as, GUEST_DATA));
	self->r->rip = 0x600000;
	self->r->rsp = GUEST_DATA + PAGE;
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGSEGV, self->ex.fault.signo);
	EXPECT_EQ(0x600000, self->ex.fault.addr);
	EXPECT_EQ(0x14, self->ex.fault.error_code & 0x14);	/* user, fetch */
}

struct kicker {
	struct uml_thread *t;
	int delay_ms;
};

static void *kick_later(void *arg)
{
	struct kicker *k = arg;
	struct timespec ts = { 0, k->delay_ms * 1000000L };

	nanosleep(&ts, NULL);
	uml_thread_kick(k->t);
	return NULL;
}

TEST_F(run, kick_interrupts_a_spinning_guest)
{
	struct kicker k = { self->t, 100 };
	pthread_t th;
	int i;

	ASSERT_EQ(0, start(self->as, self->r, code_spin, sizeof(code_spin)));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_create(&th, NULL, kick_later, &k));
		ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
		pthread_join(th, NULL);
		ASSERT_EQ(UML_EXIT_INTERRUPTED, self->ex.reason);
		EXPECT_EQ(GUEST_CODE, self->r->rip);	/* still in its loop */
	}
}

TEST_F(run, kick_before_run_interrupts_at_once)
{
	ASSERT_EQ(0, start(self->as, self->r, code_write_exit,
			   sizeof(code_write_exit)));
	ASSERT_EQ(0, uml_thread_kick(self->t));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	EXPECT_EQ(UML_EXIT_INTERRUPTED, self->ex.reason);
	/* The kick is consumed: the next run gets to the syscall. */
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(1, self->ex.syscall.nr);
}

static void on_alarm(int sig)
{
}

TEST_F(run, runtime_signal_interrupts_the_run)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { 0, 100000 } };

	ASSERT_EQ(0, start(self->as, self->r, code_spin, sizeof(code_spin)));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	EXPECT_EQ(UML_EXIT_INTERRUPTED, self->ex.reason);
	EXPECT_EQ(GUEST_CODE, self->r->rip);
}

static struct uml_thread *alarm_target;

static void kick_on_alarm(int sig)
{
	uml_thread_kick(alarm_target);
}

/* A kick from a signal handler installed with SA_RESTART. */
TEST_F(run, kick_from_signal_handler)
{
	struct sigaction sa = { .sa_handler = kick_on_alarm,
				.sa_flags = SA_RESTART };
	struct itimerval it = { .it_value = { 0, 100000 } };

	ASSERT_EQ(0, start(self->as, self->r, code_spin, sizeof(code_spin)));
	alarm_target = self->t;
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	EXPECT_EQ(UML_EXIT_INTERRUPTED, self->ex.reason);
	EXPECT_EQ(GUEST_CODE, self->r->rip);
}

/* Each runtime thread drives its own host; they do not disturb each other. */
static void *getpid_loop(void *arg)
{
	/* 1: mov $39, %eax; syscall; jmp 1b */
	static const unsigned char code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
	};
	enum uml_backend b = *(enum uml_backend *)arg;
	struct uml_host *h;
	struct uml_aspace *as;
	struct uml_thread *t;
	struct uml_exit ex;
	long i, bad = 0;

	if (uml_host_open(&h, b) || uml_aspace_create(h, &as, &t) ||
	    load_code(as, GUEST_CODE, code, sizeof(code)))
		return (void *)-1L;
	uml_thread_regs(t)->rip = GUEST_CODE;
	for (i = 0; i < 500; i++) {
		if (uml_thread_run(t, &ex) || ex.reason != UML_EXIT_SYSCALL ||
		    ex.syscall.nr != 39)
			bad++;
		uml_thread_regs(t)->rax = i;
	}
	uml_host_close(h);
	return (void *)bad;
}

TEST_F(run, hosts_in_parallel_threads)
{
	enum uml_backend b = variant->backend;
	pthread_t th[3];
	void *ret;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, getpid_loop, &b));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pthread_join(th[i], &ret));
		EXPECT_EQ(0, (long)ret);
	}
	EXPECT_EQ(1, count_children());		/* the fixture's own */
}

/* A guest that jumps to the stub's syscall instruction still traps. */
TEST_F(run, stub_syscall_page_traps)
{
	struct uml_aspace_info info;
	unsigned long long s, e, found = 0;
	unsigned char page[4096];
	char path[64], line[512];
	FILE *f;
	int i;

	ASSERT_EQ(0, uml_aspace_info(self->as, &info));
	snprintf(path, sizeof(path), "/proc/%d/maps",
		 uml_thread_host_tid(self->t));
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	/* Every executable page above guest_top but the vDSO/vsyscall. */
	while (fgets(line, sizeof(line), f)) {
		ASSERT_EQ(2, sscanf(line, "%llx-%llx", &s, &e));
		if (s < info.guest_top || s == info.vdso_base ||
		    s >= 0x800000000000ULL || !strstr(line, " r-x"))
			continue;
		ASSERT_EQ(4096, uml_mem_read(self->as, page, s, 4096));
		for (i = 0; i < 4095; i++)
			if (page[i] == 0x0f && page[i + 1] == 0x05)
				break;
		if (i < 4095) {
			found = s + i;
			break;
		}
	}
	fclose(f);
	if (!found)
		SKIP(return, "no libuml code above guest_top (skas: the module has SKAS_CAP_XSTATE)");

	/* exit(42) there: if executed, the host task would die. */
	ASSERT_EQ(0, start(self->as, self->r, code_exit_via,
			   sizeof(code_exit_via)));
	self->r->rbx = found;
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(60, self->ex.syscall.nr);
	EXPECT_EQ(42, self->ex.syscall.args[0]);
	EXPECT_EQ(found + 2, self->r->rip);
	EXPECT_TRUE(pid_exists(uml_thread_host_tid(self->t)));
}

/* The three legacy vsyscall entries: gettimeofday, time, getcpu. */
static const uint64_t vsyscalls[] = {
	0xffffffffff600000ULL, 0xffffffffff600400ULL, 0xffffffffff600800ULL,
};

/*
 * Call vsyscall @i with pointers into the data page: it must be a
 * SIGSEGV fault at the entry, as under vsyscall=none, whether the host
 * emulates vsyscalls (which would read the host's time into the page with
 * no event) or not; then resume the guest as after a ret with rax = 77.
 */
static void vsyscall_faults(struct __test_metadata *_metadata,
			    struct uml_aspace *as, struct uml_thread *t,
			    int i)
{
	struct uml_regs *r = uml_thread_regs(t);
	unsigned char buf[32], zero[32] = { 0 };
	uint64_t ret_addr = 0;
	struct uml_exit ex;

	r->rip = GUEST_CODE;
	r->rsp = GUEST_DATA + PAGE;
	r->rbx = vsyscalls[i];
	r->rdi = GUEST_DATA + 0x100;	/* tv, tloc or cpu */
	r->rsi = GUEST_DATA + 0x200;	/* tz or node */
	r->rdx = 0;
	ASSERT_EQ(0, uml_thread_run(t, &ex));
	ASSERT_EQ(UML_EXIT_FAULT, ex.reason)
		TH_LOG("vsyscall %#llx: event %u (syscall %llu), not a fault",
		       (unsigned long long)vsyscalls[i], ex.reason,
		       (unsigned long long)ex.syscall.nr);
	EXPECT_EQ(SIGSEGV, ex.fault.signo);
	EXPECT_EQ(SEGV_MAPERR, ex.fault.code);
	EXPECT_EQ(vsyscalls[i], ex.fault.addr);
	EXPECT_EQ(14, ex.fault.trapno);
	/* user, instruction fetch, and PROT as for any kernel address */
	EXPECT_EQ(0x15, ex.fault.error_code);
	/* Stopped at the entry, the return address on the stack. */
	EXPECT_EQ(vsyscalls[i], r->rip);
	EXPECT_EQ(GUEST_DATA + PAGE - 8, r->rsp);
	ASSERT_EQ(8, uml_mem_read(as, &ret_addr, r->rsp, 8));
	EXPECT_EQ(GUEST_CODE + 2, ret_addr);
	/* Nothing of the host's was written. */
	ASSERT_EQ(sizeof(buf), uml_mem_read(as, buf, GUEST_DATA + 0x100,
					    sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, zero, sizeof(buf)));
	ASSERT_EQ(sizeof(buf), uml_mem_read(as, buf, GUEST_DATA + 0x200,
					    sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, zero, sizeof(buf)));

	/* The runtime's emulation of the ret: the guest goes on. */
	r->rip = ret_addr;
	r->rsp += 8;
	r->rax = 77;
	ASSERT_EQ(0, uml_thread_run(t, &ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, ex.reason);
	EXPECT_EQ(60, ex.syscall.nr);
	EXPECT_EQ(77, ex.syscall.args[0]);
}

/* A line of /proc/PID/status starting with @key, as a number; -1 if none. */
static long status_field(int pid, const char *key)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

/* Whether this host emulates vsyscalls: our own [vsyscall] mapping. */
static int host_has_vsyscall(void)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "[vsyscall]") != NULL;
	if (f)
		fclose(f);
	return found;
}

/* The vsyscall page never runs a host syscall behind the runtime's back. */
TEST_F(run, vsyscall_is_a_fault)
{
	int i;

	/*
	 * The guest runs under libuml's seccomp filter (mode 2) where the
	 * host emulates vsyscalls, and a ptrace stub always does (its
	 * confinement filter); a skas guest elsewhere, where vsyscalls are
	 * plain page faults, under nothing more than the runtime itself.
	 */
	EXPECT_EQ(host_has_vsyscall() || variant->backend == UML_BACKEND_PTRACE ?
		  2 : status_field(getpid(), "Seccomp:"),
		  status_field(uml_thread_host_tid(self->t), "Seccomp:"));
	ASSERT_EQ(0, start(self->as, self->r, code_vsyscall,
			   sizeof(code_vsyscall)));
	for (i = 0; i < 3; i++)
		vsyscall_faults(_metadata, self->as, self->t, i);
}

/* Nor in a fork child or a new thread (they inherit what the stub has). */
TEST_F(run, vsyscall_is_a_fault_in_fork_and_thread)
{
	struct uml_thread *c;
	struct uml_aspace *cas;

	ASSERT_EQ(0, start(self->as, self->r, code_vsyscall,
			   sizeof(code_vsyscall)));
	if (uml_can_fork(variant->backend)) {
		ASSERT_EQ(0, uml_thread_clone(self->t, 0, &c, &cas));
		vsyscall_faults(_metadata, cas, c, 0);
		uml_aspace_destroy(cas);
	}
	if (uml_can_thread(variant->backend)) {
		ASSERT_EQ(0, uml_thread_clone(self->t, UML_CLONE_THREAD, &c,
					      NULL));
		vsyscall_faults(_metadata, self->as, c, 1);
		uml_thread_destroy(c);
	}
	if (!uml_can_fork(variant->backend) &&
	    !uml_can_thread(variant->backend))
		SKIP(return, "no fork and no threads on this backend");
}

static uint64_t runtime_secret = 0x5ec7e7;

/* Runtime memory does not exist in the guest's address space. */
TEST_F(run, guest_cannot_see_runtime_memory)
{
	/* mov (%rbx), %rax; ud2 */
	static const unsigned char code[] = { 0x48, 0x8b, 0x03, 0x0f, 0x0b };
	uint64_t local = 1, targets[3] = {
		(uintptr_t)&runtime_secret, (uintptr_t)&local, (uintptr_t)code,
	};
	int i;

	ASSERT_EQ(0, start(self->as, self->r, code, sizeof(code)));
	for (i = 0; i < 3; i++) {
		if ((targets[i] & ~(PAGE - 1)) == GUEST_CODE ||
		    (targets[i] & ~(PAGE - 1)) == GUEST_DATA)
			continue;	/* the guest's own pages here */
		self->r->rip = GUEST_CODE;
		self->r->rbx = targets[i];
		ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
		ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
		EXPECT_EQ(SIGSEGV, self->ex.fault.signo);
		EXPECT_EQ(targets[i], self->ex.fault.addr);
	}
}

TEST_F(run, registers_are_sanitized)
{
	ASSERT_EQ(0, start(self->as, self->r, code_sanitize,
			   sizeof(code_sanitize)));
	self->r->cs = 0x23;		/* 32-bit user code */
	self->r->ss = 0;
	self->r->eflags = 0x3000 | 0x4000 | 0x20000 | 0x202;	/* IOPL, NT, VM */
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(60, self->ex.syscall.nr);
	EXPECT_EQ(0, self->ex.syscall.args[0] & (0x3000 | 0x4000 | 0x20000));
	EXPECT_EQ(0x33, self->ex.syscall.args[1]);	/* cs */
	EXPECT_EQ(0x2b, self->ex.syscall.args[2]);	/* ss */
	/* Kernel addresses for fs/gs bases are refused. */
	self->r->fs_base = 0xffff800000000000ULL;
	EXPECT_EQ(-EINVAL, uml_thread_run(self->t, &self->ex));
}

TEST_F(run, fs_base_is_part_of_the_registers)
{
	uint64_t v = 0xabcdef12345ULL;

	ASSERT_EQ(0, start(self->as, self->r, code_fsread, sizeof(code_fsread)));
	ASSERT_EQ(8, uml_mem_write(self->as, GUEST_DATA + 64, &v, 8));
	self->r->fs_base = GUEST_DATA + 64;
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(v, self->ex.syscall.args[0]);
	EXPECT_EQ(GUEST_DATA + 64, self->r->fs_base);
}

TEST_F(run, fpregs_round_trip)
{
	struct uml_fpregs fp;
	uint64_t v = 0x0123456789abcdefULL;

	ASSERT_EQ(0, start(self->as, self->r, code_xmm1, sizeof(code_xmm1)));
	ASSERT_EQ(0, uml_thread_get_fpregs(self->t, &fp));
	memcpy(fp.fxsave + 176, &v, 8);		/* xmm1 low half */
	ASSERT_EQ(0, uml_thread_set_fpregs(self->t, &fp));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(v, self->ex.syscall.args[0]);
}

/* The whole XSAVE image: AVX upper halves reach the guest and come back. */
TEST_F(run, xstate_round_trip)
{
	uint64_t v = 0x5555aaaa1234abcdULL, xfeatures, got;
	unsigned char *xs;
	long size;

	ASSERT_EQ(0, start(self->as, self->r, code_ymm0hi, sizeof(code_ymm0hi)));
	size = uml_thread_get_xstate(self->t, NULL, 0);
	ASSERT_GE(size, 576);
	EXPECT_EQ(-ENOSPC, uml_thread_get_xstate(self->t, &v, 8));
	xs = calloc(1, size);
	ASSERT_NE(NULL, xs);
	ASSERT_EQ(size, uml_thread_get_xstate(self->t, xs, size));
	memcpy(&xfeatures, xs + 464, 8);	/* XCR0 */
	if (!(xfeatures & 4) || size < 576 + 256)
		SKIP(return, "no AVX on this CPU");
	memcpy(xs + 576, &v, 8);		/* ymm0 bits 128..191 */
	xs[512] |= 4;				/* XSTATE_BV: AVX in use */
	ASSERT_EQ(0, uml_thread_set_xstate(self->t, xs, size));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(v, self->ex.syscall.args[0]);
	ASSERT_EQ(size, uml_thread_get_xstate(self->t, xs, size));
	memcpy(&got, xs + 576, 8);
	EXPECT_EQ(v, got);
	/* A malformed image is refused. */
	xs[512 + 8] = 0xff;			/* XCOMP_BV: compacted */
	EXPECT_EQ(-EINVAL, uml_thread_set_xstate(self->t, xs, size));
	EXPECT_EQ(-EINVAL, uml_thread_set_xstate(self->t, xs, size - 8));
	free(xs);
}

/* After a reset (execve), the FPU state is back to its init state. */
TEST_F(run, reset_clears_fpu_state)
{
	struct uml_fpregs fp;
	uint64_t v = 0x0123456789abcdefULL;
	uint32_t mxcsr;

	ASSERT_EQ(0, uml_thread_get_fpregs(self->t, &fp));
	memcpy(fp.fxsave + 176, &v, 8);		/* xmm1 */
	fp.fxsave[24] |= 0x40;			/* mxcsr: DAZ */
	ASSERT_EQ(0, uml_thread_set_fpregs(self->t, &fp));
	ASSERT_EQ(0, uml_aspace_reset(self->as));
	ASSERT_EQ(0, uml_thread_get_fpregs(self->t, &fp));
	memcpy(&mxcsr, fp.fxsave + 24, 4);
	EXPECT_EQ(0x1f80, mxcsr);
	ASSERT_EQ(0, start(self->as, self->r, code_xmm1, sizeof(code_xmm1)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	EXPECT_EQ(0, self->ex.syscall.args[0]);
}

TEST_F(run, killed_guest_is_exited_then_esrch)
{
	int pid;

	ASSERT_EQ(0, start(self->as, self->r, code_spin, sizeof(code_spin)));
	pid = uml_thread_host_tid(self->t);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_EXITED, self->ex.reason);
	EXPECT_TRUE(WIFSIGNALED(self->ex.exited.status));
	EXPECT_EQ(SIGKILL, WTERMSIG(self->ex.exited.status));
	EXPECT_EQ(UML_END_NONE, self->ex.exited.cause);	/* not the module */
	EXPECT_EQ(-ESRCH, uml_thread_run(self->t, &self->ex));
	EXPECT_EQ(-ESRCH, uml_thread_kick(self->t));
	EXPECT_FALSE(pid_exists(pid));		/* reaped */
	/* Memory operations have no task left to run in. */
	EXPECT_EQ(-ESRCH, uml_aspace_unmap(self->as, GUEST_DATA, PAGE));
}

/*
 * skas: a guest task that gets a ptrace tracer is killed by the module,
 * and the runtime is told why (SKAS_CAP_END_CAUSE).  On ptrace the host
 * task is the backend's own tracee: nobody else can seize it.
 */
TEST_F(run, traced_guest_is_killed_and_says_why)
{
	int pid = uml_thread_host_tid(self->t);

	if (variant->backend != UML_BACKEND_SKAS)
		SKIP(return, "ptrace: the backend is the guest's tracer");
#ifdef SKAS_CAP_END_CAUSE
	if (!skas_has_cap(SKAS_CAP_END_CAUSE))
#endif
		SKIP(return, "skas.ko does not end ptraced guests "
		     "(SKAS_CAP_END_CAUSE)");
	ASSERT_EQ(0, start(self->as, self->r, code_write_exit,
			   sizeof(code_write_exit)));
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, 0));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_EXITED, self->ex.reason);
	EXPECT_TRUE(WIFSIGNALED(self->ex.exited.status));
	EXPECT_EQ(UML_END_PTRACED, self->ex.exited.cause);
	EXPECT_FALSE(pid_exists(pid));		/* reaped */
}

/* A stray non-fault signal from outside is an interruption, not a death. */
TEST_F(run, outside_signal_is_interrupted)
{
	UML_NEED_SIGNALS(variant->backend);
	ASSERT_EQ(0, start(self->as, self->r, code_write_exit,
			   sizeof(code_write_exit)));
	ASSERT_EQ(0, kill(uml_thread_host_tid(self->t), SIGTERM));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	EXPECT_EQ(UML_EXIT_INTERRUPTED, self->ex.reason);
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason);
	/* A fake SIGSEGV (si_code <= 0) is not a fault either. */
	ASSERT_EQ(0, kill(uml_thread_host_tid(self->t), SIGSEGV));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	EXPECT_EQ(UML_EXIT_INTERRUPTED, self->ex.reason);
}

/* The state letter in /proc/PID/stat, or '?'. */
static char proc_state(int pid)
{
	char path[64], buf[512], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Run until something else than UML_EXIT_INTERRUPTED comes. */
static int run_past_interrupts(struct uml_thread *t, struct uml_exit *ex)
{
	int i, ret = 0;

	for (i = 0; i < 4; i++) {
		ret = uml_thread_run(t, ex);
		if (ret || ex->reason != UML_EXIT_INTERRUPTED)
			break;
	}
	return ret;
}

/*
 * After a real fault (the kernel unblocked SIGSEGV to raise it) a SIGSEGV
 * from kill() still is no fault and no death, and SIGSTOP, which no one
 * can block from user space, does not stop the guest.
 */
TEST_F(run, sigstop_and_sigsegv_after_a_fault_are_interrupted)
{
	int pid = uml_thread_host_tid(self->t);

	UML_NEED_SIGNALS(variant->backend);
	ASSERT_EQ(0, start(self->as, self->r, code_segv_read,
			   sizeof(code_segv_read)));
	ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	ASSERT_EQ(SIGSEGV, self->ex.fault.signo);
	self->r->rip += 8;	/* on to the ud2 */
	ASSERT_EQ(0, kill(pid, SIGSEGV));
	ASSERT_EQ(0, run_past_interrupts(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGILL, self->ex.fault.signo);
	ASSERT_EQ(0, kill(pid, SIGSTOP));
	ASSERT_EQ(0, run_past_interrupts(self->t, &self->ex));
	ASSERT_EQ(UML_EXIT_FAULT, self->ex.reason);
	EXPECT_EQ(SIGILL, self->ex.fault.signo);
	EXPECT_NE('T', proc_state(pid));
	EXPECT_TRUE(pid_exists(pid));
}

/*
 * Host signals from outside (a terminal's ^C or ^Z, a stray kill) neither
 * kill nor stop a guest: at most they interrupt a run, and the guest goes
 * on to its next syscall.
 */
TEST_F(run, outside_signals_never_kill_the_guest)
{
	/* 1: mov $39, %eax; syscall; jmp 1b */
	static const unsigned char code[] = {
		0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7,
	};
	static const int sigs[] = {
		SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGTSTP, SIGTTOU, SIGPIPE,
	};
	int pid = uml_thread_host_tid(self->t), i, n;

	ASSERT_EQ(0, start(self->as, self->r, code, sizeof(code)));
	for (i = 0; i < (int)(sizeof(sigs) / sizeof(sigs[0])); i++) {
		ASSERT_EQ(0, kill(pid, sigs[i]));
		for (n = 0; n < 4; n++) {
			ASSERT_EQ(0, uml_thread_run(self->t, &self->ex));
			if (self->ex.reason != UML_EXIT_INTERRUPTED)
				break;
		}
		ASSERT_EQ(UML_EXIT_SYSCALL, self->ex.reason)
			TH_LOG("signal %d: event %u", sigs[i], self->ex.reason);
		EXPECT_EQ(39, self->ex.syscall.nr);
	}
	EXPECT_TRUE(pid_exists(pid));
}

/*
 * @n round trips of code_getpid_loop, each answered with its number, which
 * the guest hands back in rbx at the next one.  0, or the first round trip
 * that went wrong, plus one.
 */
static int getpid_trips(struct uml_thread *t, struct uml_regs *r, int n)
{
	struct uml_exit ex;
	int i;

	for (i = 0; i < n; i++) {
		if (uml_thread_run(t, &ex) || ex.reason != UML_EXIT_SYSCALL ||
		    ex.syscall.nr != 39 || (i && r->rbx != (uint64_t)i - 1))
			return i + 1;
		r->rax = i;
		r->rbx = i;
	}
	return 0;
}

/*
 * uml_thread_set_spin(): announced by skas.ko's SKAS_CAP_SPIN only, bounded
 * by its maximum, and invisible to the guest's round trips.
 */
TEST_F(run, spin_is_validated_and_changes_no_result)
{
	long max = uml_host_spin_max(self->host);

	EXPECT_EQ(-EINVAL, uml_thread_set_spin(NULL, 0));
	if (variant->backend == UML_BACKEND_PTRACE) {
		EXPECT_EQ(0, max);
	} else {
#ifdef SKAS_CAP_SPIN
		EXPECT_EQ(skas_has_cap(SKAS_CAP_SPIN), max > 0);
#endif
	}
	if (max <= 0) {
		EXPECT_EQ(-EOPNOTSUPP, uml_thread_set_spin(self->t, 1000));
		EXPECT_EQ(-EOPNOTSUPP, uml_thread_set_spin(self->t, 0));
		return;
	}
	if (max < UINT_MAX)
		EXPECT_EQ(-EINVAL, uml_thread_set_spin(self->t, max + 1));
	EXPECT_EQ(-EINVAL, uml_thread_set_spin(self->t, UINT_MAX));
	EXPECT_EQ(0, uml_thread_set_spin(self->t, 0));
	ASSERT_EQ(0, uml_thread_set_spin(self->t, max));
	ASSERT_EQ(0, start(self->as, self->r, code_getpid_loop,
			   sizeof(code_getpid_loop)));
	EXPECT_EQ(0, getpid_trips(self->t, self->r, 500));
}

/*
 * uml_thread_set_yield(): skas.ko's SKAS_CAP_YIELD only, and invisible to
 * the guest's round trips, with the runtime and the guest on one CPU.
 */
TEST_F(run, yield_is_validated_and_changes_no_result)
{
	cpu_set_t one, all;
	int can = 0;

	EXPECT_EQ(-EINVAL, uml_thread_set_yield(NULL, 1));
#ifdef SKAS_CAP_YIELD
	if (variant->backend == UML_BACKEND_SKAS)
		can = skas_has_cap(SKAS_CAP_YIELD) > 0;
#endif
	if (!can) {
		EXPECT_EQ(-EOPNOTSUPP, uml_thread_set_yield(self->t, 1));
		EXPECT_EQ(-EOPNOTSUPP, uml_thread_set_yield(self->t, 0));
		return;
	}
	EXPECT_EQ(0, uml_thread_set_yield(self->t, 0));
	ASSERT_EQ(0, uml_thread_set_yield(self->t, 42));
	ASSERT_EQ(0, start(self->as, self->r, code_getpid_loop,
			   sizeof(code_getpid_loop)));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, sched_setaffinity(uml_thread_host_tid(self->t),
				       sizeof(one), &one));
	EXPECT_EQ(0, getpid_trips(self->t, self->r, 500));
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
}

TEST_HARNESS_MAIN
