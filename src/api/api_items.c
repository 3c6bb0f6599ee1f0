/*-------------------------------------------------------------------------
 *
 * api_items.c
 *		st_api's PutItem, GetItem, UpdateItem and DeleteItem.
 *
 * Each reads DynamoDB's request JSON, builds the same request the friendly
 * functions build, runs the shared operation, and writes DynamoDB's
 * response: "Item" / "Attributes" typed, "ConsumedCapacity" when asked.
 *
 * The legacy parameters (Expected with ConditionalOperator,
 * AttributeUpdates, AttributesToGet) are accepted in place of their
 * expressions, never together with them; they become the same condition,
 * update and projection (expr_ops.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/collection.h"
#include "ops/expr_ops.h"
#include "ops/item_ops.h"

static const char *const return_values_set[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"};
static const char *const on_failure_set[] = {"ALL_OLD", "NONE"};

/*
 * Each operation's legacy parameters and their expression counterparts, in
 * the order DynamoDB names them when a request mixes the two.
 */
static const char *const put_legacy[] = {"Expected", "ConditionalOperator"};
static const char *const put_expressions[] = {"ConditionExpression"};
static const char *const update_legacy[] = {"AttributeUpdates", "Expected", "ConditionalOperator"};
static const char *const update_expressions[] = {"UpdateExpression", "ConditionExpression"};
static const char *const get_legacy[] = {"AttributesToGet"};
static const char *const get_expressions[] = {"ProjectionExpression"};

static StReturnValues
return_values(Jsonb *request, bool allow_updated)
{
	const char *rv = api_enum(request, "ReturnValues", "returnValues", return_values_set, 5);
	StReturnValues r = ops_return_values(rv, "returnValues");

	if (!allow_updated && r != ST_RV_NONE && r != ST_RV_ALL_OLD)
		st_error(ST_ERR_VALIDATION, "Return values set to invalid value");
	return r;
}

static void
init_expressions(Jsonb *request, StExprRequest *req)
{
	ops_expr_init(req, api_jreq_member(request, "ExpressionAttributeNames"),
					  api_jreq_member(request, "ExpressionAttributeValues"), true);
}

/*
 * The last of a write's expressions: ConditionExpression, or the legacy
 * Expected with ConditionalOperator; then the request's expressions are
 * complete (unused names and values are errors), and the condition gets
 * ReturnValuesOnConditionCheckFailure.
 */
static StCondition *
request_condition(Jsonb *request, StExprRequest *req)
{
	Jsonb	   *expected = api_jreq_member(request, "Expected");
	const char *onfail;
	StCondition *cond;

	ops_expr_add_condition(req, api_jreq_member_text(request, "ConditionExpression", "ConditionExpression"),
						   "ConditionExpression");
	ops_expr_add_legacy_condition(req, expected, api_conditional_or(request, expected != NULL));
	ops_expr_finish(req);
	onfail = api_enum(request, "ReturnValuesOnConditionCheckFailure",
					  "returnValuesOnConditionCheckFailure", on_failure_set, 2);
	cond = ops_expr_write_condition(req);
	if (cond)
		cond->return_item_on_failure = onfail && strcmp(onfail, "ALL_OLD") == 0;
	return cond;
}

/*
 * What PutItem, UpdateItem and DeleteItem share: the checks of the request
 * before the operation, and the response after it.
 */
typedef struct WriteCall
{
	char	   *table_name;
	StTable    *table;			/* looked up by write_call_table, after the request's own checks */
	Av		   *target;			/* Item (PutItem) or Key */
	StReturnValues rv;
	bool		metrics;		/* ReturnItemCollectionMetrics SIZE */
	StCapacity *cap;
	StWriteResult res;
	StExprRequest req;
} WriteCall;

static void
write_call_begin(WriteCall *w, Jsonb *request, const char *target,
				 const char *const *legacy, int nlegacy,
				 const char *const *expressions, int nexpressions, bool allow_updated)
{
	StCapacityMode mode;

	/* DynamoDB checks the mix before anything else, the table included */
	api_check_legacy_mix(request, legacy, nlegacy, expressions, nexpressions);
	w->table_name = api_table_name(request);
	w->table = NULL;
	w->target = av_map_from_jsonb(api_required(request, target, strcmp(target, "Item") == 0 ? "item" : "key"),
								  true, target);
	w->rv = return_values(request, allow_updated);
	w->metrics = api_wants_collection_metrics(request);
	mode = api_capacity_mode(request);
	w->cap = mode != ST_CAPACITY_NONE ? ops_capacity_new(mode) : NULL;
	init_expressions(request, &w->req);
}

