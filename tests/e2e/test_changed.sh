# skillci changed: repositories built here with the git command line, then
# the command's text and JSON output, GitHub event files, clones (file://,
# shallow) and every bad-input case with its exit code.
. tests/e2e/lib.sh

export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
export GIT_CONFIG_NOSYSTEM=1 HOME="$T/home"
unset GITHUB_EVENT_PATH GITHUB_TOKEN SKILLCI_GIT_TOKEN
mkdir -p "$HOME"
g() { git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main \
	-c protocol.file.allow=always "$@"; }
skill() { mkdir -p "$1" && printf -- '---\nname: %s\ndescription: %s skill\n---\n# %s\n' \
	"$(basename "$1")" "$(basename "$1")" "$1" > "$1/SKILL.md"; }

R="$T/repo"
mkdir -p "$R" && cd "$R" || exit 1
{
	g init -q
	skill skills/alpha; skill skills/beta; skill skills/gamma; skill "skills/with space"
	skill skills/mover; seq 1 200 > skills/mover/data.txt
	mkdir -p skills/gamma/references skills/alpha/assets
	echo ref > skills/gamma/references/guide.md
	head -c 4096 /dev/urandom > skills/alpha/assets/logo.bin
	echo 'runs: 1' > skillci.yml
	g add -A && g commit -qm base && g tag v1
	# one commit touching every kind of change
	head -c 4096 /dev/urandom > skills/alpha/assets/logo.bin
	g rm -rq skills/beta
	echo more >> skills/gamma/references/guide.md
	g mv skills/mover skills/moved
	skill skills/delta; echo 'new skill, new words' >> skills/delta/SKILL.md
	echo edit >> "skills/with space/SKILL.md"
	skill "skills/ünï"
	g add -A && g commit -qm change
} > "$T/setup.log" 2>&1 || { cat "$T/setup.log"; exit 1; }
cd "$SKILLCI_ROOT" || exit 1

run "$SKILLCI" changed --repo "$R" --base v1 --head HEAD
expect_exit 0 "changed exits 0"
printf '%s\n' "modified  skills/alpha" "deleted   skills/beta" "added     skills/delta" \
	"modified  skills/gamma" "renamed   skills/mover -> skills/moved" \
	"modified  skills/with space" "added     skills/ünï" > "$T/want.txt"
printf '%s\n' "$OUT" > "$T/got.txt"
expect_same "$T/want.txt" "$T/got.txt" "text lists every changed skill with its status, sorted"

run "$SKILLCI" changed --repo "$R/skills" --base HEAD~1
expect_exit 0 "a folder inside the work tree finds the repository"
expect_out_contains "renamed   skills/mover -> skills/moved" "default head is HEAD"

run "$SKILLCI" changed --repo "$R" --base v1 --json
expect_exit 0 "--json exits 0"
if command -v jq > /dev/null 2>&1; then
	printf '%s' "$OUT" > "$T/out.json"
	check "JSON rename has old_path and equal trees" sh -c \
		"jq -e '.[] | select(.status == \"renamed\") | .path == \"skills/moved\" and .old_path == \"skills/mover\" and .base_tree == .head_tree' '$T/out.json'"
	check "JSON deleted skill has no head tree" sh -c \
		"jq -e '.[] | select(.path == \"skills/beta\") | .status == \"deleted\" and .head_tree == null and (.base_tree | length) == 40' '$T/out.json'"
	check "JSON tree ids are git's tree ids" sh -c \
		"[ \"\$(jq -r '.[] | select(.path == \"skills/alpha\") | .head_tree' '$T/out.json')\" = \"\$(git -C '$R' rev-parse HEAD:skills/alpha)\" ]"
	check "JSON carries name and status for all 7" sh -c \
		"jq -e 'length == 7 and all(.[]; has(\"name\") and has(\"status\") and has(\"old_path\"))' '$T/out.json'"
else
	skip "JSON checks" "jq not installed"
fi

run "$SKILLCI" changed --repo "$R" --all
expect_exit 0 "--all without a base lists skills at head"
expect_out_contains "unchanged skills/moved" "--all lists unchanged skills"
expect_out_lacks "skills/beta" "--all lists only skills at head"

# A config change marks every skill.
(cd "$R" && echo 'runs: 5' > skillci.yml && g commit -qam config) > /dev/null 2>&1
run "$SKILLCI" changed --repo "$R" --base HEAD~1
expect_out_contains "modified  skills/moved" "a config change marks every skill"
expect_out_contains "modified  skills/ünï" "a config change marks new skills too"

# Submodule and escaping symlink inside a skill: listed, nothing followed.
(cd "$R" && ln -s ../../../etc/passwd skills/alpha/leak && g add -A &&
	g update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,skills/gamma/vendor &&
	g commit -qm links) > /dev/null 2>&1
run "$SKILLCI" changed --repo "$R" --base HEAD~1
expect_exit 0 "symlink and submodule changes are read"
printf '%s\n' "modified  skills/alpha" "modified  skills/gamma" > "$T/want.txt"
printf '%s\n' "$OUT" > "$T/got.txt"
expect_same "$T/want.txt" "$T/got.txt" "a symlink and a submodule mark their skills"
(cd "$R" && g rm -q --cached skills/gamma/vendor && g commit -qm unvendor) > /dev/null 2>&1

# Merge commits: the merge base hides main's own changes.
(cd "$R" && g checkout -qb feature && echo f >> skills/delta/SKILL.md && g commit -qam feat &&
	g checkout -q main && echo m >> skills/moved/SKILL.md && g commit -qam main &&
	g checkout -q feature && g merge -q --no-edit main && echo f2 >> skills/delta/SKILL.md &&
	g commit -qam feat2 && g checkout -q main && echo m2 >> skills/moved/SKILL.md && g commit -qam main2) \
	> /dev/null 2>&1
