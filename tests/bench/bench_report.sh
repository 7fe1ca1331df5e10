#!/bin/sh
# Benchmark: `skillci report` on generated results files of 300 and 3,000
# skills (3 variants, 4 tests × 2 runs each: 7,200 and 72,000 units),
# writing JUnit, both Markdown reports, the HTML pages and the JSON. Prints
# wall time, units per second, peak RSS and output sizes. Nothing is
# asserted.
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY

for n in ${BENCH_REPORT_SKILLS:-300 3000}; do
	python3 - "$T/r$n.json" "$n" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
M = "anthropic.claude-haiku-4-5"
skills, units, aggs, cmps = [], [], [], []
for i in range(n):
    p = "skills/group-%02d/skill-%05d" % (i % 50, i)
    skills.append({"path": p, "name": p.rsplit("/", 1)[1], "status": "modified", "skill_md": p + "/SKILL.md",
                   "tests": 4, "untested": False, "gate": {"passed": i % 7 != 0, "reasons": []}})
    for v in ("baseline", "base", "head"):
        aggs.append({"skill": p, "variant": v, "model": M, "n": 8, "passed": 5, "failed": 3, "errors": 0,
                     "skipped": 0, "pass_rate": 0.625, "mean_tokens": 1200.5, "speedup_geomean": 1.4})
        for t in range(4):
            for r in range(2):
                k = {"fixture": "softmax", "compile": "ok", "verdict": "passed", "speedup": 1.3 + 0.1 * t,
                     "candidate_ms": 0.2, "baseline_ms": 0.26} if t == 3 else None
                units.append({"skill": p, "variant": v, "model": M, "test_id": "skill_meta.json#tests[%d]" % t,
                              "test_name": "task %d: do the thing" % t, "run_index": r, "kind": "kernel" if k else "text",
                              "verdict": "fail" if (t + r) % 3 == 0 else "pass",
                              "error_class": "wrong_answer" if (t + r) % 3 == 0 else None,
                              "message": "expected text not found" if (t + r) % 3 == 0 else None,
                              "tokens_in": 1000, "tokens_out": 200, "turns": 1, "latency_ms": 2000, "kernel": k})
    cmps.append({"skill": p, "model": M, "from": "base", "to": "head", "paired_n": 8, "pass_rate_delta": 0.0,
                 "p_value": 1.0, "significant": False, "tokens_delta_pct": 0.0, "speedup_ratio": 1.0})
d = {"schema": "skillci.results/1", "skillci_version": "0.1.0",
     "run": {"id": "bench-%d" % n, "kind": "run", "complete": True, "models": [M], "runs": 2, "mode": "gpu"},
     "skills": skills, "units": units, "aggregates": aggs, "comparisons": cmps,
     "gate": {"passed": False, "exit_code": 1,
              "failures": [{"skill": s["path"], "model": M, "rule": "pass_rate_drop", "message": "m"}
                           for s in skills if not s["gate"]["passed"]], "error_share": 0}}
json.dump(d, open(path, "w"))
PY
	python3 - "$n" "$T" "$SKILLCI" <<'PY'
import os, resource, subprocess, sys, time
n, t, skillci = int(sys.argv[1]), sys.argv[2], sys.argv[3]
units = n * 24
src = "%s/r%d.json" % (t, n)
cmd = [skillci, "report", src, "--junit", t + "/j.xml", "--markdown", t + "/r.md",
       "--markdown-full", t + "/full.md", "--html", t + "/html", "--json", t + "/out.json"]
t0 = time.monotonic()
p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
size = lambda f: os.path.getsize(os.path.join(t, f))
print("report %5d skills, %6d units: exit %d, %.2f s, %.0f units/s, peak RSS %.1f MiB" %
      (n, units, p.returncode, wall, units / wall, rss / 1024.0))
print("  input %.1f MiB; junit %.1f MiB, markdown %d bytes (bound 65,536), full markdown %.1f MiB, html %.1f MiB" %
      (size("r%d.json" % n) / 1048576.0, size("j.xml") / 1048576.0, size("r.md"),
       size("full.md") / 1048576.0, size("html/report.html") / 1048576.0))
PY
done
