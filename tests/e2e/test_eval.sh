# skillci eval against the fake model server, scripted to answer right or
# wrong in known proportions. Every number checked here is worked out by
# hand below (or by the formula, written out, for the Wilson bounds).
. tests/e2e/lib.sh
. tests/fakes/fake.sh

# A skill with 10 tests. The fake answers by markers in the input:
#   [B+] right without the skill, [S+] right with it.
#   Q1-Q2: [B+][S+]   Q3-Q9: [S+]   Q10: wrong both ways
mkdir -p "$T/skills/greeter"
cat > "$T/skills/greeter/SKILL.md" <<'EOF'
---
name: greeter
description: Answers greeting questions with the magic word.
---
# Greeter

Always answer with ANSWER-OK.
EOF
python3 - "$T/skills/greeter/skill_meta.json" <<'EOF'
import json, sys
tests = []
for i in range(1, 11):
    mark = "[B+][S+]" if i <= 2 else "[S+]" if i <= 9 else ""
    tests.append({"input": "Q%d: say the magic word %s" % (i, mark),
                  "expected": {"contains": ["answer-ok"]}})
json.dump({"tests": tests}, open(sys.argv[1], "w"), indent=1)
EOF

cat > "$T/script.json" <<'EOF'
{
  "rules": [
    {"match": {"system": "<skill", "contains": "[S+]"},
     "reply": {"text": "Here it is: ANSWER-OK", "usage": {"input": 100, "output": 20}}},
    {"match": {"system": "<skill"},
     "reply": {"text": "no idea", "usage": {"input": 100, "output": 20}}},
    {"match": {"contains": "[B+]"},
     "reply": {"text": "answer-ok", "usage": {"input": 50, "output": 30}}}
  ],
  "default": {"text": "wrong", "usage": {"input": 50, "output": 30}}
}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-secret-key
M=anthropic.fake-student
EVAL="$SKILLCI eval $T/skills/greeter -m $M --runs 2 --store $T/results.db --cache $T/cache"

run $EVAL --json "$T/r1.json"
expect_exit 0 "eval exits 0"
# Hand computation, runs = 2 so n = 20 per variant:
#   baseline passes Q1,Q2 twice: 4/20 = 20%;  with skill Q1-Q9 twice: 18/20 = 90%
#   lift +70%; discordant pairs: 14 skill-only, 0 baseline-only
#   McNemar exact p = 2 * (1/2)^14 = 0.0001220703125 -> significant
#   tokens: baseline 20 x (50+30) = 1600, with skill 20 x (100+20) = 2400 -> +50%
expect_out_contains "baseline   ████░░░░░░░░░░░░░░░░    20%  [95% CI 8%–42%, n=20]" "baseline bar, rate and Wilson interval"
expect_out_contains "with skill ██████████████████░░    90%  [95% CI 70%–97%, n=20]  (+70%, McNemar p=0.0001221, significant)" "skill bar, lift and significance"
expect_out_contains "tokens: 1600 → 2400  (+50%)" "token line sums both variants"
expect_out_contains "Recommendation: keep skill" "upskill's is_beneficial"
expect_out_lacks '\n  Recommendation' "the recommendation follows a blank line, not an escaped line break"
check "the recommendation's own line starts with two spaces" sh -c "printf '%s\n' \"\$1\" | grep -q '^  Recommendation: keep skill'" - "$OUT"
expect_out_contains "units: 40 (40 evaluated, 0 reused), requests: 40" "every unit asked once"
check "no API key in output" sh -c "! grep -rq sk-test-secret-key '$T/.out' '$T/.err' '$T/r1.json'"
check "the fake saw 40 requests" test "$(fake_stat requests)" -eq 40

# The results JSON holds the same numbers, exactly.
check "results JSON numbers match the hand computation" python3 - "$T/r1.json" <<'EOF'
import json, math, sys
r = json.load(open(sys.argv[1]))
z = 1.959963984540054
def wilson(k, n):
    p = k / n; d = 1 + z*z/n
    c = (p + z*z/(2*n)) / d; h = z*math.sqrt(p*(1-p)/n + z*z/(4*n*n)) / d
    return c - h, c + h
