/*-------------------------------------------------------------------------
 *
 * test_av.c
 *		Unit tests of the AttributeValue tree's normalisation (sets,
 *		duplicates, base64, nesting, U+0000) and of item sizes
 *		(src/item/av_normalize.c, src/item/av_size.c).
 *
 * Expected messages are DynamoDB's; av_normalize.c and av_size.c say where
 * each one is recorded.
 *
 *-------------------------------------------------------------------------
 */
#include "item/av.h"
#include "item/number.h"

#include "unit.h"

#define INVALID "One or more parameter values were invalid: "
#define NESTING "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"

static StErr err;

static Av *
S(const char *s)
{
	return av_new_str(AV_S, s, (int) strlen(s));
}

static Av *
N(const char *s)
{
	return av_new_str(AV_N, s, (int) strlen(s));
}

static Av *
B(const char *base64)
{
	return av_new_str(AV_B, base64, (int) strlen(base64));
}

/* a set of the given type from NULL-terminated member texts */
static Av *
set_of(AvType type, const char **members)
{
	Av		   *set = av_new(type);

	for (int i = 0; members[i] != NULL; i++)
		av_append(set, av_new_str(av_set_member_type(type), members[i], (int) strlen(members[i])));
	return set;
}

/* normalise a lone value; NULL when accepted, else the message */
static const char *
refusal(Av *v)
{
	memset(&err, 0, sizeof(err));
	if (av_normalize(v, 1, &err))
		return NULL;
	return err.message;
}

static bool
accepted(Av *v)
{
	return refusal(v) == NULL;
}

/* leaf wrapped in `levels` single-member maps ({"n": ...}) */
static Av *
deep_map(int levels, Av *leaf)
{
	Av		   *v = leaf;

	for (int i = 0; i < levels; i++)
	{
		Av		   *m = av_new(AV_M);

		av_map_put_nocheck(m, "n", 1, v);
		v = m;
	}
	return v;
}

static Av *
deep_list(int levels, Av *leaf)
{
	Av		   *v = leaf;

	for (int i = 0; i < levels; i++)
	{
		Av		   *l = av_new(AV_L);

		av_append(l, v);
		v = l;
	}
	return v;
}

static bool
str_is(const Av *v, const char *s)
{
	return v->len == (int) strlen(s) && memcmp(v->str, s, v->len) == 0;
}

static void
test_numbers_in_trees(void)
{
	const char *ns[] = {"007.50", "2", "-0", "1e3", NULL};
	Av		   *set = set_of(AV_NS, ns);
	Av		   *n = N("0001.2300");
	Av		   *list = av_new(AV_L);

	CHECK(accepted(set));
	CHECK(str_is(set->items[0], "7.5"));
	CHECK(str_is(set->items[1], "2"));
	CHECK(str_is(set->items[2], "0"));
	CHECK(str_is(set->items[3], "1000"));
	CHECK(accepted(n) && str_is(n, "1.23"));

	av_append(list, N("1"));
	av_append(list, N("abc"));
	CHECK_STR(refusal(list), "The parameter cannot be converted to a numeric value: abc");
	CHECK_STR(refusal(N("1e126")),
			  "Number overflow. Attempting to store a number with magnitude larger than supported range");
	{
		const char *bad[] = {"1", "", NULL};

		CHECK_STR(refusal(set_of(AV_NS, bad)), "The parameter cannot be converted to a numeric value: ");
	}
}

