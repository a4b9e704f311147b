// Fuzz target: the plugin's plugstack.conf arguments. The input is split
// at blanks into arguments as Slurm splits the line (duplicated, empty and
// enormous ones included), parsed, and the accepted configuration turned
// into the task environment plan.
#include "fuzz_target.hh"

#include "spank_denpex.hh"

#include <cstdlib>
#include <string>
#include <vector>

extern "C" void stub_reset(void);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string_view text = fuzz_bytes(data, size);
	std::vector<std::string> args;
	size_t i = 0;
	while (i < text.size()) {
		while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n'))
			i++;
		size_t b = i;
		while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n')
			i++;
		if (i > b)
			args.emplace_back(text.substr(b, i - b));
	}
	std::vector<char *> av;
	for (std::string &a : args)
		av.push_back(a.data());
	av.push_back(nullptr);
	stub_reset();
	denpex::plugin_config cfg;
	int rc = denpex::config_parse(&cfg, static_cast<int>(args.size()), av.data());
	if (rc != 0)
		return 0;
	denpex::task_ids ids;
	ids.ti_job = 4242;
	ids.ti_step = 0;
	ids.ti_task = 3;
	ids.ti_node = "node01";
	ids.ti_job_dir = std::string(cfg.pc_spool) + "/4242";
	(void)denpex::task_env_plan(cfg, ids);
	return 0;
}
