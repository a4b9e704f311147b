// Readers: line reading with caps, cleaning, prefixes, sniffing, sacct,
// host names from paths.
#include "ck_cxx.hh"
#include "model/evidence.hh"
#include "reading/gzip_text.hh"
#include "reading/line_prefix.hh"
#include "reading/line_reader.hh"
#include "aligning/rank_map.hh"
#include "reading/qacct_record.hh"
#include "reading/sacct_reader.hh"
#include "reading/slurm_nodelist.hh"
#include "reading/source_sniff.hh"
#include "reading/text_clean.hh"
#include "reading/text_log_reader.hh"
#include "reading/timed_filter.hh"
#include "pipeline.hh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <system_error>
#include <unistd.h>
#include <vector>
#include <zlib.h>

using namespace diag;

namespace {

int temp_file(const std::string &content)
{
	char path[] = "/tmp/denpex-check-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
	lseek(fd, 0, SEEK_SET);
	return fd;
}

std::vector<std::string> all_lines(line_reader &lr)
{
	std::vector<std::string> out;
	std::string_view l;
	while (lr.next(l))
		out.emplace_back(l);
	return out;
}

// text as one gzip member (as gzip writes it).
std::string gzip_of(const std::string &text)
{
	z_stream z{};
	ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	std::string out(deflateBound(&z, text.size()) + 64, '\0');
	z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
	z.avail_in = static_cast<uInt>(text.size());
	z.next_out = reinterpret_cast<Bytef *>(out.data());
	z.avail_out = static_cast<uInt>(out.size());
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	out.resize(z.total_out);
	deflateEnd(&z);
	return out;
}

// All the text of a started stream, and what finish() says.
std::string read_all(gunzip_stream &gz, std::string &why)
{
	std::string text;
	char buf[4096];
	ssize_t n;
	while ((n = read(gz.fd(), buf, sizeof(buf))) > 0)
		text.append(buf, static_cast<size_t>(n));
	why = gz.finish();
	return text;
}

// A log of n numbered lines that compresses less than a progress log would.
std::string numbered_log(int n)
{
	std::string t;
	for (int i = 0; i < n; i++)
		t += "step " + std::to_string(i) + " loss " + std::to_string((static_cast<long long>(i) * 7919) % 10007) + "\n";
	return t;
}

} // namespace

START_TEST(reader_lines_and_last_line)
{
	int fd = temp_file("one\ntwo\r\nthree");
	line_reader lr(fd);
	auto lines = all_lines(lr);
	ck_assert_uint_eq(lines.size(), 3);
	DIAG_CK_STR_EQ(lines[0], "one");
	DIAG_CK_STR_EQ(lines[1], "two\r");
	DIAG_CK_STR_EQ(lines[2], "three");
	ck_assert_uint_eq(lr.line_no(), 3);
	close(fd);
}
END_TEST

START_TEST(reader_long_line_in_pieces)
{
	std::string big(10000, 'x');
	int fd = temp_file(big + "\nafter\n");
	line_reader lr(fd, 0, 4096);
	std::string_view l;
	size_t pieces = 0, total = 0;
	while (lr.next(l) && l != "after") {
		ck_assert_uint_le(l.size(), 4096);
		ck_assert_uint_eq(lr.line_no(), 1);
		total += l.size();
		pieces++;
	}
	ck_assert_uint_eq(total, 10000);
	ck_assert_uint_eq(pieces, 3);
	DIAG_CK_STR_EQ(std::string(l), "after");
	ck_assert_uint_eq(lr.line_no(), 2);
	close(fd);
}
END_TEST

START_TEST(reader_head_and_tail_cap)
{
	std::string s;
	for (int i = 0; i < 10000; i++)
		s += "line " + std::to_string(i) + "\n";
	int fd = temp_file(s);
	line_reader lr(fd, 2000);
	auto lines = all_lines(lr);
	DIAG_CK_STR_EQ(lines.front(), "line 0");
	DIAG_CK_STR_EQ(lines.back(), "line 9999");
	ck_assert_uint_gt(lr.bytes_skipped(), s.size() - 2100);
	ck_assert_uint_le(lr.bytes_read(), 2100);
	// No torn line from the jump into the tail.
	for (const auto &l : lines)
		ck_assert_msg(l.rfind("line ", 0) == 0, "torn line: %s", l.c_str());
	close(fd);
}
END_TEST

START_TEST(reader_binary_detection)
{
	std::string bin(4096, '\0');
	int fd = temp_file(bin);
	line_reader lr(fd);
	ck_assert(lr.looks_binary());
	close(fd);
	int fd2 = temp_file("plain text\nwith one \0 NUL\n");
	line_reader lr2(fd2);
	ck_assert(!lr2.looks_binary());
	close(fd2);
}
END_TEST

START_TEST(clean_ansi_and_progress_bars)
{
	line_cleaner c;
	std::vector<std::string> segs;
	c.for_each_segment("\x1b[31mred\x1b[0m text\r 26/67 [24:51<30:30]\r[E ProcessGroupNCCL.cpp:737] boom\r",
			   [&](std::string_view s) { segs.emplace_back(s); });
	ck_assert_uint_eq(segs.size(), 3);
	DIAG_CK_STR_EQ(segs[0], "red text");
	DIAG_CK_STR_EQ(segs[2], "[E ProcessGroupNCCL.cpp:737] boom");
	segs.clear();
	c.for_each_segment(std::string_view("a\0b\tc", 5), [&](std::string_view s) { segs.emplace_back(s); });
	DIAG_CK_STR_EQ(segs[0], "ab c");
	// A hole cuts the line: its two sides are two segments.
	segs.clear();
	std::string holed = "3: TypeError: forward() got an unexpected keyword argument 'atte" + std::string(300, '\0') +
			    "srun: error: node060: task 15: Exited with exit code 1";
	c.for_each_segment(holed, [&](std::string_view s) { segs.emplace_back(s); });
	ck_assert_uint_eq(segs.size(), 2);
	DIAG_CK_STR_EQ(segs[1], "srun: error: node060: task 15: Exited with exit code 1");
}
END_TEST

// A syslog line inside a job's output names its writer's host after the
// stamp (BSD's or RFC 3339's), before the program's tag; a stamp before a
// word that is no host, or a host before no tag, names none.
START_TEST(prefix_syslog_host)
{
	auto id = parse_prefix("Dec 17 16:03:58Z gpu-worker-7 start-worker 2024/12/17 16:03:58 GCP says termination is imminent");
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-worker-7");
	DIAG_CK_STR_EQ(std::string(id.body), "start-worker 2024/12/17 16:03:58 GCP says termination is imminent");
	id = parse_prefix("2026-04-20T19:03:12.602+08:00 sft-n02 sft-vl[4242]: RuntimeError: CUDA error: uncorrectable ECC error encountered");
	DIAG_CK_STR_EQ(std::string(id.host), "sft-n02");
	DIAG_CK_STR_EQ(std::string(id.body), "sft-vl[4242]: RuntimeError: CUDA error: uncorrectable ECC error encountered");
	id = parse_prefix("Mar  3 10:00:01 node03 kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.");
	DIAG_CK_STR_EQ(std::string(id.host), "node03");
	for (const char *none : {"2026-04-20 19:03:12,602 INFO trainer: step 5", "Dec 17 16:03:58 step12 loss: 1.2",
				 "2026-04-20T19:03:12Z node03 took 5 s"}) {
		id = parse_prefix(none);
		ck_assert_msg(id.host.empty(), "%s", none);
	}
}
END_TEST

// vLLM's logger prefix ("ERROR 08-02 08:50:03 worker_base.py:382] ", newer
// "[file.py:N]") under a Ray worker's: the message, a traceback line under
// logger.exception, is the body; other level-first lines keep theirs.
START_TEST(prefix_vllm_logger_level_time_source)
{
	auto id = parse_prefix("(RayWorkerWrapper pid=1882, ip=10.52.3.18) ERROR 08-02 08:50:03 worker_base.py:382] RuntimeError: Gloo connectFullMesh failed");
	ck_assert_int_eq(id.pid, 1882);
	DIAG_CK_STR_EQ(std::string(id.host), "10.52.3.18");
	DIAG_CK_STR_EQ(std::string(id.body), "RuntimeError: Gloo connectFullMesh failed");
	id = parse_prefix("INFO 02-11 10:03:32 [__init__.py:190] Automatically detected platform cuda.");
	DIAG_CK_STR_EQ(std::string(id.body), "Automatically detected platform cuda.");
	id = parse_prefix("ERROR 08-02 08:50:03 worker_base.py:382]   File \"/x/y.py\", line 3, in f");
	DIAG_CK_STR_EQ(std::string(id.body), "File \"/x/y.py\", line 3, in f");
	id = parse_prefix("ERROR: something failed at 08-02 08:50:03");
	DIAG_CK_STR_EQ(std::string(id.body), "ERROR: something failed at 08-02 08:50:03");
	id = parse_prefix("INFO 02-11 10:03:32 not_a_source] x");
	DIAG_CK_STR_EQ(std::string(id.body), "INFO 02-11 10:03:32 not_a_source] x");
	// A Ray node daemon's prefix has an ip and no pid.
	id = parse_prefix("(raylet, ip=10.52.0.12) [2022-11-02 10:36:40,557 E 18760 18791] (raylet) x");
	DIAG_CK_STR_EQ(std::string(id.host), "10.52.0.12");
	ck_assert_int_eq(id.pid, -1);
	DIAG_CK_STR_EQ(std::string(id.body), "[2022-11-02 10:36:40,557 E 18760 18791] (raylet) x");
	id = parse_prefix("(see the docs, ip=127.0.0.1) for more");
	ck_assert(id.host.empty());
}
END_TEST

