# A fleet of runners on one PostgreSQL results store (docs/store.md):
# four `run --shard K/4` processes writing the store at once, then
# `merge --run`, give the same results as one unsharded run; a second run
# of the same PR from another working folder makes no model request; the
# database restarted in the middle of a run loses and doubles nothing; a
# database that cannot be reached stops the run (exit 3) before any
# request. The server is this suite's own (tests/pg.sh), so that it can be
# restarted; the model is the fake server, whose counter says how many
# requests were made.
. tests/e2e/lib.sh
. tests/fakes/fake.sh
. tests/pg.sh

reason=$(pg_skip_reason)
if [ -n "$reason" ]; then
	skip "fleet on PostgreSQL" "$reason"
	done_testing
	exit 0
fi
pg_start || { _tap not-ok "the PostgreSQL test server starts"; done_testing; exit 1; }
trap 'fake_stop; pg_stop; rm -rf "$T"' EXIT
trap 'exit 143' INT TERM

# Two changed skills with four tests each: the head improves alpha and
# breaks beta (a regression: the gate fails, exit 1).
R="$T/repo"
skill() {  # skill NAME MARKER
	mkdir -p "$R/skills/$1"
	printf -- '---\nname: %s\ndescription: Answers with ok-%s.\n---\n# %s\n\n%s: always answer ok-%s.\n' \
		"$1" "$1" "$1" "$2" "$1" > "$R/skills/$1/SKILL.md"
	python3 - "$R/skills/$1/skill_meta.json" "$1" <<'EOF'
import json, sys
path, name = sys.argv[1], sys.argv[2]
tests = [{"input": "Q%d about %s %s" % (i, name, "[easy]" if i <= 2 else "[hard]"),
          "expected": {"contains": ["ok-" + name]}} for i in range(1, 5)]
json.dump({"tests": tests}, open(path, "w"), indent=1)
EOF
}
git -C "$R" init -q -b main 2>/dev/null || { mkdir -p "$R"; git -C "$R" init -q -b main; }
git -C "$R" config user.email t@skillci.invalid && git -C "$R" config user.name t
skill alpha ALPHA-HALF
skill beta BETA-GOOD
git -C "$R" add -A && git -C "$R" commit -q -m base
BASE=$(git -C "$R" rev-parse HEAD)
sed -i 's/ALPHA-HALF/ALPHA-GOOD/' "$R/skills/alpha/SKILL.md"
sed -i 's/BETA-GOOD/BETA-BROKEN/' "$R/skills/beta/SKILL.md"
git -C "$R" commit -q -a -m "improve alpha, break beta"
HEAD=$(git -C "$R" rev-parse HEAD)

cat > "$T/script.json" <<'EOF'
{"rules": [
  {"match": {"system": "ALPHA-GOOD"}, "reply": {"text": "ok-alpha", "usage": {"input": 100, "output": 10}, "latency_ms": 60}},
  {"match": {"system": "ALPHA-HALF", "contains": "[easy]"}, "reply": {"text": "ok-alpha", "usage": {"input": 100, "output": 10}, "latency_ms": 60}},
  {"match": {"system": "BETA-GOOD"}, "reply": {"text": "ok-beta", "usage": {"input": 100, "output": 10}, "latency_ms": 60}}],
 "default": {"text": "no idea", "usage": {"input": 50, "output": 5}, "latency_ms": 60}}
EOF
fake_start "$T/script.json" || exit 1
trap 'fake_stop; pg_stop; rm -rf "$T"' EXIT
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-fleet-secret
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY SLURM_ARRAY_JOB_ID SKILLCI_STORE
M=anthropic.fake-student
UNITS=40  # 2 skills x 4 tests x (2 runs at base and head, the baseline once)
pg_createdb fleet_store
STORE=$(pg_url fleet_store)
RUN="$SKILLCI run --repo $R --base $BASE --head $HEAD -m $M --runs 2 --no-cache --report-dir $T/rd-default"

# ---- four shards at once, each from its own working folder ----------------
pids=""
: > "$T/.run_start"
for k in 1 2 3 4; do
	mkdir -p "$T/w$k"
	(cd "$T/w$k" && date +%s.%N > start &&
		$RUN --shard "$k/4" --run-id pr-7 --store "$STORE" --concurrency 2 --report-dir out \
			> stdout 2> stderr; echo $? > rc; date +%s.%N > end) &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
for k in 1 2 3 4; do
	RC=$(cat "$T/w$k/rc") OUT=$(cat "$T/w$k/stdout") ERR=$(cat "$T/w$k/stderr")
	expect_exit 0 "shard $k/4 writes the PostgreSQL store"
	cd "$T/w$k" && junit_gate $RUN --shard "$k/4" --report-dir out
done
cd "$T" || exit 1
check "the four shards ran at the same time" python3 - "$T" <<'EOF'
import sys
t = sys.argv[1]
start = [float(open("%s/w%d/start" % (t, k)).read()) for k in range(1, 5)]
end = [float(open("%s/w%d/end" % (t, k)).read()) for k in range(1, 5)]
assert max(start) < min(end), (start, end)
EOF
check "every unit of the plan was one model request, across the fleet" \
	test "$(fake_stat requests)" -eq "$UNITS"
run "$SKILLCI" store info "$STORE"
expect_exit 0 "store info reads the fleet's store"
expect_out_contains "units: $UNITS" "the store holds every unit once"
expect_out_contains "shard results: 4" "and the results of the four shards"
expect_out_contains "backend: postgresql" "store info names the backend"

# ---- merge --run: the shards from the store ---------------------------------
cd "$T" || exit 1
run "$SKILLCI" merge --run pr-7 --store "$STORE" --report-dir "$T/merged"
expect_exit 1 "merge --run applies the gate: beta regressed"
expect_err_contains "merged 4 shards ($UNITS units)" "merge --run joins the four shards"