/* The table, once the request has passed every check that needs none. */
static void
write_call_table(WriteCall *w)
{
	w->table = catalog_lookup(w->table_name, false);
}

/* {"Attributes": item}? + ConsumedCapacity + ItemCollectionMetrics (tables with an LSI) */
static Jsonb *
write_call_end(WriteCall *w, const Av *attributes)
{
	ApiOut		out;

	if (w->cap)
		ops_capacity_write(w->cap, w->table, w->res.old_item, w->res.new_item, false);
	api_out_begin(&out);
	if (attributes)
	{
		api_out_key(&out, "Attributes");
		api_out_item(&out, attributes);
	}
	api_out_capacity(&out, w->cap, false);
	if (w->metrics && ops_has_item_collections(w->table))
	{
		api_out_key(&out, "ItemCollectionMetrics");
		api_out_collection_metrics(&out, w->table, w->target);
	}
	return api_out_end(&out);
}

Jsonb *
api_put_item(Jsonb *request)
{
	WriteCall	w;
	StCondition *cond;
	Av		   *old;

	write_call_begin(&w, request, "Item", put_legacy, lengthof(put_legacy),
					 put_expressions, lengthof(put_expressions), false);
	cond = request_condition(request, &w.req);
	write_call_table(&w);
	ops_expr_check_key_paths(&w.req, w.table);

	old = ops_put(w.table, w.target, cond, w.rv, w.cap ? &w.res : NULL);
	return write_call_end(&w, old);
}

Jsonb *
api_get_item(Jsonb *request)
{
	char	   *table_name;
	StTable    *t;
	Av		   *key;
	bool		consistent;
	StCapacityMode mode;
	StCapacity *cap;
	StExprRequest req;
	Jsonb	   *stored;
	Av		   *item = NULL;
	ApiOut		out;

	api_check_legacy_mix(request, get_legacy, lengthof(get_legacy),
						 get_expressions, lengthof(get_expressions));
	table_name = api_table_name(request);
	key = av_map_from_jsonb(api_required(request, "Key", "key"), true, "Key");
	consistent = api_jreq_member_bool(request, "ConsistentRead", "ConsistentRead", false);
	mode = api_capacity_mode(request);
	cap = mode != ST_CAPACITY_NONE ? ops_capacity_new(mode) : NULL;
	ops_expr_init(&req, api_jreq_member(request, "ExpressionAttributeNames"), NULL, true);
	ops_expr_add_projection(&req, api_jreq_member_text(request, "ProjectionExpression", "ProjectionExpression"));
	ops_expr_add_attributes_to_get(&req, api_jreq_member(request, "AttributesToGet"));
	ops_expr_finish(&req);
	t = catalog_lookup(table_name, false);

	stored = ops_get(t, key);
	/* after the key's own checks, which ops_get makes */
	ops_expr_check_key_paths(&req, t);
	if (stored)
		item = av_item_from_stored(stored);
	if (cap)
		ops_capacity_read(cap, t, NULL, item ? av_item_size(item) : 0, consistent, false);

	api_out_begin(&out);
	if (item)
	{
		api_out_key(&out, "Item");
		api_out_item(&out, ops_expr_project_item(&req, item));
	}
	api_out_capacity(&out, cap, false);
	return api_out_end(&out);
}

Jsonb *
api_update_item(Jsonb *request)
{
	WriteCall	w;
	StCondition *cond;
	StUpdate   *upd;
	Av		   *result;

	write_call_begin(&w, request, "Key", update_legacy, lengthof(update_legacy),
					 update_expressions, lengthof(update_expressions), true);
	ops_expr_add_update(&w.req, api_jreq_member_text(request, "UpdateExpression", "UpdateExpression"));
	ops_expr_add_legacy_update(&w.req, api_jreq_member(request, "AttributeUpdates"));
	cond = request_condition(request, &w.req);
	write_call_table(&w);
	upd = ops_expr_write_update(&w.req, w.table);
	/* after "Cannot update attribute ...: part of the key" */
	ops_expr_check_key_paths(&w.req, w.table);

	result = ops_update(w.table, w.target, upd, cond, w.rv,
						w.cap ? &w.res : NULL);
	return write_call_end(&w, result);
}

Jsonb *
api_delete_item(Jsonb *request)
{
	WriteCall	w;
	StCondition *cond;
	Av		   *old;

	write_call_begin(&w, request, "Key", put_legacy, lengthof(put_legacy),
					 put_expressions, lengthof(put_expressions), false);
	cond = request_condition(request, &w.req);
	write_call_table(&w);
	ops_expr_check_key_paths(&w.req, w.table);

	old = ops_delete(w.table, w.target, cond, w.rv, w.cap ? &w.res : NULL);
	return write_call_end(&w, old);
}
