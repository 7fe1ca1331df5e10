#ifndef SC_REPORT_TERM_H
#define SC_REPORT_TERM_H
/*
 * The terminal summary (upskill style): per skill × model, one bar per
 * variant ("baseline ████░░░░░░ 40%"), the deltas, and a closing verdict
 * line. With colour off (stdout not a TTY, or NO_COLOR set) the text has
 * no escape sequences at all.
 */
#include <stdbool.h>

struct sc_buf;
struct sc_results;

/* Appends the summary of r to out. */
void sc_report_term(struct sc_buf *out, const struct sc_results *r, bool colour);
/* Whether to colour a stream: a TTY and NO_COLOR unset or empty. */
bool sc_report_term_want_colour(int fd);

#endif
