/*-------------------------------------------------------------------------
 *
 * expr_ops.h
 *		The expressions of one request: parsed (through the per-backend
 *		cache), bound to the request's ExpressionAttributeNames and Values,
 *		and applied by the operations.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_EXPR_OPS_H
#define ST_EXPR_OPS_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "expr/expr.h"
#include "item/av.h"
#include "item_ops.h"

typedef struct StExprRequest
{
	Av		   *names;			/* ExpressionAttributeNames, or NULL */
	Av		   *values;			/* ExpressionAttributeValues (plus the values of
								 * legacy parameters), or NULL */
	bool		values_given;	/* the request had ExpressionAttributeValues */
	bool	   *names_used;
	bool	   *values_used;
	ExprParams	params;			/* the above, as the evaluator takes them */
	int			nexpressions;	/* how many expressions the request has */
	uint8		offered;		/* the value-taking expressions its operation
								 * takes (OPS_EXPR_OFFERS_*), for the message
								 * on values without one */
	StExpr	   *condition;		/* parsed expressions (in the cache), or NULL */
	StExpr	   *filter;
	StExpr	   *projection;
	StExpr	   *update;
	StCondition write_condition;	/* the condition, for the operations */
	bool		legacy_update;	/* the update came from AttributeUpdates */
	StUpdate	write_update;	/* the update, for ops_update */
	ExprUpdateInfo update_info; /* what the last application touched */
} StExprRequest;

/* The expressions an operation takes that can use ExpressionAttributeValues. */
#define OPS_EXPR_OFFERS_UPDATE			0x01
#define OPS_EXPR_OFFERS_FILTER			0x02
#define OPS_EXPR_OFFERS_KEY_CONDITION	0x04
#define OPS_EXPR_OFFERS_CONDITION		0x08

/*
 * After the table is known and the request's expressions added: a document
 * path into a key attribute of the table or of one of its indexes ("pk.x",
 * "gsk[0]") in any of them is refused, as DynamoDB does ("Key attributes
 * must be scalars; list random access '[]' and map lookup '.' are not
 * allowed: Key: pk", "...: IndexKey: gsk").
 */
extern void ops_expr_check_key_paths(StExprRequest *req, const StTable *t);

/*
 * A Query of global secondary index ix whose filter names attributes the
 * index does not project (it holds no more than its projection: there is
 * nothing to fetch them from) is refused as DynamoDB does: "One or more
 * parameter values were invalid: Secondary index ix does not project one
 * or more filter attributes: [a, b]" (the names sorted).
 */
extern void ops_expr_check_filter_projected(StExprRequest *req, const StTable *t, const StIndex *ix);

/*
 * Does index ix hold attribute name (len bytes): a key of the index or its
 * table, or projected (ALL, INCLUDE)?  And an item's entry in the index,
 * sharing the item's values.
 */
extern bool ops_index_holds(const StTable *t, const StIndex *ix, const char *name, int len);
extern Av  *ops_index_entry(const StTable *t, const StIndex *ix, const Av *item);

/* Start a request: names (plain JSON object of strings) and values (typed or plain). */
extern void ops_expr_init(StExprRequest *req, Jsonb *names, Jsonb *values, bool typed);

/*
 * Start a request from maps already built: names (AV_M of AV_S) and values
 * (AV_M of normalised values), either NULL.  PartiQL's plans come so.
 */
extern void ops_expr_init_maps(StExprRequest *req, Av *names, Av *values);

/* Add each kind of expression (NULL text: none).  `param` names it in errors. */
extern void ops_expr_add_condition(StExprRequest *req, const char *text, const char *param);
extern void ops_expr_add_filter(StExprRequest *req, const char *text, const StQuerySpec *q);
extern void ops_expr_add_projection(StExprRequest *req, const char *text);
extern void ops_expr_add_update(StExprRequest *req, const char *text);

/* A KeyConditionExpression, resolved against a key schema (pk, sk or NULL). */
/* The terms of a KeyConditionExpression on a multi-attribute GSI's key (see expr.h). */
extern const ExprKeyConditionMulti *ops_expr_key_condition_multi(StExprRequest *req, const char *text,
																   const StIndex *ix);
extern void ops_expr_key_condition(StExprRequest *req, const char *text,
									   const StKeyDef *pk, const StKeyDef *sk,
									   ExprKeyCondition *out);

/*
 * The legacy parameters (NULL: absent), translated into the same trees as
 * the expressions (expr_legacy.c) and bound like them: they fill the same
 * condition, filter, update and projection slots, so everything downstream
 * is shared.  `or` is ConditionalOperator OR.  A legacy filter on a Query
 * (q not NULL) may not use the key attributes it queries.
 */
extern void ops_expr_add_legacy_condition(StExprRequest *req, Jsonb *expected, bool or);
extern void ops_expr_add_legacy_filter(StExprRequest *req, Jsonb *filter, bool is_query, bool or,
									   const StQuerySpec *q);
extern void ops_expr_add_legacy_update(StExprRequest *req, Jsonb *attribute_updates);
extern void ops_expr_legacy_key_condition(StExprRequest *req, Jsonb *key_conditions,
											  const StKeyDef *pk, const StKeyDef *sk,
											  ExprKeyCondition *out);
extern const ExprKeyConditionMulti *ops_expr_legacy_key_condition_multi(StExprRequest *req,
																		  Jsonb *key_conditions,
																		  const StIndex *ix);

/*
 * AttributesToGet (GetItem, Query, Scan, BatchGetItem): the projection of
 * the request.  Call it after ops_expr_add_projection(): with a
 * ProjectionExpression already there it raises DynamoDB's error for mixing
 * the two.
 */
extern void ops_expr_add_attributes_to_get(StExprRequest *req, Jsonb *attributes_to_get);

/* After all expressions: names and values given but not used are errors. */
extern void ops_expr_finish(StExprRequest *req);

/*
 * The attribute name a document path starts with, its #name resolved through
 * names; NULL when the placeholder is not defined.
 */
extern const char *ops_expr_path_top_name(const ExprPath *path, const Av *names, int *len);

/* How many expressions this backend parsed (cache misses). */
extern int64 ops_expr_parse_count(void);

/* The request's placeholders, as the evaluator takes them. */
extern const ExprParams *ops_expr_params(StExprRequest *req);

/* The condition for ops_put/ops_delete/..., or NULL when there is none. */
extern StCondition *ops_expr_write_condition(StExprRequest *req);

/*
 * The update for ops_update, or NULL when there is none.  Raises when it
 * would change one of t's key attributes.
 */
extern StUpdate *ops_expr_write_update(StExprRequest *req, StTable *t);

/* Does item pass the filter?  Project an item. */
extern bool ops_expr_filter_passes(StExprRequest *req, const Av *item);
extern Av  *ops_expr_project_item(StExprRequest *req, const Av *item);

#endif							/* ST_EXPR_OPS_H */
