/*
 * Changed skills between two trees (see changed.h). Only the folders above
 * changed paths are looked at, each once per side through a small hash
 * table, so the work grows with the size of the change, not of the
 * repository; the whole head tree is walked only when every skill is
 * wanted (a config change, --all).
 */
#include "common.h"
#include "diag.h"
#include "git/changed.h"
#include "git/similarity.h"
#include "skills/skill.h"

/* One folder seen while mapping, with what each side's tree holds there. */
struct folder {
	char *dir;                    /* repo-relative, "" for the root */
	struct sc_git_probe probe[2]; /* 0: base, 1: head */
	bool probed[2];
	size_t files[2];              /* changed files it owns on each side */
	bool candidate;               /* in the added/deleted pairing */
	struct folder *paired;        /* rename partner */
	long result;                  /* index in the output, -1 when none */
	const char **rel;             /* changed files by path inside it (borrowed), for the count */
	size_t nrel, rel_alloc;
};

struct folders {
	struct folder **slots;
	size_t cap, n;
	struct folder **all;  /* insertion order */
	size_t nall, alloc;
};

struct mapper {
	struct sc_git_tree *tree[2];
	struct folders f;
	struct sc_changed *out;
	const char *repo_name;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void folders_grow(struct folders *f)
{
	size_t cap = f->cap ? f->cap * 2 : 256;
	struct folder **slots = sc_xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < f->nall; i++) {
		size_t j = hash_str(f->all[i]->dir) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = f->all[i];
	}
	free(f->slots);
	f->slots = slots;
	f->cap = cap;
}

/* The folder entry for dir (len bytes of it), created on first use. */
static struct folder *folder_get(struct folders *f, const char *dir, size_t len)
{
	struct folder *e;
	size_t j;
	char *key = sc_xstrndup(dir, len);

	if ((f->n + 1) * 10 > f->cap * 7)
		folders_grow(f);
	j = hash_str(key) & (f->cap - 1);
	while (f->slots[j]) {
		if (!strcmp(f->slots[j]->dir, key)) {
			free(key);
			return f->slots[j];
		}
		j = (j + 1) & (f->cap - 1);
	}
	e = sc_xcalloc(1, sizeof(*e));
	e->dir = key;
	e->result = -1;
	f->slots[j] = e;
	f->n++;
	SC_GROW(f->all, f->alloc, f->nall + 1);
	f->all[f->nall++] = e;
	return e;
}

static void folders_release(struct folders *f)
{
	for (size_t i = 0; i < f->nall; i++) {
		free(f->all[i]->dir);
		free(f->all[i]->rel);
		free(f->all[i]);
	}
	free(f->all);
	free(f->slots);
}

/* What side's tree holds at folder e, looked up once. */
static int probe(struct mapper *m, struct folder *e, int side, const struct sc_git_probe **out)
{
	int err;

	if (!e->probed[side]) {
		if ((err = sc_git_probe(&e->probe[side], m->tree[side], e->dir)) < 0)
			return err;
		e->probed[side] = true;
	}
	*out = &e->probe[side];
	return 0;
}

/*
 * The skill that owns path on one side: the nearest folder above it that
 * holds a SKILL.md. *owner is NULL when no skill owns it.
 */
static int find_owner(struct folder **owner, struct mapper *m, int side, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	int err;

	*owner = NULL;
	for (;;) {
		struct folder *e = folder_get(&m->f, path, len);
		const struct sc_git_probe *p;
		if ((err = probe(m, e, side, &p)) < 0)
			return err;
		if (p->is_skill) {
			*owner = e;
			return 0;
		}
		if (len == 0)
			return 0;
		while (len > 0 && path[len - 1] != '/')
			len--;
		if (len > 0)
			len--;  /* drop the slash */
	}
}

static const char *display_path(const char *dir)
{
	return *dir ? dir : ".";
}

/* Adds (or returns) the output entry for folder e with the given status. */
static struct sc_changed_skill *result_for(struct mapper *m, struct folder *e,
					   enum sc_change_status status)
{
	struct sc_changed_skill *s;
	const char *base;

