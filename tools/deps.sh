#!/bin/bash
# Install the Debian packages gostap needs to build and test.
# Usage: tools/deps.sh [build|test]   (default: test, which includes build)
# Runs apt-get as root, or through sudo.
set -euo pipefail

BUILD="gcc make autoconf automake pkg-config libelf-dev libdw-dev libcapstone-dev libzydis-dev libdebuginfod-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev"
# objdump for x86-64 and aarch64 is the independent ground truth of the tests.
# gdb reads argument values; systemtap's translator elaborates the tapsets;
# rpm builds the package; debootstrap and qemu run the real SystemTap
# runtime in a guest (testsuite/e2e); llvm-dwarfdump reads DWARF locations
# independently; clang builds the libFuzzer harness (fuzz/); npm fetches
# Go programs built by Go releases Debian does not carry (run-traceback.sh);
# qemu-user runs the arm64 fixtures (run-symbolize.sh); gcc-aarch64-linux-gnu
# links the arm64 cgo fixture (build-fixtures.sh) with the arm64 C
# library of libc6-dev-arm64-cross (only a Recommends of the compiler,
# which --no-install-recommends leaves out); qemu-system-arm
# and qemu-user-static run the arm64 guest and chroots of its tree
# (run-e2e-arm64.sh); xz-utils unpacks the golden binaries (run-golden.sh;
# of Priority standard, so a minimal Debian 12 has no xz: run-fresh.sh).
TEST="python3 xz-utils binutils binutils-aarch64-linux-gnu gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-multiarch ca-certificates gdb systemtap rpm debootstrap qemu-system-x86 qemu-system-arm qemu-user-static e2fsprogs patch util-linux llvm-14 clang libclang-rt-14-dev time valgrind debuginfod iproute2 npm qemu-user"

pkgs=$BUILD
[ "${1:-test}" = test ] && pkgs="$pkgs $TEST"

missing=
for p in $pkgs; do
  # npm: any npm will do (a Node.js from elsewhere that has its own npm
  # conflicts with Debian's npm package).
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
echo "tools/deps.sh: installing:$missing" >&2
$SUDO apt-get update -q >/dev/null
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
