#!/bin/sh
# Results store throughput: units per second written to each backend by 4
# concurrent writer processes (and by 1, for the ratio), in transactions
# of 16 units plus the run row, as `skillci run` writes a batch; each unit
# carries a 2 KB transcript. SQLite is a file in $TMPDIR (WAL,
# synchronous=NORMAL); PostgreSQL is a private server from tests/pg.sh on a
# Unix socket, with fsync off (what is measured is skillci's side: the
# statements, round trips and locking, not the disk). The driver checks
# the store holds exactly the units written before it prints a number.
#
# The reference: the database's own command-line client (sqlite3, psql)
# sending the same rows in the same transactions from one SQL file, one
# writer, measured in the same run.
# Environment: UNITS (per writer), BATCH.
set -u
root=${SKILLCI_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
driver="$root/$build/tests/bench/bench_store"
UNITS=${UNITS:-5000} BATCH=${BATCH:-16}
[ -x "$driver" ] || { echo "bench_store: build $driver first (make BUILD=$build programs)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench.XXXXXX")
. "$root/tests/pg.sh"
trap 'pg_stop; rm -rf "$T"' EXIT
status=0
now() { python3 -c 'import time; print(time.monotonic())'; }
rate() { sed -n 's/.*, \([0-9]*\) units\/s$/\1/p' "$1"; }

# The reference SQL: UNITS units of one writer, BATCH per transaction.
python3 - "$T/ref.sql" "$UNITS" "$BATCH" <<'PY'
import sys
path, n, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tr = '[{"role": "user", "content": "' + "ab" * 1000 + '"}, {"role": "assistant", "content": "ok"}]'
cols = ("skill, skill_name, variant, model, test_id, test_name, run_index, kind, skill_hash, test_hash,"
        " fixture_hash, prompt_hash, harness, verdict, tokens_in, tokens_out, turns, latency_ms,"
        " transcript, run_id")
key = "skill_hash, test_hash, fixture_hash, model, prompt_hash, harness, run_index"
with open(path, "w") as f:
    for i in range(0, n, batch):
        f.write("BEGIN;\nINSERT INTO runs (id, kind, started_at, complete, models, runs, oracle) VALUES"
                " ('ref', 'run', '2026-01-01T00:00:00Z', 0, 'anthropic.bench', 1, 0)"
                " ON CONFLICT (id) DO UPDATE SET kind = excluded.kind;\n")
        for k in range(i, min(i + batch, n)):
            f.write("INSERT INTO units (%s) VALUES ('skills/bench', 'bench', 'head', 'anthropic.bench',"
                    " 'skill_meta.json#tests[0]', 'bench', 0, 'text', 'ref', 'test-%d', '', 'prompt',"
                    " 'skillci-eval/1', 'pass', %d, 200, 1, 1500, '%s', 'ref') ON CONFLICT (%s) DO NOTHING;\n"
                    % (cols, k, 1000 + k, tr, key))
        f.write("COMMIT;\n")
PY

for w in 1 4; do
	"$driver" "$T/w$w.db" "$w" "$UNITS" "$BATCH" | tee "$T/sqlite$w" || status=1
done
if command -v sqlite3 > /dev/null 2>&1; then
	t0=$(now); sqlite3 "$T/w1.db" < "$T/ref.sql" > /dev/null; t1=$(now)
	awk -v t="$t1" -v s="$t0" -v n="$UNITS" \
		'BEGIN { printf "sqlite: reference, the sqlite3 client, 1 writer: %d units in %.3f s, %.0f units/s\n", n, t - s, n / (t - s) }' \
		| tee "$T/sqliteref"
fi
reason=$(pg_skip_reason)
if [ -n "$reason" ]; then
	echo "postgresql: skipped: $reason"
elif pg_start; then
	for w in 1 4; do
		pg_createdb "bench$w"
		"$driver" "$(pg_url "bench$w")" "$w" "$UNITS" "$BATCH" | tee "$T/pg$w" || status=1
	done
	t0=$(now)
	"$PG_BIN/psql" -X -q -h "$PG_HOST" -p "$PG_PORT" -U skillci -d bench1 -f "$T/ref.sql" > /dev/null
	t1=$(now)
	awk -v t="$t1" -v s="$t0" -v n="$UNITS" \
		'BEGIN { printf "postgresql: reference, the psql client, 1 writer: %d units in %.3f s, %.0f units/s\n", n, t - s, n / (t - s) }' \
		| tee "$T/pgref"
	[ "$(pg_sql bench1 "SELECT count(*) FROM units WHERE skill_hash = 'ref'")" = "$UNITS" ] ||
		{ echo "postgresql: the reference did not store $UNITS units"; status=1; }
else
	echo "postgresql: the server did not start"; status=1
fi
for b in sqlite pg; do
	[ -s "$T/${b}1" ] && [ -s "$T/${b}4" ] || continue
	awk -v one="$(rate "$T/${b}1")" -v four="$(rate "$T/${b}4")" -v b="$b" \
		'BEGIN { printf "%s: 4 writers / 1 writer = %.2fx\n", b, four / one }'
	[ -s "$T/${b}ref" ] && awk -v one="$(rate "$T/${b}1")" -v ref="$(rate "$T/${b}ref")" -v b="$b" \
		'BEGIN { printf "%s: skillci 1 writer / the client = %.2fx\n", b, one / ref }'
done
exit $status
