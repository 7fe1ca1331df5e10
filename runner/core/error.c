#include "common.h"

#include <stdarg.h>

static _Thread_local char last_msg[4096];
static _Thread_local int last_code;
static _Thread_local enum sc_cause last_cause;

static void vset(const char *fmt, va_list ap)
{
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
}

int sc_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	last_code = code;
	last_cause = SC_CAUSE_NONE;
	return code;
}

int sc_error_cause_set(int code, enum sc_cause cause)
{
	last_cause = cause;
	return code;
}

enum sc_cause sc_error_cause(void)
{
	return last_cause;
}

static const char *const cause_names[] = { "none", "no_key", "config", "revision", "not_mergeable",
					     "no_endpoint" };

const char *sc_cause_name(enum sc_cause c)
{
	return (size_t)c < sizeof(cause_names) / sizeof(cause_names[0]) ? cause_names[c] : NULL;
}

int sc_cause_parse(const char *name, enum sc_cause *out)
{
	for (size_t i = 0; name && i < sizeof(cause_names) / sizeof(cause_names[0]); i++)
		if (!strcmp(cause_names[i], name)) {
			*out = (enum sc_cause)i;
			return 0;
		}
	return -1;
}

const char *sc_cause_hint(enum sc_cause cause, bool shallow)
{
	switch (cause) {
	case SC_CAUSE_NO_KEY:
		return "no model API key reached this run. A pull request from a fork gets no "
		       "secrets: check it with the safe workflow for forks in docs/ci.md (a "
		       "workflow_run job on the base repository), or set the key as a secret";
	case SC_CAUSE_NO_ENDPOINT:
		return "a model's provider has no endpoint in this run: set the variable the error "
		       "names (for Azure OpenAI, AZURE_OPENAI_ENDPOINT: "
		       "https://RESOURCE.openai.azure.com) in the job's env, or base_url or "
		       "resource_name in the provider's block of fastagent.config.yaml "
		       "(docs/providers.md)";
	case SC_CAUSE_NOT_MERGEABLE:
		return "the pull request does not merge cleanly into its target branch, so what would "
		       "land cannot be judged: rebase it onto the target (or merge the target into "
		       "it) and resolve the conflicts, then push";
	case SC_CAUSE_CONFIG:
		return "fix the configuration's finding quoted here: the policy is the target "
		       "branch's skillci.yml (or --config)";
	case SC_CAUSE_REVISION:
		if (shallow)
			break;
		return "a revision is not in the clone: fetch the base branch (actions/checkout's "
		       "`fetch-depth: 0`) or give --base and --head";
	case SC_CAUSE_NONE:
		break;
	}
	if (shallow)
		return "the checkout is shallow, so the base revision or the merge base is missing: "
		       "check out with actions/checkout's `fetch-depth: 0`";
	return "see the error above; the check did not reach a verdict";
}

int sc_error_wrap(int code, const char *fmt, ...)
{
	char old[sizeof(last_msg)];
	size_t n;
	va_list ap;

	memcpy(old, last_msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	n = strlen(last_msg);
	if (old[0] && n + 2 < sizeof(last_msg)) {
		memcpy(last_msg + n, ": ", 2);
		memcpy(last_msg + n + 2, old, strnlen(old, sizeof(last_msg) - n - 3));
		last_msg[n + 2 + strnlen(old, sizeof(last_msg) - n - 3)] = '\0';
	}
	last_code = code;
	return code;
}

const char *sc_error_last(void)
{
	return last_msg;
}

int sc_error_code(void)
{
	return last_code;
}

void sc_error_clear(void)
{
	last_msg[0] = '\0';
	last_code = 0;
	last_cause = SC_CAUSE_NONE;
}

const char *sc_error_name(int code)
{
	switch (code) {
	case SC_OK: return "ok";
	case SC_EINVAL: return "invalid input";
	case SC_ENOTFOUND: return "not found";
	case SC_EIO: return "i/o error";
	case SC_ELIMIT: return "limit exceeded";
	case SC_EPARSE: return "parse error";
	case SC_ENET: return "network error";
	case SC_EAUTH: return "authentication failed";
	case SC_EUNSAFE: return "refused as unsafe";
	case SC_ENOSYS: return "not available in this build";
	case SC_EINTR: return "interrupted";
	case SC_EGPU: return "gpu error";
	case SC_EEXISTS: return "already exists";
	default: return "error";
	}
}

int sc_error_exit_code(int code)
{
	switch (code) {
	case SC_ENET:
	case SC_EGPU:
	case SC_EIO:
	case SC_EINTR:
		return SC_EXIT_INFRA;
	default:
		return SC_EXIT_USAGE;
	}
}
