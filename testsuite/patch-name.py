#!/usr/bin/env python3
"""patch-name.py BINARY NAME: overwrite the function name NAME inside the
binary's .gopclntab (not .symtab, not DWARF) with a hostile string of the
same length: a quote, '%{', a newline, '*/', '}' and a backslash, padded
with 'z'.  Used by the tests that check nothing from a binary can become
SystemTap code."""
import subprocess
import sys

EVIL = b'main.q"%{\n*/}\\'


def main():
    path, name = sys.argv[1], sys.argv[2].encode()
    if len(name) < len(EVIL):
        sys.exit('patch-name.py: %s is shorter than %d bytes' % (sys.argv[2], len(EVIL)))
    rows = [l.split() for l in subprocess.check_output(['readelf', '-SW', path]).decode().splitlines()
            if ' .gopclntab ' in l]
    if not rows:
        sys.exit('patch-name.py: no .gopclntab in ' + path)
    i = rows[0].index('.gopclntab')
    off, size = int(rows[0][i + 3], 16), int(rows[0][i + 4], 16)
    data = bytearray(open(path, 'rb').read())
    at = data.find(name + b'\0', off, off + size)
    if at < 0:
        sys.exit('patch-name.py: %s not in .gopclntab' % sys.argv[2])
    data[at:at + len(name)] = (EVIL + b'z' * len(name))[:len(name)]
    with open(path, 'wb') as f:
        f.write(data)


if __name__ == '__main__':
    main()
