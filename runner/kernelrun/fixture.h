#ifndef SC_FIXTURE_H
#define SC_FIXTURE_H
/*
 * Kernel fixtures on disk: listing fixtures/NAME/ folders, their content
 * hash (SHA-256 over every file, in sorted order, with names), and
 * fixtures/fixtures.lock, which pins one hash per fixture. Lock format, one
 * line per fixture after '#' comments: "<sha256-hex>  <name>".
 */
#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"

struct sc_buf;

#define SC_FIXTURES_LOCK "fixtures.lock"

enum sc_fixture_pin { SC_PIN_OK, SC_PIN_CHANGED, SC_PIN_UNPINNED };

struct sc_fixture {
	char *name;
	char *dir;                          /* fixtures_dir/name */
	char hash[SC_SHA256_HEX_LEN + 1];
	char pinned[SC_SHA256_HEX_LEN + 1]; /* "" when not in the lock */
	enum sc_fixture_pin pin;
};

struct sc_fixture_list {
	struct sc_fixture *items;
	size_t n, alloc;
};

/*
 * Lists the fixture folders of dir (those holding spec.json), sorted by
 * name, each with its hash and its pin state against dir/fixtures.lock (a
 * missing lock pins nothing). Names must be lowercase letters, digits and
 * hyphens; symlinks are refused.
 */
int sc_fixture_list(struct sc_fixture_list *out, const char *dir);
void sc_fixture_list_release(struct sc_fixture_list *list);
/* The fixture called name, or NULL. */
const struct sc_fixture *sc_fixture_find(const struct sc_fixture_list *list, const char *name);

/* Sets out to the kernel's entry point named by the fixture's spec.json
 * ("entry"); SC_EPARSE when the spec names none. */
int sc_fixture_entry(struct sc_buf *out, const struct sc_fixture *fx);

/* SHA-256 over the regular files of dir, recursively, sorted by relative
 * path: for each, the path, a NUL, the size in decimal, a NUL, the bytes. */
int sc_fixture_hash(char out[SC_SHA256_HEX_LEN + 1], const char *dir);

/* Writes dir/fixtures.lock for every fixture in list (atomically). */
int sc_fixture_lock_write(const char *dir, const struct sc_fixture_list *list);

/* 0 when f is pinned and unchanged; otherwise SC_EUNSAFE with a message
 * saying what to do, unless allow_unpinned. */
int sc_fixture_require_pinned(const struct sc_fixture *f, bool allow_unpinned);

#endif
