# skillci report end to end: golden JUnit/Markdown/HTML from fixed results
# files, schema validation with xmllint, the HTML in headless Chromium, the
# 65,536-character bound, GitHub Actions outputs and annotations, and the
# sticky PR comment against a fake GitHub API on loopback.
. tests/e2e/lib.sh

unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_TOKEN GITHUB_REPOSITORY \
	GITHUB_EVENT_PATH GITHUB_API_URL
export NO_COLOR=1
G=tests/golden
IN=$G/inputs
EXP=$G/expected

# ---- golden files -------------------------------------------------------

# render NAME ARGS...: the same reports regen.sh writes, into $T/NAME.*
render() {
	name=$1
	shift
	run "$SKILLCI" report "$@" --junit "$T/$name.xml" --markdown "$T/$name.md" \
		--markdown-full "$T/$name.full.md" --html "$T/$name"
	expect_exit 0 "report $name exits 0"
	printf '%s\n' "$OUT" > "$T/$name.term.txt"
	for ext in xml md full.md term.txt; do
		expect_same "$EXP/$name.$ext" "$T/$name.$ext" "$name.$ext matches the golden file"
	done
	expect_same "$EXP/$name.html" "$T/$name/report.html" "$name.html matches the golden file"
	expect_same "$EXP/$name.index.html" "$T/$name/index.html" "$name index.html matches the golden file"
}

render pr "$IN/pr.json"
render oracle "$IN/oracle.json"
render eval "$IN/eval.json"
render diff "$IN/eval.json" --base "$IN/eval-base.json" --history "$IN/eval-base.json"
run "$SKILLCI" report "$IN/pr.json" --junit "$T/pr.file-attrs.xml" --junit-file-attrs
expect_same "$EXP/pr.file-attrs.xml" "$T/pr.file-attrs.xml" "JUnit with --junit-file-attrs matches the golden file"

# What the golden PR report must show (so a regenerated golden file that
# lost something fails here too).
md=$(cat "$T/pr.md")
for want in '❌ **gate failed' '100% → 25%' '+75 pts (significant, p=0.031)' '🆕 new' '🗑️ deleted' \
	'**Untested**' '<code>docs-only</code>' 'compile log:' 'identifier "INFINITY" is undefined' \
	'<details>' 'fixtures.lock <code>efefefefefef</code>' 'mode GPU' \
	'driver 550.54.15' 'skillci 0.1.0' 'pass\_rate\_drop' '&lt;script&gt;' '&#124; pipe'; do
	case "$md" in *"$want"*) _tap ok "PR report shows '$want'" ;;
	*) _tap not-ok "PR report shows '$want'" "$(head -c 2000 "$T/pr.md")" ;; esac
done
case "$(cat "$T/oracle.md")" in *"Oracle self-test"*"Incomplete run"*"compile-only"*"⚠️ **incomplete**"*)
	_tap ok "oracle report has the self-test banner, incomplete marker and compile-only mode" ;;
*) _tap not-ok "oracle report has the self-test banner, incomplete marker and compile-only mode" ;; esac
case "$(cat "$T/eval.md")" in *"| no skill | with skill |"*"✅ helps"*"worst mismatch: |error| 0.25 at index 7"*)
	_tap ok "eval report compares no skill with the skill" ;;
*) _tap not-ok "eval report compares no skill with the skill" ;; esac
case "$(cat "$T/diff.md")" in *"83% → 100%"*"(unpaired)"*)
	_tap ok "--base diffs two single-run files (unpaired)" ;;
*) _tap not-ok "--base diffs two single-run files (unpaired)" "$(cat "$T/diff.md")" ;; esac
if grep -q "$(printf '\033')" "$T/pr.term.txt"; then
	_tap not-ok "terminal summary has no escape sequences when not a TTY"
else
	_tap ok "terminal summary has no escape sequences when not a TTY"
fi
expect_out_contains "baseline   █████░░░░░░░░░░░░░░░  25%" "terminal summary draws bars"

