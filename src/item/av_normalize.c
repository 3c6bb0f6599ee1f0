/*-------------------------------------------------------------------------
 *
 * av_normalize.c
 *		Turn an AttributeValue tree as sent into the form stdesign stores,
 *		refusing what DynamoDB refuses; and the base64 codec of the JSON
 *		boundary.
 *
 * What DynamoDB does, and where it is written down:
 *
 * - Sets may not be empty; empty strings and empty binary values are
 *	 allowed, also inside sets (Developer Guide, "Data types", Sets; empty
 *	 values since May 2020).  Messages (ValidationException):
 *	   "One or more parameter values were invalid: An string set  may not be empty"
 *	   "One or more parameter values were invalid: An number set  may not be empty"
 *	   "One or more parameter values were invalid: Binary sets should not be empty"
 *	 (sic: "An string", two spaces, "An number").
 *
 * - Set members must be distinct; numbers compare by value, so NS ["1",
 *	 "1.0"] holds a duplicate.  Messages, in the wording DynamoDB's
 *	 PutItem/UpdateItem/DeleteItem/GetItem/Query layer uses:
 *	   SS: "One or more parameter values were invalid: Input collection
 *		   [\"a\", \"b\", \"b\"] contains duplicates."
 *	   BS: "One or more parameter values were invalid: Input collection
 *		   [\"AA==\",\"/w==\",\"AA==\"]of type BS contains duplicates."
 *	   NS: "One or more parameter values were invalid: Input collection
 *		   contains duplicates."
 *	 The members are listed in byte order up to the first repeated one,
 *	 then that repeat, then the rest as sent.  (Captured against DynamoDB in
 *	 four regions by a public conformance suite; BatchWriteItem and the
 *	 transaction operations of most regions still use an older wording,
 *	 which is the operation layer's business.)
 *
 * - Nesting: "DynamoDB supports nested attributes up to 32 levels deep"
 *	 (Developer Guide, "Data types", Document types).  A top-level attribute
 *	 value is level 1: an attribute holding 31 nested maps around a string
 *	 is accepted, 32 are refused with
 *	   "Nesting Levels have exceeded supported limits: Attributes in the item
 *		have nested levels beyond supported limit"
 *	 (captured against DynamoDB by the same suite).
 *
 * - Binary values travel as base64 ("Your applications must encode binary
 *	 values in base64-encoded format"); DynamoDB decodes them while reading
 *	 the request, so a bad one is a SerializationException, not a
 *	 ValidationException, worded as
 *	   "'<text>' can not be converted to a Blob: Base64 encoded length is
 *		expected a multiple of 4 bytes but found: 5"
 *	   "'<text>' can not be converted to a Blob: Invalid Base64 character: '!'"
 *	   "'<text>' can not be converted to a Blob: Invalid last non-pad Base64
 *		character dectected"  (sic)
 *	 (dynalite's validation tests, recorded against DynamoDB; ScyllaDB
 *	 issue #6487 shows DynamoDB refusing missing padding.)
 *
 * - U+0000 is a valid character for DynamoDB, but the stored form is jsonb,
 *	 which cannot hold it; a string or attribute name containing it is
 *	 refused with a ValidationException of our own that says so, rather
 *	 than failing later inside the storage layer.
 *
 * Pure C: no backend needed.
 *
 *-------------------------------------------------------------------------
 */
#include "av.h"
#include "number.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define MSG_INVALID "One or more parameter values were invalid: "
#define MSG_NESTING "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
#define MSG_NUL_STRING MSG_INVALID "a string value contains the character U+0000, which stdesign cannot store"
#define MSG_NUL_NAME MSG_INVALID "an attribute name contains the character U+0000, which stdesign cannot store"

/* ---------------------------------------------------------------------
 * Bounded message text.
 *
 * Messages quote user data (set members, base64 text); they are cut to fit
 * StErr's buffer at a UTF-8 character boundary, so that the message stays
 * valid UTF-8 whatever is cut.
 * ---------------------------------------------------------------------
 */
typedef struct MsgBuf
{
	char		data[ST_ERR_MSG_MAX];
	int			len;
	int			cap;			/* usable bytes, below sizeof(data) */
	bool		full;
} MsgBuf;

static void
msg_init(MsgBuf *m, int cap)
{
	m->len = 0;
	m->cap = Max(0, Min(cap, (int) sizeof(m->data) - 1));
	m->full = false;
	m->data[0] = '\0';
}

