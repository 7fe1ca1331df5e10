# Nothing the pull request brings is interpreted, and nothing secret is
# echoed (docs/security.md, "Head files are data" and "Secrets never reach
# an output").
#
# A distinct value is planted in every secret variable the runner reads.
# Hostile heads then try to make skillci print them: every config format
# with ${VAR}, $VAR, {{ }} and include syntaxes (skillci.yml,
# upskill.config.yaml, fastagent.config.yaml, the file upskill's
# fastagent_config names), YAML tags, anchors and aliases, JSON numbers
# out of range, skill and test files quoting the variables, Markdown that
# would run as HTML, a skill folder whose name holds ESC and OSC bytes, a
# model server that echoes the key it received and the test's own input.
# skillci runs as action.yml runs it (GitHub Actions, outputs, step
# summary, the sticky comment on a fake GitHub API). Then every file in
# the workspace, the captured log, $GITHUB_OUTPUT, the step summary and
# the fake GitHub's recorded comment bodies are searched for each value
# and for its base64, hex and reversed forms: none may appear.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
unset GITHUB_EVENT_PATH SKILLCI_STORE SKILLCI_RUNNER_KEY_FILE

# ---- the planted values: one per variable, each distinct --------------------
V_ANTHROPIC=sk-ant-api03-NOECHO-anthropic-7f3a9c21
V_OPENAI=sk-proj-NOECHO-openai-51be07d4
V_HF=hf_NOECHOhuggingface62c4d1aa
V_GITHUB=ghs_NOECHOgithubtoken0a1b2c3d4e
V_GIT=ghp_NOECHOgittoken9f8e7d6c5b
V_RUNNER=NOECHO-runner-key-3c5e7a9b1d
V_CACHE=NOECHO-cache-key-2b4d6f8a0c
V_PG=NOECHO-pg-password-8d2f4a6c
V_LAB=NOECHO-lab-endpoint-key-4e6a8c0b
V_GENERIC=NOECHO-generic-key-1a3c5e7f
export ANTHROPIC_API_KEY=$V_ANTHROPIC OPENAI_API_KEY=$V_OPENAI HF_TOKEN=$V_HF \
	GITHUB_TOKEN=$V_GITHUB SKILLCI_GIT_TOKEN=$V_GIT SKILLCI_RUNNER_KEY=$V_RUNNER \
	SKILLCI_CACHE_KEY=$V_CACHE PGPASSWORD=$V_PG LAB_KEY=$V_LAB GENERIC_API_KEY=$V_GENERIC
VALUES="$V_ANTHROPIC $V_OPENAI $V_HF $V_GITHUB $V_GIT $V_RUNNER $V_CACHE $V_PG $V_LAB $V_GENERIC"

# every form a grep must not find: the value, reversed, hex (both cases),
# base64 at each of the three byte offsets (the stable middle of each)
FORMS="$T/forms.txt"
python3 - "$FORMS" $VALUES <<'EOF'
import base64, sys
out = open(sys.argv[1], "w")
for v in sys.argv[2:]:
    b = v.encode()
    forms = {v, v[::-1], b.hex(), b.hex().upper()}
    for pad in (b"", b"x", b"xy"):
        e = base64.b64encode(pad + b).decode().rstrip("=")
        skip = {0: 0, 1: 2, 2: 3}[len(pad)]
        forms.add(e[skip:skip + 16])
        forms.add(base64.urlsafe_b64encode(pad + b).decode()[skip:skip + 16])
    for f in sorted(forms):
        out.write(f + "\n")
EOF

# ---- the model server: answers the skill right, and echoes -----------------
cat > "$T/script.json" <<'EOF'
{"rules": [
  {"match": {"system": "ALPHA-GOOD"}, "reply": {"text": "ok-alpha", "usage": {"input": 100, "output": 10}}},
  {"match": {"contains": "echo-key"}, "reply": {"text": "key {key:raw} rev {key:reversed} b64 {key:base64} said {last_user}", "usage": {"input": 10, "output": 5}}},
  {"match": {"contains": "echo-error"}, "reply": {"status": 400, "error_message": "bad", "echo_key": true}}
 ],
 "default": {"text": "echo {last_user} {key:raw}", "usage": {"input": 100, "output": 10}}}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"

