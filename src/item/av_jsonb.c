/*-------------------------------------------------------------------------
 *
 * av_jsonb.c
 *		jsonb <-> Av tree, in DynamoDB's typed AttributeValue form and in the
 *		plain (DocumentClient) form.
 *
 * Typed input is checked for shape here (exactly one type descriptor per
 * value, the right JSON type under it); the contents (number syntax and
 * limits, base64, sets) are checked by av_normalize(), which is pure C and
 * unit tested.  Plain input maps string -> S, number -> N, boolean -> BOOL,
 * null -> NULL, array -> L, object -> M; sets and binary have no plain
 * input form (use typed => true), and come out plain as arrays and base64
 * strings.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "av_jsonb.h"
#include "jsonb_raw.h"
#include "number.h"

/*
 * How deep the converters follow JSON before giving up.  av_normalize()
 * enforces DynamoDB's 32 levels; this bound only keeps the recursion here
 * finite for inputs that are far past it.
 */
#define AV_JSONB_MAX_DEPTH 64

static Av  *typed_value(JsonbValue *jv, int depth, bool stored);
static Av  *plain_value(JsonbValue *jv, int depth);

static void
check_depth(int depth)
{
	check_stack_depth();
	if (depth > AV_JSONB_MAX_DEPTH)
		st_error(ST_ERR_VALIDATION,
				 "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit");
}

static const char *
jbv_kind(JsonbValue *jv)
{
	switch (jv->type)
	{
		case jbvNull:
			return "NULL_VALUE";
		case jbvString:
			return "STRING_VALUE";
		case jbvNumeric:
			return "NUMBER_VALUE";
		case jbvBool:
			return jv->val.boolean ? "TRUE_VALUE" : "FALSE_VALUE";
		case jbvBinary:
			return JsonContainerIsArray(jv->val.binary.data) ? "START_ARRAY" : "START_OBJECT";
		default:
			return "VALUE";
	}
}

/*
 * A JSON value of the wrong kind under a type descriptor: DynamoDB's JSON
 * protocol reports these as SerializationException before validation.
 */
static void
wrong_json(JsonbValue *jv, const char *expected)
{
	st_error(ST_ERR_SERIALIZATION, "%s cannot be converted to %s", jbv_kind(jv), expected);
}

static bool
jbv_is_object(JsonbValue *jv)
{
	return jv->type == jbvBinary && JsonContainerIsObject(jv->val.binary.data);
}

static bool
jbv_is_array(JsonbValue *jv)
{
	return jv->type == jbvBinary && JsonContainerIsArray(jv->val.binary.data) &&
		!JsonContainerIsScalar(jv->val.binary.data);
}

/* A string member of a set, or a JSON error. */
static Av  *
set_member(JsonbValue *jv, AvType member_type, bool stored)
{
	Av		   *m;

	if (jv->type != jbvString)
		wrong_json(jv, "String");
	m = av_new_str(member_type, jv->val.string.val, jv->val.string.len);
	if (stored && member_type == AV_B)
	{
		char	   *bytes;
		int			n;

		if (!av_base64_decode(m->str, m->len, &bytes, &n))
			st_internal_error("stored binary value is not valid base64");
		m->str = bytes;
		m->len = n;
	}
	return m;
}

/* The items of an array container, each converted by `typed` or plain rules. */
static Av  *
array_value(JsonbContainer *jc, AvType type, int depth, bool typed, bool stored)
{
	Av		   *result = av_new(type);
	JsonbRawIter it;
	JsonbRaw	r;
	JsonbValue	v;

	st_jsonb_raw_begin(&it, jc);
	while (st_jsonb_raw_next_elem(&it, &r))
	{
		st_jsonb_raw_value(&r, &v);
		if (type == AV_L)
			av_append(result, typed ? typed_value(&v, depth + 1, stored) : plain_value(&v, depth + 1));
		else
			av_append(result, set_member(&v, av_set_member_type(type), stored));
	}
	return result;
}

/* The members of an object container. */
static Av  *
object_value(JsonbContainer *jc, int depth, bool typed, bool stored)
{
	Av		   *result = av_new(AV_M);
	JsonbRawIter it;
	JsonbRaw	k,
				r;
	JsonbValue	v;

	st_jsonb_raw_begin(&it, jc);
	while (st_jsonb_raw_next_member(&it, &k, &r))
	{
		st_jsonb_raw_value(&r, &v);
		av_map_put_nocheck(result, k.data, (int) k.len,
						   typed ? typed_value(&v, depth + 1, stored) : plain_value(&v, depth + 1));
	}
	return result;
}

