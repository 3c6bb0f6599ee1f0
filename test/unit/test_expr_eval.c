/*-------------------------------------------------------------------------
 *
 * test_expr_eval.c
 *		Unit tests of expression evaluation: conditions, update application
 *		and projection, with DynamoDB's semantics.
 *
 * Items and values are written in DynamoDB's typed JSON, read by a small
 * parser below (B values are written as raw text, not base64).
 *
 *-------------------------------------------------------------------------
 */
#include "expr/expr.h"
#include "unit.h"

#include <stdio.h>

#include "json_reader.h"

static StErr err;

/* ---------- a tiny typed-JSON reader for test data ---------- */

static Av  *read_typed(Reader *r);

static Av *
read_map_body(Reader *r)
{
	Av		   *m = av_new(AV_M);

	eat(r, '{');
	while (!eat(r, '}'))
	{
		const char *name;
		int			len = read_string(r, &name);

		eat(r, ':');
		av_map_put_nocheck(m, name, len, read_typed(r));
		eat(r, ',');
	}
	return m;
}

static Av *
read_payload(Reader *r, const char *type, int tlen)
{
	const char *str;
	int			len;
	int			t = av_type_from_name(type, tlen);
	Av		   *v;

	skip_ws(r);
	if (t == AV_M)
		return read_map_body(r);
	if (t == AV_BOOL || t == AV_NULL)
	{
		bool		b = strncmp(r->s, "true", 4) == 0;

		r->s += b ? 4 : 5;
		return t == AV_BOOL ? av_new_bool(b) : av_new_null();
	}
	if (t == AV_S || t == AV_N || t == AV_B)
	{
		len = read_string(r, &str);
		return av_new_str(t, str, len);
	}
	v = av_new(t);
	eat(r, '[');
	while (!eat(r, ']'))
	{
		if (t == AV_L)
			av_append(v, read_typed(r));
		else
		{
			len = read_string(r, &str);
			av_append(v, av_new_str(av_set_member_type(t), str, len));
		}
		eat(r, ',');
	}
	return v;
}

/* {"T": payload} */
static Av *
read_typed(Reader *r)
{
	const char *type;
	int			tlen;
	Av		   *v;

	eat(r, '{');
	tlen = read_string(r, &type);
	eat(r, ':');
	v = read_payload(r, type, tlen);
	eat(r, '}');
	return v;
}

/* An item or a placeholder map: {"name": {"T": ...}, ...} */
static Av *
J(const char *text)
{
	Reader		r = {text};

	return read_map_body(&r);
}

/* Canonical-ish text of a value, for comparisons in tests. */
static void
show(const Av *v, char *buf, size_t cap)
{
	size_t		pos = strlen(buf);

#define PUT(...) (pos += snprintf(buf + pos, pos < cap ? cap - pos : 0, __VA_ARGS__))
	switch (v->type)
	{
		case AV_S:
		case AV_N:
		case AV_B:
			PUT("{\"%s\":\"%.*s\"}", av_type_name(v->type), v->len, v->str);
			break;
		case AV_BOOL:
			PUT("{\"BOOL\":%s}", v->boolval ? "true" : "false");
			break;
		case AV_NULL:
			PUT("{\"NULL\":true}");
			break;
		case AV_M:
			PUT("{\"M\":{");
			for (int i = 0; i < v->n; i++)
			{
				PUT("%s\"%s\":", i ? "," : "", v->members[i].name);
				show(v->members[i].value, buf, cap);
				pos = strlen(buf);
			}
			PUT("}}");
			break;
		default:
			PUT("{\"%s\":[", av_type_name(v->type));
			for (int i = 0; i < v->n; i++)
			{
				if (i)
					PUT(",");
				if (v->type == AV_L)
				{
					show(v->items[i], buf, cap);
					pos = strlen(buf);
				}
				else
					PUT("\"%.*s\"", v->items[i]->len, v->items[i]->str);
			}
			PUT("]}");
			break;
	}
#undef PUT
}

