/*-------------------------------------------------------------------------
 *
 * api_query.c
 *		st_api's Query and Scan: pages, Select, index projections.
 *
 * A page ends when Limit items have been read (before the filter, as in
 * DynamoDB) or when the items read reach 1 MB; LastEvaluatedKey is then the
 * key of the last item read: the table's key, plus the index's key for an
 * index.  Given back as ExclusiveStartKey, it resumes exactly after that
 * item, since index order breaks ties by the table key (see storage.c).
 *
 * Select and projections follow DynamoDB: ALL_ATTRIBUTES (the table's
 * default), ALL_PROJECTED_ATTRIBUTES (an index's default: what the index
 * projects), SPECIFIC_ATTRIBUTES (with ProjectionExpression) and COUNT.  A
 * global secondary index only holds what it projects, so asking it for
 * more is an error; a local one fetches the rest from the table.
 *
 * The legacy KeyConditions, QueryFilter / ScanFilter (with
 * ConditionalOperator) and AttributesToGet become the same key condition,
 * filter and projection as their expressions (expr_ops.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "api.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/expr_ops.h"
#include "ops/item_ops.h"

/* DynamoDB's page size: a Query or Scan reads at most 1 MB of items. */
#define ST_PAGE_BYTES (1024 * 1024)

typedef enum SelectKind
{
	SELECT_ALL,
	SELECT_PROJECTED,
	SELECT_SPECIFIC,
	SELECT_COUNT
} SelectKind;

typedef struct QueryPage
{
	ApiOut	   *out;
	StExprRequest *req;
	StTable    *table;
	StIndex    *index;
	SelectKind	select;
	int64		limit;
	int64		scanned;
	int64		count;
	int64		bytes;
	bool		fetch;			/* a local index fetches its items from the
								 * table (attributes it does not project) */
	int64		fetch_units;	/* the fetched items' read units */
	bool		more;			/* stopped by Limit or the 1 MB page */
	bool		stored_as_is;	/* items go out as stored (page_returns_stored) */
	Av		   *last_key;		/* key of the last item read (in keep_cxt) */
	MemoryContext keep_cxt;		/* what outlives one row: pushed items, last key */
} QueryPage;

/* ---------- request pieces ---------- */

static const char *const select_set[] = {"ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT"};

static StIndex *
request_index(Jsonb *request, StTable *t)
{
	char	   *name = api_jreq_member_text(request, "IndexName", "IndexName");
	StIndex    *ix;

	if (name == NULL)
		return NULL;
	catalog_check_name(name, "indexName", ST_INDEX_NAME_MAX);
	ix = catalog_find_index(t, name);
	if (ix == NULL)
		st_error(ST_ERR_VALIDATION, "The table does not have the specified index: %s", name);
	return ix;
}

static int64
request_limit(Jsonb *request)
{
	int64		limit = api_jreq_member_int(request, "Limit", "Limit", -1);

	if (api_jreq_member(request, "Limit") && limit < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%lld' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
				 (long long) limit);
	return limit;
}

/*
 * Select against the projection (`projection` names the parameter that
 * gave it: ProjectionExpression or AttributesToGet) and IndexName, with
 * DynamoDB's messages.
 */
