#!/usr/bin/env python3
"""Generate libgobin/abi-asm-table.h: Go assembly functions that use ABIInternal.

A Go binary's pclntab flags functions written in assembly (FuncFlagAsm).
Those functions use the stack-based ABI0 unless Go's own .s sources declare
them as `TEXT pkg·name<ABIInternal>(SB)`.  In an unstripped binary the
`.abi0` suffix in .symtab tells them apart; a stripped binary needs this
table, built from the Go source trees of several releases.

For each scanned release and each architecture (linux/amd64, linux/arm64)
the script walks $GOROOT/src (skipping cmd/, testdata/, _test.s files and
directories starting with '_' or '.'), keeps the .s files that build for
GOOS=linux and that GOARCH (file-name suffixes, //go:build or old // +build
lines; cgo evaluated both true and false, race and other optional tags
false, default GOEXPERIMENTs of that release true), runs a minimal
#ifdef/#ifndef/#else/#endif evaluation over them and collects every
`TEXT ...<ABIInternal>(SB)` declaration.

Usage:
    tools/gen-abi-asm-table.py [--goroot-base DIR] [--versions 1.19,1.21,...]
                               [-o libgobin/abi-asm-table.h]

By default the source trees are looked up in
~/.cache/gostap-test/go/<ver>/usr/share/go-<ver>/src
(populated by testsuite/go-toolchains.sh).  Python 3 standard library only.
"""

import argparse
import os
import re
import sys

DEFAULT_VERSIONS = ["1.19", "1.21", "1.22", "1.23", "1.24", "1.26", "1.27"]
DEFAULT_BASE = os.path.expanduser("~/.cache/gostap-test/go")

ARCHES = {"amd64": 1, "arm64": 2}
ARCH_ENUM = {"amd64": "ABI_ASM_AMD64", "arm64": "ABI_ASM_ARM64"}
# First Go minor release in which the register ABI was used, per arch.
# Used as min_minor for entries already present in the oldest scanned release.
REGABI_FIRST_MINOR = {"amd64": 17, "arm64": 18}
OPEN_MAX_MINOR = 99

# go/build syslist (union over releases; unknown entries do no harm).
KNOWN_OS = set("""aix android darwin dragonfly freebsd hurd illumos ios js
linux nacl netbsd openbsd plan9 solaris wasip1 wasi windows zos""".split())
KNOWN_ARCH = set("""386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips
mipsle mips64 mips64le mips64p32 mips64p32le ppc ppc64 ppc64le riscv riscv64
s390 s390x sparc sparc64 wasm""".split())
UNIX_OS = set("""aix android darwin dragonfly freebsd hurd illumos ios linux
netbsd openbsd solaris""".split())

GOOS = "linux"
VERBOSE = False


def src_root(base, ver):
    return os.path.join(base, ver, "usr", "share", "go-" + ver, "src")


def minor_of(ver):
    return int(ver.split(".")[1])


# ---------------------------------------------------------------- experiments

def default_experiments(src):
    """Lower-case names of GOEXPERIMENTs on by default in this release."""
    path = os.path.join(src, "internal", "buildcfg", "exp.go")
    exps = set()
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        return exps
    m = re.search(r"baseline\s*:=\s*goexperiment\.Flags\{(.*?)\n\t\}", text,
                  re.S)
    if not m:
        return exps
    for fm in re.finditer(r"(\w+)\s*:\s*([^,\n]+)", m.group(1)):
        field, val = fm.group(1), fm.group(2).strip()
        # Values are `true`, `regabiSupported`, `haveXchg8`, ... all true on
        # linux/amd64 and linux/arm64; only a literal false is off.
        if val != "false":
            exps.add(field.lower())
    return exps


# ------------------------------------------------------------ build constraints

def file_name_ok(fname, arch):
    """go/build goodOSArchFile for GOOS=linux, GOARCH=arch."""
    name = fname[:-2] if fname.endswith(".s") else fname
    i = name.find("_")
    if i < 0:
        return True
    parts = name[i:].split("_")
    n = len(parts)
    if n >= 2 and parts[n - 2] in KNOWN_OS and parts[n - 1] in KNOWN_ARCH:
        return match_os(parts[n - 2]) and parts[n - 1] == arch
    if n >= 1:
        if parts[n - 1] in KNOWN_OS:
            return match_os(parts[n - 1])
        if parts[n - 1] in KNOWN_ARCH:
            return parts[n - 1] == arch
    return True


