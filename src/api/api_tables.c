/*-------------------------------------------------------------------------
 *
 * api_tables.c
 *		st_api's table operations: CreateTable, DeleteTable, DescribeTable,
 *		ListTables and UpdateTable.
 *
 * Creating, describing and dropping are table_admin.c's, shared with the
 * friendly functions; this file reads DynamoDB's requests and shapes the
 * responses.  Tables and indexes are ACTIVE as soon as the call returns:
 * a new GSI is filled inside the call.  UpdateTable also keeps BillingMode
 * and ProvisionedThroughput changes in the catalog's copy of the
 * definition, so that DescribeTable reports them (they are never enforced).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api.h"
#include "ops/stream_ops.h"
#include "ops/table_admin.h"
#include "item/av_jsonb.h"
#include "json_req.h"

#define LIST_TABLES_MAX 100

static Av  *
s_value(const char *s)
{
	return av_new_str(AV_S, s, strlen(s));
}

/* {"<key>": description} */
static Jsonb *
description_response(const char *key, const Av *description)
{
	ApiOut		out;

	api_out_begin(&out);
	api_out_key(&out, key);
	api_out_plain(&out, description);
	return api_out_end(&out);
}

/* The request's TableName, checked by DynamoDB's rules (the table may not exist). */
static char *
table_name(Jsonb *request)
{
	char	   *name = api_jreq_member_text(request, "TableName", "TableName");

	if (name == NULL)
		st_validation_null("tableName");
	return pstrdup(catalog_table_name(name, "tableName"));
}

/* ---------- StreamSpecification (CreateTable, UpdateTable) ---------- */

/* A request's StreamSpecification: given, StreamEnabled, StreamViewType (NULL when absent). */
typedef struct StreamSpec
{
	bool		given;
	bool		enabled;
	const char *view;
} StreamSpec;

/*
 * The request's StreamSpecification, its types checked (the model's
 * checks, api_validate.c, have run: this is for the calls that bypass
 * them); StreamEnabled true without a StreamViewType is DynamoDB's
 * ValidationException (stream_ops.c).
 */
static StreamSpec
stream_spec(const Av *req)
{
	StreamSpec	ss = {0};
	const Av   *spec = av_map_get(req, "StreamSpecification", 19);
	const Av   *enabled;
	const Av   *view;

	if (spec == NULL || spec->type == AV_NULL)
		return ss;
	if (spec->type != AV_M)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for StreamSpecification: expected a structure");
	enabled = av_map_get(spec, "StreamEnabled", 13);
	view = av_map_get(spec, "StreamViewType", 14);
	if (enabled == NULL || enabled->type == AV_NULL)
		st_validation_null("streamSpecification.streamEnabled");
	if (enabled->type != AV_BOOL)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for StreamEnabled: expected a boolean");
	if (view && view->type != AV_NULL && view->type != AV_S)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for StreamViewType: expected a string");
	ss.given = true;
	ss.enabled = enabled->boolval;
	ss.view = view && view->type == AV_S ? pnstrdup(view->str, view->len) : NULL;
	if (ss.enabled && ss.view == NULL)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: StreamViewType is required when StreamEnabled is true");
	return ss;
}

/*
 * A CloudFormation table's StreamSpecification: its StreamViewType alone
 * turns the stream on (AWS::DynamoDB::Table StreamSpecification has no
 * StreamEnabled); a StreamEnabled given is read as CreateTable's.
 */
static StreamSpec
stream_spec_cloudformation(const Av *props)
{
	StreamSpec	ss = {0};
	const Av   *spec = av_map_get(props, "StreamSpecification", 19);
	const Av   *view;

	if (spec == NULL || spec->type == AV_NULL)
		return ss;
	if (spec->type == AV_M && av_map_get(spec, "StreamEnabled", 13) != NULL)
		return stream_spec(props);
	if (spec->type != AV_M)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for StreamSpecification: expected a structure");
	view = av_map_get(spec, "StreamViewType", 14);
	if (view == NULL || view->type == AV_NULL)
		st_validation_null("streamSpecification.streamViewType");
	if (view->type != AV_S)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for StreamViewType: expected a string");
	ss.given = true;
	ss.enabled = true;
	ss.view = pnstrdup(view->str, view->len);
	return ss;
}

