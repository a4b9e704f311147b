#!/bin/sh
# Verdicts as metrics and DCGM corroboration against a real Prometheus and
# node_exporter (Debian's prometheus, prometheus-node-exporter), started here
# on 127.0.0.1 free ports and stopped after:
#  - the epilog's metrics writer (denpex_metrics_record, via metrics_writer)
#    writes denpex.prom into node_exporter's textfile directory; promtool
#    check metrics passes on every file written; Prometheus scrapes it and
#    its query API returns the failure counter with the right labels;
#  - every query of conf/grafana/denpex.json runs without error and returns data;
#  - `denpex metrics` builds the same families from a report directory;
#  - dcgm-exporter series served from a textfile reach Prometheus; asked the
#    way the epilog asks (prom_dcgm_query), they corroborate the hardware
#    verdict of a job (Xid 79 on its bus id), and a contradicting series
#    lowers its confidence.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}"
PY=${PYTHON3:-python3}
pass=0
fail=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }
for b in prometheus prometheus-node-exporter promtool; do
	if ! command -v $b >/dev/null 2>&1; then
		echo "FAIL $b not installed (apt-get install prometheus prometheus-node-exporter)"
		exit 1
	fi
done
denpex="$top_builddir/denpex"
writer="$top_builddir/tests/metrics_writer"
query="$top_builddir/tests/prom_dcgm_query"
bundle="$top_srcdir/tests/data/example/multinode-xid"
tmp=$(mktemp -d /tmp/denpex-prom.XXXXXX)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# Two free loopback ports from a base (DENPEX_TESTBED_PORT_BASE when set).
ports=$($PY - "${DENPEX_TESTBED_PORT_BASE:-19380}" <<'PYEOF'
import socket, sys
base = int(sys.argv[1]) + 40
found = []
for p in range(base, base + 200):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); found.append(p)
    except OSError:
        pass
    finally:
        s.close()
    if len(found) == 2:
        break
print(*found)
PYEOF
)
set -- $ports
ne_port=$1
prom_port=$2
mkdir -p "$tmp/textfile" "$tmp/reports" "$tmp/data"

