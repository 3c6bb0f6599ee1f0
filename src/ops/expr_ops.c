/*-------------------------------------------------------------------------
 *
 * expr_ops.c
 *		The expressions of one request: parse (cached), bind, apply.
 *
 * Parsed expressions are cached per backend, keyed by kind and text: the
 * AST never depends on a request's ExpressionAttributeNames or Values (see
 * expr.h), so a repeated call binds the cached tree to its own maps and
 * does not parse again.  The cache lives in one memory context that is
 * reset after EXPR_CACHE_MAX parses, which bounds its memory however many
 * distinct expressions a session sends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "expr/expr.h"
#include "item/av_jsonb.h"
#include "expr_ops.h"

#define EXPR_CACHE_MAX 1024

typedef struct ExprCacheKey
{
	uint32		hash;
	int			kind;
} ExprCacheKey;

typedef struct ExprCacheEntry
{
	ExprCacheKey key;
	char	   *text;
	int			len;
	StExpr	   *expr;
} ExprCacheEntry;

static HTAB *expr_cache = NULL;
static MemoryContext expr_cache_cxt = NULL;
static int	expr_cache_parses = 0;
static int64 expr_parses_total = 0;	/* parses by this backend, for tests */

static void
expr_cache_reset(void)
{
	HASHCTL		ctl;

	/*
	 * Trees handed out earlier may still belong to a request in flight (an
	 * update parsed just before its condition, the actions of a
	 * transaction): the old cache's memory goes with the caller's current
	 * context rather than at once.
	 */
	if (expr_cache_cxt)
		MemoryContextSetParent(expr_cache_cxt, CurrentMemoryContext);
	expr_cache_cxt = AllocSetContextCreate(CacheMemoryContext, "stdesign expression cache",
										   ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(ExprCacheKey);
	ctl.entrysize = sizeof(ExprCacheEntry);
	ctl.hcxt = expr_cache_cxt;
	expr_cache = hash_create("stdesign expressions", 256, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	expr_cache_parses = 0;
}

/* The parsed tree of (kind, text), from the cache or parsed now; raises on error. */
static StExpr *
expr_lookup(ExprKind kind, const char *text)
{
	int			len = strlen(text);
	ExprCacheKey key;
	ExprCacheEntry *entry;
	bool		found;
	MemoryContext old;
	StErr		err;
	StExpr	   *expr;

	if (expr_cache == NULL || expr_cache_parses >= EXPR_CACHE_MAX)
		expr_cache_reset();
	memset(&key, 0, sizeof(key));
	key.hash = hash_bytes((const unsigned char *) text, len);
	key.kind = (int) kind;
	entry = hash_search(expr_cache, &key, HASH_FIND, &found);
	if (found && entry->len == len && memcmp(entry->text, text, len) == 0)
		return entry->expr;

	/* parse inside the cache's context: the tree is owned by the cache */
	expr_cache_parses++;
	expr_parses_total++;
	old = MemoryContextSwitchTo(expr_cache_cxt);
	expr = expr_parse(kind, text, len, &err);
	MemoryContextSwitchTo(old);
	if (expr == NULL)
		st_raise(&err);

	entry = hash_search(expr_cache, &key, HASH_ENTER, &found);
	entry->text = MemoryContextStrdup(expr_cache_cxt, text);
	entry->len = len;
	entry->expr = expr;
	return expr;
}

void
ops_expr_init(StExprRequest *req, Jsonb *names, Jsonb *values, bool typed)
{
	ExprParams	p;
	StErr		err;

	memset(req, 0, sizeof(*req));
	if (names)
		req->names = av_names_from_jsonb(names);
	if (values)
		req->values = av_values_from_jsonb(values, typed);
	req->values_given = req->values != NULL;
	if (req->names && req->names->n == 0)
		st_error(ST_ERR_VALIDATION, "ExpressionAttributeNames must not be empty");
	if (req->values && req->values->n == 0)
		st_error(ST_ERR_VALIDATION, "ExpressionAttributeValues must not be empty");
	req->names_used = palloc0(sizeof(bool) * Max(1, req->names ? req->names->n : 0));
	req->values_used = palloc0(sizeof(bool) * Max(1, req->values ? req->values->n : 0));
	p = *ops_expr_params(req);
	if (!expr_check_params(&p, &err))
		st_raise(&err);
}

void
ops_expr_init_maps(StExprRequest *req, Av *names, Av *values)
{
	ExprParams	p;
	StErr		err;

	memset(req, 0, sizeof(*req));
	req->names = names;
	req->values = values;
	req->values_given = values != NULL;
	req->names_used = palloc0(sizeof(bool) * Max(1, names ? names->n : 0));
	req->values_used = palloc0(sizeof(bool) * Max(1, values ? values->n : 0));
	p = *ops_expr_params(req);
	if (!expr_check_params(&p, &err))
		st_raise(&err);
}

const ExprParams *
ops_expr_params(StExprRequest *req)
{
	req->params.names = req->names;
	req->params.values = req->values;
	req->params.names_used = req->names_used;
	req->params.values_used = req->values_used;
	return &req->params;
}

/* Parse (through the cache) and bind one expression of the request. */
static StExpr *
add_expression(StExprRequest *req, ExprKind kind, const char *text)
{
	StExpr	   *e = expr_lookup(kind, text);
	StErr		err;

	ops_expr_params(req);
	if (!expr_bind(e, &req->params, &err))
		st_raise(&err);
	req->nexpressions++;
	return e;
}

void
ops_expr_add_condition(StExprRequest *req, const char *text, const char *param)
{
	req->offered |= OPS_EXPR_OFFERS_CONDITION;
	if (text)
		req->condition = add_expression(req, EXPR_CONDITION, text);
}

/* The attribute name a path starts with, placeholders resolved. */
const char *
ops_expr_path_top_name(const ExprPath *path, const Av *names, int *len)
{
	const ExprPathElem *e = &path->elems[0];

	if (e->kind == EXPR_PE_PLACEHOLDER)
	{
		Av		   *v = av_map_get(names, e->name, e->len);

		if (v == NULL)
			return NULL;
		*len = v->len;
		return v->str;
	}
	*len = e->len;
	return e->name;
}

/*
 * A Query's FilterExpression (or QueryFilter: `label` words the message)
 * may not use the key attributes of the key space it queries (DynamoDB:
 * "Filter Expression can only contain non-primary key attributes").
 */
static void
check_filter_keys(const ExprNode *n, const Av *names, const StQuerySpec *q, const char *label)
{
	const StKeyDef *keys[ST_MAX_INDEX_KEYS];
	int			nkeys = 0;

	if (n == NULL)
		return;
	check_stack_depth();
	/* a multi-attribute GSI's key: every one of its attributes */
	if (q->index && q->index->multi)
		for (int k = 0; k < q->index->npk + q->index->nsk; k++)
			keys[nkeys++] = &q->index->keys[k];
	else
	{
		keys[nkeys++] = ops_query_pk(q);
		keys[nkeys++] = ops_query_sk(q);
	}
	if (n->kind == EXPR_N_PATH && n->path && n->path->n > 0)
	{
		int			len;
		const char *name = ops_expr_path_top_name(n->path, names, &len);

		for (int k = 0; k < nkeys && name; k++)
		{
			if (keys[k]->name && (int) strlen(keys[k]->name) == len &&
				memcmp(keys[k]->name, name, len) == 0)
				st_error(ST_ERR_VALIDATION,
						 "%s can only contain non-primary key attributes: Primary key attribute: %s",
						 label, keys[k]->name);
		}
	}
	for (int i = 0; i < n->nargs; i++)
		check_filter_keys(n->args[i], names, q, label);
}

void
ops_expr_add_filter(StExprRequest *req, const char *text, const StQuerySpec *q)
{
	StExpr	   *e;

	/* a Query (the one to pass its key space) takes a KeyConditionExpression too */
	req->offered |= OPS_EXPR_OFFERS_FILTER | (q ? OPS_EXPR_OFFERS_KEY_CONDITION : 0);
	if (text == NULL)
		return;
	e = add_expression(req, EXPR_FILTER, text);
	if (q)
		check_filter_keys(e->cond, req->names, q, "Filter Expression");
	req->filter = e;
}

void
ops_expr_add_projection(StExprRequest *req, const char *text)
{
	if (text)
		req->projection = add_expression(req, EXPR_PROJECTION, text);
}

void
ops_expr_add_update(StExprRequest *req, const char *text)
{
	req->offered |= OPS_EXPR_OFFERS_UPDATE;
	if (text)
		req->update = add_expression(req, EXPR_UPDATE, text);
}

void
ops_expr_key_condition(StExprRequest *req, const char *text,
						   const StKeyDef *pk, const StKeyDef *sk, ExprKeyCondition *out)
{
	StExpr	   *kc = add_expression(req, EXPR_KEY_CONDITION, text);
	StErr		err;

	if (!expr_key_condition(kc, ops_expr_params(req), pk->name, strlen(pk->name),
							sk->name, sk->name ? strlen(sk->name) : 0, out, &err))
		st_raise(&err);
}

const ExprKeyConditionMulti *
ops_expr_key_condition_multi(StExprRequest *req, const char *text, const StIndex *ix)
{
	StExpr	   *kc = add_expression(req, EXPR_KEY_CONDITION, text);
	ExprKeyConditionMulti *out = palloc0(sizeof(ExprKeyConditionMulti));
	const char *names[ST_MAX_INDEX_KEYS];
	StErr		err;

	for (int i = 0; i < ix->npk + ix->nsk; i++)
		names[i] = ix->keys[i].name;
	if (!expr_key_condition_multi(kc, ops_expr_params(req), ix->npk + ix->nsk, names, out, &err))
		st_raise(&err);
	return out;
}

/* ---------- legacy parameters ---------- */

/*
 * A legacy parameter arrives as DynamoDB's JSON: maps and lists in plain
 * form around typed AttributeValues (AttributeValueList, Value).  It is
 * converted into the Av form expr_legacy.c takes (see expr.h), and the
 * trees built from it are bound to the request like parsed expressions.
 */

static bool
jbv_is_object(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data);
}

static bool
jbv_is_array(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data) &&
		!JsonContainerIsScalar(v->val.binary.data);
}

