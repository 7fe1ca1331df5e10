#include "common.h"
#include "format/yaml.h"

#include <yaml.h>

struct builder {
	struct sc_yaml_node *stack[SC_MAX_YAML_DEPTH + 1];
	size_t depth;
	size_t nodes;
	struct sc_yaml_node *root;
};

static struct sc_yaml_node *node_new(enum sc_yaml_kind kind, const yaml_mark_t *mark,
				     size_t line_offset)
{
	struct sc_yaml_node *n = sc_xcalloc(1, sizeof(*n));
	n->kind = kind;
	n->line = mark->line + 1 + line_offset;
	n->col = mark->column + 1;
	return n;
}

static void add_child(struct sc_yaml_node *parent, struct sc_yaml_node *child)
{
	SC_GROW(parent->children, parent->alloc, parent->nchildren + 1);
	parent->children[parent->nchildren++] = child;
}

/* Attaches n to the open collection (or makes it the root); pushes it when
 * it is a collection. */
static int attach(struct builder *b, struct sc_yaml_node *n, const char *file)
{
	if (++b->nodes > SC_MAX_YAML_NODES) {
		int line = (int)n->line;
		sc_yaml_free(n);
		return sc_error_set(SC_ELIMIT, "%s:%d: more than %d YAML nodes", file, line,
				    SC_MAX_YAML_NODES);
	}
	if (b->depth)
		add_child(b->stack[b->depth - 1], n);
	else if (!b->root)
		b->root = n;
	else
		sc_yaml_free(n);
	if (n->kind != SC_YAML_SCALAR) {
		if (b->depth >= SC_MAX_YAML_DEPTH)
			return sc_error_set(SC_ELIMIT, "%s:%zu: YAML nested deeper than %d levels",
					    file, n->line, SC_MAX_YAML_DEPTH);
		b->stack[b->depth++] = n;
	}
	return 0;
}

static enum sc_yaml_style style_of(yaml_scalar_style_t s)
{
	switch (s) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE: return SC_YAML_SINGLE_QUOTED;
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return SC_YAML_DOUBLE_QUOTED;
	case YAML_LITERAL_SCALAR_STYLE: return SC_YAML_LITERAL;
	case YAML_FOLDED_SCALAR_STYLE: return SC_YAML_FOLDED;
	default: return SC_YAML_PLAIN;
	}
}

