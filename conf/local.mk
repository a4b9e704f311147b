# Configuration, signatures and knowledge tables (installed to sysconfdir/denpex).
denpexconfdir = $(sysconfdir)/denpex
dist_denpexconf_DATA = %reldir%/denpex.yaml %reldir%/xid.yaml %reldir%/actions.yaml
denpexsigdir = $(sysconfdir)/denpex/signatures
dist_denpexsig_DATA = \
	%reldir%/signatures/cuda.yaml \
	%reldir%/signatures/filesystem.yaml \
	%reldir%/signatures/gpu.yaml \
	%reldir%/signatures/handled.yaml \
	%reldir%/signatures/launch.yaml \
	%reldir%/signatures/memory.yaml \
	%reldir%/signatures/native.yaml \
	%reldir%/signatures/nccl.yaml \
	%reldir%/signatures/numeric.yaml \
	%reldir%/signatures/progress.yaml \
	%reldir%/signatures/python.yaml \
	%reldir%/signatures/ray.yaml \
	%reldir%/signatures/slurm.yaml \
	%reldir%/signatures/torchrun.yaml \
	%reldir%/signatures/wandb.yaml \
	%reldir%/signatures/watchdog.yaml \
	$(NULL)
EXTRA_DIST += %reldir%/signatures/SCHEMA.md
