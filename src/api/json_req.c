/*-------------------------------------------------------------------------
 *
 * json_req.c
 *		Reading DynamoDB JSON requests held in jsonb.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "common/st_common.h"
#include "json_req.h"

bool
api_jreq_is_object(Jsonb *jb)
{
	return jb != NULL && JB_ROOT_IS_OBJECT(jb);
}

bool
api_jreq_is_array(Jsonb *jb)
{
	return jb != NULL && JB_ROOT_IS_ARRAY(jb) && !JB_ROOT_IS_SCALAR(jb);
}

static Jsonb *
value_to_jsonb(JsonbValue *v)
{
	if (v == NULL || v->type == jbvNull)
		return NULL;
	return JsonbValueToJsonb(v);
}

Jsonb *
api_jreq_member(Jsonb *jb, const char *key)
{
	JsonbValue	k;

	if (!api_jreq_is_object(jb))
		return NULL;
	k.type = jbvString;
	k.val.string.val = (char *) key;
	k.val.string.len = strlen(key);
	return value_to_jsonb(findJsonbValueFromContainer(&jb->root, JB_FOBJECT, &k));
}

/* The scalar at the root of jb, or false when jb is a container. */
static bool
root_scalar(Jsonb *jb, JsonbValue *out)
{
	return JB_ROOT_IS_SCALAR(jb) && JsonbExtractScalar(&jb->root, out);
}

char *
api_jreq_member_text(Jsonb *jb, const char *key, const char *path)
{
	Jsonb	   *m = api_jreq_member(jb, key);
	JsonbValue	v;

	if (m == NULL)
		return NULL;
	if (!root_scalar(m, &v) || v.type != jbvString)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected a string", path);
	return pnstrdup(v.val.string.val, v.val.string.len);
}

bool
api_jreq_member_bool(Jsonb *jb, const char *key, const char *path, bool dflt)
{
	Jsonb	   *m = api_jreq_member(jb, key);
	JsonbValue	v;

	if (m == NULL)
		return dflt;
	if (!root_scalar(m, &v) || v.type != jbvBool)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected a boolean", path);
	return v.val.boolean;
}

int64
api_jreq_member_int(Jsonb *jb, const char *key, const char *path, int64 dflt)
{
	Jsonb	   *m = api_jreq_member(jb, key);
	JsonbValue	v;
	char	   *text;
	char	   *end;
	long long	n;

	if (m == NULL)
		return dflt;
	if (!root_scalar(m, &v) || v.type != jbvNumeric)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected a number", path);
	text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v.val.numeric)));
	errno = 0;
	n = strtoll(text, &end, 10);
	if (*end != '\0' || errno != 0)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value for %s: expected an integer, got %s", path, text);
	return (int64) n;
}

int
api_jreq_array_length(Jsonb *jb)
{
	return api_jreq_is_array(jb) ? (int) JB_ROOT_COUNT(jb) : 0;
}

Jsonb *
api_jreq_array_element(Jsonb *jb, int i)
{
	JsonbValue *v;

	/* callers stay within api_jreq_array_length: anything else is a bug here */
	if (!api_jreq_is_array(jb) || i < 0 || i >= (int) JB_ROOT_COUNT(jb))
		st_internal_error("array element %d out of range", i);
	v = getIthJsonbValueFromContainer(&jb->root, i);
	if (v == NULL)
		st_internal_error("array element %d out of range", i);
	/* a JSON null element is a value (the null scalar), so no caller gets NULL */
	return JsonbValueToJsonb(v);
}

int
api_jreq_object_size(Jsonb *jb)
{
	return api_jreq_is_object(jb) ? (int) JB_ROOT_COUNT(jb) : 0;
}

Jsonb *
api_jreq_object_member(Jsonb *jb, int i, char **key)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n = -1;

	if (!api_jreq_is_object(jb))
		st_internal_error("object member %d of a value that is not an object", i);
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY && ++n == i)
		{
			*key = pnstrdup(v.val.string.val, v.val.string.len);
			tok = JsonbIteratorNext(&it, &v, true);
			/* JSON null is the null scalar here too */
			return JsonbValueToJsonb(&v);
		}
	}
	st_internal_error("object member %d out of range", i);
}

char *
api_jreq_text(Jsonb *jb)
{
	return JsonbToCString(NULL, &jb->root, VARSIZE(jb));
}
