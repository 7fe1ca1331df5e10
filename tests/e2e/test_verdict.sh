# The verdict decides, and every surface tells the same story
# (docs/run.md, "The gate"; docs/reports.md, "One verdict"): skillci run at
# the default configuration against the fake model server, one pull
# request per case, each a path that once read green without evidence:
#
#   truncated   the head's skill makes the student ramble: 4 of 10 tests cut
#               at the output limit: failed tests of the head, a drop, red
#   too-long    the head's prompt is refused (400 "prompt is too long"):
#               an outcome of the head, red
#   baseline    a typo fix whose no-skill baseline errs on every test: the
#               baseline decides nothing for a modified skill; green, not 3
#   worse       an added skill that passes 1 of 10 where no skill passes 9:
#               shown worse than no skill, red
#   impossible  an added skill whose one failing test nobody passes, with or
#               without it: that test tells nothing; the rest no skill
#               passes too: discrimination fails
#   label       a test that passed 2 of 3 runs at base and 0 of 3 at head is
#               neither "regressed" nor "already failing": its runs are said
#   cap         a flip-flopping suite under a cap of 2 runs: unverified,
#               never green; accepted by the trusted config, exit 0 but still
#               "unverified"
#
# For each, agree() holds the exit code, the results' verdict, the GitHub
# outputs, the JUnit (tests/e2e/junit_gate.py, after every run), the
# Markdown's headline and the terminal's last line to one verdict.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

cat > "$T/script.json" <<'EOF'
{
  "rules": [
    {"match": {"system": "RAMBLE", "contains": "q01?"}, "reply": {"text": "ok-v and then on and on", "stop": "max_tokens", "usage": {"input": 50, "output": 4096}}},
    {"match": {"system": "RAMBLE", "contains": "q02?"}, "reply": {"text": "ok-v and then on and on", "stop": "max_tokens", "usage": {"input": 50, "output": 4096}}},
    {"match": {"system": "RAMBLE", "contains": "q03?"}, "reply": {"text": "ok-v and then on and on", "stop": "max_tokens", "usage": {"input": 50, "output": 4096}}},
    {"match": {"system": "RAMBLE", "contains": "q04?"}, "reply": {"text": "ok-v and then on and on", "stop": "max_tokens", "usage": {"input": 50, "output": 4096}}},
    {"match": {"system": "HUGE"}, "reply": {"status": 400, "error_type": "invalid_request_error", "error_message": "prompt is too long: 250000 tokens > 200000 maximum"}},
    {"match": {"system": "WORSE", "contains": "q0"}, "reply": {"text": "no idea", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "FLIP", "contains": "q01?", "nth": [1, 2, 4, 5]}, "reply": {"text": "ok-v", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "FLIP", "contains": "q01?"}, "reply": {"text": "no idea", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "LABEL-BASE", "contains": "q01?", "nth": [1, 2]}, "reply": {"text": "ok-v", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "LABEL-BASE", "contains": "q01?"}, "reply": {"text": "no idea", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "LABEL-HEAD", "contains": "q01?"}, "reply": {"text": "no idea", "usage": {"input": 50, "output": 5}}},
    {"match": {"contains": "q99?"}, "reply": {"text": "no idea", "usage": {"input": 50, "output": 5}}},
    {"match": {"system": "SKILL-"}, "reply": {"text": "ok-v", "usage": {"input": 50, "output": 5}}},
    {"match": {"contains": "q10?"}, "reply": {"text": "no idea", "usage": {"input": 50, "output": 5}}},
    {"match": {"contains": "down:"}, "reply": {"status": 503, "error_type": "overloaded_error", "error_message": "Overloaded"}}
  ],
  "default": {"text": "ok-v", "usage": {"input": 50, "output": 5}}
}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-verdict-secret
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY
M=anthropic.fake-student
cd "$T" || exit 1

# repo DIR BASE_TEXT HEAD_TEXT NTESTS [CONFIG [PREFIX]]: a skill "v" whose
# SKILL.md body says BASE_TEXT at the base commit and HEAD_TEXT at the
# head (BASE_TEXT "-": the skill is added at head); tests PREFIXq01? ...
repo() {
	mkdir -p "$1/skills/v"
	git -C "$1" init -q -b main
	git -C "$1" config user.email ci@example.com
	git -C "$1" config user.name ci
	printf '%s\n' "${5:-version: 1}" > "$1/skillci.yml"
	if [ "$2" = - ]; then
		echo "# an empty base" > "$1/README.md"
	else
		printf -- '---\nname: v\ndescription: Answers v questions.\n---\n# v\n\n%s: answer ok-v.\n' \
			"$2" > "$1/skills/v/SKILL.md"
		tests_of "$1" "$4" "${6:-}"
	fi
	git -C "$1" add -A && git -C "$1" commit -q -m base
	printf -- '---\nname: v\ndescription: Answers v questions.\n---\n# v\n\n%s: answer ok-v.\n' \
		"$3" > "$1/skills/v/SKILL.md"
	[ "$2" = - ] && tests_of "$1" "$4" "${6:-}"
	git -C "$1" add -A && git -C "$1" commit -q -m head
}
tests_of() {
	python3 -c "
import json
json.dump({'tests': [{'input': '$3q%02d?' % i, 'expected': {'contains': ['ok-v']}} for i in range(1, $2 + 1)]},
          open('$1/skills/v/skill_meta.json', 'w'))"
}

