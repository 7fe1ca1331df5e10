#!/bin/sh
# Benchmark of memory against the number of units: `skillci run` on a PR
# that changes 3,000 skills (4 tests, 2 runs, baseline, base and head:
# 72,000 units; BENCH_MEMORY_SKILLS to change it) answered by the oracle
# provider (no HTTP: what is measured is the pipeline, the store and the
# reports, not a server), and `skillci report` of the results JSON it
# wrote. Prints the peak RSS of each (/usr/bin/time -v), and the same for
# the revision before the streaming pipeline (tests/bench/old.sh). Nothing
# is asserted.
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
root=${SKILLCI_ROOT:-$(pwd)}
cd "$root" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench-mem.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY
SKILLS=${BENCH_MEMORY_SKILLS:-3000}
. tests/bench/old.sh
old=$OLD

R="$T/repo"
python3 - "$R/skills" "$SKILLS" <<'PY' || exit 1
import json, os, sys
root, n = sys.argv[1], int(sys.argv[2])
for s in range(n):
    d = os.path.join(root, "group-%02d" % (s % 50), "skill-%05d" % s)
    os.makedirs(d)
    open(os.path.join(d, "SKILL.md"), "w").write(
        "---\nname: skill-%05d\ndescription: Benchmark skill %d.\n---\n# Skill %d\n\n%s\n"
        % (s, s, s, "Answer with the word fake. " * 40))
    tests = [{"input": "skill %d question %d: do the thing" % (s, t),
              "expected": {"contains": ["fake"]}, "expected_output": "a fake answer"}
             for t in range(4)]
    json.dump({"tests": tests}, open(os.path.join(d, "skill_meta.json"), "w"))
PY
g() { git -C "$R" -c user.email=bench@skillci.invalid -c user.name=bench "$@"; }
g init -q -b main && g add -A && g commit -q -m base || exit 1
for f in "$R"/skills/*/*/SKILL.md; do echo "Be brief." >> "$f"; done
g commit -q -a -m head || exit 1
cd "$T" || exit 1

# peak NAME BIN ARGS...: runs it under /usr/bin/time -v; prints seconds and peak RSS
peak() {
	name=$1 bin=$2; shift 2
	/usr/bin/time -v "$bin" "$@" > "$T/$name.out" 2> "$T/$name.err"
	rc=$?
	kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/$name.err")
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/$name.err")
	printf '%-10s exit %d  wall %8s  peak RSS %6.1f MiB\n' "$name" "$rc" "$wall" \
		"$(awk -v k="$kb" 'BEGIN { print k / 1024 }')"
}

units=$((SKILLS * 4 * 2 * 3))
echo "run: $SKILLS changed skills x 4 tests x 2 runs x 3 variants = $units units (oracle), then report"
RUNARGS="run --repo $R --base HEAD~1 --head HEAD -m oracle.self --runs 2 --max-units 1000000 --max-requests 1000000"
peak run "$SKILLCI" $RUNARGS --store "$T/new.db" --report-dir "$T/new"
peak report "$SKILLCI" report "$T/new/results.json" --junit "$T/r.xml" --markdown "$T/r.md" \
	--markdown-full "$T/rf.md" --html "$T/rhtml" --json "$T/r.json"
echo "  results JSON $(awk -v b="$(wc -c < "$T/new/results.json")" 'BEGIN { printf "%.1f", b / 1048576 }') MiB, JUnit $(awk -v b="$(wc -c < "$T/new/junit.xml")" 'BEGIN { printf "%.1f", b / 1048576 }') MiB, $(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['units']))" "$T/new/results.json") units"
if [ "$old" != none ]; then
	echo "the revision before the streaming pipeline ($old):"
	peak old-run "$old" $RUNARGS --store "$T/old.db" --report-dir "$T/old"
	peak old-report "$old" report "$T/new/results.json" --junit "$T/o.xml" --markdown "$T/o.md" \
		--markdown-full "$T/of.md" --html "$T/ohtml" --json "$T/o.json"
else
	echo "(old numbers skipped: BENCH_OLD=none or the old revision did not build)"
fi
