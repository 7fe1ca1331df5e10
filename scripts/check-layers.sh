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
#   the rest (the library)  any library part, never cmd, reporters, kernel
#
# and each third-party library is included by exactly one wrapper (cJSON,
# used wherever JSON is read or written, is the exception).
set -u
root=${1:-.}
cd "$root" || exit 2

library="format skills git net providers eval pipeline results teacher kernelrun"

allowed() {  # allowed PART TARGET: exit 0 when PART may include TARGET
	[ "$1" = "$2" ] && return 0
	[ "$2" = core ] && return 0
	case "$1" in
	core) return 1 ;;
	kernel) return 1 ;;
	fixtures) [ "$2" = kernel ] ;;
	format) return 1 ;;
	reporters) [ "$2" = results ] || [ "$2" = format ] ;;
	cmd) [ "$2" != kernel ] ;;
	*) case " $library " in *" $2 "*) return 0 ;; esac; return 1 ;;
	esac
}

# wrapper HEADER: the one file allowed to include a third-party header.
wrapper() {
	case "$1" in
	git2.h|git2/*) echo runner/git/git.c ;;
	curl/*) echo runner/net/http.c ;;
	yaml.h) echo runner/format/yaml.c ;;
	cmark-gfm*) echo runner/format/markdown.c ;;
	libxml/*) echo reporters/report_junit.c ;;
	sqlite3.h) echo runner/results/store_sqlite.c ;;
	libpq-fe.h|libpq/*) echo runner/results/store_pg.c ;;
	nvrtc.h) echo runner/kernel/nvrtc.c ;;
	cuda.h|cuda_runtime*.h) echo runner/kernel/device_cuda.c ;;
	*) echo "" ;;
	esac
}

part_of() {  # part_of PATH
	case "$1" in
	runner/*/*) p=${1#runner/}; echo "${p%%/*}" ;;
	reporters/*) echo reporters ;;
	fixtures/*) echo fixtures ;;
	*) echo "" ;;
	esac
}

# target_of FILE HEADER: the part a quoted include resolves to, as the
# compiler would find it (the file's own folder first, then core, then
# "part/…" under runner/ or the root).
target_of() {
	dir=$(dirname "$1")
	if [ -f "$dir/$2" ]; then
		p=$(cd "$dir" && cd "$(dirname "$2")" && pwd -P)
		r=$(pwd -P)
		part_of "${p#"$r"/}/x"
	elif [ -f "runner/core/$2" ]; then echo core
	elif [ "$(part_of "$1")" = fixtures ] && [ -f "runner/kernel/$2" ]; then echo kernel
	elif [ -f "runner/$2" ]; then part_of "runner/$2"
	elif [ -f "$2" ]; then part_of "$2"
	else echo "?"
	fi
}

bad=0
files=$(find runner reporters fixtures -name '*.[ch]' 2>/dev/null | sort)
for f in $files; do
	part=$(part_of "$f")
	[ -n "$part" ] || continue
	# "#  include" with spaces and the digraph "%:" are includes too.
	grep -nE '^[[:space:]]*(#|%:)[[:space:]]*include(_next)?[[:space:]]*[<"]' "$f" |
	while IFS= read -r line; do
		n=${line%%:*}
		h=$(printf '%s' "$line" | sed -E 's/^[^"<]*[<"]([^">]*)[">].*/\1/')
		case "$line" in
		*'<'*)
			w=$(wrapper "$h")
			if [ -n "$w" ] && [ "$w" != "$f" ]; then
				echo "$f:$n: only $w may include <$h>"
			fi
			continue ;;
		esac
		t=$(target_of "$f" "$h")
		if [ "$t" = "?" ]; then
			echo "$f:$n: cannot resolve \"$h\" (name our headers by part: \"skills/skill.h\")"
		elif ! allowed "$part" "$t"; then
			echo "$f:$n: $part may not include $t (\"$h\")"
		fi
	done
done > "${TMPDIR:-/tmp}/layers.$$"
if [ -s "${TMPDIR:-/tmp}/layers.$$" ]; then
	cat "${TMPDIR:-/tmp}/layers.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/layers.$$"
[ "$bad" -eq 0 ] && echo "layers ok"
exit "$bad"
