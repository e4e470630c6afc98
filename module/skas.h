/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal declarations shared by the files of skas.ko.
 */
#ifndef _SKAS_H
#define _SKAS_H

#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/skas.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

/**
 * struct skas_aspace - a guest address space
 * @ref:      references: the address-space file, and one per thread
 * @lock:     protects @threads and @mm
 * @threads:  the threads of this address space (struct skas_thread.node)
 * @mm:       the host mm of the first attached task (mmgrab()ed), or NULL
 * @owner:    effective uid of the creator; only it may attach and run
 * @syscall_insn: a syscall instruction in the vDSO, for native syscalls
 * @policy:   SKAS_POLICY_NR entries, or NULL (all TRAP); read by the
 *            sys_enter probe, allocated once, freed with the object
 * @fd_read:  the guest fds marked SKAS_FD_MARK_READ (SKAS_MARK_FDS); atomic
 *            bit operations, read by the sys_enter probe
 * @fd_write: the guest fds marked SKAS_FD_MARK_WRITE
 *
 * The final put (which may sleep: it may unregister the probes) comes from
 * the file's release or from a thread's free work.
 */
struct skas_aspace {
	struct kref ref;
	struct mutex lock;		/* @threads, @mm */
	struct list_head threads;
	struct mm_struct *mm;
	kuid_t owner;
	unsigned long syscall_insn;
	struct skas_policy_entry *policy;
	DECLARE_BITMAP(fd_read, SKAS_FD_MARK_MAX);
	DECLARE_BITMAP(fd_write, SKAS_FD_MARK_MAX);
};

/* struct skas_policy_entry.action: the action, and SKAS_POLICY_MARKED. */
#define SKAS_ENTRY_ACTION	0xff
#define SKAS_ENTRY_MARKED	0x100

/**
 * struct skas_policy_entry - how one 64-bit syscall of a guest is handled
 * @action: SKAS_POLICY_* and SKAS_ENTRY_MARKED, one word so that a call
 *          sees both of one setting; written last (release), read first
 *          (acquire)
 * @value:  the SKAS_POLICY_CONST return value
 */
struct skas_policy_entry {
	u32 action;
	s64 value;
};

/* Kernel-internal SKAS_MEM operation: the native clone of SKAS_CLONE. */
#define SKAS_OP_CLONE	0x100
/* Kernel-internal SKAS_MEM operation: SKAS_RESET. */
#define SKAS_OP_RESET	0x101
/* Kernel-internal SKAS_MEM operations: SKAS_GET_XSTATE, SKAS_SET_XSTATE. */
#define SKAS_OP_XSAVE		0x103
#define SKAS_OP_XRSTOR		0x104
#define SKAS_OP_XSAVE_INIT	0x105	/* XSAVE, then the init state */

/* Thread states (struct skas_thread.state), under skas_thread.lock. */
enum skas_thread_state {
	SKAS_T_NEW,		/* no host task attached yet */
	SKAS_T_STOPPED,		/* guest parked; the runtime owns the run page */
	SKAS_T_RUNNING,		/* released to run guest code */
	SKAS_T_OPS,		/* parked, running a memory batch (SKAS_MEM...) */
	SKAS_T_DEAD,		/* the host task has exited */
};

/**
 * struct skas_mem_req - a SKAS_MEM batch, checked, on its way to a guest
 * @ops:   the operations (kernel copy)
 * @files: the file of each file mapping, else NULL (references held)
 * @count: number of operations
 * @done:  out: number done
 * @error: out: -errno of the failed operation, or 0
 * @result: out: the last native syscall's return value
 * @tmp_fd: SKAS_MEM_INSTALL_FD: the guest fd to close after dup3()
 * @xstate: SKAS_OP_XSAVE, SKAS_OP_XRSTOR: the image (kernel, aligned)
 */
struct skas_mem_req {
	struct skas_mem_op *ops;
	struct file **files;
	unsigned int count;
	unsigned int done;
	int error;
	long result;
	int tmp_fd;
	void *xstate;
	void *xstate_mem;	/* SKAS_MEM_SET_XSTATE's, freed with the req */
};

/**
 * struct skas_event - what a probe recorded for the park to report
 * @reason: SKAS_EXIT_SYSCALL, _FAULT or _INTERRUPTED
 * @syscall: SKAS_EXIT_SYSCALL's details
 * @fault:  SKAS_EXIT_FAULT's (completed by skas_take_fault())
 *
 * Only the member of @reason is set, and only it goes to the run page.
 */
