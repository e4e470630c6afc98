// SPDX-License-Identifier: GPL-2.0
/*
 * SKAS_GET_XSTATE and SKAS_SET_XSTATE: the FPU and vector state of a
 * stopped guest thread (and SKAS_RUN_MEM's SKAS_MEM_SET_XSTATE).
 *
 * The state is the guest task's own user FPU state, and the kernel's
 * accessors of another task's saved state (the ptrace regset's) are not
 * exported.  So the thread does it itself, as a kernel-internal operation
 * of its park loop (mem.c): with fpregs_lock() held and its user state
 * loaded into the registers (switch_fpu_return()), an XSAVE or XRSTOR of
 * the user features in the standard format, which is what the signal
 * code does on a frame.  Supervisor state is not touched.  AMX tile state
 * is dynamic (XFD): it is left out.  A guest cannot ask for the
 * permission (arch_prctl never runs natively), and a stub that libuml
 * execs starts without it (exec resets it).
 */

#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/asm.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/fpu/types.h>
#include <asm/fpu/xcr.h>
#include <asm/fpu/xstate.h>
#include <asm/processor.h>

#include "skas.h"

/* The image's layout: FXSAVE area, XSAVE header, components. */
#define SKAS_FX_SIZE		512
#define SKAS_FX_MXCSR		24
#define SKAS_FX_SW		416	/* software-reserved bytes, to 511 */
#define SKAS_FX_XCR0		464	/* the feature mask in them */
#define SKAS_XSAVE_HDR		512
#define SKAS_XSAVE_MIN		576	/* FXSAVE area and header */
#define SKAS_MXCSR_DEFAULT	0x1f80

/* The features in an image, and its size; 0 without XSAVE. */
static u64 skas_xstate_mask;
static unsigned int skas_xstate_len;
/* The MXCSR bits the CPU accepts (the kernel's copy is not declared). */
static u32 skas_mxcsr_mask;

/* FXSAVE's MXCSR_MASK, 0 meaning the default, as the kernel reads it. */
static int skas_mxcsr_mask_init(void)
{
	struct fxregs_state *fx;

	/* A power-of-two size: kmalloc() aligns it to 512. */
	fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	kernel_fpu_begin();
	asm volatile("fxsave64 %[fx]" : [fx] "=m" (*fx));
	kernel_fpu_end();
	skas_mxcsr_mask = fx->mxcsr_mask ? fx->mxcsr_mask : 0x0000ffbf;
	kfree(fx);
	return 0;
}

/**
 * skas_xstate_init() - find the image's features and size.
 *
 * The features: those the kernel enabled for user space (XCR0) but AMX
 * tiles; the size: the standard format's up to the end of the last of
 * them (CPUID 0xd.i), as ptrace's NT_X86_XSTATE image of a task without
 * AMX permission.
 */
void skas_xstate_init(void)
{
	unsigned int eax, ebx, ecx, edx, len = SKAS_XSAVE_MIN, i;
	u64 mask;

	if (!boot_cpu_has(X86_FEATURE_XSAVE) ||
	    !boot_cpu_has(X86_FEATURE_OSXSAVE))
		return;
	mask = xgetbv(XCR_XFEATURE_ENABLED_MASK) & ~(u64)XFEATURE_MASK_XTILE;
	for (i = 2; i < 64; i++) {
		if (!(mask & BIT_ULL(i)))
			continue;
		cpuid_count(XSTATE_CPUID, i, &eax, &ebx, &ecx, &edx);
		len = max(len, ebx + eax);
	}
	if (len > SZ_64K || skas_mxcsr_mask_init())
		return;
	skas_xstate_mask = mask;
	skas_xstate_len = len;
}

/* SKAS_CHECK_EXTENSION(SKAS_CAP_XSTATE): the image size, or 0. */
long skas_xstate_size(void)
{
	return skas_xstate_len;
}

static void skas_xsave(void *buf, u64 mask)
{
	asm volatile("xsave64 (%[buf])"
		     : : [buf] "D" (buf), "a" ((u32)mask),
		       "d" ((u32)(mask >> 32))
		     : "memory");
}

