# tests/slurm/harness.sh - sourced by the end-to-end tests on a real Slurm
# (epilog_integration.sh, torch_integration.sh): the testbed, the SPANK
# plugin and denpex-epilog installed as an admin would (a plugstack.conf.d
# line with a real spool directory, the epilog as node Epilog and as
# EpilogSlurmctld, each run timed), and the checks they share.
#
# The caller sets NAME (its name in messages and in the work dir) and may set
# HARNESS_PROFILE (the testbed profile it needs, default basic),
# HARNESS_USER2=1 (the second, hostile user must exist: $EVIL),
# HARNESS_SPOOL_MODE (default 755), HARNESS_STATE (the state dir below $WORK,
# default state), HARNESS_MAX_TOTAL (max_total_bytes, default 64M),
# HARNESS_RUNS (epilog runs a job logs, default 3) and a function
# harness_on_exit (run at exit before the testbed goes), then calls
# harness_setup. write_conf appends $CONF_EXTRA (YAML lines) when set. Environment: top_srcdir, top_builddir, CI, DENPEX_TESTBED_DIR,
# DENPEX_TESTBED_PORT_BASE, DENPEX_TESTBED_USER, DENPEX_TESTBED_KEEP=1 (leave
# the testbed running), DENPEX_EPILOG, DENPEX_SPANK_PLUGIN, DENPEX_CONF_DIR,
# KEEP=1 (keep the work dir).
# shellcheck shell=bash

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "PASS: $*"; }
failed=()
bad() { fail=$((fail + 1)); failed+=("$*"); echo "FAIL: $*"; }
check() { # check "what" command...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
finish() {
	# The failures again at the end: a log cut to its head and tail (CI's)
	# still names them.
	local f
	for f in "${failed[@]}"; do echo "FAILED: $f"; done
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
	exit $?
}
die() {
	bad "$*"
	finish
}

# Not root: a SKIP (77) outside CI, a failure in CI.
harness_need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "$NAME: needs root (Slurm daemons, job user switching)"
		if [ -n "${CI:-}" ]; then echo "0 passed, 1 failed"; exit 1; fi
		exit 77
	fi
}

TESTBED=$top_srcdir/tests/slurm/testbed
export DENPEX_TESTBED_DIR=${DENPEX_TESTBED_DIR:-/tmp/denpex-testbed}
TESTBED_DIR=$DENPEX_TESTBED_DIR
EPILOG=${DENPEX_EPILOG:-$top_builddir/denpex-epilog}
SPANK_SO=${DENPEX_SPANK_PLUGIN:-$top_builddir/spank/.libs/spank_denpex.so}
JOBUSER=${DENPEX_TESTBED_USER-denpexuser}
EVIL=${DENPEX_TESTBED_USER2-denpexother}
HARNESS_RUNS=${HARNESS_RUNS:-3}
DEADLINE=${DEADLINE:-30}
HARNESS_PROFILE=${HARNESS_PROFILE:-basic}
[ -n "${HARNESS_EXTRA_HOOKS+x}" ] || HARNESS_EXTRA_HOOKS=() # removed at exit too
PLUG=$TESTBED_DIR/etc/plugstack.conf.d/denpex.conf
HOOK=$TESTBED_DIR/etc/epilog.d/50-denpex-epilog
CHOOK=$TESTBED_DIR/etc/epilog_slurmctld.d/50-denpex-epilog

tb() { bash "$TESTBED" "$@" 8>&-; } # the daemons must not inherit the lock's fd
# (What the start said is kept in $WORK/testbed-restart.log, for a test's failure message.)
restart_testbed() { DENPEX_TESTBED_PROFILE=$HARNESS_PROFILE tb start >"${WORK:-/tmp}/testbed-restart.log" 2>&1; }

harness_cleanup() {
	rm -f "$PLUG" "$HOOK" "$CHOOK" "${HARNESS_EXTRA_HOOKS[@]}"
	if declare -F harness_on_exit >/dev/null; then harness_on_exit; fi
	[ -n "${KEEP:-}" ] || rm -rf "$WORK"
	if [ "$started" = 1 ] && [ "${DENPEX_TESTBED_KEEP:-0}" != 1 ]; then
		if tb stop >/dev/null 2>&1; then
			rm -f "$OWNER"
		else
			echo "$NAME: the testbed did not stop (the next test of this tree stops it)"
		fi
		# A testbed of another profile that was up before comes back.
		[ -z "$previous_profile" ] || DENPEX_TESTBED_PROFILE=$previous_profile tb start >/dev/null 2>&1
	fi
}

