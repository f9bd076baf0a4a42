#!/usr/bin/env python3
"""make-seeds.py: small seed inputs for fuzz-reader from real Go binaries.

A Go binary is 1-2 MB, most of it code and tables of the runtime: too large
for a fuzzer to mutate well.  This writes, for each Go binary given (Go 1.18+
pclntab, with section headers), a small ELF file (10-40 KB) that gostap
reads the same way: a few chosen functions of the original, their code laid
end to end from the original text start, a pclntab rebuilt for just these
functions (names, pcsp/pcfile/pcln/pcdata tables, the CU and file tables),
the .go.buildinfo section and the Go build-id note.  Code is moved, so calls
between functions point elsewhere; the reader does not follow them.

Variants written for each binary, as OUTDIR/<name>-<variant>:
  small     section headers .text .gopclntab .go.buildinfo .note.go.buildid
  noshdr    the same without section headers (pclntab found by scanning)
  dwarf0    small with a .debug_info of one empty unit
  trunc-N   the small file cut at N% of its length (N = 25 50 75 95)

Usage: make-seeds.py OUTDIR BINARY...
"""

import os
import struct
import sys

FIRST = 12          # the first functions of the text (runtime, assembly)
NAMED = ("runtime.newstack", "runtime.newproc1", "runtime.goexit1",
         "runtime.casgstatus", "runtime.morestack", "runtime.gcStart")
MAX_MAIN = 24       # functions of package main


def u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


