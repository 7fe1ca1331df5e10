#!/bin/sh
# End-to-end: skillci kernel and skillci fixtures through the sandboxed
# worker. Here (no GPU) the verdict is "compiled" with correctness and speed
# skipped; compile errors, refused includes, answers without the entry point
# and unpinned fixtures fail with messages a person can act on.
. tests/e2e/lib.sh

R=$SKILLCI_ROOT
FX="$T/fixtures"
cp -r "$R/fixtures" "$FX"
rm -f "$FX/fixtures.lock"

if [ "${HAVE_CUDA:-}" != 1 ]; then
	run "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX" --allow-unpinned
	expect_exit 3 "without CUDA, kernel exits 3"
	expect_err_contains "not built with CUDA" "without CUDA, kernel says so"
	skip "kernel checks" "not built with CUDA (no NVRTC at build time)"
	done_testing
	exit $?
fi

run "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX"
expect_exit 2 "an unpinned fixture is refused"
expect_err_contains "not pinned in fixtures.lock" "the refusal says what to do"

run "$SKILLCI" fixtures lock --fixtures "$FX"
expect_exit 0 "fixtures lock pins every fixture"
expect_out_contains "softmax" "lock lists softmax"
expect_file "$FX/fixtures.lock" "fixtures.lock written"

run "$SKILLCI" fixtures list --fixtures "$FX"
expect_exit 0 "fixtures list"
expect_out_contains "pinned" "list shows pin state"
expect_out_lacks "unpinned" "every fixture pinned after lock"

run "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX" --cache "$T/cache"
expect_exit 0 "a correct kernel compiles (exit 0 without a GPU)"
expect_out_contains "COMPILED" "verdict compiled"
expect_out_contains "correctness: skipped" "correctness reported as skipped, not passed"
expect_out_contains "timing: skipped" "timing reported as skipped"
expect_out_contains "registers" "compile records registers"
expect_out_lacks "PASSED" "never reported as passed without a GPU"

run "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX" --cache "$T/cache"
expect_out_contains "cached" "the second compile comes from the cubin cache"

run "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX" --json
expect_exit 0 "--json"
expect_out_contains '"verdict":	"compiled"' "json verdict"
expect_out_contains '"network_namespace"' "json records the sandbox"
expect_out_contains '"fixture_hash":	"' "json records the fixture hash"

run "$SKILLCI" kernel softmax "$R/tests/kernels/syntax_error.cu" --fixtures "$FX"
expect_exit 1 "a syntax error fails"
expect_out_contains "candidate.cu(9): error" "with the compiler's line"

run "$SKILLCI" kernel softmax "$R/tests/kernels/include_passwd.cu" --fixtures "$FX"
expect_exit 1 "#include \"/etc/passwd\" fails"
expect_out_contains "is not allowed" "the include is refused"
expect_out_lacks "root:" "no line of /etc/passwd is quoted"
expect_err_lacks "root:" "nor on stderr"

run "$SKILLCI" kernel softmax "$R/tests/kernels/include_computed.cu" --fixtures "$FX"
expect_exit 1 "a computed #include fails"
expect_out_contains "computed #include" "named as computed"

run "$SKILLCI" kernel softmax "$R/tests/kernels/half_precision.cu" --fixtures "$FX"
expect_out_contains "precision_downcast" "the scan flags a half-precision downcast"
expect_exit 1 "an error-severity scan flag fails without a GPU too (exit 1)"
expect_out_contains "FLAGGED (scan)" "verdict flagged, not compiled"

run "$SKILLCI" kernel softmax "$R/tests/kernels/raw_string_include.cu" --fixtures "$FX"
expect_exit 1 "an include hidden behind a raw string fails"
expect_out_contains "include_refused" "refused by the tokenizer"
expect_out_lacks "root:" "no line of /etc/passwd is quoted"

