# A green check means it was checked (docs/security.md, "Invariants of a
# green check"). Each case is a hostile or careless pull request built in
# a temporary repository: a reviewed base with skills/alpha (the fake
# model answers "ok-alpha" to its marker ALPHA-GOOD, and its four tests
# want "ok-alpha") and a head that makes evidence disappear one way or
# another. skillci runs as action.yml runs it, in the checked-out head.
# For each, the exit code, the JUnit's failures, the Markdown row and the
# terminal line must agree on the rule that failed, and every report
# starts with the same "what was checked" line.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_TOKEN \
	SKILLCI_RUNNER_KEY SKILLCI_CACHE_KEY
mkdir -p "$HOME"

cat > "$T/script.json" <<'EOF'
{"rules": [
  {"match": {"system": "ALPHA-GOOD"}, "reply": {"text": "ok-alpha", "usage": {"input": 100, "output": 10}}},
  {"match": {"system": "BETA-GOOD"}, "reply": {"text": "ok-beta", "usage": {"input": 100, "output": 10}}},
  {"match": {"system": "ALPHA-SNEAKY"}, "reply": {"text": "sneaky-alpha", "usage": {"input": 100, "output": 10}}},
  {"match": {"system": "ALL-ERR"}, "reply": {"status": 400, "error_message": "bad request"}}
 ],
 "default": {"text": "no idea", "usage": {"input": 100, "output": 10}}}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-invariants

CONFIG='version: 1
models: [anthropic.fake-student]
gate: {pass_rate_drop_points: 5, alpha: 0.05, require_lift: true, error_share: 0.5}'

commit() { git -C "$W" add -A && git -C "$W" -c user.email=ci@example.com -c user.name=ci \
	commit -q -m "$1" && git -C "$W" rev-parse HEAD; }
# skill DIR NAME MARKER: a SKILL.md
skill() {
	mkdir -p "$W/$1"
	printf -- '---\nname: %s\ndescription: Answers %s questions.\n---\n# %s\n\n%s: answer.\n' \
		"$2" "$2" "$2" "$3" > "$W/$1/SKILL.md"
}
# tests DIR WANT [N]: N (4) tests whose answer must contain WANT
tests() {
	python3 - "$W/$1/skill_meta.json" "$2" "${3:-4}" <<'EOF'
import json, sys
json.dump({"tests": [{"input": "question %d" % i, "expected": {"contains": [sys.argv[2]]}}
                     for i in range(int(sys.argv[3]))]}, open(sys.argv[1], "w"), indent=1)
EOF
}
# new_repo NAME [CONFIG]: base with skills/alpha (good, strict tests) and
# skills/beta (good); $BASE is its commit
new_repo() {
	W="$T/$1"
	mkdir -p "$W"
	printf '%s\n' "${2:-$CONFIG}" > "$W/skillci.yml"
	skill skills/alpha alpha ALPHA-GOOD
	tests skills/alpha ok-alpha
	skill skills/beta beta BETA-GOOD
	tests skills/beta ok-beta
	git -C "$W" init -q -b main
	BASE=$(commit base)
}
pr() { HEADREV=$(commit "$1"); }
run_pr() {  # run_pr [ARGS...]
	fake_reset
	run sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" run --repo . --jobs 1 \
		--junit .skillci/report/junit.xml --markdown .skillci/report/report.md \
		--html .skillci/report --json .skillci/report/results.json \
		--base "${TIP:-$BASE}" --head "$HEADREV" "$@"
	printf '%s\n' "$OUT" > "$W/.skillci/stdout.txt" 2>/dev/null || true
}
results() { python3 -c "import json, sys; r = json.load(open('$W/.skillci/report/results.json')); $1"; }

