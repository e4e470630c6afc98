// SPDX-License-Identifier: GPL-2.0
/*
 * Guest memory: batched map/unmap executed in the guest's own context, and
 * reads and writes of guest memory from the runtime.
 *
 * vm_mmap() and vm_munmap() act on current->mm, so a batch is handed to a
 * stopped guest thread of the address space, which runs it in its park
 * loop (skas_guest_park()) and stops again.  No mm code is reimplemented.
 */

#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/unistd.h>

#include "skas.h"

/**
 * skas_keep_vma() - is @vma one of the pages a guest may not touch?
 * @vma:  a VMA of the guest's mm.
 * @vdso: the vDSO's base (mm->context.vdso).
 *
 * Return: true for the vDSO and the special mappings just below it (vvar).
 */
bool skas_keep_vma(struct vm_area_struct *vma, unsigned long vdso)
{
	if (vma->vm_start == vdso)
		return true;
	return (vma->vm_flags & (VM_IO | VM_PFNMAP | VM_MIXEDMAP)) &&
	       vma->vm_end <= vdso && vdso - vma->vm_end < SZ_64K;
}

/* Does [addr, end) touch a kept mapping of @mm? */
static bool skas_range_reserved_mm(struct mm_struct *mm, unsigned long addr,
				   unsigned long end)
{
	unsigned long vdso = (unsigned long)mm->context.vdso;
	struct vm_area_struct *vma;
	bool ret = false;

	mmap_read_lock(mm);
	for (vma = find_vma(mm, addr); vma && vma->vm_start < end;
	     vma = find_vma(mm, vma->vm_end)) {
		if (skas_keep_vma(vma, vdso)) {
			ret = true;
			break;
		}
	}
	mmap_read_unlock(mm);
	return ret;
}

static bool skas_range_reserved(unsigned long addr, unsigned long end)
{
	return skas_range_reserved_mm(current->mm, addr, end);
}

/*
 * The runtime may not write the vDSO (FOLL_FORCE would make a private
 * copy): native syscalls run an instruction of it.
 */
static bool skas_task_range_reserved(struct task_struct *task,
				     unsigned long addr, unsigned long len)
{
	struct mm_struct *mm = get_task_mm(task);
	bool ret = false;

	if (mm) {
		ret = skas_range_reserved_mm(mm, addr, addr + len);
		mmput(mm);
	}
	return ret;
}

/* An installed fd gets the marks its SKAS_MEM_INSTALL_FD asked for. */
static void skas_install_marks(struct skas_thread *t,
			       const struct skas_mem_op *op)
{
	u32 marks = 0;

	if (op->flags & SKAS_INSTALL_MARK_READ)
		marks |= SKAS_FD_MARK_READ;
	if (op->flags & SKAS_INSTALL_MARK_WRITE)
		marks |= SKAS_FD_MARK_WRITE;
	skas_aspace_mark_fd(t->as, op->addr, marks);
}

/*
 * SKAS_MEM_INSTALL_FD in the guest: take the lowest free number with
 * receive_fd() (the LSM's file_receive check, as for SCM_RIGHTS), then
 * move it to the target with a native dup3() (which replaces what is
 * there); the temporary number is closed, and the marks set, in
 * skas_mem_native_result().
 */
static int skas_install_fd_exec(struct skas_thread *t,
				const struct skas_mem_op *op, struct file *file)
{
	unsigned int flags = (op->flags & SKAS_FD_CLOEXEC) ? O_CLOEXEC : 0;
	unsigned long args[6] = { 0, op->addr, flags };
	struct skas_mem_req *req = t->req;
	int fd, ret;

	fd = skas_receive_fd(file, flags);
	if (fd < 0)
		return fd;
	/* A free number may carry marks: not for the file on its way. */
	skas_aspace_unmark_fd(t->as, fd);
	if (fd == op->addr) {
		skas_install_marks(t, op);
		return 0;
	}
	args[0] = fd;
	req->tmp_fd = fd;
	ret = skas_native_arm(t, __NR_dup3, args);
	if (ret < 0) {
		close_fd(fd);
		req->tmp_fd = -1;
	}
	return ret;
}

/*
 * SKAS_MEM_CLOSE_FD in the guest: close_fd() acts on current's table.  A
 * free number is no error: the runtime's view of the table is what it
 * asked for either way.
 */
static int skas_close_fd_exec(const struct skas_mem_op *op)
{
	int ret = close_fd(op->addr);

	return ret == -EBADF ? 0 : ret;
}

