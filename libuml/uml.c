// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuml: backend selection, object bookkeeping (and who drives a thread)
 * and argument checks shared by every backend; the backends themselves
 * live in ptrace*.c and skas*.c, what both do to start a stub in
 * stub_host.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include "internal.h"


const char *uml_version(void)
{
	return UML_VERSION;
}

const char *uml_backend_name(enum uml_backend backend)
{
	switch (backend) {
	case UML_BACKEND_AUTO:
		return "auto";
	case UML_BACKEND_SKAS:
		return "skas";
	case UML_BACKEND_PTRACE:
		return "ptrace";
	}
	return "unknown";
}

int uml_backend_parse(const char *name, enum uml_backend *backend)
{
	if (!name)
		return -EINVAL;
	if (!strcmp(name, "auto"))
		*backend = UML_BACKEND_AUTO;
	else if (!strcmp(name, "skas"))
		*backend = UML_BACKEND_SKAS;
	else if (!strcmp(name, "ptrace"))
		*backend = UML_BACKEND_PTRACE;
	else
		return -EINVAL;
	return 0;
}

const char *uml_strerror(int err)
{
	switch (err) {
	case -ENOSYS:
		return "not implemented by this libuml";
	case -EOPNOTSUPP:
		return "not supported by this backend (the loaded skas.ko lacks the capability; see libuml/NOTES-module.md)";
	case -EPROTO:
		return "skas.ko API version does not match libuml";
	case -ENOENT:
		return "no /dev/skas (is skas.ko loaded?)";
	case -EACCES:
		return "no permission to open /dev/skas";
	}
	return strerror(err < 0 ? -err : err);
}

static int backend_choose(enum uml_backend *backend)
{
	const char *env;
	int ret;

	if (*backend == UML_BACKEND_AUTO) {
		env = getenv("UML_BACKEND");
		if (env && *env) {
			ret = uml_backend_parse(env, backend);
			if (ret)
				return ret;
		}
	}
	switch (*backend) {
	case UML_BACKEND_AUTO:
		*backend = __uml_skas_probe() ? UML_BACKEND_PTRACE :
						UML_BACKEND_SKAS;
		return 0;
	case UML_BACKEND_SKAS:
		return __uml_skas_probe();
	case UML_BACKEND_PTRACE:
		return 0;
	}
	return -EINVAL;
}

int uml_host_open(struct uml_host **hostp, enum uml_backend backend)
{
	struct uml_host *host;
	int ret;

	ret = backend_choose(&backend);
	if (ret)
		return ret;
	host = calloc(1, sizeof(*host));
	if (!host)
		return -ENOMEM;
	host->backend = backend;
	pthread_mutex_init(&host->lock, NULL);
	pthread_mutex_init(&host->pass_lock, NULL);
	host->stub_fd = -1;
	host->dev_fd = -1;
	host->vsyscall_filter = __uml_host_emulates_vsyscall();
	if (backend == UML_BACKEND_SKAS)
		ret = __uml_skas_host_init(host);
	else
		ret = __uml_ptrace_host_init(host);
	if (ret) {
		pthread_mutex_destroy(&host->pass_lock);
		pthread_mutex_destroy(&host->lock);
		free(host);
		return ret;
	}
	*hostp = host;
	return 0;
}

void uml_host_close(struct uml_host *host)
{
	if (!host)
		return;
	while (host->aspaces)
		uml_aspace_destroy(host->aspaces);
	if (host->stub_fd >= 0)
		close(host->stub_fd);
	if (host->dev_fd >= 0)
		close(host->dev_fd);
	pthread_mutex_destroy(&host->pass_lock);
	pthread_mutex_destroy(&host->lock);
	free(host);
}

enum uml_backend uml_host_backend(const struct uml_host *host)
{
	return host->backend;
}

/* ---- bookkeeping ------------------------------------------------------ */

static __thread pid_t self_tid;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void self_forget(void)
{
	self_tid = 0;	/* a fork child's thread is another one */
}

static void self_init(void)
{
	pthread_atfork(NULL, NULL, self_forget);
}

pid_t __uml_self(void)
{
	if (!self_tid) {
		pthread_once(&self_once, self_init);
		self_tid = gettid();
	}
	return self_tid;
}

