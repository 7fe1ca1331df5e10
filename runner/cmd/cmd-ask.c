/*
 * skillci ask: one request to a model, for trying a provider by hand and
 * for end-to-end tests. Prints the answer on stdout and one line of token
 * counts on stderr. Exit 0 on an answer, 2 for bad usage or a bad model
 * name or missing key, 3 when the provider fails.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "pipeline/config.h"
#include "providers/cache.h"
#include "providers/provider.h"

#include <unistd.h>

struct ask_opts {
	const char *model, *system, *cache_dir, *reference, *config, *cache;
	bool offline;
	int max_tokens, run, timeout, attempts;
	double temperature;
};

static const struct sc_option ask_table[] = {
	SC_OPT_STRING("model", 'm', struct ask_opts, model, "MODEL",
		      "PROVIDER.MODEL[.EFFORT][?reasoning=R&temperature=T], an\n"
		      "alias (haiku, sonnet, gpt-4.1, kimi, ...) or an endpoint of\n"
		      "skillci.yml's providers; 'skillci help models' lists them"),
	SC_OPT_STRING("system", 's', struct ask_opts, system, "TEXT", "system prompt"),
	SC_OPT_INT("max-tokens", 0, struct ask_opts, max_tokens, 1, 1000000, "N",
		   "answer budget (default 4096)"),
	SC_OPT_DOUBLE("temperature", 0, struct ask_opts, temperature, 0, 2, "T",
		      "sampling temperature (default: the provider's)"),
	SC_OPT_INT("run", 0, struct ask_opts, run, 0, 1000000, "N",
		   "run index: a different cached sample per N (default 0)"),
	SC_OPT_STRING("cache", 0, struct ask_opts, cache, "MODE",
		      "use, refresh, off or offline (default use)"),
	SC_OPT_STRING("cache-dir", 0, struct ask_opts, cache_dir, "DIR",
		      "response cache (default $SKILLCI_CACHE_DIR or\n"
		      "~/.cache/skillci/responses)"),
	SC_OPT_FLAG("offline", 0, struct ask_opts, offline,
		    "answer from the cache only; a miss is an error"),
	SC_OPT_STRING("reference", 0, struct ask_opts, reference, "TEXT",
		      "the reference answer the oracle provider returns"),
	SC_OPT_INT("timeout", 0, struct ask_opts, timeout, 1, 86400, "SEC",
		   "per attempt (default 600)"),
	SC_OPT_INT("attempts", 0, struct ask_opts, attempts, 1, 100, "N",
		   "tries per request (default 6)"),
	SC_OPT_STRING("config", 0, struct ask_opts, config, "FILE",
		      "configuration with named endpoints (default ./skillci.yml,\n"
		      "./upskill.config.yaml, ./fastagent.config.yaml when present)"),
	SC_OPT_END,
};

static const struct sc_options ask_spec = {
	"ask", "PROMPT",
	"Sends one prompt (\"-\" reads it from standard input) to MODEL and prints\n"
	"the answer; token counts go to standard error.",
	"Keys and base URLs come from each provider's variables (ANTHROPIC_API_KEY,\n"
	"OPENAI_API_KEY, HF_TOKEN, GENERIC_BASE_URL, ...; docs/providers.md).\n"
	"Exit codes: 0 answered, 2 bad usage, model name or missing key,\n"
	"3 provider failure.\n",
	ask_table, 0,
};

struct ask_result {
	int exit_code;
};

static void on_answer(struct sc_chat_response *resp, void *payload)
{
	struct ask_result *r = payload;

	if (resp->error_class == SC_CHAT_TRUNCATED && resp->text)
		sc_cmd_text(stderr, resp->text);  /* what came before the cut */
	if (resp->error_class == SC_CHAT_TRUNCATED && resp->text)
		fputc('\n', stderr);
	if (resp->error_class != SC_CHAT_OK) {
		sc_cmd_line(stderr, "error: %s", resp->error);  /* a server's words */
		if (resp->error_class == SC_CHAT_TRUNCATED)
			fprintf(stderr, "tokens: input %lld, output %lld (reasoning %lld), cache read %lld, "
			"cache write %lld\n", (long long)resp->input_tokens,
			(long long)resp->output_tokens, (long long)resp->reasoning_tokens,
			(long long)resp->cache_read_tokens, (long long)resp->cache_creation_tokens);
		r->exit_code = resp->error_class == SC_CHAT_CONFIG ? SC_EXIT_USAGE : SC_EXIT_INFRA;
		return;
	}
	sc_cmd_text(stdout, resp->text);  /* the model's answer: its lines, no control */
	if (!*resp->text || resp->text[strlen(resp->text) - 1] != '\n')
		fputc('\n', stdout);
	fprintf(stderr, "tokens: input %lld, output %lld, cache read %lld, cache write %lld, "
		"reasoning %lld; %d attempt%s, %lld ms%s%s\n",
		(long long)resp->input_tokens, (long long)resp->output_tokens,
		(long long)resp->cache_read_tokens, (long long)resp->cache_creation_tokens,
		(long long)resp->reasoning_tokens, resp->attempts, resp->attempts == 1 ? "" : "s", (long long)resp->latency_ms,
		resp->from_cache ? ", from cache" : "", resp->oracle ? ", oracle (no model)" : "");
	r->exit_code = SC_EXIT_OK;
}

