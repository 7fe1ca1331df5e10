# Every provider of the table, end to end against the fake model server:
# for each, the request path, the key header (hash of the planted key),
# version and extra headers, the body as that provider expects it (model
# name, max tokens field, reasoning setting) and the token counts parsed
# from the answer; then three endpoints side by side in one eval (a named
# endpoint of skillci.yml, a generic server, kimi on the Hugging Face
# router), an upskill project folder evaluated as it is, --generate-tests,
# the closest-match errors, and a scan of every output for the planted keys.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

cat > "$T/script.json" <<'JSON'
{
  "rules": [
    {"match": {"system": "You generate test cases"},
     "reply": {"text": "```json\n{\"cases\": [{\"input\": \"Release 2.1.0 of libfoo\", \"expected\": {\"contains\": [\"tag v2.1.0\", \"publish\"]}}, {\"input\": \"Release 0.9.1 of barlib\", \"expected\": {\"contains\": [\"tag v0.9.1\", \"publish\"]}}]}\n```",
               "usage": {"input": 300, "output": 80}}},
    {"match": {"system": "<skill", "contains": "Release 2.1.0"},
     "reply": {"text": "1. bump 2. changelog 3. tag v2.1.0 4. build 5. publish 6. announce"}},
    {"match": {"system": "<skill", "contains": "Release 0.9.1"},
     "reply": {"text": "1. bump 2. changelog 3. tag v0.9.1 4. build 5. publish 6. announce"}},
    {"match": {"system": "<skill", "contains": "PR 88"}, "reply": {"text": "### Fixed\n- Export CSV dates in the user's time zone (#88)"}},
    {"match": {"system": "<skill", "contains": "issue 91"}, "reply": {"text": "### Added\n- Add --json to list (#91)"}},
    {"match": {"system": "<skill", "contains": "PR 95"}, "reply": {"text": "### Changed\n- Move the config file (#95)"}},
    {"match": {"system": "<skill"}, "reply": {"text": "ANSWER-OK"}},
    {"match": {"contains": "ping"},
     "reply": {"text": "fake answer to: {last_user}",
               "usage": {"input": 11, "output": 7, "cache_read": 3, "cache_creation": 0}}}
  ],
  "default": {"text": "no idea", "usage": {"input": 20, "output": 5}}
}
JSON
fake_start "$T/script.json" || exit 1
F="$FAKE_URL"
unset SKILLCI_TRACE GITHUB_ACTIONS
all="$T/all-output"
: > "$all"
keep() { printf '%s\n%s\n' "$OUT" "$ERR" >> "$all"; }
# no provider variable from the caller's environment may leak in
for v in ANTHROPIC_BASE_URL ANTHROPIC_API_KEY OPENAI_BASE_URL OPENAI_API_BASE OPENAI_API_KEY \
	AZURE_BASE_URL AZURE_OPENAI_ENDPOINT AZURE_OPENAI_API_KEY AZURE_API_KEY AZURE_API_VERSION \
	OPENAI_API_VERSION GOOGLE_BASE_URL GOOGLE_API_KEY GEMINI_API_KEY HF_BASE_URL HF_TOKEN \
	OPENROUTER_BASE_URL OPENROUTER_API_KEY DEEPSEEK_BASE_URL DEEPSEEK_API_KEY XAI_BASE_URL \
	XAI_API_KEY GROQ_BASE_URL GROQ_API_KEY GENERIC_BASE_URL GENERIC_API_KEY HF_DEFAULT_PROVIDER \
	HF_HOME HF_TOKEN_PATH ALIYUN_BASE_URL ALIYUN_API_KEY DASHSCOPE_API_KEY ZAI_BASE_URL ZAI_API_KEY \
	MOONSHOT_BASE_URL MOONSHOT_API_KEY; do
	unset "$v"
done

