#!/bin/bash
# run-e2e-bullseye.sh: run-e2e.sh on Debian bullseye (11): SystemTap 4.4,
# libdw 0.183 and Linux 5.10, the oldest stack Debian still carries and the
# nearest to RHEL 8's Linux 4.18 (RHEL 8.10 itself has SystemTap 4.9 and
# elfutils 0.190). As on bookworm, libdw finds no DWARF unit of Go code
# without .debug_aranges: `gostap run` gives stap a copy of the binary with
# them, and the modules compiled by hand take the --sysroot `gostap gen`
# prints. gostap is built in the image with bookworm's zydis
# (e2e/build-image.sh). Only when GOSTAP_E2E names it (e2e/guests.sh).
# See run-e2e.sh.
E2E_SUITE=bullseye exec "$(dirname "$0")/run-e2e.sh" "$@"
