#ifndef SC_YAML_H
#define SC_YAML_H
/*
 * The libyaml wrapper: parses one YAML document into a tree of nodes, each
 * with its 1-based line and column in the original file. Anchors and aliases
 * are refused (they let a small file expand without bound); depth and node
 * count are bounded (limits.h). Nothing else in skillci includes <yaml.h>.
 */
#include <stddef.h>

enum sc_yaml_kind { SC_YAML_SCALAR, SC_YAML_MAP, SC_YAML_SEQ };
enum sc_yaml_style {
	SC_YAML_PLAIN, SC_YAML_SINGLE_QUOTED, SC_YAML_DOUBLE_QUOTED,
	SC_YAML_LITERAL, SC_YAML_FOLDED, SC_YAML_FLOW_OR_BLOCK,
};

struct sc_yaml_node {
	enum sc_yaml_kind kind;
	enum sc_yaml_style style;
	char *value;          /* scalar text (NUL-terminated), NULL otherwise */
	size_t value_len;
	char *tag;            /* explicit tag such as "!!str", or NULL */
	size_t line, col;     /* 1-based position of the node's start */
	/* MAP: children[2i] is a key, children[2i+1] its value. SEQ: items. */
	struct sc_yaml_node **children;
	size_t nchildren;
	size_t alloc;
};

/*
 * Parses data (len bytes). file names the source in error messages and
 * line_offset is added to every line (front matter starts below the "---").
 * On success *out is the document's root (an empty document gives a plain
 * empty scalar); the caller frees it with sc_yaml_free(). Errors are
 * SC_EPARSE with "file:line:col: problem" or SC_ELIMIT.
 */
int sc_yaml_parse(struct sc_yaml_node **out, const char *data, size_t len,
		  const char *file, size_t line_offset);
void sc_yaml_free(struct sc_yaml_node *node);

/* Number of key/value pairs (MAP) or items (SEQ). */
size_t sc_yaml_count(const struct sc_yaml_node *node);
/* MAP helpers; NULL when absent or node is not a map. Borrowed. */
struct sc_yaml_node *sc_yaml_map_get(const struct sc_yaml_node *map, const char *key);
struct sc_yaml_node *sc_yaml_map_key(const struct sc_yaml_node *map, size_t i);
struct sc_yaml_node *sc_yaml_map_value(const struct sc_yaml_node *map, size_t i);
struct sc_yaml_node *sc_yaml_seq_item(const struct sc_yaml_node *seq, size_t i);
/* True for a plain "", "~", "null", "Null", "NULL" scalar with no tag. */
int sc_yaml_is_null(const struct sc_yaml_node *node);
/* Plain scalar that YAML 1.1 core would read as a bool/number: used to tell
 * "name: 123" (a number) from "name: '123'" (a string). */
int sc_yaml_is_bool(const struct sc_yaml_node *node, int *value);
int sc_yaml_is_number(const struct sc_yaml_node *node);
/* A short word for the node's type ("string", "number", "map", ...). */
const char *sc_yaml_type_name(const struct sc_yaml_node *node);

#endif
