#!/bin/sh
# make demo: the PR check on a small example skill repository.
#
# It builds a git repository from skills/ (and fixtures/) with two commits:
#   base  the example skills as they are in this checkout;
#   head  a pull request that improves one skill and breaks another:
#         - commit-messages: SKILL.md gains a section on breaking changes
#           and refactors, and the two worked examples (reference answers)
#           that were wrong are corrected;
#         - cuda-kernels: SKILL.md's front matter renames the skill without
#           renaming its folder, which the Agent Skills rules forbid.
# then runs `skillci run` on it and prints where the reports are.
#
# Without ANTHROPIC_API_KEY or OPENAI_API_KEY the student is the `oracle`
# provider: a self-test of the harness that answers every test with the
# reference answer stored with the test (expected_output; for kernel tests
# the fixture's reference solution). Its pass rate therefore measures the
# skill's own worked examples, not a model; every report says so. With a
# key, a real model answers and the numbers are that model's.
set -u
skillci=${1:?usage: demo.sh SKILLCI}
root=$(cd "$(dirname "$0")/.." && pwd)
demo=${SKILLCI_DEMO_DIR:-$root/.skillci/demo}
repo=$demo/repo

if [ -n "${ANTHROPIC_API_KEY:-}" ]; then
	model=${SKILLCI_DEMO_MODEL:-anthropic.claude-haiku-4-5}
elif [ -n "${OPENAI_API_KEY:-}" ]; then
	model=${SKILLCI_DEMO_MODEL:-openai.gpt-4o-mini}
else
	model=oracle.self
fi

rm -rf "$demo"
mkdir -p "$repo/skills"
cp -R "$root/skills/commit-messages" "$root/skills/cuda-kernels" "$repo/skills/"
cp -R "$root/fixtures" "$repo/fixtures"
# The example config, with paths for a repository whose root holds skills/
# and fixtures/. The demo runs anywhere, most often without a GPU: its
# trusted config marks the runner compile-only (gate.compile_only), so the
# kernel skill's tests compile without failing as unverified, and every
# report says first that no kernel was run.
sed -e 's|^fixtures: ../fixtures.*|fixtures: fixtures|' \
    -e 's|^  require_lift: true$|&\n  compile_only: true    # this runner compiles kernels only (docs/run.md)|' \
    -e 's|- skill: cuda-kernels|- skill: skills/cuda-kernels|' \
    -e 's|- skill: commit-messages|- skill: skills/commit-messages|' \
    -e "s|^  model: anthropic.claude-haiku-4-5\$|  model: $model|" \
    "$root/skills/skillci.yml" > "$repo/skillci.yml"

# Base: the commit-messages examples carry reference answers, two of them
# wrong (a breaking change without its footer, a refactor typed "chore").
python3 - "$repo/skills/commit-messages/skill_meta.json" base <<'EOF'
import json, sys
path, side = sys.argv[1], sys.argv[2]
meta = json.load(open(path))
answers = {
    "feat": "feat(auth): add a password reset form to the login page",
    "fix": "fix(users): stop crashing when the user service returns null",
    "docs": "docs(readme): rewrite the installation section",
    "BREAKING CHANGE": "feat(api)!: remove the deprecated v1 API\n\nClients must move to /api/v2.",
    "refactor": "chore: split the long parse function into three",
}
if side == "head":
    answers["BREAKING CHANGE"] += "\n\nBREAKING CHANGE: the /api/v1 routes are gone; use /api/v2."
    answers["refactor"] = "refactor(parser): split the long parse function into three"
for t in meta["tests"]:
    t["expected_output"] = answers[t["expected"]["contains"][0]]
json.dump(meta, open(path, "w"), indent=2)
open(path, "a").write("\n")
EOF

git -C "$repo" init -q -b main
git -C "$repo" config user.email demo@skillci.invalid
git -C "$repo" config user.name "skillci demo"
git -C "$repo" add -A
git -C "$repo" commit -q -m "Example skills"
base=$(git -C "$repo" rev-parse HEAD)

git -C "$repo" checkout -q -b improve-and-break
python3 - "$repo/skills/commit-messages/skill_meta.json" head <<'EOF'
import json, sys
path = sys.argv[1]
meta = json.load(open(path))
for t in meta["tests"]:
    c = t["expected"]["contains"][0]
    if c == "BREAKING CHANGE":
        t["expected_output"] += "\n\nBREAKING CHANGE: the /api/v1 routes are gone; use /api/v2."
    if c == "refactor":
        t["expected_output"] = "refactor(parser): split the long parse function into three"
json.dump(meta, open(path, "w"), indent=2)
open(path, "a").write("\n")
EOF
cat >> "$repo/skills/commit-messages/SKILL.md" <<'EOF'

## Breaking changes and refactors

- A change that breaks callers gets `!` after the type and a
  `BREAKING CHANGE:` footer that says what to do instead.
- Restructuring code without changing behaviour is `refactor`, never
  `chore`.
EOF
sed -i 's/^name: cuda-kernels$/name: cuda-kernels-v2/' "$repo/skills/cuda-kernels/SKILL.md"
git -C "$repo" commit -q -a -m "Improve commit-messages; rename cuda-kernels"
head=$(git -C "$repo" rev-parse HEAD)

echo "== example skill repository: $repo"
echo "   base $base  the example skills"
echo "   head $head  improves commit-messages, breaks cuda-kernels"
echo
if [ "$model" = oracle.self ]; then
	echo "== no ANTHROPIC_API_KEY or OPENAI_API_KEY: the student is the oracle self-test."
	echo "   It answers each test with the reference answer stored with it, so the"
	echo "   pass rates below measure the skills' worked examples, not a model:"
	echo "   commit-messages' head corrects two wrong examples, which edits its"
	echo "   tests: the verdict uses the base's (60% at base and head) and the"
	echo "   corrected ones run beside it as PR tests (100%); cuda-kernels' head"
	echo "   renames the skill in SKILL.md without renaming its folder, which"
	echo "   fails the gate as an invalid skill. The demo's config marks this"
	echo "   runner compile-only: without a GPU no kernel is run, and the reports"
	echo "   say so in their first line."
else
	echo "== student model: $model"
fi
echo
echo "== skillci run --repo $repo --base $base --head $head -m $model"
cd "$demo" || exit 3
"$skillci" run --repo "$repo" --base "$base" --head "$head" -m "$model"
rc=$?
echo
echo "== skillci run exited $rc (0 pass, 1 gate failed, 2 bad input, 3 infrastructure)"
echo "   reports:"
for f in .skillci/report/report.md .skillci/report/junit.xml .skillci/report/report.html \
	 .skillci/report/index.html .skillci/report/results.json; do
	[ -f "$demo/$f" ] && echo "     $demo/$f"
done
case $rc in
0|1) exit 0 ;;  # the demo's PR is meant to fail its gate
*) exit "$rc" ;;
esac