# ---- one case per provider ---------------------------------------------------
# provider | model | base variable | base path | key variable | request path |
# key header | other header (name=value, or -) | body model | max tokens field=value |
# reasoning field=value (or -)
cat > "$T/cases" <<'EOF'
anthropic|haiku?reasoning=high|ANTHROPIC_BASE_URL|/anthropic|ANTHROPIC_API_KEY|/anthropic/v1/messages|x-api-key|anthropic-version=2023-06-01|claude-haiku-4-5|max_tokens=20480|thinking.budget_tokens=16384
openai|openai.o3-mini?reasoning=high|OPENAI_BASE_URL|/openai/v1|OPENAI_API_KEY|/openai/v1/chat/completions|authorization|-|o3-mini|max_completion_tokens=4096|reasoning_effort=high
azure|azure.gpt4o-prod?reasoning=low|AZURE_OPENAI_ENDPOINT|/azure-res|AZURE_OPENAI_API_KEY|/azure-res/openai/deployments/gpt4o-prod/chat/completions|api-key|-|gpt4o-prod|max_completion_tokens=4096|reasoning_effort=low
google|google.gemini-2.5-flash?reasoning=medium|GOOGLE_BASE_URL|/v1beta/openai|GEMINI_API_KEY|/v1beta/openai/chat/completions|authorization|-|gemini-2.5-flash|max_tokens=4096|reasoning_effort=medium
hf|kimi|HF_BASE_URL|/hf/v1|HF_TOKEN|/hf/v1/chat/completions|authorization|-|moonshotai/Kimi-K2-Instruct-0905:groq|max_tokens=4096|-
openrouter|openrouter.deepseek/deepseek-r1?reasoning=high|OPENROUTER_BASE_URL|/openrouter/api/v1|OPENROUTER_API_KEY|/openrouter/api/v1/chat/completions|authorization|x-title=skillci|deepseek/deepseek-r1|max_tokens=4096|reasoning.effort=high
deepseek|deepseek.deepseek-reasoner|DEEPSEEK_BASE_URL|/deepseek|DEEPSEEK_API_KEY|/deepseek/chat/completions|authorization|-|deepseek-reasoner|max_tokens=4096|-
xai|grok-3-mini?reasoning=high|XAI_BASE_URL|/xai/v1|XAI_API_KEY|/xai/v1/chat/completions|authorization|-|grok-3-mini|max_tokens=4096|reasoning_effort=high
groq|groq.openai/gpt-oss-20b?reasoning=low|GROQ_BASE_URL|/groq/openai/v1|GROQ_API_KEY|/groq/openai/v1/chat/completions|authorization|-|openai/gpt-oss-20b|max_completion_tokens=4096|reasoning_effort=low
generic|generic.llama3.2:latest|GENERIC_BASE_URL|/ollama/v1|GENERIC_API_KEY|/ollama/v1/chat/completions|authorization|-|llama3.2:latest|max_tokens=4096|-
responses|gpt-5.1?reasoning=low|OPENAI_BASE_URL|/resp/v1|OPENAI_API_KEY|/resp/v1/responses|authorization|-|gpt-5.1|max_output_tokens=4096|reasoning.effort=low
aliyun|aliyun.qwen-plus?reasoning=low|ALIYUN_BASE_URL|/dashscope/compatible-mode/v1|ALIYUN_API_KEY|/dashscope/compatible-mode/v1/chat/completions|authorization|-|qwen-plus|max_tokens=4096|reasoning_effort=low
zai|zai.glm-5.2?reasoning=high|ZAI_BASE_URL|/zai/api/paas/v4|ZAI_API_KEY|/zai/api/paas/v4/chat/completions|authorization|-|glm-5.2|max_tokens=4096|reasoning_effort=high
moonshot|moonshot.kimi-k3|MOONSHOT_BASE_URL|/moonshot/v1|MOONSHOT_API_KEY|/moonshot/v1/chat/completions|authorization|-|kimi-k3|max_tokens=4096|-
EOF
# zai and moonshot are fast-agent 0.10's providers: a configuration that names that version
printf 'version: 1\nfast_agent_version: 0.10.48\n' > "$T/fa10.yml"
keys=""
while IFS='|' read -r prov model bvar bpath kvar path kh other bmodel maxf effort; do
	key="sk-PLANTED-$prov-4a7c19"
	keys="$keys $key"
	n0=$(fake_req --count)
	cfg=""
	case $prov in zai|moonshot) cfg="--config=$T/fa10.yml" ;; esac
	run env "$bvar=$F$bpath" "$kvar=$key" "$SKILLCI" ask -m "$model" $cfg --cache off "ping $prov"
	keep
	expect_exit 0 "$prov: ask answers"
	expect_out_contains "fake answer to: ping $prov" "$prov: the answer is printed"
	expect_err_contains "tokens: input 11, output 7, cache read 3" "$prov: token counts parsed from its usage"
	check "$prov: one request" test "$(fake_req --count)" -eq $((n0 + 1))
	check "$prov: request path $path" test "$(fake_req -1 path)" = "$path"
	check "$prov: the key goes in the $kh header" test "$(fake_req -1 "headers.$kh")" = "$(fake_mask "$key")"
	for h in x-api-key api-key authorization; do
		[ "$h" = "$kh" ] && continue
		check "$prov: no $h header" test "$(fake_req -1 "headers.$h")" = "<missing>"
	done
	if [ "$other" != "-" ]; then
		check "$prov: header ${other%%=*}" test "$(fake_req -1 "headers.${other%%=*}")" = "${other#*=}"
	fi
	check "$prov: body model '$bmodel'" test "$(fake_req -1 body.model)" = "$bmodel"
	check "$prov: body ${maxf%%=*}" test "$(fake_req -1 "body.${maxf%%=*}")" = "${maxf#*=}"
	if [ "$effort" = "-" ]; then
		check "$prov: no reasoning field" sh -c "test \"\$(python3 '$_fake_root/fake_log.py' '$FAKE_LOG' -1 body.reasoning_effort body.thinking body.reasoning | sort -u)\" = '<missing>'"
	else
		check "$prov: reasoning ${effort%%=*}" test "$(fake_req -1 "body.${effort%%=*}")" = "${effort#*=}"
	fi
done < "$T/cases"

# Azure's API version rides in the query; another can be asked for
check "azure: api-version 2025-04-01-preview by default" sh -c "grep -q '\"api-version\": \"2025-04-01-preview\"' '$FAKE_LOG'"
run env AZURE_OPENAI_ENDPOINT="$F/azure-res" AZURE_API_KEY=sk-PLANTED-azure2-4a7c19 \
	AZURE_API_VERSION=2025-01-01-preview "$SKILLCI" ask -m azure.o3-mini-dep --cache off "ping azure2"
keep
keys="$keys sk-PLANTED-azure2-4a7c19"
expect_exit 0 "azure: AZURE_API_KEY (fast-agent's name) works too"
check "azure: AZURE_API_VERSION sets the version" test "$(fake_req -1 query.api-version)" = "2025-01-01-preview"

# generic without a key sends none; Google takes GOOGLE_API_KEY first
run env GENERIC_BASE_URL="$F/ollama/v1" "$SKILLCI" ask -m generic.qwen3:8b --cache off "ping keyless"
keep
expect_exit 0 "generic: a keyless local server"
check "generic: no Authorization without a key" test "$(fake_req -1 headers.authorization)" = "<missing>"
run env GOOGLE_BASE_URL="$F/g" GOOGLE_API_KEY=sk-PLANTED-goog-4a7c19 GEMINI_API_KEY=sk-PLANTED-gem-4a7c19 \
	"$SKILLCI" ask -m gemini25pro --cache off "ping google2"
keep
keys="$keys sk-PLANTED-goog-4a7c19 sk-PLANTED-gem-4a7c19"
check "google: GOOGLE_API_KEY wins over GEMINI_API_KEY" \
	test "$(fake_req -1 headers.authorization)" = "$(fake_mask sk-PLANTED-goog-4a7c19)"
check "google: the alias gemini25pro" test "$(fake_req -1 body.model)" = "gemini-2.5-pro"

# an alias's route can be changed (fast-agent: kimi:together); settings in the name
run env HF_BASE_URL="$F/hf/v1" HF_TOKEN=sk-PLANTED-hf-4a7c19 "$SKILLCI" ask --cache off \
	-m 'kimi:together?temperature=0.6&top_p=0.95' "ping route"
keep
expect_exit 0 "hf: kimi:together with settings"
expect_err_contains "model: hf.moonshotai/Kimi-K2-Instruct-0905:together?temperature=0.6&top_p=0.95" \
	"ask names the model the alias resolved to"