/* 0 done, 1 native syscall armed, or -errno. */
static int skas_mem_op_exec(struct skas_thread *t, const struct skas_mem_op *op,
			    struct file *file)
{
	unsigned long args[6] = { op->addr, op->len, op->prot };
	unsigned long ret;

	if (op->op == SKAS_OP_RESET) {
		skas_hollow_mm();
		return 0;
	}
	if (op->op == SKAS_MEM_INSTALL_FD || op->op == SKAS_MEM_CLOSE_FD) {
		/* A mark never names what was there before (SKAS_MARK_FDS). */
		skas_aspace_unmark_fd(t->as, op->addr);
		if (op->op == SKAS_MEM_CLOSE_FD)
			return skas_close_fd_exec(op);
		return skas_install_fd_exec(t, op, file);
	}
	if (op->op == SKAS_OP_XSAVE || op->op == SKAS_OP_XSAVE_INIT ||
	    op->op == SKAS_OP_XRSTOR)
		return skas_xstate_exec(op->op, t->req->xstate);
	if (op->op == SKAS_OP_CLONE) {
		/* clone(flags, newsp, parent_tid, child_tid, tls) */
		args[0] = op->flags;
		args[1] = 0;
		args[2] = 0;
		return skas_native_arm(t, __NR_clone, args);
	}
	if (skas_range_reserved(op->addr, op->addr + op->len))
		return -EINVAL;
	switch (op->op) {
	case SKAS_MEM_MAP:
		ret = vm_mmap(file, op->addr, op->len, op->prot,
			      op->flags | MAP_FIXED, op->offset);
		if (IS_ERR_VALUE(ret))
			return ret;
		return ret == op->addr ? 0 : -EINVAL;
	case SKAS_MEM_UNMAP:
		return vm_munmap(op->addr, op->len);
	case SKAS_MEM_PROTECT:
		/* No exported mprotect: the guest makes the syscall. */
		return skas_native_arm(t, __NR_mprotect, args);
	}
	return -EINVAL;
}

/**
 * skas_mem_exec() - run (the rest of) a batch in the guest's context.
 * @t:   the thread of current, parked in state SKAS_T_OPS.
 * @req: the batch, validated by skas_aspace_mem(); runs from req->done.
 *
 * Stops at the first failure (req->error).
 *
 * Return: 1 if an operation armed a native syscall: the caller must return
 * to user mode, and the batch goes on in skas_mem_native_result(); else 0.
 */
int skas_mem_exec(struct skas_thread *t, struct skas_mem_req *req)
{
	int ret;

	while (req->done < req->count) {
		ret = skas_mem_op_exec(t, &req->ops[req->done],
				       req->files[req->done]);
		if (ret > 0)
			return 1;
		if (ret) {
			req->error = ret;
			return 0;
		}
		req->done++;
		if (skas_dying()) {
			if (req->done < req->count)
				req->error = -EINTR;
			return 0;
		}
	}
	return 0;
}

/**
 * skas_mem_native_result() - the native syscall of the current op is done.
 * @t:      the thread of current, which ran it.
 * @req:    the batch.
 * @result: the syscall's return value.
 */
void skas_mem_native_result(struct skas_thread *t, struct skas_mem_req *req,
			    long result)
{
	if (req->tmp_fd >= 0) {
		if (!(current->flags & PF_EXITING))	/* files gone */
			close_fd(req->tmp_fd);
		req->tmp_fd = -1;
		/* The file is there: its marks (a mark set meanwhile goes). */
		if (IS_ERR_VALUE(result))
			skas_aspace_unmark_fd(t->as, req->ops[req->done].addr);
		else
			skas_install_marks(t, &req->ops[req->done]);
	}
	if (IS_ERR_VALUE(result)) {
		req->error = result;
	} else {
		req->result = result;
		req->done++;
	}
}

static bool skas_user_range(u64 addr, u64 len)
{
	return len && PAGE_ALIGNED(addr) && PAGE_ALIGNED(len) &&
	       addr + len > addr && addr + len <= TASK_SIZE_MAX;
}

