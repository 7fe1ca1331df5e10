#!/bin/sh
# The cost of honesty: the harness's own wall time per candidate timing on
# the CPU double, this tree's harness (fresh inputs generated for every
# timed launch, buffers of their own for each launch of a burst, a
# subset of timed launches drawn after they ran and checked in full, the
# references computed only after a launch) against an earlier one
# (HONESTY_BASE, default d28a2a2: inputs rotated among a few sets with
# a few elements mutated per repetition, up to 4 spot checks). Same
# kernels, same declared costs (an H200's softmax times: 0.33 ms against
# 8.9 ms, and a 5 us kernel against a 20 us baseline for bursts), best of
# three runs each. Then the figures a GPU should show, computed from
# bandwidth for softmax's real timing size. Nothing is asserted.
#
#   sh tests/bench/bench_honesty.sh        (after make; BUILD=build)
set -u
root=${SKILLCI_ROOT:-$(pwd)}
cd "$root" || exit 1
build=${BUILD:-build}
base=${HONESTY_BASE:-d28a2a2}
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench-honesty.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cc=${CC:-cc}
flags="-std=c11 -O2 -D_GNU_SOURCE -iquote runner/core"
objs=""
for o in "$build"/runner/kernel/*.o; do
	case "$o" in */worker.o|*/nvrtc.o|*/harness.o|*/harness_*.o|*/refs.o) ;; *) objs="$objs $o" ;; esac
done
objs="$objs $build/libskillci-core.a"
libs="-lcjson -lm -lpthread"

# this tree
# shellcheck disable=SC2086
$cc $flags -iquote runner/kernel -o "$T/new" tests/bench/bench_honesty.c runner/kernel/harness*.c $objs $libs || exit 3
# the earlier harness (harness.c, and its parts harness_*.c and
# harness_parts.h where it has them), with the device layer of this tree
# (a superset)
mkdir -p "$T/old"
old_files=$(git ls-tree --name-only "$base" runner/kernel/ 2>/dev/null | grep '/harness[^/]*\.[ch]$')
old_ok=0
if [ -n "$old_files" ]; then
	old_ok=1
	for f in $old_files; do
		git show "$base:$f" > "$T/old/${f##*/}" 2>/dev/null || old_ok=0
	done
fi
if [ $old_ok = 1 ]; then
	# shellcheck disable=SC2086
	$cc $flags -iquote "$T/old" -iquote runner/kernel -o "$T/oldbin" tests/bench/bench_honesty.c "$T/old/"harness*.c \
		$objs $libs || exit 3
else
	echo "bench_honesty: no $base in this repository: only this tree is measured" >&2
fi

best() {  # BIN ROWS COLS CAND_US BASE_US
	b="" line=""
	for i in 1 2 3; do
		l=$("$@") || return 1
		w=${l%% *}
		if [ -z "$b" ] || awk "BEGIN{exit !($w < $b)}"; then b=$w line=$l; fi
	done
	printf '%s\n' "$line"
}

printf '%-9s %-22s %10s %5s %7s %5s %9s %9s\n' HARNESS CASE WALL_MS REPS CHECKED BURST CAND_MS BASE_MS
for c in "single 256x4096 0.33/8.9:256 4096 330 8900" "single 1024x4096 0.33/8.9:1024 4096 330 8900" \
	 "burst 64x256 5us/20us:64 256 5 20"; do
	name=${c%%:*} args=${c#*:}
	for h in old new; do
		bin="$T/$h"; [ "$h" = old ] && bin="$T/oldbin"
		[ -x "$bin" ] || continue
		# shellcheck disable=SC2086
		l=$(best "$bin" $args) || { echo "bench_honesty: $h $name failed" >&2; continue; }
		set -- $l
		printf '%-9s %-22s %10s %5s %7s %5s %9s %9s\n' "$h" "$name" "$1" "$2" "$3" "$4" "$5" "$6"
	done
done

# What a GPU should add per repetition, from bandwidth, at softmax's timing
# size (16384 x 4096 float32: 256 MiB in, 256 MiB out) on an H200 (HBM
# 4.8 TB/s; host copies at about 25 GB/s over PCIe or C2C, an assumption):
awk 'BEGIN {
	mib = 1048576; in_b = 256 * mib; out_b = 256 * mib; hbm = 4.8e12; link = 25e9
	fill = in_b / hbm * 1e3 * 2          # both sides regenerate their inputs
	check = (2 * out_b + 3 * in_b) / link * 1e3   # outputs of both, inputs of both and the witness
	old_check = 2 * out_b / link * 1e3
	printf "\nexpected on an H200 at softmax 16384x4096 (candidate 0.33 ms, baseline 8.9 ms):\n"
	printf "  fresh inputs: %.3f ms per repetition (both sides, on the device)\n", fill
	printf "  a full check: %.1f ms of copies; one repetition in 2 is checked: %.1f ms per repetition\n", check, check / 2
	printf "  before: a spot check %.1f ms, at most 5 per run\n", old_check
	printf "  per run of 100 repetitions: %.0f ms now against %.0f ms before, beside %.0f ms of kernels\n", \
		100 * (fill + check / 2), 5 * old_check, 100 * (0.33 + 8.9)
}'
