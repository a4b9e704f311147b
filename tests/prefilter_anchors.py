#!/usr/bin/env python3
"""How few anchors could stand in for the fault literals of the prefilter.

Issue 17 asked whether a two-stage scan (a handful of anchors first, the
full literal set only around their hits) could let denpex scan at the
speed of an admin's 10-keyword search: Vectorscan keeps that speed up to
about 16 literals only. An anchor stands for every literal it is a
substring of; an anchor shorter than 3 bytes hits nearly every line.

Reads the literals (denpex check-signatures --fault-literals), one a line,
from the file named or standard input, and prints:
  - a lower bound on the anchors of 3 or more bytes (matched without case)
    that cover them all: literals of which no two share a 3-byte substring
    need an anchor each;
  - the size of a greedy cover (an upper bound).
"""
import sys


def substrings(literal, least=3):
    low = literal.lower()
    return {low[i:j] for i in range(len(low)) for j in range(i + least, len(low) + 1)}


def main():
    src = open(sys.argv[1], encoding="utf-8", errors="replace") if len(sys.argv) > 1 else sys.stdin
    literals = [l.rstrip("\n") for l in src if l.strip()]
    subs = [substrings(l) for l in literals]
    if any(not s for s in subs):
        short = [l for l, s in zip(literals, subs) if not s]
        print("literals shorter than 3 bytes (no anchor can stand for them): %d" % len(short))
    # Lower bound: shortest first, keep a literal sharing no substring with
    # those kept; each kept one needs an anchor of its own.
    kept, used = 0, set()
    for s in sorted((s for s in subs if s), key=len):
        if not (s & used):
            kept += 1
            used |= s
    # Upper bound: greedy set cover by the substring covering most.
    covers = {}
    for i, s in enumerate(subs):
        for a in s:
            covers.setdefault(a, set()).add(i)
    left = {i for i, s in enumerate(subs) if s}
    greedy = 0
    while left:
        best = max(covers, key=lambda a: len(covers[a] & left))
        left -= covers[best]
        greedy += 1
    print("%d literals: at least %d anchors of 3+ bytes (caseless) to cover them, %d by greedy cover"
          % (len(literals), kept, greedy))


if __name__ == "__main__":
    main()
