/*-------------------------------------------------------------------------
 *
 * json_reader.h
 *		A tiny JSON reader for the unit tests' data: whitespace, punctuation,
 *		strings without escapes.  Each test builds its own values on it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef JSON_READER_H
#define JSON_READER_H

#include <stdbool.h>

typedef struct Reader
{
	const char *s;
} Reader;

static inline void
skip_ws(Reader *r)
{
	while (*r->s == ' ' || *r->s == '\n' || *r->s == '\t')
		r->s++;
}

static inline bool
eat(Reader *r, char c)
{
	skip_ws(r);
	if (*r->s != c)
		return false;
	r->s++;
	return true;
}

/* A JSON string (no escapes needed in tests); returns its length. */
static inline int
read_string(Reader *r, const char **start)
{
	int			n = 0;

	eat(r, '"');
	*start = r->s;
	while (r->s[n] != '"' && r->s[n] != '\0')
		n++;
	r->s += n + (r->s[n] == '"');
	return n;
}

#endif							/* JSON_READER_H */
