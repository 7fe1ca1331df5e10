/*
 * Benchmark driver for the provider scheduler: submits N distinct requests
 * to MODEL through one struct sc_client bounded at CONCURRENCY in flight
 * (cache off), runs them to completion and prints wall time, CPU time per
 * request, peak RSS and the provider counters. Endpoints and keys come
 * from the environment as usual (the bench script points them at the fake).
 *
 *   bench_providers MODEL N CONCURRENCY
 */
#include "common.h"
#include "net/http.h"
#include "providers/provider.h"

#include <sys/resource.h>

struct tally {
	long ok, failed;
};

static void on_done(struct sc_chat_response *r, void *payload)
{
	struct tally *t = payload;
	if (r->error_class == SC_CHAT_OK)
		t->ok++;
	else
		t->failed++;
}

static double tv_seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct sc_client_options opt;
	struct sc_client *c = NULL;
	struct sc_provider_stats st;
	struct sc_model m;
	struct tally t = { 0, 0 };
	struct rusage ru;
	struct sc_buf prompt = SC_BUF_INIT;
	int64_t t0, t1;
	long n, conc;

	if (argc != 4 || (n = atol(argv[2])) < 1 || (conc = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: bench_providers MODEL N CONCURRENCY\n");
		return 2;
	}
	sc_log_init_from_env();
	if (sc_http_global_init() < 0 || sc_model_parse(&m, argv[1]) < 0) {
		fprintf(stderr, "error: %s\n", sc_error_last());
		return 2;
	}
	sc_client_options_init(&opt);
	opt.max_total = (int)conc;
	opt.max_per_provider = (int)conc;
	if (sc_client_new(&c, &opt) < 0)
		return 3;
	t0 = sc_now_ms();
	for (long i = 0; i < n; i++) {
		struct sc_chat_message msg = { SC_CHAT_USER, NULL };
		struct sc_chat_request req = { .model = argv[1], .messages = &msg, .nmessages = 1,
					       .max_tokens = 64, .temperature = -1 };
		sc_buf_clear(&prompt);
		sc_buf_printf(&prompt, "request %ld: say something short", i);
		msg.content = prompt.ptr;
		if (sc_client_submit(c, &req, on_done, &t) < 0) {
			fprintf(stderr, "error: %s\n", sc_error_last());
			return 2;
		}
	}
	if (sc_client_run(c) < 0) {
		fprintf(stderr, "error: %s\n", sc_error_last());
		return 3;
	}
	t1 = sc_now_ms();
	sc_client_stats(c, m.kind, &st);
	getrusage(RUSAGE_SELF, &ru);
	printf("requests          %ld (ok %ld, failed %ld)\n", n, t.ok, t.failed);
	printf("wall_s            %.3f\n", (double)(t1 - t0) / 1000.0);
	printf("cpu_s             %.3f (user %.3f, sys %.3f)\n",
	       tv_seconds(ru.ru_utime) + tv_seconds(ru.ru_stime), tv_seconds(ru.ru_utime),
	       tv_seconds(ru.ru_stime));
	printf("cpu_us_per_req    %.1f\n",
	       (tv_seconds(ru.ru_utime) + tv_seconds(ru.ru_stime)) * 1e6 / (double)n);
	printf("peak_rss_mb       %.1f\n", (double)ru.ru_maxrss / 1024.0);
	printf("max_in_flight     %d\n", st.max_in_flight);
	printf("http_attempts     %lld (retries %lld)\n", (long long)st.http_attempts,
	       (long long)st.retries);
	sc_client_free(c);
	sc_model_release(&m);
	sc_buf_release(&prompt);
	sc_http_global_shutdown();
	return t.failed ? 3 : 0;
}