# agree NAME SKILL CHECK RULE: the JUnit has a failure of RULE, the
# Markdown's row of SKILL fails (❌) and its block under the table names
# RULE, the terminal has
# "gate: ✗ CHECK (RULE)", and the three "checked" lines are the same.
# agree NAME SKILL CHECK RULE [STATUS]: the check blocks, failed (the
# default) or unverified, and every surface says so with its rule: the
# JUnit's failure type (the rule; "unverified" for an unverified check),
# the Markdown's row and block, the terminal's gate line
agree() {
	check "$1: JUnit, Markdown and terminal agree on $3 ($4, ${5:-failed}) for $2" python3 - \
		"$W/.skillci/report/junit.xml" "$W/.skillci/report/report.md" "$W/.skillci/stdout.txt" \
		"$2" "$3" "$4" "${5:-failed}" <<'EOF'
import html, re, sys
import xml.etree.ElementTree as ET
junit, md, term, skill, chk, rule, status = sys.argv[1:8]
failed_st = status == "failed"
root = ET.parse(junit).getroot()
types = [f.get("type") for f in root.iter("failure")]
assert (rule if failed_st else "unverified") in types, ("junit failures", types)
md = open(md).read()
plain = html.unescape(re.sub(r"<[^>]+>", "", md)).replace("\\", "")
rows = [l for l in plain.splitlines() if l.startswith("|") and skill in l]
row = "| ❌ **fail**" if failed_st else "| ⚠️ **unverified**"
assert any(l.startswith(row) for l in rows), ("markdown rows", rows)
# the row's block under the table names the check's rule
icon = "❌ " if failed_st else "⚠️ "
failed = md.split("### What failed")[1].split("### Details")[0] if "### What failed" in md else ""
blocks = [html.unescape(re.sub(r"<[^>]+>", "", b)).replace("\\", "") for b in failed.split("<details>")[1:]]
assert any(re.search(re.escape(skill) + r"(\s|:|$)", b.strip().splitlines()[0]) and icon in b and "(%s)" % rule in b
           for b in blocks if b.strip()), ("markdown blocks", blocks)
out = open(term).read()
want = "gate: %s %s %s (%s)" % ("✗" if failed_st else "?", chk, status, rule)
assert want in out, ("terminal", want, out)
props = {p.get("name"): p.get("value") for p in root.iter("property")}
line_t = [l for l in out.splitlines() if l.startswith("checked: ")][0][len("checked: "):]
line_m = [l for l in plain.splitlines() if l.startswith("**Checked:**")][0]
assert props["checked"] == line_t, (props["checked"], line_t)
assert line_m == "**Checked:** %s." % line_t, (line_m, line_t)
EOF
}
# checked NAME TEXT: the terminal's first line is "checked: TEXT"
checked() {
	check "$1: the first line says what was checked: $2" python3 -c "
import sys
first = open(sys.argv[1]).read().splitlines()[0]
assert first == 'checked: ' + sys.argv[2], first" "$W/.skillci/stdout.txt" "$2"
}
passes() {  # passes NAME: exit 0, no JUnit failure, the Markdown says passed
	expect_exit 0 "$1: exit 0"
	check "$1: no JUnit failure and a green Markdown verdict" python3 -c "
import sys, xml.etree.ElementTree as ET
assert not list(ET.parse(sys.argv[1]).getroot().iter('failure'))
assert '✅ **gate passed' in open(sys.argv[2]).read()" \
		"$W/.skillci/report/junit.xml" "$W/.skillci/report/report.md"
}
# accepted NAME: exit 0 (the trusted config accepts what is unverified),
# no JUnit failure, and the Markdown says unverified, never passed
accepted() {
	expect_exit 0 "$1: exit 0"
	check "$1: no JUnit failure, and the Markdown says unverified, not passed" python3 -c "
import sys, xml.etree.ElementTree as ET
assert not list(ET.parse(sys.argv[1]).getroot().iter('failure'))
md = open(sys.argv[2]).read()
assert '⚠️ **gate unverified' in md and 'gate passed' not in md, md[:400]" \
		"$W/.skillci/report/junit.xml" "$W/.skillci/report/report.md"
}

# ---- 1. a moved skill is judged on the base's tests --------------------------
# git rm the skill, add it back under another folder, broken, with tests
# any answer passes ("no idea" contains "o")
new_repo moved
git -C "$W" rm -q -r skills/alpha
skill skills/pack/alpha alpha ALPHA-BROKEN
tests skills/pack/alpha o
pr "move alpha under pack/ and weaken its tests"
run_pr
expect_exit 1 "moved: a moved skill with weakened tests fails (exit 1)"
agree moved skills/pack/alpha pass_rate pass_rate_drop
check "moved: one renamed skill, judged base 100% -> head 0% on the base's 4 tests" results "
s = [s for s in r['skills'] if s['path'] == 'skills/pack/alpha'][0]
assert s['status'] == 'renamed' and s['old_path'] == 'skills/alpha', s
assert len(r['skills']) == 1, [x['path'] for x in r['skills']]
a = {x['variant']: (x['pass_rate'], x['n']) for x in r['aggregates'] if x['variant'] in ('base', 'head')}
# the same runs of the base's 4 tests at both sides (rounds until the drop is shown)
assert a['base'][0] == 1.0 and a['head'][0] == 0.0 and a['base'][1] == a['head'][1], a
assert a['base'][1] % 4 == 0, a"
checked moved "1 changed skill: judged on the base's tests 1, added 0, moved 1, deleted 0 (allowed 0, not allowed 0), unverified 0"

# the same by a case-only rename (skills/alpha -> skills/Alpha)
new_repo caserename
git -C "$W" mv skills/alpha skills/tmp && git -C "$W" mv skills/tmp skills/Alpha
skill skills/Alpha alpha ALPHA-BROKEN
tests skills/Alpha o
pr "case-only rename"
run_pr
expect_exit 1 "case-only rename: judged on the base's tests (exit 1)"
agree "case-only rename" skills/Alpha pass_rate pass_rate_drop

