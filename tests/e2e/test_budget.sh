# The cost of a run is bounded before any request (docs/run.md, "Budget"):
# a plan-time estimate of input and output tokens per unit, budgets in
# tokens and in dollars from the base revision's skillci.yml, a per-unit
# cap on the prompt, and a dated price table the trusted config extends.
# Every refusal exits 2 with a message naming what is over, and the fake
# model server sees no request at all.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY SKILLCI_STORE

echo '{"default": {"text": "ok-alpha", "usage": {"input": 1000, "output": 100}}}' > "$T/script.json"
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-budget-key

# new_repo NAME CONFIG: $W holds a base commit ($BASE) with CONFIG and a
# small skill with two tests
new_repo() {
	W="$T/$1"
	mkdir -p "$W/skills/alpha"
	printf '%s\n' "$2" > "$W/skillci.yml"
	printf -- '---\nname: alpha\ndescription: Answers alpha questions.\n---\n# alpha\n\nAnswer ok-alpha.\n' \
		> "$W/skills/alpha/SKILL.md"
	echo '{"tests": [{"input": "q1", "expected": {"contains": ["ok-alpha"]}},
	                 {"input": "q2", "expected": {"contains": ["ok-alpha"]}}]}' > "$W/skills/alpha/skill_meta.json"
	git -C "$W" init -q -b main
	BASE=$(commit base)
}
commit() { git -C "$W" add -A && git -C "$W" -c user.email=ci@example.com -c user.name=ci \
	commit -q -m "$1" && git -C "$W" rev-parse HEAD; }
run_pr() {
	fake_reset
	run sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" run --repo . --jobs 1 \
		--report-dir .skillci/report --base "$BASE" --head "$HEADREV" "$@"
}
requests() { curl -s "$FAKE_URL/_fake/stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])"; }

# ---- 1. a 0.2 MB SKILL.md and 8 tests of 0.8 MB input each ---------------------
new_repo huge 'version: 1
models: [anthropic.claude-sonnet-4-5]
runs: 1'
python3 - "$W/skills/alpha" <<'EOF'
import json, sys
d = sys.argv[1]
with open(d + "/SKILL.md", "a") as f:
    f.write(("Detail line of the skill. " * 40 + "\n") * 200)          # ~0.2 MB
json.dump({"tests": [{"input": ("word " * 160000) + "q%d" % i, "expected": {"contains": ["ok"]}}
                     for i in range(8)]}, open(d + "/skill_meta.json", "w"))  # 0.8 MB each
EOF
HEADREV=$(commit "a huge skill")
run_pr
expect_exit 2 "0.2 MB skill and 0.8 MB inputs: refused at plan time (exit 2)"
expect_err_contains "budget.max_prompt_tokens (200000)" "the message names the prompt cap"
expect_err_contains "has a prompt of ~" "the message gives the unit's estimated prompt tokens"
expect_err_contains "skills/alpha|" "the message names the unit"
expect_err_contains "nothing was sent" "the message says nothing was sent"
check "the fake model server saw 0 requests" test "$(requests)" = 0
expect_err_contains "budget: 14 units" "the budget line counts the units"
expect_err_contains "input and ~" "the budget line shows tokens"
expect_err_contains "~\$" "the budget line shows dollars"

