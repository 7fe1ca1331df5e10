/*
 * skillci kernel FIXTURE FILE: checks one candidate kernel (a .cu file or a
 * Markdown answer) against a pinned fixture in the sandboxed worker and
 * prints a verdict a person can act on (or the result JSON with --json).
 * Exit: 0 passed, or compiled where there is no GPU (correctness and speed
 * reported as skipped); 1 failed or flagged; 2 bad usage, unknown or
 * unpinned fixture, no kernel in the answer; 3 no worker ("not built with
 * CUDA") or a worker/GPU infrastructure error.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "kernelrun/extract.h"
#include "kernelrun/fixture.h"
#include "kernelrun/kernelrun.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: skillci kernel FIXTURE FILE [--json] [--arch sm_90] [--fixtures DIR]\n"
		   "                      [--allow-unpinned] [--compile-only] [--no-timing]\n"
		   "                      [--seeds N] [--timeout S] [--cache DIR]\n\n"
		   "Checks one CUDA kernel (FILE: a .cu file, or a Markdown answer with a ```cuda\n"
		   "block) against fixtures/FIXTURE: compile with NVRTC, verify against the CPU\n"
		   "reference on every size and seed, time against the baseline (with a GPU).\n"
		   "exit: 0 passed (or compiled, without a GPU), 1 failed or flagged, 2 bad input,\n"
		   "3 not built with CUDA or infrastructure failure.\n");
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(it) ? it->valuestring : "";
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(it) ? it->valuedouble : 0;
}

/* Prints the human-readable verdict from a result document. */
static void print_human(const cJSON *r, const char *fixture, const char *file)
{
	const char *verdict = str(r, "verdict");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "compile");
	const cJSON *scan = cJSON_GetObjectItemCaseSensitive(r, "scan"), *f;
	const cJSON *corr = cJSON_GetObjectItemCaseSensitive(r, "correctness");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, "timing");
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(r, "device");
	const cJSON *sb = cJSON_GetObjectItemCaseSensitive(r, "sandbox");
	const cJSON *ko = cJSON_GetObjectItemCaseSensitive(r, "kernel_output");
	char up[16];
	size_t i;

	for (i = 0; verdict[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)(verdict[i] >= 'a' && verdict[i] <= 'z' ? verdict[i] - 32 : verdict[i]);
	up[i] = '\0';
	printf("%s %s: %s", fixture, file, up);
	if (*str(r, "reason") && strcmp(str(r, "reason"), "none"))
		printf(" (%s)", str(r, "reason"));
	printf("\n  %s\n", str(r, "message"));
	if (cJSON_IsObject(c)) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "ok")))
			printf("  compile: %s, NVRTC %s, %.0f registers, %.0f B spilled, %.0f B shared, %s\n",
			       str(c, "arch"), str(c, "nvrtc"), num(c, "registers"), num(c, "spill_stores"),
			       num(c, "shared_bytes"),
			       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "cached")) ? "cached" : "compiled now");
		else
			printf("  compiler log:\n%s\n", str(c, "log"));
		if (*str(c, "cache_note"))
			printf("  cache: %s\n", str(c, "cache_note"));
		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c, "confined")))
			printf("  compiler jail: none (%s)\n", str(c, "confine_why"));
	}
	cJSON_ArrayForEach(f, scan)
		printf("  scan: line %.0f: %s (%s): %s\n", num(f, "line"), str(f, "kind"), str(f, "severity"),
		       str(f, "text"));
	if (cJSON_IsObject(corr)) {
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(corr, "worst");
		if (!strcmp(str(corr, "status"), "skipped"))
			printf("  correctness: skipped (%s)\n", str(corr, "reason"));
		else
			printf("  correctness: %s after %.0f launches (%.0f sizes x %.0f distributions x %.0f seeds)\n",
			       str(corr, "status"), num(corr, "launches"), num(corr, "sizes"),
			       num(corr, "distributions"), num(corr, "seeds"));
		if (cJSON_IsObject(w))
			printf("  worst element: %s[%.0f], error %.3g against tolerance %.3g\n", str(w, "param"),
			       num(w, "index"), num(w, "error"), num(w, "tolerance"));
	}
	if (cJSON_IsObject(t)) {
		const cJSON *tc = cJSON_GetObjectItemCaseSensitive(t, "candidate");
		const cJSON *tb = cJSON_GetObjectItemCaseSensitive(t, "baseline");
		if (!strcmp(str(t, "status"), "skipped"))
			printf("  timing: skipped (%s)\n", str(t, "reason"));
		else if (cJSON_IsObject(tc))
			printf("  timing: %.4f ms (IQR %.4f, %.0f reps) vs baseline %.4f ms (IQR %.4f): %.2fx speedup, %.0f GB/s, %.0f%% of peak%s\n",
			       num(tc, "median_ms"), num(tc, "iqr_ms"), num(tc, "reps"), num(tb, "median_ms"),
			       num(tb, "iqr_ms"), num(t, "speedup"), num(t, "gbps"), num(t, "pct_peak"),
			       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "suspect")) ? " (SUSPECT)" : "");
	}
	if (cJSON_IsObject(dev) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(dev, "gpu")))
		printf("  device: %s, driver %.0f\n", str(dev, "name"), num(dev, "driver"));
	if (cJSON_IsObject(ko)) {
		const char *text = str(ko, "text");
		int lines = 0;
		printf("  kernel output (%.0f bytes of device printf%s; never parsed):\n", num(ko, "bytes"),
		       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ko, "truncated")) ? ", shown truncated" : "");
		while (*text && lines < 10) {
			size_t n = strcspn(text, "\n");
			printf("    | %.*s\n", (int)(n < 200 ? n : 200), text);
			text += n + (text[n] == '\n');
			lines++;
		}
		if (*text)
			printf("    | ...\n");
	}
	if (cJSON_IsObject(sb))
		printf("  sandbox: empty environment, wall limit %.0f s, network namespace %s\n", num(sb, "wall_limit_s"),
		       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sb, "network_namespace")) ? "yes" : "no (not permitted here)");
}

