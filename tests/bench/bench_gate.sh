#!/bin/sh
# The gate's operating characteristics, simulated: a fake student with
# known per-test pass probabilities (profiles easy, mixed, hard, and one
# flaky test), PR scenarios (no change, a drop inside the margin, at the
# margin, a large drop, three tests broken, five skills x two models with
# nothing changed), PRS simulated PRs each, decided by the old fixed rule
# and by the gate's rule (the library's statistics and decision). Prints
# the share of PRs failed and left inconclusive, each with its 95%
# interval, the requests one PR costs, and per profile the drop caught
# with 80% power. docs/run.md ("Error rates of the gate") holds a run.
# Environment: PRS (default 400), SEED.
set -u
root=${SKILLCI_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
driver="$root/$build/tests/bench/bench_gate"
[ -x "$driver" ] || { echo "bench_gate: build $driver first (make BUILD=$build programs)"; exit 1; }
exec "$driver" "${PRS:-400}" "${SEED:-0}"
