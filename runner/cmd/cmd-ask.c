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

#include <getopt.h>
#include <unistd.h>

static const char usage[] =
	"usage: skillci ask -m MODEL [options] PROMPT\n"
	"\n"
	"Sends one prompt (\"-\" reads it from standard input) to MODEL and prints\n"
	"the answer; token counts go to standard error.\n"
	"\n"
	"  -m, --model MODEL      PROVIDER.MODEL[.EFFORT][?reasoning=R&temperature=T], an\n"
	"                         alias (haiku, sonnet, gpt-4.1, kimi, ...) or an endpoint of\n"
	"                         skillci.yml's providers; 'skillci help models' lists them\n"
	"  -s, --system TEXT      system prompt\n"
	"      --max-tokens N     answer budget (default 4096)\n"
	"      --temperature T    sampling temperature (default: the provider's)\n"
	"      --run N            run index: a different cached sample per N (default 0)\n"
	"      --cache MODE       use, refresh, off or offline (default use)\n"
	"      --cache-dir DIR    response cache (default $SKILLCI_CACHE_DIR or\n"
	"                         ~/.cache/skillci/responses)\n"
	"      --offline          answer from the cache only; a miss is an error\n"
	"      --reference TEXT   the reference answer the oracle provider returns\n"
	"      --timeout SEC      per attempt (default 600)\n"
	"      --attempts N       tries per request (default 6)\n"
	"      --config FILE      configuration with named endpoints (default ./skillci.yml,\n"
	"                         ./upskill.config.yaml, ./fastagent.config.yaml when present)\n"
	"  -h, --help             this help\n"
	"\n"
	"Keys and base URLs come from each provider's variables (ANTHROPIC_API_KEY,\n"
	"OPENAI_API_KEY, HF_TOKEN, GENERIC_BASE_URL, ...; docs/providers.md).\n"
	"Exit codes: 0 answered, 2 bad usage, model name or missing key,\n"
	"3 provider failure.\n";

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
	enum { O_MAX = 256, O_TEMP, O_RUN, O_CACHE, O_CACHE_DIR, O_OFFLINE, O_REF, O_TIMEOUT, O_ATTEMPTS,
	       O_CONFIG };
	static const struct option opts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "system", required_argument, NULL, 's' },
		{ "max-tokens", required_argument, NULL, O_MAX },
		{ "temperature", required_argument, NULL, O_TEMP },
		{ "run", required_argument, NULL, O_RUN },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "cache-dir", required_argument, NULL, O_CACHE_DIR },
		{ "offline", no_argument, NULL, O_OFFLINE },
		{ "reference", required_argument, NULL, O_REF },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "attempts", required_argument, NULL, O_ATTEMPTS },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sc_client_options copt;
	struct sc_chat_request req;
	struct sc_chat_message msg;
	struct sc_client *client = NULL;
	struct sc_buf prompt = SC_BUF_INIT, cache_dir = SC_BUF_INIT;
	struct ask_result result = { SC_EXIT_INFRA };
	const char *model = NULL, *config_path = NULL;
	struct sc_config cfg;
	struct sc_model pm;
	int c, err, rc = SC_EXIT_OK, v;

	memset(&cfg, 0, sizeof(cfg));
	memset(&pm, 0, sizeof(pm));
	sc_client_options_init(&copt);
	copt.cache_mode = SC_CACHE_USE;
	memset(&req, 0, sizeof(req));
	req.temperature = -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': model = optarg; break;
		case 's': req.system = optarg; break;
		case O_MAX:
			if ((rc = sc_cmd_int_option(&req.max_tokens, "ask", "--max-tokens", optarg,
						    1, 1000000)))
				return rc;
			break;
		case O_TEMP: {
			char *end;
			req.temperature = strtod(optarg, &end);
			/* written so that NaN, which compares false with everything, fails */
			if (end == optarg || *end || !(req.temperature >= 0 && req.temperature <= 2))
				return sc_cmd_usage_error("ask", "--temperature wants a number from 0 to 2, not '%s'", optarg);
			break;
		}
		case O_RUN:
			if ((rc = sc_cmd_int_option(&req.run_index, "ask", "--run", optarg,
						    0, 1000000)))
				return rc;
			break;
		case O_CACHE:
			if (sc_cache_mode_parse(&copt.cache_mode, optarg) < 0)
				return sc_cmd_usage_error("ask", "%s", sc_error_last());
			break;
		case O_CACHE_DIR: sc_buf_sets(&cache_dir, optarg); break;
		case O_OFFLINE: copt.cache_mode = SC_CACHE_OFFLINE; break;
		case O_REF: req.oracle_answer = optarg; break;
		case O_TIMEOUT:
			if ((rc = sc_cmd_int_option(&v, "ask", "--timeout", optarg, 1, 86400)))
				return rc;
			copt.timeout_ms = (long)v * 1000;
			break;
		case O_ATTEMPTS:
			if ((rc = sc_cmd_int_option(&copt.max_attempts, "ask", "--attempts", optarg,
						    1, 100)))
				return rc;
			break;
		case O_CONFIG: config_path = optarg; break;
		case 'h':
			fputs(usage, stdout);
			return SC_EXIT_OK;
		default:
			return sc_cmd_option_error("ask", c, argv, opts);
		}
	}
	if (!model)
		return sc_cmd_usage_error("ask", "no model; give one with -m MODEL");
	if (optind != argc - 1)
		return sc_cmd_usage_error("ask", "give exactly one PROMPT (\"-\" for standard input)");
	/* named endpoints and fast-agent's provider settings of the folder's configuration */
	if ((rc = sc_cmd_load_providers(&cfg, config_path)) != SC_EXIT_OK)
		goto done;
	if (sc_model_parse(&pm, model) < 0) {
		rc = sc_cmd_usage_error("ask", "%s", sc_error_last());
		goto done;
	}
	if (strcmp(pm.name, model))
		sc_cmd_line(stderr, "model: %s", pm.name);
	if (!strcmp(argv[optind], "-")) {
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
		sc_buf_sets(&prompt, argv[optind]);
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
