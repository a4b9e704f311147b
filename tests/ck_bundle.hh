// A job's files written to a temporary directory and judged by the library
// with the shipped signatures: the setup most end-to-end Check tests share.
#pragma once

#include "ck_cxx.hh"
#include "pipeline.hh"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>

struct ck_bundle {
	std::string dir;
	explicit ck_bundle(const char *prefix = "denpex-ck")
	{
		std::string tmpl = std::string("/tmp/") + prefix + "-XXXXXX";
		ck_assert_ptr_nonnull(mkdtemp(&tmpl[0]));
		dir = tmpl;
	}
	~ck_bundle()
	{
		std::string cmd = "rm -rf '" + dir + "'";
		(void)!system(cmd.c_str());
	}
	ck_bundle(const ck_bundle &) = delete;
	ck_bundle &operator=(const ck_bundle &) = delete;

	void subdir(const std::string &name) { ck_assert_int_eq(mkdir((dir + "/" + name).c_str(), 0700), 0); }
	void file(const std::string &name, const std::string &text) const
	{
		FILE *f = fopen((dir + "/" + name).c_str(), "w");
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(fwrite(text.data(), 1, text.size(), f), text.size());
		ck_assert_int_eq(fclose(f), 0);
	}
};

// An analysis with the signatures under test (TEST_CONFDIR); a load error
// fails the test with its message.
inline void ck_init_analysis(diag::analysis &an, diag::pipeline_options po = {})
{
	po.conf_dir = TEST_CONFDIR;
	std::string err;
	ck_assert_msg(an.init(po, err), "%s", err.c_str());
}

// A verdict's class and first rank, asserted where the test states them.
#define DIAG_CK_VERDICT(v, cls_name, rank)                                     \
	do {                                                                   \
		DIAG_CK_STR_EQ(std::string(class_name((v).cls)), cls_name);    \
		ck_assert_int_eq((v).first_rank, rank);                        \
	} while (0)
