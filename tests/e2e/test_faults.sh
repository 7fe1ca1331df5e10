# Faults during an evaluation, against the fake model server: answers with
# invalid UTF-8, 429s for a while, the server dying mid-run, SIGKILL of
# skillci then a rerun, a full disk, a killed kernel worker. Afterwards the
# store opens and passes sqlite's integrity check, reports are whole files
# (JSON parses, JUnit XML is well-formed), no finished unit is lost or
# counted twice, and the exit code says what happened.
#
# Each fault is played through `skillci eval` and then through the PR
# check, `skillci run`, which commits finished batches as it goes.
#
# "429 for a minute" is scaled down: the fake's rule "within_s" answers 429
# for the first RATE_S seconds after its script is loaded (3 s here), each
# with Retry-After: 1, so the client's retries must outlast the window.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

RATE_S=3
NTESTS=40              # x 2 variants = 80 units per evaluation
UNITS=$((NTESTS * 2))
KEY=sk-ant-faults-planted-0d9e
export ANTHROPIC_API_KEY=$KEY HOME="$T/home"
mkdir -p "$HOME" "$T/skills/s1"
printf -- '---\nname: s1\ndescription: A skill for fault tests.\n---\nAnswer ok.\n' > "$T/skills/s1/SKILL.md"
python3 - "$T/skills/s1/skill_meta.json" "$NTESTS" <<'EOF'
import json, sys
n = int(sys.argv[2])
json.dump({"tests": [{"input": "Q%d: say ok" % i, "expected": {"contains": ["ok"]}} for i in range(n)]},
          open(sys.argv[1], "w"))
EOF

# units_ok FILE: every (variant, test, run) once, UNITS in all, prints the
# number of units without an error.
cat > "$T/units.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
keys = [(u["variant"], u["test_id"], u["run_index"], u["model"]) for u in d["units"]]
assert len(keys) == len(set(keys)), "a unit is counted twice"
assert len(keys) == int(sys.argv[2]), "%d units, want %s" % (len(keys), sys.argv[2])
print(sum(1 for u in d["units"] if not u.get("error_class")))
EOF
store_ok() {  # store_ok DB NAME
	if command -v sqlite3 > /dev/null 2>&1; then
		check "$2" sh -c "test \"\$(sqlite3 '$1' 'pragma integrity_check')\" = ok"
	else
		run "$SKILLCI" runs --store "$1"
		expect_exit 0 "$2 (skillci runs reads it)"
	fi
}
json_ok() {  # json_ok FILE NAME
	check "$2" python3 -c "import json,sys; json.load(open(sys.argv[1], encoding='utf-8'))" "$1"
}
# account NAME: after a rerun, units reused from the store + answers from
# the response cache + requests the fake server saw = every unit, so no
# finished unit was lost (asked again) or counted twice.
account() {
	reused=$(printf '%s\n' "$OUT" | sed -n 's/^units: [0-9]* ([0-9]* evaluated, \([0-9]*\) reused).*/\1/p')
	cached=$(printf '%s\n' "$OUT" | sed -n 's/.*cache hits: \([0-9]*\).*/\1/p')
	asked=$(fake_stat requests)
	reused=${reused:-0} cached=${cached:-0}
	check "$1: reused $reused + cached $cached + asked $asked = $UNITS units" \
		test "$((reused + cached + asked))" -eq $UNITS
}
EVAL="$SKILLCI eval $T/skills/s1 -m anthropic.fault-model --concurrency 4"

# ---- invalid UTF-8 in answers ----
echo '{"default": {"text": "ok INVALID_UTF8 done", "fault": "invalid_utf8"}}' > "$T/utf8.json"
fake_start "$T/utf8.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
run $EVAL --store "$T/utf8.db" --no-cache --json "$T/utf8-r.json"
expect_exit 0 "invalid UTF-8 answers: eval exits 0"
json_ok "$T/utf8-r.json" "invalid UTF-8 answers: results JSON is valid UTF-8 JSON"
check "invalid UTF-8 answers: every unit once" python3 "$T/units.py" "$T/utf8-r.json" $UNITS
store_ok "$T/utf8.db" "invalid UTF-8 answers: the store passes integrity_check"
run "$SKILLCI" report "$T/utf8-r.json" --junit "$T/utf8.xml" --markdown "$T/utf8.md" --html "$T/utf8-html"
expect_exit 0 "invalid UTF-8 answers: reports render"
check "invalid UTF-8 answers: JUnit XML is well-formed" xmllint --noout "$T/utf8.xml"
check "invalid UTF-8 answers: the Markdown report is UTF-8" python3 -c "open('$T/utf8.md', encoding='utf-8').read()"
fake_stop

