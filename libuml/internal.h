/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuml internals: the objects behind the opaque handles of uml.h and the
 * table a backend fills in: ptrace (ptrace*.c) and skas (skas*.c), each
 * with its private fields below.
 */
#ifndef UML_INTERNAL_H
#define UML_INTERNAL_H

#include <pthread.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "uml.h"

struct skas_run;

struct uml_ops {
	int (*aspace_create)(struct uml_host *host, struct uml_aspace **asp,
			     struct uml_thread **threadp);
	/* Kill, reap and free; the usage of all it ran into @ru if given. */
	void (*aspace_destroy)(struct uml_aspace *as, struct rusage *ru);
	/* One validated operation; 0 or -errno. */
	int (*mem_op)(struct uml_aspace *as, const struct uml_mem_op *op,
		      void *batch);
	void *(*mem_batch_begin)(struct uml_aspace *as, int *err);
	void (*mem_batch_end)(struct uml_aspace *as, void *batch);
	/*
	 * Optional, instead of the three above: a whole batch of validated
	 * operations in one call.  Returns the number done (stopping at the
	 * first failure, whose -errno goes to *err) or a -errno when none was.
	 */
	int (*mem_batch)(struct uml_aspace *as, const struct uml_mem_op *ops,
			 unsigned int n, int *err);
	int (*aspace_reset)(struct uml_aspace *as);
	long (*mem_read)(struct uml_aspace *as, void *buf, uint64_t addr,
			 size_t len);
	long (*mem_write)(struct uml_aspace *as, uint64_t addr,
			  const void *buf, size_t len);
	int (*thread_run)(struct uml_thread *t, struct uml_exit *ex);
	int (*thread_kick)(struct uml_thread *t);
	int (*get_fpregs)(struct uml_thread *t, struct uml_fpregs *fp);
	int (*set_fpregs)(struct uml_thread *t, const struct uml_fpregs *fp);
	long (*get_xstate)(struct uml_thread *t, void *buf, size_t len);
	int (*set_xstate)(struct uml_thread *t, const void *buf, size_t len);
	long (*take_xstate)(struct uml_thread *t, void *buf, size_t len);
	int (*thread_clone)(struct uml_thread *parent, unsigned int flags,
			    struct uml_thread **childp,
			    struct uml_aspace **child_asp);
	void (*thread_destroy)(struct uml_thread *t);
	/* Optional (NULL: TRAP only); validated, action in host->policies. */
	int (*set_policy)(struct uml_aspace *as, unsigned int nr,
			  unsigned int action, int64_t value);
	int (*set_thread_value)(struct uml_thread *t, int64_t value);
	/* Optional (NULL: no fd marks); validated. */
	int (*mark_fds)(struct uml_aspace *as, unsigned int first,
			unsigned int count, unsigned int marks);
	/*
	 * Optional; validated ops.  1 if it cannot take this batch (NULL
	 * likewise): then mem_batch, then thread_run.
	 */
	int (*thread_run_mem)(struct uml_thread *t,
			      const struct uml_mem_op *ops, unsigned int n,
			      struct uml_exit *ex);
	/* Optional (NULL: no spinning); @ns checked against host->spin_max. */
	int (*set_spin)(struct uml_thread *t, unsigned int ns);
	/* Optional (NULL: no yield); only where host->can_yield. */
	int (*set_yield)(struct uml_thread *t, int on);
	/* Optional: give up / take over driving (ptrace: the tracer). */
	int (*thread_release)(struct uml_thread *t);
	int (*thread_adopt)(struct uml_thread *t);
};

/*
 * Locks: host->lock guards host->aspaces; as->lock guards as->threads,
 * as->nthreads, as->usage and the skas leader fields (a thread's free
 * decides under it and reaps outside it).  as->stub_lock guards the
 * backend's pages that the threads of an address space share: ptrace's
 * scratch page and alternate signal stack, the skas helper's data page.
 * host->pass_lock serializes fd passing (ptrace: forked address spaces
 * share their stub socket); it is taken before a stub_lock.  A thread's
 * own fields belong to the runtime thread driving it (t->owner), except
 * t->pid, which kicks and other threads read (__uml_thread_pid()).
 */
