# skillci run end to end: a temporary skill repository with a base commit
# and several head commits, evaluated against the fake model server
# (tests/fakes/fake_models.py). The fake answers by markers in the system
# prompt, so a skill's SKILL.md decides whether its answers are right:
#
#   alpha  base "ALPHA-HALF": right only on tests marked [easy] (2 of 4)
#          head "ALPHA-GOOD": right on all 4           -> a gain, gate passes
#   beta   base "BETA-GOOD": right on all 4
#          head "BETA-BROKEN": wrong on all 4          -> a regression, gate fails
#   eps    new at head "EPS-SKILL": right on all 2     -> better than no skill
#   delta  deleted at head; notest added without tests; gamma unchanged
#
# Without a skill (baseline) every answer is wrong.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

R="$T/repo"
mkdir -p "$R"
git -C "$R" init -q -b main
git -C "$R" config user.email ci@example.com
git -C "$R" config user.name ci

skill() {  # skill NAME MARKER NTESTS
	mkdir -p "$R/skills/$1"
	cat > "$R/skills/$1/SKILL.md" <<EOF
---
name: $1
description: Answers $1 questions with the $1 word.
---
# $1

$2: always answer with the word ok-$1.
EOF
	python3 - "$R/skills/$1/skill_meta.json" "$1" "$3" <<'EOF'
import json, sys
path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tests = [{"input": "Q%d about %s %s" % (i, name, "[easy]" if i <= n // 2 else "[hard]"),
          "expected": {"contains": ["ok-" + name]}} for i in range(1, n + 1)]
json.dump({"tests": tests}, open(path, "w"), indent=1)
EOF
}
commit() { git -C "$R" add -A && git -C "$R" commit -q -m "$1" && git -C "$R" rev-parse HEAD; }

skill alpha ALPHA-HALF 4
skill beta BETA-GOOD 4
skill gamma GAMMA 2
skill delta DELTA 2
BASE=$(commit base)
sed -i 's/ALPHA-HALF/ALPHA-GOOD/' "$R/skills/alpha/SKILL.md"
IMPROVE=$(commit "improve alpha")
git -C "$R" checkout -q "$BASE"
sed -i 's/BETA-GOOD/BETA-BROKEN/' "$R/skills/beta/SKILL.md"
BREAK=$(commit "break beta")
git -C "$R" checkout -q "$BASE"
sed -i 's/ALPHA-HALF/ALPHA-GOOD/' "$R/skills/alpha/SKILL.md"
sed -i 's/BETA-GOOD/BETA-BROKEN/' "$R/skills/beta/SKILL.md"
git -C "$R" rm -q -r skills/delta
skill eps EPS-SKILL 2
mkdir -p "$R/skills/notest"
printf -- '---\nname: notest\ndescription: A skill without tests.\n---\n# notest\n' > "$R/skills/notest/SKILL.md"
BOTH=$(commit "improve alpha, break beta, delete delta, add eps and notest")
git -C "$R" checkout -q main

cat > "$T/script.json" <<'EOF'
{
  "rules": [
    {"match": {"system": "ALPHA-GOOD"}, "reply": {"text": "ok-alpha", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "ALPHA-HALF", "contains": "[easy]"}, "reply": {"text": "ok-alpha", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "BETA-GOOD"}, "reply": {"text": "ok-beta", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "EPS-SKILL"}, "reply": {"text": "ok-eps", "usage": {"input": 100, "output": 10}}}
  ],
  "default": {"text": "no idea", "usage": {"input": 100, "output": 10}}
}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-run-secret
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY
M=anthropic.fake-student
cd "$T" || exit 1
RUN="$SKILLCI run --repo $R -m $M --no-cache --report-dir $T/rd-default"

# ---- a PR that improves a skill passes and shows the gain ------------------
run $RUN --base "$BASE" --head "$IMPROVE" --store "$T/s1.db" --markdown "$T/r1/report.md" \
	--junit "$T/r1/junit.xml" --json "$T/r1/results.json" --html "$T/r1/html"
expect_exit 0 "a PR that improves a skill passes"
expect_file "$T/r1/report.md" "the Markdown report is written"
expect_file "$T/r1/html/report.html" "the HTML report is written"
check "the Markdown shows base 50% -> head 100% for alpha" \
	grep -q 'alpha.*50%.*100%' "$T/r1/report.md"
check "the results say alpha gained 50 points base -> head" python3 -c "
import json; r = json.load(open('$T/r1/results.json'))
c = [c for c in r['comparisons'] if c['skill'] == 'skills/alpha' and c['from'] == 'base' and c['to'] == 'head'][0]
assert abs(c['pass_rate_delta'] - 0.5) < 1e-9, c
assert r['gate']['passed'] and r['run']['complete'] and [s['path'] for s in r['skills']] == ['skills/alpha']
assert len(r['units']) == r['totals']['requests'] > 12, r['totals']"
n1=$(python3 -c "import json; print(len(json.load(open('$T/r1/results.json'))['units']))")
check "every unit was one model request ($n1)" test "$(fake_stat requests)" -eq "$n1"
check "no API key in reports or output" sh -c "! grep -rq sk-test-run-secret '$T/r1' '$T/.out' '$T/.err'"

# ---- the same PR again: everything comes from the store --------------------
fake_reset
run $RUN --base "$BASE" --head "$IMPROVE" --store "$T/s1.db" --json "$T/r1b.json" \
	--markdown "$T/r1b.md" --junit "$T/r1b.xml" --html "$T/r1b"
expect_exit 0 "the second run of the same PR passes"
check "the second run makes no model request" test "$(fake_stat requests)" -eq 0
check "the second run reuses all $n1 units" python3 -c "
import json; r = json.load(open('$T/r1b.json')); assert r['totals']['reused'] == $n1, r['totals']"

# ---- a PR that breaks a skill fails, names it, JUnit marks the failures ----
run $RUN --base "$BASE" --head "$BREAK" --store "$T/s2.db" --markdown "$T/r2/report.md" \
	--junit "$T/r2/junit.xml" --json "$T/r2/results.json" --html "$T/r2/html"
expect_exit 1 "a PR that breaks a skill fails the gate"
expect_err_contains "skills/beta" "the failure names the broken skill"
expect_err_contains "pass_rate_drop" "the failure names the rule"
check "the Markdown names beta" grep -q beta "$T/r2/report.md"
check "JUnit fails beta's pass-rate check and its regressed tests' runs, nothing else" python3 -c "
import json, xml.etree.ElementTree as ET
n = len([u for u in json.load(open('$T/r2/results.json'))['units'] if u['skill'] == 'skills/beta' and u['variant'] == 'head'])
root = ET.parse('$T/r2/junit.xml').getroot()
fails = [(s.get('name'), c.get('name'), c.find('failure').get('type'))
         for s in root.iter('testsuite') for c in s.findall('testcase') if c.find('failure') is not None]
assert all(s == 'skills/beta' for s, _, _ in fails), fails
assert [(n, t) for _, n, t in fails if n.startswith('gate:')] == [('gate: pass rate, base -> head', 'pass_rate_drop')], fails
assert [t for _, m, t in fails if m.startswith('skills/beta/tests[')] == ['regressed'] * n, fails
assert n >= 4 and int(root.get('failures')) == n + 1, root.get('failures')"

# ---- 4 shards merged give the same results as one run -----------------------
strip() {  # strip FILE: results without run ids, times, wall clock, latencies and the signature over them
	python3 -c "
import json, sys; r = json.load(open(sys.argv[1]))
for k in ('id', 'started_at', 'finished_at'): r['run'].pop(k, None)
r['totals'].pop('wall_ms', None); r.pop('signature', None)
for u in r['units']: u.pop('latency_ms', None)
print(json.dumps(r, indent=1, sort_keys=True))" "$1"
}
run $RUN --base "$BASE" --head "$BOTH" --store "$T/whole.db" --json "$T/whole.json" \
	--markdown "$T/whole.md" --junit "$T/whole.xml" --html "$T/whole"
expect_exit 1 "the unsharded run of the mixed PR fails on beta"
check "deleted, new and untested skills are listed" python3 -c "
import json; r = json.load(open('$T/whole.json'))
st = {s['path']: (s['status'], s['untested']) for s in r['skills']}
assert st['skills/delta'] == ('deleted', False), st
assert st['skills/eps'] == ('added', False), st
assert st['skills/notest'] == ('added', True), st
assert not [u for u in r['units'] if u['skill'] in ('skills/delta', 'skills/notest')]
assert not [u for u in r['units'] if u['skill'] == 'skills/eps' and u['variant'] == 'base']
assert r['skills'][[s['path'] for s in r['skills']].index('skills/eps')]['gate']['passed']"
for k in 1 2 3 4; do
	run $RUN --base "$BASE" --head "$BOTH" --store "$T/shard$k.db" --shard "$k/4" \
		--json "$T/shard$k.json" --markdown "$T/shard$k.md" --junit "$T/shard$k.xml" --html "$T/shard$k"
	expect_exit 0 "shard $k/4 exits 0 (the gate is merge's)"
done
check "the shards split the units without overlap, a skill's units in one shard" python3 -c "
import json
sh = [json.load(open('$T/shard%d.json' % k))['units'] for k in (1, 2, 3, 4)]
ns = [len(u) for u in sh]
assert sum(ns) == len(json.load(open('$T/whole.json'))['units']) and len([n for n in ns if n]) >= 2, ns
owner = {}
for k, us in enumerate(sh):
    for u in us:
        assert owner.setdefault(u['skill'], k) == k, (u['skill'], k)"
run $SKILLCI merge "$T/shard3.json" "$T/shard1.json" "$T/shard4.json" "$T/shard2.json" \
	--json "$T/merged.json" --markdown "$T/merged.md" --junit "$T/merged.xml" --html "$T/merged"
expect_exit 1 "merge applies the gate: beta fails"
strip "$T/whole.json" > "$T/whole.norm"
strip "$T/merged.json" > "$T/merged.norm"
expect_same "$T/whole.norm" "$T/merged.norm" "4 merged shards equal one unsharded run"
run $RUN --base "$BASE" --head "$BOTH" --store "$T/jobs.db" --jobs 3 --concurrency 2 --batch 2 \
	--json "$T/jobs.json" --markdown "$T/jobs.md" --junit "$T/jobs.xml" --html "$T/jobs"
expect_exit 1 "3 kernel jobs and 2 requests in flight reach the same verdict"
expect_err_contains "--batch is deprecated and has no effect" "--batch is accepted with a deprecation note"
strip "$T/jobs.json" > "$T/jobs.norm"
expect_same "$T/whole.norm" "$T/jobs.norm" "2 requests in flight give the same results as 64"
run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" "$T/shard3.json" --json "$T/m3.json" --report-dir "$T/rd-merge"
expect_exit 2 "merge refuses a missing shard"
run $SKILLCI merge "$T/shard1.json" "$T/shard1.json" "$T/shard3.json" "$T/shard4.json" --json "$T/m4.json" --report-dir "$T/rd-merge"
expect_exit 2 "merge refuses a shard given twice"
expect_err_contains "given twice" "and says so"
run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" "$T/shard3.json" "$T/r2/results.json" --json "$T/m5.json" --report-dir "$T/rd-merge"
expect_exit 2 "merge refuses a file of another plan"

# ---- SIGTERM mid-run: incomplete reports, then a rerun that resumes ----------
python3 - "$T/script.json" "$T/slow.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for r in s["rules"]: r["reply"]["latency_ms"] = 150
s["default"]["latency_ms"] = 150
json.dump(s, open(sys.argv[2], "w"))
EOF
fake_script "$T/slow.json"
fake_reset
: > "$T/.run_start"
$RUN --base "$BASE" --head "$BOTH" --store "$T/sig.db" --concurrency 2 --json "$T/sig.json" \
	--markdown "$T/sig.md" --junit "$T/sig.xml" --html "$T/sig" > "$T/sig.out" 2> "$T/sig.err" &
pid=$!
i=0
while [ "$(fake_stat requests)" -lt 4 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM $pid
wait $pid
RC=$? OUT=$(cat "$T/sig.out") ERR=$(cat "$T/sig.err")
junit_gate $RUN --json "$T/sig.json" --junit "$T/sig.xml"
expect_exit 3 "SIGTERM mid-run exits 3"
expect_err_contains "interrupted by SIGTERM" "and says it was interrupted"
check "the interrupted results are valid and marked incomplete" python3 -c "
import json; r = json.load(open('$T/sig.json'))
assert r['run']['complete'] is False and 'SIGTERM' in r['run']['incomplete_reason'], r['run']
assert 0 < len(r['units']), len(r['units'])"
check "the interrupted Markdown says incomplete" grep -qi incomplete "$T/sig.md"
check "the interrupted JUnit says so with an error, the run is not green" python3 -c "
import xml.etree.ElementTree as ET; root = ET.parse('$T/sig.xml').getroot()
errs = [c for c in root.iter('testcase') if c.find('error') is not None and c.get('name') in ('run complete', 'could not check')]
assert len(errs) == 1 and 'SIGTERM' in errs[0].find('error').get('message'), [c.get('name') for c in root.iter('testcase')]
assert int(root.get('errors')) >= 1"
first=$(fake_stat requests)
run $RUN --base "$BASE" --head "$BOTH" --store "$T/sig.db" --json "$T/sig2.json" \
	--markdown "$T/sig2.md" --junit "$T/sig2.xml" --html "$T/sig2"
expect_exit 1 "the rerun completes (and fails on beta)"
check "the rerun repeats no finished unit" python3 -c "
import json
r = json.load(open('$T/sig2.json'))
log = [json.loads(l) for l in open('$FAKE_LOG')]
asked = [(str(e['body'].get('system')), json.dumps(e['body']['messages'])) for e in log if e['path'] == '/v1/messages']
# every request of both runs is one unit: a test's runs ask the same thing,
# so each distinct request was sent as often as the units that ask it
from collections import Counter
assert len(asked) == len(r['units']), (len(asked), len(r['units']))
per_test = Counter((u['skill'], u['variant'], u['test_id']) for u in r['units'])
assert sorted(Counter(asked).values()) == sorted(per_test.values()), (Counter(asked), per_test)
assert r['run']['complete'] and r['totals']['reused'] == $first, (r['totals'], $first)"
fake_script "$T/script.json"

# ---- no changed skill: a clean pass that says so ---------------------------
run $RUN --base "$BASE" --head "$BASE" --store "$T/s3.db" --json "$T/none.json" \
	--markdown "$T/none.md" --junit "$T/none.xml" --html "$T/none"
expect_exit 0 "no changed skill is a clean pass"
check "the report says no skill changed" grep -qi "no .*skill.*changed\|no changed skill" "$T/none.md"

# ---- a model server that stays down: exit 3 with the cause ------------------
run env ANTHROPIC_BASE_URL=http://127.0.0.1:9 $RUN --base "$BASE" --head "$IMPROVE" \
	--store "$T/s4.db" --retries 0 --json "$T/down.json" --markdown "$T/down.md" \
	--junit "$T/down.xml" --html "$T/down"
expect_exit 3 "a model server that stays down exits 3"
expect_err_contains "infrastructure" "it says the units failed for infrastructure reasons"
expect_err_contains "127.0.0.1" "and names the cause"

# ---- GitHub Actions: revisions from the event, outputs -----------------------
printf '{"pull_request": {"number": 7, "base": {"sha": "%s"}, "head": {"sha": "%s"}}}' \
	"$BASE" "$BREAK" > "$T/event.json"
: > "$T/gh_output"; : > "$T/gh_summary"
GH_ENV="GITHUB_ACTIONS=true GITHUB_EVENT_PATH=$T/event.json GITHUB_OUTPUT=$T/gh_output
	GITHUB_STEP_SUMMARY=$T/gh_summary GITHUB_REPOSITORY=octo/skills GITHUB_SERVER_URL=https://github.com"
# shellcheck disable=SC2086
run env $GH_ENV $RUN --store "$T/s2.db" --json "$T/gh.json" \
	--markdown "$T/gh.md" --junit "$T/gh.xml" --html "$T/gh"
expect_exit 1 "in Actions the revisions come from the event"
check "the outputs say the gate failed" grep -q '^verdict=fail' "$T/gh_output"
expect_out_contains "::error" "an annotation marks the regressed skill"
check "in Actions the checkout folder is recorded as GITHUB_REPOSITORY" python3 -c "
import json; r = json.load(open('$T/gh.json'))['run']
assert r['repo'] == 'octo/skills' and r['head_rev'] == '$BREAK', r"
# A later run's history page links the stored run's points to its head
# commit (the store keeps the repository and head of each run).
# shellcheck disable=SC2086
run env $GH_ENV $RUN --store "$T/s2.db" --json "$T/gh2.json" --html "$T/gh2"
expect_exit 1 "the same PR again: the same verdict"
check "its history page links the earlier run's points to the commit checked" \
	grep -q "href=\"https://github.com/octo/skills/commit/$BREAK\"" "$T/gh2/index.html"

# ---- an outage: every request answered 503, in Actions --------------------
# Could not check, the runner's fault and never the pull request's: verdict
# error, exit 3, the cause said once and first on every surface (the
# terminal, the Markdown headline, the JUnit as errors not failures, the
# outputs and a first annotation), no row marked failed or passed.
printf '{"rules": [], "default": {"status": 503, "error_message": "model server overloaded (fake outage)"}}' > "$T/outage.json"
fake_script "$T/outage.json"
: > "$T/gh_output"
# shellcheck disable=SC2086
run env $GH_ENV $RUN --store "$T/s5.db" --retries 0 --json "$T/out.json" \
	--markdown "$T/out.md" --junit "$T/out.xml" --html "$T/out"
expect_exit 3 "an outage exits 3"
cat > "$T/outage_outputs.py" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["gate"]["verdict"] == "error", r["gate"]
outs = dict(l.split("=", 1) for l in open(sys.argv[2]).read().splitlines() if "=" in l and "<<" not in l)
assert outs["verdict"] == "error" and outs["exit_code"] == "3" and outs["passed"] == "false", outs
assert outs["summary"].startswith("could not check: the runner's fault"), outs["summary"]
assert "503" in outs["summary"], outs["summary"]
lines = [l for l in open(sys.argv[3], encoding="utf-8").read().splitlines()
         if l.startswith("::error") or l.startswith("::warning")]
assert int(outs["annotations"]) == len(lines), (outs["annotations"], lines)
assert lines and lines[0].startswith("::warning title=skillci could not check"), lines
assert "503" in lines[0], lines[0]
assert not any(l.startswith("::error") for l in lines), lines
assert sum("503" in l for l in lines) == 1, lines
EOF
check "an outage: verdict error in the results and the outputs, one annotation with the cause, first" \
	python3 "$T/outage_outputs.py" "$T/out.json" "$T/gh_output" "$T/.out"
cat > "$T/outage_term.py" <<'EOF'
import sys
out = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if not l.startswith("::")]
first = next(i for i, l in enumerate(out) if l.startswith("could not check: "))
assert not any(l.startswith(("checked:", "skills/")) for l in out[:first]), out
assert "503" in out[first], out[first]
assert sum(l.startswith("could not check: ") for l in out) == 1, out
assert any(l.startswith("! could not check") for l in out[first:]), out
EOF
check "an outage: the terminal says the cause once, first" python3 "$T/outage_term.py" "$T/.out"
cat > "$T/outage_md.py" <<'EOF'
import sys
md = open(sys.argv[1], encoding="utf-8").read()
head = next(l for l in md.splitlines() if l.startswith(("✅", "❌", "⚠️", "🛑")))
assert head.startswith("🛑 **could not check"), head
assert "503" in head, head
rows = [l for l in md.splitlines() if l.startswith("| ") and "<code>skills/" in l]
assert rows and all(l.startswith("| 🛑") for l in rows), rows
EOF
check "an outage: the Markdown's headline is could not check with the cause, every row too" \
	python3 "$T/outage_md.py" "$T/out.md"
cat > "$T/outage_junit.py" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert int(root.get("failures")) == 0 and len(root.findall(".//failure")) == 0, root.attrib
assert int(root.get("errors")) >= 1, root.attrib
run = [s for s in root.iter("testsuite") if s.get("name") == "skillci run"]
assert run, [s.get("name") for s in root.iter("testsuite")]
first = run[0].find("testcase")
assert first.get("name") == "could not check" and "503" in first.find("error").get("message"), first.attrib
props = {p.get("name"): p.get("value") for p in run[0].iter("property")}
assert props["verdict"] == "error" and props["exit_code"] == "3", props
EOF
check "an outage: the JUnit has errors, no failures, could not check first" \
	python3 "$T/outage_junit.py" "$T/out.xml"
fake_script "$T/script.json"

# ---- the significance level is the config's, in every report --------------
# A skill with 20 tests: q06-q09 fail at both sides; at head q01-q05 fail
# too. 5 tests passed only at base, none only at head: the exact McNemar p
# is 2/32 = 0.0625, a drop of 25 points (80% -> 55%). With one run per
# test (a fixed design) the gate asks whether a drop is shown (margin 0,
# the default): per test, stratified, each test's pooled variance over its
# 2 answers (5 split tests: the unbiased 1 x 1 / (2 x 1) = .5; 15
# agreeing: the floor 3 x 1 / 4^2 = .1875), times 1/1 + 1/1, 10.625 in
# all, capped at mu (1 - mu) x 40 = 9.776 (27 passes of 40, the 80% Wilson
# interval's end nearest 1/2 mu = .574825; the unbiased sum is 5):
# se = sqrt(9.776) / 20 = .1563, statistic .25 / .1563 = 1.599. At alpha
# 0.11 (of which the pass-rate checks spend 0.088 on showing a drop, z
# 1.353, the rest going to the token, speedup and judge checks) the drop
# is shown and fails; at 0.05 (z(0.96) = 1.751) it is not shown, nor is a
# drop of 15 points ruled out: unverified, which fails by default and
# says so, never passed. The gate, the terminal, the Markdown and the
# JUnit agree.
python3 - "$T/sig-script.json" <<'EOF'
import json, sys
rules = [{"match": {"system": "SIG-HEAD", "contains": "q%02d?" % i}, "reply": {"text": "wrong"}} for i in range(1, 6)]
rules += [{"match": {"contains": "q%02d?" % i}, "reply": {"text": "wrong"}} for i in range(6, 10)]
json.dump({"rules": rules, "default": {"text": "ok-sig", "usage": {"input": 50, "output": 5}}}, open(sys.argv[1], "w"))
EOF
fake_script "$T/sig-script.json"
sig_repo() {  # sig_repo DIR ALPHA: a repository whose config sets gate.alpha
	mkdir -p "$1/skills/sig"
	git -C "$1" init -q -b main
	git -C "$1" config user.email ci@example.com
	git -C "$1" config user.name ci
	printf 'gate:\n  alpha: %s\n' "$2" > "$1/skillci.yml"
	printf -- '---\nname: sig\ndescription: Answers sig questions.\n---\n# sig\n\nSIG-BASE: answer ok-sig.\n' \
		> "$1/skills/sig/SKILL.md"
	python3 -c "
import json
json.dump({'tests': [{'input': 'q%02d?' % i, 'expected': {'contains': ['ok-sig']}} for i in range(1, 21)]},
          open('$1/skills/sig/skill_meta.json', 'w'))"
	git -C "$1" add -A && git -C "$1" commit -q -m base
	sed -i 's/SIG-BASE/SIG-HEAD/' "$1/skills/sig/SKILL.md"
	git -C "$1" commit -q -a -m head
}
for alpha in 0.11 0.05; do
	sig_repo "$T/sig$alpha" "$alpha"
	run $SKILLCI run --repo "$T/sig$alpha" --base HEAD~1 --head HEAD -m $M --no-cache --runs 1 \
		--store "$T/sig$alpha.db" --report-dir "$T/sig$alpha-reports"
	if [ "$alpha" = 0.11 ]; then
		expect_exit 1 "alpha 0.11: a drop shown at z 1.599 > 1.353 fails the gate"
		expect_err_contains "gate: skills/sig $M: pass rate 80% -> 55%: a drop is shown (difference -25.0 points, 82% interval [-46.2, -3.8] over 20 tests; fixed design of 1 run per test; alpha 0.088 over 1 check, beta 0.2, D 15 points) [pass_rate_drop]" \
			"alpha 0.11: the gate line gives the difference, its interval, the design and alpha"
		expect_out_contains "base→head -25 pts (significant, p=0.062)" "alpha 0.11: the terminal says significant"
		expect_out_contains "gate: ✗ pass_rate failed (pass_rate_drop)" "alpha 0.11: the terminal gives the rule"
		want_md='· change -25 pts (significant, p=0.062)' want_gate='❌ **pass rate** fail (pass\_rate\_drop)'
		want_fail=6 want_type=pass_rate_drop significant=True
	else
		expect_exit 1 "alpha 0.05: the same drop (z 1.599 < 1.751) is not shown, nor ruled out: unverified fails"
		expect_out_contains "base→head -25 pts (not significant, p=0.062)" "alpha 0.05: the terminal says not significant"
		expect_out_contains "gate: ? pass_rate unverified (pass_rate_unverified): pass rate 80% -> 55%: a fixed design of 1 run per test shows neither a drop nor the absence of a drop of 15 points" \
			"alpha 0.05: the terminal says unverified, not passed"
		want_md='· change -25 pts (not significant, p=0.062)' want_gate='| ⚠️ **unverified**<br><sub>pass rate</sub> | <code>skills/sig</code> |' want_fail=1 want_type=unverified significant=False
	fi
	check "alpha $alpha: the Markdown says the same" grep -qF "$want_md" "$T/sig$alpha-reports/report.md"
	check "alpha $alpha: the Markdown row gives the gate's verdict" grep -qF "$want_gate" "$T/sig$alpha-reports/report.md"
	check "alpha $alpha: the JUnit says the same" python3 -c "
import json, xml.etree.ElementTree as ET
root = ET.parse('$T/sig$alpha-reports/junit.xml').getroot()
fails = [(c.get('name'), c.find('failure').get('type')) for c in root.iter('testcase') if c.find('failure') is not None]
assert len(fails) == $want_fail, fails
assert ('gate: pass rate, base -> head', '$want_type') in fails, fails
if $want_fail > 1:
    assert sorted(n for n, t in fails if t == 'regressed') == ['skills/sig/tests[%d] run 1' % i for i in range(1, 6)], fails
r = json.load(open('$T/sig$alpha-reports/results.json'))
c = [c for c in r['comparisons'] if c['from'] == 'base' and c['to'] == 'head'][0]
assert abs(c['p_value'] - 2 / 32) < 1e-9 and c['significant'] is $significant, c
assert r['run']['alpha'] == $alpha, r['run']"
done
fake_script "$T/script.json"

# ---- usage ---------------------------------------------------------------------
run $SKILLCI run --repo "$R" --shard 5/4 -m $M
expect_exit 2 "--shard 5/4 is bad usage"
run env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX $SKILLCI run --repo "$R" --shard auto -m $M
expect_exit 2 "--shard auto without an index is bad usage"
run $SKILLCI run --repo "$T/nowhere" -m $M
expect_exit 2 "a missing repository is bad input"
run $SKILLCI run --help
expect_exit 0 "--help"
expect_out_contains "--shard K/N" "--help lists --shard"

done_testing
