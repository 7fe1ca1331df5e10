# The pull request cannot judge itself (docs/security.md, "Trust boundary").
#
# Each attack is a two-commit repository: a reviewed base (its skillci.yml,
# its skill "alpha" that the fake model answers right, its tests) and a
# malicious head that breaks the skill (the fake answers it wrong) and
# tries one way to pass anyway. skillci runs as action.yml runs it: in the
# checked-out head (--repo .), reports under .skillci/report, no -m. The
# run must end with the verdict and exit code of the base's configuration
# and tests (exit 1: alpha regressed), say what the head tried, and leave
# every file outside the workspace as it was.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_TOKEN \
	SKILLCI_RUNNER_KEY SKILLCI_CACHE_KEY
OUTSIDE="$T/outside"  # what attacks aim at; must never change
mkdir -p "$HOME" "$OUTSIDE"
# the runner's own key exists before the first check (every results file
# a run writes is signed under it, docs/security.md)
mkdir -p "$HOME/.config/skillci" && chmod 700 "$HOME/.config/skillci"
python3 -c 'import os; print(os.urandom(32).hex())' > "$HOME/.config/skillci/runner.key"
chmod 600 "$HOME/.config/skillci/runner.key"
echo "canary: an unrelated file" > "$OUTSIDE/junit.xml"
echo "canary" > "$OUTSIDE/notes.txt"

cat > "$T/script.json" <<'EOF'
{"rules": [
  {"match": {"system": "ALPHA-GOOD"}, "reply": {"text": "ok-alpha", "usage": {"input": 100, "output": 10}}},
  {"match": {"system": "ALPHA-ERR"}, "reply": {"status": 400, "error_message": "bad request \u001b]0;owned\u0007\n::error::fake-failure \u001b[31mred"}},
  {"match": {"system": "NUL-SKILL"}, "reply": {"text": "before\u0000 after-nul", "usage": {"input": 10, "output": 5}}}
 ],
 "default": {"text": "no idea", "usage": {"input": 100, "output": 10}}}
EOF
# what an attacker's own runner would answer: everything right
echo '{"default": {"text": "ok-alpha", "usage": {"input": 100, "output": 10}}}' > "$T/all-right.json"
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-trust-secret

# state of everything outside the workspaces: the canary folder and HOME
snapshot() { (cd "$T" && find outside home -print0 | sort -z | xargs -0 ls -ld --time-style=+%s \
	&& find outside home -type f -print0 | sort -z | xargs -0 -r sha256sum) 2>&1; }
BEFORE=$(snapshot)
outside_unchanged() {  # outside_unchanged NAME
	_now=$(snapshot)
	if [ "$_now" = "$BEFORE" ]; then _tap ok "$1"
	else _tap not-ok "$1" "$(printf '%s\n' "$BEFORE" > "$T/.b"; printf '%s\n' "$_now" | diff "$T/.b" -)"; fi
}

BASE_CONFIG='version: 1
models: [anthropic.fake-student]
runs: 1
gate: {pass_rate_drop_points: 5, alpha: 0.05, require_lift: true, error_share: 0.1}'

# new_repo NAME [CONFIG]: $W is a repository with the base commit ($BASE):
# the config and skills/alpha (marker ALPHA-GOOD, 4 tests wanting ok-alpha)
new_repo() {
	W="$T/$1"
	mkdir -p "$W/skills/alpha"
	printf '%s\n' "${2:-$BASE_CONFIG}" > "$W/skillci.yml"
	alpha_skill ALPHA-GOOD
	python3 - "$W/skills/alpha/skill_meta.json" <<'EOF'
import json, sys
json.dump({"tests": [{"input": "question %d about alpha" % i, "expected": {"contains": ["ok-alpha"]}}
                     for i in range(4)]}, open(sys.argv[1], "w"), indent=1)
EOF
	git -C "$W" init -q -b main
	BASE=$(commit base)
}
alpha_skill() {  # alpha_skill MARKER
	printf -- '---\nname: alpha\ndescription: Answers alpha questions.\n---\n# alpha\n\n%s: answer with ok-alpha.\n' \
		"$1" > "$W/skills/alpha/SKILL.md"
}
commit() { git -C "$W" add -A && git -C "$W" -c user.email=ci@example.com -c user.name=ci \
	commit -q -m "$1" && git -C "$W" rev-parse HEAD; }
