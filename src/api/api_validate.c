/*-------------------------------------------------------------------------
 *
 * api_validate.c
 *		The first two of DynamoDB's checks of a request, driven by its API
 *		model (api_model.c): the JSON type of every field, then the model's
 *		constraints on every field.
 *
 * DynamoDB answers a request with the first layer that fails: (1) a field
 * whose JSON type does not fit its shape is a SerializationException
 * ("NUMBER_VALUE cannot be converted to String", "Start of structure or map
 * found where not expected", "Unexpected field type"); (2) then every
 * violated constraint (required, length, range, pattern, enum) goes into
 * one ValidationException, "N validation errors detected: Value 'x' at
 * 'path' failed to satisfy constraint: Member must ...; ...", listing at
 * most ten, in DynamoDB's order (a structure's members as api_model.c
 * lists them, see gen_api_model.py's validation_order; a field's broken
 * constraints as check_constraints orders them); (3) only then the
 * operation's own checks, and (4) the table.
 * The handlers do (3) and (4); this file does (1) and (2) for every
 * operation alike, in one walk: a type error is raised at once, constraint
 * violations are collected and raised when the walk ends.
 *
 * Paths name fields as DynamoDB's messages do: the member name with its
 * first letter lower-cased, "<list>.<n>.member" for the n-th element of a
 * list (from 1) and "<map>.<key>.member" for a map's value
 * ("transactItems.1.member.put.tableName").  A list or map that breaks its
 * own length is quoted only when empty ('[]', '{}') or a list of strings;
 * DynamoDB quotes other containers as Java objects, which mean nothing here.
 *
 * AttributeValues (items, keys, expression values) are walked for their
 * JSON types too; what they mean (one type descriptor, numbers, sets) is
 * checked later by src/item, as DynamoDB checks it after this layer.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "api.h"
#include "api_model.h"
#include "common/st_common.h"
#include "item/av.h"
#include "item/jsonb_raw.h"

/* DynamoDB lists at most this many violations in one message. */
#define API_MAX_VIOLATIONS 10

/*
 * Shape levels walked: an AttributeValue nests two shape levels per level
 * of the value, so this covers DynamoDB's 32 levels with room; deeper
 * values are refused by src/item's own depth limit.
 */
#define API_MAX_WALK_DEPTH 128

/*
 * One step of the path to the current field: a structure member, the n-th
 * element of a list ("<n>.member") or a map's value ("<key>.member").  The
 * steps are kept as pointers and only rendered into text for a violation,
 * so that walking a valid request costs no string building.
 */
typedef struct PathStep
{
	const char *name;			/* member name or map key; NULL for a list element */
	int			len;
	int			index;			/* list element number, from 1 */
	bool		member;			/* followed by ".member" */
} PathStep;

#define API_MAX_PATH (2 * API_MAX_WALK_DEPTH + 4)

typedef struct Walk
{
	PathStep	path[API_MAX_PATH];
	int			npath;
	StringInfoData errors;		/* violations, "; "-separated */
	int			nerrors;
	int			depth;
} Walk;

static void walk_value(Walk *w, int shape, const JsonbRaw *v);

/* ---------- raising ---------- */

static void
raise_exception(StErrCode code, const char *message)
{
	const char *state = st_exception_sqlstate(code);
	char	   *text = pstrdup(message);

	/* quoted values of a database that is not UTF-8 may hold any byte */
	st_make_valid_utf8(text);
	ereport(ERROR,
			(errcode(MAKE_SQLSTATE(state[0], state[1], state[2], state[3], state[4])),
			 errmsg("%s: %s", st_exception_name(code), text)));
}

/* How DynamoDB's JSON reader names the token it found. */
static const char *
token_name(const JsonbRaw *v)
{
	switch (v->type)
	{
		case JENTRY_ISSTRING:
			return "STRING_VALUE";
		case JENTRY_ISNUMERIC:
			return "NUMBER_VALUE";
		case JENTRY_ISBOOL_TRUE:
			return "TRUE_VALUE";
		case JENTRY_ISBOOL_FALSE:
			return "FALSE_VALUE";
		default:
			return "NULL_VALUE";
	}
}

static bool
is_container(const JsonbRaw *v, bool object)
{
	const JsonbContainer *c = (const JsonbContainer *) v->data;

	if (v->type != JENTRY_ISCONTAINER)
		return false;
	return object ? JsonContainerIsObject(c) : JsonContainerIsArray(c);
}

