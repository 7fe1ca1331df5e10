# Sourced by benchmarks that print the numbers of the revision before the
# streaming pipeline beside today's (bench_run.sh, bench_memory.sh): sets
# OLD to that revision's skillci, built once into a folder of its own
# (git archive of BENCH_OLD_REV, then make), or to "none".
#
#   BENCH_OLD=/path/to/skillci   use that binary
#   BENCH_OLD=none               no old numbers
#   BENCH_OLD_REV=REV            another revision (default below)
OLD_REV=${BENCH_OLD_REV:-a518c224f9f7cd8a14b3033adb91a0676d1d5e5b}
OLD=${BENCH_OLD:-}
if [ -z "$OLD" ]; then
	_od="${TMPDIR:-/tmp}/skillci-old-$(echo "$OLD_REV" | cut -c1-12)"
	if [ ! -x "$_od/build/skillci" ]; then
		echo "building the revision before the streaming pipeline ($OLD_REV) in $_od, once ..."
		rm -rf "$_od" && mkdir -p "$_od"
		if ! { git -C "${SKILLCI_ROOT:-.}" archive "$OLD_REV" | tar -x -C "$_od" &&
		       make -C "$_od" -j2 build/skillci; } > "$_od.log" 2>&1; then
			echo "cannot build it (the log: $_od.log)"
		fi
	fi
	OLD="$_od/build/skillci"
	[ -x "$OLD" ] || OLD=none
fi
