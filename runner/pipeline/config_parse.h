#ifndef SC_CONFIG_PARSE_H
#define SC_CONFIG_PARSE_H
/*
 * Private to runner/pipeline/config*.c: the reading of one configuration
 * file shared by its parts. config_values.c has the findings, the typed
 * values and the walk of a map; config_keys.c skillci.yml's handlers and
 * tables; config_upskill.c upskill.config.yaml's and fastagent.config.yaml's;
 * config.c loads the files in order with them. Callers outside the module
 * use pipeline/config.h.
 *
 * Every value reader takes the node v at dotted key `key`, checks its type
 * (and range), reports a finding at v's line when it is wrong and then
 * returns false with *out unchanged, else sets *out (freeing an old string)
 * and returns true.
 */
#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "format/yaml.h"
#include "pipeline/config.h"

/* One file being read into cfg, its findings going to diags. */
struct sc_config_ctx {
	struct sc_config *cfg;
	struct sc_diags *diags;
	const char *file;
	const struct sc_yaml_node *root;  /* the file's top level */
	/* upskill.config.yaml: where "eval_model" and "model" were seen */
	char *up_eval_model;
	char *up_model;
	bool data_only;  /* a pull request's copy: nothing expanded (sc_config_load_data) */
	bool runs_set, max_runs_set;  /* `runs` and `gate.max_runs` were written */
};

typedef void (*sc_config_handler_fn)(struct sc_config_ctx *c, const struct sc_yaml_node *v,
				     const char *key);

struct sc_config_key {
	const char *name;
	sc_config_handler_fn fn;     /* NULL: known, read by nobody (accepted quietly) */
};

/* The top-level keys of skillci.yml (config_keys.c) and of
 * upskill.config.yaml (config_upskill.c). */
extern const struct sc_config_key sc_config_skillci_keys[];
extern const size_t sc_config_nskillci_keys;
extern const struct sc_config_key sc_config_upskill_keys[];
extern const size_t sc_config_nupskill_keys;

/* A finding at the node's line (0 without a node) in the file being read. */
void sc_config_report(struct sc_config_ctx *c, enum sc_severity sev, const struct sc_yaml_node *at,
		      const char *code, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The finding "'key' must be WANT, found TYPE". */
void sc_config_type_error(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			  const char *want);

/* A non-empty string. */
bool sc_config_get_str(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
		       char **out);
/* An integer in [min, max]. */
bool sc_config_get_int(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
		       long min, long max, int *out);
/* A number in [min, max] (max < 0: no upper bound); strict_min excludes min. */
bool sc_config_get_num(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
		       double min, bool strict_min, double max, double *out);
bool sc_config_get_bool(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			bool *out);
/* A list of at most max strings; a single string stands for a list of one. */
bool sc_config_get_strlist(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			   size_t max, struct sc_strlist *out);
/* A relative path inside the repository (manifest entries). */
bool sc_config_get_rel_path(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			    char **out);
/* A path skillci writes to: relative, without "..". */
bool sc_config_get_out_path(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			    char **out);

/* Each pair of map (at dotted key prefix, "" for the top level) to its
 * handler in keys; unknown keys warn, duplicate keys are errors. */
void sc_config_walk_map(struct sc_config_ctx *c, const struct sc_yaml_node *map, const char *prefix,
			const struct sc_config_key *keys, size_t nkeys);
/* For a key of upskill.config.yaml written at skillci.yml's top level
 * (keys is sc_config_skillci_keys, prefix ""): the hint, else NULL. */
const char *sc_config_upskill_hint(const char *prefix, const struct sc_config_key *keys,
				   const char *name);

/* The handlers upskill.config.yaml shares with skillci.yml: runs,
 * concurrency.total and skills_dir. */
void sc_config_key_runs(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key);
void sc_config_key_total(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key);
void sc_config_key_skills_dir(struct sc_config_ctx *c, const struct sc_yaml_node *v,
			      const char *key);
/* The four report paths under dir (reports.dir and the defaults). */
void sc_config_set_report_paths(struct sc_config *cfg, const char *dir);
/* The provider blocks of a fastagent.config.yaml into cfg->provider_files. */
void sc_config_fastagent_walk(struct sc_config_ctx *c, const struct sc_yaml_node *root);

#endif
