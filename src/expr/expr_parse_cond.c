/*-------------------------------------------------------------------------
 *
 * expr_parse_cond.c
 *		The grammar of ConditionExpression, FilterExpression and
 *		KeyConditionExpression.
 *
 *	condition := or
 *	or        := and (OR and)*
 *	and       := not (AND not)*
 *	not       := NOT not | primary
 *	primary   := '(' condition ')'
 *			   | function '(' operands ')'		  (attribute_exists, ...)
 *			   | operand comparator operand
 *			   | operand BETWEEN operand AND operand
 *			   | operand IN '(' operand (',' operand)* ')'
 *
 * This gives DynamoDB's precedence: comparisons, IN and BETWEEN bind
 * tightest, then NOT, then AND, then OR.  Keywords are case-insensitive.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

static ExprNode *parse_or(ExprParser *ps);

static ExprNode *
binary(ExprNodeKind kind, ExprNode *left, ExprNode *right)
{
	ExprNode   *n = expr_new_node(kind, 2);

	n->args[0] = left;
	n->args[1] = right;
	return n;
}

/* The comparator at token t, or false. */
static bool
comparator_at(const ExprToken *t, ExprCmpOp *op)
{
	switch (t->type)
	{
		case TK_EQ:
			*op = EXPR_EQ;
			return true;
		case TK_NE:
			*op = EXPR_NE;
			return true;
		case TK_LT:
			*op = EXPR_LT;
			return true;
		case TK_LE:
			*op = EXPR_LE;
			return true;
		case TK_GT:
			*op = EXPR_GT;
			return true;
		case TK_GE:
			*op = EXPR_GE;
			return true;
		default:
			return false;
	}
}

static bool
comparator(const ExprParser *ps, ExprCmpOp *op)
{
	return comparator_at(PEEK(ps), op);
}

/* Is token t a comparison, BETWEEN or IN? */
static bool
is_operator(const ExprParser *ps, const ExprToken *t)
{
	ExprCmpOp	op;

	return comparator_at(t, &op) || expr_tok_is_word(ps, t, "BETWEEN") ||
		expr_tok_is_word(ps, t, "IN");
}

/* Does a comparison, BETWEEN or IN follow? */
static bool
at_operator(const ExprParser *ps)
{
	return is_operator(ps, PEEK(ps));
}

/* operand BETWEEN lo AND hi; the BETWEEN is the current token. */
static ExprNode *
parse_between(ExprParser *ps, ExprNode *left)
{
	ExprNode   *n = expr_new_node(EXPR_N_BETWEEN, 3);

	ps->pos++;
	n->args[0] = left;
	if ((n->args[1] = expr_parse_operand(ps)) == NULL)
		return NULL;
	if (!expr_tok_is_word(ps, PEEK(ps), "AND"))
	{
		expr_syntax_error(ps);
		return NULL;
	}
	ps->pos++;
	if ((n->args[2] = expr_parse_operand(ps)) == NULL)
		return NULL;
	return n;
}

/* operand IN (a, b, ...); the IN is the current token. */
static ExprNode *
parse_in(ExprParser *ps, ExprNode *left)
{
	ExprNode  **list;
	ExprNode   *n;
	int			count = 0;
	int			cap = 8;

	ps->pos++;
	if (PEEK(ps)->type != TK_LPAREN)
	{
		expr_syntax_error(ps);
		return NULL;
	}
	ps->pos++;
	list = palloc(sizeof(ExprNode *) * cap);
	list[count++] = left;
	for (;;)
	{
		if (count == cap)
		{
			cap *= 2;
			list = repalloc(list, sizeof(ExprNode *) * cap);
		}
		if ((list[count++] = expr_parse_operand(ps)) == NULL)
			return NULL;
		if (PEEK(ps)->type != TK_COMMA)
			break;
		ps->pos++;
	}
	if (PEEK(ps)->type != TK_RPAREN)
	{
		expr_syntax_error(ps);
		return NULL;
	}
	ps->pos++;
	if (count - 1 > EXPR_MAX_IN_OPERANDS)
	{
		expr_fail(ps->kind, ps->err,
				  "The IN operator is provided with too many operands; number of operands: %d",
				  count - 1);
		return NULL;
	}
	n = expr_new_node(EXPR_N_IN, 0);
	n->nargs = count;
	n->args = list;
	return n;
}

