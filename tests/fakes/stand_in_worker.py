"""A stand-in for skillci-kernel (SKILLCI_KERNEL_WORKER), for tests and
benchmarks of the kernel check pool: reads the job from stdin, sleeps,
and writes a "compiled" result carrying the job's nonce on fd 3, as the
real worker does (docs/kernels.md, "Result channel").

    stand_in_worker.py SECONDS [LOG [RESULT [JOB_COPY]]]

LOG, when given (and not ""), gets one line "START END" (Unix times) per
check. RESULT, a file holding a JSON object, is the result written
instead of "compiled" (the job's nonce added); when it has a
"timing"."strong_reference" and the job times (it has a "baseline") but
carries no fixture solution (no "solution" member), that strong
reference becomes "none", as the real worker reports it. JOB_COPY, when given, gets a copy of the job.
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
    text = sys.stdin.read()
    job = json.loads(text)
    if len(sys.argv) > 4 and sys.argv[4]:
        with open(sys.argv[4], "w") as f:
            f.write(text)
    start = time.time()
    time.sleep(seconds)
    end = time.time()
    if log:
        with open(log, "a") as f:
            f.write("%f %f\n" % (start, end))
    result = {"verdict": "compiled", "reason": "none", "message": "stand-in", "compile": {"ok": True}}
    if len(sys.argv) > 3 and sys.argv[3]:
        with open(sys.argv[3]) as f:
            result = json.load(f)
        strong = result.get("timing", {}).get("strong_reference")
        if strong is not None and "baseline" in job and "solution" not in job:
            result["timing"]["strong_reference"] = {"name": "none", "status": "none",
                                                    "why": "the fixture has no solution.cu"}
    result["nonce"] = job["nonce"]
    os.write(3, json.dumps(result).encode())


if __name__ == "__main__":
    main()
