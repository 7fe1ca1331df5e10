# skillci report end to end: golden JUnit/Markdown/HTML from fixed results
# files, schema validation with xmllint, the HTML in headless Chromium, the
# 65,536-character bound, GitHub Actions outputs and annotations, and the
# sticky PR comment against a fake GitHub API on loopback.
. tests/e2e/lib.sh

unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_TOKEN GITHUB_REPOSITORY \
	GITHUB_EVENT_PATH GITHUB_API_URL GITHUB_SERVER_URL GITHUB_RUN_ID
export NO_COLOR=1
G=tests/golden
IN=$G/inputs
EXP=$G/expected

# ---- golden files -------------------------------------------------------

# render NAME ARGS...: the same reports regen.sh writes, into $T/NAME.*
render() {
	name=$1
	shift
	run "$SKILLCI" report "$@" --junit "$T/$name.xml" --markdown "$T/$name.md" \
		--markdown-full "$T/$name.full.md" --html "$T/$name"
	expect_exit 0 "report $name exits 0"
	printf '%s\n' "$OUT" > "$T/$name.term.txt"
	for ext in xml md full.md term.txt; do
		expect_same "$EXP/$name.$ext" "$T/$name.$ext" "$name.$ext matches the golden file"
	done
	expect_same "$EXP/$name.html" "$T/$name/report.html" "$name.html matches the golden file"
	expect_same "$EXP/$name.index.html" "$T/$name/index.html" "$name index.html matches the golden file"
}

render pr "$IN/pr.json"
render rows "$IN/rows.json" --config "$IN/rows.skillci.yml"
render oracle "$IN/oracle.json"
render eval "$IN/eval.json"
render diff "$IN/eval.json" --base "$IN/eval-base.json" --history "$IN/eval-base.json"
run "$SKILLCI" report "$IN/pr.json" --junit "$T/pr.file-attrs.xml" --junit-file-attrs
expect_same "$EXP/pr.file-attrs.xml" "$T/pr.file-attrs.xml" "JUnit with --junit-file-attrs matches the golden file"
run "$SKILLCI" report "$IN/rows.json" --config "$IN/rows.skillci.yml" --junit "$T/rows.file-attrs.xml" --junit-file-attrs
expect_same "$EXP/rows.file-attrs.xml" "$T/rows.file-attrs.xml" "rows JUnit with --junit-file-attrs matches the golden file"

# What the golden PR report must show (so a regenerated golden file that
# lost something fails here too).
md=$(cat "$T/pr.md")
# cuda-gemm's 100% -> 0% on one test, 2 runs (a fixed design: the file
# records no sequential one) is a drop its data neither show nor rule out:
# unverified, which blocks (docs/evaluation.md)
for want in '❌ **gate failed' '100% → 0% (-100 pts)' '+75 pts (not significant, p=0.250)' \
	'<code>skills/new-skill</code><br><sub>added</sub>' '<code>skills/old-skill</code><br><sub>deleted at head</sub>' \
	'| ⚠️ **unverified**<br><sub>tests (accepted)</sub> | <code>skills/docs-only</code><br><sub>unverified: no tests</sub> |' \
	'| ❌ **fail**<br><sub>pass rate</sub> | <code>skills/commit-messages</code> |' \
	'- ⚠️ **tests** unverified, accepted by the trusted config (skill\_untested): unverified: no tests' '**Regressed** (pass at base, fail at head): 2 tests' \
	'0 of 2 runs passed; fail (wrong\_answer)' \
	'⚠️ **pass rate** unverified (pass\_rate\_unverified): pass rate 100% -&gt; 0%: a fixed design of 2 runs per test shows neither a drop nor the absence of a drop of 15 points'  'compile log:' 'identifier "INFINITY" is undefined' \
	'<details>' 'fixtures.lock <code>efefefefefef</code>' 'mode GPU' \
	'driver 550.54.15' 'skillci 0.1.0' 'pass\_rate\_drop' '&lt;script&gt;' '&#124; pipe'; do
	case "$md" in *"$want"*) _tap ok "PR report shows '$want'" ;;
	*) _tap not-ok "PR report shows '$want'" "$(head -c 2000 "$T/pr.md")" ;; esac
done
check "PR report: the failed kernel's compile log is one click away, in what failed" python3 -c "
import sys
md = open(sys.argv[1], encoding='utf-8').read()
failed = md.split('### What failed')[1].split('### Details')[0]
gemm = [b for b in failed.split('<details>') if 'skills/cuda-gemm' in b][0]
assert 'run 1: compile log:' in gemm and 'identifier \"INFINITY\" is undefined' in gemm, gemm" "$T/pr.md"
case "$(cat "$T/oracle.md")" in *"Oracle self-test"*"Incomplete run"*"compile-only"*"⚠️ **incomplete**"*)
	_tap ok "oracle report has the self-test banner, incomplete marker and compile-only mode" ;;
*) _tap not-ok "oracle report has the self-test banner, incomplete marker and compile-only mode" ;; esac
case "$(cat "$T/eval.md")" in *"| skill helps | skill | pass rate no skill → with skill |"*"| ✅ helps | <code>skills/cuda-softmax</code><br><sub>anthropic.claude-haiku-4-5</sub> | 17% → 100% (+83 pts)"*"✅ helps"*"worst mismatch: |error| 0.25 at index 7"*)
	_tap ok "eval report compares no skill with the skill" ;;
*) _tap not-ok "eval report compares no skill with the skill" ;; esac
case "$(cat "$T/diff.md")" in *"83% → 100%"*"(unpaired)"*)
	_tap ok "--base diffs two single-run files (unpaired)" ;;
*) _tap not-ok "--base diffs two single-run files (unpaired)" "$(cat "$T/diff.md")" ;; esac
if grep -q "$(printf '\033')" "$T/pr.term.txt"; then
	_tap not-ok "terminal summary has no escape sequences when not a TTY"
else
	_tap ok "terminal summary has no escape sequences when not a TTY"
fi
check "terminal summary draws bars" grep -qF "baseline   █████░░░░░░░░░░░░░░░  25%" "$T/pr.term.txt"
check "terminal summary gives each pass rate's interval" grep -qF "  base       ████████████████████ 100%  (4/4, 95% CI 51–100%, 950 tokens)" "$T/pr.term.txt"

# ---- one row per changed skill, each with its verdict and reason --------

# rows.json (tests/golden/make-rows.sh) is a real run with one changed skill
# of every kind: the Markdown row of each says what happened and what the
# gate decided, and nothing in the report contradicts it.
check "rows: one row per changed skill, each kind with its gate verdict first" \
	python3 - "$T/rows.md" <<'EOF'
import re, sys
md = open(sys.argv[1], encoding="utf-8").read()
rows = {}
for line in md.splitlines():
    m = re.match(r"^\| ((?:✅|❌|⚠️|⏳|—)[^|]*?) \| <code>(skills/[^<]*)</code>", line)
    if m:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows[m.group(2)] = cells
def row(skill):
    assert skill in rows, (skill, list(rows))
    return rows[skill]
