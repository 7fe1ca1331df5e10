#!/usr/bin/env python3
"""The Markdown tables of docs/run.md ("Error rates of the gate") from the
output of tests/bench/bench_gate.sh:

    sh tests/bench/bench_gate.sh | python3 tests/bench/gate_tables.py

The first table: per profile and scenario, the share of PRs green, red
and unverified (with 95% intervals) and the mean requests of one check;
the second: one check per profile against the fixed design and Wald's
bound; the third: skillci eval's lift decision."""
import re
import sys

RATE = r"\s*([\d.]+) \[\s*([\d.]+),\s*([\d.]+)\]"
main, summary, lift = [], [], []
section = "main"
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("# one check, per profile"):
        section = "summary"
        continue
    if line.startswith("# skillci eval's lift decision"):
        section = "lift"
        continue
    if line.startswith("# the token, speedup and judge checks"):
        section = "done"
        continue
    if not line.strip() or line.startswith("#") or line.startswith("profile"):
        continue
    if section == "main":
        m = re.match(r"^(\S+)\s+(.+?)\s+([\d.]+)" + RATE + RATE + RATE +
                     r"\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line)
        if m:
            main.append(m.groups())
    elif section == "summary":
        m = re.match(r"^(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+) \(([\d.]+)\)\s+([\d.]+) \(([\d.]+)\)"
                     r"\s+(\S+) \((\S+)\)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", line)
        if m:
            summary.append(m.groups())
    elif section == "lift":
        m = re.match(r"^(\S+)\s+([\d.]+)" + RATE + RATE + RATE + r"\s+([\d.]+)$", line)
        if m:
            lift.append(m.groups())


def cell(v, lo, hi):
    return "%s [%s, %s]" % (v, lo, hi)


print("| profile | scenario | mean drop | green % | red % | unverified % | requests per check "
      "| steady (head only) | fixed design | share |")
print("|---|---|---|---|---|---|---|---|---|---|")
for g in main:
    prof, scen, drop = g[0], g[1], g[2]
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        prof, scen, drop, cell(*g[3:6]), cell(*g[6:9]), cell(*g[9:12]), g[12], g[13], g[14],
        g[15]))
print()
print("| profile | fixed R | fixed requests | no change | drop of D | drop of 2D "
      "| Wald's SPRT at D | design at D over SPRT | Wald's SPRT, no change |")
print("|---|---|---|---|---|---|---|---|---|")
for g in summary:
    two = "—" if g[7] == "nan" else "%s (%s)" % (g[7], g[8])
    print("| %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s | %s |" % (
        g[0], g[1], g[2], g[3], g[4], g[5], g[6], two, g[9], g[10], g[11]))
print()
print("| profile | true lift | lift shown % | lift of D ruled out % | unverified % | requests |")
print("|---|---|---|---|---|---|")
for g in lift:
    print("| %s | %s | %s | %s | %s | %s |" % (g[0], g[1], cell(*g[2:5]), cell(*g[5:8]),
                                             cell(*g[8:11]), g[11]))
