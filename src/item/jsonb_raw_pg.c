/*-------------------------------------------------------------------------
 *
 * jsonb_raw_pg.c
 *		Reading and writing jsonb's binary format directly (see jsonb_raw.h);
 *		needs the backend, hence _pg.
 *
 * Offsets: a child's data starts where the previous child's ends; a JEntry
 * holds either the child's length or (JENTRY_HAS_OFF) its end offset, both
 * relative to the start of the container's data.  Reading in order keeps a
 * running end offset, so a walk is linear and allocates nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "common/st_common.h"
#include "jsonb_raw.h"

/* ---------- reading (the walk itself is inline, in jsonb_raw.h) ---------- */

void
st_jsonb_raw_value(const JsonbRaw *raw, JsonbValue *out)
{
	switch (raw->type)
	{
		case JENTRY_ISSTRING:
			out->type = jbvString;
			out->val.string.val = (char *) raw->data;
			out->val.string.len = (int) raw->len;
			break;
		case JENTRY_ISNUMERIC:
			out->type = jbvNumeric;
			out->val.numeric = (Numeric) raw->data;
			break;
		case JENTRY_ISBOOL_TRUE:
		case JENTRY_ISBOOL_FALSE:
			out->type = jbvBool;
			out->val.boolean = raw->type == JENTRY_ISBOOL_TRUE;
			break;
		case JENTRY_ISNULL:
			out->type = jbvNull;
			break;
		case JENTRY_ISCONTAINER:
			out->type = jbvBinary;
			out->val.binary.data = (JsonbContainer *) raw->data;
			out->val.binary.len = (int) raw->len;
			break;
		default:
			st_internal_error("corrupt jsonb container: unknown child type %u", raw->type);
	}
}

/* ---------- writing ---------- */

static void convert_value(StringInfo buf, JEntry *entry, const JsonbValue *v);

/* Pad the buffer to 4-byte alignment; returns the bytes added. */
static int
pad_to_int(StringInfo buf)
{
	int			pad = INTALIGN(buf->len) - buf->len;

	if (pad > 0)
	{
		enlargeStringInfo(buf, pad);
		memset(buf->data + buf->len, 0, pad);
		buf->len += pad;
	}
	return pad;
}

/* Reserve n bytes (JEntries), returning their offset in the buffer. */
static int
reserve(StringInfo buf, Size n)
{
	int			at = buf->len;

	if (n > MaxAllocSize - (Size) buf->len)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("jsonb value too large")));
	enlargeStringInfo(buf, (int) n);
	buf->len += (int) n;
	return at;
}

static void
check_total(uint64 total)
{
	if (total > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("total size of jsonb container exceeds the maximum of %u bytes",
						JENTRY_OFFLENMASK)));
}

/*
 * One child of a container written at its place: the JEntry for it, with
 * the end offset instead of the length every JB_OFFSET_STRIDE children.
 */
static void
write_child(StringInfo buf, int entries_at, int index, uint64 *total, const JsonbValue *v)
{
	JEntry		e;

	convert_value(buf, &e, v);
	*total += JBE_OFFLENFLD(e);
	check_total(*total);
	if (index % JB_OFFSET_STRIDE == 0)
		e = (e & JENTRY_TYPEMASK) | (uint32) *total | JENTRY_HAS_OFF;
	memcpy(buf->data + entries_at + index * sizeof(JEntry), &e, sizeof(JEntry));
}

/* Start a container: padding, header word, room for n JEntries. */
static int
begin_container(StringInfo buf, uint32 header, Size nentries)
{
	pad_to_int(buf);
	appendBinaryStringInfo(buf, (const char *) &header, sizeof(uint32));
	return reserve(buf, nentries * sizeof(JEntry));
}

