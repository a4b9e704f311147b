#!/usr/bin/env python3
"""Writes the flight-recorder dump fixtures of tests/check_fr.cc.

Usage: fr_writer.py OUTDIR   (the committed copy lives in tests/data/fr)

Dumps are built the way PyTorch's FlightRecorder writes them (doc/formats.md,
flight recorder): a plain dict pickled with protocol 2 (tuples, lists, dicts, str, int,
float, bool, None only), or the JSON variant (state strings, 0 for unset
times, numbers as strings in pg_status). Everything is deterministic, so
rerunning the writer reproduces the committed files byte for byte.

Scenarios (one directory each):
  hang64/     pickle, 64 ranks, default PG + 8 TP groups, rings wrapped;
              rank 37 never enqueues the last default-PG all_reduce.
  deadlock8/  JSON, 8 ranks; rank 5 calls a TP all_gather while everyone
              else waits in the default-PG all_reduce (cross-PG deadlock).
  mismatch32/ pickle, 32 ranks; rank 20 all_reduces 1024 elements, the
              others 2048.
  nodump8/    pickle, 8 ranks all waiting; rank 3 left no dump.
  truncated8/ pickle, 8 ranks all waiting; rank 6's dump is cut short.
  forbidden/  rank_0: a dump holding an OrderedDict (GLOBAL + REDUCE);
              rank_1: a pickled class instance.
"""

import collections
import json
import os
import pickle
import sys

BASE_NS = 1_780_000_000_000_000_000


class World:
    def __init__(self, n, pgs, version="2.9", ring=2000, timing=True):
        self.n = n
        self.pgs = pgs  # name -> (desc, [ranks])
        self.version = version
        self.ring = ring
        self.timing = timing
        self.entries = {r: [] for r in range(n)}
        self.record = {r: 0 for r in range(n)}
        self.seq = {}      # (rank, pg) -> last collective_seq_id
        self.p2p_seq = {}  # (rank, pg) -> last p2p_seq_id
        self.op = {}
        self.status = {}   # (rank, pg) -> [enq, started, completed]
        self.ms = 0
        # Per-rank clock offset, so clock anchors have something to find.
        self.skew = {r: (r % 4) * 3_000_000 - (r % 3) * 1_000_000 for r in range(n)}

    def local_id(self, rank, pg):
        mine = [p for p in sorted(self.pgs, key=int) if rank in self.pgs[p][1]]
        return mine.index(pg)

    def add(self, ranks, pg, op="nccl:all_reduce", size=(2048,), dtype="Float",
            state="completed", out=None, p2p=False, frames=False, per_rank=None):
        """One op on each of ranks; per_rank[r] overrides fields for rank r."""
        self.ms += 25
        for r in ranks:
            kw = dict(op=op, size=size, dtype=dtype, state=state, out=out)
            if per_rank and r in per_rank:
                kw.update(per_rank[r])
            key = (r, pg)
            if p2p:
                self.p2p_seq[key] = self.p2p_seq.get(key, 0) + 1
            else:
                self.seq[key] = self.seq.get(key, 0) + 1
            self.op[key] = self.op.get(key, 0) + 1
            t = BASE_NS + self.ms * 1_000_000 + self.skew[r] + r * 1000
            st = kw["state"]
            if st == "started" and not self.timing:
                st = "scheduled"
            started = t + 1_000_000 if st in ("started", "completed") and self.timing else None
            completed = t + 4_000_000 if st == "completed" else None
            o = kw["out"] if kw["out"] is not None else kw["size"]
            e = {
                "record_id": self.record[r],
                "pg_id": self.local_id(r, pg),
                "process_group": (pg, self.pgs[pg][0]),
                "collective_seq_id": self.seq.get(key, 0),
                "p2p_seq_id": self.p2p_seq.get(key, 0),
                "op_id": self.op[key],
                "profiling_name": kw["op"],
                "time_created_ns": t,
                "input_sizes": [list(kw["size"])],
                "output_sizes": [list(o)],
                "input_dtypes": [kw["dtype"]],
                "output_dtypes": [kw["dtype"]],
                "state": st,
                "time_discovered_started_ns": started,
                "time_discovered_completed_ns": completed,
                "retired": st == "completed",
                "timeout_ms": 600000,
                "is_p2p": p2p,
                "thread_id": 140000 + r,
                "thread_name": "pt_main_thread",
            }
            if self.timing and st == "completed":
                e["duration_ms"] = 3.25
            if frames:
                e["frames"] = [
                    {"name": "train_step", "filename": "train.py", "line": 120},
                    {"name": "all_reduce", "filename": "torch/distributed/distributed_c10d.py", "line": 2501},
                ]
            self.record[r] += 1
            self.entries[r].append(e)
            if not p2p:
                s = self.status.setdefault(key, [-1, -1, -1])
                s[0] = e["collective_seq_id"]
                if st in ("started", "completed") and self.timing:
                    s[1] = e["collective_seq_id"]
                if st == "completed":
                    s[2] = e["collective_seq_id"]

    def dump(self, rank, fmt):
        mine = [p for p in sorted(self.pgs, key=int) if rank in self.pgs[p][1]]
        pg_config = {}
        for p in mine:
            pg_config[p] = {"name": p, "desc": self.pgs[p][0],
                            "ranks": "[" + ", ".join(str(x) for x in self.pgs[p][1]) + "]"}
        pg_status = {}
        for p in mine:
            s = self.status.get((rank, p), [-1, -1, -1])
            vals = {"last_enqueued_collective": s[0], "last_started_collective": s[1],
                    "last_completed_collective": s[2]}
            if fmt == "json":
                vals = {k: str(v) for k, v in vals.items()}
            pg_status[str(self.local_id(rank, p))] = vals
        entries = self.entries[rank][-self.ring:]
        d = {"version": self.version, "pg_config": pg_config, "pg_status": pg_status,
             "entries": entries}
        if fmt == "json":
            d["comm_lib_version"] = "2.27.3"
            d["entries"] = [dict(e, process_group=list(e["process_group"]),
                                 time_discovered_started_ns=e["time_discovered_started_ns"] or 0,
                                 time_discovered_completed_ns=e["time_discovered_completed_ns"] or 0)
                            for e in entries]
            return json.dumps(d, sort_keys=True).encode()
        d["nccl_version"] = "2.27.3"
        return pickle.dumps(d, protocol=2)

    def write(self, outdir, fmt="pickle", prefix="rank_", skip=()):
        os.makedirs(outdir, exist_ok=True)
        for r in range(self.n):
            if r in skip:
                continue
            name = prefix + str(r) + (".json" if fmt == "json" else "")
            with open(os.path.join(outdir, name), "wb") as f:
                f.write(self.dump(r, fmt))


