#!/bin/sh
# Faults an admin can meet, injected into denpex-epilog and the SPANK plugin
# on the real test Slurm (tests/slurm/testbed, through harness.sh), issue 19:
#   the job's output vanishes, or is truncated while it is read; 10,000 files
#   in the job's spool; the report dir or the state dir full (a small tmpfs),
#   read-only or missing; slurmctld down; slurmdbd stopped (SIGSTOP) for
#   longer than the deadline; SIGTERM to the epilog at its start and in the middle; two
#   epilogs for one job at once; the node's clock off by hours (faketime on
#   the epilog alone: the host's clock is never touched); the epilog under
#   valgrind (memcheck; any error fails); the plugin under --denpex= values
#   that are empty, huge or not UTF-8, and plugstack arguments that are
#   duplicated, empty or enormous.
# Each case asserts: every epilog run exits 0 within the deadline, no node is
# drained, nothing is lost (the verdict reaches sacct's Comment, or the admin
# report says why not), and no byte of a root-only file (each job links one
# into its spool) reaches anything a user or the admin can read. At the end a
# fault table: fault, exit code, time, drained, what the user sees (Comment),
# what the admin sees (the report's verdict/accounting lines, or the log).
#
# Root needed (daemons, mounts): not root is a SKIP (77) outside CI and a
# failure in CI. Settings as harness.sh; CASES="vanish sigterm ..." runs only
# those cases. Prints "N passed, N failed"; exit 1 on any failure.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u

NAME=fault-it
HARNESS_RUNS=2 # one-node jobs: the node's Epilog and EpilogSlurmctld
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/harness.sh"
harness_need_root
for t in python3 faketime valgrind; do
	command -v "$t" >/dev/null || die "$t not found (see README.md's packages)"
done
T_START=$SECONDS
MOUNTS=()
DBD_STOPPED=""
PLUG_SAVED=""
harness_on_exit() {
	local m
	[ -z "$DBD_STOPPED" ] || kill -CONT "$DBD_STOPPED" 2>/dev/null
	for m in "${MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
}
harness_setup
want() { [ -z "${CASES:-}" ] || [[ " $CASES " == *" $1 "* ]]; }

CTL=$WORK/ctl FAULTS=$WORK/faults VG=$WORK/valgrind
VG_RUN=
[ -x "$top_builddir/libtool" ] && VG_RUN="$top_builddir/libtool --mode=execute"
mkdir -p "$CTL" "$FAULTS" "$VG"
chmod 700 "$CTL" "$FAULTS" "$VG"
SECRET=$WORK/secret
TOKEN="DENPEX-ROOT-ONLY-$$-$RANDOM$RANDOM"
echo "$TOKEN" >"$SECRET"
chmod 600 "$SECRET"

# The fault hook (replaces the harness's timed hook): per job, a conf of its
# own ($CTL/<job>.conf) and a fault mode on a node ($CTL/<job>.mode.<node>,
# or $CTL/<job>.mode for every node).
for h in "$HOOK" "$CHOOK"; do
	cat >"$h" <<HOOK
#!/bin/bash
c=$CTL/\$SLURM_JOB_ID
conf=$CONF
[ -f "\$c.conf" ] && conf=\$c.conf
mode=
if [ -n "\${SLURMD_NODENAME:-}" ]; then
	[ -f "\$c.mode" ] && mode=\$(cat "\$c.mode")
	[ -f "\$c.mode.\$SLURMD_NODENAME" ] && mode=\$(cat "\$c.mode.\$SLURMD_NODENAME")
fi
t0=\$(date +%s%N)
case "\$mode" in
vanish) rm -f \$(cat "\$c.paths"); "$EPILOG" -c "\$conf"; rc=\$? ;;
truncate)
	# The job's stdout shrinks and grows while the epilog copies it.
	f=\$(cat "\$c.paths")
	(for i in \$(seq 1 300); do truncate -s \$(( (i * 7919) % 2000000 )) "\$f"; sleep 0.005; done) &
	tp=\$!
	"$EPILOG" -c "\$conf"; rc=\$?
	kill \$tp 2>/dev/null; wait \$tp 2>/dev/null ;;
