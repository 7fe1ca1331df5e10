# fast-agent parity of model strings: every string of tests/parity/strings.txt
# read by fast-agent's own parser (ModelFactory.parse_model_string) at each
# supported version, in the virtual environments `make deps` made
# (tests/install-deps.sh), and by `skillci help models --fast-agent V
# --parse`: the same provider, model id and settings, or the same refusal,
# but for the differences tests/parity/differences.txt lists; skillci's
# canonical names read back by fast-agent as the same model; the alias
# tables generated from fast-agent's own; and the table in
# docs/providers.md made from these readings. A version that is not
# installed is skipped with the reason (no network at `make deps`).
. tests/e2e/lib.sh

P="$SKILLCI_ROOT/tests/parity"
FA=${SKILLCI_FAST_AGENT_DIR:-$HOME/.cache/skillci/fast-agent}
n=$(grep -cv '^#\|^$' "$P/strings.txt")
check "the list holds 100 strings or more ($n)" test "$n" -ge 100

for v in 0.4.53 0.6.7 0.10.48; do
	grep -v '^#\|^$' "$P/strings.txt" > "$T/names"
	run sh -c "'$SKILLCI' help models --fast-agent $v --parse < '$T/names'"
	expect_exit 0 "help models --parse reads the list at fast-agent $v"
	check "one reading a string at $v" test "$(printf '%s\n' "$OUT" | grep -c '"in":')" -eq "$n"
done
run "$SKILLCI" help models --fast-agent 0.5.0 --parse sonnet
expect_exit 2 "an unsupported fast-agent version is refused"
expect_err_contains "supported: 0.4.53, 0.6.7, 0.10.48" "the supported versions are named"

run python3 "$P/parity.py" doc --skillci "$SKILLCI" --check "$SKILLCI_ROOT/docs/providers.md"
expect_exit 0 "docs/providers.md's parity table is current"

have_all=1
for v in 0.4.53 0.6.7 0.10.48; do
	if [ ! -f "$FA/$v/.skillci-ok" ]; then
		have_all=0
		skip "parity with fast-agent $v" "fast-agent-mcp $v is not installed in $FA/$v (make deps installs it; it needs Python 3.13 and PyPI)"
		continue
	fi
	run python3 "$P/parity.py" check --skillci "$SKILLCI" --version "$v" --python "$FA/$v/bin/python" \
		--cache "$T/readings-$v.json"
	expect_exit 0 "fast-agent $v and skillci read every string alike, but the listed differences"
	expect_out_contains "fast-agent $v: $n strings" "fast-agent $v read all $n strings"
done

# the check bites: a difference taken off the list, a string read otherwise
if [ -f "$FA/0.6.7/.skillci-ok" ]; then
	grep -v ' sonnet?colour=red ' "$P/differences.txt" > "$T/differences.txt"
	run python3 "$P/parity.py" check --skillci "$SKILLCI" --version 0.6.7 \
		--python "$FA/0.6.7/bin/python" --differences "$T/differences.txt" --cache "$T/readings-0.6.7.json"
	expect_exit 1 "a difference that is not listed fails the check"
	expect_out_contains "'sonnet?colour=red': fast-agent reads anthropic.claude-sonnet-4-6" \
		"the failure says how each side read the string"
	printf 'all sonnet deliberately-wrong\n= deliberately-wrong planted\n' >> "$T/differences.txt"
	run python3 "$P/parity.py" check --skillci "$SKILLCI" --version 0.6.7 \
		--python "$FA/0.6.7/bin/python" --differences "$T/differences.txt" --cache "$T/readings-0.6.7.json"
	expect_out_contains "'sonnet': listed as a difference (deliberately-wrong) but both read" \
		"a listed difference that is none fails the check"
else
	skip "the parity check fails on an unlisted difference" "fast-agent-mcp 0.6.7 is not installed"
fi

if [ "$have_all" -eq 1 ]; then
	run python3 "$P/parity.py" tables --cache "0.4.53=$T/readings-0.4.53.json" \
		--cache "0.6.7=$T/readings-0.6.7.json" --cache "0.10.48=$T/readings-0.10.48.json"
	expect_exit 0 "runner/providers/model_tables.c is what fast-agent's own tables make"
else
	skip "model_tables.c against fast-agent's tables" "not every supported fast-agent is installed (make deps)"
fi
done_testing