struct skas_event {
	u32 reason;
	union {
		struct skas_exit_syscall syscall;
		struct skas_exit_fault fault;
	};
};

/**
 * struct skas_thread - a guest thread: one host task bound to an aspace
 * @ref:        references: the thread file, the task hash entry, and one
 *              per queued task_work
 * @as:         the address space (a reference is held)
 * @node:       in @as->threads
 * @hnode:      in the task hash (RCU), while the host task is a guest
 * @lock:       protects @state, the flags below, @exit_status and @ev
 * @kick_pending: SKAS_KICK while stopped: the next SKAS_RUN returns at once
 * @stop_queued: @stop_work is queued (an event is in @ev)
 * @kick_queued: @kick_work is queued
 * @exit_reported: SKAS_EXIT_EXITED was returned once
 * @first_stop: the next stop is the first, after SKAS_ATTACH
 * @first_park: the stop work queued by the first stop, which parks
 * @attached:   the first stop happened: the thread can be run
 * @unmarked:   SKAS_CLONE_UNMARKED: SKAS_POLICY_MARKED calls always trap
 * @state:      enum skas_thread_state
 * @task:       the host task (a task reference is held), or NULL
 * @run:        the run page (one accounted page, mmapped by the runtime)
 * @ev:         the event recorded in atomic context (probes), copied to
 *              the run page by the guest when it parks
 * @entry_ax:   regs->ax at a trapped syscall's entry (to check the skip)
 * @regs_in:    registers validated by SKAS_RUN, applied by the guest
 * @req:        the memory batch to run in state SKAS_T_OPS
 * @ops_then_run: SKAS_RUN_MEM: once @req is done, run (SKAS_T_RUNNING)
 * @native_saved: the guest's registers during a native syscall
 * @native_nr:  the armed native syscall's number
 * @native_args: its arguments, checked at sys_enter as well
 * @native_ip:  its expected regs->ip at sys_enter (after the instruction)
 * @native_armed: the sys_enter probe lets that one syscall through
 * @native_active: stop_work is queued to finish a native syscall
 * @native_passed: the syscall was the armed one and ran
 * @native_bounce: the armed syscall is a bounce: never run, it parks
 *              again (a wake-up for get_signal(): the freezer, a ptrace
 *              stop, a task_work); the registers are in @native_saved
 * @bounce_kick: a kick came while a bounce was out: its stop parks
 * @clone_child: SKAS_CLONE in progress: the thread the child task becomes
 * @clone_regs: a clone child's first registers (its parent's guest ones)
 * @clone_start: the next stop is a clone child's first
 * @exit_req:   skas_thread_kill() of one thread of several: leave
 * @native_exit: the armed native syscall is that exit()
 * @restart_ok: a stop interrupted a NATIVE syscall that set up a restart
 *              block: its restart_syscall may run at @restart_ip (only the
 *              guest task itself uses these two)
 * @restart_ip: the address of that syscall instruction
 * @fstat_path: a NATIVE newfstatat running as fstat: its path argument
 *              (rsi), put back by @fstat_work or by a park that comes first
 * @fstat_pending: @fstat_path is still to be put back (guest task only)
 * @guest_wq:   the parked guest waits here
 * @rt_wq:      the runtime waits here (SKAS_RUN, poll)
 * @exit_status: the wait status of the dead host task
 * @end_cause:  SKAS_END_* if the module killed the guest (first one wins)
 * @run_lock:   one user of the parked thread at a time: SKAS_RUN, a batch
 *              (SKAS_MEM may pick any stopped thread), SKAS_CLONE, xstate
 * @in_run:     a SKAS_RUN holds @run_lock or waits for it (the others
 *              hold it briefly)
 * @stop_work:  task_work: park and report @ev (queued by the probes)
 * @kick_work:  task_work: park and report SKAS_EXIT_INTERRUPTED
 * @fstat_work: task_work: the registers of a NATIVE newfstatat back
 * @free_work:  the final free, run on skas_wq
 */
