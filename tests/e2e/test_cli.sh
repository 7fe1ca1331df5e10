# The command-line surface every command shares: --help, --version,
# help CMD, unknown commands, exit codes.
. tests/e2e/lib.sh

run "$SKILLCI" --version
expect_exit 0 "--version exits 0"
expect_out_contains "skillci $(cat VERSION)" "--version prints the VERSION file"

run "$SKILLCI" --help
expect_exit 0 "--help exits 0"
expect_out_contains "exit codes" "--help lists exit codes"

run "$SKILLCI"
expect_exit 2 "no command is a usage error"

run "$SKILLCI" frobnicate
expect_exit 2 "unknown command exits 2"
expect_err_contains "unknown command 'frobnicate'" "unknown command is named"

run "$SKILLCI" help frobnicate
expect_exit 2 "help for an unknown command exits 2"

# Every command in the table answers --help with its usage and exit 0.
for cmd in $("$SKILLCI" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'); do
	run "$SKILLCI" "$cmd" --help
	expect_exit 0 "$cmd --help exits 0"
	run "$SKILLCI" help "$cmd"
	expect_exit 0 "help $cmd exits 0"
done

# A reader that has gone away (skillci ... | head): the command ends by
# SIGPIPE, as other tools do, with no error message. The read end of the
# pipe is closed before skillci writes, so every write is EPIPE.
check "a closed stdout pipe ends the command by SIGPIPE, silently" python3 -c '
import os, signal, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run([sys.argv[1], "help", "models"], stdout=w, stderr=subprocess.PIPE)
assert p.returncode == -signal.SIGPIPE, p.returncode
assert p.stderr == b"", p.stderr
' "$SKILLCI"

# Bad options, every command the same way: exactly one error line naming
# the option (getopt prints nothing of its own), the usage hint, exit 2.
# Each case: the expected error, a tab, the arguments.
while IFS='	' read -r want args; do
	[ -n "$want" ] || continue
	# shellcheck disable=SC2086
	run "$SKILLCI" $args < /dev/null
	cmd=${args%% *}
	expect_exit 2 "$args: exit 2"
	check "$args: one error line, '$want'" test "$ERR" = "error: $want
see 'skillci $cmd --help'"
done <<'EOF'
unknown option '--bogus'	changed --bogus
unknown option '--bogus'	ask --bogus
unknown option '--bogus'	report --bogus
unknown option '--bogus'	validate --bogus
unknown option '--bogus'	list --bogus
unknown option '--bogus'	eval --bogus
unknown option '--bogus'	runs --bogus
unknown option '--bogus'	kernel --bogus
unknown option '--bogus'	fixtures --bogus
unknown option '--bogus'	generate --bogus
unknown option '--bogus'	export --bogus
unknown option '--bogus'	run --bogus
unknown option '--bogus'	merge --bogus
unknown option '--bogus'	store --bogus
unknown option '--bogus'	merge a.json --bogus=1
unknown option '-z'	list -vz
unknown option '-q'	ask -qm haiku
option '--ru' is ambiguous; spell it out	eval --ru 3 s
option '--strict' takes no value	validate --strict=yes s
option '--repo' needs a value	changed --repo
option '--model' needs a value	ask --model
option '-m' needs a value	ask -m
option '--junit' needs a value	report r.json --junit
option '--dir' needs a value	list --dir
option '--runs' needs a value	eval s --runs
option '--store' needs a value	runs --store
option '--arch' needs a value	kernel softmax k.cu --arch
option '--fixtures' needs a value	fixtures list --fixtures
option '--model' needs a value	generate task --model
option '--output' needs a value	export --output
option '--runs' needs a value	run --runs
option '--config' needs a value	merge a.json --config
option '--max-tokens' wants a whole number from 1 to 1000000, not '3x'	ask -m haiku --max-tokens 3x hi
option '--attempts' wants a whole number from 1 to 100, not '101'	ask -m haiku --attempts 101 hi
option '--runs' wants a whole number from 1 to 1000, not '3x'	eval --runs 3x s
option '--concurrency' wants a whole number from 1 to 1000, not '1001'	eval --concurrency 1001 s
option '--max-turns' wants a whole number from 1 to 1000, not '2.5'	eval --max-turns 2.5 s
option '--runs' wants a whole number from 1 to 100, not '3x'	generate --runs 3x task
option '--max-refine' wants a whole number from 0 to 20, not '-1'	generate --max-refine -1 task
option '--seeds' wants a whole number from 1 to 100, not '3x'	kernel --seeds 3x softmax k.cu
option '--timeout' wants a whole number from 1 to 86400, not '0'	kernel --timeout 0 softmax k.cu
option '--runs' wants a whole number from 1 to 1000, not '3x'	run --runs 3x
option '--jobs' wants a whole number from 1 to 64, not '0'	run --jobs 0
option '--retries' wants a whole number from 0 to 20, not '99999999999'	run --retries 99999999999
option '--shard-count' wants a whole number from 1 to 10000, not '0'	run --shard-count=0
option '--max-units' wants a whole number from 1 to 10000000, not '1e3'	run --max-units 1e3
option '--runs' wants a whole number from 1 to 1000, not ''	eval --runs= s
EOF

# Each command's options are declared once, in its table; the synopsis in
# the docs is the usage line that table prints, word for word (without
# "usage: "), so a flag added, renamed or dropped fails here until the
# page says so too.
while read -r cmd page; do
	check "docs/$page shows the usage line of 'skillci $cmd --help'" python3 -c '
import subprocess, sys
cmd, page = sys.argv[2], sys.argv[3]
out = subprocess.run([sys.argv[1], cmd, "--help"], capture_output=True, text=True).stdout
lines = out.split("\n\n")[0].split("\n")
want = "\n".join([lines[0][len("usage: "):]] + [l[len("usage: "):] for l in lines[1:]])
text = open(page).read()
assert want in text, "%s has no\n%s" % (page, want)
' "$SKILLCI" "$cmd" "docs/$page"
done <<'EOF'
run run.md
merge run.md
eval evaluation.md
runs evaluation.md
report reports.md
changed changed.md
generate generate.md
export generate.md
ask providers.md
validate skills.md
list skills.md
EOF

done_testing