/*
 * One typed AttributeValue: an object with exactly one of the ten type
 * descriptors.  Unknown members are ignored, as DynamoDB's JSON protocol
 * ignores unknown fields.
 */
static Av  *
typed_value(JsonbValue *jv, int depth, bool stored)
{
	JsonbRawIter it;
	JsonbRaw	k,
				r;
	JsonbValue	found = {0};
	int			type = -1;
	int			ntypes = 0;

	check_depth(depth);
	if (!jbv_is_object(jv))
		st_error(ST_ERR_VALIDATION,
				 "Supplied AttributeValue has an invalid shape: %s found where an object with exactly one of the supported datatypes was expected",
				 jbv_kind(jv));

	st_jsonb_raw_begin(&it, jv->val.binary.data);
	while (st_jsonb_raw_next_member(&it, &k, &r))
	{
		int			t = av_type_from_name(k.data, (int) k.len);

		if (t < 0)
			continue;
		ntypes++;
		type = t;
		st_jsonb_raw_value(&r, &found);
	}
	if (ntypes == 0)
		st_error(ST_ERR_VALIDATION,
				 "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
	if (ntypes > 1)
		st_error(ST_ERR_VALIDATION,
				 "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes");

	switch ((AvType) type)
	{
		case AV_S:
		case AV_N:
		case AV_B:
			if (found.type != jbvString)
				wrong_json(&found, "String");
			if (stored && type == AV_B)
				return set_member(&found, AV_B, true);
			return av_new_str((AvType) type, found.val.string.val, found.val.string.len);
		case AV_BOOL:
			if (found.type != jbvBool)
				wrong_json(&found, "Boolean");
			return av_new_bool(found.val.boolean);
		case AV_NULL:
			if (found.type != jbvBool)
				wrong_json(&found, "Boolean");
			if (!found.val.boolean)
				st_error(ST_ERR_VALIDATION,
						 "One or more parameter values were invalid: Null attribute value types must have the value of true");
			return av_new_null();
		case AV_M:
			if (!jbv_is_object(&found))
				wrong_json(&found, "Map");
			return object_value(found.val.binary.data, depth, true, stored);
		default:
			/* L and the sets */
			if (!jbv_is_array(&found))
				wrong_json(&found, type == AV_L ? "List" : "Set");
			return array_value(found.val.binary.data, (AvType) type, depth, true, stored);
	}
}

/* The text of a jsonb number, as DynamoDB number text. */
static Av  *
plain_number(Numeric num)
{
	char	   *text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num)));

	if (numeric_is_nan(num) || numeric_is_inf(num))
		st_error(ST_ERR_VALIDATION, "The parameter cannot be converted to a numeric value: %s", text);
	return av_new_str(AV_N, text, strlen(text));
}

static Av  *
plain_value(JsonbValue *jv, int depth)
{
	check_depth(depth);
	switch (jv->type)
	{
		case jbvNull:
			return av_new_null();
		case jbvString:
			return av_new_str(AV_S, jv->val.string.val, jv->val.string.len);
		case jbvNumeric:
			return plain_number(jv->val.numeric);
		case jbvBool:
			return av_new_bool(jv->val.boolean);
		case jbvBinary:
			if (JsonContainerIsObject(jv->val.binary.data))
				return object_value(jv->val.binary.data, depth, false, false);
			return array_value(jv->val.binary.data, AV_L, depth, false, false);
		default:
			st_error(ST_ERR_VALIDATION, "unsupported JSON value");
	}
}

/* A top-level jsonb as a JsonbValue that the converters take. */
static void
jsonb_root(Jsonb *jb, JsonbValue *out)
{
	if (JB_ROOT_IS_SCALAR(jb))
	{
		JsonbExtractScalar(&jb->root, out);
		return;
	}
	out->type = jbvBinary;
	out->val.binary.data = &jb->root;
	out->val.binary.len = VARSIZE(jb) - VARHDRSZ;
}

/* Normalise a converted tree: depth 0 for an item or a map of values, 1 for a lone value. */
static void
normalize_or_raise(Av *v, int depth)
{
	StErr		err;

	if (!av_normalize(v, depth, &err))
		st_raise(&err);
}

