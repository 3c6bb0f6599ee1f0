/*-------------------------------------------------------------------------
 *
 * test_expr_legacy.c
 *		Unit tests of the legacy parameters' translation into expression
 *		trees: each operator evaluated through the shared evaluator, the
 *		Exists / Value forms, KeyConditions, AttributeUpdates,
 *		AttributesToGet, and DynamoDB's messages for bad input.
 *
 * Test data is written as JSON: legacy maps in plain form, where the
 * members "AttributeValueList", "Value" and every item attribute hold
 * typed AttributeValues ({"S": "x"}), as expr.h describes the input.
 *
 *-------------------------------------------------------------------------
 */
#include "expr/expr.h"
#include "unit.h"

#include <stdio.h>

#include "json_reader.h"

static StErr err;

/* ---------- a small JSON reader for test data ---------- */

static Av  *read_plain(Reader *r);

/* {"T": payload}: a typed AttributeValue. */
static Av *
read_typed(Reader *r)
{
	const char *type;
	int			tlen;
	int			t;
	Av		   *v;

	eat(r, '{');
	tlen = read_string(r, &type);
	eat(r, ':');
	skip_ws(r);
	t = av_type_from_name(type, tlen);
	if (t == AV_BOOL || t == AV_NULL)
	{
		bool		b = strncmp(r->s, "true", 4) == 0;

		r->s += b ? 4 : 5;
		v = t == AV_BOOL ? av_new_bool(b) : av_new_null();
	}
	else if (t == AV_S || t == AV_N || t == AV_B)
	{
		const char *str;
		int			len = read_string(r, &str);

		v = av_new_str(t, str, len);
	}
	else if (t == AV_M)
	{
		v = av_new(AV_M);
		eat(r, '{');
		while (!eat(r, '}'))
		{
			const char *name;
			int			len = read_string(r, &name);

			eat(r, ':');
			av_map_put_nocheck(v, name, len, read_typed(r));
			eat(r, ',');
		}
	}
	else
	{
		v = av_new(t);
		eat(r, '[');
		while (!eat(r, ']'))
		{
			if (t == AV_L)
				av_append(v, read_typed(r));
			else
			{
				const char *str;
				int			len = read_string(r, &str);

				av_append(v, av_new_str(av_set_member_type(t), str, len));
			}
			eat(r, ',');
		}
	}
	eat(r, '}');
	return v;
}

/* A plain JSON value; the members named above switch to typed values. */
static Av *
read_plain(Reader *r)
{
	Av		   *v;

	skip_ws(r);
	if (*r->s == '"')
	{
		const char *str;
		int			len = read_string(r, &str);

		return av_new_str(AV_S, str, len);
	}
	if (strncmp(r->s, "true", 4) == 0 || strncmp(r->s, "false", 5) == 0)
	{
		bool		b = *r->s == 't';

		r->s += b ? 4 : 5;
		return av_new_bool(b);
	}
	if (*r->s == '[')
	{
		v = av_new(AV_L);
		eat(r, '[');
		while (!eat(r, ']'))
		{
			av_append(v, read_plain(r));
			eat(r, ',');
		}
		return v;
	}
	v = av_new(AV_M);
	eat(r, '{');
	while (!eat(r, '}'))
	{
		const char *name;
		int			len = read_string(r, &name);
		bool		typed = (len == 5 && memcmp(name, "Value", 5) == 0);
		bool		typed_list = (len == 18 && memcmp(name, "AttributeValueList", 18) == 0);

		eat(r, ':');
		if (typed)
			av_map_put_nocheck(v, name, len, read_typed(r));
		else if (typed_list)
		{
			Av		   *list = av_new(AV_L);

			eat(r, '[');
			while (!eat(r, ']'))
			{
				av_append(list, read_typed(r));
				eat(r, ',');
			}
			av_map_put_nocheck(v, name, len, list);
		}
		else
			av_map_put_nocheck(v, name, len, read_plain(r));
		eat(r, ',');
	}
	return v;
}

static Av *
plain(const char *json)
{
	Reader		r = {json};

	return read_plain(&r);
}

