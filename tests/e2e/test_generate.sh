# skillci generate against the fake model server scripted as the teacher
# and the student: the skill is written, validated, tested, evaluated and
# refined; the refine loop stops when the skill is beneficial and at
# --max-refine, keeping the best version; a malformed teacher answer is
# retried once, then reported; the saved folder loads unchanged.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

export ANTHROPIC_API_KEY=sk-test-generate-secret
T_MODEL=anthropic.teacher
S_MODEL=anthropic.student
GEN_SYS='You generate \"skills\"'
TEST_SYS='You generate test cases'

# skill_json BODY_MARK: a fenced JSON skill answer whose body holds the mark
skill_json() {
	printf '%s' "Here is the skill:\\n\`\`\`json\\n{\\\"name\\\": \\\"magic-words\\\", \\\"description\\\": \\\"Answers questions with the magic word.\\\", \\\"body\\\": \\\"# Magic words\\\\n\\\\n$1: always answer with ANSWER-OK.\\\\nSee [the notes](references/notes.md).\\\", \\\"references\\\": {\\\"notes.md\\\": \\\"Notes for $1\\\"}}\\n\`\`\`"
}
TESTS_JSON='{\"cases\": [{\"input\": \"Q1 [B+] say the magic word\", \"expected\": {\"contains\": [\"answer-ok\"]}}, {\"input\": \"Q2 say the magic word\", \"expected\": {\"contains\": \"answer-ok\"}}]}'

# ---- 1. beneficial at once: one evaluation, no refinement ------------------
cat > "$T/s1.json" <<EOF
{"rules": [
 {"match": {"system": "$GEN_SYS"}, "reply": {"text": "$(skill_json MAGIC-V1)", "usage": {"input": 100, "output": 50}}},
 {"match": {"system": "$TEST_SYS"}, "reply": {"text": "$TESTS_JSON", "usage": {"input": 80, "output": 40}}},
 {"match": {"system": "MAGIC-V1"}, "reply": {"text": "ANSWER-OK"}}
], "default": {"text": "wrong"}}
EOF
fake_start "$T/s1.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
cd "$T" || exit 1
GEN="$SKILLCI generate --store $T/results.db --no-cache -m $T_MODEL"

run $GEN "answer with the magic word" --eval-model $S_MODEL -o "$T/out/magic-words"
expect_exit 0 "generate exits 0"
expect_err_contains "Generating skill with anthropic.teacher..." "upskill's first progress line"
expect_err_contains "Evaluating on anthropic.teacher, anthropic.student... (attempt 1)" "evaluates on the teacher and the student"
expect_err_lacks "Refining..." "a beneficial skill is not refined"
expect_out_contains "  anthropic.student
    baseline   ░░░░░░░░░░░░░░░░░░░░     0%
    with skill ████████████████████   100%  (+100%)" "upskill bars for the student"
expect_out_contains "tokens: 30 → 30  (-0%)" "the token line"
expect_out_contains "teacher: 2 requests (0 retries), tokens 180 in, 90 out" "teacher token use"
expect_out_contains "Saved to $T/out/magic-words" "Saved to"
check "SKILL.md, references and skill_meta.json written" test -f out/magic-words/SKILL.md -a \
	-f out/magic-words/references/notes.md -a -f out/magic-words/skill_meta.json
check "skill_meta.json is upskill's format, byte for byte as json.dumps(indent=2)" python3 - out/magic-words <<'EOF'
import json, sys, re
d = sys.argv[1]
text = open(d + "/skill_meta.json").read()
m = json.loads(text)
assert text == json.dumps(m, indent=2) + "\n", "not json.dumps(indent=2)"
assert list(m) == ["metadata", "tests"], list(m)
md = m["metadata"]
assert list(md) == ["version", "generated_by", "generated_at", "source_task",
                    "test_pass_rate", "license", "compatibility"], list(md)
assert md["version"] == "1.0" and md["generated_by"] == "anthropic.teacher", md
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", md["generated_at"]), md
assert md["source_task"] == "answer with the magic word" and md["test_pass_rate"] == 1.0, md
assert len(m["tests"]) == 2
for t in m["tests"]:
    assert list(t) == ["input", "context", "expected", "output_file", "validator",
                       "validator_config"], list(t)
    assert t["expected"] == {"contains": ["answer-ok"]}, t
