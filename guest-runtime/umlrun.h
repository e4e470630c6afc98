/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * umlrun: a small user-mode kernel over libuml.  Shared declarations.
 *
 * Every guest thread is a struct task, every guest process (thread group)
 * a struct proc.  A guest syscall is handled by one function of the
 * dispatch table (syscall.c); a handler that would block records what it
 * waits for and returns SYS_BLOCK, and the scheduler (sched.c) calls it
 * again once that may have changed.  The runtime has one thread per guest
 * CPU, each driving the guest threads placed on it; all this state is
 * under one lock, which a handler holds throughout (smp.c).
 */
#ifndef UMLRUN_H
#define UMLRUN_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include "uml.h"

struct task;
struct proc;

#define PAGE_SIZE	4096ULL
#define PAGE_ALIGN(x)	(((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define PAGE_DOWN(x)	((x) & ~(PAGE_SIZE - 1))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Internal handler results, never seen by the guest. */
#define SYS_BLOCK	(-100000L)	/* parked: call the handler again later */
#define SYS_NORETURN	(-100001L)	/* registers already set (or task gone) */

#define NSIG_GUEST	64
#define SIGBIT(s)	(1ULL << ((s) - 1))
#define UNBLOCKABLE	(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/* The kernel's valid_signal(), without 0: a number the tables can hold. */
static inline bool sig_valid(int sig)
{
	return sig >= 1 && sig <= NSIG_GUEST;
}

/* ---- options (main.c) -------------------------------------------------- */

struct options {
	const char *root;	/* host folder that is the guest's "/" */
	bool rw;
	bool strace;
	bool stats;
	bool no_fast;		/* no fast tiers, no vDSO: every syscall traps */
	bool no_passthrough;	/* --no-passthrough: no native file I/O */
	long spin_ns;		/* --spin: hand-offs spin that long; -1: max */
	bool yield;		/* --yield: hand-offs yield before they sleep */
	int cpus;		/* --cpus=: workers, the guest's CPUs */
	int max_procs;
	enum uml_backend backend;
	enum { NET_INET, NET_NONE, NET_HOST } net;	/* --net= */
};

extern struct options opt;
extern struct uml_host *host;
extern int root_fd;		/* O_PATH fd of opt.root */
extern bool root_is_slash;

/*
 * A process's root directory (fs.c): --root's, or what chroot made it;
 * shared by fork, kept by exec.  @path is the host path, @slash true for
 * the host's own "/" (then /proc and host paths are the host's).
 */
struct groot {
	int refs;
	int fd;			/* O_PATH */
	char *path;
	bool slash;
};

extern struct groot root_default;
struct groot *groot_get(struct groot *r);
void groot_put(struct groot *r);

/* ---- files (fd.c) ------------------------------------------------------ */

/* Files that are more than a host fd to the runtime. */
enum file_kind { FILE_PLAIN, FILE_EPOLL, FILE_EVENTFD, FILE_TIMERFD,
		 FILE_SOCKET, FILE_SIGNALFD, FILE_INOTIFY, FILE_PIDFD };

struct file {
	enum file_kind kind;
	int refs;
	int hostfd;
	int flags;		/* guest O_ACCMODE | O_APPEND | O_NONBLOCK ... */
	bool hostnb;		/* host fd is O_NONBLOCK (our own pipes, FIFOs) */
	bool pollable;		/* fifo, socket or device: I/O may block */
	bool procdir;		/* the host's /proc: listed with guest pids */
	bool in_proc;		/* on the host's procfs (procfs.c) */
	bool synth;		/* text made by procfs.c: no seals, no xattrs */
	bool pass_known;	/* pass_ok is set (fdpass.c) */
	bool pass_ok;		/* a regular file the guest may do I/O on */
	bool type_known;	/* type_ok is from an fstat() (file_new_stat()) */
	bool type_ok;		/* of a type fdpass.c lets the guest use */
	/* Sockets (socket.c) */
	int sock_family, sock_type;
	int peer_pid;		/* SO_PEERCRED's guest pid, 0 if not known */
	bool connecting;	/* a blocking connect is waiting */
	bool rcv_nowait;	/* SO_RCVTIMEO was negative: never wait */
	bool snd_nowait;	/* SO_SNDTIMEO was negative */
	/* AF_NETLINK (netlink.c): hostfd is one end of a pair, this the other */
	int nl_peer;
	int32_t nl_portid;
	bool nl_bound;
	char *dirbuf;		/* procdir: the listing being read */
	size_t dirlen, dirpos;
	/* signalfd (signalfd.c) */
	uint64_t sigmask;
	bool sfd_ready;		/* its host eventfd is readable */
	bool sfd_want;
	struct file *sfd_next;
	/* pidfd (pidfd.c): hostfd is a pipe's read end, pid_wfd its write end */
	int pid_nr;		/* the pid it was opened for */
	int pid_wfd;		/* -1 once the process (thread) is gone */
	bool pid_ready;		/* the byte that makes it readable is there */
	struct proc *pid_proc;	/* its process, NULL once reaped */
	struct task *pid_task;	/* PIDFD_THREAD: a thread not the leader */
	uint64_t pid_ino;	/* fstat's st_ino: one per process or thread */
	struct file *pid_next;
};

