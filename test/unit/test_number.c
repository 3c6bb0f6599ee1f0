/*-------------------------------------------------------------------------
 *
 * test_number.c
 *		Unit tests of DynamoDB numbers: syntax, limits, canonical text,
 *		comparison and exact arithmetic (src/item/number.c).
 *
 * The expected texts and messages are DynamoDB's (see number.c for where
 * each one is recorded).
 *
 *-------------------------------------------------------------------------
 */
#include "item/number.h"

#include "unit.h"

#define MSG_NOT_NUMERIC "The parameter cannot be converted to a numeric value: "
#define MSG_OVERFLOW "Number overflow. Attempting to store a number with magnitude larger than supported range"
#define MSG_UNDERFLOW "Number underflow. Attempting to store a number with magnitude smaller than supported range"
#define MSG_PRECISION "Attempting to store more than 38 significant digits in a Number"

static char canon_buf[NUM_TEXT_MAX];
static StErr last_err;

/* canonical text of s, or NULL (error in last_err) */
static const char *
canon(const char *s)
{
	memset(&last_err, 0, sizeof(last_err));
	if (st_num_canonical(s, (int) strlen(s), canon_buf, &last_err) < 0)
		return NULL;
	return canon_buf;
}

/* the error message for s, or "(accepted)" */
static const char *
refusal(const char *s)
{
	if (canon(s) != NULL)
		return "(accepted)";
	if (last_err.code != ST_ERR_VALIDATION)
		return "(wrong exception)";
	return last_err.message;
}

static StNum
num(const char *s)
{
	StNum		n;
	StErr		err;

	if (!st_num_parse(s, (int) strlen(s), &n, &err))
	{
		fprintf(stderr, "test setup: %s does not parse: %s\n", s, err.message);
		memset(&n, 0, sizeof(n));
	}
	return n;
}

static char op_buf[ST_ERR_MSG_MAX];

/* a + b (op '+') or a - b (op '-') as canonical text, or the error message */
static const char *
arith(const char *a, char op, const char *b)
{
	StNum		x = num(a);
	StNum		y = num(b);
	StNum		r;
	StErr		err;
	bool		ok;

	ok = op == '+' ? st_num_add(&x, &y, &r, &err) : st_num_sub(&x, &y, &r, &err);
	if (!ok)
	{
		snprintf(op_buf, sizeof(op_buf), "%s", err.message);
		return op_buf;
	}
	st_num_format(&r, op_buf);
	return op_buf;
}

/* head, then n zeros, then tail (palloc'd) */
static const char *
padded(const char *head, int n, const char *tail)
{
	size_t		hl = strlen(head);
	size_t		tl = strlen(tail);
	char	   *s = palloc(hl + n + tl + 1);

	memcpy(s, head, hl);
	memset(s + hl, '0', n);
	memcpy(s + hl + n, tail, tl + 1);
	return s;
}

static int
cmp(const char *a, const char *b)
{
	StNum		x = num(a);
	StNum		y = num(b);
	int			c = st_num_cmp(&x, &y);

	return (c > 0) - (c < 0);
}

static void
test_canonical(void)
{
	CHECK_STR(canon("007.50"), "7.5");
	CHECK_STR(canon("1e3"), "1000");
	CHECK_STR(canon("1E+3"), "1000");
	CHECK_STR(canon("-0"), "0");
	CHECK_STR(canon("+0"), "0");
	CHECK_STR(canon("0.000"), "0");
	CHECK_STR(canon("0e1000"), "0");
	CHECK_STR(canon("-0.0e-99999999999"), "0");
	CHECK_STR(canon("00042"), "42");
	CHECK_STR(canon("1.0"), "1");
	CHECK_STR(canon("1.5E2"), "150");
	CHECK_STR(canon("+3"), "3");
	CHECK_STR(canon(".123"), "0.123");
	CHECK_STR(canon("5."), "5");
	CHECK_STR(canon("0001.23"), "1.23");
	CHECK_STR(canon("1e+5"), "100000");
	CHECK_STR(canon("-17e5"), "-1700000");
	CHECK_STR(canon("-7.1234"), "-7.1234");
	CHECK_STR(canon("123.456e-2"), "1.23456");
	CHECK_STR(canon("123.456e-5"), "0.00123456");
	CHECK_STR(canon("0.5E1"), "5");
	CHECK_STR(canon("-0.00100"), "-0.001");
	CHECK_STR(canon("1000"), "1000");
	CHECK_STR(canon("10.010"), "10.01");
	CHECK_STR(canon("1.00000000000000007629769841092E+50"),
			  "100000000000000007629769841092000000000000000000000");
}