check "hf: the route replaces the alias's" test "$(fake_req -1 body.model)" = "moonshotai/Kimi-K2-Instruct-0905:together"
check "hf: temperature from the name" test "$(fake_req -1 body.temperature)" = "0.6"
check "hf: top_p from the name" test "$(fake_req -1 body.top_p)" = "0.95"

# a missing key names the variable; nothing is sent
n0=$(fake_req --count)
run env OPENROUTER_BASE_URL="$F/openrouter/api/v1" "$SKILLCI" ask -m openrouter.x/y --cache off "ping"
expect_exit 2 "a missing key exits 2"
expect_err_contains "OPENROUTER_API_KEY is not set" "the missing key's variable is named"
check "nothing is sent without a key" test "$(fake_req --count)" -eq "$n0"
run env AZURE_OPENAI_API_KEY=k "$SKILLCI" ask -m azure.dep --cache off "ping"
expect_exit 2 "azure without an endpoint exits 2"
expect_err_contains "AZURE_BASE_URL or AZURE_OPENAI_ENDPOINT is not set" "azure names its endpoint variables"

# ---- unknown names: the known ones and the closest --------------------------
run "$SKILLCI" ask -m sonet "hi"
expect_exit 2 "an unknown alias exits 2"
expect_err_contains "did you mean 'sonnet'?" "the closest alias is suggested"
expect_err_contains "providers: anthropic, openai, azure, google, hf, openrouter, deepseek, xai, groq, responses, aliyun, generic, oracle" \
	"the known providers (fast-agent 0.6.7's that skillci speaks) are listed"
expect_err_contains "aliases of fast-agent 0.6.7: chatgpt, claude," "the known aliases are listed"
run "$SKILLCI" ask -m zai.glm-5.2 "hi"
expect_exit 2 "a provider of another fast-agent version exits 2"
expect_err_contains "fast-agent 0.6.7, whose model names this repository follows, has no provider 'zai' (fast-agent 0.10.48 has it; fast_agent_version in skillci.yml chooses the version)" \
	"the refusal names the version that has it, not a near provider"
expect_err_lacks "did you mean" "no misleading suggestion"
run "$SKILLCI" ask -m sonnet.high "hi"
expect_exit 2 "the .EFFORT suffix is refused"
expect_err_contains "write 'sonnet?reasoning=high'" "its replacement is spelled out"
run "$SKILLCI" ask -m bedrock.anthropic.claude-3-5-sonnet-20240620-v1:0 "hi"
expect_exit 2 "bedrock is refused by name"
expect_err_contains "provider 'bedrock' is not one skillci speaks: Amazon Bedrock's model ids hold ':'" \
	"with the reason"
run "$SKILLCI" ask -m openrouterr.x/y "hi"
expect_exit 2 "an unknown provider exits 2"
expect_err_contains "unknown provider 'openrouterr'" "the provider is named"
expect_err_contains "did you mean 'openrouter.x/y'?" "the closest provider is suggested"
run "$SKILLCI" eval "$T" -m gpt-4.1-turbo-x
expect_exit 2 "eval refuses an unknown model before any work"
expect_err_contains "'gpt-4.1-turbo-x'" "eval names the bad model"

run "$SKILLCI" help models
expect_exit 0 "help models"
for p in anthropic openai azure google hf openrouter deepseek xai groq responses aliyun generic oracle; do
	expect_out_contains "  $p " "help models lists $p"
done
expect_out_lacks "  zai " "help models lists no provider of another fast-agent version"
expect_out_contains "Model names follow fast-agent 0.6.7, upskill's pin" "help models names the version"
expect_out_contains "kimi                   hf.moonshotai/Kimi-K2-Instruct-0905:groq" "help models resolves kimi"
expect_out_contains "gpt-4.1                openai.gpt-4.1" "help models resolves gpt-4.1"
expect_out_contains "codex                  responses.gpt-5.3-codex" "help models resolves codex (the Responses API)"
expect_out_contains "codexplan              refused: " "help models says which aliases are refused"
run "$SKILLCI" help models --config "$T/fa10.yml"
expect_out_contains "Model names follow fast-agent 0.10.48" "fast_agent_version chooses the version"
expect_out_contains "  zai " "0.10.48 has zai"
expect_out_contains "sonnet                 anthropic.claude-sonnet-5-5" "and its own aliases"

# ---- three endpoints side by side in one eval ---------------------------------
A_URL=$F A_LOG=$FAKE_LOG
A0=$(fake_req --count)
fake_start "$T/script.json" || exit 1
B_URL=$FAKE_URL B_LOG=$FAKE_LOG
fake_start "$T/script.json" || exit 1
C_URL=$FAKE_URL C_LOG=$FAKE_LOG
P="$T/three"
mkdir -p "$P/skills/greeter"
printf -- '---\nname: greeter\ndescription: Greets with the magic word.\n---\n# Greeter\n\nAnswer with ANSWER-OK.\n' \
	> "$P/skills/greeter/SKILL.md"
cat > "$P/skills/greeter/skill_meta.json" <<'EOF'
{"tests": [{"input": "say hello", "expected": {"contains": ["answer-ok"]}},
           {"input": "say hi", "expected": {"contains": ["answer-ok"]}}]}
EOF
cat > "$P/skillci.yml" <<EOF
version: 1
providers:
  lab:
    wire: openai
    base_url: $A_URL/lab/v1
    api_key_env: LAB_KEY
EOF
cd "$P" || exit 1
run env LAB_KEY=sk-PLANTED-lab-4a7c19 GENERIC_BASE_URL="$B_URL/v1" HF_BASE_URL="$C_URL/hf/v1" \
	HF_TOKEN=sk-PLANTED-hf3-4a7c19 "$SKILLCI" eval skills/greeter -m lab.a -m generic.b -m kimi \
	--json "$T/three.json" --store "$T/three.db" --no-cache --runs 1
