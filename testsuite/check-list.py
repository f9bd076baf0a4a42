#!/usr/bin/env python3
"""Check `gostap list --json BINARY` against tools that do not share its code.

Usage: check-list.py [--json FILE] BINARY GOROOT VARIANT [TWIN]

  BINARY   a Go binary (one of the fixtures built by build-fixtures.sh)
  GOROOT   the Go toolchain that built it (for `go version` and `go tool nm`)
  VARIANT  the build variant (default, w, sw, pie, arm64, cgo): informational,
           printed in the TAP descriptions
  TWIN     optional: the JSON of gostap's listing of an unstripped twin (the
           same source built by the same toolchain without -s/-w), or that
           binary itself; the function tables must be identical
  --json FILE  check FILE instead of running gostap (to develop the checker
           against a hand-made listing)

Environment: GOSTAP, the gostap program (required unless --json is given).

The independent references are:
  * `$GOROOT/bin/go version [-m] BINARY`     - go_version, CGO_ENABLED
  * the ELF header and section headers       - arch, has_symtab, has_dwarf
    (read here with a few lines of struct parsing)
  * `$GOROOT/bin/go tool nm -size -type`     - function names, entries, ends
  * `objdump -d -z --no-show-raw-insn` of all - RET sites, tail exits, body
    executable sections (aarch64-linux-gnu-objdump for arm64 binaries)
  * `objdump --dwarf=decodedline`            - file and line of each entry

The checks (one TAP line each):
  ranges   functions are sorted and their [entry,end) disjoint
  a        go_version is what `go version BINARY` prints after the name
           (with a GOEXPERIMENT build's " X:...")
  b        arch, has_symtab, has_dwarf agree with the ELF headers
  b2       pie (ET_DYN), external_link (.init section), cgo (the CGO_ENABLED
           build setting of `go version -m`)
  c        (.symtab) every function has an nm symbol of its name at its entry
           and every nm text symbol in [runtime.text, runtime.etext) is a
           function; abi is abi0 for NAME.abi0 symbols and internal for
           plain names with a .abi0 twin or compiled from a .go file
  c-end    (.symtab) end is entry + nm size, or the next entry when only
           alignment padding lies between
  d        returns are exactly objdump's RET instructions inside functions
  e        tail_exits are direct jumps whose target is outside the function
  f        body is an instruction boundary after a conditional branch
  f2       body is the instruction after the stack check's branch(es) to
           runtime.morestack* (found in objdump), or the entry without one
  abi0-tls (amd64) functions loading g from TLS into R14 at entry are abi0
  undec    undecoded_at words are no RET or branch in objdump
  g        (TWIN) the function table equals the twin's
  h        (DWARF) file:line is the line-table row at the entry

Output: TAP, one line per check ("ok N - ..." / "not ok N - ..."), up to
MAXDIAG "# " lines describing the first mismatches of each check, the plan
"1..N", and a last line
  # counts: functions=N entries=N rets=N tail_exits=N bodies=N lines=N twin=N mismatches=N
Exit status: 0 all checks passed, 1 some check failed, 99 a tool (gostap,
go, objdump) could not be run or its output not understood.
"""

import bisect
import json
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gostaptest import Tap, gostap_list, pclntab_abbreviated  # noqa: E402
import gostaptest  # noqa: E402


def die(msg):
    gostaptest.die("check-list.py", msg)


def run(argv):
    """Run argv, return its stdout; a hard error if it fails."""
    return gostaptest.run("check-list.py", argv)


def hexs(a):
    return f"{a:#x}"


# ---------------------------------------------------------------- ELF headers

EM_X86_64, EM_AARCH64 = 62, 183
SHF_EXECINSTR = 0x4


