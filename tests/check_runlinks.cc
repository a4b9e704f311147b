// Ray and W&B sources: what file names give (worker pid and job, run id,
// offline), the W&B JSON files read with jansson (Python's bare NaN and
// Infinity included), and the verdict's links field.
#include "ck_cxx.hh"
#include "reading/ray_session.hh"
#include "reading/wandb_run.hh"
#include "rendering/verdict.hh"

#include <jansson.h>

#include <string>

using namespace diag;

START_TEST(ray_worker_file_names)
{
	int pid;
	std::string job;
	ck_assert(ray_file_hint("s/logs/worker-3b7e0c9d41f2a6581c0e77d2b94f1a3c5e8d6b20f4a19c7e3d5b8a26-02000000-4101.err", pid, job));
	ck_assert_int_eq(pid, 4101);
	DIAG_CK_STR_EQ(job, "02000000");
	ck_assert(ray_file_hint("python-core-worker-a4c2e6f8091b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c_2877.log", pid, job));
	ck_assert_int_eq(pid, 2877);
	ck_assert(!ray_file_hint("logs/raylet.out", pid, job));
	ck_assert(!ray_file_hint("worker-notes.out", pid, job));
	ck_assert(!ray_file_hint("worker-abc-def-12x4.out", pid, job));
	ck_assert(!ray_file_hint("python-core-worker-abc_4101.txt", pid, job));
}
END_TEST

START_TEST(wandb_run_directory_names)
{
	std::string dir, id;
	bool offline = true;
	ck_assert(wandb_run_from_path("/u/x/wandb/run-20261025_093012-1a2b3c4d/files/output.log", dir, id, offline));
	DIAG_CK_STR_EQ(dir, "/u/x/wandb/run-20261025_093012-1a2b3c4d");
	DIAG_CK_STR_EQ(id, "1a2b3c4d");
	ck_assert(!offline);
	ck_assert(wandb_run_from_path("wandb/offline-run-20261025_093012-8k2j4h1q/logs/debug.log", dir, id, offline));
	DIAG_CK_STR_EQ(id, "8k2j4h1q");
	ck_assert(offline);
	ck_assert(!wandb_run_from_path("wandb/latest-run/files/output.log", dir, id, offline));
	ck_assert(!wandb_run_from_path("runs/run-2026_093012-abc/output.log", dir, id, offline));
}
END_TEST

START_TEST(walks_read_only_the_logs)
{
	ck_assert(ray_walk_skips("b/session_2026-10-20_09-12-19_118734_2003/runtime_resources"));
	ck_assert(ray_walk_skips("b/session_latest/sockets/raylet"));
	ck_assert(!ray_walk_skips("b/session_latest/logs"));
	ck_assert(!ray_walk_skips("b/session_latest/logs/raylet.out"));
	ck_assert(!ray_walk_skips("b/session_latest"));
	ck_assert(ray_walk_skips("ray_results/exp/trial_0/error.pkl"));
	ck_assert(!ray_walk_skips("ray_results/exp/trial_0/error.txt"));
	ck_assert(!ray_walk_skips("my_session_notes/run.log"));
	const std::string run = "w/wandb/run-20261028_120000-1a2b3c4d";
	ck_assert(!wandb_walk_skips(run));
	ck_assert(!wandb_walk_skips(run + "/files"));
	ck_assert(!wandb_walk_skips(run + "/files/output.log"));
	ck_assert(!wandb_walk_skips(run + "/files/wandb-summary.json"));
	ck_assert(!wandb_walk_skips(run + "/logs/debug-internal.log"));
	ck_assert(wandb_walk_skips(run + "/files/code/train.py"));
	ck_assert(wandb_walk_skips(run + "/files/requirements.txt"));
	ck_assert(wandb_walk_skips(run + "/run-1a2b3c4d.wandb"));
	ck_assert(!wandb_walk_skips("w/wandb/latest-run/files/code/train.py"));
}
END_TEST

namespace {

uint32_t add(evidence &ev, const std::string &path)
{
	source_file sf;
	sf.path = path;
	return ev.add_source(sf);
}

} // namespace

