/*
 * Checking a results document's signature (results.h,
 * sc_results_verify_text): the member results_write.c appends, byte for
 * byte, under this runner's key or a trusted one.
 */
#include "common.h"
#include "results/results.h"
#include "results/results_sort.h"
#include "results/signing.h"
#include "sha256.h"

int sc_results_verify_text(const char *text, size_t len, const char *what)
{
	size_t head = strlen(SC_RESULTS_SIGN_HEAD), mid = strlen(SC_RESULTS_SIGN_MID), tail = strlen(SC_RESULTS_SIGN_TAIL);
	size_t need = head + SC_SIGN_FPR_LEN + mid + SC_SHA256_HEX_LEN + tail;
	const char *sig, *hit = NULL;
	char fpr[SC_SIGN_FPR_LEN + 1], mac[SC_SHA256_HEX_LEN + 1];

	/* the member is the writer's, byte for byte, at the very end */
	if (len >= need)
		hit = text + len - need;
	if (!hit || memcmp(hit, SC_RESULTS_SIGN_HEAD, head) ||
	    memcmp(hit + head + SC_SIGN_FPR_LEN, SC_RESULTS_SIGN_MID, mid) ||
	    memcmp(text + len - tail, SC_RESULTS_SIGN_TAIL, tail))
		return sc_sign_check(what, SC_RESULTS_SIGN_DOMAIN, "", 0, NULL, NULL);
	sig = hit + head;
	memcpy(fpr, sig, SC_SIGN_FPR_LEN);
	fpr[SC_SIGN_FPR_LEN] = 0;
	memcpy(mac, sig + SC_SIGN_FPR_LEN + mid, SC_SHA256_HEX_LEN);
	mac[SC_SHA256_HEX_LEN] = 0;
	{
		/* the text before the member, then "\n}\n": hashed where it lies */
		struct sc_hmac_part doc[] = { { text, (size_t)(hit - text) }, { "\n}\n", 3 } };
		return sc_sign_check_parts(what, SC_RESULTS_SIGN_DOMAIN, doc, 2, fpr, mac);
	}
}

int sc_results_verify_file(const char *path)
{
	struct sc_buf text = SC_BUF_INIT, what = SC_BUF_INIT;
	int err;

	if ((err = sc_read_file(&text, path, SC_MAX_RESULTS_BYTES)) < 0)
		goto done;
	sc_buf_printf(&what, "'%s'", path);
	err = sc_results_verify_text(text.ptr, text.len, what.ptr);
done:
	sc_buf_release(&text);
	sc_buf_release(&what);
	return err;
}

