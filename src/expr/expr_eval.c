/*-------------------------------------------------------------------------
 *
 * expr_eval.c
 *		Evaluating a ConditionExpression / FilterExpression against an item.
 *
 * DynamoDB's semantics: an operand whose path is absent has no value;
 * comparisons between values of different types (or with an absent value)
 * are false rather than errors - except <>, which is true whenever the two
 * sides are not equal.  Ordering (<, <=, >, >=, BETWEEN) applies only to
 * two S, two N or two B values.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"
#include "../item/number.h"

#include <stdio.h>

/* size(): length of S (see av_utf16_length), bytes of B, element count of sets, L and M. */
static const Av *
eval_size(const Av *v)
{
	char		buf[16];
	int			size;

	if (v == NULL)
		return NULL;
	switch (v->type)
	{
		case AV_S:
			size = (int) av_utf16_length(v->str, v->len);
			break;
		case AV_B:
			size = v->len;
			break;
		case AV_L:
		case AV_M:
		case AV_SS:
		case AV_NS:
		case AV_BS:
			size = v->n;
			break;
		default:
			return NULL;		/* N, BOOL, NULL have no size */
	}
	snprintf(buf, sizeof(buf), "%d", size);
	return av_new_str(AV_N, buf, strlen(buf));
}

const Av *
expr_eval_operand(const ExprNode *n, const Av *item, const ExprParams *p)
{
	ExprResolvedPath rp;

	switch (n->kind)
	{
		case EXPR_N_PATH:
			if (item == NULL || !expr_resolve_path(n->path, p, &rp))
				return NULL;
			return expr_path_lookup(item, &rp);
		case EXPR_N_VALUE:
			return expr_param_value(p, n->name, n->name_len);
		case EXPR_N_SIZE:
			return eval_size(expr_eval_operand(n->args[0], item, p));
		default:
			return NULL;		/* update-only operands never reach conditions */
	}
}

static bool
orderable(const Av *a, const Av *b)
{
	return a != NULL && b != NULL && a->type == b->type && av_type_is_scalar(a->type);
}

static bool
eval_cmp(ExprCmpOp op, const Av *a, const Av *b)
{
	int			c;

	if (op == EXPR_EQ)
		return a != NULL && b != NULL && av_equal(a, b);
	if (op == EXPR_NE)
		return !(a != NULL && b != NULL && av_equal(a, b));
	if (!orderable(a, b))
		return false;
	c = av_compare_scalar(a, b);
	switch (op)
	{
		case EXPR_LT:
			return c < 0;
		case EXPR_LE:
			return c <= 0;
		case EXPR_GT:
			return c > 0;
		default:
			return c >= 0;
	}
}

static bool
eval_between(const Av *v, const Av *lo, const Av *hi)
{
	return orderable(v, lo) && orderable(v, hi) &&
		av_compare_scalar(lo, v) <= 0 && av_compare_scalar(v, hi) <= 0;
}

/* begins_with: S on S, B on B. */
static bool
eval_begins_with(const Av *v, const Av *prefix)
{
	if (v == NULL || prefix == NULL || v->type != prefix->type ||
		(v->type != AV_S && v->type != AV_B))
		return false;
	return prefix->len <= v->len && memcmp(v->str, prefix->str, prefix->len) == 0;
}

static bool
bytes_contain(const char *hay, int hlen, const char *needle, int nlen)
{
	if (nlen == 0)
		return true;
	for (int i = 0; i + nlen <= hlen; i++)
		if (memcmp(hay + i, needle, nlen) == 0)
			return true;
	return false;
}

/* contains: substring of S (or B), member of a set, element of a list. */
static bool
eval_contains(const Av *v, const Av *x)
{
	if (v == NULL || x == NULL)
		return false;
	if ((v->type == AV_S || v->type == AV_B) && x->type == v->type)
		return bytes_contain(v->str, v->len, x->str, x->len);
	if (av_type_is_set(v->type))
		return av_set_contains(v, x);
	if (v->type == AV_L)
	{
		for (int i = 0; i < v->n; i++)
			if (av_equal(v->items[i], x))
				return true;
	}
	return false;
}

static bool
eval_attribute_type(const Av *v, const Av *t)
{
	const char *name;

	if (v == NULL || t == NULL || t->type != AV_S)
		return false;
	name = av_type_name(v->type);
	return (int) strlen(name) == t->len && memcmp(name, t->str, t->len) == 0;
}

static bool
eval_in(const ExprNode *n, const Av *item, const ExprParams *p)
{
	const Av   *v = expr_eval_operand(n->args[0], item, p);

	if (v == NULL)
		return false;
	for (int i = 1; i < n->nargs; i++)
	{
		const Av   *x = expr_eval_operand(n->args[i], item, p);

		if (x != NULL && av_equal(v, x))
			return true;
	}
	return false;
}

static bool
eval_node(const ExprNode *n, const Av *item, const ExprParams *p)
{
#define ARG(i) expr_eval_operand(n->args[i], item, p)
	switch (n->kind)
	{
		case EXPR_N_AND:
			return eval_node(n->args[0], item, p) && eval_node(n->args[1], item, p);
		case EXPR_N_OR:
			return eval_node(n->args[0], item, p) || eval_node(n->args[1], item, p);
		case EXPR_N_NOT:
			return !eval_node(n->args[0], item, p);
		case EXPR_N_CMP:
			return eval_cmp(n->op, ARG(0), ARG(1));
		case EXPR_N_BETWEEN:
			return eval_between(ARG(0), ARG(1), ARG(2));
		case EXPR_N_IN:
			return eval_in(n, item, p);
		case EXPR_N_ATTR_EXISTS:
			return ARG(0) != NULL;
		case EXPR_N_ATTR_NOT_EXISTS:
			return ARG(0) == NULL;
		case EXPR_N_ATTR_TYPE:
			return eval_attribute_type(ARG(0), ARG(1));
		case EXPR_N_BEGINS_WITH:
			return eval_begins_with(ARG(0), ARG(1));
		case EXPR_N_CONTAINS:
			return eval_contains(ARG(0), ARG(1));
		default:
			return false;
	}
#undef ARG
}

bool
expr_eval_condition(const StExpr *cond, const Av *item, const ExprParams *p,
					bool *result, StErr *err)
{
	if (cond == NULL || cond->cond == NULL)
		return st_fail(err, ST_ERR_VALIDATION, "Invalid expression: not a condition");
	*result = eval_node(cond->cond, item, p);
	return true;
}