/* One typed AttributeValue, validated and normalised like any other. */
static Av  *
legacy_typed(JsonbValue *v)
{
	Jsonb	   *jb = JsonbValueToJsonb(v);

	return av_from_jsonb_value(&jb->root, true);
}

/* An AttributeValueList: a JSON array of typed AttributeValues. */
static Av  *
legacy_value_list(JsonbValue *v)
{
	Av		   *list = av_new(AV_L);
	JsonbIterator *it;
	JsonbValue	elem;
	JsonbIteratorToken tok;

	if (!jbv_is_array(v))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for AttributeValueList: expected a list");
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &elem, true)) != WJB_DONE)
		if (tok == WJB_ELEM)
			av_append(list, legacy_typed(&elem));
	return list;
}

/* A member of a condition or an update, in the form expr_legacy.c takes. */
static Av  *
legacy_field(const char *key, int len, JsonbValue *v)
{
#define KEY_IS(k) (len == (int) strlen(k) && memcmp(key, k, len) == 0)
	if (KEY_IS("AttributeValueList"))
		return legacy_value_list(v);
	if (KEY_IS("Value"))
		return legacy_typed(v);
	if (KEY_IS("ComparisonOperator") || KEY_IS("Action"))
	{
		if (v->type != jbvString)
			st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %.*s: expected a string", len, key);
		return av_new_str(AV_S, v->val.string.val, v->val.string.len);
	}
	if (KEY_IS("Exists"))
	{
		if (v->type != jbvBool)
			st_error(ST_ERR_SERIALIZATION, "Unexpected value type for Exists: expected a boolean");
		return av_new_bool(v->val.boolean);
	}
	return NULL;				/* unknown fields are ignored, as DynamoDB does */
#undef KEY_IS
}

