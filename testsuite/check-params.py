#!/usr/bin/env python3
"""Check the parameter locations of `gostap list --json` against DWARF, read
by a tool that shares no code with gostap (llvm-dwarfdump, not libdw).

Usage: check-params.py [--json FILE] [--dump FILE] [-v] BINARY [GLOB...]

  BINARY       a Go binary with DWARF
  GLOB...      passed on to `gostap list` (default: every function)
  --json FILE  use FILE as gostap's listing instead of running $GOSTAP
  --dump FILE  use FILE as `llvm-dwarfdump --debug-info BINARY`'s output
  -v           also print one line per skipped parameter

Environment: GOSTAP (the program under test, unless --json is given),
LLVM_DWARFDUMP (default: llvm-dwarfdump, else the newest llvm-dwarfdump-NN
on $PATH; Debian package llvm-14 or later).

gostap computes each parameter's location at function entry from the DWARF
*types* with Go's ABIInternal assignment algorithm. Go's compiler also writes
the *locations* of the arguments into DWARF: a location list per parameter
(DW_OP_regN / DW_OP_regx, DW_OP_piece, DW_OP_fbreg with DW_AT_frame_base =
DW_OP_call_frame_cfa, or DW_OP_call_frame_cfa itself), in .debug_loc (DWARF
4, Go <= 1.24) or .debug_loclists (DWARF 5, Go >= 1.25), or a single
location for the whole function (stack arguments). For every function gostap
lists whose entry is the DW_AT_low_pc of a concrete DW_TAG_subprogram, the
input parameters (DW_AT_variable_parameter 0, directly or through
DW_AT_abstract_origin; results have no location at RET and are not checked)
must be the same, by name and in order, and each is compared at gostap's
"body" address (the first instruction after the stack-check branch, where the
arguments are still where the caller put them).

Pieces. Go writes one DW_OP_piece per register-sized component of the value
(struct fields, recursively; string 2, slice 3, interface 2, complex 2) and
none for the padding between them, so the piece order is mapped onto the
component layout read from the DWARF type (DW_TAG_member offsets), not
accumulated: worldStop{uint8; int64; ...} in RAX, RBX is "reg0 piece 1, reg3
piece 8", the int64 at offset 8. When the sizes do not follow the components
the DWARF standard's reading (contiguous pieces) is used. An expression with
no DW_OP_piece locates the whole value (its DWARF byte size). Every byte
DWARF locates must be located by gostap in the same place: a register piece
must be the same piece (register, size, offset in the value), a memory piece
must map each byte to the same stack byte (so a stack struct may be one
piece on one side and field by field on the other). Components DWARF leaves
without a location (an empty DW_OP_piece, or trailing components left out,
as Go does for dead fields) are not compared: such parameters are counted as
partial.

Stack slots. gostap's {"stack": K} is entry SP + 8 + K. The CFA of Go's CFI
(the CIE of .debug_frame) is entry SP + 8 on amd64 (DW_CFA_def_cfa: RSP +8,
the return address is at CFA-8) and entry SP + 0 on arm64 (DW_CFA_def_cfa:
WSP +0, the return address is in LR); so DWARF CFA+N is stack N on amd64 and
stack N-8 on arm64 (checked by hand: main.arr3([3]int), a stack argument at
stack 0, is DW_OP_call_frame_cfa on amd64 and DW_OP_fbreg +8 on arm64; the
morestack spill code agrees on both).

Pointer-method wrappers. pkg.(*T).M (DW_AT_trampoline) takes the receiver
and M's arguments, as many as pkg.T.M's DWARF lists. Go 1.21's DWARF leaves
some or all of them out (always the receiver); then gostap cannot know the
arguments and must give params_error: listing DWARF's subset is a mismatch.

Skipped, with a count per reason (not failures):
  params_error      gostap gives "params_error" instead of "params"
  no_location       DWARF has no location at the body address for the
                    parameter (optimized away, or the list starts later)
  reg_clash         DWARF puts two different parameters in the same
                    register at the body address (a known Go DWARF quirk:
                    it cannot be right for both, so neither is compared)
  dead_reg_param    a register parameter the function never uses, which Go
                    (1.27) describes by a single location for the whole
                    function: its spill slot (checked to be exactly that
                    parameter's spill slot: after the stack arguments and
                    results, pointer-aligned, one slot per register
                    parameter in order, aligned to its type), unwritten at
                    entry
  dwarf_bad_pieces  DWARF's pieces add up to more than the value's size (Go
                    1.19-1.21 repeat the first piece of some slices and
                    interfaces: "reg0 piece 8, reg0 piece 8, reg3 piece 8,
                    reg2 piece 8" for a []byte); printed as "# note"
  unsupported_expr  a DWARF expression this checker does not understand
                    (none seen); printed as "# note"
Also counted: zero_size (zero-sized parameters, no location on either side),
no_dwarf_function (functions gostap lists with no concrete
DW_TAG_subprogram at their entry), stack_params and abi0_params (compared
parameters with a stack piece, and of ABI0 functions), wrappers_checked.

Output: "not ok - ..." per mismatch with gostap's and DWARF's pieces, then
  # counts: functions=N params=N mismatches=N partial=N skip_params_error=N ...
Exit: 0 no mismatch, 1 mismatches, 77 no llvm-dwarfdump, 99 a tool failed.
"""

