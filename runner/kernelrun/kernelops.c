/*
 * The kernel harness wired for the evaluation core (see kernelops.h): the
 * answer's kernel is extracted, run in the sandboxed worker
 * (runner/kernelrun/kernelrun.h) and its result turned into the evaluation's
 * verdict; the oracle's answer is the fixture's reference solution. Used
 * by `skillci eval`, `skillci run` and `skillci generate`.
 */
#include "common.h"
#include "json.h"
#include "eval/eval.h"
#include "kernelrun/extract.h"
#include "kernelrun/fixture.h"
#include "kernelrun/kernelops.h"
#include "kernelrun/kernelrun.h"
#include "results/results.h"
#include "sha256.h"
#include "skills/testsuite.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <unistd.h>

/* What the kernel checks share: the fixtures, the worker, the settings. */
struct kernel_env {
	struct sc_fixture_list fixtures;
	const char *fixtures_dir;
	struct sc_buf worker;
	const char *arch;
	char cache[4096];     /* absolute: the worker runs in its own folder */
	bool compile_only;    /* --compile-only: asked for, even with a GPU */
	bool gpu;             /* a GPU is there and may be used */
	int wall_s;
};

/* Extracts the kernel from an answer, runs it in the sandboxed worker and
 * turns the worker's result into out. An answer without the kernel is a
 * "no_code" verdict (sent back to the model), not an error. */
/* Keeps the first GPU a worker reported (name, driver), for the run's
 * record: results are compared only on the same GPU and driver. */
static void note_device(struct sc_kernelops *env, const cJSON *dev)
{
	const char *name = sc_json_str_or(dev, "name", "");
	int64_t driver;
	bool have_driver = sc_json_get_int(&driver, dev, "driver", 0, INT_MAX) == SC_JSON_OK;

	if (!sc_json_bool_or(dev, "gpu", false) || !*name)
		return;
	pthread_mutex_lock(&env->lock);
	if (!env->gpu_name[0]) {
		snprintf(env->gpu_name, sizeof(env->gpu_name), "%s", name);
		if (have_driver)  /* the driver API's 1000*major + 10*minor */
			snprintf(env->gpu_driver, sizeof(env->gpu_driver), "%d.%d",
				 (int)driver / 1000, ((int)driver % 1000) / 10);
	}
	pthread_mutex_unlock(&env->lock);
}

/*
 * The GPU a check runs on: the one with the fewest checks running (so a
 * pool of one job per GPU gives each check a GPU of its own, and two
 * timings never share one). Given back with give_device().
 */
static int take_device(struct sc_kernelops *env)
{
	int best = 0;

	pthread_mutex_lock(&env->lock);
	for (int i = 1; i < env->ngpus; i++)
		if (env->busy[i] < env->busy[best])
			best = i;
	env->busy[best]++;
	pthread_mutex_unlock(&env->lock);
	return best;
}

static void give_device(struct sc_kernelops *env, int device)
{
	pthread_mutex_lock(&env->lock);
	env->busy[device]--;
	pthread_mutex_unlock(&env->lock);
}

/*
 * The strong reference of a timed worker result t (timing.strong_reference,
 * docs/kernels.md) into out: its name and the speedup over it when it was
 * timed; "NAME (not timed: WHY)" or "none: WHY" when not (why cut at 300
 * bytes, the message has it all).
 */
static void strong_from(struct sc_eval_kernel_result *out, const cJSON *t)
{
	const cJSON *s = sc_json_member(t, "strong_reference");
	const char *status = sc_json_str_or(s, "status", ""), *name = sc_json_str_or(s, "name", "");
	struct sc_buf b = SC_BUF_INIT;
	double sp;

	if (!cJSON_IsObject(s))
		return;
	if (!strcmp(status, "done") && sc_json_get_num(&sp, s, "speedup") == SC_JSON_OK && sp > 0) {
		sc_buf_puts(&b, name);
		out->strong_speedup = sp;
	} else if (!strcmp(status, "none")) {
		sc_buf_printf(&b, "none: %.300s", sc_json_str_or(s, "why", "no strong reference"));
	} else {
		sc_buf_printf(&b, "%s (not timed: %.300s)", name, sc_json_str_or(s, "why", "unknown"));
	}
	out->strong_reference = sc_buf_detach(&b, NULL);
}

