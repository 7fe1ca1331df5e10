# The strong reference end to end (docs/kernels.md, "The strong
# reference"), without a GPU: a stand-in kernel worker
# (tests/fakes/stand_in_worker.py) that copies the job it gets and answers
# as the real worker does on a GPU.
#
#   - the job carries the fixture's solution.cu and its name when it
#     times (skillci kernel), and none when the fixture has no solution
#     (the result's strong reference then says "none" and why);
#   - skillci kernel's terminal shows the strong reference beside the
#     naive baseline;
#   - an eval with that worker (compile-only here: its job does not time,
#     the stand-in answers as if it had) keeps, per unit, the strong reference's
#     name, the speedup over it and the share of the roofline, and per
#     aggregate the geomean of strong speedups (results.json); stored and
#     reused, they come back the same;
#   - skillci report shows both numbers: the Markdown's row and kernel
#     line, JUnit, the terminal summary.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

export HOME="$T/home"
mkdir -p "$HOME"

if [ "${HAVE_CUDA:-}" != 1 ]; then
	skip "strong reference" "not built with CUDA (kernel tests are skipped without the worker)"
	done_testing
	exit 0
fi

FX="$T/fx"
mkdir -p "$FX" "$T/nosol" "$T/skills/kern"
cp -R "$SKILLCI_ROOT/fixtures/softmax" "$FX/"
cp -R "$SKILLCI_ROOT/fixtures/softmax" "$T/nosol/"
rm "$T/nosol/softmax/solution.cu"

# What the real worker writes on a GPU for a correct candidate (worker.c):
# 3x the naive baseline, 0.8x the fixture's solution, 45% of the roofline.
cat > "$T/gpu-result.json" <<'EOF'
{"harness_version": "1", "verdict": "passed", "reason": "none",
 "message": "correct on 40 checks; 0.1000 ms vs baseline 0.3000 ms: 3.00x speedup (45% of peak); 0.80x the strong reference (fixture solution fixtures/softmax/solution.cu, 0.0800 ms)",
 "fixture": "softmax", "compile": {"ok": true, "registers": 30, "log": ""},
 "device": {"gpu": true, "name": "Stand-in GPU", "driver": 13000},
 "correctness": {"status": "passed", "launches": 40},
 "timing": {"status": "done", "method": "single", "speedup": 3.0, "pct_peak": 45.0, "suspect": false,
            "candidate": {"median_ms": 0.1, "iqr_ms": 0.001, "reps": 50},
            "baseline": {"median_ms": 0.3, "iqr_ms": 0.002, "reps": 50},
            "strong_reference": {"name": "fixture solution fixtures/softmax/solution.cu", "status": "done",
                                 "median_ms": 0.08, "q1_ms": 0.079, "q3_ms": 0.081, "reps": 50, "speedup": 0.8,
                                 "method": "the harness's single-launch (L2 flushed) timing, interleaved with the candidate, as the naive baseline is"}}}
EOF
stand_in_worker "$T/worker" 0 "" "$T/gpu-result.json" "$T/job.json" || exit 1

# ---- the job carries the solution; the terminal shows it ----
run env SKILLCI_KERNEL_WORKER="$T/worker" "$SKILLCI" kernel softmax "$FX/softmax/solution.cu" --fixtures "$FX" \
	--allow-unpinned
expect_exit 0 "skillci kernel with the stand-in worker exits 0"
check "the job carries the fixture's solution.cu and names it" python3 - "$T/job.json" "$FX/softmax/solution.cu" <<'EOF'
import json, sys
job = json.load(open(sys.argv[1]))
assert job["solution"] == open(sys.argv[2]).read(), "solution text"
assert job["solution_name"] == "fixture solution fixtures/softmax/solution.cu", job["solution_name"]
assert job["baseline"], "baseline"
EOF
expect_out_contains "3.00x speedup" "the terminal shows the speedup over the naive baseline"
expect_out_contains "strong reference: fixture solution fixtures/softmax/solution.cu, 0.0800 ms: 0.80x" \
	"and the strong reference beside it"

run env SKILLCI_KERNEL_WORKER="$T/worker" "$SKILLCI" kernel softmax "$FX/softmax/solution.cu" --fixtures "$T/nosol" \
	--allow-unpinned
expect_exit 0 "a fixture without solution.cu: skillci kernel exits 0"
check "its job carries no solution" python3 -c "
import json; j = json.load(open('$T/job.json')); assert 'solution' not in j and 'solution_name' not in j, sorted(j)"
expect_out_contains "strong reference: none (none: the fixture has no solution.cu)" "and the result says why there is none"

run env SKILLCI_KERNEL_WORKER="$T/worker" "$SKILLCI" kernel softmax "$FX/softmax/solution.cu" --fixtures "$FX" \
	--allow-unpinned --no-timing
check "without timing the job carries neither baseline nor solution" python3 -c "
import json; j = json.load(open('$T/job.json')); assert 'solution' not in j and 'baseline' not in j, sorted(j)"

