# Control bytes in every command's output (docs/security.md, "The CI log").
#
# Text a pull request or a model controls (folder names, SKILL.md fields,
# test inputs, answers, server error messages, kernel sources quoted by
# the compiler, results files) carries terminal control sequences: an OSC
# title change, an SGR colour, a bell, a carriage return, a C1 CSI, a
# bidirectional override. Every command of `skillci --help` is run on such
# input, on its normal path and on its error path, and nothing it prints
# to stdout or stderr may hold one of those bytes raw: every terminal
# print goes through the terminal escaper (runner/core/escape.c). The
# list of commands is read from `skillci --help`, so a new command
# without a case here fails the suite.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_EVENT_NAME GITHUB_OUTPUT GITHUB_STEP_SUMMARY \
	GITHUB_TOKEN SKILLCI_RUNNER_KEY SKILLCI_CACHE_KEY SKILLCI_STORE
mkdir -p "$HOME"

# ESC ] 0;owned BEL (a title), ESC [31m (colour), CR, C1 CSI (U+009B),
# U+202E (right-to-left override), BEL, backspace, DEL
CTL=$(printf 'x\033]0;owned\007y\033[31mred\rcr\302\233c1\342\200\256rlo\010bs\177del')
CTLJ=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1])[1:-1])' "$CTL")

# clean FILE...: no raw control byte (C0 but tab and line feed, DEL, C1,
# the bidirectional overrides) in any of them
clean() {
	python3 - "$@" <<'EOF'
import re, sys
bad = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
for path in sys.argv[1:]:
    text = open(path, "rb").read().decode("utf-8", "replace")
    m = bad.search(text)
    if m:
        sys.exit("%s: raw %r at %d: %r" % (path, m.group(), m.start(), text[max(0, m.start() - 60):m.start() + 20]))
EOF
}
COVERED=""
SHOWN='\x1b]0;owned\x07y\x1b[31mred\rcr'  # what the escaper makes of it
# ctl_case CMD NAME: the outputs of the last run() hold no raw control byte
ctl_case() {
	COVERED="$COVERED $1 "
	check "$1: $2: no raw control byte in stdout or stderr" clean "$T/.out" "$T/.err"
}

cat > "$T/script.json" <<EOF
{"rules": [
  {"match": {"contains": "ERRQ"}, "reply": {"status": 400, "error_message": "bad $CTLJ request, see https://evil.example/x or www.evil.example"}},
  {"match": {"contains": "write a kernel"}, "reply": {"text": "\`\`\`cuda\n__global__ void k(float *o) { o[0] = 1; } // $CTLJ\n\`\`\`"}},
  {"match": {"system": "SKILL"}, "reply": {"text": "ok $CTLJ answer", "usage": {"input": 10, "output": 5}}}
 ],
 "default": {"text": "plain $CTLJ answer", "usage": {"input": 10, "output": 5}}}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-control-bytes
M=anthropic.fake-student

# A repository: a reviewed skill "good", then a head that adds a skill in
# a folder whose name holds the control bytes, with them in every field.
W="$T/repo"
mkdir -p "$W/skills/good"
printf -- '---\nname: good\ndescription: A good skill.\n---\n# good\n\nSKILL: answer ok.\n' > "$W/skills/good/SKILL.md"
printf '{"tests": [{"input": "q1", "expected": {"contains": ["ok"]}}, {"input": "ERRQ q2", "expected": {"contains": ["ok"]}}]}\n' \
	> "$W/skills/good/skill_meta.json"
printf 'version: 1\nmodels: [%s]\nruns: 1\ngate: {error_share: 1.0}\n' "$M" > "$W/skillci.yml"
git -C "$W" init -q -b main
commit() { git -C "$W" add -A && git -C "$W" -c user.email=ci@example.com -c user.name=ci \
	commit -q -m "$1" && git -C "$W" rev-parse HEAD; }
