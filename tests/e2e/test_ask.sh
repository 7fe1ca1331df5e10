# skillci ask against the fake model server: answers and token lines on
# both APIs, exit codes, the cache and --offline, tracing with keys
# masked, and a scan of every output, log and cache file for a planted key.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

KA=sk-ant-PLANTED-e2e-0123456789
KO=sk-oai-PLANTED-e2e-9876543210
cat > "$T/script.json" <<'JSON'
{
  "rules": [
    {"match": {"contains": "usage please"},
     "reply": {"text": "counted", "usage": {"input": 123, "output": 45, "cache_read": 67, "cache_creation": 8}}},
    {"match": {"contains": "forbidden"},
     "reply": {"status": 401, "error_type": "authentication_error", "error_message": "invalid x-api-key", "echo_key": true}},
    {"match": {"contains": "overloaded"},
     "reply": {"status": 529, "error_type": "overloaded_error", "error_message": "Overloaded"}},
    {"match": {"contains": "flaky", "first": 1},
     "reply": {"status": 503, "retry_after": "0"}}
  ],
  "default": {"text": "fake answer to: {last_user}"}
}
JSON
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY="$KA"
export OPENAI_API_BASE="$FAKE_URL/v1" OPENAI_API_KEY="$KO"
export GENERIC_BASE_URL="$FAKE_URL/v1"
unset GENERIC_API_KEY SKILLCI_TRACE
C="$T/cache"
all="$T/all-output"
: > "$all"
keep() { printf '%s\n%s\n' "$OUT" "$ERR" >> "$all"; }

run "$SKILLCI" ask -m haiku --cache-dir "$C" "hello there"
keep
expect_exit 0 "ask answers through the Anthropic API"
expect_out_contains "fake answer to: hello there" "the answer goes to stdout"
expect_err_contains "tokens: input 10, output 5" "the token line goes to stderr"
expect_out_lacks "tokens:" "stdout holds only the answer"

run "$SKILLCI" ask -m anthropic.claude-test --cache off "usage please"
keep
expect_err_contains "tokens: input 123, output 45, cache read 67, cache write 8" "exact Anthropic token accounting"

run "$SKILLCI" ask -m openai.gpt-test --cache off "usage please"
keep
expect_exit 0 "ask answers through the OpenAI API"
expect_err_contains "tokens: input 131, output 45, cache read 67, cache write 0" "exact OpenAI token accounting (cached tokens moved out of input)"

run "$SKILLCI" ask -m generic.local --cache off -s "be brief" "hi generic"
keep
expect_out_contains "fake answer to: hi generic" "generic OpenAI-compatible servers work"
check "the generic request carries the system prompt first" \
	grep -q '"messages": \[{"role": "system", "content": "be brief"}' "$FAKE_LOG"

# cache: the second ask is free, --offline answers from it, a miss fails
n_before=$(fake_stat requests)
run "$SKILLCI" ask -m haiku --cache-dir "$C" "hello there"
keep
expect_exit 0 "a cached ask exits 0"
expect_err_contains "from cache" "the second ask is a cache hit"
check "a cache hit sends no request" test "$(fake_stat requests)" -eq "$n_before"
run "$SKILLCI" ask -m haiku --cache-dir "$C" --offline "hello there"
keep
expect_exit 0 "--offline answers from the cache"
expect_out_contains "fake answer to: hello there" "--offline gives the cached answer"
run "$SKILLCI" ask -m haiku --cache-dir "$C" --offline "not cached"
keep
expect_exit 3 "--offline miss exits 3"
expect_err_contains "claude-haiku-4-5" "--offline miss names the model"
expect_err_contains "offline" "--offline miss says why"
run "$SKILLCI" ask -m haiku --cache-dir "$C" --run 1 --offline "hello there"
expect_exit 3 "another run index is another sample"

# errors
run "$SKILLCI" ask -m bogus.model "hi"
keep
expect_exit 2 "a bad model name exits 2"
expect_err_contains "unknown provider 'bogus'" "the bad provider is named"
run "$SKILLCI" ask "hi"
expect_exit 2 "no model exits 2"
for t in nan -nan inf 2.5 -0.1; do
	run "$SKILLCI" ask -m oracle.self --temperature "$t" "hi"
	expect_exit 2 "--temperature $t is a usage error"
done
expect_err_contains "from 0 to 2" "and says what is allowed"
run "$SKILLCI" ask -m haiku --cache off "forbidden"
keep
expect_exit 3 "401 exits 3"
expect_err_contains "invalid x-api-key" "the provider's own message is shown"
expect_err_contains "[redacted]" "a key echoed by the provider is redacted"
run "$SKILLCI" ask -m haiku --cache off --attempts 2 "overloaded"
keep
expect_exit 3 "529 after every attempt exits 3"
expect_err_contains "gave up after 2 attempts" "the attempt count is reported"
run "$SKILLCI" ask -m openai.gpt-test --cache off "flaky"
keep
expect_exit 0 "a 503 is retried"
expect_err_contains "2 attempts" "the retry is counted"
run env -u ANTHROPIC_API_KEY "$SKILLCI" ask -m sonnet "hi"
keep
expect_exit 2 "a missing key exits 2"
expect_err_contains "ANTHROPIC_API_KEY is not set" "the missing variable is named"
run "$SKILLCI" ask -m oracle --reference "the reference" "anything"
keep
expect_exit 0 "the oracle answers without a server"
expect_out_contains "the reference" "the oracle returns the reference answer"
expect_err_contains "oracle" "the oracle is labelled"

# tracing shows requests with keys masked
run env SKILLCI_TRACE=http "$SKILLCI" ask -m haiku --cache off "traced"
keep
expect_err_contains "x-api-key: [masked]" "trace masks x-api-key"
expect_err_contains '"content":"traced"' "trace shows the request body"
run env SKILLCI_TRACE=http "$SKILLCI" ask -m openai.gpt-test --cache off "traced"
keep
expect_err_contains "Authorization: [masked]" "trace masks the bearer token"

# the planted keys appear nowhere: outputs, traces, cache files, the fake's log
check "no output or trace holds a planted key" sh -c "! grep -q PLANTED '$all'"
check "no cache file holds a planted key" sh -c "! grep -rq PLANTED '$C'"
check "the fake's request log holds no planted key" sh -c "! grep -q PLANTED '$FAKE_LOG'"
check "the cache holds entries" sh -c "ls '$C'/*/*.json > /dev/null"

done_testing