int sc_yaml_parse(struct sc_yaml_node **out, const char *data, size_t len,
		  const char *file, size_t line_offset)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct builder b;
	int err = 0, done = 0, docs = 0;

	*out = NULL;
	memset(&b, 0, sizeof(b));
	if (!yaml_parser_initialize(&parser))
		sc_die("cannot initialise the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);

	while (!done) {
		struct sc_yaml_node *n = NULL;

		if (!yaml_parser_parse(&parser, &ev)) {
			err = sc_error_set(SC_EPARSE, "%s:%zu:%zu: invalid YAML: %s%s%s", file,
					   parser.problem_mark.line + 1 + line_offset,
					   parser.problem_mark.column + 1,
					   parser.problem ? parser.problem : "syntax error",
					   parser.context ? " " : "",
					   parser.context ? parser.context : "");
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				err = sc_error_set(SC_EPARSE, "%s:%zu: more than one YAML document (a second '---')",
						   file, ev.start_mark.line + 1 + line_offset);
			break;
		case YAML_ALIAS_EVENT:
			err = sc_error_set(SC_EPARSE, "%s:%zu:%zu: YAML aliases ('*%s') are not supported",
					   file, ev.start_mark.line + 1 + line_offset,
					   ev.start_mark.column + 1, (const char *)ev.data.alias.anchor);
			break;
		case YAML_SCALAR_EVENT:
			if (ev.data.scalar.anchor) {
				err = sc_error_set(SC_EPARSE, "%s:%zu:%zu: YAML anchors ('&%s') are not supported",
						   file, ev.start_mark.line + 1 + line_offset,
						   ev.start_mark.column + 1, (const char *)ev.data.scalar.anchor);
				break;
			}
			n = node_new(SC_YAML_SCALAR, &ev.start_mark, line_offset);
			n->value = sc_xstrndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
			n->value_len = ev.data.scalar.length;
			if (strlen(n->value) != n->value_len) {
				sc_yaml_free(n);
				err = sc_error_set(SC_EPARSE, "%s:%zu:%zu: NUL character in a YAML value",
						   file, ev.start_mark.line + 1 + line_offset,
						   ev.start_mark.column + 1);
				break;
			}
			n->style = style_of(ev.data.scalar.style);
			if (ev.data.scalar.tag)
				n->tag = sc_xstrdup((const char *)ev.data.scalar.tag);
			err = attach(&b, n, file);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: {
			const yaml_char_t *anchor = ev.type == YAML_SEQUENCE_START_EVENT
				? ev.data.sequence_start.anchor : ev.data.mapping_start.anchor;
			if (anchor) {
				err = sc_error_set(SC_EPARSE, "%s:%zu:%zu: YAML anchors ('&%s') are not supported",
						   file, ev.start_mark.line + 1 + line_offset,
						   ev.start_mark.column + 1, (const char *)anchor);
				break;
			}
			n = node_new(ev.type == YAML_SEQUENCE_START_EVENT ? SC_YAML_SEQ : SC_YAML_MAP,
				     &ev.start_mark, line_offset);
			n->style = SC_YAML_FLOW_OR_BLOCK;
			err = attach(&b, n, file);
			break;
		}
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (b.depth)
				b.depth--;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (err < 0)
			break;
	}
	yaml_parser_delete(&parser);
	if (err < 0) {
		sc_yaml_free(b.root);
		return err;
	}
	if (!b.root) {
		yaml_mark_t m = { 0, 0, 0 };
		b.root = node_new(SC_YAML_SCALAR, &m, line_offset);
		b.root->value = sc_xstrdup("");
	}
	*out = b.root;
	return 0;
}

void sc_yaml_free(struct sc_yaml_node *node)
{
	if (!node)
		return;
	for (size_t i = 0; i < node->nchildren; i++)
		sc_yaml_free(node->children[i]);
	free(node->children);
	free(node->value);
	free(node->tag);
	free(node);
}

size_t sc_yaml_count(const struct sc_yaml_node *node)
{
	if (!node)
		return 0;
	if (node->kind == SC_YAML_MAP)
		return node->nchildren / 2;
	if (node->kind == SC_YAML_SEQ)
		return node->nchildren;
	return 0;
}

struct sc_yaml_node *sc_yaml_map_key(const struct sc_yaml_node *map, size_t i)
{
	if (!map || map->kind != SC_YAML_MAP || 2 * i + 1 >= map->nchildren)
		return NULL;
	return map->children[2 * i];
}

struct sc_yaml_node *sc_yaml_map_value(const struct sc_yaml_node *map, size_t i)
{
	if (!map || map->kind != SC_YAML_MAP || 2 * i + 1 >= map->nchildren)
		return NULL;
	return map->children[2 * i + 1];
}

struct sc_yaml_node *sc_yaml_map_get(const struct sc_yaml_node *map, const char *key)
{
	size_t n = sc_yaml_count(map);
	for (size_t i = 0; i < n; i++) {
		struct sc_yaml_node *k = map->children[2 * i];
		if (k->kind == SC_YAML_SCALAR && !strcmp(k->value, key))
			return map->children[2 * i + 1];
	}
	return NULL;
}

struct sc_yaml_node *sc_yaml_seq_item(const struct sc_yaml_node *seq, size_t i)
{
	if (!seq || seq->kind != SC_YAML_SEQ || i >= seq->nchildren)
		return NULL;
	return seq->children[i];
}

int sc_yaml_is_null(const struct sc_yaml_node *node)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	if (!node || node->kind != SC_YAML_SCALAR || node->style != SC_YAML_PLAIN || node->tag)
		return 0;
	for (size_t i = 0; i < SC_ARRAY_SIZE(nulls); i++)
		if (!strcmp(node->value, nulls[i]))
			return 1;
	return 0;
}

int sc_yaml_is_bool(const struct sc_yaml_node *node, int *value)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF" };
	if (!node || node->kind != SC_YAML_SCALAR || node->style != SC_YAML_PLAIN || node->tag)
		return 0;
	for (size_t i = 0; i < SC_ARRAY_SIZE(yes); i++) {
		if (!strcmp(node->value, yes[i])) {
			if (value)
				*value = 1;
			return 1;
		}
		if (!strcmp(node->value, no[i])) {
			if (value)
				*value = 0;
			return 1;
		}
	}
	return 0;
}

int sc_yaml_is_number(const struct sc_yaml_node *node)
{
	char *end;
	if (!node || node->kind != SC_YAML_SCALAR || node->style != SC_YAML_PLAIN || node->tag ||
	    !node->value[0])
		return 0;
	errno = 0;
	(void)strtod(node->value, &end);
	return *end == '\0';
}

const char *sc_yaml_type_name(const struct sc_yaml_node *node)
{
	if (!node)
		return "nothing";
	if (node->kind == SC_YAML_MAP)
		return "map";
	if (node->kind == SC_YAML_SEQ)
		return "list";
	if (sc_yaml_is_null(node))
		return "null";
	if (sc_yaml_is_bool(node, NULL))
		return "boolean";
	if (sc_yaml_is_number(node))
		return "number";
	return "string";
}
