#!/usr/bin/env python3
"""Runs one test suite for tests/run-tests.sh and keeps its output apart.

    run-suite.py LOG CASES RESULT -- COMMAND...

COMMAND's stdout and stderr go, line by line and unchanged, to LOG. CASES
gets one line per TAP result line ("ok N - name" / "not ok N - name"):
the seconds since the previous result line (or since the start) and the
line itself, tab-separated; that is the time the case took. RESULT gets
one line: COMMAND's exit status (128 + N when signal N ended it) and the
suite's wall time in seconds. The exit status is COMMAND's too.

Processes the suite left running that still hold its output open do not
keep the runner waiting: once COMMAND has exited, output that arrives
within a short grace period is kept and the rest is dropped.
"""
import os
import re
import select
import subprocess
import sys
import time

TAP = re.compile(rb"^(not )?ok [0-9]+")
GRACE = 1.0


def main():
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        sys.stderr.write("usage: run-suite.py LOG CASES RESULT -- COMMAND...\n")
        return 2
    log_path, cases_path, result_path = sys.argv[1:4]
    cmd = sys.argv[5:]
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    try:
        with open(os.devnull, "rb") as null:
            proc = subprocess.Popen(cmd, stdin=null, stdout=write_fd, stderr=write_fd)
    except OSError as e:
        with open(log_path, "w") as log:
            log.write("run-suite.py: cannot run %s: %s\n" % (cmd[0], e))
        open(cases_path, "w").close()
        with open(result_path, "w") as result:
            result.write("127 0.000\n")
        return 127
    os.close(write_fd)
    last = start
    pending = b""
    with open(log_path, "wb") as log, open(cases_path, "w") as cases:
        def emit(line):
            nonlocal last
            log.write(line)
            if TAP.match(line):
                now = time.monotonic()
                text = line.rstrip(b"\r\n").decode("utf-8", "replace").replace("\t", " ")
                cases.write("%.3f\t%s\n" % (now - last, text))
                last = now

        deadline = None
        while True:
            if deadline is None and proc.poll() is not None:
                deadline = time.monotonic() + GRACE
            wait = 0.2 if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([read_fd], [], [], wait)
            if not ready:
                if deadline is not None and time.monotonic() >= deadline:
                    break
                continue
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                emit(line + b"\n")
        if pending:
            emit(pending + b"\n")
    os.close(read_fd)
    rc = proc.wait()
    rc = 128 - rc if rc < 0 else rc
    with open(result_path, "w") as result:
        result.write("%d %.3f\n" % (rc, time.monotonic() - start))
    return rc


if __name__ == "__main__":
    sys.exit(main())
