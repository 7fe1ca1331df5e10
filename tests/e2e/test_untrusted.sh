# What comes from a teacher model, from artifacts and from a shared store
# is someone else's (docs/security.md, "Teacher answers, artifacts and the
# shared store"): a hostile teacher through the fake model server, forged
# shard and results files, a planted store row and two runner keys on one
# store. Each case tries what an attacker would and checks the outcome.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

export ANTHROPIC_API_KEY=sk-test-untrusted-secret
export SKILLCI_RUNNER_KEY=untrusted-suite-runner-key-a
unset SKILLCI_RUNNER_KEY_FILE SKILLCI_RUNNER_TRUSTED_KEYS
T_MODEL=anthropic.teacher
GEN_SYS='You generate \"skills\"'

# no_raw_controls NAME FILE...: no ESC, BEL or other C0 byte but \t \n in
# the files, and no line that starts a workflow command
no_raw_controls() {
	_name=$1
	shift
	check "$_name" python3 - "$@" <<'EOF'
import sys, re
for f in sys.argv[1:]:
    data = open(f, "rb").read()
    bad = [b for b in data if (b < 0x20 and b not in (9, 10)) or b == 0x7f]
    assert not bad, "%s holds control bytes %r" % (f, sorted(set(bad)))
    for line in data.decode("utf-8", "replace").split("\n"):
        assert not re.match(r"\s*::", line), "%s starts a workflow command: %r" % (f, line)
EOF
}

# teacher_script FILE NAME DESCRIPTION REF_NAME REF_CONTENT: a fake-server
# script whose teacher answers with that skill; DESCRIPTION and REF_NAME
# take Python escapes (\x1b, \n, \u00e9), so any byte can be in them
teacher_script() {
	python3 - "$@" <<'EOF'
import json, sys
out, name, desc, ref, content = sys.argv[1:6]
unesc = lambda s: s.encode().decode("unicode_escape")
skill = {"name": name, "description": unesc(desc), "body": "# Skill\n\nAnswer with ANSWER-OK.\n",
         "references": {unesc(ref): content}}
script = {"rules": [{"match": {"system": "You generate \"skills\""},
                     "reply": {"text": "```json\n" + json.dumps(skill) + "\n```"}}],
          "default": {"text": "ANSWER-OK"}}
json.dump(script, open(out, "w"))
EOF
}

mkdir -p "$T/work" "$T/outside"
echo canary > "$T/outside/canary"
cd "$T/work" || exit 1
GEN="$SKILLCI generate --no-eval --no-cache -m $T_MODEL"

# ---- 1. a hostile description reaches stdout and stderr only escaped -------
# Control bytes make SKILL.md invalid YAML: the teacher is asked once more,
# then generate fails, and the message quoting the teacher is escaped.
teacher_script "$T/h1.json" magic-words \
	'Says magic words.\n::warning title=X::pwned\x1b]0;title\x07\x1b[31mred\r::error::x\x9b2J' \
	notes.md fine
fake_start "$T/h1.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
run $GEN "say magic words" -o "$T/work/out1/magic-words"
expect_exit 3 "a description with control bytes is refused after one retry"
printf '%s' "$OUT" > "$T/h1.out"
printf '%s' "$ERR" > "$T/h1.err"
no_raw_controls "no raw control byte or workflow command on stdout or stderr" "$T/h1.out" "$T/h1.err"
check "nothing saved" test ! -e out1/magic-words
# What YAML allows is saved, and shown escaped: a leading workflow command,
# bidirectional overrides, a line separator.
teacher_script "$T/h1b.json" magic-words \
	'::warning title=X::pwned \u202eevil\u2028::error::x' notes.md fine
fake_script "$T/h1b.json"
run $GEN "say magic words" -o "$T/work/out1/magic-words"
expect_exit 0 "a description YAML allows is saved as data"
printf '%s' "$OUT" > "$T/h1.out"
printf '%s' "$ERR" > "$T/h1.err"
no_raw_controls "no workflow command on stdout or stderr" "$T/h1.out" "$T/h1.err"
expect_out_contains '  \x3a:warning title=X::pwned \u202eevil\u2028::error::x' \
	"the description is shown with its escapes"