/* An item map as text, members in stored order: {"a":{"S":"x"},...} */
static char *
show_item(const Av *item)
{
	char	   *buf = palloc(8192);

	buf[0] = '\0';
	if (item == NULL)
		return strcpy(buf, "(null)");
	show(item, buf, 8192);
	/* drop the outer {"M": ... } */
	memmove(buf, buf + 5, strlen(buf + 5) + 1);
	buf[strlen(buf) - 1] = '\0';
	return buf;
}

/* ---------- helpers ---------- */

static const char *ITEM =
"{\"s\":{\"S\":\"hello world\"}, \"n\":{\"N\":\"10\"}, \"m\":{\"N\":\"-2.5\"},"
" \"b\":{\"B\":\"abc\"}, \"t\":{\"BOOL\":true}, \"z\":{\"NULL\":true},"
" \"l\":{\"L\":[{\"S\":\"x\"},{\"N\":\"1\"},{\"L\":[{\"S\":\"deep\"}]}]},"
" \"doc\":{\"M\":{\"k\":{\"S\":\"v\"},\"nest\":{\"M\":{\"x\":{\"N\":\"7\"}}}}},"
" \"ss\":{\"SS\":[\"a\",\"b\"]}, \"ns\":{\"NS\":[\"1\",\"2\",\"3\"]}, \"bs\":{\"BS\":[\"q\"]},"
" \"blank\":{\"S\":\"\"}, \"u\":{\"S\":\"h\u00e9llo\"}}";

static const char *VALUES =
"{\":s\":{\"S\":\"hello world\"}, \":hello\":{\"S\":\"hello\"}, \":world\":{\"S\":\"world\"},"
" \":n10\":{\"N\":\"10.0\"}, \":n5\":{\"N\":\"5\"}, \":n20\":{\"N\":\"20\"}, \":n1\":{\"N\":\"1\"},"
" \":n2\":{\"N\":\"2\"}, \":n3\":{\"N\":\"3\"}, \":n0\":{\"N\":\"0\"}, \":n11\":{\"N\":\"11\"},"
" \":s10\":{\"S\":\"10\"}, \":a\":{\"S\":\"a\"}, \":x\":{\"S\":\"x\"}, \":ab\":{\"B\":\"ab\"},"
" \":bc\":{\"B\":\"bc\"}, \":q\":{\"B\":\"q\"}, \":true\":{\"BOOL\":true}, \":null\":{\"NULL\":true},"
" \":tS\":{\"S\":\"S\"}, \":tN\":{\"S\":\"N\"}, \":tB\":{\"S\":\"B\"}, \":tBOOL\":{\"S\":\"BOOL\"},"
" \":tNULL\":{\"S\":\"NULL\"}, \":tL\":{\"S\":\"L\"}, \":tM\":{\"S\":\"M\"}, \":tSS\":{\"S\":\"SS\"},"
" \":tNS\":{\"S\":\"NS\"}, \":tBS\":{\"S\":\"BS\"}, \":deep\":{\"L\":[{\"S\":\"deep\"}]},"
" \":mapv\":{\"M\":{\"k\":{\"S\":\"v\"},\"nest\":{\"M\":{\"x\":{\"N\":\"7\"}}}}},"
" \":ssab\":{\"SS\":[\"b\",\"a\"]}, \":n11s\":{\"S\":\"11\"}, \":n7\":{\"N\":\"7\"}, \":n6\":{\"N\":\"6\"}, \":blank\":{\"S\":\"\"},"
" \":lo\":{\"S\":\"a\"}, \":hi\":{\"S\":\"z\"}}";

static Av  *item;
static ExprParams params;

/* 1 true, 0 false, -1 error. */
static int
cond(const char *text)
{
	StExpr	   *e = expr_parse(EXPR_CONDITION, text, strlen(text), &err);
	bool		r;

	if (e == NULL || !expr_bind(e, &params, &err) ||
		!expr_eval_condition(e, item, &params, &r, &err))
	{
		fprintf(stderr, "error in \"%s\": %s\n", text, err.message);
		return -1;
	}
	return r ? 1 : 0;
}

