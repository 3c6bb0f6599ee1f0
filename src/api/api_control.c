/*-------------------------------------------------------------------------
 *
 * api_control.c
 *		The control-plane calls tools make besides the table operations:
 *		TagResource, UntagResource, ListTagsOfResource, DescribeEndpoints,
 *		DescribeLimits, DescribeContinuousBackups and UpdateContinuousBackups,
 *		for st_api and the HTTP endpoint alike, and the SQL functions on
 *		tags (st_tag_table, st_untag_table, st_table_tags).
 *
 * Shapes and messages are those of DynamoDB's API reference.  A resource
 * is named by its ARN (ResourceArn), the table's as DescribeTable gives it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"

#include "api.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/table_admin.h"
#include "sql_args.h"

/* DescribeEndpoints: the address the HTTP endpoint was reached at, or NULL. */
const char *api_endpoint_address = NULL;

/* Tags in one ListTagsOfResource answer; NextToken continues after them. */
#define API_TAGS_PAGE 50

static Jsonb *
plain_response(const char *key, const Av *value)
{
	ApiOut		out;

	api_out_begin(&out);
	if (key)
	{
		api_out_key(&out, key);
		api_out_plain(&out, value);
	}
	return api_out_end(&out);
}

static Jsonb *
empty_response(void)
{
	ApiOut		out;

	api_out_begin(&out);
	return api_out_end(&out);
}

/*
 * The table a ResourceArn names, checked as DynamoDB checks it for the tag
 * operations, each case in its words: an ARN, of DynamoDB, of a table (or a
 * stream, which stdesign has none of), of this server's region and account.
 * Whether the table exists is resource_lookup's question.
 */
static const char *
resource_name(Jsonb *request)
{
	char	   *arn = api_jreq_member_text(request, "ResourceArn", "ResourceArn");
	const char *name;
	char	   *table_part;

	if (arn == NULL)
		st_validation_null("resourceArn");
	if (strncmp(arn, "arn:", 4) != 0)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: ARNs must start with 'arn:': %s", arn);
	if (strncmp(arn, "arn:aws:dynamodb:", 17) != 0)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: %s", arn);
	table_part = strstr(arn, ":table/");
	if (table_part && strstr(table_part, "/index/"))
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s",
				 arn);
	name = catalog_arn_table(arn);
	if (name == NULL || strlen(name) > ST_TABLE_NAME_MAX)
	{
		/* a stream's ARN names no resource here: stdesign has no streams */
		if (table_part && strstr(table_part, "/stream/") && strncmp(arn, ST_ARN_PREFIX, strlen(ST_ARN_PREFIX)) == 0)
			st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: ResourcArn: %s not found", arn);
		st_error(ST_ERR_VALIDATION, "Invalid TableArn: Invalid ResourceArn provided as input %s", arn);
	}
	return name;
}

/* The table of a ResourceArn (resource_name), which must exist: DynamoDB's words, "ResourcArn" included. */
static const char *
resource_lookup(Jsonb *request, const char *name)
{
	StTable    *t = catalog_lookup(name, true);

	if (t == NULL)
		st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: ResourcArn: %s not found",
				 api_jreq_member_text(request, "ResourceArn", "ResourceArn"));
	return t->name;
}

static Av  *
request_list(Jsonb *request, const char *field, const char *path)
{
	Jsonb	   *m = api_required(request, field, path);

	if (!api_jreq_is_array(m))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected a list", field);
	return av_from_jsonb_value(&m->root, false);
}

/* The resource's ARN, then the tags, then the table, as DynamoDB checks them. */
Jsonb *
api_tag_resource(Jsonb *request)
{
	Av		   *tags = request_list(request, "Tags", "tags");
	const char *name = resource_name(request);

	ops_tags_check(tags);
	ops_tags_add(resource_lookup(request, name), tags);
	return empty_response();
}