# ---- eval: the unit, the aggregate, the store ----
printf -- '---\nname: kern\ndescription: Writes CUDA kernels.\n---\nWrite fast kernels.\n' > "$T/skills/kern/SKILL.md"
echo '{"tests": [{"input": "Write the softmax kernel.", "fixture": "softmax"}]}' > "$T/skills/kern/skill_meta.json"
EVAL="$SKILLCI eval $T/skills/kern -m oracle.self --fixtures $FX --allow-unpinned --no-baseline --store $T/k.db"
run env SKILLCI_KERNEL_WORKER="$T/worker" $EVAL --json "$T/k.json"
expect_exit 0 "eval with the stand-in worker exits 0"
cat > "$T/strong.py" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
u = r["units"]
assert len(u) == 1 and u[0]["verdict"] == "pass", u
k = u[0]["kernel"]
assert k["speedup"] == 3.0, k
assert k["strong_reference"] == "fixture solution fixtures/softmax/solution.cu", k
assert k["strong_speedup"] == 0.8, k
assert k["pct_of_peak"] == 45.0, k
a = [x for x in r["aggregates"] if x["variant"] == "head"][0]
assert abs(a["speedup_geomean"] - 3.0) < 1e-9 and abs(a["strong_speedup_geomean"] - 0.8) < 1e-9, a
assert u[0]["reused"] == (sys.argv[2] == "reused"), u[0]["reused"]
EOF
check "the unit keeps the strong reference, the speedup over it and the roofline share" python3 "$T/strong.py" "$T/k.json" fresh
rm -f "$T/job.json"
run env SKILLCI_KERNEL_WORKER="$T/worker" $EVAL --json "$T/k2.json"
expect_exit 0 "the same eval again, reused from the store, exits 0"
check "reused: the worker was not asked" test ! -e "$T/job.json"
check "reused from the store, they come back the same" python3 "$T/strong.py" "$T/k2.json" reused

# a strong reference that could not be timed: the unit says so, without a number
python3 - "$T/gpu-result.json" "$T/untimed-result.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["timing"]["strong_reference"] = {"name": "fixture solution fixtures/softmax/solution.cu", "status": "unavailable",
                                   "why": "the solution fails the check at the first correctness size: mismatch in 'y'"}
json.dump(r, open(sys.argv[2], "w"))
EOF
stand_in_worker "$T/worker-untimed" 0 "" "$T/untimed-result.json" || exit 1
run env SKILLCI_KERNEL_WORKER="$T/worker-untimed" $EVAL --no-reuse --json "$T/u.json"
expect_exit 0 "eval with a strong reference not timed exits 0"
check "the unit names it, says why it was not timed, and has no strong speedup" python3 - "$T/u.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
k = r["units"][0]["kernel"]
assert k["strong_reference"] == ("fixture solution fixtures/softmax/solution.cu (not timed: the solution fails "
                                 "the check at the first correctness size: mismatch in 'y')"), k
assert k["strong_speedup"] is None and k["speedup"] == 3.0, k
a = [x for x in r["aggregates"] if x["variant"] == "head"][0]
assert a["strong_speedup_geomean"] is None, a
EOF
run "$SKILLCI" report "$T/u.json" --markdown "$T/u.md"
check "Markdown: the kernel line shows the naive speedup, the strong reference why not" grep -qF \
	"strong reference: fixture solution fixtures/softmax/solution.cu (not timed: the solution fails the check at the first correctness size: mismatch in 'y')" \
	"$T/u.md"

# a fixture without a solution: the unit's strong reference is "none" and why
python3 - "$T/gpu-result.json" "$T/none-result.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["timing"]["strong_reference"] = {"name": "none", "status": "none", "why": "the fixture has no solution.cu"}
json.dump(r, open(sys.argv[2], "w"))
EOF
stand_in_worker "$T/worker-none" 0 "" "$T/none-result.json" || exit 1
run env SKILLCI_KERNEL_WORKER="$T/worker-none" $EVAL --no-reuse --json "$T/n.json"
expect_exit 0 "eval without a strong reference exits 0"
check "the unit's strong reference is none, with why" python3 -c "
import json; k = json.load(open('$T/n.json'))['units'][0]['kernel']
assert k['strong_reference'] == 'none: the fixture has no solution.cu' and k['strong_speedup'] is None, k"

# ---- the reports show both numbers ----
run "$SKILLCI" report "$T/k.json" --markdown "$T/k.md" --junit "$T/k.xml"
expect_exit 0 "report exits 0"
check "Markdown: the row's speedup over the naive baseline with the strong one under it" \
	grep -qF '| 3.00×<br><sub>strong 0.80×</sub> |' "$T/k.md"
check "Markdown: the legend says which is which" \
	grep -qF "speedup: geomean of passing kernels over the fixtures' naive baselines; under it, over their strong references" "$T/k.md"
check "Markdown: the kernel line gives both, the reference's name and the roofline share" grep -qF \
	'speedup 3.00× over the naive baseline, 0.80× over the strong reference (fixture solution fixtures/softmax/solution.cu), 45% of the roofline' \
	"$T/k.md"
check "JUnit: the unit's strong reference and speedup" sh -c "grep -qF 'strong_reference=fixture solution fixtures/softmax/solution.cu' '$T/k.xml' && grep -qF 'strong_speedup=0.800' '$T/k.xml' && grep -qF 'pct_of_peak=45.0' '$T/k.xml'"
check "JUnit: the aggregate's strong speedup property" grep -qF 'name="oracle.self head strong_speedup" value="0.800"' "$T/k.xml"
expect_out_contains "3.00× naive, 0.80× strong" "the terminal summary shows both"

done_testing
