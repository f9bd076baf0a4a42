#!/usr/bin/env python3
# func-lengths.py FILE.c...: the length in lines of each top-level C
# function (GNU style: the name at column 0, then '(', the body from '{'
# to '}' at column 0), one "LINES FILE:LINE NAME" a line, e.g.
#   python3 tools/func-lengths.py src/*.c libgobin/*.c | sort -n -r | head
import sys,re
for p in sys.argv[1:]:
    t=open(p).read().split('\n')
    i=0
    while i<len(t):
        m=re.match(r'^([a-z_][a-z0-9_]*) \(',t[i])
        if m and i>0 and not t[i].rstrip().endswith(';'):
            # find opening brace at col0
            j=i
            while j<len(t) and t[j]!='{':
                if t[j].rstrip().endswith(';'): break
                j+=1
            if j<len(t) and t[j]=='{':
                k=j
                while k<len(t) and t[k]!='}': k+=1
                print(f"{k-i+2:5d} {p}:{i+1} {m.group(1)}")
                i=k
        i+=1
