#!/bin/sh
# Provider throughput: 2,000 requests through one curl multi loop at
# concurrency 64 against the fake model server answering each after 100 ms.
# The latency bound is ceil(2000/64) x 0.1 s = 3.2 s. Prints wall time and
# its ratio to the bound, CPU time per request, peak RSS of the client, and
# the fake's own CPU time (python may be the bottleneck on 2 cores).
# Environment: N, CONC, LATENCY_MS to change the shape.
set -u
root=${SKILLCI_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
driver="$root/$build/tests/bench/bench_providers"
N=${N:-2000} CONC=${CONC:-64} LATENCY_MS=${LATENCY_MS:-100}
[ -x "$driver" ] || { echo "bench_providers: build $driver first (make BUILD=$build programs)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench.XXXXXX")
SKILLCI_ROOT=$root
. "$root/tests/fakes/fake.sh"
printf '{"default": {"text": "ok", "latency_ms": %s}}\n' "$LATENCY_MS" > "$T/script.json"
fake_start "$T/script.json" || exit 1
rm -f "$FAKE_LOG"  # keep the log small: the fake appends to a deleted file
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=bench-key
fake_cpu() { awk '{print ($14 + $15) / 100}' "/proc/$FAKE_PID/stat"; }
cpu0=$(fake_cpu)
"$driver" anthropic.bench "$N" "$CONC" > "$T/out"
rc=$?
cpu1=$(fake_cpu)
cat "$T/out"
bound=$(awk -v n="$N" -v c="$CONC" -v l="$LATENCY_MS" 'BEGIN { b = int((n + c - 1) / c); print b * l / 1000 }')
wall=$(sed -n 's/^wall_s *//p' "$T/out")
echo "latency_bound_s   $bound   (ceil($N/$CONC) x $LATENCY_MS ms)"
awk -v w="$wall" -v b="$bound" 'BEGIN { printf "wall_over_bound   %.3f   (goal <= 1.10)\n", w / b }'
echo "fake_max_in_flight $(fake_stat max_in_flight)   (bound $CONC)"
awk -v a="$cpu0" -v b="$cpu1" -v w="$wall" 'BEGIN { printf "fake_cpu_s        %.2f   (%.0f%% of one core over the run)\n", b - a, 100 * (b - a) / w }'
fake_stop
exit $rc
