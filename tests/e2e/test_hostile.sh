# Hostile repositories, built here at run time: symlink loops and links to
# /etc, a 1 GB sparse file, 100,000 files in one skill, test files that
# point at ../../secret, a skill whose scripts/ would delete a file if run,
# and git trees with ".." entries and a name that is a file at one revision
# and a folder at the next. skillci (validate, list, changed, eval, and run
# when it is built) must stay bounded in CPU time and memory, read nothing
# outside the repository, run nothing from it, leak no secret into what it
# writes, and say why it skipped or refused what it did.
#
# Bounds are caps only a runaway would hit (ulimit -t of CPU seconds, a
# peak RSS from /usr/bin/time well above what the command needs), never
# timings. strace, when present, shows every open and exec.
. tests/e2e/lib.sh

ROOT=$SKILLCI_ROOT
CPU_CAP=120            # CPU seconds per command (ulimit -t)
RSS_CAP_KB=1500000     # peak RSS per command, sanitizer builds included
export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
mkdir -p "$HOME"

# Secrets outside the repository: their content must never show up.
OUTSIDE_SECRET=OUTSIDE-CANARY-7f3a91
TOP_SECRET=TOP-SECRET-92b1c4
TREE_SECRET=TREE-SECRET-e8d2
mkdir -p "$T/outside"
echo "$OUTSIDE_SECRET" > "$T/outside/secret.txt"
echo "$TOP_SECRET" > "$T/secret"
echo "keep me" > "$T/canary"

R="$T/repo"
mkdir -p "$R/skills"
git init -q "$R"
mk() {  # mk NAME: a valid skill
	mkdir -p "$R/skills/$1"
	printf -- '---\nname: %s\ndescription: A hostile test skill named %s.\n---\n# %s\n\nBody.\n' \
		"$1" "$1" "$1" > "$R/skills/$1/SKILL.md"
}

# Symlinks: a loop, a link to its own folder, links to /etc and outside.
mk loops
ln -s b "$R/skills/loops/a"
ln -s a "$R/skills/loops/b"
ln -s . "$R/skills/loops/self"
ln -s /etc "$R/skills/loops/etc"
ln -s /etc/passwd "$R/skills/loops/passwd"
ln -s ../../../outside/secret.txt "$R/skills/loops/secret.txt"

# A 1 GB sparse file.
mk sparse
truncate -s 1G "$R/skills/sparse/big.bin"

# 100,000 files in one skill.
mk many
python3 - "$R/skills/many/f" <<'EOF'
import os, sys
os.makedirs(sys.argv[1])
for i in range(100000):
    open(os.path.join(sys.argv[1], "%06d.txt" % i), "w").close()
EOF

# Test files reaching out of the skill: relative, absolute and via a link.
mk escape
cat > "$R/skills/escape/skill_meta.json" <<'EOF'
{"tests": [{"input": "read it", "expected": {"contains": ["x"]}, "files": ["../../secret"]},
           {"input": "read other", "expected": {"contains": ["x"]}, "files": ["../../../outside/secret.txt"]},
           {"input": "abs", "expected": {"contains": ["x"]}, "files": ["/etc/passwd"]},
           {"input": "link", "expected": {"contains": ["x"]}, "files": ["link.txt"]},
           {"input": "fine", "expected": {"contains": ["fine"]}}]}
EOF
ln -s ../../../secret "$R/skills/escape/link.txt"
mkdir -p "$R/skills/escape/tests"
printf '{"cases": [{"input": "suite", "verifiers": [{"type": "contains", "value": "s"}], "files": ["../../../../secret"]}]}\n' \
	> "$R/skills/escape/tests/suite.json"

# scripts/ that would delete the canary and leave a marker if anything ran them.
mk deleter
mkdir -p "$R/skills/deleter/scripts"
cat > "$R/skills/deleter/scripts/cleanup.sh" <<EOF
#!/bin/sh
touch "$T/ran-marker"
rm -f "$T/canary"
EOF
chmod +x "$R/skills/deleter/scripts/cleanup.sh"
cp "$R/skills/deleter/scripts/cleanup.sh" "$R/skills/deleter/scripts/setup"
printf '{"tests": [{"input": "run scripts/cleanup.sh please", "expected": {"contains": ["done"]}}]}\n' \
	> "$R/skills/deleter/skill_meta.json"

