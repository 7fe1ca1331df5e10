#!/bin/sh
# The fixtures' kernels on the CPU, through the CUDA emulation: each
# baseline.cu and solution.cu (and each kernel in tests/kernels/ and
# tests/emu/cases/ with an "expect-emu:" line, run against the fixture its
# "fixture:" line names, and each fixture's planted pitfalls in
# tests/kernels/pitfalls/FIXTURE/ when that fixture is checked) is compiled for the host by the C++ compiler
# with tests/emu/cuda_emu.h, and checked by emu_check against the fixture's
# CPU reference with the real harness on the CPU double (every correctness
# size and distribution, SEEDS seeds, one size run twice for the
# determinism check), then timed against the reference as the baseline at
# two shapes (every repetition times every input distribution; fresh
# inputs for every timed launch, a drawn subset of them checked in full by
# every rule, the re-validation judged against the reference), checked
# again with a secret seed, and timed once more in the strong reference's
# phase (the reference standing in for the fixture's solution), as the
# worker does on a GPU. Each run draws a fresh secret (the inputs of the
# timed launches and which of them are checked), prints it first, and
# takes EMU_SECRET=... to replay a run. When the worker is built (skillci-kernel, which
# needs NVRTC), each kernel is also compiled and scanned as a GPU run
# would scan it (its source and the PTX NVRTC produced): a kernel that
# ran correctly but carries an error flag gets the worker's verdict,
# "flagged scan". Prints one table; exits 1 on any unexpected verdict, 3
# when something cannot be built.
#
#   sh tests/emu/emu-check.sh [--seeds N] [--no-planted|--pitfalls-only]
#                             [--untimed-baselines] [--untimed-variants]
#                             [--quick] [FIXTURE|DIR...]
#
# --quick times the fixtures' baselines and solutions at one shape and
# without the strong reference's phase, does not time the planted
# kernels only the scan refuses (expect-emu: flagged scan), and implies
# --untimed-variants; the other planted kernels get the whole protocol:
# make check uses it. Without it, the solutions are also checked at the
# spec's own timed shapes where those are small enough for the emulation
# (size variables multiplying to at most 2^22, EMU_TIMED_CAP).
#
# --untimed-baselines checks each fixture's baseline on every correctness
# size, distribution and seed but does not time it: the timing protocol
# is exercised by the solutions and the planted kernels, and emulating the
# naive baselines' timed launches is the slowest part of the table (about
# a minute for attention-bf16); make check uses it, make emu-check not.
# --untimed-variants does the same for the correct variants planted
# beside the pitfalls (tests/kernels/pitfalls/FIXTURE/ok_*.cu: a
# library's eager or fused arithmetic, which must pass the correctness
# check); make check uses it, make emu-check times them too.
#
# --pitfalls-only checks only the planted pitfalls of the fixtures named
# (tests/kernels/pitfalls/FIXTURE/), not their baselines and solutions
# nor the other planted kernels: a pitfall fails its check before any
# timing, so this is cheap for every fixture.
#
# A FIXTURE is a name under fixtures/; a DIR a fixture folder of a skill
# repository's own, whose reference the build compiled in (make
# EXTRA_FIXTURES=...).
# Run through `make emu-check` (EMU_ARGS="..." passes arguments), which
# builds the objects it links first.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
cxx=${CXX:-g++}
flags=${EMU_CXXFLAGS:--std=c++17 -O2 -g -fno-strict-aliasing -Wno-unknown-pragmas -fsanitize=undefined -fno-sanitize-recover=undefined}
libs=${KERNEL_LIBS:--lcjson -ldl -lm -lpthread}
seeds=2 planted=yes only_pitfalls=no untimed_base=no untimed_var=no quick=no fixtures=""
while [ $# -gt 0 ]; do
	case "$1" in
	--seeds) seeds=$2; shift 2 ;;
	--quick) quick=yes; shift ;;
	--no-planted) planted=no; shift ;;
	--pitfalls-only) only_pitfalls=yes; shift ;;
	--untimed-baselines) untimed_base=yes; shift ;;
	--untimed-variants) untimed_var=yes; shift ;;
	-*) echo "usage: $0 [--seeds N] [--no-planted|--pitfalls-only] [--untimed-baselines] [--untimed-variants] [--quick] [FIXTURE...]" >&2; exit 2 ;;
	*) fixtures="$fixtures $1"; shift ;;
	esac
