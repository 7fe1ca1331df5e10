# make demo end to end (tests/demo.sh): the example PR improves
# commit-messages and breaks cuda-kernels (its SKILL.md renames the skill
# without renaming the folder). The oracle answers, so no key is needed.
# The JUnit must tell that story: no failure for commit-messages (it
# improved: the tests its base got wrong are not this PR's failures), one
# for cuda-kernels naming the rule and the SKILL.md line.
. tests/e2e/lib.sh

unset ANTHROPIC_API_KEY OPENAI_API_KEY GITHUB_ACTIONS GITHUB_EVENT_PATH
D=$T/demo
run env SKILLCI_DEMO_DIR="$D" sh tests/demo.sh "$SKILLCI"
expect_exit 0 "make demo runs (its PR is meant to fail the gate)"
expect_out_contains "skillci run exited 1" "the demo's skillci run fails the gate (exit 1)"
expect_err_contains "skills/cuda-kernels/SKILL.md:2: error: 'name' is 'cuda-kernels-v2' but the folder is 'cuda-kernels'; they must be equal [name-mismatch] (head, new)" \
	"the finding is printed with its side and state"
R=$D/.skillci/report
demo_rc=$RC
RC=1    # the demo's own skillci run exited 1 (checked above); .run_start is the demo's start
junit_gate "$SKILLCI" run --junit "$R/junit.xml" --json "$R/results.json"
RC=$demo_rc
check "demo JUnit: no failure for commit-messages, one for cuda-kernels with the rule and SKILL.md line" \
	python3 - "$R/junit.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = {s.get("name"): s for s in root.iter("testsuite")}
cm, ck = suites["skills/commit-messages"], suites["skills/cuda-kernels"]
assert cm.get("failures") == "0" and cm.find(".//failure") is None, ET.tostring(cm)[:2000]
# commit-messages' base failed two tests the head fixed: properties, not failures
props = {p.get("name"): p.get("value") for p in cm.iter("property")}
# two tests wrong at base, in each of the config's 3 runs
assert sorted(v for k, v in props.items() if " base tests[" in k).count("fail") == 2 * 3, props
fails = [(c.get("name"), c.find("failure")) for c in ck.findall("testcase") if c.find("failure") is not None]
assert len(fails) == 1, [n for n, _ in fails]
name, f = fails[0]
assert name == "gate: validity (Agent Skills rules)" and f.get("type") == "skill_invalid", (name, f.attrib)
assert f.get("message").startswith("skills/cuda-kernels/SKILL.md:2: 'name' is 'cuda-kernels-v2'"), f.get("message")
assert "[name-mismatch]" in f.get("message")
assert root.get("failures") == "1", root.attrib
print("ok")
EOF
check "demo Markdown: commit-messages passes (5 tests, 3 runs: a drop of 15 points is ruled out), cuda-kernels failed on validity in its row" \
	python3 - "$R/report.md" <<'EOF'
import sys
md = open(sys.argv[1], encoding="utf-8").read()
rows = {l.split(" | ")[1].split("<br>")[0]: l for l in md.splitlines() if l.startswith("| ") and " | <code>skills/" in l}
cm = rows["<code>skills/commit-messages</code>"]
assert cm.startswith("| ✅ pass |"), rows
# 60% at base and head, the oracle grading the expected outputs: no drop
assert "60% → 60% (0 pts)" in cm, cm
ck = rows["<code>skills/cuda-kernels</code>"]
# the failed check first, then the accepted unverified ones (no kernel ran)
assert ck.startswith("| ❌ **fail**<br><sub>validity, pass rate (accepted), kernel (accepted)</sub> |"), ck
assert "- ❌ **validity** fail (skill\\_invalid): skills/cuda-kernels/SKILL.md:2:" in md and "name-mismatch" in md, md
assert "gate failed: 1 of 2 changed skills failed (skills/cuda-kernels)" in md
print("ok")
EOF
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi > /dev/null 2>&1; then
	skip "demo: no kernel was run" "this machine has a GPU: the kernels ran"
else
	check "demo: the trusted config marks the runner compile-only and the report says so first" \
		python3 - "$R/report.md" "$D/repo/skillci.yml" <<'EOF'
import sys
md = open(sys.argv[1], encoding="utf-8").read().splitlines()
verdict = [l for l in md if l.startswith("❌ **") or l.startswith("✅ **")][0]
assert "no kernel was run (compile-only runner)" in verdict, verdict
assert "compile_only: true" in open(sys.argv[2]).read()
print("ok")
EOF
fi

done_testing