START_TEST(prefix_styles)
{
	auto id = parse_prefix("12: [rank29]:[E1026 04:01:29.922296938 ProcessGroupNCCL.cpp:1575] x");
	ck_assert_int_eq(id.task, 12);
	ck_assert_int_eq(id.rank, 29);
	DIAG_CK_STR_EQ(std::string(id.body), "[E1026 04:01:29.922296938 ProcessGroupNCCL.cpp:1575] x");
	id = parse_prefix("[default3]:Traceback (most recent call last):");
	ck_assert_int_eq(id.local_rank, 3);
	ck_assert_int_eq(id.rank, -1);
	// pdsh passing a traceback through: a host name (digits at the end),
	// never an exception's name.
	id = parse_prefix("node048: ImportError: cannot import name 'X'");
	DIAG_CK_STR_EQ(std::string(id.host), "node048");
	DIAG_CK_STR_EQ(std::string(id.body), "ImportError: cannot import name 'X'");
	id = parse_prefix("gpu-a24:   File \"main.py\", line 12, in <module>");
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-a24");
	id = parse_prefix("ValueError: Expected input batch_size (18)");
	ck_assert(id.host.empty());
	id = parse_prefix("192.168.13.81: [rank19]: RuntimeError: boom");
	DIAG_CK_STR_EQ(std::string(id.host), "192.168.13.81");
	ck_assert_int_eq(id.rank, 19);
	DIAG_CK_STR_EQ(std::string(id.body), "RuntimeError: boom");
	id = parse_prefix("node17:4242:4300 [3] NCCL INFO comm 0x1 rank 11 nranks 16 - Init COMPLETE");
	ck_assert(id.nccl);
	DIAG_CK_STR_EQ(std::string(id.host), "node17");
	ck_assert_int_eq(id.pid, 4242);
	ck_assert_int_eq(id.cuda_dev, 3);
	ck_assert_int_eq(id.rank, -1); // [3] is a CUDA device, not a rank
	id = parse_prefix("[2026-01-02 03:04:05] node17:4242:4300 [3] misc/socket.cc:50 NCCL WARN x");
	ck_assert(id.nccl);
	DIAG_CK_STR_EQ(std::string(id.body), "misc/socket.cc:50 NCCL WARN x");
	id = parse_prefix("[2024-02-27T21:35:28.705869Z] fa88a9df [rank=1] || ValueError: x");
	ck_assert_int_eq(id.rank, 1);
	DIAG_CK_STR_EQ(std::string(id.body), "ValueError: x");
	// pdsh passing an exception raised without a message.
	id = parse_prefix("node89: torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError");
	DIAG_CK_STR_EQ(std::string(id.host), "node89");
	DIAG_CK_STR_EQ(std::string(id.body), "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError");
	// The agent's own lines (torchrun's failure block) carry no rank.
	id = parse_prefix("[2024-02-27T21:35:28.705869Z] fa88a9df ||   host      : node74");
	ck_assert_int_eq(id.rank, -1);
	DIAG_CK_STR_EQ(std::string(id.body), "host      : node74");
	id = parse_prefix("(RayWorkerWrapper pid=92234, ip=10.0.0.5) CUDA error");
	ck_assert_int_eq(id.pid, 92234);
	DIAG_CK_STR_EQ(std::string(id.host), "10.0.0.5");
	// Exception names are not host prefixes.
	id = parse_prefix("RuntimeError: 3 things");
	ck_assert(id.host.empty());
	DIAG_CK_STR_EQ(std::string(id.body), "RuntimeError: 3 things");
	// "[Rank 3] Watchdog ..." stays in the body for the signatures.
	id = parse_prefix("[Rank 3] Watchdog caught collective operation timeout");
	ck_assert_int_eq(id.rank, -1);
	// Open MPI's --tag-output: job id, then the rank; an NCCL prefix may follow.
	id = parse_prefix("[1,5]<stderr>:torch.cuda.OutOfMemoryError: CUDA out of memory.");
	ck_assert_int_eq(id.rank, 5);
	DIAG_CK_STR_EQ(std::string(id.body), "torch.cuda.OutOfMemoryError: CUDA out of memory.");
	id = parse_prefix("[1,12]<stdout>:gpu-h02:31501:31678 [1] NCCL INFO x");
	ck_assert_int_eq(id.rank, 12);
	ck_assert(id.nccl);
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-h02");
	// A bracketed pair that is no tag stays in the body.
	id = parse_prefix("[1,5] loss 2.3");
	ck_assert_int_eq(id.rank, -1);
	// Open MPI's own "[host:pid] " (its signal handler's report), after the tag.
	id = parse_prefix("[1,3]<stderr>:[gpn-c12:58233] Signal: Segmentation fault (11)");
	ck_assert_int_eq(id.rank, 3);
	DIAG_CK_STR_EQ(std::string(id.host), "gpn-c12");
	ck_assert_int_eq(id.pid, 58233);
	DIAG_CK_STR_EQ(std::string(id.body), "Signal: Segmentation fault (11)");
	// A runner's stream tag, alone or after its own name, says nothing of
	// the writer: skipped, the rank behind it read.
	id = parse_prefix("dinov2-giant-gpus.cn-g021 [stderr] [rank0]: FileNotFoundError: x");
	ck_assert_int_eq(id.rank, 0);
	ck_assert(id.host.empty());
	DIAG_CK_STR_EQ(std::string(id.body), "FileNotFoundError: x");
	id = parse_prefix("[stdout] {'task': 'train', 'rate': 399.4}");
	DIAG_CK_STR_EQ(std::string(id.body), "{'task': 'train', 'rate': 399.4}");
	id = parse_prefix("copying to [stderr] file");
	DIAG_CK_STR_EQ(std::string(id.body), "copying to [stderr] file");
	// A wrapper's "[host:index]:" (sed's "[$(hostname):${SLURM_PROCID}]:"):
	// the host, the index as its writer's own number, never a rank.
	id = parse_prefix("[ip-10-4-170-31:19]:OSError: [Errno 12] Cannot allocate memory");
	DIAG_CK_STR_EQ(std::string(id.host), "ip-10-4-170-31");
	ck_assert_int_eq(id.rank, -1);
	ck_assert_int_eq(id.pid, 19);
	DIAG_CK_STR_EQ(std::string(id.body), "OSError: [Errno 12] Cannot allocate memory");
	// A clock, a device or a counter in brackets is no host.
	for (const char *no : {"[09:25:10] loss 2.3", "[cuda:12] x", "[rank3:120] x", "[gpu-c12:x7] x", "[rank3:12]:x",
			       "[09:25]:x"}) {
		id = parse_prefix(no);
		ck_assert_msg(id.host.empty(), "%s", no);
	}
}
END_TEST

START_TEST(prefix_horovodrun_tags_with_the_rank_alone)
{
	// horovodrun's own launcher (gloo): "[rank]<stream>:".
	line_identity id = parse_prefix("[3]<stderr>:Traceback (most recent call last):");
	ck_assert_int_eq(id.rank, 3);
	DIAG_CK_STR_EQ(std::string(id.body), "Traceback (most recent call last):");
	id = parse_prefix("[12]<stdout>:gpu-h02:31501:31678 [1] NCCL INFO x");
	ck_assert_int_eq(id.rank, 12);
	ck_assert(id.nccl);
	// A bracketed number without its stream is no tag (torchrun's "[0]:").
	id = parse_prefix("[0]: time : 2026-04-14_06:50:01");
	ck_assert_int_eq(id.rank, -1);
	id = parse_prefix("[5] loss 2.3");
	ck_assert_int_eq(id.rank, -1);
	// With a ctime stamp glued before the tag (--prefix-output-with-timestamp,
	// Open MPI's --timestamp-output): the tag is still the writer.
	id = parse_prefix("Mon Mar  2 10:14:40 2026[2]<stderr>:ValueError: x");
	ck_assert_int_eq(id.rank, 2);
	DIAG_CK_STR_EQ(std::string(id.body), "ValueError: x");
	id = parse_prefix("Thu Jun 18 01:14:01 2026[1,7]<stdout>:step 3");
	ck_assert_int_eq(id.rank, 7);
	// A stamp without a tag after it is no prefix.
	id = parse_prefix("Mon Mar  2 10:14:40 2026 [5] loss 2.3");
	ck_assert_int_eq(id.rank, -1);
}
END_TEST

START_TEST(prefix_a_rank_label_leading_the_line)
{
	// "rank3: ..." is rank 3's line, never a host named rank3.
	line_identity id = parse_prefix("rank3: Traceback (most recent call last):");
	ck_assert_int_eq(id.rank, 3);
	ck_assert(id.host.empty());
	DIAG_CK_STR_EQ(std::string(id.body), "Traceback (most recent call last):");
	id = parse_prefix("gpu-a02: rank=12: KeyError: 'x'");
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-a02");
	ck_assert_int_eq(id.rank, 12);
	// A word that only starts like it, or a rank inside the text, is not.
	id = parse_prefix("ranking3: done");
	ck_assert_int_eq(id.rank, -1);
	id = parse_prefix("local_rank3: ready");
	ck_assert_int_eq(id.rank, -1);
}
END_TEST

START_TEST(prefix_a_launchers_host_tag_in_brackets)
{
	line_identity id = parse_prefix("[gpu-d05] [2026-04-14 06:50:01,000] [ERROR] [launch.py:322:sigkill_handler] x");
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-d05");
	DIAG_CK_STR_EQ(std::string(id.body), "[2026-04-14 06:50:01,000] [ERROR] [launch.py:322:sigkill_handler] x");
	id = parse_prefix("[node017] Traceback (most recent call last):");
	DIAG_CK_STR_EQ(std::string(id.host), "node017");
	// Devices, counters, log levels and glog stamps are no hosts.
	for (const char *l : {"[GPU0] CUDA error", "[rank3] x", "[step12] loss nan", "[INFO] x", "[E414 06:50:01.0 x.cpp:1] y",
			      "[cuda:1] x", "[worker3] x", "[0] x"}) {
		id = parse_prefix(l);
		ck_assert_msg(id.host.empty(), "%s", l);
	}
	// Only leading the line.
	id = parse_prefix("12: [gpu-d05] x");
	ck_assert(id.host.empty());
	// kubectl logs --prefix names the pod and its container.
	id = parse_prefix("[pod/llama-ft-worker-0/pytorch] [rank1]: torch.OutOfMemoryError: x");
	DIAG_CK_STR_EQ(std::string(id.host), "llama-ft-worker-0");
	ck_assert_int_eq(id.rank, 1);
	DIAG_CK_STR_EQ(std::string(id.body), "torch.OutOfMemoryError: x");
	// gcloud's stream-logs fields (tabs read as spaces) name the replica;
	// the platform's own "service" is no machine.
	id = parse_prefix("ERROR 2024-04-22 16:10:03 +0000 workerpool1-2  ImportError: x");
	DIAG_CK_STR_EQ(std::string(id.host), "workerpool1-2");
	DIAG_CK_STR_EQ(std::string(id.body), "ImportError: x");
	id = parse_prefix("INFO 2025-09-29 14:06:48 +0000 service Waiting for training program to start.");
	ck_assert(id.host.empty());
	DIAG_CK_STR_EQ(std::string(id.body), "Waiting for training program to start.");
	id = parse_prefix("ERROR 2024-04-22 16:10:03 something else");
	ck_assert(id.host.empty());
}
END_TEST

START_TEST(prefix_pdsh_passes_nccls_own_prefix_through)
{
	line_identity id = parse_prefix("gpu-m04: gpu-m04:3300:3420 [3] NCCL WARN NET/IB : Got completion from peer x");
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-m04");
	ck_assert(id.nccl);
	ck_assert_int_eq(id.pid, 3300);
	DIAG_CK_STR_EQ(std::string(id.body), "NCCL WARN NET/IB : Got completion from peer x");
}
END_TEST

// pdsh run from a node that itself ran pdsh: the inner prefix names the
// machine that wrote the line, the outer only the one that relayed it.
// Text after a host prefix that only looks like one stays text.
START_TEST(prefix_pdsh_relayed_by_pdsh_names_the_inner_host)
{
	line_identity id = parse_prefix("10.4.80.11: 10.4.71.112: RuntimeError: NCCL error in: x, unhandled system error");
	DIAG_CK_STR_EQ(std::string(id.host), "10.4.71.112");
	DIAG_CK_STR_EQ(std::string(id.body), "RuntimeError: NCCL error in: x, unhandled system error");
	id = parse_prefix("10.0.0.2: gpu-a17: [rank5]: Traceback (most recent call last):");
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-a17");
	ck_assert_int_eq(id.rank, 5);
	id = parse_prefix("10.4.80.11: step12: loss nan");
	DIAG_CK_STR_EQ(std::string(id.host), "10.4.80.11");
	DIAG_CK_STR_EQ(std::string(id.body), "step12: loss nan");
}
END_TEST

// A log collector's stamp before the writer's own prefix: the prefix after
// it names the writer. Before plain text, the line is as it was.
START_TEST(prefix_after_a_collectors_stamp)
{
	line_identity id = parse_prefix("2026-07-14 15:39:31.043 +08:00 [2026-07-14 07:39:30] h100-41:238:1313 [0] "
					"transport/net_ib.cc:139 NCCL WARN x");
	DIAG_CK_STR_EQ(std::string(id.host), "h100-41");
	ck_assert(id.nccl);
	ck_assert_int_eq(id.pid, 238);
	DIAG_CK_STR_EQ(std::string(id.body), "transport/net_ib.cc:139 NCCL WARN x");
	line_identity k = parse_prefix("2026-11-24T03:47:21.014003118Z [rank13]:[E1124 03:47:21.013890211 x");
	ck_assert_int_eq(k.rank, 13);
	line_identity p = parse_prefix("2026-09-02 06:35:33 | INFO | step 250/300");
	DIAG_CK_STR_EQ(std::string(p.body), "2026-09-02 06:35:33 | INFO | step 250/300");
	ck_assert(p.host.empty());
}
END_TEST

START_TEST(prefix_pdsh_host_before_any_text_but_not_a_counter)
{
	line_identity id = parse_prefix("gpu-d05: torch.OutOfMemoryError: CUDA out of memory.");
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-d05");
	DIAG_CK_STR_EQ(std::string(id.body), "torch.OutOfMemoryError: CUDA out of memory.");
	id = parse_prefix("node012: *** SIGSEGV received at time=1776153600 on cpu 3 ***");
	DIAG_CK_STR_EQ(std::string(id.host), "node012");
	id = parse_prefix("gpu-d05: terminate called after throwing an instance of 'c10::DistBackendError'");
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-d05");
	// Other lowercase text, and names that are a rank, a step, a device.
	for (const char *l : {"gpu-m04: loading shard 3", "rank3: torch.OutOfMemoryError: x", "step12: loss nan",
			      "gpu0: *** SIGSEGV", "epoch3: done", "layer12: nan"}) {
		id = parse_prefix(l);
		ck_assert_msg(id.host.empty(), "%s", l);
	}
}
END_TEST