# pr MESSAGE: commits the head (the skill broken besides the attack) and
# leaves it checked out, as actions/checkout does
pr() { HEADREV=$(commit "$1"); }

# run_pr [ARGS...]: skillci run exactly as action.yml runs it, in $W
run_pr() {
	fake_reset
	run sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" run --repo . --jobs 1 \
		--junit .skillci/report/junit.xml --markdown .skillci/report/report.md \
		--html .skillci/report --json .skillci/report/results.json \
		--base "$BASE" --head "$HEADREV" "$@"
}
results() { python3 -c "import json, sys; r = json.load(open('$W/.skillci/report/results.json')); $1"; }
# base_verdict NAME: exit 1 and alpha judged base 100% -> head 0% on the base's tests
base_verdict() {
	expect_exit 1 "$1: the verdict is the base's: alpha regressed (exit 1)"
	expect_err_contains "gate: skills/alpha" "$1: the gate names alpha"
	check "$1: base 100% and head 0% on the base's 4 tests" results "
a = {(x['variant']): (x['pass_rate'], x['n']) for x in r['aggregates'] if x['skill'] == 'skills/alpha'}
# the same runs of the base's 4 tests at both sides (rounds until the drop is shown)
assert a['base'][0] == 1.0 and a['head'][0] == 0.0 and a['base'][1] == a['head'][1], a
assert a['base'][1] % 4 == 0 and a['base'][1] >= 4, a
assert not r['gate']['passed'] and r['gate']['exit_code'] == 1, r['gate']"
	outside_unchanged "$1: no file outside the workspace changed"
}

# ---- 1. Set the gate ---------------------------------------------------------
new_repo gate
alpha_skill ALPHA-BROKEN
cat > "$W/skillci.yml" <<'EOF'
version: 1
models: [anthropic.fake-student]
runs: 1
gate: {pass_rate_drop_points: 100, alpha: 1e-10, require_lift: false, error_share: 1}
EOF
pr "loosen the gate"
run_pr
base_verdict "gate"
expect_err_contains "pass_rate" "gate: the failing rule is the base's pass-rate rule"
expect_out_contains "NOT applied" "gate: the terminal says the head's configuration was not applied"
expect_out_contains "gate.pass_rate_drop_points: 5 -> 100" "gate: the terminal names each change"
check "gate: results.json lists the head's changes, none applied" results "
t = r['run']['trust']
c = {x['key']: (x['base'], x['head']) for x in t['head_config_changes']}
assert c['gate.pass_rate_drop_points'] == ('5', '100') and c['gate.alpha'] == ('0.05', '1e-10'), c
assert c['gate.require_lift'] == ('true', 'false') and c['gate.error_share'] == ('0.1', '1'), c
assert t['head_config_applied'] is False and 'base revision' in t['config'], t"
check "gate: the Markdown report says the changes were not applied" python3 -c "
import sys
md = open(sys.argv[1]).read().replace(chr(92), '')
line = [l for l in md.splitlines() if 'its changes were not applied' in l][0]
assert 'gate.pass_rate_drop_points</code> <code>5</code> → <code>100</code>' in line, line" \
	"$W/.skillci/report/report.md"
check "gate: the JUnit says so on the suites" \
	grep -q 'name="head_config_not_applied" value="[^"]*gate.pass_rate_drop_points: 5 -&gt; 100' \
	"$W/.skillci/report/junit.xml"
# a PR that only edits skillci.yml changes no skill: nothing is evaluated
new_repo gateonly
sed -i 's/pass_rate_drop_points: 5/pass_rate_drop_points: 100/' "$W/skillci.yml"
pr "only the config"
run_pr
expect_exit 0 "gate: a PR changing only skillci.yml evaluates nothing (its config is not applied)"
check "gate: and the report still lists what it would change" results "
assert [c['key'] for c in r['run']['trust']['head_config_changes']] == ['gate.pass_rate_drop_points']
assert r['units'] == [], len(r['units'])"

# ---- 2. Plant answers (response cache and results store) --------------------
new_repo plant
alpha_skill ALPHA-BROKEN
# the attacker's own runner (its own key) answers everything right and
# fills the workspace's default cache and store; the PR commits them,
# plus a copy of the cache where its config points
fake_script "$T/all-right.json"
(cd "$W" && git add -A && git -c user.email=a@x -c user.name=a commit -q -m wip &&
	SKILLCI_RUNNER_KEY=attacker-runner-key-0123456789abcdef0123 SKILLCI_RUNNER_KEY_FILE=/nonexistent \
	"$SKILLCI" run --repo . --base "$BASE" --head HEAD > /dev/null 2>&1)
