/*
 * skillci fixtures list|verify|lock [--fixtures DIR] [--json] [--cache DIR]
 *   list:   each fixture with its hash and pin state;
 *   verify: hashes match fixtures.lock, every baseline and solution
 *           compiles, and with a GPU both pass against the CPU reference on
 *           every size and seed (exit 1 when anything fails); --cache DIR
 *           compiles through the worker's signed cubin cache there (none
 *           by default: every source is compiled);
 *   lock:   writes fixtures.lock from the fixtures as they are.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "escape.h"
#include "kernelrun/fixture.h"
#include "kernelrun/kernelrun.h"

#include <cjson/cJSON.h>

struct fixtures_opts {
	const char *dir, *arch, *cache;
	bool json;
};

static const struct sc_option fixtures_table[] = {
	SC_OPT_STRING("fixtures", 0, struct fixtures_opts, dir, "DIR",
		      "kernel fixtures (default fixtures)"),
	SC_OPT_FLAG("json", 0, struct fixtures_opts, json, "list and verify as JSON"),
	SC_OPT_STRING("arch", 0, struct fixtures_opts, arch, "ARCH",
		      "GPU architecture to compile for (default sm_90)"),
	SC_OPT_STRING("cache", 0, struct fixtures_opts, cache, "DIR",
		      "verify through the cubin cache there"),
	SC_OPT_END,
};

static const struct sc_options fixtures_spec = {
	"fixtures", "list|verify|lock",
	"list: fixtures with hash and pin state; verify: pins match, baselines and\n"
	"solutions compile (and pass, with a GPU); lock: re-pin fixtures.lock.",
	NULL, fixtures_table, 0,
};

static const char *pin_name(enum sc_fixture_pin p)
{
	return p == SC_PIN_OK ? "pinned" : p == SC_PIN_CHANGED ? "changed" : "unpinned";
}

/* Runs one fixture source through the worker; returns the verdict (static
 * storage in *verdict_out via result buffer) and sets ok. */
static int check_source(struct sc_buf *result, const char *worker, const struct sc_fixture *f, const char *which,
			const char *arch, const char *cache)
{
	struct sc_buf path = SC_BUF_INIT, src = SC_BUF_INIT, job = SC_BUF_INIT;
	struct sc_kernelrun_result run = { 0 };
	struct sc_kernelrun_limits lim = { 300, 300, false };
	int err;

	sc_path_join(&path, f->dir, which);
	if ((err = sc_read_file(&src, path.ptr, 1024 * 1024)) < 0)
		goto done;
	{
		struct sc_kernel_job kj = { f->dir, f->name, f->hash, src.ptr, src.len, false, false, arch,
					    cache, 5, 10000, 0 };
		if ((err = sc_kernel_job_json(&job, &kj)) < 0)
			goto done;
	}
	if ((err = sc_kernelrun(&run, worker, job.ptr, &lim)) < 0)
		goto done;
	sc_kernelrun_result_json(result, &run, &lim);
done:
	sc_kernelrun_result_release(&run);
	sc_buf_release(&path);
	sc_buf_release(&src);
	sc_buf_release(&job);
	return err;
}

