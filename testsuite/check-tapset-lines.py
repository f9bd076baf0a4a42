#!/usr/bin/env python3
"""check-tapset-lines.py DIR: every line of the tapsets `gostap gen` wrote
into DIR has one of the few shapes the writers produce, so no byte taken
from a binary (names, paths, versions) can have become code: no embedded C
(%{ %}), no extra probe or function, no string that leaks out of its quotes.
Prints a summary line; exits 1 on the first bad lines (up to 5 shown)."""
import os
import re
import sys

STR = r'"(?:[ !#-\[\]-~]|\\[\\"]|\\[0-7]{3})*"'   # stp_string()'s output
PROC = r'process\(' + STR + r'\)\.statement\(0x[0-9a-f]+\)'
IDENT = r'[A-Za-z_][A-Za-z0-9_]*'
SHAPES = [
    r'',
    r'// [ -~]*',                                   # comments (checked below)
    r'/\*\* sfunction [a-z_]+ - [ -~]*?( \*/)?',     # doc comments
    r' \* [ -~]*', r' \*/',
    r'function go_target_(path|version):string \(\) \{ return ' + STR + r' \}',
    r'function go_target_arch:string \(\) \{ return "(x86_64|aarch64)" \}',
    r'function _go_off_[a-z0-9_]+:long \(\) \{ return -?[0-9]+ \}',
    r'probe go\.func(\.' + IDENT + r')+ = ' + PROC,
    r'probe go\.func(\.' + IDENT + r')+\.return =',
    r'  ' + PROC + r',?',
    r'\{', r'\}',
    r'  goid = go_goid\(\)',
]
LINE = re.compile('^(?:' + '|'.join(SHAPES) + ')$')


def main():
    d = sys.argv[1]
    lines = bad = 0
    for name in sorted(os.listdir(d)):
        if not name.endswith('.stp'):
            continue
        with open(os.path.join(d, name), 'rb') as f:
            data = f.read()
        for n, raw in enumerate(data.split(b'\n'), 1):
            lines += 1
            try:
                line = raw.decode('ascii')
            except UnicodeDecodeError:
                line = None
            ok = line is not None and LINE.match(line) is not None
            # Nothing taken from a binary may open embedded C or a block
            # comment, or close one: line comments carry names and paths.
            if ok and line.startswith('//') and any(
                    t in line for t in ('%{', '%}', '*/', '/*')):
                ok = False
            if not ok:
                bad += 1
                if bad <= 5:
                    print('# %s:%d: unexpected line: %r' % (name, n, raw[:200]))
    print('tapset-lines: lines=%d bad=%d' % (lines, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