# ---- JUnit schema -------------------------------------------------------

# The contract's copy beside the repository, else the repository's own copy.
XSD=$SKILLCI_ROOT/../shared/data/junit-10.xsd
[ -f "$XSD" ] || XSD=$SKILLCI_ROOT/tests/data/junit-10.xsd
if [ -f "$XSD" ] && command -v xmllint > /dev/null; then
	for name in pr oracle eval diff; do
		check "$name.xml validates against junit-10.xsd" xmllint --noout --schema "$XSD" "$T/$name.xml"
	done
	if xmllint --noout --schema "$XSD" "$T/pr.file-attrs.xml" > /dev/null 2>&1; then
		_tap not-ok "--junit-file-attrs output is documented as outside junit-10.xsd"
	else
		_tap ok "--junit-file-attrs output is documented as outside junit-10.xsd"
	fi
else
	skip "JUnit validates against junit-10.xsd" "no $XSD or no xmllint"
fi
# Characters XML 1.0 cannot hold and huge messages.
python3 - "$IN/pr.json" "$T/nasty.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
u = d["units"][1]
u["verdict"] = "fail"; u["error_class"] = "wrong_answer"
u["message"] = "bell\x07 nul-ish\x01 esc\x1b ]]> & <tag> " + "x" * 200000
u["test_name"] = "name with \x0b vertical tab"
json.dump(d, open(sys.argv[2], "w"))
EOF
run "$SKILLCI" report "$T/nasty.json" --junit "$T/nasty.xml"
expect_exit 0 "report with control characters and a 200 kB message exits 0"
check "JUnit with control characters is well-formed XML" xmllint --noout "$T/nasty.xml"
if [ -f "$XSD" ]; then
	check "JUnit with control characters validates" xmllint --noout --schema "$XSD" "$T/nasty.xml"
fi
if grep -q 'trimmed' "$T/nasty.xml" && [ "$(wc -c < "$T/nasty.xml")" -lt 150000 ]; then
	_tap ok "huge outputs are trimmed with a note"
else
	_tap not-ok "huge outputs are trimmed with a note" "size $(wc -c < "$T/nasty.xml")"
fi

# ---- size bound: 300 skills ---------------------------------------------

python3 - "$T/big.json" <<'EOF'
import json, sys
M = "anthropic.claude-haiku-4-5"
skills, units, aggs, cmps = [], [], [], []
for i in range(300):
    p = "skills/generated-skill-with-a-long-name-%03d" % i
    skills.append({"path": p, "name": p.split("/")[1], "status": "modified", "skill_md": p + "/SKILL.md",
                   "tests": 4, "untested": False, "gate": {"passed": True, "reasons": []}})
    for v in ("baseline", "base", "head"):
        aggs.append({"skill": p, "variant": v, "model": M, "n": 8, "passed": 4, "failed": 4,
                     "errors": 0, "skipped": 0, "pass_rate": 0.5, "mean_tokens": 1000})
        for t in range(4):
            for r in range(2):
                units.append({"skill": p, "variant": v, "model": M, "test_id": "t#%d" % t,
                              "test_name": "a long test prompt number %d that goes on" % t, "run_index": r,
                              "kind": "text", "verdict": "fail" if r else "pass", "error_class": "wrong_answer" if r else None,
                              "message": ("expected text not found in the answer " * 6) if r else None,
                              "tokens_in": 900, "tokens_out": 100, "turns": 1, "latency_ms": 1000})
    cmps.append({"skill": p, "model": M, "from": "base", "to": "head", "paired_n": 8, "pass_rate_delta": 0,
                 "p_value": 1, "significant": False, "tokens_delta_pct": 0})
d = {"schema": "skillci.results/1", "skillci_version": "0.1.0",
     "run": {"id": "big", "kind": "run", "complete": True, "models": [M], "runs": 2, "mode": "none"},
     "skills": skills, "units": units, "aggregates": aggs, "comparisons": cmps,
     "gate": {"passed": True, "exit_code": 0, "failures": [], "error_share": 0}}