/*
 * CreateTable of req (a CreateTable request, or for SQL callers a
 * CloudFormation resource or template too): the table, then its stream
 * when the request turns one on; the TableDescription with the stream's
 * fields.  The stream is a row of stdesign.streams, not a part of the
 * stored request (a backup's restore must not turn it on again: DynamoDB
 * restores a table without its stream settings).
 */
Av *
api_table_create_from(Av *req)
{
	Av		   *proper = (Av *) ops_table_request_proper(req);
	StreamSpec	ss;
	Av		   *d;

	ss = proper != req ? stream_spec_cloudformation(proper) : stream_spec(proper);
	av_map_remove(proper, "StreamSpecification", 19);
	d = ops_table_create(req);
	if (ss.enabled)
	{
		const Av   *name = av_map_get(d, "TableName", 9);

		(void) ops_stream_enable(name->str, ss.view);
		/* CreateTable answers with the stream's fields, as DescribeTable will */
		ops_stream_describe_table(name->str, d);
	}
	return d;
}

/* ---------- CreateTable, DeleteTable, DescribeTable ---------- */

Jsonb *
api_create_table(Jsonb *request)
{
	Av		   *req;
	Av		   *d;

	table_name(request);
	req = av_map_from_jsonb(request, false, "request");

	/*
	 * DynamoDB ignores members it does not know; ops_table_create would take
	 * these for a CloudFormation template or resource.
	 */
	av_map_remove(req, "Resources", 9);
	av_map_remove(req, "Properties", 10);
	d = api_table_create_from(req);
	return description_response("TableDescription", d);
}

Jsonb *
api_delete_table(Jsonb *request)
{
	/* looked up by ops_table_drop, with the lock a drop needs */
	return description_response("TableDescription", ops_table_drop(api_table_name(request)));
}

Jsonb *
api_describe_table(Jsonb *request)
{
	return description_response("Table", ops_table_describe(api_table(request)->name));
}

/* ---------- ListTables ---------- */

