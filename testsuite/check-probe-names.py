#!/usr/bin/env python3
"""check-probe-names.py JSON...: the probe aliases of `gostap list --json`
are valid SystemTap probe point components, decode back to their Go names
with an independent decoder written from the rule documented in
src/probe-name.c, and never collide.  Prints one summary line; exits 1 on
any failure."""
import json
import re
import sys

IDENT = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')


def decode(alias):
    out = []
    for comp in alias.split('.'):
        if comp == '_':             # an empty part, as in "glob..func1"
            out.append(b'')
            continue
        i, ptr = 0, comp.startswith('_P')
        b = bytearray()
        if ptr:
            b += b'(*'
            i = 2
        while i < len(comp):
            c = comp[i]
            if c != '_':
                b += c.encode()
                i += 1
            elif comp[i + 1:i + 2] == '_':
                b += b'/'
                i += 2
            elif re.match(r'[0-9a-f]{2}$', comp[i + 1:i + 3]):
                b.append(int(comp[i + 1:i + 3], 16))
                i += 3
            else:
                raise ValueError('bad escape in %r' % comp)
        if ptr:
            b += b')'
        out.append(bytes(b))
    return b'.'.join(out).decode('utf-8', 'surrogateescape')


def main():
    total = bad = 0
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8', errors='surrogateescape') as f:
            j = json.load(f)
        seen = {}
        byname = {}
        for fn in j['functions']:
            total += 1
            name, probe = fn['name'], fn.get('probe', '')
            if not probe.startswith('go.func.'):
                bad += 1
                print('# %s: %s has no probe alias' % (path, name))
                continue
            comps = probe[len('go.func.'):].split('.')
            # "_E<entry>": the second and later functions sharing a name.
            if comps[-1].startswith('_E'):
                if comps[-1] != '_E%x' % int(fn['entry'], 16):
                    bad += 1
                    print('# %s: %s: %s does not name its entry' % (path, name, probe))
                probe = 'go.func.' + '.'.join(comps[:-1])
                key = comps[-1]
            else:
                key = ''
            comps = probe[len('go.func.'):].split('.')
            if not all(IDENT.match(c) for c in comps):
                bad += 1
                print('# %s: %s -> %s is not a probe point' % (path, name, probe))
            try:
                back = decode(probe[len('go.func.'):])
            except ValueError as e:
                back = str(e)
            if back != name:
                bad += 1
                print('# %s: %s -> %s decodes to %s' % (path, name, probe, back))
            full = fn['probe']
            if seen.get(full, name) != name:
                bad += 1
                print('# %s: %s and %s share %s' % (path, seen[full], name, full))
            seen[full] = name
            # Functions of one name that are not ABI wrapper pairs (one
            # abi0, one internal) must have distinct aliases.
            byname.setdefault(name, []).append((fn['abi'], full))
        for name, v in byname.items():
            aliases = [a for _, a in v]
            wrapper_pair = len(v) == 2 and sorted(x for x, _ in v) == ['abi0', 'internal']
            if len(set(aliases)) != len(aliases) and not wrapper_pair:
                bad += 1
                print('# %s: %d functions named %s share aliases %s' % (path, len(v), name, aliases))
    print('probe-names: names=%d failures=%d' % (total, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