sigterm)
	# The SIGTERM once this node's share is done (it then waits for node2's),
	# not after a fixed time: on a loaded machine the gathering takes longer.
	"$EPILOG" -c "\$conf" & p=\$!
	for i in \$(seq 1 200); do [ -e "$STATE/\$SLURM_JOB_ID/done/\$SLURMD_NODENAME" ] && break; sleep 0.1; done
	sleep 0.5; kill -TERM \$p; wait \$p; rc=\$? ;;
sigterm0)
	# As soon as its worker runs (its handlers are set by then), before this
	# node's share is gathered: nothing of the job's is read.
	"$EPILOG" -c "\$conf" & p=\$!
	# (The program itself, past libtool's wrapper script, and its worker:
	# the kernel's children list, read without forking, so the signal
	# follows the fork within a millisecond or so. On a loaded machine
	# the worker can still be done first; the checks accept that too.)
	for i in \$(seq 1 20000); do
		e=\$(readlink /proc/\$p/exe 2>/dev/null)
		if [[ \$e == *denpex-epilog* ]]; then
			read -r kids </proc/\$p/task/\$p/children 2>/dev/null
			[ -n "\$kids" ] && break
		fi
	done
	kill -TERM \$p; wait \$p; rc=\$? ;;
slow)
	# Until node1's share is done, then some more: node1 is waiting for this.
	for i in \$(seq 1 200); do [ -e "$STATE/\$SLURM_JOB_ID/done/node1" ] && break; sleep 0.1; done
	sleep 5; "$EPILOG" -c "\$conf"; rc=\$? ;;
twice)
	"$EPILOG" -c "\$conf" & p1=\$!
	"$EPILOG" -c "\$conf" & p2=\$!
	wait \$p1; r1=\$?; wait \$p2; rc=\$?; [ \$r1 = 0 ] || rc=\$r1 ;;
clock+) DONT_FAKE_MONOTONIC=1 faketime -f +3h "$EPILOG" -c "\$conf"; rc=\$? ;;
clock-) DONT_FAKE_MONOTONIC=1 faketime -f -3h "$EPILOG" -c "\$conf"; rc=\$? ;;
valgrind)
	# Its own verdict line; the epilog's exit code stays the epilog's. The
	# program itself, not a libtool wrapper script around it.
	$VG_RUN valgrind --tool=memcheck --error-exitcode=99 --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite --track-fds=no \\
		--log-file=$VG/\$SLURM_JOB_ID.%p.log "$EPILOG" -c "\$conf"; rc=\$?
	echo "job=\$SLURM_JOB_ID node=\$SLURMD_NODENAME vrc=\$rc" >>$VG/runs.log
	[ \$rc = 99 ] && rc=0 ;;
*) "$EPILOG" -c "\$conf"; rc=\$? ;;
esac
t1=\$(date +%s%N)
echo "job=\$SLURM_JOB_ID node=\${SLURMD_NODENAME:-ctld} rc=\$rc ms=\$(( (t1 - t0) / 1000000 ))" >>"$RUNS"
exit \$rc
HOOK
	chmod 755 "$h"
done