int cmd_fixtures(int argc, char **argv)
{
	struct fixtures_opts opt = { "fixtures", "sm_90", NULL, false };
	const char *dir, *arch, *cache, *sub;
	bool json;
	int nargs, err, rc = SC_EXIT_OK;
	struct sc_fixture_list list = { 0 };
	struct sc_buf worker = SC_BUF_INIT, result = SC_BUF_INIT;

	if ((rc = sc_cmd_options(&fixtures_spec, &opt, argc, argv, &nargs)))
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	if (nargs != 1)
		return sc_cmd_usage_error("fixtures", "expected list, verify or lock");
	sub = argv[1];
	dir = opt.dir;
	arch = opt.arch;
	cache = opt.cache;
	json = opt.json;
	if (strcmp(sub, "list") && strcmp(sub, "verify") && strcmp(sub, "lock"))
		return sc_cmd_usage_error("fixtures", "unknown subcommand '%s'", sub);
	if ((err = sc_fixture_list(&list, dir)) < 0)
		return sc_cmd_fail(err);

	if (!strcmp(sub, "lock")) {
		if ((err = sc_fixture_lock_write(dir, &list)) < 0) {
			rc = sc_cmd_fail(err);
			goto done;
		}
		for (size_t i = 0; i < list.n; i++)
			sc_cmd_line(stdout, "%s  %s%s", list.items[i].hash, list.items[i].name,
			       list.items[i].pin == SC_PIN_OK ? "" : list.items[i].pin == SC_PIN_CHANGED ? " (re-pinned)" : " (new)");
		sc_cmd_line(stdout, "%zu fixtures pinned in %s/%s", list.n, dir, SC_FIXTURES_LOCK);
		goto done;
	}
	if (!strcmp(sub, "list")) {
		if (json) {
			cJSON *a = cJSON_CreateArray();
			char *t;
			for (size_t i = 0; i < list.n; i++) {
				cJSON *o = cJSON_CreateObject();
				cJSON_AddStringToObject(o, "name", list.items[i].name);
				cJSON_AddStringToObject(o, "hash", list.items[i].hash);
				cJSON_AddStringToObject(o, "pin", pin_name(list.items[i].pin));
				cJSON_AddItemToArray(a, o);
			}
			t = cJSON_Print(a);
			{
				struct sc_buf esc = SC_BUF_INIT;  /* folder names */
				sc_escape_json(&esc, t, strlen(t));
				printf("%s\n", esc.ptr);
				sc_buf_release(&esc);
			}
			free(t);
			cJSON_Delete(a);
		} else {
			for (size_t i = 0; i < list.n; i++)
				sc_cmd_line(stdout, "%-14s %.12s  %s", list.items[i].name,
					    list.items[i].hash, pin_name(list.items[i].pin));
		}
		goto done;
	}

	/* verify */
	{
		size_t bad = 0;
		bool have_worker = sc_kernelrun_available() && sc_kernelrun_worker_path(&worker) == 0;
		if (!have_worker)
			fprintf(stderr, "warning: not built with CUDA: checking pins only; compiles are skipped\n");
		for (size_t i = 0; i < list.n; i++) {
			const struct sc_fixture *f = &list.items[i];
			if (f->pin != SC_PIN_OK) {
				sc_cmd_line(stdout, "%-14s %s: %s", f->name, pin_name(f->pin),
				       f->pin == SC_PIN_CHANGED ? "hash differs from fixtures.lock" : "not in fixtures.lock");
				bad++;
			}
			for (int w = 0; have_worker && w < 2; w++) {
				const char *which = w ? "solution.cu" : "baseline.cu";
				cJSON *r;
				const char *v;
				if ((err = check_source(&result, worker.ptr, f, which, arch, cache)) < 0) {
					rc = sc_cmd_fail(err);
					goto done;
				}
				r = cJSON_Parse(result.ptr);
				v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "verdict"));
				if (!v || (strcmp(v, "passed") && strcmp(v, "compiled"))) {
					sc_cmd_line(stdout, "%-14s %s: %s: %s", f->name, which, v ? v : "no result",
					       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "message")));
					bad++;
				} else {
					sc_cmd_line(stdout, "%-14s %s: %s", f->name, which,
					       !strcmp(v, "passed") ? "passes on every size and seed" : "compiles (no GPU: not run)");
				}
				cJSON_Delete(r);
			}
		}
		printf("%zu fixtures, %zu problems\n", list.n, bad);
		rc = bad ? SC_EXIT_GATE : SC_EXIT_OK;
	}
done:
	sc_fixture_list_release(&list);
	sc_buf_release(&worker);
	sc_buf_release(&result);
	return rc;
}