class Elf:
    def __init__(self, data):
        self.d = data
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise ValueError("not a little-endian ELF64 file")
        (self.type, self.machine, _, self.entry, self.phoff, self.shoff, _,
         _, self.phentsize, self.phnum, self.shentsize, self.shnum,
         self.shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", data, 16)
        self.sections = {}
        shdrs = [struct.unpack_from("<IIQQQQIIQQ", data, self.shoff + i * 64)
                 for i in range(self.shnum)]
        stroff = shdrs[self.shstrndx][4]
        for sh in shdrs:
            name = data[stroff + sh[0]:data.index(b"\0", stroff + sh[0])]
            self.sections[name.decode()] = sh

    def section(self, name):
        sh = self.sections.get(name)
        if sh is None:
            return None, None
        return sh[3], self.d[sh[4]:sh[4] + sh[5]]   # addr, bytes


def pc_table(pctab, off, size, quantum):
    """The bytes of the pc-value table at OFF, with its terminator."""
    if off == 0:
        return b""
    p, pc, step = off, 0, 0
    while pc < size:
        vals = []
        for _ in range(2):
            v, shift = 0, 0
            while True:
                c = pctab[p]
                p += 1
                v |= (c & 0x7f) << shift
                shift += 7
                if not c & 0x80:
                    break
            vals.append(v)
        if vals[0] == 0 and step != 0:
            return pctab[off:p - 1] + b"\0"   # ended early: keep the 0
        pc += vals[1] * quantum
        step += 1
    return pctab[off:p] + b"\0"


def pc_values(pctab, off, size, quantum):
    """The values of the pc-value table at OFF."""
    t = pc_table(pctab, off, size, quantum)
    p, val, out = 0, -1, []
    while p < len(t) - 1:
        vals = []
        for _ in range(2):
            v, shift = 0, 0
            while True:
                c = t[p]
                p += 1
                v |= (c & 0x7f) << shift
                shift += 7
                if not c & 0x80:
                    break
            vals.append(v)
        if vals[0] == 0 and out:
            break
        val += -(vals[0] >> 1) - 1 if vals[0] & 1 else vals[0] >> 1
        out.append(val)
    return out


def subset(path):
    data = open(path, "rb").read()
    elf = Elf(data)
    text_addr, _ = elf.section(".text")
    pcln_addr, pcln = elf.section(".gopclntab")
    bi_addr, buildinfo = elf.section(".go.buildinfo")
    _, note = elf.section(".note.go.buildid")
    if pcln is None or text_addr is None:
        raise ValueError("no .gopclntab or .text section")
    magic = u32(pcln, 0)
    if magic not in (0xfffffff0, 0xfffffff1):
        raise ValueError("pclntab magic %#x: only Go 1.18+ is handled" % magic)
    quantum = pcln[6]
    nfunc, nfiles, text_start, names, cu, files, pcs, ftab = \
        struct.unpack_from("<8Q", pcln, 8)
    if text_start == 0:                 # Go 1.26+: the text section start
        text_start = text_addr
    fixed = 44 if magic == 0xfffffff1 else 40     # the _func record

    funcs = []
    for i in range(nfunc):
        e = ftab + 8 * i
        entryoff, funcoff = u32(pcln, e), u32(pcln, e + 4)
        end = u32(pcln, e + 8)
        rec = ftab + funcoff
        nameoff = u32(pcln, rec + 4)
        name = pcln[names + nameoff:pcln.index(b"\0", names + nameoff)]
        funcs.append((entryoff, end, rec, name.decode("utf-8", "replace")))

    mains = [i for i, f in enumerate(funcs) if f[3].startswith("main.")]
    chosen = set(range(min(FIRST, nfunc))) | set(mains[:MAX_MAIN])
    chosen |= {i for i, f in enumerate(funcs) if f[3] in NAMED}
    chosen = sorted(chosen)

    # Text: the chosen functions end to end.
    text = bytearray()
    newfuncs = []
    for i in chosen:
        entryoff, end, rec, name = funcs[i]
        # Code bytes of the function in the original file.
        src = None
        for (ptype, flags, off, vaddr, _, filesz) in phdrs(elf):
            a = text_start + entryoff
            if ptype == 1 and vaddr <= a and a + (end - entryoff) <= vaddr + filesz:
                src = data[off + a - vaddr:off + a - vaddr + end - entryoff]
        if src is None:
            raise ValueError("code of %s not in the file" % name)
        newfuncs.append((len(text), i))
        text += src

    # pclntab: header, funcnametab, cutab, filetab, pctab, functab.
    namebuf = bytearray()
    pctab = bytearray(b"\0")            # offset 0 means "no table"
    recs = []
    for newoff, i in newfuncs:
        entryoff, end, rec, name = funcs[i]
        r = bytearray(pcln[rec:rec + fixed])
        nameoff = len(namebuf)
        namebuf += name.encode() + b"\0"
        struct.pack_into("<I", r, 0, newoff)
        struct.pack_into("<I", r, 4, nameoff)
        for field in (4, 5, 6):          # pcsp pcfile pcln
            o = 4 + (field - 1) * 4
            t = pc_table(pcln[pcs:], u32(r, o), end - entryoff, quantum)
            struct.pack_into("<I", r, o, len(pctab) if t else 0)
            pctab += t
        npcdata = u32(r, 4 + 6 * 4)
        pcdata = bytearray()
        for k in range(npcdata):
            off = u32(pcln, rec + fixed + 4 * k)
            t = pc_table(pcln[pcs:], off, end - entryoff, quantum)
            pcdata += struct.pack("<I", len(pctab) if t else 0)
            pctab += t
        r[fixed - 1] = 0                  # nfuncdata
        recs.append(bytes(r) + bytes(pcdata))
    # The file table: only the files the kept functions' pcfile tables
    # name; other CU entries become ~0 (Go's "no file").
    cutab = bytearray(pcln[cu:files])
    used = set()
    for _, i in newfuncs:
        entryoff, end, rec, name = funcs[i]
        cuoff = u32(pcln, rec + 4 + 7 * 4)
        for fno in pc_values(pcln[pcs:], u32(pcln, rec + 4 + 4 * 4),
                             end - entryoff, quantum):
            if 0 <= fno and (cuoff + fno) * 4 + 4 <= len(cutab):
                used.add(cuoff + fno)
    filetab = bytearray()
    for k in range(len(cutab) // 4):
        o = u32(cutab, 4 * k)
        if k in used and o != 0xffffffff and files + o < pcs:
            fname = pcln[files + o:pcln.index(b"\0", files + o) + 1]
            struct.pack_into("<I", cutab, 4 * k, len(filetab))
            filetab += fname
        else:
            struct.pack_into("<I", cutab, 4 * k, 0xffffffff)
    hdr = 8 + 8 * 8
    o_names = hdr
    o_cu = o_names + len(namebuf)
    o_files = o_cu + len(cutab)
    o_pcs = o_files + len(filetab)
    o_ftab = (o_pcs + len(pctab) + 7) & ~7
    n = len(newfuncs)
    functab = bytearray()
    recoff = 8 * (n + 1)
    recblob = bytearray()
    for (newoff, _), r in zip(newfuncs, recs):
        functab += struct.pack("<II", newoff, recoff + len(recblob))
        recblob += r
        while len(recblob) % 4:
            recblob += b"\0"
    functab += struct.pack("<II", len(text), 0)
    out = bytearray(pcln[:8])
    out += struct.pack("<8Q", n, nfiles, text_start, o_names, o_cu, o_files,
                       o_pcs, o_ftab)
    out += namebuf + cutab + filetab + pctab
    out += b"\0" * (o_ftab - len(out))
    out += functab + recblob
    return elf, bytes(text), text_start, bytes(out), pcln_addr, buildinfo, \
        bi_addr, note


def phdrs(elf):
    for i in range(elf.phnum):
        ptype, flags, off, vaddr, _, filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", elf.d, elf.phoff + i * elf.phentsize)
        yield ptype, flags, off, vaddr, vaddr, filesz


def write_elf(elf, text, text_addr, pcln, pcln_addr, buildinfo, bi_addr,
              note, with_shdrs, extra=()):
    blobs = [(".text", text, text_addr, 1, 5, 6),          # AX
             (".gopclntab", pcln, pcln_addr, 1, 4, 2)]      # A
    if buildinfo is not None:
        blobs.append((".go.buildinfo", buildinfo, bi_addr, 1, 6, 3))  # WA
    segs = [b for b in blobs]
    nph = len(segs) + (1 if note else 0)
    off = 64 + 56 * nph
    body = bytearray()
    placed = []
    for name, blob, addr, _, _, _ in blobs:
        pad = (-(off + len(body))) % 16
        body += b"\0" * pad
        placed.append((name, off + len(body), len(blob), addr))
        body += blob
    note_off = None
    if note:
        pad = (-(off + len(body))) % 4
        body += b"\0" * pad
        note_off = off + len(body)
        body += note
    ph = bytearray()
    for (name, o, size, addr), (_, _, _, _, flags, _) in zip(placed, blobs):
        ph += struct.pack("<IIQQQQQQ", 1, flags, o, addr, addr, size, size,
                          16)
    if note:
        ph += struct.pack("<IIQQQQQQ", 4, 4, note_off, 0, 0, len(note),
                          len(note), 4)
    shstr = bytearray(b"\0")
    shdrs = bytearray(b"\0" * 64)
    shoff = shnum = shstrndx = 0
    if with_shdrs:
        entries = [(name, 1, f, o, size, addr)
                   for (name, o, size, addr), (_, _, _, _, _, f)
                   in zip(placed, blobs)]
        if note:
            entries.append((".note.go.buildid", 7, 2, note_off, len(note), 0))
        for name, blob in extra:           # unloaded sections (DWARF)
            entries.append((name, 1, 0, off + len(body), len(blob), 0))
            body += blob
        for name, typ, flags, o, size, addr in entries:
            nameoff = len(shstr)
            shstr += name.encode() + b"\0"
            shdrs += struct.pack("<IIQQQQIIQQ", nameoff, typ, flags, addr, o,
                                 size, 0, 0, 16 if typ == 1 else 4, 0)
        nameoff = len(shstr)
        shstr += b".shstrtab\0"
        stroff = off + len(body)
        body += shstr
        shdrs += struct.pack("<IIQQQQIIQQ", nameoff, 3, 0, 0, stroff,
                             len(shstr), 0, 0, 1, 0)
        pad = (-(off + len(body))) % 8
        body += b"\0" * pad
        shoff = off + len(body)
        body += shdrs
        shnum = len(shdrs) // 64
        shstrndx = shnum - 1
    ident = b"\x7fELF\x02\x01\x01" + b"\0" * 9
    eh = ident + struct.pack("<HHIQQQIHHHHHH", 2, elf.machine, 1, text_addr,
                             64, shoff, 0, 64, 56, nph, 64, shnum, shstrndx)
    return bytes(eh + ph + body)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for path in sys.argv[2:]:
        base = os.path.basename(path)
        try:
            parts = subset(path)
        except (ValueError, IndexError, struct.error) as e:
            print("make-seeds.py: %s: skipped: %s" % (path, e), file=sys.stderr)
            continue
        small = write_elf(*parts, with_shdrs=True)
        files = {"small": small, "noshdr": write_elf(*parts, with_shdrs=False),
                 # DWARF sections that hold no unit
                 "dwarf0": write_elf(*parts, with_shdrs=True, extra=(
                     (".debug_abbrev", b"\0"),
                     (".debug_info", struct.pack("<IHIBB", 8, 4, 0, 8, 0))))}
        for pct in (25, 50, 75, 95):
            files["trunc-%d" % pct] = small[:len(small) * pct // 100]
        for variant, blob in files.items():
            with open(os.path.join(outdir, "%s-%s" % (base, variant)), "wb") as f:
                f.write(blob)


if __name__ == "__main__":
    main()
