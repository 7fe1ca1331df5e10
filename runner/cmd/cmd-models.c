/*
 * skillci help models [--fast-agent VERSION] [--config FILE] [--parse [NAME...]]:
 * the fast-agent version whose model names the folder's configuration
 * follows, the provider table, the fast-agent providers refused and why,
 * the named endpoints of the folder's configuration and the alias table,
 * with what each resolves to and whether its key variable is set (never
 * the key). --parse prints how each NAME (or each line of standard input)
 * is read, one JSON object a line: the provider, model id, settings and
 * canonical name, or the refusal (tests/parity compares it with
 * fast-agent's own reading).
 */
#include "common.h"
#include "cmd/cmd.h"
#include "pipeline/config.h"
#include "providers/provider.h"

#include <cjson/cJSON.h>

/* s as a JSON string, appended to out. */
static void quote(struct sc_buf *out, const char *s)
{
	cJSON *v = cJSON_CreateString(s);
	char *q = cJSON_PrintUnformatted(v);

	sc_buf_puts(out, q);
	cJSON_free(q);
	cJSON_Delete(v);
}

/* "VAR" or "A or B", and whether one of them is set. */
static void vars(struct sc_buf *out, const char *const v[3], bool *set)
{
	*set = false;
	for (int i = 0; i < 3 && v[i]; i++) {
		const char *x = getenv(v[i]);
		sc_buf_printf(out, "%s%s", i ? " or " : "", v[i]);
		*set |= x && *x;
	}
}

static void provider_line(const struct sc_provider_info *p, int kind)
{
	struct sc_buf base = SC_BUF_INIT, key = SC_BUF_INIT;
	const char *wire = p->wire == SC_WIRE_ANTHROPIC ? "anthropic" :
			   p->wire == SC_WIRE_OPENAI ? "openai" :
			   p->wire == SC_WIRE_RESPONSES ? "responses" : "-";
	bool set;

	if (p->wire == SC_WIRE_NONE) {
		printf("  %-11s %-9s %s\n", p->name, wire, p->title);
		return;
	}
	sc_buf_puts(&base, sc_provider_file_base(kind) ? sc_provider_file_base(kind) :
			   p->base_url ? p->base_url : "(none: set the variable)");
	if (p->base_env[0]) {
		sc_buf_puts(&base, " [");
		vars(&base, p->base_env, &set);
		sc_buf_puts(&base, set ? ": set]" : "]");
	}
	if (p->key_env[0]) {
		vars(&key, p->key_env, &set);
		if (!set && kind < SC_PROVIDER_BUILTINS && sc_provider_file_key(kind))
			sc_buf_puts(&key, " (from fastagent.config.yaml)");
		else
			sc_buf_puts(&key, set ? " (set)" : p->key_optional ? " (optional, not set)"
							      : " (not set)");
	} else {
		sc_buf_puts(&key, "no key");
	}
	printf("  %-11s %-9s %s\n  %-11s %-9s key: %s; %s%s\n", p->name, wire, base.ptr, "", "",
	       key.ptr, p->max_tokens_field,
	       p->effort == SC_EFFORT_THINKING ? ", effort as thinking budget" :
	       p->effort == SC_EFFORT_REASONING_EFFORT ? ", effort as reasoning_effort" :
	       p->effort == SC_EFFORT_REASONING_OBJECT ? ", effort as reasoning object" :
	       ", no reasoning setting");
	sc_buf_release(&base);
	sc_buf_release(&key);
}

/* Whether the grammar's version has the built-in provider kind (oracle: always). */
static bool in_grammar(int kind)
{
	struct sc_model m;
	struct sc_buf probe = SC_BUF_INIT;
	bool ok;

	if (kind == SC_PROVIDER_ORACLE)
		return true;
	sc_buf_printf(&probe, "%s.probe", sc_provider_name(kind));
	ok = sc_model_parse(&m, probe.ptr) == 0;
	if (ok)
		sc_model_release(&m);
	sc_error_clear();
	sc_buf_release(&probe);
	return ok;
}

/* One JSON line: how name is read, or why it is refused. */
static void parse_line(const char *name)
{
	struct sc_model m;
	struct sc_buf b = SC_BUF_INIT, in = SC_BUF_INIT;

	quote(&in, name);
	if (sc_model_parse(&m, name) == 0) {
		sc_model_json(&b, &m);
		/* {"in": NAME, "ok": true, ...the reading} */
		printf("{\"in\":%s,\"ok\":true,%s\n", in.ptr, b.ptr + 1);
		sc_model_release(&m);
	} else {
		quote(&b, sc_error_last());
		printf("{\"in\":%s,\"ok\":false,\"error\":%s}\n", in.ptr, b.ptr);
	}
	sc_buf_release(&b);
	sc_buf_release(&in);
}

