#!/usr/bin/env python3
"""Check, under gdb, the value locations `gostap list --json` reports.

Usage: check-values.py [--gostap PROG] [--gdb GDB] [--label TEXT] [-v] BINARY

BINARY is a build of testsuite/fixtures/abi (amd64). The script asks gostap
for the main.* functions, then runs BINARY under `gdb -batch` with this same
file as gdb's Python script (it knows by `import gdb` where it runs). gdb
stops, without interrupting the program, at every function's "entry" (to
note the entry SP), "body" (the parameters) and every address of "returns"
(the results), assembles each value's bytes from the pieces gostap gives
(registers: low `size` bytes, little-endian; stack: entry SP + 8 + OFF),
and decodes them by Go type. The program prints, for each call it makes,
`CALL name arg=value ...` and `RET name r0=value ...`; the decoded values are
compared with those lines, call by call in order, per function.

What is compared, by Go type:
  integers (signed/unsigned by size), bool, float32/float64 (numerically,
  the program prints the shortest round-trip digits), string (Go %q),
  []byte and []string (elements, len, cap through ptr/len/cap), the structs
  main.Pt, main.Mix, main.Big field by field (layouts known here), *int and
  *main.Pt by dereference, [N]int element by element, interfaces (named,
  error, any) by the concrete type named by the itab/type symbol gdb finds
  at the first word (main.Pt, *errors.errorString, int, string) and the data
  word, nil interfaces as <nil>; generic type parameters (.paramN) by the
  shape type in the function's symbol name.
Not compared (counted as skipped, with the reason): values the program does
not print (func values, generic dictionaries, zero-sized arrays, calls the
program makes without a CALL line), values of functions for which gostap
gives params_error, and printed arguments for which gostap gives no value.

A stop that repeats the goroutine's previous stop (same g, PC, SP and
return address) is one hit reported twice and is dropped: gdb passes Go's
preemption signal (SIGURG) while stepping over a breakpoint, and the
goroutine re-executes the breakpoint instruction when it resumes.

Output (TAP, testsuite/gostaptest.py): `# note` lines (values the program
prints that gostap does not give; every value with -v), one test point
with the first mismatches, the plan, then
  # counts: calls=N params=N results=N mismatches=N skipped=N
calls: calls the program printed; params/results: values compared (at least
one printed field); mismatches: values read differently, missing stops, gdb
errors. Exit 0 all equal, 1 some mismatch, 99 could not run.
GOSTAP_VALUES_KEEP=FILE keeps the raw stops (JSON) for debugging.
"""

import json
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gostaptest import Tap  # noqa: E402

MASK64 = (1 << 64) - 1

INT_TYPES = {
    "int8": (1, True), "int16": (2, True), "int32": (4, True),
    "int64": (8, True), "int": (8, True),
    "uint8": (1, False), "byte": (1, False), "uint16": (2, False),
    "uint32": (4, False), "uint64": (8, False), "uint": (8, False),
    "uintptr": (8, False),
}

# Field layouts of the fixture's structs: (name, offset, type).
STRUCTS = {
    "main.Pt": [("X", 0, "int"), ("Y", 8, "int"), ("Z", 16, "int")],
    "main.Mix": [("A", 0, "int32"), ("F", 8, "float64"), ("B", 16, "int64"),
                 ("G", 24, "float32")],
    "main.Big": [(chr(ord("A") + i), 8 * i, "int64") for i in range(17)],
}
STRUCT_SIZE = {"main.Pt": 24, "main.Mix": 32, "main.Big": 136}

EFACE_TYPES = ("interface {}", "interface{}", "any")
IFACE_TYPES = ("error", "main.Stringer")


def go_quote(b):
    """strconv.Quote for the strings of the fixture (ASCII)."""
    out = ['"']
    esc = {0x07: "\\a", 0x08: "\\b", 0x0c: "\\f", 0x0a: "\\n", 0x0d: "\\r",
           0x09: "\\t", 0x0b: "\\v", 0x22: '\\"', 0x5c: "\\\\"}
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        s = None
    if s is None:
        for c in b:
            out.append(esc.get(c) or (chr(c) if 0x20 <= c < 0x7f else "\\x%02x" % c))
    else:
        for ch in s:
            c = ord(ch)
            if c in esc:
                out.append(esc[c])
            elif c < 0x20 or c == 0x7f:
                out.append("\\x%02x" % c)
            else:
                out.append(ch)
    out.append('"')
    return "".join(out)


