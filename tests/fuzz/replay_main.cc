// main() for a fuzz target built without libFuzzer: feeds every file named
// on the command line (directories are walked, in name order) to
// LLVMFuzzerTestOneInput once. A crash, a sanitizer report or an abort is
// the failure; options in libFuzzer's "-name=value" form are ignored, so
// the same command line works with either main.
#include "fuzz_target.hh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

namespace {

void collect(const std::string &path, std::vector<std::string> &out)
{
	struct stat st;
	if (stat(path.c_str(), &st) != 0) {
		fprintf(stderr, "replay: %s: not found\n", path.c_str());
		exit(1);
	}
	if (!S_ISDIR(st.st_mode)) {
		out.push_back(path);
		return;
	}
	DIR *d = opendir(path.c_str());
	if (!d)
		return;
	std::vector<std::string> names;
	while (struct dirent *e = readdir(d))
		if (e->d_name[0] != '.')
			names.push_back(e->d_name);
	closedir(d);
	std::sort(names.begin(), names.end());
	for (const std::string &n : names)
		collect(path + "/" + n, out);
}

bool read_all(const std::string &path, std::vector<uint8_t> &out)
{
	FILE *f = fopen(path.c_str(), "rb");
	if (!f)
		return false;
	out.clear();
	uint8_t buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		out.insert(out.end(), buf, buf + n);
	bool ok = !ferror(f);
	fclose(f);
	return ok;
}

} // namespace

int main(int argc, char **argv)
{
	std::vector<std::string> files;
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-')
			collect(argv[i], files);
	std::vector<uint8_t> data;
	for (const std::string &f : files) {
		if (!read_all(f, data)) {
			fprintf(stderr, "replay: %s: cannot read\n", f.c_str());
			return 1;
		}
		// A copy of exactly the file's size, so that ASan sees a read past it.
		std::vector<uint8_t> exact(data);
		LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
	}
	printf("replay: %zu inputs, no crash\n", files.size());
	return 0;
}