# check_run NAME REPO [ARGS...]: skillci run with GitHub's outputs and summary
check_run() {
	_name=$1 _repo=$2
	shift 2
	rm -rf "$T/$_name-out"
	: > "$T/$_name.outputs"
	run env GITHUB_ACTIONS=true GITHUB_OUTPUT="$T/$_name.outputs" \
		GITHUB_STEP_SUMMARY="$T/$_name.summary" \
		$SKILLCI run --repo "$_repo" --base HEAD~1 --head HEAD -m $M --no-cache --retries 0 \
		--store "$T/$_name.db" --report-dir "$T/$_name-out" "$@"
}

# agree NAME VERDICT: the results, the outputs, the Markdown headline and
# the terminal's verdict line all say VERDICT (pass, fail, unverified,
# error); the exit code agrees (junit_gate.py holds the JUnit to both)
agree() {
	check "$1: every surface says $2" python3 - "$T/$1-out" "$T/$1.outputs" "$2" "$RC" "$T/.out" <<'PY'
import json, sys
out, outputs, want, rc, term = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
r = json.load(open(out + "/results.json"))
g = r["gate"]
problems = []
if g["verdict"] != want:
    problems.append("results verdict %s" % g["verdict"])
o = dict(l.split("=", 1) for l in open(outputs).read().splitlines() if "=" in l and "<<" not in l)
if o.get("verdict") != want:
    problems.append("outputs verdict=%s" % o.get("verdict"))
if o.get("passed") != ("true" if g["passed"] else "false"):
    problems.append("outputs passed=%s, results %s" % (o.get("passed"), g["passed"]))
if o.get("exit_code") != str(rc):
    problems.append("outputs exit_code=%s, exit %d" % (o.get("exit_code"), rc))
head = {"pass": "gate passed", "fail": "gate failed", "unverified": "gate unverified",
        "error": "could not check"}[want]
icon = {"pass": "✅", "fail": "❌", "unverified": "⚠️", "error": "🛑"}[want]
md = open(out + "/report.md").read()
line = [l for l in md.splitlines() if l.startswith(icon + " **")]
if not line or head not in line[0]:
    problems.append("Markdown headline %r" % (line[:1],))
t = [l for l in open(term).read().splitlines() if head in l]
if not t:
    problems.append("the terminal never says %r" % head)
want_rc = {"pass": (0,), "fail": (1,), "unverified": (0, 1), "error": (3,)}[want]
if rc not in want_rc:
    problems.append("exit %d" % rc)
if want == "unverified" and (rc == 0) != g["passed"]:
    problems.append("unverified: exit %d but passed %s" % (rc, g["passed"]))
if problems:
    print("; ".join(problems)); sys.exit(1)
PY
}

# field OUT JSONPATH...: a value of the results, as python sees it
field() {
	python3 -c "
import json, sys
r = json.load(open('$T/$1-out/results.json'))
print(eval(sys.argv[1], {'r': r}))" "$2"
}

# ---- truncated answers at head are failed tests of the head ----------------
repo "$T/trunc" SKILL-PLAIN SKILL-RAMBLE 10
check_run trunc "$T/trunc"
expect_exit 1 "truncated: 4 tests cut at the output limit at head fail the gate"
agree trunc fail
check "truncated: the cut answers are failures of the head, class truncated, not errors" \
	test "$(field trunc "sum(1 for u in r['units'] if u['variant'] == 'head' and u['error_class'] == 'truncated' and u['verdict'] == 'fail') > 0 and r['gate']['error_share'] == 0")" = True
check "truncated: the pass-rate check failed on a drop" \
	test "$(field trunc "[c['rule'] for c in r['gate']['checks'] if c['check'] == 'pass_rate'][0]")" = pass_rate_drop
check "truncated: the Markdown names the output limit in the failed tests" \
	grep -q "cut at the token limit" "$T/trunc-out/report.md"