json.dump(d, open(sys.argv[1], "w"))
EOF
run "$SKILLCI" report "$T/big.json" --markdown "$T/big.md" --markdown-full "$T/big.full.md"
expect_exit 0 "report with 300 skills exits 0"
chars=$(python3 -c "import sys; print(len(open(sys.argv[1], encoding='utf-8').read()))" "$T/big.md")
if [ "$chars" -lt 65536 ]; then _tap ok "300-skill report is under 65,536 characters ($chars)"
else _tap not-ok "300-skill report is under 65,536 characters" "$chars characters"; fi
rows=$(grep -c '^| <code>generated-skill-with-a-long-name-' "$T/big.md")
if [ "$rows" -eq 300 ]; then _tap ok "300-skill report keeps every summary row"
else _tap not-ok "300-skill report keeps every summary row" "$rows rows"; fi
case "$(cat "$T/big.md")" in *"Details shortened"*"big.full.md"*) _tap ok "shortened report points at the full report" ;;
*) _tap not-ok "shortened report points at the full report" ;; esac
full=$(grep -c '^<details>' "$T/big.full.md")
if [ "$full" -eq 300 ]; then _tap ok "the full report keeps every details section"
else _tap not-ok "the full report keeps every details section" "$full sections"; fi

# ---- JSON round trip ----------------------------------------------------

run "$SKILLCI" report "$IN/pr.json" --json "$T/rt1.json"
run "$SKILLCI" report "$T/rt1.json" --json "$T/rt2.json" --markdown-full "$T/rt.full.md"
expect_same "$T/rt1.json" "$T/rt2.json" "--json output is stable when read back and written again"
expect_same "$EXP/pr.full.md" "$T/rt.full.md" "the report of the rewritten JSON is unchanged"

# ---- bad input ----------------------------------------------------------

run "$SKILLCI" report "$T/missing.json"
expect_exit 2 "a missing results file exits 2"
expect_err_contains "missing.json" "the missing file is named"
sed 's#"skillci.results/1"#"skillci.results/2"#' "$IN/eval.json" > "$T/v2.json"
run "$SKILLCI" report "$T/v2.json"
expect_exit 2 "another schema major version exits 2"
expect_err_contains "schema 'skillci.results/2' is not supported" "the schema version found is named"
printf '{"schema": "skillci.results/1", "units": [{"skill": 3}]}' > "$T/badtype.json"
run "$SKILLCI" report "$T/badtype.json"
expect_exit 2 "a wrong type exits 2"
expect_err_contains '$.units[0].skill: expected a string' "the error names the JSON path"
printf '{"schema": "skillci.results/1",\n "run": {' > "$T/trunc.json"
run "$SKILLCI" report "$T/trunc.json"
expect_exit 2 "malformed JSON exits 2"
run "$SKILLCI" report
expect_exit 2 "no results file is a usage error"
run "$SKILLCI" report "$IN/pr.json" --history "$IN/eval.json" --markdown "$T/h.md"
expect_exit 2 "--history without --html is a usage error"
if [ -f "$T/h.md" ]; then _tap not-ok "a usage error writes no report"; else _tap ok "a usage error writes no report"; fi
run "$SKILLCI" report "$IN/pr.json" --frobnicate
expect_exit 2 "an unknown option is a usage error"
run "$SKILLCI" report "$IN/pr.json" --junit /proc/nonexistent/dir/r.xml
expect_exit 3 "an unwritable report path exits 3"

# ---- GitHub Actions -----------------------------------------------------

: > "$T/gh_output"
: > "$T/gh_summary"
GITHUB_ACTIONS=true GITHUB_OUTPUT="$T/gh_output" GITHUB_STEP_SUMMARY="$T/gh_summary" \
	run "$SKILLCI" report "$IN/pr.json" --markdown "$T/gh.md" --junit "$T/gh.xml"
