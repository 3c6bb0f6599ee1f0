/*-------------------------------------------------------------------------
 *
 * ttl_expiry.c
 *		stdesign.ttl_expiry(item, attribute): an item's expiry time as a
 *		number; stdesign.ttl_second(item, attribute): its whole second;
 *		stdesign.ttl_shard(pk[, sk]): which of the index's shards the
 *		item's entry is in.  The last two are the key of the time-to-live
 *		index (storage.c).
 *
 * A table with time to live enabled has a partial btree over the shard and
 * the second, so that a round of expiry is a range scan over the expired
 * items alone, not a scan of the table.  Postgres evaluates an
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
 * The index's first column is a shard of the item's key, its second the
 * expiry's second.  Items are mostly written with an expiry of now plus a
 * constant, so that every writer's entry of the same second went to one
 * page, the index's last: concurrent writers queued for its lock (a put
 * of a new item with time to live on did 0.79x the puts without it at 2
 * clients, 0.94x at 1, bench/RESULTS.md).  With the key's hash in front,
 * the entries of one second are in STORAGE_TTL_SHARDS places, each
 * growing at a page of its own; a round reads each shard's range (one
 * index descent per shard).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "st_storage.h"

/* Bounds that keep numeric_in from any error (see above). */
#define TTL_MAX_DIGITS 1000
#define TTL_MAX_EXPONENT 1000

/*
 * A number as described above, in parts: value = (negative ? -1 : 1) *
 * digits * 10^exponent, digits without leading or trailing zeros (empty for
 * zero); or, for an integer of at most 18 digits, small with its value.
 */
typedef struct TtlNumber
{
	bool		small;
	int64		value;			/* when small */
	bool		negative;
	StringInfoData digits;
	int64		exponent;
} TtlNumber;

/* s (len bytes) in parts when it is a number as described above, else false. */
static bool
parse_number(const char *s, int len, TtlNumber *num)
{
	const char *end = s + len;
	const char *p = s;
	int			frac_digits = 0;
	int			ndigits = 0;

	num->small = false;
	num->negative = false;
	num->exponent = 0;

	/*
	 * An integer of at most 18 digits (every expiry in seconds since the
	 * epoch), by far the common case: its value directly, without the
	 * canonical string and numeric_in below, which were a quarter of what
	 * the index cost a new item's write (bench/ttl_instr.sh).  The same
	 * number, so the same index key.
	 */
	if (len > 0 && len <= 18 + (*s == '-'))
	{
		int64		v = 0;

		for (p = s + (*s == '-'); p < end && *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (*p - '0');
		if (p == end && p > s + (*s == '-'))
		{
			num->small = true;
			num->value = *s == '-' ? -v : v;
			return true;
		}
		p = s;
	}

	initStringInfo(&num->digits);
	if (p < end && *p == '-')
	{
		num->negative = true;
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
					appendStringInfoChar(&num->digits, *p);
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
			if (num->exponent < PG_INT32_MAX)
				num->exponent = num->exponent * 10 + (*p - '0');
		}
		if (!any)
			return false;
		if (exp_negative)
			num->exponent = -num->exponent;
	}
	if (p != end)
		return false;

	if (ndigits == 0)
	{
		/* zero, whatever its exponent */
		num->negative = false;
		num->exponent = 0;
		return true;
	}
	/* trailing zeros into the exponent */
	num->exponent -= frac_digits;
	while (num->digits.len > 1 && num->digits.data[num->digits.len - 1] == '0')
	{
		num->digits.data[--num->digits.len] = '\0';
		num->exponent++;
	}
	return num->exponent <= TTL_MAX_EXPONENT && num->exponent >= -TTL_MAX_EXPONENT;
}

