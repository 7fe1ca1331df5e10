#!/bin/sh
# Runs libFuzzer targets for a while each and fails on any finding:
#   sh tests/fuzz/run.sh BUILD_DIR NAME...     (FUZZ_SECONDS per target, default 60)
# Seeds are read from tests/fuzz/corpus/NAME/ and never written; new inputs
# go to BUILD_DIR/corpus/NAME/, findings (crash-*, leak-*, timeout-*,
# oom-*) to BUILD_DIR/findings/NAME/, the log to BUILD_DIR/logs/NAME.log.
# Prints one line per target: executions, coverage (cov, ft), corpus size
# and the result; the last line is "N passed, N failed".
set -u
build=$1; shift
secs=${FUZZ_SECONDS:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
passed=0 failed=0
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
for name in "$@"; do
	bin="$root/$build/fuzz/fuzz_$name"
	work="$root/$build/corpus/$name"
	finds="$root/$build/findings/$name"
	log="$root/$build/logs/$name.log"
	mkdir -p "$work" "$finds" "$(dirname "$log")"
	dict=""
	[ -f "$root/tests/fuzz/$name.dict" ] && dict="-dict=$root/tests/fuzz/$name.dict"
	# One job, a 10 s per-input timeout (a hang is a finding), 2 GB RSS.
	"$bin" $dict -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-artifact_prefix="$finds/" -print_final_stats=1 \
		"$work" "$root/tests/fuzz/corpus/$name" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	cov=$(printf '%s\n' "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(printf '%s\n' "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	found=$(ls "$finds" | wc -l)
	if [ "$rc" -eq 0 ] && [ "$found" -eq 0 ]; then
		passed=$((passed + 1)); res=ok
	else
		failed=$((failed + 1)); res="FAILED (exit $rc, $found findings in $finds)"
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -n 10
	fi
	printf 'fuzz_%-10s %4ss  execs %-10s cov %-6s ft %-7s corpus %-6s %s\n' "$name" "$secs" \
		"${execs:-?}" "${cov:-?}" "${ft:-?}" "$(ls "$work" | wc -l)" "$res"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
