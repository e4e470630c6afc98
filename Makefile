# SPDX-License-Identifier: GPL-2.0
#
# skas: host support for user-mode kernels.  `make help` lists the targets.

KVER ?=
CC ?= gcc
export CC

QEMU := qemu
CACHE := $(or $(SKAS_CACHE),$(HOME)/.cache/skas)
SUBDIRS := libuml guest-runtime selftests
checkpatch := $(CACHE)/source/6.12/linux/scripts/checkpatch.pl

# The kernel the `module` target builds for: KDIR if given, else KVER
# (a kernel the harness fetched), else the running kernel's headers if
# installed, else the newest fetched one.
ifeq ($(KDIR),)
ifneq ($(KVER),)
MODULE_FOR := $(KVER)
else ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
MODULE_FOR := /lib/modules/$(shell uname -r)/build
else
MODULE_FOR := 6.12
endif
else
MODULE_FOR := $(KDIR)
endif

.PHONY: all help module user clang asan tsan $(SUBDIRS) bench-programs init check check-native demo \
	uml uml-tests uml-check uml-bench \
	style sparse htmldocs deps clean bench install modules_install dkms-install

all: module user

help:
	@echo 'make              module (for KDIR/KVER, see README) and user space'
	@echo 'make user         libuml, umlrun and the selftests (static)'
	@echo 'make check        everything: native tests, then the 6.1, 6.12 and debug VMs'
	@echo 'make check-native the tests that run on this host (ptrace backend)'
	@echo 'make asan         umlrun and libuml with ASan+UBSan, in build/asan'
	@echo 'make tsan         libuml, its threads test and umlrun with TSan, in build/tsan'
	@echo 'make demo         a shell in a 6.12 VM with skas.ko loaded'
	@echo '                  CMD=... runs a command instead; KVER=6.1; EXTRA=DIR -> /extra'
	@echo 'make bench        benchmarks: every workload and path, 6.12 and 6.1 VMs'
	@echo '                  KVER=6.12 CLOCK=icount|wall REPS= SCALE= ONLY= PATHS= PLOT=1'
	@echo 'make stress       long stress suite on 6.1, 6.12, debug; KVERS= SEED='
	@echo 'make fuzz         runtime fuzzer, then sequence fuzzer on 6.1, 6.12, debug;'
	@echo '                  DURATION=s (each) KVERS= SEED='
	@echo 'make fuzz-runtime the runtime fuzzer alone (ASan umlrun); DURATION=s SEED='
	@echo 'make ltp         LTP syscalls suite in a VM: native, ptrace, skas; table'
	@echo '                  LTP_TESTS="NAME|REGEX ..." LTP_SAMPLE=N KVER=6.12 LTP_TIMEOUT=s'
	@echo 'make selfhost-vm  the self-hosting build of libuml and umlrun, skas, 6.12 VM'
	@echo 'make uml          User-Mode Linux 7.3 with uml/patches, cached (uml/build.sh)'
	@echo 'make uml-check    build it, then uml/check.sh (ptrace, seccomp, skas) in a 6.12 VM'
	@echo 'make uml-bench    UML in each mode against native, one 6.12 boot (CLOCK, REPS, PATHS)'
	@echo 'make style        checkpatch --strict on the module'
	@echo 'make sparse       sparse (C=2) on the module'
	@echo 'make htmldocs     Documentation/ as HTML in build/htmldocs (Sphinx, -W)'
	@echo 'make deps         install the Debian packages the harness needs (root)'
	@echo 'make install      libuml, umlrun, man pages, the udev rule; PREFIX= DESTDIR='
	@echo 'make modules_install  skas.ko for KDIR/KVER into DESTDIR/lib/modules'
	@echo 'make dkms-install the module sources and dkms.conf in DESTDIR/usr/src'

module:
	$(QEMU)/build-module.sh $(MODULE_FOR)

