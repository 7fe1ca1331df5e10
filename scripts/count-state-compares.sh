#!/bin/sh
# Counts string comparisons of results state fields against literals in the
# C sources of a revision (default: the working tree): a call of strcmp,
# strncmp, strcasecmp, sc_streq or sc_starts_with whose arguments name a
# state field (->verdict, .status, ->variant, ->decision, ->check, ->kind,
# ->state, ->severity, ->stop, ->compile, ->trigger, ->judged, ->from, ->to)
# and a string literal. Prints the total and the count outside the files
# that read and write JSON or the store (results_read.c, results_write.c,
# results_states.c, results/store*.c), where names are parsed.
#
#   sh scripts/count-state-compares.sh          # the working tree
#   sh scripts/count-state-compares.sh main     # a revision
set -eu
rev=${1:-}
list() {
	if [ -n "$rev" ]; then
		git ls-tree -r --name-only "$rev" -- runner reporters | grep '\.c$'
	else
		git ls-files -- runner reporters | grep '\.c$'
	fi
}
show() {
	if [ -n "$rev" ]; then git show "$rev:$1"; else cat "$1"; fi
}
re='(strn?cmp|strcasecmp|sc_streq|sc_starts_with)\([^;]*(->|\.)(verdict|status|variant|decision|check|kind|state|severity|stop|compile|trigger|judged|from|to)\b[^;]*"[a-z_]*"|(strn?cmp|strcasecmp|sc_streq|sc_starts_with)\([^;]*"[a-z_]*"[^;]*(->|\.)(verdict|status|variant|decision|check|kind|state|severity|stop|compile|trigger|judged|from|to)\b'
total=0 io=0
for f in $(list); do
	n=$(show "$f" | grep -cE "$re" || true)
	[ "$n" -gt 0 ] || continue
	total=$((total + n))
	case $f in
	*/results_read.c|*/results_write.c|*/results_states.c|runner/results/store*.c) io=$((io + n)) ;;
	esac
	[ -n "${VERBOSE:-}" ] && printf '%5d %s\n' "$n" "$f"
done
printf 'state string compares: %d (outside JSON/store I/O: %d)\n' "$total" "$((total - io))"
