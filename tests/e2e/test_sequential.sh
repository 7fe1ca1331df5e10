# Sequential sampling end to end (docs/evaluation.md, "Sequential
# sampling"): skillci run against the fake model server with a trusted
# config that sets gate.first_runs 2 and gate.max_runs 20. The fake answers
# by markers in the system prompt and the question, so each test's outcome
# at base and head is fixed:
#
#   clear  10 tests, right on all at base, wrong on all at head: the drop is
#          shown at the first look (2 runs per test), long before the
#          budget of 20
#   near   30 tests, right on all at base; at head wrong on q01 and q02:
#          a drop of 6.7 points, just under half of D (15), is not ruled
#          out by the first round; the check samples on until it is
#   middle 40 tests, right on all at base; at head wrong on q01 to q03: a
#          drop of 7.5 points, half way between no drop and D, moves the
#          likelihood ratio toward neither boundary; at gate.max_runs 1
#          the design is cut before it decides: unverified, which blocks
#          unless gate.accept_unverified
#
# Requests are counted in results.json (totals.requests) and by the fake.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

cat > "$T/script.json" <<'EOF'
{
  "rules": [
    {"match": {"system": "SEQ-GOOD"}, "reply": {"text": "ok-seq", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "OPEN-HEAD", "contains": "q01?"}, "reply": {"text": "wrong", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "OPEN-HEAD", "contains": "q02?"}, "reply": {"text": "wrong", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "MID-HEAD", "contains": "q01?"}, "reply": {"text": "wrong", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "MID-HEAD", "contains": "q02?"}, "reply": {"text": "wrong", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "MID-HEAD", "contains": "q03?"}, "reply": {"text": "wrong", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "MID-"}, "reply": {"text": "ok-seq", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "OPEN-"}, "reply": {"text": "ok-seq", "usage": {"input": 50, "output": 5}}}
  ],
  "default": {"text": "no idea", "usage": {"input": 50, "output": 5}}
}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-seq-secret
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY
M=anthropic.fake-student
cd "$T" || exit 1

seq_repo() {  # seq_repo DIR BASE_MARKER HEAD_MARKER NTESTS [CONFIG]
	mkdir -p "$1/skills/seq"
	git -C "$1" init -q -b main
	git -C "$1" config user.email ci@example.com
	git -C "$1" config user.name ci
	_cfg='gate: {first_runs: 2, max_runs: 20}'
	[ -n "${5:-}" ] && _cfg=$5
	printf '%s\n' "$_cfg" > "$1/skillci.yml"
	printf -- '---\nname: seq\ndescription: Answers seq questions.\n---\n# seq\n\n%s: answer ok-seq.\n' \
		"$2" > "$1/skills/seq/SKILL.md"
	python3 -c "
import json
json.dump({'tests': [{'input': 'q%02d?' % i, 'expected': {'contains': ['ok-seq']}} for i in range(1, $4 + 1)]},
          open('$1/skills/seq/skill_meta.json', 'w'))"
	git -C "$1" add -A && git -C "$1" commit -q -m base
	sed -i "s/$2/$3/" "$1/skills/seq/SKILL.md"
	git -C "$1" commit -q -a -m head
}

margin() {  # margin RESULTS FIELD: the pass_rate check's margin field, or a totals field
	python3 -c "
import json, sys
r = json.load(open('$1'))
if '$2' == 'requests':
    print(r['totals']['requests']); sys.exit(0)
c = [c for c in r['gate']['checks'] if c['check'] == 'pass_rate']
assert len(c) == 1, c
m = c[0]['margin']
print(m['$2'] if '$2' != 'runs' else '%d/%d' % (m['runs']['base'], m['runs']['head']))"
}

# ---- a clear regression stops at the first look --------------------------
seq_repo "$T/clear" SEQ-GOOD SEQ-BROKEN 10
run $SKILLCI run --repo "$T/clear" --base HEAD~1 --head HEAD -m $M --no-cache \
	--store "$T/clear.db" --report-dir "$T/clear-out" --json "$T/clear.json"
