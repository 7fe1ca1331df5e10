#ifndef SC_TEACHER_GENERATE_PARTS_H
#define SC_TEACHER_GENERATE_PARTS_H
/*
 * What the files of the teacher (generate.c, generate_prompts.c,
 * generate_parse.c, generate_trace.c) share among themselves; the
 * module's interface is generate.h.
 */
#include "buf.h"
#include "teacher/generate.h"

struct cJSON;

/* The system prompts of a skill and of its tests. */
extern const char sc_gen_system_skill[];
extern const char sc_gen_system_tests[];
/* The request to improve cur as instructions say, and to refine it from
 * its failed tests; required_name: the name the skill must keep, or NULL. */
void sc_gen_prompt_improve(struct sc_buf *out, const struct sc_gen_draft *cur,
			   const char *instructions, const char *required_name);
void sc_gen_prompt_refine(struct sc_buf *out, const struct sc_gen_draft *cur,
			  const struct sc_strlist *failures, const char *required_name);
/* The follow-up sent once when an answer could not be used. */
void sc_gen_prompt_retry(struct sc_buf *out, const char *problem);
/* Releases one test case. */
void sc_gen_case_release(struct sc_gen_case *c);
/* JSON as Python's json.dumps(obj, indent=2): "key": value, one item a line. */
void sc_gen_py_json(struct sc_buf *out, const struct cJSON *v, int depth);

#endif
