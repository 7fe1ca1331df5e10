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

done_testing