done
# a quick run checks the libraries' correct variants without timing them
[ "$quick" = yes ] && untimed_var=yes
command -v "$cxx" >/dev/null 2>&1 || { echo "emu-check: no C++ compiler ($cxx)" >&2; exit 3; }
# The objects to link: from make (EMU_OBJS, with any EXTRA_FIXTURES
# references), else the build folder's.
if [ -n "${EMU_OBJS:-}" ]; then
	objs=""
	for o in $EMU_OBJS; do case "$o" in /*) objs="$objs $o" ;; *) objs="$objs $root/$o" ;; esac; done
else
	objs="$build/tests/emu/emu_check.o $build/emu/emu_runtime.o"
	for o in "$build"/runner/kernel/*.o; do
		case "$o" in */worker.o|*/nvrtc.o) ;; *) objs="$objs $o" ;; esac
	done
	objs="$objs $(ls "$build"/fixtures/*/reference.o) $build/kernel/refs_table.o $build/libskillci-core.a"
fi
for o in $objs; do [ -f "$o" ] || { echo "emu-check: missing $o (make emu-deps)" >&2; exit 3; }; done
# objects of an AddressSanitizer build (make asan) need its runtime too
case "$objs" in *harness.o*)
	for o in $objs; do case "$o" in */harness.o)
		nm "$o" 2>/dev/null | grep -q __asan && flags="$flags -fsanitize=address" ;; esac; done ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skillci-emu.XXXXXX")
trap '[ -n "${EMU_KEEP:-}" ] || rm -rf "$tmp"' EXIT