/* Up to limit + 1 table names after `start` (NULL: from the first), in byte order. */
static List *
table_names_after(const char *start, int limit)
{
	Oid			types[2] = {TEXTOID, INT4OID};
	Datum		args[2];
	char		nulls[2] = {start ? ' ' : 'n', ' '};
	List	   *names = NIL;
	MemoryContext caller = CurrentMemoryContext;

	args[0] = start ? CStringGetTextDatum(start) : (Datum) 0;
	args[1] = Int32GetDatum(limit + 1);
	SPI_connect();
	if (SPI_execute_with_args("SELECT table_name FROM stdesign.tables"
							  " WHERE $1 IS NULL OR table_name OPERATOR(pg_catalog.>) $1"
							  " ORDER BY table_name LIMIT $2",
							  2, types, args, nulls, true, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.tables");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		MemoryContext spi = MemoryContextSwitchTo(caller);

		names = lappend(names, pstrdup(name));
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	return names;
}

static int
list_limit(Jsonb *request)
{
	int64		limit = api_jreq_member_int(request, "Limit", "Limit", LIST_TABLES_MAX);

	if (limit < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
				 limit);
	if (limit > LIST_TABLES_MAX)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value less than or equal to %d",
				 limit, LIST_TABLES_MAX);
	return (int) limit;
}

Jsonb *
api_list_tables(Jsonb *request)
{
	int			limit = list_limit(request);
	char	   *start = api_jreq_member_text(request, "ExclusiveStartTableName", "ExclusiveStartTableName");
	List	   *names;
	ApiOut		out;
	ListCell   *lc;
	int			n = 0;

	if (start)
		catalog_check_name(start, "exclusiveStartTableName", ST_TABLE_NAME_MAX);
	names = table_names_after(start, limit);
	api_out_begin(&out);
	api_out_key(&out, "TableNames");
	api_out_begin_array(&out);
	foreach(lc, names)
	{
		if (n++ == limit)
			break;
		api_out_string(&out, lfirst(lc));
	}
	api_out_end_array(&out);
	/* a page that stops short of the end says where the next one starts */
	if (list_length(names) > limit)
	{
		api_out_key(&out, "LastEvaluatedTableName");
		api_out_string(&out, list_nth(names, limit - 1));
	}
	return api_out_end(&out);
}

/* ---------- UpdateTable ---------- */

typedef enum GsiAction
{
	GSI_CREATE,
	GSI_UPDATE,
	GSI_DELETE
} GsiAction;

typedef struct GsiUpdate
{
	GsiAction	action;
	const char *index_name;
	Av		   *body;			/* the Create/Update/Delete object */
} GsiUpdate;

typedef struct TableUpdate
{
	const char *table;
	const char *billing;		/* BillingMode asked for, or NULL */
	Av		   *throughput;		/* ProvisionedThroughput, or NULL */
	Av		   *definitions;	/* AttributeDefinitions (empty list when absent) */
	const Av   *deletion_protection;	/* DeletionProtectionEnabled, or NULL */
	const Av   *on_demand;		/* OnDemandThroughput, or NULL */
	const Av   *warm;			/* WarmThroughput, or NULL */
	StreamSpec	stream;			/* StreamSpecification */
	int			nupdates;
	GsiUpdate  *updates;
} TableUpdate;

static const Av *
member(const Av *map, const char *name)
{
	return av_map_get(map, name, strlen(name));
}

/* ReadCapacityUnits and WriteCapacityUnits: both there, whole and at least 1. */
static void
check_throughput(const Av *pt, const char *path)
{
	static const char *const fields[2] = {"ReadCapacityUnits", "WriteCapacityUnits"};
	static const char *const paths[2] = {"readCapacityUnits", "writeCapacityUnits"};

	if (pt->type != AV_M)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for ProvisionedThroughput: expected an object");
	for (int i = 0; i < 2; i++)
	{
		const Av   *v = member(pt, fields[i]);

		if (v == NULL)
			st_validation_null("%s.%s", path, paths[i]);
		if (v->type != AV_N || strchr(v->str, '.') || strchr(v->str, 'E') || strchr(v->str, 'e'))
			st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected an integer", fields[i]);
		if (v->str[0] == '-' || strcmp(v->str, "0") == 0)
			st_error(ST_ERR_VALIDATION,
					 "1 validation error detected: Value '%s' at '%s.%s' failed to satisfy constraint: Member must have value greater than or equal to 1",
					 v->str, path, paths[i]);
	}
	ops_check_throughput_bounds(pt);
}

/* One GlobalSecondaryIndexUpdates element: exactly one of Create, Update, Delete. */
static void
parse_gsi_update(GsiUpdate *u, const Av *el, int pos)
{
	static const char *const actions[3] = {"Create", "Update", "Delete"};
	int			found = 0;
	const Av   *name;

	if (el->type != AV_M)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for GlobalSecondaryIndexUpdates: expected a list of objects");
	for (int i = 0; i < 3; i++)
	{
		const Av   *body = member(el, actions[i]);

		if (body == NULL)
			continue;
		if (body->type != AV_M)
			st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected an object", actions[i]);
		found++;
		u->action = (GsiAction) i;
		u->body = (Av *) body;
	}
	if (found != 1)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null");
	name = member(u->body, "IndexName");
	if (name == NULL)
		st_validation_null("globalSecondaryIndexUpdates.%d.member.%s.indexName",
						   pos, u->action == GSI_CREATE ? "create" : u->action == GSI_UPDATE ? "update" : "delete");
	if (name->type != AV_S)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for IndexName: expected a string");
	u->index_name = name->str;
	catalog_check_name(u->index_name,
					   psprintf("globalSecondaryIndexUpdates.%d.member.%s.indexName", pos,
								u->action == GSI_CREATE ? "create" : u->action == GSI_UPDATE ? "update" : "delete"),
					   ST_INDEX_NAME_MAX);
	if (u->action == GSI_UPDATE)
	{
		const Av   *pt = member(u->body, "ProvisionedThroughput");
		const Av   *odt = member(u->body, "OnDemandThroughput");
		const Av   *warm = member(u->body, "WarmThroughput");

		/* an Update changes one of the three (the table's mode is checked later) */
		if (pt == NULL && odt == NULL && warm == NULL)
			st_validation_null("globalSecondaryIndexUpdates.%d.member.update.provisionedThroughput",
							   pos);
		if (pt)
			check_throughput(pt, psprintf("globalSecondaryIndexUpdates.%d.member.update.provisionedThroughput", pos));
		ops_check_on_demand_throughput(odt, true, u->index_name);
		ops_check_warm_throughput(warm);
	}
}

static void
parse_gsi_updates(TableUpdate *tu, const Av *list)
{
	int			online = 0;
	const char **names;
	int			dup;

	if (list->type != AV_L)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for GlobalSecondaryIndexUpdates: expected a list");
	tu->nupdates = list->n;
	tu->updates = palloc0(sizeof(GsiUpdate) * Max(1, list->n));
	names = palloc(sizeof(char *) * Max(1, list->n));
	for (int i = 0; i < list->n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		parse_gsi_update(&tu->updates[i], list->items[i], i + 1);
		names[i] = tu->updates[i].index_name;
		if (tu->updates[i].action != GSI_UPDATE)
			online++;
	}
	/* as long as the request makes it: sorted, not pairwise */
	dup = st_first_duplicate(names, list->n);
	if (dup >= 0)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Only one global secondary index update per index is allowed simultaneously. Index: %s",
				 names[dup]);
	/* DynamoDB builds or drops one index at a time per table */
	if (online > 1)
		st_error(ST_ERR_LIMIT_EXCEEDED,
				 "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table");
}