# ---- install ----
VERSION := $(shell cat VERSION)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
UDEVRULESDIR ?= /usr/lib/udev/rules.d
DKMSDIR ?= /usr/src/skas-$(VERSION)
MODULE_SOURCES := Kbuild VERSION $(wildcard module/*.c module/*.h) uapi/linux/skas.h

# User space: libuml (libuml.so.0, libuml.a, uml.h, linux/skas.h,
# libuml.pc), umlrun, the man pages and the udev rule.  The module: modules_install for
# the kernel of KDIR/KVER, or dkms-install for DKMS to build it.
install: user
	$(MAKE) -C libuml install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	install -D -m 755 guest-runtime/umlrun $(DESTDIR)$(BINDIR)/umlrun
	install -D -m 644 udev/60-skas.rules $(DESTDIR)$(UDEVRULESDIR)/60-skas.rules
	man/install.sh $(DESTDIR)$(MANDIR)

modules_install:
	$(QEMU)/build-module.sh $(MODULE_FOR) --install $(DESTDIR)

# The module's sources and dkms.conf in /usr/src/skas-VERSION, as
# WireGuard's dkms-install does; then `dkms install skas/VERSION`.
dkms-install:
	for f in $(MODULE_SOURCES); do \
		install -D -m 644 $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; \
	done
	sed 's/@VERSION@/$(VERSION)/' dkms.conf.in > $(DESTDIR)$(DKMSDIR)/dkms.conf

user: $(SUBDIRS) bench-programs init uml-tests

libuml:
	$(MAKE) -C libuml

guest-runtime: libuml
	$(MAKE) -C guest-runtime

selftests: libuml
	$(MAKE) -C selftests

# The static guest programs of uml/check.sh (User-Mode Linux's tests).
uml-tests:
	$(MAKE) -C uml/tests

# The benchmark workloads (bench/); `make bench` runs them.
bench-programs: libuml
	$(MAKE) -C bench

init: build/qemu/init

build/qemu/init: qemu/init.c
	@mkdir -p $(@D)
	$(CC) -static -O2 -Wall -Wextra -Werror -o $@ $<

# User code must build warning-free with clang too: build a copy of the
# tree with it (in build/clang, so that objects never mix).
clang:
	rm -rf build/clang && mkdir -p build/clang
	git ls-files -z | xargs -0 cp --parents -t build/clang
	$(MAKE) -C build/clang CC=clang user

# umlrun and libuml under AddressSanitizer and UBSan, for the runtime fuzzer
# (selftests/runtime/fuzz.sh): a dynamic umlrun in build/asan, from a copy
# of VERSION, libuml/, guest-runtime/ and uapi/ (only changed files are
# copied, so rebuilds are incremental).  The stub and the guests stay static and
# unsanitized: they are separate programs.
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
asan: build/asan/guest-runtime/umlrun
.PHONY: build/asan/guest-runtime/umlrun
build/asan/guest-runtime/umlrun:
	@mkdir -p build/asan
	git ls-files -z VERSION libuml guest-runtime uapi | xargs -0 cp -u --parents -t build/asan
	$(MAKE) -C build/asan/libuml CFLAGS='$(ASAN_CFLAGS)'
	$(MAKE) -C build/asan/guest-runtime CFLAGS='$(ASAN_CFLAGS)' STATIC=

# libuml with its several-runtime-threads test, and umlrun, under
# ThreadSanitizer in build/tsan (dynamic: TSan cannot link statically);
# native.list runs both (selftests/runtime/tsan.sh for umlrun).
TSAN_CFLAGS := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
TSAN_TEST_CFLAGS := $(TSAN_CFLAGS) -Wall -Wextra -Werror \
	-Wno-unused-parameter -Wno-sign-compare -Wno-clobbered -Ibuild/tsan/libuml \
	-Ibuild/tsan/uapi -pthread
tsan: build/tsan/selftests/libuml/threads build/tsan/guest-runtime/umlrun
.PHONY: build/tsan/selftests/libuml/threads build/tsan/guest-runtime/umlrun
build/tsan/selftests/libuml/threads:
	@mkdir -p build/tsan
	git ls-files -z VERSION libuml uapi selftests/libuml selftests/kselftest.h \
		selftests/kselftest_harness.h | xargs -0 cp -u --parents -t build/tsan
	$(MAKE) -C build/tsan/libuml CFLAGS='$(TSAN_CFLAGS)' libuml.a
	$(CC) $(TSAN_TEST_CFLAGS) -o $@ $@.c build/tsan/libuml/libuml.a
build/tsan/guest-runtime/umlrun: build/tsan/selftests/libuml/threads
	git ls-files -z guest-runtime | xargs -0 cp -u --parents -t build/tsan
	$(MAKE) -C build/tsan/guest-runtime CFLAGS='$(TSAN_CFLAGS)' STATIC=

check:
	$(QEMU)/check.sh

check-native: user asan tsan
	selftests/run-tests.sh -n native selftests/native.list

demo: deps user
	$(QEMU)/demo.sh

deps:
	$(QEMU)/deps.sh

# Prints a table, asserts nothing (Documentation/benchmarks.rst).
bench: deps user
	KVER="$(KVER)" CLOCK="$(CLOCK)" REPS="$(REPS)" SCALE="$(SCALE)" \
		ONLY="$(ONLY)" PATHS="$(PATHS)" PLOT="$(PLOT)" bench/run.sh

# The long form of the stress suite (make check runs the short one).
.PHONY: stress
stress: deps user
	KVERS="$(or $(KVERS),6.1 6.12 debug)" SEED="$(SEED)" selftests/stress/run.sh

# The fuzzers, DURATION seconds each: the runtime fuzzer natively (make
# check: 25), then the module's sequence fuzzer per kernel (make check: 20).
.PHONY: fuzz fuzz-runtime
fuzz: fuzz-runtime deps
	KVERS="$(or $(KVERS),6.1 6.12 debug)" SEED="$(SEED)" \
		DURATION="$(or $(DURATION),300)" FILTER=selftests/stress/seqfuzz \
		selftests/stress/run.sh

# The runtime fuzzer alone, under the ASan+UBSan umlrun, on this host.
fuzz-runtime: user asan
	selftests/runtime/fuzz.sh "$(or $(DURATION),300)" $(SEED)

# LTP's syscalls suite in a VM (KVER, default 6.12): natively and under
# umlrun's ptrace and skas backends; LTP_TESTS= narrows it (selftests/ltp/).
.PHONY: ltp
ltp: deps user
	KVER="$(or $(KVER),6.12)" LTP_TESTS="$(LTP_TESTS)" LTP_MODES="$(LTP_MODES)" \
		LTP_TIMEOUT="$(LTP_TIMEOUT)" LTP_SAMPLE="$(LTP_SAMPLE)" selftests/ltp/ltp.sh

# The self-hosting build of the whole user space (libuml and umlrun) under
# umlrun on skas in a 6.12 VM: about 7 minutes of VM time, so make check
# builds libuml only there (selftests/vm.list).
.PHONY: selfhost-vm
selfhost-vm: deps user
	VM_APPEND="skas_selfhost=full $(VM_APPEND)" VM_TIMEOUT=$(or $(VM_TIMEOUT),1800) \
		$(QEMU)/vm-test.sh 6.12 selftests/runtime/selfhost.sh

# User-Mode Linux (Debian's linux-source-7.3 with uml/patches/*.patch),
# built once per source version, series, uml/config and uml/build.sh into
# the cache; uml-check runs uml/check.sh (UML in ptrace, seccomp and skas
# modes) in a 6.12 VM.  make check runs that line of vm.list only when the
# build is already cached (Documentation/uml.rst).
uml:
	uml/build.sh

uml-check: deps user uml
	$(QEMU)/vm-test.sh 6.12 uml/check.sh

# UML's modes against native in one 6.12 boot: CLOCK=icount|wall, REPS.
uml-bench: deps user uml
	CLOCK=$(or $(CLOCK),icount) BENCH_REPS=$(or $(REPS),3) BENCH_PATHS="$(PATHS)" uml/vm-bench.sh

# Fairness and interference (Documentation/benchmarks.rst): KVER, CLOCK, REPS.
.PHONY: fairness
fairness: deps user
	KVER="$(or $(KVER),6.12)" CLOCK="$(or $(CLOCK),icount)" REPS="$(REPS)" \
		bench/fairness.sh

style:
	@test -x $(checkpatch) || $(QEMU)/fetch-kernels.sh source-6.12
	$(checkpatch) --strict --no-tree --terse --show-types \
		-f \
		$(wildcard module/*.c module/*.h) uapi/linux/skas.h

# Documentation/ as HTML in build/htmldocs, warnings as errors; the
# kernel-doc comments come in through the kernel's extension (conf.py).
htmldocs:
	@test -x $(checkpatch) || $(QEMU)/fetch-kernels.sh source-6.12
	KERNEL_SRC=$(CACHE)/source/6.12/linux sphinx-build -W --keep-going -q \
		-b html -d build/htmldocs/.doctrees Documentation build/htmldocs

sparse:
	$(QEMU)/build-module.sh $(MODULE_FOR) C=2 CHECK='sparse -Wsparse-error'

clean:
	for d in $(SUBDIRS) bench uml/tests; do $(MAKE) -C $$d clean; done
	rm -rf build