struct fdent {
	struct file *f;
	bool cloexec;
	bool host_in;		/* in the host fd table at this number (fdpass.c) */
	uint8_t marks;		/* its UML_FD_MARK_* there */
};

/* A change of a guest's host fd table, to be done (fdpass.c). */
struct fdpass_op {
	unsigned int fd;
	struct file *f;		/* install it (a reference), or NULL: close */
};

struct fdtable {
	int refs;
	int size;
	struct fdent *ent;
	/* Its mirror in a host fd table (fdpass.c) */
	struct uml_aspace *pass_as;	/* that table's address space, or NULL */
	struct fdpass_op *pend;		/* queued, in order */
	int npend, pend_cap;
	bool inflight;			/* a batch of it is being applied */
	int pass_hold;			/* batches out: free it after them */
};

/* fdpass.c: native file I/O */
#define FDPASS_BATCH	64
struct fdpass_batch {
	struct fdtable *fdt;
	unsigned int n;
	struct uml_mem_op ops[FDPASS_BATCH];
	struct fdpass_op op[FDPASS_BATCH];
	bool early[FDPASS_BATCH];	/* the install marks it itself */
};
void fdpass_init(void);
extern bool fdpass_on;	/* native file I/O is on (fdpass_init()) */
static inline bool fdpass_enabled(void)
{
	return fdpass_on;
}
bool fdpass_marked_nr(unsigned long nr);
struct stat;
bool fdpass_type_ok(const struct stat *st);
void fdpass_stats_print(void);	/* --stats */
void fdpass_aspace_new(struct proc *p, bool set_policy);
void fdpass_forget(struct fdtable *fdt, unsigned int fd);
void fdpass_drop(struct fdtable *fdt);
void fdpass_aspace_gone(struct proc *p, struct uml_aspace *as);
void fdpass_syscall(struct task *t, unsigned long nr, unsigned int fd,
		    long ret);
void fdpass_limits(struct proc *p);
void fdpass_fork(struct proc *c, struct proc *parent);
void fdpass_unshared(struct proc *p, struct fdtable *parent_fdt);
bool fdpass_release(struct fdtable *fdt);
unsigned int fdpass_take_queued(struct task *t, struct fdpass_batch *b);
bool fdpass_done_batch(struct task *t, struct fdpass_batch *b, int r);

struct file *file_new(int hostfd, int flags);
struct file *file_new_stat(int hostfd, int flags, const struct stat *st);
bool would_block(struct file *f, short events);	/* a blocking host fd's poll */
void send_sigpipe(struct task *t);
/* lock.c: fcntl record locks and flock among guest processes */
long lock_fcntl(struct task *t, struct file *f, int cmd, uint64_t ufl);
void locks_close(struct fdtable *fdt, struct file *f);
void locks_release(const void *owner);
struct file *file_get(struct file *f);
void file_put(struct file *f);
struct fdtable *fdt_new(void);
struct fdtable *fdt_copy(const struct fdtable *src);
void fdt_put(struct fdtable *fdt);
void fdt_close_on_exec(struct fdtable *fdt);
struct fdent *fd_ent(struct task *t, unsigned int fd);
struct file *fd_lookup(struct task *t, unsigned int fd);
int fd_host_of(struct task *t, unsigned int fd, enum file_kind kind);
int fd_install(struct task *t, int minfd, struct file *f, bool cloexec);
long timerfd_block(struct task *t, struct file *f);	/* eventfd.c */
long sock_block(struct task *t, struct file *f, short events);	/* socket.c */
/* netlink.c */
long netlink_socket(struct task *t, int type, int protocol, int flags);
void netlink_release(struct file *f);
long netlink_bind(struct task *t, struct file *f, uint64_t uaddr, uint64_t ulen);
long netlink_connect(struct task *t, struct file *f, uint64_t uaddr, uint64_t ulen);
long netlink_name(struct task *t, struct file *f, uint64_t uaddr,
		  uint64_t ulenp, bool peer);