#define T(text) CHECK(cond(text) == 1)
#define F(text) CHECK(cond(text) == 0)

static void
setup(void)
{
	item = J(ITEM);
	params.names = J("{\"#s\":{\"S\":\"s\"}, \"#dot\":{\"S\":\"a.b\"}, \"#doc\":{\"S\":\"doc\"}}");
	params.values = J(VALUES);
	params.names_used = NULL;
	params.values_used = NULL;
}

/* ---------- conditions ---------- */

static void
test_comparisons(void)
{
	T("s = :s");
	T("#s = :s");
	F("s = :hello");
	T("s <> :hello");
	T("n = :n10");				/* numeric equality: 10 = 10.0 */
	F("n <> :n10");
	T("n > :n5");
	T("n >= :n10");
	T("n <= :n10");
	F("n < :n10");
	T("m < :n0");
	T("s > :hello");
	T(":hello < s");
	T("b > :ab");
	T("b < :bc");
	/* different types: comparisons false, <> true */
	F("n = :s10");
	T("n <> :s10");
	F("n < :s10");
	F("n > :s10");
	F("n >= :s10");
	F("t < :s10");				/* a stored BOOL is not orderable: false */
	CHECK(cond("t < :true") == -1);	/* a BOOL :value is refused */
	T("t = :true");
	T("z = :null");
	/* absent attributes */
	F("nope = :n10");
	T("nope <> :n10");
	F("nope < :n10");
	F("nope >= :n10");
	/* documents */
	T("doc = :mapv");
	T("doc.nest.x = :n7");
	T("#doc.nest.x = :n7");
	T("l[1] = :n1");
	T("l[0] = :x");
	T("l[2] = :deep");
	T("l[2][0] <> :x");
	F("l[3] = :x");
	F("s[0] = :x");
	F("doc.k.z = :x");
	T("ss = :ssab");			/* sets compare as sets */
	F("#dot = :x");				/* "a.b" is one (absent) attribute */
}

static void
test_between_in(void)
{
	T("n BETWEEN :n5 AND :n20");
	T("n BETWEEN :n10 AND :n10");
	F("n BETWEEN :n11 AND :n20");
	T("s BETWEEN :lo AND :hi");
	F("n BETWEEN :lo AND :hi");
	F("nope BETWEEN :n5 AND :n20");
	T("n IN (:n5, :n10)");
	F("n IN (:n5, :n20)");
	T("s IN (:s)");
	F("n IN (:s10)");
	F("nope IN (:n5)");
	T("doc IN (:n5, :mapv)");
	T("size(s) IN (:n11)");
}

static void
test_functions(void)
{
	T("attribute_exists(s)");
	T("attribute_exists(doc.nest.x)");
	T("attribute_exists(l[2][0])");
	F("attribute_exists(l[5])");
	F("attribute_exists(nope)");
	T("attribute_not_exists(nope)");
	T("attribute_not_exists(doc.nope)");
	F("attribute_not_exists(z)");

	T("attribute_type(s, :tS)");
	T("attribute_type(n, :tN)");
	T("attribute_type(b, :tB)");
	T("attribute_type(t, :tBOOL)");
	T("attribute_type(z, :tNULL)");
	T("attribute_type(l, :tL)");
	T("attribute_type(doc, :tM)");
	T("attribute_type(ss, :tSS)");
	T("attribute_type(ns, :tNS)");
	T("attribute_type(bs, :tBS)");
	F("attribute_type(s, :tN)");
	F("attribute_type(nope, :tS)");

	T("begins_with(s, :hello)");
	F("begins_with(s, :world)");
	T("begins_with(s, :blank)");
	T("begins_with(b, :ab)");
	F("begins_with(b, :bc)");
	F("begins_with(n, :s10)");	/* N is not a string */
	F("begins_with(nope, :hello)");

	T("contains(s, :world)");
	T("contains(s, :blank)");
	F("contains(s, :x)");
	T("contains(ss, :a)");
	F("contains(ss, :x)");
	T("contains(ns, :n2)");
	F("contains(ns, :n5)");
	F("contains(ns, :s10)");
	T("contains(bs, :q)");
	T("contains(l, :x)");
	T("contains(l, :n1)");
	T("contains(l, :deep)");
	F("contains(l, :a)");
	F("contains(n, :n10)");
	F("contains(nope, :x)");

	T("size(s) = :n11");
	T("size(b) = :n3");
	T("size(l) = :n3");
	T("size(doc) = :n2");
	T("size(ss) = :n2");
	T("size(ns) = :n3");
	T("size(bs) = :n1");
	T("size(blank) = :n0");
	T("size(u) = :n5");			/* UTF-16 code units, not UTF-8 bytes */
	F("size(n) = :n2");			/* numbers have no size */
	F("size(nope) > :n0");
	T("size(:hello) = :n5");
	T("size(l[2]) = :n1");
}

