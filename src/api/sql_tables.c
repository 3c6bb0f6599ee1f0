/*-------------------------------------------------------------------------
 *
 * sql_tables.c
 *		The table functions: st_create_table (both forms), st_create_gsi,
 *		st_drop_gsi, st_describe_table, st_drop_table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/tuplestore.h"

#include "catalog/st_catalog.h"
#include "ops/table_admin.h"
#include "item/av_jsonb.h"
#include "ops/item_ops.h"
#include "sql_args.h"
#include "api.h"

static Av  *
s_value(const char *s)
{
	return av_new_str(AV_S, s, strlen(s));
}

/* {"AttributeName": name, <field>: value} */
static Av  *
name_pair(const char *name, const char *field, const char *value)
{
	Av		   *el = av_new(AV_M);

	av_map_put_nocheck(el, "AttributeName", 13, s_value(name));
	av_map_put_nocheck(el, field, strlen(field), s_value(value));
	return el;
}

/* KeySchema and AttributeDefinitions of a (pk, sk) pair into a request map. */
static void
add_keys(Av *req, const char *pk, const char *pk_type, const char *sk, const char *sk_type)
{
	Av		   *ks = av_new(AV_L);
	Av		   *defs = av_new(AV_L);

	if (pk == NULL)
		st_validation_null("keySchema.1.member.attributeName");
	av_append(ks, name_pair(pk, "KeyType", "HASH"));
	av_append(defs, name_pair(pk, "AttributeType", pk_type ? pk_type : "S"));
	if (sk)
	{
		av_append(ks, name_pair(sk, "KeyType", "RANGE"));
		if (strcmp(sk, pk) != 0)
			av_append(defs, name_pair(sk, "AttributeType", sk_type ? sk_type : "S"));
	}
	av_map_put_nocheck(req, "KeySchema", 9, ks);
	av_map_put_nocheck(req, "AttributeDefinitions", 20, defs);
}

PG_FUNCTION_INFO_V1(st_create_table_json);
Datum
st_create_table_json(PG_FUNCTION_ARGS)
{
	Av		   *req = av_map_from_jsonb(PG_GETARG_JSONB_P(0), false, "definition");

	PG_RETURN_JSONB_P(av_item_to_jsonb(api_table_create_from(req), false));
}

/*
 * st_create_table(table_name, pk, sk, pk_type, sk_type): on-demand billing.
 *
 * An untyped literal argument resolves to this text form rather than the
 * jsonb one, so a "table name" that is a JSON object (no table name can
 * contain '{') is taken as the definition: st_create_table('{...}') works.
 */
PG_FUNCTION_INFO_V1(st_create_table_short);
Datum
st_create_table_short(PG_FUNCTION_ARGS)
{
	Av		   *req = av_new(AV_M);
	char	   *name = api_arg_required_text(fcinfo, 0, "tableName");
	const char *p = name;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p == '{')
	{
		Jsonb	   *def = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(name)));

		req = av_map_from_jsonb(def, false, "definition");
		PG_RETURN_JSONB_P(av_item_to_jsonb(api_table_create_from(req), false));
	}
	av_map_put_nocheck(req, "TableName", 9, s_value(name));
	add_keys(req, api_arg_text(fcinfo, 1), api_arg_text(fcinfo, 3), api_arg_text(fcinfo, 2), api_arg_text(fcinfo, 4));
	av_map_put_nocheck(req, "BillingMode", 11, s_value("PAY_PER_REQUEST"));
	PG_RETURN_JSONB_P(av_item_to_jsonb(api_table_create_from(req), false));
}

/*
 * st_create_gsi(table_name, index_name, pk, sk, pk_type, sk_type, projection,
 *				 non_key_attributes)
 */
