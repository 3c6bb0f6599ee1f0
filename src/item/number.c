/*-------------------------------------------------------------------------
 *
 * number.c
 *		DynamoDB numbers: parsing, canonical text, comparison, exact
 *		addition and subtraction.
 *
 * What DynamoDB does, and where it is written down:
 *
 * - Limits: up to 38 significant digits (leading and trailing zeros are
 *	 trimmed before counting); a nonzero magnitude from 1E-130 up to
 *	 9.9999999999999999999999999999999999999E+125.  (Developer Guide, "Data
 *	 types", Number.)
 *
 * - Syntax: the text is read the way Java's BigDecimal reads it: an
 *	 optional sign ("+3" is accepted), digits with an optional point
 *	 (".123", "5." and "0001.23" are accepted), an optional exponent with an
 *	 optional sign ("1e+5", "-17.4E37"); "0e1000" is zero.  "NaN",
 *	 "Infinity", hex, surrounding spaces, "1e" and "1.2.3" are refused.
 *	 (Behaviour observed against DynamoDB and recorded in the test suites of
 *	 ScyllaDB Alternator, test/alternator/test_number.py, and of dynalite.)
 *
 * - Messages (ValidationException), as DynamoDB words them:
 *	   "The parameter cannot be converted to a numeric value: <text>"
 *	   "Number overflow. Attempting to store a number with magnitude larger
 *		than supported range"
 *	   "Number underflow. Attempting to store a number with magnitude smaller
 *		than supported range"
 *	   "Attempting to store more than 38 significant digits in a Number"
 *	 The magnitude is checked before the precision.  An exponent too large
 *	 for any integer is an overflow (or an underflow when negative), never a
 *	 syntax error.  The operation layer adds DynamoDB's "1 validation error
 *	 detected: " envelope where the operation does.
 *
 * - Arithmetic: "+" and "-" of an update expression are exact; a result out
 *	 of range fails, and so does a result that needs more than 38 digits
 *	 (1E+50 + 1) -- for which DynamoDB reports the overflow message, not the
 *	 precision one (Alternator's test_update_expression_plus_imprecise).
 *
 * - Canonical form: DynamoDB returns numbers in plain decimal notation with
 *	 no exponent and no insignificant zeros: "00042" -> "42", "1.0" -> "1",
 *	 "-0" -> "0", "1.5E2" -> "150", "1e100" -> "1" followed by 100 zeros
 *	 (observed against DynamoDB: boto3 issues #2500 and #4636, extenddb pull
 *	 request #7).  st_num_format() writes exactly that: a '-' for negatives, a
 *	 single "0" before the point of a fraction, no trailing fractional zeros,
 *	 no trailing point, and "0" for zero.  The longest such text is
 *	 "-0." + 129 zeros + 38 digits = 170 bytes (the smallest magnitudes); the
 *	 largest integers need 1 + 126 bytes; NUM_TEXT_MAX (200) holds both.
 *
 * Pure C: no backend needed.
 *
 *-------------------------------------------------------------------------
 */
#include "number.h"

#define MSG_NOT_NUMERIC "The parameter cannot be converted to a numeric value: "
#define MSG_OVERFLOW "Number overflow. Attempting to store a number with magnitude larger than supported range"
#define MSG_UNDERFLOW "Number underflow. Attempting to store a number with magnitude smaller than supported range"
#define MSG_PRECISION "Attempting to store more than 38 significant digits in a Number"

/*
 * Exponents are accumulated with saturation at this bound: anything larger
 * is far outside the supported range whatever the mantissa, and stopping
 * here keeps the arithmetic below well clear of int64 overflow.
 */
#define EXP_SATURATE ((int64) 1 << 40)

/*
 * How many bytes of a refused text go into the message.  The message buffer
 * is ST_ERR_MSG_MAX; the text is cut at a UTF-8 character boundary so that
 * the message stays valid UTF-8.
 */
#define ECHO_MAX 900

static int
utf8_cut(const char *s, int len, int max)
{
	int			n;

	if (len <= max)
		return len;
	n = max;
	/* back up over continuation bytes so that no character is split */
	while (n > 0 && (((unsigned char) s[n]) & 0xC0) == 0x80)
		n--;
	return n;
}

static bool
fail_not_numeric(const char *text, int len, StErr *err)
{
	int			n = utf8_cut(text, len, ECHO_MAX);

	return st_fail(err, ST_ERR_VALIDATION, MSG_NOT_NUMERIC "%.*s", n, text);
}

/*
 * Check an already normalised value (d[0] != 0, no trailing zeros, ndigits
 * possibly above 38 while being checked) against DynamoDB's limits.
 */
static bool
check_limits(int64 exp, int ndigits, bool arithmetic, StErr *err)
{
	if (ndigits == 0)
		return true;
	/* value = 0.d1d2... * 10^exp, so 10^(exp-1) <= |value| < 10^exp */
	if (exp > NUM_MAX_EXP)
		return st_fail(err, ST_ERR_VALIDATION, MSG_OVERFLOW);
	if (exp - 1 < NUM_MIN_EXP)
		return st_fail(err, ST_ERR_VALIDATION, MSG_UNDERFLOW);
	if (ndigits > NUM_MAX_DIGITS)
		return st_fail(err, ST_ERR_VALIDATION,
					   arithmetic ? MSG_OVERFLOW : MSG_PRECISION);
	return true;
}