agg = {a["variant"]: a for a in r["aggregates"]}
b, s = agg["baseline"], agg["head"]
assert (b["n"], b["passed"], s["n"], s["passed"]) == (20, 4, 20, 18), (b, s)
assert b["pass_rate"] == 0.2 and s["pass_rate"] == 0.9
for a, k in ((b, 4), (s, 18)):
    lo, hi = wilson(k, 20)
    assert abs(a["ci_low"] - lo) < 1e-12 and abs(a["ci_high"] - hi) < 1e-12, a
assert b["mean_tokens"] == 80 and s["mean_tokens"] == 120
c = [c for c in r["comparisons"] if c["from"] == "baseline" and c["to"] == "head"][0]
assert c["paired_n"] == 20 and c["to_only"] == 14 and c["from_only"] == 0, c
assert c["p_value"] == 2 * 0.5**14 and c["significant"] is True, c
assert abs(c["skill_lift"] - 0.7) < 1e-12 and c["token_savings"] == -0.5, c
assert c["is_beneficial"] is True and c["tokens_delta_pct"] == 50, c
t = r["totals"]
assert t["tokens_in"] == 20*50 + 20*100 and t["tokens_out"] == 20*30 + 20*20, t
assert t["units"] == 40 and t["evaluated"] == 40 and t["reused"] == 0, t
u = [u for u in r["units"] if u["verdict"] == "fail" and u["variant"] == "head"]
assert len(u) == 2 and u[0]["error_class"] == "wrong_answer", u
assert u[0]["message"] == "answer lacks 'answer-ok'", u[0]
assert all(x["hashes"]["prompt"] and x["hashes"]["test"] for x in r["units"])
EOF

# The system prompt carries the skill; the baseline has none.
check "skill requests carry the skill in the system prompt" python3 - "$FAKE_LOG" <<'EOF'
import json, sys
reqs = [json.loads(l)["body"] for l in open(sys.argv[1])]
with_skill = [b for b in reqs if "<skill name=\"greeter\">" in (b.get("system") or "")]
without = [b for b in reqs if not b.get("system")]
assert len(with_skill) == 20 and len(without) == 20, (len(with_skill), len(without))
assert "Always answer with ANSWER-OK." in with_skill[0]["system"]
EOF

# A second identical eval asks nothing and prints the same numbers.
first=$(printf '%s\n' "$OUT" | grep -v '^units:')
fake_reset
run $EVAL
expect_exit 0 "second eval exits 0"
expect_out_contains "units: 40 (0 evaluated, 40 reused), requests: 0" "second eval reuses every unit"
check "the fake saw no request the second time" test "$(fake_stat requests)" -eq 0
second=$(printf '%s\n' "$OUT" | grep -v '^units:')
check "second eval prints the same numbers" test "$first" = "$second"

# Without the store's reuse, the response cache answers (still no request).
run $EVAL --no-reuse
expect_out_contains "units: 40 (40 evaluated, 0 reused), requests: 0, cache hits: 40" "--no-reuse answers from the response cache"
check "still no request to the fake" test "$(fake_stat requests)" -eq 0

# --offline answers from the response cache only: a filled cache gives the
# same numbers without a request; an empty one gives infrastructure errors.
fake_script "$T/script.json"
fake_reset
run $EVAL --no-reuse --offline
expect_exit 0 "--offline with a filled cache exits 0"
expect_out_contains "with skill ██████████████████░░    90%" "--offline gives the same numbers"
check "--offline makes no request" test "$(fake_stat requests)" -eq 0
run "$SKILLCI" eval "$T/skills/greeter" -m $M --store "$T/results.db" --cache "$T/empty-cache" --offline --no-reuse
expect_exit 3 "--offline with an empty cache exits 3"
expect_out_contains "units: 20 (20 evaluated, 0 reused), requests: 0 (the design's most: 1000), cache hits: 0, errors: 20" "every unit is an error without a cached answer"
expect_out_contains "lift: unverified, no test judged with and without the skill" "nothing judged: unverified after one round, not 50"
check "still no request" test "$(fake_stat requests)" -eq 0

# Two evaluations writing one store at the same time.
fake_script "$T/script.json"
"$SKILLCI" eval "$T/skills/greeter" -m anthropic.par-one --store "$T/par.db" --no-cache > "$T/p1.out" 2>&1 &
p1=$!
"$SKILLCI" eval "$T/skills/greeter" -m anthropic.par-two --store "$T/par.db" --no-cache > "$T/p2.out" 2>&1 &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
check "two concurrent evals on one store both succeed" test "$rc1$rc2" = 00
run "$SKILLCI" runs --store "$T/par.db" --csv "$T/par.csv"
check "the store holds both runs' aggregates" test "$(grep -c ',greeter,anthropic.par-' "$T/par.csv")" -eq 4

