# Agent runs (docs/evaluation.md, "Agent runs") against the fake model
# server scripted to call tools over each API's own wire format: a student
# that writes the file passes file_contains and command, one that does not
# fails; the same suite without the skill is the baseline; trigger tests
# are decided by whether SKILL.md was opened, and shown in the Markdown
# and the JUnit; an --offline replay gives the same verdicts with no
# request. Without a working jail the agent units are errors "jail
# unavailable" and the cases that need a jail skip, saying so.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

# A skill whose value is in its script: the student that reads SKILL.md
# and runs scripts/stamp.sh writes the report the verifiers look for.
S="$T/skills/reporter"
mkdir -p "$S/scripts" "$S/tests" "$S/evals"
cat > "$S/SKILL.md" <<'EOF'
---
name: reporter
description: Writes status reports into report.txt. Use when asked for a status report file.
---
# Reporter

Run `sh .skills/reporter/scripts/stamp.sh > report.txt` in the workspace.
EOF
cat > "$S/scripts/stamp.sh" <<'EOF'
echo "status: DONE (stamped by the reporter skill)"
EOF
cat > "$S/tests/agent.json" <<'EOF'
{"cases": [
  {"id": "good", "input": "Write the status report [GOOD]",
   "verifiers": [
     {"type": "file_contains", "path": "report.txt", "values": ["DONE", "stamped"]},
     {"type": "command", "command": "grep -q 'status: DONE' report.txt"}]},
  {"id": "bad", "input": "Write the status report [BAD]",
   "verifiers": [
     {"type": "file_contains", "path": "report.txt", "values": ["DONE"]},
     {"type": "command", "command": "test -s report.txt"}]}
]}
EOF
cat > "$S/evals/eval_queries.json" <<'EOF'
[
  {"query": "I need the weekly status report file written [T1]", "should_trigger": true},
  {"query": "can you put our project status into a report [T2]", "should_trigger": true},
  {"query": "what is 2 + 2 [T3]", "should_trigger": false},
  {"query": "convert this json to yaml [T4]", "should_trigger": false}
]
EOF

# The student. With the skill listed (<available_skills> in the system
# prompt): [GOOD] reads SKILL.md, runs the skill's script, answers;
# [BAD] looks around and answers without writing. Without the skill
# (baseline) [GOOD] writes a report without the stamp. Trigger queries:
# T1 opens SKILL.md, T2 does not (a miss), T3 does not, T4 does (a false
# trigger).
cat > "$T/script.json" <<'EOF'
{"rules": [
  {"match": {"input": "[ERR]"}, "reply": {"status": 400, "error_message": "refused by the fake"}},
  {"match": {"system": "<available_skills>", "input": "[GOOD]", "turn": 1},
   "reply": {"text": "Reading the skill.",
             "tool_calls": [{"name": "read_file", "input": {"path": ".skills/reporter/SKILL.md"}}]}},
  {"match": {"system": "<available_skills>", "input": "[GOOD]", "turn": 2, "tool_result": "stamp.sh"},
   "reply": {"tool_calls": [{"name": "run", "input": {"command": "sh .skills/reporter/scripts/stamp.sh > report.txt && cat report.txt"}}]}},
  {"match": {"system": "<available_skills>", "input": "[GOOD]", "turn": 3, "tool_result": "DONE"},
   "reply": {"text": "The report is in report.txt.", "usage": {"input": 300, "output": 20}}},
  {"match": {"input": "[GOOD]", "turn": 1},
   "reply": {"tool_calls": [{"name": "write_file", "input": {"path": "report.txt", "content": "status: DONE\n"}}]}},
  {"match": {"input": "[GOOD]", "turn": 2},
   "reply": {"text": "Wrote report.txt."}},
  {"match": {"input": "[BAD]", "turn": 1},
   "reply": {"tool_calls": [{"name": "list_files", "input": {"path": "."}}]}},
  {"match": {"input": "[BAD]", "turn": 2},
   "reply": {"text": "Nothing to do."}},
  {"match": {"input": "[T1]", "turn": 1},
   "reply": {"tool_calls": [{"name": "read_file", "input": {"path": "/workspace/.skills/reporter/SKILL.md"}}]}},
  {"match": {"input": "[T4]", "turn": 1},
   "reply": {"tool_calls": [{"name": "run", "input": {"command": "cat .skills/reporter/SKILL.md"}}]}},
  {"match": {"input": "[T"},
   "reply": {"text": "Here you go."}}
], "default": {"text": "unscripted"}}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-agent-key
export OPENAI_BASE_URL="$FAKE_URL/v1" OPENAI_API_KEY=sk-test-agent-key
EVAL="$SKILLCI eval $S -m anthropic.fake-student --runs 1 --cache $T/cache"