START_TEST(wandb_summary_nonfinite_is_evidence)
{
	evidence ev;
	uint32_t f = add(ev, "wandb/run-20261025_093012-1a2b3c4d/files/wandb-summary.json");
	// A string that says NaN is not a NaN; nested metrics are looked into.
	std::string text = "{\"note\": \"NaN guard on\", \"train\": {\"loss\": NaN, \"ppl\": 12.5}, \"grad_norm\": -Infinity, "
			   "\"_step\": 4120, \"_timestamp\": 1792910467.2, \"_runtime\": 100}";
	ck_assert(read_wandb_json(text, f, ev));
	ck_assert_uint_eq(ev.events.size(), 1);
	const event &e = ev.events[0];
	ck_assert(e.cls == failure_class::nan_inf);
	DIAG_CK_STR_EQ(e.capture("step"), "4120");
	DIAG_CK_STR_EQ(e.capture("metric"), "train/loss");
	ck_assert(e.text.find("grad_norm = -Infinity") != std::string::npos);
	ck_assert(e.text.find("note") == std::string::npos);
	ck_assert(e.ts.kind == ts_kind::absolute);
}
END_TEST

START_TEST(wandb_summary_finite_says_nothing)
{
	evidence ev;
	uint32_t f = add(ev, "wandb/run-20261025_093012-1a2b3c4d/files/wandb-summary.json");
	ck_assert(read_wandb_json("{\"loss\": 2.31, \"tag\": \"Infinity\", \"_step\": 9, \"_wandb\": {\"runtime\": 3}}", f, ev));
	ck_assert_uint_eq(ev.events.size(), 0);
	// Not a W&B file: left to the other readers.
	ck_assert(!read_wandb_json("{\"loss\": 2.31}", f, ev));
	ck_assert(!read_wandb_json("{\"loss\": NaN", f, ev));
}
END_TEST

START_TEST(wandb_metadata_gives_the_machine)
{
	evidence ev;
	uint32_t f = add(ev, "w/wandb/run-20261025_093012-1a2b3c4d/files/wandb-metadata.json");
	ck_assert(read_wandb_json("{\"os\": \"Linux\", \"python\": \"3.11.9\", \"startedAt\": \"2026-10-25T09:30:12.1\", "
				  "\"program\": \"train.py\", \"host\": \"gpu-a03\"}",
				  f, ev));
	ck_assert_uint_eq(ev.links.wandb_dirs.size(), 1);
	DIAG_CK_STR_EQ(ev.links.wandb_dirs[0].host, "gpu-a03");
	DIAG_CK_STR_EQ(ev.links.wandb_dirs[0].dir, "w/wandb/run-20261025_093012-1a2b3c4d");
	// Its process's lines that name no host and no rank get the machine.
	uint32_t out = add(ev, "w/wandb/run-20261025_093012-1a2b3c4d/files/output.log");
	event mine, other;
	mine.file = other.file = out;
	mine.rule_id = other.rule_id = "t";
	other.rank = 6;
	ev.add(std::move(mine));
	ev.add(std::move(other));
	settle_wandb(ev);
	ck_assert_int_ge(ev.events[0].host, 0);
	DIAG_CK_STR_EQ(ev.host_name(ev.events[0].host), "gpu-a03");
	ck_assert_int_eq(ev.events[1].host, -1);
}
END_TEST

START_TEST(wandb_link_composes_the_url)
{
	evidence ev;
	uint32_t f = add(ev, "job.out");
	event e1, e2;
	e1.file = e2.file = f;
	e1.rule_id = e2.rule_id = "t";
	e1.captures = {{"wandb_base_api", "https://api.wandb.ai"}};
	e2.captures = {{"wandb_entity", "team-a"}, {"wandb_project", "llm"}, {"wandb_run", "1a2b3c4d"}};
	ev.add(std::move(e1));
	ev.add(std::move(e2));
	link_wandb(ev, -1);
	DIAG_CK_STR_EQ(ev.links.wandb.url, "https://wandb.ai/team-a/llm/runs/1a2b3c4d");
	DIAG_CK_STR_EQ(ev.links.wandb.run_id, "1a2b3c4d");
}
END_TEST

