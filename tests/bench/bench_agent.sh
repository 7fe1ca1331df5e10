#!/bin/sh
# Benchmark of agent runs (docs/evaluation.md, "Agent runs"): `skillci
# eval` of one skill whose UNITS tests each run as an agent of 5 turns
# (run, write_file, read_file, list_files, then the answer; a
# file_contains verifier after them), with the skill only (--no-baseline),
# at the default total bound of 64 requests in flight, against the fake
# model server answering after a lognormal wait (mean 100 ms, sigma 0.8;
# reproducible, tests/fakes/fake_models.py).
#
# It prints the request phase (the fake's first request to its last
# answer) against the greedy schedule of the same waits: each unit a
# chain of its 5 waits (a turn asked the moment the turn before it came
# back: tools and jails free), 64 slots, a free slot taking the request
# that has waited longest. The request phase may be above it by what the
# tools, the jails and the loop cost; below 1.10 is the aim. Then the
# jail's overhead per unit, from its start to its first request (the jail
# up and the test's files staged), in milliseconds: median, 90th
# percentile and the most, from SKILLCI_TRACE=agent. Nothing is asserted.
#
#   BENCH_UNITS=N   agent units (default 256)
#   BENCH_MEAN=MS   the waits' mean (default 100; agents' turns are often
#                   seconds, which leaves the jails more time to start)
#   BENCH_JOBS=N    agent.jobs (threads for tools and verifiers; a quarter
#                   of them, at least 2, start jails)
#   BENCH_SEED=N    another draw of the waits (default 1)
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
root=${SKILLCI_ROOT:-$(pwd)}
cd "$root" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench-agent.XXXXXX") || exit 1
UNITS=${BENCH_UNITS:-256}
MEAN=${BENCH_MEAN:-100}
JOBS=${BENCH_JOBS:-16}
SEED=${BENCH_SEED:-1}
SLOTS=64
. tests/fakes/fake.sh

S="$T/skills/bench"
mkdir -p "$S/tests"
printf -- '---\nname: bench\ndescription: Benchmark skill for agent runs.\n---\n# Bench\n\nWrite out.txt.\n' > "$S/SKILL.md"
python3 - "$S/tests/agent.json" "$T/script.json" "$UNITS" "$SEED" "$MEAN" <<'EOF'
import json, sys
path, script, n, seed, mean = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
json.dump({"cases": [{"input": "agent unit %d" % i,
                      "verifiers": [{"type": "file_contains", "path": "out.txt", "values": ["ok"]}]}
                     for i in range(n)]}, open(path, "w"))
wait = {"latency_lognormal": {"mean_ms": mean, "sigma": 0.8, "by": "turn"},
        "usage": {"input": 300, "output": 40}}
turns = [
    {"tool_calls": [{"name": "run", "input": {"command": "echo working"}}]},
    {"tool_calls": [{"name": "write_file", "input": {"path": "out.txt", "content": "ok\n"}}]},
    {"tool_calls": [{"name": "read_file", "input": {"path": "out.txt"}}]},
    {"tool_calls": [{"name": "list_files", "input": {"path": "."}}]},
    {"text": "done"},
]
rules = [{"match": {"turn": k + 1}, "reply": dict(turns[k], **wait)} for k in range(5)]
json.dump({"seed": seed, "rules": rules, "default": {"text": "unscripted"}}, open(script, "w"))
EOF
# the budget's bound of 256 agents x 5 turns, each turn's tool results
# counted at their caps, is over the default token limit
printf 'budget:\n  max_input_tokens: 1000000000\nagent:\n  jobs: %d\n' "$JOBS" > "$T/skillci.yml"
fake_start "$T/script.json" || exit 1
trap 'fake_stop; [ -n "${BENCH_KEEP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=bench-key

echo "agent units: $UNITS x 5 turns at $SLOTS in flight; waits lognormal, mean $MEAN ms, sigma 0.8, seed $SEED; agent.jobs $JOBS"
t0=$(python3 -c 'import time; print(int(time.time() * 1000))')
SKILLCI_TRACE=agent "$SKILLCI" eval "$S" -m anthropic.bench --no-baseline --no-cache \
	--max-turns 5 --config "$T/skillci.yml" --store "$T/r.db" --json "$T/r.json" > "$T/out" 2> "$T/err"
rc=$?
t1=$(python3 -c 'import time; print(int(time.time() * 1000))')
if [ "$rc" -ne 0 ] || grep -q "jail unavailable" "$T/r.json"; then
	echo "eval exited $rc:"; grep -v '^trace' "$T/err" | tail -n 5
	grep -o 'jail unavailable[^"]*' "$T/r.json" | head -n 1
	exit 1
fi
fake_stats > "$T/stats"
python3 - "$FAKE_LOG" "$T/stats" "$T/r.json" "$T/err" "$SLOTS" "$t0" "$t1" <<'EOF'
import collections, heapq, json, re, statistics, sys
log, stats, res, err, slots, t0, t1 = sys.argv[1:8]
slots, t0, t1 = int(slots), int(t0) / 1000, int(t1) / 1000
st = json.load(open(stats))
chains = collections.OrderedDict()
for line in open(log):
    r = json.loads(line)
    first = next(m for m in r["body"]["messages"] if m["role"] == "user")
    key = first["content"] if isinstance(first["content"], str) else json.dumps(first["content"])
    chains.setdefault(key, []).append(r["latency_ms"])
# the greedy schedule: every unit's first turn ready at 0 (in the order they
# came), a turn ready the moment the one before it ends, FIFO on 64 slots
ready = [(0.0, i, 0) for i in range(len(chains))]
waits = list(chains.values())
heapq.heapify(ready)
free = [0.0] * slots
end = 0.0
while ready:
    t_ready, i, k = heapq.heappop(ready)
    t_slot = heapq.heappop(free)
    start = max(t_ready, t_slot)
    done = start + waits[i][k]
    heapq.heappush(free, done)
    end = max(end, done)
    if k + 1 < len(waits[i]):
        heapq.heappush(ready, (done, i, k + 1))
greedy = end / 1000
span = st["last_done_at"] - st["first_at"]
units = json.load(open(res))["units"]
passed = sum(u["verdict"] == "pass" for u in units)
text = open(err).read()
ready_ms = [int(m.group(1)) for m in re.finditer(r"ready (\d+) ms", text)]
jail_ms = [int(m.group(1)) for m in re.finditer(r"jail (\d+) ms", text)]
wait_ms = [int(m.group(1)) for m in re.finditer(r"wait (\d+) ms", text)]
q = lambda v, p: sorted(v)[min(len(v) - 1, int(p * len(v)))] if v else 0
print("requests %d (%d units, %d passed)  max in flight %d" % (st["requests"], len(units), passed,
      st["max_in_flight"]))
print("wall %.2f s  request phase %.2f s  greedy schedule %.2f s  phase/greedy %.3f"
      % (t1 - t0, span, greedy, span / greedy))
print("unit start to first request (ms): median %d  p90 %d  max %d"
      % (statistics.median(ready_ms), q(ready_ms, 0.9), max(ready_ms)))
print("jail start, beside the first request (ms): median %d  p90 %d  max %d"
      % (statistics.median(jail_ms), q(jail_ms, 0.9), max(jail_ms)))
print("first answer waiting for its jail (ms): %d of %d units waited; median %d  p90 %d  max %d"
      % (sum(w > 0 for w in wait_ms), len(wait_ms), statistics.median(wait_ms), q(wait_ms, 0.9),
         max(wait_ms)))
EOF
