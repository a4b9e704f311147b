#!/usr/bin/env python3
# An independent scenario simulator (issue 11).
#
#   independent_sim.py suite --seed N --count K --out BDIR --truth-dir TDIR [--quiet]
#
# Written without reading tests/sim/denpex_sim.py, libdiag/ or conf/signatures/: the
# line shapes come from ../shared/FORMATS.md, DESIGN.md and public issue threads
# (PyTorch, NCCL, torchrun, DeepSpeed, Slurm, kernel), several variants per fact, so
# that the engine is measured on logs that do not share its authors' blind spots.
#
# BDIR/<case>/ holds what a user or the epilog would have: the job's output as one
# file, per-node or per-task files; optional kernel logs (dmesg -T, journalctl -k
# short-iso, syslog); optional `sacct -P` text.  TDIR/<case>/truth.json holds
# {"class", "first_rank", "first_host", "noise", "victims", "notes"} as
# tests/sim/score.py reads it.  The truth follows DESIGN.md: first_rank null where the
# files do not single a rank out (time limit, cancel, node failure, a uniform hang, a
# rank the logs never name); first_host null where no file ties the fault to a host.
#
# python3 standard library only.

import argparse
import json
import os
import random
import sys
from datetime import datetime, timedelta, timezone

UTC = timezone.utc
MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
BUSES = [["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"],
         ["1b000", "43000", "52000", "61000", "9d000", "c3000", "d1000", "df000"],
         ["4000", "8000", "c000", "10000", "84000", "88000", "8c000", "90000"]]


# ---------------------------------------------------------------- time shapes

def dt(t):
    return datetime.fromtimestamp(t, UTC)


def ts_glog(t, sev="E"):
    d = dt(t)
    return "%s%02d%02d %02d:%02d:%02d.%06d" % (sev, d.month, d.day, d.hour, d.minute, d.second, d.microsecond)


def ts_glog_ns(t, sev="E"):
    return ts_glog(t, sev) + "%03d" % (int(t * 1e9) % 1000)


def ts_py(t):
    d = dt(t)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def ts_iso(t):
    d = dt(t)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % d.microsecond


def ts_sec(t):
    return dt(t).strftime("%Y-%m-%d %H:%M:%S")


def ts_slurm(t):
    return dt(t).strftime("%Y-%m-%dT%H:%M:%S")


def ts_dmesg_T(t):
    d = dt(t)
    return "[%s %s %2d %02d:%02d:%02d %d]" % (DOW[d.weekday()], MON[d.month - 1], d.day, d.hour, d.minute,
                                             d.second, d.year)


def ts_journal(t):
    return dt(t).strftime("%Y-%m-%dT%H:%M:%S") + "+0000"


def ts_syslog(t):
    d = dt(t)
    return "%s %2d %02d:%02d:%02d" % (MON[d.month - 1], d.day, d.hour, d.minute, d.second)


def ts_torchrun(t):
    return dt(t).strftime("%Y-%m-%d_%H:%M:%S")


# ---------------------------------------------------------------- the job

class Job:
    def __init__(self, rng, case):
        self.rng = rng
        self.case = case
        self.nhosts = rng.choice([1, 1, 2, 2, 2, 3, 4, 4, 6, 8])
        per_choices = [p for p in (1, 2, 4, 8) if 2 <= p * self.nhosts <= 64]
        if self.nhosts == 1:
            per_choices = [2, 4, 8]
        self.per = rng.choice(per_choices)
        self.n = self.nhosts * self.per
        style = rng.randrange(5)
        base = rng.randrange(1, 90)
        if style == 0:
            self.hosts = ["node%02d" % (base + i) for i in range(self.nhosts)]
        elif style == 1:
            self.hosts = ["gpu-a%d-%03d" % (rng.randrange(1, 9), base * 3 + i) for i in range(self.nhosts)]
        elif style == 2:
            self.hosts = ["dgx%d" % (base + i) for i in range(self.nhosts)]
        elif style == 3:
            self.hosts = ["compute-%d-%d" % (rng.randrange(0, 4), base + i) for i in range(self.nhosts)]
        else:
            self.hosts = ["hpc%04d" % (base * 11 + i) for i in range(self.nhosts)]
        rng.shuffle(self.hosts) if rng.random() < 0.15 else None
        self.jobid = str(rng.randrange(10000, 9999999))
        self.uid = rng.randrange(1000, 60000)
        self.start = datetime(2026, rng.randrange(1, 12), rng.randrange(1, 28), rng.randrange(0, 24),
                              rng.randrange(0, 60), rng.randrange(0, 60), tzinfo=UTC).timestamp()
        # host clock offsets (seconds, the host's clock minus true time)
        self.off = [0.0] * self.nhosts
        self.boot = [self.start - rng.uniform(5 * 86400, 60 * 86400) for _ in range(self.nhosts)]
        self.skewed = False
        for h in range(1, self.nhosts):
            if rng.random() < 0.5:
                self.off[h] = rng.choice([rng.uniform(-6, 6), rng.uniform(-40, 40)])
                if abs(self.off[h]) > 2:
                    self.skewed = True
        buses = rng.choice(BUSES)
        self.bus = [buses[r % self.per] if self.per <= 8 else buses[0] for r in range(self.n)]
        pid0 = rng.randrange(2000, 400000)
        self.pid = [pid0 + 7 * r + rng.randrange(0, 3) for r in range(self.n)]
        self.agent_pid = [pid0 - 40 - h for h in range(self.nhosts)]
        self.ip = ["10.%d.%d.%d" % (rng.randrange(0, 255), rng.randrange(0, 255), 10 + h) for h in range(self.nhosts)]
        self.commid = "0x%016x" % rng.getrandbits(64)
        self.torch_new = rng.random() < 0.7     # [rankR]: + glog with ns, new watchdog wording
        self.wd_new = self.torch_new and rng.random() < 0.7
        self.known_host_ranks = set()   # ranks whose host some file names
        self.nccl_ver = rng.choice(["2.18.5", "2.19.3", "2.20.5", "2.21.5", "2.23.4", "2.26.2", "2.27.3"])
        self.timeout_ms = rng.choice([600000, 600000, 1800000, 300000, 120000])
        self.script = rng.choice(["train.py", "pretrain_gpt.py", "main.py", "run_clm.py", "finetune.py",
                                  "src/train_net.py"])
        self.py = rng.choice(["/opt/conda/lib/python3.10", "/usr/lib/python3.11", "/home/u/.venv/lib/python3.12",
                              "/usr/local/lib/python3.10"])
        self.events = []   # (true_time, seq, host, rank, text)  rank None: host-level line
        self.seq = 0
        self.kern = [[] for _ in range(self.nhosts)]   # (true_time, text)
        self.noise = set()
        self.notes = []

    def host_of(self, r):
        return r // self.per

    def local(self, r):
        return r % self.per

    def htime(self, t, h):
        return t + self.off[h]

    def emit(self, t, r, text, host=None):
        h = self.host_of(r) if r is not None else (host if host is not None else 0)
        self.seq += 1
        self.events.append((t, self.seq, h, r, text))

    def emit_lines(self, t, r, lines, host=None, gap=0.0005):
        for i, l in enumerate(lines):
            self.emit(t + i * gap, r, l, host)

    def kernel(self, h, t, text):
        self.kern[h].append((t, text))


# ---------------------------------------------------------------- line families

def nccl_init_lines(job, t):
    rng = job.rng
    out = []
    for r in range(job.n):
        h = job.host_of(r)
        ht = job.htime(t, h)
        l = job.local(r)
        tid = job.pid[r] + rng.randrange(40, 90)
        if rng.random() < 0.5:
            txt = "%s:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (
                job.hosts[h], job.pid[r], tid, l, 0x55d000000 + r * 4096, r, job.n, l, l, job.bus[r], job.commid)
        else:
            txt = "%s:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d busId %s - Init COMPLETE" % (
                job.hosts[h], job.pid[r], tid, l, 0x7f0000000 + r * 4096, r, job.n, l, job.bus[r])
        out.append((ht, r, txt))
    for ht, r, txt in out:
        job.emit(t + rng.uniform(0, 0.3), r, txt)


def nccl_banner(job, t):
    # version banner and benign plugin noise from rank 0's host
    r = 0
    h = 0
    tid = job.pid[r] + 3
    job.emit(t, r, "%s:%d:%d [0] NCCL INFO NCCL version %s+cuda12.%d" % (job.hosts[h], job.pid[r], tid, job.nccl_ver,
                                                                       job.rng.choice([1, 2, 4, 8])))


def benign_noise(job, t):
    rng = job.rng
    job.noise.add("benign_warn")
    for _ in range(rng.randrange(1, 4)):
        r = rng.randrange(job.n)
        h = job.host_of(r)
        k = rng.randrange(7)
        host = job.hosts[h]
        if k == 0:
            job.emit(t, r, "%s:%d:%d [%d] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin." % (
                host, job.pid[r], job.pid[r] + 5, job.local(r)))
        elif k == 1:
            job.emit(t, r, "%s:%d:%d [%d] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % (
                host, job.pid[r], job.pid[r] + 5, job.local(r)))
        elif k == 2:
            job.emit(t, None, "slurmstepd: error: couldn't chdir to `/home/u%d/runs': No such file or directory: going to /tmp instead" % job.uid, host=h)
        elif k == 3:
            job.emit(t, r, "%s/site-packages/torch/utils/checkpoint.py:91: UserWarning: None of the inputs have requires_grad=True. Gradients will be None" % job.py)
        elif k == 4:
            job.emit(t, r, "%s/site-packages/transformers/training_args.py:1545: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of Transformers. Use `eval_strategy` instead" % job.py)
        elif k == 5:
            job.emit(t, r, "%s:%d:%d [%d] NCCL INFO NCCL_IB_DISABLE set by environment to 0." % (host, job.pid[r], job.pid[r] + 5, job.local(r)))
        else:
            job.emit(t, r, "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). Retrying on 0.0.0.0.")
    if rng.random() < 0.6:
        for h in range(job.nhosts):
            if rng.random() < 0.7:
                job.kernel(h, job.start - rng.uniform(3600, 86400 * 3), "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing")
                job.kernel(h, job.start + rng.uniform(1, 30), "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024"
                           if rng.random() < 0.3 else "nvidia-nvswitch%d: open (major=508)" % rng.randrange(4))


