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
#include "json.h"
#include "cmd/cmd.h"
#include "escape.h"
#include "kernelrun/extract.h"
#include "kernelrun/fixture.h"
#include "kernelrun/kernelrun.h"

#include <limits.h>
#include <stdlib.h>

struct kernel_opts {
	const char *arch, *fixtures, *cache;
	bool json, allow_unpinned, compile_only, no_timing;
	int seeds, timeout;
};

static const struct sc_option kernel_table[] = {
	SC_OPT_FLAG("json", 0, struct kernel_opts, json, "the result document (docs/kernels.md)"),
	SC_OPT_STRING("arch", 0, struct kernel_opts, arch, "ARCH",
		      "a real GPU architecture: NVRTC emits a cubin (default sm_90)"),
	SC_OPT_STRING("fixtures", 0, struct kernel_opts, fixtures, "DIR",
		      "kernel fixtures (default fixtures)"),
	SC_OPT_FLAG("allow-unpinned", 0, struct kernel_opts, allow_unpinned,
		    "accept a fixture missing from or changed since fixtures.lock"),
	SC_OPT_FLAG("compile-only", 0, struct kernel_opts, compile_only,
		    "compile and scan only, even when a GPU is present"),
	SC_OPT_FLAG("no-timing", 0, struct kernel_opts, no_timing, "check correctness, do not time"),
	SC_OPT_INT("seeds", 0, struct kernel_opts, seeds, 1, 100, "N",
		   "seeds per size and distribution (default 5)"),
	SC_OPT_INT("timeout", 0, struct kernel_opts, timeout, 1, 86400, "S",
		   "the worker's wall-clock limit in seconds (default 300)"),
	SC_OPT_STRING("cache", 0, struct kernel_opts, cache, "DIR",
		      "cubin cache (default .skillci/cache/kernels)"),
	SC_OPT_END,
};

static const struct sc_options kernel_spec = {
	"kernel", "FIXTURE FILE",
	"Checks one CUDA kernel (FILE: a .cu file, or a Markdown answer with a ```cuda\n"
	"block) against fixtures/FIXTURE: compile with NVRTC, verify against the CPU\n"
	"reference on every size and seed, time against the baseline (with a GPU).",
	"exit: 0 passed (or compiled, without a GPU), 1 failed or flagged, 2 bad input,\n"
	"3 not built with CUDA or infrastructure failure.\n",
	kernel_table, 0,
};

/* A string member, "" when absent; a number member, 0 when absent. */
#define STR(o, k) sc_json_str_or(o, k, "")
#define NUM(o, k) sc_json_num_or(o, k, 0)