expect_exit 1 "clear: the regression fails the gate"
expect_err_contains "sequential: 2 runs per test after 1 round" \
	"clear: the gate line says the check stopped after the first round"
check "clear: the margin says regression after 1 round, 2 runs per test" \
	test "$(margin "$T/clear.json" decision) $(margin "$T/clear.json" rounds) $(margin "$T/clear.json" runs_per_test)" = "regression 1 2"
check "clear: 20 judged units per side" test "$(margin "$T/clear.json" runs)" = "20/20"
# base and head 10 tests x 2 runs, the baseline (it decides nothing) once
check "clear: 50 requests in totals.requests" test "$(margin "$T/clear.json" requests)" -eq 50
check "clear: the fake saw the same 50 requests" test "$(fake_stat requests)" -eq 50
# the budget: base and head 10 x 20 runs, baseline 10 x 1
check "clear: fewer requests than max_runs would make (410)" \
	test "$(margin "$T/clear.json" requests)" -lt 410
check "clear: the margin's interval and detectable drop are numbers" python3 -c "
import json
r = json.load(open('$T/clear.json'))
m = [c for c in r['gate']['checks'] if c['check'] == 'pass_rate'][0]['margin']
assert abs(m['mean'] + 1.0) < 1e-9 and -1 <= m['lo'] <= m['mean'] < m['hi'] <= 1 and m['detectable'] > 0.05, m
assert m['tests'] == 10, m
g = r['run']['trust']['gate']
assert (g['first_runs'], g['max_runs'], g['planned_checks']) == (2, 20, 1), g"

# ---- the same PR again: every round comes from the store ------------------
fake_reset
run $SKILLCI run --repo "$T/clear" --base HEAD~1 --head HEAD -m $M --no-cache \
	--store "$T/clear.db" --report-dir "$T/clear-again" --json "$T/clear-again.json"
expect_exit 1 "clear again: the same verdict"
check "clear again: no request, the same look" test \
	"$(fake_stat requests) $(margin "$T/clear-again.json" requests) $(margin "$T/clear-again.json" rounds)" = "0 0 1"

# ---- report recomputes the same decision from the units --------------------
run $SKILLCI report "$T/clear.json" --json "$T/clear-report.json"
expect_exit 0 "clear: report renders the results"
check "clear: report's margin is the run's" test \
	"$(margin "$T/clear-report.json" decision) $(margin "$T/clear-report.json" rounds)" = "regression 1"

# ---- a drop below D samples on until it is ruled out ---------------------
fake_reset
seq_repo "$T/open" OPEN-BASE OPEN-HEAD 30
run $SKILLCI run --repo "$T/open" --base HEAD~1 --head HEAD -m $M --no-cache \
	--store "$T/open.db" --report-dir "$T/open-out" --json "$T/open.json"
expect_exit 0 "near: a drop just under half of D passes"
expect_out_contains "no drop of 15 points or more" "near: the terminal says what green rules out"
check "near: the margin says ruled out" test "$(margin "$T/open.json" decision)" = ruled_out
open_rounds=$(margin "$T/open.json" rounds)
open_runs=$(margin "$T/open.json" runs_per_test)
open_req=$(margin "$T/open.json" requests)
check "near: more than 1 round (it sampled on; $open_rounds)" test "$open_rounds" -gt 1
# base and head 30 tests x runs, the baseline 30 x 1
check "near: requests are 2 x 30 x runs + 30 ($open_req for $open_runs runs)" \
	test "$open_req" -eq $((2 * 30 * open_runs + 30))
check "near: more requests than the first round (150) and the clear case" \
	test "$open_req" -gt 150 -a "$open_req" -gt "$(margin "$T/clear.json" requests)"