# ---- the fake GitHub API -------------------------------------------------------
gdir=$(mktemp -d "$T/gh.XXXXXX")
python3 tests/fakes/fake_github.py --port-file "$gdir/port" --log "$gdir/log" --token "$V_GITHUB" &
GH_PID=$!
i=0
while [ ! -s "$gdir/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
GH_URL="http://127.0.0.1:$(cat "$gdir/port")"
trap 'kill "$GH_PID" 2>/dev/null; wait "$GH_PID" 2>/dev/null; fake_stop; rm -rf "$T"' EXIT

# ---- the repository: a reviewed base and hostile heads --------------------------
W="$T/w"
mkdir -p "$W/skills/alpha"
cat > "$W/skillci.yml" <<'EOF'
version: 1
models: [anthropic.fake-student]
runs: 1
providers:
  lab: {wire: openai, base_url: "http://127.0.0.1:9/v1", api_key_env: LAB_KEY}
gate: {pass_rate_drop_points: 5, alpha: 0.05, require_lift: false, error_share: 1}
EOF
printf -- '---\nname: alpha\ndescription: Answers alpha questions.\n---\n# alpha\n\nALPHA-GOOD: answer with ok-alpha.\n' \
	> "$W/skills/alpha/SKILL.md"
python3 - "$W/skills/alpha/skill_meta.json" <<'EOF'
import json, sys
tests = [{"input": "question %d about alpha" % i, "expected": {"contains": ["ok-alpha"]}} for i in range(3)]
# a server that echoes the key in answers and in errors
tests += [{"input": "echo-key please", "expected": {"contains": ["ok-alpha"]}},
          {"input": "echo-error please", "expected": {"contains": ["ok-alpha"]}}]
json.dump({"tests": tests}, open(sys.argv[1], "w"), indent=1)
EOF
git -C "$W" init -q -b main
commit() { git -C "$W" add -A && git -C "$W" -c user.email=ci@example.com -c user.name=ci \
	commit -q -m "$1" && git -C "$W" rev-parse HEAD; }
BASE=$(commit base)

# every config format, every expansion and include syntax
cat > "$W/skillci.yml" <<'EOF'
version: 1
models: ["${ANTHROPIC_API_KEY}", "$OPENAI_API_KEY", "{{ env.GITHUB_TOKEN }}", "%(SKILLCI_RUNNER_KEY)s"]
runs: !!int "${SKILLCI_CACHE_KEY}"
arch: !include /etc/passwd
fixtures: !env PGPASSWORD
store: {path: "${PGPASSWORD:-x}"}
cache: {dir: "$(echo $GITHUB_TOKEN)"}
judge: {model: "`printenv HF_TOKEN`", rubric: "${{ secrets.GITHUB_TOKEN }}"}
gate: {pass_rate_drop_points: 1e999, alpha: -0.0, tokens_rise_pct: 0x10, judge_drop: .nan}
providers:
  evil: {wire: openai, base_url: "http://${LAB_KEY}@127.0.0.1:9/", api_key_env: GITHUB_TOKEN}
<<: {include: "${SKILLCI_GIT_TOKEN}"}
EOF
cat > "$W/upskill.config.yaml" <<'EOF'
eval_model: "${OPENAI_API_KEY}"
model: $SKILLCI_GIT_TOKEN
fastagent_config: evil/fa.yaml
EOF
mkdir -p "$W/evil"
cat > "$W/evil/fa.yaml" <<'EOF'
anthropic: {base_url: "${ANTHROPIC_API_KEY}", api_key: "${GITHUB_TOKEN}"}
openai: {base_url: "${SKILLCI_RUNNER_KEY:default}", api_key: "$OPENAI_API_KEY"}
generic: {base_url: "{{ GENERIC_API_KEY }}", api_key: "${PGPASSWORD}"}
hf: {base_url: "${SKILLCI_CACHE_KEY}", api_key: "${HF_TOKEN}"}
EOF
cat > "$W/fastagent.config.yaml" <<'EOF'
anthropic: {base_url: "${ANTHROPIC_API_KEY}"}
openai: {base_url: "${LAB_KEY}"}
EOF
# the skill's files quote the variables; its Markdown would be HTML
printf -- '---\nname: alpha\ndescription: "${GITHUB_TOKEN} $ANTHROPIC_API_KEY"\n---\n# alpha ${SKILLCI_RUNNER_KEY}\n\n<img src=x onerror="alert(1)"> <script>alert(2)</script> [x](javascript:alert(3))\n\nBROKEN: answer no.\n' \
	> "$W/skills/alpha/SKILL.md"
python3 - "$W/skills/alpha/skill_meta.json" <<'EOF'
import json, sys
tests = [{"input": "question %d about alpha" % i, "expected": {"contains": ["ok-alpha"]}} for i in range(3)]
tests += [{"input": "echo-key ${ANTHROPIC_API_KEY} $GITHUB_TOKEN {{ SKILLCI_CACHE_KEY }}",
           "expected": {"contains": ["${PGPASSWORD}"]}},
          {"input": "echo-error ${OPENAI_API_KEY}", "expected": {"contains": ["x"]},
           "name": "\"><img src=x onerror=alert(4)> ${HF_TOKEN}", "big": 1e999}]
json.dump({"tests": tests}, open(sys.argv[1], "w"), indent=1)
EOF
# a new skill in a folder whose name holds ESC, OSC and BEL bytes
BAD=$(printf 'skills/bad\033]0;owned\007\033[2Jname')
mkdir -p "$W/$BAD"
printf -- '---\nname: bad\ndescription: "x"\n---\nBody ${GITHUB_TOKEN}\n' > "$W/$BAD/SKILL.md"
HEADREV=$(commit "hostile head")

# ---- the run, as action.yml runs it ---------------------------------------------
printf '{"action": "synchronize", "number": 7, "pull_request": {"number": 7}}' > "$T/event.json"
: > "$T/gh_output"; : > "$T/gh_summary"
(cd "$W" && GITHUB_ACTIONS=true GITHUB_OUTPUT="$T/gh_output" GITHUB_STEP_SUMMARY="$T/gh_summary" \
	GITHUB_REPOSITORY=example/skills GITHUB_EVENT_PATH="$T/event.json" GITHUB_API_URL="$GH_URL" \
	SKILLCI_TRACE=http,git "$SKILLCI" run --repo . --jobs 1 --base "$BASE" --head "$HEADREV" \
	--report-dir .skillci/report --comment -v > "$T/log.out" 2> "$T/log.err")
RC=$?
check "the run ends with a verdict (exit 0 or 1), not a crash ($RC)" sh -c "test $RC -eq 0 -o $RC -eq 1"
expect_file "$W/.skillci/report/results.json" "results.json written"
expect_file "$W/.skillci/report/report.html" "report.html written"
check "the comment was posted" sh -c "curl -s '$GH_URL/_fake/comments' | grep -q skillci-report"
check "the fake model did receive the key (the run used it)" grep -q '"key_present": true' "$FAKE_LOG"
check "answers and errors echoing the key were sent (the test can see a leak)" \
	sh -c "grep -q 'echo-key' '$FAKE_LOG' && grep -q 'echo-error' '$FAKE_LOG'"
check "and reached the results, redacted" grep -q '\[redacted\]' "$W/.skillci/report/results.json"
check "the head's config changes are listed" grep -q 'models' "$W/.skillci/report/results.json"
check "the head's fastagent values are listed as written (\${VAR} never expanded)" python3 -c "
import json
r = json.load(open('$W/.skillci/report/results.json'))
c = {x['key']: x['head'] for x in r['run']['trust']['head_config_changes']}
assert 'base_url \${ANTHROPIC_API_KEY}' in c['fastagent.anthropic'], c
assert 'base_url \${SKILLCI_RUNNER_KEY:default}' in c['fastagent.openai'], c
assert '[redacted]' not in json.dumps(c), c"
curl -s "$GH_URL/_fake/comments" > "$T/comments.json"

# every place an output can land
PLACES="$W $T/log.out $T/log.err $T/gh_output $T/gh_summary $T/comments.json $gdir/log"
hits=$(grep -rlaF -f "$FORMS" $PLACES 2>/dev/null)
if [ -z "$hits" ]; then _tap ok "no planted value, nor its base64, hex or reversed form, in any output"
else _tap not-ok "no planted value, nor its base64, hex or reversed form, in any output" \
	"found in: $hits; $(grep -raoF -f "$FORMS" $hits | head -5)"; fi
for v in $VALUES; do
	case "$v" in *runner*) name=SKILLCI_RUNNER_KEY ;; *cache*) name=SKILLCI_CACHE_KEY ;;
	*pg-*) name=PGPASSWORD ;; *lab*) name=LAB_KEY ;; *) name=$v ;; esac
	if grep -rqaF "$v" $PLACES 2>/dev/null; then _tap not-ok "value of $name never printed"
	else _tap ok "value of $name never printed"; fi
