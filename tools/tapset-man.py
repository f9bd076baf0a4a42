#!/usr/bin/env python3
"""tapset-man.py TAPSET.stp... > gostap-tapsets.7

The reference page of gostap's static tapsets, made from their doc
comments (SystemTap's kernel-doc style: `/** probe NAME - summary`,
`/** sfunction NAME - summary`, `@arg: text`, `Description:`/`Context:`)
and each file's <tapsetdescription>.  Every public probe and function must
have one: a tapset symbol without a doc comment fails the build."""
import re
import sys


def roff(text):
    text = text.replace('\\', '\\\\')
    return re.sub(r'^([.\'])', r'\\&\1', text, flags=re.M)


def main():
    out = ['.TH GOSTAP-TAPSETS 7 "2026" "gostap" "gostap tapsets"',
           '.SH NAME', 'gostap-tapsets \\- SystemTap tapsets for Go programs',
           '.SH DESCRIPTION',
           'Static tapsets, installed with gostap, used together with the '
           'tapsets that \\fBgostap gen\\fR or \\fBgostap run\\fR write for '
           'one binary (probe aliases \\fBgo.func.\\fINAME\\fR and '
           '\\fBgo.func.\\fINAME\\fB.return\\fR; see \\fBgostap\\fR(1)).']
    missing = []
    for path in sys.argv[1:]:
        src = open(path, encoding='utf-8').read()
        desc = re.search(r'<tapsetdescription>(.*?)</tapsetdescription>', src, re.S)
        out.append('.SH ' + path.rsplit('/', 1)[-1].upper())
        if desc:
            out.append(roff(re.sub(r'^\s*//\s?', '', desc.group(1), flags=re.M).strip()))
        docs = {}
        for m in re.finditer(r'/\*\*\s*\n?\s*\*?\s*(probe|sfunction)\s+(\S+)\s+-\s+(.*?)\*/', src, re.S):
            kind, name, body = m.groups()
            lines = [re.sub(r'^\s*\*\s?', '', l) for l in body.split('\n')]
            docs[name] = (kind, lines)
            out.append('.SS %s %s' % ('probe' if kind == 'probe' else 'function', name))
            para = []
            for l in lines:
                a = re.match(r'@(\w+):\s*(.*)', l)
                if a:
                    out.append('.TP\n.B %s\n%s' % (a.group(1), roff(a.group(2))))
                elif l.strip():
                    para.append(l.strip())
                elif para:
                    out.append(roff(' '.join(para)))
                    out.append('.PP')
                    para = []
            if para:
                out.append(roff(' '.join(para)))
        # Every public symbol documented.
        for m in re.finditer(r'^(?:probe|function)\s+(go[._][A-Za-z0-9_.]+)', src, re.M):
            if m.group(1) not in docs:
                missing.append('%s: %s' % (path, m.group(1)))
    if missing:
        sys.stderr.write('tapset-man.py: no doc comment for:\n  ' + '\n  '.join(missing) + '\n')
        return 1
    out.append('.SH SEE ALSO\n.BR gostap (1),\n.BR stap (1)')
    print('\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
