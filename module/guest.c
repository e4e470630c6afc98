// SPDX-License-Identifier: GPL-2.0
/*
 * Guest-context helpers: registers between pt_regs and the run page, the
 * fault signal, and hollowing the stub.  All run in the guest task itself
 * (current), except skas_regs_check().
 */

#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/fsgsbase.h>
#include <asm/msr.h>
#include <asm/segment.h>

#include "skas.h"

/* The eflags bits the runtime may change: ptrace's FLAG_MASK_32. */
#define SKAS_FLAG_MASK	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_TF | \
			 X86_EFLAGS_DF | X86_EFLAGS_OF | X86_EFLAGS_RF | \
			 X86_EFLAGS_AC)

/* Take the fault signal @ev names off current's queue; fill in details. */
void skas_take_fault(struct skas_event *ev)
{
	struct skas_exit_fault *f = &ev->fault;
	kernel_siginfo_t info;
	enum pid_type type;
	sigset_t mask;
	int sig;

	siginitsetinv(&mask, sigmask(f->signo));
	spin_lock_irq(&skas_sighand()->siglock);
	sig = skas_dequeue_signal(&mask, &info, &type);
	spin_unlock_irq(&skas_sighand()->siglock);
	if (sig != f->signo)
		return;
	f->code = info.si_code;
	if (sig == SIGSYS) {
		/* A seccomp trap: no x86 trap, trap_nr would be stale. */
		f->addr = (unsigned long)info.si_call_addr;
		return;
	}
	f->addr = (unsigned long)info.si_addr;
	f->trapno = current->thread.trap_nr;
	f->error_code = current->thread.error_code;
}

/**
 * skas_guest_block_signals() - block every signal of current but SIGKILL.
 *
 * SIGSTOP too, which only the kernel can block: a blocked signal is never
 * delivered and never turned into a group kill at generation time
 * (complete_signal() only does that for a thread that does not block it),
 * so an outside signal can neither kill nor stop a guest task; the
 * signal_generate probe reports it (skas_thread_signal()).  Also undoes
 * force_sig_fault(), which unblocks the fault signal it raises.  Caller
 * holds current's siglock.
 */
void skas_guest_block_signals(void)
{
	siginitsetinv(&current->blocked, sigmask(SIGKILL));
	recalc_sigpending();
}

/*
 * Drop every pending signal of current but SIGKILL (already reported as
 * SKAS_EXIT_INTERRUPTED, or sent before the attach), and block them all
 * again.  Runs in the guest at each park.  Most parks (a trapped syscall)
 * find nothing to do: the unlocked look is enough for those, since a
 * signal that comes after it kicks the thread (skas_thread_signal()) and
 * the next park drops it.
 */
void skas_guest_flush_signals(void)
{
	kernel_siginfo_t info;
	enum pid_type type;
	sigset_t mask;

	siginitsetinv(&mask, sigmask(SIGKILL));
	if (sigequalsets(&current->blocked, &mask) &&
	    sigisemptyset(&current->pending.signal) &&
	    sigisemptyset(&current->signal->shared_pending.signal) &&
	    !test_thread_flag(TIF_SIGPENDING))
		return;
	siginitset(&mask, sigmask(SIGKILL));
	spin_lock_irq(&skas_sighand()->siglock);
	skas_guest_block_signals();
	while (skas_dequeue_signal(&mask, &info, &type) > 0)
		;
	spin_unlock_irq(&skas_sighand()->siglock);
}

/*
 * The address of a "syscall" instruction in the vDSO (its fallback paths
 * have some), for native syscalls: 0 if none.  Runs in the guest.
 */
unsigned long skas_find_syscall_insn(void)
{
	unsigned long vdso = (unsigned long)current->mm->context.vdso;
	unsigned long len = 0, off, ret = 0;
	struct vm_area_struct *vma;
	u8 *buf;

	mmap_read_lock(current->mm);
	vma = find_vma(current->mm, vdso);
	if (vma && vma->vm_start == vdso)
		len = min(vma->vm_end - vma->vm_start, 4 * PAGE_SIZE);
	mmap_read_unlock(current->mm);
	buf = kmalloc(4 * PAGE_SIZE, GFP_KERNEL_ACCOUNT);
	if (!buf || !len || copy_from_user(buf, (void __user *)vdso, len))
		goto out;
	for (off = 0; off + 1 < len; off++) {
		if (buf[off] == 0x0f && buf[off + 1] == 0x05) {
			ret = vdso + off;
			break;
		}
	}
out:
	kfree(buf);
	return ret;
}

