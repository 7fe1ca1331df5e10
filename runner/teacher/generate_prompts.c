/*
 * The teacher's prompts (generate.h, docs/generate.md): the system prompts
 * of a skill and of its tests, the first request, the improvement and
 * refinement requests, and the follow-up once an answer could not be used.
 */
#include "common.h"
#include "diag.h"
#include "escape.h"
#include "json.h"
#include "eval/eval.h"
#include "teacher/generate.h"
#include "teacher/generate_parts.h"
#include "providers/provider.h"
#include "skills/skill.h"
#include "skills/testsuite.h"
#include "results/store.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- prompts ---------------------------------------------------------------- */

const char sc_gen_system_skill[] =
	"You generate \"skills\" - instruction documents that teach AI agents how to perform "
	"tasks.\n\n"
	"When given a task description, create a skill document with clear instructions, "
	"examples, and best practices that will help an AI agent complete that type of task "
	"reliably.\n\n"
	"## Output Format\n\n"
	"Output ONLY a JSON object with this exact structure:\n"
	"{\"name\": \"skill-name\", \"description\": \"What this skill teaches\", "
	"\"body\": \"Markdown instructions\", \"references\": {\"file.md\": \"optional longer "
	"reference material\"}}\n\n"
	"## Field Requirements\n\n"
	"- **name**: lowercase letters, digits and single hyphens, at most 64 characters "
	"(e.g. \"parse-yaml-files\", \"git-commit-messages\")\n"
	"- **description**: one sentence under 100 characters describing what the skill "
	"teaches and when to use it\n"
	"- **body**: 200-400 word Markdown guide including:\n"
	"  - Brief overview\n"
	"  - Step-by-step instructions or key principles\n"
	"  - 2-3 practical examples\n"
	"  - Best practices or common pitfalls\n"
	"- **references** (optional): files placed under references/; link them from the body "
	"as references/NAME\n\n"
	"## Important\n\n"
	"- Output ONLY the JSON object, no other text\n"
	"- Use \\n for newlines in string fields\n"
	"- Do NOT actually perform the task - create instructions FOR performing it\n"
	"- Focus on practical, actionable guidance with real examples\n";

const char sc_gen_system_tests[] =
	"You generate test cases for evaluating AI agent skills. Output only valid JSON.\n";

static const char test_examples[] =
	"## Example Test Cases\n\n"
	"Task: \"Write good git commit messages\"\n\n"
	"Output:\n"
	"```json\n"
	"{\n"
	"  \"cases\": [\n"
	"    {\"input\": \"Write a commit message for adding a new login feature\",\n"
	"     \"expected\": {\"contains\": [\"feat\", \"login\"]}},\n"
	"    {\"input\": \"Write a commit message for fixing a null pointer bug in the user "
	"service\",\n"
	"     \"expected\": {\"contains\": [\"fix\", \"bug\"]}},\n"
	"    {\"input\": \"Write a commit message for updating the README documentation\",\n"
	"     \"expected\": {\"contains\": [\"docs\", \"readme\"]}}\n"
	"  ]\n"
	"}\n"
	"```\n";

void sc_gen_prompt_skill(struct sc_buf *out, const char *task, const char *const *examples,
			 size_t nexamples, const char *trace, const char *required_name)
{
	sc_buf_printf(out, "Create a skill document that teaches an AI agent how to: %s", task);
	if (nexamples) {
		sc_buf_puts(out, "\n\nExample input/output pairs for this task:\n");
		for (size_t i = 0; i < nexamples; i++)
			sc_buf_printf(out, "- %s\n", examples[i]);
	}
	if (trace) {
		sc_buf_puts(out, "\n\nBelow is a trace of an agent doing this task. Distil what "
				 "worked (the steps, commands, checks and fixes that led to success) "
				 "and what to avoid (dead ends, errors and their fixes) into the skill. "
				 "Do not copy the trace; teach the method.\n\n<trace>\n");
		sc_buf_puts(out, trace);
		sc_buf_puts(out, "\n</trace>");
	}
	if (required_name)
		sc_buf_printf(out, "\n\nThe skill's name must be \"%s\".", required_name);
}

void sc_gen_prompt_improve(struct sc_buf *out, const struct sc_gen_draft *cur,
			   const char *instructions, const char *required_name)
{
	sc_buf_printf(out,
		      "You are improving an existing skill document for AI agents.\n\n"
		      "Given the current skill and improvement instructions, create an enhanced "
		      "version.\n\n## Current Skill\n\nName: %s\nDescription: %s\n\nBody:\n%s\n\n",
		      cur->name, cur->description, cur->body);
	for (size_t i = 0; i < cur->nrefs; i++)
		sc_buf_printf(out, "Reference references/%s:\n%s\n\n", cur->refs[i].name,
			      cur->refs[i].content);
	sc_buf_printf(out,
		      "## Improvement Instructions\n\n%s\n\n"
		      "## Guidelines\n\n"
		      "1. Preserve what works well in the original skill\n"
		      "2. Address the specific improvement requests\n"
		      "3. Maintain the same general structure and format\n"
		      "4. Add new examples or sections as needed\n"
		      "5. Keep the skill focused and actionable\n\n"
		      "Output the complete skill as the JSON object described in your instructions.",
		      instructions);
	if (required_name)
		sc_buf_printf(out, "\nThe skill's name must be \"%s\".", required_name);
}

void sc_gen_prompt_refine(struct sc_buf *out, const struct sc_gen_draft *cur,
			  const struct sc_strlist *failures, const char *required_name)
{
	sc_buf_printf(out, "Improve this skill based on failures:\n\nName: %s\nDescription: %s\n"
			   "Body:\n%s\n\nFailures:\n", cur->name, cur->description, cur->body);
	for (size_t i = 0; i < failures->n; i++)
		sc_buf_printf(out, "- %s\n", failures->items[i]);
	sc_buf_puts(out, "\nOutput the complete improved skill as the JSON object described in "
			 "your instructions (name, description, body, optional references).");
	if (required_name)
		sc_buf_printf(out, "\nThe skill's name must be \"%s\".", required_name);
}

void sc_gen_prompt_tests(struct sc_buf *out, const char *task,
			 const struct sc_strlist *fixture_lines)
{
	sc_buf_puts(out, "Generate 3-5 test cases for evaluating if an AI agent can perform this "
			 "task well.\n\n");
	sc_buf_puts(out, test_examples);
	sc_buf_printf(out, "\n\n## Your Task\n\nTask: %s\n\n"
			   "Generate test cases that verify the agent can apply the skill "
			   "correctly.\n\n"
			   "Each TestCase MUST include at least a list of expected strings in the "
			   "expected field.\n"
			   "Focus on practical scenarios that test understanding of the core "
			   "concepts.\n", task);
	if (fixture_lines && fixture_lines->n) {
		sc_buf_puts(out, "\n## CUDA kernel fixtures\n\n"
				 "If the task is about writing CUDA kernels, also add one case per "
				 "fitting fixture from this list, as {\"fixture\": \"NAME\"} (no input "
				 "or expected needed; the fixture brings its own prompt and checks):\n");
		for (size_t i = 0; i < fixture_lines->n; i++)
			sc_buf_printf(out, "- %s\n", fixture_lines->items[i]);
	}
	sc_buf_puts(out, "\nOutput only the JSON object {\"cases\": [...]}.");
}

/* The follow-up sent once when an answer could not be used. */
void sc_gen_prompt_retry(struct sc_buf *out, const char *problem)
{
	sc_buf_printf(out, "Your answer could not be used: %s\n\n"
			   "Answer again with only the corrected JSON object, no other text.",
		      problem);
}
