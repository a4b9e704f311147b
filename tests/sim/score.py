#!/usr/bin/env python3
# Score denpex verdicts against simulator ground truth.
#
#   score.py --truth-dir TDIR --verdict-dir VDIR [--label NAME]
#            [--min-class 95] [--min-first 95] [--min-host 95]
#
# TDIR/<case>/truth.json is written by `denpex_sim.py suite --truth-dir TDIR`;
# VDIR/<case>.json is what `denpex diagnose --json` printed for that case
# (VDIR/<case>.rc holds its exit status when the harness recorded one).
# A case is correct on class when verdict.class == truth.class, on first rank when
# verdict.first.rank == truth.first_rank (both null counts as correct), and on first
# host when verdict.first.host == truth.first_host -- scored only where the truth
# names a host.  Thresholds are percentages (a value <= 1 is read as a fraction).
# Printed: a per-class table, and per noise kind the accuracy of the cases with it
# and without it (truth.noise lists a case's kinds).
# Exit 1 when overall class, first-rank or first-host accuracy is below its threshold.

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


def verdict_first(v, key):
    first = v.get("first") if isinstance(v, dict) else None
    if not isinstance(first, dict):
        return None
    x = first.get(key)
    if key == "rank":
        return x if isinstance(x, int) and not isinstance(x, bool) else None
    return x if isinstance(x, str) else None


def victim_overlap(v, t):
    """Jaccard overlap of verdict.victims.ranks with the true victims (informational)."""
    tv = set(t.get("victims") or [])
    vv = v.get("victims") if isinstance(v, dict) else None
    got = set(r for r in (vv.get("ranks") or []) if isinstance(r, int)) if isinstance(vv, dict) else set()
    if not tv and not got:
        return 1.0
    return len(tv & got) / float(len(tv | got))


class Tally:
    """Counts for one row: cases, class hits, first-rank hits, host cases, host hits."""

    def __init__(self):
        self.n = self.cls = self.first = self.nh = self.host = 0
        self.victims = 0.0

    def add(self, r):
        self.n += 1
        self.cls += r["ok_c"]
        self.first += r["ok_f"]
        self.victims += r["victims"]
        if r["ok_h"] is not None:
            self.nh += 1
            self.host += r["ok_h"]

    def pct(self, k, d):
        return 100.0 * k / d if d else None


def cell(p):
    return "%7.1f%%" % p if p is not None else "%8s" % "-"


def row(name, t, victims=True):
    s = "%-18s %5d %s %s %5d %s" % (name, t.n, cell(t.pct(t.cls, t.n)), cell(t.pct(t.first, t.n)),
                                   t.nh, cell(t.pct(t.host, t.nh)))
    if victims:
        s += " %s" % cell(t.pct(t.victims, t.n))
    return s


def threshold(x):
    return x * 100.0 if x <= 1.0 else x


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth-dir", required=True)
    ap.add_argument("--verdict-dir", required=True)
    ap.add_argument("--label", default="suite", help="suite name in the output")
    ap.add_argument("--min-class", type=float, default=95.0)
    ap.add_argument("--min-first", type=float, default=95.0)
    ap.add_argument("--min-host", type=float, default=95.0)
    ap.add_argument("--show", type=int, default=40, help="misses to list")
    a = ap.parse_args(argv)
    min_c, min_f, min_h = threshold(a.min_class), threshold(a.min_first), threshold(a.min_host)

    cases = sorted(d for d in os.listdir(a.truth_dir)
                   if os.path.isfile(os.path.join(a.truth_dir, d, "truth.json")))
    if not cases:
        print("score: no cases under %s" % a.truth_dir)
        return 1
    results = []
    misses = []
    for c in cases:
        t = load(os.path.join(a.truth_dir, c, "truth.json"))
        v = load(os.path.join(a.verdict_dir, c + ".json"))
        rc = None
        try:
            with open(os.path.join(a.verdict_dir, c + ".rc")) as f:
                rc = f.read().strip()
        except OSError:
            pass
        vcls = v.get("class") if isinstance(v, dict) else None
        vr, vh = verdict_first(v, "rank"), verdict_first(v, "host")
        th = t.get("first_host")
        r = {"class": t["class"], "noise": t.get("noise") or [],
             "ok_c": vcls == t["class"],
             "ok_f": v is not None and vr == t["first_rank"],
             "ok_h": (vh == th) if th else None,
             "victims": victim_overlap(v, t)}
        results.append(r)
        if not (r["ok_c"] and r["ok_f"] and r["ok_h"] is not False):
            why = "no verdict (rc %s)" % rc if v is None else ""
            misses.append("  %-10s truth %s/%s/%s  got %s/%s/%s %s [noise %s] [%s]" % (
                c, t["class"], t["first_rank"], th, vcls, vr, vh, why,
                ",".join(r["noise"]) or "-", t.get("notes", "")[:140]))

    per = {}
    total = Tally()
    for r in results:
        per.setdefault(r["class"], Tally()).add(r)
        total.add(r)
    print("== %s: %d cases ==" % (a.label, len(results)))
    print("%-18s %5s %8s %8s %5s %8s %8s" % ("class", "n", "class%", "first%", "n_host", "host%", "victims%"))
    for cls in sorted(per):
        print(row(cls, per[cls]))
    print(row("overall", total))
    print("(first%: first.rank right, null = null counts; host%: first.host right, over the n_host")
    print(" cases whose truth names a host; victims%: mean overlap with the true victims, informational)")

    kinds = sorted(set(k for r in results for k in r["noise"]))
    if kinds:
        # kinds ride together, so "with" mixes in the others' harm; "alone" is the kind
        # as the only noise of a case
        print("-- %s: per noise kind (with the kind | without it | the only kind) --" % a.label)
        print("%-18s %5s %8s %8s %5s %8s | %5s %8s %8s %5s %8s | %5s %8s %8s %5s %8s" % (
            "noise", "n", "class%", "first%", "n_host", "host%", "n", "class%", "first%", "n_host", "host%",
            "n", "class%", "first%", "n_host", "host%"))
        for k in kinds + ["(none)"]:
            w, wo, alone = Tally(), Tally(), Tally()
            for r in results:
                has = (not r["noise"]) if k == "(none)" else (k in r["noise"])
                (w if has else wo).add(r)
                if r["noise"] == [k]:
                    alone.add(r)
            print(row(k, w, False) + " | " + row("", wo, False)[19:] +
                  (" | " + row("", alone, False)[19:] if k != "(none)" else ""))

    if misses:
        print("misses (%d%s):" % (len(misses), ", not listed" if a.show == 0 else ""))
        for m in misses[:a.show]:
            print(m)
        if 0 < a.show < len(misses):
            print("  ... %d more" % (len(misses) - a.show))
    pc, pf = total.pct(total.cls, total.n), total.pct(total.first, total.n)
    ph = total.pct(total.host, total.nh)
    fails = []
    if pc < min_c:
        fails.append("class")
    if pf < min_f:
        fails.append("first rank")
    if ph is not None and ph < min_h:
        fails.append("first host")
    print("%s thresholds: class >= %.1f%%, first rank >= %.1f%%, first host >= %.1f%%: %s" % (
        a.label, min_c, min_f, min_h, "FAIL (%s)" % ", ".join(fails) if fails else "ok"))
    n_ok = sum(1 for r in results if r["ok_c"] and r["ok_f"] and r["ok_h"] is not False)
    print("accuracy: %s: %d passed, %d failed" % (a.label, n_ok, len(results) - n_ok))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