# upskill's own reader: split on '---', 'key: value' lines
c = open(d + "/SKILL.md").read()
fm = dict(l.split(":", 1) for l in c.split("---", 2)[1].strip().split("\n"))
assert fm["name"].strip() == "magic-words", fm
assert fm["description"].strip() == "Answers questions with the magic word.", fm
assert "MAGIC-V1: always answer with ANSWER-OK." in c
assert open(d + "/references/notes.md").read() == "Notes for MAGIC-V1"
EOF
check "no API key in any output or file" sh -c "! grep -rq sk-test-generate-secret '$T/.out' '$T/.err' '$T/out'"

# The saved folder loads in skillci unchanged.
run "$SKILLCI" validate out/magic-words
expect_exit 0 "skillci validate accepts the generated skill"
run "$SKILLCI" eval out/magic-words -m $S_MODEL --runs 1 --store "$T/results.db" --no-cache
expect_exit 0 "skillci eval reads the generated skill and its tests"
expect_out_contains "magic-words on anthropic.student (2 tests x 1 runs)" "eval finds both generated tests"
expect_out_contains "units: 4 (" "eval evaluates the four units"

# ---- 2. refine until beneficial ------------------------------------------------
cat > "$T/s2.json" <<EOF
{"rules": [
 {"match": {"contains": "Improve this skill based on failures"}, "reply": {"text": "$(skill_json MAGIC-V2)"}},
 {"match": {"system": "$GEN_SYS"}, "reply": {"text": "$(skill_json MAGIC-V1)"}},
 {"match": {"system": "$TEST_SYS"}, "reply": {"text": "$TESTS_JSON"}},
 {"match": {"system": "MAGIC-V2"}, "reply": {"text": "ANSWER-OK"}},
 {"match": {"contains": "[B+]"}, "reply": {"text": "answer-ok"}}
], "default": {"text": "wrong"}}
EOF
fake_script "$T/s2.json"
fake_reset
GEN="$SKILLCI generate --store $T/r2.db --no-cache -m $T_MODEL"
run $GEN "answer with the magic word" --eval-model $S_MODEL -o "$T/out2/magic-words"
expect_exit 0 "generate with a refinement exits 0"
expect_err_contains "(attempt 1)" "first evaluation"
expect_err_contains "  anthropic.student: 50% -> 50% (0%) not good enough" "version 1 gives no lift"
expect_err_contains "Refining..." "refines while not beneficial"
expect_err_contains "  anthropic.student: 50% -> 100% (+50%) OK" "version 2 is beneficial"
expect_err_lacks "(attempt 3)" "stops as soon as the skill is beneficial"
check "the saved skill is version 2" grep -q "MAGIC-V2" out2/magic-words/SKILL.md
check "the refine prompt carries upskill's failure descriptions" python3 - "$FAKE_LOG" <<'EOF'
import json, sys
reqs = [json.loads(l)["body"] for l in open(sys.argv[1])]
ref = [b for b in reqs if "Improve this skill based on failures" in b["messages"][-1]["content"]]
assert len(ref) == 1, len(ref)
p = ref[0]["messages"][-1]["content"]
assert "- Input: Q2 say the magic word | Model: anthropic.student | Error: answer lacks 'answer-ok' | Expected: contains ['answer-ok']" in p, p
assert "MAGIC-V1: always answer" in p, p
assert 'The skill\'s name must be "magic-words".' in p, p
EOF