check "near: the fake saw them all" test "$(fake_stat requests)" -eq "$open_req"
check "near: the Markdown's verdict line names the sequential design, not one fixed run count" \
	grep -q "evaluated with 1 model × [0-9]* to [0-9]* runs per test (sequential)" "$T/open-out/report.md"

# ---- a drop half way to D, cut at max_runs: unverified --------------------
fake_reset
seq_repo "$T/mid" MID-BASE MID-HEAD 40 'gate: {first_runs: 1, max_runs: 1}'
run $SKILLCI run --repo "$T/mid" --base HEAD~1 --head HEAD -m $M --no-cache \
	--store "$T/mid.db" --report-dir "$T/mid-out" --json "$T/mid.json"
expect_exit 1 "middle: an unverified check blocks by default"
expect_out_contains "gate unverified" "middle: the terminal says unverified, not passed"
check "middle: the margin says unverified after its one round of 1 run" \
	test "$(margin "$T/mid.json" decision) $(margin "$T/mid.json" rounds) $(margin "$T/mid.json" runs_per_test)" = "unverified 1 1"
# base and head 40 tests x 1 run, the baseline 40 x 1
check "middle: 120 requests" test "$(margin "$T/mid.json" requests) $(fake_stat requests)" = "120 120"
check "middle: results.json's verdict is unverified, the check blocks" python3 -c "
import json
r = json.load(open('$T/mid.json'))
assert r['gate']['verdict'] == 'unverified' and r['gate']['passed'] is False, r['gate']
c = [c for c in r['gate']['checks'] if c['check'] == 'pass_rate'][0]
assert c['status'] == 'unverified' and 'accepted' not in c, c"
check "middle: the JUnit blocks with a failure of type unverified" \
	grep -q 'type="unverified"' "$T/mid-out/junit.xml"
fake_reset
seq_repo "$T/mid2" MID-BASE MID-HEAD 40 'gate: {first_runs: 1, max_runs: 1, accept_unverified: true}'
run $SKILLCI run --repo "$T/mid2" --base HEAD~1 --head HEAD -m $M --no-cache \
	--store "$T/mid.db" --report-dir "$T/mid-acc" --json "$T/mid-acc.json"
expect_exit 0 "middle: gate.accept_unverified lets it through"
check "middle: accepted, still unverified, nothing sent again" python3 -c "
import json
r = json.load(open('$T/mid-acc.json'))
assert r['gate']['verdict'] == 'unverified' and r['gate']['passed'] is True, r['gate']
c = [c for c in r['gate']['checks'] if c['check'] == 'pass_rate'][0]
assert c['status'] == 'unverified' and c['accepted'] is True, c
assert r['totals']['requests'] == 0, r['totals']"
check "middle: accepted: the Markdown does not say passed" \
	sh -c "! grep -q 'gate passed' '$T/mid-acc/report.md' && grep -q 'unverified' '$T/mid-acc/report.md'"

# ---- --runs N keeps a fixed design -----------------------------------------
fake_reset
run $SKILLCI run --repo "$T/clear" --base HEAD~1 --head HEAD -m $M --no-cache --runs 3 \
	--store "$T/fixed.db" --report-dir "$T/fixed-out" --json "$T/fixed.json"
expect_exit 1 "--runs 3: the regression fails"
check "--runs 3: one round of 3 runs (fixed design)" \
	test "$(margin "$T/fixed.json" rounds) $(margin "$T/fixed.json" runs)" = "1 30/30"
check "--runs 3: 70 requests (base and head 10 x 3 each, the baseline 10 x 1)" \
	test "$(margin "$T/fixed.json" requests)" -eq 70
expect_err_contains "fixed design of 3 runs per test" "--runs 3: the message is the fixed design's"