run "$SKILLCI" changed --repo "$R" --base main --head feature
expect_exit 0 "merge-base comparison exits 0"
printf '%s\n' "$OUT" > "$T/got.txt"
printf '%s\n' "modified  skills/delta" > "$T/want.txt"
expect_same "$T/want.txt" "$T/got.txt" "--merge-base (default) shows only the branch's skills"
run "$SKILLCI" changed --repo "$R" --base main --head feature --two-dot
printf '%s\n' "$OUT" > "$T/got.txt"
printf '%s\n' "modified  skills/delta" "modified  skills/moved" > "$T/want.txt"
expect_same "$T/want.txt" "$T/got.txt" "--two-dot also shows main's later change"

# GitHub Actions event files.
base=$(git -C "$R" rev-parse main) head=$(git -C "$R" rev-parse feature)
printf '{"pull_request":{"base":{"sha":"%s"},"head":{"sha":"%s"}}}' "$base" "$head" > "$T/pr.json"
GITHUB_EVENT_PATH="$T/pr.json" run "$SKILLCI" changed --repo "$R"
expect_exit 0 "pull_request event gives the revisions"
expect_out_contains "modified  skills/delta" "pull_request event compares with the merge base"
expect_out_lacks "skills/moved" "pull_request event excludes base-only changes"
printf '{"before":"%s","after":"%s"}' "$(git -C "$R" rev-parse main~1)" "$base" > "$T/push.json"
run env GITHUB_EVENT_PATH="$T/push.json" "$SKILLCI" changed --repo "$R"
printf '%s\n' "$OUT" > "$T/got.txt"
printf '%s\n' "modified  skills/moved" > "$T/want.txt"
expect_same "$T/want.txt" "$T/got.txt" "push event compares before and after"
printf '{"before":"0000000000000000000000000000000000000000","after":"%s"}' "$(git -C "$R" rev-parse v1)" > "$T/first.json"
run env GITHUB_EVENT_PATH="$T/first.json" "$SKILLCI" changed --repo "$R"
printf '%s\n' "$OUT" > "$T/got.txt"
printf '%s\n' "added     skills/alpha" "added     skills/beta" "added     skills/gamma" \
	"added     skills/mover" "added     skills/with space" > "$T/want.txt"
expect_same "$T/want.txt" "$T/got.txt" "first push (zero before) lists every skill as added"
echo '{"inputs":{}}' > "$T/dispatch.json"
run env GITHUB_EVENT_PATH="$T/dispatch.json" "$SKILLCI" changed --repo "$R"
expect_exit 2 "an event without revisions exits 2"
expect_err_contains "dispatch.json" "the event file is named"

# Bad input.
run "$SKILLCI" changed --repo "$R" --base no-such-rev
expect_exit 2 "a bad base revision exits 2"
expect_err_contains "'no-such-rev'" "the bad revision is named"
run "$SKILLCI" changed --repo "$R" --base HEAD --head deadbeef
expect_exit 2 "a bad head revision exits 2"
expect_err_contains "'deadbeef'" "the bad head is named"
mkdir -p "$T/plain"
run "$SKILLCI" changed --repo "$T/plain" --base HEAD
expect_exit 2 "a non-repository exits 2"
expect_err_contains "'$T/plain' is not a git repository" "the non-repository is named"
run "$SKILLCI" changed --repo "$R"
expect_exit 2 "no base and no event is a usage error"
run "$SKILLCI" changed --frobnicate
expect_exit 2 "an unknown option exits 2"
run "$SKILLCI" changed --repo "$R" --base HEAD extra
expect_exit 2 "a stray argument exits 2"

# Bare repository, shallow clone and a file:// clone into the cache.
g clone -q --bare "$R" "$T/bare.git" > /dev/null 2>&1
run "$SKILLCI" changed --repo "$T/bare.git" --base main~1 --head main
expect_exit 0 "a bare repository is read"
expect_out_contains "modified  skills/moved" "a bare repository gives the same answer"

g clone -q --depth 2 --no-local "file://$R" "$T/shallow" > /dev/null 2>&1
run "$SKILLCI" changed --repo "$T/shallow" --base HEAD~1
expect_exit 0 "a shallow clone compares commits it has"
expect_out_contains "modified  skills/moved" "a shallow clone lists the change"
run "$SKILLCI" changed --repo "$T/shallow" --base HEAD~5
expect_exit 2 "a revision beyond the shallow depth exits 2"
expect_err_contains "'HEAD~5'" "the missing revision is named"

run "$SKILLCI" changed --repo "file://$R" --cache-dir "$T/cache" --base main~1 --head main
expect_exit 0 "a file:// URL is cloned into the cache"
expect_out_contains "modified  skills/moved" "the clone gives the same answer"
(cd "$R" && echo m3 >> skills/alpha/SKILL.md && g commit -qam later) > /dev/null 2>&1
run "$SKILLCI" changed --repo "file://$R" --cache-dir "$T/cache" --base origin/main~1 --head origin/main
expect_exit 0 "a second run fetches into the cached clone"
expect_out_contains "modified  skills/alpha" "the fetched commit is seen"
run "$SKILLCI" changed --repo "file://$T/nowhere" --cache-dir "$T/cache" --base HEAD
expect_exit 2 "a file:// URL that is not a repository exits 2"
expect_err_contains "nowhere" "the missing repository is named"
run "$SKILLCI" changed --repo "https://127.0.0.1:1/r.git" --cache-dir "$T/cache" --base HEAD
expect_exit 3 "an unreachable https URL is an infrastructure failure"

done_testing
