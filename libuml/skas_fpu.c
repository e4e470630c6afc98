// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * skas backend: the FPU and vector state of a stopped thread.  With
 * SKAS_CAP_XSTATE the module reads and loads it (SKAS_GET/SET_XSTATE, in
 * the guest task itself).  Without it, libuml's helper pages do: mapped
 * into every address space at STUB_BASE (skas_helper.S), their code runs
 * xsave/xrstor/fxsave/fxrstor in the stopped thread and traps back, one
 * SKAS_RUN per call, the image going through their data page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/skas.h>

#include "internal.h"
#include "stub.h"

extern const char __uml_skas_helper[], __uml_skas_helper_end[];

/* Entries of the helper code; each one's syscall ends 6 bytes in. */
#define HELPER_XSAVE	0x00
#define HELPER_XRSTOR	0x10
#define HELPER_FXSAVE	0x20
#define HELPER_FXRSTOR	0x30
#define HELPER_SYSCALL_END	6
/* How often a helper call is retried after an interruption. */
#define HELPER_TRIES	64
/* AMX tile state: dynamic (XFD), never part of the helper's mask. */
#define XFEATURE_XTILE	(3ULL << 17)
#define FXSAVE_SIZE	512
#define XFEATURE_FP	(1ULL << 0)
#define XFEATURE_SSE	(1ULL << 1)
#define FX_SW_OFFSET	416	/* FXSAVE's software-reserved bytes */
#define MXCSR_OFFSET	24
#define MXCSR_DEFAULT	0x1f80

/* ---- through the helper pages, without SKAS_CAP_XSTATE ---------------- */

/*
 * Map the helper pages into a new address space: the code (read and
 * execute) and the data page the images go through (read and write).
 */
int __uml_skas_helper_setup(struct uml_aspace *as)
{
	size_t len = __uml_skas_helper_end - __uml_skas_helper;
	struct skas_mem_op ops[2];
	struct skas_mem_batch b;
	int ret;

	memset(ops, 0, sizeof(ops));
	ops[0].op = ops[1].op = SKAS_MEM_MAP;
	ops[0].flags = ops[1].flags = SKAS_MAP_PRIVATE | SKAS_MAP_ANONYMOUS;
	ops[0].fd = ops[1].fd = -1;
	ops[0].prot = PROT_READ | PROT_EXEC;
	ops[0].addr = SKAS_HELPER_CODE;
	ops[0].len = SKAS_HELPER_DATA - SKAS_HELPER_CODE;
	ops[1].prot = PROT_READ | PROT_WRITE;
	ops[1].addr = SKAS_HELPER_DATA;
	ops[1].len = SKAS_HELPER_DATA_SIZE;
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = 2;
	b.ops = (uintptr_t)ops;
	ret = ioctl(as->fd, SKAS_MEM, &b);
	if (ret != 2)
		return ret < 0 ? -errno : (b.error ? b.error : -EIO);
	if (__uml_skas_mem_rw(as, (void *)__uml_skas_helper, SKAS_HELPER_CODE,
			      len, 1) != (long)len)
		return -EFAULT;
	return 0;
}

static uint64_t xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

/* The XSAVE standard-format size for the enabled features (XCR0). */
static long xstate_size(void)
{
	uint32_t a = 0xd, b, c = 0, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return b;
}

/*
 * Run helper entry @entry in the stopped thread @t (rdi = the data page,
 * edx:eax = the feature mask) and put the guest's registers back.
 * Returns 0 when it reached its syscall, -EINVAL when the CPU refused
 * (a fault: a malformed image), -ESRCH when the thread is gone.  A kick
 * or runtime signal meanwhile is kept for the next uml_thread_run().
 */
