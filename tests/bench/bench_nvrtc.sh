#!/bin/sh
# NVRTC compile time per fixture (baseline and solution), cold (empty cubin
# cache) and cached (second run, same cache), measured in one run. Prints
# the NVRTC time the worker reports and the whole worker process's wall
# time; nothing is asserted.
set -u
root=${SKILLCI_ROOT:-$(pwd)}
worker=${SKILLCI_KERNEL_WORKER:-$root/${BUILD:-build}/skillci-kernel}
if [ ! -x "$worker" ]; then
	echo "bench_nvrtc: skipped (no worker at $worker: not built with CUDA)"
	exit 0
fi
cache=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench-nvrtc.XXXXXX")
trap 'rm -rf "$cache"' EXIT

ms_now() { echo $(( $(date +%s%N) / 1000000 )); }
# compile_ms JSON: the "ms" of the first "compile" section
compile_ms() { sed -n 's/^		"ms":	\([0-9.]*\),*$/\1/p' "$1" | head -n 1; }

printf '%-22s %12s %12s %12s %12s %8s\n' KERNEL COLD_NVRTC_MS COLD_WALL_MS CACHED_WALL_MS CACHED_NVRTC SPEEDUP
tc=0 tw=0
for dir in "$root"/fixtures/*/; do
	f=$(basename "$dir")
	for k in baseline solution; do
		t0=$(ms_now)
		"$worker" --fixture "$dir" --candidate "$dir/$k.cu" --compile-only --no-timing --cache "$cache" > "$cache/cold.json"
		t1=$(ms_now)
		"$worker" --fixture "$dir" --candidate "$dir/$k.cu" --compile-only --no-timing --cache "$cache" > "$cache/warm.json"
		t2=$(ms_now)
		cold=$(compile_ms "$cache/cold.json")
		warm=$(compile_ms "$cache/warm.json")
		cw=$((t1 - t0)) ww=$((t2 - t1))
		[ "$ww" -gt 0 ] || ww=1
		printf '%-22s %12s %12d %12d %12s %7.1fx\n' "$f/$k" "$cold" "$cw" "$ww" "$warm" \
			"$(awk "BEGIN{print $cw/$ww}")"
		tc=$((tc + cw)) tw=$((tw + ww))
	done
done
printf '%-22s %12s %12d %12d\n' TOTAL "" "$tc" "$tw"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -v "$worker" --fixture "$root/fixtures/gemm" --candidate "$root/fixtures/gemm/solution.cu" \
		--compile-only --no-timing > /dev/null 2> "$cache/time.txt"
	echo "peak RSS of one cold compile (gemm solution): $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$cache/time.txt") KiB"
fi
