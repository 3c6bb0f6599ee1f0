/*-------------------------------------------------------------------------
 *
 * expr_int.h
 *		Declarations shared by the files of the expression module only:
 *		tokens, the parser's state, path resolution and error helpers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_EXPR_INT_H
#define ST_EXPR_INT_H

#include "expr.h"

/* ---------- lexer (expr_lex.c) ---------- */

typedef enum ExprTokType
{
	TK_EOF,
	TK_IDENT,					/* attribute name, keyword or function name */
	TK_NAME_PH,					/* #name */
	TK_VALUE_PH,				/* :value */
	TK_NUMBER,					/* digits (list indexes only) */
	TK_LPAREN,
	TK_RPAREN,
	TK_LBRACKET,
	TK_RBRACKET,
	TK_COMMA,
	TK_DOT,
	TK_EQ,
	TK_NE,
	TK_LT,
	TK_LE,
	TK_GT,
	TK_GE,
	TK_PLUS,
	TK_MINUS,
	TK_INVALID					/* any other character */
} ExprTokType;

typedef struct ExprToken
{
	ExprTokType type;
	int			start;			/* byte offset in the text */
	int			len;
	int			match;			/* TK_LPAREN: index of the matching ')', or -1 */
} ExprToken;

/* Split text into tokens; the last one is TK_EOF.  Never fails. */
extern ExprToken *expr_lex(const char *text, int len, int *ntokens);

/* ---------- parser state (expr_parse*.c) ---------- */

typedef struct ExprParser
{
	ExprKind	kind;
	const char *text;
	int			len;
	ExprToken  *toks;
	int			ntoks;
	int			pos;			/* current token */
	int			depth;			/* nesting of parentheses, NOT, functions */
	int			noperators;
	StErr	   *err;
} ExprParser;

#define PEEK(ps) (&(ps)->toks[(ps)->pos])
#define PEEK_AT(ps, k) (&(ps)->toks[Min((ps)->pos + (k), (ps)->ntoks - 1)])

/* Syntax error at the current token ("Syntax error; token: ..., near: ..."). */
extern bool expr_syntax_error(ExprParser *ps);

/* Is the token an identifier equal (case-insensitively) to word? */
extern bool expr_tok_is_word(const ExprParser *ps, const ExprToken *t, const char *word);

/* Count one operator or function against DynamoDB's limit. */
extern bool expr_count_operator(ExprParser *ps);

/* Enter / leave one nesting level (parentheses, NOT, function calls). */
extern bool expr_enter(ExprParser *ps);
#define expr_leave(ps) ((ps)->depth--)

/* What inner parses, inside the parentheses at the current token. */
extern ExprNode *expr_parse_parenthesised(ExprParser *ps, ExprNode *(*inner) (ExprParser *ps));

extern ExprPath *expr_parse_path(ExprParser *ps);
extern ExprNode *expr_parse_operand(ExprParser *ps);
extern ExprNode *expr_parse_call(ExprParser *ps, bool as_condition);
extern ExprNode *expr_parse_condition(ExprParser *ps);
extern bool expr_parse_update(ExprParser *ps, StExpr *e);
extern bool expr_check_key_condition(ExprParser *ps, const ExprNode *cond);

extern ExprNode *expr_new_node(ExprNodeKind kind, int nargs);

/* ---------- errors (expr_error.c) ---------- */

/* Fill err with "Invalid <Label>: <message>" (a ValidationException); returns false. */
extern bool expr_fail(ExprKind kind, StErr *err, const char *fmt,...) pg_attribute_printf(3, 4);

/* The name of a function or operator node, as DynamoDB prints it ("size", "="). */
extern const char *expr_node_name(const ExprNode *n);

/* ---------- paths (expr_path.c) ---------- */

/*
 * Resolve #name placeholders of a path through p->names.  The elements of
 * out point into the path and the names map (no copies).  False when a
 * placeholder is not defined.
 */
extern bool expr_resolve_path(const ExprPath *path, const ExprParams *p,
							  ExprResolvedPath *out);

/* A deep copy of a resolved path (strings copied). */
extern void expr_copy_resolved(const ExprResolvedPath *src, ExprResolvedPath *dst);

/* The value at a resolved path in item, or NULL when absent. */
extern const Av *expr_path_lookup(const Av *item, const ExprResolvedPath *rp);

/* Do two resolved path elements denote the same step? */
extern bool expr_elem_equal(const ExprPathElem *a, const ExprPathElem *b);

/* "[a, b, [2]]" as DynamoDB prints a path in messages (palloc'd). */
extern char *expr_path_text(const ExprResolvedPath *rp);

/*
 * DynamoDB's rule for a set of paths that is updated or projected together:
 * no path may be a prefix of another (overlap), nor step into the same
 * container once by name and once by index (conflict).
 */
extern bool expr_check_path_set(ExprKind kind, const ExprResolvedPath *paths, int n,
								StErr *err);

/* ---------- placeholders (expr_bind.c) ---------- */

/* The value of ":v" (len bytes) in p->values, or NULL. */
extern const Av *expr_param_value(const ExprParams *p, const char *name, int len);

/* ---------- update application (expr_update.c) ---------- */

/* An update operand of the wrong type (expr_legacy.c rewords it for AttributeUpdates). */
#define EXPR_MSG_UPDATE_BAD_TYPE "An operand in the update expression has an incorrect data type"

/* ---------- operand evaluation (expr_eval.c) ---------- */

/* The value of an operand against item (NULL: absent or not applicable). */
extern const Av *expr_eval_operand(const ExprNode *n, const Av *item, const ExprParams *p);

#endif							/* ST_EXPR_INT_H */