fake_script "$T/script.json"
cp -R "$W/.skillci/cache" "$W/.planted"
rm -rf "$W/.skillci/report" "$W/.skillci/work"
printf 'cache: {dir: .planted}\nstore: .skillci/results.db\n' >> "$W/skillci.yml"
check "plant: the PR commits cache entries and a results store" \
	test -n "$(find "$W/.planted" "$W/.skillci/cache" -name '*.json' | head -n 1)" -a -s "$W/.skillci/results.db"
git -C "$W" reset -q --soft "$BASE"
pr "planted answers"
run_pr
# the attacker's units name the attacker's key: another runner's, refused
# loudly before any request, never replaced silently (docs/security.md)
expect_exit 2 "plant: units signed by the attacker's runner key are refused (exit 2)"
expect_err_contains "is signed by runner key" "plant: the error names the key that signed them"
expect_err_contains "SKILLCI_TRUSTED_KEYS" "plant: and what to set"
check "plant: no request was made" test "$(fake_stat requests)" -eq 0
outside_unchanged "plant: no file outside the workspace changed"
# the same units with the key's name cut off: forged rows, not reused
python3 - "$W/.skillci/results.db" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("update units set mac = substr(mac, 21) where mac like 'k1:%'")
db.commit()
EOF
run_pr
base_verdict "plant"
check "plant: no planted answer or unit was taken: every unit asked the model" \
	test "$(fake_stat requests)" -eq 12
check "plant: 0 cache hits, 0 units reused" results "
assert r['totals']['cache_hits'] == 0 and r['totals']['reused'] == 0, r['totals']"
check "plant: the report lists the planted cache folder as not applied" results "
assert 'cache.dir' in [c['key'] for c in r['run']['trust']['head_config_changes']]"

# ---- 3. Pick the oracle ------------------------------------------------------
new_repo oracle
alpha_skill ALPHA-BROKEN
sed -i 's/models: \[anthropic.fake-student\]/models: [oracle.self]/' "$W/skillci.yml"
pr "the oracle answers"
run_pr
base_verdict "oracle"
check "oracle: the model is the base's, the oracle not used" results "
assert r['run']['models'] == ['anthropic.fake-student'] and not r['run']['oracle'], r['run']['models']
c = {x['key']: x['head'] for x in r['run']['trust']['head_config_changes']}
assert c['models'] == '[oracle.self]', c"
# even the base's own config cannot pick the oracle for a PR check
new_repo oraclebase "$(printf '%s\n' "$BASE_CONFIG" | sed 's/models: .*/models: [oracle.self, anthropic.fake-student]/')"
alpha_skill ALPHA-BROKEN
pr "a PR on a repository whose config lists the oracle"
run_pr
base_verdict "oracle in the base's config"
expect_err_contains "the oracle self-test runs only when named with -m" "oracle: left out with a message"
check "oracle: the note is in the results" results "
assert any('oracle' in n for n in r['run']['trust']['notes']), r['run']['trust']"
run_pr -m oracle.self
check "oracle: named with -m on the command line it runs (the demo), labelled" results "
assert r['run']['oracle'] and r['run']['models'] == ['oracle.self']"

# ---- 4. Break the tests to skip them -----------------------------------------
new_repo breaktests
alpha_skill ALPHA-BROKEN
printf '{"tests": [' > "$W/skills/alpha/skill_meta.json"
pr "broken test file"
run_pr
expect_exit 1 "breaktests: a head test file that cannot be read fails the gate (exit 1)"
expect_err_contains "[skill_invalid]" "breaktests: as skill_invalid"
expect_err_contains "skills/alpha/skill_meta.json" "breaktests: the finding names the repository path"
expect_err_lacks ".skillci/work" "breaktests: no work-folder path in any message"
check "breaktests: not reported as untested" results "
s = [s for s in r['skills'] if s['path'] == 'skills/alpha'][0]
assert not s['untested'] and not s['gate']['passed'], s"
outside_unchanged "breaktests: no file outside the workspace changed"

# ---- 5. Rewrite the tests ----------------------------------------------------
new_repo rewrite
alpha_skill ALPHA-BROKEN
python3 - "$W/skills/alpha/skill_meta.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
for t in m["tests"]:
    t["expected"]["contains"] = ["no"]   # what the broken skill's answer holds