expect_exit 0 "report in GitHub Actions exits 0 even when the gate failed"
expect_out_contains "::group::skillci report" "the summary is in a log group"
expect_out_contains "::endgroup::" "the log group is closed"
expect_out_contains "::error file=skills/commit-messages/SKILL.md,title=skillci%3A commit-messages regressed on anthropic.claude-haiku-4-5 (pass_rate_drop)::pass rate fell 75 points: 100%25 -> 25%25 (limit 10 points)%0Asee report: a, b" \
	"annotation escapes % and newlines in data, : in properties, keeps , in data"
expect_out_contains "::error file=skills/cuda-gemm/SKILL.md," "each regressed skill is annotated"
n=$(printf '%s\n' "$OUT" | grep -c '^::error ')
if [ "$n" -eq 2 ]; then _tap ok "one annotation per regression"; else _tap not-ok "one annotation per regression" "$n"; fi
if grep -qF "gate failed: 2 of 6 changed skills regressed" "$T/gh_summary"; then
	_tap ok "the Markdown is appended to the step summary"
else
	_tap not-ok "the Markdown is appended to the step summary"
fi
python3 - "$T/gh_output" "$T/gh.md" > "$T/gh_parse" 2>&1 <<'EOF'
import re, sys
# Parses $GITHUB_OUTPUT the way the Actions runner does.
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
out, i = {}, 0
while i < len(lines):
    l = lines[i]
    if not l:
        i += 1; continue
    m = re.match(r"^([A-Za-z0-9_-]+)<<(.*)$", l)
    if m:
        name, delim = m.groups()
        assert re.fullmatch(r"ghadelimiter_[0-9a-f]{32}", delim), "delimiter %r" % delim
        j = lines.index(delim, i + 1)
        out[name] = "\n".join(lines[i + 1:j]); i = j + 1
    else:
        name, _, value = l.partition("="); out[name] = value; i += 1
assert out["verdict"] == "fail", out["verdict"]
assert out["passed"] == "false"
assert out["exit_code"] == "1"
assert out["regressions"] == "2"
assert out["pass_rate_head"] == "0.6364", out["pass_rate_head"]   # 7 of 11
assert out["pass_rate_base"] == "0.6667", out["pass_rate_base"]   # 8 of 12
assert out["pass_rate_baseline"] == "0.2000", out["pass_rate_baseline"]  # 2 of 10
assert out["junit"].endswith("gh.xml") and out["markdown"].endswith("gh.md")
md = open(sys.argv[2], encoding="utf-8").read()
assert out["markdown_summary"].rstrip("\n") == md.rstrip("\n"), "markdown_summary differs from the report"
print("outputs ok:", sorted(out))
EOF
if [ $? -eq 0 ]; then _tap ok "GITHUB_OUTPUT parses like the runner reads it (heredoc delimiters, values)"
else _tap not-ok "GITHUB_OUTPUT parses like the runner reads it (heredoc delimiters, values)" "$(cat "$T/gh_parse")"; fi

# ---- sticky PR comment against a fake GitHub API ------------------------

