#!/bin/bash
# run-e2e-arm64.sh: run-e2e.sh on an arm64 guest: Debian trixie's arm64
# port (stap 5.1, Linux 6.12) under qemu-system-aarch64, on the fixtures'
# GOARCH=arm64 builds; which checks run there and which are skipped is
# said in run-e2e.sh.
E2E_ARCH=arm64 exec "$(dirname "$0")/run-e2e.sh" "$@"