# ---- 3. never beneficial: stops at --max-refine and keeps the best -------------
cat > "$T/s3.json" <<EOF
{"rules": [
 {"match": {"contains": "Improve this skill based on failures", "nth": [1]}, "reply": {"text": "$(skill_json MAGIC-V2)"}},
 {"match": {"contains": "Improve this skill based on failures"}, "reply": {"text": "$(skill_json MAGIC-V3)"}},
 {"match": {"system": "$GEN_SYS"}, "reply": {"text": "$(skill_json MAGIC-V1)"}},
 {"match": {"system": "$TEST_SYS"}, "reply": {"text": "$TESTS_JSON"}},
 {"match": {"system": "MAGIC-V1", "contains": "[B+]"}, "reply": {"text": "ANSWER-OK"}},
 {"match": {"system": "MAGIC-V"}, "reply": {"text": "wrong"}},
 {"match": {"contains": "[B+]"}, "reply": {"text": "answer-ok"}}
], "default": {"text": "wrong"}}
EOF
fake_script "$T/s3.json"
fake_reset
GEN="$SKILLCI generate --store $T/r3.db --no-cache -m $T_MODEL"
run $GEN "answer with the magic word" --eval-model $S_MODEL --max-refine 2 -o "$T/out3/magic-words"
expect_exit 0 "generate that never helps still saves and exits 0"
expect_err_contains "(attempt 3)" "evaluates 1 + --max-refine versions"
expect_err_lacks "(attempt 4)" "stops at --max-refine"
expect_err_contains "stopping after 2 refinements" "says why it stopped"
expect_err_contains "keeping version 1, the best" "says which version it kept"
check "the saved skill is the best version (1), not the last (3)" grep -q "MAGIC-V1" out3/magic-words/SKILL.md
check "the refine prompt was sent twice" test "$(grep -c 'Improve this skill based on failures' "$FAKE_LOG")" -eq 2
check "test_pass_rate is the kept version's" python3 -c "
import json; m = json.load(open('out3/magic-words/skill_meta.json'))['metadata']
assert m['test_pass_rate'] == 0.5, m"
expect_out_contains "version 1 of 3 kept, not beneficial on every model" "summary names the kept version"

GEN="$SKILLCI generate --store $T/r4.db --no-cache -m $T_MODEL"
run $GEN "answer with the magic word" --max-refine 0 -o "$T/out4/magic-words"
expect_err_lacks "Refining..." "--max-refine 0 evaluates once"

# upskill's max_refine_attempts counts evaluations: 2 (its default) is one
# refinement, 1 is none; --max-refine counts refinements and wins
fake_script "$T/s3.json"
GEN="$SKILLCI generate --store $T/r3b.db --no-cache -m $T_MODEL"
run $GEN "answer with the magic word" --eval-model $S_MODEL -o "$T/out3b/magic-words"
expect_err_contains "(attempt 2)" "by default, two evaluations as upskill (max_refine_attempts 2)"
expect_err_lacks "(attempt 3)" "and no third"
expect_err_contains "stopping after 1 refinement" "one refinement between them"
mkdir -p "$T/up1"
printf 'max_refine_attempts: 1\n' > "$T/up1/upskill.config.yaml"
fake_script "$T/s3.json"
(cd "$T/up1" && $GEN "answer with the magic word" --eval-model $S_MODEL \
	-o "$T/up1/out/magic-words" > "$T/up1.out" 2> "$T/up1.err")
check "max_refine_attempts: 1 evaluates once" sh -c "grep -q '(attempt 1)' '$T/up1.err' && ! grep -q 'Refining...' '$T/up1.err'"
printf 'max_refine_attempts: 3\n' > "$T/up1/upskill.config.yaml"
fake_script "$T/s3.json"
(cd "$T/up1" && $GEN "answer with the magic word" --eval-model $S_MODEL --force \
	-o "$T/up1/out/magic-words" > "$T/up1.out" 2> "$T/up1.err")
check "max_refine_attempts: 3 evaluates three times" sh -c "grep -q '(attempt 3)' '$T/up1.err' && ! grep -q '(attempt 4)' '$T/up1.err'"
(cd "$T/up1" && $GEN "answer with the magic word" --eval-model $S_MODEL --force --max-refine 0 \
	-o "$T/up1/out/magic-words" > "$T/up1.out" 2> "$T/up1.err")
check "--max-refine wins over max_refine_attempts" sh -c "! grep -q 'Refining...' '$T/up1.err'"
GEN="$SKILLCI generate --store $T/r4.db --no-cache -m $T_MODEL"

