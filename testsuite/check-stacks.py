#!/usr/bin/env python3
"""check-stacks.py [--label TEXT] [--raw RAW] [-v] SYMBOLIZED

Check `gostap symbolize` against a Go program's own view of its stacks.
SYMBOLIZED is the output of testsuite/fixtures/stacks after `gostap
symbolize BINARY` (RAW, when given, the program's output before it: its
tokens are shown beside a failed point). Each point of the program is

    === point NAME
    <the expansion of the point's <gostack:...> token>
    --- want
    <runtime.CallersFrames of runtime.Callers at the same place>
    === end

and both blocks are frames in Go's traceback format, two lines each:

    FUNC(...)
    <TAB>FILE:LINE +0xOFF          (" +0xOFF" on physical frames only)

a truncated stack ending with the line "...additional frames elided...".
They are compared frame by frame: function, file, line, whether the frame
is inlined (no offset) and the offset, but for frame 0's: the two records
of frame 0 come from two call instructions on one line, so its offset
differs (compared: both have one). The elided line must be in both or in
neither.

Failures: a frame that differs, one missing or extra, a line of the
expansion that is not a frame, a point with no frames in either block, an
unexpanded "<gostack:" token anywhere, no point at all. The output is each
failed point ("not ok - point NAME: K mismatches" then "#   " lines: the
mismatches, a diff of the two blocks, the raw token), every point with -v,
and one summary line:

    stacks: points=N frames=N inlined=N mismatches=N

(frames: frames of the want blocks compared; inlined: those of them that
are inlined). Exit 0 all equal, 1 a failure, 77 the program ran on an
architecture it does not walk ("=== skip ..."), 99 unreadable input."""

import difflib
import re
import sys

from gostaptest import ELIDED, parse_frames, short

MAXDIAG = 12  # "#   " lines of mismatches per point
MAXDIFF = 24  # diff lines per point

TOKEN_RE = re.compile(r"<gostack:[^>\n]*>")


def parse_points(text):
    """[(name, expansion lines, want lines)], skip lines, structure errors."""
    points, skips, errors = [], [], []
    cur = None  # [name, got, want, in_want]
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("=== point "):
            if cur:
                errors.append(f"line {n}: point {cur[0]} has no '=== end'")
            cur = [line[len("=== point "):], [], [], False]
        elif line.startswith("=== skip"):
            skips.append(line)
        elif cur is None:
            if line.strip():
                errors.append(f"line {n}: outside a point: {short(line)}")
        elif line == "--- want":
            if cur[3]:
                errors.append(f"line {n}: point {cur[0]}: a second '--- want'")
            cur[3] = True
        elif line == "=== end":
            if not cur[3]:
                errors.append(f"line {n}: point {cur[0]} has no '--- want'")
            points.append((cur[0], cur[1], cur[2]))
            cur = None
        else:
            (cur[2] if cur[3] else cur[1]).append(line)
    if cur:
        errors.append(f"point {cur[0]} has no '=== end' (output cut short?)")
    return points, skips, errors


def compare(got, want):
    """Mismatches between the frames of the expansion and the want block."""
    bad = []
    # Frame 0's offset is not compared: the first physical frame of the
    # want block (the point's function).
    first_phys = next((i for i, f in enumerate(want) if f.off is not None), -1)
    for i in range(max(len(got), len(want))):
        if i >= len(got):
            bad.append(f"frame {i}: missing, want {want[i].text()}")
            continue
        if i >= len(want):
            bad.append(f"frame {i}: extra: {got[i].text()}")
            continue
        g, w = got[i], want[i]
        what = []
        if g.func != w.func:
            what.append("function")
        if (g.file, g.line) != (w.file, w.line):
            what.append("file:line")
        if (g.off is None) != (w.off is None):
            what.append("inlined" if w.off is None else "not inlined")
        elif w.off is not None and i != first_phys and g.off != w.off:
            what.append("offset")
        if what:
            bad.append(f"frame {i}: {', '.join(what)}: got {g.text()}, "
                       f"want {w.text(i != first_phys)}")
    return bad


def main():
    args = sys.argv[1:]
    label, raw_path, verbose = "", None, False
    while args and args[0].startswith("-"):
        if args[0] == "--label" and len(args) > 1:
            label, args = args[1] + ": ", args[2:]
        elif args[0] == "--raw" and len(args) > 1:
            raw_path, args = args[1], args[2:]
        elif args[0] == "-v":
            verbose, args = True, args[1:]
        else:
            break
    if len(args) != 1:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 99
    try:
        with open(args[0], errors="replace") as f:
            text = f.read()
        raw_tokens = {}
        if raw_path:
            with open(raw_path, errors="replace") as f:
                for name, got, _ in parse_points(f.read())[0]:
                    raw_tokens[name] = " ".join(got)
    except OSError as e:
        print(f"Bail out! check-stacks.py: {e}")
        return 99

    points, skips, errors = parse_points(text)
    if skips and not points and not errors:
        print(f"{label}{skips[0][4:]}")
        print(f"{label}stacks: points=0 frames=0 inlined=0 mismatches=0 (skipped)")
        return 77
    nframes = ninlined = mismatches = failed = 0
    for e in errors:
        print(f"not ok - {label}{e}")
        mismatches += 1
    tokens = TOKEN_RE.findall(text)
    if tokens:
        print(f"not ok - {label}{len(tokens)} unexpanded tokens, the first: {short(tokens[0])}")
        mismatches += len(tokens)
    if not points:
        print(f"not ok - {label}no point in the output")
        mismatches += 1
    seen = set()
    for name, got_lines, want_lines in points:
        got, got_elided, bad = parse_frames(got_lines)
        want, want_elided, want_bad = parse_frames(want_lines)
        bad += [f"want block: {b}" for b in want_bad]
        if name in seen:
            bad.append(f"point {name} twice in the output")
        seen.add(name)
        if not got:
            bad.append("no frame in the expansion")
        if not want:
            bad.append("no frame in the want block")
        bad += compare(got, want)
        if got_elided != want_elided:
            bad.append(f"{ELIDED!r}: " + ("in the expansion only" if got_elided
                                          else "in the want block only"))
        nframes += len(want)
        ninlined += sum(1 for f in want if f.off is None)
        mismatches += len(bad)
        desc = (f"point {name}: {len(want)} frames "
                f"({sum(1 for f in want if f.off is None)} inlined)"
                + (", truncated" if want_elided else ""))
        if not bad:
            if verbose:
                print(f"ok - {label}{desc}")
            continue
        failed += 1
        print(f"not ok - {label}{desc}: {len(bad)} mismatches")
        for b in bad[:MAXDIAG]:
            print(f"#   {b}")
        if len(bad) > MAXDIAG:
            print(f"#   ... and {len(bad) - MAXDIAG} more")
        diff = list(difflib.unified_diff(want_lines, got_lines, "want", "got",
                                         n=2, lineterm=""))
        for d in diff[:MAXDIFF]:
            print(f"#   | {d[:200]}")
        if len(diff) > MAXDIFF:
            print(f"#   | ... {len(diff) - MAXDIFF} more diff lines")
        if name in raw_tokens:
            print(f"#   token: {short(raw_tokens[name], 400)}")
    print(f"{label}stacks: points={len(points)} frames={nframes} "
          f"inlined={ninlined} mismatches={mismatches}")
    return 1 if mismatches or failed or not points else 0


if __name__ == "__main__":
    sys.exit(main())
