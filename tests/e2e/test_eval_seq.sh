# skillci eval's sequential sampling (docs/evaluation.md, "skillci eval"):
# the lift of a skill over no skill, per skill x model, decided in rounds
# against the fake model server. The fake answers by markers, so every
# test's outcome with and without the skill is fixed:
#
#   lifter  10 tests, wrong on all without the skill, right on all with it:
#           the lift is shown at the second look (worked out below)
#   noop    20 tests, right on the odd ones and wrong on the even ones,
#           with the skill or without: no lift, so a lift of D (15 points)
#           or more is ruled out once the runs add up
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

# ---- a clear lift is shown at the second look ------------------------------
# The design: rounds of 1 run (gate.first_runs' default), max_runs 20. One
# check (family 1), alpha 0.05, beta 0.2, margin 0, D 15 points; the log
# likelihood ratio L = (D - m) (lift - (m + D) / 2) I, I = 1 / se^2. Each
# test's variance is pooled over its answers at both sides: at look 1 (1
# run a side: 1 pass of 2) the unbiased 1 x 1 / (2 x 1) = .5, so se =
# sqrt(10 x .5 x 2) / 10, I = 10, L = .15 x .925 x 10 = 1.39, under any
# boundary the design can have (its upper boundary is at least Wald's
# log((1 - beta) / alpha) lowered by the truncation: 2 or more, checked in
# test_sequential); at look 2 (2 of 4: the unbiased 2 x 2 / (4 x 3) = 1/3
# over the floor 3 x 3 / 6^2) se = sqrt(10 x (1/3) x 1) / 10, I = 30,
# L = 4.16: shown, with the interval 1 - z(.95) se = +70 points.
run $SKILLCI eval skills/lifter -m $M --max-runs 20 --no-cache --store "$T/a.db" --json "$T/a.json"
expect_exit 0 "lifter: eval exits 0"
expect_out_contains "lifter on $M (10 tests x 1 to 20 runs, sequential)" "lifter: the header names the design"
expect_out_contains "lift: shown, +100 points [+70, +100]" "lifter: the lift is shown, with its interval (hand computed)"
expect_out_contains "2 runs per test after 2 of at most 20 rounds (20 with the skill, 20 without)" \
	"lifter: runs per test and rounds"
check "lifter: the likelihood ratio by hand: 1.39 at look 1, 4.16 at look 2" python3 -c "
from math import sqrt
l1 = .15 * (1 - .075) * 1 / (sqrt(10 * .5 * 2) / 10) ** 2
l2 = .15 * (1 - .075) * 1 / (sqrt(10 * (1 / 3)) / 10) ** 2
assert abs(l1 - 1.3875) < 1e-9 and abs(l2 - 4.1625) < 1e-9, (l1, l2)
from statistics import NormalDist
lo = 1 - NormalDist().inv_cdf(.95) * sqrt(10 / 3) / 10
assert round(lo * 100) == 70, lo"
check "lifter: the JSON's lift record says shown at look 2" test \
	"$(lift "$T/a.json" lifter decision) $(lift "$T/a.json" lifter stop) $(lift "$T/a.json" lifter rounds) $(lift "$T/a.json" lifter runs_per_test)" = "lift shown 2 2"
check "lifter: the record's interval, design and runs" python3 -c "
import json
l = json.load(open('$T/a.json'))['lift'][0]
assert l['lift'] == 1 and abs(l['lo'] - 0.6997) < 1e-3 and l['hi'] == 1, l
assert (l['tests'], l['skill_runs'], l['baseline_runs']) == (10, 20, 20), l
assert (l['first_runs'], l['max_runs'], l['max_rounds'], l['margin'], l['drop']) == (1, 20, 20, 0, 0.15), l
assert l['detectable'] > 0, l"
# 10 tests x 2 runs x 2 sides; the design's most: 10 x 20 x 2
check "lifter: 40 requests, counted by totals, the fake and the closing line" test \
	"$(lift "$T/a.json" lifter requests) $(fake_stat requests)" = "40 40"
expect_out_contains "requests: 40 (the design's most: 400)" "lifter: the closing line counts requests and the design's most"
expect_err_contains "budget: 400 units, at most 400 model requests; limit 100000 requests" \
	"lifter: the budget line before the first request"
