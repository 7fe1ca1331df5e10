#!/bin/sh
# Regenerates the expected reports in tests/golden/expected/ from the fixed
# results files in tests/golden/inputs/ (rows.json comes from a real run:
# tests/golden/make-rows.sh). Run it on purpose only, after a
# deliberate change to a report's format, and review the diff before
# committing: tests/e2e/test_report.sh compares against these files byte
# for byte and never rewrites them.
#
#   sh tests/golden/regen.sh            # uses build/skillci
#   SKILLCI=build-x/skillci sh tests/golden/regen.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
skillci=${SKILLCI:-$root/build/skillci}
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY GITHUB_TOKEN GITHUB_SERVER_URL GITHUB_REPOSITORY GITHUB_RUN_ID
export NO_COLOR=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skillci-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
in=$here/inputs
out=$here/expected
mkdir -p "$out"

# golden_render NAME ARGS...: the reports of one case into expected/NAME.*
golden_render() {
	name=$1
	shift
	"$skillci" report "$@" --junit "$out/$name.xml" --markdown "$out/$name.md" \
		--markdown-full "$out/$name.full.md" --html "$tmp/$name" > "$out/$name.term.txt"
	cp "$tmp/$name/report.html" "$out/$name.html"
	cp "$tmp/$name/index.html" "$out/$name.index.html"
}

golden_render pr "$in/pr.json"
golden_render rows "$in/rows.json" --config "$in/rows.skillci.yml"
golden_render oracle "$in/oracle.json"
golden_render eval "$in/eval.json"
golden_render diff "$in/eval.json" --base "$in/eval-base.json" --history "$in/eval-base.json"
"$skillci" report "$in/pr.json" --junit "$out/pr.file-attrs.xml" --junit-file-attrs > /dev/null
"$skillci" report "$in/rows.json" --config "$in/rows.skillci.yml" --junit "$out/rows.file-attrs.xml" --junit-file-attrs > /dev/null
echo "regenerated $(ls "$out" | wc -l) files in $out"
