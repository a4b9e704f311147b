// Diagnosis end to end through the library: small bundles written to a
// temporary directory, read with the shipped signatures, judged.
#include "ck_bundle.hh"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace diag;

namespace {

// A job judged end to end: the bundle's files, read with the shipped rules.
struct bundle : ck_bundle {
	bundle() : ck_bundle("denpex-diag") {}
	verdict run()
	{
		analysis an;
		ck_init_analysis(an);
		an.add_path(dir);
		ck_assert_uint_gt(an.usable_sources(), 0);
		return an.run();
	}
};

std::string watchdog(int rank, const std::string &time, long long seq, long long enq, long long done)
{
	char buf[600];
	snprintf(buf, sizeof(buf),
		 "[rank%d]:[E1026 %s ProcessGroupNCCL.cpp:632] [Rank %d] Watchdog caught collective operation timeout: "
		 "WorkNCCL(SeqNum=%lld, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, Timeout(ms)=600000) ran for 600082 "
		 "milliseconds before timing out.\n"
		 "[rank%d]:[E1026 %s ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either an "
		 "error or timeout) detected by watchdog at work: %lld, last enqueued NCCL work: %lld, last completed NCCL "
		 "work: %lld.\n",
		 rank, time.c_str(), rank, seq, rank, time.c_str(), rank, seq, enq, done);
	return buf;
}

std::string init_complete(int rank, const std::string &host, int pid, const std::string &bus, int n)
{
	char buf[300];
	snprintf(buf, sizeof(buf),
		 "%s:%d:%d [%d] NCCL INFO comm 0x55d0c%02x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x7f3a - Init COMPLETE\n",
		 host.c_str(), pid, pid + 50, rank % 8, rank, rank, n, rank % 8, rank % 8, bus.c_str());
	return buf;
}

// Eight ranks' NCCL init lines, four on node01 and four on node02 (pids
// 2000-2007, GPUs 18000, 2a000, 3a000 and 5d000 on each).
std::string two_nodes_of_four()
{
	const char *bus[] = {"18000", "2a000", "3a000", "5d000"};
	std::string log;
	for (int r = 0; r < 8; r++)
		log += init_complete(r, r < 4 ? "node01" : "node02", 2000 + r, bus[r % 4], 8);
	return log;
}

const char *sacct_failed = "JobID|JobName|State|ExitCode|Start|End|NodeList\n"
			   "900|train|FAILED|1:0|2026-10-26T03:00:00|2026-10-26T04:15:00|node[01-02]\n";

} // namespace

START_TEST(cuda_oom_beats_the_flood_of_timeouts)
{
	bundle b;
	std::string log;
	for (int r = 0; r < 8; r++)
		log += "[rank" + std::to_string(r) + "]:step 100 loss 2.1\n";
	log += "[rank5]:Traceback (most recent call last):\n"
	       "[rank5]:  File \"train.py\", line 88, in <module>\n"
	       "[rank5]:    loss.backward()\n"
	       "[rank5]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total "
	       "capacity of 79.10 GiB of which 1.02 GiB is free.\n";
	for (int r = 0; r < 8; r++)
		if (r != 5)
			log += watchdog(r, "04:01:29.922296938", 4410, 4410, 4409);
	b.file("job.out", log);
	b.file("sacct.txt", sacct_failed);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "cuda_oom", 5);
	ck_assert_uint_eq(v.victims.size(), 7);
	ck_assert(v.action == action_kind::reduce_memory);
	DIAG_CK_STR_EQ(v.job_id, "900");
	ck_assert(v.first_source.find("job.out:") != std::string::npos);
}
END_TEST

// A hang whose structure names no rank but whose ranks all ran on one
// machine names that machine, and says no reason it does not have.
START_TEST(a_hang_on_one_machine_says_no_empty_reason)
{
	bundle b;
	std::string log = init_complete(0, "box1", 3000, "18000", 2) + init_complete(1, "box1", 3001, "2a000", 2);
	log += watchdog(0, "04:01:29.922296938", 7559, 7559, 7558);
	log += watchdog(1, "04:01:29.931296938", 7561, 7561, 7560);
	b.file("job.out", log);
	verdict v = b.run();
	ck_assert(v.cls == failure_class::collective_hang);
	ck_assert_msg(v.summary.find(": ;") == std::string::npos && v.summary.back() != ' ', "summary: %s",
		      v.summary.c_str());
	ck_assert_msg(v.cause.size() < 2 || v.cause.compare(v.cause.size() - 2, 2, ": ") != 0, "cause: %s", v.cause.c_str());
}
END_TEST

// DeepSpeed's launcher reports a failure with the last worker's command
// line, whichever worker failed: with two workers its "--local_rank=1"
// names nobody; with one, that worker.
START_TEST(deepspeed_exit_line_names_the_last_spawned_worker)
{
	for (int workers = 1; workers <= 2; workers++) {
		bundle b;
		std::string slots = workers == 1 ? "[0]" : "[0, 1]";
		std::string log = "[2026-05-02 11:00:01,100] [INFO] [launch.py:146:main] WORLD INFO DICT: {'localhost': " + slots + "}\n";
		for (int w = 0; w < workers; w++)
			log += "[2026-05-02 11:00:01,2" + std::to_string(w) + "0] [INFO] [launch.py:256:main] process 9010" +
			       std::to_string(w) + " spawned with command: ['/usr/bin/python', '-u', 'train.py', '--local_rank=" +
			       std::to_string(w) + "']\n";
		log += "Traceback (most recent call last):\n"
		       "  File \"train.py\", line 12, in <module>\n"
		       "RuntimeError: Some tensors share memory, this will lead to duplicate memory on disk\n"
		       "[2026-05-02 11:02:13,118] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 90100\n"
		       "[2026-05-02 11:02:14,001] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', "
		       "'--local_rank=" + std::to_string(workers - 1) + "'] exits with return code = 1\n";
		b.file("job.out", log);
		verdict v = b.run();
		DIAG_CK_VERDICT(v, "python_exception", workers == 1 ? 0 : -1);
	}
}
END_TEST

// pdsh's host prefixes are two writers: one node's retry line does not make
// the other node's traceback, just after it, a handled one.
START_TEST(one_nodes_retry_does_not_handle_another_nodes_traceback)
{
	bundle b;
	b.file("job.out", "gpu-a01: wandb: Network error (ReadTimeout), entering retry loop.\n"
			  "gpu-b02: Traceback (most recent call last):\n"
			  "gpu-b02:   File \"train.py\", line 40, in <module>\n"
			  "gpu-b02: KeyError: 'labels'\n");
	verdict v = b.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "python_exception");
	DIAG_CK_STR_EQ(v.first_host, "gpu-b02");
}
END_TEST

// A chain whose cause is only a generic exception (a socket refused) and
// whose next link says what failed (the rendezvous): that link names it.
START_TEST(a_generic_cause_yields_to_the_link_that_names_the_failure)
{
	bundle b;
	b.file("job.out", "Traceback (most recent call last):\n"
			  "  File \"/usr/lib/python3/socket.py\", line 9, in create_connection\n"
			  "ConnectionRefusedError: [Errno 111] Connection refused\n"
			  "\n"
			  "The above exception was the direct cause of the following exception:\n"
			  "\n"
			  "Traceback (most recent call last):\n"
			  "  File \"/usr/bin/torchrun\", line 8, in <module>\n"
			  "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to etcd has failed. "
			  "See inner exception for details.\n");
	verdict v = b.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "launch_failure");
}
END_TEST

START_TEST(caught_traceback_is_a_decoy)
{
	bundle b;
	std::string log = "[rank2]:WARNING:root:retrying the checkpoint upload\n"
			  "[rank2]:Traceback (most recent call last):\n"
			  "[rank2]:  File \"ckpt.py\", line 12, in upload\n"
			  "[rank2]:ConnectionResetError: [Errno 104] Connection reset by peer\n";
	for (int s = 1; s < 6; s++)
		log += "[rank2]:step " + std::to_string(100 + s) + " loss 2.0" + std::to_string(s) + "\n";
	log += "[rank6]:Traceback (most recent call last):\n"
	       "[rank6]:  File \"train.py\", line 40, in <module>\n"
	       "[rank6]:KeyError: 'labels'\n";
	for (int r = 0; r < 8; r++)
		if (r != 6)
			log += watchdog(r, "04:11:29.100000000", 500, 500, 499);
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "python_exception", 6);
}
END_TEST

START_TEST(chained_exceptions_are_one_failure)
{
	// mp.spawn re-prints its child's traceback under its own exception, and
	// the DataLoader's re-raise prints the original: one failure, rank 1's,
	// named by its original exception.
	bundle b;
	std::string log;
	for (int r = 0; r < 4; r++)
		log += init_complete(r, "ws-p04", 41800 + r, "18000", 4);
	log += "Traceback (most recent call last):\n"
	       "  File \"train.py\", line 48, in main\n"
	       "torch.multiprocessing.spawn.ProcessRaisedException: \n"
	       "\n"
	       "-- Process 1 terminated with the following error:\n"
	       "Traceback (most recent call last):\n"
	       "  File \"/work/train.py\", line 141, in train\n"
	       "ValueError: Caught ValueError in DataLoader worker process 0.\n"
	       "Original Traceback (most recent call last):\n"
	       "  File \"/work/data.py\", line 88, in __getitem__\n"
	       "ValueError: not enough values to unpack (expected 4, got 3)\n";
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "python_exception", 1);
	DIAG_CK_STR_EQ(v.first_host, "ws-p04");
	ck_assert(v.first_line.find("not enough values") != std::string::npos);
}
END_TEST

START_TEST(a_chain_from_a_fault_line_is_one_failure_whatever_bar_is_glued_inside)
{
	// A checkpoint write fails on a full disk; the save's wrapper raises
	// again while handling it, and tqdm's last redraw is glued to the
	// second "Traceback". The bar is no progress after the first fault:
	// the disk is the cause, not the wrapper's RuntimeError.
	bundle b;
	std::string log;
	for (int s = 0; s < 4; s++)
		log += "3:  4" + std::to_string(s) + "%|####| 66" + std::to_string(s) + "/905 [22:55<45:46, 1.31s/it]\n";
	log += "3: Traceback (most recent call last):\n"
	       "3:   File \"/usr/lib/python3/dist-packages/torch/serialization.py\", line 652, in save\n"
	       "3:     _save(obj, opened_zipfile, pickle_module, pickle_protocol)\n"
	       "3: OSError: [Errno 28] No space left on device\n"
	       "3: \n"
	       "3: During handling of the above exception, another exception occurred:\n"
	       "3: \n"
	       "3:  73%|#######| 664/905 [22:55<45:46, 1.31s/it]Traceback (most recent call last):\n"
	       "3:   File \"train.py\", line 83, in train_step\n"
	       "3:     torch.save(state, path)\n"
	       "3: RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 1984 vs 1878\n";
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "filesystem");
	ck_assert(v.first_line.find("No space left") != std::string::npos);
}
END_TEST

START_TEST(a_bar_glued_to_a_watchdog_line_is_no_progress_at_its_time)
{
	// Rank 0 alone logs iterations; the other ranks' tqdm bars were last
	// drawn at some unknown time before their watchdog lines were glued on.
	// Every rank timed out alike: nothing says rank 0 stopped first.
	bundle b;
	std::string log;
	char buf[400];
	for (int i = 0; i < 6; i++) {
		snprintf(buf, sizeof(buf),
			 "[2026-06-22T07:%02d:39.255682Z] 46913f19 [rank=0] ||  iteration %6d/   27591 | lm loss: 2.47E+00 |\n",
			 i, 7829 + i);
		log += buf;
	}
	for (int r = 0; r < 4; r++) {
		snprintf(buf, sizeof(buf),
			 "[2026-06-22T07:26:0%d.450609Z] 46913f19 [rank=%d] || %s[E0622 07:26:0%d.450609640 ProcessGroupNCCL.cpp:632] "
			 "[Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=65131, OpType=ALLREDUCE, "
			 "Timeout(ms)=600000) ran for 600082 milliseconds before timing out.\n",
			 r, r, r == 0 ? "" : " 20%|##| 133/665 [18:34<08:28, 8.78s/it]", r, r);
		log += buf;
	}
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "collective_hang", -1);
}
END_TEST

START_TEST(a_tensorflow_wrapper_of_a_victims_error_is_a_victim)
{
	// "UnknownError: Graph execution error:" wraps the op's message some
	// lines below: Horovod shut down after another rank left is no fault of
	// these ranks; an op's own error (a bad index) is the rank's.
	for (int victim = 0; victim <= 1; victim++) {
		bundle b;
		std::string log;
		for (int r = 1; r <= (victim ? 3 : 1); r++) {
			std::string p = "[1," + std::to_string(r) + "]<stderr>:";
			log += p + "Traceback (most recent call last):\n" + p + "  File \"train.py\", line 260, in _steps\n" + p +
			       "tensorflow.python.framework.errors_impl." + (victim ? "UnknownError" : "InvalidArgumentError") +
			       ": Graph execution error:\n" + p + "\n" + p + "Detected at node 'HorovodAllreduce_1' defined at:\n" + p +
			       "    File \"train.py\", line 545, in _apply_gradients\n" + p + "Node: 'HorovodAllreduce_1'\n" + p +
			       (victim ? "Horovod has been shut down. This was caused by an exception on one of the ranks or an "
					 "attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution.\n"
				       : "indices[3] = 12 is not in [0, 10)\n") +
			       p + "\t [[{{node HorovodAllreduce_1}}]] [Op:__inference__step_50022]\n";
		}
		b.file("job.out", log);
		verdict v = b.run();
		if (victim)
			ck_assert(std::string(class_name(v.cls)) != "python_exception");
		else
			DIAG_CK_VERDICT(v, "python_exception", 1);
	}
}
END_TEST

START_TEST(traceback_header_names_its_rank)
{
	// An inference engine's logger prefix on the line that opens the
	// traceback; the exception line under it has none.
	bundle b;
	std::string log;
	for (int r = 0; r < 8; r++)
		log += init_complete(r, "gpu-g01", 5120 + r, "18000", 8);
	log += "[2026-04-14 11:40:17 TP0] Decode batch. #running-req: 51, #token: 52790\n"
	       "[2026-04-14 11:40:19 TP5] Scheduler hit an exception: Traceback (most recent call last):\n"
	       "  File \"/opt/sglang/scheduler.py\", line 1811, in run_scheduler_process\n"
	       "RuntimeError: CUDA error: an illegal memory access was encountered\n";
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "cuda_error", 5);
	DIAG_CK_STR_EQ(v.first_host, "gpu-g01");
}
END_TEST

START_TEST(one_nodes_interleaved_tracebacks_name_the_node)
{
	// Several ranks of one node print the same fault into one unprefixed
	// stdout at once, tracebacks interleaved; torchrun's failure block lists
	// them all: the node's fault, no rank's.
	bundle b;
	std::string log;
	for (int r = 0; r < 8; r++)
		log += init_complete(r, r < 4 ? "gpu-w01" : "gpu-w02", 6000 + r, "18000", 8);
	log += "Traceback (most recent call last):\n"
	       "Traceback (most recent call last):\n"
	       "  File \"/usr/lib/python3.10/multiprocessing/synchronize.py\", line 57, in __init__\n"
	       "  File \"/usr/lib/python3.10/multiprocessing/synchronize.py\", line 57, in __init__\n"
	       "OSError: [Errno 28] No space left on device\n"
	       "OSError: [Errno 28] No space left on device\n";
	for (int i = 0; i < 2; i++)
		log += "Traceback (most recent call last):\n"
		       "  File \"/usr/lib/python3.10/multiprocessing/synchronize.py\", line 57, in __init__\n"
		       "OSError: [Errno 28] No space left on device\n";
	log += "Failures:\n";
	for (int r = 5; r < 8; r++)
		log += "[" + std::to_string(r - 4) + "]:\n  time      : 2026-05-21_16:41:38\n  host      : gpu-w02\n  rank      : " +
		       std::to_string(r) + " (local_rank: " + std::to_string(r - 4) + ")\n  exitcode  : 1 (pid: " +
		       std::to_string(6000 + r) + ")\n";
	log += "Root Cause (first observed failure):\n[0]:\n  time      : 2026-05-21_16:41:38\n  host      : gpu-w02\n"
	       "  rank      : 4 (local_rank: 0)\n  exitcode  : 1 (pid: 6004)\n";
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "filesystem", -1);
	DIAG_CK_STR_EQ(v.first_host, "gpu-w02");
}
END_TEST

// A traceback a handler printed ("will retry") that ends in a line a plain
// rule reads (a full disk) was caught with it, as one ending in an
// exception line is; a thread's end under a logger's format too.
START_TEST(handled_traceback_ending_in_a_fault_line_is_a_decoy)
{
	bundle b;
	std::string log = "[rank2]:ERROR: failed to upload checkpoint shard to s3://ckpt/step_5/, will retry (attempt 1/5)\n"
			  "[rank2]:Traceback (most recent call last):\n"
			  "[rank2]:  File \"ckpt.py\", line 12, in upload\n"
			  "[rank2]:OSError: [Errno 28] No space left on device: '/tmp/ckpt-staging/model_02.pt'\n"
			  "2026-10-26 03:10:00,000 - Rank 4 - WARNING - Exception in thread Thread-8 (_upload_loop):\n"
			  "Traceback (most recent call last):\n"
			  "  File \"metrics.py\", line 40, in _upload_loop\n"
			  "requests.exceptions.HTTPError: 502 Server Error: Bad Gateway for url: https://metrics/push\n"
			  "[rank6]:Traceback (most recent call last):\n"
			  "[rank6]:  File \"train.py\", line 40, in <module>\n"
			  "[rank6]:KeyError: 'labels'\n";
	for (int r = 0; r < 8; r++)
		if (r != 6)
			log += watchdog(r, "04:11:29.100000000", 500, 500, 499);
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "python_exception", 6);
}
END_TEST

START_TEST(hang_suspect_is_the_rank_that_enqueued_least)
{
	bundle b;
	std::string log;
	for (int r = 0; r < 8; r++)
		log += watchdog(r, "04:11:29.10000000" + std::to_string(r), r == 3 ? 811 : 812, r == 3 ? 811 : 812, 811);
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "collective_hang", 3);
	ck_assert(v.has_first);
}
END_TEST

START_TEST(identical_timeouts_single_out_nobody)
{
	bundle b;
	std::string log;
	for (int r = 0; r < 8; r++)
		log += watchdog(r, "04:11:29.10000000" + std::to_string(r), 812, 812, 811);
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "collective_hang");
	ck_assert(!v.has_first);
	ck_assert_int_eq(v.first_rank, -1);
	ck_assert_uint_eq(v.victims.size(), 8);
}
END_TEST

START_TEST(missing_rank_in_a_known_world)
{
	bundle b;
	std::string log;
	for (int r = 0; r < 8; r++)
		log += init_complete(r, r < 4 ? "node01" : "node02", 1000 + r, "1b000", 8);
	for (int r = 0; r < 8; r++)
		if (r != 6)
			log += watchdog(r, "04:11:29.10000000" + std::to_string(r), 812, 812, 811);
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "collective_hang", 6);
	DIAG_CK_STR_EQ(v.first_host, "node02");
}
END_TEST