// Once a file's pdsh prefix has named a host, a line starting with that
// host's prefix is that host's whatever its text ("gpu-m04: loading shard 3",
// refused alone above), and what follows is read for prefixes again; a name
// only NCCL's "host:pid:tid" gave, or one never seen, teaches nothing.
START_TEST(prefix_a_files_learned_pdsh_hosts_prefix_any_text)
{
	prefix_hosts learned;
	const std::string first = "gpu-m04: [rank3]: RuntimeError: x";
	line_identity id = parse_prefix(first);
	learned.learn(first, id);
	const std::string nccl = "gpu-m09:3300:3420 [3] NCCL INFO Bootstrap : Using eth0";
	id = parse_prefix(nccl);
	learned.learn(nccl, id);
	id = parse_prefix("gpu-m04: loading shard 3");
	learned.apply(id);
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-m04");
	DIAG_CK_STR_EQ(std::string(id.body), "loading shard 3");
	id = parse_prefix("gpu-m04: memory allocation of 2097152 bytes failed");
	learned.apply(id);
	DIAG_CK_STR_EQ(std::string(id.host), "gpu-m04");
	id = parse_prefix("gpu-m04: [rank5]: warming up");
	learned.apply(id);
	ck_assert_int_eq(id.rank, 5);
	for (const char *l : {"gpu-m09: loading shard 3", "gpu-m05: loading shard 3", "epoch3: done"}) {
		id = parse_prefix(l);
		learned.apply(id);
		ck_assert_msg(id.host.empty(), "%s", l);
	}
}
END_TEST

// Members concatenated read as one text (as gzip -d gives), from a file, from
// memory and from a pipe whose first bytes were already read; padding after
// the last member is ignored.
START_TEST(gzip_members_as_one_text)
{
	const std::string a = numbered_log(20000), b = "last line\n";
	const std::string gz = gzip_of(a) + gzip_of(b) + std::string(512, '\0');
	ck_assert(gzip_magic(gz));
	ck_assert(!gzip_magic("\x1f\x8b"));
	std::string err, why;
	{
		int fd = temp_file(gz);
		gunzip_stream s;
		ck_assert(s.start(fd, 0, err));
		ck_assert(read_all(s, why) == a + b);
		ck_assert_str_eq(why.c_str(), "");
		close(fd);
	}
	{
		gunzip_stream s;
		ck_assert(s.start(std::string_view(gz), 0, err));
		ck_assert(read_all(s, why) == a + b);
		ck_assert_str_eq(why.c_str(), "");
	}
	{
		int p[2];
		ck_assert_int_eq(pipe(p), 0);
		bool fed = false;
		std::thread feed([&] {
			fed = write(p[1], gz.data() + 3, gz.size() - 3) == static_cast<ssize_t>(gz.size() - 3);
			close(p[1]);
		});
		gunzip_stream s;
		ck_assert(s.start_stream(std::string_view(gz.data(), 3), p[0], 0, err));
		std::string text = read_all(s, why);
		feed.join();
		close(p[0]);
		ck_assert(fed);
		ck_assert(text == a + b);
		ck_assert_str_eq(why.c_str(), "");
	}
}
END_TEST

// What the text lacks is said: a truncated file gives what it holds, a
// corrupt one what came before the damage, the cap exactly its bytes.
START_TEST(gzip_truncated_corrupt_and_capped)
{
	const std::string text = numbered_log(50000);
	const std::string gz = gzip_of(text);
	std::string err, why;
	{
		gunzip_stream s;
		ck_assert(s.start(std::string_view(gz.data(), gz.size() / 2), 0, err));
		std::string got = read_all(s, why);
		ck_assert_msg(!got.empty() && got.size() < text.size() && text.compare(0, got.size(), got) == 0,
			      "%zu of %zu bytes", got.size(), text.size());
		ck_assert_msg(why.find("ends early") != std::string::npos, "%s", why.c_str());
	}
	{
		std::string bad = gz;
		for (size_t i = bad.size() / 3; i < bad.size() / 3 + 64; i++)
			bad[i] = static_cast<char>(bad[i] ^ 0x5a);
		gunzip_stream s;
		ck_assert(s.start(std::string_view(bad), 0, err));
		std::string got = read_all(s, why);
		ck_assert(got.size() < text.size());
		ck_assert_msg(why.find("corrupt gzip data after") != std::string::npos, "%s", why.c_str());
	}
	{
		gunzip_stream s;
		ck_assert(s.start(std::string_view(gz), 1000, err));
		ck_assert(read_all(s, why) == text.substr(0, 1000));
		ck_assert_msg(why.find("only the first 1000 bytes") != std::string::npos, "%s", why.c_str());
	}
}
END_TEST

// A reader that stops early (or never starts) stops the inflating: finish()
// returns at once, whatever is left of a large text.
START_TEST(gzip_reader_that_stops_early)
{
	const std::string gz = gzip_of(numbered_log(400000));
	std::string err;
	gunzip_stream s;
	ck_assert(s.start(std::string_view(gz), 0, err));
	char buf[100];
	ck_assert_int_eq(read(s.fd(), buf, sizeof(buf)), static_cast<ssize_t>(sizeof(buf)));
	std::string why = s.finish();
	ck_assert_str_eq(why.c_str(), "");
	gunzip_stream never;
	ck_assert(never.start(std::string_view(gz), 0, err));
} // never's destructor closes and joins
END_TEST

// A gzip upload is read as its text (uploads come as memory).
START_TEST(gzip_upload_is_read_as_text)
{
	std::string log = "[rank3]: Traceback (most recent call last):\n[rank3]:   File \"train.py\", line 9, in <module>\n"
			  "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
	std::string gz = gzip_of(log);
	analysis an;
	pipeline_options po;
	po.conf_dir = TEST_CONFDIR;
	std::string err;
	ck_assert_msg(an.init(po, err), "%s", err.c_str());
	an.add_buffer(std::vector<char>(gz.begin(), gz.end()), "upload.log.gz");
	ck_assert_int_eq(an.usable_sources(), 1);
	verdict v = an.run();
	DIAG_CK_STR_EQ(std::string(class_name(v.cls)), "cuda_oom");
	ck_assert_int_eq(v.first_rank, 3);
}
END_TEST

START_TEST(sniff_kinds)
{
	ck_assert(sniff_source("JobID|JobName|State\n1|x|FAILED\n").what == sniffed::sacct_text);
	ck_assert(sniff_source("  {\"jobs\": []}").what == sniffed::json);
	ck_assert(sniff_source(std::string_view("\x80\x02}q\x00", 5)).what == sniffed::fr_pickle);
	auto k = sniff_source("[ 1234.567890] NVRM: Xid (PCI:0000:1b:00): 79, pid=1, GPU has fallen off the bus.\n"
			      "[ 1234.600000] something else\n");
	ck_assert(k.kind == source_kind::kernel_log);
	k = sniff_source("node1:1:2 [0] NCCL INFO Bootstrap\nnode1:1:2 [0] NCCL INFO x\n");
	ck_assert(k.kind == source_kind::nccl_log);
	k = sniff_source("0: hello\n1: world\n");
	ck_assert(k.kind == source_kind::job_log);
	// A machine's whole journal (not only its kernel's lines) is its record
	// too, in journalctl's ISO form and in syslog's.
	k = sniff_source("2025-11-04T10:10:47+0900 ws3 systemd[1911]: Started vte-spawn-5d0c.scope.\n"
			 "2025-11-04T11:00:01+0900 ws3 CRON[44102]: (root) CMD (true)\n"
			 "2025-11-04T11:16:58+0900 ws3 kernel: workqueue: hogged CPU\n");
	ck_assert(k.kind == source_kind::kernel_log);
	k = sniff_source("Nov  4 11:18:20 ws3 systemd-oomd[987]: Killed x.scope due to memory pressure\n"
			 "Nov  4 11:18:21 ws3 gnome-shell[2201]: warning\n");
	ck_assert(k.kind == source_kind::kernel_log);
	k = sniff_source("2025-11-04T11:18:20 step 100 loss: 2.31\n2025-11-04T11:18:21 INFO rank 0: saved\n");
	ck_assert(k.kind == source_kind::job_log);
	// Kernel messages a collector stamped and forwarded (netconsole,
	// rsyslog): a date, the host, then the kernel's seconds since boot.
	k = sniff_source("2025-03-16T19:42:18.204511+00:00 gn023 [168231.448213] mlx5_core 0000:c4:00.0: cleanup\n"
			 "2025-03-16T21:19:03.102117+00:00 gn023 [   14.302117] netpoll: netconsole: local port 6665\n");
	ck_assert(k.kind == source_kind::kernel_log);
	k = sniff_source("2025-03-16T19:42:18 gn023 [rank0]: step 100 loss: 2.31\n"
			 "2025-03-16T19:42:19 gn023 [2025-03-16 19:42] saved\n");
	ck_assert(k.kind == source_kind::job_log);
	// A job's output with NCCL_DEBUG=INFO opens with NCCL's lines among its
	// own: still the job's log (its banners, date lines and launcher lines
	// are read as such); NCCL_DEBUG_FILE's holds NCCL's alone.
	std::string mixed = "Job 42 started on gpu-a[01-02] at Fri Jul 10 22:35:14 UTC 2026\n"
			    "MASTER_ADDR=gpu-a01 MASTER_PORT=29500\n+ srun torchrun --nnodes=2 train.py\n";
	for (int i = 0; i < 7; i++)
		mixed += "gpu-a01:4411" + std::to_string(i) + ":4411" + std::to_string(i) + " [" + std::to_string(i) +
			 "] NCCL INFO Bootstrap : Using ib0:10.9.0.1<0>\n";
	ck_assert(sniff_source(mixed).kind == source_kind::job_log);
	for (int i = 0; i < 190; i++) // a large job: all but its banners
		mixed += "gpu-a02:5511" + std::to_string(i) + ":5511" + std::to_string(i) + " [" + std::to_string(i % 8) +
			 "] NCCL INFO cudaDriverVersion 12040\n";
	ck_assert(sniff_source(mixed).kind == source_kind::job_log);
	ck_assert(sniff_source(mixed.substr(mixed.find("gpu-a01:"))).kind == source_kind::nccl_log);
	ck_assert(sniff_source(std::string(5000, '\0')).what == sniffed::binary);
	// A hole (a run of NULs a dying node left) in a log: still the log.
	k = sniff_source("0: hello\n" + std::string(700, '\0') + "3: Traceback (most recent call last):\n1: world\n");
	ck_assert(k.what != sniffed::binary && k.kind == source_kind::job_log);
	k = sniff_source(std::string(9000, '\0') + "0: hello\n1: world\n");
	ck_assert(k.what != sniffed::binary && k.kind == source_kind::job_log);
	// NULs spread among other bytes are binary data.
	std::string bin;
	for (int i = 0; i < 3000; i++)
		bin += i % 3 ? static_cast<char>('a' + i % 26) : '\0';
	ck_assert(sniff_source(bin).what == sniffed::binary);
	// An executable: short runs of NULs among other bytes.
	std::string elf("\x7f" "ELF\x02\x01\x01", 7);
	for (int i = 0; i < 2000; i++)
		elf += i % 16 < 6 ? '\0' : static_cast<char>(0x40 + i * 37 % 64);
	ck_assert(sniff_source(elf).what == sniffed::binary);
}
END_TEST

START_TEST(hosts_from_paths)
{
	DIAG_CK_STR_EQ(host_from_path("bundle/kern.node017.log"), "node017");
	DIAG_CK_STR_EQ(host_from_path("x/dmesg-gpu-a12.txt"), "gpu-a12");
	DIAG_CK_STR_EQ(host_from_path("logs/node3/dmesg.txt"), "node3");
	DIAG_CK_STR_EQ(host_from_path("job.out"), "");
	DIAG_CK_STR_EQ(host_from_path("fr/rank_12"), "");
	// A node's own log named for it after what wrote it; a task's output
	// file names no node.
	DIAG_CK_STR_EQ(host_from_node_log_name("scheduledevents.hb120v2-2.log"), "hb120v2-2");
	DIAG_CK_STR_EQ(host_from_node_log_name("nth.ip-10-41-7-212.log"), "ip-10-41-7-212");
	DIAG_CK_STR_EQ(host_from_node_log_name("worker-0.log"), "");
	DIAG_CK_STR_EQ(host_from_node_log_name("train-3701784-2.out"), "");
	DIAG_CK_STR_EQ(host_from_node_log_name("run2.node07.log"), "");
}
END_TEST