# ---- 429 for a while (scaled-down minute), then answers ----
cat > "$T/429.json" <<EOF
{"rules": [{"match": {"within_s": $RATE_S},
            "reply": {"status": 429, "error_type": "rate_limit_error", "retry_after": "1"}}],
 "default": {"text": "ok"}}
EOF
fake_start "$T/429.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
run $EVAL --store "$T/429.db" --no-cache --json "$T/429-r.json"
expect_exit 0 "429s for ${RATE_S}s: eval waits them out and exits 0"
check "429s: every unit answered once, none an error" sh -c "test \"\$(python3 '$T/units.py' '$T/429-r.json' $UNITS)\" = $UNITS"
check "429s: the server did answer 429 (more requests than units)" test "$(fake_stat requests)" -gt $UNITS
store_ok "$T/429.db" "429s: the store passes integrity_check"
fake_stop

# ---- the model server dies mid-run, then a rerun against a live one ----
echo '{"rules": [{"match": {"nth": [30]}, "reply": {"fault": "die"}}], "default": {"text": "ok"}}' > "$T/die.json"
fake_start "$T/die.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
# Two retries, not the default five: what is checked is what a dead server
# leaves behind, not the length of the backoff (with the default, the
# requests still queued back off for about 30 s before they give up).
run $EVAL --retries 2 --store "$T/die.db" --cache "$T/die-cache" --json "$T/die-r.json"
expect_exit 3 "server dies mid-run: exit 3 (infrastructure)"
expect_err_contains "error" "server dies mid-run: says so on stderr"
check "server dies mid-run: the server is gone" sh -c "! kill -0 $FAKE_PID 2>/dev/null"
FAKE_PID=""
if [ -f "$T/die-r.json" ]; then
	json_ok "$T/die-r.json" "server dies mid-run: the results JSON written is whole"
	done1=$(python3 "$T/units.py" "$T/die-r.json" $UNITS 2>/dev/null || echo 0)
else
	_tap ok "server dies mid-run: no results JSON written (none half-written)"
	done1=0
