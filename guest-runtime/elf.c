// SPDX-License-Identifier: GPL-2.0-only
/*
 * ELF loading: static (ET_EXEC), static-pie and dynamically linked x86-64
 * programs, mapped from the file with private mappings plus anonymous bss,
 * the program interpreter (PT_INTERP, the dynamic loader) beside them as
 * the kernel's load_elf_binary() maps it, and the initial stack (argv,
 * envp, auxv).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "umlrun.h"

#define STACK_SIZE	(8ULL << 20)
#define PIE_BASE	0x555555554000ULL
#define MAX_PHDRS	64

struct elf_info {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[MAX_PHDRS];
};

/*
 * The header and program headers of ELF @fd.  One read of the file's
 * first 1 KiB takes both where, as linkers place them, the program
 * headers follow the header (up to 17 of them); else a second read.
 */
static int elf_read(int fd, struct elf_info *ei)
{
	unsigned char head[1024];
	ssize_t n = pread(fd, head, sizeof(head), 0);
	size_t len;

	if (n < (ssize_t)sizeof(ei->eh))
		return -ENOEXEC;
	memcpy(&ei->eh, head, sizeof(ei->eh));
	if (memcmp(ei->eh.e_ident, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (ei->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ei->eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    ei->eh.e_machine != EM_X86_64 ||
	    (ei->eh.e_type != ET_EXEC && ei->eh.e_type != ET_DYN) ||
	    ei->eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    ei->eh.e_phnum == 0 || ei->eh.e_phnum > MAX_PHDRS)
		return -ENOEXEC;
	len = ei->eh.e_phnum * sizeof(Elf64_Phdr);
	if (ei->eh.e_phoff <= (size_t)n && len <= (size_t)n - ei->eh.e_phoff)
		memcpy(ei->ph, head + ei->eh.e_phoff, len);
	else if (pread(fd, ei->ph, len, ei->eh.e_phoff) != (ssize_t)len)
		return -ENOEXEC;
	return 0;
}

/* Can we run this file?  0 or -ENOEXEC (not an x86-64 ELF); @why explains. */
int elf_check(int fd, char *why, size_t whylen)
{
	struct elf_info ei;
	int r = elf_read(fd, &ei);

	if (r < 0)
		snprintf(why, whylen, "not an x86-64 ELF executable");
	return r;
}

/*
 * The program interpreter @fd names (its first PT_INTERP) into @path:
 * 1, 0 if it has none, or -ENOEXEC for a malformed one, with the kernel's
 * checks (2 to PATH_MAX bytes, NUL-terminated).
 */
int elf_interp(int fd, char *path, size_t len)
{
	struct elf_info ei;
	int i, r = elf_read(fd, &ei);

	if (r < 0)
		return r;
	for (i = 0; i < ei.eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &ei.ph[i];

		if (ph->p_type != PT_INTERP)
			continue;
		if (ph->p_filesz < 2 || ph->p_filesz > len)
			return -ENOEXEC;
		if (pread(fd, path, ph->p_filesz, ph->p_offset) !=
		    (ssize_t)ph->p_filesz || path[ph->p_filesz - 1])
			return -ENOEXEC;
		return 1;
	}
	return 0;
}

static uint32_t elf_prot(uint32_t pf)
{
	return (pf & PF_R ? PROT_READ : 0) | (pf & PF_W ? PROT_WRITE : 0) |
	       (pf & PF_X ? PROT_EXEC : 0);
}

/*
 * Map segment @ph of ELF @fd.  The mappings of one ELF share one struct
 * file (*@fp, made at the first), a copy of @fd that each keeps, as the
 * kernel's vmas share the file: one dup() and fstat() an ELF.
 */
static int load_segment(struct task *t, int fd, struct file **fp,
			const Elf64_Phdr *ph, uint64_t bias)
{
	static const char zeros[PAGE_SIZE];
	uint64_t va = ph->p_vaddr + bias, start = PAGE_DOWN(va);
	uint64_t file_end = va + ph->p_filesz, mem_end = va + ph->p_memsz;
	uint64_t map_end = PAGE_ALIGN(file_end);
	uint32_t prot = elf_prot(ph->p_flags);
	int r;

	if ((ph->p_vaddr & (PAGE_SIZE - 1)) != (ph->p_offset & (PAGE_SIZE - 1)))
		return -ENOEXEC;
	/*
	 * As load_elf_binary() checks against TASK_SIZE, so here against the
	 * guest's part of the address space: a file may not place a segment
	 * over the backend's pages above it, nor wrap around.
	 */
	if (ph->p_filesz > ph->p_memsz || va < ph->p_vaddr || va < UML_GUEST_MIN ||
	    mem_end < va || PAGE_ALIGN(mem_end) < mem_end ||
	    PAGE_ALIGN(mem_end) > t->p->mm->top)
		return -EINVAL;
	if (ph->p_filesz) {
		/* The mapping keeps the file (mremap, MADV_DONTNEED). */
		if (!*fp) {
			int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);

			if (dup < 0)
				return -EMFILE;
			*fp = file_new(dup, O_RDONLY);
			if (!*fp) {
				close(dup);
				return -ENOMEM;
			}
		}
		r = mm_map(t, start, map_end - start, prot, UML_MAP_PRIVATE,
			   *fp, PAGE_DOWN(ph->p_offset));
		if (r < 0)
			return r;
	} else {
		map_end = start;
	}
	if (mem_end <= file_end)
		return 0;
	/* bss: zero the rest of the last file page, then anonymous pages. */
	if (ph->p_filesz && map_end > file_end &&
	    (mm_batch_flush(t) < 0 ||
	     uml_mem_write(t->p->as, file_end, zeros, map_end - file_end) < 0))
		return -EFAULT;
	if (PAGE_ALIGN(mem_end) > map_end)
		r = mm_map(t, map_end, PAGE_ALIGN(mem_end) - map_end, prot,
			   UML_MAP_PRIVATE | UML_MAP_ANONYMOUS, NULL, 0);
	else
		r = 0;
	return r;
}

struct stack_builder {
	char *buf;		/* image of [top - size, top) */
	uint64_t top, size, sp;
};

static uint64_t push_bytes(struct stack_builder *sb, const void *p, size_t n)
{
	if (sb->top - sb->sp + n > sb->size)
		return 0;
	sb->sp -= n;
	memcpy(sb->buf + (sb->sp - (sb->top - sb->size)), p, n);
	return sb->sp;
}

static uint64_t push_str(struct stack_builder *sb, const char *s)
{
	return push_bytes(sb, s, strlen(s) + 1);
}

#define NAUX 22

static int build_stack(struct task *t, struct stack_builder *sb,
		       const struct exec_args *a, const char *execfn,
		       const uint64_t *aux)
{
	uint64_t *argp = calloc(a->argc + a->envc + 2, sizeof(uint64_t));
	uint64_t words, *w, base, fn, rnd, plat;
	unsigned char rbytes[16];
	int i, n = 0;

	if (!argp)
		return -ENOMEM;
	fn = push_str(sb, execfn);
	for (i = a->envc - 1; i >= 0; i--)
		argp[a->argc + 1 + i] = push_str(sb, a->envp[i]);
	for (i = a->argc - 1; i >= 0; i--)
		argp[i] = push_str(sb, a->argv[i]);
	if (getrandom(rbytes, sizeof(rbytes), 0) != sizeof(rbytes))
		memset(rbytes, 0x5a, sizeof(rbytes));
	rnd = push_bytes(sb, rbytes, sizeof(rbytes));
	plat = push_str(sb, "x86_64");
	words = 1 + a->argc + 1 + a->envc + 1 + 2 * NAUX;
	base = ((sb->sp - 64) & ~15ULL) - words * 8;
	base &= ~15ULL;
	if (!fn || !rnd || !plat || sb->top - base > sb->size) {
		free(argp);
		return -E2BIG;
	}
	w = (uint64_t *)(sb->buf + (base - (sb->top - sb->size)));
	/* The image is not zeroed: the vectors, their padding and the gap
	 * below the strings are, so that no runtime memory reaches the guest. */
	memset(w, 0, sb->sp - base);
	w[n++] = a->argc;
	for (i = 0; i < a->argc; i++)
		w[n++] = argp[i];
	w[n++] = 0;
	for (i = 0; i < a->envc; i++)
		w[n++] = argp[a->argc + 1 + i];
	w[n++] = 0;
	for (i = 0; aux[i]; i += 2) {
		w[n++] = aux[i];
		w[n++] = aux[i] == AT_EXECFN ? fn : aux[i] == AT_RANDOM ? rnd
		       : aux[i] == AT_PLATFORM ? plat : aux[i + 1];
	}
	w[n++] = AT_NULL;
	w[n++] = 0;
	sb->sp = base;
	free(argp);
	(void)t;
	return 0;
}

static uint64_t phdr_addr(const struct elf_info *ei, uint64_t bias)
{
	int i;

	for (i = 0; i < ei->eh.e_phnum; i++)
		if (ei->ph[i].p_type == PT_PHDR)
			return ei->ph[i].p_vaddr + bias;
	for (i = 0; i < ei->eh.e_phnum; i++)
		if (ei->ph[i].p_type == PT_LOAD && ei->ph[i].p_offset == 0)
			return ei->ph[i].p_vaddr + bias + ei->eh.e_phoff;
	return 0;
}

static int map_stack(struct task *t, const struct exec_args *a,
		     const char *execfn, const uint64_t *aux, uint64_t *spp)
{
	struct mm *mm = t->p->mm;
	struct stack_builder sb;
	uint64_t img = strlen(execfn) + 1 + 16 + sizeof("x86_64") + 64 + 32 +
		       (1 + a->argc + 1 + a->envc + 1 + 2 * NAUX) * 8;
	int r, i;

	/*
	 * The image holds exactly what build_stack() pushes (sys_execve()
	 * bounded the strings by the guest's RLIMIT_STACK, as the kernel's
	 * exec does), and is not zeroed: a calloc of a fixed 256 KB per exec
	 * was a quarter of the runtime's time under TCG.
	 */
	for (i = 0; i < a->argc; i++)
		img += strlen(a->argv[i]) + 1;
	for (i = 0; i < a->envc; i++)
		img += strlen(a->envp[i]) + 1;
	if (img > STACK_SIZE / 2)
		return -E2BIG;
	img = (img + 15) & ~15ULL;	/* its words as aligned as the stack's */

	r = mm_map(t, mm->stack_top - STACK_SIZE, STACK_SIZE,
		   PROT_READ | PROT_WRITE, UML_MAP_PRIVATE | UML_MAP_ANONYMOUS,
		   NULL, 0);
	if (r < 0)
		return r;
	sb.top = sb.sp = mm->stack_top;
	sb.size = img;
	sb.buf = malloc(img);
	if (!sb.buf)
		return -ENOMEM;
	r = build_stack(t, &sb, a, execfn, aux);
	if (r == 0 && copy_to_guest(t, sb.sp, sb.buf + (sb.sp - (sb.top - img)),
				    sb.top - sb.sp) < 0)
		r = -EFAULT;
	free(sb.buf);
	*spp = sb.sp;
	return r;
}

/*
 * Map the interpreter @ifd where the mmap area has room for all of it (an
 * ET_DYN one; an ET_EXEC one where it says), as load_elf_interp() does.
 * Its load bias (AT_BASE) in *@biasp, its entry in *@entryp.
 */
static int load_interp(struct task *t, int ifd, uint64_t *biasp,
		       uint64_t *entryp)
{
	uint64_t lo = UINT64_MAX, hi = 0, bias = 0, base;
	struct file *f = NULL;
	struct elf_info ei;
	int i, err;

	err = elf_read(ifd, &ei);
	if (err < 0)
		return err;
	for (i = 0; i < ei.eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &ei.ph[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_vaddr + ph->p_memsz < ph->p_vaddr)
			return -EINVAL;
		if (PAGE_DOWN(ph->p_vaddr) < lo)
			lo = PAGE_DOWN(ph->p_vaddr);
		if (ph->p_vaddr + ph->p_memsz > hi)
			hi = ph->p_vaddr + ph->p_memsz;
	}
	if (hi <= lo || PAGE_ALIGN(hi) < hi)
		return -EINVAL;
	if (ei.eh.e_type == ET_DYN) {
		base = mm_find_free(t->p->mm, PAGE_ALIGN(hi) - lo);
		if (!base)
			return -ENOMEM;
		bias = base - lo;
	}
	for (i = 0; i < ei.eh.e_phnum && err == 0; i++)
		if (ei.ph[i].p_type == PT_LOAD)
			err = load_segment(t, ifd, &f, &ei.ph[i], bias);
	file_put(f);
	if (err < 0)
		return err;
	*biasp = bias;
	*entryp = ei.eh.e_entry + bias;
	return 0;
}

/*
 * Map the program @fd (and its interpreter @ifd, or -1) into the (empty)
 * address space of @t and set its registers: it starts at the
 * interpreter's entry, with the program's in AT_ENTRY.
 */
int elf_load(struct task *t, int fd, int ifd, const char *execfn,
	     const struct exec_args *a)
{
	struct uml_aspace_info info;
	struct elf_info ei;
	struct uml_regs *r;
	uint64_t bias = 0, end = 0, sp, ibias = 0, entry;
	struct file *f = NULL;
	int i, err;

	err = elf_read(fd, &ei);
	if (err < 0)
		return err;
	err = uml_aspace_info(t->p->as, &info);
	if (err < 0)
		return err;
	mm_put(t->p->mm);
	t->p->mm = mm_new(&info);
	if (!t->p->mm)
		return -ENOMEM;
	if (ei.eh.e_type == ET_DYN)
		bias = PIE_BASE < t->p->mm->mmap_base / 2 ? PIE_BASE
			: PAGE_DOWN(t->p->mm->mmap_base / 3);
	err = 0;
	for (i = 0; i < ei.eh.e_phnum && err == 0; i++) {
		const Elf64_Phdr *ph = &ei.ph[i];

		if (ph->p_type != PT_LOAD)
			continue;
		err = load_segment(t, fd, &f, ph, bias);
		if (ph->p_vaddr + bias + ph->p_memsz > end)
			end = ph->p_vaddr + bias + ph->p_memsz;
	}
	file_put(f);
	if (err < 0)
		return err;
	t->p->mm->brk_start = t->p->mm->brk = PAGE_ALIGN(end);
	entry = ei.eh.e_entry + bias;
	if (ifd >= 0) {
		err = load_interp(t, ifd, &ibias, &entry);
		if (err < 0)
			return err;
	}

	uint64_t aux[2 * NAUX] = {
		AT_PHDR, phdr_addr(&ei, bias), AT_PHENT, sizeof(Elf64_Phdr),
		AT_PHNUM, ei.eh.e_phnum, AT_PAGESZ, PAGE_SIZE,
		AT_BASE, ibias, AT_FLAGS, 0, AT_ENTRY, ei.eh.e_entry + bias,
		AT_UID, host_uid, AT_EUID, host_euid, AT_GID, host_gid,
		AT_EGID, host_egid, AT_SECURE, 0, AT_HWCAP, getauxval(AT_HWCAP),
		AT_HWCAP2, getauxval(AT_HWCAP2), AT_CLKTCK, sysconf(_SC_CLK_TCK),
		AT_RANDOM, 0, AT_EXECFN, 0, AT_PLATFORM, 0,
		AT_MINSIGSTKSZ, getauxval(AT_MINSIGSTKSZ),
		info.vdso_base && fast_vdso() ? AT_SYSINFO_EHDR : 0,
		info.vdso_base,
	};
	err = map_stack(t, a, execfn, aux, &sp);
	if (err < 0)
		return err;

	r = uml_thread_regs(t->th);
	memset(r, 0, sizeof(*r));
	r->rip = entry;
	r->rsp = sp;
	r->cs = 0x33;
	r->ss = 0x2b;
	r->eflags = 0x202;
	return 0;
}
