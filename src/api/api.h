/*-------------------------------------------------------------------------
 *
 * api.h
 *		st_api(operation, request): DynamoDB's JSON API.  One handler per
 *		operation, each taking the request exactly as DynamoDB's JSON
 *		protocol sends it and returning the response DynamoDB would.
 *
 * Handlers run the same operations (src/ops) as the friendly functions.
 * They write responses with ApiOut: items typed, everything else plain.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_API_H
#define ST_API_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "catalog/st_catalog.h"
#include "item/av.h"
#include "ops/capacity.h"

/* A handler: request in, response out (a jsonb object). */
typedef Jsonb *(*ApiHandler) (Jsonb *request);

/*
 * A handler that writes its response as JSON text, appended to out: the
 * text the operation's ApiHandler's answer prints, made without building
 * that Jsonb (GetRecords: a large answer the HTTP endpoint sends as is).
 */
typedef void (*ApiTextHandler) (Jsonb *request, StringInfo out);

/*
 * One DynamoDB call, as st_api makes it: the operation by name (bare or
 * "DynamoDB_20120810.PutItem"), the request checked against DynamoDB's
 * model, then its handler.  A NULL request is {}.  st_api goes through
 * here; the HTTP endpoint finds the handler itself (it serves a few more
 * operations) and runs the same checks (api_check_request,
 * api_validate_request) before it, so that all are validated alike.
 */
extern Jsonb *api_call(const char *operation, Jsonb *request);

/*
 * The handler of an operation ("PutItem" or "DynamoDB_20120810.PutItem"),
 * or NULL: what st_api dispatches to (the HTTP endpoint calls it too,
 * after api_check_request and api_validate_request).
 */
extern ApiHandler api_find_operation(const char *op);

/*
 * The operation's text handler, or NULL when it has none (then its
 * ApiHandler's answer is printed).  Called as api_find_operation's
 * handler is, after the same checks.
 */
extern ApiTextHandler api_find_text_operation(const char *op);

/* The handlers (api_items.c, api_query.c, api_batch.c, api_tables.c, api_transact.c, api_partiql.c). */
extern Jsonb *api_put_item(Jsonb *request);
extern Jsonb *api_get_item(Jsonb *request);
extern Jsonb *api_update_item(Jsonb *request);
extern Jsonb *api_delete_item(Jsonb *request);
extern Jsonb *api_query(Jsonb *request);
extern Jsonb *api_scan(Jsonb *request);
extern Jsonb *api_batch_get_item(Jsonb *request);
extern Jsonb *api_batch_write_item(Jsonb *request);
extern Jsonb *api_transact_write_items(Jsonb *request);
extern Jsonb *api_transact_get_items(Jsonb *request);
extern Jsonb *api_create_table(Jsonb *request);
/* CreateTable of a request (st_create_table too: CloudFormation's forms), its stream included */
extern Av  *api_table_create_from(Av *req);
extern Jsonb *api_delete_table(Jsonb *request);
extern Jsonb *api_describe_table(Jsonb *request);
extern Jsonb *api_list_tables(Jsonb *request);
extern Jsonb *api_update_table(Jsonb *request);
extern Jsonb *api_update_time_to_live(Jsonb *request);	/* api_ttl.c */
/* DynamoDB Streams (api_streams.c) */
extern Jsonb *api_list_streams(Jsonb *request);
extern Jsonb *api_describe_stream(Jsonb *request);
extern Jsonb *api_get_shard_iterator(Jsonb *request);
extern Jsonb *api_get_records(Jsonb *request);
extern void api_get_records_text(Jsonb *request, StringInfo out);
extern Jsonb *api_describe_time_to_live(Jsonb *request);
/* Contributor Insights (api_insights.c) */
extern Jsonb *api_update_contributor_insights(Jsonb *request);
extern Jsonb *api_describe_contributor_insights(Jsonb *request);
extern Jsonb *api_list_contributor_insights(Jsonb *request);
/* PartiQL (api_partiql.c) */
extern Jsonb *api_execute_statement(Jsonb *request);
extern Jsonb *api_batch_execute_statement(Jsonb *request);
extern Jsonb *api_execute_transaction(Jsonb *request);
/* api_control.c */
extern Jsonb *api_tag_resource(Jsonb *request);
extern Jsonb *api_untag_resource(Jsonb *request);
extern Jsonb *api_list_tags_of_resource(Jsonb *request);
extern Jsonb *api_describe_endpoints(Jsonb *request);
extern Jsonb *api_describe_limits(Jsonb *request);
extern Jsonb *api_describe_continuous_backups(Jsonb *request);
extern Jsonb *api_update_continuous_backups(Jsonb *request);
/* the design studio's own operations, StDesign_Studio.<Op> (api_studio.c) */
extern Jsonb *api_studio_describe_table_definition(Jsonb *request);
extern Jsonb *api_studio_get_model(Jsonb *request);
extern Jsonb *api_studio_set_model(Jsonb *request);
extern Jsonb *api_studio_check_model(Jsonb *request);
extern Jsonb *api_studio_model_cost(Jsonb *request);
extern Jsonb *api_studio_run_pattern(Jsonb *request);
extern Jsonb *api_studio_partitions(Jsonb *request);
extern Jsonb *api_studio_hot_partitions(Jsonb *request);
/* on-demand backups (api_backup.c) */
extern Jsonb *api_create_backup(Jsonb *request);
extern Jsonb *api_describe_backup(Jsonb *request);
extern Jsonb *api_list_backups(Jsonb *request);
extern Jsonb *api_delete_backup(Jsonb *request);
extern Jsonb *api_restore_table_from_backup(Jsonb *request);

