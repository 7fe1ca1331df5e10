# skillci eval's sequential sampling (docs/evaluation.md, "skillci eval"):
# the lift of a skill over no skill, per skill x model, decided in rounds
# against the fake model server. The fake answers by markers, so every
# test's outcome with and without the skill is fixed:
#
#   lifter  10 tests, wrong on all without the skill, right on all with it:
#           the lift is shown at the first look (worked out below)
#   noop    20 tests, right on the odd ones and wrong on the even ones,
#           with the skill or without: no lift, nothing worse, so the check
#           samples on until futility or the last look, inconclusive
#
# Requests are counted in the results JSON (totals.requests), on eval's
# closing line and by the fake.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

cat > "$T/script.json" <<'EOF'
{
  "rules": [
    {"match": {"system": "LIFT-ON"}, "reply": {"text": "ANSWER-OK", "usage": {"input": 50, "output": 5}}},
    {"match": {"contains": "[B+]"}, "reply": {"text": "answer-ok", "usage": {"input": 50, "output": 5}}}
  ],
  "default": {"text": "no idea", "usage": {"input": 50, "output": 5}}
}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-evalseq-secret
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY
M=anthropic.fake-student
mkdir -p "$T/w/skills/lifter" "$T/w/skills/noop"
cd "$T/w" || exit 1
printf -- '---\nname: lifter\ndescription: Answers with the magic word.\n---\n# Lifter\n\nLIFT-ON: answer ANSWER-OK.\n' \
	> skills/lifter/SKILL.md
printf -- '---\nname: noop\ndescription: Says nothing useful.\n---\n# Noop\n\nBe polite.\n' \
	> skills/noop/SKILL.md
python3 -c "
import json
json.dump({'tests': [{'input': 'L%02d: the word?' % i, 'expected': {'contains': ['answer-ok']}}
                     for i in range(1, 11)]}, open('skills/lifter/skill_meta.json', 'w'))
json.dump({'tests': [{'input': 'N%02d: the word? %s' % (i, '[B+]' if i % 2 else ''),
                      'expected': {'contains': ['answer-ok']}} for i in range(1, 21)]},
          open('skills/noop/skill_meta.json', 'w'))"

lift() {  # lift RESULTS SKILL FIELD: a field of the skill's "lift" record; "requests": totals
	python3 -c "
import json, sys
r = json.load(open('$1'))
if '$3' == 'requests':
    print(r['totals']['requests']); sys.exit(0)
l = [l for l in r.get('lift', []) if l['skill'] == 'skills/$2']
assert len(l) == 1, r.get('lift')
print(l[0]['$3'])"
}

# ---- a clear lift stops at the first look --------------------------------
# The design: first_runs 2, max_runs 20, so 10 looks at t = 0.1, 0.2, ...
# One check (family 1), alpha 0.05, margin 0. At look 1 every test has 2
# runs a side: the skill 2 of 2, the baseline 0 of 2, so d_t = -1 (baseline
# minus skill), q_t = (2 + 1) / (4 + 2) = 0.5, v_t = 0.25 (1/2 + 1/2), se =
# sqrt(10 x 0.25) / 10; p = PHI(-1 / se). Look 1's level is the spending
# a(0.1) = 2 (1 - PHI(z(0.975) / sqrt(0.1))): the script below checks p is
# under it, so the check stops at look 1 with 2 runs per test.
run $SKILLCI eval skills/lifter -m $M --max-runs 20 --no-cache --store "$T/a.db" --json "$T/a.json"
expect_exit 0 "lifter: eval exits 0"
expect_out_contains "lifter on $M (10 tests x 2 to 20 runs, sequential)" "lifter: the header names the design"
expect_out_contains "lift: shown, +100 points [" "lifter: the lift is shown, with its interval"
expect_out_contains "2 runs per test after 1 of 10 rounds (20 with the skill, 20 without)" \
	"lifter: runs per test and rounds"