assert len(rows) == 9, list(rows)
r = row("skills/added"); assert r[0] == "✅ pass" and r[1].endswith("<br><sub>added</sub>"), r
assert r[2] == "— → 100%<br><sub>no skill 0%</sub>", r
r = row("skills/deleted"); assert r[0] == "✅ pass" and r[1].endswith("<br><sub>deleted at head</sub>"), r
# 100% -> 100% on two tests, one run each: a drop is neither shown nor ruled out
# 100% -> 100% on two tests, sampled until a drop of D is ruled out
r = row("skills/new-name"); assert r[0] == "✅ pass" and r[1].endswith("<br><sub>from skills/old-name</sub>"), r
# untested: unverified, accepted by the trusted config (gate.allow_untested), never "pass"
r = row("skills/untested"); assert r[0] == "⚠️ **unverified**<br><sub>tests (accepted)</sub>" and r[1].endswith("<br><sub>unverified: no tests</sub>"), r
r = row("skills/invalid"); assert r[0] == "❌ **fail**<br><sub>validity</sub>" and r[1].endswith("<sub>invalid</sub>"), r
r = row("skills/legacy"); assert r[0] == "✅ pass", r
r = row("skills/improved"); assert r[0] == "✅ pass" and r[2] == "50% → 100% (+50 pts)<br><sub>Δ [-11, +100]; D 15</sub>", r
r = row("skills/regressed"); assert r[0] == "❌ **fail**<br><sub>pass rate</sub>" and r[2].startswith("100% → 12% (-88 pts)"), r
assert r[3] == "130 (+18%)" and r[4] == "no price", r
r = row("skills/known-bad"); assert r[0] == "✅ pass", r
# no message in the table: the longest cell line is short
for skill, cells in rows.items():
    for c in cells:
        for part in c.split("<br>"):
            text = re.sub(r"<[^>]+>", "", part)
            assert len(text) <= 40, (skill, text)
first = md.split("\n\n")[1]
assert first == "❌ **gate failed: 2 of 9 changed skills failed (skills/invalid, skills/regressed); 1 unverified.**", first
failed = md.split("### What failed\n\n")[1].split("### Details")[0]
blocks = {re.search(r"<code>(skills/[^<]*)</code>", b).group(1): b for b in failed.split("<details>")[1:]}
# every open check has its block: the two failures and the accepted unverified one
assert sorted(blocks) == ["skills/invalid", "skills/regressed", "skills/untested"], sorted(blocks)
assert "⚠️ **tests** unverified, accepted by the trusted config (skill\\_untested): unverified: no tests: the skill 'untested'" in blocks["skills/untested"], blocks["skills/untested"]
b = blocks["skills/invalid"]
assert "- ❌ **validity** fail (skill\\_invalid): skills/invalid/SKILL.md:2: 'name' is 'invalid-v2'" in b and "name-mismatch" in b, b
b = blocks["skills/regressed"]
assert "<b>pass rate</b> fail · 8 tests × 3 runs: 1 passed, 7 regressed</summary>" in b, b
assert "pass rate 100% -&gt; 12%: a drop is shown (difference -87.5 points" in b and "sequential: 3 runs per test after 3 rounds" in b, b
assert "**Regressed** (pass at base, fail at head): 7 tests" in b and "Already failing" not in b, b
assert b.count("fail (wrong\\_answer): answer lacks 'ok-regressed'") == 7, b
# the head's answer, escaped for Markdown and HTML
assert b.count("  - answer (run 1): <q>I am not sure what the regressed word is; try &#124; pipes &lt;b&gt;and&lt;/b&gt; \\*stars\\*.</q>") == 7, b
assert b.index("tests\\[2\\]") < b.index("tests\\[8\\]")
# known-bad passes (0 of 7 at both sides: no drop); its failing test is
# labelled from its own runs, in the details
details = md.split("### Details")[1]
kb = [b for b in details.split("<details>") if "<code>skills/known-bad</code>" in b][0]
assert "➖ <code>tests\\[2\\]</code> Q2 about known-bad \\[hard\\]: 0 of 7 runs passed; fail (wrong\\_answer): answer lacks 'ok-known-bad' — already failing, base passed 0 of 7" in kb, kb
for never in ("No changed skill", "**Untested**", "[run 0]", "inconclusive", "unsure"):
    assert never not in md, never
assert "⚠️ pre-existing error <code>skills/legacy/SKILL.md:3</code>" in md
assert "✅ fixed <code>skills/legacy/SKILL.md:9</code>" in md
print("ok")
EOF
for name in pr rows; do
	check "$name.md: every table row fits GitHub's comment width (at most 100 characters shown)" \
		python3 - "$T/$name.md" <<'EOF'
import html, re, sys
worst = 0
rows = [l for l in open(sys.argv[1], encoding="utf-8") if l.startswith("| ") and not l.startswith(("| gate |", "| model |"))]
for l in rows:
    cells = l.strip()[2:-2].split(" | ")
    # a cell is as wide as its widest line (<br> breaks it)
    w = sum(max(len(html.unescape(re.sub(r"<[^>]+>", "", part)).replace("\\", "")) for part in c.split("<br>"))
            for c in cells) + 3 * (len(cells) - 1) + 4
    worst = max(worst, w)
    assert w <= 100, (w, l)
assert rows, "no rows"
print("ok: widest row", worst)
EOF
done
check "rows: the terminal gives every changed skill and the same verdict" python3 - "$T/rows.term.txt" <<'EOF'
import sys
t = open(sys.argv[1], encoding="utf-8").read()
for want in ("skills/deleted: deleted at head\n  gate: ✓ passed", "skills/new-name · anthropic.fake-student (renamed from skills/old-name)",
             "skills/untested: modified, unverified: no tests",
             "gate: ✗ validity failed (skill_invalid): skills/invalid/SKILL.md:2:",
             "gate: ✗ pass_rate failed (pass_rate_drop): pass rate 100% -> 12%: a drop is shown",
             "skills/new-name · anthropic.fake-student (renamed from skills/old-name)\n  baseline",
             "gate: ? tests unverified, accepted (skill_untested): unverified: no tests",
             "✗ gate failed: 2 of 9 changed skills failed (skills/invalid, skills/regressed); 1 unverified"):
    assert want in t, want
print("ok")
EOF

# ---- JUnit: the gate's verdict -------------------------------------------

check "rows JUnit: a failure exactly where the gate failed, with the rule and the SKILL.md line" \
	python3 - "$T/rows.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = {s.get("name"): s for s in root.iter("testsuite")}
fails = [(s.get("name"), c.get("name"), c.find("failure")) for s in root.iter("testsuite")
         for c in s.findall("testcase") if c.find("failure") is not None]
got = sorted((s, n, f.get("type")) for s, n, f in fails)
# the regressed skill's 7 broken tests, each in its 3 runs (the design
# sampled 3 rounds before the drop was shown)
assert got == sorted([("skills/invalid", "gate: validity (Agent Skills rules)", "skill_invalid"),
                      ("skills/regressed", "gate: pass rate, base -> head", "pass_rate_drop")] +
                     [("skills/regressed", "skills/regressed/tests[%d] run %d" % (t, k), "regressed")
                      for t in range(2, 9) for k in (1, 2, 3)]), got