/* resource-based policies (api_policy.c) */
extern Jsonb *api_put_resource_policy(Jsonb *request);
extern Jsonb *api_get_resource_policy(Jsonb *request);
extern Jsonb *api_delete_resource_policy(Jsonb *request);

/*
 * The address DescribeEndpoints answers with: the HTTP endpoint sets it to
 * the Host a request came to, for that request; NULL from SQL.
 */
extern const char *api_endpoint_address;

/* ---------- shared request helpers (api_common.c) ---------- */

/* The request must be a JSON object: SerializationException otherwise. */
extern void api_check_request(Jsonb *request);

/*
 * DynamoDB's first two checks of a request, from its API model
 * (api_validate.c): every field's JSON type (SerializationException), then
 * every constraint (one ValidationException listing the violations).
 * `operation` is the bare name ("PutItem").
 */
extern void api_validate_request(const char *operation, Jsonb *request);

/* TableName: required, DynamoDB's name rules, the table looked up. */
extern StTable *api_table(Jsonb *request);

/*
 * TableName checked but not looked up yet: DynamoDB checks the rest of a
 * request (items, keys, expressions) before it looks for the table.
 */
extern char *api_table_name(Jsonb *request);

/* A required member: ValidationException "Value null at '<path>'..." when absent. */
extern Jsonb *api_required(Jsonb *request, const char *field, const char *path);

/* A typed map member (Item, Key, ExclusiveStartKey, ExpressionAttributeValues), or NULL. */
extern Av  *api_typed_map(Jsonb *request, const char *field);

/* An enum member: NULL when absent, ValidationException when not one of values. */
extern const char *api_enum(Jsonb *request, const char *field, const char *path,
							const char *const *values, int nvalues);

/*
 * A request may not mix legacy parameters with expressions: of the names
 * given (each list in DynamoDB's order), the ones present in the request
 * must not come from both lists.
 */
extern void api_check_legacy_mix(Jsonb *request, const char *const *legacy, int nlegacy,
								 const char *const *expressions, int nexpressions);

/*
 * ConditionalOperator: true for OR.  It needs a legacy condition to apply
 * to (has_conditions: Expected, QueryFilter or ScanFilter is present).
 */
extern bool api_conditional_or(Jsonb *request, bool has_conditions);

/*
 * Building a response: a jsonb object written member by member, so that
 * items go out typed and counts, names and descriptions plain.
 */
typedef struct ApiOut
{
	JsonbParseState *state;
	JsonbValue *result;
} ApiOut;

extern void api_out_begin(ApiOut *out);
extern void api_out_key(ApiOut *out, const char *key);
extern void api_out_item(ApiOut *out, const Av *item);	/* typed item, as a member value or an array element */
extern void api_out_stored_item_elem(ApiOut *out, Jsonb *stored);	/* a stored item, as is; must outlive out */
extern void api_out_plain(ApiOut *out, const Av *value);	/* plain value (description, ...) */
extern void api_out_int(ApiOut *out, int64 value);
extern void api_out_string(ApiOut *out, const char *value);
extern void api_out_begin_array(ApiOut *out);
extern void api_out_end_array(ApiOut *out);
extern void api_out_begin_object(ApiOut *out);
extern void api_out_end_object(ApiOut *out);
/* "ConsumedCapacity": ... when the request asked for it */
extern void api_out_capacity(ApiOut *out, StCapacity *c, bool as_list);
extern Jsonb *api_out_end(ApiOut *out);

/* ReturnItemCollectionMetrics of a request is SIZE. */
extern bool api_wants_collection_metrics(Jsonb *request);

/*
 * The ItemCollectionMetrics object of the collection item (or key) belongs
 * to, as a member value or an array element; false (nothing written) when
 * the table has no local secondary index.
 */
extern bool api_out_collection_metrics(ApiOut *out, StTable *t, const Av *item);

/* ReturnConsumedCapacity of a request: NONE, TOTAL or INDEXES. */
extern StCapacityMode api_capacity_mode(Jsonb *request);

#endif							/* ST_API_H */
