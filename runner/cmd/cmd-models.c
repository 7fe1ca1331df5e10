/*
 * skillci help models: the provider table, the named endpoints of the
 * folder's configuration and the alias table, with what each resolves to
 * and whether its key variable is set (never the key).
 */
#include "common.h"
#include "cmd/cmd.h"
#include "pipeline/config.h"
#include "providers/provider.h"

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
			   p->wire == SC_WIRE_OPENAI ? "openai" : "-";
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

int sc_cmd_help_models(void)
{
	struct sc_config cfg;
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	rc = sc_cmd_load_providers(&cfg, NULL);
	printf("Model names (fast-agent 0.4.53): PROVIDER.MODEL[.EFFORT][?reasoning=R&verbosity=V&\n"
	       "structured=S&temperature=T&top_p=P&max_tokens=N], PROVIDER/MODEL, or an alias or bare\n"
	       "model name (ALIAS, ALIAS.EFFORT, ALIAS:ROUTE for a Hugging Face route). EFFORT: none,\n"
	       "minimal, low, medium, high, xhigh, max, auto. R: an effort, on, off or a thinking\n"
	       "budget in tokens (Anthropic, OpenRouter). What each model takes is checked before any\n"
	       "request; docs/providers.md has the table.\n\n");
	printf("Providers (name, wire format, base URL [its variable], key variable):\n");
	for (int i = 0; i < SC_PROVIDER_BUILTINS; i++)
		provider_line(sc_provider_get(i), i);
	printf("\nNamed endpoints (skillci.yml 'providers'):\n");
	if (sc_provider_count() == SC_PROVIDER_BUILTINS)
		printf("  none\n");
	for (int i = SC_PROVIDER_BUILTINS; i < sc_provider_count(); i++)
		provider_line(sc_provider_get(i), i);
	printf("\nAliases:\n");
	for (size_t i = 0; i < sc_alias_count(); i++) {
		const char *name, *target;
		struct sc_model m;
		sc_alias_get(i, &name, &target);
		if (sc_model_parse(&m, name) == 0) {
			printf("  %-22s %s\n", name, m.name);
			sc_model_release(&m);
		}
	}
	sc_config_release(&cfg);
	return rc;
}
