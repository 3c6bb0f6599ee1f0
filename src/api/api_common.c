/*-------------------------------------------------------------------------
 *
 * api_common.c
 *		What every st_api handler shares: request fields with DynamoDB's
 *		errors, and the response writer.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/jsonb.h"

#include "api.h"
#include "expr/expr.h"
#include "item/av_jsonb.h"
#include "item/jsonb_raw.h"
#include "json_req.h"
#include "ops/collection.h"

void
api_check_request(Jsonb *request)
{
	if (!api_jreq_is_object(request))
		st_error(ST_ERR_SERIALIZATION, "The request must be a JSON object");
}

Jsonb *
api_required(Jsonb *request, const char *field, const char *path)
{
	Jsonb	   *m = api_jreq_member(request, field);

	if (m == NULL)
		st_validation_null("%s", path);
	return m;
}

char *
api_table_name(Jsonb *request)
{
	char	   *name = api_jreq_member_text(request, "TableName", "TableName");

	if (name == NULL)
		st_validation_null("tableName");
	/* a table's name or its ARN: the name from here on */
	return pstrdup(catalog_table_name(name, "tableName"));
}

StTable *
api_table(Jsonb *request)
{
	return catalog_lookup(api_table_name(request), false);
}

Av *
api_typed_map(Jsonb *request, const char *field)
{
	Jsonb	   *m = api_jreq_member(request, field);

	if (m == NULL)
		return NULL;
	return av_map_from_jsonb(m, true, field);
}

const char *
api_enum(Jsonb *request, const char *field, const char *path,
		 const char *const *values, int nvalues)
{
	char	   *v = api_jreq_member_text(request, field, field);
	StringInfoData set;

	if (v == NULL)
		return NULL;
	for (int i = 0; i < nvalues; i++)
		if (strcmp(v, values[i]) == 0)
			return values[i];
	initStringInfo(&set);
	for (int i = 0; i < nvalues; i++)
		appendStringInfo(&set, "%s%s", i ? ", " : "", values[i]);
	st_error(ST_ERR_VALIDATION,
			 "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
			 v, path, set.data);
}

StCapacityMode
api_capacity_mode(Jsonb *request)
{
	static const char *const modes[] = {"INDEXES", "TOTAL", "NONE"};
	const char *m = api_enum(request, "ReturnConsumedCapacity", "returnConsumedCapacity", modes, 3);

	if (m == NULL || strcmp(m, "NONE") == 0)
		return ST_CAPACITY_NONE;
	return strcmp(m, "TOTAL") == 0 ? ST_CAPACITY_TOTAL : ST_CAPACITY_INDEXES;
}

/* The names of `names` that the request has. */
static int
present(Jsonb *request, const char *const *names, int n, const char **out)
{
	int			count = 0;

	for (int i = 0; i < n; i++)
		if (api_jreq_member(request, names[i]) != NULL)
			out[count++] = names[i];
	return count;
}

void
api_check_legacy_mix(Jsonb *request, const char *const *legacy, int nlegacy,
					 const char *const *expressions, int nexpressions)
{
	const char **l = palloc(sizeof(char *) * Max(nlegacy, 1));
	const char **x = palloc(sizeof(char *) * Max(nexpressions, 1));
	int			nl = present(request, legacy, nlegacy, l);
	int			nx = present(request, expressions, nexpressions, x);
	StErr		err;

	if (nl == 0 || nx == 0)
		return;
	expr_legacy_mix_error(l, nl, x, nx, &err);
	st_raise(&err);
}

bool
api_conditional_or(Jsonb *request, bool has_conditions)
{
	static const char *const operators[] = {"OR", "AND"};
	const char *op = api_enum(request, "ConditionalOperator", "conditionalOperator", operators, 2);

	if (op != NULL && !has_conditions)
		st_error(ST_ERR_VALIDATION, "ConditionalOperator cannot be used without Filter or Expected");
	return op != NULL && strcmp(op, "OR") == 0;
}

/* ---------- responses ---------- */

void
api_out_begin(ApiOut *out)
{
	out->state = NULL;
	out->result = pushJsonbValue(&out->state, WJB_BEGIN_OBJECT, NULL);
}

