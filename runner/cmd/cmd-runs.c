/*
 * skillci runs: history from the results store, as upskill's `runs`: per
 * model, bars of the latest baseline and with-skill numbers for each skill;
 * the skill x model matrix; every run in time order; --csv writes every
 * aggregate of every run.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "reporters/report_fmt.h"
#include "results/store.h"

#include <math.h>
#include <unistd.h>


enum metric { M_SUCCESS, M_TOKENS, M_SPEEDUP };

static double value_of(const struct sc_store_aggregate *a, enum metric m)
{
	switch (m) {
	case M_TOKENS: return a->mean_tokens;
	case M_SPEEDUP: return a->speedup_geomean;
	default: return a->pass_rate;
	}
}

static void fmt_value(struct sc_buf *out, double v, enum metric m)
{
	if (isnan(v))
		sc_buf_puts(out, "-");
	else if (m == M_SUCCESS)
		sc_buf_printf(out, "%.0f%%", v * 100.0);
	else if (m == M_TOKENS)
		sc_buf_printf(out, "%.0f", v);
	else
		sc_buf_printf(out, "%.2fx", v);
}

struct runs_opts {
	const char *skill, *model, *csv, *store;
	enum metric metric;
};

/* --metric M: success, tokens or speedup. */
static int metric_option(void *opts, const char *value)
{
	static const char *const names[] = { "success", "tokens", "speedup" };

	for (size_t i = 0; i < SC_ARRAY_SIZE(names); i++)
		if (!strcmp(value, names[i])) {
			((struct runs_opts *)opts)->metric = (enum metric)i;
			return 0;
		}
	return sc_error_set(SC_EINVAL, "unknown metric '%s' (success, tokens, speedup)", value);
}

static const struct sc_option runs_table[] = {
	SC_OPT_STRING("skill", 's', struct runs_opts, skill, "SKILL", "only this skill (path or name)"),
	SC_OPT_STRING("model", 'm', struct runs_opts, model, "MODEL",
		      "only this model (canonical name)"),
	SC_OPT_CALLBACK("metric", 0, metric_option, "success|tokens|speedup",
			"success (pass rate, default), tokens (mean per unit) or\n"
			"speedup (kernel geomean)"),
	SC_OPT_STRING("csv", 0, struct runs_opts, csv, "FILE",
		      "also write every aggregate of every run as CSV"),
	SC_OPT_STRING("store", 0, struct runs_opts, store, "LOCATION",
		      "results store: a SQLite file or postgresql://… (default\n"
		      "$" SC_STORE_ENV ", else " SC_STORE_DEFAULT_PATH ")"),
	SC_OPT_END,
};

static const struct sc_options runs_spec = {
	"runs", NULL, "Shows the evaluation history kept in the results store.",
	"exit: 0 done, 2 bad usage or no store, 3 store failure.\n", runs_table, 0,
};

/* The newest point for (skill, model, variant), or NULL. */
static const struct sc_store_point *latest(const struct sc_store_point *p, size_t n,
					   const char *skill, const char *model, const char *variant)
{
	const struct sc_store_point *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].agg.skill, skill) && !strcmp(p[i].agg.model, model) &&
		    !strcmp(p[i].agg.variant, variant))
			best = &p[i];  /* points are oldest first */
	return best;
}

/* Distinct values of one field, in first-seen order. */
static size_t distinct(const char **out, size_t max, const struct sc_store_point *p, size_t n,
		       bool model)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const char *v = model ? p[i].agg.model : p[i].agg.skill;
		bool seen = false;
		for (size_t j = 0; j < k; j++)
			seen |= !strcmp(out[j], v);
		if (!seen && k < max)
			out[k++] = v;
	}
	return k;
}

/* Skills are named by their path, as in every other report. The column
 * is as wide as the longest (24 to 64 characters). */
static int label_width(const char *const *skills, size_t n)
{
	size_t w = 24;

	for (size_t i = 0; i < n; i++)
		if (strlen(skills[i]) > w)
			w = strlen(skills[i]);
	return (int)(w > 64 ? 64 : w);
}