BASE=$(commit base)
EVIL="$W/skills/evil$CTL"
mkdir -p "$EVIL/references"
printf -- '---\nname: evil%s\ndescription: "%s"\n---\n# evil %s\n\nSKILL %s [link](missing%s.md)\n' \
	"$CTL" "$CTLJ" "$CTL" "$CTL" "$CTL" > "$EVIL/SKILL.md"
: > "$EVIL/references/ref$CTL.md"
printf '{"tests": [{"input": "q %s", "expected": {"contains": ["ok"]}}, {"input": "ERRQ %s", "expected": {"contains": ["ok"]}}]}\n' \
	"$CTLJ" "$CTLJ" > "$EVIL/skill_meta.json"
printf -- '---\nname: good\ndescription: A good skill %s.\n---\n# good\n\nSKILL: answer ok %s.\n' "$CTLJ" "$CTL" \
	> "$W/skills/good/SKILL.md"
HEADREV=$(commit "evil head")

# ---- changed ------------------------------------------------------------------
run "$SKILLCI" changed --repo "$W" --base "$BASE" --head "$HEADREV"
expect_exit 0 "changed: lists the skills"
ctl_case changed "a folder name with control bytes"
expect_out_contains "skills/evilx$SHOWN" "changed: the folder name is shown, escaped"
run "$SKILLCI" changed --repo "$W" --base "$BASE" --head "$HEADREV" --json
ctl_case changed "--json"
run "$SKILLCI" changed --repo "$W" --base "nope$CTL"
ctl_case changed "an unknown revision named with control bytes"

# ---- validate, list -------------------------------------------------------------
run "$SKILLCI" validate "$W/skills"
ctl_case validate "findings about a name and links with control bytes"
run "$SKILLCI" validate --json "$W/skills"
ctl_case validate "--json"
run "$SKILLCI" list -d "$W/skills" -v
ctl_case list "names and descriptions with control bytes"
expect_out_contains "$SHOWN" "list: the name is shown, escaped"

# ---- run --------------------------------------------------------------------------
(cd "$W" && run "$SKILLCI" run --base "$BASE" --head "$HEADREV" --store "$T/run.db" \
	--cache "$T/cache" --report-dir "$T/report" -v)
cp "$T/.out" "$T/run.out"; cp "$T/.err" "$T/run.err"
check "run: ends with a verdict (exit 0, 1 or 3)" sh -c "test $RC -le 3 && test $RC -ne 2"
ctl_case run "findings, test names, answers and server errors with control bytes"
check "run: the folder name and a test's input are shown, escaped" \
	grep -qF "'q x\\x1b]0;owned\\x07y\\x1b" "$T/run.err"
check "run: the folder name is shown, escaped" grep -qF "evilx$SHOWN" "$T/run.err"

# URLs in the pull request's text are inert in the Markdown and the HTML
check "run: the report shows the server's URL as text" grep -q "evil.example/x" "$T/report/report.md"
check "run: no link to a URL from the pull request in report.md or report.html" sh -c \
	"! grep -qi 'href=\"[^\"]*evil.example' '$T/report/report.html' && ! grep -q '](https\?://evil' '$T/report/report.md'"
check "run: no bidirectional override reaches the Markdown" sh -c \
	"! grep -q \"\$(printf '\\342\\200\\256')\" '$T/report/report.md'"

# ---- report, merge ----------------------------------------------------------------
run "$SKILLCI" report "$T/report/results.json" --markdown "$T/r.md"
ctl_case report "a results file with control bytes"
printf '{"schema": "nope%s"}' "$CTLJ" > "$T/bad.json"
run "$SKILLCI" report "$T/bad.json"
ctl_case report "a broken results file"
run "$SKILLCI" merge "$T/report/results.json" "$T/bad.json" --report-dir "$T/m"
ctl_case merge "shards with control bytes"

