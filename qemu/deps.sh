#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the harness needs, if any is missing.
# Needs root for that (CI and the README's commands run as root); without
# root it names what is missing and fails.
set -euo pipefail
pkgs=(make gcc libc6-dev clang qemu-system-x86 busybox-static cpio sparse
      flex bison bc libelf-dev libssl-dev kmod dwarves git perl rsync
      python3-sphinx pkgconf debhelper dh-dkms dkms lintian python3)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