// Grid Engine's durations and sizes as qacct, qconf and a job's -l print them.
START_TEST(sge_durations_and_sizes)
{
	ck_assert_int_eq(sge_duration_s("21602s"), 21602);
	ck_assert_int_eq(sge_duration_s("86342"), 86342);
	ck_assert_int_eq(sge_duration_s("3335.647"), 3335);
	ck_assert_int_eq(sge_duration_s("06:00:00"), 21600);
	ck_assert_int_eq(sge_duration_s("72:00:00"), 259200);
	ck_assert_int_eq(sge_duration_s("INFINITY"), -1);
	ck_assert_int_eq(sge_duration_s("soon"), -1);
	ck_assert(sge_bytes("6G") == 6.0 * 1024 * 1024 * 1024);
	ck_assert(sge_bytes("96.000G") == 96.0 * 1024 * 1024 * 1024);
	ck_assert(sge_bytes("188.233GB") > 188.0 * 1024 * 1024 * 1024);
	ck_assert(sge_bytes("4096M") == 4.0 * 1024 * 1024 * 1024);
	ck_assert(sge_bytes("24377212") == 24377212.0);
	ck_assert(sge_bytes("INFINITY") < 0);
	ck_assert(sge_bytes("12Q") < 0);
}
END_TEST

START_TEST(sacct_pipe_output)
{
	evidence ev;
	ck_assert(read_sacct_text("JobID|JobName|State|ExitCode|Start|End|NodeList\n"
				  "1234|train|CANCELLED by 0|0:0|2026-10-26T03:00:00|2026-10-26T04:00:00|node[01-02]\n"
				  "1234.batch|batch|CANCELLED|0:15|2026-10-26T03:00:00|2026-10-26T04:00:00|node01\n",
				  ev));
	DIAG_CK_STR_EQ(ev.job.job_id, "1234");
	DIAG_CK_STR_EQ(ev.job.state, "CANCELLED");
	DIAG_CK_STR_EQ(ev.job.state_detail, "CANCELLED by 0");
	ck_assert_uint_eq(ev.job.steps.size(), 1);
	ck_assert(ev.job.end_us - ev.job.start_us == 3600LL * 1000000);
	evidence ev2;
	ck_assert(!read_sacct_text("no|header\n", ev2));
}
END_TEST

// sacct -D: a requeued job's attempt still running does not replace the
// attempt that ended (its state, its nodes, its steps).
START_TEST(sacct_requeued_attempt_keeps_the_one_that_ended)
{
	evidence ev;
	ck_assert(read_sacct_text("JobID|State|ExitCode|Start|End|NodeList\n"
				  "77|NODE_FAIL|0:0|2025-03-04T18:02:05|2025-03-05T02:41:09|n[17,36]\n"
				  "77.0|CANCELLED|0:15|2025-03-04T18:02:09|2025-03-05T02:41:40|n[17,36]\n"
				  "77|RUNNING|0:0|2025-03-05T02:44:58|Unknown|n[17,44]\n"
				  "77.0|RUNNING|0:0|2025-03-05T02:45:01|Unknown|n[17,44]\n",
				  ev));
	DIAG_CK_STR_EQ(ev.job.state, "NODE_FAIL");
	DIAG_CK_STR_EQ(ev.job.nodelist, "n[17,36]");
	ck_assert_uint_eq(ev.job.steps.size(), 1);
	// An attempt that ended after one that ended: the later is the job's end.
	evidence ev2;
	ck_assert(read_sacct_text("JobID|State|NodeList\n77|PREEMPTED|n1\n77|TIMEOUT|n2\n", ev2));
	DIAG_CK_STR_EQ(ev2.job.state, "TIMEOUT");
	DIAG_CK_STR_EQ(ev2.job.nodelist, "n2");
	// An attempt put back (REQUEUED) ended; the pending next one does not
	// replace it.
	evidence ev3;
	ck_assert(read_sacct_text("JobID|State|NodeList\n77|REQUEUED|n1\n77|PENDING|None assigned\n", ev3));
	DIAG_CK_STR_EQ(ev3.job.state, "REQUEUED");
}
END_TEST

// sacct's table pasted under the command that printed it, another
// command's output below it: the table alone is read. A job that never
// ran lists its nodes as "None assigned": no node.
START_TEST(sacct_under_its_command_line)
{
	const std::string text = "$ sacct -j 4417203 -P --format=JobID,State,ExitCode,Start,End,NodeList\n"
				 "JobID|State|ExitCode|Start|End|NodeList\n"
				 "4417203|NODE_FAIL|0:0|2024-03-13T21:39:22|2024-03-14T02:18:06|amp-g[07-08]\n"
				 "4417203.0|CANCELLED|0:15|2024-03-13T21:39:30|2024-03-14T02:18:38|amp-g[07-08]\n"
				 "$ sinfo -R -n amp-g08\n"
				 "REASON|USER|TIMESTAMP|NODELIST\n"
				 "Not responding|slurm|2024-03-14T02:17:58|amp-g08\n";
	ck_assert(sniff_source(text).kind == source_kind::sacct_text);
	evidence ev;
	ck_assert(read_sacct_text(text, ev));
	DIAG_CK_STR_EQ(ev.job.job_id, "4417203");
	DIAG_CK_STR_EQ(ev.job.state, "NODE_FAIL");
	DIAG_CK_STR_EQ(ev.job.nodelist, "amp-g[07-08]");
	ck_assert_uint_eq(ev.job.steps.size(), 1);
	evidence pending;
	ck_assert(read_sacct_text("JobID|State|NodeList\n412077|CANCELLED by 31877|None assigned\n", pending));
	DIAG_CK_STR_EQ(pending.job.nodelist, "");
}
END_TEST

// Elapsed and Timelimit: [D-][HH:]MM:SS, UNLIMITED and the like unknown.
START_TEST(sacct_elapsed_and_time_limit)
{
	const char *rows[][3] = {{"03:59:30", "04:00:00", "14370 14400"}, {"1-02:00:00", "2-00:00:00", "93600 172800"},
				 {"59:30.120", "UNLIMITED", "3570 -1"},    {"00:00:05", "Partition_Limit", "5 -1"},
				 {"abc", "12", "-1 -1"}};
	for (const auto &r : rows) {
		evidence ev;
		std::string text = std::string("JobID|State|ExitCode|Elapsed|Timelimit\n7|FAILED|0:2|") + r[0] + "|" + r[1] + "\n";
		ck_assert(read_sacct_text(text, ev));
		char got[64];
		snprintf(got, sizeof(got), "%lld %lld", static_cast<long long>(ev.job.elapsed_s),
			 static_cast<long long>(ev.job.timelimit_s));
		DIAG_CK_STR_EQ(std::string(got), r[2]);
	}
}
END_TEST

// sacct's default table: columns under a ruler of dashes, values cut short
// with '+' (the state's first word is kept; a cut node list is dropped).
START_TEST(sacct_default_table)
{
	const char *rows = "       JobID    JobName      State ExitCode        NodeList \n"
			   "------------ ---------- ---------- -------- --------------- \n"
			   "881234        sft-llama CANCELLED+      0:0 gpu-c[01-02,0+ \n"
			   "881234.batch      batch  CANCELLED     0:15          gpu-c01 \n"
			   "881234.exte+     extern  COMPLETED      0:0 gpu-c[01-02,0+ \n";
	ck_assert(sacct_table_header("       JobID    JobName      State ExitCode        NodeList ",
				     "------------ ---------- ---------- -------- --------------- "));
	ck_assert(!sacct_table_header("JobID JobName State", "step 12 ---- loss"));
	evidence ev;
	ck_assert(read_sacct_text(rows, ev));
	DIAG_CK_STR_EQ(ev.job.job_id, "881234");
	DIAG_CK_STR_EQ(ev.job.state, "CANCELLED");
	DIAG_CK_STR_EQ(ev.job.exit_code, "0:0");
	DIAG_CK_STR_EQ(ev.job.nodelist, "");
	ck_assert_uint_eq(ev.job.steps.size(), 1); // the cut step id names no step for sure
}
END_TEST

START_TEST(sacct_json_output)
{
	evidence ev;
	ck_assert(read_sacct_json("{\"jobs\":[{\"job_id\":77,\"state\":{\"current\":[\"TIMEOUT\"],\"reason\":\"None\"},"
				  "\"time\":{\"start\":1790000000,\"end\":{\"number\":1790003600}},\"steps\":[]}]}",
				  ev));
	DIAG_CK_STR_EQ(ev.job.job_id, "77");
	DIAG_CK_STR_EQ(ev.job.state, "TIMEOUT");
	ck_assert(ev.job.end_us == 1790003600LL * 1000000);
	// Elapsed (seconds), Timelimit (minutes) and the exit code, in 21.08's
	// shapes and in 23.02's {"set", "number"} objects.
	const char *shapes[] = {
		"{\"jobs\":[{\"job_id\":9,\"state\":{\"current\":\"FAILED\"},\"exit_code\":{\"return_code\":0,"
		"\"signal\":{\"signal_id\":2}},\"time\":{\"elapsed\":14370,\"limit\":240}}]}",
		"{\"jobs\":[{\"job_id\":9,\"state\":{\"current\":[\"FAILED\"]},\"exit_code\":{\"return_code\":{\"set\":true,"
		"\"number\":0},\"signal\":{\"id\":{\"set\":true,\"number\":2}}},\"time\":{\"elapsed\":14370,"
		"\"limit\":{\"set\":true,\"infinite\":false,\"number\":240}}}]}"};
	for (const char *j : shapes) {
		evidence e2;
		ck_assert(read_sacct_json(j, e2));
		DIAG_CK_STR_EQ(e2.job.exit_code, "0:2");
		ck_assert_int_eq(e2.job.elapsed_s, 14370);
		ck_assert_int_eq(e2.job.timelimit_s, 14400);
	}
}
END_TEST

START_TEST(bus_ids)
{
	DIAG_CK_STR_EQ(normalise_busid("PCI:0000:1b:00"), "1b:00");
	DIAG_CK_STR_EQ(normalise_busid("1b000"), "1b:00");
	DIAG_CK_STR_EQ(normalise_busid("00000000:1B:00.0"), "1b:00");
	DIAG_CK_STR_EQ(normalise_busid("3000"), "03:00"); // NCCL drops the bus's leading zero
	DIAG_CK_STR_EQ(normalise_busid("0000:01:00"), "01:00");
	DIAG_CK_STR_EQ(normalise_busid("1000"), "01:00"); // NCCL prints busId with %lx
}
END_TEST

// The shipped signatures, loaded and checked as denpex loads them.
static void load_shipped_rules(rule_set &rules)
{
	std::string err;
	ck_assert_msg(rules.load_dir(std::string(TEST_CONFDIR) + "/signatures", err), "%s", err.c_str());
	rules.finalize();
}

// Reads lr as a job log into ev (its only source) with DENPEX_THREADS set
// to threads ("1": one thread). False on a read error.
static bool read_job_log(line_reader &lr, rule_set &rules, const char *threads, evidence &ev)
{
	setenv("DENPEX_THREADS", threads, 1);
	source_file sf;
	sf.path = "job.out";
	uint32_t file = ev.add_source(sf);
	return read_text_log(lr, file, source_kind::job_log, rules, ev);
}

// Reads text as a job log with threads reader threads into ev.
static void read_text(rule_set &rules, const std::string &text, const char *threads, evidence &ev)
{
	line_reader lr(text);
	ck_assert(read_job_log(lr, rules, threads, ev));
}