def progress(job, t0, t1, ranks=None, step0=None, every=None):
    """Progress lines from t0 to t1 (true time). Returns the last step printed."""
    rng = job.rng
    job.noise.add("progress")
    step = step0 if step0 is not None else rng.randrange(10, 40000)
    every = every or rng.uniform(20, 240)
    style = job.progress_style
    t = t0
    who = ranks if ranks is not None else [0]
    tot = rng.randrange(step + 500, step + 90000)
    while t < t1:
        loss = 1.5 + 3.0 * rng.random() * 0.2 + 6.0 / (1 + step / 1000.0)
        for r in who:
            if style == 0:
                txt = "step %d | loss %.4f | lr %.2e | %.1f TFLOPS" % (step, loss, 3e-4, rng.uniform(300, 450))
            elif style == 1:
                txt = "%s - INFO - __main__ - {'loss': %.4f, 'grad_norm': %.3f, 'learning_rate': %.3e, 'epoch': %.2f}" % (
                    ts_py(job.htime(t, job.host_of(r))), loss, rng.uniform(0.2, 3), 2e-5, step / 3000.0)
            elif style == 2:
                txt = " iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | lm loss: %.6E | loss scale: %.1f | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (
                    step, tot, step * 512, rng.uniform(800, 1400), 1.5e-4, loss, 65536.0, rng.uniform(0.1, 2))
            elif style == 3:
                pct = 100 * step // tot
                txt = "%3d%%|%s| %d/%d [%02d:%02d:%02d<%02d:%02d:%02d, %.2fit/s]" % (
                    pct, "#" * (pct // 10) + " " * (10 - pct // 10), step, tot, 1, 2, 3, 4, 5, 6, rng.uniform(0.5, 3))
            else:
                txt = "[%s] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6f], mom=[(0.9, 0.95)]" % (
                    ts_py(job.htime(t, job.host_of(r))), step, 0.0003)
            job.emit(t, r, txt)
        step += rng.choice([1, 1, 10, 50]) if style != 3 else 1
        t += every * rng.uniform(0.8, 1.2)
    return step


def rank_tag(job, r):
    """How a rank names itself inside a message (no launcher prefix)."""
    return job.rng.choice(["[rank %d]" % r, "[RANK %d]" % r, "rank %d:" % r, "[Rank %d]" % r, "rank=%d" % r,
                           "[rank: %d]" % r, "RANK %d" % r, "(rank %d/%d)" % (r, job.n)])


def traceback_lines(job, frames, final, chained=None):
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        out.append("    " + code)
    out.append(final)
    if chained:
        out = chained + ["", "The above exception was the direct cause of the following exception:", ""] + out
    return out


def train_frames(job, last):
    s = job.script
    fr = [(s, job.rng.randrange(300, 900), "<module>", "main()"),
          (s, job.rng.randrange(100, 299), "main", "trainer.train()"),
          (s, job.rng.randrange(50, 99), "train_step", "loss = model(batch)")]
    return fr + last


def glog_prefix(job, r, t, sev="E", where="ProcessGroupNCCL.cpp:1575"):
    h = job.host_of(r)
    if job.torch_new:
        return "[%s %s] " % (ts_glog_ns(job.htime(t, h), sev), where)
    return "[%s %s] " % (sev, where.split(":")[0] + ":" + str(job.rng.choice([475, 737, 821, 1182])))


def watchdog_timeout(job, r, t, seq, optype="ALLREDUCE", numel=None):
    numel = numel or job.numel
    ms = job.timeout_ms + job.rng.randrange(5, 400)
    if job.wd_new:
        lines = [glog_prefix(job, r, t, "E", "ProcessGroupNCCL.cpp:%d" % job.rng.choice([616, 632, 1575])) +
                 "[Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
                     r, seq, optype, numel, numel, job.timeout_ms, ms)]
        if job.rng.random() < 0.5:
            lines.append(glog_prefix(job, r, t + 0.01, "E", "ProcessGroupNCCL.cpp:1664") +
                         "[PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (
                             r, seq, seq + job.rng.choice([0, 0, 1]), seq - 1))
        if job.rng.random() < 0.4:
            lines.append(glog_prefix(job, r, t + 0.02, "E", "ProcessGroupNCCL.cpp:1681") +
                         "[PG ID 0 PG GUID 0(default_pg) Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (
                             r, seq, seq, seq - 1))
    else:
        lines = [glog_prefix(job, r, t, "E", "ProcessGroupNCCL.cpp:737") +
                 "[Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
                     r, seq, optype, job.timeout_ms, ms)]
    return lines


def watchdog_abort(job, r, t, seq, optype="ALLREDUCE"):
    lines = [glog_prefix(job, r, t, "E", "ProcessGroupNCCL.cpp:577") +
             "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % r,
             glog_prefix(job, r, t + 0.001, "E", "ProcessGroupNCCL.cpp:583") +
             "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % r]
    if job.rng.random() < 0.6:
        lines += ["terminate called after throwing an instance of 'c10::DistBackendError'",
                  "  what():  [PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
                      r, r, seq, optype, job.numel, job.numel, job.timeout_ms, job.timeout_ms + 60),
                  "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent call first):",
                  "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f%010x in %s/site-packages/torch/lib/libc10.so)" % (
                      job.rng.getrandbits(36), job.py),
                  "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f%010x in %s/site-packages/torch/lib/libtorch_cuda.so)" % (
                      job.rng.getrandbits(36), job.py),
                  ""]
    return lines


def remote_error_lines(job, r, t, peer):
    """A victim that sees its peer vanish: ncclRemoteError / socket / IB retry."""
    rng = job.rng
    h = job.host_of(r)
    ph = job.host_of(peer)
    k = rng.randrange(4)
    nh = job.hosts[h]
    if k == 0:
        return traceback_lines(job, train_frames(job, [(job.py + "/site-packages/torch/distributed/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
                                                        (job.py + "/site-packages/torch/distributed/distributed_c10d.py", 2501, "all_reduce", "work = group.allreduce([tensor], opts)")]),
                               "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version %s" % job.nccl_ver) + [
            "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
            "Last error:",
            "socketProgress: Connection closed by remote peer %s<%d>" % (job.hosts[ph], rng.randrange(30000, 60000))]
    if k == 1:
        return ["", "[%s] %s:%d:%d [%d] misc/socket.cc:%d NCCL WARN socketProgress: Connection closed by remote peer %s<%d>" % (
            ts_sec(job.htime(t, h)), nh, job.pid[r], job.pid[r] + 33, job.local(r), rng.choice([47, 51, 560]),
            job.ip[ph], rng.randrange(30000, 60000)),
            "%s:%d:%d [%d] NCCL INFO misc/socket.cc:752 -> 6" % (nh, job.pid[r], job.pid[r] + 33, job.local(r)),
            "%s:%d:%d [%d] NCCL INFO transport/net_socket.cc:474 -> 6" % (nh, job.pid[r], job.pid[r] + 33, job.local(r))]
    if k == 2:
        return [glog_prefix(job, r, t, "E", "ProcessGroupNCCL.cpp:1895") +
                "[PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (r, job.nccl_ver),
                "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
                "Last error:",
                "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Recv)" % (
                    job.ip[ph], rng.randrange(30000, 60000), rng.choice([0, 1, 129])),
                "terminate called after throwing an instance of 'c10::DistBackendError'"]
    return traceback_lines(job, train_frames(job, [(job.py + "/site-packages/torch/distributed/distributed_c10d.py", 1905, "barrier", "work = default_pg.barrier(opts=opts)")]),
                           "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [%s]:%d" % (
                               job.ip[ph], rng.randrange(2000, 60000)))


def sigterm_agent_lines(job, h, t, ranks):
    out = []
    for r in ranks:
        if job.torch_new:
            out.append("W%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (
                ts_glog(job.htime(t, h), "")[0:], job.agent_pid[h], job.pid[r]))
        else:
            out.append("WARNING:torch.distributed.elastic.multiprocessing.api:Sending process %d closing signal SIGTERM" % job.pid[r])
    return out


