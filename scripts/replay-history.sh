#!/bin/sh
# Replays the history of a skill repository as pull requests: every commit
# of the first-parent chain of HEAD against its parent, checked by
# `skillci run` as a PR check would (the oracle self-test model: a
# repository's tests, if any, answered with their reference answers, so no
# model key is needed and only the gate's rules decide), and counts the
# gate's outcomes by rule (docs/run.md, "Untested skills"). It clones and
# fetches nothing: it reads the repository at REPO (a clone, not a bare
# mirror) and writes only under OUT.
#
#   sh scripts/replay-history.sh REPO [OUT] [-- SKILLCI-RUN-OPTIONS...]
#
#   SKILLCI=path/to/skillci   the binary (default build/skillci)
#   CONFIG=file.yml           a trusted config (run --config), e.g. a policy
#                             to compare: gate: {allow_untested: false}
#
# Prints one line per pair (commit, changed skills, exit, failed rules) and
# a summary: pairs, pairs that touch skills, red ones, and per rule the
# failures and the pairs they make red. OUT (default a temporary folder)
# keeps each pair's results JSON.
set -eu

[ $# -ge 1 ] || { echo "usage: $0 REPO [OUT] [-- RUN-OPTIONS...]" >&2; exit 2; }
repo=$1
shift
out=""
if [ $# -ge 1 ] && [ "$1" != "--" ]; then
	out=$1
	shift
fi
[ $# -ge 1 ] && [ "$1" = "--" ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
skillci=${SKILLCI:-$root/build/skillci}
[ -x "$skillci" ] || { echo "$0: no skillci at $skillci (make, or set SKILLCI)" >&2; exit 2; }
git -C "$repo" rev-parse --git-dir > /dev/null 2>&1 || { echo "$0: '$repo' is not a git repository" >&2; exit 2; }
[ "$(git -C "$repo" rev-parse --is-bare-repository)" = false ] || {
	echo "$0: '$repo' is a bare repository: clone it first (git clone BARE DIR)" >&2; exit 2; }
if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/skillci-replay.XXXXXX")
fi
mkdir -p "$out/pairs"
cfg=""
[ -n "${CONFIG:-}" ] && cfg="--config $CONFIG"
unset GITHUB_ACTIONS GITHUB_EVENT_PATH GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_TOKEN

n=0
git -C "$repo" rev-list --first-parent --reverse HEAD > "$out/commits"
prev=""
while read -r c; do
	if [ -n "$prev" ]; then
		n=$((n + 1))
		rc=0
		# shellcheck disable=SC2086
		"$skillci" run --repo "$repo" --base "$prev" --head "$c" -m oracle.self $cfg \
			--no-cache --store "$out/store.db" --json "$out/pairs/$n.json" \
			--junit "$out/pairs/$n.xml" --markdown "$out/pairs/$n.md" \
			--html "$out/pairs/$n.html" "$@" > "$out/pairs/$n.out" 2> "$out/pairs/$n.err" || rc=$?
		printf '%s %s %s %s\n' "$n" "$c" "$rc" "$(git -C "$repo" log -1 --format=%s "$c" | tr -d '\n' | cut -c1-60)" \
			>> "$out/index"
	fi
	prev=$c
done < "$out/commits"

python3 - "$out" <<'EOF'
import json, os, sys
from collections import Counter, defaultdict
out = sys.argv[1]
pairs = [l.rstrip("\n").split(" ", 3) for l in open(os.path.join(out, "index"))]
touching = red = 0
fail_rules, red_by = Counter(), defaultdict(set)
unverified = 0
for n, commit, rc, subject in pairs:
    path = os.path.join(out, "pairs", n + ".json")
    if not os.path.exists(path):
        print("%3s %s exit %s (no results: %s)" % (n, commit[:8], rc,
              open(os.path.join(out, "pairs", n + ".err")).read().strip()[:200]))
        red += 1
        red_by["(no results)"].add(n)
        continue
    r = json.load(open(path))
    changed = [s for s in r["skills"] if s["status"] != "unchanged"]
    if changed:
        touching += 1
    unverified += sum(1 for s in changed if s.get("untested") and s["status"] != "deleted")
    rules = Counter(f["rule"] for f in r["gate"]["failures"])
    if not r["gate"]["passed"]:
        red += 1
        for rule in rules:
            red_by[rule].add(n)
    fail_rules.update(rules)
    print("%3s %s %-60s skills %-2d exit %s %s" % (n, commit[:8], subject, len(changed), rc,
          ", ".join("%s x%d" % kv for kv in sorted(rules.items())) or "-"))
print()
print("pairs %d, touching skills %d, red %d, unverified (untested) skill changes %d"
      % (len(pairs), touching, red, unverified))
for rule in sorted(red_by, key=lambda k: (-len(red_by[k]), k)):
    print("  %-28s failures %3d  red pairs %3d" % (rule, fail_rules.get(rule, 0), len(red_by[rule])))
print("results in", out)
EOF
