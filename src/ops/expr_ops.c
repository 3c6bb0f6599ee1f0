/*-------------------------------------------------------------------------
 *
 * expr_ops.c
 *		The expressions of a request (temporary: expressions not wired yet).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "item/av_jsonb.h"
#include "expr_ops.h"

void
expr_request_init(StExprRequest *req, Jsonb *names, Jsonb *values, bool typed)
{
	memset(req, 0, sizeof(*req));
	if (names)
		req->names = av_names_from_jsonb(names);
	if (values)
		req->values = av_map_from_jsonb(values, typed, "ExpressionAttributeValues");
}

static void
not_yet(const char *text)
{
	if (text)
		st_error(ST_ERR_VALIDATION, "expressions are not supported yet");
}

void
expr_request_condition(StExprRequest *req, const char *text, const char *param)
{
	not_yet(text);
}

void
expr_request_filter_expression(StExprRequest *req, const char *text, const StQuerySpec *q)
{
	not_yet(text);
}

void
expr_request_projection(StExprRequest *req, const char *text)
{
	not_yet(text);
}

void
expr_request_update(StExprRequest *req, const char *text)
{
	not_yet(text);
}

void
expr_request_finish(StExprRequest *req)
{
	if (req->names && req->nexpressions == 0)
		st_error(ST_ERR_VALIDATION,
				 "ExpressionAttributeNames can only be specified when using expressions");
	if (req->values && req->nexpressions == 0)
		st_error(ST_ERR_VALIDATION,
				 "ExpressionAttributeValues can only be specified when using expressions");
}

StCondition *
expr_request_cond(StExprRequest *req)
{
	return NULL;
}

bool
expr_request_filter(StExprRequest *req, const Av *item)
{
	return true;
}

Av *
expr_request_project(StExprRequest *req, const Av *item)
{
	return (Av *) item;
}
