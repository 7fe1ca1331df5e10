#!/bin/sh
# Lengths of the commands' entry points: every function whose name starts
# with cmd_ in runner/cmd/*.c, from the line of its name to its closing
# brace. Prints one line per function ("LINES FILE:FUNCTION"), then the
# count, the median, the 90th percentile (nearest rank) and the total lines
# of runner/cmd/*.c, for the working tree or a revision.
#
#   sh scripts/cmd-lengths.sh          # the working tree
#   sh scripts/cmd-lengths.sh main     # a revision
#   sh scripts/cmd-lengths.sh -q main  # the summary line only
set -eu
quiet=0
if [ "${1:-}" = "-q" ]; then quiet=1; shift; fi
rev=${1:-}
list() {
	if [ -n "$rev" ]; then
		git ls-tree -r --name-only "$rev" -- runner/cmd | grep '\.c$'
	else
		ls runner/cmd/*.c
	fi
}
show() {
	if [ -n "$rev" ]; then git show "$rev:$1"; else cat "$1"; fi
}
tmp=${TMPDIR:-/tmp}/cmd-lengths.$$
trap 'rm -f "$tmp" "$tmp.all" "$tmp.all.c"' EXIT
: > "$tmp"
: > "$tmp.all"
for f in $(list); do
	show "$f" > "$tmp.all.c"
	cat "$tmp.all.c" >> "$tmp.all"
	# a definition: the name at the start of a line (after its return type),
	# no semicolon on the line; it ends at the first "}" in column 0
	awk -v file="$f" '
		/^[a-z].*[ *]cmd_[a-z0-9_]*\(/ && !/;[ \t]*$/ && !fn {
			name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
			fn = name; start = NR; next
		}
		fn && /^}/ { printf "%d %s:%s\n", NR - start + 1, file, fn; fn = "" }
	' "$tmp.all.c" >> "$tmp"
	rm -f "$tmp.all.c"
done
sort -n "$tmp" -o "$tmp"
[ "$quiet" -eq 1 ] || cat "$tmp"
n=$(wc -l < "$tmp")
total=$(wc -l < "$tmp.all")
awk -v n="$n" -v total="$total" '
	{ v[NR] = $1 }
	END {
		if (n == 0) { print "no cmd_ functions"; exit 1 }
		med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		r = int((90 * n + 99) / 100); if (r < 1) r = 1
		printf "cmd_ functions: %d, median %s lines, p90 %d, longest %d; runner/cmd/*.c: %d lines\n",
		       n, med, v[r], v[n], total
	}' "$tmp"