static void
test_limits(void)
{
	char		buf[400];
	const char *c;

	/* 1E-130 is the smallest magnitude */
	c = canon("1E-130");
	CHECK(c != NULL && strlen(c) == 132 && strncmp(c, "0.000", 5) == 0 && c[131] == '1');
	CHECK(canon("-1E-130") != NULL);
	CHECK_STR(refusal("1E-131"), MSG_UNDERFLOW);
	CHECK_STR(refusal("-1E-131"), MSG_UNDERFLOW);
	CHECK_STR(refusal("0.9e-130"), MSG_UNDERFLOW);
	CHECK_STR(refusal("1e-99999999999"), MSG_UNDERFLOW);
	CHECK_STR(refusal("1e-2147483648"), MSG_UNDERFLOW);

	/* the largest: 38 nines times 10^88, 126 integer digits */
	c = canon("9.9999999999999999999999999999999999999E+125");
	CHECK(c != NULL && strlen(c) == 126);
	c = canon("-9.9999999999999999999999999999999999999E+125");
	CHECK(c != NULL && strlen(c) == 127);
	CHECK(canon("1e125") != NULL);
	CHECK_STR(refusal("1E+126"), MSG_OVERFLOW);
	CHECK_STR(refusal("-1e126"), MSG_OVERFLOW);
	CHECK_STR(refusal("11e125"), MSG_OVERFLOW);
	CHECK_STR(refusal("1e2147483647"), MSG_OVERFLOW);
	CHECK_STR(refusal("1e2147483648"), MSG_OVERFLOW);
	CHECK_STR(refusal("1e99999999999"), MSG_OVERFLOW);
	CHECK_STR(refusal("1.0e100000000"), MSG_OVERFLOW);
	CHECK_STR(refusal("1e999999999999999999999999999999999999"), MSG_OVERFLOW);

	/* 38 significant digits are fine, 39 are not; zeros at the ends do not count */
	CHECK_STR(canon("12345678901234567890123456789012345678"),
			  "12345678901234567890123456789012345678");
	CHECK_STR(refusal("123456789012345678901234567890123456789"), MSG_PRECISION);
	CHECK_STR(refusal("1234567890123456789012345678901234567890"), MSG_PRECISION);
	CHECK_STR(refusal("-1.23456789012345678901234567890123456789"), MSG_PRECISION);
	CHECK_STR(canon("3.1415926535897932384626433832795028841"),
			  "3.1415926535897932384626433832795028841");
	CHECK_STR(refusal("3.14159265358979323846264338327950288419"), MSG_PRECISION);
	CHECK_STR(canon("314159265358979323846.26433832795028841"),
			  "314159265358979323846.26433832795028841");
	CHECK_STR(refusal("314159265358979323846.264338327950288419"), MSG_PRECISION);
	CHECK(canon("31415926535897932384626433832795028841e30") != NULL);
	CHECK_STR(refusal("314159265358979323846264338327950288419e30"), MSG_PRECISION);
	CHECK_STR(canon("0000000000000000000000000000000000000000000001.000000000000000000000000000000000000000000"), "1");
	CHECK_STR(canon("10000000000000000000000000000000000000000000000000"),
			  "10000000000000000000000000000000000000000000000000");

	/* magnitude is checked before precision */
	CHECK_STR(refusal("123456789012345678901234567890123456789e200"), MSG_OVERFLOW);

	/* the longest canonical text: 38 digits ending at the 167th decimal */
	c = canon("-1.2345678901234567890123456789012345678E-130");
	CHECK(c != NULL && strlen(c) == 170 && strlen(c) < NUM_TEXT_MAX);
	snprintf(buf, sizeof(buf), "%s", c ? c : "");
	CHECK_STR(canon(buf), buf);
}

static void
test_syntax(void)
{
	const char *bad[] = {
		"abc", "1.2.3", " 1", "1 ", "0x10", "1e", "NaN", "-NaN", "Infinity",
		"-Infinity", "dog", "-dog", ".", "-", "+", "-.", ".e5", "e5", "1e+",
		"1e-", "1e5.0", "++1", "--1", "+-1", "1-", "1,5", "1_000", "١", "1e5e5",
		"0x1p3", "inf", "\t1", "1\n", "1E 5",
	};

	for (int i = 0; i < (int) lengthof(bad); i++)
	{
		char		expect[200];

		snprintf(expect, sizeof(expect), MSG_NOT_NUMERIC "%s", bad[i]);
		CHECK_STR(refusal(bad[i]), expect);
	}
	CHECK_STR(refusal(""), MSG_NOT_NUMERIC);

	/* an embedded NUL is not a number */
	{
		StNum		n;
		StErr		err;

		CHECK(!st_num_parse("1\0002", 3, &n, &err));
	}
}

