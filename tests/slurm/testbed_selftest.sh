#!/bin/bash
# testbed_selftest.sh - the testbed's own guard against leftovers, on a
# testbed dir and ports of its own (nothing of the shared testbed is touched):
#   - a process that listens on the testbed's slurmctld port makes `testbed
#     start` refuse at once, naming the port and the process, and start
#     nothing (an old slurmctld answering for the new one served its old
#     configuration to every later test);
#   - a slurmctld that neither a pid file nor its environment names as the
#     testbed's, but that listens on its port, is stopped by `testbed stop`;
#   - a process on the port that is not a testbed daemon is reported by
#     `testbed stop`, and left alone;
#   - a daemon with a large environment is seen alive every time (it was
#     once taken for dead now and then, its pid file removed and it left
#     running).
# Needs root (exit 77 otherwise; a failure in CI). Run in the Slurm chain.
set -uo pipefail
# shellcheck disable=SC2034 # harness.sh says it
NAME=testbed_selftest
# The Slurm tests' checks and counts (ok, bad, check, finish), $TESTBED and
# the root check; nothing of harness_setup.
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/harness.sh"
harness_need_root
DENPEX_TESTBED_DIR=$(mktemp -d "${TMPDIR:-/tmp}/denpex-testbed-selftest.XXXXXX") || exit 99
rmdir "$DENPEX_TESTBED_DIR"
export DENPEX_TESTBED_DIR
# A port base of its own, clear of the shared testbed's (17400).
export DENPEX_TESTBED_PORT_BASE=${SELFTEST_PORT_BASE:-17700}
export DENPEX_TESTBED_INSTALL=0
CTLD_PORT=$((DENPEX_TESTBED_PORT_BASE + 17))
out=$(mktemp)
listener=""
cleanup() {
	[ -z "$listener" ] || kill "$listener" 2>/dev/null
	bash "$TESTBED" stop --purge >/dev/null 2>&1
	rm -rf "$DENPEX_TESTBED_DIR" "$DENPEX_TESTBED_DIR.lock" "$out"
}
trap cleanup EXIT

# listen NAME: a process called NAME (its comm) listening on the ctld port.
listen() {
	env -u DENPEX_TESTBED_DIR python3 -c '
import socket, sys, time
open("/proc/self/comm", "w").write(sys.argv[1])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[2])))
s.listen()
print("listening", flush=True)
time.sleep(600)' "$1" "$CTLD_PORT" >"$out.listen" 2>&1 &
	listener=$!
	local _
	for _ in $(seq 50); do grep -q listening "$out.listen" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
# no_daemons: no munged, MariaDB or Slurm daemon of this testbed dir runs.
no_daemons() {
	local p env
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in munged | mariadbd | slurmdbd | slurmctld | slurmd) ;; *) continue ;; esac
		# (Read whole: see of_this_testbed in tests/slurm/testbed.)
		env=$(tr '\0' '\n' 2>/dev/null <"$p/environ") || continue
		[[ $'\n'$env$'\n' == *$'\n'"DENPEX_TESTBED_DIR=$DENPEX_TESTBED_DIR"$'\n'* ]] && return 1
	done
	return 0
}
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status"; }

check "a stand-in for a foreign daemon listens on port $CTLD_PORT" listen squatter
t0=$SECONDS
bash "$TESTBED" start >"$out" 2>&1
rc=$?
cat "$out"
check "start refuses while port $CTLD_PORT is held (exit $rc)" test "$rc" -ne 0
check "start names the port and the process holding it" grep -q "port $CTLD_PORT is held by .*$listener squatter" "$out"
check "start refused before starting anything (no daemon of it runs)" no_daemons
check "start refused at once ($((SECONDS - t0)) s)" test $((SECONDS - t0)) -lt 30
bash "$TESTBED" stop >"$out" 2>&1
cat "$out"
check "stop reports the foreign process on the port" grep -q "port $CTLD_PORT (slurmctld) is held by squatter ($listener)" "$out"
check "stop leaves a process that is not a testbed daemon alone" alive "$listener"
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null

check "a slurmctld no pid file names listens on port $CTLD_PORT" listen slurmctld
bash "$TESTBED" stop >"$out" 2>&1
rc=$?
cat "$out"
check "stop succeeds (exit $rc)" test "$rc" -eq 0
check "stop says it stopped the slurmctld found by its port" grep -q "stopping slurmctld ($listener), which still listened on slurmctld's port $CTLD_PORT" "$out"
check "that slurmctld is gone" sh -c "! [ -d /proc/$listener ] || grep -q '^State:.*Z' /proc/$listener/status"
wait "$listener" 2>/dev/null
listener=""

# A daemon whose environment spans many pages (a CI job's can) is alive to
# status every time, and stop stops it by its pid file: a check that reads
# the environment through a pipe into grep -q loses that race now and then.
big=$(head -c 120000 /dev/zero | tr '\0' x)
env -i DENPEX_TESTBED_DIR="$DENPEX_TESTBED_DIR" BIG="$big" PATH="$PATH" python3 -c '
import time
open("/proc/self/comm", "w").write("munged")
time.sleep(600)' &
daemon=$!
# Up once it has its name (python starts slowly on a busy machine).
for _ in $(seq 100); do [ "$(cat "/proc/$daemon/comm" 2>/dev/null)" = munged ] && break; sleep 0.1; done
mkdir -p "$DENPEX_TESTBED_DIR/run"
echo "$daemon" >"$DENPEX_TESTBED_DIR/run/munged.pid"
seen=0
for _ in $(seq 20); do
	st=$(bash "$TESTBED" status 2>/dev/null)
	[[ $st == *"munged         running pid $daemon"* ]] && seen=$((seen + 1))
done
check "a daemon with a 120 KB environment (more than a pipe holds) is seen running ($seen of 20 times)" test "$seen" -eq 20
bash "$TESTBED" stop >"$out" 2>&1
check "stop stops it by its pid file" sh -c "! [ -d /proc/$daemon ] || grep -q '^State:.*Z' /proc/$daemon/status"
kill "$daemon" 2>/dev/null
wait "$daemon" 2>/dev/null

finish