v = [f for s, n, f in fails if f.get("type") == "skill_invalid"][0]
assert v.get("message").startswith("skills/invalid/SKILL.md:2: 'name' is 'invalid-v2'"), v.get("message")
assert "[name-mismatch]" in v.get("message")
assert "location: skills/invalid/SKILL.md:2" in v.text and "at skills.invalid.SKILL(SKILL.md:2)" in v.text, v.text
assert root.get("failures") == "23" and sum(int(s.get("failures")) for s in suites.values()) == 23
# a decided pass is a passing test case: no failure, no skip
nn = {c.get("name"): c for c in suites["skills/new-name"].findall("testcase")}
pr = nn["gate: pass rate, base -> head"]
assert pr.find("skipped") is None and pr.find("failure") is None and pr.find("error") is None, pr
props = lambda s: {p.get("name"): p.get("value") for p in suites[s].iter("property")}
assert props("skills/legacy")["errors_pre_existing"] == "1" and props("skills/legacy")["gate"] == "passed"
assert suites["skills/legacy"].get("failures") == "0"
assert props("skills/new-name")["old_path"] == "skills/old-name" and props("skills/new-name")["status"] == "renamed"
dl = [c for c in suites["skills/deleted"].findall("testcase")]
assert [(c.get("name"), c.find("failure") is None) for c in dl] == [("gate: deleted skill", True)], dl
assert "allowed: the trusted config sets gate.allow_deletions" in [c for c in dl][0].find("system-out").text
un = {c.get("name"): c for c in suites["skills/untested"].findall("testcase")}
# unverified and accepted by the trusted config: skipped (not a pass, not blocking)
ut = un["gate: the skill has tests (changed skill)"].find("skipped")
assert ut is not None and ut.get("message").startswith("unverified, accepted by the trusted config: unverified: no tests"), ut
assert "accepted: the trusted config sets gate.allow_untested" in ut.get("message"), ut
assert un["gate: validity (Agent Skills rules)"].find("failure") is None
# base and baseline outcomes are properties, never failures
p = props("skills/regressed")
assert p["anthropic.fake-student base tests[2] run 1"] == "pass", p
assert p["anthropic.fake-student baseline tests[2] run 1"] == "fail", p
assert p["anthropic.fake-student regressed"] == "tests[2], tests[3], tests[4], tests[5], tests[6], tests[7], tests[8]", p
# a test failing at both sides: not this change's failure, listed by name
kb = {c.get("name"): c for c in suites["skills/known-bad"].findall("testcase")}
sk = kb["skills/known-bad/tests[2] run 1"].find("skipped")
assert sk is not None and sk.get("type") == "already_failing", sk
assert sk.get("message").startswith("already failing: fails at base too (7 of 7 base runs failed)"), sk.get("message")
assert props("skills/known-bad")["anthropic.fake-student already_failing"] == "tests[2]"
assert kb["skills/known-bad/tests[1] run 1"].find("skipped") is None
# checks that do not apply are left out, not skipped: a passing skill skips nothing
imp = suites["skills/improved"]
assert imp.get("skipped") == "0" and imp.get("failures") == "0", imp.attrib
assert "gate: kernel speedup" not in [c.get("name") for c in imp.findall("testcase")]
assert "speedup anthropic.fake-student: no kernel speedup" in props("skills/improved")["checks_not_applicable"]
# natural order, and counts that count the cases
names = [c.get("name") for c in suites["skills/regressed"].findall("testcase") if "/tests[" in c.get("name")]
assert names == ["skills/regressed/tests[%d] run %d" % (i, k) for i in range(1, 9) for k in (1, 2, 3)], names
for s in suites.values():
    cases = s.findall("testcase")
    assert int(s.get("tests")) == len(cases)
    assert int(s.get("skipped")) == sum(1 for c in cases if c.find("skipped") is not None)
    assert int(s.get("failures")) == sum(1 for c in cases if c.find("failure") is not None)
# the run's wall time (9 s), not the sum of its units' latencies
assert root.get("time") == "9.000", root.get("time")
assert abs(sum(float(s.get("time")) for s in suites.values()) - 9.0) < 0.01
print("ok")
EOF
check "PR JUnit: the improved skill's tests pass; the regressed skill fails its check and tests" \
	python3 - "$T/pr.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
by = {}
for s in root.iter("testsuite"):
    by[s.get("name")] = sum(1 for c in s.findall("testcase") if c.find("failure") is not None)
# cuda-softmax went from 25% to 100%: its base failures are not this PR's
assert by["skills/cuda-softmax"] == 0 and by["skills/new-skill"] == 0, by
# old-skill was deleted and nothing the trusted policy says allows it:
# its deletion check is the one failure of its suite
assert by["skills/old-skill"] == 1, by
# the gate is recomputed from the units (docs/security.md): commit-messages
# fails its pass rate (100% -> 0% on 2 tests x 2 runs, a drop shown) beside
# its 4 head units; cuda-gemm's 100% -> 0% on one test is unverified (the
# file's fixed design of 2 runs shows neither a drop nor its absence): its
# check blocks, as a failure of type unverified, and its test, whose runs
# show no regression on their own, is not a failure; docs-only is
# untested: unverified, accepted by the default policy (gate.allow_untested),
# so a skipped case, not a failure
assert by["skills/commit-messages"] == 5 and by["skills/cuda-gemm"] == 1, by
assert by["skills/docs-only"] == 0, by
def case(suite, name):
    return [c for s in root.iter("testsuite") if s.get("name") == suite
            for c in s.findall("testcase") if c.get("name") == name][0]
f = case("skills/cuda-gemm", "gate: pass rate, base -> head").find("failure")
assert f is not None and f.get("type") == "unverified", f
assert f.get("message").startswith("unverified: pass rate 100% -> 0%: a fixed design of 2 runs per test shows neither"), f.get("message")
assert case("skills/cuda-gemm", "skills/cuda-gemm/tests[1] run 1").find("failure") is None
sk = case("skills/docs-only", "gate: the skill has tests (changed skill)").find("skipped")
assert sk is not None and sk.get("message").startswith("unverified, accepted by the trusted config: unverified: no tests"), sk
print("ok")
EOF
# A results file whose gate failed without a failure to show, and with no
# unit to recompute it from, still gives a failing JUnit: its claim is
# unverified.
python3 - "$IN/eval.json" "$T/bare-fail.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["run"]["kind"] = "run"
d["units"] = []
d["gate"] = {"passed": False, "exit_code": 1, "failures": [], "error_share": 0}
json.dump(d, open(sys.argv[2], "w"))
EOF
run "$SKILLCI" report "$T/bare-fail.json" --junit "$T/bare-fail.xml" --json "$T/bare-fail.out.json" \
	--markdown "$T/bare-fail.md"
check "a failed gate with no failure listed still fails the JUnit" python3 -c "
import xml.etree.ElementTree as ET; r = ET.parse('$T/bare-fail.xml').getroot()
assert int(r.get('failures')) == 1 and r.find('.//testcase[@name=\"gate\"]/failure') is not None"
check "the Markdown says the verdict is the file's claim, unverified" \
	grep -q "the verdict is bare-fail.json's claim (failed), unverified" "$T/bare-fail.md"
# The invariant checker itself: a JUnit that disagrees with the gate is caught.
: > "$T/.mark"
sed 's/failures="[0-9]*"/failures="0"/; s/<failure /<skipped /; s#</failure>#</skipped>#' "$T/rows.xml" > "$T/wrong.xml"
"$SKILLCI" report "$IN/rows.json" --config "$IN/rows.skillci.yml" --json "$T/rows.out.json" > /dev/null 2>&1
if python3 tests/e2e/junit_gate.py 0 "$T/.mark" "$SKILLCI" report "$IN/rows.json" --config "$IN/rows.skillci.yml" --junit "$T/wrong.xml" --json "$T/rows.out.json" > "$T/jg.out" 2>&1; then
	_tap not-ok "the invariant check catches a JUnit that disagrees with the gate" "$(cat "$T/jg.out")"
else
	_tap ok "the invariant check catches a JUnit that disagrees with the gate"
fi

# ---- JUnit schema -------------------------------------------------------

# The contract's copy beside the repository, else the repository's own copy.
XSD=$SKILLCI_ROOT/../shared/data/junit-10.xsd
[ -f "$XSD" ] || XSD=$SKILLCI_ROOT/tests/data/junit-10.xsd
if [ -f "$XSD" ] && command -v xmllint > /dev/null; then
	for name in pr rows oracle eval diff; do
		check "$name.xml validates against junit-10.xsd" xmllint --noout --schema "$XSD" "$T/$name.xml"
	done
	if xmllint --noout --schema "$XSD" "$T/pr.file-attrs.xml" > /dev/null 2>&1; then
		_tap not-ok "--junit-file-attrs output is documented as outside junit-10.xsd"
	else
		_tap ok "--junit-file-attrs output is documented as outside junit-10.xsd"
	fi
else
	skip "JUnit validates against junit-10.xsd" "no $XSD or no xmllint"
fi
# A real JUnit consumer: junitparser (PyPI; tests/install-deps.sh installs
# it), the parser EnricoMi's publish-unit-test-result-action reads with. It
# must see what skillci means: the failures are exactly the gate's, a test
# failing at both sides is skipped as already failing, counts and the
# duration add up the way that action adds them.
if python3 -c "import junitparser" 2> /dev/null; then
	check "junitparser reads the rows JUnit as the gate decided" python3 - "$T/rows.xml" "$T/pr.xml" <<'EOF'
