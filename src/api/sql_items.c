/*-------------------------------------------------------------------------
 *
 * sql_items.c
 *		The friendly item functions: st_put, st_get, st_delete, st_query,
 *		st_query_index.
 *
 * Each reads its SQL arguments, builds the same request the st_api
 * operation would, and runs the shared operation in src/ops.  Items travel
 * in plain JSON unless typed => true.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "catalog/st_catalog.h"
#include "expr/expr.h"
#include "item/av_jsonb.h"
#include "ops/item_ops.h"
#include "ops/expr_ops.h"
#include "sql_args.h"

/* The result of a write: the returned item in the caller's form, or SQL NULL. */
static Datum
item_result(FunctionCallInfo fcinfo, const Av *item, bool typed)
{
	if (item == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(av_item_to_jsonb(item, typed));
}

/* st_put(item, "table", condition, names, "values", return_values, typed) */
PG_FUNCTION_INFO_V1(st_put);
Datum
st_put(PG_FUNCTION_ARGS)
{
	Jsonb	   *itemj = api_arg_jsonb(fcinfo, 0);
	bool		typed = api_arg_bool(fcinfo, 6, false);
	StTable    *t = catalog_lookup(api_arg_text(fcinfo, 1), false);
	StReturnValues rv = ops_return_values(api_arg_text(fcinfo, 5), "returnValues");
	StExprRequest req;
	Av		   *item;
	Av		   *old;

	if (itemj == NULL)
		st_validation_null("item");
	if (rv != ST_RV_NONE && rv != ST_RV_ALL_OLD)
		st_error(ST_ERR_VALIDATION, "Return values set to invalid value");
	ops_expr_init(&req, api_arg_jsonb(fcinfo, 3), api_arg_jsonb(fcinfo, 4), typed);
	ops_expr_add_condition(&req, api_arg_text(fcinfo, 2), "ConditionExpression");
	ops_expr_finish(&req);

	item = av_item_from_jsonb(itemj, typed, "Item");
	old = ops_put(t, item, ops_expr_write_condition(&req), rv, NULL);
	return item_result(fcinfo, old, typed);
}

/* st_get(pk, sk, "table", projection, names, typed) */
PG_FUNCTION_INFO_V1(st_get);
Datum
st_get(PG_FUNCTION_ARGS)
{
	char	   *pk = api_arg_text(fcinfo, 0);
	bool		typed = api_arg_bool(fcinfo, 5, false);
	StTable    *t = catalog_lookup(api_arg_text(fcinfo, 2), false);
	StExprRequest req;
	Jsonb	   *stored;

	ops_expr_init(&req, api_arg_jsonb(fcinfo, 4), NULL, typed);
	ops_expr_add_projection(&req, api_arg_text(fcinfo, 3));
	ops_expr_finish(&req);

	stored = ops_get(t, ops_key_map_from_text(t, pk, api_arg_text(fcinfo, 1)));
	if (stored == NULL)
		PG_RETURN_NULL();
	if (req.projection)
		PG_RETURN_JSONB_P(av_item_to_jsonb(ops_expr_project_item(&req, av_item_from_stored(stored)), typed));
	if (typed)
		PG_RETURN_JSONB_P(stored);
	PG_RETURN_JSONB_P(av_stored_to_plain(stored));
}

/* st_delete(pk, sk, "table", condition, names, "values", return_values, typed) */
PG_FUNCTION_INFO_V1(st_delete);
Datum
st_delete(PG_FUNCTION_ARGS)
{
	char	   *pk = api_arg_text(fcinfo, 0);
	bool		typed = api_arg_bool(fcinfo, 7, false);
	StTable    *t = catalog_lookup(api_arg_text(fcinfo, 2), false);
	StReturnValues rv = ops_return_values(api_arg_text(fcinfo, 6), "returnValues");
	StExprRequest req;
	Av		   *old;

	if (rv != ST_RV_NONE && rv != ST_RV_ALL_OLD)
		st_error(ST_ERR_VALIDATION, "Return values set to invalid value");
	ops_expr_init(&req, api_arg_jsonb(fcinfo, 4), api_arg_jsonb(fcinfo, 5), typed);
	ops_expr_add_condition(&req, api_arg_text(fcinfo, 3), "ConditionExpression");
	ops_expr_finish(&req);

	old = ops_delete(t, ops_key_map_from_text(t, pk, api_arg_text(fcinfo, 1)),
					 ops_expr_write_condition(&req), rv, NULL);
	return item_result(fcinfo, old, typed);
}

/*
 * st_update(pk, sk, "update", "table", condition, names, "values",
 *			 return_values, typed)
 */
PG_FUNCTION_INFO_V1(st_update);
Datum
st_update(PG_FUNCTION_ARGS)
{
	char	   *pk = api_arg_text(fcinfo, 0);
	bool		typed = api_arg_bool(fcinfo, 8, false);
	StTable    *t = catalog_lookup(api_arg_text(fcinfo, 3), false);
	char	   *rvtext = api_arg_text(fcinfo, 7);
	StReturnValues rv = ops_return_values(rvtext ? rvtext : "ALL_NEW", "returnValues");
	StExprRequest req;
	Av		   *keymap = ops_key_map_from_text(t, pk, api_arg_text(fcinfo, 1));
	Av		   *result;

	ops_expr_init(&req, api_arg_jsonb(fcinfo, 5), api_arg_jsonb(fcinfo, 6), typed);
	ops_expr_add_update(&req, api_arg_text(fcinfo, 2));
	ops_expr_add_condition(&req, api_arg_text(fcinfo, 4), "ConditionExpression");
	ops_expr_finish(&req);

	result = ops_update(t, keymap, ops_expr_write_update(&req, t), ops_expr_write_condition(&req), rv, NULL);
	return item_result(fcinfo, result, typed);
}

/* ---------- st_query and st_scan ---------- */

typedef struct QueryOutput
{
	Tuplestorestate *store;
	TupleDesc	desc;
	bool		typed;
	StExprRequest *req;
} QueryOutput;

/* Each item the query reads: filter, project, convert, keep. */
static bool
query_row(Jsonb *stored, void *arg)
{
	QueryOutput *out = (QueryOutput *) arg;
	Datum		value;
	bool		isnull = false;
	Av		   *item = NULL;

	if (out->req->filter || out->req->projection)
	{
		item = av_item_from_stored(stored);
		if (out->req->filter && !ops_expr_filter_passes(out->req, item))
			return true;
		if (out->req->projection)
			item = ops_expr_project_item(out->req, item);
		value = JsonbPGetDatum(av_item_to_jsonb(item, out->typed));
	}
	else if (out->typed)
		value = JsonbPGetDatum(stored);
	else
		value = JsonbPGetDatum(av_stored_to_plain(stored));
	tuplestore_putvalues(out->store, out->desc, &value, &isnull);
	return true;
}

/*
 * st_query(pk, sk_prefix, "table", index, sk_from, sk_to, forward, "limit",
 *			filter, names, "values", projection, typed)
 */
PG_FUNCTION_INFO_V1(st_query);
Datum
st_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *pk = api_arg_required_text(fcinfo, 0, "pk");
	char	   *prefix = api_arg_text(fcinfo, 1);
	StTable    *t = catalog_lookup(api_arg_text(fcinfo, 2), false);
	char	   *index = api_arg_text(fcinfo, 3);
	char	   *from = api_arg_text(fcinfo, 4);
	char	   *to = api_arg_text(fcinfo, 5);
	bool		typed = api_arg_bool(fcinfo, 12, false);
	StQuerySpec q;
	StExprRequest req;
	QueryOutput out;
	const StKeyDef *pkdef;
	const StKeyDef *skdef;

	memset(&q, 0, sizeof(q));
	q.table = t;
	if (index)
	{
		q.index = catalog_find_index(t, index);
		if (q.index == NULL)
			st_error(ST_ERR_VALIDATION, "The table does not have the specified index: %s", index);
	}
	q.forward = api_arg_bool(fcinfo, 6, true);
	q.limit = -1;
	if (!PG_ARGISNULL(7))
	{
		q.limit = PG_GETARG_INT32(7);
		if (q.limit < 1)
			st_error(ST_ERR_VALIDATION,
					 "1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
					 (int) q.limit);
	}
	pkdef = ops_query_pk(&q);
	skdef = ops_query_sk(&q);
	q.pk = ops_key_value_from_text(pk, pkdef->type, pkdef->name);
	if (prefix && (from || to))
		st_error_hint(ST_ERR_VALIDATION, "Give sk_prefix, or sk_from and/or sk_to.",
					  "Invalid KeyConditionExpression: only one condition on the sort key is allowed");
	if ((prefix || from || to) && skdef->name == NULL)
		st_error(ST_ERR_VALIDATION,
				 "Query key condition not supported: the key schema has no sort key");
	if (prefix)
	{
		if (skdef->type == AV_N)
			st_error(ST_ERR_VALIDATION,
					 "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N");
		q.sort_op = ST_SORT_BEGINS_WITH;
		q.sort1 = ops_key_value_from_text(prefix, skdef->type, skdef->name);
	}
	else if (from && to)
	{
		q.sort_op = ST_SORT_BETWEEN;
		q.sort1 = ops_key_value_from_text(from, skdef->type, skdef->name);
		q.sort2 = ops_key_value_from_text(to, skdef->type, skdef->name);
	}
	else if (from)
	{
		q.sort_op = ST_SORT_GE;
		q.sort1 = ops_key_value_from_text(from, skdef->type, skdef->name);
	}
	else if (to)
	{
		q.sort_op = ST_SORT_LE;
		q.sort1 = ops_key_value_from_text(to, skdef->type, skdef->name);
	}

	ops_expr_init(&req, api_arg_jsonb(fcinfo, 9), api_arg_jsonb(fcinfo, 10), typed);
	ops_expr_add_filter(&req, api_arg_text(fcinfo, 8), &q);
	ops_expr_add_projection(&req, api_arg_text(fcinfo, 11));
	ops_expr_finish(&req);

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	out.store = rsinfo->setResult;
	out.desc = rsinfo->setDesc;
	out.typed = typed;
	out.req = &req;
	ops_query(&q, query_row, &out);
	return (Datum) 0;
}