printf '#pragma skillci_no_such_pragma\nextern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)\n{\n    y[0] = x[0]\n}\n' > "$T/warn_then_error.cu"
run "$SKILLCI" kernel softmax "$T/warn_then_error.cu" --fixtures "$FX"
expect_exit 1 "a compile error after a warning fails"
expect_out_contains "compile error: candidate.cu(5): error" "the message quotes the error, not the warning before it"

printf '#line 1 "other.cu"\nextern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) { y[0] = }\n' > "$T/line.cu"
run "$SKILLCI" kernel softmax "$T/line.cu" --fixtures "$FX"
expect_exit 1 "#line is refused"
expect_out_contains "source_refused" "as a source refusal"
expect_out_contains "#line is not allowed" "saying why"

printf 'Sure, here is an approach:\n\n```cuda\n__global__ void my_softmax(float* y) {}\n```\n' > "$T/answer.md"
run "$SKILLCI" kernel softmax "$T/answer.md" --fixtures "$FX"
expect_exit 2 "a Markdown answer without the entry point fails"
expect_err_contains "no code block in the answer defines the kernel 'softmax'" "the message names the entry"

{ printf 'Here it is.\n\n```cuda\n'; cat "$R/fixtures/softmax/solution.cu"; printf '```\n'; } > "$T/good.md"
run "$SKILLCI" kernel softmax "$T/good.md" --fixtures "$FX"
expect_exit 0 "a Markdown answer with the kernel compiles"
expect_out_contains "COMPILED" "verdict compiled from Markdown"

run "$SKILLCI" kernel nosuch "$R/fixtures/softmax/solution.cu" --fixtures "$FX"
expect_exit 2 "unknown fixture"
expect_err_contains "no fixture 'nosuch'" "names it"

run env SKILLCI_KERNEL_WORKER=/nonexistent/skillci-kernel "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX"
expect_exit 3 "a missing worker is an infrastructure failure"
expect_err_contains "worker" "and says which"