struct skas_thread {
	struct kref ref;
	struct skas_aspace *as;
	struct list_head node;
	struct hlist_node hnode;
	spinlock_t lock;		/* state, flags, @ev */
	int state;
	bool kick_pending;
	bool stop_queued;
	bool kick_queued;
	bool exit_reported;
	bool first_stop;
	bool first_park;
	bool attached;
	bool unmarked;
	struct task_struct *task;
	struct skas_run *run;
	struct skas_event ev;
	unsigned long entry_ax;
	struct skas_regs regs_in;
	struct skas_mem_req *req;
	bool ops_then_run;
	struct pt_regs native_saved;
	long native_nr;
	unsigned long native_args[6];
	unsigned long native_ip;
	bool native_armed;
	bool native_active;
	bool native_passed;
	bool native_bounce;
	bool bounce_kick;
	struct skas_thread *clone_child;
	struct pt_regs clone_regs;
	bool clone_start;
	bool exit_req;
	bool native_exit;
	bool restart_ok;
	unsigned long restart_ip;
	unsigned long fstat_path;
	bool fstat_pending;
	int exit_status;
	u32 end_cause;
	wait_queue_head_t guest_wq;
	wait_queue_head_t rt_wq;
	struct mutex run_lock;		/* one user of the parked thread */
	bool in_run;
	u32 spin_ns;			/* SKAS_CAP_SPIN: 0, or a hand-off's spin */
	bool yield;			/* SKAS_CAP_YIELD: yield before a sleep */
	struct task_struct *driver;	/* who SKAS_RUNs it (ref, @lock) */
	struct callback_head stop_work;
	struct callback_head kick_work;
	struct callback_head fstat_work;
	struct rcu_work free_work;
};

extern struct workqueue_struct *skas_wq;

/* main.c: live objects; module exit waits for them to be freed. */
void skas_objects_inc(void);
void skas_objects_dec(void);

/* aspace.c */
long skas_create_aspace(void __user *uarg);
struct skas_aspace *skas_aspace_new(kuid_t owner);
struct file *skas_aspace_file(struct skas_aspace *as);
void skas_aspace_get(struct skas_aspace *as);
void skas_aspace_put(struct skas_aspace *as);

/* policy.c */
int skas_aspace_copy_policy(struct skas_aspace *to, struct skas_aspace *from);
long skas_aspace_set_policy(struct skas_aspace *as, void __user *uarg);
bool skas_native_ok(const struct skas_thread *t, long id, u32 entry,
		    const struct pt_regs *regs);
long skas_aspace_mark_fds(struct skas_aspace *as, void __user *uarg);
void skas_aspace_copy_marks(struct skas_aspace *to, struct skas_aspace *from);
void skas_aspace_mark_fd(struct skas_aspace *as, u64 fd, u32 marks);
void skas_aspace_unmark_fd(struct skas_aspace *as, u64 fd);

/* mem.c */
struct vm_area_struct;
bool skas_keep_vma(struct vm_area_struct *vma, unsigned long vdso);
struct skas_thread;
int skas_mem_exec(struct skas_thread *t, struct skas_mem_req *req);
void skas_mem_native_result(struct skas_thread *t, struct skas_mem_req *req,
			    long result);
int skas_mem_batch_prepare(void __user *uarg, struct skas_mem_batch *args,
			   struct skas_mem_req *req, bool run);
void skas_mem_req_free(struct skas_mem_req *req);
long skas_aspace_mem(struct skas_aspace *as, void __user *uarg);
long skas_aspace_rw(struct skas_aspace *as, void __user *uarg, bool write);
long skas_aspace_reset(struct skas_aspace *as);
long skas_aspace_install_fd(struct skas_aspace *as, void __user *uarg);
long skas_aspace_exec(struct skas_aspace *as, struct skas_mem_req *req);
long skas_aspace_sole_thread(struct skas_aspace *as, struct skas_thread **tp);
struct task_struct *skas_aspace_task(struct skas_aspace *as);

/* guest.c */
void skas_take_fault(struct skas_event *ev);
void skas_guest_block_signals(void);
void skas_guest_flush_signals(void);
unsigned long skas_find_syscall_insn(void);
void skas_hollow_mm(void);
void skas_close_all_fds(void);
void skas_regs_to_user(struct skas_regs *u, struct pt_regs *regs);
void skas_regs_from_user(struct pt_regs *regs, const struct skas_regs *u);
int skas_regs_check(const struct skas_regs *u);

/* clone.c */
long skas_thread_clone(struct skas_thread *t, void __user *uarg);
void skas_thread_forked(struct skas_thread *t, struct task_struct *child);

/* thread.c */
struct skas_thread *skas_thread_new(struct skas_aspace *as);
struct file *skas_thread_file(struct skas_thread *t);
int skas_thread_queue(struct skas_thread *t, struct callback_head *work,
		      enum task_work_notify_mode mode);