/* Return: 0, or the trap number of a fault (the image was refused). */
static int skas_xrstor(const void *buf, u64 mask)
{
	int err;

	asm volatile("1: xrstor64 (%[buf])\n\t"
		     "xor %[err], %[err]\n"
		     "2:\n\t"
		     _ASM_EXTABLE_TYPE(1b, 2b, EX_TYPE_FAULT_MCE_SAFE)
		     : [err] "=a" (err)
		     : [buf] "D" (buf), "a" ((u32)mask),
		       "d" ((u32)(mask >> 32))
		     : "memory");
	return err;
}

/*
 * An image whose XSTATE_BV is 0 and MXCSR the default (little-endian
 * 0x1f80): XRSTOR puts every feature in its init state, PKRU's (0) too,
 * where execve() and a signal handler's start give PKRU the kernel's
 * default instead.  It reads no component past the header.
 */
static const u8 skas_xstate_init_img[SKAS_XSAVE_MIN] __aligned(64) = {
	[SKAS_FX_MXCSR] = SKAS_MXCSR_DEFAULT & 0xff,
	[SKAS_FX_MXCSR + 1] = SKAS_MXCSR_DEFAULT >> 8,
};

/**
 * skas_xstate_exec() - save or load current's user FPU state.
 * @op:  SKAS_OP_XSAVE, SKAS_OP_XSAVE_INIT (save, then the init state) or
 *       SKAS_OP_XRSTOR.
 * @buf: the image, 64-byte aligned, skas_xstate_len bytes; zeroed for a
 *       save, checked by skas_xstate_check() for a load.
 *
 * Runs in the guest task, parked in state SKAS_T_OPS.
 *
 * Return: 0, or -EINVAL if the CPU refused the image (which the checks
 * should make impossible): the state is reset then, not left half loaded.
 */
int skas_xstate_exec(int op, void *buf)
{
	int ret = 0;

	fpregs_lock();
	if (test_thread_flag(TIF_NEED_FPU_LOAD))
		switch_fpu_return();
	if (op != SKAS_OP_XRSTOR) {
		skas_xsave(buf, skas_xstate_mask);
		if (op == SKAS_OP_XSAVE_INIT)
			skas_xrstor(skas_xstate_init_img, skas_xstate_mask);
	} else if (skas_xrstor(buf, skas_xstate_mask)) {
		skas_xrstor(skas_xstate_init_img, skas_xstate_mask);
		ret = -EINVAL;
	}
	fpregs_unlock();
	return ret;
}

/*
 * What XRSTOR would fault on, refused as ptrace's NT_X86_XSTATE set
 * refuses it (validate_user_xstate_header(), the MXCSR check).
 */
static int skas_xstate_check(const void *buf)
{
	u64 hdr[8];
	u32 mxcsr;

	memcpy(&mxcsr, buf + SKAS_FX_MXCSR, sizeof(mxcsr));
	memcpy(hdr, buf + SKAS_XSAVE_HDR, sizeof(hdr));
	if (mxcsr & ~skas_mxcsr_mask)
		return -EINVAL;
	if ((hdr[0] & ~skas_xstate_mask) || !skas_zeroed(&hdr[1], 7))
		return -EINVAL;
	return 0;
}

/* A saved image as ptrace shows it: software bytes zero but the mask. */
static void skas_xstate_sw_bytes(void *buf)
{
	u64 xcr0 = xgetbv(XCR_XFEATURE_ENABLED_MASK);

	memset(buf + SKAS_FX_SW, 0, SKAS_FX_SIZE - SKAS_FX_SW);
	memcpy(buf + SKAS_FX_XCR0, &xcr0, sizeof(xcr0));
}

/*
 * Run @op in @t, which must be stopped.  Return: 0, -ENOENT (never
 * attached), -EBUSY (being run, or a run was cut short), -ESRCH (dead),
 * or the operation's error.
 */
