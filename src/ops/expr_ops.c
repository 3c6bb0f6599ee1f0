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
expr_request_init(StExprRequest *req, Jsonb *names, Jsonb *values, bool typed)
{
	ExprParams	p;
	StErr		err;

	memset(req, 0, sizeof(*req));
	if (names)
		req->names = av_names_from_jsonb(names);
	if (values)
		req->values = av_map_from_jsonb(values, typed, "ExpressionAttributeValues");
	if (req->names && req->names->n == 0)
		st_error(ST_ERR_VALIDATION, "ExpressionAttributeNames must not be empty");
	if (req->values && req->values->n == 0)
		st_error(ST_ERR_VALIDATION, "ExpressionAttributeValues must not be empty");
	req->names_used = palloc0(sizeof(bool) * Max(1, req->names ? req->names->n : 0));
	req->values_used = palloc0(sizeof(bool) * Max(1, req->values ? req->values->n : 0));
	p = *expr_request_params(req);
	if (!expr_check_params(&p, &err))
		st_raise(&err);
}

const ExprParams *
expr_request_params(StExprRequest *req)
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

	expr_request_params(req);
	if (!expr_bind(e, &req->params, &err))
		st_raise(&err);
	req->nexpressions++;
	return e;
}

void
expr_request_condition(StExprRequest *req, const char *text, const char *param)
{
	if (text)
		req->condition = add_expression(req, EXPR_CONDITION, text);
}

/* The attribute name a path starts with, placeholders resolved. */
static const char *
path_top_name(const ExprPath *path, const Av *names, int *len)
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
 * A Query's FilterExpression may not use the key attributes of the key
 * space it queries (DynamoDB: "Filter Expression can only contain
 * non-primary key attributes").
 */
static void
check_filter_keys(const ExprNode *n, const Av *names, const StQuerySpec *q)
{
	const StKeyDef *keys[2] = {ops_query_pk(q), ops_query_sk(q)};

	if (n == NULL)
		return;
	check_stack_depth();
	if (n->kind == EXPR_N_PATH && n->path && n->path->n > 0)
	{
		int			len;
		const char *name = path_top_name(n->path, names, &len);

		for (int k = 0; k < 2 && name; k++)
		{
			if (keys[k]->name && (int) strlen(keys[k]->name) == len &&
				memcmp(keys[k]->name, name, len) == 0)
				st_error(ST_ERR_VALIDATION,
						 "Filter Expression can only contain non-primary key attributes: Primary key attribute: %s",
						 keys[k]->name);
		}
	}
	for (int i = 0; i < n->nargs; i++)
		check_filter_keys(n->args[i], names, q);
}

void
expr_request_filter_expression(StExprRequest *req, const char *text, const StQuerySpec *q)
{
	StExpr	   *e;

	if (text == NULL)
		return;
	e = add_expression(req, EXPR_FILTER, text);
	if (q)
		check_filter_keys(e->cond, req->names, q);
	req->filter = e;
}

void
expr_request_projection(StExprRequest *req, const char *text)
{
	if (text)
		req->projection = add_expression(req, EXPR_PROJECTION, text);
}

void
expr_request_update(StExprRequest *req, const char *text)
{
	if (text)
		req->update = add_expression(req, EXPR_UPDATE, text);
}

void
expr_request_key_condition(StExprRequest *req, const char *text,
						   const StKeyDef *pk, const StKeyDef *sk, ExprKeyCondition *out)
{
	StExpr	   *kc = add_expression(req, EXPR_KEY_CONDITION, text);
	StErr		err;

	if (!expr_key_condition(kc, expr_request_params(req), pk->name, strlen(pk->name),
							sk->name, sk->name ? strlen(sk->name) : 0, out, &err))
		st_raise(&err);
}

void
expr_request_finish(StExprRequest *req)
{
	StErr		err;

	if (req->names && req->nexpressions == 0)
		st_error(ST_ERR_VALIDATION,
				 "ExpressionAttributeNames can only be specified when using expressions");
	if (req->values && req->nexpressions == 0)
		st_error(ST_ERR_VALIDATION,
				 "ExpressionAttributeValues can only be specified when using expressions");
	expr_request_params(req);
	if (!expr_check_unused(&req->params, &err))
		st_raise(&err);
}

/* StCondition.holds for the request's ConditionExpression. */
static bool
condition_holds(StCondition *cond, const Av *item)
{
	StExprRequest *req = (StExprRequest *) cond->state;
	bool		result;
	StErr		err;

	if (!expr_eval_condition(req->condition, item, expr_request_params(req), &result, &err))
		st_raise(&err);
	return result;
}

StCondition *
expr_request_cond(StExprRequest *req)
{
	if (req->condition == NULL)
		return NULL;
	req->cond.holds = condition_holds;
	req->cond.state = req;
	/* return_item_on_failure is the caller's to set */
	return &req->cond;
}

bool
expr_request_filter(StExprRequest *req, const Av *item)
{
	bool		result;
	StErr		err;

	if (req->filter == NULL)
		return true;
	if (!expr_eval_condition(req->filter, item, expr_request_params(req), &result, &err))
		st_raise(&err);
	return result;
}

Av *
expr_request_project(StExprRequest *req, const Av *item)
{
	if (req->projection == NULL)
		return (Av *) item;
	return expr_project(req->projection, item, expr_request_params(req));
}

/* StUpdate.apply: the request's UpdateExpression, in place. */
static void
update_apply(StUpdate *upd, Av *item)
{
	StExprRequest *req = (StExprRequest *) upd->state;
	StErr		err;

	memset(&req->update_info, 0, sizeof(req->update_info));
	if (!expr_apply_update(req->update, item, expr_request_params(req), &req->update_info, &err))
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
expr_request_updater(StExprRequest *req, StTable *t)
{
	const StKeyDef *keys[2] = {&t->pk, &t->sk};

	if (req->update == NULL)
		return NULL;
	for (int k = 0; k < 2; k++)
	{
		if (keys[k]->name &&
			expr_update_touches_attr(req->update, expr_request_params(req),
									 keys[k]->name, strlen(keys[k]->name)))
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key",
					 keys[k]->name);
	}
	req->updater.apply = update_apply;
	req->updater.project_updated = update_project;
	req->updater.state = req;
	return &req->updater;
}