static int kernel_check(struct sc_eval_kernel_result *out, const char *fixture, const char *answer,
			void *payload)
{
	struct sc_kernelops *env = payload;
	const struct sc_fixture *fx = sc_fixture_find(&env->fixtures, fixture);
	struct sc_buf entry = SC_BUF_INIT, src = SC_BUF_INIT, job = SC_BUF_INIT, result = SC_BUF_INIT;
	struct sc_kernelrun_result run;
	struct sc_kernelrun_limits lim;
	cJSON *r = NULL;
	const cJSON *c, *t, *worst;
	int64_t registers;
	double speedup;
	int err, device = -1;

	memset(&run, 0, sizeof(run));
	if (!fx)
		return sc_error_set(SC_ENOTFOUND, "no fixture '%s' in '%s'", fixture, env->fixtures_dir);
	if ((err = sc_fixture_entry(&entry, fx)) < 0)
		goto done;
	if (sc_extract_kernel(&src, answer, strlen(answer), entry.ptr, false, NULL) < 0) {
		out->verdict = SC_KV_NO_CODE;
		out->message = sc_xstrdup(sc_error_last());
		sc_error_clear();
		goto done;
	}
	device = take_device(env);
	{
		struct sc_kernel_job kj = { fx->dir, fx->name, fx->hash, src.ptr, src.len,
					    env->gpu, env->compile_only, env->arch,
					    env->cache[0] ? env->cache : NULL, 5, 10000, device };
		if ((err = sc_kernel_job_json(&job, &kj)) < 0)
			goto done;
	}
	lim.wall_s = env->wall_s;
	lim.cpu_s = env->wall_s;
	lim.limit_as = env->compile_only;
	err = sc_kernelrun(&run, env->worker.ptr, job.ptr, &lim);
	give_device(env, device);
	device = -1;
	if (err < 0)
		goto done;
	sc_kernelrun_result_json(&result, &run, &lim);
	r = cJSON_Parse(result.ptr);
	if (!r) {
		err = sc_error_set(SC_EGPU, "kernel worker wrote no result for fixture '%s'", fixture);
		goto done;
	}
	if (!sc_kernelrun_verdict(&out->verdict, sc_json_str_or(r, "verdict", ""),
				  sc_json_str_or(r, "reason", ""))) {
		err = sc_error_set(SC_EGPU, "kernel worker: %s", sc_json_str_or(r, "message", ""));
		goto done;
	}
	out->message = sc_xstrdup(sc_json_str_or(r, "message", ""));
	c = sc_json_member(r, "compile");
	out->compiled = sc_json_bool_or(c, "ok", false);
	if (*sc_json_str_or(c, "log", ""))
		out->compile_log = sc_xstrdup(sc_json_str_or(c, "log", ""));
	if (sc_json_get_int(&registers, c, "registers", INT_MIN, INT_MAX) == SC_JSON_OK)
		out->registers = (int)registers;
	worst = sc_json_member(sc_json_member(r, "correctness"), "worst");
	out->max_abs_error = sc_json_num_or(worst, "error", NAN);
	t = sc_json_member(r, "timing");
	speedup = sc_json_num_or(t, "speedup", NAN);
	if (strcmp(sc_json_str_or(t, "status", ""), "skipped") && speedup > 0) {
		double pct;
		out->speedup = speedup;
		if (sc_json_get_num(&pct, t, "pct_peak") == SC_JSON_OK && pct > 0)
			out->pct_of_peak = pct;
		strong_from(out, t);
	}
	note_device(env, sc_json_member(r, "device"));
done:
	if (device >= 0)
		give_device(env, device);
	cJSON_Delete(r);
	sc_kernelrun_result_release(&run);
	sc_buf_release(&entry);
	sc_buf_release(&src);
	sc_buf_release(&job);
	sc_buf_release(&result);
	return err;
}