static void
test_logic(void)
{
	T("s = :s AND n = :n10");
	F("s = :s AND n = :n5");
	T("s = :hello OR n = :n10");
	F("s = :hello OR n = :n5");
	T("NOT s = :hello");
	F("NOT NOT s = :hello");
	T("NOT attribute_exists(nope)");
	T("s = :hello OR n = :n5 OR attribute_exists(t)");
	T("(s = :hello OR n = :n10) AND NOT contains(ss, :x)");
	F("s = :hello OR n = :n10 AND n = :n5");
	T("s = :s OR n = :n10 AND n = :n5");
	T("NOT (s = :hello AND n = :n10)");
}

static void
test_absent_item(void)
{
	const char *text = "attribute_not_exists(pk) AND NOT attribute_exists(s)";
	StExpr	   *e = expr_parse(EXPR_CONDITION, text, strlen(text), &err);
	bool		r = false;

	CHECK(e && expr_eval_condition(e, NULL, &params, &r, &err) && r);
	e = expr_parse(EXPR_CONDITION, "s <> :s", 7, &err);
	CHECK(e && expr_eval_condition(e, NULL, &params, &r, &err) && r);
	e = expr_parse(EXPR_CONDITION, "s = :s", 6, &err);
	CHECK(e && expr_eval_condition(e, NULL, &params, &r, &err) && !r);
}

/* ---------- updates ---------- */

/* Apply text to a copy of the item given as JSON: the resulting item text, or "ERR: message". */
static const char *
upd(const char *item_json, const char *text, const char *values_json)
{
	StExpr	   *e = expr_parse(EXPR_UPDATE, text, strlen(text), &err);
	ExprParams	p = {J("{\"#a\":{\"S\":\"a\"}, \"#dot\":{\"S\":\"x.y\"}}"),
	values_json ? J(values_json) : NULL, NULL, NULL};
	Av		   *it = J(item_json);
	char	   *out;

	if (e == NULL || !expr_bind(e, &p, &err) || !expr_apply_update(e, it, &p, NULL, &err))
	{
		out = palloc(strlen(err.message) + 6);
		sprintf(out, "ERR: %s", err.message);
		return out;
	}
	return show_item(it);
}

#define V1 "{\":v\":{\"S\":\"x\"}, \":n\":{\"N\":\"5\"}, \":l\":{\"L\":[{\"S\":\"z\"}]}, \":ss\":{\"SS\":[\"b\",\"c\"]}, \":ns\":{\"NS\":[\"1\"]}, \":neg\":{\"N\":\"-7.5\"}, \":big\":{\"N\":\"99999999999999999999999999999999999999\"}, \":bigexp\":{\"N\":\"9E+125\"}}"