void netlink_from_kernel(struct sockaddr_storage *name, socklen_t *len);
long netlink_send(struct task *t, struct file *f, const void *name,
		  socklen_t namelen, const char *data, size_t len);
long netlink_sockopt(struct task *t, const uint64_t *a, bool set);
long netlink_ifreq(struct task *t, struct file *f, unsigned int cmd, uint64_t arg);

/* signalfd.c */
extern bool sigfd_dirty;	/* a pending set changed: sigfd_refresh() */
void sigfd_refresh(void);
void sigfd_forget(struct file *f);
struct iovec;
long sigfd_read(struct task *t, struct file *f, const struct iovec *iov,
		int cnt);

/* pidfd.c */
struct stat;
void pidfd_exited(struct proc *p);
void pidfd_reaped(struct proc *p);
void pidfd_task_gone(struct task *t);
void pidfd_forget(struct file *f);
long pidfd_for_clone(struct task *t, bool thread, struct file **fp);
void pidfd_bind(struct file *f, struct proc *p, struct task *th, int nr);
long pidfd_ioctl(struct file *f, unsigned long arg);
void pidfd_stat(struct task *t, int gfd, struct stat *st);
int pidfd_wait_target(struct task *t, int fd, int *pid, bool *nonblock);

/* /proc and /dev/fd as the guest sees them (procfs.c). */
int procfs_rewrite(struct task *t, char *path, size_t len);
bool procfs_is_runtime(int hostfd);
bool procfs_names_runtime(int hostfd);
struct proc *procfs_exe_proc(struct task *t, const char *path);
int procfs_link_text(struct task *t, const char *path, char *out, size_t len);
ssize_t procfs_self_text(struct task *t, int fd, char *out, ssize_t n,
			 size_t len);
int procfs_open(struct task *t, const char *path);
bool procfs_is_root(int hostfd);
struct stat;
bool procfs_is_procfs(const struct stat *st);
bool procfs_fd_on_proc(int fd, const struct stat *st);
void procfs_host_to_guest(char *path, size_t len);
long procfs_getdents(struct task *t, struct file *f, uint64_t ubuf, size_t n);
void proc_set_cmdline(struct proc *p, char **argv, int argc);

/* ---- memory map (mm.c) ------------------------------------------------- */

struct vma {
	uint64_t start, end;
	uint32_t prot;
	uint32_t flags;		/* UML_MAP_* plus VMA_* below */
	struct file *file;	/* a file mapping's file (a reference), else NULL */
	uint64_t off;		/* its offset in the file at @start */
	/*
	 * Which shared anonymous memory a MAP_SHARED | MAP_ANONYMOUS mapping
	 * is (numbered by mm_map(), kept by fork), for futex keys; 0 else.
	 */
	uint64_t shared_id;
};

#define VMA_RESERVED	0x1000	/* vDSO, vvar: never handed out or unmapped */
#define VMA_LOCKED	0x2000	/* mlock'ed (mlock.c) */
#define VMA_LOCKONFAULT	0x4000	/* mlock2(MLOCK_ONFAULT), MCL_ONFAULT */
/* What of a vma's flags a mapping of the backend takes. */
#define VMA_MAP_FLAGS(f)	((f) & (UML_MAP_SHARED | UML_MAP_PRIVATE | \
					UML_MAP_ANONYMOUS))

struct mm {
	int refs;
	struct vma *v;
	int n, cap;
	uint64_t brk_start, brk;
	uint64_t mmap_base;	/* top of the mmap area, searched downwards */
	uint64_t stack_top;
	uint64_t top;		/* guest_top */
	unsigned int membarrier;	/* membarrier's registrations (membarrier.c) */
	uint32_t lock_future;	/* mlockall(MCL_FUTURE): new mappings' lock bits */
};

struct mm *mm_new(const struct uml_aspace_info *info);
struct mm *mm_copy(const struct mm *src);
int mm_set_lock(struct mm *mm, uint64_t addr, uint64_t end, uint32_t lock);
void mm_lock_new(struct task *t, uint64_t start, uint64_t end);	/* mlock.c */
void mm_lock_new_with(struct task *t, uint64_t start, uint64_t end,
		      uint32_t lock);
long mlock_mmap_check(struct task *t, uint64_t len);
uint64_t mm_locked_bytes(const struct mm *mm);			/* mlock.c */
void mm_put(struct mm *mm);
int mm_record(struct mm *mm, uint64_t start, uint64_t end, uint32_t prot,
	      uint32_t flags, struct file *file, uint64_t off);