run $EVAL --store "$T/r1.db" --json "$T/r1.json"
unit() {  # unit FILE VARIANT TEST_ID FIELD: one field of one unit
	python3 -S - "$@" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for u in r["units"]:
    if u["variant"] == sys.argv[2] and u["test_id"].endswith(sys.argv[3]):
        print(u.get(sys.argv[4]))
        break
EOF
}
if grep -q "jail unavailable" "$T/r1.json" 2>/dev/null; then
	why=$(unit "$T/r1.json" head "#good" message)
	expect_exit 3 "without a jail the agent units are errors (exit 3)"
	check "the error says the jail is unavailable" sh -c "echo '$why' | grep -q '^jail unavailable'"
	skip "agent runs in the jail" "$why"
	done_testing
	exit
fi
expect_exit 0 "eval with agent units exits 0"
check "the student that writes the report passes file_contains and command" \
	test "$(unit "$T/r1.json" head "#good" verdict)" = pass
check "the agent unit ran three turns" test "$(unit "$T/r1.json" head "#good" turns)" = 3
check "the unit is an agent run" test "$(unit "$T/r1.json" head "#good" kind)" = agent
check "the student that does not write fails" test "$(unit "$T/r1.json" head "#bad" verdict)" = fail
check "its message names the verifier and the file" sh -c \
	"unit() { :; }; python3 -S -c \"import json; u=[u for u in json.load(open('$T/r1.json'))['units'] if u['variant']=='head' and u['test_id'].endswith('#bad')][0]; assert 'file_contains' in u['message'] and 'report.txt' in u['message'], u['message']\""
check "the baseline (no skill) writes a report without the stamp: fails" \
	test "$(unit "$T/r1.json" baseline "#good" verdict)" = fail
check "the baseline's failure is the skill's value: the file lacks the stamp" sh -c \
	"python3 -S -c \"import json; u=[u for u in json.load(open('$T/r1.json'))['units'] if u['variant']=='baseline' and u['test_id'].endswith('#good')][0]; assert \\\"lacks 'stamped'\\\" in u['message'], u['message']\""
check "a failed agent unit's excerpt is its trace of tool calls" sh -c \
	"python3 -S -c \"import json; u=[u for u in json.load(open('$T/r1.json'))['units'] if u['variant']=='head' and u['test_id'].endswith('#bad')][0]; e=u['excerpt']; assert 'turn 1' in e and 'list_files(.)' in e and 'answer: Nothing to do.' in e, e\""

# Trigger tests: T1 opened (pass), T2 missed (fail), T3 closed (pass),
# T4 opened wrongly (fail, a false trigger): recall 1/2, false rate 1/2.
check "a should_trigger query that opens SKILL.md passes" \
	test "$(unit "$T/r1.json" head "eval_queries.json#0" verdict)" = pass
check "one that leaves it closed fails (not_triggered)" \
	test "$(unit "$T/r1.json" head "eval_queries.json#1" error_class)" = not_triggered
check "a should_not_trigger query left closed passes" \
	test "$(unit "$T/r1.json" head "eval_queries.json#2" verdict)" = pass
check "one that opens it (cat in run) fails (false_trigger)" \
	test "$(unit "$T/r1.json" head "eval_queries.json#3" error_class)" = false_trigger
check "trigger tests are skipped in the baseline (no skill listed)" \
	test "$(unit "$T/r1.json" baseline "eval_queries.json#0" verdict)" = skipped
check "the aggregate has recall 1/2 and false-trigger rate 1/2" python3 -S - "$T/r1.json" <<'EOF'
import json, sys
a = [a for a in json.load(open(sys.argv[1]))["aggregates"] if a["variant"] == "head"][0]
t = a["triggers"]
assert (t["should"], t["opened"], t["should_not"], t["opened_wrongly"]) == (2, 1, 2, 1), t
assert t["recall"] == 0.5 and t["false_trigger_rate"] == 0.5, t
EOF