	if (e->result >= 0)
		return &m->out->items[e->result];
	SC_GROW(m->out->items, m->out->alloc, m->out->n + 1);
	s = &m->out->items[m->out->n];
	memset(s, 0, sizeof(*s));
	e->result = (long)m->out->n++;
	s->status = status;
	s->path = sc_xstrdup(display_path(e->dir));
	base = strrchr(e->dir, '/');
	s->name = sc_xstrdup(base ? base + 1 : *e->dir ? e->dir : m->repo_name);
	if (e->probed[0] && e->probe[0].is_skill && status != SC_CHANGE_ADDED)
		memcpy(s->base_tree, e->probe[0].tree, SC_GIT_HEX_SIZE);
	if (e->probed[1] && e->probe[1].is_skill && status != SC_CHANGE_DELETED) {
		memcpy(s->head_tree, e->probe[1].tree, SC_GIT_HEX_SIZE);
		s->lowercase = e->probe[1].lowercase;
	} else if (e->probed[0]) {
		s->lowercase = e->probe[0].lowercase;
	}
	return s;
}

struct vote {
	struct folder *from, *to;
	bool skill_md;   /* the skill file itself moved */
};

static int cmp_vote(const void *a, const void *b)
{
	const struct vote *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return 0;
}

struct tally {
	struct folder *from, *to;
	size_t count;
	bool skill_md;
};

static int cmp_tally(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->skill_md != y->skill_md)
		return x->skill_md ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->from->dir, y->from->dir);
}

static int cmp_folder_tree(const void *a, const void *b)
{
	const struct folder *x = *(struct folder *const *)a, *y = *(struct folder *const *)b;
	int c = strcmp(x->probe[1].tree, y->probe[1].tree);

	return c ? c : strcmp(x->dir, y->dir);
}

static bool is_skill_file(const char *path, const char *dir)
{
	const char *rest = path;
	size_t n = strlen(dir);

	if (n) {
		if (strncmp(path, dir, n) || path[n] != '/')
			return false;
		rest = path + n + 1;
	}
	return !strcmp(rest, "SKILL.md") || !strcmp(rest, "skill.md");
}

/*
 * The skill's name as the validator reads it: the front matter parsed by
 * the same YAML reader (quoted, block and flow scalars, comments, a BOM),
 * so no way of writing the name makes a moved skill or a duplicate look
 * like another. NULL when the file has no string name.
 */
static char *front_matter_name(const char *text, size_t len)
{
	struct sc_skill skill;
	struct sc_diags diags = SC_DIAGS_INIT;
	char *name;

	memset(&skill, 0, sizeof(skill));
	sc_skill_parse_md(&skill, text, len, "SKILL.md", NULL, &diags, 0);
	name = skill.name;
	skill.name = NULL;
	sc_skill_release(&skill);
	sc_diags_release(&diags);
	return name;
}

int sc_changed_skill_name(char **out, struct sc_git_tree *tree, const char *dir, bool lowercase)
{
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT;
	const char *file = lowercase ? "skill.md" : "SKILL.md";
	enum sc_git_kind kind;
	int err;

	*out = NULL;
	if (*dir && strcmp(dir, "."))
		sc_path_join(&path, dir, file);
	else
		sc_buf_puts(&path, file);
	if ((err = sc_git_path_kind(&kind, tree, path.ptr)) < 0 || kind != SC_GIT_KIND_FILE)
		goto done;
	err = sc_git_read_blob(&data, tree, path.ptr, SC_MAX_RENAME_BLOB_BYTES);
	if (err == SC_ELIMIT) {
		sc_error_clear();
		err = 0;
		goto done;
	}
	if (err < 0)
		goto done;
	*out = front_matter_name(data.ptr, data.len);
done:
	sc_buf_release(&path);
	sc_buf_release(&data);
	return err;
}

/*
 * Pairs skills that left the base with skills new at head by identity:
 * the same name in the front matter. A name found on more than one
 * skill of a side pairs nothing (the duplicate is a finding of its own).
 */
