// SPDX-License-Identifier: GPL-2.0-only
/*
 * The frame a guest's signal handler gets, and rt_sigreturn: the x86-64
 * struct rt_sigframe as the kernel lays it out, with the whole FPU and
 * vector state where the kernel puts it.
 *
 * The FPU part is the XSAVE image (uml_thread_get_xstate()) at a 64-byte
 * aligned fpstate, its software bytes (464..511) a struct _fpx_sw_bytes
 * saying so (FP_XSTATE_MAGIC1, the sizes, the features) and
 * FP_XSTATE_MAGIC2 right after the image; the handler starts with the
 * FPU in its init state.  rt_sigreturn loads the image back if both
 * magics and the sizes are right, else only the FXSAVE part, the other
 * components in their init state (arch/x86/kernel/fpu/signal.c does the
 * same), and an image the host refuses is a SIGSEGV, as the kernel's
 * failed XRSTOR.  Without XSAVE the frame has the FXSAVE area alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "umlrun.h"

/* The x86-64 signal frame, as arch/x86/include/asm/sigframe.h lays it out. */
struct g_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2, fpstate;
	uint64_t reserved1[8];
};

struct g_ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	uint64_t ss_sp;
	int32_t ss_flags;
	int32_t pad;
	uint64_t ss_size;
	struct g_sigcontext mc;
	uint64_t sigmask;
};

struct g_siginfo {
	int32_t signo, errno_, code, pad;
	union {
		struct { int32_t pid, uid, status, pad; int64_t ut, st; } chld;
		struct { int32_t pid, uid; } kill;
		uint64_t addr;
		uint8_t raw[112];
	};
};

struct g_rt_sigframe {
	uint64_t pretcode;
	struct g_ucontext uc;
	struct g_siginfo info;
};

_Static_assert(sizeof(struct g_sigcontext) == 256, "sigcontext");
_Static_assert(sizeof(struct g_siginfo) == SIGINFO_SIZE, "siginfo");

static void fill_sigcontext(struct g_sigcontext *mc, const struct uml_regs *r)
{
	mc->r8 = r->r8; mc->r9 = r->r9; mc->r10 = r->r10; mc->r11 = r->r11;
	mc->r12 = r->r12; mc->r13 = r->r13; mc->r14 = r->r14;
	mc->r15 = r->r15; mc->rdi = r->rdi; mc->rsi = r->rsi;
	mc->rbp = r->rbp; mc->rbx = r->rbx; mc->rdx = r->rdx;
	mc->rax = r->rax; mc->rcx = r->rcx; mc->rsp = r->rsp;
	mc->rip = r->rip; mc->eflags = r->eflags;
	mc->cs = r->cs; mc->ss = r->ss;
}

static void fill_siginfo(struct g_siginfo *gi, const struct ksiginfo *si)
{
	memset(gi, 0, sizeof(*gi));
	gi->signo = si->signo;
	gi->code = si->code;
	switch (si->signo) {
	case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP:
		if (si->code > 0) {
			gi->addr = si->addr;
			break;
		}
		/* fall through */
	default:
		if (si->code == -2 /* SI_TIMER */) {
			memcpy(gi->raw, &si->timerid, 4);
			memcpy(gi->raw + 4, &si->overrun, 4);
			memcpy(gi->raw + 8, &si->value, 8);
			break;
		}
		gi->chld.pid = si->pid;
		gi->chld.uid = si->uid;
		/*
		 * A child's status, else the value: 0 but for a siginfo a
		 * guest gave (rt_sigqueueinfo, pidfd_send_signal), which a
		 * process may send itself with any code, value and all.
		 */
		if (si->signo == SIGCHLD && si->code > 0)
			gi->chld.status = si->status;
		else
			memcpy(gi->raw + 8, &si->value, 8);	/* si_value */
	}
}

/* A guest's siginfo_t for @si, SIGINFO_SIZE bytes (rt_sigtimedwait's). */
void sigframe_siginfo(void *gi, const struct ksiginfo *si)
{
	fill_siginfo(gi, si);
}

/* The FPU image: the FXSAVE area's software bytes, the trailer. */
#define FX_SIZE		512
#define FX_MXCSR	24
#define FX_SW		464
#define XSTATE_HDR	512
#define XSTATE_MIN	576
#define FP_XSTATE_MAGIC1	0x46505853U
#define FP_XSTATE_MAGIC2	0x46505845U
#define MAGIC2_SIZE	4
#define XFEATURE_FPSSE	3ULL
#define MXCSR_DEFAULT	0x1f80

/* struct _fpx_sw_bytes (arch/x86/include/uapi/asm/sigcontext.h) */
struct fpx_sw_bytes {
	uint32_t magic1;
	uint32_t extended_size;
	uint64_t xfeatures;
	uint32_t xstate_size;
	uint32_t padding[7];
};

_Static_assert(sizeof(struct fpx_sw_bytes) == 48, "fpx_sw_bytes");