Jsonb *
api_untag_resource(Jsonb *request)
{
	Av		   *keys = request_list(request, "TagKeys", "tagKeys");
	const char *name = resource_name(request);

	ops_tag_keys_check(keys);
	ops_tags_remove(resource_lookup(request, name), keys);
	return empty_response();
}

/* ListTagsOfResource: {"Tags": [...], "NextToken"?}; the token is the last key given. */
Jsonb *
api_list_tags_of_resource(Jsonb *request)
{
	char	   *token = api_jreq_member_text(request, "NextToken", "NextToken");
	const char *table = resource_lookup(request, resource_name(request));
	bool		more;
	Av		   *tags = ops_tags_list(table, token, API_TAGS_PAGE, &more);
	ApiOut		out;

	api_out_begin(&out);
	api_out_key(&out, "Tags");
	api_out_plain(&out, tags);
	if (more)
	{
		const Av   *last = av_map_get(tags->items[tags->n - 1], "Key", 3);

		api_out_key(&out, "NextToken");
		api_out_string(&out, last->str);
	}
	return api_out_end(&out);
}

/*
 * DescribeEndpoints: where to send requests.  Over HTTP the address the
 * client used (its Host header); from SQL, where there is no host, this
 * server's HTTP endpoint on localhost (stdesign.http_port), or "localhost"
 * when it is off.  Cached by clients for 1440 minutes, as DynamoDB says.
 */
Jsonb *
api_describe_endpoints(Jsonb *request)
{
	const char *address = api_endpoint_address;
	const char *port = GetConfigOption("stdesign.http_port", true, false);
	Av		   *list = av_new(AV_L);
	Av		   *e = av_new(AV_M);

	if (address == NULL)
		address = port && strcmp(port, "0") != 0 ? psprintf("localhost:%s", port) : "localhost";
	av_map_put_nocheck(e, "Address", 7, av_new_str(AV_S, address, strlen(address)));
	av_map_put_nocheck(e, "CachePeriodInMinutes", 20, av_new_str(AV_N, "1440", 4));
	av_append(list, e);
	return plain_response("Endpoints", list);
}

/*
 * DescribeLimits: DynamoDB's default quotas per Region (Service, account and
 * table quotas in DynamoDB's developer guide): 80,000 read and write
 * capacity units per account, 40,000 per table.  stdesign keeps them as
 * settings only; it enforces none.
 */
Jsonb *
api_describe_limits(Jsonb *request)
{
	ApiOut		out;

	api_out_begin(&out);
	api_out_key(&out, "AccountMaxReadCapacityUnits");
	api_out_int(&out, 80000);
	api_out_key(&out, "AccountMaxWriteCapacityUnits");
	api_out_int(&out, 80000);
	api_out_key(&out, "TableMaxReadCapacityUnits");
	api_out_int(&out, 40000);
	api_out_key(&out, "TableMaxWriteCapacityUnits");
	api_out_int(&out, 40000);
	return api_out_end(&out);
}

/*
 * The table of a continuous-backups request: a missing one is
 * TableNotFoundException there, not ResourceNotFoundException (API
 * reference, DescribeContinuousBackups and UpdateContinuousBackups).
 */
static const char *
backups_table(Jsonb *request)
{
	char	   *name = api_table_name(request);
	StTable    *t = catalog_lookup(name, true);

	if (t == NULL)
		st_error(ST_ERR_TABLE_NOT_FOUND, "Table not found: %s", name);
	return t->name;
}

Jsonb *
api_describe_continuous_backups(Jsonb *request)
{
	return plain_response("ContinuousBackupsDescription",
						  ops_continuous_backups(backups_table(request)));
}

/*
 * UpdateContinuousBackups: point-in-time recovery on or off, kept and
 * described.  stdesign restores nothing itself: Postgres's own
 * point-in-time recovery (WAL archiving) restores a whole server.
 */