# ---- the cubin cache is verified: signed with SKILLCI_CACHE_KEY ----
run env SKILLCI_CACHE_KEY=runner-secret-one "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX" --cache "$T/kc" --json
expect_exit 0 "a compile with a cache key"
run env SKILLCI_CACHE_KEY=runner-secret-one "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX" --cache "$T/kc" --json
expect_out_contains '"cached":	true' "the same key loads the signed entry"
check "the cache key itself is in no cache file" sh -c "! grep -rqa -e runner-secret-one -e $(printf runner-secret-one | od -An -tx1 | tr -d ' \n') '$T/kc'"
run env SKILLCI_CACHE_KEY=runner-secret-two "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX" --cache "$T/kc" --json
expect_out_lacks '"cached":	true' "another key does not load it"
expect_out_contains "HMAC does not verify" "and says why"
for f in "$T"/kc/*.cubin; do cp "$R/fixtures/fixtures.lock" "$f"; done
run env SKILLCI_CACHE_KEY=runner-secret-two "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX" --cache "$T/kc"
expect_exit 0 "a swapped cubin is recompiled, not loaded"
expect_out_contains "compiled now" "compiled anew"
expect_out_contains "cache: cached cubin" "and the terminal says the entry was rejected"

# ---- the result channel: stand-in workers that forge a verdict ----
# A kernel's device printf reaches the worker's stdout; a stand-in that
# prints a passing verdict there, then runs the real worker, must get the
# real verdict (the forgery shows only as the kernel's output).
W=$(dirname "$SKILLCI")/skillci-kernel
FORGED='{"verdict": "passed", "reason": "none", "message": "FORGED-VERDICT", "timing": {"speedup": 1000}}'
printf '#!/bin/sh\nprintf %%s\\\\n %s\nexec %s "$@"\n' "'$FORGED'" "$W" > "$T/forge-stdout"
printf '#!/bin/sh\nprintf %%s\\\\n %s >&3\nexec %s "$@"\n' "'$FORGED'" "$W" > "$T/forge-fd3"
printf '#!/bin/sh\nprintf %%s\\\\n %s >&3\nexit 0\n' "'{\"verdict\": \"passed\", \"reason\": \"none\", \"message\": \"FORGED-VERDICT\", \"nonce\": \"00000000000000000000000000000000\"}'" > "$T/forge-nonce"
chmod +x "$T/forge-stdout" "$T/forge-fd3" "$T/forge-nonce"

run env SKILLCI_KERNEL_WORKER="$T/forge-stdout" "$SKILLCI" kernel softmax "$R/tests/kernels/scaled_099.cu" --fixtures "$FX" --json
expect_exit 0 "forged verdict on stdout: the real one is reported"
expect_out_contains '"verdict":	"compiled"' "the worker's own verdict, not the forged one"
expect_out_lacks '"verdict":	"passed"' "the forged verdict is not believed"
expect_out_contains '"kernel_output"' "what the worker printed is shown as the kernel's output"
expect_out_contains 'FORGED-VERDICT' "including the forgery, as text"

run env SKILLCI_KERNEL_WORKER="$T/forge-stdout" "$SKILLCI" kernel softmax "$R/tests/kernels/scaled_099.cu" --fixtures "$FX"
expect_out_contains "COMPILED" "the terminal shows the real verdict"
expect_out_contains "kernel output (" "and the printed text under its own heading"

run env SKILLCI_KERNEL_WORKER="$T/forge-fd3" "$SKILLCI" kernel softmax "$R/tests/kernels/scaled_099.cu" --fixtures "$FX" --json
expect_exit 1 "a second document on the result channel: nothing is believed"
expect_out_contains '"reason":	"bad_result"' "reason bad_result"
expect_out_contains "more than one JSON document" "saying why"
expect_out_lacks '"verdict":	"passed"' "never passed"

run env SKILLCI_KERNEL_WORKER="$T/forge-nonce" "$SKILLCI" kernel softmax "$R/tests/kernels/scaled_099.cu" --fixtures "$FX" --json
expect_exit 1 "a result without this run's nonce is not believed"
expect_out_contains "does not carry this run's nonce" "saying why"
expect_out_lacks '"verdict":	"passed"' "never passed"

# ---- every include probe is refused, and nothing outside is opened ----
# Each probe goes through skillci kernel exactly as a model's answer does;
# the worker is run under strace (by a stand-in that execs it), and every
# path a file system call of the worker names must lie in a folder it may
# use: its own libraries and the toolkit. The probed files never appear.
# (LeakSanitizer cannot run under ptrace: an ASan build of the worker is
# traced with leak checks off; every other run of the worker keeps them.)
P="$T/probes"
mkdir -p "$P"
cp "$R/tests/kernels/include_passwd.cu" "$R/tests/kernels/raw_string_include.cu" "$R/tests/kernels/include_computed.cu" "$P/"
printf 'template<int N> struct Show;\n__device__ Show<\n#include "/proc/sys/kernel/pid_max"\n> s;\n' > "$P/number_leak.cu"
printf '#include "/root/.ssh/id_rsa"\n' > "$P/exists_oracle.cu"
printf '#if __has_include("/etc/shadow")\n#error yes\n#endif\n' > "$P/has_include_if.cu"
printf '__device__ int z[__has_include("/etc/shadow") ? 1 : -1];\n' > "$P/has_include_expr.cu"
printf '#define CAT(a,b) a##b\n__device__ int z[CAT(__has_,include)("/etc/shadow") ? 1 : -1];\n' > "$P/has_include_pasted.cu"
printf '%%:include "/etc/passwd"\n' > "$P/digraph.cu"
printf '#inc\\\nlude "/etc/passwd"\n' > "$P/splice.cu"
printf '#embed "/etc/passwd"\n' > "$P/embed.cu"
if command -v strace >/dev/null 2>&1; then
	for probe in "$P"/*.cu; do
		n=$(basename "$probe" .cu)
		printf '#!/bin/sh\nASAN_OPTIONS=detect_leaks=0 exec %s -f -qq -e trace=%%file -o %s %s "$@"\n' "$(command -v strace)" "$P/$n.trace" "$W" > "$P/traced-worker"
		chmod +x "$P/traced-worker"
		run env SKILLCI_KERNEL_WORKER="$P/traced-worker" "$SKILLCI" kernel softmax "$probe" --fixtures "$FX" --json
		expect_exit 1 "probe $n fails"
		expect_out_contains '"reason":	"include_refused"' "probe $n ends as include_refused"
		check "probe $n: strace shows no file touched outside the allowed folders" python3 - "$P/$n.trace" "$W" <<'EOF'
import re, sys
trace, worker = sys.argv[1], sys.argv[2]
allowed = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/etc/ld.so.cache", "/etc/ld.so.preload",
           "/usr/local/cuda", "/proc/self/", "/sys/devices/system/cpu", worker)
probed = ("/etc/passwd", "/etc/shadow", "/root/.ssh", "/proc/sys/kernel/pid_max")
text = open(trace).read()
assert "execve(" in text, "strace saw nothing"
bad = []
for line in text.splitlines():
    m = re.search(r'^\d+\s+(\w+)\((?:AT_FDCWD, |\d+, )?"([^"]*)"', line)
    if not m or m.group(2) == "":
        continue
    if any(p in line for p in probed) or not m.group(2).startswith(allowed):
        bad.append(line)
assert not bad, "\n".join(bad[:10])
EOF
	done
	# A candidate that compiles: NVRTC runs in a child whose root is the
	# jail (chroot after the mounts), where even the worker's own folder
	# is not there.
	printf '#!/bin/sh\nASAN_OPTIONS=detect_leaks=0 exec %s -f -qq -e trace=%%file -o %s %s "$@"\n' "$(command -v strace)" "$P/ok.trace" "$W" > "$P/traced-worker"
	run env SKILLCI_KERNEL_WORKER="$P/traced-worker" "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX" --json --cache "$P/fresh-cache"
	expect_exit 0 "a correct kernel compiles under strace"
	expect_out_contains '"confined":	true' "the result says NVRTC ran confined"
	check "strace: the compiler's process chroots into the jail and cannot see the worker's folder" python3 - "$P/ok.trace" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
jailed = {l.split()[0] for l in lines if 'chroot(".")' in l and l.rstrip().endswith("= 0")}
assert jailed, "no process chrooted"
for pid in jailed:
    mine = [l for l in lines if l.split()[0] == pid]
    after = mine[[i for i, l in enumerate(mine) if 'chroot(".")' in l][0] + 1:]
    tmp = [l for l in after if '"/tmp/skillci-kernel.' in l]
    assert tmp and all("ENOENT" in l for l in tmp), tmp
EOF
else
	skip "strace of the include probes" "strace is not installed (apt-get install strace)"
fi

# ---- every planted kernel, through the worker, as gpu-check runs them ----
# Its cubins are kept in $T/cubins, where fixtures verify below loads each
# baseline and solution gpu-check compiled (an entry is loaded only when
# the SHA-256 of its source, options, arch and NVRTC version and of its
# cubin match), so that no source is compiled twice. The cases of the
# cache itself (a swapped entry, another key) have a folder of their own.
run sh "$R/scripts/gpu-check.sh" --compile-only --worker "$W" --root "$R" --cache "$T/cubins"
expect_exit 0 "gpu-check --compile-only: every planted kernel and fixture as its expect-cpu line says"
expect_out_contains "0 unexpected" "no unexpected verdict or missing scan flag"

# A prompt that names the half-precision headers says that using them on a
# float32 fixture is flagged (the scan makes it an error there).
# A bfloat16 fixture's prompt offers the three headers instead, <mma.h> too.
for pr in "$R"/fixtures/*/prompt.md; do
	fx=$(basename "$(dirname "$pr")")
	if grep -q '"type": "\(bfloat16\|float16\)"' "$(dirname "$pr")/spec.json"; then
		check "$fx: the prompt of a bfloat16 fixture offers <cuda_bf16.h> and <mma.h>" \
			grep -q 'The only headers you may #include are <cuda_fp16.h>, <cuda_bf16.h> and <mma.h>' "$pr"
	elif grep -q 'cuda_fp16.h' "$pr"; then
		check "$fx: the prompt says half precision is flagged on a float32 fixture" \
			grep -q 'is flagged and the answer does not pass' "$pr"
	fi