/* ---------- st_query_index: a key of several attributes ---------- */

/* The key attributes of what st_query_index reads: npk HASH, then nsk RANGE. */
typedef struct KeySpace
{
	const char *name;			/* the index's, or the table's */
	const StKeyDef *keys;
	int			npk;
	int			nsk;
	StKeyDef	table_keys[2];
} KeySpace;

static pg_noreturn void
key_type_mismatch(void)
{
	/* what Query answers for a key condition's value of another type */
	st_error(ST_ERR_VALIDATION,
			 "One or more parameter values were invalid: Condition parameter type does not match schema type");
}

/*
 * One key value from its JSON.  typed: an AttributeValue.  Plain: a string
 * read as st_query reads its text arguments (by the attribute's type: a
 * number's text, base64 for B), or a JSON number for an N attribute.  NULL
 * for JSON null: the attribute not given.
 */
static const Av *
key_value_json(JsonbValue *jv, bool typed, const StKeyDef *k)
{
	Av		   *v;

	if (jv->type == jbvNull)
		return NULL;
	if (typed)
	{
		if (jv->type != jbvBinary || !JsonContainerIsObject(jv->val.binary.data))
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: the value of key %s must be an AttributeValue (typed => true)",
					 k->name);
		v = av_from_jsonb_value(jv->val.binary.data, true);
	}
	else if (jv->type == jbvString)
		v = ops_key_value_from_text(pnstrdup(jv->val.string.val, jv->val.string.len), k->type, k->name);
	else if (jv->type == jbvNumeric && k->type == AV_N)
		v = ops_key_value_from_text(DatumGetCString(DirectFunctionCall1(numeric_out,
																		NumericGetDatum(jv->val.numeric))),
									AV_N, k->name);
	else
		key_type_mismatch();
	if (v->type != k->type)
		key_type_mismatch();
	return v;
}