check "no API key in any output" sh -c "! grep -rq sk-test-evalseq-secret '$T/.out' '$T/.err' '$T/a.json'"

# ---- the same eval again: every round from the store ----------------------
fake_reset
run $SKILLCI eval skills/lifter -m $M --max-runs 20 --no-cache --store "$T/a.db" --json "$T/a2.json"
expect_exit 0 "again: eval exits 0"
check "again: no request, the same decision at the same look" test \
	"$(fake_stat requests) $(lift "$T/a2.json" lifter requests) $(lift "$T/a2.json" lifter decision) $(lift "$T/a2.json" lifter rounds)" = "0 0 lift 2"

# ---- a skill that does nothing: a lift of D ruled out ---------------------
# Every test agrees with and without the skill: lift 0, L = .15 x (0 -
# .075) x I. Look 1 (0 or 2 passes of 2 per test, the floor 1 x 3 / 16):
# I = 1 / (7.5 / 400) = 53.3, L = -0.60; look 2 (the floor 1 x 5 / 36):
# I = 144, L = -1.62, under the lower boundary (at most Wald's
# -log((1 - alpha) / beta) = -1.56 plus the truncation: the run says).
fake_reset
run $SKILLCI eval skills/noop -m $M --max-runs 20 --no-cache --store "$T/b.db" --json "$T/b.json"
expect_exit 0 "noop: eval exits 0"
expect_out_contains "lift: none of 15 points or more, +0 points [-14, +14]: ruled out" \
	"noop: the terminal says a lift of D is ruled out, with the interval"
expect_out_contains "2 runs per test after 2 of at most 20 rounds (40 with the skill, 40 without)" \
	"noop: decided at look 2"
expect_out_contains "Recommendation: skill is not beneficial" "noop: the recommendation follows the decision"
noop_rounds=$(lift "$T/b.json" noop rounds)
noop_runs=$(lift "$T/b.json" noop runs_per_test)
noop_req=$(lift "$T/b.json" noop requests)
check "noop: no_lift, ruled out, interval around 0" python3 -c "
import json
l = json.load(open('$T/b.json'))['lift'][0]
assert l['decision'] == 'no_lift' and l['stop'] == 'ruled_out', l
assert l['lift'] == 0 and l['lo'] < 0 < l['hi'] < 0.15, l"
check "noop: it sampled past the first round ($noop_rounds rounds)" test "$noop_rounds" -eq 2
check "noop: runs per test are 1 per round ($noop_runs after $noop_rounds)" \
	test "$noop_runs" -eq "$noop_rounds"
check "noop: requests are 20 tests x 2 sides x runs per test ($noop_req)" \
	test "$noop_req" -eq $((20 * 2 * noop_runs))
check "noop: the fake saw them all" test "$(fake_stat requests)" -eq "$noop_req"
check "noop: more requests than the clear lift (40)" test "$noop_req" -gt 40

# ---- a lift margin: noop's lift beyond 10 points is ruled out later ---------
# With --lift-margin 10 (m) the question is a lift of more than 10 points
# against one of D = 15: L = .05 x (0 - .125) x I, slower toward the lower
# boundary: look 2 (I 144) L = -0.90, look 3 (the floor 1 x 7 / 64, I =
# 274) L = -1.71: ruled out with 3 runs per test.
fake_reset
run $SKILLCI eval skills/noop -m $M --max-runs 20 --lift-margin 10 --no-cache --store "$T/m.db" \
	--json "$T/m.json"
expect_exit 0 "margin: eval exits 0"
check "margin: no_lift, ruled out, the margin recorded" test \
	"$(lift "$T/m.json" noop decision) $(lift "$T/m.json" noop stop) $(lift "$T/m.json" noop margin)" = "no_lift ruled_out 0.1"
check "margin: the interval's top is under D" python3 -c "
import json
l = json.load(open('$T/m.json'))['lift'][0]
assert l['lo'] < 0 < l['hi'] < 0.15, l"
expect_out_contains "lift: none of 15 points or more, +0 points [-10, +10]: ruled out" "margin: the terminal says what is ruled out"
expect_out_contains "3 runs per test after 3 of at most 20 rounds" "margin: the smaller distance takes 3 looks"
check "margin: requests are 20 x 2 x 3" test "$(lift "$T/m.json" noop requests)" -eq 120

