#!/usr/bin/env python3
"""A stand-in for a distributed PyTorch training step, for the Slurm
integration tests: run one copy per rank under srun; it writes the kind of
output real jobs leave (NCCL INFO lines into NCCL_DEBUG_FILE, torch
"[rankR]:" prefixed logs, ProcessGroupNCCL watchdog timeouts, tracebacks)
and fails the way it is told.

    fake_train.py MODE [--culprit R] [--steps N] [--timeout S]

MODE: success | exception | sigkill | cuda_oom | hang
The culprit rank fails first; every other rank then reports a collective
timeout (a victim) and aborts, as ProcessGroupNCCL's watchdog does.
"""
import argparse
import datetime
import os
import signal
import socket
import sys
import time


def now_glog():
    t = datetime.datetime.now()
    return t.strftime("%m%d %H:%M:%S.") + "%06d" % t.microsecond


def nccl_ts():
    t = datetime.datetime.now()
    return t.strftime("[%Y-%m-%d %H:%M:%S.") + "%06d] " % t.microsecond


class Rank:
    def __init__(self):
        self.rank = int(os.environ.get("SLURM_PROCID", "0"))
        self.world = int(os.environ.get("SLURM_NTASKS", "1"))
        self.local = int(os.environ.get("SLURM_LOCALID", "0"))
        self.host = socket.gethostname()
        self.node = os.environ.get("SLURMD_NODENAME", self.host)
        self.pid = os.getpid()
        self.nccl = None
        path = os.environ.get("NCCL_DEBUG_FILE")
        if path:
            path = path.replace("%h", self.host).replace("%p", str(self.pid))
            try:
                self.nccl = open(path, "a", buffering=1)
            except OSError:
                self.nccl = None

    def log(self, msg, stream=sys.stdout):
        # torch's distributed logging prefix carries the global rank.
        stream.write("[rank%d]:%s\n" % (self.rank, msg))
        stream.flush()

    def glog(self, level, where, msg):
        self.log("[%s%s %d %s] %s" % (level, now_glog(), self.pid, where, msg), sys.stderr)

    def nccl_info(self, msg):
        line = "%s%s:%d:%d [%d] NCCL INFO %s\n" % (nccl_ts(), self.host, self.pid, self.pid,
                                                   self.local, msg)
        if self.nccl:
            self.nccl.write(line)
        else:
            sys.stdout.write(line)
            sys.stdout.flush()


def traceback(r, exc_lines):
    err = sys.stderr
    r.log("Traceback (most recent call last):", err)
    r.log('  File "/opt/train/train.py", line 211, in <module>', err)
    r.log("    main()", err)
    r.log('  File "/opt/train/train.py", line 187, in main', err)
    r.log("    loss = model(batch)", err)
    for line in exc_lines:
        r.log(line, err)


def victim(r, seq, timeout_s):
    # Waits for the collective the culprit never joins, then times out.
    time.sleep(timeout_s)
    r.glog("E", "ProcessGroupNCCL.cpp:616",
           "[Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, "
           "OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=%d) ran for %d "
           "milliseconds before timing out." % (r.rank, seq, timeout_s * 1000,
                                                 timeout_s * 1000 + 123))
    r.glog("E", "ProcessGroupNCCL.cpp:1664",
           "[PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either an error or timeout) "
           "detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL "
           "work: %d." % (r.rank, seq, seq, seq - 1))
    r.glog("E", "ProcessGroupNCCL.cpp:630",
           "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous "
           "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete "
           "data." % r.rank)
    r.log("terminate called after throwing an instance of 'c10::DistBackendError'", sys.stderr)
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGABRT)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["success", "exception", "sigkill", "cuda_oom", "hang"])
    ap.add_argument("--culprit", type=int, default=1)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=3)
    a = ap.parse_args()
    signal.signal(signal.SIGABRT, signal.SIG_DFL)
    r = Rank()
    r.nccl_info("Bootstrap : Using eth0:10.0.0.%d<0>" % (r.rank + 1))
    r.nccl_info("NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.")
    r.nccl_info("cudaDriverVersion 12040")
    r.nccl_info("comm 0x55d0c1a0 rank %d nranks %d cudaDev %d nvmlDev %d busId 1b000 commId "
                "0x8c2f6c1e2d9a4b3f - Init START" % (r.rank, r.world, r.local, r.local))
    r.nccl_info("comm 0x55d0c1a0 rank %d nranks %d cudaDev %d nvmlDev %d busId 1b000 commId "
                "0x8c2f6c1e2d9a4b3f - Init COMPLETE" % (r.rank, r.world, r.local, r.local))
    r.log("[I%s %d train.py:120] world_size=%d rank=%d local_rank=%d host=%s" %
          (now_glog(), r.pid, r.world, r.rank, r.local, r.node))
    seq = 40
    for step in range(a.steps):
        time.sleep(0.2)
        seq += 1
        r.log("step %d loss %.4f" % (step, 2.5 / (step + 1)))
    if a.mode == "success":
        r.log("training finished")
        return 0
    if a.mode == "hang":
        while True:
            r.log("step waiting on dataloader")
            time.sleep(1)
    seq += 1
    if r.rank != a.culprit:
        victim(r, seq, a.timeout)
        return 1
    if a.mode == "exception":
        traceback(r, ['  File "/opt/train/model.py", line 88, in forward',
                      "    raise RuntimeError(f\"bad batch shape {x.shape}\")",
                      "RuntimeError: bad batch shape torch.Size([0, 4096])"])
        return 1
    if a.mode == "cuda_oom":
        traceback(r, ['  File "/opt/train/model.py", line 64, in forward',
                      "    h = self.mlp(x)",
                      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
                      "GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free. "
                      "Including non-PyTorch memory, this process has 78.08 GiB memory in use. "
                      "Of the allocated memory 76.20 GiB is allocated by PyTorch, and 1.31 GiB "
                      "is reserved by PyTorch but unallocated."])
        return 1
    if a.mode == "sigkill":
        # As the kernel's OOM killer would: no message from the process itself.
        os.kill(os.getpid(), signal.SIGKILL)
    return 1


if __name__ == "__main__":
    sys.exit(main())
