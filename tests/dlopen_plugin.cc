// dlopen_plugin.cc - the built spank_denpex.so loads with RTLD_NOW next to
// the SPANK stub (as slurmstepd would load it: every undefined symbol must be
// one Slurm provides), carries the symbols Slurm's plugin loader looks up,
// and exports nothing else (after SSSD's dlopen-tests.c).
//
// Usage: dlopen_plugin [PATH]; default $top_builddir/spank/.libs/spank_denpex.so.
// This binary is linked with tests/spank_stub.c and -export-dynamic, so the
// stub's spank_* and slurm_* functions resolve the plugin's references.
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include <slurm/spank.h>
spank_t stub_spank(void);
void stub_reset(void);
void stub_set_context(spank_context_t ctx);
const char *stub_log(void);
}

namespace {

int failures = 0;

void check(bool ok, const std::string &what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
	if (!ok)
		failures++;
}

bool allowed(const std::string &name)
{
	static const char *const exact[] = {"plugin_name", "plugin_type", "plugin_version", "spank_plugin_version",
					    "spank_options"};
	for (const char *e : exact)
		if (name == e)
			return true;
	return name.rfind("slurm_spank_", 0) == 0;
}

// Names of the defined global/weak symbols in the ELF64 file's .dynsym.
bool exported_symbols(const std::string &path, std::vector<std::string> *out)
{
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	std::vector<unsigned char> buf;
	unsigned char chunk[65536];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf.insert(buf.end(), chunk, chunk + n);
	close(fd);
	if (buf.size() < sizeof(Elf64_Ehdr) || memcmp(buf.data(), ELFMAG, SELFMAG) != 0 ||
	    buf[EI_CLASS] != ELFCLASS64)
		return false;
	const Elf64_Ehdr *eh = reinterpret_cast<const Elf64_Ehdr *>(buf.data());
	if (eh->e_shoff == 0 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > buf.size())
		return false;
	const Elf64_Shdr *sh = reinterpret_cast<const Elf64_Shdr *>(buf.data() + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		const Elf64_Shdr &strtab = sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > buf.size() || strtab.sh_offset + strtab.sh_size > buf.size())
			return false;
		const Elf64_Sym *sym = reinterpret_cast<const Elf64_Sym *>(buf.data() + sh[i].sh_offset);
		size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
		for (size_t k = 0; k < count; k++) {
			int bind = ELF64_ST_BIND(sym[k].st_info);
			if (sym[k].st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK &&
							     bind != STB_GNU_UNIQUE))
				continue;
			if (sym[k].st_name >= strtab.sh_size)
				return false;
			out->push_back(reinterpret_cast<const char *>(buf.data() + strtab.sh_offset + sym[k].st_name));
		}
		return true;
	}
	return false;
}

} // namespace

int main(int argc, char **argv)
{
	std::string path;
	if (argc > 1) {
		path = argv[1];
	} else {
		const char *top = getenv("top_builddir");
		path = std::string(top ? top : ".") + "/spank/.libs/spank_denpex.so";
	}
	printf("plugin: %s\n", path.c_str());

	void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
	check(h != nullptr, std::string("dlopen RTLD_NOW: ") + (h ? "loaded" : dlerror()));
	if (h == nullptr) {
		printf("1 failed\n");
		return 1;
	}
	const char *name = static_cast<const char *>(dlsym(h, "plugin_name"));
	const char *type = static_cast<const char *>(dlsym(h, "plugin_type"));
	const unsigned *version = static_cast<const unsigned *>(dlsym(h, "plugin_version"));
	const unsigned *spank_version = static_cast<const unsigned *>(dlsym(h, "spank_plugin_version"));
	check(name && strcmp(name, "denpex") == 0, "plugin_name is \"denpex\"");
	check(type && strcmp(type, "spank") == 0, "plugin_type is \"spank\"");
	check(version && *version == SLURM_VERSION_NUMBER, "plugin_version is SLURM_VERSION_NUMBER");
	check(spank_version && *spank_version == 1, "spank_plugin_version is 1");
	for (const char *cb : {"slurm_spank_init", "slurm_spank_init_post_opt", "slurm_spank_task_init",
			       "slurm_spank_task_exit", "slurm_spank_exit"})
		check(dlsym(h, cb) != nullptr, std::string(cb) + " is exported unmangled");

	std::vector<std::string> syms;
	check(exported_symbols(path, &syms), "read .dynsym");
	std::string extra;
	for (const std::string &s : syms)
		if (!allowed(s))
			extra += " " + s;
	check(extra.empty(), "exports only plugin_* and slurm_spank_*" + (extra.empty() ? "" : ": also" + extra));
	check(syms.size() >= 9, "exports " + std::to_string(syms.size()) + " symbols");

	// Call through the loaded plugin: a bad plugstack argument is reported,
	// not thrown, and the callback still returns 0.
	typedef int (*spank_cb)(spank_t, int, char **);
	spank_cb init = reinterpret_cast<spank_cb>(dlsym(h, "slurm_spank_init"));
	if (init != nullptr) {
		stub_reset();
		stub_set_context(S_CTX_LOCAL);
		char arg[] = "bogus=1";
		char *av[] = {arg, nullptr};
		check(init(stub_spank(), 1, av) == 0, "slurm_spank_init with a bad argument returns 0");
		check(strstr(stub_log(), "bad argument 'bogus=1'") != nullptr, "and reports it through slurm_error");
	}
	dlclose(h);
	printf("%d failed\n", failures);
	return failures == 0 ? 0 : 1;
}