static TableUpdate *
parse_update_table(Jsonb *request, Av *req)
{
	TableUpdate *tu = palloc0(sizeof(TableUpdate));
	static const char *const modes[] = {"PROVISIONED", "PAY_PER_REQUEST"};
	const Av   *gsiu = member(req, "GlobalSecondaryIndexUpdates");
	const Av   *defs = member(req, "AttributeDefinitions");

	char	   *name = api_table_name(request);
	LOCKMODE	mode = ShareRowExclusiveLock;
	StTable    *t;

	tu->billing = api_enum(request, "BillingMode", "billingMode", modes, 2);
	tu->throughput = (Av *) member(req, "ProvisionedThroughput");
	if (tu->throughput)
		check_throughput(tu->throughput, "provisionedThroughput");
	if (defs && defs->type != AV_L)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for AttributeDefinitions: expected a list");
	tu->definitions = defs ? (Av *) defs : av_new(AV_L);
	if (gsiu)
		parse_gsi_updates(tu, gsiu);
	tu->deletion_protection = member(req, "DeletionProtectionEnabled");
	if (tu->deletion_protection && tu->deletion_protection->type != AV_BOOL)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for DeletionProtectionEnabled: expected a boolean");
	/* their values now, the table's mode once it is known (apply_throughput_limits) */
	tu->on_demand = member(req, "OnDemandThroughput");
	ops_check_on_demand_throughput(tu->on_demand, true, NULL);
	tu->warm = member(req, "WarmThroughput");
	ops_check_warm_throughput(tu->warm);
	tu->stream = stream_spec(req);
	/* DynamoDB's list today (the members it accepts; stdesign keeps the others unused) */
	if (tu->billing == NULL && tu->throughput == NULL && tu->nupdates == 0 &&
		tu->deletion_protection == NULL && tu->on_demand == NULL && tu->warm == NULL &&
		!member(req, "StreamSpecification") && !member(req, "SSESpecification") &&
		!member(req, "ReplicaUpdates") && !member(req, "TableClass") &&
		!member(req, "MultiRegionConsistency"))
		st_error(ST_ERR_VALIDATION,
				 "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required");
	/*
	 * The table last: DynamoDB checks the request before it looks for it.
	 * Locked against writes and other changes of the table until commit,
	 * in the mode the strongest change needs (DROP INDEX: AccessExclusive),
	 * and at once: a weaker lock first would deadlock two UpdateTables, one
	 * and a DeleteTable, or a drop and a writer that read the table first.
	 */
	for (int i = 0; i < tu->nupdates; i++)
		if (tu->updates[i].action == GSI_DELETE)
			mode = AccessExclusiveLock;
	t = catalog_lookup_locked(name, false, mode);
	/* every change of a table is its owner's (docs/security.md) */
	catalog_check_owner(t);
	tu->table = t->name;
	return tu;
}