/* The position of attribute name among keys [from, to), or -1. */
static int
key_position(const KeySpace *ks, const char *name, int len, int from, int to)
{
	for (int i = from; i < to; i++)
		if ((int) strlen(ks->keys[i].name) == len && memcmp(ks->keys[i].name, name, len) == 0)
			return i;
	return -1;
}

/*
 * The = terms of argument `what` (pk_values: the HASH attributes, sk_values:
 * the RANGE ones) into m: a JSON array gives the attributes' values in key
 * order, an object names them.  Returns the position after the last
 * attribute given (first when none).
 */
static int
equal_terms(const KeySpace *ks, Jsonb *jb, const char *what, bool typed,
			int first, int count, ExprKeyConditionMulti *m)
{
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue	v;
	int			pos = first;
	int			end = first;
	int			at = -1;

	if (JB_ROOT_IS_SCALAR(jb) || !(JB_ROOT_IS_ARRAY(jb) || JB_ROOT_IS_OBJECT(jb)))
		st_error(ST_ERR_VALIDATION,
				 "%s must be a JSON array (the values in key order) or object (attribute name to value)", what);
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			at = key_position(ks, v.val.string.val, v.val.string.len, first, first + count);
			if (at < 0)
				st_error(ST_ERR_VALIDATION,
						 "Query key condition not supported: %.*s is not a %s attribute of %s",
						 Min(v.val.string.len, 255), v.val.string.val,
						 first < ks->npk ? "partition-key" : "sort-key", ks->name);
			continue;
		}
		if (tok == WJB_ELEM)
		{
			if (pos >= first + count)
				st_error(ST_ERR_VALIDATION,
						 "Query key condition not supported: %s has more values than %s has %s attributes (%d)",
						 what, ks->name, first < ks->npk ? "partition-key" : "sort-key", count);
			at = pos++;
		}
		else if (tok != WJB_VALUE)
			continue;
		m->value1[at] = key_value_json(&v, typed, &ks->keys[at]);
		m->has[at] = m->value1[at] != NULL;
		m->op[at] = EXPR_KEY_EQ;
		if (m->has[at] && at + 1 > end)
			end = at + 1;
	}
	return end;
}

