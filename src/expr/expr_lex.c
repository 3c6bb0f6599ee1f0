/*-------------------------------------------------------------------------
 *
 * expr_lex.c
 *		The tokenizer of DynamoDB's expression language.
 *
 * The whole text is split up front into an array of tokens, so that the
 * parser can look ahead freely and syntax errors can quote the tokens
 * around the offending one, as DynamoDB's messages do.  Lexing never
 * fails: a character that starts no token becomes a TK_INVALID token and
 * the parser reports it as a syntax error in context.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

static bool
is_word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		(c >= '0' && c <= '9') || c == '_';
}

static bool
is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Length of a word starting at text[i]. */
static int
word_len(const char *text, int len, int i)
{
	int			j = i;

	while (j < len && is_word_char((unsigned char) text[j]))
		j++;
	return j - i;
}

/* Type and length of the operator or punctuation at text[i]. */
static ExprTokType
punct(const char *text, int len, int i, int *toklen)
{
	char		c = text[i];
	char		next = i + 1 < len ? text[i + 1] : '\0';

	*toklen = 1;
	switch (c)
	{
		case '(':
			return TK_LPAREN;
		case ')':
			return TK_RPAREN;
		case '[':
			return TK_LBRACKET;
		case ']':
			return TK_RBRACKET;
		case ',':
			return TK_COMMA;
		case '.':
			return TK_DOT;
		case '=':
			return TK_EQ;
		case '+':
			return TK_PLUS;
		case '-':
			return TK_MINUS;
		case '<':
			if (next == '>' || next == '=')
			{
				*toklen = 2;
				return next == '>' ? TK_NE : TK_LE;
			}
			return TK_LT;
		case '>':
			if (next == '=')
			{
				*toklen = 2;
				return TK_GE;
			}
			return TK_GT;
		default:
			return TK_INVALID;
	}
}

/* The token starting at text[i] (not whitespace). */
static ExprToken
next_token(const char *text, int len, int i)
{
	ExprToken	t;
	unsigned char c = (unsigned char) text[i];

	t.start = i;
	t.match = -1;
	if ((c == '#' || c == ':') && word_len(text, len, i + 1) > 0)
	{
		t.type = c == '#' ? TK_NAME_PH : TK_VALUE_PH;
		t.len = 1 + word_len(text, len, i + 1);
	}
	else if (c >= '0' && c <= '9')
	{
		/* "1abc" is one bad token, not a number followed by a name */
		t.len = word_len(text, len, i);
		t.type = TK_NUMBER;
		for (int k = 0; k < t.len; k++)
			if (text[i + k] < '0' || text[i + k] > '9')
				t.type = TK_INVALID;
	}
	else if (is_word_char(c))
	{
		t.type = TK_IDENT;
		t.len = word_len(text, len, i);
	}
	else
	{
		t.type = punct(text, len, i, &t.len);
		/* a character outside the language is the whole of it, not its first byte */
		if (t.type == TK_INVALID && c >= 0xC0)
			while (i + t.len < len && ((unsigned char) text[i + t.len] & 0xC0) == 0x80)
				t.len++;
	}
	return t;
}

/* Record for every '(' the index of its ')', so redundant parentheses can be spotted. */
static void
match_parens(ExprToken *toks, int n)
{
	int		   *stack = palloc(sizeof(int) * (n + 1));
	int			top = 0;

	for (int i = 0; i < n; i++)
	{
		if (toks[i].type == TK_LPAREN)
			stack[top++] = i;
		else if (toks[i].type == TK_RPAREN && top > 0)
			toks[stack[--top]].match = i;
	}
	pfree(stack);
}

ExprToken *
expr_lex(const char *text, int len, int *ntokens)
{
	/* every token but EOF takes at least one byte */
	ExprToken  *toks = palloc(sizeof(ExprToken) * (len + 1));
	int			n = 0;
	int			i = 0;

	for (;;)
	{
		while (i < len && is_space((unsigned char) text[i]))
			i++;
		if (i >= len)
			break;
		toks[n] = next_token(text, len, i);
		i += toks[n].len;
		n++;
	}
	toks[n].type = TK_EOF;
	toks[n].start = len;
	toks[n].len = 0;
	toks[n].match = -1;
	n++;
	match_parens(toks, n);
	*ntokens = n;
	return toks;
}