START_TEST(time_limit_names_no_rank)
{
	bundle b;
	b.file("job.err", "slurmstepd: error: *** JOB 901 ON node01 CANCELLED AT 2026-10-26T05:00:03 DUE TO TIME LIMIT ***\n"
			  "[rank3]:KeyboardInterrupt\n");
	b.file("sacct.txt", "JobID|State|ExitCode|Start|End\n901|TIMEOUT|0:0|2026-10-26T04:00:00|2026-10-26T05:00:05\n");
	verdict v = b.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "time_limit");
	ck_assert(!v.has_first);
	ck_assert(v.action == action_kind::raise_time_limit);
}
END_TEST

START_TEST(xid_finds_its_rank_by_bus_id)
{
	bundle b;
	std::string log;
	log += two_nodes_of_four();
	for (int r = 0; r < 8; r++)
		if (r != 5)
			log += watchdog(r, "04:13:00.00000000" + std::to_string(r), 99, 99, 98);
	b.file("job.out", log);
	b.file("kern.node02.log", "[Mon Oct 26 04:02:58 2026] NVRM: Xid (PCI:0000:2a:00): 79, pid=2005, name=python, GPU has fallen off the bus.\n");
	b.file("sacct.txt", sacct_failed);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "gpu_hardware", 5);
	DIAG_CK_STR_EQ(v.first_host, "node02");
	ck_assert(v.action == action_kind::drain_node);
}
END_TEST

START_TEST(a_kernel_log_named_for_a_host_without_digits_is_that_hosts)
{
	// Nodes named by words ("endor", "hoth"): the kernel log's file name
	// alone does not say it names a host, the job's NCCL lines do.
	bundle b;
	const char *bus[] = {"18000", "2a000", "3a000", "5d000"};
	std::string log;
	for (int r = 0; r < 8; r++)
		log += init_complete(r, r < 4 ? "endor" : "hoth", 2000 + r, bus[r % 4], 8);
	for (int r = 0; r < 8; r++)
		if (r != 5)
			log += watchdog(r, "04:13:00.00000000" + std::to_string(r), 99, 99, 98);
	b.file("job.out", log);
	b.file("dmesg.hoth.txt", "[Mon Oct 26 04:02:58 2026] NVRM: Xid (PCI:0000:2a:00): 79, pid=2005, name=python, GPU has fallen off the bus.\n");
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "gpu_hardware", 5);
	DIAG_CK_STR_EQ(v.first_host, "hoth");
}
END_TEST

START_TEST(xid_154_recovery_action_is_honoured)
{
	bundle b;
	std::string log;
	for (int r = 0; r < 4; r++)
		log += init_complete(r, "node01", 3000 + r, r == 2 ? "3a000" : "1b000", 4);
	b.file("job.out", log + "[rank0]:step 1 loss 2\n");
	b.file("kern.node01.log",
	       "[Mon Oct 26 04:02:58 2026] NVRM: Xid (PCI:0000:3a:00): 94, pid=3002, name=python, Contained: SM (0x1). RST: No, D-RST: No\n"
	       "[Mon Oct 26 04:02:58 2026] NVRM: Xid (PCI:0000:3a:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)\n");
	b.file("sacct.txt", sacct_failed);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "gpu_hardware", 2);
	ck_assert(v.action == action_kind::drain_node);
}
END_TEST

START_TEST(stale_kernel_messages_are_ignored)
{
	bundle b;
	b.file("job.out", "[rank0]:[E1026 04:01:29.922296938 ProcessGroupNCCL.cpp:1575] x\n"
			  "[rank1]:Traceback (most recent call last):\n[rank1]:ValueError: bad shape\n");
	b.file("kern.node01.log", "[Mon Oct 19 04:02:58 2026] NVRM: Xid (PCI:0000:3a:00): 79, pid=1, name=python, GPU has fallen off the bus.\n");
	b.file("sacct.txt", sacct_failed);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "python_exception", 1);
}
END_TEST

START_TEST(oom_killer_pid_maps_to_rank)
{
	bundle b;
	std::string log;
	for (int r = 0; r < 8; r++)
		log += init_complete(r, r < 4 ? "node01" : "node02", 4000 + r, "1b000", 8);
	for (int r = 0; r < 8; r++)
		if (r != 7)
			log += watchdog(r, "04:13:00.00000000" + std::to_string(r), 99, 99, 98);
	b.file("job.out", log);
	b.file("kern.node02.log",
	       "2026-10-26T04:02:58.120000+00:00 node02 kernel: python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0\n"
	       "2026-10-26T04:02:58.310000+00:00 node02 kernel: Out of memory: Killed process 4007 (python) total-vm:98765432kB, anon-rss:87654321kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:170000kB oom_score_adj:0\n");
	b.file("sacct.txt", sacct_failed);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "host_oom", 7);
	DIAG_CK_STR_EQ(v.first_host, "node02");
}
END_TEST

START_TEST(skewed_clocks_are_corrected)
{
	// node02 runs 40 s slow: on raw time rank 6's error there looks 5 s
	// earlier than the culprit's on node01, though it came 35 s later. The
	// watchdog timeouts of one collective align the clocks.
	bundle b;
	std::string log;
	for (int r = 0; r < 8; r++)
		log += init_complete(r, r < 4 ? "node01" : "node02", 5000 + r, "1b000", 8);
	b.file("nccl.log", log);
	std::string job;
	job += "[rank1]:[E1026 04:00:10.000000000 ProcessGroupNCCL.cpp:1575] [Rank 1] NCCL error: unhandled system error, NCCL version 2.21.5\n";
	job += "[rank6]:[E1026 04:00:05.000000000 ProcessGroupNCCL.cpp:1575] [Rank 6] NCCL error: unhandled system error, NCCL version 2.21.5\n";
	for (int r = 0; r < 8; r++)
		if (r != 1 && r != 6)
			job += watchdog(r, r < 4 ? "04:10:05.00000000" + std::to_string(r) : "04:09:25.00000000" + std::to_string(r), 77, 77, 76);
	b.file("job.out", job);
	verdict v = b.run();
	ck_assert_int_eq(v.first_rank, 1);
	ck_assert(v.clock.count("node02"));
	ck_assert_msg(v.clock["node02"].offset_s > -45 && v.clock["node02"].offset_s < -35, "offset %f", v.clock["node02"].offset_s);
}
END_TEST

START_TEST(no_anchor_means_no_pretended_order)
{
	// Two hosts, nothing seen on both at one moment: their clocks cannot be
	// aligned, so faults 1 s apart on different hosts are not ordered.
	bundle b;
	std::string log;
	for (int r = 0; r < 4; r++)
		log += init_complete(r, r < 2 ? "node01" : "node02", 6000 + r, "1b000", 4);
	log += "[rank1]:[E1026 04:00:10.000000000 ProcessGroupNCCL.cpp:1575] [Rank 1] NCCL error: unhandled system error, NCCL version 2.21.5\n";
	log += "[rank3]:[E1026 04:00:11.000000000 ProcessGroupNCCL.cpp:1575] [Rank 3] NCCL error: unhandled system error, NCCL version 2.21.5\n";
	b.file("job.out", log);
	verdict v = b.run();
	ck_assert_msg(v.confidence != "high", "confidence %s", v.confidence.c_str());
	bool saw1 = false, saw3 = false;
	for (const auto &e : v.evidence) {
		saw1 = saw1 || (e.rank == 1 && e.role == event_role::initiating);
		saw3 = saw3 || (e.rank == 3 && e.role == event_role::initiating);
	}
	ck_assert_msg(saw1 && saw3, "both candidate first faults must be in the evidence");
	ck_assert(!v.notes.empty());
}
END_TEST

START_TEST(aligned_clocks_keep_their_order)
{
	// The same faults with watchdog timeouts of one collective on both
	// hosts: now the order is known and rank 1 is first with confidence.
	bundle b;
	std::string log;
	for (int r = 0; r < 8; r++)
		log += init_complete(r, r < 4 ? "node01" : "node02", 7000 + r, "1b000", 8);
	log += "[rank1]:[E1026 04:00:10.000000000 ProcessGroupNCCL.cpp:1575] [Rank 1] NCCL error: unhandled system error, NCCL version 2.21.5\n";
	log += "[rank6]:[E1026 04:00:20.000000000 ProcessGroupNCCL.cpp:1575] [Rank 6] NCCL error: unhandled system error, NCCL version 2.21.5\n";
	for (int r = 0; r < 8; r++)
		if (r != 1 && r != 6)
			log += watchdog(r, "04:10:05.00000000" + std::to_string(r), 77, 77, 76);
	b.file("job.out", log);
	verdict v = b.run();
	ck_assert_int_eq(v.first_rank, 1);
}
END_TEST

START_TEST(container_runtime_failing_one_task_is_a_launch_failure)
{
	// One srun task's container never started (its runtime's own words);
	// the others then wait at the store for the client that never came.
	bundle b;
	std::string log = "+ srun -l apptainer exec --nv /images/pt.sif python train.py\n";
	for (int r = 0; r < 4; r++)
		if (r != 2)
			log += std::to_string(r) + ": INFO:    underlay of /usr/bin/nvidia-smi required more than 50 (512) bind mounts\n";
	log += "2: FATAL:   container creation failed: mount /proc/self/fd/3->/var/apptainer/mnt/session/rootfs error: "
	       "while mounting image /proc/self/fd/3: failed to mount squashfs filesystem: invalid argument\n"
	       "srun: error: node02: task 2: Exited with exit code 255\n"
	       "0: torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 3/4 clients joined.\n"
	       "srun: error: node01: tasks 0-1: Exited with exit code 1\n"
	       "srun: error: node02: task 3: Exited with exit code 1\n";
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "launch_failure", 2);
}
END_TEST

START_TEST(same_unlabelled_error_on_every_process_singles_out_nobody)
{
	// Four processes on one unlabelled stdout fail alike, each with the
	// same two-line NCCL message closing its traceback; torchrun's "Root
	// Cause" block then names whichever it saw first: arbitrary.
	bundle b;
	std::string log;
	for (int r = 0; r < 4; r++)
		log += "Traceback (most recent call last):\n"
		       "  File \"./tools/train.py\", line 216, in main\n"
		       "    dist.barrier()\n"
		       "RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:911, invalid usage, NCCL version 2.7.8\n"
		       "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n";
	log += "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 1187) of binary: "
	       "/opt/conda/bin/python\n"
	       "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
	       "Failures:\n";
	for (int r = 1; r < 4; r++)
		log += "[" + std::to_string(r) + "]:\n  time      : 2026-03-12_09:14:09\n  host      : box01\n  rank      : " +
		       std::to_string(r) + " (local_rank: " + std::to_string(r) + ")\n  exitcode  : 1 (pid: " +
		       std::to_string(1187 + r) + ")\n";
	log += "Root Cause (first observed failure):\n[0]:\n  time      : 2026-03-12_09:14:09\n  host      : box01\n"
	       "  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 1187)\n";
	b.file("job.out", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "launch_failure", -1);
}
END_TEST

START_TEST(two_ranks_of_one_node_failing_together_name_the_node)
{
	// Ranks 5 and 6 of node02 hit the same device-side assert within
	// milliseconds, each line stamped: which came first is noise. The node
	// is the lead, no rank before the other.
	bundle b;
	std::string log;
	log += two_nodes_of_four();
	log += "[rank5]:[E1026 04:10:02.136731159 ProcessGroupNCCL.cpp:2068] [PG ID 0 Rank 5] Process group watchdog "
	       "thread terminated with exception: CUDA error: device-side assert triggered\n"
	       "[rank6]:[E1026 04:10:02.141499142 ProcessGroupNCCL.cpp:2068] [PG ID 0 Rank 6] Process group watchdog "
	       "thread terminated with exception: CUDA error: device-side assert triggered\n";
	for (int r = 0; r < 8; r++)
		if (r != 5 && r != 6)
			log += watchdog(r, "04:20:02.00000000" + std::to_string(r), 99, 99, 98);
	b.file("job.out", log);
	b.file("sacct.txt", sacct_failed);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "cuda_error", -1);
	DIAG_CK_STR_EQ(v.first_host, "node02");
}
END_TEST

START_TEST(a_port_error_on_every_rank_of_a_node_is_the_nodes)
{
	// Every rank of node02 prints its NIC's port error in the same second;
	// a completion error of one of them half a minute later follows it.
	bundle b;
	std::string log;
	log += two_nodes_of_four();
	for (int r = 4; r < 8; r++)
		log += "[2026-10-26 04:10:02] node02:" + std::to_string(2000 + r) + ":" + std::to_string(2100 + r) + " [" +
		       std::to_string(r % 4) + "] transport/net_ib.cc:132 NCCL WARN NET/IB : mlx5_2:1 Got async error event: port error\n";
	log += "[2026-10-26 04:10:36] node02:2006:2110 [2] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer "
	       "10.0.0.1<41017> with status=12 opcode=0 len=0 vendor err 129 (Send)\n";
	b.file("job.out", log);
	b.file("sacct.txt", sacct_failed);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "network", -1);
	DIAG_CK_STR_EQ(v.first_host, "node02");
}
END_TEST

START_TEST(only_victims_and_one_nodes_link_failing_name_that_node)
{
	// Every rank lost a connection (gloo's resets); only node03's kernel
	// saw its NIC stall and its link go down, just before. node01's link
	// had flapped forty minutes before, the job stepping on: that names no
	// second node.
	for (bool earlier_flap : {false, true}) {
	bundle b;
	if (earlier_flap)
		b.file("kern.node01.log", "2026-10-26T03:20:10+0000 node01 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link down\n"
					  "2026-10-26T03:20:13+0000 node01 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link up\n");
	b.file("job.out", "0: 2026-10-26 03:10:00,100 INFO train: epoch 0 step 500 loss 0.139\n"
			  "0: 2026-10-26 04:00:00,100 INFO train: epoch 1 step 500 loss 0.137\n"
			  "0: 2026-10-26 04:10:05,200 ERROR train: step failed\n"
			  "0: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:538] Read error [10.0.0.3]:40719: "
			  "Connection reset by peer\n"
			  "1: 2026-10-26 04:10:05,300 ERROR train: step failed\n"
			  "1: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:538] Read error [10.0.0.3]:40722: "
			  "Connection reset by peer\n");
	b.file("kern.node03.log",
	       "2026-10-26T04:09:58+0000 node03 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: NETDEV WATCHDOG: CPU: 9: transmit "
	       "queue 12 timed out 5120 ms\n"
	       "2026-10-26T04:10:02+0000 node03 kernel: mlx5_core 0000:3b:00.0 ens1f0np0: Link down\n");
	b.file("sacct.txt", "JobID|JobName|State|ExitCode|Start|End|NodeList\n"
			    "900|train|FAILED|1:0|2026-10-26T03:00:00|2026-10-26T04:15:00|node[01-03]\n");
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "network", -1);
	DIAG_CK_STR_EQ(v.first_host, "node03");
	}
}
END_TEST

START_TEST(a_link_lost_on_both_ends_is_the_node_whose_kernel_saw_it_go_down)
{
	// Both nodes' ranks report their sockets timing out toward each other
	// (no end stands apart by the reports); only node02's kernel saw its
	// link go down, just before. Without that kernel log, nobody.
	for (bool kernel : {true, false}) {
		bundle b;
		b.file("job.out",
		       "node01: node01:301821:301821 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
		       "node02: node02:57702:57702 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n"
		       "node01: 2026-10-26 04:00:00,100 INFO step 500 loss 0.137\n"
		       "node01: node01:301821:302517 [2] misc/socket.cc:49 NCCL WARN socketProgressOpt: Call to recv from "
		       "10.0.0.2<58184> failed : Connection timed out\n"
		       "node02: node02:57702:58093 [0] misc/socket.cc:49 NCCL WARN socketProgressOpt: Call to send to "
		       "10.0.0.1<60352> failed : Connection timed out\n");
		if (kernel)
			b.file("kern.node02.log",
			       "2026-10-26T03:05:00+0000 node02 kernel: ice 0000:4b:00.0 ens3f0np0: NIC Link is up 200 Gbps Full Duplex\n"
			       "2026-10-26T04:01:07+0000 node02 kernel: ice 0000:4b:00.0 ens3f0np0: NIC Link is Down\n");
		b.file("sacct.txt", "JobID|JobName|State|ExitCode|Start|End|NodeList\n"
				    "901|train|FAILED|1:0|2026-10-26T03:00:00|2026-10-26T04:15:00|node[01-02]\n");
		verdict v = b.run();
		DIAG_CK_VERDICT(v, "network", -1);
		DIAG_CK_STR_EQ(v.first_host, kernel ? "node02" : "");
	}
}
END_TEST

START_TEST(the_end_of_a_one_node_job_names_its_node)
{
	// A cancel of a job whose ranks all ran on one machine: no fault of
	// that machine (the action says so), but the verdict says where.
	bundle b;
	std::string log;
	for (int r = 0; r < 2; r++)
		log += init_complete(r, "ws11", 3000 + r, r ? "2a000" : "18000", 2);
	log += "[rank0]: epoch 8 iter 100/196 loss 0.4471\n";
	b.file("job.out", log);
	b.file("nnimanager.log", "[12/8/2020, 10:47:33 AM] INFO [ 'Trial job Kd9xM status changed from RUNNING to USER_CANCELED' ]\n");
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "user_cancel", -1);
	DIAG_CK_STR_EQ(v.first_host, "ws11");
	ck_assert(v.action != action_kind::drain_node);
}
END_TEST

START_TEST(a_nodes_full_name_is_the_node)
{
	// The kernel log names the node by its full name, the job by its short
	// one: one node, named as Slurm names it.
	bundle b;
	std::string log;
	log += two_nodes_of_four();
	for (int r = 0; r < 8; r++)
		if (r != 5)
			log += watchdog(r, "04:13:00.00000000" + std::to_string(r), 99, 99, 98);
	b.file("job.out", log);
	b.file("kern.log", "2026-10-26T04:02:58+0000 node02.cluster.example.org kernel: NVRM: Xid (PCI:0000:9d:00): 79, "
			   "GPU has fallen off the bus.\n");
	b.file("sacct.txt", sacct_failed);
	verdict v = b.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "gpu_hardware");
	DIAG_CK_STR_EQ(v.first_host, "node02");
}
END_TEST