/* An item: {"attr": typed, ...}. */
static Av *
item(const char *json)
{
	Reader		r = {json};
	Av		   *m = av_new(AV_M);

	eat(&r, '{');
	while (!eat(&r, '}'))
	{
		const char *name;
		int			len = read_string(&r, &name);

		eat(&r, ':');
		av_map_put_nocheck(m, name, len, read_typed(&r));
		eat(&r, ',');
	}
	return m;
}

/* ---------- helpers ---------- */

/*
 * Translate a condition and evaluate it against an item: 1 true, 0 false,
 * -1 an error (in err).
 */
static int
holds(ExprLegacyParam param, const char *conditions, bool or, const char *item_json)
{
	Av		   *values = av_new(AV_M);
	StExpr	   *e = expr_legacy_condition(param, plain(conditions), or, values, &err);
	ExprParams	p = {NULL, values, NULL, NULL};
	bool		result;

	if (e == NULL || !expr_bind(e, &p, &err) ||
		!expr_eval_condition(e, item_json ? item(item_json) : NULL, &p, &result, &err))
		return -1;
	return result ? 1 : 0;
}

static int
filter(const char *conditions, const char *item_json)
{
	return holds(EXPR_LEGACY_SCAN_FILTER, conditions, false, item_json);
}

static int
expected(const char *conditions, const char *item_json)
{
	return holds(EXPR_LEGACY_EXPECTED, conditions, false, item_json);
}

/* The error of a condition that must not translate. */
static const char *
condition_error(ExprLegacyParam param, const char *conditions)
{
	if (expr_legacy_condition(param, plain(conditions), false, av_new(AV_M), &err) != NULL)
		return "(translated)";
	return err.message;
}

#define ITEM "{\"s\": {\"S\": \"hello world\"}, \"n\": {\"N\": \"10\"}, \"b\": {\"B\": \"abc\"}, " \
	"\"ss\": {\"SS\": [\"a\", \"b\"]}, \"ns\": {\"NS\": [\"1\", \"2\"]}, " \
	"\"l\": {\"L\": [{\"S\": \"x\"}, {\"N\": \"3\"}]}, \"nul\": {\"NULL\": true}, " \
	"\"m\": {\"M\": {\"k\": {\"S\": \"v\"}}}, \"a.b\": {\"S\": \"dotted\"}, \"size\": {\"N\": \"4\"}}"

/* ---------- conditions ---------- */

static void
test_comparisons(void)
{
	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"hello world\"}]}}", ITEM) == 1);
	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"hello\"}]}}", ITEM) == 0);
	/* a different type never matches: {"S":"10"} is not {"N":"10"} */
	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"10\"}]}}", ITEM) == 0);
	CHECK(filter("{\"ss\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"SS\": [\"b\", \"a\"]}]}}", ITEM) == 1);
	CHECK(filter("{\"m\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"M\": {\"k\": {\"S\": \"v\"}}}]}}", ITEM) == 1);
	CHECK(filter("{\"missing\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"x\"}]}}", ITEM) == 0);

	/* NE: true for another value, another type, or a missing attribute */
	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"NE\", \"AttributeValueList\": [{\"S\": \"hello world\"}]}}", ITEM) == 0);
	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"NE\", \"AttributeValueList\": [{\"S\": \"x\"}]}}", ITEM) == 1);
	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"NE\", \"AttributeValueList\": [{\"S\": \"10\"}]}}", ITEM) == 1);
	CHECK(filter("{\"missing\": {\"ComparisonOperator\": \"NE\", \"AttributeValueList\": [{\"S\": \"x\"}]}}", ITEM) == 1);

	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"LE\", \"AttributeValueList\": [{\"N\": \"10\"}]}}", ITEM) == 1);
	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"LT\", \"AttributeValueList\": [{\"N\": \"10\"}]}}", ITEM) == 0);
	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"GE\", \"AttributeValueList\": [{\"N\": \"9.5\"}]}}", ITEM) == 1);
	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"GT\", \"AttributeValueList\": [{\"N\": \"10\"}]}}", ITEM) == 0);
	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"GT\", \"AttributeValueList\": [{\"S\": \"hello\"}]}}", ITEM) == 1);
	CHECK(filter("{\"b\": {\"ComparisonOperator\": \"LT\", \"AttributeValueList\": [{\"B\": \"abd\"}]}}", ITEM) == 1);
	/* ordering across types is false, not an error */
	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"GT\", \"AttributeValueList\": [{\"N\": \"1\"}]}}", ITEM) == 0);
	CHECK(filter("{\"missing\": {\"ComparisonOperator\": \"LT\", \"AttributeValueList\": [{\"N\": \"1\"}]}}", ITEM) == 0);
}