import json
import os
import re
import shutil
import subprocess
import sys

# DWARF register number -> gdb/SystemTap name.
AMD64_REGS = {0: "rax", 1: "rdx", 2: "rcx", 3: "rbx", 4: "rsi", 5: "rdi",
              6: "rbp", 7: "rsp"}
AMD64_REGS.update({n: "r%d" % n for n in range(8, 16)})
AMD64_REGS.update({17 + n: "xmm%d" % n for n in range(16)})
ARM64_REGS = {n: "x%d" % n for n in range(31)}
ARM64_REGS[31] = "sp"
ARM64_REGS.update({64 + n: "v%d" % n for n in range(32)})

# Entry SP + CFA_AT = CFA; gostap's stack K = entry SP + 8 + K.
CFA_AT = {"amd64": 8, "arm64": 0}


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gostaptest import Tap, gostap_list  # noqa: E402
import gostaptest  # noqa: E402


def die(msg, status=99):
    gostaptest.die("check-params.py", msg, status)


def find_dwarfdump():
    prog = os.environ.get("LLVM_DWARFDUMP")
    if prog:
        return prog
    if shutil.which("llvm-dwarfdump"):
        return "llvm-dwarfdump"
    best = None
    for d in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            m = re.fullmatch(r"llvm-dwarfdump-(\d+)", n)
            if m and (best is None or int(m.group(1)) > best[0]):
                best = (int(m.group(1)), os.path.join(d, n))
    return best[1] if best else None


# ---- llvm-dwarfdump --debug-info text -------------------------------------

DIE_RE = re.compile(r"^0x([0-9a-f]+):( +)(DW_TAG_\w+|NULL)")
ATTR_RE = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)$")
REF_RE = re.compile(r"^0x([0-9a-f]+)\b")
KEEP = {"DW_AT_name", "DW_AT_low_pc", "DW_AT_frame_base", "DW_AT_type",
        "DW_AT_byte_size", "DW_AT_variable_parameter", "DW_AT_location",
        "DW_AT_abstract_origin", "DW_AT_data_member_location", "DW_AT_count",
        "DW_AT_encoding", "DW_AT_trampoline"}


class Die:
    __slots__ = ("off", "tag", "attrs", "parent", "children")

    def __init__(self, off, tag, parent):
        self.off, self.tag, self.parent = off, tag, parent
        self.attrs = {}
        self.children = []