check "lifter: look 1's p is under its O'Brien-Fleming level (hand computation)" python3 -c "
from math import erfc, sqrt
z975 = 1.959963984540054
se = sqrt(10 * 0.25) / 10
p = 0.5 * erfc((1 / se) / sqrt(2))
level = erfc(z975 / sqrt(0.1) / sqrt(2))
assert p < level, (p, level)"
check "lifter: the JSON's lift record says shown at look 1" test \
	"$(lift "$T/a.json" lifter decision) $(lift "$T/a.json" lifter stop) $(lift "$T/a.json" lifter rounds) $(lift "$T/a.json" lifter runs_per_test)" = "lift shown 1 2"
check "lifter: the record's interval, design and runs" python3 -c "
import json
l = json.load(open('$T/a.json'))['lift'][0]
assert l['lift'] == 1 and 0 < l['lo'] < 1 and l['hi'] == 1, l
assert (l['tests'], l['skill_runs'], l['baseline_runs']) == (10, 20, 20), l
assert (l['first_runs'], l['max_runs'], l['max_rounds'], l['margin']) == (2, 20, 10, 0), l
assert l['detectable'] > 0, l"
# 10 tests x 2 runs x 2 sides; the design's most: 10 x 20 x 2
check "lifter: 40 requests, counted by totals, the fake and the closing line" test \
	"$(lift "$T/a.json" lifter requests) $(fake_stat requests)" = "40 40"
expect_out_contains "requests: 40 (the design's most: 400)" "lifter: the closing line counts requests and the design's most"
expect_err_contains "budget: 400 units, at most 400 model requests; limit 20000 requests" \
	"lifter: the budget line before the first request"
check "no API key in any output" sh -c "! grep -rq sk-test-evalseq-secret '$T/.out' '$T/.err' '$T/a.json'"

# ---- the same eval again: every round from the store ----------------------
fake_reset
run $SKILLCI eval skills/lifter -m $M --max-runs 20 --no-cache --store "$T/a.db" --json "$T/a2.json"
expect_exit 0 "again: eval exits 0"
check "again: no request, the same decision at the same look" test \
	"$(fake_stat requests) $(lift "$T/a2.json" lifter requests) $(lift "$T/a2.json" lifter decision) $(lift "$T/a2.json" lifter rounds)" = "0 0 lift 1"

# ---- a skill that does nothing: inconclusive ------------------------------
fake_reset
run $SKILLCI eval skills/noop -m $M --max-runs 20 --no-cache --store "$T/b.db" --json "$T/b.json"
expect_exit 0 "noop: an inconclusive lift is not an error"
expect_out_contains "lift: inconclusive, +0 points [" "noop: the terminal says inconclusive, with the interval"
expect_out_contains "a lift beyond the 0-point margin is neither shown nor ruled out" "noop: what is not known"
noop_rounds=$(lift "$T/b.json" noop rounds)
noop_runs=$(lift "$T/b.json" noop runs_per_test)
noop_req=$(lift "$T/b.json" noop requests)
check "noop: inconclusive, stopped for futility or at the last look" python3 -c "
import json
l = json.load(open('$T/b.json'))['lift'][0]
assert l['decision'] == 'inconclusive' and l['stop'] in ('futility', 'last_look'), l
assert l['lift'] == 0 and l['lo'] < 0 < l['hi'], l"
check "noop: it sampled past the first round ($noop_rounds rounds)" test "$noop_rounds" -gt 1
check "noop: runs per test are 2 per round ($noop_runs after $noop_rounds)" \
	test "$noop_runs" -eq $((2 * noop_rounds))
check "noop: requests are 20 tests x 2 sides x runs per test ($noop_req)" \
	test "$noop_req" -eq $((20 * 2 * noop_runs))
check "noop: the fake saw them all" test "$(fake_stat requests)" -eq "$noop_req"
check "noop: more requests than the clear lift (40)" test "$noop_req" -gt 40

# ---- a lift margin: noop's lift of 10 points or more is ruled out ----------
# With --lift-margin 10 the question is a lift beyond 10 points: noop's
# tests agree with and without the skill (d_t = 0 on every test), so the
# upper end of its interval falls under +10 as runs add up: ruled out.
fake_reset
run $SKILLCI eval skills/noop -m $M --max-runs 20 --lift-margin 10 --no-cache --store "$T/m.db" \
	--json "$T/m.json"