/* ----- the catalog's copy of the definitions ----- */

/*
 * Run one catalog statement with text/jsonb arguments, as the catalog's
 * owner: parse_update_table checked that the caller owns the table.
 * Statements name their functions and operators with their schema: they
 * run under the caller's search_path (see storage.c).
 */
static void
catalog_exec(const char *sql, int nargs, Oid *types, Datum *args)
{
	(void) catalog_write(sql, nargs, types, args, NULL);
}

static Datum
av_datum(const Av *v)
{
	return JsonbPGetDatum(av_item_to_jsonb(v, false));
}

static bool
is_on_demand(const Av *description)
{
	const Av   *bms = member(description, "BillingModeSummary");
	const Av   *mode = bms ? member(bms, "BillingMode") : NULL;

	return mode && mode->type == AV_S && strcmp(mode->str, "PAY_PER_REQUEST") == 0;
}

static void
store_index_throughput(const char *table, const char *index, const Av *pt)
{
	Oid			types[3] = {TEXTOID, TEXTOID, JSONBOID};
	Datum		args[3];

	args[0] = CStringGetTextDatum(table);
	args[1] = CStringGetTextDatum(index);
	args[2] = av_datum(pt);
	catalog_exec("UPDATE stdesign.indexes SET definition = pg_catalog.jsonb_set(definition,"
				 " '{ProvisionedThroughput}'::pg_catalog.text[], $3)"
				 " WHERE table_name OPERATOR(pg_catalog.=) $1 AND index_name OPERATOR(pg_catalog.=) $2",
				 3, types, args);
}

/* One setting (OnDemandThroughput, WarmThroughput) of an index's definition. */
static void
store_index_setting(const char *table, const char *index, const char *key, const Av *value)
{
	Oid			types[4] = {TEXTOID, TEXTOID, TEXTOID, JSONBOID};
	Datum		args[4];

	args[0] = CStringGetTextDatum(table);
	args[1] = CStringGetTextDatum(index);
	args[2] = CStringGetTextDatum(key);
	args[3] = av_datum(value);
	catalog_exec("UPDATE stdesign.indexes SET definition = definition OPERATOR(pg_catalog.||)"
				 " pg_catalog.jsonb_build_object($3, $4)"
				 " WHERE table_name OPERATOR(pg_catalog.=) $1 AND index_name OPERATOR(pg_catalog.=) $2",
				 4, types, args);
}

/* The table's mode once this request's BillingMode applies. */
static bool
on_demand_after(TableUpdate *tu, const Av *description)
{
	return tu->billing ? strcmp(tu->billing, "PAY_PER_REQUEST") == 0 : is_on_demand(description);
}

/*
 * The table's OnDemandThroughput (for a PAY_PER_REQUEST table only) and
 * WarmThroughput, merged into what is stored (table_admin.c).
 */
static void
apply_throughput_limits(TableUpdate *tu, const Av *description)
{
	if (tu->on_demand)
	{
		ops_check_on_demand_throughput(tu->on_demand, on_demand_after(tu, description), NULL);
		ops_table_set_option(tu->table, "OnDemandThroughput",
							 ops_merge_on_demand_throughput(ops_table_option(tu->table, "OnDemandThroughput"),
															tu->on_demand));
	}
	if (tu->warm)
		ops_table_set_option(tu->table, "WarmThroughput",
							 ops_merge_warm_throughput(ops_table_option(tu->table, "WarmThroughput"), tu->warm));
}