static SelectKind
request_select(Jsonb *request, StIndex *ix, bool has_projection, const char *projection,
			   bool is_query)
{
	const char *sel = api_enum(request, "Select", "select", select_set, 4);
	const char *envelope = is_query ? "1 validation error detected: " : "";

	if (sel == NULL)
		return has_projection ? SELECT_SPECIFIC : ix ? SELECT_PROJECTED : SELECT_ALL;
	if (has_projection && strcmp(sel, "SPECIFIC_ATTRIBUTES") != 0)
		st_error(ST_ERR_VALIDATION, "%sCannot specify the %s when choosing to get %s",
				 envelope, projection, strcmp(sel, "COUNT") == 0 ? "only the Count" : sel);
	if (strcmp(sel, "SPECIFIC_ATTRIBUTES") == 0)
	{
		if (!has_projection)
			st_error(ST_ERR_VALIDATION,
					 "%sMust specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
					 envelope);
		return SELECT_SPECIFIC;
	}
	if (strcmp(sel, "ALL_PROJECTED_ATTRIBUTES") == 0)
	{
		if (ix == NULL)
			st_error(ST_ERR_VALIDATION,
					 "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
		return SELECT_PROJECTED;
	}
	if (strcmp(sel, "COUNT") == 0)
		return SELECT_COUNT;
	if (ix && !ix->is_local && ix->projection != ST_PROJECT_ALL)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL",
				 ix->name);
	return SELECT_ALL;
}

static void
check_consistent_read(Jsonb *request, StIndex *ix)
{
	if (ix && !ix->is_local && api_jreq_member_bool(request, "ConsistentRead", "ConsistentRead", false))
		st_error(ST_ERR_VALIDATION, "Consistent reads are not supported on global secondary indexes");
}

/* A ProjectionExpression on a GSI may only ask for what the index projects. */
static void
check_projection_on_index(StExprRequest *req, StTable *t, StIndex *ix)
{
	const ExprParams *p = ops_expr_params(req);

	if (ix == NULL || ix->is_local || req->projection == NULL)
		return;
	for (int i = 0; i < req->projection->npaths; i++)
	{
		int			len;
		const char *name = ops_expr_path_top_name(req->projection->paths[i], p->names, &len);

		if (name && !ops_index_holds(t, ix, name, len))
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: Global secondary index %s does not project [%.*s]",
					 ix->name, len, name);
	}
}

/*
 * Does a page of local index ix fetch its items from the table?  When it
 * returns attributes the index does not project: "ALL_ATTRIBUTES ... If
 * you query a local secondary index, then for each matching item in the
 * index, DynamoDB fetches the entire item from the parent table" (API
 * Reference, Query, Select), and so for a ProjectionExpression naming an
 * attribute outside the index; the fetches cost read capacity on the table.
 */
static bool
page_fetches(StExprRequest *req, StTable *t, StIndex *ix, SelectKind select)
{
	const ExprParams *p = ops_expr_params(req);

	if (ix == NULL || !ix->is_local || ix->projection == ST_PROJECT_ALL)
		return false;
	if (select == SELECT_ALL)
		return true;
	if (select != SELECT_SPECIFIC || req->projection == NULL)
		return false;
	for (int i = 0; i < req->projection->npaths; i++)
	{
		int			len;
		const char *name = ops_expr_path_top_name(req->projection->paths[i], p->names, &len);

		if (name && !ops_index_holds(t, ix, name, len))
			return true;
	}
	return false;
}

/* ---------- keys and positions ---------- */


/*
 * The key attributes of a key space, each once: the table's, then the
 * index's (every one of a multi-attribute key).  Returns how many.
 */
static int
key_attribute_names(StTable *t, StIndex *ix, const char **names)
{
	const StKeyDef *keys[2 + ST_MAX_INDEX_KEYS];
	int			nkeys = 0;
	int			n = 0;

	keys[nkeys++] = &t->pk;
	keys[nkeys++] = &t->sk;
	for (int i = 0; ix && i < ix->npk + ix->nsk; i++)
		keys[nkeys++] = &ix->keys[i];
	for (int i = 0; i < nkeys; i++)
	{
		bool		seen = keys[i]->name == NULL;

		for (int j = 0; j < n && !seen; j++)
			seen = strcmp(names[j], keys[i]->name) == 0;
		if (!seen)
			names[n++] = keys[i]->name;
	}
	return n;
}

/*
 * How many attributes the key of a key space has: the table's and the
 * index's key attributes, each once (an index may share them with the
 * table, as LastEvaluatedKey then holds them once).
 */
