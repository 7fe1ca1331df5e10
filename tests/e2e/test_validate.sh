# skillci validate on the broken-skill corpus (tests/corpus/): each entry
# must produce its specific finding (code, file and line) and exit code.
# Entries that git cannot keep well (symlinks, huge files, .git folders)
# are built at run time in the scratch folder $T.
. tests/e2e/lib.sh

C=tests/corpus

# expect_finding WHERE SEVERITY CODE NAME: stdout has a line
# "WHERE: SEVERITY: ... [CODE]" (WHERE is file or file:line).
expect_finding() {
	if printf '%s\n' "$OUT" | grep -F -- "$1: $2: " | grep -qF -- "[$3]"; then
		_tap ok "$4"
	else
		_tap not-ok "$4" "no line '$1: $2: ... [$3]'; $(_detail)"
	fi
}

# The corpus table: case | options | exit | where (file:line) | severity | code
while IFS='|' read -r case opts code where sev fcode; do
	case "$case" in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086
	run "$SKILLCI" validate $opts "$C/$case"
	expect_exit "$code" "$case${opts:+ $opts}: exit $code"
	expect_finding "$C/$case/$where" "$sev" "$fcode" "$case${opts:+ $opts}: $fcode at $where"
done <<'TABLE'
name-uppercase||1|SKILL.md:2|error|name-invalid
double--hyphen||1|SKILL.md:2|error|name-invalid
leading-hyphen||1|SKILL.md:2|error|name-invalid
trailing-hyphen-||1|SKILL.md:2|error|name-invalid
name-underscore||1|SKILL.md:2|error|name-invalid
aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa||1|SKILL.md:2|error|name-too-long
üüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüü||1|SKILL.md:2|error|name-too-long
name-mismatch||1|SKILL.md:2|error|name-mismatch
name-number||1|SKILL.md:2|error|field-type
name-missing||1|SKILL.md:1|error|name-missing
name-empty||1|SKILL.md:2|error|name-empty
description-missing||1|SKILL.md:1|error|description-missing
description-empty||1|SKILL.md:3|error|description-empty
description-too-long||1|SKILL.md:3|error|description-too-long
description-list||1|SKILL.md:4|error|field-type
compatibility-too-long||1|SKILL.md:4|error|compatibility-too-long
metadata-non-string||1|SKILL.md:6|error|metadata-value
metadata-not-map||1|SKILL.md:5|error|metadata-not-map
license-bool||1|SKILL.md:4|error|field-type
duplicate-field||1|SKILL.md:4|error|field-duplicate
unknown-field||0|SKILL.md:4|warning|field-unknown
unknown-field|--strict|1|SKILL.md:4|error|field-unknown
extension-fields||0|SKILL.md:4|warning|field-extension
extension-fields||0|SKILL.md:7|warning|field-extension
extension-fields|--strict|1|SKILL.md:5|error|field-extension
allowed-tools-list||0|SKILL.md:5|warning|allowed-tools-list
allowed-tools-list|--strict|1|SKILL.md:5|error|allowed-tools-list
frontmatter-missing||1|SKILL.md:1|error|frontmatter-missing
frontmatter-late||1|SKILL.md:2|error|frontmatter-missing
frontmatter-unclosed||1|SKILL.md:1|error|frontmatter-unclosed
frontmatter-not-map||1|SKILL.md:2|error|frontmatter-not-map
dash-in-value||1|SKILL.md:5|error|frontmatter-dash-in-value
yaml-syntax||1|SKILL.md:4|error|yaml-syntax
yaml-tab||1|SKILL.md:4|error|yaml-tab
bom||0|SKILL.md:1|warning|bom
crlf||0|SKILL.md:1|warning|crlf
utf8-invalid-body||1|SKILL.md:8|error|utf8-invalid
utf8-invalid-frontmatter||1|SKILL.md:3|error|utf8-invalid
link-missing||1|SKILL.md:6|error|link-missing
link-escape||1|SKILL.md:6|error|link-escape
body-empty||0|SKILL.md:4|warning|body-empty
lowercase-skill-md||0|skill.md|warning|skill-md-lowercase
broken-skill-meta||1|skill_meta.json:4|error|test-json
TABLE

