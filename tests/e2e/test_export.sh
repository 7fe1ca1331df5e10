# skillci export: a stored run becomes chat-format JSONL whose lines parse
# and whose counts match the store (read with the sqlite3 CLI when it is
# installed, else through skillci runs --csv).
. tests/e2e/lib.sh
. tests/fakes/fake.sh

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
tests = [{"input": "Q%d: say the magic word %s" % (i, "[S+]" if i <= 3 else ""),
          "expected": {"contains": ["answer-ok"]}} for i in range(1, 5)]
json.dump({"tests": tests}, open(sys.argv[1], "w"), indent=1)
EOF
cat > "$T/script.json" <<'EOF'
{"rules": [
  {"match": {"model": "broken"}, "reply": {"status": 400, "error_message": "bad"}},
  {"match": {"system": "<skill", "contains": "[S+]"}, "reply": {"text": "Here it is: ANSWER-OK", "usage": {"input": 100, "output": 20}}}
 ],
 "default": {"text": "wrong", "usage": {"input": 50, "output": 30}}}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-export-secret
cd "$T" || exit 1
DB="$T/results.db"

run "$SKILLCI" eval skills/greeter -m anthropic.student --runs 2 --store "$DB" --no-cache
expect_exit 0 "eval stores a run"
# 4 tests x 2 runs x (baseline + skill) = 16 units; with the skill, Q1-Q3 pass
# twice (6), baseline none.
run "$SKILLCI" eval skills/greeter -m anthropic.broken --no-baseline --store "$DB" --no-cache
# 4 error units without an answer

run "$SKILLCI" export -o "$T/all.jsonl" --store "$DB"
expect_exit 0 "export exits 0"
expect_out_contains "exported 16 units to $T/all.jsonl" "every answered unit exported"
expect_out_contains "left out: 4 without an answer" "error units without an answer are left out"

if command -v sqlite3 > /dev/null 2>&1; then
	total=$(sqlite3 "$DB" "SELECT count(*) FROM units WHERE transcript LIKE '%\"assistant\"%'")
	passing=$(sqlite3 "$DB" "SELECT count(*) FROM units WHERE verdict = 'pass'")
	student=$(sqlite3 "$DB" "SELECT count(*) FROM units WHERE model = 'anthropic.student'")
	check "the store holds 20 units (read with sqlite3)" test "$(sqlite3 "$DB" 'SELECT count(*) FROM units')" -eq 20
else
	# runs --csv: one row per aggregate with n = passed + failed + errors + skipped
	"$SKILLCI" runs --store "$DB" --csv "$T/runs.csv" > /dev/null 2>&1
	total=$(python3 -c "
import csv; r = list(csv.DictReader(open('$T/runs.csv')))
print(sum(int(x['passed']) + int(x['failed']) + int(x['skipped']) for x in r))")
	passing=$(python3 -c "
import csv; print(sum(int(x['passed']) for x in csv.DictReader(open('$T/runs.csv'))))")
	student=$total
fi
check "JSONL line count equals the store's answered units ($total)" test "$(wc -l < "$T/all.jsonl")" -eq "$total"

check "every line parses: messages and metadata" python3 - "$T/all.jsonl" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "empty"
seen = {"baseline": 0, "head": 0}
for l in lines:
    d = json.loads(l)
    assert set(d) == {"messages", "metadata"}, d.keys()
    roles = [m["role"] for m in d["messages"]]
    m = d["metadata"]
    seen[m["variant"]] += 1
    if m["variant"] == "head":
        assert roles == ["system", "user", "assistant"], roles
        assert '<skill name="greeter">' in d["messages"][0]["content"]
        assert "Always answer with ANSWER-OK." in d["messages"][0]["content"]
        assert m["system"] == "skill"
    else:
        assert roles == ["user", "assistant"], roles
        assert m["system"] == "none"
    assert d["messages"][-2]["content"].startswith("Q"), d["messages"][-2]
    for k in ("verdict", "tokens", "speedup", "fixture_hash", "skill", "model", "test_id",
              "run_id", "skill_hash", "test_hash", "turns"):
        assert k in m, k
    assert m["skill"] == "skills/greeter" and m["skill_name"] == "greeter"
    assert m["tokens"]["input"] > 0 and m["tokens"]["output"] > 0
    ok = m["verdict"] == "pass"
    assert ok == ("ANSWER-OK" in d["messages"][-1]["content"]), d
assert seen == {"baseline": 8, "head": 8}, seen
EOF

run "$SKILLCI" export --passing -o "$T/pass.jsonl" --store "$DB"
expect_exit 0 "export --passing exits 0"
check "--passing: line count equals the store's passing units ($passing)" test "$(wc -l < "$T/pass.jsonl")" -eq "$passing"
check "--passing: six lines, every verdict pass" python3 -c "
import json; l = [json.loads(x) for x in open('$T/pass.jsonl')]
assert len(l) == 6 and all(x['metadata']['verdict'] == 'pass' for x in l), len(l)"

run "$SKILLCI" export -m anthropic.student -s greeter -o "$T/student.jsonl" --store "$DB"
check "-m and -s filter by model and skill name ($student)" test "$(wc -l < "$T/student.jsonl")" -eq "$student"
run "$SKILLCI" export -s nothing -o "$T/none.jsonl" --store "$DB"
expect_out_contains "exported 0 units" "an unknown skill exports nothing"
check "an empty export is an empty file" test -f "$T/none.jsonl" -a ! -s "$T/none.jsonl"

run "$SKILLCI" export --min-speedup 1.5 -o "$T/fast.jsonl" --store "$DB"
expect_out_contains "exported 0 units" "--min-speedup keeps only kernel units that fast"
expect_out_contains "20 below --min-speedup" "and says how many it left out"

# A changed skill folder: the system prompt cannot be rebuilt, and says so.
printf '\nMore text.\n' >> skills/greeter/SKILL.md
run "$SKILLCI" export -o "$T/changed.jsonl" --store "$DB"
expect_err_contains "warning: 8 units written without the system prompt" "a changed skill is reported"
check "changed skill: system marked unavailable" python3 -c "
import json; l = [json.loads(x) for x in open('$T/changed.jsonl')]
h = [x for x in l if x['metadata']['variant'] == 'head']
assert h and all(x['metadata']['system'] == 'unavailable' and x['messages'][0]['role'] == 'user' for x in h)"

# The write is atomic: a target that cannot be replaced (a folder) fails
# with exit 3 and leaves neither a partial file nor a temp file behind.
mkdir -p "$T/target.jsonl"
run "$SKILLCI" export -o "$T/target.jsonl" --store "$DB"
expect_exit 3 "an output that cannot be written is an infrastructure error"
check "the folder is untouched, no temp file beside it" sh -c "[ -d '$T/target.jsonl' ] && [ -z \"\$(ls -A '$T/target.jsonl')\" ] && ! ls -a '$T' | grep -q '^\.\?target.jsonl.'"
check "no temp file left beside the output" sh -c "! ls '$T' | grep -q '^all.jsonl.'"
check "no API key in the export" sh -c "! grep -q sk-test-export-secret '$T/all.jsonl'"

run "$SKILLCI" export -o "$T/x.jsonl" --store "$T/missing.db"
expect_exit 2 "a missing store is bad input"
check "a missing store is not created" test ! -e "$T/missing.db"
run "$SKILLCI" export --store "$DB"
expect_exit 2 "-o is required"
run "$SKILLCI" export -o x --min-speedup fast --store "$DB"
expect_exit 2 "--min-speedup must be a number"

done_testing