static int
key_attribute_count(StTable *t, StIndex *ix)
{
	const char *names[2 + ST_MAX_INDEX_KEYS];

	return key_attribute_names(t, ix, names);
}

/* ExclusiveStartKey as a position: exactly the key attributes of the key space. */
static StPosition *
start_position(Jsonb *request, StTable *t, StIndex *ix)
{
	Av		   *start = api_typed_map(request, "ExclusiveStartKey");
	StPosition *pos;
	int			expected = 0;
	Av		   *keys;

	if (start == NULL)
		return NULL;
	keys = ops_item_key(t, ix, start);
	expected = key_attribute_count(t, ix);
	if (start->n != keys->n || keys->n != expected)
		st_error(ST_ERR_VALIDATION,
				 "The provided starting key is invalid: The provided key element does not match the schema");
	pos = palloc0(sizeof(StPosition));
	if (ix && ix->multi)
	{
		/* every key attribute's value, each checked against its type */
		for (int i = 0; i < ix->npk + ix->nsk; i++)
			(void) ops_start_key_datum(start, &ix->keys[i]);
		/* the table's key too: a parallel Scan checks its segment by it */
		pos->table_pk = ops_start_key_datum(start, &t->pk);
		pos->table_sk = ops_start_key_datum(start, &t->sk);
		pos->key = start;
		return pos;
	}
	pos->table_pk = ops_start_key_datum(start, &t->pk);
	pos->table_sk = ops_start_key_datum(start, &t->sk);
	if (ix)
	{
		pos->index_pk = ops_start_key_datum(start, &ix->pk);
		pos->index_sk = ops_start_key_datum(start, &ix->sk);
	}
	return pos;
}

/* A Query's ExclusiveStartKey must lie in the partition it queries. */
static void
check_start_in_partition(Jsonb *request, const StQuerySpec *q)
{
	Av		   *start = api_typed_map(request, "ExclusiveStartKey");
	const StKeyDef *pk = ops_query_pk(q);
	Av		   *v = av_map_get(start, pk->name, strlen(pk->name));

	if (v == NULL || !av_equal(v, q->pk))
		st_error(ST_ERR_VALIDATION,
				 "The provided starting key is outside query boundaries based on provided conditions");
}

/*
 * A Query's ExclusiveStartKey holds the key attributes of what it queries
 * and nothing else (an attribute outside the key, such as a sort key given
 * to a hash-only table, does not fit): DynamoDB words this without detail.
 */
static void
check_start_names(Jsonb *request, StTable *t, StIndex *ix)
{
	Av		   *start = api_typed_map(request, "ExclusiveStartKey");
	const char *keys[2 + ST_MAX_INDEX_KEYS];
	int			nkeys;

	if (start == NULL)
		return;
	nkeys = key_attribute_names(t, ix, keys);
	for (int i = 0; i < start->n; i++)
	{
		bool		is_key = false;

		for (int k = 0; k < nkeys && !is_key; k++)
			is_key = strlen(keys[k]) == (size_t) start->members[i].name_len &&
				memcmp(keys[k], start->members[i].name, start->members[i].name_len) == 0;
		if (!is_key)
			st_error(ST_ERR_VALIDATION, "The provided starting key is invalid");
	}
	for (int k = 0; k < nkeys; k++)
		if (av_map_get(start, keys[k], strlen(keys[k])) == NULL)
			st_error(ST_ERR_VALIDATION, "The provided starting key is invalid");
}

