#ifndef SC_CACHE_H
#define SC_CACHE_H
/*
 * Response cache on disk. An entry is keyed by the SHA-256 of the
 * canonical request JSON: provider, model id, effort (and a thinking
 * budget or top_p when the model name sets them), system prompt,
 * messages, max_tokens, temperature and run index (never a key; a base
 * URL only where model names are local to a server), so `--runs 3` keeps three samples and a rerun is free. Entries are
 * files DIR/xx/KEY.json written atomically (temp file + rename), so two
 * processes may share a folder: a reader sees a whole entry or none.
 * Errors and empty answers are never stored; an answer that calls tools
 * keeps its calls (covered by the MAC), and the key covers the tools
 * offered and every call and result sent.
 *
 * Integrity: every entry carries "mac", an HMAC-SHA-256 under the runner
 * key (secret.h) over its key, answer and token counts. An entry without
 * one, or whose text, counts or key were changed after it was written (a
 * pull request that commits a cache folder, another runner's entry) is a
 * miss, never an answer.
 */
#include "buf.h"
#include "providers/provider.h"
#include "sha256.h"

/* Hex SHA-256 of the canonical JSON. */
void sc_cache_key(char out[SC_SHA256_HEX_LEN + 1], const struct sc_model *model,
		  const struct sc_chat_request *req, const char *server);
/* Sets out to DIR/xx/KEY.json. */
void sc_cache_path(struct sc_buf *out, const char *dir, const char *key);
/*
 * Loads an entry into resp (text and token counts, from_cache set).
 * Returns 0 on a hit, SC_ENOTFOUND on a miss; an unreadable or corrupt
 * entry, or one that fails its integrity check, counts as a miss.
 */
int sc_cache_get(const char *dir, const char *key, struct sc_chat_response *resp);
/* Stores a successful, non-empty answer; anything else is skipped (0). */
int sc_cache_put(const char *dir, const char *key, const struct sc_model *model,
		 const struct sc_chat_response *resp);
/* $SKILLCI_CACHE_DIR, else $XDG_CACHE_HOME/skillci/responses, else
 * $HOME/.cache/skillci/responses, else .skillci-cache. */
void sc_cache_default_dir(struct sc_buf *out);
/* Parses "use", "refresh", "off", "offline"; SC_EINVAL otherwise. */
int sc_cache_mode_parse(enum sc_cache_mode *out, const char *s);

#endif
