#!/bin/bash
# spank_integration.sh - spank_denpex.so against a real Slurm (tests/slurm/testbed:
# munge, MariaDB, slurmdbd, slurmctld and two slurmd on 127.0.0.1).
#
# Installs the built plugin the way an admin would (one `optional` line in
# plugstack.conf.d pointing at the .so), then checks through srun/sbatch:
# the task environment on 4 tasks over 2 nodes, a user's own NCCL_DEBUG
# surviving, --denpex=off / DENPEX=off / sbatch --denpex=off setting and
# recording nothing, the rank map, the task exit records naming the task
# killed first, the hand-off to the epilog, bad option values rejected at
# submission, a bad plugstack argument reported clearly, a missing spool not
# failing the job, and the job dir owned by a non-root job user.
#
# Run by `make check` (env: top_srcdir, top_builddir). Needs root (exit 77,
# SKIP, otherwise). As root it starts the testbed if it is not up (installing
# Debian packages if missing) and stops it again at the end if it started it
# (DENPEX_TESTBED_KEEP=1 keeps it). Settings: DENPEX_TESTBED_DIR,
# DENPEX_TESTBED_PORT_BASE (see tests/slurm/testbed), DENPEX_SPANK_PLUGIN (the
# .so to test; default $top_builddir/spank/.libs/spank_denpex.so).
# Prints "N passed, N failed"; exit 1 if anything failed.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
PLUGIN=${DENPEX_SPANK_PLUGIN:-$top_builddir/spank/.libs/spank_denpex.so}
TESTBED="$top_srcdir/tests/slurm/testbed"
export DENPEX_TESTBED_DIR=${DENPEX_TESTBED_DIR:-/tmp/denpex-testbed}
DIR=$DENPEX_TESTBED_DIR
USER_NAME=${DENPEX_TESTBED_USER-denpexuser}
t_start=$SECONDS

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (starts Slurm daemons and installs a SPANK plugin)"
	exit 77
fi
if [ ! -f "$PLUGIN" ]; then
	echo "FAIL: plugin not built: $PLUGIN"
	echo "0 passed, 1 failed"
	exit 1
fi

# One Slurm integration test at a time on this testbed (make -j check).
mkdir -p "$(dirname "$DIR")"
exec 8>"$DIR.tests.lock"
flock -w 1800 8 || { echo "FAIL: another test holds $DIR.tests.lock"; exit 1; }
# Hooks of a test that died before it could remove them are not ours.
bash "$TESTBED" clear-hooks 8>&- | sed 's/^/# /'

# Nothing of the caller's should leak into the jobs' environment (a CI runner's
# NCCL_* or a surrounding Slurm job's SLURM_*).
for v in $(compgen -e); do
	case $v in NCCL_* | TORCH_* | TORCHELASTIC_* | DENPEX | DENPEX_SRUN_CLOCK_NS | DENPEX_ENV_SET | SLURM_* | SLURMD_* | SPANK_*) unset "$v" ;; esac
done

started=0
# The testbed closes inherited descriptors before it starts a daemon; 8>&- too.
if ! bash "$TESTBED" status >/dev/null 2>&1 8>&-; then
	bash "$TESTBED" start 8>&- || { echo "FAIL: the Slurm testbed did not start"; echo "0 passed, 1 failed"; exit 1; }
	started=1
fi
eval "$(bash "$TESTBED" env)"
export SLURM_CONF

CONF="$DIR/etc/plugstack.conf.d/denpex.conf"
SPOOL="$DIR/denpex-spool.$$"
WORK=$(mktemp -d "$DIR/jobs/spank-it.XXXXXX")
chmod 755 "$WORK"
mkdir -p "$SPOOL"
chmod 755 "$SPOOL"

cleanup() {
	rm -f "$CONF"
	rm -rf "$WORK" "$SPOOL"
	if [ $started = 1 ] && [ "${DENPEX_TESTBED_KEEP:-0}" != 1 ]; then
		bash "$TESTBED" stop >/dev/null 2>&1 8>&-
	fi
}
trap cleanup EXIT