void __uml_aspace_link(struct uml_host *host, struct uml_aspace *as)
{
	as->host = host;
	pthread_mutex_init(&as->lock, NULL);
	pthread_mutex_init(&as->stub_lock, NULL);
	pthread_mutex_lock(&host->lock);
	as->next = host->aspaces;
	host->aspaces = as;
	pthread_mutex_unlock(&host->lock);
}

void __uml_aspace_unlink(struct uml_aspace *as)
{
	struct uml_aspace **p;

	pthread_mutex_lock(&as->host->lock);
	for (p = &as->host->aspaces; *p; p = &(*p)->next) {
		if (*p == as) {
			*p = as->next;
			break;
		}
	}
	pthread_mutex_unlock(&as->host->lock);
	pthread_mutex_destroy(&as->stub_lock);
	pthread_mutex_destroy(&as->lock);
}

/* A new thread is driven by its creator. */
void __uml_thread_link(struct uml_aspace *as, struct uml_thread *t)
{
	t->as = as;
	t->owner = __uml_self();
	pthread_mutex_lock(&as->lock);
	t->next = as->threads;
	as->threads = t;
	as->nthreads++;
	pthread_mutex_unlock(&as->lock);
}

void __uml_thread_unlink(struct uml_thread *t)
{
	struct uml_thread **p;

	pthread_mutex_lock(&t->as->lock);
	for (p = &t->as->threads; *p; p = &(*p)->next) {
		if (*p == t) {
			*p = t->next;
			t->as->nthreads--;
			break;
		}
	}
	pthread_mutex_unlock(&t->as->lock);
}

struct uml_thread *__uml_driven_thread(struct uml_aspace *as)
{
	pid_t self = __uml_self();
	struct uml_thread *t;

	pthread_mutex_lock(&as->lock);
	for (t = as->threads; t; t = t->next)
		if (__atomic_load_n(&t->owner, __ATOMIC_ACQUIRE) == self &&
		    t->pid && !t->running)
			break;
	pthread_mutex_unlock(&as->lock);
	return t;
}

/* Does the caller drive a thread of @as (alive or not)?  0 or -EPERM. */
static int aspace_driven(struct uml_aspace *as)
{
	pid_t self = __uml_self();
	struct uml_thread *t;

	pthread_mutex_lock(&as->lock);
	for (t = as->threads; t; t = t->next)
		if (__atomic_load_n(&t->owner, __ATOMIC_ACQUIRE) == self)
			break;
	pthread_mutex_unlock(&as->lock);
	return t ? 0 : -EPERM;
}

/*
 * May the caller drive @t?  A thread nobody drives (uml_thread_release())
 * becomes the caller's; one that another runtime thread drives is not.
 */
