#!/bin/sh
# The pitfall check: a fixture's notes.md may claim only pitfalls that are
# planted and tested. Run by make check through tests/e2e/test_pitfalls.sh
# (the planted kernels themselves run in tests/e2e/test_emu.sh).
#
#   sh scripts/check-pitfalls.sh [ROOT]
#
# For every fixture folder (ROOT/fixtures/NAME/ with a spec.json):
#   - notes.md has a section "## Pitfalls, tested" holding a table
#     | pitfall | planted kernel | worst error / tolerance |
#     with at least one row;
#   - each row's planted kernel is a path tests/kernels/pitfalls/NAME/SLUG.cu
#     that exists, whose header says "// fixture: NAME" and either
#     "// Pitfall: ..." with "// expect-emu: failed ..." (a pitfall the
#     emulation must fail) or, for ok_SLUG.cu, "// Variant: ..." with
#     "// expect-emu: passed ..." (a correct variant it must pass); its
#     third column is not empty;
#   - every tests/kernels/pitfalls/NAME/*.cu is in NAME's table;
# and every folder of tests/kernels/pitfalls/ is a fixture's.
# Prints one line per problem, "FILE: what", and exits 1 when there is
# any; prints "pitfalls ok (N fixtures, M planted kernels)" and exits 0
# otherwise.
set -u
root=${1:-.}
cd "$root" || exit 2
bad=0 nfix=0 nker=0
problem() { echo "$1: $2"; bad=$((bad + 1)); }

for spec in fixtures/*/spec.json; do
	[ -f "$spec" ] || continue
	dir=$(dirname "$spec") f=$(basename "$dir") notes=$dir/notes.md
	nfix=$((nfix + 1))
	if [ ! -f "$notes" ]; then
		problem "$notes" "missing (it needs a '## Pitfalls, tested' table)"
		continue
	fi
	# the table rows of the section, up to the next heading of level 1 or 2
	rows=$(awk '/^## Pitfalls, tested[[:space:]]*$/ {on = 1; found = 1; next}
		on && /^##?[[:space:]]/ {on = 0}
		on && /^[[:space:]]*\|/ {
			# the first three columns, trimmed (the kernel also of
			# backquotes), tab-separated
			n = split($0, c, "|")
			for (i = 2; i <= 4; i++) { if (i > n) c[i] = ""; gsub(/^[ \t]+|[ \t]+$/, "", c[i]) }
			gsub(/^`+|`+$/, "", c[3])
			print c[2] "\t" c[3] "\t" c[4]
		}
		END {if (!found) print "NO-SECTION"}' "$notes")
	if [ "$rows" = NO-SECTION ]; then
		problem "$notes" "no '## Pitfalls, tested' section"
		continue
	fi
	listed=""
	n=0
	tab=$(printf '\t')
	while IFS="$tab" read -r c1 c2 c3; do
		[ -n "$c1$c2$c3" ] || continue
		# skip the header and the separator
		case "$c1" in pitfall|variant|"pitfall or variant") continue ;; esac
		case "$c2" in planted\ kernel|-*|:-*) continue ;; esac
		n=$((n + 1))
		listed="$listed $c2 "
		case "$c2" in
		tests/kernels/pitfalls/"$f"/*.cu) ;;
		*) problem "$notes" "row '$c1': planted kernel '$c2' is not a path tests/kernels/pitfalls/$f/SLUG.cu"; continue ;;
		esac
		if [ ! -f "$c2" ]; then
			problem "$notes" "row '$c1': planted kernel $c2 does not exist"
			continue
		fi
		[ -n "$c3" ] || problem "$notes" "row '$c1': no worst error / tolerance"
		# the kernel's header in one read: its fixture line (1 or 0), its
		# first expect-emu value, whether it has a Variant and a Pitfall line
		hdr=$(awk -v f="$f" '
			$0 ~ "^// fixture: *" f " *$" {fx = 1}
			/^\/\/ expect-emu:/ && !got {e = $0; sub(/^\/\/ expect-emu: */, "", e); got = 1}
			/^\/\/ Variant: ./ {va = 1}
			/^\/\/ Pitfall: ./ {pi = 1}
			END {printf "%d\t%d\t%d\t%s", fx, va, pi, e}' "$c2")
		IFS="$tab" read -r has_fx has_var has_pit exp <<HDR
$hdr
HDR
		[ "$has_fx" = 1 ] || problem "$c2" "no '// fixture: $f' line"
		case "${c2##*/}" in
		ok_*)
			[ "$has_var" = 1 ] || problem "$c2" "a correct variant (ok_*) needs a '// Variant: ...' line"
			case "$exp" in passed*) ;; *) problem "$c2" "a correct variant (ok_*) needs '// expect-emu: passed none', not '${exp:-nothing}'" ;; esac ;;
		*)
			[ "$has_pit" = 1 ] || problem "$c2" "no '// Pitfall: ...' line"
			case "$exp" in failed\ ?*) ;; *) problem "$c2" "a pitfall needs '// expect-emu: failed REASON', not '${exp:-nothing}'" ;; esac ;;
		esac
	done <<ROWS
$rows
ROWS
	[ "$n" -gt 0 ] || problem "$notes" "the '## Pitfalls, tested' table has no rows"
	for k in tests/kernels/pitfalls/"$f"/*.cu; do
		[ -f "$k" ] || continue
		nker=$((nker + 1))
		case "$listed" in *" $k "*) ;; *) problem "$k" "planted but not in the table of $notes" ;; esac
	done
done
for d in tests/kernels/pitfalls/*/; do
	[ -d "$d" ] || continue
	f=$(basename "$d")
	[ -f "fixtures/$f/spec.json" ] || problem "tests/kernels/pitfalls/$f" "no fixture '$f' (fixtures/$f/spec.json)"
done
if [ "$bad" -gt 0 ]; then
	echo "$bad problem(s)"
	exit 1
fi
echo "pitfalls ok ($nfix fixtures, $nker planted kernels)"
