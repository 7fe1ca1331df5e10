#!/bin/sh
# Benchmark of the streaming pipeline: `skillci run` on a PR that changes
# every one of 40 skills (10 tests each, 2 runs; baseline, base and head:
# 40 x 10 x 2 x 3 = 2,400 units) and `skillci eval` of the same 40 skills
# (10 tests, 3 runs, baseline and skill: 2,400 units), both with default
# flags (total bound 64), against the fake model server answering after a
# lognormal wait (mean 100 ms, sigma 0.8; reproducible: every run draws the
# same waits, tests/fakes/fake_models.py).
#
# For each it prints the wall time of the whole command and of its request
# phase (first request to last answer, as the fake saw them) against
#   bound = max(sum of the waits / 64, longest wait)
# (no schedule can beat it), and against the greedy bound: the makespan of
# the same waits, in the order they arrived, on 64 slots each taking the
# next request the moment it is free (what a perfect online scheduler
# gets; it cannot know which requests are slow). Then the same commands of
# the revision before the streaming pipeline (BENCH_OLD_REV, default the
# commit below), extracted with git archive into a temporary folder and
# built there once, beside them; and the most requests the fake saw in
# flight. Nothing is asserted.
#
#   BENCH_OLD=/path/to/skillci   use that binary as the old one
#   BENCH_OLD=none               skip the old numbers
#   BENCH_SEED=N                 another draw of the waits (default 1)
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
root=${SKILLCI_ROOT:-$(pwd)}
cd "$root" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench-run.XXXXXX") || exit 1
SKILLS=${BENCH_SKILLS:-40}
TESTS=${BENCH_TESTS:-10}
SEED=${BENCH_SEED:-1}
SLOTS=64
FAKE_NOLOG=1
. tests/fakes/fake.sh

. tests/bench/old.sh
old=$OLD

R="$T/repo"
mkdir -p "$R"
python3 -c '
import json, os, sys
root, nskills, ntests = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for s in range(nskills):
    d = os.path.join(root, "skill-%02d" % s)
    os.makedirs(d)
    open(os.path.join(d, "SKILL.md"), "w").write(
        "---\nname: skill-%02d\ndescription: Benchmark skill %d.\n---\n# Skill %d\n\n%s\n"
        % (s, s, s, "Answer with the word fake. " * 40))
    tests = [{"input": "skill %d question %d" % (s, t), "expected": {"contains": ["fake"]}}
             for t in range(ntests)]
    json.dump({"tests": tests}, open(os.path.join(d, "skill_meta.json"), "w"))
' "$R/skills" "$SKILLS" "$TESTS" || exit 1
g() { git -C "$R" -c user.email=bench@skillci.invalid -c user.name=bench "$@"; }
g init -q -b main || exit 1
g add -A && g commit -q -m base || exit 1
BASE=$(g rev-parse HEAD)
for f in "$R"/skills/*/SKILL.md; do echo "Be brief." >> "$f"; done
g commit -q -a -m head || exit 1
HEAD=$(g rev-parse HEAD)

printf '{"seed": %d, "default": {"text": "fake answer", "latency_lognormal": {"mean_ms": 100, "sigma": 0.8}, "usage": {"input": 200, "output": 50}}}\n' \
	"$SEED" > "$T/script.json"
fake_start "$T/script.json" || exit 1
trap 'fake_stop; rm -rf "$T"' EXIT
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=bench-key
cd "$T" || exit 1

now_ms() { python3 -c 'import time; print(int(time.time() * 1000))'; }

# measure NAME BIN ARGS...: runs one command from a fresh fake state; prints
# one line of numbers: wall, request span, bounds, ratios, max in flight
measure() {
	name=$1 bin=$2; shift 2
	fake_reset
	t0=$(now_ms)
	/usr/bin/time -v "$bin" "$@" > "$T/$name.out" 2> "$T/$name.err"
	rc=$?
	t1=$(now_ms)
	kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/$name.err")
	if [ "$rc" -gt 1 ]; then
		echo "$name: exit $rc"; grep -v '^\s' "$T/$name.err" | tail -n 5
		return 1
	fi
	curl -s "$FAKE_URL/_fake/latencies" > "$T/$name.lat"
	fake_stats > "$T/$name.stats"
	python3 - "$name" "$t0" "$t1" "$T/$name.stats" "$T/$name.lat" "$SLOTS" "$kb" <<'PY'
import heapq, json, sys
name, t0, t1 = sys.argv[1], int(sys.argv[2]) / 1000, int(sys.argv[3]) / 1000
st, lat, slots, kb = json.load(open(sys.argv[4])), json.load(open(sys.argv[5])), int(sys.argv[6]), sys.argv[7]
wall = t1 - t0
span = st["last_done_at"] - st["first_at"] if st["first_at"] else 0.0
bound = max(st["latency_sum_ms"] / slots, st["latency_max_ms"]) / 1000
h = [0.0] * slots
for w in lat:
    heapq.heappush(h, heapq.heappop(h) + w)
greedy = max(h) / 1000
print("%-9s %5d req  wall %6.2f s  span %6.2f s  bound %5.2f s  greedy %5.2f s  "
      "wall/bound %5.2f  span/bound %5.2f  span/greedy %5.2f  greedy/bound %5.2f  "
      "before %4.2f s  after %4.2f s  max in flight %3d  peak %s kB"
      % (name, st["requests"], wall, span, bound, greedy, wall / bound, span / bound,
         span / greedy, greedy / bound, st["first_at"] - t0 if st["first_at"] else 0.0,
         t1 - st["last_done_at"] if st["first_at"] else 0.0, st["max_in_flight"], kb))
PY
}

units_run=$((SKILLS * TESTS * 2 * 3))
units_eval=$((SKILLS * TESTS * 3 * 2))
echo "run:  $SKILLS changed skills x $TESTS tests x 2 runs x 3 variants = $units_run units"
echo "eval: $SKILLS skills x $TESTS tests x 3 runs x 2 variants = $units_eval units"
echo "waits: lognormal, mean 100 ms, sigma 0.8, seed $SEED; bound = max(sum/$SLOTS, longest)"
RUNARGS="run --repo $R --base $BASE --head $HEAD -m anthropic.bench --runs 2 --no-cache"
EVALARGS="eval $T/repo/skills/skill-00"
i=1
while [ $i -lt "$SKILLS" ]; do EVALARGS="$EVALARGS $(printf '%s/repo/skills/skill-%02d' "$T" $i)"; i=$((i + 1)); done
EVALARGS="$EVALARGS -m anthropic.bench --runs 3 --no-cache"
git -C "$R" checkout -q "$HEAD"

measure run "$SKILLCI" $RUNARGS --store "$T/new-run.db" --report-dir "$T/new-run"
measure eval "$SKILLCI" $EVALARGS --store "$T/new-eval.db"
if [ "$old" != none ]; then
	echo "the revision before the streaming pipeline ($old), same waits:"
	measure old-run "$old" $RUNARGS --store "$T/old-run.db" --report-dir "$T/old-run"
	measure old-eval "$old" $EVALARGS --store "$T/old-eval.db"
	measure old-e64 "$old" $EVALARGS --store "$T/old-e64.db" --concurrency 64
else
	echo "(old numbers skipped: BENCH_OLD=none or the old revision did not build)"
fi
t0=$(now_ms)
fake_reset
"$SKILLCI" $RUNARGS --store "$T/new-run.db" --report-dir "$T/rerun" > /dev/null 2>&1
echo "rerun of the same PR, every unit reused: $(( $(now_ms) - t0 )) ms, $(fake_stat requests) requests"
