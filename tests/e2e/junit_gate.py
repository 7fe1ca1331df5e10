#!/usr/bin/env python3
"""Checks, after one skillci command of an end-to-end suite, that the JUnit
it wrote tells the gate's story: the JUnit's total failures is 0 if and
only if the gate passed.

Usage: junit_gate.py RC MARKER ARG...

ARG... is the command line as the suite ran it (it may start with env or
a wrapper); the skillci binary is $SKILLCI. Only `run`, `merge` and
`report` are looked at. MARKER is a file touched just before the command:
a JUnit older than it was not written by this command and is ignored.

The gate is the results JSON's: the one the command wrote (run, merge: its
--json, else --report-dir/results.json, else .skillci/report/results.json)
or, for report, the one it wrote with --json: report recomputes the gate
from the units it read (docs/security.md), so the file it read says only
what that file claimed; a report without --json is not checked. For run and merge, the exit code must agree too: 0 with no
failure, 1 with some (3 is infrastructure: the JSON decides).

It also validates the JUnit against the Jenkins schema (junit-10.xsd,
the repository's copy) with xmllint, unless --junit-file-attrs asked for
the attributes that schema lacks.

Prints "checked" when it compared something, nothing when the command
wrote no JUnit; exits 1 with the reason when they disagree.
"""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

VALUED = {
    "run": {"--repo", "--base", "--head", "--config", "-m", "--model", "--runs", "--fixtures",
            "--junit", "--markdown", "--html", "--json", "--report-dir", "--shard",
            "--shard-count", "--jobs", "--batch", "--store", "--cache", "--retries"},
    "merge": {"--config", "--junit", "--markdown", "--html", "--json", "--report-dir"},
    "report": {"--base", "--junit", "--markdown", "--markdown-full", "--html", "--json"},
}


def parse(cmd, args):
    opts, pos, i = {}, [], 0
    while i < len(args):
        a = args[i]
        if a == "--history":
            i += 1
            while i < len(args) and not args[i].startswith("-"):
                i += 1
            continue
        if a.startswith("--") and "=" in a:
            k, v = a.split("=", 1)
            opts[k] = v
        elif a in VALUED[cmd] and i + 1 < len(args):
            opts[a] = args[i + 1]
            i += 1
        elif not a.startswith("-"):
            pos.append(a)
        i += 1
    return opts, pos


def workdir(wrapper):
    """The folder a `sh -c 'cd "$1" ...' - DIR` wrapper runs the command in, else "."."""
    for i in range(len(wrapper) - 3):
        if wrapper[i] == "-c" and wrapper[i + 1].lstrip().startswith('cd "$1"') and \
                wrapper[i + 2] == "-":
            return wrapper[i + 3]
    return "."


def main():
    rc, marker, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    skillci = os.environ.get("SKILLCI", "")
    at = next((i for i, a in enumerate(argv) if a == skillci or
               (os.path.basename(a) == "skillci" and os.path.isfile(a))), None)
    if at is None or at + 1 >= len(argv) or argv[at + 1] not in VALUED:
        return 0
    cmd = argv[at + 1]
    opts, pos = parse(cmd, argv[at + 2:])
    # `sh -c 'cd "$1" && ...' - DIR skillci ...`: the command ran in DIR,
    # so its relative paths (and the default report folder) are DIR's, not
    # this suite's working folder, which other suites running beside it may
    # write their own default reports into
    where = workdir(argv[:at])
    rel = lambda p: p if p is None or os.path.isabs(p) else os.path.join(where, p)
    for k in ("--report-dir", "--junit", "--json"):
        if opts.get(k):
            opts[k] = rel(opts[k])
    rdir = opts.get("--report-dir")
    junit = opts.get("--junit") or (rdir and os.path.join(rdir, "junit.xml"))
    if not junit and cmd != "report":
        junit = rel(".skillci/report/junit.xml")
    if not junit or not os.path.isfile(junit):
        return 0
    # a file times stamped in the same clock tick as the marker was not
    # written by this command (file times are coarse: a previous command's
    # JUnit, written just before the marker, can carry the marker's time)
    if os.path.getmtime(junit) <= os.path.getmtime(marker):
        return 0
    if cmd == "report":
        results = opts.get("--json")
        if not results:
            return 0
    else:
        results = opts.get("--json") or (rdir and os.path.join(rdir, "results.json")) or \
            rel(".skillci/report/results.json")
    if not results or not os.path.isfile(results):
        print("%s wrote %s but its results JSON %s is missing" % (cmd, junit, results))
        return 1
    root = ET.parse(junit).getroot()
    failures = len(root.findall(".//failure"))
    errors = len(root.findall(".//testcase/error"))
    declared = int(root.get("failures", "0"))
    r = json.load(open(results, encoding="utf-8"))
    gate = r.get("gate", {})
    passed = gate.get("passed", True)
    verdict = gate.get("verdict")
    problems = []
    if declared != failures:
        problems.append("testsuites failures=%d but %d <failure> elements" % (declared, failures))
    # what blocks the merge is a failure (a regression, a broken rule, an
    # unverified check not accepted) or an error (could not check)
    if (failures + errors == 0) != bool(passed):
        problems.append("gate passed=%s in %s but the JUnit has %d failures and %d errors" %
                        (passed, results, failures, errors))
    if cmd in ("run", "merge") and rc in (0, 1) and (rc == 0) != (failures == 0):
        problems.append("exit %d but the JUnit has %d failures" % (rc, failures))
    if verdict is not None:
        if cmd in ("run", "merge"):
            want = {0: ("pass", "unverified"), 1: ("fail", "unverified"), 3: ("error",)}.get(rc)
            if want and verdict not in want:
                problems.append("exit %d but the verdict is %s" % (rc, verdict))
        props = [p.get("value") for p in root.iter("property") if p.get("name") == "verdict"]
        if props and any(v != verdict for v in props):
            problems.append("the JUnit says verdict %s, the results %s" % (props[0], verdict))
    xsd = os.path.join(os.environ.get("SKILLCI_ROOT", "."), "tests", "data", "junit-10.xsd")
    if "--junit-file-attrs" not in argv and os.path.isfile(xsd) and shutil.which("xmllint"):
        v = subprocess.run(["xmllint", "--noout", "--schema", xsd, junit], capture_output=True, text=True)
        if v.returncode != 0:
            problems.append("not valid against junit-10.xsd: " + v.stderr.strip()[-500:])
    if problems:
        print("%s (%s): %s" % (" ".join(argv[at:at + 2]), junit, "; ".join(problems)))
        return 1
    print("checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