/*
 * The host's image size, or 0 without XSAVE images (FXSAVE frames): the
 * same for every thread of the host, asked once (on ptrace the question
 * is a whole PTRACE_GETREGSET).
 */
static long xstate_size(struct task *t)
{
	static long size = -1;
	long n;

	if (size < 0) {
		n = uml_thread_get_xstate(t->th, NULL, 0);
		if (n == -ESRCH)
			return 0;	/* a dying thread: ask again next time */
		size = n >= XSTATE_MIN ? n : 0;
	}
	return size;
}

/* Load @img (@size bytes: the host's image size, or 0 for FXSAVE). */
static int load_image(struct task *t, unsigned char *img, long size)
{
	if (size)
		return uml_thread_set_xstate(t->th, img, size);
	return uml_thread_set_fpregs(t->th, (struct uml_fpregs *)(void *)img);
}

/*
 * The init state: x87 and SSE given in their init values (FCW 0x37f,
 * MXCSR 0x1f80), the other components left out of XSTATE_BV, which
 * initializes them.  (The kernel's ptrace path keeps the old MXCSR when
 * XSTATE_BV has neither x87 nor SSE.)
 */
static int fpu_init_state(struct task *t, long size)
{
	unsigned char *img = calloc(1, size ? size : FX_SIZE);
	uint32_t mxcsr = MXCSR_DEFAULT;
	uint64_t bv = XFEATURE_FPSSE;
	uint16_t fcw = 0x37f;
	int r;

	if (!img)
		return -ENOMEM;
	memcpy(img, &fcw, sizeof(fcw));
	memcpy(img + FX_MXCSR, &mxcsr, sizeof(mxcsr));
	if (size)
		memcpy(img + XSTATE_HDR, &bv, sizeof(bv));
	r = load_image(t, img, size);
	free(img);
	return r;
}

/*
 * The FPU part of a frame into @img (the image and the trailer, or, with
 * no XSAVE, the FXSAVE area; zeroed), and the init state for the handler.
 * Return: 1 for an XSAVE image, 0 for the FXSAVE area, or -errno.
 */
static int fpu_save(struct task *t, unsigned char *img, long size)
{
	uint32_t magic2 = FP_XSTATE_MAGIC2;
	struct fpx_sw_bytes sw;

	/* The image, and the init state for the handler, in one call. */
	if (size) {
		if (uml_thread_take_xstate(t->th, img, size) != size)
			return -EFAULT;
		memset(&sw, 0, sizeof(sw));
		sw.magic1 = FP_XSTATE_MAGIC1;
		sw.extended_size = size + MAGIC2_SIZE;
		memcpy(&sw.xfeatures, img + FX_SW, sizeof(sw.xfeatures));
		sw.xstate_size = size;
		memcpy(img + FX_SW, &sw, sizeof(sw));
		memcpy(img + size, &magic2, sizeof(magic2));
		return 1;
	}
	if (uml_thread_get_fpregs(t->th, (struct uml_fpregs *)(void *)img) ||
	    fpu_init_state(t, 0))
		return -EFAULT;
	memset(img + FX_SW, 0, FX_SIZE - FX_SW);
	return 0;
}

/*
 * rt_sigreturn's FPU state from the frame's @fpstate (0: the init state).
 * Return: 0, -EFAULT (unreadable) or -EINVAL (refused): a SIGSEGV.
 */
static int fpu_restore(struct task *t, uint64_t fpstate)
{
	long size = xstate_size(t);
	size_t len = size ? (size_t)size + MAGIC2_SIZE : FX_SIZE;
	unsigned char *img;
	struct fpx_sw_bytes sw;
	uint32_t magic2 = 0;
	bool whole = true;
	uint64_t bv;
	int r = -EFAULT;

	if (!fpstate)
		return fpu_init_state(t, size);
	img = calloc(1, len);
	if (!img)
		return -ENOMEM;
	/* All of it in one read; only the FXSAVE part may be readable. */
	if (copy_from_guest(t, img, fpstate, len) < 0) {
		whole = false;
		if (copy_from_guest(t, img, fpstate, FX_SIZE) < 0)
			goto out;
	}
	memcpy(&sw, img + FX_SW, sizeof(sw));
	if (size && sw.magic1 == FP_XSTATE_MAGIC1 &&
	    sw.xstate_size >= XSTATE_MIN && sw.xstate_size <= size &&
	    sw.xstate_size <= sw.extended_size) {
		/* An XSAVE frame: the image, which must all be there. */
		if (!whole)
			goto out;
		memcpy(&magic2, img + sw.xstate_size, sizeof(magic2));
	}
	if (magic2 == FP_XSTATE_MAGIC2) {
		/* What the image leaves out is in init state. */
		memset(img + sw.xstate_size, 0, len - sw.xstate_size);
		memcpy(&bv, img + XSTATE_HDR, sizeof(bv));
		bv &= sw.xfeatures;
	} else if (size) {
		/* FXSAVE only: x87 and SSE from it, the rest in init state. */
		memset(img + FX_SIZE, 0, len - FX_SIZE);
		bv = XFEATURE_FPSSE;
	} else {
		r = load_image(t, img, 0);
		goto out;
	}
	memcpy(img + XSTATE_HDR, &bv, sizeof(bv));
	r = load_image(t, img, size);
out:
	free(img);
	return r < 0 ? r : 0;
}

