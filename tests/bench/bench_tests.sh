#!/bin/sh
# Benchmark: reading test files. `skillci validate` on a generated tree of
# skills, each with a skill_meta.json (5 tests, one with a context file), a
# {"cases"} suite (5 cases) and an evals/evals.json (2 evals), against the
# same tree without test files, measured in one run (the ratio is the cost
# of the test loader); then one skill whose skill_meta.json holds 10,000
# tests (the per-skill bound). Prints wall time, rates and peak RSS.
# Nothing is asserted.
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
N=${BENCH_TEST_SKILLS:-2000}
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

python3 - "$T" "$N" <<'PY'
import json, os, sys
root, n = sys.argv[1], int(sys.argv[2])

def skill(base, name, with_tests):
    d = os.path.join(base, name)
    os.makedirs(d)
    with open(os.path.join(d, "SKILL.md"), "w") as f:
        f.write("---\nname: %s\ndescription: Benchmark skill %s with tests.\n---\n\n# Steps\n\nDo the task.\n" % (name, name))
    if not with_tests:
        return d
    os.makedirs(os.path.join(d, "references"))
    with open(os.path.join(d, "references", "diff.txt"), "w") as f:
        f.write("+ added a line\n" * 20)
    tests = [{"input": "Write a commit message for change %d" % i,
              "context": {"files": ["references/diff.txt"]} if i == 0 else None,
              "expected": {"contains": ["feat", "change %d" % i]},
              "output_file": None, "validator": None, "validator_config": None}
             for i in range(5)]
    with open(os.path.join(d, "skill_meta.json"), "w") as f:
        json.dump({"metadata": {"version": "1.0", "generated_by": "bench", "test_pass_rate": 0.5},
                   "tests": tests}, f, indent=2)
    os.makedirs(os.path.join(d, "tests"))
    with open(os.path.join(d, "tests", "cases.json"), "w") as f:
        json.dump({"cases": [{"id": "c%d" % i, "input": "Case %d" % i,
                              "verifiers": [{"type": "contains", "values": ["fix"]}]}
                             for i in range(5)]}, f, indent=2)
    os.makedirs(os.path.join(d, "evals"))
    with open(os.path.join(d, "evals", "evals.json"), "w") as f:
        json.dump({"skill_name": name, "evals": [{"id": i, "prompt": "Eval %d" % i,
                   "expected_output": "Answer %d" % i, "expectations": ["mentions %d" % i]}
                   for i in range(2)]}, f, indent=2)
    return d

for i in range(n):
    skill(os.path.join(root, "with-tests"), "skill-%05d" % i, True)
    skill(os.path.join(root, "no-tests"), "skill-%05d" % i, False)

d = skill(os.path.join(root, "big"), "big-suite", False)
with open(os.path.join(d, "skill_meta.json"), "w") as f:
    json.dump({"tests": [{"input": "Question number %d about the task" % i,
                          "expected": {"contains": ["answer %d" % i, "because"]}}
                         for i in range(10000)]}, f, indent=2)
PY

# measure LABEL UNITS WHAT CMD...: wall seconds and peak RSS of one run.
measure() {
	label=$1 units=$2 what=$3; shift 3
	python3 - "$label" "$units" "$what" "$@" <<'PY'
import resource, subprocess, sys, time
label, units, what, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
t0 = time.monotonic()
p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%-26s %s=%d exit=%d wall=%.3fs rate=%.0f %s/s peak_rss=%.1f MiB"
      % (label, what, units, p.returncode, wall, units / wall if wall else 0, what, rss))
print("WALL %s %.6f" % (label, wall), file=sys.stderr)
PY
}

cd "$T"
measure "validate, no test files" "$N" skills "$SKILLCI" validate no-tests 2> "$T/a"
measure "validate, 12 tests/skill" "$N" skills "$SKILLCI" validate with-tests 2> "$T/b"
python3 - "$T/a" "$T/b" "$N" <<'PY'
import sys
a = float(open(sys.argv[1]).read().split()[-1]); b = float(open(sys.argv[2]).read().split()[-1])
n = int(sys.argv[3])
print("test loading: ratio with/without tests = %.2f; %.1f us per skill for 3 files and 12 tests"
      % (b / a if a else 0, (b - a) / n * 1e6))
PY
measure "validate, 10,000 tests" 10000 tests "$SKILLCI" validate big/big-suite 2>/dev/null
