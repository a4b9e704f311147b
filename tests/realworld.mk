# tests/realworld.mk: the real-log corpus (tests/data/realworld), scored per
# class for the dev and the held-out split; and checked for verdicts that
# survive changes that do not change what happened (renamed host, CRLF...).
# (The invariance check joins TESTS in tests/local.mk, after the sanitized
# build: see there.)
if HAVE_PYTHON3
TESTS += tests/realworld.sh
endif
# The scorer lives in tests/sim, which sim.mk distributes whole.
EXTRA_DIST += tests/realworld.sh tests/realworld_invariance.sh
# The invariance check takes the cases' own verdicts from realworld.sh's
# run instead of diagnosing all of them again.
tests/realworld_invariance.log: tests/realworld.log
CLEANFILES += tests/realworld.verdicts.json
