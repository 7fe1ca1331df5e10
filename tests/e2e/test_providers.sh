# Provider behaviour end to end, against the fake model server: injected
# faults seen through skillci ask, Retry-After as an HTTP date, the retry
# classes (overload, quota and billing, auth, retry-after-ms), the
# capability table of the code against its documentation, and the
# concurrency bound of one client over many requests (the fake's highest
# in-flight count), through the benchmark driver at a small size.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

cat > "$T/script.json" <<'JSON'
{
  "rules": [
    {"match": {"contains": "reset-once", "first": 1}, "reply": {"fault": "reset"}},
    {"match": {"contains": "truncate-always"}, "reply": {"fault": "truncate"}},
    {"match": {"contains": "malformed"}, "reply": {"fault": "malformed"}},
    {"match": {"contains": "dated", "first": 1}, "reply": {"status": 429, "retry_after_in": 1}},
    {"match": {"contains": "bad-request"},
     "reply": {"status": 400, "error_type": "invalid_request_error", "error_message": "max_tokens: too large"}},
    {"match": {"contains": "missing-model"},
     "reply": {"status": 404, "error_type": "not_found_error", "error_message": "model: nope"}},
    {"match": {"contains": "overloaded", "first": 2},
     "reply": {"status": 529, "error_type": "overloaded_error", "error_message": "Overloaded"}},
    {"match": {"contains": "no-credit"},
     "reply": {"status": 400, "error_type": "invalid_request_error",
               "error_message": "Your credit balance is too low to access the Anthropic API."}},
    {"match": {"contains": "pay-up"}, "reply": {"status": 402, "error_message": "Insufficient credits"}},
    {"match": {"contains": "bad-key"},
     "reply": {"status": 401, "error_type": "authentication_error", "error_message": "invalid x-api-key"}},
    {"match": {"contains": "wait-ms", "first": 1},
     "reply": {"status": 503, "retry_after_ms": 25, "retry_after": "30"}}
  ],
  "default": {"text": "fine"}
}
JSON
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-ant-PLANTED-providers
export OPENAI_API_BASE="$FAKE_URL/v1" OPENAI_API_KEY=sk-oai-PLANTED-providers
unset SKILLCI_TRACE

run "$SKILLCI" ask -m haiku --cache off "reset-once"
expect_exit 0 "a connection reset is retried"
expect_err_contains "2 attempts" "the reset costs one attempt"

run "$SKILLCI" ask -m haiku --cache off --attempts 2 "truncate-always"
expect_exit 3 "truncated bodies every time exit 3"
expect_err_contains "gave up after 2 attempts" "truncation is retried up to the cap"

run "$SKILLCI" ask -m openai.gpt-test --cache off "malformed"
expect_exit 3 "malformed JSON exits 3"
expect_err_contains "not a chat completion" "the parse failure is explained"
expect_err_lacks "attempts;" "malformed JSON is not retried"

run "$SKILLCI" ask -m openai.gpt-test --cache off "dated"
expect_exit 0 "429 with an HTTP-date Retry-After is retried"
expect_err_contains "2 attempts" "the dated retry is counted"

n0=$(fake_stat requests)
run "$SKILLCI" ask -m haiku --cache off "bad-request"
expect_exit 3 "400 exits 3"
expect_err_contains "invalid_request_error: max_tokens: too large" "400 shows the provider's message"
check "400 is not retried" test "$(fake_stat requests)" -eq $((n0 + 1))
run "$SKILLCI" ask -m openai.gpt-test --cache off "missing-model"
expect_exit 3 "404 exits 3"
expect_err_contains "model: nope" "404 shows the provider's message"

# retry classes: overload is retried; quota, billing and auth are not
run "$SKILLCI" ask -m haiku --cache off "overloaded"
expect_exit 0 "529 overloaded is retried"
expect_err_contains "3 attempts" "two overloads cost two attempts"
for case in "no-credit|haiku|credit balance is too low" "pay-up|openai.gpt-test|Insufficient credits"; do
	word=${case%%|*} rest=${case#*|}
	model=${rest%%|*} says=${rest#*|}
	n0=$(fake_stat requests)
	run "$SKILLCI" ask -m "$model" --cache off "$word"
	expect_exit 3 "$word: fails"
	expect_err_contains "$says" "$word: the provider's message"
	expect_err_contains "(quota or billing: add credit or raise the limit; not retried)" "$word: said to be quota"
	check "$word: not retried" test "$(fake_stat requests)" -eq $((n0 + 1))
done
n0=$(fake_stat requests)
run "$SKILLCI" ask -m haiku --cache off "bad-key"
expect_exit 3 "401 fails"
check "401 is not retried" test "$(fake_stat requests)" -eq $((n0 + 1))
run env SKILLCI_TRACE=http "$SKILLCI" ask -m openai.gpt-test --cache off "wait-ms"
expect_exit 0 "503 with retry-after-ms is retried"
expect_err_contains "in 25 ms after HTTP 503" "retry-after-ms wins over Retry-After"

# the capability table of the code and the one of docs/providers.md name the
# same families
check "every family of models.c is in docs/providers.md" python3 - \
	"$SKILLCI_ROOT/runner/providers/models.c" "$SKILLCI_ROOT/docs/providers.md" <<'EOF'
import re, sys
code = open(sys.argv[1]).read()
table = code[code.index("} families[] = {"):code.index("#undef OAI")]
prefixes = re.findall(r'^\s*\{ [A-Z_P()|\s]+, "([^"]+)"', table, re.M)
assert len(prefixes) > 20, prefixes
doc = open(sys.argv[2]).read()
section = doc[doc.index("### What each model takes"):doc.index("### Parameters, usage and retries")]
missing = [p for p in prefixes if p.rstrip("-") not in section]
assert not missing, missing
EOF

driver="$SKILLCI_ROOT/${BUILD:-build}/tests/bench/bench_providers"
if [ -x "$driver" ]; then
	printf '{"default": {"text": "ok", "await_in_flight": 8, "await_ms": 20000, "latency_ms": 30}}\n' > "$T/load.json"
	fake_script "$T/load.json"
	fake_reset
	run "$driver" haiku 120 8
	expect_exit 0 "120 requests at concurrency 8 all succeed"
	expect_out_contains "requests          120 (ok 120, failed 0)" "the driver counts every answer"
	check "the fake saw every request" test "$(fake_stat requests)" -eq 120
	check "the fake never saw more than 8 at once" test "$(fake_stat max_in_flight)" -le 8
	check "the bound of 8 is used" test "$(fake_stat max_in_flight)" -eq 8
else
	skip "concurrency bound through the driver" "bench_providers not built"
fi

done_testing