# a skill split in two: the half that keeps the name is the skill
new_repo split
git -C "$W" rm -q -r skills/alpha
skill skills/alpha-a alpha ALPHA-BROKEN
tests skills/alpha-a o
skill skills/alpha-b alpha-b ALPHA-BROKEN
tests skills/alpha-b "no idea" 2
pr "split alpha in two"
run_pr
expect_exit 1 "split: the part named alpha is judged on alpha's tests (exit 1)"
agree split skills/alpha-a pass_rate pass_rate_drop
agree split skills/alpha-b discrimination tests_not_discriminating

# the same move where deletions are allowed, with the name written in a
# YAML form a line-by-line reading of "name:" misses (a folded block
# scalar, a trailing comment): the skill is still paired by the name the
# validator reads, so it is judged on the base's tests, not added and
# judged on tests of its own that its new answer passes
for form in block comment; do
	new_repo "namedas$form"
	sed -i 's/error_share: 0.5}/error_share: 0.5, allow_deletions: true}/' "$W/skillci.yml"
	git -C "$W" add -A && BASE=$(commit "allow deletions")
	git -C "$W" rm -q -r skills/alpha
	mkdir -p "$W/skills/pack/alpha"
	case $form in
	block) nameline='name: >-\n  alpha' ;;
	comment) nameline='name: alpha # the same skill' ;;
	esac
	# nothing else of the old skill is left, so its content pairs nothing
	printf -- "---\n$nameline\ndescription: Rewritten from scratch for a different audience.\n---\n%s\n" \
		"$(seq 1 40 | sed 's/^/Line of new guidance number /')" "ALPHA-SNEAKY: answer." \
		> "$W/skills/pack/alpha/SKILL.md"
	python3 - "$W/skills/pack/alpha/skill_meta.json" <<'EOF'
import json, sys
json.dump({"tests": [{"input": "a different question %d, phrased anew" % i,
                      "expected": {"contains": ["sneaky"]}} for i in range(6)]},
          open(sys.argv[1], "w"), indent=1)
EOF
	pr "move alpha, its name written as a $form form, new tests"
	run_pr
	expect_exit 1 "name as $form: the moved skill fails on the base's tests (exit 1)"
	agree "name as $form" skills/pack/alpha pass_rate pass_rate_drop
	checked "name as $form" "1 changed skill: judged on the base's tests 1, added 0, moved 1, deleted 0 (allowed 0, not allowed 0), unverified 0"
done

# a second skill whose name is the same, written as a folded block scalar
new_repo duplicateblock
mkdir -p "$W/skills/pack/alpha"
printf -- '---\nname: >-\n  alpha\ndescription: Answers alpha questions.\n---\n# alpha\n\nALPHA-GOOD: answer.\n' \
	> "$W/skills/pack/alpha/SKILL.md"
tests skills/pack/alpha ok-alpha
pr "a second skill named alpha, as a block scalar"
run_pr
expect_exit 1 "duplicate as a block scalar: a finding (exit 1)"
expect_err_contains "skill-duplicate-name" "duplicate as a block scalar: the finding's rule"

# ---- 2. a deletion is a check of its own ------------------------------------
new_repo deleted
git -C "$W" rm -q -r skills/beta
pr "delete beta"
run_pr
expect_exit 1 "deleted: a deletion nothing allows fails (exit 1)"
agree deleted skills/beta deleted skill_deleted
checked deleted "1 changed skill: judged on the base's tests 0, added 0, moved 0, deleted 1 (allowed 0, not allowed 1), unverified 0"

new_repo deletedok
sed -i 's/error_share: 0.5}/error_share: 0.5, allow_deletions: true}/' "$W/skillci.yml"
git -C "$W" add -A && BASE=$(commit "allow deletions")
git -C "$W" rm -q -r skills/beta
pr "delete beta"
run_pr
passes "deleted, allowed by the trusted config"
check "deleted, allowed: the report says why" grep -q "allowed: the trusted config sets gate.allow_deletions" \
	"$W/.skillci/report/junit.xml"
checked "deleted, allowed" "1 changed skill: judged on the base's tests 0, added 0, moved 0, deleted 1 (allowed 1, not allowed 0), unverified 0"

# the head cannot allow its own deletion
new_repo deletedhead
git -C "$W" rm -q -r skills/beta
sed -i 's/error_share: 0.5}/error_share: 0.5, allow_deletions: true}/' "$W/skillci.yml"
pr "delete beta and allow it in the head's config"
run_pr
expect_exit 1 "deleted, allowed only by the head's config: still fails"
agree "deleted, head config" skills/beta deleted skill_deleted