static void csv_field(struct sc_buf *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		sc_buf_puts(out, s);
		return;
	}
	sc_buf_putc(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			sc_buf_putc(out, '"');
		sc_buf_putc(out, *s);
	}
	sc_buf_putc(out, '"');
}

static void csv_num(struct sc_buf *out, double v)
{
	sc_buf_putc(out, ',');
	if (!isnan(v))
		sc_buf_printf(out, "%.17g", v);
}

static int write_csv(const char *path, const struct sc_store_point *p, size_t n)
{
	struct sc_buf b = SC_BUF_INIT;
	int err;

	sc_buf_puts(&b, "run_id,finished_at,skill,skill_name,model,variant,n,passed,failed,errors,"
		    "skipped,pass_rate,ci_low,ci_high,mean_tokens,mean_turns,speedup_geomean,"
		    "fast_1,fast_1_5,fast_2,judge_mean\n");
	for (size_t i = 0; i < n; i++) {
		const struct sc_store_aggregate *a = &p[i].agg;
		csv_field(&b, p[i].run_id);
		sc_buf_putc(&b, ',');
		csv_field(&b, p[i].finished_at);
		sc_buf_putc(&b, ',');
		csv_field(&b, a->skill);
		sc_buf_putc(&b, ',');
		csv_field(&b, a->skill_name);
		sc_buf_putc(&b, ',');
		csv_field(&b, a->model);
		sc_buf_putc(&b, ',');
		csv_field(&b, a->variant);
		sc_buf_printf(&b, ",%d,%d,%d,%d,%d", a->n, a->passed, a->failed, a->errors, a->skipped);
		csv_num(&b, a->pass_rate);
		csv_num(&b, a->ci_low);
		csv_num(&b, a->ci_high);
		csv_num(&b, a->mean_tokens);
		csv_num(&b, a->mean_turns);
		csv_num(&b, a->speedup_geomean);
		csv_num(&b, a->fast_1);
		csv_num(&b, a->fast_1_5);
		csv_num(&b, a->fast_2);
		csv_num(&b, a->judge_mean);
		sc_buf_putc(&b, '\n');
	}
	err = sc_write_file_atomic(path, b.ptr, b.len);
	sc_buf_release(&b);
	return err;
}