have_time=0
[ -x /usr/bin/time ] && have_time=1
have_strace=0
command -v strace > /dev/null 2>&1 && strace -qq -o /dev/null true 2> /dev/null && have_strace=1

# bounded NAME CMD...: runs CMD under the CPU cap (in a subshell), with
# /usr/bin/time and strace when present; sets OUT, ERR, RC like run(), and
# RSS_KB (0 when unmeasured) and TRACE (the strace log, or "").
bounded() {
	_bname=$1; shift
	TRACE=""
	_pre=""
	if [ "$have_strace" = 1 ]; then
		TRACE="$T/trace.$_bname"
		# LeakSanitizer cannot run under ptrace: leaks are checked elsewhere
		_pre="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=open,openat,execve -o $TRACE"
	fi
	: > "$T/.run_start"
	if [ "$have_time" = 1 ]; then
		(ulimit -t $CPU_CAP; cd "$R" && /usr/bin/time -f '%M' -o "$T/.rss" $_pre "$@") > "$T/.out" 2> "$T/.err"
		RC=$?
		RSS_KB=$(tail -n 1 "$T/.rss")
	else
		(ulimit -t $CPU_CAP; cd "$R" && $_pre "$@") > "$T/.out" 2> "$T/.err"
		RC=$?
		RSS_KB=0
	fi
	OUT=$(cat "$T/.out")
	ERR=$(cat "$T/.err")
	cat "$T/.out" "$T/.err" >> "$T/all-output"
	junit_gate "$@"
}

# Checks shared by every command: bounded memory, no reads of the planted
# secrets or /etc/passwd, no exec of anything but skillci, canary intact.
expect_contained() {  # expect_contained NAME
	if [ "$RC" -ge 128 ] || [ "$RC" = 124 ]; then
		_tap not-ok "$1: not killed by a limit" "exit $RC (CPU cap ${CPU_CAP}s)"
	else
		_tap ok "$1: not killed by a limit"
	fi
	if [ "$have_time" = 1 ]; then
		if [ "${RSS_KB:-0}" -lt "$RSS_CAP_KB" ]; then _tap ok "$1: peak RSS ${RSS_KB} kB under the cap"
		else _tap not-ok "$1: peak RSS under the cap" "peak RSS ${RSS_KB} kB >= $RSS_CAP_KB kB"; fi
	else
		skip "$1: peak RSS" "/usr/bin/time not installed"
	fi
	if [ -n "$TRACE" ]; then
		_bad=$(grep -E 'open(at)?\(' "$TRACE" | grep -v ENOENT |
			grep -E "\"($T/outside|$T/secret|/etc/passwd|/etc/shadow|$R/skills/loops/(etc|passwd|secret.txt)|$R/skills/escape/link.txt)" | head -n 5)
		if [ -z "$_bad" ]; then _tap ok "$1: opens nothing outside the repository"
		else _tap not-ok "$1: opens nothing outside the repository" "$_bad"; fi
		_exe=$(grep 'execve(' "$TRACE" | grep -v "execve(\"$SKILLCI\"" | head -n 5)
		if [ -z "$_exe" ]; then _tap ok "$1: executes nothing but skillci"
		else _tap not-ok "$1: executes nothing but skillci" "$_exe"; fi
	else
		skip "$1: opens nothing outside the repository" "strace not available"
		skip "$1: executes nothing but skillci" "strace not available"
	fi
	if [ -f "$T/canary" ] && [ ! -e "$T/ran-marker" ]; then _tap ok "$1: scripts/ never ran (canary intact)"
	else _tap not-ok "$1: scripts/ never ran (canary intact)" "$(ls -la "$T")"; fi
}