# a label the trusted config names allows it; the event brings labels
new_repo deletedlabel
sed -i 's/error_share: 0.5}/error_share: 0.5, deletion_label: remove-skill}/' "$W/skillci.yml"
git -C "$W" add -A && BASE=$(commit "deletions by label")
git -C "$W" rm -q -r skills/beta
pr "delete beta"
event() {  # event LABEL...: a pull_request event for $BASE..$HEADREV
	python3 - "$T/event.json" "$BASE" "$HEADREV" "$@" <<'EOF'
import json, sys
path, base, head, labels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
json.dump({"pull_request": {"number": 7, "base": {"sha": base}, "head": {"sha": head},
                            "labels": [{"name": l} for l in labels]}}, open(path, "w"))
EOF
}
event other-label
GITHUB_ACTIONS=true GITHUB_EVENT_PATH="$T/event.json" GITHUB_OUTPUT="$T/gh-out" \
	GITHUB_STEP_SUMMARY="$T/gh-summary" run_pr
expect_exit 1 "deleted, label: without the named label it fails"
agree "deleted, wrong label" skills/beta deleted skill_deleted
expect_out_contains "add the label 'remove-skill'" "deleted, label: the failure says which label allows it"
event other-label remove-skill
GITHUB_ACTIONS=true GITHUB_EVENT_PATH="$T/event.json" GITHUB_OUTPUT="$T/gh-out" \
	GITHUB_STEP_SUMMARY="$T/gh-summary" run_pr
passes "deleted, label: with the label the deletion is allowed"
check "deleted, label: the report names the label" grep -q "carries the label 'remove-skill'" \
	"$W/.skillci/report/junit.xml"

# a sharded run: each shard records what allowed the deletion, and merge
# decides the same way (allowed by the trusted config; refused without)
for cfgcase in allowed refused; do
	if [ "$cfgcase" = allowed ]; then
		new_repo "shard-$cfgcase" "$(printf '%s\n' "$CONFIG" | sed 's/error_share: 0.5}/error_share: 0.5, allow_deletions: true}/')"
	else
		new_repo "shard-$cfgcase"
	fi
	git -C "$W" rm -q -r skills/beta
	printf '\nMore.\n' >> "$W/skills/alpha/SKILL.md"
	pr "delete beta, edit alpha"
	for k in 1 2; do
		(cd "$W" && "$SKILLCI" run --repo . --jobs 1 --base "$BASE" --head "$HEADREV" \
			--shard "$k/2" --run-id "sh-$cfgcase" --json ".skillci/shard$k.json" \
			--junit ".skillci/shard$k.xml" --markdown ".skillci/shard$k.md" \
			--html ".skillci/shard$k" > /dev/null 2>&1)
	done
	run sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" merge .skillci/shard1.json \
		.skillci/shard2.json --json .skillci/merged.json --junit .skillci/merged.xml \
		--markdown .skillci/merged.md --html .skillci/merged
	if [ "$cfgcase" = allowed ]; then
		expect_exit 0 "sharded deletion, allowed by the trusted config: merge passes"
	else
		expect_exit 1 "sharded deletion, nothing allows it: merge fails"
		check "sharded deletion refused: skill_deleted in the merged JUnit" \
			grep -q 'type="skill_deleted"' "$W/.skillci/merged.xml"
	fi
done

# a skill turned into a symbolic link to another, or into a file
new_repo tolink "$(printf '%s\n' "$CONFIG" | sed 's/error_share: 0.5}/error_share: 0.5, allow_deletions: true}/')"
git -C "$W" rm -q -r skills/alpha
ln -s beta "$W/skills/alpha"
pr "alpha is now a link to beta"
run_pr
expect_exit 1 "symlink: a skill turned into a link fails even where deletions are allowed"
agree symlink skills/alpha validity skill_invalid
expect_out_contains "a symbolic link at head, not a skill folder" "symlink: the finding says what stands there"

new_repo tofile "$(printf '%s\n' "$CONFIG" | sed 's/error_share: 0.5}/error_share: 0.5, allow_deletions: true}/')"
git -C "$W" rm -q -r skills/alpha
echo "see beta" > "$W/skills/alpha"
pr "alpha is now a file"
run_pr
expect_exit 1 "file: a skill turned into a file fails"
agree file skills/alpha validity skill_invalid
expect_out_contains "a file at head, not a skill folder" "file: the finding says what stands there"

# only SKILL.md removed: the folder and its tests stay, no skill is left
new_repo nomd "$(printf '%s\n' "$CONFIG" | sed 's/error_share: 0.5}/error_share: 0.5, allow_deletions: true}/')"
git -C "$W" rm -q skills/alpha/SKILL.md
pr "remove alpha's SKILL.md"
run_pr
expect_exit 1 "SKILL.md removed: fails even where deletions are allowed"
agree "SKILL.md removed" skills/alpha validity skill_invalid
expect_out_contains "a folder without SKILL.md at head" "SKILL.md removed: the finding says what stands there"