// An unstamped line happened no later than the next stamped one, but not
// across a command typed at a terminal: "$ kubectl logs ..." prints
// another command's output, in no time order with the lines above it.
START_TEST(an_untimed_line_is_bounded_by_the_next_stamp_of_its_command_only)
{
	rule_set rules;
	load_shipped_rules(rules);
	for (int new_command = 0; new_command <= 1; new_command++) {
		evidence ev;
		read_text(rules,
			  std::string("k8s-gpu-node3   NotReady   <none>          198d   v1.26.9\n") +
				  (new_command ? "$ kubectl -n vision logs seg-master-0\n" : "") +
				  "2023-11-14 06:22:10,551 INFO train: world_size=8\n",
			  "1", ev);
		ck_assert_uint_eq(ev.events.size(), 1);
		ck_assert_int_eq(ev.events[0].inherited_time, !new_command);
		ck_assert(new_command ? ev.events[0].ts_hi.kind == ts_kind::none
				      : ev.events[0].ts_hi.kind != ts_kind::none);
	}
}
END_TEST

// Rank 1's error at 23:xx on 2024-03-01, rank 2's past midnight on 03-02.
static void ck_dated_across_midnight(const event *e)
{
	ck_assert_int_eq(int(e->ts.kind), int(ts_kind::local));
	ck_assert_int_eq(e->ts.year, 2024);
	ck_assert_int_eq(e->ts.month, 3);
	ck_assert_int_eq(e->ts.day, e->rank == 1 ? 1 : 2);
	ck_assert_int_eq(e->ts.hour, e->rank == 1 ? 23 : 0);
}

// A time of day alone takes the date of its file's last dated local stamp
// (the next day once its clock went back past midnight); with none before
// it, it dates nothing.
START_TEST(a_time_of_day_alone_takes_its_files_date)
{
	rule_set rules;
	load_shipped_rules(rules);
	const std::string tail = "[rank 1] 23:59:30 RuntimeError: CUDA error: an illegal memory access was encountered\n"
				 "[rank 2] 00:00:10 RuntimeError: CUDA error: an illegal memory access was encountered\n";
	for (int dated = 0; dated <= 1; dated++) {
		evidence ev;
		read_text(rules, (dated ? "2024-03-01 23:58:00,100 INFO train: world_size=8\n" : "") + tail, "1", ev);
		std::vector<const event *> errs;
		for (const auto &e : ev.events)
			if (e.rank == 1 || e.rank == 2)
				errs.push_back(&e);
		ck_assert_uint_eq(errs.size(), 2);
		for (const event *e : errs) {
			if (!dated) {
				ck_assert(e->ts.kind == ts_kind::none || e->inherited_time);
				continue;
			}
			ck_dated_across_midnight(e);
		}
	}
}
END_TEST

// Times of day alone above the file's first dated local stamp (an
// application's lines above Slurm's dated banner) take the date it gives,
// counted back over the midnight their clock passed.
START_TEST(times_of_day_above_the_first_dated_stamp_take_its_date)
{
	rule_set rules;
	load_shipped_rules(rules);
	evidence ev;
	read_text(rules,
		  "[rank 0] 22:10:00 step 10 loss 0.5\n"
		  "[rank 1] 23:59:30 RuntimeError: CUDA error: an illegal memory access was encountered\n"
		  "[rank 2] 00:00:10 RuntimeError: CUDA error: an illegal memory access was encountered\n"
		  "slurmstepd: error: *** JOB 5 ON n1 CANCELLED AT 2024-03-02T04:05:00 ***\n",
		  "1", ev);
	std::vector<const event *> errs;
	for (const auto &e : ev.events)
		if (e.rank == 1 || e.rank == 2)
			errs.push_back(&e);
	ck_assert_uint_eq(errs.size(), 2);
	for (const event *e : errs) {
		ck_assert(!e->inherited_time);
		ck_dated_across_midnight(e);
	}
}
END_TEST

// Open MPI's placement reports map ranks to nodes: --display-map's node
// block and the ranks listed under it, --report-bindings' one line per
// rank. A rank line far below any node block maps nothing.
START_TEST(open_mpi_placement_reports_map_ranks_to_nodes)
{
	rule_set rules;
	load_shipped_rules(rules);
	evidence ev;
	read_text(rules,
		  " ========================   JOB MAP   ========================\n"
		  " Data for node: gpu-m11\tNum slots: 2\tMax slots: 0\tNum procs: 2\n"
		  " \tProcess OMPI jobid: [41877,1] App: 0 Process rank: 0 Bound: N/A\n"
		  " \tProcess OMPI jobid: [41877,1] App: 0 Process rank: 1 Bound: N/A\n"
		  "\n"
		  " Data for node: gpu-m12\tNum slots: 2\tMax slots: 0\tNum procs: 2\n"
		  " \tProcess OMPI jobid: [41877,1] App: 0 Process rank: 2 Bound: N/A\n"
		  "[gx-n05:30211] MCW rank 5 bound to socket 1[core 24[hwt 0-1]]: [../../..][BB/../..]\n"
		  "a\nb\nc\nd\n"
		  " \tProcess OMPI jobid: [41877,1] App: 0 Process rank: 3 Bound: N/A\n",
		  "1", ev);
	auto host_of = [&](int rank) -> std::string {
		const rank_info *ri = ev.ranks.by_rank(rank);
		return ri && ri->host >= 0 ? ev.host_name(ri->host) : "";
	};
	DIAG_CK_STR_EQ(host_of(0), "gpu-m11");
	DIAG_CK_STR_EQ(host_of(1), "gpu-m11");
	DIAG_CK_STR_EQ(host_of(2), "gpu-m12");
	DIAG_CK_STR_EQ(host_of(5), "gx-n05");
	DIAG_CK_STR_EQ(host_of(3), "");
}
END_TEST

// A source large enough to be read on two threads (when a core is free)
// gives what the line-by-line reading defines: the event on its line, and
// per writer the last progress line (deferred progress lines settle newest
// first).
START_TEST(large_log_in_line_order)
{
	setenv("DENPEX_THREADS", "2", 1);
	rule_set rules;
	load_shipped_rules(rules);
	std::string text;
	uint64_t line = 0, oom_line = 0, last_of[8] = {};
	while (text.size() < (12u << 20)) {
		int r = static_cast<int>(line % 8);
		line++;
		if (line == 150000) {
			text += "3: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
			oom_line = line;
			continue;
		}
		if (line % 1000 == 0) {
			text += std::to_string(r) + ": \x1b[32mdataloader\x1b[0m: shard " + std::to_string(line) + "\r\n";
			continue;
		}
		// The last lines of rank 5 only look like progress.
		if (r == 5 && text.size() > (12u << 20) - 4096)
			text += "5: loss of precision warning " + std::to_string(line) + "\n";
		else {
			text += std::to_string(r) + ": step " + std::to_string(line) + " | loss 2.31 | lr 3.0e-04\n";
			last_of[r] = line;
		}
	}
	evidence ev;
	read_text(rules, text, "2", ev);
	bool found = false;
	for (const auto &e : ev.events)
		if (e.line == oom_line && e.task == 3 && e.cls == failure_class::cuda_oom)
			found = true;
	ck_assert_msg(found, "the OOM event on line %llu", static_cast<unsigned long long>(oom_line));
	std::set<uint64_t> lasts, want;
	for (const auto &lp : ev.last_progress)
		lasts.insert(lp.second);
	for (uint64_t l : last_of)
		want.insert(l);
	ck_assert(lasts == want);
}
END_TEST

// Lines several ranks share: a handler's line ("attempting to recover",
// "Skipping batch") of one rank (named on it, or the rank of the fault it
// answers), then another rank's header and its traceback: that traceback
// was not handled, its error is no decoy. A handler's line of no known rank
// right before a traceback still catches it, header or not.
// A progress bar that ended without a newline, the next message of the same
// writer glued to it: the message keeps the line's prefix (its srun task and
// rank), so a handler's line of that rank just before still catches the
// traceback it opens, and a fault glued so is that rank's.
START_TEST(text_glued_after_a_bar_is_the_lines_writers)
{
	setenv("DENPEX_THREADS", "1", 1);
	rule_set rules;
	load_shipped_rules(rules);
	{
		std::string text = "1: [rank5]:2026-03-23 19:05:54,552 - ERROR - wandb - failed to upload metrics, will retry (1/5)\n"
				   "1: [rank5]: 46%|####| 526/1132 [56:04<30:56, 3.73s/it]Traceback (most recent call last):\n"
				   "1: [rank5]:  File \"adapters.py\", line 519, in send\n"
				   "1: [rank5]:requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.wandb.ai', port=443): Read timed out.\n";
		evidence ev;
		read_text(rules, text, "1", ev);
		int seen = 0;
		for (const auto &e : ev.events)
			if (e.cls == failure_class::python_exception) {
				seen++;
				ck_assert_msg(e.decoy, "the handler's traceback is caught");
			}
		ck_assert_int_eq(seen, 1);
	}
	{
		std::string text = "3: [rank3]: 12%|#  | 5/40 [00:04<00:31, 1.12it/s]torch.OutOfMemoryError: CUDA out of memory. "
				   "Tried to allocate 2.00 GiB\n";
		evidence ev;
		read_text(rules, text, "1", ev);
		int seen = 0;
		for (const auto &e : ev.events)
			if (e.cls == failure_class::cuda_oom) {
				seen++;
				ck_assert_int_eq(e.rank, 3);
			}
		ck_assert_int_eq(seen, 1);
	}
	{
		// Any unit's rate ends a bar (Composer's batches, "1.84s/ba", its
		// loss named by path); a rate's slash seen twice moves the search
		// on (no endless loop).
		std::string text = "[0]:train 21%| | 161544/770000 [29:39:25<310:42:33, 1.84s/ba, loss/train/total=nan][6]:"
				   "[E ProcessGroupNCCL.cpp:828] [Rank 38] Watchdog caught collective operation timeout: "
				   "WorkNCCL(SeqNum=4447361, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1805505 milliseconds "
				   "before timing out.\n"
				   "a 3s/ba 3s/ba 7ba/s 812B/s/ path s/x /s\n";
		evidence ev;
		read_text(rules, text, "1", ev);
		int nan = 0;
		for (const auto &e : ev.events)
			nan += e.cls == failure_class::nan_inf;
		ck_assert_int_eq(nan, 1);
	}
}
END_TEST

// A handler's line after a fault answers it ("recovered from OOM ..."), and
// says nothing of the traceback after it; a second handler's line ("will
// retry") is about the traceback that follows; an Init line just before a
// handler's line is no fault for it to answer.
START_TEST(handler_lines_answer_the_fault_above_or_the_traceback_below)
{
	setenv("DENPEX_THREADS", "1", 1);
	rule_set rules;
	load_shipped_rules(rules);
	const std::string oom = "Traceback (most recent call last):\n  File \"train.py\", line 9, in step\n"
				"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.40 GiB.\n"
				"2026-06-13 00:07:07,648 - INFO - trainer - recovered from OOM at step 23878\n";
	const std::string assertion = "Traceback (most recent call last):\n  File \"gpt.py\", line 118, in forward\n"
				      "AssertionError: sequence length 8193 exceeds max_position_embeddings 8192\n";
	const std::string upload = "2026-06-13 10:42:21,714 - ERROR - wandb - failed to upload metrics, will retry (1/5)\n"
				   "Traceback (most recent call last):\n  File \"adapters.py\", line 519, in send\n"
				   "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.wandb.ai', port=443): Read timed out.\n";
	const std::string init = "gpu-a4-139:389717:389759 [1] NCCL INFO comm 0x7f0003000 rank 3 nranks 4 cudaDev 1 busId 43000 - Init COMPLETE\n";
	struct {
		std::string text;
		failure_class cls;
		bool caught;
	} cases[] = {{oom + assertion, failure_class::python_exception, false},
		     {oom + upload, failure_class::python_exception, true},
		     {init + upload, failure_class::python_exception, true}};
	for (const auto &c : cases) {
		line_reader lr(c.text);
		evidence ev;
		ck_assert(read_job_log(lr, rules, "1", ev));
		int seen = 0;
		for (const auto &e : ev.events)
			if (e.cls == c.cls && e.kind == rule_kind::exception) {
				seen++;
				ck_assert_msg(e.decoy == c.caught, "%s: decoy %d", e.rule_id.c_str(), e.decoy);
			}
		ck_assert_int_eq(seen, 1);
	}
}
END_TEST