START_TEST(the_one_rank_that_finished_left_the_others_waiting)
{
	// Rank 5 alone stopped training early and returned; the others went
	// on into the next epoch's first collective and waited there until the
	// user cancelled the job. Where every rank says it finished, nobody was
	// left waiting: the cancel stays the verdict.
	for (bool all_finished : {false, true}) {
		bundle b;
		std::string log;
		for (int r = 0; r < 8; r++)
			log += std::to_string(r) + ": [val] epoch 6 shard val_acc=0.88\n";
		for (int r = 0; r < 8; r++)
			if (all_finished || r == 5)
				log += std::to_string(r) + ": Epoch 00006: val_acc above threshold, stopping training\n";
		log += "0: Epoch 7:   0%|          | 0/1410 [00:00<?, ?batch/s]\n"
		       "slurmstepd: error: *** JOB 4410387 ON lt-g21 CANCELLED AT 2019-10-17T16:42:55 ***\n";
		b.file("job.out", log);
		verdict v = b.run();
		if (all_finished) {
			DIAG_CK_VERDICT(v, "user_cancel", -1);
		} else {
			DIAG_CK_VERDICT(v, "collective_hang", 5);
		}
	}
}
END_TEST

START_TEST(a_rank_that_says_it_finished_in_its_text_left_the_others)
{
	// No launcher prefix: each rank names itself in its text ("[rank 2]").
	// Rank 0 alone said its training loop ended; ranks 1 to 3 kept printing
	// their steps and were left in a collective until the job was deleted.
	// Rank 0's word without the others in turn is no one left waiting.
	for (bool others_seen : {true, false}) {
		bundle b;
		std::string log;
		for (int step = 100; step <= 400; step += 100)
			for (int r = 0; r < 4; r++)
				if (others_seen || r == 0)
					log += "[rank " + std::to_string(r) + "] epoch 2 iter " + std::to_string(step) +
					       "/400 loss 1.2 lr 0.1\n";
		log += "[rank 0] training loop ended after epoch 2, saving /ckpt/rank0.pt\n"
		       "slurmstepd: error: *** JOB 4410388 ON lt-g21 CANCELLED AT 2019-10-17T16:42:55 ***\n";
		b.file("job.out", log);
		verdict v = b.run();
		if (others_seen) {
			DIAG_CK_VERDICT(v, "collective_hang", 0);
		} else {
			DIAG_CK_VERDICT(v, "user_cancel", -1);
		}
	}
}
END_TEST

START_TEST(a_bar_drawn_right_after_a_stamp_dates_the_last_progress)
{
	// Rank 0 stepped every 100 s, saved, announced a validation, and its
	// bar's first draw (no stamp: it was drawn right after the stamped
	// announcement, lines after the last step) is the job's last progress. The step was cancelled 43
	// minutes later: a hang. Where the file went on writing lines of its
	// own work through those minutes (each case predicted, stamped), the
	// job was busy and the cancel is the user's.
	for (bool busy : {false, true}) {
		bundle b;
		std::string log;
		for (int i = 0; i < 8; i++) {
			char line[200];
			snprintf(line, sizeof(line),
				 "2024-05-14 11:%02d:%02d,641 | rank0 | INFO | epoch 11 iter %4d/1251 loss 4.56 lr 4.0e-03\n",
				 34 + (i * 100) / 60, (i * 100) % 60, 200 + 100 * i);
			log += line;
		}
		log += "2024-05-14 11:48:01,287 | rank0 | INFO | saved checkpoint ckpt/convnext_t/last.pth\n"
		       "2024-05-14 11:48:01,333 | rank0 | INFO | saved EMA weights ckpt/convnext_t/ema.pth\n"
		       "2024-05-14 11:48:02,576 | rank0 | INFO | epoch 11: running validation on rank 0 (196 batches)\n"
		       "val:   0%|          | 0/196 [00:00<?, ?it/s]\n";
		if (busy)
			for (int m = 0; m < 40; m += 2) {
				char line[160];
				snprintf(line, sizeof(line), "2024-05-14 %02d:%02d:10,001 | rank0 | INFO | predicting case_%04d\n",
					 11 + (50 + m) / 60, (50 + m) % 60, m);
				log += line;
			}
		log += "srun: interrupt (one more within 1 sec to abort)\n"
		       "slurmstepd: error: *** STEP 7731042.0 ON gpu-r2n07 CANCELLED AT 2024-05-14T12:31:47 ***\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), busy ? "user_cancel" : "collective_hang");
	}
}
END_TEST

START_TEST(a_rank_that_finished_while_the_others_failed_as_victims_left_them)
{
	// TF's estimator on rank 3 alone returned ("Loss for final step"), its
	// shard a step shorter; the other ranks' next allreduce found Horovod
	// shut down. Nothing but that victim's word otherwise: rank 3 left the
	// others. Without its final word nothing singles a rank out; without
	// the others failing after it, the job simply ended (a rank that logs
	// alone says it finished on a healthy run too).
	for (int shape : {0, 1, 2}) {
		const bool final_word = shape != 1, others_failed = shape != 2;
		bundle b;
		std::string log;
		for (int step = 41000; step <= 41200; step += 100)
			for (int r = 0; r < 4; r++)
				log += "[1," + std::to_string(r) + "]<stderr>:INFO:tensorflow:loss = 3.07, step = " +
				       std::to_string(step) + " (53.1 sec)\n";
		if (final_word)
			log += "[1,3]<stderr>:INFO:tensorflow:Loss for final step: 3.0734107.\n";
		if (others_failed)
			for (int r = 0; r < 3; r++)
				log += "[1," + std::to_string(r) +
				       "]<stderr>:tensorflow.python.framework.errors_impl.UnknownError: Horovod has been shut down. "
				       "This was caused by an exception on one of the ranks or an attempt to allreduce, allgather "
				       "or broadcast a tensor after one of the ranks finished execution.\n";
		b.file("job.log", log);
		verdict v = b.run();
		if (shape == 0) {
			DIAG_CK_VERDICT(v, "collective_hang", 3);
		} else {
			ck_assert_msg(v.cls != failure_class::collective_hang || v.first_rank != 3, "shape %d", shape);
		}
	}
}
END_TEST

START_TEST(untimed_stall_reports_repeated_for_minutes_before_a_cancel_hung)
{
	// Horovod's stall inspector, no times on its lines: it reports once a
	// minute, so eight separate reports naming rank 4 are eight minutes of
	// the others waiting before the cancel; the cancel ended a hang. Two
	// reports (a stall the cancel merely interrupted) leave the cancel.
	for (int reports : {8, 2}) {
		bundle b;
		std::string log = "Epoch 3/40\n";
		for (int i = 0; i < reports; i++)
			log += "WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset "
			       "of ranks and are waiting for remainder of ranks for more than 60 seconds.\n"
			       "Stalled ops:\n"
			       "MetricAverageCallback/HorovodAllreduce_MetricAverageCallback_loss_0 [missing ranks: 4]\n"
			       "MetricAverageCallback/HorovodAllreduce_MetricAverageCallback_acc_0 [missing ranks: 4]\n";
		log += "slurmstepd: error: *** JOB 2231907 ON gpu-k07 CANCELLED AT 2018-11-07T23:41:18 ***\n";
		b.file("job.out", log);
		verdict v = b.run();
		if (reports == 8) {
			DIAG_CK_VERDICT(v, "collective_hang", 4);
		} else {
			DIAG_CK_VERDICT(v, "user_cancel", -1);
		}
	}
}
END_TEST

START_TEST(the_last_stall_reported_before_a_time_limit_names_the_hang)
{
	// The stall inspector's reports, one line per stalled rank ("2:
	// [...]"): an early stall naming rank 0 that the job stepped past,
	// then rank 2 named every five minutes for an hour until the time
	// limit. The stop ended rank 2's hang; the survived stall is no part of
	// it. With the late reports naming two ranks, nobody is singled out.
	for (bool one : {true, false}) {
		bundle b;
		auto report = [](const std::string &at, const std::string &ranks) {
			std::string r = "[2022-07-20 " + at + ".024795: W horovod/common/stall_inspector.cc:105] One or more "
					"tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are "
					"waiting for remainder of ranks for more than 300 seconds.\nStalled ranks:\n";
			for (char c : ranks)
				r += std::string(1, c) + ": [HorovodAllreduce_globals_have_data_0, HorovodAllreduce_globals_have_error_0]\n";
			return r;
		};
		std::string log = "train epoch 63, finished after 2285 steps\n" + report("00:02:00", "0");
		log += "train epoch 64, finished after 2272 steps\ntrain epoch 65, finished after 2281 steps\n";
		for (int m = 0; m < 60; m += 5)
			log += report("04:" + std::string(m < 10 ? "0" : "") + std::to_string(m) + ":21", one ? "2" : "23");
		b.file("job.log", log);
		b.file("sacct.txt", "JobID|JobName|State|ExitCode|Start|End|Elapsed|NodeList\n"
				    "881|asr|TIMEOUT|0:0|2022-07-19T05:02:09|2022-07-20T05:02:13|1-00:00:04|cn-314\n");
		verdict v = b.run();
		if (one) {
			DIAG_CK_VERDICT(v, "collective_hang", 2);
		} else {
			ck_assert_int_ne(v.first_rank, 2);
			ck_assert_int_ne(v.first_rank, 0);
		}
	}
}
END_TEST

START_TEST(a_failure_the_launcher_restarted_from_was_survived)
{
	// Rank 1 raised; torchrun restarted the worker group and training went
	// on for hours until the time limit: the exception was survived. With
	// no progress after the restart (the restarted rank failed again), the
	// exception stands.
	for (bool went_on : {true, false}) {
		bundle b;
		std::string log = "[2025-01-15 06:00:00] [rank0] epoch 3 iter 100/900 loss 1.55\n"
				  "[rank1]: Traceback (most recent call last):\n"
				  "[rank1]:   File \"train.py\", line 88, in <module>\n"
				  "[rank1]: ValueError: unexpected label -1\n"
				  "W0115 06:14:54.083194 71204 torch/distributed/elastic/multiprocessing/api.py:897] Sending "
				  "process 71233 closing signal SIGTERM\n"
				  "I0115 06:14:55.264710 71204 torch/distributed/elastic/agent/server/api.py:870] [default] "
				  "Worker group FAILED. 3/3 attempts left; will restart worker group\n";
		if (went_on)
			for (int h = 7; h < 12; h++)
				log += "[2025-01-15 " + std::to_string(h) + ":30:00] [rank0] epoch " + std::to_string(h) +
				       " iter 900/900 loss 1.2\n";
		else
			log += "I0115 06:15:30.000000 71204 torch/distributed/elastic/multiprocessing/api.py:869] failed "
			       "(exitcode: 1) local_rank: 1 (pid: 71236) of binary: /usr/bin/python3\n";
		if (went_on)
			log += "slurmstepd: error: *** JOB 3318842 ON gpu-4-12 CANCELLED AT 2025-01-15T12:00:00 DUE TO TIME LIMIT ***\n";
		b.file("job.out", log);
		verdict v = b.run();
		if (went_on) {
			DIAG_CK_VERDICT(v, "time_limit", -1);
		} else {
			DIAG_CK_VERDICT(v, "python_exception", 1);
		}
	}
}
END_TEST

