# Secrets: planted API keys and GitHub tokens never appear in any stream or
# file skillci writes (stdout, stderr, HTTP traces, results JSON, reports,
# the store, the response cache), even when a provider echoes the key back
# in its error message, and the kernel worker starts with an empty
# environment. Every value is distinctive so a grep finds any copy.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

ANTHROPIC_KEY=sk-ant-api03-PLANTED-a1b2c3d4e5f6
OPENAI_KEY=sk-proj-PLANTED-0f9e8d7c6b5a
GH_TOKEN=ghs_PLANTEDtoken1234567890abcdef
GIT_TOKEN=ghp_PLANTEDgittoken0987654321
CACHE_KEY=PLANTED-cubin-cache-key-5a5a5a
export ANTHROPIC_API_KEY=$ANTHROPIC_KEY OPENAI_API_KEY=$OPENAI_KEY GITHUB_TOKEN=$GH_TOKEN \
	SKILLCI_GIT_TOKEN=$GIT_TOKEN SKILLCI_CACHE_KEY=$CACHE_KEY HOME="$T/home"
mkdir -p "$HOME" "$T/w/skills/s1"
W="$T/w"
printf -- '---\nname: s1\ndescription: A skill for secret tests.\n---\nAnswer ok.\n' > "$W/skills/s1/SKILL.md"
python3 - "$W/skills/s1/skill_meta.json" <<'EOF'
import json, sys
json.dump({"tests": [{"input": "Q%d: say ok" % i, "expected": {"contains": ["ok"]}} for i in range(6)]},
          open(sys.argv[1], "w"))
EOF

# every command's streams are kept here, beside the files it writes in $W
keep() { cat "$T/.out" "$T/.err" >> "$W/streams.log"; }
no_secret() {  # no_secret NAME: no planted value in anything under $W
	_hits=$(grep -rla -e "$ANTHROPIC_KEY" -e "$OPENAI_KEY" -e "$GH_TOKEN" -e "$GIT_TOKEN" -e "$CACHE_KEY" \
		-e "$(printf '%s' "$CACHE_KEY" | od -An -tx1 | tr -d ' \n')" "$W" 2> /dev/null)
	if [ -z "$_hits" ]; then _tap ok "$1"; else _tap not-ok "$1" "planted secret found in: $_hits"; fi
}

cd "$W" || exit 1
run "$SKILLCI" validate skills; keep
expect_exit 0 "validate runs with keys in the environment"
run "$SKILLCI" list -d skills -v; keep
expect_exit 0 "list runs with keys in the environment"

# A provider that echoes the key it received in its error messages.
cat > "$T/echo.json" <<'EOF'
{"rules": [{"match": {"contains": "Q0"}, "reply": {"status": 401, "error_type": "authentication_error",
            "error_message": "invalid x-api-key", "echo_key": true}},
           {"match": {"contains": "Q1"}, "reply": {"status": 400, "error_type": "invalid_request_error",
            "error_message": "bad request", "echo_key": true}},
           {"match": {"contains": "Q2"}, "reply": {"status": 500, "error_message": "boom", "echo_key": true}}],
 "default": {"text": "ok"}}
EOF
fake_start "$T/echo.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" OPENAI_BASE_URL="$FAKE_URL/v1"
check "the fake does echo the key (the test can see a leak)" sh -c \
	"curl -s -H 'x-api-key: $ANTHROPIC_KEY' -d '{\"messages\":[{\"role\":\"user\",\"content\":\"Q0\"}]}' $FAKE_URL/v1/messages | grep -q PLANTED"

SKILLCI_TRACE=http run "$SKILLCI" ask -m anthropic.m1 "Q0 hello"; keep
check "ask: a 401 that echoes the key fails (exit 2 or 3)" sh -c "test $RC -eq 2 || test $RC -eq 3"
expect_err_contains "authentication" "ask: the provider's error is shown"
SKILLCI_TRACE=http run "$SKILLCI" ask -m openai.gpt-test "Q1 hello"; keep
check "ask (openai): a 400 that echoes the key fails" test "$RC" -ne 0
SKILLCI_TRACE=http run "$SKILLCI" ask -m anthropic.m1 "Q5 hello"; keep
expect_exit 0 "ask: a good answer with HTTP tracing on"
for m in anthropic.m1 openai.gpt-test; do
	# one retry: the 500 still goes through the retry path, without the
	# default schedule's backoff waits (five retries of each failing test)
	SKILLCI_TRACE=http,git run "$SKILLCI" eval skills/s1 -m $m -v --retries 1 --store "$W/st.db" --cache "$W/cache" \
		--json "$W/r-$m.json"; keep
	check "eval $m: finishes with errors counted (exit 0 or 3)" sh -c "test $RC -eq 0 || test $RC -eq 3"
	expect_file "$W/r-$m.json" "eval $m: results JSON written"
done
run "$SKILLCI" report "$W/r-anthropic.m1.json" --junit "$W/r.xml" --markdown "$W/r.md" --html "$W/html" \
	--json "$W/r2.json"; keep
expect_exit 0 "report renders the results with errors"
run "$SKILLCI" runs --store "$W/st.db"; keep
expect_exit 0 "runs reads the store"
check "the provider saw the key (the runs did use it)" grep -q '"key_present": true' "$FAKE_LOG"
fake_stop