/* Unmap everything of the stub but the vDSO.  Runs in the stub. */
void skas_hollow_mm(void)
{
	struct mm_struct *mm = current->mm;
	unsigned long vdso = (unsigned long)mm->context.vdso;
	unsigned long addr = 0, start, end;
	struct vm_area_struct *vma;

	for (;;) {
		mmap_read_lock(mm);
		vma = find_vma(mm, addr);
		while (vma && skas_keep_vma(vma, vdso))
			vma = find_vma(mm, vma->vm_end);
		if (!vma) {
			mmap_read_unlock(mm);
			break;
		}
		start = vma->vm_start;
		end = vma->vm_end;
		mmap_read_unlock(mm);
		vm_munmap(start, end - start);
		addr = end;
	}
}

void skas_close_all_fds(void)
{
	unsigned int fd, max;

	rcu_read_lock();
	max = files_fdtable(current->files)->max_fds;
	rcu_read_unlock();
	for (fd = 0; fd < max; fd++)
		close_fd(fd);
}

void skas_regs_to_user(struct skas_regs *u, struct pt_regs *regs)
{
	u->r15 = regs->r15;
	u->r14 = regs->r14;
	u->r13 = regs->r13;
	u->r12 = regs->r12;
	u->rbp = regs->bp;
	u->rbx = regs->bx;
	u->r11 = regs->r11;
	u->r10 = regs->r10;
	u->r9 = regs->r9;
	u->r8 = regs->r8;
	u->rax = regs->ax;
	u->rcx = regs->cx;
	u->rdx = regs->dx;
	u->rsi = regs->si;
	u->rdi = regs->di;
	u->orig_rax = -1;
	u->rip = regs->ip;
	u->cs = regs->cs;
	u->eflags = regs->flags;
	u->rsp = regs->sp;
	u->ss = regs->ss;
	current_save_fsgs();
	u->fs_base = current->thread.fsbase;
	u->gs_base = current->thread.gsbase;
	u->ds = 0;
	u->es = 0;
	u->fs = 0;
	u->gs = 0;
}

/* Apply registers validated by skas_regs_check().  Runs in the guest. */
void skas_regs_from_user(struct pt_regs *regs, const struct skas_regs *u)
{
	regs->r15 = u->r15;
	regs->r14 = u->r14;
	regs->r13 = u->r13;
	regs->r12 = u->r12;
	regs->bp = u->rbp;
	regs->bx = u->rbx;
	regs->r11 = u->r11;
	regs->r10 = u->r10;
	regs->r9 = u->r9;
	regs->r8 = u->r8;
	regs->ax = u->rax;
	regs->cx = u->rcx;
	regs->dx = u->rdx;
	regs->si = u->rsi;
	regs->di = u->rdi;
	/* Never a syscall to restart: see arch_do_signal_or_restart(). */
	regs->orig_ax = -1;
	regs->ip = u->rip;
	regs->cs = __USER_CS;
	regs->flags = (regs->flags & ~SKAS_FLAG_MASK) |
		      (u->eflags & SKAS_FLAG_MASK);
	regs->sp = u->rsp;
	regs->ss = __USER_DS;

	preempt_disable();
	current_save_fsgs();
	if (current->thread.fsbase != u->fs_base) {
		x86_fsbase_write_cpu(u->fs_base);
		current->thread.fsbase = u->fs_base;
	}
	if (current->thread.gsbase != u->gs_base) {
		wrmsrl(MSR_KERNEL_GS_BASE, u->gs_base);
		current->thread.gsbase = u->gs_base;
	}
	preempt_enable();
}

int skas_regs_check(const struct skas_regs *u)
{
	if (u->rip >= TASK_SIZE_MAX || u->fs_base >= TASK_SIZE_MAX ||
	    u->gs_base >= TASK_SIZE_MAX)
		return -EINVAL;
	return 0;
}