void mm_forget(struct mm *mm, uint64_t start, uint64_t end);
uint64_t mm_find_free(struct mm *mm, uint64_t len);
bool mm_is_free(const struct mm *mm, uint64_t start, uint64_t end);
int mm_map(struct task *t, uint64_t addr, uint64_t len, uint32_t prot,
	   uint32_t flags, struct file *file, uint64_t off);

/* Mappings queued for one host call (mm.c, "Batched mappings"). */
#define MM_BATCH_MAX 16
struct mm_batch {
	unsigned int n;
	struct uml_mem_op op[MM_BATCH_MAX];
	struct file *file[MM_BATCH_MAX];
};
void mm_batch_start(struct task *t, struct mm_batch *b);
int mm_batch_flush(struct task *t);
int mm_batch_end(struct task *t, bool apply);

/* Guest memory access (uaccess in mm.c). */
int copy_from_guest(struct task *t, void *dst, uint64_t src, size_t len);
int copy_to_guest(struct task *t, uint64_t dst, const void *src, size_t len);
int strncpy_from_guest(struct task *t, char *dst, uint64_t src, size_t max);

/* ---- signals (signal.c) ------------------------------------------------ */

struct ksigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

struct sighand {
	int refs;
	struct ksigaction act[NSIG_GUEST + 1];
};

struct ksiginfo {
	int signo, code, pid, uid, status;
	uint64_t addr;
	uint32_t trapno, err;	/* faults: for the sigcontext */
	uint64_t value;		/* SI_QUEUE, SI_TIMER: the sigval */
	int timerid, overrun;	/* SI_TIMER */
	unsigned int gen;	/* SI_TIMER: the timer's settime count */
};

#define SIGRTMIN_K	32	/* the kernel's: real-time signals queue */

/* One queued instance of a real-time signal. */
struct qsig {
	struct qsig *next;
	struct ksiginfo si;
};

struct sigqueue {
	uint64_t set;
	uint64_t lost;		/* pending without an entry (rlimit.c's limit) */
	struct ksiginfo info[NSIG_GUEST + 1];	/* standard signals */
	struct qsig *rt;	/* real-time ones, oldest first */
};

/* ---- processes and threads (proc.c) ------------------------------------ */

enum task_state {
	TASK_RUNNABLE,		/* ready to resume in the guest */
	TASK_SYSCALL,		/* ready: its pending syscall must be handled */
	TASK_BLOCKED,		/* waiting (see struct waitinfo) */
	TASK_DEAD,
};

/*
 * A futex as the kernel keys it (get_futex_key()): a private one, or one
 * in a private mapping, by address space and address; a shared one in a
 * MAP_SHARED mapping by what is mapped (a host file's device and inode,
 * or shared anonymous memory's number) and the offset in it, so that
 * processes mapping the same file or memory meet.
 */
struct futex_key {
	const struct uml_aspace *as;	/* by address: the space; else NULL */
	uint64_t dev, ino;		/* ino: shared_id for anonymous memory */
	uint64_t off;			/* the address, or the offset */
};

/* What a blocked task waits for; any of these wakes it. */
struct waitinfo {
	struct pollfd *fds;	/* host fds */
	int nfds, cap;
	int64_t deadline;	/* CLOCK_MONOTONIC ns, 0 = none */
	bool child;		/* a child changed state */
	bool signal;		/* only a signal wakes it (pause, sigsuspend) */
	uint64_t futex;		/* futex address, 0 = none */
	uint32_t futex_bitset;	/* FUTEX_WAIT_BITSET's mask */
	struct futex_key fkey;	/* what @futex is, as futex_key_of() says */
	bool futex_woken;	/* a wake-up ended the wait: no signal does */
	const void *lock_owner;	/* F_SETLKW (lock.c): who waits, and for */
	const void *lock_blocker;	/* whose lock */
	bool vfork;		/* a vfork child exec'd or exited */
	int ipc_kind;		/* a System V IPC object's change (ipc.c): */
	int ipc_id;		/* its kind + 1 (0 = none) and id */
	int ipc_arg[2];		/* semop: the blocking sem_num and sem_op */
	/*
	 * A blocking open of a FIFO waiting for its other end (fs.c); kept
	 * while the handler is called again, closed by wait_reset().
	 */
	bool fifo_held;		/* fifo_fd is open */
	bool fifo_writer;	/* a writer waits for a reader, else the reverse */
	bool fifo_ready;	/* the other end came: the open succeeds */
	int fifo_fd;		/* reader: its host fd; writer: O_PATH fd of the
				 * FIFO, its host fd once ready */
	dev_t fifo_dev;		/* the FIFO */
	ino_t fifo_ino;
};