keep
keys="$keys sk-PLANTED-lab-4a7c19 sk-PLANTED-hf3-4a7c19"
cd "$SKILLCI_ROOT" || exit 1
expect_exit 0 "eval -m lab.a -m generic.b -m kimi"
FAKE_LOG=$A_LOG
check "lab: 4 requests to the named endpoint" test "$(fake_req --count)" -eq $((A0 + 4))
check "lab: path under its base_url" test "$(fake_req -1 path)" = "/lab/v1/chat/completions"
check "lab: model a" test "$(fake_req -1 body.model)" = "a"
check "lab: its key from LAB_KEY" test "$(fake_req -1 headers.authorization)" = "$(fake_mask sk-PLANTED-lab-4a7c19)"
FAKE_LOG=$B_LOG
check "generic: 4 requests to GENERIC_BASE_URL" test "$(fake_req --count)" -eq 4
check "generic: model b" test "$(fake_req -1 body.model)" = "b"
check "generic: no key" test "$(fake_req -1 headers.authorization)" = "<missing>"
FAKE_LOG=$C_LOG
check "hf: 4 requests to the router" test "$(fake_req --count)" -eq 4
check "hf: kimi as the router's id" test "$(fake_req -1 body.model)" = "moonshotai/Kimi-K2-Instruct-0905:groq"
check "hf: HF_TOKEN" test "$(fake_req -1 headers.authorization)" = "$(fake_mask sk-PLANTED-hf3-4a7c19)"
for m in lab.a generic.b hf.moonshotai/Kimi-K2-Instruct-0905:groq; do
	check "the terminal table has a row for $m" sh -c "grep -q '^greeter  *$m  ' '$T/.out'"
done
expect_out_contains "greeter on hf.moonshotai/Kimi-K2-Instruct-0905:groq (kimi)" "the alias and its model are shown"
check "results JSON: models as given and as resolved" python3 - "$T/three.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["run"]["models"] == ["lab.a", "generic.b", "kimi"], r["run"]["models"]
assert r["run"]["resolved_models"] == ["lab.a", "generic.b", "hf.moonshotai/Kimi-K2-Instruct-0905:groq"], r["run"]
models = sorted({a["model"] for a in r["aggregates"]})
assert models == ["generic.b", "hf.moonshotai/Kimi-K2-Instruct-0905:groq", "lab.a"], models
for a in r["aggregates"]:
    if a["variant"] == "head":
        assert a["pass_rate"] == 1.0, a
EOF
run "$SKILLCI" report "$T/three.json" --markdown "$T/three.md"
expect_exit 0 "the report renders"
for m in lab.a generic.b hf.moonshotai/Kimi-K2-Instruct-0905:groq; do
	check "the Markdown has a row for $m" sh -c 'grep -F "| <code>skills/greeter</code>" "$1" | grep -qF "<br><sub>$2</sub> |"' sh "$T/three.md" "$m"
done
check "the Markdown footer shows kimi's resolved name" \
	grep -qF '<code>kimi</code> → <code>hf.moonshotai/Kimi-K2-Instruct-0905:groq</code>' "$T/three.md"

# a named endpoint's key is redacted from error messages like any other
cat > "$T/echo.json" <<'EOF'
{"default": {"status": 401, "error_type": "authentication_error", "error_message": "bad key", "echo_key": true}}
EOF
FAKE_LOG=$A_LOG
fake_script_to() { curl -s -X POST --data-binary "@$2" -H 'Content-Type: application/json' "$1/_fake/script" > /dev/null; }
fake_script_to "$A_URL" "$T/echo.json"
cd "$P" || exit 1
run env LAB_KEY=sk-PLANTED-lab-4a7c19 "$SKILLCI" ask -m lab.a --cache off "ping"
keep
cd "$SKILLCI_ROOT" || exit 1
expect_exit 3 "a 401 from a named endpoint exits 3"
expect_err_contains "[redacted]" "the echoed endpoint key is redacted"

# ---- an upskill project folder, evaluated as it is ---------------------------
U="$T/upskill"
cp -r "$SKILLCI_ROOT/tests/data/upskill-project" "$U"
FAKE_LOG=$B_LOG
n0=$(fake_req --count)
cd "$U" || exit 1
# as upskill's fastagent.config.yaml says: GENERIC_BASE_URL overrides its base_url
run env GENERIC_BASE_URL="$B_URL/v1" "$SKILLCI" eval skills/changelog-entry --runs 1 \
	--json "$T/up.json" --store "$T/up.db" --cache "$T/up-cache"
keep
cd "$SKILLCI_ROOT" || exit 1
expect_exit 0 "an upskill project evaluates without edits"
expect_out_contains "changelog-entry on generic.llama3.2:latest (3 tests x 1 runs)" \
	"eval_model of upskill.config.yaml is the model"
expect_out_contains "with skill ████████████████████   100%" "the skill's tests pass with the skill"
expect_out_contains "baseline   ░░░░░░░░░░░░░░░░░░░░     0%" "and fail without it"
check "6 requests (3 tests, with and without the skill)" test "$(fake_req --count)" -eq $((n0 + 6))
check "the model id from upskill.config.yaml" test "$(fake_req -1 body.model)" = "llama3.2:latest"
check "the key from fastagent.config.yaml's generic block" \
	test "$(fake_req -1 headers.authorization)" = "$(fake_mask local)"
check "the project folder is unchanged" diff -r "$SKILLCI_ROOT/tests/data/upskill-project" "$U"
# a skill named by its folder in skills_dir
cd "$U" || exit 1
run env GENERIC_BASE_URL="$B_URL/v1" "$SKILLCI" eval changelog-entry --store "$T/up.db" --no-cache --no-reuse
cd "$SKILLCI_ROOT" || exit 1
expect_exit 0 "a skill named inside skills_dir"
expect_out_contains "changelog-entry on generic.llama3.2:latest" "skills_dir/NAME is evaluated"

# a skill without tests: the message says how to get them
cd "$U" || exit 1
run env GENERIC_BASE_URL="$B_URL/v1" "$SKILLCI" eval skills/release-checklist --store "$T/up.db" --no-cache
cd "$SKILLCI_ROOT" || exit 1
expect_exit 0 "a skill without tests is reported, not failed"
expect_out_contains "unverified: no tests" "untested is said, as unverified"
expect_out_contains "skillci tests init skills/release-checklist" "the message names tests init"
expect_out_contains "--generate-tests" "the message names --generate-tests"
expect_err_contains "--generate-tests has generic.qwen3:8b write them" "the test generation model is named"

