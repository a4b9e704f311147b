#!/usr/bin/env python3
# Denpex scenario simulator: writes realistic failed-job bundles with ground truth.
#
# A bundle is what a failed multi-node PyTorch/NCCL job on Slurm leaves behind
# (combined job log, NCCL debug files, per-node kernel logs, sacct output,
# torchelastic error files).  The ground truth (truth.json) describes the true
# causal story: the class of the fault, the rank that failed first on the true
# clock, and the victims.  Every timestamp a host writes is taken from that
# host's own clock (offset + drift); the truth is on the true clock.
#
# Standard library only (runs on Debian 12's python3).
#
#   denpex_sim.py --seed N --out DIR [--class CLASS] [--ranks R] [--skew-max S]
#                 [--drift-ppm P] [--noise-bytes B] [--prefix label|torchrun|mixed|none]
#                 [--nccl inline|files|none] [--truth PATH] [--noise KIND,KIND...]
#   denpex_sim.py suite --count 300 --seed 1 --out DIR [--truth-dir TDIR]
#                 [--noise mixed|none|KIND,KIND...]
#
# Noise (NOISE_KINDS below): what healthy jobs print -- survived OOMs, caught tracebacks,
# stale kernel events, benign warnings, ranks only in message text, hosts only in NCCL
# INFO lines -- plus the desync-hang and NaN-origin shapes of their classes.  A suite
# mixes them in by default (a quarter of the cases stay clean); the truth lists each
# case's kinds ("noise") and, for NaN-origin cases, "nan_cause" (bad_sample|overflow|gpu)
# and "nan_step".  Noise draws from a stream of its own: with --noise none a suite is
# byte-identical to what the same seed wrote before noise existed.
#
# The truth never goes into the bundle files themselves; by default truth.json
# is written next to the logs in DIR (use --truth / --truth-dir to put it
# elsewhere, as the accuracy test does).
#
# Bundle layout (every file optional except job.out):
#   job.out, job.err        combined job log (sbatch --output / --error); job.err only when
#                           the job split stderr.  Rank prefixes per --prefix:
#                           label: srun --label "R: " (task id = global rank, srun launch);
#                           torchrun: "[rankR]:" / "[defaultL]:" (LOCAL rank, --tee);
#                           mixed: srun --label over torchrun ("N: " = node's task id) or pdsh
#                           host/IP prefixes "node03: " / "10.0.0.3: ";
#                           none: unprefixed (old PyTorch "[E ProcessGroupNCCL.cpp:737] [Rank R]").
#   nccl.<host>.<pid>.log   NCCL_DEBUG_FILE per process (--nccl files), else NCCL lines inline
#                           in job.out (--nccl inline) or absent (--nccl none).
#   kern.<host>.log         kernel messages of every node: dmesg -T, journalctl short-iso,
#                           short-iso-precise, short-precise, syslog with [boot seconds], raw
#                           "[boot seconds] msg", raw preceded by a "btime <epoch>" line
#                           (as /proc/stat gives it, on that host's clock).
#   sacct.txt | sacct.json  sacct -P (JobID|JobName|State|ExitCode|DerivedExitCode|Start|End|
#                           NodeList) or sacct --json (Slurm 24.05 shape); sometimes missing.
#   torchelastic/<host>/attempt_0/<local_rank>/error.json   torchelastic error files.
#   fr/rank_<R>             flight-recorder dumps, pickle protocol 2 (PyTorch >= 2.4 jobs).
# Hosts' clocks: offset up to --skew-max seconds and drift up to --drift-ppm; the controller
# (sacct) is on true time.

import argparse
import calendar
import json
import os
import random
import sys
import time

CLASSES = [
    "gpu_hardware", "cuda_oom", "host_oom", "network", "collective_hang",
    "python_exception", "nan_inf", "cuda_error", "segfault", "filesystem",
    "launch_failure", "time_limit", "preemption", "user_cancel", "node_failure",
    "unknown",
]
CRASH_CLASSES = {"gpu_hardware", "cuda_oom", "host_oom", "network", "python_exception",
                 "nan_inf", "cuda_error", "segfault", "filesystem", "unknown"}
CANCEL_CLASSES = {"time_limit", "preemption", "user_cancel"}

# Noise ingredients: what healthy jobs print, mixed into failures of every class
# (see Scenario._setup_noise and the noise_* methods; shapes from public issue threads).
NOISE_KINDS = [
    "survived_oom",      # WARNING-level CUDA OOM with skip/retry/fallback, progress goes on
    "caught_traceback",  # a full traceback the run survived (ignored, retried, skipped)
    "stale_kernel",      # kernel events from before the job: old OOM kill, Xid, link flap
    "benign_warnings",   # NCCL net-plugin load, GPU Direct RDMA off, Slurm chdir/ntasks
    "rank_in_text",      # no launcher prefix; ranks only inside the logger's message text
    "host_via_nccl",     # no launcher line names a host; NCCL INFO host:pid or logger only
    "desync_hang",       # collective_hang: the culprit's watchdog differs, or its progress
    "nan_origin",        # nan_inf: all-reduced loss goes NaN everywhere, one rank first
]
# ingredients that shape one class's story rather than ride along with any class
CLASS_NOISE = {"desync_hang": "collective_hang", "nan_origin": "nan_inf"}
# ingredients that need a training phase (a job that died at launch never trained)
TRAINING_NOISE = {"survived_oom", "caught_traceback"}


def noise_applies(kind, cls):
    if kind in CLASS_NOISE:
        return CLASS_NOISE[kind] == cls
    return not (kind in TRAINING_NOISE and cls == "launch_failure")

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
WDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

BUSIDS = [
    ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"],  # H100 SXM
    ["07000", "0f000", "47000", "4e000", "87000", "90000", "b7000", "bd000"],  # A100 SXM
    ["1b000", "1c000", "3d000", "3e000", "9c000", "9d000", "bc000", "bd000"],
]
PT_VERSIONS = ["1.13", "2.1", "2.4", "2.6"]
NCCL_VERSIONS = ["2.10.3", "2.18.6", "2.21.5", "2.23.4", "2.27.3"]


# ----------------------------------------------------------------------------
# time formatting (all inputs are epoch seconds on some host's clock, UTC)

# The cluster's local time zone offset (seconds east of UTC) applied by every local-time
# formatter below; set per scenario (hosts print local wall time, glog/syslog/dmesg -T
# carry no zone).  Epoch values (error.json, FR ns, sacct --json) stay UTC.
_TZ = 0
TZ_NAMES = {0: "UTC", -25200: "PDT", -18000: "CDT", -14400: "EDT", 3600: "CET", 7200: "CEST",
            19800: "IST", 28800: "CST", 32400: "JST"}