static int skas_mem_op_check(const struct skas_mem_op *op)
{
	if (op->reserved)
		return -EINVAL;
	switch (op->op) {
	case SKAS_MEM_INSTALL_FD:
		if (op->prot || op->len ||
		    (op->flags & ~(SKAS_FD_CLOEXEC | SKAS_INSTALL_MARK_READ |
				   SKAS_INSTALL_MARK_WRITE)) ||
		    op->offset || op->addr > INT_MAX)
			return -EINVAL;
		return 0;
	case SKAS_MEM_CLOSE_FD:
		if (op->prot || op->flags || op->fd != -1 || op->len ||
		    op->offset || op->addr > INT_MAX)
			return -EINVAL;
		return 0;
	}
	if (!skas_user_range(op->addr, op->len))
		return -EINVAL;
	switch (op->op) {
	case SKAS_MEM_MAP:
		if (op->prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
			return -EINVAL;
		if ((op->flags & ~SKAS_MAP_ANONYMOUS) != SKAS_MAP_SHARED &&
		    (op->flags & ~SKAS_MAP_ANONYMOUS) != SKAS_MAP_PRIVATE)
			return -EINVAL;
		if (!PAGE_ALIGNED(op->offset))
			return -EINVAL;
		if ((op->flags & SKAS_MAP_ANONYMOUS) &&
		    (op->fd != -1 || op->offset))
			return -EINVAL;
		return 0;
	case SKAS_MEM_UNMAP:
		if (op->prot || op->flags || op->fd != -1 || op->offset)
			return -EINVAL;
		return 0;
	case SKAS_MEM_PROTECT:
		if (op->prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC) ||
		    op->flags || op->fd != -1 || op->offset)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/* Free what skas_mem_batch_prepare() took (nothing for a count of 0). */
void skas_mem_req_free(struct skas_mem_req *req)
{
	unsigned int i;

	/* files is NULL if its allocation failed. */
	for (i = 0; req->files && i < req->count; i++)
		if (req->files[i])
			fput(req->files[i]);
	kvfree(req->files);
	kvfree(req->ops);
	kfree(req->xstate_mem);
}

/*
 * Copy in and check the operations; take the files and the image of a
 * SKAS_MEM_SET_XSTATE (@run: a SKAS_RUN_MEM batch).  Stops at a bad op.
 */
static int skas_mem_req_prepare(struct skas_mem_req *req, u64 uops, bool run)
{
	struct skas_mem_op *op;
	unsigned int i;
	int ret;

	req->ops = kvmalloc_array(req->count, sizeof(*req->ops),
				  GFP_KERNEL_ACCOUNT);
	req->files = kvcalloc(req->count, sizeof(*req->files),
			      GFP_KERNEL_ACCOUNT);
	if (!req->ops || !req->files)
		return -ENOMEM;
	if (copy_from_user(req->ops, u64_to_user_ptr(uops),
			   array_size(req->count, sizeof(*req->ops))))
		return -EFAULT;
	for (i = 0; i < req->count; i++) {
		op = &req->ops[i];
		if (op->op == SKAS_MEM_SET_XSTATE) {
			if (!run)
				return -EINVAL;
			ret = skas_xstate_load_op(op, req);
			if (ret)
				return ret;
			continue;
		}
		if (skas_mem_op_check(op))
			return -EINVAL;
		if ((op->op == SKAS_MEM_MAP &&
		     !(op->flags & SKAS_MAP_ANONYMOUS)) ||
		    op->op == SKAS_MEM_INSTALL_FD) {
			req->files[i] = fget(op->fd);
			if (!req->files[i])
				return -EBADF;
			/* A run page or a skas fd: skas_file_is_ours(). */
			if (skas_file_is_ours(req->files[i]))
				return -EINVAL;
		}
	}
	return 0;
}

/**
 * skas_mem_batch_prepare() - copy in and check a struct skas_mem_batch.
 * @uarg: its user pointer.
 * @args: receives it.
 * @req:  receives the checked operations and their files, to be freed
 *        with skas_mem_req_free() whatever the return value.
 * @run:  a SKAS_RUN_MEM batch, which may hold a SKAS_MEM_SET_XSTATE.
 *
 * Every operation is checked (and its file taken) before any is run.
 *
 * Return: 0, -EFAULT, -EINVAL (a bad operation, or a file mapping of a
 * skas descriptor), -EBADF (bad fd of a file mapping), -ENOMEM,
 * -EOPNOTSUPP (SKAS_MEM_SET_XSTATE without XSAVE).
 */
int skas_mem_batch_prepare(void __user *uarg, struct skas_mem_batch *args,
			   struct skas_mem_req *req, bool run)
{
	if (copy_from_user(args, uarg, sizeof(*args)))
		return -EFAULT;
	if (args->size != sizeof(*args) || args->count > SKAS_MEM_MAX_OPS ||
	    args->error || args->pad ||
	    !skas_zeroed(args->reserved, ARRAY_SIZE(args->reserved)))
		return -EINVAL;
	req->count = args->count;
	if (!req->count)
		return 0;
	return skas_mem_req_prepare(req, args->ops, run);
}

/**
 * skas_aspace_mem() - SKAS_MEM: apply a batch of map/unmap operations.
 * @as:   the address space.
 * @uarg: user pointer to a struct skas_mem_batch.
 *
 * Return: the number of operations done, or -errno if none was: those of
 * skas_mem_batch_prepare(), -ENOENT (no thread attached), -EBUSY (no
 * stopped thread: they are all being run), -ESRCH (the threads are dead),
 * or the first operation's error.
 */
long skas_aspace_mem(struct skas_aspace *as, void __user *uarg)
{
	struct skas_mem_batch args;
	struct skas_mem_req req = { .tmp_fd = -1 };
	long ret;

	ret = skas_mem_batch_prepare(uarg, &args, &req, false);
	if (!ret && req.count)
		ret = skas_aspace_exec(as, &req);
	if (!ret && req.count) {
		args.error = req.error;
		ret = req.done ? req.done : req.error;
		if (copy_to_user(uarg, &args, sizeof(args)))
			ret = -EFAULT;
	}
	skas_mem_req_free(&req);
	return ret;
}

/**
 * skas_aspace_install_fd() - SKAS_INSTALL_FD.
 * @as:   the address space.
 * @uarg: user pointer to a struct skas_install_fd.
 *
 * A skas descriptor (/dev/skas, an address space, a thread) is refused: in
 * a guest's table it would keep its own address space alive (the last
 * close is what kills the guest) after the runtime is gone, and hand the
 * guest the ioctls that drive it.
 *
 * Return: 0, or -EFAULT, -EINVAL (bad size, flags, reserved, a negative
 * target, or a skas descriptor), -EBADF (bad runtime fd, or a target above
 * the guest's RLIMIT_NOFILE), -EMFILE, -ENOENT, -EBUSY, -ESRCH (as
 * SKAS_MEM), or the LSM's error.
 */
long skas_aspace_install_fd(struct skas_aspace *as, void __user *uarg)
{
	struct skas_install_fd args;
	struct skas_mem_op op = { .op = SKAS_MEM_INSTALL_FD };
	struct skas_mem_req req = { .ops = &op, .count = 1, .tmp_fd = -1 };
	struct file *file;
	long ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.size != sizeof(args) || (args.flags & ~SKAS_FD_CLOEXEC) ||
	    args.target < 0 ||
	    !skas_zeroed(args.reserved, ARRAY_SIZE(args.reserved)))
		return -EINVAL;
	file = fget(args.fd);
	if (!file)
		return -EBADF;
	if (skas_file_is_ours(file)) {
		fput(file);
		return -EINVAL;
	}
	op.addr = args.target;
	op.flags = args.flags;
	req.files = &file;
	ret = skas_aspace_exec(as, &req);
	fput(file);
	return ret ? ret : req.error;
}

/**
 * skas_aspace_reset() - SKAS_RESET: empty the address space for execve.
 * @as: the address space.
 *
 * Return: 0, -ENOENT (no thread attached), -EBUSY (not exactly one live
 * thread, or it is being run), -ESRCH (it died).
 */
long skas_aspace_reset(struct skas_aspace *as)
{
	struct skas_mem_op op = { .op = SKAS_OP_RESET };
	struct file *nofile = NULL;
	struct skas_mem_req req = { .ops = &op, .files = &nofile,
				    .count = 1, .tmp_fd = -1 };
	struct skas_thread *t;
	long ret;

	ret = skas_aspace_sole_thread(as, &t);
	if (ret)
		return ret;
	skas_thread_exec(t, &req);
	if (!req.error)
		memset(&t->run->regs, 0, sizeof(t->run->regs));
	mutex_unlock(&t->run_lock);
	skas_thread_put(t);
	return req.error;
}

/**
 * skas_aspace_rw() - SKAS_MEM_READ / SKAS_MEM_WRITE.
 * @as:    the address space.
 * @uarg:  user pointer to a struct skas_mem_rw.
 * @write: copy into the guest.
 *
 * Return: bytes copied (short when the guest range is not all mapped), or
 * -EFAULT (nothing copied, or a bad runtime buffer), -EINVAL (bad
 * arguments, or a write touching the vDSO), -ENOENT (no thread attached),
 * -ENOMEM, -EINTR.
 */
long skas_aspace_rw(struct skas_aspace *as, void __user *uarg, bool write)
{
	unsigned int gup = FOLL_FORCE | (write ? FOLL_WRITE : 0);
	struct task_struct *task;
	struct skas_mem_rw args;
	size_t done = 0, chunk;
	void *buf;
	int n = 0;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.size != sizeof(args) || args.flags ||
	    !skas_zeroed(args.reserved, ARRAY_SIZE(args.reserved)) ||
	    args.addr + args.len < args.addr || args.len > MAX_RW_COUNT)
		return -EINVAL;
	if (!args.len)
		return 0;
	task = skas_aspace_task(as);
	if (!task)
		return -ENOENT;
	if (write && skas_task_range_reserved(task, args.addr, args.len)) {
		put_task_struct(task);
		return -EINVAL;
	}
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT);
	if (!buf) {
		put_task_struct(task);
		return -ENOMEM;
	}
	while (done < args.len) {
		chunk = min_t(size_t, args.len - done, PAGE_SIZE);
		if (write && copy_from_user(buf, u64_to_user_ptr(args.buf + done),
					    chunk)) {
			n = -EFAULT;
			break;
		}
		n = access_process_vm(task, args.addr + done, buf, chunk, gup);
		if (n <= 0)
			break;
		if (!write && copy_to_user(u64_to_user_ptr(args.buf + done),
					   buf, n)) {
			n = -EFAULT;
			break;
		}
		done += n;
		if (n < chunk)
			break;
		if (fatal_signal_pending(current)) {
			n = -EINTR;
			break;
		}
	}
	kfree(buf);
	put_task_struct(task);
	if (done)
		return done;
	return n < 0 ? n : -EFAULT;
}

