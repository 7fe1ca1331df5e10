#!/bin/sh
# Benchmark: `skillci validate` and `skillci list` on a generated tree of
# 10,000 skills (SKILL.md with front matter, a body with links, a
# reference file each; every tenth skill has an unknown field (a warning)). Prints wall time,
# skills per second and peak RSS. Nothing is asserted.
set -u
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
N=${BENCH_SKILLS:-10000}
T=$(mktemp -d "${TMPDIR:-/tmp}/skillci-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

python3 - "$T/repo" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
body = "".join("Step %d: read the input, check it, then write the answer.\n" % i for i in range(40))
for i in range(n):
    group = "group-%03d" % (i // 100)
    name = "skill-%05d" % i
    d = os.path.join(root, "skills", group, name)
    os.makedirs(os.path.join(d, "references"))
    desc = "Benchmark skill number %d, which does a small task well." % i
    extra = "favourite-colour: blue\n" if i % 10 == 0 else ""
    with open(os.path.join(d, "SKILL.md"), "w") as f:
        f.write("---\nname: %s\ndescription: %s\nlicense: MIT\nmetadata:\n  author: bench\n%s---\n\n# %s\n\n%s\nSee [the guide](references/guide.md).\n"
                % (name, desc, extra, name, body))
    with open(os.path.join(d, "references", "guide.md"), "w") as f:
        f.write("# Guide\n")
PY

# measure LABEL CMD...: wall seconds and peak RSS of one run.
measure() {
	label=$1; shift
	python3 - "$label" "$N" "$@" <<'PY'
import resource, subprocess, sys, time
label, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
t0 = time.monotonic()
p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
wall = time.monotonic() - t0
rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
summary = p.stderr.decode(errors="replace").strip().splitlines()
print("%-22s skills=%d exit=%d wall=%.2fs rate=%.0f skills/s peak_rss=%.1f MiB%s"
      % (label, n, p.returncode, wall, n / wall if wall else 0, rss_kib / 1024,
         ("  [" + summary[-1] + "]") if summary else ""))
PY
}

cd "$T/repo"
measure "validate" "$SKILLCI" validate skills
measure "validate --json" "$SKILLCI" validate --json skills
measure "list -v" "$SKILLCI" list -v -d skills
