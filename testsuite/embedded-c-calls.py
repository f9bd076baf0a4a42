#!/usr/bin/env python3
"""embedded-c-calls.py ARCH TAPSET...: a SystemTap script that calls every
function of the static tapsets written in embedded C (`function NAME:TYPE
(ARGS) %{ ... %}`) that exists for ARCH (x86_64 or arm64), so that stap
-p4 compiles all of their C against a kernel (run-kbuild.sh).

Functions inside a top-level `%( arch == "A" %? ... %: ... %)` block of a
tapset count for the architectures that branch is for. Each call gets
arguments of its declared types (0, "") and its result is printed, so that
stap neither elides it nor needs a probed process (the handler never runs).
Prints the script on stdout; the functions' names on stderr, one line.
"""
import re
import sys

FUNC = re.compile(r"^function\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*(long|string))?\s*\(([^)]*)\)\s*(.*)$")


def functions(path, arch):
    """(name, type, [arg types]) of the embedded-C functions for ARCH."""
    out = []
    stack = []  # per open %( block: whether the current branch is for arch
    lines = open(path, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines):
        m = re.match(r'^%\(\s*arch\s*==\s*"([^"]+)"\s*%\?', line)
        if m:
            stack.append(m.group(1) == arch)
            continue
        if line.startswith("%:") and stack:
            stack[-1] = not stack[-1]
            continue
        if line.startswith("%)") and stack:
            stack.pop()
            continue
        # a declaration whose arguments go on over the next lines
        j = i
        while line.startswith("function") and "(" in line and ")" not in line \
                and j + 1 < len(lines):
            j += 1
            line += " " + lines[j].strip()
        m = FUNC.match(line)
        if not m or not all(stack):
            continue
        rest = m.group(4)
        nxt = lines[j + 1] if j + 1 < len(lines) else ""
        if not (rest.startswith("%{") or (rest == "" and nxt.startswith("%{"))):
            continue
        args = []
        for a in filter(None, (x.strip() for x in m.group(3).split(","))):
            args.append("string" if a.endswith(":string") else "long")
        out.append((m.group(1), m.group(2) or "long", args))
    return out


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("x86_64", "arm64"):
        sys.exit("usage: embedded-c-calls.py x86_64|arm64 TAPSET...")
    arch = sys.argv[1]
    funcs = []
    for path in sys.argv[2:]:
        funcs += functions(path, arch)
    if not funcs:
        sys.exit("embedded-c-calls.py: no embedded-C function in " + " ".join(sys.argv[2:]))
    print("// every embedded-C function of gostap's static tapsets for %s" % arch)
    print("probe begin {")
    for name, typ, args in funcs:
        call = "%s(%s)" % (name, ", ".join('""' if a == "string" else "0" for a in args))
        print('  printf("%s %s\\n", %s)' % (name, "%s" if typ == "string" else "%d", call))
    print("  exit()")
    print("}")
    print(" ".join(n for n, _, _ in funcs), file=sys.stderr)


if __name__ == "__main__":
    main()