static void
test_sets(void)
{
	const char *none[] = {NULL};

	CHECK_STR(refusal(set_of(AV_SS, none)), INVALID "An string set  may not be empty");
	CHECK_STR(refusal(set_of(AV_NS, none)), INVALID "An number set  may not be empty");
	CHECK_STR(refusal(set_of(AV_BS, none)), INVALID "Binary sets should not be empty");

	/* empty strings and empty binary values are fine, also in sets */
	{
		const char *ss[] = {"", "x", NULL};
		const char *bs[] = {"", "AA==", NULL};
		Av		   *b = set_of(AV_BS, bs);

		CHECK(accepted(S("")));
		CHECK(accepted(set_of(AV_SS, ss)));
		CHECK(accepted(b));
		CHECK(b->items[0]->len == 0 && b->items[1]->len == 1 && b->items[1]->str[0] == 0);
	}

	/* duplicates: numbers by value, after canonicalisation */
	{
		const char *ns1[] = {"1", "1.0", NULL};
		const char *ns2[] = {"2", "1", "2", NULL};
		const char *ns3[] = {"100", "1e2", NULL};
		const char *ns4[] = {"1", "-1", "0.1", "10", NULL};

		CHECK_STR(refusal(set_of(AV_NS, ns1)), INVALID "Input collection contains duplicates.");
		CHECK_STR(refusal(set_of(AV_NS, ns2)), INVALID "Input collection contains duplicates.");
		CHECK_STR(refusal(set_of(AV_NS, ns3)), INVALID "Input collection contains duplicates.");
		CHECK(accepted(set_of(AV_NS, ns4)));
	}

	/* strings: members before the first repeat in byte order, the repeat, the rest as sent */
	{
		const char *ss1[] = {"b", "a", "b", NULL};
		const char *ss2[] = {"c", "a", "b", "a", "z", "y", NULL};
		const char *ss3[] = {"a", "a", NULL};
		const char *ss4[] = {"A", "a", "\xc3\xa9", "e", NULL};

		CHECK_STR(refusal(set_of(AV_SS, ss1)), INVALID "Input collection [\"a\", \"b\", \"b\"] contains duplicates.");
		CHECK_STR(refusal(set_of(AV_SS, ss2)),
				  INVALID "Input collection [\"a\", \"b\", \"c\", \"a\", \"z\", \"y\"] contains duplicates.");
		CHECK_STR(refusal(set_of(AV_SS, ss3)), INVALID "Input collection [\"a\", \"a\"] contains duplicates.");
		CHECK(accepted(set_of(AV_SS, ss4)));
	}

	/* binary: compared as decoded bytes, listed as base64 */
	{
		const char *bs1[] = {"/w==", "AA==", "AA==", NULL};
		const char *bs2[] = {"Yg==", "Yg==", NULL};
		const char *bs3[] = {"AA==", "AAA=", "AAAA", NULL};

		CHECK_STR(refusal(set_of(AV_BS, bs1)),
				  INVALID "Input collection [\"AA==\",\"/w==\",\"AA==\"]of type BS contains duplicates.");
		CHECK_STR(refusal(set_of(AV_BS, bs2)),
				  INVALID "Input collection [\"Yg==\",\"Yg==\"]of type BS contains duplicates.");
		CHECK(accepted(set_of(AV_BS, bs3)));
	}

	/* a long message is cut to fit, and still ends as DynamoDB's does */
	{
		Av		   *set = av_new(AV_SS);
		char		member[300];
		const char *tail = "] contains duplicates.";
		const char *msg;

		for (int i = 0; i < 50; i++)
		{
			memset(member, 'a' + (i % 26), sizeof(member));
			snprintf(member + 290, 10, "%04d", i);
			av_append(set, S(member));
		}
		av_append(set, S(member));
		msg = refusal(set);
		CHECK(msg != NULL && strlen(msg) < ST_ERR_MSG_MAX &&
			  strcmp(msg + strlen(msg) - strlen(tail), tail) == 0 &&
			  strstr(msg, "...") != NULL);
	}

	/* a large set is checked in n log n */
	{
		Av		   *set = av_new(AV_NS);
		char		buf[32];

		for (int i = 0; i < 50000; i++)
		{
			snprintf(buf, sizeof(buf), "%d.5", i);
			av_append(set, N(buf));
		}
		CHECK(accepted(set));
		av_append(set, N("49999.50"));
		CHECK_STR(refusal(set), INVALID "Input collection contains duplicates.");
	}
}