/* The throughput in force is what is stored: same values are an error, as in DynamoDB. */
static void
check_throughput_changes(const Av *description, const Av *pt)
{
	const Av   *cur = member(description, "ProvisionedThroughput");
	const Av   *r = member(cur, "ReadCapacityUnits");
	const Av   *w = member(cur, "WriteCapacityUnits");
	const Av   *nr = member(pt, "ReadCapacityUnits");
	const Av   *nw = member(pt, "WriteCapacityUnits");

	if (av_equal(r, nr) && av_equal(w, nw))
		st_error(ST_ERR_VALIDATION,
				 "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: %s. Requested ReadCapacityUnits: %s. Current WriteCapacityUnits provisioned for the table: %s. Requested WriteCapacityUnits: %s. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
				 r->str, nr->str, w->str, nw->str);
}

/* BillingMode and ProvisionedThroughput of the table, checked and stored. */
static void
apply_billing(TableUpdate *tu, const Av *description)
{
	bool		on_demand = is_on_demand(description);
	bool		to_on_demand = tu->billing ? strcmp(tu->billing, "PAY_PER_REQUEST") == 0 : on_demand;
	Av		   *patch = av_new(AV_M);
	Oid			types[2] = {TEXTOID, JSONBOID};
	Datum		args[2];

	if (tu->billing == NULL && tu->throughput == NULL)
		return;
	if (to_on_demand && tu->throughput)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
	if (!to_on_demand && on_demand && tu->throughput == NULL)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED");
	if (!to_on_demand && !on_demand && tu->throughput && tu->nupdates == 0)
		check_throughput_changes(description, tu->throughput);

	av_map_put_nocheck(patch, "BillingMode", 11, s_value(to_on_demand ? "PAY_PER_REQUEST" : "PROVISIONED"));
	if (tu->throughput)
		av_map_put_nocheck(patch, "ProvisionedThroughput", 21, av_copy(tu->throughput));
	args[0] = CStringGetTextDatum(tu->table);
	args[1] = av_datum(patch);
	catalog_exec(to_on_demand
				 ? "UPDATE stdesign.tables SET definition = (definition OPERATOR(pg_catalog.-)"
				 " 'ProvisionedThroughput'::pg_catalog.text) OPERATOR(pg_catalog.||) $2"
				 " WHERE table_name OPERATOR(pg_catalog.=) $1"
				 : "UPDATE stdesign.tables SET definition = definition OPERATOR(pg_catalog.||) $2"
				 " WHERE table_name OPERATOR(pg_catalog.=) $1",
				 2, types, args);
	if (to_on_demand)
		catalog_exec("UPDATE stdesign.indexes SET definition = definition OPERATOR(pg_catalog.-)"
					 " 'ProvisionedThroughput'::pg_catalog.text WHERE table_name OPERATOR(pg_catalog.=) $1",
					 1, types, args);
}

/* A table turned PROVISIONED needs throughput for each GSI it keeps, in this request. */
static void
check_gsis_provisioned(TableUpdate *tu, const Av *description)
{
	const Av   *gsis = member(description, "GlobalSecondaryIndexes");

	if (tu->billing == NULL || strcmp(tu->billing, "PROVISIONED") != 0 ||
		!is_on_demand(description) || gsis == NULL)
		return;
	for (int i = 0; i < gsis->n; i++)
	{
		const char *name = member(gsis->items[i], "IndexName")->str;
		bool		given = false;

		for (int j = 0; j < tu->nupdates; j++)
			given |= strcmp(tu->updates[j].index_name, name) == 0 &&
				(tu->updates[j].action == GSI_DELETE ||
				 (tu->updates[j].action == GSI_UPDATE &&
				  member(tu->updates[j].body, "ProvisionedThroughput") != NULL));
		if (!given)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: ProvisionedThroughput must be specified for index: %s",
					 name);
	}
}

/* The description of one GSI of a table, or NULL. */
static Av  *
gsi_description(const Av *description, const char *index)
{
	const Av   *gsis = member(description, "GlobalSecondaryIndexes");

	for (int i = 0; gsis && i < gsis->n; i++)
	{
		const Av   *n = member(gsis->items[i], "IndexName");

		if (strcmp(n->str, index) == 0)
			return gsis->items[i];
	}
	return NULL;
}

static void
index_not_found(const char *table, const char *index)
{
	st_error(ST_ERR_RESOURCE_NOT_FOUND,
			 "Requested resource not found: Index: %s not found in table %s", index, table);
}

