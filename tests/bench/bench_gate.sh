#!/bin/sh
# The gate's operating characteristics, simulated: a fake student with
# known per-test pass probabilities (profiles easy, mixed, hard, and one
# flaky test), PR scenarios (no change, a drop inside the margin, at the
# margin, a large drop, three tests broken, five skills x two models with
# nothing changed), PRS simulated PRs each, decided by the old fixed rule,
# by the gate's fixed design and by its sequential design (the library's
# statistics and decision, pipeline/sequential.h). Prints the share of PRs
# failed and left inconclusive, each with its 95% interval, the mean
# requests one PR costs, per profile the drop caught with 80% power, and
# the requests of the sequential design against the fixed design of the
# same power, the reported interval's misses against the true difference,
# and skillci eval's lift decision. docs/run.md ("Error rates of the gate")
# and docs/evaluation.md hold a run.
# Environment: PRS (default 1000), SEED, and the sequential design's
# SEQ_FIRST (runs per round, default 2) and SEQ_MAX (the budget, 20).
set -u
root=${SKILLCI_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
driver="$root/$build/tests/bench/bench_gate"
[ -x "$driver" ] || { echo "bench_gate: build $driver first (make BUILD=$build programs)"; exit 1; }
exec "$driver" "${PRS:-1000}" "${SEED:-0}" "${SEQ_FIRST:-2}" "${SEQ_MAX:-20}"