# ---- 4. a malformed teacher answer is retried once, then reported ------------
cat > "$T/s4.json" <<EOF
{"rules": [
 {"match": {"system": "$GEN_SYS", "first": 1}, "reply": {"text": "Sure! {\"name\": \"magic-words\", \"description\": oops"}},
 {"match": {"system": "$GEN_SYS"}, "reply": {"text": "$(skill_json MAGIC-V1)"}},
 {"match": {"system": "$TEST_SYS"}, "reply": {"text": "$TESTS_JSON"}}
], "default": {"text": "wrong"}}
EOF
fake_script "$T/s4.json"
fake_reset
run $GEN "answer with the magic word" --no-eval -o "$T/out5/magic-words"
expect_exit 0 "a malformed first answer is retried and the second one used"
expect_err_contains "answer not usable" "the retry is announced"
expect_out_contains "teacher: 2 requests (1 retry)" "two teacher requests"
check "the retry sends the parse error back to the teacher" python3 - "$FAKE_LOG" <<'EOF'
import json, sys
reqs = [json.loads(l)["body"] for l in open(sys.argv[1])]
assert len(reqs) == 2, len(reqs)
m = reqs[1]["messages"]
assert [x["role"] for x in m] == ["user", "assistant", "user"], m
assert m[1]["content"].startswith("Sure! {"), m[1]
assert "Your answer could not be used: the JSON object in the answer does not parse" in m[2]["content"], m[2]
EOF
run "$SKILLCI" validate out5/magic-words
expect_exit 0 "--no-eval output validates"
check "--no-eval writes no tests, as upskill" python3 -c "
import json; m = json.load(open('out5/magic-words/skill_meta.json'))
assert m['tests'] == [] and m['metadata']['test_pass_rate'] is None, m"

cat > "$T/s5.json" <<EOF
{"rules": [{"match": {"system": "$GEN_SYS"}, "reply": {"text": "I cannot help with that."}}],
 "default": {"text": "wrong"}}
EOF
fake_script "$T/s5.json"
fake_reset
run $GEN "answer with the magic word" -o "$T/out6/magic-words"
expect_exit 3 "two unusable answers: exit 3"
expect_err_contains "error: model 'anthropic.teacher' did not return usable skill after one retry: no JSON object in the answer" "the error says what was wrong"
check "exactly two teacher requests" test "$(fake_stat requests)" -eq 2
check "nothing saved" test ! -e out6/magic-words

# A skill that fails validation (a link to a missing file) is sent back too.
cat > "$T/s6.json" <<EOF
{"rules": [
 {"match": {"system": "$GEN_SYS"}, "reply": {"text": "{\"name\": \"magic-words\", \"description\": \"d\", \"body\": \"see [x](references/missing.md)\"}"}}
], "default": {"text": "wrong"}}
EOF
fake_script "$T/s6.json"
fake_reset
run $GEN "answer with the magic word" --no-eval -o "$T/out7/magic-words"
expect_exit 3 "a skill that never validates is not saved"
expect_err_contains "references/missing.md" "the validation finding is reported"
check "the validation finding went back to the teacher" grep -q 'could not be used: SKILL.md:[0-9]*: ' "$FAKE_LOG"
check "the invalid skill was not saved" test ! -e out7/magic-words

# ---- 5. traces and existing skills ---------------------------------------------
fake_script "$T/s1.json"
fake_reset
cat > "$T/trace.json" <<'EOF'
{"messages": [
 {"role": "user", "content": [{"type": "text", "text": "Please greet the user"}]},
 {"role": "assistant", "content": [{"type": "text", "text": "Trying hello"},
   {"type": "tool_use", "name": "shell", "input": {"cmd": "echo TRACE-STEP-42"}}]},
 {"role": "user", "content": [{"type": "tool_result", "content": "TRACE-STEP-42"}]}
]}
EOF
run $GEN "greet" --from "$T/trace.json" --no-eval -o "$T/out8/magic-words"
expect_exit 0 "generate --from a JSON trace exits 0"
check "the trace is given to the teacher as text" python3 - "$FAKE_LOG" <<'EOF'
import json, sys
b = json.loads(open(sys.argv[1]).readline())["body"]
p = b["messages"][0]["content"]
assert "<trace>" in p and "### assistant" in p and "Please greet the user" in p, p
assert '[tool call shell: {"cmd":"echo TRACE-STEP-42"}]' in p, p
assert "[tool result: TRACE-STEP-42]" in p, p
EOF
printf '{"broken": ' > "$T/bad.json"
run $GEN "greet" --from "$T/bad.json" --no-eval -o "$T/out9/magic-words"
expect_exit 2 "a JSON trace that is not a transcript is bad input"
expect_err_contains "not a JSON agent transcript" "and says so"