/*
 * Build the rt_sigframe on the guest stack and point the thread at @act:
 * from the top, the red zone, the FPU state (64-byte aligned), the frame
 * (16-byte aligned, less the return address slot).
 */
int sigframe_setup(struct task *t, const struct ksiginfo *si,
		   struct ksigaction *act, uint64_t oldmask)
{
	struct uml_regs *r = uml_thread_regs(t->th);
	long size = xstate_size(t);
	struct g_rt_sigframe fr;
	uint64_t sp = r->rsp - 128, fpaddr, frame;
	bool altstack = t->ss_size && sig_on_altstack(t, sp);
	unsigned char *buf;
	size_t fpsize, len;
	int xsave;

	if ((act->flags & SA_ONSTACK) && t->ss_size && !altstack) {
		sp = t->ss_sp + t->ss_size;
		altstack = true;
	}
	fpsize = size ? (size_t)size + MAGIC2_SIZE : FX_SIZE;
	fpaddr = (sp - fpsize) & ~63ULL;
	frame = ((fpaddr - sizeof(fr)) & ~15ULL) - 8;
	/* A frame that overflows the alternate stack is a SIGSEGV. */
	if (altstack && !sig_on_altstack(t, frame))
		return -EFAULT;

	memset(&fr, 0, sizeof(fr));
	fr.pretcode = act->restorer;
	fr.uc.uc_flags = 0x2 | 0x4;	/* UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS */
	fr.uc.ss_sp = t->ss_sp;
	fr.uc.ss_size = t->ss_size;
	fr.uc.ss_flags = t->ss_size ?
			 (sig_on_altstack(t, r->rsp) ? SS_ONSTACK : 0) :
			 SS_DISABLE;
	fill_sigcontext(&fr.uc.mc, r);
	fr.uc.mc.err = si->err;
	fr.uc.mc.trapno = si->trapno;
	fr.uc.mc.cr2 = si->addr;
	fr.uc.mc.oldmask = oldmask;
	fr.uc.mc.fpstate = fpaddr;
	fr.uc.sigmask = oldmask;
	fill_siginfo(&fr.info, si);

	/* The frame and the FPU state above it go in one write. */
	len = fpaddr + fpsize - frame;
	buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	xsave = fpu_save(t, buf + (fpaddr - frame), size);
	if (xsave > 0)
		fr.uc.uc_flags |= 0x1;	/* UC_FP_XSTATE */
	memcpy(buf, &fr, sizeof(fr));
	if (xsave < 0 || copy_to_guest(t, frame, buf, len) < 0)
		xsave = -EFAULT;
	free(buf);
	if (xsave < 0)
		return -EFAULT;

	r->rdi = si->signo;
	r->rsi = frame + offsetof(struct g_rt_sigframe, info);
	r->rdx = frame + offsetof(struct g_rt_sigframe, uc);
	r->rax = 0;
	r->rsp = frame;
	r->rip = act->handler;
	r->eflags &= ~(0x400ULL | 0x100ULL | 0x10000ULL);	/* DF TF RF */
	return 0;
}

long sys_rt_sigreturn(struct task *t, const uint64_t *a)
{
	struct uml_regs *r = uml_thread_regs(t->th);
	struct g_ucontext uc;
	const uint64_t fixmask = 0x40dd5;	/* AC OF DF TF SF ZF AF PF CF RF */

	(void)a;
	if (copy_from_guest(t, &uc, r->rsp, sizeof(uc)) < 0) {
		proc_exit_group(t->p, SIGSEGV);
		return SYS_NORETURN;
	}
	r->r8 = uc.mc.r8; r->r9 = uc.mc.r9; r->r10 = uc.mc.r10;
	r->r11 = uc.mc.r11; r->r12 = uc.mc.r12; r->r13 = uc.mc.r13;
	r->r14 = uc.mc.r14; r->r15 = uc.mc.r15; r->rdi = uc.mc.rdi;
	r->rsi = uc.mc.rsi; r->rbp = uc.mc.rbp; r->rbx = uc.mc.rbx;
	r->rdx = uc.mc.rdx; r->rax = uc.mc.rax; r->rcx = uc.mc.rcx;
	r->rsp = uc.mc.rsp; r->rip = uc.mc.rip;
	r->eflags = (r->eflags & ~fixmask) | (uc.mc.eflags & fixmask);
	r->orig_rax = -1;
	if (fpu_restore(t, uc.mc.fpstate) < 0) {
		proc_exit_group(t->p, SIGSEGV);
		return SYS_NORETURN;
	}
	t->sigmask = uc.sigmask & ~UNBLOCKABLE;
	return SYS_NORETURN;
}
