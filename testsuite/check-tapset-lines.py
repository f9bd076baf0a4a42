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
REG = r'_go_reg_(rax|rbx|rcx|rdi|rsi|r8|r9|r10|r11|x[0-9]|x1[0-5])\(\)'  # go_context.stp
SHAPES = [
    r'',
    r'// [ -~]*',                                   # comments (checked below)
    r'/\*\* sfunction [a-z_]+ - [ -~]*?( \*/)?',     # doc comments
    r' \* [ -~]*', r' \*/',
    r'function go_target_(path|version):string \(\) \{ return ' + STR + r' \}',
    r'function go_target_arch:string \(\) \{ return "(x86_64|aarch64)" \}',
    r'function _go_((off|tls)_[a-z0-9_]+|regabi|types_(start|end)|load_vaddr|pie|labels_layout|release):long \(\) \{ return -?[0-9]+ \}',
    r'function go_wait_reason:string \(reason:long\) \{',
    r'  if \(reason == [0-9]+\) return ' + STR,
    r'  return sprintf\("%d", reason\)',
    r'probe go\.func(\.' + IDENT + r')+ = ' + PROC,
    r'probe go\.func(\.' + IDENT + r')+\.return =',
    # inlined copies (write-funcs.c write_inlined) and the aliases that
    # name the out-of-line and inlined ones
    r'probe go\.func(\.' + IDENT + r')+\.inlined =',
    r'probe go\.func(\.' + IDENT + r')+ = go\.func(\.' + IDENT + r')+ \{ \}',
    r'  inlined = [01]', r'  inlined_in = ' + STR,
    r'probe go\.func(\.' + IDENT + r')+ = process\(' + STR + r'\)\.function\(' + STR + r'\)',
    r'  ' + PROC + r',?',
    r'\{', r'\}',
    r'  goid = _go_g_int64\([0-9]+\)',
    r'  (funcname|filename) = ' + STR, r'  lineno = [0-9]+',
    # locals of arguments and results (write-locals.c)
    r'  _go_sp = _go_user_sp\(\)( \+ [0-9]+)?',
    r'  ' + IDENT + r' = (' + '|'.join([
        REG,
        r'\(' + REG + r' & 0xff\) != 0',
        REG + r' & 0x[0-9a-f]+',
        r'\(\(' + REG + r' & 0x[0-9a-f]+\) \^ 0x[0-9a-f]+\) - 0x[0-9a-f]+',
        r'user_u?int(8|16|32|64)\(_go_sp \+ 8 \+ [0-9]+ \+ [0-9]+\)( != 0)?',
        r'go_string\(' + IDENT + r', ' + IDENT + r'\)',
        r'_go_freg_bits\([0-9]+\)( & 0xffffffff)?',
        r'go_type_name\((go_itab_type\(' + IDENT + r'\)|' + IDENT + r')\)',
        r'go_(float(32|64)|complex(64|128))_str\(' + IDENT + r'(, ' + IDENT + r')?\)',
        r'_go_g_int64\([0-9]+\) - _go_sp',
        r'_go_pair_entry\[pid\(\), goid, _go_depth\]',
        r'go_entry_ns \? gettimeofday_ns\(\) - go_entry_ns : -1',
        # NAME_fmt (for a script that reads it)
        r'go_fmt_any\((go_itab_type\(' + IDENT + r'\)|' + IDENT + r'), ' + IDENT + r'\)',
        r'_go_fmt_typed\(0x[0-9a-f]+, (_go_fmt_scratch\(\)|_go_sp \+ 8 \+ [0-9]+)\)',
        r'_go_fmt_addr\(' + IDENT + r'\)',
        IDENT,
    ]) + r')',
    r'  _go_fmt_save\([0-9]+, [1248], ' + IDENT + r'\)',
    r'  // [ -~]*',
    r'  if \(0\) _go_pair_[0-9a-f]+\(\)',
    r'  _go_pair_entry\[pid\(\), goid, _go_g_int64\([0-9]+\) - _go_sp\] = gettimeofday_ns\(\)',
    r'  if \(0\) _go_pair_end\(\)',
    # pairing files (write-funcs.c write_pair)
    r'function _go_pair_[0-9a-f]+:long \(\) \{ return 0 \}',
    r'probe ' + PROC,
    r'  delete _go_pair_entry\[pid\(\), goid, _go_depth\]',
    # go_pair_end.stp (write-funcs.c write_pair_end)
    r'function _go_pair_end:long \(\) \{ return 0 \}',
    r'probe process\(' + STR + r'\)\.end',
    r'  delete _go_pair_entry\[pid\(\), \*, \*\]',
    r'  _go_pair_entry\[pid\(\), _go_g_int64\([0-9]+\), _go_g_int64\([0-9]+\) - '
    r'\(_go_user_sp\(\) \+ [0-9]+\)\] = gettimeofday_ns\(\)',
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
            if ok and line.lstrip().startswith('//') and any(
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
