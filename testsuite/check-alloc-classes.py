#!/usr/bin/env python3
"""The facts of Go's allocator that tapsets/go_alloc.stp and
examples/allocprofile.stp hold, against each Go release's own source.

Usage: check-alloc-classes.py TAPSET EXAMPLE < "VERSION GOROOT" lines
(go-toolchains.sh's output). For each release:
  - the size classes of go_alloc.stp's _go_size_class table are the
    release's class_to_size (runtime/sizeclasses.go, from Go 1.26
    internal/runtime/gc/sizeclasses.go's SizeClassToSize) without class 0;
  - the largest small object, the tiny allocator's block and the page are
    the release's maxSmallSize (32768), maxTinySize (16) and page size
    (1 << PageShift, 8192), as go_alloc_size() has them;
  - the malloc header (go_alloc_size(): 8 bytes on an object with
    pointers over 512 bytes, from Go 1.22) is the release's
    mallocHeaderSize = 8 and minSizeForMallocHeader = PtrSize * PtrBits
    (512 on 64-bit), and a release before 1.22 has none;
  - Go's size-specialised allocation entry points (allocprofile.stp: from
    Go 1.27 mallocgc hands an allocation of 1 to 80 bytes to one) are on
    by default exactly from 1.27 (internal/buildcfg's baseline
    SizeSpecializedMalloc), with tables of 81 entries (sizes 0 to 80).
TAP output, a "# counts:" line."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gostaptest  # noqa: E402


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def tapset_classes(text):
    m = re.search(r"class_size\[\] = \{([^}]*)\}", text)
    return [int(x) for x in m.group(1).replace("\n", " ").split(",") if x.strip()] if m else None


def release_classes(src):
    for rel, name in (("runtime/sizeclasses.go", "class_to_size"),
                      ("internal/runtime/gc/sizeclasses.go", "SizeClassToSize")):
        text = read(os.path.join(src, rel))
        if text is None:
            continue
        m = re.search(r"\bvar " + name + r" = \[[^\]]*\]uint16\{([^}]*)\}", text)
        if m:
            consts = {}
            # The tiny block's size stands in runtime/malloc.go before Go 1.26.
            for t in (read(os.path.join(src, "runtime/malloc.go")) or "", text):
                for k, v in re.findall(r"^\s*_?(MaxSmallSize|PageShift|TinySize)\s*=\s*(\d+)",
                                       t, flags=re.M):
                    consts[k] = int(v)
            return [int(x) for x in m.group(1).split(",")], consts, rel
    return None, {}, None


def release_header(src):
    """(header size, minimum size text) of the release's malloc header, or
    None where it has none (Go 1.22 and 1.23: the experiment AllocHeaders,
    on by default)."""
    exp = read(os.path.join(src, "internal/buildcfg/exp.go")) or ""
    base = re.search(r"baseline := goexperiment\.Flags\{(.*?)\n\t\}", exp, flags=re.S)
    if base and re.search(r"\bAllocHeaders:\s*false", base.group(1)):
        return None             # the experiment of Go 1.22 and 1.23, off
    for rel in ("runtime/mbitmap.go", "runtime/mbitmap_allocheaders.go",
                "internal/runtime/gc/malloc.go"):
        text = read(os.path.join(src, rel)) or ""
        size = re.search(r"^\s*[mM]allocHeaderSize\s*=\s*(\d+)", text, flags=re.M)
        least = re.search(r"^\s*[mM]inSizeForMallocHeader\s*=\s*(.+)$", text, flags=re.M)
        if size and least:
            return int(size.group(1)), least.group(1).strip()
    return None


def release_specialised(src):
    """(on by default, the tables' length) of the size-specialised
    allocation entry points."""
    exp = read(os.path.join(src, "internal/buildcfg/exp.go")) or ""
    base = re.search(r"baseline := goexperiment\.Flags\{(.*?)\n\t\}", exp, flags=re.S)
    on = bool(base and re.search(r"\bSizeSpecializedMalloc:\s*true", base.group(1)))
    tables = read(os.path.join(src, "runtime/malloc_tables_generated.go")) or ""
    lens = set(int(n) for n in re.findall(r"\bmalloc(?:No)?ScanTable = \[(\d+)\]", tables))
    return on, lens


def main():
    tap = gostaptest.Tap()
    releases = 0

    def check(cond, desc, why):
        tap.check(desc, [] if cond else [why])
    tapset, example = read(sys.argv[1]), read(sys.argv[2])
    ours = tapset_classes(tapset or "")
    check(ours is not None and len(ours) == 67, f"{sys.argv[1]}: a table of 67 size classes",
              "no class_size table of 67 entries")
    for line in sys.stdin:
        if not line.strip():
            continue
        version, goroot = line.split()
        minor = int(version.split(".")[1])
        releases += 1
        src = os.path.join(goroot, "src")
        if not os.path.isdir(src):
            src = os.path.join(os.path.dirname(os.path.realpath(os.path.join(goroot, "bin"))),
                               "src")
        classes, consts, rel = release_classes(src)
        check(classes is not None and classes[1:] == ours,
                  f"Go {version}: the tapset's size classes are {rel}'s "
                  f"({len(classes or []) - 1} classes, {(classes or [0])[-1]} the largest)",
                  f"release {classes}" if classes else f"no size classes under {src}")
        check(consts.get("MaxSmallSize") == 32768 and consts.get("TinySize") == 16
                  and consts.get("PageShift") == 13,
                  f"Go {version}: maxSmallSize 32768, tiny blocks of 16 bytes, pages of 8192",
                  f"release {consts}")
        hdr = release_header(src)
        if minor >= 22:
            check(hdr is not None and hdr[0] == 8
                      and re.fullmatch(r"goarch\.PtrSize \* (goarch\.)?[pP]trBits", hdr[1]),
                      f"Go {version}: an 8-byte malloc header on objects with pointers over "
                      "PtrSize * PtrBits = 512 bytes", f"release {hdr}")
        else:
            check(hdr is None, f"Go {version}: no malloc header (before Go 1.22)",
                      f"release {hdr}")
        on, lens = release_specialised(src)
        if minor >= 27:
            check(on and lens == {81},
                      f"Go {version}: size-specialised entry points on by default, for sizes "
                      "1 to 80 (tables of 81)", f"on {on}, table lengths {sorted(lens)}")
        else:
            check(not on, f"Go {version}: no size-specialised entry points by default",
                      f"on {on}, table lengths {sorted(lens)}")
    check(example is not None and "_go_release() >= 27 && size > 0 && size < 81" in example,
              f"{sys.argv[2]}: mallocgc leaves sizes 1 to 80 to the entry points from Go 1.27",
              "the rule is not in the script")
    return tap.finish({"releases": releases})


if __name__ == "__main__":
    sys.exit(main())