static void
test_update_set(void)
{
	CHECK_STR(upd("{}", "SET a = :v", V1), "{\"a\":{\"S\":\"x\"}}");
	CHECK_STR(upd("{\"a\":{\"N\":\"1\"}}", "SET a = :v", V1), "{\"a\":{\"S\":\"x\"}}");
	CHECK_STR(upd("{\"a\":{\"N\":\"1\"}}", "SET #a = a + :n", V1), "{\"a\":{\"N\":\"6\"}}");
	CHECK_STR(upd("{\"a\":{\"N\":\"1\"}}", "SET b = a - :n", V1), "{\"a\":{\"N\":\"1\"},\"b\":{\"N\":\"-4\"}}");
	CHECK_STR(upd("{\"a\":{\"N\":\"1\"}}", "SET b = :n - a", V1), "{\"a\":{\"N\":\"1\"},\"b\":{\"N\":\"4\"}}");
	CHECK_STR(upd("{\"a\":{\"N\":\"1.5\"}}", "SET a = a + :neg", V1), "{\"a\":{\"N\":\"-6\"}}");
	CHECK_STR(upd("{\"a\":{\"S\":\"1\"}}", "SET a = a + :n", V1),
			  "ERR: An operand in the update expression has an incorrect data type");
	CHECK_STR(upd("{}", "SET a = b + :n", V1),
			  "ERR: The provided expression refers to an attribute that does not exist in the item");
	CHECK_STR(upd("{}", "SET a = b", V1),
			  "ERR: The provided expression refers to an attribute that does not exist in the item");
	/* swap: every operand reads the item before the update */
	CHECK_STR(upd("{\"a\":{\"N\":\"1\"},\"b\":{\"N\":\"2\"}}", "SET a = b, b = a", NULL),
			  "{\"a\":{\"N\":\"2\"},\"b\":{\"N\":\"1\"}}");
	/* if_not_exists */
	CHECK_STR(upd("{}", "SET a = if_not_exists(a, :n)", V1), "{\"a\":{\"N\":\"5\"}}");
	CHECK_STR(upd("{\"a\":{\"N\":\"1\"}}", "SET a = if_not_exists(a, :n)", V1), "{\"a\":{\"N\":\"1\"}}");
	CHECK_STR(upd("{}", "SET a = if_not_exists(a, :n) + :n", V1), "{\"a\":{\"N\":\"10\"}}");
	/* list_append */
	CHECK_STR(upd("{\"l\":{\"L\":[{\"S\":\"a\"}]}}", "SET l = list_append(l, :l)", V1),
			  "{\"l\":{\"L\":[{\"S\":\"a\"},{\"S\":\"z\"}]}}");
	CHECK_STR(upd("{\"l\":{\"L\":[{\"S\":\"a\"}]}}", "SET l = list_append(:l, l)", V1),
			  "{\"l\":{\"L\":[{\"S\":\"z\"},{\"S\":\"a\"}]}}");
	CHECK_STR(upd("{}", "SET l = list_append(if_not_exists(l, :l), :l)", V1),
			  "{\"l\":{\"L\":[{\"S\":\"z\"},{\"S\":\"z\"}]}}");
	CHECK_STR(upd("{\"l\":{\"S\":\"a\"}}", "SET l = list_append(l, :l)", V1),
			  "ERR: An operand in the update expression has an incorrect data type");
	/* nested paths */
	CHECK_STR(upd("{\"m\":{\"M\":{}}}", "SET m.k = :v", V1), "{\"m\":{\"M\":{\"k\":{\"S\":\"x\"}}}}");
	CHECK_STR(upd("{}", "SET m.k = :v", V1),
			  "ERR: The document path provided in the update expression is invalid for update");
	CHECK_STR(upd("{\"m\":{\"S\":\"s\"}}", "SET m.k = :v", V1),
			  "ERR: The document path provided in the update expression is invalid for update");
	CHECK_STR(upd("{\"m\":{\"M\":{}}}", "SET m[0] = :v", V1),
			  "ERR: The document path provided in the update expression is invalid for update");
	CHECK_STR(upd("{\"l\":{\"L\":[{\"S\":\"a\"},{\"S\":\"b\"}]}}", "SET l[1] = :v", V1),
			  "{\"l\":{\"L\":[{\"S\":\"a\"},{\"S\":\"x\"}]}}");
	/* an index past the end appends */
	CHECK_STR(upd("{\"l\":{\"L\":[{\"S\":\"a\"}]}}", "SET l[10] = :v", V1),
			  "{\"l\":{\"L\":[{\"S\":\"a\"},{\"S\":\"x\"}]}}");
	CHECK_STR(upd("{\"l\":{\"L\":[{\"M\":{}}]}}", "SET l[0].k = :n", V1),
			  "{\"l\":{\"L\":[{\"M\":{\"k\":{\"N\":\"5\"}}}]}}");
	/* a #name with a dot is one top-level attribute */
	CHECK_STR(upd("{}", "SET #dot = :v", V1), "{\"x.y\":{\"S\":\"x\"}}");
	/*
	 * 38 digits of precision, and DynamoDB's overflow: the wording of
	 * number errors belongs to number.c, so only their presence is checked.
	 */
	CHECK(strncmp(upd("{\"a\":{\"N\":\"0.5\"}}", "SET a = a + :big", V1), "ERR: ", 5) == 0);
	CHECK(strncmp(upd("{\"a\":{\"N\":\"0.1\"}}", "SET a = :big - a", V1), "ERR: ", 5) == 0);
	CHECK(strncmp(upd("{\"a\":{\"N\":\"0.5\"}}", "ADD a :big", V1), "ERR: ", 5) == 0);
	CHECK_STR(upd("{\"a\":{\"N\":\"1E-130\"}}", "SET a = a - a", V1), "{\"a\":{\"N\":\"0\"}}");
	CHECK_STR(upd("{\"a\":{\"N\":\"-1\"}}", "SET a = a + :big", V1),
			  "{\"a\":{\"N\":\"99999999999999999999999999999999999998\"}}");
	CHECK(strncmp(upd("{\"a\":{\"N\":\"9E+125\"}}", "SET a = a + :bigexp", V1),
				  "ERR: Number overflow", 20) == 0);
}