# --generate-tests: upskill's test_gen_model writes tests, they are saved, then evaluated
n0=$(fake_req --count)
cd "$U" || exit 1
run env GENERIC_BASE_URL="$B_URL/v1" "$SKILLCI" eval skills/release-checklist --generate-tests --runs 1 \
	--store "$T/up.db" --no-cache --json "$T/gen.json"
keep
cd "$SKILLCI_ROOT" || exit 1
expect_exit 0 "eval --generate-tests"
expect_err_contains "Generating test cases for skills/release-checklist with generic.qwen3:8b" \
	"the test generation model is upskill's test_gen_model"
expect_err_contains "Generated 2 test cases; saved in skills/release-checklist/skill_meta.json" "the tests are saved"
check "the test request went to qwen3:8b" test "$(fake_req "$n0" body.model)" = "qwen3:8b"
check "skill_meta.json holds the generated tests in upskill's format" python3 - "$U/skills/release-checklist/skill_meta.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["metadata"]["generated_by"] == "generic.qwen3:8b", m["metadata"]
assert [t["input"] for t in m["tests"]] == ["Release 2.1.0 of libfoo", "Release 0.9.1 of barlib"], m
assert m["tests"][0]["expected"]["contains"] == ["tag v2.1.0", "publish"]
assert "validator" in m["tests"][0] and "output_file" in m["tests"][0]
EOF
expect_out_contains "release-checklist on generic.llama3.2:latest (2 tests x 1 runs)" "the new tests are evaluated"
expect_out_contains "with skill ████████████████████   100%" "and pass with the skill"
check "1 + 4 requests (tests, then 2 tests x 2 variants)" test "$(fake_req --count)" -eq $((n0 + 5))
# with tests in place a second --generate-tests asks nothing more of the test model
n0=$(fake_req --count)
cd "$U" || exit 1
run env GENERIC_BASE_URL="$B_URL/v1" "$SKILLCI" eval skills/release-checklist --generate-tests --runs 1 \
	--store "$T/up.db" --no-cache --no-reuse
cd "$SKILLCI_ROOT" || exit 1
expect_exit 0 "a skill with tests is evaluated as it is"
check "no test request the second time" test "$(fake_req --count)" -eq $((n0 + 4))
run "$SKILLCI" eval "$U/skills/release-checklist" --generate-tests -m oracle --tests "$T/x.json"
expect_exit 2 "--generate-tests with --tests is a usage error"

# ---- an endpoint only the pull request names is never used ------------------
# The base revision's skillci.yml names no endpoint; the head adds one
# pointing at a server of its choosing. Policy comes from the trusted side
# (the base revision), so `-m evil.x` must be refused and nothing sent there.
R="$T/repo"
mkdir -p "$R/skills/greeter"
git -C "$R" init -q -b main
git -C "$R" config user.email ci@example.com
git -C "$R" config user.name ci
cp "$P/skills/greeter/SKILL.md" "$P/skills/greeter/skill_meta.json" "$R/skills/greeter/"
printf 'version: 1\n' > "$R/skillci.yml"
git -C "$R" add -A && git -C "$R" commit -q -m base
BASE=$(git -C "$R" rev-parse HEAD)
printf 'version: 1\nproviders:\n  evil: {wire: openai, base_url: %s/evil/v1, api_key_env: HF_TOKEN}\n' \
	"$C_URL" > "$R/skillci.yml"
printf '\nAlso say hello.\n' >> "$R/skills/greeter/SKILL.md"
git -C "$R" add -A && git -C "$R" commit -q -m "head adds an endpoint"
HEAD_REV=$(git -C "$R" rev-parse HEAD)
FAKE_LOG=$C_LOG
n0=$(fake_req --count)
cd "$T" || exit 1
run env HF_TOKEN=sk-PLANTED-evil-4a7c19 "$SKILLCI" run --repo "$R" --base "$BASE" --head "$HEAD_REV" \
	-m evil.x --no-cache --store "$T/evil.db" --report-dir "$T/evil-report"
keep
cd "$SKILLCI_ROOT" || exit 1
keys="$keys sk-PLANTED-evil-4a7c19"
# The configuration of a PR check is read from the base revision
# (docs/security.md): the head's endpoint does not exist for the run.
expect_exit 2 "a head-only endpoint is refused (exit 2)"
check "nothing is sent to a head-only endpoint" test "$(fake_req --count)" -eq "$n0"

# ---- what each model takes, counted as each provider counts -------------------
# The capability table (docs/providers.md): every case against a fake of its
# own, asserting the exact body sent, or that nothing was sent, and the usage
# parsed from the provider's own fields.
cat > "$T/caps.json" <<'JSON'
{
  "rules": [
    {"match": {"contains": "usage-xai"},
     "reply": {"text": "grok says hi",
               "raw_usage": {"prompt_tokens": 10, "completion_tokens": 9, "total_tokens": 113,
                             "completion_tokens_details": {"reasoning_tokens": 94}}}},
    {"match": {"contains": "usage-deepseek"},
     "reply": {"text": "cached",
               "raw_usage": {"prompt_tokens": 1000, "completion_tokens": 5,
                             "prompt_cache_hit_tokens": 800, "prompt_cache_miss_tokens": 200}}},
    {"match": {"contains": "cut-short"},
     "reply": {"text": "", "stop": "length", "usage": {"input": 12, "output": 4096}}},
    {"match": {"contains": "claude-cut"},
     "reply": {"text": "the first half", "stop": "max_tokens", "usage": {"input": 12, "output": 64}}},
    {"match": {"contains": "quota-out"},
     "reply": {"status": 429, "error_type": "insufficient_quota",
               "error_message": "You exceeded your current quota, please check your plan and billing details."}},
    {"match": {"contains": "slow-down", "first": 1},
     "reply": {"status": 429, "retry_after_ms": 40, "error_type": "rate_limit_error", "error_message": "slow down"}},
    {"match": {"model": "o3-mini", "contains": "Answer:"}, "reply": {"text": "SCORE: 0.5"}},
    {"match": {"system": "<skill", "contains": "long task"},
     "reply": {"text": "step 1 of 40", "stop": "length", "usage": {"input": 30, "output": 50}}},
    {"match": {"system": "<skill"}, "reply": {"text": "ANSWER-OK"}}
  ],
  "default": {"text": "fine", "usage": {"input": 20, "output": 5}}
}
JSON
fake_start "$T/caps.json" || exit 1
K="$FAKE_URL"
ckey=sk-PLANTED-caps-4a7c19
keys="$keys $ckey"
cenv() { env ANTHROPIC_BASE_URL="$K/a" ANTHROPIC_API_KEY=$ckey OPENAI_BASE_URL="$K/o/v1" \
	OPENAI_API_KEY=$ckey XAI_BASE_URL="$K/x/v1" XAI_API_KEY=$ckey GOOGLE_BASE_URL="$K/g" \
	GOOGLE_API_KEY=$ckey DEEPSEEK_BASE_URL="$K/d" DEEPSEEK_API_KEY=$ckey "$@"; }

