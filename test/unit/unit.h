/*-------------------------------------------------------------------------
 *
 * unit.h
 *		A minimal test harness for the plain-C unit tests.
 *
 * CHECK(cond) records a pass or a failure (with file and line); each test
 * program ends with unit_summary(), which prints "N passed, N failed" and
 * returns the exit status.
 *
 *-------------------------------------------------------------------------
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <string.h>

static int	unit_passed = 0;
static int	unit_failed = 0;

#define CHECK(cond) \
	do { \
		if (cond) \
			unit_passed++; \
		else \
		{ \
			unit_failed++; \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		} \
	} while (0)

/* Compare a NUL-terminated actual string to an expected one. */
#define CHECK_STR(actual, expected) \
	do { \
		const char *a_ = (actual); \
		const char *e_ = (expected); \
		if (a_ != NULL && strcmp(a_, e_) == 0) \
			unit_passed++; \
		else \
		{ \
			unit_failed++; \
			fprintf(stderr, "%s:%d: expected \"%s\", got \"%s\"\n", __FILE__, __LINE__, e_, a_ ? a_ : "(null)"); \
		} \
	} while (0)

static inline int
unit_summary(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed);
	return unit_failed == 0 ? 0 : 1;
}

#endif							/* UNIT_H */