def _tm(t):
    return time.gmtime(int((t + _TZ) // 1))


def tz_offset_str(colon):
    sign = "+" if _TZ >= 0 else "-"
    a = abs(_TZ)
    return "%s%02d%s%02d" % (sign, a // 3600, ":" if colon else "", a % 3600 // 60)


def fmt_utc(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(t // 1))) + ".%06dZ" % int((t % 1) * 1e6)


def fmt_iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", _tm(t))


def fmt_iso_us(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", _tm(t)) + ".%06d" % int((t % 1) * 1e6)


def fmt_sql(t):
    return time.strftime("%Y-%m-%d %H:%M:%S", _tm(t))


def frac(t, digits):
    return ("%.*f" % (digits, t % 1))[2:2 + digits] if digits else ""


def fmt_glog(sev, t, digits=6):
    g = _tm(t)
    return "%s%02d%02d %02d:%02d:%02d.%s" % (sev, g.tm_mon, g.tm_mday, g.tm_hour, g.tm_min,
                                             g.tm_sec, frac(t, digits))


def fmt_syslog(t, us=False):
    g = _tm(t)
    s = "%s %2d %02d:%02d:%02d" % (MONTHS[g.tm_mon - 1], g.tm_mday, g.tm_hour, g.tm_min, g.tm_sec)
    if us:
        s += "." + frac(t, 6)
    return s


def fmt_ctime(t):
    g = _tm(t)
    return "%s %s %2d %02d:%02d:%02d %d" % (WDAYS[g.tm_wday], MONTHS[g.tm_mon - 1], g.tm_mday,
                                            g.tm_hour, g.tm_min, g.tm_sec, g.tm_year)


def ranges(nums):
    nums = sorted(nums)
    out = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out)


# ----------------------------------------------------------------------------

def pickle2(obj):
    """Protocol-2 pickle of plain data, in the shape torch's C++ pickler writes flight-recorder
    dumps: containers always MARK ... SETITEMS / APPENDS (even with one item), no GLOBAL/REDUCE."""
    import struct
    out = [b"\x80\x02"]

    def w(o):
        if o is None:
            out.append(b"N")
        elif o is True:
            out.append(b"\x88")
        elif o is False:
            out.append(b"\x89")
        elif isinstance(o, int):
            if 0 <= o < 256:
                out.append(b"K" + bytes([o]))
            elif 0 <= o < 65536:
                out.append(b"M" + struct.pack("<H", o))
            elif -2**31 <= o < 2**31:
                out.append(b"J" + struct.pack("<i", o))
            else:
                n = (o.bit_length() + 8) // 8
                out.append(b"\x8a" + bytes([n]) + o.to_bytes(n, "little", signed=True))
        elif isinstance(o, float):
            out.append(b"G" + struct.pack(">d", o))
        elif isinstance(o, str):
            b = o.encode("utf-8")
            out.append(b"X" + struct.pack("<I", len(b)) + b)
        elif isinstance(o, tuple):
            if len(o) == 2:
                w(o[0]); w(o[1]); out.append(b"\x86")
            else:
                out.append(b"(")
                for x in o:
                    w(x)
                out.append(b"t")
        elif isinstance(o, list):
            out.append(b"]")
            if o:
                out.append(b"(")
                for x in o:
                    w(x)
                out.append(b"e")
        elif isinstance(o, dict):
            out.append(b"}")
            if o:
                out.append(b"(")
                for k, v in o.items():
                    w(k); w(v)
                out.append(b"u")
        else:
            raise TypeError(type(o))
    w(obj)
    out.append(b".")
    return b"".join(out)


class Node:
    def __init__(self, idx, name, off, drift, t_ref, boot, ip, kfmt):
        self.idx, self.name, self.off, self.drift = idx, name, off, drift
        self.t_ref, self.boot, self.ip, self.kfmt = t_ref, boot, ip, kfmt
        self.ranks = []

    def h(self, t):
        """This host's clock reading at true time t."""
        return t + self.off + self.drift * 1e-6 * (t - self.t_ref)


class Rank:
    def __init__(self, r, node, local, pid, busid):
        self.r, self.node, self.local, self.pid, self.busid = r, node, local, pid, busid
        self.tid = pid            # main thread; NCCL helper threads are pid+N

    @property
    def host(self):
        return self.node.name


class Scenario:
    """One failed job.  Lines are collected per output file with their true time,
    then each file is written in true-time order (plus small delivery jitter)."""

    def __init__(self, seed, cls=None, ranks=None, skew_max=None, drift_ppm=None,
                 noise_bytes=0, prefix=None, nccl=None, variant=None, noise=None):
        self.rng = rng = random.Random(seed)
        # noise ingredients draw from their own stream, so a case without noise is
        # byte-identical to what this seed wrote before noise existed
        self.nrng = random.Random("noise/%s" % seed)
        self.noise = sorted(set(noise or []))
        bad = [k for k in self.noise if k not in NOISE_KINDS]
        if bad:
            raise SystemExit("unknown noise kind %r (choose from %s)" % (bad[0], ", ".join(NOISE_KINDS)))
        self.seed = seed
        self.cls = cls or rng.choice(CLASSES if not noise_bytes else [c for c in CLASSES if c != "launch_failure"])
        if self.cls not in CLASSES:
            raise SystemExit("unknown class %r (choose from %s)" % (self.cls, ", ".join(CLASSES)))
        self.nranks = ranks or rng.choice([2, 4, 8, 8, 16, 16, 16, 24, 32, 32, 48, 64])
        self.skew_max = rng.choice([0.0, 0.3, 2.0, 15.0, 60.0]) if skew_max is None else skew_max
        self.drift_ppm = rng.choice([0.0, 5.0, 20.0, 50.0]) if drift_ppm is None else drift_ppm
        # The filler is hours of training progress on every rank: a job that failed
        # to start prints none (its logs would say every rank trained on after it).
        self.noise_bytes = 0 if self.cls == "launch_failure" else noise_bytes
        self.prefix = prefix or rng.choice(["label", "torchrun", "mixed", "none"])
        self.nccl_mode = nccl or rng.choice(["inline", "inline", "files", "files", "none"])
        self.variant = variant
        self.files = {}
        self.delay = {}
        self.pre_dead = {}
        self.fr = {}
        self.last_w = {}
        self.seq = 0
        self.notes = []
        self.truth_first = None
        self.truth_host = None
        self.victims = set()
        self.first_time = None
        self.nan_cause = None
        self.nan_step = None
        self._setup()
        self._setup_noise()

    # -- setup -----------------------------------------------------------------
    def _setup(self):
        rng = self.rng
        self.pt = rng.choice(PT_VERSIONS)
        self.nv = rng.choice(NCCL_VERSIONS)
        if self.prefix == "none":
            self.pt = rng.choice(["1.13", "2.1", "2.1", "2.4"])
        self.ppn = min(8, self.nranks) if self.nranks % 8 == 0 or self.nranks < 8 else 8
        if self.nranks <= 8 and rng.random() < (0.8 if self.cls == "node_failure" else 0.35):
            # small jobs spread over nodes too (e.g. 2 nodes x 2 GPUs)
            self.ppn = max(1, self.nranks // rng.choice([2, 2, 4]))
        if self.nranks > 8 and self.nranks % 8:
            self.nranks -= self.nranks % 8
        nnodes = (self.nranks + self.ppn - 1) // self.ppn
        style = rng.choice(["node%03d", "gpu-a%02d", "dgx%04d", "hpc-g%03d"])
        start_num = rng.randint(1, 60)
        step = rng.choice([1, 1, 1, 2])
        # true job start: somewhere in 2026, away from the year boundary
        self.t_start = calendar.timegm((2026, rng.randint(1, 11), rng.randint(1, 28),
                                        rng.randint(0, 23), rng.randint(0, 59),
                                        rng.randint(0, 59))) + rng.random()
        kfmts = ["dmesg_T", "iso", "iso_precise", "precise", "syslog", "raw", "raw_btime"]
        kpick = rng.choice(kfmts + ["mixed"])
        self.nodes = []
        bus = rng.choice(BUSIDS)
        net_b = rng.randint(0, 200)
        for i in range(nnodes):
            name = style % (start_num + i * step)
            off = rng.uniform(-self.skew_max, self.skew_max)
            drift = rng.uniform(-self.drift_ppm, self.drift_ppm)
            boot = self.t_start - rng.uniform(3600, 40 * 86400)
            kf = rng.choice(kfmts) if kpick == "mixed" else kpick
            ip = "10.%d.%d.%d" % (net_b, i // 250, i % 250 + 1)
            self.nodes.append(Node(i, name, off, drift, self.t_start, boot, ip, kf))
        self.ranks = []
        for n in self.nodes:
            pid = rng.randint(1000, 3000000)
            for l in range(self.ppn):
                r = n.idx * self.ppn + l
                if r >= self.nranks:
                    break
                pid += rng.randint(120, 400)  # distinct per host, room for thread ids
                rk = Rank(r, n, l, pid, bus[l])
                n.ranks.append(rk)
                self.ranks.append(rk)
        # launch layout
        if self.prefix == "label":
            self.launch, self.label, self.hostpfx = "srun", True, False
            self.rank_tag = self.pt not in ("1.13", "2.1") and rng.random() < 0.7
            self.tee = False
        elif self.prefix == "torchrun":
            self.launch, self.label, self.hostpfx = "torchrun", False, False
            self.rank_tag = True
            self.tee = rng.random() < 0.4
            if self.pt in ("1.13", "2.1"):
                self.pt = rng.choice(["2.4", "2.6"])
        elif self.prefix == "mixed":
            self.launch = "torchrun"
            self.hostpfx = rng.random() < 0.3
            self.label = not self.hostpfx
            self.tee = rng.random() < 0.6
            self.rank_tag = self.pt not in ("1.13", "2.1") and rng.random() < 0.7
        else:
            self.launch = rng.choice(["srun", "torchrun"])
            self.label = self.hostpfx = self.tee = self.rank_tag = False
        self.tz = 0 if rng.random() < 0.65 else rng.choice([-25200, -18000, -14400, 3600, 7200, 19800, 28800, 32400])
        self.hostpfx_ip = rng.random() < 0.5      # pdsh/DeepSpeed style "10.0.3.17: "
        self.split_err = rng.random() < 0.5
        self.kill_on_bad_exit = rng.random() < 0.35
        # Which words slurmstepd uses for srun's kill of the step (a draw of its own, so
        # the main stream of draws, and every other case, stays as it was).
        self.cancel_reason_words = random.Random(self.seed ^ 0x5c4a).random() < 0.5
        self.crlf = rng.random() < 0.1
        self.ansi = rng.random() < 0.15
        self.nccl_ts = "none"
        if self.nv == "2.27.3":
            self.nccl_ts = "warn"
        if rng.random() < 0.3:
            self.nccl_ts = "all"   # Denpex plugin sets NCCL_DEBUG_TIMESTAMP_LEVELS=ALL
        self.tmo_ms = 1800000 if self.pt == "1.13" else rng.choice([600000, 600000, 1800000, 300000])
        self.jobid = rng.randint(1000, 9999999)
        self.uid = rng.randint(1000, 60000)
        self.user = rng.choice(["alice", "bob", "mlperf", "svc_train", "jdoe"])
        self.jobname = rng.choice(["train", "pretrain_llama", "sft-70b", "run.sh", "ddp_bench", "finetune"])
        self.pyexe = rng.choice(["/usr/bin/python3", "/opt/conda/bin/python", "/home/%s/venv/bin/python" % self.user])
        self.sitepk = rng.choice(["/usr/local/lib/python3.10/dist-packages", "/opt/conda/lib/python3.11/site-packages",
                                  "/home/%s/venv/lib/python3.12/site-packages" % self.user])
        self.script = rng.choice(["train.py", "pretrain_gpt.py", "main.py", "run_clm.py"])
        self.run_id = "%d" % self.jobid if rng.random() < 0.5 else "none"
        self.rate = rng.uniform(2.0, 40.0)            # collectives per second
        self.op = rng.choice(["ALLREDUCE", "ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BROADCAST"])
        self.numel = rng.choice([1, 1024, 4194304, 52428800, 262144000])
        self.errfiles = rng.random() < 0.5 and self.launch == "torchrun"
        self.fr_on = self.pt in ("2.4", "2.6") and self.nranks <= 256 and rng.random() < 0.4
        self.fr_version = "2.5" if self.pt == "2.4" else rng.choice(["2.9", "2.10"])
        self.flood_lines = "full" if self.nranks <= 128 else "short"

    def _setup_noise(self):
        """Launch-layout changes the noise asks for (before any line is written)."""
        nr = self.nrng
        self.noise = [k for k in self.noise if noise_applies(k, self.cls)]
        self.ulog_fmt = None       # user logger format naming the rank in the message text
        self.ulog_host = False
        self.hide_hosts = False
        if "rank_in_text" in self.noise:
            # python -m torch.distributed.run without --tee/--label, plain sbatch redirect:
            # only the user's logger says who wrote a line (DeepSpeed log_dist "[Rank 0]",
            # trlx "[RANK 0]", Megatron/NeMo "[rank 2]" styles)
            self.label = self.hostpfx = self.tee = self.rank_tag = False
            self.ulog_fmt = nr.choice(["bracket", "colon", "logger", "log_dist"])
            self.ulog_host = nr.random() < 0.4
            self.notes.append("rank_in_text format %s%s" % (self.ulog_fmt, " with host" if self.ulog_host else ""))
        if "host_via_nccl" in self.noise:
            # no launcher line names a host (no srun/torchrun summaries, no error files, no
            # pdsh host prefixes): NCCL INFO "host:pid:tid" lines and logger formats remain
            self.hide_hosts = True
            self.errfiles = False
            if self.hostpfx:
                self.hostpfx, self.label = False, True
            if self.nccl_mode == "none":
                self.nccl_mode = nr.choice(["inline", "files"])
            if not self.ulog_fmt and nr.random() < 0.35:
                # a logging format with %(hostname)s next to the launcher's rank prefixes
                self.ulog_fmt, self.ulog_host = "logger", True
            self.notes.append("hosts only via NCCL INFO lines%s" % (" and logger" if self.ulog_host else ""))

    def ulog(self, rk, t, level, msg, stream="err"):
        """A line from the user's Python logger; msg is what an unconfigured script prints."""
        f = self.ulog_fmt
        if f is None:
            self.w(rk, t, msg, stream, "py")
            return
        ht = rk.node.h(t)
        ms = int(ht % 1 * 1000)
        if f == "bracket":
            body = "[rank %d] %s" % (rk.r, msg)
        elif f == "colon":
            body = "rank %d: %s" % (rk.r, msg)
        elif f == "logger":
            host = "%s - " % rk.host if self.ulog_host else ""
            body = "%s,%03d - %sRank %d - %s - %s" % (fmt_sql(ht), ms, host, rk.r, level, msg)
        else:
            host = "[%s] " % rk.host if self.ulog_host else ""
            body = "[%s,%03d] [%s] [logging.py:96:log_dist] %s[Rank %d] %s" % (fmt_sql(ht), ms, level, host, rk.r, msg)
        self.w(rk, t, body, stream, "py")

    # -- low-level emission ----------------------------------------------------
    def add(self, fname, t, text, nl=True, jitter=0.0, src=None):
        """jitter: per-source delivery delay (srun/stdio forwarding); a source's own lines
        keep their order."""
        self.seq += 1
        key = t
        if jitter:
            d = self.delay.get(src)
            if d is None:
                d = self.delay[src] = self.rng.uniform(0, jitter)
            key += d
        self.files.setdefault(fname, []).append((key, self.seq, text, nl))

    def joberr(self):
        return "job.err" if self.split_err else "job.out"

    def task_of(self, rk):
        return rk.r if self.launch == "srun" else rk.node.idx

    def wprefix(self, rk, kind):
        """Prefix a worker's line the way the launcher chain would."""
        p = ""
        if self.label:
            p = "%d: " % self.task_of(rk)
        elif self.hostpfx:
            p = "%s: " % (rk.node.ip if self.hostpfx_ip else rk.host)
        if self.tee:
            p += "[default%d]:" % rk.local
        if self.rank_tag and kind in ("py", "glog"):
            p += "[rank%d]:" % rk.r
        return p

    def w(self, rk, t, body, stream="err", kind="py"):
        """A line a worker process writes (true time t)."""
        fname = self.joberr() if stream == "err" else "job.out"
        self.add(fname, t, self.wprefix(rk, kind) + body, jitter=0.02, src=(fname, rk.r))
        if stream == "err":
            self.last_w[rk.r] = (fname, self.seq)

    def glog(self, rk, t, sev, src, msg, stream="err"):
        if self.pt in ("1.13", "2.1"):
            body = "[%s %s] %s" % (sev, src, msg)
        else:
            body = "[%s %s] %s" % (fmt_glog(sev, rk.node.h(t), 9 if self.pt == "2.6" else 6), src, msg)
        self.w(rk, t, body, stream, "glog")

    def agent(self, node, t, sev, src, msg):
        """torchrun agent log line (python logging, per torch version)."""
        ht = node.h(t)
        lvl = {"W": "WARNING", "E": "ERROR", "I": "INFO"}[sev]
        mod = src.split(".py")[0].replace("/", ".")
        if self.pt == "1.13":
            body = "%s:%s:%s" % (lvl, mod, msg)
        elif self.pt == "2.1":
            body = "[%s,%03d] %s: [%s] %s" % (fmt_sql(ht), int((ht % 1) * 1000), mod, lvl, msg)
        else:
            body = "%s %d %s] %s" % (fmt_glog(sev, ht, 6), node.ranks[0].pid - 57, src, msg)
        p = ""
        if self.label:
            p = "%d: " % node.idx
        elif self.hostpfx:
            p = "%s: " % (node.ip if self.hostpfx_ip else node.name)
        self.add(self.joberr(), t, p + body, jitter=0.01, src=("agent", node.idx))

    def srun(self, t, msg):
        self.add(self.joberr(), t, msg)

    def nccl_line(self, rk, t, text, warn=False, tid=None):
        if self.nccl_mode == "none":
            return      # NCCL_DEBUG unset: NCCL prints nothing; its text survives only in
                        # the "Last error:" part of PyTorch's exceptions
        ht = rk.node.h(t)
        tid = tid or rk.tid
        ts = ""
        if self.nccl_ts == "all":
            ts = "[%s.%s] " % (fmt_sql(ht), frac(ht, 6))
        elif self.nccl_ts == "warn" and warn:
            ts = "[%s] " % fmt_sql(ht)
        body = "%s%s:%d:%d [%d] %s" % (ts, rk.host, rk.pid, tid, rk.local, text)
        if self.nccl_mode == "files":
            fn = "nccl.%s.%d.log" % (rk.host, rk.pid)
            if warn:
                self.add(fn, t - 1e-6, "")
            self.add(fn, t, body)
        else:
            if warn:
                self.w(rk, t - 1e-6, "", "out", "nccl")
            self.w(rk, t, body, "out", "nccl")

    def kern(self, node, t, msg):
        self.add("kern.%s.log" % node.name, t, ("K", msg))

    def py_traceback(self, rk, t, frames, exc_lines, chained=None, logmsg=None):
        if self.ulog_fmt:
            # logger.exception(): the message line names the rank, the traceback does not
            nr = self.nrng
            self.ulog(rk, t - 1e-4, "ERROR", logmsg or "Exception at step %d (batch %d, cuda:%d), exiting" % (
                getattr(self, "last_step", 0), nr.randint(1, 512), rk.local))
        lines = []
        if chained:
            lines += chained
        lines.append("Traceback (most recent call last):")
        for f in frames:
            lines.append('  File "%s", line %d, in %s' % f[:3])
            if len(f) > 3:
                lines.append("    " + f[3])
        lines += exc_lines
        for i, ln in enumerate(lines):
            self.w(rk, t + i * 2e-5, ln, "err", "py")
        return t + len(lines) * 2e-5

    def user_frames(self, n=None):
        rng = self.rng
        fr = [(self.script, rng.randint(300, 900), "<module>", "main(args)"),
              (self.script, rng.randint(100, 299), "main", "trainer.fit()"),
              ("/workspace/trainer.py", rng.randint(50, 600), "fit", "loss = self.train_step(batch)")]
        return fr[:n] if n else fr

    # -- progress and decoys -----------------------------------------------------
    def progress(self, t_a, t_b, n, step0):
        rng = self.rng
        rk0 = self.ranks[0]
        style = rng.choice(["plain", "logging", "tqdm", "glog"])
        self.pstyle = style
        step = step0
        for i in range(n):
            t = t_a + (t_b - t_a) * (i + rng.random() * 0.5) / n
            step += rng.randint(5, 50)
            loss = 2.0 + 3.0 * rng.random() / (1 + i / 10.0)
            if style == "plain":
                body = "step %d | loss %.4f | lr %.2e | grad_norm %.3f | tok/s %d" % (
                    step, loss, 3e-4, rng.uniform(0.2, 2.0), rng.randint(100000, 900000))
            elif style == "logging":
                ht = rk0.node.h(t)
                lv = "\x1b[32mINFO\x1b[0m" if self.ansi else "INFO"
                body = "%s,%03d - %s - iteration %d/100000 | loss: %.4f | elapsed: %.1f ms" % (
                    fmt_sql(ht), int(ht % 1 * 1000), lv, step, loss, rng.uniform(300, 900))
            elif style == "glog":
                body = "%s %d trainer.py:212] step=%d loss=%.4f" % (fmt_glog("I", rk0.node.h(t)), rk0.pid, step, loss)
            else:
                # tqdm redraws on stderr with \r and no newline: the next writer's line glues on
                el = (t - t_a) / max(1.0, (t_b - t_a)) * n * 60
                body = "\rEpoch 1: %3d%%|%-10s| %d/%d [%02d:%02d<%02d:%02d, %.2fs/it, loss=%.3f]" % (
                    i * 100 // n, "#" * (i * 10 // n), i, n, el // 3600, el // 60 % 60, 59 - i % 60, 59 - i % 50, rng.uniform(1, 90), loss)
                fname = self.joberr()
                self.add(fname, t, self.wprefix(rk0, "print") + body if i == 0 else body, nl=False,
                         jitter=0.02, src=(fname, rk0.r))
                continue
            if self.ulog_fmt:
                self.ulog(rk0, t, "INFO", "step %d | batch %d | loss %.4f | GPU %d mem %.1fGiB" % (
                    step, self.nrng.choice([16, 32, 48, 64]), loss, rk0.local, self.nrng.uniform(40, 78)), "out")
            else:
                self.w(rk0, t, body, "out", "print")
        self.last_step = step
        return step

    def decoys(self, t_a, t_b):
        rng = self.rng
        if rng.random() < 0.5:
            # caught, logged traceback on some rank, training continues
            rk = rng.choice(self.ranks)
            t = rng.uniform(t_a, t_b)
            self.w(rk, t, "ERROR:trainer:failed to upload metrics, will retry in 30s", "err", "py")
            self.py_traceback(rk, t + 1e-4, [
                ("/workspace/trainer.py", 812, "log_metrics", "self.client.log(metrics)"),
                ("%s/requests/adapters.py" % self.sitepk, 501, "send", "raise ConnectionError(err, request=request)")],
                ["requests.exceptions.ConnectionError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))"])
            self.notes.append("decoy: caught traceback on rank %d" % rk.r)
        if rng.random() < 0.5:
            rk = rng.choice(self.ranks)
            self.nccl_line(rk, self.t_init + 1.0, "misc/net.cc:%d NCCL WARN NET/Plugin : No plugin found (libnccl-net.so), using internal implementation" % rng.randint(100, 700), warn=True)
        if rng.random() < 0.4:
            n = rng.choice(self.nodes)
            self.srun(self.t_start + 0.5, "slurmstepd: error: couldn't chdir to `/home/%s/runs/exp%d': No such file or directory: going to /tmp instead" % (self.user, rng.randint(1, 99)))
        if rng.random() < 0.4:
            for rk in self.ranks[:min(len(self.ranks), 8)]:
                self.w(rk, self.t_init + 5 + rng.random(), "%s/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly." % self.sitepk, "err", "py")
        if rng.random() < 0.3:
            rk = rng.choice(self.ranks)
            self.glog(rk, rng.uniform(t_a, t_b), "W", "ProcessGroupNCCL.cpp:4115", "Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())")
        if rng.random() < 0.3:
            n = rng.choice(self.nodes)
            self.kern(n, rng.uniform(t_a, t_b), "TCP: request_sock_TCP: Possible SYN flooding on port 29500. Sending cookies.  Check SNMP counters.")

    # -- noise ingredients ----------------------------------------------------------
    # Each writes what a healthy job prints and is never the cause; the truth lists the
    # kinds present.  All draws come from self.nrng.

    def apply_noise(self, t_a, t_b):
        """Ride-along noise during the training phase [t_a, t_b] (true time)."""
        if "survived_oom" in self.noise:
            self.noise_survived_oom(t_a, t_b)
        if "caught_traceback" in self.noise:
            self.noise_caught_traceback(t_a, t_b)
        if "benign_warnings" in self.noise:
            self.noise_benign_warnings(t_a, t_b)

    def keeps_training(self, rk, t_a, t_b, n):
        """rk's own progress after an event it survived: the proof it was not fatal."""
        nr = self.nrng
        step = getattr(self, "last_step", 0) or nr.randint(1000, 60000)
        step -= nr.randint(n * 20, n * 60)
        for j in range(n):
            step += nr.randint(10, 50)
            t = t_a + (t_b - t_a) * (j + nr.uniform(0.6, 1.0)) / n
            self.ulog(rk, t, "INFO", "step %d | loss %.4f | grad_norm %.3f | micro-batch %d | cuda:%d" % (
                step, nr.uniform(1.5, 3.5), nr.uniform(0.2, 2.0), nr.choice([2, 4, 8]), rk.local), "out")

    def noise_survived_oom(self, t_a, t_b):
        """fairseq 'WARNING: ran out of memory with exception ... Skipping batch'
        (ray-project/ray#5755, fairseq#869), metaseq 'OOM: Ran out of memory ...' then
        'attempting to recover from OOM' (metaseq#314), retry with a smaller micro-batch,
        fall back to a slower kernel -- and the rank trains on for hours."""
        nr = self.nrng
        rk = nr.choice(self.ranks)
        style = nr.choice(["fairseq", "metaseq", "retry", "fallback"])
        t = t_a + (t_b - t_a) * nr.uniform(0.02, 0.35)
        for k in range(nr.randint(1, 3)):
            gib = nr.choice([0.5, 1.0, 1.5, 3.91, 7.82])
            oom = self.oom_text(nr, rk, gib, nr.choice([79.1, 39.39, 93.1]), nr.uniform(0.01, gib * 0.9))
            oom_msg = oom.split(": ", 1)[1].split(" If reserved")[0]
            if style == "fairseq":
                self.ulog(rk, t, "WARNING", "| WARNING: ran out of memory with exception: %s;" % oom_msg)
                self.w(rk, t + 1e-4, " Skipping batch")
            elif style == "metaseq":
                ht = rk.node.h(t)
                self.ulog(rk, t, "WARNING", "%s | WARNING | metaseq.trainer | OOM: Ran out of memory with exception: %s" % (fmt_sql(ht), oom_msg))
                self.ulog(rk, t + 0.01, "WARNING", "%s | WARNING | metaseq.trainer | attempting to recover from OOM in forward/backward pass" % fmt_sql(ht))
            elif style == "retry":
                mb = nr.choice([8, 16, 32])
                self.ulog(rk, t, "WARNING", "WARNING: caught %s at micro-batch size %d, retrying step with micro-batch size %d" % (oom.split(". GPU")[0].split(" (GPU")[0], mb, mb // 2))
            else:
                self.ulog(rk, t, "WARNING", "WARNING: flash attention forward hit %s; falling back to the memory-efficient kernel for this sequence length" % oom.split(". GPU")[0].split(" (GPU")[0])
            t += nr.uniform(20, 400)
        self.notes.append("noise: survived OOM (%s) on rank %d" % (style, rk.r))
        self.keeps_training(rk, t, t_b, nr.randint(3, 8))

    def noise_caught_traceback(self, t_a, t_b):
        """Full tracebacks the run survived: DataLoader 'Exception ignored in: <function
        _MultiProcessingDataLoaderIter.__del__ ...>' (pytorch#53703, simpletransformers#763),
        a logged and retried checkpoint upload, a skipped bad sample, a dying metrics thread."""
        nr = self.nrng
        rk = nr.choice(self.ranks)
        t = t_a + (t_b - t_a) * nr.uniform(0.05, 0.5)
        kind = nr.choice(["ignored_del", "upload_retry", "bad_sample", "thread"])
        sp = self.sitepk
        py = "/usr/lib/python3.10" if "3.10" in sp else sp.rsplit("/", 2)[0]
        if kind == "ignored_del":
            head = "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f%09x>" % nr.getrandbits(36)
            frames = [("%s/torch/utils/data/dataloader.py" % sp, 1478, "__del__", "self._shutdown_workers()"),
                      ("%s/torch/utils/data/dataloader.py" % sp, 1442, "_shutdown_workers", "if w.is_alive():"),
                      ("%s/multiprocessing/process.py" % py, 160, "is_alive", "assert self._parent_pid == os.getpid(), 'can only test a child process'")]
            exc = ["AssertionError: can only test a child process"]
        elif kind == "upload_retry":
            head = "ERROR: failed to upload checkpoint shard to s3://%s-ckpt/step_%d/, will retry (attempt 1/5)" % (self.user, nr.randint(1000, 90000))
            frames = [("/workspace/checkpoint.py", nr.randint(100, 300), "upload", "self.client.upload_file(path, bucket, key)"),
                      ("%s/botocore/httpsession.py" % sp, 493, "send", "raise EndpointConnectionError(endpoint_url=request.url, error=e)")]
            exc = [nr.choice(['botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "https://s3.amazonaws.com/"',
                              "OSError: [Errno 28] No space left on device: '/tmp/ckpt-staging/model_%02d.pt'" % rk.r])]
        elif kind == "bad_sample":
            idx = nr.randint(10000, 9999999)
            head = "WARNING: skipping sample %d (shard %05d): failed to decode, continuing" % (idx, nr.randint(0, 4095))
            frames = [("/workspace/data.py", nr.randint(20, 300), "__getitem__", "img = Image.open(io.BytesIO(raw))"),
                      ("%s/PIL/Image.py" % sp, 3339, "open", "raise UnidentifiedImageError(msg)")]
            exc = [nr.choice(["PIL.UnidentifiedImageError: cannot identify image file <_io.BytesIO object at 0x7f%09x>" % nr.getrandbits(36),
                              "KeyError: 'caption'", "ValueError: could not convert string to float: ''"])]
        else:
            head = "Exception in thread Thread-%d (_upload_loop):" % nr.randint(2, 9)
            frames = [("%s/threading.py" % py, 1016, "_bootstrap_inner", "self.run()"),
                      ("/workspace/metrics.py", nr.randint(40, 200), "_upload_loop", "resp.raise_for_status()"),
                      ("%s/requests/models.py" % sp, 1021, "raise_for_status", "raise HTTPError(http_error_msg, response=self)")]
            exc = ["requests.exceptions.HTTPError: 502 Server Error: Bad Gateway for url: https://metrics.internal/api/v1/push"]
        self.ulog(rk, t, "WARNING", head)
        save, self.ulog_fmt = self.ulog_fmt, None      # the traceback itself carries no logger format
        te = self.py_traceback(rk, t + 1e-4, frames, exc)
        self.ulog_fmt = save
        self.notes.append("noise: caught traceback (%s) on rank %d" % (kind, rk.r))
        self.keeps_training(rk, te, t_b, self.nrng.randint(3, 6))

    def noise_benign_warnings(self, t_a, t_b):
        """Harmless lines at start-up: NCCL net-plugin load (nccl#1231, #1126, #1000,
        aws-ofi-nccl#715), GPU Direct RDMA disabled when nvidia-peermem is not loaded,
        nvidia-peermem's release message, Slurm's couldn't chdir and ntasks-per-node."""
        nr = self.nrng
        style = nr.choice(["dlerror", "symbol", "could_not_find"])
        for rk in self.ranks[:256]:
            ti = self.t_init + nr.uniform(0.002, 0.2)
            if style == "dlerror":
                self.nccl_line(rk, ti, "NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation")
            elif style == "symbol":
                self.nccl_line(rk, ti, "NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.")
                self.nccl_line(rk, ti + 1e-4, "NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v8 symbol.")
                self.nccl_line(rk, ti + 2e-4, "NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin symbol (>= v5). ncclCollNetPlugin symbols v4 and lower are not supported.")
            else:
                self.nccl_line(rk, ti, "NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.")
            if nr.random() < 0.5:
                self.nccl_line(rk, ti + 0.25, "NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA %d 'mlx5_%d' (no module)" % (rk.local % 4, rk.local % 4), tid=rk.tid + 40)
        for n in self.nodes:
            if nr.random() < 0.5:
                self.kern(n, nr.uniform(t_a, t_b), "nvidia-peermem nv_mem_client_release: fatal error occurred while releasing memory")
        if nr.random() < 0.7:
            for n in self.nodes[:8]:
                self.srun(self.t_start + nr.uniform(0.3, 0.9), "slurmstepd: error: couldn't chdir to `/home/%s/runs/%s': No such file or directory: going to /tmp instead" % (self.user, self.jobname))
        if nr.random() < 0.4 and len(self.nodes) > 1:
            self.srun(self.t_start + 0.1, "srun: Warning: can't honor --ntasks-per-node set to %d which doesn't match the requested tasks %d with the number of requested nodes %d. Ignoring --ntasks-per-node." % (self.ppn + 1, self.nranks, len(self.nodes)))
        self.notes.append("noise: benign warnings (%s)" % style)

    def noise_stale_kernel(self):
        """The node's ring buffer from before this job: an earlier job's cgroup OOM kill
        (another job id in the memcg path), a stale Xid on one of this job's GPUs with a
        pid that is not this job's, an old IB link flap."""
        nr = self.nrng
        kinds = nr.sample(["old_oom", "old_xid", "old_flap"], nr.randint(1, 3))
        for kind in kinds:
            n = nr.choice(self.nodes)
            tt = max(n.boot + 30, self.t_start - nr.uniform(300, 6 * 3600))
            opid = nr.randint(1000, 3000000)
            if kind == "old_oom":
                ojob, ouid = self.jobid - nr.randint(1, 5000), nr.randint(1000, 60000)
                self.kern(n, tt - 0.004, "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
                self.kern(n, tt - 0.001, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d,task_memcg=/slurm/uid_%d/job_%d/step_0/user/task_0,task=python,pid=%d,uid=%d" % (ouid, ojob, ouid, ojob, opid, ouid))
                self.kern(n, tt, "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (opid, nr.randint(10**8, 10**9), nr.randint(10**7, 10**8), nr.randint(10**5, 10**6), nr.randint(10**4, 10**6), ouid, nr.randint(10**4, 10**5)))
                self.kern(n, tt + 0.2, "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % opid)
            elif kind == "old_xid":
                rk = nr.choice(n.ranks)
                xid, txt = nr.choice([(13, "Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address"),
                                      (31, "MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_3 faulted @ 0x7f2a_bc000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"),
                                      (43, "Ch 00000010"), (94, "Contained: SM (0x1). RST: No, D-RST: No")])
                self.kern(n, tt, "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=python, %s" % (rk.busid[:2], xid, opid, txt))
            else:
                dev = nr.choice(["1a", "3c", "4d", "9b"])
                port = nr.randint(20, 200)
                self.kern(n, tt, "mlx5_core 0000:%s:00.0 ibp%ds0: Link down" % (dev, port))
                self.kern(n, tt + nr.uniform(2, 40), "mlx5_core 0000:%s:00.0 ibp%ds0: Link up" % (dev, port))
        self.notes.append("noise: stale kernel events (%s)" % ",".join(kinds))

    # -- NCCL init -----------------------------------------------------------------
    def nccl_init(self):
        rng = self.rng
        t = self.t_init
        comm = "0x%016x" % rng.getrandbits(64)
        self.t_ic = t_ic = t + rng.uniform(2, 20)
        for rk in self.ranks:
            ti = t + rng.uniform(0, 0.5)
            if rk.r == 0:
                self.nccl_line(rk, ti, "NCCL INFO NCCL version %s+cuda12.%d" % (self.nv, rng.randint(1, 8)))
            self.nccl_line(rk, ti + 0.001, "NCCL INFO Bootstrap : Using ib0:%s<0>" % rk.node.ip)
            self.nccl_line(rk, ti + 0.01, "NCCL INFO cudaDriverVersion 12040")
            self.nccl_line(rk, ti + 0.3, "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB ; OOB ib0:%s<0>" % rk.node.ip, tid=rk.tid + 40)
            tc = t_ic + rng.uniform(0, 0.02)
            if self.nv == "2.10.3":
                txt = "NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d busId %s - Init COMPLETE" % (
                    rng.getrandbits(44), rk.r, self.nranks, rk.local, rk.busid)
            else:
                txt = "NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (
                    rng.getrandbits(44), rk.r, self.nranks, rk.local, rk.local, rk.busid, comm)
            self.nccl_line(rk, tc, txt, tid=rk.tid + 40)
            if self.nv in ("2.23.4", "2.27.3"):
                self.nccl_line(rk, tc + 1e-4, "NCCL INFO Init timings - ncclCommInitRank: rank %d nranks %d total %.2f (kernels 0.15, alloc 0.02, bootstrap %.2f, allgathers 0.01, topo 0.35, graphs 0.01, connections 0.21, rest 0.00)" % (rk.r, self.nranks, tc - ti, rng.uniform(0.01, 1)), tid=rk.tid + 40)

    # -- victim symptoms -----------------------------------------------------------------
    def watchdog_timeout(self, rk, t_enq, seq, E, C, op=None, numel=None):
        """The victim's watchdog fires at collective start + timeout; returns abort time."""
        rng = self.rng
        op = op or self.op
        numel = numel or self.numel
        ran = self.tmo_ms + rng.randint(1, 900)
        t = t_enq + ran / 1000.0
        self.fr_note(rk, t_enq, seq, E, C, op, numel, t + 2.5e-4)
        tmo = self.tmo_ms
        pt = self.pt
        short = self.flood_lines == "short"
        if pt == "1.13":
            self.glog(rk, t, "E", "ProcessGroupNCCL.cpp:737", "[Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (rk.r, seq, op, tmo, ran))
            if not short:
                self.glog(rk, t + 1e-3, "E", "ProcessGroupNCCL.cpp:414", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we are taking the entire process down.")
                self.w(rk, t + 2e-3, "terminate called after throwing an instance of 'std::runtime_error'")
                self.w(rk, t + 3e-3, "  what():  [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (rk.r, seq, op, tmo, ran))
            return t + 0.01
        wn = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, tmo)
        if pt == "2.1":
            self.glog(rk, t, "E", "ProcessGroupNCCL.cpp:475", "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rk.r, wn, ran))
            if not short:
                self.glog(rk, t + 1e-3, "E", "ProcessGroupNCCL.cpp:489", "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
                self.glog(rk, t + 2e-3, "E", "ProcessGroupNCCL.cpp:495", "To avoid data inconsistency, we are taking the entire process down.")
                self.glog(rk, t + 3e-3, "E", "ProcessGroupNCCL.cpp:916", "[Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rk.r, rk.r, wn, ran))
                self.w(rk, t + 4e-3, "terminate called after throwing an instance of 'std::runtime_error'")
            return t + 0.01
        pg = "[PG 0 (default_pg) Rank %d]" % rk.r if pt == "2.4" else "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rk.r
        self.glog(rk, t, "E", "ProcessGroupNCCL.cpp:616", "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (rk.r, wn, ran))
        self.glog(rk, t + 2e-4, "E", "ProcessGroupNCCL.cpp:1785", "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, E, C))
        if short:
            return t + 0.01
        self.glog(rk, t + 3e-4, "E", "ProcessGroupNCCL.cpp:630", "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % rk.r)
        self.glog(rk, t + 4e-4, "E", "ProcessGroupNCCL.cpp:636", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % rk.r)
        self.glog(rk, t + 5e-4, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg, rk.r, wn, ran))
        self.w(rk, t + 6e-4, "terminate called after throwing an instance of 'c10::DistBackendError'")
        self.w(rk, t + 7e-4, "  what():  %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg, rk.r, wn, ran))
        self.w(rk, t + 8e-4, "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):")
        for i, fn in enumerate(["c10::Error::Error(c10::SourceLocation, std::string) + 0x96", "c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", "c10d::ProcessGroupNCCL::watchdogHandler() + 0x233"]):
            self.w(rk, t + 9e-4 + i * 1e-5, "frame #%d: %s (0x7f%09x in %s/torch/lib/%s)" % (i, fn, self.rng.getrandbits(36), self.sitepk, "libc10.so" if i == 0 else "libtorch_cuda.so"))
        self.w(rk, t + 1e-3, "")
        if self.rng.random() < 0.3:
            self.w(rk, t + 2e-3, "Fatal Python error: Aborted")
        return t + 0.01

    def fr_note(self, rk, t_enq, seq, E, C, op, numel, t_dump):
        self.fr[rk.r] = (t_enq, seq, E, C, op, numel, t_dump)
        if self.fr_on:
            pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rk.r if self.pt == "2.6" else "[PG 0 (default_pg) Rank %d]" % rk.r
            self.glog(rk, t_dump, "I", "ProcessGroupNCCL.cpp:1340", "%s ProcessGroupNCCL dumping nccl trace to /var/spool/denpex/%d/fr/rank_%d" % (pg, self.jobid, rk.r))
            self.glog(rk, t_dump + 2e-5, "I", "ProcessGroupNCCL.cpp:1343", "%s Flight Recorder trace successfully dumped." % pg)

    def write_fr(self, out):
        """Flight-recorder dumps (pickle protocol 2, plain types only) as the ranks that
        were alive at the dump signal wrote them: <out>/fr/rank_<R>."""
        if not self.fr or not self.fr_on:
            return
        rng = random.Random(self.seed ^ 0xf17e)
        os.makedirs(os.path.join(out, "fr"), exist_ok=True)
        ranks_str = "[" + ", ".join(str(r) for r in range(self.nranks)) + "]"
        pname = {"ALLREDUCE": "nccl:all_reduce", "_ALLGATHER_BASE": "nccl:_all_gather_base",
                 "_REDUCE_SCATTER_BASE": "nccl:_reduce_scatter_base", "BROADCAST": "nccl:broadcast",
                 "ALLTOALL_BASE": "nccl:all_to_all"}
        for r, (t_enq, seq, E, C, op, numel, t_dump) in sorted(self.fr.items()):
            rk = self.ranks[r]
            h = rk.node.h
            entries = []
            first = max(1, E - 19)
            for k in range(first, E + 1):
                if k <= C:
                    tc = self.t0 - (C + 1 - k) / self.rate
                    st, ts, tcomp = "completed", h(tc + 0.002), h(tc + 0.004 + rng.random() * 0.01)
                    kop, kn = self.op, self.numel
                else:
                    tc = t_enq + (k - C - 1) * 0.001
                    kop, kn = (op, numel) if k == seq else (self.op, self.numel)
                    if k == C + 1 and rng.random() < 0.7:
                        st, ts, tcomp = "started", h(tc + 0.01), None
                    else:
                        st, ts, tcomp = "scheduled", None, None
                e = {"record_id": k - 1, "pg_id": 0, "process_group": ("0", "default_pg"),
                     "collective_seq_id": k, "p2p_seq_id": 0, "op_id": k,
                     "profiling_name": pname.get(kop, "nccl:all_reduce"),
                     "time_created_ns": int(h(tc) * 1e9),
                     "input_sizes": [[kn]], "output_sizes": [[kn]],
                     "input_dtypes": ["BFloat16"], "output_dtypes": ["BFloat16"],
                     "state": st,
                     "time_discovered_started_ns": int(ts * 1e9) if ts else None,
                     "time_discovered_completed_ns": int(tcomp * 1e9) if tcomp else None,
                     "retired": k <= C or (k == C + 1 and seq == k),
                     "timeout_ms": self.tmo_ms, "is_p2p": False, "frames": []}
                entries.append(e)
            doc = {"version": self.fr_version,
                   "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": ranks_str}},
                   "pg_status": {"0": {"last_enqueued_collective": E, "last_started_collective": C + 1 if E > C else C,
                                       "last_completed_collective": C}},
                   "entries": entries, "nccl_version": self.nv}
            with open(os.path.join(out, "fr", "rank_%d" % r), "wb") as f:
                f.write(pickle2(doc))

    def dump_signal(self, det, others, t):
        """FR coordination: the first detector signals dumping (a victim, not the cause)."""
        if self.pt not in ("2.4", "2.6") or self.flood_lines == "short":
            return
        pg = lambda r: "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % r if self.pt == "2.6" else "[PG 0 (default_pg) Rank %d]" % r
        self.glog(det, t + 1e-4, "E", "ProcessGroupNCCL.cpp:1834", "%s First PG on this rank to signal dumping." % pg(det.r))
        for rk in others[:64]:
            self.glog(rk, t + self.rng.uniform(0.5, 1.1), "E", "ProcessGroupNCCL.cpp:1630", "%s Received a dump signal due to a collective timeout from rank %d and we will try our best to dump the debug info. Last enqueued NCCL work: %d, last completed NCCL work: %d.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc." % (pg(rk.r), det.r, self.E, self.C))

    def remote_error(self, rk, t, peer_ip, code=12):
        """A peer sees the dead/broken connection through NCCL (ncclRemoteError)."""
        rng = self.rng
        port = rng.randint(30000, 60000)
        if self.nv in ("2.23.4", "2.27.3"):
            ib = "NET/IB: Got completion from peer %s<%d> with status=%d opcode=0 len=0 vendor_err=%d hca mlx5_%d" % (peer_ip, port, code, 129 if code == 12 else 249, rng.randint(0, 7))
        else:
            ib = "NET/IB : Got completion from peer %s<%d> with error %d, opcode 0, len 0, vendor err %d (Recv)" % (peer_ip, port, code, 129 if code == 12 else 249)
        self.nccl_line(rk, t, "transport/net_ib.cc:%d NCCL WARN %s" % (rng.choice([1295, 1696, 2229]), ib), warn=True, tid=rk.tid + 90)
        if self.pt == "1.13":
            self.glog(rk, t + 0.05, "E", "ProcessGroupNCCL.cpp:737", "[Rank %d] NCCL watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (rk.r, self.nv))
        else:
            pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rk.r if self.pt == "2.6" else "[Rank %d]" % rk.r
            self.glog(rk, t + 0.05, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pg, self.nv))
            self.w(rk, t + 0.051, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
            self.w(rk, t + 0.052, "Last error:")
            self.w(rk, t + 0.053, ib)
        self.w(rk, t + 0.06, "terminate called after throwing an instance of 'c10::DistBackendError'")
        return t + 0.07

    # -- launcher -----------------------------------------------------------------------
    def srun_task_error(self, t, node, tasks, status):
        if self.hide_hosts:
            return
        if len(tasks) == 1:
            self.srun(t, "srun: error: %s: task %d: %s" % (node.name, tasks[0], status))
        else:
            self.srun(t, "srun: error: %s: tasks %s: %s" % (node.name, ranges(tasks), status))

    def child_failed(self, node, t, failures):
        """torchrun ChildFailedError summary; failures: list of (rk, t_fail, exitcode, msg_or_None)."""
        if not failures or self.hide_hosts:
            return
        rng = self.rng
        first = min(failures, key=lambda f: int(f[1] if f[3] else t))
        lines = ["Traceback (most recent call last):",
                 '  File "%s", line 8, in <module>' % self.pyexe.replace("python3", "torchrun").replace("python", "torchrun"),
                 "    sys.exit(main())",
                 '  File "%s/torch/distributed/run.py", line 919, in main' % self.sitepk,
                 "    run(args)",
                 '  File "%s/torch/distributed/launcher/api.py", line 263, in launch_agent' % self.sitepk,
                 "    raise ChildFailedError(",
                 "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                 "=" * 56, "%s FAILED" % self.script, "-" * 56, "Failures:"]
        def block(idx, f):
            rk, tf, ec, msg = f
            ts = node.h(tf if msg else t)
            out = ["[%d]:" % idx,
                   "  time      : %s" % time.strftime("%Y-%m-%d_%H:%M:%S", _tm(ts)),
                   "  host      : %s" % node.name,
                   "  rank      : %d (local_rank: %d)" % (rk.r, rk.local),
                   "  exitcode  : %d (pid: %d)" % (ec, rk.pid)]
            if msg:
                out.append("  error_file: /tmp/torchelastic_%s/%s_%s/attempt_0/%d/error.json" % (self.tsuffix, self.run_id, self.tsuffix, rk.local))
                out.append("  traceback : Traceback (most recent call last):")
                out.append("    " + msg)
            elif ec < 0:
                out.append("  error_file: <N/A>")
                sig = {-6: "SIGABRT", -9: "SIGKILL", -11: "SIGSEGV", -15: "SIGTERM", -7: "SIGBUS"}.get(ec, "SIG%d" % -ec)
                out.append("  traceback : Signal %d (%s) received by PID %d" % (-ec, sig, rk.pid))
            else:
                out.append("  error_file: <N/A>")
                out.append("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
            return out
        rest = [f for f in failures if f is not first]
        if not rest:
            lines.append("  <NO_OTHER_FAILURES>")
        for i, f in enumerate(rest[:16]):
            lines += block(i + 1, f)
        lines += ["-" * 56, "Root Cause (first observed failure):"] + block(0, first) + ["=" * 56]
        for i, ln in enumerate(lines):
            p = "%d: " % node.idx if self.label else ("%s: " % (node.ip if self.hostpfx_ip else node.name) if self.hostpfx else "")
            self.add(self.joberr(), t + i * 1e-5, p + ln)

    def error_json(self, rk, t, msg, tb):
        if not self.errfiles:
            return
        d = {"message": {"message": msg, "extraInfo": {"py_callstack": tb, "timestamp": "%d" % int(rk.node.h(t))}}}
        self.add("torchelastic/%s/attempt_0/%d/error.json" % (rk.host, rk.local), t, json.dumps(d), nl=False)

    # -- teardown -------------------------------------------------------------------
    def teardown(self, culprit, t_exit, ec, status, errmsg=None, stuck=False):
        """The culprit process died at t_exit with exit code ec (or is stuck, for hangs and
        hardware that hangs).  Model what every other rank and the launcher do afterwards.
        Returns the time the whole step was over."""
        rng = self.rng
        C = self.C
        E = self.E
        dead = dict(self.pre_dead)   # rank -> (time, exitcode, msg)
        if not stuck:
            dead[culprit.r] = (t_exit, ec, errmsg)
        # victims enqueue collective C+1 at about the moment the culprit stopped
        t_enq = {rk.r: self.t0 + rng.uniform(0.05, 1.5) for rk in self.ranks}
        # fast peer errors when a process died (ring neighbours on other hosts)
        kill_time = None
        if not stuck and self.launch == "srun":
            kill_time = t_exit + rng.uniform(0.05, 0.8) if self.kill_on_bad_exit else None
        elif not stuck:
            notice = t_exit + rng.uniform(0.1, 5.0 if self.pt in ("1.13", "2.1") else 1.0)
            sibl = [rk for rk in culprit.node.ranks if rk is not culprit]
            fails = [(culprit, t_exit, ec, errmsg)]
            if errmsg is None and sibl and rng.random() < 0.6:
                # the culprit left no error file (signal death); node-mates hit the broken
                # communicator and raise *with* tracebacks before the agent notices, so
                # torchrun's "Root Cause" names one of them (its timestamp is earlier
                # than the detection time torchrun assigns the culprit)
                notice = max(notice, t_exit + rng.uniform(2.0, 5.0))
                for rk in rng.sample(sibl, min(len(sibl), rng.randint(1, 3))):
                    tr = t_exit + rng.uniform(0.3, min(1.5, notice - t_exit - 0.2))
                    msg = "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:%d, remote process exited or there was a network error, NCCL version %s" % (rng.choice([275, 317]), self.nv)
                    self.py_traceback(rk, tr, self.user_frames(2) + [("%s/torch/distributed/distributed_c10d.py" % self.sitepk, 2288, "all_reduce", "work = group.allreduce([tensor], opts)")],
                                      [msg, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", "Last error:",
                                       "socketProgress: Connection closed by remote peer %s<%d>" % (culprit.node.ip, rng.randint(30000, 60000))])
                    self.error_json(rk, tr, msg, "Traceback ...")
                    dead[rk.r] = (tr + 0.3, 1, msg)
                    fails.append((rk, tr, 1, msg))
                self.notes.append("torchrun root cause will name a victim")
            alive = [rk for rk in sibl if rk.r not in dead]
            # agent on culprit node stops the remaining siblings
            for rk in alive:
                self.agent(culprit.node, notice + 1e-4 * rk.local, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % rk.pid)
                dead[rk.r] = (notice + 0.2, -15, None)
            self.agent(culprit.node, notice + 0.5, "E", "torch/distributed/elastic/multiprocessing/api.py:869", "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (ec, culprit.local, culprit.pid, self.pyexe))
            self.child_failed(culprit.node, notice + 0.6, fails)
            t_agent_exit = notice + 0.7
            self.srun_task_error(t_agent_exit + 0.05, culprit.node, [culprit.node.idx], "Exited with exit code 1")
            if self.kill_on_bad_exit:
                kill_time = t_agent_exit + rng.uniform(0.05, 0.8)
        else:
            pass
        if not stuck and self.launch == "srun":
            self.srun_task_error(t_exit + rng.uniform(0.01, 0.2), culprit.node, [culprit.r], status)
        # neighbours see the dead peer through the network within seconds
        if not stuck and rng.random() < 0.6:
            for nb in (culprit.r - 1, culprit.r + 1):
                nb %= self.nranks
                rk = self.ranks[nb]
                if rk.r in dead or rk.node is culprit.node:
                    continue
                te = t_exit + rng.uniform(0.3, 4.0)
                if kill_time is not None and te > kill_time:
                    continue
                dead[rk.r] = (self.remote_error(rk, te, culprit.node.ip), -6, None)
        if kill_time is not None:
            self.srun(kill_time, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            for n in self.nodes:
                if rng.random() < 0.7 or n.idx == 0:
                    tk = kill_time + rng.uniform(0.001, 0.05)
                    # Slurm before 23.02 names no reason for srun's kill: the same words as scancel's
                    why = " DUE TO TASK FAILURE" if self.cancel_reason_words else ""
                    self.srun(tk, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (self.jobid, n.name, fmt_iso(n.h(tk)), why))
            for n in self.nodes:
                alive = [rk for rk in n.ranks if rk.r not in dead]
                if not alive:
                    continue
                tk = kill_time + rng.uniform(0.05, 0.5)
                if self.launch == "torchrun":
                    self.agent(n, tk, "W", "torch/distributed/elastic/agent/server/api.py:704", "Received Signals.SIGTERM death signal, shutting down workers")
                    for rk in alive:
                        self.agent(n, tk + 1e-4 * rk.local, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % rk.pid)
                    self.agent(n, tk + 0.3, "E", "torch/distributed/elastic/multiprocessing/api.py:843", "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % (n.ranks[0].pid - 57))
                    self.srun_task_error(tk + 0.4, n, [n.idx], "Terminated")
                else:
                    self.srun_task_error(tk + 0.1, n, [rk.r for rk in alive], "Terminated")
                for rk in alive:
                    dead[rk.r] = (tk + 0.2, -15, None)
            t_end = kill_time + 2.0
            if rng.random() < 0.5:
                self.srun(t_end, "srun: Force Terminated StepId=%d.0" % self.jobid)
            self.finish_dead(dead, culprit)
            return t_end
        # otherwise the others wait for their watchdogs
        t_end = self.watchdog_wave(dead, culprit, t_enq)
        self.finish_dead(dead, culprit)
        return t_end

    def watchdog_wave(self, dead, culprit, t_enq, identical=False, skip=None):
        """Ranks still waiting on collective C+1 time out at enqueue + timeout.  With torchrun
        the agent of each node SIGTERMs the node's remaining workers shortly after the first
        worker there died; those never print their own timeout."""
        rng = self.rng
        t_fire = {}
        for rk in self.ranks:
            if rk.r in dead or rk.r == skip:
                continue
            t_fire[rk.r] = t_enq[rk.r] + self.tmo_ms / 1000.0
        t_end = self.t0 + 1
        printed = []
        for n in self.nodes:
            abort_times = [dead[rk.r][0] for rk in n.ranks if rk.r in dead and dead[rk.r][1] == -6]
            abort_times += [t_fire[rk.r] + 0.01 for rk in n.ranks if rk.r in t_fire]
            if not abort_times:
                continue
            tn = min(abort_times) + rng.uniform(0.1, 2.0) if self.launch == "torchrun" else None
            for rk in n.ranks:
                if rk.r not in t_fire:
                    continue
                if tn is not None and t_fire[rk.r] > tn:
                    continue
                ta = self.watchdog_timeout(rk, t_enq[rk.r], self.C + 1, self.E, self.C)
                dead[rk.r] = (ta, -6, None)
                printed.append((t_fire[rk.r], rk))
            nd = sorted([(dead[rk.r][0], rk) for rk in n.ranks if rk.r in dead and dead[rk.r][1] == -6], key=lambda x: x[0])
            if not nd:
                continue
            if self.launch == "torchrun":
                tn = max(tn, nd[0][0] + 0.05)
                others = [rk for rk in n.ranks if rk.r not in dead]
                for rk in others:
                    self.agent(n, tn + 1e-4 * rk.local, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % rk.pid)
                    dead[rk.r] = (tn + 0.3, -15, None)
                fails = [(rk, dead[rk.r][0], -6, None) for _, rk in nd]
                self.agent(n, tn + 0.5, "E", "torch/distributed/elastic/multiprocessing/api.py:869", "failed (exitcode: -6) local_rank: %d (pid: %d) of binary: %s" % (fails[0][0].local, fails[0][0].pid, self.pyexe))
                if self.flood_lines == "full" or n.idx % 16 == 0:
                    self.child_failed(n, tn + 0.6, fails)
                self.srun_task_error(tn + 0.8, n, [n.idx], "Exited with exit code 1")
                t_end = max(t_end, tn + 1)
            else:
                ts = nd[-1][0] + rng.uniform(0.05, 0.5)
                self.srun_task_error(ts, n, [rk.r for _, rk in nd], "Aborted (core dumped)" if rng.random() < 0.6 else "Aborted")
                t_end = max(t_end, ts + 1)
        if printed:
            printed.sort(key=lambda x: x[0])
            self.dump_signal(printed[0][1], [rk for _, rk in printed[1:]], printed[0][0])
        return t_end

    def finish_dead(self, dead, culprit):
        for r in dead:
            if culprit is None or r != culprit.r:
                self.victims.add(r)

    # -- class stories --------------------------------------------------------------------
    def story(self):
        rng = self.rng
        self.t_init = self.t_start + rng.uniform(15, 120)
        self.tsuffix = "%08x" % rng.getrandbits(32)
        if self.cls == "launch_failure":
            # The launch's shape is known before the header: a store port that srun's
            # rank 0 failed to bind needs srun to have started every rank, and the
            # header (srun's command line, torchrun's banner) must say so.
            self.launch_setup()
        self.header()
        self.nccl_init()
        cls = self.cls
        if cls == "launch_failure":
            if "benign_warnings" in self.noise:
                self.noise_benign_warnings(self.t_init, self.t_init + 1)
            return self.story_launch()
        dur = rng.uniform(300, 20000)
        if self.noise_bytes > 0:
            dur = max(dur, 3600)
        if TRAINING_NOISE & set(self.noise):
            dur = max(dur, self.nrng.uniform(3600, 4 * 3600))   # survived for hours
        self.t0 = self.t_ic + dur
        self.C = int(dur * self.rate) + rng.randint(0, 50)
        self.E = self.C + rng.choice([1, 1, 1, 2, 3])
        nprog = rng.randint(10, 60)
        self.progress(self.t_ic + 5, self.t0 - rng.uniform(2, 30), nprog, rng.randint(0, 10000))
        self.decoys(self.t_ic + 5, self.t0 - 60)
        if self.noise:
            self.apply_noise(self.t_ic + 5, self.t0 - 60)
        culprit = rng.choice(self.ranks)
        fn = getattr(self, "story_" + cls)
        t_end = fn(culprit)
        self.t_end = t_end
        return t_end

    def header(self):
        """Unprefixed lines from the batch script and the launchers at start."""
        rng = self.rng
        t = self.t_start + 0.2
        n0 = self.nodes[0]
        out = []
        if rng.random() < 0.6:
            out.append("Job %d (%s) started on %s at %s" % (self.jobid, self.jobname, self.hostlist(), time.strftime("%a %b %d %H:%M:%S " + TZ_NAMES.get(_TZ, "UTC") + " %Y", _tm(n0.h(t)))))
        out.append("MASTER_ADDR=%s MASTER_PORT=29500 WORLD_SIZE=%d NNODES=%d" % (n0.name, self.nranks, len(self.nodes)))
        if rng.random() < 0.5:
            if self.launch == "torchrun":
                out.append("+ srun %s torchrun --nnodes=%d --nproc-per-node=%d --rdzv-backend=c10d --rdzv-endpoint=%s:29500 %s%s" % (
                    "--label" if self.label else "", len(self.nodes), self.ppn, n0.name, "--tee 3 " if self.tee else "", self.script))
            else:
                out.append("+ srun %s--ntasks-per-node=%d --gpus-per-node=%d python %s" % ("--label " if self.label else "", self.ppn, self.ppn, self.script))
        for i, ln in enumerate(out):
            self.add("job.out", t + i * 1e-3, ln)
        if self.launch == "torchrun" and self.pt != "1.13":
            for n in self.nodes[:64]:
                tt = self.t_start + rng.uniform(3, 8)
                self.agent(n, tt, "W", "torch/distributed/run.py:793", "")
                self.agent(n, tt + 1e-4, "W", "torch/distributed/run.py:793", "*****************************************")
                self.agent(n, tt + 2e-4, "W", "torch/distributed/run.py:793", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
                self.agent(n, tt + 3e-4, "W", "torch/distributed/run.py:793", "*****************************************")

    def set_first(self, rk, t):
        self.truth_first = rk.r if rk is not None else None
        self.truth_host = rk.host if rk is not None else None
        self.first_time = t

    def maybe_truncate(self, rk):
        """The culprit's output cut mid-line (its last buffered write lost when it died)."""
        if self.rng.random() >= 0.2 or rk.r not in self.last_w:
            return
        fname, seq = self.last_w[rk.r]
        lines = self.files[fname]
        pfx = self.wprefix(rk, "py")
        for i in range(len(lines) - 1, -1, -1):
            key, sq, text, nl = lines[i]
            if sq != seq:
                continue
            body = text[len(pfx):]
            if len(body) > 30:
                cut = len(pfx) + max(24, int(len(body) * self.rng.uniform(0.6, 0.95)))
                tail = "\x00" * self.rng.randint(16, 512) if self.rng.random() < 0.3 else ""
                lines[i] = (key, sq, text[:cut] + tail, False)
                self.notes.append("culprit output truncated mid-line")
            return

    def oom_text(self, rng, c, gib, tot, free):
        """torch's CUDA OOM exception text, in this job's PyTorch version's wording."""
        if self.pt == "1.13":
            return "RuntimeError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (gib, c.local, tot, tot - 2, free * 1024, tot - 1)
        elif self.pt == "2.1":
            return "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f MiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (gib, c.local, tot, free * 1024, c.pid, tot - 0.5, tot - 3, 812.4)
        else:
            var = "PYTORCH_ALLOC_CONF" if self.pt == "2.6" and rng.random() < 0.5 else "PYTORCH_CUDA_ALLOC_CONF"
            return "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting %s=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (gib, c.local, tot, free * 1024, c.pid, tot - 0.5, tot - 3, 812.4, var)

    def story_cuda_oom(self, c):
        rng = self.rng
        t0 = self.t0
        self.set_first(c, t0)
        gib = rng.choice([0.5, 1.0, 2.0, 3.91, 7.82, 20.0])
        tot = rng.choice([79.1, 79.15, 39.39, 93.1, 139.8])
        free = rng.uniform(0.01, gib * 0.9)
        msg = self.oom_text(rng, c, gib, tot, free)
        frames = self.user_frames() + [("/workspace/model.py", rng.randint(40, 400), "forward", "attn = torch.softmax(scores, dim=-1)")]
        te = self.py_traceback(c, t0, frames, [msg])
        self.error_json(c, t0, msg, "Traceback (most recent call last): ...")
        self.maybe_truncate(c)
        return self.teardown(c, te + 0.5, 1, "Exited with exit code 1", msg)

    def story_python_exception(self, c):
        rng = self.rng
        t0 = self.t0
        self.set_first(c, t0)
        exc = rng.choice([
            "KeyError: 'input_ids'",
            "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (rng.randint(1, 64), rng.randint(65, 128)),
            "AssertionError: sequence length %d exceeds max_position_embeddings 4096" % rng.randint(4097, 9000),
            "IndexError: list index out of range",
            "TypeError: forward() got an unexpected keyword argument 'attention_mask'",
            "RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1" % (rng.randint(100, 500), rng.randint(501, 900)),
            "ZeroDivisionError: division by zero",
        ])
        frames = self.user_frames() + [("/workspace/data.py", rng.randint(20, 300), "__getitem__", "return self.tokenize(sample)")]
        te = self.py_traceback(c, t0, frames, [exc])
        self.error_json(c, t0, exc, "Traceback ...")
        self.maybe_truncate(c)
        return self.teardown(c, te + 0.3, 1, "Exited with exit code 1", exc)

    def rlog(self, rk, t, level, msg, stream="err"):
        """A per-rank diagnostic line: the user's code names its rank in the text."""
        if self.ulog_fmt:
            self.ulog(rk, t, level, msg, stream)
        else:
            self.w(rk, t, "[rank %d] %s" % (rk.r, msg), stream, "py")

    def shown_ranks(self, c, n=31):
        """The culprit and a sample of the others (big jobs: not every rank's lines)."""
        others = [rk for rk in self.ranks if rk is not c]
        return [c] + self.nrng.sample(others, min(len(others), n))

    def rank_progress(self, c):
        """Every rank logs the start of each step; the culprit's last is one step earlier
        (it is stuck before step S, e.g. in its data loader), the others block in step S."""
        nr = self.nrng
        st = nr.uniform(0.5, 4.0)
        S = self.last_step + nr.randint(1, 20)
        for rk in self.shown_ranks(c):
            last = S - 1 if rk is c else S
            for s_ in range(S - 3, last + 1):
                t = self.t0 - (S - s_) * st + nr.uniform(0, 0.05 * st)
                self.rlog(rk, t, "INFO", "step %d | start forward | batch %d | GPU %d" % (s_, nr.choice([16, 32, 48]), rk.local), "out")
        self.notes.append("culprit last progress at step %d, others at %d" % (S - 1, S))

    def story_nan_origin(self, c):
        """Every rank reports the all-reduced loss non-finite at once; the first non-finite
        value was local to one rank: a bad sample, an fp16 overflow (DeepSpeed's loss scale
        halving to its minimum, ymcui/Chinese-LLaMA-Alpaca#534, deepspeed#931), or a failing
        GPU (an Xid on that rank's GPU shortly before)."""
        nr = self.nrng
        cause = nr.choice(["bad_sample", "overflow", "gpu"])
        step = self.last_step + nr.randint(1, 40)
        st = nr.uniform(0.3, 3.0)
        t0 = self.t0
        self.set_first(c, t0)
        self.nan_cause, self.nan_step = cause, step
        show = self.shown_ranks(c)
        for rk in show:
            self.rlog(rk, t0 - st + nr.uniform(0, 0.05), "INFO", "step %d local loss %.4f local grad_norm %.3f" % (
                step - 1, nr.uniform(1.8, 3.0), nr.uniform(0.3, 2.0)), "out")
        if cause == "gpu":
            xid, txt = nr.choice([(92, "High single-bit ECC error rate on GPU"),
                                  (63, "Row Remapper: New row (0x%016x) marked for remapping, reset gpu to activate." % nr.getrandbits(28)),
                                  (48, "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition 0." % nr.randint(0, 11))])
            self.kern(c.node, t0 - nr.uniform(2, 300), "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=python, %s" % (c.busid[:2], xid, c.pid, txt))
            self.rlog(c, t0, "WARNING", "non-finite local loss (nan) at step %d" % step)
        elif cause == "bad_sample":
            self.rlog(c, t0, "WARNING", "non-finite local loss (%s) at step %d: sample index %d (shard %05d, offset %d)" % (
                nr.choice(["nan", "inf"]), step, nr.randint(10000, 99999999), nr.randint(0, 4095), nr.randint(0, 10**6)))
        else:
            self.rlog(c, t0, "WARNING", "local grad norm inf at step %d (fp16, before all-reduce)" % step)
        tg = t0 + st * 0.5
        if cause == "overflow":
            # the all-reduced overflow flag: every step skipped, the scale halves to its minimum
            rk0 = self.ranks[0]
            scale = 2 ** nr.randint(8, 16)
            while scale >= 1:
                ht = rk0.node.h(tg)
                self.w(rk0, tg, "[%s,%03d] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (
                    fmt_sql(ht), int(ht % 1 * 1000), scale, max(1, scale // 2)), "out", "py")
                scale //= 2
                tg += st
            exc = "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."
        else:
            for rk in show:
                self.w(rk, tg + nr.uniform(0, 0.05), "step %d | loss nan | grad_norm nan | lr 3.00e-04" % step, "out", "print")
            exc = nr.choice(["RuntimeError: Loss is NaN at step %d, aborting" % step,
                             "FloatingPointError: Loss became infinite or NaN at iteration=%d!" % step])
        # every rank checks the same all-reduced value and raises within milliseconds
        t_exit = None
        for rk in show[:16]:
            tr = tg + 0.01 + nr.uniform(0, 0.05)
            te = self.py_traceback(rk, tr, self.user_frames(), [exc])
            self.error_json(rk, tr, exc, "Traceback ...")
            if rk is c:
                t_exit = te + 0.3
            else:
                self.pre_dead[rk.r] = (te + 0.3, 1, exc)
        self.notes.append("nan origin %s at step %d" % (cause, step))
        return self.teardown(c, t_exit, 1, "Exited with exit code 1", exc)

    def story_nan_inf(self, c):
        rng = self.rng
        if "nan_origin" in self.noise:
            return self.story_nan_origin(c)
        step = self.last_step + rng.randint(1, 40)
        t0 = self.t0
        for k in range(rng.randint(0, 2)):
            self.w(c, t0 - 0.5 - k, "[step %d] loss=%.4f grad_norm=%.3f" % (step - k - 1, rng.uniform(2, 4), rng.uniform(0.5, 3)), "out", "print")
        kind = rng.choice(["loss", "grad", "anomaly", "inf"])
        if kind == "loss":
            self.w(c, t0, "step %d | loss nan | grad_norm nan | lr 3.00e-04" % step, "out", "print")
            exc = "RuntimeError: Loss is NaN at step %d, aborting" % step
        elif kind == "grad":
            self.w(c, t0, "WARNING: non-finite grad norm (nan) at step %d" % step, "err", "py")
            exc = "FloatingPointError: Non-finite gradient norm detected at step %d: nan" % step
        elif kind == "inf":
            self.w(c, t0, "[step %d] loss=inf grad_norm=inf" % step, "out", "print")
            exc = "FloatingPointError: Loss became infinite or NaN at iteration=%d!" % step
        else:
            self.w(c, t0, "%s/torch/autograd/graph.py:825: UserWarning: Error detected in MulBackward0. Traceback of forward call that caused the error:" % self.sitepk, "err", "py")
            exc = "RuntimeError: Function 'MulBackward0' returned nan values in its 0th output."
        self.set_first(c, t0)
        te = self.py_traceback(c, t0 + 0.01, self.user_frames(), [exc])
        self.error_json(c, t0, exc, "Traceback ...")
        self.notes.append("nan kind %s" % kind)
        return self.teardown(c, te + 0.3, 1, "Exited with exit code 1", exc)

    def story_filesystem(self, c):
        rng = self.rng
        t0 = self.t0
        if rng.random() < 0.5:
            c = self.ranks[0]  # checkpoint writer
        self.set_first(c, t0)
        kind = rng.choice(["nospace", "eio", "stale", "quota"])
        path = "/lustre/%s/ckpt/step_%d/model_%02d.pt" % (self.user, self.last_step, c.r)
        if kind == "nospace":
            exc = ["OSError: [Errno 28] No space left on device"]
            if rng.random() < 0.5:
                exc = ["OSError: [Errno 28] No space left on device", "",
                       "During handling of the above exception, another exception occurred:", "",
                       "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos %d vs %d" % (8731584, 8731472)]
        elif kind == "eio":
            exc = ["OSError: [Errno 5] Input/output error: '%s'" % path.replace("ckpt", "data/shard_%04d" % rng.randint(0, 999))]
            self.kern(c.node, t0 - rng.uniform(0.5, 20), "LustreError: 11-0: lustre-OST%04x-osc-ffff9a2c81f3b000: operation ost_read to node 10.0.200.%d@o2ib failed: rc = -107" % (rng.randint(0, 40), rng.randint(2, 30)))
        elif kind == "stale":
            exc = ["OSError: [Errno 116] Stale file handle: '%s'" % path]
        else:
            exc = ["OSError: [Errno 122] Disk quota exceeded: '%s'" % path]
        frames = self.user_frames(2) + [("/workspace/checkpoint.py", rng.randint(30, 200), "save", "torch.save(state, path)"),
                                        ("%s/torch/serialization.py" % self.sitepk, 652, "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)")]
        te = self.py_traceback(c, t0, frames, exc)
        self.error_json(c, t0, exc[-1], "Traceback ...")
        self.notes.append("fs kind %s" % kind)
        return self.teardown(c, te + 0.5, 1, "Exited with exit code 1", exc[-1])

    def story_cuda_error(self, c):
        rng = self.rng
        t0 = self.t0
        self.set_first(c, t0)
        kind = rng.choice(["ima", "assert", "ima_watchdog", "misaligned"])
        tail = ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", ""]
        if rng.random() < 0.3:
            xid = rng.choice([13, 31])
            txt = "Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address" if xid == 13 else "MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_3 faulted @ 0x7f2a_bc000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ"
            self.kern(c.node, t0 - 0.05, "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=python, %s" % (c.busid[:2], xid, c.pid, txt))
            self.notes.append("app-caused Xid %d in kernel log" % xid)
        if kind == "assert":
            for i in range(rng.randint(1, 6)):
                self.w(c, t0 + i * 1e-4, "/opt/pytorch/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (rng.randint(0, 900), rng.randint(0, 127)), "err", "py")
            exc = "RuntimeError: CUDA error: device-side assert triggered"
        elif kind == "misaligned":
            exc = "RuntimeError: CUDA error: misaligned address"
        else:
            exc = "RuntimeError: CUDA error: an illegal memory access was encountered"
        self.notes.append("cuda kind %s" % kind)
        if kind == "ima_watchdog" and self.pt != "1.13":
            pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % c.r if self.pt == "2.6" else "[Rank %d]" % c.r
            self.glog(c, t0 + 0.01, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered" % pg)
            for i, l in enumerate(tail[:3]):
                self.w(c, t0 + 0.011 + i * 1e-5, l)
            self.w(c, t0 + 0.012, "terminate called after throwing an instance of 'c10::DistBackendError'")
            self.w(c, t0 + 0.013, "  what():  %s Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered" % pg)
            return self.teardown(c, t0 + 0.2, -6, "Aborted (core dumped)", None)
        te = self.py_traceback(c, t0 + 0.001, self.user_frames() + [("/workspace/model.py", 211, "forward", "x = self.embed(tokens)")], [exc] + tail)
        self.error_json(c, t0, exc, "Traceback ...")
        self.maybe_truncate(c)
        return self.teardown(c, te + 0.3, 1, "Exited with exit code 1", exc)

    def story_segfault(self, c):
        rng = self.rng
        t0 = self.t0
        self.set_first(c, t0)
        bus = rng.random() < 0.25
        sig, name, ec = (7, "Bus error", -7) if bus else (11, "Segmentation fault", -11)
        kind = rng.choice(["fatal_python", "ucx", "plain"])
        if kind == "fatal_python":
            self.w(c, t0, "Fatal Python error: %s" % name)
            self.w(c, t0 + 1e-4, "")
            self.w(c, t0 + 2e-4, "Thread 0x%012x (most recent call first):" % rng.getrandbits(44))
            self.w(c, t0 + 3e-4, '  File "%s/torch/utils/data/_utils/fetch.py", line 52 in fetch' % self.sitepk)
            self.w(c, t0 + 4e-4, '  File "/workspace/trainer.py", line 311 in train_step')
        elif kind == "ucx":
            addr = "not mapped to object at address 0x%x" % rng.getrandbits(20) if not bus else "nonexistent physical address"
            self.w(c, t0, "[%s:%d :0:%d] Caught signal %d (%s: %s)" % (c.host, c.pid, c.tid, sig, name, addr))
            self.w(c, t0 + 1e-4, "==== backtrace (tid:%7d) ====" % c.tid)
            self.w(c, t0 + 2e-4, " 0  %s/torch/lib/libtorch_cpu.so(+0x%x) [0x7f%09x]" % (self.sitepk, rng.getrandbits(24), rng.getrandbits(36)))
            self.w(c, t0 + 3e-4, "=================================")
        else:
            self.kern(c.node, t0 + 0.01, "python[%d]: segfault at %x ip 00007f%08x sp 00007ffd%08x error 4 in libc.so.6[7f%07x000+195000]" % (c.pid, rng.getrandbits(16), rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(28)) if not bus else "python[%d]: bus error at %x" % (c.pid, rng.getrandbits(16)))
        self.notes.append("native crash %s via %s" % (name, kind))
        status = "Segmentation fault (core dumped)" if not bus else "Bus error (core dumped)"
        return self.teardown(c, t0 + 0.05, ec, status, None)

    def story_host_oom(self, c):
        rng = self.rng
        t0 = self.t0
        n = c.node
        self.set_first(c, t0)
        kind = rng.choice(["kernel", "kernel", "cgroup", "both", "dataloader"])
        if kind == "dataloader":
            # the kernel kills a DataLoader worker of the rank; the rank itself raises
            wpid = c.pid + rng.randint(100, 5000)
            self.kern(n, t0 - 0.003, "pt_data_worker invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
            self.kern(n, t0 - 0.001, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d,task_memcg=/slurm/uid_%d/job_%d/step_0/user/task_0,task=pt_data_worker,pid=%d,uid=%d" % (self.uid, self.jobid, self.uid, self.jobid, wpid, self.uid))
            self.kern(n, t0, "Memory cgroup out of memory: Killed process %d (pt_data_worker) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (wpid, rng.randint(10**7, 10**8), rng.randint(10**7, 10**8), rng.randint(10**5, 10**6), rng.randint(10**4, 10**6), self.uid, rng.randint(10**4, 10**5)))
            exc = "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid
            te = self.py_traceback(c, t0 + rng.uniform(0.05, 2.0), self.user_frames() + [("%s/torch/utils/data/dataloader.py" % self.sitepk, 1133, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")], [exc])
            self.error_json(c, te, exc, "Traceback ...")
            self.notes.append("host oom via dataloader worker %d" % wpid)
            return self.teardown(c, te + 0.3, 1, "Exited with exit code 1", exc)
        if kind in ("kernel", "both"):
            memcg = rng.random() < 0.7
            self.kern(n, t0 - 0.004, "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
            self.kern(n, t0 - 0.003, "CPU: %d PID: %d Comm: python Tainted: P           OE     5.15.0-105-generic #115-Ubuntu" % (rng.randint(0, 191), c.pid))
            if memcg:
                self.kern(n, t0 - 0.002, "memory: usage %dkB, limit %dkB, failcnt %d" % (1e9 // 1, 1e9 // 1, rng.randint(1, 900)))
                self.kern(n, t0 - 0.001, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d,task_memcg=/slurm/uid_%d/job_%d/step_0/user/task_%d,task=python,pid=%d,uid=%d" % (self.uid, self.jobid, self.uid, self.jobid, c.local if self.launch == "srun" else 0, c.pid, self.uid))
                self.kern(n, t0, "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (c.pid, rng.randint(10**8, 10**9), rng.randint(10**7, 10**8), rng.randint(10**5, 10**6), rng.randint(10**4, 10**6), self.uid, rng.randint(10**4, 10**5)))
            else:
                self.kern(n, t0 - 0.001, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/slurm/uid_%d/job_%d/step_0,task=python,pid=%d,uid=%d" % (self.uid, self.jobid, c.pid, self.uid))
                self.kern(n, t0, "Out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:0kB, UID:%d pgtables:%dkB oom_score_adj:0" % (c.pid, rng.randint(10**8, 10**9), rng.randint(10**7, 10**8), rng.randint(10**5, 10**6), self.uid, rng.randint(10**4, 10**5)))
            self.kern(n, t0 + 0.2, "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % c.pid)
        if kind in ("cgroup", "both"):
            tt = t0 + rng.uniform(0.5, 3)
            if rng.random() < 0.6:
                self.srun(tt, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % self.jobid)
            else:
                self.srun(tt, "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=%d.0. Some of your processes may have been killed by the cgroup out-of-memory handler." % self.jobid)
        self.notes.append("host oom via %s" % kind)
        self.oom_step = True
        return self.teardown(c, t0 + 0.001, -9, "Out Of Memory" if kind != "kernel" else "Killed", None)

    def story_gpu_hardware(self, c):
        rng = self.rng
        t0 = self.t0
        n = c.node
        self.set_first(c, t0)
        xid = rng.choice([79, 48, 94, 95, 74, 119])
        pci = "PCI:0000:%s:00" % c.busid[:2] if rng.random() < 0.85 else "0000:%s:00" % c.busid[:2]
        txt = {79: "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
               48: "pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (c.pid, rng.randint(0, 11), rng.randint(0, 1)),
               94: "pid=%d, name=python, Contained: SM (0x1). RST: No, D-RST: No" % c.pid,
               95: "pid='<unknown>', name=<unknown>, Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No",
               74: "pid=%d, name=python, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (c.pid, rng.randint(0, 17)),
               119: "pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8)." % (c.pid, c.local)}[xid]
        if xid == 79:
            self.kern(n, t0 - 1e-4, "NVRM: GPU at PCI:0000:%s:00: GPU-%08x-%04x-%04x-%04x-%012x" % (c.busid[:2], rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48)))
            self.kern(n, t0 - 5e-5, "NVRM: GPU Board Serial Number: 1650921%06d" % rng.randint(0, 999999))
        self.kern(n, t0, "NVRM: Xid (%s): %d, %s" % (pci, xid, txt))
        if rng.random() < 0.4:
            act = rng.choice([(1, "GPU Reset Required"), (2, "Node Reboot Required"), (4, "Drain and Reset")])
            self.kern(n, t0 + rng.uniform(0.01, 2), "NVRM: Xid (%s): 154, GPU recovery action changed from 0x0 (None) to 0x%x (%s)" % (pci, act[0], act[1]))
        self.notes.append("Xid %d" % xid)
        how = rng.choice(["cuda_exc", "nccl_abort", "hang"])
        if xid == 79 and rng.random() < 0.5:
            how = "hang"
        self.notes.append("culprit process: %s" % how)
        err = {79: "unknown error", 48: "uncorrectable ECC error encountered", 94: "uncorrectable ECC error encountered",
               95: "uncorrectable ECC error encountered", 74: "unspecified launch failure", 119: "unspecified launch failure"}[xid]
        if how == "hang":
            return self.hang_wave(c, silent=True, stuck_time=t0)
        if how == "nccl_abort":
            tc = t0 + rng.uniform(0.05, 1.5)
            self.nccl_line(c, tc, "enqueue.cc:%d NCCL WARN Cuda failure '%s'" % (rng.randint(1000, 1600), err), warn=True)
            pg = "[Rank %d]" % c.r
            self.glog(c, tc + 0.01, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: CUDA error: %s" % (pg, err))
            self.w(c, tc + 0.02, "terminate called after throwing an instance of 'c10::DistBackendError'")
            return self.teardown(c, tc + 0.1, -6, "Aborted (core dumped)", None)
        tc = t0 + rng.uniform(0.05, 1.5)
        exc = "RuntimeError: CUDA error: %s" % err
        te = self.py_traceback(c, tc, self.user_frames(), [exc, "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"])
        self.error_json(c, tc, exc, "Traceback ...")
        return self.teardown(c, te + 0.3, 1, "Exited with exit code 1", exc)

    def story_network(self, c):
        rng = self.rng
        t0 = self.t0
        self.set_first(c, t0)
        # the peer on the broken link is on another node where possible
        others = [rk for rk in self.ranks if rk.node is not c.node] or [rk for rk in self.ranks if rk is not c]
        peer = rng.choice(others)
        kind = rng.choice(["ib12", "ib12", "socket", "linkdown"])
        if kind == "linkdown" or rng.random() < 0.3:
            self.kern(c.node, t0 - rng.uniform(0.0, 0.5), "mlx5_core 0000:%s:00.0 ibp%ds0: Link down" % (rng.choice(["1a", "3c", "4d", "9b"]), rng.randint(20, 200)))
            self.notes.append("kernel link down")
        tcp = c.tid + 90
        if kind == "socket":
            txt = "misc/socket.cc:%d NCCL WARN Net : Call to recv from %s<%d> failed : %s" % (rng.randint(40, 800), peer.node.ip, rng.randint(30000, 60000), rng.choice(["Connection reset by peer", "Broken pipe", "Connection timed out"]))
            last = txt.split("NCCL WARN ")[1]
            self.nccl_line(c, t0, txt, warn=True, tid=tcp)
        else:
            if self.nv in ("2.23.4", "2.27.3"):
                last = "NET/IB: Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor_err=129 hca mlx5_%d" % (peer.node.ip, rng.randint(30000, 60000), rng.choice([0, 1, 128]), rng.randint(0, 7))
            else:
                last = "NET/IB : Got completion from peer %s<%d> with error 12, opcode %d, len 0, vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (peer.node.ip, rng.randint(30000, 60000), rng.choice([0, 1, 128]), c.node.ip, peer.node.ip)
            self.nccl_line(c, t0, "transport/net_ib.cc:%d NCCL WARN %s" % (rng.choice([1295, 1696, 2229]), last), warn=True, tid=tcp)
        self.nccl_line(c, t0 + 1e-3, "proxy.cc:%d NCCL WARN [Proxy Service %d] Failed to execute operation Connect from rank %d, retcode 3" % (rng.randint(1400, 1700), c.r, c.r), warn=True, tid=tcp)
        self.notes.append("network kind %s, peer rank %d" % (kind, peer.r))
        te = t0 + rng.uniform(0.05, 1.0)
        if rng.random() < 0.5:
            pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % c.r if self.pt == "2.6" else "[Rank %d]" % c.r
            self.glog(c, te, "E", "ProcessGroupNCCL.cpp:1595", "%s Process group watchdog thread terminated with exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (pg, self.nv))
            self.w(c, te + 1e-3, "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ")
            self.w(c, te + 2e-3, "Last error:")
            self.w(c, te + 3e-3, last)
            self.w(c, te + 4e-3, "terminate called after throwing an instance of 'c10::DistBackendError'")
            ec, status, msg = -6, "Aborted (core dumped)", None
        else:
            exc = ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % self.nv,
                   "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                   "Last error:", last]
            self.py_traceback(c, te, self.user_frames(2) + [("%s/torch/distributed/distributed_c10d.py" % self.sitepk, 2288, "all_reduce", "work = group.allreduce([tensor], opts)")], exc)
            self.error_json(c, te, exc[0], "Traceback ...")
            ec, status, msg = 1, "Exited with exit code 1", exc[0]
        # the peer on the other end notices later
        if peer.r != c.r:
            tp = t0 + rng.uniform(0.4, 3.0)
            self.pre_dead[peer.r] = (self.remote_error(peer, tp, c.node.ip, code=rng.choice([12, 5])), -6, None)
        return self.teardown(c, te + 0.2, ec, status, msg)

    def hang_wave(self, c, silent=True, stuck_time=None, mismatch=False, desync=None):
        """The culprit never joins collective C+1 (or joins a mismatched one).  Victims time
        out at their collective start + timeout; the culprit is killed in teardown."""
        rng = self.rng
        t0 = stuck_time if stuck_time is not None else self.t0
        t_enq = {rk.r: max(t0, self.t0) + rng.uniform(0.05, 2.0) for rk in self.ranks}
        dead = {}
        if c is not None and mismatch:
            # culprit also times out, on a mismatched op, with a lower last-enqueued seq
            saveE = self.E
            self.E = self.C + 1
            ta = self.watchdog_timeout(c, t_enq[c.r], self.C + 1, self.C + 1, self.C, op="BROADCAST",
                                       numel=rng.choice([1, 8, 1024]))
            self.E = saveE
            dead[c.r] = (ta, -6, None)
        elif c is not None and desync:
            # desync: the culprit's watchdog names another collective than everyone else's
            nr = self.nrng
            C = self.C
            if desync == "op":
                other = [o for o in ["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "BROADCAST", "ALLTOALL_BASE"] if o != self.op]
                ta = self.watchdog_timeout(c, t_enq[c.r], C + 1, C + 1, C, op=nr.choice(other), numel=self.numel)
            elif desync == "size":
                other = [n for n in [1, 8, 1024, 4194304, 52428800, 262144000, 98304000] if n != self.numel]
                ta = self.watchdog_timeout(c, t_enq[c.r], C + 1, C + 1, C, op=self.op, numel=nr.choice(other))
            else:
                # an extra rank-conditional collective: its sequence runs one ahead
                ta = self.watchdog_timeout(c, t_enq[c.r], C + 2, C + 2, C + 1, op=self.op, numel=nr.choice([1, 8, 1024]))
            dead[c.r] = (ta, -6, None)
        t_end = self.watchdog_wave(dead, c, t_enq, skip=c.r if c is not None else None)
        if desync:
            # the odd one out needs a majority: with fewer than two other ranks' timeouts
            # in the logs (a 2-rank job, the rest SIGTERMed first) nothing singles it out
            others = [r for r in self.fr if r != c.r]
            if len(others) < 2:
                self.set_first(None, self.t0)
                self.notes.append("desync undecidable: %d other rank(s) reported a timeout" % len(others))
        if c is not None and not mismatch and not desync and self.fr and rng.random() < 0.5:
            self.fr_note(c, self.t0, self.C, self.C, self.C, self.op, self.numel, t_end - 1)
        if c is not None and c.r not in dead:
            # killed when its node (or the step) was torn down
            tk = t_end + rng.uniform(0.1, 1.0)
            if self.launch == "torchrun":
                self.agent(c.node, tk, "W", "torch/distributed/elastic/multiprocessing/api.py:897",
                           "Sending process %d closing signal SIGTERM" % c.pid)
            else:
                self.srun_task_error(tk + 0.5, c.node, [c.r], "Terminated")
            dead[c.r] = (tk, -15, None)
        self.finish_dead(dead, c)
        return t_end

    def story_collective_hang(self, c):
        rng = self.rng
        v = self.variant or rng.choice(["silent", "silent", "mismatch", "ambiguous"])
        if self.pt in ("1.13", "2.1") and v == "mismatch":
            v = "silent"
        if v == "mismatch" and self.E < self.C + 2:
            self.E = self.C + 2
        if "desync_hang" in self.noise:
            v = "desync-" + self.nrng.choice(["op", "seq", "size", "progress"])
            if v == "desync-size" and self.pt == "1.13":
                v = "desync-seq"        # 1.13's WorkNCCL(...) prints no sizes
        self.notes.append("hang variant %s" % v)
        if v.startswith("desync-"):
            self.set_first(c, self.t0)
            if v == "desync-progress":
                # silent culprit among silent SIGTERMed node-mates: its last progress is earliest
                self.rank_progress(c)
                return self.hang_wave(c, silent=True)
            return self.hang_wave(c, silent=True, desync=v[len("desync-"):])
        if v == "ambiguous":
            self.set_first(None, self.t0)
            # every rank times out identically; nothing singles out a rank.  They enqueued
            # together: a rank whose watchdog fired a second later than its node-mates' was
            # SIGTERMed by torchrun's agent first, printed no timeout, and looked exactly
            # like a silent culprit -- the logs then singled out a rank the truth does not
            t_enq = {rk.r: self.t0 + rng.uniform(0.05, 0.09) for rk in self.ranks}
            dead = {}
            t_end = self.watchdog_wave(dead, None, t_enq)
            self.finish_dead(dead, None)
            return t_end
        self.set_first(c, self.t0)
        if rng.random() < 0.3:
            # the culprit was busy in its dataloader: a last progress line before going quiet
            self.w(c, self.t0 - 0.2, "fetching shard %d from object store" % rng.randint(0, 9999), "out", "print")
        t_end = self.hang_wave(c, silent=True, mismatch=(v == "mismatch"))
        if v == "silent":
            # The culprit printed no timeout; where other ranks printed none either (a
            # torchrun agent SIGTERMed them before their watchdogs fired) and no flight
            # recorder dump shows it behind, nothing in the logs singles it out.
            quiet = [rk.r for rk in self.ranks if rk.r not in self.fr and rk.r != c.r]
            if quiet and not (self.fr_on and c.r in self.fr):
                self.set_first(None, self.t0)
                self.notes.append("silent hang undecidable: %d other rank(s) printed no timeout either" % len(quiet))
        return t_end

    def story_unknown(self, c):
        rng = self.rng
        v = rng.choice(["silent_exit", "batch_script"])
        self.notes.append("unknown variant %s" % v)
        if v == "batch_script":
            self.set_first(None, self.t0)
            for rk in self.ranks[:1]:
                self.w(rk, self.t0 - 1, "Training finished after %d steps" % self.last_step, "out", "print")
            self.add(self.joberr(), self.t0 + 3, "/var/spool/slurmd/job%d/slurm_script: line %d: syntax error near unexpected token `fi'" % (self.jobid, rng.randint(20, 90)))
            self.unknown_batch = True
            return self.t0 + 4
        self.set_first(c, self.t0)
        return self.teardown(c, self.t0, 1, "Exited with exit code 1", None)

    def launch_setup(self):
        rng = self.rng
        kinds = ["eaddrinuse", "nccl_init", "nccl_init", "import_all", "import_one", "rendezvous"]
        kind = self.variant or rng.choice(kinds)
        if kind == "rendezvous" and len(self.nodes) < 2:
            kind = "import_all"     # a one-node job cannot wait for a missing node
        self.launch_kind = kind
        if kind == "eaddrinuse":
            self.launch = "srun"
            if self.prefix in ("torchrun", "mixed"):
                self.label = self.prefix == "mixed"
                self.tee = False

    def story_launch(self):
        rng = self.rng
        kind = self.launch_kind
        self.notes.append("launch kind %s" % kind)
        t = self.t_init
        self.t0 = t
        self.C = self.E = 0
        self.last_step = 0
        if kind == "eaddrinuse":
            c = self.ranks[0]
            self.set_first(c, t)
            exc = ["torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use"]
            if self.pt == "1.13":
                exc = ["RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use)."]
            self.py_traceback(c, t, [(self.script, 40, "<module>", "dist.init_process_group(backend='nccl')"),
                                     ("%s/torch/distributed/rendezvous.py" % self.sitepk, 176, "_create_c10d_store", "return TCPStore(")], exc)
            self.srun_task_error(t + 0.4, c.node, [0], "Exited with exit code 1")
            tv = t + rng.uniform(30, 600)
            victims = self.ranks[1:]
            for rk in victims:
                self.w(rk, tv + rng.uniform(0, 0.5), "torch.distributed.DistNetworkError: The client socket has timed out after 600000ms while trying to connect to (%s, 29500)." % self.nodes[0].name)
            for n in self.nodes:
                tk = [rk.r for rk in n.ranks if rk.r != 0]
                if tk:
                    self.srun_task_error(tv + 1, n, tk, "Exited with exit code 1")
            self.victims = set(rk.r for rk in victims)
            return tv + 2
        if kind == "nccl_init":
            c = rng.choice(self.ranks)
            self.set_first(c, t + 1)
            warn = rng.choice(["misc/ibvwrap.cc:%d NCCL WARN Call to ibv_create_qp failed with error Cannot allocate memory" % rng.randint(100, 300),
                               "init.cc:%d NCCL WARN Cuda failure 'out of memory'" % rng.randint(100, 1900),
                               "bootstrap.cc:%d NCCL WARN Bootstrap : no socket interface found" % rng.randint(40, 90)])
            self.nccl_line(c, t + 1, warn, warn=True)
            exc = ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % self.nv,
                   "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                   "Last error:", warn.split("NCCL WARN ")[1]]
            self.py_traceback(c, t + 1.01, [(self.script, 55, "<module>", "dist.barrier()")], exc)
            self.error_json(c, t + 1.01, exc[0], "Traceback ...")
            # the others: their init waits then fails on the broken bootstrap ring
            tv = t + rng.uniform(3, 60)
            for rk in self.ranks:
                if rk is c:
                    continue
                self.nccl_line(rk, tv, "misc/socket.cc:%d NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (rng.randint(40, 800), c.node.ip, rng.randint(30000, 60000)), warn=True)
                self.w(rk, tv + 0.01, "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version %s" % self.nv)
                self.victims.add(rk.r)
            for n in self.nodes:
                self.srun_task_error(tv + 1 + (0 if c.node is n else 0.5), n, [self.task_of(rk) for rk in n.ranks] if self.launch == "srun" else [n.idx], "Exited with exit code 1")
            return tv + 2
        if kind in ("import_all", "import_one"):
            msg = rng.choice(["ModuleNotFoundError: No module named 'flash_attn'",
                              "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
                              "ImportError: cannot import name 'LlamaForCausalLM' from 'transformers' (%s/transformers/__init__.py)" % self.sitepk])
            if kind == "import_all":
                self.set_first(None, t)
                who = self.ranks
            else:
                c = self.ranks[0]
                msg = "ModuleNotFoundError: No module named 'wandb'"
                self.set_first(c, t)
                who = [c]
            for rk in who:
                self.py_traceback(rk, t + rng.uniform(0, 0.3), [(self.script, 12, "<module>", "import wandb" if kind == "import_one" else "from model import build")], [msg])
            if kind == "import_one":
                tv = t + rng.uniform(60, 900)
                for rk in self.ranks[1:]:
                    self.w(rk, tv + rng.uniform(0, 0.5), "torch.distributed.DistStoreError: Timed out after %d seconds waiting for clients. %d/%d clients joined." % (int(tv - t), self.nranks - 1, self.nranks) if rk.r == 1 and False else
                           "torch.distributed.DistNetworkError: The client socket has timed out after %dms while trying to connect to (%s, 29500)." % (int((tv - t) * 1000), self.nodes[0].name))
                    self.victims.add(rk.r)
            else:
                tv = t + 0.5
                self.victims = set(rk.r for rk in self.ranks)
            for n in self.nodes:
                tasks = [self.task_of(rk) for rk in n.ranks] if self.launch == "srun" else [n.idx]
                self.srun_task_error(tv + 1, n, sorted(set(tasks)), "Exited with exit code 1")
            return tv + 2
        # rendezvous timeout: one node never joins
        self.set_first(None, t)
        tv = t + 900 + rng.uniform(0.5, 2)
        missing = rng.choice(self.nodes)
        for n in self.nodes:
            if n is missing:
                continue
            if self.launch == "torchrun":
                lines = ["Traceback (most recent call last):",
                         '  File "%s/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", line 1147, in next_rendezvous' % self.sitepk,
                         "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"]
                for i, ln in enumerate(lines):
                    self.add(self.joberr(), tv + n.idx * 1e-3 + i * 1e-5, ("%d: " % n.idx if self.label else "") + ln)
                self.srun_task_error(tv + 1, n, [n.idx], "Exited with exit code 1")
            else:
                for rk in n.ranks:
                    if rk.r == 0:
                        self.w(rk, tv, "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. %d/%d clients joined." % (self.nranks - len(missing.ranks), self.nranks))
                    else:
                        self.w(rk, tv + 0.1, "torch.distributed.DistStoreError: wait timeout after 900000ms, keys: /default_pg/0//cuda//0")
                    self.victims.add(rk.r)
                self.srun_task_error(tv + 1, n, [rk.r for rk in n.ranks], "Exited with exit code 1")
        self.notes.append("node %s never joined" % missing.name)
        self.truth_host = missing.name     # no rank singled out, but the node to look at is
        return tv + 2

    def story_cancel(self, reason):
        rng = self.rng
        self.set_first(None, self.t0)
        t = self.t0
        for n in self.nodes:
            tk = t + rng.uniform(0.001, 0.3)
            ent = "JOB %d" % self.jobid if n.idx == 0 and rng.random() < 0.7 else "STEP %d.0" % self.jobid
            if reason == "user":
                if rng.random() < 0.5:
                    line = "slurmstepd: error: *** %s ON %s CANCELLED AT %s ***" % (ent, n.name, fmt_iso(n.h(tk)))
                else:
                    line = "slurmstepd: error: *** %s ON %s CANCELLED AT %s DUE to SIGNAL Terminated ***" % (ent, n.name, fmt_iso(n.h(tk)))
            else:
                line = "slurmstepd: error: *** %s ON %s CANCELLED AT %s DUE TO %s ***" % (ent, n.name, fmt_iso(n.h(tk)), reason)
            if n.idx == 0 or rng.random() < 0.6:
                self.srun(tk, line)
        self.srun(t + 0.5, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        if rng.random() < 0.5:
            self.srun(t + 0.6, "srun: got SIGCONT")
            self.srun(t + 0.6, "srun: forcing job termination")
        for n in self.nodes:
            tk = t + rng.uniform(0.05, 0.5)
            if self.launch == "torchrun":
                self.agent(n, tk, "W", "torch/distributed/elastic/agent/server/api.py:704", "Received Signals.SIGTERM death signal, shutting down workers")
                for rk in n.ranks:
                    self.agent(n, tk + 1e-4 * rk.local, "W", "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % rk.pid)
                self.agent(n, tk + 0.3, "E", "torch/distributed/elastic/multiprocessing/api.py:843", "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % (n.ranks[0].pid - 57))
            self.srun_task_error(tk + 0.5, n, [self.task_of(rk) for rk in n.ranks][:1] if self.launch == "torchrun" else [rk.r for rk in n.ranks], "Terminated")
            for rk in n.ranks:
                self.victims.add(rk.r)
        return t + 3

    def story_time_limit(self, c):
        return self.story_cancel("TIME LIMIT")

    def story_preemption(self, c):
        return self.story_cancel("PREEMPTION")

    def story_user_cancel(self, c):
        return self.story_cancel("user")

    def story_node_failure(self, c):
        rng = self.rng
        n = c.node
        t0 = self.t0
        self.set_first(None, t0)
        self.truth_host = n.name
        if rng.random() < 0.4:
            self.kern(n, t0 - rng.uniform(0.1, 5), "mce: [Hardware Error]: CPU %d: Machine Check: 0 Bank 5: be00000000800400" % rng.randint(0, 63))
        self.dead_node = n
        # ranks on the dead node simply stop; their peers see the link go away
        dead = {rk.r: (t0, None, None) for rk in n.ranks}
        for rk in n.ranks:
            self.victims.discard(rk.r)
        for nb in set([(n.ranks[0].r - 1) % self.nranks, (n.ranks[-1].r + 1) % self.nranks]):
            rk = self.ranks[nb]
            if rk.node is n:
                continue
            dead[rk.r] = (self.remote_error(rk, t0 + rng.uniform(5, 20), n.ip), -6, None)
        t_enq = {rk.r: t0 + rng.uniform(0.05, 1.0) for rk in self.ranks}
        tf = t0 + rng.uniform(60, 300)
        if tf < t0 + self.tmo_ms / 1000.0 - 5:
            # slurmctld declares the node down before the watchdogs fire
            for m in self.nodes:
                if m is n:
                    continue
                if m.idx == 0 or rng.random() < 0.5:
                    self.srun(tf + rng.uniform(0, 0.2), "slurmstepd: error: *** %s ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % ("JOB %d" % self.jobid if m.idx == 0 else "STEP %d.0" % self.jobid, m.name, fmt_iso(m.h(tf))))
            self.srun(tf + 0.3, "srun: error: Node failure on %s" % n.name)
            self.srun(tf + 0.4, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            for rk in self.ranks:
                if rk.r not in dead:
                    dead[rk.r] = (tf + 1, -15, None)
            t_end = tf + 2
        else:
            t_end = self.watchdog_wave(dead, None, t_enq)
            self.srun(t_end + 1, "srun: error: Node failure on %s" % n.name)
            self.srun(t_end + 1.1, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (self.jobid, self.nodes[0].name if self.nodes[0] is not n else self.nodes[-1].name, fmt_iso(self.nodes[0].h(t_end + 1.1))))
        for r in dead:
            if self.ranks[r].node is not n:
                self.victims.add(r)
        return t_end

    # -- accounting ------------------------------------------------------------------
    def sacct(self, t_end):
        rng = self.rng
        cls = self.cls
        nodes = self.hostlist()
        js, je = self.t_start, t_end + rng.uniform(0.5, 5)
        step_state, step_ec = "FAILED", "1:0"
        job_state, job_ec, job_dec = "FAILED", "1:0", "1:0"
        if cls == "time_limit":
            job_state, job_ec, job_dec, step_state, step_ec = "TIMEOUT", "0:0", "0:0", "CANCELLED", "0:15"
        elif cls == "preemption":
            job_state, job_ec, job_dec, step_state, step_ec = "PREEMPTED", "0:0", "0:0", "CANCELLED", "0:15"
        elif cls == "user_cancel":
            job_state, job_ec, job_dec, step_state, step_ec = "CANCELLED by %d" % self.uid, "0:0", "0:0", "CANCELLED by %d" % self.uid, "0:15"
        elif cls == "node_failure":
            job_state, job_ec, job_dec, step_state, step_ec = "NODE_FAIL", "0:0", "0:0", "CANCELLED", "0:9"
        elif getattr(self, "oom_step", False) and self.launch == "srun":
            step_state, step_ec, job_dec = ("OUT_OF_MEMORY", "0:125", "0:125") if rng.random() < 0.6 else ("CANCELLED", "0:9", "0:9")
        elif getattr(self, "unknown_batch", False):
            step_state, step_ec, job_dec = "COMPLETED", "0:0", "0:0"
            job_ec = "2:0"
        rows = [(str(self.jobid), self.jobname, job_state, job_ec, job_dec, js, je, nodes),
                ("%d.batch" % self.jobid, "batch", "CANCELLED" if cls in CANCEL_CLASSES else ("FAILED" if job_state == "FAILED" else "CANCELLED"), "0:15" if cls in CANCEL_CLASSES else job_ec, "", js, je, self.nodes[0].name),
                ("%d.extern" % self.jobid, "extern", "COMPLETED", "0:0", "", js, je, nodes),
                ("%d.0" % self.jobid, "python" if self.launch == "srun" else "torchrun", step_state, step_ec, "", js + rng.uniform(1, 5), t_end, nodes)]
        if rng.random() < 0.65:
            out = ["JobID|JobName|State|ExitCode|DerivedExitCode|Start|End|NodeList"]
            for r in rows:
                out.append("|".join([r[0], r[1], r[2], r[3], r[4], fmt_iso(r[5]), fmt_iso(r[6]), r[7]]))
            self.add("sacct.txt", 0, "\n".join(out))
        else:
            def ec(s):
                a, b = s.split(":")
                st = ["SUCCESS"] if s == "0:0" else (["SIGNALED"] if b != "0" else ["NON_ZERO_EXIT"])
                return {"status": st, "return_code": {"set": True, "infinite": False, "number": int(a)},
                        "signal": {"id": {"set": b != "0", "infinite": False, "number": int(b)}, "name": ""}}
            st = job_state.split()[0]
            steps = []
            for r in rows[1:]:
                steps.append({"step": {"id": {"job_id": self.jobid, "step_id": r[0].split(".")[1]}, "name": r[1]},
                              "state": [r[2].split()[0]], "exit_code": ec(r[3]), "nodes": {"range": r[7]},
                              "time": {"start": {"set": True, "number": int(r[5])}, "end": {"set": True, "number": int(r[6])}}})
            doc = {"meta": {"plugin": {"type": "openapi/slurmdbd", "name": "Slurm OpenAPI slurmdbd"},
                            "Slurm": {"version": {"major": "24", "micro": "3", "minor": "05"}}},
                   "jobs": [{"job_id": self.jobid, "name": self.jobname, "user": self.user, "nodes": nodes,
                             "state": {"current": [st], "reason": "None"},
                             "exit_code": ec(job_ec), "derived_exit_code": ec(job_dec),
                             "time": {"start": int(js), "end": int(je), "elapsed": int(je - js),
                                      "limit": {"set": True, "infinite": False, "number": rng.choice([60, 240, 1440])}},
                             "steps": steps}]}
            self.add("sacct.json", 0, json.dumps(doc, indent=2))

    def hostlist(self):
        names = [n.name for n in self.nodes]
        if len(names) == 1:
            return names[0]
        import re
        m = [re.match(r"^(.*?)(\d+)$", s) for s in names]
        pre = m[0].group(1)
        width = len(m[0].group(2))
        nums = [int(x.group(2)) for x in m]
        parts = []
        for p in ranges(nums).split(","):
            if "-" in p:
                a, b = p.split("-")
                parts.append("%0*d-%0*d" % (width, int(a), width, int(b)))
            else:
                parts.append("%0*d" % (width, int(p)))
        return "%s[%s]" % (pre, ",".join(parts))

    # -- kernel background ---------------------------------------------------------------
    def kernel_background(self, t_end):
        rng = self.rng
        for n in self.nodes:
            # The record's own wall time is the host's clock when it was
            # printed (the draw for its milliseconds is kept: the stream of
            # what follows stays as it was).
            t_audit = self.t_start - rng.uniform(10, 3000)
            rng.randint(0, 999)
            wall = n.h(t_audit)
            self.kern(n, t_audit, "audit: type=1400 audit(%d.%03d:%d): apparmor=\"STATUS\" operation=\"profile_replace\" name=\"slurmd\"" % (int(wall), int(wall * 1000) % 1000, rng.randint(100, 999)))
            for _ in range(rng.randint(0, 3)):
                self.kern(n, rng.uniform(self.t_start, t_end), rng.choice([
                    "perf: interrupt took too long (%d > %d), lowering kernel.perf_event_max_sample_rate to %d" % (3935, 3930, 50750),
                    "nvidia-peermem nv_mem_client_release: fatal error occurred while releasing memory",
                    "Lustre: %s: Connection restored to MGS (at 10.0.200.2@o2ib)" % n.name,
                    "mlx5_core 0000:1a:00.0: mlx5_fw_tracer_handle_traces:735:(pid 0): FW Tracer: ...",
                ]) if rng.random() < 0.9 else "nvidia-peermem nv_mem_client_release: fatal error occurred while releasing memory")

    def kern_render(self, node, t, msg):
        ht = node.h(t)
        kt = ht - node.h(node.boot) + 0.0   # boot-relative seconds (this host's clock)
        f = node.kfmt
        if f == "dmesg_T":
            return "[%s] %s" % (fmt_ctime(ht), msg)
        if f == "iso":
            return "%s%s %s kernel: %s" % (fmt_iso(ht), tz_offset_str(False), node.name, msg)
        if f == "iso_precise":
            return "%s%s %s kernel: %s" % (fmt_iso_us(ht), tz_offset_str(True), node.name, msg)
        if f == "precise":
            return "%s %s kernel: %s" % (fmt_syslog(ht, True), node.name, msg)
        if f == "syslog":
            return "%s %s kernel: [%12.6f] %s" % (fmt_syslog(ht), node.name, kt, msg)
        return "[%12.6f] %s" % (kt, msg)

    # -- writing ----------------------------------------------------------------------------
    def run(self):
        global _TZ
        _TZ = self.tz
        t_end = self.story()
        self.kernel_background(t_end)
        if "stale_kernel" in self.noise:
            self.noise_stale_kernel()
        if self.rng.random() < 0.85 or self.cls in ("node_failure",):
            self.sacct(t_end)
        self.t_end = t_end

    def write(self, out, truth_path=None):
        global _TZ
        _TZ = self.tz
        os.makedirs(out, exist_ok=True)
        self.write_fr(out)
        rng = self.rng
        eol = "\r\n" if self.crlf else "\n"
        # kernel logs: a few nodes may have none collected (not the culprit's in hw classes,
        # unless rarely)
        for fname, lines in sorted(self.files.items()):
            path = os.path.join(out, fname)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            lines.sort(key=lambda x: (x[0], x[1]))
            if fname.startswith("kern."):
                node = next(n for n in self.nodes if "kern.%s.log" % n.name == fname)
                with open(path, "w", encoding="utf-8", newline="") as f:
                    if node.kfmt == "raw_btime":
                        f.write("btime %d\n" % int(node.h(node.boot)))
                    for key, _, (_, msg), nl in lines:
                        f.write(self.kern_render(node, key, msg) + "\n")
                continue
            if fname.endswith(".json") or fname == "sacct.txt":
                with open(path, "w", encoding="utf-8") as f:
                    for _, _, text, _ in lines:
                        f.write(text + "\n")
                continue
            with open(path, "w", encoding="utf-8", newline="") as f:
                noise_done = self.noise_bytes <= 0 or fname != "job.out"
                tq = self.rng.random() < 0.3 and fname == self.joberr()
                buf = []
                size = 0
                for key, _, text, nl in lines:
                    if not noise_done and key > self.t_ic + 10:
                        f.write("".join(buf))
                        buf, size = [], 0
                        self.write_noise(f, eol)
                        noise_done = True
                    if tq and ("Watchdog caught" in text or "Traceback" in text) and rng.random() < 0.1:
                        buf.append(" 26/67 [24:51<30:30, 1.6s/it]")
                    buf.append(text + (eol if nl else ""))
                    size += len(text)
                    if size > 1 << 20:
                        f.write("".join(buf))
                        buf, size = [], 0
                f.write("".join(buf))
                if not noise_done:
                    self.write_noise(f, eol)
        # make sure job.out exists (an empty stdout is a real possibility)
        if not os.path.exists(os.path.join(out, "job.out")):
            open(os.path.join(out, "job.out"), "w").close()
        truth = {"class": self.cls, "first_rank": self.truth_first, "first_host": self.truth_host,
                 "noise": list(self.noise),
                 "first_time": fmt_utc(self.first_time) if self.first_time else None,
                 "tz_offset_s": self.tz,
                 "victims": sorted(self.victims),
                 "notes": "; ".join(["seed %d" % self.seed, "ranks %d" % self.nranks, "nodes %d" % len(self.nodes),
                                     "prefix %s" % self.prefix, "launch %s" % self.launch, "nccl %s" % self.nccl_mode,
                                     "nccl_ts %s" % self.nccl_ts, "pytorch %s" % self.pt, "nccl_version %s" % self.nv,
                                     "skew_max %.1f" % self.skew_max, "drift_ppm %.1f" % self.drift_ppm,
                                     "kill_on_bad_exit %s" % self.kill_on_bad_exit, "tz %+d" % self.tz] + self.notes),
                 "job_id": str(self.jobid),
                 "nan_cause": self.nan_cause, "nan_step": self.nan_step,
                 "clock": {n.name: {"offset_s": round(n.off, 6), "drift_ppm": round(n.drift, 3),
                                    "t_ref": round(n.t_ref, 6)} for n in self.nodes}}
        tp = truth_path or os.path.join(out, "truth.json")
        os.makedirs(os.path.dirname(os.path.abspath(tp)), exist_ok=True)
        with open(tp, "w") as f:
            json.dump(truth, f, indent=1)
            f.write("\n")
        return truth

    def write_noise(self, f, eol):
        """Stream noise_bytes of training progress: eight 2 MiB chunks of lines written in
        turn.  A chunk is built only as far as the writing reaches into it (the chunks share
        one random stream, so a chunk is completed before the next one starts): the bytes
        are those of building all eight up front, at a fraction of the time."""
        rng = random.Random(self.seed ^ 0x5eed)
        ranks = self.ranks
        target = 1 << 21
        chunks = []     # [parts, size, step]

        def line(step, ci):
            rk = ranks[rng.randrange(len(ranks))]
            k = rng.random()
            if k < 0.6:
                return "%sstep %d | loss %.4f | lr %.2e | grad_norm %.3f | %.1f TFLOPs" % (
                    self.wprefix(rk, "print"), step, rng.uniform(1.5, 4), 3e-4, rng.uniform(0.2, 2), rng.uniform(300, 500))
            if k < 0.8:
                s = "%sEpoch %d:  %d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %.2fit/s]" % (
                    self.wprefix(rk, "print"), ci, step % 100, "#" * (step % 10), step % 1000, 1000, 1, 2, 3, 4, rng.uniform(1, 3))
                if rng.random() < 0.3:
                    s = s.replace("[", "\r[", 1)
                return s
            if k < 0.9:
                return "%s\x1b[36m[train]\x1b[0m samples/s=%.1f mem=%.1fGiB" % (self.wprefix(rk, "print"), rng.uniform(100, 900), rng.uniform(40, 78))
            return "%sdataloader: prefetched shard %d (%d samples)" % (self.wprefix(rk, "print"), rng.randint(0, 9999), rng.randint(1000, 99999))

        def grow(ci, upto):
            """Chunk ci built past upto bytes, or whole."""
            while len(chunks) <= ci:
                if chunks:
                    grow(len(chunks) - 1, target)
                chunks.append([[], 0, len(chunks) * 20000])
            ch = chunks[ci]
            while ch[1] < target and ch[1] <= upto:
                ch[2] += 1
                s = line(ch[2], ci)
                ch[0].append(s + eol)
                ch[1] += len(s) + len(eol)

        left = self.noise_bytes
        i = 0
        while left > 0:
            ci = i % 8
            grow(ci, left)
            c = "".join(chunks[ci][0]).encode("utf-8")
            if len(c) > left:
                cut = c.rfind(b"\n", 0, left)
                if cut < 0:
                    break
                c = c[:cut + 1]
            f.flush()
            f.buffer.write(c) if hasattr(f, "buffer") else f.write(c.decode())
            left -= len(c)
            i += 1


# ----------------------------------------------------------------------------

def make_one(seed, out, truth_path=None, **kw):
    sc = Scenario(seed, **kw)
    sc.run()
    return sc.write(out, truth_path)


def suite_noise(seed, i, cls, noise):
    """The noise kinds of case i: 'none', an explicit list (each where it applies), or
    'mixed': a quarter of the cases clean, the rest one to three ride-along kinds, and
    the class-shaping kinds in most cases of their class.  Drawn from a stream of its own
    so the rest of the case does not depend on it."""
    if noise == "none":
        return []
    if noise != "mixed":
        return [k for k in noise.split(",") if k and noise_applies(k, cls)]
    nr = random.Random("suite-noise/%d/%d" % (seed, i))
    kinds = []
    if nr.random() >= 0.25:
        ride = [k for k in NOISE_KINDS if k not in CLASS_NOISE and noise_applies(k, cls)]
        kinds = nr.sample(ride, min(len(ride), nr.choice([1, 1, 2, 2, 3])))
    for k, c in CLASS_NOISE.items():
        if c == cls and nr.random() < 0.7:
            kinds.append(k)
    return sorted(kinds)


def suite(count, seed, out, truth_dir=None, quiet=False, skew_max=None, drift_ppm=None, noise="mixed"):
    master = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    order = []
    while len(order) < count:
        blk = CLASSES[:]
        master.shuffle(blk)
        order += blk
    order = order[:count]
    prefixes = ["label", "torchrun", "mixed", "none"]
    ncclm = ["inline", "files", "none", "inline", "files"]
    t_a = time.time()
    index = []
    for i, cls in enumerate(order):
        # each case depends only on (seed, i): a shorter suite is a prefix of a longer one
        crng = random.Random("%d/%d" % (seed, i))
        cs = crng.getrandbits(31)
        kw = {"cls": cls, "prefix": prefixes[i % 4], "nccl": ncclm[(i // 4) % 5]}
        # a few large jobs, cheap in bytes (kill-on-bad-exit teardown keeps them short)
        if i % 97 == 41:
            kw["ranks"] = [512, 1024, 4096][(i // 97) % 3]
            kw["nccl"] = "inline"
        elif i % 23 == 5:
            kw["ranks"] = crng.choice([96, 128, 256])
        else:
            kw["ranks"] = crng.choice([2, 4, 8, 8, 16, 16, 16, 24, 32, 32, 48, 64])
        kw["skew_max"] = [0.0, 0.5, 5.0, 30.0, 60.0][i % 5] if skew_max is None else skew_max
        kw["drift_ppm"] = [0.0, 10.0, 50.0][i % 3] if drift_ppm is None else drift_ppm
        if i % 50 == 7:
            kw["noise_bytes"] = 2_000_000
        elif i % 5 == 2:
            kw["noise_bytes"] = crng.randint(1000, 100000)
        kw["noise"] = suite_noise(seed, i, cls, noise)
        name = "case-%03d" % i
        tp = os.path.join(truth_dir, name, "truth.json") if truth_dir else None
        sc = Scenario(cs, **kw)
        if sc.nranks >= 512:
            sc.kill_on_bad_exit = True
        sc.run()
        sc.write(os.path.join(out, name), tp)
        index.append({"case": name, "seed": cs, "class": cls, "ranks": sc.nranks, "noise": sc.noise})
        if not quiet and (i + 1) % 50 == 0:
            sys.stderr.write("suite: %d/%d cases (%.1fs)\n" % (i + 1, count, time.time() - t_a))
    if truth_dir:
        with open(os.path.join(truth_dir, "index.json"), "w") as f:
            json.dump(index, f, indent=0)
    return index


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "suite":
        ap = argparse.ArgumentParser(prog="denpex_sim.py suite")
        ap.add_argument("--count", type=int, default=300)
        ap.add_argument("--seed", type=int, default=1)
        ap.add_argument("--out", required=True)
        ap.add_argument("--truth-dir", default=None, help="write truth per case under TDIR/<case>/truth.json instead of inside the bundle")
        ap.add_argument("--quiet", action="store_true")
        ap.add_argument("--skew-max", type=float, default=None, help="every case: node clock offsets up to this many seconds")
        ap.add_argument("--drift-ppm", type=float, default=None, help="every case: clock drift up to this many ppm")
        ap.add_argument("--noise", default="mixed", help="mixed (default), none, or a comma list of: " + ", ".join(NOISE_KINDS))
        a = ap.parse_args(argv[1:])
        if a.noise not in ("mixed", "none"):
            bad = [k for k in a.noise.split(",") if k not in NOISE_KINDS]
            if bad:
                ap.error("unknown noise kind %r (choose from %s)" % (bad[0], ", ".join(NOISE_KINDS)))
        suite(a.count, a.seed, a.out, a.truth_dir, a.quiet, a.skew_max, a.drift_ppm, a.noise)
        return 0
    ap = argparse.ArgumentParser(prog="denpex_sim.py", description="write one failed-job bundle with ground truth")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--class", dest="cls", choices=CLASSES)
    ap.add_argument("--ranks", type=int)
    ap.add_argument("--skew-max", type=float)
    ap.add_argument("--drift-ppm", type=float)
    ap.add_argument("--noise-bytes", type=int, default=0)
    ap.add_argument("--prefix", choices=["label", "torchrun", "mixed", "none"])
    ap.add_argument("--nccl", choices=["inline", "files", "none"])
    ap.add_argument("--variant", help="class-specific variant: collective_hang silent|mismatch|ambiguous; launch_failure eaddrinuse|nccl_init|import_all|import_one|rendezvous")
    ap.add_argument("--kill-on-bad-exit", choices=["yes", "no"])
    ap.add_argument("--noise", default="", help="comma list of noise kinds: " + ", ".join(NOISE_KINDS))
    ap.add_argument("--truth", help="where to write truth.json (default OUT/truth.json)")
    a = ap.parse_args(argv)
    if a.ranks is not None and not (2 <= a.ranks <= 4096):
        ap.error("--ranks must be 2..4096")
    sc = Scenario(a.seed, cls=a.cls, ranks=a.ranks, skew_max=a.skew_max, drift_ppm=a.drift_ppm,
                  noise_bytes=a.noise_bytes, prefix=a.prefix, nccl=a.nccl, variant=a.variant,
                  noise=[k for k in a.noise.split(",") if k])
    if a.kill_on_bad_exit:
        sc.kill_on_bad_exit = a.kill_on_bad_exit == "yes"
    elif sc.nranks >= 512:
        sc.kill_on_bad_exit = True
    sc.run()
    t = sc.write(a.out, a.truth)
    sys.stdout.write("%s: class=%s first_rank=%s victims=%d\n" % (a.out, t["class"], t["first_rank"], len(t["victims"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
