/*-------------------------------------------------------------------------
 *
 * sql_items.c
 *		The friendly item functions: st_put, st_get, st_delete, st_query.
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
#include "utils/tuplestore.h"

#include "catalog/st_catalog.h"
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