static void
test_update_remove(void)
{
	CHECK_STR(upd("{\"a\":{\"S\":\"x\"},\"b\":{\"S\":\"y\"}}", "REMOVE a", NULL), "{\"b\":{\"S\":\"y\"}}");
	CHECK_STR(upd("{\"b\":{\"S\":\"y\"}}", "REMOVE a", NULL), "{\"b\":{\"S\":\"y\"}}");
	CHECK_STR(upd("{\"m\":{\"M\":{\"k\":{\"S\":\"v\"},\"j\":{\"S\":\"w\"}}}}", "REMOVE m.k", NULL),
			  "{\"m\":{\"M\":{\"j\":{\"S\":\"w\"}}}}");
	CHECK_STR(upd("{}", "REMOVE m.k", NULL),
			  "ERR: The document path provided in the update expression is invalid for update");
	CHECK_STR(upd("{\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"},{\"N\":\"3\"}]}}", "REMOVE l[1], l[2]", NULL),
			  "{\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"3\"}]}}");
	CHECK_STR(upd("{\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"},{\"N\":\"2\"},{\"N\":\"3\"}]}}", "REMOVE l[0], l[3], l[1]", NULL),
			  "{\"l\":{\"L\":[{\"N\":\"2\"}]}}");
	CHECK_STR(upd("{\"l\":{\"L\":[{\"N\":\"0\"}]}}", "REMOVE l[5]", NULL), "{\"l\":{\"L\":[{\"N\":\"0\"}]}}");
	CHECK_STR(upd("{\"l\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"}]}}", "SET l[5] = :v REMOVE l[0]", V1),
			  "{\"l\":{\"L\":[{\"N\":\"1\"},{\"S\":\"x\"}]}}");
}

