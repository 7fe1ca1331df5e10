#!/bin/sh
# skillci eval of the example CUDA skill with the oracle provider on a GPU
# machine that has CUDA but none of the Debian -dev packages: skillci and
# its libraries come from gpu-bundle/skillci-libs.tar.xz (make gpu-bundle),
# the worker from gpu-bundle/. Run from the repository root:
#
#   OUT=/some/dir sh gpu-bundle/gpu-eval.sh [more eval options]
#
# Prints the eval's terminal output and the run's GPU, mode and
# fixtures.lock from the results JSON written to $OUT/eval.json.
set -u
OUT=${OUT:-/tmp/skillci-gpu-out}
here=$(cd "$(dirname "$0")" && pwd)
g=$(mktemp -d "${TMPDIR:-/tmp}/skillci-gpu.XXXXXX")
trap 'rm -rf "$g"' EXIT
mkdir -p "$OUT" "$g/bin"
tar xJf "$here/skillci-libs.tar.xz" -C "$g" || exit 3
cp "$g/skillci" "$here/skillci-kernel" "$here/libcjson.so.1" "$g/bin/"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
LD_LIBRARY_PATH="$g/lib" timeout 300 "$g/bin/skillci" eval skills/cuda-kernels -m oracle.self \
	--no-baseline --store "$g/results.db" --no-cache --json "$OUT/eval.json" "$@" > "$OUT/eval.txt" 2>&1
rc=$?
cat "$OUT/eval.txt"
grep -o '"mode":[^,]*' "$OUT/eval.json" | head -1
grep -o '"gpu":[^}]*}' "$OUT/eval.json" | tr -d '\n\t' | head -1; echo
grep -o '"fixtures_lock":[^,]*' "$OUT/eval.json" | head -1
echo "eval exit $rc"
exit $rc