static int pair_names(struct mapper *m, struct folder **del, size_t ndel, struct folder **add,
		      size_t nadd)
{
	char **dn = sc_xcalloc(ndel ? ndel : 1, sizeof(char *));
	char **an = sc_xcalloc(nadd ? nadd : 1, sizeof(char *));
	int err = 0;

	for (size_t i = 0; i < ndel && !err; i++)
		err = sc_changed_skill_name(&dn[i], m->tree[0], del[i]->dir, del[i]->probe[0].lowercase);
	for (size_t i = 0; i < nadd && !err; i++)
		err = sc_changed_skill_name(&an[i], m->tree[1], add[i]->dir, add[i]->probe[1].lowercase);
	for (size_t i = 0; i < ndel && !err; i++) {
		size_t hit = SIZE_MAX, hits = 0, same = 0;
		if (!dn[i])
			continue;
		for (size_t j = 0; j < ndel; j++)
			same += dn[j] && !strcmp(dn[j], dn[i]);
		for (size_t j = 0; j < nadd; j++)
			if (an[j] && !strcmp(an[j], dn[i])) {
				hit = j;
				hits++;
			}
		if (same == 1 && hits == 1 && !add[hit]->paired) {
			del[i]->paired = add[hit];
			add[hit]->paired = del[i];
		}
	}
	for (size_t i = 0; i < ndel; i++)
		free(dn[i]);
	for (size_t i = 0; i < nadd; i++)
		free(an[i]);
	free(dn);
	free(an);
	return err;
}

/*
 * Pairs skills that left the base with skills new at head whose tree is
 * the same (an exact move). Each skill takes part in one pair at most.
 */
static void pair_exact(struct folder **del, size_t ndel, struct folder **add, size_t nadd)
{
	if (nadd > 1)
		qsort(add, nadd, sizeof(*add), cmp_folder_tree);
	for (size_t i = 0; i < ndel; i++) {
		size_t lo = 0, hi = nadd;
		if (del[i]->paired)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int c = strcmp(add[mid]->probe[1].tree, del[i]->probe[0].tree);
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < nadd && !strcmp(add[lo]->probe[1].tree, del[i]->probe[0].tree); lo++) {
			if (!add[lo]->paired) {
				add[lo]->paired = del[i];
				del[i]->paired = add[lo];
				break;
			}
		}
	}
}

/*
 * Pairs skills by the file renames found between them (votes): a pair is
 * a rename when the skill's SKILL.md moved there, or when most of the
 * deleted skill's changed files did. Skills already paired keep their
 * partner.
 */
static void pair_votes(struct vote *votes, size_t nvotes)
{
	struct tally *t = NULL;
	size_t nt = 0, talloc = 0;

	if (nvotes > 1)
		qsort(votes, nvotes, sizeof(*votes), cmp_vote);
	for (size_t i = 0; i < nvotes;) {
		size_t j = i;
		bool md = false;
		while (j < nvotes && votes[j].from == votes[i].from && votes[j].to == votes[i].to)
			md |= votes[j++].skill_md;
		SC_GROW(t, talloc, nt + 1);
		t[nt++] = (struct tally){ votes[i].from, votes[i].to, j - i, md };
		i = j;
	}
	if (nt > 1)
		qsort(t, nt, sizeof(*t), cmp_tally);
	for (size_t i = 0; i < nt; i++) {
		if (t[i].from->paired || t[i].to->paired)
			continue;
		if (t[i].skill_md || t[i].count * 2 > t[i].from->files[0]) {
			t[i].from->paired = t[i].to;
			t[i].to->paired = t[i].from;
		}
	}
	free(t);
}

/* ---- file renames between skills, by git's rules ------------------------- */

/* A file that left a deleted skill (a source) or came with an added one. */
struct rfile {
	struct folder *owner;
	const char *path, *id;
	unsigned mode;
	int side;                       /* 0: source (base), 1: destination (head) */
	bool skill_md;                  /* the owner's own SKILL.md */
	bool used;                      /* matched to a file of the other side */
	bool sized, loaded, comparable; /* comparable: a text blob within the size limit */
	size_t size;
	struct sc_similarity_sig sig;
};

