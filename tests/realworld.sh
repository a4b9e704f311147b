#!/bin/sh
# Real-log corpus: diagnose every case of tests/data/realworld (logs assembled
# from failure shapes pasted in public issue threads) and score class, first
# rank and first host per class, for the dev and the held-out split.
#
# The floors are regression floors, per split: what the engine measures,
# rounded down (issue 11, 86 cases: dev 1.00/1.00/0.97, held-out
# 0.86/0.72/0.71 for class/rank/host; the fifth batch's held-out cases took
# held-out host from 0.81 to 0.71; then 86 cases: dev 1.00/1.00/1.00,
# held-out 0.94/0.81/0.81; 106 cases with the sixth batch: dev
# 1.00/0.98/1.00, held-out 0.91/0.76/0.70; 126 cases with the seventh batch
# and the engine's zone, launch, survival and overflow kinds: dev
# 1.00/1.00/1.00, held-out 0.95/0.82/0.77; 146 cases with the eighth batch:
# dev 0.99/0.95/0.96, held-out 0.92/0.85/0.82, the drop coming from the
# batch's 20 cases the engine has not seen, not from a regression: the dev
# rank and host floors follow the measure down until the engine reads the
# new dev shapes; 156 cases with the engine batch (10 dev) and the round's
# chained-exception, interleaved-traceback, store-host and clock work: dev
# 1.00/0.99/1.00, held-out 0.92/0.86/0.87; 166 cases with engine batch 2
# (10 dev launch shapes), the init trail and launch rules: dev 1.00/1.00/1.00,
# held-out unchanged; 176 cases with the ninth batch, scored with the engine
# before either: dev 0.99/0.98/1.00, held-out 0.89/0.84/0.84, the held-out
# drop coming from the batch's 10 held-out cases the engine had never seen,
# not from a regression; 186 cases with both merged and the round's
# container, common-mode and mutual link-error work: dev 1.00/1.00/1.00,
# held-out 0.91/0.84/0.84; 202 cases with the tenth batch, scored with the
# engine before it: dev 0.98/1.00/1.00, held-out 0.89/0.82/0.83, the drops
# coming from the batch's 2 dev and 2 held-out cases the engine reads as
# another class, not from a regression: the 194 earlier cases still score
# dev 1.00/1.00/1.00, held-out 0.91/0.84/0.84; with the round's engine dev
# is 1.00/1.00/1.00 again, held-out unchanged at 0.89/0.82/0.83: its misses
# are not tuned on; 210 cases with the eleventh batch, first scored with
# that engine: dev 1.00/1.00/1.00, held-out 0.87/0.83/0.82, the batch's
# held-out half 2/4, 4/4, 1/2; 218 with the twelfth: dev 1.00/1.00/1.00,
# held-out 0.85/0.84/0.81, its held-out half 2/4, 4/4, 2/3 at first score;
# 266 with batches 13-18 (48 cases, each batch scored by the engine of its
# day before any change for it: dev 18/24, 19/24, 13/15, held-out 22/24,
# 20/24, 12/16): dev 0.99/0.99/1.00, held-out 0.87/0.84/0.79, the 88 earlier
# held-out cases unchanged at 75/88, 74/88, 42/52 and the new held-out half
# unchanged since its first score; 298 with batches 19-22: dev 0.99/0.99/1.00,
# held-out 0.87/0.82/0.80, batch 22's held-out half 2/4 on rank at first
# score taking the rank floor to 0.82; 330 with batches 23-26, first scored
# by the engine of their day: dev 0.99/0.99/1.00, held-out 0.85/0.84/0.79,
# batch 26's held-out half (cluster managers other than Slurm) 0/4 on class
# at first score taking the class floor to 0.84 and the host floor to 0.78;
# 346 with batches 27-28 (schedulers other than Slurm, long fine-tuning
# logs): dev 0.99/0.99/1.00 with two dev misses left (192/194), the dev
# floors at 0.98, held-out 0.85/0.84/0.79; 378 with batches 29-32: dev
# 0.99/1.00/1.00, held-out 0.83/0.85/0.80, batch 31's held-out half
# (JAX/XLA, TensorFlow, Horovod) 0/4 on class at first score taking the
# class floor to 0.83; 410 with batches 33-36: dev 0.99/0.99/0.99 (224/226),
# held-out 0.84/0.84/0.79, the rank floor to 0.83; 466 with batches 37-43
# (56 cases, each scored by the engine of its day before any change for it:
# held-out 19/28, 26/28, 8/15 at first score, unchanged since): dev
# 0.98/0.98/0.99, held-out 0.83/0.87/0.76, the 184 earlier held-out cases
# 156/184, 158/184, 87/110; the class floor to 0.82 and the host floor to
# 0.75 for the new batches' held-out halves (0/4 and 1/4 on class for the
# multi-node-host and non-PyTorch batches), the rank floor to 0.86, dev
# class to 0.97 for their dev halves' conventions left alone; 482 with
# batches 44-45, held-out halves 4/8, 7/8, 3/7 at first score (jobs ended
# outside Slurm's banner: 1/4 on class): held-out 0.81/0.87/0.74, dev
# 0.97/0.98/0.98, the class, host and dev rank floors to 0.81, 0.74, 0.97;
# 498 with batches 46-47, held-out halves 5/8, 7/8, 3/5 at first score
# (Slurm preemptions and node failures: 1/4 on class): held-out
# 0.81/0.87/0.74, dev 0.97/0.97/0.97, the class, host and dev host floors to
# 0.80, 0.73, 0.97; 562 with batches 48-55, first scored held-out 12/16,
# 13/16, 5/11 (48-51) and 13/16, 10/16, 6/7 (52-55), dev 10/16, 12/16, 7/13
# and 12/16, 14/16, 5/8: held-out 0.81/0.86/0.74 (rank 223/260, just under
# 0.86), dev 0.97/0.97/0.97 (292, 294 of 302, host 175/181): the held-out
# rank floor to 0.85, the dev class and host floors to 0.96; 626 with
# batches 56-63, first scored held-out 11/16, 14/16, 7/10 (56-59) and 9/16,
# 11/16, 9/13 (60-63), dev 11/16, 13/16, 8/11 and 10/16, 12/16, 4/14:
# held-out 0.80/0.86/0.74 (class 233/292), dev 0.96/0.97/0.94 (319, 325 of
# 334, host 194/206): the held-out class floor to 0.79, the dev class and
# host floors to 0.95 and 0.94; 682 with batches 64-71 (70 never written),
# first scored held-out 7/16, 13/16, 2/8 (64-67: cancels, preemptions,
# launch and network wording) and 10/12, 9/12, 5/6 (68-71): held-out
# 0.79/0.85/0.73 (host 140/192, just under 0.73), dev 0.96/0.97/0.95: the
# held-out host floor to 0.72; 874 with batches 72-95, first scored held-out
# 30/32, 15/20, 17/20 (72-79), 17/32, 9/15, 12/22 (80-87: network, NaN,
# hangs without watchdogs, launch, other schedulers) and 17/32, 4/6, 7/16
# (88-95): held-out 0.78/0.85/0.75 (the 320 older held-out cases rose to
# 260, 276, 150/192), dev 0.95/0.95/0.93: the held-out class floor to 0.78,
# the host floor up to 0.75, the dev rank and host floors to 0.95, 0.93;
# 1034 with batches 96-115, 160 cases weighted to the held-out split's
# weakest classes (launch failures, preemptions, cancels, time limits,
# hangs stopped from outside), first scored held-out at 47/80 on class,
# 54/80 at the round's end: held-out 0.77/0.85/0.74, dev 0.93/0.93/0.90
# (the 416 older held-out cases 326 -> 331 on class, rank and host
# unchanged at 355 and 189/250): the floors to the new measures, rounded
# down; 1098 with batches 116-123 (launch failures, preemptions, cancels
# and time limits, network, hangs, GPU and CUDA errors, memory, stacks
# other than DDP), first scored held-out 18/32, 9/14 (where the truth
# names a rank), 14/23: held-out 0.77/0.86/0.74, dev 0.94/0.94/0.89 (the
# batches' dev halves 28/32 on class after the round, host 19/28): the
# dev host floor to 0.89); 1162 with batches 124-131 (preemptions naming the
# node, launch failures outside torchrun, network, cancels and hangs ended
# by a cancel, filesystems, host memory, NaN origins, node failures and
# limits), first scored held-out 19/32, 12/16 (where the truth names a
# rank), 18/26, unchanged at the round's end: held-out 0.77/0.86/0.74
# (430/560, just under 0.77; host 249/337), dev 0.93/0.94/0.89 (559/602,
# host 342/386): the held-out class and host floors to 0.76 and 0.73, the
# dev class and host floors to 0.92 and 0.88); 1226 with batches 132-139
# (CUDA errors, GPU hardware, CUDA OOM, one rank's Python exception,
# segfaults, time limits, node failures, hangs with flight-recorder dumps:
# the classes the engine reads best), first scored held-out 27/32, 14/20,
# 25/29: held-out 0.77/0.85/0.75 (rank 503/592, just under 0.85), dev
# 0.93/0.93/0.88: the held-out class and host floors back up to 0.77 and
# 0.74, the rank floor to 0.84); 1338 with batches 140-153 (launch
# failures, network faults, preemptions, user cancels, time limits and
# hangs without dumps, then node failures, filesystem ends, host OOM,
# segfaults, CUDA OOM, Python exceptions, NaN origins and GPU hardware),
# whose held-out halves first scored 36/56, 49/56 on rank and 29/47 on
# host with the engine of the round's start (0.76/0.85/0.73 over all 648
# held-out cases then); with the round's engine held-out 0.770/0.852/0.775
# (499/648, 552/648, 320/413), dev 0.926/0.936/0.904 (639/690, 646/690,
# 414/458): the held-out class floor to 0.76 (499/648 sits on 0.77 with
# no case to spare), rank to 0.85, host to 0.77, the dev host floor to 0.90;
# 1530 with batches 154-177 (192 cases weighted to launch failures,
# network faults, preemptions, user cancels and time limits, the weakest
# held-out classes, then hangs, node failures, filesystem, host OOM,
# segfaults, CUDA errors, GPU hardware, NaN origins), whose held-out halves
# first scored 49/96 on class, 82/96 on rank and 42/76 on host with the
# engine of the round's start (0.74/0.85/0.74 over all 744 held-out cases
# then); with the round's engine held-out 0.743/0.851/0.748 (553/744,
# 633/744, 366/489; a host counts right under any name the verdict gives
# it, first.aliases: 361/489 by its first name alone), dev 0.912/0.926/0.891
# (717/786, 728/786, 472/530): the held-out floors to 0.74, 0.85 and 0.74,
# the dev floors to 0.91, 0.92 and 0.89; 1594 with batches 184-185
# (preemption and eviction with the platform's notice, network faults on one
# node), whose held-out halves first scored 4/8 on class, 6/8 on rank and
# 4/7 on host with the engine of the round's start; with the round's engine
# held-out 0.751/0.849/0.760 (583/776, 659/776, 392/516), dev
# 0.923/0.928/0.899 (755/818, 759/818, 497/553): the held-out rank floor to
# 0.84 (659/776 is one case under 0.85), the held-out host floor to 0.75;
# 1674 with batches 192-195 (preemptions across schedulers, network faults
# on one node, launch failures, user cancellations), whose held-out halves
# first scored 11/16 on class, 16/16 on rank and 8/13 on host with the
# engine of the round's start; with the round's engine held-out
# 0.757/0.853/0.765 (618/816, 696/816, 417/545), dev 0.923/0.929/0.893
# (792/858, 797/858, 524/587): the held-out floors to 0.75, 0.85 and 0.76,
# the dev class floor to 0.92; a terminal's "^C" echo read as the user's
# stop (a line-start literal): held-out 0.762 (622/816), the class floor to
# 0.76; with plain words read whatever tool says them (preempted, stopped by
# a person, a wall-clock limit exceeded), Slurm's memory-limit kill, a
# kernel panic, a node listed preempted, a program that cannot start:
# held-out 0.775/0.854/0.771 (632/816, 697/816, 420/545), dev
# 0.925/0.930/0.896 (794/858, 798/858, 526/587): the held-out class floor
# to 0.77; 1756 with batches 196-206 (82 cases weighted to the held-out
# split's weakest shapes: launch failures raised as Python exceptions, hangs
# ended from outside, preemption that looks like a node loss, network faults
# in unusual words, other tools' cancels, OOMs and limits, non-finite values
# ending as exceptions, memory, framework wrappers, loud cancels, time
# limits, native crashes), whose held-out halves first scored 24/41 on class,
# 30/41 on rank and 14/20 on host with the engine of their day; with the
# round's engine held-out 0.772/0.849/0.772 (662/857, 728/857, 436/565; the
# 816 earlier held-out cases 636/698/422 against 633/697/421 at the round's
# start), dev 0.925/0.927/0.904 (832/899, 833/899, 547/605): the held-out
# rank floor to 0.84 (728/857 is half a case under 0.85); 1788 with batches
# 207-210 (32 cases: preemption that looks like something else, network
# faults in unusual words, launch failures raised as Python exceptions,
# hangs ended from outside against genuine cancels), whose held-out halves
# first scored 12/16 on class, 15/16 on rank and 6/9 on host; 1820 with
# batches 211-214 (32 cases: a whole host gone against a reclaimed node or
# its link, one host's link mid-training, launch failures called something
# else, hangs whose log shows who diverged), whose held-out halves first
# scored 10/16 on class, 11/16 on rank and 6/11 on host; 1852 with batches
# 215-218 (32 cases: other tools' quiet cancels and limits, host memory
# running out in few words, network faults that end as watchdog timeouts,
# non-finite values ending as exceptions), whose held-out halves first
# scored 9/16 on class, 13/16 on rank and 6/10 on host: the held-out class
# floor to 0.76 (695/905 with them, 0.768); 1884 with batches 219-222 (32
# cases: launch failures raised inside frameworks, preemption that looks
# like a cancel, cancels that look unknown, network faults that look like
# hangs), whose held-out halves first scored 13/16 on class, 15/16 on rank
# and 7/7 on host; 1916 with batches 223-226 (32 cases: launch failures in
# few words, preemption decided by the cloud's records, hangs a stop ended
# with clues of who diverged, native crashes with loud peers), whose
# held-out halves first scored 11/16 on class, 14/16 on rank and 11/14 on
# host; with the round's engine held-out 0.769/0.856/0.766 (721/937,
# 802/937, 472/616; the 857 held-out cases of the round's start 665/732/436
# against 662/728/436), dev 0.926/0.930/0.902 (907/979, 910/979,
# 595/660): the held-out rank floor back to 0.85; 1980 with batches 227-234
# (64 cases: launch failures taken for something else, hangs ended from
# outside, preemption against node failure by the platform's records,
# network faults in other words, one rank's exception or OOM behind
# survived warnings, host memory and storage, non-finite values and failing
# GPUs, limits and cancels behind louder noise), whose held-out halves
# first scored 20/32 on class, 25/32 on rank and 18/22 on host; 2044 with
# batches 235-242 (64 cases: start-up failures raised as generic
# exceptions, hangs shown only by structure and time, limits and cancels
# in few words, network faults named indirectly, preemption in other
# shapes, hosts derived from unusual places, kernel logs that decide,
# frameworks beyond torchrun), whose held-out halves first scored 22/32 on
# class, 25/32 on rank and 10/21 on host with that round's engine; with the
# round's engine held-out 0.769/0.852/0.759 (770/1001, 853/1001, 500/659;
# the 937 held-out cases of the round's start 727/802/472 against
# 721/802/472), dev 0.917/0.924/0.896 (956/1043, 964/1043, 632/705): the
# held-out host floor to 0.75 and the dev class floor to 0.91, the new
# cases being harder than the old (first scores above); 2108 with batches
# 243-250 (64 cases: preemption across clouds and schedulers, cancels of
# healthy jobs against cancels that ended a hang, start-up failures against
# first-step exceptions, hangs on other stacks, jobs with little evidence,
# one rank failing mid-training, host-side failures, device faults beyond
# NVIDIA), whose held-out halves first scored 26/32 on class, 28/32 on rank
# and 15/17 on host; 2172 with batches 251-258 (64 cases: launch failures
# in frameworks' words, hangs shown by structure, network faults named
# indirectly, preemption against node loss, memory, GPU faults against CUDA
# bugs, jobs outside Slurm, storage), whose held-out halves first scored
# 21/32 on class, 26/32 on rank and 17/25 on host; with the round's engine
# held-out 0.770/0.854/0.760 (820/1065, 910/1065, 533/701; the 1001
# held-out cases of the round's start 772/855/500 against 770/853/500), dev
# 0.918/0.926/0.898 (1016/1107, 1025/1107, 666/742); 2236 with batches
# 259-266 (64 cases: hangs ended by stops, start-up failures in clouds,
# network faults on IB/RoCE/EFA, Slurm's record of lost jobs, user stops
# outside scancel, non-finite losses across frameworks, host memory,
# native crashes), whose held-out halves first scored 26/32 on class, 24/32
# on rank and 17/22 on host; 2300 with batches 267-274 (64 cases: ranks
# that went different ways before a stop, preemption against node loss on
# indirect evidence, one rank's exception under many launchers, GPU
# hardware against look-alikes, time limits in other words, launch
# failures that look like exceptions, GPU OOM shapes, ranks and hosts in
# unusual places), first 25/32, 26/32 and 22/24; 2364 with batches 275-282
# (64 cases: hangs shown by stacks at a stop, network faults that surface
# as something else, one node's launch failure, cancels and limits after
# earlier failures, storage, crashes at the runtime's boundary, other
# schedulers, clock skew), first 21/32, 26/32 and 18/24; with the round's
# engine held-out 0.771/0.854/0.765 (895/1161, 991/1161, 590/771; the 1065
# held-out cases of the round's start 823/915/533 against 820/910/533),
# dev 0.912/0.920/0.892 (1097/1203, 1107/1203, 724/812); 2428 with
# batches 283-290 (preemptions against node failures, hangs only structure
# explains, one rank's exception under victims, GPU faults, launch failures
# that look like others, memory, pasted shapes, other frameworks), first
# scored held-out 25/32, 24/32, 22/27 (dev 29/32, 30/32, 26/29); 2492 with
# batches 291-298 (NaN origins, network faults, native crashes, storage,
# healthy jobs stopped, CUDA errors, jobs over several files, cloud
# platforms), first held-out 22/32, 24/32, 21/25 (dev 24/32, 22/32,
# 18/24); with the round's engine held-out 0.773/0.850/0.779 (947/1225,
# 1041/1225, 641/823; the 1161 held-out cases of the round's start
# 899/992/598 against 895/991/590), dev 0.915/0.919/0.895 (1159/1267,
# 1164/1267, 774/865): the held-out rank floor to 0.84 and the dev rank
# floor to 0.91 for the new halves' first scores. 2556 with batches 299-306
# (hangs a stop ended, derived network hosts, launch shapes, GPU faults
# beside stale Xids, NaN origins, host memory and file systems, other
# frameworks, flight recorder and desync reports), first scored held-out
# 28/32, 26/32, 18/22 (dev 26/32, 29/32, 23/28); 2620 with batches 307-314
# (preemptions and look-alikes, user cancels, time limits across
# platforms, one rank's exception, native crashes, late CUDA errors, node
# failures, one rank's CUDA OOM), first held-out 27/32, 26/32, 15/19 (dev
# 19/32, 29/32, 16/21); with the round's engine held-out 0.779/0.849/0.781
# (1004/1289, 1094/1289, 675/864; the 1225 held-out cases of the round's
# start 949/1042/642 against 947/1041/641), dev 0.914/0.921/0.897
# (1217/1331, 1226/1331, 820/914): the held-out class and host floors up
# to 0.77. 2684 with batches 315-322 (hangs a stop ended against healthy
# jobs stopped, jobs with little evidence, launch failures in unusual
# places, network faults that surface as something else, preemption
# against node loss by indirect evidence, one rank's failure beyond DDP,
# host memory and storage with decoys, GPU faults against look-alikes),
# first scored held-out 18/32, 26/32, 16/21 (dev 20/32, 27/32, 13/23):
# the dev host floor to 0.88 for the new dev half (833/937 at first score);
# with the round's engine held-out 0.774/0.848/0.781 (1023/1321, 1120/1321,
# 691/885; the 1289 held-out cases of the round's start 1005/1094/675
# against 1004/1094/675, the new held-out halves unchanged since their
# first score), dev 0.914/0.920/0.890 (1246/1363, 1254/1363, 834/937: the
# dev host floor stays at 0.88, 834/937 sitting on 0.89 with no case to
# spare). 2748 with batches 323-330 (preemption as clouds show it, network
# faults behind louder victims, hangs a person or the limit ended, launch
# failures as tracebacks, NaN origins, Ray/JAX/TPU/Kubernetes workers,
# time limits and cancels across schedulers, storage faults as Python
# exceptions), first scored held-out 20/32, 27/32, 10/15 (dev 21/32,
# 24/32, 10/18); with the round's engine held-out 0.774/0.848/0.780
# (1047/1353, 1147/1353, 702/900; the 1321 held-out cases of the round's
# start 1026/1121/691 against 1023/1120/691, the new held-out halves
# 21/26/11), dev 0.913/0.917/0.887 (1273/1395, 1279/1395, 847/955).
# 2811 with batches 331-338 (63 cases: hangs singled out by structure,
# preemption against node loss, start-up failures that look like network
# faults, stops outside Slurm, host and shared memory, GPU hardware against
# look-alikes, cloud fabrics, schedulers other than Slurm), first scored
# held-out 20/31, 30/31, 14/20 (dev 23/32, 27/32, 21/27); with the round's
# engine held-out 0.773/0.850/0.779 (1070/1384, 1177/1384, 717/920; the
# 1321 held-out cases of the round's start 1023/1120/691 against
# 1028/1121/693), dev 0.910/0.915/0.887 (1299/1427, 1306/1427, 871/982):
# the dev class floor to 0.90 for the new dev halves (0.72 at first score),
# 1299/1427 sitting on 0.910 with one case to spare.
# 3053 with batches 365-370 (48 cases: hangs a person stopped, start-up
# failures of the environment, network faults outside plain DDP, preemption
# and node loss, storage faults and time limits, NaN/GPU/host-memory faults
# with decoys), first scored held-out 16/24, 17/24, 12/15 (dev 10/24,
# 19/24, 7/14); with the round's engine held-out 0.774/0.849/0.778
# (1164/1503, 1276/1503, 771/991), dev 0.905/0.912/0.881 (1402/1550,
# 1413/1550, 939/1066). 3101 with batches 371-376 (48 cases: start-up
# failures that surface as tracebacks, stops outside Slurm, host and shared
# memory, hangs where one rank differs, CUDA errors and crashes, GPU OOM and
# time limits in long runs), first scored held-out 15/24, 23/24, 13/14 (dev
# 17/24, 20/24, 14/16); with the round's engine held-out 0.772/0.850/0.781
# (1179/1527, 1298/1527, 785/1005), dev 0.903/0.911/0.883 (1422/1574,
# 1434/1574, 955/1082): dev rank two cases over its floor. 3149 with
# batches 377-382 (48 cases: network faults in memory registration and
# verbs resources, preemption in many shapes, hangs where one rank differs,
# storage faults with decoys, launch failures that look like others, stops
# from outside), first scored held-out 19/24, 18/24, 11/12 (dev 17/24,
# 12/24, 11/16); with the round's engine held-out 0.772/0.848/0.783
# (1197/1551, 1316/1551, 796/1017; the 1527 held-out cases of the round's
# start 1178/1298/785 against 1179/1298/785), dev 0.904/0.907/0.883
# (1445/1598, 1449/1598, 969/1098; the new dev halves 21/24, 15/24,
# 14/16): the dev rank floor to 0.90 for the new dev half (12/24 on rank at
# first score).
# 3245 with batches 383-394 (96 cases: GPU faults from the job's side,
# host memory, numeric and Python errors on one rank, CUDA memory and
# errors under louder peers, native crashes, network faults mid-training,
# nodes dying, preemption against other stops, hangs named by structure,
# how a job was stopped, storage failures, failures to start), first scored
# held-out 19/24, 22/24, 16/19 and 16/24, 23/24, 12/16 (dev 20/24, 21/24,
# 18/22 and 12/24, 17/24, 12/15); with the round's engine held-out
# 0.771/0.851/0.785 (1233/1599, 1361/1599, 826/1052; the 1551 held-out
# cases of the round's start 1197/1316/796 against 1198/1316/798), dev
# 0.905/0.905/0.881 (1489/1646, 1489/1646, 1000/1135; the new dev halves
# 39/48, 40/48, 31/37): floors unchanged, with one case to spare on dev
# host and one on held-out class.
# Raise them as the engine improves;
# the goal (issue 11) is 0.95 on each. Override with REALWORLD_MIN_CLASS,
# REALWORLD_MIN_RANK, REALWORLD_MIN_HOST (held-out) and REALWORLD_DEV_MIN_*.
REALWORLD_MIN_CLASS=${REALWORLD_MIN_CLASS:-0.77}
REALWORLD_MIN_RANK=${REALWORLD_MIN_RANK:-0.84}
REALWORLD_MIN_HOST=${REALWORLD_MIN_HOST:-0.77}
REALWORLD_DEV_MIN_CLASS=${REALWORLD_DEV_MIN_CLASS:-0.90}
REALWORLD_DEV_MIN_RANK=${REALWORLD_DEV_MIN_RANK:-0.90}
REALWORLD_DEV_MIN_HOST=${REALWORLD_DEV_MIN_HOST:-0.88}

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
DENPEX=${DENPEX:-$top_builddir/denpex}
corpus=${REALWORLD_CORPUS:-$top_srcdir/tests/data/realworld}

if [ ! -x "$DENPEX" ]; then
	echo "realworld: ERROR: $DENPEX is not built"
	exit 99
fi
"$PYTHON3" "$top_srcdir/tests/sim/score_realworld.py" --denpex "$DENPEX" \
	--corpus "$corpus" --min-class "$REALWORLD_MIN_CLASS" \
	--min-rank "$REALWORLD_MIN_RANK" --min-host "$REALWORLD_MIN_HOST" \
	--dev-min-class "$REALWORLD_DEV_MIN_CLASS" --dev-min-rank "$REALWORLD_DEV_MIN_RANK" \
	--dev-min-host "$REALWORLD_DEV_MIN_HOST" \
	--verdicts-out "$top_builddir/tests/realworld.verdicts.json"
rc=$?
# 2: the corpus itself is unusable (empty, malformed): a hard error, not a pass.
[ $rc -eq 2 ] && exit 99
exit $rc
