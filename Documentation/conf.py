# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of skas's documentation: `make htmldocs` builds it
# into build/htmldocs with warnings as errors.  The reference sections of
# uapi.rst and libuml.rst are the kernel-doc comments of uapi/linux/skas.h
# and libuml/uml.h, read by the kernel's own Sphinx extension and
# scripts/kernel-doc, from the kernel source tree in KERNEL_SRC (the
# Makefile points it at the 6.12 source the harness fetches).
import os
import sys

project = "skas"
author = "The skas project"
copyright = "The skas project; GPL-2.0 (module, tests), LGPL-2.1+ (libuml)"
master_doc = "index"
exclude_patterns = ["_build"]
html_theme = "alabaster"

with open(os.path.join(os.path.dirname(__file__), "..", "VERSION")) as f:
    version = release = f.read().strip()

_ksrc = os.environ.get("KERNEL_SRC")
if not _ksrc or not os.path.isfile(os.path.join(_ksrc, "scripts", "kernel-doc")):
    sys.exit("conf.py: set KERNEL_SRC to a kernel source tree (make htmldocs does)")
sys.path.insert(0, os.path.join(_ksrc, "Documentation", "sphinx"))
extensions = ["kerneldoc"]
kerneldoc_bin = os.path.join(_ksrc, "scripts", "kernel-doc")
kerneldoc_srctree = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