static int helper_call(struct uml_thread *t, unsigned int entry)
{
	struct skas_run *run = t->run;
	struct skas_regs saved = run->regs;
	uint64_t mask = xcr0() & ~XFEATURE_XTILE;
	int i, ret = -EINTR;

	if (t->dead || t->exit_pending || !t->pid)
		return -ESRCH;
	for (i = 0; i < HELPER_TRIES; i++) {
		memset(&run->regs, 0, sizeof(run->regs));
		run->regs.rip = SKAS_HELPER_CODE + entry;
		run->regs.rdi = SKAS_HELPER_DATA;
		run->regs.rax = (uint32_t)mask;
		run->regs.rdx = mask >> 32;
		run->regs.eflags = 0x202;
		run->regs.fs_base = saved.fs_base;
		run->regs.gs_base = saved.gs_base;
		if (ioctl(t->fd, SKAS_RUN, 0)) {
			ret = errno == ENOENT ? -ESRCH : -errno;
			break;
		}
		if (run->exit_reason == SKAS_EXIT_INTERRUPTED) {
			t->interrupted = 1;
			continue;
		}
		if (run->exit_reason == SKAS_EXIT_SYSCALL)
			ret = run->regs.rip == (uint64_t)SKAS_HELPER_CODE +
			      entry + HELPER_SYSCALL_END ? 0 : -EPROTO;
		else if (run->exit_reason == SKAS_EXIT_FAULT)
			ret = -EINVAL;
		else if (run->exit_reason == SKAS_EXIT_EXITED) {
			__uml_skas_reap_exit(t, &run->exit.exited);
			t->exit_pending = 1;
			ret = -ESRCH;
		} else {
			ret = -EPROTO;
		}
		break;
	}
	run->regs = saved;
	return ret;
}

static int data_write(struct uml_thread *t, const void *buf, size_t len)
{
	return __uml_skas_mem_rw(t->as, (void *)buf, SKAS_HELPER_DATA, len,
				 1) == (long)len ? 0 : -EFAULT;
}

static int data_read(struct uml_thread *t, void *buf, size_t len)
{
	return __uml_skas_mem_rw(t->as, buf, SKAS_HELPER_DATA, len, 0) ==
	       (long)len ? 0 : -EFAULT;
}

/* The MXCSR bits this CPU accepts (FXSAVE's MXCSR_MASK, 0 meaning 0xffbf). */
static uint32_t mxcsr_mask(void)
{
	static uint32_t cached;	/* any runtime thread finds the same */
	unsigned char fx[FXSAVE_SIZE] __attribute__((aligned(16)));
	uint32_t mask = __atomic_load_n(&cached, __ATOMIC_RELAXED);

	if (!mask) {
		memset(fx, 0, sizeof(fx));
		__asm__ volatile("fxsave64 %0" : "=m"(fx));
		memcpy(&mask, fx + 28, sizeof(mask));
		if (!mask)
			mask = 0xffbf;
		__atomic_store_n(&cached, mask, __ATOMIC_RELAXED);
	}
	return mask;
}

/*
 * Refuse what the kernel's ptrace path refuses, before the CPU sees it:
 * a #GP in XRSTOR would work too (a FAULT, -EINVAL), but shows up in the
 * host's kernel log as a general protection fault.
 */
static int image_check(const unsigned char *img, int xsave)
{
	uint64_t hdr[8], mask = xcr0() & ~XFEATURE_XTILE;
	uint32_t mxcsr;
	int i;

	memcpy(&mxcsr, img + MXCSR_OFFSET, sizeof(mxcsr));
	if (mxcsr & ~mxcsr_mask())
		return -EINVAL;
	if (!xsave)
		return 0;
	memcpy(hdr, img + FXSAVE_SIZE, sizeof(hdr));
	if (hdr[0] & ~mask || hdr[1])	/* XSTATE_BV, XCOMP_BV */
		return -EINVAL;
	for (i = 2; i < 8; i++)
		if (hdr[i])
			return -EINVAL;
	return 0;
}

/*
 * Bytes 416..511 of the FXSAVE area are not written by the CPU; ptrace
 * shows zeros there but for the first software word, the feature mask.
 */
static void fx_sw_bytes(unsigned char *fx)
{
	uint64_t x = xcr0();

	memset(fx + 416, 0, FXSAVE_SIZE - 416);
	memcpy(fx + 464, &x, sizeof(x));
}

static int helper_get_fpregs(struct uml_thread *t, struct uml_fpregs *fp)
{
	int ret = helper_call(t, HELPER_FXSAVE);

	if (!ret)
		ret = data_read(t, fp->fxsave, FXSAVE_SIZE);
	if (!ret)
		fx_sw_bytes(fp->fxsave);
	return ret;
}