// A Ray core actor with max_restarts: each restart runs in a new worker
// process under the same actor id; the first failure's process is the
// verdict's, the others are retries.
START_TEST(ray_actor_restarts_are_retries)
{
	rule report, cuda;
	report.id = "ray.x";
	report.family = "ray";
	report.role = event_role::victim;
	cuda.id = "cuda.x";
	cuda.family = "cuda";
	cuda.role = event_role::initiating;
	cuda.cls = failure_class::cuda_error;
	for (int same : {1, 0}) {
		evidence ev;
		uint32_t f = add(ev, "driver.log");
		const int pids[] = {4101, 4188, 4263};
		for (int k = 0; k < 3; k++) {
			event w;
			w.r = &report;
			w.role = report.role;
			w.file = f;
			w.line = 10 + 10 * k;
			w.pid = pids[k];
			w.captures = {{"actor_id", "8d1c2f9a7b3e4c5d6e7f809102000000"}, {"task", "Trainer.step"}};
			ev.add(std::move(w));
			event c;
			c.r = &cuda;
			c.role = cuda.role;
			c.cls = same || k == 0 ? failure_class::cuda_error : failure_class::host_oom;
			c.file = f;
			c.line = 11 + 10 * k;
			c.pid = pids[k];
			ev.add(std::move(c));
		}
		settle_ray(ev, 1, failure_class::cuda_error);
		DIAG_CK_STR_EQ(ev.links.ray.actor_id, "8d1c2f9a7b3e4c5d6e7f809102000000");
		ck_assert_int_eq(ev.links.ray.retries, 2);
		ck_assert_int_eq(ev.links.ray.same_failure, same);
	}
	// No Ray line at all: nothing to link.
	evidence none;
	uint32_t f = add(none, "job.out");
	event c;
	c.r = &cuda;
	c.file = f;
	c.pid = 7;
	none.add(std::move(c));
	settle_ray(none, 0, failure_class::cuda_error);
	ck_assert(!none.links.ray.present());
}
END_TEST

START_TEST(links_in_json_only_when_known)
{
	verdict v;
	std::string bare = verdict_to_json(v, false);
	ck_assert(bare.find("\"links\"") == std::string::npos);
	v.link_wandb.run_id = "1a2b3c4d";
	v.link_wandb.entity = "team-a";
	v.link_ray.actor_id = "8d1c";
	v.link_ray.retries = 2;
	v.link_ray.same_failure = 1;
	json_error_t err;
	json_t *root = json_loads(verdict_to_json(v, false).c_str(), 0, &err);
	ck_assert_ptr_nonnull(root);
	json_t *links = json_object_get(root, "links");
	ck_assert(json_is_object(links));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(links, "wandb"), "run_id")), "1a2b3c4d");
	ck_assert(json_is_null(json_object_get(json_object_get(links, "wandb"), "url")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(links, "ray"), "retries")), 2);
	ck_assert(json_is_true(json_object_get(json_object_get(links, "ray"), "same_failure")));
	json_decref(root);
	std::string text = verdict_to_text(v);
	ck_assert(text.find("W&B run: team-a/?/1a2b3c4d") != std::string::npos);
	ck_assert(text.find("2 retries (the later attempts failed the same way)") != std::string::npos);
}
END_TEST

int main()
{
	Suite *s = suite_create("runlinks");
	TCase *t = tcase_create("core");
	tcase_add_test(t, ray_worker_file_names);
	tcase_add_test(t, wandb_run_directory_names);
	tcase_add_test(t, walks_read_only_the_logs);
	tcase_add_test(t, wandb_summary_nonfinite_is_evidence);
	tcase_add_test(t, wandb_summary_finite_says_nothing);
	tcase_add_test(t, wandb_metadata_gives_the_machine);
	tcase_add_test(t, wandb_link_composes_the_url);
	tcase_add_test(t, ray_actor_restarts_are_retries);
	tcase_add_test(t, links_in_json_only_when_known);
	suite_add_tcase(s, t);
	return diag_ck_run(s);
}
