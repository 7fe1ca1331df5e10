/*
 * Anthropic Messages API response bodies through the wire parser the
 * scheduler uses (sc_wire_anthropic): a 2xx body into text and token
 * counts, and an error body into the provider's message.
 */
#include "fuzz.h"
#include "providers/provider.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sc_chat_response resp;
	struct sc_buf msg = SC_BUF_INIT;

	memset(&resp, 0, sizeof(resp));
	if (sc_wire_anthropic.parse_ok(&resp, (const char *)data, size) == 0) {
		if (!resp.text)
			sc_die("fuzz: parse_ok succeeded without text");
		if (resp.input_tokens < 0 || resp.output_tokens < 0 || resp.cache_read_tokens < 0 ||
		    resp.cache_creation_tokens < 0)
			sc_die("fuzz: negative token count");
	}
	sc_provider_parse_error(&msg, (const char *)data, size);
	free(resp.text);
	free(resp.error);
	free(resp.usage_raw);
	free(resp.stop_reason);
	free(resp.tool_calls);
	sc_buf_release(&msg);
	return 0;
}
