# Where reports go, as users mean the paths: a device or a FIFO is written
# in place and never replaced, `-` is stdout, a regular file is replaced
# atomically, a symlink is replaced by the new file; the .skillci folder
# ignores itself in git; a mistyped command gets a suggestion; a plain
# make before make deps says what is missing.
. tests/e2e/lib.sh

IN=tests/golden/inputs/pr.json
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY

# The reference of each report kind, written to regular files.
run "$SKILLCI" report "$IN" --junit "$T/ref.xml" --markdown "$T/ref.md" \
	--markdown-full "$T/ref-full.md" --json "$T/ref.json"
expect_exit 0 "the reports are written to regular files"

# ---- a character device and a FIFO are written in place ---------------------
if [ "$(id -u)" != 0 ]; then
	skip "a device node and a FIFO stay what they are" "not root: mknod needs root"
	skip "/dev/null stays a character device" "not root: only root can replace /dev/null"
else
	mknod "$T/null" c 1 3
	run "$SKILLCI" report "$IN" --junit "$T/null" --markdown "$T/null" \
		--markdown-full "$T/null" --json "$T/null"
	expect_exit 0 "every report kind can be written to a device node"
	check "the device node is still a character device" test -c "$T/null"
	check "no temporary file is left next to the node" \
		sh -c '! ls "$1" | grep -q "null\.tmp"' sh "$T"

	# One FIFO per report kind: its reader, started before, gets the whole
	# report (each kind is one open, one close: the reader's EOF).
	for kind in junit:ref.xml markdown:ref.md markdown-full:ref-full.md json:ref.json; do
		opt=${kind%%:*} ref=${kind#*:}
		mkfifo "$T/fifo-$opt"
		cat "$T/fifo-$opt" > "$T/got-$opt" &
		reader=$!
		run timeout 30 "$SKILLCI" report "$IN" "--$opt" "$T/fifo-$opt"
		expect_exit 0 "--$opt to a FIFO is written"
		# a FIFO replaced by a file leaves its reader waiting for a writer
		[ -p "$T/fifo-$opt" ] || kill "$reader" 2>/dev/null
		wait "$reader"
		check "--$opt: the FIFO is still a FIFO" test -p "$T/fifo-$opt"
		check "--$opt: the FIFO's reader got the whole report" cmp "$T/$ref" "$T/got-$opt"
	done

	run "$SKILLCI" report "$IN" --markdown /dev/null
	expect_exit 0 "--markdown /dev/null is written"
	check "/dev/null stays a character device" test -c /dev/null
	check "/dev/null stays the null device (1,3)" \
		test "$(stat -c '%t,%T' /dev/null)" = "1,3"
fi

# ---- `-` is stdout; the terminal summary then goes to stderr ----------------
run "$SKILLCI" report "$IN" --json -
expect_exit 0 "--json - is written"
check "--json - writes the results JSON, alone, to stdout" cmp "$T/ref.json" "$T/.out"
expect_err_contains "skills/" "the terminal summary goes to stderr then"
run "$SKILLCI" report "$IN" --markdown -
check "--markdown - writes the Markdown to stdout" cmp "$T/ref.md" "$T/.out"
# /dev/stdout and /dev/stderr are links of the system's: written through,
# never replaced (as root a rename would put a regular file there)
run "$SKILLCI" report "$IN" --markdown /dev/stdout
expect_exit 0 "--markdown /dev/stdout is written"
check "--markdown /dev/stdout writes the Markdown to stdout" cmp "$T/ref.md" "$T/.out"
check "/dev/stdout is still a link" test -L /dev/stdout
run "$SKILLCI" report "$IN" --json /dev/stderr
expect_exit 0 "--json /dev/stderr is written"
check "--json /dev/stderr writes the results JSON to stderr" grep -q '"schema"' "$T/.err"
check "/dev/stderr is still a link" test -L /dev/stderr

# ---- a regular file is replaced atomically ---------------------------------
printf 'old report\n' > "$T/reg.md"
ln "$T/reg.md" "$T/reg-old.md"
ino=$(stat -c %i "$T/reg.md")
run "$SKILLCI" report "$IN" --markdown "$T/reg.md"
check "a regular file gets the whole new report" cmp "$T/ref.md" "$T/reg.md"
check "a regular file is replaced by rename (a new inode)" \
	test "$(stat -c %i "$T/reg.md")" != "$ino"
check "the old file is never written into (its other link keeps the old report)" \
	test "$(cat "$T/reg-old.md")" = "old report"

# ---- a symlink is replaced by the new file; what it points to is untouched --
printf 'linked\n' > "$T/target.md"
ln -s target.md "$T/link.md"
run "$SKILLCI" report "$IN" --markdown "$T/link.md"
check "a symlink target is replaced by a regular file" \
	sh -c 'test -f "$1" && ! test -L "$1"' sh "$T/link.md"
check "the file a symlink pointed to is untouched" test "$(cat "$T/target.md")" = "linked"

# ---- skillci run: .skillci ignores itself; run's report paths too ----------
R="$T/repo"
mkdir -p "$R/skills/alpha"
git -C "$R" init -q -b main
git -C "$R" config user.email ci@example.com
git -C "$R" config user.name ci
printf -- '---\nname: alpha\ndescription: Answers alpha questions.\n---\n# alpha\n\nSay ok.\n' \
	> "$R/skills/alpha/SKILL.md"
echo '{"tests": [{"input": "Q1", "expected": {"contains": ["ok"]}}]}' > "$R/skills/alpha/skill_meta.json"
git -C "$R" add -A && git -C "$R" commit -q -m base
BASE=$(git -C "$R" rev-parse HEAD)
echo "Say ok-alpha." >> "$R/skills/alpha/SKILL.md"
git -C "$R" commit -q -a -m head
HEAD_REV=$(git -C "$R" rev-parse HEAD)
set --
[ "$(id -u)" = 0 ] && mknod "$T/run-null" c 1 3 && set -- --junit "$T/run-null" --markdown "$T/run-null"
cd "$R" || exit 1
run "$SKILLCI" run --repo . -m oracle --base "$BASE" --head "$HEAD_REV" "$@"
expect_exit 0 "skillci run -m oracle passes in a fresh repository"
check ".skillci holds a .gitignore of '*'" test "$(cat .skillci/.gitignore)" = "*"
check "git status shows nothing under .skillci after a run" \
	sh -c '! git status --porcelain --untracked-files=all | grep -q "\.skillci"'
if [ $# -gt 0 ]; then
	check "run's --junit/--markdown to a device node leave it a character device" \
		test -c "$T/run-null"
fi
printf 'mine\n' > .skillci/.gitignore
run "$SKILLCI" run --repo . -m oracle --base "$BASE" --head "$HEAD_REV"
check "an existing .skillci/.gitignore is left as it is" test "$(cat .skillci/.gitignore)" = "mine"
cd "$SKILLCI_ROOT" || exit 1

# ---- make before make deps names what is missing ---------------------------
if command -v make > /dev/null; then
	nopkg() { env -u MAKEFLAGS -u MAKELEVEL PKG_CONFIG_PATH="$T/nowhere" \
		PKG_CONFIG_LIBDIR=/nonexistent make -n -C "$SKILLCI_ROOT" "$@"; }
	run nopkg
	expect_exit 2 "make without the pkg-config packages stops"
	expect_err_contains "pkg-config cannot find libgit2 libcurl libcjson" \
		"make names the missing pkg-config packages"
	expect_err_contains "run \`make deps\` first" "make says to run make deps"
	expect_out_lacks "cc " "make compiles nothing without the packages"
	run nopkg deps
	expect_exit 0 "make deps still works without the packages"
	expect_out_contains "install-deps.sh" "make deps runs the installer"
	run env -u MAKEFLAGS -u MAKELEVEL make -n -C "$SKILLCI_ROOT"
	expect_err_lacks "pkg-config cannot find" "with the packages make says nothing of them"
else
	skip "make before make deps" "make not installed"
fi

# ---- a mistyped command gets a suggestion ----------------------------------
while IFS='	' read -r typed want; do
	run "$SKILLCI" "$typed"
	expect_exit 2 "'$typed' is a usage error"
	check "'$typed': $want" test "$ERR" = "error: unknown command '$typed'; $want"
	run "$SKILLCI" help "$typed"
	check "help '$typed': $want" test "$ERR" = "error: unknown command '$typed'; $want"
done <<'EOF'
rnu	did you mean 'run'?
valdiate	did you mean 'validate'?
reprot	did you mean 'report'?
rus	did you mean 'run' or 'runs'?
frobnicate	see 'skillci --help'
x	see 'skillci --help'
EOF

# ---- action.yml uploads the default (hidden) report folder ----------------
check "action.yml's upload step includes hidden files" python3 -c '
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["runs"]["steps"]
up = [s for s in steps if "actions/upload-artifact@" in s.get("uses", "")]
assert up, "no upload step"
for s in up:
    assert s["with"].get("include-hidden-files") is True, s["with"]
' action.yml

done_testing
