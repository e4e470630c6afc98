/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * skas: address spaces and guest threads for user-mode kernels.
 *
 * This header is the whole contract between the skas.ko module and user
 * space.  It is shaped like the KVM API: a chain of file descriptors, one
 * ioctl magic (SKASIO), a frozen API version, and features discovered with
 * SKAS_CHECK_EXTENSION, never by comparing kernel versions.
 *
 * Rules for every structure: only fixed-size __u8..__u64 fields, explicit
 * padding, natural alignment; a leading size field that must equal
 * sizeof(struct); flags the module does not know and nonzero reserved
 * fields are rejected with -EINVAL, so both stay usable later.  Unknown
 * ioctl commands fail with -ENOTTY.
 *
 * Commands on /dev/skas (a misc device, mode 0660, owner root:root; give
 * access to a group with a udev rule, as for /dev/kvm):
 *
 *   SKAS_GET_API_VERSION   returns SKAS_API_VERSION.  Frozen: it changes
 *                          only if the ABI breaks, which it must not.
 *   SKAS_CHECK_EXTENSION   arg: a SKAS_CAP_* number.  Returns 0 if the
 *                          capability is unknown or absent, a positive
 *                          value if present.
 *   SKAS_CREATE_ASPACE     arg: struct skas_create_aspace *.  Creates an
 *                          empty guest address space and returns a new file
 *                          descriptor for it (O_CLOEXEC).  The last close of
 *                          that descriptor destroys the address space and
 *                          kills the host tasks of its threads.
 *
 * Commands on an address-space descriptor:
 *
 *   SKAS_CREATE_THREAD     arg: struct skas_create_thread *.  Creates a
 *                          guest thread with no host task yet, and returns
 *                          a new thread descriptor (O_CLOEXEC).
 *   SKAS_MEM               arg: struct skas_mem_batch *.  Applies a batch
 *                          of map/unmap/protect operations (struct
 *                          skas_mem_op) in
 *                          order, executed by a stopped guest thread of the
 *                          address space in its own context.  Returns the
 *                          number done; stops at the first failure, whose
 *                          -errno is stored in the batch's error field (and
 *                          returned if it was the first operation).
 *                          PROTECT (like SKAS_CLONE and SKAS_INSTALL_FD)
 *                          makes the guest run the vDSO's syscall
 *                          instruction: if those bytes were changed, or
 *                          another syscall comes, it fails with -EIO and
 *                          the guest is killed (SKAS_END_NATIVE).
 *   SKAS_RESET             no arg.  Empties the address space for a guest
 *                          execve: every mapping but the vDSO goes.  It
 *                          must have exactly one live thread, stopped;
 *                          that thread's registers in its run page are
 *                          zeroed.
 *   SKAS_SET_POLICY        arg: struct skas_policy *.  Sets how the guest's
 *                          64-bit syscall nr is handled: SKAS_POLICY_TRAP
 *                          (the default: a SKAS_EXIT_SYSCALL event) or
 *                          SKAS_POLICY_CONST (answered in the kernel with a
 *                          fixed value, without a stop), SKAS_POLICY_THREAD
 *                          (answered with the calling thread's own value,
 *                          struct skas_run.thread_value) or
 *                          SKAS_POLICY_NATIVE (executed by the host in the
 *                          guest thread's own context; only syscalls on the
 *                          module's safe list, -EPERM for the others).  ia32
 *                          and x32 syscalls are always trapped.  A fork
 *                          inherits the policy; SKAS_RESET keeps it.
 *                          SKAS_POLICY_MARKED limits a NATIVE entry to
 *                          marked fds (SKAS_MARK_FDS).
 *   SKAS_INSTALL_FD        arg: struct skas_install_fd *.  Installs a
 *                          runtime file into the guest's fd table at a
 *                          given number (replacing what was there), done
 *                          by a stopped guest thread in its own context.
 *   SKAS_MARK_FDS          arg: struct skas_mark_fds *.  Sets the fd marks
 *                          of a range of guest fds (SKAS_CAP_FD_MARK), at
 *                          once, whatever its threads do.  A NATIVE entry
 *                          with SKAS_POLICY_MARKED (read, write, their
 *                          p- and v- forms, lseek, fstat, newfstatat of an
 *                          empty path) runs on the host
 *                          only if its fd has the call's mark, else it is
 *                          trapped.  A fork inherits the marks;
 *                          SKAS_MEM_INSTALL_FD and SKAS_MEM_CLOSE_FD of an
 *                          fd clear them (an install may set new ones once
 *                          it is done).
 *   SKAS_MEM_READ          arg: struct skas_mem_rw *.  Copies guest memory
 *   SKAS_MEM_WRITE         to or from a runtime buffer, ignoring the
 *                          guest's protections (like ptrace PEEK/POKE).
 *                          Returns the number of bytes copied (short if the
 *                          range is not all mapped; -EFAULT if none).
 *
 * Commands on a thread descriptor:
 *
 *   SKAS_ATTACH            arg: struct skas_attach *.  Called by the stub,
 *                          the host task that becomes the guest thread.
 *                          The stub must be single-threaded, own its mm
 *                          alone, have no rseq area registered and run as
 *                          the creator's uid, and must not be ptraced
 *                          (-EPERM).  On success it never runs its
 *                          own code again: the module unmaps its memory
 *                          (the vDSO stays), closes all its fds and parks
 *                          it; the runtime then drives it with SKAS_RUN.
 *                          The module blocks every signal of the task but
 *                          SIGKILL (SIGSTOP too): a signal sent to it from
 *                          outside, or raised by a NATIVE syscall
 *                          (SIGPIPE, SIGXFSZ), is never delivered; it ends
 *                          a run with SKAS_EXIT_INTERRUPTED and is dropped
 *                          (SKAS_CAP_SIGNAL_INTERRUPT).  A guest task that
 *                          gets a ptrace tracer later is killed at its next
 *                          syscall, stop or wake-up (SKAS_END_PTRACED).
 *                          The first attached task's mm becomes the
 *                          address space's.
 *   SKAS_RUN               no arg.  Resumes the guest with the registers in
 *                          the run page and waits for its next event, which
 *                          it writes to the run page (exit_reason and the
 *                          matching member of the exit union).  Returns 0.
 *   SKAS_KICK              no arg.  Forces a running guest back: SKAS_RUN
 *                          returns with SKAS_EXIT_INTERRUPTED.  If the
 *                          thread is stopped, its next SKAS_RUN returns
 *                          SKAS_EXIT_INTERRUPTED at once.  A signal sent
 *                          to the guest task (but SIGKILL and its own
 *                          faults) acts as a kick.
 *   SKAS_CLONE             arg: struct skas_clone *.  The thread must be
 *                          stopped.  Clones its host task (a native clone
 *                          in the guest's context): flags 0 forks (the
 *                          child gets a copy-on-write copy of the address
 *                          space, and the runtime is its host parent and
 *                          reaps it); SKAS_CLONE_THREAD makes a new thread
 *                          of the same address space.  The child is bound
 *                          before it runs a single instruction and stops
 *                          with the parent's registers.
 *                          SKAS_CLONE_UNMARKED: the child (and the threads
 *                          it clones) traps every SKAS_POLICY_MARKED call, for a
 *                          child whose guest fd table is not its address
 *                          space's (vfork).  Returns 0 with the
 *                          child's thread descriptor, its address-space
 *                          descriptor (fork; -1 for a thread) and its
 *                          host tid.
 *   mmap()                 offset 0, length SKAS_RUN_PAGE_SIZE, MAP_SHARED:
 *                          the run page, struct skas_run.
 *   SKAS_GET_XSTATE        arg: struct skas_xstate *.  The thread must be
 *   SKAS_SET_XSTATE        stopped.  Reads or loads its FPU and vector
 *                          state, an image in the XSAVE standard format
 *                          (that of PTRACE_GETREGSET(NT_X86_XSTATE)), of
 *                          the size SKAS_CHECK_EXTENSION(SKAS_CAP_XSTATE)
 *                          returns.  Done by the guest thread itself,
 *                          without running guest code.  A loaded image is
 *                          checked as ptrace checks it (-EINVAL).  A get
 *                          with SKAS_XSTATE_INIT then resets the state to
 *                          the init state (a signal handler's start).
 *   SKAS_RUN_MEM           arg: struct skas_mem_batch *.  The thread must
 *                          be stopped.  Applies the batch as SKAS_MEM
 *                          does, in this thread, and then runs it as
 *                          SKAS_RUN does, in one hand-off: a page fault's
 *                          map and the resume cost one round trip.  If an
 *                          operation fails the guest does not run and the
 *                          run page is unchanged: -errno, as in the
 *                          batch's error field.  Returns 0 once the run
 *                          ended (its event is in the run page).
 *   SKAS_ENABLE_CAP        arg: struct skas_enable_cap *.  Turns on (or
 *                          tunes, or off) a capability of this thread; a
 *                          SKAS_CLONE child inherits the setting.
 *                          SKAS_CAP_SPIN: args[0] is how long, in ns, each
 *                          hand-off's waiter (this thread parked, or its
 *                          SKAS_RUN) polls for the other side before it
 *                          sleeps, at most what SKAS_CHECK_EXTENSION
 *                          returns; 0 turns spinning off.
 *                          SKAS_CAP_YIELD: args[0] 1 makes each hand-off's
 *                          waiter yield its CPU once to the other side,
 *                          if that is queued on it, and look again before
 *                          it sleeps; 0 turns it off.  -EINVAL for another
 *                          cap, flags, a nonzero args[1..3], too long a
 *                          time or a yield other than 0 or 1.
 *   poll()                 POLLIN once a task has attached (the thread can
 *                          be run), POLLHUP once it has died.
 */
#ifndef _UAPI_LINUX_SKAS_H
#define _UAPI_LINUX_SKAS_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SKAS_API_VERSION	1

#define SKASIO			0xB9

/* Capabilities for SKAS_CHECK_EXTENSION. */
#define SKAS_CAP_ASPACE		1	/* SKAS_CREATE_ASPACE */
#define SKAS_CAP_THREAD		2	/* threads: ATTACH, RUN, KICK, run page */
#define SKAS_CAP_MEM		3	/* SKAS_MEM (map, unmap, protect), READ/WRITE */
#define SKAS_CAP_CLONE		4	/* SKAS_CLONE: fork */
#define SKAS_CAP_RESET		5	/* SKAS_RESET */
#define SKAS_CAP_CLONE_THREAD	6	/* SKAS_CLONE with SKAS_CLONE_THREAD */
#define SKAS_CAP_POLICY		7	/* SKAS_SET_POLICY: TRAP and CONST */
#define SKAS_CAP_INSTALL_FD	8	/* SKAS_INSTALL_FD */
#define SKAS_CAP_POLICY_NATIVE	9	/* SKAS_POLICY_NATIVE and SKAS_POLICY_THREAD */
#define SKAS_CAP_SIGNAL_INTERRUPT 10	/* outside signals: INTERRUPTED, no default action */
#define SKAS_CAP_SIGSYS		11	/* a seccomp trap (SIGSYS): SKAS_EXIT_FAULT */
#define SKAS_CAP_END_CAUSE	12	/* ptraced guests ended, SKAS_EXIT_EXITED.cause */
#define SKAS_CAP_XSTATE		13	/* SKAS_GET/SET_XSTATE; the value: image size */
#define SKAS_CAP_RUN_MEM	14	/* SKAS_RUN_MEM */
#define SKAS_CAP_FD_MARK	15	/* fd marks; the value: SKAS_FD_MARK_MAX */
#define SKAS_CAP_SPIN		16	/* SKAS_ENABLE_CAP; the value: max ns */
#define SKAS_CAP_YIELD		17	/* SKAS_ENABLE_CAP: yield, then sleep */
#define SKAS_CAP_RUN_XSTATE	18	/* SKAS_MEM_SET_XSTATE in SKAS_RUN_MEM */

/* ioctls on /dev/skas */
#define SKAS_GET_API_VERSION	_IO(SKASIO, 0x00)
#define SKAS_CHECK_EXTENSION	_IO(SKASIO, 0x01)
#define SKAS_CREATE_ASPACE	_IOW(SKASIO, 0x02, struct skas_create_aspace)

/* ioctls on an address-space fd */
#define SKAS_CREATE_THREAD	_IOW(SKASIO, 0x10, struct skas_create_thread)
#define SKAS_MEM		_IOWR(SKASIO, 0x11, struct skas_mem_batch)
#define SKAS_MEM_READ		_IOW(SKASIO, 0x12, struct skas_mem_rw)
#define SKAS_MEM_WRITE		_IOW(SKASIO, 0x13, struct skas_mem_rw)
#define SKAS_RESET		_IO(SKASIO, 0x14)
#define SKAS_SET_POLICY		_IOW(SKASIO, 0x15, struct skas_policy)
#define SKAS_INSTALL_FD		_IOW(SKASIO, 0x16, struct skas_install_fd)
#define SKAS_MARK_FDS		_IOW(SKASIO, 0x17, struct skas_mark_fds)

/* ioctls on a thread fd */
#define SKAS_ATTACH		_IOW(SKASIO, 0x20, struct skas_attach)
#define SKAS_RUN		_IO(SKASIO, 0x21)
#define SKAS_KICK		_IO(SKASIO, 0x22)
#define SKAS_CLONE		_IOWR(SKASIO, 0x23, struct skas_clone)
#define SKAS_GET_XSTATE		_IOW(SKASIO, 0x24, struct skas_xstate)
#define SKAS_SET_XSTATE		_IOW(SKASIO, 0x25, struct skas_xstate)
#define SKAS_RUN_MEM		_IOWR(SKASIO, 0x26, struct skas_mem_batch)
#define SKAS_ENABLE_CAP		_IOW(SKASIO, 0x27, struct skas_enable_cap)

/**
 * struct skas_create_aspace - argument of SKAS_CREATE_ASPACE
 * @size:     sizeof(struct skas_create_aspace)
 * @flags:    none defined yet; must be 0
 * @reserved: must be 0
 */
struct skas_create_aspace {
	__u32 size;
	__u32 flags;
	__u64 reserved[3];
};

/**
 * struct skas_create_thread - argument of SKAS_CREATE_THREAD
 * @size:     sizeof(struct skas_create_thread)
 * @flags:    none defined yet; must be 0
 * @reserved: must be 0
 */
struct skas_create_thread {
	__u32 size;
	__u32 flags;
	__u64 reserved[3];
};

/**
 * struct skas_attach - argument of SKAS_ATTACH
 * @size:     sizeof(struct skas_attach)
 * @flags:    none defined yet; must be 0
 * @reserved: must be 0
 */
struct skas_attach {
	__u32 size;
	__u32 flags;
	__u64 reserved[3];
};

/* struct skas_clone.flags */
#define SKAS_CLONE_THREAD	0x1	/* a thread of the same address space */
#define SKAS_CLONE_UNMARKED	0x2	/* the child ignores fd marks (FD_MARK) */

/**
 * struct skas_clone - argument of SKAS_CLONE
 * @size:      in: sizeof(struct skas_clone)
 * @flags:     in: 0 (fork) or SKAS_CLONE_THREAD, and SKAS_CLONE_UNMARKED
 * @thread_fd: out: the child's thread descriptor (O_CLOEXEC)
 * @aspace_fd: out: the child's address-space descriptor (O_CLOEXEC); -1
 *             for SKAS_CLONE_THREAD
 * @host_tid:  out: the child's host tid
 * @pad:       0
 * @reserved:  must be 0
 */
struct skas_clone {
	__u32 size;
	__u32 flags;
	__s32 thread_fd;
	__s32 aspace_fd;
	__s32 host_tid;
	__u32 pad;
	__u64 reserved[2];
};

/* struct skas_policy.action */
#define SKAS_POLICY_TRAP	0	/* report SKAS_EXIT_SYSCALL (default) */
#define SKAS_POLICY_CONST	1	/* return value, no stop */
#define SKAS_POLICY_NATIVE	2	/* run it on the host, in the guest's context */
#define SKAS_POLICY_THREAD	3	/* return the thread's run->thread_value */

/* Syscall numbers SKAS_SET_POLICY accepts: [0, SKAS_POLICY_NR). */
#define SKAS_POLICY_NR		512

/* struct skas_policy.flags */
#define SKAS_POLICY_MARKED	0x1	/* NATIVE only on an fd with the call's mark */

/**
 * struct skas_policy - argument of SKAS_SET_POLICY
 * @size:     sizeof(struct skas_policy)
 * @flags:    SKAS_POLICY_MARKED (SKAS_CAP_FD_MARK, NATIVE only) or 0
 * @nr:       x86-64 syscall number, below SKAS_POLICY_NR
 * @action:   SKAS_POLICY_TRAP, SKAS_POLICY_CONST, SKAS_POLICY_NATIVE or
 *            SKAS_POLICY_THREAD
 * @value:    the return value for SKAS_POLICY_CONST; 0 for the others
 * @reserved: must be 0
 */
struct skas_policy {
	__u32 size;
	__u32 flags;
	__u32 nr;
	__u32 action;
	__s64 value;
	__u64 reserved[2];
};

/* struct skas_install_fd.flags, and struct skas_mem_op.flags of INSTALL_FD */
#define SKAS_FD_CLOEXEC		0x1	/* set FD_CLOEXEC on the guest's fd */
/* struct skas_mem_op.flags of SKAS_MEM_INSTALL_FD: once done, mark it */
#define SKAS_INSTALL_MARK_READ	0x100	/* SKAS_FD_MARK_READ (FD_MARK) */
#define SKAS_INSTALL_MARK_WRITE	0x200	/* SKAS_FD_MARK_WRITE (FD_MARK) */

/**
 * struct skas_install_fd - argument of SKAS_INSTALL_FD
 * @size:     sizeof(struct skas_install_fd)
 * @flags:    SKAS_FD_CLOEXEC or 0
 * @fd:       the runtime's file descriptor
 * @target:   the guest's descriptor number (>= 0)
 * @reserved: must be 0
 */
struct skas_install_fd {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__s32 target;
	__u64 reserved[2];
};

/* fd marks (SKAS_CAP_FD_MARK): which NATIVE calls a guest fd may take */
#define SKAS_FD_MARK_READ	0x1	/* read, pread64, readv, preadv */
#define SKAS_FD_MARK_WRITE	0x2	/* write, pwrite64, writev, pwritev */
#define SKAS_FD_MARK_MAX	1024	/* fds [0, SKAS_FD_MARK_MAX) can be marked */

/**
 * struct skas_mark_fds - argument of SKAS_MARK_FDS
 * @size:     sizeof(struct skas_mark_fds)
 * @marks:    SKAS_FD_MARK_READ | SKAS_FD_MARK_WRITE, or 0 (no mark)
 * @first:    the first guest fd of the range
 * @count:    how many; first + count <= SKAS_FD_MARK_MAX
 * @reserved: must be 0
 *
 * Sets the marks of every fd of the range to @marks.  lseek, fstat and
 * newfstatat need either mark.
 */
struct skas_mark_fds {
	__u32 size;
	__u32 marks;
	__u32 first;
	__u32 count;
	__u64 reserved[2];
};

/* struct skas_mem_op.op */
#define SKAS_MEM_MAP		1	/* mmap(addr, len, prot, flags|MAP_FIXED, fd, offset) */
#define SKAS_MEM_UNMAP		2	/* munmap(addr, len) */
#define SKAS_MEM_PROTECT	3	/* mprotect(addr, len, prot) */
#define SKAS_MEM_INSTALL_FD	4	/* runtime fd at guest fd addr (FD_MARK) */
#define SKAS_MEM_CLOSE_FD	5	/* close guest fd addr, if open (FD_MARK) */
#define SKAS_MEM_SET_XSTATE	6	/* SKAS_SET_XSTATE of image addr (RUN_MEM) */

/* struct skas_mem_op.flags for SKAS_MEM_MAP: exactly one of SHARED, PRIVATE */
#define SKAS_MAP_SHARED		0x01
#define SKAS_MAP_PRIVATE	0x02
#define SKAS_MAP_ANONYMOUS	0x20	/* fd must be -1, offset 0 */

/* Most operations in one SKAS_MEM batch. */
#define SKAS_MEM_MAX_OPS	1024

/**
 * struct skas_mem_op - one operation of a SKAS_MEM batch
 * @op:       SKAS_MEM_MAP, SKAS_MEM_UNMAP, SKAS_MEM_PROTECT,
 *            SKAS_MEM_INSTALL_FD, SKAS_MEM_CLOSE_FD or SKAS_MEM_SET_XSTATE
 * @prot:     PROT_READ | PROT_WRITE | PROT_EXEC (MAP, PROTECT); 0 otherwise
 * @flags:    SKAS_MAP_* (MAP); SKAS_FD_CLOEXEC and SKAS_INSTALL_MARK_* or 0
 *            (INSTALL_FD); 0 otherwise
 * @fd:       a runtime fd for a file mapping or INSTALL_FD; -1 otherwise
 * @addr:     page aligned guest address; the guest fd (0 to INT_MAX) for
 *            INSTALL_FD and CLOSE_FD; for SET_XSTATE, a user pointer in
 *            the runtime to the image
 * @len:      page aligned length, > 0; 0 for INSTALL_FD and CLOSE_FD; the
 *            image's size (SKAS_CHECK_EXTENSION(SKAS_CAP_XSTATE)) for
 *            SET_XSTATE
 * @offset:   page aligned file offset (file MAP); 0 otherwise
 * @reserved: must be 0
 *
 * A memory range must be a user range and must not touch the vDSO and its
 * data pages.  INSTALL_FD puts the runtime's file at the guest fd as
 * SKAS_INSTALL_FD does, and once it is there marks it as its
 * SKAS_INSTALL_MARK_* flags say; CLOSE_FD closes the guest fd (a free
 * one is no error).  Both clear the guest fd's marks before they act.
 * SET_XSTATE (SKAS_CAP_RUN_XSTATE) loads the thread's FPU and vector
 * state as SKAS_SET_XSTATE does, the image checked as that checks it; it
 * is an operation of SKAS_RUN_MEM only (SKAS_MEM has no thread: -EINVAL),
 * at most once per batch, and saves a run the hand-off of its own.
 */
struct skas_mem_op {
	__u32 op;
	__u32 prot;
	__u32 flags;
	__s32 fd;
	__u64 addr;
	__u64 len;
	__u64 offset;
	__u64 reserved;
};

/**
 * struct skas_mem_batch - argument of SKAS_MEM and SKAS_RUN_MEM
 * @size:     in: sizeof(struct skas_mem_batch)
 * @count:    in: number of operations, at most SKAS_MEM_MAX_OPS
 * @ops:      in: user pointer to @count struct skas_mem_op
 * @error:    out: -errno of the failed operation, 0 if all succeeded
 * @pad:      0
 * @reserved: must be 0
 */
struct skas_mem_batch {
	__u32 size;
	__u32 count;
	__u64 ops;
	__s32 error;
	__u32 pad;
	__u64 reserved[2];
};

/* struct skas_xstate.flags for SKAS_GET_XSTATE */
#define SKAS_XSTATE_INIT	0x1	/* then put the thread in the init state */

/**
 * struct skas_xstate - argument of SKAS_GET_XSTATE and SKAS_SET_XSTATE
 * @size:     sizeof(struct skas_xstate)
 * @flags:    SKAS_GET_XSTATE: 0 or SKAS_XSTATE_INIT (the state a signal
 *            handler starts with, in the same call); SKAS_SET_XSTATE: 0
 * @buf:      user pointer to the image
 * @len:      its size: exactly what SKAS_CHECK_EXTENSION(SKAS_CAP_XSTATE)
 *            returns
 * @pad:      0
 * @reserved: must be 0
 *
 * The image: the FXSAVE area (bytes 464..471 hold the enabled feature
 * mask, XCR0, and the rest of 416..511 is zero on GET and ignored on
 * SET), the XSAVE header at 512 (XSTATE_BV, then zeros), the components
 * at their CPUID offsets, up to the end of the last feature.  AMX tile
 * state (XTILECFG, XTILEDATA) is not part of it: never set in
 * XSTATE_BV, and the image ends before its area.  SET
 * refuses (-EINVAL) an XSTATE_BV bit of a feature not in the image,
 * nonzero XCOMP_BV or header reserved bytes, and MXCSR bits the CPU
 * does not support.
 */
struct skas_xstate {
	__u32 size;
	__u32 flags;
	__u64 buf;
	__u32 len;
	__u32 pad;
	__u64 reserved[2];
};

/**
 * struct skas_enable_cap - argument of SKAS_ENABLE_CAP
 * @cap:   the SKAS_CAP_* to set: SKAS_CAP_SPIN or SKAS_CAP_YIELD
 * @flags: must be 0
 * @args:  the capability's arguments; SKAS_CAP_SPIN: the spin time in
 *         ns, then zeros; SKAS_CAP_YIELD: 1 (on) or 0 (off), then zeros
 *
 * Adaptive spinning (SKAS_CAP_SPIN) trades CPU time for latency where the
 * runtime and its guest thread run on different CPUs: a waiter polls only
 * while the other side is running or runnable on another CPU, and stops
 * at once for a signal, a kick or a reschedule, so an idle guest costs no
 * CPU time.  On one CPU it never spins.
 *
 * Yield before sleep (SKAS_CAP_YIELD) is for the other case, the runtime
 * and its guest thread on one CPU: a waiter that has just woken the other
 * side gives it the CPU without leaving the run queue, and finds the
 * answer when it gets the CPU back, so a round trip needs no sleep and
 * no wake-up.  It yields once, to the other side only and only while that
 * is queued on its CPU, then sleeps as without: an idle guest costs no
 * CPU time.
 */
struct skas_enable_cap {
	__u32 cap;
	__u32 flags;
	__u64 args[4];
};

/**
 * struct skas_mem_rw - argument of SKAS_MEM_READ and SKAS_MEM_WRITE
 * @size:     sizeof(struct skas_mem_rw)
 * @flags:    none defined yet; must be 0
 * @addr:     guest address
 * @buf:      user pointer to the runtime's buffer
 * @len:      bytes to copy
 * @reserved: must be 0
 */
struct skas_mem_rw {
	__u32 size;
	__u32 flags;
	__u64 addr;
	__u64 buf;
	__u64 len;
	__u64 reserved[2];
};

/*
 * x86-64 registers, in the layout of struct user_regs_struct.  Written by
 * the runtime, they are sanitized as ptrace's putreg() does: cs and ss are
 * forced to the 64-bit user selectors, only the arithmetic flags, TF, DF,
 * RF and AC can change in eflags, rip, fs_base and gs_base must be user
 * addresses (SKAS_RUN fails with -EINVAL otherwise), orig_rax is ignored,
 * and ds, es, fs and gs read as 0 and are ignored.
 */
struct skas_regs {
	__u64 r15, r14, r13, r12, rbp, rbx, r11, r10;
	__u64 r9, r8, rax, rcx, rdx, rsi, rdi, orig_rax;
	__u64 rip, cs, eflags, rsp, ss;
	__u64 fs_base, gs_base, ds, es, fs, gs;
};

/* struct skas_run.exit_reason */
#define SKAS_EXIT_NONE		0	/* never run yet */
#define SKAS_EXIT_SYSCALL	1	/* a syscall, not executed */
#define SKAS_EXIT_FAULT		2	/* a synchronous fault signal */
#define SKAS_EXIT_EXITED	3	/* the host task died */
#define SKAS_EXIT_INTERRUPTED	4	/* kicked, the runtime or the guest signalled */

/* struct skas_exit_syscall.abi */
#define SKAS_ABI_64		0	/* syscall instruction, x86-64 numbers */
#define SKAS_ABI_X32		1	/* syscall instruction, x32 bit set */
#define SKAS_ABI_IA32		2	/* int $0x80 or sysenter */

/**
 * struct skas_exit_syscall - SKAS_EXIT_SYSCALL: the guest made a syscall
 * @nr:   the number, as the ABI numbers it (the x32 bit kept)
 * @args: the six arguments (for SKAS_ABI_IA32: ebx, ecx, edx, esi, edi, ebp)
 * @abi:  SKAS_ABI_*
 * @pad:  0
 *
 * The syscall was not executed.  regs.rip points after the syscall
 * instruction and regs.orig_rax holds @nr.  Store the result in regs.rax.
 */
struct skas_exit_syscall {
	__u64 nr;
	__u64 args[6];
	__u32 abi;
	__u32 pad;
};

/**
 * struct skas_exit_fault - SKAS_EXIT_FAULT: a synchronous fault
 * @signo:      SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGTRAP; SIGSYS
 *              (SKAS_CAP_SIGSYS) for a seccomp filter's SECCOMP_RET_TRAP
 * @code:       si_code (SIGSYS: SYS_SECCOMP)
 * @addr:       si_addr (SIGSYS: si_call_addr)
 * @trapno:     the x86 trap number (SIGSYS: 0)
 * @error_code: the x86 error code (page faults: the PF_* bits; SIGSYS: 0)
 *
 * The signal was taken from the guest: no handler runs and the guest is
 * not killed.  regs show the faulting state (SIGSYS: as the trap left
 * them, rax holding the trapped syscall's number).
 */
struct skas_exit_fault {
	__s32 signo;
	__s32 code;
	__u64 addr;
	__u32 trapno;
	__u32 error_code;
};

/* struct skas_exit_exited.cause: why the module ended the guest */
#define SKAS_END_NONE		0	/* it did not (an exit, an outside SIGKILL) */
#define SKAS_END_PTRACED	1	/* the guest task had a ptrace tracer */
#define SKAS_END_SKIP		2	/* the kernel ran a syscall it should have skipped */
#define SKAS_END_NATIVE		3	/* a native operation's syscall did not come */

/**
 * struct skas_exit_exited - SKAS_EXIT_EXITED: the host task died
 * @status: a wait status (WIFEXITED/WIFSIGNALED...)
 * @cause:  SKAS_END_*: SKAS_END_NONE, or why the module killed the guest
 *          (then @status says SIGKILL); set in the thread that found it
 */
struct skas_exit_exited {
	__s32 status;
	__u32 cause;
};

#define SKAS_RUN_PAGE_SIZE	4096

/**
 * struct skas_run - the run page of a thread, mmapped from its fd
 * @exit_reason: out: SKAS_EXIT_*
 * @flags:       out: none defined yet, 0
 * @thread_value: in: what this thread's syscalls with SKAS_POLICY_THREAD
 *               return (e.g. its guest tid); the runtime may change it
 *               while the thread is stopped
 * @reserved:    out: 0
 * @regs:        in/out: the guest's registers; written by the module when
 *               the guest stops, read by SKAS_RUN
 * @exit:        out: details of the event, by @exit_reason; only that
 *               member is written (SKAS_EXIT_INTERRUPTED: none), the rest
 *               keeps what an earlier event left
 *
 * The module writes it only while the guest is stopped, i.e. never while
 * SKAS_RUN is not in progress.
 */
struct skas_run {
	__u32 exit_reason;
	__u32 flags;
	__s64 thread_value;
	__u64 reserved[2];
	struct skas_regs regs;
	union {
		struct skas_exit_syscall syscall;
		struct skas_exit_fault fault;
		struct skas_exit_exited exited;
		__u64 padding[32];
	} exit;
};

#endif /* _UAPI_LINUX_SKAS_H */
