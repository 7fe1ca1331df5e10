#!/bin/sh
# Benchmark of the kernel check pool beside the requests: `skillci eval` of
# one skill with 6 kernel tests, one request slot (--concurrency 1), each
# answer taking 300 ms at the fake model server, and each kernel check
# taking 400 ms in a stand-in worker (SKILLCI_KERNEL_WORKER, the same
# protocol as skillci-kernel: the job on stdin, the result with the run's
# nonce on fd 3). Requests alone take 1.8 s and checks alone 2.4 s, so
# checks run one after another (--jobs 1) end at 0.3 + 2.4 = 2.7 s at best
# when they overlap with the requests, and at 4.2 s (their sum) when the
# loop stands still for each check. With --jobs 2 the checks keep up with
# the answers and the bound is 6 x 0.3 + 0.4 = 2.2 s. Three runs each;
# nothing is asserted.
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
root=${SKILLCI_ROOT:-$(pwd)}
cd "$root" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench-pool.XXXXXX") || exit 1
FAKE_NOLOG=1
. tests/fakes/fake.sh
mkdir -p "$T/fx" "$T/skills/kern" "$T/home"
cp -R fixtures/softmax "$T/fx/" || exit 1
printf -- '---\nname: kern\ndescription: Writes CUDA kernels.\n---\nWrite fast kernels.\n' \
	> "$T/skills/kern/SKILL.md"
python3 - "$T/skills/kern/skill_meta.json" <<'EOF'
import json, sys
json.dump({"tests": [{"input": "Kernel task %d." % i, "fixture": "softmax"} for i in range(6)]},
          open(sys.argv[1], "w"))
EOF
stand_in_worker "$T/worker" 0.4 || exit 1
printf '%s\n' '{"default": {"text": "```cuda\n__global__ void softmax() {}\n```", "latency_ms": 300}}' \
	> "$T/script.json"
fake_start "$T/script.json" || exit 1
trap 'fake_stop; rm -rf "$T"' EXIT
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=bench-key HOME="$T/home"
now() { python3 -c 'import time; print(time.time())'; }

measure() {  # JOBS BOUND
	i=1
	while [ $i -le 3 ]; do
		fake_reset
		t0=$(now)
		SKILLCI_KERNEL_WORKER="$T/worker" "$SKILLCI" eval "$T/skills/kern" -m anthropic.kernel-model \
			--no-baseline --max-turns 1 --fixtures "$T/fx" --allow-unpinned --no-cache \
			--store "$T/s$1-$i.db" --concurrency 1 --jobs "$1" > "$T/out" 2>&1
		rc=$?
		t1=$(now)
		[ $rc -le 1 ] || { echo "--jobs $1: exit $rc"; tail -n 5 "$T/out"; return 1; }
		python3 -c "w = $t1 - $t0; print('--jobs %s  run %d  wall %.2f s  overlap bound %.1f s  no-overlap 4.2 s  wall/bound %.2f  %d requests'
		             % ('$1', $i, w, $2, w / $2, $(fake_stat requests)))"
		i=$((i + 1))
	done
}
echo "6 kernel answers, 300 ms each on one request slot; each check 400 ms in a stand-in worker"
measure 1 2.7
measure 2 2.2
