# skillci list: a tree of skills with descriptions; -v adds sizes and files.
. tests/e2e/lib.sh

C=tests/corpus

# The example skills, from the default folder (skills/ in the repo root).
run "$SKILLCI" list
expect_exit 0 "list: exit 0"
n=$(find skills -name SKILL.md | wc -l)
expect_out_contains "skills ($n skills)" "list: defaults to skills/ and counts its skills"
for f in skills/*/SKILL.md; do
	name=$(basename "$(dirname "$f")")
	expect_out_contains "── $name" "list: shows $name"
done
expect_out_contains "Write clear git commit messages" "list: shows the description"

# Descriptions are one line, shortened; block scalars are joined.
run "$SKILLCI" list -d "$C/block-scalars"
expect_out_contains "A folded description over two lines." "list: folded description on one line"
run "$SKILLCI" list -d "$C/description-multibyte-ok"
expect_out_contains "ééé..." "list: long description shortened"
expect_out_lacks "$(printf 'é%.0s' $(seq 1 150))" "list: long description not printed whole"

# Nested skills appear under their parent; -v lists each skill's own files.
run "$SKILLCI" list -v -d "$C/nested"
expect_exit 0 "list -v nested: exit 0"
check "list -v nested: inner under outer, files owned by the nearest skill" python3 -c '
import sys
lines = sys.argv[1].splitlines()
assert lines[0] == "tests/corpus/nested (2 skills)", lines[0]
outer = next(i for i, l in enumerate(lines) if l.endswith("── outer"))
inner = next(i for i, l in enumerate(lines) if l.endswith("── inner"))
assert inner > outer
# inner is indented deeper than outer
assert lines[inner].index("──") > lines[outer].index("──"), lines
outer_block = lines[outer:inner]
assert any(l.strip() == "notes.md" for l in outer_block), outer_block
assert not any("inner/" in l for l in outer_block), outer_block
assert any("2 files" in l for l in outer_block), outer_block
' "$OUT"

# A skill with problems is still listed; the errors are noted on stderr.
run "$SKILLCI" list -d "$C/name-mismatch"
expect_exit 0 "list with a broken skill: exit 0"
expect_out_contains "other-name (name-mismatch)" "list: name and folder both shown when they differ"
expect_err_contains "see 'skillci validate" "list: points at validate for problems"

# Bad usage.
run "$SKILLCI" list -d "$T/nope"
expect_exit 2 "list -d missing folder: exit 2"
run "$SKILLCI" list extra
expect_exit 2 "list with a stray argument: exit 2"

done_testing
