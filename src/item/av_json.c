/*-------------------------------------------------------------------------
 *
 * av_json.c
 *		A typed item straight from JSON text, without jsonb in between:
 *		the reader of DynamoDB's export format ({"Item": {...}} per line).
 *
 * An import reads millions of lines, and going through jsonb costs each
 * line a JsonbValue tree, its sorted binary form, and a walk of that to
 * build the item: more than twice the work of the item itself.  This
 * parser reads the text once and builds the Av tree directly, by the same
 * rules av_jsonb.c applies to a typed AttributeValue (exactly one of the
 * ten type descriptors, unknown members ignored, the right JSON kind under
 * each, the same messages), and normalises it as any request's item is.
 * Duplicate member names keep the last value, as jsonb does.
 *
 * The text must be valid UTF-8 (the caller checks the encoding).  JSON's
 * grammar is RFC 8259's; \u0000 is refused, as jsonb refuses it.  Nesting
 * is bounded before recursion could go deep.
 *
 * Pure C: no backend needed.
 *
 *-------------------------------------------------------------------------
 */
#include "av.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As av_jsonb.c: AttributeValues nested deeper than this are refused. */
#define AV_JSON_MAX_DEPTH 64

typedef struct JsonReader
{
	const char *s;
	const char *p;
	const char *end;
	StErr	   *err;
	bool		failed;
} JsonReader;

typedef enum JKind
{
	JK_STRING,
	JK_NUMBER,
	JK_TRUE,
	JK_FALSE,
	JK_NULL,
	JK_OBJECT,
	JK_ARRAY,
	JK_BAD
} JKind;

static bool
syntax(JsonReader *r, const char *what)
{
	if (!r->failed)
		st_fail(r->err, ST_ERR_SERIALIZATION, "Malformed JSON: %s at byte %d", what,
				(int) (r->p - r->s) + 1);
	r->failed = true;
	return false;
}

