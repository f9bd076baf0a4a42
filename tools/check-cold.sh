#!/bin/bash
# tools/check.sh as on a new machine, on this one: a Debian 12 root made
# by debootstrap (minbase, this machine's mirror and apt settings), made
# the root of a mount namespace of its own (pivot_root, so paths under
# /proc read as on a real machine) and of a PID namespace, with a clone
# of this checkout and nothing installed or cached: its own apt installs
# what tools/deps.sh names, the tests fetch Go toolchains and build guest
# images into its own empty cache. What a machine of this workplace gets
# at boot and not from Debian is copied in: the CA certificates of
# /usr/local/share/ca-certificates (an egress proxy's) and npm's settings.
# git is installed first (the new user cloned with it).
#
# Usage: tools/check-cold.sh [DIR]   (default /var/tmp/gostap-cold)
# DIR/root is the root (left there to look at; removed by the next run),
# DIR/check.log tools/check.sh's output with the time of each line,
# DIR/times the start, end and exit status. Prints the summary line and
# the time. Needs root. Takes what tools/check.sh takes from nothing
# (measured 2026-11-27 on a 2-core machine: testsuite/README.md, "A new
# machine"); keep the machine otherwise idle while it runs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
W=${1:-/var/tmp/gostap-cold}
R=$W/root
[ "$(id -u)" = 0 ] || { echo "check-cold.sh: needs root (debootstrap, namespaces)" >&2; exit 2; }
command -v debootstrap > /dev/null || { echo "check-cold.sh: no debootstrap (tools/deps.sh installs it)" >&2; exit 2; }
CACHE=$W . "$top/testsuite/debian-archive.sh"

rm -rf "$R" "$W/check.log" "$W/times"
mkdir -p "$W"
echo "check-cold.sh: debootstrap bookworm into $R" >&2
unshare --mount --propagation private \
  debootstrap --variant=minbase --arch=amd64 bookworm "$R" "$(archive_mirror)" > "$W/debootstrap.log" 2>&1 ||
  { tail -5 "$W/debootstrap.log" >&2; echo "check-cold.sh: debootstrap failed ($W/debootstrap.log)" >&2; exit 1; }
# This machine's suites (updates, security) and apt settings, as
# run-fresh.sh gives its root.
# shellcheck disable=SC2016
apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(IDENTIFIER)' 2>/dev/null |
  awk '$4 == "Packages" && ($2 == "bookworm" || index($2, "bookworm-") == 1) { print "deb", $1, $2, $3 }' |
  sort -u > "$W/sources.list"
[ -s "$W/sources.list" ] && cp "$W/sources.list" "$R/etc/apt/sources.list"
apt-config dump 2>/dev/null | grep -E '^Acquire::(Check-Valid-Until|Check-Date|https?::Proxy) ' \
  > "$R/etc/apt/apt.conf.d/90this-machine" || true
mkdir -p "$R/usr/local/share/ca-certificates" "$R/root/coldlog" "$R/.oldroot"
cp /usr/local/share/ca-certificates/*.crt "$R/usr/local/share/ca-certificates/" 2>/dev/null || true
for f in /etc/npmrc /root/.npmrc; do [ ! -f "$f" ] || cp "$f" "$R$f"; done
cp /etc/resolv.conf "$R/etc/resolv.conf.host"
git clone -q "$top" "$R/root/gostap"
echo "check-cold.sh: tools/check.sh of $(git -C "$R/root/gostap" log --oneline -1 | cut -c1-60)" >&2

cat > "$R/root/stage.sh" <<'EOF'
#!/bin/bash
umount -l /.oldroot
rm -f /etc/resolv.conf; mv /etc/resolv.conf.host /etc/resolv.conf
export HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
L=/root/coldlog
{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git; } > $L/git.log 2>&1 ||
  { echo "apt-get install git failed" > $L/times; exit 1; }
echo "start $(date +%s) $(date -u +%T)" > $L/times
cd /root/gostap && tools/check.sh < /dev/null 2>&1 |
  while IFS= read -r l; do printf '%(%T)T %s\n' -1 "$l"; done > $L/check.log
st=${PIPESTATUS[0]}
echo "exit $st" >> $L/times
echo "end $(date +%s) $(date -u +%T)" >> $L/times
EOF
unshare --mount --pid --fork --propagation private bash -c '
  R=$1
  mount --bind "$R" "$R" && mount -t proc proc "$R/proc" &&
    mount --rbind /sys "$R/sys" && mount --make-rslave "$R/sys" &&
    mount --rbind /dev "$R/dev" && mount --make-rslave "$R/dev" || exit 1
  cd "$R" && pivot_root . .oldroot && exec chroot . /usr/bin/env -i /bin/bash /root/stage.sh
' _ "$R" || true
cp "$R/root/coldlog/check.log" "$R/root/coldlog/times" "$W/" 2>/dev/null || true
[ -f "$W/times" ] || { echo "check-cold.sh: no result ($R/root/coldlog)" >&2; exit 1; }
start=$(awk '$1 == "start" { print $2 }' "$W/times")
end=$(awk '$1 == "end" { print $2 }' "$W/times")
st=$(awk '$1 == "exit" { print $2 }' "$W/times")
[ -n "$start" ] && [ -n "$end" ] || { cat "$W/times" >&2; exit 1; }
echo "check-cold.sh: $(tail -1 "$W/check.log" | cut -d' ' -f2-); tools/check.sh exit $st after $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s ($W/check.log)"
exit "$st"
