#!/bin/sh
# Benchmark of `skillci changed` on a synthetic repository: 10,000 skills
# (SKILL.md, references/notes.md, scripts/run.sh each) and 1,000 commits,
# each editing a few skills, adding one now and then, deleting or moving
# another. The repository is written with `git fast-import` in seconds and
# kept under $BUILD/bench-changed/ so reruns start at once.
#
# Timed, in one run, between commit 100 and commit 900:
#   skillci  `skillci changed --base A --head B` (merge base, renames)
#   script   `git diff --name-only A B` plus the same path -> skill mapping
#            (nearest SKILL.md in the base or head tree, from `git ls-tree`)
#            in awk
# Each side runs REPS times (default 3); the best wall time counts. Prints
# both times, the ratio skillci/script (goal: at most 1) and peak RSS.
set -eu
: "${SKILLCI:?SKILLCI must point at the skillci binary}"
root=${SKILLCI_ROOT:-$(pwd)}
build=${BUILD:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
work="$build/bench-changed"
repo="$work/repo.git"
skills=${SKILLS:-10000}
commits=${COMMITS:-1000}
reps=${REPS:-3}
mkdir -p "$work"

if [ ! -f "$repo/.complete-$skills-$commits" ]; then
	rm -rf "$repo"
	git init -q --bare "$repo"
	t0=$(date +%s)
	# One stream: commit 1 adds every skill; commits 2..N change a few each,
	# chosen by a fixed linear congruential generator (same repo every time).
	awk -v skills="$skills" -v commits="$commits" '
	function rnd() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed }
	function blob(path, text, mode) {
		printf "M %s inline %s\ndata %d\n%s\n", mode, path, length(text), text
	}
	function skill_files(dir, name, gen) {
		blob(dir "/SKILL.md", "---\nname: " name "\ndescription: synthetic skill " name " for the benchmark\n---\n# " name "\n\nrevision " gen "\n", "100644")
		blob(dir "/references/notes.md", "notes for " name "\n" gen "\n", "100644")
		blob(dir "/scripts/run.sh", "#!/bin/sh\necho " name "\n", "100755")
	}
	BEGIN {
		seed = 42; ts = 1767225600
		for (c = 1; c <= commits; c++) {
			printf "commit refs/heads/main\nmark :%d\n", c
			printf "committer bench <bench@example.com> %d +0000\n", ts + c * 60
			msg = "commit " c
			printf "data %d\n%s\n", length(msg), msg
			if (c > 1) printf "from :%d\n", c - 1
			if (c == 1) {
				for (i = 0; i < skills; i++) {
					name = sprintf("s%05d", i)
					skill_files("skills/" name, name, 0)
					live[i] = "skills/" name
				}
				nlive = skills
				continue
			}
			n = 3 + rnd() % 5
			for (k = 0; k < n; k++) {
				i = rnd() % nlive
				if (live[i] == "") continue
				if (rnd() % 2)
					blob(live[i] "/SKILL.md", "---\nname: x\ndescription: edited in " c "\n---\nbody " c "\n", "100644")
				else
					blob(live[i] "/references/notes.md", "notes edited in commit " c "\n", "100644")
			}
			r = rnd() % 10
			if (r == 0) {           # a new skill
				name = sprintf("n%05d", c)
				skill_files("skills/new/" name, name, c)
				live[nlive++] = "skills/new/" name
			} else if (r == 1) {    # a deleted skill
				i = rnd() % nlive
				if (live[i] != "") { printf "D %s\n", live[i]; live[i] = "" }
			} else if (r == 2) {    # a moved skill
				i = rnd() % nlive
				if (live[i] != "") {
					to = "skills/moved/m" c
					printf "R %s %s\n", live[i], to
					live[i] = to
				}
			}
		}
	}' | git -C "$repo" fast-import --quiet
	touch "$repo/.complete-$skills-$commits"
	echo "generated $skills skills, $commits commits in $(( $(date +%s) - t0 ))s: $repo"
fi

A=$(git -C "$repo" rev-list --reverse main | sed -n 100p)
B=$(git -C "$repo" rev-list --reverse main | sed -n 900p)

# The shell/awk version of the mapping: skill roots of both trees, then
# each changed path's nearest root.
cat > "$work/script.sh" <<'EOF'
repo=$1 a=$2 b=$3
{
	git -C "$repo" ls-tree -r --name-only "$a" | grep -E '(^|/)(SKILL|skill)\.md$' | sed 's/^/R /'
	git -C "$repo" ls-tree -r --name-only "$b" | grep -E '(^|/)(SKILL|skill)\.md$' | sed 's/^/R /'
	git -C "$repo" diff --name-only "$a" "$b" | sed 's/^/P /'
} | awk '
	$1 == "R" { p = substr($0, 3); sub(/\/?[^\/]*$/, "", p); root[p] = 1; next }
	{
		p = substr($0, 3)
		while (1) {
			if (p !~ /\//) { d = ""; } else { d = p; sub(/\/[^\/]*$/, "", d) }
			if (d in root) { if (!(d in seen)) { seen[d] = 1; print d } ; break }
			if (d == "") break
			p = d
		}
	}' | sort
EOF

. "$root/tests/bench/lib.sh"  # best_of

set -- $(best_of "$SKILLCI" changed --repo "$repo" --base "$A" --head "$B")
sk_ms=$1 sk_kb=$2
sk_n=$(wc -l < "$work/out")
set -- $(best_of sh "$work/script.sh" "$repo" "$A" "$B")
sh_ms=$1 sh_kb=$2
sh_n=$(wc -l < "$work/out")
files=$(git -C "$repo" diff --name-only "$A" "$B" | wc -l)

echo "repository: $skills skills, $commits commits; commits 100..900: $files changed paths"
echo "skillci changed : ${sk_ms} ms  peak RSS ${sk_kb} KiB  ($sk_n skills listed)"
echo "git diff + awk  : ${sh_ms} ms  peak RSS ${sh_kb} KiB  ($sh_n skill folders)"
awk -v a="$sk_ms" -v b="$sh_ms" 'BEGIN { printf "ratio skillci/script: %.2f (goal <= 1)\n", (b > 0 ? a / b : 0) }'