static void
test_existence_and_contains(void)
{
	/* NULL / NOT_NULL test existence, not the NULL type */
	CHECK(filter("{\"nul\": {\"ComparisonOperator\": \"NOT_NULL\"}}", ITEM) == 1);
	CHECK(filter("{\"nul\": {\"ComparisonOperator\": \"NULL\"}}", ITEM) == 0);
	CHECK(filter("{\"missing\": {\"ComparisonOperator\": \"NULL\"}}", ITEM) == 1);
	CHECK(filter("{\"missing\": {\"ComparisonOperator\": \"NOT_NULL\"}}", ITEM) == 0);

	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"CONTAINS\", \"AttributeValueList\": [{\"S\": \"lo wo\"}]}}", ITEM) == 1);
	CHECK(filter("{\"ss\": {\"ComparisonOperator\": \"CONTAINS\", \"AttributeValueList\": [{\"S\": \"b\"}]}}", ITEM) == 1);
	CHECK(filter("{\"ns\": {\"ComparisonOperator\": \"CONTAINS\", \"AttributeValueList\": [{\"N\": \"2.0\"}]}}", ITEM) == 1);
	CHECK(filter("{\"l\": {\"ComparisonOperator\": \"CONTAINS\", \"AttributeValueList\": [{\"N\": \"3\"}]}}", ITEM) == 1);
	CHECK(filter("{\"b\": {\"ComparisonOperator\": \"CONTAINS\", \"AttributeValueList\": [{\"B\": \"bc\"}]}}", ITEM) == 1);
	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"CONTAINS\", \"AttributeValueList\": [{\"N\": \"1\"}]}}", ITEM) == 0);
	CHECK(filter("{\"missing\": {\"ComparisonOperator\": \"CONTAINS\", \"AttributeValueList\": [{\"S\": \"x\"}]}}", ITEM) == 0);

	/* NOT_CONTAINS: true unless the value is found, a missing attribute included */
	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"NOT_CONTAINS\", \"AttributeValueList\": [{\"S\": \"world\"}]}}", ITEM) == 0);
	CHECK(filter("{\"ss\": {\"ComparisonOperator\": \"NOT_CONTAINS\", \"AttributeValueList\": [{\"S\": \"c\"}]}}", ITEM) == 1);
	CHECK(filter("{\"missing\": {\"ComparisonOperator\": \"NOT_CONTAINS\", \"AttributeValueList\": [{\"S\": \"x\"}]}}", ITEM) == 1);

	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"BEGINS_WITH\", \"AttributeValueList\": [{\"S\": \"hell\"}]}}", ITEM) == 1);
	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"BEGINS_WITH\", \"AttributeValueList\": [{\"S\": \"world\"}]}}", ITEM) == 0);
	CHECK(filter("{\"b\": {\"ComparisonOperator\": \"BEGINS_WITH\", \"AttributeValueList\": [{\"B\": \"ab\"}]}}", ITEM) == 1);

	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"IN\", \"AttributeValueList\": [{\"N\": \"1\"}, {\"N\": \"10\"}]}}", ITEM) == 1);
	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"IN\", \"AttributeValueList\": [{\"N\": \"1\"}, {\"N\": \"2\"}]}}", ITEM) == 0);
	/* a string never matches a string set */
	CHECK(filter("{\"ss\": {\"ComparisonOperator\": \"IN\", \"AttributeValueList\": [{\"S\": \"a\"}]}}", ITEM) == 0);

	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"BETWEEN\", \"AttributeValueList\": [{\"N\": \"10\"}, {\"N\": \"20\"}]}}", ITEM) == 1);
	CHECK(filter("{\"n\": {\"ComparisonOperator\": \"BETWEEN\", \"AttributeValueList\": [{\"N\": \"1\"}, {\"N\": \"9\"}]}}", ITEM) == 0);
	CHECK(filter("{\"s\": {\"ComparisonOperator\": \"BETWEEN\", \"AttributeValueList\": [{\"S\": \"a\"}, {\"S\": \"i\"}]}}", ITEM) == 1);
}