static void
test_update_add_delete(void)
{
	CHECK_STR(upd("{}", "ADD c :n", V1), "{\"c\":{\"N\":\"5\"}}");
	CHECK_STR(upd("{\"c\":{\"N\":\"2\"}}", "ADD c :n", V1), "{\"c\":{\"N\":\"7\"}}");
	CHECK_STR(upd("{\"c\":{\"N\":\"2\"}}", "ADD c :neg", V1), "{\"c\":{\"N\":\"-5.5\"}}");
	CHECK_STR(upd("{\"c\":{\"S\":\"2\"}}", "ADD c :n", V1),
			  "ERR: An operand in the update expression has an incorrect data type");
	CHECK_STR(upd("{}", "ADD s :ss", V1), "{\"s\":{\"SS\":[\"b\",\"c\"]}}");
	CHECK_STR(upd("{\"s\":{\"SS\":[\"a\",\"b\"]}}", "ADD s :ss", V1), "{\"s\":{\"SS\":[\"a\",\"b\",\"c\"]}}");
	CHECK_STR(upd("{\"s\":{\"NS\":[\"1\"]}}", "ADD s :ss", V1),
			  "ERR: An operand in the update expression has an incorrect data type");
	CHECK_STR(upd("{\"s\":{\"N\":\"1\"}}", "ADD s :ss", V1),
			  "ERR: An operand in the update expression has an incorrect data type");
	CHECK_STR(upd("{\"m\":{\"M\":{}}}", "ADD m.c :n", V1), "{\"m\":{\"M\":{\"c\":{\"N\":\"5\"}}}}");
	CHECK_STR(upd("{}", "ADD m.c :n", V1),
			  "ERR: The document path provided in the update expression is invalid for update");

	CHECK_STR(upd("{\"s\":{\"SS\":[\"a\",\"b\",\"c\"]}}", "DELETE s :ss", V1), "{\"s\":{\"SS\":[\"a\"]}}");
	CHECK_STR(upd("{\"s\":{\"SS\":[\"b\",\"c\"]},\"k\":{\"S\":\"1\"}}", "DELETE s :ss", V1), "{\"k\":{\"S\":\"1\"}}");
	CHECK_STR(upd("{\"k\":{\"S\":\"1\"}}", "DELETE s :ss", V1), "{\"k\":{\"S\":\"1\"}}");
	CHECK_STR(upd("{\"s\":{\"NS\":[\"1\",\"2\"]}}", "DELETE s :ss", V1),
			  "ERR: An operand in the update expression has an incorrect data type");
	CHECK_STR(upd("{\"s\":{\"NS\":[\"1\",\"2\"]}}", "DELETE s :ns", V1), "{\"s\":{\"NS\":[\"2\"]}}");
	CHECK_STR(upd("{}", "DELETE m.s :ns", V1),
			  "ERR: The document path provided in the update expression is invalid for update");
	/* all four clauses together */
	CHECK_STR(upd("{\"a\":{\"N\":\"1\"},\"r\":{\"S\":\"x\"},\"s\":{\"SS\":[\"b\",\"z\"]}}",
				  "SET a = a + :n REMOVE r ADD c :n DELETE s :ss", V1),
			  "{\"a\":{\"N\":\"6\"},\"s\":{\"SS\":[\"z\"]},\"c\":{\"N\":\"5\"}}");
}