# The testbed up with HARNESS_PROFILE, the plugin and the timed epilog hooks
# installed, the work dir $WORK with spool/, state/, reports/, jobs/ and the
# epilog's configuration $CONF (write_conf).
harness_setup() {
	local f h
	for f in "$EPILOG" "$SPANK_SO"; do
		[ -e "$f" ] || die "missing $f (build first)"
	done
	# A libtool wrapper relinks on first use; do that now, not inside Slurm.
	"$EPILOG" --version >/dev/null 2>&1 || die "$EPILOG --version failed"

	# One Slurm integration test at a time on this testbed (make -j check).
	mkdir -p "$(dirname "$TESTBED_DIR")"
	exec 8>"$TESTBED_DIR.tests.lock"
	flock -w 1800 8 || die "another test holds $TESTBED_DIR.tests.lock"
	# Hooks of a test that died before it could remove them are not ours.
	tb clear-hooks
	started=0 previous_profile=""
	# A testbed that a test of this same tree started and did not stop (its
	# stop failed, or it was killed) is stopped here, not reused: each test
	# stops what it starts, and a leftover must not outlive the run.
	OWNER=$TESTBED_DIR.owner
	local me
	me=$(cd "$top_builddir" && pwd -P)
	if [ "$(cat "$OWNER" 2>/dev/null)" = "$me" ] && tb status >/dev/null 2>&1; then
		echo "$NAME: stopping a testbed an earlier test of this tree left running"
		tb stop >/dev/null 2>&1 || die "cannot stop the testbed left running"
	fi
	if tb status >/dev/null 2>&1; then
		local running
		running=$(tb profile)
		if [ "$running" != "$HARNESS_PROFILE" ]; then
			echo "$NAME: restarting the testbed (profile $running) with profile $HARNESS_PROFILE"
			tb stop >/dev/null 2>&1 || die "cannot stop the testbed"
			previous_profile=$running
		fi
	fi
	if ! tb status >/dev/null 2>&1; then
		DENPEX_TESTBED_PROFILE=$HARNESS_PROFILE tb start || die "the Slurm testbed did not start"
		started=1
		echo "$me" >"$OWNER"
	fi
	# A running testbed from before the second user existed: start adds it.
	if [ -n "${HARNESS_USER2:-}" ] && { ! id "$EVIL" >/dev/null 2>&1 ||
		[ -z "$(SLURM_CONF=$TESTBED_DIR/etc/slurm.conf sacctmgr -n -P list user "$EVIL" format=user 2>/dev/null)" ]; }; then
		restart_testbed
	fi
	eval "$(tb env)" || die "testbed env"
	export SLURM_CONF
	unset DENPEX NCCL_DEBUG NCCL_DEBUG_FILE SLURM_JOB_ID SLURM_JOBID
	WORK=$TESTBED_DIR/$NAME.$$
	trap harness_cleanup EXIT

	[ -n "$JOBUSER" ] && id "$JOBUSER" >/dev/null 2>&1 || die "job user $JOBUSER missing (the testbed creates it)"
	if [ -n "${HARNESS_USER2:-}" ]; then
		[ -n "$EVIL" ] && id "$EVIL" >/dev/null 2>&1 || die "job user '$EVIL' missing (the testbed creates it)"
	fi
	rm -rf "$WORK"
	SPOOL=$WORK/spool
	STATE=$WORK/${HARNESS_STATE:-state}
	mkdir -p "$SPOOL" "$WORK/reports" "$WORK/jobs" "$WORK/metrics"
	[ -n "${HARNESS_STATE:-}" ] || mkdir -p "$STATE"
	chmod 755 "$WORK"
	chmod "${HARNESS_SPOOL_MODE:-755}" "$SPOOL"
	chmod 1777 "$WORK/jobs"
	CONF=$WORK/denpex.yaml
	write_conf
	RUNS=$WORK/epilog-runs.log
	echo "required $SPANK_SO spool=$SPOOL" >"$PLUG"
	# The hook only times the epilog; Slurm's Epilog= could name denpex-epilog
	# itself (no arguments: it reads $(sysconfdir)/denpex/denpex.yaml).
	for h in "$HOOK" "$CHOOK"; do
		cat >"$h" <<HOOK
#!/bin/sh
t0=\$(date +%s%N)
"$EPILOG" -c "$CONF"
rc=\$?
t1=\$(date +%s%N)
echo "job=\$SLURM_JOB_ID node=\${SLURMD_NODENAME:-ctld} rc=\$rc ms=\$(( (t1 - t0) / 1000000 ))" >>"$RUNS"
exit \$rc
HOOK
		chmod 755 "$h"
	done
}

write_conf() { # write_conf [comment_field [diagnose_in]]
	cat >"$CONF" <<CONF
spool_dir: $SPOOL
state_dir: $STATE
report_dir: $WORK/reports
conf_dir: ${DENPEX_CONF_DIR:-$top_srcdir/conf}
deadline_s: $DEADLINE
node_wait_s: 6
read_timeout_s: 5
max_bytes_per_file: 1M
max_total_bytes: ${HARNESS_MAX_TOTAL:-64M}
comment_field: ${1:-comment}
diagnose_in: ${2:-node}
metrics_dir: $WORK/metrics
${CONF_EXTRA:-}
CONF
}