/*
 * Layer 1: a value whose JSON type does not fit its shape.  `target` is the
 * Java type a scalar shape reads into.
 */
static void
type_error(const JsonbRaw *v, const char *target)
{
	if (is_container(v, true))
		raise_exception(ST_ERR_SERIALIZATION, "Start of structure or map found where not expected");
	if (is_container(v, false))
		raise_exception(ST_ERR_SERIALIZATION, "Start of list found where not expected");
	if (target == NULL)
		raise_exception(ST_ERR_SERIALIZATION, "Unexpected field type");
	raise_exception(ST_ERR_SERIALIZATION,
					psprintf("%s cannot be converted to %s", token_name(v), target));
}

/* ---------- layer 2: recording violations ---------- */

/* A value as DynamoDB quotes it: 'text', or NULL when it quotes nothing. */
static char *
quoted(const JsonbRaw *v)
{
	const JsonbContainer *c;

	switch (v->type)
	{
		case JENTRY_ISSTRING:
			return psprintf("'%.*s'", (int) v->len, v->data);
		case JENTRY_ISNUMERIC:
			return psprintf("'%s'", DatumGetCString(DirectFunctionCall1(numeric_out,
																		NumericGetDatum((Numeric) v->data))));
		case JENTRY_ISBOOL_TRUE:
			return pstrdup("'true'");
		case JENTRY_ISBOOL_FALSE:
			return pstrdup("'false'");
		case JENTRY_ISCONTAINER:
			c = (const JsonbContainer *) v->data;
			if (JsonContainerSize(c) == 0)
				return pstrdup(JsonContainerIsObject(c) ? "'{}'" : "'[]'");
			if (JsonContainerIsArray(c))
			{
				StringInfoData s;
				JsonbRawIter it;
				JsonbRaw	e;

				initStringInfo(&s);
				appendStringInfoString(&s, "'[");
				st_jsonb_raw_begin(&it, c);
				while (st_jsonb_raw_next_elem(&it, &e))
				{
					if (e.type != JENTRY_ISSTRING)
						return NULL;
					appendStringInfo(&s, "%s%.*s", s.len > 2 ? ", " : "", (int) e.len, e.data);
				}
				appendStringInfoString(&s, "]'");
				return s.data;
			}
			return NULL;
		default:
			return pstrdup("null");
	}
}

/* The path to the current field as DynamoDB writes it. */
static char *
path_text(Walk *w)
{
	StringInfoData s;

	initStringInfo(&s);
	for (int i = 0; i < w->npath; i++)
	{
		const PathStep *p = &w->path[i];

		if (i > 0)
			appendStringInfoChar(&s, '.');
		if (p->name)
			appendBinaryStringInfo(&s, p->name, p->len);
		else
			appendStringInfo(&s, "%d", p->index);
		if (p->member)
			appendStringInfoString(&s, ".member");
	}
	return s.data;
}

static void
violation(Walk *w, const char *value, const char *constraint)
{
	if (w->nerrors >= API_MAX_VIOLATIONS)
		return;
	if (w->nerrors++ > 0)
		appendStringInfoString(&w->errors, "; ");
	appendStringInfo(&w->errors, "Value %s%sat '%s' failed to satisfy constraint: %s",
					 value ? value : "", value ? " " : "", path_text(w), constraint);
}

/* ---------- patterns ---------- */

static bool
is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool
is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* All of s in [lo, hi] byte ranges given as a string of pairs. */
static bool
all_in(const char *s, int len, const char *ranges)
{
	for (int i = 0; i < len; i++)
	{
		bool		ok = false;

		for (const char *r = ranges; *r && !ok; r += 2)
			ok = (unsigned char) s[i] >= (unsigned char) r[0] &&
				(unsigned char) s[i] <= (unsigned char) r[1];
		if (!ok)
			return false;
	}
	return true;
}

/* XML 1.0 characters: no control characters but tab, CR and LF; no U+FFFE/FFFF. */
static bool
xml_text(const char *s, int len)
{
	for (int i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c < 0x20 && c != '\t' && c != '\r' && c != '\n')
			return false;
		if (c == 0xEF && i + 2 < len && (unsigned char) s[i + 1] == 0xBF &&
			((unsigned char) s[i + 2] == 0xBE || (unsigned char) s[i + 2] == 0xBF))
			return false;
	}
	return true;
}

