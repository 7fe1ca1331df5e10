#!/bin/sh
# End-to-end: the bfloat16 fixtures' baselines and solutions, the planted
# kernels and the emulator's self-checks through the CUDA emulation
# (tests/emu/), against the CPU references with the real harness on the
# CPU double, one seed per size and distribution and the determinism
# check, then timed against the reference (every distribution in each
# repetition, fresh inputs per timed launch, a subset checked in full by
# every rule), checked again, timed in the strong reference's phase, and
# scanned by the worker (source and PTX) where it is built; and the
# planted pitfalls of every other fixture (tests/kernels/pitfalls/) but
# the costlier new ones named in $emu_only, whose pitfalls run in make
# emu-check only. --quick: the fixtures' own kernels at one timed shape
# without the strong phase, the planted kernels only the scan refuses not
# timed, the correct variants planted beside the pitfalls (ok_*.cu)
# checked, not timed (--untimed-variants, which --quick implies); the
# other planted kernels get the whole protocol, and make emu-check times
# everything. Each run draws a fresh secret and prints it (EMU_SECRET
# replays it). Every row of emu-check.sh's tables is a test. The full
# run: make emu-check.
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

full="softmax-bf16 rmsnorm-bf16 rope-bf16 geglu-bf16 adaln-bf16 gemm-bf16 attention-bf16"
full="$full bias-gelu-tanh-bf16 swiglu-bf16 qk-rmsnorm-rope-bf16 groupnorm-silu-nhwc-bf16 gemm-fp8-e4m3"
# shellcheck disable=SC2086
# The baselines are checked, not timed (--untimed-baselines): the timing
# protocol is the solutions' and the planted kernels' here, and make
# emu-check times every baseline too.
run env BUILD="$build" sh "$R/tests/emu/emu-check.sh" --seeds 1 --untimed-baselines --untimed-variants --quick $full
expect_exit 0 "emu-check: every check as expected"
expect_out_contains "emu-check: secret 0x" "emu-check prints the secret it drew"
# One test per row of the table: CHECK VERDICT REASON RATIO RUNS SECS NOTE.
printf '%s\n' "$OUT" | awk 'NR > 1 && NF >= 7 && $1 ~ /\// {print $1, $7}' > "$T/rows"
all_out=$OUT
# Every other fixture's planted pitfalls (tests/kernels/pitfalls/FIXTURE/),
# without its baseline and solution: a pitfall stops at its first failed
# check, before any timing, so this stays cheap.
# GEMMs, attention and the conventions' siblings whose emulation is slow:
# make emu-check runs their baselines, solutions and pitfalls.
emu_only="attention-sdpa-bf16 gemm-w4a16-awq gemm-fp8-blockscale groupnorm-silu-nchw-bf16"
emu_only="$emu_only qk-rmsnorm-rope-ltx-bf16 rope-neox-bf16"
rest=""
for d in "$R"/fixtures/*/; do
	f=$(basename "$d")
	case " $full $emu_only " in *" $f "*) ;; *) [ -d "$R/tests/kernels/pitfalls/$f" ] && rest="$rest $f" ;; esac
done
if [ -n "$rest" ]; then
	# shellcheck disable=SC2086
	run env BUILD="$build" sh "$R/tests/emu/emu-check.sh" --seeds 1 --pitfalls-only --untimed-variants $rest
	expect_exit 0 "emu-check --pitfalls-only: every other fixture's pitfalls as expected"
	printf '%s\n' "$OUT" | awk 'NR > 1 && NF >= 7 && $1 ~ /\// {print $1, $7}' >> "$T/rows"
	all_out=$(printf '%s\n%s\n' "$all_out" "$OUT")
fi
OUT=$all_out
[ -s "$T/rows" ] || _tap not-ok "emu-check printed its table" "$(_detail)"
while read -r name note; do
	if [ "$note" = ok ]; then _tap ok "$name"; else _tap not-ok "$name" "$(printf '%s\n' "$OUT" | grep -F "$name ")"; fi
done < "$T/rows"
for want in softmax-bf16/solution gemm-bf16/solution attention-bf16/solution planted/bf16_gemm_fp16_accum \
	    planted/bf16_unsafe_softmax emu/missing_barrier planted/burst_skipper planted/launch_counter \
	    planted/partial_rows planted/host_reader planted/gemm_incremental_cache planted/dodge_unsigned_init \
	    planted/dodge_macro_device planted/dodge_paste_clock planted/dodge_split_asm planted/dodge_nanosleep \
	    pitfall/rmsnorm-bf16/round_toward_zero pitfall/adaln-bf16/ok_eager_bf16 pitfall/layernorm/eps_1e6 \
	    pitfall/bias-gelu/tanh_gelu \
	    gemm-fp8-e4m3/solution pitfall/gemm-fp8-e4m3/e5m2_decode pitfall/swiglu-bf16/ok_hf_eager \
	    pitfall/qk-rmsnorm-rope-bf16/rope_before_norm pitfall/groupnorm-silu-nhwc-bf16/one_pass_variance \
	    pitfall/bias-gelu-tanh-bf16/erf_gelu pitfall/bias-gelu-tanh-bf16/acc_rounded_before_bias \
	    pitfall/groupnorm-silu-nhwc-bf16/ok_torch_fused_params pitfall/qk-rmsnorm-rope-bf16/ok_flux_eager \
	    pitfall/geglu-bf16/ok_diffusers_eager pitfall/swiglu-value-first-bf16/gate_first \
	    pitfall/add-rmsnorm-bf16/ok_vllm_fused_add pitfall/timestep-embedding-bf16/flip_ignored \
	    pitfall/adaln-rmsnorm-bf16/modulation_per_sample pitfall/attention-bf16/ok_sdpa_math_lower_right \
	    planted/dodge_comment_globaltimer planted/dodge_comment_braces planted/dodge_gridid planted/dodge_clock_hi \
	    planted/dodge_table_name planted/dodge_const_cvta planted/dodge_tf32_comment planted/ok_3xtf32 \
	    planted/precision_by_distribution planted/timing_size_rtz planted/strong_phase_wrong \
	    planted/strong_phase_fault planted/uninit_output_read; do
	expect_out_contains "$want" "emu-check ran $want"
done
done_testing
