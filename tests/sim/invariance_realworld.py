#!/usr/bin/env python3
"""Metamorphic check on the real-log corpus (tests/data/realworld).

A verdict must not depend on what does not change what happened. For every
case, `denpex diagnose` is run on the case as it is and on copies changed in
such ways only; the copy's class, first rank and first host must equal the
case's own (the first host renamed where the change renames it):

  host     the verdict's first host renamed everywhere, in file contents and
           file names (Slurm hostlists that cover it written out), to a name
           of another style (Cray's nid000123); not "localhost"
  crlf     every text file with CRLF line ends (a log copied off Windows)
  rename   job.log named as sbatch names it (slurm-4242.out)
  reverse  the files given in the reverse order
  stdin    a case of one file given on standard input (`denpex diagnose -`,
           a log pasted)

The first four are made together, in one copy (their composition is such a
change too, and one run instead of four); only where that copy's verdict
differs is each made alone, to say which changed it. A composition that
changes the verdict fails the check even when each change alone holds.

The case's own verdict is the one tests/realworld.sh wrote (--base), where
it is this build's (realworld_base.py); else it is diagnosed here.

No truth is read: expected.json is only left out of what denpex sees, so the
check holds on the dev and the held-out split alike. Prints one line per
change (how many cases held) and one per case that did not; exits 1 when any
did not, 2 when the corpus is unusable.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realworld_base  # noqa: E402


def files_of(d):
    out = []
    for root, dirs, names in os.walk(d):
        dirs.sort()
        for fn in sorted(names):
            if not (root == d and fn == "expected.json"):
                out.append(os.path.join(root, fn))
    return out


def diagnose(denpex, files, timeout, stdin=None):
    try:
        with open(stdin, "rb") if stdin else open(os.devnull, "rb") as f:
            p = subprocess.run([denpex, "diagnose", "--json", "--quiet"] + (["-"] if stdin else files),
                               stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return ("timed out",)
    try:
        v = json.loads(p.stdout.decode())
        first = v.get("first") or {}
        return (v.get("class"), first.get("rank"), first.get("host"))
    except (ValueError, AttributeError):
        return ("exit %d: %s" % (p.returncode, p.stderr.decode(errors="replace").strip()[:120]),)


def is_text(b):
    return b"\0" not in b[:65536]


def copy_case(src, dst, rename_file=None, change_text=None):
    for root, dirs, names in os.walk(src):
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for fn in names:
            if root == src and fn == "expected.json":
                continue
            with open(os.path.join(root, fn), "rb") as f:
                b = f.read()
            if change_text and is_text(b):
                b = change_text(b)
            with open(os.path.join(dst, rel, rename_file(fn) if rename_file else fn), "wb") as f:
                f.write(b)
    return files_of(dst)


HOSTLIST = re.compile(rb"(?<![\w.-])([A-Za-z][\w.-]*?)\[([0-9,\-]+)\]")


def expand_hostlists(b, host):
    """Slurm's hostlists that cover host ("gpu[01-02]") written out
    ("gpu01,gpu02"), so that renaming host renames it there too."""
    def one(m):
        names = []
        for part in m.group(2).split(b","):
            lo, _, hi = part.partition(b"-")
            if not lo.isdigit() or (hi and not hi.isdigit()) or (hi and int(hi) - int(lo) > 4096):
                return m.group(0)
            for k in range(int(lo), int(hi or lo) + 1):
                names.append(m.group(1) + str(k).zfill(len(lo)).encode())
        return b",".join(names) if host.encode() in names else m.group(0)
    return HOSTLIST.sub(one, b)


def loopback(h):
    return h in ("localhost", "localhost.localdomain", "::1") or h.startswith("127.")


def changes(case_dir, base):
    """(name, rename_file, change_text, reverse, expected verdict) per change."""
    out = []
    host = base[2] if len(base) == 3 else None
    if host and re.fullmatch(r"[A-Za-z][\w.-]*", host) and not loopback(host):
        new = "nid%06d" % (int(hashlib.sha1(host.encode()).hexdigest(), 16) % 1000000)
        # (A name right after a colour code, "\x1b[34malgo-1", is a word of
        # its own: the reader takes the code off.)
        after_colour = rb"(?:(?<=\x1b\[\dm)|(?<=\x1b\[\d\dm)|(?<=\x1b\[\d;\d\dm)|(?<=\x1b\[\d\d;\d\dm)|(?<![\w.-]))"
        word = re.compile(after_colour + re.escape(host.encode()) + rb"(?![\w-])")
        # (And a file named for the node, as Slurm's %N names one:
        # "trace-gpu-n22.out" in tail's "==> ... <==" header.)
        in_file_name = re.compile(rb"(?<=[\w][-_])" + re.escape(host.encode()) + rb"(?=\.(?:out|err|log|txt)\b)")
        out.append(("host", lambda fn: fn.replace(host, new),
                    lambda b: in_file_name.sub(new.encode(), word.sub(new.encode(), expand_hostlists(b, host))), False,
                    (base[0], base[1], new)))
    out.append(("crlf", None, lambda b: re.sub(rb"\r?\n", b"\r\n", b), False, base))
    if os.path.exists(os.path.join(case_dir, "job.log")):
        out.append(("rename", lambda fn: "slurm-4242.out" if fn == "job.log" else fn, None, False, base))
    if len(files_of(case_dir)) > 1:
        out.append(("reverse", None, None, True, base))
    return out


def together(chs):
    """The changes chs made at once: one change of the same shape."""
    renames = [c[1] for c in chs if c[1]]
    texts = [c[2] for c in chs if c[2]]

    def rename_file(fn):
        for r in renames:
            fn = r(fn)
        return fn

    def change_text(b):
        for t in texts:
            b = t(b)
        return b
    want = next((c[4] for c in chs if c[0] == "host"), chs[0][4])
    return ("together", rename_file if renames else None, change_text if texts else None,
            any(c[3] for c in chs), want)


def verdict_of_change(args, case_dir, name, change):
    _, rename_file, change_text, reverse, _ = change
    tmp = tempfile.mkdtemp(prefix="denpex-inv-")
    try:
        files = copy_case(case_dir, os.path.join(tmp, name), rename_file, change_text)
        return diagnose(args.denpex, files[::-1] if reverse else files, args.timeout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_case(args, name, given):
    case_dir = os.path.join(args.corpus, name)
    base = given.get(name) or diagnose(args.denpex, files_of(case_dir), args.timeout)
    results = []
    chs = changes(case_dir, base)
    both = together(chs)
    got = verdict_of_change(args, case_dir, name, both)
    results.append(("together", both[4], got))
    for c in chs:
        # Held together: held alone is not run again.
        results.append((c[0], c[4], c[4] if got == both[4] else verdict_of_change(args, case_dir, name, c)))
    alone = files_of(case_dir)
    if len(alone) == 1:
        results.append(("stdin", base, diagnose(args.denpex, [], args.timeout, stdin=alone[0])))
    return name, base, results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--denpex", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--base", metavar="FILE",
                    help="the cases' own verdicts as tests/realworld.sh wrote them (used when they are"
                         " this denpex's, configuration's and corpus's)")
    args = ap.parse_args()
    given = realworld_base.read(args.base, args.denpex, args.corpus) if args.base else {}
    try:
        names = sorted(d for d in os.listdir(args.corpus)
                       if os.path.isfile(os.path.join(args.corpus, d, "expected.json")))
    except OSError as e:
        print("invariance: ERROR: %s" % e)
        return 2
    if not names:
        print("invariance: ERROR: no cases under %s" % args.corpus)
        return 2
    held, tried, broken = {}, {}, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, base, results in pool.map(lambda n: check_case(args, n, given), names):
            if len(base) != 3:
                broken.append(("base", name, "a verdict", base))
            for cname, want, got in results:
                tried[cname] = tried.get(cname, 0) + 1
                if got == want:
                    held[cname] = held.get(cname, 0) + 1
                else:
                    broken.append((cname, name, want, got))
    print("invariance: %d cases (%d base verdicts from %s)" % (len(names), sum(n in given for n in names), args.base)
          if args.base else "invariance: %d cases" % len(names))
    for cname in ("together", "host", "crlf", "rename", "reverse", "stdin"):
        if cname in tried:
            print("  %-8s %4d/%d held" % (cname, held.get(cname, 0), tried[cname]))
    for cname, name, want, got in broken:
        print("  CHANGED %s %s: %s -> %s" % (cname, name, want, got))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