static void
skip_ws(JsonReader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

/* The kind of the value at r->p (after white space), without consuming it. */
static JKind
peek(JsonReader *r)
{
	skip_ws(r);
	if (r->p >= r->end)
		return JK_BAD;
	switch (*r->p)
	{
		case '"':
			return JK_STRING;
		case '{':
			return JK_OBJECT;
		case '[':
			return JK_ARRAY;
		case 't':
			return JK_TRUE;
		case 'f':
			return JK_FALSE;
		case 'n':
			return JK_NULL;
		default:
			return (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')) ? JK_NUMBER : JK_BAD;
	}
}

/* DynamoDB's name for a JSON token, as av_jsonb.c's jbv_kind. */
static const char *
kind_name(JKind k)
{
	switch (k)
	{
		case JK_STRING:
			return "STRING_VALUE";
		case JK_NUMBER:
			return "NUMBER_VALUE";
		case JK_TRUE:
			return "TRUE_VALUE";
		case JK_FALSE:
			return "FALSE_VALUE";
		case JK_NULL:
			return "NULL_VALUE";
		case JK_OBJECT:
			return "START_OBJECT";
		case JK_ARRAY:
			return "START_ARRAY";
		default:
			return "VALUE";
	}
}

static bool
expect(JsonReader *r, char c)
{
	skip_ws(r);
	if (r->p >= r->end || *r->p != c)
	{
		char		what[32];

		snprintf(what, sizeof(what), "'%c' expected", c);
		return syntax(r, what);
	}
	r->p++;
	return true;
}

static int
hex4(const char *p)
{
	int			v = 0;

	for (int i = 0; i < 4; i++)
	{
		char		c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static int
put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80)
	{
		o[0] = (char) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		o[0] = (char) (0xC0 | (cp >> 6));
		o[1] = (char) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		o[0] = (char) (0xE0 | (cp >> 12));
		o[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char) (0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char) (0xF0 | (cp >> 18));
	o[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}

/*
 * A string at r->p: its bytes, unescaped, in *out (pointing into the text
 * when it holds no escape), its length in *len.
 */
static bool
read_string(JsonReader *r, const char **out, int *len)
{
	const char *start;
	char	   *buf;
	char	   *o;

	if (!expect(r, '"'))
		return false;
	start = r->p;
	while (r->p < r->end && *r->p != '"' && *r->p != '\\' && (unsigned char) *r->p >= 0x20)
		r->p++;
	if (r->p < r->end && *r->p == '"')
	{
		*out = start;
		*len = (int) (r->p - start);
		r->p++;
		return true;
	}
	/* escapes (or an error): unescape into a buffer, never longer than the text */
	buf = palloc(r->end - start + 1);
	memcpy(buf, start, r->p - start);
	o = buf + (r->p - start);
	while (r->p < r->end && *r->p != '"')
	{
		unsigned char c = (unsigned char) *r->p;

		if (c < 0x20)
			return syntax(r, "control character in a string");
		if (c != '\\')
		{
			*o++ = (char) c;
			r->p++;
			continue;
		}
		if (r->end - r->p < 2)
			return syntax(r, "unterminated escape");
		r->p++;
		switch (*r->p)
		{
			case '"':
			case '\\':
			case '/':
				*o++ = *r->p++;
				break;
			case 'b':
				*o++ = '\b', r->p++;
				break;
			case 'f':
				*o++ = '\f', r->p++;
				break;
			case 'n':
				*o++ = '\n', r->p++;
				break;
			case 'r':
				*o++ = '\r', r->p++;
				break;
			case 't':
				*o++ = '\t', r->p++;
				break;
			case 'u':
				{
					int			cp;

					if (r->end - r->p < 5 || (cp = hex4(r->p + 1)) < 0)
						return syntax(r, "bad \\u escape");
					r->p += 5;
					if (cp >= 0xD800 && cp <= 0xDBFF)
					{
						int			lo;

						if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' ||
							(lo = hex4(r->p + 2)) < 0xDC00 || lo > 0xDFFF)
							return syntax(r, "lone Unicode high surrogate");
						r->p += 6;
						cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					}
					else if (cp >= 0xDC00 && cp <= 0xDFFF)
						return syntax(r, "lone Unicode low surrogate");
					if (cp == 0)
					{
						if (!r->failed)
							st_fail(r->err, ST_ERR_VALIDATION,
									"\\u0000 cannot be stored: an item cannot hold the character U+0000");
						r->failed = true;
						return false;
					}
					o += put_utf8(o, (unsigned int) cp);
					break;
				}
			default:
				return syntax(r, "bad escape");
		}
	}
	if (r->p >= r->end)
		return syntax(r, "unterminated string");
	r->p++;
	*out = buf;
	*len = (int) (o - buf);
	return true;
}

static bool
skip_value(JsonReader *r, int depth);

/* A literal or a number, checked and skipped. */
static bool
skip_scalar(JsonReader *r, JKind k)
{
	const char *lit = k == JK_TRUE ? "true" : k == JK_FALSE ? "false" : "null";

	if (k == JK_NUMBER)
	{
		const char *q = r->p;

		if (*q == '-')
			q++;
		if (q >= r->end || !(*q >= '0' && *q <= '9'))
			return syntax(r, "bad number");
		if (*q == '0')
			q++;
		else
			while (q < r->end && *q >= '0' && *q <= '9')
				q++;
		if (q < r->end && *q == '.')
		{
			q++;
			if (q >= r->end || !(*q >= '0' && *q <= '9'))
				return syntax(r, "bad number");
			while (q < r->end && *q >= '0' && *q <= '9')
				q++;
		}
		if (q < r->end && (*q == 'e' || *q == 'E'))
		{
			q++;
			if (q < r->end && (*q == '+' || *q == '-'))
				q++;
			if (q >= r->end || !(*q >= '0' && *q <= '9'))
				return syntax(r, "bad number");
			while (q < r->end && *q >= '0' && *q <= '9')
				q++;
		}
		r->p = q;
		return true;
	}
	if (r->end - r->p < (long) strlen(lit) || strncmp(r->p, lit, strlen(lit)) != 0)
		return syntax(r, "bad literal");
	r->p += strlen(lit);
	return true;
}

/* Any JSON value, checked and skipped (an ignored member). */
static bool
skip_value(JsonReader *r, int depth)
{
	JKind		k = peek(r);
	const char *s;
	int			len;

	if (depth > 2 * AV_JSON_MAX_DEPTH + 8)
		return syntax(r, "nested too deeply");
	switch (k)
	{
		case JK_STRING:
			return read_string(r, &s, &len);
		case JK_OBJECT:
			r->p++;
			if (peek(r) == JK_BAD && r->p < r->end && *r->p == '}')
				return r->p++, true;
			for (;;)
			{
				if (!read_string(r, &s, &len) || !expect(r, ':') || !skip_value(r, depth + 1))
					return false;
				skip_ws(r);
				if (r->p < r->end && *r->p == ',')
				{
					r->p++;
					continue;
				}
				return expect(r, '}');
			}
		case JK_ARRAY:
			r->p++;
			if (peek(r) == JK_BAD && r->p < r->end && *r->p == ']')
				return r->p++, true;
			for (;;)
			{
				if (!skip_value(r, depth + 1))
					return false;
				skip_ws(r);
				if (r->p < r->end && *r->p == ',')
				{
					r->p++;
					continue;
				}
				return expect(r, ']');
			}
		case JK_BAD:
			return syntax(r, "a value expected");
		default:
			return skip_scalar(r, k);
	}
}

static Av  *typed_value(JsonReader *r, int depth);

static bool
fail_kind(JsonReader *r, JKind k, const char *expected)
{
	if (!r->failed)
		st_fail(r->err, ST_ERR_SERIALIZATION, "%s cannot be converted to %s", kind_name(k), expected);
	r->failed = true;
	return false;
}

typedef struct MemberRef
{
	const char *name;
	int			len;
	int			index;
} MemberRef;

static int
member_ref_cmp(const void *a, const void *b)
{
	const MemberRef *x = a;
	const MemberRef *y = b;
	int			c = memcmp(x->name, y->name, Min(x->len, y->len));

	if (c != 0)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->index - y->index;
}

/* Duplicate names in a map: the last one stays, as in jsonb. */
static void
dedupe_members(Av *map)
{
	MemberRef  *refs;
	bool	   *drop;
	int			m = 0;
	bool		any = false;

	if (map->n < 2)
		return;
	if (map->n <= 16)
	{
		/* small maps (most items): pairs compared, no allocation */
		for (int i = 0; i < map->n && !any; i++)
			for (int j = i + 1; j < map->n && !any; j++)
				any = map->members[i].name_len == map->members[j].name_len &&
					memcmp(map->members[i].name, map->members[j].name, map->members[i].name_len) == 0;
		if (!any)
			return;
	}
	refs = palloc(sizeof(MemberRef) * map->n);
	for (int i = 0; i < map->n; i++)
	{
		refs[i].name = map->members[i].name;
		refs[i].len = map->members[i].name_len;
		refs[i].index = i;
	}
	qsort(refs, map->n, sizeof(MemberRef), member_ref_cmp);
	drop = palloc0(sizeof(bool) * map->n);
	for (int i = 0; i + 1 < map->n; i++)
		if (refs[i].len == refs[i + 1].len && memcmp(refs[i].name, refs[i + 1].name, refs[i].len) == 0)
			drop[refs[i].index] = any = true;
	if (any)
	{
		for (int i = 0; i < map->n; i++)
			if (!drop[i])
				map->members[m++] = map->members[i];
		map->n = m;
	}
	pfree(refs);
	pfree(drop);
}

/* An object of typed AttributeValues (an item, or an M's value). */
static Av  *
typed_map(JsonReader *r, int depth)
{
	Av		   *map = av_new(AV_M);

	if (!expect(r, '{'))
		return NULL;
	skip_ws(r);
	if (r->p < r->end && *r->p == '}')
	{
		r->p++;
		return map;
	}
	for (;;)
	{
		const char *name;
		int			len;
		Av		   *v;

		if (!read_string(r, &name, &len) || !expect(r, ':'))
			return NULL;
		v = typed_value(r, depth + 1);
		if (v == NULL)
			return NULL;
		av_map_put_nocheck(map, name, len, v);
		skip_ws(r);
		if (r->p < r->end && *r->p == ',')
		{
			r->p++;
			continue;
		}
		if (!expect(r, '}'))
			return NULL;
		dedupe_members(map);
		return map;
	}
}

/* The array under L or a set descriptor. */
static Av  *
typed_array(JsonReader *r, AvType type, int depth)
{
	Av		   *list = av_new(type);

	if (!expect(r, '['))
		return NULL;
	skip_ws(r);
	if (r->p < r->end && *r->p == ']')
	{
		r->p++;
		return list;
	}
	for (;;)
	{
		Av		   *v;

		if (type == AV_L)
			v = typed_value(r, depth + 1);
		else
		{
			JKind		k = peek(r);
			const char *s;
			int			len;

			if (k != JK_STRING)
				return fail_kind(r, k, "String"), NULL;
			if (!read_string(r, &s, &len))
				return NULL;
			v = av_new_str(av_set_member_type(type), s, len);
		}
		if (v == NULL)
			return NULL;
		av_append(list, v);
		skip_ws(r);
		if (r->p < r->end && *r->p == ',')
		{
			r->p++;
			continue;
		}
		if (!expect(r, ']'))
			return NULL;
		return list;
	}
}

/* The value under a type descriptor. */
static Av  *
descriptor_value(JsonReader *r, AvType type, int depth)
{
	JKind		k = peek(r);
	const char *s;
	int			len;

	switch (type)
	{
		case AV_S:
		case AV_N:
		case AV_B:
			if (k != JK_STRING)
				return fail_kind(r, k, "String"), NULL;
			if (!read_string(r, &s, &len))
				return NULL;
			return av_new_str(type, s, len);
		case AV_BOOL:
		case AV_NULL:
			if (k != JK_TRUE && k != JK_FALSE)
				return fail_kind(r, k, "Boolean"), NULL;
			if (!skip_scalar(r, k))
				return NULL;
			if (type == AV_BOOL)
				return av_new_bool(k == JK_TRUE);
			if (k != JK_TRUE)
			{
				st_fail(r->err, ST_ERR_VALIDATION,
						"One or more parameter values were invalid: Null attribute value types must have the value of true");
				r->failed = true;
				return NULL;
			}
			return av_new_null();
		case AV_M:
			if (k != JK_OBJECT)
				return fail_kind(r, k, "Map"), NULL;
			return typed_map(r, depth);
		default:
			if (k != JK_ARRAY)
				return fail_kind(r, k, type == AV_L ? "List" : "Set"), NULL;
			return typed_array(r, type, depth);
	}
}

/*
 * One typed AttributeValue: an object with exactly one of the ten type
 * descriptors (unknown members skipped; a descriptor given twice keeps the
 * last, as jsonb would).
 */
static Av  *
typed_value(JsonReader *r, int depth)
{
	JKind		k = peek(r);
	Av		   *found = NULL;
	int			type = -1;
	bool		several = false;

	if (depth > AV_JSON_MAX_DEPTH)
	{
		st_fail(r->err, ST_ERR_VALIDATION,
				"Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit");
		r->failed = true;
		return NULL;
	}
	if (k != JK_OBJECT)
	{
		if (!r->failed)
			st_fail(r->err, ST_ERR_VALIDATION,
					"Supplied AttributeValue has an invalid shape: %s found where an object with exactly one of the supported datatypes was expected",
					kind_name(k));
		r->failed = true;
		return NULL;
	}
	r->p++;
	skip_ws(r);
	if (r->p < r->end && *r->p == '}')
		r->p++;
	else
		for (;;)
		{
			const char *name;
			int			len;
			int			t;

			if (!read_string(r, &name, &len) || !expect(r, ':'))
				return NULL;
			t = av_type_from_name(name, len);
			if (t < 0)
			{
				if (!skip_value(r, depth))
					return NULL;
			}
			else
			{
				if (type >= 0 && t != type)
					several = true;
				type = t;
				found = descriptor_value(r, (AvType) t, depth);
				if (found == NULL)
					return NULL;
			}
			skip_ws(r);
			if (r->p < r->end && *r->p == ',')
			{
				r->p++;
				continue;
			}
			if (!expect(r, '}'))
				return NULL;
			break;
		}
	if (type < 0)
	{
		st_fail(r->err, ST_ERR_VALIDATION,
				"Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
		r->failed = true;
		return NULL;
	}
	if (several)
	{
		st_fail(r->err, ST_ERR_VALIDATION,
				"Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes");
		r->failed = true;
		return NULL;
	}
	return found;
}

Av *
av_item_from_json_text(const char *text, int len, const char *wrapper, StErr *err)
{
	JsonReader	r = {text, text, text + len, err, false};
	Av		   *item = NULL;
	bool		seen = false;

	if (wrapper == NULL)
		item = typed_map(&r, 0);
	else
	{
		/* {"<wrapper>": {...}} and nothing else */
		if (peek(&r) != JK_OBJECT)
		{
			st_fail(err, ST_ERR_VALIDATION, "A line must be a JSON object {\"%s\": {...}}", wrapper);
			return NULL;
		}
		r.p++;
		skip_ws(&r);
		if (r.p < r.end && *r.p == '}')
			r.p++;
		else
			for (;;)
			{
				const char *name;
				int			nlen;

				if (!read_string(&r, &name, &nlen) || !expect(&r, ':'))
					return NULL;
				if (nlen != (int) strlen(wrapper) || memcmp(name, wrapper, nlen) != 0)
				{
					st_fail(err, ST_ERR_VALIDATION,
							"A line must be a JSON object {\"%s\": {...}}: it has members other than \"%s\"",
							wrapper, wrapper);
					return NULL;
				}
				if (peek(&r) != JK_OBJECT)
				{
					st_fail(err, ST_ERR_VALIDATION,
							"A line must be a JSON object {\"%s\": {...}}: \"%s\" is not an object",
							wrapper, wrapper);
					return NULL;
				}
				item = typed_map(&r, 0);
				if (item == NULL)
					return NULL;
				seen = true;
				skip_ws(&r);
				if (r.p < r.end && *r.p == ',')
				{
					r.p++;
					continue;
				}
				if (!expect(&r, '}'))
					return NULL;
				break;
			}
		if (!seen)
		{
			st_fail(err, ST_ERR_VALIDATION,
					"A line must be a JSON object {\"%s\": {...}}: \"%s\" is missing", wrapper, wrapper);
			return NULL;
		}
	}
	if (item == NULL)
		return NULL;
	skip_ws(&r);
	if (r.p != r.end)
	{
		syntax(&r, "text after the end of the JSON value");
		return NULL;
	}
	if (!av_normalize(item, 0, err))
		return NULL;
	return item;
}
