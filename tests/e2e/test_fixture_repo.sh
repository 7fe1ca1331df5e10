#!/bin/sh
# End-to-end: a skill repository adds its own fixture (docs/fixtures.md,
# "A fixture of your own"): the bfloat16 example in tests/data/fixture-repo
# is pinned, verified (its baseline and solution compile with <cuda_bf16.h>)
# and checked with `skillci kernel`; `make EXTRA_FIXTURES=DIR` compiles its
# CPU reference into the worker's table and refuses a name clash.
. tests/e2e/lib.sh

R=$SKILLCI_ROOT
FX="$T/repo/fixtures"
mkdir -p "$T/repo"
cp -r "$R/tests/data/fixture-repo" "$FX"

run "$SKILLCI" fixtures lock --fixtures "$FX"
expect_exit 0 "fixtures lock pins the repository's fixture"
expect_out_contains "silu-bf16" "lock names it"
run "$SKILLCI" fixtures list --fixtures "$FX"
expect_out_lacks "unpinned" "pinned after lock"

if [ "${HAVE_CUDA:-}" = 1 ]; then
	run "$SKILLCI" fixtures verify --fixtures "$FX"
	expect_exit 0 "fixtures verify: pinned, baseline and solution compile"
	run "$SKILLCI" kernel silu-bf16 "$FX/silu-bf16/solution.cu" --fixtures "$FX" --cache "$T/cache"
	expect_exit 0 "skillci kernel compiles the fixture's solution"
	expect_out_contains "COMPILED" "compiled (no GPU here)"
	run "$SKILLCI" kernel silu-bf16 "$R/tests/kernels/include_passwd.cu" --fixtures "$FX"
	expect_exit 1 "the include allow-list applies to the repository's fixtures too"
else
	skip "verify and kernel" "not built with CUDA"
fi

# The worker's table of CPU references, built with the extra folder.
run make -s -C "$R" BUILD="$T/build" EXTRA_FIXTURES="$FX" "$T/build/kernel/refs_table.o" \
	"$T/build/$FX/silu-bf16/reference.o"
expect_exit 0 "make EXTRA_FIXTURES builds the table and the reference"
run cat "$T/build/kernel/refs_table.c"
expect_out_contains '{ "silu-bf16", sc_ref_silu_bf16 }' "the table lists the repository's fixture"
expect_out_contains '{ "softmax", sc_ref_softmax }' "beside the built-in ones"

mkdir -p "$T/clash/softmax"
cp "$FX/silu-bf16/reference.c" "$T/clash/softmax/reference.c"
run make -s -C "$R" BUILD="$T/build2" EXTRA_FIXTURES="$T/clash" "$T/build2/kernel/refs_table.o"
expect_exit 2 "a name clash with a built-in fixture stops the build"
expect_err_contains "'softmax' is also a built-in fixture; rename it" "and says what to do"
done_testing