/* A thread's scheduling attributes (policy.c): kept, not applied. */
struct sched_attrs {
	int policy;		/* SCHED_OTHER ... SCHED_DEADLINE */
	unsigned int prio;	/* real-time priority, 0 for the others */
	int nice;		/* -20 ... 19 */
	bool reset_on_fork;
	uint64_t dl_runtime, dl_deadline, dl_period;
};

struct task {
	int tid;
	struct proc *p;
	struct uml_thread *th;
	struct mm_batch *mm_batch;	/* exec's queued mappings, or NULL */
	enum task_state state;
	struct task *next_in_proc;
	struct task *rq_next;
	bool on_rq;
	int cpu;		/* the worker it is placed on, -1 until queued */
	bool held;		/* its worker has it in hand (smp.c) */
	bool yield;		/* sched_yield: go to the back of the queue */
	bool th_gone;		/* host task already dead */
	struct task *dead_next;
	int vfork_child;	/* pid returned once the vfork wait ends */

	uint64_t sigmask;
	uint64_t saved_sigmask;	/* sigsuspend: restored after the handler */
	uint64_t sigwait_saved;	/* rt_sigtimedwait: the mask while it waits */
	uint64_t sigwait_set;	/* and the signals it waits for */
	bool sigwait_active;
	bool restore_sigmask;
	struct sigqueue pending;
	uint64_t ss_sp, ss_size;
	int ss_flags;

	uint64_t clear_child_tid;
	uint64_t robust_list;	/* set_robust_list's head (not walked at exit) */

	/* The syscall in progress (valid in TASK_SYSCALL and TASK_BLOCKED). */
	bool sys_again;		/* handler called again after a block */
	uint64_t sys_done;	/* bytes already moved by a partial write */
	int64_t sys_deadline;
	bool sys_tmo_read;	/* its timeout was read and valid (poll.c) */
	uint64_t sys_rem;	/* nanosleep's time-left pointer (time.c) */
	int64_t sys_end;	/* recvmmsg's end of its timeout (socket.c) */
	struct waitinfo w;
	/* Capabilities (cred.c) and prctl's per-thread settings (misc.c). */
	uint64_t cap_eff, cap_prm, cap_inh, cap_bset, cap_amb;
	uint64_t pidfd_ino;	/* its pidfds' st_ino, 0 until one is opened */
	int pdeath_signal;	/* PR_SET_PDEATHSIG: sent when the parent exits */
	unsigned int securebits; /* PR_SET_SECUREBITS, keepcaps among them */
	bool no_new_privs;
	uint64_t timer_slack_ns;
	uint64_t cpumask;	/* sched_setaffinity's CPUs (policy.c) */
	struct sched_attrs sched;
	int ioprio;		/* ioprio_set's value, 0 none (policy.c) */
	unsigned int personality;	/* personality(2) (misc.c) */
};

enum proc_state { PROC_ALIVE, PROC_ZOMBIE };

/* CPU time (µs), faults and peak RSS (kB): usage.c. */
struct usage {
	unsigned long long utime, stime;	/* µs */
	unsigned long long minflt, majflt, maxrss;	/* maxrss: kB */
	unsigned long long sched_ns;	/* run time, the host's precise figure */
};
uint64_t usage_cpu_clock(struct proc *p, struct task *th, int which);


/* A resource limit, the guest's struct rlimit64 (rlimit.c). */
struct grlimit {
	uint64_t cur, max;
};

#define GUEST_NLIMITS	16	/* RLIM_NLIMITS */

/* Identity syscalls answered by the host with CONST (fast.c). */
#define FAST_NCONST	7