long skas_create_thread(struct skas_aspace *as, void __user *uarg);
void skas_thread_get(struct skas_thread *t);
void skas_thread_put(struct skas_thread *t);
void skas_thread_kill(struct skas_thread *t, bool group);
void skas_thread_exited(struct skas_thread *t, struct task_struct *task);

/* run.c */
void skas_run_init(struct skas_thread *t);
int skas_thread_lock(struct skas_thread *t);
long skas_thread_run(struct skas_thread *t);
long skas_thread_run_mem(struct skas_thread *t, void __user *uarg);
long skas_thread_kick(struct skas_thread *t);
void skas_thread_kick_locked(struct skas_thread *t);
void skas_thread_exec(struct skas_thread *t, struct skas_mem_req *req);
int skas_native_arm(struct skas_thread *t, long nr, const unsigned long *args);
void skas_probe_sys_enter(void *data, struct pt_regs *regs, long id);
void skas_thread_fault(struct skas_thread *t, int sig);
void skas_thread_signal(struct skas_thread *t);

/* spin.c */
long skas_spin_max(void);
long skas_thread_enable_cap(struct skas_thread *t, void __user *uarg);
void skas_spin_drive(struct skas_thread *t);
bool skas_spin(struct skas_thread *t, bool (*done)(struct skas_thread *),
	       struct task_struct *peer);
bool skas_yield(struct skas_thread *t, bool (*done)(struct skas_thread *),
		struct task_struct *peer);

/* Does a parked @t wait for its driver (spin, yield), so that it is kept? */
static inline bool skas_wants_driver(const struct skas_thread *t)
{
	return READ_ONCE(t->spin_ns) || READ_ONCE(t->yield);
}

/* xstate.c */
void skas_xstate_init(void);
long skas_xstate_size(void);
int skas_xstate_exec(int op, void *buf);
int skas_xstate_load_op(struct skas_mem_op *op, struct skas_mem_req *req);
long skas_thread_xstate(struct skas_thread *t, void __user *uarg, bool set);

/* hooks.c */
int skas_hooks_get(void);
void skas_hooks_put(void);
int skas_hooks_init(void);
void skas_hooks_exit(void);
void skas_task_bind(struct skas_thread *t);
void skas_task_unbind(struct skas_thread *t);
unsigned int skas_tasks_untrace(bool on);
bool skas_syscall_probe_alone(void);
extern int skas_probes_registered;

/* The guest tasks, by task_struct (hooks.c), for every probe. */
#define SKAS_TASKS_BITS	8
extern DECLARE_HASHTABLE(skas_tasks, SKAS_TASKS_BITS);

/*
 * Look up the guest thread of @task.  Caller is an RCU reader
 * (rcu_read_lock(), or preemption disabled).  Inline: the sys_enter
 * probe (run.c) runs it at every syscall of every task.
 */
static inline struct skas_thread *skas_task_lookup(struct task_struct *task)
{
	struct skas_thread *t;

	hash_for_each_possible_rcu(skas_tasks, t, hnode, (unsigned long)task)
		if (t->task == task)
			return t;
	return NULL;
}

/* untrace.c: the host-tax opt-in; both called with the hooks' mutex held */
void skas_untrace_start(void);
void skas_untrace_stop(void);

/*
 * current is being killed, or already in do_exit() (its task_works run
 * from exit_task_work(), after exit_mm() and exit_files(), and the SIGKILL
 * that killed it may have been dequeued): never park, never touch its mm
 * or files.
 */
static inline bool skas_dying(void)
{
	return fatal_signal_pending(current) || (current->flags & PF_EXITING);
}

/* current's sighand: stable for current itself. */
static inline struct sighand_struct *skas_sighand(void)
{
	return rcu_dereference_protected(current->sighand, 1);
}

/*
 * A skas file: /dev/skas (misc_open() installs our fops), an address
 * space's, a thread's; all have .owner = THIS_MODULE.  Never handed to a
 * guest: in its fd table or its mm it would keep its own objects alive
 * (the last close of those is what ends the guest) and give it the
 * ioctls that drive guests.
 */
static inline bool skas_file_is_ours(const struct file *file)
{
	return file->f_op->owner == THIS_MODULE;
}

/* Check that @n u64 words at @p are zero. */
static inline bool skas_zeroed(const __u64 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

#endif /* _SKAS_H */
