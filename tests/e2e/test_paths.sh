# The path check (scripts/check-paths.py, docs/development.md): every path
# of the tree that a comment or a document names exists. Passes on the
# tree; fails, naming the file and line, on a dead path planted in a copy
# of it (a C comment, a shell comment, a document); leaves alone a path in
# a C string, a placeholder (tests/e2e/test_NAME.sh) and a module named by
# its stem (runner/results/store).
. tests/e2e/lib.sh

run python3 scripts/check-paths.py .
expect_exit 0 "paths: the tree passes"
expect_out_contains "paths ok" "paths: says so"

copy() {
	rm -rf "$T/tree" && mkdir -p "$T/tree"
	cp -r runner reporters tests fixtures docs scripts mk Makefile ./*.md "$T/tree/"
}

# plant FILE LINE NAME PATH: adds LINE after the first line of FILE in a
# fresh copy; the check must fail naming FILE:2 and PATH.
plant() {
	copy
	printf '%s\n' "$2" > "$T/line"
	sed -i "1r $T/line" "$T/tree/$1"
	run python3 "$T/tree/scripts/check-paths.py" "$T/tree"
	expect_exit 1 "paths: $3 is refused"
	expect_out_contains "$1:2: $4 does not exist" "paths: $3 is named with file and line"
}

plant runner/results/results_index.c ' * (moved from runner/results/gone.c)' \
	"a dead path in a C comment" runner/results/gone.c
plant runner/pipeline/gate.c '// see docs/no-such-page.md' \
	"a dead path in a C line comment" docs/no-such-page.md
plant scripts/check-layers.sh '# run by tests/e2e/test_gone.sh' \
	"a dead path in a shell comment" tests/e2e/test_gone.sh
plant docs/run.md 'The runner lives in `runner/pipeline/runner.c`.' \
	"a dead path in a document" runner/pipeline/runner.c

# what is not a path of the tree is left alone
copy
cat >> "$T/tree/runner/results/results_index.c" <<'C'
static const char *const not_a_comment = "runner/in/a/string.c";
/* tests/e2e/test_NAME.sh, tests/e2e/test_*.sh and runner/results/store */
C
run python3 "$T/tree/scripts/check-paths.py" "$T/tree"
expect_exit 0 "paths: strings, placeholders and module stems are not refused"

done_testing
