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

done_testing
