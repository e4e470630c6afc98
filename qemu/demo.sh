#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot a Debian kernel (KVER, default 6.12) in QEMU with skas.ko
# loaded.  Without CMD: an interactive shell on the console.  CMD='...' runs
# a command instead and exits with its status.  EXTRA=DIR copies a host
# folder to /extra in the VM.
set -euo pipefail
QEMU_DIR=$(cd "$(dirname "$0")" && pwd)
export DEMO_CMD=${CMD:-}
export EXTRA=${EXTRA:-}
exec "$QEMU_DIR/vm-test.sh" -d "${KVER:-6.12}"