/* One value of sk_prefix, sk_from or sk_to: a lone JSON value. */
static const Av *
bound_value(Jsonb *jb, bool typed, const StKeyDef *k)
{
	JsonbValue	v;
	const Av   *av;

	if (JB_ROOT_IS_SCALAR(jb))
		JsonbExtractScalar(&jb->root, &v);
	else
	{
		v.type = jbvBinary;
		v.val.binary.data = &jb->root;
		v.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	}
	av = key_value_json(&v, typed, k);
	if (av == NULL)
		key_type_mismatch();
	return av;
}

/*
 * st_query_index("table", index, pk_values, sk_values, sk_prefix, sk_from,
 *				  sk_to, forward, "limit", filter, names, "values",
 *				  projection, typed)
 *
 * st_query for a key of any number of attributes (a GSI's multi-attribute
 * key, DynamoDB Developer Guide, "Multi-attribute keys pattern"; a
 * single-attribute index or the table too): every partition-key value,
 * then sort-key values with = from the first, and optionally a prefix or a
 * range on the next sort-key attribute.  The rules, their messages and the
 * order of the items are the KeyConditionExpression's
 * (ops_query_set_multi_condition).
 */
PG_FUNCTION_INFO_V1(st_query_index);
Datum
st_query_index(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StTable    *t = catalog_lookup(api_arg_text(fcinfo, 0), false);
	char	   *index = api_arg_text(fcinfo, 1);
	Jsonb	   *pkv = api_arg_jsonb(fcinfo, 2);
	Jsonb	   *skv = api_arg_jsonb(fcinfo, 3);
	Jsonb	   *prefix = api_arg_jsonb(fcinfo, 4);
	Jsonb	   *from = api_arg_jsonb(fcinfo, 5);
	Jsonb	   *to = api_arg_jsonb(fcinfo, 6);
	bool		typed = api_arg_bool(fcinfo, 13, false);
	KeySpace	ks;
	ExprKeyConditionMulti m;
	StQuerySpec q;
	StExprRequest req;
	QueryOutput out;
	int			next;

	memset(&q, 0, sizeof(q));
	memset(&m, 0, sizeof(m));
	q.table = t;
	if (index)
	{
		q.index = catalog_find_index(t, index);
		if (q.index == NULL)
			st_error(ST_ERR_VALIDATION, "The table does not have the specified index: %s", index);
		ks.name = q.index->name;
		ks.keys = q.index->keys;
		ks.npk = q.index->npk;
		ks.nsk = q.index->nsk;
	}
	else
	{
		ks.name = t->name;
		ks.table_keys[0] = t->pk;
		ks.table_keys[1] = t->sk;
		ks.keys = ks.table_keys;
		ks.npk = 1;
		ks.nsk = t->sk.name ? 1 : 0;
	}
	q.forward = api_arg_bool(fcinfo, 7, true);
	q.limit = -1;
	if (!PG_ARGISNULL(8))
	{
		q.limit = PG_GETARG_INT32(8);
		if (q.limit < 1)
			st_error(ST_ERR_VALIDATION,
					 "1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
					 (int) q.limit);
	}
	if (pkv == NULL)
		st_validation_null("pk_values");
	equal_terms(&ks, pkv, "pk_values", typed, 0, ks.npk, &m);
	next = skv ? equal_terms(&ks, skv, "sk_values", typed, ks.npk, ks.nsk, &m) : ks.npk;

	/* the bounded attribute: the one after the last sort-key value given */
	if (prefix && (from || to))
		st_error_hint(ST_ERR_VALIDATION, "Give sk_prefix, or sk_from and/or sk_to.",
					  "Invalid KeyConditionExpression: only one condition on the sort key is allowed");
	if (prefix || from || to)
	{
		const StKeyDef *k;

		if (ks.nsk == 0)
			st_error(ST_ERR_VALIDATION,
					 "Query key condition not supported: the key schema has no sort key");
		if (next >= ks.npk + ks.nsk)
			st_error(ST_ERR_VALIDATION,
					 "Query key condition not supported: sk_values gives every sort-key attribute of %s, none is left for sk_prefix, sk_from or sk_to",
					 ks.name);
		k = &ks.keys[next];
		m.has[next] = true;
		if (prefix)
		{
			if (k->type == AV_N)
				st_error(ST_ERR_VALIDATION,
						 "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N");
			m.op[next] = EXPR_KEY_BEGINS_WITH;
			m.value1[next] = bound_value(prefix, typed, k);
		}
		else if (from && to)
		{
			m.op[next] = EXPR_KEY_BETWEEN;
			m.value1[next] = bound_value(from, typed, k);
			m.value2[next] = bound_value(to, typed, k);
		}
		else
		{
			m.op[next] = from ? EXPR_KEY_GE : EXPR_KEY_LE;
			m.value1[next] = bound_value(from ? from : to, typed, k);
		}
	}

	if (q.index && q.index->multi)
		ops_query_set_multi_condition(&q, &m);
	else
	{
		/* one HASH and at most one RANGE attribute: st_query's spec */
		static const StSortOp sort_ops[] = {ST_SORT_EQ, ST_SORT_LT, ST_SORT_LE, ST_SORT_GT,
		ST_SORT_GE, ST_SORT_BETWEEN, ST_SORT_BEGINS_WITH};

		if (!m.has[0])
			st_error(ST_ERR_VALIDATION, "Query condition missed key schema element: %s", ks.keys[0].name);
		q.pk = m.value1[0];
		if (ks.nsk > 0 && m.has[1])
		{
			q.sort_op = sort_ops[m.op[1]];
			q.sort1 = m.value1[1];
			q.sort2 = m.value2[1];
		}
	}

	ops_expr_init(&req, api_arg_jsonb(fcinfo, 10), api_arg_jsonb(fcinfo, 11), typed);
	ops_expr_add_filter(&req, api_arg_text(fcinfo, 9), &q);
	ops_expr_add_projection(&req, api_arg_text(fcinfo, 12));
	ops_expr_finish(&req);

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	out.store = rsinfo->setResult;
	out.desc = rsinfo->setDesc;
	out.typed = typed;
	out.req = &req;
	ops_query(&q, query_row, &out);
	return (Datum) 0;
}