static bool
pattern_matches(ApiPattern p, const char *s, int len)
{
	switch (p)
	{
		case API_PATTERN_NONE:
			return true;
		case API_PATTERN_NAME:
			return len > 0 && all_in(s, len, "azAZ09__..--");
		case API_PATTERN_HEX16:
			for (int i = 0; i < len; i++)
				if (!is_lower_hex(s[i]))
					return false;
			return len > 0 && len % 16 == 0;
		case API_PATTERN_RULE_NAME:
			return len >= 2 && len <= 128 && is_alnum(s[0]) && is_alnum(s[len - 1]) &&
				all_in(s, len, "azAZ09--__..");
		case API_PATTERN_XML_TEXT:
			return xml_text(s, len);
		case API_PATTERN_ACCOUNT:
			return len == 12 && all_in(s, len, "09");
		case API_PATTERN_BUCKET:
			return len >= 2 && is_alnum(s[0]) && is_alnum(s[len - 1]) &&
				all_in(s, len, "azAZ09__..--");
		case API_PATTERN_UUID:
			if (len != 36)
				return false;
			for (int i = 0; i < len; i++)
				if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-' : !is_lower_hex(s[i]))
					return false;
			return true;
		case API_PATTERN_PRINT:
			return len > 0 && all_in(s, len, " ~");
		case API_PATTERN_CSV_HEADER:
			return all_in(s, len, " !#+-~");
		case API_PATTERN_NO_DOLLAR:
			return len > 0 && memchr(s, '$', len) == NULL;
		case API_PATTERN_CSV_DELIMITER:
			return len == 1 && strchr(",;:|\t ", s[0]) != NULL;
		case API_PATTERN_TABLE_NAME_OR_ARN:
			return len > 0 && all_in(s, len, "azAZ09__..--");
	}
	return true;
}

/* ---------- constraints ---------- */

/*
 * A TableName given as a table's ARN: DynamoDB's TableArn shape, 1 to 1024
 * characters with no pattern (which ARN it is, the operation checks).
 */
#define API_TABLE_ARN_MAX 1024

static bool
is_table_arn(const ApiShape *s, const JsonbRaw *v)
{
	return s->pattern == API_PATTERN_TABLE_NAME_OR_ARN && v->type == JENTRY_ISSTRING &&
		v->len >= 4 && memcmp(v->data, "arn:", 4) == 0;
}

/* The length of a value for its shape's min/max: characters or members. */
static int64
value_length(const ApiShape *s, const JsonbRaw *v)
{
	if (s->kind == API_STRING || s->kind == API_BLOB)
		return av_utf16_length(v->data, v->len);
	return JsonContainerSize((const JsonbContainer *) v->data);
}

static int
numeric_vs(const JsonbRaw *v, int64 bound)
{
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum((Numeric) v->data),
											 NumericGetDatum(int64_to_numeric(bound))));
}

/*
 * The constraints v breaks, each as DynamoDB words it; `bracket_order`
 * lists them as DynamoDB's "Map keys/value must satisfy constraint: [...]"
 * does (maximum first), otherwise in the order it reports them one by one.
 */
static int
broken_constraints(const ApiShape *s, const JsonbRaw *v, bool bracket_order, char **out)
{
	bool		is_number = s->kind == API_INTEGER || s->kind == API_LONG || s->kind == API_DOUBLE;
	char	   *pattern = NULL,
			   *min = NULL,
			   *max = NULL,
			   *enumv = NULL;
	int			n = 0;

	if (is_table_arn(s, v))
	{
		if (av_utf16_length(v->data, v->len) > API_TABLE_ARN_MAX)
			out[n++] = psprintf("Member must have length less than or equal to %d", API_TABLE_ARN_MAX);
		return n;
	}
	if (s->pattern != API_PATTERN_NONE && v->type == JENTRY_ISSTRING &&
		!pattern_matches(s->pattern, v->data, v->len))
		pattern = psprintf("Member must satisfy regular expression pattern: %s", s->pattern_text);
	if (is_number)
	{
		if (s->has_min && numeric_vs(v, s->min) < 0)
			min = psprintf("Member must have value greater than or equal to " INT64_FORMAT, s->min);
		if (s->has_max && numeric_vs(v, s->max) > 0)
			max = psprintf("Member must have value less than or equal to " INT64_FORMAT, s->max);
	}
	else if (s->has_min || s->has_max)
	{
		int64		len = value_length(s, v);

		if (s->has_min && len < s->min)
			min = psprintf("Member must have length greater than or equal to " INT64_FORMAT, s->min);
		if (s->has_max && len > s->max)
			max = psprintf("Member must have length less than or equal to " INT64_FORMAT, s->max);
	}
	if (s->nenum > 0 && v->type == JENTRY_ISSTRING)
	{
		bool		found = false;

		for (int i = 0; i < s->nenum && !found; i++)
			found = strlen(s->enum_values[i]) == v->len &&
				memcmp(s->enum_values[i], v->data, v->len) == 0;
		if (!found)
		{
			StringInfoData set;

			initStringInfo(&set);
			for (int i = 0; i < s->nenum; i++)
				appendStringInfo(&set, "%s%s", i ? ", " : "", s->enum_values[i]);
			enumv = psprintf("Member must satisfy enum value set: [%s]", set.data);
		}
	}
	if (bracket_order)
	{
		if (max)
			out[n++] = max;
		if (min)
			out[n++] = min;
		if (pattern)
			out[n++] = pattern;
	}
	else
	{
		if (pattern)
			out[n++] = pattern;
		if (min)
			out[n++] = min;
		if (max)
			out[n++] = max;
	}
	if (enumv)
		out[n++] = enumv;
	return n;
}

