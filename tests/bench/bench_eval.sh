#!/bin/sh
# Benchmark of `skillci eval`: 50 skills x 10 tests x 3 runs x 2 variants
# (3,000 work units) against the fake model server answering every request
# after 100 ms. Prints the wall time against the latency bound
# (ceil(units / concurrency) x 100 ms, what perfect overlap would take),
# the peak memory, and the time of a second, fully reused run. Nothing is
# asserted about time.
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
root=${SKILLCI_ROOT:-$(pwd)}
cd "$root" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench-eval.XXXXXX")
SKILLS=${BENCH_SKILLS:-50}
TESTS=${BENCH_TESTS:-10}
RUNS=${BENCH_RUNS:-3}
CONC=${BENCH_CONCURRENCY:-64}
LATENCY_MS=100
. tests/fakes/fake.sh

python3 - "$T/skills" "$SKILLS" "$TESTS" <<'EOF'
import json, os, sys
root, nskills, ntests = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for s in range(nskills):
    d = os.path.join(root, "skill-%02d" % s)
    os.makedirs(os.path.join(d, "references"))
    open(os.path.join(d, "SKILL.md"), "w").write(
        "---\nname: skill-%02d\ndescription: Benchmark skill %d.\n---\n# Skill %d\n\n%s\n"
        % (s, s, s, "Answer with the word fake. " * 40))
    open(os.path.join(d, "references", "notes.md"), "w").write("notes\n")
    tests = [{"input": "skill %d question %d" % (s, t), "expected": {"contains": ["fake"]}}
             for t in range(ntests)]
    json.dump({"tests": tests}, open(os.path.join(d, "skill_meta.json"), "w"))
EOF
printf '{"default": {"text": "fake answer", "latency_ms": %d, "usage": {"input": 200, "output": 50}}}\n' \
	"$LATENCY_MS" > "$T/script.json"
fake_start "$T/script.json" || exit 1
trap 'fake_stop; rm -rf "$T"' EXIT
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=bench-key

units=$((SKILLS * TESTS * RUNS * 2))
# bench_run NAME ARGS...: runs eval under /usr/bin/time -v, prints wall and peak RSS
bench_run() {
	name=$1; shift
	/usr/bin/time -v -o "$T/time.$name" "$SKILLCI" eval "$T"/skills/* -m anthropic.bench-model \
		--runs "$RUNS" --store "$T/results.db" --no-cache --concurrency "$CONC" "$@" \
		> "$T/out.$name" 2> "$T/err.$name"
	rc=$?
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/time.$name" |
		awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time.$name")
	echo "$rc $wall $rss"
}

set -- $(bench_run first)
rc1=$1 wall1=$2 rss1=$3
requests=$(fake_stat requests)
maxflight=$(fake_stat max_in_flight)
fake_reset
set -- $(bench_run second)
rc2=$1 wall2=$2 rss2=$3
requests2=$(fake_stat requests)

bound=$(awk -v u="$units" -v c="$CONC" -v l="$LATENCY_MS" 'BEGIN { printf "%.2f", int((u + c - 1) / c) * l / 1000 }')
echo "eval: $SKILLS skills x $TESTS tests x $RUNS runs x 2 variants = $units units, fake latency ${LATENCY_MS} ms, concurrency $CONC"
echo "first run:  exit $rc1, wall ${wall1} s, latency bound ${bound} s, ratio $(awk -v w="$wall1" -v b="$bound" 'BEGIN { printf "%.2f", w / b }'), peak RSS ${rss1} KiB, requests $requests, max in flight $maxflight"
echo "second run: exit $rc2, wall ${wall2} s (all units reused), peak RSS ${rss2} KiB, requests $requests2"
echo "per unit:   $(awk -v w="$wall1" -v u="$units" 'BEGIN { printf "%.2f", w * 1000 / u }') ms first run, $(awk -v w="$wall2" -v u="$units" 'BEGIN { printf "%.3f", w * 1000 / u }') ms reused"
grep '^units:' "$T/out.first" "$T/out.second" | sed 's/^[^:]*out\./  /'
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ]