fi
store_ok "$T/die.db" "server dies mid-run: the store passes integrity_check"
# the same address again (the endpoint is part of the response cache key)
python3 "$SKILLCI_ROOT/tests/fakes/fake_models.py" --port "$FAKE_PORT" --port-file "$T/port2" > /dev/null 2>&1 &
FAKE_PID=$!
i=0
while [ ! -s "$T/port2" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
run $EVAL --store "$T/die.db" --cache "$T/die-cache" --json "$T/die-r2.json"
expect_exit 0 "rerun after the server died: exit 0"
check "rerun: every unit once, none an error" sh -c "test \"\$(python3 '$T/units.py' '$T/die-r2.json' $UNITS)\" = $UNITS"
# Units finished before the crash come back from the store (or the
# response cache); only the rest are asked again.
account "rerun after the server died"
check "rerun: units finished before the crash are reused, not asked again" test "$reused" -ge 1
fake_stop

# ---- SIGKILL of skillci mid-run, then a rerun ----
echo '{"default": {"text": "ok", "latency_ms": 100}}' > "$T/slow.json"
fake_start "$T/slow.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
$EVAL --store "$T/kill.db" --cache "$T/kill-cache" --json "$T/kill-r.json" > "$T/kill.out" 2>&1 &
pid=$!
i=0
while [ "$(fake_stat requests)" -lt 20 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -KILL $pid 2>/dev/null
{ wait $pid; } 2> /dev/null
krc=$?
check "SIGKILL: skillci was killed mid-run (status 137)" test "$krc" -eq 137
check "SIGKILL: no half-written results JSON" sh -c "! test -e '$T/kill-r.json' || python3 -c 'import json; json.load(open(\"$T/kill-r.json\"))'"
check "SIGKILL: no temporary report files left beside it" sh -c "! ls '$T' | grep -q 'kill-r.json.'"
if [ -e "$T/kill.db" ]; then store_ok "$T/kill.db" "SIGKILL: the store passes integrity_check"
else _tap ok "SIGKILL: no store was created before the kill"; fi
fake_script "$T/utf8.json" && fake_reset
echo '{"default": {"text": "ok"}}' > "$T/fast.json"
fake_script "$T/fast.json"
run $EVAL --store "$T/kill.db" --cache "$T/kill-cache" --json "$T/kill-r2.json"
expect_exit 0 "rerun after SIGKILL: exit 0"
check "rerun after SIGKILL: every unit once, none an error" sh -c "test \"\$(python3 '$T/units.py' '$T/kill-r2.json' $UNITS)\" = $UNITS"
account "rerun after SIGKILL"
# Answers that finished before the kill are in the store (committed every
# 32 units or 200 ms) or, if the kill came before their commit, in the
# response cache (written as each answer arrives); which one depends on
# when the kill fell, so only their sum is checked.
check "rerun after SIGKILL: answers finished before the kill come from the store or the cache ($reused reused, $cached cached)" \
	test "$((reused + cached))" -ge 1
store_ok "$T/kill.db" "rerun after SIGKILL: the store passes integrity_check"
run $EVAL --store "$T/kill.db" --cache "$T/kill-cache"
expect_out_contains "units: $UNITS (0 evaluated, $UNITS reused)" "a third run reuses every stored unit, none twice"

# ---- a full disk: the store and the results on a 1 MB tmpfs ----
mkdir -p "$T/full"
if mount -t tmpfs -o size=1m skillci-full "$T/full" 2> /dev/null; then
	trap 'umount "$T/full" 2>/dev/null; fake_stop; rm -rf "$T"' EXIT
	# fill it but for a few bytes
	dd if=/dev/zero of="$T/full/filler" bs=1k count=1024 2> /dev/null
	run $EVAL --store "$T/full/r.db" --no-cache --json "$T/full/r.json"
	expect_exit 3 "disk full: exit 3 (infrastructure)"
	expect_err_contains "full" "disk full: the message says the disk is full"
	check "disk full: no half-written results JSON" sh -c "! test -s '$T/full/r.json' || python3 -c 'import json; json.load(open(\"$T/full/r.json\"))'"
	rm -f "$T/full/filler"
	run $EVAL --store "$T/full/r.db" --no-cache --json "$T/full/r.json"
	expect_exit 0 "disk full: once space is freed the same command succeeds"
	store_ok "$T/full/r.db" "disk full: the store passes integrity_check afterwards"
	json_ok "$T/full/r.json" "disk full: results JSON parses afterwards"
	umount "$T/full"
else
	skip "disk full" "cannot mount a size-limited tmpfs here (needs root and CAP_SYS_ADMIN)"
fi
fake_stop

# ---- the kernel worker is killed ----
if [ "${HAVE_CUDA:-}" = 1 ]; then
	mkdir -p "$T/skills/kern" "$T/fixtures"
	cp -R "$SKILLCI_ROOT/fixtures/softmax" "$T/fixtures/"
	printf -- '---\nname: kern\ndescription: Writes CUDA kernels.\n---\nWrite fast kernels.\n' > "$T/skills/kern/SKILL.md"
	echo '{"tests": [{"input": "Write the softmax kernel.", "fixture": "softmax"}]}' > "$T/skills/kern/skill_meta.json"
	# A stand-in worker: SIGKILLs itself as an OOM killer or a crashed driver would.
	printf '#!/bin/sh\n/bin/kill -KILL $$\n' > "$T/killed-worker"
	chmod +x "$T/killed-worker"
	SKILLCI_KERNEL_WORKER="$T/killed-worker" run "$SKILLCI" eval "$T/skills/kern" -m oracle.self \
		--store "$T/k.db" --fixtures "$T/fixtures" --allow-unpinned --no-baseline --json "$T/k.json"
	# docs/kernels.md: a worker that dies is a failed candidate (reason
	# crashed), never a pass; the evaluation itself completes.
	expect_exit 0 "killed worker: the evaluation completes (exit 0)"
	check "killed worker: the unit fails as crashed, naming the signal" python3 - "$T/k.json" <<'EOF'
import json, sys
u = json.load(open(sys.argv[1]))["units"]
assert len(u) == 1, u
assert u[0]["verdict"] == "fail", u[0]
assert u[0]["error_class"] == "crash", u[0]
assert "killed by signal 9" in (u[0]["message"] or ""), u[0]["message"]
EOF
	store_ok "$T/k.db" "killed worker: the store passes integrity_check"
else
	skip "killed kernel worker" "not built with CUDA (no skillci-kernel worker)"
fi

# ---- the same faults during the PR check (skillci run) ----
# A repository whose one skill changes between base and head: each run
# plans baseline, base and head units (3 x NTESTS); batches of units are
# committed to the store as they finish.
RUNITS=$((NTESTS * 3))
G="$T/repo"
mkdir -p "$G/skills"
git init -q "$G"
cp -R "$T/skills/s1" "$G/skills/s1"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
git -C "$G" add -A
git -C "$G" commit -qm base
printf '\nAlways answer ok.\n' >> "$G/skills/s1/SKILL.md"
git -C "$G" commit -qam head
RUN="$SKILLCI run --repo $G --base HEAD~1 --head HEAD -m anthropic.fault-model --retries 1 --report-dir $T/rd-default"
reports() {  # reports PREFIX NAME: every report is a whole file
	json_ok "$1.json" "$2: results JSON is whole"
	check "$2: JUnit XML is well-formed" xmllint --noout "$1.xml"
	check "$2: the Markdown report is whole UTF-8" python3 -c "open('$1.md', encoding='utf-8').read()"
	check "$2: report.html is whole" grep -q '</html>' "$1-html/report.html"
}
ROUT() {  # report flags for PREFIX
	echo "--json $1.json --junit $1.xml --markdown $1.md --html $1-html"
}
# account_run NAME: for a run's RUNITS units ("N reused" and "N cache
# hit(s)" from the last progress line): units reused from the store +
# answers from the cache + requests the fake saw = every unit, so nothing
# finished was asked again or lost. (The progress line says "1 cache hit"
# in the singular: an earlier pattern for "cache hits" alone read that as
# 0, which once summed to "119 of 120" though all 120 units were there.)
# The units themselves are checked by runits_ok.
account_run() {
	_last=$(printf '%s\n' "$ERR" | grep '^progress:' | tail -n 1)
	reused=$(printf '%s\n' "$_last" | sed -n 's/.* \([0-9]*\) reused.*/\1/p')
	cached=$(printf '%s\n' "$_last" | sed -n 's/.* \([0-9]*\) cache hits\{0,1\} .*/\1/p')
	asked=$(fake_stat requests)
	reused=${reused:-0} cached=${cached:-0}
	check "$1: reused $reused + cached $cached + asked $asked = $RUNITS units" \
		test "$((reused + cached + asked))" -eq "$RUNITS"
}
cat > "$T/runits.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
keys = [(u["skill"], u["variant"], u["test_id"], u["run_index"], u["model"]) for u in d["units"]]
assert len(keys) == len(set(keys)), "a unit is counted twice"
assert len(keys) == int(sys.argv[2]), (len(keys), sys.argv[2])
bad = [u for u in d["units"] if u.get("error_class") or u["verdict"] == "error"]
assert not bad, bad[:2]
EOF
runits_ok() {  # runits_ok FILE NAME: every planned unit once, none an error
	check "$2" python3 "$T/runits.py" "$1" $RUNITS
}

# invalid UTF-8
fake_start "$T/utf8.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
run $RUN --store "$T/run-utf8.db" --no-cache $(ROUT "$T/run-utf8")
expect_exit 0 "run, invalid UTF-8 answers: gate passes (exit 0)"
reports "$T/run-utf8" "run, invalid UTF-8 answers"
store_ok "$T/run-utf8.db" "run, invalid UTF-8 answers: the store passes integrity_check"
fake_stop

# 429s for RATE_S seconds (default retries)
fake_start "$T/429.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
run "$SKILLCI" run --repo "$G" --base HEAD~1 --head HEAD -m anthropic.fault-model --store "$T/run-429.db" \
	--no-cache $(ROUT "$T/run-429")
expect_exit 0 "run, 429s for ${RATE_S}s: waits them out, gate passes (exit 0)"
runits_ok "$T/run-429.json" "run, 429s: every unit once, none an error"
check "run, 429s: the server did answer 429" test "$(fake_stat requests)" -gt $RUNITS
fake_stop

# the server dies mid-run, then a rerun against a live one on the same port
fake_start "$T/die.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
run $RUN --store "$T/run-die.db" --cache "$T/run-die-cache" $(ROUT "$T/run-die")
expect_exit 3 "run, server dies: exit 3 (infrastructure)"
expect_err_contains "failed for infrastructure reasons" "run, server dies: says why"
reports "$T/run-die" "run, server dies"
check "run, server dies: results JSON records the failed gate with exit code 3" python3 -c "
import json; g = json.load(open('$T/run-die.json'))['gate']; assert g['exit_code'] == 3 and not g['passed'], g"
store_ok "$T/run-die.db" "run, server dies: the store passes integrity_check"
FAKE_PID=""
rm -f "$T/port3"
python3 "$SKILLCI_ROOT/tests/fakes/fake_models.py" --port "$FAKE_PORT" --port-file "$T/port3" > /dev/null 2>&1 &
FAKE_PID=$!
i=0
while [ ! -s "$T/port3" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
run $RUN --store "$T/run-die.db" --cache "$T/run-die-cache" $(ROUT "$T/run-die2")
expect_exit 0 "run, rerun after the server died: gate passes (exit 0)"
runits_ok "$T/run-die2.json" "run, rerun: every unit once, none an error"
account_run "run, rerun after the server died"
reports "$T/run-die2" "run, rerun"
fake_stop

# SIGKILL of skillci run mid-run, then a rerun
fake_start "$T/slow.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
$RUN --store "$T/run-kill.db" --cache "$T/run-kill-cache" $(ROUT "$T/run-kill") > "$T/run-kill.out" 2>&1 &
pid=$!
i=0
# past the 64 sent at once: a later request leaves only when an answer is
# back (and kept), so some work is finished before the kill
while [ "$(fake_stat requests)" -lt 80 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -KILL $pid 2>/dev/null
{ wait $pid; } 2> /dev/null
krc=$?
check "run, SIGKILL: skillci was killed mid-run (status 137)" test "$krc" -eq 137
for f in run-kill.json run-kill.xml run-kill.md; do
	check "run, SIGKILL: no half-written $f" sh -c "! test -e '$T/$f'"
done
if [ -e "$T/run-kill.db" ]; then store_ok "$T/run-kill.db" "run, SIGKILL: the store passes integrity_check"
else _tap ok "run, SIGKILL: no store yet"; fi
fake_reset
fake_script "$T/fast.json"
run $RUN --store "$T/run-kill.db" --cache "$T/run-kill-cache" $(ROUT "$T/run-kill2")
expect_exit 0 "run, rerun after SIGKILL: gate passes (exit 0)"
runits_ok "$T/run-kill2.json" "run, rerun after SIGKILL: every unit once, none an error"
account_run "run, rerun after SIGKILL"
check "run, rerun after SIGKILL: work finished before the kill was kept" test "$((reused + cached))" -ge 1
store_ok "$T/run-kill.db" "run, rerun after SIGKILL: the store passes integrity_check"
fake_stop

# a full disk under the store, then under the reports of a finished run
mkdir -p "$T/rfull"
if mount -t tmpfs -o size=1m skillci-rfull "$T/rfull" 2> /dev/null; then
	trap 'umount "$T/rfull" 2>/dev/null; umount "$T/full" 2>/dev/null; fake_stop; rm -rf "$T"' EXIT
	fake_start "$T/fast.json" || exit 1
	export ANTHROPIC_BASE_URL="$FAKE_URL"
	dd if=/dev/zero of="$T/rfull/filler" bs=1k count=1024 2> /dev/null
	run $RUN --store "$T/rfull/r.db" --no-cache $(ROUT "$T/rfull/r")
	expect_exit 3 "run, disk full under the store: exit 3"
	expect_err_contains "database or disk is full" "run, disk full under the store: says so"
	rm -f "$T/rfull/filler"
	run $RUN --store "$T/run-full.db" --no-cache $(ROUT "$T/rfull/r")
	expect_exit 0 "run, space again: the reports are written"
	dd if=/dev/zero of="$T/rfull/filler" bs=1k count=2048 2> /dev/null
	run $RUN --store "$T/run-full.db" --no-cache $(ROUT "$T/rfull/r")
	expect_exit 3 "run, disk full under the reports: exit 3"
	expect_err_contains "No space left on device" "run, disk full under the reports: says so"
	reports "$T/rfull/r" "run, disk full under the reports: the previous reports are still whole"
	fake_stop
	umount "$T/rfull"
else
	skip "run, disk full" "cannot mount a size-limited tmpfs here (needs root and CAP_SYS_ADMIN)"
fi

check "the planted API key is in no file written" sh -c "! grep -rqa -- '$KEY' '$T' --exclude=test_faults.sh"

done_testing
