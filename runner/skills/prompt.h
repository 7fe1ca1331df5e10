#ifndef SC_SKILLS_PROMPT_H
#define SC_SKILLS_PROMPT_H
/*
 * What a model is given with a skill: the system prompt built from its
 * SKILL.md, and the hash of its content. Below eval and results, which
 * both use them (the evaluation asks with the prompt, export writes it
 * into transcripts).
 */
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

struct sc_skill;

/*
 * The system prompt given to a model with a skill. Placeholders:
 * {name}, {description}, {body}, {references} (a "- path" line per file
 * under references/, or "(none)"). Its SHA-256 is the prompt hash of
 * every unit, so changing the template re-evaluates everything.
 */
extern const char sc_skill_prompt_template[];

/* Builds the system prompt for a skill (the template filled in). */
void sc_skill_system_prompt(struct sc_buf *out, const struct sc_skill *skill);
/*
 * What a skill puts into the system prompt above, in bytes: the whole
 * prompt (built exactly as sc_skill_system_prompt() builds it), its
 * body, and the listing of its files under references/ (one "- path"
 * line each; listed is how many).
 */
struct sc_skill_prompt_size {
	size_t total, body, listing, listed;
};
void sc_skill_prompt_size(struct sc_skill_prompt_size *out, const struct sc_skill *skill);
/*
 * Whether the skill's system prompt is over SC_MAX_SKILL_PROMPT_BYTES;
 * when it is and why is not NULL, appends the finding's sentence to why
 * (the sizes, what makes them and what to do).
 */
bool sc_skill_prompt_over(struct sc_buf *why, const struct sc_skill *skill);
/* SHA-256 hex of the skill's files (relative path and content, sorted). */
int sc_skill_content_hash(char out[65], const struct sc_skill *skill);
#endif
