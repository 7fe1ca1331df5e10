/*
 * What a model is given with a skill (prompt.h): the system prompt and
 * the hash of the skill's content that names it in the store.
 */
#include "common.h"
#include "sha256.h"
#include "skills/prompt.h"
#include "skills/skill.h"

#include <string.h>

const char sc_skill_prompt_template[] =
	"You have access to the following skill. Follow its instructions when the task "
	"calls for it.\n"
	"\n"
	"<skill name=\"{name}\">\n"
	"<description>{description}</description>\n"
	"\n"
	"{body}\n"
	"\n"
	"<references>\n"
	"{references}\n"
	"</references>\n"
	"</skill>\n";

/* Appends s with each "{key}" of the template replaced. */
static void fill_template(struct sc_buf *out, const char *tpl, const char *const *keys,
			  const char *const *vals, size_t n)
{
	const char *p = tpl;

	while (*p) {
		bool matched = false;
		if (*p == '{') {
			for (size_t i = 0; i < n; i++) {
				size_t kl = strlen(keys[i]);
				if (!strncmp(p + 1, keys[i], kl) && p[1 + kl] == '}') {
					sc_buf_puts(out, vals[i]);
					p += kl + 2;
					matched = true;
					break;
				}
			}
		}
		if (!matched)
			sc_buf_putc(out, *p++);
	}
}

void sc_skill_system_prompt(struct sc_buf *out, const struct sc_skill *skill)
{
	static const char *const keys[] = { "name", "description", "body", "references" };
	struct sc_buf refs = SC_BUF_INIT;
	const char *vals[4];

	for (size_t i = 0; i < skill->nfiles; i++)
		if (sc_starts_with(skill->files[i], "references/"))
			sc_buf_printf(&refs, "%s- %s", refs.len ? "\n" : "", skill->files[i]);
	if (!refs.len)
		sc_buf_puts(&refs, "(none)");
	vals[0] = skill->name ? skill->name : (skill->folder_name ? skill->folder_name : "");
	vals[1] = skill->description ? skill->description : "";
	vals[2] = skill->body ? skill->body : "";
	vals[3] = refs.ptr;
	fill_template(out, sc_skill_prompt_template, keys, vals, 4);
	sc_buf_release(&refs);
}

void sc_skill_prompt_size(struct sc_skill_prompt_size *out, const struct sc_skill *skill)
{
	struct sc_buf p = SC_BUF_INIT;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < skill->nfiles; i++)
		if (sc_starts_with(skill->files[i], "references/")) {
			out->listing += strlen(skill->files[i]) + 3;  /* "- ", and a line feed */
			out->listed++;
		}
	out->body = skill->body ? strlen(skill->body) : 0;
	sc_skill_system_prompt(&p, skill);
	out->total = p.len;
	sc_buf_release(&p);
}

/* "1,234,567": a byte count for a message. */
static void grouped(struct sc_buf *out, size_t n)
{
	char digits[32];
	size_t len = (size_t)snprintf(digits, sizeof(digits), "%zu", n);

	for (size_t i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			sc_buf_putc(out, ',');
		sc_buf_putc(out, digits[i]);
	}
}

bool sc_skill_prompt_over(struct sc_buf *why, const struct sc_skill *skill)
{
	struct sc_skill_prompt_size sz;

	sc_skill_prompt_size(&sz, skill);
	if (sz.total <= SC_MAX_SKILL_PROMPT_BYTES)
		return false;
	if (why) {
		sc_buf_puts(why, "the skill would put ");
		grouped(why, sz.total);
		sc_buf_puts(why, " bytes into every request's system prompt (its body ");
		grouped(why, sz.body);
		sc_buf_puts(why, " bytes, the listing of its ");
		grouped(why, sz.listed);
		sc_buf_printf(why, " file%s under references/ ", sz.listed == 1 ? "" : "s");
		grouped(why, sz.listing);
		sc_buf_puts(why, " bytes), more than the ");
		grouped(why, SC_MAX_SKILL_PROMPT_BYTES);
		sc_buf_puts(why, " a skill may: it is not evaluated; shorten the body or keep fewer "
			    "files under references/");
	}
	return true;
}

int sc_skill_content_hash(char out[65], const struct sc_skill *skill)
{
	struct sc_sha256 ctx;
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, hex = SC_BUF_INIT;
	unsigned char digest[SC_SHA256_LEN];
	int err = 0;

	sc_sha256_init(&ctx);
	for (size_t i = 0; i < skill->nfiles; i++) {
		char len[32];
		sc_buf_clear(&path);
		sc_buf_clear(&data);
		sc_path_join(&path, skill->dir, skill->files[i]);
		if ((err = sc_read_file(&data, path.ptr, SC_MAX_FILE_BYTES)) < 0)
			goto done;
		snprintf(len, sizeof(len), "%zu:", strlen(skill->files[i]));
		sc_sha256_update(&ctx, len, strlen(len));
		sc_sha256_update(&ctx, skill->files[i], strlen(skill->files[i]));
		snprintf(len, sizeof(len), "%zu:", data.len);
		sc_sha256_update(&ctx, len, strlen(len));
		sc_sha256_update(&ctx, data.ptr, data.len);
	}
	sc_sha256_final(&ctx, digest);
	sc_hex(&hex, digest, sizeof(digest));
	memcpy(out, hex.ptr, 65);
done:
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&hex);
	return err;
}