def match_os(tag):
    return tag == GOOS  # android implies linux, not the reverse


class TagCtx:
    def __init__(self, arch, minor, exps, cgo):
        self.arch, self.minor, self.exps, self.cgo = arch, minor, exps, cgo

    def tag(self, t):
        if t == GOOS or t == self.arch or t == "gc":
            return True
        if t == "unix":
            return GOOS in UNIX_OS
        if t == "cgo":
            return self.cgo
        if t.startswith("go1."):
            try:
                return int(t[4:]) <= self.minor
            except ValueError:
                return False
        if t.startswith("goexperiment."):
            return t[len("goexperiment."):] in self.exps
        # Micro-architecture levels: baseline only (amd64.v1, arm64.v8.0).
        if t == self.arch + ".v1" or t == self.arch + ".v8.0":
            return True
        return False  # race, msan, asan, purego, gccgo, other OS/arch, ...


def eval_go_build(expr, ctx):
    toks = re.findall(r"\(|\)|!|&&|\|\||[^\s()!&|]+", expr)
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def nxt():
        t = peek()
        pos[0] += 1
        return t

    def p_or():
        v = p_and()
        while peek() == "||":
            nxt()
            v = p_and() or v
        return v

    def p_and():
        v = p_not()
        while peek() == "&&":
            nxt()
            v = p_not() and v
        return v

    def p_not():
        t = nxt()
        if t == "!":
            return not p_not()
        if t == "(":
            v = p_or()
            if nxt() != ")":
                raise ValueError("unbalanced parens in %r" % expr)
            return v
        if t is None:
            raise ValueError("bad expression %r" % expr)
        return ctx.tag(t)

    v = p_or()
    if peek() is not None:
        raise ValueError("trailing tokens in %r" % expr)
    return v


def eval_plus_build(lines, ctx):
    for line in lines:  # lines ANDed; space-separated ORed; comma ANDed
        ok = False
        for opt in line.split():
            if all(not ctx.tag(t[1:]) if t.startswith("!") else ctx.tag(t)
                   for t in opt.split(",")):
                ok = True
                break
        if not ok:
            return False
    return True


def header_constraints(text):
    """Return (go_build_expr or None, [plus_build_lines]) from the header."""
    gobuild, plus = None, []
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("//"):
            m = re.match(r"//go:build\s+(.*)$", s)
            if m:
                gobuild = m.group(1).strip()
            m = re.match(r"//\s*\+build\s+(.*)$", s)
            if m:
                plus.append(m.group(1).strip())
            continue
        if s.startswith("/*"):  # block comments are rare; stop here
            break
        break
    return gobuild, plus


def builds(text, ctx):
    gobuild, plus = header_constraints(text)
    if gobuild is not None:
        return eval_go_build(gobuild, ctx)
    if plus:
        return eval_plus_build(plus, ctx)
    return True


# ------------------------------------------------------------- preprocessing

TEXT_RE = re.compile(r"^\s*TEXT\s+([^\s(<]*)<ABIInternal>\s*\(SB\)")
COND_RE = re.compile(r"^\s*#\s*(ifdef|ifndef|if|elif|else|endif|define|undef)"
                     r"\b\s*(\S*)")


def asm_abiinternal(text, arch, exps, warn):
    """Yield raw symbol names of <ABIInternal> TEXT lines that are live."""
    defined = {"GOOS_" + GOOS, "GOARCH_" + arch}
    defined |= {"GOEXPERIMENT_" + e for e in exps}
    if arch == "amd64":
        defined.add("GOAMD64_v1")
    stack = []  # list of [active_now, parent_active, taken]
    active = True
    cont = False
    for lineno, line in enumerate(text.splitlines(), 1):
        if cont:  # continuation of a multi-line #define
            cont = line.rstrip().endswith("\\")
            continue
        m = COND_RE.match(line)
        if m:
            d, arg = m.group(1), m.group(2)
            if d in ("ifdef", "ifndef"):
                v = arg in defined
                if d == "ifndef":
                    v = not v
                stack.append([active, v])
                active = active and v
            elif d == "if":
                stack.append([active, True])
                warn("#if not evaluated (assumed true)", lineno, line)
            elif d == "elif":
                warn("#elif not evaluated (assumed false)", lineno, line)
                stack[-1][1] = True
                active = False
            elif d == "else":
                parent, taken = stack[-1]
                active = parent and not taken
                stack[-1][1] = True
            elif d == "endif":
                active = stack.pop()[0]
            elif d == "define":
                if active:
                    defined.add(arg.split("(")[0])
                cont = line.rstrip().endswith("\\")
            elif d == "undef":
                if active:
                    defined.discard(arg)
            continue
        t = TEXT_RE.match(line)
        if t:
            if active:
                yield t.group(1)
            elif VERBOSE:
                warn("ABIInternal TEXT in inactive #ifdef block", lineno, line)