Av *
av_from_jsonb_value(JsonbContainer *jc, bool typed)
{
	JsonbValue	jv;
	Av		   *v;

	jv.type = jbvBinary;
	jv.val.binary.data = jc;
	jv.val.binary.len = 0;
	if (JsonContainerIsScalar(jc))
	{
		JsonbValue	scalar;

		if (!JsonbExtractScalar(jc, &scalar))
			st_error(ST_ERR_VALIDATION, "invalid value");
		jv = scalar;
	}
	v = typed ? typed_value(&jv, 0, false) : plain_value(&jv, 0);
	normalize_or_raise(v, 1);
	return v;
}

Av *
av_map_from_jsonb(Jsonb *jb, bool typed, const char *what)
{
	JsonbValue	jv;
	Av		   *v;

	jsonb_root(jb, &jv);
	if (!jbv_is_object(&jv))
		st_error(ST_ERR_SERIALIZATION, "%s must be a JSON object (a map of attribute name to value)", what);
	v = object_value(jv.val.binary.data, 0, typed, false);
	normalize_or_raise(v, 0);
	return v;
}

/*
 * One member of ExpressionAttributeValues, converted and normalised; a
 * ValidationException about it says which, in DynamoDB's words:
 * "ExpressionAttributeValues contains invalid value: <why> for key :v".
 */
static Av  *
expression_value(JsonbValue *jv, const char *key, int keylen, bool typed)
{
	MemoryContext cxt = CurrentMemoryContext;
	const char *state = st_exception_sqlstate(ST_ERR_VALIDATION);
	const char *prefix = st_exception_name(ST_ERR_VALIDATION);
	volatile Av *v = NULL;
	StErr		err;

	PG_TRY();
	{
		v = typed ? typed_value(jv, 1, false) : plain_value(jv, 1);
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		const char *msg;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != MAKE_SQLSTATE(state[0], state[1], state[2], state[3], state[4]) ||
			edata->message == NULL)
			PG_RE_THROW();
		FlushErrorState();
		msg = edata->message;
		/* the message is "ValidationException: <why>" */
		if (strncmp(msg, prefix, strlen(prefix)) == 0 && strncmp(msg + strlen(prefix), ": ", 2) == 0)
			msg += strlen(prefix) + 2;
		st_error(ST_ERR_VALIDATION, "ExpressionAttributeValues contains invalid value: %s for key %.*s",
				 msg, keylen, key);
	}
	PG_END_TRY();
	if (!av_normalize((Av *) v, 1, &err))
		st_error(ST_ERR_VALIDATION, "ExpressionAttributeValues contains invalid value: %s for key %.*s",
				 err.message, keylen, key);
	return (Av *) v;
}

Av *
av_values_from_jsonb(Jsonb *jb, bool typed)
{
	JsonbValue	jv;
	Av		   *result = av_new(AV_M);
	JsonbRawIter it;
	JsonbRaw	k,
				r;
	JsonbValue	v;

	jsonb_root(jb, &jv);
	if (!jbv_is_object(&jv))
		st_error(ST_ERR_SERIALIZATION,
				 "ExpressionAttributeValues must be a JSON object (a map of attribute name to value)");
	st_jsonb_raw_begin(&it, jv.val.binary.data);
	while (st_jsonb_raw_next_member(&it, &k, &r))
	{
		st_jsonb_raw_value(&r, &v);
		av_map_put_nocheck(result, k.data, (int) k.len,
						   expression_value(&v, k.data, (int) k.len, typed));
	}
	return result;
}

Av *
av_item_from_jsonb(Jsonb *jb, bool typed, const char *what)
{
	return av_map_from_jsonb(jb, typed, what);
}

Av *
av_item_from_stored(Jsonb *jb)
{
	JsonbValue	jv;

	jsonb_root(jb, &jv);
	if (!jbv_is_object(&jv))
		st_internal_error("stored item is not a JSON object");
	return object_value(jv.val.binary.data, 0, true, true);
}

