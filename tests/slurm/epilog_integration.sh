#!/bin/sh
# denpex-epilog end to end on a real Slurm (munge, MariaDB, slurmdbd,
# slurmctld, two slurmd on loopback, from tests/slurm/testbed), with the
# SPANK plugin and the epilog installed as an admin would: a plugstack line,
# and denpex-epilog as the node Epilog and as EpilogSlurmctld.
#
# Jobs of a fake training program (tests/slurm/fake_train.py, 4 ranks on
# 2 nodes) fail in the usual ways; sacct's Comment must name the class and
# the first rank, the admin report must exist, no node may be drained. Then
# hostile cases: a symlink to root-only files, a 5 GB sparse log, a vanished
# spool dir and a FIFO, a garbage config, slurmdbd stopped. Each: exit 0
# within the deadline, node undrained, no root-only byte in any output.
#
# Run by `make check` (env: top_srcdir, top_builddir). Needs root: not root
# is a SKIP (77) outside CI and a failure in CI ($CI set). Starts the
# testbed if it is not up and stops it again if it started it
# (DENPEX_TESTBED_KEEP=1 keeps it). Settings: DENPEX_TESTBED_DIR,
# DENPEX_TESTBED_PORT_BASE, DENPEX_TESTBED_USER (see tests/slurm/testbed),
# DENPEX_EPILOG (default $top_builddir/denpex-epilog), DENPEX_SPANK_PLUGIN
# (default $top_builddir/spank/.libs/spank_denpex.so), KEEP=1 (keep the
# work dir). Prints "N passed, N failed"; exit 1 if anything failed.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u

NAME=epilog_integration
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/harness.sh"
harness_need_root
[ -e "$here/fake_train.py" ] || die "missing $here/fake_train.py"
command -v python3 >/dev/null || die "python3 not found"
VHOOK=$TESTBED_DIR/etc/epilog.d/40-denpex-test-vanish
HARNESS_EXTRA_HOOKS=("$VHOOK")
harness_setup
cp "$here/fake_train.py" "$WORK/jobs/fake_train.py"
chmod 755 "$WORK/jobs/fake_train.py"
# A root-only secret that no output may ever contain.
SECRET=$WORK/secret
TOKEN="DENPEX-ROOT-ONLY-$$-$RANDOM$RANDOM"
echo "$TOKEN" >"$SECRET"
chmod 600 "$SECRET"
SHADOW_LINE=$(head -n 1 /etc/shadow)

# Test only: runs before the epilog and deletes the spool dir of jobs that
# ask for it (as a wiped node-local spool would look). The job itself cannot:
# the spool root is root's, and the plugin recreates the dir at task exit.
# It also keeps a copy of the spool dir of jobs that ask for it (the first
# node's hook copies), for `denpex diagnose` on the files the epilog read.
cat >"$VHOOK" <<HOOK
#!/bin/sh
[ -e "$WORK/jobs/keep-\$SLURM_JOB_ID" ] && mkdir "$WORK/jobs/kept-\$SLURM_JOB_ID" 2>/dev/null &&
	cp -a "$WORK/spool/\$SLURM_JOB_ID/." "$WORK/jobs/kept-\$SLURM_JOB_ID/" 2>/dev/null
[ -e "$WORK/jobs/vanish-\$SLURM_JOB_ID" ] && rm -rf "$WORK/spool/\$SLURM_JOB_ID"
exit 0
HOOK
chmod 755 "$VHOOK"

# ---------------------------------------------------------------- helpers
nothing_secret() { # no byte of the secret or of /etc/shadow in any output
	! grep -rqF -- "$TOKEN" "$WORK/reports" "$WORK/state" "$TESTBED_DIR/records" 2>/dev/null &&
	! grep -rqF -- "$SHADOW_LINE" "$WORK/reports" "$WORK/state" 2>/dev/null &&
	! sacct -n -a -X -o Comment%1000 -S now-1hour | grep -qF -- "$TOKEN"
}
expect_verdict() { # job, label, regex on the Comment
	local j=$1 what=$2 re=$3 c
	if ! wait_epilogs "$j"; then bad "$what: epilogs of job $j did not finish"; return; fi
	c=$(comment_of "$j")
	if echo "$c" | grep -Eq -- "$re"; then ok "$what: Comment '$c'"; else bad "$what: Comment '$c' !~ /$re/"; fi
	check "$what: report exists" test -s "$WORK/reports/$j.txt" -a -s "$WORK/reports/$j.json"
	check "$what: report.html with the timeline" grep -q 'class="denpex-timeline"' "$WORK/reports/$j.html"
	check "$what: report root-only" test "$(stat -c '%U %a' "$WORK/reports/$j.txt")" = "root 640"
	check "$what: epilog exit 0 within ${DEADLINE}s on every node" epilog_ok "$j"
	check "$what: no node drained" no_drain
}
TRAIN="srun -l --kill-on-bad-exit=0 python3 $WORK/jobs/fake_train.py"

