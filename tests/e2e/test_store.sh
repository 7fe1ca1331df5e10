# The results store from the command line, on both backends (docs/store.md):
# eval, runs and export give the same answers on SQLite and PostgreSQL;
# `store copy` moves history both ways, twice without doubling; `store
# info`; credentials only from the environment, ~/.pgpass or a service
# file (a location with a password is refused from --store,
# $SKILLCI_STORE and skillci.yml, and a password never shows); sslmode is
# passed to libpq; a newer schema is refused; a statement that runs past
# statement_timeout stops eval (exit 3) before any request; merge --run
# names missing shards. Uses the server tests/run-tests.sh started, else
# its own (tests/pg.sh).
. tests/e2e/lib.sh
. tests/fakes/fake.sh
. tests/pg.sh

own_pg=""
if ! pg_use_shared; then
	reason=$(pg_skip_reason)
	if [ -n "$reason" ]; then
		skip "store commands on PostgreSQL" "$reason"
		done_testing
		exit 0
	fi
	pg_start || { _tap not-ok "the PostgreSQL test server starts"; done_testing; exit 1; }
	own_pg=1
fi
cleanup() { fake_stop; [ -n "$own_pg" ] && pg_stop; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 143' INT TERM
DB=s$$
pg_createdb "$DB"
PG=$(pg_url "$DB")
LITE="$T/results.db"

mkdir -p "$T/skills/greeter"
printf -- '---\nname: greeter\ndescription: Greets.\n---\n# Greeter\n\nSay HELLO-SKILL.\n' \
	> "$T/skills/greeter/SKILL.md"
python3 - "$T/skills/greeter/skill_meta.json" <<'EOF'
import json, sys
json.dump({"tests": [{"input": "Q%d: greet %s" % (i, "[S+]" if i % 2 else "[B+]"),
                      "expected": {"contains": ["hello"]}} for i in range(6)]}, open(sys.argv[1], "w"))
EOF
cat > "$T/script.json" <<'EOF'
{"rules": [
  {"match": {"system": "HELLO-SKILL", "contains": "[S+]"}, "reply": {"text": "hello there", "usage": {"input": 40, "output": 10}}},
  {"match": {"contains": "[B+]"}, "reply": {"text": "hello", "usage": {"input": 20, "output": 5}}}],
 "default": {"text": "no", "usage": {"input": 20, "output": 5}}}
EOF
fake_start "$T/script.json" || exit 1
trap cleanup EXIT
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-store-secret
unset SKILLCI_STORE PGPASSWORD PGSERVICE PGSERVICEFILE PGPASSFILE PGOPTIONS
cd "$T" || exit 1
M=anthropic.student

# ---- the same evaluations on both backends ----------------------------------
for loc in "$LITE" "$PG"; do
	run "$SKILLCI" eval skills/greeter -m $M --runs 2 --store "$loc" --no-cache
	expect_exit 0 "eval stores a run ($loc)"
	run "$SKILLCI" eval skills/greeter -m $M --runs 3 --store "$loc" --no-cache
	expect_exit 0 "eval stores a second run with one more run per test"
	expect_out_contains "units: 36 (12 evaluated, 24 reused)" "the second run reuses what the first stored"
done
check "the fake answered 72 requests (36 per backend)" test "$(fake_stat requests)" -eq 72
run "$SKILLCI" store info "$PG"
expect_out_contains "units: 36" "PostgreSQL holds 36 units"
expect_out_contains "schema version: 5" "at schema version 5"
run "$SKILLCI" store info "$LITE"
expect_out_contains "units: 36" "SQLite holds 36 units"
expect_out_contains "backend: sqlite" "store info names the SQLite backend"

# runs and export read the same from either (run ids and times differ: compare shapes)
norm() { sed -E 's/[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}/RUN/g; s/20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/TIME/g'; }
"$SKILLCI" runs --store "$LITE" | norm > "$T/runs-lite.txt"
"$SKILLCI" runs --store "$PG" | norm > "$T/runs-pg.txt"
check "runs shows the same history from both backends" cmp "$T/runs-lite.txt" "$T/runs-pg.txt"
check "and it has the four aggregates" test "$(grep -c 'RUN ' "$T/runs-pg.txt")" -eq 4
"$SKILLCI" export -o "$T/lite.jsonl" --store "$LITE" > /dev/null
"$SKILLCI" export -o "$T/pg.jsonl" --store "$PG" > /dev/null
check "export writes the same transcripts from both backends" python3 - "$T/lite.jsonl" "$T/pg.jsonl" <<'EOF'
import json, sys
def rows(p):
    out = []
    for line in open(p):
        d = json.loads(line)
        m = dict(d["metadata"]); m.pop("run_id", None); m.pop("latency_ms", None)
        out.append((json.dumps(d["messages"]), json.dumps(m, sort_keys=True)))
    return out
# units are stored as they finish, so the order is the answers' order
a, b = sorted(rows(sys.argv[1])), sorted(rows(sys.argv[2]))
assert len(a) == 36 and a == b, (len(a), len(b))
EOF

# ---- store copy both ways -----------------------------------------------------
pg_createdb "${DB}_copy"
PG2=$(pg_url "${DB}_copy")
run "$SKILLCI" store copy "$LITE" "$PG2"
expect_exit 0 "store copy SQLite -> PostgreSQL"
expect_out_contains "copied 2 runs, 36 units (36 new), 4 aggregates" "and says what it copied"
run "$SKILLCI" store copy "$LITE" "$PG2"
expect_out_contains "36 units (0 new)" "a second copy adds nothing"
run "$SKILLCI" store copy "$PG2" "$T/back.db"
expect_exit 0 "store copy PostgreSQL -> SQLite"
"$SKILLCI" runs --store "$LITE" > "$T/a.txt"
"$SKILLCI" runs --store "$T/back.db" > "$T/b.txt"
check "the round trip keeps the history exactly" cmp "$T/a.txt" "$T/b.txt"
run "$SKILLCI" store copy "$T/nowhere.db" "$PG2"
expect_exit 2 "copy from a missing store is refused"
expect_err_contains "no results store at '$T/nowhere.db'" "and names it"
run "$SKILLCI" store copy "$LITE" "$LITE"
expect_exit 2 "copy onto itself is refused"
run "$SKILLCI" store frobnicate
expect_exit 2 "an unknown store subcommand is bad usage"
run "$SKILLCI" store --help
expect_exit 0 "store --help"
expect_out_contains "copy FROM TO" "store --help shows copy"

# ---- the HTML index draws the store's history ---------------------------------
"$SKILLCI" eval skills/greeter -m $M --runs 2 --store "$PG" --no-cache --json "$T/now.json" > /dev/null 2>&1
run "$SKILLCI" report "$T/now.json" --html "$T/html" --store "$PG"
expect_exit 0 "report --store renders the index"
check "the index has a point for each of the three stored runs" python3 - "$T/html/index.html" "$T/now.json" <<'EOF'
import re, sys
page = open(sys.argv[1]).read()
runs = set(re.findall(r"[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}", page))
assert len(runs) == 3, runs
EOF
run "$SKILLCI" report "$T/now.json" --store "$PG"
expect_exit 2 "report --store needs --html"

# ---- credentials -----------------------------------------------------------------
TCP=$(pg_tcp_url fleet fleet)
run "$SKILLCI" store info "postgresql://fleet:fleet-secret@127.0.0.1:$PG_PORT/fleet"
expect_exit 2 "a password in --store is refused"
expect_err_contains "postgresql://fleet:***@127.0.0.1" "the location is shown masked"
expect_err_contains "PGPASSWORD" "and the message says where the password goes"
expect_err_lacks "fleet-secret" "the password is not printed"
run env SKILLCI_STORE="postgresql://127.0.0.1:$PG_PORT/fleet?user=fleet&password=fleet-secret" \
	"$SKILLCI" runs
expect_exit 2 "a password in \$SKILLCI_STORE is refused"
expect_err_lacks "fleet-secret" "and not printed"
mkdir -p "$T/cfg"
printf 'models: [%s]\nstore: postgresql://fleet:fleet-secret@127.0.0.1:%s/fleet\n' "$M" "$PG_PORT" \
	> "$T/cfg/skillci.yml"
run "$SKILLCI" eval skills/greeter --config "$T/cfg/skillci.yml" --no-cache
expect_exit 2 "a password in skillci.yml store: is a config error"
expect_err_contains "skillci.yml:2" "at its line"
expect_err_lacks "fleet-secret" "without the password"
run "$SKILLCI" store info "$TCP"
expect_exit 3 "without a password the server refuses (exit 3)"
expect_err_contains "no password supplied" "libpq's reason is shown"
run env PGPASSWORD=fleet-secret "$SKILLCI" eval skills/greeter -m $M --runs 1 --store "$TCP" --no-cache \
	--json "$T/tcp.json"
expect_exit 0 "PGPASSWORD from the environment connects over TCP"
pg_sql fleet "SELECT r.*, u.* FROM runs r JOIN units u ON u.run_id = r.id" > "$T/fleet-rows.txt"
check "the password is in no output, report or store row" sh -c \
	"test -s '$T/fleet-rows.txt' && ! grep -q fleet-secret '$T/.out' '$T/.err' '$T/tcp.json' '$T/fleet-rows.txt'"
pg_sql "$DB" "GRANT USAGE ON SCHEMA public TO fleet; GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO fleet; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO fleet" > /dev/null
run env PGPASSWORD=fleet-secret "$SKILLCI" eval skills/greeter -m $M --runs 2 --no-cache \
	--store "$(pg_tcp_url "$DB" fleet)"
expect_exit 0 "a role that may only read and write (no CREATE) uses a current store"
expect_out_contains "(0 evaluated, 24 reused)" "and reuses what is there"
printf '127.0.0.1:%s:fleet:fleet:fleet-secret\n' "$PG_PORT" > "$T/pgpass"
chmod 600 "$T/pgpass"
printf '[ci-fleet]\nhost=127.0.0.1\nport=%s\ndbname=fleet\nuser=fleet\n' "$PG_PORT" > "$T/pg_service.conf"
run env PGSERVICEFILE="$T/pg_service.conf" PGPASSFILE="$T/pgpass" \
	"$SKILLCI" store info "postgresql://?service=ci-fleet"
expect_exit 0 "a service file and ~/.pgpass connect"
expect_out_contains "units: 12" "to the same store"
run env PGSERVICEFILE="$T/pg_service.conf" PGPASSFILE="$T/pgpass" PGSERVICE=ci-fleet \
	"$SKILLCI" store info "postgresql://"
expect_exit 0 "PGSERVICE names the service"
run env PGPASSWORD=fleet-secret "$SKILLCI" store info "$TCP?sslmode=require"
expect_exit 3 "sslmode=require is passed to libpq (the test server has no TLS)"
expect_err_contains "SSL" "and libpq says why"
run env PGPASSWORD=fleet-secret "$SKILLCI" store info "$TCP?sslmode=disable"
expect_exit 0 "sslmode=disable connects"

# ---- a newer schema is refused ------------------------------------------------------
pg_createdb "${DB}_new"
"$SKILLCI" store info "$(pg_url "${DB}_new")" > /dev/null 2>&1
pg_sql "${DB}_new" "INSERT INTO schema_version VALUES (7)" > /dev/null
run "$SKILLCI" eval skills/greeter -m $M --store "$(pg_url "${DB}_new")" --no-cache
expect_exit 2 "a store with a newer schema is refused"
expect_err_contains "schema version 7, newer than this skillci's 5" "and the message says so"

# ---- a statement that runs past statement_timeout ------------------------------------
fake_reset
pg_sql "$DB" "SELECT 1" > /dev/null
( "$PG_BIN/psql" -X -q -h "$PG_HOST" -p "$PG_PORT" -U skillci -d "$DB" \
	-c "BEGIN; LOCK TABLE units IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(30)" > /dev/null 2>&1 ) &
holder=$!
for _ in $(seq 1 100); do
	[ "$(pg_sql "$DB" "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND relation = 'units'::regclass")" = 1 ] && break
	sleep 0.05
done
run env PGOPTIONS="-c statement_timeout=200" "$SKILLCI" eval skills/greeter -m $M --runs 4 \
	--store "$PG" --no-cache
expect_exit 3 "a store that times out is an infrastructure failure"
expect_err_contains "statement_timeout (200ms) 3 times" "the message names the timeout and the tries"
check "no model request was made (the lookups come first)" test "$(fake_stat requests)" -eq 0
pg_sql postgres "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND pid <> pg_backend_pid()" > /dev/null
wait "$holder" 2>/dev/null
run "$SKILLCI" eval skills/greeter -m $M --runs 4 --store "$PG" --no-cache
expect_exit 0 "with the lock gone the same eval runs"

# ---- the connection cut at chosen points ---------------------------------------------
# A proxy between skillci and the server (tests/fakes/tcp_cut.py) cuts the
# connection once: in the middle of the units' transaction, right after
# COMMIT reached the server (its answer lost), during a lookup. Each time
# skillci reconnects, sends again, and the store ends with every unit,
# the run and its aggregates exactly once.
cut_case() {  # cut_case NAME PATTERN NTH WHEN
	cdb=$(printf "cut_%s_%s" "$1" "$$" | tr - _)
	pg_sql postgres "CREATE DATABASE $cdb OWNER fleet" > /dev/null
	rm -f "$T/cut.port" "$T/cut.log"
	python3 "$SKILLCI_ROOT/tests/fakes/tcp_cut.py" --target "$PG_PORT" --port-file "$T/cut.port" \
		--pattern "$2" --nth "$3" --when "$4" --log "$T/cut.log" &
	cut_pid=$!
	for _ in $(seq 1 100); do [ -s "$T/cut.port" ] && break; sleep 0.05; done
	run env PGPASSWORD=fleet-secret "$SKILLCI" eval skills/greeter -m $M --runs 1 --no-cache \
		--store "postgresql://fleet@127.0.0.1:$(cat "$T/cut.port")/$cdb"
	kill "$cut_pid" 2>/dev/null
	wait "$cut_pid" 2>/dev/null
	expect_exit 0 "$1: the eval finishes"
	check "$1: the connection was cut" grep -q cut "$T/cut.log"
	expect_err_contains "reconnecting" "$1: skillci reconnected"
	check "$1: 12 units, 1 run, 2 aggregates, each once" test \
		"$(pg_sql "$cdb" "SELECT (SELECT count(*) FROM units) || ' ' || (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM aggregates)")" = "12 1 2"
}
cut_case mid-transaction 'skillci_1\x00' 3 before
cut_case commit-answer-lost 'COMMIT\x00' 2 after
cut_case during-a-lookup 'skillci_4\x00' 2 before

# ---- merge --run names what is missing ------------------------------------------------
run "$SKILLCI" merge --run nosuch --store "$PG"
expect_exit 2 "merge --run of a run the store does not have"
expect_err_contains "holds no shard of run 'nosuch'" "says so"
run "$SKILLCI" merge --run x "$T/a.json"
expect_exit 2 "files and --run together are bad usage"

done_testing
