/*-------------------------------------------------------------------------
 *
 * expr_parse.c
 *		The entry point of the parser, and the pieces every expression kind
 *		shares: document paths, operands and function calls.
 *
 * The parser is recursive descent over the token array of expr_lex().
 * Recursion happens only through parentheses, NOT and function arguments,
 * and each of those goes through expr_enter(), so that no input - however
 * deeply nested - can exhaust the stack.
 *
 * The tree it builds is a pure function of the text: placeholders are kept
 * as written ("#n", ":v"), and nothing points into the text.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

#ifndef ST_STANDALONE
#include "miscadmin.h"
#endif

typedef struct FuncDef
{
	const char *name;
	ExprNodeKind kind;
	int			nargs;
	bool		is_condition;	/* returns true/false, not a value */
	bool		update_only;	/* if_not_exists, list_append */
	bool		needs_path;		/* first argument must be a document path */
} FuncDef;

/* DynamoDB's function names are case-sensitive. */
static const FuncDef functions[] = {
	{"attribute_exists", EXPR_N_ATTR_EXISTS, 1, true, false, true},
	{"attribute_not_exists", EXPR_N_ATTR_NOT_EXISTS, 1, true, false, true},
	{"attribute_type", EXPR_N_ATTR_TYPE, 2, true, false, true},
	{"begins_with", EXPR_N_BEGINS_WITH, 2, true, false, false},
	{"contains", EXPR_N_CONTAINS, 2, true, false, false},
	{"size", EXPR_N_SIZE, 1, false, false, false},
	{"if_not_exists", EXPR_N_IF_NOT_EXISTS, 2, false, true, true},
	{"list_append", EXPR_N_LIST_APPEND, 2, false, true, false},
};

ExprNode *
expr_new_node(ExprNodeKind kind, int nargs)
{
	ExprNode   *n = palloc0(sizeof(ExprNode));

	n->kind = kind;
	n->nargs = nargs;
	if (nargs > 0)
		n->args = palloc0(sizeof(ExprNode *) * nargs);
	return n;
}

bool
expr_tok_is_word(const ExprParser *ps, const ExprToken *t, const char *word)
{
	int			wlen = strlen(word);

	if (t->type != TK_IDENT || t->len != wlen)
		return false;
	for (int i = 0; i < wlen; i++)
	{
		char		c = ps->text[t->start + i];

		if (c >= 'a' && c <= 'z')
			c = c - 'a' + 'A';
		if (c != word[i])
			return false;
	}
	return true;
}

bool
expr_count_operator(ExprParser *ps)
{
	if (++ps->noperators > EXPR_MAX_OPERATORS)
		return expr_fail(ps->kind, ps->err,
						 "The expression contains too many operators; operator count: %d",
						 ps->noperators);
	return true;
}

bool
expr_enter(ExprParser *ps)
{
#ifndef ST_STANDALONE
	check_stack_depth();
#endif
	if (++ps->depth > EXPR_MAX_NESTING)
		return expr_fail(ps->kind, ps->err,
						 "The expression has too many nesting levels; nesting levels: %d",
						 ps->depth);
	return true;
}

/*
 * What inner parses, between the parentheses at the current token: one
 * nesting level, and the closing parenthesis required.
 */
ExprNode *
expr_parse_parenthesised(ExprParser *ps, ExprNode *(*inner) (ExprParser *ps))
{
	ExprNode   *n;

	if (!expr_enter(ps))
		return NULL;
	ps->pos++;
	if ((n = inner(ps)) == NULL)
		return NULL;
	if (PEEK(ps)->type != TK_RPAREN)
	{
		expr_syntax_error(ps);
		return NULL;
	}
	ps->pos++;
	expr_leave(ps);
	return n;
}

/* The words of the condition grammar: never attribute names, and a syntax error where one is expected. */
static bool
is_grammar_word(const ExprParser *ps, const ExprToken *t)
{
	return expr_tok_is_word(ps, t, "AND") || expr_tok_is_word(ps, t, "OR") ||
		expr_tok_is_word(ps, t, "NOT") || expr_tok_is_word(ps, t, "BETWEEN") ||
		expr_tok_is_word(ps, t, "IN");
}

/* One name step of a path (attribute name or #placeholder) into *el. */
static bool
parse_name_elem(ExprParser *ps, ExprPathElem *el)
{
	const ExprToken *t = PEEK(ps);

	if (t->type == TK_IDENT && !is_grammar_word(ps, t))
	{
		if (expr_is_reserved_word(ps->text + t->start, t->len))
			return expr_fail(ps->kind, ps->err,
							 "Attribute name is a reserved keyword; reserved keyword: %.*s",
							 t->len, ps->text + t->start);
		el->kind = EXPR_PE_NAME;
	}
	else if (t->type == TK_NAME_PH)
		el->kind = EXPR_PE_PLACEHOLDER;
	else
		return expr_syntax_error(ps);
	el->name = pnstrdup(ps->text + t->start, t->len);
	el->len = t->len;
	ps->pos++;
	return true;
}