# Verdicts of three jobs: two hardware, one other class.
"$denpex" diagnose --json "$bundle" >"$tmp/reports/1.json" 2>/dev/null
cp "$tmp/reports/1.json" "$tmp/reports/2.json"
# Any real-world log whose verdict is not a hardware fault.
for d in "$top_srcdir"/tests/data/realworld/*/; do
	for l in "$d"*.log; do
		[ -f "$l" ] || continue
		"$denpex" diagnose --json "$l" >"$tmp/reports/3.json" 2>/dev/null || continue
		grep -q '"class": "gpu_hardware"' "$tmp/reports/3.json" || break 2
	done
done
other_class=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["class"])' "$tmp/reports/3.json")
other_action=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["next_action"]["kind"])' "$tmp/reports/3.json")
[ "$other_class" != gpu_hardware ]
check "a second bundle with another class ($other_class)" $?

promtool_all=0
for f in 1 2 3; do
	"$writer" "$tmp/textfile" "$tmp/reports/$f.json" 3.2 0 1 || promtool_all=1
	promtool check metrics <"$tmp/textfile/denpex.prom" >"$tmp/promtool.$f" 2>&1 || { promtool_all=1; cat "$tmp/promtool.$f"; }
done
"$writer" "$tmp/textfile" - 0.4 1 1 || promtool_all=1
promtool check metrics <"$tmp/textfile/denpex.prom" >"$tmp/promtool.4" 2>&1 || { promtool_all=1; cat "$tmp/promtool.4"; }
check "promtool check metrics passes on every denpex.prom the epilog's writer wrote" $promtool_all
ls -a "$tmp/textfile" | grep -q '\.tmp' && r=1 || r=0
check "no temp file left in the textfile directory" $r

# Served beside it, as a node's dcgm-exporter would: Xid 0 on the GPU first.
sed 's/} 79$/} 0/' "$top_srcdir/tests/data/dcgm/dcgm-exporter.prom" | grep -v '^#' | grep -v ROW_REMAP >"$tmp/textfile/dcgm.prom"

prometheus-node-exporter --web.listen-address="127.0.0.1:$ne_port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$tmp/textfile" >"$tmp/ne.log" 2>&1 &
pids="$pids $!"
cat >"$tmp/prometheus.yml" <<YEOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:$ne_port"]
YEOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$prom_port" >"$tmp/prom.log" 2>&1 &
pids="$pids $!"
url="http://127.0.0.1:$prom_port"

# query EXPR -> prints "n=<results>" and each result's labels and value; rc 1 on error.
q() {
	$PY - "$url" "$1" <<'PYEOF'
import json, sys, urllib.parse, urllib.request
url, expr = sys.argv[1], sys.argv[2]
try:
    with urllib.request.urlopen(url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr}), timeout=5) as r:
        d = json.load(r)
except Exception as e:
    print("error:", e); sys.exit(1)
if d.get("status") != "success":
    print("error:", d.get("error")); sys.exit(1)
res = d["data"]["result"]
print("n=%d" % len(res))
for x in res:
    m = {k: v for k, v in x["metric"].items() if k not in ("instance", "job", "__name__")}
    print(json.dumps(m, sort_keys=True), x["value"][1])
PYEOF
}
waited=0
until q 'denpex_failures_total' 2>/dev/null | grep -q '^n=[1-9]'; do
	sleep 1
	waited=$((waited + 1))
	[ $waited -ge 60 ] && break
done
out=$(q 'denpex_failures_total{class="gpu_hardware"}')
echo "$out" | sed 's/^/    /'
echo "$out" | grep -qF '{"class": "gpu_hardware", "next_action": "drain_node", "node": "node02"} 2'
check "Prometheus returns denpex_failures_total{class=gpu_hardware,next_action=drain_node,node=node02} = 2" $?
q "denpex_failures_total{class=\"$other_class\",next_action=\"$other_action\"}" | grep -q '"} 1$'
check "and the other job's class ($other_class, $other_action) = 1" $?
q 'denpex_gpu_hardware_verdicts_total' | grep -qF '{"gpu": "0000:5d:00", "node": "node02", "xid": "79"} 2'
check "denpex_gpu_hardware_verdicts_total names node, GPU bus id and Xid" $?
q 'denpex_epilog_duration_seconds_count' | grep -q ' 4$' && q 'denpex_epilog_errors_total' | grep -q ' 1$'
check "epilog duration histogram counts 4 runs, errors 1" $?
q 'count({__name__=~"denpex_.*", rank=~".+"}) or count({__name__=~"denpex_.*", job_id=~".+"})' | grep -q '^n=0'
check "no per-rank or per-job labels" $?

# A second scrape after more failures, so that increase() and rate() have data.
sleep 2
"$writer" "$tmp/textfile" "$tmp/reports/1.json" 1.1 0 1
"$writer" "$tmp/textfile" "$tmp/reports/3.json" 12 0 1
promtool check metrics <"$tmp/textfile/denpex.prom" >/dev/null 2>&1
check "promtool check metrics passes after the later writes" $?
sleep 3

# Every panel's queries, with Grafana's variables as a one-hour view sets them.
exprs=$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["panels"]:
    for t in p.get("targets", []):
        print(p["title"] + "\t" + t["expr"])' "$top_srcdir/conf/grafana/denpex.json")
[ -n "$exprs" ]
check "the dashboard has panel queries" $?
printf '%s\n' "$exprs" | grep -v 'denpex_' | grep -q . && r=1 || r=0
check "every panel query uses the denpex metrics" $r
bad=""
tab=$(printf '\t')
while IFS="$tab" read -r title expr; do
	e=$(printf '%s' "$expr" | sed -e 's/\$__rate_interval/1m/g' -e 's/\$__range/1h/g' -e 's/\$__interval/15s/g')
	r=$(q "$e")
	if ! printf '%s\n' "$r" | grep -q '^n=[1-9]'; then
		bad="$bad [$title: $r]"
	fi
done <<EOF2
$exprs
EOF2
[ -z "$bad" ]
check "every dashboard query runs and returns data${bad:+:$bad}" $?

# denpex metrics: the same families from the report directory (cron use).
"$denpex" metrics -o "$tmp/cron.prom" "$tmp/reports" &&
	promtool check metrics <"$tmp/cron.prom" >/dev/null 2>&1 &&
	grep -qF 'denpex_failures_total{class="gpu_hardware",next_action="drain_node",node="node02"} 2' "$tmp/cron.prom" &&
	grep -qF 'denpex_gpu_hardware_verdicts_total{node="node02",gpu="0000:5d:00",xid="79"} 2' "$tmp/cron.prom"
check "denpex metrics DIR builds the counters from admin reports (promtool passes)" $?

# DCGM corroboration through Prometheus, asked as the epilog asks.
now=$(date +%s)
"$query" "$url" node02 $((now - 600)) "$now" >"$tmp/contra.prom"
grep -q 'DCGM_FI_DEV_XID_ERRORS{.*pci_bus_id="00000000:5D:00.0".*} 0' "$tmp/contra.prom"
check "the epilog's Prometheus query returns node02's dcgm-exporter series" $?
base=$("$denpex" diagnose --json "$bundle" 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["confidence"])')
mkdir -p "$tmp/job-contra/prometheus" "$tmp/job-agree/prometheus"
cp "$tmp/contra.prom" "$tmp/job-contra/prometheus/dcgm-exporter.prom"
"$denpex" diagnose --json "$bundle" "$tmp/job-contra" >"$tmp/contra.json" 2>/dev/null
$PY - "$tmp/contra.json" "$base" <<'PYEOF'
import json, sys
v = json.load(open(sys.argv[1])); order = ["low", "medium", "high"]
c = v.get("corroboration", [])
ok = v["class"] == "gpu_hardware" and c and not any(x["agrees"] for x in c) and order.index(v["confidence"]) == order.index(sys.argv[2]) - 1
print("    contradicting:", v["confidence"], "(was %s)" % sys.argv[2], json.dumps(c))
sys.exit(0 if ok else 1)
PYEOF
check "a contradicting dcgm-exporter series (Xid 0 on that GPU) lowers the confidence" $?

# Now the GPU's Xid 79 arrives.
grep -v '^#' "$top_srcdir/tests/data/dcgm/dcgm-exporter.prom" | grep -v ROW_REMAP >"$tmp/textfile/dcgm.prom.new" && mv "$tmp/textfile/dcgm.prom.new" "$tmp/textfile/dcgm.prom"
waited=0
until q 'DCGM_FI_DEV_XID_ERRORS{Hostname="node02"} == 79' | grep -q '^n=[1-9]'; do
	sleep 1
	waited=$((waited + 1))
	[ $waited -ge 30 ] && break
done
q 'DCGM_FI_DEV_XID_ERRORS{Hostname="node02"}' | sed 's/^/    /'
# The window must end after the new sample: seen now at a fraction of a
# second, it is not yet in a window that ends at the whole second (flaky
# under load before).
now=$(($(date +%s) + 2))
"$query" "$url" node02 $((now - 600)) "$now" >"$tmp/job-agree/prometheus/dcgm-exporter.prom"
"$denpex" diagnose --json "$bundle" "$tmp/job-agree" >"$tmp/agree.json" 2>/dev/null
"$denpex" diagnose "$bundle" "$tmp/job-agree" 2>/dev/null | sed -n '1,3p;/^corroboration:/,/^$/p' | sed 's/^/    /'
$PY - "$tmp/agree.json" "$base" <<'PYEOF'
import json, sys
v = json.load(open(sys.argv[1])); order = ["low", "medium", "high"]
c = v.get("corroboration", [])
ok = (v["class"] == "gpu_hardware" and any(x["agrees"] and "Xid 79 on 0000:5d:00" in x["detail"] for x in c)
      and not any(not x["agrees"] for x in c) and order.index(v["confidence"]) >= order.index(sys.argv[2]))
sys.exit(0 if ok else 1)
PYEOF
check "the dcgm-exporter series with Xid 79 on that bus id corroborates the hardware verdict" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