done
# the grep would see a leak: the same forms are found in a file holding one
printf 'x %s y\n' "$(printf '%s' "$V_PG" | base64)" > "$T/probe"
check "the form list finds a planted base64 (the search can fail)" grep -qaF -f "$FORMS" "$T/probe"

# control bytes from the folder name never reach the log, outputs or summary
for f in "$T/log.out" "$T/log.err" "$T/gh_output" "$T/gh_summary"; do
	if LC_ALL=C grep -q "$(printf '\033')" "$f" || LC_ALL=C grep -q "$(printf '\007')" "$f"; then
		_tap not-ok "no ESC or BEL byte in $(basename "$f")"
	else _tap ok "no ESC or BEL byte in $(basename "$f")"; fi
done
# Markdown rendered to HTML: the head's HTML is text, its links inert
check "report.html holds no live <script>, onerror= or javascript: link from the head" python3 - \
	"$W/.skillci/report/report.html" <<'EOF'
import re, sys
html = open(sys.argv[1], encoding="utf-8", errors="replace").read()
assert "<script>alert" not in html, "script"
assert not re.search(r"<img[^>]*onerror", html), "img onerror"
assert 'href="javascript:' not in html.lower(), "javascript link"
EOF

# ---- YAML anchors and aliases (an alias bomb) are refused, not expanded ---------
mkdir -p "$T/bomb/skills/bomb"
printf -- '---\nname: bomb\ndescription: &a ["lol", "lol", "lol"]\nmetadata: {b: [*a, *a, *a], c: [*a, *a]}\n---\nBody\n' \
	> "$T/bomb/skills/bomb/SKILL.md"