static void
test_names_and_combination(void)
{
	Av		   *values = av_new(AV_M);
	StExpr	   *e;

	/* a legacy name is one whole attribute: dots and reserved words included */
	CHECK(filter("{\"a.b\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"dotted\"}]}}", ITEM) == 1);
	CHECK(filter("{\"size\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"N\": \"4\"}]}}", ITEM) == 1);

	/* AND by default, OR with ConditionalOperator OR */
	CHECK(holds(EXPR_LEGACY_SCAN_FILTER,
				"{\"n\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"N\": \"10\"}]},"
				" \"s\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"no\"}]}}",
				false, ITEM) == 0);
	CHECK(holds(EXPR_LEGACY_SCAN_FILTER,
				"{\"n\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"N\": \"10\"}]},"
				" \"s\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"no\"}]}}",
				true, ITEM) == 1);

	/* values go to the map under names no request can use */
	e = expr_legacy_condition(EXPR_LEGACY_QUERY_FILTER,
							  plain("{\"n\": {\"ComparisonOperator\": \"BETWEEN\", \"AttributeValueList\": [{\"N\": \"1\"}, {\"N\": \"2\"}]}}"),
							  false, values, &err);
	CHECK(e != NULL && e->kind == EXPR_FILTER && e->cond->kind == EXPR_N_BETWEEN);
	CHECK(values->n == 2);
	CHECK(av_map_get(values, ":legacy.0", 9) != NULL && av_map_get(values, ":legacy.1", 9) != NULL);
	/* a second parameter of the request continues the numbering */
	e = expr_legacy_condition(EXPR_LEGACY_EXPECTED,
							  plain("{\"x\": {\"Value\": {\"S\": \"y\"}}}"), false, values, &err);
	CHECK(e != NULL && e->kind == EXPR_CONDITION && av_map_get(values, ":legacy.2", 9) != NULL);
}

static void
test_expected_forms(void)
{
	/* {Value} alone, or with Exists true: EQ */
	CHECK(expected("{\"s\": {\"Value\": {\"S\": \"hello world\"}}}", ITEM) == 1);
	CHECK(expected("{\"s\": {\"Value\": {\"S\": \"hello\"}, \"Exists\": true}}", ITEM) == 0);
	CHECK(expected("{\"s\": {\"Value\": {\"S\": \"x\"}}}", NULL) == 0);
	/* Exists false: the attribute must be absent (a missing item passes) */
	CHECK(expected("{\"s\": {\"Exists\": false}}", ITEM) == 0);
	CHECK(expected("{\"missing\": {\"Exists\": false}}", ITEM) == 1);
	CHECK(expected("{\"s\": {\"Exists\": false}}", NULL) == 1);
	/* ComparisonOperator with Value as its one value */
	CHECK(expected("{\"n\": {\"ComparisonOperator\": \"GT\", \"Value\": {\"N\": \"5\"}}}", ITEM) == 1);
	CHECK(expected("{\"n\": {\"ComparisonOperator\": \"LE\", \"AttributeValueList\": [{\"N\": \"5\"}]}}", ITEM) == 0);
	CHECK(expected("{\"n\": {\"ComparisonOperator\": \"NULL\"}}", NULL) == 1);
	/* EQ takes any type in Expected, BOOL included */
	CHECK(expected("{\"f\": {\"Value\": {\"BOOL\": false}}}", "{\"f\": {\"BOOL\": false}}") == 1);

	CHECK_STR(condition_error(EXPR_LEGACY_EXPECTED, "{\"a\": {\"Exists\": true}}"),
			  "One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a");
	CHECK_STR(condition_error(EXPR_LEGACY_EXPECTED, "{\"a\": {}}"),
			  "One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a");
	CHECK_STR(condition_error(EXPR_LEGACY_EXPECTED, "{\"a\": {\"Exists\": false, \"Value\": {\"S\": \"x\"}}}"),
			  "One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a");
	CHECK_STR(condition_error(EXPR_LEGACY_EXPECTED,
							  "{\"a\": {\"Value\": {\"S\": \"x\"}, \"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"x\"}]}}"),
			  "One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: a");
	CHECK_STR(condition_error(EXPR_LEGACY_EXPECTED,
							  "{\"a\": {\"Exists\": true, \"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"x\"}]}}"),
			  "One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: a");
	CHECK_STR(condition_error(EXPR_LEGACY_EXPECTED, "{\"a\": {\"AttributeValueList\": [{\"S\": \"x\"}]}}"),
			  "One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for Attribute: a");
	CHECK_STR(condition_error(EXPR_LEGACY_EXPECTED, "{\"a\": {\"ComparisonOperator\": \"EQ\"}}"),
			  "One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a");
	CHECK_STR(condition_error(EXPR_LEGACY_EXPECTED, "{\"a\": {\"ComparisonOperator\": \"IN\", \"AttributeValueList\": []}}"),
			  "One or more parameter values were invalid: Invalid number of argument(s) for the IN ComparisonOperator");
	/* Expected's ComparisonOperator is optional, a filter's is not */
	CHECK_STR(condition_error(EXPR_LEGACY_QUERY_FILTER, "{\"a\": {\"AttributeValueList\": [{\"S\": \"x\"}]}}"),
			  "1 validation error detected: Value null at 'queryFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must not be null");
}