static void
test_update_info(void)
{
	const char *text = "SET a.b = :v, #a.c = :v, d = :v REMOVE e[1] ADD f :n";
	StExpr	   *e = expr_parse(EXPR_UPDATE, text, strlen(text), &err);
	ExprParams	p = {J("{\"#a\":{\"S\":\"a\"}}"), J(V1), NULL, NULL};
	Av		   *it = J("{\"a\":{\"M\":{\"b\":{\"S\":\"old\"},\"keep\":{\"S\":\"k\"}}},\"e\":{\"L\":[{\"N\":\"0\"},{\"N\":\"1\"}]},\"pk\":{\"S\":\"p\"}}");
	Av		   *old = av_copy(it);
	ExprUpdateInfo info;

	p.values = J("{\":v\":{\"S\":\"x\"}, \":n\":{\"N\":\"5\"}}");
	CHECK(e && expr_bind(e, &p, &err));
	CHECK(e && expr_apply_update(e, it, &p, &info, &err));
	CHECK(info.npaths == 5);
	CHECK(info.nnames == 4);
	CHECK(info.nnames == 4 && strcmp(info.names[0], "a") == 0 && strcmp(info.names[1], "d") == 0 &&
		  strcmp(info.names[2], "e") == 0 && strcmp(info.names[3], "f") == 0);
	CHECK(expr_update_touches_attr(e, &p, "a", 1));
	CHECK(expr_update_touches_attr(e, &p, "f", 1));
	CHECK(!expr_update_touches_attr(e, &p, "pk", 2));
	CHECK(!expr_update_touches_attr(e, &p, "b", 1));
	/* UPDATED_OLD / UPDATED_NEW: the touched paths of the old and new items */
	CHECK_STR(show_item(expr_project_resolved(info.paths, info.npaths, old)),
			  "{\"a\":{\"M\":{\"b\":{\"S\":\"old\"}}},\"e\":{\"L\":[{\"N\":\"1\"}]}}");
	CHECK_STR(show_item(expr_project_resolved(info.paths, info.npaths, it)),
			  "{\"a\":{\"M\":{\"b\":{\"S\":\"x\"},\"c\":{\"S\":\"x\"}}},\"d\":{\"S\":\"x\"},\"f\":{\"N\":\"5\"}}");
}

/* ---------- projection ---------- */

static const char *
proj(const char *text)
{
	StExpr	   *e = expr_parse(EXPR_PROJECTION, text, strlen(text), &err);

	if (e == NULL || !expr_bind(e, &params, &err))
		return err.message;
	return show_item(expr_project(e, item, &params));
}

static void
test_projection(void)
{
	CHECK_STR(proj("s"), "{\"s\":{\"S\":\"hello world\"}}");
	CHECK_STR(proj("n, #s"), "{\"n\":{\"N\":\"10\"},\"s\":{\"S\":\"hello world\"}}");
	CHECK_STR(proj("nope"), "{}");
	CHECK_STR(proj("doc.k"), "{\"doc\":{\"M\":{\"k\":{\"S\":\"v\"}}}}");
	CHECK_STR(proj("doc.nest.x, doc.k"), "{\"doc\":{\"M\":{\"nest\":{\"M\":{\"x\":{\"N\":\"7\"}}},\"k\":{\"S\":\"v\"}}}}");
	CHECK_STR(proj("doc.nope"), "{}");
	CHECK_STR(proj("doc.k.nope"), "{}");
	CHECK_STR(proj("l[1]"), "{\"l\":{\"L\":[{\"N\":\"1\"}]}}");
	CHECK_STR(proj("l[2], l[0]"), "{\"l\":{\"L\":[{\"S\":\"x\"},{\"L\":[{\"S\":\"deep\"}]}]}}");
	CHECK_STR(proj("l[2][0]"), "{\"l\":{\"L\":[{\"L\":[{\"S\":\"deep\"}]}]}}");
	CHECK_STR(proj("l[9]"), "{}");
	CHECK_STR(proj("s[0]"), "{}");
	CHECK_STR(proj("doc[0]"), "{}");
	CHECK_STR(proj("#doc.nest"), "{\"doc\":{\"M\":{\"nest\":{\"M\":{\"x\":{\"N\":\"7\"}}}}}}");
	CHECK(expr_project(expr_parse(EXPR_PROJECTION, "a", 1, &err), NULL, &params) == NULL);
}

int
main(void)
{
	setup();
	test_comparisons();
	test_between_in();
	test_functions();
	test_logic();
	test_absent_item();
	test_update_set();
	test_update_remove();
	test_update_add_delete();
	test_update_info();
	test_projection();
	st_standalone_reset();
	return unit_summary("test_expr_eval");
}