# renamed AND its name changed AND rewritten: no identity left, so it is a
# deletion (and an addition), never a free pass
new_repo renamedall
git -C "$W" rm -q -r skills/alpha
skill skills/gamma gamma GAMMA-NEW
tests skills/gamma "no idea"
pr "alpha becomes gamma"
run_pr
expect_exit 1 "rename and new name: the old skill's deletion fails"
agree "rename and new name" skills/alpha deleted skill_deleted

# ---- 3. a name is unique ------------------------------------------------------
new_repo duplicate
skill skills/alpha2 alpha ALPHA-GOOD
tests skills/alpha2 ok-alpha
pr "a second skill named alpha"
run_pr
expect_exit 1 "duplicate: a second skill named alpha is a finding (exit 1)"
agree duplicate skills/alpha2 validity skill_invalid
expect_err_contains "skill-duplicate-name" "duplicate: the finding's rule"
expect_err_contains "also the name of skills/alpha" "duplicate: it names the other skill"

# ---- 4. policy and the verdict's tests come from the target's tip -------------
# a branch cut before main gained a stricter gate and stricter tests
new_repo stale "version: 1
models: [anthropic.fake-student]
runs: 1
gate: {pass_rate_drop_points: 100, alpha: 1e-12, require_lift: false, error_share: 1}"
tests skills/alpha o
MB=$(commit "lenient gate, weak tests")
git -C "$W" checkout -q -b feature
skill skills/alpha alpha ALPHA-BROKEN
pr "break alpha on an old branch"
git -C "$W" checkout -q main
printf '%s\n' "$CONFIG" > "$W/skillci.yml"
tests skills/alpha ok-alpha
TIP=$(commit "stricter gate and tests")
git -C "$W" checkout -q feature
BASE=$MB
TIP=$TIP run_pr
expect_exit 1 "stale branch: judged by the target's gate and tests (exit 1)"
agree "stale branch" skills/alpha pass_rate pass_rate_drop
check "stale branch: the report names the tip and the merge base" results "
n = ' '.join(r['run']['trust']['notes'])
assert 'target\\'s tip $(printf %.12s "$TIP")' in n and 'merge base $(printf %.12s "$MB")' in n, n
assert r['run']['base_rev'] == '$MB', r['run']['base_rev']"
# a merge-commit checkout: the target is its first parent
git -C "$W" checkout -q main
git -C "$W" -c user.email=ci@example.com -c user.name=ci merge -q --no-ff -m merge feature
HEADREV=$(git -C "$W" rev-parse HEAD)
fake_reset
run sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" run --repo . --jobs 1 \
	--junit .skillci/report/junit.xml --markdown .skillci/report/report.md \
	--json .skillci/report/results.json --html .skillci/report --head "$HEADREV"
expect_exit 1 "merge commit: judged against its first parent, the target's tip"
check "merge commit: the tip is the first parent" results "
n = ' '.join(r['run']['trust']['notes'])
assert 'target\\'s tip $(printf %.12s "$TIP")' in n, n"
git -C "$W" reset -q --hard "$TIP"
unset TIP

# ---- 5. nothing passes unverified --------------------------------------------
# a kernel skill on this machine (no GPU: the kernels only compile)
new_repo kernel "version: 1
models: [oracle.self]
runs: 1
fixtures: fixtures
gate: {pass_rate_drop_points: 5, alpha: 0.05, error_share: 0.5}"
cp -R "$SKILLCI_ROOT/fixtures" "$W/fixtures"
skill skills/kern kern KERN
echo '{"tests": [{"input": "Write the softmax kernel.", "fixture": "softmax"}]}' > "$W/skills/kern/skill_meta.json"
BASE=$(commit "kernel skill")
printf '\nUse shared memory.\n' >> "$W/skills/kern/SKILL.md"
pr "edit the kernel skill"
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi > /dev/null 2>&1; then
	skip "kernel without a GPU" "this machine has a GPU"