static void
convert_array(StringInfo buf, JEntry *entry, const JsonbValue *v)
{
	int			start = buf->len;
	int			n = v->val.array.nElems;
	uint32		header = (uint32) n | JB_FARRAY | (v->val.array.rawScalar ? JB_FSCALAR : 0);
	uint64		total = 0;
	int			entries_at;

	if (n < 0 || n > JB_CMASK)
		st_internal_error("jsonb array has too many elements");
	entries_at = begin_container(buf, header, n);
	for (int i = 0; i < n; i++)
		write_child(buf, entries_at, i, &total, &v->val.array.elems[i]);
	check_total((uint64) (buf->len - start));
	*entry = JENTRY_ISCONTAINER | (uint32) (buf->len - start);
}

static void
convert_object(StringInfo buf, JEntry *entry, const JsonbValue *v)
{
	int			start = buf->len;
	int			n = v->val.object.nPairs;
	uint64		total = 0;
	int			entries_at;

	if (n < 0 || n > JB_CMASK)
		st_internal_error("jsonb object has too many members");
	entries_at = begin_container(buf, (uint32) n | JB_FOBJECT, (Size) n * 2);
	for (int i = 0; i < n; i++)
		write_child(buf, entries_at, i, &total, &v->val.object.pairs[i].key);
	for (int i = 0; i < n; i++)
		write_child(buf, entries_at, i + n, &total, &v->val.object.pairs[i].value);
	check_total((uint64) (buf->len - start));
	*entry = JENTRY_ISCONTAINER | (uint32) (buf->len - start);
}

/* A container of another datum, copied as it is (after alignment). */
static void
copy_container(StringInfo buf, JEntry *entry, const JsonbValue *v)
{
	int			start = buf->len;
	const JsonbContainer *c = v->val.binary.data;

	if (v->val.binary.len < (int) sizeof(uint32) || JsonContainerIsScalar(c))
		st_internal_error("only an array or object container can be copied into jsonb");
	pad_to_int(buf);
	appendBinaryStringInfo(buf, (const char *) c, v->val.binary.len);
	check_total((uint64) (buf->len - start));
	*entry = JENTRY_ISCONTAINER | (uint32) (buf->len - start);
}

static void
convert_value(StringInfo buf, JEntry *entry, const JsonbValue *v)
{
	int			pad;
	Size		n;

	check_stack_depth();
	switch (v->type)
	{
		case jbvNull:
			*entry = JENTRY_ISNULL;
			break;
		case jbvBool:
			*entry = v->val.boolean ? JENTRY_ISBOOL_TRUE : JENTRY_ISBOOL_FALSE;
			break;
		case jbvString:
			check_total((uint64) v->val.string.len);
			appendBinaryStringInfo(buf, v->val.string.val, v->val.string.len);
			*entry = JENTRY_ISSTRING | (uint32) v->val.string.len;
			break;
		case jbvNumeric:
			pad = pad_to_int(buf);
			n = VARSIZE_ANY(v->val.numeric);
			appendBinaryStringInfo(buf, (const char *) v->val.numeric, (int) n);
			*entry = JENTRY_ISNUMERIC | (uint32) (pad + n);
			break;
		case jbvArray:
			convert_array(buf, entry, v);
			break;
		case jbvObject:
			convert_object(buf, entry, v);
			break;
		case jbvBinary:
			copy_container(buf, entry, v);
			break;
		default:
			st_internal_error("unexpected jsonb value type %d", (int) v->type);
	}
}

Jsonb *
st_jsonb_raw_from_value(const JsonbValue *root)
{
	StringInfoData buf;
	JEntry		entry;
	Jsonb	   *result;

	if (root->type != jbvArray && root->type != jbvObject && root->type != jbvBinary)
		st_internal_error("a jsonb datum needs an array or object at its root");
	initStringInfo(&buf);
	reserve(&buf, VARHDRSZ);
	convert_value(&buf, &entry, root);
	result = (Jsonb *) buf.data;
	SET_VARSIZE(result, buf.len);
	return result;
}