# ---- one unsharded run (another store) gives the same results ---------------
pg_createdb single_store
fake_reset
mkdir -p "$T/single" && cd "$T/single" || exit 1
run $RUN --store "$(pg_url single_store)" --report-dir out
expect_exit 1 "the unsharded run fails the gate the same way"
cd "$T" || exit 1
check "the merged shards and the unsharded run have the same results" python3 - \
	"$T/merged/results.json" "$T/single/out/results.json" "$UNITS" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def units(r):
    return sorted((u["skill"], u["variant"], u["model"], u["test_id"], u["run_index"], u["verdict"],
                   u["tokens_in"], u["tokens_out"]) for u in r["units"])
def aggs(r):
    return sorted((x["skill"], x["variant"], x["model"], x["n"], x["passed"], x["failed"],
                   x["errors"], round(x["pass_rate"], 12)) for x in r["aggregates"])
def gate(r):
    return (r["gate"]["passed"], sorted((f["skill"], f["rule"]) for f in r["gate"]["failures"]))
assert len(a["units"]) == int(sys.argv[3]) and units(a) == units(b), (len(a["units"]), len(b["units"]))
assert aggs(a) == aggs(b), (aggs(a), aggs(b))
assert gate(a) == gate(b) and not a["gate"]["passed"], (gate(a), gate(b))
assert a["run"]["id"] == "pr-7" and a["run"]["complete"], a["run"]
EOF
check "the merged run is in the store's history" sh -c \
	"'$SKILLCI' runs --store '$STORE' -s beta | grep -q pr-7"

# ---- the same PR from another working folder: all from the store -----------
fake_reset
mkdir -p "$T/other" && cd "$T/other" || exit 1
run $RUN --store "$STORE" --report-dir out
expect_exit 1 "a second run of the PR from another folder gives the same verdict"
check "it makes 0 model requests" test "$(fake_stat requests)" -eq 0
check "every unit is reused from the fleet's store" python3 -c "
import json; r = json.load(open('$T/other/out/results.json'))
assert r['totals']['reused'] == $UNITS and r['totals']['evaluated'] == 0, r['totals']"
cd "$T" || exit 1
check "the index page draws the history from the store" grep -q 'pr-7' "$T/other/out/index.html"
check "no API key in any report or log" sh -c \
	"! grep -rq sk-test-fleet-secret '$T/merged' '$T/other/out' '$T'/w*/stderr '$T/.err'"

# ---- the database restarts in the middle of a run ---------------------------
pg_createdb restart_store
RSTORE=$(pg_url restart_store)
fake_reset
cat > "$T/slow.json" <<'EOF'
{"rules": [
  {"match": {"system": "ALPHA-GOOD"}, "reply": {"text": "ok-alpha", "latency_ms": 250}},
  {"match": {"system": "ALPHA-HALF", "contains": "[easy]"}, "reply": {"text": "ok-alpha", "latency_ms": 250}},
  {"match": {"system": "BETA-GOOD"}, "reply": {"text": "ok-beta", "latency_ms": 250}}],
 "default": {"text": "no idea", "latency_ms": 250}}
EOF
fake_script "$T/slow.json"
mkdir -p "$T/restart" && cd "$T/restart" || exit 1
: > "$T/.run_start"
# one run per test (a fixed design): 2 skills x 4 tests x base, head and
# baseline = 24 units
$SKILLCI run --repo "$R" --base "$BASE" --head "$HEAD" -m $M --no-cache --store "$RSTORE" \
	--runs 1 --concurrency 2 --report-dir out > stdout 2> stderr &
pid=$!
before=""
for _ in $(seq 1 300); do
	n=$(pg_sql restart_store "SELECT count(*) FROM units" 2>/dev/null)
	if [ -n "$n" ] && [ "$n" -ge 4 ]; then before=$n; break; fi
	sleep 0.05
done
pg_restart
alive=no
kill -0 "$pid" 2>/dev/null && alive=yes
wait "$pid"
RC=$? OUT=$(cat stdout) ERR=$(cat stderr)
junit_gate $SKILLCI run --report-dir out
cd "$T" || exit 1
check "the restart came in the middle of the run ($before of 24 units stored, still running)" \
	test -n "$before" -a "${before:-99}" -lt 24 -a "$alive" = yes
expect_exit 1 "the run finishes with the gate's verdict"
expect_err_contains "reconnecting" "skillci says it lost the database"
expect_err_contains "connected again" "and that it got it back"
check "nothing finished is lost or doubled: 24 units in the store" \
	test "$(pg_sql restart_store 'SELECT count(*) FROM units')" -eq 24
check "no unit was asked twice" test "$(fake_stat requests)" -eq 24
check "the results hold 24 units, none an error" python3 -c "
import json; r = json.load(open('$T/restart/out/results.json'))
assert len(r['units']) == 24 and not [u for u in r['units'] if u['verdict'] == 'error'], r['totals']
assert r['run']['complete'], r['run']"

# ---- a database that cannot be reached: exit 3 before any request -----------
fake_reset
mkdir -p "$T/down" && cd "$T/down" || exit 1
run $RUN --store "postgresql://skillci@127.0.0.1:1/skillci" --report-dir out
cd "$T" || exit 1
expect_exit 3 "an unreachable store is an infrastructure failure"
expect_err_contains "cannot connect" "the message says so"
expect_err_contains "127.0.0.1:1" "and names the store"
check "no model request was made" test "$(fake_stat requests)" -eq 0
check "no report was written" test ! -e "$T/down/out/results.json"

done_testing