# ---------------------------------------------------------------- failures
j_exc=$(submit exc --comment=user-note -- "$TRAIN exception --culprit 2")
j_kill=$(submit kill -- "$TRAIN sigkill --culprit 1")
j_oom=$(submit oom -- "$TRAIN cuda_oom --culprit 3")
j_ok=$(submit ok -- "$TRAIN success")
[ -n "$j_exc" ] && [ -n "$j_kill" ] && [ -n "$j_oom" ] && [ -n "$j_ok" ] || { cat "$WORK/sbatch.err"; die "sbatch"; }

expect_verdict "$j_exc" "exception" '^user-note; denpex: python_exception rank 2 on node2'
# Idempotent: the epilog run again by hand with the same environment leaves
# one verdict, after the user's note.
rerun_epilog() { # job node
	local env_args=() l
	while IFS= read -r l; do env_args+=("$l"); done <"$TESTBED_DIR/records/epilog/$1.$2.env"
	env -i "${env_args[@]}" SLURM_CONF="$SLURM_CONF" "$EPILOG" -c "$CONF" >/dev/null 2>&1
}
if [ -s "$TESTBED_DIR/records/epilog/$j_exc.node1.env" ]; then
	before=$(comment_of "$j_exc")
	rerun_epilog "$j_exc" node1
	check "rerun: exit 0" test $? = 0
	after=$(comment_of "$j_exc")
	check "rerun: Comment unchanged ('$after')" test "$before" = "$after"
	check "rerun: one verdict" test "$(echo "$after" | grep -o 'denpex:' | wc -l)" = 1
else
	bad "rerun: no recorded epilog environment of job $j_exc"
fi
expect_verdict "$j_kill" "SIGKILL" '^denpex: [a-z_]+ rank 1 on node1'
expect_verdict "$j_oom" "CUDA OOM" '^denpex: cuda_oom rank 3 on node2'
# The epilog's own time for a failed 8-rank job beside `denpex diagnose` on
# the same files (its output and the spool as the first node's epilog found
# it). Printed, never asserted (issue 17: times on a shared machine).
j_8=$(submit eight --ntasks-per-node=4 -- "$TRAIN exception --culprit 5
touch $WORK/jobs/keep-\$SLURM_JOB_ID
exit 1")
expect_verdict "$j_8" "8 ranks" '^denpex: python_exception rank 5 on node2'
if [ -n "$j_8" ] && grep -q "^job=$j_8 " "$RUNS"; then
	runs8=$(grep "^job=$j_8 " "$RUNS" | sed 's/.*node=\([^ ]*\) .*ms=\([0-9]*\).*/\1 \2 ms/' | paste -sd, -)
	ep_ms=$(grep "^job=$j_8 " "$RUNS" | sed 's/.*ms=//' | sort -n | tail -n 1)
	files8=$(find "$WORK/jobs/kept-$j_8" "$WORK/jobs/eight-$j_8.out" "$WORK/jobs/eight-$j_8.err" -type f 2>/dev/null | sort)
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	"$top_builddir/denpex" diagnose --json --quiet $files8 >"$WORK/eight.json" 2>&1
	t1=$(date +%s%N)
	d_ms=$(((t1 - t0) / 1000000))
	echo "epilog time, failed 8-rank job $j_8: runs $runs8; slowest $ep_ms ms; denpex diagnose on its $(echo "$files8" | grep -c .) files $d_ms ms; the epilog $((ep_ms - d_ms)) ms above it (target <= 1000 ms)"
fi
# The job-completion record can reach slurmdbd after the epilog wrote the
# Comment and overwrite it with the job's own comment (a real race); the
# epilog confirms in the background, after it exited, and writes it again.
# Emulated: the Comment set back to the job's own as soon as the verdict
# shows (past the first look at 0.7 s on a busy machine, which a
# confirmation inside the epilog's own time would miss).
j_ow=$(submit overwrite --comment=own-note -- "$TRAIN exception --culprit 1")
seen=no
for ((i = 0; i < 600; i++)); do
	case "$(comment_of "$j_ow")" in *denpex:*) seen=yes; break ;; esac
	sleep 0.1