else
	run_pr -m oracle.self
	expect_exit 1 "kernel, no GPU: not green (exit 1)"
	agree "kernel, no GPU" skills/kern kernel kernel_unverified unverified
	checked "kernel, no GPU" "1 changed skill: judged on the base's tests 1, added 0, moved 0, deleted 0 (allowed 0, not allowed 0), unverified 1"
	# the workflow's own --compile-only (a trusted flag) says the same
	run_pr -m oracle.self --compile-only
	accepted "kernel, --compile-only flag"
	checked "kernel, --compile-only flag" "1 changed skill: judged on the base's tests 1, added 0, moved 0, deleted 0 (allowed 0, not allowed 0), unverified 1; no kernel was run (compile-only runner)"
	# a runner the trusted config marks compile-only passes, and says so first
	git -C "$W" reset -q --hard "$BASE"
	sed -i 's/error_share: 0.5}/error_share: 0.5, compile_only: true}/' "$W/skillci.yml"
	BASE=$(commit "this runner compiles only")
	printf '\nUse shared memory.\n' >> "$W/skills/kern/SKILL.md"
	pr "edit the kernel skill"
	run_pr -m oracle.self
	accepted "kernel, compile-only runner"
	checked "kernel, compile-only runner" "1 changed skill: judged on the base's tests 1, added 0, moved 0, deleted 0 (allowed 0, not allowed 0), unverified 1; no kernel was run (compile-only runner)"
	check "kernel, compile-only runner: the Markdown's verdict line says no kernel was run" \
		grep -q "^⚠️ \*\*gate unverified.*no kernel was run (compile-only runner)" "$W/.skillci/report/report.md"
	check "kernel, compile-only runner: and the JUnit's properties" \
		grep -q 'name="checked" value="[^"]*no kernel was run (compile-only runner)"' \
		"$W/.skillci/report/junit.xml"
	# report recomputes the verdict of the signed results under the policy
	# the run recorded, every key of it: compile_only too, so it agrees
	run sh -c 'cd "$1" && exec "$2" report .skillci/report/results.json --markdown "$3"' - \
		"$W" "$SKILLCI" "$T/compile-only-again.md"
	expect_exit 0 "kernel, compile-only runner: report of its signed results exits 0 too"
	check "kernel, compile-only runner: report's Markdown says unverified and no kernel was run" \
		grep -q "^⚠️ \*\*gate unverified.*no kernel was run (compile-only runner)" "$T/compile-only-again.md"
fi

# every unit of both sides erred (the provider refuses the skill's marker):
# nothing was measured, so nothing passes
new_repo allerr "$(printf '%s\n' "$CONFIG" | sed 's/error_share: 0.5/error_share: 1/')"
skill skills/alpha alpha ALL-ERR
git -C "$W" add -A && BASE=$(commit "alpha errs")
printf '\nMore.\n' >> "$W/skills/alpha/SKILL.md"
pr "edit alpha"
run_pr --retries 0
expect_exit 1 "all units erred: not green (exit 1)"
agree "all erred" skills/alpha pass_rate head_no_result unverified

# a modified skill with no tests at base nor head: validity alone is no
# evidence. A trusted config that refuses untested skills fails it.
REFUSE=$(printf '%s\n' "$CONFIG" | sed 's/error_share: 0.5}/error_share: 0.5, allow_untested: false}/')
new_repo untested "$REFUSE"
skill skills/zeta zeta ZETA
BASE=$(commit "zeta, without tests")
printf '\nMore.\n' >> "$W/skills/zeta/SKILL.md"
pr "edit zeta"
run_pr
expect_exit 1 "untested, modified, refused: not green (exit 1)"
agree "untested, modified" skills/zeta tests skill_untested unverified
expect_out_contains "unverified: no tests" "untested, modified: shown as unverified: no tests"
expect_out_contains "write a starter suite with 'skillci tests init' (the format: 'skillci help tests')" \
	"untested, modified: the failure names the command that writes tests and the format's help"
expect_out_lacks "docs/tests-format.md" "untested, modified: no path of skillci's source tree"
expect_out_contains "or set gate.allow_untested: true in the trusted config" "untested, modified: and which trusted key accepts them"
checked "untested, modified" "1 changed skill: judged on the base's tests 0, added 0, moved 0, deleted 0 (allowed 0, not allowed 0), unverified 1"
# moved, still without tests
git -C "$W" reset -q --hard "$BASE"
mkdir -p "$W/skills/pack"
git -C "$W" mv skills/zeta skills/pack/zeta
pr "move zeta under pack/"
run_pr
expect_exit 1 "untested, moved, refused: not green (exit 1)"
agree "untested, moved" skills/pack/zeta tests skill_untested unverified
# the head cannot accept its own untested skill
git -C "$W" reset -q --hard "$BASE"
printf '\nMore.\n' >> "$W/skills/zeta/SKILL.md"
sed -i 's/allow_untested: false}/allow_untested: true}/' "$W/skillci.yml"
pr "edit zeta and accept untested skills in the head's config"
run_pr
expect_exit 1 "untested, allowed only by the head's config: still fails"
agree "untested, head config" skills/zeta tests skill_untested unverified
check "untested, head config: the head's key is reported, not applied" results "
c = [x for x in r['run']['trust']['head_config_changes'] if x['key'] == 'gate.allow_untested']
assert c and c[0]['head'] == 'true' and c[0]['base'] == 'false', r['run']['trust']['head_config_changes']
assert r['run']['trust']['gate']['allow_untested'] is False, r['run']['trust']['gate']"

