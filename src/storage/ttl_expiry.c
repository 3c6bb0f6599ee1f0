/*-------------------------------------------------------------------------
 *
 * ttl_expiry.c
 *		stdesign.ttl_expiry(item, attribute): an item's expiry time as a
 *		number, the key of the time-to-live index (storage.c).
 *
 * A table with time to live enabled has a partial btree over this
 * function of item, so that a round of expiry is a range scan over the
 * expired items alone, not a scan of the table.  Postgres evaluates an
 * index expression on every write of the relation, whatever wrote the row
 * (stdesign's paths, or plain SQL that checked nothing): the function must
 * be IMMUTABLE and must never raise an error, or a write would fail on an
 * item's content.  So it parses the number itself and answers NULL (no
 * index entry) for anything that is not one.
 *
 * What counts as a number is what the expiry query accepted before the
 * index existed: the attribute's "N" string matching
 * ^-?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$, whose numeric value is the
 * expiry.  numeric_in would raise an error on some of these ("1e5000": out
 * of numeric's range); the function answers NULL for any number whose
 * exponent is beyond +-1000 once its digits are trimmed, whose magnitude
 * is then above 10^1000 or below 10^-1: never in the window of expiry
 * (DynamoDB deletes items whose time is in the past but at most five years
 * so), so that what is deleted does not change.  More than 1000
 * significant digits are NULL too.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "st_storage.h"

/* Bounds that keep numeric_in from any error (see above). */
#define TTL_MAX_DIGITS 1000
#define TTL_MAX_EXPONENT 1000

/*
 * The numeric value of s (len bytes) when it is a number as described
 * above, else false.
 */
static bool
parse_number(const char *s, int len, Datum *result)
{
	const char *end = s + len;
	const char *p = s;
	bool		negative = false;
	int			frac_digits = 0;
	int			ndigits = 0;
	int64		exponent = 0;
	StringInfoData digits;

	/*
	 * An integer of at most 18 digits (every expiry in seconds since the
	 * epoch), by far the common case: its value directly, without the
	 * canonical string and numeric_in below, which were a quarter of what
	 * the index costs a new item's write (the expression is evaluated twice,
	 * for the predicate and the key; bench/ttl_instr.sh).  The same number,
	 * so the same index key.
	 */
	if (len > 0 && len <= 18 + (*s == '-'))
	{
		int64		v = 0;

		for (p = s + (*s == '-'); p < end && *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (*p - '0');
		if (p == end && p > s + (*s == '-'))
		{
			*result = NumericGetDatum(int64_to_numeric(*s == '-' ? -v : v));
			return true;
		}
		p = s;
	}

	initStringInfo(&digits);
	if (p < end && *p == '-')
	{
		negative = true;
		p++;
	}
	/* [0-9]*\.?[0-9]+: digits, at most one point, a digit after it */
	{
		bool		point = false;
		bool		last_digit = false;

		for (; p < end; p++)
		{
			if (*p >= '0' && *p <= '9')
			{
				/* leading zeros do not count */
				if (ndigits > 0 || *p != '0')
				{
					if (++ndigits > TTL_MAX_DIGITS)
						return false;
					appendStringInfoChar(&digits, *p);
				}
				if (point)
					frac_digits++;
				last_digit = true;
			}
			else if (*p == '.' && !point)
			{
				point = true;
				last_digit = false;
			}
			else
				break;
		}
		if (!last_digit)
			return false;
	}
	/* ([eE][-+]?[0-9]+)? */
	if (p < end && (*p == 'e' || *p == 'E'))
	{
		bool		exp_negative = false;
		bool		any = false;

		p++;
		if (p < end && (*p == '-' || *p == '+'))
			exp_negative = *p++ == '-';
		for (; p < end && *p >= '0' && *p <= '9'; p++)
		{
			any = true;
			/* saturates far beyond any bound below */
			if (exponent < PG_INT32_MAX)
				exponent = exponent * 10 + (*p - '0');
		}
		if (!any)
			return false;
		if (exp_negative)
			exponent = -exponent;
	}
	if (p != end)
		return false;

	if (ndigits == 0)
	{
		/* zero, whatever its exponent */
		*result = DirectFunctionCall3(numeric_in, CStringGetDatum("0"),
									  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		return true;
	}
	/* value = digits * 10^exponent, trailing zeros into the exponent */
	exponent -= frac_digits;
	while (digits.len > 1 && digits.data[digits.len - 1] == '0')
	{
		digits.data[--digits.len] = '\0';
		exponent++;
	}
	if (exponent > TTL_MAX_EXPONENT || exponent < -TTL_MAX_EXPONENT)
		return false;
	*result = DirectFunctionCall3(numeric_in,
								  CStringGetDatum(psprintf("%s%se" INT64_FORMAT, negative ? "-" : "",
														   digits.data, exponent)),
								  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	return true;
}

/*
 * stdesign.ttl_expiry(item jsonb, attribute text) RETURNS numeric,
 * IMMUTABLE STRICT: the number of item's top-level attribute `attribute`
 * when it is a Number ({"N": "..."}), else NULL.
 */
PG_FUNCTION_INFO_V1(st_ttl_expiry);
Datum
st_ttl_expiry(PG_FUNCTION_ARGS)
{
	Jsonb	   *item = PG_GETARG_JSONB_P(0);
	text	   *attribute = PG_GETARG_TEXT_PP(1);
	JsonbValue	key;
	JsonbValue *value;
	JsonbValue *n;
	Datum		result;

	if (!JB_ROOT_IS_OBJECT(item))
		PG_RETURN_NULL();
	key.type = jbvString;
	key.val.string.val = VARDATA_ANY(attribute);
	key.val.string.len = VARSIZE_ANY_EXHDR(attribute);
	value = findJsonbValueFromContainer(&item->root, JB_FOBJECT, &key);
	if (value == NULL || value->type != jbvBinary ||
		!JsonContainerIsObject(value->val.binary.data))
		PG_RETURN_NULL();
	key.val.string.val = "N";
	key.val.string.len = 1;
	n = findJsonbValueFromContainer(value->val.binary.data, JB_FOBJECT, &key);
	if (n == NULL || n->type != jbvString ||
		!parse_number(n->val.string.val, n->val.string.len, &result))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(result);
}
