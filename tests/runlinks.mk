# tests/runlinks.mk: Ray session and W&B run directories (tests/data/ray,
# tests/data/wandb) diagnosed whole and compared with their CASE.expect.
TESTS += tests/runlinks.sh
EXTRA_DIST += tests/runlinks.sh