def shape_type(symname):
    """main.gmax[go.shape.int_0] -> int (the one type argument)."""
    m = re.search(r"\[(.*)\]$", symname or "")
    if not m or m.group(1) == "...":
        return None
    t = m.group(1)
    if "," in t:
        return None
    t = re.sub(r"^go\.shape\.", "", t)
    t = re.sub(r"_\d+$", "", t)
    return t


def program_name(gostap_name, symname):
    """The name the fixture prints for a function."""
    if "[" in gostap_name:
        st = shape_type(symname)
        if st:
            return gostap_name[:gostap_name.index("[")] + "[" + st + "]"
    return gostap_name


# --------------------------------------------------------------------------
# gdb side
# --------------------------------------------------------------------------

def gdb_main():
    import gdb  # noqa: F401  (only inside gdb)

    plan = json.load(open(os.environ["GOSTAP_VALUES_PLAN"]))
    events = []
    errors = []
    state = {"exit_code": None}

    def run(cmd):
        return gdb.execute(cmd, to_string=True)

    for cmd in ("set pagination off", "set confirm off", "set width 0",
                "set print thread-events off", "set print inferior-events off",
                "set startup-with-shell on",
                "handle SIGURG SIGPIPE SIGCHLD SIGWINCH SIGALRM SIGPROF SIGIO "
                "nostop noprint pass"):
        run(cmd)
    run("file " + plan["binary"])

    def on_exit(ev):
        if hasattr(ev, "exit_code"):
            state["exit_code"] = ev.exit_code
    gdb.events.exited.connect(on_exit)

    run("starti > %s 2> %s" % (plan["stdout"], plan["stderr"]))
    inf = gdb.selected_inferior()

    # Load bias: the mapping of the file at offset 0 against the lowest
    # PT_LOAD address (0 for ET_EXEC).
    bias = 0
    if plan["pie"]:
        real = os.path.realpath(plan["binary"])
        start = None
        with open("/proc/%d/maps" % inf.pid) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 6 and os.path.realpath(parts[5]) == real \
                        and int(parts[2], 16) == 0:
                    start = int(parts[0].split("-")[0], 16)
                    break
        if start is None:
            raise RuntimeError("cannot find the mapping of " + real)
        bias = start - plan["first_load"]

    def mem(addr, n):
        if n == 0:
            return b""
        return inf.read_memory(addr, n).tobytes()

    def u64(b, off=0):
        return int.from_bytes(b[off:off + 8], "little")

    def reg_bytes(frame, name):
        if name.startswith("xmm"):
            v = frame.read_register(name)
            lo = int(v["v2_int64"][0]) & MASK64
            hi = int(v["v2_int64"][1]) & MASK64
            return lo.to_bytes(8, "little") + hi.to_bytes(8, "little")
        if re.match(r"^(r[a-z0-9]+|e[a-z]+)$", name):
            return (int(frame.read_register(name)) & MASK64).to_bytes(8, "little")
        raise RuntimeError("register %s: not an amd64 register this script reads" % name)

    def assemble(frame, value, sp0):
        buf = bytearray(value["size"])
        for p in value["pieces"]:
            if p["offset"] < 0 or p["size"] <= 0 or \
                    p["offset"] + p["size"] > value["size"]:
                raise RuntimeError("piece %s outside the %d-byte value"
                                   % (json.dumps(p), value["size"]))
            if "reg" in p and p["size"] > (16 if p["reg"].startswith("xmm") else 8):
                raise RuntimeError("piece %s larger than its register" % json.dumps(p))
            if "reg" in p:
                data = reg_bytes(frame, p["reg"])[:p["size"]]
            else:
                data = mem(sp0 + 8 + p["stack"], p["size"])
            buf[p["offset"]:p["offset"] + p["size"]] = data
        return bytes(buf)

    def scalar(t, b, off=0):
        """("i", int) / ("f", float) / ("s", str) for a scalar type."""
        if t in INT_TYPES:
            n, signed = INT_TYPES[t]
            return ["i", int.from_bytes(b[off:off + n], "little", signed=signed)]
        if t == "bool":
            v = b[off]
            return ["s", {0: "false", 1: "true"}.get(v, "bad-bool(%d)" % v)]
        if t == "float64":
            return ["f64", struct.unpack_from("<Q", b, off)[0]]
        if t == "float32":
            return ["f32", struct.unpack_from("<I", b, off)[0]]
        if t in ("complex128", "complex64"):
            f, n = ("<Q", 8) if t == "complex128" else ("<I", 4)
            return ["c" + t[7:], (struct.unpack_from(f, b, off)[0],
                                  struct.unpack_from(f, b, off + n)[0])]
        return None

    def put(keys, key, sc):
        """keys[key] = sc, and for a float the program's KEY_bits (complex:
        KEY_real_bits, KEY_imag_bits) too."""
        keys[key] = sc
        if sc is not None and sc[0] in ("f64", "f32"):
            keys[key + "_bits"] = ["i", sc[1]]
        elif sc is not None and sc[0] in ("c128", "c64"):
            keys[key + "_real_bits"] = ["i", sc[1][0]]
            keys[key + "_imag_bits"] = ["i", sc[1][1]]

    def go_string(b, off=0):
        ptr, n = u64(b, off), u64(b, off + 8)
        if n > 1 << 20:
            raise RuntimeError("string length %d" % n)
        return mem(ptr, n)

    def fmt_pt(b):
        x, y, z = (int.from_bytes(b[i:i + 8], "little", signed=True) for i in (0, 8, 16))
        return "(%d,%d,%d)" % (x, y, z)

    def type_name(typ):
        """The name of a runtime type: abi.Type.Str (a nameOff from
        moduledata.types = runtime.types) at offset 40; tflagExtraStar (2)
        at offset 20 means a '*' to drop. Names: a flags byte, a varint
        length, the bytes (Go 1.17+)."""
        if plan["types"] is None:
            raise RuntimeError("no runtime.types symbol")
        hdr = mem(typ, 48)
        tflag = hdr[20]
        off = struct.unpack_from("<i", hdr, 40)[0]
        p = plan["types"] + bias + off
        raw = mem(p, 12)
        n, shift, i = 0, 0, 1
        while True:
            c = raw[i]
            n |= (c & 0x7f) << shift
            shift += 7
            i += 1
            if not c & 0x80:
                break
        name = mem(p + i, n).decode("utf-8", "replace")
        if tflag & 2 and name.startswith("*"):
            name = name[1:]
        return name

    def iface_text(b, eface):
        tab, data = u64(b), u64(b, 8)
        if tab == 0:
            return "<nil>", None
        # eface: the type word is the *_type; iface: an *itab, whose _type
        # is at offset 8 (inter @0, _type @8, hash @16, fun @24).
        typ = tab if eface else u64(mem(tab + 8, 8))
        ct = type_name(typ)
        if ct == "main.Pt":
            return fmt_pt(mem(data, 24)), None
        if ct == "*errors.errorString":
            return go_string(mem(data, 16)).decode("utf-8", "replace"), None
        if ct in INT_TYPES:
            n, signed = INT_TYPES[ct]
            return str(int.from_bytes(mem(data, n), "little", signed=signed)), None
        if ct == "string":
            return go_string(mem(data, 16)).decode("utf-8", "replace"), None
        return None, "interface holding %s" % ct

    def decode(name, t, b, fname, symname):
        """Keys as the program prints them -> [kind, value]; or a skip reason."""
        keys = {}
        if t.startswith(".param"):
            st = shape_type(symname)
            if not st:
                return None, "type parameter %s with unknown shape" % t
            t = st
        if name == ".dict" or t.startswith("*[") and name.startswith("."):
            return None, "generic dictionary"
        sc = scalar(t, b)
        if sc is not None:
            put(keys, name, sc)
        elif t == "string":
            keys[name] = ["s", go_quote(go_string(b))]
        elif t == "[]uint8" or t == "[]byte":
            ptr, n, c = u64(b), u64(b, 8), u64(b, 16)
            keys[name] = ["s", "[" + " ".join(str(x) for x in mem(ptr, n)) + "]"]
            keys["len"] = ["i", n]
            keys["cap"] = ["i", c]
        elif t == "[]string":
            ptr, n = u64(b), u64(b, 8)
            elems = mem(ptr, 16 * n)
            keys[name] = ["s", "[" + " ".join(go_quote(go_string(elems, 16 * i))
                                               for i in range(n)) + "]"]
            keys["len"] = ["i", n]
        elif t in STRUCTS:
            for f, off, ft in STRUCTS[t]:
                put(keys, name + "." + f, scalar(ft, b, off))
        elif t.startswith("*") and t[1:] in INT_TYPES:
            keys["*" + name] = scalar(t[1:], mem(u64(b), INT_TYPES[t[1:]][0]))
        elif t.startswith("*") and t[1:] in STRUCTS:
            sb = mem(u64(b), STRUCT_SIZE[t[1:]])
            for f, off, ft in STRUCTS[t[1:]]:
                put(keys, name + "." + f, scalar(ft, sb, off))
        elif re.match(r"^\[\d+\]", t):
            n = int(t[1:t.index("]")])
            et = t[t.index("]") + 1:]
            if n == 0:
                return None, "zero-sized array"
            sc0 = scalar(et, b)
            if sc0 is None:
                return None, "array of %s" % et
            es = len(b) // n
            for i in range(n):
                put(keys, "%s[%d]" % (name, i), scalar(et, b, i * es))
        elif t in EFACE_TYPES or t in IFACE_TYPES:
            text, why = iface_text(b, t in EFACE_TYPES)
            if text is None:
                return None, why
            keys[name] = ["s", text]
            tab = u64(b)
            keys[name + "_type_name"] = ["s", "<nil>" if tab == 0 else type_name(
                tab if t in EFACE_TYPES else u64(mem(tab + 8, 8)))]
        elif t.startswith("map["):
            # The runtime's map header starts with the entry count in
            # every release (hmap.count; maps.Map.used from Go 1.24).
            ptr = u64(b)
            keys["len"] = ["i", u64(mem(ptr, 8)) if ptr else 0]
        elif t.startswith("func("):
            return None, "func value"
        else:
            return None, "type %s not decoded" % t
        return keys, None

    def values_at(frame, fn, vals, sp0, kind):
        out = []
        for v in vals:
            name = v["name"][1:] if v["name"].startswith("~") else v["name"]
            rec = {"name": name, "type": v["type"], "kind": kind,
                   "pieces": v["pieces"]}
            try:
                b = assemble(frame, v, sp0)
                rec["bytes"] = b.hex()
                keys, why = decode(name, v["type"], b, fn["name"], fn["symbol"])
                if keys is None:
                    rec["skip"] = why
                else:
                    rec["keys"] = keys
            except Exception as e:  # a wrong piece can point anywhere
                rec["error"] = "%s: %s" % (type(e).__name__, e)
            out.append(rec)
        return out

    # roles[address] = [(role, function)], role in entry, body, ret.
    roles = {}
    for fn in plan["functions"]:
        roles.setdefault(fn["entry"] + bias, []).append(("entry", fn))
        roles.setdefault(fn["body"] + bias, []).append(("body", fn))
        for r in fn["returns"]:
            roles.setdefault(r + bias, []).append(("ret", fn))
    order = {"entry": 0, "body": 1, "ret": 2}
    for lst in roles.values():
        lst.sort(key=lambda rf: order[rf[0]])

    entry_sp = {}
    last_stop = {}
    state["duplicates"] = 0
    state["dup_list"] = []

    class Stop(gdb.Breakpoint):
        def stop(self):
            try:
                frame = gdb.newest_frame()
                pc = int(frame.read_register("rip")) & MASK64
                sp = int(frame.read_register("rsp")) & MASK64
                # One hit can be reported twice: gdb passes the SIGURG of
                # Go's asynchronous preemption while stepping over the
                # breakpoint, the goroutine is suspended before the
                # instruction completes and later resumes there, maybe on
                # another thread, and traps again. A stop repeating the
                # goroutine's previous stop (g = R14, same PC, SP and
                # return address, no other stop between) is that same hit.
                # (Two back-to-back calls from one call site of a function
                # whose entry, body and RET are one instruction would look
                # the same; the fixture has no such calls.)
                tid = int(frame.read_register("r14")) & MASK64
                this = (pc, sp, u64(mem(sp, 8)))
                if last_stop.get(tid) == this:
                    state["duplicates"] += 1
                    state["dup_list"].append("0x%x" % (pc - bias))
                    return False
                last_stop[tid] = this
                for role, fn in roles.get(pc, ()):
                    key = fn["name"]
                    if role == "entry":
                        entry_sp[key] = sp
                        continue
                    sp0 = entry_sp.get(key)
                    ev = {"fn": fn["name"], "program_name": fn["program_name"],
                          "kind": "call" if role == "body" else "ret",
                          "pc": "0x%x" % (pc - bias), "g": "0x%x" % tid,
                          "sp": "0x%x" % sp, "ra": "0x%x" % this[2]}
                    if sp0 is None:
                        ev["note"] = "no entry stop before this %s stop" % role
                        sp0 = sp
                    ev["sp_delta"] = sp0 - sp
                    if "params_error" in fn:
                        ev["params_error"] = fn["params_error"]
                    elif role == "body":
                        ev["values"] = values_at(frame, fn, fn["params"], sp0, "param")
                    else:
                        # At RET the frame is popped: SP is the entry SP.
                        ev["values"] = values_at(frame, fn, fn["results"], sp, "result")
                    if role == "ret":
                        entry_sp.pop(key, None)
                    events.append(ev)
            except Exception as e:  # keep the program running
                errors.append("stop at 0x%x: %s: %s" % (
                    int(gdb.newest_frame().pc()), type(e).__name__, e))
            return False

    for addr in sorted(roles):
        Stop("*0x%x" % addr, internal=True)

    try:
        run("continue")
    except gdb.error as e:
        errors.append("continue: %s" % e)
    with open(plan["events"], "w") as f:
        json.dump({"events": events, "errors": errors, "bias": bias,
                   "exit_code": state["exit_code"],
                   "duplicates": state["duplicates"],
                   "duplicate_stops": state["dup_list"],
                   "symbols": {fn["name"]: fn["symbol"] for fn in plan["functions"]}},
                  f, indent=1)