def child_failed_block(job, h, t, failures):
    """torchrun's per-node summary. failures: list of (rank, exitcode, time, has_file, msg)."""
    # Root cause = min timestamp (whole seconds), ties -> first listed (lowest local rank)
    fs = sorted(failures, key=lambda f: job.local(f[0]))
    root = min(fs, key=lambda f: int(f[2]))
    others = [f for f in fs if f is not root]
    out = []
    r0 = root[0]
    if job.torch_new:
        out.append("E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (
            ts_glog(job.htime(t, h), "")[0:], job.agent_pid[h], root[1], job.local(r0), job.pid[r0]))
    else:
        out.append("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (
            root[1], job.local(r0), job.pid[r0]))
    out += ["Traceback (most recent call last):",
            '  File "/usr/local/bin/torchrun", line 8, in <module>',
            "    sys.exit(main())",
            '  File "%s/site-packages/torch/distributed/launcher/api.py", line 263, in launch_agent' % job.py,
            "    raise ChildFailedError(",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "============================================================",
            "%s FAILED" % job.script,
            "------------------------------------------------------------",
            "Failures:"]

    def entry(i, f):
        r, code, ft, has_file, msg = f
        tb = msg if has_file else ("Signal %d (%s) received by PID %d" % (-code, {9: "SIGKILL", 15: "SIGTERM", 6: "SIGABRT", 11: "SIGSEGV", 7: "SIGBUS"}.get(-code, "SIG"), job.pid[r])
                                   if code < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
        return ["[%d]:" % i,
                "  time      : %s" % ts_torchrun(job.htime(ft, h)),
                "  host      : %s" % job.hosts[h],
                "  rank      : %d (local_rank: %d)" % (r, job.local(r)),
                "  exitcode  : %d (pid: %d)" % (code, job.pid[r]),
                "  error_file: %s" % ("/tmp/torchelastic_%s/none_x/attempt_0/%d/error.json" % (job.jobid[-4:], job.local(r)) if has_file else "<N/A>"),
                "  traceback : %s" % tb]
    if not others:
        out.append("  <NO_OTHER_FAILURES>")
    for i, f in enumerate(others):
        out += entry(i + 1, f)
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    out += entry(0, root)
    out.append("============================================================")
    job.known_host_ranks.update(f[0] for f in fs)
    return out, root[0]


def slurm_banner(job, t, what):
    h = 0
    ht = job.htime(t, h)
    if what == "cancel":
        if job.rng.random() < 0.5:
            return "slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s ***" % (job.jobid, job.hosts[h], ts_slurm(ht))
        return "slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s DUE to SIGNAL Terminated ***" % (job.jobid, job.hosts[h], ts_slurm(ht))
    ent = job.rng.choice(["JOB %s" % job.jobid, "STEP %s.0" % job.jobid])
    return "slurmstepd: error: *** %s ON %s CANCELLED AT %s DUE TO %s ***" % (ent, job.hosts[h], ts_slurm(ht), what)


# ---------------------------------------------------------------- layout / rendering

def render(job, outdir):
    """Write the job's output files under outdir. Returns a dict of facts about the layout."""
    rng = job.rng
    lay = job.layout
    files = {}
    evs = sorted(job.events, key=lambda e: (e[0], e[1]))
    # a real pipe reorders a little: adjacent lines of different ranks within 50 ms swap
    if job.interleave:
        job.noise.add("interleave")
        for i in range(len(evs) - 1):
            a, b = evs[i], evs[i + 1]
            if a[3] != b[3] and abs(a[0] - b[0]) < 0.05 and rng.random() < 0.5:
                evs[i], evs[i + 1] = b, a

    # a progress bar redrawn with \r and never ended: the next error line of that rank is glued to it
    if rng.random() < 0.15:
        job.noise.add("tqdm_glue")
        cand = [i for i, e in enumerate(evs) if e[3] is not None and ("Watchdog caught" in e[4] or e[4].startswith("Traceback"))]
        for i in rng.sample(cand, min(len(cand), rng.randrange(1, 4))):
            t, q, h, r, text = evs[i]
            n = rng.randrange(5, 900)
            tot = n + rng.randrange(1, 900)
            evs[i] = (t, q, h, r, "%3d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %.2fs/it]" % (
                100 * n // tot, "#" * (10 * n // tot), n, tot, rng.randrange(60), rng.randrange(60),
                rng.randrange(60), rng.randrange(60), rng.uniform(1, 9)) + text)

    def prefix(h, r, t):
        if lay == "shipper":             # a log shipper (Determined-like): its own stamp, trial id, rank
            return "[%s] %s %s|| " % (ts_iso(job.htime(t, h)), job.trial, "[rank=%d] " % r if r is not None else "")
        if lay == "srun_torchrun":       # srun one task per node, torchrun [rankR]:
            p = "%d: " % h if job.srun_label else ""
            return p + ("[rank%d]:" % r if r is not None else "")
        if lay == "srun_ranks":          # srun one task per rank, task id = rank
            return ("%d: " % r) if r is not None else ""
        if lay == "tee":                 # single-node torchrun --tee 3: [defaultL]: (L local = global here)
            return ("[default%d]:" % job.local(r)) if r is not None else ""
        if lay == "pdsh":                # DeepSpeed/pdsh host prefix; [rankR]: or [defaultL]:
            hp = job.hosts[h] + ": "
            if r is None:
                return hp
            return hp + ("[rank%d]:" % r if job.ds_global else "[default%d]:" % job.local(r))
        return ""

    if lay in ("srun_torchrun", "srun_ranks", "pdsh", "plain", "tee", "shipper"):
        name = rng.choice(["slurm-%s.out" % job.jobid, "job.out", "train_%s.log" % job.jobid, "stdout.txt"])
        lines = []
        for t, _, h, r, text in evs:
            if h in job.dead_hosts_drop:
                continue
            lines.append(prefix(h, r, t) + text)
        files[name] = lines
    elif lay == "per_task":
        # srun -o %x-%j-%t.out: one file per task (= global rank)
        for r in range(job.n):
            files["%s-%s-%d.out" % (job.jobname, job.jobid, r)] = []
        files["%s-%s-batch.out" % (job.jobname, job.jobid)] = []
        for t, _, h, r, text in evs:
            if h in job.dead_hosts_drop:
                continue
            if r is None:
                files["%s-%s-batch.out" % (job.jobname, job.jobid)].append(text)
            else:
                files["%s-%s-%d.out" % (job.jobname, job.jobid, r)].append(text)
    elif lay == "per_node":
        # one file per node: torchrun under srun -o %N.out, [rankR]: prefixes
        for h in range(job.nhosts):
            files["%s.%s.log" % (job.jobid, job.hosts[h])] = []
        for t, _, h, r, text in evs:
            if h in job.dead_hosts_drop:
                continue
            files["%s.%s.log" % (job.jobid, job.hosts[h])].append(("[rank%d]:" % r if r is not None else "") + text)

    for name, lines in files.items():
        if not lines:
            continue
        data = "\n".join(lines) + "\n"
        if job.ansi and name.endswith((".out", ".log")):
            data = data.replace("Traceback (most recent call last):", "\x1b[31mTraceback (most recent call last):\x1b[0m")
        if job.crlf:
            data = data.replace("\n", "\r\n")
        if name in job.truncate_files or (job.truncate_any and rng.random() < 0.3):
            cut = max(1, len(data) - rng.randrange(5, 60))
            data = data[:cut]
            if rng.random() < 0.4:
                data += "\x00" * rng.randrange(1, 300)     # the page the crashed writer never filled
            job.noise.add("truncated")
        with open(os.path.join(outdir, name), "w", encoding="utf-8", newline="") as f:
            f.write(data)

    # kernel logs
    for h in range(job.nhosts):
        if not job.kern[h] or h in job.kern_missing:
            continue
        style = rng.randrange(3)
        ks = sorted(job.kern[h])
        if style == 0:
            name = "dmesg.%s.txt" % job.hosts[h]
            lines = ["%s %s" % (ts_dmesg_T(job.htime(t, h)), x) for t, x in ks]
        elif style == 1:
            name = "kern.%s.log" % job.hosts[h]
            lines = ["%s %s kernel: %s" % (ts_journal(job.htime(t, h)), job.hosts[h], x) for t, x in ks]
        else:
            name = "syslog.%s" % job.hosts[h]
            lines = ["%s %s kernel: [%12.6f] %s" % (ts_syslog(job.htime(t, h)), job.hosts[h], t - job.boot[h], x) for t, x in ks]
        with open(os.path.join(outdir, name), "w") as f:
            f.write("\n".join(lines) + "\n")

    if job.sacct:
        st, ec = job.sacct
        end = max([job.end] + [e[0] + 5 for e in job.events])
        nodelist = job.hosts[0] if job.nhosts == 1 else ",".join(job.hosts)
        rows = ["JobID|JobName|State|ExitCode|DerivedExitCode|Start|End|NodeList",
                "%s|%s|%s|%s|0:0|%s|%s|%s" % (job.jobid, job.jobname, st, ec, ts_slurm(job.start), ts_slurm(end), nodelist),
                "%s.batch|batch|%s|%s||%s|%s|%s" % (job.jobid, job.sacct_batch or st, ec, ts_slurm(job.start), ts_slurm(end), job.hosts[0]),
                "%s.0|%s|%s|%s||%s|%s|%s" % (job.jobid, job.stepname, job.sacct_step or st, ec, ts_slurm(job.start + 2), ts_slurm(end), nodelist)]
        with open(os.path.join(outdir, "sacct.txt"), "w") as f:
            f.write("\n".join(rows) + "\n")


# ---------------------------------------------------------------- scenario scaffolding

def setup(job):
    rng = job.rng
    lay_choices = ["srun_torchrun"] * 4 + ["srun_ranks"] * 2 + ["pdsh"] * 2 + ["per_task", "per_node", "shipper"]
    if job.nhosts == 1:
        lay_choices += ["plain"] * 3 + ["tee"] * 2
    job.layout = rng.choice(lay_choices)
    job.srun_label = job.nhosts > 1 or rng.random() < 0.5
    job.ds_global = rng.random() < 0.6
    job.torchrun = job.layout in ("srun_torchrun", "pdsh", "per_node", "plain", "tee", "shipper")
    job.trial = "%08x" % rng.getrandbits(32)
    job.deepspeed = job.layout == "pdsh"
    job.jobname = rng.choice(["pretrain", "sft-7b", "llama3-70b", "vit-h", "moe", "rlhf"])
    job.stepname = "deepspeed" if job.deepspeed else ("torchrun" if job.torchrun else "python3")
    job.interleave = rng.random() < 0.4
    job.ansi = rng.random() < 0.08
    job.crlf = rng.random() < 0.05
    if job.ansi:
        job.noise.add("ansi")
    if job.crlf:
        job.noise.add("crlf")
    job.truncate_files = set()
    job.truncate_any = False
    job.dead_hosts_drop = set()
    job.kern_missing = set()
    job.sacct = None
    job.sacct_batch = None
    job.sacct_step = None
    job.numel = rng.choice([262144, 1048576, 4194304, 131072000, 2359296])
    job.progress_style = rng.randrange(5)
    # does some file tie ranks to hosts?  NCCL INIT lines (host:pid ... rank R), pdsh host
    # prefixes, per-node files named by host.
    job.init_lines = rng.random() < 0.65 or job.layout == "pdsh" and not job.ds_global
    if job.layout in ("pdsh", "per_node"):
        job.rank_hosts = True
    elif job.nhosts == 1 and job.layout == "plain":
        job.rank_hosts = job.init_lines
    else:
        job.rank_hosts = job.init_lines
    # can the logs name each rank's lines?  plain (no prefix) and [defaultL] without init lines
    # cannot, except where a message names its rank.
    if job.layout == "plain":
        job.ranks_visible = False
    elif job.layout == "pdsh" and not job.ds_global:
        job.ranks_visible = job.init_lines and True  # host + local -> rank via INIT (host, cudaDev, rank)
        job.init_lines = True
        job.ranks_visible = True
    else:
        job.ranks_visible = True
    t = job.start + rng.uniform(5, 40)
    nccl_banner(job, t)
    if job.init_lines:
        nccl_init_lines(job, t + rng.uniform(2, 20))
    if rng.random() < 0.75:
        benign_noise(job, t + rng.uniform(0, 60))
    return t + 60


def add_survived_oom(job, t, r):
    """A CUDA OOM the job caught and lived through (context, not cause)."""
    rng = job.rng
    job.noise.add("survived_oom")
    tag = rank_tag(job, r) if not job.ranks_visible else ""
    lines = [("%s - WARNING - trainer - %s OOM at step %d (batch %d), skipping batch and emptying cache; retrying" % (
        ts_py(job.htime(t, job.host_of(r))), tag, rng.randrange(100, 50000), rng.randrange(8, 128))).replace("  ", " ")]
    lines += traceback_lines(job, train_frames(job, [(job.py + "/site-packages/torch/nn/modules/module.py", 1553, "_call_impl", "return forward_call(*args, **kwargs)")]),
                             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of 79.10 GiB of which %.2f MiB is free. Process %d has 78.9 GiB memory in use." % (
                                 rng.uniform(0.5, 8), job.local(r), rng.uniform(10, 500), job.pid[r]))
    lines.append("%s - INFO - trainer - %s recovered from OOM, continuing" % (ts_py(job.htime(t + 0.5, job.host_of(r))), tag) if rng.random() < 0.5
                 else "%s - WARNING - trainer - skipped 1 batch due to OOM" % ts_py(job.htime(t + 0.5, job.host_of(r))))
    job.emit_lines(t, r, lines)