import sys
from junitparser import JUnitXml, Failure, Skipped, Error
def load(path):
    x = JUnitXml.fromfile(path)
    return [s for s in x]
suites = load(sys.argv[1])
failed, skipped = [], {}
for s in suites:
    cases = list(s)
    results = [c.result for c in cases]
    nf = sum(1 for r in results if any(isinstance(x, Failure) and not isinstance(x, Error) for x in r))
    ns = sum(1 for r in results if any(isinstance(x, Skipped) for x in r))
    assert (s.tests, s.failures, s.skipped) == (len(cases), nf, ns), (s.name, s.tests, s.failures, s.skipped, len(cases), nf, ns)
    for c in cases:
        for r in c.result:
            if isinstance(r, Failure) and not isinstance(r, Error):
                failed.append((s.name, c.name, r.type))
            if isinstance(r, Skipped):
                skipped[(s.name, c.name)] = (r.type, r.message)
want = [("skills/invalid", "gate: validity (Agent Skills rules)", "skill_invalid"),
        ("skills/regressed", "gate: pass rate, base -> head", "pass_rate_drop")] + \
       [("skills/regressed", "skills/regressed/tests[%d] run %d" % (i, k), "regressed")
        for i in range(2, 9) for k in (1, 2, 3)]
assert sorted(failed) == sorted(want), failed
t, m = skipped[("skills/known-bad", "skills/known-bad/tests[2] run 1")]
assert t == "already_failing" and m.startswith("already failing: fails at base too"), (t, m)
# a passing skill: no skipped case (checks that do not apply are left out)
assert not [k for k in skipped if k[0] == "skills/improved"], skipped
# the action's duration is the sum of the suites' times: the wall time
assert abs(sum(s.time for s in suites) - 9.0) < 0.01, [s.time for s in suites]
pr = load(sys.argv[2])
assert abs(sum(s.time for s in pr) - 420.0) < 0.01, [s.time for s in pr]
print("ok", len(suites), "suites")
EOF
else
	skip "junitparser reads the rows JUnit as the gate decided" "no junitparser (tests/install-deps.sh installs it)"
fi
# Characters XML 1.0 cannot hold and huge messages.
python3 - "$IN/pr.json" "$T/nasty.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
# a head unit that regressed: its failure (message and body) is in the JUnit
u = [u for u in d["units"] if u["skill"] == "skills/commit-messages" and u["variant"] == "head"
     and u["verdict"] == "fail"][0]
u["verdict"] = "fail"; u["error_class"] = "wrong_answer"
u["message"] = "bell\x07 nul-ish\x01 esc\x1b ]]> & <tag> " + "x" * 200000
u["test_name"] = "name with \x0b vertical tab"
json.dump(d, open(sys.argv[2], "w"))
EOF
run "$SKILLCI" report "$T/nasty.json" --junit "$T/nasty.xml"
expect_exit 0 "report with control characters and a 200 kB message exits 0"
check "JUnit with control characters is well-formed XML" xmllint --noout "$T/nasty.xml"
if [ -f "$XSD" ]; then
	check "JUnit with control characters validates" xmllint --noout --schema "$XSD" "$T/nasty.xml"
fi
if grep -q 'trimmed' "$T/nasty.xml" && [ "$(wc -c < "$T/nasty.xml")" -lt 150000 ]; then
	_tap ok "huge outputs are trimmed with a note"
else
	_tap not-ok "huge outputs are trimmed with a note" "size $(wc -c < "$T/nasty.xml")"
fi

# ---- size bound: 300 skills ---------------------------------------------

python3 - "$T/big.json" <<'EOF'
import json, sys
M = "anthropic.claude-haiku-4-5"
skills, units, aggs, cmps = [], [], [], []
for i in range(300):
    p = "skills/generated-skill-with-a-long-name-%03d" % i
    skills.append({"path": p, "name": p.split("/")[1], "status": "modified", "skill_md": p + "/SKILL.md",
                   "tests": 4, "untested": False, "gate": {"passed": True, "reasons": []}})
    for v in ("baseline", "base", "head"):
        aggs.append({"skill": p, "variant": v, "model": M, "n": 8, "passed": 4, "failed": 4,
                     "errors": 0, "skipped": 0, "pass_rate": 0.5, "mean_tokens": 1000})
        for t in range(4):
            for r in range(2):
                units.append({"skill": p, "variant": v, "model": M, "test_id": "t#%d" % t,
                              "test_name": "a long test prompt number %d that goes on" % t, "run_index": r,
                              "kind": "text", "verdict": "fail" if r else "pass", "error_class": "wrong_answer" if r else None,
                              "message": ("expected text not found in the answer " * 6) if r else None,
                              "tokens_in": 900, "tokens_out": 100, "turns": 1, "latency_ms": 1000})
    cmps.append({"skill": p, "model": M, "from": "base", "to": "head", "paired_n": 8, "pass_rate_delta": 0,
                 "p_value": 1, "significant": False, "tokens_delta_pct": 0})
d = {"schema": "skillci.results/1", "skillci_version": "0.1.0",
     "run": {"id": "big", "kind": "run", "complete": True, "models": [M], "runs": 2, "mode": "none"},
     "skills": skills, "units": units, "aggregates": aggs, "comparisons": cmps,
     "gate": {"passed": True, "exit_code": 0, "failures": [], "error_share": 0}}
json.dump(d, open(sys.argv[1], "w"))
EOF
run "$SKILLCI" report "$T/big.json" --markdown "$T/big.md" --markdown-full "$T/big.full.md"
expect_exit 0 "report with 300 skills exits 0"
chars=$(python3 -c "import sys; print(len(open(sys.argv[1], encoding='utf-8').read()))" "$T/big.md")
if [ "$chars" -lt 65536 ]; then _tap ok "300-skill report is under 65,536 characters ($chars)"
else _tap not-ok "300-skill report is under 65,536 characters" "$chars characters"; fi
rows=$(grep -c '^| .* | <code>skills/generated-skill-with-a-long-name-' "$T/big.md")
if [ "$rows" -eq 300 ]; then _tap ok "300-skill report keeps every summary row"
else _tap not-ok "300-skill report keeps every summary row" "$rows rows"; fi
case "$(cat "$T/big.md")" in *"Details shortened"*"big.full.md"*) _tap ok "shortened report points at the full report" ;;
*) _tap not-ok "shortened report points at the full report" ;; esac
full=$(grep -c '^<summary>.* (head): ' "$T/big.full.md")
if [ "$full" -eq 300 ]; then _tap ok "the full report keeps every details section"
else _tap not-ok "the full report keeps every details section" "$full sections"; fi
# the table gives the verdict; the full report each whole message
# 50% -> 50% on 4 tests x 2 runs over 300 checks: neither shown nor ruled out
check "the shortened report's rows say unverified" grep -qF \
	"| ⚠️ **unverified**<br><sub>pass rate</sub> | <code>skills/generated-skill-with-a-long-name-000</code> |" "$T/big.md"
check "the full report keeps the whole pass-rate message" grep -qF \
	"⚠️ **pass rate** unverified (pass\_rate\_unverified): pass rate 50% -&gt; 50%: a fixed design of 2 runs per test shows neither a drop nor the absence of a drop of 15 points" "$T/big.full.md"

# ---- JSON round trip ----------------------------------------------------

run "$SKILLCI" report "$IN/pr.json" --json "$T/rt1.json"
run "$SKILLCI" report "$T/rt1.json" --json "$T/rt2.json" --markdown-full "$T/rt.full.md"
expect_same "$T/rt1.json" "$T/rt2.json" "--json output is stable when read back and written again"
expect_same "$EXP/pr.full.md" "$T/rt.full.md" "the report of the rewritten JSON is unchanged"

