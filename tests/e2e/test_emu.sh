#!/bin/sh
# End-to-end: the bfloat16 fixtures' baselines and solutions, the planted
# kernels and the emulator's self-checks through the CUDA emulation
# (tests/emu/), against the CPU references with the real harness on the
# CPU double, one seed per size and distribution, then timed against the
# reference (fresh inputs per timed launch, a subset checked in full), and
# scanned by the worker (source and PTX) where it is built. Every row of
# emu-check.sh's table is a test. The full run: make emu-check.
. tests/e2e/lib.sh

R=$SKILLCI_ROOT
build=${BUILD:-build}
if ! command -v "${CXX:-g++}" >/dev/null 2>&1; then
	skip "emulated kernels" "no C++ compiler"
	done_testing
	exit $?
fi
if [ ! -f "$R/$build/emu/emu_runtime.o" ] || [ ! -f "$R/$build/tests/emu/emu_check.o" ]; then
	skip "emulated kernels" "the emulation's objects are not built (make emu-deps)"
	done_testing
	exit $?
fi

run env BUILD="$build" sh "$R/tests/emu/emu-check.sh" --seeds 1 \
	softmax-bf16 rmsnorm-bf16 rope-bf16 geglu-bf16 adaln-bf16 gemm-bf16 attention-bf16
expect_exit 0 "emu-check: every check as expected"
# One test per row of the table: CHECK VERDICT REASON RATIO RUNS SECS NOTE.
printf '%s\n' "$OUT" | awk 'NR > 1 && NF >= 7 && $1 ~ /\// {print $1, $7}' > "$T/rows"
[ -s "$T/rows" ] || _tap not-ok "emu-check printed its table" "$(_detail)"
while read -r name note; do
	if [ "$note" = ok ]; then _tap ok "$name"; else _tap not-ok "$name" "$(printf '%s\n' "$OUT" | grep -F "$name ")"; fi
done < "$T/rows"
for want in softmax-bf16/solution gemm-bf16/solution attention-bf16/solution planted/bf16_gemm_fp16_accum \
	    planted/bf16_unsafe_softmax emu/missing_barrier planted/burst_skipper planted/launch_counter \
	    planted/partial_rows planted/host_reader planted/gemm_incremental_cache planted/dodge_unsigned_init \
	    planted/dodge_macro_device planted/dodge_paste_clock planted/dodge_split_asm planted/dodge_nanosleep; do
	expect_out_contains "$want" "emu-check ran $want"
done
done_testing
