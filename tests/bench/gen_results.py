#!/usr/bin/env python3
"""Writes a results JSON file of N changed skills for the report benchmark
(tests/bench/bench_report.sh).

Usage: gen_results.py N OUT [ROOT]

The skills are copies of the changed skills of two results files a real
`skillci run` wrote (tests/golden/inputs/rows.json: one skill of every kind
a report row can show, added, deleted, renamed, improved, regressed,
invalid, untested, with findings, already failing; and pr.json's kernel
skills: kernel units with speedups, a mismatch and an error), each copy
under a folder of its own (skills/g00042/regressed), with everything that
names it: units, aggregates, comparisons, the gate's checks (margins
included) and failures, the usage rows, and a history row per test. So a
file of N skills has what N real changed skills have, about 21 units each.
The copies are taken in turn, so every kind is present from N = 11.
"""
import json
import os
import sys

VARIANTS = {"baseline": 0, "base": 1, "head": 2, "head_tests": 3}
CHECKS = ["deleted", "validity", "tests", "pass_rate", "lift", "discrimination", "kernel",
          "tokens", "speedup", "judge", "errors"]
MODEL = "anthropic.fake-student"


def load(root, name):
    with open(os.path.join(root, "tests", "golden", "inputs", name)) as f:
        return json.load(f)


def templates(root):
    """One template per skill: its records of every array, as JSON text
    in which the skill's path is a placeholder."""
    out = []
    for doc, names in ((load(root, "rows.json"), None),
                       (load(root, "pr.json"), ("skills/cuda-softmax", "skills/cuda-gemm"))):
        model = doc["run"]["models"][0]
        for s in doc["skills"]:
            path = s["path"]
            if names and path not in names:
                continue
            paths = [path] + ([s["old_path"]] if s.get("old_path") else [])
            rec = {
                "skill": s,
                "units": [u for u in doc["units"] if u["skill"] == path],
                "aggregates": [a for a in doc["aggregates"] if a["skill"] == path],
                "comparisons": [c for c in doc["comparisons"] if c["skill"] == path],
                "checks": [c for c in doc["gate"].get("checks", []) if c["skill"] == path],
                "failures": [f for f in doc["gate"]["failures"] if f["skill"] == path],
                "usage": [u for u in doc["run"].get("usage", []) if u["skill"] == path],
            }
            text = json.dumps(rec).replace(model, MODEL)
            for i, p in enumerate(paths):
                text = text.replace(p + "/", "@%d@/" % i).replace('"%s"' % p, '"@%d@"' % i)
            out.append((paths, text))
    return out


def main():
    n, dest = int(sys.argv[1]), sys.argv[2]
    root = sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    tpl = templates(root)
    skills, units, aggs, cmps, checks, failures, usage, history = [], [], [], [], [], [], [], []
    for i in range(n):
        paths, text = tpl[i % len(tpl)]
        for k, p in enumerate(paths):
            q = "skills/g%05d/%s" % (i, p.rsplit("/", 1)[1])
            text = text.replace("@%d@" % k, q)
        rec = json.loads(text)
        skills.append(rec["skill"])
        units += rec["units"]
        aggs += rec["aggregates"]
        cmps += rec["comparisons"]
        checks += rec["checks"]
        failures += rec["failures"]
        usage += rec["usage"]
        seen = {}
        for u in rec["units"]:
            if u["variant"] in ("base", "head"):
                key = (u["skill"], u["variant"], u["model"], u["test_id"])
                runs, passes = seen.get(key, (0, 0))
                seen[key] = (runs + 1, passes + (u["verdict"] == "pass"))
        for (sk, v, m, t), (runs, passes) in seen.items():
            runs, passes = runs + 4, passes + 2
            history.append({"skill": sk, "variant": v, "model": m, "test_id": t, "runs": runs,
                            "passes": passes,
                            "flip_rate": 2.0 * passes * (runs - passes) / (runs * (runs - 1))})
    vkey = lambda v: VARIANTS.get(v, 9)
    skills.sort(key=lambda s: s["path"])
    units.sort(key=lambda u: (u["skill"], u["model"], vkey(u["variant"]), u["test_id"], u["run_index"]))
    aggs.sort(key=lambda a: (a["skill"], a["model"], vkey(a["variant"])))
    cmps.sort(key=lambda c: c["skill"])
    checks.sort(key=lambda c: (c["skill"], c["model"], CHECKS.index(c["check"])))
    usage.sort(key=lambda u: (u["skill"], u["model"]))
    history.sort(key=lambda h: (h["skill"], vkey(h["variant"]), h["model"], h["test_id"]))
    rows = load(root, "rows.json")
    run = rows["run"]
    run["id"] = "bench-%d" % n
    run["usage"] = usage
    run["trust"]["gate"]["planned_checks"] = sum(c["check"] in ("pass_rate", "lift") for c in checks)
    verdicts = [u["verdict"] for u in units]
    doc = {
        "schema": "skillci.results/1", "skillci_version": rows["skillci_version"],
        "harness_version": rows["harness_version"], "run": run, "skills": skills,
        "units": units, "aggregates": aggs, "comparisons": cmps,
        "gate": {"passed": not failures, "exit_code": 1 if failures else 0,
                 "verdict": "fail" if failures else "pass",
                 "unverified": sum(c["status"] == "unverified" for c in checks),
                 "failures": failures, "error_share": 0, "checks": checks},
        "totals": {"units": len(units), "evaluated": len(units), "reused": 0, "cache_hits": 0,
                   "requests": len(units),
                   "tokens_in": sum(u["tokens_in"] for u in units),
                   "tokens_out": sum(u["tokens_out"] for u in units),
                   "passed": verdicts.count("pass"), "failed": verdicts.count("fail"),
                   "errors": verdicts.count("error"), "skipped": verdicts.count("skipped"),
                   "wall_ms": 9000},
        "history": history,
    }
    with open(dest, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
