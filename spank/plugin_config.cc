// plugin_config.cc - plugstack.conf arguments of spank_denpex.so.
//
//   optional /usr/lib/x86_64-linux-gnu/slurm/spank_denpex.so spool=/var/spool/denpex nccl_debug=INFO
//
// Defaults first, then strict key=value: an unknown key, a missing '=' or a
// bad value is logged with slurm_error naming it, and config_parse returns -1.
// Every context re-parses (they are separate processes).
#include "spank_denpex.hh"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace denpex {

namespace {

plugin_config g_config;
int g_config_status = 0;

bool copy_value(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);
	if (n >= size)
		return false;
	memcpy(dst, src, n + 1);
	return true;
}

// Upper-case letters, digits, '_' and ',' with an optional leading '^'
// (NCCL's "all but" syntax), as NCCL_DEBUG_SUBSYS and the timestamp levels take.
bool valid_list(const char *s)
{
	if (*s == '^')
		s++;
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!(isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_' || *s == ','))
			return false;
	return true;
}

void upcase(char *s)
{
	for (; *s; s++)
		*s = (char)toupper((unsigned char)*s);
}

int bad(const char *arg, const char *why)
{
	slurm_error("denpex: plugstack.conf: bad argument '%s': %s", shown_value(arg).c_str(), why);
	return -1;
}

int parse_flag(const char *arg, const char *value, int *out)
{
	int v = parse_onoff(value);
	if (v < 0)
		return bad(arg, "expected on or off");
	*out = v;
	return 0;
}

} // namespace

std::string shown_value(const char *v)
{
	if (v == nullptr)
		return "";
	static const char hex[] = "0123456789abcdef";
	std::string o;
	size_t n = strlen(v);
	for (size_t i = 0; i < n && i < 64; i++) {
		unsigned char c = static_cast<unsigned char>(v[i]);
		if (c < 0x20 || c > 0x7e) {
			o += "\\x";
			o += hex[c >> 4];
			o += hex[c & 15];
		} else {
			o += static_cast<char>(c);
		}
	}
	if (n > 64)
		o += "...(" + std::to_string(n) + " bytes)";
	return o;
}

int parse_onoff(const char *s)
{
	if (s == nullptr)
		return -1;
	static const char *const on[] = {"on", "yes", "true", "1"};
	static const char *const off[] = {"off", "no", "false", "0"};
	for (const char *w : on)
		if (strcasecmp(s, w) == 0)
			return 1;
	for (const char *w : off)
		if (strcasecmp(s, w) == 0)
			return 0;
	return -1;
}

void config_defaults(plugin_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	copy_value(cfg->pc_spool, sizeof(cfg->pc_spool), DENPEX_DEFAULT_SPOOL);
	copy_value(cfg->pc_nccl_debug, sizeof(cfg->pc_nccl_debug), "INFO");
	copy_value(cfg->pc_nccl_debug_subsys, sizeof(cfg->pc_nccl_debug_subsys), "INIT,BOOTSTRAP,ENV,NET");
	copy_value(cfg->pc_timestamp_levels, sizeof(cfg->pc_timestamp_levels), "ALL");
	cfg->pc_trace_buffer = 20000;
	cfg->pc_default_on = 1;
	cfg->pc_timestamps = 1;
	cfg->pc_dump_on_timeout = 1;
	cfg->pc_dump_pipe = 1;
	cfg->pc_error_file = 1;
	cfg->pc_rank_map = 1;
	cfg->pc_task_exit = 1;
}