# refused before any request: model | extra ask option (or -) | what the message says
cat > "$T/refusals" <<'EOF'
o3-mini|--temperature=0.2|o3-mini is a reasoning model and takes no temperature
o3-mini?reasoning=max|-|o3-mini takes no effort 'max'; it takes low, medium, high
openai.o3-mini?reasoning=none|-|o3-mini cannot turn reasoning off; it takes low, medium, high
openai.gpt-5.1?reasoning=xhigh|-|gpt-5.1 takes no effort 'xhigh'; it takes none, low, medium, high
grok-4?reasoning=high|-|grok-4 takes no reasoning effort
gemini-2.5-pro?reasoning=none|-|gemini-2.5-pro cannot turn reasoning off
haiku35?reasoning=high|-|claude-3-5-haiku-latest has no extended thinking
sonnet?temperature=0.5&top_p=0.9|-|claude-sonnet-4-6 takes temperature or top_p, not both
sonnet?reasoning=high|--temperature=0.3|extended thinking takes no temperature
openai.gpt-5.3-codex|-|gpt-5.3-codex is served only by OpenAI's Responses API; name it responses.MODEL
deepseek?reasoning=high|-|deepseek takes no reasoning setting
haiku?min_p=0.1|-|anthropic takes no min_p
openai.gpt-4.1?web_fetch=on|-|web_fetch is Anthropic's server-side fetch tool
haiku?service_tier=flex|-|service_tier is a setting of OpenAI's APIs
EOF
while IFS='|' read -r model extra says; do
	n0=$(fake_req --count)
	if [ "$extra" = "-" ]; then
		run cenv "$SKILLCI" ask -m "$model" --cache off "ping caps"
	else
		run cenv "$SKILLCI" ask -m "$model" "$extra" --cache off "ping caps"
	fi
	keep
	expect_exit 2 "$model $extra: refused (exit 2)"
	expect_err_contains "$says" "$model: the refusal says why"
	check "$model: nothing was sent" test "$(fake_req --count)" -eq "$n0"
done < "$T/refusals"

# sent or capped: model | body field=value ... (checked on the last request)
cat > "$T/bodies" <<'EOF'
sonnet45?reasoning=max|max_tokens=64000 thinking.budget_tokens=59904 thinking.type=enabled temperature=<missing>
opus4?reasoning=xhigh|max_tokens=32000 thinking.budget_tokens=27904
opus?reasoning=high|model=claude-opus-4-6 max_tokens=20480 thinking.budget_tokens=16384
sonnet37?reasoning=low|model=claude-3-7-sonnet-latest thinking.budget_tokens=2048
haiku35|model=claude-3-5-haiku-latest thinking=<missing> max_tokens=4096
sonnet?reasoning=none|model=claude-sonnet-4-6 thinking=<missing> max_tokens=4096
openai.gpt-5.1?reasoning=minimal|reasoning_effort=low max_completion_tokens=4096
openai.gpt-5.1?reasoning=none|reasoning_effort=none
openai.gpt-5.2?reasoning=max|model=gpt-5.2 reasoning_effort=xhigh
openai.o3-mini?reasoning=high|reasoning_effort=high temperature=<missing>
openai.gpt-5.1?reasoning=auto|reasoning_effort=<missing>
claude-sonnet-4-5|model=claude-sonnet-4-5
gpt52?reasoning=max|model=gpt-5.2 reasoning.effort=xhigh max_output_tokens=4096 reasoning_effort=<missing>
responses.gpt-5.1?reasoning=low|model=gpt-5.1 reasoning.effort=low store=false
responses.gpt-5.2-codex?verbosity=low&service_tier=flex|model=gpt-5.2-codex text.verbosity=low service_tier=flex
gpt-5.1?web_search=on&service_tier=fast|service_tier=priority tools.0.type=web_search
googleoai.gemini-2.5-flash?reasoning=none|model=gemini-2.5-flash reasoning_effort=none
openai.gpt-5?verbosity=low|verbosity=low
haiku3?max_tokens=9000|max_tokens=4096
haiku?top_k=40|top_k=40
sonnet?web_search=on&web_fetch=on|tools.0.type=web_search_20250305 tools.0.name=web_search tools.1.type=web_fetch_20250910
grok-3-mini?reasoning=high|reasoning_effort=high
EOF
while IFS='|' read -r model fields; do
	run cenv "$SKILLCI" ask -m "$model" --cache off "ping body"
	keep
	expect_exit 0 "$model: sent"
	for fv in $fields; do
		check "$model: body ${fv%%=*} is ${fv#*=}" test "$(fake_req -1 "body.${fv%%=*}")" = "${fv#*=}"
	done
done < "$T/bodies"
run cenv "$SKILLCI" ask -m gpt-4.1 --temperature 0.2 --cache off "ping temp"
expect_exit 0 "gpt-4.1 --temperature 0.2"
check "gpt-4.1: temperature 0.2 sent" test "$(fake_req -1 body.temperature)" = "0.2"
# Anthropic's betas ride in a header
run cenv "$SKILLCI" ask -m 'sonnet?context=1m&web_fetch=on' --cache off "ping beta"
expect_exit 0 "sonnet?context=1m&web_fetch=on: sent"
check "the anthropic-beta header names both betas" \
	test "$(fake_req -1 headers.anthropic-beta)" = "context-1m-2025-08-07,web-fetch-2025-09-10"
run cenv "$SKILLCI" ask -m sonnet --cache off "ping nobeta"
check "no anthropic-beta header without a beta" test "$(fake_req -1 headers.anthropic-beta)" = "<missing>"