/* Apply one index update; a dropped index's description is returned (DELETING). */
static Av  *
apply_gsi_update(TableUpdate *tu, GsiUpdate *u, const Av *description)
{
	Av		   *old = gsi_description(description, u->index_name);

	switch (u->action)
	{
		case GSI_CREATE:
			ops_table_add_gsi(tu->table, u->body, tu->definitions, false,
						  "globalSecondaryIndexUpdates.1.member.create");
			return NULL;
		case GSI_UPDATE:
			if (old == NULL)
				index_not_found(tu->table, u->index_name);
			if (member(u->body, "ProvisionedThroughput"))
			{
				if (is_on_demand(description) &&
					(tu->billing == NULL || strcmp(tu->billing, "PAY_PER_REQUEST") == 0))
					st_error(ST_ERR_VALIDATION,
							 "One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST",
							 u->index_name);
				store_index_throughput(tu->table, u->index_name, member(u->body, "ProvisionedThroughput"));
			}
			if (member(u->body, "OnDemandThroughput"))
			{
				ops_check_on_demand_throughput(member(u->body, "OnDemandThroughput"),
											   on_demand_after(tu, description), u->index_name);
				store_index_setting(tu->table, u->index_name, "OnDemandThroughput",
									ops_merge_on_demand_throughput(member(old, "OnDemandThroughput"),
																   member(u->body, "OnDemandThroughput")));
			}
			if (member(u->body, "WarmThroughput"))
				store_index_setting(tu->table, u->index_name, "WarmThroughput",
									ops_merge_warm_throughput(member(old, "WarmThroughput"),
															  member(u->body, "WarmThroughput")));
			return NULL;
		case GSI_DELETE:
			ops_table_drop_gsi(tu->table, u->index_name);
			old = av_copy(old);
			av_map_set(old, "IndexStatus", 11, s_value("DELETING"));
			return old;
	}
	return NULL;
}

Jsonb *
api_update_table(Jsonb *request)
{
	Av		   *req = av_map_from_jsonb(request, false, "request");
	TableUpdate *tu = parse_update_table(request, req);
	Av		   *before = ops_table_describe(tu->table);
	Av		   *dropped = av_new(AV_L);
	Av		   *after;
	Av		   *gsis;

	check_gsis_provisioned(tu, before);
	apply_billing(tu, before);
	apply_throughput_limits(tu, before);
	if (tu->deletion_protection)
		ops_table_set_option(tu->table, "DeletionProtectionEnabled", tu->deletion_protection);
	for (int i = 0; i < tu->nupdates; i++)
	{
		Av		   *gone = apply_gsi_update(tu, &tu->updates[i], before);

		if (gone)
			av_append(dropped, gone);
	}
	/* enabling an enabled stream, disabling none: ValidationException (stream_ops.c) */
	if (tu->stream.given && tu->stream.enabled)
		(void) ops_stream_enable(tu->table, tu->stream.view);
	else if (tu->stream.given)
		(void) ops_stream_disable(tu->table);
	after = ops_table_describe(tu->table);
	/* the answer to a disabling says so; DescribeTable keeps only the stream's label and ARN */
	if (tu->stream.given && !tu->stream.enabled)
	{
		Av		   *spec = av_new(AV_M);

		av_map_put_nocheck(spec, "StreamEnabled", 13, av_new_bool(false));
		av_map_set(after, "StreamSpecification", 19, spec);
	}
	/* a distributed table's workers get the changed catalog rows (docs/citus.md) */
	ops_table_publish(tu->table);

	/* a dropped index is still described, DELETING, as DynamoDB does while it goes */
	if (dropped->n > 0)
	{
		gsis = (Av *) member(after, "GlobalSecondaryIndexes");
		if (gsis == NULL)
		{
			gsis = av_new(AV_L);
			av_map_put_nocheck(after, "GlobalSecondaryIndexes", 22, gsis);
		}
		for (int i = 0; i < dropped->n; i++)
			av_append(gsis, dropped->items[i]);
	}
	return description_response("TableDescription", after);
}