/* One attribute's specification: a JSON object of the fields above. */
static Av  *
legacy_spec(JsonbValue *v, const char *param)
{
	Av		   *spec = av_new(AV_M);
	JsonbIterator *it;
	JsonbValue	key = {0};
	JsonbValue	val;
	JsonbIteratorToken tok;

	if (!jbv_is_object(v))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected an object", param);
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &val, true)) != WJB_DONE)
	{
		Av		   *field;

		if (tok == WJB_KEY)
			key = val;
		if (tok != WJB_VALUE || val.type == jbvNull)
			continue;
		field = legacy_field(key.val.string.val, key.val.string.len, &val);
		if (field)
			av_map_put_nocheck(spec, key.val.string.val, key.val.string.len, field);
	}
	return spec;
}

/* Expected, QueryFilter, ScanFilter, KeyConditions, AttributeUpdates: name -> specification. */
static Av  *
legacy_map(Jsonb *jb, const char *param)
{
	Av		   *map = av_new(AV_M);
	JsonbIterator *it;
	JsonbValue	key = {0};
	JsonbValue	val;
	JsonbIteratorToken tok;

	if (!JB_ROOT_IS_OBJECT(jb))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected an object", param);
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &val, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			key = val;
		else if (tok == WJB_VALUE && val.type != jbvNull)
			av_map_put_nocheck(map, key.val.string.val, key.val.string.len,
							   legacy_spec(&val, param));
	}
	return map;
}