static int thread_drive(struct uml_thread *t)
{
	pid_t self = __uml_self(), none = 0;
	int ret = 0;

	if (__atomic_load_n(&t->owner, __ATOMIC_ACQUIRE) == self)
		return 0;
	if (!__atomic_compare_exchange_n(&t->owner, &none, self, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return -EPERM;
	if (t->as->host->ops->thread_adopt)
		ret = t->as->host->ops->thread_adopt(t);
	if (ret)	/* still nobody's */
		__atomic_store_n(&t->owner, 0, __ATOMIC_RELEASE);
	return ret;
}

int uml_thread_release(struct uml_thread *t)
{
	const struct uml_ops *ops;
	int ret;

	if (!t)
		return -EINVAL;
	ret = __atomic_load_n(&t->owner, __ATOMIC_ACQUIRE);
	if (!ret)
		return 0;
	if (ret != __uml_self())
		return -EPERM;
	if (t->running)
		return -EBUSY;
	ops = t->as->host->ops;
	ret = ops->thread_release ? ops->thread_release(t) : 0;
	if (!ret)
		__atomic_store_n(&t->owner, 0, __ATOMIC_RELEASE);
	return ret;
}

/* ---- address spaces --------------------------------------------------- */

int uml_aspace_create(struct uml_host *host, struct uml_aspace **asp,
		      struct uml_thread **threadp)
{
	if (!host || !asp || !threadp)
		return -EINVAL;
	return host->ops->aspace_create(host, asp, threadp);
}

void uml_aspace_destroy(struct uml_aspace *as)
{
	if (as)
		as->host->ops->aspace_destroy(as, NULL);
}

int uml_aspace_destroy_usage(struct uml_aspace *as, struct rusage *ru)
{
	if (!as || !ru)
		return -EINVAL;
	as->host->ops->aspace_destroy(as, ru);
	return 0;
}

void __uml_aspace_usage_add(struct uml_aspace *as, const struct rusage *ru)
{
	pthread_mutex_lock(&as->lock);
	__uml_usage_add(&as->usage, ru);
	pthread_mutex_unlock(&as->lock);
}

/* A reaped host task's @ru into @to: times and counts add, the peak is one. */
void __uml_usage_add(struct rusage *to, const struct rusage *ru)
{
	timeradd(&to->ru_utime, &ru->ru_utime, &to->ru_utime);
	timeradd(&to->ru_stime, &ru->ru_stime, &to->ru_stime);
	if (ru->ru_maxrss > to->ru_maxrss)
		to->ru_maxrss = ru->ru_maxrss;
	to->ru_minflt += ru->ru_minflt;
	to->ru_majflt += ru->ru_majflt;
	to->ru_inblock += ru->ru_inblock;
	to->ru_oublock += ru->ru_oublock;
	to->ru_nvcsw += ru->ru_nvcsw;
	to->ru_nivcsw += ru->ru_nivcsw;
}

int uml_aspace_info(const struct uml_aspace *as, struct uml_aspace_info *info)
{
	if (!as || !info)
		return -EINVAL;
	*info = as->info;
	return 0;
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return blen && a < b + blen && b < a + alen;
}

/*
 * Is the file operation's @fd open?  Asked for a backend that runs a
 * batch op by op (ptrace); one with mem_batch (skas.ko) takes every file
 * of a batch before it runs any of it, refuses it whole with -EBADF, and
 * then goes op by op (skas.c) to stop at the bad one.
 */
static int mem_op_fd(const struct uml_aspace *as, int fd)
{
	if (fd < 0 || (!as->host->ops->mem_batch && fcntl(fd, F_GETFD) < 0))
		return -EBADF;
	return 0;
}

/* Checks shared by every backend; the kernel checks the rest (fd type...). */
static int mem_op_check(const struct uml_aspace *as, const struct uml_mem_op *op)
{
	const struct uml_aspace_info *info = &as->info;
	uint32_t kind;

	if (op->op == UML_MEM_INSTALL_FD || op->op == UML_MEM_CLOSE_FD) {
		if (!(uml_host_policies(as->host) &
		      UML_POLICY_BIT(UML_POLICY_NATIVE_MARKED)))
			return -EOPNOTSUPP;
		if (op->len || op->prot || op->offset || op->addr > INT_MAX)
			return -EINVAL;
		if (op->op == UML_MEM_CLOSE_FD)
			return op->flags || op->fd != -1 ? -EINVAL : 0;
		if (op->flags & ~(uint32_t)(UML_FD_CLOEXEC |
					    UML_INSTALL_MARK_READ |
					    UML_INSTALL_MARK_WRITE))
			return -EINVAL;
		return mem_op_fd(as, op->fd);
	}
	if ((op->addr | op->len) & PAGE_MASK_ || !op->len)
		return -EINVAL;
	if (op->addr < UML_GUEST_MIN || op->addr + op->len < op->addr ||
	    op->addr + op->len > info->guest_top)
		return -EINVAL;
	if (overlaps(op->addr, op->len, info->vdso_base, info->vdso_len) ||
	    overlaps(op->addr, op->len, info->vvar_base, info->vvar_len))
		return -EINVAL;
	if (op->prot & ~(uint32_t)(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	switch (op->op) {
	case UML_MEM_MAP:
		kind = op->flags & (UML_MAP_SHARED | UML_MAP_PRIVATE);
		if (op->flags & ~(uint32_t)(UML_MAP_SHARED | UML_MAP_PRIVATE |
					    UML_MAP_ANONYMOUS) ||
		    (kind != UML_MAP_SHARED && kind != UML_MAP_PRIVATE))
			return -EINVAL;
		if (op->offset & PAGE_MASK_)
			return -EINVAL;
		if (op->flags & UML_MAP_ANONYMOUS)
			return op->fd == -1 && !op->offset ? 0 : -EINVAL;
		return mem_op_fd(as, op->fd);
	case UML_MEM_UNMAP:
		return op->prot || op->flags || op->offset ? -EINVAL : 0;
	case UML_MEM_PROTECT:
		return op->flags || op->offset ? -EINVAL : 0;
	}
	return -EINVAL;
}

/*
 * For backends that take a whole batch: check the operations up to the
 * first bad one, hand the good ones over, and report as if they had been
 * applied one by one.
 */
static int mem_whole(struct uml_aspace *as, const struct uml_mem_op *ops,
		     unsigned int n, int *err)
{
	unsigned int k;
	int ret = 0, done = 0, e = 0;

	for (k = 0; k < n; k++) {
		ret = mem_op_check(as, &ops[k]);
		if (ret)
			break;
	}
	if (k) {
		done = as->host->ops->mem_batch(as, ops, k, &e);
		if (done < 0) {
			ret = done;
			done = 0;
		} else if ((unsigned int)done < k) {
			ret = e;
		}
	}
	if (err)
		*err = ret;
	return done ? done : ret;
}

int uml_aspace_mem(struct uml_aspace *as, const struct uml_mem_op *ops,
		   unsigned int n, int *err)
{
	const struct uml_ops *b;
	unsigned int i;
	void *batch;
	int ret = 0;

	if (err)
		*err = 0;
	if (!as || (!ops && n))
		ret = -EINVAL;
	if (ret || !n)
		goto out;
	ret = aspace_driven(as);
	if (ret)
		goto out;
	b = as->host->ops;
	if (b->mem_batch)
		return mem_whole(as, ops, n, err);
	batch = b->mem_batch_begin(as, &ret);
	if (!batch)
		goto out;
	for (i = 0; i < n; i++) {
		ret = mem_op_check(as, &ops[i]);
		if (!ret)
			ret = b->mem_op(as, &ops[i], batch);
		if (ret)
			break;
	}
	b->mem_batch_end(as, batch);
	if (err)
		*err = ret;
	return i ? (int)i : ret;
out:
	if (err)
		*err = ret;
	return ret ? ret : 0;
}

static int mem_one(struct uml_aspace *as, const struct uml_mem_op *op)
{
	int err, ret = uml_aspace_mem(as, op, 1, &err);

	return ret == 1 ? 0 : err;
}

int uml_aspace_map(struct uml_aspace *as, uint64_t addr, uint64_t len,
		   uint32_t prot, uint32_t flags, int fd, uint64_t offset)
{
	struct uml_mem_op op = {
		.op = UML_MEM_MAP, .prot = prot, .flags = flags, .fd = fd,
		.addr = addr, .len = len, .offset = offset,
	};

	return mem_one(as, &op);
}

int uml_aspace_unmap(struct uml_aspace *as, uint64_t addr, uint64_t len)
{
	struct uml_mem_op op = {
		.op = UML_MEM_UNMAP, .fd = -1, .addr = addr, .len = len,
	};

	return mem_one(as, &op);
}

int uml_aspace_protect(struct uml_aspace *as, uint64_t addr, uint64_t len,
		       uint32_t prot)
{
	struct uml_mem_op op = {
		.op = UML_MEM_PROTECT, .prot = prot, .fd = -1,
		.addr = addr, .len = len,
	};

	return mem_one(as, &op);
}

int uml_aspace_reset(struct uml_aspace *as)
{
	struct uml_thread *t;
	int ret;

	if (!as)
		return -EINVAL;
	pthread_mutex_lock(&as->lock);
	t = as->nthreads == 1 ? as->threads : NULL;
	pthread_mutex_unlock(&as->lock);
	if (!t)
		return -EBUSY;
	ret = thread_drive(t);
	return ret ? ret : as->host->ops->aspace_reset(as);
}

long uml_mem_read(struct uml_aspace *as, void *buf, uint64_t addr, size_t len)
{
	if (!as || (!buf && len))
		return -EINVAL;
	if (!len)
		return 0;
	return as->host->ops->mem_read(as, buf, addr, len);
}

/*
 * How much of [addr, addr + len) the runtime may write: guest memory only.
 * The backend's pages at and above guest_top hold code that runs with host
 * syscalls enabled, so a runtime tricked into writing there (a guest
 * pointer passed to read(), say) would hand the guest the host; the vDSO
 * is shared code too.  Reads are harmless and not limited.
 */
static uint64_t writable_len(const struct uml_aspace_info *info,
			     uint64_t addr, uint64_t len)
{
	uint64_t limit = info->guest_top, b[2] = { info->vdso_base,
						     info->vvar_base };
	uint64_t l[2] = { info->vdso_len, info->vvar_len };
	int i;

	for (i = 0; i < 2; i++) {
		if (!l[i])
			continue;
		if (addr >= b[i] && addr < b[i] + l[i])
			return 0;
		if (addr < b[i] && b[i] < limit)
			limit = b[i];
	}
	if (addr >= limit)
		return 0;
	return len < limit - addr ? len : limit - addr;
}

long uml_mem_write(struct uml_aspace *as, uint64_t addr, const void *buf,
		   size_t len)
{
	uint64_t n;

	if (!as || (!buf && len))
		return -EINVAL;
	if (!len)
		return 0;
	n = writable_len(&as->info, addr, len);
	if (!n)
		return -EFAULT;
	return as->host->ops->mem_write(as, addr, buf, n);
}

/* ---- threads ---------------------------------------------------------- */

struct uml_regs *uml_thread_regs(struct uml_thread *t)
{
	/* skas: the registers live in the thread's run page. */
	return t->run ? __uml_skas_regs(t) : &t->regs;
}

int uml_thread_run(struct uml_thread *t, struct uml_exit *ex)
{
	int ret;

	if (!t || !ex)
		return -EINVAL;
	ret = thread_drive(t);
	if (ret)
		return ret;
	return t->as->host->ops->thread_run(t, ex);
}

int uml_thread_run_mem(struct uml_thread *t, const struct uml_mem_op *ops,
		       unsigned int n, struct uml_exit *ex)
{
	const struct uml_ops *b;
	unsigned int i;
	int ret, err;

	if (!t || !ex || (!ops && n))
		return -EINVAL;
	ret = thread_drive(t);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = mem_op_check(t->as, &ops[i]);
		if (ret)
			return ret;
	}
	b = t->as->host->ops;
	if (n && b->thread_run_mem) {
		ret = b->thread_run_mem(t, ops, n, ex);
		if (ret <= 0)
			return ret;
	}
	if (n) {
		ret = uml_aspace_mem(t->as, ops, n, &err);
		if (ret != (int)n)
			return ret < 0 ? ret : err;
	}
	return b->thread_run(t, ex);
}

int uml_thread_kick(struct uml_thread *t)
{
	if (!t)
		return -EINVAL;
	return t->as->host->ops->thread_kick(t);
}

int uml_thread_get_fpregs(struct uml_thread *t, struct uml_fpregs *fp)
{
	int ret;

	if (!t || !fp)
		return -EINVAL;
	ret = thread_drive(t);
	if (ret)
		return ret;
	return t->as->host->ops->get_fpregs(t, fp);
}

int uml_thread_set_fpregs(struct uml_thread *t, const struct uml_fpregs *fp)
{
	int ret;

	if (!t || !fp)
		return -EINVAL;
	ret = thread_drive(t);
	if (ret)
		return ret;
	return t->as->host->ops->set_fpregs(t, fp);
}

long uml_thread_get_xstate(struct uml_thread *t, void *buf, size_t len)
{
	int ret;

	if (!t || (!buf && len))
		return -EINVAL;
	ret = thread_drive(t);
	if (ret)
		return ret;
	return t->as->host->ops->get_xstate(t, buf, len);
}

int uml_thread_set_xstate(struct uml_thread *t, const void *buf, size_t len)
{
	int ret;

	if (!t || !buf || len < 576)
		return -EINVAL;
	ret = thread_drive(t);
	if (ret)
		return ret;
	return t->as->host->ops->set_xstate(t, buf, len);
}

long uml_thread_take_xstate(struct uml_thread *t, void *buf, size_t len)
{
	int ret;

	if (!t || !buf || !len)
		return -EINVAL;
	ret = thread_drive(t);
	if (ret)
		return ret;
	return t->as->host->ops->take_xstate(t, buf, len);
}

int uml_thread_clone(struct uml_thread *parent, unsigned int flags,
		     struct uml_thread **childp, struct uml_aspace **child_asp)
{
	int ret;

	/* UML_CLONE_UNMARKED is all a host without fd marks does anyway. */
	if (!parent || !childp ||
	    (flags & ~(UML_CLONE_THREAD | UML_CLONE_UNMARKED)))
		return -EINVAL;
	if (!(flags & UML_CLONE_THREAD) && !child_asp)
		return -EINVAL;
	if (child_asp)
		*child_asp = NULL;
	ret = thread_drive(parent);
	if (ret)
		return ret;
	return parent->as->host->ops->thread_clone(parent, flags, childp,
						    child_asp);
}

void uml_thread_destroy(struct uml_thread *t)
{
	if (t)
		t->as->host->ops->thread_destroy(t);
}

struct uml_aspace *uml_thread_aspace(struct uml_thread *t)
{
	return t->as;
}

int uml_thread_host_tid(const struct uml_thread *t)
{
	return __uml_thread_pid(t);
}

void uml_thread_set_data(struct uml_thread *t, void *data)
{
	t->data = data;
}

void *uml_thread_get_data(const struct uml_thread *t)
{
	return t->data;
}

/* ---- syscall policy ---------------------------------------------------- */

unsigned int uml_host_policies(const struct uml_host *host)
{
	return host->policies | UML_POLICY_BIT(UML_POLICY_TRAP);
}

int uml_aspace_set_policy(struct uml_aspace *as, unsigned int nr,
			  enum uml_policy action, int64_t value)
{
	const struct uml_ops *ops;

	if (!as || nr >= UML_POLICY_NR ||
	    (unsigned int)action > UML_POLICY_NATIVE_MARKED)
		return -EINVAL;
	if (value && action != UML_POLICY_CONST)
		return -EINVAL;
	if (!(uml_host_policies(as->host) & UML_POLICY_BIT(action)))
		return -EOPNOTSUPP;
	ops = as->host->ops;
	/* A host without policies traps everything: TRAP is already true. */
	return ops->set_policy ? ops->set_policy(as, nr, action, value) : 0;
}

int uml_thread_set_value(struct uml_thread *t, int64_t value)
{
	const struct uml_ops *ops;
	int ret;

	if (!t)
		return -EINVAL;
	ops = t->as->host->ops;
	if (!(t->as->host->policies & UML_POLICY_BIT(UML_POLICY_THREAD)) ||
	    !ops->set_thread_value)
		return -EOPNOTSUPP;
	ret = thread_drive(t);
	if (ret)
		return ret;
	return ops->set_thread_value(t, value);
}

long uml_host_spin_max(const struct uml_host *host)
{
	return host && host->ops->set_spin ? host->spin_max : 0;
}

int uml_thread_set_spin(struct uml_thread *t, unsigned int ns)
{
	if (!t)
		return -EINVAL;
	if (!uml_host_spin_max(t->as->host))
		return -EOPNOTSUPP;
	if (ns > t->as->host->spin_max)
		return -EINVAL;
	return t->as->host->ops->set_spin(t, ns);
}

int uml_thread_set_yield(struct uml_thread *t, int on)
{
	if (!t)
		return -EINVAL;
	if (!t->as->host->ops->set_yield || !t->as->host->can_yield)
		return -EOPNOTSUPP;
	return t->as->host->ops->set_yield(t, on);
}

int uml_aspace_mark_fds(struct uml_aspace *as, unsigned int first,
			unsigned int count, unsigned int marks)
{
	const struct uml_ops *ops;

	if (!as || (marks & ~(unsigned int)(UML_FD_MARK_READ | UML_FD_MARK_WRITE)) ||
	    first > UML_FD_MARK_MAX || count > UML_FD_MARK_MAX - first)
		return -EINVAL;
	ops = as->host->ops;
	if (!(as->host->policies & UML_POLICY_BIT(UML_POLICY_NATIVE_MARKED)) ||
	    !ops->mark_fds)
		return -EOPNOTSUPP;
	return ops->mark_fds(as, first, count, marks);
}