/* Does a sort-key value satisfy the query's sort-key condition? */
static bool
sort_matches(const StQuerySpec *q, const Av *v)
{
	int			c;

	if (q->sort_op == ST_SORT_NONE)
		return true;
	if (v == NULL || q->sort1 == NULL || v->type != q->sort1->type)
		return false;
	if (q->sort_op == ST_SORT_BEGINS_WITH)
		return v->len >= q->sort1->len && memcmp(v->str, q->sort1->str, q->sort1->len) == 0;
	c = av_compare_scalar(v, q->sort1);
	switch (q->sort_op)
	{
		case ST_SORT_EQ:
			return c == 0;
		case ST_SORT_LT:
			return c < 0;
		case ST_SORT_LE:
			return c <= 0;
		case ST_SORT_GT:
			return c > 0;
		case ST_SORT_GE:
			return c >= 0;
		case ST_SORT_BETWEEN:
			return c >= 0 && q->sort2 != NULL && v->type == q->sort2->type &&
				av_compare_scalar(v, q->sort2) <= 0;
		default:
			return true;
	}
}

/* A Query's ExclusiveStartKey must satisfy its sort-key condition (DynamoDB). */
static void
check_start_in_range(Jsonb *request, const StQuerySpec *q)
{
	Av		   *start = api_typed_map(request, "ExclusiveStartKey");
	const StKeyDef *sk = ops_query_sk(q);

	if (sk->name && !sort_matches(q, av_map_get(start, sk->name, strlen(sk->name))))
		st_error(ST_ERR_VALIDATION, "The provided starting key does not match the range key predicate");
}

/* A parallel Scan's ExclusiveStartKey must lie in its segment. */
static void
check_start_in_segment(StTable *t, const StScanRange *r)
{
	if (r->start == NULL || r->total_segments <= 1 ||
		ops_segment_of(t, r->start->table_pk, r->total_segments) == r->segment)
		return;
	st_error(ST_ERR_VALIDATION,
			 "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d",
			 r->total_segments, r->segment);
}

/* ---------- the page ---------- */

/* What index ix holds of an item: its keys, the table's, and INCLUDE's attributes. */
static Av  *
index_entry(StTable *t, StIndex *ix, const Av *item)
{
	Av		   *out = av_new(AV_M);

	for (int i = 0; i < item->n; i++)
		if (ops_index_holds(t, ix, item->members[i].name, item->members[i].name_len))
			av_map_put_nocheck(out, item->members[i].name, item->members[i].name_len,
							   av_copy(item->members[i].value));
	return out;
}

/* What of an item a page returns: the index's projection, a ProjectionExpression, or all. */
static Av  *
page_item(QueryPage *pg, const Av *item)
{
	if (pg->select == SELECT_SPECIFIC)
		return ops_expr_project_item(pg->req, item);
	if (pg->index && pg->select == SELECT_PROJECTED && pg->index->projection != ST_PROJECT_ALL)
		return index_entry(pg->table, pg->index, item);
	return av_copy(item);
}

/*
 * Does a page return stored items exactly as stored (no filter, no
 * projection of any kind)?  Then they go into the response without being
 * decoded, and their sizes are read from the stored JSON.
 */
static bool
page_returns_stored(const QueryPage *pg)
{
	if (pg->req->filter || pg->fetch)
		return false;
	if (pg->select == SELECT_COUNT)
		return !(pg->index && pg->index->projection != ST_PROJECT_ALL);
	if (pg->select == SELECT_ALL)
		return true;
	return pg->select == SELECT_PROJECTED && pg->index && pg->index->projection == ST_PROJECT_ALL;
}