/* "[digits]" into *el; the '[' is the current token. */
static bool
parse_index_elem(ExprParser *ps, ExprPathElem *el)
{
	const ExprToken *t;
	int64		value = 0;

	ps->pos++;
	t = PEEK(ps);
	if (t->type != TK_NUMBER)
		return expr_syntax_error(ps);
	/* DynamoDB: an index past a 32-bit integer is out of range, naming it */
	for (int i = 0; i < t->len && value <= EXPR_MAX_LIST_INDEX; i++)
		value = value * 10 + (ps->text[t->start + i] - '0');
	if (value > EXPR_MAX_LIST_INDEX)
		return expr_fail(ps->kind, ps->err,
						 "List index is not within the allowable range; index: [%.*s]",
						 Min(t->len, 100), ps->text + t->start);
	ps->pos++;
	if (PEEK(ps)->type != TK_RBRACKET)
		return expr_syntax_error(ps);
	ps->pos++;
	el->kind = EXPR_PE_INDEX;
	el->name = NULL;
	el->len = 0;
	el->index = (int) value;
	return true;
}

ExprPath *
expr_parse_path(ExprParser *ps)
{
	ExprPathElem elems[EXPR_MAX_PATH_DEPTH];
	ExprPath   *path;
	int			n = 0;

	for (;;)
	{
		ExprPathElem el;
		bool		ok;

		if (n == 0)
			ok = parse_name_elem(ps, &el);
		else if (PEEK(ps)->type == TK_DOT)
		{
			ps->pos++;
			ok = parse_name_elem(ps, &el);
		}
		else if (PEEK(ps)->type == TK_LBRACKET)
			ok = parse_index_elem(ps, &el);
		else
			break;
		if (!ok)
			return NULL;
		/*
		 * Past the limit the path is read to its end: DynamoDB counts all of
		 * it (an expression is at most 4 KB, so n stays small).
		 */
		if (n < EXPR_MAX_PATH_DEPTH)
			elems[n] = el;
		n++;
	}
	if (n > EXPR_MAX_PATH_DEPTH)
	{
		expr_fail(ps->kind, ps->err,
				  "The document path has too many nesting levels; nesting levels: %d", n);
		return NULL;
	}
	path = palloc(sizeof(ExprPath));
	path->n = n;
	path->elems = palloc(sizeof(ExprPathElem) * n);
	memcpy(path->elems, elems, sizeof(ExprPathElem) * n);
	return path;
}

static const FuncDef *
find_function(const ExprParser *ps, const ExprToken *t)
{
	for (int i = 0; i < (int) lengthof(functions); i++)
	{
		if ((int) strlen(functions[i].name) == t->len &&
			memcmp(functions[i].name, ps->text + t->start, t->len) == 0)
			return &functions[i];
	}
	return NULL;
}

/*
 * May f be called here?  DynamoDB words each refusal: a condition function
 * or size() in an UpdateExpression, if_not_exists() or list_append() in a
 * condition, and a condition where a value is wanted (or the reverse).
 */
static bool
check_function_place(ExprParser *ps, const FuncDef *f, bool as_condition)
{
	if (ps->kind == EXPR_UPDATE && !f->update_only)
		return expr_fail(ps->kind, ps->err,
						 "The function is not allowed in an update expression; function: %s",
						 f->name);
	if (ps->kind != EXPR_UPDATE && f->update_only)
		return expr_fail(ps->kind, ps->err,
						 "The function is not allowed in a condition expression; function: %s",
						 f->name);
	if (as_condition != f->is_condition)
		return expr_fail(ps->kind, ps->err,
						 "The function is not allowed to be used this way in an expression; function: %s",
						 f->name);
	return true;
}

/* The comma-separated arguments of a call; the '(' is the current token. */
static bool
parse_call_args(ExprParser *ps, const FuncDef *f, ExprNode *call)
{
	ExprNode   *args[2];
	int			n = 0;

	ps->pos++;
	for (;;)
	{
		ExprNode   *arg = expr_parse_operand(ps);

		if (arg == NULL)
			return false;
		if (n < (int) lengthof(args))
			args[n] = arg;
		n++;
		if (PEEK(ps)->type != TK_COMMA)
			break;
		ps->pos++;
	}
	if (PEEK(ps)->type != TK_RPAREN)
		return expr_syntax_error(ps);
	ps->pos++;
	if (n != f->nargs)
		return expr_fail(ps->kind, ps->err,
						 "Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d",
						 f->name, n);
	if (f->needs_path && args[0]->kind != EXPR_N_PATH)
		return expr_fail(ps->kind, ps->err,
						 "Operator or function requires a document path; operator or function: %s",
						 f->name);
	for (int i = 0; i < n; i++)
		call->args[i] = args[i];
	return true;
}

/*
 * A function call: name '(' args ')'.  as_condition says whether the caller
 * wants a condition (attribute_exists, ...) or a value (size, ...).
 */
