#!/bin/sh
# Benchmark: `skillci export` of a store with 10,000 units (an oracle
# evaluation of 500 tests x 10 runs, with and without the skill), against
# the sqlite3 CLI reading the same transcripts, measured in the same run.
# Prints wall time, units per second, the ratio, peak RSS and output size.
# Nothing is asserted.
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
N=${BENCH_EXPORT_TESTS:-500}
RUNS=${BENCH_EXPORT_RUNS:-10}
mkdir -p "$T/skills/greeter"
printf -- '---\nname: greeter\ndescription: Greets.\n---\n# Greeter\n\nSay hello.\n' > "$T/skills/greeter/SKILL.md"
python3 - "$T/skills/greeter/skill_meta.json" "$N" <<'PY'
import json, sys
json.dump({"tests": [{"input": "Q%d: greet %s" % (i, "x" * 200), "expected": {"contains": ["hello %d" % i]}}
                     for i in range(int(sys.argv[2]))]}, open(sys.argv[1], "w"))
PY
cd "$T" || exit 1
"$SKILLCI" eval skills/greeter -m oracle.self --runs "$RUNS" --store "$T/r.db" --no-cache > /dev/null 2>&1 || {
	echo "eval failed"; exit 1; }

now() { python3 -c 'import time; print(time.monotonic())'; }
t0=$(now)
/usr/bin/time -v "$SKILLCI" export -o "$T/all.jsonl" --store "$T/r.db" > "$T/out" 2> "$T/time" || {
	cat "$T/time"; exit 1; }
t1=$(now)
units=$(wc -l < "$T/all.jsonl")
rss=$(awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}' "$T/time")
if command -v sqlite3 > /dev/null 2>&1; then
	t2=$(now)
	sqlite3 "$T/r.db" "SELECT transcript FROM units" > "$T/raw.txt"
	t3=$(now)
else
	t2=0 t3=0
fi
python3 - "$t0" "$t1" "$t2" "$t3" "$units" "${rss:-0}" "$(wc -c < "$T/all.jsonl")" <<'PY'
import sys
t0, t1, t2, t3 = map(float, sys.argv[1:5]); units, rss, size = map(int, sys.argv[5:8])
e = t1 - t0
print("export: %d units in %.3f s (%.0f units/s), %.1f MiB JSONL, peak RSS %.1f MiB"
      % (units, e, units / e if e else 0, size / 1048576, rss / 1024))
if t3 > t2:
    print("sqlite3 CLI reading the transcripts: %.3f s; export / sqlite3 = %.2fx" % (t3 - t2, e / (t3 - t2)))
PY