int cmd_ask(int argc, char **argv)
{
	struct ask_opts o;
	struct sc_client_options copt;
	struct sc_chat_request req;
	struct sc_chat_message msg;
	struct sc_client *client = NULL;
	struct sc_buf prompt = SC_BUF_INIT, cache_dir = SC_BUF_INIT;
	struct ask_result result = { SC_EXIT_INFRA };
	const char *model;
	struct sc_config cfg;
	struct sc_model pm;
	int nargs, err, rc = SC_EXIT_OK;

	memset(&cfg, 0, sizeof(cfg));
	memset(&pm, 0, sizeof(pm));
	sc_client_options_init(&copt);
	copt.cache_mode = SC_CACHE_USE;
	memset(&req, 0, sizeof(req));
	memset(&o, 0, sizeof(o));
	o.temperature = -1;  /* the provider's */
	if ((rc = sc_cmd_options(&ask_spec, &o, argc, argv, &nargs)))
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	if (o.cache && sc_cache_mode_parse(&copt.cache_mode, o.cache) < 0)
		return sc_cmd_usage_error("ask", "%s", sc_error_last());
	if (o.offline)
		copt.cache_mode = SC_CACHE_OFFLINE;
	if (o.timeout)
		copt.timeout_ms = (long)o.timeout * 1000;
	if (o.attempts)
		copt.max_attempts = o.attempts;
	if (o.cache_dir)
		sc_buf_sets(&cache_dir, o.cache_dir);
	model = o.model;
	req.system = o.system;
	req.max_tokens = o.max_tokens;
	req.temperature = o.temperature;
	req.run_index = o.run;
	req.oracle_answer = o.reference;
	if (!model)
		return sc_cmd_usage_error("ask", "no model; give one with -m MODEL");
	if (nargs != 1)
		return sc_cmd_usage_error("ask", "give exactly one PROMPT (\"-\" for standard input)");
	/* named endpoints and fast-agent's provider settings of the folder's configuration */
	if ((rc = sc_cmd_load_providers(&cfg, o.config)) != SC_EXIT_OK)
		goto done;
	if (sc_model_parse(&pm, model) < 0) {
		rc = sc_cmd_usage_error("ask", "%s", sc_error_last());
		goto done;
	}
	if (strcmp(pm.name, model))
		sc_cmd_line(stderr, "model: %s", pm.name);
	if (!strcmp(argv[1], "-")) {
		if (sc_buf_put_capped(&prompt, "", 0, 1) < 0) { /* keeps the buffer empty */ }
		for (;;) {
			char chunk[4096];
			size_t n = fread(chunk, 1, sizeof(chunk), stdin);
			if (n && sc_buf_put_capped(&prompt, chunk, n, SC_MAX_JSON_BYTES) < 0) {
				rc = sc_cmd_usage_error("ask", "the prompt on standard input is larger than %d bytes", SC_MAX_JSON_BYTES);
				goto done;
			}
			if (n < sizeof(chunk))
				break;
		}
	} else {
		sc_buf_sets(&prompt, argv[1]);
	}
	if (!cache_dir.len)
		sc_cache_default_dir(&cache_dir);
	copt.cache_dir = cache_dir.ptr;
	msg.role = SC_CHAT_USER;
	msg.content = prompt.ptr;
	req.model = model;
	req.messages = &msg;
	req.nmessages = 1;
	req.label = "ask";

	err = sc_client_new(&client, &copt);
	if (err < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	err = sc_client_submit(client, &req, on_answer, &result);
	if (err < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	err = sc_client_run(client);
	if (err < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	rc = result.exit_code;
done:
	sc_client_free(client);
	sc_buf_release(&prompt);
	sc_buf_release(&cache_dir);
	sc_model_release(&pm);
	sc_config_release(&cfg);
	return rc;
}
