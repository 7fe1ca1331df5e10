# action.yml, every workflow example in docs/ci.md and the workflow files
# it links to (examples/github/) pass zizmor, the
# GitHub Actions security linter (installed from PyPI by `make deps`):
# no template injection, every `uses:` pinned to a commit, no persisted
# credentials, no broad permissions, no dangerous trigger. The examples
# are extracted from the page's ```yaml blocks that define jobs, so the
# page cannot drift from what is checked. Without zizmor the lint cases
# skip with the reason; the structural checks below run anyway.
. tests/e2e/lib.sh

ROOT=${SKILLCI_ROOT:-.}
mkdir -p "$T/wf"
python3 - "$ROOT/docs/ci.md" "$T/wf" <<'PYEOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
n = 0
for block in re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M):
    if re.search(r"^jobs:", block, re.M) and re.search(r"^on:", block, re.M):
        n += 1
        open("%s/ci-md-%d.yml" % (sys.argv[2], n), "w").write(block)
print(n)
PYEOF
count=$(ls "$T/wf" | wc -l)
check "docs/ci.md holds at least two workflow examples (found $count)" test "$count" -ge 2
check "one example is the fork-safe dispatch workflow" grep -lq "workflow_dispatch" "$T"/wf/*.yml
check "no example uses pull_request_target" sh -c "! grep -q pull_request_target $T/wf/*.yml"

# structure that holds with or without zizmor
check "action.yml: no \${{ }} inside a run: script" python3 - "$ROOT/action.yml" <<'PYEOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
in_run, indent = False, 0
for i, line in enumerate(lines, 1):
    m = re.match(r"^(\s*)run: \|", line)
    if m:
        in_run, indent = True, len(m.group(1))
        continue
    if in_run and line.strip() and len(line) - len(line.lstrip()) <= indent:
        in_run = False
    if in_run and "${{" in line:
        sys.exit("action.yml:%d: template expansion in a script: %s" % (i, line.strip()))
PYEOF
check "action.yml: every uses: is pinned to a full commit" sh -c \
	"! grep -E '^\s*uses:' '$ROOT/action.yml' | grep -vE 'uses: [^@]+@[0-9a-f]{40}( |$)'"
check "action.yml: the upload reads a staged copy, not the report folder" \
	grep -q 'path: \${{ steps.stage.outputs.dir }}' "$ROOT/action.yml"

if ! command -v zizmor > /dev/null 2>&1; then
	skip "zizmor reports nothing on action.yml" "zizmor is not installed (make deps installs it from PyPI)"
	skip "zizmor reports nothing on the docs/ci.md workflows" "zizmor is not installed (make deps installs it from PyPI)"
	skip "zizmor finds a planted template injection" "zizmor is not installed (make deps installs it from PyPI)"
	skip "zizmor reports nothing on examples/github/*.yml" "zizmor is not installed (make deps installs it from PyPI)"
	done_testing
	exit $?
fi
zizmor --offline --no-progress "$ROOT/action.yml" > "$T/z1" 2>&1
check "zizmor reports nothing on action.yml" sh -c "grep -q 'No findings' '$T/z1' || { cat '$T/z1'; false; }"
zizmor --offline --no-progress "$T"/wf/*.yml > "$T/z2" 2>&1
check "zizmor reports nothing on the docs/ci.md workflows" sh -c "grep -q 'No findings' '$T/z2' || { cat '$T/z2'; false; }"
# the workflow files docs/ci.md links to
zizmor --offline --no-progress "$ROOT"/examples/github/*.yml > "$T/z4" 2>&1
check "zizmor reports nothing on examples/github/*.yml" sh -c "grep -q 'No findings' '$T/z4' || { cat '$T/z4'; false; }"
# the lint can fail: the old form of a step, an input expanded into a script
mkdir -p "$T/bad"
cat > "$T/bad/action.yml" <<'YEOF'
name: bad
description: an input expanded into a script
inputs:
  base: {description: base, required: false, default: ""}
runs:
  using: composite
  steps:
    - shell: bash
      run: echo "${{ inputs.base }}"
YEOF
zizmor --offline --no-progress "$T/bad/action.yml" > "$T/z3" 2>&1
check "zizmor finds a planted template injection (the check can fail)" grep -q "template-injection" "$T/z3"
done_testing