struct rmatch {
	struct rfile *src, *dst;
	int score;
	bool same_name;
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int cmp_rfile_id(const void *a, const void *b)
{
	const struct rfile *x = *(struct rfile *const *)a, *y = *(struct rfile *const *)b;
	int c = strcmp(x->id, y->id);
	return c ? c : strcmp(x->path, y->path);
}

static int cmp_rmatch(const void *a, const void *b)
{
	const struct rmatch *x = a, *y = b;
	int c;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->same_name != y->same_name)
		return x->same_name ? -1 : 1;
	if ((c = strcmp(x->dst->path, y->dst->path)))
		return c;
	return strcmp(x->src->path, y->src->path);
}

static bool is_blob_mode(unsigned mode)
{
	return mode != SC_GIT_MODE_GITLINK && mode != SC_GIT_MODE_TREE && mode != 0;
}

/* The empty blob: git does not pair empty files. */
static const char empty_blob[] = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

static void vote_for(struct vote **votes, size_t *nvotes, size_t *alloc, const struct rfile *src,
		     const struct rfile *dst)
{
	SC_GROW(*votes, *alloc, *nvotes + 1);
	(*votes)[(*nvotes)++] = (struct vote){ src->owner, dst->owner, src->skill_md && dst->skill_md };
}

/*
 * Exact renames: a destination whose blob a source has (git pairs these
 * first, whatever the content, binary files included), preferring a
 * source with the same file name.
 */
static void exact_renames(struct rfile **src, size_t nsrc, struct rfile **dst, size_t ndst,
			  struct vote **votes, size_t *nvotes, size_t *valloc)
{
	if (nsrc > 1)
		qsort(src, nsrc, sizeof(*src), cmp_rfile_id);
	for (size_t d = 0; d < ndst; d++) {
		struct rfile *best = NULL;
		size_t lo = 0, hi = nsrc;
		if (dst[d]->used || !strcmp(dst[d]->id, empty_blob))
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (strcmp(src[mid]->id, dst[d]->id) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < nsrc && !strcmp(src[lo]->id, dst[d]->id); lo++) {
			if (src[lo]->used)
				continue;
			if (!best || (!strcmp(base_name(src[lo]->path), base_name(dst[d]->path)) &&
				      strcmp(base_name(best->path), base_name(dst[d]->path))))
				best = src[lo];
		}
		if (best) {
			best->used = dst[d]->used = true;
			vote_for(votes, nvotes, valloc, best, dst[d]);
		}
	}
}

/* Size from the object header; content and signature only when compared. */
static int rfile_size(struct mapper *m, struct rfile *f)
{
	int err;

	if (f->sized)
		return 0;
	if ((err = sc_git_object_size(&f->size, m->tree[f->side], f->id)) < 0)
		return err;
	f->sized = true;
	return 0;
}

static int rfile_load(struct mapper *m, struct rfile *f)
{
	struct sc_buf data = SC_BUF_INIT;
	int err = 0;

	if (f->loaded)
		return 0;
	f->loaded = true;
	if (f->size > SC_MAX_RENAME_BLOB_BYTES || f->mode == SC_GIT_MODE_LINK)
		return 0;   /* too large, or a symlink: exact matches only, as git */
	if ((err = sc_git_read_object(&data, m->tree[f->side], f->id, SC_MAX_RENAME_BLOB_BYTES)) < 0)
		goto done;
	if (sc_similarity_is_binary(data.ptr, data.len))
		goto done;  /* binary: git's similarity is not for these; exact only */
	sc_similarity_sig_init(&f->sig, data.ptr, data.len, true);
	f->comparable = true;
done:
	sc_buf_release(&data);
	return err;
}

/*
 * Similar renames between the unmatched text files of src and dst, by
 * git's score (similarity.h), best first: each file in one pair at most.
 * Pairs whose sizes rule them out are not read; binary blobs are never
 * compared. Past SC_GIT_RENAME_LIMIT files on a side nothing is compared
 * (git's rename limit); *skipped says so.
 */