# The wire format: tools offered, tool_use answered by tool_result blocks.
check "the requests offer the four tools and send tool results back" python3 -S - "$FAKE_LOG" <<'EOF'
import json, sys
reqs = [json.loads(l)["body"] for l in open(sys.argv[1])]
names = sorted(t["name"] for t in reqs[0]["tools"])
assert names == ["list_files", "read_file", "run", "write_file"], names
assert all("input_schema" in t for t in reqs[0]["tools"])
res = [b for r in reqs for m in r["messages"] if isinstance(m["content"], list)
       for b in m["content"] if b.get("type") == "tool_result"]
assert any("stamp.sh" in b["content"] for b in res), res
uses = [b for r in reqs for m in r["messages"] if m["role"] == "assistant" and isinstance(m["content"], list)
        for b in m["content"] if b.get("type") == "tool_use"]
assert uses and all(b["id"].startswith("toolu_fake_") for b in uses), uses
EOF
check "the system prompt lists the skill with its location" python3 -S - "$FAKE_LOG" <<'EOF'
import json, sys
s = [json.loads(l)["body"].get("system", "") for l in open(sys.argv[1])]
assert any("<name>reporter</name>" in x and "/workspace/.skills/reporter/SKILL.md" in x
           and "Writes status reports" in x for x in s), s[:1]
assert any("<available_skills>" not in x for x in s), "the baseline lists no skill"
EOF
check "no API key in the results or the transcripts" sh -c \
	"! grep -rq sk-test-agent-key '$T/r1.json' '$T/.out' '$T/.err'"

# The transcript in the store records every turn: tool name, arguments,
# output and tokens.
check "the stored transcript records each tool call with its output and tokens" python3 -S - "$T/r1.db" <<'EOF'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = [r[0] for r in db.execute("SELECT transcript FROM units WHERE variant='head' AND test_id LIKE '%#good'")]
t = json.loads(rows[0])
assert [m["role"] for m in t] == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"], t
assert "<available_skills>" in t[0]["content"] and len(t[0]["tools"]) == 4
assert t[2]["tool_calls"][0]["name"] == "read_file" and "usage" in t[2]
assert t[5]["name"] == "run" and t[5]["content"] == "exit 0\nstatus: DONE (stamped by the reporter skill)\n", t[5]
assert t[6]["usage"]["input_tokens"] == 300
EOF
run "$SKILLCI" export -o "$T/export.jsonl" --passing --store "$T/r1.db"
expect_exit 0 "export writes the agent runs"
check "export: an agent run with its prompt, tools, calls and results" python3 -S - "$T/export.jsonl" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
a = [l for l in lines if l["metadata"]["kind"] == "agent"][0]
assert [m["role"] for m in a["messages"]] == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"], a
assert "<available_skills>" in a["messages"][0]["content"]
assert [t["function"]["name"] for t in a["tools"]] == ["read_file", "list_files", "write_file", "run"]
call = a["messages"][2]["tool_calls"][0]
assert call["type"] == "function" and call["function"]["name"] == "read_file"
assert a["messages"][3]["tool_call_id"] == call["id"]
EOF

# Reports: the trigger decisions and the agent's trace.
run "$SKILLCI" report "$T/r1.json" --markdown-full "$T/r1.md" --junit "$T/r1.xml"
expect_exit 0 "report renders the agent run"
check "Markdown: the trigger rates in the skill's row" grep -q "triggers: recall 1/2 (50%), false triggers 1/2 (50%)" "$T/r1.md"
check "Markdown: each trigger test with its decision" grep -q "trigger test, should trigger: opened the skill in 0 of 1 run" "$T/r1.md"
check "Markdown: the opened one says when" grep -q "opened SKILL.md (turn 1); should trigger" "$T/r1.md"
check "Markdown: a failed agent unit shows its tool calls" grep -q "list\\\\_files(.)" "$T/r1.md"
check "JUnit: trigger tests carry their expectation and decision" sh -c \
	"grep -q 'trigger=should_not_trigger' '$T/r1.xml' && grep -q 'triggered=yes' '$T/r1.xml' && grep -q 'triggered=no' '$T/r1.xml'"
check "JUnit: recall and false-trigger rate as properties" sh -c \
	"grep -q 'head trigger_recall\" value=\"0.5000 (1 of 2' '$T/r1.xml' && grep -q 'false_trigger_rate' '$T/r1.xml'"
check "JUnit: a failed agent unit's body has its trace" grep -q "agent: turn 1" "$T/r1.xml"

