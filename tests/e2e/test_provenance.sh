# What the verdict rests on comes from places the pull request cannot
# write (docs/ci.md, "Pull requests from forks"; docs/run.md,
# "Provenance"): the pull request of a workflow_run job from the GitHub
# API, never from an artifact; shards bound to the head, base, policy,
# plan and workflow run they judged; the commit judged is the merge of the
# target's tip and the head. The GitHub API is tests/fakes/fake_github.py
# (real HTTP on loopback), the models tests/fakes/fake_models.py.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_EVENT_NAME GITHUB_OUTPUT GITHUB_STEP_SUMMARY \
	GITHUB_TOKEN GITHUB_RUN_ID GITHUB_RUN_ATTEMPT GITHUB_REPOSITORY GITHUB_API_URL \
	SKILLCI_RUNNER_KEY SKILLCI_CACHE_KEY SKILLCI_STORE SLURM_ARRAY_JOB_ID
mkdir -p "$HOME/.config/skillci" && chmod 700 "$HOME/.config/skillci"
python3 -c 'import os; print(os.urandom(32).hex())' > "$HOME/.config/skillci/runner.key"
chmod 600 "$HOME/.config/skillci/runner.key"

# the fake model answers right only to a skill whose SKILL.md says GOOD
cat > "$T/script.json" <<'EOF'
{"rules": [{"match": {"system": "GOOD"}, "reply": {"text": "ok-answer", "usage": {"input": 100, "output": 10}}}],
 "default": {"text": "no idea", "usage": {"input": 100, "output": 10}}}
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-provenance

GTOKEN=ghs_provenance_token
GDIR=$(mktemp -d "$T/gh.XXXXXX")
python3 -S "$SKILLCI_ROOT/tests/fakes/fake_github.py" --port-file "$GDIR/port" --log "$GDIR/log" \
	--token "$GTOKEN" > /dev/null 2>&1 &
