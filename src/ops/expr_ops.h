/*-------------------------------------------------------------------------
 *
 * expr_ops.h
 *		The expressions of one request: parsed (through the per-backend
 *		cache), bound to the request's ExpressionAttributeNames and Values,
 *		and applied by the operations.
 *
 *-------------------------------------------------------------------------
 */
#ifndef EXPR_OPS_H
#define EXPR_OPS_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "item/av.h"
#include "item_ops.h"

typedef struct StExprRequest
{
	Av		   *names;			/* ExpressionAttributeNames, or NULL */
	Av		   *values;			/* ExpressionAttributeValues, or NULL */
	bool	   *names_used;
	bool	   *values_used;
	int			nexpressions;	/* how many expressions the request has */
	void	   *condition;		/* parsed expressions (Expr *), or NULL */
	void	   *filter;
	void	   *projection;
	void	   *update;
	StCondition cond;			/* the condition, for the operations */
} StExprRequest;

/* Start a request: names (plain JSON object of strings) and values (typed or plain). */
extern void expr_request_init(StExprRequest *req, Jsonb *names, Jsonb *values, bool typed);

/* Add each kind of expression (NULL text: none).  `param` names it in errors. */
extern void expr_request_condition(StExprRequest *req, const char *text, const char *param);
extern void expr_request_filter_expression(StExprRequest *req, const char *text, const StQuerySpec *q);
extern void expr_request_projection(StExprRequest *req, const char *text);
extern void expr_request_update(StExprRequest *req, const char *text);

/* After all expressions: names and values given but not used are errors. */
extern void expr_request_finish(StExprRequest *req);

/* The condition for ops_put/ops_delete/..., or NULL when there is none. */
extern StCondition *expr_request_cond(StExprRequest *req);

/* Does item pass the filter?  Project an item. */
extern bool expr_request_filter(StExprRequest *req, const Av *item);
extern Av  *expr_request_project(StExprRequest *req, const Av *item);

#endif							/* EXPR_OPS_H */
