#!/bin/sh
# Benchmark of agent runs (docs/evaluation.md, "Agent runs"): `skillci
# eval` of one skill whose UNITS tests each run as an agent of 5 turns
# (run, write_file, read_file, list_files, then the answer; a
# file_contains verifier after them), with the skill only (--no-baseline),
# at the default total bound of 64 requests in flight, against the fake
# model server answering after a lognormal wait (sigma 0.8; reproducible,
# tests/fakes/fake_models.py). Two rows: a stress row whose turns average
# 100 ms (every jail must start within a few model turns) and the
# realistic one, 1000 ms (agents' turns are seconds).
#
# Each row prints the request phase (the fake's first request to its
# last answer) against the greedy schedule of the same waits: each unit
# a chain of its 5 waits (a turn asked the moment the turn before it came
# back: tools and jails free), 64 slots, a free slot taking the request
# that has waited longest. The request phase may be above it by what the
# tools, the jails and the loop cost; below 1.10 is the aim. Beside it,
# the CPU this machine spent in the row: the jails' (bubblewrap, the
# helper and the commands: skillci's reaped children), skillci's own, the
# fake server's and every other process's (from /proc/stat), and the
# bound they make, CPU seconds over the cores: a request phase near the
# bound is the machine's limit, not the scheduler's. Then the jail's
# overhead per unit, from its start to its first request (the jail up
# and the test's files staged), in milliseconds: median, 90th percentile
# and the most, from SKILLCI_TRACE=agent. Nothing is asserted.
#
#   BENCH_UNITS=N     agent units (default 256)
#   BENCH_MEANS="MS ..." the rows' mean waits (default "100 1000")
#   BENCH_JOBS=N      agent.jobs (threads for tools and verifiers; a
#                     half as many, at least 2, start jails)
#   BENCH_SEED=N      another draw of the waits (default 1)
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
root=${SKILLCI_ROOT:-$(pwd)}
cd "$root" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench-agent.XXXXXX") || exit 1
UNITS=${BENCH_UNITS:-256}
MEANS=${BENCH_MEANS:-${BENCH_MEAN:-100 1000}}
JOBS=${BENCH_JOBS:-16}
SEED=${BENCH_SEED:-1}
SLOTS=64
. tests/fakes/fake.sh

S="$T/skills/bench"
mkdir -p "$S/tests"
printf -- '---\nname: bench\ndescription: Benchmark skill for agent runs.\n---\n# Bench\n\nWrite out.txt.\n' > "$S/SKILL.md"
# the budget's bound of 256 agents x 5 turns, each turn's tool results
# counted at their caps, is over the default token limit
printf 'budget:\n  max_input_tokens: 1000000000\nagent:\n  jobs: %d\n' "$JOBS" > "$T/skillci.yml"

# script MEAN: the row's tests and the fake's script
script() {
	python3 - "$S/tests/agent.json" "$T/script.json" "$UNITS" "$SEED" "$1" <<'EOF'
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
}

# cpu_now FILE: the machine's busy CPU (every process, /proc/stat) and
# the fake server's, in clock ticks, then the time in ms
cpu_now() {
	python3 - "$FAKE_PID" > "$1" <<'EOF'
import sys, time
busy = sum(int(x) for i, x in enumerate(open("/proc/stat").readline().split()[1:]) if i not in (3, 4))
f = open("/proc/%s/stat" % sys.argv[1]).read().rsplit(")", 1)[1].split()
print(busy, int(f[11]) + int(f[12]), int(time.time() * 1000))
EOF
}

script 100
fake_start "$T/script.json" || exit 1
trap 'fake_stop; [ -n "${BENCH_KEEP:-}" ] && echo "kept $T" || rm -rf "$T"' EXIT
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=bench-key
echo "agent units: $UNITS x 5 turns at $SLOTS in flight; waits lognormal, sigma 0.8, seed $SEED;" \
	"agent.jobs $JOBS; $(getconf _NPROCESSORS_ONLN) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

for MEAN in $MEANS; do
	script "$MEAN"
	fake_script "$T/script.json"
	fake_reset
	rm -f "$T/r.db"
	cpu_now "$T/cpu0"
	SKILLCI_TRACE=agent "$SKILLCI" eval "$S" -m anthropic.bench --no-baseline --no-cache \
		--max-turns 5 --config "$T/skillci.yml" --store "$T/r.db" --json "$T/r.json" \
		> "$T/out" 2> "$T/err"
	rc=$?
	cpu_now "$T/cpu1"
	if [ "$rc" -ne 0 ] || grep -q "jail unavailable" "$T/r.json"; then
		echo "eval exited $rc:"; grep -v '^trace' "$T/err" | tail -n 5
		grep -o 'jail unavailable[^"]*' "$T/r.json" | head -n 1
		exit 1
	fi
	fake_stats > "$T/stats"
	python3 - "$FAKE_LOG" "$T/stats" "$T/r.json" "$T/err" "$SLOTS" "$T/cpu0" "$T/cpu1" "$MEAN" <<'EOF'
import collections, heapq, json, os, re, statistics, sys
log, stats, res, err, slots, cpu0, cpu1, mean = sys.argv[1:9]
slots = int(slots)
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
# CPU seconds: skillci's trace (its own, its reaped children: the jails),
# the fake's /proc/PID/stat, the machine's /proc/stat for the rest
cpu = re.search(r"cpu skillci (\d+) ms children (\d+) ms", text)
own, jails = (int(cpu.group(1)) / 1000, int(cpu.group(2)) / 1000) if cpu else (0.0, 0.0)
(b0, f0, t0), (b1, f1, t1) = [[int(x) for x in open(p).read().split()] for p in (cpu0, cpu1)]
tick = os.sysconf("SC_CLK_TCK")
busy, fake, wall = (b1 - b0) / tick, (f1 - f0) / tick, (t1 - t0) / 1000
others = max(0.0, busy - own - jails - fake)
cores = os.cpu_count()
q = lambda v, p: sorted(v)[min(len(v) - 1, int(p * len(v)))] if v else 0
print("-- waits mean %s ms: %d requests (%d units, %d passed), at most %d in flight"
      % (mean, st["requests"], len(units), passed, st["max_in_flight"]))
print("wall %.2f s  request phase %.2f s  greedy schedule %.2f s  phase/greedy %.3f"
      % (wall, span, greedy, span / greedy))
print("cpu s: jails %.2f (%.1f ms a unit)  skillci %.2f  fake server %.2f  other processes %.2f"
      % (jails, 1000 * jails / max(1, len(units)), own, fake, others))
print("cpu bound on %d cores: jails %.2f s  this run %.2f s  with the other processes %.2f s"
      % (cores, jails / cores, (jails + own + fake) / cores, (jails + own + fake + others) / cores))
print("unit start to first request (ms): median %d  p90 %d  max %d"
      % (statistics.median(ready_ms), q(ready_ms, 0.9), max(ready_ms)))
print("jail start, beside the first request (ms): median %d  p90 %d  max %d"
      % (statistics.median(jail_ms), q(jail_ms, 0.9), max(jail_ms)))
print("first answer waiting for its jail (ms): %d of %d units waited; median %d  p90 %d  max %d"
      % (sum(w > 0 for w in wait_ms), len(wait_ms), statistics.median(wait_ms), q(wait_ms, 0.9),
         max(wait_ms)))
EOF
done