static int similar_renames(struct mapper *m, struct rfile **src, size_t nsrc, struct rfile **dst,
			   size_t ndst, struct vote **votes, size_t *nvotes, size_t *valloc,
			   bool *skipped)
{
	struct rmatch *cand = NULL;
	size_t ncand = 0, calloc_ = 0, left_src = 0, left_dst = 0;
	int err = 0;

	for (size_t i = 0; i < nsrc; i++)
		left_src += !src[i]->used;
	for (size_t i = 0; i < ndst; i++)
		left_dst += !dst[i]->used;
	if (!left_src || !left_dst)
		return 0;
	if (left_src > SC_GIT_RENAME_LIMIT || left_dst > SC_GIT_RENAME_LIMIT) {
		*skipped = true;
		return 0;
	}
	for (size_t d = 0; d < ndst; d++) {
		if (dst[d]->used || !is_blob_mode(dst[d]->mode) || dst[d]->mode == SC_GIT_MODE_LINK)
			continue;
		if ((err = rfile_size(m, dst[d])) < 0)
			goto done;
		for (size_t s = 0; s < nsrc; s++) {
			int score;
			if (src[s]->used || !is_blob_mode(src[s]->mode) || src[s]->mode == SC_GIT_MODE_LINK ||
			    src[s]->owner == dst[d]->owner)
				continue;
			if ((err = rfile_size(m, src[s])) < 0)
				goto done;
			if (!src[s]->size || !dst[d]->size ||
			    !sc_similarity_sizes_compatible(src[s]->size, dst[d]->size))
				continue;
			if ((err = rfile_load(m, dst[d])) < 0 || (err = rfile_load(m, src[s])) < 0)
				goto done;
			if (!dst[d]->comparable)
				break;
			if (!src[s]->comparable)
				continue;
			score = sc_similarity_score(&src[s]->sig, &dst[d]->sig);
			if (score < SC_SIMILARITY_RENAME_PCT)
				continue;
			SC_GROW(cand, calloc_, ncand + 1);
			cand[ncand++] = (struct rmatch){ src[s], dst[d], score,
				!strcmp(base_name(src[s]->path), base_name(dst[d]->path)) };
		}
	}
	if (ncand > 1)
		qsort(cand, ncand, sizeof(*cand), cmp_rmatch);
	for (size_t i = 0; i < ncand; i++) {
		if (cand[i].src->used || cand[i].dst->used)
			continue;
		cand[i].src->used = cand[i].dst->used = true;
		vote_for(votes, nvotes, valloc, cand[i].src, cand[i].dst);
	}
done:
	free(cand);
	return err;
}

/*
 * Pairs the skills that left the base with the skills new at head that
 * are the same skill moved, by git's own rules for files: the SKILL.md
 * moved (an exact rename, or git's similarity of 50% or more), or most of
 * the skill's changed files moved (exact or similar). Binary blobs are
 * matched exactly only, never read for similarity; files of skills that a
 * SKILL.md already paired are not compared further.
 */