struct uml_host {
	enum uml_backend backend;
	const struct uml_ops *ops;
	pthread_mutex_t lock;
	pthread_mutex_t pass_lock;	/* ptrace: one fd passed at a time */
	int stub_fd;			/* ptrace: memfd holding the stub ELF */
	int dev_fd;			/* skas: /dev/skas */
	unsigned int skas_clone:1;	/* skas: SKAS_CAP_CLONE */
	unsigned int skas_clone_thread:1; /* skas: SKAS_CAP_CLONE_THREAD */
	unsigned int skas_xstate;	/* skas: SKAS_CAP_XSTATE's image size */
	unsigned int skas_run_mem:1;	/* skas: SKAS_CAP_RUN_MEM */
	unsigned int spin_max;		/* skas: SKAS_CAP_SPIN's value, ns */
	unsigned int can_yield:1;	/* skas: SKAS_CAP_YIELD */
	unsigned int policies;		/* UML_POLICY_BIT() mask */
	unsigned int vsyscall_filter:1;	/* stubs need the vsyscall filter */
	struct uml_aspace *aspaces;	/* list, for uml_host_close() */
};

struct uml_aspace {
	struct uml_host *host;
	pthread_mutex_t lock;
	pthread_mutex_t stub_lock;
	struct uml_aspace *next;	/* in host->aspaces */
	struct uml_aspace_info info;
	struct uml_thread *threads;	/* list */
	unsigned int nthreads;
	int sock;			/* ptrace: runtime end of the socketpair */
	int memfd;			/* ptrace: /proc/PID/mem */
	int fd;				/* skas: the address-space fd */
	pid_t leader;			/* skas: host thread-group leader */
	pid_t leader_unreaped;		/* skas: gone, group still alive */
	struct rusage usage;		/* of its host tasks reaped so far */
};

struct uml_thread {
	struct uml_regs regs;		/* the runtime's view (uml_thread_regs) */
	struct uml_aspace *as;
	struct uml_thread *next;	/* in as->threads */
	void *data;
	pid_t owner;			/* the runtime thread driving it; 0: none */
	volatile pid_t pid;		/* host tid; 0 once reaped */
	int pidfd;			/* for kicks that cannot hit a reused pid */
	int exit_status;		/* valid when exit_pending */
	uint32_t end_cause;		/* skas: SKAS_END_*, with exit_status */
	unsigned int exit_pending:1;	/* died during an injection */
	unsigned int dead:1;		/* UML_EXIT_EXITED reported */
	unsigned int interrupted:1;	/* a signal was swallowed meanwhile */
	unsigned int running:1;
	int fd;				/* skas: the thread fd */
	struct skas_run *run;		/* skas: its mmapped run page */
};

/* Its host task is reaped (or lost): kicks and other threads read pid. */
static inline void __uml_thread_gone(struct uml_thread *t)
{
	__atomic_store_n(&t->pid, 0, __ATOMIC_RELEASE);
}

static inline pid_t __uml_thread_pid(const struct uml_thread *t)
{
	return __atomic_load_n(&t->pid, __ATOMIC_ACQUIRE);
}

extern const struct uml_ops __uml_ptrace_ops;
extern const struct uml_ops __uml_skas_ops;

int __uml_ptrace_host_init(struct uml_host *host);
int __uml_skas_host_init(struct uml_host *host);
/* 0 if /dev/skas opens, speaks our API version and has what we need. */
int __uml_skas_probe(void);

#define PAGE_MASK_	0xfffULL
/*
 * For the stubs' seccomp filters (stub_host.c, ptrace.c): the legacy
 * vsyscall page, and the instruction pointer's halves in seccomp_data.
 */
#define VSYSCALL_PAGE	0xffffffffff600000ULL
#define SD_IP_LO	offsetof(struct seccomp_data, instruction_pointer)
#define SD_IP_HI	(SD_IP_LO + 4)

/* Shared helpers (uml.c). */
extern const char __uml_stub_elf[], __uml_stub_elf_end[];
int __uml_stub_memfd(void);
int __uml_stub_child_fds(int stub_fd, int keep, int keep_at);
int __uml_host_emulates_vsyscall(void);
int __uml_stub_vsyscall_filter(void);
int __uml_vsyscall_fault(struct uml_regs *r, int code, uint64_t call_addr,
			 struct uml_exit *ex);
void __uml_aspace_link(struct uml_host *host, struct uml_aspace *as);
void __uml_aspace_unlink(struct uml_aspace *as);
void __uml_thread_link(struct uml_aspace *as, struct uml_thread *t);
void __uml_thread_unlink(struct uml_thread *t);
void __uml_usage_add(struct rusage *to, const struct rusage *ru);
/* __uml_usage_add() into as->usage, under as->lock. */
void __uml_aspace_usage_add(struct uml_aspace *as, const struct rusage *ru);
/* The calling thread's tid, cached. */
pid_t __uml_self(void);
/* A live thread of @as that the caller drives and that is not running. */
struct uml_thread *__uml_driven_thread(struct uml_aspace *as);

