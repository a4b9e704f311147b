#!/usr/bin/env python3
"""Split a bundle's combined job output into one file per rank.

The benchmark's bundle of many files: what `srun --label --output=%t.out`
leaves (one file per task, each line keeping its "N: " label, or torchrun's
"[rankN]:" prefix). Lines that name no rank stay in job.out; the other files
of the bundle (kernel logs, sacct) are kept as they are.

usage: split_ranks.py BUNDLE   (in place)
"""
import os
import re
import sys

LABEL = re.compile(rb"^ *(\d+): ")
RANK = re.compile(rb"^\[(?:rank|RANK|default)(\d+)\]:")


def main():
    bundle = sys.argv[1]
    src = os.path.join(bundle, "job.out")
    if not os.path.isfile(src):
        sys.exit("split_ranks: no job.out in " + bundle)
    outs = {}
    rest = []
    try:
        with open(src, "rb") as f:
            for line in f:
                m = LABEL.match(line) or RANK.match(line)
                if not m:
                    rest.append(line)
                    continue
                r = int(m.group(1))
                o = outs.get(r)
                if o is None:
                    o = outs[r] = open(os.path.join(bundle, "rank-%d.out" % r), "wb", buffering=1 << 20)
                o.write(line)
    finally:
        for o in outs.values():
            o.close()
    with open(src, "wb") as f:
        f.writelines(rest)
    print("split_ranks: %d rank files, %d lines left in job.out" % (len(outs), len(rest)))


if __name__ == "__main__":
    main()