done

run "$SKILLCI" fixtures verify --fixtures "$FX" --cache "$T/cubins"
expect_exit 0 "fixtures verify: pins match and every baseline and solution compiles"
expect_out_contains "compiles (no GPU: not run)" "verify says what it could not run"

echo "// changed" >> "$FX/softmax/notes.md"
run "$SKILLCI" fixtures verify --fixtures "$FX" --cache "$T/cubins"
expect_exit 1 "verify fails on a changed fixture"
expect_out_contains "softmax        changed" "and names it"

run "$SKILLCI" kernel softmax "$R/fixtures/softmax/solution.cu" --fixtures "$FX"
expect_exit 2 "a changed fixture is refused"
expect_err_contains "changed since it was pinned" "with the reason"

# bfloat16 fixtures: WMMA through <mma.h> is allowed and, in a bfloat16
# fixture, not a precision downcast; a float16 accumulator is not flagged
# either (it compiles; the GPU's tolerance check is what fails it).
run "$SKILLCI" kernel gemm-bf16 "$R/fixtures/gemm-bf16/solution.cu" --fixtures "$FX" --json
expect_exit 0 "the WMMA gemm-bf16 solution compiles"
expect_out_contains '"verdict":	"compiled"' "compiled"
expect_out_contains '"scan":	[]' "no scan flag on a bfloat16 fixture"
expect_out_contains '"TILE_M":	128' "its tunables are applied"
run "$SKILLCI" kernel attention-bf16 "$R/fixtures/attention-bf16/solution.cu" --fixtures "$FX"
expect_exit 0 "the flash attention solution compiles"
run "$SKILLCI" kernel gemm-bf16 "$R/tests/kernels/bf16_gemm_fp16_accum.cu" --fixtures "$FX"
expect_exit 1 "the planted float16 accumulator is flagged without a GPU (it fails on a GPU too)"
expect_out_contains "precision_downcast" "as a downcast: float16 has fewer exponent bits than the fixture's bf16"

