#!/bin/sh
# The gate's pass-rate decision, simulated: a fake student with known
# per-test pass probabilities (profiles easy, mixed, hard, and one flaky
# test), PR scenarios (no change, a 2-point drop, a drop of D and of 2D,
# a 35-point drop, the three tests passed most broken, five skills x two
# models with nothing changed, and a drop of D in one of those ten
# checks), PRS simulated PRs each, decided by the design as shipped
# (pipeline/sequential.h with the defaults of pipeline/config.c). Prints
# the share of PRs green, red and unverified with 95% intervals, the mean
# requests of one check against the fixed design with the same alpha, beta
# and D and against Wald's SPRT bound, skillci eval's lift decision, and
# the token, speedup and judge checks. docs/run.md ("Error rates of the
# gate") holds a run; tests/bench/gate_tables.py turns the output into its
# tables.
# Environment: PRS (default 1000), SEED; FIRST, MAX, D (points), BETA and
# IMAX change the design for an experiment (the defaults: the shipped one).
# LOOKS=half (a look after each side's half-round) or LOOKS=test (after
# each test's pair of units), with LOOKS_STEPS=N (default 20 and 40) the
# steps the boundaries are calibrated for: an experiment on where the
# design looks, not the design as shipped (unset: looks after whole rounds).
# VARIANCE=known (the true variance of the paired mean) or VARIANCE=unbiased
# (the plain pooled estimate, no floor, no cap), in the design and in the
# fixed design it is compared with: what estimating the variance costs.
set -u
root=${SKILLCI_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
driver="$root/$build/tests/bench/bench_gate"
[ -x "$driver" ] || { echo "bench_gate: build $driver first (make BUILD=$build programs)"; exit 1; }
exec "$driver" "${PRS:-1000}" "${SEED:-0}" "${FIRST:-0}" "${MAX:-0}" "${D:-0}" "${BETA:-0}" "${IMAX:-0}"