/*
 * The bucket of a violation's text in a Java HashSet of 16 buckets:
 * String.hashCode over UTF-16 code units, spread as HashMap spreads it.
 */
static int
java_bucket(const char *text)
{
	uint32		h = 0;

	for (const unsigned char *c = (const unsigned char *) text; *c;)
	{
		uint32		cp;
		int			len = pg_utf_mblen(c);

		cp = utf8_to_unicode(c);
		c += len;
		if (cp >= 0x10000)
		{
			h = 31 * h + (0xD800 + ((cp - 0x10000) >> 10));
			h = 31 * h + (0xDC00 + ((cp - 0x10000) & 0x3FF));
		}
		else
			h = 31 * h + cp;
	}
	return (int) ((h ^ (h >> 16)) & 15);
}

/*
 * Every broken constraint of v, at the current path: DynamoDB names them
 * all ("a;" as a table name breaks its pattern and its length), in the
 * order of a Java HashSet of their texts (a table name '' is told its
 * length first, a backup name '' its pattern first, as DynamoDB answers).
 */
static void
check_constraints(Walk *w, const ApiShape *s, const JsonbRaw *v)
{
	char	   *broken[4];
	char	   *text[4];
	int			bucket[4];
	int			n = broken_constraints(s, v, false, broken);
	char	   *value = quoted(v);
	char	   *path = n > 1 ? path_text(w) : NULL;

	for (int i = 0; i < n && n > 1; i++)
	{
		text[i] = psprintf("Value %s%sat '%s' failed to satisfy constraint: %s",
						   value ? value : "", value ? " " : "", path, broken[i]);
		bucket[i] = java_bucket(text[i]);
	}
	/* a stable insertion sort by bucket: at most four */
	for (int i = 1; i < n && n > 1; i++)
		for (int j = i; j > 0 && bucket[j] < bucket[j - 1]; j--)
		{
			int			b = bucket[j];
			char	   *c = broken[j];

			bucket[j] = bucket[j - 1];
			broken[j] = broken[j - 1];
			bucket[j - 1] = b;
			broken[j - 1] = c;
		}
	for (int i = 0; i < n; i++)
		violation(w, value, broken[i]);
}

/*
 * The full list of a shape's constraints, for "Map keys/value must satisfy
 * constraint: [...]": DynamoDB names all of them, broken or not.
 */
static char *
all_constraints(const ApiShape *s)
{
	StringInfoData out;
	bool		is_number = s->kind == API_INTEGER || s->kind == API_LONG || s->kind == API_DOUBLE;
	const char *what = is_number ? "value" : "length";

	initStringInfo(&out);
	appendStringInfoChar(&out, '[');
	if (s->has_max)
		appendStringInfo(&out, "Member must have %s less than or equal to " INT64_FORMAT, what, s->max);
	if (s->has_min)
		appendStringInfo(&out, "%sMember must have %s greater than or equal to " INT64_FORMAT,
						 out.len > 1 ? ", " : "", what, s->min);
	if (s->pattern != API_PATTERN_NONE)
		appendStringInfo(&out, "%sMember must satisfy regular expression pattern: %s",
						 out.len > 1 ? ", " : "", s->pattern_text);
	if (s->nenum > 0)
	{
		appendStringInfo(&out, "%sMember must satisfy enum value set: [", out.len > 1 ? ", " : "");
		for (int i = 0; i < s->nenum; i++)
			appendStringInfo(&out, "%s%s", i ? ", " : "", s->enum_values[i]);
		appendStringInfoChar(&out, ']');
	}
	appendStringInfoChar(&out, ']');
	return out.data;
}

