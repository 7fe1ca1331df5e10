#!/bin/sh
# Runs every test suite and prints one closing line:
#   N passed, N failed, N skipped
# Unit suites are the cmocka binaries given as arguments (TAP output); the
# end-to-end suites are tests/e2e/test_*.sh, which print TAP lines too.
# A suite that crashes or stops early counts its missing tests as failed.
# A TAP TODO case ("not ok N - name # TODO reason", waiting for work not yet
# merged) counts as skipped, as TAP consumers treat it.
# Set TESTS="pattern ..." to run only suites whose name contains one of the
# patterns.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
logs="$root/$build/test-logs"
mkdir -p "$logs"
export SKILLCI="${SKILLCI:-$root/$build/skillci}"
export SKILLCI_ROOT="$root"
export CMOCKA_MESSAGE_OUTPUT=TAP
# The runner key that signs cached answers and stored units (secret.h):
# one for the whole test run, never the one under the user's HOME.
export SKILLCI_RUNNER_KEY_FILE="${SKILLCI_RUNNER_KEY_FILE:-$root/$build/test-home/runner.key}"
: "${ASAN_OPTIONS:=detect_leaks=1:abort_on_error=0:halt_on_error=1}"
export ASAN_OPTIONS
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

passed=0 failed=0 skipped=0 failed_suites=""

# count_tap LOG RC NAME: adds the TAP results of one suite to the totals.
count_tap() {
	log=$1 rc=$2 name=$3
	s=$(grep -E '^(not )?ok [0-9]+' "$log" | grep -cE '# (SKIP|TODO)')
	f=$(grep -E '^not ok [0-9]+' "$log" | grep -vc '# TODO')
	p=$(grep -E '^ok [0-9]+' "$log" | grep -vcE '# (SKIP|TODO)')
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)
	seen=$((p + s + f))
	if [ -n "$plan" ] && [ "$seen" -lt "$plan" ]; then
		f=$((f + plan - seen))
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=$((f + 1))
		echo "not ok - $name exited with status $rc" >> "$log"
	fi
	passed=$((passed + p)); skipped=$((skipped + s)); failed=$((failed + f))
	if [ "$f" -gt 0 ]; then
		failed_suites="$failed_suites $name"
		echo "--- $name: $f failed (log: $log)"
		grep -E '^not ok|^# |ERROR|error:|Sanitizer|runtime error' "$log" | head -n 40
	fi
	printf '%-28s %4d passed %4d failed %4d skipped\n' "$name" "$p" "$f" "$s"
}

match() {
	[ -z "${TESTS:-}" ] && return 0
	for pattern in $TESTS; do
		case "$1" in *"$pattern"*) return 0 ;; esac
	done
	return 1
}

# A PostgreSQL server for the store suites (tests/pg.sh), started once
# and stopped at the end, when a selected suite needs one and none was
# given (SKILLCI_TEST_PG_HOST). Without the server binaries the suites
# skip their PostgreSQL cases with the reason in SKILLCI_TEST_PG_SKIP.
wants_pg=""
for s in test_store test_untrusted; do match "$s" && wants_pg=1; done
if [ -n "$wants_pg" ] && [ -z "${SKILLCI_TEST_PG_HOST:-}" ]; then
	. "$here/pg.sh"
	SKILLCI_TEST_PG_SKIP=$(pg_skip_reason)
	if [ -z "$SKILLCI_TEST_PG_SKIP" ]; then
		if pg_start 2> "$logs/postgresql.log"; then
			pg_export
			trap 'pg_stop' EXIT
			trap 'exit 130' INT TERM
		else
			SKILLCI_TEST_PG_SKIP="the test server did not start (see $logs/postgresql.log)"
			echo "--- postgresql: $SKILLCI_TEST_PG_SKIP"
		fi
	else
		echo "--- postgresql: $SKILLCI_TEST_PG_SKIP; its store tests skip"
	fi
	export SKILLCI_TEST_PG_SKIP
fi

for bin in "$@"; do
	name=$(basename "$bin")
	match "$name" || continue
	log="$logs/unit-$name.log"
	(cd "$root" && "$bin") > "$log" 2>&1
	count_tap "$log" $? "$name"
done

for t in "$here"/e2e/test_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	match "$name" || continue
	log="$logs/e2e-$name.log"
	(cd "$root" && sh "$t") > "$log" 2>&1
	count_tap "$log" $? "$name"
done

[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