# ---- bad input ----------------------------------------------------------

run "$SKILLCI" report "$T/missing.json"
expect_exit 2 "a missing results file exits 2"
expect_err_contains "missing.json" "the missing file is named"
sed 's#"skillci.results/1"#"skillci.results/2"#' "$IN/eval.json" > "$T/v2.json"
run "$SKILLCI" report "$T/v2.json"
expect_exit 2 "another schema major version exits 2"
expect_err_contains "schema 'skillci.results/2' is not supported" "the schema version found is named"
printf '{"schema": "skillci.results/1", "units": [{"skill": 3}]}' > "$T/badtype.json"
run "$SKILLCI" report "$T/badtype.json"
expect_exit 2 "a wrong type exits 2"
expect_err_contains '$.units[0].skill: expected a string' "the error names the JSON path"
printf '{"schema": "skillci.results/1",\n "run": {' > "$T/trunc.json"
run "$SKILLCI" report "$T/trunc.json"
expect_exit 2 "malformed JSON exits 2"
run "$SKILLCI" report
expect_exit 2 "no results file is a usage error"
run "$SKILLCI" report "$IN/pr.json" --history "$IN/eval.json" --markdown "$T/h.md"
expect_exit 2 "--history without --html is a usage error"
if [ -f "$T/h.md" ]; then _tap not-ok "a usage error writes no report"; else _tap ok "a usage error writes no report"; fi
run "$SKILLCI" report "$IN/pr.json" --frobnicate
expect_exit 2 "an unknown option is a usage error"
run "$SKILLCI" report "$IN/pr.json" --junit /proc/nonexistent/dir/r.xml
expect_exit 3 "an unwritable report path exits 3"
# the history index is made beside the other files (its own thread): its
# error is the run's, naming the file, and the files made beside it stay
printf '{"schema": "skillci.results/1",\n "run": {' > "$T/badhist.json"
run "$SKILLCI" report "$IN/pr.json" --html "$T/badhist" --history "$T/badhist.json" --junit "$T/badhist.xml"
expect_exit 2 "a malformed --history file exits 2 beside the other reports"
expect_err_contains "badhist.json':2: malformed JSON" "its error names the history file and line"
expect_out_lacks "changed skills" "no summary follows the error"
expect_file "$T/badhist.xml" "the JUnit made beside it is written"
expect_file "$T/badhist/report.html" "the page made beside it is written"

# ---- GitHub Actions -----------------------------------------------------

: > "$T/gh_output"
: > "$T/gh_summary"
GITHUB_ACTIONS=true GITHUB_OUTPUT="$T/gh_output" GITHUB_STEP_SUMMARY="$T/gh_summary" \
	run "$SKILLCI" report "$IN/pr.json" --markdown "$T/gh.md" --junit "$T/gh.xml"
expect_exit 0 "report in GitHub Actions exits 0 even when the gate failed"
expect_out_contains "::group::skillci report" "the summary is in a log group"
expect_out_contains "::endgroup::" "the log group is closed"
expect_out_contains "::error file=skills/commit-messages/SKILL.md,title=skillci%3A skills/commit-messages failed the gate on anthropic.claude-haiku-4-5 (pass_rate_drop)::pass rate 100%25 -> 0%25: a drop is shown (difference -100.0 points, 98%25 interval [-100.0, -5.0] over 2 tests; fixed design of 2 runs per test; alpha 0.01 over 4 checks, beta 0.2, D 15 points)" \
	"annotation escapes % in data, : in properties, keeps , in data"
expect_out_contains "::warning file=skills/docs-only/SKILL.md,title=skillci%3A skills/docs-only could not be verified (accepted by the trusted config) (skill_untested)::unverified: no tests:" \
	"each unverified skill is annotated as a warning (untested)"
expect_out_contains "::warning file=skills/cuda-gemm/SKILL.md,title=skillci%3A skills/cuda-gemm could not be verified on anthropic.claude-haiku-4-5 (pass_rate_unverified)::" \
	"each unverified skill is annotated as a warning (pass rate)"
expect_out_contains "::error file=skills/old-skill/SKILL.md,title=skillci%3A skills/old-skill failed the gate (skill_deleted)::" \
	"each failing skill is annotated (deleted)"
# cuda-gemm's drop is unverified: not a regression, so no error annotation
expect_out_lacks "::error file=skills/cuda-gemm/SKILL.md," "an unverified check is not annotated as an error"
n=$(printf '%s\n' "$OUT" | grep -c '^::error ')
if [ "$n" -eq 2 ]; then _tap ok "one error annotation per failure"; else _tap not-ok "one error annotation per failure" "$n"; fi
n=$(printf '%s\n' "$OUT" | grep -c '^::warning ')
if [ "$n" -eq 2 ]; then _tap ok "one warning annotation per unverified check"; else _tap not-ok "one warning annotation per unverified check" "$n"; fi
if grep -qF "gate failed: 2 of 6 changed skills failed (skills/commit-messages, skills/old-skill); 2 unverified" "$T/gh_summary"; then
	_tap ok "the Markdown is appended to the step summary"
else
	_tap not-ok "the Markdown is appended to the step summary"
fi
python3 - "$T/gh_output" "$T/gh.md" > "$T/gh_parse" 2>&1 <<'EOF'
import re, sys
# Parses $GITHUB_OUTPUT the way the Actions runner does.
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
out, i = {}, 0
while i < len(lines):
    l = lines[i]
    if not l:
        i += 1; continue
    m = re.match(r"^([A-Za-z0-9_-]+)<<(.*)$", l)
    if m:
        name, delim = m.groups()
        assert re.fullmatch(r"ghadelimiter_[0-9a-f]{32}", delim), "delimiter %r" % delim
        j = lines.index(delim, i + 1)
        out[name] = "\n".join(lines[i + 1:j]); i = j + 1
    else:
        name, _, value = l.partition("="); out[name] = value; i += 1
assert out["verdict"] == "fail", out["verdict"]
assert out["unverified"] == "2", out["unverified"]
assert out["annotations"] == "4", out["annotations"]
assert out["passed"] == "false"
assert out["exit_code"] == "1"
assert out["regressions"] == "3"
assert out["pass_rate_head"] == "0.5455", out["pass_rate_head"]   # 6 of 11
assert out["pass_rate_base"] == "0.6667", out["pass_rate_base"]   # 8 of 12
assert out["pass_rate_baseline"] == "0.2000", out["pass_rate_baseline"]  # 2 of 10
assert out["junit"].endswith("gh.xml") and out["markdown"].endswith("gh.md")
md = open(sys.argv[2], encoding="utf-8").read()
assert out["markdown_summary"].rstrip("\n") == md.rstrip("\n"), "markdown_summary differs from the report"
print("outputs ok:", sorted(out))
EOF
if [ $? -eq 0 ]; then _tap ok "GITHUB_OUTPUT parses like the runner reads it (heredoc delimiters, values)"
else _tap not-ok "GITHUB_OUTPUT parses like the runner reads it (heredoc delimiters, values)" "$(cat "$T/gh_parse")"; fi
# under a trusted config with gate.accept_unverified the two unverified
# checks no longer block: still warnings, still counted, never "passed"
printf 'version: 1\ngate: {accept_unverified: true, allow_untested: true}\n' > "$T/accept.yml"
GITHUB_ACTIONS=true GITHUB_OUTPUT="$T/gh_output2" GITHUB_STEP_SUMMARY="$T/gh_summary2" \
	run "$SKILLCI" report "$IN/pr.json" --config "$T/accept.yml"
expect_out_contains "::warning file=skills/cuda-gemm/SKILL.md,title=skillci%3A skills/cuda-gemm could not be verified (accepted by the trusted config) on anthropic.claude-haiku-4-5 (pass_rate_unverified)::" \
	"gate.accept_unverified: the unverified drop is still a warning"