fake_reset
run $GEN "add an example" --from out/magic-words --no-eval -o "$T/out10/magic-words"
expect_exit 0 "generate --from a skill folder improves it"
expect_err_contains "Improving magic-words with anthropic.teacher..." "upskill's improve line"
check "the improve prompt holds the current skill" grep -q 'You are improving an existing skill document' "$FAKE_LOG"
check "the improved skill keeps the existing tests" python3 -c "
import json; m = json.load(open('out10/magic-words/skill_meta.json'))
assert len(m['tests']) == 2 and m['metadata']['source_task'] == 'Improved from magic-words: add an example', m"

# ---- 6. kernel tasks: fixtures ---------------------------------------------------
mkdir -p "$T/fx"
cp -r "$SKILLCI_ROOT/fixtures/softmax" "$SKILLCI_ROOT/fixtures/transpose" "$T/fx/"
fake_reset
run $GEN "write fast CUDA softmax kernels" --fixtures "$T/fx" --fixture transpose --max-refine 0 -o "$T/out11/magic-words"
expect_exit 2 "copied fixtures are not pinned: refused"
expect_err_contains "transpose" "the refusal names the fixture"
run $GEN "write fast CUDA softmax kernels" --fixtures "$T/fx" --allow-unpinned --fixture transpose --max-refine 0 -o "$T/out11/magic-words"
expect_exit 0 "generate with --fixture exits 0"
# The students answer "wrong" (no code): the kernel harness, not a skip,
# must have judged their kernel units.
if [ -z "${HAVE_CUDA:-}" ]; then
	skip "kernel units go through the kernel harness" "not built with CUDA"
elif ! command -v sqlite3 > /dev/null; then
	skip "kernel units go through the kernel harness" "no sqlite3 command"
else
	check "kernel units go through the kernel harness" test "$(sqlite3 "$T/r4.db" \
		"SELECT DISTINCT error_class FROM units WHERE fixture = 'transpose'")" = no_code
fi
check "--fixture forces a kernel test with the fixture's prompt" python3 - out11/magic-words "$T/fx/transpose/prompt.md" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1] + "/skill_meta.json"))["tests"]
k = [x for x in t if "fixture" in x]
assert [x["fixture"] for x in k] == ["transpose"], t
assert k[0]["input"] == open(sys.argv[2]).read(), k[0]["input"][:80]
EOF
run "$SKILLCI" validate out11/magic-words
expect_exit 0 "a skill with kernel tests validates"
cat > "$T/s7.json" <<EOF
{"rules": [
 {"match": {"system": "$GEN_SYS"}, "reply": {"text": "$(skill_json MAGIC-V1)"}},
 {"match": {"system": "$TEST_SYS", "first": 1}, "reply": {"text": "{\"cases\": [{\"fixture\": \"no-such\"}]}"}},
 {"match": {"system": "$TEST_SYS"}, "reply": {"text": "{\"cases\": [{\"fixture\": \"softmax\"}, {\"input\": \"Q2\", \"expected\": {\"contains\": [\"answer-ok\"]}}]}"}}
], "default": {"text": "wrong"}}
EOF
fake_script "$T/s7.json"
fake_reset
run $GEN "write fast CUDA softmax kernels" --fixtures "$T/fx" --allow-unpinned --max-refine 0 -o "$T/out12/magic-words"
expect_exit 0 "the teacher picks fixtures for a kernel task"
check "the test prompt lists the fixtures" grep -q 'softmax: Row softmax (fp32)' "$FAKE_LOG"
check "an unknown fixture is sent back, the listed one kept" python3 -c "
import json; t = json.load(open('out12/magic-words/skill_meta.json'))['tests']
assert [x.get('fixture') for x in t] == ['softmax', None], t"

# ---- usage -------------------------------------------------------------------------
run "$SKILLCI" generate
expect_exit 2 "no task: usage error"
run "$SKILLCI" generate "task" -m nope.model
expect_exit 2 "a bad model name is a usage error"
run "$SKILLCI" generate "task" -o "$T/Bad_Name"
expect_exit 2 "an output folder that cannot be a skill name is refused"
run "$SKILLCI" generate --help
expect_exit 0 "--help"
expect_out_contains "--max-refine N" "--help lists the options"

done_testing
