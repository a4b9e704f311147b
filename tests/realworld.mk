# tests/realworld.mk: the real-log corpus (tests/data/realworld), scored per
# class for the dev and the held-out split.
if HAVE_PYTHON3
TESTS += tests/realworld.sh
endif
# The scorer lives in tests/sim, which sim.mk distributes whole.
EXTRA_DIST += tests/realworld.sh
