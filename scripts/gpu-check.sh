#!/bin/sh
# GPU check for the kernel worker, run on a machine with a GPU (no skillci
# orchestrator needed, no network). For every fixture: the baseline and the
# solution must pass against the CPU reference on every size and seed, and
# the solution is timed against the baseline (it must be faster). Then every
# planted bad kernel in tests/kernels/ must fail or be flagged with the
# reason its "expect-gpu:" line names. Prints one table; exits 1 on any
# unexpected verdict, 3 when the worker cannot run.
#
#   sh scripts/gpu-check.sh [--worker PATH] [--root DIR] [--compile-only]
#
# In gpu-bundle/ (make gpu-bundle): cd gpu-bundle && sh gpu-check.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
worker="" root="" mode=gpu
while [ $# -gt 0 ]; do
	case "$1" in
	--worker) worker=$2; shift 2 ;;
	--root) root=$2; shift 2 ;;
	--compile-only) mode=cpu; shift ;;
	*) echo "usage: $0 [--worker PATH] [--root DIR] [--compile-only]" >&2; exit 2 ;;
	esac
done
if [ -z "$root" ]; then
	if [ -d "$here/fixtures" ]; then root=$here; else root=$(dirname "$here"); fi
fi
if [ -z "$worker" ]; then
	for w in "$here/skillci-kernel" "$root/build/skillci-kernel"; do
		[ -x "$w" ] && { worker=$w; break; }
	done
fi
[ -x "${worker:-}" ] || { echo "gpu-check: no worker binary (make, or make gpu-bundle)" >&2; exit 3; }
cache=$(mktemp -d "${TMPDIR:-/tmp}/skillci-gpu-check.XXXXXX")
trap 'rm -rf "$cache"' EXIT
opts="--cache $cache/cubins --timeout-ms 5000"
[ "$mode" = cpu ] && opts="$opts --compile-only"
tmo=""
command -v timeout >/dev/null 2>&1 && tmo="timeout 200"
start=$(date +%s)
bad=0 total=0

echo "worker: $worker"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
printf '%-30s %-9s %-16s %8s %10s %10s  %s\n' CHECK VERDICT REASON SPEEDUP CAND_MS BASE_MS NOTE

# row NAME EXPECTED_VERDICTS EXPECTED_REASONS LINE: prints and counts one check.
row() {
	name=$1 ev=$2 er=$3 line=$4
	v=$(printf '%s' "$line" | cut -f1) r=$(printf '%s' "$line" | cut -f2)
	sp=$(printf '%s' "$line" | cut -f3) cm=$(printf '%s' "$line" | cut -f4) bm=$(printf '%s' "$line" | cut -f5)
	fl=$(printf '%s' "$line" | cut -f6) msg=$(printf '%s' "$line" | cut -f7 | cut -c1-150)
	ok=no
	case "|$ev|" in *"|$v|"*) case "|$er|" in *"|$r|"*|"|*|") ok=yes ;; esac ;; esac
	total=$((total + 1))
	note=""
	[ "$fl" != "-" ] && [ -n "$fl" ] && note="scan: $fl; "
	if [ "$ok" = yes ]; then note="${note}ok"; else bad=$((bad + 1)); note="${note}UNEXPECTED (wanted $ev/$er): $msg"; fi
	printf '%-30s %-9s %-16s %8s %10s %10s  %s\n' "$name" "${v:-none}" "${r:-none}" "${sp:--}" "${cm:--}" "${bm:--}" "$note"
}

run_worker() {
	out=$($tmo "$worker" "$@" $opts --brief 2>"$cache/err")
	rc=$?
	if [ -z "$out" ]; then out=$(printf 'crashed\texit%s\t-\t-\t-\t-\t%s' "$rc" "$(head -c 200 "$cache/err" | tr '\n\t' '  ')"); fi
	printf '%s' "$out"
}

if [ "$mode" = gpu ]; then pass="passed"; else pass="compiled"; fi
for dir in "$root"/fixtures/*/; do
	f=$(basename "$dir")
	[ -f "$dir/spec.json" ] || continue
	row "$f/baseline" "$pass" "*" "$(run_worker --fixture "$dir" --candidate "$dir/baseline.cu" --no-timing)"
	line=$(run_worker --fixture "$dir" --candidate "$dir/solution.cu" --baseline "$dir/baseline.cu")
	row "$f/solution" "$pass" "*" "$line"
	sp=$(printf '%s' "$line" | cut -f3)
	if [ "$mode" = gpu ] && [ "$sp" != "-" ] && awk "BEGIN{exit !($sp <= 1.0)}"; then
		bad=$((bad + 1))
		echo "  ^ the solution is not faster than the baseline (speedup $sp)"
	fi
done

for k in "$root"/tests/kernels/*.cu; do
	[ -f "$k" ] || continue
	if [ "$mode" = gpu ]; then key=expect-gpu; else key=expect-cpu; fi
	exp=$(sed -n "s|^// $key: *||p" "$k" | head -n 1)
	ev=${exp%% *} er=${exp#* }
	line=$(run_worker --fixture "$root/fixtures/softmax" --candidate "$k" --baseline "$root/fixtures/softmax/baseline.cu")
	row "planted/$(basename "$k" .cu)" "$ev" "$er" "$line"
	want=$(sed -n 's|^// expect-scan: *||p' "$k" | head -n 1)
	for w in $want; do
		case ",$(printf '%s' "$line" | cut -f6)," in *",$w,"*) ;; *)
			bad=$((bad + 1)); echo "  ^ expected scan flag '$w' did not fire" ;;
		esac
	done
done

echo "$total checks, $bad unexpected, $(( $(date +%s) - start )) s"
[ "$bad" -eq 0 ]
