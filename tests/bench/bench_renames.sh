#!/bin/sh
# Benchmark of rename detection in `skillci changed` against the git command
# line, on a synthetic repository shaped like anthropics/skills from its
# first commit to a restructure: 16 skills moved at once from the top level
# (and document-skills/) to skills/, each SKILL.md edited, some scripts and
# schemas edited, fonts (binary) moved, a few of them edited or replaced.
# The repository is written with `git fast-import` by a seeded generator
# (the same bytes every time) and kept under $BUILD/bench-renames/.
#
# Timed, in one run, best of REPS (default 5) each:
#   skillci  `skillci changed --two-dot --base A --head B --json`
#   git      `git diff --name-status -M A B` (git's own rename detection,
#            before any mapping to skills)
# Prints both times and the ratio skillci/git (goal: at most 1), after
# checking that skillci's renames are the skills whose SKILL.md git calls
# renamed.
set -eu
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
root=${SKILLCI_ROOT:-$(pwd)}
build=${BUILD:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
work="$build/bench-renames"
repo="$work/repo.git"
reps=${REPS:-5}
mkdir -p "$work"

if [ ! -f "$repo/.complete-v1" ]; then
	rm -rf "$repo"
	git init -q --bare "$repo"
	python3 - <<'EOF' | git -C "$repo" fast-import --quiet
import random, sys
rng = random.Random(16)
out = sys.stdout.buffer
WORDS = ("the skill reads each page of the file and writes a table of what it found; "
         "use the script for the heavy part and check the output before you answer. ").split()

def text(lines, width=70, seed_words=None):
    ws = seed_words or WORDS
    return "".join(" ".join(rng.choice(ws) for _ in range(width // 6)) + "\n" for _ in range(lines)).encode()

def edit(data, share):
    lines = data.split(b"\n")
    for i in range(len(lines)):
        if rng.random() < share:
            lines[i] = lines[i] + b" (edited)"
    return b"\n".join(lines)

def skill_md(name, extra=b""):
    head = ("---\nname: %s\ndescription: %s\nlicense: Complete terms in LICENSE.txt\n---\n\n# %s\n\n"
            % (name, "Work with " + name + " files: read, write and check them.", name)).encode()
    return head + text(120) + extra

# the first commit: skills at the top level and under document-skills/
tree = {}
names = ["algorithmic-art", "artifacts-builder", "brand-guidelines", "canvas-design",
         "internal-comms", "mcp-builder", "skill-creator", "slack-gif-creator", "template-skill",
         "theme-factory", "webapp-testing", "frontend-design"]
docs = ["docx", "pdf", "pptx", "xlsx"]
for n in names:
    tree[n + "/SKILL.md"] = skill_md(n)
    tree[n + "/LICENSE.txt"] = text(200, seed_words="Licensed under the Apache License version two".split())
    for k in range(rng.randint(1, 4)):
        tree["%s/reference/notes-%d.md" % (n, k)] = text(rng.randint(40, 300))
    for k in range(rng.randint(0, 5)):
        tree["%s/scripts/tool_%d.py" % (n, k)] = text(rng.randint(50, 400), seed_words="def return import self for in if else".split())
ofl = text(90, seed_words="SIL Open Font License version 1.1 copyright reserved font name".split())
for k in range(54):   # canvas-design's fonts: binary, 40-400 KB each
    tree["canvas-design/canvas-fonts/Font%02d-Regular.ttf" % k] = bytes(rng.getrandbits(8) for _ in range(rng.randint(40, 400) * 1024))
    if k % 3 == 0:
        tree["canvas-design/canvas-fonts/Font%02d-OFL.txt" % k] = ofl
schemas = {"ooxml/schemas/%s-%02d.xsd" % (p, k): text(rng.randint(80, 900), seed_words="xsd:element name type minOccurs maxOccurs complexType sequence".split())
           for p in ("wml", "dml", "pml", "sml") for k in range(12)}
for d in docs:
    tree["document-skills/%s/SKILL.md" % d] = skill_md(d)
    tree["document-skills/%s/LICENSE.txt" % d] = text(200, seed_words="Proprietary terms for document skills".split())
    for path, data in schemas.items():
        if d != "pdf":
            tree["document-skills/%s/%s" % (d, path)] = data
    for k in range(8):
        tree["document-skills/%s/scripts/office_%d.py" % (d, k)] = text(rng.randint(80, 500), seed_words="def return import self for in if else".split())

def commit(mark, files, parent, msg, deletes=()):
    out.write(b"commit refs/heads/main\nmark :%d\n" % mark)
    out.write(b"committer bench <bench@example.com> %d +0000\n" % (1767225600 + mark * 60))
    out.write(b"data %d\n%s\n" % (len(msg), msg))
    if parent:
        out.write(b"from :%d\n" % parent)
        out.write(b"deleteall\n")
    for path in sorted(files):
        data = files[path]
        out.write(b"M 100644 inline %s\ndata %d\n" % (path.encode(), len(data)))
        out.write(data + b"\n")

commit(1, tree, 0, b"first commit")
# the restructure: every skill to skills/NAME, edited as a real move is
head = {}
for path, data in tree.items():
    top, rest = path.split("/", 1)
    if top == "document-skills":
        name, rest = rest.split("/", 1)
    else:
        name = top
    new = "skills/%s/%s" % (name, rest)
    if rest == "SKILL.md":
        data = data.replace(b"description: Work with", b"description: Read and write") + text(12)
    elif rest.endswith((".py", ".md")) and rng.random() < 0.3:
        data = edit(data, 0.2)
    elif rest.endswith(".ttf") and rng.random() < 0.15:
        data = data[:1000] + bytes(rng.getrandbits(8) for _ in range(64)) + data[1064:]
    elif rest.endswith(".ttf") and rng.random() < 0.05:
        data = bytes(rng.getrandbits(8) for _ in range(len(data)))
    elif rest.endswith(".xsd") and rng.random() < 0.1:
        data = edit(data, 0.1)
    head[new] = data
for n in names[:3]:
    head["skills/%s/reference/added.md" % n] = text(60)
commit(2, head, 1, b"move every skill under skills/")
EOF
	touch "$repo/.complete-v1"
	echo "generated $(git -C "$repo" rev-list --count main) commits: $repo"
fi

A=$(git -C "$repo" rev-list --reverse main | sed -n 1p)
B=$(git -C "$repo" rev-list --reverse main | sed -n 2p)

. "$root/tests/bench/lib.sh"  # best_of

set -- $(best_of "$SKILLCI" changed --repo "$repo" --two-dot --base "$A" --head "$B" --json)
sk_ms=$1 sk_kb=$2
cp "$work/out" "$work/skillci.json"
set -- $(best_of git -C "$repo" diff --name-status -M "$A" "$B")
git_ms=$1 git_kb=$2
cp "$work/out" "$work/git.txt"

# The known truth: the skills whose SKILL.md git calls renamed.
python3 - "$work/skillci.json" "$work/git.txt" <<'EOF'
import json, sys
sk = json.load(open(sys.argv[1]))
ours = sorted((s.get("old_path"), s["path"], s["files"]) for s in sk if s["status"] == "renamed")
theirs, files = [], 0
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    files += 1
    if f[0].startswith("R") and f[1].endswith("/SKILL.md") and f[2].endswith("/SKILL.md"):
        theirs.append((f[1][:-len("/SKILL.md")], f[2][:-len("/SKILL.md")]))
others = [s for s in sk if s["status"] != "renamed"]
assert sorted(theirs) == [(o, n) for o, n, _ in ours], (theirs, ours)
assert not others, others
moved = sum(n for _, _, n in ours)
print("renames: %d skills, %d files in them; git lists %d changes; skillci agrees with git's SKILL.md renames"
      % (len(ours), moved, files))
EOF
echo "skillci changed         : ${sk_ms} ms  peak RSS ${sk_kb} KiB"
echo "git diff --name-status -M: ${git_ms} ms  peak RSS ${git_kb} KiB"
awk -v a="$sk_ms" -v b="$git_ms" 'BEGIN { printf "ratio skillci/git: %.2f (goal <= 1)\n", (b > 0 ? a / b : 0) }'
