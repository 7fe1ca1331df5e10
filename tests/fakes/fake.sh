# Shell helpers to run the fake model server (tests/fakes/fake_models.py)
# from end-to-end suites and benchmarks. Source after tests/e2e/lib.sh:
#
#   . tests/fakes/fake.sh
#   fake_start "$T/script.json"      # sets FAKE_URL, FAKE_PORT, FAKE_PID, FAKE_LOG
#   ANTHROPIC_BASE_URL=$FAKE_URL ...
#   fake_stat max_in_flight           # prints one counter from /_fake/stats
#   fake_script "$T/other.json"       # replace the script
#   fake_reset                        # zero counters and the request log
#   fake_req -1 path body.model       # fields of a logged request (fake_log.py)
#   fake_mask "$KEY"                  # what the log holds for a key
#   fake_stop                         # also done at exit by fake_start's trap
#
# Each fake gets its own folder under ${T:-/tmp}; the request log is
# $FAKE_LOG (JSONL, keys hashed), not written when FAKE_NOLOG=1 (benchmarks). Calling fake_start again starts another
# fake (FAKE_URL and FAKE_LOG then name the newest; save them first); every
# fake started is stopped at exit.

_fake_root=$(cd "$(dirname "${SKILLCI_ROOT:-.}/tests/fakes/fake_models.py")" && pwd)

fake_start() {  # fake_start [SCRIPT]
	_fdir=$(mktemp -d "${T:-${TMPDIR:-/tmp}}/fake.XXXXXX")
	FAKE_LOG="$_fdir/requests.jsonl"
	_flog="--log $FAKE_LOG"
	[ "${FAKE_NOLOG:-}" = 1 ] && _flog=""
	if [ -n "${1:-}" ]; then
		python3 -S "$_fake_root/fake_models.py" --script "$1" --port-file "$_fdir/port" \
			$_flog > /dev/null 2> "$_fdir/stderr" &
	else
		python3 -S "$_fake_root/fake_models.py" --port-file "$_fdir/port" \
			$_flog > /dev/null 2> "$_fdir/stderr" &
	fi
	FAKE_PID=$!
	_FAKE_PIDS="${_FAKE_PIDS:-} $FAKE_PID"
	_i=0
	while [ ! -s "$_fdir/port" ]; do
		_i=$((_i + 1))
		if [ "$_i" -gt 200 ] || ! kill -0 "$FAKE_PID" 2>/dev/null; then
			echo "fake_start: fake server did not start" >&2
			cat "$_fdir/stderr" >&2
			return 1
		fi
		sleep 0.05
	done
	FAKE_PORT=$(cat "$_fdir/port")
	FAKE_URL="http://127.0.0.1:$FAKE_PORT"
	trap 'fake_stop; rm -rf "${T:-/nonexistent}"' EXIT
	export FAKE_URL FAKE_PORT FAKE_PID FAKE_LOG
}

fake_stop() {  # stops every fake this shell started
	for _p in ${_FAKE_PIDS:-} ${FAKE_PID:-}; do
		kill "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
	done
	_FAKE_PIDS=""
	FAKE_PID=""
}

_fake_http() {  # _fake_http METHOD PATH [FILE]
	if [ -n "${3:-}" ]; then
		curl -s -X "$1" --data-binary "@$3" -H 'Content-Type: application/json' "$FAKE_URL$2"
	else
		curl -s -X "$1" "$FAKE_URL$2"
	fi
}

fake_stats() { _fake_http GET /_fake/stats; }
fake_reset() { _fake_http POST /_fake/reset > /dev/null; }
fake_script() { _fake_http POST /_fake/script "$1" > /dev/null; }
fake_req() {  # fake_req INDEX FIELD...: fields of a logged request of $FAKE_LOG
	python3 -S "$_fake_root/fake_log.py" "$FAKE_LOG" "$@"
}
fake_mask() {  # fake_mask KEY: the log's stand-in for KEY
	python3 -S "$_fake_root/fake_log.py" --mask "$1"
}
fake_stat() {  # fake_stat NAME: one number from /_fake/stats
	fake_stats | python3 -S -c "import json,sys; print(json.load(sys.stdin)['$1'])"
}

# stand_in_worker PATH SECONDS [LOG [RESULT [JOB_COPY]]]: writes at PATH an
# executable that SKILLCI_KERNEL_WORKER can name:
# tests/fakes/stand_in_worker.py, checking each kernel in SECONDS (start
# and end appended to LOG when given and not ""), writing the result in
# the file RESULT when given, the job copied to JOB_COPY. The
# interpreter is named by its real path: a version manager's python3 shim
# would add its own start-up to every check.
#
# The fakes and their helpers use the standard library alone and run with
# -S (no site-packages scan at start-up, the larger part of Python's own
# start-up time on a loaded machine).
stand_in_worker() {
	printf '#!/bin/sh\nexec "%s" -S "%s" "%s" "%s" "%s" "%s"\n' \
		"$(python3 -c 'import sys; print(sys.executable)')" \
		"$_fake_root/stand_in_worker.py" "$2" "${3:-}" "${4:-}" "${5:-}" > "$1" &&
		chmod +x "$1"
}
