#!/bin/bash
# run-e2e-bookworm.sh: run-e2e.sh on Debian bookworm (12): SystemTap 4.8,
# libdw 0.188 and Linux 6.1, the old stack (RHEL 8: SystemTap 4.9, elfutils
# 0.190; RHEL 9.0-9.4: SystemTap 5.0, elfutils 0.190), where libdw finds no
# DWARF unit of Go code without .debug_aranges: `gostap run` gives stap a
# copy of the binary with them (--sysroot), and the modules compiled by
# hand take the --sysroot that `gostap gen` prints. Only when GOSTAP_E2E
# names it (e2e/guests.sh). See run-e2e.sh.
E2E_SUITE=bookworm exec "$(dirname "$0")/run-e2e.sh" "$@"