START_TEST(an_nfs_server_lost_until_the_end_is_the_cause_one_back_is_not)
{
	// node07's NFS server stopped answering; half an hour later the ranks'
	// watchdogs fired. Had the node said the server was OK again before
	// them, the loss was survived and the hang is all that is left.
	for (bool back : {false, true}) {
		bundle b;
		b.file("job.out", "0: [rank0]:[E309 13:37:54.881000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught "
				  "collective operation timeout: WorkNCCL(SeqNum=80011, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
				  "Timeout(ms)=1800000) ran for 1800010 milliseconds before timing out.\n"
				  "1: [rank1]:[E309 13:37:54.991000000 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught "
				  "collective operation timeout: WorkNCCL(SeqNum=80011, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
				  "Timeout(ms)=1800000) ran for 1800020 milliseconds before timing out.\n");
		std::string kern = "2026-03-09T13:07:49+0000 node07 kernel: nfs: server nas-fs03 not responding, still trying\n";
		if (back)
			kern += "2026-03-09T13:08:10+0000 node07 kernel: nfs: server nas-fs03 OK\n";
		b.file("kern.node07.log", kern);
		b.file("sacct.txt", "JobID|JobName|State|ExitCode|Start|End|NodeList\n"
				    "552301|lm|FAILED|1:0|2026-03-09T11:58:02|2026-03-09T13:40:00|node[07-08]\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), back ? "collective_hang" : "filesystem");
	}
}
END_TEST

START_TEST(a_cancel_long_after_a_steady_pace_ended_a_hang)
{
	// Four ranks step once a minute, then nothing for 40 minutes until the
	// cancel: the job had hung, the cancel ended the wait. The same cancel
	// a minute after the last step is a cancel of a running job; one the
	// job outlived, writing for minutes after it (finishing its phase), was
	// of a busy job, not a hung one. One process stepping alone (a JAX
	// process driving its eight GPUs) hangs the same way.
	enum { hung, running, busy } shapes[] = {hung, running, busy};
	for (int ranks : {4, 1})
		for (auto shape : shapes) {
			bundle b;
			std::string log;
			char line[160];
			for (int m = 0; m < 20; m++)
				for (int r = 0; r < ranks; r++) {
					snprintf(line, sizeof line, "%s2024-02-21 12:%02d:%02d,100 INFO step %d loss 2.%03d\n",
						 ranks > 1 ? (std::to_string(r) + ": ").c_str() : "", 10 + m, 5 + r, 100 * (m + 1),
						 700 - m);
					log += line;
				}
			const char *at = shape == running ? "12:30:40" : "13:10:00";
			log += std::string("slurmstepd: error: *** JOB 771204 ON a40-n11 CANCELLED AT 2024-02-21T") + at + " ***\n";
			if (shape == busy)
				log += std::string(ranks > 1 ? "0: " : "") +
				       "2024-02-21 13:22:15,000 INFO evaluation done, saving checkpoint before stopping\n";
			b.file("job.out", log);
			verdict v = b.run();
			if (shape == hung) {
				DIAG_CK_VERDICT(v, "collective_hang", -1);
			} else {
				DIAG_CK_VERDICT(v, "user_cancel", -1);
			}
		}
}
END_TEST

START_TEST(a_rank_behind_in_turns_at_a_stop_hung_unless_the_others_were_still_stepping)
{
	// Four ranks print a step line in turn every two seconds; rank 2 stops
	// printing three turns before the others. Where the time limit came
	// twenty minutes after the others' last turn, rank 2 hung and the limit
	// ended their wait; where it came a second after it, the job was
	// running, and rank 2's last lines were lost with its unflushed output.
	for (bool running : {false, true}) {
		bundle b;
		std::string log;
		char line[160];
		for (int step = 1; step <= 20; step++)
			for (int r = 0; r < 4; r++) {
				if (r == 2 && step > 17)
					continue;
				snprintf(line, sizeof line, "%d: 2024-02-21 12:%02d:%02d,%03d - INFO - rank %d step %d loss: 0.%04d\n", r,
					 10 + (2 * step) / 60, (2 * step) % 60, 100 + r, r, step, 9000 - 10 * step);
				log += line;
			}
		log += std::string("slurmstepd: error: *** JOB 771204 ON node1 CANCELLED AT 2024-02-21T") +
		       (running ? "12:10:41" : "12:30:40") + " DUE TO TIME LIMIT ***\n";
		b.file("job.out", log);
		verdict v = b.run();
		if (running) {
			DIAG_CK_VERDICT(v, "time_limit", -1);
		} else {
			DIAG_CK_VERDICT(v, "collective_hang", 2);
		}
	}
}
END_TEST

START_TEST(a_coordinator_naming_every_other_task_at_once_is_the_one_apart)
{
	// JAX's coordination service on task 0 stops hearing from tasks 1, 2
	// and 3 in the same millisecond: three nodes did not fail together,
	// task 0 was cut off from them. Its node's kernel saw its NIC stall a
	// minute and a half before: the network. Naming task 2 alone names
	// task 2.
	enum { all_named, all_named_nic, one_named } shapes[] = {all_named, all_named_nic, one_named};
	for (auto shape : shapes) {
		bundle b;
		std::string log = "+ srun -l --ntasks-per-node=1 python -u -m train --coordinator=jxvm-01:61234\n";
		char line[400];
		for (int r = 0; r < 4; r++) {
			snprintf(line, sizeof line,
				 "%d: I0612 09:41:12.8%02d 1402875 train.py:88] process %d/4 host=jxvm-0%d local_devices=8\n", r,
				 r, r, r + 1);
			log += line;
		}
		for (int step = 0; step < 6; step++) {
			snprintf(line, sizeof line, "0: I0612 13:%02d:30.217 1402875 train.py:241] step %d loss=2.21 steps/sec=1.05\n",
				 30 + 4 * step, 70000 + 250 * step);
			log += line;
		}
		for (int t = 1; t < 4; t++) {
			if (shape == one_named && t != 2)
				continue;
			snprintf(line, sizeof line,
				 "0: 2025-06-12 13:57:12.44%d: E external/xla/xla/tsl/distributed_runtime/coordination/"
				 "coordination_service.cc:1170] /job:jax_worker/replica:0/task:%d has been set to ERROR in "
				 "coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:%d heartbeat timeout.\n",
				 t, t, t);
			log += line;
		}
		for (int r = 0; r < 4; r++) {
			snprintf(line, sizeof line, "srun: error: jxvm-0%d: task %d: Aborted (core dumped)\n", r + 1, r);
			log += line;
		}
		b.file("job.log", log);
		if (shape == all_named_nic)
			b.file("kern.jxvm-01.log", "2025-06-12T13:55:36+0000 jxvm-01 kernel: NETDEV WATCHDOG: eth0 (virtio_net): "
						   "transmit queue 2 timed out\n");
		verdict v = b.run();
		if (shape == one_named) {
			DIAG_CK_VERDICT(v, "collective_hang", 2);
		} else {
			DIAG_CK_VERDICT(v, shape == all_named_nic ? "network" : "collective_hang", 0);
			DIAG_CK_STR_EQ(v.first_host, "jxvm-01");
		}
	}
}
END_TEST

START_TEST(the_one_stack_that_differs_in_a_dump_of_live_processes_hung)
{
	// py-spy's dumps of the eight ranks (pids 2000-2007, from NCCL's init
	// lines), taken before the time limit: seven main threads wait in the
	// same frames, rank 6's alone is in its DataLoader. The others waited
	// for it; the limit ended their wait. When every rank's frames are the
	// same, nobody differs and the time limit stays the verdict.
	for (bool one_differs : {true, false}) {
		bundle b;
		b.file("job.log", two_nodes_of_four() +
					  "slurmstepd: error: *** JOB 7731904 ON node01 CANCELLED AT 2022-12-06T18:02:24 "
					  "DUE TO TIME LIMIT ***\n");
		std::string dump;
		for (int r = 0; r < 8; r++) {
			if (r % 4 == 0)
				dump += std::string("==> spy-") + (r < 4 ? "node01" : "node02") + ".out <==\n";
			dump += "Process " + std::to_string(2000 + r) + ": python train.py --epochs 30\n"
				"Python v3.9.15 (/opt/envs/cls/bin/python3.9)\n\n"
				"Thread " + std::to_string(2000 + r) + " (active): \"MainThread\"\n";
			if (one_differs && r == 6)
				dump += "    _try_get_data (torch/utils/data/dataloader.py:1133)\n"
					"    __next__ (torch/utils/data/dataloader.py:628)\n";
			else
				dump += "    item (torch/_tensor.py:1021)\n";
			dump += "    train_one_epoch (train.py:203)\n"
				"    <module> (train.py:361)\n"
				"Thread 31" + std::to_string(r) + " (idle): \"Thread-2\"\n"
				"    _pin_memory_loop (torch/utils/data/_utils/pin_memory.py:58)\n\n";
		}
		// A DataLoader worker of rank 6, in its own loop: not a rank.
		dump += "Process 5821: python train.py --epochs 30\n"
			"Thread 5821 (idle): \"MainThread\"\n"
			"    _worker_loop (torch/utils/data/_utils/worker.py:302)\n";
		b.file("py-spy.txt", dump);
		verdict v = b.run();
		if (one_differs) {
			DIAG_CK_VERDICT(v, "collective_hang", 6);
		} else {
			DIAG_CK_VERDICT(v, "time_limit", -1);
		}
	}
}
END_TEST

START_TEST(a_dump_file_named_for_its_host_places_the_local_rank_that_differs)
{
	// Each node's dumps in a file named for it ("==> trace-node02.out
	// <=="), each process known by its command's --local_rank only (the
	// DeepSpeed launcher mapped the nodes' ranks): the one that differs is
	// local rank 2 of node02, rank 6. A file named for no host of the job
	// ("trace-node02a") places nobody.
	for (bool named : {true, false}) {
		bundle b;
		b.file("job.log", two_nodes_of_four() +
					  "[2022-12-06 09:01:01,114] [INFO] [launch.py:162:main] global_rank_mapping="
					  "defaultdict(<class 'list'>, {'node01': [0, 1, 2, 3], 'node02': [4, 5, 6, 7]})\n"
					  "slurmstepd: error: *** JOB 7731904 ON node01 CANCELLED AT 2022-12-06T18:02:24 ***\n");
		std::string dump;
		for (int r = 0; r < 8; r++) {
			if (r % 4 == 0)
				dump += std::string("==> trace-") + (r < 4 ? "node01" : "node02") + (named ? "" : "a") +
					".out <==\n";
			dump += "Process " + std::to_string(9000 + r) + ": python -u train.py --local_rank=" +
				std::to_string(r % 4) + " --epochs 30\n"
				"Thread " + std::to_string(9000 + r) + " (active): \"MainThread\"\n";
			if (r == 6)
				dump += "    makedirs (os.py:225)\n";
			else
				dump += "    barrier (torch/distributed/distributed_c10d.py:3330)\n";
			dump += "    save_checkpoint (train.py:203)\n"
				"    <module> (train.py:361)\n\n";
		}
		b.file("py-spy.txt", dump);
		verdict v = b.run();
		DIAG_CK_VERDICT(v, "collective_hang", (named ? 6 : -1));
	}
}
END_TEST

START_TEST(a_line_of_no_known_writer_the_ranks_stepped_on_long_after_was_survived)
{
	// torchrun's agent misses a keep-alive of its rendezvous (a line of no
	// rank); rank 0 goes on stepping, then runs out of GPU memory. Forty
	// minutes of steps after the agent's line: longer than a collective
	// waits, it was survived and is set aside. Four minutes: it is not
	// set aside (the out-of-memory wins on its own strength then).
	for (int minutes : {40, 4}) {
		bundle b;
		std::string log = "[rank0]:2025-03-14 00:09:00,000 - root - INFO - Training starts at step 9600\n"
				  "W0314 00:10:00.159000 210342 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1310] "
				  "The node 'n1_210342_0' has failed to send a keep-alive heartbeat to the rendezvous '101' "
				  "due to an error of type RendezvousTimeoutError.\n";
		for (int m = 2; m <= minutes; m += 2) {
			char line[160];
			snprintf(line, sizeof line,
				 "[rank0]:2025-03-14 00:%02d:00,000 - root - INFO - step: %d  loss:  3.3976\n", 10 + m, 9600 + m);
			log += line;
		}
		log += "[rank0]:Traceback (most recent call last):\n"
		       "[rank0]:  File \"train.py\", line 88, in <module>\n"
		       "[rank0]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
		       "capacity of 79.10 GiB of which 98.00 MiB is free.\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_VERDICT(v, "cuda_oom", 0);
		bool set_aside = false;
		for (const auto &n : v.notes)
			set_aside = set_aside || n.find("kept making progress long after it") != std::string::npos;
		ck_assert_int_eq(set_aside, minutes == 40);
	}
}
END_TEST

START_TEST(the_gpu_an_oom_names_is_the_local_rank_deepspeed_laid_out_on_one_machine)
{
	// DeepSpeed's launcher on one machine gives every worker all GPUs and
	// device local_rank: the "GPU 2" of an unprefixed out-of-memory is
	// rank 2. Without its layout the device says nothing of the rank
	// (srun's per-task GPU binding numbers every process's GPU 0).
	for (bool layout : {true, false}) {
		bundle b;
		std::string log;
		if (layout)
			log += "[2023-04-05 07:41:07,020] [INFO] [launch.py:246:main] global_rank_mapping="
			       "defaultdict(<class 'list'>, {'localhost': [0, 1, 2, 3]})\n";
		log += "2023-04-05 08:41:07 INFO step 742 loss 1.21\n"
		       "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.17 GiB (GPU 2; 39.41 GiB total "
		       "capacity; 35.62 GiB already allocated; 761.50 MiB free; 37.88 GiB reserved in total by PyTorch)\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_VERDICT(v, "cuda_oom", (layout ? 2 : -1));
	}
}
END_TEST

START_TEST(an_interrupt_lsf_reports_as_its_run_limit_wrapped_by_bhist_is_the_limits)
{
	// LSF interrupts the job at its run limit (SIGINT: every rank's
	// KeyboardInterrupt), then reports TERM_RUNLIMIT, bhist -l wrapping the
	// words after the code at 80 columns: the limit ended it. With no such
	// report the interrupt is the user's.
	for (bool reported : {true, false}) {
		bundle b;
		std::string log;
		for (int m = 0; m < 6; m++)
			log += "2024-10-09 05:0" + std::to_string(m) + ":00,000 INFO epoch 3 iter " + std::to_string(100 * m) +
			       " loss 0.41\n";
		log += "Traceback (most recent call last):\n"
		       "  File \"train.py\", line 88, in <module>\n"
		       "KeyboardInterrupt\n";
		b.file("job.log", log);
		if (reported)
			b.file("bhist.txt", "Wed Oct  9 05:06:42 2024: Completed <exit>; TERM_RUNLIMIT: job killed after rea\n"
					    "                     ching LSF run time limit;\n");
		verdict v = b.run();
		DIAG_CK_VERDICT(v, (reported ? "time_limit" : "user_cancel"), -1);
	}
}
END_TEST

START_TEST(a_native_check_failing_ends_the_job_after_a_stall_trained_on_from)
{
	// Horovod's coordinator (rank 0) reports rank 3 missing from a
	// collective, then trains on for two epochs (Keras' bars, no times).
	// Rank 6's native check then fails (glog's FATAL "Check failed", then
	// abort()): that ended the job, not the stall.
	bundle b;
	std::string log =
		"[1,0]<stdout>:Epoch 1/30\n"
		"[1,0]<stderr>:[2022-03-14 10:04:02.331907: W horovod/common/stall_inspector.cc:107] One or more tensors "
		"were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of "
		"ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different "
		"tensors or that only subset of ranks is submitting tensors, which will cause deadlock.\n"
		"[1,0]<stderr>:Missing ranks:\n"
		"[1,0]<stderr>:3: [DistributedAdam_Allreduce/cond/HorovodAllreduce_Cast_1_0]\n";
	for (int e = 1; e <= 2; e++)
		for (int k = 500; k <= 2000; k += 500)
			log += "[1,0]<stdout>:" + std::to_string(k) + "/2346 [=====>......] - ETA: 4:35 - loss: 2.2453 - "
			       "accuracy: 0.4166\n";
	log += "[1,6]<stderr>:2022-03-14 10:22:47.553018: F tensorflow/core/platform/default/env.cc:73] Check failed: "
	       "ret == 0 (11 vs. 0)Thread tf_data_iterator_resource creation via pthread_create() failed.\n"
	       "mpirun noticed that process rank 6 with PID 0 on node gpu-b07 exited on signal 6 (Aborted).\n";
	b.file("job.log", log);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "segfault", 6);
}
END_TEST

START_TEST(the_rank_the_stall_inspector_marks_stalled_is_the_hang)
{
	// Past its shutdown time Horovod's inspector lists the ranks missing
	// something and marks the stalled one ("3!: "): the others miss only
	// what it holds up. Without the mark, three missing ranks single out
	// nobody.
	for (bool mark : {true, false}) {
		bundle b;
		std::string log =
			"[1,0]<stderr>:[2022-07-03 10:17:26.769746: E horovod/common/stall_inspector.cc:104] One or more "
			"tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting "
			"for remainder of ranks for more than 60 seconds.\n"
			"[1,0]<stderr>:Missing ranks:\n"
			"[1,0]<stderr>:0: [HorovodAllreduce_accuracy_0, HorovodAllreduce_loss_0]\n"
			"[1,0]<stderr>:1: [HorovodAllreduce_accuracy_0, HorovodAllreduce_loss_0]\n";
		log += std::string("[1,0]<stderr>:3") + (mark ? "!" : "") +
		       ": [DistributedAdam_Allreduce/cond_0/HorovodAllreduce_grads_0_0]\n"
		       "[1,0]<stderr>:One or more rank (marked by \"!\") is stalled for longer than 600 seconds. Will "
		       "shutdown.\n";
		for (int r = 0; r < 4; r++)
			log += "[1," + std::to_string(r) +
			       "]<stderr>:tensorflow.python.framework.errors_impl.UnknownError:  Horovod has been shut down. "
			       "This was caused by an exception on one of the ranks or an attempt to allreduce, allgather or "
			       "broadcast a tensor after one of the ranks finished execution.\n";
		b.file("job.log", log);
		verdict v = b.run();
		const int first = mark ? 3 : -1;
		DIAG_CK_VERDICT(v, "collective_hang", first);
	}
}
END_TEST

START_TEST(the_worker_gone_before_the_stop_is_the_one_the_others_waited_on)
{
	// At the time limit each node's torchrun sends its workers the stop;
	// rank 6 (pid 2006 on node02) is not among them, and had aborted its
	// communicator before: it had left, the others waited on it. Without
	// its own sign of going, a worker missing from the list says nothing.
	for (bool went : {true, false}) {
		bundle b;
		std::string log = two_nodes_of_four();
		if (went)
			log += "node02:2006:2117 [2] NCCL INFO comm 0x7f2af858a2b0 rank 6 nranks 8 cudaDev 2 busId 3a000 - Abort "
			       "COMPLETE\n";
		log += "slurmstepd: error: *** JOB 2208431 ON node01 CANCELLED AT 2023-06-07T12:14:41 DUE TO TIME LIMIT ***\n";
		for (int pid = 2000; pid < 2008; pid++)
			if (pid != 2006)
				log += "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process " + std::to_string(pid) +
				       " closing signal SIGTERM\n";
		b.file("job.log", log);
		verdict v = b.run();
		if (went) {
			DIAG_CK_VERDICT(v, "collective_hang", 6);
		} else {
			DIAG_CK_VERDICT(v, "time_limit", -1);
		}
	}
}
END_TEST

START_TEST(a_dump_loop_names_each_rank_and_the_launcher_is_not_one)
{
	// A user's loop over the job's pids prints each one's RANK= before
	// py-spy's dump; torchrun's own process, first, sits in its agent's
	// loop, and a parent of mp.spawn in its join. Rank 3's main thread alone is in its data loader: it is named
	// from its header, and the launcher is no third picture. When rank 3
	// too waits where the others do, the cancel stays the verdict.
	for (bool one_differs : {true, false}) {
		bundle b;
		b.file("job.log", "step 4000 | loss 2.91\n"
				  "slurmstepd: error: *** JOB 612 ON gpu-h17 CANCELLED AT 2025-12-11T14:10:31 ***\n");
		std::string dump = "== pid 700 \n"
				   "Process 700: /venv/bin/python3 /venv/bin/torchrun --nproc_per_node=4 train.py\n"
				   "Thread 700 (idle): \"MainThread\"\n"
				   "    _invoke_run (torch/distributed/elastic/agent/server/api.py:870)\n"
				   "    run (torch/distributed/elastic/agent/server/api.py:711)\n"
				   "    main (torch/distributed/run.py:936)\n\n"
				   // (and a parent of mp.spawn joining its children)
				   "Process 701: python spawn_eval.py\n"
				   "Thread 701 (idle): \"MainThread\"\n"
				   "    wait (multiprocessing/connection.py:936)\n"
				   "    join (torch/multiprocessing/spawn.py:109)\n"
				   "    main (spawn_eval.py:166)\n\n";
		for (int r = 0; r < 4; r++) {
			dump += "== pid " + std::to_string(710 + r) + " RANK=" + std::to_string(r) + "\n" +
				"Process " + std::to_string(710 + r) + ": /venv/bin/python3 -u train.py\n" +
				"Thread " + std::to_string(710 + r) + " (active): \"MainThread\"\n";
			if (one_differs && r == 3)
				dump += "    document_batches (data/loader.py:27)\n";
			dump += "    <module> (train.py:336)\n\n";
		}
		b.file("py-spy.txt", dump);
		verdict v = b.run();
		if (one_differs) {
			DIAG_CK_VERDICT(v, "collective_hang", 3);
		} else {
			DIAG_CK_VERDICT(v, "user_cancel", -1);
		}
	}
}
END_TEST

START_TEST(timeouts_before_the_time_limit_were_a_hang)
{
	// Every rank's watchdog reported its collective timed out, rank 0's in
	// a later SeqNum (a desync), and nothing went on until the time limit
	// ended the job: the limit ended a hang, rank 0's. Where the ranks
	// stepped on after the timeouts, the job had not hung: the limit.
	for (bool went_on : {false, true}) {
		bundle b;
		std::string log = "0: Epoch 0:   0%|          | 0/392 [00:00<?, ?it/s]\n";
		for (int r : {2, 0, 3, 1})
			log += std::to_string(r) + ": [E ProcessGroupNCCL.cpp:828] [Rank " + std::to_string(r) +
			       "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + (r == 0 ? "9" : "7") +
			       ", OpType=" + (r == 0 ? "ALLREDUCE" : "BROADCAST") +
			       ", Timeout(ms)=1800000) ran for 1800284 milliseconds before timing out.\n";
		if (went_on)
			for (int r = 0; r < 4; r++)
				log += std::to_string(r) + ": step 100 loss 2.1\n" + std::to_string(r) + ": step 200 loss 2.0\n";
		log += "slurmstepd: error: *** JOB 5523107 ON gpu-a17 CANCELLED AT 2023-07-24T21:02:13 DUE TO TIME LIMIT ***\n";
		b.file("job.log", log);
		verdict v = b.run();
		if (!went_on) {
			DIAG_CK_VERDICT(v, "collective_hang", 0);
		} else {
			DIAG_CK_VERDICT(v, "time_limit", -1);
		}
	}
}
END_TEST

START_TEST(a_node_kernel_seeing_four_pids_crash_at_once_is_no_one_rank)
{
	// The node's kernel saw four python processes segfault in the same
	// second in one library: that node's environment (a bad build), not a
	// rank going first, though srun names one task's exit. With one pid
	// alone crashing, that task's rank is the one.
	for (bool four : {true, false}) {
		bundle b;
		b.file("job.log", "srun: error: gn042: task 1: Exited with exit code 1\n"
				  "srun: error: gn042: tasks 0,2-3: Exited with exit code 1\n");
		std::string kern;
		for (int i = 0; i < (four ? 4 : 1); i++)
			kern += "2019-03-29T12:23:22+0800 gn042 kernel: python3.6[9595" + std::to_string(5 + i) +
				"]: segfault at b ip 00007f6e08bc664c sp 00007ffe63a06200 error 6 in "
				"amp_C.cpython-36m-x86_64-linux-gnu.so[7f6e08bb3000+64000]\n";
		b.file("kern.gn042.log", kern);
		verdict v = b.run();
		if (four) {
			DIAG_CK_VERDICT(v, "segfault", -1);
		} else {
			DIAG_CK_VERDICT(v, "segfault", 1);
		}
	}
}
END_TEST

START_TEST(the_one_rank_a_step_ahead_in_its_nan_is_where_it_appeared)
{
	// A script labels its lines with its Slurm task and prints a banner
	// per task with its node. Task 5 alone logged a NaN loss at iteration
	// 74, the others at 75 (after the reduced loss spread it): rank 5, on
	// gpu-r12. When every task first logged it at the same iteration,
	// nobody is singled out.
	for (bool one_ahead : {true, false}) {
		bundle b;
		std::string log;
		for (int t = 0; t < 8; t++)
			log += "SLURM_PROCID=" + std::to_string(t) + " SLURM_LOCALID=" + std::to_string(t % 4) +
			       " SLURMD_NODENAME=" + (t < 4 ? "gpu-r11" : "gpu-r12") + "\n";
		for (int t : {5, 1, 6, 3, 0, 7, 4, 2})
			log += "[SLURM_PROCID=" + std::to_string(t) + "] iteration " +
			       std::string(one_ahead && t == 5 ? "74" : "75") + ": non-finite local loss nan\n";
		b.file("job.log", log);
		verdict v = b.run();
		if (one_ahead) {
			DIAG_CK_VERDICT(v, "nan_inf", 5);
			DIAG_CK_STR_EQ(v.first_host, "gpu-r12");
		} else {
			DIAG_CK_VERDICT(v, "nan_inf", -1);
		}
	}
}
END_TEST

START_TEST(the_one_rank_that_skipped_a_nan_step_before_a_silence_hung)
{
	// Eight ranks stepped every five minutes; rank 5 alone logged a NaN
	// loss and skipped its batch, the others stepped on twice, then the log
	// went silent for hours until a cancel: the stop ended a hang, rank
	// 5's (the others waited in a collective it never entered). Without
	// the skip, a hang that singles out no rank.
	for (bool skipped : {true, false}) {
		bundle b;
		std::string log;
		for (int r = 0; r < 8; r++)
			log += "Initializing distributed: GLOBAL_RANK: " + std::to_string(r) + ", MEMBER: " +
			       std::to_string(r + 1) + "/8\n";
		for (int i = 0; i < 8; i++) {
			char line[160];
			snprintf(line, sizeof(line),
				 "2022-09-14 01:%02d:49,697 [INFO] seg.train: epoch=10 step=%d/2480 loss=0.37 lr=3.0e-04\n",
				 10 + i * 5, 500 * (i + 1));
			log += line;
			if (skipped && i == 5)
				log += "2022-09-14 01:37:12,402 [WARNING] seg.module: [gpu-r08] global_rank=5 non-finite loss "
				       "(nan) at epoch 10 batch 1222, returning None to skip this batch\n";
		}
		log += "slurmstepd: error: *** JOB 7731942 ON gpu-r07 CANCELLED AT 2022-09-14T09:21:37 ***\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_VERDICT(v, "collective_hang", (skipped ? 5 : -1));
	}
}
END_TEST

