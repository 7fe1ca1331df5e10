/*
 * The oracle provider: a self-test of the harness. It answers each request
 * with the reference answer the request carries (a test's reference
 * solution), at once, with zero tokens and no HTTP, and marks the response
 * as an oracle answer so every report can label it.
 */
#include "common.h"
#include "providers/provider.h"

void sc_oracle_answer(struct sc_chat_response *resp, const struct sc_chat_request *req)
{
	resp->oracle = true;
	resp->attempts = 0;
	resp->http_status = 0;
	resp->input_tokens = resp->output_tokens = 0;
	resp->cache_read_tokens = resp->cache_creation_tokens = 0;
	if (!req->oracle_answer) {
		resp->error_class = SC_CHAT_CONFIG;
		free(resp->error);
		{
			struct sc_buf msg = SC_BUF_INIT;
			sc_buf_puts(&msg, "oracle: no reference answer");
			if (req->label)
				sc_buf_printf(&msg, " for test '%s'", req->label);
			resp->error = sc_buf_detach(&msg, NULL);
		}
		return;
	}
	free(resp->text);
	resp->text = sc_xstrdup(req->oracle_answer);
}