Av *
av_names_from_jsonb(Jsonb *jb)
{
	JsonbValue	jv;
	Av		   *names;

	jsonb_root(jb, &jv);
	if (!jbv_is_object(&jv))
		st_error(ST_ERR_SERIALIZATION, "ExpressionAttributeNames must be a JSON object of strings");
	names = object_value(jv.val.binary.data, 0, false, false);
	for (int i = 0; i < names->n; i++)
	{
		if (names->members[i].value->type != AV_S)
			st_error(ST_ERR_SERIALIZATION,
					 "ExpressionAttributeNames contains a value that is not a string; key: %s",
					 names->members[i].name);
	}
	return names;
}

/* ---------- output ---------- */

static void
string_jbv(JsonbValue *jv, const char *s, int len)
{
	jv->type = jbvString;
	jv->val.string.val = (char *) s;
	jv->val.string.len = len;
}

/*
 * A number about to become a JSON number: only a DynamoDB number may (a row
 * written by plain SQL can hold "NaN", which numeric would take and JSON
 * cannot carry; valid numbers were made canonical when written).
 */
static void
stored_number_check(const Av *v)
{
	StNum		n;
	StErr		err;

	if (!st_num_parse(v->str, v->len, &n, &err))
		st_internal_error("An item holds a number that is not a DynamoDB number (written by plain SQL?): %.*s",
						  Min(v->len, 100), v->str);
}

/*
 * A scalar as a JsonbValue: plain form (S string, N number, B base64 string,
 * BOOL, NULL) or, with typed_text, the text DynamoDB sends under the type
 * descriptor (S as is, N canonical text, B base64).
 */
static void
scalar_jbv(const Av *v, bool typed_text, JsonbValue *jv)
{
	switch (v->type)
	{
		case AV_S:
			string_jbv(jv, v->str, v->len);
			return;
		case AV_N:
			if (typed_text)
			{
				string_jbv(jv, v->str, v->len);
				return;
			}
			stored_number_check(v);
			jv->type = jbvNumeric;
			jv->val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
																  CStringGetDatum(v->str),
																  ObjectIdGetDatum(InvalidOid),
																  Int32GetDatum(-1)));
			return;
		case AV_B:
			{
				int			n;
				char	   *b64 = av_base64_encode(v->str, v->len, &n);

				string_jbv(jv, b64, n);
				return;
			}
		case AV_BOOL:
			jv->type = jbvBool;
			jv->val.boolean = v->boolval;
			return;
		default:
			if (typed_text)
			{
				/* {"NULL": true} */
				jv->type = jbvBool;
				jv->val.boolean = true;
				return;
			}
			jv->type = jbvNull;
			return;
	}
}

static bool
is_container(const Av *v)
{
	return v->type == AV_M || v->type == AV_L || av_type_is_set(v->type);
}

/*
 * The JsonbValue tree of a value, built directly (pushJsonbValue copies
 * every node into growing arrays and re-sorts each object; an item is
 * written on every put and update, so the direct build is worth it).  The
 * tree is serialised by st_jsonb_raw_from_value.
 */
static void tree_value(const Av *v, bool typed, JsonbValue *out);

