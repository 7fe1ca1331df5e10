#ifndef SC_TEST_UNIT_H
#define SC_TEST_UNIT_H
/*
 * Included first by every cmocka test: the headers cmocka needs before it,
 * cmocka itself, skillci's common header, and scratch-folder helpers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common.h"

/* Creates a fresh scratch folder under $TMPDIR (or /tmp); returns a malloc'd path. */
char *sc_test_mkdtemp(void);
/* Writes a file under dir (parents created); aborts the test on failure. */
void sc_test_write(const char *dir, const char *rel, const char *content);

#endif