static int helper_set_fpregs(struct uml_thread *t,
			     const struct uml_fpregs *fp)
{
	int ret;

	if (t->dead || t->exit_pending || !t->pid)
		return -ESRCH;
	ret = image_check(fp->fxsave, 0);
	if (!ret)
		ret = data_write(t, fp->fxsave, FXSAVE_SIZE);
	return ret ? ret : helper_call(t, HELPER_FXRSTOR);
}

static long helper_get_xstate(struct uml_thread *t, void *buf, size_t len)
{
	long size = xstate_size();
	void *zero;
	int ret;

	if (t->dead || t->exit_pending || !t->pid)
		return -ESRCH;
	if (size < 576 || size > SKAS_HELPER_DATA_SIZE)
		return -EOPNOTSUPP;
	if (!len)
		return size;
	if (len < (size_t)size)
		return -ENOSPC;
	/* XSAVE leaves gaps and the header's reserved bytes alone: zero. */
	zero = calloc(1, size);
	if (!zero)
		return -ENOMEM;
	ret = data_write(t, zero, size);
	free(zero);
	if (!ret)
		ret = helper_call(t, HELPER_XSAVE);
	if (!ret)
		ret = data_read(t, buf, size);
	if (ret)
		return ret;
	fx_sw_bytes(buf);
	return size;
}

static int helper_set_xstate(struct uml_thread *t, const void *buf,
			     size_t len)
{
	long size = xstate_size();
	int ret;

	if (t->dead || t->exit_pending || !t->pid)
		return -ESRCH;
	if (size < 576 || size > SKAS_HELPER_DATA_SIZE)
		return -EOPNOTSUPP;
	if (len < (size_t)size)
		return -EINVAL;
	ret = image_check(buf, 1);
	if (!ret)
		ret = data_write(t, buf, size);
	return ret ? ret : helper_call(t, HELPER_XRSTOR);
}

/* ---- SKAS_GET_XSTATE / SKAS_SET_XSTATE ---------------------------------- */

#ifdef SKAS_CAP_XSTATE
/* One ioctl on an image of the module's size, at @buf. */
static int xstate_ioctl(struct uml_thread *t, unsigned long cmd,
			const void *buf, unsigned int flags)
{
	struct skas_xstate x;

	if (t->dead || t->exit_pending || !t->pid)
		return -ESRCH;
	memset(&x, 0, sizeof(x));
	x.size = sizeof(x);
	x.flags = flags;
	x.buf = (uintptr_t)buf;
	x.len = t->as->host->skas_xstate;
	return ioctl(t->fd, cmd, &x) ? -errno : 0;
}

static long module_get_xstate(struct uml_thread *t, void *buf, size_t len,
			      unsigned int flags)
{
	long size = t->as->host->skas_xstate;
	int ret;

	if (t->dead || t->exit_pending || !t->pid)
		return -ESRCH;
	if (!len)
		return size;
	if (len < (size_t)size)
		return -ENOSPC;
	ret = xstate_ioctl(t, SKAS_GET_XSTATE, buf, flags);
	return ret ? ret : size;
}

/* The FXSAVE area: the start of the image (the same software bytes). */
static int module_get_fpregs(struct uml_thread *t, struct uml_fpregs *fp)
{
	long size = t->as->host->skas_xstate;
	unsigned char *img = malloc(size);
	long ret;

	if (!img)
		return -ENOMEM;
	ret = module_get_xstate(t, img, size, 0);
	if (ret >= 0)
		memcpy(fp->fxsave, img, FXSAVE_SIZE);
	free(img);
	return ret < 0 ? ret : 0;
}

/*
 * FXRSTOR's effect: x87 and SSE from @fp, the other components as they
 * were; so the image is read, its first 416 bytes replaced (the rest of
 * the FXSAVE area is the software's) and loaded with both in use.
 */