def groups(n, size, first_name, desc):
    return {str(first_name + k): (desc, list(range(k * size, (k + 1) * size)))
            for k in range(n // size)}


def hang64(out):
    pgs = {"0": ("default_pg", list(range(64)))}
    pgs.update(groups(64, 8, 1, "tp"))
    w = World(64, pgs, version="2.9", ring=6)
    tp = [p for p in pgs if p != "0"]
    for step in range(7):
        for p in tp:
            w.add(pgs[p][1], p, op="nccl:_all_gather_base", size=(512,), out=(4096,),
                  dtype="BFloat16", frames=(step == 6 and p == "1"))
        w.add(range(64), "0")
    for p in tp:
        w.add(pgs[p][1], p, op="nccl:_all_gather_base", size=(512,), out=(4096,), dtype="BFloat16")
    # The hang: 37 never gets to the default-PG all_reduce; rank 0 runs without
    # timing-like state ("scheduled").
    w.add([r for r in range(64) if r != 37], "0", state="started",
          per_rank={0: {"state": "scheduled"}})
    w.write(out)


def deadlock8(out):
    pgs = {"0": ("default_pg", list(range(8))), "1": ("tp", [0, 1, 2, 3]),
           "2": ("tp", [4, 5, 6, 7])}
    w = World(8, pgs, version="2.10")
    for _ in range(3):
        w.add([0, 1, 2, 3], "1", op="nccl:all_gather", size=(256,), out=(1024,))
        w.add([4, 5, 6, 7], "2", op="nccl:all_gather", size=(256,), out=(1024,))
        w.add(range(8), "0")
    w.add([0], "0", op="nccl:send 0->1", size=(16,), p2p=True)
    w.add([1], "0", op="nccl:recv 1<-0", size=(16,), p2p=True)
    w.add([r for r in range(8) if r != 5], "0", state="started")
    w.add([5], "2", op="nccl:all_gather", size=(256,), out=(1024,), state="started")
    w.write(out, fmt="json", prefix="fr_dump_")


def mismatch32(out):
    pgs = {"0": ("default_pg", list(range(32))),
           "1": ("dp", list(range(0, 32, 2))), "2": ("dp", list(range(1, 32, 2)))}
    w = World(32, pgs, version="2.5")
    for _ in range(2):
        w.add(range(32), "0")
        w.add(range(0, 32, 2), "1", op="nccl:reduce_scatter", size=(4096,), out=(256,))
        w.add(range(1, 32, 2), "2", op="nccl:reduce_scatter", size=(4096,), out=(256,))
    w.add(range(32), "0", state="started", per_rank={20: {"size": (1024,)}})
    w.write(out)


def all_waiting(n, out, skip=(), truncate=None):
    pgs = {"0": ("default_pg", list(range(n)))}
    w = World(n, pgs, version="2.4")
    for _ in range(4):
        w.add(range(n), "0", op="nccl:broadcast", size=(64, 64))
    w.add(range(n), "0", state="started")
    w.write(out, skip=skip)
    if truncate is not None:
        path = os.path.join(out, "rank_%d" % truncate)
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[: len(data) * 3 // 5])


class Thing:
    def __init__(self):
        self.x = 1


def forbidden(out):
    os.makedirs(out, exist_ok=True)
    d = {"version": "2.9", "pg_config": {}, "pg_status": {},
         "entries": [{"record_id": 0, "frames": collections.OrderedDict(a=1)}]}
    with open(os.path.join(out, "rank_0"), "wb") as f:
        f.write(pickle.dumps(d, protocol=2))
    with open(os.path.join(out, "rank_1"), "wb") as f:
        f.write(pickle.dumps(Thing(), protocol=2))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fr_writer.py OUTDIR")
    out = sys.argv[1]
    hang64(os.path.join(out, "hang64"))
    deadlock8(os.path.join(out, "deadlock8"))
    mismatch32(os.path.join(out, "mismatch32"))
    all_waiting(8, os.path.join(out, "nodump8"), skip=(3,))
    all_waiting(8, os.path.join(out, "truncated8"), truncate=6)
    forbidden(os.path.join(out, "forbidden"))


if __name__ == "__main__":
    main()
