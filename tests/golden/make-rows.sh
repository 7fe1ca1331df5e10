#!/bin/sh
# Makes tests/golden/inputs/rows.json: the results of a real `skillci run`
# over a pull request that has one changed skill of every kind a report
# row can show, answered by the fake model server. Run on purpose only
# (the golden reports in expected/ are rendered from the file this
# writes); review the diff before committing. Run ids, times, latencies
# and revisions are replaced by fixed values so the file is stable.
#
#   sh tests/golden/make-rows.sh          # uses build/skillci
#
# The pull request (base -> head):
#   skills/improved   modified: right on 2 of 4 tests, then on 4 of 4
#   skills/regressed  modified: right on 8 of 8, then on 1 of 8 (fails the gate:
#                     enough tests that one run each shows the drop, not
#                     just leaves it inconclusive)
#   skills/added      added: right on 2 of 2 (no skill: 0 of 2)
#   skills/deleted    deleted
#   skills/old-name   renamed to skills/new-name (SKILL.md moved, a line added)
#   skills/untested   modified, no tests
#   skills/invalid    modified: SKILL.md's name no longer matches its folder
#   skills/legacy     modified: its description was over 1,024 characters at
#                     base and still is (pre-existing), and a broken link at
#                     base is fixed
#   skills/known-bad  modified: its second test fails at base and at head
#                     (already failing, not brought by the change)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
SKILLCI=${SKILLCI:-$root/build/skillci}
SKILLCI_ROOT=$root
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-rows.XXXXXX")
trap 'rm -rf "$T"' EXIT
export SKILLCI SKILLCI_ROOT T
. "$root/tests/fakes/fake.sh"

R=$T/repo
mkdir -p "$R"
git -C "$R" init -q -b main
git -C "$R" config user.email ci@example.com
git -C "$R" config user.name ci