/* The map legacy values go to: the request's ExpressionAttributeValues, or a new one. */
static Av  *
legacy_values(StExprRequest *req)
{
	if (req->values == NULL)
		req->values = av_new(AV_M);
	return req->values;
}

/*
 * Bind a tree built from a legacy parameter (NULL: raise the builder's
 * error).  The values it added get "used" flags of their own first.  It
 * does not count as an expression: ExpressionAttributeNames and Values
 * still need a real one.
 */
static StExpr *
bind_legacy(StExprRequest *req, StExpr *e, int nvalues_before, StErr *err)
{
	int			n = req->values->n;

	if (e == NULL)
		st_raise(err);
	if (n > nvalues_before)
	{
		req->values_used = repalloc(req->values_used, sizeof(bool) * n);
		memset(req->values_used + nvalues_before, 0, sizeof(bool) * (n - nvalues_before));
	}
	ops_expr_params(req);
	if (!expr_bind(e, &req->params, err))
		st_raise(err);
	return e;
}

void
ops_expr_add_legacy_condition(StExprRequest *req, Jsonb *expected, bool or)
{
	Av		   *conditions;
	int			before;
	StErr		err;
	StExpr	   *e;

	if (expected == NULL)
		return;
	conditions = legacy_map(expected, "Expected");
	if (conditions->n == 0)
		return;					/* an empty Expected expects nothing */
	before = legacy_values(req)->n;
	e = expr_legacy_condition(EXPR_LEGACY_EXPECTED, conditions, or, req->values, &err);
	req->condition = bind_legacy(req, e, before, &err);
}