# ---- 2. a dollar budget refuses what the token budget allows --------------------
new_repo usd 'version: 1
models: [anthropic.claude-opus-4-1]
runs: 3
budget: {max_input_tokens: 10000000, max_output_tokens: 10000000, max_usd: 0.5}'
sed -i 's/Answer ok-alpha./Answer ok-alpha, always./' "$W/skills/alpha/SKILL.md"
HEADREV=$(commit "small change")
run_pr
expect_exit 2 "max_usd 0.5: a plan of opus units refused (exit 2)"
expect_err_contains "more than budget.max_usd (\$0.50)" "the message names the dollar budget"
expect_err_contains "at list prices of 2025-11-01" "the message dates the prices"
check "the token limits were not what refused it" sh -c "! grep -q 'max_input_tokens\|max_output_tokens (' '$T/.err'"
check "the fake model server saw 0 requests" test "$(requests)" = 0
# the same plan with a larger dollar budget runs
sed -i 's/max_usd: 0.5/max_usd: 100/' "$W/skillci.yml"
git -C "$W" add -A && git -C "$W" -c user.email=ci@example.com -c user.name=ci commit -q --amend -m base
BASE=$(git -C "$W" rev-parse HEAD)
sed -i 's/Answer ok-alpha./Answer ok-alpha, always./' "$W/skills/alpha/SKILL.md"
HEADREV=$(commit "small change")
run_pr
check "max_usd 100: the same plan runs (exit 0 or 1)" sh -c "test $RC -eq 0 -o $RC -eq 1"
check "and sends its requests" test "$(requests)" -gt 0
# the reports show the run's actual tokens and cost per skill and model:
# every request of the fake used 1000 input and 100 output tokens, and
# claude-opus-4 costs $15 and $75 per million
check "results.json: run.usage has the tokens and cost of skills/alpha on opus" python3 -c "
import json
r = json.load(open('$W/.skillci/report/results.json'))
n = sum(1 for u in r['units'] if not u.get('reused'))
u = [x for x in r['run']['usage'] if x['skill'] == 'skills/alpha']
assert len(u) == 1 and u[0]['model'] == 'anthropic.claude-opus-4-1', r['run']['usage']
assert u[0]['tokens_in'] == 1000 * n and u[0]['tokens_out'] == 100 * n, (u, n)
assert abs(u[0]['cost_usd'] - n * (1000 * 15 + 100 * 75) / 1e6) < 1e-9, u
assert u[0]['price_date'] == '2025-11-01', u"
check "report.md: the tokens and cost table" grep -q "Tokens and cost of this run" "$W/.skillci/report/report.md"
check "JUnit: the suite of skills/alpha carries its tokens and cost on opus" python3 -c "
import xml.etree.ElementTree as ET
root = ET.parse('$W/.skillci/report/junit.xml').getroot()
s = [x for x in root.iter('testsuite') if x.get('name') == 'skills/alpha'][0]
p = {q.get('name'): q.get('value') for q in s.find('properties')}
v = p['usage anthropic.claude-opus-4-1']
# 2 tests x 3 runs at base and head, the baseline (deciding nothing) once:
# 14 requests of 1000 + 100 tokens at $15 and $75 per million
assert v == '14000 input, 1400 output tokens, \$0.3150 (prices of 2025-11-01)', v"
expect_out_contains "used      14000 input, 1400 output tokens, \$0.3150 at list prices of 2025-11-01" \
	"the terminal shows the actual tokens and cost"
check "skillci report renders the same table from results.json" sh -c \
	"cd '$W' && '$SKILLCI' report .skillci/report/results.json --markdown '$T/again.md' > /dev/null && grep -q 'Tokens and cost of this run' '$T/again.md'"

# ---- 3. a price from the trusted config, and the head cannot loosen it ----------
new_repo price 'version: 1
models: [anthropic.fake-student]
runs: 1
budget: {max_usd: 1}
prices:
  fake-student: {input: 5000, output: 5000, date: "2026-01-15"}'
cat > "$W/skillci.yml.head" <<'EOF'
version: 1
models: [anthropic.fake-student]
runs: 1
budget: {max_usd: 1000000}
prices:
  fake-student: {input: 0, output: 0, date: "2030-01-01"}
EOF
mv "$W/skillci.yml.head" "$W/skillci.yml"
sed -i 's/Answer ok-alpha./Answer ok-alpha, please./' "$W/skills/alpha/SKILL.md"
HEADREV=$(commit "loosen the budget")
run_pr
expect_exit 2 "a configured price of \$5000/M refuses the plan (exit 2)"
expect_err_contains "prices of 2026-01-15" "the budget line uses the base's price and its date"
expect_err_contains "budget.max_usd (\$1.00)" "the base's dollar budget applies, not the head's"
check "the fake model server saw 0 requests" test "$(requests)" = 0
# a model with no price: counted in tokens, said in the line
new_repo unpriced 'version: 1
models: [anthropic.fake-student]
runs: 1
budget: {max_usd: 1}'
sed -i 's/Answer ok-alpha./Answer ok-alpha, now./' "$W/skills/alpha/SKILL.md"
HEADREV=$(commit "change")
run_pr
check "a model without a price runs under the token budget (exit 0 or 1)" sh -c "test $RC -eq 0 -o $RC -eq 1"
expect_err_contains "models without a price, such as 'anthropic.fake-student', not counted" \
	"the budget line says which model has no price"

