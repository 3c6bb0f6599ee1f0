/*-------------------------------------------------------------------------
 *
 * partiql_parse.c
 *		The lexer and recursive-descent parser of PartiQL for DynamoDB.
 *
 * The grammar is the subset DynamoDB documents (PartiQL for DynamoDB
 * reference: statements, functions, operators):
 *
 *	SELECT (* | path, ...) FROM table [. index] [WHERE cond]
 *		[ORDER BY path [ASC | DESC]]
 *	INSERT INTO table VALUE value
 *	UPDATE table (SET path = operand | REMOVE path)[[,] ...]
 *		WHERE cond [RETURNING (ALL | MODIFIED) (OLD | NEW) *]
 *	DELETE FROM table WHERE cond [RETURNING ALL OLD *]
 *	EXISTS (SELECT * FROM table WHERE cond)
 *
 * Keywords are case-insensitive; identifiers (attribute, table and index
 * names) are case-sensitive, quoted ("...", "" for a quote) or not.
 * Strings are single-quoted ('' for a quote).  A double-quoted name in a
 * value position is a path, as in DynamoDB: "a" = 'a'.  The whole text is
 * lexed first into an array of tokens, so that errors can name the token
 * and its position (line:column:length, as DynamoDB's messages do).
 *
 * Pure C: no backend needed (ST_STANDALONE builds it for the unit tests
 * and the fuzz target).
 *
 *-------------------------------------------------------------------------
 */
#include "partiql.h"

#include <stdio.h>

#include "item/number.h"

#ifndef ST_STANDALONE
#include "miscadmin.h"
#endif

typedef enum TokType
{
	T_END,
	T_WORD,						/* unquoted identifier or keyword */
	T_QNAME,					/* "quoted identifier" (text unescaped) */
	T_STRING,					/* 'string' (text unescaped) */
	T_NUMBER,
	T_PARAM,					/* ? */
	T_LPAREN, T_RPAREN, T_LBRACKET, T_RBRACKET, T_LBRACE, T_RBRACE,
	T_LSET,						/* << */
	T_RSET,						/* >> */
	T_COMMA, T_DOT, T_STAR, T_COLON, T_SEMI, T_PLUS, T_MINUS,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_ION,						/* `...`: an Ion literal */
	T_INVALID
} TokType;

typedef struct Tok
{
	TokType		type;
	int			pos;			/* byte offset */
	int			len;			/* bytes in the statement */
	char	   *text;			/* unescaped text (QNAME, STRING), else NULL */
	int			tlen;
} Tok;

typedef struct Parser
{
	const char *src;
	int			srclen;
	Tok		   *toks;
	int			ntoks;
	int			i;				/* current token */
	int			depth;
	int			nparams;
	StErr	   *err;
	bool		failed;
} Parser;

static const char *const keywords[] = {
	"ALL", "AND", "ASC", "BETWEEN", "BY", "DELETE", "DESC", "EXISTS", "FALSE",
	"FROM", "IN", "INSERT", "INTO", "IS", "MISSING", "MODIFIED", "NEW", "NOT",
	"NULL", "OLD", "OR", "ORDER", "REMOVE", "RETURNING", "SELECT", "SET",
	"TRUE", "UPDATE", "VALUE", "WHERE",
	/* SQL clauses DynamoDB refuses as unsupported */
	"LIMIT", "OFFSET", "GROUP", "HAVING", "JOIN", "UNION", "VALUES", "AS",
	"DISTINCT", "LIKE"
};