def go_name(raw, pkgpath):
    # pkgpath is the directory relative to src/.  Std-vendored packages keep
    # their "vendor/" prefix: pclntab/symtab name them e.g.
    # "vendor/golang.org/x/sys/cpu.cpuid" (checked on a go1.24 binary).
    raw = raw.replace("\u2215", "/")  # '∕' (division slash) in asm = '/'
    if raw.startswith("\u00b7"):
        return pkgpath + "." + raw[1:]
    return raw.replace("\u00b7", ".")


# ----------------------------------------------------------------- scanning

def scan(src, ver, arch):
    """Return {name: set(cgo_values)} of ABIInternal asm funcs."""
    minor = minor_of(ver)
    exps = default_experiments(src)
    found = {}
    for dirpath, dirnames, filenames in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        rel = "" if rel == "." else rel.replace(os.sep, "/")
        dirnames[:] = sorted(
            d for d in dirnames
            if d != "testdata" and not d.startswith((".", "_"))
            and not (rel == "" and d == "cmd"))
        if rel == "":
            continue  # no package in src/ itself
        for fname in sorted(filenames):
            if not fname.endswith(".s") or fname.endswith("_test.s"):
                continue
            if fname.startswith((".", "_")):
                continue
            if not file_name_ok(fname, arch):
                continue
            path = os.path.join(dirpath, fname)
            text = open(path, encoding="utf-8").read()
            cgo_vals = [c for c in (False, True)
                        if builds(text, TagCtx(arch, minor, exps, c))]
            if not cgo_vals:
                continue

            def warn(msg, lineno, line, _p=path):
                print("warning: %s/%s: %s:%d: %s: %s" % (
                    ver, arch, os.path.relpath(_p, src), lineno, msg,
                    line.strip()), file=sys.stderr)

            for raw in asm_abiinternal(text, arch, exps, warn):
                name = go_name(raw, rel)
                found.setdefault(name, set()).update(cgo_vals)
    return found