/* Prints the human-readable verdict from a result document. */
static void print_human(const cJSON *r, const char *fixture, const char *file)
{
	const char *verdict = STR(r, "verdict");
	const cJSON *c = sc_json_member(r, "compile");
	const cJSON *scan = sc_json_member(r, "scan"), *f;
	const cJSON *corr = sc_json_member(r, "correctness");
	const cJSON *t = sc_json_member(r, "timing");
	const cJSON *dev = sc_json_member(r, "device");
	const cJSON *sb = sc_json_member(r, "sandbox");
	const cJSON *ko = sc_json_member(r, "kernel_output");
	struct sc_buf o = SC_BUF_INIT;
	char up[16];
	size_t i;

	for (i = 0; verdict[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)(verdict[i] >= 'a' && verdict[i] <= 'z' ? verdict[i] - 32 : verdict[i]);
	up[i] = '\0';
	sc_escape_log(&o, fixture);  /* one line, whatever the names hold */
	sc_buf_putc(&o, ' ');
	sc_escape_log(&o, file);
	sc_buf_printf(&o, ": %s", up);
	if (*STR(r, "reason") && strcmp(STR(r, "reason"), "none"))
		sc_buf_printf(&o, " (%s)", STR(r, "reason"));
	sc_buf_printf(&o, "\n  %s\n", STR(r, "message"));
	if (cJSON_IsObject(c)) {
		if (sc_json_bool_or(c, "ok", false))
			sc_buf_printf(&o, "  compile: %s, NVRTC %s, %.0f registers, %.0f B spilled, %.0f B shared, %s\n",
			       STR(c, "arch"), STR(c, "nvrtc"), NUM(c, "registers"),
			       NUM(c, "spill_stores"), NUM(c, "shared_bytes"),
			       sc_json_bool_or(c, "cached", false) ? "cached" : "compiled now");
		else
			sc_buf_printf(&o, "  compiler log:\n%s\n", STR(c, "log"));
		if (*STR(c, "cache_note"))
			sc_buf_printf(&o, "  cache: %s\n", STR(c, "cache_note"));
		if (!sc_json_bool_or(c, "confined", true))
			sc_buf_printf(&o, "  compiler jail: none (%s)\n", STR(c, "confine_why"));
	}
	cJSON_ArrayForEach(f, scan)
		sc_buf_printf(&o, "  scan: line %.0f: %s (%s): %s\n", NUM(f, "line"), STR(f, "kind"),
		       STR(f, "severity"), STR(f, "text"));
	if (cJSON_IsObject(corr)) {
		const cJSON *w = sc_json_member(corr, "worst");
		if (!strcmp(STR(corr, "status"), "skipped"))
			sc_buf_printf(&o, "  correctness: skipped (%s)\n", STR(corr, "reason"));
		else
			sc_buf_printf(&o, "  correctness: %s after %.0f launches (%.0f sizes x %.0f distributions x %.0f seeds)\n",
			       STR(corr, "status"), NUM(corr, "launches"), NUM(corr, "sizes"),
			       NUM(corr, "distributions"), NUM(corr, "seeds"));
		if (cJSON_IsObject(w))
			sc_buf_printf(&o, "  worst element: %s[%.0f], error %.3g against tolerance %.3g\n",
			       STR(w, "param"), NUM(w, "index"), NUM(w, "error"),
			       NUM(w, "tolerance"));
	}
	if (cJSON_IsObject(t)) {
		const cJSON *tc = sc_json_member(t, "candidate");
		const cJSON *tb = sc_json_member(t, "baseline");
		if (!strcmp(STR(t, "status"), "skipped"))
			sc_buf_printf(&o, "  timing: skipped (%s)\n", STR(t, "reason"));
		else if (cJSON_IsObject(tc))
			sc_buf_printf(&o, "  timing: %.4f ms (IQR %.4f, %.0f reps) vs baseline %.4f ms "
			       "(IQR %.4f): %.2fx speedup, %.0f GB/s, %.0f%% of peak%s\n",
			       NUM(tc, "median_ms"), NUM(tc, "iqr_ms"), NUM(tc, "reps"),
			       NUM(tb, "median_ms"), NUM(tb, "iqr_ms"), NUM(t, "speedup"),
			       NUM(t, "gbps"), NUM(t, "pct_peak"),
			       sc_json_bool_or(t, "suspect", false) ? " (SUSPECT)" : "");
		if (cJSON_IsObject(sc_json_member(t, "strong_reference"))) {
			const cJSON *s = sc_json_member(t, "strong_reference");
			if (!strcmp(STR(s, "status"), "done"))
				sc_buf_printf(&o, "  strong reference: %s, %.4f ms: %.2fx\n", STR(s, "name"), NUM(s, "median_ms"),
				       NUM(s, "speedup"));
			else
				sc_buf_printf(&o, "  strong reference: %s (%s: %s)\n", STR(s, "name"), STR(s, "status"), STR(s, "why"));
		}
	}
	if (sc_json_bool_or(dev, "gpu", false))
		sc_buf_printf(&o, "  device: %s, driver %.0f\n", STR(dev, "name"), NUM(dev, "driver"));
	if (cJSON_IsObject(ko)) {
		const char *text = STR(ko, "text");
		int lines = 0;
		sc_buf_printf(&o, "  kernel output (%.0f bytes of device printf%s; never parsed):\n",
		       NUM(ko, "bytes"),
		       sc_json_bool_or(ko, "truncated", false) ? ", shown truncated" : "");
		while (*text && lines < 10) {
			size_t n = strcspn(text, "\n");
			sc_buf_printf(&o, "    | %.*s\n", (int)(n < 200 ? n : 200), text);
			text += n + (text[n] == '\n');
			lines++;
		}
		if (*text)
			sc_buf_printf(&o, "    | ...\n");
	}
	if (cJSON_IsObject(sb))
		sc_buf_printf(&o, "  sandbox: empty environment, wall limit %.0f s, network namespace %s\n",
		       NUM(sb, "wall_limit_s"),
		       sc_json_bool_or(sb, "network_namespace", false) ? "yes"
								 : "no (not permitted here)");
	/* names, messages, the compiler's log and the kernel's own output
	 * quote the candidate: each line escaped for the terminal */
	sc_cmd_text(stdout, o.ptr);
	sc_buf_release(&o);
}

int cmd_kernel(int argc, char **argv)
{
	struct kernel_opts o = { "sm_90", "fixtures", ".skillci/cache/kernels", false, false, false,
				 false, 5, 300 };
	int nargs, rc = SC_EXIT_OK, err;
	struct sc_fixture_list list = { 0 };
	struct sc_buf answer = SC_BUF_INIT, src = SC_BUF_INIT, job = SC_BUF_INIT, worker = SC_BUF_INIT,
		      result = SC_BUF_INIT, entry = SC_BUF_INIT;
	struct sc_kernelrun_result run = { 0 };
	struct sc_kernelrun_limits lim;
	const struct sc_fixture *fx;
	cJSON *r = NULL;
	const char *verdict, *file;
	char abs_cache[4096];

	if ((rc = sc_cmd_options(&kernel_spec, &o, argc, argv, &nargs)))
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	if (nargs != 2)
		return sc_cmd_usage_error("kernel", "expected FIXTURE and FILE");
	if (strncmp(o.arch, "sm_", 3) || strlen(o.arch) > 8)
		return sc_cmd_usage_error("kernel", "--arch must be a real architecture such as sm_90");
	file = argv[2];

	if ((err = sc_fixture_list(&list, o.fixtures)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	if (!(fx = sc_fixture_find(&list, argv[1]))) {
		sc_error_set(SC_ENOTFOUND, "no fixture '%s' in '%s' (see 'skillci fixtures list')", argv[1], o.fixtures);
		rc = sc_cmd_fail(SC_EINVAL);
		goto done;
	}
	if ((err = sc_fixture_require_pinned(fx, o.allow_unpinned)) < 0) {
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
	if ((err = sc_fixture_entry(&entry, fx)) < 0 ||
	    (err = sc_read_file(&answer, file, SC_MAX_FILE_BYTES)) < 0) {
		rc = sc_cmd_fail(SC_EINVAL);
		goto done;
	}
	if ((err = sc_extract_kernel(&src, answer.ptr, answer.len, entry.ptr,
				     sc_ends_with(file, ".cu") || sc_ends_with(file, ".cuh"), NULL)) < 0) {
		sc_error_wrap(err, "%s", file);
		rc = sc_cmd_fail(SC_EINVAL);
		goto done;
	}
	{
		struct sc_kernel_job kj = { fx->dir, fx->name, fx->hash, src.ptr, src.len, !o.no_timing && !o.compile_only,
					    o.compile_only, o.arch, o.cache, o.seeds, 10000, 0 };
		/* The worker runs in its own temp folder: the cache path must be absolute. */
		if (o.cache && sc_mkdir_p(o.cache) == 0 && realpath(o.cache, abs_cache))
			kj.cache_dir = abs_cache;
		else
			kj.cache_dir = NULL;
		if ((err = sc_kernel_job_json(&job, &kj)) < 0) {
			rc = sc_cmd_fail(err);
			goto done;
		}
	}
	lim.wall_s = o.timeout;
	lim.cpu_s = o.timeout;
	lim.limit_as = o.compile_only;
	if ((err = sc_kernelrun(&run, worker.ptr, job.ptr, &lim)) < 0) {
		rc = sc_cmd_fail(SC_EGPU);
		goto done;
	}
	sc_kernelrun_result_json(&result, &run, &lim);
	r = cJSON_Parse(result.ptr);
	verdict = STR(r, "verdict");
	if (o.json) {
		struct sc_buf esc = SC_BUF_INIT;
		sc_escape_json(&esc, result.ptr, result.len);
		printf("%s\n", esc.ptr);
		sc_buf_release(&esc);
	}
	else
		print_human(r, fx->name, file);
	{
		enum sc_kernel_verdict kv;
		if (!sc_kernelrun_verdict(&kv, verdict, STR(r, "reason")))
			rc = SC_EXIT_INFRA;
		else
			rc = kv == SC_KV_PASSED || kv == SC_KV_COMPILED ? SC_EXIT_OK : SC_EXIT_GATE;
	}
done:
	cJSON_Delete(r);
	sc_kernelrun_result_release(&run);
	sc_fixture_list_release(&list);
	sc_buf_release(&answer);
	sc_buf_release(&src);
	sc_buf_release(&job);
	sc_buf_release(&worker);
	sc_buf_release(&result);
	sc_buf_release(&entry);
	return rc;
}