json.dump(m, open(sys.argv[1], "w"), indent=1)
EOF
pr "weaker tests"
run_pr
base_verdict "rewrite"
check "rewrite: the head's changed tests ran beside the verdict (4 PR tests, all pass)" results "
u = [u for u in r['units'] if u['variant'] == 'head_tests']
assert len(u) == 4 and all(x['verdict'] == 'pass' for x in u), u
s = [s for s in r['skills'] if s['path'] == 'skills/alpha'][0]
assert s['test_changes'] == {'added': 0, 'changed': 4, 'removed': 0}, s"
check "rewrite: the Markdown says the PR edits tests" \
	grep -q 'This pull request edits tests.*' "$W/.skillci/report/report.md"
expect_out_contains "the pull request edits its tests (4 changed" "rewrite: the terminal says so"
check "rewrite: the JUnit labels the skill and its PR tests decide nothing" python3 -c "
import xml.etree.ElementTree as ET
root = ET.parse('$W/.skillci/report/junit.xml').getroot()
props = [p.get('value') for p in root.iter('property') if p.get('name') == 'pr_edits_tests']
assert props and '4 changed' in props[0], props
assert 'head_tests' not in ET.tostring(root, encoding='unicode'), 'a PR test in the JUnit'
fails = sorted(c.get('name') for c in root.iter('testcase') if c.find('failure') is not None)
# the pass-rate check and the base's four tests the head now fails
assert fails[0] == 'gate: pass rate, base -> head' and len(fails) == 5, fails"

# the head swaps its text tests for a kernel test (compiled only, no GPU
# here) and edits a fixture: judged on the base's text tests and fixtures
new_repo swapkernel
cp -R "$SKILLCI_ROOT/fixtures" "$W/fixtures"
BASE=$(commit "fixtures")
alpha_skill ALPHA-BROKEN
echo '{"tests": [{"input": "Write the softmax kernel.", "fixture": "softmax"}]}' > "$W/skills/alpha/skill_meta.json"
echo "Any answer is right." >> "$W/fixtures/softmax/prompt.md"
pr "swap to a kernel test"
run_pr
base_verdict "swapkernel"
check "swapkernel: the kernel test is a PR test, the fixture change is noted" results "
assert [u['variant'] for u in r['units'] if u['kind'] == 'kernel'] == ['head_tests'], r['units']
assert any('fixtures' in n for n in r['run']['trust']['notes']), r['run']['trust']"