done
if [ $seen = yes ]; then
	check "overwritten Comment: set back to the job's own by hand" \
		sacctmgr -i modify job where jobid="$j_ow" set Comment=own-note
	back=no
	for ((i = 0; i < 300; i++)); do
		case "$(comment_of "$j_ow")" in *"denpex: python_exception rank 1"*) back=yes; break ;; esac
		sleep 0.1
	done
	check "overwritten Comment: written again by the confirmation (Comment '$(comment_of "$j_ow")')" test $back = yes
	check "overwritten Comment: the job's own comment kept" matches "$(comment_of "$j_ow")" '^own-note; denpex: '
	noted=no
	for ((i = 0; i < 300; i++)); do
		report_has "$j_ow" 'overwritten after writing .*written again' && { noted=yes; break; }
		sleep 0.1
	done
	check "overwritten Comment: the report says it was written again" test $noted = yes
	if wait_epilogs "$j_ow"; then
		check "overwritten Comment: epilog exit 0 on every node" epilog_ok "$j_ow"
	else
		bad "overwritten Comment: epilogs did not finish"
	fi
else
	bad "overwritten Comment: the verdict never showed (Comment '$(comment_of "$j_ow")')"
fi
# Verdicts as metrics: the diagnosing epilog's denpex.prom (issue 15).
prom=$WORK/metrics/denpex.prom
check "metrics: denpex.prom written" test -s "$prom"
if command -v promtool >/dev/null 2>&1; then
	check "metrics: promtool check metrics passes" sh -c "promtool check metrics <'$prom'"
else
	bad "metrics: promtool not installed (prometheus package)"
fi
check "metrics: python_exception counted on node2" grep -qE '^denpex_failures_total\{class="python_exception",next_action="[a-z_]+",node="node2"\} [1-9]' "$prom"
check "metrics: cuda_oom counted on node2" grep -qE '^denpex_failures_total\{class="cuda_oom",next_action="reduce_memory",node="node2"\} 1$' "$prom"
check "metrics: epilog duration histogram" grep -qE '^denpex_epilog_duration_seconds_count ([3-9]|[1-9][0-9]+)$' "$prom"
check "metrics: no per-job or per-rank label" sh -c "! grep -qE '^[a-z_]+\\{[^}]*(job|rank)[a-z_]*=' '$prom'"
if wait_epilogs "$j_ok"; then
	c=$(comment_of "$j_ok")
	check "success: no verdict (Comment '$c')" test -z "$c"
	check "success: no report" test ! -e "$WORK/reports/$j_ok.txt"
	check "success: epilog exit 0" epilog_ok "$j_ok"
else
	bad "success: epilogs did not finish"
fi

# Opted out: nothing diagnosed, nothing written.
j_off=$(submit off --denpex=off -- "$TRAIN exception --culprit 1")
if wait_epilogs "$j_off"; then
	c=$(comment_of "$j_off")
	check "--denpex=off: no verdict (Comment '$c')" test -z "$c"
	check "--denpex=off: no report" test ! -e "$WORK/reports/$j_off.txt"
	check "--denpex=off: epilog exit 0" epilog_ok "$j_off"
else
	bad "--denpex=off: epilogs did not finish"
fi

j_tl=$(submit tl -- "$TRAIN hang")
j_cx=$(submit cx -- "$TRAIN hang")
wait_state "$j_tl" RUNNING && wait_state "$j_cx" RUNNING
# (Each of the four ranks past its steps and waiting, as a stalled job
# that is then stopped: stopped mid-start, a rank still a step or two
# behind the others would read as the rank the others waited on.)
wait_tasks_printed "$j_tl" tl 'step waiting on dataloader' 4
wait_tasks_printed "$j_cx" cx 'step waiting on dataloader' 4
sleep 2.5
# (slurmctld refuses an end time not after the job's start, "Invalid time
# specified", when the job started within the same second: try again.)
for _ in 1 2 3 4 5; do
	scontrol update jobid="$j_tl" EndTime=now && break
	sleep 1
done
scancel "$j_cx"
expect_verdict "$j_tl" "time limit" '^denpex: time_limit'
check "time limit: state TIMEOUT" test "$(state_of "$j_tl")" = TIMEOUT
expect_verdict "$j_cx" "scancel" '^denpex: user_cancel'