n=$(printf '%s\n' "$OUT" | grep -c '^::error ')
if [ "$n" -eq 2 ]; then _tap ok "gate.accept_unverified: the two failures stay errors"; else _tap not-ok "gate.accept_unverified: the two failures stay errors" "$n"; fi
check "gate.accept_unverified: GITHUB_OUTPUT counts 4 annotations, 2 unverified" \
	sh -c "grep -qx 'annotations=4' '$T/gh_output2' && grep -qx 'unverified=2' '$T/gh_output2'"
check "gate.accept_unverified: GITHUB_OUTPUT still counts 3 regressed tests" grep -qx "regressions=3" "$T/gh_output2"
# fail_inconclusive, the key it replaces, is read with a warning
printf 'version: 1\ngate: {fail_inconclusive: false}\n' > "$T/fail-inconclusive.yml"
run "$SKILLCI" report "$IN/pr.json" --config "$T/fail-inconclusive.yml"
expect_err_contains "gate.fail_inconclusive" "the replaced key gate.fail_inconclusive is named in a warning"

# ---- sticky PR comment against a fake GitHub API ------------------------

TOKEN="ghs_fakeToken$(date +%s)SECRET"
gh_start() {  # gh_start [ARGS...]: starts tests/fakes/fake_github.py
	gdir=$(mktemp -d "$T/gh.XXXXXX")
	python3 tests/fakes/fake_github.py --port-file "$gdir/port" --log "$gdir/log" --token "$TOKEN" "$@" &
	GH_PID=$!
	i=0
	while [ ! -s "$gdir/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	GH_URL="http://127.0.0.1:$(cat "$gdir/port")"
	GH_LOG=$gdir/log
}
gh_stop() { kill "$GH_PID" 2>/dev/null; wait "$GH_PID" 2>/dev/null; }
trap 'gh_stop; rm -rf "$T"' EXIT
printf '{"action": "synchronize", "number": 42, "pull_request": {"number": 42}}' > "$T/event.json"
comment() {
	GITHUB_TOKEN=$TOKEN GITHUB_REPOSITORY=example/skills GITHUB_EVENT_PATH=$T/event.json \
		GITHUB_API_URL=$GH_URL run "$SKILLCI" report "$@" --comment
}
count_comments() {
	curl -s "$GH_URL/_fake/comments" | python3 -c "import json,sys; print(sum('<!-- skillci-report -->' in c['body'] for c in json.load(sys.stdin)))"
}

gh_start --seed-comments 150
comment "$IN/pr.json"
expect_exit 0 "--comment exits 0"
expect_err_contains "created pull request comment" "first run creates the comment"
first_err=$ERR
comment "$IN/eval.json"
expect_exit 0 "second --comment exits 0"
expect_err_contains "updated pull request comment" "second run updates it"
if [ "$(count_comments)" = 1 ]; then _tap ok "one sticky comment after two runs"; else _tap not-ok "one sticky comment after two runs" "$(count_comments)"; fi
body=$(curl -s "$GH_URL/_fake/comments" | python3 -c "import json,sys; print([c['body'] for c in json.load(sys.stdin) if 'skillci-report' in c['body']][0])")
case "$body" in *"skillci eval"*) _tap ok "the comment holds the latest report" ;; *) _tap not-ok "the comment holds the latest report" ;; esac
if grep -q '"page=2' "$GH_LOG" || grep -q 'page=2' "$GH_LOG"; then _tap ok "comments are read page by page"; else _tap not-ok "comments are read page by page" "$(cat "$GH_LOG")"; fi
if grep -q '"method": "PATCH", "path": "/repos/example/skills/issues/comments/' "$GH_LOG"; then _tap ok "the update is a PATCH of the same comment"; else _tap not-ok "the update is a PATCH of the same comment"; fi
gh_stop

python3 - "$T/huge.json" <<'EOF2'
import json, sys
M = "m"
skills = [{"path": "skills/s%04d" % i, "status": "modified", "gate": {"passed": True, "reasons": []}} for i in range(1500)]
aggs = [{"skill": s["path"], "variant": v, "model": M, "n": 2, "passed": 1, "pass_rate": 0.5} for s in skills for v in ("base", "head")]
json.dump({"schema": "skillci.results/1", "run": {"kind": "run", "models": [M], "runs": 1},
           "skills": skills, "aggregates": aggs, "gate": {"passed": True, "exit_code": 0}}, open(sys.argv[1], "w"))
EOF2
gh_start
comment "$T/huge.json" --markdown "$T/huge.md"
expect_exit 0 "--comment with a summary table over the limit exits 0"
len=$(curl -s "$GH_URL/_fake/comments" | python3 -c "import json,sys; print(max(len(c['body']) for c in json.load(sys.stdin)))")
if [ "$len" -lt 65536 ] && curl -s "$GH_URL/_fake/comments" | grep -q "too long for a comment"; then
	_tap ok "a summary over the limit becomes a short comment pointing at the full report ($len characters)"
else
	_tap not-ok "a summary over the limit becomes a short comment pointing at the full report" "$len"
fi
rows=$(grep -c '^| .* | <code>skills/s' "$T/huge.md")
if [ "$rows" -eq 1500 ]; then _tap ok "--markdown still keeps every summary row"; else _tap not-ok "--markdown still keeps every summary row" "$rows"; fi
gh_stop

# The sticky comment is the token's own: a comment holding the marker that
# someone else wrote (with a fake "✅") is never edited; a new one is made.
gh_start
curl -s -X POST -H 'Content-Type: application/json' "$GH_URL/_fake/plant" \
	-d '{"issue": 42, "login": "mallory", "body": "<!-- skillci-report -->\n## skillci report\n\n✅ **no regression.**"}' > /dev/null
comment "$IN/pr.json"
expect_exit 0 "--comment with a planted marker comment exits 0"
expect_err_contains "created pull request comment" "a new comment is created, not the planted one updated"
expect_err_contains "not written by 'github-actions[bot]'" "and the planted one is named as left alone"
check "the planted comment is unchanged and ours is apart" python3 -c "
import json, urllib.request
cs = json.load(urllib.request.urlopen('$GH_URL/_fake/comments'))
planted = [c for c in cs if c['user']['login'] == 'mallory'][0]
ours = [c for c in cs if c['user']['login'] == 'github-actions[bot]']
assert planted['body'].endswith('no regression.**'), planted
assert len(ours) == 1 and '<!-- skillci-report -->' in ours[0]['body'], ours"
check "the identity was looked up once (GET /user, 403 for the workflow token)" \
	test "$(grep -c '"path": "/user"' "$GH_LOG")" -eq 1
if grep -q '"method": "PATCH"' "$GH_LOG"; then _tap not-ok "no PATCH of a comment someone else wrote"; else _tap ok "no PATCH of a comment someone else wrote"; fi
comment "$IN/eval.json"
expect_err_contains "updated pull request comment" "the next run updates our own comment"
gh_stop
# A user's token: GET /user names the login, whose comments are ours.
gh_start --user ci-bot-user
curl -s -X POST -H 'Content-Type: application/json' "$GH_URL/_fake/plant" \
	-d '{"issue": 42, "login": "github-actions[bot]", "body": "<!-- skillci-report -->\nold"}' > /dev/null
comment "$IN/pr.json"
expect_err_contains "created pull request comment" "with a user's token, a bot's marker comment is not ours"
comment "$IN/pr.json"
expect_err_contains "updated pull request comment" "and the user's own comment is updated next time"
gh_stop

gh_start --forbid
comment "$IN/pr.json"
expect_exit 0 "403 from a fork's token exits 0"
expect_err_contains "warning: GitHub refused the pull request comment (HTTP 403)" "403 is a warning"
gh_stop

gh_start
GITHUB_TOKEN=wrong-token GITHUB_REPOSITORY=example/skills GITHUB_EVENT_PATH=$T/event.json \
	GITHUB_API_URL=$GH_URL run "$SKILLCI" report "$IN/pr.json" --comment
