#!/bin/sh
# Runs every test suite and prints one closing line, last:
#   N passed, N failed, N skipped
# Unit suites are the cmocka binaries given as arguments (TAP output); the
# end-to-end suites are tests/e2e/test_*.sh, which print TAP lines too.
# A suite that crashes or stops early counts its missing tests as failed.
# A TAP TODO case ("not ok N - name # TODO reason", waiting for work not yet
# merged) counts as skipped, as TAP consumers treat it.
#
# Suites run in parallel, JOBS at a time (default: the number of cores;
# make -jN check passes N). Each suite runs in its own empty folder
# (TMPDIR, so its scratch folders, fakes and ports are its own) with its
# own runner key; its output goes to $(BUILD)/test-logs/KIND-NAME.log and
# its line below is printed when it ends, so output is never interleaved.
# The suites that took longest last time start first.
#
# After the suites: their wall times, the slowest ten suites and the
# slowest ten single cases (the time since the suite's previous TAP line),
# kept in $(BUILD)/test-logs/times.tsv and cases.tsv.
#
# Set TESTS="pattern ..." to run only suites whose name contains one of the
# patterns; JOBS=1 runs them one after the other.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BUILD:-build}
logs="$root/$build/test-logs"
mkdir -p "$logs"
export SKILLCI="${SKILLCI:-$root/$build/skillci}"
export SKILLCI_ROOT="$root"
# the agent jail's helper (runner/jail/), which unit test binaries would
# otherwise look for beside themselves
export SKILLCI_JAIL_HELPER="${SKILLCI_JAIL_HELPER:-$root/$build/skillci-jail}"
export CMOCKA_MESSAGE_OUTPUT=TAP
: "${ASAN_OPTIONS:=detect_leaks=1:abort_on_error=0:halt_on_error=1}"
export ASAN_OPTIONS
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

jobs=${JOBS:-}
[ -n "$jobs" ] || jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo 2)
case "$jobs" in ''|*[!0-9]*|0) jobs=1 ;; esac

passed=0 failed=0 skipped=0 failed_suites=""
t0=$(date +%s)

# count_tap LOG RC NAME WALL: adds the TAP results of one suite to the
# totals and prints its line (and, when it failed, what failed).
count_tap() {
	log=$1 rc=$2 name=$3 wall=$4
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
	printf '%-28s %4d passed %4d failed %4d skipped %7.1f s\n' "$name" "$p" "$f" "$s" "$wall"
}

match() {
	[ -z "${TESTS:-}" ] && return 0
	for pattern in $TESTS; do
		case "$1" in *"$pattern"*) return 0 ;; esac
	done
	return 1
}

