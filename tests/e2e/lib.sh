# Helpers for end-to-end suites (sourced). Each case is a named check that
# prints one TAP line. Cases are data: a command, its inputs, the expected
# exit code and expected output, e.g.
#
#   . tests/e2e/lib.sh
#   run "$SKILLCI" validate skills/
#   expect_exit 0 "validate accepts the example skills"
#   expect_out_contains "0 errors" "validate prints a summary"
#   done_testing
#
# run() captures stdout in $OUT, stderr in $ERR and the status in $RC.
# Scratch space: $T (a fresh folder removed at exit).
#
# Every `skillci run`, `merge` and `report` that run() starts and that
# writes a JUnit is checked against the gate (tests/e2e/junit_gate.py): the
# JUnit's failures are 0 if and only if the gate passed, and for run and
# merge the exit code agrees. A disagreement is a failed case; done_testing
# adds one case saying how many commands were checked. A command started
# without run() is checked with junit_gate CMD... after it ends ($RC set).

: "${SKILLCI:?SKILLCI must point at the skillci binary}"
: "${SKILLCI_ROOT:=$(pwd)}"
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
_n=0
_fail=0
_jchecked=0
OUT="" ERR="" RC=0

_tap() {  # _tap ok|not-ok NAME [DETAIL]
	_n=$((_n + 1))
	if [ "$1" = ok ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_fail=$((_fail + 1))
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/#   /' | head -n 30
	fi
}

run() {
	: > "$T/.run_start"
	"$@" > "$T/.out" 2> "$T/.err"
	RC=$?
	OUT=$(cat "$T/.out")
	ERR=$(cat "$T/.err")
	junit_gate "$@"
}

junit_gate() {  # junit_gate CMD...: the JUnit of a finished command against its gate ($RC)
	case " $* " in *" $SKILLCI "*) ;; *) return 0 ;; esac
	# junit_gate.py looks only at skillci run, merge and report (the word
	# after the first argument that is the program): no need to start
	# Python for any other command.
	_jg_at=""
	for _jg_a in "$@"; do
		if [ -n "$_jg_at" ]; then
			_jg_at=$_jg_a
			break
		fi
		case "$_jg_a" in
		"$SKILLCI") _jg_at=1 ;;
		skillci|*/skillci) [ -f "$_jg_a" ] && _jg_at=1 ;;
		esac
	done
	case "$_jg_at" in run|merge|report) ;; *) return 0 ;; esac
	[ -f "$T/.run_start" ] || : > "$T/.run_start"
	if _jg=$(python3 -S "$SKILLCI_ROOT/tests/e2e/junit_gate.py" "$RC" "$T/.run_start" "$@" 2>&1); then
		[ "$_jg" = checked ] && _jchecked=$((_jchecked + 1))
	else
		_tap not-ok "the JUnit's failures agree with the gate" "$_jg"
	fi
	return 0
}

_detail() {
	printf 'command exit %s\n--- stdout\n%s\n--- stderr\n%s\n' "$RC" "$OUT" "$ERR"
}

expect_exit() {  # expect_exit CODE NAME
	if [ "$RC" -eq "$1" ]; then _tap ok "$2"; else _tap not-ok "$2" "expected exit $1; $(_detail)"; fi
}
expect_out_contains() {  # expect_out_contains TEXT NAME
	case "$OUT" in *"$1"*) _tap ok "$2" ;; *) _tap not-ok "$2" "stdout lacks '$1'; $(_detail)" ;; esac
}
expect_err_contains() {
	case "$ERR" in *"$1"*) _tap ok "$2" ;; *) _tap not-ok "$2" "stderr lacks '$1'; $(_detail)" ;; esac
}
expect_out_lacks() {
	case "$OUT" in *"$1"*) _tap not-ok "$2" "stdout has '$1'; $(_detail)" ;; *) _tap ok "$2" ;; esac
}
expect_err_lacks() {
	case "$ERR" in *"$1"*) _tap not-ok "$2" "stderr has '$1'; $(_detail)" ;; *) _tap ok "$2" ;; esac
}
expect_file() {  # expect_file PATH NAME
	if [ -f "$1" ]; then _tap ok "$2"; else _tap not-ok "$2" "missing file $1"; fi
}
expect_same() {  # expect_same EXPECTED_FILE ACTUAL_FILE NAME (golden compare)
	if cmp -s "$1" "$2"; then _tap ok "$3"; else _tap not-ok "$3" "$(diff -u "$1" "$2" | head -n 40)"; fi
}
check() {  # check NAME COMMAND...: passes when the command exits 0
	_name=$1; shift
	if "$@" > "$T/.chk" 2>&1; then _tap ok "$_name"; else _tap not-ok "$_name" "$(cat "$T/.chk")"; fi
}
skip() {  # skip NAME REASON
	_n=$((_n + 1))
	echo "ok $_n - $1 # SKIP $2"
}

# Starts the fake model server (tests/fakes/fake_models.py) on a free
# loopback port with SCRIPT; sets FAKE_URL and FAKE_PID. Stopped at exit.
done_testing() {
	[ "$_jchecked" -gt 0 ] &&
		_tap ok "JUnit failures = 0 exactly when the gate passed, in all $_jchecked commands that wrote one"
	echo "1..$_n"
	[ "$_fail" -eq 0 ]
}
