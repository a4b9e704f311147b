#!/bin/sh
# Trust boundaries of denpex-epilog on a real Slurm (tests/slurm/testbed),
# with two unprivileged users: $JOBUSER runs ordinary failing jobs, $EVIL
# attacks them. Issue 12, one section per item:
#   1  kernel messages: only those attributable to the job (a root process
#      OOM-killed in another cgroup, the same user's previous job's OOM kill)
#   2  a world-writable (1777) spool: forged job dirs, a planted state dir
#   3  a leftover job dir is never handed to the next owner of the job id;
#      a job's spool dir is gone after its epilog
#   4  a hardware message printed by the job is a claim, not evidence
#   5  sparse files cost no staging
#   6  slurmdbd down at job end: the verdict is queued and flushed
#   7  the job's stdout before the spool's files in the byte budget
#   8  bare SIGKILL says its confidence; JobLaunchFailure; a requeued run
#      does not count the earlier run's task exits
#   9  messages: the report cites the original files; the config path of
#      this build; by hand as a user, without Slurm, with a made-up job id
# Every check compares what a user or admin would see; each fails with the
# epilog and plugin from before issue 12 (DENPEX_EPILOG, DENPEX_SPANK_PLUGIN
# and DENPEX_CONF_DIR pointed at such a build).
#
# Kernel OOM kills are real (cgroup v1 or v2 memory limits, set up here and
# removed at the end): root is needed. Not root: SKIP (77) outside CI, a
# failure in CI ($CI set). Starts the testbed if it is not up, stops it if it
# started it (DENPEX_TESTBED_KEEP=1 keeps it). Settings as
# epilog_integration.sh, plus DENPEX_TESTBED_USER2 (the hostile user,
# default denpexother). Prints "N passed, N failed"; exit 1 on any failure.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u

NAME=trust-it
# A 1777 spool (the man page allows it) with the state dir inside, like the
# default; one node per job.
HARNESS_USER2=1 HARNESS_SPOOL_MODE=1777 HARNESS_STATE=spool/.epilog HARNESS_MAX_TOTAL=4M HARNESS_RUNS=2
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/harness.sh"
harness_need_root
command -v python3 >/dev/null || die "python3 not found"
MAN_EPILOG=${DENPEX_MAN_EPILOG:-$top_builddir/man/denpex-epilog.8}

# Memory cgroups for real OOM kills: v2 (memory.max) or v1 (memory.limit_in_bytes).
CG_NAME=denpex-trust-$$
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG=/sys/fs/cgroup/$CG_NAME
	# The memory controller must reach $CG's children (no process lives in
	# $CG itself, so enabling it there is allowed).
	cg_limit() {
		mkdir -p "$CG" || return 1
		grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
			echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		grep -qw memory "$CG/cgroup.subtree_control" || echo +memory >"$CG/cgroup.subtree_control" || return 1
		mkdir -p "$CG/$1" && echo "$2" >"$CG/$1/memory.max" &&
			{ echo 0 >"$CG/$1/memory.swap.max"; true; } 2>/dev/null
	}
else
	CG=/sys/fs/cgroup/memory/$CG_NAME
	cg_limit() {
		mkdir -p "$CG/$1" && echo "$2" >"$CG/$1/memory.limit_in_bytes" &&
			{ echo "$2" >"$CG/$1/memory.memsw.limit_in_bytes"; true; } 2>/dev/null
	}