# Scratch: one folder per suite under a fresh folder of the run, removed
# at the end (the logs stay in $logs).
# (Searchable by all: a suite may run a server as another user, as
# tests/pg.sh does under root.)
run_root=$(mktemp -d "${TMPDIR:-/tmp}/skillci-check.XXXXXX") || exit 1
chmod 755 "$run_root"
cleanup() { [ -n "${PG_DIR:-}" ] && pg_stop; rm -rf "$run_root"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# The suites selected, "KIND NAME PATH" a line, ordered by the wall time
# each took in the last run, longest first (a suite never timed first).
list="$run_root/.suites"
: > "$list"
for bin in "$@"; do
	name=$(basename "$bin")
	match "$name" && echo "unit $name $bin" >> "$list"
done
for t in "$here"/e2e/test_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	match "$name" && echo "e2e $name $t" >> "$list"
done
[ -f "$logs/times.tsv" ] || : > "$logs/times.tsv"
# Without a time (a new suite, a fresh build folder): end-to-end suites
# before unit suites, each the larger file first.
while read -r kind name path; do
	printf '%s %s %s %s\n' "$kind" "$name" "$path" "$(wc -c < "$path")"
done < "$list" > "$list.sized"
order=$(awk 'FILENAME == ARGV[1] { t[$2] = $1; next }
	{ k = $1 "-" $2; w = (k in t) ? t[k] : ($1 == "e2e" ? 2e9 : 1e9) + $4
	  printf "%s\t%s %s %s\n", w, $1, $2, $3 }' \
	"$logs/times.tsv" "$list.sized" | sort -t "$(printf '\t')" -k1,1 -g -r -s | cut -f 2-)

# A PostgreSQL server for the store suites (tests/pg.sh), started once,
# shared by the suites (each makes its own databases) and stopped at the
# end, when a selected suite needs one and none was given
# (SKILLCI_TEST_PG_HOST). Without the server binaries the suites skip
# their PostgreSQL cases with the reason in SKILLCI_TEST_PG_SKIP.
wants_pg=""
for s in test_store test_untrusted; do match "$s" && wants_pg=1; done
if [ -n "$wants_pg" ] && [ -z "${SKILLCI_TEST_PG_HOST:-}" ]; then
	. "$here/pg.sh"
	SKILLCI_TEST_PG_SKIP=$(pg_skip_reason)
	if [ -z "$SKILLCI_TEST_PG_SKIP" ]; then
		if pg_start 2> "$logs/postgresql.log"; then
			pg_export
		else
			SKILLCI_TEST_PG_SKIP="the test server did not start (see $logs/postgresql.log)"
			echo "--- postgresql: $SKILLCI_TEST_PG_SKIP"
		fi
	else
		echo "--- postgresql: $SKILLCI_TEST_PG_SKIP; its store tests skip"
	fi
	export SKILLCI_TEST_PG_SKIP
fi

# python3 as the suites find it on PATH: the interpreter itself, named by
# its real path, so that a version manager's shim (pyenv's is a shell
# script) does not add its own start-up to each of the suites' many
# Python helpers.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
	mkdir -p "$run_root/bin"
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$py" > "$run_root/bin/python3"
	chmod 755 "$run_root/bin" "$run_root/bin/python3"
	PATH="$run_root/bin:$PATH"
	export PATH
fi

# Line-buffered output (coreutils stdbuf) lets a unit suite's cases be
# timed one by one; not under a sanitizer, whose runtime must be the first
# library loaded.
stdbuf=""
[ -z "${SAN:-}" ] && command -v stdbuf > /dev/null 2>&1 && stdbuf="stdbuf -oL"

# start_suite KIND NAME PATH: runs one suite in the background; when it
# ends, its id is written to the pool's pipe (fd 3).
start_suite() {
	id="$1-$2"
	dir="$run_root/$id"
	mkdir -p "$dir/tmp" && chmod 755 "$dir" "$dir/tmp"
	(
		export TMPDIR="$dir/tmp"
		# The runner key that signs cached answers and stored units
		# (secret.h): the suite's own, never the one under the user's HOME.
		export SKILLCI_RUNNER_KEY_FILE="$dir/runner.key"
		cd "$root" || exit 1
		if [ "$1" = unit ]; then
			set -- $stdbuf "$3"
		else
			set -- sh "$3"
		fi
		python3 "$here/run-suite.py" "$logs/$id.log" "$dir/cases" "$dir/result" -- "$@" 3>&-
		[ -s "$dir/result" ] || echo "127 0" > "$dir/result"
		echo "$id" >&3
	) &
}

# finish_suite ID: counts a finished suite and prints its line.
finish_suite() {
	dir="$run_root/$1"
	read -r rc wall < "$dir/result"
	kind=${1%%-*} name=${1#*-}
	count_tap "$logs/$1.log" "$rc" "$name" "$wall"
	printf '%s\t%s\t%s\n' "$wall" "$1" "$rc" >> "$run_root/.times"
	sed "s|^\([^	]*\)	|\1	$kind $name	|" "$dir/cases" >> "$run_root/.cases"
	rm -rf "$dir"
}

mkfifo "$run_root/.done" || exit 1
exec 3<> "$run_root/.done"
: > "$run_root/.times"
: > "$run_root/.cases"
running=0
nsuites=0
for line in $(printf '%s\n' "$order" | tr ' ' '|'); do
	while [ "$running" -ge "$jobs" ]; do
		read -r done_id <&3
		finish_suite "$done_id"
		running=$((running - 1))
	done
	# shellcheck disable=SC2086
	start_suite $(echo "$line" | tr '|' ' ')
	running=$((running + 1))
	nsuites=$((nsuites + 1))
done
while [ "$running" -gt 0 ]; do
	read -r done_id <&3
	finish_suite "$done_id"
	running=$((running - 1))
done
exec 3>&-

# Times: this run's suites replace their lines in times.tsv (a run of a
# few suites keeps the others'), which orders the next run.
awk -F '\t' 'FILENAME == ARGV[1] { new[$2] = $0; next } !($2 in new) { print } END { for (k in new) print new[k] }' \
	"$run_root/.times" "$logs/times.tsv" | sort -t "$(printf '\t')" -k1,1 -g -r > "$logs/times.tsv.new" &&
	mv "$logs/times.tsv.new" "$logs/times.tsv"
sort -t "$(printf '\t')" -k1,1 -g -r "$run_root/.cases" > "$logs/cases.tsv"
if [ "$nsuites" -gt 1 ]; then
	echo "slowest suites (wall s):"
	sort -t "$(printf '\t')" -k1,1 -g -r "$run_root/.times" | head -n 10 |
		awk -F '\t' '{ k = $2; sub(/-/, " ", k); printf "  %7.1f  %s\n", $1, k }'
	echo "slowest cases (s, since the suite's previous case):"
	head -n 10 "$logs/cases.tsv" | awk -F '\t' '{ printf "  %7.1f  %s: %s\n", $1, $2, substr($3, 1, 100) }'
	sum=$(awk -F '\t' '{ s += $1 } END { printf "%.0f", s }' "$run_root/.times")
	echo "$nsuites suites, $jobs at a time: $(( $(date +%s) - t0 )) s wall, $sum s of suites"
fi

[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