static void
test_base64(void)
{

	{
		Av		   *b = B("SGVsbG8=");

		CHECK(accepted(b) && str_is(b, "Hello"));
		b = B("");
		CHECK(accepted(b) && b->len == 0);
		b = B("YWI=");
		CHECK(accepted(b) && str_is(b, "ab"));
		b = B("+/+/");
		CHECK(accepted(b) && b->len == 3 && (unsigned char) b->str[0] == 0xfb);
	}
	CHECK_STR(refusal(B("abc")),
			  "'abc' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 3");
	CHECK(err.code == ST_ERR_SERIALIZATION);
	CHECK_STR(refusal(B("23456")),
			  "'23456' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 5");
	CHECK_STR(refusal(B("YWJjZGVmZ2g")),
			  "'YWJjZGVmZ2g' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 11");
	CHECK_STR(refusal(B("YWJj?\?!!")), "'YWJj?\?!!' can not be converted to a Blob: Invalid Base64 character: '?'");
	CHECK_STR(refusal(B("=+/=")), "'=+/=' can not be converted to a Blob: Invalid Base64 character: '='");
	CHECK_STR(refusal(B("ab=c")), "'ab=c' can not be converted to a Blob: Invalid Base64 character: '='");
	CHECK_STR(refusal(B("ab c")), "'ab c' can not be converted to a Blob: Invalid Base64 character: ' '");
	CHECK_STR(refusal(B("ab\xc3\xa9")), "'ab\xc3\xa9' can not be converted to a Blob: Invalid Base64 character: '\xc3\xa9'");
	CHECK_STR(refusal(B("+/+=")), "'+/+=' can not be converted to a Blob: Invalid last non-pad Base64 character dectected");
	CHECK_STR(refusal(B("YR==")), "'YR==' can not be converted to a Blob: Invalid last non-pad Base64 character dectected");
	CHECK_STR(refusal(B("YWJ=")), "'YWJ=' can not be converted to a Blob: Invalid last non-pad Base64 character dectected");
	CHECK_STR(refusal(B("A===")), "'A===' can not be converted to a Blob: Invalid last non-pad Base64 character dectected");
	CHECK_STR(refusal(B("====")), "'====' can not be converted to a Blob: Invalid last non-pad Base64 character dectected");
	CHECK(err.code == ST_ERR_SERIALIZATION);
	{
		const char *bs[] = {"AA==", "A", NULL};

		CHECK(refusal(set_of(AV_BS, bs)) != NULL && err.code == ST_ERR_SERIALIZATION);
	}

	/* round trips at every length modulo 3 */
	for (int len = 0; len < 40; len++)
	{
		char		bytes[40];
		char	   *text;
		char	   *back;
		int			tlen,
					blen;

		for (int i = 0; i < len; i++)
			bytes[i] = (char) (i * 37 + len * 11);
		text = av_base64_encode(bytes, len, &tlen);
		CHECK(text != NULL && tlen == (len + 2) / 3 * 4 && (int) strlen(text) == tlen);
		CHECK(av_base64_decode(text, tlen, &back, &blen) && blen == len &&
			  memcmp(back, bytes, len) == 0);
	}
	{
		int			n;

		CHECK_STR(av_base64_encode("Hello", 5, &n), "SGVsbG8=");
		CHECK_STR(av_base64_encode("\xff", 1, &n), "/w==");
	}

	/* a very long bad value is cut in the message */
	{
		char	   *big = palloc(5001);

		memset(big, 'A', 5000);
		big[4999] = '!';
		big[5000] = '\0';
		CHECK(refusal(B(big)) != NULL && strlen(err.message) < ST_ERR_MSG_MAX &&
			  strstr(err.message, "Invalid Base64 character: '!'") != NULL);
	}
}