# A replay from the cache: the same verdicts, no request.
before=$(fake_stat requests)
run $EVAL --store "$T/r2.db" --json "$T/r2.json" --offline
expect_exit 0 "the offline replay exits 0"
check "the offline replay sent no request" test "$(fake_stat requests)" -eq "$before"
check "the offline replay gives the same verdicts" python3 -S - "$T/r1.json" "$T/r2.json" <<'EOF'
import json, sys
v = [sorted((u["variant"], u["test_id"], u["verdict"], u.get("error_class") or "")
            for u in json.load(open(f))["units"]) for f in sys.argv[1:]]
assert v[0] == v[1], v
EOF
expect_out_contains "requests: 0" "the replay's totals say no request"

# Reuse: the same units from the store by content hash, nothing asked
# (the baseline's trigger units are decided without a request, never stored).
before=$(fake_stat requests)
run $EVAL --store "$T/r1.db" --json "$T/r3.json"
check "a rerun reuses every evaluated unit from the store" python3 -S -c \
	"import json; u=json.load(open('$T/r3.json'))['units']; assert all(x['reused'] for x in u if x['verdict'] != 'skipped'), [x for x in u if not x['reused']]"
check "the rerun sent no request" test "$(fake_stat requests)" -eq "$before"
check "a reused failed agent unit keeps its trace" sh -c \
	"python3 -S -c \"import json; u=[u for u in json.load(open('$T/r3.json'))['units'] if u['variant']=='head' and u['test_id'].endswith('#bad')][0]; assert 'list_files' in u['excerpt'], u\""

# OpenAI's wire format: tool_calls and role "tool" messages.
fake_reset
run $SKILLCI eval "$S" -m openai.gpt-4.1-mini --runs 1 --no-baseline --store "$T/o.db" --json "$T/o.json" --no-cache
expect_exit 0 "eval over OpenAI chat completions with tools"
check "OpenAI: the same verdicts" sh -c \
	"test \"\$(python3 -S -c \"import json; print(sorted((u['test_id'][-6:], u['verdict']) for u in json.load(open('$T/o.json'))['units']))\")\" = \"\$(python3 -S -c \"import json; print(sorted((u['test_id'][-6:], u['verdict']) for u in json.load(open('$T/r1.json'))['units'] if u['variant'] == 'head'))\")\""
check "OpenAI: tools as functions, results as role tool messages" python3 -S - "$FAKE_LOG" <<'EOF'
import json, sys
reqs = [json.loads(l)["body"] for l in open(sys.argv[1])]
assert all(t["type"] == "function" for t in reqs[0]["tools"])
msgs = [m for r in reqs for m in r["messages"]]
calls = [m for m in msgs if m["role"] == "assistant" and m.get("tool_calls")]
tools = [m for m in msgs if m["role"] == "tool"]
assert calls and tools and all(m["tool_call_id"].startswith("call_fake_") for m in tools)
assert all(isinstance(c["function"]["arguments"], str) for m in calls for c in m["tool_calls"])
EOF

# A judge scores an agent unit's final answer beside its verdict.
run $SKILLCI eval "$S" -m anthropic.fake-student --judge anthropic.fake-judge --no-baseline \
	--no-cache --store "$T/jd.db" --json "$T/jd.json"
expect_exit 0 "eval with a judge over agent units"
check "the judge leaves the agent's verdicts as they were" \
	test "$(unit "$T/jd.json" head "#good" verdict)" = pass

# A request that fails while the unit's jail is still starting: the unit
# is an error once the start is back (never freed under it).
E="$T/skills/erring"
mkdir -p "$E/tests"
printf -- '---\nname: erring\ndescription: Its requests fail.\n---\n# Erring\n' > "$E/SKILL.md"
printf '{"cases": [{"input": "fail at once [ERR]", "verifiers": [{"type": "file_exists", "path": "x"}]}]}\n' \
	> "$E/tests/agent.json"
run $SKILLCI eval "$E" -m anthropic.fake-student --no-baseline --no-cache --store "$T/er.db" \
	--json "$T/er.json" --retries 0
check "a failed first turn makes the agent unit an error (provider)" sh -c \
	"test \"\$(python3 -S -c \"import json; u=json.load(open('$T/er.json'))['units'][0]; print(u['verdict'], u['error_class'], 'refused by the fake' in u['message'])\")\" = 'error provider True'"

# agent.mode never: workspace verifiers cannot be checked in one chat
# request (unverified, needs_agent); trigger tests are unverified too.
run $SKILLCI eval "$S" -m anthropic.fake-student --agent never --no-baseline --no-cache \
	--store "$T/n.db" --json "$T/n.json"