GH_PID=$!
i=0; while [ ! -s "$GDIR/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
GH_URL="http://127.0.0.1:$(cat "$GDIR/port")"
trap 'kill $GH_PID 2>/dev/null; fake_stop; rm -rf "$T"' EXIT
gh_post() { curl -s -X POST -H 'Content-Type: application/json' "$GH_URL$1" -d "$2" > /dev/null; }
comments() { curl -s "$GH_URL/_fake/comments"; }

CONFIG='version: 1
models: [anthropic.fake-student]
runs: 1
gate: {pass_rate_drop_points: 5, alpha: 0.05, error_share: 0.1, deletion_label: remove-skill}'

commit() { git -C "$W" add -A && git -C "$W" -c user.email=ci@example.com -c user.name=ci \
	commit -q -m "$1" && git -C "$W" rev-parse HEAD; }
# skill NAME MARKER: skills/NAME with 4 tests wanting ok-answer
skill() {
	mkdir -p "$W/skills/$1"
	printf -- '---\nname: %s\ndescription: Answers %s questions.\n---\n# %s\n\n%s: answer with ok-answer.\n' \
		"$1" "$1" "$1" "$2" > "$W/skills/$1/SKILL.md"
	printf '{"tests": [{"input": "q1 %s", "expected": {"contains": ["ok-answer"]}}, {"input": "q2 %s", "expected": {"contains": ["ok-answer"]}}, {"input": "q3 %s", "expected": {"contains": ["ok-answer"]}}, {"input": "q4 %s", "expected": {"contains": ["ok-answer"]}}]}\n' \
		"$1" "$1" "$1" "$1" > "$W/skills/$1/skill_meta.json"
}
# new_repo NAME: $W with the base commit $BASE on main: alpha and beta, both GOOD
new_repo() {
	W="$T/$1"
	mkdir -p "$W"
	printf '%s\n' "$CONFIG" > "$W/skillci.yml"
	skill alpha GOOD
	skill beta GOOD
	git -C "$W" init -q -b main
	BASE=$(commit base)
}
results() { python3 -c "import json, sys; r = json.load(open('$1')); $2"; }

# ---- 1. a workflow_run job: the pull request from the API, not from an artifact --
# The fork's pull request #7 deletes skills/beta (no label allows it: exit 1).
# Its own pull_request job uploaded an event artifact that says it is #8,
# carries the deletion label and names another base: the forgery.
new_repo fork
git -C "$W" checkout -q -b fork-branch
rm -rf "$W/skills/beta"
HEAD7=$(commit "delete beta")
git -C "$W" checkout -q main
OTHER=$(git -C "$W" -c user.email=ci@example.com -c user.name=ci commit-tree -m other \
	"$(git -C "$W" rev-parse HEAD^{tree})")
gh_post /_fake/pull "{\"number\": 7, \"head\": \"$HEAD7\", \"base\": \"$BASE\", \"labels\": [], \"head_repo\": \"fork/skills\"}"
# pull request #8 (someone else's) carries skillci's red comment
gh_post /_fake/plant '{"issue": 8, "login": "github-actions[bot]", "body": "<!-- skillci-report -->\n## skillci report\n\n❌ **gate failed: 1 of 1 changed skill failed.**"}'
printf '{"action": "synchronize", "number": 8, "pull_request": {"number": 8, "labels": [{"name": "remove-skill"}], "base": {"sha": "%s"}, "head": {"sha": "%s"}}}' \
	"$OTHER" "$HEAD7" > "$W/event.json"   # the downloaded artifact, in the workspace
# the job's own event, as GitHub writes it for workflow_run (a fork's run
# lists no pull requests)
printf '{"action": "completed", "workflow_run": {"id": 555, "run_attempt": 1, "event": "pull_request", "head_sha": "%s", "head_branch": "fork-branch", "pull_requests": []}}' \
	"$HEAD7" > "$T/wr-event.json"
# wr_run ARGS...: skillci run in the workflow_run job as docs/ci.md runs it:
# the base branch checked out, the head fetched as data, no revision flags
wr_run() {
	run env GITHUB_ACTIONS=true GITHUB_EVENT_NAME=workflow_run GITHUB_EVENT_PATH="${EVENT:-$T/wr-event.json}" \
		GITHUB_REPOSITORY=example/skills GITHUB_API_URL="$GH_URL" GITHUB_TOKEN="$GTOKEN" \
		GITHUB_RUN_ID=900 GITHUB_RUN_ATTEMPT=1 GITHUB_OUTPUT="$T/gh_out" GITHUB_STEP_SUMMARY="$T/gh_sum" \
		sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" run --repo . --jobs 1 \
		--report-dir "$T/wr-report" --comment "$@"
}
: > "$T/gh_out"; : > "$T/gh_sum"
wr_run
expect_exit 1 "workflow_run: the deletion nothing allows fails (exit 1), whatever the artifact says"
expect_err_contains "skill_deleted" "workflow_run: the gate names the deletion"
check "workflow_run: number, labels and base come from the API, not the artifact" results "$T/wr-report/results.json" "
p = r['run']['provenance']
assert p['pull_request'] == 7 and p['pull_request_source'] == 'api', p
assert p['head'] == '$HEAD7' and p['base'] == '$BASE', p
assert not r['run']['trust']['gate']['deletions_allowed'], r['run']['trust']['gate']"
check "workflow_run: the comment lands on #7, the pull request of the head" python3 -c "
import json, urllib.request
cs = json.load(urllib.request.urlopen('$GH_URL/_fake/comments'))
mine = [c for c in cs if c['issue'] == 7]
assert len(mine) == 1 and '❌' in mine[0]['body'] and 'deleted at head' in mine[0]['body'], mine"
check "workflow_run: #8's red comment is untouched" python3 -c "
import json, urllib.request
cs = json.load(urllib.request.urlopen('$GH_URL/_fake/comments'))
other = [c for c in cs if c['issue'] == 8]
assert len(other) == 1 and '❌' in other[0]['body'] and '✅' not in other[0]['body'], other"
check "workflow_run: the API was asked with the job's token for the head's pull request" python3 -c "
import json
log = [json.loads(l) for l in open('$GDIR/log')]
assert any(e['path'] == '/repos/example/skills/commits/$HEAD7/pulls' for e in log), log
assert any(e['path'] == '/repos/example/skills/pulls/7' for e in log), log"
cp "$T/wr-report/results.json" "$T/wr-clean.json"

# the old recipe: GITHUB_EVENT_PATH pointing at the artifact, --base and
# --head given. The file is not the job's workflow_run event: it is not
# read, and the pull request still comes from the API.
EVENT="$W/event.json" wr_run --base "$BASE" --head "$HEAD7"
expect_exit 1 "forged artifact as GITHUB_EVENT_PATH: still exit 1 (the label is not taken)"
expect_err_contains "holds a pull_request event, but this job's event is workflow_run" \
	"forged artifact: the warning says the file is not the job's event"
check "forged artifact: labels, number and base are the API's, as without it" results "$T/wr-report/results.json" "
c = json.load(open('$T/wr-clean.json'))
p, q = r['run']['provenance'], c['run']['provenance']
for k in ('pull_request', 'pull_request_source', 'head', 'base', 'merge_base', 'judged_tree'):
    assert p[k] == q[k], (k, p[k], q[k])
assert r['gate'] == c['gate'] or r['gate']['passed'] == c['gate']['passed'], (r['gate'], c['gate'])
assert not r['run']['trust']['gate']['deletions_allowed']"
check "forged artifact: #8's comment is still untouched, #7's was updated" python3 -c "
import json, urllib.request
cs = json.load(urllib.request.urlopen('$GH_URL/_fake/comments'))
assert [c['issue'] for c in cs if '✅' in c['body']] == [], cs
assert len([c for c in cs if c['issue'] == 7]) == 1, cs"
unset EVENT

# the label set on the pull request itself (the API's) does allow it
gh_post /_fake/pull "{\"number\": 7, \"head\": \"$HEAD7\", \"base\": \"$BASE\", \"labels\": [\"remove-skill\"], \"head_repo\": \"fork/skills\"}"
wr_run
expect_exit 0 "workflow_run: the pull request's own label (from the API) allows the deletion"
# the pull request moved on: the run's head is no longer its head
gh_post /_fake/pull "{\"number\": 7, \"head\": \"$OTHER\", \"base\": \"$BASE\", \"labels\": [], \"head_repo\": \"fork/skills\"}"
wr_run
expect_exit 2 "workflow_run: a head no open pull request has is refused (exit 2)"
expect_err_contains "no open pull request of example/skills has the head" "the message says why"
gh_post /_fake/pull "{\"number\": 7, \"head\": \"$HEAD7\", \"base\": \"$BASE\", \"labels\": [], \"head_repo\": \"fork/skills\"}"
# --head another commit than the run's head_sha
wr_run --head "$BASE"
expect_exit 2 "workflow_run: --head other than the run's head_sha is refused"
expect_err_contains "is not the head_sha" "the message names the run's head"

# ---- 2. a stale branch is judged on the merge result ------------------------------
# main's tip improved alpha's SKILL.md (BAD -> GOOD) after the branch was
# cut; the branch only adds NOTES.md. The head alone is 0%, what would land
# 100%.
CONFIG_STALE='version: 1
models: [anthropic.fake-student]
gate: {pass_rate_drop_points: 5, alpha: 0.05, error_share: 0.1}'
W="$T/stale"; mkdir -p "$W"
printf '%s\n' "$CONFIG_STALE" > "$W/skillci.yml"
skill alpha BAD
git -C "$W" init -q -b main
B0=$(commit base)
git -C "$W" checkout -q -b notes
echo "notes" > "$W/skills/alpha/NOTES.md"
STALE=$(commit "notes only")
git -C "$W" checkout -q -b conflict "$B0"
sed -i 's/BAD: answer/OTHER: answer/' "$W/skills/alpha/SKILL.md"
CONFLICT=$(commit "the same line otherwise")
git -C "$W" checkout -q main
sed -i 's/BAD: answer/GOOD: answer/' "$W/skills/alpha/SKILL.md"
TIP=$(commit "improve alpha")
run sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" run --repo . --jobs 1 \
	--report-dir "$T/stale-report" --base "$TIP" --head "$STALE"
expect_exit 0 "stale branch: judged on the merge with main's tip, the gate passes (exit 0)"
check "stale branch: head 100% (the tip's SKILL.md and the branch's NOTES.md), what changed is the branch's" \
	results "$T/stale-report/results.json" "
a = {x['variant']: x['pass_rate'] for x in r['aggregates'] if x['skill'] == 'skills/alpha'}
assert a['head'] == 1.0 and a['base'] == 1.0, a
p = r['run']['provenance']
assert p['judged'] == 'merge' and p['head'] == '$STALE' and p['base'] == '$TIP' and p['merge_base'] == '$B0', p
assert [s['path'] for s in r['skills']] == ['skills/alpha'], r['skills']"
check "stale branch: the report names the commit judged" grep -q \
	"judged <code>${STALE%????????????????????????????}</code> merged into the target's tip <code>${TIP%????????????????????????????}</code>" \
	"$T/stale-report/report.md"
check "stale branch: the merge was not written into the repository" sh -c \
	"! git -C '$W' cat-file -e \$(python3 -c \"import json; print(json.load(open('$T/stale-report/results.json'))['run']['provenance']['judged_tree'])\") 2>/dev/null"
run sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" run --repo . --jobs 1 \
	--report-dir "$T/conflict-report" --base "$TIP" --head "$CONFLICT"
expect_exit 2 "conflicting branch: a setup error (exit 2)"
expect_err_contains "conflicts in skills/alpha/SKILL.md" "conflicting branch: the message names the file"
expect_err_contains "rebase or resolve" "conflicting branch: the message says rebase or resolve"
expect_err_contains "hint: the pull request does not merge cleanly" "conflicting branch: the hint says what to do"

# ---- 3. shards prove what they judged -------------------------------------------------
# The documented sharded workflow (examples/github/skillci-sharded.yml):
# a pull_request job per shard, artifacts downloaded under $RUNNER_TEMP, a
# merge job in the same workflow run. #9's head breaks alpha (exit 1
# unsharded); an earlier head OLD9 was green.
new_repo shards
git -C "$W" checkout -q -b pr9
skill gamma GOOD
OLD9=$(commit "add gamma")
sed -i 's/GOOD: answer/BAD: answer/' "$W/skills/alpha/SKILL.md"
HEAD9=$(commit "break alpha")
echo readme > "$W/README.md"
HEAD9B=$(commit "a readme")  # the same skills as HEAD9: the same plan
git -C "$W" checkout -q main
RUNNER_TEMP="$T/runner-temp"; mkdir -p "$RUNNER_TEMP"
printf '{"number": 9, "pull_request": {"number": 9, "labels": [], "base": {"sha": "%s"}, "head": {"sha": "%s"}}}' \
	"$BASE" "$HEAD9" > "$T/pr9.json"
# shard K RUNID HEAD OUT [ARGS]: skillci run --shard K/4 in a pull_request job
shard() {
	printf '{"number": 9, "pull_request": {"number": 9, "labels": [], "base": {"sha": "%s"}, "head": {"sha": "%s"}}}' \
		"$BASE" "$3" > "$T/ev-$2-$1.json"
	_k=$1 _rid=$2 _out=$4
	shift 4
	run env GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$T/ev-$_rid-$_k.json" \
		GITHUB_RUN_ID="$_rid" GITHUB_RUN_ATTEMPT=1 GITHUB_OUTPUT="$T/gh_out" GITHUB_STEP_SUMMARY="$T/gh_sum" \
		sh -c 'cd "$1" && shift && exec "$@"' - "$W" "$SKILLCI" run --repo . --jobs 1 \
		--shard "$_k/4" --store "$T/store-$_rid-$_k.db" --report-dir "$_out" "$@"
}
# merge_job FILES...: skillci merge as the documented merge job runs it
merge_job() {
	run env GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$T/pr9.json" \
		GITHUB_RUN_ID=1000 GITHUB_RUN_ATTEMPT=1 GITHUB_REPOSITORY=example/skills \
		GITHUB_API_URL="$GH_URL" GITHUB_TOKEN="$GTOKEN" GITHUB_OUTPUT="$T/gh_out" \
		GITHUB_STEP_SUMMARY="$T/gh_sum" sh -c 'cd "$1" && shift && exec "$@"' - "$W" \
		"$SKILLCI" merge --report-dir "$T/merged" "$@"
}
for k in 1 2 3 4; do
	shard $k 1000 "$HEAD9" "$RUNNER_TEMP/shards/skillci-shard-$k"
	check "shard $k/4 of the workflow run ends (exit 0)" test "$RC" -eq 0
done
merge_job "$RUNNER_TEMP"/shards/*/results.json --comment
expect_exit 1 "the documented workflow: four shards merge, and the gate fails as unsharded (exit 1)"
expect_err_contains "merged 4 shards" "the documented workflow: every shard merged"
check "the documented workflow: the comment lands on #9" python3 -c "
import json, urllib.request
cs = json.load(urllib.request.urlopen('$GH_URL/_fake/comments'))
assert len([c for c in cs if c['issue'] == 9 and '❌' in c['body']]) == 1, cs"
check "the documented workflow: the merged results keep the provenance" results "$T/merged/results.json" "
p = r['run']['provenance']
assert p['head'] == '$HEAD9' and p['base'] == '$BASE' and p['workflow_run_id'] == 'gh-1000', p"
check "the documented workflow reads shards from \$RUNNER_TEMP, never the checked-out tree" python3 - \
	"$SKILLCI_ROOT/examples/github/skillci-sharded.yml" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
merge = [l for l in text.splitlines() if "skillci merge" in l and not l.lstrip().startswith("#")]
assert merge and all("runner.temp" in l or "RUNNER_TEMP" in l for l in merge), merge
dl = text.split("actions/download-artifact")[1].split("- ")[0]
path = re.search(r"path:\s*([^#\n]+)", dl).group(1)
assert "runner.temp" in path, path
EOF

# replayed: the green head's shards of an earlier run, committed into the
# pull request's tree under shards/ (the shard jobs made to fail)
for k in 1 2 3 4; do
	shard $k 999 "$OLD9" "$W/shards/skillci-shard-$k"
done
merge_job "$W"/shards/*/results.json
expect_exit 2 "replayed shards of an earlier head: refused (exit 2)"
expect_err_contains "provenance.head" "replayed: the message names provenance.head"
# the same head's shards from another workflow run
for k in 1 2 3 4; do
	shard $k 998 "$HEAD9" "$T/run998/shard-$k"
done
merge_job "$T"/run998/*/results.json
expect_exit 2 "replayed shards of another workflow run: refused (exit 2)"
expect_err_contains "provenance.workflow_run_id" "another run: the message names provenance.workflow_run_id"
# reordered: shard 1's results in shard 2's place
mkdir -p "$T/reordered"
for k in 1 3 4; do cp "$RUNNER_TEMP/shards/skillci-shard-$k/results.json" "$T/reordered/$k.json"; done
cp "$RUNNER_TEMP/shards/skillci-shard-1/results.json" "$T/reordered/2.json"
merge_job "$T"/reordered/1.json "$T"/reordered/2.json "$T"/reordered/3.json "$T"/reordered/4.json
expect_exit 2 "reordered shards (shard 1 in shard 2's place): refused (exit 2)"
expect_err_contains "shard.index" "reordered: the message names shard.index"
# mixed heads: shards 3 and 4 of a head with the same skills (the same plan)
for k in 3 4; do
	shard $k 1000 "$HEAD9B" "$T/mixed/shard-$k"
done
merge_job "$RUNNER_TEMP"/shards/skillci-shard-1/results.json "$RUNNER_TEMP"/shards/skillci-shard-2/results.json \
	"$T"/mixed/*/results.json --head "$HEAD9" --base "$BASE"
expect_exit 2 "mixed-head shards: refused (exit 2)"
expect_err_contains "disagree on provenance.head" "mixed heads: the message names provenance.head"
# mixed policy: shards 3 and 4 under another gate (the workflow's --config)
printf '%s\n' "$CONFIG" | sed 's/alpha: 0.05/alpha: 0.2/' > "$T/other.yml"
for k in 3 4; do
	shard $k 1000 "$HEAD9" "$T/mixcfg/shard-$k" --config "$T/other.yml"
done
merge_job "$RUNNER_TEMP"/shards/skillci-shard-1/results.json "$RUNNER_TEMP"/shards/skillci-shard-2/results.json \
	"$T"/mixcfg/*/results.json
expect_exit 2 "mixed-config shards: refused (exit 2)"
expect_err_contains "disagree on provenance.config_hash" "mixed config: the message names provenance.config_hash"
# another attempt of the workflow run
run env GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$T/pr9.json" \
	GITHUB_RUN_ID=1000 GITHUB_RUN_ATTEMPT=2 sh -c 'cd "$1" && shift && exec "$@"' - "$W" \
	"$SKILLCI" merge --report-dir "$T/merged2" "$RUNNER_TEMP"/shards/*/results.json
expect_exit 2 "shards of attempt 1 merged by attempt 2: refused (exit 2)"
expect_err_contains "provenance.workflow_run_attempt" "another attempt: the message names the attempt"
# outside Actions, told what to judge by flags
run "$SKILLCI" merge --report-dir "$T/merged3" --head "$OLD9" --workflow-run gh-1000/1 \
	"$RUNNER_TEMP"/shards/*/results.json
expect_exit 2 "--head another commit: refused"
expect_err_contains "this merge judges" "--head: the message says what the merge judges"
run "$SKILLCI" merge --report-dir "$T/merged3" --head "$HEAD9" --base "$BASE" --workflow-run gh-1000/1 \
	"$RUNNER_TEMP"/shards/*/results.json
expect_exit 1 "--head, --base and --workflow-run of the shards: merged, the gate decides (exit 1)"

done_testing
