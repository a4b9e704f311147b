# tests/epilog.mk: denpex-epilog's unit tests (Check) and its end-to-end
# tests on a real Slurm (root; skip outside CI when not root, fail in CI):
# the end-to-end run, the trust boundaries and the injected faults, run in
# the Slurm chain (tests/slurm.mk).
if HAVE_CHECK
if BUILD_EPILOG
check_PROGRAMS += tests/check_epilog
TESTS += tests/check_epilog
endif
endif
tests_check_epilog_SOURCES = %reldir%/check_epilog.cc \
	epilog/config.cc epilog/log.cc epilog/expand.cc epilog/comment.cc \
	epilog/safe_read.cc epilog/report.cc epilog/own_files.cc epilog/kmsg.cc epilog/attribution.cc \
	epilog/spool_trust.cc epilog/comment_queue.cc epilog/gpu_health_collect.cc \
	epilog/bounded_child.cc epilog/worker_record.cc libdiag/c_api.cc
tests_check_epilog_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/libdiag
tests_check_epilog_CXXFLAGS = $(TEST_CXXFLAGS) $(CURL_CFLAGS)
tests_check_epilog_LDADD = libdiag/libdiagcore.la $(CHECK_LIBS) $(YAML_LIBS) $(CURL_LIBS) $(JANSSON_LIBS)

EXTRA_DIST += %reldir%/slurm/epilog_integration.sh %reldir%/slurm/fake_train.py \
	%reldir%/slurm/trust_integration.sh %reldir%/slurm/fault_integration.sh \
	%reldir%/slurm/harness.sh %reldir%/slurm/torch_integration.sh %reldir%/slurm/ddp_train.py
