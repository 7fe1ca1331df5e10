# skillci merge: shard results of one `skillci run --shard K/N` plan joined
# into one results JSON, reports and gate, and every way a set of files can
# fail to be one whole plan. The student is the fake model server, which
# answers by a marker in the system prompt: the base skill (GOOD) answers
# all eight tests right, the head skill (HALF) only the four [easy] ones, a
# 50-point drop on the base's tests; without a skill every answer is wrong.
# Eight tests, sampled sequentially (the default): the drop is shown at
# the third round of one run per test (docs/evaluation.md, "The pass-rate
# decision"); the base and head then hold 3 runs of each test, the
# no-skill baseline one.
. tests/e2e/lib.sh
# resign FILE...: an edited shard signed again under the runner key, as
# if a runner had written it (tests/e2e/sign_results.py): the checks below
# are those merge makes of shards whose signature holds
resign() {
	for _f; do python3 "$SKILLCI_ROOT/tests/e2e/sign_results.py" "$_f" || return 1; done
}
. tests/fakes/fake.sh

R="$T/repo"
mkdir -p "$R/skills/s"
skill() {  # skill MARKER
	printf -- '---\nname: s\ndescription: Answers with the magic word.\n---\n# s\n\n%s: say ok.\n' \
		"$1" > "$R/skills/s/SKILL.md"
}
python3 -c '
import json, sys
tests = [{"input": "question %d %s" % (i, "[easy]" if i < 4 else "[hard]"),
          "expected": {"contains": ["ok"]}} for i in range(8)]
json.dump({"tests": tests}, open(sys.argv[1], "w"))' "$R/skills/s/skill_meta.json"
g() { git -C "$R" -c user.email=t@skillci.invalid -c user.name=t "$@"; }
skill MARK-GOOD
g init -q -b main && g add -A && g commit -q -m base
BASE=$(g rev-parse HEAD)
skill MARK-HALF
g commit -q -a -m "the skill now helps on the easy half only"
HEAD=$(g rev-parse HEAD)
cat > "$T/script.json" <<'EOF'
{"rules": [
  {"match": {"system": "MARK-GOOD"}, "reply": {"text": "ok", "usage": {"input": 10, "output": 1}}},
  {"match": {"system": "MARK-HALF", "contains": "[easy]"}, "reply": {"text": "ok", "usage": {"input": 10, "output": 1}}}
 ],
 "default": {"text": "no", "usage": {"input": 10, "output": 1}}}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-merge-secret
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY
cd "$T" || exit 1

RUN="$SKILLCI run --repo $R --base $BASE --head $HEAD -m anthropic.fake-student --no-cache --report-dir $T/rd-default"
for k in 1 2 3; do
	run $RUN --shard "$k/3" --store "$T/s$k.db" --json "$T/shard$k.json" \
		--markdown "$T/shard$k.md" --junit "$T/shard$k.xml" --html "$T/shard$k"
	expect_exit 0 "shard $k/3 runs"
done
check "a shard says it is one part of a sharded run" python3 -c "
import json; r = json.load(open('$T/shard2.json'))['run']
assert r['shard'] == {'index': 2, 'count': 3} and not r['complete'] and r['incomplete_reason'].startswith('shard 2/3'), r"

run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" "$T/shard3.json" --json "$T/m.json" \
	--markdown "$T/m.md" --junit "$T/m.xml" --html "$T/m"
expect_exit 1 "the merged gate fails on the 50-point drop"
expect_err_contains "pass_rate_drop" "and names the rule"
check "the merged results are one complete run of 56 units (8 tests x 3 runs at base and head, 8 baseline)" python3 -c "
import json; r = json.load(open('$T/m.json'))
assert r['run']['complete'] and r['run']['shard'] == {'index': 1, 'count': 1}, r['run']
assert len(r['units']) == 56 and r['totals']['units'] == 56, len(r['units'])
a = {(x['variant']): x['pass_rate'] for x in r['aggregates']}
assert a == {'baseline': 0.0, 'base': 1.0, 'head': 0.5}, a"
expect_file "$T/m/report.html" "merge writes the HTML report"

# The gate is the one the shards ran with (run took it from the base
# revision): a skillci.yml in the workspace (the pull request's) is not read.
printf 'gate: {pass_rate_drop_points: 100, alpha: 1e-10}\n' > "$T/skillci.yml"
run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" "$T/shard3.json" --json "$T/m3.json" \
	--markdown "$T/m3.md" --junit "$T/m3.xml" --html "$T/m3"
expect_exit 1 "merge ignores the workspace's skillci.yml (the pull request's)"
rm -f "$T/skillci.yml"
check "each shard records the gate it ran with" python3 -c "
import json; g = json.load(open('$T/shard1.json'))['run']['trust']['gate']
assert g['pass_rate_drop_points'] == 0 and g['regression_points'] == 15 and g['require_lift'] is True, g"
python3 -c "
import json
for k in (1, 2, 3):
    a = json.load(open('$T/shard%d.json' % k))
    # a drop up to 60 points is none, one of 90 must be caught: the
    # 50-point drop is ruled out as a drop of 90
    a['run']['trust']['gate']['pass_rate_drop_points'] = 60
    a['run']['trust']['gate']['regression_points'] = 90
    json.dump(a, open('$T/g%d.json' % k, 'w'))
    if k == 3:
        a['run']['trust']['gate']['pass_rate_drop_points'] = 70
        json.dump(a, open('$T/gx3.json', 'w'))"
resign "$T/g1.json" "$T/g2.json" "$T/g3.json" "$T/gx3.json"
run $SKILLCI merge "$T/g1.json" "$T/g2.json" "$T/g3.json" --json "$T/m4.json" \
	--markdown "$T/m4.md" --junit "$T/m4.xml" --html "$T/m4"