static void
test_cmp(void)
{
	CHECK(cmp("1", "2") < 0);
	CHECK(cmp("2", "1") > 0);
	CHECK(cmp("1", "1.0") == 0);
	CHECK(cmp("-1", "1") < 0);
	CHECK(cmp("-2", "-1") < 0);
	CHECK(cmp("0", "-0") == 0);
	CHECK(cmp("0", "1E-130") < 0);
	CHECK(cmp("0", "-1E-130") > 0);
	CHECK(cmp("10", "9") > 0);
	CHECK(cmp("0.1", "0.09") > 0);
	CHECK(cmp("1.5", "1.45") > 0);
	CHECK(cmp("1.45", "1.5") < 0);
	CHECK(cmp("-1.45", "-1.5") > 0);
	CHECK(cmp("123", "123.0001") < 0);
	CHECK(cmp("1e125", "9.9e124") > 0);
}

static void
test_arith(void)
{
	CHECK_STR(arith("1", '+', "2"), "3");
	CHECK_STR(arith("1", '+', "10000000000000000000000"), "10000000000000000000001");
	CHECK_STR(arith("10000000000000000000000", '-', "1"), "9999999999999999999999");
	/* carries */
	CHECK_STR(arith("999", '+', "1"), "1000");
	CHECK_STR(arith("0.999", '+', "0.001"), "1");
	CHECK_STR(arith("9.99", '+', "0.01"), "10");
	/* borrows */
	CHECK_STR(arith("1000", '-', "0.001"), "999.999");
	CHECK_STR(arith("1", '-', "0.0001"), "0.9999");
	/* sign changes and zero */
	CHECK_STR(arith("1", '-', "2"), "-1");
	CHECK_STR(arith("-1", '+', "2"), "1");
	CHECK_STR(arith("-1", '-', "-1"), "0");
	CHECK_STR(arith("5", '-', "5"), "0");
	CHECK_STR(arith("-5", '+', "-5"), "-10");
	CHECK_STR(arith("0", '-', "7"), "-7");
	CHECK_STR(arith("7", '-', "0"), "7");
	CHECK_STR(arith("0", '+', "0"), "0");
	CHECK_STR(arith("-0.5", '+', "0.25"), "-0.25");
	CHECK_STR(arith("1.5", '-', "-1.5"), "3");
	CHECK_STR(arith("1E-130", '+', "1E-130"), padded("0.", 129, "2"));
	/* overflow of the magnitude */
	CHECK_STR(arith("9e125", '+', "9e125"), MSG_OVERFLOW);
	CHECK_STR(arith("9e125", '-', "-9e125"), MSG_OVERFLOW);
	CHECK_STR(arith("-9e125", '-', "9e125"), MSG_OVERFLOW);
	CHECK_STR(arith("9e125", '+', "9e124"), padded("99", 124, ""));
	CHECK_STR(arith("9.9999999999999999999999999999999999999E+125", '+', "1e88"), MSG_OVERFLOW);
	/* too many digits: DynamoDB reports that as an overflow */
	CHECK_STR(arith("1e50", '+', "1"), MSG_OVERFLOW);
	CHECK_STR(arith("1e50", '-', "1"), MSG_OVERFLOW);
	CHECK_STR(arith("12345678901234567890123456789012345678", '+', "0.1"), MSG_OVERFLOW);
	CHECK_STR(arith("12345678901234567890123456789012345678", '+', "2"),
			  "12345678901234567890123456789012345680");
	/* a result below the smallest magnitude, and one just at it */
	CHECK_STR(arith(padded("1.", 36, "1E-100"), '-', "1E-100"), MSG_UNDERFLOW);
	CHECK_STR(arith(padded("1.", 35, "1E-94"), '-', "1E-94"), padded("0.", 129, "1"));
	CHECK_STR(arith("1.1E-129", '-', "1E-129"), padded("0.", 129, "1"));
	CHECK_STR(arith("-1.1E-129", '+', "1E-129"), padded("-0.", 129, "1"));
}

int
main(void)
{
	test_canonical();
	test_limits();
	test_syntax();
	test_cmp();
	test_arith();
	st_standalone_reset();
	return unit_summary("test_number");
}