int cmd_kernel(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "arch", required_argument, NULL, 'a' },
		{ "fixtures", required_argument, NULL, 'f' },
		{ "allow-unpinned", no_argument, NULL, 'u' },
		{ "compile-only", no_argument, NULL, 'o' },
		{ "no-timing", no_argument, NULL, 'n' },
		{ "seeds", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "cache", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *arch = "sm_90", *fixtures = "fixtures", *cache = ".skillci/cache/kernels";
	bool json = false, allow = false, compile_only = false, timing = true;
	int seeds = 5, wall = 300, c, rc = SC_EXIT_OK, err;
	struct sc_fixture_list list = { 0 };
	struct sc_buf answer = SC_BUF_INIT, src = SC_BUF_INIT, job = SC_BUF_INIT, worker = SC_BUF_INIT,
		      result = SC_BUF_INIT, spec_path = SC_BUF_INIT, spec_text = SC_BUF_INIT;
	struct sc_kernelrun_result run = { 0 };
	struct sc_kernelrun_limits lim;
	const struct sc_fixture *fx;
	cJSON *spec = NULL, *r = NULL;
	const char *verdict, *file;
	char abs_cache[4096];

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'a': arch = optarg; break;
		case 'f': fixtures = optarg; break;
		case 'u': allow = true; break;
		case 'o': compile_only = true; break;
		case 'n': timing = false; break;
		case 's': seeds = atoi(optarg); break;
		case 't': wall = atoi(optarg); break;
		case 'C': cache = optarg; break;
		case 'h': usage(stdout); return 0;
		default: return sc_cmd_usage_error("kernel", "unknown option");
		}
	}
	if (argc - optind != 2)
		return sc_cmd_usage_error("kernel", "expected FIXTURE and FILE");
	if (seeds < 1 || seeds > 100 || wall < 1)
		return sc_cmd_usage_error("kernel", "--seeds must be 1..100 and --timeout positive");
	if (strncmp(arch, "sm_", 3) || strlen(arch) > 8)
		return sc_cmd_usage_error("kernel", "--arch must be a real architecture such as sm_90");
	file = argv[optind + 1];

	if ((err = sc_fixture_list(&list, fixtures)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	if (!(fx = sc_fixture_find(&list, argv[optind]))) {
		sc_error_set(SC_ENOTFOUND, "no fixture '%s' in '%s' (see 'skillci fixtures list')", argv[optind], fixtures);
		rc = sc_cmd_fail(SC_EINVAL);
		goto done;
	}
	if ((err = sc_fixture_require_pinned(fx, allow)) < 0) {
		rc = sc_cmd_fail(SC_EINVAL);
		goto done;
	}
	if (!sc_kernelrun_available()) {
		fprintf(stderr, "error: not built with CUDA: skillci kernel needs the skillci-kernel worker, built where the CUDA toolkit (NVRTC) is installed\n");
		rc = SC_EXIT_INFRA;
		goto done;
	}
	if ((err = sc_kernelrun_worker_path(&worker)) < 0) {
		sc_cmd_fail(err);
		rc = SC_EXIT_INFRA;
		goto done;
	}

	/* The entry point, for extraction, from the spec. */
	sc_path_join(&spec_path, fx->dir, "spec.json");
	if ((err = sc_read_file(&spec_text, spec_path.ptr, SC_MAX_JSON_BYTES)) < 0 ||
	    (err = sc_read_file(&answer, file, SC_MAX_FILE_BYTES)) < 0) {
		rc = sc_cmd_fail(SC_EINVAL);
		goto done;
	}
	spec = cJSON_ParseWithLength(spec_text.ptr, spec_text.len);
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(spec, "entry"))) {
		sc_error_set(SC_EPARSE, "%s: no \"entry\"", spec_path.ptr);
		rc = sc_cmd_fail(SC_EINVAL);
		goto done;
	}
	if ((err = sc_extract_kernel(&src, answer.ptr, answer.len, str(spec, "entry"),
				     sc_ends_with(file, ".cu") || sc_ends_with(file, ".cuh"), NULL)) < 0) {
		sc_error_wrap(err, "%s", file);
		rc = sc_cmd_fail(SC_EINVAL);
		goto done;
	}
	{
		struct sc_kernel_job kj = { fx->dir, fx->name, fx->hash, src.ptr, src.len, timing && !compile_only,
					    compile_only, arch, cache, seeds, 10000 };
		/* The worker runs in its own temp folder: the cache path must be absolute. */
		if (cache && sc_mkdir_p(cache) == 0 && realpath(cache, abs_cache))
			kj.cache_dir = abs_cache;
		else
			kj.cache_dir = NULL;
		if ((err = sc_kernel_job_json(&job, &kj)) < 0) {
			rc = sc_cmd_fail(err);
			goto done;
		}
	}
	lim.wall_s = wall;
	lim.cpu_s = wall;
	lim.limit_as = compile_only;
	if ((err = sc_kernelrun(&run, worker.ptr, job.ptr, &lim)) < 0) {
		rc = sc_cmd_fail(SC_EGPU);
		goto done;
	}
	sc_kernelrun_result_json(&result, &run, &lim);
	r = cJSON_Parse(result.ptr);
	verdict = str(r, "verdict");
	if (json)
		printf("%s\n", result.ptr);
	else
		print_human(r, fx->name, file);
	if (!strcmp(verdict, "passed") || !strcmp(verdict, "compiled"))
		rc = SC_EXIT_OK;
	else if (!strcmp(verdict, "error"))
		rc = SC_EXIT_INFRA;
	else
		rc = SC_EXIT_GATE;
done:
	cJSON_Delete(spec);
	cJSON_Delete(r);
	sc_kernelrun_result_release(&run);
	sc_fixture_list_release(&list);
	sc_buf_release(&answer);
	sc_buf_release(&src);
	sc_buf_release(&job);
	sc_buf_release(&worker);
	sc_buf_release(&result);
	sc_buf_release(&spec_path);
	sc_buf_release(&spec_text);
	return rc;
}