fi
cg_remove() {
	local d p
	[ -d "$CG" ] || return 0
	for d in "$CG"/*/; do
		[ -d "$d" ] || continue
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		sleep 0.2
		rmdir "$d" 2>/dev/null
	done
	rmdir "$CG" 2>/dev/null
}

harness_on_exit() { cg_remove; }
harness_setup

# A program that eats memory when told to (its pid first, for the test).
cat >"$WORK/jobs/eat.py" <<'PY'
import os, sys, time
job = os.environ.get("SLURM_JOB_ID", "x")
d = sys.argv[1]
with open(f"{d}/pid-{job}", "w") as f:
    f.write(str(os.getpid()))
while not os.path.exists(f"{d}/go-{job}"):
    time.sleep(0.1)
b = bytearray(1 << 30)
for i in range(0, len(b), 4096):
    b[i] = 1
time.sleep(5)
PY
chmod 644 "$WORK/jobs/eat.py"

# ---------------------------------------------------------------- helpers
submit_as() { # submit_as USER NAME [sbatch options...] -- script body
	local user=$1 name=$2
	shift 2
	local opts=()
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	local script=$WORK/jobs/$name.sh
	printf '#!/bin/bash\n%s\n' "$*" >"$script"
	chmod 755 "$script"
	local out="-o $WORK/jobs/$name-%j.out -e $WORK/jobs/$name-%j.err"
	case " ${opts[*]:-} " in *" -o "*) out="" ;; esac
	su -s /bin/sh "$user" -c "cd $WORK/jobs && SLURM_CONF=$SLURM_CONF sbatch --parsable -J $name -N1 -n1 -w node1 $out ${opts[*]:-} $script" 2>>"$WORK/sbatch.err"
}
submit() { submit_as "$JOBUSER" "$@"; }

# ---------------------------------------------------------------- 2: planted state dir
# Before any diagnosis made it, the hostile user creates the state dir
# (a symlink, then a directory): every later verdict must still come.
su -s /bin/sh "$EVIL" -c "mkdir -p $WORK/jobs/evil-target && ln -s $WORK/jobs/evil-target $STATE"
j=$(submit st1 -- "python3 -c '1/0'")
[ -n "$j" ] || { cat "$WORK/sbatch.err"; die "sbatch"; }
if wait_epilogs "$j"; then
	c=$(comment_of "$j")
	check "2 state dir planted as a symlink: verdict still written (Comment '$c')" matches "$c" '^denpex: python_exception'
	check "2 state dir planted as a symlink: nothing written into the user's target" test -z "$(ls -A "$WORK/jobs/evil-target")"
else
	bad "2 state dir planted as a symlink: epilogs did not finish"
fi
rm -rf "$STATE"
su -s /bin/sh "$EVIL" -c "mkdir -m 0777 $STATE"
j=$(submit st2 -- "python3 -c '1/0'")
if wait_epilogs "$j"; then
	c=$(comment_of "$j")
	check "2 state dir planted as a directory: verdict still written (Comment '$c')" matches "$c" '^denpex: python_exception'
	check "2 state dir: now root's, 0700" test "$(stat -c '%U %a' "$STATE" 2>/dev/null)" = "root 700"
else
	bad "2 state dir planted as a directory: epilogs did not finish"
fi
# From here on a state dir of root's, whatever happened above: the other
# items must not depend on this one.
rm -rf "$STATE"

# ---------------------------------------------------------------- 2: forged job dirs
# The hostile user pre-creates the dirs of the next job ids with a fake Xid;
# the victim's ZeroDivisionError must stay a python_exception, never drain.
next=$(next_job_id)
for id in $next $((next + 1)) $((next + 2)); do
	su -s /bin/sh "$EVIL" -c "mkdir -p -m 0755 $SPOOL/$id/nccl && echo 'NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.' >$SPOOL/$id/nccl/node1.log && chmod 644 $SPOOL/$id/nccl/node1.log"
done
j=$(submit forged -- "python3 -c '1/0'")
if [ -n "$j" ] && [ "$j" -ge "$next" ] && [ "$j" -le $((next + 2)) ] && wait_epilogs "$j"; then
	c=$(comment_of "$j")
	check "2 forged job dir: verdict is the job's own (Comment '$c')" matches "$c" '^denpex: python_exception'
	check "2 forged job dir: no gpu_hardware / drain_node" not_matches "$c" 'gpu_hardware|drain_node'
	check "2 forged job dir: no node drained" no_drain
else
	bad "2 forged job dir: job id $j not predicted ($next..) or epilogs did not finish"
fi
for id in $next $((next + 1)) $((next + 2)); do [ "$id" = "$j" ] || rm -rf "${SPOOL:?}/$id"; done
# The spool dir of a finished job is gone (3: nothing for the next owner).
check "3 the job's spool dir is removed after its epilog" test ! -e "$SPOOL/$j"

# ---------------------------------------------------------------- 3: leftover dir
# A dir left from an earlier job with the next id (root's, as slurmstepd
# leaves it; a file of the earlier job's user in it, 0644 as Python writes
# them): the next owner of the id must not read it.
next=$(next_job_id)
TOKEN3="DENPEX-EARLIER-JOB-$$-$RANDOM"
mkdir -p -m 0750 "$SPOOL/$next/nccl"
echo "$TOKEN3" >"$SPOOL/$next/nccl/old.log"
chown "$JOBUSER" "$SPOOL/$next/nccl/old.log"
chmod 644 "$SPOOL/$next/nccl/old.log"
j=$(submit_as "$EVIL" steal -- "cat $SPOOL/\$SLURM_JOB_ID/nccl/old.log; exit 0")
if [ "$j" = "$next" ] && wait_epilogs "$j"; then
	check "3 leftover job dir: the next owner of the id does not read the earlier job's file" \
		sh -c "! grep -qF '$TOKEN3' '$WORK/jobs/steal-$j.out'"
else
	bad "3 leftover job dir: job id $j is not the predicted $next, or epilogs did not finish"
fi
rm -rf "${SPOOL:?}/$next"

# ---------------------------------------------------------------- 4: claims
j=$(submit echo-xid -- "echo 'NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, GPU has fallen off the bus.'; exit 1")
if wait_epilogs "$j"; then
	c=$(comment_of "$j")
	check "4 an Xid line the job printed: a verdict, no gpu_hardware / drain_node (Comment '$c')" \
		sh -c "echo '$c' | grep -q '^denpex: ' && ! echo '$c' | grep -Eq 'gpu_hardware|drain_node'"
	check "4 an Xid line the job printed: the report calls it a claim" \
		sh -c "grep -q 'claim by the job' '$WORK/reports/$j.txt'"
	check "4 an Xid line the job printed: no node drained" no_drain
else
	bad "4 an Xid line the job printed: epilogs did not finish"
fi

# ---------------------------------------------------------------- 5: sparse files
j=$(submit sparse -- "for i in \$(seq 1 20); do truncate -s 16M $SPOOL/\$SLURM_JOB_ID/nccl/sparse\$i.log; done
python3 -c '1/0'")
if wait_epilogs "$j"; then
	staged=$(report "$j" | sed -n 's|.*/nccl/sparse[0-9]*\.log -> [^ ]* (\([0-9]*\) of .*|\1|p' | awk '{ s += $1 } END { print s + 0 }')
	check "5 twenty 16 MB sparse files: $staged bytes staged (at most 64 KiB)" test "$staged" -le 65536
	check "5 sparse files: the staging is removed after the diagnosis" test ! -e "$STATE/$j"
else
	bad "5 sparse files: epilogs did not finish"
fi

# Per node: every job's staging together stays under max_state_bytes.
CONF_EXTRA="max_state_bytes: 6M" write_conf
mkdir -p "$STATE/leftover" && head -c 8M /dev/urandom >"$STATE/leftover/copy"
j=$(submit capped -- "python3 -c '1/0'")
if wait_epilogs "$j"; then
	check "5 state_dir over max_state_bytes: the job's copies are capped, and the report says so" \
		sh -c "grep -q 'bytes left for this job' '$WORK/reports/$j.txt'"
else
	bad "5 max_state_bytes: epilogs did not finish"
fi
rm -rf "${STATE:?}/leftover"
write_conf

# ---------------------------------------------------------------- 7: stdout first
j=$(submit budget -- "for i in 1 2 3 4 5 6; do yes 'filler line of the run, nothing to see here' | head -c 1048576 >$SPOOL/\$SLURM_JOB_ID/nccl/fill\$i.log; done
python3 -c 'd = {}; d[\"learning_rate\"]' 2>&1
exit 1")
if wait_epilogs "$j"; then
	c=$(comment_of "$j")
	check "7 spool files over the byte budget: the KeyError in stdout is read (Comment '$c')" matches "$c" '^denpex: python_exception.*KeyError'
else
	bad "7 stdout first: epilogs did not finish"
fi

# ---------------------------------------------------------------- 8: verdicts
j=$(submit sigkill -n2 -- "srun -n2 bash -c 'if [ \$SLURM_PROCID = 1 ]; then sleep 1; kill -9 \$\$; fi; sleep 4'")
if wait_epilogs "$j"; then
	c=$(comment_of "$j")
	if ! matches "$c" '^denpex: '; then
		bad "8 bare SIGKILL: no verdict (Comment '$c')"
	elif matches "$c" 'host_oom'; then
		check "8 bare SIGKILL: host_oom only with its low confidence shown (Comment '$c')" matches "$c" 'low confidence'
	else
		ok "8 bare SIGKILL: not host_oom (Comment '$c')"
	fi
else
	bad "8 bare SIGKILL: epilogs did not finish"
fi
j=$(submit nolaunch -o /nonexistent-denpex-$$/out.log -- "echo never")
if wait_epilogs "$j"; then
	c=$(comment_of "$j")
	check "8 stdout cannot be opened (JobLaunchFailure): launch_failure (Comment '$c')" matches "$c" '^denpex: launch_failure'
else
	bad "8 JobLaunchFailure: epilogs did not finish"
fi
j=$(submit requeue --requeue -- "if [ \${SLURM_RESTART_COUNT:-0} = 0 ]; then srun -n1 bash -c 'exit 3'; touch $WORK/jobs/first-\$SLURM_JOB_ID; sleep 300; fi
python3 -c '1/0'")
if wait_file "$WORK/jobs/first-$j" && scontrol requeue "$j" && wait_state "$j" PENDING &&
	scontrol update jobid="$j" StartTime=now && wait_epilogs "$j" 4; then
	r=$(report "$j.r1")
	check "8 requeued: the new run's report exists" test -n "$r"
	check "8 requeued: the new run's report has none of the old run's task exits (code 3)" \
		sh -c "[ -n \"\$1\" ] && ! echo \"\$1\" | grep -Eq 'code 3\b'" - "$r"
else
	bad "8 requeued: the job did not run twice or epilogs did not finish"
fi

# ---------------------------------------------------------------- 9: messages
# A stderr longer than max_bytes_per_file (1M): the traceback is in the
# copy's tail, and the report must give its line in the original file.
j=$(submit cite -- "python3 -c 'import sys
for i in range(200000): print(\"step\", i, \"loss 0.25\", file=sys.stderr)
1/0'")
if wait_epilogs "$j"; then
	r=$(report "$j")
	errf=$WORK/jobs/cite-$j.err
	check "9 the report cites the job's own stderr file" matches "$r" "$errf"
	check "9 the report cites no staging copy" not_matches "$r" "$STATE/"
	n=$(echo "$r" | grep -o "$errf:[0-9]*" | head -1 | sed 's/.*://')
	check "9 the cited line ($n) is the traceback's line in the original file" \
		sh -c "[ -n '$n' ] && sed -n '${n:-0}p' '$errf' | grep -Eq 'Traceback|File \"<string>\"|ZeroDivisionError'"
else
	bad "9 report citations: epilogs did not finish"
fi
built=$("$EPILOG" --version 2>&1 | sed -n 's/.*(config \(.*\)).*/\1/p')
check "9 --version names the built-in config path ('$built')" test -n "$built"
check "9 the man page names that path" sh -c "[ -n '$built' ] && grep -qF -- '$built' '$MAN_EPILOG'"
out=$(su -s /bin/sh "$JOBUSER" -c "env -i SLURM_SCRIPT_CONTEXT=epilog_slurmd SLURM_JOB_ID=1 SLURMD_NODENAME=node1 $EPILOG -c $CONF" 2>&1)
check "9 as a user by hand: 'must run as root' ($out)" matches "$out" 'must run as root'
out=$(env -i "$EPILOG" -c "$CONF" 2>&1)
check "9 without Slurm: says so ($out)" matches "$out" 'not started by Slurm'
env -i SLURM_CONF="$SLURM_CONF" SLURM_SCRIPT_CONTEXT=epilog_slurmd SLURM_JOB_ID=987654 SLURMD_NODENAME=node1 \
	SLURM_NODELIST=node1 SLURM_JOB_EXIT_CODE=256 SLURM_JOB_UID="$(id -u "$JOBUSER")" \
	SLURM_JOB_GID="$(id -g "$JOBUSER")" "$EPILOG" -c "$CONF" >/dev/null 2>&1
check "9 a made-up job id gets no report" test ! -e "$WORK/reports/987654.txt"

# ---------------------------------------------------------------- 6: slurmdbd down
j=$(submit dbdown -- "sleep 4; python3 -c '1/0'")
wait_state "$j" RUNNING
dbd_pid=$(cat "$TESTBED_DIR/run/slurmdbd.pid" 2>/dev/null)
if [ -n "$dbd_pid" ] && kill "$dbd_pid" 2>/dev/null && wait_epilogs "$j"; then
	restart_testbed || bad "6 testbed restart after stopping slurmdbd"
	sleep 5
	check "6 slurmdbd down: the report says the verdict is queued" \
		sh -c "grep -q 'queued' '$WORK/reports/$j.txt'"
	"$EPILOG" -c "$CONF" --flush >/dev/null 2>&1
	sleep 2
	c=$(comment_of "$j")
	check "6 slurmdbd down at job end: verdict written by --flush (Comment '$c')" matches "$c" '^denpex: python_exception'
	check "6 the report records the later write" sh -c "grep -q 'written later' '$WORK/reports/$j.txt'"
else
	bad "6 slurmdbd down: could not stop slurmdbd or epilogs did not finish"
	restart_testbed
fi

# Last: the kernel OOM kills below stay in the kernel's buffer, and an
# epilog from before issue 12 would blame every later job for them.
# ---------------------------------------------------------------- 1: kernel messages
# A root process in a memory cgroup of its own, OOM-killed while the user's
# job runs: its name must not reach the job's Comment.
# The interpreter itself (command -v may name a wrapper such as a pyenv shim).
ln -sf "$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')" "$WORK/dpx-secret"
oom_root() {
	cg_limit other 48M || return 1
	# In braces: the shell's "Killed" notice goes to /dev/null too.
	{ sh -c "echo \$\$ >$CG/other/cgroup.procs && exec $WORK/dpx-secret -c 'b = bytearray(1 << 30)
for i in range(0, len(b), 4096): b[i] = 1'"; } >/dev/null 2>&1
	return 0
}
j=$(submit other-oom -- "sleep 6; exit 1")
if wait_state "$j" RUNNING && sleep 1 && oom_root && wait_epilogs "$j"; then
	c=$(comment_of "$j")
	check "1 another cgroup's OOM kill: a verdict ('$c')" matches "$c" '^denpex: '
	check "1 another cgroup's OOM kill: no process name of it in the Comment" not_matches "$c" 'dpx-secret'
	check "1 another cgroup's OOM kill: not host_oom" not_matches "$c" 'host_oom'
	check "1 another cgroup's OOM kill: admin report notes a node-level event" \
		sh -c "grep -q 'node-level events not attributed to this job' '$WORK/reports/$j.txt'"
	check "1 another cgroup's OOM kill: no process name in the admin report" \
		sh -c "! grep -q 'dpx-secret' '$WORK/reports/$j.txt' '$WORK/reports/$j.json'"
else
	bad "1 another cgroup's OOM kill: job $j did not run, no OOM kill, or epilogs did not finish"
fi

# The job's own task OOM-killed (moved into a limited cgroup): its kernel
# lines are the job's (pid, uid) and make the verdict.
j=$(submit own-oom -- "srun -n1 python3 $WORK/jobs/eat.py $WORK/jobs")
if wait_file "$WORK/jobs/pid-$j" && cg_limit own 64M &&
	echo "$(cat "$WORK/jobs/pid-$j")" >"$CG/own/cgroup.procs" && touch "$WORK/jobs/go-$j" && wait_epilogs "$j"; then
	c=$(comment_of "$j")
	check "1 the job's own OOM kill: host_oom (Comment '$c')" matches "$c" '^denpex: host_oom'
else
	bad "1 the job's own OOM kill: did not happen or epilogs did not finish"
fi
# The same user's next job on that node, right after: not an OOM.
j2=$(submit after-oom -- "exit 1")
if wait_epilogs "$j2"; then
	c=$(comment_of "$j2")
	check "1 the next job after an OOM kill: a verdict, not host_oom (Comment '$c')" \
		sh -c "echo '$c' | grep -q '^denpex: ' && ! echo '$c' | grep -q host_oom"
else
	bad "1 the next job after an OOM kill: epilogs did not finish"
fi
cg_remove

check "no node drained at the end" no_drain
finish