/* jsonb's order of object keys: shorter first, then bytes; equal keys by arrival. */
static int
pair_cmp(const void *a, const void *b)
{
	const JsonbPair *x = a;
	const JsonbPair *y = b;
	int			c;

	if (x->key.val.string.len != y->key.val.string.len)
		return x->key.val.string.len < y->key.val.string.len ? -1 : 1;
	c = memcmp(x->key.val.string.val, y->key.val.string.val, x->key.val.string.len);
	if (c != 0)
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

static bool
same_key(const JsonbPair *x, const JsonbPair *y)
{
	return x->key.val.string.len == y->key.val.string.len &&
		memcmp(x->key.val.string.val, y->key.val.string.val, x->key.val.string.len) == 0;
}

/* An object from n pairs: sorted, and of equal keys the last kept (as jsonb input does). */
static void
tree_object(JsonbPair *pairs, int n, JsonbValue *out)
{
	int			m = 0;

	if (n > 1)
		qsort(pairs, n, sizeof(JsonbPair), pair_cmp);
	for (int i = 0; i < n; i++)
	{
		if (i + 1 < n && same_key(&pairs[i], &pairs[i + 1]))
			continue;
		pairs[m++] = pairs[i];
	}
	out->type = jbvObject;
	out->val.object.nPairs = m;
	out->val.object.pairs = pairs;
}

static void
tree_container(const Av *v, bool typed, JsonbValue *out)
{
	if (v->type == AV_M)
	{
		JsonbPair  *pairs = palloc(sizeof(JsonbPair) * Max(v->n, 1));

		for (int i = 0; i < v->n; i++)
		{
			string_jbv(&pairs[i].key, v->members[i].name, v->members[i].name_len);
			pairs[i].order = i;
			tree_value(v->members[i].value, typed, &pairs[i].value);
		}
		tree_object(pairs, v->n, out);
		return;
	}
	out->type = jbvArray;
	out->val.array.rawScalar = false;
	out->val.array.nElems = v->n;
	out->val.array.elems = palloc(sizeof(JsonbValue) * Max(v->n, 1));
	for (int i = 0; i < v->n; i++)
	{
		/* set members are bare strings when typed, plain scalars otherwise */
		if (av_type_is_set(v->type))
			scalar_jbv(v->items[i], typed, &out->val.array.elems[i]);
		else
			tree_value(v->items[i], typed, &out->val.array.elems[i]);
	}
}

static void
tree_value(const Av *v, bool typed, JsonbValue *out)
{
	JsonbPair  *pair;
	const char *tname;

	check_stack_depth();
	if (!typed)
	{
		if (is_container(v))
			tree_container(v, false, out);
		else
			scalar_jbv(v, false, out);
		return;
	}
	/* {"T": payload} */
	pair = palloc(sizeof(JsonbPair));
	tname = av_type_name(v->type);
	string_jbv(&pair->key, tname, strlen(tname));
	pair->order = 0;
	if (is_container(v))
		tree_container(v, true, &pair->value);
	else
		scalar_jbv(v, true, &pair->value);
	out->type = jbvObject;
	out->val.object.nPairs = 1;
	out->val.object.pairs = pair;
}

Jsonb *
av_value_to_jsonb(const Av *v, bool typed)
{
	JsonbValue	jv;

	if (!typed && !is_container(v))
	{
		scalar_jbv(v, false, &jv);
		return JsonbValueToJsonb(&jv);
	}
	tree_value(v, typed, &jv);
	return st_jsonb_raw_from_value(&jv);
}

Jsonb *
av_item_to_jsonb(const Av *item, bool typed)
{
	JsonbValue	jv;

	av_item_tree(item, typed, &jv);
	return st_jsonb_raw_from_value(&jv);
}

Jsonb *
av_stored_to_plain(Jsonb *jb)
{
	return av_item_to_jsonb(av_item_from_stored(jb), false);
}

void
av_value_tree(const Av *v, bool typed, JsonbValue *out)
{
	tree_value(v, typed, out);
}

void
av_item_tree(const Av *item, bool typed, JsonbValue *out)
{
	if (!is_container(item))
		st_internal_error("an item must be a map");
	tree_container(item, typed, out);
}

/* ---------- sizes of stored items, without a tree ---------- */

static int64 stored_value_size(const JsonbContainer *typed);

/* The raw length of base64 text (stored base64 is canonical: padded). */
static int64
base64_raw_len(const char *s, int len)
{
	int			pad = 0;

	if (len >= 1 && s[len - 1] == '=')
		pad++;
	if (len >= 2 && s[len - 2] == '=')
		pad++;
	return (int64) len / 4 * 3 - pad;
}

static int64
stored_scalar_size(char type, const JsonbRaw *v)
{
	if (v->type != JENTRY_ISSTRING)
		return 1;				/* BOOL, NULL */
	if (type == 'N')
		return av_number_size(v->data, (int) v->len);
	if (type == 'B')
		return base64_raw_len(v->data, (int) v->len);
	return v->len;
}

/* The elements of L (typed values) or of a set (scalars of member type). */
static int64
stored_array_size(const JsonbContainer *jc, char member_type, bool is_list)
{
	JsonbRawIter it;
	JsonbRaw	v;
	int64		total = is_list ? 3 : 0;

	st_jsonb_raw_begin(&it, jc);
	while (st_jsonb_raw_next_elem(&it, &v))
	{
		if (is_list)
			total += 1 + (v.type == JENTRY_ISCONTAINER ?
						  stored_value_size((const JsonbContainer *) v.data) : 1);
		else
			total += stored_scalar_size(member_type, &v);
	}
	return total;
}

/* The members of M (or of the item itself, without M's overhead). */
static int64
stored_map_size(const JsonbContainer *jc, bool is_map)
{
	JsonbRawIter it;
	JsonbRaw	k,
				v;
	int64		total = is_map ? 3 : 0;

	st_jsonb_raw_begin(&it, jc);
	while (st_jsonb_raw_next_member(&it, &k, &v))
	{
		total += k.len + (is_map ? 1 : 0);
		if (v.type == JENTRY_ISCONTAINER)
			total += stored_value_size((const JsonbContainer *) v.data);
	}
	return total;
}

/* One stored typed value {"T": payload}. */
static int64
stored_value_size(const JsonbContainer *typed)
{
	JsonbRawIter it;
	JsonbRaw	k,
				v;

	check_stack_depth();
	if (!JsonContainerIsObject(typed))
		return 0;
	st_jsonb_raw_begin(&it, typed);
	if (!st_jsonb_raw_next_member(&it, &k, &v) || k.len == 0)
		return 0;
	if (v.type != JENTRY_ISCONTAINER)
		return stored_scalar_size(k.data[0], &v);
	if (k.len == 1 && k.data[0] == 'M')
		return stored_map_size((const JsonbContainer *) v.data, true);
	if (k.len == 1 && k.data[0] == 'L')
		return stored_array_size((const JsonbContainer *) v.data, 'L', true);
	return stored_array_size((const JsonbContainer *) v.data, k.data[0], false);	/* SS, NS, BS */
}

int64
av_stored_item_size(Jsonb *jb)
{
	if (!JB_ROOT_IS_OBJECT(jb))
		return 0;
	return stored_map_size(&jb->root, false);
}

/* ---------- numbers of stored items ---------- */

static bool stored_value_numbers_ok(const JsonbContainer *typed, StErr *err);

static bool
stored_number_ok(const JsonbRaw *v, StErr *err)
{
	StNum		n;

	/* another JSON type under N is refused by the readers themselves */
	return v->type != JENTRY_ISSTRING || st_num_parse(v->data, (int) v->len, &n, err);
}

/* The members of a map (or of the item itself): name -> typed value. */
static bool
stored_map_numbers_ok(const JsonbContainer *jc, StErr *err)
{
	JsonbRawIter it;
	JsonbRaw	k,
				v;

	st_jsonb_raw_begin(&it, jc);
	while (st_jsonb_raw_next_member(&it, &k, &v))
		if (v.type == JENTRY_ISCONTAINER &&
			!stored_value_numbers_ok((const JsonbContainer *) v.data, err))
			return false;
	return true;
}

/* The elements of L (typed values) or of NS (number strings). */
static bool
stored_array_numbers_ok(const JsonbContainer *jc, bool is_list, StErr *err)
{
	JsonbRawIter it;
	JsonbRaw	v;

	st_jsonb_raw_begin(&it, jc);
	while (st_jsonb_raw_next_elem(&it, &v))
	{
		if (is_list ? (v.type == JENTRY_ISCONTAINER &&
					   !stored_value_numbers_ok((const JsonbContainer *) v.data, err))
			: !stored_number_ok(&v, err))
			return false;
	}
	return true;
}

/* One typed value {"T": payload}: its numbers, and those of what it contains. */
static bool
stored_value_numbers_ok(const JsonbContainer *typed, StErr *err)
{
	JsonbRawIter it;
	JsonbRaw	k,
				v;

	check_stack_depth();
	if (!JsonContainerIsObject(typed))
		return true;
	st_jsonb_raw_begin(&it, typed);
	while (st_jsonb_raw_next_member(&it, &k, &v))
	{
		bool		container = v.type == JENTRY_ISCONTAINER;
		bool		ok = true;

		if (k.len == 1 && k.data[0] == 'N')
			ok = stored_number_ok(&v, err);
		else if (k.len == 2 && memcmp(k.data, "NS", 2) == 0 && container)
			ok = stored_array_numbers_ok((const JsonbContainer *) v.data, false, err);
		else if (k.len == 1 && k.data[0] == 'L' && container)
			ok = stored_array_numbers_ok((const JsonbContainer *) v.data, true, err);
		else if (k.len == 1 && k.data[0] == 'M' && container)
			ok = stored_map_numbers_ok((const JsonbContainer *) v.data, err);
		if (!ok)
			return false;
	}
	return true;
}

bool
av_stored_numbers_ok(Jsonb *jb, StErr *err)
{
	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		return true;
	return stored_map_numbers_ok(&jb->root, err);
}
