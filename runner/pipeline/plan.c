/*
 * The plan of a run: unit ids, shards and the plan hash (see plan.h).
 */
#include "common.h"
#include "pipeline/plan.h"
#include "sha256.h"

void sc_plan_unit_id(struct sc_buf *out, const char *skill, enum sc_variant variant,
		     const char *model, const char *test_id, int run)
{
	sc_buf_printf(out, "%s|%s|%s|%s|%d", skill, sc_variant_name(variant), model, test_id, run);
}

void sc_plan_add(struct sc_plan *plan, const char *skill, enum sc_variant variant, const char *model,
		 const char *test_id, int run, const char *content)
{
	struct sc_plan_unit *u;
	struct sc_buf id = SC_BUF_INIT;

	SC_GROW(plan->units, plan->alloc, plan->n + 1);
	u = &plan->units[plan->n++];
	sc_plan_unit_id(&id, skill, variant, model, test_id, run);
	u->id = sc_buf_detach(&id, NULL);
	u->skill = sc_xstrdup(skill);
	u->variant = variant;
	u->model = sc_xstrdup(model);
	u->test_id = sc_xstrdup(test_id);
	u->run = run;
	u->content = sc_xstrdup(content ? content : "");
	u->hash = sc_plan_hash_id(u->id);
	u->requests = 1;
	u->prompt_bytes = u->system_bytes = 0;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct sc_plan_unit *)a)->id, ((const struct sc_plan_unit *)b)->id);
}

/* Hashes a string with its length in front, so fields cannot run together. */
static void put_field(struct sc_sha256 *sha, const char *s)
{
	uint64_t len = strlen(s);
	unsigned char n[8];

	for (int i = 0; i < 8; i++)
		n[i] = (unsigned char)(len >> (56 - 8 * i));
	sc_sha256_update(sha, n, sizeof(n));
	sc_sha256_update(sha, s, (size_t)len);
}

int sc_plan_finish(struct sc_plan *plan, const char *extra)
{
	struct sc_sha256 sha;
	unsigned char digest[SC_SHA256_LEN];
	struct sc_buf hex = SC_BUF_INIT;

	if (plan->n > 1)
		qsort(plan->units, plan->n, sizeof(*plan->units), by_id);
	for (size_t i = 1; i < plan->n; i++)
		if (!strcmp(plan->units[i - 1].id, plan->units[i].id))
			return sc_error_set(SC_EINVAL, "unit '%s' is planned twice", plan->units[i].id);
	sc_sha256_init(&sha);
	put_field(&sha, "skillci.plan/1");
	put_field(&sha, extra ? extra : "");
	for (size_t i = 0; i < plan->n; i++) {
		put_field(&sha, plan->units[i].id);
		put_field(&sha, plan->units[i].content);
	}
	sc_sha256_final(&sha, digest);
	sc_hex(&hex, digest, sizeof(digest));
	snprintf(plan->hash, sizeof(plan->hash), "%s", hex.ptr);
	sc_buf_release(&hex);
	return 0;
}

const struct sc_plan_unit *sc_plan_find(const struct sc_plan *plan, const char *id)
{
	size_t lo = 0, hi = plan->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(plan->units[mid].id, id);
		if (c == 0)
			return &plan->units[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void sc_plan_release(struct sc_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		struct sc_plan_unit *u = &plan->units[i];
		free(u->id);
		free(u->skill);
		free(u->model);
		free(u->test_id);
		free(u->content);
	}
	free(plan->units);
	plan->units = NULL;
	plan->n = plan->alloc = 0;
	plan->hash[0] = '\0';
}

uint64_t sc_plan_hash_id(const char *id)
{
	struct sc_sha256 sha;
	unsigned char d[SC_SHA256_LEN];
	uint64_t h = 0;

	sc_sha256_init(&sha);
	sc_sha256_update(&sha, id, strlen(id));
	sc_sha256_final(&sha, d);
	for (int i = 0; i < 8; i++)
		h = h << 8 | d[i];
	return h;
}

int sc_plan_shard_of(const char *id, int count)
{
	assert(count >= 1);
	return (int)(sc_plan_hash_id(id) % (uint64_t)count) + 1;
}

/* A whole decimal number from text into *out; false when not one. */
static bool parse_int(long *out, const char *s)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*out = strtol(s, &end, 10);
	return !errno && !*end;
}

/* An environment variable read as a number; false when unset. SC_EINVAL
 * (through *err) when set but not a number. */
static bool env_int(long *out, const char *name, int *err)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return false;
	if (!parse_int(out, v)) {
		*err = sc_error_set(SC_EINVAL, "%s='%s' is not a number", name, v);
		return false;
	}
	return true;
}

int sc_plan_parse_shard(int *k, int *n, const char *spec, int count_hint)
{
	long kk = 0, nn = 0, id, min = 0, max;
	int err = 0;

	if (strcmp(spec, "auto")) {
		const char *slash = strchr(spec, '/');
		char *kpart;
		bool ok;
		if (!slash)
			return sc_error_set(SC_EINVAL, "--shard '%s': expected K/N (such as 2/4) or auto", spec);
		kpart = sc_xstrndup(spec, (size_t)(slash - spec));
		ok = parse_int(&kk, kpart) && parse_int(&nn, slash + 1);
		free(kpart);
		if (!ok)
			return sc_error_set(SC_EINVAL, "--shard '%s': expected K/N (such as 2/4) or auto", spec);
	} else if (env_int(&id, "SLURM_ARRAY_TASK_ID", &err)) {
		env_int(&min, "SLURM_ARRAY_TASK_MIN", &err);
		if (!env_int(&nn, "SLURM_ARRAY_TASK_COUNT", &err) && !err) {
			if (!env_int(&max, "SLURM_ARRAY_TASK_MAX", &err) && !err)
				return sc_error_set(SC_EINVAL, "--shard auto: SLURM_ARRAY_TASK_ID is set but "
						    "neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX");
			nn = max - min + 1;
		}
		if (err)
			return err;
		kk = id - min + 1;
	} else if (!err && env_int(&id, "JOB_COMPLETION_INDEX", &err)) {
		kk = id + 1;
		if (count_hint > 0)
			nn = count_hint;
		else if (!env_int(&nn, "SKILLCI_SHARD_COUNT", &err)) {
			if (err)
				return err;
			return sc_error_set(SC_EINVAL, "--shard auto: JOB_COMPLETION_INDEX is set; give the "
					    "number of shards with --shard-count N or SKILLCI_SHARD_COUNT "
					    "(the Job's completions)");
		}
	} else {
		if (err)
			return err;
		return sc_error_set(SC_EINVAL, "--shard auto: no shard index in the environment "
				    "(SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX)");
	}
	if (nn < 1 || nn > SC_MAX_SHARDS)
		return sc_error_set(SC_EINVAL, "--shard: the number of shards must be from 1 to %d, found %ld",
				    SC_MAX_SHARDS, nn);
	if (kk < 1 || kk > nn)
		return sc_error_set(SC_EINVAL, "--shard: shard %ld is out of range 1..%ld", kk, nn);
	*k = (int)kk;
	*n = (int)nn;
	return 0;
}