# skillci.yml in the current folder supplies models, runs and the store;
# flags override it; a bad value is a usage error naming file and line.
fake_script "$T/script.json"
mkdir -p "$T/cfg"
cat > "$T/cfg/skillci.yml" <<'EOF'
version: 1
models: [anthropic.cfg-model]
runs: 2
store: cfg.db
cache:
  mode: off
EOF
run sh -c "cd '$T/cfg' && '$SKILLCI' eval '$T/skills/greeter'"
expect_exit 0 "eval takes models and runs from skillci.yml"
expect_out_contains "greeter on anthropic.cfg-model (10 tests x 2 runs)" "config's model and runs used"
expect_file "$T/cfg/cfg.db" "config's store used"
run sh -c "cd '$T/cfg' && '$SKILLCI' eval '$T/skills/greeter' -m anthropic.flag-model --runs 1"
expect_out_contains "greeter on anthropic.flag-model (10 tests x 1 runs)" "flags override the config"
printf 'version: 1\nruns: many\n' > "$T/cfg/bad.yml"
run sh -c "cd '$T/cfg' && '$SKILLCI' eval '$T/skills/greeter' --config bad.yml"
expect_exit 2 "a bad config value exits 2"
expect_err_contains "bad.yml:2" "the finding names file and line"

# Context files are appended to the input as upskill does.
mkdir -p "$T/skills/ctx"
printf -- '---\nname: ctx\ndescription: Reads files.\n---\nRead the file.\n' > "$T/skills/ctx/SKILL.md"
cat > "$T/skills/ctx/skill_meta.json" <<'EOF'
{"tests": [{"input": "What is in the file?", "context": {"files": {"notes.txt": "SECRET-NOTE"}},
            "expected": {"contains": ["fake"]}}]}
EOF
fake_reset
run "$SKILLCI" eval "$T/skills/ctx" -m $M --store "$T/results.db" --no-cache --no-baseline
expect_exit 0 "eval --no-baseline exits 0"
expect_out_lacks "baseline " "--no-baseline prints no baseline bar"
check "context file appended as a fenced block" grep -q 'What is in the file?\\n\\n```notes.txt\\nSECRET-NOTE\\n```' "$FAKE_LOG"

# Several models: the benchmark table.
run "$SKILLCI" eval "$T/skills/greeter" -m $M -m oracle.self --store "$T/results.db" --cache "$T/cache"
expect_exit 0 "two models exit 0"
expect_out_contains "greeter on oracle.self" "oracle section"
expect_out_contains "[oracle self-test]" "oracle labelled"
check "benchmark table has a row per model" sh -c "printf '%s\n' \"\$1\" | grep -E '^greeter +$M +20% +90% +\+70%' >/dev/null && printf '%s\n' \"\$1\" | grep -E '^greeter +oracle.self +100% +100% +\+0%' >/dev/null" _ "$OUT"

# The judge: a pinned model scores each answer beside the hard verdict.
cat > "$T/jscript.json" <<'EOF'
{"rules": [{"match": {"model": "judge-model"}, "reply": {"text": "Reasonable.\nSCORE: 0.8", "usage": {"input": 5, "output": 5}}},
           {"match": {"contains": "[S+]"}, "reply": {"text": "ANSWER-OK", "usage": {"input": 10, "output": 10}}}],
 "default": {"text": "wrong", "usage": {"input": 10, "output": 10}}}
EOF
fake_script "$T/jscript.json"
fake_reset
run "$SKILLCI" eval "$T/skills/greeter" -m anthropic.judged --judge anthropic.judge-model --no-baseline \
	--store "$T/results.db" --no-cache --json "$T/j.json"