# A provider that echoes the key transformed: a prefix, masked, in capitals,
# base64, reversed, inside an Authorization header, in errors and in an
# answer. None of these forms may reach a stream or a file either.
cat > "$T/forms.json" <<'EOF'
{"rules": [{"match": {"contains": "Q0"}, "reply": {"status": 401, "error_type": "authentication_error",
            "error_message": "invalid x-api-key", "echo_key": "prefix"}},
           {"match": {"contains": "Q1"}, "reply": {"status": 400, "error_message": "bad", "echo_key": "upper"}},
           {"match": {"contains": "Q2"}, "reply": {"status": 400, "error_message": "bad", "echo_key": "base64"}},
           {"match": {"contains": "Q3"}, "reply": {"status": 400, "error_message": "bad", "echo_key": "reversed"}},
           {"match": {"contains": "Q4"}, "reply": {"status": 400, "error_message": "bad", "echo_key": "basic"}},
           {"match": {"contains": "Q5"}, "reply": {"text": "ok {key:prefix} {key:masked} {key:base64} {key:reversed}"}}],
 "default": {"text": "ok"}}
EOF
fake_start "$T/forms.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL"
FORMS=$(python3 -c '
import base64, sys
k = sys.argv[1]
print("\n".join([k[:12], k.upper()[4:], base64.b64encode(k.encode()).decode()[4:24], k[::-1][:12],
                 base64.b64encode(("user:" + k).encode()).decode()[8:28]]))' "$ANTHROPIC_KEY")
check "the fake does echo transformed keys (the test can see a leak)" sh -c \
	"curl -s -H 'x-api-key: $ANTHROPIC_KEY' -d '{\"messages\":[{\"role\":\"user\",\"content\":\"Q5\"}]}' $FAKE_URL/v1/messages | grep -qF -- '$(echo "$FORMS" | sed -n 4p)'"
SKILLCI_TRACE=http run "$SKILLCI" eval skills/s1 -m anthropic.m1 -v --retries 1 --store "$W/forms.db" --no-cache \
	--json "$W/r-forms.json"; keep
check "eval with transformed echoes finishes with errors counted (exit 0 or 3)" sh -c "test $RC -eq 0 || test $RC -eq 3"
check "the answer that held key forms is kept, with them replaced" python3 -c "
import json, sys
u = [u for u in json.load(open(sys.argv[1]))['units'] if 'Q5' in (u['test_name'] or '') and u['variant'] == 'head'][0]
assert u['verdict'] == 'pass', u" "$W/r-forms.json"
_leaks=""
for f in $FORMS; do
	_hits=$(grep -rlaF -e "$f" "$W" 2> /dev/null)
	[ -n "$_hits" ] && _leaks="$_leaks $f in: $_hits;"
done
check "no prefix, capitals, base64, reversed or Basic form of the key in any stream or file" \
	test -z "$_leaks"
[ -n "$_leaks" ] && echo "# $_leaks"
fake_stop

# skillci changed with a token for https clones: the clone fails (no
# network), and the message must not carry the token.
SKILLCI_TRACE=git run "$SKILLCI" changed --repo https://127.0.0.1:9/none.git --base HEAD~1 \
	--cache-dir "$W/clones"; keep
expect_exit 3 "changed: an unreachable https clone is an infrastructure failure"
no_secret "no planted key or token in any stream, results JSON, report, store or cache"

# ---- the kernel worker's environment ----
# A stand-in worker records the environment it was started with (the
# kernel's copy in /proc, exactly what execve passed) and exits without
# a result; skillci starts it exactly as it starts skillci-kernel.
if [ "${HAVE_CUDA:-}" != 1 ]; then
	skip "the kernel worker's environment is empty" "not built with CUDA (no kernel worker)"
else
	mkdir -p "$W/skills/kern" "$T/fixtures"
	cp -R "$SKILLCI_ROOT/fixtures/softmax" "$T/fixtures/"
	printf -- '---\nname: kern\ndescription: Writes CUDA kernels.\n---\nWrite fast kernels.\n' > "$W/skills/kern/SKILL.md"
	echo '{"tests": [{"input": "Write the softmax kernel.", "fixture": "softmax"}]}' > "$W/skills/kern/skill_meta.json"
	cat > "$T/env-worker" <<EOF
#!/bin/sh
/bin/cat /proc/\$\$/environ > "$T/worker-environ"
/bin/ls -l /proc/\$\$/fd > "$T/worker-fds" 2>&1
exit 7
EOF
	chmod +x "$T/env-worker"
	SKILLCI_KERNEL_WORKER="$T/env-worker" FOO_PLANTED=1 run "$SKILLCI" eval skills/kern -m oracle.self \
		--store "$W/k.db" --fixtures "$T/fixtures" --allow-unpinned --no-baseline --json "$W/k.json"; keep
	expect_file "$T/worker-environ" "the stand-in worker ran"
	check "the kernel worker's environment is empty (0 bytes in /proc/PID/environ)" \
		test "$(wc -c < "$T/worker-environ")" -eq 0
	check "the worker's failure is reported, not a pass" python3 -c "
import json, sys
u = json.load(open(sys.argv[1]))['units'][0]
assert u['verdict'] != 'pass' and 'status 7' in (u['message'] or ''), u" "$W/k.json"
	no_secret "no planted key after the kernel run"
fi

done_testing