# a new fixture in the PR with a test that uses it: the fixture is not the
# base's, so the test is not run (and noted), the run goes on
new_repo newfixture
cp -R "$SKILLCI_ROOT/fixtures" "$W/fixtures"
BASE=$(commit "fixtures")
alpha_skill ALPHA-BROKEN
cp -R "$W/fixtures/softmax" "$W/fixtures/mine"
python3 - "$W/skills/alpha/skill_meta.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["tests"].append({"input": "Write my kernel.", "fixture": "mine"})
json.dump(m, open(sys.argv[1], "w"), indent=1)
EOF
pr "a new fixture and a test on it"
run_pr
base_verdict "newfixture"
check "newfixture: the test on the PR's own fixture is left out with a note" results "
n = r['run']['trust']['notes']
assert any(\"uses fixture 'mine'\" in x and 'not run' in x for x in n), n
assert not [u for u in r['units'] if u['kind'] == 'kernel'], r['units']"

# a head with no result where the base had one fails (here: every head
# unit is an error, within the base's error_share)
new_repo noresult "$(printf '%s\n' "$BASE_CONFIG" | sed 's/error_share: 0.1/error_share: 0.5/')"
alpha_skill ALPHA-ERR
pr "errors only"
run_pr
expect_exit 1 "noresult: a head with no result where the base had one fails (exit 1)"
expect_err_contains "[head_no_result]" "noresult: the rule says why"
outside_unchanged "noresult: no file outside the workspace changed"

# ---- 6. Write files anywhere --------------------------------------------------
new_repo anywhere
alpha_skill ALPHA-BROKEN
cat >> "$W/skillci.yml" <<EOF
reports: {junit: ../outside/junit.xml, markdown: $OUTSIDE/report.md}
store: ../outside/evil.db
cache: {dir: $OUTSIDE/cache}
EOF
pr "reports elsewhere"
run_pr
base_verdict "anywhere"
expect_file "$W/.skillci/report/junit.xml" "anywhere: the reports went where the workflow said"
# the base's own config cannot point outside either: an error naming the key
new_repo badbase "$(printf '%s\nstore: ../outside/evil.db\n' "$BASE_CONFIG")"
alpha_skill ALPHA-BROKEN
pr "any change"
run_pr
expect_exit 2 "badbase: a config path out of the workspace is a config error (exit 2)"
expect_err_contains "skillci.yml:5: error: 'store' must be a relative path inside the workspace" \
	"badbase: the error names the file, line and key"
outside_unchanged "badbase: no file outside the workspace changed"
# a symbolic link the PR commits where the run writes
new_repo symlink
alpha_skill ALPHA-BROKEN
ln -s "$OUTSIDE" "$W/.skillci"
pr "a link out"
run_pr
expect_exit 2 "symlink: writing through a link out of the workspace is refused (exit 2)"
expect_err_contains "leads out of the workspace" "symlink: and says so"
outside_unchanged "symlink: no file outside the workspace changed"

# ---- 7. Spend the operator's money -------------------------------------------
new_repo money
alpha_skill ALPHA-BROKEN
cat > "$W/skillci.yml" <<'EOF'
version: 1
models: [anthropic.claude-opus-4-1, "openai.gpt-5?reasoning=high", anthropic.fake-student]
runs: 1000
max_turns: 100
concurrency: 10000
budget: {max_units: 10000000, max_requests: 10000000}
EOF
pr "run everything a thousand times"
run_pr
base_verdict "money"
expect_err_contains "budget: 12 units, at most 12 model requests" "money: the estimate is printed (the base's plan)"
check "money: 12 requests were made, as the base's config plans" test "$(fake_stat requests)" -eq 12
check "money: the head's runs, turns, concurrency and budget are listed, not applied" results "
k = [c['key'] for c in r['run']['trust']['head_config_changes']]
assert all(x in k for x in ('runs', 'max_turns', 'concurrency.total', 'models', 'budget.max_units')), k"
# the budget: a plan over it exits 2 before any request
new_repo budget "$(printf '%s\nbudget: {max_units: 5}\n' "$BASE_CONFIG")"
alpha_skill ALPHA-BROKEN
pr "any change"
run_pr
expect_exit 2 "budget: a plan over budget.max_units exits 2"
expect_err_contains "the plan has 12 units, more than the budget's 5 (budget.max_units)" \
	"budget: the error gives the numbers"
check "budget: no request was made (the fake's request count is 0)" test "$(fake_stat requests)" -eq 0
run_pr --max-units 100 --max-requests 3
expect_exit 2 "budget: --max-requests below the plan exits 2"
expect_err_contains "may make 12 model requests, more than the budget's 3" "budget: with the numbers"
check "budget: still no request" test "$(fake_stat requests)" -eq 0

# ---- 8. Write to the CI log ----------------------------------------------------
new_repo cilog "$(printf '%s\n' "$BASE_CONFIG" | sed 's/error_share: 0.1/error_share: 0.2/')"
alpha_skill ALPHA-ERR
EVIL=$(printf 'skills/evil\n::warning title=X::pwned')
mkdir -p "$W/$EVIL"
printf -- '---\nname: evil\ndescription: x\n---\n\033]0;title\007\n' > "$W/$EVIL/SKILL.md"
pr "a skill folder with a workflow command in its name"
export GITHUB_ACTIONS=true GITHUB_OUTPUT="$T/gh_output" GITHUB_STEP_SUMMARY="$T/gh_summary"
: > "$GITHUB_OUTPUT"; : > "$GITHUB_STEP_SUMMARY"
run_pr
cp "$T/.out" "$T/cilog1.out"; cp "$T/.err" "$T/cilog1.err"
check "cilog: the run ends (exit 1 or 3: errors over the base's share)" sh -c "test $RC -eq 1 || test $RC -eq 3"
expect_err_contains "first failure" "cilog: the server's error text is shown (escaped)"
check "cilog: no line starts a workflow command but skillci's own" python3 - "$T/cilog1.out" "$T/cilog1.err" <<'EOF'
import re, sys
ours = re.compile(r"::(group::|endgroup::|stop-commands::[0-9a-f]{32}$|[0-9a-f]{32}::$|error file=|warning file=|warning title=skillci::)")
for path in sys.argv[1:]:
    for line in open(path, encoding="utf-8", errors="replace"):
        s = line.lstrip(" \t\u00a0\ufeff")
        if s.startswith("::") and not ours.match(s):
            sys.exit("%s: %r" % (path, line))
EOF
check "cilog: no escape or bell byte reaches the log" sh -c \
	"! grep -q \"\$(printf '\\033')\" '$T/cilog1.out' '$T/cilog1.err' && ! grep -q \"\$(printf '\\007')\" '$T/cilog1.out' '$T/cilog1.err'"
check "cilog: the folder name and the server text are shown with escapes" sh -c \
	"grep -qF 'skills/evil\\n::warning title=X::pwned' '$T/cilog1.err' && grep -qF '\\x1b]0;owned\\x07\\n::error::fake-failure' '$T/cilog1.err'"
check "cilog: untrusted blocks are framed by stop-commands with a 32-digit token" python3 - "$T/cilog1.out" "$T/cilog1.err" <<'EOF'
import re, sys
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8", errors="replace").read()
    starts = re.findall(r"^::stop-commands::([0-9a-f]{32})$", text, re.M)
    ends = re.findall(r"^::([0-9a-f]{32})::$", text, re.M)
    assert starts and starts == ends, (path, starts, ends)
open(sys.argv[1] + ".token", "w").write(starts[0])
EOF
run_pr
check "cilog: the token is new for every run" sh -c \
	"test -s '$T/cilog1.out.token' && grep -q '^::stop-commands::' '$T/.err' && ! grep -q \"::stop-commands::\$(cat '$T/cilog1.out.token')\" '$T/.err' '$T/.out'"
outside_unchanged "cilog: no file outside the workspace changed"

# ---- 9. Take over the sticky comment -----------------------------------------
GTOKEN=ghs_trust_test_token
GDIR=$(mktemp -d "$T/gh.XXXXXX")
python3 "$SKILLCI_ROOT/tests/fakes/fake_github.py" --port-file "$GDIR/port" --log "$GDIR/log" \
	--token "$GTOKEN" > /dev/null 2>&1 &
GH_PID=$!
i=0; while [ ! -s "$GDIR/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
GH_URL="http://127.0.0.1:$(cat "$GDIR/port")"
trap 'kill $GH_PID 2>/dev/null; fake_stop; [ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT
curl -s -X POST -H 'Content-Type: application/json' "$GH_URL/_fake/plant" \
	-d '{"issue": 7, "login": "mallory", "body": "<!-- skillci-report -->\n## skillci report\n\n✅ **no regression.**"}' > /dev/null
printf '{"number": 7, "pull_request": {"number": 7}}' > "$T/event.json"
new_repo comment
alpha_skill ALPHA-BROKEN
pr "a planted sticky comment"
GITHUB_TOKEN=$GTOKEN GITHUB_REPOSITORY=example/skills GITHUB_EVENT_PATH="$T/event.json" \
	GITHUB_API_URL=$GH_URL run_pr --comment
base_verdict "comment"
check "comment: the planted comment is untouched, the verdict is in skillci's own" python3 -c "
import json, urllib.request
cs = json.load(urllib.request.urlopen('$GH_URL/_fake/comments'))
planted = [c for c in cs if c['user']['login'] == 'mallory']
ours = [c for c in cs if c['user']['login'] == 'github-actions[bot]']
assert len(planted) == 1 and planted[0]['body'].endswith('no regression.**'), planted
assert len(ours) == 1 and '❌' in ours[0]['body'], ours"
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY

# ---- smaller items -------------------------------------------------------------
new_repo small
alpha_skill ALPHA-BROKEN
pr "any change"
run_pr --store ''
expect_exit 2 "--store '' is a usage error"
expect_err_contains "option '--store' needs a value, not an empty string" "and says so"
run_pr --report-dir ''
expect_exit 2 "--report-dir '' is a usage error"
# '..' is followed before the link check: a store beside the workspace is
# the flag's own place, not "a symbolic link" (there is none)
run_pr --store ../small-beside.db --no-cache
base_verdict "store ../x.db"
expect_err_lacks "symbolic link" "--store ../x.db: no link is named where there is none"
check "--store ../x.db: the store is written beside the workspace" test -s "$T/small-beside.db"

# a read-only store and an unwritable report folder are found before the
# first request (as an unprivileged user: root may write anywhere). The
# user runs a copy of skillci in the test's folder: the checkout may lie
# below a folder only its owner can enter (mktemp -d makes them 0700).
as_user() {
	if [ "$(id -u)" -ne 0 ]; then "$@"; else setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; fi
}
UBIN="$T/unpriv-bin/skillci"
mkdir -p "$T/unpriv-bin" && cp "$SKILLCI" "$UBIN" && chmod 755 "$T" "$T/unpriv-bin" "$UBIN"
if [ "$(id -u)" -eq 0 ] && ! command -v setpriv > /dev/null; then
	unpriv_skip="running as root without setpriv"
elif ! as_user test -x "$UBIN"; then
	unpriv_skip="the unprivileged user cannot reach $UBIN (a folder above $T is not searchable)"
else
	unpriv_skip=
fi
if [ -n "$unpriv_skip" ]; then
	skip "a read-only store exits 3 before any request" "$unpriv_skip"
	skip "an unwritable report folder exits 3 before any request" "$unpriv_skip"
else
	U="$T/unpriv"
	mkdir -p "$U"
	cp -R "$W/." "$U/"
	mkdir -p "$U/ro" "$U/rep"
	[ "$(id -u)" -eq 0 ] && chown -R 65534:65534 "$U"
	"$SKILLCI" runs --store "$U/ro/results.db" > /dev/null 2>&1   # creates the store
	chmod 444 "$U/ro/results.db"; chmod 555 "$U/ro"
	[ "$(id -u)" -eq 0 ] && chown 0:0 "$U/ro/results.db" "$U/ro"
	fake_reset
	run as_user sh -c 'cd "$1" && shift && exec "$@"' - "$U" "$UBIN" run --repo . --base "$BASE" \
		--head "$HEADREV" --store ro/results.db --report-dir rep
	expect_exit 3 "a read-only store exits 3"
	expect_err_contains "ro/results.db" "and names the store"
	check "a read-only store is found before any request" test "$(fake_stat requests)" -eq 0
	chmod 555 "$U/rep"
	[ "$(id -u)" -eq 0 ] && chown 0:0 "$U/rep"
	fake_reset
	run as_user sh -c 'cd "$1" && shift && exec "$@"' - "$U" "$UBIN" run --repo . --base "$BASE" \
		--head "$HEADREV" --store st.db --report-dir rep
	expect_exit 3 "an unwritable report folder exits 3"
	expect_err_contains "the folder 'rep' is not writable (Permission denied; mode 0555" \
		"and names the folder and its permission"
	check "an unwritable report folder is found before any request" test "$(fake_stat requests)" -eq 0
fi

# work folders of runs killed with SIGKILL are removed by the next run
echo '{"default": {"text": "ok-alpha", "latency_ms": 5000}}' > "$T/slow.json"
fake_script "$T/slow.json"
(cd "$W" && exec "$SKILLCI" run --repo . --base "$BASE" --head "$HEADREV" --store killed.db \
	--report-dir .skillci/killed > /dev/null 2>&1) &
KPID=$!
i=0; while [ "$(fake_stat in_flight)" -lt 1 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "a run in flight holds a work folder" test -n "$(find "$W/.skillci/work" -mindepth 1 -maxdepth 1 -type d)"
kill -9 "$KPID"; wait "$KPID" 2>/dev/null
check "the killed run left its work folder" test -n "$(find "$W/.skillci/work" -mindepth 1 -maxdepth 1 -type d)"
fake_script "$T/script.json"
run_pr
base_verdict "after a killed run"
expect_err_contains "removed 1 work folder left by runs that were killed" "the next run removes it"
check "no work folder is left" test -z "$(find "$W/.skillci/work" -mindepth 1 -maxdepth 1)"

# an answer holding a NUL byte keeps what follows it
new_repo nul
mkdir -p "$W/skills/nul"
printf -- '---\nname: nul\ndescription: x\n---\nNUL-SKILL: answer.\n' > "$W/skills/nul/SKILL.md"
echo '{"tests": [{"input": "q", "expected": {"contains": ["after-nul"]}}]}' > "$W/skills/nul/skill_meta.json"
pr "a skill whose answers hold a NUL"
run_pr
check "an answer with a NUL byte is not cut: the text after it passes the test" results "
u = [u for u in r['units'] if u['skill'] == 'skills/nul' and u['variant'] == 'head'][0]
assert u['verdict'] == 'pass', u"
expect_err_contains "the answer holds 1 NUL character, kept as U+FFFD" "and the log says so"

done_testing