ExprNode *
expr_parse_call(ExprParser *ps, bool as_condition)
{
	const ExprToken *t = PEEK(ps);
	const FuncDef *f = find_function(ps, t);
	ExprNode   *call;

	if (f == NULL)
	{
		expr_fail(ps->kind, ps->err, "Invalid function name; function: %.*s",
				  t->len, ps->text + t->start);
		return NULL;
	}
	if (!check_function_place(ps, f, as_condition) ||
		!expr_count_operator(ps) || !expr_enter(ps))
		return NULL;
	ps->pos++;
	call = expr_new_node(f->kind, f->nargs);
	if (!parse_call_args(ps, f, call))
		return NULL;
	expr_leave(ps);
	return call;
}

static ExprNode *parse_bare_operand(ExprParser *ps);

/*
 * '(' operand ')': DynamoDB accepts one pair of parentheses around an
 * operand ("(a) BETWEEN (:lo) AND (:hi)", "SET a = (b) + (c)").  A second
 * pair directly around the first is redundant in a condition; in an
 * UpdateExpression it is a syntax error (except around a whole SET value,
 * see expr_parse_update.c).
 */
static ExprNode *
parse_paren_operand(ExprParser *ps)
{
	int			open = ps->pos;
	int			close = ps->toks[open].match;

	if (ps->kind != EXPR_UPDATE && close > 0 &&
		ps->toks[open + 1].type == TK_LPAREN && ps->toks[open + 1].match == close - 1)
	{
		expr_fail(ps->kind, ps->err, "The expression has redundant parentheses;");
		return NULL;
	}
	return expr_parse_parenthesised(ps, parse_bare_operand);
}

ExprNode *
expr_parse_operand(ExprParser *ps)
{
	if (PEEK(ps)->type == TK_LPAREN)
		return parse_paren_operand(ps);
	return parse_bare_operand(ps);
}

/* A :value, a function call or a document path. */
static ExprNode *
parse_bare_operand(ExprParser *ps)
{
	const ExprToken *t = PEEK(ps);
	ExprNode   *n;

	if (t->type == TK_VALUE_PH)
	{
		n = expr_new_node(EXPR_N_VALUE, 0);
		n->name = pnstrdup(ps->text + t->start, t->len);
		n->name_len = t->len;
		ps->pos++;
		return n;
	}
	if (t->type == TK_IDENT && PEEK_AT(ps, 1)->type == TK_LPAREN)
		return expr_parse_call(ps, false);
	if (t->type != TK_IDENT && t->type != TK_NAME_PH)
	{
		expr_syntax_error(ps);
		return NULL;
	}
	n = expr_new_node(EXPR_N_PATH, 0);
	n->path = expr_parse_path(ps);
	return n->path ? n : NULL;
}

/* ProjectionExpression: path (',' path)* */
static bool
parse_projection(ExprParser *ps, StExpr *e)
{
	int			cap = 8;

	e->paths = palloc(sizeof(ExprPath *) * cap);
	for (;;)
	{
		ExprPath   *path = expr_parse_path(ps);

		if (path == NULL)
			return false;
		if (e->npaths == cap)
		{
			cap *= 2;
			e->paths = repalloc(e->paths, sizeof(ExprPath *) * cap);
		}
		e->paths[e->npaths++] = path;
		if (PEEK(ps)->type != TK_COMMA)
			break;
		ps->pos++;
	}
	return true;
}

static bool
parse_by_kind(ExprParser *ps, StExpr *e)
{
	switch (ps->kind)
	{
		case EXPR_UPDATE:
			return expr_parse_update(ps, e);
		case EXPR_PROJECTION:
			return parse_projection(ps, e);
		default:
			e->cond = expr_parse_condition(ps);
			if (e->cond == NULL)
				return false;
			if (ps->kind == EXPR_KEY_CONDITION)
				return expr_check_key_condition(ps, e->cond);
			return true;
	}
}

StExpr *
expr_parse(ExprKind kind, const char *text, int len, StErr *err)
{
	ExprParser	ps;
	StExpr	   *e;

	if (text == NULL || len < 0)
		len = 0;
	if (len > EXPR_MAX_BYTES)
	{
		expr_fail(kind, err,
				  "Expression size has exceeded the maximum allowed size; expression size: %d",
				  len);
		return NULL;
	}
	memset(&ps, 0, sizeof(ps));
	ps.kind = kind;
	ps.text = text ? text : "";
	ps.len = len;
	ps.err = err;
	ps.toks = expr_lex(ps.text, len, &ps.ntoks);
	if (ps.ntoks == 1)
	{
		expr_fail(kind, err, "The expression can not be empty;");
		return NULL;
	}
	e = palloc0(sizeof(StExpr));
	e->kind = kind;
	if (!parse_by_kind(&ps, e))
		return NULL;
	if (PEEK(&ps)->type != TK_EOF)
	{
		expr_syntax_error(&ps);
		return NULL;
	}
	pfree(ps.toks);
	return e;
}
