/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuml: drive guest address spaces and guest threads for a user-mode
 * kernel, in SKAS fashion (one host address space per guest process, one
 * host task per guest thread).
 *
 * Two backends sit behind this one API:
 *
 *  - "skas":   the skas.ko module, through /dev/skas (uapi/linux/skas.h);
 *  - "ptrace": a stub process per address space, driven with PTRACE_SYSEMU;
 *              guest memory through process_vm_readv/writev.
 *
 * Conventions (liburing's): every function that can fail returns 0 or a
 * non-negative count on success and a negative errno value on failure; none
 * sets errno.  Objects are opaque.
 *
 * Threading: several runtime threads may use one struct uml_host at once.
 * Each guest thread is driven by one runtime thread: the one that created
 * it (uml_aspace_create(), uml_thread_clone()), until that one calls
 * uml_thread_release(); the next runtime thread to drive it then takes it
 * over.  Driving means uml_thread_run(), the FPU and xstate calls,
 * uml_thread_clone() of it as the parent and uml_thread_set_value(); from
 * any other runtime thread they fail with -EPERM.  This is ptrace's rule
 * (the tracer is a thread), kept on both backends so that a runtime works
 * the same on either.  Calls on different guest threads run concurrently,
 * whether or not they share an address space.
 *
 * The memory calls (uml_aspace_mem() and the three below it,
 * uml_aspace_reset()) need the caller to drive a thread of the address
 * space (-EPERM otherwise): they may run while its other threads run, and
 * alongside each other.  uml_mem_read(), uml_mem_write(),
 * uml_aspace_info(), uml_aspace_set_policy(), uml_thread_kick() and the
 * accessors work from any thread; uml_thread_kick() also from a signal
 * handler.  uml_thread_destroy() and uml_aspace_destroy() work from any
 * thread, but nothing else may be using the thread (the address space,
 * with its threads) meanwhile: kick it and wait for its driver first.
 *
 * A ptrace runtime thread that exits kills the guest threads it drives
 * (PTRACE_O_EXITKILL): release them first.
 *
 * Host processes (ptrace backend): every guest thread is a host process and
 * a child of the runtime, reaped by libuml.  The runtime must therefore not
 * reap children it does not know (waitpid(-1, ...), wait()) nor set SIGCHLD
 * to SIG_IGN; a SIGCHLD handler should use SA_RESTART (without it, a stub's
 * death during uml_thread_run() reads as UML_EXIT_INTERRUPTED, harmless).
 *
 * Host processes (skas backend): the first thread of an address space and
 * every fork child are host processes and children of the runtime, reaped
 * by libuml, so the same rules hold; the further threads of an address
 * space (UML_CLONE_THREAD) are host threads of that process's thread
 * group, not children.  A SIGKILL sent to any of them from outside ends
 * the whole group: every thread of that address space reports
 * UML_EXIT_EXITED.  uml_thread_destroy() of one thread leaves the others
 * running.
 *
 * Licence: LGPL-2.1-or-later (see the SPDX line; the full text is in the
 * repository's top-level licence files).
 *
 * Register conventions, identical on both backends:
 *
 *  - At a UML_EXIT_SYSCALL exit the syscall has NOT been executed.  regs->rip
 *    points after the syscall instruction, regs->orig_rax holds the syscall
 *    number and regs->rdi, rsi, rdx, r10, r8, r9 the arguments.  The runtime
 *    stores the result in regs->rax and calls uml_thread_run() again.
 *  - Registers written by the runtime are sanitized as ptrace's putreg()
 *    does: the guest cannot leave 64-bit user mode or raise its privileges.
 *    fs_base and gs_base are part of the register set (arch_prctl is
 *    emulated by writing them).
 */
#ifndef UML_H
#define UML_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- backends -------------------------------------------------------- */

enum uml_backend {
	UML_BACKEND_AUTO = 0,	/* $UML_BACKEND if set, else skas if usable, else ptrace */
	UML_BACKEND_SKAS = 1,
	UML_BACKEND_PTRACE = 2,
};

struct uml_host;

/**
 * uml_host_open() - connect to a backend.
 * @hostp:   receives the host handle.
 * @backend: UML_BACKEND_AUTO chooses: the environment variable UML_BACKEND
 *           ("skas" or "ptrace") if set, else skas when /dev/skas opens and
 *           its API version matches, else ptrace.  An explicit request (by
 *           argument or by UML_BACKEND) that cannot work fails; it never
 *           falls back silently.
 *
 * Return: 0, -ENOENT/-EACCES (no usable /dev/skas for an explicit skas
 * request), -EPROTO (API version mismatch), -EINVAL (bad backend or bad
 * UML_BACKEND value), or another -errno.
 */
int uml_host_open(struct uml_host **hostp, enum uml_backend backend);
/*
 * The version of libuml, which is the skas project's (skas.ko's
 * MODULE_VERSION and umlrun's too): "MAJOR.MINOR.PATCH", static storage.
 */
const char *uml_version(void);
void uml_host_close(struct uml_host *host);
enum uml_backend uml_host_backend(const struct uml_host *host);
const char *uml_backend_name(enum uml_backend backend);
/* Parse "skas"/"ptrace"/"auto"; -EINVAL otherwise. */
int uml_backend_parse(const char *name, enum uml_backend *backend);
/*
 * A message for a -errno returned by libuml, worded for libuml's uses
 * (e.g. -ENOSYS from uml_host_open(): backend not built in).  Static
 * storage; never NULL.
 */
const char *uml_strerror(int err);

/* ---- address spaces -------------------------------------------------- */

struct uml_aspace;
struct uml_thread;

/*
 * Layout facts of an address space: the guest may map anything in
 * [UML_GUEST_MIN, info.guest_top) except the vDSO range, which the guest can
 * use (AT_SYSINFO_EHDR) but not unmap or overwrite.  The backend's own
 * reserved pages lie at or above guest_top.
 */
#define UML_GUEST_MIN	0x10000ULL

struct uml_aspace_info {
	uint64_t guest_top;	/* first address the guest may not map */
	uint64_t vdso_base;	/* 0 if the guest has no vDSO */
	uint64_t vdso_len;
	uint64_t vvar_base;	/* data pages the vDSO reads; 0 if none */
	uint64_t vvar_len;
};

/**
 * uml_aspace_create() - create an empty guest address space and its first
 * guest thread (parked, never run yet; its registers are zero).
 * @host:    the backend.
 * @asp:     receives the address space.
 * @threadp: receives its first thread.
 *
 * Return: 0 or -errno.
 */
int uml_aspace_create(struct uml_host *host, struct uml_aspace **asp,
		      struct uml_thread **threadp);

/*
 * Destroy: kills every host task of the address space and frees the objects
 * (the threads of this address space are freed too).
 */
void uml_aspace_destroy(struct uml_aspace *as);

struct rusage;

/**
 * uml_aspace_destroy_usage() - uml_aspace_destroy(), and what it ran.
 * @as: the address space.
 * @ru: receives the host's usage of every host task that ran in @as,
 *      its threads ended before included: wait4()'s rusage, summed (the
 *      peak RSS is the largest).  A guest process's usage at its exit,
 *      without a read of /proc.
 *
 * Return: 0, or -EINVAL (nothing done) if @as or @ru is NULL.
 */
int uml_aspace_destroy_usage(struct uml_aspace *as, struct rusage *ru);

int uml_aspace_info(const struct uml_aspace *as, struct uml_aspace_info *info);

enum uml_mem_op_kind {
	UML_MEM_MAP = 1,	/* mmap(addr, len, prot, flags | MAP_FIXED, fd, offset) */
	UML_MEM_UNMAP = 2,	/* munmap(addr, len) */
	UML_MEM_PROTECT = 3,	/* mprotect(addr, len, prot) */
	UML_MEM_INSTALL_FD = 4,	/* runtime @fd at guest fd @addr (fd marks) */
	UML_MEM_CLOSE_FD = 5,	/* close guest fd @addr if open (fd marks) */
};

/* Flags for UML_MEM_INSTALL_FD. */
#define UML_FD_CLOEXEC		0x1	/* FD_CLOEXEC on the guest's fd */
#define UML_INSTALL_MARK_READ	0x100	/* once installed, UML_FD_MARK_READ */
#define UML_INSTALL_MARK_WRITE	0x200	/* once installed, UML_FD_MARK_WRITE */

/* Flags for UML_MEM_MAP; exactly one of SHARED and PRIVATE. */
#define UML_MAP_SHARED		0x01
#define UML_MAP_PRIVATE		0x02
#define UML_MAP_ANONYMOUS	0x20	/* fd must be -1 */

struct uml_mem_op {
	uint32_t op;		/* enum uml_mem_op_kind */
	uint32_t prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint32_t flags;		/* UML_MAP_* (MAP only) */
	int32_t fd;		/* a runtime fd for file mappings, else -1 */
	uint64_t addr;		/* page aligned */
	uint64_t len;		/* page aligned, > 0 */
	uint64_t offset;	/* file offset, page aligned */
};

/**
 * uml_aspace_mem() - apply a batch of map/unmap/protect operations, in order.
 * @as:  the address space.
 * @ops: the operations.
 * @n:   how many.
 * @err: NULL, or receives the failing operation's -errno (see below).
 *
 * Each operation must lie in [UML_GUEST_MIN, guest_top), outside the vDSO
 * and vvar, page aligned, len > 0 (-EINVAL otherwise).  MAP: @flags exactly
 * one of SHARED/PRIVATE plus optionally ANONYMOUS (fd == -1 and offset 0
 * then), else a valid runtime @fd (-EBADF); only PROT_READ/WRITE/EXEC.
 * UNMAP: prot, flags and offset must be 0; PROTECT: flags and offset 0.
 * @fd is ignored by UNMAP and PROTECT.  Unknown ops: -EINVAL.  Errors of
 * the host's mmap/munmap/mprotect come back as they are (-ENODEV for an
 * fd that cannot be mapped, -EACCES, -ENOMEM...).
 *
 * UML_MEM_INSTALL_FD and UML_MEM_CLOSE_FD act on the guest's host fd table
 * (see "fd marks" below): @addr is the guest fd (0 to INT_MAX), @len,
 * @prot and @offset are 0; INSTALL_FD puts the runtime's @fd there
 * (replacing what was there), @flags UML_FD_CLOEXEC or 0, plus the
 * UML_INSTALL_MARK_* to set once it is there; CLOSE_FD closes it (a free
 * number is no error), @fd -1, @flags 0.  Both clear the guest fd's marks
 * first.  -EOPNOTSUPP where the host has no fd marks.
 *
 * Return: the number of operations done (n on full success).  If operation
 * i fails, the batch stops there and the return value is i when i > 0; when
 * the first operation fails its -errno is returned.  @err, if not NULL,
 * receives the -errno of the failing operation (0 if all succeeded).
 * -ESRCH: no host task of the address space is left to apply them; -EPERM:
 * the caller drives no thread of it.
 */
int uml_aspace_mem(struct uml_aspace *as, const struct uml_mem_op *ops,
		   unsigned int n, int *err);

/* One-operation conveniences over uml_aspace_mem(). */
int uml_aspace_map(struct uml_aspace *as, uint64_t addr, uint64_t len,
		   uint32_t prot, uint32_t flags, int fd, uint64_t offset);
int uml_aspace_unmap(struct uml_aspace *as, uint64_t addr, uint64_t len);
int uml_aspace_protect(struct uml_aspace *as, uint64_t addr, uint64_t len,
		       uint32_t prot);

/*
 * Empty the address space for a guest execve: every guest mapping goes, the
 * backend's reserved pages and the vDSO stay.  The address space must have
 * exactly one thread left (-EBUSY otherwise); that thread's registers are
 * zeroed and its FPU/vector state is reset to the init state, as execve
 * leaves it.
 */
int uml_aspace_reset(struct uml_aspace *as);

/*
 * Guest memory access from the runtime.  Return the number of bytes copied;
 * a short count (or -EFAULT when nothing could be copied) when the range is
 * not mapped with the needed access in the guest.  Writes ignore the
 * guest's PROT_WRITE (like ptrace POKEDATA), reads its PROT_READ.
 * Writes stop at guest_top and at the vDSO/vvar (short count, or -EFAULT
 * when starting there): the backend's reserved pages are never writable
 * from the runtime, so a guest-chosen pointer cannot plant code there.
 */
long uml_mem_read(struct uml_aspace *as, void *buf, uint64_t addr, size_t len);
long uml_mem_write(struct uml_aspace *as, uint64_t addr, const void *buf,
		   size_t len);

/* ---- guest threads ---------------------------------------------------- */

/* x86-64, the layout of struct user_regs_struct in <sys/user.h>. */
struct uml_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10;
	uint64_t r9, r8, rax, rcx, rdx, rsi, rdi, orig_rax;
	uint64_t rip, cs, eflags, rsp, ss;
	uint64_t fs_base, gs_base, ds, es, fs, gs;
};

/* The FXSAVE area: struct user_fpregs_struct in <sys/user.h>. */
struct uml_fpregs {
	uint8_t fxsave[512];
};

enum uml_exit_reason {
	UML_EXIT_SYSCALL = 1,		/* the guest made a syscall; not executed */
	UML_EXIT_FAULT = 2,		/* a synchronous fault: SIGSEGV/BUS/ILL/FPE/TRAP */
	UML_EXIT_EXITED = 3,		/* the host task died */
	UML_EXIT_INTERRUPTED = 4,	/* kicked, or the runtime thread was signalled */
};

/* struct uml_exit.exited.cause: why the host module killed the task */
enum uml_end_cause {
	UML_END_NONE = 0,	/* it did not: an exit, an outside SIGKILL; ptrace */
	UML_END_PTRACED = 1,	/* the guest task had a ptrace tracer */
	UML_END_SKIP = 2,	/* the kernel ran a syscall it should have skipped */
	UML_END_NATIVE = 3,	/* the vDSO's syscall instruction was changed */
};

enum uml_syscall_abi {
	UML_ABI_64 = 0,		/* syscall instruction, x86-64 numbers */
	UML_ABI_X32 = 1,	/* syscall instruction, __X32_SYSCALL_BIT set */
	UML_ABI_IA32 = 2,	/* int $0x80 or sysenter: 32-bit numbers and registers */
};

struct uml_exit {
	uint32_t reason;		/* enum uml_exit_reason */
	uint32_t pad;
	union {
		struct {
			uint64_t nr;	/* as the ABI numbers it (x32 bit kept) */
			uint64_t args[6];
			uint32_t abi;	/* enum uml_syscall_abi */
		} syscall;
		struct {
			int32_t signo;
			int32_t code;	/* si_code */
			uint64_t addr;	/* si_addr */
			uint32_t trapno;
			uint32_t error_code;
		} fault;
		struct {
			int32_t status;	/* a wait status: WIFEXITED/WIFSIGNALED */
			uint32_t cause;	/* enum uml_end_cause */
		} exited;
	};
};

/**
 * uml_thread_regs() - the thread's register block.
 * @t: the thread.
 *
 * The block is valid while the thread is stopped (between runs): read it
 * after uml_thread_run() returns, modify it in place, and the next
 * uml_thread_run() resumes the guest with it.  On the skas backend it lives
 * in the thread's mmapped run page, so no copy is made.
 *
 * Return: the block; never NULL.
 */
struct uml_regs *uml_thread_regs(struct uml_thread *t);

/**
 * uml_thread_run() - resume the guest thread until its next event.
 * @t:  the thread, stopped.
 * @ex: receives the event.
 *
 * Return: 0 with @ex filled, or -errno: -ESRCH (the thread's host task is
 * gone and its UML_EXIT_EXITED was already reported), -EBUSY (a run of
 * it is in progress), -EPERM (another runtime thread drives it),
 * -EINVAL (fs_base or gs_base is not a user address).
 *
 * A signal delivered to the calling runtime thread (whose handler was
 * installed without SA_RESTART) or a uml_thread_kick() ends the run with
 * UML_EXIT_INTERRUPTED; the guest is stopped at an instruction boundary and
 * resumes where it was.  UML_EXIT_INTERRUPTED may also come without a kick
 * (a signal sent to the guest's host task from outside, or a kick that lost
 * the race with another event and is reported at the next run): the
 * runtime just checks its own pending work and runs the thread again.
 * UML_EXIT_FAULT is only reported for faults the host kernel raised
 * (si_code > 0); a fault signal sent with kill() reads as INTERRUPTED.
 *
 * Sanitizing beyond putreg(): cs and ss are always the 64-bit user
 * selectors, EFLAGS NT/IOPL/VM/VIF/VIP are cleared, and orig_rax is not
 * loaded (no syscall restart can move rip behind the runtime's back).
 */
int uml_thread_run(struct uml_thread *t, struct uml_exit *ex);

/* Force a running (or about to run) thread back: async-signal-safe. */
int uml_thread_kick(struct uml_thread *t);

/**
 * uml_thread_release() - stop driving a guest thread, for another to.
 * @t: the thread, stopped, driven by the caller.
 *
 * The next runtime thread that drives @t (see "Threading" above) takes it
 * over; until then nobody does, and nothing of it changes.  On ptrace the
 * tracer detaches, leaving the stub stopped (SIGSTOP), and the next
 * driver attaches (PTRACE_SEIZE): a few host calls each way.  Releasing a
 * thread nobody drives does nothing.
 *
 * Return: 0, -EINVAL (@t is NULL), -EPERM (another runtime thread drives
 * it), -EBUSY (a run of it is in progress), or the host's -errno.
 */
int uml_thread_release(struct uml_thread *t);

int uml_thread_get_fpregs(struct uml_thread *t, struct uml_fpregs *fp);
int uml_thread_set_fpregs(struct uml_thread *t, const struct uml_fpregs *fp);

/**
 * uml_thread_get_xstate() - the thread's whole FPU/vector state.
 * @t:   the thread, stopped.
 * @buf: where to put it.
 * @len: its size; 0 just asks for the size.
 *
 * The image is the XSAVE standard (non-compacted) format, as
 * PTRACE_GETREGSET(NT_X86_XSTATE) and core dumps have it: the FXSAVE area
 * (whose software-reserved bytes at 464 start with the enabled feature
 * mask, XCR0, as a uint64_t), the XSAVE header at 512 (XSTATE_BV first),
 * then the enabled components (AVX upper halves at 576, ...).  A signal
 * frame uses the same layout with struct _fpx_sw_bytes at 464, which the
 * runtime fills in itself.
 *
 * Return: the image size, -ENOSPC if @len is smaller (and not 0).
 */
long uml_thread_get_xstate(struct uml_thread *t, void *buf, size_t len);
/* Load an image as above (@len its size); -EINVAL if the host rejects it. */
int uml_thread_set_xstate(struct uml_thread *t, const void *buf, size_t len);
/*
 * uml_thread_get_xstate() (@len not 0), then the thread's state reset to
 * the init state, as a kernel does for a signal handler: one host call on
 * skas.ko with SKAS_CAP_XSTATE.  Return: as uml_thread_get_xstate(); on
 * an error the state may be either.
 */
long uml_thread_take_xstate(struct uml_thread *t, void *buf, size_t len);

/* Flags for uml_thread_clone(). */
#define UML_CLONE_THREAD	0x1	/* new thread in the same address space */
#define UML_CLONE_UNMARKED	0x2	/* the child ignores fd marks (vfork) */

/**
 * uml_thread_clone() - create a guest thread or process from @parent.
 * @parent:    the thread to copy, stopped.
 * @flags:     0 for fork: a new address space, a copy-on-write duplicate of
 *             the parent's; UML_CLONE_THREAD for a thread sharing the
 *             parent's address space; with UML_CLONE_UNMARKED, the child
 *             and its own clones trap every UML_POLICY_NATIVE_MARKED call
 *             (a child whose guest fd table is not its address space's).
 * @childp:    receives the new thread, stopped, with the parent's registers
 *             (the runtime then sets rax = 0, a new rsp, fs_base, ...).
 * @child_asp: receives the new address space for a fork (NULL for a thread).
 *
 * The parent must be stopped.  The child never runs a guest instruction
 * before its first uml_thread_run().
 *
 * Return: 0 or -errno.
 */
int uml_thread_clone(struct uml_thread *parent, unsigned int flags,
		     struct uml_thread **childp, struct uml_aspace **child_asp);

/*
 * Kill and free one thread (its address space stays).  On skas, a thread
 * among others of its address space exits by itself once its fd is closed:
 * its host task may outlive the call by a moment.
 */
void uml_thread_destroy(struct uml_thread *t);

struct uml_aspace *uml_thread_aspace(struct uml_thread *t);
/* The host tid, for diagnostics only. */
int uml_thread_host_tid(const struct uml_thread *t);

/* Opaque per-thread pointer for the runtime's own bookkeeping. */
void uml_thread_set_data(struct uml_thread *t, void *data);
void *uml_thread_get_data(const struct uml_thread *t);

/* ---- syscall policy: the fast tiers ------------------------------------ */

/*
 * How a guest's 64-bit syscall is handled, per address space and syscall
 * number (ia32 and x32 syscalls are always trapped):
 *
 *  - UML_POLICY_TRAP:   a UML_EXIT_SYSCALL event (the default);
 *  - UML_POLICY_CONST:  answered by the host with a fixed value, without
 *                       a stop (getpid, getuid...);
 *  - UML_POLICY_NATIVE: executed by the host in the guest thread's own
 *                       context, without a stop; the host accepts only
 *                       syscalls on its own safe list (skas.ko's list is
 *                       in Documentation/uapi.rst);
 *  - UML_POLICY_THREAD: answered with the calling thread's own value, set
 *                       with uml_thread_set_value() (gettid);
 *  - UML_POLICY_NATIVE_MARKED: NATIVE, but only when the call's fd has the
 *                       mark it needs (uml_aspace_mark_fds()), else TRAP:
 *                       read, write, pread64, pwrite64, readv, writev,
 *                       preadv, pwritev, lseek, fstat and (where the
 *                       host's safe list has it) newfstatat only.
 *
 * A fork (uml_thread_clone() with flags 0) inherits its parent's policy;
 * uml_aspace_reset() keeps it.  A new thread's value is 0.
 *
 * Only the skas backend has the tiers other than TRAP, and only as far as
 * the loaded skas.ko has them (SKAS_CAP_POLICY: CONST; SKAS_CAP_POLICY_NATIVE:
 * NATIVE and THREAD).  The ptrace backend traps every syscall: asking it
 * for TRAP succeeds, for anything else fails with -EOPNOTSUPP.
 *
 * Caveat (skas): libuml's FPU state helpers (uml_thread_get_fpregs() and
 * the like, uml_aspace_reset()) end with a syscall whose number is the low
 * 32 bits of the host's XCR0 (7, 0xe7 = 231, or >= 512 on current CPUs).
 * A policy other than TRAP on that number breaks them (-EINVAL).
 */
enum uml_policy {
	UML_POLICY_TRAP = 0,
	UML_POLICY_CONST = 1,
	UML_POLICY_NATIVE = 2,
	UML_POLICY_THREAD = 3,
	UML_POLICY_NATIVE_MARKED = 4,
};

/* Syscall numbers a policy can be set for: [0, UML_POLICY_NR). */
#define UML_POLICY_NR		512
/* The bit of an enum uml_policy in uml_host_policies()'s mask. */
#define UML_POLICY_BIT(p)	(1u << (p))

/**
 * uml_host_policies() - which tiers this host supports.
 * @host: the backend.
 *
 * Return: a mask of UML_POLICY_BIT(UML_POLICY_*); UML_POLICY_TRAP is always
 * in it.  ptrace: TRAP only.  skas: TRAP, plus CONST if skas.ko has
 * SKAS_CAP_POLICY, plus NATIVE and THREAD if it has SKAS_CAP_POLICY_NATIVE,
 * plus NATIVE_MARKED if it also has SKAS_CAP_FD_MARK.
 */
unsigned int uml_host_policies(const struct uml_host *host);

/**
 * uml_aspace_set_policy() - set how syscall @nr of @as is handled.
 * @as:     the address space.
 * @nr:     x86-64 syscall number, below UML_POLICY_NR.
 * @action: enum uml_policy.
 * @value:  the result for UML_POLICY_CONST (a negative value is an error
 *          return, -errno); must be 0 for the other actions.
 *
 * Takes effect at the guest's next syscall, also while one of its threads
 * runs.
 *
 * Return: 0; -EINVAL (bad @nr, @action, or a nonzero @value for an action
 * other than CONST); -EOPNOTSUPP (the host does not support @action, see
 * uml_host_policies(); nothing was changed); -EPERM (NATIVE for a syscall
 * not on the host's safe list); another -errno from the host.
 */
int uml_aspace_set_policy(struct uml_aspace *as, unsigned int nr,
			  enum uml_policy action, int64_t value);

/**
 * uml_thread_set_value() - what @t's syscalls with UML_POLICY_THREAD return.
 * @t:     the thread.
 * @value: the value.
 *
 * Call it while @t is stopped (between runs), e.g. with the guest tid
 * before a new thread's first run: a new thread's value is 0.
 *
 * Return: 0; -EOPNOTSUPP when the host has no UML_POLICY_THREAD.
 */
int uml_thread_set_value(struct uml_thread *t, int64_t value);

/*
 * fd marks: a guest's host fd table holds only what the runtime put there
 * (UML_MEM_INSTALL_FD); a mark says which UML_POLICY_NATIVE_MARKED calls
 * of the guest may use one of those fds on the host.  The runtime marks an
 * fd once its install is done (or has the install mark it) when it means
 * the guest to reach that file directly (a regular file, say), and clears
 * the mark before its own view of the fd changes.  Installing or closing an fd clears its marks; a fork
 * copies the host table and the marks; uml_aspace_reset() keeps both.
 */
#define UML_FD_MARK_READ	0x1	/* read, pread64, readv, preadv */
#define UML_FD_MARK_WRITE	0x2	/* write, pwrite64, writev, pwritev */
#define UML_FD_MARK_MAX		1024	/* fds [0, UML_FD_MARK_MAX) */

/**
 * uml_aspace_mark_fds() - set the marks of guest fds [@first, @first+@count).
 * @as:    the address space.
 * @first: the first guest fd.
 * @count: how many.
 * @marks: UML_FD_MARK_READ | UML_FD_MARK_WRITE, or 0 to clear.  lseek and
 *         fstat need either.
 *
 * Takes effect at once, also for its running threads; any thread may call
 * it.
 *
 * Return: 0; -EINVAL (unknown @marks, a range past UML_FD_MARK_MAX);
 * -EOPNOTSUPP (no UML_POLICY_NATIVE_MARKED on this host).
 */
int uml_aspace_mark_fds(struct uml_aspace *as, unsigned int first,
			unsigned int count, unsigned int marks);

/**
 * uml_thread_run_mem() - uml_aspace_mem() in @t, then uml_thread_run().
 * @t:   the thread, stopped, driven by the caller.
 * @ops: operations, as for uml_aspace_mem(), applied in @t's address space.
 * @n:   how many (0: just run).
 * @ex:  receives the event.
 *
 * On skas.ko with SKAS_RUN_MEM the operations and the resume take one
 * hand-off (the saving of a page fault's map, or of a close the runtime
 * mirrors into the guest's fd table).
 *
 * Return: 0 once the run ended (@ex); if an operation fails, its -errno
 * and the thread did not run (those before it may be done); the errors of
 * uml_thread_run() otherwise.
 */
int uml_thread_run_mem(struct uml_thread *t, const struct uml_mem_op *ops,
		       unsigned int n, struct uml_exit *ex);

/**
 * uml_host_spin_max() - the longest spin uml_thread_set_spin() takes, ns.
 * @host: the host.
 *
 * Return: 0 if this host cannot spin (ptrace; skas.ko without
 * SKAS_CAP_SPIN, or with spin_max_ns=0).
 */
long uml_host_spin_max(const struct uml_host *host);

/**
 * uml_thread_set_spin() - let @t's hand-offs spin before they sleep.
 * @t:  the thread.
 * @ns: how long each wait for the other side (the guest's for the
 *      runtime, uml_thread_run()'s for the guest) polls before it
 *      sleeps; 0 turns spinning off.
 *
 * A spin lasts only while the other side runs on another CPU (so never on
 * one CPU, and an idle guest costs nothing): it trades CPU time for the
 * scheduler's sleep and wake-up in each direction of a round trip.
 * Threads and processes cloned from @t later inherit the setting.
 *
 * Return: 0; -EINVAL (@ns above uml_host_spin_max()); -EOPNOTSUPP (no
 * spinning on this host).
 */
int uml_thread_set_spin(struct uml_thread *t, unsigned int ns);

/**
 * uml_thread_set_yield() - let @t's hand-offs yield before they sleep.
 * @t:  the thread.
 * @on: nonzero to turn it on, 0 to turn it off.
 *
 * For a runtime thread and its guest on one CPU: each wait for the other
 * side (the guest's for the runtime, uml_thread_run()'s for the guest)
 * first yields the CPU once to the other side, if that is queued on the
 * same CPU, and looks again before it sleeps, so that a round trip needs
 * no sleep and no wake-up.  An idle guest still sleeps.  Threads and
 * processes cloned from @t later inherit the setting.
 *
 * Return: 0; -EOPNOTSUPP (no yield on this host: ptrace, or skas.ko
 * without SKAS_CAP_YIELD).
 */
int uml_thread_set_yield(struct uml_thread *t, int on);

#ifdef __cplusplus
}
#endif

#endif /* UML_H */