TOKEN="ghs_fakeToken$(date +%s)SECRET"
gh_start() {  # gh_start [ARGS...]: starts tests/fakes/fake_github.py
	gdir=$(mktemp -d "$T/gh.XXXXXX")
	python3 tests/fakes/fake_github.py --port-file "$gdir/port" --log "$gdir/log" --token "$TOKEN" "$@" &
	GH_PID=$!
	i=0
	while [ ! -s "$gdir/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	GH_URL="http://127.0.0.1:$(cat "$gdir/port")"
	GH_LOG=$gdir/log
}
gh_stop() { kill "$GH_PID" 2>/dev/null; wait "$GH_PID" 2>/dev/null; }
trap 'gh_stop; rm -rf "$T"' EXIT
printf '{"action": "synchronize", "number": 42, "pull_request": {"number": 42}}' > "$T/event.json"
comment() {
	GITHUB_TOKEN=$TOKEN GITHUB_REPOSITORY=example/skills GITHUB_EVENT_PATH=$T/event.json \
		GITHUB_API_URL=$GH_URL run "$SKILLCI" report "$@" --comment
}
count_comments() {
	curl -s "$GH_URL/_fake/comments" | python3 -c "import json,sys; print(sum('<!-- skillci-report -->' in c['body'] for c in json.load(sys.stdin)))"
}

gh_start --seed-comments 150
comment "$IN/pr.json"
expect_exit 0 "--comment exits 0"
expect_err_contains "created pull request comment" "first run creates the comment"
first_err=$ERR
comment "$IN/eval.json"
expect_exit 0 "second --comment exits 0"
expect_err_contains "updated pull request comment" "second run updates it"
if [ "$(count_comments)" = 1 ]; then _tap ok "one sticky comment after two runs"; else _tap not-ok "one sticky comment after two runs" "$(count_comments)"; fi
body=$(curl -s "$GH_URL/_fake/comments" | python3 -c "import json,sys; print([c['body'] for c in json.load(sys.stdin) if 'skillci-report' in c['body']][0])")
case "$body" in *"skillci eval"*) _tap ok "the comment holds the latest report" ;; *) _tap not-ok "the comment holds the latest report" ;; esac
if grep -q '"page=2' "$GH_LOG" || grep -q 'page=2' "$GH_LOG"; then _tap ok "comments are read page by page"; else _tap not-ok "comments are read page by page" "$(cat "$GH_LOG")"; fi
if grep -q '"method": "PATCH", "path": "/repos/example/skills/issues/comments/' "$GH_LOG"; then _tap ok "the update is a PATCH of the same comment"; else _tap not-ok "the update is a PATCH of the same comment"; fi
gh_stop

python3 - "$T/huge.json" <<'EOF2'
import json, sys
M = "m"
skills = [{"path": "skills/s%04d" % i, "status": "modified", "gate": {"passed": True, "reasons": []}} for i in range(1500)]
aggs = [{"skill": s["path"], "variant": v, "model": M, "n": 2, "passed": 1, "pass_rate": 0.5} for s in skills for v in ("base", "head")]
json.dump({"schema": "skillci.results/1", "run": {"kind": "run", "models": [M], "runs": 1},
           "skills": skills, "aggregates": aggs, "gate": {"passed": True, "exit_code": 0}}, open(sys.argv[1], "w"))
EOF2
gh_start
comment "$T/huge.json" --markdown "$T/huge.md"
expect_exit 0 "--comment with a summary table over the limit exits 0"
len=$(curl -s "$GH_URL/_fake/comments" | python3 -c "import json,sys; print(max(len(c['body']) for c in json.load(sys.stdin)))")
if [ "$len" -lt 65536 ] && curl -s "$GH_URL/_fake/comments" | grep -q "too long for a comment"; then
	_tap ok "a summary over the limit becomes a short comment pointing at the full report ($len characters)"
else
	_tap not-ok "a summary over the limit becomes a short comment pointing at the full report" "$len"
fi
rows=$(grep -c '^| <code>skills/s' "$T/huge.md")
if [ "$rows" -eq 1500 ]; then _tap ok "--markdown still keeps every summary row"; else _tap not-ok "--markdown still keeps every summary row" "$rows"; fi
gh_stop

gh_start --forbid
comment "$IN/pr.json"
expect_exit 0 "403 from a fork's token exits 0"
expect_err_contains "warning: GitHub refused the pull request comment (HTTP 403)" "403 is a warning"
gh_stop

gh_start
GITHUB_TOKEN=wrong-token GITHUB_REPOSITORY=example/skills GITHUB_EVENT_PATH=$T/event.json \
	GITHUB_API_URL=$GH_URL run "$SKILLCI" report "$IN/pr.json" --comment