as_user() { su -s /bin/sh "$JOBUSER" -c "cd $WORK/jobs && SLURM_CONF=$SLURM_CONF $*"; }
submit() { # submit NAME [sbatch options...] -- script body
	local name=$1
	shift
	local opts=()
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	local script=$WORK/jobs/$name.sh
	printf '#!/bin/bash\n%s\n' "$*" >"$script"
	chmod 755 "$script"
	as_user "sbatch --parsable -J $name -N2 --ntasks-per-node=2 -o $WORK/jobs/$name-%j.out -e $WORK/jobs/$name-%j.err ${opts[*]:-} $script" 2>>"$WORK/sbatch.err"
}
# Waits until COUNT tasks of the job (told apart by srun -l's "N: " label)
# printed a line matching PATTERN to its output, at most SECONDS (default
# 60): a job ended from outside must first reach the state the test means
# (on a loaded machine its processes may still be starting).
wait_tasks_printed() { # job name pattern count [seconds]
	local j=$1 name=$2 pat=$3 want=$4 i n
	for ((i = 0; i < ${5:-60} * 2; i++)); do
		n=$(cat "$WORK/jobs/$name-$j.out" "$WORK/jobs/$name-$j.err" 2>/dev/null | grep -E "$pat" |
			sed -n -E 's/^ *([0-9]+): .*/\1/p' | sort -u | wc -l)
		if [ "${n:-0}" -ge "$want" ]; then return 0; fi
		sleep 0.5
	done
	return 1
}
# Waits until N epilog runs of the job were logged (default $HARNESS_RUNS:
# every node's Epilog and the EpilogSlurmctld), at most SECONDS (default 120).
wait_epilogs() { # job [runs [seconds]]
	local j=$1 want=${2:-$HARNESS_RUNS} i n
	for ((i = 0; i < ${3:-120} * 2; i++)); do
		n=$(grep -c "^job=$j " "$RUNS" 2>/dev/null)
		if [ "${n:-0}" -ge "$want" ]; then return 0; fi
		sleep 0.5
	done
	return 1
}
# The Comment of the job's last run that has run: a requeued job's new
# record waits PENDING with none of its own while the epilog of the run
# before it writes that run's verdict.
comment_of() {
	sacct -n -X -D -P -j "$1" -o State,Comment |
		awk '$0 !~ /^(PENDING|REQUEUED)\|/ { c = $0 } END { sub(/^[^|]*\|/, "", c); print c }'
}
# The Comment once the epilog's verdict shows in it, or as it is after
# 10 s: the epilog confirms its write in the background, so a record
# update racing it (a requeue, the completion record) can hide the verdict
# for a few seconds after the epilog has exited.
verdict_comment_of() {
	local i c
	for ((i = 0; i < 40; i++)); do
		c=$(comment_of "$1")
		case "$c" in *"denpex: "*) break ;; esac
		sleep 0.25
	done
	printf '%s\n' "$c"
}
state_of() { sacct -n -X -j "$1" -o State%30 | awk '{print $1}'; }
wait_state() { # job, state [seconds]
	local i
	for ((i = 0; i < ${3:-30} * 4; i++)); do
		[ "$(squeue -h -j "$1" -o %T 2>/dev/null)" = "$2" ] && return 0
		sleep 0.25
	done
	return 1
}
epilog_ok() { # all runs of the job: rc 0 and within the deadline
	local j=$1
	local lines
	lines=$(grep "^job=$j " "$RUNS" 2>/dev/null)
	[ -n "$lines" ] || return 1
	echo "$lines" | awk -v d=$((DEADLINE * 1000 + 3000)) '
		{ split($3, a, "="); split($4, b, "="); if (a[2] != 0 || b[2] > d) bad = 1 }
		END { exit bad }'
}
matches() { echo "$1" | grep -Eq -- "$2"; }
not_matches() { ! echo "$1" | grep -Eq -- "$2"; }
wait_file() { local i; for i in $(seq 1 120); do [ -e "$1" ] && return 0; sleep 0.25; done; return 1; }
report() { cat "$WORK/reports/$1.txt" 2>/dev/null; }
# The next job id: a held job's id plus one (nothing else submits here).
next_job_id() {
	local h
	h=$(sbatch --parsable --hold -N1 -n1 -o /dev/null --wrap true 2>/dev/null) || return 1
	scancel "$h"
	echo $((h + 1))
}
no_drain() { ! sinfo -h -N -o "%N %T" | grep -qi drain; }
report_has() { grep -q -- "$2" "$WORK/reports/$1.txt" 2>/dev/null; }