def add_caught_traceback(job, t, r):
    rng = job.rng
    job.noise.add("caught_traceback")
    h = job.host_of(r)
    k = rng.randrange(3)
    if k == 0:
        lines = ["%s - WARNING - data - could not decode sample %d, skipping:" % (ts_py(job.htime(t, h)), rng.randrange(10 ** 6))] + \
            traceback_lines(job, [("data/dataset.py", 88, "__getitem__", "img = Image.open(path)")], "PIL.UnidentifiedImageError: cannot identify image file '/data/shard-%05d/%d.jpg'" % (rng.randrange(999), rng.randrange(10 ** 5)))
    elif k == 1:
        lines = ["%s - ERROR - wandb - failed to upload metrics, will retry (1/5)" % ts_py(job.htime(t, h))] + \
            traceback_lines(job, [(job.py + "/site-packages/requests/adapters.py", 519, "send", "raise ConnectionError(e, request=request)")], "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.wandb.ai', port=443): Read timed out.")
    else:
        lines = ["%s - WARNING - ckpt - async checkpoint upload failed, retrying in 30 s" % ts_py(job.htime(t, h))] + \
            traceback_lines(job, [("utils/ckpt.py", 142, "_upload", "client.put_object(**kw)")], "botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: \"https://s3.internal/ckpt\"")
    job.emit_lines(t, r, lines)


def add_stale_kernel(job):
    rng = job.rng
    job.noise.add("stale_kernel")
    h = rng.randrange(job.nhosts)
    t = job.start - rng.uniform(600, 3 * 86400)
    k = rng.randrange(3)
    if k == 0:
        ojob = int(job.jobid) - rng.randrange(1, 500)
        opid = rng.randrange(2000, 400000)
        job.kernel(h, t, "python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0")
        job.kernel(h, t + 0.01, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%d,task_memcg=/slurm/uid_%d/job_%d/step_0/task_0,task=python3,pid=%d,uid=%d" % (
            job.uid + 1, ojob, job.uid + 1, ojob, opid, job.uid + 1))
        job.kernel(h, t + 0.02, "Memory cgroup out of memory: Killed process %d (python3) total-vm:98123456kB, anon-rss:61234567kB, file-rss:123456kB, shmem-rss:0kB, UID:%d pgtables:140000kB oom_score_adj:0" % (opid, job.uid + 1))
    elif k == 1:
        job.kernel(h, t, "NVRM: Xid (PCI:0000:%s:00): %d, pid=%d, name=python, Ch 00000008" % (job.bus[h * job.per][:-3].rjust(2, "0"), rng.choice([13, 31, 43]), rng.randrange(2000, 400000)))
    else:
        job.kernel(h, t, "mlx5_core 0000:%02x:00.0: mlx5_port_module_event:1144:(pid 0): Port module event: module 0, Cable unplugged" % rng.randrange(0x10, 0xf0))
        job.kernel(h, t + 8, "mlx5_core 0000:%02x:00.0 ib0: Link up" % rng.randrange(0x10, 0xf0))


def common_noise(job, t_prog0, t_fault, ranks_all=False):
    rng = job.rng
    who = [0] if not ranks_all else sorted(set([0, rng.randrange(job.n)]))
    if rng.random() < 0.3 and job.n > 2:
        who = list(range(job.n))[:min(job.n, 4)]
    step = progress(job, t_prog0, t_fault, who)
    if rng.random() < 0.25:
        add_survived_oom(job, rng.uniform(t_prog0, t_fault - 600) if t_fault - t_prog0 > 900 else t_prog0 + 1, rng.randrange(job.n))
    if rng.random() < 0.25:
        add_caught_traceback(job, rng.uniform(t_prog0, t_fault - 300) if t_fault - t_prog0 > 600 else t_prog0 + 2, rng.randrange(job.n))
    if rng.random() < 0.3:
        add_stale_kernel(job)
    return step


# ---------------------------------------------------------------- victim waves

def victims_wave(job, c, t_fault, seq, kind=None, survivors=None):
    """Everyone but c reacts to c's failure. Returns (victim ranks, per-rank failure times)."""
    rng = job.rng
    kind = kind or rng.choice(["watchdog", "watchdog", "remote", "sigterm"])
    job.noise.add("victim_" + kind)
    vict = [r for r in range(job.n) if r != c]
    fails = {}
    if kind == "watchdog":
        tw = t_fault + job.timeout_ms / 1000.0 + rng.uniform(1, 20)
        for r in vict:
            if job.torchrun and job.host_of(r) == job.host_of(c):
                fails[r] = None     # its agent SIGTERMs it long before
                continue
            t = tw + rng.uniform(0, 1.5)
            job.emit_lines(t, r, watchdog_timeout(job, r, t, seq))
            if rng.random() < 0.5:
                job.emit_lines(t + 0.1, r, watchdog_abort(job, r, t + 0.1, seq))
            fails[r] = (t + 0.2, -6, False)
    elif kind == "remote":
        # a launcher kills c's node-mates within seconds: they say nothing more
        able = [r for r in vict if not (job.torchrun and job.host_of(r) == job.host_of(c))] or vict
        k = min(len(able), rng.randrange(1, 6))
        reporters = rng.sample(able, k)
        for r in vict:
            if r in reporters:
                t = t_fault + rng.uniform(1.5, 25)
                job.emit_lines(t, r, remote_error_lines(job, r, t, c))
                fails[r] = (t + 0.1, 1, True)
            else:
                fails[r] = None
    else:
        for r in vict:
            fails[r] = None
    return vict, fails


def torchrun_endgame(job, c, t_fault, c_code, c_has_file, c_msg, fails, t_detect=None):
    """The torchrun agents notice the first failure, SIGTERM the rest, print ChildFailedError.
    Returns the rank named as root cause on c's node (to mark a wrong root)."""
    rng = job.rng
    if not job.torchrun:
        return None
    if job.deepspeed:
        return deepspeed_endgame(job, c, t_fault, c_code, fails, t_detect)
    hc = job.host_of(c)
    t_detect = t_detect if t_detect is not None else t_fault + rng.uniform(0.5, 5)
    roots = {}
    for h in range(job.nhosts):
        if h in job.dead_hosts_drop:
            continue
        ranks = [r for r in range(h * job.per, (h + 1) * job.per)]
        failures = []
        tnode = None
        for r in ranks:
            if r == c:
                failures.append((r, c_code, t_fault if c_has_file else t_detect, c_has_file, c_msg))
                tnode = t_detect
            elif fails.get(r):
                ft, code, hf = fails[r]
                failures.append((r, code, ft, hf, "%s (see log)" % ("DistBackendError" if code == 1 else "Signal")))
                tnode = min(tnode, ft + 1) if tnode else ft + 1
        if tnode is None:
            # no local failure: the agent learns from the rendezvous and terminates
            tnode = t_detect + rng.uniform(1, 30)
            if rng.random() < 0.5:
                continue
        term = [r for r in ranks if not any(f[0] == r for f in failures)]
        tt = max(tnode, t_detect)
        if term:
            job.emit_lines(tt, None, sigterm_agent_lines(job, h, tt, term), host=h)
            for r in term:
                failures.append((r, -15, tt + 2 + rng.uniform(0, 3), False, ""))
        if not failures:
            continue
        block, root = child_failed_block(job, h, tt + 5, failures)
        job.emit_lines(tt + 5, None, block, host=h)
        roots[h] = root
    if hc in roots and roots[hc] != c:
        job.noise.add("torchrun_wrong_root")
    return roots.get(hc)


def deepspeed_endgame(job, c, t_fault, c_code, fails, t_detect=None):
    """DeepSpeed's launcher on each node: the first child it sees exit is reported with its
    command line (--local_rank=L) and return code; the rest are killed.  No ChildFailedError."""
    rng = job.rng
    t_detect = t_detect if t_detect is not None else t_fault + rng.uniform(0.2, 2)
    for h in range(job.nhosts):
        if h in job.dead_hosts_drop:
            continue
        ranks = list(range(h * job.per, (h + 1) * job.per))
        cand = []
        for r in ranks:
            if r == c:
                cand.append((t_detect, r, c_code))
            elif fails.get(r):
                cand.append((fails[r][0] + 0.5, r, fails[r][1]))
        if not cand:
            continue
        tf, rf, code = min(cand)
        lines = []
        for r in ranks:
            if r != rf:
                lines.append("[%s] [INFO] [launch.py:315:sigkill_handler] Killing subprocess %d" % (ts_py(job.htime(tf, h)), job.pid[r]))
        lines.append("[%s] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', '%s', '--local_rank=%d', '--deepspeed', 'ds_config.json'] exits with return code = %d" % (
            ts_py(job.htime(tf + 0.1, h)), job.script, job.local(rf), code))
        job.emit_lines(tf, None, lines, host=h)
    return None


