"""pgo_build.py: what Go's compiler decides for the cpubound fixture's hot
call (testsuite/fixtures/cpubound: main.mix calls main.hash at the line
marked "// the hot call edge"), with and without a profile, for
check-pgo.py and e2e/check-e2e.py. The compiler is the ground truth:
its inlining decisions with their reasons (-m=2) and PGO's (-d=pgodebug=1).

    d = pgo_build.decide(GO, SRC_DIR, PROFILE or None, TMPDIR)
    d.rc, d.output   go build's exit status and output
    d.site           "main.go:LINE" of the hot call
    d.inlined        the compiler inlined main.hash there ("inlining call
                     to hash" at that line)
    d.why            the line that says why: "cannot inline hash: ..."
                     without a profile, "hot-budget check allows inlining
                     for call main.hash ... in function main.mix" with one
                     (None when the compiler printed no such line)
    d.threshold      PGO's "hot-callsite-thres-from-CDF=..." line, or None
"""

import os
import re
import subprocess
from collections import namedtuple

import pprof_raw

Decision = namedtuple("Decision", "rc output site inlined why threshold")


def hot_site(src):
    """main.go:LINE of the fixture's hot call."""
    with open(os.path.join(src, "main.go")) as f:
        lines = f.read().splitlines()
    line = next((i + 1 for i, l in enumerate(lines) if "// the hot call edge" in l), None)
    if line is None:
        raise ValueError(f"{src}/main.go: no line marked '// the hot call edge'")
    return f"main.go:{line}"


def decide(go, src, profile, tmp):
    """`go build` of a copy of SRC (GOPATH mode, as build-fixtures.sh builds
    it) in a new directory under TMP, with -pgo=PROFILE unless it is None."""
    work = os.path.join(tmp, "pgo-%d" % len(os.listdir(tmp)))
    os.makedirs(work)
    for f in os.listdir(src):
        if f.endswith(".go"):
            with open(os.path.join(src, f)) as i, open(os.path.join(work, f), "w") as o:
                o.write(i.read())
    cache = pprof_raw.gocache()
    env = dict(os.environ, HOME=tmp, GOCACHE=cache, GOENV="off", GOFLAGS="",
               GOTOOLCHAIN="local", GOPROXY="off", GO111MODULE="off", CGO_ENABLED="0",
               GOPATH=os.path.join(os.path.dirname(cache), "gopath"))
    flags = ["-gcflags=-m=2 -d=pgodebug=1", f"-pgo={profile}"] if profile else ["-gcflags=-m=2"]
    r = subprocess.run([go, "build", *flags, "-o", os.path.join(work, "cpubound"), "."],
                       cwd=work, capture_output=True, text=True, env=env)
    text = r.stdout + r.stderr
    site = hot_site(src)
    inlined = re.search(rf"^\S*{re.escape(site)}:\d+: inlining call to hash$", text, re.M)
    if profile:
        why = re.search(r"^hot-budget check allows inlining for call main\.hash "
                        rf"\(cost \d+\) at \S*{re.escape(site)}:\d+ in function main\.mix$",
                        text, re.M)
    else:
        why = re.search(r"^\S*: cannot inline hash: .*$", text, re.M)
    thres = re.search(r"^hot-callsite-thres-from-CDF=\S+$", text, re.M)
    return Decision(r.returncode, text, site, inlined is not None,
                    why.group(0) if why else None, thres.group(0) if thres else None)