/**
 * skas_aspace_exec() - run a memory batch in a stopped thread of @as.
 * @as:  the address space.
 * @req: the batch; req->done and req->error are set.
 *
 * Return: 0 (see @req for the outcome), -ENOENT if no thread ever attached,
 * -ESRCH if all attached threads are dead, -EBUSY if none is stopped and
 * free (they are being run).
 */
long skas_aspace_exec(struct skas_aspace *as, struct skas_mem_req *req)
{
	struct skas_thread *t, *found = NULL;
	bool attached = false, alive = false;

	mutex_lock(&as->lock);
	list_for_each_entry(t, &as->threads, node) {
		attached |= READ_ONCE(t->attached);
		alive |= READ_ONCE(t->attached) &&
			 READ_ONCE(t->state) != SKAS_T_DEAD;
		if (READ_ONCE(t->state) == SKAS_T_STOPPED &&
		    mutex_trylock(&t->run_lock)) {
			skas_thread_get(t);
			found = t;
			break;
		}
	}
	mutex_unlock(&as->lock);
	if (!found)
		return !attached ? -ENOENT : alive ? -EBUSY : -ESRCH;
	skas_thread_exec(found, req);
	mutex_unlock(&found->run_lock);
	skas_thread_put(found);
	return 0;
}

/**
 * skas_aspace_sole_thread() - the only live thread of @as, stopped.
 * @as: the address space.
 * @tp: receives the thread, with a reference and its run_lock held.
 *
 * Return: 0, -ENOENT (none ever attached), -ESRCH (all dead), -EBUSY
 * (more than one live thread, or the one is being run).
 */
