"""A stand-in for skillci-kernel (SKILLCI_KERNEL_WORKER), for tests and
benchmarks of the kernel check pool: reads the job from stdin, sleeps,
and writes a "compiled" result carrying the job's nonce on fd 3, as the
real worker does (docs/kernels.md, "Result channel").

    stand_in_worker.py SECONDS [LOG]

LOG, when given, gets one line "START END" (Unix times) per check.
skillci runs the worker with an empty environment and its own arguments,
so callers point SKILLCI_KERNEL_WORKER at a two-line shell wrapper that
execs this file with absolute paths (stand_in_worker in fake.sh)."""
import json
import os
import sys
import time


def main():
    seconds = float(sys.argv[1])
    log = sys.argv[2] if len(sys.argv) > 2 else None
    job = json.loads(sys.stdin.read())
    start = time.time()
    time.sleep(seconds)
    end = time.time()
    if log:
        with open(log, "a") as f:
            f.write("%f %f\n" % (start, end))
    os.write(3, json.dumps({"verdict": "compiled", "reason": "none", "message": "stand-in",
                            "nonce": job["nonce"], "compile": {"ok": True}}).encode())


if __name__ == "__main__":
    main()