# by default (no key: a new adopter) untested skills are accepted and shown
# unverified on every surface, never as tested
new_repo untestedok
skill skills/zeta zeta ZETA
BASE=$(commit "zeta, without tests")
printf '\nMore.\n' >> "$W/skills/zeta/SKILL.md"
pr "edit zeta"
run_pr
accepted "untested, accepted by default"
checked "untested, accepted" "1 changed skill: judged on the base's tests 0, added 0, moved 0, deleted 0 (allowed 0, not allowed 0), unverified 1"
expect_out_contains "unverified: no tests" "untested, accepted: the terminal says unverified: no tests"
check "untested, accepted: the JUnit says unverified: no tests and which key accepted it" grep -q \
	"unverified: no tests: the skill .zeta. has no tests at base nor head.*accepted: the trusted config sets gate.allow_untested" "$W/.skillci/report/junit.xml"
check "untested, accepted: the Markdown says unverified: no tests" grep -q "unverified: no tests" \
	"$W/.skillci/report/report.md"
check "untested, accepted: the results record the policy for merge" results "
assert r['run']['trust']['gate']['allow_untested'] is True, r['run']['trust']['gate']"

# ---- 6. an added skill must show its tests can tell ---------------------------
new_repo notdisc
skill skills/delta delta DELTA
tests skills/delta o
pr "a new skill whose tests any answer passes"
run_pr
expect_exit 1 "added, baseline 100%: tests_not_discriminating (exit 1)"
agree "not discriminating" skills/delta discrimination tests_not_discriminating
checked "not discriminating" "1 changed skill: judged on the base's tests 0, added 1, moved 0, deleted 0 (allowed 0, not allowed 0), unverified 0"

# ---- more ways evidence disappears ------------------------------------------
# the head deletes the tests file: the base's tests still judge it
new_repo notests
rm "$W/skills/alpha/skill_meta.json"
skill skills/alpha alpha ALPHA-BROKEN
pr "drop the tests, break the skill"
run_pr
expect_exit 1 "tests deleted: judged on the base's tests (exit 1)"
agree "tests deleted" skills/alpha pass_rate pass_rate_drop

# the head moves the tests out of the skill folder
new_repo testsout
mkdir -p "$W/elsewhere"
git -C "$W" mv skills/alpha/skill_meta.json elsewhere/skill_meta.json
skill skills/alpha alpha ALPHA-BROKEN
pr "move the tests out, break the skill"
run_pr
expect_exit 1 "tests moved out: judged on the base's tests (exit 1)"
agree "tests moved out" skills/alpha pass_rate pass_rate_drop

# the head empties the model list: policy is the target's
new_repo nomodels
sed -i 's/models: .*/models: []/' "$W/skillci.yml"
skill skills/alpha alpha ALPHA-BROKEN
pr "no models, break the skill"
run_pr
expect_exit 1 "models emptied by the head: the target's models still run (exit 1)"
agree "models emptied" skills/alpha pass_rate pass_rate_drop

# an added skill with no tests at all: refused by a config that refuses
# untested skills, accepted as unverified by default
new_repo addednotests "$REFUSE"
skill skills/eps eps EPS
pr "a new skill without tests"
run_pr
expect_exit 1 "added without tests, refused: not green (exit 1)"
agree "added without tests" skills/eps tests skill_untested unverified
new_repo addednotestsok
skill skills/eps eps EPS
pr "a new skill without tests"
run_pr
accepted "added without tests, accepted by default"
checked "added without tests, accepted" "1 changed skill: judged on the base's tests 0, added 1, moved 0, deleted 0 (allowed 0, not allowed 0), unverified 1"

# ---- 7. a run that stops on setup is reported where the reviewer looks --------
GHDIR=$(mktemp -d "$T/gh.XXXXXX")
python3 "$SKILLCI_ROOT/tests/fakes/fake_github.py" --port-file "$GHDIR/port" --log "$GHDIR/log" \
	--token gh-test-token > /dev/null 2> "$GHDIR/stderr" &