/* operand followed by a comparison, BETWEEN or IN. */
static ExprNode *
parse_comparison(ExprParser *ps)
{
	ExprNode   *left = expr_parse_operand(ps);
	ExprCmpOp	op = 0;
	ExprNode   *n;

	if (left == NULL)
		return NULL;
	if (!at_operator(ps))
	{
		/* size(a) alone is a value, not a condition */
		if (left->kind == EXPR_N_SIZE)
			expr_fail(ps->kind, ps->err,
					  "The function is not allowed to be used this way in an expression; function: size");
		else
			expr_syntax_error(ps);
		return NULL;
	}
	if (!expr_count_operator(ps))
		return NULL;
	if (expr_tok_is_word(ps, PEEK(ps), "BETWEEN"))
		return parse_between(ps, left);
	if (expr_tok_is_word(ps, PEEK(ps), "IN"))
		return parse_in(ps, left);
	comparator(ps, &op);
	ps->pos++;
	n = binary(EXPR_N_CMP, left, NULL);
	n->op = op;
	if ((n->args[1] = expr_parse_operand(ps)) == NULL)
		return NULL;
	return n;
}

/* Is the current token the name of a function that is a condition? */
static bool
at_condition_function(const ExprParser *ps)
{
	static const char *const names[] = {
		"attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains"
	};
	const ExprToken *t = PEEK(ps);

	if (t->type != TK_IDENT || PEEK_AT(ps, 1)->type != TK_LPAREN)
		return false;
	for (int i = 0; i < (int) lengthof(names); i++)
		if ((int) strlen(names[i]) == t->len &&
			memcmp(names[i], ps->text + t->start, t->len) == 0)
			return true;
	return false;
}

/*
 * '(' condition ')'.  DynamoDB refuses parentheses that directly wrap
 * another parenthesised group, "((a = :v))".
 */
static ExprNode *
parse_group(ExprParser *ps)
{
	int			open = ps->pos;
	int			close = ps->toks[open].match;

	if (close > 0 && ps->toks[open + 1].type == TK_LPAREN &&
		ps->toks[open + 1].match == close - 1)
	{
		expr_fail(ps->kind, ps->err, "The expression has redundant parentheses;");
		return NULL;
	}
	return expr_parse_parenthesised(ps, parse_or);
}

static ExprNode *
parse_primary(ExprParser *ps)
{
	ExprNode   *n;

	/* "(a) = :v": parentheses around the left operand, not a group */
	if (PEEK(ps)->type == TK_LPAREN &&
		!(PEEK(ps)->match > 0 && is_operator(ps, &ps->toks[PEEK(ps)->match + 1])))
		return parse_group(ps);
	if (!at_condition_function(ps))
		return parse_comparison(ps);
	if ((n = expr_parse_call(ps, true)) == NULL)
		return NULL;
	/* attribute_exists(a) = :v: a condition cannot be compared */
	if (at_operator(ps))
	{
		expr_fail(ps->kind, ps->err,
				  "The function is not allowed to be used this way in an expression; function: %s",
				  expr_node_name(n));
		return NULL;
	}
	return n;
}

static ExprNode *
parse_not(ExprParser *ps)
{
	ExprNode   *n;

	if (!expr_tok_is_word(ps, PEEK(ps), "NOT"))
		return parse_primary(ps);
	if (!expr_count_operator(ps) || !expr_enter(ps))
		return NULL;
	ps->pos++;
	n = expr_new_node(EXPR_N_NOT, 1);
	if ((n->args[0] = parse_not(ps)) == NULL)
		return NULL;
	expr_leave(ps);
	return n;
}

static ExprNode *
parse_and(ExprParser *ps)
{
	ExprNode   *left = parse_not(ps);

	while (left != NULL && expr_tok_is_word(ps, PEEK(ps), "AND"))
	{
		ExprNode   *right;

		if (!expr_count_operator(ps))
			return NULL;
		ps->pos++;
		if ((right = parse_not(ps)) == NULL)
			return NULL;
		left = binary(EXPR_N_AND, left, right);
	}
	return left;
}

static ExprNode *
parse_or(ExprParser *ps)
{
	ExprNode   *left = parse_and(ps);

	while (left != NULL && expr_tok_is_word(ps, PEEK(ps), "OR"))
	{
		ExprNode   *right;

		if (!expr_count_operator(ps))
			return NULL;
		ps->pos++;
		if ((right = parse_and(ps)) == NULL)
			return NULL;
		left = binary(EXPR_N_OR, left, right);
	}
	return left;
}

ExprNode *
expr_parse_condition(ExprParser *ps)
{
	return parse_or(ps);
}
