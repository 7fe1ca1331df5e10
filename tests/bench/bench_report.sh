#!/bin/sh
# Benchmark: `skillci report` of results files of 50 to 5,000 changed
# skills (tests/bench/gen_results.py: copies of the changed skills of two
# real runs, about 21 units each, with their aggregates, comparisons, the
# gate's checks and margins, failures and history), signed so that report
# judges them by their recorded policy. One `report` per format: the
# terminal summary alone (stdout, which every other run prints too),
# then with --junit, --markdown, --markdown-full, --html, --json, and the
# GitHub Actions outputs (annotations, $GITHUB_OUTPUT, the step summary).
# Prints per format the CPU seconds (user + system) at each size and the
# CPU per skill in milliseconds: reports linear in skills keep that column
# flat, then the wall seconds of the same runs. Each is the least of
# BENCH_REPORT_REPEAT runs (3): the machine is shared, and the least is
# the report's own cost. A format that took longer than
# BENCH_REPORT_LIMIT seconds (60) is not run at the larger sizes. Nothing
# is asserted.
#
#   BENCH_REPORT_SKILLS="50 100 200 400 800 1600 5000"  the sizes
#   BENCH_REPORT_FORMATS="terminal junit markdown markdown-full html json github"
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY
SKILLCI_RUNNER_KEY=bench-report-key-0123456789abcdef
export SKILLCI_RUNNER_KEY
sizes=${BENCH_REPORT_SKILLS:-50 100 200 400 800 1600 5000}
formats=${BENCH_REPORT_FORMATS:-terminal junit markdown markdown-full html json github}

for n in $sizes; do
	python3 "$here/gen_results.py" "$n" "$T/u$n.json" &&
		python3 "$here/../e2e/sign_results.py" "$T/u$n.json" "$T/r$n.json" &&
		rm -f "$T/u$n.json" || { echo "bench_report: cannot write the $n-skill file"; exit 1; }
done

python3 - "$SKILLCI" "$T" "${BENCH_REPORT_LIMIT:-60}" "$sizes" "$formats" "${BENCH_REPORT_REPEAT:-3}" <<'PY'
import json, os, resource, subprocess, sys, time
skillci, t, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
repeat = max(1, int(sys.argv[6]))
sizes, formats = [int(n) for n in sys.argv[4].split()], sys.argv[5].split()

def args(fmt):
    out = os.path.join(t, "out")
    return {"terminal": [], "junit": ["--junit", out + ".xml"], "markdown": ["--markdown", out + ".md"],
            "markdown-full": ["--markdown-full", out + ".full.md"], "html": ["--html", out + ".html"],
            "json": ["--json", out + ".json"], "github": []}[fmt]

def cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime

table, wall = {}, {}
for n in sizes:
    src = os.path.join(t, "r%d.json" % n)
    units = len(json.load(open(src))["units"])
    mib = os.path.getsize(src) / 1048576.0
    print("%5d skills: %6d units, %.1f MiB" % (n, units, mib), flush=True)
    for fmt in formats:
        if table.get((fmt, "over")):
            continue
        env = dict(os.environ)
        if fmt == "github":
            env.update(GITHUB_ACTIONS="true", GITHUB_OUTPUT=os.path.join(t, "gh.out"),
                       GITHUB_STEP_SUMMARY=os.path.join(t, "gh.summary"))
        s = None
        for _ in range(repeat):
            c0, w0 = cpu(), time.monotonic()
            p = subprocess.run([skillci, "report", src] + args(fmt), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=env)
            c, w = cpu() - c0, time.monotonic() - w0
            if p.returncode != 0:
                print("  %s: exit %d: %s" % (fmt, p.returncode, p.stderr.decode()[-300:]))
                sys.exit(1)
            s = c if s is None else min(s, c)
            wall[(fmt, n)] = min(wall.get((fmt, n), w), w)
        table[(fmt, n)] = s
        if s > limit:
            table[(fmt, "over")] = True

print()
print("CPU seconds of `skillci report` (user + system) per format and size, the least of %d runs;" % repeat)
print("last column: ms per skill")
print("%-14s" % "format" + "".join("%9d" % n for n in sizes) + "   ms/skill (%d .. %d)" % (sizes[0], sizes[-1]))
for fmt in formats:
    row = "%-14s" % fmt
    per = []
    for n in sizes:
        s = table.get((fmt, n))
        row += "%9s" % ("—" if s is None else "%.2f" % s)
        if s is not None:
            per.append(1000.0 * s / n)
    row += "   " + " ".join("%.2f" % x for x in per)
    print(row)

print()
print("Wall seconds of the same runs (the signature, parts of a report and the writing of a file")
print("run on other threads: a report waits less than its CPU time where a core is free)")
print("%-14s" % "format" + "".join("%9d" % n for n in sizes))
for fmt in formats:
    print("%-14s" % fmt + "".join("%9s" % ("—" if wall.get((fmt, n)) is None else
                                           "%.2f" % wall[(fmt, n)]) for n in sizes))
PY