/* ---------- the walk ---------- */

/* Path bookkeeping: a step in, and out again. */
static void
path_push(Walk *w, const char *name, int len, int index, bool member)
{
	PathStep   *p;

	/* the walk's depth limit keeps paths shorter than this */
	if (w->npath >= API_MAX_PATH)
		st_internal_error("request path too deep");
	p = &w->path[w->npath++];
	p->name = name;
	p->len = len;
	p->index = index;
	p->member = member;
}

static void
path_pop(Walk *w)
{
	w->npath--;
}

static void
walk_struct(Walk *w, const ApiShape *s, const JsonbRaw *v)
{
	JsonbRaw	found[API_MODEL_MAX_MEMBERS];
	JsonbRawIter it;
	JsonbRaw	k,
				r;

	if (!is_container(v, true))
		type_error(v, NULL);
	memset(found, 0, sizeof(JsonbRaw) * s->nmembers);
	st_jsonb_raw_begin(&it, (const JsonbContainer *) v->data);
	while (st_jsonb_raw_next_member(&it, &k, &r))
	{
		for (int i = 0; i < s->nmembers; i++)
		{
			const ApiMember *m = &api_model_members[s->first_member + i];

			if (m->wire_len == k.len && memcmp(m->wire, k.data, k.len) == 0)
			{
				found[i] = r;
				break;
			}
		}
	}
	/* unknown fields are ignored, as DynamoDB ignores them */
	for (int i = 0; i < s->nmembers; i++)
	{
		const ApiMember *m = &api_model_members[s->first_member + i];
		bool		absent = found[i].data == NULL || found[i].type == JENTRY_ISNULL;

		if (absent && !m->required)
			continue;
		path_push(w, m->message_name, m->wire_len, 0, false);
		if (absent)
			violation(w, "null", "Member must not be null");
		else
			walk_value(w, m->shape, &found[i]);
		path_pop(w);
	}
}

/* A list's elements, each at "<path>.<n>.member". */
static void
walk_elements(Walk *w, const ApiShape *s, const JsonbRaw *v)
{
	JsonbRawIter it;
	JsonbRaw	e;
	int			n = 0;

	st_jsonb_raw_begin(&it, (const JsonbContainer *) v->data);
	while (st_jsonb_raw_next_elem(&it, &e))
	{
		path_push(w, NULL, 0, ++n, true);
		if (e.type != JENTRY_ISNULL)
			walk_value(w, s->element, &e);
		path_pop(w);
	}
}

static void
walk_list(Walk *w, const ApiShape *s, const JsonbRaw *v)
{
	if (!is_container(v, false))
		type_error(v, NULL);
	check_constraints(w, s, v);
	walk_elements(w, s, v);
}

/* Does a map's value break its shape's own constraints?  Its type first. */
static bool
bad_map_value(const ApiShape *vs, const JsonbRaw *r)
{
	char	   *broken[4];

	if (vs->kind == API_LIST && !is_container(r, false))
		type_error(r, NULL);
	if (vs->kind == API_STRING && r->type != JENTRY_ISSTRING)
		type_error(r, "String");
	return broken_constraints(vs, r, true, broken) > 0;
}

/*
 * A map: its own length, then its keys and its values against their
 * shapes' constraints (one violation for all keys, one for all values,
 * each naming every constraint of the shape), then each value's contents
 * at "<path>.<key>.member".
 */
