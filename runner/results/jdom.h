#ifndef SC_JDOM_H
#define SC_JDOM_H
/*
 * The JSON tree the results reader reads (results_read.c): one value
 * parsed into an arena, its strings decoded and NUL-terminated, each
 * member name hashed for look-ups. A hundred-megabyte results file is
 * read without a malloc per node or per string.
 *
 * What is accepted, and what a value reads as, is cJSON's: a value the
 * parser here does not take in one pass (an odd escape, white space cJSON
 * alone skips, a number cJSON reads its own way, anything malformed) is
 * handed to cJSON and its tree copied in, or refused where cJSON refuses
 * it, with cJSON's error position.
 *
 * Ownership: every node and string belongs to its arena, valid until the
 * arena is reset or freed.
 */
#include <stddef.h>
#include <stdint.h>

enum sc_jdom_type {
	SC_JDOM_NULL,
	SC_JDOM_FALSE,
	SC_JDOM_TRUE,
	SC_JDOM_NUMBER,
	SC_JDOM_STRING,
	SC_JDOM_ARRAY,
	SC_JDOM_OBJECT,
};

struct sc_jdom_node {
	enum sc_jdom_type type;
	uint32_t key_hash;                /* of key, when key is set */
	const char *key;                  /* the member's name in an object, else NULL */
	const char *str;                  /* a string's value */
	double num;                       /* a number's value */
	struct sc_jdom_node *child, *last, *next;  /* an array's or object's members */
	size_t n;                         /* how many members */
};

struct sc_jdom_arena;

struct sc_jdom_arena *sc_jdom_arena_new(void);
/* Forgets every node of a (they are invalid after), keeping its memory. */
void sc_jdom_arena_reset(struct sc_jdom_arena *a);
void sc_jdom_arena_free(struct sc_jdom_arena *a);

/*
 * One JSON value at text (len bytes, not necessarily NUL-terminated; white
 * space and a byte-order mark before it skipped, as cJSON does), parsed
 * into a. Returns its node, *after set just past it; NULL when the text is
 * not JSON there, *error_at set to where cJSON says it fails.
 */
struct sc_jdom_node *sc_jdom_parse(struct sc_jdom_arena *a, const char *text, size_t len,
				   const char **after, const char **error_at);
/* An empty object in a, and key: v added at its end (key copied into a). */
struct sc_jdom_node *sc_jdom_object_new(struct sc_jdom_arena *a);
void sc_jdom_object_add(struct sc_jdom_arena *a, struct sc_jdom_node *obj, const char *key,
			struct sc_jdom_node *v);
/* The first member of obj named key; NULL when none or obj is not an object. */
const struct sc_jdom_node *sc_jdom_get(const struct sc_jdom_node *obj, const char *key);

#endif