# ---- validate ----
bounded validate "$SKILLCI" validate -v skills
expect_exit 1 "validate: findings are errors (exit 1)"
expect_contained validate
expect_err_contains "5 skills" "validate: every skill is discovered"
expect_out_contains "symlink 'skills/loops/a' -> 'b' is part of a loop; ignored [symlink-loop]" "validate: a symlink loop is named and ignored"
expect_out_contains "'skills/loops/etc' -> '/etc' resolves outside the root; not followed [symlink-escape]" "validate: a link to /etc is not followed"
expect_out_contains "'skills/loops/secret.txt' -> '../../../outside/secret.txt' resolves outside the root" "validate: a link out of the repository is not followed"
expect_err_contains "skipped skills/loops/self: symlink to a folder (not followed)" "validate -v: says why it skipped a folder link"
expect_out_contains "skills/many: warning: more than 20000 files in the skill; the rest are not listed [files-limit]" "validate: 100,000 files stop at the listing limit, with a warning"
expect_out_contains "'../../secret' is not a relative path inside the skill folder; refused [test-path]" "validate: a test file reaching ../../secret is refused"
expect_out_contains "'/etc/passwd' is not a relative path inside the skill folder; refused [test-path]" "validate: an absolute test file path is refused"
expect_out_contains "'link.txt' leads outside the skill folder (symlink); refused [test-path]" "validate: a test file linking out is refused"
expect_out_contains "tests/suite.json" "validate: a suite in tests/ reaching out is refused too"
expect_out_lacks "skills/sparse" "validate: a 1 GB sparse file is no finding (SKILL.md alone is read)"

bounded validate-strict "$SKILLCI" validate --json skills
expect_exit 1 "validate --json: exit 1"
check "validate --json: the output is one JSON document" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/.out"

# ---- list ----
bounded list "$SKILLCI" list -d skills -v
expect_exit 0 "list: exit 0"
expect_contained list
expect_out_contains "SKILL.md: 3 body lines, ~4 tokens; 20000 files" "list: 100,000 files are listed up to the limit"
expect_out_lacks "loops/etc" "list: a link to /etc is not listed as a file"
expect_out_contains "scripts/cleanup.sh" "list: scripts are listed as files, not run"

# ---- eval (the oracle self-test: no model, no network) ----
for s in escape deleter loops many; do
	bounded "eval-$s" "$SKILLCI" eval "skills/$s" -m oracle.self --store "$T/results.db" \
		--cache "$T/cache" --json "$T/eval-$s.json"
	expect_exit 0 "eval $s: exit 0"
	expect_contained "eval $s"
	check "eval $s: results JSON parses" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/eval-$s.json"
done
bounded eval-escape2 "$SKILLCI" eval skills/escape -m oracle.self --store "$T/results.db" --no-reuse --no-cache
expect_err_contains "tests[0].files[0] '../../secret' is not a relative path inside the skill folder; refused [test-path]" \
	"eval: says why the escaping test is left out"
expect_out_contains "escape on oracle.self (1 tests x 1 to 50 runs, sequential)" "eval: only the one safe test is evaluated"
bounded eval-sparse "$SKILLCI" eval skills/sparse -m oracle.self --store "$T/results.db" --no-cache
expect_exit 2 "eval of a skill with a 1 GB file: refused as bad input (exit 2)"
expect_contained "eval sparse"
expect_err_contains "'skills/sparse/big.bin' is 1073741824 bytes, more than the limit of" "eval: names the oversized file and the limit"