static void
test_condition_errors(void)
{
	static const char *const one[] = {"EQ", "NE", "LE", "LT", "GE", "GT", "CONTAINS", "NOT_CONTAINS", "BEGINS_WITH"};
	char		json[256];
	char		msg[256];

	/* arity, for every operator */
	for (int i = 0; i < (int) lengthof(one); i++)
	{
		snprintf(json, sizeof(json), "{\"a\": {\"ComparisonOperator\": \"%s\"}}", one[i]);
		snprintf(msg, sizeof(msg), "One or more parameter values were invalid: Invalid number of argument(s) for the %s ComparisonOperator", one[i]);
		CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, json), msg);
		snprintf(json, sizeof(json), "{\"a\": {\"ComparisonOperator\": \"%s\", \"AttributeValueList\": [{\"S\": \"a\"}, {\"S\": \"b\"}]}}", one[i]);
		CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, json), msg);
	}
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"NULL\", \"AttributeValueList\": [{\"S\": \"a\"}]}}"),
			  "One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator");
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"NOT_NULL\", \"AttributeValueList\": [{\"S\": \"a\"}]}}"),
			  "One or more parameter values were invalid: Invalid number of argument(s) for the NOT_NULL ComparisonOperator");
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"IN\", \"AttributeValueList\": []}}"),
			  "One or more parameter values were invalid: Invalid number of argument(s) for the IN ComparisonOperator");
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"BETWEEN\", \"AttributeValueList\": [{\"N\": \"1\"}]}}"),
			  "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator");

	/* types */
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"LE\", \"AttributeValueList\": [{\"SS\": [\"a\"]}]}}"),
			  "One or more parameter values were invalid: ComparisonOperator LE is not valid for SS AttributeValue type");
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"BEGINS_WITH\", \"AttributeValueList\": [{\"N\": \"1\"}]}}"),
			  "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type");
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"CONTAINS\", \"AttributeValueList\": [{\"L\": []}]}}"),
			  "One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for L AttributeValue type");
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"IN\", \"AttributeValueList\": [{\"N\": \"1\"}, {\"S\": \"1\"}]}}"),
			  "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type");
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"BETWEEN\", \"AttributeValueList\": [{\"N\": \"9\"}, {\"N\": \"10\"}]}}"),
			  "(translated)");
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"BETWEEN\", \"AttributeValueList\": [{\"S\": \"b\"}, {\"S\": \"a\"}]}}"),
			  "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound");

	/* operator names are exact */
	CHECK_STR(condition_error(EXPR_LEGACY_SCAN_FILTER, "{\"a\": {\"ComparisonOperator\": \"eq\", \"AttributeValueList\": [{\"S\": \"a\"}]}}"),
			  "1 validation error detected: Value 'eq' at 'scanFilter.a.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]");
	CHECK_STR(condition_error(EXPR_LEGACY_EXPECTED, "{\"a\": {\"ComparisonOperator\": \"LIKE\", \"Value\": {\"S\": \"a\"}}}"),
			  "1 validation error detected: Value 'LIKE' at 'expected.a.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]");
	CHECK(expr_legacy_condition(EXPR_LEGACY_SCAN_FILTER, plain("{}"), false, av_new(AV_M), &err) == NULL);
}