printf 'version: 1\nmodels: &m [anthropic.x]\nruns: *m\n' > "$T/bomb/skillci.yml"
run sh -c 'cd "$1" && shift && exec "$@"' - "$T/bomb" "$SKILLCI" validate skills
expect_exit 1 "a front matter with YAML anchors and aliases is invalid"
expect_out_contains "are not supported" "the anchor is named as unsupported"
run sh -c 'cd "$1" && shift && exec "$@"' - "$T/bomb" "$SKILLCI" eval skills/bomb -m anthropic.x
expect_exit 2 "a skillci.yml with YAML anchors and aliases is a config error (exit 2)"
expect_err_contains "skillci.yml:2: error: YAML anchors ('&m') are not supported" \
	"the config's anchor is named with its file and line"

# ---- --config never follows a link the pull request commits --------------------
echo "models: [anthropic.from-outside]" > "$T/outside.yml"
W2="$T/w2"
mkdir -p "$W2/skills/alpha"
git -C "$W" show "$BASE:skillci.yml" > "$W2/skillci.yml"
git -C "$W" show "$BASE:skills/alpha/SKILL.md" > "$W2/skills/alpha/SKILL.md"
git -C "$W" show "$BASE:skills/alpha/skill_meta.json" > "$W2/skills/alpha/skill_meta.json"
git -C "$W2" init -q -b main
B2=$(git -C "$W2" add -A && git -C "$W2" -c user.email=ci@example.com -c user.name=ci commit -q -m base &&
	git -C "$W2" rev-parse HEAD)