expect_exit 0 "margin: eval exits 0"
check "margin: no_lift, ruled out, the margin recorded" test \
	"$(lift "$T/m.json" noop decision) $(lift "$T/m.json" noop stop) $(lift "$T/m.json" noop margin)" = "no_lift ruled_out 0.1"
check "margin: the interval's top is under the margin" python3 -c "
import json
l = json.load(open('$T/m.json'))['lift'][0]
assert l['lo'] < 0 < l['hi'] < 0.1, l"
expect_out_contains "a lift of 10 points or more is ruled out" "margin: the terminal says what is ruled out"
expect_out_contains "Recommendation: skill is not beneficial" "margin: the recommendation follows the decision"
m_runs=$(lift "$T/m.json" noop runs_per_test)
check "margin: requests are 20 x 2 x $m_runs" test "$(lift "$T/m.json" noop requests)" -eq $((20 * 2 * m_runs))

# ---- the budget of runs ends first: inconclusive at the last look ---------
# --max-runs 2 --first-runs 2 is one look, the last: noop neither shows nor
# rules out a lift there, so it stops inconclusive with 20 x 2 x 2 requests.
fake_reset
run $SKILLCI eval skills/noop -m $M --first-runs 2 --max-runs 2 --no-cache --store "$T/b1.db" \
	--json "$T/b1.json"
expect_exit 0 "last look: eval exits 0"
check "last look: inconclusive, stopped at the last look, one round" test \
	"$(lift "$T/b1.json" noop decision) $(lift "$T/b1.json" noop stop) $(lift "$T/b1.json" noop rounds)" = "inconclusive last_look 1"
expect_out_contains "2 runs per test after 1 of 1 rounds (40 with the skill, 40 without); the last look" \
	"last look: the terminal says the runs ran out"
check "last look: 80 requests" test "$(lift "$T/b1.json" noop requests) $(fake_stat requests)" = "80 80"

# ---- two checks: only the open one gets more rounds ------------------------
# Bonferroni over 2 checks halves the lift's alpha: look 1's level,
# a(0.1) at 0.025, is under lifter's p, so it needs a second look (4 runs).
fake_reset
run $SKILLCI eval skills/lifter skills/noop -m $M --max-runs 20 --no-cache --store "$T/c.db" \
	--json "$T/c.json"
expect_exit 0 "both: eval exits 0"
check "both: look 1's level at alpha 0.025 is under lifter's p: it needs look 2" python3 -c "
from math import erfc, sqrt
from statistics import NormalDist
z = NormalDist().inv_cdf(1 - 0.025 / 2)
se = sqrt(10 * 0.25) / 10
p = 0.5 * erfc((1 / se) / sqrt(2))
assert p > erfc(z / sqrt(0.1) / sqrt(2))"
check "both: lifter shown at look 2, noop inconclusive" test \
	"$(lift "$T/c.json" lifter decision) $(lift "$T/c.json" lifter rounds) $(lift "$T/c.json" noop decision)" = "lift 2 inconclusive"
both_noop=$(lift "$T/c.json" noop runs_per_test)
check "both: requests are lifter's 10 x 2 x 4 and noop's 20 x 2 x $both_noop, no more" \
	test "$(lift "$T/c.json" lifter requests)" -eq $((10 * 2 * 4 + 20 * 2 * both_noop))
check "both: the fake saw the same" test "$(fake_stat requests)" -eq $((10 * 2 * 4 + 20 * 2 * both_noop))
expect_out_contains "Bonferroni over 2 checks" "both: the family is named"

# ---- the config asks for it; --runs N stays fixed --------------------------
printf 'gate: {first_runs: 2, max_runs: 20}\n' > skillci.yml
fake_reset
run $SKILLCI eval skills/lifter -m $M --no-cache --store "$T/d.db" --json "$T/d.json"
expect_exit 0 "config: eval exits 0"
expect_out_contains "(10 tests x 2 to 20 runs, sequential)" "config: gate.max_runs samples sequentially"
check "config: shown at look 1, 40 requests" test \
	"$(lift "$T/d.json" lifter rounds) $(lift "$T/d.json" lifter requests)" = "1 40"
