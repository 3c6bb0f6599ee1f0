/*-------------------------------------------------------------------------
 *
 * http_wire.c
 *		HTTP/1.1 on the wire (RFC 9112): a request's head parsed, a chunked
 *		body decoded, percent-encoding undone.
 *
 * The endpoint reads and writes its connections itself (http_dispatch.c);
 * this is the part that reads bytes as HTTP.  It runs on the workers' I/O
 * threads as well as on their main threads, so it uses the C library only:
 * no palloc, no ereport.  It is strict where leniency would let a proxy in
 * front read a request otherwise than the endpoint does (RFC 9112, 2.2 and
 * 5): a field name must be a token, no control character may stand in a
 * field value or the request line, a line folded onto the next (obs-fold)
 * and a carriage return anywhere but before a line feed are refused; a line
 * may end with a bare line feed, as section 2.2 allows (a line of the
 * chunked coding may not: section 7.1); an HTTP/1.1 request needs a Host
 * (section 3.2).
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http_wire.h"

#define WIRE_MIN(a, b) ((a) < (b) ? (a) : (b))
#define WIRE_MAX(a, b) ((a) > (b) ? (a) : (b))

/* RFC 9110, 5.6.2: tchar. */
static inline bool
is_tchar(unsigned char c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return true;
	switch (c)
	{
		case '!': case '#': case '$': case '%': case '&': case '\'': case '*':
		case '+': case '-': case '.': case '^': case '_': case '`': case '|': case '~':
			return true;
		default:
			return false;
	}
}

bool
http_wire_is_token(const char *s)
{
	if (s == NULL || *s == '\0')
		return false;
	for (; *s; s++)
		if (!is_tchar((unsigned char) *s))
			return false;
	return true;
}

/*
 * Where the head ends in in[0..len): the offset just past its empty line,
 * or 0 when it has not arrived yet.  from: how far an earlier call looked
 * (a head arriving a byte at a time is not scanned again from its start).
 */
size_t
http_wire_head_end(const char *in, size_t len, size_t from)
{
	size_t		i = from > 3 ? from - 3 : 0;

	while (i < len)
	{
		const char *lf = memchr(in + i, '\n', len - i);
		size_t		at;

		if (lf == NULL)
			return 0;
		at = lf - in;
		/* "\n\n" or "\n\r\n" ends the head */
		if (at + 1 < len && in[at + 1] == '\n')
			return at + 2;
		if (at + 2 < len && in[at + 1] == '\r' && in[at + 2] == '\n')
			return at + 3;
		i = at + 1;
	}
	return 0;
}

static inline int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Undo percent-encoding in place (and '+' as a space in a query); a '%'
 * not followed by two hex digits stays as it is.
 */
void
http_wire_unescape(char *s, bool plus)
{
	char	   *o = s;

	for (; *s; s++)
	{
		int			h,
					l;

		if (*s == '%' && (h = hex_value(s[1])) >= 0 && (l = hex_value(s[2])) >= 0)
		{
			*o++ = (char) (h * 16 + l);
			s += 2;
		}
		else if (plus && *s == '+')
			*o++ = ' ';
		else
			*o++ = *s;
	}
	*o = '\0';
}

/*
 * The most header fields and query arguments a head may have: a head of
 * 16 kB could otherwise hold thousands, each an entry of 16 bytes, far
 * more memory per connection than the head itself.
 */
#define WIRE_MAX_FIELDS 256

/*
 * Split a query string (in place) into its decoded name=value pairs; false
 * when it has more than WIRE_MAX_FIELDS (*many) or memory runs out.
 */
static bool
split_query(char *q, HttpHead *head, bool *many)
{
	int			n = 1;

	for (const char *p = q; *p; p++)
		n += (*p == '&');
	*many = n > WIRE_MAX_FIELDS;
	if (*many)
		return false;
	head->query = malloc(sizeof(HttpHeader) * n);
	if (head->query == NULL)
		return false;
	head->nquery = 0;
	while (q != NULL)
	{
		char	   *amp = strchr(q, '&');
		char	   *eq;

		if (amp)
			*amp = '\0';
		if (*q != '\0')
		{
			eq = strchr(q, '=');
			if (eq)
				*eq = '\0';
			http_wire_unescape(q, true);
			if (eq)
				http_wire_unescape(eq + 1, true);
			head->query[head->nquery].name = q;
			head->query[head->nquery].value = eq ? eq + 1 : "";
			head->nquery++;
		}
		q = amp ? amp + 1 : NULL;
	}
	return true;
}

/*
 * Parse the head in[0..len) (len from http_wire_head_end) into head, its
 * strings in a malloc'd copy.  NULL when it is well formed, else why not
 * (head is then empty).
 */