static void
test_depth(void)
{
	Av		   *item;

	/* 31 maps around a leaf: leaf at level 32 (accepted); 32 maps: refused */
	CHECK(accepted(deep_map(31, S("leaf"))));
	CHECK_STR(refusal(deep_map(32, S("leaf"))), NESTING);
	CHECK(accepted(deep_list(31, N("1"))));
	CHECK_STR(refusal(deep_list(32, N("1"))), NESTING);
	CHECK(accepted(deep_map(31, av_new(AV_L))));
	CHECK(accepted(deep_list(20, deep_map(11, av_new_bool(true)))));
	CHECK_STR(refusal(deep_list(20, deep_map(12, av_new_bool(true)))), NESTING);

	/* a set at the deepest level is fine: members are not a level */
	{
		const char *ss[] = {"a", NULL};

		CHECK(accepted(deep_map(31, set_of(AV_SS, ss))));
	}

	/* in an item the attribute values are level 1 */
	item = av_new(AV_M);
	av_map_put_nocheck(item, "pk", 2, S("k"));
	av_map_put_nocheck(item, "data", 4, deep_map(31, S("leaf")));
	CHECK(av_normalize(item, 0, &err));
	av_map_put_nocheck(item, "more", 4, deep_map(32, S("leaf")));
	CHECK(!av_normalize(item, 0, &err) && strcmp(err.message, NESTING) == 0);

	/* far past the limit: refused without following it down */
	CHECK_STR(refusal(deep_list(100000, S("x"))), NESTING);
}

static void
test_nul(void)
{
	Av		   *m = av_new(AV_M);

	CHECK(refusal(av_new_str(AV_S, "a\0b", 3)) != NULL && err.code == ST_ERR_VALIDATION &&
		  strstr(err.message, "U+0000") != NULL);
	av_map_put_nocheck(m, "a\0b", 3, S("x"));
	CHECK(refusal(m) != NULL && strstr(err.message, "U+0000") != NULL);
	{
		Av		   *set = av_new(AV_SS);

		av_append(set, S("ok"));
		av_append(set, av_new_str(AV_S, "\0", 1));
		CHECK(refusal(set) != NULL && strstr(err.message, "U+0000") != NULL);
	}
	/* binary values may hold any byte */
	{
		Av		   *b = B("AAEA");

		CHECK(accepted(b) && b->len == 3 && b->str[0] == 0 && b->str[1] == 1);
	}
}

static void
test_equal_copy(void)
{
	const char *a[] = {"3", "1.0", "2", NULL};
	const char *b[] = {"2", "3", "1", NULL};
	const char *c[] = {"2", "3", "4", NULL};
	Av		   *x = set_of(AV_NS, a);
	Av		   *y = set_of(AV_NS, b);
	Av		   *z = set_of(AV_NS, c);
	Av		   *item = av_new(AV_M);

	CHECK(accepted(x) && accepted(y) && accepted(z));
	CHECK(av_equal(x, y));
	CHECK(!av_equal(x, z));
	av_map_put_nocheck(item, "s", 1, x);
	av_map_put_nocheck(item, "b", 1, B("AAEC"));
	av_map_put_nocheck(item, "l", 1, deep_list(3, N("10.50")));
	CHECK(av_normalize(item, 0, &err));
	CHECK(av_equal(item, av_copy(item)));
	CHECK(av_item_size(item) == av_item_size(av_copy(item)));

	/* large sets compare in n log n, order ignored */
	{
		Av		   *p = av_new(AV_SS);
		Av		   *q = av_new(AV_SS);
		char		buf[32];

		for (int i = 0; i < 50000; i++)
		{
			snprintf(buf, sizeof(buf), "m%d", i);
			av_append(p, S(buf));
			snprintf(buf, sizeof(buf), "m%d", 49999 - i);
			av_append(q, S(buf));
		}
		CHECK(av_equal(p, q));
		q->items[123] = S("other");
		CHECK(!av_equal(p, q));
	}
}