# ---------------------------------------------------------------- hostile
# stdout a symlink to /etc/shadow, stderr to a root-only file, and a spool
# file linked to it; the job (as $JOBUSER) plants them before it fails.
j_ln=$(submit symlink -- "$TRAIN exception --culprit 0
d=\$(dirname \"\$NCCL_DEBUG_FILE\" 2>/dev/null)
o=$WORK/jobs/symlink-\$SLURM_JOB_ID.out; e=$WORK/jobs/symlink-\$SLURM_JOB_ID.err
[ -n \"\$NCCL_DEBUG_FILE\" ] || d=$WORK/spool/\$SLURM_JOB_ID/nccl
ln -sf $SECRET \$d/evil.log
rm -f \$o \$e; ln -s /etc/shadow \$o; ln -s $SECRET \$e
exit 1")
expect_verdict "$j_ln" "symlinks" '^denpex: '
check "symlinks: refused in the report" report_has "$j_ln" "symbolic link"
check "symlinks: no root-only byte anywhere" nothing_secret

# A 5 GB sparse stdout.
j_big=$(submit big -- "$TRAIN exception --culprit 1
truncate -s 5G $WORK/jobs/big-\$SLURM_JOB_ID.out
exit 1")
expect_verdict "$j_big" "5 GB sparse log" '^denpex: '
check "5 GB sparse log: head and tail only" report_has "$j_big" "head and tail only"

# The spool dir vanished, stderr replaced by a FIFO.
j_gone=$(submit gone -- "$TRAIN exception --culprit 1
touch $WORK/jobs/vanish-\$SLURM_JOB_ID
e=$WORK/jobs/gone-\$SLURM_JOB_ID.err; rm -f \$e; mkfifo \$e
exit 1")
expect_verdict "$j_gone" "vanished spool dir" '^denpex: '
check "vanished spool dir: reported" report_has "$j_gone" "No such file"
check "FIFO stderr: refused" report_has "$j_gone" "FIFO"

# A garbage config: logged, defaults used (reports then go to the default
# report dir; removed again below), exit 0, node undrained.
printf '\001\002 {{{ garbage: [\n\377\n' >"$CONF"
def_reports=/var/log/denpex
def_state=/var/spool/denpex
had_reports=$([ -d $def_reports ] && echo 1)
had_state=$([ -d $def_state ] && echo 1)
had_state_sub=$([ -d $def_state/.epilog ] && echo 1)
j_cfg=$(submit cfg -- "$TRAIN exception --culprit 1")
if wait_epilogs "$j_cfg"; then
	check "garbage config: epilog exit 0 within deadline" epilog_ok "$j_cfg"
	check "garbage config: no node drained" no_drain
	check "garbage config: error logged" grep -q "config: $CONF" "$TESTBED_DIR/records/epilog/$j_cfg.node1.out"
else
	bad "garbage config: epilogs did not finish"
fi
write_conf
rm -f "$def_reports/$j_cfg.txt" "$def_reports/$j_cfg.json"
[ -n "$had_reports" ] || rm -rf "$def_reports"
[ -n "$had_state_sub" ] || rm -rf "$def_state/.epilog"
[ -n "$had_state" ] || rm -rf "$def_state"

# comment_field: admin_comment puts the verdict into AdminComment only.
write_conf admin_comment
j_adm=$(submit adm --comment=mine -- "$TRAIN cuda_oom --culprit 0")
if wait_epilogs "$j_adm"; then
	a=$(sacct -n -X -j "$j_adm" -o AdminComment%400 | sed 's/^ *//; s/ *$//')
	c=$(comment_of "$j_adm")
	check "admin_comment: AdminComment '$a'" matches "$a" '^denpex: cuda_oom rank 0 on node1'
	check "admin_comment: Comment untouched ('$c')" test "$c" = mine
else
	bad "admin_comment: epilogs did not finish"
fi

# diagnose_in: slurmctld: the node Epilogs gather, EpilogSlurmctld diagnoses.
write_conf comment slurmctld
j_ctl=$(submit ctl -- "$TRAIN cuda_oom --culprit 2")
if wait_epilogs "$j_ctl"; then
	c=$(comment_of "$j_ctl")
	check "diagnose_in slurmctld: Comment '$c'" matches "$c" '^denpex: cuda_oom rank 2 on node2'
	check "diagnose_in slurmctld: diagnosed by slurmctld" report_has "$j_ctl" "diagnosed on: slurmctld"
	check "diagnose_in slurmctld: epilogs exit 0" epilog_ok "$j_ctl"
else
	bad "diagnose_in slurmctld: epilogs did not finish"
fi
write_conf

# slurmdbd stopped while the job ends: the report is still written, the
# epilog still exits 0 in time, the node stays up.
j_db=$(submit db -- "sleep 3; $TRAIN exception --culprit 1")
wait_state "$j_db" RUNNING
dbd_pid=$(cat "$TESTBED_DIR/run/slurmdbd.pid" 2>/dev/null)
if [ -n "$dbd_pid" ] && kill "$dbd_pid" 2>/dev/null; then
	if wait_epilogs "$j_db"; then
		check "slurmdbd down: epilog exit 0 within deadline" epilog_ok "$j_db"
		check "slurmdbd down: no node drained" no_drain
		check "slurmdbd down: report written" test -s "$WORK/reports/$j_db.txt"
	else
		bad "slurmdbd down: epilogs did not finish"
	fi
else
	bad "slurmdbd down: could not stop slurmdbd (no $TESTBED_DIR/run/slurmdbd.pid)"
fi
restart_testbed || bad "testbed restart after stopping slurmdbd"

check "no root-only byte in any output (all jobs)" nothing_secret
check "no node drained at the end" no_drain
finish
