#!/usr/bin/python3
"""A small real PyTorch DDP training job (CPU, gloo) for the end-to-end
Slurm tests (tests/slurm/torch_integration.sh). Run one copy per rank under
srun, or under torchrun; it trains a tiny model and dies the way it is told.

    ddp_train.py MODE [--culprit R] [--fail-step K] [--steps N] [--timeout S]
                      [--ready-dir D]

MODE
  train      train --steps steps (0: until stopped) and exit 0
  exception  rank R raises in its training step at step K
  hang       rank R stops calling collectives at step K (stuck in its own
             work); the others hit their gloo timeout
  segfault   rank R crashes in native code (ctypes reads address 0)
  nan        rank R's batch gets a NaN at step K: its local loss is NaN,
             the all-reduced loss follows and every rank stops
  alloc      rank R allocates host memory at step K until it is stopped

Nothing here prints a failure verdict: what the logs say comes from Python,
torch, gloo, the kernel and Slurm. With --ready-dir, each rank writes
D/rank<R> ("pid node host") once its process group is up, so the test can
act on a running job (signals, kernel messages, a killed node).
"""
import argparse
import ctypes
import datetime
import logging
import math
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel


def env_int(names, default):
    for n in names:
        v = os.environ.get(n)
        if v is not None and v != "":
            return int(v)
    return default


def write_ready(directory, rank, node):
    path = os.path.join(directory, "rank%d" % rank)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d %s %s\n" % (os.getpid(), node, socket.gethostname()))
    os.rename(tmp, path)


def grab_memory(cap_mib):
    # Touched pages, so the memory is really charged to the cgroup; capped,
    # so a node without memory enforcement is not taken down (then it waits).
    hog = []
    while len(hog) * 64 < cap_mib:
        hog.append(torch.ones(16 * 1024 * 1024))  # 64 MiB
        time.sleep(0.05)
    time.sleep(3600)


@record
def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["train", "exception", "hang", "segfault", "nan", "alloc"])
    p.add_argument("--culprit", type=int, default=-1)
    p.add_argument("--fail-step", type=int, default=3)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--timeout", type=float, default=20)
    p.add_argument("--step-time", type=float, default=0.3)
    p.add_argument("--ready-dir")
    p.add_argument("--alloc-cap-mib", type=int, default=3072)
    a = p.parse_args()

    # torchrun sets RANK/WORLD_SIZE/LOCAL_RANK; srun alone sets SLURM_*.
    rank = env_int(["RANK", "SLURM_PROCID"], 0)
    world = env_int(["WORLD_SIZE", "SLURM_NTASKS"], 1)
    node = os.environ.get("SLURMD_NODENAME", socket.gethostname())
    # A training script's usual log lines, timestamped, on stdout.
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(message)s", level=logging.INFO,
                        stream=sys.stdout)
    log = logging.getLogger("train")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=a.timeout))
    if a.ready_dir:
        write_ready(a.ready_dir, rank, node)
    log.info("rank %d of %d on %s: process group up (gloo)", rank, world, node)

    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(1000 + rank)
    culprit = rank == a.culprit
    step = 0
    while a.steps == 0 or step < a.steps:
        step += 1
        x = torch.randn(16, 32, generator=gen)
        y = x.sum(dim=1, keepdim=True)
        if culprit and step == a.fail_step:
            if a.mode == "exception":
                labels = {"train": 0, "eval": 1}
                split = "test"
                x = x + labels[split]  # KeyError: 'test'
            elif a.mode == "hang":
                time.sleep(3600)  # stuck in its own work, no collective
            elif a.mode == "segfault":
                ctypes.string_at(0)
            elif a.mode == "nan":
                x[3, 7] = float("nan")
            elif a.mode == "alloc":
                grab_memory(a.alloc_cap_mib)
        loss = nn.functional.mse_loss(model(x), y)
        log.info("rank %d step %d loss: %.4f", rank, step, loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
        mean = loss.detach().clone()
        dist.all_reduce(mean)
        mean /= world
        if rank == 0:
            log.info("step %d mean loss: %.4f", step, mean.item())
        if not math.isfinite(mean.item()):
            raise FloatingPointError("mean loss is %s at step %d, stopping" % (mean.item(), step))
        time.sleep(a.step_time)
    dist.barrier()
    dist.destroy_process_group()
    log.info("rank %d done after %d steps", rank, step)


if __name__ == "__main__":
    sys.exit(main())