expect_exit 0 "merge applies the gate the shards recorded"
run $SKILLCI merge "$T/g1.json" "$T/g2.json" "$T/gx3.json" --json "$T/x.json" --report-dir "$T/rd-merge"
expect_exit 2 "shards that ran with different gates are refused"
expect_err_contains "different gate thresholds" "and the message says so"

# --report-dir puts every report not named one by one in one folder (made
# as needed); a report named on its own goes where it is named.
run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" "$T/shard3.json" --report-dir "$T/rd/out" \
	--markdown "$T/rd-own.md"
expect_exit 1 "merge --report-dir renders the same verdict"
check "--report-dir holds the JUnit, JSON and HTML reports; --markdown went to its own path" sh -c "
test -f '$T/rd/out/junit.xml' && test -f '$T/rd/out/results.json' && test -f '$T/rd/out/report.html' &&
test -f '$T/rd-own.md' && test ! -e '$T/rd/out/report.md'"

printf 'gate:\n  pass_rate_drop_points: 60\n  regression_points: 90\n' > "$T/lenient.yml"
run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" "$T/shard3.json" --config "$T/lenient.yml" \
	--json "$T/m2.json" --markdown "$T/m2.md" --junit "$T/m2.xml" --html "$T/m2"
expect_exit 0 "merge takes the gate thresholds from --config"

# A unit moved into another shard's file (a sequential run splits by
# skill: the one shard that holds the skill's units gives one away).
python3 -c "
import json
sh = [json.load(open('$T/shard%d.json' % k)) for k in (1, 2, 3)]
src = [k for k in range(3) if sh[k]['units']][0]
dst = (src + 1) % 3
sh[dst]['units'].append(sh[src]['units'].pop())
for k in range(3):
    json.dump(sh[k], open('$T/moved%d.json' % (k + 1), 'w'))"
resign "$T/moved1.json" "$T/moved2.json" "$T/moved3.json"
run $SKILLCI merge "$T/moved1.json" "$T/moved2.json" "$T/moved3.json" --json "$T/x.json" --report-dir "$T/rd-merge"
expect_exit 2 "a unit in the wrong shard file is refused"
expect_err_contains "belongs to shard" "and the message says where it belongs"

# An interrupted shard.
python3 -c "
import json
a = json.load(open('$T/shard3.json'))
a['run']['incomplete_reason'] = 'interrupted by SIGTERM: 1 of 4 units evaluated'
json.dump(a, open('$T/cut3.json', 'w'))"
resign "$T/cut3.json"
run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" "$T/cut3.json" --json "$T/x.json" --report-dir "$T/rd-merge"
expect_exit 2 "an interrupted shard is refused"
expect_err_contains "rerun that shard" "and says what to do"

# Shards that ran on another GPU or driver, or other pinned fixtures, do not
# compare: refused by name. The same GPU everywhere is kept in the merge.
python3 -c "
import json
for k in (1, 2, 3):
    a = json.load(open('$T/shard%d.json' % k))
    a['run']['gpu'] = {'name': 'NVIDIA H200', 'driver': '13.0', 'arch': 'sm_90', 'cc': None}
    a['run']['fixtures_lock'] = 'ab' * 32
    if k == 3:
        json.dump(a, open('$T/lock3.json', 'w'))
        a['run']['fixtures_lock'] = 'cd' * 32
        json.dump(a, open('$T/otherlock3.json', 'w'))
        a['run']['fixtures_lock'] = 'ab' * 32
        a['run']['gpu']['driver'] = '12.8'
        json.dump(a, open('$T/othergpu3.json', 'w'))
    else:
        json.dump(a, open('$T/lock%d.json' % k, 'w'))"
resign "$T"/lock?.json "$T/otherlock3.json" "$T/othergpu3.json"
run $SKILLCI merge "$T/lock1.json" "$T/lock2.json" "$T/lock3.json" --json "$T/gpu.json" --report-dir "$T/rd-merge"
expect_exit 1 "shards on one GPU with one fixtures.lock merge"
check "the merged run keeps the GPU and the fixtures lock" python3 -c "
import json; r = json.load(open('$T/gpu.json'))['run']
assert r['gpu']['name'] == 'NVIDIA H200' and r['fixtures_lock'] == 'ab' * 32, r"
run $SKILLCI merge "$T/lock1.json" "$T/lock2.json" "$T/otherlock3.json" --json "$T/x.json" --report-dir "$T/rd-merge"
expect_exit 2 "shards with other pinned fixtures are refused"
expect_err_contains "different fixtures" "and the message says why"
run $SKILLCI merge "$T/lock1.json" "$T/lock2.json" "$T/othergpu3.json" --json "$T/x.json" --report-dir "$T/rd-merge"
expect_exit 2 "shards on another driver are refused"
expect_err_contains "driver 12.8" "and the message names it"

# Another plan: the same PR with two runs per test.
run $RUN --runs 2 --shard 3/3 --store "$T/other.db" --json "$T/other3.json" \
	--markdown "$T/o.md" --junit "$T/o.xml" --html "$T/o"
run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" "$T/other3.json" --json "$T/x.json" --report-dir "$T/rd-merge"
expect_exit 2 "a shard of another plan is refused"
expect_err_contains "another plan" "and the message says so"

run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" "$T/shard3.json" "$T/shard3.json" --json "$T/x.json" --report-dir "$T/rd-merge"
expect_exit 2 "more files than shards is refused"
run $SKILLCI merge "$T/nowhere.json" --json "$T/x.json" --report-dir "$T/rd-merge"
expect_exit 2 "a missing file is bad input"
run $SKILLCI merge
expect_exit 2 "no file is bad usage"
run $SKILLCI merge --help
expect_exit 0 "--help"

done_testing