static bool
page_row(Jsonb *stored, void *arg)
{
	QueryPage  *pg = (QueryPage *) arg;
	Av		   *item = NULL;
	MemoryContext old;

	pg->scanned++;
	if (pg->stored_as_is)
	{
		pg->bytes += av_stored_item_size(stored);
		pg->count++;
		if (pg->select != SELECT_COUNT)
		{
			old = MemoryContextSwitchTo(pg->keep_cxt);
			api_out_stored_item_elem(pg->out, (Jsonb *) PG_DETOAST_DATUM_COPY(PointerGetDatum(stored)));
			MemoryContextSwitchTo(old);
		}
	}
	else
	{
		item = av_item_from_stored(stored);
		/* read capacity counts what the key space holds: an index's projected entries */
		if (pg->index && pg->index->projection != ST_PROJECT_ALL)
			pg->bytes += av_item_size(index_entry(pg->table, pg->index, item));
		else
			pg->bytes += av_item_size(item);
		if (pg->fetch)
			pg->fetch_units += ops_capacity_read_units(av_item_size(item));
		if (ops_expr_filter_passes(pg->req, item))
		{
			pg->count++;
			if (pg->select != SELECT_COUNT)
			{
				old = MemoryContextSwitchTo(pg->keep_cxt);
				api_out_item(pg->out, page_item(pg, item));
				MemoryContextSwitchTo(old);
			}
		}
	}
	if ((pg->limit > 0 && pg->scanned >= pg->limit) || pg->bytes >= ST_PAGE_BYTES)
	{
		pg->more = true;
		if (item == NULL)
			item = av_item_from_stored(stored);
		old = MemoryContextSwitchTo(pg->keep_cxt);
		pg->last_key = ops_item_key(pg->table, pg->index, item);
		MemoryContextSwitchTo(old);
		return false;
	}
	return true;
}

static void
page_begin(QueryPage *pg, ApiOut *out)
{
	pg->out = out;
	pg->stored_as_is = page_returns_stored(pg);
	pg->keep_cxt = CurrentMemoryContext;
	api_out_begin(out);
	if (pg->select != SELECT_COUNT)
	{
		api_out_key(out, "Items");
		api_out_begin_array(out);
	}
}

static Jsonb *
page_end(QueryPage *pg, StCapacity *cap, bool consistent)
{
	ApiOut	   *out = pg->out;

	if (pg->select != SELECT_COUNT)
		api_out_end_array(out);
	api_out_key(out, "Count");
	api_out_int(out, pg->count);
	api_out_key(out, "ScannedCount");
	api_out_int(out, pg->scanned);
	if (pg->more)
	{
		api_out_key(out, "LastEvaluatedKey");
		api_out_item(out, pg->last_key);
	}
	if (cap)
	{
		ops_capacity_read(cap, pg->table, pg->index, pg->bytes, consistent, false);
		ops_capacity_read_fetched(cap, pg->table, pg->fetch_units, consistent);
		api_out_capacity(out, cap, false);
	}
	return api_out_end(out);
}

/* ---------- Query ---------- */

static StSortOp
sort_op(ExprKeyOp op)
{
	switch (op)
	{
		case EXPR_KEY_EQ:
			return ST_SORT_EQ;
		case EXPR_KEY_LT:
			return ST_SORT_LT;
		case EXPR_KEY_LE:
			return ST_SORT_LE;
		case EXPR_KEY_GT:
			return ST_SORT_GT;
		case EXPR_KEY_GE:
			return ST_SORT_GE;
		case EXPR_KEY_BETWEEN:
			return ST_SORT_BETWEEN;
		default:
			return ST_SORT_BEGINS_WITH;
	}
}

/*
 * Query's legacy parameters and their expression counterparts, in
 * DynamoDB's order.  KeyConditions is last: it may go with a
 * FilterExpression or ProjectionExpression, and only clashes with a
 * KeyConditionExpression.
 */
static const char *const query_legacy[] = {"AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"};
static const char *const query_expressions[] = {"ProjectionExpression", "FilterExpression", "KeyConditionExpression"};

/* The name of the parameter that gave the request its projection. */
static const char *
projection_param(Jsonb *request)
{
	return api_jreq_member(request, "AttributesToGet") ? "AttributesToGet" : "ProjectionExpression";
}