struct proc {
	int pid, pgid, sid;
	enum proc_state state;
	struct proc *parent;
	struct proc *next;	/* global list */
	struct task *threads;
	int nthreads;
	struct uml_aspace *as;
	bool as_shared;		/* CLONE_VM: @as (and @mm) are its parent's */
	bool as_lent;		/* a CLONE_VM child ran in its @as */
	struct mm *mm;
	struct fdtable *fdt;
	struct sighand *sh;
	struct sigqueue shared_pending;
	int cwdfd;		/* host O_PATH fd of the guest's cwd */
	bool cwd_in_proc;	/* cwdfd is on the host's procfs */
	char *exe;		/* host path of the running program */
	char comm[16];
	char *cmdline;		/* argv, NUL-separated, for /proc/<pid>/cmdline */
	size_t cmdline_len;
	int64_t start_ns;	/* CLOCK_MONOTONIC at fork */
	int umask;
	int exit_signal;	/* sent to the parent at exit (SIGCHLD) */
	int wstatus;		/* wait status once a zombie */
	struct task *vfork_parent;
	bool stopped;		/* job control: its threads do not run */
	int stop_report;	/* wait status not yet collected by WUNTRACED, */
	bool cont_report;	/* ... and by WCONTINUED */
	bool subreaper;		/* PR_SET_CHILD_SUBREAPER */
	bool lost_parent;	/* reparent_children(): pdeath signals due */
	bool dumpable;		/* PR_SET_DUMPABLE (the kernel's is per mm) */
	bool execed;		/* has exec'd since fork: setpgid EACCES */
	struct ptimer *timers;	/* POSIX timers (timer.c) */
	struct usage usage_done;	/* of its ended threads */
	struct usage usage_left;	/* in an address space it left */
	struct usage usage_children;	/* of its children reaped by wait */
	int64_t itimer_next;	/* ITIMER_REAL: CLOCK_MONOTONIC ns, 0 = off */
	int64_t itimer_interval;
	int64_t itimer_fired;	/* its last expiry, for the rearm (time.c) */
	/*
	 * ITIMER_VIRTUAL and ITIMER_PROF (cputimer.c): the expiry in the
	 * process's user (user + system) time, ns, 0 = off; the period.
	 */
	uint64_t cpu_it_expires[2], cpu_it_incr[2];
	/* What the host answers for the CONST syscalls (fast.c). */
	int64_t fast_val[FAST_NCONST];
	unsigned int fast_const;	/* bit i: fast_val[i] is set */
	uint64_t pidfd_ino;	/* its pidfds' st_ino, 0 until one is opened */
	struct grlimit rlim[GUEST_NLIMITS];	/* rlimit.c */
	struct sem_undo *sem_undo;	/* SEM_UNDO's adjustments (sem.c) */
	struct sched_attrs exit_sched;	/* a zombie's: its leader's at exit */
	struct groot *root;	/* its root directory (chroot, fs.c) */
};

extern struct proc *procs;

/* System V IPC (ipc.c, sem.c, shm.c): a process exits. */
void sem_exit(struct proc *p);
void shm_sweep(void);
int ipc_proc_open(const char *name, int (*memfd)(const char *, size_t));
extern int nprocs;
extern struct proc *init_proc;

struct proc *proc_by_pid(int pid);
bool proc_may_ptrace(const struct task *t, const struct proc *p);	/* crossproc.c */
struct proc *proc_by_id(int id);

/*
 * The guest's CPUs (policy.c): the one number that sched_getaffinity,
 * getcpu, /proc/cpuinfo and /sys/devices/system/cpu all answer from.
 */
#define GUEST_MAX_CPUS	64	/* a task's cpumask is a uint64_t */
extern int guest_ncpus;
uint64_t guest_cpus_all(void);
void sched_inherit(struct task *c, const struct task *t);
void personality_exec(struct task *t);

#define SLICE_NS	10000000LL	/* the runtime's time slice (sched.c) */

/* cred.c */
void cred_init(struct task *t);
void cred_inherit(struct task *c, const struct task *t);
void cred_exec(struct task *t);
long cred_prctl(struct task *t, const uint64_t *a);

/* rlimit.c */
void rlimit_host_init(void);
void rlimit_init(struct proc *p);
long rlimit_fsize_write(struct task *t, struct file *f, int64_t pos,
			bool append, size_t *n);
long rlimit_fsize_grow(struct task *t, int hostfd, int64_t size);
long rlimit_fsize_exceeded(struct task *t);

/* usage.c */
struct rusage;
void usage_thread_done(struct task *t);
void usage_proc_done(struct proc *p);
void usage_proc_exited(struct proc *p, const struct rusage *ru);
void usage_as_left(struct task *t);
void usage_reaped(struct proc *parent, struct proc *c);
void usage_rusage_of(const struct proc *c, struct rusage *ru);
void usage_cpu_ns(struct proc *p, uint64_t *user, uint64_t *sys);

/* cputimer.c */
struct itimerval;
void cpu_timers_check(void);
void cpu_itimer_read(struct proc *p, int which, struct itimerval *it);
void cpu_itimer_set(struct proc *p, int which, const struct itimerval *it,
		    struct itimerval *old);