def parse_dump(text):
    """Return ({offset: Die}, [subprogram Dies with a low_pc])."""
    dies = {}
    subprograms = []
    stack = []          # (indent, Die)
    cur = None          # the Die whose attributes follow
    attr = None         # (Die, name) of a multi-line attribute
    for line in text.splitlines():
        m = DIE_RE.match(line)
        if m:
            attr = None
            indent = len(m.group(2))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if m.group(3) == "NULL":
                cur = None
                continue
            parent = stack[-1][1] if stack else None
            cur = Die(int(m.group(1), 16), m.group(3), parent)
            dies[cur.off] = cur
            if parent is not None:
                parent.children.append(cur)
            stack.append((indent, cur))
            continue
        if cur is None:
            continue
        m = ATTR_RE.match(line)
        if m:
            attr = None
            if m.group(1) in KEEP:
                cur.attrs[m.group(1)] = m.group(2)
                attr = (cur, m.group(1))
            continue
        if attr and line.strip():
            attr[0].attrs[attr[1]] += "\n" + line.strip()
    for d in dies.values():
        if d.tag == "DW_TAG_subprogram" and "DW_AT_low_pc" in d.attrs:
            subprograms.append(d)
    return dies, subprograms


def strip_paren(v):
    v = v.strip()
    return v[:-1] if v.endswith(")") else v


def attr_of(dies, d, name, depth=0):
    """An attribute of D, or of its abstract origin."""
    if name in d.attrs:
        return d.attrs[name]
    ao = d.attrs.get("DW_AT_abstract_origin")
    if ao and depth < 4:
        m = REF_RE.match(ao)
        if m and int(m.group(1), 16) in dies:
            return attr_of(dies, dies[int(m.group(1), 16)], name, depth + 1)
    return None


def param_name(dies, d):
    v = attr_of(dies, d, "DW_AT_name")
    if v is None:
        return None
    m = re.match(r'"(.*)"\)?$', v.strip())
    return m.group(1) if m else strip_paren(v)


def type_size(dies, d):
    t = attr_of(dies, d, "DW_AT_type")
    for _ in range(8):
        if t is None:
            return None
        m = REF_RE.match(t)
        if not m or int(m.group(1), 16) not in dies:
            return None
        td = dies[int(m.group(1), 16)]
        bs = td.attrs.get("DW_AT_byte_size")
        if bs is not None:
            return int(strip_paren(bs), 0)
        if td.tag in ("DW_TAG_pointer_type", "DW_TAG_reference_type"):
            return 8     # Go writes no byte_size for pointers (64-bit only)
        if td.tag not in ("DW_TAG_typedef", "DW_TAG_const_type",
                          "DW_TAG_volatile_type"):
            return None
        t = td.attrs.get("DW_AT_type")
    return None


# ---- location expressions --------------------------------------------------

class Unsupported(Exception):
    pass


def reg_by_llvm_name(arch, name):
    """DW_OP_regx operand as llvm-dwarfdump prints it: a register name
    (amd64 XMM3, arm64 B3 / W3 / X3) or a number."""
    if re.fullmatch(r"(0x[0-9a-f]+|\d+)", name):
        return (AMD64_REGS if arch == "amd64" else ARM64_REGS).get(int(name, 0))
    if arch == "amd64":
        m = re.fullmatch(r"XMM(\d+)", name)
        if m:
            return "xmm" + m.group(1)
        return {v.upper(): v for v in AMD64_REGS.values()}.get(name)
    m = re.fullmatch(r"[BHSDQV](\d+)", name)
    if m:
        return "v" + m.group(1)
    m = re.fullmatch(r"[WX](\d+)", name)
    if m:
        return "x" + m.group(1)
    return None