check "--agent never: the workspace test is unverified (needs_agent)" \
	test "$(unit "$T/n.json" head "#good" error_class)" = needs_agent
check "--agent never: a trigger test is unverified" \
	test "$(unit "$T/n.json" head "eval_queries.json#0" verdict)" = unverified

# skillci run on a pull request: the head's description no longer makes
# the student open the skill (the fake opens it only when the listed
# description says "status reports"), so the head's trigger test fails
# where the base's passed, and the agent tests run on both sides; two
# shards merged give the units of one run.
R="$T/repo"
mkdir -p "$R/skills"
cp -r "$S" "$R/skills/reporter"
git -C "$R" init -q -b main
git -C "$R" -c user.email=ci@example.com -c user.name=ci add -A
git -C "$R" -c user.email=ci@example.com -c user.name=ci commit -q -m base
RBASE=$(git -C "$R" rev-parse HEAD)
sed -i 's/^description: .*/description: Formats dates./' "$R/skills/reporter/SKILL.md"
git -C "$R" -c user.email=ci@example.com -c user.name=ci commit -q -a -m "head: a new description"
RHEAD=$(git -C "$R" rev-parse HEAD)
python3 -S - "$T/script.json" "$T/script-run.json" <<'EOF2'
import json, sys
s = json.load(open(sys.argv[1]))
for r in s["rules"]:
    if r["match"].get("input") == "[T1]":
        r["match"]["system"] = "status reports"
json.dump(s, open(sys.argv[2], "w"))
EOF2
curl -s -X POST --data-binary @"$T/script-run.json" "$FAKE_URL/_fake/script" > /dev/null
RUNA="$SKILLCI run --repo $R --base $RBASE --head $RHEAD -m anthropic.fake-student --no-cache --runs 1 --report-dir $T/rd-default"
cd "$T" || exit 1  # run's work folder and default reports go under the current folder
run $RUNA --store "$T/run.db" --json "$T/run.json" --markdown "$T/run.md" --junit "$T/run.xml"
check "run: the base's trigger test opened the skill" test "$(unit "$T/run.json" base "eval_queries.json#0" verdict)" = pass
check "run: the head's description no longer triggers it" test "$(unit "$T/run.json" head "eval_queries.json#0" error_class)" = not_triggered
check "run: the agent tests ran on both sides" sh -c \
	"test \"\$(python3 -S -c \"import json; print(sorted((u['variant'], u['verdict']) for u in json.load(open('$T/run.json'))['units'] if u['test_id'].endswith('#good')))\")\" = \"[('base', 'pass'), ('baseline', 'fail'), ('head', 'pass')]\""
check "run: the Markdown shows the head's recall beside the base's" grep -q "recall 0/2 (0%) \\[base 1/2\\]" "$T/run.md"
for k in 1 2; do
	run $RUNA --store "$T/shard$k.db" --shard "$k/2" --json "$T/shard$k.json"
done
run $SKILLCI merge "$T/shard1.json" "$T/shard2.json" --json "$T/merged.json" --report-dir "$T/rd-merge"
check "run: two shards merged hold the units of one run, the same verdicts" python3 -S - "$T/run.json" "$T/merged.json" "$T/shard1.json" <<'EOF2'
import json, sys
v = [sorted((u["variant"], u["test_id"], u["verdict"]) for u in json.load(open(f))["units"]) for f in sys.argv[1:3]]
assert v[0] == v[1], v
assert 0 < len(json.load(open(sys.argv[3]))["units"]) < len(v[0])
EOF2
curl -s -X POST --data-binary @"$T/script.json" "$FAKE_URL/_fake/script" > /dev/null
cd "$SKILLCI_ROOT" || exit 1

# No jail, no run: bubblewrap missing makes every agent unit an error and
# nothing is asked or run outside a jail.
fake_reset
SKILLCI_BWRAP=/nonexistent/bwrap run $SKILLCI eval "$S" -m anthropic.fake-student --no-cache \
	--store "$T/j.db" --json "$T/j.json"
expect_exit 3 "without bubblewrap the agent units are infrastructure errors (exit 3)"
check "each says the jail is unavailable" sh -c \
	"test \"\$(python3 -S -c \"import json; print(set(u['message'].split(':')[0] for u in json.load(open('$T/j.json'))['units'] if u['verdict'] == 'error'))\")\" = \"{'jail unavailable'}\""
check "no request was sent for them" test "$(fake_stat requests)" -eq 0

done_testing
