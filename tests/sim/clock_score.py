#!/usr/bin/env python3
"""Scores recovered clock offsets against the simulator's truth.

Offsets are relative: denpex reports each host against a reference host, the
simulator against true time, so both are compared as differences to the host
denpex took as reference. Only hosts with an alignment anchor count (denpex
reports those with an uncertainty below its no-anchor default).
"""
import argparse
import json
import os
import sys


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth-dir", required=True)
    ap.add_argument("--verdict-dir", required=True)
    ap.add_argument("--tolerance", type=float, default=0.5)
    ap.add_argument("--no-anchor", type=float, default=2.0, help="uncertainty denpex gives hosts without an anchor")
    ap.add_argument("--min-percent", type=float, default=98.0)
    a = ap.parse_args(argv)
    n_hosts = n_ok = n_tight = n_tight_ok = 0
    worst = []
    for c in sorted(os.listdir(a.truth_dir)):
        tp = os.path.join(a.truth_dir, c, "truth.json")
        vp = os.path.join(a.verdict_dir, c + ".json")
        if not os.path.isfile(tp) or not os.path.isfile(vp):
            continue
        try:
            t = json.load(open(tp))
            v = json.load(open(vp))
        except ValueError:
            continue
        tc, vc = t.get("clock") or {}, v.get("clock") or {}
        anchored = {h: x for h, x in vc.items() if h in tc and x["uncertainty_s"] < a.no_anchor}
        refs = [h for h, x in anchored.items() if abs(x["offset_s"]) < 1e-9]
        if len(anchored) < 2 or not refs:
            continue
        ref = refs[0]
        # The truth's offset where denpex measured it: at the failure.
        ft = t.get("first_time")
        at = None
        if ft:
            import calendar, time as _t
            at = calendar.timegm(_t.strptime(ft[:19], "%Y-%m-%dT%H:%M:%S")) + float("0." + ft[20:-1] if "." in ft else 0)

        def true_off(host):
            x = tc[host]
            if at is None or "t_ref" not in x:
                return x["offset_s"]
            return x["offset_s"] + x.get("drift_ppm", 0) * 1e-6 * (at - x["t_ref"])

        for h, x in anchored.items():
            if h == ref:
                continue
            err = (x["offset_s"] - anchored[ref]["offset_s"]) - (true_off(h) - true_off(ref))
            n_hosts += 1
            # Within the tolerance, or within what denpex says it knows.
            allowed = max(a.tolerance, x["uncertainty_s"] + anchored[ref]["uncertainty_s"])
            if abs(err) <= allowed:
                n_ok += 1
            else:
                worst.append((abs(err), c, h))
            if x["uncertainty_s"] <= a.tolerance:
                n_tight += 1
                if abs(err) <= a.tolerance:
                    n_tight_ok += 1
    worst.sort(reverse=True)
    pct = 100.0 * n_ok / n_hosts if n_hosts else 100.0
    print("clock: %d hosts aligned on precise anchors (uncertainty <= %.1f s): %d within %.1f s of truth" % (
        n_tight, a.tolerance, n_tight_ok, a.tolerance))
    print("clock: %d anchored hosts in all, %d within max(%.1f s, their stated uncertainty) of truth (%.1f%%)" % (
        n_hosts, n_ok, a.tolerance, pct))
    for err, c, h in worst[:10]:
        print("  %s %s off by %.2f s" % (c, h, err))
    tight_pct = 100.0 * n_tight_ok / n_tight if n_tight else 100.0
    ok = tight_pct >= a.min_percent and pct >= a.min_percent
    print("clock: %s (>= %.0f%% of precisely anchored hosts within %.1f s, and of all hosts within their "
          "stated uncertainty)" % ("PASS" if ok else "FAIL", a.min_percent, a.tolerance))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