static void
walk_map(Walk *w, const ApiShape *s, const JsonbRaw *v)
{
	const ApiShape *ks = s->key >= 0 ? &api_model_shapes[s->key] : NULL;
	const ApiShape *vs = &api_model_shapes[s->element];
	bool		value_constrained = (vs->kind == API_LIST || vs->kind == API_STRING) &&
		(vs->has_min || vs->has_max || vs->pattern != API_PATTERN_NONE || vs->nenum > 0);
	bool		bad_key = false,
				bad_value = false;
	JsonbRawIter it;
	JsonbRaw	k,
				r;

	if (!is_container(v, true))
		type_error(v, NULL);
	check_constraints(w, s, v);
	st_jsonb_raw_begin(&it, (const JsonbContainer *) v->data);
	while (st_jsonb_raw_next_member(&it, &k, &r))
	{
		char	   *broken[4];

		if (ks && !bad_key && broken_constraints(ks, &k, true, broken) > 0)
			bad_key = true;
		if (value_constrained && r.type != JENTRY_ISNULL && bad_map_value(vs, &r))
			bad_value = true;
	}
	if (bad_key)
		violation(w, NULL, psprintf("Map keys must satisfy constraint: %s", all_constraints(ks)));
	if (bad_value)
		violation(w, NULL, psprintf("Map value must satisfy constraint: %s", all_constraints(vs)));
	st_jsonb_raw_begin(&it, (const JsonbContainer *) v->data);
	while (st_jsonb_raw_next_member(&it, &k, &r))
	{
		if (r.type == JENTRY_ISNULL || (value_constrained && vs->kind == API_STRING))
			continue;
		path_push(w, k.data, k.len, 0, true);
		if (value_constrained)
			walk_elements(w, vs, &r);
		else
			walk_value(w, s->element, &r);
		path_pop(w);
	}
}

/* A blob is base64 text; anything else fails its reading, as in DynamoDB. */
static void
check_base64(const JsonbRaw *v)
{
	char	   *bytes;
	int			n;
	StErr		err;

	if (!av_base64_decode_err(v->data, v->len, &bytes, &n, &err))
		st_raise(&err);
	pfree(bytes);
}

/* A scalar: its JSON type, then its constraints. */
static void
walk_scalar(Walk *w, const ApiShape *s, const JsonbRaw *v)
{
	switch (s->kind)
	{
		case API_STRING:
			if (v->type != JENTRY_ISSTRING)
				type_error(v, "String");
			break;
		case API_BLOB:
			if (v->type != JENTRY_ISSTRING)
				type_error(v, "Blob");
			check_base64(v);
			break;
		case API_INTEGER:
		case API_LONG:
		case API_DOUBLE:
			if (v->type != JENTRY_ISNUMERIC)
				type_error(v, s->kind == API_INTEGER ? "Integer" :
						   s->kind == API_LONG ? "Long" : "Double");
			break;
		case API_BOOLEAN:
			if (v->type != JENTRY_ISBOOL_TRUE && v->type != JENTRY_ISBOOL_FALSE)
				type_error(v, "Boolean");
			break;
		case API_TIMESTAMP:
			if (v->type != JENTRY_ISNUMERIC && v->type != JENTRY_ISSTRING)
				type_error(v, "Date");
			break;
		default:
			break;
	}
	check_constraints(w, s, v);
}

static void
walk_value(Walk *w, int shape, const JsonbRaw *v)
{
	const ApiShape *s = &api_model_shapes[shape];

	check_stack_depth();
	if (++w->depth <= API_MAX_WALK_DEPTH)
	{
		if (s->kind == API_STRUCT)
			walk_struct(w, s, v);
		else if (s->kind == API_LIST)
			walk_list(w, s, v);
		else if (s->kind == API_MAP)
			walk_map(w, s, v);
		else
			walk_scalar(w, s, v);
	}
	w->depth--;
}

/* The model of an operation, by the name st_api was given (bare). */
static int
operation_input(const char *operation)
{
	for (int i = 0; i < api_model_noperations; i++)
		if (strcmp(api_model_operations[i].name, operation) == 0)
			return api_model_operations[i].input;
	return -1;
}

void
api_validate_request(const char *operation, Jsonb *request)
{
	int			input = operation_input(operation);
	Walk		w;
	JsonbRaw	root;

	if (input < 0 || !JB_ROOT_IS_OBJECT(request))
		return;
	w.npath = 0;
	initStringInfo(&w.errors);
	w.nerrors = 0;
	w.depth = 0;
	root.type = JENTRY_ISCONTAINER;
	root.data = (const char *) &request->root;
	root.len = VARSIZE(request) - VARHDRSZ;
	walk_value(&w, input, &root);
	if (w.nerrors > 0)
		raise_exception(ST_ERR_VALIDATION,
						psprintf("%d validation error%s detected: %s", w.nerrors,
								 w.nerrors > 1 ? "s" : "", w.errors.data));
}
