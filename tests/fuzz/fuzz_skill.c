/*
 * SKILL.md front matter and body through sc_skill_parse_md(): YAML front
 * matter (libyaml), field rules, the body's Markdown links (cmark-gfm) and
 * token estimate. The first byte picks strict mode and whether the name
 * is checked against a folder name; the rest is the file.
 */
#include "fuzz.h"
#include "diag.h"
#include "skills/skill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sc_skill skill;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_buf line = SC_BUF_INIT;
	unsigned flags = 0;
	const char *folder = NULL;

	if (size > 0) {
		flags = (data[0] & 1) ? SC_SKILL_STRICT : 0;
		folder = (data[0] & 2) ? "pdf-tools" : NULL;
		data++, size--;
	}
	memset(&skill, 0, sizeof(skill));
	sc_skill_parse_md(&skill, (const char *)data, size, "skills/x/SKILL.md", folder, &diags, flags);
	/* Every finding must format (it holds text taken from the input). */
	sc_diags_sort(&diags);
	for (size_t i = 0; i < diags.n; i++)
		sc_diag_format(&line, &diags.items[i]);
	if (skill.name)
		sc_skill_name_valid(skill.name, &line);
	sc_buf_release(&line);
	sc_diags_release(&diags);
	sc_skill_release(&skill);
	return 0;
}