/* KeyConditionExpression, or the legacy KeyConditions: the key range of a Query. */
static void
request_key_condition(Jsonb *request, StExprRequest *req, const StQuerySpec *q,
					  ExprKeyCondition *kc)
{
	char	   *kce = api_jreq_member_text(request, "KeyConditionExpression", "KeyConditionExpression");

	if (q->index && q->index->multi)
	{
		/* a multi-attribute key: the expression's rules, for KeyConditions too */
		ops_query_set_multi_condition((StQuerySpec *) q, kce
									  ? ops_expr_key_condition_multi(req, kce, q->index)
									  : ops_expr_legacy_key_condition_multi(req, api_jreq_member(request, "KeyConditions"),
																			q->index));
		return;
	}
	if (kce)
		ops_expr_key_condition(req, kce, ops_query_pk(q), ops_query_sk(q), kc);
	else
		ops_expr_legacy_key_condition(req, api_jreq_member(request, "KeyConditions"),
										  ops_query_pk(q), ops_query_sk(q), kc);
}

Jsonb *
api_query(Jsonb *request)
{
	bool		has_kce = api_jreq_member(request, "KeyConditionExpression") != NULL;
	StTable    *t;
	StIndex    *ix;
	bool		consistent;
	StCapacityMode mode;
	Jsonb	   *query_filter = api_jreq_member(request, "QueryFilter");
	StExprRequest req;
	ExprKeyCondition kc;
	StQuerySpec q;
	QueryPage		pg;
	ApiOut		out;

	memset(&q, 0, sizeof(q));
	api_check_legacy_mix(request, query_legacy, lengthof(query_legacy) - (has_kce ? 0 : 1),
						 query_expressions, lengthof(query_expressions));
	if (!has_kce && api_jreq_member(request, "KeyConditions") == NULL)
		st_error(ST_ERR_VALIDATION,
				 "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.");
	q.limit = request_limit(request);
	t = api_table(request);
	ix = request_index(request, t);
	consistent = api_jreq_member_bool(request, "ConsistentRead", "ConsistentRead", false);
	mode = api_capacity_mode(request);
	memset(&pg, 0, sizeof(pg));
	q.table = t;
	q.index = ix;
	q.forward = api_jreq_member_bool(request, "ScanIndexForward", "ScanIndexForward", true);
	check_consistent_read(request, ix);

	ops_expr_init(&req, api_jreq_member(request, "ExpressionAttributeNames"),
					  api_jreq_member(request, "ExpressionAttributeValues"), true);
	/* DynamoDB checks a QueryFilter before KeyConditions */
	ops_expr_add_legacy_filter(&req, query_filter, true,
							   api_conditional_or(request, query_filter != NULL), &q);
	request_key_condition(request, &req, &q, &kc);
	ops_expr_add_filter(&req, api_jreq_member_text(request, "FilterExpression", "FilterExpression"), &q);
	ops_expr_add_projection(&req, api_jreq_member_text(request, "ProjectionExpression", "ProjectionExpression"));
	ops_expr_add_attributes_to_get(&req, api_jreq_member(request, "AttributesToGet"));
	ops_expr_finish(&req);
	pg.select = request_select(request, ix, req.projection != NULL, projection_param(request), true);
	check_projection_on_index(&req, t, ix);
	ops_expr_check_filter_projected(&req, t, ix);
	ops_expr_check_key_paths(&req, t);

	if (!q.multi)
		q.pk = kc.pk_value;
	if (!q.multi && kc.has_sk)
	{
		q.sort_op = sort_op(kc.sk_op);
		q.sort1 = kc.sk_value1;
		q.sort2 = kc.sk_value2;
	}
	check_start_names(request, t, ix);
	q.start = start_position(request, t, ix);
	if (q.start && q.multi)
		ops_query_check_multi_start(&q);
	else if (q.start)
	{
		check_start_in_partition(request, &q);
		check_start_in_range(request, &q);
	}

	pg.req = &req;
	pg.table = t;
	pg.index = ix;
	pg.fetch = page_fetches(&req, t, ix, pg.select);
	pg.limit = q.limit;
	page_begin(&pg, &out);
	ops_query(&q, page_row, &pg);
	return page_end(&pg, mode != ST_CAPACITY_NONE ? ops_capacity_new(mode) : NULL, consistent);
}