expect_exit 3 "401 (bad credentials) exits 3"
expect_err_contains "HTTP 401" "401 is reported"
expect_err_lacks "wrong-token" "the bad token is not printed"
gh_stop
GITHUB_REPOSITORY=example/skills GITHUB_EVENT_PATH=$T/event.json run "$SKILLCI" report "$IN/pr.json" --comment
expect_exit 2 "--comment without GITHUB_TOKEN exits 2"

case "$first_err$OUT$ERR" in *"$TOKEN"*) _tap not-ok "the token never appears in output" ;;
*) _tap ok "the token never appears in output" ;; esac
leaked=$(grep -rl "$TOKEN" "$T" 2>/dev/null)
if [ -z "$leaked" ]; then _tap ok "the token never appears in any file written"
else _tap not-ok "the token never appears in any file written" "$leaked"; fi

# ---- HTML in headless Chromium ------------------------------------------

# The HTML report is a web page: every kind is loaded in a real browser
# (Debian's chromium, installed by make deps), its DOM checked against the
# Markdown it was rendered from, and a screenshot taken (kept under
# BUILD/test-logs/screenshots/ for a look). No browser is a failure, not a
# skip: CI must run this.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
SHOTS=$SKILLCI_ROOT/${BUILD:-build}/test-logs/screenshots
if [ -z "$CHROMIUM" ]; then
	_tap not-ok "Chromium is installed for the HTML tests" "no chromium on PATH: run make deps (tests/install-deps.sh)"
else
	mkdir -p "$SHOTS"
	# Every page goes through one browser, driven over the DevTools pipe
	# (tests/e2e/chrome_batch.py), and the pages without an emoji font
	# through a second one: two browser starts for the suite, not one per
	# page. The jobs are listed first, the checks below read what they wrote.
	# Made to be looked at, on a desktop (1280 px) and a phone (400 px),
	# with and without an emoji font: a copy of each page with a probe
	# that tells, once the page is laid out, its scroll width, the width
	# of its window, the boxes of the first icons and whether any emoji is
	# left in the text. The page is shown in a frame of the width wanted
	# (headless Chromium has no window under 500 px); the probe posts to
	# the frame's parent, which writes it into its own DOM for --dump-dom.
	# Without an emoji font: a fonts.conf that rejects Noto Color Emoji
	# (checked with fc-match first).
	cat > "$T/fonts.conf" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont>
    <glob>*NotoColorEmoji*</glob>
    <pattern><patelt name="family"><string>Noto Color Emoji</string></patelt></pattern>
  </rejectfont></selectfont>
</fontconfig>
EOF
	if command -v fc-match > /dev/null; then
		check "the test's fonts.conf leaves no emoji font" sh -c \
			'! FONTCONFIG_FILE="$1" fc-match "Noto Color Emoji" | grep -qi emoji' sh "$T/fonts.conf"
	fi
	probe() {  # probe PAGE OUT: PAGE with the probe script, as OUT
		python3 - "$1" "$2" <<'EOF'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
script = """<script>
window.addEventListener("load", function () {
  var d = document.documentElement, r = {sw: d.scrollWidth, iw: window.innerWidth, icons: []};
  var icons = document.querySelectorAll("svg.icon");
  for (var i = 0; i < icons.length && i < 3; i++) {
    var b = icons[i].getBoundingClientRect();
    r.icons.push([b.left, b.top, b.width, b.height, icons[i].getAttribute("aria-label")]);
  }
  r.emoji = /[\\u2705\\u274c\\u26a0\\u23f3\\u2796\\u23ed\\u26d4]/.test(document.body.innerText);
  r.charts = document.querySelectorAll("svg.bars, svg.chart").length;
  r.wide = [];
  document.querySelectorAll("svg.bars, svg.chart").forEach(function (c) {
    if (c.getBoundingClientRect().right > window.innerWidth) r.wide.push(c.getAttribute("class"));
  });
  parent.postMessage(JSON.stringify(r), "*");
});
</script>"""
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", script + "</body>"))
EOF
	}
	probe "$T/rows/report.html" "$T/rows/probe.html"
	probe "$T/diff/index.html" "$T/diff/probe.html"
	frame() {  # frame DIR WIDTH: DIR/frame-WIDTH.html shows DIR/probe.html WIDTH px wide
		printf '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">%s%s%s</body></html>\n' \
			"<iframe src=\"probe.html\" width=\"$2\" height=\"1000\" style=\"border:0;display:block\"></iframe>" \
			'<pre id="probe"></pre>' \
			'<script>addEventListener("message", function (e) { document.getElementById("probe").textContent = e.data; });</script>' \
			> "$1/frame-$2.html"
	}
	for w in 1280 400; do
		for d in rows diff; do frame "$T/$d" $w; done
	done
	python3 - "$T" "$SHOTS" <<'EOF'
import json, sys
t, shots = sys.argv[1:3]
a = []
for name in ("pr", "rows", "oracle", "eval", "diff"):
    a.append({"url": "file://%s/%s/report.html" % (t, name), "width": 1280, "height": 1800,
              "dump": "%s/%s.dom.html" % (t, name), "shot": "%s/%s.png" % (shots, name)})
a.append({"url": "file://%s/diff/index.html" % t, "width": 1200, "height": 1600,
          "dump": t + "/index-dom.html", "shot": shots + "/diff-index.png"})
probe = 'document.getElementById("probe") && document.getElementById("probe").textContent.length > 0'
b = []
for w in (1280, 400):
    for d in ("rows", "diff"):
        b.append({"url": "file://%s/%s/frame-%d.html" % (t, d, w), "width": max(500, w + 20), "height": 1000,
                  "dump": "%s/probe-%d-%s.html" % (t, w, d), "wait_for": probe})
b.append({"url": "file://%s/rows/frame-400.html" % t, "width": 500, "height": 1000,
          "shot": shots + "/rows-400-no-emoji.png", "wait_for": probe})
json.dump(a, open(t + "/chrome-jobs.json", "w"))
json.dump(b, open(t + "/chrome-jobs-no-emoji.json", "w"))
EOF
	check "one Chromium loads every page" timeout 120 python3 "$SKILLCI_ROOT/tests/e2e/chrome_batch.py" \
		"$CHROMIUM" "$T/chrome" "$T/chrome-jobs.json"
	check "one Chromium without an emoji font loads the phone and desktop probes" env FONTCONFIG_FILE="$T/fonts.conf" \
		timeout 120 python3 "$SKILLCI_ROOT/tests/e2e/chrome_batch.py" "$CHROMIUM" "$T/chrome-no-emoji" \
		"$T/chrome-jobs-no-emoji.json"
	for name in pr rows oracle eval diff; do
		check "Chromium renders the $name report: one table row per Markdown row, details, no script" \
			python3 - "$T/$name.dom.html" "$T/$name.md" <<'EOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.tags = {}; s.rows = []; s.cell = None; s.row = None
    def handle_starttag(s, t, a):
        s.tags[t] = s.tags.get(t, 0) + 1
        if t == "tr": s.row = []
        if t in ("td", "th"): s.cell = ""
    def handle_endtag(s, t):
        if t in ("td", "th") and s.row is not None: s.row.append(s.cell.strip()); s.cell = None
        if t == "tr": s.rows.append(s.row); s.row = None
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
dom = open(sys.argv[1], encoding="utf-8").read()
md = open(sys.argv[2], encoding="utf-8").read()
p = P(); p.feed(dom)
# header rows: the summary table's, and the token table's (a run with usage)
body_rows = [r for r in p.rows if r and not r[0] in ("skill", "model", "gate", "skill helps")]
md_rows = [l for l in md.splitlines() if l.startswith("| ") and not l.startswith(("| gate |", "| skill helps |", "| model |", "|---"))]
col = 1   # the skill, after the verdict
assert p.tags.get("script", 0) == 0, "a script element"
assert len(body_rows) == len(md_rows), (len(body_rows), len(md_rows))
for r, l in zip(body_rows, md_rows):
    # the skill cell of each row, as the browser shows it
    import html, re
    want = html.unescape(re.sub(r"<[^>]+>", "", l.strip()[2:-2].split(" | ")[col])).replace("\\", "")
    assert r[col] == want, (r[col], want)