/* The number as numeric. */
static Datum
number_numeric(const TtlNumber *num)
{
	if (num->small)
		return NumericGetDatum(int64_to_numeric(num->value));
	if (num->digits.len == 0)
		return NumericGetDatum(int64_to_numeric(0));
	return DirectFunctionCall3(numeric_in,
							   CStringGetDatum(psprintf("%s%se" INT64_FORMAT, num->negative ? "-" : "",
														num->digits.data, num->exponent)),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * The number's whole second, rounded down, into *second: false when its
 * magnitude is 10^18 or more (no time of expiry's window, which is within
 * five years of now).
 */
static bool
number_second(const TtlNumber *num, int64 *second)
{
	int64		whole = 0;
	int			nwhole;
	bool		fraction;

	if (num->small)
	{
		*second = num->value;
		return true;
	}
	if (num->digits.len == 0)
	{
		*second = 0;
		return true;
	}
	/* digits * 10^exponent: the digits before the point, then zeros */
	nwhole = (int) Max(Min((int64) num->digits.len + num->exponent, 19), 0);
	if (nwhole > 18)
		return false;
	for (int i = 0; i < nwhole; i++)
		whole = whole * 10 + (i < num->digits.len ? num->digits.data[i] - '0' : 0);
	/* digits are kept without trailing zeros: any left over is a fraction */
	fraction = nwhole < num->digits.len;
	*second = num->negative ? -whole - (fraction ? 1 : 0) : whole;
	return true;
}

/*
 * The number item's top-level attribute holds when it is a Number
 * ({"N": "..."}), in parts: false for anything else.
 */
static bool
item_number(Jsonb *item, text *attribute, TtlNumber *num)
{
	JsonbValue	key;
	JsonbValue *value;
	JsonbValue *n;

	if (!JB_ROOT_IS_OBJECT(item))
		return false;
	key.type = jbvString;
	key.val.string.val = VARDATA_ANY(attribute);
	key.val.string.len = VARSIZE_ANY_EXHDR(attribute);
	value = findJsonbValueFromContainer(&item->root, JB_FOBJECT, &key);
	if (value == NULL || value->type != jbvBinary ||
		!JsonContainerIsObject(value->val.binary.data))
		return false;
	key.val.string.val = "N";
	key.val.string.len = 1;
	n = findJsonbValueFromContainer(value->val.binary.data, JB_FOBJECT, &key);
	return n != NULL && n->type == jbvString &&
		parse_number(n->val.string.val, n->val.string.len, num);
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
	TtlNumber	num;

	if (!item_number(PG_GETARG_JSONB_P(0), PG_GETARG_TEXT_PP(1), &num))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(number_numeric(&num));
}

/*
 * stdesign.ttl_second(item jsonb, attribute text) RETURNS bigint,
 * IMMUTABLE STRICT: that number's whole second, rounded down (floor), NULL
 * when there is none or its magnitude is 10^18 or more.  The index's key:
 * a bigint compares in a few instructions, where numeric_cmp copied each
 * short-header operand before comparing (4,500 instructions of an index
 * insertion, bench/RESULTS.md).  The expiry query takes the seconds' range
 * from the index and checks ttl_expiry's exact value on the items.
 */
PG_FUNCTION_INFO_V1(st_ttl_second);
Datum
st_ttl_second(PG_FUNCTION_ARGS)
{
	TtlNumber	num;
	int64		second;

	if (!item_number(PG_GETARG_JSONB_P(0), PG_GETARG_TEXT_PP(1), &num) ||
		!number_second(&num, &second))
		PG_RETURN_NULL();
	PG_RETURN_INT64(second);
}

/*
 * stdesign.ttl_shard(pk "any"[, sk "any"]) RETURNS int4, IMMUTABLE STRICT:
 * a hash of the key columns' bytes, 0 to STORAGE_TTL_SHARDS - 1.  The key
 * columns are text, numeric or bytea, all of variable length; the bytes as stored
 * are hashed, not the value (two spellings of one number could differ;
 * the key columns hold one), which is all a shard needs: the same row
 * gives the same shard.  Anything else is refused (it is no key column).
 */
PG_FUNCTION_INFO_V1(st_ttl_shard);
Datum
st_ttl_shard(PG_FUNCTION_ARGS)
{
	uint32		h = 0;

	/*
	 * The arguments' types are checked once per call site (an index's
	 * expression is one): the mark in fn_extra saves every later write two
	 * catalog cache lookups.
	 */
	if (fcinfo->flinfo == NULL || fcinfo->flinfo->fn_extra == NULL)
	{
		for (int i = 0; i < PG_NARGS(); i++)
		{
			Oid			type = get_fn_expr_argtype(fcinfo->flinfo, i);

			if (!OidIsValid(type) || get_typlen(type) != -1)
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("stdesign.ttl_shard takes key columns (text, numeric or bytea)")));
		}
		if (fcinfo->flinfo != NULL)
			fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, 1);
	}
	for (int i = 0; i < PG_NARGS(); i++)
	{
		struct varlena *v = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(i));

		h = hash_combine(h, hash_bytes((const unsigned char *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)));
	}
	PG_RETURN_INT32((int32) (h % STORAGE_TTL_SHARDS));
}