bool
st_num_parse(const char *text, int len, StNum *out, StErr *err)
{
	int			i = 0;
	bool		neg = false;
	int			point = -1;		/* index of '.', or -1 */
	int			ndig = 0;		/* digits in the mantissa */
	int64		e = 0;
	int			first_nz = -1;	/* index into text of first nonzero digit */
	int			last_nz = -1;
	int64		intdigits = 0;	/* mantissa digits before the point */
	int64		lead_zeros = 0; /* mantissa digits before first_nz */
	int			nsig;
	int64		exp;

	memset(out, 0, sizeof(StNum));
	if (text == NULL || len <= 0)
		return fail_not_numeric("", 0, err);

	if (text[i] == '+' || text[i] == '-')
	{
		neg = (text[i] == '-');
		i++;
	}
	for (; i < len; i++)
	{
		char		c = text[i];

		if (c >= '0' && c <= '9')
		{
			if (c != '0')
			{
				if (first_nz < 0)
				{
					first_nz = i;
					lead_zeros = ndig;
				}
				last_nz = i;
			}
			ndig++;
			if (point < 0)
				intdigits++;
		}
		else if (c == '.' && point < 0)
			point = i;
		else
			break;
	}
	if (ndig == 0)
		return fail_not_numeric(text, len, err);

	if (i < len)
	{
		bool		eneg = false;
		int			edigits = 0;

		if (text[i] != 'e' && text[i] != 'E')
			return fail_not_numeric(text, len, err);
		i++;
		if (i < len && (text[i] == '+' || text[i] == '-'))
		{
			eneg = (text[i] == '-');
			i++;
		}
		for (; i < len && text[i] >= '0' && text[i] <= '9'; i++)
		{
			edigits++;
			if (e < EXP_SATURATE)
				e = e * 10 + (text[i] - '0');
		}
		if (edigits == 0 || i < len)
			return fail_not_numeric(text, len, err);
		if (e > EXP_SATURATE)
			e = EXP_SATURATE;
		if (eneg)
			e = -e;
	}

	/* zero, whatever its sign and exponent */
	if (first_nz < 0)
		return true;

	/* significant digits: first to last nonzero, not counting the point */
	nsig = last_nz - first_nz + 1;
	if (point > first_nz && point < last_nz)
		nsig--;

	/*
	 * The mantissa is 0.D * 10^intdigits with D all its digits; dropping the
	 * leading zeros of D moves the exponent down by their count.
	 */
	exp = intdigits - lead_zeros + e;
	if (!check_limits(exp, nsig, false, err))
		return false;

	out->neg = neg;
	out->exp = (int) exp;
	for (int k = first_nz; k <= last_nz; k++)
	{
		if (text[k] == '.')
			continue;
		out->d[out->ndigits++] = (uint8) (text[k] - '0');
	}
	return true;
}

int
st_num_format(const StNum *n, char *buf)
{
	int			p = 0;

	if (n->ndigits == 0)
	{
		buf[0] = '0';
		buf[1] = '\0';
		return 1;
	}
	if (n->neg)
		buf[p++] = '-';
	if (n->exp <= 0)
	{
		/* a pure fraction: "0." then -exp zeros then the digits */
		buf[p++] = '0';
		buf[p++] = '.';
		for (int k = 0; k < -n->exp; k++)
			buf[p++] = '0';
		for (int k = 0; k < n->ndigits; k++)
			buf[p++] = (char) ('0' + n->d[k]);
	}
	else if (n->exp < n->ndigits)
	{
		for (int k = 0; k < n->ndigits; k++)
		{
			if (k == n->exp)
				buf[p++] = '.';
			buf[p++] = (char) ('0' + n->d[k]);
		}
	}
	else
	{
		/* an integer: the digits then exp - ndigits zeros */
		for (int k = 0; k < n->ndigits; k++)
			buf[p++] = (char) ('0' + n->d[k]);
		for (int k = n->ndigits; k < n->exp; k++)
			buf[p++] = '0';
	}
	buf[p] = '\0';
	return p;
}

int
st_num_canonical(const char *text, int len, char *buf, StErr *err)
{
	StNum		n;

	if (!st_num_parse(text, len, &n, err))
		return -1;
	return st_num_format(&n, buf);
}

/* Compare magnitudes of two normalised numbers. */
static int
mag_cmp(const StNum *a, const StNum *b)
{
	int			m;

	if (a->ndigits == 0 || b->ndigits == 0)
		return (a->ndigits != 0) - (b->ndigits != 0);
	if (a->exp != b->exp)
		return a->exp > b->exp ? 1 : -1;
	m = Min(a->ndigits, b->ndigits);
	for (int k = 0; k < m; k++)
	{
		if (a->d[k] != b->d[k])
			return a->d[k] > b->d[k] ? 1 : -1;
	}
	/* equal prefix: the longer one has more nonzero digits below */
	return (a->ndigits > b->ndigits) - (a->ndigits < b->ndigits);
}

