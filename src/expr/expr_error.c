/*-------------------------------------------------------------------------
 *
 * expr_error.c
 *		The wording of expression errors.
 *
 * DynamoDB prefixes every message about an expression with the request
 * parameter it came from ("Invalid UpdateExpression: ..."), and quotes
 * syntax errors with the offending token and its neighbours ("Syntax
 * error; token: \":\", near: \"hits : incr\"").  Clients match on these
 * strings, so they are built in one place.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

#include <stdarg.h>
#include <stdio.h>

/* Longest excerpt of the text quoted in a syntax error. */
#define NEAR_MAX 200

const char *
expr_kind_label(ExprKind kind)
{
	switch (kind)
	{
		case EXPR_CONDITION:
			return "ConditionExpression";
		case EXPR_UPDATE:
			return "UpdateExpression";
		case EXPR_PROJECTION:
			return "ProjectionExpression";
		case EXPR_KEY_CONDITION:
			return "KeyConditionExpression";
		case EXPR_FILTER:
			return "FilterExpression";
	}
	return "Expression";
}

bool
expr_fail(ExprKind kind, StErr *err, const char *fmt,...)
{
	char		msg[ST_ERR_MSG_MAX];
	va_list		args;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	return st_fail(err, ST_ERR_VALIDATION, "Invalid %s: %s", expr_kind_label(kind), msg);
}

/*
 * DynamoDB quotes the source text from the token before the offending one
 * to the token after it; at the end of the text, "<EOF>" is the token.
 */
bool
expr_syntax_error(ExprParser *ps)
{
	const ExprToken *t = PEEK(ps);
	int			from = ps->pos > 0 ? ps->toks[ps->pos - 1].start : t->start;
	int			to;

	if (t->type == TK_EOF)
		to = ps->len;
	else if (ps->pos + 1 < ps->ntoks && ps->toks[ps->pos + 1].type != TK_EOF)
		to = ps->toks[ps->pos + 1].start + ps->toks[ps->pos + 1].len;
	else
		to = t->start + t->len;

	if (t->type == TK_EOF)
		return expr_fail(ps->kind, ps->err,
						 "Syntax error; token: \"<EOF>\", near: \"%.*s\"",
						 Min(to - from, NEAR_MAX), ps->text + from);
	return expr_fail(ps->kind, ps->err,
					 "Syntax error; token: \"%.*s\", near: \"%.*s\"",
					 Min(t->len, NEAR_MAX), ps->text + t->start,
					 Min(to - from, NEAR_MAX), ps->text + from);
}

const char *
expr_node_name(const ExprNode *n)
{
	static const char *const cmp_names[] = {"=", "<>", "<", "<=", ">", ">="};

	switch (n->kind)
	{
		case EXPR_N_SIZE:
			return "size";
		case EXPR_N_IF_NOT_EXISTS:
			return "if_not_exists";
		case EXPR_N_LIST_APPEND:
			return "list_append";
		case EXPR_N_PLUS:
			return "+";
		case EXPR_N_MINUS:
			return "-";
		case EXPR_N_CMP:
			return cmp_names[n->op];
		case EXPR_N_BETWEEN:
			return "BETWEEN";
		case EXPR_N_IN:
			return "IN";
		case EXPR_N_AND:
			return "AND";
		case EXPR_N_OR:
			return "OR";
		case EXPR_N_NOT:
			return "NOT";
		case EXPR_N_ATTR_EXISTS:
			return "attribute_exists";
		case EXPR_N_ATTR_NOT_EXISTS:
			return "attribute_not_exists";
		case EXPR_N_ATTR_TYPE:
			return "attribute_type";
		case EXPR_N_BEGINS_WITH:
			return "begins_with";
		case EXPR_N_CONTAINS:
			return "contains";
		default:
			return "";
	}
}