/* ---------- Scan ---------- */

static void
request_segments(Jsonb *request, StScanRange *r)
{
	bool		has_seg = api_jreq_member(request, "Segment") != NULL;
	bool		has_total = api_jreq_member(request, "TotalSegments") != NULL;
	int64		seg = api_jreq_member_int(request, "Segment", "Segment", 0);
	int64		total = api_jreq_member_int(request, "TotalSegments", "TotalSegments", 1);

	if (has_total && !has_seg)
		st_error(ST_ERR_VALIDATION,
				 "The Segment parameter is required but was not present in the request when parameter TotalSegments is present");
	if (has_seg && !has_total)
		st_error(ST_ERR_VALIDATION,
				 "The TotalSegments parameter is required but was not present in the request when Segment parameter is present");
	if (total < 1 || total > 1000000)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%lld' at 'totalSegments' failed to satisfy constraint: Member must have value %s",
				 (long long) total, total < 1 ? "greater than or equal to 1" : "less than or equal to 1000000");
	if (seg < 0)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%lld' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0",
				 (long long) seg);
	if (seg >= total)
		st_error(ST_ERR_VALIDATION,
				 "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %lld is not less than TotalSegments: %lld",
				 (long long) seg, (long long) total);
	r->segment = (int) seg;
	r->total_segments = (int) total;
}

Jsonb *
api_scan(Jsonb *request)
{
	static const char *const legacy[] = {"AttributesToGet", "ScanFilter", "ConditionalOperator"};
	static const char *const expressions[] = {"ProjectionExpression", "FilterExpression"};
	StTable    *t;
	StIndex    *ix;
	bool		consistent;
	StCapacityMode mode;
	Jsonb	   *scan_filter = api_jreq_member(request, "ScanFilter");
	StExprRequest req;
	StScanRange r;
	QueryPage		pg;
	ApiOut		out;

	api_check_legacy_mix(request, legacy, lengthof(legacy), expressions, lengthof(expressions));
	memset(&r, 0, sizeof(r));
	memset(&pg, 0, sizeof(pg));
	/* the request's own checks before the table lookup, as DynamoDB orders them */
	r.limit = request_limit(request);
	request_segments(request, &r);
	t = api_table(request);
	ix = request_index(request, t);
	consistent = api_jreq_member_bool(request, "ConsistentRead", "ConsistentRead", false);
	mode = api_capacity_mode(request);
	check_consistent_read(request, ix);

	ops_expr_init(&req, api_jreq_member(request, "ExpressionAttributeNames"),
					  api_jreq_member(request, "ExpressionAttributeValues"), true);
	ops_expr_add_filter(&req, api_jreq_member_text(request, "FilterExpression", "FilterExpression"), NULL);
	ops_expr_add_legacy_filter(&req, scan_filter, false,
							   api_conditional_or(request, scan_filter != NULL), NULL);
	ops_expr_add_projection(&req, api_jreq_member_text(request, "ProjectionExpression", "ProjectionExpression"));
	ops_expr_add_attributes_to_get(&req, api_jreq_member(request, "AttributesToGet"));
	ops_expr_finish(&req);
	pg.select = request_select(request, ix, req.projection != NULL, projection_param(request), false);
	check_projection_on_index(&req, t, ix);
	ops_expr_check_key_paths(&req, t);
	r.start = start_position(request, t, ix);
	check_start_in_segment(t, &r);

	pg.req = &req;
	pg.table = t;
	pg.index = ix;
	pg.fetch = page_fetches(&req, t, ix, pg.select);
	pg.limit = r.limit;
	page_begin(&pg, &out);
	ops_scan_range(t, ix, &r, page_row, &pg);
	return page_end(&pg, mode != ST_CAPACITY_NONE ? ops_capacity_new(mode) : NULL, consistent);
}
