#!/usr/bin/env python3
# Score denpex verdicts against simulator ground truth.
#
#   score.py --truth-dir TDIR --verdict-dir VDIR [--min-class 95] [--min-first 95]
#
# TDIR/<case>/truth.json is written by `denpex_sim.py suite --truth-dir TDIR`;
# VDIR/<case>.json is what `denpex diagnose --json` printed for that case
# (VDIR/<case>.rc holds its exit status when the harness recorded one).
# A case is correct on class when verdict.class == truth.class, and on first rank
# when verdict.first.rank == truth.first_rank (both null counts as correct).
# Exit 1 when overall class or first-rank accuracy is below the thresholds.

import argparse
import json
import os
import sys


def load(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def verdict_rank(v):
    first = v.get("first") if isinstance(v, dict) else None
    if not isinstance(first, dict):
        return None
    r = first.get("rank")
    return r if isinstance(r, int) and not isinstance(r, bool) else None


def victim_overlap(v, t):
    """Jaccard overlap of verdict.victims.ranks with the true victims (informational)."""
    tv = set(t.get("victims") or [])
    vv = v.get("victims") if isinstance(v, dict) else None
    got = set(r for r in (vv.get("ranks") or []) if isinstance(r, int)) if isinstance(vv, dict) else set()
    if not tv and not got:
        return 1.0
    return len(tv & got) / float(len(tv | got))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth-dir", required=True)
    ap.add_argument("--verdict-dir", required=True)
    ap.add_argument("--min-class", type=float, default=95.0)
    ap.add_argument("--min-first", type=float, default=95.0)
    ap.add_argument("--show", type=int, default=40, help="misses to list")
    a = ap.parse_args(argv)

    cases = sorted(d for d in os.listdir(a.truth_dir)
                   if os.path.isfile(os.path.join(a.truth_dir, d, "truth.json")))
    if not cases:
        print("score: no cases under %s" % a.truth_dir)
        return 1
    per = {}
    misses = []
    n_ok = n_cls = n_first = 0
    for c in cases:
        t = load(os.path.join(a.truth_dir, c, "truth.json"))
        v = load(os.path.join(a.verdict_dir, c + ".json"))
        rc = None
        try:
            with open(os.path.join(a.verdict_dir, c + ".rc")) as f:
                rc = f.read().strip()
        except OSError:
            pass
        cls = t["class"]
        vcls = v.get("class") if isinstance(v, dict) else None
        vr = verdict_rank(v)
        ok_c = vcls == cls
        ok_f = v is not None and vr == t["first_rank"]
        s = per.setdefault(cls, [0, 0, 0, 0.0])
        s[0] += 1
        s[1] += ok_c
        s[2] += ok_f
        s[3] += victim_overlap(v, t)
        n_cls += ok_c
        n_first += ok_f
        if ok_c and ok_f:
            n_ok += 1
        else:
            why = "no verdict (rc %s)" % rc if v is None else ""
            misses.append("  %-10s truth %s/%s  got %s/%s %s  [%s]" % (
                c, cls, t["first_rank"], vcls, vr, why, t.get("notes", "")[:160]))
    n = len(cases)
    print("%-18s %5s %8s %8s %9s" % ("class", "n", "class%", "first%", "victims%"))
    for cls in sorted(per):
        s = per[cls]
        print("%-18s %5d %7.1f%% %7.1f%% %8.1f%%" % (cls, s[0], 100.0 * s[1] / s[0], 100.0 * s[2] / s[0], 100.0 * s[3] / s[0]))
    pc, pf = 100.0 * n_cls / n, 100.0 * n_first / n
    pv = 100.0 * sum(s[3] for s in per.values()) / n
    print("%-18s %5d %7.1f%% %7.1f%% %8.1f%%" % ("overall", n, pc, pf, pv))
    print("(victims%: mean overlap of reported victim ranks with the true victims; informational)")
    if misses:
        print("misses (%d):" % len(misses))
        for m in misses[:a.show]:
            print(m)
        if len(misses) > a.show:
            print("  ... %d more" % (len(misses) - a.show))
    fail = pc < a.min_class or pf < a.min_first
    print("thresholds: class >= %.1f%%, first rank >= %.1f%%: %s" % (a.min_class, a.min_first, "FAIL" if fail else "ok"))
    print("accuracy: %d passed, %d failed" % (n_ok, n - n_ok))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