static long skas_xstate_run(struct skas_thread *t, int op, void *buf)
{
	struct skas_mem_op mop = { .op = op };
	struct file *nofile = NULL;
	struct skas_mem_req req = { .ops = &mop, .files = &nofile,
				    .count = 1, .tmp_fd = -1, .xstate = buf };
	long ret = 0;

	ret = skas_thread_lock(t);
	if (ret)
		return ret;
	switch (READ_ONCE(t->state)) {
	case SKAS_T_NEW:
		ret = -ENOENT;
		break;
	case SKAS_T_DEAD:
		ret = -ESRCH;
		break;
	case SKAS_T_STOPPED:
		skas_thread_exec(t, &req);
		ret = req.error;
		break;
	default:
		ret = -EBUSY;
		break;
	}
	mutex_unlock(&t->run_lock);
	return ret;
}

/* An aligned buffer for an image; *memp is what to kfree(). */
static void *skas_xstate_alloc(void **memp)
{
	/* XSAVE wants 64-byte alignment, which kmalloc() does not promise. */
	*memp = kzalloc(skas_xstate_len + 63, GFP_KERNEL_ACCOUNT);
	return *memp ? PTR_ALIGN(*memp, 64) : NULL;
}

/**
 * skas_xstate_load_op() - copy in and check a SKAS_MEM_SET_XSTATE's image.
 * @op:   the operation, turned into the internal SKAS_OP_XRSTOR.
 * @req:  its batch, whose xstate (and xstate_mem, to be freed with the
 *        batch) the image becomes; at most one per batch.
 *
 * Return: 0, -EOPNOTSUPP (no XSAVE), -EINVAL (bad fields, a second image,
 * an image SKAS_SET_XSTATE refuses), -EFAULT, -ENOMEM.
 */
int skas_xstate_load_op(struct skas_mem_op *op, struct skas_mem_req *req)
{
	void *buf;

	if (op->reserved)
		return -EINVAL;
	if (!skas_xstate_len)
		return -EOPNOTSUPP;
	if (op->prot || op->flags || op->fd != -1 || op->offset ||
	    op->len != skas_xstate_len || req->xstate_mem)
		return -EINVAL;
	buf = skas_xstate_alloc(&req->xstate_mem);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, u64_to_user_ptr(op->addr), op->len))
		return -EFAULT;
	if (skas_xstate_check(buf))
		return -EINVAL;
	req->xstate = buf;
	op->op = SKAS_OP_XRSTOR;
	return 0;
}

/**
 * skas_thread_xstate() - SKAS_GET_XSTATE, SKAS_SET_XSTATE.
 * @t:    the thread.
 * @uarg: user pointer to a struct skas_xstate.
 * @set:  load the image (else save it).
 *
 * Return: 0, -EOPNOTSUPP (no XSAVE), -EFAULT, -EINVAL (bad arguments, or
 * an image refused), -ENOMEM, -ENOENT, -EBUSY, -ESRCH (see
 * skas_xstate_run()).
 */
long skas_thread_xstate(struct skas_thread *t, void __user *uarg, bool set)
{
	struct skas_xstate args;
	void *mem, *buf;
	long ret;

	if (!skas_xstate_len)
		return -EOPNOTSUPP;
	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.size != sizeof(args) || args.pad ||
	    (args.flags & ~(set ? 0 : SKAS_XSTATE_INIT)) ||
	    args.len != skas_xstate_len ||
	    !skas_zeroed(args.reserved, ARRAY_SIZE(args.reserved)))
		return -EINVAL;
	buf = skas_xstate_alloc(&mem);
	if (!buf)
		return -ENOMEM;
	if (set) {
		ret = -EFAULT;
		if (copy_from_user(buf, u64_to_user_ptr(args.buf), args.len))
			goto out;
		ret = skas_xstate_check(buf);
		if (ret)
			goto out;
		ret = skas_xstate_run(t, SKAS_OP_XRSTOR, buf);
	} else {
		/* The state is reset then: the image must not be lost. */
		ret = -EFAULT;
		if ((args.flags & SKAS_XSTATE_INIT) &&
		    clear_user(u64_to_user_ptr(args.buf), args.len))
			goto out;
		ret = skas_xstate_run(t, args.flags & SKAS_XSTATE_INIT ?
				      SKAS_OP_XSAVE_INIT : SKAS_OP_XSAVE, buf);
		if (ret)
			goto out;
		skas_xstate_sw_bytes(buf);
		if (copy_to_user(u64_to_user_ptr(args.buf), buf, args.len))
			ret = -EFAULT;
	}
out:
	kfree(mem);
	return ret;
}