static void print_views(const struct sc_store_point *p, size_t n, enum metric m)
{
	const char *skills[256], *models[64];
	size_t ns = distinct(skills, SC_ARRAY_SIZE(skills), p, n, false);
	size_t nm = distinct(models, SC_ARRAY_SIZE(models), p, n, true);
	double scale = m == M_SUCCESS ? 1.0 : 0.0;
	int w = label_width(skills, ns);
	static const char *const variants[] = { "baseline", "base", "head" };
	static const char *const labels[] = { "baseline", "base", "with skill" };

	if (m != M_SUCCESS)
		for (size_t i = 0; i < n; i++) {
			double v = value_of(&p[i].agg, m);
			if (!isnan(v) && v > scale)
				scale = v;
		}

	/* Per-model bars of the latest numbers. */
	for (size_t j = 0; j < nm; j++) {
		sc_cmd_line(stdout, "%s", models[j]);
		for (size_t i = 0; i < ns; i++) {
			bool first = true;
			for (size_t v = 0; v < SC_ARRAY_SIZE(variants); v++) {
				const struct sc_store_point *pt = latest(p, n, skills[i], models[j], variants[v]);
				struct sc_buf line = SC_BUF_INIT, val = SC_BUF_INIT;
				if (!pt)
					continue;
				fmt_value(&val, value_of(&pt->agg, m), m);
				sc_buf_printf(&line, "  %-*s %-10s ", w, first ? skills[i] : "", labels[v]);
				sc_report_bar(&line, scale > 0 ? value_of(&pt->agg, m) / scale
							       : NAN);
				sc_buf_printf(&line, "  %6s", val.ptr);
				if (m == M_SUCCESS && pt->agg.n)
					sc_buf_printf(&line, "  [%.0f%%\u2013%.0f%%]", pt->agg.ci_low * 100,
						      pt->agg.ci_high * 100);
				sc_cmd_line(stdout, "%s", line.ptr);
				first = false;
				sc_buf_release(&line);
				sc_buf_release(&val);
			}
		}
		printf("\n");
	}

	/* The matrix: latest with-skill value (baseline in brackets). */
	{
		struct sc_buf head = SC_BUF_INIT;
		sc_buf_printf(&head, "%-*s", w, "skill \\ model");
		for (size_t j = 0; j < nm; j++)
			sc_buf_printf(&head, " %-22.22s", models[j]);
		sc_cmd_line(stdout, "%s", head.ptr);
		sc_buf_release(&head);
	}
	for (size_t i = 0; i < ns; i++) {
		struct sc_buf row = SC_BUF_INIT;  /* names from the store: escaped */
		sc_buf_printf(&row, "%-*s", w, skills[i]);
		for (size_t j = 0; j < nm; j++) {
			const struct sc_store_point *h = latest(p, n, skills[i], models[j], "head");
			const struct sc_store_point *b = latest(p, n, skills[i], models[j], "baseline");
			struct sc_buf cell = SC_BUF_INIT;
			fmt_value(&cell, h ? value_of(&h->agg, m) : NAN, m);
			if (b) {
				sc_buf_puts(&cell, " (");
				fmt_value(&cell, value_of(&b->agg, m), m);
				sc_buf_puts(&cell, ")");
			}
			sc_buf_printf(&row, " %-22s", cell.ptr);
			sc_buf_release(&cell);
		}
		sc_cmd_line(stdout, "%s", row.ptr);
		sc_buf_release(&row);
	}
	printf("(with skill; baseline in brackets; latest run)\n\n");

	/* Every run, oldest first. */
	printf("%-26s %-20s %-*s %-24s %-8s %8s %6s\n", "run", "finished", w, "skill", "model",
	       "variant", "value", "n");
	for (size_t i = 0; i < n; i++) {
		struct sc_buf val = SC_BUF_INIT;
		fmt_value(&val, value_of(&p[i].agg, m), m);
		sc_cmd_line(stdout, "%-26s %-20s %-*s %-24.24s %-8s %8s %6d", p[i].run_id,
			    p[i].finished_at ? p[i].finished_at : "-", w, p[i].agg.skill,
			    p[i].agg.model, p[i].agg.variant, val.ptr, p[i].agg.n);
		sc_buf_release(&val);
	}
}

int cmd_runs(int argc, char **argv)
{
	struct runs_opts o = { NULL, NULL, NULL, NULL, M_SUCCESS };
	const char *skill, *model, *csv;
	struct sc_store *store = NULL;
	struct sc_store_point *pts = NULL;
	size_t n = 0;
	const char *store_path;
	int nargs, err, rc = SC_EXIT_OK;

	if ((rc = sc_cmd_options(&runs_spec, &o, argc, argv, &nargs)))
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	if (nargs)
		return sc_cmd_usage_error("runs", "unexpected argument '%s'", argv[1]);
	skill = o.skill;
	model = o.model;
	csv = o.csv;
	store_path = sc_store_location(o.store, NULL);
	if ((rc = sc_cmd_open_store(&store, store_path, true)))
		goto done;
	if ((err = sc_store_history(store, &pts, &n, skill, model)) < 0) {
		rc = sc_cmd_fail(SC_EIO);
		goto done;
	}
	if (n == 0)
		sc_cmd_line(stdout, "no runs%s%s%s%s in '%s'", skill ? " for skill " : "",
			    skill ? skill : "", model ? " on model " : "", model ? model : "",
			    sc_store_path(store));
	else
		print_views(pts, n, o.metric);
	if (csv && (err = write_csv(csv, pts, n)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	if (csv)
		sc_cmd_line(stderr, "wrote %zu rows to %s", n, csv);
done:
	sc_store_points_free(pts, n);
	sc_store_free(store);
	return rc;
}