# ---- a prompt refused as too long is the head's outcome ---------------------
repo "$T/long" SKILL-PLAIN SKILL-HUGE 10
check_run long "$T/long"
expect_exit 1 "too long: a head whose prompt the model refuses fails the gate"
agree long fail
check "too long: the refusals are failures, class prompt_too_long" \
	test "$(field long "all(u['verdict'] == 'fail' and u['error_class'] == 'prompt_too_long' for u in r['units'] if u['variant'] == 'head')")" = True
check "too long: no infrastructure error: a refusal of the prompt is not retried or counted" \
	test "$(field long "r['gate']['error_share'] == 0")" = True

# ---- the no-skill baseline of a modified skill decides nothing -------------
repo "$T/basel" SKILL-TYPO SKILL-TYPOFIX 10 "version: 1" "down:"
check_run basel "$T/basel"
expect_exit 0 "baseline: a typo fix whose baseline errs everywhere passes"
agree basel pass
check "baseline: the baseline ran one round only (10 units)" \
	test "$(field basel "sum(1 for u in r['units'] if u['variant'] == 'baseline')")" = 10
check "baseline: its errors are not counted against the run" \
	test "$(field basel "r['gate']['error_share'] == 0 and sum(u['verdict'] == 'error' for u in r['units']) == 9")" = True
check "baseline: the errors check says they are not counted" \
	test "$(field basel "[c['status'] + ':' + str('not counted' in c['message']) for c in r['gate']['checks'] if c['check'] == 'errors'][0]")" = passed:True

# ---- an added skill worse than no skill fails ------------------------------
repo "$T/worse" - SKILL-WORSE 10
check_run worse "$T/worse"
expect_exit 1 "worse: an added skill below no skill fails"
agree worse fail
check "worse: the lift check failed on a drop below no skill" \
	test "$(field worse "[c['rule'] for c in r['gate']['checks'] if c['check'] == 'lift'][0]")" = new_skill_no_better

# ---- a test nobody passes discriminates nothing ------------------------------
repo "$T/imposs" - SKILL-IMPOSSIBLE 9
python3 -c "
import json
p = '$T/imposs/skills/v/skill_meta.json'
d = json.load(open(p))
d['tests'].append({'input': 'q99?', 'expected': {'contains': ['ok-v']}})
json.dump(d, open(p, 'w'))"
git -C "$T/imposs" commit -q -a --amend -m head
check_run imposs "$T/imposs"
expect_exit 1 "impossible: a test nobody passes does not make the others discriminate"
agree imposs fail
check "impossible: discrimination failed, naming the test left out" \
	test "$(field imposs "[c['status'] + ':' + str('1 test no answer passed' in c['message']) for c in r['gate']['checks'] if c['check'] == 'discrimination'][0]")" = failed:True

# ---- per-test labels from the test's own runs ------------------------------
repo "$T/label" SKILL-LABEL-BASE SKILL-LABEL-HEAD 10
check_run label "$T/label" --runs 3
check "label: the test that went 2/3 -> 0/3 is said as its runs were" \
	grep -q "base 2/3 → head 0/3" "$T/label-out/report.md"
check "label: it is not called already failing" \
	sh -c '! grep -q "already failing, base passed 2" "$1"' sh "$T/label-out/report.md"
check "label: the JUnit says what the runs were, not already failing" python3 -c "
import xml.etree.ElementTree as ET
root = ET.parse('$T/label-out/junit.xml').getroot()
q1 = [c for c in root.iter('testcase') if 'tests[1]' in c.get('name', '')]
assert q1, 'no testcase of tests[1]'
for c in q1:
    for e in list(c):
        assert 'already failing' not in (e.get('message') or ''), e.get('message')
"

# ---- a check the cap stops is unverified, never green -----------------------
repo "$T/cap" SKILL-FLIP SKILL-FLIP2 3 "gate: {max_runs: 2}"
check_run cap "$T/cap"
expect_exit 1 "cap: a check the cap stops fails as unverified by default"
agree cap unverified
check "cap: the JUnit has a failure of type unverified" \
	grep -q 'type="unverified"' "$T/cap-out/junit.xml"
check "cap: the outputs count it" grep -q "^unverified=1$" "$T/cap.outputs"
check "cap: the annotation is a warning that says so" \
	grep -q "could not be verified" "$T/.out"
repo "$T/capok" SKILL-FLIP SKILL-FLIP2 3 "gate: {max_runs: 2, accept_unverified: true}"
check_run capok "$T/capok"
expect_exit 0 "cap accepted: the trusted config accepts unverified checks: exit 0"
agree capok unverified
check "cap accepted: the Markdown says accepted, not a pass" \
	grep -q "accepted by the trusted config, not a pass" "$T/capok-out/report.md"

done_testing