START_TEST(handler_line_of_another_rank_does_not_catch_a_traceback)
{
	setenv("DENPEX_THREADS", "1", 1);
	rule_set rules;
	load_shipped_rules(rules);
	enum { named, answers_a_fault, same_rank, no_rank, variants };
	for (int v = 0; v < variants; v++) {
		std::string text;
		if (v == named || v == same_rank)
			text = "rank 7: WARNING | metaseq.trainer | attempting to recover from OOM in forward/backward pass\n";
		else if (v == answers_a_fault)
			text = "[Rank 36] WARNING: ran out of memory with exception: CUDA out of memory. Tried to allocate 1.00 GiB.\n"
			       " Skipping batch\n";
		else
			text = "ERROR:trainer:failed to upload metrics, will retry in 30s\n";
		text += std::string(v == same_rank ? "rank 7" : "rank 0") + ": Exception at step 5303 (batch 182), exiting\n"
			"Traceback (most recent call last):\n"
			"  File \"/workspace/checkpoint.py\", line 179, in save\n"
			"OSError: [Errno 5] Input/output error: '/lustre/run/step_5303/model_00.pt'\n";
		evidence ev;
		read_text(rules, text, "1", ev);
		int seen = 0;
		for (const auto &e : ev.events)
			if (e.cls == failure_class::filesystem) {
				seen++;
				bool caught = v == same_rank || v == no_rank;
				ck_assert_msg(e.decoy == caught, "variant %d: decoy %d", v, e.decoy);
			}
		ck_assert_int_eq(seen, 1);
	}
}
END_TEST

// An exception that ends a traceback through communicator set-up
// (ncclCommInitRank) was raised while the job started; one whose traceback
// does not pass through it, on the same writer after, was not.
START_TEST(traceback_through_comm_init_marks_its_exception_at_startup)
{
	setenv("DENPEX_THREADS", "1", 1);
	rule_set rules;
	load_shipped_rules(rules);
	line_reader lr("Traceback (most recent call last):\n"
		       "  File \"/usr/lib/vllm/distributed/device_communicators/pynccl.py\", line 99, in __init__\n"
		       "    self.comm: ncclComm_t = self.nccl.ncclCommInitRank(\n"
		       "  File \"/usr/lib/vllm/distributed/device_communicators/pynccl_wrapper.py\", line 277, in ncclCommInitRank\n"
		       "    raise RuntimeError(f\"NCCL error: {error_str}\")\n"
		       "RuntimeError: NCCL error: internal error - please report this issue to the NCCL developers\n"
		       "Traceback (most recent call last):\n"
		       "  File \"/x/torch/distributed/distributed_c10d.py\", line 3689, in barrier\n"
		       "RuntimeError: NCCL error: internal error - please report this issue to the NCCL developers\n");
	evidence ev;
	ck_assert(read_job_log(lr, rules, "1", ev));
	std::vector<bool> seen;
	for (const auto &e : ev.events)
		if (e.r && e.r->id == "nccl.internal_error")
			seen.push_back(e.at_startup);
	ck_assert_int_eq(seen.size(), 2);
	ck_assert(seen[0] && !seen[1]);
}
END_TEST

// A traceback one rank relays for another (DCP re-raises every rank's
// failure on all of them, naming where it came from): its closing error is
// the origin's, not the printing rank's; an ordinary traceback stays its
// writer's.
START_TEST(relayed_traceback_is_the_origins)
{
	setenv("DENPEX_THREADS", "1", 1);
	rule_set rules;
	load_shipped_rules(rules);
	line_reader lr("[rank0]:Traceback (most recent call last): (RANK 6)\n"
		       "[rank0]:  File \"/x/torch/distributed/checkpoint/filesystem.py\", line 474, in _write\n"
		       "[rank0]:OSError: [Errno 28] No space left on device\n"
		       "[rank3]:Traceback (most recent call last):\n"
		       "[rank3]:  File \"train.py\", line 12, in <module>\n"
		       "[rank3]:OSError: [Errno 28] No space left on device\n");
	evidence ev;
	ck_assert(read_job_log(lr, rules, "1", ev));
	int seen = 0;
	for (const auto &e : ev.events) {
		if (e.cls != failure_class::filesystem)
			continue;
		ck_assert_int_eq(e.rank, e.line == 3 ? 6 : 3);
		seen++;
	}
	ck_assert_int_eq(seen, 2);
}
END_TEST


// c10's NCCL error goes on over unstamped lines: they are the rank's of the
// first line, and what a victim's message quotes as the cause (the peer's
// completion error) is its symptom. A launcher's line in between, naming
// its own pid, is not part of the message; a stamped line ends it.
// The events of ev by line (one per line in these tests).
static std::map<uint64_t, const event *> events_by_line(const evidence &ev)
{
	std::map<uint64_t, const event *> at;
	for (const auto &e : ev.events)
		at[e.line] = &e;
	return at;
}

START_TEST(nccl_error_message_lines_are_its_first_line_rank)
{
	rule_set rules;
	load_shipped_rules(rules);
	line_reader lr(std::string(
		"[E0708 22:50:09.612993 ProcessGroupNCCL.cpp:1595] [Rank 3] Process group watchdog thread terminated with "
		"exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5\n"
		"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
		"Last error:\n"
		"NET/IB : Got completion from peer 10.1.0.1<51061> with error 12, opcode 0, len 0, vendor err 129 (Recv)\n"
		"[E0708 22:50:09.835930 ProcessGroupNCCL.cpp:1595] [Rank 2] Process group watchdog thread terminated with "
		"exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
		"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 123479) of "
		"binary: /usr/bin/python3\n"
		"ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
		"Last error:\n"
		"NET/IB : Got completion from peer 10.1.0.2<57643> with error 12, opcode 1, len 0, vendor err 129 (Send)\n"
		"[E0708 22:50:10.000000 ProcessGroupNCCL.cpp:630] Some NCCL operations have failed or timed out.\n"
		"NET/IB : Got completion from peer 10.1.0.3<57643> with error 12, opcode 1, len 0, vendor err 129 (Send)\n"));
	evidence ev;
	ck_assert(read_job_log(lr, rules, "1", ev));
	std::map<uint64_t, const event *> at = events_by_line(ev);
	ck_assert(at.count(2) && at.count(4) && at.count(6) && at.count(7) && at.count(9) && at.count(11));
	ck_assert_int_eq(at[2]->rank, 3);
	ck_assert_int_eq(at[4]->rank, 3);
	ck_assert(at[4]->role == event_role::victim);
	ck_assert_int_lt(at[6]->rank, 0); // the launcher's line, with its own pid
	ck_assert_int_eq(at[7]->rank, 2);
	ck_assert_int_eq(at[9]->rank, 2);
	ck_assert(at[9]->role == event_role::initiating);
	ck_assert_int_lt(at[11]->rank, 0); // after a stamped line: no longer the message
}
END_TEST

// Unprefixed, a rank's NCCL error goes on over lines that carry no rank:
// they are the rank the traceback's header names, not a fault of no rank.
START_TEST(nccl_error_message_under_a_headed_traceback_is_the_headers_rank)
{
	rule_set rules;
	load_shipped_rules(rules);
	line_reader lr(std::string(
		"[2026-10-08 14:31:39,069] [ERROR] [logging.py:96:log_dist] [node1] [Rank 3] Exception at step 0, exiting\n"
		"Traceback (most recent call last):\n"
		"  File \"train.py\", line 55, in <module>\n"
		"    dist.barrier()\n"
		"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
		"unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.10.3\n"
		"ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
		"Last error:\n"
		"Bootstrap : no socket interface found\n"
		"srun: error: Node failure on node02\n"
		"slurmstepd: error: Detected 1 oom-kill event(s) in StepId=4242.0. Some of your processes may have been "
		"killed by the cgroup out-of-memory handler.\n"));
	evidence ev;
	ck_assert(read_job_log(lr, rules, "1", ev));
	std::map<uint64_t, const event *> at = events_by_line(ev);
	ck_assert(at.count(5) && at.count(8) && at.count(9));
	ck_assert_int_eq(at[5]->rank, 3);
	ck_assert_int_eq(at[8]->rank, 3);
	ck_assert_int_lt(at[9]->rank, 0); // srun's own line, naming its node
	ck_assert(at[9]->role == event_role::initiating);
	ck_assert(at.count(10) && at[10]->rank < 0); // slurmstepd's, naming its job
}
END_TEST

// SGLang's "[<time> TP1]" names the engine's tensor-parallel rank: the
// job's rank where the engine is the job, not behind a Ray actor's prefix
// (an RL trainer's rollout engine inside a larger job).
START_TEST(engine_rank_tag_is_not_the_jobs_behind_a_ray_actor)
{
	for (int actor = 0; actor <= 1; actor++) {
		rule_set rules;
		load_shipped_rules(rules);
		std::string prefix = actor ? "(WorkerDict pid=1052, ip=10.0.0.7) " : "";
		line_reader lr(prefix + "[2025-05-21 10:12:33 TP1] RuntimeError: CUDA error: an illegal memory access was "
					"encountered\n");
		evidence ev;
		ck_assert(read_job_log(lr, rules, "1", ev));
		ck_assert_uint_eq(ev.events.size(), 1);
		ck_assert_int_eq(ev.events[0].rank, actor ? -1 : 1);
	}
}
END_TEST

// dmesg -T prints no host: "mlx5_core 0000:4d:00.0: ..." is a driver and a
// PCI address, where syslog's "node17 kernel: ..." is a host and a tag.
START_TEST(dmesg_t_driver_name_is_no_host)
{
	rule_set rules;
	load_shipped_rules(rules);
	line_reader lr(std::string("[Sat Mar 14 12:34:38 2026] mlx5_core 0000:4d:00.0: Link down\n"
				   "Mar 14 12:35:11 node17 kernel: mlx5_core 0000:4d:00.0 ibp108s0: Link down\n"
				   "[Sat Mar 14 12:36:02 2026] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset "
				   "required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2874\n"
				   "[Sat Mar 14 12:37:29 2026] NETDEV WATCHDOG: ens1f0np0 (mlx5_core): transmit queue 6 timed out\n"));
	evidence ev;
	source_file sf;
	sf.path = "kern.node03.log";
	uint32_t file = ev.add_source(sf);
	ck_assert(read_text_log(lr, file, source_kind::kernel_log, rules, ev));
	for (size_t h = 0; h < ev.host_count(); h++) {
		ck_assert_str_ne(ev.host_name(static_cast<int>(h)).c_str(), "mlx5_core");
		ck_assert_str_ne(ev.host_name(static_cast<int>(h)).c_str(), "NVRM:"); // a subsystem's tag
		ck_assert_str_ne(ev.host_name(static_cast<int>(h)).c_str(), "NETDEV"); // a subsystem's words
	}
	bool node17 = false;
	for (const auto &e : ev.events)
		node17 = node17 || (e.line == 2 && e.host >= 0 && ev.host_name(e.host) == "node17");
	ck_assert(node17);
}
END_TEST

// Everything a text source gives, as one string (to compare readings).
static std::string evidence_dump(const evidence &ev)
{
	std::string out;
	auto ts = [](const ts_value &t) {
		return std::to_string(static_cast<int>(t.kind)) + "/" + std::to_string(t.epoch_us) + "/" +
		       std::to_string(t.boot_us) + "/" + std::to_string(t.hour) + ":" + std::to_string(t.minute) + ":" +
		       std::to_string(t.second) + "." + std::to_string(t.micros);
	};
	for (const auto &e : ev.events) {
		out += std::to_string(e.line) + " k" + std::to_string(e.key) + " r" + std::to_string(e.rank) + " t" +
		       std::to_string(e.task) + " l" + std::to_string(e.local_rank) + " p" + std::to_string(e.pid) + " h" +
		       std::to_string(e.host) + " c" + std::to_string(static_cast<int>(e.cls)) + " " + ts(e.ts) + " " +
		       ts(e.ts_hi) + (e.inherited_time ? " I" : "") + (e.decoy ? " D" : "") + (e.dropped ? " X" : "") +
		       " " + (e.r ? e.r->id : e.rule_id) + " " + e.text;
		for (const auto &c : e.captures)
			out += " " + c.first + "=" + c.second;
		out += "\n";
	}
	std::map<uint64_t, uint64_t> progress(ev.last_progress.begin(), ev.last_progress.end());
	for (const auto &p : progress)
		out += "progress " + std::to_string(p.first) + " " + std::to_string(p.second) + "\n";
	return out;
}