static Av *
item2(const char *n1, Av *v1, const char *n2, Av *v2)
{
	Av		   *item = av_new(AV_M);

	av_map_put_nocheck(item, n1, (int) strlen(n1), v1);
	if (n2)
		av_map_put_nocheck(item, n2, (int) strlen(n2), v2);
	return item;
}

static void
test_size(void)
{
	Av		   *item;

	/* scalars: name bytes + value */
	CHECK(av_item_size(item2("id", S("abc"), "n", N("12345"))) == 5 + 5);
	CHECK(av_item_size(item2("\xc3\xa9", S("\xe2\x82\xac"), NULL, NULL)) == 2 + 3);
	CHECK(av_value_size(N("0")) == 1);
	CHECK(av_value_size(N("1")) == 2);
	CHECK(av_value_size(N("12")) == 2);
	CHECK(av_value_size(N("123")) == 3);
	CHECK(av_value_size(N("-1000")) == 2);
	CHECK(av_value_size(N("0.001")) == 2);
	CHECK(av_value_size(N("10.01")) == 3);
	CHECK(av_value_size(N("12345678901234567890123456789012345678")) == 20);
	CHECK(av_value_size(av_new_bool(false)) == 1);
	CHECK(av_value_size(av_new_null()) == 1);
	{
		Av		   *b = B("AAECAw==");

		CHECK(accepted(b) && av_value_size(b) == 4);
	}

	/* containers: 3 + per element (1 + name + value) */
	CHECK(av_value_size(av_new(AV_M)) == 3);
	CHECK(av_value_size(av_new(AV_L)) == 3);
	{
		Av		   *l = av_new(AV_L);
		Av		   *m = av_new(AV_M);

		av_append(l, S("x"));
		av_append(l, av_new_bool(true));
		CHECK(av_value_size(l) == 3 + (1 + 1) + (1 + 1));
		av_map_put_nocheck(m, "a", 1, N("1"));
		av_map_put_nocheck(m, "bb", 2, l);
		CHECK(av_value_size(m) == 3 + (1 + 1 + 2) + (1 + 2 + 7));
		CHECK(av_item_size(item2("m", m, NULL, NULL)) == 1 + 17);
	}

	/* sets: members only */
	{
		const char *ss[] = {"pizza", "burger", NULL};
		const char *ns[] = {"1", "22", "333", NULL};

		CHECK(av_value_size(set_of(AV_SS, ss)) == 11);
		CHECK(av_value_size(set_of(AV_NS, ns)) == 2 + 2 + 3);
	}

	/* a worked item */
	item = av_new(AV_M);
	av_map_put_nocheck(item, "id", 2, S("f0ba8d6c"));
	av_map_put_nocheck(item, "fullName", 8, S("Zac Charles"));
	av_map_put_nocheck(item, "isAdmin", 7, av_new_bool(true));
	av_map_put_nocheck(item, "favouriteNumber", 15, N("-1E-130"));
	{
		const char *foods[] = {"pizza", "burger", NULL};

		av_map_put_nocheck(item, "foods", 5, set_of(AV_SS, foods));
	}
	CHECK(av_normalize(item, 0, &err));
	CHECK(av_item_size(item) == (2 + 8) + (8 + 11) + (7 + 1) + (15 + 2) + (5 + 11));

	/* the 400 KB limit: 409600 bytes pass, one more does not */
	{
		char	   *big = palloc(409600);

		memset(big, 'x', 409600);
		item = item2("a", av_new_str(AV_S, big, 409599), NULL, NULL);
		CHECK(av_item_size(item) == 409600 && av_check_item_size(item, &err));
		item = item2("a", av_new_str(AV_S, big, 409600), NULL, NULL);
		CHECK(!av_check_item_size(item, &err) && err.code == ST_ERR_VALIDATION);
		CHECK_STR(err.message, "Item size has exceeded the maximum allowed size");
	}

	/* a deep tree is measured without recursion */
	CHECK(av_value_size(deep_list(100000, S("x"))) == (int64) 100000 * 4 + 1);
}

