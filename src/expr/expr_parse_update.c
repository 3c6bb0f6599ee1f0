/*-------------------------------------------------------------------------
 *
 * expr_parse_update.c
 *		The grammar of UpdateExpression.
 *
 *	update := clause+
 *	clause := SET path '=' value (',' path '=' value)*
 *			| REMOVE path (',' path)*
 *			| ADD path :value (',' path :value)*
 *			| DELETE path :value (',' path :value)*
 *	value  := '(' arith ')' | arith
 *	arith  := operand | operand '+' operand | operand '-' operand
 *
 * Each clause keyword (case-insensitive) may appear once.  Operands are
 * paths, :values, if_not_exists(path, operand) and list_append(operand,
 * operand), which nest in each other; each operand may stand in one pair
 * of parentheses.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

static const char *const clause_words[] = {"SET", "REMOVE", "ADD", "DELETE"};

typedef struct ItemList
{
	int			n;
	int			cap;
	ExprUpdateItem *items;
} ItemList;

static ExprUpdateItem *
add_item(ItemList *list, ExprUpdateAction action)
{
	ExprUpdateItem *it;

	if (list->n == list->cap)
	{
		list->cap = list->cap ? list->cap * 2 : 8;
		list->items = list->items
			? repalloc(list->items, sizeof(ExprUpdateItem) * list->cap)
			: palloc(sizeof(ExprUpdateItem) * list->cap);
	}
	it = &list->items[list->n++];
	memset(it, 0, sizeof(*it));
	it->action = action;
	return it;
}

/* The clause keyword at the current token, or -1. */
static int
clause_at(const ExprParser *ps)
{
	for (int i = 0; i < (int) lengthof(clause_words); i++)
		if (expr_tok_is_word(ps, PEEK(ps), clause_words[i]))
			return i;
	return -1;
}

/* arith := operand [('+' | '-') operand]; each operand may be in parentheses */
static ExprNode *
parse_arith(ExprParser *ps)
{
	ExprNode   *left = expr_parse_operand(ps);
	ExprNode   *n;
	ExprTokType t = PEEK(ps)->type;

	if (left == NULL || (t != TK_PLUS && t != TK_MINUS))
		return left;
	if (!expr_count_operator(ps))
		return NULL;
	ps->pos++;
	n = expr_new_node(t == TK_PLUS ? EXPR_N_PLUS : EXPR_N_MINUS, 2);
	n->args[0] = left;
	if ((n->args[1] = expr_parse_operand(ps)) == NULL)
		return NULL;
	return n;
}

/* Does the value of a SET action end at token k (end, next action or clause)? */
static bool
value_ends_at(const ExprParser *ps, int k)
{
	const ExprToken *t = &ps->toks[Min(k, ps->ntoks - 1)];

	if (t->type == TK_EOF || t->type == TK_COMMA)
		return true;
	for (int i = 0; i < (int) lengthof(clause_words); i++)
		if (expr_tok_is_word(ps, t, clause_words[i]))
			return true;
	return false;
}

/*
 * value := '(' arith ')' | arith.  DynamoDB accepts one pair of
 * parentheses around the whole value as well as around each operand:
 * "SET b.c = ((c[1]) + (b.a))".
 */
static ExprNode *
parse_set_value(ExprParser *ps)
{
	const ExprToken *t = PEEK(ps);

	if (t->type != TK_LPAREN || t->match < 0 || !value_ends_at(ps, t->match + 1))
		return parse_arith(ps);
	return expr_parse_parenthesised(ps, parse_arith);
}

/* One action of a clause into it. */
static bool
parse_action(ExprParser *ps, ExprUpdateItem *it)
{
	if ((it->path = expr_parse_path(ps)) == NULL)
		return false;
	switch (it->action)
	{
		case EXPR_UPD_SET:
			if (PEEK(ps)->type != TK_EQ)
				return expr_syntax_error(ps);
			ps->pos++;
			return (it->value = parse_set_value(ps)) != NULL;
		case EXPR_UPD_REMOVE:
			return true;
		case EXPR_UPD_ADD:
		case EXPR_UPD_DELETE:
			/* the operand of ADD and DELETE is always a :value */
			if (PEEK(ps)->type != TK_VALUE_PH)
				return expr_syntax_error(ps);
			return (it->value = expr_parse_operand(ps)) != NULL;
	}
	return false;
}

bool
expr_parse_update(ExprParser *ps, StExpr *e)
{
	bool		seen[lengthof(clause_words)] = {false};
	ItemList	list = {0, 0, NULL};

	while (PEEK(ps)->type != TK_EOF)
	{
		int			clause = clause_at(ps);

		if (clause < 0)
			return expr_syntax_error(ps);
		if (seen[clause])
			return expr_fail(ps->kind, ps->err,
							 "The \"%s\" section can only be used once in an update expression;",
							 clause_words[clause]);
		seen[clause] = true;
		ps->pos++;
		for (;;)
		{
			if (!parse_action(ps, add_item(&list, (ExprUpdateAction) clause)))
				return false;
			if (PEEK(ps)->type != TK_COMMA)
				break;
			ps->pos++;
		}
	}
	e->nitems = list.n;
	e->items = list.items;
	return true;
}