/* ---------- KeyConditions ---------- */

static const char *
key_error(const char *conditions, const char *sk)
{
	if (expr_legacy_key_conditions(plain(conditions), "pk", 2, sk, sk ? strlen(sk) : 0,
								   av_new(AV_M), &err) != NULL)
		return "(translated)";
	return err.message;
}

static void
test_key_conditions(void)
{
	Av		   *values = av_new(AV_M);
	ExprParams	p = {NULL, values, NULL, NULL};
	ExprKeyCondition kc;
	StExpr	   *e;

	e = expr_legacy_key_conditions(plain("{\"sk\": {\"ComparisonOperator\": \"BETWEEN\", \"AttributeValueList\": [{\"S\": \"a\"}, {\"S\": \"m\"}]},"
										 " \"pk\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"P\"}]}}"),
								   "pk", 2, "sk", 2, values, &err);
	CHECK(e != NULL && e->kind == EXPR_KEY_CONDITION);
	CHECK(e != NULL && expr_bind(e, &p, &err) && expr_key_condition(e, &p, "pk", 2, "sk", 2, &kc, &err));
	CHECK(kc.pk_value != NULL && kc.pk_value->len == 1 && kc.pk_value->str[0] == 'P');
	CHECK(kc.has_sk && kc.sk_op == EXPR_KEY_BETWEEN && kc.sk_value2 && kc.sk_value2->str[0] == 'm');

	values = av_new(AV_M);
	p.values = values;
	e = expr_legacy_key_conditions(plain("{\"pk\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"N\": \"1\"}]}}"),
								   "pk", 2, "sk", 2, values, &err);
	CHECK(e != NULL && expr_bind(e, &p, &err) && expr_key_condition(e, &p, "pk", 2, "sk", 2, &kc, &err));
	CHECK(!kc.has_sk);

	values = av_new(AV_M);
	p.values = values;
	e = expr_legacy_key_conditions(plain("{\"pk\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"P\"}]},"
										 " \"sk\": {\"ComparisonOperator\": \"BEGINS_WITH\", \"AttributeValueList\": [{\"S\": \"OR\"}]}}"),
								   "pk", 2, "sk", 2, values, &err);
	CHECK(e != NULL && expr_bind(e, &p, &err) && expr_key_condition(e, &p, "pk", 2, "sk", 2, &kc, &err));
	CHECK(kc.has_sk && kc.sk_op == EXPR_KEY_BEGINS_WITH);

	CHECK_STR(key_error("{}", "sk"), "Conditions can be of length 1 or 2 only");
	CHECK_STR(key_error("{\"pk\": {\"ComparisonOperator\": \"NULL\"}, \"sk\": {\"ComparisonOperator\": \"NULL\"},"
						" \"x\": {\"ComparisonOperator\": \"NULL\"}}", "sk"),
			  "Conditions can be of length 1 or 2 only");
	/* each condition is checked before their number */
	CHECK_STR(key_error("{\"pk\": {\"ComparisonOperator\": \"EQ\"}, \"sk\": {\"ComparisonOperator\": \"NULL\"},"
						" \"x\": {\"ComparisonOperator\": \"NULL\"}}", "sk"),
			  "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator");
	CHECK_STR(key_error("{\"x\": {\"ComparisonOperator\": \"NULL\"}}", "sk"),
			  "Query condition missed key schema element: pk");
	CHECK_STR(key_error("{\"pk\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"P\"}]},"
						" \"x\": {\"ComparisonOperator\": \"NULL\"}}", "sk"),
			  "Query condition missed key schema element: sk");
	CHECK_STR(key_error("{\"pk\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"P\"}]},"
						" \"sk\": {\"ComparisonOperator\": \"NOT_NULL\"}}", "sk"),
			  "Attempted conditional constraint is not an indexable operation");
	CHECK_STR(key_error("{\"pk\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"P\"}]},"
						" \"sk\": {\"ComparisonOperator\": \"NE\", \"AttributeValueList\": [{\"S\": \"P\"}]}}", "sk"),
			  "Attempted conditional constraint is not an indexable operation");
	CHECK_STR(key_error("{\"pk\": {\"ComparisonOperator\": \"GT\", \"AttributeValueList\": [{\"S\": \"P\"}]}}", "sk"),
			  "Query key condition not supported");
	CHECK_STR(key_error("{\"pk\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"P\"}]},"
						" \"sk\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"P\"}]}}", NULL),
			  "Query key condition not supported");
	CHECK_STR(key_error("{\"pk\": {\"ComparisonOperator\": \"EQ\", \"AttributeValueList\": [{\"S\": \"P\"}]}}", NULL),
			  "(translated)");
}