# ---- the cap of runs ends first: unverified ---------------------------------
# --max-runs 1 is one look, the last: noop's L = -0.60 there decides
# nothing, so the lift is unverified (stopped at max_runs) after 40 requests.
fake_reset
run $SKILLCI eval skills/noop -m $M --first-runs 1 --max-runs 1 --no-cache --store "$T/b1.db" \
	--json "$T/b1.json"
expect_exit 0 "cap: eval exits 0 (eval decides no merge)"
check "cap: unverified, stopped at max_runs, one round" test \
	"$(lift "$T/b1.json" noop decision) $(lift "$T/b1.json" noop stop) $(lift "$T/b1.json" noop rounds)" = "unverified max_runs 1"
expect_out_contains "the design reached its cap of runs per test (--max-runs, gate.max_runs)" \
	"cap: the terminal says the runs ran out"
expect_out_contains "1 run per test after 1 of at most 1 round (20 with the skill, 20 without)" \
	"cap: the runs and the round, in the singular"
expect_out_contains "Recommendation: none: unverified" "cap: no recommendation on an unverified lift"
check "cap: 40 requests" test "$(lift "$T/b1.json" noop requests) $(fake_stat requests)" = "40 40"

# ---- two checks: only the open one gets more rounds ------------------------
# Bonferroni over 2 checks: each at alpha 0.025; every check is sampled
# only while open, so the requests are each check's own runs.
fake_reset
run $SKILLCI eval skills/lifter skills/noop -m $M --max-runs 20 --no-cache --store "$T/c.db" \
	--json "$T/c.json"
expect_exit 0 "both: eval exits 0"
check "both: lifter shown, noop ruled out" test \
	"$(lift "$T/c.json" lifter decision) $(lift "$T/c.json" noop decision)" = "lift no_lift"
both_lift=$(lift "$T/c.json" lifter runs_per_test)
both_noop=$(lift "$T/c.json" noop runs_per_test)
check "both: requests are lifter's 10 x 2 x $both_lift and noop's 20 x 2 x $both_noop, no more" \
	test "$(lift "$T/c.json" lifter requests)" -eq $((10 * 2 * both_lift + 20 * 2 * both_noop))
check "both: the fake saw the same" test "$(fake_stat requests)" -eq $((10 * 2 * both_lift + 20 * 2 * both_noop))
check "both: the smaller alpha takes at least as many runs as one check" \
	test "$both_lift" -ge 2 -a "$both_noop" -ge 2
expect_out_contains "sequential probability ratio test, alpha 0.05 over 2 checks" "both: the family is named"

# ---- the config asks for it; --runs N stays fixed --------------------------
# first_runs 2: look 1 has lifter's look 2 above (I 30, L 4.16): shown.
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
check "--runs 3: 60 requests" python3 -c "
import json
r = json.load(open('$T/e.json'))
assert r['totals']['requests'] == 60, r['totals']"
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
printf 'gate: {max_runs: 0}\n' > skillci.yml
run $SKILLCI eval skills/lifter -m $M --first-runs 4 --no-cache --store "$T/g.db"
expect_exit 2 "--first-runs alone, gate.max_runs 0: bad usage"
expect_err_contains "--first-runs F needs --max-runs R" "--first-runs alone: the message"
rm skillci.yml
check "bad usage: no request was made" test "$(fake_stat requests)" -eq 0
run $SKILLCI eval skills/lifter -m $M --first-runs 4 --no-cache --store "$T/g4.db" --json "$T/g4.json"
expect_exit 0 "--first-runs alone: capped by the default gate.max_runs (50)"
check "--first-runs alone: rounds of 4, at most 50 runs" python3 -c "
import json
l = json.load(open('$T/g4.json'))['lift'][0]
assert (l['first_runs'], l['max_runs'], l['rounds'], l['runs_per_test']) == (4, 50, 1, 4), l"
fake_reset

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