static int pair_renames(struct mapper *m, const struct sc_git_changes *changes)
{
	struct rfile *files = NULL, **src = NULL, **dst = NULL, **msrc = NULL, **mdst = NULL;
	size_t nfiles = 0, falloc = 0, nsrc = 0, ndst = 0, nmsrc = 0, nmdst = 0;
	struct vote *votes = NULL;
	size_t nvotes = 0, valloc = 0;
	bool skipped = false;
	int err = 0;

	for (size_t i = 0; i < changes->n; i++) {
		const struct sc_git_change *c = &changes->items[i];
		int side = c->status == SC_GIT_DELETED ? 0 : c->status == SC_GIT_ADDED ? 1 : -1;
		const char *path = side == 0 ? c->old_path : c->new_path;
		struct folder *o;
		struct rfile *f;
		if (side < 0)
			continue;
		if ((err = find_owner(&o, m, side, path)) < 0)
			goto done;
		if (!o || !o->candidate || o->paired || o->probe[0].is_skill != (side == 0))
			continue;
		SC_GROW(files, falloc, nfiles + 1);
		f = &files[nfiles++];
		memset(f, 0, sizeof(*f));
		f->owner = o;
		f->path = path;
		f->id = side == 0 ? c->old_id : c->new_id;
		f->mode = side == 0 ? c->old_mode : c->new_mode;
		f->side = side;
		f->skill_md = is_skill_file(path, o->dir);
	}
	if (!nfiles)
		goto done;
	src = sc_xcalloc(nfiles, sizeof(*src));
	dst = sc_xcalloc(nfiles, sizeof(*dst));
	msrc = sc_xcalloc(nfiles, sizeof(*msrc));
	mdst = sc_xcalloc(nfiles, sizeof(*mdst));
	for (size_t i = 0; i < nfiles; i++) {
		struct rfile *f = &files[i];
		if (f->side == 0)
			src[nsrc++] = f;
		else
			dst[ndst++] = f;
		if (f->skill_md && f->side == 0)
			msrc[nmsrc++] = f;
		else if (f->skill_md)
			mdst[nmdst++] = f;
	}
	/* exact renames, then SKILL.md to SKILL.md by similarity */
	exact_renames(src, nsrc, dst, ndst, &votes, &nvotes, &valloc);
	if ((err = similar_renames(m, msrc, nmsrc, mdst, nmdst, &votes, &nvotes, &valloc,
				   &skipped)) < 0)
		goto done;
	pair_votes(votes, nvotes);
	/* the other files of skills still unpaired */
	{
		size_t k = 0, l = 0;
		for (size_t i = 0; i < nsrc; i++)
			if (!src[i]->owner->paired)
				src[k++] = src[i];
		for (size_t i = 0; i < ndst; i++)
			if (!dst[i]->owner->paired)
				dst[l++] = dst[i];
		if ((err = similar_renames(m, src, k, dst, l, &votes, &nvotes, &valloc, &skipped)) < 0)
			goto done;
	}
	pair_votes(votes, nvotes);
	if (skipped)
		sc_trace("git", "rename detection: more than %d files on a side, similar files not "
			 "compared (exact renames only)", SC_GIT_RENAME_LIMIT);
done:
	for (size_t i = 0; i < nfiles; i++)
		sc_similarity_sig_release(&files[i].sig);
	free(files);
	free(src);
	free(dst);
	free(msrc);
	free(mdst);
	free(votes);
	return err;
}

static bool is_link(unsigned mode)
{
	return mode == SC_GIT_MODE_LINK;
}

static bool path_under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	while (n > 0 && prefix[n - 1] == '/')
		n--;
	if (n == 0)
		return true;
	return !strncmp(path, prefix, n) && (path[n] == '\0' || path[n] == '/');
}

/* Marks every skill at head (the config changed, or --all) with reason/status. */
static int mark_all_at_head(struct mapper *m, unsigned reason, enum sc_change_status status)
{
	struct sc_git_skills skills = SC_GIT_SKILLS_INIT;
	int err;

	if ((err = sc_git_list_skills(&skills, m->tree[1])) < 0)
		goto done;
	for (size_t i = 0; i < skills.n; i++) {
		struct folder *e = folder_get(&m->f, skills.items[i].path, strlen(skills.items[i].path));
		const struct sc_git_probe *p;
		struct sc_changed_skill *s;
		if ((err = probe(m, e, 0, &p)) < 0 || (err = probe(m, e, 1, &p)) < 0)
			goto done;
		s = result_for(m, e, status);
		s->reasons |= reason;
	}
done:
	sc_git_skills_release(&skills);
	return err;
}

static int cmp_result(const void *a, const void *b)
{
	return strcmp(((const struct sc_changed_skill *)a)->path,
		      ((const struct sc_changed_skill *)b)->path);
}

/* Adds rel to the set of changed files of output entry e (its own list). */
static void file_of(struct folder *e, const char *path, const char *dir)
{
	size_t n = strlen(dir);
	const char *rel = n && !strncmp(path, dir, n) && path[n] == '/' ? path + n + 1 : path;

	SC_GROW(e->rel, e->rel_alloc, e->nrel + 1);
	e->rel[e->nrel++] = rel;
}