/* ---------- AttributeUpdates ---------- */

/* Apply updates to an item; returns the error message or NULL. */
static const char *
update(const char *updates, Av *target, ExprUpdateInfo *info)
{
	Av		   *values = av_new(AV_M);
	StExpr	   *e = expr_legacy_update(plain(updates), values, &err);
	ExprParams	p = {NULL, values, NULL, NULL};

	if (e == NULL || !expr_bind(e, &p, &err) ||
		!expr_legacy_apply_update(e, target, &p, info, &err))
		return err.message;
	return NULL;
}

static bool
attr_is(const Av *it, const char *name, const char *typed)
{
	Av		   *v = av_map_get(it, name, strlen(name));
	Reader		r = {typed};

	return v != NULL && av_equal(v, read_typed(&r));
}

static void
test_attribute_updates(void)
{
	Av		   *it = item("{\"n\": {\"N\": \"1\"}, \"ss\": {\"SS\": [\"a\", \"b\"]}, \"l\": {\"L\": [{\"S\": \"x\"}]}, \"s\": {\"S\": \"v\"}}");
	ExprUpdateInfo info;

	/* PUT (also the default action) */
	CHECK(update("{\"s\": {\"Action\": \"PUT\", \"Value\": {\"S\": \"w\"}}, \"t\": {\"Value\": {\"N\": \"7\"}}}", it, &info) == NULL);
	CHECK(attr_is(it, "s", "{\"S\": \"w\"}") && attr_is(it, "t", "{\"N\": \"7\"}"));
	CHECK(info.npaths == 2);

	/* ADD: numbers add (a missing one counts as 0), sets unite, lists append */
	CHECK(update("{\"n\": {\"Action\": \"ADD\", \"Value\": {\"N\": \"2.5\"}}, \"c\": {\"Action\": \"ADD\", \"Value\": {\"N\": \"-3\"}}}", it, NULL) == NULL);
	CHECK(attr_is(it, "n", "{\"N\": \"3.5\"}") && attr_is(it, "c", "{\"N\": \"-3\"}"));
	CHECK(update("{\"ss\": {\"Action\": \"ADD\", \"Value\": {\"SS\": [\"b\", \"c\"]}}, \"ns\": {\"Action\": \"ADD\", \"Value\": {\"NS\": [\"1\"]}}}", it, NULL) == NULL);
	CHECK(attr_is(it, "ss", "{\"SS\": [\"a\", \"b\", \"c\"]}") && attr_is(it, "ns", "{\"NS\": [\"1\"]}"));
	CHECK(update("{\"l\": {\"Action\": \"ADD\", \"Value\": {\"L\": [{\"N\": \"2\"}]}}, \"l2\": {\"Action\": \"ADD\", \"Value\": {\"L\": [{\"N\": \"1\"}]}}}", it, NULL) == NULL);
	CHECK(attr_is(it, "l", "{\"L\": [{\"S\": \"x\"}, {\"N\": \"2\"}]}") && attr_is(it, "l2", "{\"L\": [{\"N\": \"1\"}]}"));

	/* DELETE: members of a set (an emptied set disappears), or the whole attribute */
	CHECK(update("{\"ss\": {\"Action\": \"DELETE\", \"Value\": {\"SS\": [\"a\", \"z\"]}}, \"t\": {\"Action\": \"DELETE\"}}", it, NULL) == NULL);
	CHECK(attr_is(it, "ss", "{\"SS\": [\"b\", \"c\"]}") && av_map_get(it, "t", 1) == NULL);
	CHECK(update("{\"ns\": {\"Action\": \"DELETE\", \"Value\": {\"NS\": [\"1\"]}}, \"gone\": {\"Action\": \"DELETE\"}}", it, NULL) == NULL);
	CHECK(av_map_get(it, "ns", 2) == NULL);

	/* bad updates */
	CHECK_STR(update("{\"a\": {\"Action\": \"PUT\"}}", it, NULL),
			  "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified");
	CHECK_STR(update("{\"a\": {\"Action\": \"ADD\"}}", it, NULL),
			  "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified");
	CHECK_STR(update("{\"a\": {\"Action\": \"DELETE\", \"Value\": {\"S\": \"x\"}}}", it, NULL),
			  "One or more parameter values were invalid: DELETE action with value is not supported for the type S");
	CHECK_STR(update("{\"a\": {\"Action\": \"ADD\", \"Value\": {\"S\": \"x\"}}}", it, NULL),
			  "One or more parameter values were invalid: ADD action is not supported for the type S");
	CHECK_STR(update("{\"a\": {\"Action\": \"REMOVE\"}}", it, NULL),
			  "1 validation error detected: Value 'REMOVE' at 'attributeUpdates.a.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, DELETE, PUT]");
	/* type mismatches against the item, in the legacy wording */
	CHECK_STR(update("{\"s\": {\"Action\": \"ADD\", \"Value\": {\"N\": \"1\"}}}", it, NULL),
			  "Type mismatch for attribute to update");
	CHECK_STR(update("{\"ss\": {\"Action\": \"ADD\", \"Value\": {\"NS\": [\"1\"]}}}", it, NULL),
			  "Type mismatch for attribute to update");
	CHECK_STR(update("{\"s\": {\"Action\": \"ADD\", \"Value\": {\"L\": []}}}", it, NULL),
			  "Type mismatch for attribute to update");
	CHECK_STR(update("{\"n\": {\"Action\": \"DELETE\", \"Value\": {\"NS\": [\"1\"]}}}", it, NULL),
			  "Type mismatch for attribute to update");
}