START_TEST(the_one_rank_a_round_ahead_before_a_silence_hung)
{
	// Six ranks each logged the end of their training loop within seconds
	// of one another, epoch after epoch; in the last epoch rank 4 alone
	// did (its loop a step short), the others never, and three hours later
	// the time limit stopped the job: the stop ended a hang, rank 4's (it
	// went into validation, they waited in the step it skipped). Where the
	// limit came a minute after rank 4's line, the others were merely a
	// moment behind: a healthy job stopped mid-round.
	for (bool long_silence : {true, false}) {
		bundle b;
		std::string log;
		for (int epoch = 1; epoch <= 4; epoch++)
			for (int r : {2, 0, 5, 1, 4, 3}) {
				if (epoch == 4 && r != 4)
					continue;
				char line[200];
				snprintf(line, sizeof(line),
					 "[2024-11-03 %02d:%02d:%02d] [rank %d] epoch %d train loop finished after %d iters, "
					 "running validation\n",
					 epoch * 3, 4, 10 + r * 3, r, epoch, epoch == 4 ? 4999 : 5000);
				log += line;
			}
		log += std::string("slurmstepd: error: *** JOB 2210944 ON rtx-n07 CANCELLED AT 2024-11-03T") +
		       (long_silence ? "15:04:31" : "12:05:31") + " DUE TO TIME LIMIT ***\n";
		b.file("job.log", log);
		verdict v = b.run();
		if (long_silence)
			DIAG_CK_VERDICT(v, "collective_hang", 4);
		else
			DIAG_CK_VERDICT(v, "time_limit", -1);
	}
}
END_TEST

START_TEST(a_wrapped_tensorflow_error_is_what_it_wraps)
{
	// TensorFlow 1 raises "N root error(s) found." and lists each below it:
	// a check_numerics failure there makes the job's end non-finite values;
	// a shape error there leaves it the Python exception it was.
	for (bool nan : {true, false}) {
		bundle b;
		std::string log = "Traceback (most recent call last):\n"
				  "  File \"/usr/local/lib/python3.6/dist-packages/tensorflow_core/python/client/session.py\", "
				  "line 1443, in _call_tf_sessionrun\n"
				  "    run_metadata)\n"
				  "tensorflow.python.framework.errors_impl.InvalidArgumentError: 2 root error(s) found.\n";
		log += nan ? "  (0) Invalid argument: LossTensor is inf or nan. : Tensor had NaN values\n"
			   : "  (0) Invalid argument: Incompatible shapes: [8,4] vs. [8,5]\n";
		log += "\t [[{{node CheckNumerics}}]]\n0 successful operations.\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), nan ? "nan_inf" : "python_exception");
	}
}
END_TEST

START_TEST(an_untimed_error_that_may_follow_ctrl_c_does_not_precede_it)
{
	// The user pressed Ctrl-C on node a at 10:41:34; node b's ranks then
	// lost their peer, in lines without a time between b's stamps of
	// 10:14:48 and 10:41:40: they may have come after the stop, so the
	// stop is the job's end. Where b's next stamp is 10:30:00, the loss
	// came before the stop: the user stopped a job already failing.
	for (bool spans : {true, false}) {
		bundle b;
		b.file("a.log", "  1%|          | 17/1296 [25:34<32:04:37, 90.29s/it]\n"
				"^C[2024-07-30 10:41:34,002] torch.distributed.elastic.agent.server.api: [WARNING] "
				"Received Signals.SIGINT death signal, shutting down workers\n");
		b.file("b.log", std::string("[2024-07-30 10:14:48,118] [INFO] [engine.py:1100:train] step 1\n"
					    "[rank8]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 8] NCCL watchdog thread "
					    "terminated with exception: NCCL error: remote process exited or there was a "
					    "network error, NCCL version 2.20.5\n"
					    "socketProgress: Connection closed by remote peer 10.0.1.5<41846>\n") +
					(spans ? "[2024-07-30 10:41:40,787] torch.distributed.elastic.multiprocessing.api: [ERROR] "
						 "failed (exitcode: -6) local_rank: 0 (pid: 2411) of binary: /usr/bin/python\n"
					       : "[2024-07-30 10:30:00,787] torch.distributed.elastic.multiprocessing.api: [ERROR] "
						 "failed (exitcode: -6) local_rank: 0 (pid: 2411) of binary: /usr/bin/python\n"));
		verdict v = b.run();
		if (spans)
			DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "user_cancel");
		else
			ck_assert(v.cls != failure_class::user_cancel);
	}
}
END_TEST

START_TEST(processes_seen_on_the_gpus_long_after_the_last_line_hung)
{
	// A job stepped every twenty seconds until 10:14:41; the user pasted
	// nvidia-smi's table taken at 10:58:37, the job's four processes still
	// on the GPUs, then pressed Ctrl-C: the ranks were alive and stuck, and
	// the stop ended a hang. A table taken a minute after the last line
	// shows a job still running: the stop is the user's. The stop's own
	// stamped line, after the table, does not end the silence it saw.
	for (bool long_after : {true, false})
	for (bool stamped_stop : {false, true}) {
		bundle b;
		std::string log;
		for (int i = 0; i < 6; i++) {
			char line[160];
			snprintf(line, sizeof(line), "2021-09-27 10:%02d:%02d,086 - mmdet - INFO - Epoch [1][%d/7330] lr: 2.000e-02, loss: 1.2\n",
				 12 + i / 3, 21 + (i % 3) * 20, 50 * (i + 1));
			log += line;
		}
		log += "2021-09-27 10:14:41,086 - mmdet - INFO - Epoch [1][350/7330] lr: 2.000e-02, loss: 1.1\n";
		if (stamped_stop)
			log += "2021-09-27 10:59:02,004 - mmdet - WARNING - interrupted, saving nothing\n";
		log += "^CTraceback (most recent call last):\nKeyboardInterrupt\n";
		b.file("job.log", log);
		std::string smi = "rdiaz@v100-ws2:~$ nvidia-smi\n";
		smi += long_after ? "Mon Sep 27 10:58:37 2021       \n" : "Mon Sep 27 10:15:37 2021       \n";
		smi += "+-----------------------------------------------------------------------------+\n"
		       "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |\n"
		       "|-------------------------------+----------------------+----------------------+\n"
		       "| Processes:                                                                  |\n";
		for (int g = 0; g < 4; g++)
			smi += "|    " + std::to_string(g) + "   N/A  N/A    11820" + std::to_string(4 + g) +
			       "      C   ...3/envs/mmdet/bin/python       3783MiB |\n";
		smi += "+-----------------------------------------------------------------------------+\n";
		b.file("nvidia-smi.txt", smi);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), long_after ? "collective_hang" : "user_cancel");
	}
}
END_TEST

START_TEST(a_clouds_preemption_record_of_a_node_under_its_instance_name)
{
	// Slurm lost compute002 (srun's line has no time of its own: between
	// stamps of 09:14 and 14:27); the cloud's operations list says it
	// preempted instance gpucluster-compute002 (the cluster manager's name
	// for node compute002) at 14:22, and another VM of the project (not
	// the job's) at 10:00. The job was preempted on compute002. Without
	// the row of its node, and the other VM's a day before, the list says
	// nothing of this job: a node failure.
	for (bool own_row : {true, false}) {
		bundle b;
		b.file("job.log", "[2023-06-14 09:14:49] 0: Epoch 0:   3%| 25/800 [01:10<36:00]\n"
				  "[2023-06-14 09:14:49] 1: Epoch 0:   3%| 25/800 [01:10<36:00]\n"
				  "srun: error: Node failure on compute002\n"
				  "slurmstepd: error: *** STEP 1187.0 ON compute001 CANCELLED AT 2023-06-14T14:27:42 DUE TO NODE "
				  "FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n");
		std::string ops = "NAME                                                     TYPE                                        "
				  "TARGET                                        HTTP_STATUS  STATUS  TIMESTAMP\n";
		if (own_row)
			ops += "systemevent-1686752558716-5fe1a4b07c3e1-96f2d1a4-5c0b83e7  compute.instances.preempted                 "
			       "us-central1-a/instances/gpucluster-compute002  200          DONE    2023-06-14T07:22:38.716-07:00\n";
		ops += std::string("systemevent-1686652558716-5fe1a4b07c3e1-96f2d1a4-5c0b83e8  compute.instances.preempted                 "
				   "us-central1-a/instances/gpucluster-compute009  200          DONE    ") +
		       (own_row ? "2023-06-14T03:00:00.000-07:00\n" : "2023-06-13T04:22:38.716-07:00\n");
		b.file("gcloud.txt", ops);
		b.file("sacct.txt", "JobID|State|ExitCode|Start|End|NodeList\n"
				    "1187|NODE_FAIL|1:0|2023-06-14T09:12:31|2023-06-14T14:27:42|compute[001-002]\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), own_row ? "preemption" : "node_failure");
		DIAG_CK_STR_EQ(v.first_host, "compute002");
	}
}
END_TEST

START_TEST(a_peer_address_of_no_known_host_and_one_node_whose_link_failed)
{
	// Ranks of two nodes timed out sending to peer addresses no line ties
	// to a host; lab-n02's kernel saw its NIC's link go down before: the
	// fault is lab-n02's side. Without that kernel log nothing names it.
	for (bool kernel : {true, false}) {
		bundle b;
		b.file("job.log", "1: [2025-06-12 14:10:00] step 1000 loss 0.41\n"
				  "1: lab-n01:71423:71511 [0] misc/socket.cc:49 NCCL WARN socketProgressOpt: Call to send to "
				  "10.12.0.22<48211> failed : Connection timed out\n"
				  "3: lab-n02:58811:58901 [0] misc/socket.cc:49 NCCL WARN socketProgressOpt: Call to send to "
				  "10.12.0.23<39644> failed : Connection timed out\n"
				  "1: [2025-06-12 14:41:00] watchdog aborting\n");
		if (kernel)
			b.file("dmesg.lab-n02.txt", "[Thu Jun 12 14:29:42 2025] ixgbe 0000:3b:00.0 ens1f0: NIC Link is Down\n");
		b.file("sacct.txt", "JobID|State|ExitCode|Start|End|NodeList\n"
				    "40917|FAILED|134:0|2025-06-12T09:31:40|2025-06-12T14:59:46|lab-n[01-03]\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "network");
		if (kernel)
			DIAG_CK_STR_EQ(v.first_host, "lab-n02");
		else
			ck_assert(v.first_host != "lab-n02");
	}
}
END_TEST

START_TEST(a_failed_assertion_that_values_were_finite_is_non_finite_values)
{
	// mmdet's CheckInvalidLossHook asserts torch.isfinite(loss): its bare
	// AssertionError is the loss's non-finite value. Another assertion
	// failing there is the Python exception it says.
	for (bool finite_check : {true, false}) {
		bundle b;
		b.file("job.log", std::string("Traceback (most recent call last):\n"
					      "  File \"/opt/mmdet/mmdet/engine/hooks/check_invalid_loss_hook.py\", line 61, in "
					      "after_train_iter\n") +
					  (finite_check ? "    assert torch.isfinite(outputs['loss']), \\\n"
							: "    assert outputs['loss'].dim() == 0, \\\n") +
					  "AssertionError: None\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), finite_check ? "nan_inf" : "python_exception");
		// (Said as non-finite values, not as the exception that carried them.)
		ck_assert(finite_check == (v.summary.find("NaN/Inf") != std::string::npos));
	}
}
END_TEST

START_TEST(a_crash_two_days_before_the_time_limit_is_in_the_job)
{
	// The ranks stepped from 10:14 to 10:19 on March 20; rank 2's process
	// (pid 12203, by its NCCL line) segfaulted at 10:19:47 in the kernel's
	// log; the others waited until the time limit two days later. The job
	// was alive from its first progress: the crash is its end. The kernel
	// line of another process the day before is an older job's.
	bundle b;
	std::string log;
	for (int r = 0; r < 4; r++)
		log += "gpu-v04:1220" + std::to_string(1 + r) + ":1254" + std::to_string(r) + " [" + std::to_string(r) +
		       "] NCCL INFO comm 0x7f2c80002000 rank " + std::to_string(r) + " nranks 4 cudaDev " + std::to_string(r) +
		       " nvmlDev " + std::to_string(r) + " - Init COMPLETE\n";
	for (int i = 0; i < 6; i++) {
		char line[200];
		snprintf(line, sizeof(line),
			 "2019-03-20 10:%02d:%02d,411 maskrcnn_benchmark.trainer INFO: eta: 1 day, 9:48:11  iter: %d  loss: 1.8000 "
			 "(1.9200)  time: 0.7300\n",
			 14 + i, 2 + i * 7, 20 * (i + 1));
		log += line;
	}
	log += "slurmstepd: error: *** JOB 88103 ON gpu-v04 CANCELLED AT 2019-03-22T10:13:55 DUE TO TIME LIMIT ***\n";
	b.file("job.log", log);
	b.file("dmesg.gpu-v04.txt",
	       "[Tue Mar 19 16:40:12 2019] python[30411]: segfault at 18 ip 00007f0e21a3b2c4 sp 00007ffd61e2a110 error 4 in "
	       "libcudnn.so.7[7f0e1d000000+1a4e000]\n"
	       "[Wed Mar 20 10:19:47 2019] python[12203]: segfault at 0 ip 00007f2c9d51a77e sp 00007f2bf97fd8c0 error 4 in "
	       "_C.cpython-36m-x86_64-linux-gnu.so[7f2c9d4f0000+8c000]\n");
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "segfault", 2);
}
END_TEST

START_TEST(the_one_rank_inside_a_collective_at_ctrl_c_hung)
{
	// Ctrl-C: every rank's traceback ends in KeyboardInterrupt. Ranks 1-5
	// were in their training step; rank 0 alone sat in a barrier (its save
	// path). It went its own way; the interrupt ended the others' wait. The
	// launcher's own traceback is not a rank's. When rank 0 too was in the
	// step, nobody differs and the user's stop stays the verdict.
	for (bool one_in_barrier : {true, false}) {
		bundle b;
		std::string log;
		for (int r : {4, 1, 0, 2, 5, 3}) {
			std::string p = "[rank" + std::to_string(r) + "]: ";
			log += p + "Traceback (most recent call last):\n" + p +
			       "  File \"/home/u/sae/__main__.py\", line 119, in <module>\n" + p + "    run()\n";
			if (one_in_barrier && r == 0)
				log += p + "  File \"/home/u/sae/trainer.py\", line 307, in save\n" + p + "    dist.barrier()\n" + p +
				       "  File \"/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py\", "
				       "line 3696, in barrier\n" +
				       p + "    work.wait()\n";
			else
				log += p + "  File \"/home/u/sae/trainer.py\", line 196, in fit\n" + p + "    loss.item()\n";
			log += p + "KeyboardInterrupt\n";
		}
		log += "Traceback (most recent call last):\n"
		       "  File \"/opt/venv/lib/python3.11/site-packages/torch/distributed/elastic/agent/server/api.py\", "
		       "line 835, in _invoke_run\n"
		       "    time.sleep(monitor_interval)\n"
		       "KeyboardInterrupt\n";
		b.file("job.out", log);
		verdict v = b.run();
		if (one_in_barrier) {
			DIAG_CK_VERDICT(v, "collective_hang", 0);
		} else {
			DIAG_CK_VERDICT(v, "user_cancel", -1);
		}
	}
}
END_TEST

START_TEST(a_link_fault_several_ranks_report_names_no_rank)
{
	// Ranks 5 and 6 of node02 both lost the link to the same peer (retry
	// counter exceeded, status 12): the first to print it only used the
	// link first; no rank is singled out. A completion with a local
	// protection error (status 4) first is its own rank's queue pair:
	// rank 5.
	for (int status : {12, 4}) {
		bundle b;
		std::string log = two_nodes_of_four();
		log += "node02:2005:2099 [1] transport/net_ib.cc:2262 NCCL WARN NET/IB : Got completion from peer "
		       "10.9.9.9<45822> with status=" +
		       std::to_string(status) + " opcode=0 len=0 vendor err 129 (Recv)\n";
		log += "node02:2006:2099 [2] transport/net_ib.cc:2262 NCCL WARN NET/IB : Got completion from peer "
		       "10.9.9.9<51107> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n";
		b.file("job.log", log);
		verdict v = b.run();
		if (status == 12) {
			DIAG_CK_VERDICT(v, "network", -1);
		} else {
			DIAG_CK_VERDICT(v, "network", 5);
		}
	}
}
END_TEST

START_TEST(the_first_host_comes_with_its_other_names)
{
	// The job's lines name pods; kubectl's row gives the pod's node, and an
	// EC2 node's name carries its address: the verdict names all three. A
	// node name that encodes nothing adds only itself.
	for (bool ec2_name : {true, false}) {
		bundle b;
		b.file("job.log",
		       "[pod/llama-ft-worker-1/pytorch] [rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to "
		       "allocate 2.00 GiB. GPU 0 has a total capacity of 79.33 GiB of which 1.06 GiB is free.\n");
		const std::string node = ec2_name ? "ip-10-41-7-212.us-west-2.compute.internal" : "gpu-node-7";
		// (The job's other pods listed first: each row is kept, however many.)
		std::string rows;
		for (int i = 2; i < 7; i++)
			rows += "llama-ft-worker-" + std::to_string(i) + "   0/1     Error   0          6h    10.41.7.4" +
				std::to_string(i) + "    gpu-other-" + std::to_string(i) + "   <none>           <none>\n";
		b.file("pods.txt", "NAME   READY   STATUS   RESTARTS   AGE   IP   NODE   NOMINATED NODE   READINESS GATES\n" +
					   rows + "llama-ft-worker-1   0/1     Error   0          6h    10.41.7.36    " + node +
					   "   <none>           <none>\n");
		verdict v = b.run();
		DIAG_CK_VERDICT(v, "cuda_oom", 5);
		DIAG_CK_STR_EQ(v.first_host, "llama-ft-worker-1");
		ck_assert_uint_eq(v.first_host_aliases.size(), ec2_name ? 2 : 1);
		DIAG_CK_STR_EQ(v.first_host_aliases[0], node);
		if (ec2_name)
			DIAG_CK_STR_EQ(v.first_host_aliases[1], "10.41.7.212");
	}
}
END_TEST

START_TEST(a_nodes_xid_names_its_rank_by_bus_id_through_the_pod_there)
{
	// The kernel of a Kubernetes node names the GPU by PCI address; the
	// job's NCCL lines name the pod (kubectl's row puts it on that node).
	// Where no row ties the two, the node's bus ids are unknown: no rank.
	for (bool row : {true, false}) {
		bundle b;
		std::string log;
		for (int l = 0; l < 2; l++)
			log += "[pod/sft-worker-1/pytorch] sft-worker-1:6" + std::to_string(l) + ":19" + std::to_string(l) + " [" +
			       std::to_string(l) + "] NCCL INFO comm 0x55d0a1 rank " + std::to_string(2 + l) +
			       " nranks 4 cudaDev " + std::to_string(l) + " busId " + (l ? "4e000" : "7000") +
			       " - Init COMPLETE\n";
		log += "[pod/sft-worker-0/pytorch] [rank0]:[E306 21:47:31.000000000 ProcessGroupNCCL.cpp:616] [Rank 0] "
		       "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4812, OpType=ALLREDUCE, "
		       "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600032 milliseconds before timing out.\n";
		b.file("job.log", log);
		b.file("dmesg.gpu-node-a12.txt", "[Mon Mar  6 21:37:31 2023] NVRM: Xid (PCI:0000:4e:00): 119, pid=1846212, "
						 "name=python, Timeout waiting for RPC from GSP! Expected function 76 "
						 "(GSP_RM_CONTROL) (0x20801702 0x4).\n");
		if (row)
			b.file("pods.txt", "NAME   READY   STATUS   RESTARTS   AGE   IP   NODE   NOMINATED NODE   READINESS GATES\n"
					   "sft-worker-0   0/1     Error   0          3h    10.244.3.9    gpu-node-a07   <none>   <none>\n"
					   "sft-worker-1   0/1     Error   0          3h    10.244.10.17  gpu-node-a12   <none>   <none>\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "gpu_hardware");
		ck_assert_int_eq(v.first_rank, row ? 3 : -1);
	}
}
END_TEST

START_TEST(the_pod_at_an_end_of_every_broken_connection_is_the_first)
{
	// A sidecar restarting on one pod closed its connections: the other
	// pods' gloo pairs name its address (kubectl's row gives whose), and its
	// own rank saw its connection to one of them reset. That pod is an end
	// of every broken connection. Where another pod's report names a third
	// instead, no pod is an end of every one: no one is singled out.
	for (bool common_end : {true, false}) {
		bundle b;
		const char *pods[] = {"ctr-master-0", "ctr-worker-0", "ctr-worker-1", "ctr-worker-2"};
		const char *ips[] = {"10.4.1.12", "10.4.3.9", "10.4.2.17", "10.4.6.5"};
		std::string log;
		for (int p = 0; p < 4; p++) {
			log += std::string("$ kubectl logs ") + pods[p] + " -c pytorch\n"
			       "2018-01-09 14:13:16,146 rank=" + std::to_string(p) + " Train Epoch: 1 [588800/1048576 (56%)]\n"
			       "Traceback (most recent call last):\n"
			       "  File \"/opt/ctr/train.py\", line 64, in average_gradients\n"
			       "    dist.all_reduce(param.grad.data, op=dist.reduce_op.SUM)\n";
			if (p == 2)
				log += std::string("RuntimeError: [/opt/gloo/transport/tcp/pair.cc:479] Read error [") + ips[1] +
				       "]:52018: Connection reset by peer\n";
			else
				log += std::string("RuntimeError: [/opt/gloo/transport/tcp/pair.cc:511] Connection closed by peer [") +
				       (p == 1 && !common_end ? ips[0] : ips[2]) + "]:3665" + std::to_string(p) + "\n";
		}
		log += "$ kubectl get pods -o wide\n"
		       "NAME   READY   STATUS   RESTARTS   AGE   IP   NODE   NOMINATED NODE   READINESS GATES\n";
		for (int p = 0; p < 4; p++)
			log += std::string(pods[p]) + "   1/2     Error    0          41m   " + ips[p] + "   k8s-cpu-0" +
			       std::to_string(p + 2) + "   <none>           <none>\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "network");
		DIAG_CK_STR_EQ(v.first_host, common_end ? "ctr-worker-1" : "");
	}
}
END_TEST

START_TEST(gpus_read_busy_long_after_the_last_step_then_a_cancel_ended_a_hang)
{
	// A monitor beside the job samples its GPUs every five minutes. After
	// the last step the job writes nothing; its GPUs read 100% for twenty
	// minutes (a collective spinning) and then the user cancels: a hang.
	// The same silence with the GPUs idle is a job waiting on something
	// else, and the cancel is only a cancel.
	for (bool busy : {true, false}) {
		bundle b;
		std::string log;
		auto sample = [&](const char *hhmm, int util) {
			for (int g = 0; g < 2; g++)
				log += std::string("2025/05/27 08:") + hhmm + ":09.51" + std::to_string(g) + ", " + std::to_string(g) +
				       ", " + std::to_string(util) + " %, 61204 MiB\n";
		};
		sample("14", 0);
		log += "Epoch 0:   4%|4         | 200/5000 [01:06<26:29, 3.02it/s, train_loss_step=8.046]\n";
		sample("19", 97);
		log += "Epoch 0:  22%|##2       | 1100/5000 [06:04<21:31, 3.03it/s, train_loss_step=6.749]\n";
		sample("24", 98);
		log += "Epoch 0:  40%|####      | 2000/5000 [11:02<16:33, 3.03it/s, train_loss_step=5.372]\n";
		for (const char *t : {"29", "34", "39", "44", "49"})
			sample(t, busy ? 100 : 0);
		log += "slurmstepd: error: *** JOB 1187 ON gpu-a3-2 CANCELLED AT 2025-05-27T08:51:40 ***\n"
		       "srun: error: gpu-a3-2: tasks 0-1: Killed\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), busy ? "collective_hang" : "user_cancel");
	}
}
END_TEST

START_TEST(an_eviction_event_names_its_pod_and_the_pods_description_its_node)
{
	// kubectl's event row names the pod the kubelet evicted; the pod's
	// description ("Name:", then "Node: name/ip") gives its node, another
	// name of the same machine. A row whose column before the message is
	// the event's source (describe's "From": kubelet) names no pod.
	for (bool described : {true, false}) {
		bundle b;
		std::string log = "[rank0]: RuntimeError: NCCL communicator was aborted on rank 0.\n"
				  "$ kubectl get events\n"
				  "4m11s       Warning   Evicted               pod/seg-train-master-0   The node was low on "
				  "resource: memory. Container main was using 50413312Ki, which exceeds its request of 0.\n"
				  "  Warning  Evicted  4m11s  kubelet  The node was low on resource: memory.\n";
		if (described)
			log += "$ kubectl describe pod seg-train-master-0\n"
			       "Name:             seg-train-master-0\n"
			       "Namespace:        default\n"
			       "Node:             gke-gpu-pool-5b81e2c4-q3vd/10.128.0.44\n"
			       "Status:           Failed\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "host_oom");
		DIAG_CK_STR_EQ(v.first_host, "seg-train-master-0");
		bool node = false;
		for (const auto &a : v.first_host_aliases)
			node = node || a == "gke-gpu-pool-5b81e2c4-q3vd";
		ck_assert_int_eq(node, described);
	}
}
END_TEST

START_TEST(a_node_lost_minutes_after_the_oom_killer_ran_out_of_memory)
{
	// sacct (under its command line) and the job print the cluster's local
	// time; the node's journal states its zone (-05:00), and a stray line
	// of it at the job's start fits UTC as well. The OOM killer took the
	// job's process on amp-g08 three minutes before Slurm lost the node:
	// it ran out of memory. Without that kill the node just failed.
	for (bool minutes_before : {true, false}) {
		bundle b;
		b.file("sacct.txt", "$ sacct -j 4417203 -P --format=JobID,State,ExitCode,Start,End,NodeList\n"
				    "JobID|State|ExitCode|Start|End|NodeList\n"
				    "4417203|NODE_FAIL|0:0|2024-03-13T21:39:22|2024-03-14T02:18:06|amp-g[07-08]\n"
				    "4417203.0|CANCELLED|0:15|2024-03-13T21:39:30|2024-03-14T02:18:38|amp-g[07-08]\n");
		b.file("job.log", "4: [2024-03-13 21:41:04] [rank4] data: 2686843 train images\n"
				  "0: [2024-03-13 23:00:06] [rank0] ep 0 step 2200/20990 loss 0.7713\n"
				  "0: [2024-03-14 01:40:06] [rank0] ep 0 step 10200/20990 loss 0.6981\n"
				  "0: [2024-03-14 02:11:06] [rank0] ep 0 step 11200/20990 loss 0.6933\n"
				  "srun: error: Node failure on amp-g08\n"
				  "slurmstepd: error: *** JOB 4417203 ON amp-g07 CANCELLED AT 2024-03-14T02:14:36 DUE TO NODE "
				  "FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n");
		std::string kern = "2024-03-13T21:39:36-0500 amp-g08 kernel: nvidia-uvm: Loaded the UVM driver, major device "
				   "number 508.\n";
		if (minutes_before)
			kern += "2024-03-14T02:11:02-0500 amp-g08 kernel: oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),"
				"cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/system.slice/slurmstepd.scope/job_4417203/step_0\n"
				"2024-03-14T02:11:02-0500 amp-g08 kernel: Out of memory: Killed process 1183877 (python) "
				"total-vm:187338112kB, anon-rss:61822216kB, file-rss:101436kB, shmem-rss:8420112kB, UID:24107\n";
		b.file("kern.amp-g08.log", kern);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), minutes_before ? "host_oom" : "node_failure");
		DIAG_CK_STR_EQ(v.first_host, "amp-g08");
	}
}
END_TEST

START_TEST(victims_on_the_line_of_the_users_ctrl_c_are_its_teardown)
{
	// The terminal echoed the user's Ctrl-C ("^C") and the trainer's
	// handler printed its DataLoader workers gone on the same line: the
	// interrupt's teardown. The same line without the echo says only that
	// the workers went (killed, crashed): nobody is blamed for a cancel.
	for (bool echoed : {true, false}) {
		bundle b;
		b.file("job.log", std::string("INFO:ignite.engine.engine.SupervisedTrainer:Epoch: 6/40, Iter: 14/25 -- "
					      "train_loss: 0.4108\n") +
					  (echoed ? "^C" : "") +
					  "ERROR:ignite.engine.engine.SupervisedTrainer:Exception: DataLoader worker (pid(s) "
					  "31702, 31703) exited unexpectedly\n"
					  "RuntimeError: DataLoader worker (pid(s) 31702, 31703) exited unexpectedly\n");
		verdict v = b.run();
		if (echoed)
			DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "user_cancel");
		else
			ck_assert(std::string(class_name(v.cls)) != "user_cancel");
	}
}
END_TEST