static bool
word_is(const char *w, int len, const char *kw)
{
	int			i;

	for (i = 0; i < len && kw[i]; i++)
	{
		char		c = w[i];

		if (c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		if (c != kw[i])
			return false;
	}
	return i == len && kw[i] == '\0';
}

bool
partiql_is_keyword(const char *word, int len)
{
	for (int k = 0; k < (int) lengthof(keywords); k++)
		if (word_is(word, len, keywords[k]))
			return true;
	return false;
}

/* ---------- lexer ---------- */

static bool
is_word_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static bool
is_word_char(unsigned char c)
{
	return is_word_start(c) || (c >= '0' && c <= '9');
}

static bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* A quoted token from text[i] (the quote q): its unescaped text; false when unterminated. */
static bool
lex_quoted(const char *s, int len, int i, char q, Tok *t)
{
	char	   *out = palloc(len - i + 1);
	int			n = 0;
	int			j = i + 1;

	for (;;)
	{
		if (j >= len)
		{
			pfree(out);
			return false;
		}
		if (s[j] == q)
		{
			if (j + 1 < len && s[j + 1] == q)
			{
				out[n++] = q;
				j += 2;
				continue;
			}
			j++;
			break;
		}
		out[n++] = s[j++];
	}
	out[n] = '\0';
	t->text = out;
	t->tlen = n;
	t->len = j - i;
	return true;
}

static int
lex_number(const char *s, int len, int i)
{
	int			j = i;

	while (j < len && is_digit(s[j]))
		j++;
	if (j < len && s[j] == '.')
	{
		j++;
		while (j < len && is_digit(s[j]))
			j++;
	}
	if (j < len && (s[j] == 'e' || s[j] == 'E'))
	{
		int			k = j + 1;

		if (k < len && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k < len && is_digit(s[k]))
		{
			j = k;
			while (j < len && is_digit(s[j]))
				j++;
		}
	}
	return j - i;
}

static TokType
lex_punct(const char *s, int len, int i, int *toklen)
{
	char		c = s[i];
	char		d = i + 1 < len ? s[i + 1] : '\0';

	*toklen = 1;
	switch (c)
	{
		case '(': return T_LPAREN;
		case ')': return T_RPAREN;
		case '[': return T_LBRACKET;
		case ']': return T_RBRACKET;
		case '{': return T_LBRACE;
		case '}': return T_RBRACE;
		case ',': return T_COMMA;
		case '.': return T_DOT;
		case '*': return T_STAR;
		case ':': return T_COLON;
		case ';': return T_SEMI;
		case '+': return T_PLUS;
		case '-': return T_MINUS;
		case '?': return T_PARAM;
		case '=': return T_EQ;
		case '!':
			if (d == '=')
			{
				*toklen = 2;
				return T_NE;
			}
			return T_INVALID;
		case '<':
			*toklen = 2;
			if (d == '<')
				return T_LSET;
			if (d == '=')
				return T_LE;
			if (d == '>')
				return T_NE;
			*toklen = 1;
			return T_LT;
		case '>':
			*toklen = 2;
			if (d == '>')
				return T_RSET;
			if (d == '=')
				return T_GE;
			*toklen = 1;
			return T_GT;
		default:
			return T_INVALID;
	}
}

/* Split the statement into tokens; an unterminated quote is a T_INVALID up to the end. */
static void
lex(Parser *p)
{
	const char *s = p->src;
	int			len = p->srclen;
	int			cap = 16;
	int			i = 0;

	p->toks = palloc(sizeof(Tok) * cap);
	p->ntoks = 0;
	for (;;)
	{
		Tok			t;

		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
			i++;
		/* -- comments run to the end of the line */
		if (i + 1 < len && s[i] == '-' && s[i + 1] == '-')
		{
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		memset(&t, 0, sizeof(t));
		t.pos = i;
		if (i >= len)
			t.type = T_END;
		else if (is_word_start((unsigned char) s[i]))
		{
			int			j = i;

			while (j < len && is_word_char((unsigned char) s[j]))
				j++;
			t.type = T_WORD;
			t.len = j - i;
			t.text = pnstrdup(s + i, t.len);
			t.tlen = t.len;
		}
		else if (is_digit((unsigned char) s[i]) ||
				 (s[i] == '.' && i + 1 < len && is_digit((unsigned char) s[i + 1])))
		{
			t.type = T_NUMBER;
			t.len = lex_number(s, len, i);
			if (t.len == 0)
				t.len = 1;
			t.text = pnstrdup(s + i, t.len);
			t.tlen = t.len;
		}
		else if (s[i] == '"' || s[i] == '\'')
		{
			t.type = s[i] == '"' ? T_QNAME : T_STRING;
			if (!lex_quoted(s, len, i, s[i], &t))
			{
				t.type = T_INVALID;
				t.len = len - i;
			}
		}
		else if (s[i] == '`')
		{
			t.type = T_ION;
			t.len = 1;
		}
		else
		{
			t.type = lex_punct(s, len, i, &t.len);
			/* a character outside the language is the whole of it, not its first byte */
			if (t.type == T_INVALID && (unsigned char) s[i] >= 0xC0)
				while (i + t.len < len && ((unsigned char) s[i + t.len] & 0xC0) == 0x80)
					t.len++;
		}
		if (p->ntoks == cap)
		{
			cap *= 2;
			p->toks = repalloc(p->toks, sizeof(Tok) * cap);
		}
		p->toks[p->ntoks++] = t;
		if (t.type == T_END || t.type == T_INVALID)
			break;
		i += t.len;
	}
}

/* ---------- errors ---------- */

/* line:column of a byte offset (1-based, columns in bytes) */
static void
line_col(const Parser *p, int pos, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (int i = 0; i < pos && i < p->srclen; i++)
	{
		if (p->src[i] == '\n')
		{
			(*line)++;
			*col = 1;
		}
		else
			(*col)++;
	}
}

static void *
fail_at(Parser *p, int pos, int len, const char *what)
{
	int			line;
	int			col;

	if (p->failed)
		return NULL;
	p->failed = true;
	line_col(p, pos, &line, &col);
	st_fail(p->err, ST_ERR_VALIDATION, "%s at %d:%d:%d", what, line, col, len);
	return NULL;
}

/* "Statement wasn't well formed, can't be processed: Unexpected ..." at the current token */
static void *
syntax_error(Parser *p)
{
	Tok		   *t = &p->toks[p->i];
	char		what[300];
	const char *kind;

	if (p->failed)
		return NULL;
	if (t->type == T_ION)
		return fail_at(p, t->pos, 1, "Ion Literals are not supported");
	if (t->type == T_END)
		snprintf(what, sizeof(what),
				 "Statement wasn't well formed, can't be processed: Unexpected end of statement");
	else
	{
		if (t->type == T_WORD && partiql_is_keyword(p->src + t->pos, t->len))
			kind = "keyword";
		else
			kind = "token";
		snprintf(what, sizeof(what),
				 "Statement wasn't well formed, can't be processed: Unexpected %s: %.*s",
				 kind, Min(t->len, 100), p->src + t->pos);
	}
	return fail_at(p, t->pos, t->type == T_END ? 0 : t->len, what);
}

/* ---------- token helpers ---------- */

static Tok *
cur(Parser *p)
{
	return &p->toks[p->i];
}

static bool
at(Parser *p, TokType type)
{
	return cur(p)->type == type;
}

static bool
at_kw(Parser *p, const char *kw)
{
	Tok		   *t = cur(p);

	return t->type == T_WORD && word_is(p->src + t->pos, t->len, kw);
}

static bool
accept(Parser *p, TokType type)
{
	if (!at(p, type))
		return false;
	p->i++;
	return true;
}

static bool
accept_kw(Parser *p, const char *kw)
{
	if (!at_kw(p, kw))
		return false;
	p->i++;
	return true;
}

static bool
expect(Parser *p, TokType type)
{
	if (accept(p, type))
		return true;
	syntax_error(p);
	return false;
}

static bool
expect_kw(Parser *p, const char *kw)
{
	if (accept_kw(p, kw))
		return true;
	syntax_error(p);
	return false;
}

static bool
enter(Parser *p)
{
	if (++p->depth > PARTIQL_MAX_NESTING)
	{
		fail_at(p, cur(p)->pos, 0, "Statement wasn't well formed, can't be processed: nesting too deep");
		return false;
	}
#ifndef ST_STANDALONE
	check_stack_depth();
#endif
	return true;
}

static PqlNode *
new_node(PqlNodeKind kind, int pos)
{
	PqlNode    *n = palloc0(sizeof(PqlNode));

	n->kind = kind;
	n->pos = pos;
	return n;
}

static void
add_arg(PqlNode *n, PqlNode *arg, int *cap)
{
	if (n->nargs == *cap)
	{
		*cap = *cap ? *cap * 2 : 4;
		n->args = n->args ? repalloc(n->args, sizeof(PqlNode *) * *cap)
			: palloc(sizeof(PqlNode *) * *cap);
		if (n->kind == PQL_N_MAP)
		{
			n->keys = n->keys ? repalloc(n->keys, sizeof(char *) * *cap) : palloc(sizeof(char *) * *cap);
			n->key_lens = n->key_lens ? repalloc(n->key_lens, sizeof(int) * *cap) : palloc(sizeof(int) * *cap);
		}
	}
	n->args[n->nargs++] = arg;
}

static PqlNode *
node2(PqlNodeKind kind, int pos, PqlNode *a, PqlNode *b)
{
	PqlNode    *n = new_node(kind, pos);

	n->nargs = 2;
	n->args = palloc(sizeof(PqlNode *) * 2);
	n->args[0] = a;
	n->args[1] = b;
	return n;
}

/* ---------- names and paths ---------- */

/* A table or index name: quoted, or a bare word that is not a keyword. */
static char *
parse_name(Parser *p)
{
	Tok		   *t = cur(p);

	if (t->type == T_QNAME || (t->type == T_WORD && !partiql_is_keyword(t->text, t->tlen)))
	{
		p->i++;
		return pnstrdup(t->text, t->tlen);
	}
	return syntax_error(p);
}

/* Is the current token a name that starts a path? */
static bool
at_name(Parser *p)
{
	Tok		   *t = cur(p);

	return t->type == T_QNAME || (t->type == T_WORD && !partiql_is_keyword(t->text, t->tlen));
}

static PqlPath *
parse_path(Parser *p)
{
	PqlPath    *path = palloc0(sizeof(PqlPath));
	int			cap = 4;
	Tok		   *t = cur(p);

	if (!at_name(p))
		return syntax_error(p);
	path->elems = palloc0(sizeof(PqlPathElem) * cap);
	path->elems[0].name = pnstrdup(t->text, t->tlen);
	path->elems[0].len = t->tlen;
	path->n = 1;
	p->i++;
	for (;;)
	{
		PqlPathElem e;

		memset(&e, 0, sizeof(e));
		if (accept(p, T_DOT))
		{
			t = cur(p);
			if (t->type != T_QNAME && t->type != T_WORD)
				return syntax_error(p);
			e.name = pnstrdup(t->text, t->tlen);
			e.len = t->tlen;
			p->i++;
		}
		else if (at(p, T_LBRACKET))
		{
			p->i++;
			t = cur(p);
			if (t->type == T_NUMBER)
			{
				long		v = 0;

				for (int k = 0; k < t->tlen; k++)
				{
					if (!is_digit((unsigned char) t->text[k]) || v > 2147483647L / 10)
						return fail_at(p, t->pos, t->len,
									   "Statement wasn't well formed, can't be processed: invalid list index");
					v = v * 10 + (t->text[k] - '0');
					if (v > 2147483647L)
						return fail_at(p, t->pos, t->len,
									   "Statement wasn't well formed, can't be processed: invalid list index");
				}
				e.index = (int) v;
			}
			else if (t->type == T_STRING)
			{
				e.name = pnstrdup(t->text, t->tlen);
				e.len = t->tlen;
			}
			else
				return syntax_error(p);
			p->i++;
			if (!expect(p, T_RBRACKET))
				return NULL;
		}
		else
			break;
		if (path->n >= 32)
			return fail_at(p, t->pos, t->len,
						   "Statement wasn't well formed, can't be processed: document path too deep (at most 32 elements)");
		if (path->n == cap)
		{
			cap *= 2;
			path->elems = repalloc(path->elems, sizeof(PqlPathElem) * cap);
		}
		path->elems[path->n++] = e;
	}
	return path;
}

/* ---------- values ---------- */

static PqlNode *parse_value(Parser *p);
static PqlNode *parse_cond(Parser *p);
static PqlNode *parse_operand(Parser *p);

static PqlNode *
number_literal(Parser *p, Tok *t, bool neg)
{
	char		buf[NUM_TEXT_MAX];
	char	   *text = palloc(t->tlen + 2);
	int			n;
	StErr		err;
	PqlNode    *node = new_node(PQL_N_LIT, t->pos);

	text[0] = '-';
	memcpy(text + 1, t->text, t->tlen);
	text[t->tlen + 1] = '\0';
	n = st_num_canonical(neg ? text : text + 1, neg ? t->tlen + 1 : t->tlen, buf, &err);
	if (n < 0)
	{
		if (!p->failed)
		{
			p->failed = true;
			*p->err = err;
		}
		return NULL;
	}
	node->value = av_new_str(AV_N, buf, n);
	p->i++;
	return node;
}

/* A collection's elements up to the closing token; map members are 'key': value. */
static PqlNode *
parse_collection(Parser *p, PqlNodeKind kind, TokType close)
{
	PqlNode    *n = new_node(kind, cur(p)->pos);
	int			cap = 0;

	p->i++;
	if (!enter(p))
		return NULL;
	if (!accept(p, close))
	{
		do
		{
			PqlNode    *v;
			Tok		   *key = NULL;

			if (kind == PQL_N_MAP)
			{
				key = cur(p);
				if (key->type != T_STRING)
					return syntax_error(p);
				p->i++;
				if (!expect(p, T_COLON))
					return NULL;
			}
			v = parse_value(p);
			if (v == NULL)
				return NULL;
			add_arg(n, v, &cap);
			if (key)
			{
				for (int k = 0; k < n->nargs - 1; k++)
					if (n->key_lens[k] == key->tlen && memcmp(n->keys[k], key->text, key->tlen) == 0)
					{
						char		what[400];

						snprintf(what, sizeof(what), "Duplicate keys in tuple. Key: %.*s",
								 Min(key->tlen, 255), key->text);
						return fail_at(p, key->pos, key->len, what);
					}
				n->keys[n->nargs - 1] = pnstrdup(key->text, key->tlen);
				n->key_lens[n->nargs - 1] = key->tlen;
			}
		} while (accept(p, T_COMMA));
		if (!expect(p, close))
			return NULL;
	}
	p->depth--;
	return n;
}

/* A value: literal, parameter, map, list or set. */
static PqlNode *
parse_value(Parser *p)
{
	Tok		   *t = cur(p);
	PqlNode    *n;

	switch (t->type)
	{
		case T_STRING:
			n = new_node(PQL_N_LIT, t->pos);
			n->value = av_new_str(AV_S, t->text, t->tlen);
			p->i++;
			return n;
		case T_NUMBER:
			return number_literal(p, t, false);
		case T_MINUS:
			if (p->toks[p->i + 1].type == T_NUMBER)
			{
				p->i++;
				return number_literal(p, cur(p), true);
			}
			return syntax_error(p);
		case T_PARAM:
			n = new_node(PQL_N_PARAM, t->pos);
			n->param = p->nparams++;
			p->i++;
			return n;
		case T_LBRACE:
			return parse_collection(p, PQL_N_MAP, T_RBRACE);
		case T_LBRACKET:
			return parse_collection(p, PQL_N_LIST, T_RBRACKET);
		case T_LSET:
			return parse_collection(p, PQL_N_SET, T_RSET);
		case T_WORD:
			if (word_is(t->text, t->tlen, "TRUE") || word_is(t->text, t->tlen, "FALSE"))
			{
				n = new_node(PQL_N_LIT, t->pos);
				n->value = av_new_bool(word_is(t->text, t->tlen, "TRUE"));
				p->i++;
				return n;
			}
			if (word_is(t->text, t->tlen, "NULL"))
			{
				n = new_node(PQL_N_LIT, t->pos);
				n->value = av_new_null();
				p->i++;
				return n;
			}
			return syntax_error(p);
		default:
			return syntax_error(p);
	}
}

/* ---------- operands and conditions ---------- */

static const struct
{
	const char *name;
	PqlFunc		func;
	int			nargs;
}			functions[] = {
	{"begins_with", PQL_F_BEGINS_WITH, 2},
	{"contains", PQL_F_CONTAINS, 2},
	{"attribute_exists", PQL_F_ATTRIBUTE_EXISTS, 1},
	{"attribute_not_exists", PQL_F_ATTRIBUTE_NOT_EXISTS, 1},
	{"attribute_type", PQL_F_ATTRIBUTE_TYPE, 2},
	{"size", PQL_F_SIZE, 1},
	{"list_append", PQL_F_LIST_APPEND, 2},
	{"set_add", PQL_F_SET_ADD, 2},
	{"set_delete", PQL_F_SET_DELETE, 2},
	{"if_not_exists", PQL_F_IF_NOT_EXISTS, 2},
};

static PqlNode *
parse_function(Parser *p)
{
	Tok		   *t = cur(p);
	PqlNode    *n = new_node(PQL_N_FUNC, t->pos);
	int			f = -1;
	int			cap = 0;

	for (int k = 0; k < (int) lengthof(functions); k++)
	{
		const char *name = functions[k].name;
		bool		same = (int) strlen(name) == t->tlen;

		/* function names are case-insensitive, like keywords */
		for (int c = 0; same && c < t->tlen; c++)
		{
			char		ch = t->text[c];

			if (ch >= 'A' && ch <= 'Z')
				ch += 'a' - 'A';
			same = ch == name[c];
		}
		if (same)
			f = k;
	}
	if (f < 0)
	{
		char		what[300];

		snprintf(what, sizeof(what), "Unrecognized function: %.*s", Min(t->tlen, 255), t->text);
		return fail_at(p, t->pos, t->len, what);
	}
	n->op = functions[f].func;
	p->i += 2;					/* name ( */
	if (!enter(p))
		return NULL;
	if (!at(p, T_RPAREN))
	{
		do
		{
			PqlNode    *a = parse_operand(p);

			if (a == NULL)
				return NULL;
			add_arg(n, a, &cap);
		} while (accept(p, T_COMMA));
	}
	if (!expect(p, T_RPAREN))
		return NULL;
	p->depth--;
	if (n->nargs != functions[f].nargs)
	{
		char		what[300];

		snprintf(what, sizeof(what), "Incorrect number of arguments for function %s: expected %d, got %d",
				 functions[f].name, functions[f].nargs, n->nargs);
		return fail_at(p, t->pos, t->len, what);
	}
	return n;
}

/* An operand: a path, a function call, or a value. */
static PqlNode *
parse_primary(Parser *p)
{
	Tok		   *t = cur(p);

	if (t->type == T_WORD && p->toks[p->i + 1].type == T_LPAREN &&
		!partiql_is_keyword(t->text, t->tlen))
		return parse_function(p);
	if (at_name(p))
	{
		PqlNode    *n = new_node(PQL_N_PATH, t->pos);

		n->path = parse_path(p);
		return n->path ? n : NULL;
	}
	return parse_value(p);
}

/* operand [+|- operand ...] */
static PqlNode *
parse_operand(Parser *p)
{
	PqlNode    *n = parse_primary(p);

	while (n && (at(p, T_PLUS) || at(p, T_MINUS)))
	{
		PqlNodeKind kind = at(p, T_PLUS) ? PQL_N_PLUS : PQL_N_MINUS;
		int			pos = cur(p)->pos;
		PqlNode    *r;

		p->i++;
		r = parse_primary(p);
		if (r == NULL)
			return NULL;
		n = node2(kind, pos, n, r);
	}
	return n;
}

/* [a, b] or (a, b): the right-hand side of IN */
static PqlNode *
parse_in(Parser *p, PqlNode *lhs, int pos)
{
	PqlNode    *n = new_node(PQL_N_IN, pos);
	int			cap = 0;
	TokType		close;

	add_arg(n, lhs, &cap);
	if (accept(p, T_LBRACKET))
		close = T_RBRACKET;
	else if (accept(p, T_LPAREN))
		close = T_RPAREN;
	else
		return syntax_error(p);
	do
	{
		PqlNode    *v = parse_operand(p);

		if (v == NULL)
			return NULL;
		add_arg(n, v, &cap);
	} while (accept(p, T_COMMA));
	if (!expect(p, close))
		return NULL;
	return n;
}

/* A comparison, BETWEEN, IN, IS, or an operand standing as a condition (a function). */
static PqlNode *
parse_predicate(Parser *p)
{
	PqlNode    *lhs;
	Tok		   *t;
	int			pos;

	if (at(p, T_LPAREN))
	{
		PqlNode    *n;

		p->i++;
		if (!enter(p))
			return NULL;
		n = parse_cond(p);
		if (n == NULL || !expect(p, T_RPAREN))
			return NULL;
		p->depth--;
		return n;
	}
	lhs = parse_operand(p);
	if (lhs == NULL)
		return NULL;
	t = cur(p);
	pos = t->pos;
	switch (t->type)
	{
		case T_EQ:
		case T_NE:
		case T_LT:
		case T_LE:
		case T_GT:
		case T_GE:
			{
				static const PqlCmpOp ops[] = {PQL_EQ, PQL_NE, PQL_LT, PQL_LE, PQL_GT, PQL_GE};
				PqlNode    *rhs;
				PqlNode    *n;

				p->i++;
				rhs = parse_operand(p);
				if (rhs == NULL)
					return NULL;
				n = node2(PQL_N_CMP, pos, lhs, rhs);
				n->op = ops[t->type - T_EQ];
				return n;
			}
		default:
			break;
	}
	if (accept_kw(p, "BETWEEN"))
	{
		PqlNode    *lo = parse_operand(p);
		PqlNode    *hi;
		PqlNode    *n;

		if (lo == NULL || !expect_kw(p, "AND") || (hi = parse_operand(p)) == NULL)
			return NULL;
		n = node2(PQL_N_BETWEEN, pos, lhs, lo);
		n->args = repalloc(n->args, sizeof(PqlNode *) * 3);
		n->args[2] = hi;
		n->nargs = 3;
		return n;
	}
	if (accept_kw(p, "IN"))
		return parse_in(p, lhs, pos);
	if (at_kw(p, "NOT") && p->toks[p->i + 1].type == T_WORD &&
		word_is(p->toks[p->i + 1].text, p->toks[p->i + 1].tlen, "IN"))
	{
		PqlNode    *in;
		PqlNode    *n;

		p->i += 2;
		in = parse_in(p, lhs, pos);
		if (in == NULL)
			return NULL;
		n = new_node(PQL_N_NOT, pos);
		n->nargs = 1;
		n->args = palloc(sizeof(PqlNode *));
		n->args[0] = in;
		return n;
	}
	if (accept_kw(p, "IS"))
	{
		PqlNode    *n = new_node(PQL_N_IS, pos);

		n->negated = accept_kw(p, "NOT");
		if (accept_kw(p, "MISSING"))
			n->op = false;
		else if (accept_kw(p, "NULL"))
			n->op = true;
		else
			return syntax_error(p);
		if (lhs->kind != PQL_N_PATH)
			return fail_at(p, pos, 2, "IS [NOT] MISSING and IS [NOT] NULL need a document path");
		n->nargs = 1;
		n->args = palloc(sizeof(PqlNode *));
		n->args[0] = lhs;
		return n;
	}
	/* a function that is a condition by itself */
	if (lhs->kind == PQL_N_FUNC &&
		(lhs->op == PQL_F_BEGINS_WITH || lhs->op == PQL_F_CONTAINS ||
		 lhs->op == PQL_F_ATTRIBUTE_EXISTS || lhs->op == PQL_F_ATTRIBUTE_NOT_EXISTS ||
		 lhs->op == PQL_F_ATTRIBUTE_TYPE))
		return lhs;
	return syntax_error(p);
}

static PqlNode *
parse_not(Parser *p)
{
	if (at_kw(p, "NOT"))
	{
		PqlNode    *n = new_node(PQL_N_NOT, cur(p)->pos);
		PqlNode    *a;

		p->i++;
		if (!enter(p))
			return NULL;
		a = parse_not(p);
		if (a == NULL)
			return NULL;
		p->depth--;
		n->nargs = 1;
		n->args = palloc(sizeof(PqlNode *));
		n->args[0] = a;
		return n;
	}
	return parse_predicate(p);
}

static PqlNode *
parse_and(Parser *p)
{
	PqlNode    *n = parse_not(p);

	while (n && at_kw(p, "AND"))
	{
		int			pos = cur(p)->pos;
		PqlNode    *r;

		p->i++;
		r = parse_not(p);
		if (r == NULL)
			return NULL;
		n = node2(PQL_N_AND, pos, n, r);
	}
	return n;
}

static PqlNode *
parse_cond(Parser *p)
{
	PqlNode    *n = parse_and(p);

	while (n && at_kw(p, "OR"))
	{
		int			pos = cur(p)->pos;
		PqlNode    *r;

		p->i++;
		r = parse_and(p);
		if (r == NULL)
			return NULL;
		n = node2(PQL_N_OR, pos, n, r);
	}
	return n;
}

/* ---------- statements ---------- */

static PqlStmt *
unsupported_clause(Parser *p)
{
	Tok		   *t = cur(p);
	char		what[200];

	if (t->type == T_WORD && partiql_is_keyword(t->text, t->tlen))
	{
		snprintf(what, sizeof(what), "Unsupported clause: %.*s", Min(t->tlen, 50), t->text);
		return fail_at(p, t->pos, t->len, what);
	}
	return syntax_error(p);
}

static bool
parse_where(Parser *p, PqlStmt *s, bool required)
{
	if (!accept_kw(p, "WHERE"))
	{
		if (required)
			syntax_error(p);
		return !required;
	}
	s->where = parse_cond(p);
	return s->where != NULL;
}

/* FROM "T" [."I"] */
static bool
parse_table(Parser *p, PqlStmt *s, bool allow_index)
{
	s->table = parse_name(p);
	if (s->table == NULL)
		return false;
	if (allow_index && accept(p, T_DOT))
	{
		s->index = parse_name(p);
		if (s->index == NULL)
			return false;
	}
	return true;
}

static PqlStmt *
parse_select(Parser *p, PqlStmt *s)
{
	int			cap = 0;

	s->kind = PQL_SELECT;
	if (!accept(p, T_STAR))
	{
		do
		{
			PqlPath    *path = parse_path(p);

			if (path == NULL)
				return NULL;
			if (s->nproj == cap)
			{
				cap = cap ? cap * 2 : 4;
				s->proj = s->proj ? repalloc(s->proj, sizeof(PqlPath *) * cap) : palloc(sizeof(PqlPath *) * cap);
			}
			s->proj[s->nproj++] = path;
		} while (accept(p, T_COMMA));
	}
	if (!expect_kw(p, "FROM") || !parse_table(p, s, true) || !parse_where(p, s, false))
		return NULL;
	if (accept_kw(p, "ORDER"))
	{
		if (!expect_kw(p, "BY") || (s->order_by = parse_path(p)) == NULL)
			return NULL;
		if (accept_kw(p, "DESC"))
			s->order_desc = true;
		else
			accept_kw(p, "ASC");
	}
	return s;
}

static PqlStmt *
parse_update(Parser *p, PqlStmt *s)
{
	int			cap = 0;

	s->kind = PQL_UPDATE;
	if (!parse_table(p, s, false))
		return NULL;
	if (!at_kw(p, "SET") && !at_kw(p, "REMOVE"))
		return syntax_error(p);
	while (at_kw(p, "SET") || at_kw(p, "REMOVE"))
	{
		PqlUpdateAction action = at_kw(p, "SET") ? PQL_UPD_SET : PQL_UPD_REMOVE;

		p->i++;
		do
		{
			PqlUpdateItem item;

			memset(&item, 0, sizeof(item));
			item.action = action;
			if ((item.path = parse_path(p)) == NULL)
				return NULL;
			if (action == PQL_UPD_SET &&
				(!expect(p, T_EQ) || (item.value = parse_operand(p)) == NULL))
				return NULL;
			if (s->nupdates == cap)
			{
				cap = cap ? cap * 2 : 4;
				s->updates = s->updates ? repalloc(s->updates, sizeof(PqlUpdateItem) * cap)
					: palloc(sizeof(PqlUpdateItem) * cap);
			}
			s->updates[s->nupdates++] = item;
		} while (accept(p, T_COMMA));
	}
	return parse_where(p, s, true) ? s : NULL;
}

/* RETURNING (ALL | MODIFIED) (OLD | NEW) * */
static bool
parse_returning(Parser *p, PqlStmt *s)
{
	bool		all;
	bool		old;

	if (!accept_kw(p, "RETURNING"))
		return true;
	if (accept_kw(p, "ALL"))
		all = true;
	else if (accept_kw(p, "MODIFIED"))
		all = false;
	else
		return syntax_error(p) != NULL;
	if (accept_kw(p, "OLD"))
		old = true;
	else if (accept_kw(p, "NEW"))
		old = false;
	else
		return syntax_error(p) != NULL;
	if (!expect(p, T_STAR))
		return false;
	s->returning = all ? (old ? PQL_RET_ALL_OLD : PQL_RET_ALL_NEW)
		: (old ? PQL_RET_MODIFIED_OLD : PQL_RET_MODIFIED_NEW);
	return true;
}

static PqlStmt *
parse_statement(Parser *p)
{
	PqlStmt    *s = palloc0(sizeof(PqlStmt));
	PqlStmt    *r;
	int			start = cur(p)->pos;

	if (accept_kw(p, "SELECT"))
		r = parse_select(p, s);
	else if (accept_kw(p, "INSERT"))
	{
		s->kind = PQL_INSERT;
		if (!expect_kw(p, "INTO") || !parse_table(p, s, false))
			return NULL;
		if (!accept_kw(p, "VALUE"))
			return at_kw(p, "VALUES") ? unsupported_clause(p) : syntax_error(p);
		s->value = parse_value(p);
		r = s->value ? s : NULL;
		if (r && s->value->kind != PQL_N_MAP && s->value->kind != PQL_N_PARAM)
			return fail_at(p, s->value->pos, 1,
						   "Statement wasn't well formed, can't be processed: INSERT's VALUE must be a tuple {...}");
	}
	else if (accept_kw(p, "UPDATE"))
	{
		r = parse_update(p, s);
		if (r && !parse_returning(p, s))
			return NULL;
	}
	else if (accept_kw(p, "DELETE"))
	{
		s->kind = PQL_DELETE;
		if (!expect_kw(p, "FROM") || !parse_table(p, s, false) || !parse_where(p, s, true) ||
			!parse_returning(p, s))
			return NULL;
		r = s;
	}
	else if (accept_kw(p, "EXISTS"))
	{
		if (!expect(p, T_LPAREN) || !expect_kw(p, "SELECT") || !expect(p, T_STAR) ||
			!expect_kw(p, "FROM") || !parse_table(p, s, false) || !parse_where(p, s, true) ||
			!expect(p, T_RPAREN))
			return NULL;
		s->kind = PQL_EXISTS;
		r = s;
	}
	else
	{
		if (at(p, T_WORD) || at(p, T_END))
			return fail_at(p, start, 0,
						   "Statement wasn't well formed, can't be processed: Invalid operation. Only select, insert, update, delete and exists operations are valid");
		return syntax_error(p);
	}
	if (r == NULL)
		return NULL;
	accept(p, T_SEMI);
	if (!at(p, T_END))
		return unsupported_clause(p);
	return r;
}

PqlStmt *
partiql_parse(const char *text, int len, StErr *err)
{
	Parser		p;
	PqlStmt    *s;

	memset(&p, 0, sizeof(p));
	p.src = text;
	p.srclen = len;
	p.err = err;
	if (len > PARTIQL_MAX_STATEMENT)
	{
		st_fail(err, ST_ERR_VALIDATION,
				"1 validation error detected: Value at 'statement' failed to satisfy constraint: Member must have length less than or equal to %d",
				PARTIQL_MAX_STATEMENT);
		return NULL;
	}
	for (int i = 0; i < len; i++)
		if (text[i] == '\0')
		{
			st_fail(err, ST_ERR_VALIDATION,
					"Statement wasn't well formed, can't be processed: the statement holds the character U+0000");
			return NULL;
		}
	lex(&p);
	s = parse_statement(&p);
	if (s == NULL)
	{
		if (!p.failed)
			syntax_error(&p);
		return NULL;
	}
	s->nparams = p.nparams;
	return s;
}