/* The oracle's answer for a kernel test: the fixture's reference solution. */
static int kernel_reference(struct sc_buf *out, const char *fixture, void *payload)
{
	struct sc_kernelops *env = payload;
	const struct sc_fixture *fx = sc_fixture_find(&env->fixtures, fixture);
	struct sc_buf path = SC_BUF_INIT, src = SC_BUF_INIT;
	int err;

	if (!fx)
		return sc_error_set(SC_ENOTFOUND, "no fixture '%s'", fixture);
	sc_path_join(&path, fx->dir, "solution.cu");
	if ((err = sc_read_file(&src, path.ptr, SC_MAX_FILE_BYTES)) == 0)
		sc_buf_printf(out, "```cuda\n%s\n```\n", src.ptr);
	sc_buf_release(&path);
	sc_buf_release(&src);
	return err;
}

/* The fixture's task prompt (prompt.md): signature, geometry, tolerance
 * and the environment the kernel is compiled in. */
static int kernel_prompt(struct sc_buf *out, const char *fixture, void *payload)
{
	struct sc_kernelops *env = payload;
	const struct sc_fixture *fx = sc_fixture_find(&env->fixtures, fixture);
	struct sc_buf path = SC_BUF_INIT;
	int err;

	if (!fx)
		return sc_error_set(SC_ENOTFOUND, "no fixture '%s'", fixture);
	sc_path_join(&path, fx->dir, "prompt.md");
	err = sc_read_file(out, path.ptr, SC_MAX_CONTEXT_FILE_BYTES);
	sc_buf_release(&path);
	return err;
}

static int kernel_hash(char out[65], const char *fixture, void *payload)
{
	struct sc_kernelops *env = payload;
	const struct sc_fixture *fx = sc_fixture_find(&env->fixtures, fixture);

	if (!fx)
		return sc_error_set(SC_ENOTFOUND, "no fixture '%s'", fixture);
	memcpy(out, fx->hash, SC_SHA256_HEX_LEN + 1);
	return 0;
}

/* The NVIDIA GPUs of this machine: /dev/nvidia0, /dev/nvidia1, ... */
static int count_gpus(void)
{
	char path[32];
	int n = 0;

	while (n < SC_MAX_JOBS) {
		snprintf(path, sizeof(path), "/dev/nvidia%d", n);
		if (access(path, F_OK) != 0)
			break;
		n++;
	}
	return n;
}

int sc_kernelops_default_jobs(const struct sc_kernelops *env)
{
	long cpus;

	if (env->gpu) {
		int n = count_gpus();
		return n > 0 ? n : 1;
	}
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus < 1 ? 1 : cpus > SC_MAX_JOBS ? SC_MAX_JOBS : (int)cpus;
}

/* True when this machine has an NVIDIA GPU the worker can use. */
static bool have_gpu(void)
{
	return access("/dev/nvidiactl", F_OK) == 0 || access("/proc/driver/nvidia/version", F_OK) == 0;
}

/* Finds the worker and fills env->ops; *use is left NULL in a build
 * without CUDA (kernel tests are then skipped with that reason). */
static int finish_setup(struct sc_kernelops *env, const struct sc_eval_kernel_ops **use)
{
	struct sc_eval_kernel_ops *ops = &env->ops;
	int err;

	if (!sc_kernelrun_available()) {
		sc_log(SC_LOG_WARN, "not built with CUDA: kernel tests are skipped");
		return 0;
	}
	if ((err = sc_kernelrun_worker_path(&env->worker)) < 0)
		return err;
	env->gpu = !env->compile_only && have_gpu();
	env->ngpus = env->gpu && count_gpus() > 0 ? count_gpus() : 1;
	{
		struct sc_buf path = SC_BUF_INIT, lock = SC_BUF_INIT;
		sc_path_join(&path, env->fixtures_dir, "fixtures.lock");
		if (sc_read_file(&lock, path.ptr, SC_MAX_JSON_BYTES) == 0)
			sc_sha256_hex(env->lock_hash, lock.ptr, lock.len);
		sc_buf_release(&path);
		sc_buf_release(&lock);
	}
	{
		const char *dir = ".skillci/cache/kernels";
		if (sc_mkdir_p(dir) < 0 || !realpath(dir, env->cache))
			env->cache[0] = '\0';
	}
	ops->check = kernel_check;
	ops->reference = kernel_reference;
	ops->prompt = kernel_prompt;
	ops->fixture_hash = kernel_hash;
	ops->mode = env->gpu ? "gpu" : "compile-only";
	ops->payload = env;
	*use = ops;
	return 0;
}

