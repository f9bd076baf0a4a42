#!/bin/bash
# Hostile input: fixture binaries damaged systematically, each run through
# `gostap list --json`, `gostap gen -o DIR 'main.*'` and `gostap companion
# BINARY -o DIR` (which writes on the cases of the -w base, the others
# having DWARF). For every case:
#   - exit status 0, 1 or 2: no signal, no sanitizer report (CI runs this on
#     the ASan/UBSan build), no hang (timeout);
#   - when failing: at most one error line on stderr (lines with
#     ": warning: " are allowed) and, for gen and companion, no file left in
#     DIR;
#   - when succeeding: only warnings on stderr, list prints valid JSON, the
#     tapsets gen wrote pass check-tapset-lines.py, and companion wrote one
#     file, the path it printed, that readelf reads without a complaint.
# Damage (python3, below): truncation at many offsets (ELF and program
# headers, pclntab header, name table, file table, pc tables, functab,
# _func records, DWARF, .go.buildinfo), "cut" copies (truncated at an
# offset, then section and program headers repaired to fit, so the reader
# gets past the ELF checks), random byte flips inside .gopclntab,
# .go.buildinfo, .debug_info/.debug_line/.debug_abbrev/.debug_loc* and
# .text, pclntab header words (nfunc, table offsets, textStart, quantum,
# pointer size) zero, at the end, past it or huge, functab entries that
# overlap, run backwards or point to wrong records, names and file names
# without their NUL or with control characters and quotes, a hostile Go
# version string, zero-size and out-of-range sections, 32-bit, big-endian
# and other-architecture ELF headers, broken program headers.
# Environment: HOSTILE_SEED (default: the commit's count of commits, so
# each commit runs another sample and other flips; printed, to run a
# failing one again) varies the random flips and the sample; HOSTILE_CASES
# (default 350, or "all": about 1,200; 700 took 806 s of a CI run under
# ASan) how many cases are run; HOSTILE_TIMEOUT (default 60 s) is the
# limit of one gostap run; HOSTILE_KEEP=DIR keeps the failing cases
# there; HOSTILE_VERBOSE=1 counts the kinds of first stderr lines.
. "${top_srcdir:-$(dirname "$0")/..}/testsuite/test-subr.sh"

fixture_manifest > /dev/null
bases=()
# 1.20 pclntab with DWARF; 1.18 pclntab with .symtab only; Go 1.26 PIE
# (textStart 0, .data.rel.ro.gopclntab, .go.module); arm64.
for spec in "1.22 default abi" "1.19 w grow" "1.26 pie abi" "1.27 arm64 grow"; do
  # shellcheck disable=SC2086
  p=$(fixture $spec)
  if [ -n "$p" ] && [ -f "$p" ]; then bases+=("$p"); else echo "# no fixture for $spec" >&2; fi
done
[ "${#bases[@]}" -gt 0 ] || hard_error "no fixture binaries in the manifest"

mkdir "$tmp/cases"
seed=${HOSTILE_SEED:-$(git -C "$top_srcdir" rev-list --count HEAD 2>/dev/null || echo 1)}
echo "# hostile: HOSTILE_SEED=$seed"
python3 - "$tmp/cases" "$seed" "${HOSTILE_CASES:-350}" "${bases[@]}" <<'EOF'
import os
import random
import struct
import sys

outdir, seed, limit, bases = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
rng = random.Random(seed)
cases = {}


def emit(base, what, data):
    cases["%s~%s" % (os.path.basename(base), what)] = data