def elf_info(path):
    """Type, machine and sections (name -> type, flags, addr, size) from the
    ELF64 little-endian headers."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        die(f"{path}: not a little-endian ELF64 file")
    etype, machine = struct.unpack_from("<HH", data, 16)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size = struct.unpack_from(
            "<IIQQQQ", data, shoff + i * shentsize)
        secs.append([name, typ, flags, addr, off, size])
    stroff = secs[shstrndx][4]
    sections = {}
    for name, typ, flags, addr, off, size in secs:
        end = data.index(b"\0", stroff + name)
        sections[data[stroff + name:end].decode()] = (typ, flags, addr, size)
    return etype, machine, sections


# ------------------------------------------------------------------- objdump

class Insn:
    __slots__ = ("addr", "mnem", "ops")

    def __init__(self, addr, mnem, ops):
        self.addr, self.mnem, self.ops = addr, mnem, ops

    def __str__(self):
        return f"'{self.mnem} {self.ops}'" if self.ops else f"'{self.mnem}'"


# amd64 prefixes objdump prints before the mnemonic.
X86_PREFIXES = {"bnd", "notrack", "repz", "rep", "repnz", "repne", "lock",
                "cs", "ds", "es", "ss", "fs", "gs", "data16", "addr32",
                "rex", "rex.W", "rex.B", "rex.R", "rex.X", "rex.WB", "rex.WR",
                "rex.WX", "rex.RB", "rex.RX", "rex.XB", "rex.WRB", "rex.WXB",
                "rex.WRX", "rex.RXB", "rex.WRXB"}
OD_LINE = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
# The target of a direct branch: the last operand, "401234 <sym+0x10>", or
# "0x401234" when the binary has no symbols; arm64 may add "// b.plast".
TARGET = re.compile(r"(?:^|[\s,])(?:0x)?([0-9a-f]+)(?:\s+<[^>]*>)?\s*(?://.*)?$")


def objdump(path, arm64):
    """All instructions objdump decodes in the executable sections, sorted."""
    if arm64:
        tool = shutil.which("aarch64-linux-gnu-objdump") or "objdump"
    else:
        tool = "objdump"
    # -z: do not elide runs of zero bytes ("..."): arm64 padding and the
    # go:textfips* markers of Go 1.24+ are zeros and need their boundaries.
    out = run([tool, "-d", "-z", "--no-show-raw-insn", "-w", path])
    insns = []
    for line in out.splitlines():
        m = OD_LINE.match(line)
        if not m:
            continue
        text = m.group(2).strip()
        words = text.split(None, 1)
        if not words:
            continue
        mnem, ops = words[0], (words[1] if len(words) > 1 else "")
        if not arm64:
            while mnem in X86_PREFIXES and ops:
                w = ops.split(None, 1)
                mnem, ops = w[0], (w[1] if len(w) > 1 else "")
        insns.append(Insn(int(m.group(1), 16), mnem, ops.strip()))
    insns.sort(key=lambda i: i.addr)
    return insns, tool


def is_ret(insn, arm64):
    if arm64:
        return insn.mnem == "ret"               # "ret" or "ret xN"
    return insn.mnem in ("ret", "retq", "retw", "retl")  # also "ret $imm"


def direct_jump(insn, arm64):
    """(conditional, target) for a direct jump, else None. Calls (call, bl)
    are not jumps."""
    m = insn.mnem
    if arm64:
        if m == "b":
            cond = False
        elif m.startswith("b.") or m in ("cbz", "cbnz", "tbz", "tbnz"):
            cond = True
        else:
            return None
    else:
        if m in ("jmp", "jmpq"):
            cond = False
        elif m.startswith("j") or m in ("loop", "loope", "loopne"):
            cond = True
        else:
            return None
        if insn.ops.startswith("*"):             # jmp *%rax: indirect
            return None
    t = TARGET.search(insn.ops)
    if not t:
        return None
    return cond, int(t.group(1), 16)


def is_cond_branch(insn, arm64):
    j = direct_jump(insn, arm64)
    return j is not None and j[0]


def call_target(insn, arm64):
    """Target of a direct call (call / bl), else None."""
    if insn.mnem not in (("bl",) if arm64 else ("call", "callq")) or insn.ops.startswith("*"):
        return None
    t = TARGET.search(insn.ops)
    return int(t.group(1), 16) if t else None


def is_padding(insn, arm64):
    """Alignment padding between Go functions: INT3 on amd64, zero words
    (shown as udf #0 or .inst 0x00000000) on arm64."""
    if arm64:
        return (insn.mnem == "udf" and insn.ops.startswith("#0")) or \
               (insn.mnem == ".inst" and insn.ops.startswith("0x00000000"))
    return insn.mnem == "int3"


# ---------------------------------------------------------------- go tool nm

def go_nm(goroot, path):
    """Text symbols (addr, size, name) from Go's own nm, which reads .symtab."""
    out = run([os.path.join(goroot, "bin", "go"), "tool", "nm", "-size", "-type", path])
    syms = []
    for line in out.splitlines():
        # "  401000        85 T name with possible spaces"; undefined symbols
        # of cgo binaries have no address and are skipped.
        p = line.split(None, 3)
        if len(p) == 4 and p[2] in ("T", "t") and re.fullmatch(r"[0-9a-f]+", p[0]):
            syms.append((int(p[0], 16), int(p[1]), p[3]))
    return syms


def names_match(json_name, nm_name):
    """Whether a pclntab name (the JSON) and a .symtab name are the same
    function, allowing the two legitimate differences in how Go writes them:
      * Go 1.18-1.20 pclntabs elide everything from the first '[' to the
        last ']' (gostaptest.pclntab_abbreviated), while .symtab keeps the
        full name;
      * .symtab writes the middle dot '·' of compiler-generated names
        (type:.eq.runtime.untracedG·7) as '.'."""
    if json_name == nm_name:
        return True
    a = json_name.replace("\u00b7", ".")
    b = nm_name.replace("\u00b7", ".")
    if a == b:
        return True
    return "[...]" in a and a == pclntab_abbreviated(b)


# ------------------------------------------------------- DWARF line program

def decoded_lines(path):
    """addr -> (file, line) of the last row at that address, from
    objdump --dwarf=decodedline (end-of-sequence rows, line '-', are skipped).

    objdump prints each run of rows under a header naming the file: the full
    path when the file table gives a directory, the bare name when the file
    lies in the CU's comp_dir (Go's assembly CUs), and '?' for files it cannot
    name (Go 1.25+ DWARF 5 under binutils 2.40); the rows themselves carry
    the base name (and a header is not always repeated when the file changes
    to <autogenerated>). The file is the header when it is absolute and has
    the row's base name, else the row's name."""
    out = run(["objdump", "--dwarf=decodedline", path])
    rows = {}
    cur = None
    for line in out.splitlines():
        if not line.strip() or line.startswith(("File name", "Contents of")) or \
           "file format" in line:
            continue
        m = re.match(r"^(.*?):(\[\+\+\])?$", line)
        if m and "0x" not in line:
            cur = m.group(1)
            continue
        # "name  line  0xaddr  [view]  [x]": find the address column.
        cols = line.split()
        k = next((i for i, c in enumerate(cols) if c.startswith("0x")), None)
        if k is None or k < 2 or cur is None:
            continue
        name, ln = " ".join(cols[:k - 1]), cols[k - 1]
        if ln == "-":
            continue
        try:
            same = cur.startswith("/") and os.path.basename(cur) == name
            rows[int(cols[k], 16)] = (cur if same else name, int(ln))
        except ValueError:
            pass
    return rows


# ---------------------------------------------------------------- the checks

def main():
    args = sys.argv[1:]
    json_file = None
    if args[:1] == ["--json"]:
        if len(args) < 2:
            die("--json needs a file")
        json_file, args = args[1], args[2:]
    if len(args) not in (3, 4):
        print(__doc__, file=sys.stderr)
        sys.exit(99)
    binary, goroot, variant = args[:3]
    twin = args[3] if len(args) == 4 else None
    binary = os.path.abspath(binary)
    what = f"{os.path.basename(binary)} [{variant}]"

    if json_file:
        with open(json_file) as f:
            doc = json.load(f)
    else:
        doc = gostap_list("check-list.py", binary)

    funcs = doc.get("functions") or []
    for f in funcs:
        for k in ("entry", "body", "end"):
            f["_" + k] = int(f[k], 16)
    funcs.sort(key=lambda f: f["_entry"])
    entries = [f["_entry"] for f in funcs]
    counts = dict(functions=len(funcs), entries=0, rets=0, tail_exits=0,
                  bodies=0, lines=0, twin=0)
    tap = Tap()

    etype, machine, sections = elf_info(binary)
    arm64 = machine == EM_AARCH64

    # Ranges of the function table must not overlap: everything below
    # attributes an address to the function whose [entry,end) holds it.
    probs = []
    for a, b in zip(funcs, funcs[1:]):
        if not a["_entry"] < a["_end"] <= b["_entry"]:
            probs.append(f"{a['name']} [{a['entry']},{a['end']}) overlaps {b['name']} at {b['entry']}")
    tap.check(f"{what}: function ranges are sorted and disjoint", probs)

    # a. go_version: what `go version BINARY` prints after the name, the
    # version runtime.Version() returns: "go1.24.4", or with the build's
    # experiments, "go1.24.4 X:noswissmap" (GOEXPERIMENT builds).
    gv = run([os.path.join(goroot, "bin", "go"), "version", binary])
    first = gv.splitlines()[0] if gv else ""
    want = first[len(binary) + 1:].strip() if first.startswith(binary + ":") else first.strip()
    tap.check(f"{what}: go_version {doc.get('go_version')!r} is `go version`'s {want!r}",
              [] if doc.get("go_version") == want else
              [f"gostap {doc.get('go_version')!r}, go version {gv.strip()!r}"])

    # b. arch, and the presence of .symtab and DWARF.
    want_arch = {EM_X86_64: "x86_64", EM_AARCH64: "aarch64"}.get(machine, f"e_machine {machine}")
    has_symtab = ".symtab" in sections
    has_dwarf = ".debug_info" in sections or ".zdebug_info" in sections
    probs = []
    if doc.get("arch") != want_arch:
        probs.append(f"arch: gostap {doc.get('arch')!r}, ELF header {want_arch!r}")
    if doc.get("has_symtab") != has_symtab:
        probs.append(f"has_symtab: gostap {doc.get('has_symtab')}, section headers {has_symtab}")
    if doc.get("has_dwarf") != has_dwarf:
        probs.append(f"has_dwarf: gostap {doc.get('has_dwarf')}, section headers {has_dwarf}")
    tap.check(f"{what}: arch {want_arch}, has_symtab {has_symtab}, has_dwarf {has_dwarf}", probs)

    # b2. pie: the ELF type is ET_DYN. external_link: gcc's crti.o brings an
    # .init section, which Go's internal linker never writes. cgo: the
    # CGO_ENABLED build setting recorded in the binary (`go version -m`,
    # Go 1.18+); the fixtures are built so that it is 1 exactly when
    # runtime/cgo is linked in (the cgo fixture imports "C").
    probs = []
    want_pie = etype == 3
    want_ext = ".init" in sections
    if doc.get("pie") != want_pie:
        probs.append(f"pie: gostap {doc.get('pie')}, ELF type {etype}")
    if "external_link" in doc and doc.get("external_link") != want_ext:
        probs.append(f"external_link: gostap {doc.get('external_link')}, .init section {want_ext}")
    gm = run([os.path.join(goroot, "bin", "go"), "version", "-m", binary])
    m = re.search(r"^\s*build\s+CGO_ENABLED=(\d)", gm, re.M)
    want_cgo = None if m is None else m.group(1) == "1"
    if want_cgo is not None and doc.get("cgo") != want_cgo:
        probs.append(f"cgo: gostap {doc.get('cgo')}, go version -m: CGO_ENABLED={m.group(1)}")
    tap.check(f"{what}: pie {want_pie}, external_link {want_ext}, cgo {want_cgo}", probs)

    insns, odtool = objdump(binary, arm64)
    iaddr = [i.addr for i in insns]
    at = {i.addr: k for k, i in enumerate(insns)}

    def insn_at(a):
        k = at.get(a)
        return insns[k] if k is not None else None

    def func_of(a):
        k = bisect.bisect_right(entries, a) - 1
        if k >= 0 and a < funcs[k]["_end"]:
            return funcs[k]
        return None

    # c. names, entries and ends against .symtab (go tool nm).
    if not has_symtab:
        tap.check(f"{what}: functions and entries are go tool nm's text symbols", [],
                  skip="no .symtab")
        tap.check(f"{what}: end is entry + nm size, or the next entry after padding", [],
                  skip="no .symtab")
    else:
        syms = go_nm(goroot, binary)
        byname = {s[2]: s[0] for s in syms}
        if "runtime.text" not in byname or "runtime.etext" not in byname:
            die("go tool nm shows no runtime.text / runtime.etext")
        lo, hi = byname["runtime.text"], byname["runtime.etext"]
        # Text symbols that are not pclntab functions, excluded with reason:
        #  * runtime.text and runtime.etext: size-0 markers at the start and
        #    end of Go's text (runtime.text shares its address with the
        #    first function);
        #  * everything outside [runtime.text, runtime.etext): C code of
        #    cgo / externally linked binaries (crt1's _start, _init, _fini,
        #    frame_dummy, the cgo C wrappers _cgo_*, libgcc), which the
        #    external linker places before and after Go's text.
        gosyms = [s for s in syms if lo <= s[0] < hi and s[2] not in ("runtime.text", "runtime.etext")]
        symat = {}
        for s in gosyms:
            symat.setdefault(s[0], []).append(s)
        probs = []
        fentries = set(entries)
        for f in funcs:
            cands = symat.get(f["_entry"], [])
            ok = False
            for a, size, name in cands:
                if name.endswith(".abi0") and names_match(f["name"], name[:-5]):
                    if f.get("abi") != "abi0":
                        probs.append(f"{f['name']} at {f['entry']}: .symtab names it {name}, gostap abi {f.get('abi')!r}")
                    ok = True
                elif names_match(f["name"], name):
                    # The linker adds .abi0 to an ABI0 symbol only when an
                    # ABIInternal one has the same name, so a plain name is
                    # ABIInternal if its .abi0 twin exists, and a plain-named
                    # function compiled from Go (file *.go) has no ABI0 twin
                    # and is ABIInternal too. Plain-named assembly (*.s) may
                    # be either (TEXT f<ABIInternal>): not checked.
                    if (name + ".abi0" in byname or str(f.get("file", "")).endswith(".go")) \
                            and f.get("abi") != "internal":
                        why = "its .abi0 twin exists" if name + ".abi0" in byname \
                            else f"it is compiled from {os.path.basename(f['file'])}"
                        probs.append(f"{f['name']} at {f['entry']}: .symtab names it {name} "
                                     f"and {why}, gostap abi {f.get('abi')!r}")
                    ok = True
            if not ok:
                probs.append(f"{f['name']} at {f['entry']}: no nm symbol of that name there "
                             f"(nm: {', '.join(s[2] for s in cands) or 'nothing'})")
            else:
                counts["entries"] += 1
        for a, size, name in gosyms:
            if a not in fentries:
                fo = func_of(a)
                probs.append(f"nm {name} at {hexs(a)} (size {size}) is no function entry in gostap"
                             + (f" (inside {fo['name']})" if fo else ""))
        tap.check(f"{what}: functions, entries and ABIs agree with go tool nm's text symbols in "
                  f"[runtime.text {hexs(lo)}, runtime.etext {hexs(hi)})", probs)

        # end: Go's .symtab sizes exclude the alignment padding after a
        # function, while a pclntab function ends where the next begins; the
        # listing of a binary without .symtab can only use the latter, and
        # check g requires the two to agree. So end must be entry + nm size,
        # or lie beyond it with only padding instructions in between.
        probs = []
        padded = 0
        for f in funcs:
            sizes = [s[1] for s in symat.get(f["_entry"], []) if s[1]]
            if not sizes:
                continue
            nmend = f["_entry"] + max(sizes)
            if f["_end"] == nmend:
                continue
            if f["_end"] < nmend:
                probs.append(f"{f['name']}: end {f['end']} < entry+nm size {hexs(nmend)}")
                continue
            # Instructions starting at or after entry+size must be padding
            # (an instruction straddling it, as in the 1-byte go:textfips*
            # markers on arm64, belongs to the function).
            k = bisect.bisect_left(iaddr, nmend)
            bad = None
            while k < len(iaddr) and iaddr[k] < f["_end"]:
                if not is_padding(insns[k], arm64):
                    bad = f"{hexs(iaddr[k])} is {insns[k]}, not padding"
                    break
                k += 1
            # ... and the padding ends at the next function.
            nxt = bisect.bisect_right(entries, f["_entry"])
            if bad is None and nxt < len(entries) and f["_end"] != entries[nxt]:
                bad = f"the next function begins at {hexs(entries[nxt])}"
            if bad:
                probs.append(f"{f['name']}: end {f['end']} != entry+nm size {hexs(nmend)}: {bad}")
            else:
                padded += 1
        tap.check(f"{what}: end is entry + nm size, or the next entry with only padding "
                  f"between ({padded} padded)", probs)

    # d. RET sites: objdump's rets inside functions == the union of "returns".
    probs = []
    listed = {}
    for f in funcs:
        for r in f.get("returns", []):
            listed[int(r, 16)] = f
    found = set()
    for i in insns:
        if is_ret(i, arm64):
            f = func_of(i.addr)
            if f is None:
                continue            # C code, PLT, crt: not a Go function
            found.add(i.addr)
            if i.addr not in listed:
                probs.append(f"{f['name']}: objdump has {i} at {hexs(i.addr)}, "
                             f"not in returns")
            elif listed[i.addr] is not f:
                probs.append(f"{hexs(i.addr)} is in {f['name']} but listed under {listed[i.addr]['name']}")
    for a, f in sorted(listed.items()):
        if a not in found:
            i = insn_at(a)
            probs.append(f"{f['name']}: returns lists {hexs(a)}, objdump has "
                         + (str(i) if i else "no instruction boundary") + " there")
    counts["rets"] = len(found & set(listed))
    tap.check(f"{what}: returns are exactly objdump's RET instructions ({odtool}; {counts['rets']} rets)", probs)

    # e. tail exits: direct jumps leaving [entry,end).
    probs = []
    for f in funcs:
        for t in f.get("tail_exits", []):
            a = int(t, 16)
            i = insn_at(a)
            j = direct_jump(i, arm64) if i else None
            if not f["_entry"] <= a < f["_end"]:
                probs.append(f"{f['name']}: tail exit {t} outside the function")
            elif i is None:
                probs.append(f"{f['name']}: tail exit {t} is no instruction boundary in objdump")
            elif j is None:
                probs.append(f"{f['name']}: tail exit {t} is {i}, not a direct jump")
            elif f["_entry"] <= j[1] < f["_end"]:
                probs.append(f"{f['name']}: tail exit {t} {i} jumps inside the function")
            else:
                counts["tail_exits"] += 1
    # Informational: direct jumps leaving a function that gostap does not list.
    unlisted = []
    for i in insns:
        j = direct_jump(i, arm64)
        if j is None:
            continue
        f = func_of(i.addr)
        if f and not f["_entry"] <= j[1] < f["_end"] and hexs(i.addr) not in f.get("tail_exits", []):
            unlisted.append(f"{f['name']} {hexs(i.addr)} {i}")
    tap.check(f"{what}: tail_exits are direct jumps out of their function ({counts['tail_exits']})", probs)
    if unlisted:
        print(f"# note: {len(unlisted)} direct jumps out of a function not in tail_exits, e.g. "
              + "; ".join(unlisted[:3]))

    # f. body: an instruction boundary in [entry,end), after a conditional
    # branch (the stack check's jbe / b.ls) unless it is the entry.
    probs = []
    for f in funcs:
        b = f["_body"]
        if not f["_entry"] <= b < f["_end"]:
            probs.append(f"{f['name']}: body {f['body']} outside [{f['entry']},{f['end']})")
            continue
        k = at.get(b)
        if k is None:
            probs.append(f"{f['name']}: body {f['body']} is no instruction boundary in objdump")
            continue
        if b != f["_entry"]:
            prev = insns[k - 1] if k > 0 else None
            if prev is None or not is_cond_branch(prev, arm64):
                probs.append(f"{f['name']}: instruction before body {f['body']} is "
                             + (f"{prev} at {hexs(prev.addr)}" if prev else "nothing")
                             + ", not a conditional branch")
                continue
        counts["bodies"] += 1
    tap.check(f"{what}: body is an instruction boundary after the stack check ({counts['bodies']})", probs)

    # f2. body found independently: Go's stack check is a conditional branch
    # near the entry to a block that calls runtime.morestack* (after
    # spilling argument registers) and jumps back; runtime functions that
    # must run on the system stack compare against stackguard1 and branch to
    # runtime.morestackc (which throws). Big frames have two such branches
    # (SP - framesize wraps around; framesize vs stackguard0): the body
    # follows the last one. Only branches before any other conditional
    # branch count; without one the body is the entry.
    ms_names = ("runtime.morestack", "runtime.morestack_noctxt", "runtime.morestackc")
    morestack = {f["_entry"] for f in funcs if f["name"].split(".abi0")[0] in ms_names}

    def calls_morestack(t, f):
        """Whether the straight-line block at address t in f calls morestack*."""
        k = at.get(t)
        for m in range(k, min(k + 40, len(insns))) if k is not None else ():
            i = insns[m]
            if i.addr >= f["_end"] or is_ret(i, arm64):
                return False
            c = call_target(i, arm64)
            if c is not None:
                return c in morestack
            j = direct_jump(i, arm64)
            if (j and not j[0]) or i.mnem in ("jmp", "br", "b"):
                return False
        return False

    probs = []
    checked = 0
    if morestack:
        for f in funcs:
            k = at.get(f["_entry"])
            if k is None:
                continue
            want = f["_entry"]
            for j in range(k, min(k + 12, len(insns) - 1)):
                i = insns[j]
                if i.addr >= f["_end"]:
                    break
                br = direct_jump(i, arm64)
                if not br or not br[0]:
                    continue
                if not calls_morestack(br[1], f):
                    break
                want = insns[j + 1].addr
            checked += 1
            if want != f["_body"]:
                probs.append(f"{f['name']}: body {f['body']}, objdump's stack check ends at {hexs(want)}")
    tap.check(f"{what}: body follows the branch to runtime.morestack* ({checked})", probs,
              skip=None if morestack else "no runtime.morestack in the listing")

    # ABI0 Go functions (compiled from Go but called with ABI0: cgo's
    # _Cfunc_* stubs, //go:cgo_unsafe_args, runtime.debugCall*) begin by
    # loading g from thread-local storage into R14, which ABIInternal
    # functions receive already set. On amd64, such a function must be
    # listed as abi0.
    if not arm64:
        probs = []
        n = 0
        for f in funcs:
            k = at.get(f["_entry"])
            if k is None:
                continue
            head = insns[k:k + 2]
            if any("%fs:" in i.ops and i.ops.endswith(",%r14") and i.mnem.startswith("mov")
                   for i in head):
                n += 1
                if f.get("abi") != "abi0":
                    probs.append(f"{f['name']} at {f['entry']}: starts with "
                                 + "; ".join(str(i) for i in head) + f", gostap abi {f.get('abi')!r}")
        tap.check(f"{what}: functions loading g from TLS at entry are abi0 ({n})", probs)

    # Words the disassembler could not decode (arm64 LSE atomics under
    # capstone 4) must be neither RETs nor branches.
    if any("undecoded_at" in f for f in funcs):
        probs = []
        n = 0
        for f in funcs:
            if arm64 and f.get("undecoded", 0) != len(f.get("undecoded_at", [])):
                probs.append(f"{f['name']}: undecoded {f.get('undecoded')} words but "
                             f"{len(f.get('undecoded_at', []))} addresses in undecoded_at")
            for u in f.get("undecoded_at", []):
                n += 1
                i = insn_at(int(u, 16))
                if i and (is_ret(i, arm64) or direct_jump(i, arm64) or
                          i.mnem in ("br", "blr", "bl", "call", "callq", "jmp")):
                    probs.append(f"{f['name']}: undecoded {u} is {i} in objdump")
        tap.check(f"{what}: undecoded words are no RET or branch ({n})", probs)

    # g. the unstripped twin's table is identical.
    if twin is None:
        tap.check(f"{what}: function table equals the twin's", [], skip="no twin")
    else:
        if open(twin, "rb").read(1) == b"{":
            with open(twin) as f:
                tdoc = json.load(f)
        else:
            tdoc = gostap_list("check-list.py", twin)
        keys = ("name", "entry", "body", "end", "abi", "returns", "tail_exits", "file", "line")
        mine = [tuple(json.dumps(f.get(k)) for k in keys) for f in funcs]
        theirs = sorted((tuple(json.dumps(f.get(k)) for k in keys) for f in tdoc.get("functions", [])),
                        key=lambda t: int(json.loads(t[1]), 16))
        probs = []
        if len(mine) != len(theirs):
            probs.append(f"{len(mine)} functions, twin {len(theirs)}")
        for a, b in zip(mine, theirs):
            if a != b:
                diff = [f"{k}: {x} vs twin {y}" for k, x, y in zip(keys, a, b) if x != y]
                probs.append(f"{json.loads(a[0])}: " + "; ".join(diff))
        counts["twin"] = len(mine) if not probs else 0
        tap.check(f"{what}: function table equals the twin's ({os.path.basename(twin)})", probs)

    # h. file and line: the DWARF line-table row at the entry.
    if not has_dwarf:
        tap.check(f"{what}: file:line is the line table's at entry", [], skip="no DWARF")
    else:
        rows = decoded_lines(binary)
        probs = []
        norow = 0
        for f in funcs:
            r = rows.get(f["_entry"])
            if r is None:
                norow += 1          # <autogenerated> wrappers have no row there
                continue
            fl = (f.get("file"), f.get("line"))
            # A relative reference (a base name, see decoded_lines) must be
            # the tail of gostap's path.
            same_file = fl[0] == r[0] or (not r[0].startswith("/") and
                                          str(fl[0]).endswith("/" + r[0]))
            if not same_file or fl[1] != r[1]:
                probs.append(f"{f['name']} at {f['entry']}: gostap {fl[0]}:{fl[1]}, line table {r[0]}:{r[1]}")
            else:
                counts["lines"] += 1
        tap.check(f"{what}: file:line is the line table's at entry ({counts['lines']} checked, "
                  f"{norow} without a row at entry)", probs)

    # Informational: names (and probe names) that several functions share.
    for key in ("name", "probe"):
        seen = {}
        for f in funcs:
            if key in f:
                seen.setdefault(f[key], []).append(f["entry"])
        dups = {k: v for k, v in seen.items() if len(v) > 1}
        if dups:
            print(f"# note: {len(dups)} {key}s shared by several functions, e.g. "
                  + "; ".join(f"{k} at {', '.join(v)}" for k, v in list(dups.items())[:3]))

    counts["mismatches"] = tap.mismatches
    sys.exit(tap.finish(counts))


if __name__ == "__main__":
    main()