/* timer.c */
struct ptimer;
void posix_timers_free(struct proc *p);
void posix_timer_dequeued(struct proc *p, struct ksiginfo *si);
void itimer_dequeued(struct proc *p);
int64_t posix_timers_fire(int64_t now);

/* fs.c, for socket.c and xattr.c */
enum unix_op { UNIX_BIND, UNIX_CONNECT, UNIX_SEND };
long unix_path_op(struct task *t, const char *path, int sock, enum unix_op op,
		  struct msghdr *m, int flags);
int path_open_opath(struct task *t, uint64_t upath, bool follow);
struct task *task_by_tid(int tid);
#define PID_MAX		32768	/* the guest's pid_max */
extern int pid_want;		/* the next pid_alloc()'s answer, if set */
int pid_alloc(void);
struct task *task_new(struct proc *p, struct uml_thread *th, int tid);
void task_exit(struct task *t, int code);
void proc_exit_group(struct proc *p, int wstatus);
void proc_reap(struct proc *p);
struct task *task_first_alive(struct proc *p);

/*
 * The changes queued on @t's fd table to send with its resume (fdpass.c);
 * b->n is 0 if none.  Inline: every resume asks, and most have none.
 */
static inline unsigned int fdpass_take(struct task *t, struct fdpass_batch *b)
{
	b->n = 0;
	if (!t->p->fdt || !t->p->fdt->npend)
		return 0;
	return fdpass_take_queued(t, b);
}

/*
 * The run with batch @b returned @r (lock held again): true if the batch
 * failed and nothing ran, so the run goes again without it.
 */
static inline bool fdpass_done(struct task *t, struct fdpass_batch *b, int r)
{
	return b->n && fdpass_done_batch(t, b, r);
}

/* umlrun's own user and group ids, the guest's (identity.c) */
extern uid_t host_uid, host_euid;
extern gid_t host_gid, host_egid;

/* ---- scheduler (sched.c) ----------------------------------------------- */

void sched_wake(struct task *t);
void sched_enqueue(struct task *t);
void sched_dequeue(struct task *t);
void tasks_free_dead(void);
int init_exit_status(void);
extern bool io_activity;
extern int tty_fg_pgrp;
void wait_reset(struct waitinfo *w);
long block_on_fd(struct task *t, int hostfd, short events);
long block_until(struct task *t, int64_t deadline);
void sched_deadline_new(void);
void wake_children_waiters(struct proc *p);
int64_t itimers_fire(int64_t now);
int futex_wake(const struct futex_key *k, int n, uint32_t bitset);
void futex_key_of(struct task *t, uint64_t addr, bool shared, struct futex_key *k);
int sched_loop(void);
int64_t now_ns(void);
/*
 * Guest times in nanoseconds, saturated: a guest may pass any 64-bit
 * seconds, and seconds * 10^9 (or now + that) must not wrap a deadline
 * into the past (sched.c).
 */
int64_t ns_sat(__int128 ns);
int64_t timespec_ns(const struct timespec *ts);
int64_t timeval_ns(const struct timeval *tv);
int64_t ns_after(int64_t ns);
bool timespec_ok(const struct timespec *ts);
int timespec_from_guest(struct task *t, uint64_t uts, struct timespec *ts);
int guest_timeout(struct task *t, uint64_t uts);
long poll_time_left(struct task *t, unsigned int flags, const uint64_t *a,
		    long ret);
extern __thread struct task *current;	/* the task this worker runs */

/* ---- runtime threads (smp.c) ------------------------------------------- */

struct worker {
	int id;			/* its guest CPU */
	pid_t tid;
	struct task *rq_head, *rq_tail;	/* its run queue */
	struct task *run_task;	/* in uml_thread_run() now (atomic) */
	int wake_fd;		/* eventfd that ends its ppoll() */
	bool polling;		/* asleep in ppoll(), without the lock */
	int in_ppoll;		/* not yet back from that ppoll() (atomic) */
	const struct pollfd *pollset;	/* what it polls there */
	int npoll;
	bool woken;		/* wake_fd was written */
	volatile sig_atomic_t tick;	/* its slice ended (SIGALRM) */
	timer_t timer;		/* its slice timer */
	bool timer_ok;
	int64_t timer_at;	/* when it fires, 0 = off */
	bool balance;		/* a slice ended: worker_balance() */
};

extern struct worker *workers;
extern int nworkers;
extern __thread struct worker *self;