check "no bidirectional override or line separator reaches stdout" python3 -c "
import sys; t = open('$T/h1.out', encoding='utf-8').read()
assert '\u202e' not in t and '\u2028' not in t, repr(t)"

# ---- 2. file names from the teacher pass one strict rule ------------------
for bad in '.git/hooks/pre-commit' '../../outside/x.md' '/etc/x.md' 'a\x1b[2Jb.md' \
	'a\nb.md' '.hidden.md' 'sub/.git/config' 'x\\\\y.md' 'caf\u00e9.md' \
	'a/b/c/d/e/f.md' "$(printf 'n%.0s' $(seq 1 140)).md"; do
	teacher_script "$T/h2.json" magic-words 'Says magic words.' "$bad" 'rm -rf ~'
	fake_script "$T/h2.json"
	bad=$(printf '%s' "$bad" | sed 's/\\/<bs>/g')  # TAP names: no backslash for echo
	run $GEN "say magic words" -o "$T/work/out2/magic-words"
	expect_exit 3 "reference name '$bad' is refused (the teacher is asked once more, then it fails)"
	check "nothing saved for '$bad'" test ! -e out2/magic-words
	printf '%s' "$ERR" > "$T/h2.err"
	no_raw_controls "the refusal of '$bad' is escaped" "$T/h2.err"
done
expect_err_contains "is refused: " "the refusal says why"
check "no .git folder was made anywhere" sh -c "! find '$T' -name .git | grep -q ."
check "the canary outside is untouched, nothing new outside" sh -c \
	"[ \"\$(cat '$T/outside/canary')\" = canary ] && [ \"\$(ls '$T/outside')\" = canary ]"

# ---- 3. a link inside the output folder is never followed -----------------
teacher_script "$T/h3.json" magic-words 'Says magic words.' notes.md PLANTED
fake_script "$T/h3.json"
mkdir -p out3/magic-words
ln -s "$T/outside" out3/magic-words/references
run $GEN "say magic words" -o "$T/work/out3/magic-words" --force
expect_exit 2 "a symbolic link where references/ goes is refused"
expect_err_contains "refusing to write through '$T/work/out3/magic-words/references'" \
	"the error names the link"
check "nothing was written through the link" test ! -e "$T/outside/notes.md"
rm out3/magic-words/references out3/magic-words/SKILL.md
ln -s "$T/outside/canary" out3/magic-words/SKILL.md
run $GEN "say magic words" -o "$T/work/out3/magic-words" --force
expect_exit 0 "a link planted where SKILL.md goes is replaced, not followed"
check "the file the link named is unchanged" sh -c "[ \"\$(cat '$T/outside/canary')\" = canary ]"
check "SKILL.md is now a plain file" sh -c "[ -f out3/magic-words/SKILL.md ] && [ ! -L out3/magic-words/SKILL.md ]"
ln -s "$T/outside" out3/linked
run $GEN "say magic words" -o "$T/work/out3/linked/magic-words"
expect_exit 0 "a link above the skill folder is the user's own path"

# ---- 4. the teacher's name never replaces an existing skill ---------------
mkdir -p skills/magic-words
printf -- '---\nname: magic-words\ndescription: mine\n---\n\nMY OWN SKILL\n' > skills/magic-words/SKILL.md
run $GEN "say magic words"
expect_exit 2 "without -o, an existing skill named by the teacher is refused"
expect_err_contains "'skills/magic-words' already exists and is not empty; --force replaces it" \
	"the error says what to do"
check "the existing skill is unchanged" grep -q "MY OWN SKILL" skills/magic-words/SKILL.md
run $GEN "say magic words" -o "$T/work/skills/magic-words"
expect_exit 2 "-o naming an existing skill is refused too, before the teacher is asked"
run $GEN "say magic words" --force
expect_exit 0 "--force replaces it"
check "the skill was replaced" grep -q "ANSWER-OK" skills/magic-words/SKILL.md
fake_stop

done_testing