# Valid entries: exit 0 and no finding at all.
for case in block-scalars yaml-comments quoted-scalars links-ok description-multibyte-ok \
	éééééééééééééééééééééééééééééééééééééééé; do
	run "$SKILLCI" validate "$C/$case"
	expect_exit 0 "$case: valid, exit 0"
	if [ -z "$OUT" ]; then _tap ok "$case: no findings"; else _tap not-ok "$case: no findings" "$(_detail)"; fi
done

# Only the specific finding, not a cascade: a name with '--' in a folder of
# the same name is one error.
run "$SKILLCI" validate "$C/double--hyphen"
expect_err_contains "1 skill, 1 error, 0 warnings" "double--hyphen: exactly one error"
run "$SKILLCI" validate "$C/dash-in-value"
expect_out_lacks "[yaml-syntax]" "dash-in-value: no YAML error on top"

# A SKILL.md path validates that one skill.
run "$SKILLCI" validate "$C/name-mismatch/SKILL.md"
expect_exit 1 "a SKILL.md path: exit 1"
expect_finding "$C/name-mismatch/SKILL.md:2" error name-mismatch "a SKILL.md path: finding"

# Nested skills are separate skills; both are validated.
run "$SKILLCI" validate "$C/nested"
expect_exit 0 "nested: exit 0"
expect_err_contains "2 skills, 0 errors" "nested: two skills"

# Hidden folders are walked; node_modules is not.
run "$SKILLCI" validate "$C/hidden-root"
expect_err_contains "1 skill, 0 errors" "a skill in a hidden folder is found"
run "$SKILLCI" validate -v "$C/node-modules-root"
expect_exit 0 "node_modules: its broken skill is not read"
expect_err_contains "1 skill, 0 errors" "node_modules: one skill"
expect_err_contains "skipped $C/node-modules-root/node_modules: node_modules" "node_modules: -v says why"

# JSON output.
run "$SKILLCI" validate --json "$C/name-mismatch" "$C/bom"
expect_exit 1 "--json: exit 1"
check "--json: findings under their skill" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = {x["name"]: x for x in d["skills"]}
assert d["summary"] == {"skills": 2, "errors": 1, "warnings": 1}, d["summary"]
f = s["other-name"]["findings"]
assert [(x["code"], x["line"], x["severity"]) for x in f] == [("name-mismatch", 2, "error")], f
assert s["other-name"]["valid"] is False and s["bom"]["valid"] is True
assert s["bom"]["findings"][0]["code"] == "bom"
assert "SKILL.md" in s["bom"]["files"]
' "$OUT"

# Usage and paths.
run "$SKILLCI" validate
expect_exit 2 "no PATH: exit 2"
run "$SKILLCI" validate "$T/does-not-exist"
expect_exit 2 "a missing PATH: exit 2"
expect_err_contains "does-not-exist' does not exist" "a missing PATH is named"
run "$SKILLCI" validate --frobnicate skills
expect_exit 2 "an unknown option: exit 2"
mkdir -p "$T/empty"
run "$SKILLCI" validate "$T/empty"
expect_exit 1 "a folder without skills: exit 1"
expect_finding "$T/empty" error no-skills "a folder without skills: no-skills"

# The example skills are clean.
run "$SKILLCI" validate skills/
expect_exit 0 "skills/: exit 0"
expect_err_contains "0 errors" "skills/: no errors"

# Huge SKILL.md: refused unread.
mkdir -p "$T/huge/huge"
python3 -c '
import sys
body = ("x" * 99 + "\n") * 11000
open(sys.argv[1], "w").write("---\nname: huge\ndescription: big\n---\n" + body)
' "$T/huge/huge/SKILL.md"
run "$SKILLCI" validate "$T/huge"
expect_exit 1 "huge SKILL.md: exit 1"
expect_finding "$T/huge/huge/SKILL.md" error file-too-large "huge SKILL.md: file-too-large"

# Long body: warnings for lines and tokens.
mkdir -p "$T/long/long-body"
python3 -c '
import sys
body = "".join("line %d of a long body with some words to count\n" % i for i in range(600))
open(sys.argv[1], "w").write("---\nname: long-body\ndescription: long\n---\n" + body)
' "$T/long/long-body/SKILL.md"
run "$SKILLCI" validate "$T/long"
expect_exit 0 "long body: only warnings"
expect_finding "$T/long/long-body/SKILL.md:5" warning body-too-long "long body: body-too-long at the first body line"
expect_finding "$T/long/long-body/SKILL.md:5" warning body-too-many-tokens "long body: body-too-many-tokens"