PG_FUNCTION_INFO_V1(st_create_gsi);
Datum
st_create_gsi(PG_FUNCTION_ARGS)
{
	char	   *table = api_arg_required_text(fcinfo, 0, "tableName");
	Av		   *gsi = av_new(AV_M);
	Av		   *projection = av_new(AV_M);
	Av		   *keyreq = av_new(AV_M);
	char	   *ptype = api_arg_text(fcinfo, 6);

	av_map_put_nocheck(gsi, "IndexName", 9, s_value(api_arg_required_text(fcinfo, 1, "indexName")));
	add_keys(keyreq, api_arg_required_text(fcinfo, 2, "pk"), api_arg_text(fcinfo, 4),
			 api_arg_text(fcinfo, 3), api_arg_text(fcinfo, 5));
	av_map_put_nocheck(gsi, "KeySchema", 9, av_map_get(keyreq, "KeySchema", 9));
	av_map_put_nocheck(projection, "ProjectionType", 14, s_value(ptype ? ptype : "ALL"));
	if (!PG_ARGISNULL(7))
	{
		ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(7);
		Datum	   *elems;
		bool	   *nulls;
		int			n;
		Av		   *nk = av_new(AV_L);

		deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
		for (int i = 0; i < n; i++)
		{
			if (nulls[i])
				st_error(ST_ERR_VALIDATION, "NonKeyAttributes must not contain null");
			av_append(nk, s_value(TextDatumGetCString(elems[i])));
		}
		av_map_put_nocheck(projection, "NonKeyAttributes", 16, nk);
	}
	av_map_put_nocheck(gsi, "Projection", 10, projection);
	PG_RETURN_JSONB_P(av_item_to_jsonb(ops_table_add_gsi(table, gsi,
													 av_map_get(keyreq, "AttributeDefinitions", 20),
													 true, "globalSecondaryIndexUpdates.1.member.create"),
									   false));
}