class Elf:
    def __init__(self, data):
        self.d = bytes(data)
        (self.type, self.machine, _, _, self.phoff, self.shoff, _, _,
         self.phentsize, self.phnum, self.shentsize, self.shnum,
         self.shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", self.d, 16)
        self.sh = {}      # name -> (index, offset, size, addr)
        if self.shoff and self.shnum:
            stroff = self.shdr(self.shstrndx)[4]
            for i in range(self.shnum):
                h = self.shdr(i)
                n = self.d[stroff + h[0]:self.d.index(b"\0", stroff + h[0])].decode()
                self.sh[n] = (i, h[4], h[5], h[3])

    def shdr(self, i):
        return struct.unpack_from("<IIQQQQIIQQ", self.d, self.shoff + 64 * i)

    def phdr(self, i):
        return struct.unpack_from("<IIQQQQQQ", self.d, self.phoff + self.phentsize * i)


def put(data, off, fmt, *v):
    d = bytearray(data)
    struct.pack_into(fmt, d, off, *v)
    return bytes(d)


def cut(e, at):
    """The file truncated at AT, with headers that still describe it:
    segments and sections clamped to AT, section headers appended."""
    d = bytearray(e.d[:at])
    if at < 64 + e.phnum * e.phentsize:
        return bytes(d)
    for i in range(e.phnum):
        t, fl, off, va, pa, fsz, msz, al = e.phdr(i)
        if off >= at:
            fsz = 0
        elif off + fsz > at:
            fsz = at - off
        struct.pack_into("<IIQQQQQQ", d, e.phoff + e.phentsize * i, t, fl, off, va, pa, fsz, msz, al)
    shoff = (len(d) + 7) & ~7
    d += b"\0" * (shoff - len(d))
    shs = bytearray()
    for i in range(e.shnum):
        h = list(e.shdr(i))
        if h[1] != 8:                      # not NOBITS
            if h[4] >= at:
                h[5] = 0
                h[4] = min(h[4], at)
            elif h[4] + h[5] > at:
                h[5] = at - h[4]
        shs += struct.pack("<IIQQQQIIQQ", *h)
    # The section name table must stay readable for sections to be found.
    stri = e.shdr(e.shstrndx)
    if stri[4] + stri[5] > at:
        strtab = e.d[stri[4]:stri[4] + stri[5]]
        stroff = len(d) + len(shs)
        h = list(stri)
        h[4], h[5] = stroff, len(strtab)
        struct.pack_into("<IIQQQQIIQQ", shs, 64 * e.shstrndx, *h)
        d += shs + strtab
    else:
        d += shs
    struct.pack_into("<Q", d, 0x28, shoff)
    return bytes(d)


def flips(data, off, size, n):
    d = bytearray(data)
    for _ in range(n):
        p = off + rng.randrange(max(size, 1))
        d[p] ^= 1 << rng.randrange(8)
    return bytes(d)


for base in bases:
    data = open(base, "rb").read()
    e = Elf(data)
    size = len(data)
    pcln = e.sh.get(".gopclntab") or e.sh.get(".data.rel.ro.gopclntab")
    secs = {n: v for n, v in e.sh.items()}

    # --- truncation, plain (section headers lost) and "cut" (repaired)
    offs = {"ehdr": 10, "ehdr-end": 63, "phdrs": 64 + 30,
            "phdrs-end": 64 + e.phnum * e.phentsize}
    for k in range(1, 8):
        offs["at%d" % k] = size * k // 8
    offs["last"] = size - 1
    P = None
    if pcln:
        po, ps = pcln[1], pcln[2]
        hdr = struct.unpack_from("<8Q", data, po + 8)
        magic = struct.unpack_from("<I", data, po)[0]
        P = dict(off=po, size=ps, magic=magic)
        if magic in (0xfffffff0, 0xfffffff1):
            nfunc, nfiles, tstart, names, cu, files, pcs, ftab = hdr
            P.update(nfunc=nfunc, names=names, cu=cu, files=files, pcs=pcs, ftab=ftab)
            offs.update({
                "pcln-magic": po + 2, "pcln-hdr": po + 20, "pcln-hdr-end": po + 70,
                "funcnames": po + names + 5, "funcnames-mid": po + (names + cu) // 2,
                "cutab": po + cu + 3, "filetab-mid": po + (files + pcs) // 2,
                "pctab": po + pcs + 1, "pctab-mid": po + (pcs + ftab) // 2,
                "functab": po + ftab + 4, "functab-mid": po + ftab + nfunc * 4,
                "funcrecs": po + ftab + (nfunc + 1) * 8 + 10,
                "funcrecs-mid": po + (ftab + (nfunc + 1) * 8 + ps) // 2,
                "pcln-last": po + ps - 1})
    for n in (".go.buildinfo", ".debug_info", ".debug_line", ".debug_abbrev",
              ".debug_loc", ".debug_loclists", ".debug_frame", ".symtab", ".strtab"):
        if n in secs and secs[n][2] > 0:
            offs["%s-start" % n.lstrip(".")] = secs[n][1] + 7
            offs["%s-mid" % n.lstrip(".")] = secs[n][1] + secs[n][2] // 2
    for name, at in sorted(offs.items()):
        if 0 < at < size:
            emit(base, "trunc-" + name, data[:at])
            emit(base, "cut-" + name, cut(e, at))

    # --- random byte flips inside sections
    for n, counts in ((".gopclntab", (1, 4, 16, 64, 256)),
                      (".data.rel.ro.gopclntab", (1, 16, 64)),
                      (".go.buildinfo", (1, 4, 16)),
                      (".debug_info", (1, 8, 64, 512)),
                      (".debug_abbrev", (1, 8)), (".debug_line", (1, 16)),
                      (".debug_loc", (8, 64)), (".debug_loclists", (8, 64)),
                      (".text", (8, 256)), (".note.go.buildid", (4,))):
        if n in secs and secs[n][2] > 0:
            for c in counts:
                emit(base, "flip%d-%s" % (c, n.lstrip(".")), flips(data, secs[n][1], secs[n][2], c))

    # --- pclntab header words
    if P and "ftab" in P:
        po = P["off"]
        for w, name in enumerate(("nfunc", "nfiles", "textstart", "names", "cutab",
                                  "filetab", "pctab", "functab")):
            for label, v in (("zero", 0), ("end", P["size"]), ("endm1", P["size"] - 1),
                             ("past", P["size"] + 4096), ("huge", 0xffffffffffffffff),
                             ("big", 0x7fffffff), ("plus1", struct.unpack_from("<Q", data, po + 8 + 8 * w)[0] + 1)):
                emit(base, "hdr-%s-%s" % (name, label), put(data, po + 8 + 8 * w, "<Q", v))
        for label, b6, b7 in (("quantum0", 0, 8), ("quantum3", 3, 8), ("quantum4", 4, 8),
                              ("ptr4", 1, 4), ("ptr0", 1, 0)):
            emit(base, "hdr-" + label, put(data, po + 6, "<BB", b6, b7))
        for m in (0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1, 0xfffffff2):
            emit(base, "hdr-magic-%x" % m, put(data, po, "<I", m))

        # --- functab: overlapping, backwards, wrong records
        ft = po + P["ftab"]
        nf = P["nfunc"]
        ent = lambda i: struct.unpack_from("<II", data, ft + 8 * i)
        mid = nf // 2
        d = bytearray(data)
        struct.pack_into("<I", d, ft + 8 * mid, ent(mid - 1)[0])          # equal entries
        emit(base, "ftab-dup-entry", bytes(d))
        d = bytearray(data)
        struct.pack_into("<I", d, ft + 8 * mid, ent(mid + 1)[0] + 64)     # overlaps next
        emit(base, "ftab-overlap", bytes(d))
        d = bytearray(data)
        a, b = ent(mid), ent(mid + 1)
        struct.pack_into("<IIII", d, ft + 8 * mid, b[0], b[1], a[0], a[1])  # swapped
        emit(base, "ftab-swapped", bytes(d))
        d = bytearray(data)
        for i in range(nf + 1):                                           # all backwards
            struct.pack_into("<I", d, ft + 8 * i, ent(nf - i)[0])
        emit(base, "ftab-reversed", bytes(d))
        d = bytearray(data)
        for i in range(nf + 1):                                           # all the same
            struct.pack_into("<I", d, ft + 8 * i, ent(0)[0])
        emit(base, "ftab-all-same", bytes(d))
        emit(base, "ftab-end-huge", put(data, ft + 8 * nf, "<I", 0xffffffff))
        emit(base, "ftab-end-before", put(data, ft + 8 * nf, "<I", ent(nf - 1)[0]))
        d = bytearray(data)
        for i in range(0, nf, 3):
            struct.pack_into("<I", d, ft + 8 * i + 4, 0xfffffff0)        # funcoff out of range
        emit(base, "ftab-funcoff-huge", bytes(d))
        d = bytearray(data)
        for i in range(1, nf):
            struct.pack_into("<I", d, ft + 8 * i + 4, ent(0)[1])          # all the same record
        emit(base, "ftab-funcoff-same", bytes(d))
        d = bytearray(data)
        for i in range(nf):
            struct.pack_into("<I", d, ft + 8 * i, ent(i)[0] & ~0xf)      # entries moved into others
        emit(base, "ftab-entries-misaligned", bytes(d))
        # _func records: pcsp/pcfile/pcln/npcdata/cuoff/nameoff garbage
        recs = [ft + ent(i)[1] for i in range(nf) if ft + ent(i)[1] + 44 <= po + P["size"]]
        for field, label in ((1, "nameoff"), (4, "pcsp"), (5, "pcfile"), (6, "pcln"),
                             (7, "npcdata"), (8, "cuoff")):
            for vlabel, v in (("huge", 0xffffffff), ("end", P["size"] - P["pcs"] - 1), ("zero", 0)):
                d = bytearray(data)
                for r in recs:
                    struct.pack_into("<I", d, r + 4 * field, v)
                emit(base, "rec-%s-%s" % (label, vlabel), bytes(d))
        # pc tables: all bytes 0xff (endless varints), or big deltas
        d = bytearray(data)
        s0, s1 = po + P["pcs"] + 1, po + P["ftab"]
        d[s0:s1] = b"\xff" * (s1 - s0)
        emit(base, "pctab-all-ff", bytes(d))
        d = bytearray(data)
        d[s0:s1] = bytes(rng.randrange(256) for _ in range(s1 - s0))
        emit(base, "pctab-random", bytes(d))
        d = bytearray(data)
        d[s0:s1] = (b"\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01\x01" * ((s1 - s0) // 11 + 1))[:s1 - s0]
        emit(base, "pctab-minvalue", bytes(d))

        # --- names: no NUL, control characters, quotes, empty
        n0, n1 = po + P["names"], po + P["cu"]
        d = bytearray(data)
        d[n0:n1] = d[n0:n1].replace(b"\0", b"A")
        emit(base, "names-no-nul", bytes(d))
        d = bytearray(data)
        tail = d[n1 - 4096:n1].replace(b"\0", b"B")
        d[n1 - 4096:n1] = tail
        emit(base, "names-tail-no-nul", bytes(d))
        for label, rep in (("ctrl", b"\x01\n\r\t\x1b"), ("quote", b'"\\%{}*/'),
                           ("high", b"\xff\xfe\x80\xc3"), ("glob", b"*?[]"),
                           ("stap", b"%{ }%; probe begin { } //")):
            d = bytearray(data)
            seg = bytearray(d[n0:n1])
            p = 0
            while True:
                q = seg.find(b"main.", p)
                if q < 0:
                    break
                end = seg.index(b"\0", q)
                for k in range(q + 5, end):
                    seg[k] = rep[(k - q) % len(rep)]
                p = end
            d[n0:n1] = seg
            emit(base, "names-main-" + label, bytes(d))
        d = bytearray(data)
        seg = bytearray(d[n0:n1])
        q = seg.find(b"main.")
        if q >= 0:
            seg[q] = 0                                                   # empty name
            d[n0:n1] = seg
            emit(base, "names-empty", bytes(d))
        # file names
        f0, f1 = po + P["files"], po + P["pcs"]
        for label, rep in (("ctrl", b"\x01\n\""), ("no-nul", None)):
            d = bytearray(data)
            seg = bytearray(d[f0:f1])
            if rep is None:
                seg = seg.replace(b"\0", b"F")
            else:
                for k in range(0, len(seg), 7):
                    if seg[k]:
                        seg[k] = rep[k % len(rep)]
            d[f0:f1] = seg
            emit(base, "files-" + label, bytes(d))

    # --- build info: hostile version strings
    if ".go.buildinfo" in secs:
        bo, bs = secs[".go.buildinfo"][1], secs[".go.buildinfo"][2]
        if data[bo + 15] & 2:
            for label, v in (("quote", b'go1.22.1"; %{ evil %}\n'), ("long", b"go1." + b"9" * 120),
                             ("ctrl", b"go1.2\x01\x02\n\r"), ("notgo", b"banana")):
                d = bytearray(data)
                d[bo + 32] = min(len(v), 127)
                d[bo + 33:bo + 33 + min(len(v), 127)] = v[:127]
                emit(base, "buildinfo-" + label, bytes(d))
            emit(base, "buildinfo-varint-huge", put(data, bo + 32, "<BBBBB", 0xff, 0xff, 0xff, 0xff, 0x7f))
        emit(base, "buildinfo-ptrsize0", put(data, bo + 14, "<BB", 0, 0))
        emit(base, "buildinfo-oldstyle-huge", put(data, bo + 14, "<BBQQ", 8, 0, 0xfffffffffffffff0, 0x7ffffffffffffff0))

    # --- section headers
    if e.shoff:
        for n in (".gopclntab", ".data.rel.ro.gopclntab", ".go.buildinfo", ".text", ".debug_info",
                  ".debug_line", ".debug_abbrev", ".symtab", ".strtab", ".go.module", ".shstrtab",
                  ".note.go.buildid", ".debug_loc", ".debug_loclists"):
            if n not in secs:
                continue
            i = secs[n][0]
            o = e.shoff + 64 * i
            emit(base, "shdr-%s-size0" % n.lstrip("."), put(data, o + 32, "<Q", 0))
            emit(base, "shdr-%s-offhuge" % n.lstrip("."), put(data, o + 24, "<Q", 0xfffffffffffff000))
            emit(base, "shdr-%s-sizehuge" % n.lstrip("."), put(data, o + 32, "<Q", 0x7ffffffffffff000))
            emit(base, "shdr-%s-nobits" % n.lstrip("."), put(data, o + 4, "<I", 8))
            emit(base, "shdr-%s-pastend" % n.lstrip("."), put(data, o + 24, "<QQ", size - 16, 4096))
        emit(base, "ehdr-shstrndx-bad", put(data, 0x3e, "<H", 0xfffe))
        emit(base, "ehdr-shnum-huge", put(data, 0x3c, "<H", 0xffff))
        emit(base, "ehdr-shoff-past", put(data, 0x28, "<Q", size + 64))
        emit(base, "ehdr-shoff-zero", put(data, 0x28, "<Q", 0))
        emit(base, "ehdr-shentsize-bad", put(data, 0x3a, "<H", 32))
        # symtab entries with huge names / addresses
        if ".symtab" in secs:
            so, ss = secs[".symtab"][1], secs[".symtab"][2]
            d = bytearray(data)
            for k in range(so + 24, so + ss, 24 * 5):
                struct.pack_into("<I", d, k, 0xfffffff0)
            emit(base, "symtab-names-huge", bytes(d))

    # --- ELF header: class, data, machine, type
    for label, off, fmt, v in (("class32", 4, "<B", 1), ("bigendian", 5, "<B", 2),
                               ("class0", 4, "<B", 0), ("i386", 18, "<H", 3),
                               ("arm32", 18, "<H", 40), ("riscv", 18, "<H", 243),
                               ("ppc64", 18, "<H", 21), ("s390", 18, "<H", 22),
                               ("aarch64", 18, "<H", 183), ("x86_64", 18, "<H", 62),
                               ("rel", 16, "<H", 1), ("core", 16, "<H", 4),
                               ("dyn", 16, "<H", 3), ("phnum0", 0x38, "<H", 0),
                               ("phnum-huge", 0x38, "<H", 0xffff),
                               ("phoff-huge", 0x20, "<Q", 0xfffffffffffffff0),
                               ("phentsize-bad", 0x36, "<H", 12)):
        emit(base, "ehdr-" + label, put(data, off, fmt, v))
    # 32-bit header claims over a 64-bit body
    d = bytearray(data)
    d[4] = 1
    struct.pack_into("<HHI", d, 16, 2, 3, 1)
    emit(base, "ehdr-i386-class32", bytes(d))

    # --- program headers
    for i in range(e.phnum):
        t = e.phdr(i)
        if t[0] != 1:
            continue
        o = e.phoff + e.phentsize * i
        emit(base, "phdr%d-filesz-huge" % i, put(data, o + 32, "<Q", 0x7ffffffffffff000))
        emit(base, "phdr%d-offset-huge" % i, put(data, o + 8, "<Q", 0xfffffffffffff000))
        emit(base, "phdr%d-vaddr-wrap" % i, put(data, o + 16, "<Q", 0xfffffffffffff000))
        emit(base, "phdr%d-null" % i, put(data, o, "<I", 0))
        emit(base, "phdr%d-filesz0" % i, put(data, o + 32, "<Q", 0))
    d = bytearray(data)
    first = [i for i in range(e.phnum) if e.phdr(i)[0] == 1]
    if len(first) >= 2:
        a, b = first[0], first[1]
        va = e.phdr(a)[3]
        struct.pack_into("<Q", d, e.phoff + e.phentsize * b + 16, va)   # two segments at one vaddr
        emit(base, "phdr-overlap", bytes(d))
    d = bytearray(data)
    for i in range(e.phnum):
        if e.phdr(i)[0] == 1:
            struct.pack_into("<I", d, e.phoff + e.phentsize * i + 4, 4)   # nothing executable
    emit(base, "phdr-noexec", bytes(d))

# Keep at most LIMIT cases (HOSTILE_CASES; "all" for every one): a sample
# that keeps every kind of damage and varies with HOSTILE_SEED.
names = sorted(cases)
if limit != "all" and len(names) > int(limit):
    kinds = {}
    for n in names:
        kinds.setdefault("-".join(n.split("~", 1)[1].split("-")[:2]), []).append(n)
    keep = set(rng.choice(v) for v in kinds.values())
    rest = [n for n in names if n not in keep]
    keep |= set(rng.sample(rest, max(0, int(limit) - len(keep))))
    names = sorted(keep)
for n in names:
    with open(os.path.join(outdir, n), "wb") as f:
        f.write(cases[n])
print("# hostile: %d cases generated, %d kept" % (len(cases), len(names)))
EOF

# Run the cases, several at a time.
export HOSTILE_TIMEOUT=${HOSTILE_TIMEOUT:-60}
# gen writes the companion debug file of a case with no DWARF and no
# .symtab into gostap's cache (as gostap run does): this test's own.
export XDG_CACHE_HOME=$tmp/xdg
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87}
python3 - "$tmp" "$GOSTAP" "$testsuite/check-tapset-lines.py" <<'EOF'
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

tmp, gostap, checker = sys.argv[1:4]
cases = sorted(os.listdir(os.path.join(tmp, "cases")))
limit = int(os.environ["HOSTILE_TIMEOUT"])
SAN = re.compile(r"runtime error:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|"
                 r"MemorySanitizer|SUMMARY: ")
failures = []
stats = collections.Counter()
messages = collections.Counter()
keep = os.environ.get("HOSTILE_KEEP")


def run(argv):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=limit)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", b"", ""


def judge(case, cmd, st, out, err):
    probs = []
    if st == "timeout":
        return ["hang: no exit within %d s" % limit]
    if st < 0:
        probs.append("killed by signal %d" % -st)
    elif st not in (0, 1, 2):
        probs.append("exit status %d" % st)
    if SAN.search(err):
        probs.append("sanitizer report")
    lines = [l for l in err.splitlines() if l.strip()]
    errors = [l for l in lines if ": warning: " not in l]
    if st in (1, 2):
        if len(errors) > 1:
            probs.append("%d error lines" % len(errors))
        if cmd == "list" and out:
            probs.append("output on stdout when failing")
    elif st == 0 and errors:
        probs.append("error lines when succeeding")
    return probs


def one(case):
    path = os.path.join(tmp, "cases", case)
    res = []
    st, out, err = run([gostap, "list", "--json", path])
    p = judge(case, "list", st, out, err)
    if st == 0 and not p:
        try:
            json.loads(out)
        except ValueError as e:
            p.append("list --json: not JSON: %s" % e)
    res.append(("list", st, p, err))
    d = os.path.join(tmp, "out", case)
    os.makedirs(d)
    st, out, err = run([gostap, "gen", path, "-o", d, "main.*"])
    p = judge(case, "gen", st, out, err)
    if st in (1, 2) and os.listdir(d):
        p.append("files left in the output directory: %s" % " ".join(sorted(os.listdir(d))[:5]))
    if st == 0 and not p:
        c = subprocess.run([sys.executable, checker, d], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if c.returncode != 0:
            p.append("check-tapset-lines.py: " + c.stdout.decode("utf-8", "replace").strip())
    res.append(("gen", st, p, err))
    shutil.rmtree(d, ignore_errors=True)
    # companion: on a binary without DWARF (the -w base), the ELF and DWARF
    # writer runs; a failure leaves no file, a success one whole file.
    os.makedirs(d)
    st, out, err = run([gostap, "companion", path, "-o", d])
    p = judge(case, "companion", st, out, err)
    files = [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs]
    if st in (1, 2) and files:
        p.append("files left: %s" % " ".join(sorted(files)[:3]))
    if st == 0 and not p:
        said = (out.decode("utf-8", "replace") if isinstance(out, bytes) else out).strip()
        if len(files) != 1 or not files[0].endswith(".debug") or said != files[0]:
            p.append("companion wrote %s, said %r" % (files, said))
        else:
            c = subprocess.run(["readelf", "-S", "--debug-dump=info", files[0]],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if c.returncode != 0 or c.stderr:
                p.append("readelf on the companion: %s" % c.stderr.decode("utf-8", "replace")[:200])
    res.append(("companion", st, p, err))
    shutil.rmtree(d, ignore_errors=True)
    return case, res


os.makedirs(os.path.join(tmp, "out"))
with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
    for case, res in ex.map(one, cases):
        for cmd, st, p, err in res:
            stats["%s exit %s" % (cmd, st)] += 1
            for l in err.splitlines()[:1]:
                # the kind of message: without the path and the numbers
                l = l.replace(os.path.join(tmp, "cases", case), "FILE")
                messages["%s %s: %s" % (cmd, st, re.sub(r"0x[0-9a-f]+|[0-9]+", "N", l.split(": ", 1)[-1])[:90])] += 1
            if p and keep:
                os.makedirs(keep, exist_ok=True)
                shutil.copy(os.path.join(tmp, "cases", case), keep)
            if p:
                failures.append((case, cmd, st, p, err))
                print("not ok - %s %s: exit %s: %s" % (cmd, case, st, "; ".join(p)))
                for l in err.splitlines()[:12]:
                    print("#   " + l)
if os.environ.get("HOSTILE_VERBOSE"):
    for m, n in sorted(messages.items()):
        print("# %5d  %s" % (n, m))
print("# hostile: %d cases, %d runs; %s" % (
    len(cases), 3 * len(cases),
    ", ".join("%s: %d" % kv for kv in sorted(stats.items()))))
print("# hostile: %d failing runs" % len(failures))
sys.exit(1 if failures else 0)
EOF
