// Fuzz target: the knowledge tables' loader (conf/xid.yaml,
// conf/actions.yaml, conf/zones.yaml). The loader reads a configuration
// directory, so each input is written to a private temporary one as one
// table, the first byte choosing which (the others are the tree's own),
// and then looked up.
#include "fuzz_target.hh"

#include "deciding/knowledge.hh"

#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

using namespace diag;

namespace {

bool put(const std::string &path, std::string_view bytes)
{
	FILE *f = fopen(path.c_str(), "wb");
	if (!f)
		return false;
	bool ok = fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
	return fclose(f) == 0 && ok;
}

std::string slurp(const std::string &path)
{
	std::string out;
	FILE *f = fopen(path.c_str(), "rb");
	if (!f)
		abort();
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		out.append(buf, n);
	fclose(f);
	return out;
}

struct scratch {
	std::string dir, xid, actions, zones;
	scratch()
	{
		const char *tmp = getenv("TMPDIR");
		std::string tpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/denpex-fuzz-XXXXXX";
		if (!mkdtemp(tpl.data()))
			abort();
		dir = tpl;
		xid = slurp(TEST_CONFDIR "/xid.yaml");
		actions = slurp(TEST_CONFDIR "/actions.yaml");
		zones = slurp(TEST_CONFDIR "/zones.yaml");
		atexit(cleanup);
	}
	static void cleanup();
};

// Never destroyed: cleanup() runs at exit, after static destructors.
scratch &the_scratch()
{
	static scratch *s = new scratch;
	return *s;
}

void scratch::cleanup()
{
	const std::string &d = the_scratch().dir;
	unlink((d + "/xid.yaml").c_str());
	unlink((d + "/actions.yaml").c_str());
	unlink((d + "/zones.yaml").c_str());
	rmdir(d.c_str());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	scratch &s = the_scratch();
	std::string_view bytes = fuzz_bytes(data, size);
	int which = size == 0 ? 0 : data[0] % 3;
	if (!put(s.dir + "/xid.yaml", which == 0 ? bytes : s.xid) ||
	    !put(s.dir + "/actions.yaml", which == 1 ? bytes : s.actions) ||
	    !put(s.dir + "/zones.yaml", which == 2 ? bytes : s.zones))
		abort();
	knowledge kn;
	std::string err;
	if (!kn.load(s.dir, err))
		return 0;
	for (int x : {0, 13, 31, 43, 48, 63, 64, 74, 79, 94, 95, 119, 154, -1, 1 << 30})
		(void)kn.xid(x);
	for (int c = 0; c < 16; c++)
		(void)kn.recovery_action(c);
	for (int c = 0; c < failure_class_count; c++)
		(void)kn.action_for(static_cast<failure_class>(c));
	for (const char *z : {"JST", "CST", "UTC", ""})
		(void)kn.zones().count(z);
	return 0;
}