long skas_aspace_sole_thread(struct skas_aspace *as, struct skas_thread **tp)
{
	struct skas_thread *t, *live = NULL;
	bool attached = false, found = false;
	int n = 0;

	mutex_lock(&as->lock);
	list_for_each_entry(t, &as->threads, node) {
		attached |= READ_ONCE(t->attached);
		if (READ_ONCE(t->task) && READ_ONCE(t->state) != SKAS_T_DEAD) {
			live = t;
			n++;
		}
	}
	if (n == 1 && READ_ONCE(live->attached) &&
	    mutex_trylock(&live->run_lock)) {
		skas_thread_get(live);
		*tp = live;
		found = true;
	}
	mutex_unlock(&as->lock);
	if (found)
		return 0;
	return !attached ? -ENOENT : n ? -EBUSY : -ESRCH;
}

/**
 * skas_aspace_task() - a live host task of @as, with a task reference.
 * @as: the address space.
 *
 * Return: the task, or NULL if no thread has a live task.
 */
struct task_struct *skas_aspace_task(struct skas_aspace *as)
{
	struct task_struct *task = NULL;
	struct skas_thread *t;
	unsigned long flags;

	mutex_lock(&as->lock);
	list_for_each_entry(t, &as->threads, node) {
		spin_lock_irqsave(&t->lock, flags);
		if (t->task && t->state != SKAS_T_DEAD)
			task = get_task_struct(t->task);
		spin_unlock_irqrestore(&t->lock, flags);
		if (task)
			break;
	}
	mutex_unlock(&as->lock);
	return task;
}