expect_exit 0 "eval with a judge exits 0"
check "judge scores every answer, beside the verdict" python3 - "$T/j.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert all(u["judge_score"] == 0.8 for u in r["units"]), [u["judge_score"] for u in r["units"]]
assert sorted(u["verdict"] for u in r["units"]).count("pass") == 9
a = r["aggregates"][0]
assert abs(a["judge_mean"] - 0.8) < 1e-12 and a["pass_rate"] == 0.9, a
assert a["mean_tokens"] == 20, a   # judge tokens are not the student's
EOF
check "judge requests: one per answer (10) plus the 10 answers" test "$(fake_stat requests)" -eq 20

# Infrastructure failures: a provider that refuses the key -> exit 3.
cat > "$T/bad.json" <<'EOF'
{"default": {"status": 401, "error_type": "authentication_error", "error_message": "invalid x-api-key"}}
EOF
fake_script "$T/bad.json"
run "$SKILLCI" eval "$T/skills/greeter" -m anthropic.other --store "$T/results.db" --no-cache
expect_exit 3 "provider errors exit 3"
expect_err_contains "infrastructure" "error count named"
expect_out_contains "errors: 20" "every unit is an error"

# Errors are never reused: the next run asks again.
fake_script "$T/script.json"
fake_reset
run "$SKILLCI" eval "$T/skills/greeter" -m anthropic.other --store "$T/results.db" --no-cache --runs 1
expect_exit 0 "after the outage the eval succeeds"
check "error units were asked again" test "$(fake_stat requests)" -eq 20

# Kernel tests: a scripted wrong kernel gets the compiler's message back as
# the next user turn, and the fixed answer compiles on turn 2. Without a
# GPU the verdict is "skipped" (compiled), never "pass".
if [ "${HAVE_CUDA:-}" = 1 ]; then
	# compile-only everywhere: forced on a GPU machine, the only mode elsewhere
	CO=""
	if [ -e /dev/nvidiactl ] || [ -e /proc/driver/nvidia/version ]; then CO=--compile-only; fi
	# a copy of one fixture, in a folder without fixtures.lock: unpinned
	mkdir -p "$T/skills/kern" "$T/fixtures"
	cp -R "$SKILLCI_ROOT/fixtures/softmax" "$T/fixtures/"
	printf -- '---\nname: kern\ndescription: Writes CUDA kernels.\n---\nWrite fast kernels.\n' > "$T/skills/kern/SKILL.md"
	cat > "$T/skills/kern/skill_meta.json" <<'EOF'
{"tests": [{"input": "Write the softmax kernel.", "fixture": "softmax"}]}
EOF
	python3 - "$SKILLCI_ROOT/fixtures/softmax/solution.cu" "$T/kscript.json" <<'EOF'
import json, sys
good = open(sys.argv[1]).read()
bad = "```cuda\n__global__ void softmax(const float *x, float *y, int rows, int cols)\n{\n    int r = blockIdy.x;\n}\n```\n"
json.dump({"rules": [
    {"match": {"contains": "did not pass the check"},
     "reply": {"text": "Fixed:\n```cuda\n" + good + "\n```\n", "usage": {"input": 300, "output": 200}}}],
  "default": {"text": bad, "usage": {"input": 100, "output": 50}}}, open(sys.argv[2], "w"))
EOF
	fake_script "$T/kscript.json"
	fake_reset
	run "$SKILLCI" eval "$T/skills/kern" -m anthropic.kern-student --no-baseline --store "$T/k.db" \
		--no-cache --fixtures "$T/fixtures" --allow-unpinned $CO --json "$T/k.json"
	expect_exit 0 "kernel eval exits 0"
	expect_out_contains "kernels (head): 1 units, 1 compiled, 0 failed to compile" "the fixed kernel compiled"
	check "turn 2 carried the compiler message and the unit was not passed" python3 - "$FAKE_LOG" "$T/k.json" "$T/fixtures/softmax/prompt.md" <<'EOF'