def ranges(present, scanned_minors, arch):
    """Merge the scanned minors where a symbol is present into ranges."""
    out = []
    run = None
    for i, m in enumerate(scanned_minors):
        if m in present:
            if run is None:
                run = [i, i]
            else:
                run[1] = i
        elif run is not None:
            out.append(run)
            run = None
    if run is not None:
        out.append(run)
    res = []
    for a, b in out:
        lo = scanned_minors[a]
        hi = scanned_minors[b]
        if a == 0:
            lo = min(lo, REGABI_FIRST_MINOR[arch])
        if b == len(scanned_minors) - 1:
            hi = OPEN_MAX_MINOR
        res.append((lo, hi))
    return res


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--goroot-base", default=DEFAULT_BASE)
    ap.add_argument("--versions", default=",".join(DEFAULT_VERSIONS))
    ap.add_argument("-o", "--output", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src",
        "abi-asm-table.h"))
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="report <ABIInternal> TEXT lines in inactive blocks")
    args = ap.parse_args()
    global VERBOSE
    VERBOSE = args.verbose

    versions = sorted(args.versions.split(","), key=minor_of)
    minors = [minor_of(v) for v in versions]
    release = {}
    # (name, arch) -> {minor: cgo_vals}
    table = {}
    for ver in versions:
        src = src_root(args.goroot_base, ver)
        if not os.path.isdir(src):
            sys.exit("error: %s missing (run testsuite/go-toolchains.sh)" % src)
        try:
            # Debian-style layout: VERSION lives in /usr/lib/go-<ver>.
            vfile = os.path.join(args.goroot_base, ver, "usr", "lib",
                                 "go-" + ver, "VERSION")
            if not os.path.exists(vfile):
                vfile = os.path.join(src, "..", "VERSION")
            release[ver] = open(vfile, encoding="utf-8").readline().strip()
        except OSError:
            release[ver] = "go" + ver
        for arch in ARCHES:
            for name, cgo_vals in scan(src, ver, arch).items():
                table.setdefault((name, arch), {})[minor_of(ver)] = cgo_vals

    entries = []
    for (name, arch), per in table.items():
        cgo_only = all(per[m] == {True} for m in per)
        for lo, hi in ranges(set(per), minors, arch):
            entries.append((name, ARCHES[arch], lo, hi, arch, cgo_only))
    entries.sort(key=lambda e: (e[0].encode("utf-8"), e[1], e[2]))

    out = []
    w = out.append
    w("/* abi-asm-table.h - Go assembly functions that use ABIInternal.")
    w(" *")
    w(" * GENERATED FILE - DO NOT EDIT.")
    w(" * Generated by tools/gen-abi-asm-table.py from the Go source trees of")
    w(" * " + ", ".join(release[v] for v in versions) + ".")
    w(" * Regenerate with:")
    w(" *   testsuite/go-toolchains.sh   # fetch the Go releases if missing")
    w(" *   python3 tools/gen-abi-asm-table.py -o libgobin/abi-asm-table.h")
    w(" *")
    w(" * Functions flagged FuncFlagAsm in pclntab use ABI0 (arguments on the")
    w(" * stack) unless listed here for the binary's Go minor version and arch.")
    w(" * Only .s files building for GOOS=linux and the arch are considered")
    w(" * (no race/msan/... tags, default GOEXPERIMENTs); files that build only")
    w(" * with cgo are included too (entries found only in such files carry a")
    w(" * trailing cgo-only comment).")
    w(" * min_minor/max_minor are inclusive Go 1.x minor versions; unscanned")
    w(" * minors between two scanned releases that agree are included, an")
    w(" * entry present in the oldest scanned release starts at the first")
    w(" * register-ABI release (1.%d amd64, 1.%d arm64), and max_minor %d"
      % (REGABI_FIRST_MINOR["amd64"], REGABI_FIRST_MINOR["arm64"],
         OPEN_MAX_MINOR))
    w(" * means still ABIInternal in the newest scanned release.")
    w(" * File-local asm functions (TEXT name<>(SB)) are always ABI0 and never")
    w(" * listed; note that their .symtab names carry no .abi0 suffix either,")
    w(" * and with external (cgo) linking every Go symbol is STB_LOCAL.")
    w(" * Names are as in pclntab: import path + '.' + function. Sorted by name")
    w(" * (bytewise), then arch, then min_minor.")
    w(" */")
    w("#ifndef GOSTAP_ABI_ASM_TABLE_H")
    w("#define GOSTAP_ABI_ASM_TABLE_H")
    w("")
    w("struct abi_asm_entry {")
    w("\tconst char *name;")
    w("\tunsigned char arch;")
    w("\tunsigned char min_minor;")
    w("\tunsigned char max_minor;")
    w("};")
    w("")
    w("enum { ABI_ASM_AMD64 = 1, ABI_ASM_ARM64 = 2 };")
    w("")
    w("static const struct abi_asm_entry abi_asm_internal[] = {")
    for name, _, lo, hi, arch, cgo_only in entries:
        w("\t{ %s, %s, %d, %d },%s" % (c_string(name), ARCH_ENUM[arch], lo, hi,
                                      " /* cgo-only */" if cgo_only else ""))
    w("};")
    w("")
    w("#define ABI_ASM_INTERNAL_COUNT "
      "(sizeof(abi_asm_internal) / sizeof(abi_asm_internal[0]))")
    w("")
    w("#endif /* GOSTAP_ABI_ASM_TABLE_H */")
    data = "\n".join(out) + "\n"
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(data)
    print("wrote %s: %d entries" % (os.path.normpath(args.output),
                                    len(entries)), file=sys.stderr)


if __name__ == "__main__":
    main()