if "<details>" in md:
    assert p.tags.get("details", 0) == md.count("<details>"), (p.tags.get("details"), md.count("<details>"))
verdict = md.split("\n\n")[1].strip("*❌✅⏳⚠️🛑 .")
assert verdict.split(":")[0] in dom, verdict
print("ok", len(body_rows), "rows")
EOF
		check "Chromium takes a screenshot of the $name report, and it is not blank" python3 - "$SHOTS/$name.png" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
idat, at = b"", 8
while at < len(data):
    n, kind = struct.unpack(">I4s", data[at:at + 8])
    if kind == b"IDAT":
        idat += data[at + 8:at + 8 + n]
    at += 12 + n
raw = zlib.decompress(idat)
assert w >= 1000 and h >= 1000, (w, h)
# rendered text and tables give many different byte values; a blank page a few
assert len(set(raw)) > 40, len(set(raw))
print("ok", w, h)
EOF
	done
	check "Chromium shows the rows report's every row kind" python3 - "$T/rows.dom.html" <<'EOF'
import sys
dom = open(sys.argv[1], encoding="utf-8").read()
for want in ("skills/new-name</code><br><sub>from skills/old-name", "<sub>deleted at head</sub>", "<sub>added</sub>",
             "<sub>unverified: no tests</sub>", "<sub>invalid</sub>", "pre-existing error", "skill_invalid", "pass_rate_drop",
             "already failing, base passed 0 of 7", "Regressed", "<q>I am not sure what the regressed word is"):
    assert want in dom, want
print("ok")
EOF
	for w in 1280 400; do
		check "at $w px without an emoji font: no horizontal overflow, icons drawn, charts within the window" \
			python3 - "$w" "$T/probe-$w-rows.html" "$T/probe-$w-diff.html" <<'EOF'
import html, json, re, sys
w = int(sys.argv[1])
for path, icons in ((sys.argv[2], True), (sys.argv[3], False)):
    m = re.search(r'<pre id="probe">(.*?)</pre>', open(path, encoding="utf-8").read(), re.S)
    assert m, "no probe output in " + path
    r = json.loads(html.unescape(m.group(1)))
    assert r["iw"] == w, (path, r)
    assert r["sw"] <= r["iw"], ("horizontal overflow", path, r)
    assert r["charts"] >= 2 and not r["wide"], (path, r)
    if icons:
        assert not r["emoji"], ("emoji left in the text", r)
        assert len(r["icons"]) == 3 and all(b[2] >= 12 and b[3] >= 12 for b in r["icons"]), r["icons"]
print("ok", w)
EOF
	done
	# the pixels: the verdict's icon (a red cross) is drawn at 400 px
	# without an emoji font
	check "the screenshot at 400 px without an emoji font shows the icons' colours where the probe found them" \
		python3 - "$SHOTS/rows-400-no-emoji.png" "$T/probe-400-rows.html" <<'EOF'
import html, json, re, struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h, depth, ctype = struct.unpack(">IIBB", data[16:26])
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 4 if ctype == 6 else 3
idat, at = b"", 8
while at < len(data):
    n, kind = struct.unpack(">I4s", data[at:at + 8])
    if kind == b"IDAT":
        idat += data[at + 8:at + 8 + n]
    at += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
rows, prev = [], bytearray(stride)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
probe = json.loads(html.unescape(re.search(r'<pre id="probe">(.*?)</pre>', open(sys.argv[2], encoding="utf-8").read(), re.S).group(1)))
want = {"fail": lambda r, g, b: r > 150 and g < 90 and b < 90, "pass": lambda r, g, b: g > 90 and r < 80 and b < 100,
        "warning": lambda r, g, b: r > 120 and g > 80 and b < 40, "note": lambda r, g, b: b > 150 and r < 60}
for left, top, bw, bh, name in probe["icons"]:
    hits = 0
    for y in range(int(top), int(top + bh)):
        for x in range(int(left), int(left + bw)):
            px = rows[y][x * bpp:x * bpp + 3]
            hits += want.get(name, lambda r, g, b: (r, g, b) != (255, 255, 255))(*px)
    assert hits >= 20, (name, left, top, hits)
print("ok", [i[4] for i in probe["icons"]])
EOF
	check "the report page's charts: pass rate with intervals, tokens, each row named" python3 - "$T/rows.dom.html" <<'EOF'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
assert dom.count('<svg class="bars pass-rate"') == 1 and dom.count('<svg class="bars tokens"') == 1, "charts"
chart = dom.split('<svg class="bars pass-rate"')[1].split("</svg>")[0]
assert 'viewBox="0 0 640 ' in dom and 'width="100%"' in dom
# a whisker per bar that has an interval, and the interval in its title
assert chart.count('class="ci"') >= 7 * 2, chart.count('class="ci"')
# 3 of 24: Wilson's 95% interval by hand, 4.3% to 31.0%
assert "head: 12% (95% interval 4–31%)" in chart, chart[:500]
for skill in ("skills/regressed", "skills/known-bad", "skills/added"):
    assert ">" + skill + "<" in chart, skill
print("ok")
EOF
	check "the index page: dates on the x axis, a marker per variant, points apart and linked, a row per run" \
		python3 - "$T/diff/index.html" <<'EOF'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert re.search(r'<text class="date"[^>]*>2026-11-29</text>', page) and re.search(r'<text class="date"[^>]*>2026-11-30</text>', page)
for svg in re.findall(r'<svg class="chart.*?</svg>', page, re.S):
    assert 'width="100%"' in svg and "viewBox" in svg
    pts = re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"|<rect x="([\d.]+)" y="([\d.]+)"|<path d="M([\d.]+) ([\d.]+)l', svg)
    seen = [tuple(float(v) for v in p if v) for p in pts]
    assert len(seen) == len(set(seen)), ("points on top of each other", seen)
# the current run's points link to its report
assert page.count('<a href="report.html"><g class="point">') >= 4
# one row per run, a column per variant
t = page.split('<table class="history">')[1].split("</table>")[0]
assert t.count("<tr><td>") == 2 and "<th>no skill pass rate</th><th>base pass rate</th><th>head pass rate</th>" in t, t
print("ok")
EOF
	check "an all-skipped skill gets a note, not an empty chart" grep -q 'class="empty">No pass rate recorded in 1 run (every test skipped)' "$T/oracle/index.html"
	check "Chromium renders the index page's SVG history charts" python3 - "$T/index-dom.html" <<'EOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s): super().__init__(); s.tags = {}; s.points = []
    def handle_starttag(s, t, a):
        s.tags[t] = s.tags.get(t, 0) + 1
        if t == "polyline": s.points.append(dict(a).get("points", ""))
dom = open(sys.argv[1], encoding="utf-8").read()
p = P(); p.feed(dom)
assert p.tags.get("svg", 0) >= 4, "svg: %d" % p.tags.get("svg", 0)
assert p.tags.get("polyline", 0) >= 4, "polylines: %d" % p.tags.get("polyline", 0)
assert any(len(x.split()) >= 2 for x in p.points), "no line joins two runs: %r" % p.points
assert p.tags.get("table", 0) >= 2
print("ok", p.tags.get("svg"), "charts")
EOF
	if [ -s "$SHOTS/diff-index.png" ] && [ "$(head -c 8 "$SHOTS/diff-index.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]; then
		_tap ok "Chromium takes a screenshot of the index page"
	else
		_tap not-ok "Chromium takes a screenshot of the index page" "no PNG at $SHOTS/diff-index.png"
	fi
fi

done_testing
