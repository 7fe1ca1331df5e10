#ifndef SC_DIAG_H
#define SC_DIAG_H
/*
 * Findings about user files (SKILL.md, test files, skillci.yml): a list of
 * errors and warnings, each with file, line and a stable code such as
 * "name-invalid", printed as "file:line: error: message". Parsers add to a
 * list and keep going, so one run reports every problem it can.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;

enum sc_severity { SC_SEV_ERROR, SC_SEV_WARNING };

struct sc_diag {
	enum sc_severity sev;
	char *file;     /* owned; as given by the caller (relative or absolute) */
	size_t line;    /* 1-based; 0 when the finding is about the whole file */
	char *code;     /* owned; stable identifier for machines and tests */
	char *message;  /* owned; lowercase, no trailing period */
};

struct sc_diags {
	struct sc_diag *items;
	size_t n, alloc;
};
#define SC_DIAGS_INIT { NULL, 0, 0 }

void sc_diags_add(struct sc_diags *d, enum sc_severity sev, const char *file, size_t line,
		  const char *code, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/*
 * The error every schema check reports for a value of the wrong type:
 * "WHAT must be WANT, found FOUND", WHAT in single quotes when quote
 * (skillci.yml keys: 'gate.alpha') or bare (JSON paths of a test file:
 * tests[1].input).
 */
void sc_diags_type_error(struct sc_diags *d, const char *file, size_t line, const char *code,
			 const char *what, bool quote, const char *want, const char *found);
/* Sets out to "prefix.name", or to "name" when prefix is "": the path of
 * a member below prefix, as type errors name it. */
void sc_diag_path_join(struct sc_buf *out, const char *prefix, const char *name);
size_t sc_diags_count(const struct sc_diags *d, enum sc_severity sev);
/* Stable order: by file, then line, then code. */
void sc_diags_sort(struct sc_diags *d);
/* "file:line: error: message [code]" for one finding (appended to out);
 * the file and message go through sc_escape_log() (escape.h). */
void sc_diag_format(struct sc_buf *out, const struct sc_diag *diag);
void sc_diags_release(struct sc_diags *d);

#endif