# ---------------------------------------------------------------- helpers
# A conf of the harness's with some keys replaced: conf_with FILE key=value...
conf_with() {
	local f=$1 kv k
	shift
	cp "$CONF" "$f"
	for kv in "$@"; do
		k=${kv%%=*}
		sed -i "/^$k:/d" "$f"
		echo "$k: ${kv#*=}" >>"$f"
	done
}
# A tmpfs at DIR: small_fs DIR SIZE MODE [full|ro]
small_fs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2,mode=$3" tmpfs "$1" || return 1
	MOUNTS+=("$1")
	case "${4:-}" in
	full) dd if=/dev/zero of="$1/.fill" bs=4k 2>/dev/null; true ;;
	ro) mount -o remount,ro "$1" ;;
	esac
}
# Held one-node (or -N2) jobs; the body links the root-only file into its
# spool first (the epilog must refuse it). Released with go.
submit_held() { # name [sbatch options...] -- body
	local name=$1
	shift
	local opts=()
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	local script=$WORK/jobs/$name.sh
	printf '#!/bin/bash\nln -s %s %s/$SLURM_JOB_ID/leak.log 2>/dev/null\n%s\n' "$SECRET" "$SPOOL" "$*" >"$script"
	chmod 755 "$script"
	as_user "sbatch --parsable --hold -J $name -o $WORK/jobs/$name-%j.out -e $WORK/jobs/$name-%j.err ${opts[*]:-} $script" 2>>"$WORK/sbatch.err"
}
go() { scontrol release "$1"; }
# A failing job whose report_dir or state_dir is DIR: full or read-only (a
# small tmpfs made there) or, without a size, missing.
dir_fault() { # key job-name case setting dir [fs-size fs-mode full|ro]
	want "$1" || return 0
	[ -z "${6:-}" ] || small_fs "$5" "$6" "$7" "$8"
	local j
	j=$(submit_held "$2" -N1 -- "$FAIL_PY")
	conf_with "$CTL/$j.conf" "$4=$5"
	if [ "$4" = report_dir ]; then add "$3" "$j" "$5"; else add "$3" "$j"; fi
	CASE_ORDER+=("$3")
}
oom_kill_task() { # job output: the task's "pid N" line, then the kernel's OOM kill of it
	local pid="" n
	for n in $(seq 150); do
		pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' "$2" 2>/dev/null | head -1)
		[ -n "$pid" ] && break
		sleep 0.2
	done
	[ -n "$pid" ] || { echo "job $1: no pid line in $2" >&2; return 1; }
	echo "$pid" >"$CTL/$1.oom_pid"
	# No UID in the line (an older kernel's shape): the task's pid alone
	# makes it this job's, not every job of this user on the shared kernel.
	printf '<3>Out of memory: Killed process %s (python3) total-vm:2000kB, anon-rss:1800kB, file-rss:0kB, shmem-rss:0kB\n' \
		"$pid" >/dev/kmsg
	kill -9 "$pid"
}
FAIL_PY="python3 -c 'import time; time.sleep(1); d = {}; d[\"learning_rate\"]'"