def parse_simple(ops, arch, regs):
    """One location description (the ops before a DW_OP_piece) -> ("reg",
    name) | ("cfa", N) | None (empty)."""
    if not ops:
        return None
    if len(ops) == 1:
        op = ops[0].split()
        m = re.fullmatch(r"DW_OP_reg(\d+)", op[0])
        if m:
            r = regs.get(int(m.group(1)))
            if r is None:
                raise Unsupported("register %s" % m.group(1))
            return ("reg", r)
        if op[0] == "DW_OP_regx" and len(op) >= 2:
            r = reg_by_llvm_name(arch, op[1])
            if r is None:
                raise Unsupported("DW_OP_regx %s" % op[1])
            return ("reg", r)
        if op[0] == "DW_OP_fbreg":
            return ("cfa", int(op[1], 0))
        if op[0] == "DW_OP_call_frame_cfa":
            return ("cfa", 0)
    if len(ops) == 2 and ops[0] == "DW_OP_call_frame_cfa":
        op = ops[1].split()
        if op[0] == "DW_OP_plus_uconst":
            return ("cfa", int(op[1], 0))
    if (len(ops) == 3 and ops[0] == "DW_OP_call_frame_cfa"
            and ops[2] == "DW_OP_plus"):
        op = ops[1].split()
        if op[0] in ("DW_OP_consts", "DW_OP_constu") or \
                re.fullmatch(r"DW_OP_const\d[us]", op[0]):
            return ("cfa", int(op[1], 0))
    raise Unsupported(", ".join(ops))


def parse_expr(expr, arch, regs):
    """A location expression -> (pieces, whole): pieces a list of (size,
    kind, where) with kind "reg" (a register name), "cfa" (an offset from
    the CFA) or "gap" (DW_OP_piece with no location); whole True when the
    expression has no DW_OP_piece (one location for the whole value, size
    None)."""
    expr = expr.strip()
    if not expr or expr == "<empty>":
        return [], False
    ops = [o.strip() for o in expr.split(",")]
    pieces = []
    cur = []
    for o in ops:
        if o.startswith("DW_OP_piece"):
            loc = parse_simple(cur, arch, regs)
            pieces.append((int(o.split()[1], 0),) + (loc if loc else ("gap", None)))
            cur = []
        elif o.startswith("DW_OP_bit_piece"):
            raise Unsupported(expr)
        else:
            cur.append(o)
    if cur:
        if pieces:
            raise Unsupported(expr)  # ops after the last piece
        return [(None,) + parse_simple(cur, arch, regs)], True
    return pieces, False


LOCLIST_RE = re.compile(r"^\[0x([0-9a-f]+), 0x([0-9a-f]+)\): ?(.*)$")


def location_at(value, pc):
    """The expression text of DW_AT_location VALUE at PC, None if there is
    none. VALUE is a single expression or a location list as llvm-dwarfdump
    prints them (its first line is the list's offset)."""
    value = strip_paren(value)
    lines = value.split("\n")
    if not re.match(r"^0x[0-9a-f]+:\s*$", lines[0].strip()):
        return value if value.strip() else None      # single expression
    for ln in lines[1:]:
        ln = strip_paren(ln.strip())
        m = LOCLIST_RE.match(ln)
        if m:
            if int(m.group(1), 16) <= pc < int(m.group(2), 16):
                return m.group(3)
        # <default>: entries (DW_LLE_default_location) Go never writes.
    return None


# ---- type layout -----------------------------------------------------------

def type_die(dies, ref):
    m = REF_RE.match(ref or "")
    return dies.get(int(m.group(1), 16)) if m else None


