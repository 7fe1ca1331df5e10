#!/bin/sh
# Benchmark of `skillci run`: a PR that changes every one of 40 skills
# (10 tests each, 2 runs; baseline, base and head: 2,400 work units)
# against the fake model server answering every request after 50 ms.
# Prints, each measured in this one run: the cold run with 1 worker and
# with 4 (and their ratio) against the latency bound (units / (workers x
# batch) x 50 ms), a second, fully reused run, 4 shards one after another
# plus the merge, and peak memory (/usr/bin/time -v). Nothing is asserted.
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
root=${SKILLCI_ROOT:-$(pwd)}
cd "$root" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench-run.XXXXXX") || exit 1
SKILLS=${BENCH_SKILLS:-40}
TESTS=${BENCH_TESTS:-10}
RUNS=${BENCH_RUNS:-2}
BATCH=${BENCH_BATCH:-16}
LATENCY_MS=50
. tests/fakes/fake.sh

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

printf '{"default": {"text": "fake answer", "latency_ms": %d, "usage": {"input": 200, "output": 50}}}\n' \
	"$LATENCY_MS" > "$T/script.json"
fake_start "$T/script.json" || exit 1
trap 'fake_stop; rm -rf "$T"' EXIT
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=bench-key
cd "$T" || exit 1
units=$((SKILLS * TESTS * RUNS * 3))

now_ms() { python3 -c 'import time; print(int(time.time() * 1000))'; }
# timed NAME ARGS...: runs skillci run, sets MS (wall) and KB (peak RSS)
timed() {
	name=$1; shift
	t0=$(now_ms)
	/usr/bin/time -v "$SKILLCI" run --repo "$R" --base "$BASE" --head "$HEAD" \
		-m anthropic.bench --runs "$RUNS" --no-cache --batch "$BATCH" \
		--junit "$T/$name.xml" --markdown "$T/$name.md" --html "$T/$name" \
		--json "$T/$name.json" "$@" > "$T/$name.out" 2> "$T/$name.err"
	rc=$?
	MS=$(( $(now_ms) - t0 ))
	KB=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/$name.err")
	if [ "$rc" -gt 1 ]; then
		echo "skillci run failed ($rc):"
		tail -n 5 "$T/$name.err"
		exit 1
	fi
}

echo "plan: $SKILLS changed skills x $TESTS tests x $RUNS runs x 3 variants = $units units, model latency ${LATENCY_MS} ms, batch $BATCH"
fake_reset
timed cold1 --store "$T/s1.db" --jobs 1
c1=$MS
echo "cold, 1 worker:    ${MS} ms (latency bound $((units * LATENCY_MS / BATCH)) ms), peak ${KB} kB, requests $(fake_stat requests)"
fake_reset
timed cold4 --store "$T/s4.db" --jobs 4
c4=$MS
echo "cold, 4 workers:   ${MS} ms (latency bound $((units * LATENCY_MS / BATCH / 4)) ms), peak ${KB} kB, requests $(fake_stat requests)"
python3 -c "print('4 workers vs 1:    %.2fx faster' % ($c1 / max($c4, 1)))"
fake_reset
timed warm --store "$T/s1.db" --jobs 1
echo "rerun, all reused: ${MS} ms, peak ${KB} kB, requests $(fake_stat requests)"
python3 -c "print('rerun / cold:      %.3f' % ($MS / max($c1, 1)))"
total=0
for k in 1 2 3 4; do
	timed "shard$k" --store "$T/shard$k.db" --jobs 1 --shard "$k/4"
	total=$((total + MS))
	n=$(python3 -c "import json, sys; print(len(json.load(open(sys.argv[1]))['units']))" "$T/shard$k.json")
	echo "shard $k/4:         ${MS} ms, peak ${KB} kB, $n units"
done
t0=$(now_ms)
/usr/bin/time -v "$SKILLCI" merge "$T"/shard?.json --json "$T/merged.json" --junit "$T/m.xml" \
	--markdown "$T/m.md" --html "$T/m" > "$T/merge.out" 2> "$T/merge.err"
MS=$(( $(now_ms) - t0 ))
KB=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/merge.err")
echo "merge of 4 shards: ${MS} ms, peak ${KB} kB"
python3 -c "print('4 shards in a row: %d ms, %.2fx the unsharded run' % ($total, $total / max($c1, 1)))"