skill() {  # skill NAME MARKER NTESTS [DESCRIPTION]
	mkdir -p "$R/skills/$1"
	cat > "$R/skills/$1/SKILL.md" <<EOF
---
name: $1
description: ${4:-Answers $1 questions with the $1 word.}
---
# $1

$2: always answer with the word ok-$1.
EOF
	[ "$3" -gt 0 ] || return 0
	python3 - "$R/skills/$1/skill_meta.json" "$1" "$3" <<'EOF'
import json, sys
path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tests = [{"input": "Q%d about %s %s" % (i, name, "[easy]" if i <= n // 2 else "[hard]"),
         "expected": {"contains": ["ok-" + name]}} for i in range(1, n + 1)]
json.dump({"tests": tests}, open(path, "w"), indent=1)
EOF
}
long=$(python3 -c "print('Answers legacy questions. ' + 'Long. ' * 180)")
skill improved IMPROVED-HALF 4
skill regressed REGRESSED-GOOD 8
skill deleted DELETED 2
skill old-name OLDNAME-GOOD 2
skill untested UNTESTED 0
skill invalid INVALID-GOOD 2
skill legacy LEGACY-GOOD 2 "$long"
skill known-bad KNOWNBAD-BASE 2
printf '\nSee [the guide](guide.md).\n' >> "$R/skills/legacy/SKILL.md"
# the trusted config allows deletions and untested skills, so the deleted
# row shows its check passed and the untested row is shown, not counted as
# failed (pr.json has the untested skill that fails)
printf 'version: 1\ngate: {allow_deletions: true, allow_untested: true}\n' > "$R/skillci.yml"
git -C "$R" add -A && git -C "$R" commit -q -m base
BASE=$(git -C "$R" rev-parse HEAD)

sed -i 's/IMPROVED-HALF/IMPROVED-GOOD/' "$R/skills/improved/SKILL.md"
sed -i 's/REGRESSED-GOOD/REGRESSED-BROKEN/' "$R/skills/regressed/SKILL.md"
git -C "$R" rm -q -r skills/deleted
skill added ADDED-GOOD 2
git -C "$R" mv skills/old-name skills/new-name
sed -i 's/^name: old-name$/name: new-name/' "$R/skills/new-name/SKILL.md"
printf '\nA line added with the move.\n' >> "$R/skills/new-name/SKILL.md"
printf '\nA new line.\n' >> "$R/skills/untested/SKILL.md"
sed -i 's/^name: invalid$/name: invalid-v2/' "$R/skills/invalid/SKILL.md"
sed -i 's/See \[the guide\](guide.md)./No guide yet./' "$R/skills/legacy/SKILL.md"
sed -i 's/KNOWNBAD-BASE/KNOWNBAD-HEAD/' "$R/skills/known-bad/SKILL.md"
git -C "$R" add -A && git -C "$R" commit -q -m head
HEAD=$(git -C "$R" rev-parse HEAD)

cat > "$T/script.json" <<'EOF'
{
  "rules": [
    {"match": {"system": "IMPROVED-GOOD"}, "reply": {"text": "ok-improved", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "IMPROVED-HALF", "contains": "[easy]"}, "reply": {"text": "ok-improved", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "REGRESSED-GOOD"}, "reply": {"text": "ok-regressed", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "REGRESSED-BROKEN", "contains": "Q1 "}, "reply": {"text": "ok-regressed", "usage": {"input": 100, "output": 30}}},
    {"match": {"system": "ADDED-GOOD"}, "reply": {"text": "ok-added", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "OLDNAME-GOOD", "contains": "old-name"}, "reply": {"text": "ok-old-name", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "OLDNAME-GOOD", "contains": "new-name"}, "reply": {"text": "ok-new-name", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "INVALID-GOOD"}, "reply": {"text": "ok-invalid", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "LEGACY-GOOD"}, "reply": {"text": "ok-legacy", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "KNOWNBAD-", "contains": "Q1 "}, "reply": {"text": "ok-known-bad", "usage": {"input": 100, "output": 10}}},
    {"match": {"system": "REGRESSED-BROKEN"}, "reply": {"text": "I am not sure what the regressed word is; try | pipes <b>and</b> *stars*.", "usage": {"input": 100, "output": 30}}}
  ],
  "default": {"text": "no idea", "usage": {"input": 100, "output": 10}}
}
EOF
fake_start "$T/script.json"
cd "$T"
set +e
ANTHROPIC_BASE_URL=$FAKE_URL ANTHROPIC_API_KEY=sk-rows "$SKILLCI" run --repo "$R" --base "$BASE" \
	--head "$HEAD" -m anthropic.fake-student --no-cache --store "$T/s.db" --json "$T/rows.json" \
	--junit "$T/rows.xml" --markdown "$T/rows.md" --html "$T/html" > /dev/null
rc=$?
set -e
[ "$rc" = 1 ] || { echo "make-rows: skillci run exited $rc, expected 1" >&2; exit 1; }
python3 - "$T/rows.json" "$here/inputs/rows.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["skillci_version"] = "0.1.0"
run = r["run"]
run.update(id="20250101T000000Z-rows", started_at="2025-01-01T00:00:00Z",
           finished_at="2025-01-01T00:00:09Z", repo="example/skills",
           base_rev="b" * 40, head_rev="c" * 40)
r["totals"]["wall_ms"] = 9000
import re
t = run.get("trust", {})
t["notes"] = [re.sub(r"\b[0-9a-f]{12}\b", "b" * 12, n) for n in t.get("notes", [])]
if t.get("config"):
    t["config"] = re.sub(r"\b[0-9a-f]{12}\b", "b" * 12, t["config"])
for u in r["units"]:
    u["latency_ms"] = 1000
json.dump(r, open(sys.argv[2], "w"), indent=1, sort_keys=False, ensure_ascii=False)
open(sys.argv[2], "a").write("\n")
EOF
echo "wrote $here/inputs/rows.json"