START_TEST(a_steps_time_limit_the_job_outlived_is_not_its_end)
{
	// A staging step ran under its own --time and was cut at its limit; the
	// training step ran seven hours more until the job was preempted. The
	// step's banner is no end of the job. Where the job's own banner is the
	// time limit's, within the same minute, it is.
	for (bool outlived : {true, false}) {
		bundle b;
		std::string log = "slurmstepd: error: *** STEP 5530912.0 ON gv013 CANCELLED AT 2025-04-08T20:00:31 DUE TO "
				  "TIME LIMIT ***\n"
				  "0: [2025-04-08 20:01:10] step 10 loss 3.12\n";
		if (outlived)
			log += "0: [2025-04-09 03:10:10] step 9810 loss 1.12\n"
			       "slurmstepd: error: *** JOB 5530912 ON gv013 CANCELLED AT 2025-04-09T03:17:46 DUE TO PREEMPTION ***\n";
		else
			log += "slurmstepd: error: *** JOB 5530912 ON gv013 CANCELLED AT 2025-04-08T20:01:31 DUE TO TIME LIMIT ***\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), outlived ? "preemption" : "time_limit");
	}
}
END_TEST

START_TEST(a_host_written_in_full_keeps_its_full_name)
{
	// The verdict names a node by its short name, as Slurm does; the full
	// name the logs wrote comes with it.
	bundle b;
	b.file("job.log",
	       "gpn-c204.cluster.local:4411:4411 [2] NCCL INFO ncclCommInitRank comm 0x55d1 rank 2 nranks 4 cudaDev 2 "
	       "busId 41000 commId 0x1f - Init COMPLETE\n"
	       "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total "
	       "capacity of 79.33 GiB of which 1.06 GiB is free.\n");
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "cuda_oom", 2);
	DIAG_CK_STR_EQ(v.first_host, "gpn-c204");
	ck_assert_uint_ge(v.first_host_aliases.size(), 1);
	DIAG_CK_STR_EQ(v.first_host_aliases[0], "gpn-c204.cluster.local");
}
END_TEST

START_TEST(a_node_first_comes_with_its_pods_hostname)
{
	// The node went NotReady (the first host); kubectl's row puts the
	// job's pod on it, and the pod's containers print their hostname, the
	// pod's name without its suffix (a JobSet's or StatefulSet's): the
	// verdict names the node, its pod and the hostname the job's own
	// lines use.
	bundle b;
	b.file("job.log",
	       "mistral-sft-workers-0-2:88:91 [0] NCCL INFO Bootstrap : Using eth0:10.244.5.17<0>\n"
	       "mistral-sft-workers-0-1:77:80 [0] NCCL INFO Bootstrap : Using eth0:10.244.3.9<0>\n"
	       "$ kubectl get pods -o wide\n"
	       "NAME   READY   STATUS   RESTARTS   AGE   IP   NODE   NOMINATED NODE   READINESS GATES\n"
	       "mistral-sft-workers-0-2-h2x9c   1/1     Terminating   0          3h1m   10.244.5.17   aks-gpu-vmss00000a   <none>   <none>\n"
	       "mistral-sft-workers-0-1-q7m2d   1/1     Running       0          3h1m   10.244.3.9    aks-gpu-vmss000003   <none>   <none>\n"
	       "$ kubectl get events\n"
	       "default     12m         Normal    NodeNotReady      node/aks-gpu-vmss00000a   Node aks-gpu-vmss00000a status is now: NodeNotReady\n");
	verdict v = b.run();
	DIAG_CK_STR_EQ(v.first_host, "aks-gpu-vmss00000a");
	bool pod = false, hostname = false;
	for (const auto &a : v.first_host_aliases) {
		pod = pod || a == "mistral-sft-workers-0-2-h2x9c";
		hostname = hostname || a == "mistral-sft-workers-0-2";
		ck_assert_msg(a.rfind("mistral-sft-workers-0-1", 0) != 0, "another pod's name: %s", a.c_str());
	}
	ck_assert_msg(pod && hostname, "aliases: %zu", v.first_host_aliases.size());
}
END_TEST

START_TEST(a_described_pods_block_is_the_pods)
{
	// "kubectl describe pod": its Name, its Node, then its container's
	// end. A container over its own memory limit is the pod's fault; the
	// node low on memory (an eviction) is the node's.
	for (bool node_pressure : {false, true}) {
		bundle b;
		std::string d = "$ kubectl describe pod llama-ft-worker-1\n"
				"Name:             llama-ft-worker-1\n"
				"Namespace:        default\n"
				"Node:             gke-a100-pool-7c1e-x6qv/10.128.0.44\n"
				"Status:           Failed\n";
		d += node_pressure ? "Reason:           Evicted\n"
				     "Message:          The node was low on resource: memory. Container pytorch was using "
				     "61Gi, which exceeds its request of 32Gi.\n"
				   : "Containers:\n"
				     "  pytorch:\n"
				     "    State:          Terminated\n"
				     "      Reason:       OOMKilled\n"
				     "      Exit Code:    137\n";
		b.file("describe.txt", d);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "host_oom");
		DIAG_CK_STR_EQ(v.first_host, node_pressure ? "gke-a100-pool-7c1e-x6qv" : "llama-ft-worker-1");
	}
}
END_TEST

START_TEST(a_pasted_commands_output_is_its_pods_or_nodes)
{
	// Output pasted under its command: what "kubectl logs POD" or "kubectl
	// get pod POD" prints is that pod's, what "kubectl describe node N"
	// prints that node's, until
	// the next command. A command that names several objects (a selector)
	// or none names no host.
	struct shape {
		const char *command, *host;
	} shapes[] = {
		{"$ kubectl -n llm logs --tail=200 bert-ft-worker-1", "bert-ft-worker-1"},
		{"$ kubectl logs pod/bert-ft-worker-1 -c pytorch", "bert-ft-worker-1"},
		{"$ kubectl describe node gke-a100-pool-7c1e-x6qv | sed -n '/^Events:/,$p'", "gke-a100-pool-7c1e-x6qv"},
		{"$ kubectl -n llm get pod bert-ft-worker-1 -o yaml | yq .status", "bert-ft-worker-1"},
		{"$ kubectl get node/gke-a100-pool-7c1e-x6qv -o yaml", "gke-a100-pool-7c1e-x6qv"},
		{"$ kubectl get pods -o wide", ""},
		{"$ kubectl logs -l job-name=bert-ft --prefix", ""},
		{"$ cat train.log", ""},
	};
	for (const auto &sh : shapes) {
		bundle b;
		b.file("pasted.txt", std::string("$ kubectl get pods\nNAME READY STATUS\n") + sh.command +
					     "\nTraceback (most recent call last):\n"
					     "  File \"train.py\", line 88, in <module>\n"
					     "KeyError: 'pixel_values'\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "python_exception");
		DIAG_CK_STR_EQ(v.first_host, sh.host);
	}
}
END_TEST

START_TEST(a_node_back_before_another_was_lost_did_not_end_the_job)
{
	// Kubernetes' events: node a stopped answering and came back an hour
	// before node b stopped answering. The job ended with b; where a never
	// came back, a was the first lost.
	for (bool back : {true, false}) {
		bundle b;
		std::string t = "LAST SEEN   TYPE      REASON         OBJECT            MESSAGE\n"
				"1h18m       Normal    NodeNotReady   node/gpu-node-a   Node gpu-node-a status is now: NodeNotReady\n";
		if (back)
			t += "1h17m       Normal    NodeReady      node/gpu-node-a   Node gpu-node-a status is now: NodeReady\n";
		t += "18m         Normal    NodeNotReady   node/gpu-node-b   Node gpu-node-b status is now: NodeNotReady\n";
		b.file("events.txt", t);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "node_failure");
		DIAG_CK_STR_EQ(v.first_host, back ? "gpu-node-b" : "gpu-node-a");
	}
}
END_TEST