void
ops_expr_add_legacy_filter(StExprRequest *req, Jsonb *filter, bool is_query, bool or,
						   const StQuerySpec *q)
{
	Av		   *conditions;
	int			before;
	StErr		err;
	StExpr	   *e;

	if (filter == NULL)
		return;
	conditions = legacy_map(filter, is_query ? "QueryFilter" : "ScanFilter");
	if (conditions->n == 0)
		return;
	before = legacy_values(req)->n;
	e = expr_legacy_condition(is_query ? EXPR_LEGACY_QUERY_FILTER : EXPR_LEGACY_SCAN_FILTER,
							  conditions, or, req->values, &err);
	req->filter = bind_legacy(req, e, before, &err);
	if (q)
		check_filter_keys(req->filter->cond, req->names, q, "QueryFilter");
}

void
ops_expr_add_legacy_update(StExprRequest *req, Jsonb *attribute_updates)
{
	Av		   *updates;
	int			before;
	StErr		err;
	StExpr	   *e;

	if (attribute_updates == NULL)
		return;
	updates = legacy_map(attribute_updates, "AttributeUpdates");
	if (updates->n == 0)
		return;					/* nothing to change: the item is still written */
	before = legacy_values(req)->n;
	e = expr_legacy_update(updates, req->values, &err);
	req->update = bind_legacy(req, e, before, &err);
	req->legacy_update = true;
}

void
ops_expr_legacy_key_condition(StExprRequest *req, Jsonb *key_conditions,
								  const StKeyDef *pk, const StKeyDef *sk,
								  ExprKeyCondition *out)
{
	Av		   *conditions = legacy_map(key_conditions, "KeyConditions");
	int			before = legacy_values(req)->n;
	StErr		err;
	StExpr	   *e;

	e = expr_legacy_key_conditions(conditions, pk->name, strlen(pk->name),
								   sk->name, sk->name ? strlen(sk->name) : 0,
								   req->values, &err);
	e = bind_legacy(req, e, before, &err);
	if (!expr_key_condition(e, ops_expr_params(req), pk->name, strlen(pk->name),
							sk->name, sk->name ? strlen(sk->name) : 0, out, &err))
		st_raise(&err);
}

const ExprKeyConditionMulti *
ops_expr_legacy_key_condition_multi(StExprRequest *req, Jsonb *key_conditions, const StIndex *ix)
{
	Av		   *conditions = legacy_map(key_conditions, "KeyConditions");
	int			before = legacy_values(req)->n;
	ExprKeyConditionMulti *out = palloc0(sizeof(ExprKeyConditionMulti));
	const char *names[ST_MAX_INDEX_KEYS];
	StErr		err;
	StExpr	   *e;

	for (int i = 0; i < ix->npk + ix->nsk; i++)
		names[i] = ix->keys[i].name;
	e = expr_legacy_key_conditions_multi(conditions, ix->npk + ix->nsk, names, req->values, &err);
	e = bind_legacy(req, e, before, &err);
	if (!expr_key_condition_multi(e, ops_expr_params(req), ix->npk + ix->nsk, names, out, &err))
		st_raise(&err);
	return out;
}

void
ops_expr_add_attributes_to_get(StExprRequest *req, Jsonb *attributes_to_get)
{
	static const char *const legacy[] = {"AttributesToGet"};
	static const char *const expressions[] = {"ProjectionExpression"};
	StErr		err;
	StExpr	   *e;

	if (attributes_to_get == NULL)
		return;
	if (req->projection != NULL)
	{
		expr_legacy_mix_error(legacy, 1, expressions, 1, &err);
		st_raise(&err);
	}
	e = expr_legacy_projection(av_from_jsonb_value(&attributes_to_get->root, false), &err);
	if (e == NULL)
		st_raise(&err);
	ops_expr_params(req);
	if (!expr_bind(e, &req->params, &err))
		st_raise(&err);
	req->projection = e;
}

/*
 * ExpressionAttributeValues in a request without any expression: DynamoDB
 * names the expressions of the operation that could have used them, e.g.
 * "ExpressionAttributeValues can only be specified when using expressions:
 * UpdateExpression and ConditionExpression are null" (UpdateItem),
 * "...: FilterExpression and KeyConditionExpression are null" (Query),
 * "...: ConditionExpression is null" (PutItem, DeleteItem).
 */