rm "$W2/skillci.yml"
ln -s "$T/outside.yml" "$W2/skillci.yml"
sed -i 's/ALPHA-GOOD/ALPHA-BROKEN/' "$W2/skills/alpha/SKILL.md"
H2=$(git -C "$W2" add -A && git -C "$W2" -c user.email=ci@example.com -c user.name=ci commit -q -m link &&
	git -C "$W2" rev-parse HEAD)
run sh -c 'cd "$1" && shift && exec "$@"' - "$W2" "$SKILLCI" run --repo . --jobs 1 --config skillci.yml \
	--base "$B2" --head "$H2" --report-dir .skillci/report
check "--config through a committed link: the base's file is used, not the link's target" python3 -c "
import json
r = json.load(open('$W2/.skillci/report/results.json'))
assert 'from-outside' not in json.dumps(r['run']), r['run'].get('models')
assert 'base revision' in r['run']['trust']['config'], r['run']['trust']['config']"
expect_out_lacks "(--config, a file of the runner)" "--config through a link is not called a file of the runner"

# ---- --fixtures never follows a link the pull request commits ------------------
# the base commits a fixtures folder; the head replaces it with a link to a
# folder outside the repository whose fixtures.lock carries a marker: the
# kernels are judged against the base revision's folder, never the target
cp -R "$SKILLCI_ROOT/fixtures" "$T/outside-fx"
echo "# OUTSIDE-FIXTURES-MARKER" >> "$T/outside-fx/fixtures.lock"
W3="$T/w3"
mkdir -p "$W3/skills/kern"
printf 'version: 1\nruns: 1\n' > "$W3/skillci.yml"
cp -R "$SKILLCI_ROOT/fixtures" "$W3/fx"
printf -- '---\nname: kern\ndescription: Writes kernels.\n---\n# kern\n\nWrite kernels.\n' \
	> "$W3/skills/kern/SKILL.md"
echo '{"tests": [{"input": "Write the softmax kernel.", "fixture": "softmax"}]}' \
	> "$W3/skills/kern/skill_meta.json"
git -C "$W3" init -q -b main
B3=$(git -C "$W3" add -A && git -C "$W3" -c user.email=ci@example.com -c user.name=ci commit -q -m base &&
	git -C "$W3" rev-parse HEAD)
git -C "$W3" rm -q -r fx
ln -s "$T/outside-fx" "$W3/fx"
printf '\nUse shared memory.\n' >> "$W3/skills/kern/SKILL.md"
H3=$(git -C "$W3" add -A && git -C "$W3" -c user.email=ci@example.com -c user.name=ci commit -q -m link &&
	git -C "$W3" rev-parse HEAD)
check "--fixtures: the head commits the folder as a link out of the repository" \
	test "$(git -C "$W3" ls-tree "$H3" fx | cut -c1-6)" = 120000
run sh -c 'cd "$1" && shift && exec "$@"' - "$W3" "$SKILLCI" run --repo . --jobs 1 -m oracle.self --fixtures fx \
	--base "$B3" --head "$H3" --report-dir .skillci/report
check "--fixtures through a committed link: the run judged its kernels (exit 0 or 1)" \
	test "$RC" -le 1
check "--fixtures through a committed link: the base revision's fixtures are used, not the link's target" \
	python3 - "$W3/.skillci/report/results.json" "$SKILLCI_ROOT/fixtures/fixtures.lock" \
	"$T/outside-fx/fixtures.lock" <<'EOF'
import hashlib, json, sys
r = json.load(open(sys.argv[1]))
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
lock = r["run"]["fixtures_lock"]
assert lock == sha(sys.argv[2]), (lock, "want the base's", sha(sys.argv[2]))
assert lock != sha(sys.argv[3]), "the link's target was read"
assert "outside-fx" not in json.dumps(r), "the link's target is named"
notes = r["run"]["trust"]["notes"]
assert any("changes the fixtures folder 'fx'" in n for n in notes), notes
EOF
expect_out_lacks "OUTSIDE-FIXTURES-MARKER" "--fixtures through a link: nothing of the target is printed"

done_testing