Jsonb *
api_update_continuous_backups(Jsonb *request)
{
	Jsonb	   *spec = api_required(request, "PointInTimeRecoverySpecification",
									"pointInTimeRecoverySpecification");
	bool		enabled = api_jreq_member_bool(spec, "PointInTimeRecoveryEnabled",
											   "PointInTimeRecoveryEnabled", false);
	bool		has_days = api_jreq_member(spec, "RecoveryPeriodInDays") != NULL;
	int			ndays = (int) api_jreq_member_int(spec, "RecoveryPeriodInDays", "RecoveryPeriodInDays", 0);
	const char *table;

	if (has_days)
	{
		if (!enabled)
			st_error(ST_ERR_VALIDATION,
					 "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.");
	}
	table = backups_table(request);
	ops_set_point_in_time_recovery(table, enabled, ndays);
	return plain_response("ContinuousBackupsDescription", ops_continuous_backups(table));
}

/* ---------- SQL functions on tags ---------- */

/* st_tag_table(table_name, tags jsonb): tags as {"key": "value", ...} */
PG_FUNCTION_INFO_V1(st_tag_table);
Datum
st_tag_table(PG_FUNCTION_ARGS)
{
	char	   *name = api_arg_required_text(fcinfo, 0, "tableName");
	Jsonb	   *tags = api_arg_jsonb(fcinfo, 1);
	Av		   *map;
	Av		   *list = av_new(AV_L);

	if (tags == NULL)
		st_validation_null("tags");
	if (!api_jreq_is_object(tags))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for tags: expected an object of keys and values");
	map = av_map_from_jsonb(tags, false, "tags");
	for (int i = 0; i < map->n; i++)
	{
		Av		   *tag = av_new(AV_M);
		const Av   *v = map->members[i].value;
		const char *key = map->members[i].name;

		if (v->type != AV_S)
			st_error(ST_ERR_SERIALIZATION, "Unexpected value type for the tag %s: expected a string", key);
		av_map_put_nocheck(tag, "Key", 3, av_new_str(AV_S, key, map->members[i].name_len));
		av_map_put_nocheck(tag, "Value", 5, av_copy(v));
		av_append(list, tag);
	}
	ops_tags_add(catalog_table_name(name, "tableName"), list);
	PG_RETURN_VOID();
}

/* st_untag_table(table_name, keys text[]) */
PG_FUNCTION_INFO_V1(st_untag_table);
Datum
st_untag_table(PG_FUNCTION_ARGS)
{
	char	   *name = api_arg_required_text(fcinfo, 0, "tableName");
	Av		   *keys = av_new(AV_L);
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	if (PG_ARGISNULL(1))
		st_validation_null("tagKeys");
	arr = PG_GETARG_ARRAYTYPE_P(1);
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		char	   *k;

		if (nulls[i])
			st_validation_null("tagKeys.%d.member", i + 1);
		k = TextDatumGetCString(elems[i]);
		av_append(keys, av_new_str(AV_S, k, strlen(k)));
	}
	ops_tags_remove(catalog_table_name(name, "tableName"), keys);
	PG_RETURN_VOID();
}

/* st_table_tags(table_name) -> {"key": "value", ...} */
PG_FUNCTION_INFO_V1(st_table_tags);
Datum
st_table_tags(PG_FUNCTION_ARGS)
{
	char	   *name = api_arg_required_text(fcinfo, 0, "tableName");
	bool		more;
	Av		   *tags = ops_tags_list(catalog_table_name(name, "tableName"), NULL, 0, &more);
	Av		   *map = av_new(AV_M);

	for (int i = 0; i < tags->n; i++)
	{
		const Av   *key = av_map_get(tags->items[i], "Key", 3);

		av_map_put_nocheck(map, key->str, key->len, av_copy(av_map_get(tags->items[i], "Value", 5)));
	}
	PG_RETURN_JSONB_P(av_item_to_jsonb(map, false));
}