# --------------------------------------------------------------------------
# Outer side
# --------------------------------------------------------------------------

KEY_RE = re.compile(r"(?:^|\s)([*A-Za-z_][\w.\[\]]*)=")


def parse_kv(rest):
    """`a=1 b=[1 2] e=division by zero` -> {a: "1", b: "[1 2]", e: ...}."""
    ms = list(KEY_RE.finditer(rest))
    kv = {}
    for i, m in enumerate(ms):
        end = ms[i + 1].start() if i + 1 < len(ms) else len(rest)
        kv[m.group(1)] = rest[m.end():end].strip()
    return kv


def parse_program(text):
    """{name: [(call_kv, ret_kv)]} in call order."""
    calls = {}
    pending = {}
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 2 or parts[0] not in ("CALL", "RET"):
            continue
        kv = parse_kv(parts[2] if len(parts) > 2 else "")
        if parts[0] == "CALL":
            pending.setdefault(parts[1], []).append(kv)
        else:
            c = pending.get(parts[1]) or [None]
            calls.setdefault(parts[1], []).append((c.pop(0) if c else None, kv))
    return calls


def equal(kind, got, want):
    if kind == "i":
        try:
            return int(want, 16 if want.startswith("0x") else 10) == got
        except ValueError:
            return False
    if kind in ("f64", "f32"):
        return float_bits_equal(kind, got, want)
    if kind in ("c128", "c64"):
        m = re.match(r"^\((.+?)([+-](?:[^+-]|[eE][+-])*)i\)$", want)
        f = "f64" if kind == "c128" else "f32"
        return bool(m) and float_bits_equal(f, got[0], m.group(1)) and \
            float_bits_equal(f, got[1], m.group(2))
    return str(got) == want


