#!/bin/bash
# run-e2e-forky.sh: run-e2e.sh on a second guest, Debian forky (testing):
# the newest SystemTap (5.6) and kernel (7.2) Debian has, against the same
# checks as the trixie guest (stap 5.1, Linux 6.12). See run-e2e.sh.
E2E_SUITE=forky exec "$(dirname "$0")/run-e2e.sh" "$@"
