# Test files and repository configuration end to end: `skillci validate`
# reads every test format through the test loader and reports schema errors
# with file, line and JSON path; path traversal in context files is refused
# and the refused file never shows up in any output.
. tests/e2e/lib.sh

# mkskill NAME: a valid skill folder $T/NAME.
mkskill() {
	mkdir -p "$T/$1"
	printf -- '---\nname: %s\ndescription: A skill used by the test-file cases.\n---\n\n# Steps\n\nDo it.\n' \
		"$1" > "$T/$1/SKILL.md"
}

# expect_line TEXT NAME: stdout has a line containing TEXT.
expect_line() {
	if printf '%s\n' "$OUT" | grep -qF -- "$1"; then
		_tap ok "$2"
	else
		_tap not-ok "$2" "no line with '$1'; $(_detail)"
	fi
}

# Every accepted format at once, all valid.
mkskill all-formats
cat > "$T/all-formats/skill_meta.json" <<'EOF'
{
  "metadata": {"version": "1.0", "generated_by": "sonnet", "test_pass_rate": 1.0},
  "tests": [
    {"input": "Write a commit for the login page", "expected": {"contains": ["feat"]},
     "context": {"files": {"diff.txt": "+<form id=login>"}}}
  ]
}
EOF
mkdir -p "$T/all-formats/tests" "$T/all-formats/evals/files"
printf '{"cases": [{"id": "fix", "input": "Fix null", "verifiers": [{"type": "contains", "values": ["fix"]}]}]}\n' \
	> "$T/all-formats/tests/cases.json"
printf '[{"input": "Docs only", "expected": {"contains": "docs"}}]\n' > "$T/all-formats/tests/list.json"
printf 'a,b\n1,2\n' > "$T/all-formats/evals/files/in.csv"
printf '{"skill_name": "all-formats", "evals": [{"id": 1, "prompt": "Sum b", "expected_output": "2", "files": ["evals/files/in.csv"], "expectations": ["says 2"]}]}\n' \
	> "$T/all-formats/evals/evals.json"
run "$SKILLCI" validate "$T/all-formats"
expect_exit 0 "skill_meta.json, cases, list and evals.json together are valid"
expect_out_lacks "error:" "no errors for the valid formats"

# A schema error names the file, the line and the JSON path.
mkskill schema-error
cat > "$T/schema-error/skill_meta.json" <<'EOF'
{
  "tests": [
    {"input": "a", "expected": {"contains": ["x"]}},
    {"input": "b", "expected": {"contains": 5}}
  ]
}
EOF
run "$SKILLCI" validate "$T/schema-error"
expect_exit 1 "a wrong type in skill_meta.json fails validation"
expect_line "$T/schema-error/skill_meta.json:4: error: tests[1].expected.contains must be a list of strings, found number [test-schema]" \
	"the finding names file, line and JSON path"

# A syntax error in a suite in tests/ is reported at its line.
mkskill syntax-error
mkdir -p "$T/syntax-error/tests"
printf '{\n  "cases": [\n    {"input": "a"}\n    {"input": "b"}\n  ]\n}\n' > "$T/syntax-error/tests/suite.json"
run "$SKILLCI" validate "$T/syntax-error"
expect_exit 1 "broken JSON in tests/ fails validation"
expect_line "$T/syntax-error/tests/suite.json:4: error: invalid JSON" "the syntax error has its line"

# Context files that leave the skill folder are refused, never read.
printf 'TOKEN=never-print-this\n' > "$T/secret"
mkskill traversal
ln -s "$T/secret" "$T/traversal/notes.txt"
cat > "$T/traversal/skill_meta.json" <<'EOF'
{"tests": [
  {"input": "a", "context": {"files": ["../secret"]}, "expected": {"contains": ["x"]}},
  {"input": "b", "context": {"files": ["notes.txt"]}, "expected": {"contains": ["x"]}}
]}
EOF
run "$SKILLCI" validate "$T/traversal"
expect_exit 1 "a context file outside the skill fails validation"
expect_line "skill_meta.json:2: error: tests[0].context.files[0] '../secret' is not a relative path inside the skill folder; refused [test-path]" \
	"'..' in a context file is refused"
expect_line "skill_meta.json:3: error: tests[1].context.files[0] 'notes.txt' leads outside the skill folder (symlink); refused [test-path]" \
	"a symlink out of the skill is refused"
expect_out_lacks "never-print-this" "the refused file's content is not in stdout"
expect_err_lacks "never-print-this" "the refused file's content is not in stderr"

# A kernel test with a bad fixture name.
mkskill bad-fixture
printf '{"tests": [{"input": "write softmax", "fixture": "../softmax"}]}\n' > "$T/bad-fixture/skill_meta.json"
run "$SKILLCI" validate "$T/bad-fixture"
expect_exit 1 "an invalid fixture name fails validation"
expect_line "[test-fixture]" "the fixture finding has its code"

# The example skills and their tests are valid.
run "$SKILLCI" validate skills/cuda-kernels skills/commit-messages
expect_exit 0 "the example skills' tests are valid"

done_testing