install_plugin() { # install_plugin ARGS...: the admin's one line, as conf/plugstack.conf.d/denpex.conf.in
	printf '%s %s %s\n' "${KIND:-optional}" "$PLUGIN" "$*" >"$CONF.tmp" && mv -f "$CONF.tmp" "$CONF"
}

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $1 [$((SECONDS - t_start)) s]"; }
not_ok() {
	failed=$((failed + 1))
	echo "FAIL - $1 [$((SECONDS - t_start)) s]"
	[ $# -lt 2 ] || printf '%s\n' "$2" | head -n 40 | sed 's/^/    /'
}
check() { # check DESCRIPTION DETAIL COMMAND...
	local what=$1 detail=$2
	shift 2
	if "$@"; then ok "$what"; else not_ok "$what" "$detail"; fi
}

# run NAME COMMAND...: run in $WORK, stdout to $WORK/NAME.out, stderr to NAME.err, rc to NAME.rc.
run() {
	local name=$1
	shift
	(cd "$DIR/jobs" && timeout 120 "$@") >"$WORK/$name.out" 2>"$WORK/$name.err"
	echo $? >"$WORK/$name.rc"
	load_env "$name"
}
rc_of() { cat "$WORK/$1.rc"; }
out() { cat "$WORK/$1.out"; }
err() { cat "$WORK/$1.err"; }
both() { cat "$WORK/$1.out" "$WORK/$1.err"; }
job_of() { sed -n 's/^[0-9]*: *JOB=\([0-9][0-9]*\)$/\1/p; s/^JOB=\([0-9][0-9]*\)$/\1/p' "$WORK/$1.out" | head -n 1; }
# value NAME RANK VAR: VAR as rank RANK saw it (srun -l output of `env`), or "<unset>".
declare -A V
V_LOADED=""
load_env() { # load_env NAME: parse NAME.out into V (run does it; $(value) runs in a subshell)
	local line
	V=()
	while IFS= read -r line; do
		[[ $line =~ ^\ *([0-9]+):\ ([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
		V["${BASH_REMATCH[1]}:${BASH_REMATCH[2]}"]=${BASH_REMATCH[3]}
	done <"$WORK/$1.out"
	V_LOADED=$1
}
value() {
	local k
	[ "$V_LOADED" = "$1" ] || load_env "$1"
	k="$2:$3"
	if [[ -v V[$k] ]]; then printf '%s' "${V[$k]}"; else printf '<unset>'; fi
}
# load_json FILE: J[field]=value for every "field":scalar in one of our one-line records.
declare -A J
load_json() {
	local s=""
	J=()
	[ -f "$1" ] && s=$(<"$1")
	while [[ $s =~ \"([a-z_]+)\":(\"[^\"]*\"|-?[0-9]+|null|true|false)(.*) ]]; do
		J[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]//\"/}
		s=${BASH_REMATCH[3]}
	done
}
json_field() { # json_field FILE FIELD
	load_json "$1"
	printf '%s' "${J[$2]-}"
}
# sbatch_wait NAME ARGS...: sbatch --parsable, then poll until the job left the queue
# (sbatch --wait polls with a growing interval: seconds lost per job).
sbatch_wait() {
	local name=$1 j deadline=$((SECONDS + 120)) st
	shift
	run "$name" sbatch --parsable "$@"
	j=$(cut -d';' -f1 "$WORK/$name.out")
	[ "$(rc_of "$name")" = 0 ] && [ -n "$j" ] || return 0
	while [ $SECONDS -lt $deadline ]; do
		st=$(squeue -h -j "$j" -o %T 2>/dev/null)
		case $st in '' | COMPLETED | FAILED | CANCELLED | TIMEOUT) break ;; esac
		sleep 0.2
	done
	[ -z "$st" ] || [ "$st" = COMPLETED ] || echo 1 >"$WORK/$name.rc"
}
wait_file() { # wait_file SECONDS FILE
	local deadline=$((SECONDS + $1))
	until [ -e "$2" ]; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.2
	done
}

TASK_SCRIPT='echo JOB=$SLURM_JOB_ID; echo PID=$$; env | LC_ALL=C sort'
# What NCCL does with NCCL_DEBUG_FILE: %p becomes the pid, the file is created.
NCCL_WRITE='[ -z "${NCCL_DEBUG_FILE:-}" ] || echo "rank $SLURM_PROCID on $SLURMD_NODENAME" >"${NCCL_DEBUG_FILE/\%p/$$}"'
SRUN4=(srun -N2 -n4 --ntasks-per-node=2 -l)

echo "# plugin $PLUGIN, testbed $DIR, spool $SPOOL"
install_plugin "spool=$SPOOL"

# ---------------------------------------------------------------- 1. srun --help
run help srun --help
check "srun --help lists --denpex=on|off" "$(grep -i denpex "$WORK/help.out")" grep -q -- '--denpex=on|off' "$WORK/help.out"

# ---------------------------------------------------------------- 2. the task environment
run env4 "${SRUN4[@]}" bash -c "$TASK_SCRIPT; $NCCL_WRITE"
JOB=$(job_of env4)
check "srun -N2 -n4 runs (rc 0, job id seen)" "$(both env4)" test "$(rc_of env4)" = 0 -a -n "$JOB"
JD="$SPOOL/$JOB"
bad=""
for r in 0 1 2 3; do
	node=node$((r / 2 + 1))
	want=(
		"NCCL_DEBUG=INFO"
		"NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,ENV,NET"
		"NCCL_DEBUG_FILE=$JD/nccl/nccl.$node.%p.log"
		"NCCL_DEBUG_TIMESTAMP_LEVELS=ALL"
		"NCCL_DEBUG_TIMESTAMP_FORMAT=[%F %T.%6f] "
		"TORCH_FR_BUFFER_SIZE=20000"
		"TORCH_NCCL_TRACE_BUFFER_SIZE=20000"
		"TORCH_FR_DUMP_ON_TIMEOUT=1"
		"TORCH_NCCL_DUMP_ON_TIMEOUT=1"
		"TORCH_FR_DUMP_TEMP_FILE=$JD/fr/rank_"
		"TORCH_NCCL_DEBUG_INFO_TEMP_FILE=$JD/fr/rank_"
		"TORCH_NCCL_DEBUG_INFO_PIPE_FILE=$JD/pipe/rank_"
		"TORCHELASTIC_ERROR_FILE=$JD/torchelastic/error.0.$r.json"
		"SLURMD_NODENAME=$node"
	)
	for w in "${want[@]}"; do
		got=$(value env4 "$r" "${w%%=*}")
		[ "$got" = "${w#*=}" ] || bad="$bad
rank $r: ${w%%=*}='$got', want '${w#*=}'"
	done
done
check "every task of srun -N2 -n4 gets the NCCL/flight-recorder variables (node name literal, %p)" "$bad" test -z "$bad"

# nccl_files_check NAME DIR RANK:NODE...: each rank's NCCL debug file (written
# by NCCL_WRITE) is DIR/nccl.<its own node>.<its pid>.log, and there are no
# others. Sets bad.
nccl_files_check() {
	local name=$1 dir=$2 rn r node pid f files
	shift 2
	bad=""
	for rn in "$@"; do
		r=${rn%%:*} node=${rn#*:}
		pid=$(value "$name" "$r" PID)
		f="$dir/nccl.$node.$pid.log"
		[ "$(cat "$f" 2>&1)" = "rank $r on $node" ] || bad="$bad
rank $r: $f: $(cat "$f" 2>&1)"
	done
	files=$(find "$dir" -name 'nccl.*.log' 2>/dev/null | wc -l)
	[ "$files" = $# ] || bad="$bad
$files NCCL files, want $#"
	[ -z "$bad" ] || bad="$bad
$(cd "$dir" 2>&1 && grep -H . nccl.*.log 2>&1)"
}
nccl_files_check env4 "$JD/nccl" 0:node1 1:node1 2:node2 3:node2
check "srun: each rank's NCCL debug file carries its own node and pid (nccl.node2.* for ranks 2, 3)" "$bad" test -z "$bad"

# ---------------------------------------------------------------- 3. the rank map
bad=""
for r in 0 1 2 3; do
	f="$JD/ranks/0.$r.json"
	if [ ! -f "$f" ]; then
		bad="$bad
missing $f"
		continue
	fi
	node=node$((r / 2 + 1))
	pid=$(value env4 "$r" PID)
	load_json "$f"
	for kv in "job=$JOB" "step=0" "task=$r" "local_task=$((r % 2))" "node_id=$((r / 2))" "node=$node" \
		"pid=$pid" "nnodes=2" "ntasks=4" "kind=rank"; do
		got=${J[${kv%%=*}]-}
		[ "$got" = "${kv#*=}" ] || bad="$bad
$f: ${kv%%=*}=$got, want ${kv#*=}"
	done
	for k in btime realtime_ns utc_offset_s srun_realtime_ns launch_delta_ns; do
		got=${J[$k]-}
		case $got in '' | null) bad="$bad
$f: no clock fact $k" ;; esac
	done
done
n=$(find "$JD/ranks" -name '*.json' 2>/dev/null | wc -l)
[ "$n" = 4 ] || bad="$bad
$n rank files, want 4: $(ls -A "$JD/ranks" 2>&1)"
check "rank map: 4 tasks on 2 nodes with job, step, task, local task, node id, node, pid, clock facts" "$bad" test -z "$bad"
tmpfiles=$(find "$JD/ranks" "$JD/exits" -name '*.tmp.*' 2>&1)
check "no temp files left in ranks/ and exits/" "$tmpfiles" test -d "$JD/ranks" -a -z "$tmpfiles"
bad=""
for d in "$JD" "$JD/ranks" "$JD/exits" "$JD/nccl" "$JD/fr"; do
	m=$(stat -c '%a %U' "$d" 2>&1)
	[ "$m" = "750 root" ] || bad="$bad
$d: $m"
done
check "job spool dirs are mode 750, owned by the job user (root here)" "$bad" test -z "$bad"

# ---------------------------------------------------------------- 4. hand-off to the epilog
envf="$DIR/records/epilog/$JOB.node1.env"
wait_file 30 "$envf"
check "epilog sees SPANK_DENPEX_SPOOL (job control env from init_post_opt)" "$(grep SPANK "$envf" 2>&1)" \
	grep -qx "SPANK_DENPEX_SPOOL=$SPOOL" "$envf"
check "epilog sees SPANK_DENPEX_OPTOUT=0" "$(grep SPANK "$envf" 2>&1)" grep -qx "SPANK_DENPEX_OPTOUT=0" "$envf"

# ---------------------------------------------------------------- 5. a user's own value wins
run user env NCCL_DEBUG=WARN TORCH_NCCL_TRACE_BUFFER_SIZE=0 "${SRUN4[@]}" bash -c "$TASK_SCRIPT"
bad=""
for r in 0 1 2 3; do
	[ "$(value user $r NCCL_DEBUG)" = WARN ] || bad="$bad
rank $r: NCCL_DEBUG=$(value user $r NCCL_DEBUG)"
	[ "$(value user $r NCCL_DEBUG_FILE)" = "<unset>" ] || bad="$bad
rank $r: NCCL_DEBUG_FILE=$(value user $r NCCL_DEBUG_FILE) although the user chose NCCL_DEBUG"
	[ "$(value user $r TORCH_NCCL_TRACE_BUFFER_SIZE)" = 0 ] || bad="$bad
rank $r: TORCH_NCCL_TRACE_BUFFER_SIZE=$(value user $r TORCH_NCCL_TRACE_BUFFER_SIZE)"
	[ "$(value user $r TORCH_FR_BUFFER_SIZE)" = "<unset>" ] || bad="$bad
rank $r: TORCH_FR_BUFFER_SIZE set although the user set the old name"
	[ "$(value user $r NCCL_DEBUG_TIMESTAMP_LEVELS)" = ALL ] || bad="$bad
rank $r: NCCL_DEBUG_TIMESTAMP_LEVELS not set"
done
check "a user-set NCCL_DEBUG=WARN (and TORCH_NCCL_TRACE_BUFFER_SIZE=0) survives" "$bad$(both user)" \
	test "$(rc_of user)" = 0 -a -z "$bad"

# ---------------------------------------------------------------- 6. opting out
optout_check() { # optout_check NAME DESCRIPTION
	local name=$1 what=$2 j leaked
	j=$(job_of "$name")
	leaked=$(grep -E '^ *[0-9]+: (NCCL_|TORCH_|TORCHELASTIC_)' "$WORK/$name.out")
	if [ "$(rc_of "$name")" = 0 ] && [ -n "$j" ] && [ -z "$leaked" ] && [ ! -e "$SPOOL/$j" ]; then
		ok "$what sets nothing and records nothing"
	else
		not_ok "$what sets nothing and records nothing" "rc=$(rc_of "$name") job=$j
$leaked
$(ls -la "$SPOOL/$j" 2>&1)
$(err "$name")"
	fi
}
run off "${SRUN4[@]}" --denpex=off bash -c "$TASK_SCRIPT"
optout_check off "srun --denpex=off"
run envoff env DENPEX=off "${SRUN4[@]}" bash -c "$TASK_SCRIPT"
optout_check envoff "DENPEX=off srun"
j=$(job_of off)
envf="$DIR/records/epilog/$j.node1.env"
wait_file 30 "$envf"
check "epilog of an opted-out job sees SPANK_DENPEX_OPTOUT=1" "$(grep SPANK "$envf" 2>&1)" \
	grep -qx "SPANK_DENPEX_OPTOUT=1" "$envf"

cat >"$WORK/batch.sh" <<'EOF'
#!/bin/bash
echo "JOB=$SLURM_JOB_ID"
echo "batch NCCL_DEBUG=${NCCL_DEBUG-<unset>}"
srun -l bash -c "$1"
EOF
chmod 755 "$WORK/batch.sh"
sbatch_wait sbatch_off --denpex=off -N2 --ntasks-per-node=1 -o "$WORK/sbatch_off.job" "$WORK/batch.sh" "$TASK_SCRIPT; $NCCL_WRITE"
j=$(sed -n 's/^JOB=//p' "$WORK/sbatch_off.job" 2>/dev/null)
leaked=$(grep -E 'NCCL_|TORCH_' "$WORK/sbatch_off.job" | grep -v '^batch NCCL_DEBUG=<unset>$')
if [ "$(rc_of sbatch_off)" = 0 ] && [ -n "$j" ] && [ -z "$leaked" ] && [ ! -e "$SPOOL/$j" ] &&
	grep -q '^batch NCCL_DEBUG=<unset>$' "$WORK/sbatch_off.job"; then
	ok "sbatch --denpex=off: the batch script and its srun steps get nothing, nothing recorded"
else
	not_ok "sbatch --denpex=off: the batch script and its srun steps get nothing, nothing recorded" \
		"rc=$(rc_of sbatch_off) job=$j $(cat "$WORK/sbatch_off.job" 2>&1) $(both sbatch_off)"
fi
sbatch_wait sbatch_on -N2 --ntasks-per-node=1 -o "$WORK/sbatch_on.job" "$WORK/batch.sh" "$TASK_SCRIPT; $NCCL_WRITE"
j=$(sed -n 's/^JOB=//p' "$WORK/sbatch_on.job" 2>/dev/null)
n=$(grep -c "NCCL_DEBUG_FILE=$SPOOL/$j/nccl/" "$WORK/sbatch_on.job" 2>/dev/null)
if [ "$(rc_of sbatch_on)" = 0 ] && grep -q '^batch NCCL_DEBUG=INFO$' "$WORK/sbatch_on.job" && [ "$n" = 2 ] &&
	[ -f "$SPOOL/$j/ranks/batch.0.json" ] && [ -f "$SPOOL/$j/ranks/0.1.json" ]; then
	ok "sbatch: the batch script and its srun step get the variables; ranks/batch.0.json and 0.*.json"
else
	not_ok "sbatch: the batch script and its srun step get the variables; ranks/batch.0.json and 0.*.json" \
		"rc=$(rc_of sbatch_on) job=$j n=$n $(cat "$WORK/sbatch_on.job" 2>&1) $(ls -R "$SPOOL/$j" 2>&1)"
fi
# The batch script's own variables (node1, task 0) reach the step through srun;
# they must not pass for the user's: every rank gets its own node and task id.
cp "$WORK/sbatch_on.job" "$WORK/sbatch_on_job.out" 2>/dev/null || : >"$WORK/sbatch_on_job.out"
load_env sbatch_on_job
bad=""
for kv in "0:node1" "1:node2"; do
	r=${kv%%:*} node=${kv#*:}
	for w in "NCCL_DEBUG_FILE=$SPOOL/$j/nccl/nccl.$node.%p.log" "TORCHELASTIC_ERROR_FILE=$SPOOL/$j/torchelastic/error.0.$r.json" \
		"SLURMD_NODENAME=$node"; do
		got=$(value sbatch_on_job "$r" "${w%%=*}")
		[ "$got" = "${w#*=}" ] || bad="$bad
rank $r: ${w%%=*}='$got', want '${w#*=}'"
	done
done
b1=$bad
nccl_files_check sbatch_on_job "$SPOOL/$j/nccl" 0:node1 1:node2
check "sbatch: each srun rank gets its own node's NCCL debug file and its own error file, not the batch step's" \
	"$b1$bad" test -z "$b1$bad"

# ---------------------------------------------------------------- 7. which task ended first
# Task 2 (node2) kills itself with SIGKILL after 1 s, task 1 exits 3 after 2 s,
# tasks 0 and 3 sleep 3.5 s.
run kill "${SRUN4[@]}" bash -c 'echo JOB=$SLURM_JOB_ID
case $SLURM_PROCID in 2) sleep 1; kill -9 $$ ;; 1) sleep 2; exit 3 ;; esac; sleep 3.5'
JOB=$(job_of kill)
ED="$SPOOL/$JOB/exits"
bad=""
n=$(find "$ED" -name '0.*.json' 2>/dev/null | wc -l)
[ "$n" = 4 ] || bad="$n exit records, want 4: $(ls -A "$ED" 2>&1)"
first=$(for f in "$ED"/0.*.json; do printf '%s %s\n' "$(json_field "$f" time_ns)" "$f"; done | sort -n | head -n 1 | cut -d' ' -f2)
if [ -n "$first" ] && [ -f "$first" ]; then
	load_json "$first"
	for kv in task=2 node=node2 node_id=1 local_task=0 signal=9 signal_name=SIGKILL exit_code=null kind=task_exit; do
		got=${J[${kv%%=*}]-}
		[ "$got" = "${kv#*=}" ] || bad="$bad
first record $first: ${kv%%=*}=$got, want ${kv#*=}"
	done
else
	bad="$bad
no exit records in $ED"
fi
[ "$(json_field "$ED/0.1.json" exit_code)" = 3 ] || bad="$bad
task 1: exit_code=$(json_field "$ED/0.1.json" exit_code), want 3"
check "exit records: the first task to end is task 2 on node2, killed by SIGKILL; task 1 exit code 3" \
	"$bad
$(cat "$ED"/*.json 2>&1)
$(both kill)" test -z "$bad" -a "$(rc_of kill)" != 0

# ---------------------------------------------------------------- 8. bad values at submission
run badopt srun --denpex=maybe true
check "srun --denpex=maybe is rejected with a clear message" "rc=$(rc_of badopt) $(both badopt)" \
	sh -c "[ $(rc_of badopt) != 0 ] && grep -q 'denpex: --denpex=maybe: invalid value, expected on or off' '$WORK/badopt.err'"
run badsb sbatch --denpex=maybe --wrap true
check "sbatch --denpex=maybe is rejected" "rc=$(rc_of badsb) $(both badsb)" \
	sh -c "[ $(rc_of badsb) != 0 ] && grep -q 'denpex: --denpex=maybe: invalid value' '$WORK/badsb.err'"
# With the shipped `optional` line Slurm ignores a failing init_post_opt: a bad
# $DENPEX is reported and the job runs with the default; `required` rejects it.
run badenv env DENPEX=perhaps srun -l env
check "DENPEX=perhaps srun (optional plugin): a clear error, the job runs with the default" "rc=$(rc_of badenv) $(both badenv)" \
	sh -c "[ $(rc_of badenv) = 0 ] && grep -q 'denpex: DENPEX=perhaps: invalid value' '$WORK/badenv.err' &&
	       grep -q '^0: NCCL_DEBUG=INFO$' '$WORK/badenv.out'"
KIND=required install_plugin "spool=$SPOOL"
run badenv2 env DENPEX=perhaps srun true
check "DENPEX=perhaps srun (required plugin) is rejected with a clear message" "rc=$(rc_of badenv2) $(both badenv2)" \
	sh -c "[ $(rc_of badenv2) != 0 ] && grep -q 'denpex: DENPEX=perhaps: invalid value' '$WORK/badenv2.err'"
install_plugin "spool=$SPOOL"

# ---------------------------------------------------------------- 9. a non-root job user
if [ -n "$USER_NAME" ] && id "$USER_NAME" >/dev/null 2>&1; then
	# Each task writes where NCCL, the flight recorder, its dump pipe and
	# torchelastic would, as the job user.
	run asuser runuser -u "$USER_NAME" -- srun -N2 -n2 --ntasks-per-node=1 -l bash -c "$TASK_SCRIPT"'
		echo nccl >"${NCCL_DEBUG_FILE/\%p/$$}" && echo fr >"$TORCH_FR_DUMP_TEMP_FILE$SLURM_PROCID" &&
		mkfifo "$TORCH_NCCL_DEBUG_INFO_PIPE_FILE$SLURM_PROCID.pipe" && echo "{}" >"$TORCHELASTIC_ERROR_FILE" &&
		echo WROTE=ok'
	j=$(job_of asuser)
	bad=""
	for r in 0 1; do
		[ "$(value asuser $r WROTE)" = ok ] || bad="$bad
task $r could not write its NCCL/flight recorder/pipe/error files"
	done
	[ -f "$SPOOL/$j/fr/rank_1" ] && [ -p "$SPOOL/$j/pipe/rank_1.pipe" ] && [ -f "$SPOOL/$j/torchelastic/error.0.1.json" ] &&
		[ "$(find "$SPOOL/$j/nccl" -name 'nccl.node2.*.log' | wc -l)" = 1 ] || bad="$bad
files missing: $(find "$SPOOL/$j" 2>&1)"
	for d in "$SPOOL/$j" "$SPOOL/$j/ranks" "$SPOOL/$j/nccl" "$SPOOL/$j/exits" "$SPOOL/$j/ranks/0.1.json" "$SPOOL/$j/exits/0.1.json"; do
		m=$(stat -c '%U' "$d" 2>&1)
		[ "$m" = "$USER_NAME" ] || bad="$bad
$d: owner $m"
	done
	[ "$(stat -c %a "$SPOOL/$j" 2>&1)" = 750 ] || bad="$bad
$SPOOL/$j: mode $(stat -c %a "$SPOOL/$j" 2>&1)"
	check "a job of $USER_NAME: spool dir and records owned by $USER_NAME (mode 750), its tasks can write the NCCL/FR/pipe/error files" "$bad$(both asuser)" \
		test "$(rc_of asuser)" = 0 -a -z "$bad"
else
	not_ok "job user $USER_NAME exists (the testbed creates it)"
fi

# ---------------------------------------------------------------- 10. a missing spool never fails the job
install_plugin "spool=$DIR/no-such-spool"
run nospool "${SRUN4[@]}" bash -c "$TASK_SCRIPT"
check "a missing spool: the job runs (rc 0) with NCCL_DEBUG but without file variables" "$(both nospool)" \
	test "$(rc_of nospool)" = 0 -a "$(value nospool 3 NCCL_DEBUG)" = INFO -a "$(value nospool 3 NCCL_DEBUG_FILE)" = "<unset>"

# ---------------------------------------------------------------- 11. a bad plugstack argument
install_plugin "spool=$SPOOL" "bogus=1"
run badconf "${SRUN4[@]}" bash -c "$TASK_SCRIPT"
check "a bad plugstack argument is reported clearly and the job still runs without diagnostics" "$(both badconf)" \
	sh -c "[ $(rc_of badconf) = 0 ] &&
	       grep -q \"denpex: plugstack.conf: bad argument 'bogus=1': unknown key\" '$WORK/badconf.err' &&
	       ! grep -q 'NCCL_DEBUG=' '$WORK/badconf.out'"
install_plugin "spool=$SPOOL" "trace_buffer=lots"
run badconf2 srun true
check "a bad plugstack value names the argument" "$(both badconf2)" \
	grep -q "denpex: plugstack.conf: bad argument 'trace_buffer=lots'" "$WORK/badconf2.err"
install_plugin "spool=$SPOOL"

echo "# $((SECONDS - t_start)) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
