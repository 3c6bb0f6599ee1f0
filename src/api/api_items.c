/*-------------------------------------------------------------------------
 *
 * api_items.c
 *		st_api's PutItem, GetItem, UpdateItem and DeleteItem.
 *
 * Each reads DynamoDB's request JSON, builds the same request the friendly
 * functions build, runs the shared operation, and writes DynamoDB's
 * response: "Item" / "Attributes" typed, "ConsumedCapacity" when asked.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/expr_ops.h"
#include "ops/item_ops.h"

static const char *const return_values_set[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"};
static const char *const on_failure_set[] = {"ALL_OLD", "NONE"};

/* The legacy parameters have an issue of their own: refuse them clearly meanwhile. */
static void
refuse_legacy(Jsonb *request, const char *const *fields, int n)
{
	for (int i = 0; i < n; i++)
		if (jreq_member(request, fields[i]))
			st_error(ST_ERR_VALIDATION,
					 "The legacy parameter %s is not supported yet: use its expression counterpart",
					 fields[i]);
}

static StReturnValues
return_values(Jsonb *request, bool allow_updated)
{
	const char *rv = api_enum(request, "ReturnValues", "returnValues", return_values_set, 5);
	StReturnValues r = ops_return_values(rv, "returnValues");

	if (!allow_updated && r != ST_RV_NONE && r != ST_RV_ALL_OLD)
		st_error(ST_ERR_VALIDATION, "Return values set to invalid value");
	return r;
}

/* The request's expressions, with ReturnValuesOnConditionCheckFailure. */
static StCondition *
request_condition(Jsonb *request, StExprRequest *req)
{
	const char *onfail = api_enum(request, "ReturnValuesOnConditionCheckFailure",
								  "returnValuesOnConditionCheckFailure", on_failure_set, 2);
	StCondition *cond = expr_request_cond(req);

	if (cond)
		cond->return_item_on_failure = onfail && strcmp(onfail, "ALL_OLD") == 0;
	return cond;
}

static void
init_expressions(Jsonb *request, StExprRequest *req)
{
	expr_request_init(req, jreq_member(request, "ExpressionAttributeNames"),
					  jreq_member(request, "ExpressionAttributeValues"), true);
}

/* {"Attributes": item}? + ConsumedCapacity */
static Jsonb *
write_response(const Av *attributes, StCapacity *cap)
{
	ApiOut		out;

	api_out_begin(&out);
	if (attributes)
	{
		api_out_key(&out, "Attributes");
		api_out_item(&out, attributes);
	}
	api_out_capacity(&out, cap, false);
	return api_out_end(&out);
}

Jsonb *
api_put_item(Jsonb *request)
{
	static const char *const legacy[] = {"Expected", "ConditionalOperator"};
	StTable    *t = api_table(request);
	Av		   *item = av_map_from_jsonb(api_required(request, "Item", "item"), true, "Item");
	StReturnValues rv = return_values(request, false);
	StCapacityMode mode = api_capacity_mode(request);
	StCapacity *cap = mode != ST_CAPACITY_NONE ? capacity_new(mode) : NULL;
	StWriteResult res;
	StExprRequest req;
	StCondition *cond;
	Av		   *old;

	refuse_legacy(request, legacy, 2);
	init_expressions(request, &req);
	expr_request_condition(&req, jreq_member_text(request, "ConditionExpression", "ConditionExpression"),
						   "ConditionExpression");
	expr_request_finish(&req);
	cond = request_condition(request, &req);

	old = ops_put(t, item, cond, rv, cap ? &res : NULL);
	if (cap)
		capacity_write(cap, t, res.old_item, res.new_item, false);
	return write_response(old, cap);
}

Jsonb *
api_get_item(Jsonb *request)
{
	static const char *const legacy[] = {"AttributesToGet"};
	StTable    *t = api_table(request);
	Av		   *key = av_map_from_jsonb(api_required(request, "Key", "key"), true, "Key");
	bool		consistent = jreq_member_bool(request, "ConsistentRead", "ConsistentRead", false);
	StCapacityMode mode = api_capacity_mode(request);
	StCapacity *cap = mode != ST_CAPACITY_NONE ? capacity_new(mode) : NULL;
	StExprRequest req;
	Jsonb	   *stored;
	Av		   *item = NULL;
	ApiOut		out;

	refuse_legacy(request, legacy, 1);
	expr_request_init(&req, jreq_member(request, "ExpressionAttributeNames"), NULL, true);
	expr_request_projection(&req, jreq_member_text(request, "ProjectionExpression", "ProjectionExpression"));
	expr_request_finish(&req);

	stored = ops_get(t, key);
	if (stored)
		item = av_item_from_stored(stored);
	if (cap)
		capacity_read(cap, t, NULL, item ? av_item_size(item) : 0, consistent, false);

	api_out_begin(&out);
	if (item)
	{
		api_out_key(&out, "Item");
		api_out_item(&out, expr_request_project(&req, item));
	}
	api_out_capacity(&out, cap, false);
	return api_out_end(&out);
}

Jsonb *
api_update_item(Jsonb *request)
{
	static const char *const legacy[] = {"AttributeUpdates", "Expected", "ConditionalOperator"};
	StTable    *t = api_table(request);
	Av		   *key = av_map_from_jsonb(api_required(request, "Key", "key"), true, "Key");
	StReturnValues rv = return_values(request, true);
	StCapacityMode mode = api_capacity_mode(request);
	StCapacity *cap = mode != ST_CAPACITY_NONE ? capacity_new(mode) : NULL;
	StWriteResult res;
	StExprRequest req;
	StCondition *cond;
	Av		   *result;

	refuse_legacy(request, legacy, 3);
	init_expressions(request, &req);
	expr_request_update(&req, jreq_member_text(request, "UpdateExpression", "UpdateExpression"));
	expr_request_condition(&req, jreq_member_text(request, "ConditionExpression", "ConditionExpression"),
						   "ConditionExpression");
	expr_request_finish(&req);
	cond = request_condition(request, &req);

	result = ops_update(t, key, expr_request_updater(&req, t), cond, rv, cap ? &res : NULL);
	if (cap)
		capacity_write(cap, t, res.old_item, res.new_item, false);
	return write_response(result, cap);
}

Jsonb *
api_delete_item(Jsonb *request)
{
	static const char *const legacy[] = {"Expected", "ConditionalOperator"};
	StTable    *t = api_table(request);
	Av		   *key = av_map_from_jsonb(api_required(request, "Key", "key"), true, "Key");
	StReturnValues rv = return_values(request, false);
	StCapacityMode mode = api_capacity_mode(request);
	StCapacity *cap = mode != ST_CAPACITY_NONE ? capacity_new(mode) : NULL;
	StWriteResult res;
	StExprRequest req;
	StCondition *cond;
	Av		   *old;

	refuse_legacy(request, legacy, 2);
	init_expressions(request, &req);
	expr_request_condition(&req, jreq_member_text(request, "ConditionExpression", "ConditionExpression"),
						   "ConditionExpression");
	expr_request_finish(&req);
	cond = request_condition(request, &req);

	old = ops_delete(t, key, cond, rv, cap ? &res : NULL);
	if (cap)
		capacity_write(cap, t, res.old_item, NULL, false);
	return write_response(old, cap);
}