START_TEST(a_rank_missing_from_the_rounds_before_a_ctrl_c_hung)
{
	// Four ranks print a fetched sample in turn, no times. Rank 2 stops
	// while the others print theirs twice more, then Ctrl-C: the stop
	// ended a hang, rank 2's. The same lines each rank's in a section of
	// its own, or every rank still printing, say no one stopped: a cancel.
	enum shape { stopped, sections, all_printing, stopped_under_srun_labels };
	for (shape sh : {stopped, sections, all_printing, stopped_under_srun_labels}) {
		bundle b;
		std::string t = "training starts\n";
		if (sh == sections) {
			for (int r = 0; r < 4; r++)
				for (int i = 0; i < (r == 0 ? 3 : 6); i++)
					t += "rank " + std::to_string(r) + ", fetch sample " + std::to_string(100 * i + 7 * r) + "\n";
		} else if (sh == stopped_under_srun_labels) {
			// (srun -l's task labels, each task a rank, on its progress lines;
			// a label on a line no rule reads is passed over unread.)
			for (int i = 0; i < 6; i++)
				for (int r = 0; r < 4; r++)
					if (!(r == 2 && i >= 3))
						t += std::to_string(r) + ": iter " + std::to_string(10 * i) + " loss 2." + std::to_string(r) + "1\n";
		} else {
			for (int i = 0; i < 6; i++)
				for (int r = 0; r < 4; r++)
					if (!(sh == stopped && r == 2 && i >= 3))
						t += "rank " + std::to_string(r) + ", fetch sample " + std::to_string(100 * i + 7 * r) + "\n";
		}
		t += "^CTraceback (most recent call last):\n"
		     "  File \"train.py\", line 9, in <module>\n"
		     "    main()\n"
		     "KeyboardInterrupt\n";
		b.file("job.log", t);
		verdict v = b.run();
		const bool hung = sh == stopped || sh == stopped_under_srun_labels;
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), hung ? "collective_hang" : "user_cancel");
		ck_assert_int_eq(v.first_rank, hung ? 2 : -1);
	}
}
END_TEST

START_TEST(a_machines_record_from_the_day_before_is_another_jobs)
{
	// The cloud's operations list pasted below the job's output names two
	// preemptions: one the day before the job's first line, one as its
	// ranks lost their peer. The first was another job's.
	bundle b;
	b.file("job.log",
	       "[2024-03-07 21:40:12] [INFO] training starts on node-a and node-b\n"
	       "[2024-03-08 01:52:41] NCCL WARN Net : Connection closed by remote peer 10.1.0.22<55412>\n"
	       "$ gcloud compute operations list\n"
	       "NAME  TYPE  TARGET  HTTP_STATUS  STATUS  TIMESTAMP\n"
	       "systemevent-1709862752311  compute.instances.preempted  us-central1-c/instances/node-b    200          DONE    "
	       "2024-03-07T17:52:32.311-08:00\n"
	       "systemevent-1709758044907  compute.instances.preempted  us-central1-c/instances/node-a    200          DONE    "
	       "2024-03-06T12:47:24.907-08:00\n");
	verdict v = b.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "preemption");
	DIAG_CK_STR_EQ(v.first_host, "node-b");
}
END_TEST

START_TEST(a_crash_under_ctrl_c_is_its_teardown)
{
	// Ctrl-C, then a rank unwinding aborts: the user stopped the job; the
	// abort below is what the stop tore down. The same abort with no stop
	// above it is the job's end.
	for (bool stopped : {true, false}) {
		bundle b;
		std::string t = "epoch 3 step 200 loss 2.31\n";
		if (stopped)
			t += "^CTraceback (most recent call last):\n"
			     "  File \"train.py\", line 9, in <module>\n"
			     "    main()\n"
			     "KeyboardInterrupt\n";
		t += "terminate called without an active exception\n"
		     "Segmentation fault (core dumped)\n";
		b.file("job.log", t);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), stopped ? "user_cancel" : "segfault");
	}
}
END_TEST

START_TEST(the_rank_left_running_while_the_others_timed_out)
{
	// Four ranks on one node (pids named in their own lines), three of
	// them time out in a gloo recv and exit 1; torchrun has to SIGTERM the
	// fourth, still running: the others waited on it. Where the signalled
	// rank had itself exited on its own, nobody is singled out that way.
	for (bool left_running : {true, false}) {
		bundle b;
		std::string t;
		for (int r = 0; r < 4; r++)
			t += "Torch distributed initialized. Hostname cn-07, pid " + std::to_string(51822 + r) + ", rank " +
			     std::to_string(r) + " / size 4, local rank " + std::to_string(r) + " / local size 4.\n";
		for (int r = 1; r < 4; r++)
			t += "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting "
			     "1800000ms for recv operation to complete\n";
		t += "[2023-11-13 17:07:16,902] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process "
		     "51822 closing signal SIGTERM\n"
		     "[2023-11-13 17:07:17,530] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: "
		     "1) local_rank: 1 (pid: 51823) of binary: /usr/bin/python3\n"
		     "Failures:\n";
		for (int r = left_running ? 2 : 0; r < 4; r++) {
			if (r == 1)
				continue;
			t += "[" + std::to_string(r) + "]:\n  time      : 2023-11-13_17:07:16\n  host      : cn-07\n" +
			     "  rank      : " + std::to_string(r) + " (local_rank: " + std::to_string(r) + ")\n" +
			     "  exitcode  : 1 (pid: " + std::to_string(51822 + r) + ")\n";
		}
		t += "Root Cause (first observed failure):\n[0]:\n  time      : 2023-11-13_17:07:16\n  host      : cn-07\n"
		     "  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 51823)\n";
		b.file("job.log", t);
		verdict v = b.run();
		if (left_running) {
			DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "collective_hang");
			ck_assert_int_eq(v.first_rank, 0);
		} else {
			ck_assert_int_ne(v.first_rank, 0);
		}
	}
}
END_TEST

START_TEST(a_crash_hours_before_the_time_limit_ended_the_job)
{
	// Rank 0 aborts after an epoch and the other ranks wait on it until
	// the time limit, hours later: the crash explains the end. The same
	// abort a minute before the limit is the limit's.
	for (bool long_before : {true, false}) {
		bundle b;
		const std::string at = long_before ? "15:04:11" : "21:03:11";
		b.file("job.log", "0: 2026-08-09 14:58:02 epoch 3 step 1200 loss 2.31\n"
				  "1: 2026-08-09 14:58:02 epoch 3 step 1200 loss 2.29\n"
				  "0: 2026-08-09 " + at + " terminate called after throwing an instance of 'std::system_error'\n"
				  "0:   what():  Broken pipe\n"
				  "srun: error: vx-a03: task 0: Aborted (core dumped)\n"
				  "slurmstepd: error: *** JOB 339108 ON vx-a03 CANCELLED AT 2026-08-09T21:04:17 DUE TO TIME LIMIT ***\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), long_before ? "segfault" : "time_limit");
		if (long_before)
			ck_assert_int_eq(v.first_rank, 0);
	}
}
END_TEST

START_TEST(a_rank_that_went_its_own_way_long_before_a_cancel)
{
	// Four ranks log their epochs in turn; rank 0 alone then starts an
	// evaluation and nothing more is heard until a scancel. Forty minutes
	// later, the stop ended the others' wait on it; five minutes later, it
	// is a cancel of a job still busy.
	for (bool long_after : {true, false}) {
		bundle b;
		std::string t;
		for (int epoch = 0; epoch < 2; epoch++)
			for (int r = 0; r < 4; r++)
				t += std::to_string(r) + ": 2023-01-18 0" + std::to_string(epoch) + ":15:1" + std::to_string(r) +
				     ",904 INFO on_train_epoch_end epoch=" + std::to_string(epoch) + "\n";
		t += "0: 2023-01-18 01:15:16,904 INFO --- epoch 1: evaluating 50 songs of the test set ---\n";
		t += std::string("slurmstepd: error: *** JOB 312877 ON mss-g2 CANCELLED AT 2023-01-18T") +
		     (long_after ? "01:55:09" : "01:20:09") + " ***\n";
		b.file("job.log", t);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), long_after ? "collective_hang" : "user_cancel");
		if (long_after)
			ck_assert_int_eq(v.first_rank, 0);
	}
}
END_TEST

START_TEST(todays_xid_is_kept_after_last_weeks)
{
	// A kernel log of several days: three Xids of an earlier job, then the
	// same three at the job's failure. The first few of a writer's lines
	// must not be all that is kept: the job's own Xid decides. Without its
	// own, the earlier ones are set aside and the cuDNN failure stays.
	for (bool todays : {true, false}) {
		bundle b;
		b.file("job.log", "+ torchrun --standalone --nnodes=1 --nproc_per_node=8 train.py\n"
				  "[rank5]: RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n");
		std::string k;
		for (const char *day : {"2022-08-06T03:47:19", "2022-08-09T13:46:49"}) {
			if (!todays && std::string(day).find("08-09") != std::string::npos)
				break;
			k += std::string(day) + "+0200 v100-n17 kernel: NVRM: Xid (PCI:0000:86:00): 48, pid=28115, name=python, "
							  "An uncorrectable double bit error (DBE) has been detected on GPU\n" +
			     day + "+0200 v100-n17 kernel: NVRM: Xid (PCI:0000:86:00): 63, pid=28115, name=python, Dynamic "
				   "Page Retirement: New page retired, reboot to activate\n" +
			     day + "+0200 v100-n17 kernel: NVRM: Xid (PCI:0000:86:00): 45, pid=28115, name=python, Ch 00000018\n";
		}
		b.file("kern.v100-n17.log", k);
		b.file("sacct.txt", "JobID|JobName|Partition|State|ExitCode|Start|End|Elapsed|NodeList\n"
				    "1180341|dlv3p|v100|FAILED|1:0|2022-08-09T13:31:02|2022-08-09T13:46:54|00:15:52|v100-n17\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), todays ? "gpu_hardware" : "cuda_error");
	}
}
END_TEST

START_TEST(a_one_node_torchrun_local_rank_is_the_rank)
{
	// torchrun --standalone (or --nnodes=1) started every rank on one
	// node: --tee's "[default2]:" local rank 2 is global rank 2. An elastic
	// range of nodes says no such thing.
	for (const char *nnodes : {"--standalone --nnodes=1", "--nnodes=1:4"}) {
		bundle b;
		b.file("job.log", std::string("$ torchrun ") + nnodes +
					  " --nproc_per_node=4 --tee 3 train.py\n"
					  "[default0]:ep 3 train, step 25, ctc 2.133, ce 1.579, fer 0.282\n"
					  "[default2]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 264.00 MiB. "
					  "GPU 2 has a total capacity of 22.03 GiB of which 238.88 MiB is free.\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "cuda_oom");
		ck_assert_int_eq(v.first_rank, std::string(nnodes).find(':') == std::string::npos ? 2 : -1);
	}
}
END_TEST

START_TEST(the_one_worker_a_launcher_saw_crash_is_an_unnamed_crashs)
{
	// A C++ terminate with no rank on its lines; torchrun on one node saw
	// one worker end by SIGABRT and stopped the others: that worker's. With
	// every worker aborting on its own line, no first.
	for (bool every_rank : {false, true}) {
		bundle b;
		std::string log = "$ torchrun --standalone --nproc_per_node=4 train.py\n";
		if (every_rank)
			for (int r = 0; r < 4; r++)
				log += "[rank" + std::to_string(r) + "]:terminate called after throwing an instance of 'std::exception'\n";
		else
			log += "terminate called after throwing an instance of 'google::protobuf::FatalException'\n"
			       "  what():  CHECK failed: (index) < (current_size_):\n";
		for (int pid : {30112, 30113, 30114})
			log += "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process " + std::to_string(pid) +
			       " closing signal SIGTERM\n";
		log += "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 3 (pid: 30115) "
		       "of binary: /opt/conda/bin/python\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "segfault");
		ck_assert_int_eq(v.first_rank, every_rank ? -1 : 3);
	}
}
END_TEST

// Grid Engine's accounting record pasted below the job's log (qacct prints
// each key in 13 columns): how the job ended, as sacct's State would say it.
std::string qacct_record(const std::string &exit_status, const std::string &failed, const std::string &wallclock,
			 const std::string &maxvmem, const std::string &category, const std::string &extra = "")
{
	std::string r = "$ qacct -j 4242\n"
			"==============================================================\n"
			"qname        gpu.q\n"
			"hostname     gpu-n07.cluster.local\n"
			"jobnumber    4242\n"
			"start_time   Mon Oct 16 08:00:02 2023\n"
			"end_time     Mon Oct 16 14:00:04 2023\n"
			"slots        16\n"
			"failed       " + failed + "\n"
			"exit_status  " + exit_status + "\n"
			"ru_wallclock " + wallclock + "\n"
			"maxvmem      " + maxvmem + "\n";
	if (!category.empty())
		r += "category     " + category + "\n";
	return r + extra;
}

const char *sge_training = "2023-10-16 13:51:19,821 - INFO - [rank 0] update  36000 | loss 4.387\n"
			   "2023-10-16 13:56:16,478 - INFO - [rank 0] update  36500 | loss 4.336\n";

START_TEST(a_qacct_record_says_how_the_job_ended)
{
	struct {
		const char *exit_status, *failed, *wallclock, *maxvmem, *category, *extra, *cls;
	} cases[] = {
		// SIGUSR2 (140): -notify's warning a minute before h_rt's SIGKILL.
		{"140", "100 : assumedly after job", "86342", "31.884GB", "-l gpu=4,h_rt=86400,h_vmem=30G -pe mpi 8 -notify", "",
		 "time_limit"},
		// SIGUSR1 (138) at the queue's s_rt, which qconf shows.
		{"138", "100 : assumedly after job", "21602s", "118.671GB", "", "\n$ qconf -sq gpu.q\ns_rt                  06:00:00\nh_rt                  INFINITY\n",
		 "time_limit"},
		// The whole job's virtual memory at h_vmem per slot times slots.
		{"140", "100 : assumedly after job", "3335.647", "96.000G", "-q gpu.q -l gpu=4,h_rt=86400,h_vmem=6G -pe smp 16", "",
		 "host_oom"},
		// SIGUSR1 with -notify, far from any limit: the warning before a suspension.
		{"138", "0", "30378s", "188.233GB", "-q long.q -l gpu=4,h_rt=259200,h_vmem=16G -pe smp 16 -notify", "",
		 "preemption"},
		{"137", "100 : assumedly after job", "7200", "10G", "-l h_rt=86400", "deleted_by   alee@login1\n", "user_cancel"},
	};
	for (const auto &c : cases) {
		bundle b;
		b.file("job.log", std::string(sge_training) +
					  qacct_record(c.exit_status, c.failed, c.wallclock, c.maxvmem, c.category, c.extra));
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), c.cls);
		DIAG_CK_STR_EQ(v.job_id, "4242");
	}
	// A record of a job that ended well decides nothing against the log.
	bundle b;
	b.file("job.log", std::string(sge_training) +
				  "[rank0]: Traceback (most recent call last):\n"
				  "[rank0]:   File \"train.py\", line 3, in <module>\n"
				  "[rank0]: KeyError: 'labels'\n" +
				  qacct_record("1", "0", "3600", "10G", "-l h_rt=86400"));
	verdict v = b.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "python_exception");
}
END_TEST

// glog's stamps print no year ("E1203 09:02:00"); a node's journal beside
// the log prints it on every line, though none of its lines matches a rule:
// the job's times take the journal's year, not the year of the reading.
START_TEST(year_less_stamps_take_the_year_of_a_dated_file)
{
	bundle b;
	b.file("job.log", "[rank1]:[E1203 09:02:00.398031688 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
			  "Process group watchdog thread terminated with exception: NCCL error: remote process exited or "
			  "there was a network error, NCCL version 2.21.5\n");
	b.file("journal.gpu-w3.log", "2021-12-03T09:01:58+0000 gpu-w3 systemd-logind[744]: Power key pressed short.\n"
				     "2021-12-03T09:01:58+0000 gpu-w3 systemd-logind[744]: Powering off...\n");
	verdict v = b.run();
	ck_assert(!v.evidence.empty());
	ck_assert_msg(v.evidence[0].time.rfind("2021-12-03T09:02:00", 0) == 0, "time %s", v.evidence[0].time.c_str());
}
END_TEST

// A framework refusing its configuration at the first epoch's end (a
// metric the scheduler watches is missing) raised after the ranks had
// stepped: the training's own error. The same refusal before any step is
// the start-up's.
START_TEST(a_refused_configuration_after_training_stepped_is_the_trainings)
{
	for (bool stepped : {true, false}) {
		bundle b;
		std::string log = two_nodes_of_four();
		if (stepped)
			log += "Epoch 0:  10%|#         | 53/530 [00:32<04:54,  1.62it/s, v_num=7f3q, train_loss_step=2.766]\n"
			       "Epoch 0:  54%|#####     | 287/530 [02:57<02:30,  1.62it/s, v_num=7f3q, train_loss_step=2.552]\n"
			       "Epoch 0: 100%|##########| 530/530 [05:27<00:00,  1.62it/s, v_num=7f3q, train_loss_step=2.471]\n";
		log += "Traceback (most recent call last):\n"
		       "  File \"run.py\", line 88, in <module>\n"
		       "    trainer.fit(model)\n"
		       "lightning_fabric.utilities.exceptions.MisconfigurationException: ReduceLROnPlateau conditioned on "
		       "metric val_loss which is not available.\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), stepped ? "python_exception" : "launch_failure");
	}
}
END_TEST

// sacct listing the run that timed out and its resubmission that failed:
// the log's stamps fall in the resubmission's run, so that is the job
// judged (not the first listed); with no stamp in either run, the first
// listed stays.
START_TEST(a_sacct_of_two_jobs_judges_the_one_the_log_ran_in)
{
	for (bool stamped : {true, false}) {
		bundle b;
		b.file("sacct.txt", "JobID|JobName|State|ExitCode|Start|End|NodeList\n"
				    "8811730|sft|TIMEOUT|0:0|2025-06-10T18:00:02|2025-06-11T06:00:27|lx-gpu[041-042]\n"
				    "8811730.0|torchrun|CANCELLED|0:15|2025-06-10T18:00:09|2025-06-11T06:00:29|lx-gpu[041-042]\n"
				    "8812044|sft|FAILED|1:0|2025-06-11T08:38:51|2025-06-11T08:41:24|lx-gpu[041-042]\n"
				    "8812044.0|torchrun|FAILED|1:0|2025-06-11T08:39:04|2025-06-11T08:41:23|lx-gpu[041-042]\n");
		std::string when = stamped ? "[E0611 08:40:12.113 ProcessGroupNCCL.cpp:1895] " : "";
		b.file("job.log", "[rank0]:" + when + "[PG ID 0 PG GUID 0(default_pg) Rank 0] Process group watchdog thread "
				  "terminated with exception: NCCL error: remote process exited or there was a network "
				  "error, NCCL version 2.21.5\n");
		verdict v = b.run();
		DIAG_CK_STR_EQ(v.job_id, stamped ? "8812044" : "8811730");
	}
}
END_TEST