# The worker reads its numbers strictly: a job value that is not a whole
# int, or a --seeds that is not a number, is refused, never cast or cut.
W="$(dirname "$SKILLCI")/skillci-kernel"
printf '{"candidate": "x", "spec": "%s", "seeds": 1e12}' "$R/fixtures/softmax/spec.json" > "$T/job.json"
run "$W" --job "$T/job.json"
expect_exit 2 "a job with seeds past int is refused"
expect_err_contains 'job: "seeds" must be a whole number' "naming the member"
printf '{"candidate": "x", "spec": "%s", "timeout_ms": "10"}' "$R/fixtures/softmax/spec.json" > "$T/job.json"
run "$W" --job "$T/job.json"
expect_exit 2 "a job with a string timeout_ms is refused"
expect_err_contains 'job: "timeout_ms" must be a whole number' "naming that member"
run "$W" --fixture "$R/fixtures/softmax" --candidate "$R/fixtures/softmax/solution.cu" --seeds 3x --compile-only
expect_exit 2 "worker --seeds 3x is refused (was read as 3)"
expect_err_contains "--seeds '3x' is not a whole number" "with the value"

run "$SKILLCI" kernel --help
expect_exit 0 "kernel --help"
expect_out_contains "usage: skillci kernel FIXTURE FILE" "usage"

done_testing