/* av_json.c: export lines read straight into items. */
static Av  *
json_item(const char *text, StErr *err)
{
	return av_item_from_json_text(text, (int) strlen(text), "Item", err);
}

static const char *
json_refusal(const char *text)
{
	static StErr err;

	memset(&err, 0, sizeof(err));
	if (json_item(text, &err) != NULL)
		return "(accepted)";
	return err.message;
}

static void
test_json_text(void)
{
	StErr		err;
	Av		   *item;
	Av		   *v;

	item = json_item("{\"Item\": {\"PK\": {\"S\": \"a\\u00e9\\ud83d\\ude00\"}, \"n\": {\"N\": \"-0012.50\"},"
					 " \"b\": {\"B\": \"AAE=\"}, \"t\": {\"BOOL\": true}, \"z\": {\"NULL\": true},"
					 " \"l\": {\"L\": [{\"S\": \"x\"}, {\"M\": {}}]}, \"ss\": {\"SS\": [\"q\", \"r\"]},"
					 " \"skip\": {\"S\": \"s\", \"other\": [1, 2.5e3, {\"k\": null}, false]}}}", &err);
	CHECK(item != NULL && item->type == AV_M && item->n == 8);
	v = item ? av_map_get(item, "PK", 2) : NULL;
	CHECK(v && v->type == AV_S && v->len == 7 && memcmp(v->str, "a\xc3\xa9\xf0\x9f\x98\x80", 7) == 0);
	v = item ? av_map_get(item, "n", 1) : NULL;
	CHECK(v && str_is(v, "-12.5"));
	v = item ? av_map_get(item, "b", 1) : NULL;
	CHECK(v && v->type == AV_B && v->len == 2 && v->str[0] == 0 && v->str[1] == 1);
	v = item ? av_map_get(item, "l", 1) : NULL;
	CHECK(v && v->type == AV_L && v->n == 2 && v->items[1]->type == AV_M);
	v = item ? av_map_get(item, "skip", 4) : NULL;
	CHECK(v && str_is(v, "s"));

	/* duplicate names: the last stays (as jsonb keeps it) */
	item = json_item("{\"Item\": {\"a\": {\"S\": \"1\"}, \"b\": {\"S\": \"2\"}, \"a\": {\"S\": \"3\"}}}", &err);
	CHECK(item && item->n == 2 && str_is(av_map_get(item, "a", 1), "3"));
	item = json_item("{\"Item\": {\"a\": {\"S\": \"1\"}}, \"Item\": {\"b\": {\"S\": \"2\"}}}", &err);
	CHECK(item && item->n == 1 && av_map_get(item, "b", 1) != NULL);
	item = json_item("  {\"Item\":{}}\r\n", &err);
	CHECK(item && item->n == 0);

	/* the shape of a line */
	CHECK_STR(json_refusal("[1]"), "A line must be a JSON object {\"Item\": {...}}");
	CHECK_STR(json_refusal("{}"), "A line must be a JSON object {\"Item\": {...}}: \"Item\" is missing");
	CHECK_STR(json_refusal("{\"X\": {}}"),
			  "A line must be a JSON object {\"Item\": {...}}: it has members other than \"Item\"");
	CHECK_STR(json_refusal("{\"Item\": 1}"),
			  "A line must be a JSON object {\"Item\": {...}}: \"Item\" is not an object");

	/* JSON itself */
	CHECK_STR(json_refusal("{\"Item\": {}} x"), "Malformed JSON: text after the end of the JSON value at byte 14");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"S\": \"x}}}"), "Malformed JSON: unterminated string at byte 27");
	CHECK_STR(json_refusal("{\"Item\": {\"a\" {\"S\": \"x\"}}}"), "Malformed JSON: ':' expected at byte 15");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"S\": \"\\ud800x\"}}}"),
			  "Malformed JSON: lone Unicode high surrogate at byte 29");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"S\": \"\\udc00\"}}}"),
			  "Malformed JSON: lone Unicode low surrogate at byte 29");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"S\": \"\\u12\"}}}"), "Malformed JSON: bad \\u escape at byte 24");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"S\": \"\\u0000\"}}}"),
			  "\\u0000 cannot be stored: an item cannot hold the character U+0000");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"x\": tru}}}"), "Malformed JSON: bad literal at byte 22");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"x\": -}}}"), "Malformed JSON: bad number at byte 22");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"x\": 1.}}}"), "Malformed JSON: bad number at byte 22");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"S\": \"x\"},}}"), "Malformed JSON: '\"' expected at byte 27");
	CHECK_STR(json_refusal(""), "A line must be a JSON object {\"Item\": {...}}");

	/* AttributeValues, as av_jsonb.c words them */
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {}}}"),
			  "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"S\": \"x\", \"N\": \"1\"}}}"),
			  "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": \"x\"}}"),
			  "Supplied AttributeValue has an invalid shape: STRING_VALUE found where an object with exactly one of the supported datatypes was expected");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"S\": 1}}}"), "NUMBER_VALUE cannot be converted to String");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"BOOL\": \"true\"}}}"), "STRING_VALUE cannot be converted to Boolean");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"M\": []}}}"), "START_ARRAY cannot be converted to Map");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"L\": {}}}}"), "START_OBJECT cannot be converted to List");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"SS\": [1]}}}"), "NUMBER_VALUE cannot be converted to String");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"NULL\": false}}}"),
			  "One or more parameter values were invalid: Null attribute value types must have the value of true");
	CHECK_STR(json_refusal("{\"Item\": {\"a\": {\"SS\": [\"x\", \"x\"]}}}"),
			  "One or more parameter values were invalid: Input collection [\"x\", \"x\"] contains duplicates.");

	/* depth: refused before recursion could go deep, whatever the nesting */
	{
		int			n = 200000;
		char	   *deep = palloc(n * 2 + 64);
		char	   *p = deep;

		p += sprintf(p, "{\"Item\": {\"a\": ");
		for (int i = 0; i < n; i++)
			*p++ = '[';
		*p = '\0';
		CHECK(json_item(deep, &err) == NULL);
		p = deep + sprintf(deep, "{\"Item\": {\"a\": ");
		for (int i = 0; i < 70; i++)
			p += sprintf(p, "{\"L\": [");
		*p = '\0';
		CHECK_STR(json_refusal(deep),
				  "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit");
		p = deep + sprintf(deep, "{\"Item\": {\"a\": {\"x\": ");
		for (int i = 0; i < n / 2; i++)
			*p++ = '[';
		*p = '\0';
		CHECK_STR(json_refusal(deep), "Malformed JSON: nested too deeply at byte 158");
	}

	/* every prefix of a good line is refused, never read past its end */
	{
		const char *good = "{\"Item\": {\"PK\": {\"S\": \"a\\n\"}, \"L\": {\"L\": [{\"N\": \"1\"}]}, \"B\": {\"BOOL\": false}}}";
		int			len = (int) strlen(good);
		int			refused = 0;

		for (int i = 0; i < len; i++)
		{
			char	   *copy = palloc(i + 1);

			memcpy(copy, good, i);
			copy[i] = '\0';
			refused += av_item_from_json_text(copy, i, "Item", &err) == NULL;
		}
		CHECK(refused == len);
		CHECK(json_item(good, &err) != NULL);
	}
}

int
main(void)
{
	test_numbers_in_trees();
	test_sets();
	test_base64();
	test_depth();
	test_nul();
	test_equal_copy();
	test_size();
	test_json_text();
	st_standalone_reset();
	return unit_summary("test_av");
}