void
api_out_key(ApiOut *out, const char *key)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) key;
	v.val.string.len = strlen(key);
	pushJsonbValue(&out->state, WJB_KEY, &v);
}

/* The token a value takes where it stands: a member value or an array element. */
static JsonbIteratorToken
value_token(ApiOut *out)
{
	return out->state->contVal.type == jbvArray ? WJB_ELEM : WJB_VALUE;
}

/*
 * A value built elsewhere (a tree, or a container copied as is) goes where
 * the next value goes: a placeholder is pushed and then replaced, since
 * pushJsonbValue only takes scalars there.  api_out_end serialises the
 * whole tree with st_jsonb_raw_from_value, which copies jbvBinary containers
 * byte for byte.
 */
static void
out_value(ApiOut *out, const JsonbValue *v)
{
	JsonbValue	placeholder;
	JsonbValue *open;

	placeholder.type = jbvNull;
	pushJsonbValue(&out->state, value_token(out), &placeholder);
	open = &out->state->contVal;
	if (open->type == jbvArray)
		open->val.array.elems[open->val.array.nElems - 1] = *v;
	else
		open->val.object.pairs[open->val.object.nPairs - 1].value = *v;
}

void
api_out_item(ApiOut *out, const Av *item)
{
	JsonbValue	v;

	av_item_tree(item, true, &v);
	out_value(out, &v);
}

/* A stored item goes out as it is stored, its container copied byte for byte. */
void
api_out_stored_item_elem(ApiOut *out, Jsonb *stored)
{
	JsonbValue	v;

	if (!JB_ROOT_IS_OBJECT(stored))
		st_internal_error("stored item is not a JSON object");
	v.type = jbvBinary;
	v.val.binary.data = &stored->root;
	v.val.binary.len = VARSIZE(stored) - VARHDRSZ;
	out_value(out, &v);
}

void
api_out_plain(ApiOut *out, const Av *value)
{
	JsonbValue	v;

	av_value_tree(value, false, &v);
	out_value(out, &v);
}

void
api_out_int(ApiOut *out, int64 value)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(value);
	pushJsonbValue(&out->state, value_token(out), &v);
}

void
api_out_string(ApiOut *out, const char *value)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) value;
	v.val.string.len = strlen(value);
	pushJsonbValue(&out->state, value_token(out), &v);
}

void
api_out_begin_array(ApiOut *out)
{
	pushJsonbValue(&out->state, WJB_BEGIN_ARRAY, NULL);
}

void
api_out_end_array(ApiOut *out)
{
	out->result = pushJsonbValue(&out->state, WJB_END_ARRAY, NULL);
}

void
api_out_begin_object(ApiOut *out)
{
	pushJsonbValue(&out->state, WJB_BEGIN_OBJECT, NULL);
}

void
api_out_end_object(ApiOut *out)
{
	out->result = pushJsonbValue(&out->state, WJB_END_OBJECT, NULL);
}

void
api_out_capacity(ApiOut *out, StCapacity *c, bool as_list)
{
	Av		   *cc = c ? ops_capacity_result(c, as_list) : NULL;

	if (cc == NULL)
		return;
	api_out_key(out, "ConsumedCapacity");
	api_out_plain(out, cc);
}

bool
api_wants_collection_metrics(Jsonb *request)
{
	char	   *m = api_jreq_member_text(request, "ReturnItemCollectionMetrics", "ReturnItemCollectionMetrics");

	return m != NULL && strcmp(m, "SIZE") == 0;
}

bool
api_out_collection_metrics(ApiOut *out, StTable *t, const Av *item)
{
	Av		   *key = ops_item_collection_key(t, item);

	if (key == NULL)
		return false;
	api_out_begin_object(out);
	api_out_key(out, "ItemCollectionKey");
	api_out_item(out, key);
	api_out_key(out, "SizeEstimateRangeGB");
	api_out_plain(out, ops_item_collection_range(t, item));
	api_out_end_object(out);
	return true;
}

Jsonb *
api_out_end(ApiOut *out)
{
	out->result = pushJsonbValue(&out->state, WJB_END_OBJECT, NULL);
	return st_jsonb_raw_from_value(out->result);
}