// The scanning threads change only the speed: a large source read with
// one, two, three or five threads gives the same evidence, line for line.
// The source mixes what a reader keeps state for: progress lines and bars
// glued to the next writer, colour and carriage returns, timed and
// untimed lines, tracebacks caught by a handler, torchrun failure blocks,
// and faults from every fixture of the test data.
START_TEST(threads_change_nothing)
{
	rule_set rules;
	load_shipped_rules(rules);
	std::vector<std::string> faults;
	for (const char *f : {"realworld/cuda_oom_rank3/job.log", "realworld/python_keyerror_rank7/job.log",
			      "realworld/segfault_task3_decoys/job.log", "realworld/collective_hang_uniform/job.log",
			      "realworld/ib_completion_error/job.log", "realworld/time_limit_torchrun/job.log",
			      "realworld/host_oom_srun_task5/job.log", "realworld/cuda_illegal_access_rank2/job.log",
			      "example/multinode-xid/job.out"}) {
		FILE *fp = fopen((std::string(TEST_DATADIR "/") + f).c_str(), "r");
		if (!fp)
			continue;
		char line[8192];
		while (fgets(line, sizeof line, fp))
			faults.emplace_back(line);
		fclose(fp);
	}
	ck_assert_uint_gt(faults.size(), 50);
	std::string text;
	uint64_t n = 0;
	size_t next_fault = 0;
	while (text.size() < (20u << 20)) {
		n++;
		int r = static_cast<int>((n * 7) % 24);
		std::string p = std::to_string(r) + ": ";
		switch (n % 11) {
		case 0:
			text += "[2026-11-30 06:" + std::to_string(10 + n / 100000 % 50) + ":" + std::to_string(10 + n % 50) +
				"," + std::to_string(n % 1000) + "] " + p + "step " + std::to_string(n) + " | loss 2.31\n";
			break;
		case 1:
			text += p + "Epoch 0:  41%|#| 741/1000 [01:02<03:04, 1.82it/s][rank" + std::to_string(r) +
				"]:Traceback (most recent call last):\n";
			break;
		case 2:
			text += p + "\x1b[36m[train]\x1b[0m samples/s=254.9\r" + p + "tick\n";
			break;
		case 3:
			if (n % 5 == 0) {
				text += p + faults[next_fault++ % faults.size()];
				if (text.back() != '\n')
					text += '\n';
				break;
			}
			text += p + "step " + std::to_string(n) + " | loss 2.31 | lr 3.0e-04\n";
			break;
		case 4:
			if (n % 40000 == 4) {
				// Over-long: read in pieces under one line number.
				text += p + std::string(150000, 'x') + " torch.OutOfMemoryError: CUDA out of memory.\n\n";
				break;
			}
			text += p + "RuntimeError: will retry the shard\n";
			break;
		case 5:
			text += "[default" + std::to_string(r % 8) + "]:  rank      : " + std::to_string(r) +
				" (local_rank: " + std::to_string(r % 8) + ")\n[default" + std::to_string(r % 8) +
				"]:  exitcode  : 1 (pid: " + std::to_string(1000 + r) + ")\n";
			break;
		default:
			text += p + "step " + std::to_string(n) + " | loss 2.31 | lr 3.0e-04\n";
		}
	}
	text += "5: torch.OutOfMemoryError: CUDA out of memory. (the last line, without a newline)";
	// From a file (read in blocks, lines astride them) and from memory.
	char path[] = "/tmp/denpex-threads-XXXXXX";
	int wfd = mkstemp(path);
	ck_assert_int_ge(wfd, 0);
	ck_assert_int_eq(write(wfd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
	close(wfd);
	std::string want;
	for (const char *threads : {"1", "2", "3", "5", "1m", "3m"}) {
		int fd = threads[1] == 'm' ? -1 : open(path, O_RDONLY);
		line_reader lr = fd < 0 ? line_reader(text) : line_reader(fd);
		evidence ev;
		ck_assert(read_job_log(lr, rules, std::string(threads, 1).c_str(), ev));
		if (fd >= 0)
			close(fd);
		std::string got = evidence_dump(ev);
		if (want.empty()) {
			want = got;
			ck_assert_uint_gt(ev.events.size(), 100);
			continue;
		}
		ck_assert_msg(got == want, "DENPEX_THREADS=%s reads %zu bytes of evidence, one thread %zu", threads,
			      got.size(), want.size());
	}
	// With a head/tail cap too.
	std::string capped;
	for (const char *threads : {"1", "3"}) {
		int fd = open(path, O_RDONLY);
		line_reader lr(fd, 12u << 20);
		evidence ev;
		ck_assert(read_job_log(lr, rules, threads, ev));
		close(fd);
		ck_assert_uint_gt(ev.source(0).bytes_skipped, 1u << 20);
		std::string got = evidence_dump(ev);
		if (capped.empty())
			capped = got;
		else
			ck_assert_msg(got == capped, "capped: DENPEX_THREADS=%s reads %zu bytes of evidence, one thread %zu",
				      threads, got.size(), capped.size());
	}
	ck_assert(capped != want);
	unsetenv("DENPEX_THREADS");
	unlink(path);
}
END_TEST

// The evidence of text read from a file line by line, then event-first on
// one and on two scanning threads: all three must agree (writer keys count
// writers in the order a reading meets them: the events without theirs,
// the progress lines as a set). Returns the progress lines found.
static size_t event_first_as_line_by_line(const std::string &text, rule_set &rules, size_t min_events)
{
	char path[] = "/tmp/denpex-sparse-XXXXXX";
	int wfd = mkstemp(path);
	ck_assert_int_ge(wfd, 0);
	ck_assert_int_eq(write(wfd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
	close(wfd);
	std::string want;
	size_t progress = 0;
	for (const char *how : {"lines", "1", "2"}) {
		if (std::string(how) == "lines")
			setenv("DENPEX_EVENT_SCAN_MIN", "1000000000000", 1);
		else
			unsetenv("DENPEX_EVENT_SCAN_MIN");
		int fd = open(path, O_RDONLY);
		line_reader lr(fd);
		evidence ev;
		ck_assert(read_job_log(lr, rules, how[0] == 'l' ? "1" : how, ev));
		close(fd);
		for (auto &e : ev.events)
			e.key = 0;
		std::set<uint64_t> lasts;
		for (const auto &lp : ev.last_progress)
			lasts.insert(lp.second);
		ev.last_progress.clear();
		std::string got = evidence_dump(ev);
		for (uint64_t l : lasts)
			got += "progress " + std::to_string(l) + "\n";
		if (want.empty()) {
			want = got;
			progress = lasts.size();
			ck_assert_uint_gt(ev.events.size(), min_events);
			continue;
		}
		ck_assert_msg(got == want, "event-first (%s) reads %zu bytes of evidence, line by line %zu", how, got.size(),
			      want.size());
	}
	unsetenv("DENPEX_EVENT_SCAN_MIN");
	unsetenv("DENPEX_THREADS");
	unlink(path);
	return progress;
}

// Reading event-first (large files) gives what reading every line gives,
// where a time is rare: faults and progress between timed lines megabytes
// apart (their times are inherited across blocks the scan has no time in),
// clustered timed lines, untimed stretches at both ends, on one and on two
// scanning threads.
START_TEST(event_first_sparse_times_as_line_by_line)
{
	rule_set rules;
	load_shipped_rules(rules);
	std::string text;
	uint64_t n = 0;
	const char *faults[] = {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
				"NCCL WARN Cuda failure 'an illegal memory access was encountered'",
				"Traceback (most recent call last):", "RuntimeError: NCCL communicator was aborted",
				"Segmentation fault (core dumped)"};
	while (text.size() < (40u << 20)) {
		n++;
		int r = static_cast<int>((n * 5) % 16);
		std::string p = std::to_string(r) + ": ";
		// Timed lines: a few clusters, megabytes apart, of one writer (a
		// writer's own time is looked for only so far back: see
		// event_scan.hh's context_writer_bytes).
		if ((n > 200000 && n < 200004) || (n > 900000 && n % 50000 == 7) || n == 1500000)
			text += "0: 2026-01-03 15:47:" + std::to_string(10 + n % 50) + ",612 - INFO - iteration " +
				std::to_string(n) + "\n";
		else if (n % 37003 == 11)
			text += p + faults[(n / 37003) % 5] + "\n";
		else if (n % 7 == 3)
			text += p + "Epoch 0:  41%|#| 741/1000 [01:02<03:04, 1.82it/s]\n";
		else
			text += p + "step " + std::to_string(n) + " | loss 2.31 | lr 3.0e-04\n";
	}
	ck_assert_uint_eq(event_first_as_line_by_line(text, rules, 10), 16);
}
END_TEST

// Every SIMD level of the timed-line filter this CPU runs (AVX-512BW,
// AVX2, SSE2) finds the same first and last candidates as the byte-by-byte
// walk, over random text dense in what the masks test (digits, colons,
// brackets, blanks, dots, newlines, escapes, carriage returns, tabs) and
// random ranges, the ends of the buffer included (where loads would pass).
START_TEST(timed_filter_levels_as_scalar)
{
	using timed_filter::level;
	const level best = timed_filter::best();
	std::vector<level> levels;
	for (level l : {level::sse2, level::avx2, level::avx512, level::avx512vbmi})
		if (l <= best)
			levels.push_back(l);
	const char alphabet[] = "0123456789::[[  ..\n\n\x1b\r\tab]T-Z+\x7f\x8a\x9b\xa0\xae\xb0\xb9\xba\xdb";
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	auto next = [&seed] {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		return seed;
	};
	size_t compared = 0;
	for (int round = 0; round < 400; round++) {
		size_t n = 1 + next() % 700;
		std::vector<unsigned char> buf(n);
		// Stretches of plain letters between the dense ones, so that
		// whole chunks pass as well as chunks that stop.
		for (size_t i = 0; i < n; i++)
			buf[i] = (next() % 4 == 0) ? 'x' : static_cast<unsigned char>(alphabet[next() % (sizeof alphabet - 1)]);
		if (round % 3 == 0)
			for (size_t i = next() % n, e = std::min(n, i + next() % 300); i < e; i++)
				buf[i] = 'x';
		const unsigned char *p = buf.data();
		for (int k = 0; k < 20; k++) {
			size_t from = next() % (n + 1), to = next() % (n + 1);
			if (k == 0)
				from = 0, to = n;
			if (from > to)
				std::swap(from, to);
			size_t first = timed_filter::first_candidate(p, n, from, to, level::scalar);
			size_t last = timed_filter::last_candidate(p, n, from, to, level::scalar);
			for (level l : levels) {
				ck_assert_uint_eq(timed_filter::first_candidate(p, n, from, to, l), first);
				ck_assert_uint_eq(timed_filter::last_candidate(p, n, from, to, l), last);
				compared++;
			}
			// Walking on from each candidate, as the scan does.
			for (size_t q = first; q != SIZE_MAX && q + 1 < to;) {
				size_t nq = timed_filter::first_candidate(p, n, q + 1, to, level::scalar);
				for (level l : levels)
					ck_assert_uint_eq(timed_filter::first_candidate(p, n, q + 1, to, l), nq);
				q = nq;
			}
		}
	}
	// Without SSE2 there is nothing to compare: the walk is all there is.
	ck_assert(levels.empty() || compared > 0);
}
END_TEST

// Each shape of time the scan's byte filter (event_scan.cc, candidate_at and
// its SIMD masks) must let through, alone in megabytes of untimed lines
// that look like times to a loose filter (tqdm's "[01:02<", escapes after
// words, "[1]", "33: node063"): the faults between them inherit their times,
// so a timed line the filter missed would change the evidence.
START_TEST(event_first_time_shapes_as_line_by_line)
{
	rule_set rules;
	load_shipped_rules(rules);
	const char *shapes[] = {
		"[ 1234.567890] kernel: NVRM: fault",
		"[1234.567891] kernel: NVRM: fault",
		"[     5.100000] kernel: boot",
		"[12345678901.5] kernel: far from boot",
		"\x1b[32m2026-01-03 15:47:10,612 - INFO - coloured from the line start",
		"3: 2026-01-03 15:47\x1b[0m:14 an escape inside the time",
		"4: [\x1b[1m2026-01-03 15:47:15]\x1b[0m NCCL bracketed",
		"1767446764.756 epoch seconds",
		"1767446765 epoch seconds, no fraction",
		" 2026-01-03 15:47:16 after a blank",
		"step 5\r2026-01-03 15:47:17 after a carriage return",
		"step 6\r 2026-01-03 15:47:18 after a carriage return and a blank",
		"E1026 04:01:29.922296938 12345 glog.cc:1] glog",
		"[Mon Feb  2 22:52:45 2026] dmesg -T",
		"Feb  2 22:52:46 node1 kernel: syslog",
		"7:\t2026-01-03T15:47:19Z after a tab",
		"2026-01-03T15:47:20.5+01:00 iso with a zone",
	};
	const char *faults[] = {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
				"NCCL WARN Cuda failure 'an illegal memory access was encountered'",
				"RuntimeError: NCCL communicator was aborted", "Segmentation fault (core dumped)"};
	std::string text;
	uint64_t n = 0;
	const size_t nshapes = sizeof shapes / sizeof shapes[0];
	for (size_t k = 0; k <= nshapes; k++) {
		// Each shape starts a stretch of 600 kB with one fault in it; the
		// block boundaries of the scan fall anywhere in them.
		if (k < nshapes)
			text += std::string(shapes[k]) + "\n";
		size_t stretch_end = text.size() + 600 * 1000 + k * 7919;
		bool faulted = false;
		while (text.size() < stretch_end) {
			n++;
			std::string p = std::to_string(n % 16) + ": ";
			if (!faulted && text.size() + 300 * 1000 > stretch_end) {
				text += p + faults[k % 4] + "\n";
				faulted = true;
			} else if (n % 5 == 1)
				text += p + "Epoch 0:  41%|#| 741/1000 [01:02<03:04, 1.82it/s]\n";
			else if (n % 5 == 2)
				text += p + "\x1b[36m[train]\x1b[0m samples/s=848.3 mem=42.6GiB\n";
			else if (n % 5 == 3)
				text += p + "node063:1089586:1089586 [1] NCCL INFO cudaDriverVersion 12040\n";
			else if (n % 5 == 4)
				text += p + "Epoch 0:  41%|#| 742/1000 \r[01:02<03:04, 1.82it/s]\n";
			else
				text += p + "step " + std::to_string(n) + " | loss 2.31 | lr 3.0e-04\n";
		}
	}
	event_first_as_line_by_line(text, rules, nshapes);
}
END_TEST

// Per-rank files whose lines are chosen ahead on a pool of threads
// (reading/file_prefetch.hh) give the evidence the reader alone gives: the
// files are read in the walk's order whatever thread chose their lines.
START_TEST(files_chosen_ahead_change_nothing)
{
	char dir[] = "/tmp/denpex-ahead-XXXXXX";
	ck_assert(mkdtemp(dir) != nullptr);
	std::vector<std::string> paths;
	for (int r = 0; r < 9; r++) {
		std::string text;
		for (int n = 0; n < 3000; n++) {
			if (n % 500 == 7)
				text += "2026-01-03 15:47:" + std::to_string(10 + n / 100) + ",612 - INFO - rank " +
					std::to_string(r) + " iteration " + std::to_string(n) + "\n";
			else if (n % 3 == 0)
				text += "Epoch 0:  41%|#| " + std::to_string(n) + "/3000 [01:02<03:04, 1.82it/s]\n";
			else
				text += "step " + std::to_string(n) + " | loss 2.31 | lr 3.0e-04\n";
			if (r == 5 && n == 2500)
				text += "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
					"RuntimeError: CUDA error: an illegal memory access was encountered\n";
			if (r == 2 && n == 2900)
				text += "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
		}
		paths.push_back(std::string(dir) + "/rank-" + std::to_string(r) + ".out");
		FILE *f = fopen(paths.back().c_str(), "w");
		ck_assert(f != nullptr);
		ck_assert_uint_eq(fwrite(text.data(), 1, text.size(), f), text.size());
		fclose(f);
	}
	setenv("DENPEX_EVENT_SCAN_MIN", "0", 1); // every file event-first
	std::string want;
	for (const char *threads : {"1", "2", "4"}) {
		setenv("DENPEX_THREADS", threads, 1);
		pipeline_options po;
		po.conf_dir = TEST_CONFDIR;
		analysis an;
		std::string err;
		ck_assert_msg(an.init(po, err), "%s", err.c_str());
		an.add_path(dir);
		std::string got = evidence_dump(an.ev());
		for (const auto &e : an.ev().events)
			got += std::to_string(e.file) + " ";
		for (const auto &sf : an.ev().sources())
			got += "\n" + sf.path + " " + std::to_string(sf.bytes_read);
		if (want.empty()) {
			want = got;
			ck_assert_uint_ge(an.ev().events.size(), 2);
			continue;
		}
		ck_assert_msg(got == want, "chosen ahead on %s threads: %zu bytes of evidence, alone %zu", threads,
			      got.size(), want.size());
	}
	unsetenv("DENPEX_EVENT_SCAN_MIN");
	unsetenv("DENPEX_THREADS");
	for (const auto &p : paths)
		unlink(p.c_str());
	rmdir(dir);
}
END_TEST

// Where no thread can be started (a process limit), the reading goes on
// on this thread alone and gives the same evidence.
START_TEST(thread_limit_falls_back)
{
	rule_set rules;
	load_shipped_rules(rules);
	std::string text;
	for (uint64_t n = 1; text.size() < (10u << 20); n++) {
		text += std::to_string(n % 16) + ": step " + std::to_string(n) + " | loss 2.31\n";
		if (n == 90000)
			text += "3: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
	}
	auto read = [&](const char *threads) {
		line_reader lr(text);
		evidence ev;
		return read_job_log(lr, rules, threads, ev) ? evidence_dump(ev) : std::string();
	};
	std::string want = read("1");
	ck_assert(want.find("OutOfMemoryError") != std::string::npos);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		// Root is not held to RLIMIT_NPROC: become nobody first.
		if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		struct rlimit one = {1, 1};
		if (setrlimit(RLIMIT_NPROC, &one) != 0)
			_exit(4);
		// The limit holds: no thread can be started.
		try {
			std::thread t([] {});
			t.join();
			_exit(5);
		} catch (const std::system_error &) {
		}
		_exit(read("3") == want ? 0 : 1);
	}
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	unsetenv("DENPEX_THREADS");
}
END_TEST

// Each rank's last training step, where several ranks share one writer
// (no launcher prefix: the rank only in the text) and many lines go by.
START_TEST(progress_steps_per_rank_from_a_shared_writer)
{
	setenv("DENPEX_THREADS", "1", 1);
	rule_set rules;
	load_shipped_rules(rules);
	std::string text;
	for (int step = 100; step <= 140; step++)
		for (int r = 0; r < 6; r++)
			if (r != 4 || step < 140)
				text += "[rank " + std::to_string(r) + "] step " + std::to_string(step) +
					" | start forward | batch 32 | GPU " + std::to_string(r) + "\n";
	evidence ev;
	read_text(rules, text, "1", ev);
	std::map<int, long long> last;
	for (const auto &m : ev.rank_steps) {
		ck_assert(!m.is_task);
		last[m.id] = m.step;
	}
	ck_assert_uint_eq(last.size(), 6);
	for (int r = 0; r < 6; r++)
		ck_assert_int_eq(last[r], r == 4 ? 139 : 140);
}
END_TEST

START_TEST(slurm_nodelist_expands_in_order)
{
	using diag::expand_nodelist;
	std::vector<std::string> n = expand_nodelist("gpu[01-03,07],login1,dgx[9-10]-ib");
	std::vector<std::string> want = {"gpu01", "gpu02", "gpu03", "gpu07", "login1", "dgx9-ib", "dgx10-ib"};
	ck_assert(n == want);
	ck_assert_uint_eq(expand_nodelist("node17").size(), 1);
	// Not Slurm's shape, or too many names: nothing, never a guess.
	ck_assert(expand_nodelist("gpu[01-03").empty());
	ck_assert(expand_nodelist("gpu[3-1]").empty());
	ck_assert(expand_nodelist("gpu[a-b]").empty());
	ck_assert(expand_nodelist("gpu[0-99999]").empty());
	ck_assert(expand_nodelist("").empty());
}
END_TEST

static Suite *suite()
{
	Suite *s = suite_create("readers");
	TCase *t = tcase_create("core");
	tcase_add_test(t, reader_lines_and_last_line);
	tcase_add_test(t, reader_long_line_in_pieces);
	tcase_add_test(t, reader_head_and_tail_cap);
	tcase_add_test(t, reader_binary_detection);
	tcase_add_test(t, clean_ansi_and_progress_bars);
	tcase_add_test(t, prefix_styles);
	tcase_add_test(t, prefix_vllm_logger_level_time_source);
	tcase_add_test(t, prefix_syslog_host);
	tcase_add_test(t, prefix_horovodrun_tags_with_the_rank_alone);
	tcase_add_test(t, prefix_a_rank_label_leading_the_line);
	tcase_add_test(t, relayed_traceback_is_the_origins);
	tcase_add_test(t, traceback_through_comm_init_marks_its_exception_at_startup);
	tcase_add_test(t, handler_line_of_another_rank_does_not_catch_a_traceback);
	tcase_add_test(t, text_glued_after_a_bar_is_the_lines_writers);
	tcase_add_test(t, handler_lines_answer_the_fault_above_or_the_traceback_below);
	tcase_add_test(t, prefix_a_launchers_host_tag_in_brackets);
	tcase_add_test(t, prefix_pdsh_passes_nccls_own_prefix_through);
	tcase_add_test(t, prefix_pdsh_relayed_by_pdsh_names_the_inner_host);
	tcase_add_test(t, prefix_after_a_collectors_stamp);
	tcase_add_test(t, prefix_pdsh_host_before_any_text_but_not_a_counter);
	tcase_add_test(t, prefix_a_files_learned_pdsh_hosts_prefix_any_text);
	tcase_add_test(t, an_untimed_line_is_bounded_by_the_next_stamp_of_its_command_only);
	tcase_add_test(t, open_mpi_placement_reports_map_ranks_to_nodes);
	tcase_add_test(t, gzip_members_as_one_text);
	tcase_add_test(t, gzip_truncated_corrupt_and_capped);
	tcase_add_test(t, gzip_reader_that_stops_early);
	tcase_add_test(t, gzip_upload_is_read_as_text);
	tcase_add_test(t, sniff_kinds);
	tcase_add_test(t, hosts_from_paths);
	tcase_add_test(t, sacct_pipe_output);
	tcase_add_test(t, sge_durations_and_sizes);
	tcase_add_test(t, sacct_requeued_attempt_keeps_the_one_that_ended);
	tcase_add_test(t, sacct_under_its_command_line);
	tcase_add_test(t, sacct_elapsed_and_time_limit);
	tcase_add_test(t, sacct_default_table);
	tcase_add_test(t, sacct_json_output);
	tcase_add_test(t, bus_ids);
	tcase_add_test(t, large_log_in_line_order);
	tcase_add_test(t, nccl_error_message_lines_are_its_first_line_rank);
	tcase_add_test(t, nccl_error_message_under_a_headed_traceback_is_the_headers_rank);
	tcase_add_test(t, dmesg_t_driver_name_is_no_host);
	tcase_add_test(t, engine_rank_tag_is_not_the_jobs_behind_a_ray_actor);
	tcase_add_test(t, progress_steps_per_rank_from_a_shared_writer);
	tcase_add_test(t, event_first_sparse_times_as_line_by_line);
	tcase_add_test(t, event_first_time_shapes_as_line_by_line);
	tcase_add_test(t, timed_filter_levels_as_scalar);
	tcase_add_test(t, threads_change_nothing);
	tcase_add_test(t, thread_limit_falls_back);
	tcase_add_test(t, files_chosen_ahead_change_nothing);
	tcase_add_test(t, slurm_nodelist_expands_in_order);
	tcase_add_test(t, a_time_of_day_alone_takes_its_files_date);
	tcase_add_test(t, times_of_day_above_the_first_dated_stamp_take_its_date);
	suite_add_tcase(s, t);
	return s;
}

int main() { return diag_ck_run(suite()); }