static void
values_without_expressions(uint8 offered)
{
	static const struct
	{
		uint8		bit;
		const char *name;
	}			order[] = {
		{OPS_EXPR_OFFERS_UPDATE, "UpdateExpression"},
		{OPS_EXPR_OFFERS_FILTER, "FilterExpression"},
		{OPS_EXPR_OFFERS_KEY_CONDITION, "KeyConditionExpression"},
		{OPS_EXPR_OFFERS_CONDITION, "ConditionExpression"},
	};
	StringInfoData s;
	int			n = 0;

	initStringInfo(&s);
	for (int i = 0; i < (int) lengthof(order); i++)
	{
		if (!(offered & order[i].bit))
			continue;
		appendStringInfo(&s, "%s%s", n > 0 ? " and " : ": ", order[i].name);
		n++;
	}
	if (n > 0)
		appendStringInfoString(&s, n > 1 ? " are null" : " is null");
	st_error(ST_ERR_VALIDATION,
			 "ExpressionAttributeValues can only be specified when using expressions%s", s.data);
}

void
ops_expr_finish(StExprRequest *req)
{
	StErr		err;

	if (req->names && req->nexpressions == 0)
		st_error(ST_ERR_VALIDATION,
				 "ExpressionAttributeNames can only be specified when using expressions");
	if (req->values_given && req->nexpressions == 0)
		values_without_expressions(req->offered);
	ops_expr_params(req);
	if (!expr_check_unused(&req->params, &err))
		st_raise(&err);
}

/* ---------- document paths into key attributes ---------- */

typedef struct KeyPathHeads
{
	const Av   *names;
	int			n;
	int			cap;
	const char **heads;			/* top names of paths with more than one element */
	int		   *lens;
} KeyPathHeads;

static void
note_path(KeyPathHeads *h, const ExprPath *path)
{
	int			len;
	const char *name;

	if (path == NULL || path->n < 2)
		return;
	name = ops_expr_path_top_name(path, h->names, &len);
	if (name == NULL)
		return;
	if (h->n == h->cap)
	{
		h->cap = Max(8, h->cap * 2);
		h->heads = h->heads ? repalloc(h->heads, sizeof(char *) * h->cap) : palloc(sizeof(char *) * h->cap);
		h->lens = h->lens ? repalloc(h->lens, sizeof(int) * h->cap) : palloc(sizeof(int) * h->cap);
	}
	h->heads[h->n] = name;
	h->lens[h->n] = len;
	h->n++;
}

static void
note_node(KeyPathHeads *h, const ExprNode *n)
{
	if (n == NULL)
		return;
	check_stack_depth();
	if (n->kind == EXPR_N_PATH)
		note_path(h, n->path);
	for (int i = 0; i < n->nargs; i++)
		note_node(h, n->args[i]);
}

static bool
has_head_len(const KeyPathHeads *h, const char *key, int len)
{
	for (int i = 0; i < h->n; i++)
		if (h->lens[i] == len && memcmp(h->heads[i], key, len) == 0)
			return true;
	return false;
}

static bool
has_head(const KeyPathHeads *h, const char *key)
{
	int			len = key ? strlen(key) : 0;

	for (int i = 0; key && i < h->n; i++)
		if (h->lens[i] == len && memcmp(h->heads[i], key, len) == 0)
			return true;
	return false;
}

static void
key_path_error(const char *what, const char *key)
{
	st_error(ST_ERR_VALIDATION,
			 "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: %s: %s",
			 what, key);
}