int config_parse(plugin_config *cfg, int ac, char **av)
{
	config_defaults(cfg);
	for (int i = 0; i < ac; i++) {
		const char *arg = av[i];
		if (arg == nullptr)
			continue;
		const char *eq = strchr(arg, '=');
		if (eq == nullptr || eq == arg)
			return bad(arg, "expected key=value");
		std::string key(arg, (size_t)(eq - arg));
		const char *value = eq + 1;

		if (key == "spool") {
			if (value[0] != '/')
				return bad(arg, "spool must be an absolute path");
			if (strstr(value, "/../") != nullptr || strstr(value, "/./") != nullptr ||
			    (strlen(value) >= 3 && strcmp(value + strlen(value) - 3, "/..") == 0))
				return bad(arg, "spool must not contain . or .. components");
			for (const char *p = value; *p; p++)
				if (!isprint((unsigned char)*p) || *p == '%')
					return bad(arg, "spool may not contain '%' or control characters");
			if (!copy_value(cfg->pc_spool, sizeof(cfg->pc_spool) - 64, value))
				return bad(arg, "spool path too long");
			// Trailing slashes make the job dir path ugly; drop them.
			size_t n = strlen(cfg->pc_spool);
			while (n > 1 && cfg->pc_spool[n - 1] == '/')
				cfg->pc_spool[--n] = '\0';
		} else if (key == "nccl_debug") {
			char v[sizeof(cfg->pc_nccl_debug)];
			if (!copy_value(v, sizeof(v), value))
				return bad(arg, "expected VERSION, WARN, INFO, ABORT, TRACE or none");
			upcase(v);
			if (strcmp(v, "NONE") == 0)
				v[0] = '\0';
			else if (strcmp(v, "VERSION") != 0 && strcmp(v, "WARN") != 0 && strcmp(v, "INFO") != 0 &&
				 strcmp(v, "ABORT") != 0 && strcmp(v, "TRACE") != 0)
				return bad(arg, "expected VERSION, WARN, INFO, ABORT, TRACE or none");
			copy_value(cfg->pc_nccl_debug, sizeof(cfg->pc_nccl_debug), v);
		} else if (key == "nccl_debug_subsys" || key == "timestamp_levels") {
			char *dst = key == "nccl_debug_subsys" ? cfg->pc_nccl_debug_subsys : cfg->pc_timestamp_levels;
			size_t size = key == "nccl_debug_subsys" ? sizeof(cfg->pc_nccl_debug_subsys)
								 : sizeof(cfg->pc_timestamp_levels);
			char v[sizeof(cfg->pc_nccl_debug_subsys)];
			if (!copy_value(v, size, value))
				return bad(arg, "value too long");
			upcase(v);
			if (strcmp(v, "NONE") == 0)
				v[0] = '\0';
			else if (!valid_list(v))
				return bad(arg, "expected a comma-separated list of NCCL names (A-Z, 0-9, _), or none");
			copy_value(dst, size, v);
		} else if (key == "trace_buffer") {
			if (value[0] == '\0' || !isdigit((unsigned char)value[0]))
				return bad(arg, "expected a number of entries (0 disables the flight recorder settings)");
			errno = 0;
			char *end = nullptr;
			long n = strtol(value, &end, 10);
			if (errno != 0 || end == value || *end != '\0' || n < 0 || n > 10000000)
				return bad(arg, "expected a number of entries from 0 to 10000000");
			cfg->pc_trace_buffer = n;
		} else if (key == "default") {
			if (parse_flag(arg, value, &cfg->pc_default_on) < 0)
				return -1;
		} else if (key == "timestamps") {
			if (parse_flag(arg, value, &cfg->pc_timestamps) < 0)
				return -1;
		} else if (key == "dump_on_timeout") {
			if (parse_flag(arg, value, &cfg->pc_dump_on_timeout) < 0)
				return -1;
		} else if (key == "dump_pipe") {
			if (parse_flag(arg, value, &cfg->pc_dump_pipe) < 0)
				return -1;
		} else if (key == "error_file") {
			if (parse_flag(arg, value, &cfg->pc_error_file) < 0)
				return -1;
		} else if (key == "rank_map") {
			if (parse_flag(arg, value, &cfg->pc_rank_map) < 0)
				return -1;
		} else if (key == "task_exit") {
			if (parse_flag(arg, value, &cfg->pc_task_exit) < 0)
				return -1;
		} else {
			return bad(arg, "unknown key (known: spool, default, nccl_debug, nccl_debug_subsys, "
					"timestamps, timestamp_levels, trace_buffer, dump_on_timeout, dump_pipe, "
					"error_file, rank_map, task_exit)");
		}
	}
	return 0;
}

plugin_config *config_get()
{
	return &g_config;
}

int config_status()
{
	return g_config_status;
}

void config_set_status(int rv)
{
	g_config_status = rv;
}

} // namespace denpex