# usage to one meaning
run cenv "$SKILLCI" ask -m 'grok-3-mini?reasoning=high' --cache off "usage-xai"
keep
expect_exit 0 "xai: answered"
expect_err_contains "tokens: input 10, output 103, cache read 0, cache write 0, reasoning 94" \
	"xai: reasoning tokens outside completion_tokens are counted as output"
run cenv "$SKILLCI" ask -m deepseek --cache off "usage-deepseek"
keep
expect_exit 0 "deepseek: answered"
expect_err_contains "tokens: input 200, output 5, cache read 800, cache write 0" \
	"deepseek: prompt_cache_hit_tokens are the cached input"

# a truncated answer is an error of its own, not an answer
run cenv "$SKILLCI" ask -m openai.o3-mini --cache off "cut-short"
keep
expect_exit 3 "a truncated answer exits 3"
expect_err_contains "the answer was cut at the token limit (finish_reason 'length' after 4096 output tokens)" \
	"the truncation is named"
expect_err_contains "tokens: input 12, output 4096 (reasoning 0)" "its tokens are still shown"
run cenv "$SKILLCI" ask -m haiku --cache off "claude-cut"
keep
expect_exit 3 "an Anthropic answer at max_tokens exits 3"
expect_err_contains "stop_reason 'max_tokens'" "Anthropic's stop reason is read"
expect_err_contains "the first half" "what came before the cut is shown"

# retry classes: quota is not retried; retry-after-ms is honoured
n0=$(fake_req --count)
run cenv "$SKILLCI" ask -m gpt-4.1 --cache off "quota-out"
keep
expect_exit 3 "insufficient_quota fails"
expect_err_contains "insufficient_quota: You exceeded your current quota" "the provider's message is shown"
expect_err_contains "not retried" "the message says it is not retried"
check "insufficient_quota: one request, no retry" test "$(fake_req --count)" -eq $((n0 + 1))
n0=$(fake_req --count)
run cenv SKILLCI_TRACE=http "$SKILLCI" ask -m gpt-4.1 --cache off "slow-down"
keep
expect_exit 0 "a 429 with retry-after-ms is retried"
expect_err_contains "in 40 ms after HTTP 429" "the wait is retry-after-ms"
check "retry-after-ms: two requests" test "$(fake_req --count)" -eq $((n0 + 2))

# eval: a truncated answer is an error of class truncated in results, reports
# and the store's transcript (with the raw usage); the judge's temperature is
# left out for a reasoning model
Q="$T/capsproj"
mkdir -p "$Q/skills/stepper"
printf -- '---\nname: stepper\ndescription: Lists steps.\n---\n# Stepper\n\nAnswer with ANSWER-OK.\n' \
	> "$Q/skills/stepper/SKILL.md"
cat > "$Q/skills/stepper/skill_meta.json" <<'EOF'
{"tests": [{"input": "a long task", "expected": {"contains": ["answer-ok"]}},
           {"input": "a short one", "expected": {"contains": ["answer-ok"]}}]}
EOF
cd "$Q" || exit 1
n0=$(fake_req --count)
run cenv "$SKILLCI" eval skills/stepper -m gpt-4.1 --judge openai.o3-mini --no-baseline \
	--json "$T/caps-results.json" --store "$T/caps.db" --no-cache
keep
cd "$SKILLCI_ROOT" || exit 1
check "results: the cut answer fails its unit (the skill made it run long), of class truncated" \
	python3 - "$T/caps-results.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
u = {x["test_name"]: x for x in r["units"]}
cut = u["a long task"]
assert cut["verdict"] == "fail" and cut["error_class"] == "truncated", cut
assert "cut at the token limit" in cut["message"], cut
assert cut["tokens_out"] == 50, cut
assert u["a short one"]["verdict"] == "pass", u["a short one"]
EOF
check "the store's transcript keeps the cut answer, its stop reason and raw usage" \
	python3 - "$T/caps.db" <<'EOF'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
t = {n: json.loads(x) for n, x in db.execute("select test_name, transcript from units")}
last = t["a long task"][-1]
assert last["role"] == "assistant" and last["content"] == "step 1 of 40", last
assert last["truncated"] is True and last["stop_reason"] == "length", last
assert last["usage_raw"]["completion_tokens"] == 50, last
ok = t["a short one"][-1]
assert ok["stop_reason"] == "stop" and ok["usage_raw"]["completion_tokens"] == 5, ok
EOF
check "the judge (o3-mini) was sent no temperature" python3 - "$FAKE_LOG" "$n0" <<'EOF'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):]
judge = [r for r in reqs if r["body"].get("model") == "o3-mini"]
assert judge, "no judge request"
for r in judge:
    assert "temperature" not in r["body"], r["body"]
    assert r["body"]["max_completion_tokens"] == 1024, r["body"]
EOF
cd "$Q" || exit 1
n0=$(fake_req --count)
run cenv "$SKILLCI" eval skills/stepper -m gpt-4.1 --judge 'openai.o3-mini?reasoning=max' --no-baseline --no-cache \
	--store "$T/caps2.db"
cd "$SKILLCI_ROOT" || exit 1
expect_exit 2 "a judge model that refuses the judge's request is refused before any unit"
expect_err_contains "judge: model 'openai.o3-mini?reasoning=max': o3-mini takes no effort 'max'" "the judge refusal says why"
check "nothing was sent for a refused judge" test "$(fake_req --count)" -eq "$n0"
run "$SKILLCI" report "$T/caps-results.json" --markdown "$T/caps.md"
expect_exit 0 "the report renders"
check "the Markdown report shows the truncated class" grep -q "truncated" "$T/caps.md"
check "planted key caps not in the caps fake's log or outputs" \
	sh -c "! grep -q -- '$ckey' '$FAKE_LOG' '$T/caps.md' '$T/caps-results.json'"

# ---- fast-agent's provider settings: HF route and token file, Azure, headers ----
hkey=sk-PLANTED-hftok-4a7c19
fkey=sk-PLANTED-fafile-4a7c19
keys="$keys $hkey $fkey"
# HF_DEFAULT_PROVIDER routes a model named without ":ROUTE"; a route given wins
run env HF_BASE_URL="$K/hf/v1" HF_TOKEN=$ckey HF_DEFAULT_PROVIDER=groq \
	"$SKILLCI" ask -m hf.openai/gpt-oss-20b --cache off "ping hfroute"