void
ops_expr_check_key_paths(StExprRequest *req, const StTable *t)
{
	KeyPathHeads h;
	StExpr	   *conds[2] = {req->condition, req->filter};

	memset(&h, 0, sizeof(h));
	h.names = req->names;
	for (int i = 0; i < 2; i++)
		if (conds[i])
			note_node(&h, conds[i]->cond);
	for (int i = 0; req->projection && i < req->projection->npaths; i++)
		note_path(&h, req->projection->paths[i]);
	for (int i = 0; req->update && i < req->update->nitems; i++)
	{
		note_path(&h, req->update->items[i].path);
		note_node(&h, req->update->items[i].value);
	}
	if (h.n == 0)
		return;
	/* the table's keys first, then the global indexes' and the local ones' */
	if (has_head(&h, t->pk.name))
		key_path_error("Key", t->pk.name);
	if (has_head(&h, t->sk.name))
		key_path_error("Key", t->sk.name);
	for (int local = 0; local < 2; local++)
	{
		for (int i = 0; i < t->nindexes; i++)
		{
			const StIndex *ix = &t->indexes[i];

			if (ix->is_local != (local == 1))
				continue;
			/* an LSI's partition key is the table's */
			for (int k = ix->is_local ? ix->npk : 0; k < ix->npk + ix->nsk; k++)
				if (has_head(&h, ix->keys[k].name))
					key_path_error("IndexKey", ix->keys[k].name);
		}
	}
}

/* Does index ix hold attribute name (len bytes): a key of it or of its table, or projected? */
bool
ops_index_holds(const StTable *t, const StIndex *ix, const char *name, int len)
{
	const char *keys[2] = {t->pk.name, t->sk.name};

	if (ix->projection == ST_PROJECT_ALL)
		return true;
	for (int k = 0; k < 2; k++)
		if (keys[k] && (int) strlen(keys[k]) == len && memcmp(keys[k], name, len) == 0)
			return true;
	for (int k = 0; k < ix->npk + ix->nsk; k++)
		if ((int) strlen(ix->keys[k].name) == len && memcmp(ix->keys[k].name, name, len) == 0)
			return true;
	for (int i = 0; ix->projection == ST_PROJECT_INCLUDE && i < ix->n_non_key; i++)
		if ((int) strlen(ix->non_key_attributes[i]) == len &&
			memcmp(ix->non_key_attributes[i], name, len) == 0)
			return true;
	return false;
}

/* What index ix holds of an item (its entry), sharing the item's values. */
Av *
ops_index_entry(const StTable *t, const StIndex *ix, const Av *item)
{
	Av		   *entry = av_new(AV_M);

	for (int i = 0; i < item->n; i++)
		if (ops_index_holds(t, ix, item->members[i].name, item->members[i].name_len))
			av_map_put_nocheck(entry, item->members[i].name, item->members[i].name_len,
							   item->members[i].value);
	return entry;
}