# Compiled once per tree: each kernel's object, each trampoline's object
# and each linked program are kept in $cache (EMU_CACHE; default
# BUILD/emu/cache) under the SHA-256 of everything that goes into them:
# the compiler's version, the flags, the kernel's -D defines, the source,
# cuda_emu.h and tests/emu/include/ (and, for a program, the objects it
# links). A kernel with a quoted #include (a file the key does not cover)
# is compiled every time. Only what compiled is kept; every check still
# runs. The worker's cubins (the scan below) go to $cache/cubins.
cache=${EMU_CACHE:-$build/emu/cache}
mkdir -p "$cache" || { echo "emu-check: cannot make $cache" >&2; exit 3; }
# sum: the SHA-256 (hex) of standard input
sum() { sha256sum | cut -c1-64; }
# shellcheck disable=SC2086
cxxid=$({ $cxx --version 2>&1 | head -n 1; $cxx -dumpmachine 2>&1; command -v $cxx; } | sum)
hdrsum=$(cat "$root/tests/emu/cuda_emu.h" "$root"/tests/emu/include/* | sum)
# shellcheck disable=SC2086
objsum=$({ printf '%s\n' "$libs"; cat $objs; } | sum)
# build_prog: compiles the kernel ($k, to $kobj) and its trampoline (to
# $tobj) where they are not built yet, and links them into $prog; each
# file is written beside its name and renamed, so that two runs at once
# never read half a file.
build_prog() {
	# shellcheck disable=SC2086
	if [ ! -f "$kobj" ]; then
		if ! $cxx $flags $defs -I "$root/tests/emu/include" -include "$root/tests/emu/cuda_emu.h" \
		     -c -x c++ "$k" -o "$kobj.tmp.$$"; then rm -f "$kobj.tmp.$$"; return 1; fi
		mv -f "$kobj.tmp.$$" "$kobj"
	fi
	# shellcheck disable=SC2086
	if [ ! -f "$tobj" ]; then
		if ! $cxx $flags -c -x c++ "$tmp/$tag.tramp.cc" -o "$tobj.tmp.$$"; then rm -f "$tobj.tmp.$$"; return 1; fi
		mv -f "$tobj.tmp.$$" "$tobj"
	fi
	# shellcheck disable=SC2086
	if ! $cxx $flags "$kobj" "$tobj" $objs $libs -o "$prog.tmp.$$"; then rm -f "$prog.tmp.$$"; return 1; fi
	mv -f "$prog.tmp.$$" "$prog"
}

# A driver without a kernel, for --defines and --trampoline.
printf 'extern "C" void emu_entry(void **p) { (void)p; __builtin_trap(); }\n' > "$tmp/none.cc"
tool=$cache/$(printf 'tool\n%s\n%s\n%s\n' "$cxxid" "$flags" "$objsum" | sum)
# shellcheck disable=SC2086
[ -f "$tool" ] || { $cxx $flags -o "$tool.tmp.$$" "$tmp/none.cc" $objs $libs 2>"$tmp/err" && mv -f "$tool.tmp.$$" "$tool"; } ||
	{ cat "$tmp/err" >&2; rm -f "$tool.tmp.$$"; echo "emu-check: cannot link the driver" >&2; exit 3; }

# A fresh secret per run, printed so that a failure replays: EMU_SECRET.
secret=${EMU_SECRET:-}
if [ -z "$secret" ]; then
	secret=0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' \n')
fi
case "$secret" in 0x[0-9a-fA-F]*|[0-9]*) ;; *) echo "emu-check: EMU_SECRET must be a number (0x... or decimal)" >&2; exit 2 ;; esac
echo "emu-check: secret $secret (replay this run: EMU_SECRET=$secret make emu-check)"

worker="$build/skillci-kernel"
[ -x "$worker" ] || echo "emu-check: no $worker (built with CUDA): the scan of source and PTX is skipped" >&2
bad=0 total=0 start=$(date +%s)
printf '%-32s %-8s %-16s %6s %5s %5s  %s\n' CHECK VERDICT REASON RATIO RUNS SECS NOTE

# check NAME FIXTURE_DIR KERNEL EXPECTED_VERDICT EXPECTED_REASON
check() {
	name=$1 dir=$2 k=$3 ev=$4 er=$5
	total=$((total + 1))
	t0=$(date +%s)
	tag=$(echo "$name" | tr '/' '_')
	line=""
	if ! defs=$("$tool" --fixture "$dir" --candidate "$k" --defines 2>"$tmp/err") ||
	   ! "$tool" --fixture "$dir" --trampoline > "$tmp/$tag.tramp.cc" 2>>"$tmp/err"; then
		line="error	build	-	-	$(head -c 200 "$tmp/err" | tr '\n\t' '  ')"
	else
		kkey=$({ printf 'kernel\n%s\n%s\n%s\n%s\n' "$cxxid" "$flags" "$defs" "$hdrsum"; cat "$k"; } | sum)
		tkey=$({ printf 'trampoline\n%s\n%s\n' "$cxxid" "$flags"; cat "$tmp/$tag.tramp.cc"; } | sum)
		kobj=$cache/$kkey.o tobj=$cache/$tkey.o
		prog=$cache/$(printf 'program\n%s\n%s\n%s\n%s\n' "$flags" "$objsum" "$kkey" "$tkey" | sum)
		if grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$k"; then
			kobj=$tmp/$tag.o prog=$tmp/$tag
		fi
		if [ ! -f "$prog" ] && ! build_prog 2>"$tmp/err"; then
			line="error	build	-	-	$(grep -m1 -E "error|undefined" "$tmp/err" | head -c 200)"
		else
			# a subshell, so that a launch the emulation stops (abort) is
			# reported here, not by the shell
			notime=""
			case "$untimed_base:$name" in yes:*/baseline) notime=--no-timing ;; esac
			# the fixtures' own kernels: one shape and no strong phase
			# in a quick run, their timed shapes checked in a full one
			case "$quick:$name" in
			yes:*/baseline|yes:*/solution) notime="$notime --shapes 1 --no-strong" ;;
			no:*/solution) notime="$notime --timed-shapes" ;;
			esac
			# a kernel only the scan refuses: its timing decides nothing,
			# so a quick run does not emulate it
			[ "$quick:$ev:$er" = "yes:flagged:scan" ] && notime="$notime --no-timing"
			# a library's correct variant beside the pitfalls: checked,
			# not timed, with --untimed-variants (or --quick)
			case "$untimed_var:$name" in yes:pitfall/*/ok_*) notime="$notime --no-timing" ;; esac
			# shellcheck disable=SC2086
			line=$( ("$prog" --fixture "$dir" --candidate "$k" --seeds "$seeds" --secret "$secret" $notime; exit $?) \
				2>"$tmp/err")
			[ -n "$line" ] || line="crashed	emu	-	-	$(grep -m1 -E "emu:|emu_check:|runtime error|ERROR" "$tmp/err" | head -c 200)"
		fi
	fi
	v=$(printf '%s' "$line" | cut -f1) r=$(printf '%s' "$line" | cut -f2)
	if [ "$v" = passed ] && [ -x "$worker" ]; then
		scan=$("$worker" --fixture "$dir" --candidate "$k" --compile-only --brief --cache "$cache/cubins" 2>/dev/null)
		if [ "$(printf '%s' "$scan" | cut -f1)" = flagged ]; then
			v=flagged r=scan
			line="flagged	scan	-	-	scan: $(printf '%s' "$scan" | cut -f6)"
		fi
	fi
	ratio=$(printf '%s' "$line" | cut -f3) runs=$(printf '%s' "$line" | cut -f4)
	msg=$(printf '%s' "$line" | cut -f5 | cut -c1-160)
	note=ok
	# a kernel only the scan can refuse, where there is no worker to scan it
	if [ "$v" = passed ] && [ ! -x "$worker" ] && [ "$ev" = flagged ]; then
		printf '%-32s %-8s %-16s %6s %5s %5s  %s\n' "$name" "$v" "$r" "-" "-" "$(( $(date +%s) - t0 ))" \
			"ok (skipped: only the scan refuses it, and there is no worker to scan)"
		return
	fi
	case "|$ev|" in *"|$v|"*) case "|$er|" in *"|$r|"*|"|*|") ;; *) note="UNEXPECTED (wanted $ev/$er): $msg" ;; esac ;;
	*) note="UNEXPECTED (wanted $ev/$er): $msg" ;; esac
	[ "$note" = ok ] || bad=$((bad + 1))
	printf '%-32s %-8s %-16s %6s %5s %5s  %s\n' "$name" "$v" "$r" "$ratio" "$runs" "$(( $(date +%s) - t0 ))" "$note"
}

[ -n "$fixtures" ] || fixtures=$(cd "$root/fixtures" && ls -d */ | tr -d / | tr "\n" " ")
for f in $fixtures; do
	# a name in fixtures/, or a fixture folder of one's own (EXTRA_FIXTURES)
	case "$f" in */*) dir=$(cd "$f" 2>/dev/null && pwd) || dir=$f; f=$(basename "$dir") ;; *) dir="$root/fixtures/$f" ;; esac
	[ -f "$dir/spec.json" ] || { echo "emu-check: no fixture '$f'" >&2; exit 2; }
	[ "$only_pitfalls" = no ] || continue
	check "$f/baseline" "$dir" "$dir/baseline.cu" passed none
	check "$f/solution" "$dir" "$dir/solution.cu" passed none
done
if [ "$planted" = yes ]; then
	for k in "$root"/tests/kernels/*.cu "$root"/tests/emu/cases/*.cu "$root"/tests/kernels/pitfalls/*/*.cu; do
		[ -f "$k" ] || continue
		exp=$(sed -n 's|^// expect-emu: *||p' "$k" | head -n 1)
		[ -n "$exp" ] || continue
		f=$(sed -n 's|^// fixture: *||p' "$k" | head -n 1)
		case "$only_pitfalls:$k" in yes:*/tests/kernels/pitfalls/*) ;; yes:*) continue ;; esac
		case "$k" in
		*/tests/emu/cases/*) name=emu/$(basename "$k" .cu) ;;
		# a fixture's pitfalls (tests/kernels/pitfalls/FIXTURE/NAME.cu),
		# checked only when that fixture is
		*/tests/kernels/pitfalls/*)
			pf=$(basename "$(dirname "$k")")
			case " $fixtures " in *" $pf "*) ;; *) continue ;; esac
			name=pitfall/$pf/$(basename "$k" .cu) ;;
		*) name=planted/$(basename "$k" .cu) ;;
		esac
		check "$name" "$root/fixtures/${f:-softmax}" "$k" "${exp%% *}" "${exp#* }"
	done
fi
echo "$total checks, $bad unexpected, $(( $(date +%s) - start )) s"
[ "$bad" -eq 0 ]
