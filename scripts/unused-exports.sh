#!/bin/sh
# Lists the functions and variables that a source file exports (defined
# without `static`) but that no other object of the programs uses: made
# static, they keep the header honest. Reads the objects of a full build
# (`make programs unit fuzz-objs`, or BUILD=DIR for another build folder)
# with nm, so it sees what the compiler saw, macros and all.
#
#   sh scripts/unused-exports.sh          one line a symbol:
#                                         "unused  FILE  SYMBOL" (nothing uses it)
#                                         "tests   FILE  SYMBOL" (only tests/ use it)
#   sh scripts/unused-exports.sh --count  the two counts only
#
# A symbol that only its own file uses is listed too (it should be static).
# Program entry points (main, the fuzzers' LLVMFuzzer*) are not listed.
set -eu
BUILD=${BUILD:-build}
count=0
[ "${1:-}" = "--count" ] && count=1
[ -d "$BUILD/runner" ] || { echo "unused-exports: no objects under $BUILD/runner: run make programs unit first" >&2; exit 2; }
[ -d "$BUILD/tests/unit" ] || { echo "unused-exports: no unit test objects under $BUILD/tests/unit: run make unit first" >&2; exit 2; }
# a function only a fuzz target calls would read as unused without them
for f in tests/fuzz/fuzz_*.c; do
	[ -e "$f" ] || continue
	o="$BUILD/${f%.c}.o"
	[ -f "$o" ] || { echo "unused-exports: no object $o: run make fuzz-objs first" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/unused-exports.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Source objects: everything the programs link but tests/; test objects:
# tests/ (unit, bench, fuzz).
find "$BUILD" -name '*.o' ! -path "$BUILD/tests/*" ! -path "$BUILD/cdb/*" \
	! -path "$BUILD/emu/*" | sort > "$tmp/src"
find "$BUILD/tests" -name '*.o' | sort > "$tmp/test"

# "OBJECT SYMBOL" for every global definition and every undefined reference.
defs() { while read -r o; do nm -g --defined-only "$o" 2>/dev/null |
	awk -v o="$o" 'NF == 3 && $2 ~ /^[TDBRGSCV]$/ { print o, $3 }'; done; }
refs() { while read -r o; do nm -u "$o" 2>/dev/null |
	awk -v o="$o" '{ print o, $NF }'; done; }
defs < "$tmp/src" | sort -k2 > "$tmp/defs"
refs < "$tmp/src" | sort -k2 > "$tmp/srcrefs"
refs < "$tmp/test" | awk '{ print $2 }' | sort -u > "$tmp/testrefs"

# A definition is used when another source object names it.
awk 'NR == FNR { users[$2] = users[$2] " " $1; next }
     {
	split(users[$2], u, " "); used = 0
	for (i in u) if (u[i] != "" && u[i] != $1) used = 1
	if (!used) print $1, $2
     }' "$tmp/srcrefs" "$tmp/defs" |
	grep -Ev ' (main|LLVMFuzzer[A-Za-z]*)$' > "$tmp/unused" || true

awk -v build="$BUILD/" 'NR == FNR { t[$1] = 1; next }
     {
	src = $1; sub("^" build, "", src); sub(/\.o$/, ".c", src)
	print (($2 in t) ? "tests " : "unused"), src, $2
     }' "$tmp/testrefs" "$tmp/unused" | sort -k1,1 -k2,2 -k3,3 > "$tmp/out"

if [ $count = 1 ]; then
	printf 'unused %d, tests only %d\n' "$(grep -c '^unused' "$tmp/out" || true)" \
		"$(grep -c '^tests' "$tmp/out" || true)"
else
	cat "$tmp/out"
fi
