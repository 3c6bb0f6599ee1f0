/*-------------------------------------------------------------------------
 *
 * number.h
 *		DynamoDB numbers: syntax, canonical form, comparison, arithmetic.
 *
 * DynamoDB numbers have up to 38 significant digits, and a magnitude that is
 * zero or between 1E-130 and 9.9999999999999999999999999999999999999E+125
 * (positive or negative).  They travel as strings.  stdesign stores every
 * number in canonical form, so that "007.50" is stored and returned as "7.5".
 *
 * Pure C: no backend needed.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_NUMBER_H
#define ST_NUMBER_H

#include "common/st_common.h"

#define NUM_MAX_DIGITS 38
#define NUM_MIN_EXP (-130)		/* smallest magnitude: 1E-130 */
#define NUM_MAX_EXP 126			/* magnitude must be < 1E+126 */

/* Enough room for any canonical number text, with sign, point and NUL. */
#define NUM_TEXT_MAX 200

/*
 * A parsed number: value = (-1)^neg * 0.d[0]d[1]...d[ndigits-1] * 10^exp,
 * with d[0] != 0 and d[ndigits-1] != 0 (no leading or trailing zeros), or
 * zero (ndigits == 0, neg false).
 */
typedef struct StNum
{
	bool		neg;
	int			ndigits;
	int			exp;
	uint8		d[NUM_MAX_DIGITS];
} StNum;

/*
 * Parse number text as DynamoDB accepts it (optional sign, digits with an
 * optional point, optional exponent; surrounding whitespace is not allowed)
 * and check its precision and magnitude.  On failure fills *err with
 * DynamoDB's ValidationException message and returns false.
 */
extern bool st_num_parse(const char *text, int len, StNum *out, StErr *err);

/* Write the canonical text of n into buf (NUM_TEXT_MAX bytes); returns its length. */
extern int	st_num_format(const StNum *n, char *buf);

/* Canonicalise number text in one step: parse + format.  Returns length or -1 (err set). */
extern int	st_num_canonical(const char *text, int len, char *buf, StErr *err);

/* Numeric comparison: <0, 0, >0. */
extern int	st_num_cmp(const StNum *a, const StNum *b);

/*
 * a + b and a - b, exact, then checked against DynamoDB's limits (38
 * significant digits, magnitude): on overflow fills *err with DynamoDB's
 * message and returns false.
 */
extern bool st_num_add(const StNum *a, const StNum *b, StNum *out, StErr *err);
extern bool st_num_sub(const StNum *a, const StNum *b, StNum *out, StErr *err);

#endif							/* ST_NUMBER_H */
