#!/usr/bin/env python3
"""The Markdown tables of docs/run.md ("Error rates of the gate") from the
output of tests/bench/bench_gate.sh: sh tests/bench/bench_gate.sh |
python3 tests/bench/gate_tables.py."""
import re
import sys

rows = {}      # (profile, scenario) -> {design: (failed, lo, hi, inconclusive, requests)}
order = []
power = {}     # profile -> {design: text}
equal = []
section = "main"
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("# the smallest uniform drop"):
        section = "power"
        continue
    if line.startswith("# equal error rates"):
        section = "equal"
        continue
    if line.startswith("#") or not line.strip():
        if section == "equal" and line.startswith("# the least"):
            section = "done"
        continue
    if line.startswith("profile"):
        continue
    if section == "main":
        m = re.match(r"^(\S+)\s+(.+?)\s{2,}(old-\d+|new-\d+|clus-\d+|seq-\S+)\s+(.*)$", line)
        if not m:
            continue
        prof, scen, design, rest = m.groups()
        nums = re.findall(r"[-\d.]+", rest.replace("%", ""))
        key = (prof, scen)
        if key not in rows:
            rows[key] = {}
            order.append(key)
        if design.startswith("old"):
            rows[key][design] = (nums[0], nums[1], nums[2], None, nums[3])
        else:
            rows[key][design] = (nums[0], nums[1], nums[2], nums[3], nums[6])
    elif section == "power":
        m = re.match(r"^(\S+)\s+(\S+)\s+(.*)$", line)
        if m:
            power.setdefault(m.group(1), {})[m.group(2)] = m.group(3)
    elif section == "equal":
        equal.append(line.split())

seq = next(d for d in rows[order[0]] if d.startswith("seq"))
designs = ["old-1", "old-3", "new-1", "new-3", "new-10", seq]
print("| profile | scenario | " + " | ".join(designs) + " | requests: new-10, %s |" % seq)
print("|---" * (len(designs) + 3) + "|")
for key in order:
    cells = []
    for d in designs:
        f, lo, hi, inc, _ = rows[key][d]
        c = "%s [%s, %s]" % (f, lo, hi)
        if inc is not None:
            c += " (%.0f)" % float(inc)
        cells.append(c)
    req = "%.0f, %.0f" % (float(rows[key]["new-10"][4]), float(rows[key][seq][4]))
    print("| %s | %s | %s | %s |" % (key[0], key[1].replace(" x ", " x "), " | ".join(cells), req))
print()
print("| profile | new-1 | new-3 | new-10 | %s |" % seq)
print("|---|---|---|---|---|")
for prof, d in power.items():
    def cell(x):
        m = re.match(r"([\d.]+) points", x)
        if m:
            return "%s points" % m.group(1)
        m = re.search(r"is ([\d.]+) points", x)
        return "not reached (max %s)" % m.group(1) if m else x
    print("| %s | %s |" % (prof, " | ".join(cell(d[k]) for k in ["new-1", "new-3", "new-10", seq])))
print()
print("| profile | D | fixed R | fixed requests | seq: no change | drop of the margin | drop of D | 35 points | mix |")
print("|---|---|---|---|---|---|---|---|---|")
for e in equal:
    prof, dd, R, freq = e[0], e[1], e[2], e[3]
    vals = e[4:12]
    cells = ["%s (%s)" % (vals[i], vals[i + 1]) for i in range(0, 8, 2)]
    print("| %s | %s points | %s | %s | %s | %s |" % (prof, dd, R, freq, " | ".join(cells), e[12]))