// A node's kernel log named for a host with no digit in its name
// ("dmesg.hw-b.txt"), a host the MPI launch was given by name: that node's
// link went down before the ranks lost their connections, and the job had
// been stepping (its last step stamped) before the link went: the node is
// the first host.
START_TEST(a_link_down_on_a_node_the_launch_named_is_that_nodes)
{
	bundle b;
	b.file("job.log", "+ horovodrun --gloo -np 4 -H hw-a:2,hw-b:2 python train.py\n"
			  "[0]<stdout>:2025-03-11 13:58:23 step   3800 loss 0.12484\n"
			  "[0]<stdout>:2025-03-11 14:01:23 step   4000 loss 0.12679\n"
			  "[2]<stderr>:[2025-03-11 14:19:35.204417: E horovod/common/operations.cc:697] Horovod background loop "
			  "uncaught exception: [third_party/gloo/gloo/transport/tcp/pair.cc:427] Write error [172.20.8.23]:39950: "
			  "Connection timed out\n"
			  "[0]<stderr>:[2025-03-11 14:21:07.131255: E horovod/common/operations.cc:697] Horovod background loop "
			  "uncaught exception: [third_party/gloo/gloo/transport/tcp/pair.cc:566] Read error [172.20.8.22]:52214: "
			  "Connection reset by peer\n");
	b.file("dmesg.hw-b.txt", "[Tue Mar 11 14:04:02 2025] ice 0000:b1:00.0 ens2f0: NIC Link is Down\n");
	verdict v = b.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "network");
	DIAG_CK_STR_EQ(v.first_host, "hw-b");
}
END_TEST

// A dump loop whose headers are ruled with three '=' and name each
// process's rank: the one rank whose main thread is elsewhere hung.
START_TEST(a_dump_header_ruled_with_three_equals_names_the_rank)
{
	bundle b;
	b.file("job.log", "slurmstepd: error: *** JOB 3310982 ON hgx-03 CANCELLED AT 2026-04-09T14:06:31 ***\n");
	std::string dump;
	for (int r = 0; r < 4; r++) {
		dump += "=== hgx-03 pid=" + std::to_string(7000 + r) + " RANK=" + std::to_string(r) + " LOCAL_RANK=" +
			std::to_string(r) + "\n"
			"Process " + std::to_string(7000 + r) + ": ray::WorkerDict.update_actor\n"
			"Python v3.10.12 (/usr/bin/python3.10)\n\n"
			"Thread " + std::to_string(7000 + r) + " (active): \"MainThread\"\n" +
			(r == 2 ? "    _unshard (torch/distributed/fsdp/_runtime_utils.py:299)\n"
				: "    _optimizer_step (verl/workers/actor/dp_actor.py:241)\n") +
			"    update_policy (verl/workers/actor/dp_actor.py:563)\n\n";
	}
	b.file("py-spy.txt", dump);
	verdict v = b.run();
	DIAG_CK_VERDICT(v, "collective_hang", 2);
}
END_TEST

// Every node's ranks report InfiniBand completion errors in the same
// second (the fabric's, no one link's); one node's adapter alone also
// reported its port failing: that node is the end that broke. Without
// that report no node is singled out.
START_TEST(the_one_node_whose_adapter_reported_its_port_failing_is_the_fabrics_first)
{
	for (bool port_error : {true, false}) {
		bundle b;
		std::string log;
		const char *hosts[] = {"node01", "node02", "node03"};
		for (int r = 0; r < 3; r++)
			log += init_complete(r, hosts[r], 3000 + r, "18000", 3);
		if (port_error)
			log += "node02:3001:3090 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error\n";
		for (int r = 0; r < 3; r++)
			log += std::string(hosts[r]) + ":" + std::to_string(3000 + r) + ":" + std::to_string(3090 + r) +
			       " [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.50.0." +
			       std::to_string(9 + r) + "<4" + std::to_string(r) + "461> with status=12 opcode=0 len=0 vendor err 129 (Send)\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "network");
		DIAG_CK_STR_EQ(v.first_host, port_error ? "node02" : "");
	}
}
END_TEST

// A job that had stepped for hours collapses: every rank's watchdog
// times out in an all-reduce that began ten minutes before, and torchrun's
// restart then cannot reach its store. The restart's failure is the
// collapse's aftermath. Where node01's kernel saw its link go down as
// that collective began, the link stalled it (network, node01), even where
// node02's link had flapped twenty minutes before and the job stepped on;
// where no kernel says so, the ranks hung.
START_TEST(a_restart_failing_after_a_collapse_is_no_cause_and_a_link_down_then_is)
{
	for (int shape : {0, 1, 2}) {
		const bool link_down = shape != 0, earlier_flap = shape == 2;
		bundle b;
		std::string log = two_nodes_of_four();
		log += "[rank0]:2026-10-26 03:20:00,100 step 100 loss 2.10\n"
		       "[rank0]:2026-10-26 03:25:00,100 step 200 loss 2.01\n"
		       "[rank0]:2026-10-26 03:30:00,100 step 300 loss 1.98\n";
		for (int r = 0; r < 8; r++)
			log += watchdog(r, "03:41:40.050", 94003, 94003, 94002);
		log += "torch.distributed.DistStoreError: Socket Timeout\n";
		b.file("job.log", log);
		if (link_down)
			b.file("kern.node01.log", "2026-10-26T03:31:44+0000 node01 kernel: ixgbe 0000:18:00.0 eno1: NIC Link is Down\n");
		if (earlier_flap)
			b.file("kern.node02.log", "2026-10-26T03:22:10+0000 node02 kernel: ixgbe 0000:18:00.0 eno1: NIC Link is Down\n"
						  "2026-10-26T03:22:14+0000 node02 kernel: ixgbe 0000:18:00.0 eno1: NIC Link is Up 10 "
						  "Gbps, Flow Control: RX/TX\n");
		verdict v = b.run();
		if (link_down) {
			DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "network");
			DIAG_CK_STR_EQ(v.first_host, "node01");
		} else {
			DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "collective_hang");
		}
	}
}
END_TEST

// The driver said a GPU of node01 needs a reset hours before the job
// (Xid 154) and nothing reset it: the rank there that could not use its
// GPU as the job started met the GPU's standing fault. Where node01 booted
// since, the GPU was reset and the failure is the start-up's.
START_TEST(a_gpu_left_needing_a_reset_fails_the_next_job_on_it)
{
	for (bool booted : {false, true}) {
		bundle b;
		b.file("sacct.txt", sacct_failed);
		b.file("job.log", two_nodes_of_four() +
					  "[rank1]:RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n");
		std::string kern = "2026-10-25T22:27:44+0000 node01 kernel: NVRM: Xid (PCI:0000:2a:00): 154, GPU recovery "
				   "action changed from 0x0 (None) to 0x1 (GPU Reset Required)\n";
		if (booted)
			kern += "2026-10-26T01:10:00+0000 node01 kernel: Linux version 5.15.0-105-generic (buildd@lcy02) "
				"(gcc 11.4.0)\n";
		b.file("kern.node01.log", kern);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), booted ? "launch_failure" : "gpu_hardware");
		DIAG_CK_STR_EQ(v.first_host, "node01");
	}
}
END_TEST

START_TEST(a_time_limit_that_finds_the_agent_still_in_its_rendezvous_ended_a_start_up_hang)
{
	// torchrun's agents never met (each waited on its own localhost); the
	// time limit's SIGTERM found them sleeping in next_rendezvous. The same
	// signal arriving in the agent's monitoring loop, workers started, is
	// just the time limit.
	for (bool starting : {true, false}) {
		bundle b;
		std::string log = "slurmstepd: error: *** JOB 88231 ON pt-h01 CANCELLED AT 2026-03-02T09:14:37 DUE TO TIME "
				  "LIMIT ***\n"
				  "1: Traceback (most recent call last):\n"
				  "1:   File \"/usr/local/lib/python3.12/dist-packages/torch/distributed/elastic/agent/server/api.py\", "
				  "line 717, in run\n"
				  "1:     result = self._invoke_run(role)\n";
		if (starting)
			log += "1:   File \"/usr/local/lib/python3.12/dist-packages/torch/distributed/elastic/rendezvous/"
			       "dynamic_rendezvous.py\", line 1162, in next_rendezvous\n"
			       "1:     self._op_executor.run(join_op, deadline, self._get_deadline)\n";
		else
			log += "1:   File \"/usr/local/lib/python3.12/dist-packages/torch/distributed/elastic/agent/server/api.py\", "
			       "line 878, in _invoke_run\n"
			       "1:     time.sleep(monitor_interval)\n";
		log += "1:   File \"/usr/local/lib/python3.12/dist-packages/torch/distributed/elastic/multiprocessing/api.py\", "
		       "line 84, in _terminate_process_handler\n"
		       "1:     raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)\n"
		       "1: torch.distributed.elastic.multiprocessing.api.SignalException: Process 47390 got signal: 15\n"
		       "srun: error: pt-h02: task 1: Exited with exit code 1\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), starting ? "launch_failure" : "time_limit");
	}
}
END_TEST

START_TEST(two_processes_joining_as_one_rank_then_the_time_limit_is_a_launch_failure)
{
	// One task per node where Lightning expected two: each node's process
	// took the same global rank, and the group never formed. Four distinct
	// ranks joining and then nothing until the limit is no such thing.
	for (bool twice : {true, false}) {
		bundle b;
		std::string log = "GPU available: True, used: True\n";
		if (twice)
			log += "initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/4\n"
			       "initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/4\n"
			       "initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/4\n"
			       "initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/4\n";
		else
			log += "initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/4\n"
			       "initializing ddp: GLOBAL_RANK: 3, MEMBER: 4/4\n"
			       "initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/4\n"
			       "initializing ddp: GLOBAL_RANK: 2, MEMBER: 3/4\n";
		log += "slurmstepd: error: *** JOB 7730418 ON gpu-node-017 CANCELLED AT 2021-03-02T09:14:37 DUE TO TIME LIMIT "
		       "***\n"
		       "srun: error: gpu-node-022: task 1: Terminated\n"
		       "srun: error: gpu-node-017: task 0: Terminated\n";
		b.file("job.log", log);
		verdict v = b.run();
		DIAG_CK_STR_EQ(std::string(class_name(v.cls)), twice ? "launch_failure" : "time_limit");
	}
}
END_TEST

static Suite *suite()
{
	Suite *s = suite_create("diagnosis");
	TCase *t = tcase_create("classes");
	tcase_add_test(t, cuda_oom_beats_the_flood_of_timeouts);
	tcase_add_test(t, a_hang_on_one_machine_says_no_empty_reason);
	tcase_add_test(t, caught_traceback_is_a_decoy);
	tcase_add_test(t, chained_exceptions_are_one_failure);
	tcase_add_test(t, a_chain_from_a_fault_line_is_one_failure_whatever_bar_is_glued_inside);
	tcase_add_test(t, a_bar_glued_to_a_watchdog_line_is_no_progress_at_its_time);
	tcase_add_test(t, a_tensorflow_wrapper_of_a_victims_error_is_a_victim);
	tcase_add_test(t, traceback_header_names_its_rank);
	tcase_add_test(t, one_nodes_interleaved_tracebacks_name_the_node);
	tcase_add_test(t, handled_traceback_ending_in_a_fault_line_is_a_decoy);
	tcase_add_test(t, hang_suspect_is_the_rank_that_enqueued_least);
	tcase_add_test(t, identical_timeouts_single_out_nobody);
	tcase_add_test(t, missing_rank_in_a_known_world);
	tcase_add_test(t, time_limit_names_no_rank);
	tcase_add_test(t, xid_finds_its_rank_by_bus_id);
	tcase_add_test(t, a_kernel_log_named_for_a_host_without_digits_is_that_hosts);
	tcase_add_test(t, xid_154_recovery_action_is_honoured);
	tcase_add_test(t, stale_kernel_messages_are_ignored);
	tcase_add_test(t, oom_killer_pid_maps_to_rank);
	tcase_add_test(t, skewed_clocks_are_corrected);
	tcase_add_test(t, no_anchor_means_no_pretended_order);
	tcase_add_test(t, aligned_clocks_keep_their_order);
	tcase_add_test(t, container_runtime_failing_one_task_is_a_launch_failure);
	tcase_add_test(t, same_unlabelled_error_on_every_process_singles_out_nobody);
	tcase_add_test(t, deepspeed_exit_line_names_the_last_spawned_worker);
	tcase_add_test(t, one_nodes_retry_does_not_handle_another_nodes_traceback);
	tcase_add_test(t, a_generic_cause_yields_to_the_link_that_names_the_failure);
	tcase_add_test(t, two_ranks_of_one_node_failing_together_name_the_node);
	tcase_add_test(t, a_port_error_on_every_rank_of_a_node_is_the_nodes);
	tcase_add_test(t, only_victims_and_one_nodes_link_failing_name_that_node);
	tcase_add_test(t, a_link_lost_on_both_ends_is_the_node_whose_kernel_saw_it_go_down);
	tcase_add_test(t, the_end_of_a_one_node_job_names_its_node);
	tcase_add_test(t, a_nodes_full_name_is_the_node);
	tcase_add_test(t, the_one_rank_that_finished_left_the_others_waiting);
	tcase_add_test(t, a_rank_that_says_it_finished_in_its_text_left_the_others);
	tcase_add_test(t, untimed_stall_reports_repeated_for_minutes_before_a_cancel_hung);
	tcase_add_test(t, the_last_stall_reported_before_a_time_limit_names_the_hang);
	tcase_add_test(t, a_cancel_long_after_a_steady_pace_ended_a_hang);
	tcase_add_test(t, a_coordinator_naming_every_other_task_at_once_is_the_one_apart);
	tcase_add_test(t, a_rank_behind_in_turns_at_a_stop_hung_unless_the_others_were_still_stepping);
	tcase_add_test(t, an_nfs_server_lost_until_the_end_is_the_cause_one_back_is_not);
	tcase_add_test(t, a_failure_the_launcher_restarted_from_was_survived);
	tcase_add_test(t, the_one_stack_that_differs_in_a_dump_of_live_processes_hung);
	tcase_add_test(t, the_one_rank_inside_a_collective_at_ctrl_c_hung);
	tcase_add_test(t, a_link_fault_several_ranks_report_names_no_rank);
	tcase_add_test(t, the_first_host_comes_with_its_other_names);
	tcase_add_test(t, a_host_written_in_full_keeps_its_full_name);
	tcase_add_test(t, a_node_first_comes_with_its_pods_hostname);
	tcase_add_test(t, a_described_pods_block_is_the_pods);
	tcase_add_test(t, a_pasted_commands_output_is_its_pods_or_nodes);
	tcase_add_test(t, a_node_back_before_another_was_lost_did_not_end_the_job);
	tcase_add_test(t, a_rank_missing_from_the_rounds_before_a_ctrl_c_hung);
	tcase_add_test(t, a_machines_record_from_the_day_before_is_another_jobs);
	tcase_add_test(t, a_crash_under_ctrl_c_is_its_teardown);
	tcase_add_test(t, the_rank_left_running_while_the_others_timed_out);
	tcase_add_test(t, a_crash_hours_before_the_time_limit_ended_the_job);
	tcase_add_test(t, a_rank_that_went_its_own_way_long_before_a_cancel);
	tcase_add_test(t, todays_xid_is_kept_after_last_weeks);
	tcase_add_test(t, a_one_node_torchrun_local_rank_is_the_rank);
	tcase_add_test(t, the_one_worker_a_launcher_saw_crash_is_an_unnamed_crashs);
	tcase_add_test(t, a_qacct_record_says_how_the_job_ended);
	tcase_add_test(t, year_less_stamps_take_the_year_of_a_dated_file);
	tcase_add_test(t, the_rank_the_stall_inspector_marks_stalled_is_the_hang);
	tcase_add_test(t, a_dump_loop_names_each_rank_and_the_launcher_is_not_one);
	tcase_add_test(t, a_dump_file_named_for_its_host_places_the_local_rank_that_differs);
	tcase_add_test(t, a_line_of_no_known_writer_the_ranks_stepped_on_long_after_was_survived);
	tcase_add_test(t, the_gpu_an_oom_names_is_the_local_rank_deepspeed_laid_out_on_one_machine);
	tcase_add_test(t, an_interrupt_lsf_reports_as_its_run_limit_wrapped_by_bhist_is_the_limits);
	tcase_add_test(t, a_native_check_failing_ends_the_job_after_a_stall_trained_on_from);
	tcase_add_test(t, the_worker_gone_before_the_stop_is_the_one_the_others_waited_on);
	tcase_add_test(t, timeouts_before_the_time_limit_were_a_hang);
	tcase_add_test(t, a_node_kernel_seeing_four_pids_crash_at_once_is_no_one_rank);
	tcase_add_test(t, the_one_rank_a_step_ahead_in_its_nan_is_where_it_appeared);
	tcase_add_test(t, the_one_rank_that_skipped_a_nan_step_before_a_silence_hung);
	tcase_add_test(t, the_one_rank_a_round_ahead_before_a_silence_hung);
	tcase_add_test(t, a_wrapped_tensorflow_error_is_what_it_wraps);
	tcase_add_test(t, an_untimed_error_that_may_follow_ctrl_c_does_not_precede_it);
	tcase_add_test(t, processes_seen_on_the_gpus_long_after_the_last_line_hung);
	tcase_add_test(t, a_rank_that_finished_while_the_others_failed_as_victims_left_them);
	tcase_add_test(t, a_bar_drawn_right_after_a_stamp_dates_the_last_progress);
	tcase_add_test(t, a_clouds_preemption_record_of_a_node_under_its_instance_name);
	tcase_add_test(t, a_peer_address_of_no_known_host_and_one_node_whose_link_failed);
	tcase_add_test(t, a_failed_assertion_that_values_were_finite_is_non_finite_values);
	tcase_add_test(t, a_crash_two_days_before_the_time_limit_is_in_the_job);
	tcase_add_test(t, a_refused_configuration_after_training_stepped_is_the_trainings);
	tcase_add_test(t, a_sacct_of_two_jobs_judges_the_one_the_log_ran_in);
	tcase_add_test(t, a_link_down_on_a_node_the_launch_named_is_that_nodes);
	tcase_add_test(t, a_dump_header_ruled_with_three_equals_names_the_rank);
	tcase_add_test(t, the_one_node_whose_adapter_reported_its_port_failing_is_the_fabrics_first);
	tcase_add_test(t, a_restart_failing_after_a_collapse_is_no_cause_and_a_link_down_then_is);
	tcase_add_test(t, a_gpu_left_needing_a_reset_fails_the_next_job_on_it);
	tcase_add_test(t, a_time_limit_that_finds_the_agent_still_in_its_rendezvous_ended_a_start_up_hang);
	tcase_add_test(t, two_processes_joining_as_one_rank_then_the_time_limit_is_a_launch_failure);
	tcase_add_test(t, a_nodes_xid_names_its_rank_by_bus_id_through_the_pod_there);
	tcase_add_test(t, the_pod_at_an_end_of_every_broken_connection_is_the_first);
	tcase_add_test(t, gpus_read_busy_long_after_the_last_step_then_a_cancel_ended_a_hang);
	tcase_add_test(t, an_eviction_event_names_its_pod_and_the_pods_description_its_node);
	tcase_add_test(t, a_node_lost_minutes_after_the_oom_killer_ran_out_of_memory);
	tcase_add_test(t, victims_on_the_line_of_the_users_ctrl_c_are_its_teardown);
	tcase_add_test(t, a_steps_time_limit_the_job_outlived_is_not_its_end);
	suite_add_tcase(s, t);
	return s;
}

int main() { return diag_ck_run(suite()); }