# ---- 5. the prompt as sent: a skill's references/ listing counts ----------------
# The system prompt lists every file under references/. 4,000 files with
# long names add ~160 kB to it (~40k tokens) while SKILL.md and the test
# stay small: the plan counts the prompt as it is built, so a 20,000-token
# prompt cap refuses it before any request, naming what the prompt holds.
new_repo listing 'version: 1
models: [anthropic.claude-haiku-4-5]
runs: 1
budget: {max_prompt_tokens: 20000}'
refs() {  # refs N LEN: N empty files under references/ with names of LEN characters
	python3 - "$W/skills/alpha/references" "$1" "$2" <<'PY'
import os, sys
d, n, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(d, exist_ok=True)
for i in range(n):
    name = ("%05d-" % i) + "a-long-reference-file-name-" * 10
    open(os.path.join(d, name[:width] + ".md"), "w").close()
PY
}
refs 4000 25
HEADREV=$(commit "4,000 reference files")
run_pr
expect_exit 2 "4,000 names under references/: refused at plan time (exit 2)"
check "4,000 names: the fake model server saw 0 requests" test "$(requests)" = 0
expect_err_contains "budget.max_prompt_tokens (20000)" "4,000 names: the message names the prompt cap"
expect_err_contains "the listing of its 4000 files under references/" \
	"4,000 names: the message says the listing makes the prompt"
check "4,000 names: the estimate is the prompt as built (over 40k tokens), not SKILL.md's size" \
	python3 -c "
import re, sys
m = re.search(r'has a prompt of ~(\d+) tokens', open('$T/.err').read())
assert m and int(m.group(1)) > 40000, m and m.group(0)"
# the same skill within a larger cap (the workflow's own config) runs:
# what is counted is what is sent
printf 'version: 1\nmodels: [anthropic.claude-haiku-4-5]\nruns: 1\nbudget: {max_prompt_tokens: 100000}\n' \
	> "$T/listing.yml"
run_pr --config "$T/listing.yml"
check "4,000 names under a 100,000-token cap: the run goes ahead (exit 0 or 1)" sh -c "test $RC -le 1"
check "4,000 names: the requests sent are the ones planned" test "$(requests)" -gt 0

# ---- 6. what one skill may put into a prompt is capped -------------------------
# 4,000 names of 80 characters make a listing over the 256 KiB a skill may
# put into a system prompt: the skill is an error finding that says so,
# it is not evaluated, and nothing is sent for it.
new_repo cap 'version: 1
models: [anthropic.claude-haiku-4-5]
runs: 1'
refs 4000 80
HEADREV=$(commit "4,000 long reference names")
run_pr
expect_exit 1 "a listing over the skill's prompt cap: the gate fails (exit 1)"
check "the skill's prompt cap: the fake model server saw 0 requests" test "$(requests)" = 0
expect_out_contains "skill-prompt-size" "the skill's prompt cap: the finding is named"
expect_out_contains "the listing of its 4,000 files under references/" \
	"the skill's prompt cap: the finding says the listing is what is over"
run "$SKILLCI" validate "$W/skills/alpha"
expect_exit 1 "validate: the same skill is an error"
expect_out_contains "skill-prompt-size" "validate: the finding is named"

# ---- 4. bad budget values are errors naming the file and line -------------------
new_repo bad 'version: 1
models: [anthropic.fake-student]
budget: {max_input_tokens: 1.5, max_usd: -3}
prices:
  some-model: {output: 2}'
HEADREV=$BASE
run sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" validate --config skillci.yml skills
run sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" run --repo . --base "$BASE" --head "$BASE" \
	--report-dir .skillci/report
expect_exit 2 "bad budget values: exit 2"
expect_err_contains "skillci.yml:3" "the message names the file and line"
expect_err_contains "'budget.max_input_tokens' must be a whole number" "a fractional token budget is named"
expect_err_contains "'budget.max_usd' must be at least 0" "a negative dollar budget is named"
expect_err_contains "'prices.some-model.input' is required" "a price without input is named"

# ---- 5. the oracle sends nothing: its units do not spend the token budget -------
new_repo oracle 'version: 1
models: [anthropic.fake-student]
runs: 2
budget: {max_input_tokens: 10, max_output_tokens: 10}'
sed -i 's/Answer ok-alpha./Answer ok-alpha, always./' "$W/skills/alpha/SKILL.md"
HEADREV=$(commit "small change")
run_pr -m oracle.self
check "oracle units under a 10-token budget: the run is not stopped (exit 0 or 1)" \
	sh -c "test $RC -eq 0 -o $RC -eq 1"
