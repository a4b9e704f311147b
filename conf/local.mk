# Configuration and knowledge tables (installed to sysconfdir/denpex); the
# shipped signatures to the data directory, below the site's layer in
# sysconfdir/denpex/signatures.d (created empty, the site's to fill).
denpexconfdir = $(sysconfdir)/denpex
dist_denpexconf_DATA = %reldir%/denpex.yaml %reldir%/xid.yaml %reldir%/actions.yaml %reldir%/zones.yaml
denpexsigdir = $(pkgdatadir)/signatures
dist_denpexsig_DATA = \
	%reldir%/signatures/cuda.yaml \
	%reldir%/signatures/filesystem.yaml \
	%reldir%/signatures/frameworks.yaml \
	%reldir%/signatures/gloo.yaml \
	%reldir%/signatures/gpu.yaml \
	%reldir%/signatures/hccl.yaml \
	%reldir%/signatures/handled.yaml \
	%reldir%/signatures/horovod.yaml \
	%reldir%/signatures/launch.yaml \
	%reldir%/signatures/memory.yaml \
	%reldir%/signatures/mpi.yaml \
	%reldir%/signatures/native.yaml \
	%reldir%/signatures/nccl.yaml \
	%reldir%/signatures/netdev.yaml \
	%reldir%/signatures/node.yaml \
	%reldir%/signatures/numeric.yaml \
	%reldir%/signatures/orchestrator.yaml \
	%reldir%/signatures/progress.yaml \
	%reldir%/signatures/python.yaml \
	%reldir%/signatures/ranks.yaml \
	%reldir%/signatures/ray.yaml \
	%reldir%/signatures/remote_shell.yaml \
	%reldir%/signatures/scheduler.yaml \
	%reldir%/signatures/shell.yaml \
	%reldir%/signatures/slurm.yaml \
	%reldir%/signatures/torchrun.yaml \
	%reldir%/signatures/wandb.yaml \
	%reldir%/signatures/watchdog.yaml \
	%reldir%/signatures/xla.yaml \
	%reldir%/signatures/zone.yaml \
	$(NULL)
EXTRA_DIST += %reldir%/signatures/SCHEMA.md
# Grafana dashboard over the epilog's denpex_* metrics (import it in Grafana).
grafanadir = $(pkgdatadir)/grafana
dist_grafana_DATA = %reldir%/grafana/denpex.json

install-data-local:
	$(MKDIR_P) '$(DESTDIR)$(sysconfdir)/denpex/signatures.d'

# The installed layout: the shipped rules from the data directory, the
# site's layer in sysconfdir (run by distcheck against its installation).
installcheck-local:
	env -u DENPEX_CONF_DIR '$(DESTDIR)$(bindir)/denpex' check-signatures >conf-installcheck.out
	tail -n 1 conf-installcheck.out | grep -F 'shipped $(pkgdatadir)/signatures; site $(sysconfdir)/denpex/signatures.d (0 added, 0 replaced)'
	rm -f conf-installcheck.out