# ---- eval, ask ------------------------------------------------------------------------
run "$SKILLCI" eval "$EVIL" -m "$M" --runs 1 --store "$T/eval.db" --cache "$T/cache" -v
ctl_case eval "a test input and an answer with control bytes, a server error"
expect_out_contains "evilx$SHOWN" "eval: the skill's name is shown, escaped"
run "$SKILLCI" eval "$EVIL" -m "$M" --runs 1 --store "$T/eval.db" --no-cache --tests "$T/none$CTL.json"
ctl_case eval "a missing tests file named with control bytes"
run "$SKILLCI" ask -m "$M" "say $CTL"
expect_exit 0 "ask: answers"
ctl_case ask "an answer with control bytes"
expect_out_contains "plain x$SHOWN" "ask: the answer is shown, escaped"
run "$SKILLCI" ask -m "$M" "ERRQ $CTL"
ctl_case ask "a server error with control bytes"
expect_err_contains "bad x$SHOWN" "ask: the server's error is shown, escaped"

# ---- runs, export, store --------------------------------------------------------------
run "$SKILLCI" runs --store "$T/eval.db"
ctl_case runs "stored skill names with control bytes"
expect_out_contains "evilx$SHOWN" "runs: the stored name is shown, escaped"
run "$SKILLCI" runs --store "$T/eval.db" -s "nothing$CTL"
ctl_case runs "a filter with control bytes"
run "$SKILLCI" export -o "$T/out.jsonl" --store "$T/eval.db"
ctl_case export "stored transcripts with control bytes"
run "$SKILLCI" store info "$T/eval.db"
ctl_case store "info"
run "$SKILLCI" store info "$T/missing$CTL.db"
ctl_case store "a location with control bytes"

# ---- kernel, fixtures -----------------------------------------------------------------
printf '__global__ void nope(float *o) { o[0] = %s; }\n' "$CTL" > "$T/cand$CTL.cu"
run "$SKILLCI" kernel reduce-sum "$T/cand$CTL.cu" --fixtures "$SKILLCI_ROOT/fixtures" --compile-only
ctl_case kernel "a candidate whose compile log quotes control bytes"
expect_out_contains "cand" "kernel: the result is printed"
run "$SKILLCI" kernel "nofixture$CTL" "$T/cand$CTL.cu" --fixtures "$SKILLCI_ROOT/fixtures"
ctl_case kernel "an unknown fixture named with control bytes"
mkdir -p "$T/fx"
cp -r "$SKILLCI_ROOT/fixtures/reduce-sum" "$T/fx/reduce-sum"
cp -r "$SKILLCI_ROOT/fixtures/reduce-sum" "$T/fx/odd$CTL"
run "$SKILLCI" fixtures list --fixtures "$T/fx"
ctl_case fixtures "a fixture folder named with control bytes"

# ---- generate -----------------------------------------------------------------------
run "$SKILLCI" generate "a task $CTL" -m "$M" --no-eval -o "$T/gen"
ctl_case generate "a task and a teacher's answer with control bytes"

# ---- tests ----------------------------------------------------------------------------
# a skill that has tests: nothing written over them, the folder named escaped
run "$SKILLCI" tests init "$EVIL" --teacher "$M" --no-run --no-cache
ctl_case tests "init over a skill folder named with control bytes"
run "$SKILLCI" tests init "$T/none$CTL" --teacher "$M" --no-run --no-cache
ctl_case tests "init of a missing folder named with control bytes"

# ---- help, version, an unknown command ---------------------------------------------
run "$SKILLCI" help "nope$CTL"
ctl_case help "help for an unknown command named with control bytes"
run "$SKILLCI" "nope$CTL"
ctl_case help "an unknown command named with control bytes"
run "$SKILLCI" version
ctl_case version "the version"

# ---- every command is covered ---------------------------------------------------------
check "every command of skillci --help has a case here" sh -c '
	"$1" --help | sed -n "s/^  \([a-z][a-z-]*\)  .*/\1/p" > "$2/cmds"
	test -s "$2/cmds" || { echo "no command list in skillci --help"; exit 1; }
	for c in $(cat "$2/cmds"); do
		case "$3" in *" $c "*) ;; *) echo "no control-byte case for skillci $c"; exit 1 ;; esac
	done' sh "$SKILLCI" "$T" "$COVERED"

done_testing