static int parse_names(char **names, int n)
{
	char line[4096];

	for (int i = 0; i < n; i++)
		parse_line(names[i]);
	if (n)
		return SC_EXIT_OK;
	while (fgets(line, sizeof(line), stdin)) {
		size_t len = strlen(line);
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		parse_line(line);
	}
	return SC_EXIT_OK;
}

struct models_opts {
	const char *version, *config;
	bool parse;
};

static const struct sc_option models_table[] = {
	SC_OPT_STRING("fast-agent", 0, struct models_opts, version, "VERSION",
		      "read names as this fast-agent version does (0.4.53,\n"
		      "0.6.7, 0.10.48; default: fast_agent_version of the\n"
		      "configuration, else 0.6.7)"),
	SC_OPT_STRING("config", 0, struct models_opts, config, "FILE",
		      "the configuration (default: ./skillci.yml)"),
	SC_OPT_FLAG("parse", 0, struct models_opts, parse,
		    "print how each NAME (or each line of standard input)\n"
		    "is read, one JSON object a line"),
	SC_OPT_END,
};

static const struct sc_options models_spec = {
	"help models", "[NAME...]",
	"The model names of this folder's configuration: the fast-agent version they\n"
	"follow, the providers, the named endpoints and the aliases.",
	NULL, models_table, 0,
};

int sc_cmd_help_models(int argc, char **argv)
{
	struct models_opts o = { NULL, NULL, false };
	struct sc_config cfg;
	int rc, nargs;

	if ((rc = sc_cmd_options(&models_spec, &o, argc, argv, &nargs)))
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	if (!o.parse && nargs)
		return sc_cmd_usage_error("help models", "unexpected argument '%s' (names go after "
					  "--parse)", argv[1]);
	memset(&cfg, 0, sizeof(cfg));
	rc = sc_cmd_load_providers(&cfg, o.config);
	if (rc == SC_EXIT_OK && o.version && sc_models_set_grammar(o.version) < 0)
		rc = sc_cmd_fail(SC_EINVAL);
	if (rc != SC_EXIT_OK || o.parse) {
		if (rc == SC_EXIT_OK)
			rc = parse_names(argv + 1, nargs);
		sc_config_release(&cfg);
		return rc;
	}
	printf("Model names follow fast-agent %s", sc_models_grammar());
	printf("%s (fast_agent_version in skillci.yml chooses ",
	       strcmp(sc_models_grammar(), SC_MODELS_GRAMMAR_DEFAULT) ? "" : ", upskill's pin");
	for (size_t i = 0; i < sc_models_grammar_count(); i++)
		printf("%s%s", i ? ", " : "", sc_models_grammar_version(i));
	printf("):\nPROVIDER.MODEL[?reasoning=R&...], PROVIDER/MODEL, an alias or a bare model name,\n"
	       "ALIAS:ROUTE for another Hugging Face inference provider. R: an effort (auto,\n"
	       "none, minimal, low, medium, high, xhigh, max), on, off or a token budget.\n"
	       "Settings: verbosity, structured, context=1m, transport, service_tier, web_search,\n"
	       "web_fetch, temperature, top_p, top_k, min_p, presence_penalty, repetition_penalty,\n"
	       "max_tokens (as that version reads them). What each model takes is checked before\n"
	       "any request; docs/providers.md has the tables.\n\n");
	printf("Providers (name, wire format, base URL [its variable], key variable):\n");
	for (int i = 0; i < SC_PROVIDER_BUILTINS; i++)
		if (in_grammar(i))
			provider_line(sc_provider_get(i), i);
	printf("\nNamed endpoints (skillci.yml 'providers'):\n");
	if (sc_provider_count() == SC_PROVIDER_BUILTINS)
		printf("  none\n");
	for (int i = SC_PROVIDER_BUILTINS; i < sc_provider_count(); i++)
		provider_line(sc_provider_get(i), i);
	printf("\nAliases of fast-agent %s:\n", sc_models_grammar());
	for (size_t i = 0; i < sc_alias_count(); i++) {
		const char *name, *target;
		struct sc_model m;
		sc_alias_get(i, &name, &target);
		if (sc_model_parse(&m, name) == 0) {
			printf("  %-22s %s\n", name, m.name);
			sc_model_release(&m);
		} else {
			printf("  %-22s refused: %s\n", name, sc_error_last());
		}
	}
	sc_config_release(&cfg);
	return rc;
}