expect_exit 3 "401 (bad credentials) exits 3"
expect_err_contains "HTTP 401" "401 is reported"
expect_err_lacks "wrong-token" "the bad token is not printed"
gh_stop
GITHUB_REPOSITORY=example/skills GITHUB_EVENT_PATH=$T/event.json run "$SKILLCI" report "$IN/pr.json" --comment
expect_exit 2 "--comment without GITHUB_TOKEN exits 2"

case "$first_err$OUT$ERR" in *"$TOKEN"*) _tap not-ok "the token never appears in output" ;;
*) _tap ok "the token never appears in output" ;; esac
leaked=$(grep -rl "$TOKEN" "$T" 2>/dev/null)
if [ -z "$leaked" ]; then _tap ok "the token never appears in any file written"
else _tap not-ok "the token never appears in any file written" "$leaked"; fi

# ---- HTML in headless Chromium ------------------------------------------

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
	chrome() { timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--no-first-run --user-data-dir="$T/chrome" "$@" 2> "$T/chrome.err"; }
	chrome --dump-dom "file://$T/pr/report.html" > "$T/dom.html"
	python3 - "$T/dom.html" > "$T/dom.check" 2>&1 <<'EOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s): super().__init__(); s.tags = {}; s.cells = 0; s.stack = []
    def handle_starttag(s, t, a): s.tags[t] = s.tags.get(t, 0) + 1
dom = open(sys.argv[1], encoding="utf-8").read()
p = P(); p.feed(dom)
assert p.tags.get("table", 0) >= 1, "no table"
assert p.tags.get("tr", 0) >= 6, "rows: %d" % p.tags.get("tr", 0)
assert p.tags.get("details", 0) >= 5, "details: %d" % p.tags.get("details", 0)
assert p.tags.get("script", 0) == 0, "a script element"
assert "cuda-softmax" in dom and "100% → 25%" in dom
print("ok", p.tags.get("tr"), "rows")
EOF
	if [ $? -eq 0 ]; then _tap ok "Chromium renders the report's table and details"; else _tap not-ok "Chromium renders the report's table and details" "$(cat "$T/dom.check" "$T/chrome.err")"; fi
	chrome --dump-dom "file://$T/diff/index.html" > "$T/index-dom.html"
	python3 - "$T/index-dom.html" > "$T/idx.check" 2>&1 <<'EOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s): super().__init__(); s.tags = {}; s.points = []
    def handle_starttag(s, t, a):
        s.tags[t] = s.tags.get(t, 0) + 1
        if t == "polyline": s.points.append(dict(a).get("points", ""))
dom = open(sys.argv[1], encoding="utf-8").read()
p = P(); p.feed(dom)
assert p.tags.get("svg", 0) >= 4, "svg: %d" % p.tags.get("svg", 0)
assert p.tags.get("polyline", 0) >= 4, "polylines: %d" % p.tags.get("polyline", 0)
assert any(len(x.split()) >= 2 for x in p.points), "no line joins two runs: %r" % p.points
assert p.tags.get("table", 0) >= 2
print("ok", p.tags.get("svg"), "charts")
EOF
	if [ $? -eq 0 ]; then _tap ok "Chromium renders the index page's SVG history charts"; else _tap not-ok "Chromium renders the index page's SVG history charts" "$(cat "$T/idx.check" "$T/chrome.err")"; fi
	chrome --screenshot="$T/shot.png" --window-size=1200,1600 "file://$T/diff/index.html" > /dev/null
	if [ -s "$T/shot.png" ] && [ "$(head -c 8 "$T/shot.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]; then
		_tap ok "Chromium takes a screenshot of the index page"
	else
		_tap not-ok "Chromium takes a screenshot of the index page" "$(cat "$T/chrome.err")"
	fi
else
	skip "Chromium renders the report's table and details" "chromium not installed"
	skip "Chromium renders the index page's SVG history charts" "chromium not installed"
	skip "Chromium takes a screenshot of the index page" "chromium not installed"
fi

done_testing