# Symlinks: one out of the root is a finding naming link and target; a
# SKILL.md that is such a link is not read; loops do not hang.
mkdir -p "$T/outside" "$T/links/esc" "$T/links/evil"
echo secret > "$T/outside/secret.txt"
printf -- '---\nname: esc\ndescription: links\n---\nbody\n' > "$T/links/esc/SKILL.md"
ln -s "$T/outside/secret.txt" "$T/links/esc/to-secret"
ln -s ../../outside "$T/links/esc/to-dir"
ln -s loop-b "$T/links/esc/loop-a"
ln -s loop-a "$T/links/esc/loop-b"
ln -s SKILL.md "$T/links/esc/inside-link"
printf -- '---\nname: evil\ndescription: read me\n---\nbody\n' > "$T/outside/SKILL.md"
ln -s "$T/outside/SKILL.md" "$T/links/evil/SKILL.md"
run "$SKILLCI" validate --json "$T/links"
expect_exit 1 "symlinks: exit 1"
check "symlinks: escape, loop and the unread SKILL.md" python3 -c '
import json, sys
d, t = json.loads(sys.argv[1]), sys.argv[2]
by = {}
for s in d["skills"]:
    by[s["dir"].rsplit("/", 1)[1]] = s
codes = [(f["code"], f["file"]) for f in by["esc"]["findings"]]
assert ("symlink-escape", t + "/links/esc/to-secret") in codes, codes
assert ("symlink-escape", t + "/links/esc/to-dir") in codes, codes
assert any(c == "symlink-loop" for c, _ in codes), codes
msg = [f["message"] for f in by["esc"]["findings"] if f["file"].endswith("to-secret")][0]
assert "to-secret" in msg and t + "/outside/secret.txt" in msg, msg
assert "inside-link" in by["esc"]["files"] and "to-secret" not in by["esc"]["files"]
ev = by["evil"]
assert ev["name"] is None, ev       # never read through the link
assert [f["code"] for f in ev["findings"]] == ["symlink-escape"], ev["findings"]
' "$OUT" "$T"

# A SKILL.md symlink that points at nothing: the skill is unread, an error.
mkdir -p "$T/dangle/dangling"
ln -s nowhere.md "$T/dangle/dangling/SKILL.md"
run "$SKILLCI" validate "$T/dangle"
expect_exit 1 "dangling SKILL.md link: exit 1"
expect_finding "$T/dangle/dangling/SKILL.md" error file-unreadable "dangling SKILL.md link: file-unreadable"

# .git folders and submodules are skipped, and -v says so.
mkdir -p "$T/repo/.git/hooks/x" "$T/repo/mod/inner" "$T/repo/real"
printf -- '---\nname: x\ndescription: in .git\n---\nbody\n' > "$T/repo/.git/hooks/x/SKILL.md"
printf 'gitdir: ../.git/modules/mod\n' > "$T/repo/mod/.git"
printf -- '---\nname: inner\ndescription: in a submodule\n---\nbody\n' > "$T/repo/mod/inner/SKILL.md"
printf -- '---\nname: real\ndescription: the one skill\n---\nbody\n' > "$T/repo/real/SKILL.md"
run "$SKILLCI" validate -v "$T/repo"
expect_err_contains "1 skill, 0 errors" ".git and submodule: one skill"
expect_err_contains "skipped $T/repo/.git: version control folder" ".git: skipped with reason"
expect_err_contains "skipped $T/repo/mod: submodule" "submodule: skipped with reason"

# Depth is bounded.
d="$T/deep"
for i in $(seq 1 40); do d="$d/d$i"; done
mkdir -p "$d"
run "$SKILLCI" validate "$T/deep"
expect_out_contains "[walk-depth]" "deep tree: walk-depth finding"

# The whole corpus at once: no crash, every entry read.
n=$(find "$C" \( -name SKILL.md -o -name skill.md \) | grep -vc /node_modules/)
run "$SKILLCI" validate "$C"
expect_exit 1 "whole corpus: exit 1"
expect_err_contains "$n skills" "whole corpus: all $n skills found (node_modules skipped)"

done_testing