static int module_set_fpregs(struct uml_thread *t, const struct uml_fpregs *fp)
{
	long size = t->as->host->skas_xstate;
	unsigned char *img = malloc(size);
	uint64_t bv;
	long ret;

	if (!img)
		return -ENOMEM;
	ret = module_get_xstate(t, img, size, 0);
	if (ret >= 0) {
		memcpy(img, fp->fxsave, FX_SW_OFFSET);
		memcpy(&bv, img + FXSAVE_SIZE, sizeof(bv));
		bv |= XFEATURE_FP | XFEATURE_SSE;
		memcpy(img + FXSAVE_SIZE, &bv, sizeof(bv));
		ret = xstate_ioctl(t, SKAS_SET_XSTATE, img, 0);
	}
	free(img);
	return ret < 0 ? ret : 0;
}
#endif

/* ---- the backend's entries ---------------------------------------------- */

/*
 * The helper's data page is the address space's: one helper sequence at
 * a time (as->stub_lock) around @call, one of the helper_*() above.
 */
#define HELPER_LOCKED(t, call) ({					\
	long __r;							\
	pthread_mutex_lock(&(t)->as->stub_lock);			\
	__r = (call);							\
	pthread_mutex_unlock(&(t)->as->stub_lock);			\
	__r;								\
})

/* The module's image size, if it has SKAS_CAP_XSTATE; else 0. */
unsigned int __uml_skas_xstate_cap(int dev)
{
#ifdef SKAS_CAP_XSTATE
	int size = ioctl(dev, SKAS_CHECK_EXTENSION, SKAS_CAP_XSTATE);

	return size >= FXSAVE_SIZE + 64 ? size : 0;
#else
	(void)dev;
	return 0;
#endif
}

int __uml_skas_get_fpregs(struct uml_thread *t, struct uml_fpregs *fp)
{
#ifdef SKAS_CAP_XSTATE
	if (t->as->host->skas_xstate)
		return module_get_fpregs(t, fp);
#endif
	return HELPER_LOCKED(t, helper_get_fpregs(t, fp));
}

int __uml_skas_set_fpregs(struct uml_thread *t, const struct uml_fpregs *fp)
{
#ifdef SKAS_CAP_XSTATE
	if (t->as->host->skas_xstate)
		return module_set_fpregs(t, fp);
#endif
	return HELPER_LOCKED(t, helper_set_fpregs(t, fp));
}

long __uml_skas_get_xstate(struct uml_thread *t, void *buf, size_t len)
{
#ifdef SKAS_CAP_XSTATE
	if (t->as->host->skas_xstate)
		return module_get_xstate(t, buf, len, 0);
#endif
	return HELPER_LOCKED(t, helper_get_xstate(t, buf, len));
}

/* The state, then the init state: one ioctl, or two helper runs. */
long __uml_skas_take_xstate(struct uml_thread *t, void *buf, size_t len)
{
	long size;
	int ret;

#ifdef SKAS_CAP_XSTATE
	if (t->as->host->skas_xstate)
		return module_get_xstate(t, buf, len, SKAS_XSTATE_INIT);
#endif
	size = HELPER_LOCKED(t, helper_get_xstate(t, buf, len));
	if (size < 0)
		return size;
	ret = __uml_skas_fpu_reset(t);
	return ret ? ret : size;
}

int __uml_skas_set_xstate(struct uml_thread *t, const void *buf, size_t len)
{
#ifdef SKAS_CAP_XSTATE
	if (t->as->host->skas_xstate) {
		if (len < t->as->host->skas_xstate)
			return -EINVAL;
		return xstate_ioctl(t, SKAS_SET_XSTATE, buf, 0);
	}
#endif
	return HELPER_LOCKED(t, helper_set_xstate(t, buf, len));
}

/*
 * The init state, as execve() leaves it: an image whose XSTATE_BV is 0
 * makes XRSTOR initialize every component; MXCSR is always loaded from
 * the image, so it carries the default.
 */
int __uml_skas_fpu_reset(struct uml_thread *t)
{
	long size = __uml_skas_get_xstate(t, NULL, 0);
	uint32_t mxcsr = MXCSR_DEFAULT;
	unsigned char *img;
	int ret;

	if (size < 0)
		return size;
	img = calloc(1, size);
	if (!img)
		return -ENOMEM;
	memcpy(img + MXCSR_OFFSET, &mxcsr, sizeof(mxcsr));
	ret = __uml_skas_set_xstate(t, img, size);
	free(img);
	return ret;
}