expect_err_contains "answered by the oracle: nothing sent for them" "the budget line says the oracle sent nothing"
expect_err_contains "estimate ~0 input and ~0 output tokens" "and counts no tokens for them"
check "oracle: the fake model server saw 0 requests" test "$(requests)" = 0
# the same plan on the configuration's model: its sends are counted and refused
run_pr
expect_exit 2 "the same plan on a model is over the 10-token budget (exit 2)"
expect_err_contains "budget.max_input_tokens (10)" "the message names the token budget"
check "a model plan over budget: 0 requests" test "$(requests)" = 0

# ---- 7. units the store answers send nothing: the budget skips them -------------
# The base side of a pull request (the target's tip) is usually in the
# results store from an earlier run: those units are reused, not sent, so
# the plan does not count them. A fixed design of 2 runs: 2 tests x 2 runs
# at base and at head, and the no-skill baseline once per test, 10 units of
# 4096 output tokens each (40,960); max_output_tokens 20,000 refuses the
# whole plan and allows the head's 4 units (16,384).
new_repo reuse 'version: 1
models: [anthropic.claude-haiku-4-5]
runs: 2
budget: {max_output_tokens: 20000}'
sed -i 's/Answer ok-alpha./Answer ok-alpha, first./' "$W/skills/alpha/SKILL.md"
HEADREV=$(commit "a first change")
run_pr --no-cache
expect_exit 2 "an empty store: the whole plan is over the output budget (exit 2)"
expect_err_contains "budget.max_output_tokens (20000)" "the message names the output budget"
expect_err_contains "budget: 10 units, at most 10 model requests" "the budget line counts every unit as sent"
check "an empty store: the fake model server saw 0 requests" test "$(requests)" = 0
check "an empty store: the budget line names no reused unit" sh -c "! grep -q 'reused from the store' '$T/.err'"
# the workflow's own config with room for the whole plan fills the store
printf 'version: 1\nmodels: [anthropic.claude-haiku-4-5]\nruns: 2\n' > "$T/reuse.yml"
run_pr --no-cache --config "$T/reuse.yml"
check "the first pull request under a larger budget runs (exit 0 or 1)" sh -c "test $RC -le 1"
check "and sends its 10 units' requests" test "$(requests)" = 10
# a second pull request on the same base: its base and baseline units are
# in the store, its head's are new
sed -i 's/first/second/' "$W/skills/alpha/SKILL.md"
HEADREV=$(commit "a second change")
run_pr --no-cache
check "the second pull request under the same 20,000 budget goes through (exit 0 or 1)" sh -c "test $RC -le 1"
expect_err_contains "budget: 10 units, at most 4 model requests" "the budget line counts requests only of what sends"
expect_err_contains "(6 units reused from the store: nothing sent for them)" \
	"the budget line names the 6 reused units (base and baseline)"
check "the reused units sent nothing: the fake saw only the head's 4 requests" test "$(requests)" = 4
check "results.json: 6 units reused, 4 evaluated" python3 -c "
import json
r = json.load(open('$W/.skillci/report/results.json'))
u = r['units']
assert len(u) == 10, len(u)
reused = [x for x in u if x.get('reused')]
assert len(reused) == 6 and all(x['variant'] in ('base', 'baseline') for x in reused), reused
assert all(x['variant'] == 'head' for x in u if not x.get('reused')), u"
# --no-reuse asks again for every unit: the plan counts them all
run_pr --no-cache --no-reuse
expect_exit 2 "--no-reuse: every unit counts, over the budget again (exit 2)"
expect_err_contains "budget.max_output_tokens (20000)" "--no-reuse: the output budget refuses it"
check "--no-reuse: 0 requests" test "$(requests)" = 0