keep
expect_exit 0 "hf: HF_DEFAULT_PROVIDER"
check "hf: HF_DEFAULT_PROVIDER is the route" test "$(fake_req -1 body.model)" = "openai/gpt-oss-20b:groq"
expect_err_contains "model: hf.openai/gpt-oss-20b:groq" "the routed name is the model's name"
run env HF_BASE_URL="$K/hf/v1" HF_TOKEN=$ckey HF_DEFAULT_PROVIDER=groq \
	"$SKILLCI" ask -m kimi --cache off "ping hfroute2"
check "hf: an alias's own route wins" test "$(fake_req -1 body.model)" = "moonshotai/Kimi-K2-Instruct-0905:groq"
# the token `hf auth login` saved, when HF_TOKEN is not set
mkdir -p "$T/hfhome"
printf '%s\n' "$hkey" > "$T/hfhome/token"
run env HF_BASE_URL="$K/hf/v1" HF_HOME="$T/hfhome" "$SKILLCI" ask -m gpt-oss-20b --cache off "ping hftoken"
keep
expect_exit 0 "hf: the token file of hf auth login"
check "hf: the token file's token is sent" test "$(fake_req -1 headers.authorization)" = "$(fake_mask "$hkey")"
run env HF_BASE_URL="$K/hf/v1" HF_HOME="$T/nohome" HOME="$T/nohome" "$SKILLCI" ask -m gpt-oss-20b --cache off "ping"
expect_exit 2 "hf: no token anywhere"
expect_err_contains "HF_TOKEN is not set (needed for hf models; or log in with \`hf auth login\`)" \
	"hf: the message says how to log in"

# fastagent.config.yaml: its api_key before the variable (fast-agent's order),
# hf.default_provider, azure api_version, default_headers (OpenRouter's X-Title
# replaced), each sent as written
FA="$T/faproj"
mkdir -p "$FA"
cat > "$FA/fastagent.config.yaml" <<EOF
default_model: haiku
anthropic:
  api_key: $fkey
hf:
  default_provider: together
azure:
  base_url: $K/azfile
  api_version: 2024-12-01-preview
  azure_deployment: o3-mini-dep
openrouter:
  default_headers:
    X-Title: my-skills
    HTTP-Referer: https://example.org/skills
EOF
cd "$FA" || exit 1
run env ANTHROPIC_BASE_URL="$K/a" ANTHROPIC_API_KEY=$ckey "$SKILLCI" ask -m haiku --cache off "ping fafile"
keep
expect_exit 0 "fastagent.config.yaml: anthropic"
check "the config file's api_key wins over ANTHROPIC_API_KEY" \
	test "$(fake_req -1 headers.x-api-key)" = "$(fake_mask "$fkey")"
run env HF_BASE_URL="$K/hf/v1" HF_TOKEN=$ckey HF_DEFAULT_PROVIDER=groq "$SKILLCI" ask \
	-m hf.Qwen/Qwen3-8B --cache off "ping fahf"
keep
check "hf.default_provider wins over HF_DEFAULT_PROVIDER" test "$(fake_req -1 body.model)" = "Qwen/Qwen3-8B:together"
run env AZURE_API_KEY=$ckey AZURE_API_VERSION=2099-01-01 "$SKILLCI" ask -m 'azure.o3-mini-dep?reasoning=low' --cache off "ping faazure"
keep
expect_exit 0 "fastagent.config.yaml: azure"
check "azure: base_url from the file" test "$(fake_req -1 path)" = "/azfile/openai/deployments/o3-mini-dep/chat/completions"
check "azure: api_version from the file" test "$(fake_req -1 query.api-version)" = "2024-12-01-preview"
check "azure: the o-series rules go by the deployment name (no temperature, low effort)" \
	test "$(fake_req -1 body.reasoning_effort)" = "low"
run env OPENROUTER_BASE_URL="$K/or/api/v1" OPENROUTER_API_KEY=$ckey "$SKILLCI" ask -m openrouter.x/y --cache off "ping faor"
keep
expect_exit 0 "fastagent.config.yaml: openrouter"
check "openrouter: default_headers X-Title replaces skillci's" test "$(fake_req -1 headers.x-title)" = "my-skills"
check "openrouter: default_headers HTTP-Referer" test "$(fake_req -1 headers.http-referer)" = "https://example.org/skills"
cat > "$FA/fastagent.config.yaml" <<'EOF'
openrouter:
  default_headers:
    Authorization: Bearer nope
EOF
run env OPENROUTER_BASE_URL="$K/or/api/v1" OPENROUTER_API_KEY=$ckey "$SKILLCI" ask -m openrouter.x/y --cache off "ping"
expect_exit 2 "a credential header in default_headers is refused"
expect_err_contains "fastagent.config.yaml:1: openrouter.default_headers: 'Authorization' is not a header skillci may send" \
	"the refusal names the file, line and header"
cd "$SKILLCI_ROOT" || exit 1
# the Azure default api-version takes o-series deployments
run env AZURE_OPENAI_ENDPOINT="$K/az" AZURE_API_KEY=$ckey "$SKILLCI" ask -m azure.o4-mini --cache off "ping azdefault"
check "azure: api-version 2025-04-01-preview by default" test "$(fake_req -1 query.api-version)" = "2025-04-01-preview"
check "planted keys of the settings not in the caps fake's log" \
	sh -c "! grep -q -e '$hkey' -e '$fkey' '$FAKE_LOG'"

# ---- no planted key anywhere --------------------------------------------------
for k in $keys; do
	check "planted key ${k%-4a7c19} never printed" sh -c "! grep -q -- '$k' '$all'"
	check "planted key ${k%-4a7c19} not in reports or results" sh -c "! grep -rq -- '$k' '$T'/three.json '$T'/three.md '$T'/up.json '$T'/gen.json '$U'"
	check "planted key ${k%-4a7c19} not in the request logs" sh -c "! grep -q -- '$k' '$A_LOG' '$B_LOG' '$C_LOG'"
done

done_testing