void smp_init(int n);
void smp_start(void);
void brl_lock(void);
void brl_unlock(void);
void world_stop(void);
void world_stop_for(struct proc *p);
void world_resume(void);
void task_place(struct task *t);
void task_kick(struct task *t);
bool task_move_allowed(struct task *t);
void worker_notify(struct worker *w);
void worker_woken(struct worker *w, short revents);
void worker_fd_closing(int hostfd);
void worker_balance(void);
void sched_worker_init(void);
int sched_worker_loop(void);
void runtime_exit(int status) __attribute__((noreturn));

/* ---- fast tiers (fast.c) ---------------------------------------------- */

void fast_init(void);
bool fast_vdso(void);
void fast_aspace_init(struct proc *p);
void fast_proc_sync(struct proc *p);
void fast_as_shared(struct proc *parent);
void proc_as_leave(struct proc *p, struct uml_aspace *as);
void fast_proc_inherit(struct proc *child, const struct proc *parent);
void fast_task_setup(struct task *t);
const char *fast_tier_name(unsigned long nr);
void fast_stats_print(void);

/* ---- ELF and exec (elf.c, exec.c) -------------------------------------- */

struct exec_args {
	char **argv;
	char **envp;
	int argc, envc;
};

int elf_check(int fd, char *why, size_t whylen);
int elf_interp(int fd, char *path, size_t len);
int elf_load(struct task *t, int fd, int ifd, const char *execfn,
	     const struct exec_args *a);
int exec_open(struct task *t, int dirfd, const char *path, int *fdp,
	      char **hostpath);
void exec_args_free(struct exec_args *a);

/* ---- signals (signal.c) ------------------------------------------------ */

int sig_send_task(struct task *t, const struct ksiginfo *si);
int sig_wait_mask(struct task *t, uint64_t uset, uint64_t size);
int sig_take(struct task *t, uint64_t set, struct ksiginfo *si);
void sigqueue_drop(struct sigqueue *q, uint64_t set);
bool sig_wait_unmask(struct task *t);
long sig_wait_mask_end(struct task *t, long r);
int sig_send_proc(struct proc *p, const struct ksiginfo *si);
void sig_force(struct task *t, const struct ksiginfo *si);
bool sig_deliver_pending(struct task *t);
/*
 * Deliver pending signals to a task about to return to the guest; false
 * if the task died.  Inline, as fdpass_take(): every resume asks, and
 * most have nothing to do.
 */
static inline bool sig_deliver(struct task *t)
{
	if (!t->restore_sigmask && !(t->pending.set | t->p->shared_pending.set))
		return true;
	return sig_deliver_pending(t);
}
bool sig_on_altstack(const struct task *t, uint64_t sp);
/* sigframe.c */
#define SIGINFO_SIZE	128
void sigframe_siginfo(void *gi, const struct ksiginfo *si);
int sigframe_setup(struct task *t, const struct ksiginfo *si,
		   struct ksigaction *act, uint64_t oldmask);
bool sig_pending_for(struct task *t);
int sig_pending_restart(struct task *t);
void sig_exec_reset(struct proc *p);
void proc_continue(struct proc *p);
bool sig_wants_interrupt(struct task *t);
void sig_take_stops(struct task *t);
struct sighand *sighand_new(void);
struct sighand *sighand_copy(const struct sighand *sh);
void sighand_put(struct sighand *sh);

/* ---- syscalls (syscall.c) ---------------------------------------------- */

typedef long (*sys_fn)(struct task *t, const uint64_t *a);

#define SC_RESTART	0x1	/* restarted after a SA_RESTART handler */
/*
 * Writes the time left back to its timeout argument when it ends
 * (select: a timeval; pselect6, ppoll: a timespec), at argument n.
 */
#define SC_TMO_TV	0x2
#define SC_TMO_TS	0x4
#define SC_TMO_ARG(n)	((n) << 4)
#define SC_TMO_ARGOF(f)	(((f) >> 4) & 7)

struct syscall_desc {
	const char *name;
	sys_fn fn;
	const char *fmt;	/* argument formats for --strace */
	unsigned int flags;
};

void syscall_handle(struct task *t);
unsigned long host_sysctl(const char *name, int i, unsigned long def);
bool host_has(int *has, long nr, long a, long b, long c, long d, long e,
	      long f);
void syscall_list(void);
void stats_exit(int reason);
void stats_print(void);
const struct syscall_desc *syscall_desc(unsigned long nr);
extern const struct syscall_desc syscall_table[];
extern const size_t syscall_table_size;

/* Handlers: one per line of syscalls.def. */
#define SC(nr, name, fmt, flags) long sys_##name(struct task *t, const uint64_t *a);
#include "syscalls.def"
#undef SC

/* Diagnostics. */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* UMLRUN_H */