# The same with sequential sampling (the default design): the plan holds
# each check's most runs (202 units here, 827,392 output tokens), of which
# the first pull request runs a few rounds. The second counts as reused
# exactly the base and baseline units the store holds (the runs those
# rounds reached), the later runs as sent, and the evaluation reuses the
# same units: 800,000 output tokens refuse the first plan, not the second.
new_repo reuse-seq 'version: 1
models: [anthropic.claude-haiku-4-5]
budget: {max_output_tokens: 800000}'
sed -i 's/Answer ok-alpha./Answer ok-alpha, first./' "$W/skills/alpha/SKILL.md"
HEADREV=$(commit "a first change")
run_pr --no-cache
expect_exit 2 "sequential, an empty store: the plan's most runs are over the budget (exit 2)"
expect_err_contains "budget: 202 units, at most 202 model requests" "sequential: every planned unit counts"
printf 'version: 1\nmodels: [anthropic.claude-haiku-4-5]\n' > "$T/reuse-seq.yml"
run_pr --no-cache --config "$T/reuse-seq.yml"
check "sequential: the first pull request under a larger budget runs (exit 0 or 1)" sh -c "test $RC -le 1"
sed -i 's/first/second/' "$W/skills/alpha/SKILL.md"
HEADREV=$(commit "a second change")
run_pr --no-cache
check "sequential: the second pull request goes through (exit 0 or 1)" sh -c "test $RC -le 1"
check "sequential: the units the line counts as reused are the ones the run reused, and nothing was sent for them" python3 -c "
import json, re
err = open('$T/.err').read()
m = re.search(r'budget: (\d+) units, at most (\d+) model requests.*\((\d+) units reused from the store', err)
assert m, err
units, requests, reused = map(int, m.groups())
r = json.load(open('$W/.skillci/report/results.json'))
got = [u for u in r['units'] if u.get('reused')]
assert reused == len(got) > 0, (reused, len(got))
assert all(u['variant'] in ('base', 'baseline') for u in got), got
assert requests == units - reused, (units, requests, reused)
sent = [u for u in r['units'] if not u.get('reused')]
assert all(u['variant'] == 'head' for u in sent), sent
assert int('$(requests)') == len(sent), ('$(requests)', len(sent))"

# ---- 8. skillci eval: units the store answers send nothing either -------------
# eval of one skill, 2 tests x 2 runs with the skill and without (8 units
# of 4096 output tokens: 32,768); max_output_tokens 20,000 refuses it on an
# empty store. Once an eval of the skill as it was filled the store, an
# eval of the skill changed reuses the 4 units without it (their key has no
# skill in it) and sends the 4 with it (16,384): within the budget.
mkdir -p "$T/ev/alpha"
printf -- '---\nname: alpha\ndescription: Answers alpha questions.\n---\n# alpha\n\nAnswer ok-alpha.\n' \
	> "$T/ev/alpha/SKILL.md"
echo '{"tests": [{"input": "q1", "expected": {"contains": ["ok-alpha"]}},
                 {"input": "q2", "expected": {"contains": ["ok-alpha"]}}]}' > "$T/ev/alpha/skill_meta.json"
printf 'version: 1\nruns: 2\nbudget: {max_output_tokens: 20000}\n' > "$T/ev/tight.yml"
printf 'version: 1\nruns: 2\n' > "$T/ev/roomy.yml"
eval_alpha() {
	fake_reset
	run "$SKILLCI" eval "$T/ev/alpha" -m anthropic.claude-haiku-4-5 --store "$T/ev/results.db" \
		--no-cache --json "$T/ev/out.json" "$@"
}
eval_alpha --config "$T/ev/tight.yml"
expect_exit 2 "eval, an empty store: over the output budget (exit 2)"
expect_err_contains "budget.max_output_tokens (20000)" "eval: the message names the output budget"
check "eval, an empty store: 0 requests" test "$(requests)" = 0
eval_alpha --config "$T/ev/roomy.yml"
expect_exit 0 "eval under a larger budget runs and fills the store"
check "eval: its 8 units sent 8 requests" test "$(requests)" = 8
sed -i 's/Answer ok-alpha./Answer ok-alpha, always./' "$T/ev/alpha/SKILL.md"
eval_alpha --config "$T/ev/tight.yml"
expect_exit 0 "eval of the changed skill: the baseline's 4 units reused, within the budget"
check "eval of the changed skill: only the skill's 4 units sent" test "$(requests)" = 4
check "eval of the changed skill: results.json marks the 4 baseline units reused" python3 -c "
import json
u = json.load(open('$T/ev/out.json'))['units']
assert len(u) == 8, len(u)
reused = [x for x in u if x.get('reused')]
assert len(reused) == 4 and all(x['variant'] == 'baseline' for x in reused), reused"
eval_alpha --config "$T/ev/tight.yml" --no-reuse
expect_exit 2 "eval --no-reuse: every unit counts, over the budget (exit 2)"
check "eval --no-reuse: 0 requests" test "$(requests)" = 0

done_testing