# ---- the head cannot raise the budget --------------------------------------
fake_reset
seq_repo "$T/raise" SEQ-GOOD SEQ-BROKEN 10 'gate: {first_runs: 2, max_runs: 4}'
printf 'gate: {first_runs: 1, max_runs: 1000}\n' > "$T/raise/skillci.yml"
git -C "$T/raise" commit -q -a -m "raise the budget"
run $SKILLCI run --repo "$T/raise" --base HEAD~2 --head HEAD -m $M --no-cache \
	--store "$T/raise.db" --report-dir "$T/raise-out" --json "$T/raise.json"
expect_exit 1 "raise: the regression fails within the trusted budget"
check "the head's gate.max_runs is not applied" python3 -c "
import json
r = json.load(open('$T/raise.json'))
g = r['run']['trust']['gate']
assert (g['first_runs'], g['max_runs']) == (2, 4), g
keys = [c['key'] for c in r['run']['trust']['head_config_changes']]
assert 'gate.max_runs' in keys and 'gate.first_runs' in keys, keys
assert max(u['run_index'] for u in r['units']) < 4, 'ran past the trusted budget'"

# ---- history: flip rates from the store size the first round --------------
# A first PR (a fixed design of 4 runs, --runs 4) stores 4 base runs of
# every test: q01 is wrong on its 1st and 3rd request (2 of 4, a flip rate
# of 2 x 2 x 2 / (4 x 3) = 67%), the other nine always right. A second PR
# from the same base breaks the skill: its base and baseline units come
# from the store, the nine stable tests run once at head in the first
# round and q01 twice: 11 requests, and the drop is shown at that first
# look (p 6.5e-7 < 0.0056 of a 2-of-4 design). The message names q01.
# The first run sends one request at a time: which of q01's four base
# runs the fake answers wrong (its 1st and 3rd q01 requests) then follows
# the run index, and so does what the first look sees of them.
fake_reset
python3 - "$T/flaky-script.json" <<'EOF2'
import json, sys
rules = [{"match": {"system": "FLAKY-BASE", "contains": "q01?", "nth": [1, 3]}, "reply": {"text": "wrong"}},
         {"match": {"system": "FLAKY-BASE"}, "reply": {"text": "ok-seq"}},
         {"match": {"system": "FLAKY-SAME"}, "reply": {"text": "ok-seq"}}]
json.dump({"rules": rules, "default": {"text": "no idea", "usage": {"input": 50, "output": 5}}}, open(sys.argv[1], "w"))
EOF2
fake_script "$T/flaky-script.json"
seq_repo "$T/flaky" FLAKY-BASE FLAKY-SAME 10 'gate: {first_runs: 2, max_runs: 4}'
git -C "$T/flaky" checkout -q HEAD~1
sed -i 's/FLAKY-BASE/FLAKY-BROKEN/' "$T/flaky/skills/seq/SKILL.md"
git -C "$T/flaky" commit -q -a -m "break it"
git -C "$T/flaky" branch -q broken
git -C "$T/flaky" checkout -q main
run $SKILLCI run --repo "$T/flaky" --base main~1 --head main -m $M --no-cache --runs 4 --concurrency 1 \
	--store "$T/flaky.db" --report-dir "$T/flaky1" --json "$T/flaky1.json"
FLAKY1_RC=$RC
check "history: the first PR has no history yet" python3 -c "
import json; r = json.load(open('$T/flaky1.json')); assert 'history' not in r, r.get('history')"
fake_reset
run $SKILLCI run --repo "$T/flaky" --base main~1 --head broken -m $M --no-cache \
	--store "$T/flaky.db" --report-dir "$T/flaky2" --json "$T/flaky2.json"