int sc_kernelops_setup(struct sc_kernelops *env, const struct sc_eval_kernel_ops **use,
		       const struct sc_test_set *const *sets, size_t nsets, bool allow_unpinned)
{
	bool any = false;
	int err;

	*use = NULL;
	for (size_t s = 0; s < nsets; s++)
		for (size_t t = 0; t < sets[s]->n; t++)
			any |= sets[s]->items[t].fixture != NULL;
	if (!any)
		return 0;
	if ((err = sc_fixture_list(&env->fixtures, env->fixtures_dir)) < 0)
		return err;
	for (size_t s = 0; s < nsets; s++)
		for (size_t t = 0; t < sets[s]->n; t++) {
			const char *name = sets[s]->items[t].fixture;
			const struct sc_fixture *fx;
			if (!name)
				continue;
			if (!(fx = sc_fixture_find(&env->fixtures, name)))
				return sc_error_set(SC_EINVAL, "%s:%zu: no fixture '%s' in '%s'",
						    sets[s]->items[t].source, sets[s]->items[t].line, name,
						    env->fixtures_dir);
			if ((err = sc_fixture_require_pinned(fx, allow_unpinned)) < 0)
				return SC_EINVAL;
		}
	return finish_setup(env, use);
}

int sc_kernelops_setup_names(struct sc_kernelops *env, const struct sc_eval_kernel_ops **use,
			     const char *const *names, size_t nnames, bool allow_unpinned)
{
	int err;

	*use = NULL;
	if ((err = sc_fixture_list(&env->fixtures, env->fixtures_dir)) < 0)
		return nnames ? err : 0;
	for (size_t i = 0; i < nnames; i++) {
		const struct sc_fixture *fx = sc_fixture_find(&env->fixtures, names[i]);
		if (!fx)
			return sc_error_set(SC_EINVAL, "no fixture '%s' in '%s'", names[i],
					    env->fixtures_dir);
		if ((err = sc_fixture_require_pinned(fx, allow_unpinned)) < 0)
			return SC_EINVAL;
	}
	if (nnames == 0)
		for (size_t i = 0; i < env->fixtures.n; i++)
			if ((err = sc_fixture_require_pinned(&env->fixtures.items[i], allow_unpinned)) < 0)
				return SC_EINVAL;
	return finish_setup(env, use);
}

void sc_kernelops_init(struct sc_kernelops *env, const char *fixtures_dir, const char *arch,
		       bool compile_only, int wall_s)
{
	memset(env, 0, sizeof(*env));
	sc_buf_init(&env->worker);
	env->fixtures_dir = fixtures_dir;
	env->arch = arch;
	env->compile_only = compile_only;
	env->wall_s = wall_s;
	pthread_mutex_init(&env->lock, NULL);
}

void sc_kernelops_describe(struct sc_kernelops *env, struct sc_results_run *run)
{
	if (!env->ops.check)
		return;  /* no kernel test was checked */
	if (!run->fixtures_lock && env->lock_hash[0])
		run->fixtures_lock = sc_xstrdup(env->lock_hash);
	pthread_mutex_lock(&env->lock);
	if (!run->has_gpu && env->gpu_name[0]) {
		run->has_gpu = true;
		run->gpu.name = sc_xstrdup(env->gpu_name);
		run->gpu.driver = env->gpu_driver[0] ? sc_xstrdup(env->gpu_driver) : NULL;
		run->gpu.arch = sc_xstrdup(env->arch);
	}
	pthread_mutex_unlock(&env->lock);
}

void sc_kernelops_release(struct sc_kernelops *env)
{
	sc_fixture_list_release(&env->fixtures);
	sc_buf_release(&env->worker);
	pthread_mutex_destroy(&env->lock);
}