def leaves(dies, t, base=0, depth=0):
    """The register-sized components of type DIE T as (offset, size), in
    order, zero-sized ones left out: struct fields recursively, arrays of
    length 1 as their element, complex numbers as two floats; anything else
    (longer arrays included) is one component. This is only the *layout*
    of the value: which of them go to registers is not computed here."""
    if t is None or depth > 32:
        return None
    if t.tag in ("DW_TAG_typedef", "DW_TAG_const_type", "DW_TAG_volatile_type") \
            and "DW_AT_byte_size" not in t.attrs:
        return leaves(dies, type_die(dies, t.attrs.get("DW_AT_type")), base, depth + 1)
    if t.tag == "DW_TAG_pointer_type":
        return [(base, 8)]
    size = t.attrs.get("DW_AT_byte_size")
    size = int(strip_paren(size), 0) if size is not None else None
    if size == 0:
        return []
    if t.tag == "DW_TAG_structure_type":
        out = []
        for m in t.children:
            if m.tag != "DW_TAG_member":
                continue
            off = int(strip_paren(m.attrs.get("DW_AT_data_member_location", "0")), 0)
            sub = leaves(dies, type_die(dies, m.attrs.get("DW_AT_type")), base + off, depth + 1)
            if sub is None:
                return None
            out += sub
        return out
    if t.tag == "DW_TAG_array_type":
        count = None
        for c in t.children:
            if c.tag == "DW_TAG_subrange_type" and "DW_AT_count" in c.attrs:
                count = int(strip_paren(c.attrs["DW_AT_count"]), 0)
        if count == 1:
            return leaves(dies, type_die(dies, t.attrs.get("DW_AT_type")), base, depth + 1)
    if size is None:
        return None
    if "DW_ATE_complex_float" in t.attrs.get("DW_AT_encoding", ""):
        return [(base, size // 2), (base + size // 2, size // 2)]
    return [(base, size)]


# ---- comparison ------------------------------------------------------------

def place_pieces(pieces, layout, size):
    """Give DWARF's pieces (size, kind, where) their offsets in the value.
    Go writes one DW_OP_piece per register-sized component and no pieces
    for the padding between them (so worldStop{uint8; int64; ...} in RAX,
    RBX is "reg0 piece 1, reg3 piece 8"), and leaves out trailing dead
    components: piece i is component i when the sizes agree. Failing that,
    the DWARF standard's reading (pieces are contiguous) is used. Returns
    the list of (offset, size, kind, where), or None when neither fits."""
    if layout is not None and len(pieces) <= len(layout) and \
            all(p[0] == l[1] for p, l in zip(pieces, layout)):
        return [(l[0],) + p for p, l in zip(pieces, layout)]
    if size is not None and sum(p[0] for p in pieces) <= size:
        out, off = [], 0
        for p in pieces:
            out.append((off,) + p)
            off += p[0]
        return out
    return None


def fmt_pieces(pieces):
    parts = []
    for off, size, kind, where in pieces:
        if kind == "reg":
            parts.append("%s size %d at %d" % (where, size, off))
        elif kind == "stack":
            parts.append("stack+%d size %d at %d" % (where, size, off))
        else:
            parts.append("(none) size %d at %d" % (size, off))
    return "[" + "; ".join(parts) + "]"


def compare(gp, dp):
    """gostap's pieces GP against DWARF's DP (both (offset, size, kind,
    where), kind "reg" or "stack"; DWARF's gaps left out). Every byte DWARF
    locates must be located by gostap in the same place: a register piece
    must be the same piece (register, size, offset), a stack piece must map
    each of its bytes to the same stack byte. Returns (ok, complete):
    complete is False when some byte gostap locates has no DWARF location
    (DWARF describes part of the value only)."""
    gbytes = {}
    for off, size, kind, where in gp:
        for b in range(size):
            gbytes[off + b] = (kind, where, b if kind == "reg" else where + b, size, off)
    seen = set()
    for off, size, kind, where in dp:
        for b in range(size):
            g = gbytes.get(off + b)
            if g is None:
                return False, True
            if kind == "reg":
                if g[:2] != ("reg", where) or g[2] != b or g[3] != size or g[4] != off:
                    return False, True
            elif g[0] != "stack" or g[2] != where + b:
                return False, True
            seen.add(off + b)
    return True, seen == set(gbytes)


def main():
    args = sys.argv[1:]
    json_file = dump_file = None
    verbose = False
    while args and args[0].startswith("-"):
        a = args.pop(0)
        if a == "--json":
            json_file = args.pop(0)
        elif a == "--dump":
            dump_file = args.pop(0)
        elif a == "-v":
            verbose = True
        else:
            die("unknown option %s" % a, 99)
    if not args:
        die("usage: check-params.py [--json FILE] [--dump FILE] [-v] BINARY [GLOB...]")
    binary, globs = args[0], args[1:]

    if json_file:
        with open(json_file) as f:
            listing = json.load(f)
    else:
        listing = gostap_list("check-params.py", binary, globs)

    if dump_file:
        with open(dump_file) as f:
            dump = f.read()
    else:
        prog = find_dwarfdump()
        if not prog:
            die("no llvm-dwarfdump (Debian: llvm-14 or later)", 77)
        r = subprocess.run([prog, "--debug-info", binary],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, errors="replace")
        if r.returncode != 0:
            die("%s --debug-info %s: exit %d: %s"
                % (prog, binary, r.returncode, r.stderr.strip()[:300]))
        dump = r.stdout

    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64",
            "arm64": "arm64"}.get(listing.get("arch"))
    if arch is None:
        die("unknown arch %r" % listing.get("arch"))
    regs = AMD64_REGS if arch == "amd64" else ARM64_REGS

    dies, subprograms = parse_dump(dump)
    by_pc = {}
    for sp in subprograms:
        by_pc.setdefault(int(strip_paren(sp.attrs["DW_AT_low_pc"]), 16), sp)

    c = dict(functions=0, params=0, mismatches=0, partial=0,
             skip_params_error=0, skip_no_location=0, skip_reg_clash=0,
             reg_clash_functions=0, skip_dead_reg_param=0,
             skip_dwarf_bad_pieces=0, skip_unsupported_expr=0,
             zero_size=0, no_dwarf_function=0, stack_params=0, abi0_params=0,
             wrappers_checked=0)
    cfa_to_stack = CFA_AT[arch] - 8

    # Input-parameter counts of the subprograms (abstract or concrete) by
    # name, for the pointer-method wrappers below.
    def inputs(d):
        return [k for k in d.children if k.tag == "DW_TAG_formal_parameter"
                and strip_paren(attr_of(dies, k, "DW_AT_variable_parameter")
                                or "0x00") in ("0x00", "0")]
    nparams_by_name = {}
    for d in dies.values():
        if d.tag == "DW_TAG_subprogram" and "DW_AT_name" in d.attrs:
            nparams_by_name.setdefault(param_name(dies, d), len(inputs(d)))

    # The mismatches of the three checks, reported as TAP at the end.
    loc_problems, name_problems, wrapper_problems = [], [], []

    def mismatch(fname, pname, gp, body, what):
        c["mismatches"] += 1
        loc_problems.append("%s param %s (%s, size %d) at %#x: %s"
                            % (fname, pname, gp["type"], gp["size"], body, what))

    for fn in listing.get("functions", []):
        name = fn["name"]
        sp = by_pc.get(int(fn["entry"], 16))
        if sp is None:
            c["no_dwarf_function"] += 1
            continue
        if "params_error" in fn:
            c["skip_params_error"] += 1
            if verbose:
                print("# skip %s: params_error: %s" % (name, fn["params_error"]))
            continue
        fb = strip_paren(sp.attrs.get("DW_AT_frame_base", ""))
        body = int(fn["body"], 16)
        dparams = [d for d in sp.children
                   if d.tag == "DW_TAG_formal_parameter"
                   and strip_paren(attr_of(dies, d, "DW_AT_variable_parameter")
                                   or "0x00") in ("0x00", "0")]
        gparams = fn.get("params", [])
        c["functions"] += 1
        # An autogenerated pointer-method wrapper pkg.(*T).M takes the
        # receiver and M's arguments: as many as pkg.T.M. Go 1.21's DWARF
        # (DW_AT_trampoline) leaves some or all of them out (the receiver
        # always); then DWARF cannot describe the function and gostap must
        # say so with params_error rather than list what DWARF lists.
        m = re.match(r"^(.*)\.\(\*([^()]+)\)\.([^.]+)$", name)
        if m and "DW_AT_trampoline" in sp.attrs and not name.endswith("-fm"):
            want = nparams_by_name.get("%s.%s.%s" % m.groups())
            if want is not None:
                c["wrappers_checked"] += 1
                if len(dparams) < want:
                    c["mismatches"] += 1
                    wrapper_problems.append(
                        "%s: a pointer-method wrapper, which takes %d "
                        "arguments (receiver included), but its DWARF lists %s: "
                        "gostap gives params %s instead of params_error"
                        % (name, want, [param_name(dies, d) for d in dparams],
                           [(p["name"], [q.get("reg", q.get("stack")) for q in p["pieces"]])
                            for p in gparams]))
                    continue
        if [param_name(dies, d) for d in dparams] != [p["name"] for p in gparams]:
            c["mismatches"] += 1
            name_problems.append("%s: parameters: gostap %s, DWARF %s"
                                 % (name, [p["name"] for p in gparams],
                                    [param_name(dies, d) for d in dparams]))
            continue
        # The start of the spill area: after the stack arguments and
        # results (gostap's), pointer-aligned.
        stack_end = 0
        for v in gparams + fn.get("results", []):
            for p in v.get("pieces", []):
                if "stack" in p:
                    stack_end = max(stack_end, p["stack"] + p["size"])
        # The spill slots of the register parameters, in order, each
        # aligned to its type's alignment (its largest component).
        spill = (stack_end + 7) & ~7
        spill_slot = {}
        # The spill area follows the ABI's order of the arguments, where
        # the dictionary of shape code is first (after the receiver of a
        # method); Go 1.27's DWARF may list ".dict" last (cmp.Or[...]):
        # taken at the place of the integer register gostap gives it.
        order = list(range(len(gparams)))
        for k, gp in enumerate(gparams):
            ps = gp.get("pieces", [])
            if gp.get("name") == ".dict" and len(ps) == 1 and \
                    ps[0].get("reg") in ("rax", "rbx", "x0", "x1"):
                order.remove(k)
                order.insert(0 if ps[0]["reg"] in ("rax", "x0") else 1, k)
        for i in order:
            gp, d = gparams[i], dparams[i]
            ps = gp.get("pieces", [])
            if ps and all("reg" in p for p in ps):
                lay = leaves(dies, type_die(dies, attr_of(dies, d, "DW_AT_type"))) or [(0, 8)]
                al = max(sz for _, sz in lay)
                spill = (spill + al - 1) // al * al
                spill_slot[i] = spill
                spill += gp["size"]

        # DWARF's pieces of every parameter at the body address.
        dw = []
        for d in dparams:
            size = type_size(dies, d)
            loc = d.attrs.get("DW_AT_location")
            static = loc is not None and not re.match(r"^\(?0x[0-9a-f]+:", loc.strip())
            expr = location_at(loc, body) if loc else None
            try:
                raw, whole = parse_expr(expr, arch, regs) if expr else ([], False)
                if any(k == "cfa" for _, k, _ in raw) and "DW_OP_fbreg" in expr \
                        and fb != "DW_OP_call_frame_cfa":
                    raise Unsupported("frame base " + fb)
                raw = [(s_, "stack", w + cfa_to_stack) if k == "cfa" else (s_, k, w)
                       for s_, k, w in raw]
                if whole:
                    placed = [(0, size) + raw[0][1:]] if size is not None else None
                else:
                    placed = place_pieces(raw, leaves(dies, type_die(
                        dies, attr_of(dies, d, "DW_AT_type"))), size)
                dw.append((size, expr, raw, placed, static, None))
            except Unsupported as e:
                dw.append((size, expr, None, None, static, str(e)))
        # The Go DWARF quirk: two parameters in one register.
        owner = {}
        clash = set()
        for i, (_, _, raw, _, _, _) in enumerate(dw):
            for _, k, w in raw or []:
                if k == "reg":
                    if w in owner and owner[w] != i:
                        clash.update((i, owner[w]))
                    owner.setdefault(w, i)
        if clash:
            c["reg_clash_functions"] += 1

        for i, (gp, (size, expr, raw, placed, static, err)) in enumerate(zip(gparams, dw)):
            pname = gp["name"]
            gpieces = [(p["offset"], p["size"], "reg", p["reg"]) if "reg" in p
                       else (p["offset"], p["size"], "stack", p["stack"])
                       for p in gp.get("pieces", [])]
            if size is not None and size != gp["size"]:
                mismatch(name, pname, gp, body, "size: gostap %d, DWARF %d" % (gp["size"], size))
                continue
            if gp["size"] == 0 and not gpieces and not raw:
                c["zero_size"] += 1
                c["params"] += 1
                continue
            if err is not None:
                c["skip_unsupported_expr"] += 1
                print("# note %s param %s: unsupported DWARF location: %s"
                      % (name, pname, err))
                continue
            if not raw or all(k == "gap" for _, k, _ in raw):
                c["skip_no_location"] += 1
                if verbose:
                    print("# skip %s param %s: no DWARF location at %#x"
                          % (name, pname, body))
                continue
            if i in clash:
                c["skip_reg_clash"] += 1
                if verbose:
                    print("# skip %s param %s: DWARF register clash: %s"
                          % (name, pname, expr))
                continue
            if placed is None:
                c["skip_dwarf_bad_pieces"] += 1
                print("# note %s param %s (%s, size %d) at %#x: DWARF pieces do "
                      "not fit the type: %s" % (name, pname, gp["type"], gp["size"], body, expr))
                continue
            # A register parameter the function never uses: Go describes
            # it, for the whole function, by its spill slot, which nothing
            # writes at entry (a single location, not a list). Skipped, but
            # only when it is exactly the spill slot of that parameter.
            if static and gpieces and all(k == "reg" for _, _, k, _ in gpieces) and \
                    all(k == "stack" for _, _, k, _ in placed):
                want = spill_slot.get(i)
                if want is not None and placed[0][0] == 0 and placed[0][3] == want:
                    c["skip_dead_reg_param"] += 1
                    if verbose:
                        print("# skip %s param %s: DWARF gives its spill slot "
                              "(%s), gostap %s" % (name, pname, expr, fmt_pieces(gpieces)))
                    continue
            dpieces = [p for p in placed if p[2] != "gap"]
            # Stack pieces whose addresses do not follow their order: Go
            # 1.27 described a slice passed on the stack as its pointer at
            # CFA+0 and a second word at CFA+16 (its cap's place by the
            # ABI), with no piece for the len, which the DWARF reading of
            # contiguous pieces puts at the len's offset (compress/flate's
            # writeTokens, offCodes, in the cpubound fixture). A DWARF fault:
            # noted, as pieces that do not fit the type are.
            st = [(o, w) for o, _, k, w in dpieces if k == "stack"]
            if len(st) > 1 and len(st) == len(dpieces) and \
                    any(w - st[0][1] != o - st[0][0] for o, w in st):
                c["skip_dwarf_bad_pieces"] += 1
                print("# note %s param %s (%s, size %d) at %#x: DWARF stack pieces "
                      "out of their order's place: %s" % (name, pname, gp["type"],
                                                          gp["size"], body, expr))
                continue
            ok, complete = compare(gpieces, dpieces)
            c["params"] += 1
            if any(k == "stack" for _, _, k, _ in dpieces):
                c["stack_params"] += 1
            if fn.get("abi") == "abi0":
                c["abi0_params"] += 1
            if not ok:
                mismatch(name, pname, gp, body, "gostap %s, DWARF %s (%s)"
                         % (fmt_pieces(gpieces), fmt_pieces(placed), expr))
            elif not complete:
                c["partial"] += 1
                if verbose:
                    print("# partial %s param %s: gostap %s, DWARF %s (%s)"
                          % (name, pname, fmt_pieces(gpieces), fmt_pieces(placed), expr))
    what = os.path.basename(binary)
    tap = Tap()
    tap.check("%s: the parameters of %d functions are the ones DWARF lists"
              % (what, c["functions"]), name_problems)
    tap.check("%s: %d pointer-method wrappers whose DWARF omits arguments have "
              "a params_error" % (what, c["wrappers_checked"]), wrapper_problems)
    tap.check("%s: %d parameter locations equal DWARF's location list at the body"
              % (what, c["params"]), loc_problems)
    return tap.finish(c)


if __name__ == "__main__":
    sys.exit(main())
