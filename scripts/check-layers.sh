#!/bin/sh
# The layer check (docs/architecture.md, "Layers"): which part of the tree
# may include which. Run by make check through tests/e2e/test_layers.sh.
#
#   sh scripts/check-layers.sh [ROOT]
#
# Prints one line per forbidden include, "FILE:LINE: PART may not include
# TARGET (HEADER)", and exits 1 when there is any; prints "layers ok" and
# exits 0 otherwise.
#
# Parts are the folders of runner/ plus reporters/ and fixtures/. Our
# headers are named by part ("skills/skill.h"), but core headers and a
# file's own siblings are named bare ("buf.h"). The rules:
#
#   core       nothing of ours
#   kernel     core (the worker is its own program: libc, cJSON, NVRTC)
#   fixtures   kernel, core (CPU references are compiled into the worker)
#   format     core (the libyaml and cmark-gfm wrappers)
#   reporters  results, format, core (reporters only read results)
#   cmd        anything but the kernel worker
#   skills     format, core (SKILL.md, test files, the prompt made of them)
#   results    skills, format, core (the results model and its store sit
#              below the evaluation and the gate that fill them; the
#              statistics they use are core)
#   jail       nothing of ours (skillci-jail, the helper inside the agent
#              jail, is its own program: libc only)
#   the rest (the library)  any library part and jail's protocol header
#              (jail/jailproto.h), never cmd, reporters, kernel
#
# and each third-party library is included by exactly one wrapper (cJSON,
# used wherever JSON is read or written, is the exception).
set -u
root=${1:-.}
cd "$root" || exit 2

library="format skills git net providers eval pipeline results teacher kernelrun agent"

allowed() {  # allowed PART TARGET: exit 0 when PART may include TARGET
	[ "$1" = "$2" ] && return 0
	[ "$2" = core ] && return 0
	case "$1" in
	core) return 1 ;;
	kernel) return 1 ;;
	jail) return 1 ;;
	fixtures) [ "$2" = kernel ] ;;
	format) return 1 ;;
	reporters) [ "$2" = results ] || [ "$2" = format ] ;;
	cmd) [ "$2" != kernel ] ;;
	skills) [ "$2" = format ] ;;
	results) [ "$2" = skills ] || [ "$2" = format ] ;;
	*) case " $library " in *" $2 "*) return 0 ;; esac; [ "$2" = jail ] ;;
	esac
}

# wrapper HEADER: sets $w to the one file allowed to include a third-party
# header ("" for any other header).
wrapper() {
	case "$1" in
	git2.h|git2/*) w=runner/git/git.c ;;
	curl/*) w=runner/net/http.c ;;
	yaml.h) w=runner/format/yaml.c ;;
	cmark-gfm*) w=runner/format/markdown.c ;;
	libxml/*) w=reporters/report_junit.c ;;
	sqlite3.h) w=runner/results/store_sqlite.c ;;
	libpq-fe.h|libpq/*) w=runner/results/store_pg.c ;;
	nvrtc.h) w=runner/kernel/nvrtc.c ;;
	cuda.h|cuda_runtime*.h) w=runner/kernel/device_cuda.c ;;
	*) w="" ;;
	esac
}

# The helpers set a variable rather than print, so that the loop below
# forks no process per include line.
part_of() {  # part_of PATH: sets $part_is
	case "$1" in
	runner/*/*) part_is=${1#runner/}; part_is=${part_is%%/*} ;;
	reporters/*) part_is=reporters ;;
	fixtures/*) part_is=fixtures ;;
	*) part_is="" ;;
	esac
}

# target_of FILE HEADER: sets $target to the part a quoted include
# resolves to, as the compiler would find it (the file's own folder first,
# then core, then "part/…" under runner/ or the root).
target_of() {
	dir=${1%/*}
	if [ -f "$dir/$2" ]; then
		case "$2" in
		*/*)
			p=$(cd "$dir" && cd "$(dirname "$2")" && pwd -P)
			part_of "${p#"$real_root"/}/x" ;;
		*) part_of "$1" ;;
		esac
		target=$part_is
	elif [ -f "runner/core/$2" ]; then target=core
	elif part_of "$1" && [ "$part_is" = fixtures ] && [ -f "runner/kernel/$2" ]; then target=kernel
	elif [ -f "runner/$2" ]; then part_of "runner/$2"; target=$part_is
	elif [ -f "$2" ]; then part_of "$2"; target=$part_is
	else target="?"
	fi
}

bad=0
real_root=$(pwd -P)
files=$(find runner reporters fixtures -name '*.[ch]' 2>/dev/null | sort)
# One grep for every file: "FILE:LINE:TEXT" per include, files in order.
# "#  include" with spaces and the digraph "%:" are includes too.
# shellcheck disable=SC2086
{ [ -n "$files" ] && grep -HnE '^[[:space:]]*(#|%:)[[:space:]]*include(_next)?[[:space:]]*[<"]' $files; } |
while IFS= read -r hit; do
	f=${hit%%:*}
	line=${hit#*:}
	part_of "$f"
	part=$part_is
	[ -n "$part" ] || continue
	n=${line%%:*}
	# the header's name: from the first " or < to the next " or >
	h=${line#*[\"<]}
	case "$h" in *[\"\>]*) h=${h%%[\">]*} ;; *) h=$line ;; esac
	case "$line" in
	*'<'*)
		wrapper "$h"
		if [ -n "$w" ] && [ "$w" != "$f" ]; then
			echo "$f:$n: only $w may include <$h>"
		fi
		continue ;;
	esac
	target_of "$f" "$h"
	if [ "$target" = "?" ]; then
		echo "$f:$n: cannot resolve \"$h\" (name our headers by part: \"skills/skill.h\")"
	elif ! allowed "$part" "$target"; then
		echo "$f:$n: $part may not include $target (\"$h\")"
	fi
done > "${TMPDIR:-/tmp}/layers.$$"
if [ -s "${TMPDIR:-/tmp}/layers.$$" ]; then
	cat "${TMPDIR:-/tmp}/layers.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/layers.$$"
[ "$bad" -eq 0 ] && echo "layers ok"
exit "$bad"