def slurm_end(job, t, failed_task=None, failed_host=None, how="Exited with exit code 1"):
    rng = job.rng
    # srun reports when the step is over: after the last task's last words
    t = max([t] + [e[0] + 1 for e in job.events])
    lines = []
    if job.deepspeed:
        # pdsh/ssh launch: no srun step, only the batch script's end
        if rng.random() < 0.3:
            job.emit(t, None, "pdsh@%s: %s: ssh exited with exit code 1" % (job.hosts[0], job.hosts[failed_host or 0]), host=0)
        return lines
    if failed_task is not None and rng.random() < 0.8:
        lines.append("srun: error: %s: task %d: %s" % (job.hosts[failed_host], failed_task, how))
        srun_names(job, failed_task, failed_host)
    if rng.random() < 0.5:
        lines.append("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        if rng.random() < 0.5:
            lines.append(slurm_banner(job, t + 1, "TASK FAILURE"))
    if rng.random() < 0.3 and job.nhosts > 1:
        others = [h for h in range(job.nhosts) if h != failed_host]
        h = rng.choice(others)
        if job.torchrun:
            lines.append("srun: error: %s: task %d: Killed" % (job.hosts[h], h))
        else:
            lines.append("srun: error: %s: tasks %d-%d: Killed" % (job.hosts[h], h * job.per, (h + 1) * job.per - 1))
        for tk in ([h] if job.torchrun else range(h * job.per, (h + 1) * job.per)):
            srun_names(job, tk, h)
    job.emit_lines(t, None, lines, host=0)
    return lines


def srun_names(job, task, h):
    """srun named the host of a task: a rank's host when tasks are ranks, a node's ranks when
    srun --label numbers the torchrun agents and the lines carry that label."""
    if not job.torchrun and job.layout in ("srun_ranks", "per_task"):
        job.known_host_ranks.add(task)
    elif job.torchrun and job.layout == "srun_torchrun" and job.srun_label:
        job.known_host_ranks.update(range(h * job.per, (h + 1) * job.per))


def task_id(job, r):
    return job.host_of(r) if job.torchrun else r


# ---------------------------------------------------------------- scenarios
# Each returns the truth (class, first_rank, first_host or None).

def host_truth(job, r, via_fault_host=False):
    if r is None:
        return None
    if job.rank_hosts or via_fault_host or r in job.known_host_ranks:
        return job.hosts[job.host_of(r)]
    return None


def rank_truth(job, c, named_in_message=False):
    return c if (job.ranks_visible or named_in_message) else None


def sc_cuda_oom(job):
    rng = job.rng
    t0 = setup(job)
    t_fault = t0 + rng.uniform(1800, 40000)
    c = rng.randrange(job.n)
    step = common_noise(job, t0, t_fault)
    h = job.host_of(c)
    if rng.random() < 0.5:
        final = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of 79.14 GiB of which %.2f MiB is free. Including non-PyTorch memory, this process has 79.0 GiB memory in use. Of the allocated memory 74.1 GiB is allocated by PyTorch, and 3.2 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (
            rng.uniform(0.1, 16), job.local(c), rng.uniform(1, 900))
    else:
        final = "RuntimeError: CUDA out of memory. Tried to allocate %d.00 MiB (GPU %d; 39.59 GiB total capacity; 36.12 GiB already allocated; %d.56 MiB free; 37.80 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation." % (
            rng.randrange(20, 4096), job.local(c), rng.randrange(1, 500))
    named = False
    lines = traceback_lines(job, train_frames(job, [(job.py + "/site-packages/torch/nn/functional.py", 2264, "softmax", "ret = input.softmax(dim)")]), final)
    if not job.ranks_visible and rng.random() < 0.7:
        lines = ["%s - ERROR - %s fatal error in training step %d" % (ts_py(job.htime(t_fault, h)), rank_tag(job, c), step)] + lines
        named = True
        job.noise.add("rank_in_message")
    job.emit_lines(t_fault, c, lines)
    vict, fails = victims_wave(job, c, t_fault, rng.randrange(1000, 90000))
    torchrun_endgame(job, c, t_fault, 1, True, final[:60], fails)
    slurm_end(job, t_fault + 40 + (job.timeout_ms / 1000.0 if "victim_watchdog" in job.noise else 0), task_id(job, c), h)
    job.sacct = ("FAILED", "1:0")
    job.end = t_fault + 700
    return "cuda_oom", rank_truth(job, c, named), host_truth(job, c) if rank_truth(job, c, named) is not None else None, vict


def sc_host_oom(job):
    rng = job.rng
    t0 = setup(job)
    t_fault = t0 + rng.uniform(1800, 40000)
    c = rng.randrange(job.n)
    h = job.host_of(c)
    common_noise(job, t0, t_fault)
    # the kernel log of c's host
    job.kernel(h, t_fault - 0.05, "python3 invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=0")
    if rng.random() < 0.5:
        job.kernel(h, t_fault - 0.02, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_%d/job_%s,task_memcg=/slurm/uid_%d/job_%s/step_0/task_%d,task=python3,pid=%d,uid=%d" % (
            job.uid, job.jobid, job.uid, job.jobid, task_id(job, c), job.pid[c], job.uid))
        job.kernel(h, t_fault, "Memory cgroup out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            job.pid[c], rng.randrange(10 ** 8, 4 * 10 ** 8), rng.randrange(10 ** 8, 2 * 10 ** 8), rng.randrange(10 ** 5, 10 ** 6), rng.randrange(0, 10 ** 6), job.uid, rng.randrange(10 ** 5, 10 ** 6)))
    else:
        job.kernel(h, t_fault - 0.02, "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/slurm/uid_%d/job_%s/step_0,task=python3,pid=%d,uid=%d" % (
            job.uid, job.jobid, job.pid[c], job.uid))
        job.kernel(h, t_fault, "Out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:0kB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (
            job.pid[c], rng.randrange(10 ** 8, 4 * 10 ** 8), rng.randrange(10 ** 8, 2 * 10 ** 8), rng.randrange(0, 10 ** 6), job.uid, rng.randrange(10 ** 5, 10 ** 6)))
    job.kernel(h, t_fault + 0.3, "oom_reaper: reaped process %d (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % job.pid[c])
    kern_kept = rng.random() < 0.75
    if not kern_kept:
        job.kern_missing.add(h)
        job.noise.add("no_kernel_log")
    # job log: slurmstepd's oom line (per node), the launcher's -9
    if rng.random() < 0.7:
        if rng.random() < 0.5:
            job.emit(t_fault + 2, None, "slurmstepd: error: Detected 1 oom_kill event in StepId=%s.0. Some of the step tasks have been OOM Killed." % job.jobid, host=h)
        else:
            job.emit(t_fault + 2, None, "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=%s.0. Some of your processes may have been killed by the cgroup out-of-memory handler." % job.jobid, host=h)
        has_step_line = True
    else:
        has_step_line = False
    vict, fails = victims_wave(job, c, t_fault, rng.randrange(100, 90000), kind=rng.choice(["watchdog", "remote", "sigterm"]))
    torchrun_endgame(job, c, t_fault, -9, False, "", fails)
    if not job.torchrun:
        job.emit(t_fault + 3, None, "srun: error: %s: task %d: Out Of Memory" % (job.hosts[h], c), host=0)
    slurm_end(job, t_fault + 30, None, h)
    job.sacct = ("OUT_OF_MEMORY", "0:125") if rng.random() < 0.6 else ("FAILED", "1:0")
    job.end = t_fault + 60
    # rank: the killed pid is mapped to a rank by NCCL INIT lines (host:pid) or torchrun's
    # "failed (exitcode: -9) local_rank: L (pid: P)" / ChildFailedError "rank: R" lines, or
    # srun's "task R: Out Of Memory" when tasks are ranks.
    # torchrun lists the killed worker (exitcode -9, rank, host); srun names "task R: Out Of
    # Memory" where tasks are ranks; the kernel log names the host.
    if not (kern_kept or has_step_line or job.sacct[0] == "OUT_OF_MEMORY" or not job.torchrun):
        # nothing names memory: the job log shows only a SIGKILL
        return None
    if job.deepspeed and not job.init_lines:
        return "host_oom", None, job.hosts[h], vict    # host + local rank, no map to a global rank
    return "host_oom", c, job.hosts[h], vict


def sc_gpu(job):
    rng = job.rng
    t0 = setup(job)
    t_fault = t0 + rng.uniform(1800, 40000)
    c = rng.randrange(job.n)
    h = job.host_of(c)
    common_noise(job, t0, t_fault)
    bus = job.bus[c][:-3].rjust(2, "0")
    xid = rng.choice([79, 48, 94, 95, 74, 119, 64])
    pre = "NVRM: Xid (PCI:0000:%s:00): " % bus if rng.random() < 0.8 else "NVRM: Xid (0000:%s:00): " % bus
    text = {79: "79, pid=%d, name=python3, GPU has fallen off the bus." % job.pid[c],
            48: "48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 2, subpartition 0." % job.pid[c],
            94: "94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % job.pid[c],
            95: "95, pid=%d, name=python3, Uncontained: FBHUB. RST: Yes, D-RST: No" % job.pid[c],
            74: "74, pid=%d, name=python3, NVLink: fatal error detected on link 11(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" % job.pid[c],
            119: "119, pid=%d, name=python3, Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL)" % job.pid[c],
            64: "64, pid=%d, name=python3, Dynamic Page Retirement: Failure to retire page 0x3ae1f." % job.pid[c]}[xid]
    job.kernel(h, t_fault - rng.uniform(0.1, 2), pre + text)
    if xid == 48 and rng.random() < 0.5:
        job.kernel(h, t_fault, pre + "63, pid=%d, name=python3, Row Remapper: New row (0x0000000000ab12cd) is marked for remapping, reset gpu to activate." % job.pid[c])
    if xid == 79:
        job.kernel(h, t_fault + 0.01, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus)
    kern_kept = rng.random() < 0.8
    if not kern_kept:
        job.kern_missing.add(h)
        job.noise.add("no_kernel_log")
    msg = {79: "CUDA error: unspecified launch failure", 48: "CUDA error: uncorrectable ECC error encountered",
           94: "CUDA error: uncorrectable ECC error encountered", 95: "CUDA error: uncorrectable ECC error encountered",
           74: "CUDA error: unspecified launch failure", 119: "CUDA error: unspecified launch failure",
           64: "CUDA error: uncorrectable ECC error encountered"}[xid]
    named = False
    if job.ranks_visible or rng.random() < 0.5:
        lines = [glog_prefix(job, c, t_fault + 0.5, "E", "ProcessGroupNCCL.cpp:1895") +
                 "[PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: %s" % (c, msg),
                 "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                 "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                 "terminate called after throwing an instance of 'c10::DistBackendError'"]
        named = True
    else:
        lines = traceback_lines(job, train_frames(job, []), "RuntimeError: " + msg)
    job.emit_lines(t_fault + 0.5, c, lines)
    vict, fails = victims_wave(job, c, t_fault, rng.randrange(1000, 90000))
    torchrun_endgame(job, c, t_fault + 1, -6, False, "", fails)
    slurm_end(job, t_fault + 30, task_id(job, c), h, "Aborted (core dumped)")
    job.sacct = ("FAILED", "6:0") if rng.random() < 0.5 else None
    job.end = t_fault + 700
    if not kern_kept and xid in (79, 74, 119):
        # the job log alone says "unspecified launch failure": a CUDA error as far as the files show
        return None
    # the Xid's pid / bus id lead to the rank through NCCL INIT lines or torchrun's summary
    rank = c if (named or job.ranks_visible or (kern_kept and (job.init_lines or c in job.known_host_ranks))) else None
    host = job.hosts[h] if (kern_kept or (rank is not None and host_truth(job, rank))) else None
    return "gpu_hardware", rank, host, vict


def sc_network(job):
    rng = job.rng
    if job.nhosts < 2:
        return None
    t0 = setup(job)
    t_fault = t0 + rng.uniform(1800, 40000)
    c = rng.randrange(job.n)
    h = job.host_of(c)
    common_noise(job, t0, t_fault)
    peer = rng.choice([r for r in range(job.n) if job.host_of(r) != h])
    nic = "mlx5_%d" % job.local(c)
    if rng.random() < 0.6:
        job.kernel(h, t_fault - rng.uniform(0.5, 5), "mlx5_core 0000:%02x:00.0: mlx5_port_module_event:1144:(pid 0): Port module event[error]: module %d, Cable error, High Temperature" % (rng.randrange(0x10, 0xf0), job.local(c))
                   if rng.random() < 0.3 else "mlx5_core 0000:%02x:00.0 %s: Link down" % (rng.randrange(0x10, 0xf0), "ib%d" % job.local(c)))
    nh = job.hosts[h]
    tid = job.pid[c] + 77
    if rng.random() < 0.5:
        warn = "%s:%d:%d [%d] transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129" % (
            nh, job.pid[c], tid, job.local(c), rng.choice([1295, 1422, 1696]), job.ip[job.host_of(peer)], rng.randrange(30000, 60000))
    else:
        warn = "%s:%d:%d [%d] transport/net_ib.cc:%d NCCL WARN NET/IB: Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor_err=129 (Send) hca %s" % (
            nh, job.pid[c], tid, job.local(c), rng.choice([2288, 2346]), job.ip[job.host_of(peer)], rng.randrange(30000, 60000), rng.choice([0, 1, 2]), nic)
    if job.nccl_ver >= "2.26":
        warn = "[%s] " % ts_sec(job.htime(t_fault, h)) + warn
    lines = ["", warn,
             "%s:%d:%d [%d] NCCL INFO transport/net.cc:1302 -> 6" % (nh, job.pid[c], tid, job.local(c)),
             "%s:%d:%d [%d] NCCL INFO proxy.cc:878 -> 6 [Progress Thread]" % (nh, job.pid[c], tid, job.local(c))]
    job.emit_lines(t_fault, c, lines)
    t2 = t_fault + rng.uniform(0.5, 8)
    job.emit_lines(t2, c, [glog_prefix(job, c, t2, "E", "ProcessGroupNCCL.cpp:1895") +
                           "[PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version %s" % (c, job.nccl_ver),
                           "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
                           "Last error:",
                           "NET/IB : Got completion from peer %s<%d> with error 12, opcode 0, len 0, vendor err 129" % (job.ip[job.host_of(peer)], rng.randrange(30000, 60000))])
    vict, fails = victims_wave(job, c, t_fault, rng.randrange(1000, 90000), kind=rng.choice(["watchdog", "sigterm"]))
    torchrun_endgame(job, c, t2, -6, False, "", fails)
    slurm_end(job, t2 + 20, task_id(job, c), h, "Aborted (core dumped)")
    job.sacct = ("FAILED", "6:0") if rng.random() < 0.5 else None
    job.end = t_fault + 700
    # the NCCL WARN line itself names host:pid; the rank follows from INIT lines or the prefix
    rank = c if (job.ranks_visible or job.init_lines or c in job.known_host_ranks) else None
    return "network", rank, nh, vict


EXC = [("KeyError: 'input_ids'", "batch = collate(samples)", "data/collate.py"),
       ("ValueError: Expected input batch_size (24) to match target batch_size (16).", "loss = F.cross_entropy(logits, labels)", "model/loss.py"),
       ("AssertionError: sequence length 8193 exceeds max_position_embeddings 8192", "assert seqlen <= self.max_pos, msg", "model/gpt.py"),
       ("TypeError: unsupported operand type(s) for +: 'NoneType' and 'Tensor'", "hidden = residual + out", "model/block.py"),
       ("IndexError: list index out of range", "sample = self.index[i]", "data/dataset.py"),
       ("AttributeError: 'NoneType' object has no attribute 'shape'", "b, s = x.shape[:2]", "model/embed.py"),
       ("ZeroDivisionError: division by zero", "tokens_per_sec = n / dt", "utils/meter.py")]


def sc_python(job):
    rng = job.rng
    t0 = setup(job)
    t_fault = t0 + rng.uniform(600, 40000)
    c = rng.randrange(job.n)
    h = job.host_of(c)
    common_noise(job, t0, t_fault)
    final, code, f = rng.choice(EXC)
    lines = traceback_lines(job, train_frames(job, [(f, rng.randrange(20, 400), "forward", code)]), final)
    named = False
    if not job.ranks_visible and rng.random() < 0.6:
        lines = ["%s - ERROR - %s uncaught exception, exiting:" % (ts_py(job.htime(t_fault, h)), rank_tag(job, c))] + lines
        named = True
        job.noise.add("rank_in_message")
    job.emit_lines(t_fault, c, lines)
    return exit_code_1_end(job, c, h, t_fault, final, named, "python_exception")


def exit_code_1_end(job, c, h, t_fault, final, named, cls):
    """The end of a job whose rank c raised (exit code 1): its victims, torchrun's
    endgame quoting final, Slurm's end; the truth (rank and host where the logs
    name the culprit: its own lines, a message naming it, or torchrun's root cause
    when that is right)."""
    vict, fails = victims_wave(job, c, t_fault, job.rng.randrange(1000, 90000))
    root = torchrun_endgame(job, c, t_fault, 1, True, final, fails)
    slurm_end(job, t_fault + 40, task_id(job, c), h)
    job.sacct = ("FAILED", "1:0")
    job.end = t_fault + 100
    rank = c if (job.ranks_visible or named or (job.torchrun and root == c)) else None
    return cls, rank, host_truth(job, rank) if rank is not None else None, vict


def sc_segfault(job):
    rng = job.rng
    t0 = setup(job)
    t_fault = t0 + rng.uniform(600, 40000)
    c = rng.randrange(job.n)
    h = job.host_of(c)
    common_noise(job, t0, t_fault)
    k = rng.randrange(4)
    sig = 11
    if k == 0:
        lines = ["Fatal Python error: Segmentation fault", "",
                 "Thread 0x%012x (most recent call first):" % rng.getrandbits(44),
                 '  File "%s/site-packages/torch/autograd/graph.py", line 768 in _engine_run_backward' % job.py,
                 '  File "%s", line %d in train_step' % (job.script, rng.randrange(50, 400)), ""]
    elif k == 1:
        lines = ["[%s:%d :0:%d] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x%x)" % (
            job.hosts[h], job.pid[c], job.pid[c] + 51, rng.getrandbits(24)),
            "==== backtrace (tid:%d) ====" % (job.pid[c] + 51),
            " 0  /usr/lib/x86_64-linux-gnu/libucs.so.0(ucs_handle_error+0x2dc) [0x7f%08x]" % rng.getrandbits(32),
            " 1  /usr/lib/x86_64-linux-gnu/libc.so.6(+0x42520) [0x7f%08x]" % rng.getrandbits(32),
            "================================="]
    elif k == 2:
        sig = 7
        lines = ["[%s:%d :0:%d] Caught signal 7 (Bus error: nonexistent physical address)" % (job.hosts[h], job.pid[c], job.pid[c] + 12),
                 "==== backtrace (tid:%d) ====" % (job.pid[c] + 12),
                 " 0  %s/site-packages/torch/lib/libtorch_cpu.so(+0x4a1b2c3) [0x7f%08x]" % (job.py, rng.getrandbits(32))]
    else:
        lines = []   # silent: only the launcher's exit code says it
    if lines:
        job.emit_lines(t_fault, c, lines)
    named_by_launcher = False
    vict, fails = victims_wave(job, c, t_fault, rng.randrange(1000, 90000))
    root = torchrun_endgame(job, c, t_fault, -sig, False, "", fails)
    if job.torchrun:
        named_by_launcher = not job.deepspeed or job.init_lines
    how = "Segmentation fault (core dumped)" if sig == 11 else "Bus error (core dumped)"
    if not job.torchrun:
        job.emit(t_fault + 1, None, "srun: error: %s: task %d: %s" % (job.hosts[h], c, how), host=0)
        named_by_launcher = True
    slurm_end(job, t_fault + 30, None, h)
    job.sacct = ("FAILED", "%d:0" % (128 + sig) if rng.random() < 0.5 else "0:%d" % sig)
    job.end = t_fault + 90
    if k == 3 and not job.torchrun and not named_by_launcher:
        return None
    visible = (bool(lines) and job.ranks_visible) or named_by_launcher or (k in (1, 2) and job.init_lines)
    rank = c if visible else None
    host = job.hosts[h] if (rank is not None and (job.rank_hosts or named_by_launcher or k in (1, 2))) or job.deepspeed else None
    return "segfault", rank, host, vict


def sc_cuda_error(job):
    rng = job.rng
    t0 = setup(job)
    t_fault = t0 + rng.uniform(600, 40000)
    c = rng.randrange(job.n)
    h = job.host_of(c)
    common_noise(job, t0, t_fault)
    if rng.random() < 0.5:
        lines = ["../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (
            rng.randrange(9999), rng.randrange(128))] * 2
        lines += traceback_lines(job, train_frames(job, [("model/embed.py", 55, "forward", "return self.wte(ids)")]),
                                 "RuntimeError: CUDA error: device-side assert triggered")
    else:
        lines = traceback_lines(job, train_frames(job, [("model/attn.py", 130, "forward", "out = flash_attn_func(q, k, v)")]),
                                "RuntimeError: CUDA error: an illegal memory access was encountered")
    lines += ["CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
              "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]
    named = False
    if not job.ranks_visible and rng.random() < 0.6:
        lines = ["%s - ERROR - %s training step failed" % (ts_py(job.htime(t_fault, h)), rank_tag(job, c))] + lines
        named = True
        job.noise.add("rank_in_message")
    job.emit_lines(t_fault, c, lines)
    return exit_code_1_end(job, c, h, t_fault, lines[-3][:80], named, "cuda_error")


def sc_hang(job):
    rng = job.rng
    t0 = setup(job)
    t_stall = t0 + rng.uniform(1800, 40000)
    common_noise(job, t0, t_stall)
    seq = rng.randrange(1000, 90000)
    mode = rng.choice(["silent", "desync", "uniform"])
    c = rng.randrange(job.n)
    vict = [r for r in range(job.n) if r != c]
    tw = t_stall + job.timeout_ms / 1000.0 + rng.uniform(1, 20)
    if mode == "silent":
        # c never enqueued #seq (stuck in its data loader): everyone else times out on seq
        for r in vict:
            t = tw + rng.uniform(0, 1.5)
            job.emit_lines(t, r, watchdog_timeout(job, r, t, seq))
            if rng.random() < 0.5:
                job.emit_lines(t + 0.1, r, watchdog_abort(job, r, t + 0.1, seq))
        # c's own watchdog fires on an earlier collective? no: it has none pending; it is
        # killed by the launcher
        fails = {r: (tw + 2, -6, False) for r in vict}
        first = c
    elif mode == "desync":
        # c entered a different collective (ALLGATHER seq+1 / other size): its watchdog names it
        for r in vict:
            t = tw + rng.uniform(0, 1.5)
            job.emit_lines(t, r, watchdog_timeout(job, r, t, seq))
        t = tw + rng.uniform(0, 1.5)
        other = rng.choice(["_ALLGATHER_BASE", "BROADCAST", "REDUCE_SCATTER", "ALLREDUCE"])
        if other == "ALLREDUCE":
            # same op, one collective ahead (it skipped one)
            job.emit_lines(t, c, watchdog_timeout(job, c, t, seq + 1, "ALLREDUCE"))
        else:
            job.emit_lines(t, c, watchdog_timeout(job, c, t, seq + rng.choice([0, 1]), other))
        job.notes.append("desync %s" % other)
        fails = {r: (tw + 2, -6, False) for r in range(job.n)}
        first = c
    else:
        for r in range(job.n):
            t = tw + rng.uniform(0, 1.5)
            job.emit_lines(t, r, watchdog_timeout(job, r, t, seq))
        fails = {r: (tw + 2, -6, False) for r in range(job.n)}
        first = None
        vict = list(range(job.n))
    if job.torchrun:
        # everyone aborts with SIGABRT; per-node summary roots are arbitrary victims
        cc = c if mode != "uniform" else 0
        f2 = dict(fails)
        cfail = f2.pop(cc, (tw + 2, -6, False))
        torchrun_endgame(job, cc, cfail[0], -6, False, "", f2, t_detect=tw + 3)
        job.noise.discard("torchrun_wrong_root")
    slurm_end(job, tw + 20, None, 0)
    job.sacct = ("FAILED", "6:0") if rng.random() < 0.5 else None
    job.end = tw + 60
    # the watchdog lines name their rank ("[Rank R]") even without a launcher prefix
    if mode == "silent" and c == job.n - 1 and not job.init_lines and not job.torchrun:
        first = None    # nothing says there was a rank after the last one that reported
    if first is None:
        return "collective_hang", None, None, vict
    job.notes.append("hang " + mode)
    return "collective_hang", first, host_truth(job, first), vict


def sc_node_failure(job):
    rng = job.rng
    if job.nhosts < 2:
        return None
    t0 = setup(job)
    t_fault = t0 + rng.uniform(1800, 40000)
    dead = rng.randrange(job.nhosts)
    common_noise(job, t0, t_fault)
    # the dead host's output stops; in per-node layouts its file is missing or truncated
    job.events = [e for e in job.events if not (e[2] == dead and e[0] > t_fault)]
    if job.layout in ("per_node", "per_task") and rng.random() < 0.5:
        job.dead_hosts_drop.add(dead)
        job.noise.add("missing_host_log")
    elif job.layout == "per_node" and rng.random() < 0.6:
        job.truncate_files.add("%s.%s.log" % (job.jobid, job.hosts[dead]))
    elif job.layout == "per_task" and rng.random() < 0.6:
        job.truncate_files.update("%s-%s-%d.out" % (job.jobname, job.jobid, r) for r in range(dead * job.per, (dead + 1) * job.per))
    elif rng.random() < 0.5:
        # its last line stops mid-way
        mine = [i for i, e in enumerate(job.events) if e[2] == dead]
        if mine:
            i = mine[-1]
            t, q, hh, r, text = job.events[i]
            job.events[i] = (t, q, hh, r, text[:max(3, len(text) // 2)])
            job.noise.add("truncated")
    vict = [r for r in range(job.n) if job.host_of(r) != dead]
    any_c = rng.choice(range(dead * job.per, (dead + 1) * job.per))
    if rng.random() < 0.5:
        victims_wave(job, any_c, t_fault, rng.randrange(1000, 90000), kind="remote")
    t_ctl = t_fault + rng.uniform(200, 400)   # slurmctld notices (SlurmdTimeout)
    named = False
    lines = []
    if rng.random() < 0.8:
        lines.append("srun: error: Node failure on %s" % job.hosts[dead])
        named = True
    lines.append(slurm_banner(job, t_ctl, "NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS"))
    if rng.random() < 0.5:
        lines.append("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    job.emit_lines(t_ctl, None, lines, host=0 if dead != 0 else 1)
    job.sacct = ("NODE_FAIL", "0:0")
    if rng.random() < 0.3:
        job.sacct_step = "CANCELLED"
    job.end = t_ctl + 30
    job.kern_missing.add(dead)
    return "node_failure", None, job.hosts[dead] if named else None, vict


def sc_slurm_end(job, what):
    rng = job.rng
    t0 = setup(job)
    t_end = t0 + rng.uniform(3600, 80000)
    common_noise(job, t0, t_end)
    if rng.random() < 0.35:
        # a survived event well before the end
        add_survived_oom(job, t_end - rng.uniform(1800, 20000), rng.randrange(job.n))
    banner = {"time_limit": "TIME LIMIT", "preemption": "PREEMPTION"}.get(what)
    lines = [slurm_banner(job, t_end, banner) if banner else slurm_banner(job, t_end, "cancel")]
    job.emit_lines(t_end, None, lines, host=0)
    # workers get SIGTERM; torchrun relays it
    if job.torchrun:
        for h in range(job.nhosts):
            if rng.random() < 0.6:
                if job.torch_new:
                    job.emit(t_end + 0.2, None, "W%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers" % (
                        ts_glog(job.htime(t_end + 0.2, h), "")[0:], job.agent_pid[h]), host=h)
                else:
                    job.emit(t_end + 0.2, None, "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers", host=h)
                job.emit_lines(t_end + 0.3, None, sigterm_agent_lines(job, h, t_end + 0.3, range(h * job.per, (h + 1) * job.per)), host=h)
        if rng.random() < 0.5:
            r = rng.randrange(job.n)
            job.emit_lines(t_end + 0.5, None, traceback_lines(job, [('/usr/local/bin/torchrun', 8, "<module>", "sys.exit(main())"),
                                                                    (job.py + "/site-packages/torch/distributed/elastic/multiprocessing/api.py", 79, "_terminate_process_handler", "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")],
                                                             "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % job.agent_pid[0]), host=0)
    if rng.random() < 0.4:
        job.emit(t_end + 2, None, "srun: got SIGCONT", host=0)
        job.emit(t_end + 2.1, None, "srun: forcing job termination", host=0)
    if rng.random() < 0.5:
        job.emit(t_end + 3, None, "srun: error: %s: tasks 0-%d: Terminated" % (job.hosts[0], job.per - 1 if not job.torchrun else 0), host=0)
    st = {"time_limit": ("TIMEOUT", "0:0"), "preemption": ("PREEMPTED", "0:0"),
          "user_cancel": ("CANCELLED by %d" % job.uid, "0:15")}[what]
    job.sacct = st if (what != "user_cancel" or rng.random() < 0.8) else None
    if what == "time_limit" and rng.random() < 0.3:
        job.sacct = None   # the banner alone
    job.end = t_end + 5
    return what, None, None, list(range(job.n))


def sc_nan(job):
    rng = job.rng
    t0 = setup(job)
    t_fault = t0 + rng.uniform(1800, 40000)
    step = common_noise(job, t0, t_fault)
    c = rng.randrange(job.n)
    h = job.host_of(c)
    origin = rng.choice(["anomaly", "overflow", "local", "none"])
    if not job.ranks_visible and origin != "none":
        job.noise.add("rank_in_message")
    tag = lambda r: rank_tag(job, r) + " " if not job.ranks_visible else ""
    first = None
    if origin == "anomaly":
        lines = traceback_lines(job, train_frames(job, [(job.py + "/site-packages/torch/autograd/__init__.py", 266, "backward", "Variable._execution_engine.run_backward(")]),
                                "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.")
        if not job.ranks_visible:
            lines = ["%s - ERROR - %sbackward failed at step %d" % (ts_py(job.htime(t_fault - 1, h)), tag(c), step)] + lines
        job.emit_lines(t_fault - 1, c, lines)
        first = c
    elif origin == "overflow":
        sc = 2.0 ** rng.randrange(10, 16)
        t = t_fault - 60
        while sc >= 1:
            job.emit(t, c, "[%s] [INFO] [loss_scaler.py:183:update_scale] %s[deepspeed] OVERFLOW! Rank %d Skipping step. Attempted loss scale: %.1f, reducing to %.1f" % (
                ts_py(job.htime(t, h)), tag(c), c, sc, sc / 2))
            sc /= 2
            t += rng.uniform(1, 5)
        job.emit_lines(t, c, traceback_lines(job, train_frames(job, [(job.py + "/site-packages/deepspeed/runtime/fp16/loss_scaler.py", 175, "update_scale", "raise Exception(")]),
                                             "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."))
        first = c
    elif origin == "local":
        job.emit(t_fault - 2, c, "%s - WARNING - %slocal loss is nan at step %d (grad_norm=inf), sample ids [%d, %d]" % (
            ts_py(job.htime(t_fault - 2, h)), tag(c), step, rng.randrange(10 ** 7), rng.randrange(10 ** 7)))
        first = c
    # the all-reduced loss, on every rank (or rank 0's logger), at once
    reporters = range(job.n) if rng.random() < 0.5 else [0]
    form = rng.randrange(3)     # one code base: every rank prints the same shape
    for r in reporters:
        t = t_fault + rng.uniform(0, 0.3)
        job.emit(t, r, ["step %d | loss nan | lr 3.00e-04 | grad norm nan" % step,
                        "%s - ERROR - trainer - Loss is NaN at step %d, stopping" % (ts_py(job.htime(t, job.host_of(r))), step),
                        "WARNING: non-finite loss, ending training (loss = tensor(nan, device='cuda:%d'))" % job.local(r)][form])
    r0 = 0 if first is None else first
    lines = traceback_lines(job, train_frames(job, [("train_utils.py", 211, "check_loss", "raise FloatingPointError(f'Loss became infinite or NaN at iteration={it}!')")]),
                            "FloatingPointError: Loss became infinite or NaN at iteration=%d!" % step)
    for r in reporters:
        job.emit_lines(t_fault + 0.5 + rng.uniform(0, 0.3), r, lines)
    fails = {r: (t_fault + 0.6, 1, True) for r in reporters if r != r0}
    torchrun_endgame(job, r0, t_fault + 0.5, 1, True, lines[-1], fails)
    job.noise.discard("torchrun_wrong_root")
    slurm_end(job, t_fault + 20, None, 0)
    job.sacct = ("FAILED", "1:0")
    job.end = t_fault + 40
    job.notes.append("nan origin " + origin)
    if first is None:
        return "nan_inf", None, None, []
    return "nan_inf", first, host_truth(job, first, via_fault_host=False), [r for r in range(job.n) if r != first]


def sc_launch(job):
    rng = job.rng
    k = rng.randrange(4)
    job.nhosts = max(job.nhosts, 1)
    t0 = job.start
    setup_lines = True
    # launch failures happen before training: no progress, no INIT lines for most
    lay_choices = ["srun_torchrun", "srun_torchrun", "pdsh", "srun_ranks"] + (["plain"] if job.nhosts == 1 else [])
    job.layout = rng.choice(lay_choices)
    job.srun_label = job.nhosts > 1 or rng.random() < 0.5
    job.ds_global = True
    job.torchrun = job.layout in ("srun_torchrun", "pdsh", "plain")
    job.deepspeed = False
    job.jobname = "pretrain"
    job.stepname = "torchrun"
    job.interleave = rng.random() < 0.3
    job.ansi = job.crlf = False
    job.truncate_files = set()
    job.truncate_any = False
    job.dead_hosts_drop = set()
    job.kern_missing = set()
    job.sacct_batch = job.sacct_step = None
    job.numel = 1
    job.progress_style = 0
    job.rank_hosts = job.layout == "pdsh"
    job.ranks_visible = job.layout != "plain"
    job.init_lines = False
    t = t0 + rng.uniform(5, 30)
    if rng.random() < 0.5:
        benign_noise(job, t)
    job.sacct = ("FAILED", "1:0")
    job.end = t + 200
    if k == 0 and job.torchrun:
        # EADDRINUSE on the rendezvous port: the store host's agent
        h = 0
        job.emit_lines(t, None, [
            "[W socket.cpp:663] [c10d] The server socket has failed to listen on [::]:29500 (errno: 98 - Address already in use).",
            "[E socket.cpp:%d] [c10d] The server socket has failed to listen on any local network address." % rng.choice([957, 1013]),
        ] + traceback_lines(job, [("/usr/local/bin/torchrun", 8, "<module>", "sys.exit(main())"),
                                  (job.py + "/site-packages/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", 155, "_create_tcp_store", "store = TCPStore(")],
                            "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use"), host=h)
        job.emit(t + 1, None, "srun: error: %s: task 0: Exited with exit code 1" % job.hosts[0], host=0)
        job.noise.add("launcher_only")
        return "launch_failure", None, job.hosts[0] if job.srun_label or job.layout == "pdsh" else None, []
    if k == 1 and job.torchrun and job.nhosts > 1:
        # rendezvous timeout on every node: one node never came up (which one is not said)
        for h in range(job.nhosts):
            job.emit_lines(t + 900 + rng.uniform(0, 3), None, traceback_lines(job, [
                (job.py + "/site-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", 1128, "next_rendezvous", "self._op_executor.run(join_op, deadline, self._get_deadline)"),
                (job.py + "/site-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", 667, "run", "raise RendezvousTimeoutError")],
                "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"), host=h)
        job.end = t + 910
        return "launch_failure", None, None, []
    if k == 2:
        # an import error at start, on every rank
        frames = [(job.script, 12, "<module>", "from model import GPT"), ("model/__init__.py", 3, "<module>", "import flash_attn")]
        for r in range(job.n):
            job.emit_lines(t + rng.uniform(0, 2), r, traceback_lines(job, frames, "ModuleNotFoundError: No module named 'flash_attn'"))
        fails = {r: (t + 2, 1, True) for r in range(1, job.n)}
        torchrun_endgame(job, 0, t + 1, 1, True, "ModuleNotFoundError: No module named 'flash_attn'", fails)
        job.noise.discard("torchrun_wrong_root")
        return "launch_failure", None, None, []
    # NCCL init failure on one rank (bootstrap / bad interface)
    c = rng.randrange(job.n)
    job.init_lines = False
    h = job.host_of(c)
    nh = job.hosts[h]
    lines = ["", "%s:%d:%d [%d] bootstrap.cc:%d NCCL WARN Bootstrap : no socket interface found" % (nh, job.pid[c], job.pid[c] + 9, job.local(c), rng.choice([45, 73])),
             "%s:%d:%d [%d] NCCL INFO init.cc:%d -> 3" % (nh, job.pid[c], job.pid[c] + 9, job.local(c), rng.choice([82, 1348]))]
    lines += traceback_lines(job, train_frames(job, [(job.py + "/site-packages/torch/distributed/distributed_c10d.py", 2606, "barrier", "work = default_pg.barrier(opts=opts)")]),
                             "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, internal error - please report this issue to the NCCL developers, NCCL version %s" % job.nccl_ver)
    lines += ["ncclInternalError: Internal check failed.", "Last error:", "Bootstrap : no socket interface found"]
    job.emit_lines(t + 20, c, lines)
    vict, fails = victims_wave(job, c, t + 20, 1, kind="sigterm")
    torchrun_endgame(job, c, t + 20, 1, True, lines[-1], fails)
    job.noise.discard("torchrun_wrong_root")
    # the WARN line names host:pid, so the host is known; the rank from the prefix
    return "launch_failure", c if job.ranks_visible else None, nh, vict


def sc_filesystem(job):
    rng = job.rng
    t0 = setup(job)
    t_fault = t0 + rng.uniform(1800, 40000)
    common_noise(job, t0, t_fault)
    k = rng.randrange(5)
    c = 0 if k in (0, 2) and rng.random() < 0.7 else rng.randrange(job.n)
    h = job.host_of(c)
    ck = "/lustre/proj/ckpt/step_%d/model_%02d.pt" % (rng.randrange(1000, 90000), c)
    final = ["OSError: [Errno 28] No space left on device",
             "OSError: [Errno 116] Stale file handle: '/nfs/data/shard-%05d.bin'" % rng.randrange(99999),
             "OSError: [Errno 122] Disk quota exceeded: '%s'" % ck,
             "OSError: [Errno 5] Input/output error: '/lustre/data/train-%05d.arrow'" % rng.randrange(99999),
             "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 1984 vs 1878"][k]
    frames = [(job.py + "/site-packages/torch/serialization.py", 652, "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)")] if k in (0, 2, 4) else \
        [("data/dataset.py", 61, "__getitem__", "buf = f.read(n)")]
    lines = traceback_lines(job, train_frames(job, frames), final)
    if k == 4:
        lines = traceback_lines(job, frames, "OSError: [Errno 28] No space left on device") + ["", "During handling of the above exception, another exception occurred:", ""] + lines
    named = False
    if not job.ranks_visible and rng.random() < 0.6:
        lines = ["%s - ERROR - %s checkpoint/data I/O failed:" % (ts_py(job.htime(t_fault, h)), rank_tag(job, c))] + lines
        named = True
        job.noise.add("rank_in_message")
    job.emit_lines(t_fault, c, lines)
    if k == 1 and rng.random() < 0.6:
        job.kernel(h, t_fault - rng.uniform(5, 60), "nfs: server filer%d not responding, still trying" % rng.randrange(1, 9))
    if k == 3 and rng.random() < 0.6:
        job.kernel(h, t_fault - rng.uniform(1, 20), "LustreError: 11-0: proj-OST00%02x-osc-ffff9a%06x: operation ost_read to node 10.1.0.%d@o2ib failed: rc = -5" % (
            rng.randrange(256), rng.getrandbits(24), rng.randrange(2, 250)))
    return exit_code_1_end(job, c, h, t_fault, final, named, "filesystem")


SCENARIOS = [
    ("cuda_oom", sc_cuda_oom, 10),
    ("host_oom", sc_host_oom, 8),
    ("gpu_hardware", sc_gpu, 9),
    ("network", sc_network, 7),
    ("python_exception", sc_python, 10),
    ("segfault", sc_segfault, 7),
    ("cuda_error", sc_cuda_error, 5),
    ("collective_hang", sc_hang, 10),
    ("node_failure", sc_node_failure, 6),
    ("time_limit", lambda j: sc_slurm_end(j, "time_limit"), 5),
    ("user_cancel", lambda j: sc_slurm_end(j, "user_cancel"), 4),
    ("preemption", lambda j: sc_slurm_end(j, "preemption"), 3),
    ("nan_inf", sc_nan, 6),
    ("launch_failure", sc_launch, 6),
    ("filesystem", sc_filesystem, 6),
]


def make_case(seed, idx, outroot, truthroot):
    for attempt in range(50):
        rng = random.Random("%d/%d/%d" % (seed, idx, attempt))
        total = sum(w for _, _, w in SCENARIOS)
        x = rng.uniform(0, total)
        for name, fn, w in SCENARIOS:
            x -= w
            if x <= 0:
                break
        case = "c%04d_%s" % (idx, name)
        job = Job(rng, case)
        res = fn(job)
        if res is None:
            continue
        cls, rank, host, vict = res
        if job.skewed:
            job.noise.add("clock_skew")
        bdir = os.path.join(outroot, case)
        tdir = os.path.join(truthroot, case)
        os.makedirs(bdir, exist_ok=True)
        os.makedirs(tdir, exist_ok=True)
        render(job, bdir)
        truth = {"class": cls, "first_rank": rank, "first_host": host if host else None,
                 "victims": sorted(vict) if vict else [],
                 "noise": sorted(job.noise),
                 "notes": "%s; %d ranks on %d hosts; layout %s%s" % (cls, job.n, job.nhosts, job.layout,
                                                                    ("; " + "; ".join(job.notes)) if job.notes else "")}
        if not host:
            truth.pop("first_host")
            truth["first_host"] = None
        with open(os.path.join(tdir, "truth.json"), "w") as f:
            json.dump(truth, f, indent=1)
        return case
    raise RuntimeError("no scenario for case %d" % idx)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("suite")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--count", type=int, default=120)
    s.add_argument("--out", required=True)
    s.add_argument("--truth-dir", required=True)
    s.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.truth_dir, exist_ok=True)
    counts = {}
    for i in range(a.count):
        c = make_case(a.seed, i, a.out, a.truth_dir)
        k = c.split("_", 1)[1]
        counts[k] = counts.get(k, 0) + 1
    if not a.quiet:
        print("independent_sim: %d cases (seed %d): %s" % (a.count, a.seed,
              ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