const char *
http_wire_parse_head(const char *in, size_t len, HttpHead *head)
{
	char	   *buf;
	char	   *p;
	char	   *end;
	char	   *line;
	char	   *sp;
	int			lines = 0;
	const char *why = NULL;

	memset(head, 0, sizeof(*head));
	buf = malloc(len + 1);
	if (buf == NULL)
		return "Out of memory";
	memcpy(buf, in, len);
	buf[len] = '\0';
	head->buf = buf;
	end = buf + len;
	for (p = buf; p < end; p++)
		lines += (*p == '\n');
	if (lines > WIRE_MAX_FIELDS + 2)
	{
		why = "Too many header fields";
		goto bad;
	}
	head->headers = malloc(sizeof(HttpHeader) * WIRE_MAX(lines, 1));
	if (head->headers == NULL)
	{
		why = "Out of memory";
		goto bad;
	}

	/* empty lines before the request line are ignored (RFC 9112, 2.2) */
	p = buf;
	while (p < end && (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')))
		p += (*p == '\r') ? 2 : 1;

	/* each line: cut at its line feed, and the carriage return before it */
	line = NULL;
	while (p < end)
	{
		char	   *lf = memchr(p, '\n', end - p);
		char	   *eol;

		if (lf == NULL)
			break;
		eol = lf;
		if (eol > p && eol[-1] == '\r')
			eol--;
		*eol = '\0';
		*lf = '\0';
		for (char *c = p; c < eol; c++)
		{
			unsigned char ch = (unsigned char) *c;

			/* no control character but a tab; no tab in the request line */
			if ((ch < 0x20 && (ch != '\t' || line == NULL)) || ch == 0x7f)
			{
				why = "Invalid character in the request's head";
				goto bad;
			}
		}
		if (line == NULL)
		{
			char	   *method = p;
			char	   *target;
			char	   *version;
			char	   *q;

			line = p;
			sp = strchr(method, ' ');
			if (sp == NULL)
			{
				why = "Malformed request line";
				goto bad;
			}
			*sp = '\0';
			target = sp + 1;
			sp = strchr(target, ' ');
			if (sp == NULL)
			{
				why = "Malformed request line";
				goto bad;
			}
			*sp = '\0';
			version = sp + 1;
			if (!http_wire_is_token(method) || *target == '\0')
			{
				why = "Malformed request line";
				goto bad;
			}
			for (const unsigned char *t = (const unsigned char *) target; *t; t++)
				if (*t <= 0x20 || *t >= 0x7f)
				{
					why = "Malformed request line";
					goto bad;
				}
			if (strcmp(version, "HTTP/1.1") == 0)
				head->minor = 1;
			else if (strcmp(version, "HTTP/1.0") == 0)
				head->minor = 0;
			else
			{
				why = "Unsupported HTTP version";
				goto bad;
			}
			head->method = method;
			q = strchr(target, '?');
			if (q)
			{
				bool		many;

				*q = '\0';
				if (!split_query(q + 1, head, &many))
				{
					why = many ? "Too many query arguments" : "Out of memory";
					goto bad;
				}
			}
			http_wire_unescape(target, false);
			head->url = target;
		}
		else if (p == eol)
			break;				/* the empty line: the head's end */
		else
		{
			char	   *colon;
			char	   *v;
			char	   *ve;

			/* a line folded onto the previous one (obs-fold) */
			if (*p == ' ' || *p == '\t')
			{
				why = "Obsolete line folding";
				goto bad;
			}
			colon = strchr(p, ':');
			if (colon == NULL)
			{
				why = "Invalid header field";
				goto bad;
			}
			*colon = '\0';
			if (!http_wire_is_token(p))
			{
				why = "Invalid header field name";
				goto bad;
			}
			v = colon + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			ve = v + strlen(v);
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
				*--ve = '\0';
			head->headers[head->nheaders].name = p;
			head->headers[head->nheaders].value = v;
			head->nheaders++;
		}
		p = lf + 1;
	}
	if (line == NULL)
	{
		why = "Malformed request line";
		goto bad;
	}
	/* RFC 9112, 3.2: an HTTP/1.1 request without Host is refused */
	if (head->minor == 1 && http_wire_header(head, "Host") == NULL)
	{
		why = "Missing Host header";
		goto bad;
	}
	if (head->query == NULL)
	{
		bool		many;
		char		none[1] = "";

		if (!split_query(none, head, &many))
		{
			why = "Out of memory";
			goto bad;
		}
	}
	return NULL;

bad:
	http_wire_head_free(head);
	return why;
}

void
http_wire_head_free(HttpHead *head)
{
	free(head->buf);
	free(head->headers);
	free(head->query);
	memset(head, 0, sizeof(*head));
}

/* The first header of that name (case-insensitive), or NULL. */
const char *
http_wire_header(const HttpHead *head, const char *name)
{
	for (int i = 0; i < head->nheaders; i++)
		if (strcasecmp(head->headers[i].name, name) == 0)
			return head->headers[i].value;
	return NULL;
}

/* ---------- chunked transfer coding (RFC 9112, 7.1) ---------- */

/* The longest chunk-size line or trailer line taken, the most trailers. */
#define CHUNK_LINE_MAX 4096
#define CHUNK_MAX_TRAILERS 64

/*
 * Decode what in[0..len) holds of a chunked body: *used bytes of it are
 * consumed, of which the span *data of *data_len (at most one per call) is
 * the body's.  WIRE_DONE once the last chunk and its trailers are read;
 * WIRE_MORE when it needs more input than is there (call again with more,
 * or, when it consumed something, with the rest); WIRE_BAD when malformed.
 */
HttpWireResult
http_wire_chunked(HttpChunked *st, const char *in, size_t len, size_t *used,
				  const char **data, size_t *data_len)
{
	size_t		pos = 0;

	*data = NULL;
	*data_len = 0;
	*used = 0;
	for (;;)
	{
		const char *lf;
		size_t		line_len;

		switch (st->state)
		{
			case CHUNK_SIZE:
			case CHUNK_TRAILER:
				lf = memchr(in + pos, '\n', len - pos);
				if (lf == NULL)
				{
					*used = pos;
					return (len - pos > CHUNK_LINE_MAX) ? WIRE_BAD : WIRE_MORE;
				}
				line_len = lf - (in + pos);
				if (line_len > CHUNK_LINE_MAX)
					return WIRE_BAD;
				/* CRLF, not a bare LF, ends a line of the chunked coding */
				if (line_len == 0 || in[pos + line_len - 1] != '\r')
					return WIRE_BAD;
				line_len--;
				if (st->state == CHUNK_TRAILER)
				{
					if (line_len > 0 && ++st->trailers > CHUNK_MAX_TRAILERS)
						return WIRE_BAD;
					/* trailer fields are read and dropped; an empty line ends */
					for (size_t i = 0; i < line_len; i++)
					{
						unsigned char c = (unsigned char) in[pos + i];

						if ((c < 0x20 && c != '\t') || c == 0x7f)
							return WIRE_BAD;
					}
					pos = lf - in + 1;
					if (line_len == 0)
					{
						*used = pos;
						return WIRE_DONE;
					}
					continue;
				}
				else
				{
					uint64_t	size = 0;
					size_t		i = 0;

					for (; i < line_len; i++)
					{
						int			h = hex_value((unsigned char) in[pos + i]);

						if (h < 0)
							break;
						/* sixteen hex digits would overflow; far past any bound */
						if (i >= 15)
							return WIRE_BAD;
						size = size * 16 + h;
					}
					if (i == 0)
						return WIRE_BAD;
					/* what may follow the size: ;extensions, whitespace before */
					for (; i < line_len; i++)
					{
						unsigned char c = (unsigned char) in[pos + i];

						if (c == ';')
							break;
						if (c != ' ' && c != '\t')
							return WIRE_BAD;
					}
					if (i < line_len ? in[pos + i] != ';' : i > 0 && (in[pos + i - 1] == ' ' || in[pos + i - 1] == '\t'))
						return WIRE_BAD;
					for (; i < line_len; i++)
					{
						unsigned char c = (unsigned char) in[pos + i];

						if ((c < 0x20 && c != '\t') || c == 0x7f)
							return WIRE_BAD;
					}
					pos = lf - in + 1;
					st->left = size;
					st->state = size == 0 ? CHUNK_TRAILER : CHUNK_DATA;
					continue;
				}
			case CHUNK_DATA:
				if (pos == len)
				{
					*used = pos;
					return WIRE_MORE;
				}
				*data = in + pos;
				*data_len = (size_t) WIRE_MIN((uint64_t) (len - pos), st->left);
				st->left -= *data_len;
				pos += *data_len;
				if (st->left == 0)
					st->state = CHUNK_DATA_END;
				*used = pos;
				return WIRE_MORE;
			case CHUNK_DATA_END:
				/* the CRLF after a chunk's data */
				if (pos == len)
				{
					*used = pos;
					return WIRE_MORE;
				}
				if (in[pos] != '\r')
					return WIRE_BAD;
				if (pos + 1 == len)
				{
					*used = pos;
					return WIRE_MORE;
				}
				if (in[pos + 1] != '\n')
					return WIRE_BAD;
				pos += 2;
				st->state = CHUNK_SIZE;
				continue;
		}
		return WIRE_BAD;
	}
}

/* The reason phrase of a status the endpoint answers with. */
const char *
http_wire_reason(int status)
{
	switch (status)
	{
		case 100:
			return "Continue";
		case 200:
			return "OK";
		case 400:
			return "Bad Request";
		case 403:
			return "Forbidden";
		case 404:
			return "Not Found";
		case 413:
			return "Content Too Large";
		case 431:
			return "Request Header Fields Too Large";
		case 500:
			return "Internal Server Error";
		case 503:
			return "Service Unavailable";
		default:
			return status < 300 ? "OK" : status < 500 ? "Bad Request" : "Internal Server Error";
	}
}
