#!/bin/sh
# The pitfall check (scripts/check-pitfalls.sh): every fixture's notes.md
# has a '## Pitfalls, tested' table whose rows name planted kernels that
# exist, say what they plant and must fail (or, ok_*, pass) in the
# emulation, and every planted kernel of tests/kernels/pitfalls/ is in its
# fixture's table. It passes on the tree and fails, naming the file, on
# copies with a claim that is not planted. The planted kernels themselves
# run in tests/e2e/test_emu.sh.
. tests/e2e/lib.sh

run sh scripts/check-pitfalls.sh
expect_exit 0 "pitfalls: every fixture's table matches its planted kernels"
expect_out_contains "pitfalls ok" "pitfalls: says so"
# one case per fixture, naming it, so that a missing table says which
for spec in fixtures/*/spec.json; do
	f=$(basename "$(dirname "$spec")")
	if printf '%s\n' "$OUT" | grep -q "^fixtures/$f/notes.md: \|^tests/kernels/pitfalls/$f/"; then
		_tap not-ok "pitfalls: $f" "$(printf '%s\n' "$OUT" | grep "fixtures/$f/\|pitfalls/$f/")"
	else
		_tap ok "pitfalls: $f"
	fi
done

# A copy of the fixtures and planted kernels to break.
copy() {
	rm -rf "$T/tree" && mkdir -p "$T/tree/tests/kernels"
	cp -r fixtures scripts "$T/tree/"
	cp -r tests/kernels/pitfalls "$T/tree/tests/kernels/"
}
# broken NAME EXPECTED: the check fails on the copy naming EXPECTED
broken() {
	run sh "$T/tree/scripts/check-pitfalls.sh" "$T/tree"
	expect_exit 1 "pitfalls: $1 is refused"
	expect_out_contains "$2" "pitfalls: $1 is named"
}

copy
printf '| a pitfall never planted | `tests/kernels/pitfalls/softmax/no_such.cu` | 9.9 |\n' >> "$T/tree/fixtures/softmax/notes.md"
broken "a claim without a planted kernel" "fixtures/softmax/notes.md: row 'a pitfall never planted': planted kernel tests/kernels/pitfalls/softmax/no_such.cu does not exist"

copy
cp "$T/tree/tests/kernels/pitfalls/softmax/unsafe_no_max.cu" "$T/tree/tests/kernels/pitfalls/softmax/unlisted.cu"
broken "a planted kernel not in the table" "tests/kernels/pitfalls/softmax/unlisted.cu: planted but not in the table of fixtures/softmax/notes.md"

copy
sed -i 's|^// expect-emu: .*|// expect-emu: passed none|' "$T/tree/tests/kernels/pitfalls/softmax/unsafe_no_max.cu"
broken "a pitfall expected to pass" "tests/kernels/pitfalls/softmax/unsafe_no_max.cu: a pitfall needs '// expect-emu: failed REASON', not 'passed none'"

copy
sed -i '/^\/\/ Pitfall:/d' "$T/tree/tests/kernels/pitfalls/softmax/unsafe_no_max.cu"
broken "a pitfall without its Pitfall line" "tests/kernels/pitfalls/softmax/unsafe_no_max.cu: no '// Pitfall: ...' line"

copy
sed -i 's|^// fixture: .*|// fixture: softmax-bf16|' "$T/tree/tests/kernels/pitfalls/softmax/unsafe_no_max.cu"
broken "a pitfall run against another fixture" "tests/kernels/pitfalls/softmax/unsafe_no_max.cu: no '// fixture: softmax' line"

copy
sed -i 's|^// expect-emu: .*|// expect-emu: failed mismatch|' "$T/tree/tests/kernels/pitfalls/adaln-bf16/ok_eager_bf16.cu"
broken "a correct variant expected to fail" "ok_eager_bf16.cu: a correct variant (ok_*) needs '// expect-emu: passed none', not 'failed mismatch'"

copy
sed -i 's|`tests/kernels/pitfalls/softmax/unsafe_no_max.cu`|`tests/kernels/pitfalls/softmax-bf16/unsafe_no_max.cu`|' "$T/tree/fixtures/softmax/notes.md"
broken "a row naming another fixture's kernel" "is not a path tests/kernels/pitfalls/softmax/SLUG.cu"

copy
awk '/^## Pitfalls, tested/ {exit} {print}' fixtures/softmax/notes.md > "$T/tree/fixtures/softmax/notes.md"
broken "a fixture without the section" "fixtures/softmax/notes.md: no '## Pitfalls, tested' section"

copy
mkdir -p "$T/tree/tests/kernels/pitfalls/no-such-fixture"
broken "pitfalls of no fixture" "tests/kernels/pitfalls/no-such-fixture: no fixture 'no-such-fixture'"

done_testing
