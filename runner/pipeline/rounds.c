/*
 * Sequential sampling's rounds (see rounds.h and docs/evaluation.md,
 * "Sequential sampling").
 */
#include "common.h"
#include "eval/eval.h"
#include "pipeline/rounds.h"
#include "pipeline/sequential.h"
#include "results/results.h"

size_t sc_rounds_first(const struct sc_rounds *rd, bool *sent, struct sc_eval_unit_ref *round)
{
	int first = sc_seq_look_runs(rd->design, 1);
	size_t n = 0;

	for (size_t u = 0; u < rd->nrefs; u++) {
		const struct sc_eval_unit_ref *ref = &rd->refs[u];
		if (ref->run >= first || (rd->defer && rd->defer(ref, rd->payload)))
			continue;
		round[n++] = *ref;
		sent[u] = true;
	}
	return n;
}

size_t sc_rounds_next(const struct sc_rounds *rd, const struct sc_results *res, int k, bool *sent,
		      struct sc_eval_unit_ref *round)
{
	const struct sc_seq_design *d = rd->design;
	size_t n = 0;
	int to;

	if (k >= sc_seq_looks(d))
		return 0;
	to = sc_seq_look_runs(d, k + 1);
	for (size_t c = 0; c < rd->nchecks; c++) {
		const struct sc_rounds_check *ck = &rd->checks[c];
		struct sc_seq_outcome o;
		sc_seq_replay_of(&o, res, ck->skill, ck->model, ck->base, ck->head, d);
		if (o.decision != SC_SEQ_OPEN || !o.more || o.look != k)
			continue;
		for (size_t u = 0; u < rd->nrefs; u++)
			if (!sent[u] && rd->check_of[u] == c && rd->refs[u].run < to) {
				round[n++] = rd->refs[u];
				sent[u] = true;
			}
	}
	return n;
}

static void add_stats(struct sc_eval_stats *sum, const struct sc_eval_stats *s)
{
	sum->decided += s->decided;
	sum->evaluated += s->evaluated;
	sum->reused += s->reused;
	sum->requests += s->requests;
	sum->cache_hits += s->cache_hits;
	sum->stopped |= s->stopped;
	sum->any_kernel |= s->any_kernel;
}

int sc_rounds_run(struct sc_results *res, struct sc_rounds_stats *out, const struct sc_rounds *rd)
{
	struct sc_eval_unit_ref *round = sc_xcalloc(rd->nrefs ? rd->nrefs : 1, sizeof(*round));
	bool *sent = sc_xcalloc(rd->nrefs ? rd->nrefs : 1, sizeof(*sent));
	size_t nround;
	int err = 0;

	memset(out, 0, sizeof(*out));
	nround = sc_rounds_first(rd, sent, round);
	for (int k = 1; nround; k++) {
		struct sc_eval_stats st;
		err = sc_eval_run_units(res, &st, rd->skills, rd->nskills, round, nround, rd->eopt);
		add_stats(&out->eval, &st);
		out->sent += nround;
		out->rounds = k;
		if (err < 0 || st.stopped)
			break;
		nround = sc_rounds_next(rd, res, k, sent, round);
	}
	free(round);
	free(sent);
	return err;
}
