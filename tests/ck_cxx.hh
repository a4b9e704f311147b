// Helpers for Check suites written in C++: an escaping exception would show
// up only as "signal 6", so turn it into a readable failure.
#pragma once

#include <check.h>

#include <cstdlib>
#include <exception>
#include <string>

#define DIAG_CK_NOTHROW(stmt)                                                  \
	do {                                                                   \
		try {                                                          \
			stmt;                                                  \
		} catch (const std::exception &e_) {                           \
			ck_abort_msg("unexpected exception: %s", e_.what());   \
		} catch (...) {                                                \
			ck_abort_msg("unexpected non-std exception");          \
		}                                                              \
	} while (0)

// Runs one suite in the default fork mode and returns the process exit status.
inline int diag_ck_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

// ck_assert_str_eq keeps a pointer past the end of the full expression, so a
// temporary std::string would dangle: hold both sides first.
#define DIAG_CK_STR_EQ(a, b)                                                   \
	do {                                                                   \
		const std::string ck_a_ = (a);                                 \
		const std::string ck_b_ = (b);                                 \
		ck_assert_str_eq(ck_a_.c_str(), ck_b_.c_str());               \
	} while (0)
