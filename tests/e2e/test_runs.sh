# skillci runs: history from the results store written by `skillci eval`
# (per-model bars, the skill x model matrix, every run, --csv, filters).
. tests/e2e/lib.sh
. tests/fakes/fake.sh

# Two skills with 4 tests each; the fake passes tests marked [S+] when the
# skill is in the system prompt and [B+] without it.
mk_skill() {  # mk_skill NAME MARKS... (one mark string per test)
	d="$T/skills/$1"; shift
	mkdir -p "$d"
	printf -- '---\nname: %s\ndescription: History test skill.\n---\nSay OK.\n' "$(basename "$d")" > "$d/SKILL.md"
	python3 - "$d/skill_meta.json" "$@" <<'EOF'
import json, sys
tests = [{"input": "T%d %s" % (i, m), "expected": {"contains": ["ok-word"]}} for i, m in enumerate(sys.argv[2:])]
json.dump({"tests": tests}, open(sys.argv[1], "w"))
EOF
}
mk_skill alpha "[B+][S+]" "[S+]" "[S+]" ""      # baseline 1/4, skill 3/4
mk_skill beta "[B+][S+]" "[B+][S+]" "" ""      # baseline 2/4, skill 2/4
cat > "$T/script.json" <<'EOF'
{"rules": [
  {"match": {"system": "<skill", "contains": "[S+]"}, "reply": {"text": "ok-word", "usage": {"input": 30, "output": 10}}},
  {"match": {"system": "<skill"}, "reply": {"text": "nope", "usage": {"input": 30, "output": 10}}},
  {"match": {"contains": "[B+]"}, "reply": {"text": "OK-WORD", "usage": {"input": 10, "output": 10}}}],
 "default": {"text": "nope", "usage": {"input": 10, "output": 10}}}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=runs-test-key
DB="$T/results.db"

run "$SKILLCI" runs --store "$DB"
expect_exit 2 "no store yet exits 2"
expect_err_contains "no results store" "missing store named"
check "runs does not create a store" test ! -e "$DB"

# from the folder above the skills, as in a repository: skills are named by
# their path (skills/alpha), as every report names them
cd "$T" || exit 1
run "$SKILLCI" eval skills/alpha skills/beta -m anthropic.m-one -m anthropic.m-two --store "$DB" --no-cache --runs 1
expect_exit 0 "eval of two skills on two models"
run "$SKILLCI" eval skills/alpha -m anthropic.m-one --store "$DB" --no-cache --runs 2
expect_exit 0 "a second run of one skill"

run "$SKILLCI" runs --store "$DB"
expect_exit 0 "runs exits 0"
expect_out_contains "anthropic.m-one" "per-model section"
expect_out_contains "  skills/alpha             baseline   █████░░░░░░░░░░░░░░░     25%" "alpha baseline bar (1/4), named by its path"
expect_out_contains "                           with skill ███████████████░░░░░     75%" "alpha skill bar (3/4)"
expect_out_contains "skill \\ model" "matrix header"
check "matrix row for beta: 50% (50%) on both models" sh -c "printf '%s\n' \"\$1\" | grep -E '^skills/beta +50% \(50%\) +50% \(50%\)' >/dev/null" _ "$OUT"
check "history lists every aggregate (2 skills x 2 models x 2 variants + 2)" \
	sh -c "test \$(printf '%s\n' \"\$1\" | grep -cE '^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8} ') -eq 10" _ "$OUT"

run "$SKILLCI" runs --store "$DB" -s beta -m anthropic.m-two
expect_exit 0 "filtered runs exit 0"
expect_out_lacks "alpha" "skill filter drops alpha"
expect_out_lacks "anthropic.m-one" "model filter drops m-one"

run "$SKILLCI" runs --store "$DB" --metric tokens -s alpha -m anthropic.m-one
expect_exit 0 "--metric tokens"
# alpha: baseline units use 10+10 tokens, skill units 30+10
expect_out_contains "baseline   ██████████░░░░░░░░░░      20" "baseline mean tokens 20, bar scaled to the maximum"
expect_out_contains "with skill ████████████████████      40" "skill mean tokens 40"

run "$SKILLCI" runs --store "$DB" --csv "$T/runs.csv"
expect_exit 0 "--csv exits 0"
check "csv has a header and 10 rows" test "$(wc -l < "$T/runs.csv")" -eq 11
check "csv holds the exact pass rates" python3 - "$T/runs.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
a = [r for r in rows if r["skill_name"] == "alpha" and r["model"] == "anthropic.m-one"]
assert [(r["variant"], float(r["pass_rate"]), int(r["n"])) for r in a] == \
    [("baseline", 0.25, 4), ("head", 0.75, 4), ("baseline", 0.25, 8), ("head", 0.75, 8)], a
assert all(r["speedup_geomean"] == "" for r in rows)
EOF

run "$SKILLCI" runs --store "$DB" -s nothing-here
expect_exit 0 "unknown skill is not an error"
expect_out_contains "no runs for skill nothing-here" "says there is nothing"
run "$SKILLCI" runs --store "$DB" --metric speed
expect_exit 2 "unknown metric exits 2"
run "$SKILLCI" runs --store "$DB" extra
expect_exit 2 "stray argument exits 2"

done_testing