/*
 * Each listed skill's changed files, counted once: a file is named by its
 * path inside the skill, so a renamed skill's moved file (deleted under
 * the old folder, added under the new) is one file, as is a modified one.
 */
static int count_files(struct mapper *m, const struct sc_git_changes *changes)
{
	int err;

	for (size_t i = 0; i < changes->n; i++) {
		const struct sc_git_change *c = &changes->items[i];
		for (int side = 0; side < 2; side++) {
			const char *path = side ? c->new_path : c->old_path;
			struct folder *o, *e;
			if (!path)
				continue;
			if ((err = find_owner(&o, m, side, path)) < 0)
				return err;
			if (!o)
				continue;
			/* a skill that moved is listed under its head folder */
			e = o->candidate && o->paired && o->probe[0].is_skill ? o->paired : o;
			if (e->result < 0)
				continue;
			file_of(e, path, o->dir);
		}
	}
	for (size_t i = 0; i < m->f.nall; i++) {
		struct folder *e = m->f.all[i];
		size_t k = 0;
		if (e->result < 0 || !e->nrel)
			continue;
		qsort(e->rel, e->nrel, sizeof(*e->rel), sc_strcmp_qsort);
		for (size_t j = 0; j < e->nrel; j++)
			k += !j || strcmp(e->rel[j - 1], e->rel[j]);
		m->out->items[e->result].files = k;
	}
	return 0;
}

static const char *const default_globals[] = {
	"skillci.yml", "skillci.yaml", ".skillci.yml", "upskill.config.yaml",
};