printf '%s\n' "$ERR" > "$T/flaky2.err"
expect_exit 1 "history: the broken skill fails"
check "history: q01 flips 67% at base over 4 runs, the others never" python3 -c "
import json
r = json.load(open('$T/flaky2.json'))
h = {(x['variant'], x['test_id']): x for x in r['history']}
q = h[('base', 'skill_meta.json#tests[0]')]
assert (q['runs'], q['passes']) == (4, 2) and abs(q['flip_rate'] - 2 / 3) < 1e-9, q
assert len(h) == 10 and all(x['flip_rate'] == 0 and x['runs'] == 4 and x['variant'] == 'base'
                            for k, x in h.items() if k != ('base', 'skill_meta.json#tests[0]')), h"
expect_err_contains "test skill_meta.json#tests[0] flips 67% at base (4 runs)" \
	"history: the gate message names the flaky test"
check "history: 11 requests (nine stable tests once, q01 twice; got $(margin "$T/flaky2.json" requests) $(fake_stat requests), $(margin "$T/flaky2.json" reused) units from the store, first run exit $FLAKY1_RC)" \
	sh -c 'test "$1" = "11 11" || { cat "$2"; exit 1; }' - "$(margin "$T/flaky2.json" requests) $(fake_stat requests)" "$T/flaky2.err"
check "history: decided at the first look" test "$(margin "$T/flaky2.json" rounds)" = 1
fake_script "$T/script.json"

# ---- shards split by skill: merge decides as one run ----------------------
fake_reset
mkdir -p "$T/two"
git -C "$T/two" init -q -b main
git -C "$T/two" config user.email ci@example.com
git -C "$T/two" config user.name ci
printf 'gate: {first_runs: 2, max_runs: 8}\n' > "$T/two/skillci.yml"
for s in one two three; do
	mkdir -p "$T/two/skills/$s"
	printf -- '---\nname: %s\ndescription: Answers %s questions.\n---\n# %s\n\nSEQ-GOOD: answer ok-seq.\n' \
		"$s" "$s" "$s" > "$T/two/skills/$s/SKILL.md"
	python3 -c "
import json
json.dump({'tests': [{'input': 'q%02d?' % i, 'expected': {'contains': ['ok-seq']}} for i in range(1, 6)]},
          open('$T/two/skills/$s/skill_meta.json', 'w'))"
done
git -C "$T/two" add -A && git -C "$T/two" commit -q -m base
for s in one two three; do printf '\nMore words.\n' >> "$T/two/skills/$s/SKILL.md"; done
sed -i 's/SEQ-GOOD/SEQ-BROKEN/' "$T/two/skills/two/SKILL.md"
git -C "$T/two" commit -q -a -m head
for k in 1 2; do
	run $SKILLCI run --repo "$T/two" --base HEAD~1 --head HEAD -m $M --no-cache --shard $k/2 \
		--run-id seqshards --store "$T/shards.db" --json "$T/shard$k.json" --report-dir "$T/shard$k"
	expect_exit 0 "shard $k/2 runs (merge decides)"
done
check "every unit of a skill is in one shard" python3 -c "
import json
owner = {}
for k in (1, 2):
    for u in json.load(open('$T/shard%d.json' % k))['units']:
        assert owner.setdefault(u['skill'], k) == k, u['skill']
assert len(owner) == 3, owner"
run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" --json "$T/merged.json" --report-dir "$T/merged"
expect_exit 1 "merge: the broken skill fails"
run $SKILLCI run --repo "$T/two" --base HEAD~1 --head HEAD -m $M --no-cache \
	--store "$T/whole.db" --json "$T/whole.json" --report-dir "$T/whole"
expect_exit 1 "unsharded: the broken skill fails"
check "merge decides every check as the unsharded run" python3 -c "
import json
def checks(p):
    r = json.load(open(p))
    return sorted((c['skill'], c['status'], json.dumps(c.get('margin'), sort_keys=True))
                  for c in r['gate']['checks'] if c['check'] == 'pass_rate')
a, b = checks('$T/merged.json'), checks('$T/whole.json')
assert a == b, (a, b)
assert [s for s, st, _ in a if st == 'failed'] == ['skills/two'], a"

done_testing