fake_reset
run $SKILLCI eval skills/lifter -m $M --runs 3 --no-cache --store "$T/e.db" --json "$T/e.json"
expect_exit 0 "--runs 3: eval exits 0"
expect_out_contains "(10 tests x 3 runs)" "--runs 3: a fixed design"
check "--runs 3: 60 requests, no lift record" python3 -c "
import json
r = json.load(open('$T/e.json'))
assert r['totals']['requests'] == 60 and 'lift' not in r, r['totals']"
fake_reset
run $SKILLCI eval skills/lifter -m $M --no-baseline --no-cache --store "$T/f.db" --json "$T/f.json"
expect_exit 0 "config + --no-baseline: the fixed design of runs"
check "config + --no-baseline: 10 requests, with the skill only" test "$(lift "$T/f.json" lifter requests)" -eq 10
rm skillci.yml

# ---- bad usage ------------------------------------------------------------
fake_reset
run $SKILLCI eval skills/lifter -m $M --max-runs 20 --no-baseline --no-cache --store "$T/g.db"
expect_exit 2 "--no-baseline --max-runs: bad usage"
expect_err_contains "--no-baseline leaves nothing to compare: sequential sampling (--max-runs, --first-runs) decides the skill's lift over no skill" \
	"--no-baseline --max-runs: the message says why"
run $SKILLCI eval skills/lifter -m $M --runs 2 --max-runs 20 --no-cache --store "$T/g.db"
expect_exit 2 "--runs with --max-runs: bad usage"
expect_err_contains "--runs N is a fixed design and --max-runs/--first-runs a sequential one" \
	"--runs with --max-runs: the message"
run $SKILLCI eval skills/lifter -m $M --first-runs 4 --max-runs 2 --no-cache --store "$T/g.db"
expect_exit 2 "--max-runs below --first-runs: bad usage"
expect_err_contains "--max-runs (2) must be at least --first-runs (4)" "--max-runs below --first-runs: the message"
run $SKILLCI eval skills/lifter -m $M --first-runs 4 --no-cache --store "$T/g.db"
expect_exit 2 "--first-runs alone: bad usage"
expect_err_contains "--first-runs F needs --max-runs R" "--first-runs alone: the message"
check "bad usage: no request was made" test "$(fake_stat requests)" -eq 0

# ---- the budget: refused before any request --------------------------------
printf 'budget: {max_requests: 399}\n' > skillci.yml
run $SKILLCI eval skills/lifter -m $M --max-runs 20 --no-cache --store "$T/h.db"
expect_exit 2 "budget: 400 requests over max_requests 399 is refused"
expect_err_contains "the design may make 400 model requests, more than the budget's 399 (budget.max_requests); nothing was sent" \
	"budget: the message names the numbers and the key"
check "budget: no request was made" test "$(fake_stat requests)" -eq 0
printf 'budget: {max_requests: 400}\n' > skillci.yml
run $SKILLCI eval skills/lifter -m $M --max-runs 20 --no-cache --store "$T/h.db" --json "$T/h.json"
expect_exit 0 "budget: exactly the design's most runs"
check "budget: and stops early (40 requests)" test "$(lift "$T/h.json" lifter requests)" -eq 40
printf 'budget: {max_output_tokens: 1000}\n' > skillci.yml
fake_reset
run $SKILLCI eval skills/lifter -m $M --max-runs 20 --no-cache --store "$T/h.db"
expect_exit 2 "budget: the output tokens of the design over max_output_tokens are refused"
expect_err_contains "more than budget.max_output_tokens (1000); nothing was sent" "budget: the token message"
expect_err_lacks "base branch" "budget: eval's message names skillci.yml, not a base branch"
check "budget: no request for the token refusal either" test "$(fake_stat requests)" -eq 0
rm skillci.yml

done_testing