/* Append s[0..len); when it does not fit, append what fits and "...". */
static void
msg_append(MsgBuf *m, const char *s, int len)
{
	int			room;
	int			n;

	if (m->full)
		return;
	room = m->cap - m->len;
	if (len <= room)
	{
		memcpy(m->data + m->len, s, len);
		m->len += len;
		m->data[m->len] = '\0';
		return;
	}
	m->full = true;
	n = room - 3;
	if (n < 0)
		n = 0;
	/* back up so that no UTF-8 character is split */
	while (n > 0 && (((unsigned char) s[n]) & 0xC0) == 0x80)
		n--;
	memcpy(m->data + m->len, s, n);
	m->len += n;
	if (m->len + 3 <= m->cap)
	{
		memcpy(m->data + m->len, "...", 3);
		m->len += 3;
	}
	m->data[m->len] = '\0';
}

static void
msg_cstr(MsgBuf *m, const char *s)
{
	msg_append(m, s, (int) strlen(s));
}

/* ---------------------------------------------------------------------
 * Base64
 * ---------------------------------------------------------------------
 */
static const char b64_alphabet[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* value of a base64 character, or -1 */
static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

char *
av_base64_encode(const char *bytes, int len, int *outlen)
{
	const unsigned char *in = (const unsigned char *) bytes;
	int64		n;
	char	   *out;
	int			p = 0;
	int			i;

	if (len < 0)
		len = 0;
	n = ((int64) len + 2) / 3 * 4;
	if (n >= INT_MAX)
	{
		*outlen = 0;
		return NULL;
	}
	out = palloc((size_t) n + 1);
	for (i = 0; i + 2 < len; i += 3)
	{
		uint32		w = ((uint32) in[i] << 16) | ((uint32) in[i + 1] << 8) | in[i + 2];

		out[p++] = b64_alphabet[(w >> 18) & 63];
		out[p++] = b64_alphabet[(w >> 12) & 63];
		out[p++] = b64_alphabet[(w >> 6) & 63];
		out[p++] = b64_alphabet[w & 63];
	}
	if (len - i == 1)
	{
		uint32		w = (uint32) in[i] << 16;

		out[p++] = b64_alphabet[(w >> 18) & 63];
		out[p++] = b64_alphabet[(w >> 12) & 63];
		out[p++] = '=';
		out[p++] = '=';
	}
	else if (len - i == 2)
	{
		uint32		w = ((uint32) in[i] << 16) | ((uint32) in[i + 1] << 8);

		out[p++] = b64_alphabet[(w >> 18) & 63];
		out[p++] = b64_alphabet[(w >> 12) & 63];
		out[p++] = b64_alphabet[(w >> 6) & 63];
		out[p++] = '=';
	}
	out[p] = '\0';
	*outlen = p;
	return out;
}

/* Length of the UTF-8 character starting at s[0] (1 if it is not valid). */
static int
utf8_char_len(const char *s, int avail)
{
	unsigned char c = (unsigned char) s[0];
	int			n;

	if (c < 0x80)
		return 1;
	else if ((c & 0xE0) == 0xC0)
		n = 2;
	else if ((c & 0xF0) == 0xE0)
		n = 3;
	else if ((c & 0xF8) == 0xF0)
		n = 4;
	else
		return 1;
	if (n > avail)
		return 1;
	for (int k = 1; k < n; k++)
		if ((((unsigned char) s[k]) & 0xC0) != 0x80)
			return 1;
	return n;
}

static bool
b64_fail(StErr *err, const char *text, int len, const char *reason, int rlen)
{
	MsgBuf		m;

	/* "'<text>' can not be converted to a Blob: <reason>", text cut to fit */
	msg_init(&m, ST_ERR_MSG_MAX - 1 - 40 - rlen);
	msg_append(&m, text, len);
	return st_fail(err, ST_ERR_SERIALIZATION, "'%s' can not be converted to a Blob: %.*s",
				   m.data, rlen, reason);
}

bool
av_base64_decode_err(const char *text, int len, char **out, int *outlen, StErr *err)
{
	const unsigned char *in = (const unsigned char *) text;
	int			pad = 0;
	int			n;
	char	   *buf;
	int			p = 0;
	char		reason[128];
	int			rlen;

	*out = NULL;
	*outlen = 0;
	if (len < 0 || (len > 0 && text == NULL))
		return b64_fail(err, "", 0, "invalid length", 14);
	if (len % 4 != 0)
	{
		rlen = snprintf(reason, sizeof(reason),
						"Base64 encoded length is expected a multiple of 4 bytes but found: %d", len);
		return b64_fail(err, text, len, reason, rlen);
	}

	/*
	 * Every character must be in the alphabet, except '=' which may only be
	 * followed by '='.
	 */
	for (int i = 0; i < len; i++)
	{
		if (b64_value(in[i]) >= 0)
			continue;
		if (in[i] == '=' && (i + 1 == len || in[i + 1] == '='))
			continue;
		{
			int			cl = utf8_char_len(text + i, len - i);

			rlen = snprintf(reason, sizeof(reason), "Invalid Base64 character: '%.*s'",
							cl, text + i);
			return b64_fail(err, text, len, reason, rlen);
		}
	}
	while (pad < len && in[len - 1 - pad] == '=')
		pad++;

	/*
	 * At most two pad characters, and the bits of the last data character
	 * that padding leaves unused must be zero: only the canonical encoding
	 * of some bytes is accepted.
	 */
	if (pad > 2 ||
		(pad == 1 && (b64_value(in[len - 2]) & 0x03) != 0) ||
		(pad == 2 && (b64_value(in[len - 3]) & 0x0F) != 0))
	{
		rlen = (int) strlen("Invalid last non-pad Base64 character dectected");
		return b64_fail(err, text, len, "Invalid last non-pad Base64 character dectected", rlen);
	}

	n = len / 4 * 3 - pad;
	buf = palloc((size_t) n + 1);
	for (int i = 0; i < len; i += 4)
	{
		uint32		w = 0;
		int			chars = 4;

		for (int k = 0; k < 4; k++)
		{
			int			v = b64_value(in[i + k]);

			if (v < 0)
			{
				v = 0;
				chars = Min(chars, k);
			}
			w = (w << 6) | (uint32) v;
		}
		/* chars data characters give chars - 1 bytes (4 give 3) */
		if (chars >= 2 && p < n)
			buf[p++] = (char) ((w >> 16) & 0xFF);
		if (chars >= 3 && p < n)
			buf[p++] = (char) ((w >> 8) & 0xFF);
		if (chars >= 4 && p < n)
			buf[p++] = (char) (w & 0xFF);
	}
	buf[p] = '\0';
	*out = buf;
	*outlen = p;
	return true;
}

bool
av_base64_decode(const char *text, int len, char **out, int *outlen)
{
	StErr		err;

	return av_base64_decode_err(text, len, out, outlen, &err);
}

/* ---------------------------------------------------------------------
 * Normalisation
 * ---------------------------------------------------------------------
 */

static bool
fail_shape(StErr *err)
{
	/* the converters never build such a tree; say so rather than crash */
	return st_fail(err, ST_ERR_INTERNAL, "malformed attribute value tree");
}

static bool
normalize_scalar(Av *s, AvType type, StErr *err)
{
	if (s == NULL || s->type != type || s->len < 0 || (s->len > 0 && s->str == NULL))
		return fail_shape(err);

	switch (type)
	{
		case AV_S:
			if (s->len > 0 && memchr(s->str, '\0', s->len) != NULL)
				return st_fail(err, ST_ERR_VALIDATION, MSG_NUL_STRING);
			if (s->str == NULL)
				s->str = pstrdup("");
			return true;

		case AV_N:
			{
				char		buf[NUM_TEXT_MAX];
				int			n = st_num_canonical(s->str ? s->str : "", s->len, buf, err);

				if (n < 0)
					return false;
				/* unchanged text keeps its allocation */
				if (n != s->len || memcmp(buf, s->str, n) != 0)
				{
					s->str = pnstrdup(buf, n);
					s->len = n;
				}
				return true;
			}

		case AV_B:
			{
				char	   *bytes;
				int			n;

				if (!av_base64_decode_err(s->str ? s->str : "", s->len, &bytes, &n, err))
					return false;
				s->str = bytes;
				s->len = n;
				return true;
			}

		default:
			return fail_shape(err);
	}
}

typedef struct SetEntry
{
	const Av   *v;
	int			idx;			/* position as sent */
} SetEntry;

static int
set_entry_cmp(const void *a, const void *b)
{
	const SetEntry *x = (const SetEntry *) a;
	const SetEntry *y = (const SetEntry *) b;
	int			c = memcmp(x->v->str, y->v->str, Min(x->v->len, y->v->len));

	if (c == 0)
		c = (x->v->len > y->v->len) - (x->v->len < y->v->len);
	if (c == 0)
		c = (x->idx > y->idx) - (x->idx < y->idx);
	return c;
}

/* One member quoted for a duplicates message: S as is, B as base64. */
static void
msg_member(MsgBuf *m, const Av *v, bool binary, bool first)
{
	if (!first)
		msg_cstr(m, binary ? "," : ", ");
	msg_cstr(m, "\"");
	if (binary)
	{
		int			n;
		char	   *b64 = av_base64_encode(v->str, v->len, &n);

		if (b64 != NULL)
		{
			msg_append(m, b64, n);
			pfree(b64);
		}
	}
	else
		msg_append(m, v->str, v->len);
	msg_cstr(m, "\"");
}

/*
 * Members are already normalised, so equal values have equal bytes (numbers
 * are canonical: one text per value).  Sorting finds duplicates in n log n;
 * a set can have tens of thousands of members.
 */
static bool
check_set_duplicates(const Av *set, StErr *err)
{
	SetEntry   *e;
	int			first_repeat = -1;
	MsgBuf		m;
	bool		binary = (set->type == AV_BS);
	bool		first = true;

	if (set->n < 2)
		return true;
	e = palloc(sizeof(SetEntry) * (size_t) set->n);
	for (int i = 0; i < set->n; i++)
	{
		e[i].v = set->items[i];
		e[i].idx = i;
	}
	qsort(e, set->n, sizeof(SetEntry), set_entry_cmp);

	/*
	 * The first repeat as sent is the smallest index that is not the first
	 * of its run of equal values.
	 */
	for (int i = 1; i < set->n; i++)
	{
		const Av   *a = e[i - 1].v;
		const Av   *b = e[i].v;

		if (a->len == b->len && memcmp(a->str, b->str, a->len) == 0 &&
			(first_repeat < 0 || e[i].idx < first_repeat))
			first_repeat = e[i].idx;
	}
	if (first_repeat < 0)
	{
		pfree(e);
		return true;
	}

	if (set->type == AV_NS)
	{
		pfree(e);
		return st_fail(err, ST_ERR_VALIDATION, MSG_INVALID "Input collection contains duplicates.");
	}

	/*
	 * DynamoDB lists the distinct members before the first repeat in byte
	 * order, then the repeat, then the rest as sent.
	 */
	msg_init(&m, ST_ERR_MSG_MAX - 1 - (int) strlen(MSG_INVALID "Input collection []of type BS contains duplicates."));
	for (int i = 0; i < set->n; i++)
	{
		if (e[i].idx < first_repeat)
		{
			msg_member(&m, e[i].v, binary, first);
			first = false;
		}
	}
	for (int i = first_repeat; i < set->n && !m.full; i++)
	{
		msg_member(&m, set->items[i], binary, first);
		first = false;
	}
	pfree(e);
	if (binary)
		return st_fail(err, ST_ERR_VALIDATION,
					   MSG_INVALID "Input collection [%s]of type BS contains duplicates.", m.data);
	return st_fail(err, ST_ERR_VALIDATION,
				   MSG_INVALID "Input collection [%s] contains duplicates.", m.data);
}

static bool
normalize_set(Av *set, StErr *err)
{
	AvType		mtype = av_set_member_type(set->type);

	if (set->n < 0 || (set->n > 0 && set->items == NULL))
		return fail_shape(err);
	if (set->n == 0)
	{
		switch (set->type)
		{
			case AV_SS:
				return st_fail(err, ST_ERR_VALIDATION, MSG_INVALID "An string set  may not be empty");
			case AV_NS:
				return st_fail(err, ST_ERR_VALIDATION, MSG_INVALID "An number set  may not be empty");
			default:
				return st_fail(err, ST_ERR_VALIDATION, MSG_INVALID "Binary sets should not be empty");
		}
	}
	for (int i = 0; i < set->n; i++)
	{
		if (!normalize_scalar(set->items[i], mtype, err))
			return false;
	}
	return check_set_duplicates(set, err);
}

bool
av_normalize(Av *v, int depth, StErr *err)
{
	if (v == NULL)
		return fail_shape(err);

	/*
	 * Checked before descending, so the recursion below never goes deeper
	 * than AV_MAX_DEPTH + 1 frames, whatever the input.
	 */
	if (depth > AV_MAX_DEPTH)
		return st_fail(err, ST_ERR_VALIDATION, MSG_NESTING);

	switch (v->type)
	{
		case AV_S:
		case AV_N:
		case AV_B:
			return normalize_scalar(v, v->type, err);

		case AV_BOOL:
		case AV_NULL:
			return true;

		case AV_M:
			if (v->n < 0 || (v->n > 0 && v->members == NULL))
				return fail_shape(err);
			for (int i = 0; i < v->n; i++)
			{
				AvMember   *m = &v->members[i];

				if (m->name_len < 0 || (m->name_len > 0 && m->name == NULL))
					return fail_shape(err);
				if (m->name_len > 0 && memchr(m->name, '\0', m->name_len) != NULL)
					return st_fail(err, ST_ERR_VALIDATION, MSG_NUL_NAME);
				if (!av_normalize(m->value, depth + 1, err))
					return false;
			}
			return true;

		case AV_L:
			if (v->n < 0 || (v->n > 0 && v->items == NULL))
				return fail_shape(err);
			for (int i = 0; i < v->n; i++)
			{
				if (!av_normalize(v->items[i], depth + 1, err))
					return false;
			}
			return true;

		case AV_SS:
		case AV_NS:
		case AV_BS:
			return normalize_set(v, err);
	}
	return fail_shape(err);
}