/* skas backend internals shared between skas.c and skas_run.c. */
int __uml_skas_mem_ioctl(int fd, unsigned long cmd,
			 const struct uml_mem_op *ops, unsigned int n, int *err);
int __uml_skas_thread_run_mem(struct uml_thread *t,
			      const struct uml_mem_op *ops, unsigned int n,
			      struct uml_exit *ex);

/* ptrace backend internals shared between ptrace.c and ptrace_run.c. */
#define STUB_OPTIONS	(PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | \
			 PTRACE_O_TRACEFORK | PTRACE_O_TRACECLONE)
long __uml_pt_inject_died(struct uml_thread *t, int status);
long __uml_pt_inject_failed(struct uml_thread *t);
int __uml_pt_thread_release(struct uml_thread *t);
int __uml_pt_thread_adopt(struct uml_thread *t);
struct uml_thread *__uml_pt_thread_new(struct uml_aspace *as, pid_t pid);
void __uml_pt_thread_free(struct uml_thread *t);
struct uml_aspace *__uml_pt_aspace_new(struct uml_host *host, pid_t pid,
				       int sock);
int __uml_pt_wait(pid_t pid, int *status);
int __uml_pt_wait_flags(struct uml_thread *t, int *status, int flags);
int __uml_pt_wait_thread(struct uml_thread *t, int *status);
long __uml_pt_inject(struct uml_thread *t, long nr, long a1, long a2,
		     long a3, long a4, long a5, long a6);
int __uml_pt_save(struct uml_thread *t, void *kregs);
int __uml_pt_restore(struct uml_thread *t, const void *kregs);
int __uml_pt_setup_altstack(struct uml_thread *t);
/* From ptrace_run.c. */
int __uml_pt_thread_run(struct uml_thread *t, struct uml_exit *ex);
int __uml_pt_thread_kick(struct uml_thread *t);
int __uml_pt_get_fpregs(struct uml_thread *t, struct uml_fpregs *fp);
int __uml_pt_set_fpregs(struct uml_thread *t, const struct uml_fpregs *fp);
long __uml_pt_get_xstate(struct uml_thread *t, void *buf, size_t len);
int __uml_pt_set_xstate(struct uml_thread *t, const void *buf, size_t len);
int __uml_pt_thread_clone(struct uml_thread *parent, unsigned int flags,
			  struct uml_thread **childp,
			  struct uml_aspace **child_asp);

/* skas backend internals shared by skas.c, skas_run.c and skas_fpu.c. */
struct uml_regs *__uml_skas_regs(struct uml_thread *t);
/* SKAS_MEM_READ/WRITE without uml.c's limits (the helper pages). */
long __uml_skas_mem_rw(struct uml_aspace *as, void *buf, uint64_t addr,
		       size_t len, int write);
void __uml_skas_thread_free(struct uml_thread *t);
int __uml_skas_reap(struct uml_aspace *as, pid_t pid);
struct uml_thread *__uml_skas_thread_new(struct uml_aspace *as, int fd,
					 pid_t pid);
struct uml_aspace *__uml_skas_aspace_new(struct uml_host *host, int fd);
int __uml_skas_thread_run(struct uml_thread *t, struct uml_exit *ex);
int __uml_skas_thread_kick(struct uml_thread *t);
struct skas_exit_exited;
void __uml_skas_reap_exit(struct uml_thread *t,
			  const struct skas_exit_exited *e);
unsigned int __uml_skas_xstate_cap(int dev);
int __uml_skas_get_fpregs(struct uml_thread *t, struct uml_fpregs *fp);
int __uml_skas_set_fpregs(struct uml_thread *t, const struct uml_fpregs *fp);
long __uml_skas_get_xstate(struct uml_thread *t, void *buf, size_t len);
int __uml_skas_set_xstate(struct uml_thread *t, const void *buf, size_t len);
long __uml_skas_take_xstate(struct uml_thread *t, void *buf, size_t len);
int __uml_skas_fpu_reset(struct uml_thread *t);
int __uml_skas_helper_setup(struct uml_aspace *as);
int __uml_skas_thread_clone(struct uml_thread *parent, unsigned int flags,
			    struct uml_thread **childp,
			    struct uml_aspace **child_asp);

#endif