# ---- git trees: ".." entries, a name that is a file then a folder ----
G="$T/git"
git init -q "$G"
mkdir -p "$G/skills/ok"
cp "$R/skills/loops/SKILL.md" "$G/skills/ok/SKILL.md"
sed -i 's/loops/ok/g' "$G/skills/ok/SKILL.md"
echo plain > "$G/skills/foo"
git -C "$G" add -A && git -C "$G" commit -qm base
A=$(git -C "$G" rev-parse HEAD)
md=$(git -C "$G" rev-parse HEAD:skills/ok/SKILL.md)
secret=$(echo "$TREE_SECRET" | git -C "$G" hash-object -w --stdin)
# git mktree refuses these names; write the tree object byte by byte.
evil=$(python3 - "$md" "$secret" <<'EOF' | git -C "$G" hash-object -t tree --literally -w --stdin
import sys
def ent(mode, name, sha):
    return mode + b" " + name + b"\0" + bytes.fromhex(sha)
sys.stdout.buffer.write(ent(b"100644", b"..", sys.argv[2]) +
                        ent(b"100644", b"../../escaped", sys.argv[2]) +
                        ent(b"100644", b"SKILL.md", sys.argv[1]))
EOF
)
foo=$(printf '100644 blob %s\tSKILL.md\n' "$md" | git -C "$G" mktree)
ok=$(git -C "$G" rev-parse HEAD:skills/ok)
skills=$(printf '040000 tree %s\tevil\n040000 tree %s\tfoo\n040000 tree %s\tok\n' "$evil" "$foo" "$ok" | git -C "$G" mktree)
top=$(printf '040000 tree %s\tskills\n' "$skills" | git -C "$G" mktree)
B=$(git -C "$G" commit-tree "$top" -p "$A" -m hostile)
check "a tree entry named '..' was planted" sh -c "git -C '$G' ls-tree $evil | grep -q '	\.\.\$'"

R_SAVE=$R; R=$G
bounded changed "$SKILLCI" changed --base "$A" --head "$B" --json
expect_exit 0 "changed over a tree with '..' entries: exit 0"
expect_contained changed
check "changed: JSON lists skills/evil and skills/foo as added" python3 -c "
import json, sys
d = {s['path']: s['status'] for s in json.load(open(sys.argv[1]))}
assert d == {'skills/evil': 'added', 'skills/foo': 'added'}, d" "$T/.out"
bounded changed-back "$SKILLCI" changed --two-dot --base "$B" --head "$A"
expect_exit 0 "changed from the folder back to the file: exit 0"
expect_out_contains "deleted   skills/foo" "changed: a skill folder that becomes a file is deleted"
R=$R_SAVE
check "nothing named by a '..' entry was written anywhere" sh -c "! find '$T' -name escaped | grep -q ."

# ---- run (the PR check), when this build has it ----
if "$SKILLCI" run --help > /dev/null 2>&1; then
	R=$G
	bounded run "$SKILLCI" run --base "$A" --head "$B" -m oracle.self --store "$T/run.db" --no-cache \
		--json "$T/run.json" --junit "$T/run.xml" --markdown "$T/run.md" --html "$T/run-html"
	expect_contained run
	expect_exit 1 "run over a tree with a '..' entry: that skill fails the gate (exit 1)"
	expect_err_contains "refusing unsafe name '..'" "run: says why it refused the '..' entry"
	check "run: the unreadable skill fails the gate by name; the others are still checked" \
		python3 - "$T/run.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
f = {(x["skill"], x["rule"]): x["message"] for x in r["gate"]["failures"]}
assert "cannot be read" in f[("skills/evil", "skill_invalid")], f
assert "refusing unsafe name '..'" in f[("skills/evil", "skill_invalid")], f
assert ("skills/foo", "skill_invalid") in f, f  # checked: its name is not its folder's
s = {x["path"]: x for x in r["skills"]}
assert not s["skills/evil"]["untested"], s["skills/evil"]
EOF
	check "run: nothing named by a '..' entry was written" sh -c "! find '$T' -name escaped | grep -q ."
	R=$R_SAVE
else
	skip "run over a hostile tree" "this build has no run command"
fi

# ---- secrets: nothing skillci wrote holds a planted secret ----
for s in "$OUTSIDE_SECRET" "$TOP_SECRET" "$TREE_SECRET" "root:x:0:0"; do
	check "no output, report, store or cache holds '$s'" sh -c \
		"! grep -rqa -- '$s' '$T/all-output' '$T/results.db' '$T/cache' $T/eval-*.json"
done
check "the canary survived every command" test -f "$T/canary"

done_testing