/* st_scan("table", index, filter, names, "values", projection, "limit", typed) */
PG_FUNCTION_INFO_V1(st_scan);
Datum
st_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StTable    *t = catalog_lookup(api_arg_text(fcinfo, 0), false);
	char	   *index = api_arg_text(fcinfo, 1);
	bool		typed = api_arg_bool(fcinfo, 7, false);
	StIndex    *ix = NULL;
	int64		limit = -1;
	StExprRequest req;
	QueryOutput out;

	if (index)
	{
		ix = catalog_find_index(t, index);
		if (ix == NULL)
			st_error(ST_ERR_VALIDATION, "The table does not have the specified index: %s", index);
	}
	if (!PG_ARGISNULL(6))
	{
		limit = PG_GETARG_INT32(6);
		if (limit < 1)
			st_error(ST_ERR_VALIDATION,
					 "1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
					 (int) limit);
	}
	ops_expr_init(&req, api_arg_jsonb(fcinfo, 3), api_arg_jsonb(fcinfo, 4), typed);
	ops_expr_add_filter(&req, api_arg_text(fcinfo, 2), NULL);
	ops_expr_add_projection(&req, api_arg_text(fcinfo, 5));
	ops_expr_finish(&req);

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	out.store = rsinfo->setResult;
	out.desc = rsinfo->setDesc;
	out.typed = typed;
	out.req = &req;
	ops_scan(t, ix, limit, query_row, &out);
	return (Datum) 0;
}
