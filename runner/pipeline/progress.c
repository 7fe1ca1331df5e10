/*
 * Progress lines for `skillci run` (see progress.h).
 */
#include "common.h"
#include "pipeline/progress.h"

#define DEFAULT_INTERVAL_MS 10000

void sc_progress_init(struct sc_progress *p, FILE *out, bool tty, size_t total)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->tty = tty;
	p->interval_ms = DEFAULT_INTERVAL_MS;
	p->t0_ms = p->last_ms = sc_now_ms();
	p->total = total;
	pthread_mutex_init(&p->lock, NULL);
}

void sc_progress_release(struct sc_progress *p)
{
	pthread_mutex_destroy(&p->lock);
}

/* "1:05", "1:02:03". */
static void duration(struct sc_buf *out, int64_t ms)
{
	int64_t s = ms < 0 ? 0 : ms / 1000;

	if (s >= 3600)
		sc_buf_printf(out, "%lld:%02lld:%02lld", (long long)(s / 3600),
			      (long long)(s / 60 % 60), (long long)(s % 60));
	else
		sc_buf_printf(out, "%lld:%02lld", (long long)(s / 60), (long long)(s % 60));
}

void sc_progress_format(struct sc_buf *out, const struct sc_progress *p, int64_t now_ms)
{
	int64_t elapsed = now_ms - p->t0_ms;
	size_t evaluated = p->done - (p->reused < p->done ? p->reused : p->done);

	sc_buf_printf(out, "[%zu/%zu] %3.0f%%", p->done, p->total,
		      p->total ? 100.0 * (double)p->done / (double)p->total : 100.0);
	sc_buf_printf(out, " | %zu in flight | %zu kernel worker%s | %zu cache hit%s | %zu reused",
		      p->in_flight, p->workers, p->workers == 1 ? "" : "s", p->cache_hits,
		      p->cache_hits == 1 ? "" : "s", p->reused);
	if (p->errors)
		sc_buf_printf(out, " | %zu error%s", p->errors, p->errors == 1 ? "" : "s");
	sc_buf_puts(out, " | ");
	duration(out, elapsed);
	sc_buf_puts(out, " elapsed");
	if (evaluated > 0 && p->done < p->total) {
		double per = (double)elapsed / (double)evaluated;
		sc_buf_puts(out, " | ETA ");
		duration(out, (int64_t)(per * (double)(p->total - p->done)));
	}
}

/* Draws (TTY) or prints (plain, when the interval has passed or force). */
static void show(struct sc_progress *p, bool force)
{
	struct sc_buf line = SC_BUF_INIT;
	int64_t now = sc_now_ms();

	if (!p->out)
		return;
	if (!p->tty && !force && now - p->last_ms < p->interval_ms)
		return;
	p->last_ms = now;
	sc_progress_format(&line, p, now);
	if (p->tty) {
		fprintf(p->out, "\r\033[K%s", line.ptr);
		p->drawn = true;
	} else {
		fprintf(p->out, "progress: %s\n", line.ptr);
	}
	fflush(p->out);
	sc_buf_release(&line);
}

void sc_progress_activity(struct sc_progress *p, size_t in_flight, size_t kernel_workers,
			  size_t cache_hits)
{
	pthread_mutex_lock(&p->lock);
	p->in_flight = in_flight;
	p->workers = kernel_workers;
	p->cache_hits = cache_hits;
	show(p, false);
	pthread_mutex_unlock(&p->lock);
}

void sc_progress_unit(struct sc_progress *p, bool reused, bool error)
{
	pthread_mutex_lock(&p->lock);
	p->done++;
	p->reused += reused;
	p->errors += error;
	show(p, false);
	pthread_mutex_unlock(&p->lock);
}

void sc_progress_finish(struct sc_progress *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->tty) {
		if (p->drawn && p->out)
			fprintf(p->out, "\r\033[K");
		p->drawn = false;
	} else {
		show(p, true);
	}
	pthread_mutex_unlock(&p->lock);
}