import json, sys
reqs = [json.loads(l)["body"] for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
turn2 = reqs[1]["messages"]
assert [m["role"] for m in turn2] == ["user", "assistant", "user"], turn2
first = reqs[0]["messages"][0]["content"]
first = first if isinstance(first, str) else first[0]["text"]
prompt = open(sys.argv[3]).read()
assert first.startswith("Write the softmax kernel.") and prompt in first, first[:200]
fb = turn2[2]["content"] if isinstance(turn2[2]["content"], str) else turn2[2]["content"][0]["text"]
assert 'identifier "blockIdy" is undefined' in fb, fb
u = json.load(open(sys.argv[2]))["units"][0]
assert u["turns"] == 2 and u["verdict"] == "skipped", u
assert u["kernel"]["verdict"] == "compiled" and u["kernel"]["compile"] == "ok", u["kernel"]
assert u["tokens_in"] == 400 and u["tokens_out"] == 250, u
EOF
	fake_reset
	run "$SKILLCI" eval "$T/skills/kern" -m anthropic.kern-student --no-baseline --store "$T/k.db" \
		--no-cache --fixtures "$T/fixtures" --allow-unpinned $CO --max-turns 1
	expect_exit 0 "one turn exits 0"
	expect_out_contains "with skill ░░░░░░░░░░░░░░░░░░░░     0%" "with one turn the wrong kernel fails"
	check "one turn sends one request" test "$(fake_stat requests)" -eq 1

	# the oracle answers kernel tests with the fixture's reference solution
	run "$SKILLCI" eval "$T/skills/kern" -m oracle.self --store "$T/k.db" --fixtures "$T/fixtures" \
		--allow-unpinned $CO
	expect_exit 0 "oracle kernel eval exits 0"
	expect_out_contains "kernels (head): 1 units, 1 compiled" "oracle's kernel compiles"
	expect_out_contains "skipped: 2" "compile-only never passes"
	run "$SKILLCI" eval "$T/skills/kern" -m oracle.self --store "$T/k.db" --fixtures "$T/fixtures"
	expect_exit 2 "an unpinned fixture is refused without --allow-unpinned"
	# the pinned fixtures: the run records the fixtures.lock it was checked against
	run "$SKILLCI" eval "$T/skills/kern" -m oracle.self --no-baseline --store "$T/k.db" \
		--fixtures "$SKILLCI_ROOT/fixtures" $CO --json "$T/kl.json"
	expect_exit 0 "oracle kernel eval on the pinned fixtures exits 0"
	check "the results name the fixtures.lock the kernels were checked against" python3 - \
		"$T/kl.json" "$SKILLCI_ROOT/fixtures/fixtures.lock" <<'EOF'
import hashlib, json, sys
r = json.load(open(sys.argv[1]))["run"]
assert r["fixtures_lock"] == hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest(), r
EOF
	# with a GPU the fixed kernel is checked for real: it passes on turn 2
	if [ -e /dev/nvidiactl ] || [ -e /proc/driver/nvidia/version ]; then
		fake_script "$T/kscript.json"
		fake_reset
		run "$SKILLCI" eval "$T/skills/kern" -m anthropic.kern-student --no-baseline --store "$T/k.db" \
			--no-cache --fixtures "$T/fixtures" --allow-unpinned --json "$T/kg.json"
		expect_exit 0 "GPU kernel eval exits 0"
		check "on a GPU the fixed kernel passes on turn 2 with a speedup" python3 - "$T/kg.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
u = r["units"][0]
assert r["run"]["mode"] == "gpu", r["run"]
assert u["turns"] == 2 and u["verdict"] == "pass", u
assert u["kernel"]["verdict"] == "passed" and u["kernel"]["speedup"] > 0, u["kernel"]
assert r["aggregates"][0]["pass_rate"] == 1 and r["aggregates"][0]["speedup_geomean"] > 0
EOF
	else
		skip "kernel passes on turn 2 on a GPU" "no GPU on this machine"
	fi
else
	skip "kernel feedback loop" "not built with CUDA (no skillci-kernel worker)"
fi

# Usage and input errors -> exit 2.
run "$SKILLCI" eval "$T/skills/greeter"
expect_exit 2 "no model is a usage error"
run "$SKILLCI" eval "$T/nope" -m $M --store "$T/results.db"
expect_exit 2 "missing skill folder exits 2"
run "$SKILLCI" eval "$T/skills/greeter" -m bogus.model --store "$T/results.db"
expect_exit 2 "unknown provider exits 2"
run env -u ANTHROPIC_API_KEY "$SKILLCI" eval "$T/skills/greeter" -m anthropic.new-model --store "$T/results.db" --no-cache
expect_exit 2 "missing API key exits 2"
expect_err_contains "ANTHROPIC_API_KEY" "missing key named"
run "$SKILLCI" eval "$T/skills/greeter" -m $M --runs 0
expect_exit 2 "--runs 0 is a usage error"

done_testing