# Results: one table row per case.
ROWS=()
row() { ROWS+=("$(printf '%-30s|%3s|%6s|%-3s|%s|%s' "$1" "$2" "$3" "$4" "$5" "$6")"); }
cut_to() { local s=${1//$'\n'/ }; [ ${#s} -le "$2" ] && echo "$s" || echo "${s:0:$2}..."; }
max_rc() { grep "^job=$1 " "$RUNS" | sed 's/.* rc=\([0-9]*\).*/\1/' | sort -n | tail -1; }
max_s() { grep "^job=$1 " "$RUNS" | sed 's/.* ms=\([0-9]*\).*/\1/' | sort -n | tail -1 | awk '{ printf "%.1f", $1 / 1000 }'; }
admin_log() { cat "$TESTBED_DIR/records/epilog/$1".*.out 2>/dev/null | grep 'denpex-epilog:' | grep -v ': job [0-9]*: gathered' | head -3 | tr '\n' ' '; }
no_secret() { # nothing of the root-only file anywhere a user or the admin reads
	! grep -rqF --exclude=secret -- "$TOKEN" "$WORK" "$TESTBED_DIR/records" /tmp/denpex-epilog.* 2>/dev/null &&
		! comment_of "$1" | grep -qF -- "$TOKEN"
}

# assess CASE JOB [report_dir [runs [deadline_s [verdict_re]]]]: the four
# promises for one job, and its table row.
assess() {
	local what=$1 j=$2 rdir=${3:-$WORK/reports} runs=${4:-$HARNESS_RUNS} dl=${5:-$DEADLINE} re=${6:-'^denpex: '}
	local c r v a rc secs drained lost
	if ! wait_epilogs "$j" "$runs" $((dl * runs + 60)); then
		bad "$what: the epilogs of job $j did not all finish"
		row "$what" "?" "?" "?" "(epilogs did not finish)" ""
		return
	fi
	rc=$(max_rc "$j") secs=$(max_s "$j")
	check "$what: every epilog run exit 0 within ${dl} s (rc $rc, ${secs} s)" \
		awk -v r="$rc" -v s="$secs" -v d="$dl" 'BEGIN { exit !(r == 0 && s <= d + 3) }'
	drained=no
	no_drain || drained=YES
	check "$what: no node drained" test $drained = no
	c=$(comment_of "$j")
	r=$rdir/$j.txt
	v=$(sed -n 's/^verdict: //p' "$r" 2>/dev/null | head -1)
	a=$(sed -n 's/^Accounting: //p' "$r" 2>/dev/null | tail -1)
	lost=yes
	if matches "$c" "$re"; then
		lost=no
	elif [ -n "$v" ] && { matches "$v" '^none \(.+\)' || matches "$a" 'not written: .+'; }; then
		lost=no
	fi
	check "$what: nothing lost (Comment '$c'; report verdict '${v:-none}'; '${a:-}')" test $lost = no
	check "$what: no root-only byte in any output" no_secret "$j"
	# The admin's view: the report's accounting line and first note, or the
	# log when there is no report.
	local note
	note=$(sed -n '/^Notes:/{n;s/^ *//;p;q}' "$r" 2>/dev/null)
	if [ -s "$r" ]; then a="report${a:+; $a}${note:+; note: $note}"; else a="no report; log: $(admin_log "$j")"; fi
	row "$what" "$rc" "$secs" "$drained" "$(cut_to "${c:-(no Comment)}" 60)" "$(cut_to "$a" 140)"
}

# ---------------------------------------------------------------- phase 1: at once
declare -A JOB RDIR RUNS_OF DL
add() { # case job [report_dir [runs [deadline]]]
	JOB[$1]=$2
	RDIR[$1]=${3:-$WORK/reports}
	RUNS_OF[$1]=${4:-$HARNESS_RUNS}
	DL[$1]=${5:-$DEADLINE}
}
CASE_ORDER=()
phase1() {
	local j o
	if want vanish; then
		j=$(submit_held vanish -N1 -- "$FAIL_PY")
		echo "$WORK/jobs/vanish-$j.out $WORK/jobs/vanish-$j.err" >"$CTL/$j.paths"
		echo vanish >"$CTL/$j.mode"
		add "output vanished" "$j"
		CASE_ORDER+=("output vanished")
	fi
	if want truncate; then
		j=$(submit_held trunc -N1 -- "yes 'step 1 loss 0.25 nothing to see' | head -c 3000000; $FAIL_PY")
		echo "$WORK/jobs/trunc-$j.out" >"$CTL/$j.paths"
		echo truncate >"$CTL/$j.mode"
		add "output truncated mid-read" "$j"
		CASE_ORDER+=("output truncated mid-read")
	fi
	if want spool10k; then
		j=$(submit_held many -N1 -- "python3 -c '
import os
d = \"$SPOOL/%s/many\" % os.environ[\"SLURM_JOB_ID\"]
os.makedirs(d)
for i in range(10000):
    open(\"%s/f%05d.log\" % (d, i), \"w\").write(\"step %d\\n\" % i)
'
$FAIL_PY")
		# The file cap, not the read timeout, must be what stops this copy,
		# also on a loaded machine: give it the time 4,096 small files take there.
		conf_with "$CTL/$j.conf" read_timeout_s=30
		add "10,000 files in the spool" "$j"
		CASE_ORDER+=("10,000 files in the spool")
	fi
	dir_fault report_full rfull "report dir full" report_dir "$FAULTS/rfull" 64k 0750 full
	dir_fault report_ro rro "report dir read-only" report_dir "$FAULTS/rro" 1m 0750 ro
	dir_fault report_missing rgone "report dir missing" report_dir "$FAULTS/rgone/deeper/reports"
	dir_fault state_full sfull "state dir full" state_dir "$FAULTS/sfull" 256k 0700 full
	dir_fault state_ro sro "state dir read-only" state_dir "$FAULTS/sro" 1m 0700 ro
	dir_fault state_missing sgone "state dir missing" state_dir "$FAULTS/sgone/deeper/state"
	if want twice; then
		j=$(submit_held twice -N1 -- "$FAIL_PY")
		echo twice >"$CTL/$j.mode"
		add "two epilogs at once" "$j"
		CASE_ORDER+=("two epilogs at once")
	fi
	if want sigterm; then
		# node1 diagnoses and waits for node2's share (node2 is slow): the
		# SIGTERM comes in that wait.
		j=$(submit_held term -N2 --ntasks-per-node=1 -- "srun -n1 -N1 -w node1 $FAIL_PY")
		echo sigterm >"$CTL/$j.mode.node1"
		echo slow >"$CTL/$j.mode.node2"
		add "SIGTERM in the middle" "$j" "" 3
		CASE_ORDER+=("SIGTERM in the middle")
	fi
	if want sigterm0; then
		j=$(submit_held term0 -N1 -- "$FAIL_PY")
		echo sigterm0 >"$CTL/$j.mode"
		add "SIGTERM at the start" "$j"
		CASE_ORDER+=("SIGTERM at the start")
	fi
	if want clock; then
		# An earlier job's OOM kill of this user's process, in the kernel
		# log before these jobs start: on the node's moved clock it would
		# fall inside the job (and win); on the clock of the job's start
		# it is stale.
		printf '<3>Out of memory: Killed process 4194000 (python3) total-vm:1000kB, anon-rss:900kB, file-rss:0kB, shmem-rss:0kB, UID:%s pgtables:100kB oom_score_adj:0\n' \
			"$(id -u "$JOBUSER")" >/dev/kmsg
		sleep 2
		# The job's own death is in the kernel log too: the test plays the
		# OOM killer on its task (the kernel's line, then SIGKILL).
		for o in + -; do
			j=$(submit_held "clock$o" -N2 --ntasks-per-node=1 -- "srun -n1 -N1 -w node1 python3 -c 'import os, time; print(\"pid\", os.getpid(), flush=True); time.sleep(120)'")
			echo "clock$o" >"$CTL/$j.mode.node1"
			add "node clock ${o}3 h" "$j" "" 3
			CASE_ORDER+=("node clock ${o}3 h")
		done
	fi
	if want valgrind; then
		j=$(submit_held vg -N1 -- "$FAIL_PY")
		echo valgrind >"$CTL/$j.mode"
		conf_with "$CTL/$j.conf" deadline_s=100
		add "under valgrind (memcheck)" "$j" "" "" 100
		CASE_ORDER+=("under valgrind (memcheck)")
	fi
	for o in "${CASE_ORDER[@]}"; do
		[ -n "${JOB[$o]}" ] || { cat "$WORK/sbatch.err"; die "sbatch ($o)"; }
		go "${JOB[$o]}"
	done
	if want clock; then
		for o in + -; do
			oom_kill_task "${JOB[node clock ${o}3 h]}" "$WORK/jobs/clock$o-${JOB[node clock ${o}3 h]}.out"
		done
	fi
	for o in "${CASE_ORDER[@]}"; do
		# A stopped run queues its verdict: what the user sees after the
		# next run (here --flush) writes the queue.
		if [ "$o" = "SIGTERM in the middle" ] && wait_epilogs "${JOB[$o]}" 3; then
			check "SIGTERM: the verdict is in the report and queued" \
				report_has "${JOB[$o]}" 'not written: stopped by SIGTERM; queued'
			"$EPILOG" -c "$CONF" --flush >/dev/null 2>&1
		fi
		assess "$o" "${JOB[$o]}" "${RDIR[$o]}" "${RUNS_OF[$o]}" "${DL[$o]}"
	done
}
phase1

# What each case shows beyond the four promises.
if want vanish; then
	check "output vanished: the report names the missing file" report_has "${JOB[output vanished]}" 'vanish-.*\.out: '
fi
if want truncate; then
	check "output truncated: the verdict still comes from stderr" \
		matches "$(comment_of "${JOB[output truncated mid-read]}")" 'python_exception'
fi
if want spool10k; then
	check "10,000 files: the copy stops at its file cap and the report says so" \
		report_has "${JOB[10,000 files in the spool]}" 'too many files; rest skipped'
fi
if want report_missing; then
	check "report dir missing: made, root's and private" \
		test "$(stat -c '%U %a' "$FAULTS/rgone/deeper/reports" 2>/dev/null)" = "root 750"
fi
if want state_full; then
	check "state dir full: the report says where the staging went" report_has "${JOB[state dir full]}" 'state_dir unusable'
fi
if want state_ro; then
	check "state dir read-only: the report says where the staging went" \
		report_has "${JOB[state dir read-only]}" 'state_dir unusable'
fi
if want state_ro || want state_full; then
	left=$(find /tmp -maxdepth 1 -name 'denpex-epilog.*' -newer "$SECRET" 2>/dev/null)
	check "state dir unusable: the private staging dirs are removed after the diagnosis ('$left')" test -z "$left"
fi
if want twice; then
	c=$(comment_of "${JOB[two epilogs at once]}")
	check "two epilogs at once: one verdict in the Comment ('$c')" \
		test "$(echo "$c" | grep -o 'denpex:' | wc -l)" = 1
fi
if want sigterm; then
	j=${JOB[SIGTERM in the middle]}
	check "SIGTERM: the report says the run was stopped" report_has "$j" 'stopped by SIGTERM'
	check "SIGTERM: --flush wrote the queued verdict (Comment '$(comment_of "$j")')" matches "$(comment_of "$j")" '^denpex: python_exception'
fi
if want sigterm0; then
	j=${JOB[SIGTERM at the start]}
	# The signal follows the worker's fork; on a loaded machine the worker
	# can have found the cause first, and then the Comment has it (maybe
	# later, from the queue). Either way no "unknown" of the stop's making
	# reaches the user.
	if report_has "$j" 'stopped by SIGTERM before any cause was found'; then
		check "SIGTERM at the start: no 'unknown' of its own making in the Comment ('$(comment_of "$j")')" test -z "$(comment_of "$j")"
	else
		c=$(verdict_comment_of "$j")
		check "SIGTERM at the start (after the verdict, on this machine): the report has the job's cause" report_has "$j" 'python_exception'
		check "SIGTERM at the start (after the verdict): no 'unknown' in the Comment ('$c')" not_matches "$c" 'unknown'
	fi
fi
if want clock; then
	for o in + -; do
		j=${JOB[node clock ${o}3 h]}
		check "node clock ${o}3 h: both nodes' shares in the report" sh -c "! grep -q 'evidence from 1 of 2' '$WORK/reports/$j.txt'"
		check "node clock ${o}3 h: the job's OOM kill, not the earlier job's (Comment '$(comment_of "$j")')" \
			matches "$(comment_of "$j")" "^denpex: host_oom .*node1.* process $(cat "$CTL/$j.oom_pid" 2>/dev/null || echo none) "
	done
	check "node clock +3 h: kernel times on the clock of the job's start" \
		report_has "${JOB[node clock +3 h]}" "clock moved [0-9]* s since the job's start"
	check "node clock +3 h: the report notes the node's clock" \
		report_has "${JOB[node clock +3 h]}" "clock is [0-9]* s past slurmctld's job end"
fi
if want valgrind; then
	# The Comment's confirmation outlives the epilog by some ten seconds (a
	# detached child, bounded at 40 s): the count waits for it to end.
	for ((i = 0; i < 90; i++)); do
		vg_procs=$(grep -l 'ERROR SUMMARY' "$VG"/*.log 2>/dev/null | wc -l)
		vg_all=$(grep -l 'Command: .*denpex-epilog' "$VG"/*.log 2>/dev/null | wc -l)
		[ "$vg_procs" = "$vg_all" ] && break
		sleep 0.5
	done
	vg_errors=$(grep -h 'ERROR SUMMARY' "$VG"/*.log 2>/dev/null | awk '{ s += $4 } END { print s + 0 }')
	check "valgrind: memcheck (definite leaks too) over $vg_procs processes of the epilog: $vg_errors errors" \
		sh -c "[ $vg_procs -ge 5 ] && [ $vg_errors = 0 ] && grep -q 'vrc=0' '$VG/runs.log'"
	# A process killed on purpose (a bounded worker past its time) leaves no
	# summary; in this run none should be.
	check "valgrind: every process of the run ended on its own ($vg_procs of $vg_all)" test "$vg_procs" = "$vg_all"
	[ "$vg_errors" = 0 ] || grep -h -A12 'Invalid\|uninitialised\|Mismatched' "$VG"/*.log | head -60
fi

# ---------------------------------------------------------------- phase 2: one at a time
if want dbd_stopped; then
	# slurmdbd stopped (not dead: connections hang) for longer than the deadline.
	j=$(submit_held dbd -N1 -- "sleep 3; $FAIL_PY")
	go "$j"
	wait_state "$j" RUNNING
	DBD_STOPPED=$(cat "$TESTBED_DIR/run/slurmdbd.pid" 2>/dev/null)
	if [ -n "$DBD_STOPPED" ] && kill -STOP "$DBD_STOPPED"; then
		wait_epilogs "$j" 2 $((DEADLINE * 2 + 30))
		kill -CONT "$DBD_STOPPED"
		DBD_STOPPED=""
		check "slurmdbd stopped: the report says the verdict is queued" report_has "$j" 'queued'
		"$EPILOG" -c "$CONF" --flush >/dev/null 2>&1
		assess "slurmdbd stopped > deadline" "$j"
		check "slurmdbd stopped: the queued verdict is written by --flush" matches "$(comment_of "$j")" 'python_exception'
	else
		bad "slurmdbd stopped: cannot stop slurmdbd"
	fi
fi

if want ctld_down; then
	# The job's epilog skipped (--denpex=off), then run again as slurmd would
	# run it, with the recorded environment and slurmctld down.
	j=$(submit_held ctld -N1 --denpex=off -- "$FAIL_PY")
	go "$j"
	if wait_epilogs "$j" && [ -s "$TESTBED_DIR/records/epilog/$j.node1.env" ]; then
		ctld=$(cat "$TESTBED_DIR/run/slurmctld.pid" 2>/dev/null)
		kill "$ctld" 2>/dev/null
		for _ in $(seq 1 40); do kill -0 "$ctld" 2>/dev/null || break; sleep 0.25; done
		t0=$(date +%s%N)
		(
			while IFS= read -r kv; do
				case "$kv" in SLURM_* | SLURMD_* | SPANK_DENPEX_SPOOL=*) export "${kv?}" ;; esac
			done <"$TESTBED_DIR/records/epilog/$j.node1.env"
			exec "$EPILOG" -c "$CONF" 2>"$WORK/ctld-down.err"
		)
		rc=$?
		echo "job=$j node=node1 rc=$rc ms=$((($(date +%s%N) - t0) / 1000000))" >>"$RUNS"
		# A slurmctld still saving its state (slow under load) is killed: the
		# testbed starts no second one while the first is alive.
		if kill -0 "$ctld" 2>/dev/null; then
			kill -9 "$ctld" 2>/dev/null
			for _ in $(seq 1 40); do kill -0 "$ctld" 2>/dev/null || break; sleep 0.25; done
		fi
		restarted=0
		for _ in 1 2 3; do
			if restart_testbed; then
				restarted=1
				break
			fi
			sleep 2
		done
		[ "$restarted" = 1 ] || bad "slurmctld down: testbed restart failed ($(tail -n 3 "$WORK/testbed-restart.log" 2>/dev/null | tr '\n' ' '))"
		check "slurmctld down: the report says the job state was unavailable" report_has "$j" 'job state unavailable'
		assess "slurmctld down" "$j" "" 3
		# Without the job's start no earlier job's kernel line (an OOM kill of
		# the same user's) may be taken for this job's: its own error wins.
		check "slurmctld down: the job's own error is the verdict" matches "$(comment_of "$j")" 'python_exception'
	else
		bad "slurmctld down: the job's epilogs did not finish or left no environment"
	fi
fi

if want plugin_opts; then
	# The option's value as a user may type it: empty, 100 kB, not UTF-8.
	big=$(head -c 100000 /dev/zero | tr '\0' 'x')
	for v in "" "$big" $'\xff\xfe\xc3(on'; do
		case "$v" in "") label="--denpex= (empty)" ;; x*) label="--denpex=<100 kB>" ;; *) label="--denpex=<not UTF-8>" ;; esac
		printf '%s' "$v" >"$WORK/jobs/optval"
		chmod 644 "$WORK/jobs/optval"
		su -s /bin/bash "$JOBUSER" -c "cd $WORK/jobs && SLURM_CONF=$SLURM_CONF sbatch --parsable -N1 \"--denpex=\$(cat optval)\" -o /dev/null --wrap true" >"$WORK/opt.out" 2>&1
		rc=$?
		size=$(wc -c <"$WORK/opt.out")
		msg=$(grep -a -m1 'denpex: --denpex' "$WORK/opt.out")
		# Slurm itself echoes the whole value back ("Invalid --denpex argument:
		# ..."): the user's own bytes, to the user. The plugin's line is short.
		check "$label: sbatch refuses it (rc $rc, no signal), the plugin's message ${#msg} bytes ('$(cut_to "$msg" 90)')" \
			sh -c "[ $rc -ne 0 ] && { [ $rc -lt 129 ] || [ $rc -gt 192 ]; } && [ ${#msg} -lt 200 ] && [ ${#msg} -gt 0 ] && grep -aq 'expected on or off' '$WORK/opt.out'"
		row "$label" "-" "-" "no" "sbatch: $(cut_to "$msg" 55)" "(refused at submission; nothing runs)"
	done
fi

if want plugstack; then
	# The admin's plugstack line, wrong: the job runs, the epilog diagnoses.
	PLUG_SAVED=$(cat "$PLUG")
	huge=/$(head -c 70000 /dev/zero | tr '\0' 'a')
	for p in dup empty enormous; do
		case $p in
		dup) line="required $SPANK_SO spool=$SPOOL spool=$SPOOL nccl_debug=INFO nccl_debug=WARN" label="plugstack args duplicated" ;;
		empty) line="required $SPANK_SO spool= nccl_debug=" label="plugstack args empty" ;;
		enormous) line="required $SPANK_SO spool=$huge" label="plugstack arg of 70 kB" ;;
		esac
		echo "$line" >"$PLUG"
		j=$(submit_held "plug-$p" -N1 -- "$FAIL_PY")
		if [ -z "$j" ]; then
			bad "$label: sbatch failed ($(tail -1 "$WORK/sbatch.err"))"
			continue
		fi
		go "$j"
		wait_epilogs "$j" >/dev/null
		check "$label: the job ran its own course (exit 1, not a launch failure)" \
			test "$(sacct -n -X -j "$j" -o ExitCode | tr -d ' ')" = "1:0"
		assess "$label" "$j"
	done
	echo "$PLUG_SAVED" >"$PLUG"
fi

# ---------------------------------------------------------------- the table
echo
echo "Fault table (DEADLINE=${DEADLINE}s; time: the slowest epilog run of the job):"
printf '%-30s|%3s|%6s|%-3s|%s|%s\n' "fault" "rc" "time s" "drn" "user sees (sacct Comment)" "admin sees"
for r in "${ROWS[@]}"; do echo "$r"; done
echo "suite wall time: $((SECONDS - T_START)) s"
check "no node drained at the end" no_drain
finish