static void
note_all_paths(KeyPathHeads *h, const ExprNode *n)
{
	if (n == NULL)
		return;
	check_stack_depth();
	if (n->kind == EXPR_N_PATH && n->path && n->path->n > 0)
	{
		int			len;
		const char *name = ops_expr_path_top_name(n->path, h->names, &len);

		if (name != NULL && !has_head_len(h, name, len))
		{
			if (h->n == h->cap)
			{
				h->cap = Max(8, h->cap * 2);
				h->heads = h->heads ? repalloc(h->heads, sizeof(char *) * h->cap) : palloc(sizeof(char *) * h->cap);
				h->lens = h->lens ? repalloc(h->lens, sizeof(int) * h->cap) : palloc(sizeof(int) * h->cap);
			}
			h->heads[h->n] = name;
			h->lens[h->n] = len;
			h->n++;
		}
	}
	for (int i = 0; i < n->nargs; i++)
		note_all_paths(h, n->args[i]);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

void
ops_expr_check_filter_projected(StExprRequest *req, const StTable *t, const StIndex *ix)
{
	KeyPathHeads h;
	char	  **missing;
	int			nmissing = 0;
	StringInfoData list;

	if (ix == NULL || ix->is_local || ix->projection == ST_PROJECT_ALL || req->filter == NULL)
		return;
	memset(&h, 0, sizeof(h));
	h.names = req->names;
	note_all_paths(&h, req->filter->cond);
	missing = palloc(sizeof(char *) * Max(1, h.n));
	for (int i = 0; i < h.n; i++)
		if (!ops_index_holds(t, ix, h.heads[i], h.lens[i]))
			missing[nmissing++] = pnstrdup(h.heads[i], h.lens[i]);
	if (nmissing == 0)
		return;
	qsort(missing, nmissing, sizeof(char *), cmp_names);
	initStringInfo(&list);
	for (int i = 0; i < nmissing; i++)
		appendStringInfo(&list, "%s%s", i > 0 ? ", " : "", missing[i]);
	st_error(ST_ERR_VALIDATION,
			 "One or more parameter values were invalid: Secondary index %s does not project one or more filter attributes: [%s]",
			 ix->name, list.data);
}

/* StCondition.holds for the request's ConditionExpression. */
static bool
condition_holds(StCondition *cond, const Av *item)
{
	StExprRequest *req = (StExprRequest *) cond->state;
	bool		result;
	StErr		err;

	if (!expr_eval_condition(req->condition, item, ops_expr_params(req), &result, &err))
		st_raise(&err);
	return result;
}

StCondition *
ops_expr_write_condition(StExprRequest *req)
{
	if (req->condition == NULL)
		return NULL;
	req->write_condition.holds = condition_holds;
	req->write_condition.state = req;
	/* return_item_on_failure is the caller's to set */
	return &req->write_condition;
}

bool
ops_expr_filter_passes(StExprRequest *req, const Av *item)
{
	bool		result;
	StErr		err;

	if (req->filter == NULL)
		return true;
	if (!expr_eval_condition(req->filter, item, ops_expr_params(req), &result, &err))
		st_raise(&err);
	return result;
}

Av *
ops_expr_project_item(StExprRequest *req, const Av *item)
{
	if (req->projection == NULL)
		return (Av *) item;
	return expr_project(req->projection, item, ops_expr_params(req));
}

/* StUpdate.apply: the request's UpdateExpression, in place. */
static void
update_apply(StUpdate *upd, Av *item)
{
	StExprRequest *req = (StExprRequest *) upd->state;
	StErr		err;

	memset(&req->update_info, 0, sizeof(req->update_info));
	if (req->legacy_update
		? !expr_legacy_apply_update(req->update, item, ops_expr_params(req), &req->update_info, &err)
		: !expr_apply_update(req->update, item, ops_expr_params(req), &req->update_info, &err))
		st_raise(&err);
}

/* StUpdate.project_updated: the attributes the update touched, from item. */
static Av  *
update_project(StUpdate *upd, const Av *item)
{
	StExprRequest *req = (StExprRequest *) upd->state;
	Av		   *result = expr_project_resolved(req->update_info.paths, req->update_info.npaths, item);

	/* DynamoDB returns no Attributes at all rather than an empty map */
	return (result && result->n > 0) ? result : NULL;
}

StUpdate *
ops_expr_write_update(StExprRequest *req, StTable *t)
{
	const StKeyDef *keys[2] = {&t->pk, &t->sk};

	if (req->update == NULL)
		return NULL;
	for (int k = 0; k < 2; k++)
	{
		if (keys[k]->name &&
			expr_update_touches_attr(req->update, ops_expr_params(req),
									 keys[k]->name, strlen(keys[k]->name)))
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key",
					 keys[k]->name);
	}
	req->write_update.apply = update_apply;
	req->write_update.project_updated = update_project;
	req->write_update.state = req;
	req->write_update.creates_item = expr_update_creates(req->update);
	return &req->write_update;
}

int64
ops_expr_parse_count(void)
{
	return expr_parses_total;
}
