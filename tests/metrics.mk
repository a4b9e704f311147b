# tests/metrics.mk: verdicts as Prometheus metrics and DCGM corroboration
# against a real Prometheus and node_exporter on loopback (issue 15).
check_PROGRAMS += tests/metrics_writer tests/prom_dcgm_query
tests_metrics_writer_SOURCES = tests/metrics_writer.cc libdiag/c_api.cc
tests_metrics_writer_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/libdiag
tests_metrics_writer_CXXFLAGS = $(TEST_CXXFLAGS)
tests_metrics_writer_LDADD = libdiag/libdiagcore.la $(JANSSON_LIBS)
tests_prom_dcgm_query_SOURCES = tests/prom_dcgm_query.cc epilog/gpu_health_collect.cc epilog/bounded_child.cc
tests_prom_dcgm_query_CPPFLAGS = $(TEST_CPPFLAGS)
tests_prom_dcgm_query_CXXFLAGS = $(AM_CXXFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS)
tests_prom_dcgm_query_LDADD = $(CURL_LIBS) $(JANSSON_LIBS)
if HAVE_CHECK
check_PROGRAMS += tests/check_gpu_health
TESTS += tests/check_gpu_health
endif
tests_check_gpu_health_SOURCES = tests/check_gpu_health.cc
tests_check_gpu_health_CPPFLAGS = $(TEST_CPPFLAGS)
tests_check_gpu_health_CXXFLAGS = $(TEST_CXXFLAGS)
tests_check_gpu_health_LDADD = $(TEST_LDADD)
TESTS += tests/prometheus.sh
EXTRA_DIST += tests/prometheus.sh