int sc_changed_compute(struct sc_changed *out, struct sc_git_tree *base, struct sc_git_tree *head,
		       const char *repo_name, const struct sc_changed_opts *opts)
{
	static const struct sc_changed_opts no_opts;
	struct sc_git_changes changes = SC_GIT_CHANGES_INIT;
	struct mapper m = { { base, head }, { NULL, 0, 0, NULL, 0, 0 }, out, repo_name };
	struct folder **del = NULL, **add = NULL;
	size_t ndel = 0, nadd = 0, adel = 0, aadd = 0;
	const char *const *globals;
	size_t nglobals;
	bool global_changed = false;
	int64_t t0;
	int err;

	if (!opts)
		opts = &no_opts;
	globals = opts->global_files ? opts->global_files : default_globals;
	nglobals = opts->global_files ? opts->nglobal : SC_ARRAY_SIZE(default_globals);
	t0 = sc_now_ms();
	if ((err = sc_git_diff(&changes, base, head)) < 0)
		goto done;
	sc_trace("git", "diff: %zu changed files in %lld ms", changes.n, (long long)(sc_now_ms() - t0));

	/* Owners on each side; renames between two different skills are votes. */
	for (size_t i = 0; i < changes.n; i++) {
		const struct sc_git_change *c = &changes.items[i];
		struct folder *ob = NULL, *oh = NULL;

		for (size_t g = 0; g < nglobals; g++)
			if ((c->old_path && !strcmp(c->old_path, globals[g])) ||
			    (c->new_path && !strcmp(c->new_path, globals[g])))
				global_changed = true;
		if (c->old_path && (err = find_owner(&ob, &m, 0, c->old_path)) < 0)
			goto done;
		if (c->new_path && (err = find_owner(&oh, &m, 1, c->new_path)) < 0)
			goto done;
		if (ob)
			ob->files[0]++;
		if (oh)
			oh->files[1]++;
	}

	/* A skill touched on one side only is a deletion or an addition candidate. */
	for (size_t i = 0; i < m.f.nall; i++) {
		struct folder *e = m.f.all[i];
		const struct sc_git_probe *pb, *ph;
		if (!e->files[0] && !e->files[1])
			continue;
		if ((err = probe(&m, e, 0, &pb)) < 0 || (err = probe(&m, e, 1, &ph)) < 0)
			goto done;
		if (pb->is_skill && !ph->is_skill) {
			SC_GROW(del, adel, ndel + 1);
			del[ndel++] = e;
			e->candidate = true;
		} else if (!pb->is_skill && ph->is_skill) {
			SC_GROW(add, aadd, nadd + 1);
			add[nadd++] = e;
			e->candidate = true;
		}
	}
	if (ndel && nadd && (err = pair_names(&m, del, ndel, add, nadd)) < 0)
		goto done;
	pair_exact(del, ndel, add, nadd);
	if (ndel && nadd && (err = pair_renames(&m, &changes)) < 0)
		goto done;
	sc_trace("git", "mapped to skills: %zu folders looked at, %zu deleted and %zu added "
		 "candidates, at %lld ms", m.f.nall, ndel, nadd, (long long)(sc_now_ms() - t0));

	for (size_t i = 0; i < m.f.nall; i++) {
		struct folder *e = m.f.all[i];
		struct sc_changed_skill *s;
		if (!e->files[0] && !e->files[1])
			continue;
		if (e->candidate && e->probe[0].is_skill && e->paired)
			continue;  /* listed under its new path */
		if (e->candidate && e->paired) {
			s = result_for(&m, e, SC_CHANGE_RENAMED);
			s->old_path = sc_xstrdup(display_path(e->paired->dir));
			memcpy(s->base_tree, e->paired->probe[0].tree, SC_GIT_HEX_SIZE);
		} else if (e->candidate) {
			s = result_for(&m, e, e->probe[0].is_skill ? SC_CHANGE_DELETED : SC_CHANGE_ADDED);
		} else {
			bool type = is_link(e->probe[0].skill_md_mode) != is_link(e->probe[1].skill_md_mode);
			s = result_for(&m, e, type ? SC_CHANGE_TYPECHANGE : SC_CHANGE_MODIFIED);
		}
		s->reasons |= SC_CHANGED_FILES;
	}
	if ((err = count_files(&m, &changes)) < 0)
		goto done;

	if (global_changed && (err = mark_all_at_head(&m, SC_CHANGED_CONFIG, SC_CHANGE_MODIFIED)) < 0)
		goto done;

	/* Extra prefixes: a changed path under one marks its skill, if at head. */
	for (size_t x = 0; x < opts->nextra; x++) {
		const struct sc_changed_extra *ex = &opts->extra[x];
		for (size_t i = 0; i < changes.n; i++) {
			const struct sc_git_change *c = &changes.items[i];
			if ((c->old_path && path_under(c->old_path, ex->prefix)) ||
			    (c->new_path && path_under(c->new_path, ex->prefix))) {
				const char *sp = strcmp(ex->skill_path, ".") ? ex->skill_path : "";
				struct folder *e = folder_get(&m.f, sp, strlen(sp));
				const struct sc_git_probe *p;
				if ((err = probe(&m, e, 0, &p)) < 0 || (err = probe(&m, e, 1, &p)) < 0)
					goto done;
				if (p->is_skill)
					result_for(&m, e, SC_CHANGE_MODIFIED)->reasons |= SC_CHANGED_EXTRA;
				break;
			}
		}
	}

	if (opts->all && (err = mark_all_at_head(&m, 0, SC_CHANGE_UNCHANGED)) < 0)
		goto done;
	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), cmp_result);
done:
	free(del);
	free(add);
	folders_release(&m.f);
	sc_git_changes_release(&changes);
	return err;
}

void sc_changed_release(struct sc_changed *list)
{
	for (size_t i = 0; i < list->n; i++) {
		free(list->items[i].path);
		free(list->items[i].old_path);
		free(list->items[i].name);
	}
	free(list->items);
	list->items = NULL;
	list->n = list->alloc = 0;
}

const char *sc_change_status_name(enum sc_change_status status)
{
	switch (status) {
	case SC_CHANGE_ADDED: return "added";
	case SC_CHANGE_MODIFIED: return "modified";
	case SC_CHANGE_DELETED: return "deleted";
	case SC_CHANGE_RENAMED: return "renamed";
	case SC_CHANGE_TYPECHANGE: return "typechange";
	case SC_CHANGE_UNCHANGED: return "unchanged";
	}
	return "?";
}