def float_bits_equal(kind, bits, want):
    """Go's printed float WANT ("%g": NaN, +Inf, -0, 1e-07...) parses to
    BITS: bit for bit (the sign of zero too); any NaN for NaN."""
    try:
        w = float(want)
    except ValueError:
        return False
    if kind == "f32":
        wb = struct.unpack("<I", struct.pack("<f", w))[0]
        nan = (bits & 0x7f800000) == 0x7f800000 and bits & 0x7fffff
    else:
        wb = struct.unpack("<Q", struct.pack("<d", w))[0]
        nan = (bits >> 52 & 0x7ff) == 0x7ff and bits & ((1 << 52) - 1)
    return bool(nan) if w != w else wb == bits


def first_load_vaddr(path):
    with open(path, "rb") as f:
        h = f.read(64)
        if h[:4] != b"\x7fELF" or h[4] != 2:
            raise RuntimeError("not a 64-bit ELF file")
        e_type = struct.unpack_from("<H", h, 16)[0]
        phoff = struct.unpack_from("<Q", h, 32)[0]
        phentsize, phnum = struct.unpack_from("<HH", h, 54)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
    loads = []
    for i in range(phnum):
        p_type, _flags, p_offset, p_vaddr = struct.unpack_from("<IIQQ", ph, i * phentsize)
        if p_type == 1 and p_offset == 0:
            loads.append(p_vaddr)
    return e_type, (min(loads) if loads else 0)


