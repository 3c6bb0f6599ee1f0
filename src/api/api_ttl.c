/*-------------------------------------------------------------------------
 *
 * api_ttl.c
 *		Time to live: st_api's UpdateTimeToLive and DescribeTimeToLive, and
 *		their friendly functions st_update_ttl, st_describe_ttl; st_expire,
 *		the expiry the background worker does, on demand.
 *
 * The friendly functions build DynamoDB's request and run it through the
 * same model checks and handler as st_api, so that both answer alike.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "api.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/ttl_ops.h"
#include "sql_args.h"

/* How many items st_expire deletes per statement it runs. */
#define EXPIRE_BATCH 1000

static Jsonb *
response(const char *key, const Av *value)
{
	ApiOut		out;

	api_out_begin(&out);
	api_out_key(&out, key);
	api_out_plain(&out, value);
	return api_out_end(&out);
}

/*
 * UpdateTimeToLive: {TableName, TimeToLiveSpecification: {Enabled,
 * AttributeName}} (both required; the model's checks come first) ->
 * {TimeToLiveSpecification}.
 */
static Av  *
update_time_to_live(Jsonb *request)
{
	char	   *name = api_table_name(request);
	Jsonb	   *spec = api_required(request, "TimeToLiveSpecification", "timeToLiveSpecification");
	char	   *attribute = api_jreq_member_text(spec, "AttributeName", "timeToLiveSpecification.attributeName");
	bool		enabled = api_jreq_member_bool(spec, "Enabled", "timeToLiveSpecification.enabled", false);

	if (attribute == NULL)
		st_validation_null("timeToLiveSpecification.attributeName");
	if (api_jreq_member(spec, "Enabled") == NULL)
		st_validation_null("timeToLiveSpecification.enabled");
	return ops_ttl_update(name, attribute, enabled);
}

Jsonb *
api_update_time_to_live(Jsonb *request)
{
	return response("TimeToLiveSpecification", update_time_to_live(request));
}

/* DescribeTimeToLive: {TableName} -> {TimeToLiveDescription}. */
Jsonb *
api_describe_time_to_live(Jsonb *request)
{
	return response("TimeToLiveDescription", ops_ttl_describe(api_table_name(request)));
}

/* {"TableName": name} with the members of `extra` (or NULL), as a request. */
static Jsonb *
table_request(const char *name, Av *extra)
{
	Av		   *req = extra ? extra : av_new(AV_M);

	if (name)
		av_map_put_nocheck(req, "TableName", 9, av_new_str(AV_S, name, strlen(name)));
	return av_item_to_jsonb(req, false);
}

/* st_update_ttl(table_name, attribute_name, enabled DEFAULT true) */
PG_FUNCTION_INFO_V1(st_update_ttl);
Datum
st_update_ttl(PG_FUNCTION_ARGS)
{
	char	   *attribute = api_arg_text(fcinfo, 1);
	Av		   *req = av_new(AV_M);
	Av		   *spec = av_new(AV_M);
	Jsonb	   *request;

	if (attribute)
		av_map_put_nocheck(spec, "AttributeName", 13, av_new_str(AV_S, attribute, strlen(attribute)));
	if (!PG_ARGISNULL(2))
		av_map_put_nocheck(spec, "Enabled", 7, av_new_bool(PG_GETARG_BOOL(2)));
	av_map_put_nocheck(req, "TimeToLiveSpecification", 23, spec);
	request = table_request(api_arg_text(fcinfo, 0), req);
	api_validate_request("UpdateTimeToLive", request);
	PG_RETURN_JSONB_P(av_item_to_jsonb(update_time_to_live(request), false));
}

/* st_describe_ttl(table_name) */
PG_FUNCTION_INFO_V1(st_describe_ttl);
Datum
st_describe_ttl(PG_FUNCTION_ARGS)
{
	Jsonb	   *request = table_request(api_arg_text(fcinfo, 0), NULL);

	api_validate_request("DescribeTimeToLive", request);
	PG_RETURN_JSONB_P(av_item_to_jsonb(ops_ttl_describe(api_table_name(request)), false));
}

/*
 * st_expire(table_name): delete the table's expired items now, in the
 * caller's transaction, in batches; 0 when time to live is not enabled.
 */
PG_FUNCTION_INFO_V1(st_expire);
Datum
st_expire(PG_FUNCTION_ARGS)
{
	Jsonb	   *request = table_request(api_arg_text(fcinfo, 0), NULL);
	StTable    *t;
	char	   *attribute;
	int64		total = 0;
	bool		more = true;

	api_validate_request("DescribeTimeToLive", request);
	t = api_table(request);
	attribute = ops_ttl_attribute(t->name);
	while (attribute && more)
	{
		int64		deleted = ops_expire_batch(t, attribute, EXPIRE_BATCH, &more);

		total += deleted;
		CHECK_FOR_INTERRUPTS();
	}
	PG_RETURN_INT64(total);
}
