#!/bin/sh
# Runs every benchmark script under tests/bench/ (bench_*.sh). Each prints
# its own numbers; nothing is asserted about time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export SKILLCI_ROOT=$(dirname "$(dirname "$here")")
status=0
for b in "$here"/bench_*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	sh "$b" || { echo "benchmark $(basename "$b") failed"; status=1; }
	echo
done
exit $status