def elf_symbols(path):
    """[(name, value, st_type)] of the .symtab."""
    with open(path, "rb") as f:
        data = f.read()
    shoff = struct.unpack_from("<Q", data, 40)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    out = []
    for sh in secs:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        off, size, link, entsize = sh[4], sh[5], sh[6], sh[9]
        stroff = secs[link][4]
        for i in range(size // entsize):
            name, info, _other, _shndx, value, _size = struct.unpack_from(
                "<IBBHQQ", data, off + i * entsize)
            end = data.index(b"\0", stroff + name)
            out.append((data[stroff + name:end].decode("utf-8", "replace"),
                        value, info & 0xf))
    return out


def main():
    args = sys.argv[1:]
    gostap = os.environ.get("GOSTAP", "gostap")
    gdbprog = "gdb"
    label = ""
    verbose = False
    while args and args[0].startswith("-"):
        a = args.pop(0)
        if a == "--gostap":
            gostap = args.pop(0)
        elif a == "--gdb":
            gdbprog = args.pop(0)
        elif a == "--label":
            label = args.pop(0) + " "
        elif a == "-v":
            verbose = True
        else:
            print("usage: check-values.py [--gostap PROG] [--gdb GDB] [--label TEXT] [-v] BINARY",
                  file=sys.stderr)
            return 99
    if len(args) != 1:
        print("usage: check-values.py [--gostap PROG] [--gdb GDB] [--label TEXT] [-v] BINARY",
              file=sys.stderr)
        return 99
    binary = os.path.abspath(args[0])

    try:
        p = subprocess.run([gostap, "list", "--json", binary, "main.*"],
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        print("Bail out! check-values.py: running gostap: %s" % e)
        return 99
    if p.returncode != 0:
        print("Bail out! check-values.py: gostap list exited %d: %s" % (p.returncode, p.stderr.strip()))
        return 99
    info = json.loads(p.stdout)
    if info.get("arch") != "x86_64":
        print("Bail out! check-values.py: %s is %s; only x86_64 binaries run here" % (binary, info.get("arch")))
        return 99
    e_type, first_load = first_load_vaddr(binary)

    syms = elf_symbols(binary)
    types_sym = next((v for n, v, _t in syms if n == "runtime.types"), None)
    func_syms = {}
    for n, v, t in syms:
        if t == 2 and not n.endswith(".abi0"):  # STT_FUNC
            func_syms.setdefault(v, n)

    functions = []
    for fn in info["functions"]:
        if not (fn.get("params") or fn.get("results") or fn.get("params_error")):
            continue
        f = {"name": fn["name"], "entry": int(fn["entry"], 16),
             "body": int(fn["body"], 16),
             "returns": [int(r, 16) for r in fn["returns"]],
             "params": fn.get("params", []), "results": fn.get("results", [])}
        # The symbol names the shape of a generic instantiation
        # (main.gmax[go.shape.int_0]) where pclntab may say main.gmax[...].
        f["symbol"] = func_syms.get(f["entry"], f["name"])
        f["program_name"] = program_name(f["name"], f["symbol"])
        if fn.get("params_error"):
            f["params_error"] = fn["params_error"]
        functions.append(f)

    with tempfile.TemporaryDirectory(prefix="check-values.") as td:
        plan = {"binary": binary, "pie": e_type == 3, "first_load": first_load,
                "types": types_sym,
                "functions": functions,
                "stdout": os.path.join(td, "stdout"),
                "stderr": os.path.join(td, "stderr"),
                "events": os.path.join(td, "events.json")}
        with open(os.path.join(td, "plan.json"), "w") as f:
            json.dump(plan, f)
        env = dict(os.environ, GOSTAP_VALUES_PLAN=os.path.join(td, "plan.json"))
        cmd = [gdbprog, "-nx", "-batch", "-iex", "set auto-load off",
               "-x", os.path.abspath(__file__)]
        try:
            g = subprocess.run(cmd, capture_output=True, text=True, env=env,
                               timeout=120, cwd=td)
        except (OSError, subprocess.TimeoutExpired) as e:
            print("Bail out! check-values.py: running gdb: %s" % e)
            return 99
        if not os.path.exists(plan["events"]):
            print("Bail out! check-values.py: gdb exited %d without results: %s" % (
                g.returncode, (g.stderr + g.stdout).strip()[-2000:]))
            return 99
        res = json.load(open(plan["events"]))
        if os.environ.get("GOSTAP_VALUES_KEEP"):
            with open(os.environ["GOSTAP_VALUES_KEEP"], "w") as f:
                json.dump(res, f, indent=1)
        out = open(plan["stdout"]).read()

    problems = []
    notes = []
    for e in res["errors"]:
        problems.append("gdb: " + e)
    if res["exit_code"] not in (0, None):
        problems.append("the program exited %s" % res["exit_code"])

    prog = parse_program(out)
    if not prog:
        print("Bail out! check-values.py: the program printed no CALL/RET lines")
        return 99

    # Pair the gdb events per function: a call event, then its ret event.
    gcalls = {}
    open_calls = {}
    for ev in res["events"]:
        pn = ev["program_name"]
        if ev["kind"] == "call":
            rec = {"call": ev, "ret": None}
            gcalls.setdefault(pn, []).append(rec)
            open_calls.setdefault(pn, []).append(rec)
        else:
            st = open_calls.get(pn)
            if not st:
                problems.append("%s: RET stop at %s without a body stop" % (pn, ev["pc"]))
                continue
            st.pop()["ret"] = ev

    counts = {"calls": 0, "params": 0, "results": 0, "mismatches": 0, "skipped": 0}
    skip_kinds = {}

    def skipped(why):
        counts["skipped"] += 1
        skip_kinds[why] = skip_kinds.get(why, 0) + 1

    def check(pn, ev, kv, what):
        """Compare one stop's values with the program's line; return keys used."""
        used = set()
        if ev is None:
            problems.append("%s: no %s stop (the program printed %s)" % (pn, what, kv))
            counts["mismatches"] += 1
            return used
        if ev.get("sp_delta"):
            notes.append("%s: SP at %s is entry SP - %d" % (pn, ev["pc"], ev["sp_delta"]))
        if "params_error" in ev:
            for k in kv:
                skipped("params_error: " + ev["params_error"])
            return set(kv)
        for v in ev["values"]:
            desc = "%s %s %s %s (%s) pieces=%s" % (
                pn, what, v["kind"], v["name"], v["type"], json.dumps(v["pieces"]))
            if "error" in v:
                if v["name"] in kv:
                    counts["mismatches"] += 1
                    problems.append("%s: %s; program: %s=%s" % (desc, v["error"], v["name"], kv[v["name"]]))
                    used.add(v["name"])
                else:
                    skipped("not printed by the program")
                continue
            if "skip" in v:
                skipped(v["skip"])
                if verbose:
                    notes.append("skip %s: %s" % (desc, v["skip"]))
                continue
            common = [k for k in v["keys"] if k in kv]
            if not common:
                skipped("not printed by the program")
                if verbose:
                    notes.append("skip %s: not printed" % desc)
                continue
            bad = []
            for k in common:
                kind, got = v["keys"][k]
                if not equal(kind, got, kv[k]):
                    bad.append("%s: read %r, program %s" % (k, got, kv[k]))
                used.add(k)
            counts["params" if v["kind"] == "param" else "results"] += 1
            if bad:
                counts["mismatches"] += 1
                problems.append("%s bytes=%s: %s" % (desc, v.get("bytes"), "; ".join(bad)))
            elif verbose:
                notes.append("ok %s: %s" % (desc, ", ".join(
                    "%s=%s" % (k, kv[k]) for k in common)))
        for k in kv:
            if k not in used:
                skipped("printed by the program, no gostap value")
                notes.append("%s %s: the program prints %s=%s, gostap gives no value for it"
                             % (pn, what, k, kv[k]))
        return used

    for pn, pcalls in prog.items():
        gl = gcalls.get(pn, [])
        for i, (ckv, rkv) in enumerate(pcalls):
            counts["calls"] += 1
            if i >= len(gl):
                counts["mismatches"] += 1
                problems.append("%s: call %d printed by the program, no stop under gdb" % (pn, i + 1))
                continue
            if ckv is not None:
                check(pn, gl[i]["call"], ckv, "call")
            check(pn, gl[i]["ret"], rkv, "ret")
        for extra in gl[len(pcalls):]:
            n = len(extra["call"].get("values", [])) + \
                len((extra["ret"] or {}).get("values", []))
            for _ in range(n):
                skipped("call made without a CALL line")
            if verbose:
                notes.append("skip %s: a call without a CALL line (%d values)" % (pn, n))
    for pn in gcalls:
        if pn not in prog and verbose:
            notes.append("skip %s: the program prints no calls of it" % pn)
    for pn, gl in gcalls.items():
        if pn not in prog:
            for rec in gl:
                n = len(rec["call"].get("values", [])) + \
                    len((rec["ret"] or {}).get("values", []))
                for _ in range(n):
                    skipped("call made without a CALL line")

    for n in notes:
        print("# note " + n)
    if verbose:
        for k, n in sorted(skip_kinds.items()):
            print("# skipped %d: %s" % (n, k))
    print("# skipped-kinds: " + json.dumps(skip_kinds, sort_keys=True))
    tap = Tap()
    tap.check("%sthe %d params and %d results read under gdb from the pieces "
              "gostap reports equal what %d calls printed"
              % (label, counts["params"], counts["results"], counts["calls"]),
              problems)
    # Each counted mismatch is one problem, and so is each gdb error.
    return tap.finish(dict(calls=counts["calls"], params=counts["params"],
                           results=counts["results"], mismatches=len(problems),
                           skipped=counts["skipped"]))


try:
    import gdb  # noqa: F401
    IN_GDB = True
except ImportError:
    IN_GDB = False

if IN_GDB:
    try:
        gdb_main()
    except Exception as e:  # report and let gdb -batch end
        import traceback
        traceback.print_exc()
        sys.stderr.write("check-values.py (gdb side): %s\n" % e)
elif __name__ == "__main__":
    sys.exit(main())