PG_FUNCTION_INFO_V1(st_drop_gsi);
Datum
st_drop_gsi(PG_FUNCTION_ARGS)
{
	ops_table_drop_gsi(text_to_cstring(PG_GETARG_TEXT_PP(0)), text_to_cstring(PG_GETARG_TEXT_PP(1)));
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(st_describe_table);
Datum
st_describe_table(PG_FUNCTION_ARGS)
{
	char	   *name = api_arg_text(fcinfo, 0);

	PG_RETURN_JSONB_P(av_item_to_jsonb(ops_table_describe(name ? name : catalog_default_table_name()), false));
}

/* st_distribute_table(table_name, shard_count): docs/citus.md. */
PG_FUNCTION_INFO_V1(st_distribute_table);
Datum
st_distribute_table(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(ops_table_distribute(text_to_cstring(PG_GETARG_TEXT_PP(0)), PG_GETARG_INT32(1)));
}

/*
 * stdesign.st_delegated_get(pk, sk, table_name) and
 * stdesign.st_delegated_query(pk, lower_kind, lower, upper_kind, upper,
 * backward, "limit", table_name): what a distributed table's delegated read
 * functions ("<relation>_dget", "<relation>_dquery") run at the node Citus
 * sent the call to (docs/citus.md).  Rows (item, direct): the stored
 * items (one NULL item when there is none), and whether this node read its
 * own shard directly.  pk and sk are "any": each must have its key
 * column's type (sk text when the table has no sort key, NULL then).
 */
typedef struct DelegatedOut
{
	List	   *items;
	MemoryContext cxt;
} DelegatedOut;

/* An item a query read, kept (the storage layer frees its row context after each). */
static bool
delegated_row(Jsonb *item, void *arg)
{
	DelegatedOut *out = arg;
	MemoryContext old = MemoryContextSwitchTo(out->cxt);

	out->items = lappend(out->items, DatumGetJsonbPCopy(PointerGetDatum(item)));
	MemoryContextSwitchTo(old);
	return true;
}

/* The rows: each item with the direct flag, or one NULL item when there is none. */
static void
delegated_rows(FunctionCallInfo fcinfo, List *items, bool direct)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[2] = {(Datum) 0, BoolGetDatum(direct)};
	bool		nulls[2] = {true, false};
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	if (items == NIL)
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	foreach(lc, items)
	{
		values[0] = PointerGetDatum(lfirst(lc));
		nulls[0] = false;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

static StTable *
delegated_table(FunctionCallInfo fcinfo, int name_arg)
{
	StTable    *t = ops_table_lookup(api_arg_required_text(fcinfo, name_arg, "tableName"));

	if (PG_ARGISNULL(0))
		st_error(ST_ERR_VALIDATION, "The partition key of a delegated read is NULL");
	ops_check_delegated_key(t, false, get_fn_expr_argtype(fcinfo->flinfo, 0));
	return t;
}

PG_FUNCTION_INFO_V1(st_delegated_get);
Datum
st_delegated_get(PG_FUNCTION_ARGS)
{
	StTable    *t = delegated_table(fcinfo, 2);
	StKey		key;
	bool		direct;
	Jsonb	   *item;

	ops_check_delegated_key(t, true, get_fn_expr_argtype(fcinfo->flinfo, 1));
	if (t->sk.name && PG_ARGISNULL(1))
		st_error(ST_ERR_VALIDATION, "The sort key of a delegated read is NULL");
	key.pk = PG_GETARG_DATUM(0);
	key.sk = t->sk.name ? PG_GETARG_DATUM(1) : (Datum) 0;
	item = ops_delegated_get(t, &key, &direct);
	delegated_rows(fcinfo, item ? list_make1(item) : NIL, direct);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(st_delegated_query);
Datum
st_delegated_query(PG_FUNCTION_ARGS)
{
	StTable    *t = delegated_table(fcinfo, 7);
	DelegatedOut out = {NIL, CurrentMemoryContext};
	StQueryRange r;
	bool		direct;

	memset(&r, 0, sizeof(r));
	r.pk = PG_GETARG_DATUM(0);
	for (int b = 0; b < 2; b++)
	{
		int			kind_arg = 1 + 2 * b;
		int32		kind = PG_ARGISNULL(kind_arg) ? 0 : PG_GETARG_INT32(kind_arg);

		if (kind < ST_BOUND_NONE || kind > ST_BOUND_EXCLUSIVE)
			st_error(ST_ERR_VALIDATION, "A bound kind of a delegated read is not 0, 1 or 2: %d", kind);
		if (kind != ST_BOUND_NONE && (t->sk.name == NULL || PG_ARGISNULL(kind_arg + 1)))
			st_error(ST_ERR_VALIDATION, "A bound of a delegated read is missing");
		if (kind != ST_BOUND_NONE)
			ops_check_delegated_key(t, true, get_fn_expr_argtype(fcinfo->flinfo, kind_arg + 1));
		if (b == 0)
		{
			r.lower_kind = (StBoundKind) kind;
			r.lower = kind ? PG_GETARG_DATUM(kind_arg + 1) : (Datum) 0;
		}
		else
		{
			r.upper_kind = (StBoundKind) kind;
			r.upper = kind ? PG_GETARG_DATUM(kind_arg + 1) : (Datum) 0;
		}
	}
	r.backward = !PG_ARGISNULL(5) && PG_GETARG_BOOL(5);
	r.limit = PG_ARGISNULL(6) ? -1 : Max(PG_GETARG_INT64(6), 0);
	ops_delegated_query(t, &r, delegated_row, &out, &direct);
	delegated_rows(fcinfo, out.items, direct);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(st_drop_table);
Datum
st_drop_table(PG_FUNCTION_ARGS)
{
	ops_table_drop(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	PG_RETURN_VOID();
}

/*
 * stdesign.query_sql(table, index, lower, upper, backward): the statement
 * st_query prepares for that shape of key condition (lower and upper are
 * 0 none, 1 inclusive, 2 exclusive), so that it can be EXPLAINed.
 */
PG_FUNCTION_INFO_V1(st_query_sql);
Datum
st_query_sql(PG_FUNCTION_ARGS)
{
	StTable    *t = catalog_lookup(api_arg_required_text(fcinfo, 0, "tableName"), false);
	char	   *index = api_arg_text(fcinfo, 1);
	StIndex    *ix = index ? catalog_find_index(t, index) : NULL;
	StBoundKind lower = (StBoundKind) Min(Max(PG_GETARG_INT32(2), 0), 2);
	StBoundKind upper = (StBoundKind) Min(Max(PG_GETARG_INT32(3), 0), 2);

	if (index && ix == NULL)
		st_error(ST_ERR_VALIDATION, "The table does not have the specified index: %s", index);
	PG_RETURN_TEXT_P(cstring_to_text(ops_query_sql(t, ix, lower, upper, PG_GETARG_BOOL(4))));
}
