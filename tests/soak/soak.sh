#!/bin/sh
# Soak: one `skillci eval` of UNITS units (default 20,000: 1,000 tests x 10
# runs x baseline and skill) against the fake model server, scripted to
# fail at random: 429s with Retry-After, 500s, 529s, connection resets,
# truncated bodies, answers with invalid UTF-8, slow answers. Every unit
# must be accounted for (in the results JSON exactly once, in the store,
# with an error only where the faults made one) and memory must stay flat:
# RSS is sampled every 0.2 s with the number of requests the fake has
# seen: while units are evaluated, the growth per request over the second
# half must be no more than over the first half (plus 25% and 8 MB of
# slack), and the peak (writing the store and the results JSON of every
# unit, which is proportional to the units) must stay under
# SOAK_MAX_BYTES_PER_UNIT (8192) bytes per unit over the starting RSS.
#
#   sh tests/soak/soak.sh            (make soak)
#   SOAK_TESTS=100 sh tests/soak/soak.sh   a short run (2,000 units)
#
# Prints the measurements; exits 1 when a check fails. Not part of make check.
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
: "${SKILLCI_ROOT:=$(pwd)}"
TESTS=${SOAK_TESTS:-1000}
RUNS=${SOAK_RUNS:-10}
UNITS=$((TESTS * RUNS * 2))
MAX_BPU=${SOAK_MAX_BYTES_PER_UNIT:-8192}
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-soak.XXXXXX")
. "$SKILLCI_ROOT/tests/fakes/fake.sh"
trap 'fake_stop; rm -rf "$T"' EXIT
fail=0
say() { printf '%s\n' "$*"; }
check() {  # check NAME COND...
	_n=$1; shift
	if "$@"; then say "ok   $_n"; else say "FAIL $_n"; fail=1; fi
}

mkdir -p "$T/skills/soak"
printf -- '---\nname: soak\ndescription: A skill for the soak test.\n---\nAnswer ok.\n' > "$T/skills/soak/SKILL.md"
python3 - "$T/skills/soak/skill_meta.json" "$TESTS" <<'PY'
import json, sys
n = int(sys.argv[2])
json.dump({"tests": [{"input": "S%d: say ok" % i, "expected": {"contains": ["ok"]}} for i in range(n)]},
          open(sys.argv[1], "w"))
PY
# Random faults (the fake's "chance" rules, seeded): most are retried by the
# client; truncated and malformed bodies are not, and show as unit errors.
cat > "$T/script.json" <<'JSON'
{"seed": 7,
 "rules": [
  {"match": {"chance": 0.03}, "reply": {"status": 429, "error_type": "rate_limit_error", "retry_after": "0"}},
  {"match": {"chance": 0.02}, "reply": {"status": 500, "error_message": "boom"}},
  {"match": {"chance": 0.02}, "reply": {"status": 529, "error_type": "overloaded_error"}},
  {"match": {"chance": 0.01}, "reply": {"fault": "reset"}},
  {"match": {"chance": 0.003}, "reply": {"fault": "truncate"}},
  {"match": {"chance": 0.01}, "reply": {"text": "ok INVALID_UTF8", "fault": "invalid_utf8"}},
  {"match": {"chance": 0.01}, "reply": {"text": "ok, slowly", "latency_ms": 200}},
  {"match": {"chance": 0.05}, "reply": {"text": "no idea"}}
 ],
 "default": {"text": "ok"}}
JSON
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-soak-key

say "soak: $UNITS units ($TESTS tests x $RUNS runs x 2 variants) against $FAKE_URL"
start=$(date +%s)
"$SKILLCI" eval "$T/skills/soak" -m anthropic.soak --runs "$RUNS" --concurrency 16 --no-cache \
	--store "$T/soak.db" --json "$T/results.json" > "$T/out" 2> "$T/err" &
pid=$!
: > "$T/samples"
BASE_KB=0
while [ "$BASE_KB" = 0 ] && kill -0 $pid 2> /dev/null; do
	BASE_KB=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/$pid/status 2> /dev/null)
	BASE_KB=${BASE_KB:-0}
done
while kill -0 $pid 2> /dev/null; do
	rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/$pid/status 2> /dev/null)
	req=$(fake_stat requests 2> /dev/null)
	[ -n "$rss" ] && [ -n "$req" ] && echo "$req $rss" >> "$T/samples"
	sleep 0.2
done
wait $pid
rc=$?
secs=$(( $(date +%s) - start ))
say "exit $rc after ${secs}s; $(fake_stat requests) requests"
tail -n 1 "$T/out"

check "eval exits 0 (errors under the 10% threshold)" test "$rc" -eq 0
check "every unit in the results JSON exactly once, verdicts accounted for" python3 - "$T/results.json" "$UNITS" "$T/err" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
units = d["units"]
keys = [(u["variant"], u["test_id"], u["run_index"]) for u in units]
assert len(keys) == len(set(keys)), "a unit is counted twice"
assert len(units) == int(sys.argv[2]), (len(units), sys.argv[2])
v = collections.Counter(u["verdict"] for u in units)
e = collections.Counter(u["error_class"] for u in units if u["verdict"] == "error")
print("     verdicts:", dict(v), "errors:", dict(e))
assert set(v) <= {"pass", "fail", "error"}, v
PY
if command -v sqlite3 > /dev/null; then
	stored=$(sqlite3 "$T/soak.db" 'select count(*) from units')
	check "the store holds every unit ($stored)" test "$stored" -eq "$UNITS"
	check "the store passes integrity_check" test "$(sqlite3 "$T/soak.db" 'pragma integrity_check')" = ok
fi
check "memory stays flat while units are evaluated" python3 - "$T/samples" "$UNITS" "$MAX_BPU" "$BASE_KB" <<'PY'
import sys
s = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
units, max_bpu, base_kb = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
# The evaluation phase: samples taken while the fake was still being asked
# (the tail, writing the store and the results JSON, is judged by the peak).
last = s[-1][0] if s else 0
ev = [x for x in s if 0 < x[0] < last]
peak = max([x[1] for x in s] or [0])
print("     %d samples, %d while evaluating; peak RSS %d kB (%.0f bytes/unit over the %d kB start)"
      % (len(s), len(ev), peak, (peak - base_kb) * 1024.0 / units, base_kb))
if len(ev) < 6:
    print("     too few samples while evaluating to judge the slope")
    sys.exit(0 if (peak - base_kb) * 1024.0 / units <= max_bpu else 1)
n = len(ev)
a, m, z = ev[n // 10], ev[n // 2], ev[-1]
def slope(p, q):
    return (q[1] - p[1]) * 1024.0 / max(1, q[0] - p[0])
first, second = slope(a, m), slope(m, z)
print("     while evaluating: %d kB at %d requests, %d kB at %d, %d kB at %d"
      % (a[1], a[0], m[1], m[0], z[1], z[0]))
print("     growth: %.0f bytes/request in the first half, %.0f in the second" % (first, second))
ok = second <= max(first, 0) * 1.25 + 8 * 1024 * 1024 / max(1, z[0] - m[0])
ok = ok and (peak - base_kb) * 1024.0 / units <= max_bpu
sys.exit(0 if ok else 1)
PY
exit $fail