int
st_num_cmp(const StNum *a, const StNum *b)
{
	int			sa = a->ndigits == 0 ? 0 : (a->neg ? -1 : 1);
	int			sb = b->ndigits == 0 ? 0 : (b->neg ? -1 : 1);

	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0)
		return 0;
	return sa > 0 ? mag_cmp(a, b) : -mag_cmp(a, b);
}

/*
 * Exact arithmetic on a fixed positional buffer.  Digit k (0-based) of a
 * number has weight 10^(exp - 1 - k).  Operands within the limits have
 * weights from 10^(NUM_MAX_EXP - 1) down to 10^(NUM_MIN_EXP - 1 - 37); a
 * carry needs one position above.  Index = weight exponent - POS_LOW.  The
 * buffer is a few hundred bytes: no allocation, and no way for a huge
 * exponent to ask for a huge one (the limits were checked on the way in).
 */
#define POS_LOW (NUM_MIN_EXP - NUM_MAX_DIGITS - 2)
#define POS_HIGH (NUM_MAX_EXP + 2)
#define POS_COUNT (POS_HIGH - POS_LOW + 1)

static void
spread(const StNum *n, uint8 *pos)
{
	for (int k = 0; k < n->ndigits; k++)
		pos[n->exp - 1 - k - POS_LOW] = n->d[k];
}

/* |a| + |b| or |a| - |b| (|a| >= |b|) with sign neg, normalised into out. */
static bool
mag_combine(const StNum *a, const StNum *b, bool subtract, bool neg,
			StNum *out, StErr *err)
{
	uint8		pa[POS_COUNT];
	uint8		pb[POS_COUNT];
	int			hi = -1,
				lo = -1;
	int			carry = 0;

	memset(pa, 0, sizeof(pa));
	memset(pb, 0, sizeof(pb));
	spread(a, pa);
	spread(b, pb);
	for (int k = 0; k < POS_COUNT; k++)
	{
		int			v;

		if (subtract)
		{
			v = pa[k] - pb[k] - carry;
			carry = v < 0;
			if (v < 0)
				v += 10;
		}
		else
		{
			v = pa[k] + pb[k] + carry;
			carry = v >= 10;
			if (v >= 10)
				v -= 10;
		}
		pa[k] = (uint8) v;
	}
	/* |a| >= |b| and the top position is free, so no carry or borrow is left */

	for (int k = POS_COUNT - 1; k >= 0; k--)
	{
		if (pa[k] != 0)
		{
			hi = k;
			break;
		}
	}
	memset(out, 0, sizeof(StNum));
	if (hi < 0)
		return true;			/* exactly zero */
	for (int k = 0; k <= hi; k++)
	{
		if (pa[k] != 0)
		{
			lo = k;
			break;
		}
	}
	if (!check_limits((int64) hi + POS_LOW + 1, hi - lo + 1, true, err))
		return false;
	out->neg = neg;
	out->exp = hi + POS_LOW + 1;
	for (int k = hi; k >= lo; k--)
		out->d[out->ndigits++] = pa[k];
	return true;
}

static bool
operand_ok(const StNum *n)
{
	if (n->ndigits == 0)
		return true;
	return n->ndigits > 0 && n->ndigits <= NUM_MAX_DIGITS &&
		n->exp <= NUM_MAX_EXP && n->exp - 1 >= NUM_MIN_EXP;
}

/* a + (b with its sign flipped when negate_b) */
static bool
num_addsub(const StNum *a, const StNum *b, bool negate_b, StNum *out, StErr *err)
{
	bool		bneg = (b->ndigits != 0) && (b->neg != negate_b);

	/*
	 * Operands come from st_num_parse() or from here, so they are within the
	 * limits; refuse anything else rather than index outside the buffer.
	 */
	if (!operand_ok(a) || !operand_ok(b))
		return st_fail(err, ST_ERR_VALIDATION, MSG_OVERFLOW);
	if (a->ndigits == 0)
	{
		*out = *b;
		out->neg = bneg;
		return true;
	}
	if (b->ndigits == 0)
	{
		*out = *a;
		return true;
	}
	if (a->neg == bneg)
		return mag_combine(a, b, false, a->neg, out, err);
	/* opposite signs: subtract the smaller magnitude from the larger */
	if (mag_cmp(a, b) >= 0)
		return mag_combine(a, b, true, a->neg, out, err);
	return mag_combine(b, a, true, bneg, out, err);
}

bool
st_num_add(const StNum *a, const StNum *b, StNum *out, StErr *err)
{
	return num_addsub(a, b, false, out, err);
}

bool
st_num_sub(const StNum *a, const StNum *b, StNum *out, StErr *err)
{
	return num_addsub(a, b, true, out, err);
}
