# tests/sim.mk: scenario simulator (tests/sim/) and the accuracy test.
if HAVE_PYTHON3
TESTS += tests/accuracy.sh
endif
EXTRA_DIST += tests/accuracy.sh tests/sim
if HAVE_PYTHON3
TESTS += tests/clock_accuracy.sh
endif
EXTRA_DIST += tests/clock_accuracy.sh
if HAVE_PYTHON3
TESTS += tests/independent_accuracy.sh
endif
EXTRA_DIST += tests/independent_accuracy.sh