/* ---------- AttributesToGet and mixing ---------- */

static void
test_projection(void)
{
	StExpr	   *e = expr_legacy_projection(plain("[\"s\", \"a.b\", \"missing\"]"), &err);
	Av		   *out = e ? expr_project(e, item(ITEM), NULL) : NULL;
	const char *const legacy[] = {"AttributesToGet", "QueryFilter"};
	const char *const exprs[] = {"ProjectionExpression"};

	CHECK(e != NULL && e->kind == EXPR_PROJECTION && e->npaths == 3);
	CHECK(out != NULL && out->n == 2 && attr_is(out, "a.b", "{\"S\": \"dotted\"}"));

	CHECK(expr_legacy_projection(plain("[]"), &err) == NULL);
	CHECK_STR(err.message,
			  "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1");
	CHECK(expr_legacy_projection(plain("[\"a\", \"b\", \"a\"]"), &err) == NULL);
	CHECK_STR(err.message, "One or more parameter values were invalid: Duplicate value in attribute name: a");
	CHECK(expr_legacy_projection(plain("[true]"), &err) == NULL && err.code == ST_ERR_SERIALIZATION);

	CHECK(!expr_legacy_mix_error(legacy, 2, exprs, 1, &err));
	CHECK_STR(err.message,
			  "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet, QueryFilter} Expression parameters: {ProjectionExpression}");
}

int
main(void)
{
	test_comparisons();
	test_existence_and_contains();
	test_names_and_combination();
	test_expected_forms();
	test_condition_errors();
	test_key_conditions();
	test_attribute_updates();
	test_projection();
	return unit_summary("test_expr_legacy");
}