GH_PID=$!
_i=0
while [ ! -s "$GHDIR/port" ] && [ "$_i" -lt 200 ]; do _i=$((_i + 1)); sleep 0.05; done
GH_URL="http://127.0.0.1:$(cat "$GHDIR/port")"
trap 'kill "$GH_PID" 2>/dev/null; fake_stop; rm -rf "$T"' EXIT
# setup CASE ARGS...: skillci run in Actions with a fresh summary and output file
setup_run() {
	_case=$1; shift
	rm -f "$T/sum-$_case" "$T/out-$_case"
	(cd "$W" && env GITHUB_ACTIONS=true GITHUB_EVENT_PATH="$T/event.json" \
		GITHUB_STEP_SUMMARY="$T/sum-$_case" GITHUB_OUTPUT="$T/out-$_case" \
		GITHUB_TOKEN=gh-test-token GITHUB_REPOSITORY=example/skills GITHUB_API_URL="$GH_URL" \
		"$@" > "$T/.out" 2> "$T/.err")
	RC=$?
	OUT=$(cat "$T/.out")
	ERR=$(cat "$T/.err")
}
# reported CASE TEXT: the summary, an ::error line, the outputs and the
# comment all say what happened and TEXT (what to do)
reported() {
	check "$1: step summary, ::error annotation, outputs and sticky comment say: $2" python3 - \
		"$T/sum-$1" "$T/out-$1" "$T/.out" "$GH_URL" "$2" <<'EOF'
import json, sys, urllib.request
summary, outputs, stdout, gh, text = sys.argv[1:6]
s = open(summary).read()
assert "skillci could not check this pull request" in s and text in s.replace("\\", ""), s
ann = [l for l in open(stdout).read().splitlines() if l.startswith("::error ")]
assert ann and text in ann[0], ann
o = open(outputs).read()
assert "verdict=error" in o and "passed=false" in o and "exit_code=" in o, o
cs = json.load(urllib.request.urlopen(gh + "/_fake/comments"))
body = [c["body"] for c in cs if "skillci-report" in c["body"]][-1]
assert "could not check this pull request" in body and text in body.replace("\\", ""), body
EOF
}
new_repo setupkey
skill skills/alpha alpha ALPHA-BROKEN
pr "a fork's PR: no key"
event
setup_run nokey env -u ANTHROPIC_API_KEY "$SKILLCI" run --repo . --jobs 1 --comment
expect_exit 2 "no API key: exit 2"
reported nokey "safe workflow for forks in docs/ci.md"
expect_err_lacks "sk-test-invariants" "no API key: no key in any message"
# an hf.* model without HF_TOKEN (nor a token file): the same cause, the same hint
mkdir -p "$T/nohome"
setup_run hfkey env -u HF_TOKEN -u HF_HOME -u HF_TOKEN_PATH -u XDG_CACHE_HOME HOME="$T/nohome" \
	"$SKILLCI" run --repo . --jobs 1 --comment -m hf.moonshotai/Kimi-K2-Instruct-0905
expect_exit 2 "no HF_TOKEN for an hf.* model: exit 2"
expect_err_contains "HF_TOKEN" "no HF_TOKEN: the error names it"
reported hfkey "safe workflow for forks in docs/ci.md"
# an azure.* model without its endpoint: its own cause, its own hint (never
# the key's, nor the generic one)
setup_run azendpoint env -u AZURE_OPENAI_ENDPOINT -u AZURE_BASE_URL -u AZURE_OPENAI_API_KEY \
	-u AZURE_API_KEY "$SKILLCI" run --repo . --jobs 1 --comment -m azure.gpt4o-prod
expect_exit 2 "no AZURE_OPENAI_ENDPOINT for an azure.* model: exit 2"
expect_err_contains "AZURE_OPENAI_ENDPOINT" "no endpoint: the error names the variable"
reported azendpoint "has no endpoint in this run"
expect_err_lacks "safe workflow for forks" "no endpoint: not the missing key's hint"
expect_err_lacks "see the error above" "no endpoint: not the generic hint"

# the default depth-1 checkout: the base is not in the clone
git clone -q --depth 1 "file://$W" "$T/shallow" 2>/dev/null
W0=$W
W=$T/shallow
setup_run shallow "$SKILLCI" run --repo . --jobs 1 --comment
expect_exit 2 "shallow clone: exit 2"
reported shallow "fetch-depth: 0"
W=$W0

# a bad trusted configuration
new_repo setupcfg "version: 1
models: [anthropic.fake-student]
gate: {alpha: 7}"
skill skills/alpha alpha ALPHA-BROKEN
pr "edit alpha"
event
setup_run badcfg "$SKILLCI" run --repo . --jobs 1 --comment
expect_exit 2 "bad trusted config: exit 2"
reported badcfg "fix the configuration"
# the comment quotes the finding itself (nothing is "above" it in a comment)
reported badcfg "gate.alpha"

# the control: a careful PR still passes
new_repo good
printf '\nBe brief.\n' >> "$W/skills/alpha/SKILL.md"
pr "a harmless edit"
run_pr
passes "control: an edit that keeps alpha right"
checked "control" "1 changed skill: judged on the base's tests 1, added 0, moved 0, deleted 0 (allowed 0, not allowed 0), unverified 0"

done_testing
